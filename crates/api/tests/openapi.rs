//! The OpenAPI document (`api::openapi`): the checked-in `docs/openapi.json` is current, the
//! document is structurally valid OpenAPI 3.1, the router serves exactly the documented routes
//! and methods, `GET /v2/openapi.json` serves it, and every documented operation, called for
//! real (in-process router over octavia-db on SQLite and on the stack's MariaDB), answers a
//! documented status with a body that validates against the documented schema.
//!
//! Regenerate the checked-in file with `KEEL_BLESS=1 cargo test -p api --test openapi`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use std::collections::BTreeSet;
use std::sync::Arc;

use api::{AuthMode, openapi};
use axum::http::StatusCode;
use common::auth::RoleTokens;
use common::{Env, PROJECT, SUBNET, Setup};
use serde_json::{Value, json};

/// The routes as the router spells them: `(path, methods)`, documented paths in order, with
/// the `.json` suffix the router never sees (the path rewrite strips it) removed.
fn routes() -> Vec<(String, Vec<&'static str>)> {
    let mut out: Vec<(String, Vec<&'static str>)> = Vec::new();
    for o in openapi::OPERATIONS {
        let path = o.path.strip_suffix(".json").unwrap_or(o.path).to_string();
        match out.iter_mut().find(|(p, _)| *p == path) {
            Some((_, ms)) => ms.push(o.method),
            None => out.push((path, vec![o.method])),
        }
    }
    out
}

fn doc_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/openapi.json")
}

fn pretty(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap();
    s.push('\n');
    s
}

#[test]
fn checked_in_document_is_current() {
    let want = pretty(&openapi::document());
    let path = doc_path();
    if std::env::var("KEEL_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "{} is not the generated document; regenerate it with \
         `KEEL_BLESS=1 cargo test -p api --test openapi` and commit it",
        path.display()
    );
}

/// Every `$ref` in `v`.
fn refs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                if k == "$ref" {
                    out.push(x.as_str().unwrap().to_string());
                } else {
                    refs(x, out);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
        _ => {}
    }
}

fn resolve<'a>(doc: &'a Value, r: &str) -> Option<&'a Value> {
    doc.pointer(r.strip_prefix('#')?)
}

/// The `.route("<path>"` literals of the router's sources: `router` itself and the
/// `routes()` of every resource module it merges.
fn router_paths() -> BTreeSet<String> {
    let sources = [
        include_str!("../src/lib.rs"),
        include_str!("../src/load_balancer/mod.rs"),
        include_str!("../src/listener/mod.rs"),
        include_str!("../src/pool/mod.rs"),
        include_str!("../src/member/mod.rs"),
        include_str!("../src/member/batch.rs"),
        include_str!("../src/health_monitor/mod.rs"),
        include_str!("../src/l7policy/mod.rs"),
        include_str!("../src/l7rule/mod.rs"),
        include_str!("../src/quotas/mod.rs"),
        include_str!("../src/provider_api.rs"),
        include_str!("../src/flavors.rs"),
        include_str!("../src/profiles.rs"),
        include_str!("../src/amphora/mod.rs"),
    ];
    let mut out = BTreeSet::new();
    for src in sources {
        let mut rest = src;
        while let Some(i) = rest.find(".route(") {
            rest = &rest[i + 7..];
            let start = rest.find('"').unwrap();
            let tail = &rest[start + 1..];
            let end = tail.find('"').unwrap();
            out.insert(tail[..end].to_string());
        }
    }
    out
}

#[test]
fn document_is_structurally_valid_openapi_3_1() {
    let d = openapi::document();
    assert_eq!(d["openapi"], "3.1.0");
    assert!(d["info"]["title"].is_string() && d["info"]["version"].is_string());
    let mut all = Vec::new();
    refs(&d, &mut all);
    assert!(!all.is_empty());
    for r in &all {
        assert!(resolve(&d, r).is_some(), "dangling $ref {r}");
    }
    let methods = [
        "get", "put", "post", "delete", "patch", "head", "options", "trace",
    ];
    let mut ids = BTreeSet::new();
    for (path, item) in d["paths"].as_object().unwrap() {
        assert!(path.starts_with('/'), "{path}");
        let in_path: BTreeSet<String> = path
            .split('/')
            .filter_map(|s| s.strip_prefix('{').and_then(|x| x.strip_suffix('}')))
            .map(str::to_string)
            .collect();
        for (m, op) in item.as_object().unwrap() {
            assert!(methods.contains(&m.as_str()), "{path}: {m}");
            let id = op["operationId"].as_str().unwrap();
            assert!(ids.insert(id.to_string()), "duplicate operationId {id}");
            let responses = op["responses"].as_object().unwrap();
            assert!(
                responses.keys().any(|k| k.starts_with('2')),
                "{m} {path} has no success response"
            );
            for (code, resp) in responses {
                assert!(code.len() == 3 && code.parse::<u16>().is_ok(), "{code}");
                let resp = match resp.get("$ref") {
                    Some(r) => resolve(&d, r.as_str().unwrap()).unwrap(),
                    None => resp,
                };
                assert!(resp["description"].is_string(), "{m} {path} {code}");
            }
            let params = op["parameters"].as_array().cloned().unwrap_or_default();
            let declared: BTreeSet<String> = params
                .iter()
                .filter(|p| p["in"] == "path")
                .map(|p| p["name"].as_str().unwrap().to_string())
                .collect();
            assert_eq!(declared, in_path, "{m} {path}: path parameters");
            let mut seen = BTreeSet::new();
            for p in &params {
                assert!(["path", "query"].contains(&p["in"].as_str().unwrap()));
                assert!(p["schema"].is_object());
                assert!(
                    seen.insert((p["name"].to_string(), p["in"].to_string())),
                    "{m} {path}: duplicate parameter {}",
                    p["name"]
                );
            }
            if let Some(b) = op.get("requestBody") {
                assert!(b["content"]["application/json"]["schema"].is_object());
            }
        }
    }
    // every route of the table is a documented path, and the table is the router's
    let documented: BTreeSet<String> = d["paths"]
        .as_object()
        .unwrap()
        .keys()
        .map(|p| p.strip_suffix(".json").unwrap_or(p).to_string())
        .collect();
    let table: BTreeSet<String> = routes().into_iter().map(|(p, _)| p).collect();
    assert_eq!(documented, table);
    assert_eq!(
        router_paths(),
        table,
        "crate::router and openapi::OPERATIONS disagree on the paths"
    );
}

