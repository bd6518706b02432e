//! Hostile input into every operation of the OpenAPI document (`docs/openapi.json`), on
//! SQLite and MariaDB: the answer is 2xx, 4xx or 501 — never a 500 — and a refused request
//! writes nothing.
//!
//! The cases are generated from the document, not listed by hand:
//! * every leaf of every request body schema (following `$ref`, nested objects and array
//!   items, so a graph create's `listeners[0].default_pool.members[0].address` is one), set to
//!   each of [`hostile_values`] inside an otherwise valid body ([`base_body`]);
//! * every query parameter of every operation set to each of [`HOSTILE_QUERY`];
//! * every path parameter replaced by each of [`HOSTILE_IDS`] (for DELETE only these, so
//!   the fixture survives);
//! * every write operation with a body that is no JSON, JSON of the wrong shape, and the
//!   wrong content type.
//!
//! A fixture tree (LB, HTTP listener, pool, member, health monitor, L7 policy and rule,
//! flavor profile + flavor, AZ profile + AZ) is made first. Before each case the database
//! is read whole (every row of every table, `octavia_db::columns()`); after a 4xx or 501 it
//! must be identical. After a 2xx every PENDING_* row is set ACTIVE (what the provider's
//! report would do), so the next case finds the tree writable.
//!
//! Bounded for CI: `KEEL_FUZZ_CASES` cases per backend (default 600), taken evenly from the
//! whole list starting at `KEEL_FUZZ_OFFSET` (default 0); `KEEL_FUZZ_CASES=all` runs every
//! case (several thousand). `KEEL_FUZZ_BACKEND=sqlite` or `mariadb` runs one backend only.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use std::collections::BTreeMap;

use axum::body::Body;
use axum::http::Request;
use serde_json::{Map, Value, json};
use tower::ServiceExt;

const OPENAPI: &str = include_str!("../../../docs/openapi.json");

/// Values of the wrong type, out of every column's range, huge, or odd text.
fn hostile_values() -> Vec<Value> {
    vec![
        json!(1e308),
        json!(-1e308),
        json!(9_223_372_036_854_775_808u64),
        json!(-9.3e18),
        json!(4_294_967_296u64),
        json!(2_147_483_648u64),
        json!(-1),
        json!(1.5),
        json!(true),
        Value::Null,
        json!(""),
        json!("x".repeat(10_000)),
        json!("y".repeat(256)),
        json!("é".repeat(256)),
        json!("nul\u{0}byte"),
        json!("not-a-uuid"),
        json!("1e308"),
        json!([]),
        Value::Array(vec![json!("x"); 10_000]),
        json!({"a": {"b": [1, {"c": null}]}}),
    ]
}

/// Query values: numbers out of range, empty, junk, very long, percent-encoded NUL.
const HOSTILE_QUERY: &[&str] = &[
    "-1",
    "0",
    "1e308",
    "99999999999999999999",
    "",
    "not-a-uuid",
    "%00",
    "name:sideways,id:up",
    "é",
];

/// Path ids: no UUID, a NUL, very long, a traversal, an unknown UUID.
const HOSTILE_IDS: &[&str] = &[
    "not-a-uuid",
    "%00",
    "..%2F..%2Fv2",
    "9b8a1c5e-0000-4000-8000-000000000000",
];

