//! The whole-database check after a 2xx: every row of every table is read before and after
//! the request ([`super::fixture::snapshot`]), and each row that differs must be one the
//! operation may touch ([`allowance`]):
//!
//! * a GET: nothing (a quota read only stores the configured defaults of the row's unset
//!   limits, as the reference's `_get_db_quotas` does);
//! * a create (`POST`): rows inserted, all in the tree of the new object (its children by
//!   their owner column — listeners and pools of a load balancer, members and monitor of a
//!   pool, policies of a listener, rules of a policy —, the pools its `default_pool_id` /
//!   `redirect_pool_id` names, and the attribute rows of each: VIP, security groups,
//!   additional VIPs, SNI, CIDRs, session persistence, tags); a listener's `default_pool_id`
//!   set to the new pool; the sibling L7 policies' `position`;
//! * an update (`PUT`): that object's row and its attribute rows; the sibling L7 policies'
//!   `position`; a load balancer failover only the load balancer's status columns;
//! * a member batch (`PUT /pools/{id}/members`): the pool's member rows and their tags, and the
//!   members then live are exactly the sent ones (with `additive_only`, the old ones and the
//!   sent ones), an existing member keeping its id ([`batch_members`]);
//! * a delete: the object's tree (a cascade's whole load balancer, a listener's policies, a
//!   pool's members and monitor, a policy's rules), each row deleted or only its status
//!   columns changed; a reference to a deleted object cleared; the sibling L7 policies'
//!   `position`;
//! * a quota `PUT`/`DELETE`: that project's `quotas` row, and after a DELETE its limits are
//!   the configured defaults ([`quota_reset`]);
//! * for every write: the status columns (`provisioning_status`, `operating_status`,
//!   `updated_at`) of the object's ancestors (its load balancer, listeners, pool, policy), and
//!   the `in_use_*` counters of the projects of the rows written (a new `quotas` row with no
//!   limit set).
//!
//! Any other difference fails the case, each shown as `table[key]: column old → new`.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::fixture::{Db, Row};

/// Object tables: (table, id column, owner column).
const OBJECTS: &[(&str, &str, Option<&str>)] = &[
    ("load_balancer", "id", None),
    ("listener", "id", Some("load_balancer_id")),
    ("pool", "id", Some("load_balancer_id")),
    ("member", "id", Some("pool_id")),
    ("health_monitor", "id", Some("pool_id")),
    ("l7policy", "id", Some("listener_id")),
    ("l7rule", "id", Some("l7policy_id")),
    ("flavor", "id", None),
    ("flavor_profile", "id", None),
    ("availability_zone", "name", None),
    ("availability_zone_profile", "id", None),
];

/// Attribute tables: rows that are part of the object their owner column names.
const ATTRS: &[(&str, &str)] = &[
    ("vip", "load_balancer_id"),
    ("vip_security_group", "load_balancer_id"),
    ("additional_vip", "load_balancer_id"),
    ("sni", "listener_id"),
    ("listener_cidr", "listener_id"),
    ("listener_statistics", "listener_id"),
    ("session_persistence", "pool_id"),
    ("tags", "resource_id"),
];

/// Columns naming a pool: a graph create makes the pool with its referrer; a deleted pool's
/// references are cleared.
const REFS: &[(&str, &str)] = &[
    ("listener", "default_pool_id"),
    ("l7policy", "redirect_pool_id"),
];

/// What every write may change on the object's ancestors.
const STATUS: &[&str] = &["provisioning_status", "operating_status", "updated_at"];

/// The limit columns of `quotas` (the rest: `project_id` and the `in_use_*` counters).
pub const LIMITS: &[&str] = &[
    "load_balancer",
    "listener",
    "pool",
    "health_monitor",
    "member",
    "l7policy",
    "l7rule",
];

/// Every (table, column) the allowance names (checked against the schema by a test).
pub fn named_columns() -> Vec<(&'static str, &'static str)> {
    let mut out = Vec::new();
    for (t, id, owner) in OBJECTS {
        out.push((*t, *id));
        out.extend(owner.map(|o| (*t, o)));
        if *t != "availability_zone"
            && *t != "flavor"
            && *t != "flavor_profile"
            && *t != "availability_zone_profile"
        {
            out.extend(STATUS.iter().map(|c| (*t, *c)));
        }
    }
    out.extend(ATTRS.iter().copied());
    out.extend(REFS.iter().copied());
    out.extend(LIMITS.iter().map(|c| ("quotas", *c)));
    out.extend([
        ("l7policy", "position"),
        ("member", "ip_address"),
        ("member", "protocol_port"),
    ]);
    out
}

