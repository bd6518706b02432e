//! The validation rules of the admin resources — flavor profiles, flavors, AZ profiles, AZs,
//! quotas — one table per resource: every attribute of every POST / PUT with a wrong type, a
//! length over its bound, a `null`, left out, an unknown key, a missing or in-use referenced
//! object, and each answer's status and faultstring. The expected answers are the reference's
//! (Octavia 19.0.0 with the OVN provider, recorded with `ci/diff/differential.py`), except the
//! rows marked "reference 500", where Keel refuses with a 400 instead. A refused request leaves
//! every table as it was. SQLite and MariaDB.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use axum::http::StatusCode;
use serde_json::{Value, json};

const NIL: &str = "00000000-0000-0000-0000-000000000000";
const MISSING: &str = "a88b1453-d941-4cd4-8f79-768933aebd4e";
const FORBIDDEN: &str = "Policy does not allow this request to be performed.";

/// One request and the answer it must get (`None`: a 2xx, body not checked here).
struct Row {
    who: &'static str,
    method: &'static str,
    path: String,
    body: Value,
    status: u16,
    fault: Option<String>,
}

fn row(method: &'static str, path: &str, body: Value, status: u16, fault: &str) -> Row {
    Row {
        who: "admin",
        method,
        path: path.to_string(),
        body,
        status,
        fault: (!fault.is_empty()).then(|| fault.to_string()),
    }
}

fn as_member(mut r: Row) -> Row {
    r.who = "member";
    r
}

const TABLES: &[&str] = &[
    "flavor_profile",
    "flavor",
    "availability_zone_profile",
    "availability_zone",
    "quotas",
];

async fn counts(env: &common::Env) -> Vec<i64> {
    let mut v = Vec::new();
    for t in TABLES {
        v.push(env.count(t).await);
    }
    v
}

/// Send each row; a refused one must change no table.
async fn check(env: &common::Env, rows: Vec<Row>) {
    for r in rows {
        let before = counts(env).await;
        let body = (!r.body.is_null()).then(|| r.body.clone());
        let (s, b) = env.req_as(Some(r.who), r.method, &r.path, body).await;
        let what = format!("{} {} {}", r.method, r.path, r.body);
        assert_eq!(s.as_u16(), r.status, "{what}: {b}");
        if let Some(f) = &r.fault {
            assert_eq!(b["faultstring"], json!(f), "{what}");
        }
        if s.as_u16() >= 400 {
            assert_eq!(counts(env).await, before, "{what} wrote");
        }
    }
}

fn str_rules(field: &str, max: usize) -> Vec<(Value, String)> {
    let long = "x".repeat(max + 1);
    vec![
        (
            json!(1),
            format!(
                "Invalid input for field/attribute {field}. Value: '1'. Value should be string"
            ),
        ),
        (
            json!(true),
            format!(
                "Invalid input for field/attribute {field}. Value: 'True'. Value should be string"
            ),
        ),
        (
            json!([]),
            format!(
                "Invalid input for field/attribute {field}. Value: '[]'. Value should be string"
            ),
        ),
        (
            json!(long),
            format!(
                "Invalid input for field/attribute {field}. Value: '{long}'. Value should have a maximum character requirement of {max}"
            ),
        ),
    ]
}

fn with(base: &Value, k: &str, v: Value) -> Value {
    let mut b = base.clone();
    b[k] = v;
    b
}

fn without(base: &Value, k: &str) -> Value {
    let mut b = base.clone();
    b.as_object_mut().unwrap().remove(k);
    b
}

fn missing(field: &str) -> String {
    format!("Invalid input for field/attribute {field}. Value: 'None'. Mandatory field missing.")
}

