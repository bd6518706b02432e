//! `/v2/lbaas/pools`, as `octavia/api/v2/controllers/pool.py`.

pub(crate) mod body;
internal! {
    mod view;
}

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use octavia_db::{
    L7PolicyRow, ListQuery, ListenerRow, PoolRow, QuotaResource, SessionPersistenceRow, SqlValue,
};
use provider::{OperatingStatus, ProvisioningStatus};
use serde_json::{Value, json};

use crate::certificates;
use crate::context::RequestContext;
use crate::fault::ApiError;
use crate::lookup::{check_pool_protocol, get_db_lb, get_db_listener, get_db_pool, quota_limits};
use crate::policy;
use crate::provider_call::call_provider;
use crate::state::AppState;
use crate::target::{self, Provider, Target};
use crate::types::{Patch, Wsme, model_sent, put_sent};
use crate::{columns, list, provider_model, related};
use body::*;

type Q = Query<Vec<(String, String)>>;

/// `[api_settings] default_pool_ciphers` (OWASP suite B, octavia/common/constants.py).
pub const DEFAULT_POOL_CIPHERS: &str = "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384:DHE-RSA-CHACHA20-POLY1305";

/// The field rules of a new pool of `protocol` (pool.py `post`, also the graph create's
/// `_graph_create`): its session persistence ([`validate_sp`]), with `tls_enabled` its TLS
/// version and ALPN lists (`check_tls_version_list`, `check_alpn_protocols`) and 400 `A CA
/// certificate reference is required to specify a revocation list.` for a CRL without a CA.
pub(crate) fn validate_create_fields(b: &PoolPost, protocol: &str) -> Result<(), ApiError> {
    use crate::listener::rules::{check_alpn, check_tls_versions};
    if let Some(sp) = &b.session_persistence {
        validate_sp(sp, protocol, "UDP and SCTP")?;
    }
    if b.tls_enabled == Some(true) {
        check_tls_versions(b.tls_versions.as_deref().map(Vec::as_slice))?;
        check_alpn(b.alpn_protocols.as_deref().map(Vec::as_slice))?;
    }
    if b.crl_container_ref.is_some() && b.ca_tls_container_ref.is_none() {
        return Err(ApiError::Validation(
            "A CA certificate reference is required to specify a revocation list.".into(),
        ));
    }
    Ok(())
}

/// Session persistence checks: the UDP/SCTP rules of `_validate_pool_request_for_udp_sctp`,
/// the timeout/granularity rule for other protocols (`udp_text` differs between POST and PUT
/// in the reference) and `validate.check_session_persistence`.
pub(crate) fn validate_sp(
    sp: &SessionPersistence,
    protocol: &str,
    udp_text: &str,
) -> Result<(), ApiError> {
    let ty = sp.r#type.value().cloned().unwrap_or_default();
    let cookie = sp.cookie_name.value();
    if matches!(protocol, "UDP" | "SCTP") {
        if ty == "SOURCE_IP" && cookie.is_some() {
            return Err(ApiError::Validation("session_persistence SOURCE_IP type for UDP and SCTP protocols only accepts: type, persistence_timeout, persistence_granularity.".into()));
        }
        if cookie.is_some() {
            return Err(ApiError::Validation(
                "Cookie names are not supported for UDP/SCTP pools.".into(),
            ));
        }
        if matches!(ty.as_str(), "HTTP_COOKIE" | "APP_COOKIE") {
            return Err(ApiError::Validation(format!(
                "Session persistence of type {ty} is not supported for UDP/SCTP protocol pools."
            )));
        }
    } else if sp.persistence_timeout.value().is_some_and(|t| *t != 0)
        || sp
            .persistence_granularity
            .value()
            .is_some_and(|g| !g.is_empty())
    {
        return Err(ApiError::Validation(format!(
            "persistence_timeout and persistence_granularity is only for {udp_text} protocol pools."
        )));
    }
    if let Some(c) = cookie {
        if ty != "APP_COOKIE" {
            return Err(ApiError::Validation("Field \"cookie_name\" can only be specified with session persistence of type \"APP_COOKIE\".".into()));
        }
        // validate.py's bad-cookie character class.
        let bad = |ch: char| {
            let c = ch as u32;
            c <= 0x20
                || c == 0x22
                || (0x28..=0x29).contains(&c)
                || c == 0x2c
                || c == 0x2f
                || (0x3a..=0x40).contains(&c)
                || (0x5b..=0x5d).contains(&c)
                || c == 0x7b
                || c == 0x7d
                || c >= 0x7f
        };
        if c.chars().any(bad) {
            return Err(ApiError::Validation(
                "Supplied \"cookie_name\" is invalid.".into(),
            ));
        }
    }
    if ty == "APP_COOKIE" && cookie.is_none() {
        return Err(ApiError::Validation("Field \"cookie_name\" must be specified when using the \"APP_COOKIE\" session persistence type.".into()));
    }
    Ok(())
}

