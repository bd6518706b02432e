//! The Octavia v2 REST API on axum, the `api` crate of Keel.
//!
//! [`router`] builds the whole HTTP surface from an [`AppState`]: version discovery, the
//! `/v2/lbaas/…` resources (one module per Octavia controller: `load_balancer`, `listener`,
//! `pool`, `member`, `health_monitor`, `l7policy`, `l7rule`, `quotas`, …, which share their
//! lookups and locks through `lookup` and the prologue of their writes through `target`, not
//! through each other), Octavia's fault bodies ([`fault`]), WSME-exact body parsing (`types`),
//! pagination (`pagination`), keystone/noauth contexts ([`context`]) and the default RBAC rules
//! ([`policy`]).
//!
//! The public modules are those the other crates of Keel use: the seams `keel` implements
//! ([`certificates`], [`context`], [`network`], [`AmphoraControl`]), the options `service`
//! reads into [`ApiConfig`] ([`cors`], [`healthcheck`], [`policy`]) and what its OVN DB sync
//! shares with the handlers ([`provider_model`], [`provider_call`], [`related`], [`fault`]).
//! The others are the crate's own; the `internals` feature, which only the crate's integration
//! tests turn on (a dev-dependency of the crate on itself), makes the ones those tests read
//! public.
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

pub mod certificates;
pub mod context;
pub mod cors;
pub mod fault;
pub mod healthcheck;
pub mod network;
pub mod policy;
pub mod provider_call;
pub mod provider_model;
pub mod related;

/// Declares modules `pub(crate)`, or `pub` with the `internals` feature (the integration tests'
/// view of the crate, not documented API: no `missing_docs` there), each once.
macro_rules! internal {
    ($($(#[$attr:meta])* mod $name:ident;)*) => {$(
        $(#[$attr])*
        #[cfg(feature = "internals")]
        #[allow(missing_docs)]
        pub mod $name;
        $(#[$attr])*
        #[cfg(not(feature = "internals"))]
        pub(crate) mod $name;
    )*};
}

// read by the integration tests in `tests/`
internal! {
    mod amphora;
    mod flavors;
    mod health_monitor;
    mod l7policy;
    mod l7rule;
    mod list;
    mod listener;
    mod listing;
    mod load_balancer;
    mod lookup;
    mod member;
    mod openapi;
    mod pagination;
    mod pickle;
    mod pool;
    mod profiles;
    mod quotas;
    mod types;
}

mod amphora_control;
mod columns;
mod metrics;
mod provider_api;
mod proxy_headers;
mod target;
mod versions;
mod view;

mod middleware;
mod retry;
mod state;

use axum::Router;
use axum::routing::get;

pub use amphora_control::AmphoraControl;
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
