//! `/v2/lbaas/providers`, as `octavia/api/v2/controllers/provider.py`:
//! the enabled and loaded provider drivers, and each driver's flavor / availability zone
//! metadata capabilities (no pagination; `fields=`, `name=` and `description=` apply).

use axum::extract::{Path, Query, State};
use axum::{Extension, Json};
use serde_json::{Map, Value, json};

use crate::context::RequestContext;
use crate::fault::ApiError;
use crate::policy;
use crate::state::AppState;
use crate::{list, provider_call};

type Q = Query<Vec<(String, String)>>;

/// `fields=` values of the query.
fn fields(q: &[(String, String)]) -> Vec<String> {
    q.iter()
        .filter(|(k, _)| k == "fields")
        .map(|(_, v)| v.clone())
        .collect()
}

/// Attribute names of a provider (and of a capability) entry.
pub const PROVIDER_ATTRS: &[&str] = &["name", "description"];

fn items(pairs: Vec<(String, String)>, q: &[(String, String)]) -> Vec<Value> {
    let f = fields(q);
    pairs
        .into_iter()
        .map(|(name, description)| {
            list::select(json!({"name": name, "description": description}), &f)
        })
        .collect()
}

/// `GET /v2/lbaas/providers` → `{"providers": [{"name", "description"}]}` (policy
/// `provider:get_all`); drivers enabled but not loaded are left out (`driver_factory.get_providers`).
pub async fn get_all(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    policy::authorize(&ctx, "provider", "get_all", ctx.project_id.as_deref())?;
    let pairs = st
        .config()
        .enabled_provider_drivers
        .iter()
        .filter(|(name, _)| st.driver(name).is_ok())
        .map(|(n, d)| (n.clone(), d.clone()))
        .collect();
    Ok(Json(json!({"providers": items(pairs, &q)})))
}

/// The metadata map filtered by `name=` / `description=` (exact match).
fn capabilities(meta: Value, q: &[(String, String)]) -> Vec<(String, String)> {
    let get = |k: &str| q.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let (name, desc) = (get("name"), get("description"));
    let map: Map<String, Value> = meta.as_object().cloned().unwrap_or_default();
    map.into_iter()
        .map(|(k, v)| {
            let d = v.as_str().map_or_else(|| v.to_string(), str::to_string);
            (k, d)
        })
        .filter(|(k, _)| name.as_ref().is_none_or(|n| n == k))
        .filter(|(_, d)| desc.as_ref().is_none_or(|x| x == d))
        .collect()
}

/// `GET /v2/lbaas/providers/{provider}/flavor_capabilities` (admin): the driver's
/// `get_supported_flavor_metadata`; 400 not enabled, 501 `Provider '<p>' does not support a
/// requested action: <user text>` when the driver does not implement it (OVN).
pub async fn flavor_capabilities(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(provider): Path<String>,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    policy::authorize(
        &ctx,
        "provider-flavor",
        "get_all",
        ctx.project_id.as_deref(),
    )?;
    let driver = st.driver(&provider)?;
    let meta =
        provider_call::query_provider(&provider, driver.get_supported_flavor_metadata()).await?;
    Ok(Json(
        json!({"flavor_capabilities": items(capabilities(meta, &q), &q)}),
    ))
}

/// `GET /v2/lbaas/providers/{provider}/availability_zone_capabilities` (admin), as
/// [`flavor_capabilities`] with `get_supported_availability_zone_metadata`.
pub async fn availability_zone_capabilities(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(provider): Path<String>,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    policy::authorize(
        &ctx,
        "provider-availability-zone",
        "get_all",
        ctx.project_id.as_deref(),
    )?;
    let driver = st.driver(&provider)?;
    let meta =
        provider_call::query_provider(&provider, driver.get_supported_availability_zone_metadata())
            .await?;
    Ok(Json(
        json!({"availability_zone_capabilities": items(capabilities(meta, &q), &q)}),
    ))
}

/// The routes of providers and their capabilities, as `octavia/api/v2/controllers/provider.py` serves them; [`crate::router`]
/// merges them under its layers.
pub(crate) fn routes() -> axum::Router<AppState> {
    use axum::routing::get;
    axum::Router::new()
        .route("/v2/lbaas/providers", get(get_all))
        .route(
            "/v2/lbaas/providers/{provider}/flavor_capabilities",
            get(flavor_capabilities),
        )
        .route(
            "/v2/lbaas/providers/{provider}/availability_zone_capabilities",
            get(availability_zone_capabilities),
        )
}
