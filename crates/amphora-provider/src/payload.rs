//! The casts' keyword arguments, built as octavia/api/drivers/amphora_driver/v2/driver.py
//! builds them from octavia-lib's `to_dict()` (octavia_lib/api/drivers/data_models.py).
//!
//! octavia-lib's `to_dict()` (no `recurse`) keeps every attribute that is not Unset, drops
//! lists and nested data models, and keeps dicts; a provider object the reference's API
//! built from a database row (`db_*_to_provider_*`, octavia/api/drivers/utils.py) has every
//! column set, NULL ones to `None`. Keel's models use `None` for both Unset and NULL, so a
//! *whole* object (create, delete, the `original_*` of an update) is rendered with the
//! reference's full key list, `null` where Keel has `None`; an *update* object has only the
//! fields the request changed, rendered as they are. TLS container data (certificates and
//! private keys) is never sent: see the crate README.
//!
//! The reference's API converts two kinds of object (octavia/api/v2/controllers): a create
//! converts the *data model* its repository's `create` returns (every attribute set), an
//! update or delete the *ORM object* of `_get_db_*` (`get_orm`), whose `to_dict()` holds
//! only the relationships loaded by then — `Listener.default_pool` and
//! `Pool.session_persistence` never are on those paths, `Pool.health_monitor` and
//! `Pool.members` are set afterwards only when there is a monitor / a member
//! (`db_pool_to_provider_pool`).

use provider::{HealthMonitor, L7Policy, L7Rule, Listener, LoadBalancer, Member, Pool};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::reader::DbMember;

/// The keyword arguments of one cast.
pub type Args = Map<String, Value>;

/// A whole load balancer from its row (`db_loadbalancer_to_provider_loadbalancer`): these
/// keys, plus `flavor` when the LB has a flavor.
const LB_ROW_KEYS: &[&str] = &[
    "loadbalancer_id",
    "project_id",
    "name",
    "description",
    "admin_state_up",
    "availability_zone",
    "vip_address",
    "vip_network_id",
    "vip_port_id",
    "vip_subnet_id",
    "vip_qos_policy_id",
];
const LISTENER_KEYS: &[&str] = &[
    "admin_state_up",
    "alpn_protocols",
    "client_authentication",
    "client_ca_tls_container_ref",
    "client_crl_container_ref",
    "connection_limit",
    "default_pool_id",
    "default_tls_container_ref",
    "description",
    "hsts_include_subdomains",
    "hsts_max_age",
    "hsts_preload",
    "insert_headers",
    "listener_id",
    "loadbalancer_id",
    "name",
    "project_id",
    "protocol",
    "protocol_port",
    "timeout_client_data",
    "timeout_member_connect",
    "timeout_member_data",
    "timeout_tcp_inspect",
    "tls_ciphers",
    "tls_versions",
];
const POOL_KEYS: &[&str] = &[
    "admin_state_up",
    "alpn_protocols",
    "ca_tls_container_ref",
    "crl_container_ref",
    "description",
    "healthmonitor",
    "lb_algorithm",
    "loadbalancer_id",
    "name",
    "pool_id",
    "project_id",
    "protocol",
    "session_persistence",
    "tls_ciphers",
    "tls_container_ref",
    "tls_enabled",
    "tls_versions",
];
const SESSION_PERSISTENCE_KEYS: &[&str] = &[
    "type",
    "cookie_name",
    "persistence_timeout",
    "persistence_granularity",
];
const MEMBER_KEYS: &[&str] = &[
    "address",
    "admin_state_up",
    "backup",
    "member_id",
    "monitor_address",
    "monitor_port",
    "name",
    "pool_id",
    "project_id",
    "protocol_port",
    "subnet_id",
    "vnic_type",
    "weight",
];
const HM_KEYS: &[&str] = &[
    "admin_state_up",
    "delay",
    "domain_name",
    "expected_codes",
    "healthmonitor_id",
    "http_method",
    "http_version",
    "max_retries",
    "max_retries_down",
    "name",
    "pool_id",
    "project_id",
    "timeout",
    "type",
    "url_path",
];
const L7POLICY_KEYS: &[&str] = &[
    "action",
    "admin_state_up",
    "description",
    "l7policy_id",
    "listener_id",
    "name",
    "position",
    "project_id",
    "redirect_http_code",
    "redirect_pool_id",
    "redirect_prefix",
    "redirect_url",
];
const L7RULE_KEYS: &[&str] = &[
    "admin_state_up",
    "compare_type",
    "invert",
    "key",
    "l7policy_id",
    "l7rule_id",
    "project_id",
    "type",
    "value",
];
/// Keys holding nested data models (dropped by a non-recursive `to_dict()`).
const MODEL_KEYS: &[&str] = &["default_pool", "healthmonitor"];
/// Certificate bundles with private keys: never sent (see the crate README).
const SECRET_KEYS: &[&str] = &[
    "default_tls_container_data",
    "sni_container_data",
    "tls_container_data",
];

