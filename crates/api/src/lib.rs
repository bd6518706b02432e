//! The Octavia v2 REST API on axum, the `api` crate of Keel.
//!
//! [`router`] builds the whole HTTP surface from an [`AppState`]: version discovery, the
//! `/v2/lbaas/…` resources (one module per Octavia controller: [`load_balancer`],
//! [`listener`], [`pool`], [`member`], [`health_monitor`], [`l7policy`], [`l7rule`],
//! [`quotas`], …, which share their lookups and locks through [`lookup`] and the prologue of
//! their writes through [`target`], not through each other), Octavia's fault bodies
//! ([`fault`]), WSME-exact body parsing ([`types`]), pagination ([`pagination`]),
//! keystone/noauth contexts ([`context`]) and the default RBAC rules ([`policy`]).
//!
//! Every mutating call runs in one SQL transaction of `octavia-db` (lock the LB, check its
//! state and the quota, write PENDING_* rows), calls the provider driver inside it, and
//! commits only when the driver accepted; a driver error rolls everything back.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build()?.block_on(async {
//! use std::collections::BTreeMap;
//! use axum::{body::Body, http::Request};
//! use tower::ServiceExt;
//!
//! let db = octavia_db::Database::connect("sqlite::memory:").await?;
//! db.upgrade().await?;
//! // no provider driver, no Keystone (`[api_settings] auth_strategy = noauth`), no Neutron
//! let state = api::AppState::new(db, BTreeMap::new(), api::AuthMode::NoAuth, None, Default::default());
//! let answer = api::router(state).oneshot(Request::get("/").body(Body::empty())?).await?;
//! assert_eq!(answer.status(), 200); // Octavia's version discovery
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod amphora;
pub mod amphora_control;
pub mod certificates;
pub mod columns;
pub mod context;
pub mod cors;
pub mod fault;
pub mod flavors;
pub mod health_monitor;
pub mod healthcheck;
pub mod l7policy;
pub mod l7rule;
pub mod list;
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
pub mod provider_call;
pub mod provider_model;
pub mod proxy_headers;
pub mod quotas;
pub mod related;
pub mod render;
pub mod target;
pub mod types;
pub mod versions;
pub mod view;

mod middleware;
mod retry;
mod state;

use axum::Router;
use axum::routing::{get, put};

pub use certificates::CertManager;
pub use context::{AuthFailure, AuthMode, Identity, RequestContext, TokenAuth};
pub use fault::ApiError;
pub use network::Networking;
pub use state::{ApiConfig, AppState, QuotaDefaults};

/// The whole API as an axum router; serve it with `axum::serve`.
///
/// Layers (outermost first): `x-openstack-request-id` on every response, body-size limit
/// (413), `Accept` negotiation (406), authentication (401), then the routes. Path aliases
/// (`/v2.0` = `/v2`, `/v2/<collection>` = `/v2/lbaas/<collection>`, a `.json` suffix) are
/// resolved before routing.
#[allow(
    clippy::too_many_lines,
    reason = "a known exception of clippy.toml's bound"
)]
pub fn router(state: AppState) -> Router {
    let v2 = Router::new()
        .route("/v2", get(versions::v2))
        .route("/v2/lbaas", get(versions::v2))
        .route("/v2/octavia", get(versions::v2))
        .route("/v2/openapi", get(openapi::serve));
    use load_balancer as lb;
    use octavia_db::{AvailabilityZoneProfileRow as AzProfileRow, FlavorProfileRow};
    use octavia_db::{AvailabilityZoneRow as AzRow, FlavorRow};
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
            get(flavors::get_all::<FlavorRow>).post(flavors::post::<FlavorRow>),
        )
        .route(
            "/v2/lbaas/flavors/{id}",
            get(flavors::get_one::<FlavorRow>)
                .put(flavors::put::<FlavorRow>)
                .delete(flavors::delete::<FlavorRow>),
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
            get(flavors::get_all::<AzRow>).post(flavors::post::<AzRow>),
        )
        .route(
            "/v2/lbaas/availabilityzones/{name}",
            get(flavors::get_one::<AzRow>)
                .put(flavors::put::<AzRow>)
                .delete(flavors::delete::<AzRow>),
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
                .put(member::batch::batch_put),
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
            middleware::auth_layer,
        ))
        .layer(axum::middleware::from_fn(middleware::accept_json))
        .layer(axum::middleware::from_fn_with_state(
            std::sync::Arc::new(state.config().cors.clone()),
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
