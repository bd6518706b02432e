//! `/v2/lbaas/l7policies`, as `octavia/api/v2/controllers/l7policy.py`,
//! with `validate.sanitize_l7policy_api_args` and the position handling of
//! `L7PolicyRepository` (octavia/db/repositories.py: append, then move; positions 1..n).

pub(crate) mod body;
internal! {
    mod view;
}

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use octavia_db::{L7PolicyRow, ListenerRow, PoolRow, QuotaResource, SqlValue, Tx};
use provider::{OperatingStatus, ProvisioningStatus};
use serde_json::{Value, json};

use crate::context::RequestContext;
use crate::fault::ApiError;
use crate::l7rule::body::L7RulePost;
use crate::l7rule::{self, MAX_RULES_PER_POLICY};
use crate::lookup::{
    get_db_l7policy, get_db_lb, get_db_listener, get_db_pool, lock_lb_and_listener,
    pool_protocol_ok, quota_limits,
};
use crate::policy;
use crate::provider_call::call_provider;
use crate::state::AppState;
use crate::types::{Patch, Wsme, model_sent};
use crate::{columns, list, provider_call, target};
use body::*;
pub use view::L7POLICY_ATTRS;
use view::render_policy;

type Q = Query<Vec<(String, String)>>;

impl L7PolicyPost {
    /// The action and redirect attributes, as sanitize reads them.
    pub fn redirect(&self) -> Redirect {
        Redirect::of(
            &self.action,
            &self.redirect_pool_id,
            &self.redirect_url,
            &self.redirect_prefix,
            &self.redirect_http_code,
        )
    }
    /// The inline rules, `null` items skipped.
    pub fn rules(&self) -> Vec<&L7RulePost> {
        self.rules.iter().flatten().flatten().collect()
    }
}

impl L7PolicyPut {
    /// The action and redirect attributes, as sanitize reads them.
    pub fn redirect(&self) -> Redirect {
        Redirect::of(
            &self.action,
            &self.redirect_pool_id,
            &self.redirect_url,
            &self.redirect_prefix,
            &self.redirect_http_code,
        )
    }
    /// True when an attribute other than the action and redirect ones was sent.
    fn other_given(&self) -> bool {
        self.name.given()
            || self.description.given()
            || self.admin_state_up.given()
            || self.position.given()
            || self.tags.given()
    }
}

/// The parsed-body check WSME does for `Enum(int, …)` (`redirect_http_code`).
fn check_types(code: &Patch<i64>) -> Result<(), ApiError> {
    if let Some(&c) = code.value()
        && !REDIRECT_CODES.contains(&c)
    {
        return Err(ApiError::invalid_input(
            "redirect_http_code",
            c.to_string(),
            "Value should be one of: 301, 302, 303, 307, 308",
        ));
    }
    Ok(())
}

/// The action and redirect attributes of a policy body, as `sanitize_l7policy_api_args` sees
/// its dict: each left out, `null` (a key present with `None`) or a value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Redirect {
    pub action: Patch<String>,
    pub redirect_pool_id: Patch<String>,
    pub redirect_url: Patch<String>,
    pub redirect_prefix: Patch<String>,
    pub redirect_http_code: Patch<i64>,
}

impl Redirect {
    /// The five attributes of a POST or PUT body, copied (both bodies' `redirect`).
    fn of(
        action: &Patch<String>,
        redirect_pool_id: &Patch<String>,
        redirect_url: &Patch<String>,
        redirect_prefix: &Patch<String>,
        redirect_http_code: &Patch<i64>,
    ) -> Self {
        Self {
            action: action.clone(),
            redirect_pool_id: redirect_pool_id.clone(),
            redirect_url: redirect_url.clone(),
            redirect_prefix: redirect_prefix.clone(),
            redirect_http_code: redirect_http_code.clone(),
        }
    }
    /// `to_dict(render_unsets=True)` of a create: every redirect attribute present (`null`
    /// when left out), `action` as sent.
    pub(crate) fn render_unsets(mut self) -> Self {
        for p in [
            &mut self.redirect_pool_id,
            &mut self.redirect_url,
            &mut self.redirect_prefix,
        ] {
            if !p.given() {
                *p = Patch::Null;
            }
        }
        if !self.redirect_http_code.given() {
            self.redirect_http_code = Patch::Null;
        }
        self
    }
    fn given(&self) -> bool {
        self.action.given()
            || self.redirect_pool_id.given()
            || self.redirect_url.given()
            || self.redirect_prefix.given()
            || self.redirect_http_code.given()
    }
}

