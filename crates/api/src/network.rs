//! The networking lookups the API makes to validate a VIP (Octavia's network driver role,
//! `octavia/api/v2/controllers/load_balancer.py::_validate_vip_request_object`, seed 003 §3).
//!
//! Done with the caller's token, so a subnet the user cannot see is "not found" (seed 004 §1).

use std::sync::Arc;

use async_trait::async_trait;

use crate::fault::ApiError;

/// A Neutron subnet as the API reads it: the provider model's ([`provider::Subnet`]), so
/// what a member's validation read travels to the driver ([`provider::Member::subnet`]).
pub type SubnetInfo = provider::Subnet;

/// A Neutron network.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NetworkInfo {
    /// Neutron network uuid.
    pub id: String,
    /// Its subnets' ids.
    pub subnets: Vec<String>,
    /// The noop network driver's network, which holds every subnet it is asked about
    /// ([`NoopNetworking`]); false for a Neutron network.
    pub holds_any_subnet: bool,
}

impl NetworkInfo {
    /// Whether subnet `id` is on this network.
    pub fn holds(&self, id: &str) -> bool {
        self.holds_any_subnet || self.subnets.iter().any(|s| s == id)
    }
}

/// A Neutron port.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PortInfo {
    /// Neutron port uuid.
    pub id: String,
    /// The port's network (the VIP network of an LB created on the port).
    pub network_id: String,
    /// `device_id` ("" when unused).
    pub device_id: String,
    /// `(subnet_id, ip_address)` pairs.
    pub fixed_ips: Vec<(String, String)>,
    /// QoS policy, if any.
    pub qos_policy_id: Option<String>,
}

/// The failure a [`Networking`] implementation met, kept whole (keel's is an
/// `openstack::NeutronError`, which a caller may downcast to).
pub type NetworkCause = Arc<dyn std::error::Error + Send + Sync>;

/// Why a lookup failed (other than "not found"). The callers branch on the variant; the
/// cause's text only reaches the operator's log and the fault's text.
#[derive(Debug, Clone, thiserror::Error)]
pub enum NetworkError {
    /// Neutron (or Keystone, for the service token) could not be reached, timed out or
    /// answered 5xx → 503 naming Neutron ([`ApiError::PeerUnavailable`]).
    #[error("neutron unavailable: {0}")]
    Unavailable(#[source] NetworkCause),
    /// Any other unexpected answer → 500.
    #[error("{0}")]
    Other(#[source] NetworkCause),
}

impl NetworkError {
    /// [`NetworkError::Unavailable`] caused by `e`.
    pub fn unavailable(e: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self::Unavailable(Arc::new(e))
    }

    /// [`NetworkError::Other`] caused by `e`.
    pub fn other(e: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self::Other(Arc::new(e))
    }
}

impl From<NetworkError> for ApiError {
    fn from(e: NetworkError) -> Self {
        match e {
            NetworkError::Unavailable(cause) => ApiError::PeerUnavailable {
                service: crate::fault::PEER_NEUTRON,
                cause: cause.to_string(),
            },
            NetworkError::Other(cause) => ApiError::Internal(cause.to_string()),
        }
    }
}

/// Read-only Neutron lookups with the user's token (`None` token = the service's own rights).
/// `Ok(None)` means "not found / not visible"; `Err` is any other failure ([`NetworkError`]).
#[async_trait]
pub trait Networking: Send + Sync + 'static {
    /// `GET /v2.0/subnets/{id}`.
    async fn get_subnet(
        &self,
        token: Option<&str>,
        id: &str,
    ) -> Result<Option<SubnetInfo>, NetworkError>;
    /// `GET /v2.0/networks/{id}`.
    async fn get_network(
        &self,
        token: Option<&str>,
        id: &str,
    ) -> Result<Option<NetworkInfo>, NetworkError>;
    /// `GET /v2.0/ports/{id}`.
    async fn get_port(
        &self,
        token: Option<&str>,
        id: &str,
    ) -> Result<Option<PortInfo>, NetworkError>;
    /// Whether Neutron has the `qos` extension, asked with the service's own rights
    /// (octavia/network/drivers/neutron/base.py `qos_enabled`).
    async fn qos_enabled(&self) -> Result<bool, NetworkError>;
    /// `GET /v2.0/qos/policies/{id}`: `Ok(false)` when not found or not visible.
    async fn qos_policy_exists(&self, token: Option<&str>, id: &str) -> Result<bool, NetworkError>;
    /// `GET /v2.0/security-groups/{id}`: `Ok(false)` when not found or not visible.
    async fn security_group_exists(
        &self,
        token: Option<&str>,
        id: &str,
    ) -> Result<bool, NetworkError>;
}

/// octavia/common/validate.py `security_group_exists`, for each of a load balancer's
/// `vip_sg_ids` in order (create, and an update naming them): 400 `Security Group <id> not
/// found.` (`InvalidSubresource`) for the first one not found or whose lookup fails, as the
/// reference, except that an unreachable Neutron is its 503.
pub async fn validate_security_groups(
    net: &dyn Networking,
    token: Option<&str>,
    ids: &[String],
) -> Result<(), ApiError> {
    for id in ids {
        let found = match net.security_group_exists(token, id).await {
            Ok(found) => found,
            Err(e @ NetworkError::Unavailable(_)) => return Err(e.into()),
            Err(NetworkError::Other(_)) => false,
        };
        if !found {
            return Err(ApiError::InvalidSubresource {
                resource: "Security Group".into(),
                id: id.clone(),
            });
        }
    }
    Ok(())
}

/// octavia/common/validate.py `qos_extension_enabled` + `qos_policy_exists`: 400
/// `Validation failure: VIP QoS policy is not allowed in this deployment.` without the
/// extension; 400 `qos_policy <id> not found.` when the policy is not found or the lookup
/// fails (as the reference), except that an unreachable Neutron is its 503.
/// `policy: None` checks the extension only (a PUT clearing the policy).
pub async fn validate_qos_policy(
    net: &dyn Networking,
    token: Option<&str>,
    policy: Option<&str>,
) -> Result<(), ApiError> {
    if !net.qos_enabled().await? {
        return Err(ApiError::Validation(
            "VIP QoS policy is not allowed in this deployment.".into(),
        ));
    }
    if let Some(id) = policy {
        let found = match net.qos_policy_exists(token, id).await {
            Ok(found) => found,
            Err(e @ NetworkError::Unavailable(_)) => return Err(e.into()),
            Err(NetworkError::Other(_)) => false,
        };
        if !found {
            return Err(ApiError::InvalidSubresource {
                resource: "qos_policy".into(),
                id: id.to_string(),
            });
        }
    }
    Ok(())
}

/// `[controller_worker] network_driver = network_noop_driver` (upstream's noop API job): the
/// lookups as octavia/network/drivers/noop_driver/driver.py answers them in octavia-api,
/// where every network, subnet, port, security group and QoS policy exists. A network holds
/// every subnet asked about and lists the ones met so far plus a new one; a subnet first met
/// on its own belongs to the last network looked up; subnets have no CIDR (`""`) and no IP
/// version (`0`); a port has no network, device or fixed IP. The state lives as long as the
/// process, as the driver's module-level dictionaries.
///
/// Over Neutron ([`NoopNetworking::over`]): an object Neutron has is answered as Neutron has
/// it, so that an OVN load balancer beside (whose provider needs the real network) still
/// works; only what Neutron does not have (or cannot answer for) gets the noop answer. The
/// reference's noop driver answers every lookup itself, which no OVN load balancer survives.
#[derive(Default)]
pub struct NoopNetworking {
    state: std::sync::Mutex<NoopState>,
    inner: Option<Arc<dyn Networking>>,
}

impl std::fmt::Debug for NoopNetworking {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NoopNetworking")
            .field("over_neutron", &self.inner.is_some())
            .finish()
    }
}