/// One row that differs.
pub enum Change<'a> {
    Insert(&'a Row),
    Delete(&'a Row),
    /// before, after, the columns that differ
    Update(&'a Row, &'a Row, Vec<&'static str>),
}

/// Every row of `after` not as in `before`, by table and key.
pub fn changes<'a>(before: &'a Db, after: &'a Db) -> Vec<(&'static str, &'a str, Change<'a>)> {
    const EMPTY: &BTreeMap<String, Row> = &BTreeMap::new();
    let mut out = Vec::new();
    for (table, rows_after) in after {
        let rows_before = before.get(table).unwrap_or(EMPTY);
        for (k, a) in rows_after {
            match rows_before.get(k) {
                None => out.push((*table, k.as_str(), Change::Insert(a))),
                Some(b) if b != a => {
                    let cols = a
                        .iter()
                        .filter(|(c, v)| b.get(*c) != Some(*v))
                        .map(|(c, _)| *c)
                        .collect();
                    out.push((*table, k.as_str(), Change::Update(b, a, cols)));
                }
                Some(_) => {}
            }
        }
        for (k, b) in rows_before {
            if !rows_after.contains_key(k) {
                out.push((*table, k.as_str(), Change::Delete(b)));
            }
        }
    }
    out
}

fn col<'r>(row: &'r Row, c: &str) -> Option<&'r str> {
    row.get(c).and_then(|v| v.as_deref())
}

/// The object a row is or belongs to: an object row's id, an attribute row's owner.
fn subject<'r>(table: &str, row: &'r Row) -> Option<&'r str> {
    if let Some((_, id, _)) = OBJECTS.iter().find(|(t, _, _)| *t == table) {
        return col(row, id);
    }
    let (_, owner) = ATTRS.iter().find(|(t, _)| *t == table)?;
    col(row, owner)
}

/// `roots` and every object below them in `db` (owner columns; with `refs`, the pools their
/// reference columns name too), among the rows `eligible` admits.
fn tree(
    db: &Db,
    roots: &BTreeSet<String>,
    refs: bool,
    eligible: &dyn Fn(&str, &str) -> bool,
) -> BTreeSet<String> {
    let mut set = roots.clone();
    loop {
        let n = set.len();
        for (table, id_col, owner) in OBJECTS {
            let Some(owner) = owner else { continue };
            for (k, row) in db.get(table).into_iter().flatten() {
                if !eligible(table, k) {
                    continue;
                }
                if col(row, owner).is_some_and(|o| set.contains(o))
                    && let Some(id) = col(row, id_col)
                {
                    set.insert(id.to_string());
                }
            }
        }
        if refs {
            for (table, c) in REFS {
                for row in db.get(table).into_iter().flat_map(|t| t.values()) {
                    if col(row, "id").is_some_and(|id| set.contains(id))
                        && let Some(p) = col(row, c)
                    {
                        let new = db
                            .get("pool")
                            .and_then(|t| t.get(p))
                            .is_some_and(|_| eligible("pool", p));
                        if new {
                            set.insert(p.to_string());
                        }
                    }
                }
            }
        }
        if set.len() == n {
            return set;
        }
    }
}

/// The ancestors of `ids` in the databases: owners up to the load balancer, and a pool's
/// listeners (its `default_pool_id` ones, those of policies redirecting to it).
fn ancestors(dbs: &[&Db], ids: &BTreeSet<String>) -> BTreeSet<String> {
    let mut set = ids.clone();
    loop {
        let n = set.len();
        for db in dbs {
            for (table, id_col, owner) in OBJECTS {
                let Some(owner) = owner else { continue };
                for row in db.get(table).into_iter().flat_map(|t| t.values()) {
                    if col(row, id_col).is_some_and(|id| set.contains(id))
                        && let Some(o) = col(row, owner)
                    {
                        set.insert(o.to_string());
                    }
                }
            }
            for (table, c) in REFS {
                for row in db.get(table).into_iter().flat_map(|t| t.values()) {
                    if col(row, c).is_some_and(|p| set.contains(p))
                        && let Some(id) = col(row, "id")
                    {
                        set.insert(id.to_string());
                    }
                }
            }
        }
        if set.len() == n {
            return set;
        }
    }
}

/// The `project_id` of every object row with an id in `ids`.
fn projects_of(dbs: &[&Db], ids: &BTreeSet<String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for db in dbs {
        for (table, id_col, _) in OBJECTS {
            for row in db.get(table).into_iter().flat_map(|t| t.values()) {
                if col(row, id_col).is_some_and(|id| ids.contains(id))
                    && let Some(p) = col(row, "project_id")
                {
                    out.insert(p.to_string());
                }
            }
        }
    }
    out
}

