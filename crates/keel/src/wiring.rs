//! Adapters that plug the `openstack` clients into the API's seams (`api::TokenAuth`,
//! `api::Networking`). The binary is the only place that knows both sides.

use async_trait::async_trait;
use openstack::{NeutronClient, NeutronError, TokenValidator};

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
