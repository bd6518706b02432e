//! Single-call ("fully populated") load balancer create, as
//! `octavia/api/v2/controllers/load_balancer.py` `_graph_create` with the `_graph_create`s of
//! the pool, listener, member, health monitor, L7 policy and L7 rule controllers (seed 004 §2).
//!
//! [`plan`] does the reference's name work before any row is written: pools given in full
//! under a listener (`default_pool`) or an L7 policy (`redirect_pool`) move to the top level,
//! name-only ones are references; every pool must be named, names unique, references
//! resolvable. [`create`] then checks the quotas per kind in the reference's order (pools,
//! then per pool its health monitor and members, then listeners), validates and inserts every
//! row PENDING_CREATE inside the caller's transaction, so any error rolls the whole tree back.
//! [`provider_models`] and [`render_full`] give the driver's nested models and the
//! `LoadBalancerFullResponse` body.

use std::collections::{BTreeMap, BTreeSet};

use octavia_db::{L7PolicyRow, ListenerRow, LoadBalancerRow, PoolRow, QuotaResource, Tx};
use serde_json::{Map, Value};

use crate::context::RequestContext;
use crate::fault::ApiError;
use crate::l7policy::body::L7PolicyPost;
use crate::listener::body::ListenerPost;
use crate::lookup::{check_pool_protocol, port_space, quota_limits};
use crate::member::body::MemberPost;
use crate::pool::body::PoolPost;
use crate::state::AppState;
use crate::types::{Obj, Patch};
use crate::{columns, provider_model, related};

/// Keys a name-only pool reference carries anyway (`PoolSingleCreate` defaults: the reference
/// counts `name`, `enabled`, `tls_enabled` and treats more than three keys as a definition).
const REFERENCE_KEYS: &[&str] = &["name", "admin_state_up", "tls_enabled"];

fn is_definition(pool: &Map<String, Value>) -> bool {
    pool.keys().any(|k| !REFERENCE_KEYS.contains(&k.as_str()))
}

const UNNAMED: &str = "Pools must be named when creating a fully populated loadbalancer.";

/// An L7 policy of a listener, its redirect pool reduced to a name.
#[derive(Debug, Clone)]
pub struct L7Plan {
    /// The `L7PolicySingleCreate` object (without `redirect_pool`).
    pub policy: L7PolicyPost,
    /// The redirect pool's name, if any.
    pub redirect_pool: Option<String>,
}

/// A listener, its default pool reduced to a name.
#[derive(Debug, Clone)]
pub struct ListenerPlan {
    /// The `ListenerSingleCreate` object (without `default_pool` / `l7policies`).
    pub listener: ListenerPost,
    /// The default pool's name, if any.
    pub default_pool: Option<String>,
    /// Its L7 policies, in request order.
    pub l7policies: Vec<L7Plan>,
}

/// The tree after name resolution: every pool definition at the top level.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// `PoolSingleCreate` definitions, top-level ones first then hoisted ones.
    pub pools: Vec<PoolPost>,
    /// `ListenerSingleCreate` definitions with their resolved default / redirect pool names.
    pub listeners: Vec<ListenerPlan>,
}

impl Plan {
    /// True when the request has neither listeners nor pools (a plain create).
    pub fn is_empty(&self) -> bool {
        self.pools.is_empty() && self.listeners.is_empty()
    }
}

/// Pulls a nested pool out: a definition is hoisted into `pools`, a name-only object is
/// recorded as a reference. Returns the name. Errors: 400 unnamed pool.
fn take_pool(
    pool: Map<String, Value>,
    pools: &mut Vec<PoolPost>,
    required: &mut BTreeSet<String>,
) -> Result<String, ApiError> {
    let definition = is_definition(&pool);
    let pool: PoolPost = Obj(pool).typed()?;
    let name = pool
        .name
        .clone()
        .filter(|n| !n.is_empty())
        .ok_or_else(|| ApiError::Validation(UNNAMED.into()))?;
    if definition {
        pools.push(pool);
    } else {
        required.insert(name.clone());
    }
    Ok(name)
}