// ---- a JSON Schema checker for the subset the document uses ----

fn check(doc: &Value, schema: &Value, v: &Value, at: &str) -> Result<(), String> {
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        let target = resolve(doc, r).ok_or(format!("{at}: dangling {r}"))?;
        return check(doc, target, v, at);
    }
    if let Some(any) = schema.get("anyOf").and_then(Value::as_array)
        && !any.iter().any(|s| check(doc, s, v, at).is_ok())
    {
        return Err(format!("{at}: {v} matches none of {schema}"));
    }
    if let Some(one) = schema.get("oneOf").and_then(Value::as_array) {
        let n = one.iter().filter(|s| check(doc, s, v, at).is_ok()).count();
        if n != 1 {
            return Err(format!(
                "{at}: {v} matches {n} (not exactly one) of {schema}"
            ));
        }
    }
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        for s in all {
            check(doc, s, v, at)?;
        }
    }
    if let Some(c) = schema.get("const")
        && c != v
    {
        return Err(format!("{at}: {v} is not {c}"));
    }
    if let Some(e) = schema.get("enum").and_then(Value::as_array)
        && !e.contains(v)
    {
        return Err(format!("{at}: {v} not in {schema}"));
    }
    if let Some(t) = schema.get("type") {
        let types: Vec<&str> = match t {
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            other => vec![other.as_str().unwrap()],
        };
        let ok = types.iter().any(|t| match *t {
            "null" => v.is_null(),
            "string" => v.is_string(),
            "integer" => v.is_i64() || v.is_u64(),
            "number" => v.is_number(),
            "boolean" => v.is_boolean(),
            "array" => v.is_array(),
            "object" => v.is_object(),
            _ => false,
        });
        if !ok {
            return Err(format!("{at}: {v} is not of type {t}"));
        }
    }
    if let (Some(fmt), Some(s)) = (schema.get("format").and_then(Value::as_str), v.as_str()) {
        let ok = match fmt {
            "uuid" => uuid::Uuid::parse_str(s).is_ok(),
            "ipv4" => s.parse::<std::net::Ipv4Addr>().is_ok(),
            "ipv6" => s.parse::<std::net::Ipv6Addr>().is_ok(),
            _ => true,
        };
        if !ok {
            return Err(format!("{at}: {s:?} is not a {fmt}"));
        }
    }
    if let Some(n) = v.as_i64()
        && (schema
            .get("minimum")
            .and_then(Value::as_i64)
            .is_some_and(|m| n < m)
            || schema
                .get("maximum")
                .and_then(Value::as_i64)
                .is_some_and(|m| n > m))
    {
        return Err(format!("{at}: {n} out of range in {schema}"));
    }
    if let Some(s) = v.as_str() {
        let n = s.chars().count() as u64;
        if schema
            .get("maxLength")
            .and_then(Value::as_u64)
            .is_some_and(|m| n > m)
            || schema
                .get("minLength")
                .and_then(Value::as_u64)
                .is_some_and(|m| n < m)
        {
            return Err(format!("{at}: {s:?} has the wrong length for {schema}"));
        }
    }
    if let (Some(min), Some(a)) = (schema.get("minItems").and_then(Value::as_u64), v.as_array())
        && (a.len() as u64) < min
    {
        return Err(format!("{at}: fewer than {min} items"));
    }
    if let (Some(items), Some(a)) = (schema.get("items"), v.as_array()) {
        for (i, x) in a.iter().enumerate() {
            check(doc, items, x, &format!("{at}[{i}]"))?;
        }
    }
    if let Some(o) = v.as_object() {
        let props = schema.get("properties").and_then(Value::as_object);
        if let Some(req) = schema.get("required").and_then(Value::as_array) {
            for k in req {
                if !o.contains_key(k.as_str().unwrap()) {
                    return Err(format!("{at}: missing required {k} in {v}"));
                }
            }
        }
        for (k, x) in o {
            match props.and_then(|p| p.get(k)) {
                Some(s) => check(doc, s, x, &format!("{at}.{k}"))?,
                None => match schema.get("additionalProperties") {
                    Some(Value::Bool(false)) => {
                        return Err(format!("{at}: undocumented attribute {k:?}"));
                    }
                    Some(s @ Value::Object(_)) => check(doc, s, x, &format!("{at}.{k}"))?,
                    _ => {}
                },
            }
        }
    }
    Ok(())
}

