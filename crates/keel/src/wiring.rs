//! Adapters that plug the `openstack` clients into the API's seams (`api::TokenAuth`,
//! `api::Networking`, `api::CertManager`). The binary is the only place that knows both sides.

use async_trait::async_trait;
use openstack::{BarbicanClient, NeutronClient, NeutronError, TokenValidator};

use api::certificates::{CertError, CertManager, TlsCertificate};
use api::context::{AuthFailure, Identity, TokenAuth};
use api::network::{NetworkError, NetworkInfo, Networking, PortInfo, SubnetInfo};

/// keystonemiddleware's role: a user token → its identity, through the cached validator.
pub struct KeystoneTokenAuth(pub TokenValidator);

#[async_trait]
impl TokenAuth for KeystoneTokenAuth {
    /// `InvalidToken` → 401; anything else (Keystone down, 5xx, service credentials
    /// refused, endpoint missing) → 503, as keystonemiddleware's `fetch_token`.
    async fn validate_token(&self, token: &str) -> Result<Identity, AuthFailure> {
        let ctx = self.0.validate(token).await.map_err(|e| {
            if e.is_unauthorized() {
                AuthFailure::Invalid(e.to_string())
            } else {
                AuthFailure::Unavailable(e.to_string())
            }
        })?;
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

/// How old a subnet read may be when the same token validates it again.
const SUBNET_VALIDATION_MAX_AGE: std::time::Duration = std::time::Duration::from_secs(30);

impl NeutronNetworking {
    fn client(&self, token: Option<&str>) -> NeutronClient {
        match token {
            Some(t) => self.0.with_user_token(t),
            None => self.0.clone(),
        }
    }
}

/// `Ok(None)` for a 404 (not found or not visible to the caller); otherwise
/// [`NetworkError::Unavailable`] when Neutron could not answer ([`NeutronError::is_unavailable`]).
fn found<T>(r: Result<T, NeutronError>) -> Result<Option<T>, NetworkError> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) if e.is_unavailable() => Err(NetworkError::unavailable(e)),
        Err(e) => Err(NetworkError::other(e)),
    }
}

#[async_trait]
impl Networking for NeutronNetworking {
    async fn get_subnet(
        &self,
        token: Option<&str>,
        id: &str,
    ) -> Result<Option<SubnetInfo>, NetworkError> {
        Ok(
            // Every member create re-validates its subnet (Octavia's `subnet_exists`): the
            // same token's read of the last 30 s answers (openstack `get_subnet_recent`).
            found(
                self.client(token)
                    .get_subnet_recent(id, SUBNET_VALIDATION_MAX_AGE)
                    .await,
            )?
            .map(|s| SubnetInfo {
                id: s.id,
                network_id: s.network_id,
                cidr: s.cidr,
                ip_version: s.ip_version,
                project_id: s.project_id,
                gateway_ip: s.gateway_ip.map(|g| g.to_string()),
            }),
        )
    }

    async fn get_network(
        &self,
        token: Option<&str>,
        id: &str,
    ) -> Result<Option<NetworkInfo>, NetworkError> {
        Ok(
            found(self.client(token).get_network(id).await)?.map(|n| NetworkInfo {
                id: n.id,
                subnets: n.subnets,
                holds_any_subnet: false,
            }),
        )
    }

    async fn get_port(
        &self,
        token: Option<&str>,
        id: &str,
    ) -> Result<Option<PortInfo>, NetworkError> {
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

    async fn qos_enabled(&self) -> Result<bool, NetworkError> {
        self.0.has_extension("qos").await.map_err(|e| {
            if e.is_unavailable() {
                NetworkError::unavailable(e)
            } else {
                NetworkError::other(e)
            }
        })
    }

    async fn qos_policy_exists(&self, token: Option<&str>, id: &str) -> Result<bool, NetworkError> {
        Ok(found(self.client(token).get_qos_policy(id).await)?.is_some())
    }

    async fn security_group_exists(
        &self,
        token: Option<&str>,
        id: &str,
    ) -> Result<bool, NetworkError> {
        Ok(found(self.client(token).get_security_group(id).await)?.is_some())
    }
}

/// Octavia's `barbican_cert_manager` over Barbican, with the caller's token
/// (octavia/certificates/manager/barbican.py; seed 003 §5).
///
/// `get_cert`: the reference as a secret holding a PKCS12 bundle (a payload that is no
/// bundle → `UnreadablePKCS12`, as the reference); if the secret cannot be read, as a
/// certificate container (barbican_legacy.py): type `certificate`, its `certificate` a PEM
/// certificate, the key (if any) a PEM private key. Before either read, `set_acls` as the
/// reference (barbican_acl.py `ensure_secret_access`, with the caller's token): the service
/// user is added to the read ACL of the reference (and of a container's member secrets), so
/// a ref that is not a `…/secrets/<uuid>` or `…/containers/<uuid>` URL, or whose ACL the
/// caller may not change, is unreadable as in Octavia. Deviation: the reads themselves use
/// the caller's token (Octavia reads as its service user, which the ACL then allows).
pub struct BarbicanCertManager(pub BarbicanClient);

/// `[certificates] cert_manager = noop_cert_manager`, as octavia/certificates/manager/noop.py
/// (upstream's noop job sets it for the API): every reference reads as one and the same
/// certificate — a self-signed RSA one made for Keel (`noop_cert/`, CN
/// `keel-noop-cert-manager.example`), with its key unencrypted, no intermediates — and every
/// secret as that certificate's PEM. For tests and noop deployments only: nothing is read
/// from a key manager.
pub struct NoopCertManager;

#[async_trait]
impl CertManager for NoopCertManager {
    async fn get_cert(
        &self,
        _token: Option<&str>,
        _cert_ref: &str,
    ) -> Result<TlsCertificate, CertError> {
        Ok(TlsCertificate {
            certificate: include_bytes!("noop_cert/cert.pem").to_vec(),
            private_key: Some(include_bytes!("noop_cert/key.pem").to_vec()),
            intermediates: Vec::new(),
            private_key_passphrase: None,
        })
    }