/// What an answered request may change (see the module doc).
#[derive(Default, Debug)]
pub struct Allow {
    /// Objects whose rows and attribute rows may change in any way.
    free: BTreeSet<String>,
    /// Objects (and their attribute rows) that may be inserted.
    new: BTreeSet<String>,
    /// Objects (and their attribute rows) that may be deleted or change status columns.
    doomed: BTreeSet<String>,
    /// Objects whose status columns may change.
    status: BTreeSet<String>,
    /// A reference column may change from or to these ids.
    refs: BTreeSet<String>,
    /// The listener whose L7 policies may change `position`.
    siblings_of: Option<String>,
    /// Projects whose `in_use_*` counters may change.
    projects: BTreeSet<String>,
    /// The project whose `quotas` row the request writes.
    quota_row: Option<String>,
    /// Unset (NULL) limits of any `quotas` row may become the defaults.
    quota_fill: bool,
    /// Member batch: the pool.
    pub batch_pool: Option<String>,
}

/// `%XX` decoded last segment of the path (the query cut).
fn last_segment(path: &str) -> String {
    let p = path.split('?').next().unwrap_or(path);
    super::stored::unescape(p.rsplit('/').next().unwrap_or(""))
}

/// What `op` (`METHOD /template`), sent to `path` with body `sent` and answered with
/// `answer`, may change between `before` and `after`.
pub fn allowance(
    op: &str,
    path: &str,
    sent: Option<&Value>,
    answer: &Value,
    before: &Db,
    after: &Db,
    project: &str,
) -> Allow {
    let (method, template) = op.split_once(' ').unwrap_or((op, ""));
    let both = [before, after];
    let mut a = Allow::default();
    let l7_listener = |id: &str| {
        both.iter()
            .find_map(|db| {
                db.get("l7policy")?
                    .get(id)
                    .and_then(|r| col(r, "listener_id"))
            })
            .map(str::to_string)
    };
    match method {
        "GET" => {
            a.quota_fill =
                template.starts_with("/v2/lbaas/quotas") && !template.ends_with("/default");
        }
        "POST" => {
            let Some(wrapper) = sent
                .and_then(Value::as_object)
                .and_then(|o| o.keys().next())
            else {
                return a;
            };
            let obj = &answer[wrapper.as_str()];
            let Some(id) = obj
                .get("id")
                .or_else(|| obj.get("name"))
                .and_then(Value::as_str)
            else {
                return a;
            };
            let root = BTreeSet::from([id.to_string()]);
            let inserted = |t: &str, k: &str| before.get(t).is_none_or(|r| !r.contains_key(k));
            a.new = tree(after, &root, true, &inserted);
            a.refs = a.new.clone();
            a.status = ancestors(&both, &a.new);
            a.projects = projects_of(&both, &a.new);
            a.projects.insert(project.to_string());
            if wrapper == "l7policy" {
                a.siblings_of = l7_listener(id);
            }
        }
        "PUT" if template == "/v2/lbaas/pools/{pool_id}/members" => {
            let p = path.split('/').nth(4).unwrap_or("").to_string();
            for db in both {
                for row in db.get("member").into_iter().flat_map(|t| t.values()) {
                    if col(row, "pool_id") == Some(p.as_str()) {
                        a.free.extend(col(row, "id").map(str::to_string));
                    }
                }
            }
            a.status = ancestors(&both, &BTreeSet::from([p.clone()]));
            a.projects = projects_of(&both, &a.free);
            a.projects.insert(project.to_string());
            a.batch_pool = Some(p);
        }
        "PUT" if template == "/v2/lbaas/loadbalancers/{id}/failover" => {
            let lb = path.split('/').nth(4).unwrap_or("").to_string();
            a.status.insert(lb);
        }
        "PUT" | "DELETE" if template.starts_with("/v2/lbaas/quotas/") => {
            a.quota_row = Some(last_segment(path));
            a.quota_fill = true;
        }
        "PUT" if template.starts_with("/v2/lbaas/") => {
            let id = last_segment(path);
            if template.starts_with("/v2/lbaas/l7policies/{id}") {
                a.siblings_of = l7_listener(&id);
            }
            a.free.insert(id.clone());
            a.status = ancestors(&both, &a.free);
        }
        "DELETE" if template.starts_with("/v2/lbaas/") => {
            let id = last_segment(path);
            if template == "/v2/lbaas/l7policies/{id}" {
                a.siblings_of = l7_listener(&id);
            }
            a.doomed = tree(before, &BTreeSet::from([id.clone()]), false, &|_, _| true);
            a.refs = a.doomed.clone();
            a.status = ancestors(&both, &a.doomed);
            a.projects = projects_of(&both, &a.doomed);
            a.projects.insert(project.to_string());
        }
        // amphora writes and anything else: nothing
        _ => {}
    }
    a
}

