//! The cases, generated from the OpenAPI document (`docs/openapi.json`), in one fixed order.
//!
//! Per operation (method × path): one valid request; every path parameter replaced by each
//! hostile id; every query parameter (and one unknown one, and one given twice) set to each
//! hostile value of its type; every write given each malformed body; every field of the request
//! body — every leaf and every object or array on the way, graph-create children and array
//! items included — set to each hostile value of its type inside an otherwise valid body.
//!
//! Ids are placeholders the runner fills in: `{lb}`, `{listener}`, `{pool}`, `{member}`,
//! `{hm}`, `{l7policy}`, `{l7rule}`, `{flavorprofile}`, `{flavor}`, `{azprofile}`, `{az}`,
//! `{batch_pool}`, `{quota_project}`, `{provider}`, `{amphora}`, `{subnet}` name the fixture's
//! objects; `{new_<kind>}` is an object of that kind made for the case alone (what a DELETE
//! removes; `{new_lb_tree}` has a listener, a pool and a member, for the cascade); `{uniq}` a
//! fresh name, `{addr}` a fresh member address and `"{port}"` (quotes included) a fresh port.

use serde_json::{Map, Value, json};

use super::values::{self, Hostile};

/// The text put where the hostile value goes, replaced in the serialised body.
const MARKER: &str = "@@FUZZ@@";

/// One request of the run.
#[derive(Clone, Debug)]
pub struct Case {
    /// Position in the full list (what `KEEL_FUZZ_CASE` replays).
    pub index: usize,
    /// `METHOD /template` of the operation.
    pub op: String,
    pub method: &'static str,
    /// Path and query, with placeholders.
    pub path: String,
    /// Raw body and content type (`None`: no body).
    pub body: Option<(String, &'static str)>,
    /// What is tried, for the failure list.
    pub what: String,
    /// `(field, value label)` covered by the case, if it is a field case.
    pub cover: Option<(String, String)>,
    /// Every path parameter is a real object's (the case reaches the operation).
    pub real_path: bool,
}

/// Every operation of the document, `METHOD /template`, in document order.
pub fn operations(doc: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for (template, ops) in doc["paths"].as_object().into_iter().flatten() {
        for m in ops.as_object().into_iter().flatten().map(|(m, _)| m) {
            if let Some(method) = method_of(m) {
                out.push(format!("{method} {template}"));
            }
        }
    }
    out
}

fn method_of(m: &str) -> Option<&'static str> {
    Some(match m {
        "get" => "GET",
        "post" => "POST",
        "put" => "PUT",
        "delete" => "DELETE",
        "patch" => "PATCH",
        _ => return None,
    })
}

/// The placeholder naming the object of path parameter `param` of `template`.
fn placeholder(method: &str, template: &str, param: &str) -> &'static str {
    let delete = method == "DELETE";
    let last = template.ends_with(&format!("{{{param}}}"));
    let fresh = |new: &'static str, old: &'static str| if delete && last { new } else { old };
    match param {
        // a policy holds 50 rules at most (octavia's l7rule.py): each create gets its own
        "l7policy_id" if method == "POST" => "new_l7policy",
        "l7policy_id" => "l7policy",
        "pool_id" if method == "PUT" && template.ends_with("/members") => "batch_pool",
        "pool_id" => "pool",
        "project_id" => fresh("new_quota_project", "quota_project"),
        "provider" => "provider",
        "name" => fresh("new_az", "az"),
        _ => {
            let coll = template
                .split(&format!("{{{param}}}"))
                .next()
                .unwrap_or("")
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .unwrap_or("");
            match coll {
                "loadbalancers" => fresh("new_lb", "lb"),
                "listeners" => fresh("new_listener", "listener"),
                "pools" => fresh("new_pool", "pool"),
                "members" => fresh("new_member", "member"),
                "healthmonitors" => fresh("new_hm", "hm"),
                "l7policies" => fresh("new_l7policy", "l7policy"),
                "rules" => fresh("new_l7rule", "l7rule"),
                "flavorprofiles" => fresh("new_flavorprofile", "flavorprofile"),
                "flavors" => fresh("new_flavor", "flavor"),
                "availabilityzoneprofiles" => fresh("new_azprofile", "azprofile"),
                _ => "amphora",
            }
        }
    }
}