/// The model's serde map (`None` left out).
fn map_of<T: Serialize>(model: &T) -> Map<String, Value> {
    match serde_json::to_value(model) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

/// Every key of `keys` that is missing becomes `null` (a NULL column).
fn fill(m: &mut Map<String, Value>, keys: &[&str]) {
    for k in keys {
        m.entry(*k).or_insert(Value::Null);
    }
}

/// octavia-lib's non-recursive `to_dict()`: lists and nested models dropped, dicts kept.
fn flat(mut m: Map<String, Value>) -> Map<String, Value> {
    m.retain(|k, v| !(v.is_array() || (MODEL_KEYS.contains(&k.as_str()) && v.is_object())));
    for k in SECRET_KEYS {
        m.remove(*k);
    }
    m
}

fn rename(m: &mut Map<String, Value>, from: &str, to: &str) {
    if let Some(v) = m.remove(from) {
        m.insert(to.to_string(), v);
    }
}

fn args<const N: usize>(pairs: [(&str, Value); N]) -> Args {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// A whole load balancer as its row gives it (`delete_load_balancer`,
/// `original_load_balancer`): `availability_zone` is the AZ's *name* there (Keel's model's
/// `{}` renders `null`), `flavor` only when not empty.
pub fn lb_row(lb: &LoadBalancer) -> Map<String, Value> {
    let mut m = map_of(lb);
    match m.get("availability_zone") {
        Some(Value::String(_)) | None => {}
        Some(_) => {
            m.remove("availability_zone");
        }
    }
    if m.get("flavor")
        .is_some_and(|f| f.as_object().is_none_or(Map::is_empty))
    {
        m.remove("flavor");
    }
    fill(&mut m, LB_ROW_KEYS);
    flat(m)
}

/// `create_load_balancer`: `loadbalancer` (the request's fields, the VIP's, the flavor and
/// AZ metadata dicts), `flavor`, `availability_zone` (`null` when Unset).
pub fn lb_create(lb: &LoadBalancer) -> Args {
    let flavor = lb.flavor.clone().unwrap_or(Value::Null);
    let az = lb.availability_zone.clone().unwrap_or(Value::Null);
    let mut m = map_of(lb);
    m.insert("flavor".into(), flavor.clone());
    m.insert("availability_zone".into(), az.clone());
    fill(
        &mut m,
        &[
            "loadbalancer_id",
            "project_id",
            "admin_state_up",
            "vip_address",
            "vip_network_id",
            "vip_port_id",
            "vip_subnet_id",
            "vip_qos_policy_id",
        ],
    );
    args([
        ("loadbalancer", Value::Object(flat(m))),
        ("flavor", flavor),
        ("availability_zone", az),
    ])
}

/// `delete_load_balancer`: `loadbalancer`, `cascade`.
pub fn lb_delete(lb: &LoadBalancer, cascade: bool) -> Args {
    args([
        ("loadbalancer", Value::Object(lb_row(lb))),
        ("cascade", Value::Bool(cascade)),
    ])
}

/// `failover_load_balancer`: `load_balancer_id`.
pub fn lb_failover(loadbalancer_id: &str) -> Args {
    args([("load_balancer_id", Value::from(loadbalancer_id))])
}

/// `update_load_balancer`: `original_load_balancer`, `load_balancer_updates` (the changed
/// fields; `admin_state_up` → `enabled`, a set `vip_qos_policy_id` → `vip.qos_policy_id`,
/// a cleared one dropped, as the reference does).
pub fn lb_update(old: &LoadBalancer, new: &LoadBalancer) -> Args {
    let mut u = flat(map_of(new));
    rename(&mut u, "admin_state_up", "enabled");
    let qos = u.remove("vip_qos_policy_id");
    u.remove("loadbalancer_id");
    if let Some(q) = qos.filter(|q| q.as_str().is_some_and(|s| !s.is_empty())) {
        let mut vip = Map::new();
        vip.insert("qos_policy_id".into(), q);
        u.insert("vip".into(), Value::Object(vip));
    }
    args([
        ("original_load_balancer", Value::Object(lb_row(old))),
        ("load_balancer_updates", Value::Object(u)),
    ])
}

/// A whole listener of an ORM object (`db_listener_to_provider_listener(...).to_dict()` on
/// the update and delete paths): `default_pool` absent (not loaded); lists
/// (`sni_container_refs`, `allowed_cidrs`, set `tls_versions` / `alpn_protocols`) dropped.
pub fn listener_row(l: &Listener) -> Map<String, Value> {
    let mut m = map_of(l);
    m.remove("default_pool");
    fill(&mut m, LISTENER_KEYS);
    flat(m)
}

/// `create_listener`: `listener`, the data model's: as [`listener_row`], plus `default_pool`
/// `null` without a default pool (a set one is a nested model, dropped).
pub fn listener_create(l: &Listener) -> Args {
    let mut m = listener_row(l);
    if !matches!(l.default_pool_id, Some(Some(_))) {
        m.insert("default_pool".into(), Value::Null);
    }
    args([("listener", Value::Object(m))])
}

/// `delete_listener`: `listener` ([`listener_row`]).
pub fn listener_delete(l: &Listener) -> Args {
    args([("listener", Value::Object(listener_row(l)))])
}

/// `update_listener`: `original_listener`, `listener_updates` (the changed fields as they
/// are: `listener_id` kept, `admin_state_up` not renamed, lists dropped).
pub fn listener_update(old: &Listener, new: &Listener) -> Args {
    args([
        ("original_listener", Value::Object(listener_row(old))),
        ("listener_updates", Value::Object(flat(map_of(new)))),
    ])
}

fn session_persistence(m: &mut Map<String, Value>) {
    if let Some(Value::Object(sp)) = m.get_mut("session_persistence") {
        fill(sp, SESSION_PERSISTENCE_KEYS);
    }
}

/// A whole pool of an ORM object, non-recursive (`original_pool`, pool.py `put`): members
/// and `healthmonitor` absent (a set monitor is a nested model, dropped; none leaves it
/// Unset); `session_persistence` as the API passes it (pool.py reads it only to complete
/// a request's persistence that names no `type`).
fn pool_row(p: &Pool) -> Map<String, Value> {
    let mut m = map_of(p);
    fill(&mut m, POOL_KEYS);
    m.remove("healthmonitor");
    if p.session_persistence.is_none() {
        m.remove("session_persistence");
    }
    session_persistence(&mut m);
    flat(m)
}

/// A whole pool, recursive (`to_dict(recurse=True)`) of the data model a create converts:
/// members and monitor rendered whole, `healthmonitor` `null` and `members` `[]` when none.
fn pool_recursive(p: &Pool) -> Map<String, Value> {
    let mut m = map_of(p);
    fill(&mut m, POOL_KEYS);
    session_persistence(&mut m);
    m.insert(
        "healthmonitor".into(),
        p.healthmonitor
            .as_ref()
            .map_or(Value::Null, |h| Value::Object(hm_row(h))),
    );
    m.insert(
        "members".into(),
        Value::Array(
            p.members
                .iter()
                .flatten()
                .map(|x| Value::Object(member_row(x)))
                .collect(),
        ),
    );
    for k in SECRET_KEYS {
        m.remove(*k);
    }
    m
}

/// The reference's `_pool_convert_to_dict`: recursive, `admin_state_up` → `enabled`,
/// `*_container_ref` → `tls_certificate_id` / `ca_tls_certificate_id` / `crl_container_id`,
/// the `*_data` keys dropped.
fn pool_converted(mut m: Map<String, Value>) -> Map<String, Value> {
    rename(&mut m, "admin_state_up", "enabled");
    rename(&mut m, "tls_container_ref", "tls_certificate_id");
    m.remove("tls_container_data");
    rename(&mut m, "ca_tls_container_ref", "ca_tls_certificate_id");
    m.remove("ca_tls_container_data");
    rename(&mut m, "crl_container_ref", "crl_container_id");
    m.remove("crl_container_data");
    m
}

/// `create_pool`: `pool` (recursive and converted).
pub fn pool_create(p: &Pool) -> Args {
    args([("pool", Value::Object(pool_converted(pool_recursive(p))))])
}

/// `delete_pool`: `pool` (recursive, not converted) of the ORM object pool.py `delete`
/// converts: `session_persistence` absent, `healthmonitor` only with a monitor, `members`
/// only when there is one.
pub fn pool_delete(p: &Pool) -> Args {
    let mut m = pool_recursive(p);
    m.remove("session_persistence");
    if p.healthmonitor.is_none() {
        m.remove("healthmonitor");
    }
    if p.members.as_ref().is_none_or(Vec::is_empty) {
        m.remove("members");
    }
    args([("pool", Value::Object(m))])
}

/// `update_pool`: `original_pool` (non-recursive), `pool_updates` (the changed fields,
/// converted, `pool_id` dropped).
pub fn pool_update(old: &Pool, new: &Pool) -> Args {
    let mut u = map_of(new);
    session_persistence(&mut u);
    if let Some(h) = &new.healthmonitor {
        u.insert("healthmonitor".into(), Value::Object(hm_row(h)));
    }
    if let Some(ms) = &new.members {
        u.insert(
            "members".into(),
            Value::Array(ms.iter().map(|x| Value::Object(member_row(x))).collect()),
        );
    }
    let mut u = pool_converted(u);
    u.remove("pool_id");
    args([
        ("original_pool", Value::Object(pool_row(old))),
        ("pool_updates", Value::Object(u)),
    ])
}

/// A whole member (`db_member_to_provider_member(...).to_dict()`).
pub fn member_row(x: &Member) -> Map<String, Value> {
    let mut m = map_of(x);
    fill(&mut m, MEMBER_KEYS);
    flat(m)
}

/// `create_member` / `delete_member`: `member`.
pub fn member(x: &Member) -> Args {
    args([("member", Value::Object(member_row(x)))])
}

/// `update_member`: `original_member`, `member_updates` (`admin_state_up` → `enabled`,
/// `member_id` dropped).
pub fn member_update(old: &Member, new: &Member) -> Args {
    let mut u = flat(map_of(new));
    rename(&mut u, "admin_state_up", "enabled");
    u.remove("member_id");
    args([
        ("original_member", Value::Object(member_row(old))),
        ("member_updates", Value::Object(u)),
    ])
}

/// `batch_update_members`: `old_members` (rows of the members the batch deletes, as
/// [`DbMember::to_dict`]), `new_members` (whole provider members not in the pool yet),
/// `updated_members` (the others: `member_id` → `id`, `address` → `ip_address`,
/// `admin_state_up` → `enabled`). `new_members` and `updated_members` keep the request's
/// order; `old_members` the order of the reference's `db_pool.members`, a lazy load with no
/// ORDER BY that InnoDB answers from the only index leading with `pool_id`,
/// `uq_member_pool_id_address_protocol_port`: by `ip_address`, then `protocol_port`.
pub fn member_batch(existing: &[DbMember], members: &[Member]) -> Args {
    let mut new_members = Vec::new();
    let mut updated = Vec::new();
    for x in members {
        if existing.iter().any(|e| e.id == x.member_id) {
            let mut m = member_row(x);
            rename(&mut m, "member_id", "id");
            rename(&mut m, "address", "ip_address");
            rename(&mut m, "admin_state_up", "enabled");
            updated.push(Value::Object(m));
        } else {
            new_members.push(Value::Object(member_row(x)));
        }
    }
    let mut old: Vec<&DbMember> = existing
        .iter()
        .filter(|e| !members.iter().any(|x| x.member_id == e.id))
        .collect();
    old.sort_by(|a, b| {
        (a.ip_address.as_str(), a.protocol_port).cmp(&(b.ip_address.as_str(), b.protocol_port))
    });
    let old: Vec<Value> = old
        .into_iter()
        .map(|e| Value::Object(e.to_dict()))
        .collect();
    args([
        ("old_members", Value::Array(old)),
        ("new_members", Value::Array(new_members)),
        ("updated_members", Value::Array(updated)),
    ])
}

/// A whole health monitor.
pub fn hm_row(h: &HealthMonitor) -> Map<String, Value> {
    let mut m = map_of(h);
    fill(&mut m, HM_KEYS);
    flat(m)
}

/// `create_health_monitor` / `delete_health_monitor`: `health_monitor`.
pub fn health_monitor(h: &HealthMonitor) -> Args {
    args([("health_monitor", Value::Object(hm_row(h)))])
}

/// `update_health_monitor`: `original_health_monitor`, `health_monitor_updates`
/// (`admin_state_up` → `enabled`, `max_retries_down` → `fall_threshold`, `max_retries` →
/// `rise_threshold`, `healthmonitor_id` dropped).
pub fn health_monitor_update(old: &HealthMonitor, new: &HealthMonitor) -> Args {
    let mut u = flat(map_of(new));
    rename(&mut u, "admin_state_up", "enabled");
    rename(&mut u, "max_retries_down", "fall_threshold");
    rename(&mut u, "max_retries", "rise_threshold");
    u.remove("healthmonitor_id");
    args([
        ("original_health_monitor", Value::Object(hm_row(old))),
        ("health_monitor_updates", Value::Object(u)),
    ])
}

/// A whole L7 policy (its `rules` list dropped).
pub fn l7policy_row(p: &L7Policy) -> Map<String, Value> {
    let mut m = map_of(p);
    fill(&mut m, L7POLICY_KEYS);
    flat(m)
}

/// `create_l7policy` / `delete_l7policy`: `l7policy`.
pub fn l7policy(p: &L7Policy) -> Args {
    args([("l7policy", Value::Object(l7policy_row(p)))])
}

/// `update_l7policy`: `original_l7policy`, `l7policy_updates` (`admin_state_up` →
/// `enabled`, `l7policy_id` dropped).
pub fn l7policy_update(old: &L7Policy, new: &L7Policy) -> Args {
    let mut u = flat(map_of(new));
    rename(&mut u, "admin_state_up", "enabled");
    u.remove("l7policy_id");
    args([
        ("original_l7policy", Value::Object(l7policy_row(old))),
        ("l7policy_updates", Value::Object(u)),
    ])
}

/// A whole L7 rule.
pub fn l7rule_row(r: &L7Rule) -> Map<String, Value> {
    let mut m = map_of(r);
    fill(&mut m, L7RULE_KEYS);
    flat(m)
}

/// `create_l7rule` / `delete_l7rule`: `l7rule`.
pub fn l7rule(r: &L7Rule) -> Args {
    args([("l7rule", Value::Object(l7rule_row(r)))])
}

/// `update_l7rule`: `original_l7rule`, `l7rule_updates` (`admin_state_up` → `enabled`,
/// `l7rule_id` dropped).
pub fn l7rule_update(old: &L7Rule, new: &L7Rule) -> Args {
    let mut u = flat(map_of(new));
    rename(&mut u, "admin_state_up", "enabled");
    u.remove("l7rule_id");
    args([
        ("original_l7rule", Value::Object(l7rule_row(old))),
        ("l7rule_updates", Value::Object(u)),
    ])
}

/// `failover_amphora` / `delete_amphora` / `update_amphora_agent_config`: `amphora_id`
/// (octavia/api/v2/controllers/amphora.py).
pub fn amphora(amphora_id: &str) -> Args {
    args([("amphora_id", Value::from(amphora_id))])
}