/// The reference's first half of `_graph_create`: hoisting and name checks (400s:
/// `Pools must be named …`, `Pool names must be unique …`, `Pool '<n>' was referenced but no
/// full definition was found.`). `listeners` and `pools` are the validated
/// `ListenerSingleCreate` / `PoolSingleCreate` objects.
pub fn plan(
    listeners: Vec<Map<String, Value>>,
    pools: Vec<Map<String, Value>>,
) -> Result<Plan, ApiError> {
    let mut pools: Vec<PoolPost> = pools
        .into_iter()
        .map(|p| Obj(p).typed())
        .collect::<Result<_, _>>()?;
    let mut required = BTreeSet::new();
    let mut out = Vec::with_capacity(listeners.len());
    for mut l in listeners {
        let default_pool = match l.remove("default_pool") {
            Some(Value::Object(p)) => Some(take_pool(p, &mut pools, &mut required)?),
            _ => None,
        };
        let mut l7policies = Vec::new();
        if let Some(Value::Array(items)) = l.remove("l7policies") {
            for item in items {
                let Value::Object(mut p) = item else { continue };
                let redirect_pool = match p.remove("redirect_pool") {
                    Some(Value::Object(rp)) => Some(take_pool(rp, &mut pools, &mut required)?),
                    _ => None,
                };
                l7policies.push(L7Plan {
                    policy: Obj(p).typed()?,
                    redirect_pool,
                });
            }
        }
        out.push(ListenerPlan {
            listener: Obj(l).typed()?,
            default_pool,
            l7policies,
        });
    }
    let names: Vec<Option<&String>> = pools.iter().map(|p| p.name.as_ref()).collect();
    let unique: BTreeSet<&Option<&String>> = names.iter().collect();
    if unique.len() != names.len() {
        return Err(ApiError::Validation(
            "Pool names must be unique when creating a fully populated loadbalancer.".into(),
        ));
    }
    for r in &required {
        if !names.contains(&Some(r)) {
            return Err(ApiError::Validation(format!(
                "Pool '{r}' was referenced but no full definition was found."
            )));
        }
    }
    Ok(Plan {
        pools,
        listeners: out,
    })
}

/// The rows written for a graph, for the provider models and the response.
#[derive(Debug, Default)]
pub struct Created {
    /// Pools in request order.
    pub pools: Vec<PoolRow>,
    /// Member ids of each pool (parallel to `pools`), in request order.
    pub members: Vec<Vec<String>>,
    /// Listeners in request order.
    pub listeners: Vec<ListenerRow>,
}

async fn quota(
    st: &AppState,
    ctx: &RequestContext,
    tx: &mut Tx,
    project: &str,
    kind: QuotaResource,
    n: usize,
) -> Result<(), ApiError> {
    if ctx.noauth || n == 0 {
        return Ok(());
    }
    let n = i32::try_from(n).unwrap_or(i32::MAX);
    tx.check_quota(project, kind, n, &quota_limits(st)).await?;
    Ok(())
}