/// Call `method concrete` and check it against the operation `method template`: a documented
/// status, a body valid for that status's schema (or no body when none is documented).
struct Checker<'a> {
    env: &'a Env,
    doc: Value,
    seen: BTreeSet<(String, String)>,
}

impl Checker<'_> {
    async fn call(
        &mut self,
        method: &str,
        template: &str,
        concrete: &str,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let (status, v) = self.env.req(method, concrete, body).await;
        let m = method.to_ascii_lowercase();
        let op = &self.doc["paths"][template][&m];
        assert!(op.is_object(), "{m} {template} is not documented");
        let mut resp = op["responses"][status.as_str()].clone();
        assert!(
            resp.is_object(),
            "{method} {concrete}: status {status} is not documented for {m} {template}: {v}"
        );
        if let Some(r) = resp.get("$ref").and_then(Value::as_str) {
            resp = resolve(&self.doc, r).unwrap().clone();
        }
        match resp["content"].as_object().and_then(|c| c.values().next()) {
            Some(media) => {
                check(
                    &self.doc,
                    &media["schema"],
                    &v,
                    &format!("{method} {concrete}"),
                )
                .unwrap_or_else(|e| panic!("{e}"));
            }
            None => assert!(v.is_null(), "{method} {concrete}: undocumented body {v}"),
        }
        self.seen.insert((m, template.to_string()));
        (status, v)
    }

    /// As [`Self::call`], and the status must be the documented success.
    async fn ok(
        &mut self,
        method: &str,
        template: &str,
        concrete: &str,
        body: Option<Value>,
    ) -> Value {
        let (status, v) = self.call(method, template, concrete, body).await;
        assert!(status.is_success(), "{method} {concrete}: {status} {v}");
        v
    }
}

