//! `/v2/lbaas/listeners`, as `octavia/api/v2/controllers/listener.py`.

pub mod rules;

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use octavia_db::{ListQuery, ListenerRow, PoolRow, QuotaResource, SqlValue};
use provider::{OperatingStatus, ProvisioningStatus};
use serde_json::{Value, json};

use crate::AppState;
use crate::base::{self, LISTENER_ATTRS, call_provider};
use crate::certificates;
use crate::context::RequestContext;
use crate::fault::ApiError;
use crate::listing;
use crate::lookup::{
    get_db_lb, get_db_listener, pool_protocol_ok, port_space, quota_limits, stats_of, strip_helper,
};
use crate::pagination::ListParams;
use crate::policy;
use crate::types::{Obj, listener::*, parse_body};

type Q = Query<Vec<(String, String)>>;

/// `[api_settings] allow_tls_terminated_listeners` / `allow_prometheus_listeners` = False:
/// 400 `The selected protocol is not allowed in this deployment: <protocol>` (a PROMETHEUS
/// listener with certificate refs counts as TLS: `PROMETHEUS with TLS`), as
/// octavia/api/v2/controllers/listener.py `_validate_create_listener`.
pub(crate) fn validate_enabled(
    cfg: &crate::ApiConfig,
    b: &Obj,
    protocol: &str,
) -> Result<(), ApiError> {
    let refs = b.str("default_tls_container_ref").is_some()
        || b.str_list("sni_container_refs")
            .is_some_and(|l| !l.is_empty());
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
pub(crate) fn validate_protocol(b: &Obj, protocol: &str) -> Result<(), ApiError> {
    rules::check_create(b, protocol)
}

/// The certificate part of listener.py `_validate_listener_PUT`, before the LB lock: the
/// given SNI/default refs are read; the client CA and CRL (given, else stored) too.
async fn validate_tls_put(
    st: &AppState,
    ctx: &RequestContext,
    b: &Obj,
    l: &ListenerRow,
) -> Result<(), ApiError> {
    let token = ctx.auth_token.as_deref();
    let mut tls_refs = b.str_list("sni_container_refs").unwrap_or_default();
    tls_refs.extend(b.str("default_tls_container_ref").filter(|r| !r.is_empty()));
    certificates::validate_tls_refs(st.cert_manager(), token, &tls_refs).await?;
    // A null in the body falls back to the stored ref, as the reference's truthiness test.
    let ca = b
        .str("client_ca_tls_container_ref")
        .filter(|r| !r.is_empty())
        .or_else(|| l.client_ca_tls_certificate_id.clone());
    let crl = b
        .str("client_crl_container_ref")
        .filter(|r| !r.is_empty())
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

/// The listener row a create writes — the POST and the graph create alike — PENDING_CREATE
/// and OFFLINE under load balancer `lb_id` of `project`, with a new id: WSME's defaults
/// (`connection_limit` -1 when left out and NULL when given `null`, `admin_state_up` true,
/// `client_authentication` NONE, HSTS flags false), the `[haproxy_amphora]` timeouts for
/// those left out or `null`, and on a TERMINATED_HTTPS listener the default TLS versions and
/// ALPN protocols ([`rules::DEFAULT_TLS_VERSIONS`], [`rules::DEFAULT_LISTENER_ALPN`]), as
/// octavia/db/prepare.py `create_listener` and listener.py `_validate_create_listener`.
/// Integers were range-checked by the schema; `peer_port` is the caller's.
pub(crate) fn new_row(
    b: &Obj,
    cfg: &crate::ApiConfig,
    project: &str,
    lb_id: &str,
    default_pool_id: Option<String>,
    peer_port: i32,
) -> ListenerRow {
    let protocol = b.str("protocol").unwrap_or_default();
    let tls = protocol == "TERMINATED_HTTPS";
    let int_or = |k: &str, d: i64| Some(i32::try_from(b.i64(k).unwrap_or(d)).unwrap_or(i32::MAX));
    let tls_default = |k: &str, d: &[&str]| b.str_list(k).or_else(|| tls.then(|| rules::owned(d)));
    ListenerRow {
        project_id: Some(project.to_string()),
        id: base::new_id(),
        name: b.str("name"),
        description: b.str("description"),
        protocol,
        protocol_port: i32::try_from(b.i64("protocol_port").unwrap_or_default())
            .unwrap_or_default(),
        connection_limit: if b.is_null("connection_limit") {
            None
        } else {
            int_or("connection_limit", -1)
        },
        load_balancer_id: Some(lb_id.to_string()),
        tls_certificate_id: b.str("default_tls_container_ref"),
        default_pool_id,
        provisioning_status: ProvisioningStatus::PendingCreate.into(),
        operating_status: OperatingStatus::Offline.into(),
        enabled: b.bool("admin_state_up").unwrap_or(true),
        peer_port: Some(peer_port),
        insert_headers: b
            .obj("insert_headers")
            .map(|h| crate::pickle::dumps_str_dict(&h.0)),
        timeout_client_data: int_or("timeout_client_data", cfg.timeout_client_data),
        timeout_member_connect: int_or("timeout_member_connect", cfg.timeout_member_connect),
        timeout_member_data: int_or("timeout_member_data", cfg.timeout_member_data),
        timeout_tcp_inspect: int_or("timeout_tcp_inspect", cfg.timeout_tcp_inspect),
        client_ca_tls_certificate_id: b.str("client_ca_tls_container_ref"),
        client_authentication: b
            .str("client_authentication")
            .unwrap_or_else(|| "NONE".into()),
        client_crl_container_id: b.str("client_crl_container_ref"),
        tls_ciphers: b.str("tls_ciphers"),
        tls_versions: base::join_list(tls_default("tls_versions", rules::DEFAULT_TLS_VERSIONS)),
        alpn_protocols: base::join_list(tls_default(
            "alpn_protocols",
            rules::DEFAULT_LISTENER_ALPN,
        )),
        hsts_max_age: b.i64("hsts_max_age").and_then(|v| i32::try_from(v).ok()),
        hsts_include_subdomains: Some(b.bool("hsts_include_subdomains").unwrap_or(false)),
        hsts_preload: Some(b.bool("hsts_preload").unwrap_or(false)),
        created_at: Some(octavia_db::now()),
        ..Default::default()
    }
}

/// Inserts a [`new_row`] and the collections `b` gives (SNI refs, `allowed_cidrs` with
/// repeats next to each other dropped, tags); true when `b` gave any of them.
pub(crate) async fn insert_new(
    tx: &mut octavia_db::Tx,
    row: &ListenerRow,
    b: &Obj,
) -> Result<bool, ApiError> {
    tx.insert(row).await?;
    let sni = b.str_list("sni_container_refs");
    let cidrs = b.str_list("allowed_cidrs");
    let tags = b.str_list("tags");
    let given = sni.is_some() || cidrs.is_some() || tags.is_some();
    if let Some(sni) = sni {
        tx.set_sni_refs(&row.id, &sni).await?;
    }
    if let Some(mut c) = cidrs {
        c.dedup();
        tx.set_listener_cidrs(&row.id, &c).await?;
    }
    if let Some(tags) = tags {
        tx.set_tags(&row.id, &tags).await?;
    }
    Ok(given)
}

/// `GET /v2/lbaas/listeners`.
pub async fn get_all(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    headers: HeaderMap,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    let params = ListParams::parse(&q, st.config().pagination_max_limit, st.config())?;
    let scope = policy::list_scope(&ctx, "listener", params.project_filter())?;
    let mut tx = st.db().begin_read().await?;
    let c = listing::Collection {
        spec: &listing::LISTENER,
        attrs: LISTENER_ATTRS,
        path: "/v2/lbaas/listeners",
        key: "listeners",
    };
    let conds = listing::project_scope(&scope);
    let render = base::render_listeners;
    if let Some(body) = listing::page(&st, &headers, &mut tx, &c, &params, conds, render).await? {
        return Ok(Json(body));
    }
    // the in-memory path (see `listing`)
    let rows: Vec<ListenerRow> = base::visible(&mut tx, &scope, vec![]).await?;
    let mut all = Vec::new();
    for r in &rows {
        let mut v = base::render_listener(&mut tx, r).await?;
        if let Some(o) = v.as_object_mut() {
            o.insert("loadbalancer_id".into(), json!(r.load_balancer_id));
        }
        all.push(v);
    }
    let mut body = base::collection(
        &st,
        &headers,
        "/v2/lbaas/listeners",
        "listeners",
        all,
        &params,
        LISTENER_ATTRS,
    )?;
    strip_helper(&mut body, "listeners", "loadbalancer_id");
    Ok(Json(body))
}

/// `GET /v2/lbaas/listeners/{id}`.
pub async fn get_one(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    let fields = base::check_get_query(&st, &q)?;
    let mut tx = st.db().begin_read().await?;
    let l = get_db_listener(&mut tx, &id).await?;
    policy::authorize(&ctx, "listener", "get_one", l.project_id.as_deref())?;
    Ok(Json(
        json!({"listener": base::select(base::render_listener(&mut tx, &l).await?, &fields)}),
    ))
}

/// `POST /v2/lbaas/listeners` → 201, listener PENDING_CREATE, LB PENDING_UPDATE.
pub async fn post(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Query(q): Q,
    body: Bytes,
) -> Result<Response, ApiError> {
    base::no_query(&q, &[])?;
    let b = parse_body(&body, "listener_", "listener", &LISTENER_POST)?;
    let protocol = b.str("protocol").unwrap_or_default();
    let port = b.i64("protocol_port").unwrap_or_default();
    let mut tx = st.db().begin().await?;
    // `loadbalancer_id: null` is looked up as Python's None: 404 `Load Balancer None not found.`
    let Some(lb_id) = b.str("loadbalancer_id") else {
        return Err(ApiError::not_found("Load Balancer", "None"));
    };
    let lb = get_db_lb(&mut tx, &lb_id).await?;
    let project = lb.project_id.clone().unwrap_or_default();
    policy::authorize(&ctx, "listener", "post", Some(&project))?;
    // `protocol: null`: the reference's insert fails on the protocol's foreign key → 400
    b.refuse_nulls(&["protocol"])?;
    validate_enabled(st.config(), &b, &protocol)?;
    validate_protocol(&b, &protocol)?;
    if protocol == "PROMETHEUS" && b.str("default_pool_id").is_some() {
        return Err(ApiError::BadRequest(
            "Protocol PROMETHEUS listeners cannot have child objects.".into(),
        ));
    }
    let pname = base::lb_provider(&lb);
    let driver = st.driver(&pname)?;
    if !ctx.noauth {
        tx.check_quota(&project, QuotaResource::Listener, 1, &quota_limits(&st))
            .await?;
    }
    tx.lock_lb_for_child(&lb_id, &[], ProvisioningStatus::PendingUpdate)
        .await?;
    // Certificates are read after the LB lock and before the duplicate-port check and the
    // provider (listener.py `_validate_create_listener`; seed 004 §5).
    let token = ctx.auth_token.as_deref();
    let mut tls_refs = b.str_list("sni_container_refs").unwrap_or_default();
    tls_refs.extend(b.str("default_tls_container_ref").filter(|r| !r.is_empty()));
    certificates::validate_tls_refs(st.cert_manager(), token, &tls_refs).await?;
    if let Some(ca) = b
        .str("client_ca_tls_container_ref")
        .filter(|r| !r.is_empty())
    {
        let crl = b.str("client_crl_container_ref").filter(|r| !r.is_empty());
        certificates::validate_client_ca_and_crl_refs(
            st.cert_manager(),
            token,
            &ca,
            crl.as_deref(),
        )
        .await?;
    }
    let existing: Vec<ListenerRow> = tx
        .list(&ListQuery::default().filter("load_balancer_id", lb_id.as_str()))
        .await?;
    if existing.iter().any(|l| {
        l.protocol_port as i64 == port
            && port_space(&l.protocol) == port_space(&protocol)
            && l.provisioning_status != ProvisioningStatus::Deleted
    }) {
        return Err(ApiError::Conflict(format!(
            "Another Listener on this Load Balancer is already using protocol {protocol} and protocol_port {port}"
        )));
    }
    if let Some(pid) = b.str("default_pool_id") {
        let pool: Option<PoolRow> = tx.find(&pid).await?;
        let pool = pool
            .filter(|p| {
                p.load_balancer_id.as_deref() == Some(lb_id.as_str())
                    && p.provisioning_status != ProvisioningStatus::Deleted
            })
            .ok_or_else(|| ApiError::not_found("Pool", &pid))?;
        if !pool_protocol_ok(&protocol, &pool.protocol) {
            return Err(ApiError::Validation(format!(
                "The pool protocol '{}' is invalid while the listener protocol is '{protocol}'.",
                pool.protocol
            )));
        }
    }
    let peer_port = octavia_db::Tx::peer_port_after(&existing);
    let row = new_row(
        &b,
        st.config(),
        &project,
        &lb_id,
        b.str("default_pool_id"),
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
    call_provider(
        &mut tx,
        &pname,
        driver.listener_create(base::listener_model_with(&row, &att)),
    )
    .await?;
    let body = base::render_listener_with(&row, att);
    tx.commit().await?;
    Ok((StatusCode::CREATED, Json(json!({"listener": body}))).into_response())
}

/// `PUT /v2/lbaas/listeners/{id}` → 200, listener and LB PENDING_UPDATE.
pub async fn put(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    base::no_query(&q, &[])?;
    let b = parse_body(&body, "listener_", "listener", &LISTENER_PUT)?;
    let mut tx = st.db().begin().await?;
    let l = get_db_listener(&mut tx, &id).await?;
    policy::authorize(&ctx, "listener", "put", l.project_id.as_deref())?;
    let lb = get_db_lb(&mut tx, l.load_balancer_id.as_deref().unwrap_or_default()).await?;
    rules::check_put(&b, &l)?;
    validate_tls_put(&st, &ctx, &b, &l).await?;
    let pname = base::lb_provider(&lb);
    let driver = st.driver(&pname)?;
    let old = base::listener_model(&mut tx, &l).await?;
    tx.lock_lb_for_child(
        &lb.id,
        std::slice::from_ref(&id),
        ProvisioningStatus::PendingUpdate,
    )
    .await?;
    if let Some(pid) = b.str("default_pool_id") {
        let pool: Option<PoolRow> = tx.find(&pid).await?;
        let pool = pool
            .filter(|p| {
                p.load_balancer_id == l.load_balancer_id
                    && p.provisioning_status != ProvisioningStatus::Deleted
            })
            .ok_or_else(|| ApiError::not_found("Pool", &pid))?;
        if !pool_protocol_ok(&l.protocol, &pool.protocol) {
            return Err(ApiError::Validation(format!(
                "The pool protocol '{}' is invalid while the listener protocol is '{}'.",
                pool.protocol, l.protocol
            )));
        }
    }
    let cfg = st.config();
    let mut new = provider::Listener {
        listener_id: id.clone(),
        ..Default::default()
    };
    let mut ch: Vec<(&str, SqlValue)> = Vec::new();
    let int_or = |k: &str, d: i64| -> Option<i32> {
        Some(i32::try_from(b.i64(k).unwrap_or(d)).unwrap_or(i32::MAX))
    };
    if b.has("name") {
        ch.push(("name", b.str("name").into()));
        new.name = Some(b.str("name").unwrap_or_default());
    }
    if b.has("description") {
        ch.push(("description", b.str("description").into()));
        new.description = Some(b.str("description").unwrap_or_default());
    }
    if let Some(a) = b.bool("admin_state_up") {
        ch.push(("enabled", a.into()));
        new.admin_state_up = Some(a);
    }
    if b.has("connection_limit") {
        let v = int_or("connection_limit", -1);
        ch.push(("connection_limit", v.into()));
        new.connection_limit = v.map(i64::from);
    }
    for (k, col, d) in [
        (
            "timeout_client_data",
            "timeout_client_data",
            cfg.timeout_client_data,
        ),
        (
            "timeout_member_connect",
            "timeout_member_connect",
            cfg.timeout_member_connect,
        ),
        (
            "timeout_member_data",
            "timeout_member_data",
            cfg.timeout_member_data,
        ),
        (
            "timeout_tcp_inspect",
            "timeout_tcp_inspect",
            cfg.timeout_tcp_inspect,
        ),
    ] {
        if b.has(k) {
            ch.push((col, int_or(k, d).into()));
        }
    }
    if b.has("default_pool_id") {
        ch.push(("default_pool_id", b.str("default_pool_id").into()));
        // null removes the pool: octavia-lib's None, distinct from Unset
        new.default_pool_id = Some(b.str("default_pool_id"));
    }
    if b.has("default_tls_container_ref") {
        ch.push((
            "tls_certificate_id",
            b.str("default_tls_container_ref").into(),
        ));
    }
    if b.has("insert_headers") {
        ch.push((
            "insert_headers",
            b.obj("insert_headers")
                .map(|h| crate::pickle::dumps_str_dict(&h.0))
                .into(),
        ));
    }
    if b.has("client_authentication") {
        ch.push((
            "client_authentication",
            b.str("client_authentication")
                .unwrap_or_else(|| "NONE".into())
                .into(),
        ));
    }
    if b.has("tls_ciphers") {
        ch.push(("tls_ciphers", b.str("tls_ciphers").into()));
    }
    // null resets to the configured default (listener.py `_set_default_on_none`)
    let or_default = |k: &str, d: &[&str]| b.str_list(k).unwrap_or_else(|| rules::owned(d));
    if b.has("tls_versions") {
        let v = or_default("tls_versions", rules::DEFAULT_TLS_VERSIONS);
        ch.push(("tls_versions", base::join_list(Some(v.clone())).into()));
        new.tls_versions = Some(v);
    }
    if b.has("alpn_protocols") {
        let v = or_default("alpn_protocols", rules::DEFAULT_LISTENER_ALPN);
        ch.push(("alpn_protocols", base::join_list(Some(v.clone())).into()));
        new.alpn_protocols = Some(v);
    }
    if b.has("hsts_max_age") {
        ch.push((
            "hsts_max_age",
            b.i64("hsts_max_age")
                .and_then(|v| i32::try_from(v).ok())
                .into(),
        ));
    }
    if b.has("hsts_include_subdomains") {
        ch.push((
            "hsts_include_subdomains",
            b.bool("hsts_include_subdomains").unwrap_or(false).into(),
        ));
    }
    if b.has("hsts_preload") {
        ch.push((
            "hsts_preload",
            b.bool("hsts_preload").unwrap_or(false).into(),
        ));
    }
    tx.update::<ListenerRow>(&id, &ch).await?;
    if b.has("sni_container_refs") {
        tx.set_sni_refs(&id, &b.str_list("sni_container_refs").unwrap_or_default())
            .await?;
    }
    if b.has("allowed_cidrs") {
        let cidrs = b.str_list("allowed_cidrs").unwrap_or_default();
        tx.set_listener_cidrs(&id, &cidrs).await?;
        // the driver sees the new list (the OVN provider refuses any: 501)
        new.allowed_cidrs = Some(cidrs);
    }
    if b.has("tags") {
        tx.set_tags(&id, &b.str_list("tags").unwrap_or_default())
            .await?;
    }
    call_provider(&mut tx, &pname, driver.listener_update(old, new)).await?;
    let l = get_db_listener(&mut tx, &id).await?;
    let body = base::render_listener(&mut tx, &l).await?;
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
    base::no_query(&q, &[])?;
    let mut tx = st.db().begin().await?;
    let l = get_db_listener(&mut tx, &id).await?;
    policy::authorize(&ctx, "listener", "delete", l.project_id.as_deref())?;
    let lb = get_db_lb(&mut tx, l.load_balancer_id.as_deref().unwrap_or_default()).await?;
    let pname = base::lb_provider(&lb);
    let driver = st.driver(&pname)?;
    let model = base::listener_model(&mut tx, &l).await?;
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
    base::no_query(&q, &[])?;
    let mut tx = st.db().begin_read().await?;
    let l = get_db_listener(&mut tx, &id).await?;
    policy::authorize(&ctx, "listener", "get_stats", l.project_id.as_deref())?;
    Ok(Json(stats_of(&mut tx, &[id]).await?))
}