/// Writes the pools (with monitor and members), then the listeners (with L7 policies and
/// rules) of `plan` under `lb`, PENDING_CREATE, in the caller's transaction. Quotas are
/// checked per kind in the reference's order (skipped under noauth). Errors: the reference's
/// 400/403/409s; the caller rolls back.
#[allow(
    clippy::too_many_lines,
    reason = "a known exception of clippy.toml's bound"
)]
pub async fn create(
    st: &AppState,
    ctx: &RequestContext,
    tx: &mut Tx,
    lb: &LoadBalancerRow,
    plan: Plan,
) -> Result<Created, ApiError> {
    let project = lb.project_id.clone().unwrap_or_default();
    let token = ctx.auth_token.as_deref();
    let mut created = Created::default();
    quota(st, ctx, tx, &project, QuotaResource::Pool, plan.pools.len()).await?;
    let mut pool_ids: BTreeMap<String, (String, String)> = BTreeMap::new();
    for p in &plan.pools {
        let name = p.name.clone().unwrap_or_default();
        for (attr, given) in [("protocol", &p.protocol), ("lb_algorithm", &p.lb_algorithm)] {
            if given.is_none() {
                return Err(ApiError::Validation(format!(
                    "Pool definition for '{name}' missing required attribute: {attr}"
                )));
            }
        }
        let protocol = p.protocol.clone().unwrap_or_default();
        crate::pool::validate_create_fields(p, &protocol)?;
        crate::pool::validate_tls_create(st, token, p).await?;
        let (row, _) = crate::pool::insert_new(tx, p, &project, &lb.id).await?;
        let id = row.id.clone();
        let hm = &p.healthmonitor;
        if let Some(hm) = hm {
            quota(st, ctx, tx, &project, QuotaResource::HealthMonitor, 1).await?;
            let ty = &hm.r#type;
            crate::health_monitor::validate_type(st, ty, Some(hm.delay), &protocol)?;
            crate::health_monitor::validate_fields(hm, ty)?;
            crate::health_monitor::insert_new(tx, hm, &id, &project).await?;
        }
        let members: Vec<&MemberPost> = p.members.iter().flatten().flatten().collect();
        quota(st, ctx, tx, &project, QuotaResource::Member, members.len()).await?;
        let mut seen = BTreeSet::new();
        let mut member_ids = Vec::with_capacity(members.len());
        for m in members {
            crate::member::ip_not_reserved(st, &m.address)?;
            let vnic = crate::member::check_sriov(m)?;
            if !seen.insert((m.address.clone(), m.protocol_port)) {
                return Err(crate::member::duplicate(&m.address, m.protocol_port));
            }
            let member =
                crate::member::insert_new(tx, m, &row, &project, hm.is_some(), vnic).await?;
            let mid = member.id;
            member_ids.push(mid);
        }
        created.members.push(member_ids);
        pool_ids.insert(name, (id, protocol));
        created.pools.push(row);
    }

    quota(
        st,
        ctx,
        tx,
        &project,
        QuotaResource::Listener,
        plan.listeners.len(),
    )
    .await?;
    let cfg = st.config();
    let mut ports: Vec<(String, i64)> = Vec::new();
    for lp in &plan.listeners {
        let b = &lp.listener;
        // `protocol: null`: the reference's insert fails on the protocol's foreign key → 400
        let Some(protocol) = b.protocol.value().cloned() else {
            return Err(ApiError::InvalidOption {
                value: "None".into(),
                option: "protocol".into(),
            });
        };
        let port = b.protocol_port;
        let default_pool = match &lp.default_pool {
            Some(name) => {
                if protocol == "PROMETHEUS" {
                    return Err(ApiError::BadRequest(
                        "Protocol PROMETHEUS listeners cannot have child objects.".into(),
                    ));
                }
                let (pid, pproto) = pool_ids.get(name).cloned().ok_or_else(|| {
                    ApiError::BadRequest(format!("Missing details for Pool object: {name}"))
                })?;
                check_pool_protocol(&protocol, &pproto)?;
                Some(pid)
            }
            None => None,
        };
        crate::listener::validate_enabled(st.config(), b, &protocol)?;
        crate::listener::validate_protocol(b, &protocol)?;
        crate::listener::validate_tls_create(st, token, b).await?;
        if let Some(c) = &b.allowed_cidrs {
            crate::listener::rules::cidrs_fit_vips(tx, &lb.id, &c.0).await?;
        }
        if ports
            .iter()
            .any(|(p, n)| *n == port && port_space(p) == port_space(&protocol))
        {
            return Err(ApiError::Conflict(format!(
                "Another Listener on this Load Balancer is already using protocol {protocol} and protocol_port {port}"
            )));
        }
        ports.push((protocol.clone(), port));
        if protocol == "PROMETHEUS" && !lp.l7policies.is_empty() {
            return Err(ApiError::BadRequest(
                "Protocol PROMETHEUS listeners cannot have child objects.".into(),
            ));
        }
        let peer_port = tx.next_peer_port(&lb.id).await?;
        let row = crate::listener::new_row(b, cfg, &project, &lb.id, default_pool, peer_port);
        crate::listener::insert_new(tx, &row, b).await?;
        for l7 in &lp.l7policies {
            create_l7policy(tx, &row, l7, &pool_ids, &project).await?;
        }
        created.listeners.push(row);
    }
    Ok(created)
}