/// Python truthiness of a sent string.
fn truthy(v: &Patch<String>) -> bool {
    v.value().is_some_and(|s| !s.is_empty())
}

fn args(msg: &str) -> ApiError {
    ApiError::BadRequest(format!("Invalid L7 Policy arguments: {msg}"))
}

/// `sanitize_l7policy_api_args`: make action and redirect fields consistent; `other_given`
/// says whether the body sent any other attribute (name, tags…).
///
/// The given redirect fields win over `action` (pool → REDIRECT_TO_POOL, url →
/// REDIRECT_TO_URL, prefix → REDIRECT_PREFIX), REJECT nulls the url and pool, URL redirects
/// default `redirect_http_code` to 302. Errors (400): `Invalid L7 Policy arguments:
/// redirect_url must not be None` (and the pool / prefix variants), `… Cannot specify
/// redirect_pool_id and redirect_url or redirect_prefix at the same time`, `… Invalid update
/// options` (nothing left), `Invalid L7 Policy action specified: None` (create without action).
pub fn sanitize(d: &mut Redirect, create: bool, other_given: bool) -> Result<(), ApiError> {
    if d.action.given() {
        match d.action.value().map(String::as_str) {
            Some("REJECT") => {
                d.redirect_url = Patch::Null;
                d.redirect_pool_id = Patch::Null;
            }
            Some("REDIRECT_TO_URL") => {
                if !truthy(&d.redirect_url) {
                    return Err(args("redirect_url must not be None"));
                }
                d.redirect_pool_id = Patch::Null;
            }
            Some("REDIRECT_TO_POOL") => {
                if !truthy(&d.redirect_pool_id) {
                    return Err(args("redirect_pool_id or redirect_pool must not be None"));
                }
                d.redirect_url = Patch::Null;
            }
            Some("REDIRECT_PREFIX") => {
                if !truthy(&d.redirect_prefix) {
                    return Err(args("redirect_prefix must not be None"));
                }
            }
            other => {
                return Err(ApiError::BadRequest(format!(
                    "Invalid L7 Policy action specified: {}",
                    other.unwrap_or("None")
                )));
            }
        }
    }
    if truthy(&d.redirect_pool_id) && (truthy(&d.redirect_url) || truthy(&d.redirect_prefix)) {
        return Err(args(
            "Cannot specify redirect_pool_id and redirect_url or redirect_prefix at the same time",
        ));
    }
    if truthy(&d.redirect_pool_id) {
        d.action = Patch::Value("REDIRECT_TO_POOL".into());
        d.redirect_url = Patch::Null;
        d.redirect_prefix = Patch::Null;
        d.redirect_http_code = Patch::Null;
    }
    for (url, action) in [(true, "REDIRECT_TO_URL"), (false, "REDIRECT_PREFIX")] {
        let given = if url {
            &d.redirect_url
        } else {
            &d.redirect_prefix
        };
        if truthy(given) {
            d.action = Patch::Value(action.into());
            d.redirect_pool_id = Patch::Null;
            if url {
                d.redirect_prefix = Patch::Null;
            } else {
                d.redirect_url = Patch::Null;
            }
            if d.redirect_http_code.value().is_none_or(|c| *c == 0) {
                d.redirect_http_code = Patch::Value(302);
            }
        }
    }
    if create && !d.action.given() {
        return Err(ApiError::BadRequest(
            "Invalid L7 Policy action specified: None".into(),
        ));
    }
    if !d.given() && !other_given {
        return Err(args("Invalid update options"));
    }
    Ok(())
}

