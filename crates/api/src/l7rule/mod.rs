//! `/v2/lbaas/l7policies/{l7policy_id}/rules`, as `octavia/api/v2/controllers/l7rule.py`,
//! with the rule-data checks of `octavia/common/validate.py`
//! (`l7rule_data`, `validate_l7rule_ssl_types`).

pub(crate) mod body;
pub(crate) mod python_re;
internal! {
    mod view;
}

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use octavia_db::{L7PolicyRow, L7RuleRow, ListQuery, QuotaResource, SqlValue, Tx};
use provider::{OperatingStatus, ProvisioningStatus};
use serde_json::{Value, json};

use crate::context::RequestContext;
use crate::fault::ApiError;
use crate::lookup::{
    get_db_l7policy, get_db_l7rule, get_db_lb, get_db_listener, lock_lb_and_listener, quota_limits,
};
use crate::pagination::ListParams;
use crate::policy;
use crate::provider_call::call_provider;
use crate::state::AppState;
use crate::target::{self, Provider, Target};
use crate::types::{Patch, Wsme, model_sent};
use crate::{columns, list};
use body::*;
pub use python_re::regex_error;
pub use view::L7RULE_ATTRS;
use view::render_rule;

type Q = Query<Vec<(String, String)>>;

/// `MAX_L7RULES_PER_L7POLICY` (octavia/common/constants.py).
pub const MAX_RULES_PER_POLICY: i64 = 50;

impl L7RulePost {
    /// [`validate_rule`] of the rule as sent (a `null` type or compare type as `""`).
    pub fn validate(&self) -> Result<(), ApiError> {
        validate_rule(
            self.r#type.as_deref().unwrap_or_default(),
            self.compare_type.as_deref().unwrap_or_default(),
            self.key.as_deref(),
            self.value.as_deref(),
        )
    }
}

/// The rule row a create writes — the rule POST, a policy POST's inline rules and the graph
/// create alike — PENDING_CREATE and OFFLINE in policy `policy_id` of `project`, with a new
/// id: the attributes' columns as [`L7RulePost`] declares them.
pub(crate) fn new_row(b: &L7RulePost, policy_id: &str, project: &str) -> L7RuleRow {
    let mut row = L7RuleRow {
        id: columns::new_id(),
        l7policy_id: policy_id.to_string(),
        provisioning_status: ProvisioningStatus::PendingCreate,
        project_id: Some(project.to_string()),
        operating_status: OperatingStatus::Offline,
        ..Default::default()
    };
    b.write_row(&mut row);
    row
}

/// Inserts the [`new_row`] of `b` and its tags; returns the row.
pub(crate) async fn insert_new(
    tx: &mut Tx,
    b: &L7RulePost,
    policy_id: &str,
    project: &str,
) -> Result<L7RuleRow, ApiError> {
    let row = new_row(b, policy_id, project);
    tx.insert(&row).await?;
    if let Some(tags) = &b.tags {
        tx.set_tags(&row.id, tags).await?;
    }
    Ok(row)
}

// ---- rule data validation (octavia/common/validate.py) ----

/// `HTTP_HEADER_NAME_REGEX`: RFC 7230 token characters (the class `+-.` is a range in the
/// reference regex, so `,` and `.` are accepted too).
fn header_name_ok(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+,-.^_`|~".contains(c))
}

/// `HTTP_COOKIE_VALUE_REGEX` (the `+-.` range also admits `,`).
fn cookie_value_ok(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'()*+,-./:<=>?@[]^_`{|}~".contains(c))
}

/// `HTTP_HEADER_VALUE_REGEX` or `HTTP_QUOTED_HEADER_VALUE_REGEX`.
fn header_value_ok(s: &str) -> bool {
    let plain = |c: char| c.is_ascii_graphic();
    if !s.is_empty() && s.chars().all(plain) {
        return true;
    }
    s.len() >= 2
        && s.starts_with('"')
        && s.ends_with('"')
        && s[1..s.len() - 1]
            .chars()
            .all(|c| plain(c) || c == ' ' || c == '\t')
}

