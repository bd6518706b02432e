//! The Octavia v2 REST API on axum, the `api` crate of Keel.
//!
//! [`router`] builds the whole HTTP surface from an [`AppState`]: version discovery, the
//! `/v2/lbaas/…` resources (one module per Octavia controller: [`load_balancer`],
//! [`listener`], [`pool`], [`member`], [`health_monitor`], [`l7policy`], [`l7rule`],
//! [`quotas`], …, which share their lookups and locks through [`lookup`], not through each
//! other), Octavia's fault bodies ([`fault`]), WSME-exact body parsing ([`types`]),
//! pagination ([`pagination`]),
//! keystone/noauth contexts ([`context`]) and the default RBAC rules ([`policy`]).
//!
//! Every mutating call runs in one SQL transaction of `octavia-db` (lock the LB, check its
//! state and the quota, write PENDING_* rows), calls the provider driver inside it, and
//! commits only when the driver accepted; a driver error rolls everything back.

pub mod amphora;
pub mod base;
pub mod certificates;
pub mod context;
pub mod cors;
pub mod fault;
pub mod flavors;
pub mod health_monitor;
pub mod healthcheck;
pub mod l7policy;
pub mod l7rule;
pub mod listener;
pub mod listing;
pub mod load_balancer;
pub mod lookup;
pub mod member;
pub mod metrics;
pub mod network;
pub mod openapi;
pub mod pagination;
pub mod pickle;
pub mod policy;
pub mod pool;
pub mod profiles;
pub mod provider_api;
pub mod proxy_headers;
pub mod quotas;
pub mod types;
pub mod versions;

mod middleware;
mod retry;

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::routing::{get, put};
use axum::Router;
use provider::ProviderDriver;

pub use certificates::CertManager;
pub use context::{AuthFailure, AuthMode, Identity, RequestContext, TokenAuth};
pub use fault::ApiError;
pub use network::Networking;

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
/// (api-contract.md §14.10).
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
    pub healthcheck: healthcheck::HealthcheckConfig,
    /// `[cors]` ([`crate::cors`]).
    pub cors: cors::CorsConfig,
    /// `[keystone_authtoken] service_token_roles*` ([`context::check_service_token`]).
    pub service_token: context::ServiceTokenRules,
    /// `[oslo_middleware] max_request_body_size`, bytes (114688).
    pub max_request_body_size: usize,
    /// `[oslo_middleware] enable_proxy_headers_parsing`: links follow `Forwarded` /
    /// `X-Forwarded-*` ([`crate::proxy_headers`]).
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
    /// `[oslo_policy]`: the effective rules (defaults + `policy_file`, re-read when the file
    /// changes), see [`policy`].
    pub policy: Arc<policy::PolicySource>,
    /// Answer every collection GET with the in-memory path (filter, sort and page the rendered
    /// objects of the caller's scope) instead of SQL: the oracle of the equivalence test.
    pub list_in_memory: bool,
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
            healthcheck: healthcheck::HealthcheckConfig::default(),
            cors: cors::CorsConfig::default(),
            service_token: context::ServiceTokenRules::default(),
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
            policy: policy::default_policy_source(),
            list_in_memory: false,
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