#[derive(Debug, Default)]
struct NoopState {
    /// subnet → its network ("" before any network was looked up)
    subnets: std::collections::HashMap<String, String>,
    current_network: String,
}

impl NoopNetworking {
    /// The noop answers for what `inner` (Neutron) does not have.
    pub fn over(inner: Arc<dyn Networking>) -> Self {
        Self {
            inner: Some(inner),
            ..Self::default()
        }
    }

    /// `ask` of the inner lookups, `None` without them.
    async fn inner_ask<'a, T, F>(&'a self, ask: impl FnOnce(&'a dyn Networking) -> F) -> Option<T>
    where
        F: std::future::Future<Output = T> + 'a,
    {
        match &self.inner {
            Some(n) => Some(ask(n.as_ref()).await),
            None => None,
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, NoopState> {
        // the state holds no invariant a panicking holder could break
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[async_trait]
impl Networking for NoopNetworking {
    async fn get_subnet(
        &self,
        token: Option<&str>,
        id: &str,
    ) -> Result<Option<SubnetInfo>, NetworkError> {
        if let Some(Ok(Some(found))) = self.inner_ask(|n| n.get_subnet(token, id)).await {
            return Ok(Some(found));
        }
        let mut st = self.state();
        let current = st.current_network.clone();
        let network_id = st.subnets.entry(id.to_string()).or_insert(current).clone();
        Ok(Some(SubnetInfo {
            id: id.to_string(),
            network_id,
            ..SubnetInfo::default()
        }))
    }

    async fn get_network(
        &self,
        token: Option<&str>,
        id: &str,
    ) -> Result<Option<NetworkInfo>, NetworkError> {
        if let Some(Ok(Some(found))) = self.inner_ask(|n| n.get_network(token, id)).await {
            return Ok(Some(found));
        }
        let mut st = self.state();
        st.current_network = id.to_string();
        let fresh = uuid::Uuid::new_v4().to_string();
        st.subnets.insert(fresh, id.to_string());
        let mut subnets: Vec<String> = st
            .subnets
            .iter()
            .filter(|(_, n)| *n == id)
            .map(|(s, _)| s.clone())
            .collect();
        subnets.sort();
        Ok(Some(NetworkInfo {
            id: id.to_string(),
            subnets,
            holds_any_subnet: true,
        }))
    }

    async fn get_port(
        &self,
        token: Option<&str>,
        id: &str,
    ) -> Result<Option<PortInfo>, NetworkError> {
        if let Some(Ok(Some(found))) = self.inner_ask(|n| n.get_port(token, id)).await {
            return Ok(Some(found));
        }
        Ok(Some(PortInfo {
            id: id.to_string(),
            ..PortInfo::default()
        }))
    }

    async fn qos_enabled(&self) -> Result<bool, NetworkError> {
        Ok(true)
    }

    async fn qos_policy_exists(
        &self,
        _token: Option<&str>,
        _id: &str,
    ) -> Result<bool, NetworkError> {
        Ok(true)
    }

    async fn security_group_exists(
        &self,
        _token: Option<&str>,
        _id: &str,
    ) -> Result<bool, NetworkError> {
        Ok(true)
    }
}
