//! `/v2/octavia/amphorae`, as `octavia/api/v2/controllers/amphora.py`.
//!
//! Keel pairs the API only with providers that run no amphorae (OVN), so there is never an
//! amphora to show: the list is empty (with its links key), every id is 404
//! `Amphora <id> not found.` and stats are 404 `Amphora stats for <id> not found.` — with the
//! reference's paths, admin policies and check order kept.

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::{Extension, Json};
use serde_json::Value;

use crate::context::RequestContext;
use crate::fault::ApiError;
use crate::list;
use crate::pagination::ListParams;
use crate::policy;
use crate::state::AppState;

type Q = Query<Vec<(String, String)>>;

/// Attribute names of an amphora response (filters / sort keys).
pub const AMPHORA_ATTRS: &[&str] = &[
    "id",
    "loadbalancer_id",
    "compute_id",
    "lb_network_ip",
    "vrrp_ip",
    "ha_ip",
    "vrrp_port_id",
    "ha_port_id",
    "cert_expiration",
    "cert_busy",
    "role",
    "status",
    "vrrp_interface",
    "vrrp_id",
    "vrrp_priority",
    "cached_zone",
    "created_at",
    "updated_at",
    "image_id",
    "compute_flavor",
];

fn not_found(id: &str) -> ApiError {
    ApiError::not_found("Amphora", id)
}

/// `GET /v2/octavia/amphorae` (admin) → `{"amphorae": [], "amphorae_links": [...]}`.
pub async fn get_all(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    headers: HeaderMap,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    policy::authorize(&ctx, "amphora", "get_all", ctx.project_id.as_deref())?;
    let params = ListParams::parse(&q, st.config().pagination_max_limit, st.config())?;
    Ok(Json(list::collection(
        &st,
        &headers,
        "/v2/octavia/amphorae",
        "amphorae",
        vec![],
        &params,
        AMPHORA_ATTRS,
    )?))
}

/// `GET /v2/octavia/amphorae/{id}`: the lookup (404) comes before the policy check.
pub async fn get_one(
    State(st): State<AppState>,
    Path(id): Path<String>,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    list::check_get_query(&st, &q)?;
    Err(not_found(&id))
}

/// `DELETE /v2/octavia/amphorae/{id}` (admin, then 404).
pub async fn delete(
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    policy::authorize(&ctx, "amphora", "delete", ctx.project_id.as_deref())?;
    Err(not_found(&id))
}

/// `PUT /v2/octavia/amphorae/{id}/failover` (202 in the reference; the amphora lookup, 404,
/// precedes the `put_failover` policy, whose target is the amphora's LB project).
pub async fn failover(Path(id): Path<String>) -> Result<StatusCode, ApiError> {
    Err(not_found(&id))
}

/// `PUT /v2/octavia/amphorae/{id}/config` (202 in the reference; lookup first, as failover).
pub async fn config(Path(id): Path<String>) -> Result<StatusCode, ApiError> {
    Err(not_found(&id))
}

/// `GET /v2/octavia/amphorae/{id}/stats` (admin; no query parameters) → 404
/// `Amphora stats for <id> not found.`
pub async fn stats(
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    list::no_query(&q, &[])?;
    policy::authorize(&ctx, "amphora", "get_stats", ctx.project_id.as_deref())?;
    Err(ApiError::not_found("Amphora stats for", &id))
}