/// `DISTINGUISHED_NAME_FIELD_REGEX` `^([a-zA-Z][A-Za-z0-9-]*)$`.
fn dn_field_ok(s: &str) -> bool {
    let mut cs = s.chars();
    cs.next().is_some_and(|c| c.is_ascii_alphabetic())
        && cs.all(|c| c.is_ascii_alphanumeric() || c == '-')
}

fn invalid_rule(msg: impl AsRef<str>) -> ApiError {
    ApiError::BadRequest(format!(
        "Error parsing L7Rule: Invalid L7 Rule: {}",
        msg.as_ref()
    ))
}

fn invalid_chars(what: &str) -> ApiError {
    ApiError::BadRequest(format!(
        "Error parsing L7Rule: Invalid characters in {what}"
    ))
}

fn check_regex(v: &str) -> Result<(), ApiError> {
    match regex_error(v) {
        Some(e) => Err(ApiError::BadRequest(format!(
            "Error parsing L7Rule: Unable to parse regular expression: {e}"
        ))),
        None => Ok(()),
    }
}

/// `validate.l7rule_data` wrapped as the controller does: 400
/// `Error parsing L7Rule: <Invalid L7 Rule: …|Invalid characters in …|Unable to parse regular expression: …>`.
pub fn validate_rule(
    kind: &str,
    compare: &str,
    key: Option<&str>,
    value: Option<&str>,
) -> Result<(), ApiError> {
    let value = value.unwrap_or_default();
    let key = key.filter(|k| !k.is_empty());
    if value.is_empty() {
        return Err(invalid_rule("L7 rule type requires a value"));
    }
    let bad_compare = || invalid_rule("invalid comparison type for rule type");
    let plain = ["STARTS_WITH", "ENDS_WITH", "CONTAINS", "EQUAL_TO"];
    match kind {
        "HEADER" | "COOKIE" => {
            let Some(k) = key else {
                return Err(invalid_rule("L7 rule type requires a key"));
            };
            if !header_name_ok(k) {
                return Err(invalid_chars("key"));
            }
            if compare == "REGEX" {
                check_regex(value)
            } else if plain.contains(&compare) {
                let (ok, what) = if kind == "HEADER" {
                    (header_value_ok(value), "header value")
                } else {
                    (cookie_value_ok(value), "cookie value")
                };
                if ok { Ok(()) } else { Err(invalid_chars(what)) }
            } else {
                Err(bad_compare())
            }
        }
        "HOST_NAME" | "PATH" => {
            if plain.contains(&compare) {
                if header_value_ok(value) {
                    Ok(())
                } else {
                    Err(invalid_chars("comparison value"))
                }
            } else if compare == "REGEX" {
                check_regex(value)
            } else {
                Err(bad_compare())
            }
        }
        "FILE_TYPE" => match compare {
            "REGEX" => check_regex(value),
            "EQUAL_TO" if header_value_ok(value) => Ok(()),
            "EQUAL_TO" => Err(invalid_chars("comparison value")),
            _ => Err(bad_compare()),
        },
        "SSL_CONN_HAS_CERT" | "SSL_VERIFY_RESULT" | "SSL_DN_FIELD" => {
            let mut msg = None;
            let eq_only = || format!("L7rule type {kind} only supports the EQUAL_TO compare type.");
            if kind == "SSL_CONN_HAS_CERT" {
                if key.is_some() {
                    msg = Some(format!(
                        "L7rule type {kind} does not use the \"key\" field."
                    ));
                } else if value.to_lowercase() != "true" {
                    msg = Some(format!(
                        "L7rule value {value} is not a boolean True string."
                    ));
                } else if compare != "EQUAL_TO" {
                    msg = Some(eq_only());
                }
            }
            if kind == "SSL_VERIFY_RESULT" {
                if key.is_some() {
                    msg = Some(format!(
                        "L7rule type {kind} does not use the \"key\" field."
                    ));
                } else if !value.chars().all(|c| c.is_ascii_digit()) {
                    msg = Some(format!(
                        "L7rule type {kind} needs a int value, which is >= 0"
                    ));
                } else if compare != "EQUAL_TO" {
                    msg = Some(eq_only());
                }
            }
            if kind == "SSL_DN_FIELD" {
                if compare == "REGEX" {
                    check_regex(value)?;
                }
                match key {
                    None => {
                        msg = Some(format!(
                            "L7rule type {kind} needs to specify a key and a value."
                        ))
                    }
                    Some(k) if !dn_field_ok(k) => {
                        msg = Some("Invalid L7rule distinguished name field.".into())
                    }
                    Some(_) => {}
                }
            }
            match msg {
                Some(m) => Err(invalid_rule(m)),
                None => Ok(()),
            }
        }
        _ => Err(invalid_rule("invalid rule type")),
    }
}