fn show(v: Option<&Option<String>>) -> String {
    match v {
        None => "-".into(),
        Some(None) => "NULL".into(),
        Some(Some(s)) => super::cases::short(&format!("{s:?}")),
    }
}

fn show_row(row: &Row) -> String {
    let cells: Vec<String> = row
        .iter()
        .filter(|(_, v)| v.is_some())
        .map(|(c, v)| format!("{c}={}", show(Some(v))))
        .collect();
    format!("{{{}}}", cells.join(", "))
}

/// The quota defaults by column (from `GET /v2/lbaas/quotas/{p}/default`'s `quota`).
pub fn defaults_by_column(quota: &Value) -> BTreeMap<&'static str, String> {
    let alias = |c: &'static str| -> &'static str {
        match c {
            "load_balancer" => "loadbalancer",
            "health_monitor" => "healthmonitor",
            other => other,
        }
    };
    LIMITS
        .iter()
        .filter_map(|c| {
            let v = quota.get(*c).or_else(|| quota.get(alias(c)))?;
            Some((*c, v.to_string()))
        })
        .collect()
}

/// Each change of `changes` that `a` does not allow, readable.
pub fn unallowed(
    changes: &[(&'static str, &str, Change<'_>)],
    a: &Allow,
    defaults: &BTreeMap<&'static str, String>,
) -> Vec<String> {
    let mut out = Vec::new();
    for (table, key, ch) in changes {
        let row = match ch {
            Change::Insert(r) | Change::Delete(r) => *r,
            Change::Update(_, r, _) => *r,
        };
        let ok = if *table == "quotas" {
            quota_ok(key, ch, a, defaults)
        } else {
            let subj = subject(table, row).unwrap_or("");
            let is_object = OBJECTS.iter().any(|(t, _, _)| t == table);
            match ch {
                _ if a.free.contains(subj) => true,
                Change::Insert(_) => a.new.contains(subj),
                Change::Delete(_) => a.doomed.contains(subj),
                Change::Update(b, r, cols) => cols.iter().all(|c| {
                    (STATUS.contains(c)
                        && is_object
                        && (a.status.contains(subj) || a.doomed.contains(subj)))
                        || (REFS.contains(&(table, c))
                            && [col(b, c), col(r, c)]
                                .iter()
                                .flatten()
                                .any(|v| a.refs.contains(*v)))
                        || (*table == "l7policy"
                            && (*c == "position" || *c == "updated_at")
                            && a.siblings_of
                                .as_deref()
                                .is_some_and(|l| col(r, "listener_id") == Some(l)))
                }),
            }
        };
        if ok {
            continue;
        }
        out.push(match ch {
            Change::Insert(r) => format!("{table}[{key}] inserted {}", show_row(r)),
            Change::Delete(r) => format!("{table}[{key}] deleted {}", show_row(r)),
            Change::Update(b, r, cols) => {
                let d: Vec<String> = cols
                    .iter()
                    .map(|c| format!("{c} {} → {}", show(b.get(c)), show(r.get(c))))
                    .collect();
                format!("{table}[{key}]: {}", d.join(", "))
            }
        });
    }
    out
}

/// A `quotas` row's change: the written project's row; the counters of the projects written
/// to (a new row with no limit set); unset limits becoming the defaults where a read or
/// write of the quota stores them.
fn quota_ok(
    project: &str,
    ch: &Change<'_>,
    a: &Allow,
    defaults: &BTreeMap<&'static str, String>,
) -> bool {
    if a.quota_row.as_deref() == Some(project) {
        // any limit; the counters stay
        return match ch {
            Change::Insert(_) => true,
            Change::Delete(_) => false,
            Change::Update(_, _, cols) => cols.iter().all(|c| LIMITS.contains(c)),
        };
    }
    let counter = |c: &str| c.starts_with("in_use_") && a.projects.contains(project);
    let fill = |c: &str, b: &Row, r: &Row| {
        a.quota_fill
            && LIMITS.contains(&c)
            && col(b, c).is_none()
            && col(r, c).is_some_and(|v| defaults.get(c).is_some_and(|d| d == v))
    };
    match ch {
        Change::Insert(r) => {
            a.projects.contains(project) && LIMITS.iter().all(|c| col(r, c).is_none())
        }
        Change::Delete(_) => false,
        Change::Update(b, r, cols) => cols.iter().all(|c| counter(c) || fill(c, b, r)),
    }
}

