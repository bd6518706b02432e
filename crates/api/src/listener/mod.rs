//! `/v2/lbaas/listeners`, as `octavia/api/v2/controllers/listener.py`.

internal! {
    mod body;
    mod rules;
    mod view;
}

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use octavia_db::{ListQuery, ListenerRow, PoolRow, QuotaResource, SqlValue};
use provider::{OperatingStatus, ProvisioningStatus};
use serde_json::{Value, json};

use crate::certificates;
use crate::context::RequestContext;
use crate::fault::ApiError;
use crate::lookup::{
    get_db_lb, get_db_listener, pool_protocol_ok, port_space, quota_limits, stats_of,
};
use crate::policy;
use crate::provider_call::call_provider;
use crate::state::AppState;
use crate::target::{self, Provider, Target};
use crate::types::{Patch, Strings, Wsme, model_sent, put_sent};
use crate::{columns, list, provider_model};
use body::*;

type Q = Query<Vec<(String, String)>>;

/// `[api_settings] allow_tls_terminated_listeners` / `allow_prometheus_listeners` = False:
/// 400 `The selected protocol is not allowed in this deployment: <protocol>` (a PROMETHEUS
/// listener with certificate refs counts as TLS: `PROMETHEUS with TLS`), as
/// octavia/api/v2/controllers/listener.py `_validate_create_listener`.
pub(crate) fn validate_enabled(
    cfg: &crate::state::ApiConfig,
    b: &ListenerPost,
    protocol: &str,
) -> Result<(), ApiError> {
    let refs = b.default_tls_container_ref.is_some()
        || b.sni_container_refs.as_ref().is_some_and(|l| !l.is_empty());
    let tls = protocol == "TERMINATED_HTTPS" || (protocol == "PROMETHEUS" && refs);
    let disabled = |value: &str| {
        ApiError::BadRequest(format!(
            "The selected protocol is not allowed in this deployment: {value}"
        ))
    };
    if tls && !cfg.allow_tls_terminated_listeners {
        return Err(disabled(if protocol == "PROMETHEUS" {
            "PROMETHEUS with TLS"
        } else {
            protocol
        }));
    }
    if protocol == "PROMETHEUS" && !cfg.allow_prometheus_listeners {
        return Err(disabled("PROMETHEUS"));
    }
    Ok(())
}

/// Protocol-specific checks of a create (`rules::check_create`), reference texts.
pub(crate) fn validate_protocol(b: &ListenerPost, protocol: &str) -> Result<(), ApiError> {
    rules::check_create(b, protocol)
}

/// The certificate part of listener.py `_validate_listener_PUT`, before the LB lock: the
/// given SNI/default refs are read; the client CA and CRL (given, else stored) too.
async fn validate_tls_put(
    st: &AppState,
    ctx: &RequestContext,
    b: &ListenerPut,
    l: &ListenerRow,
) -> Result<(), ApiError> {
    let token = ctx.auth_token.as_deref();
    let tls_refs = tls_refs(
        b.sni_container_refs.value(),
        b.default_tls_container_ref.value(),
    );
    certificates::validate_tls_refs(st.cert_manager(), token, &tls_refs).await?;
    // A null in the body falls back to the stored ref, as the reference's truthiness test.
    let ca = non_empty(b.client_ca_tls_container_ref.as_ref())
        .or_else(|| l.client_ca_tls_certificate_id.clone());
    let crl = non_empty(b.client_crl_container_ref.as_ref())
        .or_else(|| l.client_crl_container_id.clone());
    match (ca, crl) {
        (None, Some(_)) => Err(ApiError::Validation(
            "A client authentication CA reference is required to specify a client authentication revocation list.".into(),
        )),
        (Some(ca), crl) => {
            certificates::validate_client_ca_and_crl_refs(
                st.cert_manager(),
                token,
                &ca,
                crl.as_deref(),
            )
            .await
        }
        (None, None) => Ok(()),
    }
}

/// A certificate ref, unless empty.
fn non_empty(r: Option<&String>) -> Option<String> {
    r.filter(|r| !r.is_empty()).cloned()
}

/// The certificate refs a listener names: its SNI list, then its default ref (unless empty).
fn tls_refs(sni: Option<&Strings>, default_ref: Option<&String>) -> Vec<String> {
    let mut refs = sni.map(|l| l.0.clone()).unwrap_or_default();
    refs.extend(non_empty(default_ref));
    refs
}