/// One request of the run.
#[derive(Clone, Debug)]
struct Case {
    method: &'static str,
    path: String,
    /// The raw body and its content type (`None`: no body).
    body: Option<(String, &'static str)>,
    /// What is being tried, for the failure list.
    what: String,
}

/// The fixture's ids by path parameter role.
struct Fixture {
    lb: String,
    listener: String,
    pool: String,
    member: String,
    hm_pool: String,
    l7policy: String,
    l7rule: String,
    flavorprofile: String,
    flavor: String,
    azprofile: String,
    az: String,
}

async fn fixture(env: &common::Env) -> Fixture {
    let lb = env.active_lb("fz").await;
    let listener = env
        .create(
            "/v2/lbaas/listeners",
            "listener",
            json!({"loadbalancer_id": lb, "protocol": "HTTP", "protocol_port": 80}),
        )
        .await;
    activate_all(env).await;
    let pool = env
        .create(
            "/v2/lbaas/pools",
            "pool",
            json!({"listener_id": listener, "protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN"}),
        )
        .await;
    activate_all(env).await;
    let member = env
        .create(
            &format!("/v2/lbaas/pools/{pool}/members"),
            "member",
            json!({"address": "10.0.0.5", "protocol_port": 80}),
        )
        .await;
    activate_all(env).await;
    let hm_pool = env
        .create(
            "/v2/lbaas/pools",
            "pool",
            json!({"loadbalancer_id": lb, "protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN"}),
        )
        .await;
    activate_all(env).await;
    env.create(
        "/v2/lbaas/healthmonitors",
        "healthmonitor",
        json!({"pool_id": hm_pool, "type": "HTTP", "delay": 5, "timeout": 3, "max_retries": 3}),
    )
    .await;
    activate_all(env).await;
    let l7policy = env
        .create(
            "/v2/lbaas/l7policies",
            "l7policy",
            json!({"listener_id": listener, "action": "REJECT"}),
        )
        .await;
    activate_all(env).await;
    let l7rule = env
        .create(
            &format!("/v2/lbaas/l7policies/{l7policy}/rules"),
            "rule",
            json!({"type": "PATH", "compare_type": "STARTS_WITH", "value": "/a"}),
        )
        .await;
    activate_all(env).await;
    let flavorprofile = env
        .create(
            "/v2/lbaas/flavorprofiles",
            "flavorprofile",
            json!({"name": "fp", "provider_name": "yes", "flavor_data": "{}"}),
        )
        .await;
    let flavor = env
        .create(
            "/v2/lbaas/flavors",
            "flavor",
            json!({"name": "f", "flavor_profile_id": flavorprofile}),
        )
        .await;
    let azprofile = env
        .create(
            "/v2/lbaas/availabilityzoneprofiles",
            "availability_zone_profile",
            json!({"name": "azp", "provider_name": "yes", "availability_zone_data": "{}"}),
        )
        .await;
    let (s, b) = env
        .req(
            "POST",
            "/v2/lbaas/availabilityzones",
            Some(json!({"availability_zone": {"name": "az", "availability_zone_profile_id": azprofile}})),
        )
        .await;
    assert!(s.is_success(), "{b}");
    Fixture {
        lb,
        listener,
        pool,
        member,
        hm_pool,
        l7policy,
        l7rule,
        flavorprofile,
        flavor,
        azprofile,
        az: "az".into(),
    }
}

impl Fixture {
    /// The real value of path parameter `param` of `template` (the segment before `{id}`
    /// names the collection).
    fn param(&self, template: &str, param: &str) -> String {
        let before = |p: &str| {
            let i = template.find(&format!("{{{p}}}")).unwrap_or(0);
            template[..i]
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .unwrap_or("")
                .to_string()
        };
        match param {
            "l7policy_id" => self.l7policy.clone(),
            "pool_id" => self.pool.clone(),
            "project_id" => common::PROJECT.into(),
            "provider" => "yes".into(),
            "name" => self.az.clone(),
            _ => match before(param).as_str() {
                "loadbalancers" => self.lb.clone(),
                "listeners" => self.listener.clone(),
                "pools" => self.pool.clone(),
                "members" => self.member.clone(),
                "healthmonitors" => self.hm_id_placeholder(),
                "l7policies" => self.l7policy.clone(),
                "rules" => self.l7rule.clone(),
                "flavorprofiles" => self.flavorprofile.clone(),
                "flavors" => self.flavor.clone(),
                "availabilityzoneprofiles" => self.azprofile.clone(),
                _ => uuid::Uuid::new_v4().to_string(),
            },
        }
    }

    /// The health monitor's id is looked up lazily (see [`hm_id`]); path building only needs
    /// a stable marker.
    fn hm_id_placeholder(&self) -> String {
        "{hm}".into()
    }