/// Flavor profiles and AZ profiles share their controller's shape; `data` is the metadata key.
async fn profile_rules(env: &common::Env, coll: &str, wrap: &str, arg: &str, data: &str) {
    let p = format!("/v2/lbaas/{coll}");
    let label = if data == "flavor_data" {
        "Flavor profile"
    } else {
        "Availability Zone Profile"
    };
    let model = if data == "flavor_data" {
        "Flavor Profile"
    } else {
        "Availability Zone Profile"
    };
    let good_data = if data == "flavor_data" {
        "{\"compute_flavor\": \"m1\"}"
    } else {
        "{\"compute_zone\": \"z1\"}"
    };
    let good = json!({"name": "p1", "provider_name": "full", data: good_data});
    let post = |b: Value| json!({wrap: b});
    let mut rows = vec![
        as_member(row("POST", &p, post(good.clone()), 403, FORBIDDEN)),
        // `null` / empty provider is `amphora` (enabled here, not loaded: 501)
        row(
            "POST",
            &p,
            post(with(&good, "provider_name", Value::Null)),
            501,
            "Provider 'amphora' was not found.",
        ),
        row(
            "POST",
            &p,
            post(with(&good, "provider_name", json!(""))),
            501,
            "Provider 'amphora' was not found.",
        ),
        row(
            "POST",
            &p,
            post(with(&good, "provider_name", json!("nope"))),
            400,
            "Provider 'nope' is not enabled.",
        ),
        row(
            "POST",
            &p,
            post(with(&good, data, Value::Null)),
            400,
            &format!("None is not a valid option for {data}"),
        ),
        row(
            "POST",
            &p,
            post(with(&good, data, json!("{nope"))),
            400,
            &format!("{{nope is not a valid option for {data}"),
        ),
        // the metadata is checked before the provider
        row(
            "POST",
            &p,
            post(with(
                &with(&good, data, json!("{nope")),
                "provider_name",
                json!("nope"),
            )),
            400,
            &format!("{{nope is not a valid option for {data}"),
        ),
        // a `null` name passes WSME and the driver (asked), then refused (reference 500)
        row(
            "POST",
            &p,
            post(with(&good, "name", Value::Null)),
            400,
            &missing("name"),
        ),
        row(
            "POST",
            &p,
            post(with(&good, "bogus", json!(1))),
            400,
            &format!("Unknown attribute for argument {arg}.{wrap}: bogus"),
        ),
        row(
            "POST",
            &p,
            good.clone(),
            400,
            &format!("Unknown attributes for argument {arg}: {data}, name, provider_name"),
        ),
        row("POST", &p, post(json!({})), 400, &missing("name")),
    ];
    for k in ["name", "provider_name", data] {
        rows.push(row("POST", &p, post(without(&good, k)), 400, &missing(k)));
        let max = if k == data { 4096 } else { 255 };
        for (v, f) in str_rules(k, max) {
            rows.push(row("POST", &p, post(with(&good, k, v)), 400, &f));
        }
    }
    check(env, rows).await;

    let (s, b) = env
        .req_as(Some("admin"), "POST", &p, Some(post(good.clone())))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    let id = b[wrap]["id"].as_str().unwrap().to_string();
    let one = format!("{p}/{id}");
    let put = |b: Value| json!({wrap: b});
    let mut rows = vec![as_member(row(
        "PUT",
        &one,
        put(json!({"name": "x"})),
        403,
        FORBIDDEN,
    ))];
    for k in ["name", "provider_name", data] {
        rows.push(row(
            "PUT",
            &one,
            put(json!({k: null})),
            400,
            &format!("None is not a valid option for {k}"),
        ));
        let max = if k == data { 4096 } else { 255 };
        for (v, f) in str_rules(k, max) {
            rows.push(row("PUT", &one, put(json!({k: v})), 400, &f));
        }
    }
    rows.extend([
        // the reference names `flavor_data` for both kinds here
        row(
            "PUT",
            &one,
            put(json!({data: "{nope"})),
            400,
            "{nope is not a valid option for flavor_data",
        ),
        row(
            "PUT",
            &one,
            put(json!({data: "{}", "provider_name": "nope"})),
            400,
            "Provider 'nope' is not enabled.",
        ),
        row(
            "PUT",
            &one,
            put(json!({data: "{}", "provider_name": ""})),
            501,
            "Provider 'amphora' was not found.",
        ),
        row(
            "PUT",
            &one,
            put(json!({"id": "x"})),
            400,
            &format!("Unknown attribute for argument {arg}.{wrap}: id"),
        ),
        // metadata is parsed before the profile is read; then 404
        row(
            "PUT",
            &format!("{p}/{MISSING}"),
            put(json!({data: "{nope"})),
            400,
            "{nope is not a valid option for flavor_data",
        ),
        row(
            "PUT",
            &format!("{p}/{MISSING}"),
            put(json!({data: "{}"})),
            404,
            &format!("{model} {MISSING} not found."),
        ),
        row(
            "PUT",
            &format!("{p}/{MISSING}"),
            put(json!({"name": "n"})),
            404,
            &format!("{model} {MISSING} not found."),
        ),
        row(
            "PUT",
            &format!("{p}/{NIL}"),
            put(json!({"name": "n"})),
            404,
            &format!("{label} {NIL} not found."),
        ),
        row(
            "GET",
            &format!("{p}/{MISSING}"),
            Value::Null,
            404,
            &format!("{model} {MISSING} not found."),
        ),
        row(
            "GET",
            &format!("{p}/{NIL}"),
            Value::Null,
            404,
            &format!("{label} {NIL} not found."),
        ),
        row(
            "DELETE",
            &format!("{p}/{MISSING}"),
            Value::Null,
            404,
            &format!("{label} {MISSING} not found."),
        ),
        row(
            "DELETE",
            &format!("{p}/{NIL}"),
            Value::Null,
            404,
            &format!("{label} {NIL} not found."),
        ),
        as_member(row("DELETE", &one, Value::Null, 403, FORBIDDEN)),
        row("PUT", &one, put(json!({})), 200, ""),
    ]);
    check(env, rows).await;
    // a provider name alone is stored unchecked (as the reference); metadata then validates
    // with the stored one
    let (s, b) = env
        .req_as(
            Some("admin"),
            "PUT",
            &one,
            Some(put(json!({"provider_name": "nope"}))),
        )
        .await;
    assert_eq!(
        (s, &b[wrap]["provider_name"]),
        (StatusCode::OK, &json!("nope"))
    );
    check(
        env,
        vec![row(
            "PUT",
            &one,
            put(json!({data: "{}"})),
            400,
            "Provider 'nope' is not enabled.",
        )],
    )
    .await;
    let (s, _) = env
        .req_as(
            Some("admin"),
            "PUT",
            &one,
            Some(put(json!({"provider_name": "full", "name": "renamed"}))),
        )
        .await;
    assert_eq!(s, StatusCode::OK);
}