/// Provider `L7Policy` of a row with its rules (`db_l7policy_to_provider_l7policy`).
pub async fn policy_model(tx: &mut Tx, p: &L7PolicyRow) -> Result<provider::L7Policy, ApiError> {
    let rules = l7rule::policy_rules(tx, &p.id).await?;
    Ok(provider::L7Policy {
        l7policy_id: p.id.clone(),
        listener_id: Some(p.listener_id.clone()),
        name: p.name.clone(),
        description: p.description.clone(),
        admin_state_up: Some(p.enabled),
        project_id: p.project_id.clone(),
        action: Some(p.action.clone()),
        position: Some(i64::from(p.position)),
        redirect_pool_id: p.redirect_pool_id.clone().map(Some),
        redirect_url: p.redirect_url.clone().map(Some),
        redirect_prefix: p.redirect_prefix.clone().map(Some),
        redirect_http_code: p.redirect_http_code.map(|c| Some(i64::from(c))),
        rules: Some(rules.iter().map(l7rule::rule_model).collect()),
    })
}

/// Put `moved` at 1-based `position` (clamped to the end) among the listener's policies and
/// renumber them all 1..n (the ORM `ordering_list` of `Listener.l7policies`).
pub async fn place(
    tx: &mut Tx,
    listener_id: &str,
    moved: &str,
    position: i64,
) -> Result<(), ApiError> {
    let mut ids: Vec<String> = tx
        .fetch_scalars(
            "SELECT `id` FROM `l7policy` WHERE `listener_id` = ? AND `id` <> ? ORDER BY `position`, `created_at`, `id`",
            vec![listener_id.into(), moved.into()],
        )
        .await?;
    let idx = usize::try_from(position.saturating_sub(1))
        .unwrap_or(0)
        .min(ids.len());
    ids.insert(idx, moved.to_string());
    for (i, pid) in ids.iter().enumerate() {
        let pos = i as i64 + 1;
        tx.execute(
            "UPDATE `l7policy` SET `position` = ? WHERE `id` = ? AND `position` <> ?",
            vec![SqlValue::Int(pos), pid.clone().into(), SqlValue::Int(pos)],
        )
        .await?;
    }
    Ok(())
}

/// The redirect pool must exist (404 `Pool <id> not found.`) and suit the listener protocol
/// (400 `Validation failure: The pool protocol '<p>' is invalid while the listener protocol is '<l>'.`).
async fn check_redirect_pool(
    tx: &mut Tx,
    listener: &ListenerRow,
    pool_id: &str,
) -> Result<PoolRow, ApiError> {
    let pool = get_db_pool(tx, pool_id).await?;
    if !pool_protocol_ok(&listener.protocol, &pool.protocol) {
        return Err(ApiError::Validation(format!(
            "The pool protocol '{}' is invalid while the listener protocol is '{}'.",
            pool.protocol, listener.protocol
        )));
    }
    Ok(pool)
}

/// `L7PolicyRepository._pool_check`: the pool must be in the listener's LB and project.
fn pool_same_lb(pool: &PoolRow, listener: &ListenerRow) -> Result<(), ApiError> {
    if pool.load_balancer_id != listener.load_balancer_id || pool.project_id != listener.project_id
    {
        return Err(ApiError::not_found("Pool", &pool.id));
    }
    Ok(())
}

/// `GET /v2/lbaas/l7policies` ([`list::project_list`]).
pub async fn get_all(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    headers: HeaderMap,
    Query(q): Q,
) -> Result<axum::response::Response, ApiError> {
    list::project_list::<L7PolicyRow>(&st, &ctx, &headers, &q, "l7policy").await
}