/// The certificates of a create, read after the LB lock and before the duplicate-port check
/// and the provider (listener.py `_validate_create_listener`): the SNI and default refs, then
/// the client CA with its CRL when a CA is given.
pub(crate) async fn validate_tls_create(
    st: &AppState,
    token: Option<&str>,
    b: &ListenerPost,
) -> Result<(), ApiError> {
    let refs = tls_refs(
        b.sni_container_refs.as_ref(),
        b.default_tls_container_ref.as_ref(),
    );
    certificates::validate_tls_refs(st.cert_manager(), token, &refs).await?;
    if let Some(ca) = non_empty(b.client_ca_tls_container_ref.as_ref()) {
        let crl = non_empty(b.client_crl_container_ref.as_ref());
        certificates::validate_client_ca_and_crl_refs(
            st.cert_manager(),
            token,
            &ca,
            crl.as_deref(),
        )
        .await?;
    }
    Ok(())
}

/// The listener row a create writes — the POST and the graph create alike — PENDING_CREATE
/// and OFFLINE under load balancer `lb_id` of `project`, with a new id: the attributes'
/// columns as [`ListenerPost`] declares them, `connection_limit` -1 when left out and NULL
/// when given `null`, the `[haproxy_amphora]` timeouts for
/// those left out or `null`, and on a TERMINATED_HTTPS listener the default TLS versions and
/// ALPN protocols ([`rules::DEFAULT_TLS_VERSIONS`], [`rules::DEFAULT_LISTENER_ALPN`]), as
/// octavia/db/prepare.py `create_listener` and listener.py `_validate_create_listener`.
/// Integers were range-checked by the schema; `peer_port` is the caller's.
pub(crate) fn new_row(
    b: &ListenerPost,
    cfg: &crate::state::ApiConfig,
    project: &str,
    lb_id: &str,
    default_pool_id: Option<String>,
    peer_port: i32,
) -> ListenerRow {
    let int_or = |v: Option<i64>, d: i64| Some(i32::try_from(v.unwrap_or(d)).unwrap_or(i32::MAX));
    let mut row = ListenerRow {
        project_id: Some(project.to_string()),
        id: columns::new_id(),
        connection_limit: match b.connection_limit {
            Patch::Null => None,
            Patch::Absent => Some(-1),
            Patch::Value(v) => int_or(Some(v), -1),
        },
        load_balancer_id: Some(lb_id.to_string()),
        default_pool_id,
        provisioning_status: ProvisioningStatus::PendingCreate,
        operating_status: OperatingStatus::Offline,
        peer_port: Some(peer_port),
        insert_headers: b.insert_headers.as_ref().map(crate::pickle::dumps_str_dict),
        timeout_client_data: int_or(b.timeout_client_data, cfg.timeout_client_data),
        timeout_member_connect: int_or(b.timeout_member_connect, cfg.timeout_member_connect),
        timeout_member_data: int_or(b.timeout_member_data, cfg.timeout_member_data),
        timeout_tcp_inspect: int_or(b.timeout_tcp_inspect, cfg.timeout_tcp_inspect),
        client_ca_tls_certificate_id: b.client_ca_tls_container_ref.clone(),
        client_crl_container_id: b.client_crl_container_ref.clone(),
        created_at: Some(octavia_db::now()),
        ..Default::default()
    };
    b.write_row(&mut row);
    let tls = row.protocol == "TERMINATED_HTTPS";
    let tls_default = |v: &Option<Strings>, d: &[&str]| {
        v.as_ref()
            .map(|l| l.0.clone())
            .or_else(|| tls.then(|| rules::owned(d)))
    };
    row.tls_versions =
        columns::join_list(tls_default(&b.tls_versions, rules::DEFAULT_TLS_VERSIONS));
    row.alpn_protocols =
        columns::join_list(tls_default(&b.alpn_protocols, rules::DEFAULT_LISTENER_ALPN));
    row
}

/// Inserts a [`new_row`] and the collections `b` gives (SNI refs, `allowed_cidrs` with
/// repeats next to each other dropped, tags); true when `b` gave any of them.
pub(crate) async fn insert_new(
    tx: &mut octavia_db::Tx,
    row: &ListenerRow,
    b: &ListenerPost,
) -> Result<bool, ApiError> {
    tx.insert(row).await?;
    let given = b.sni_container_refs.is_some() || b.allowed_cidrs.is_some() || b.tags.is_some();
    if let Some(sni) = &b.sni_container_refs {
        tx.set_sni_refs(&row.id, sni).await?;
    }
    if let Some(c) = &b.allowed_cidrs {
        let mut c = c.0.clone();
        c.dedup();
        tx.set_listener_cidrs(&row.id, &c).await?;
    }
    if let Some(tags) = &b.tags {
        tx.set_tags(&row.id, tags).await?;
    }
    Ok(given)
}