/// One L7 policy with its rules (l7policy.py / l7rule.py `_graph_create`), checked and
/// written as the policy POST does ([`crate::l7policy::insert_new`]).
async fn create_l7policy(
    tx: &mut Tx,
    listener: &ListenerRow,
    l7: &L7Plan,
    pool_ids: &BTreeMap<String, (String, String)>,
    project: &str,
) -> Result<(), ApiError> {
    let b = &l7.policy;
    let redirect_pool_id = match &l7.redirect_pool {
        Some(name) => {
            let (pid, pproto) = pool_ids.get(name).cloned().ok_or_else(|| {
                ApiError::BadRequest(format!("Missing details for Pool object: {name}"))
            })?;
            check_pool_protocol(&listener.protocol, &pproto)?;
            Patch::Value(pid)
        }
        None => Patch::Null,
    };
    let mut d = crate::l7policy::Redirect {
        redirect_pool_id,
        ..b.redirect()
    }
    .render_unsets();
    crate::l7policy::sanitize(&mut d, true, true)?;
    let id = columns::new_id();
    crate::l7policy::check_rules(&id, b)?;
    crate::l7policy::insert_new(tx, &id, b, &d, &listener.id, project).await
}

async fn listener_policies(tx: &mut Tx, listener_id: &str) -> Result<Vec<L7PolicyRow>, ApiError> {
    let q = octavia_db::ListQuery::default().filter("listener_id", listener_id);
    let mut rows: Vec<L7PolicyRow> = tx.list(&q).await?;
    rows.sort_by_key(|p| p.position);
    Ok(rows)
}

/// The driver's nested models (`lb_dict_to_provider_dict`): listeners with their default pool
/// and L7 policies (with rules), pools with members and health monitor.
pub async fn provider_models(
    tx: &mut Tx,
    created: &Created,
) -> Result<(Vec<provider::Listener>, Vec<provider::Pool>), ApiError> {
    let mut pools = Vec::with_capacity(created.pools.len());
    for (i, p) in created.pools.iter().enumerate() {
        let mut m = provider_model::pool_model(tx, p).await?;
        // Members in request order (the rows share one created_at).
        if let (Some(ms), Some(order)) = (m.members.as_mut(), created.members.get(i)) {
            ms.sort_by_key(|x| order.iter().position(|id| *id == x.member_id));
        }
        pools.push(m);
    }
    let mut listeners = Vec::with_capacity(created.listeners.len());
    for l in &created.listeners {
        let mut m = provider_model::listener_model(tx, l).await?;
        if let Some(pid) = &l.default_pool_id {
            m.default_pool = pools
                .iter()
                .find(|p| &p.pool_id == pid)
                .cloned()
                .map(Box::new);
        }
        let mut l7 = Vec::new();
        for p in listener_policies(tx, &l.id).await? {
            l7.push(crate::l7policy::policy_model(tx, &p).await?);
        }
        m.l7policies = Some(l7);
        listeners.push(m);
    }
    // pool_model saw the listeners only once they existed: fill listener_id now.
    for p in &mut pools {
        if p.listener_id.is_none() {
            p.listener_id = created
                .listeners
                .iter()
                .find(|l| l.default_pool_id.as_deref() == Some(p.pool_id.as_str()))
                .map(|l| l.id.clone());
        }
    }
    Ok((listeners, pools))
}