/// After a quota DELETE: the row's limits are the configured defaults.
pub fn quota_reset(
    after: &Db,
    project: &str,
    defaults: &BTreeMap<&'static str, String>,
) -> Vec<String> {
    let Some(row) = after.get("quotas").and_then(|t| t.get(project)) else {
        return vec![format!("no quotas row {project} after its DELETE")];
    };
    LIMITS
        .iter()
        .filter(|c| col(row, c) != defaults.get(*c).map(String::as_str))
        .map(|c| {
            format!(
                "quotas[{project}].{c} after DELETE: {}, default {:?}",
                show(row.get(c)),
                defaults.get(*c)
            )
        })
        .collect()
}

/// Whether a query string value is true as the API reads a boolean parameter.
fn truthy(v: &str) -> bool {
    matches!(
        v.trim().to_lowercase().as_str(),
        "1" | "t" | "true" | "on" | "y" | "yes"
    )
}

/// After a member batch on `pool`: the live members (not PENDING_DELETE/DELETED) are exactly
/// the sent ones — with `additive_only`, the old ones and the sent ones —, compared by
/// address and port, and a member that was there keeps its id.
pub fn batch_members(
    before: &Db,
    after: &Db,
    pool: &str,
    path: &str,
    sent: &[Value],
) -> Vec<String> {
    let additive = path
        .split_once('?')
        .map(|(_, q)| {
            q.split('&').any(|kv| {
                kv.split_once('=').is_some_and(|(k, v)| {
                    k == "additive_only" && truthy(&super::stored::unescape(v))
                })
            })
        })
        .unwrap_or(false);
    let live = |db: &Db| -> Vec<(String, String, String)> {
        db.get("member")
            .into_iter()
            .flatten()
            .map(|(_, r)| r)
            .filter(|r| col(r, "pool_id") == Some(pool))
            .filter(|r| {
                !matches!(
                    col(r, "provisioning_status"),
                    Some("PENDING_DELETE" | "DELETED")
                )
            })
            .map(|r| {
                (
                    col(r, "ip_address").unwrap_or("").to_string(),
                    col(r, "protocol_port").unwrap_or("").to_string(),
                    col(r, "id").unwrap_or("").to_string(),
                )
            })
            .collect()
    };
    let same_addr = |a: &str, b: &Value| match (
        a.parse::<std::net::IpAddr>(),
        b.as_str().map(|s| s.parse::<std::net::IpAddr>()),
    ) {
        (Ok(x), Some(Ok(y))) => x == y,
        _ => b.as_str() == Some(a),
    };
    let same_port = |p: &str, b: &Value| {
        p.parse::<f64>()
            .ok()
            .is_some_and(|n| super::stored::same(b, &serde_json::json!(n as i64)))
    };
    let old = live(before);
    let new = live(after);
    let sent: Vec<&Value> = sent.iter().filter(|m| m.is_object()).collect();
    let wanted = |(a, p, _): &(String, String, String)| {
        sent.iter()
            .any(|m| same_addr(a, &m["address"]) && same_port(p, &m["protocol_port"]))
            || additive && old.iter().any(|(oa, op, _)| oa == a && op == p)
    };
    let mut out = Vec::new();
    for m in &new {
        if !wanted(m) {
            out.push(format!(
                "member {}:{} ({}) live after the batch, not sent",
                m.0, m.1, m.2
            ));
        }
    }
    for s in &sent {
        if !new
            .iter()
            .any(|(a, p, _)| same_addr(a, &s["address"]) && same_port(p, &s["protocol_port"]))
        {
            out.push(format!("batch member {s} not live after the batch"));
        }
    }
    if additive {
        for o in &old {
            if !new.iter().any(|(a, p, _)| *a == o.0 && *p == o.1) {
                out.push(format!(
                    "member {}:{} gone after an additive_only batch",
                    o.0, o.1
                ));
            }
        }
    }
    for (a, p, id) in &new {
        if let Some((_, _, old_id)) = old.iter().find(|(oa, op, _)| oa == a && op == p)
            && old_id != id
        {
            out.push(format!(
                "member {a}:{p} was {old_id}, is {id} after the batch"
            ));
        }
    }
    out
}