/// `GET /v2/lbaas/l7policies/{id}`.
pub async fn get_one(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    let fields = list::check_get_query(&st, &q)?;
    let mut tx = st.db().begin_read().await?;
    let p = get_db_l7policy(&mut tx, &id).await?;
    policy::authorize(&ctx, "l7policy", "get_one", p.project_id.as_deref())?;
    Ok(Json(
        json!({"l7policy": list::select(render_policy(&mut tx, &p).await?, &fields)}),
    ))
}

/// The policy row a create writes — the POST and the graph create alike — PENDING_CREATE
/// and OFFLINE on listener `listener_id` of `project`: the columns [`L7PolicyPost`] declares
/// from the body `b`, the action and redirect attributes from `d`, its [`sanitize`]d copy;
/// `position` the end (the caller then [`place`]s it).
pub(crate) fn new_row(
    id: &str,
    b: &L7PolicyPost,
    d: &Redirect,
    listener_id: &str,
    project: &str,
) -> L7PolicyRow {
    let mut row = L7PolicyRow {
        id: id.to_string(),
        listener_id: listener_id.to_string(),
        action: d.action.value().cloned().unwrap_or_default(),
        redirect_pool_id: d.redirect_pool_id.value().cloned(),
        redirect_url: d.redirect_url.value().cloned(),
        position: i32::MAX,
        provisioning_status: ProvisioningStatus::PendingCreate,
        project_id: Some(project.to_string()),
        operating_status: OperatingStatus::Offline,
        redirect_prefix: d.redirect_prefix.value().cloned(),
        redirect_http_code: d
            .redirect_http_code
            .value()
            .and_then(|c| i32::try_from(*c).ok()),
        ..Default::default()
    };
    b.write_row(&mut row);
    row
}

/// The rule count and each inline rule's data of a policy create (`id` its new id) — the POST
/// and the graph create alike: 409 `Too many rules on L7 policy <id>`, then
/// [`l7rule::validate_rule`]'s 400s.
pub(crate) fn check_rules(id: &str, b: &L7PolicyPost) -> Result<(), ApiError> {
    let rules = b.rules();
    if rules.len() as i64 > MAX_RULES_PER_POLICY {
        return Err(ApiError::Conflict(format!(
            "Too many rules on L7 policy {id}"
        )));
    }
    rules.iter().try_for_each(|r| r.validate())
}

/// The rows of a policy create ([`check_rules`] passed) — the POST and the graph create
/// alike: the [`new_row`] of `b` with its [`sanitize`]d redirect `d` (a graph's redirect pool
/// already in it), [`place`]d at `position`, its tags and its inline rules
/// ([`l7rule::insert_new`]).
pub(crate) async fn insert_new(
    tx: &mut Tx,
    id: &str,
    b: &L7PolicyPost,
    d: &Redirect,
    listener_id: &str,
    project: &str,
) -> Result<(), ApiError> {
    let row = new_row(id, b, d, listener_id, project);
    tx.insert(&row).await?;
    place(tx, listener_id, id, b.position.unwrap_or(MAX_POSITION)).await?;
    if let Some(tags) = &b.tags {
        tx.set_tags(id, tags).await?;
    }
    for r in b.rules() {
        l7rule::insert_new(tx, r, id, project).await?;
    }
    Ok(())
}

