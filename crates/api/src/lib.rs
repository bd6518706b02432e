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
pub mod target;
pub mod types;
pub mod versions;
pub mod view;

mod middleware;
mod retry;
mod state;

use axum::Router;
use axum::routing::get;

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
pub fn router(state: AppState) -> Router {
    let v2 = Router::new()
        .route("/v2", get(versions::v2))
        .route("/v2/lbaas", get(versions::v2))
        .route("/v2/octavia", get(versions::v2))
        .route("/v2/openapi", get(openapi::serve));
    let resources = [
        load_balancer::routes(),
        listener::routes(),
        pool::routes(),
        member::routes(),
        member::batch::routes(),
        health_monitor::routes(),
        l7policy::routes(),
        l7rule::routes(),
        quotas::routes(),
        provider_api::routes(),
        flavors::routes(),
        profiles::routes(),
        amphora::routes(),
    ];
    let lbaas = resources.into_iter().fold(Router::new(), Router::merge);
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