/// `GET /v2/lbaas/listeners` ([`list::project_list`]).
pub async fn get_all(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    headers: HeaderMap,
    Query(q): Q,
) -> Result<axum::response::Response, ApiError> {
    list::project_list::<ListenerRow>(&st, &ctx, &headers, &q, "listener").await
}


/// `GET /v2/lbaas/listeners/{id}`.
pub async fn get_one(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    let fields = list::check_get_query(&st, &q)?;
    let mut tx = st.db().begin_read().await?;
    let l = get_db_listener(&mut tx, &id).await?;
    policy::authorize(&ctx, "listener", "get_one", l.project_id.as_deref())?;
    Ok(Json(
        json!({"listener": list::select(view::render_listener(&mut tx, &l).await?, &fields)}),
    ))
}

/// 409 `Another Listener on this Load Balancer is already using protocol <p> and
/// protocol_port <n>` when a live listener of `existing` holds `port` in the same port space
/// (TCP-based protocols share one, UDP and SCTP have their own).
fn port_free(existing: &[ListenerRow], port: i64, protocol: &str) -> Result<(), ApiError> {
    if existing.iter().any(|l| {
        l.protocol_port as i64 == port
            && port_space(&l.protocol) == port_space(protocol)
            && l.provisioning_status != ProvisioningStatus::Deleted
    }) {
        return Err(ApiError::Conflict(format!(
            "Another Listener on this Load Balancer is already using protocol {protocol} and protocol_port {port}"
        )));
    }
    Ok(())
}

/// A `default_pool_id` must name a live pool of load balancer `lb_id` (404 `Pool <id> not
/// found.`) whose protocol a `protocol` listener can use (400).
async fn default_pool_fits(
    tx: &mut octavia_db::Tx,
    pid: &str,
    lb_id: &str,
    protocol: &str,
) -> Result<(), ApiError> {
    let pool: Option<PoolRow> = tx.find(pid).await?;
    let pool = pool
        .filter(|p| {
            p.load_balancer_id.as_deref() == Some(lb_id)
                && p.provisioning_status != ProvisioningStatus::Deleted
        })
        .ok_or_else(|| ApiError::not_found("Pool", pid))?;
    if !pool_protocol_ok(protocol, &pool.protocol) {
        return Err(ApiError::Validation(format!(
            "The pool protocol '{}' is invalid while the listener protocol is '{protocol}'.",
            pool.protocol
        )));
    }
    Ok(())
}

/// `POST /v2/lbaas/listeners` → 201, listener PENDING_CREATE, LB PENDING_UPDATE.
pub async fn post(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Query(q): Q,
    body: Wsme<ListenerPost>,
) -> Result<Response, ApiError> {
    list::no_query(&q, &[])?;
    let b = body.parse()?;
    let protocol = b.protocol.value().cloned().unwrap_or_default();
    let port = b.protocol_port;
    let mut tx = st.db().begin().await?;
    // `loadbalancer_id: null` is looked up as Python's None: 404 `Load Balancer None not found.`
    let Some(lb_id) = b.loadbalancer_id.clone() else {
        return Err(ApiError::not_found("Load Balancer", "None"));
    };
    let lb = get_db_lb(&mut tx, &lb_id).await?;
    let project = lb.project_id.clone().unwrap_or_default();
    policy::authorize(&ctx, "listener", "post", Some(&project))?;
    // `protocol: null`: the reference's insert fails on the protocol's foreign key → 400
    if b.protocol.is_null() {
        return Err(ApiError::InvalidOption {
            value: "None".into(),
            option: "protocol".into(),
        });
    }
    validate_enabled(st.config(), &b, &protocol)?;
    validate_protocol(&b, &protocol)?;
    if protocol == "PROMETHEUS" && b.default_pool_id.is_some() {
        return Err(ApiError::BadRequest(
            "Protocol PROMETHEUS listeners cannot have child objects.".into(),
        ));
    }
    let Provider {
        name: pname,
        driver,
    } = Provider::of(&st, &lb)?;
    if !ctx.noauth {
        tx.check_quota(&project, QuotaResource::Listener, 1, &quota_limits(&st))
            .await?;
    }
    tx.lock_lb_for_child(&lb_id, &[], ProvisioningStatus::PendingUpdate)
        .await?;
    // seed 004 §5: after the LB lock, before the duplicate-port check and the provider
    validate_tls_create(&st, ctx.auth_token.as_deref(), &b).await?;
    let existing: Vec<ListenerRow> = tx
        .list(&ListQuery::default().filter("load_balancer_id", lb_id.as_str()))
        .await?;
    port_free(&existing, port, &protocol)?;
    if let Some(c) = &b.allowed_cidrs {
        rules::cidrs_fit_vips(&mut tx, &lb_id, &c.0).await?;
    }
    if let Some(pid) = &b.default_pool_id {
        default_pool_fits(&mut tx, pid, &lb_id, &protocol).await?;
    }
    let peer_port = octavia_db::Tx::peer_port_after(&existing);
    let row = new_row(
        &b,
        st.config(),
        &project,
        &lb_id,
        b.default_pool_id.clone(),
        peer_port,
    );
    let id = row.id.clone();
    let has_collections = insert_new(&mut tx, &row, &b).await?;
    // The row as written and its collections (read once, only when some were given) make
    // both the provider model and the response: no re-read.
    let att = if has_collections {
        tx.listener_attachments(&id).await?
    } else {
        octavia_db::ListenerAttachments::default()
    };
    let mut model = provider_model::listener_model_with(&row, &att);
    // listener.py `post` converts the data model the repository's create returns, whose
    // `insert_headers` is `{}` for a NULL column (octavia/common/data_models.py `Listener`)
    model.insert_headers.get_or_insert_with(|| json!({}));
    call_provider(&mut tx, &pname, driver.listener_create(model)).await?;
    let body = view::render_listener_with(&row, att);
    tx.commit().await?;
    Ok((StatusCode::CREATED, Json(json!({"listener": body}))).into_response())
}