/// The session persistence row of a request object.
/// `default_pool_tls_versions` (octavia.conf default), on a `tls_enabled` pool created
/// without `tls_versions` or updated with `null`.
pub const DEFAULT_POOL_TLS_VERSIONS: &[&str] = crate::listener::rules::DEFAULT_TLS_VERSIONS;
/// The ALPN protocols of a `tls_enabled` pool created without `alpn_protocols`.
pub const DEFAULT_POOL_ALPN: &[&str] = crate::listener::rules::DEFAULT_LISTENER_ALPN;

/// The pool row a create writes — the POST and the graph create alike — PENDING_CREATE and
/// OFFLINE under load balancer `lb_id` of `project`, with a new id: the attributes' columns as
/// [`PoolPost`] declares them, and on a `tls_enabled` pool the default ciphers, TLS versions and ALPN
/// protocols ([`DEFAULT_POOL_CIPHERS`], [`DEFAULT_POOL_TLS_VERSIONS`], [`DEFAULT_POOL_ALPN`])
/// for those left out or `null`, as octavia/db/prepare.py `create_pool`.
pub(crate) fn new_row(b: &PoolPost, project: &str, lb_id: &str) -> PoolRow {
    let mut row = PoolRow {
        project_id: Some(project.to_string()),
        id: columns::new_id(),
        operating_status: OperatingStatus::Offline,
        load_balancer_id: Some(lb_id.to_string()),
        provisioning_status: ProvisioningStatus::PendingCreate,
        created_at: Some(octavia_db::now()),
        ..Default::default()
    };
    b.write_row(&mut row);
    let tls = row.tls_enabled;
    let tls_default = |v: &Option<crate::types::Strings>, d: &[&str]| {
        v.as_ref()
            .map(|l| l.0.clone())
            .or_else(|| tls.then(|| crate::listener::rules::owned(d)))
    };
    row.tls_ciphers = b
        .tls_ciphers
        .clone()
        .or_else(|| tls.then(|| DEFAULT_POOL_CIPHERS.to_string()));
    row.tls_versions = columns::join_list(tls_default(&b.tls_versions, DEFAULT_POOL_TLS_VERSIONS));
    row.alpn_protocols = columns::join_list(tls_default(&b.alpn_protocols, DEFAULT_POOL_ALPN));
    row
}

/// The `session_persistence` row of pool `pool_id` for the object `sp` with type `ty`.
pub(crate) fn sp_row(pool_id: &str, sp: &SessionPersistence, ty: String) -> SessionPersistenceRow {
    SessionPersistenceRow {
        pool_id: pool_id.to_string(),
        r#type: ty,
        cookie_name: sp.cookie_name.value().cloned(),
        persistence_timeout: sp
            .persistence_timeout
            .value()
            .and_then(|v| i32::try_from(*v).ok()),
        persistence_granularity: sp.persistence_granularity.value().cloned(),
    }
}