/// A valid body for `METHOD template` (placeholders for ids), `None` when it has none.
fn base_body(method: &str, template: &str, schema: Option<&Value>) -> Option<Value> {
    let v = match (method, template) {
        ("POST", "/v2/lbaas/loadbalancers") => {
            json!({"loadbalancer": {"vip_subnet_id": "{subnet}", "name": "{uniq}"}})
        }
        ("POST", "/v2/lbaas/listeners") => json!({"listener": {
            "loadbalancer_id": "{lb}", "protocol": "TCP", "protocol_port": "{port}"}}),
        ("POST", "/v2/lbaas/pools") => json!({"pool": {
            "loadbalancer_id": "{lb}", "protocol": "TCP", "lb_algorithm": "SOURCE_IP_PORT"}}),
        ("POST", "/v2/lbaas/pools/{pool_id}/members") => json!({"member": {
            "address": "{addr}", "protocol_port": 80}}),
        ("PUT", "/v2/lbaas/pools/{pool_id}/members") => json!({"members": [
            {"address": "{addr}", "protocol_port": 80}]}),
        ("POST", "/v2/lbaas/healthmonitors") => json!({"healthmonitor": {
            "pool_id": "{new_pool}", "type": "TCP", "delay": 5, "timeout": 3, "max_retries": 3}}),
        ("POST", "/v2/lbaas/l7policies") => json!({"l7policy": {
            "listener_id": "{listener}", "action": "REJECT"}}),
        // an empty update is the reference's 400 "Invalid update options"
        ("PUT", "/v2/lbaas/l7policies/{id}") => json!({"l7policy": {"name": "{uniq}"}}),
        ("POST", "/v2/lbaas/l7policies/{l7policy_id}/rules") => json!({"rule": {
            "type": "PATH", "compare_type": "STARTS_WITH", "value": "/b"}}),
        ("POST", "/v2/lbaas/flavorprofiles") => json!({"flavorprofile": {
            "name": "{uniq}", "provider_name": "{provider}", "flavor_data": "{}"}}),
        ("POST", "/v2/lbaas/flavors") => json!({"flavor": {
            "name": "{uniq}", "flavor_profile_id": "{flavorprofile}"}}),
        ("POST", "/v2/lbaas/availabilityzoneprofiles") => json!({"availability_zone_profile": {
            "name": "{uniq}", "provider_name": "{provider}", "availability_zone_data": "{}"}}),
        ("POST", "/v2/lbaas/availabilityzones") => json!({"availability_zone": {
            "name": "{uniq}", "availability_zone_profile_id": "{azprofile}"}}),
        _ => {
            // a PUT: its wrapper with nothing in it
            let wrapper = schema?
                .get("properties")?
                .as_object()?
                .keys()
                .next()?
                .clone();
            json!({ wrapper: {} })
        }
    };
    Some(v)
}

/// Resolves `$ref` and single `allOf`; an `anyOf`/`oneOf` becomes its first alternative that
/// is an object, an array or a reference.
pub fn descend<'a>(doc: &'a Value, mut s: &'a Value) -> &'a Value {
    for _ in 0..10 {
        if let Some(r) = s.get("$ref").and_then(Value::as_str) {
            s = &doc["components"]["schemas"][r.rsplit('/').next().unwrap_or("")];
        } else if let Some([one]) = s.get("allOf").and_then(Value::as_array).map(Vec::as_slice) {
            s = one;
        } else if let Some(alts) = s
            .get("anyOf")
            .or_else(|| s.get("oneOf"))
            .and_then(Value::as_array)
        {
            match alts
                .iter()
                .find(|a| a.get("$ref").is_some() || a.get("properties").is_some())
            {
                Some(a) => s = a,
                None => break,
            }
        } else {
            break;
        }
    }
    s
}

/// A small valid value of schema `s`: the first enum choice, every required property.
fn minimal(doc: &Value, s: &Value) -> Value {
    let s = descend(doc, s);
    if let Some(first) = s
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.iter().find(|v| !v.is_null()))
    {
        return first.clone();
    }
    let types = values::types_of(s);
    let has = |t: &str| types.iter().any(|x| x == t);
    if s.get("properties").is_some() || has("object") {
        let mut m = Map::new();
        for r in s["required"].as_array().into_iter().flatten() {
            if let Some(k) = r.as_str() {
                m.insert(k.to_string(), minimal(doc, &s["properties"][k]));
            }
        }
        return Value::Object(m);
    }
    if has("array") {
        return json!([]);
    }
    if has("integer") || has("number") {
        let lo = s.get("minimum").and_then(Value::as_i64).unwrap_or(1).max(1);
        return json!(lo.min(s.get("maximum").and_then(Value::as_i64).unwrap_or(lo)));
    }
    if has("boolean") {
        return json!(true);
    }
    match s.get("format").and_then(Value::as_str) {
        Some("cidr") => json!("10.0.0.0/24"),
        Some("ipv4") | Some("ip") => json!("10.0.0.9"),
        Some("ipv6") => json!("fd00::9"),
        _ if has("string") => json!("x"),
        _ => Value::Null,
    }
}