/// The column changes of a PUT and the attributes the driver's new model carries (every
/// attribute sent, as listener.py `put` hands `listener.to_dict(render_unsets=False)` to the
/// driver): each attribute sent is written, a `null` as listener.py's `_set_default_on_none` and
/// `to_dict` make it — as [`ListenerPut`] declares, the timeouts their configured defaults,
/// the TLS versions / ALPN protocols their defaults; `default_pool_id: null` removes the pool.
fn put_changes(
    b: &ListenerPut,
    cfg: &crate::state::ApiConfig,
    new: &mut provider::Listener,
) -> Vec<(&'static str, SqlValue)> {
    let mut ch: Vec<(&'static str, SqlValue)> = Vec::new();
    let int_or = |v: Option<&i64>, d: i64| -> Option<i32> {
        Some(i32::try_from(v.copied().unwrap_or(d)).unwrap_or(i32::MAX))
    };
    ch.extend(b.column_changes());
    let r = b.nulls_resolved();
    model_sent!(r, new;
        name: |v| Some(v.cloned().unwrap_or_default());
        description: |v| Some(v.cloned().unwrap_or_default());
        admin_state_up: |v| v.copied();
        connection_limit: |v| v.copied();
        // null removes the pool: octavia-lib's None, distinct from Unset
        default_pool_id: |v| Some(v.cloned());
        default_tls_container_ref: |v| v.cloned();
        client_authentication: |v| v.cloned();
        tls_ciphers: |v| v.cloned();
        hsts_max_age: |v| v.copied();
        hsts_include_subdomains: |v| v.copied();
        hsts_preload: |v| v.copied();
    );
    put_sent!(b, ch, new;
        timeout_client_data: |v| int_or(v, cfg.timeout_client_data) => v, v.map(i64::from);
        timeout_member_connect: |v| int_or(v, cfg.timeout_member_connect) => v, v.map(i64::from);
        timeout_member_data: |v| int_or(v, cfg.timeout_member_data) => v, v.map(i64::from);
        timeout_tcp_inspect: |v| int_or(v, cfg.timeout_tcp_inspect) => v, v.map(i64::from);
    );
    if let Some(v) = b.insert_headers.sent() {
        ch.push((
            "insert_headers",
            v.map(crate::pickle::dumps_str_dict).into(),
        ));
        // a sent null stays null (octavia-lib's None, not Unset)
        new.insert_headers = Some(v.map_or(Value::Null, |m| Value::Object(m.clone())));
    }
    new.client_ca_tls_container_ref = b.client_ca_tls_container_ref.clone();
    new.client_crl_container_ref = b.client_crl_container_ref.clone();
    let or_default =
        |v: Option<&Strings>, d: &[&str]| v.map_or_else(|| rules::owned(d), |l| l.0.clone());
    put_sent!(b, ch, new;
        tls_versions: |v| or_default(v, rules::DEFAULT_TLS_VERSIONS)
            => columns::join_list(Some(v.clone())), Some(v);
        alpn_protocols: |v| or_default(v, rules::DEFAULT_LISTENER_ALPN)
            => columns::join_list(Some(v.clone())), Some(v);
    );
    ch
}

/// `PUT /v2/lbaas/listeners/{id}` → 200, listener and LB PENDING_UPDATE.
pub async fn put(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
    body: Wsme<ListenerPut>,
) -> Result<Json<Value>, ApiError> {
    list::no_query(&q, &[])?;
    let b = body.parse()?;
    let mut tx = st.db().begin().await?;
    let Target { row: l, lb, .. } = target::listener(&mut tx, &ctx, &id, "put").await?;
    rules::check_put(&b, &l)?;
    validate_tls_put(&st, &ctx, &b, &l).await?;
    if let Some(Some(c)) = b.allowed_cidrs.sent() {
        rules::cidrs_fit_vips(&mut tx, &lb.id, &c.0).await?;
    }
    let Provider {
        name: pname,
        driver,
    } = Provider::of(&st, &lb)?;
    let old = provider_model::listener_model(&mut tx, &l).await?;
    tx.lock_lb_for_child(
        &lb.id,
        std::slice::from_ref(&id),
        ProvisioningStatus::PendingUpdate,
    )
    .await?;
    if let Some(pid) = b.default_pool_id.value() {
        let pool: Option<PoolRow> = tx.find(pid).await?;
        let pool = pool
            .filter(|p| {
                p.load_balancer_id == l.load_balancer_id
                    && p.provisioning_status != ProvisioningStatus::Deleted
            })
            .ok_or_else(|| ApiError::not_found("Pool", pid))?;
        if !pool_protocol_ok(&l.protocol, &pool.protocol) {
            return Err(ApiError::Validation(format!(
                "The pool protocol '{}' is invalid while the listener protocol is '{}'.",
                pool.protocol, l.protocol
            )));
        }
    }
    let mut new = provider::Listener {
        listener_id: id.clone(),
        ..Default::default()
    };
    let ch = put_changes(&b, st.config(), &mut new);
    tx.update::<ListenerRow>(&id, &ch).await?;
    if let Some(sni) = b.sni_container_refs.sent() {
        tx.set_sni_refs(&id, sni.map_or(&[][..], |l| l.as_slice()))
            .await?;
    }
    if let Some(cidrs) = b.allowed_cidrs.sent() {
        let cidrs = cidrs.map(|l| l.0.clone()).unwrap_or_default();
        tx.set_listener_cidrs(&id, &cidrs).await?;
        // the driver sees the new list (the OVN provider enforces it: `ovn_provider::cidrs`)
        new.allowed_cidrs = Some(cidrs);
    }
    if let Some(tags) = b.tags.sent() {
        tx.set_tags(&id, tags.map_or(&[][..], |l| l.as_slice()))
            .await?;
    }
    call_provider(&mut tx, &pname, driver.listener_update(old, new)).await?;
    let l = get_db_listener(&mut tx, &id).await?;
    let body = view::render_listener(&mut tx, &l).await?;
    tx.commit().await?;
    Ok(Json(json!({"listener": body})))
}

/// `DELETE /v2/lbaas/listeners/{id}` → 204, listener PENDING_DELETE, LB PENDING_UPDATE.
pub async fn delete(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
) -> Result<StatusCode, ApiError> {
    list::no_query(&q, &[])?;
    let mut tx = st.db().begin().await?;
    let Target { row: l, lb, .. } = target::listener(&mut tx, &ctx, &id, "delete").await?;
    let Provider {
        name: pname,
        driver,
    } = Provider::of(&st, &lb)?;
    let model = provider_model::listener_model(&mut tx, &l).await?;
    tx.lock_lb_for_child(
        &lb.id,
        std::slice::from_ref(&id),
        ProvisioningStatus::PendingDelete,
    )
    .await?;
    call_provider(&mut tx, &pname, driver.listener_delete(model)).await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /v2/lbaas/listeners/{id}/stats`.
pub async fn get_stats(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    list::no_query(&q, &[])?;
    let mut tx = st.db().begin_read().await?;
    let l = get_db_listener(&mut tx, &id).await?;
    policy::authorize(&ctx, "listener", "get_stats", l.project_id.as_deref())?;
    Ok(Json(stats_of(&mut tx, &[id]).await?))
}

/// The routes of listeners, as `octavia/api/v2/controllers/listener.py` serves them; [`crate::router`]
/// merges them under its layers.
pub(crate) fn routes() -> axum::Router<AppState> {
    use axum::routing::get;
    axum::Router::new()
        .route("/v2/lbaas/listeners", get(get_all).post(post))
        .route(
            "/v2/lbaas/listeners/{id}",
            get(get_one).put(put).delete(delete),
        )
        .route("/v2/lbaas/listeners/{id}/stats", get(get_stats))
}