/// Inserts the [`new_row`] of `b` under load balancer `lb_id` of `project`, its session
/// persistence row and its tags — the POST and the graph create alike; returns both rows.
pub(crate) async fn insert_new(
    tx: &mut octavia_db::Tx,
    b: &PoolPost,
    project: &str,
    lb_id: &str,
) -> Result<(PoolRow, Option<SessionPersistenceRow>), ApiError> {
    let row = new_row(b, project, lb_id);
    tx.insert(&row).await?;
    let sp = b
        .session_persistence
        .as_ref()
        .map(|sp| sp_row(&row.id, sp, sp.r#type.value().cloned().unwrap_or_default()));
    if let Some(r) = &sp {
        tx.insert(r).await?;
    }
    if let Some(tags) = &b.tags {
        tx.set_tags(&row.id, tags).await?;
    }
    Ok((row, sp))
}

/// The pool's TLS certificate ref as a list (none when unset or empty).
fn tls_refs(r: Option<&String>) -> Vec<String> {
    r.filter(|r| !r.is_empty()).cloned().into_iter().collect()
}

/// `GET /v2/lbaas/pools` ([`list::project_list`]; without `fields=` the page is written as
/// text, [`crate::listing::page_text`]).
pub async fn get_all(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    headers: HeaderMap,
    Query(q): Q,
) -> Result<axum::response::Response, ApiError> {
    list::project_list::<PoolRow>(&st, &ctx, &headers, &q, "pool").await
}


/// `GET /v2/lbaas/pools/{id}`.
pub async fn get_one(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    let fields = list::check_get_query(&st, &q)?;
    let mut tx = st.db().begin_read().await?;
    let p = get_db_pool(&mut tx, &id).await?;
    policy::authorize(&ctx, "pool", "get_one", p.project_id.as_deref())?;
    Ok(Json(
        json!({"pool": list::select(view::render_pool(&mut tx, &p).await?, &fields)}),
    ))
}

/// The listener (when `listener_id` is sent; 400 `InvalidSubresource` when unknown) and the
/// load balancer (`loadbalancer_id`, else the listener's; 400 when neither is sent) a pool
/// create attaches to.
async fn create_target(
    tx: &mut octavia_db::Tx,
    b: &PoolPost,
) -> Result<(Option<ListenerRow>, octavia_db::LoadBalancerRow), ApiError> {
    let listener = match &b.listener_id {
        Some(lid) => {
            Some(
                get_db_listener(tx, lid)
                    .await
                    .map_err(|_| ApiError::InvalidSubresource {
                        resource: "Listener".into(),
                        id: lid.clone(),
                    })?,
            )
        }
        None => None,
    };
    let lb_id = match (&b.loadbalancer_id, &listener) {
        (Some(l), _) => l.clone(),
        (None, Some(l)) => l.load_balancer_id.clone().unwrap_or_default(),
        (None, None) => {
            return Err(ApiError::Validation(
                "Must provide at least one of: loadbalancer_id, listener_id".into(),
            ));
        }
    };
    Ok((listener, get_db_lb(tx, &lb_id).await?))
}

/// A listener can take a new `protocol` pool: it is on load balancer `lb_id` (400), not a
/// PROMETHEUS listener (400), and the protocols combine ([`check_pool_protocol`]).
fn listener_takes_pool(l: &ListenerRow, lb_id: &str, protocol: &str) -> Result<(), ApiError> {
    if l.load_balancer_id.as_deref() != Some(lb_id) {
        return Err(ApiError::Validation(format!(
            "Listener {} is not on Load Balancer {lb_id}.",
            l.id
        )));
    }
    if l.protocol == "PROMETHEUS" {
        return Err(ApiError::BadRequest(
            "Protocol PROMETHEUS listeners cannot have child objects.".into(),
        ));
    }
    check_pool_protocol(&l.protocol, protocol)
}

/// `POST /v2/lbaas/pools` → 201, pool PENDING_CREATE, LB (+ listener) PENDING_UPDATE; with
/// `listener_id` the listener's `default_pool_id` is set in the same transaction.
///
/// Keel checks the listener/pool protocol pair whenever a listener is named (the reference
/// skips it when `loadbalancer_id` is also given) and answers 400 `Listener <id> not found.`
/// for an unknown `listener_id` (a 500 in the reference).
pub async fn post(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Query(q): Q,
    body: Wsme<PoolPost>,
) -> Result<Response, ApiError> {
    list::no_query(&q, &[])?;
    let b = body.parse()?;
    let protocol = b.protocol.clone().unwrap_or_default();
    let mut tx = st.db().begin().await?;
    let (listener, lb) = create_target(&mut tx, &b).await?;
    let lb_id = lb.id.clone();
    let project = lb.project_id.clone().unwrap_or_default();
    policy::authorize(&ctx, "pool", "post", Some(&project))?;
    if let Some(l) = &listener {
        listener_takes_pool(l, &lb_id, &protocol)?;
    }
    validate_create_fields(&b, &protocol)?;
    let Provider {
        name: pname,
        driver,
    } = Provider::of(&st, &lb)?;
    if !ctx.noauth {
        tx.check_quota(&project, QuotaResource::Pool, 1, &quota_limits(&st))
            .await?;
    }
    if listener
        .as_ref()
        .is_some_and(|l| l.default_pool_id.is_some())
    {
        return Err(ApiError::Conflict(
            "This listener already has a default pool".into(),
        ));
    }
    let listener_ids: Vec<String> = listener.iter().map(|l| l.id.clone()).collect();
    tx.lock_lb_for_child(&lb_id, &listener_ids, ProvisioningStatus::PendingUpdate)
        .await?;
    // Certificates are read after the LB lock, before the provider (pool.py
    // `_validate_create_pool`; seed 003 §5).
    let token = ctx.auth_token.as_deref();
    validate_tls_create(&st, token, &b).await?;
    let (row, sp_row) = insert_new(&mut tx, &b, &project, &lb_id).await?;
    let id = row.id.clone();
    // tags read back only if given
    let tags = match &b.tags {
        Some(_) => tx.tags(&id).await?,
        None => Vec::new(),
    };
    if let Some(l) = &listener {
        tx.update::<ListenerRow>(&l.id, &[("default_pool_id", id.as_str().into())])
            .await?;
    }
    // A new pool has no members or monitor yet, its one listener is the request's: the model
    // and the response come from what was just written, with no re-read.
    let listener_id = listener.as_ref().map(|l| l.id.clone());
    let model = provider_model::pool_model_with(
        &row,
        sp_row.as_ref(),
        listener_id.clone(),
        Vec::new(),
        None,
    );
    call_provider(&mut tx, &pname, driver.pool_create(model)).await?;
    let att = octavia_db::PoolAttachments {
        listener_ids: listener_id.into_iter().collect(),
        tags,
        ..Default::default()
    };
    let body = view::render_pool_with(&row, sp_row.as_ref(), att);
    tx.commit().await?;
    Ok((StatusCode::CREATED, Json(json!({"pool": body}))).into_response())
}

/// The certificates of a create, read after the LB lock and before the provider (pool.py
/// `_validate_create_pool`; seed 003 §5): the TLS ref, then the CA with its CRL when a CA is
/// given. The POST's and the graph create's.
pub(crate) async fn validate_tls_create(
    st: &AppState,
    token: Option<&str>,
    b: &PoolPost,
) -> Result<(), ApiError> {
    let refs = tls_refs(b.tls_container_ref.as_ref());
    certificates::validate_tls_refs(st.cert_manager(), token, &refs).await?;
    if let Some(ca) = b.ca_tls_container_ref.as_ref().filter(|r| !r.is_empty()) {
        let crl = b.crl_container_ref.as_deref().filter(|r| !r.is_empty());
        certificates::validate_client_ca_and_crl_refs(st.cert_manager(), token, ca, crl).await?;
    }
    Ok(())
}

/// The column changes of a PUT (after `provisioning_status`) and the attributes of the
/// driver's new model: each attribute sent is written, a `null` as [`PoolPut`] declares it;
/// a `null` `tls_ciphers` / `tls_versions` resets them to their defaults, `alpn_protocols`
/// is cleared (pool.py `put`).
fn put_changes(b: &PoolPut, new: &mut provider::Pool) -> Vec<(&'static str, SqlValue)> {
    let mut ch: Vec<(&'static str, SqlValue)> = vec![(
        "provisioning_status",
        ProvisioningStatus::PendingUpdate.into(),
    )];
    let owned = crate::listener::rules::owned;
    ch.extend(b.column_changes());
    let r = b.nulls_resolved();
    model_sent!(r, new;
        name: |v| Some(v.cloned().unwrap_or_default());
        description: |v| Some(v.cloned().unwrap_or_default());
        admin_state_up: |v| v.copied();
        lb_algorithm: |v| v.cloned();
        tls_container_ref: |v| v.cloned();
        ca_tls_container_ref: |v| v.cloned();
        crl_container_ref: |v| v.cloned();
        tls_enabled: |v| v.copied();
    );
    put_sent!(b, ch, new;
        tls_ciphers: |v| v.map_or_else(|| DEFAULT_POOL_CIPHERS.to_string(), String::clone)
            => v.as_str(), Some(v);
        tls_versions: |v| v.map_or_else(|| owned(DEFAULT_POOL_TLS_VERSIONS), |l| l.0.clone())
            => columns::join_list(Some(v.clone())), Some(v);
        alpn_protocols: |v| v.map(|l| l.0.clone()) => columns::join_list(v.clone()), v;
    );
    ch
}

/// The session persistence a PUT leaves: `(sent object, its type)`. A partial object without
/// `type` keeps the stored type (pool.py put), `{}` included: it keeps the type and clears
/// the rest; `{}` with nothing stored removes nothing. 400 `Invalid session_persistence
/// provided.` when no type results, and [`validate_sp`]'s refusals.
fn put_session_persistence<'b>(
    b: &'b PoolPut,
    p: &PoolRow,
    stored: Option<&SessionPersistenceRow>,
) -> Result<(Option<&'b SessionPersistence>, Option<String>), ApiError> {
    let sp = b
        .session_persistence
        .value()
        .filter(|o| !o.is_empty() || stored.is_some());
    let sp_type = sp.and_then(|o| {
        o.r#type
            .value()
            .cloned()
            .or_else(|| stored.map(|s| s.r#type.clone()))
    });
    if let Some(o) = sp {
        let mut merged = o.clone();
        if let Some(t) = &sp_type {
            merged.r#type = Patch::Value(t.clone());
        }
        validate_sp(&merged, &p.protocol, "UDP")?;
        if sp_type.is_none() {
            return Err(ApiError::Validation(
                "Invalid session_persistence provided.".into(),
            ));
        }
    }
    Ok((sp, sp_type))
}

/// pool.py `_validate_pool_PUT`'s TLS part, before the LB lock: the sent `tls_versions` and
/// `alpn_protocols`, the CA/CRL pairing (400 when a CRL would be left without a CA), then the
/// sent TLS ref and the CA (sent, else stored) with the CRL in the certificate manager.
async fn put_tls_checks(
    st: &AppState,
    ctx: &RequestContext,
    b: &PoolPut,
    p: &PoolRow,
) -> Result<(), ApiError> {
    use crate::listener::rules::{check_alpn, check_tls_versions};
    if b.tls_versions.given() {
        check_tls_versions(b.tls_versions.value().map(|v| v.as_slice()))?;
    }
    if b.alpn_protocols.given() {
        check_alpn(b.alpn_protocols.value().map(|v| v.as_slice()))?;
    }
    let ca = b
        .ca_tls_container_ref
        .sent()
        .map_or_else(|| p.ca_tls_certificate_id.clone(), |v| v.cloned());
    let crl = b
        .crl_container_ref
        .sent()
        .map_or_else(|| p.crl_container_id.clone(), |v| v.cloned());
    if crl.is_some() && ca.is_none() {
        let text = if b.ca_tls_container_ref.given() && p.ca_tls_certificate_id.is_some() {
            "A CA reference cannot be removed when a certificate revocation list is present."
        } else {
            "A CA reference is required to specify a certificate revocation list."
        };
        return Err(ApiError::Validation(text.into()));
    }
    let token = ctx.auth_token.as_deref();
    let tls_refs = tls_refs(b.tls_container_ref.value());
    certificates::validate_tls_refs(st.cert_manager(), token, &tls_refs).await?;
    if let Some(ca) = ca.as_deref().filter(|r| !r.is_empty()) {
        let crl = crl.as_deref().filter(|r| !r.is_empty());
        certificates::validate_client_ca_and_crl_refs(st.cert_manager(), token, ca, crl).await?;
    }
    Ok(())
}

/// Writes a sent `session_persistence` (updating the stored row or inserting one; removing it
/// for `null`) and returns the provider's view of it (`null` when removed).
async fn write_session_persistence(
    tx: &mut octavia_db::Tx,
    id: &str,
    sp: Option<(&SessionPersistence, String)>,
    stored: bool,
) -> Result<Value, ApiError> {
    let Some((o, ty)) = sp else {
        tx.delete::<SessionPersistenceRow>(id).await?;
        return Ok(Value::Null);
    };
    let row = sp_row(id, o, ty);
    if stored {
        tx.update::<SessionPersistenceRow>(
            id,
            &[
                ("type", row.r#type.as_str().into()),
                ("cookie_name", row.cookie_name.clone().into()),
                ("persistence_timeout", row.persistence_timeout.into()),
                (
                    "persistence_granularity",
                    row.persistence_granularity.clone().into(),
                ),
            ],
        )
        .await?;
    } else {
        tx.insert(&row).await?;
    }
    Ok(provider_model::sp_model(&row))
}

/// `PUT /v2/lbaas/pools/{id}` → 200, pool, its listeners and the LB PENDING_UPDATE.
pub async fn put(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
    body: Wsme<PoolPut>,
) -> Result<Json<Value>, ApiError> {
    list::no_query(&q, &[])?;
    let b = body.parse()?;
    let mut tx = st.db().begin().await?;
    let Target { row: p, lb, .. } = target::pool(&mut tx, &ctx, &id, "put").await?;
    // no NULL in these columns: the reference passes the `null` on (the OVN provider answers
    // 501 `does not support None algorithm`, its update a 500 for `tls_enabled`)
    b.lb_algorithm.refuse_null("lb_algorithm")?;
    b.tls_enabled.refuse_null("tls_enabled")?;
    let stored_sp: Option<SessionPersistenceRow> = tx.find(&id).await?;
    let (sp, sp_type) = put_session_persistence(&b, &p, stored_sp.as_ref())?;
    put_tls_checks(&st, &ctx, &b, &p).await?;
    let Provider {
        name: pname,
        driver,
    } = Provider::of(&st, &lb)?;
    let listener_ids: Vec<String> = related::pool_listeners(&mut tx, &id)
        .await?
        .into_iter()
        .map(|l| l.id)
        .collect();
    let mut old = provider_model::pool_model(&mut tx, &p).await?;
    // pool.py `put` reads the stored persistence (so the ORM object the original pool is
    // converted from holds it, `null` when none) only to complete a sent one without `type`
    old.session_persistence = if b
        .session_persistence
        .value()
        .is_some_and(|o| o.r#type.value().is_none_or(String::is_empty))
    {
        Some(old.session_persistence.unwrap_or(Value::Null))
    } else {
        None
    };
    tx.lock_lb_for_child(&lb.id, &listener_ids, ProvisioningStatus::PendingUpdate)
        .await?;
    let mut new = provider::Pool {
        pool_id: id.clone(),
        ..Default::default()
    };
    let ch = put_changes(&b, &mut new);
    tx.update::<PoolRow>(&id, &ch).await?;
    if b.session_persistence.given() {
        new.session_persistence = Some(
            write_session_persistence(&mut tx, &id, sp.zip(sp_type), stored_sp.is_some()).await?,
        );
    }
    if let Some(tags) = b.tags.sent() {
        tx.set_tags(&id, tags.map_or(&[][..], |l| l.as_slice()))
            .await?;
    }
    call_provider(&mut tx, &pname, driver.pool_update(old, new)).await?;
    let p = get_db_pool(&mut tx, &id).await?;
    let body = view::render_pool(&mut tx, &p).await?;
    tx.commit().await?;
    Ok(Json(json!({"pool": body})))
}

/// `DELETE /v2/lbaas/pools/{id}` → 204, pool PENDING_DELETE, its listeners and LB PENDING_UPDATE.
/// 409 `Pool <id> is in use by L7 policy <l7policy_id>` while an L7 policy redirects to it.
pub async fn delete(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
) -> Result<StatusCode, ApiError> {
    list::no_query(&q, &[])?;
    let mut tx = st.db().begin().await?;
    let Target { row: p, lb, .. } = target::pool(&mut tx, &ctx, &id, "delete").await?;
    let policies: Vec<L7PolicyRow> = tx
        .list(&ListQuery::default().filter("redirect_pool_id", id.as_str()))
        .await?;
    if let Some(l7) = policies.first() {
        return Err(ApiError::Conflict(format!(
            "Pool {id} is in use by L7 policy {}",
            l7.id
        )));
    }
    let Provider {
        name: pname,
        driver,
    } = Provider::of(&st, &lb)?;
    let listener_ids: Vec<String> = related::pool_listeners(&mut tx, &id)
        .await?
        .into_iter()
        .map(|l| l.id)
        .collect();
    let model = provider_model::pool_model(&mut tx, &p).await?;
    tx.lock_lb_for_child(&lb.id, &listener_ids, ProvisioningStatus::PendingUpdate)
        .await?;
    tx.set_provisioning_status::<PoolRow>(&id, ProvisioningStatus::PendingDelete)
        .await?;
    call_provider(&mut tx, &pname, driver.pool_delete(model)).await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The routes of pools, as `octavia/api/v2/controllers/pool.py` serves them; [`crate::router`]
/// merges them under its layers.
pub(crate) fn routes() -> axum::Router<AppState> {
    use axum::routing::get;
    axum::Router::new()
        .route("/v2/lbaas/pools", get(get_all).post(post))
        .route("/v2/lbaas/pools/{id}", get(get_one).put(put).delete(delete))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn o(v: Value) -> SessionPersistence {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn session_persistence_rules() {
        let ok =
            |v: Value, p: &str| validate_sp(&o(v), p, "UDP and SCTP").map_err(|e| e.to_string());
        assert!(ok(json!({"type": "SOURCE_IP"}), "TCP").is_ok());
        assert!(ok(json!({"type": "APP_COOKIE", "cookie_name": "c1"}), "HTTP").is_ok());
        assert_eq!(
            ok(json!({"type": "APP_COOKIE"}), "HTTP").unwrap_err(),
            "Validation failure: Field \"cookie_name\" must be specified when using the \"APP_COOKIE\" session persistence type."
        );
        assert_eq!(
            ok(json!({"type": "HTTP_COOKIE", "cookie_name": "c"}), "HTTP").unwrap_err(),
            "Validation failure: Field \"cookie_name\" can only be specified with session persistence of type \"APP_COOKIE\"."
        );
        assert_eq!(
            ok(json!({"type": "APP_COOKIE", "cookie_name": "a:b"}), "HTTP").unwrap_err(),
            "Validation failure: Supplied \"cookie_name\" is invalid."
        );
        assert_eq!(
            ok(
                json!({"type": "SOURCE_IP", "persistence_timeout": 5}),
                "TCP"
            )
            .unwrap_err(),
            "Validation failure: persistence_timeout and persistence_granularity is only for UDP and SCTP protocol pools."
        );
        assert!(
            ok(
                json!({"type": "SOURCE_IP", "persistence_timeout": 5}),
                "UDP"
            )
            .is_ok()
        );
        assert_eq!(
            ok(json!({"type": "HTTP_COOKIE"}), "UDP").unwrap_err(),
            "Validation failure: Session persistence of type HTTP_COOKIE is not supported for UDP/SCTP protocol pools."
        );
    }
}