// ---- provider models ----

/// Provider `L7Rule` of a row (`db_l7rule_to_provider_l7rule`).
pub fn rule_model(r: &L7RuleRow) -> provider::L7Rule {
    provider::L7Rule {
        l7rule_id: r.id.clone(),
        l7policy_id: Some(r.l7policy_id.clone()),
        admin_state_up: Some(r.enabled),
        project_id: r.project_id.clone(),
        kind: Some(r.r#type.clone()),
        compare_type: Some(r.compare_type.clone()),
        key: r.key.clone(),
        value: Some(r.value.clone()),
        invert: Some(r.invert),
    }
}

/// The policy's rules that are not DELETED, oldest first.
pub async fn policy_rules(tx: &mut Tx, policy_id: &str) -> Result<Vec<L7RuleRow>, ApiError> {
    let rules: Vec<L7RuleRow> = tx
        .list(&ListQuery::default().filter("l7policy_id", policy_id))
        .await?;
    Ok(rules
        .into_iter()
        .filter(|r| r.provisioning_status != ProvisioningStatus::Deleted)
        .collect())
}

/// The policy of a rules route; unknown → pecan's 404 `L7Policy <id> not found.` (the
/// reference's `_lookup`, which also finds DELETED policies).
async fn route_policy(tx: &mut Tx, policy_id: &str) -> Result<L7PolicyRow, ApiError> {
    let p: Option<L7PolicyRow> = tx.find(policy_id).await?;
    p.ok_or_else(|| {
        ApiError::pecan(
            StatusCode::NOT_FOUND,
            "Bad Request",
            format!("L7Policy {policy_id} not found."),
        )
    })
}

/// The project and provider of the policy's load balancer, and the listener id.
async fn policy_parents(
    tx: &mut Tx,
    p: &L7PolicyRow,
) -> Result<(octavia_db::LoadBalancerRow, String), ApiError> {
    let l = get_db_listener(tx, &p.listener_id).await?;
    let lb = get_db_lb(tx, l.load_balancer_id.as_deref().unwrap_or_default()).await?;
    Ok((lb, l.id))
}

/// Rule writes: the policy must be ACTIVE (409 `L7Policy <id> is immutable and cannot be
/// updated.`), then LB and listener go PENDING_UPDATE (409 on a busy LB) and the policy
/// PENDING_UPDATE (`_test_lb_listener_policy_statuses`).
async fn lock_for_rule(
    tx: &mut Tx,
    p: &L7PolicyRow,
    lb_id: &str,
    listener_id: &str,
) -> Result<(), ApiError> {
    if p.provisioning_status != ProvisioningStatus::Active {
        return Err(ApiError::immutable("L7Policy", &p.id));
    }
    lock_lb_and_listener(tx, lb_id, listener_id).await?;
    tx.set_provisioning_status::<L7PolicyRow>(&p.id, ProvisioningStatus::PendingUpdate)
        .await?;
    Ok(())
}

/// `GET /v2/lbaas/l7policies/{l7policy_id}/rules` (policy `l7rule:get_all` on the policy's
/// project; no global list).
pub async fn get_all(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(policy_id): Path<String>,
    headers: HeaderMap,
    Query(q): Q,
) -> Result<axum::response::Response, ApiError> {
    let params = ListParams::parse(&q, st.config().pagination_max_limit, st.config())?;
    let mut tx = st.db().begin_read().await?;
    route_policy(&mut tx, &policy_id).await?;
    let p = get_db_l7policy(&mut tx, &policy_id).await?;
    policy::authorize(&ctx, "l7rule", "get_all", p.project_id.as_deref())?;
    let scope = list::Scope {
        project: &None,
        parent: Some(&policy_id),
    };
    list::get_all::<L7RuleRow>(&st, &headers, &mut tx, &params, &scope).await
}

/// `GET /v2/lbaas/l7policies/{l7policy_id}/rules/{id}` (like the reference, the rule need
/// not belong to the policy of the URL).
pub async fn get_one(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path((policy_id, id)): Path<(String, String)>,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    let fields = list::check_get_query(&st, &q)?;
    let mut tx = st.db().begin_read().await?;
    route_policy(&mut tx, &policy_id).await?;
    let r = get_db_l7rule(&mut tx, &id).await?;
    policy::authorize(&ctx, "l7rule", "get_one", r.project_id.as_deref())?;
    Ok(Json(
        json!({"rule": list::select(render_rule(&mut tx, &r).await?, &fields)}),
    ))
}

/// `POST /v2/lbaas/l7policies/{l7policy_id}/rules` → 201, rule PENDING_CREATE; LB, listener
/// and policy PENDING_UPDATE. Errors in the reference's order: 404 policy, 403, 400 rule data,
/// 409 `Too many rules on L7 policy <id>`, provider load, 403 quota, 409 locks, provider call.
pub async fn post(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(policy_id): Path<String>,
    Query(q): Q,
    body: Wsme<L7RulePost>,
) -> Result<Response, ApiError> {
    list::no_query(&q, &[])?;
    let b = body.parse()?;
    let mut tx = st.db().begin().await?;
    route_policy(&mut tx, &policy_id).await?;
    let p = get_db_l7policy(&mut tx, &policy_id).await?;
    let (lb, listener_id) = policy_parents(&mut tx, &p).await?;
    let project = lb.project_id.clone().unwrap_or_default();
    policy::authorize(&ctx, "l7rule", "post", Some(&project))?;
    b.validate()?;
    let count: Option<i64> = tx
        .fetch_optional_scalar(
            "SELECT COUNT(*) FROM `l7rule` WHERE `l7policy_id` = ?",
            vec![policy_id.as_str().into()],
        )
        .await?;
    if count.unwrap_or(0) >= MAX_RULES_PER_POLICY {
        return Err(ApiError::Conflict(format!(
            "Too many rules on L7 policy {policy_id}"
        )));
    }
    let Provider {
        name: pname,
        driver,
    } = Provider::of(&st, &lb)?;
    if !ctx.noauth {
        tx.check_quota(&project, QuotaResource::L7Rule, 1, &quota_limits(&st))
            .await?;
    }
    lock_for_rule(&mut tx, &p, &lb.id, &listener_id).await?;
    let row = insert_new(&mut tx, &b, &policy_id, &project).await?;
    let id = row.id.clone();
    call_provider(&mut tx, &pname, driver.l7rule_create(rule_model(&row))).await?;
    let r = get_db_l7rule(&mut tx, &id).await?;
    let out = render_rule(&mut tx, &r).await?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, Json(json!({"rule": out}))).into_response())
}

