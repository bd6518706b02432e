//! The state every request handler reads: the database, the loaded provider drivers, the
//! authentication mode, the Neutron and certificate seams and the API options (`[api_settings]`,
//! `[quotas]`, `[oslo_policy]`, … as octavia/common/config.py registers them).

use std::collections::BTreeMap;
use std::sync::Arc;

use provider::ProviderDriver;

use crate::amphora_control::AmphoraControl;
use crate::certificates::CertManager;
use crate::context::AuthMode;
use crate::fault::ApiError;
use crate::network::Networking;
use crate::policy;

/// `[quotas]` defaults (−1 = unlimited), octavia/common/config.py `quota_opts`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuotaDefaults {
    /// `default_load_balancer_quota`.
    pub load_balancer: i64,
    /// `default_listener_quota`.
    pub listener: i64,
    /// `default_member_quota`.
    pub member: i64,
    /// `default_pool_quota`.
    pub pool: i64,
    /// `default_health_monitor_quota`.
    pub health_monitor: i64,
    /// `default_l7policy_quota`.
    pub l7policy: i64,
    /// `default_l7rule_quota`.
    pub l7rule: i64,
}

impl Default for QuotaDefaults {
    fn default() -> Self {
        Self {
            load_balancer: -1,
            listener: -1,
            member: -1,
            pool: -1,
            health_monitor: -1,
            l7policy: -1,
            l7rule: -1,
        }
    }
}

/// The options that change API behaviour (`[api_settings]`, `[networking]`, `[quotas]`,
/// `[haproxy_amphora]` timeouts, `[oslo_middleware]`), with Octavia's defaults
/// (octavia/common/config.py).
#[derive(Debug, Clone, PartialEq)]
pub struct ApiConfig {
    /// `pagination_max_limit` ("1000"; `None` = "infinite").
    pub pagination_max_limit: Option<usize>,
    /// `default_provider_driver`.
    pub default_provider_driver: String,
    /// `enabled_provider_drivers`: name → description.
    pub enabled_provider_drivers: BTreeMap<String, String>,
    /// `allow_pagination`.
    pub allow_pagination: bool,
    /// `allow_sorting`.
    pub allow_sorting: bool,
    /// `allow_filtering`.
    pub allow_filtering: bool,
    /// `allow_field_selection`.
    pub allow_field_selection: bool,
    /// `api_base_uri`: the base of pagination links instead of the request's host (the
    /// version document keeps the request's URL, as `root_controller.py`).
    pub api_base_uri: Option<String>,
    /// `healthcheck_enabled` (false → `/healthcheck` is 404).
    pub healthcheck_enabled: bool,
    /// `[healthcheck]` backends and `healthcheck_refresh_interval`.
    pub healthcheck: crate::healthcheck::HealthcheckConfig,
    /// `[cors]` ([`crate::cors`]).
    pub cors: crate::cors::CorsConfig,
    /// `[keystone_authtoken] service_token_roles*` ([`crate::context::check_service_token`]).
    pub service_token: crate::context::ServiceTokenRules,
    /// `[keystone_authtoken] www_authenticate_uri` (empty by default): a 401's
    /// `WWW-Authenticate: Keystone uri="<it>"`, as keystonemiddleware.
    pub www_authenticate_uri: String,
    /// `[oslo_middleware] max_request_body_size`, bytes (114688).
    pub max_request_body_size: usize,
    /// `[oslo_middleware] enable_proxy_headers_parsing`: links follow `Forwarded` /
    /// `X-Forwarded-*` (`proxy_headers.rs`).
    pub enable_proxy_headers_parsing: bool,
    /// `[networking] allow_vip_network_id`.
    pub allow_vip_network_id: bool,
    /// `[networking] allow_vip_subnet_id`.
    pub allow_vip_subnet_id: bool,
    /// `[networking] allow_vip_port_id`.
    pub allow_vip_port_id: bool,
    /// `[networking] reserved_ips` (member addresses refused).
    pub reserved_ips: Vec<String>,
    /// `allow_ping_health_monitors`.
    pub allow_ping_health_monitors: bool,
    /// `allow_tls_terminated_listeners`.
    pub allow_tls_terminated_listeners: bool,
    /// `allow_prometheus_listeners`.
    pub allow_prometheus_listeners: bool,
    /// `udp_connect_min_interval_health_monitor`, seconds.
    pub udp_connect_min_interval_health_monitor: i64,
    /// `[haproxy_amphora] timeout_client_data`, ms.
    pub timeout_client_data: i64,
    /// `[haproxy_amphora] timeout_member_connect`, ms.
    pub timeout_member_connect: i64,
    /// `[haproxy_amphora] timeout_member_data`, ms.
    pub timeout_member_data: i64,
    /// `[haproxy_amphora] timeout_tcp_inspect`, ms.
    pub timeout_tcp_inspect: i64,
    /// `[quotas]` defaults.
    pub quotas: QuotaDefaults,
    /// `[controller_worker] loadbalancer_topology` (`SINGLE`): the topology a new load
    /// balancer gets when its flavor names none (load_balancer.py `_apply_flavor_to_lb_dict`).
    pub loadbalancer_topology: String,
    /// `[oslo_policy]`: the effective rules (defaults + `policy_file`, re-read when the file
    /// changes), see [`policy`].
    pub policy: Arc<policy::PolicySource>,
}