/// A step into a JSON body: an object key or the first array element.
#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index,
}

fn show(path: &[Step]) -> String {
    path.iter()
        .map(|s| match s {
            Step::Key(k) => format!(".{k}"),
            Step::Index => "[0]".into(),
        })
        .collect()
}

/// Every field path of a body schema (objects, arrays, array items and leaves), depth ≤ 8,
/// each with its schema.
fn fields<'a>(
    doc: &'a Value,
    s: &'a Value,
    prefix: &mut Vec<Step>,
    out: &mut Vec<(Vec<Step>, &'a Value)>,
) {
    if prefix.len() > 8 {
        return;
    }
    let s = descend(doc, s);
    for (k, sub) in s
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        prefix.push(Step::Key(k.clone()));
        out.push((prefix.clone(), sub));
        fields(doc, sub, prefix, out);
        prefix.pop();
    }
    if let Some(items) = s.get("items") {
        prefix.push(Step::Index);
        out.push((prefix.clone(), items));
        fields(doc, items, prefix, out);
        prefix.pop();
    }
}

/// `body` with [`MARKER`] at `path`, the objects and arrays on the way made from the schema
/// (their required fields given) where the body has none; also the value that was there (or a
/// valid one of the field's schema).
fn place(doc: &Value, root: &Value, body: &Value, path: &[Step]) -> (Value, Value) {
    let mut out = body.clone();
    let mut cur = &mut out;
    let mut schema = descend(doc, root);
    for (i, step) in path.iter().enumerate() {
        let last = i + 1 == path.len();
        let sub = match step {
            Step::Key(k) => &schema["properties"][k.as_str()],
            Step::Index => &schema["items"],
        };
        match step {
            Step::Key(k) => {
                if !cur.is_object() {
                    *cur = json!({});
                }
                let m = cur.as_object_mut().expect("an object");
                if last {
                    let old = m
                        .insert(k.clone(), json!(MARKER))
                        .unwrap_or_else(|| minimal(doc, sub));
                    return (out, old);
                }
                cur = m.entry(k.clone()).or_insert_with(|| minimal(doc, sub));
            }
            Step::Index => {
                if cur.as_array().is_none_or(Vec::is_empty) {
                    *cur = json!([minimal(doc, sub)]);
                }
                let a = cur.as_array_mut().expect("an array");
                if last {
                    let old = std::mem::replace(&mut a[0], json!(MARKER));
                    return (out, old);
                }
                cur = &mut a[0];
            }
        }
        schema = descend(doc, sub);
    }
    (out, Value::Null)
}