fn id(v: &Value, key: &str) -> String {
    v[key]["id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn every_operation_answers_as_documented() {
    for mysql in common::db::backends() {
        let env = Env::new(mysql, Setup::accept_all()).await;
        let mut c = Checker {
            env: &env,
            doc: openapi::document(),
            seen: BTreeSet::new(),
        };
        let served = c
            .ok("GET", openapi::OPENAPI_PATH, openapi::OPENAPI_PATH, None)
            .await;
        assert_eq!(served, openapi::document());
        c.ok("GET", "/", "/", None).await;
        let (s, _) = c.call("GET", "/healthcheck", "/healthcheck", None).await;
        assert_eq!(s, StatusCode::NOT_FOUND); // healthcheck_enabled is off by default
        for p in ["/v2", "/v2/lbaas", "/v2/octavia"] {
            c.ok("GET", p, p, None).await;
        }

        // flavors, availability zones, profiles, providers
        let fp = c.ok("POST", "/v2/lbaas/flavorprofiles", "/v2/lbaas/flavorprofiles",
            Some(json!({"flavorprofile": {"name": "fp", "provider_name": "yes", "flavor_data": "{\"compute_flavor\": \"x\"}"}}))).await;
        let fp = id(&fp, "flavorprofile");
        let fpp = format!("/v2/lbaas/flavorprofiles/{fp}");
        c.ok(
            "GET",
            "/v2/lbaas/flavorprofiles",
            "/v2/lbaas/flavorprofiles",
            None,
        )
        .await;
        c.ok("GET", "/v2/lbaas/flavorprofiles/{id}", &fpp, None)
            .await;
        c.ok(
            "PUT",
            "/v2/lbaas/flavorprofiles/{id}",
            &fpp,
            Some(json!({"flavorprofile": {"name": "fp2"}})),
        )
        .await;
        let fl = c
            .ok(
                "POST",
                "/v2/lbaas/flavors",
                "/v2/lbaas/flavors",
                Some(json!({"flavor": {"name": "fl", "flavor_profile_id": fp}})),
            )
            .await;
        let flp = format!("/v2/lbaas/flavors/{}", id(&fl, "flavor"));
        c.ok("GET", "/v2/lbaas/flavors", "/v2/lbaas/flavors", None)
            .await;
        c.ok("GET", "/v2/lbaas/flavors/{id}", &flp, None).await;
        c.ok(
            "PUT",
            "/v2/lbaas/flavors/{id}",
            &flp,
            Some(json!({"flavor": {"description": "d"}})),
        )
        .await;
        let azp = c.ok("POST", "/v2/lbaas/availabilityzoneprofiles", "/v2/lbaas/availabilityzoneprofiles",
            Some(json!({"availability_zone_profile": {"name": "azp", "provider_name": "yes", "availability_zone_data": "{\"compute_zone\": \"z\"}"}}))).await;
        let azp = id(&azp, "availability_zone_profile");
        let azpp = format!("/v2/lbaas/availabilityzoneprofiles/{azp}");
        c.ok(
            "GET",
            "/v2/lbaas/availabilityzoneprofiles",
            "/v2/lbaas/availabilityzoneprofiles",
            None,
        )
        .await;
        c.ok(
            "GET",
            "/v2/lbaas/availabilityzoneprofiles/{id}",
            &azpp,
            None,
        )
        .await;
        c.ok(
            "PUT",
            "/v2/lbaas/availabilityzoneprofiles/{id}",
            &azpp,
            Some(json!({"availability_zone_profile": {"name": "azp2"}})),
        )
        .await;
        c.ok(
            "POST",
            "/v2/lbaas/availabilityzones",
            "/v2/lbaas/availabilityzones",
            Some(
                json!({"availability_zone": {"name": "az1", "availability_zone_profile_id": azp}}),
            ),
        )
        .await;
        c.ok(
            "GET",
            "/v2/lbaas/availabilityzones",
            "/v2/lbaas/availabilityzones",
            None,
        )
        .await;
        c.ok(
            "GET",
            "/v2/lbaas/availabilityzones/{name}",
            "/v2/lbaas/availabilityzones/az1",
            None,
        )
        .await;
        c.ok(
            "PUT",
            "/v2/lbaas/availabilityzones/{name}",
            "/v2/lbaas/availabilityzones/az1",
            Some(json!({"availability_zone": {"description": "d"}})),
        )
        .await;
        c.ok("GET", "/v2/lbaas/providers", "/v2/lbaas/providers", None)
            .await;
        for cap in ["flavor_capabilities", "availability_zone_capabilities"] {
            c.ok(
                "GET",
                &format!("/v2/lbaas/providers/{{provider}}/{cap}"),
                &format!("/v2/lbaas/providers/yes/{cap}"),
                None,
            )
            .await;
        }

        // the load balancer tree
        let lb = c.ok("POST", "/v2/lbaas/loadbalancers", "/v2/lbaas/loadbalancers",
            Some(json!({"loadbalancer": {"name": "lb", "vip_subnet_id": SUBNET, "tags": ["t1"]}}))).await;
        let plain = json!({"$ref": "#/components/schemas/LoadBalancer"});
        let full = json!({"$ref": "#/components/schemas/LoadBalancerFull"});
        check(&c.doc, &plain, &lb["loadbalancer"], "plain").unwrap();
        assert!(check(&c.doc, &full, &lb["loadbalancer"], "plain").is_err());
        let lb = id(&lb, "loadbalancer");
        let lbp = format!("/v2/lbaas/loadbalancers/{lb}");
        // the single-call graph create answers the whole tree (LoadBalancerFullResponse)
        let g = c.ok("POST", "/v2/lbaas/loadbalancers", "/v2/lbaas/loadbalancers",
            Some(json!({"loadbalancer": {"name": "graph", "vip_subnet_id": SUBNET,
                "listeners": [{"name": "gl", "protocol": "HTTP", "protocol_port": 8080,
                    "default_pool": {"name": "gp", "protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN",
                        "session_persistence": {"type": "SOURCE_IP"},
                        "members": [{"address": "10.0.0.30", "protocol_port": 80, "subnet_id": SUBNET},
                            {"address": "10.0.0.31", "protocol_port": 80, "tags": ["m"]}],
                        "healthmonitor": {"type": "HTTP", "delay": 5, "timeout": 3, "max_retries": 3}},
                    "l7policies": [{"action": "REDIRECT_TO_POOL", "redirect_pool": {"name": "rp"},
                        "rules": [{"type": "PATH", "compare_type": "STARTS_WITH", "value": "/api"}]},
                        {"action": "REJECT", "position": 1}]}],
                "pools": [{"name": "rp", "protocol": "HTTP", "lb_algorithm": "LEAST_CONNECTIONS"}]}}))).await;
        let g = &g["loadbalancer"];
        check(&c.doc, &full, g, "graph").unwrap();
        assert!(check(&c.doc, &plain, g, "graph").is_err());
        let gl = &g["listeners"][0];
        assert!(gl.get("loadbalancers").is_none(), "{gl}");
        assert_eq!(gl["l7policies"].as_array().unwrap().len(), 2);
        let redirect = gl["l7policies"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["action"] == "REDIRECT_TO_POOL")
            .unwrap();
        assert_eq!(redirect["rules"][0]["value"], "/api");
        let pools = g["pools"].as_array().unwrap();
        assert_eq!(pools.len(), 2);
        let gp = pools.iter().find(|p| p["name"] == "gp").unwrap();
        let rp = pools.iter().find(|p| p["name"] == "rp").unwrap();
        assert_eq!(gl["default_pool_id"], gp["id"]);
        assert_eq!(redirect["redirect_pool_id"], rp["id"]);
        assert_eq!(gp["members"].as_array().unwrap().len(), 2);
        assert_eq!(gp["healthmonitor"]["type"], "HTTP");
        assert!(rp["healthmonitor"].is_null() && rp["members"] == json!([]));
        for p in pools {
            assert!(p.get("healthmonitor_id").is_none() && p.get("loadbalancers").is_none());
        }
        // a graph of pools only is full too
        let g2 = c
            .ok(
                "POST",
                "/v2/lbaas/loadbalancers",
                "/v2/lbaas/loadbalancers",
                Some(json!({"loadbalancer": {"vip_subnet_id": SUBNET,
                "pools": [{"name": "only", "protocol": "TCP", "lb_algorithm": "SOURCE_IP",
                    "members": [{"address": "10.0.0.40", "protocol_port": 22}]}]}})),
            )
            .await;
        check(&c.doc, &full, &g2["loadbalancer"], "graph2").unwrap();
        assert_eq!(g2["loadbalancer"]["listeners"], json!([]));
        env.set_active(&[("load_balancer", &lb)]).await;
        c.ok(
            "GET",
            "/v2/lbaas/loadbalancers",
            "/v2/lbaas/loadbalancers",
            None,
        )
        .await;
        c.ok("GET", "/v2/lbaas/loadbalancers/{id}", &lbp, None)
            .await;
        c.ok(
            "PUT",
            "/v2/lbaas/loadbalancers/{id}",
            &lbp,
            Some(json!({"loadbalancer": {"description": "d"}})),
        )
        .await;
        env.set_active(&[("load_balancer", &lb)]).await;
        let l = c.ok("POST", "/v2/lbaas/listeners", "/v2/lbaas/listeners",
            Some(json!({"listener": {"loadbalancer_id": lb, "protocol": "HTTP", "protocol_port": 80,
                "insert_headers": {"X-Forwarded-For": "true"}, "allowed_cidrs": ["10.0.0.0/8"]}}))).await;
        let l = id(&l, "listener");
        let lp = format!("/v2/lbaas/listeners/{l}");
        env.set_active(&[("load_balancer", &lb), ("listener", &l)])
            .await;
        c.ok("GET", "/v2/lbaas/listeners", "/v2/lbaas/listeners", None)
            .await;
        c.ok("GET", "/v2/lbaas/listeners/{id}", &lp, None).await;
        c.ok(
            "GET",
            "/v2/lbaas/listeners/{id}/stats",
            &format!("{lp}/stats"),
            None,
        )
        .await;
        c.ok(
            "PUT",
            "/v2/lbaas/listeners/{id}",
            &lp,
            Some(json!({"listener": {"name": "l"}})),
        )
        .await;
        env.set_active(&[("load_balancer", &lb), ("listener", &l)])
            .await;
        let p = c.ok("POST", "/v2/lbaas/pools", "/v2/lbaas/pools",
            Some(json!({"pool": {"listener_id": l, "protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN",
                "session_persistence": {"type": "APP_COOKIE", "cookie_name": "c"}}}))).await;
        let p = id(&p, "pool");
        let pp = format!("/v2/lbaas/pools/{p}");
        let settle = [
            ("load_balancer", lb.as_str()),
            ("listener", l.as_str()),
            ("pool", p.as_str()),
        ];
        env.set_active(&settle).await;
        c.ok("GET", "/v2/lbaas/pools", "/v2/lbaas/pools", None)
            .await;
        c.ok("GET", "/v2/lbaas/pools/{id}", &pp, None).await;
        c.ok(
            "PUT",
            "/v2/lbaas/pools/{id}",
            &pp,
            Some(json!({"pool": {"name": "p"}})),
        )
        .await;
        env.set_active(&settle).await;
        let mm = c.ok("POST", "/v2/lbaas/pools/{pool_id}/members", &format!("{pp}/members"),
            Some(json!({"member": {"address": "10.0.0.20", "protocol_port": 8080, "subnet_id": SUBNET}}))).await;
        let mp = format!("{pp}/members/{}", id(&mm, "member"));
        env.set_active(&settle).await;
        c.ok(
            "GET",
            "/v2/lbaas/pools/{pool_id}/members",
            &format!("{pp}/members"),
            None,
        )
        .await;
        c.ok("GET", "/v2/lbaas/pools/{pool_id}/members/{id}", &mp, None)
            .await;
        c.ok(
            "PUT",
            "/v2/lbaas/pools/{pool_id}/members/{id}",
            &mp,
            Some(json!({"member": {"weight": 5}})),
        )
        .await;
        env.set_active(&settle).await;
        let hm = c.ok("POST", "/v2/lbaas/healthmonitors", "/v2/lbaas/healthmonitors",
            Some(json!({"healthmonitor": {"pool_id": p, "type": "HTTP", "delay": 5, "timeout": 3, "max_retries": 3, "http_version": 1.1, "domain_name": "example.org"}}))).await;
        let hm = id(&hm, "healthmonitor");
        let hp = format!("/v2/lbaas/healthmonitors/{hm}");
        env.set_active(&settle).await;
        c.ok(
            "GET",
            "/v2/lbaas/healthmonitors",
            "/v2/lbaas/healthmonitors",
            None,
        )
        .await;
        c.ok("GET", "/v2/lbaas/healthmonitors/{id}", &hp, None)
            .await;
        c.ok(
            "PUT",
            "/v2/lbaas/healthmonitors/{id}",
            &hp,
            Some(json!({"healthmonitor": {"delay": 6}})),
        )
        .await;
        env.set_active(&settle).await;
        let with_hm = c.ok("GET", "/v2/lbaas/pools/{id}", &pp, None).await;
        assert_eq!(with_hm["pool"]["healthmonitor_id"], hm.as_str());
        // a second pool, the L7 redirect target (so that the first one can be deleted below)
        let p2 = c.ok("POST", "/v2/lbaas/pools", "/v2/lbaas/pools",
            Some(json!({"pool": {"loadbalancer_id": lb, "protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN"}}))).await;
        let p2 = id(&p2, "pool");
        env.set_active(&settle).await;
        env.set_active(&[("pool", &p2)]).await;
        let pol = c.ok("POST", "/v2/lbaas/l7policies", "/v2/lbaas/l7policies",
            Some(json!({"l7policy": {"listener_id": l, "action": "REDIRECT_TO_POOL", "redirect_pool_id": p2}}))).await;
        let pol = id(&pol, "l7policy");
        let polp = format!("/v2/lbaas/l7policies/{pol}");
        let settle2 = [settle[0], settle[1], settle[2], ("l7policy", pol.as_str())];
        env.set_active(&settle2).await;
        c.ok("GET", "/v2/lbaas/l7policies", "/v2/lbaas/l7policies", None)
            .await;
        c.ok("GET", "/v2/lbaas/l7policies/{id}", &polp, None).await;
        c.ok(
            "PUT",
            "/v2/lbaas/l7policies/{id}",
            &polp,
            Some(json!({"l7policy": {"name": "pol"}})),
        )
        .await;
        env.set_active(&settle2).await;
        let rule = c.ok("POST", "/v2/lbaas/l7policies/{l7policy_id}/rules", &format!("{polp}/rules"),
            Some(json!({"rule": {"type": "PATH", "compare_type": "STARTS_WITH", "value": "/api"}}))).await;
        let rid = id(&rule, "rule");
        let rp = format!("{polp}/rules/{rid}");
        let settle3 = [
            settle[0],
            settle[1],
            settle[2],
            settle2[3],
            ("l7rule", rid.as_str()),
        ];
        env.set_active(&settle3).await;
        c.ok(
            "GET",
            "/v2/lbaas/l7policies/{l7policy_id}/rules",
            &format!("{polp}/rules"),
            None,
        )
        .await;
        c.ok(
            "GET",
            "/v2/lbaas/l7policies/{l7policy_id}/rules/{id}",
            &rp,
            None,
        )
        .await;
        c.ok(
            "PUT",
            "/v2/lbaas/l7policies/{l7policy_id}/rules/{id}",
            &rp,
            Some(json!({"rule": {"invert": true}})),
        )
        .await;
        env.set_active(&settle3).await;
        let st = c
            .ok(
                "GET",
                "/v2/lbaas/loadbalancers/{id}/status",
                &format!("{lbp}/status"),
                None,
            )
            .await;
        assert_eq!(
            st["statuses"]["loadbalancer"]["listeners"][0]["pools"][0]["health_monitor"]["id"],
            hm.as_str()
        );
        c.ok(
            "GET",
            "/v2/lbaas/loadbalancers/{id}/statuses",
            &format!("{lbp}/statuses"),
            None,
        )
        .await;
        c.ok(
            "GET",
            "/v2/lbaas/loadbalancers/{id}/stats",
            &format!("{lbp}/stats"),
            None,
        )
        .await;
        c.ok(
            "PUT",
            "/v2/lbaas/pools/{pool_id}/members",
            &format!("{pp}/members"),
            Some(json!({"members": [{"address": "10.0.0.21", "protocol_port": 8080}]})),
        )
        .await;
        env.set_active(&settle).await;
        c.ok(
            "PUT",
            "/v2/lbaas/loadbalancers/{id}/failover",
            &format!("{lbp}/failover"),
            None,
        )
        .await;
        env.set_active(&settle).await;

        // quotas
        let qp = format!("/v2/lbaas/quotas/{PROJECT}");
        c.ok(
            "PUT",
            "/v2/lbaas/quotas/{project_id}",
            &qp,
            Some(json!({"quota": {"loadbalancer": 10, "member": null}})),
        )
        .await;
        c.ok("GET", "/v2/lbaas/quotas", "/v2/lbaas/quotas", None)
            .await;
        c.ok("GET", "/v2/lbaas/quotas/{project_id}", &qp, None)
            .await;
        c.ok(
            "GET",
            "/v2/lbaas/quotas/{project_id}/default",
            &format!("{qp}/default"),
            None,
        )
        .await;
        c.ok("DELETE", "/v2/lbaas/quotas/{project_id}", &qp, None)
            .await;

        // amphorae: none with this provider; every id answers the documented 404
        c.ok("GET", "/v2/octavia/amphorae", "/v2/octavia/amphorae", None)
            .await;
        let ap = format!("/v2/octavia/amphorae/{}", uuid::Uuid::new_v4());
        for (m, t, path) in [
            ("GET", "/v2/octavia/amphorae/{id}", ap.clone()),
            ("DELETE", "/v2/octavia/amphorae/{id}", ap.clone()),
            (
                "GET",
                "/v2/octavia/amphorae/{id}/stats",
                format!("{ap}/stats"),
            ),
            (
                "PUT",
                "/v2/octavia/amphorae/{id}/failover",
                format!("{ap}/failover"),
            ),
            (
                "PUT",
                "/v2/octavia/amphorae/{id}/config",
                format!("{ap}/config"),
            ),
        ] {
            let (s, _) = c.call(m, t, &path, None).await;
            assert_eq!(s, StatusCode::NOT_FOUND);
        }

        // error bodies are documented too
        let (s, _) = c
            .call(
                "POST",
                "/v2/lbaas/listeners",
                "/v2/lbaas/listeners",
                Some(json!({"listener": {"bogus": 1}})),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);

        // deletes, leaves first
        env.set_active(&settle3).await;
        c.ok(
            "DELETE",
            "/v2/lbaas/l7policies/{l7policy_id}/rules/{id}",
            &rp,
            None,
        )
        .await;
        env.set_active(&settle2).await;
        c.ok("DELETE", "/v2/lbaas/l7policies/{id}", &polp, None)
            .await;
        env.set_active(&settle).await;
        c.ok("DELETE", "/v2/lbaas/healthmonitors/{id}", &hp, None)
            .await;
        env.set_active(&settle).await;
        c.ok(
            "DELETE",
            "/v2/lbaas/pools/{pool_id}/members/{id}",
            &mp,
            None,
        )
        .await;
        env.set_active(&settle).await;
        c.ok("DELETE", "/v2/lbaas/pools/{id}", &pp, None).await;
        env.set_active(&settle[..2]).await;
        c.ok("DELETE", "/v2/lbaas/listeners/{id}", &lp, None).await;
        env.set_active(&settle[..1]).await;
        c.ok(
            "DELETE",
            "/v2/lbaas/loadbalancers/{id}",
            &format!("{lbp}?cascade=true"),
            None,
        )
        .await;
        c.ok("DELETE", "/v2/lbaas/flavors/{id}", &flp, None).await;
        c.ok("DELETE", "/v2/lbaas/flavorprofiles/{id}", &fpp, None)
            .await;
        c.ok(
            "DELETE",
            "/v2/lbaas/availabilityzones/{name}",
            "/v2/lbaas/availabilityzones/az1",
            None,
        )
        .await;
        c.ok(
            "DELETE",
            "/v2/lbaas/availabilityzoneprofiles/{id}",
            &azpp,
            None,
        )
        .await;

        let all: BTreeSet<(String, String)> = openapi::OPERATIONS
            .iter()
            .map(|o| (o.method.to_string(), o.path.to_string()))
            .collect();
        let missed: Vec<_> = all.difference(&c.seen).collect();
        assert!(missed.is_empty(), "operations not exercised: {missed:?}");
        env.done().await;
    }
}

#[tokio::test]
async fn router_serves_exactly_the_documented_methods() {
    let env = Env::new(false, Setup::accept_all()).await;
    for (path, methods) in routes() {
        let concrete = path
            .split('/')
            .map(|s| {
                if s.starts_with('{') {
                    uuid::Uuid::new_v4().to_string()
                } else {
                    s.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("/");
        let concrete = if concrete.is_empty() {
            "/".to_string()
        } else {
            concrete
        };
        for m in ["GET", "POST", "PUT", "DELETE", "PATCH"] {
            let (s, b) = env.req(m, &concrete, None).await;
            let documented = methods.contains(&m.to_ascii_lowercase().as_str());
            assert_eq!(
                s == StatusCode::METHOD_NOT_ALLOWED,
                !documented,
                "{m} {path}: {s} {b} (documented: {documented})"
            );
        }
    }
    env.done().await;
}

#[test]
fn the_checker_rejects_what_the_document_does_not_allow() {
    let d = openapi::document();
    let lb = json!({"$ref": "#/components/schemas/LoadBalancer"});
    let stats = json!({"$ref": "#/components/schemas/Stats"});
    let good = json!({"stats": {"bytes_in": 1, "bytes_out": 2, "active_connections": 0,
        "total_connections": 3, "request_errors": 0}});
    check(&d, &stats, &good, "stats").unwrap();
    let mut extra = good.clone();
    extra["stats"]["bogus"] = json!(1);
    assert!(
        check(&d, &stats, &extra, "stats")
            .unwrap_err()
            .contains("undocumented attribute")
    );
    let mut negative = good.clone();
    negative["stats"]["bytes_in"] = json!(-1);
    assert!(check(&d, &stats, &negative, "stats").is_err());
    let mut missing = good;
    missing["stats"]
        .as_object_mut()
        .unwrap()
        .remove("bytes_out");
    assert!(
        check(&d, &stats, &missing, "stats")
            .unwrap_err()
            .contains("missing required")
    );
    assert!(check(&d, &lb, &json!({"id": "not-a-uuid"}), "lb").is_err());
    let status = &d["components"]["schemas"]["LoadBalancer"]["properties"]["provisioning_status"];
    assert!(check(&d, status, &json!("BOGUS"), "ps").is_err());
    assert!(check(&d, status, &Value::Null, "ps").is_err());
}

#[test]
fn the_checker_rejects_a_create_reply_matching_both_or_neither_branch() {
    let d = openapi::document();
    let created = &d["paths"]["/v2/lbaas/loadbalancers"]["post"]["responses"]["201"]["content"]["application/json"]
        ["schema"];
    let lb = json!({"id": "6a0a707c-45ef-4758-b533-e55adddba8ce", "name": "", "description": "",
        "provisioning_status": "PENDING_CREATE", "operating_status": "OFFLINE",
        "admin_state_up": true, "project_id": PROJECT, "tenant_id": PROJECT,
        "created_at": "2026-01-01T00:00:00", "updated_at": null, "vip_address": "10.0.0.10",
        "vip_port_id": null, "vip_subnet_id": SUBNET, "vip_network_id": null,
        "vip_qos_policy_id": null, "vip_sg_ids": [], "vip_vnic_type": "normal",
        "additional_vips": [], "listeners": [], "pools": [], "provider": "yes",
        "flavor_id": null, "availability_zone": null, "tags": []});
    check(&d, created, &json!({"loadbalancer": lb}), "plain").unwrap();
    // `LoadBalancerFull` needs a child: an empty tree is the plain object only (not both)
    let full = json!({"$ref": "#/components/schemas/LoadBalancerFull"});
    assert!(check(&d, &full, &lb, "full").is_err());
    let mut with_id = lb.clone();
    with_id["listeners"] = json!([{"id": SUBNET}]);
    check(&d, created, &json!({"loadbalancer": with_id}), "ids").unwrap();
    let mut half = lb;
    half["listeners"] = json!([{"id": SUBNET, "name": "x"}]);
    assert!(
        check(&d, created, &json!({"loadbalancer": half}), "neither")
            .unwrap_err()
            .contains("not exactly one")
    );
}

/// Keystone down: every authenticated operation answers its documented 503 with the
/// documented Keystone-outage fault; `/` and `/healthcheck` need no token and do not.
#[tokio::test]
async fn every_authenticated_operation_documents_the_keystone_outage() {
    let env = Env::new(
        false,
        Setup::accept_all()
            .auth(AuthMode::Keystone(Arc::new(RoleTokens)))
            .token("unreachable"),
    )
    .await;
    let mut c = Checker {
        env: &env,
        doc: openapi::document(),
        seen: BTreeSet::new(),
    };
    let fault = json!({"$ref": "#/components/schemas/KeystoneUnavailable"});
    for o in openapi::OPERATIONS {
        let concrete: String = o
            .path
            .split('/')
            .map(|s| {
                if s.starts_with('{') {
                    uuid::Uuid::new_v4().to_string()
                } else {
                    s.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("/");
        let concrete = if concrete.is_empty() {
            "/".into()
        } else {
            concrete
        };
        let body = matches!(o.method, "post" | "put").then(|| json!({}));
        let method = o.method.to_ascii_uppercase();
        let (s, v) = c.call(&method, o.path, &concrete, body).await;
        if o.path == "/" || o.path == "/healthcheck" {
            assert_ne!(s, StatusCode::SERVICE_UNAVAILABLE, "{method} {concrete}");
            continue;
        }
        assert_eq!(
            s,
            StatusCode::SERVICE_UNAVAILABLE,
            "{method} {concrete}: {v}"
        );
        check(&c.doc, &fault, &v, &concrete).unwrap();
        assert_eq!(
            v,
            json!({"faultcode": "Server", "faultstring": api::context::KEYSTONE_UNAVAILABLE,
                "debuginfo": null})
        );
    }
    // the checker takes a wrong text for what it is
    let wrong = json!({"faultcode": "Server", "faultstring": "nope", "debuginfo": null});
    assert!(check(&c.doc, &fault, &wrong, "wrong").is_err());
    assert_eq!(c.seen.len(), openapi::OPERATIONS.len());
    env.done().await;
}

/// The document is behind authentication as `GET /v2` is (any valid token, no policy rule).
#[tokio::test]
async fn the_document_needs_a_token_but_no_role() {
    let env = Env::new(false, Setup::named_tokens()).await;
    for (token, want) in [
        (None, StatusCode::UNAUTHORIZED),
        (Some("reader"), StatusCode::OK),
    ] {
        let (status, v) = env.req_as(token, "GET", "/v2/openapi.json", None).await;
        assert_eq!(status, want, "token {token:?}");
        if want == StatusCode::OK {
            assert_eq!(v, openapi::document());
        }
    }
    env.done().await;
}
