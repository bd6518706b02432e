//! `/v2/octavia/amphorae`, as octavia/api/v2/controllers/amphora.py: the admin API over the
//! `amphora` rows the amphora provider's Python `octavia-worker` writes.
//!
//! Reads (list, show, stats) answer from the database alone. The writes (delete, failover,
//! agent config) check and change rows in one transaction and then ask the worker through the
//! [`AmphoraControl`] seam (the reference's oslo.messaging casts on topic `octavia_provisioning_v2`),
//! inside the transaction with [`call_provider`]: an error of the seam rolls everything back.
//! Without a seam (no amphora provider loaded) a write that passed its checks answers 501
//! `Provider 'amphora' was not found.` with nothing written, as a request naming a provider
//! that is enabled but not loaded.
//!
//! Differences from the reference, on purpose: an amphora without a load balancer
//! (`load_balancer_id` NULL) is refused on failover / config with 409 `amphora <id> is
//! immutable and cannot be updated.` (the reference's `ImmutableObject` text for amphorae)
//! where the reference fails with a 500 (`'NoneType' object has no attribute 'project_id'`);
//! a failover whose cast fails rolls back and answers the seam's error, where the reference
//! sets the load balancer ERROR and still answers 202.

mod view;

use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::{Extension, Json};
use octavia_db::{AmphoraRow, LoadBalancerRow, Tx};
use provider::ProvisioningStatus;
use serde_json::{Value, json};

use crate::context::RequestContext;
use crate::fault::ApiError;
use crate::list;
use crate::policy;
use crate::provider_call::call_provider;
use crate::state::AppState;

pub use crate::amphora_control::AmphoraControl;
pub use view::{AMPHORA_ATTRS, render, render_stat};

type Q = Query<Vec<(String, String)>>;

/// The provider name errors of the seam are reported under.
const PROVIDER: &str = "amphora";

/// The seam, or 501 `Provider 'amphora' was not found.` when no amphora provider is loaded.
fn control(st: &AppState) -> Result<Arc<dyn AmphoraControl>, ApiError> {
    st.amphora_control()
        .cloned()
        .ok_or_else(|| ApiError::ProviderNotFound(PROVIDER.into()))
}

/// `BaseController._get_db_amp(show_deleted=False)`: the amphora unless it is missing or
/// DELETED (404 `Amphora <id> not found.`).
async fn get_db_amp(tx: &mut Tx, id: &str) -> Result<AmphoraRow, ApiError> {
    let a: Option<AmphoraRow> = tx.find(id).await?;
    a.filter(|a| a.status != ProvisioningStatus::Deleted)
        .ok_or_else(|| ApiError::not_found("Amphora", id))
}

/// The amphora's load balancer (`db_amp.load_balancer`), read without a lock; `None` when the
/// amphora has none.
async fn amp_lb(tx: &mut Tx, amp: &AmphoraRow) -> Result<Option<LoadBalancerRow>, ApiError> {
    match amp.load_balancer_id.as_deref() {
        Some(lb_id) => {
            tracing::Span::current().record("lb_id", lb_id);
            Ok(tx.find(lb_id).await?)
        }
        None => Ok(None),
    }
}

/// `GET /v2/octavia/amphorae` → `{"amphorae": [...], "amphorae_links": [...]}`, as
/// `AmphoraController.get_all`: policy `amphora:get_all` first (403), then the page in SQL
/// (filters on every attribute, sorting, markers, `fields=`, as every Keel collection:
/// [`list::global_list`], its spec declared with the view). DELETED amphorae are never listed.
/// Errors: 403, the 400s of a bad filter, sort key or marker, the database's.
pub async fn get_all(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    headers: HeaderMap,
    Query(q): Q,
) -> Result<axum::response::Response, ApiError> {
    list::global_list::<AmphoraRow>(&st, &ctx, &headers, &q, "amphora").await
}

/// `GET /v2/octavia/amphorae/{id}` → `{"amphora": {...}}` ([`render`], `fields=` applied), as
/// `AmphoraController.get_one`: the query checks of every GET, the lookup (404 `Amphora <id>
/// not found.`, DELETED too), then policy `amphora:get_one` (403).
pub async fn get_one(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    let fields = list::check_get_query(&st, &q)?;
    let mut tx = st.db().begin_read().await?;
    let amp = get_db_amp(&mut tx, &id).await?;
    policy::authorize(&ctx, "amphora", "get_one", ctx.project_id.as_deref())?;
    Ok(Json(
        json!({"amphora": list::select(render(&amp), &fields)}),
    ))
}