impl Default for ApiConfig {
    fn default() -> Self {
        let mut enabled = BTreeMap::new();
        enabled.insert(
            "amphora".to_string(),
            "The Octavia Amphora driver.".to_string(),
        );
        enabled.insert(
            "octavia".to_string(),
            "Deprecated alias of the Octavia Amphora driver.".to_string(),
        );
        Self {
            pagination_max_limit: Some(1000),
            default_provider_driver: "amphora".into(),
            enabled_provider_drivers: enabled,
            allow_pagination: true,
            allow_sorting: true,
            allow_filtering: true,
            allow_field_selection: true,
            api_base_uri: None,
            healthcheck_enabled: false,
            healthcheck: crate::healthcheck::HealthcheckConfig::default(),
            cors: crate::cors::CorsConfig::default(),
            service_token: crate::context::ServiceTokenRules::default(),
            www_authenticate_uri: String::new(),
            max_request_body_size: 114_688,
            enable_proxy_headers_parsing: false,
            allow_vip_network_id: true,
            allow_vip_subnet_id: true,
            allow_vip_port_id: true,
            reserved_ips: vec!["169.254.169.254".into()],
            allow_ping_health_monitors: true,
            allow_tls_terminated_listeners: true,
            allow_prometheus_listeners: true,
            udp_connect_min_interval_health_monitor: 3,
            timeout_client_data: 50000,
            timeout_member_connect: 5000,
            timeout_member_data: 50000,
            timeout_tcp_inspect: 0,
            quotas: QuotaDefaults::default(),
            loadbalancer_topology: "SINGLE".into(),
            policy: policy::default_policy_source(),
        }
    }
}

/// Everything a request handler needs; cheap to clone (one `Arc`).
#[derive(Clone)]
pub struct AppState {
    inner: Arc<Inner>,
}

#[derive(Clone)]
struct Inner {
    db: octavia_db::Database,
    providers: BTreeMap<String, Arc<dyn ProviderDriver>>,
    auth: AuthMode,
    networking: Option<Arc<dyn Networking>>,
    cert_manager: Option<Arc<dyn CertManager>>,
    amphora_control: Option<Arc<dyn AmphoraControl>>,
    config: ApiConfig,
}

impl AppState {
    /// Build the state.
    ///
    /// * `providers`: loaded drivers by name (`ovn` → the OVN driver); a name enabled in
    ///   `config.enabled_provider_drivers` but absent here answers 501 `Provider '<p>' was not found.`
    /// * `networking`: Neutron lookups for VIP validation; `None` skips them (the VIP ids are
    ///   taken as given: for tests and Neutron-less setups).
    pub fn new(
        db: octavia_db::Database,
        providers: BTreeMap<String, Arc<dyn ProviderDriver>>,
        auth: AuthMode,
        networking: Option<Arc<dyn Networking>>,
        config: ApiConfig,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                db,
                providers,
                auth,
                networking,
                cert_manager: None,
                amphora_control: None,
                config,
            }),
        }
    }

    /// The same state with a certificate manager for TLS references (seed 003 §5). Without
    /// one every reference is unreadable (400 `Could not retrieve certificate: [...]`), as
    /// Octavia without a key-manager endpoint.
    pub fn with_cert_manager(self, cert_manager: Arc<dyn CertManager>) -> Self {
        let mut inner = Arc::unwrap_or_clone(self.inner);
        inner.cert_manager = Some(cert_manager);
        Self {
            inner: Arc::new(inner),
        }
    }

    /// The certificate manager, if configured.
    pub fn cert_manager(&self) -> Option<&Arc<dyn CertManager>> {
        self.inner.cert_manager.as_ref()
    }

    /// The same state with the amphora provider's casts ([`AmphoraControl`]): the
    /// `/v2/octavia/amphorae` writes (delete, failover, config) send them. Without one those
    /// writes answer 501 `Provider 'amphora' was not found.` after their checks, with nothing
    /// written (no amphora provider loaded).
    pub fn with_amphora_control(self, control: Arc<dyn AmphoraControl>) -> Self {
        let mut inner = Arc::unwrap_or_clone(self.inner);
        inner.amphora_control = Some(control);
        Self {
            inner: Arc::new(inner),
        }
    }

    /// The amphora provider's casts, if loaded ([`Self::with_amphora_control`]).
    pub fn amphora_control(&self) -> Option<&Arc<dyn AmphoraControl>> {
        self.inner.amphora_control.as_ref()
    }

    /// How requests authenticate (keystone or noauth).
    pub(crate) fn auth(&self) -> &AuthMode {
        &self.inner.auth
    }

    /// The API options.
    pub fn config(&self) -> &ApiConfig {
        &self.inner.config
    }

    /// The Octavia DB.
    pub fn db(&self) -> &octavia_db::Database {
        &self.inner.db
    }

    /// The Neutron lookups, if configured.
    pub fn networking(&self) -> Option<&Arc<dyn Networking>> {
        self.inner.networking.as_ref()
    }

    /// The driver for `name`: 400 `Provider '<p>' is not enabled.` when not in
    /// `enabled_provider_drivers`, 501 `Provider '<p>' was not found.` when not loaded
    /// (octavia/api/drivers/driver_factory.py).
    pub fn driver(&self, name: &str) -> Result<Arc<dyn ProviderDriver>, ApiError> {
        if !self
            .inner
            .config
            .enabled_provider_drivers
            .contains_key(name)
        {
            return Err(ApiError::ProviderNotEnabled(name.to_string()));
        }
        self.inner
            .providers
            .get(name)
            .cloned()
            .ok_or_else(|| ApiError::ProviderNotFound(name.to_string()))
    }
}