/// Percent-encodes all but unreserved characters.
pub fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// Every case the document yields, in its fixed order (see the module doc).
pub fn generate(doc: &Value) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut push = |c: Case| {
        let mut c = c;
        c.index = cases.len();
        cases.push(c);
    };
    for (template, ops) in doc["paths"].as_object().into_iter().flatten() {
        for (m, op) in ops.as_object().into_iter().flatten() {
            let Some(method) = method_of(m) else { continue };
            let opname = format!("{method} {template}");
            let params: Vec<&Value> = op["parameters"].as_array().into_iter().flatten().collect();
            let path_params: Vec<&str> = params
                .iter()
                .filter(|p| p["in"] == "path")
                .filter_map(|p| p["name"].as_str())
                .collect();
            let with = |bad: Option<(&str, &str)>, fresh_override: Option<&str>| {
                let mut p = template.clone();
                for name in &path_params {
                    let v = match bad {
                        Some((b, v)) if b == *name => v.to_string(),
                        _ => format!(
                            "{{{}}}",
                            fresh_override.unwrap_or(placeholder(method, template, name))
                        ),
                    };
                    p = p.replace(&format!("{{{name}}}"), &v);
                }
                p
            };
            let schema = op.pointer("/requestBody/content/application~1json/schema");
            let base = base_body(method, template, schema);
            let json_body = |v: &Value| Some((v.to_string(), "application/json"));
            let case = |path: String, body, what: String, cover, real_path| Case {
                index: 0,
                op: opname.clone(),
                method,
                path,
                body,
                what: format!("{opname} {what}"),
                cover,
                real_path,
            };
            // the valid request (and the cascade on a tree)
            push(case(
                with(None, None),
                base.as_ref().and_then(json_body),
                "valid".into(),
                None,
                true,
            ));
            if method == "DELETE" && template == "/v2/lbaas/loadbalancers/{id}" {
                push(case(
                    format!("{}?cascade=true", with(None, Some("new_lb_tree"))),
                    None,
                    "cascade=true".into(),
                    None,
                    true,
                ));
            }
            // hostile path parameters
            for name in &path_params {
                for (label, bad) in values::hostile_ids() {
                    push(case(
                        with(Some((name, &bad)), None),
                        base.as_ref().and_then(json_body),
                        format!("{{{name}}}={label}"),
                        Some((format!("{opname} path {name}"), label.to_string())),
                        false,
                    ));
                }
            }
            // hostile query parameters, an unknown one, one given twice
            let cascade = method == "DELETE" && template == "/v2/lbaas/loadbalancers/{id}";
            let qpath = if cascade {
                with(None, Some("new_lb_tree"))
            } else {
                with(None, None)
            };
            let body = || base.as_ref().and_then(json_body);
            for p in params.iter().filter(|p| p["in"] == "query") {
                let Some(name) = p["name"].as_str() else {
                    continue;
                };
                for v in values::for_query(&p["schema"]) {
                    push(case(
                        format!("{qpath}?{}={}", enc(name), enc(&v.raw)),
                        body(),
                        format!("?{name}={}", short(&v.raw)),
                        Some((format!("{opname} query {name}"), v.label.clone())),
                        true,
                    ));
                }
                push(case(
                    format!("{qpath}?{0}=1&{0}=x", enc(name)),
                    body(),
                    format!("?{name} twice"),
                    Some((format!("{opname} query {name}"), "q-twice".into())),
                    true,
                ));
            }
            push(case(
                format!("{qpath}?zz_unknown=1"),
                body(),
                "?zz_unknown=1".into(),
                Some((format!("{opname} query zz_unknown"), "q-unknown".into())),
                true,
            ));
            let (Some(schema), Some(base)) = (schema, base.as_ref()) else {
                continue;
            };
            // bodies of the wrong kind
            let wrapper = base
                .as_object()
                .and_then(|o| o.keys().next().cloned())
                .unwrap_or_default();
            for (label, raw, ct) in values::malformed_bodies(&wrapper) {
                push(case(
                    with(None, None),
                    Some((raw, ct)),
                    format!("body {label}"),
                    Some((format!("{opname} body"), label)),
                    true,
                ));
            }
            // every field × every hostile value of its type
            let mut all = Vec::new();
            fields(doc, schema, &mut Vec::new(), &mut all);
            for (path, fs) in all {
                let (placed, old) = place(doc, schema, base, &path);
                let text = placed.to_string();
                let marker = Value::String(MARKER.into()).to_string();
                let key = match path.last() {
                    Some(Step::Key(k)) => Some(k.clone()),
                    _ => None,
                };
                let hostile: Vec<Hostile> = values::for_field(
                    descend(doc, fs),
                    key.as_deref().unwrap_or(""),
                    &old.to_string(),
                )
                .into_iter()
                .filter(|h| key.is_some() || !h.label.starts_with("dup-key"))
                .collect();
                for h in hostile {
                    push(case(
                        with(None, None),
                        Some((text.replacen(&marker, &h.raw, 1), "application/json")),
                        format!("{} = {}", show(&path), short(&h.raw)),
                        Some((format!("{opname} {}", show(&path)), h.label.clone())),
                        true,
                    ));
                }
            }
        }
    }
    cases
}

/// At most 40 characters of `s`, with its length when cut.
pub fn short(s: &str) -> String {
    if s.chars().count() > 40 {
        let cut: String = s.chars().take(30).collect();
        format!("{cut}…({} chars)", s.len())
    } else {
        s.to_string()
    }
}

/// A piece of a case's text: literal text, or a placeholder's name (`"{port}"` loses its
/// quotes: a port is a number).
pub enum Piece<'a> {
    Text(&'a str),
    Name(&'a str),
}

/// `text` cut into literal pieces and placeholders (`{name}`, name of `[a-z0-9_]`).
pub fn pieces(text: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut rest = text;
    let mut lit = 0;
    while let Some(i) = rest[lit..].find('{').map(|i| i + lit) {
        let tail = &rest[i + 1..];
        let n = tail
            .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'))
            .unwrap_or(tail.len());
        if n == 0 || !tail[n..].starts_with('}') {
            lit = i + 1;
            continue;
        }
        let name = &tail[..n];
        let (before, after) =
            if name == "port" && rest[..i].ends_with('"') && tail[n + 1..].starts_with('"') {
                (&rest[..i - 1], &tail[n + 2..])
            } else {
                (&rest[..i], &tail[n + 1..])
            };
        out.push(Piece::Text(before));
        out.push(Piece::Name(name));
        rest = after;
        lit = 0;
    }
    out.push(Piece::Text(rest));
    out
}
