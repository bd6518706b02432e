//! `/v2/lbaas/healthmonitors`, as `octavia/api/v2/controllers/health_monitor.py`.

pub(crate) mod body;
internal! {
    mod view;
}

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use octavia_db::{HealthMonitorRow, ListQuery, QuotaResource, SqlValue};
use provider::{OperatingStatus, ProvisioningStatus};
use serde_json::{Value, json};

use crate::context::RequestContext;
use crate::fault::ApiError;
use crate::lookup::{get_db_hm, get_db_lb, get_db_pool, lock_pool_child, quota_limits};
use crate::policy;
use crate::provider_call::call_provider;
use crate::state::AppState;
use crate::types::{Patch, Wsme, model_sent};
use crate::{columns, list, provider_call, provider_model, target};
use body::*;

type Q = Query<Vec<(String, String)>>;

/// Fields only HTTP/HTTPS monitors may carry.
const HTTP_FIELDS: [&str; 3] = ["http_method", "url_path", "expected_codes"];

fn is_http(t: &str) -> bool {
    matches!(t, "HTTP" | "HTTPS")
}

/// `InvalidOption` for an HTTP-only field on another monitor type.
fn http_only(field: &str, ty: &str) -> ApiError {
    ApiError::InvalidOption {
        value: field.to_string(),
        option: format!("health monitors of type {ty}"),
    }
}

/// `_validate_healthmonitor_request_for_udp_sctp`: UDP/SCTP pools take UDP-CONNECT, SCTP, TCP
/// or HTTP monitors; UDP-CONNECT needs `delay >= udp_connect_min_interval_health_monitor`.
fn validate_udp_sctp(
    st: &AppState,
    ty: &str,
    delay: Option<i64>,
    pool_protocol: &str,
) -> Result<(), ApiError> {
    if !matches!(ty, "UDP-CONNECT" | "SCTP" | "TCP" | "HTTP") {
        return Err(ApiError::Validation(format!(
            "The associated pool protocol is {pool_protocol}, so only a UDP-CONNECT/SCTP/TCP/HTTP health monitor is supported."
        )));
    }
    let min = st.config().udp_connect_min_interval_health_monitor;
    if let Some(d) = delay.filter(|d| ty == "UDP-CONNECT" && *d < min) {
        return Err(ApiError::Validation(format!(
            "The request delay value {d} should be larger than {min} for UDP-CONNECT health monitor type."
        )));
    }
    Ok(())
}

/// The type rules of a new monitor of type `ty` on a pool of `pool_protocol`, in the
/// reference's order (health_monitor.py `post`, also the graph create's `_graph_create`):
/// PING only with `[api_settings] allow_ping_health_monitors` (400), UDP/SCTP pools take
/// UDP-CONNECT, SCTP, TCP or HTTP monitors with the UDP-CONNECT minimum `delay`, and
/// UDP-CONNECT / SCTP monitors only UDP / SCTP pools (400 each).
pub(crate) fn validate_type(
    st: &AppState,
    ty: &str,
    delay: Option<i64>,
    pool_protocol: &str,
) -> Result<(), ApiError> {
    if ty == "PING" && !st.config().allow_ping_health_monitors {
        return Err(ApiError::BadRequest(
            "The selected type is not allowed in this deployment: PING".into(),
        ));
    }
    if matches!(pool_protocol, "UDP" | "SCTP") {
        validate_udp_sctp(st, ty, delay, pool_protocol)?;
    } else if matches!(ty, "UDP-CONNECT" | "SCTP") {
        return Err(ApiError::Validation(format!(
            "The {ty} type is only supported for pools of type UDP/SCTP."
        )));
    }
    Ok(())
}

/// The field rules of a new monitor of type `ty`: the HTTP-only fields (`http_method`,
/// `url_path`, `expected_codes`) refused on other types, and the `domain_name` /
/// `http_version` pairing ([`validate_domain`]).
pub(crate) fn validate_fields(b: &HmPost, ty: &str) -> Result<(), ApiError> {
    let given = [&b.http_method, &b.url_path, &b.expected_codes].map(Option::is_some);
    if !is_http(ty)
        && let Some((f, _)) = HTTP_FIELDS.iter().zip(given).find(|(_, g)| *g)
    {
        return Err(http_only(f, ty));
    }
    validate_domain(b.domain_name.as_deref(), b.http_version)
}