/// `PUT /v2/lbaas/l7policies/{l7policy_id}/rules/{id}` → 200, rule PENDING_UPDATE. The merged
/// rule is re-validated; `invert: null` means false; a change to HOST_NAME, PATH or FILE_TYPE
/// clears the stored key.
pub async fn put(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path((policy_id, id)): Path<(String, String)>,
    Query(q): Q,
    body: Wsme<L7RulePut>,
) -> Result<Json<Value>, ApiError> {
    list::no_query(&q, &[])?;
    let b = body.parse()?;
    let mut tx = st.db().begin().await?;
    route_policy(&mut tx, &policy_id).await?;
    let Target {
        row: r,
        parents: (p, listener),
        lb,
    } = target::l7rule(&mut tx, &ctx, &policy_id, &id, "put").await?;
    let listener_id = listener.id;
    // the merged rule: a key sent (even as null) replaces the stored value, so a null
    // `type` / `compare_type` fails `validate.l7rule_data` as in the reference
    let sent_or = |v: &Patch<String>, stored: &str| match v.sent() {
        Some(v) => v.cloned().unwrap_or_default(),
        None => stored.to_string(),
    };
    let kind = sent_or(&b.r#type, &r.r#type);
    let compare = sent_or(&b.compare_type, &r.compare_type);
    let key_cleared =
        b.r#type.given() && matches!(kind.as_str(), "HOST_NAME" | "PATH" | "FILE_TYPE");
    let key = match b.key.sent() {
        Some(k) => k.cloned(),
        None if key_cleared => None,
        None => r.key.clone(),
    };
    let value = match b.value.sent() {
        Some(v) => v.cloned(),
        None => Some(r.value.clone()),
    };
    validate_rule(&kind, &compare, key.as_deref(), value.as_deref())?;
    let Provider {
        name: pname,
        driver,
    } = Provider::of(&st, &lb)?;
    lock_for_rule(&mut tx, &p, &lb.id, &listener_id).await?;
    let mut new = provider::L7Rule {
        l7rule_id: id.clone(),
        ..Default::default()
    };
    let ch = put_changes(&b, key_cleared, &mut new);
    call_provider(&mut tx, &pname, driver.l7rule_update(rule_model(&r), new)).await?;
    tx.update::<L7RuleRow>(&id, &ch).await?;
    if let Some(tags) = b.tags.sent() {
        tx.set_tags(&id, tags.map_or(&[][..], |t| &t[..])).await?;
    }
    let r = get_db_l7rule(&mut tx, &id).await?;
    let out = render_rule(&mut tx, &r).await?;
    tx.commit().await?;
    Ok(Json(json!({"rule": out})))
}

/// The column changes of a PUT (after `provisioning_status` PENDING_UPDATE) and the attributes
/// of the driver's new model: the columns [`L7RulePut`] declares as sent (`invert` and
/// `admin_state_up`: `null` false), and `key` cleared when a new `type` (HOST_NAME, PATH,
/// FILE_TYPE) takes none and none is sent (`key_cleared`).
fn put_changes(
    b: &L7RulePut,
    key_cleared: bool,
    new: &mut provider::L7Rule,
) -> Vec<(&'static str, SqlValue)> {
    let mut ch: Vec<(&'static str, SqlValue)> = vec![(
        "provisioning_status",
        ProvisioningStatus::PendingUpdate.into(),
    )];
    ch.extend(b.column_changes());
    if key_cleared && !b.key.given() {
        // in the declaration's place: after `type` and `compare_type`
        let at = ch
            .iter()
            .position(|(c, _)| !matches!(*c, "provisioning_status" | "type" | "compare_type"))
            .unwrap_or(ch.len());
        ch.insert(at, ("key", SqlValue::Null));
    }
    let r = b.nulls_resolved();
    if let Some(v) = r.r#type.sent() {
        new.kind = v.cloned();
    }
    model_sent!(r, new;
        compare_type: |v| v.cloned();
        key: |v| v.cloned();
        invert: |v| v.copied();
        admin_state_up: |v| v.copied();
    );
    // a `null` value is refused before: the model keeps what was sent
    model_sent!(b, new;
        value: |v| v.cloned();
    );
    ch
}