#[tokio::test]
async fn flavor_profile_rules() {
    each_backend!(common::Setup::named_tokens(), |env| {
        profile_rules(
            &env,
            "flavorprofiles",
            "flavorprofile",
            "flavor_profile_",
            "flavor_data",
        )
        .await;
    });
}

#[tokio::test]
async fn availability_zone_profile_rules() {
    each_backend!(common::Setup::named_tokens(), |env| {
        profile_rules(
            &env,
            "availabilityzoneprofiles",
            "availability_zone_profile",
            "availability_zone_profile_",
            "availability_zone_data",
        )
        .await;
    });
}

fn bool_rules(arg: &str, wrap: &str, base: &Value) -> Vec<(Value, String)> {
    ["maybe", "True"]
        .iter()
        .map(|v| {
            let mut b = base.clone();
            b["enabled"] = json!(v);
            let shown = py_dict(&json!({wrap: b}));
            (
                json!(v),
                format!(
                    "Invalid input for field/attribute {arg}. Value: '{shown}'. Value not an unambiguous boolean: {v}"
                ),
            )
        })
        .collect()
}

/// A body as Python prints the dict (strings and `True` only, as these tables use).
fn py_dict(v: &Value) -> String {
    match v {
        Value::Object(o) => format!(
            "{{{}}}",
            o.iter()
                .map(|(k, v)| format!("'{k}': {}", py_dict(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::String(s) => format!("'{s}'"),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        other => other.to_string(),
    }
}

/// Flavors (`id`-keyed, `flavor_profile_id`) and AZs (`name`-keyed,
/// `availability_zone_profile_id`).
async fn flavor_like_rules(env: &common::Env, flavor: bool) {
    let (coll, wrap, arg, pkey, pcoll, pwrap, pdata) = if flavor {
        (
            "flavors",
            "flavor",
            "flavor_",
            "flavor_profile_id",
            "flavorprofiles",
            "flavorprofile",
            "flavor_data",
        )
    } else {
        (
            "availabilityzones",
            "availability_zone",
            "availability_zone_",
            "availability_zone_profile_id",
            "availabilityzoneprofiles",
            "availability_zone_profile",
            "availability_zone_data",
        )
    };
    let (s, b) = env
        .req_as(
            Some("admin"),
            "POST",
            &format!("/v2/lbaas/{pcoll}"),
            Some(json!({pwrap: {"name": "p", "provider_name": "full", pdata: "{}"}})),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    let prof = b[pwrap]["id"].as_str().unwrap().to_string();
    let p = format!("/v2/lbaas/{coll}");
    // key order as the request sends it (serde_json keeps insertion order only with
    // `preserve_order`, so the echoed dict is built from the same map)
    let good = json!({"name": "f1", pkey: prof, "description": "d"});
    let post = |b: Value| json!({wrap: b});
    let mut rows = vec![
        as_member(row("POST", &p, post(good.clone()), 403, FORBIDDEN)),
        row(
            "POST",
            &p,
            post(with(&good, "name", Value::Null)),
            400,
            &missing("name"),
        ), // reference 500
        row(
            "POST",
            &p,
            post(with(&good, pkey, Value::Null)),
            400,
            &missing(pkey),
        ), // reference 500
        row(
            "POST",
            &p,
            post(with(&good, "enabled", Value::Null)),
            400,
            "None is not a valid option for enabled",
        ), // reference 500
        row(
            "POST",
            &p,
            post(with(&good, pkey, json!("nope"))),
            400,
            &format!(
                "Invalid input for field/attribute {pkey}. Value: 'nope'. Value should be UUID format"
            ),
        ),
        row(
            "POST",
            &p,
            post(with(&good, pkey, json!(MISSING))),
            400,
            &format!("{MISSING} is not a valid option for {pkey}"),
        ), // reference 500
        row(
            "POST",
            &p,
            post(with(&good, "bogus", json!(1))),
            400,
            &format!("Unknown attribute for argument {arg}.{wrap}: bogus"),
        ),
        row(
            "POST",
            &p,
            post(without(&good, "name")),
            400,
            &missing("name"),
        ),
        row("POST", &p, post(without(&good, pkey)), 400, &missing(pkey)),
    ];
    for (v, f) in bool_rules(arg, wrap, &good) {
        rows.push(row("POST", &p, post(with(&good, "enabled", v)), 400, &f));
    }
    for k in ["name", "description"] {
        for (v, f) in str_rules(k, 255) {
            rows.push(row("POST", &p, post(with(&good, k, v)), 400, &f));
        }
    }
    check(env, rows).await;

    let (s, b) = env
        .req_as(Some("admin"), "POST", &p, Some(post(good.clone())))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    assert_eq!(b[wrap]["enabled"], true);
    let key = if flavor {
        b[wrap]["id"].as_str().unwrap().to_string()
    } else {
        "f1".to_string()
    };
    let dup = if flavor {
        "A flavor of f1 already exists."
    } else {
        "A availability zone of f1 already exists."
    };
    let one = format!("{p}/{key}");
    let put = |b: Value| json!({wrap: b});
    let other = if flavor { MISSING } else { "nowhere" };
    let not_found = if flavor {
        format!("Flavor {other} not found.")
    } else {
        format!("Availability Zone {other} not found.")
    };
    let mut rows = vec![
        row("POST", &p, post(good.clone()), 409, dup),
        as_member(row(
            "PUT",
            &one,
            put(json!({"description": "x"})),
            403,
            FORBIDDEN,
        )),
        as_member(row("DELETE", &one, Value::Null, 403, FORBIDDEN)),
        row(
            "PUT",
            &one,
            put(json!({"enabled": null})),
            400,
            "None is not a valid option for enabled",
        ), // reference 500
        row(
            "PUT",
            &one,
            put(json!({pkey: prof})),
            400,
            &format!("Unknown attribute for argument {arg}.{wrap}: {pkey}"),
        ),
        row(
            "PUT",
            &format!("{p}/{other}"),
            put(json!({"description": "q"})),
            404,
            &not_found,
        ),
        row("GET", &format!("{p}/{other}"), Value::Null, 404, &not_found),
        row(
            "DELETE",
            &format!("{p}/{other}"),
            Value::Null,
            404,
            &not_found,
        ),
        // the profile is in use: metadata or provider changes and its delete refused
        row(
            "PUT",
            &format!("/v2/lbaas/{pcoll}/{prof}"),
            json!({pwrap: {pdata: "{}"}}),
            409,
            &format!(
                "{} {prof} is in use and cannot be modified.",
                if flavor {
                    "Flavor profile"
                } else {
                    "Availability Zone Profile"
                }
            ),
        ),
        row(
            "DELETE",
            &format!("/v2/lbaas/{pcoll}/{prof}"),
            Value::Null,
            409,
            &format!(
                "{} {prof} is in use and cannot be modified.",
                if flavor {
                    "Flavor profile"
                } else {
                    "Availability Zone Profile"
                }
            ),
        ),
        row(
            "PUT",
            &format!("/v2/lbaas/{pcoll}/{prof}"),
            json!({pwrap: {"name": "r"}}),
            200,
            "",
        ),
    ];
    if flavor {
        rows.extend([
            row(
                "PUT",
                &one,
                put(json!({"name": null})),
                400,
                "None is not a valid option for name",
            ), // reference 500
            row(
                "PUT",
                &format!("{p}/{NIL}"),
                put(json!({"name": "q"})),
                404,
                &format!("Flavor {NIL} not found."),
            ),
        ]);
        for (v, f) in str_rules("name", 255) {
            rows.push(row("PUT", &one, put(json!({"name": v})), 400, &f));
        }
    } else {
        rows.push(row(
            "PUT",
            &one,
            put(json!({"name": "n"})),
            400,
            &format!("Unknown attribute for argument {arg}.{wrap}: name"),
        ));
    }
    for (v, f) in str_rules("description", 255) {
        rows.push(row("PUT", &one, put(json!({"description": v})), 400, &f));
    }
    for v in ["maybe", "True"] {
        rows.push(row(
            "PUT",
            &one,
            put(json!({"enabled": v})),
            400,
            &format!(
                "Invalid input for field/attribute {arg}. Value: '{{'{wrap}': {{'enabled': '{v}'}}}}'. Value not an unambiguous boolean: {v}"
            ),
        ));
    }
    check(env, rows).await;
    // a `null` description clears it; nothing else moved
    let (s, b) = env
        .req_as(
            Some("admin"),
            "PUT",
            &one,
            Some(put(json!({"description": null}))),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(
        (
            &b[wrap]["description"],
            &b[wrap]["enabled"],
            &b[wrap]["name"]
        ),
        (&json!(""), &json!(true), &json!("f1"))
    );
    let (s, _) = env.req_as(Some("admin"), "DELETE", &one, None).await;
    assert_eq!(s, StatusCode::NO_CONTENT);
}

#[tokio::test]
async fn flavor_rules() {
    each_backend!(common::Setup::named_tokens(), |env| {
        flavor_like_rules(&env, true).await;
    });
}

#[tokio::test]
async fn availability_zone_rules() {
    each_backend!(common::Setup::named_tokens(), |env| {
        flavor_like_rules(&env, false).await;
    });
}

#[tokio::test]
async fn quota_rules() {
    each_backend!(common::Setup::named_tokens(), |env| {
        let p = format!("/v2/lbaas/quotas/{}", common::OTHER);
        let mut rows = vec![as_member(row(
            "PUT",
            &p,
            json!({"quota": {"listener": 5}}),
            403,
            FORBIDDEN,
        ))];
        for k in [
            "loadbalancer",
            "load_balancer",
            "listener",
            "member",
            "pool",
            "healthmonitor",
            "health_monitor",
            "l7policy",
            "l7rule",
        ] {
            rows.extend([
                row(
                    "PUT",
                    &p,
                    json!({"quota": {k: "a"}}),
                    400,
                    &format!("Invalid input for field/attribute quotas. Value: '{{'quota': {{'{k}': 'a'}}}}'. invalid literal for int() with base 10: 'a'"),
                ),
                row(
                    "PUT",
                    &p,
                    json!({"quota": {k: -2}}),
                    400,
                    &format!("Invalid input for field/attribute {k}. Value: '-2'. Value should be greater or equal to -1"),
                ),
                row(
                    "PUT",
                    &p,
                    json!({"quota": {k: 2_000_000_001}}),
                    400,
                    &format!("Invalid input for field/attribute {k}. Value: '2000000001'. Value should be lower or equal to 2000000000"),
                ),
                // reference 500
                row(
                    "PUT",
                    &p,
                    json!({"quota": {k: []}}),
                    400,
                    &format!("Invalid input for field/attribute quotas. Value: '{{'quota': {{'{k}': []}}}}'. int() argument must be a string, a bytes-like object or a real number, not 'list'"),
                ),
            ]);
        }
        rows.extend([
            row(
                "PUT",
                &p,
                json!({"quota": {"amphora": 3}}),
                400,
                "Unknown attribute for argument quotas.quota: amphora",
            ),
            row(
                "PUT",
                &p,
                json!({"quota": {"project_id": "x"}}),
                400,
                "Unknown attribute for argument quotas.quota: project_id",
            ),
        ]);
        check(&env, rows).await;
        // WSME's integer coercions, as the reference: "5" → 5, 1.5 → 1, true → 1
        for (v, want) in [
            (json!("5"), json!(5)),
            (json!(1.5), json!(1)),
            (json!(true), json!(1)),
            (json!(2_000_000_000), json!(2_000_000_000)),
        ] {
            let (s, b) = env
                .req_as(
                    Some("admin"),
                    "PUT",
                    &p,
                    Some(json!({"quota": {"pool": v}})),
                )
                .await;
            assert_eq!(s, StatusCode::ACCEPTED, "{v}: {b}");
            assert_eq!(b["quota"]["pool"], want, "{v}");
        }
    });
}
