//! Adapters that plug the `openstack` clients into the API's seams (`api::TokenAuth`,
//! `api::Networking`, `api::CertManager`). The binary is the only place that knows both sides.

use async_trait::async_trait;
use openstack::{BarbicanClient, NeutronClient, NeutronError, TokenValidator};

use api::certificates::{CertError, CertManager, TlsCertificate};
use api::context::{Identity, TokenAuth};
use api::network::{NetworkInfo, Networking, PortInfo, SubnetInfo};

/// keystonemiddleware's role: a user token → its identity, through the cached validator.
pub struct KeystoneTokenAuth(pub TokenValidator);

#[async_trait]
impl TokenAuth for KeystoneTokenAuth {
    async fn validate(&self, token: &str) -> Result<Identity, String> {
        let ctx = self.0.validate(token).await.map_err(|e| e.to_string())?;
        Ok(Identity {
            project_id: ctx.project_id.clone(),
            user_id: ctx.user_id.clone(),
            roles: ctx.roles.clone(),
            system_scope: ctx.system_scope.is_some(),
        })
    }
}

/// VIP validation lookups in Neutron, with the user's token when there is one (seed 004 §1).
pub struct NeutronNetworking(pub NeutronClient);

impl NeutronNetworking {
    fn client(&self, token: Option<&str>) -> NeutronClient {
        match token {
            Some(t) => self.0.with_user_token(t),
            None => self.0.clone(),
        }
    }
}

/// `Ok(None)` for a 404 (not found or not visible to the caller), the error text otherwise.
fn found<T>(r: Result<T, NeutronError>) -> Result<Option<T>, String> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

#[async_trait]
impl Networking for NeutronNetworking {
    async fn get_subnet(
        &self,
        token: Option<&str>,
        id: &str,
    ) -> Result<Option<SubnetInfo>, String> {
        Ok(
            found(self.client(token).get_subnet(id).await)?.map(|s| SubnetInfo {
                id: s.id,
                network_id: s.network_id,
                cidr: s.cidr,
                ip_version: s.ip_version,
            }),
        )
    }

    async fn get_network(
        &self,
        token: Option<&str>,
        id: &str,
    ) -> Result<Option<NetworkInfo>, String> {
        Ok(
            found(self.client(token).get_network(id).await)?.map(|n| NetworkInfo {
                id: n.id,
                subnets: n.subnets,
            }),
        )
    }

    async fn get_port(&self, token: Option<&str>, id: &str) -> Result<Option<PortInfo>, String> {
        Ok(
            found(self.client(token).get_port(id).await)?.map(|p| PortInfo {
                id: p.id,
                network_id: p.network_id,
                device_id: p.device_id,
                fixed_ips: p
                    .fixed_ips
                    .into_iter()
                    .map(|f| (f.subnet_id, f.ip_address.to_string()))
                    .collect(),
                qos_policy_id: p.qos_policy_id,
            }),
        )
    }
}

/// Octavia's `barbican_cert_manager` over Barbican, with the caller's token
/// (octavia/certificates/manager/barbican.py; seed 003 §5).
///
/// `get_cert`: the reference as a secret holding a PKCS12 bundle (a payload that is no
/// bundle → `UnreadablePKCS12`, as the reference); if the secret cannot be read, as a
/// certificate container (barbican_legacy.py): type `certificate`, its `certificate` a PEM
/// certificate, the key (if any) a PEM private key. Deviation: no read ACL is granted to the
/// service user (`set_acls`): Keel reads with the caller's token and never later as itself.
pub struct BarbicanCertManager(pub BarbicanClient);

fn unreadable(e: impl std::fmt::Display) -> CertError {
    CertError::Retrieval(e.to_string())
}

impl BarbicanCertManager {
    /// barbican_legacy.py `get_cert(check_only=True)` + cert_parser's PEM checks.
    async fn container_cert(
        &self,
        token: Option<&str>,
        cert_ref: &str,
    ) -> Result<TlsCertificate, CertError> {
        let c = self
            .0
            .get_container(token, cert_ref)
            .await
            .map_err(unreadable)?;
        if c.container_type != "certificate" {
            return Err(CertError::Retrieval(
                "Retrieved Barbican Container is not of the correct type (certificate).".into(),
            ));
        }
        let mut out = TlsCertificate::default();
        for (role, slot) in [
            ("certificate", 0),
            ("private_key", 1),
            ("intermediates", 2),
            ("private_key_passphrase", 3),
        ] {
            let Some(r) = c.secret(role) else { continue };
            let payload = self
                .0
                .get_secret_payload(token, r)
                .await
                .map_err(unreadable)?;
            match slot {
                0 => out.certificate = payload,
                1 => out.private_key = Some(payload),
                2 => out.intermediates = vec![payload],
                _ => out.private_key_passphrase = Some(payload),
            }
        }
        api::certificates::pem_der(&out.certificate, "CERTIFICATE").map_err(unreadable)?;
        if let Some(k) = &out.private_key {
            let text = String::from_utf8_lossy(k);
            if !(text.contains("-----BEGIN") && text.contains("PRIVATE KEY-----")) {
                return Err(CertError::Retrieval(
                    "Could not read the private key from PEM".into(),
                ));
            }
        }
        Ok(out)
    }
}

#[async_trait]
impl CertManager for BarbicanCertManager {
    async fn get_cert(
        &self,
        token: Option<&str>,
        cert_ref: &str,
    ) -> Result<TlsCertificate, CertError> {
        match self.0.get_secret_payload(token, cert_ref).await {
            Ok(bundle) => {
                api::certificates::check_pkcs12(&bundle)?;
                Ok(TlsCertificate {
                    certificate: bundle,
                    ..Default::default()
                })
            }
            Err(e) => {
                tracing::debug!(%cert_ref, error = %e, "not a readable secret; trying it as a certificate container");
                self.container_cert(token, cert_ref).await
            }
        }
    }

    async fn get_secret(
        &self,
        token: Option<&str>,
        secret_ref: &str,
    ) -> Result<Vec<u8>, CertError> {
        self.0
            .get_secret_payload(token, secret_ref)
            .await
            .map_err(unreadable)
    }
}