/// `DELETE /v2/octavia/amphorae/{id}` → 204, as `AmphoraController.delete`: policy
/// `amphora:delete` first (403); the amphora locked (404 `Amphora <id> not found.` when
/// missing or DELETED), 409 `amphora <id> is immutable and cannot be updated.` unless it is
/// `ERROR`; set `PENDING_DELETE`; then the cast `delete_amphora` with the id as requested
/// (501 without a seam; its error rolls back).
pub async fn delete(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
) -> Result<StatusCode, ApiError> {
    list::no_query(&q, &[])?;
    policy::authorize(&ctx, "amphora", "delete", ctx.project_id.as_deref())?;
    let mut tx = st.db().begin().await?;
    tx.amphora_set_pending_delete(&id).await?;
    let ctl = control(&st)?;
    tracing::info!(amphora_id = %id, "Sending delete amphora to the queue.");
    call_provider(&mut tx, PROVIDER, ctl.delete_amphora(&id)).await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

/// What failover and config check first: the amphora (404), policy `amphora:<action>` against
/// its load balancer's project (403), then 409 `amphora <id> is immutable…` when it has no load
/// balancer (module doc).
async fn amp_and_lb(
    tx: &mut Tx,
    ctx: &RequestContext,
    id: &str,
    action: &str,
) -> Result<(AmphoraRow, LoadBalancerRow), ApiError> {
    let amp = get_db_amp(tx, id).await?;
    let lb = amp_lb(tx, &amp).await?;
    let project = lb.as_ref().and_then(|l| l.project_id.as_deref());
    policy::authorize(ctx, "amphora", action, project)?;
    let lb = lb.ok_or_else(|| ApiError::immutable("amphora", id))?;
    Ok((amp, lb))
}

/// `PUT /v2/octavia/amphorae/{id}/failover` → 202, as `FailoverController.put` of
/// amphora.py: the lookup (404), policy `amphora:put_failover` against the amphora's load
/// balancer's project (403), 409 `amphora <id> is immutable…` when it has no load balancer
/// (see the module doc), the load balancer locked and set `PENDING_UPDATE` only from `ACTIVE`
/// (`test_and_set_provisioning_status`: else 409 `Load Balancer <lb> is immutable and cannot
/// be updated.`, ERROR included — unlike a load balancer failover), then the cast
/// `failover_amphora` (501 without a seam; its error rolls back).
pub async fn failover(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
) -> Result<StatusCode, ApiError> {
    list::no_query(&q, &[])?;
    let mut tx = st.db().begin().await?;
    let (amp, lb) = amp_and_lb(&mut tx, &ctx, &id, "put_failover").await?;
    let locked = tx.lock_load_balancer(&lb.id).await?;
    if locked.provisioning_status != ProvisioningStatus::Active {
        return Err(ApiError::immutable("Load Balancer", &lb.id));
    }
    tx.set_provisioning_status::<LoadBalancerRow>(&lb.id, ProvisioningStatus::PendingUpdate)
        .await?;
    let ctl = control(&st)?;
    tracing::info!(amphora_id = %amp.id, "Sending failover request for amphora to the queue");
    call_provider(&mut tx, PROVIDER, ctl.failover_amphora(&amp.id)).await?;
    tx.commit().await?;
    Ok(StatusCode::ACCEPTED)
}

/// `PUT /v2/octavia/amphorae/{id}/config` → 202, as `AmphoraUpdateController.put`: the
/// lookup (404), policy `amphora:put_config` against the load balancer's project (403), 409
/// `amphora <id> is immutable…` without a load balancer (module doc), then the cast
/// `update_amphora_agent_config` (no status is checked or written; 501 without a seam).
pub async fn config(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
) -> Result<StatusCode, ApiError> {
    list::no_query(&q, &[])?;
    let mut tx = st.db().begin().await?;
    let (amp, _lb) = amp_and_lb(&mut tx, &ctx, &id, "put_config").await?;
    let ctl = control(&st)?;
    tracing::info!(amphora_id = %amp.id, "Sending amphora agent update request to the queue.");
    call_provider(&mut tx, PROVIDER, ctl.update_amphora_agent_config(&amp.id)).await?;
    tx.commit().await?;
    Ok(StatusCode::ACCEPTED)
}

/// `GET /v2/octavia/amphorae/{id}/stats` → `{"amphora_stats": [{active_connections, bytes_in,
/// bytes_out, id, listener_id, loadbalancer_id, request_errors, total_connections}, ...]}`,
/// one per `listener_statistics` row of the amphora ([`octavia_db::Tx::amphora_stats`],
/// [`render_stat`]), as `AmphoraStatsController.get`: no query parameters (400 `Unknown
/// argument`), policy `amphora:get_stats` first (403), 404 `Amphora stats for <id> not found.`
/// when there is no row (an unknown amphora too).
pub async fn stats(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    list::no_query(&q, &[])?;
    policy::authorize(&ctx, "amphora", "get_stats", ctx.project_id.as_deref())?;
    let mut tx = st.db().begin_read().await?;
    let rows = tx.amphora_stats(&id).await?;
    if rows.is_empty() {
        return Err(ApiError::not_found("Amphora stats for", &id));
    }
    let stats: Vec<Value> = rows.iter().map(render_stat).collect();
    Ok(Json(json!({ "amphora_stats": stats })))
}

/// The routes of amphorae (the admin API), as `octavia/api/v2/controllers/amphora.py` serves them; [`crate::router`]
/// merges them under its layers.
pub(crate) fn routes() -> axum::Router<AppState> {
    use axum::routing::{self, get};
    axum::Router::new()
        .route("/v2/octavia/amphorae", get(get_all))
        .route("/v2/octavia/amphorae/{id}", get(get_one).delete(delete))
        .route("/v2/octavia/amphorae/{id}/stats", get(stats))
        .route("/v2/octavia/amphorae/{id}/failover", routing::put(failover))
        .route("/v2/octavia/amphorae/{id}/config", routing::put(config))
}