/// The `domain_name` / `http_version` pairing rules (create and update).
fn validate_domain(domain: Option<&str>, version: Option<f64>) -> Result<(), ApiError> {
    if domain.is_some_and(|d| !d.is_empty()) {
        match version {
            None => {
                return Err(ApiError::Validation(
                    "'http_version' must be specified when 'domain_name' is provided.".into(),
                ));
            }
            Some(v) if v < 1.1 => {
                return Err(ApiError::InvalidOption {
                    value: format!("http_version {}", py_float(v)),
                    option: "health monitors HTTP 1.1 domain name health check".into(),
                });
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// Python's `str(float)` for the small values http_version takes (`1.0`, `1.1`).
fn py_float(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.1}")
    } else {
        format!("{v}")
    }
}

/// Inserts the [`new_row`] of `b` on pool `pool_id` of `project` and its tags — the POST
/// and the graph create alike; returns the row.
pub(crate) async fn insert_new(
    tx: &mut octavia_db::Tx,
    b: &HmPost,
    pool_id: &str,
    project: &str,
) -> Result<HealthMonitorRow, ApiError> {
    let row = new_row(b, pool_id, project);
    tx.insert(&row).await?;
    if let Some(tags) = &b.tags {
        tx.set_tags(&row.id, tags).await?;
    }
    Ok(row)
}

/// `GET /v2/lbaas/healthmonitors` ([`list::project_list`]).
pub async fn get_all(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    headers: HeaderMap,
    Query(q): Q,
) -> Result<axum::response::Response, ApiError> {
    list::project_list::<HealthMonitorRow>(&st, &ctx, &headers, &q, "healthmonitor").await
}


/// `GET /v2/lbaas/healthmonitors/{id}`.
pub async fn get_one(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    let fields = list::check_get_query(&st, &q)?;
    let mut tx = st.db().begin_read().await?;
    let h = get_db_hm(&mut tx, &id).await?;
    policy::authorize(&ctx, "healthmonitor", "get_one", h.project_id.as_deref())?;
    Ok(Json(
        json!({"healthmonitor": list::select(view::render_hm(&mut tx, &h).await?, &fields)}),
    ))
}

/// The monitor row a create writes — the POST and the graph create alike — PENDING_CREATE
/// and OFFLINE on pool `pool_id` of `project`, with a new id: the attributes' columns as
/// [`HmPost`] declares them, and on an HTTP/HTTPS monitor `http_method` GET, `url_path` `/`,
/// `expected_codes` 200 for those left out or `null`, as
/// octavia/api/v2/controllers/health_monitor.py `_set_default_on_none`.
pub(crate) fn new_row(b: &HmPost, pool_id: &str, project: &str) -> HealthMonitorRow {
    let http = is_http(&b.r#type);
    let or_http = |v: &Option<String>, d: &str| v.clone().or_else(|| http.then(|| d.to_string()));
    let mut row = HealthMonitorRow {
        pool_id: pool_id.to_string(),
        http_method: or_http(&b.http_method, "GET"),
        url_path: or_http(&b.url_path, "/"),
        expected_codes: or_http(&b.expected_codes, "200"),
        project_id: Some(project.to_string()),
        provisioning_status: ProvisioningStatus::PendingCreate,
        id: columns::new_id(),
        operating_status: OperatingStatus::Offline,
        http_version: b.http_version.map(|v| v as f32),
        created_at: Some(octavia_db::now()),
        ..Default::default()
    };
    b.write_row(&mut row);
    row
}

/// `POST /v2/lbaas/healthmonitors` → 201, monitor PENDING_CREATE / OFFLINE; pool, its listeners
/// and the LB PENDING_UPDATE. HTTP(S) monitors default `http_method` GET, `url_path` `/`,
/// `expected_codes` `200`; `max_retries_down` defaults to 3. 409 `This pool already has a
/// health monitor`.
pub async fn post(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Query(q): Q,
    body: Wsme<HmPost>,
) -> Result<Response, ApiError> {
    list::no_query(&q, &[])?;
    let b = body.parse()?;
    let ty = b.r#type.clone();
    let pool_id = b.pool_id.clone().unwrap_or_default();
    let mut tx = st.db().begin().await?;
    let pool = get_db_pool(&mut tx, &pool_id).await?;
    let lb = get_db_lb(
        &mut tx,
        pool.load_balancer_id.as_deref().unwrap_or_default(),
    )
    .await?;
    let project = lb.project_id.clone().unwrap_or_default();
    policy::authorize(&ctx, "healthmonitor", "post", Some(&project))?;
    validate_type(&st, &ty, Some(b.delay), &pool.protocol)?;
    let pname = provider_call::lb_provider(&lb);
    let driver = st.driver(&pname)?;
    if !ctx.noauth {
        tx.check_quota(
            &project,
            QuotaResource::HealthMonitor,
            1,
            &quota_limits(&st),
        )
        .await?;
    }
    lock_pool_child(&mut tx, &pool).await?;
    let existing: Vec<HealthMonitorRow> = tx
        .list(&ListQuery::default().filter("pool_id", pool_id.as_str()))
        .await?;
    if !existing.is_empty() {
        return Err(ApiError::Conflict(
            "This pool already has a health monitor".into(),
        ));
    }
    validate_fields(&b, &ty)?;
    let row = insert_new(&mut tx, &b, &pool_id, &project).await?;
    // the response is the row as written (no re-read); tags read back only if given
    let tags = match &b.tags {
        Some(_) => tx.tags(&row.id).await?,
        None => Vec::new(),
    };
    call_provider(
        &mut tx,
        &pname,
        driver.health_monitor_create(provider_model::hm_model(&row)),
    )
    .await?;
    let body = view::render_hm_with(&row, tags);
    tx.commit().await?;
    Ok((StatusCode::CREATED, Json(json!({"healthmonitor": body}))).into_response())
}

/// `HealthMonitorPUT` checks (`_validate_update_hm`): HTTP-only fields on other types are
/// refused even when null; `delay` / `timeout` / `max_retries` may not be null.
fn validate_update(b: &HmPut, h: &HealthMonitorRow) -> Result<(), ApiError> {
    let given = [&b.http_method, &b.url_path, &b.expected_codes].map(Patch::given);
    if !is_http(&h.r#type)
        && let Some((f, _)) = HTTP_FIELDS.iter().zip(given).find(|(_, g)| *g)
    {
        return Err(http_only(f, &h.r#type));
    }
    b.delay.refuse_null("delay")?;
    b.max_retries.refuse_null("max_retries")?;
    b.timeout.refuse_null("timeout")?;
    let domain = b
        .domain_name
        .value()
        .cloned()
        .or_else(|| h.domain_name.clone());
    let version = b.http_version.value().copied().or_else(|| {
        h.http_version
            .map(|v| (f64::from(v) * 100.0).round() / 100.0)
    });
    if b.domain_name.value().is_some() || version.is_some() {
        validate_domain(domain.as_deref(), version)?;
    }
    Ok(())
}

/// `PUT /v2/lbaas/healthmonitors/{id}` → 200, monitor PENDING_UPDATE (null `http_method` →
/// GET, `url_path` → `/`, `expected_codes` → `200`, `max_retries_down` → 3).
pub async fn put(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
    body: Wsme<HmPut>,
) -> Result<Json<Value>, ApiError> {
    list::no_query(&q, &[])?;
    let b = body.parse()?;
    let mut tx = st.db().begin().await?;
    let t = target::health_monitor(&mut tx, &ctx, &id, "put").await?;
    let (h, pool) = (&t.row, &t.parents);
    validate_update(&b, h)?;
    if matches!(pool.protocol.as_str(), "UDP" | "SCTP") {
        validate_udp_sctp(&st, &h.r#type, b.delay.value().copied(), &pool.protocol)?;
    }
    let prov = t.provider(&st)?;
    lock_pool_child(&mut tx, pool).await?;
    let old = provider_model::hm_model(h);
    let mut new = provider::HealthMonitor {
        healthmonitor_id: id.clone(),
        ..Default::default()
    };
    let ch = put_changes(&b, &mut new);
    call_provider(
        &mut tx,
        &prov.name,
        prov.driver.health_monitor_update(old, new),
    )
    .await?;
    tx.update::<HealthMonitorRow>(&id, &ch).await?;
    if let Some(tags) = b.tags.sent() {
        tx.set_tags(&id, tags.map_or(&[][..], |l| l.as_slice()))
            .await?;
    }
    let h = get_db_hm(&mut tx, &id).await?;
    let body = view::render_hm(&mut tx, &h).await?;
    tx.commit().await?;
    Ok(Json(json!({"healthmonitor": body})))
}

/// The column changes of a PUT (after `provisioning_status` PENDING_UPDATE) and the attributes
/// of the driver's new model: each attribute sent, a `null` as [`HmPut`] declares it.
fn put_changes(b: &HmPut, new: &mut provider::HealthMonitor) -> Vec<(&'static str, SqlValue)> {
    let mut ch: Vec<(&'static str, SqlValue)> = vec![(
        "provisioning_status",
        ProvisioningStatus::PendingUpdate.into(),
    )];
    ch.extend(b.column_changes());
    let r = b.nulls_resolved();
    model_sent!(r, new;
        name: |v| Some(v.cloned().unwrap_or_default());
        delay: |v| v.copied();
        timeout: |v| v.copied();
        max_retries: |v| v.copied();
        max_retries_down: |v| v.copied();
        http_method: |v| v.cloned();
        url_path: |v| v.cloned();
        expected_codes: |v| v.cloned();
        admin_state_up: |v| v.copied();
        http_version: |v| v.copied();
        domain_name: |v| v.cloned();
    );
    ch
}

/// `DELETE /v2/lbaas/healthmonitors/{id}` → 204, monitor PENDING_DELETE; pool, its listeners
/// and the LB PENDING_UPDATE.
pub async fn delete(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
) -> Result<StatusCode, ApiError> {
    list::no_query(&q, &[])?;
    let mut tx = st.db().begin().await?;
    let t = target::health_monitor(&mut tx, &ctx, &id, "delete").await?;
    let prov = t.provider(&st)?;
    lock_pool_child(&mut tx, &t.parents).await?;
    tx.set_provisioning_status::<HealthMonitorRow>(&id, ProvisioningStatus::PendingDelete)
        .await?;
    call_provider(
        &mut tx,
        &prov.name,
        prov.driver
            .health_monitor_delete(provider_model::hm_model(&t.row)),
    )
    .await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The routes of health monitors, as `octavia/api/v2/controllers/health_monitor.py` serves them; [`crate::router`]
/// merges them under its layers.
pub(crate) fn routes() -> axum::Router<AppState> {
    use axum::routing::get;
    axum::Router::new()
        .route("/v2/lbaas/healthmonitors", get(get_all).post(post))
        .route(
            "/v2/lbaas/healthmonitors/{id}",
            get(get_one).put(put).delete(delete),
        )
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn domain_rules() {
        assert!(validate_domain(None, None).is_ok());
        assert!(validate_domain(Some("a.example"), Some(1.1)).is_ok());
        assert_eq!(
            validate_domain(Some("a.example"), None)
                .unwrap_err()
                .to_string(),
            "Validation failure: 'http_version' must be specified when 'domain_name' is provided."
        );
        assert_eq!(
            validate_domain(Some("a.example"), Some(1.0))
                .unwrap_err()
                .to_string(),
            "http_version 1.0 is not a valid option for health monitors HTTP 1.1 domain name health check"
        );
    }
}