/// `DELETE /v2/lbaas/l7policies/{l7policy_id}/rules/{id}` → 204, rule PENDING_DELETE; LB,
/// listener and policy PENDING_UPDATE.
pub async fn delete(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path((policy_id, id)): Path<(String, String)>,
    Query(q): Q,
) -> Result<StatusCode, ApiError> {
    list::no_query(&q, &[])?;
    let mut tx = st.db().begin().await?;
    route_policy(&mut tx, &policy_id).await?;
    let Target {
        row: r,
        parents: (p, listener),
        lb,
    } = target::l7rule(&mut tx, &ctx, &policy_id, &id, "delete").await?;
    let listener_id = listener.id;
    let Provider {
        name: pname,
        driver,
    } = Provider::of(&st, &lb)?;
    lock_for_rule(&mut tx, &p, &lb.id, &listener_id).await?;
    tx.set_provisioning_status::<L7RuleRow>(&id, ProvisioningStatus::PendingDelete)
        .await?;
    call_provider(&mut tx, &pname, driver.l7rule_delete(rule_model(&r))).await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The routes of L7 rules, as `octavia/api/v2/controllers/l7rule.py` serves them; [`crate::router`]
/// merges them under its layers.
pub(crate) fn routes() -> axum::Router<AppState> {
    use axum::routing::get;
    axum::Router::new()
        .route(
            "/v2/lbaas/l7policies/{l7policy_id}/rules",
            get(get_all).post(post),
        )
        .route(
            "/v2/lbaas/l7policies/{l7policy_id}/rules/{id}",
            get(get_one).put(put).delete(delete),
        )
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn err(k: &str, c: &str, key: Option<&str>, v: &str) -> String {
        validate_rule(k, c, key, Some(v)).unwrap_err().to_string()
    }

    #[test]
    fn a_graph_body_is_typed_as_its_post() {
        use crate::types::struct_fields;
        let post = struct_fields::<L7RulePost>();
        for f in crate::l7rule::body::L7RULE_SINGLE.fields {
            assert!(post.contains(&f.name), "{}", f.name);
        }
    }

    #[test]
    fn rule_data_texts() {
        assert!(validate_rule("PATH", "STARTS_WITH", None, Some("/api")).is_ok());
        assert!(validate_rule("HEADER", "EQUAL_TO", Some("X-Foo"), Some("bar")).is_ok());
        assert!(validate_rule("COOKIE", "REGEX", Some("sid"), Some("^a.*(b|c)$")).is_ok());
        assert!(validate_rule("SSL_CONN_HAS_CERT", "EQUAL_TO", None, Some("True")).is_ok());
        assert!(validate_rule("SSL_DN_FIELD", "EQUAL_TO", Some("CN"), Some("x")).is_ok());
        assert_eq!(
            err("HEADER", "EQUAL_TO", None, "x"),
            "Error parsing L7Rule: Invalid L7 Rule: L7 rule type requires a key"
        );
        assert_eq!(
            err("HEADER", "EQUAL_TO", Some("a b"), "x"),
            "Error parsing L7Rule: Invalid characters in key"
        );
        assert_eq!(
            err("COOKIE", "EQUAL_TO", Some("k"), "a;b"),
            "Error parsing L7Rule: Invalid characters in cookie value"
        );
        assert_eq!(
            err("PATH", "EQUAL_TO", None, "a b"),
            "Error parsing L7Rule: Invalid characters in comparison value"
        );
        assert_eq!(
            err("FILE_TYPE", "STARTS_WITH", None, "jpg"),
            "Error parsing L7Rule: Invalid L7 Rule: invalid comparison type for rule type"
        );
        assert_eq!(
            err("PATH", "REGEX", None, "*a"),
            "Error parsing L7Rule: Unable to parse regular expression: nothing to repeat at position 0"
        );
        assert_eq!(
            err("PATH", "REGEX", None, "(a"),
            "Error parsing L7Rule: Unable to parse regular expression: missing ), unterminated subpattern at position 0"
        );
        assert_eq!(
            err("SSL_CONN_HAS_CERT", "EQUAL_TO", None, "yes"),
            "Error parsing L7Rule: Invalid L7 Rule: L7rule value yes is not a boolean True string."
        );
        assert_eq!(
            err("SSL_VERIFY_RESULT", "EQUAL_TO", None, "-1"),
            "Error parsing L7Rule: Invalid L7 Rule: L7rule type SSL_VERIFY_RESULT needs a int value, which is >= 0"
        );
        assert_eq!(
            err("SSL_VERIFY_RESULT", "REGEX", None, "1"),
            "Error parsing L7Rule: Invalid L7 Rule: L7rule type SSL_VERIFY_RESULT only supports the EQUAL_TO compare type."
        );
        assert_eq!(
            err("SSL_DN_FIELD", "EQUAL_TO", Some("1CN"), "x"),
            "Error parsing L7Rule: Invalid L7 Rule: Invalid L7rule distinguished name field."
        );
        assert_eq!(
            err("HOST_NAME", "EQUAL_TO", None, ""),
            "Error parsing L7Rule: Invalid L7 Rule: L7 rule type requires a value"
        );
    }

    #[test]
    fn quoted_header_values() {
        assert!(header_value_ok("\"a b\""));
        assert!(!header_value_ok("a b"));
        assert!(header_name_ok("X-Forwarded-For"));
    }
}