/// `POST /v2/lbaas/l7policies` → 201, policy (and inline rules) PENDING_CREATE; LB and
/// listener PENDING_UPDATE; the returned `position` is the effective one (≤ n).
pub async fn post(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Query(q): Q,
    body: Wsme<L7PolicyPost>,
) -> Result<Response, ApiError> {
    list::no_query(&q, &[])?;
    let b = body.parse()?;
    check_types(&b.redirect_http_code)?;
    let mut tx = st.db().begin().await?;
    // `listener_id: null` is looked up as Python's None: 404 `Listener None not found.`
    let Some(listener_id) = b.listener_id.clone() else {
        return Err(ApiError::not_found("Listener", "None"));
    };
    let listener = get_db_listener(&mut tx, &listener_id).await?;
    let lb = get_db_lb(
        &mut tx,
        listener.load_balancer_id.as_deref().unwrap_or_default(),
    )
    .await?;
    let project = lb.project_id.clone().unwrap_or_default();
    policy::authorize(&ctx, "l7policy", "post", Some(&project))?;
    if listener.protocol == "PROMETHEUS" {
        return Err(ApiError::BadRequest(
            "Protocol PROMETHEUS listeners cannot have child objects.".into(),
        ));
    }
    if let Some(pid) = b.redirect_pool_id.value() {
        check_redirect_pool(&mut tx, &listener, pid).await?;
    }
    let pname = provider_call::lb_provider(&lb);
    let driver = st.driver(&pname)?;
    if !ctx.noauth {
        tx.check_quota(&project, QuotaResource::L7Policy, 1, &quota_limits(&st))
            .await?;
    }
    let mut d = b.redirect().render_unsets();
    sanitize(&mut d, true, true)?;
    let id = columns::new_id();
    check_rules(&id, &b)?;
    lock_lb_and_listener(&mut tx, &lb.id, &listener_id).await?;
    if let Some(pid) = d.redirect_pool_id.value() {
        let pool = get_db_pool(&mut tx, pid).await?;
        pool_same_lb(&pool, &listener)?;
    }
    insert_new(&mut tx, &id, &b, &d, &listener_id, &project).await?;
    let p = get_db_l7policy(&mut tx, &id).await?;
    let model = policy_model(&mut tx, &p).await?;
    call_provider(&mut tx, &pname, driver.l7policy_create(model)).await?;
    let out = render_policy(&mut tx, &p).await?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, Json(json!({"l7policy": out}))).into_response())
}

/// `PUT /v2/lbaas/l7policies/{id}` → 200, policy PENDING_UPDATE; LB and listener
/// PENDING_UPDATE. A new action clears the redirect fields that do not apply; a new
/// `position` re-sorts the listener's policies.
pub async fn put(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
    body: Wsme<L7PolicyPut>,
) -> Result<Json<Value>, ApiError> {
    list::no_query(&q, &[])?;
    let b = body.parse()?;
    check_types(&b.redirect_http_code)?;
    let mut tx = st.db().begin().await?;
    let t = target::l7policy(&mut tx, &ctx, &id, "put").await?;
    let (p, listener) = (&t.row, &t.parents);
    let mut d = b.redirect();
    sanitize(&mut d, false, b.other_given())?;
    if let Some(pid) = d.redirect_pool_id.value() {
        check_redirect_pool(&mut tx, listener, pid).await?;
    }
    let prov = t.provider(&st)?;
    lock_lb_and_listener(&mut tx, &t.lb.id, &listener.id).await?;
    let mut new = provider::L7Policy {
        l7policy_id: id.clone(),
        ..Default::default()
    };
    let ch = put_changes(&b, &d, &mut new);
    if let Some(pid) = d.redirect_pool_id.value() {
        let pool = get_db_pool(&mut tx, pid).await?;
        pool_same_lb(&pool, listener)?;
    }
    let old = policy_model(&mut tx, p).await?;
    call_provider(&mut tx, &prov.name, prov.driver.l7policy_update(old, new)).await?;
    tx.update::<L7PolicyRow>(&id, &ch).await?;
    if let Some(&pos) = b.position.value()
        && pos != i64::from(p.position)
    {
        place(&mut tx, &p.listener_id, &id, pos).await?;
    }
    if let Some(tags) = b.tags.sent() {
        tx.set_tags(&id, tags.map_or(&[][..], |t| &t[..])).await?;
    }
    let p = get_db_l7policy(&mut tx, &id).await?;
    let out = render_policy(&mut tx, &p).await?;
    tx.commit().await?;
    Ok(Json(json!({"l7policy": out})))
}