    /// A valid body for a create (`POST`) of `template`; `k` varies what must be unique.
    fn base_body(&self, template: &str, k: usize) -> Value {
        let port = 1000 + (k % 60_000);
        match template {
            "/v2/lbaas/loadbalancers" => json!({"loadbalancer": {"vip_subnet_id": common::SUBNET}}),
            "/v2/lbaas/listeners" => json!({"listener": {
                "loadbalancer_id": self.lb, "protocol": "TCP", "protocol_port": port}}),
            "/v2/lbaas/pools" => json!({"pool": {
                "loadbalancer_id": self.lb, "protocol": "TCP", "lb_algorithm": "ROUND_ROBIN"}}),
            "/v2/lbaas/pools/{pool_id}/members" => json!({"member": {
                "address": format!("10.1.{}.{}", (k / 250) % 250, k % 250 + 1), "protocol_port": 80}}),
            "/v2/lbaas/healthmonitors" => json!({"healthmonitor": {
                "pool_id": self.pool, "type": "HTTP", "delay": 5, "timeout": 3, "max_retries": 3}}),
            "/v2/lbaas/l7policies" => json!({"l7policy": {
                "listener_id": self.listener, "action": "REJECT"}}),
            "/v2/lbaas/l7policies/{l7policy_id}/rules" => json!({"rule": {
                "type": "PATH", "compare_type": "STARTS_WITH", "value": "/b"}}),
            "/v2/lbaas/flavorprofiles" => json!({"flavorprofile": {
                "name": "fp2", "provider_name": "yes", "flavor_data": "{}"}}),
            "/v2/lbaas/flavors" => json!({"flavor": {
                "name": format!("f{k}"), "flavor_profile_id": self.flavorprofile}}),
            "/v2/lbaas/availabilityzoneprofiles" => json!({"availability_zone_profile": {
                "name": "azp2", "provider_name": "yes", "availability_zone_data": "{}"}}),
            "/v2/lbaas/availabilityzones" => json!({"availability_zone": {
                "name": format!("az{k}"), "availability_zone_profile_id": self.azprofile}}),
            "/v2/lbaas/pools/{pool_id}/members#batch" => json!({"members": [
                {"address": "10.0.0.5", "protocol_port": 80}]}),
            _ => Value::Null,
        }
    }
}

/// Resolves `{"$ref": "#/components/schemas/X"}` (and `allOf` of one) to the schema.
fn resolve<'a>(doc: &'a Value, mut s: &'a Value) -> &'a Value {
    for _ in 0..8 {
        if let Some(r) = s.get("$ref").and_then(Value::as_str) {
            let name = r.rsplit('/').next().unwrap_or("");
            s = &doc["components"]["schemas"][name];
        } else if let Some([one]) = s.get("allOf").and_then(Value::as_array).map(Vec::as_slice) {
            s = one;
        } else {
            break;
        }
    }
    s
}

/// A step of a path into a JSON body: an object key or an array index.
#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index,
}

/// Every leaf path (and every intermediate object/array path) of a body schema, depth ≤ 6.
fn leaf_paths(doc: &Value, s: &Value, prefix: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    if prefix.len() > 6 {
        return;
    }
    let s = resolve(doc, s);
    if let Some(props) = s.get("properties").and_then(Value::as_object) {
        for (k, sub) in props {
            prefix.push(Step::Key(k.clone()));
            out.push(prefix.clone());
            leaf_paths(doc, sub, prefix, out);
            prefix.pop();
        }
    }
    if let Some(items) = s.get("items") {
        prefix.push(Step::Index);
        leaf_paths(doc, items, prefix, out);
        prefix.pop();
    }
    for alt in ["anyOf", "oneOf"] {
        if let Some(alts) = s.get(alt).and_then(Value::as_array) {
            for a in alts {
                if a.get("properties").is_some() || a.get("$ref").is_some() {
                    leaf_paths(doc, a, prefix, out);
                }
            }
        }
    }
}

/// `body` with the value at `path` replaced by `v`, creating the objects/arrays on the way.
fn set_at(body: &Value, path: &[Step], v: Value) -> Value {
    let mut out = body.clone();
    let mut cur = &mut out;
    for (i, step) in path.iter().enumerate() {
        let last = i + 1 == path.len();
        match step {
            Step::Key(k) => {
                if !cur.is_object() {
                    *cur = Value::Object(Map::new());
                }
                let m = cur.as_object_mut().unwrap();
                if last {
                    m.insert(k.clone(), v);
                    return out;
                }
                cur = m.entry(k.clone()).or_insert(Value::Null);
            }
            Step::Index => {
                if cur.as_array().is_none_or(|a| a.is_empty()) {
                    *cur = json!([{}]);
                }
                let a = cur.as_array_mut().unwrap();
                if last {
                    a[0] = v;
                    return out;
                }
                cur = &mut a[0];
            }
        }
    }
    out
}

fn show(path: &[Step]) -> String {
    path.iter()
        .map(|s| match s {
            Step::Key(k) => format!(".{k}"),
            Step::Index => "[0]".into(),
        })
        .collect()
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 40 {
        format!(
            "{}…({} chars)",
            &s[..s.char_indices().nth(30).map_or(s.len(), |c| c.0)],
            s.len()
        )
    } else {
        s
    }
}