    async fn get_secret(
        &self,
        _token: Option<&str>,
        _secret_ref: &str,
    ) -> Result<Vec<u8>, CertError> {
        Ok(include_bytes!("noop_cert/cert.pem").to_vec())
    }
}

fn unreadable(e: impl std::fmt::Display) -> CertError {
    CertError::Retrieval(e.to_string())
}

impl BarbicanCertManager {
    /// octavia/certificates/manager/barbican.py `set_acls`: the reference's own ACL, then,
    /// when it is a certificate container, its member secrets' (barbican_legacy.py).
    async fn set_acls(&self, token: Option<&str>, cert_ref: &str) -> Result<(), CertError> {
        let user = self.0.service_user_id().await.map_err(unreadable)?;
        self.0
            .ensure_read_acl(token, cert_ref, &user)
            .await
            .map_err(unreadable)?;
        // Not a container (or not readable as one): nothing more, as the reference.
        let Ok(c) = self.0.get_container(token, cert_ref).await else {
            return Ok(());
        };
        for role in ["certificate", "private_key"] {
            let r = c.secret(role).ok_or_else(|| {
                CertError::Retrieval(format!("certificate container has no {role}"))
            })?;
            self.0
                .ensure_read_acl(token, r, &user)
                .await
                .map_err(unreadable)?;
        }
        for role in ["private_key_passphrase", "intermediates"] {
            if let Some(r) = c.secret(role) {
                self.0
                    .ensure_read_acl(token, r, &user)
                    .await
                    .map_err(unreadable)?;
            }
        }
        Ok(())
    }

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
        api::certificates::pem_der(&out.certificate, api::certificates::PemBlock::Certificate)
            .map_err(unreadable)?;
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
        self.set_acls(token, cert_ref).await?;
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
        self.set_acls(token, secret_ref).await?;
        self.0
            .get_secret_payload(token, secret_ref)
            .await
            .map_err(unreadable)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use std::sync::Arc;

    use api::context::{AuthMode, authenticate};
    use axum::http::{HeaderMap, StatusCode};
    use axum::response::IntoResponse;

    use super::*;

    fn validator(auth_url: &str) -> KeystoneTokenAuth {
        let http = openstack::HttpConfig::default().build_client().unwrap();
        let service = openstack::ServiceAuth::new(
            http,
            openstack::ServiceAuthConfig {
                auth_url: auth_url.into(),
                username: "octavia".into(),
                password: "octavia-pass".into(),
                project_name: "service".into(),
                user_domain_name: Some("Default".into()),
                project_domain_name: Some("Default".into()),
                ..Default::default()
            },
        );
        KeystoneTokenAuth(TokenValidator::new(service, Default::default()))
    }

    async fn answer(auth: KeystoneTokenAuth, token: &str) -> (StatusCode, serde_json::Value) {
        let mode = AuthMode::Keystone(Arc::new(auth));
        let mut h = HeaderMap::new();
        h.insert("x-auth-token", token.parse().unwrap());
        let rejection = authenticate(&mode, &api::policy::default_policy(), &h)
            .await
            .unwrap_err();
        let resp = rejection.into_response();
        let status = resp.status();
        let body = axum::body::to_bytes(resp.into_body(), usize::MAX)
            .await
            .unwrap();
        (status, serde_json::from_slice(&body).unwrap())
    }

    /// Keystone unreachable (a closed port): 503, not 401 (keystonemiddleware).
    #[tokio::test]
    async fn keystone_down_is_503() {
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let auth = validator(&format!("http://127.0.0.1:{port}/v3"));
        assert!(matches!(
            auth.validate_token("sometoken").await,
            Err(AuthFailure::Unavailable(_))
        ));
        let (status, body) = answer(auth, "sometoken").await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(
            body["faultstring"],
            api::context::KEYSTONE_UNAVAILABLE,
            "{body}"
        );
    }

    /// The stack's real Keystone refusing a made-up token: 401.
    #[tokio::test]
    async fn bogus_token_on_the_real_keystone_is_401() {
        let url = std::env::var("STACK_KEYSTONE_URL").expect(
            "STACK_KEYSTONE_URL is not set: run the tests via ci/test.sh (it sources ci/stack/env.sh)",
        );
        let auth = validator(&url);
        let token = format!("gAAAAA{}", uuid::Uuid::new_v4().simple());
        assert!(matches!(
            auth.validate_token(&token).await,
            Err(AuthFailure::Invalid(_))
        ));
        let (status, body) = answer(auth, &token).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert_eq!(body["error"]["code"], 401);
    }
}