/// The column changes of a PUT (after `provisioning_status` PENDING_UPDATE) and the attributes
/// of the driver's new model, from the body `b` and its [`sanitize`]d redirect `d`: the
/// columns [`L7PolicyPut`] declares (names, `admin_state_up`: `null` false) as sent, then the
/// redirect attributes, then the clearing
/// a (new) action makes (`L7PolicyRepository.update` of octavia/db/repositories.py: REJECT
/// clears every redirect, REDIRECT_TO_URL the pool and prefix, REDIRECT_TO_POOL the URL,
/// prefix and code, REDIRECT_PREFIX the URL and pool).
fn put_changes(
    b: &L7PolicyPut,
    d: &Redirect,
    new: &mut provider::L7Policy,
) -> Vec<(&'static str, SqlValue)> {
    let mut ch: Vec<(&'static str, SqlValue)> = vec![(
        "provisioning_status",
        ProvisioningStatus::PendingUpdate.into(),
    )];
    ch.extend(b.column_changes());
    let r = b.nulls_resolved();
    model_sent!(r, new;
        name: |v| Some(v.cloned().unwrap_or_default());
        description: |v| Some(v.cloned().unwrap_or_default());
        admin_state_up: |v| v.copied();
    );
    let code = d
        .redirect_http_code
        .value()
        .and_then(|c| i32::try_from(*c).ok());
    let action = d.action.value().cloned();
    let mut set = |k: &'static str, v: SqlValue| {
        ch.retain(|(c, _)| *c != k);
        ch.push((k, v));
    };
    for (k, v) in [
        ("redirect_pool_id", &d.redirect_pool_id),
        ("redirect_url", &d.redirect_url),
        ("redirect_prefix", &d.redirect_prefix),
    ] {
        if let Some(v) = v.sent() {
            set(k, v.cloned().into());
        }
    }
    if d.redirect_http_code.given() {
        set("redirect_http_code", code.into());
    }
    if let Some(a) = &action {
        set("action", a.clone().into());
        let cleared: &[&'static str] = match a.as_str() {
            "REJECT" => &[
                "redirect_url",
                "redirect_pool_id",
                "redirect_prefix",
                "redirect_http_code",
            ],
            "REDIRECT_TO_URL" => &["redirect_pool_id", "redirect_prefix"],
            "REDIRECT_TO_POOL" => &["redirect_url", "redirect_prefix", "redirect_http_code"],
            _ => &["redirect_url", "redirect_pool_id"],
        };
        for k in cleared {
            set(k, SqlValue::Null);
        }
    }
    new.action = action;
    // each redirect attribute the sanitized body holds, a cleared one as null
    new.redirect_pool_id = d.redirect_pool_id.sent().map(Option::<&String>::cloned);
    new.redirect_url = d.redirect_url.sent().map(Option::<&String>::cloned);
    new.redirect_prefix = d.redirect_prefix.sent().map(Option::<&String>::cloned);
    new.redirect_http_code = d.redirect_http_code.given().then(|| code.map(i64::from));
    new.position = b.position.value().copied();
    ch
}