/// Percent-encodes everything but unreserved characters (a `%00` stays literal: it is meant).
fn enc(s: &str) -> String {
    if s == "%00" {
        return s.into();
    }
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~:,".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// Every case the document yields, in a fixed order.
fn all_cases(doc: &Value, fx: &Fixture) -> Vec<Case> {
    let mut cases = Vec::new();
    let values = hostile_values();
    let paths = doc["paths"].as_object().unwrap();
    for (template, ops) in paths {
        for (m, op) in ops.as_object().unwrap() {
            let method: &'static str = match m.as_str() {
                "get" => "GET",
                "post" => "POST",
                "put" => "PUT",
                "delete" => "DELETE",
                _ => continue,
            };
            let params: Vec<&Value> = op["parameters"]
                .as_array()
                .map_or(vec![], |v| v.iter().collect());
            let path_params: Vec<String> = params
                .iter()
                .filter(|p| p["in"] == "path")
                .filter_map(|p| p["name"].as_str().map(String::from))
                .collect();
            let real = |t: &str| {
                let mut p = t.to_string();
                for name in &path_params {
                    p = p.replace(&format!("{{{name}}}"), &fx.param(t, name));
                }
                p
            };
            // hostile path parameters
            for name in &path_params {
                for bad in HOSTILE_IDS {
                    let mut p = template.clone();
                    for other in &path_params {
                        let v = if other == name {
                            (*bad).to_string()
                        } else {
                            fx.param(template, other)
                        };
                        p = p.replace(&format!("{{{other}}}"), &v);
                    }
                    cases.push(Case {
                        method,
                        path: p,
                        body: (method == "POST" || method == "PUT")
                            .then(|| ("{}".to_string(), "application/json")),
                        what: format!("{method} {template} {name}={bad}"),
                    });
                }
            }
            if method == "DELETE" {
                continue;
            }
            // hostile query parameters
            for p in params.iter().filter(|p| p["in"] == "query") {
                let Some(name) = p["name"].as_str() else {
                    continue;
                };
                for q in HOSTILE_QUERY {
                    cases.push(Case {
                        method,
                        path: format!("{}?{}={}", real(template), name, enc(q)),
                        body: (method != "GET").then(|| ("{}".to_string(), "application/json")),
                        what: format!("{method} {template}?{name}={q}"),
                    });
                }
            }
            let Some(schema) = op.pointer("/requestBody/content/application~1json/schema") else {
                continue;
            };
            let batch = method == "PUT" && template == "/v2/lbaas/pools/{pool_id}/members";
            let key = if batch {
                format!("{template}#batch")
            } else {
                template.clone()
            };
            // malformed bodies and wrong content types
            for (raw, ct, why) in [
                ("{", "application/json", "no JSON"),
                ("[]", "application/json", "a JSON array"),
                ("{\"x\": 1}", "application/json", "an unknown wrapper"),
                ("{}", "text/plain", "text/plain"),
                ("<a/>", "application/xml", "XML"),
            ] {
                cases.push(Case {
                    method,
                    path: real(template),
                    body: Some((raw.to_string(), ct)),
                    what: format!("{method} {template} body {why}"),
                });
            }
            let mut leaves = Vec::new();
            leaf_paths(doc, schema, &mut Vec::new(), &mut leaves);
            for leaf in leaves {
                for v in &values {
                    let k = cases.len();
                    let base = if method == "POST" || batch {
                        fx.base_body(&key, k)
                    } else {
                        let Some(Step::Key(wrapper)) = leaf.first() else {
                            continue;
                        };
                        json!({ wrapper.clone(): {} })
                    };
                    let body = set_at(&base, &leaf, v.clone());
                    cases.push(Case {
                        method,
                        path: real(template),
                        body: Some((body.to_string(), "application/json")),
                        what: format!("{method} {template} {} = {}", show(&leaf), short(v)),
                    });
                }
            }
        }
    }
    cases
}