/// `LoadBalancerFullResponse`: the LB body with `listeners` as `ListenerFullResponse`
/// (`l7policies` full, with full `rules`; no `loadbalancers`) and `pools` as
/// `PoolFullResponse` (full `members`, `healthmonitor` or `null`; no `loadbalancers`
/// nor `healthmonitor_id`), as octavia/api/v2/types/*.py `_full_response`.
/// With `created`, listeners, pools and members come in request order (the rows of one
/// transaction share a `created_at`).
pub async fn render_full(
    tx: &mut Tx,
    lb: &LoadBalancerRow,
    created: Option<&Created>,
) -> Result<Value, ApiError> {
    let mut body = super::view::render_lb(tx, lb).await?;
    let (mut listeners, mut pools) = related::lb_children(tx, &lb.id).await?;
    let mut member_order: Vec<&String> = Vec::new();
    if let Some(c) = created {
        let rank = |ids: Vec<&String>, id: &String| ids.iter().position(|x| *x == id);
        listeners.sort_by_key(|l| rank(c.listeners.iter().map(|r| &r.id).collect(), &l.id));
        pools.sort_by_key(|p| rank(c.pools.iter().map(|r| &r.id).collect(), &p.id));
        member_order = c.members.iter().flatten().collect();
    }
    let mut ls = Vec::with_capacity(listeners.len());
    for l in &listeners {
        let mut v = crate::listener::view::render_listener(tx, l).await?;
        let mut l7 = Vec::new();
        for p in listener_policies(tx, &l.id).await? {
            let mut pv = crate::l7policy::view::render_policy(tx, &p).await?;
            let mut rules = Vec::new();
            for r in crate::l7rule::policy_rules(tx, &p.id).await? {
                rules.push(crate::l7rule::view::render_rule(tx, &r).await?);
            }
            pv["rules"] = Value::Array(rules);
            l7.push(pv);
        }
        if let Some(o) = v.as_object_mut() {
            o.insert("l7policies".into(), Value::Array(l7));
            o.remove("loadbalancers");
        }
        ls.push(v);
    }
    let mut ps = Vec::with_capacity(pools.len());
    for p in &pools {
        let mut v = crate::pool::view::render_pool(tx, p).await?;
        let mut members = Vec::new();
        let mut rows = related::pool_members(tx, &p.id).await?;
        rows.sort_by_key(|m| member_order.iter().position(|id| **id == m.id));
        for m in rows {
            members.push(crate::member::view::render_member(tx, &m).await?);
        }
        let hm = match related::pool_hm(tx, &p.id).await? {
            Some(h) => {
                let mut hv = crate::health_monitor::view::render_hm(tx, &h).await?;
                if let Some(o) = hv.as_object_mut() {
                    o.remove("pools");
                }
                Some(hv)
            }
            None => None,
        };
        if let Some(o) = v.as_object_mut() {
            o.insert("members".into(), Value::Array(members));
            o.remove("loadbalancers");
            o.remove("healthmonitor_id");
            // WSME renders an unset `healthmonitor` as null: the key is always there
            o.insert("healthmonitor".into(), hm.unwrap_or(Value::Null));
        }
        ps.push(v);
    }
    if let Some(o) = body.as_object_mut() {
        o.insert("listeners".into(), Value::Array(ls));
        o.insert("pools".into(), Value::Array(ps));
    }
    Ok(body)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    fn err_text(e: ApiError) -> String {
        e.to_string()
    }

    #[test]
    fn hoists_definitions_and_resolves_references() {
        let listeners = vec![obj(json!({
            "protocol": "HTTP", "protocol_port": 80,
            "default_pool": {"name": "a", "protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN"},
            "l7policies": [{"action": "REDIRECT_TO_POOL", "redirect_pool": {"name": "b"}}]
        }))];
        let pools = vec![obj(
            json!({"name": "b", "protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN"}),
        )];
        let p = plan(listeners, pools).unwrap();
        assert_eq!(p.pools.len(), 2);
        assert_eq!(p.listeners[0].default_pool.as_deref(), Some("a"));
        assert_eq!(
            p.listeners[0].l7policies[0].redirect_pool.as_deref(),
            Some("b")
        );
        assert!(p.listeners[0].listener.default_pool.is_none());
        // name + admin_state_up + tls_enabled is still a reference
        let p = plan(
            vec![obj(
                json!({"default_pool": {"name": "b", "admin_state_up": false}}),
            )],
            vec![obj(json!({"name": "b", "protocol": "TCP"}))],
        )
        .unwrap();
        assert_eq!(p.pools.len(), 1);
    }

    #[test]
    fn name_errors_are_the_references() {
        let e = plan(
            vec![obj(json!({"default_pool": {"protocol": "HTTP"}}))],
            vec![],
        )
        .unwrap_err();
        assert_eq!(
            err_text(e),
            "Validation failure: Pools must be named when creating a fully populated loadbalancer."
        );
        let e = plan(
            vec![],
            vec![obj(json!({"name": "x"})), obj(json!({"name": "x"}))],
        )
        .unwrap_err();
        assert!(err_text(e).contains("Pool names must be unique"));
        let e = plan(vec![obj(json!({"default_pool": {"name": "zz"}}))], vec![]).unwrap_err();
        assert_eq!(
            err_text(e),
            "Validation failure: Pool 'zz' was referenced but no full definition was found."
        );
        assert!(plan(vec![], vec![]).unwrap().is_empty());
    }
}