/// `DELETE /v2/lbaas/l7policies/{id}` → 204, policy PENDING_DELETE; LB and listener
/// PENDING_UPDATE. The row (and its rules) go when the provider reports DELETED.
pub async fn delete(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
) -> Result<StatusCode, ApiError> {
    list::no_query(&q, &[])?;
    let mut tx = st.db().begin().await?;
    let t = target::l7policy(&mut tx, &ctx, &id, "delete").await?;
    let prov = t.provider(&st)?;
    lock_lb_and_listener(&mut tx, &t.lb.id, &t.parents.id).await?;
    tx.set_provisioning_status::<L7PolicyRow>(&id, ProvisioningStatus::PendingDelete)
        .await?;
    let model = policy_model(&mut tx, &t.row).await?;
    call_provider(&mut tx, &prov.name, prov.driver.l7policy_delete(model)).await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The routes of L7 policies, as `octavia/api/v2/controllers/l7policy.py` serves them; [`crate::router`]
/// merges them under its layers.
pub(crate) fn routes() -> axum::Router<AppState> {
    use axum::routing::get;
    axum::Router::new()
        .route("/v2/lbaas/l7policies", get(get_all).post(post))
        .route(
            "/v2/lbaas/l7policies/{id}",
            get(get_one).put(put).delete(delete),
        )
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn san(v: Value, create: bool) -> Result<Redirect, String> {
        let b: L7PolicyPut = crate::types::Obj(v.as_object().unwrap().clone())
            .typed()
            .unwrap();
        let mut d = b.redirect();
        sanitize(&mut d, create, b.other_given())
            .map(|_| d)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn sanitize_follows_the_given_fields() {
        let d = san(
            json!({"action": "REJECT", "redirect_url": "http://a"}),
            true,
        )
        .unwrap();
        // REJECT nulls the URL first, so nothing overrides it
        assert_eq!(d.action, Patch::Value("REJECT".into()));
        assert_eq!(d.redirect_url, Patch::Null);
        let d = san(
            json!({"action": "REDIRECT_TO_URL", "redirect_url": "http://a"}),
            true,
        )
        .unwrap();
        assert_eq!(d.redirect_http_code, Patch::Value(302));
        let d = san(
            json!({"redirect_prefix": "https://b", "redirect_http_code": 301}),
            false,
        )
        .unwrap();
        assert_eq!(d.action, Patch::Value("REDIRECT_PREFIX".into()));
        assert_eq!(d.redirect_http_code, Patch::Value(301));
        assert_eq!(
            san(json!({"action": "REDIRECT_TO_URL"}), true).unwrap_err(),
            "Invalid L7 Policy arguments: redirect_url must not be None"
        );
        assert_eq!(
            san(json!({"action": "REDIRECT_TO_POOL"}), true).unwrap_err(),
            "Invalid L7 Policy arguments: redirect_pool_id or redirect_pool must not be None"
        );
        assert_eq!(
            san(
                json!({"redirect_pool_id": "p", "redirect_url": "http://a"}),
                false
            )
            .unwrap_err(),
            "Invalid L7 Policy arguments: Cannot specify redirect_pool_id and redirect_url or redirect_prefix at the same time"
        );
        assert_eq!(
            san(json!({}), false).unwrap_err(),
            "Invalid L7 Policy arguments: Invalid update options"
        );
        // another attribute is an update
        assert!(san(json!({"name": "n"}), false).is_ok());
    }

    #[test]
    fn a_graph_body_is_typed_as_its_post() {
        use crate::types::struct_fields;
        // a graph's policy is typed as a POST once the plan took its redirect pool out
        let post = struct_fields::<L7PolicyPost>();
        for f in crate::l7policy::body::L7POLICY_SINGLE.fields {
            assert!(
                f.name == "redirect_pool" || post.contains(&f.name),
                "{}",
                f.name
            );
        }
    }

    #[test]
    fn urls() {
        let put = |u: &str| {
            let body = json!({"l7policy": {"redirect_url": u}}).to_string();
            crate::types::parse_body(body.as_bytes(), "l7policy_", "l7policy", &L7POLICY_PUT)
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        assert!(put("http://www.example.com/a?b").is_ok());
        assert!(put("https://[::1]:8080/").is_ok());
        let long_not_url = "x".repeat(256);
        for bad in [
            "www.example.com",
            "ftp://x",
            "http://",
            "http://a b",
            "http:///x",
            // the URL check comes before the column's length, as WSME has no length
            long_not_url.as_str(),
        ] {
            assert_eq!(
                put(bad).unwrap_err(),
                format!(
                    "Invalid input for field/attribute redirect_url. Value: '{bad}'. Value must be a valid URL string"
                )
            );
        }
        let long_url = format!("http://example.com/{}", "a".repeat(240));
        assert_eq!(
            put(&long_url).unwrap_err(),
            format!(
                "Invalid input for field/attribute redirect_url. Value: '{long_url}'. Value should have a maximum character requirement of 255"
            )
        );
    }
}