/// The health monitor's id (the fixture's only one on `hm_pool`).
async fn hm_id(env: &common::Env, fx: &Fixture) -> String {
    let (_, b) = env
        .req("GET", &format!("/v2/lbaas/pools/{}", fx.hm_pool), None)
        .await;
    b["pool"]["healthmonitor_id"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

/// Tables that carry a provisioning_status.
const STATUS_TABLES: &[&str] = &[
    "load_balancer",
    "listener",
    "pool",
    "member",
    "health_monitor",
    "l7policy",
    "l7rule",
];

/// What the provider's report would do after an accepted write: every PENDING_* row ACTIVE
/// (PENDING_DELETE rows deleted ones are left alone: nothing here deletes the fixture).
async fn activate_all(env: &common::Env) {
    for t in STATUS_TABLES {
        env.sql(
            &format!(
                "UPDATE `{t}` SET provisioning_status = 'ACTIVE' WHERE provisioning_status IN ('PENDING_CREATE', 'PENDING_UPDATE')"
            ),
            vec![],
        )
        .await;
    }
}

/// Every row of every table, as text, sorted: the whole database's state.
async fn snapshot(env: &common::Env) -> BTreeMap<&'static str, Vec<String>> {
    let mysql = env.mysql_url().is_some();
    let mut by_table: BTreeMap<&'static str, Vec<&'static str>> = BTreeMap::new();
    for (table, column, _, _) in octavia_db::columns() {
        by_table.entry(table).or_default().push(column);
    }
    let mut out = BTreeMap::new();
    let mut tx = env.db.begin_read().await.unwrap();
    for (table, cols) in by_table {
        let expr = if mysql {
            let parts: Vec<String> = cols
                .iter()
                .map(|c| format!("IFNULL(CAST(`{c}` AS CHAR), '~')"))
                .collect();
            format!("CONCAT_WS('|', {})", parts.join(", "))
        } else {
            let parts: Vec<String> = cols
                .iter()
                .map(|c| format!("IFNULL(CAST(`{c}` AS TEXT), '~')"))
                .collect();
            parts.join(" || '|' || ")
        };
        let mut rows = tx
            .fetch_scalars::<String>(&format!("SELECT {expr} FROM `{table}`"), vec![])
            .await
            .unwrap();
        rows.sort();
        out.insert(table, rows);
    }
    out
}

fn budget() -> (Option<usize>, usize) {
    let n = match std::env::var("KEEL_FUZZ_CASES").as_deref() {
        Ok("all") => None,
        Ok(s) => Some(s.parse().expect("KEEL_FUZZ_CASES: a number or `all`")),
        Err(_) => Some(600),
    };
    let off = std::env::var("KEEL_FUZZ_OFFSET")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (n, off)
}

async fn send(env: &common::Env, c: &Case) -> (u16, String) {
    let mut b = Request::builder()
        .method(c.method)
        .uri(&c.path)
        .header("host", "keel.test")
        .header("x-project-id", common::PROJECT);
    let body = match &c.body {
        Some((raw, ct)) => {
            b = b.header("content-type", *ct);
            Body::from(raw.clone())
        }
        None => Body::empty(),
    };
    let resp = env
        .router
        .clone()
        .oneshot(b.body(body).unwrap())
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
        .await
        .unwrap();
    (
        status,
        String::from_utf8_lossy(&bytes).chars().take(200).collect(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_input_never_500_and_refusals_write_nothing() {
    each_backend!(common::Setup::accept_all(), |env| {
        let on_mariadb = env.mysql_url().is_some();
        match std::env::var("KEEL_FUZZ_BACKEND").as_deref() {
            Ok("sqlite") if on_mariadb => {
                env.done().await;
                continue;
            }
            Ok("mariadb") if !on_mariadb => {
                env.done().await;
                continue;
            }
            _ => {}
        }
        let fx = fixture(&env).await;
        let hm = hm_id(&env, &fx).await;
        let doc: Value = serde_json::from_str(OPENAPI).unwrap();
        let cases = all_cases(&doc, &fx);
        let (budget, offset) = budget();
        let picked: Vec<&Case> = match budget {
            None => cases.iter().collect(),
            Some(n) => {
                let stride = (cases.len() / n.max(1)).max(1);
                cases
                    .iter()
                    .skip(offset % stride)
                    .step_by(stride)
                    .take(n)
                    .collect()
            }
        };
        assert!(
            picked.len() >= budget.unwrap_or(0).min(cases.len()) / 2,
            "too few cases"
        );
        let mut failures = Vec::new();
        let mut answered: BTreeMap<u16, usize> = BTreeMap::new();
        for c in picked {
            let mut c = c.clone();
            c.path = c.path.replace("{hm}", &hm);
            let before = snapshot(&env).await;
            let (status, text) = send(&env, &c).await;
            *answered.entry(status).or_default() += 1;
            let ok_class =
                (200..300).contains(&status) || (400..500).contains(&status) || status == 501;
            if !ok_class {
                failures.push(format!("{} → {status} {text}", c.what));
                continue;
            }
            if (200..300).contains(&status) {
                activate_all(&env).await;
            } else {
                let after = snapshot(&env).await;
                if after != before {
                    let changed: Vec<&str> = after
                        .iter()
                        .filter(|(t, rows)| before.get(*t) != Some(*rows))
                        .map(|(t, _)| *t)
                        .collect();
                    failures.push(format!("{} → {status} but wrote {changed:?}", c.what));
                }
            }
        }
        eprintln!(
            "fuzz ({}): {} generated, answers {answered:?}",
            if env.mysql_url().is_some() {
                "MariaDB"
            } else {
                "SQLite"
            },
            cases.len()
        );
        assert!(
            failures.is_empty(),
            "{} failures:\n{}",
            failures.len(),
            failures.join("\n")
        );
    });
}