/// The whole API as an axum router; serve it with `axum::serve`.
///
/// Layers (outermost first): `x-openstack-request-id` on every response, body-size limit
/// (413), `Accept` negotiation (406), authentication (401), then the routes. Path aliases
/// (`/v2.0` = `/v2`, `/v2/<collection>` = `/v2/lbaas/<collection>`, a `.json` suffix) are
/// resolved before routing.
pub fn router(state: AppState) -> Router {
    let v2 = Router::new()
        .route("/v2", get(versions::v2))
        .route("/v2/lbaas", get(versions::v2))
        .route("/v2/octavia", get(versions::v2))
        .route("/v2/openapi", get(openapi::serve));
    use load_balancer as lb;
    use octavia_db::{AvailabilityZoneProfileRow as AzProfileRow, FlavorProfileRow};
    let lbaas = Router::new()
        .route("/v2/lbaas/loadbalancers", get(lb::get_all).post(lb::post))
        .route(
            "/v2/lbaas/loadbalancers/{id}",
            get(lb::get_one).put(lb::put).delete(lb::delete),
        )
        .route("/v2/lbaas/loadbalancers/{id}/status", get(lb::get_status))
        .route("/v2/lbaas/loadbalancers/{id}/statuses", get(lb::get_status))
        .route("/v2/lbaas/loadbalancers/{id}/stats", get(lb::get_stats))
        .route("/v2/lbaas/loadbalancers/{id}/failover", put(lb::failover))
        .route(
            "/v2/lbaas/l7policies",
            get(l7policy::get_all).post(l7policy::post),
        )
        .route(
            "/v2/lbaas/l7policies/{id}",
            get(l7policy::get_one)
                .put(l7policy::put)
                .delete(l7policy::delete),
        )
        .route(
            "/v2/lbaas/l7policies/{l7policy_id}/rules",
            get(l7rule::get_all).post(l7rule::post),
        )
        .route(
            "/v2/lbaas/l7policies/{l7policy_id}/rules/{id}",
            get(l7rule::get_one).put(l7rule::put).delete(l7rule::delete),
        )
        .route("/v2/lbaas/providers", get(provider_api::get_all))
        .route(
            "/v2/lbaas/providers/{provider}/flavor_capabilities",
            get(provider_api::flavor_capabilities),
        )
        .route(
            "/v2/lbaas/providers/{provider}/availability_zone_capabilities",
            get(provider_api::availability_zone_capabilities),
        )
        .route(
            "/v2/lbaas/flavors",
            get(flavors::flavor_get_all).post(flavors::flavor_post),
        )
        .route(
            "/v2/lbaas/flavors/{id}",
            get(flavors::flavor_get_one)
                .put(flavors::flavor_put)
                .delete(flavors::flavor_delete),
        )
        .route(
            "/v2/lbaas/flavorprofiles",
            get(profiles::get_all::<FlavorProfileRow>).post(profiles::post::<FlavorProfileRow>),
        )
        .route(
            "/v2/lbaas/flavorprofiles/{id}",
            get(profiles::get_one::<FlavorProfileRow>)
                .put(profiles::put::<FlavorProfileRow>)
                .delete(profiles::delete::<FlavorProfileRow>),
        )
        .route(
            "/v2/lbaas/availabilityzones",
            get(flavors::az_get_all).post(flavors::az_post),
        )
        .route(
            "/v2/lbaas/availabilityzones/{name}",
            get(flavors::az_get_one)
                .put(flavors::az_put)
                .delete(flavors::az_delete),
        )
        .route(
            "/v2/lbaas/availabilityzoneprofiles",
            get(profiles::get_all::<AzProfileRow>).post(profiles::post::<AzProfileRow>),
        )
        .route(
            "/v2/lbaas/availabilityzoneprofiles/{id}",
            get(profiles::get_one::<AzProfileRow>)
                .put(profiles::put::<AzProfileRow>)
                .delete(profiles::delete::<AzProfileRow>),
        )
        .route("/v2/octavia/amphorae", get(amphora::get_all))
        .route(
            "/v2/octavia/amphorae/{id}",
            get(amphora::get_one).delete(amphora::delete),
        )
        .route("/v2/octavia/amphorae/{id}/stats", get(amphora::stats))
        .route("/v2/octavia/amphorae/{id}/failover", put(amphora::failover))
        .route("/v2/octavia/amphorae/{id}/config", put(amphora::config))
        .route(
            "/v2/lbaas/listeners",
            get(listener::get_all).post(listener::post),
        )
        .route(
            "/v2/lbaas/listeners/{id}",
            get(listener::get_one)
                .put(listener::put)
                .delete(listener::delete),
        )
        .route("/v2/lbaas/listeners/{id}/stats", get(listener::get_stats))
        .route("/v2/lbaas/pools", get(pool::get_all).post(pool::post))
        .route(
            "/v2/lbaas/pools/{id}",
            get(pool::get_one).put(pool::put).delete(pool::delete),
        )
        .route(
            "/v2/lbaas/pools/{pool_id}/members",
            get(member::get_all)
                .post(member::post)
                .put(member::batch_put),
        )
        .route(
            "/v2/lbaas/pools/{pool_id}/members/{id}",
            get(member::get_one).put(member::put).delete(member::delete),
        )
        .route(
            "/v2/lbaas/healthmonitors",
            get(health_monitor::get_all).post(health_monitor::post),
        )
        .route(
            "/v2/lbaas/healthmonitors/{id}",
            get(health_monitor::get_one)
                .put(health_monitor::put)
                .delete(health_monitor::delete),
        )
        .route("/v2/lbaas/quotas", get(quotas::get_all))
        .route(
            "/v2/lbaas/quotas/{project_id}",
            get(quotas::get_one).put(quotas::put).delete(quotas::delete),
        )
        .route(
            "/v2/lbaas/quotas/{project_id}/default",
            get(quotas::get_defaults),
        );
    let inner = Router::new()
        .route("/", get(versions::index))
        .route("/healthcheck", get(healthcheck::healthcheck))
        .merge(v2)
        .merge(lbaas)
        .fallback(middleware::not_found)
        .method_not_allowed_fallback(middleware::method_not_allowed)
        .layer(axum::middleware::from_fn(retry::retry_deadlock_victims))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            context::auth_layer,
        ))
        .layer(axum::middleware::from_fn(middleware::accept_json))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            cors::cors,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            middleware::body_limit,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            middleware::request_id,
        ))
        .with_state(state);
    Router::new().fallback_service(tower::ServiceExt::map_request(
        inner,
        middleware::rewrite_path,
    ))
}
