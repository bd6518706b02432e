//! Single-call load balancer create (load_balancer.py `_graph_create`; seed 004 §2) through
//! the router on SQLite and MariaDB: the whole tree in one transaction, the full response,
//! the nested provider models, quotas per kind, and nothing left behind by any refusal.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use api::policy::Policy;
use axum::http::StatusCode;
use common::{Env, P1, SUBNET, Setup};
use serde_json::{Value, json};

const MEMBER: &str = "member,reader";
const TABLES: &[&str] = &[
    "load_balancer",
    "vip",
    "listener",
    "pool",
    "member",
    "health_monitor",
    "l7policy",
    "l7rule",
    "session_persistence",
];

fn tree() -> Value {
    json!({"loadbalancer": {
        "name": "graph", "vip_subnet_id": SUBNET,
        "listeners": [{
            "name": "l80", "protocol": "HTTP", "protocol_port": 80,
            "default_pool": {
                "name": "web", "protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN",
                "session_persistence": {"type": "HTTP_COOKIE"},
                "healthmonitor": {"type": "HTTP", "delay": 5, "timeout": 3, "max_retries": 2},
                "members": [
                    {"address": "10.0.0.21", "protocol_port": 8080},
                    {"address": "10.0.0.22", "protocol_port": 8080, "weight": 3}
                ]
            },
            "l7policies": [{
                "name": "to-api", "action": "REDIRECT_TO_POOL",
                "redirect_pool": {"name": "api"},
                "rules": [{"type": "PATH", "compare_type": "STARTS_WITH", "value": "/api"}]
            }]
        }, {
            "name": "l81", "protocol": "TCP", "protocol_port": 81,
            "default_pool": {"name": "api"}
        }],
        "pools": [{
            "name": "api", "protocol": "HTTP", "lb_algorithm": "LEAST_CONNECTIONS",
            "members": [{"address": "10.0.0.31", "protocol_port": 9000}]
        }]
    }})
}

async fn assert_nothing_left(env: &Env) {
    for t in TABLES {
        assert_eq!(env.count(t).await, 0, "{t} rows left behind");
    }
    for kind in [
        "load_balancer",
        "listener",
        "pool",
        "member",
        "health_monitor",
    ] {
        assert_eq!(env.in_use(P1, kind).await, 0, "quota in_use_{kind}");
    }
    assert!(
        !env.provider("ovn")
            .names()
            .contains(&"loadbalancer_create".to_string()),
        "{:?}",
        env.provider("ovn").names()
    );
}

fn by_name<'a>(items: &'a Value, name: &str) -> &'a Value {
    items
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == name)
        .expect("an item of that name")
}

#[tokio::test]
async fn whole_tree_in_one_call() {
    each_backend!(Setup::role_tokens(Policy::default()), |env| {
        let (s, b) = env
            .call(P1, MEMBER, "POST", "/v2/lbaas/loadbalancers", Some(tree()))
            .await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        let lb = &b["loadbalancer"];
        assert_eq!(lb["provisioning_status"], "PENDING_CREATE");
        // full response: nested objects, not id references
        let web = by_name(&lb["pools"], "web");
        let api_pool = by_name(&lb["pools"], "api");
        assert_eq!(web["members"].as_array().unwrap().len(), 2);
        assert_eq!(web["healthmonitor"]["type"], "HTTP");
        assert_eq!(web["healthmonitor"]["url_path"], "/");
        assert!(web["healthmonitor"].get("pools").is_none());
        assert!(web.get("loadbalancers").is_none() && web.get("healthmonitor_id").is_none());
        assert_eq!(web["session_persistence"]["type"], "HTTP_COOKIE");
        assert_eq!(by_name(&web["members"], "")["operating_status"], "OFFLINE");
        assert_eq!(api_pool["members"][0]["address"], "10.0.0.31");
        assert_eq!(api_pool["members"][0]["operating_status"], "NO_MONITOR");
        // the reference's full pool always has the key: null without a monitor
        assert_eq!(api_pool.get("healthmonitor"), Some(&Value::Null));
        // request order: listeners, pools (top-level first, then hoisted), members
        assert_eq!(lb["listeners"][0]["name"], "l80");
        assert_eq!(lb["listeners"][1]["name"], "l81");
        assert_eq!(lb["pools"][0]["name"], "api");
        assert_eq!(lb["pools"][1]["name"], "web");
        assert_eq!(web["members"][0]["address"], "10.0.0.21");
        assert_eq!(web["members"][1]["address"], "10.0.0.22");
        let l80 = by_name(&lb["listeners"], "l80");
        let l81 = by_name(&lb["listeners"], "l81");
        assert_eq!(l80["default_pool_id"], web["id"]);
        assert_eq!(l81["default_pool_id"], api_pool["id"]);
        assert!(l80.get("loadbalancers").is_none());
        let pol = &l80["l7policies"][0];
        assert_eq!(pol["redirect_pool_id"], api_pool["id"]);
        assert_eq!(pol["position"], 1);
        assert_eq!(pol["rules"][0]["type"], "PATH");
        assert_eq!(pol["rules"][0]["value"], "/api");
        // rows, all PENDING_CREATE, and the quota counted per kind
        for (t, n) in [
            ("listener", 2),
            ("pool", 2),
            ("member", 3),
            ("health_monitor", 1),
            ("l7policy", 1),
            ("l7rule", 1),
        ] {
            assert_eq!(env.count(t).await, n, "{t}");
        }
        for (kind, n) in [
            ("load_balancer", 1),
            ("listener", 2),
            ("pool", 2),
            ("member", 3),
            ("health_monitor", 1),
        ] {
            assert_eq!(env.in_use(P1, kind).await, n, "in_use_{kind}");
        }
        // one provider call with the nested models
        assert_eq!(
            env.provider("ovn").names(),
            vec!["loadbalancer_create".to_string()]
        );
        let m = env.provider("ovn").last("loadbalancer_create").unwrap();
        assert_eq!(m["listeners"].as_array().unwrap().len(), 2);
        assert_eq!(m["pools"].as_array().unwrap().len(), 2);
        let ml80 = by_name(&m["listeners"], "l80");
        assert_eq!(ml80["default_pool"]["pool_id"], web["id"]);
        assert_eq!(ml80["l7policies"][0]["redirect_pool_id"], api_pool["id"]);
        assert_eq!(ml80["l7policies"][0]["rules"][0]["value"], "/api");
        let mweb = by_name(&m["pools"], "web");
        assert_eq!(mweb["members"].as_array().unwrap().len(), 2);
        assert_eq!(mweb["members"][0]["address"], "10.0.0.21", "request order");
        assert_eq!(mweb["members"][1]["address"], "10.0.0.22");
        assert_eq!(mweb["healthmonitor"]["type"], "HTTP");
        assert_eq!(mweb["listener_id"], l80["id"]);
        // GET shows the plain (id-only) shape again
        let id = lb["id"].as_str().unwrap();
        let (s, g) = env
            .call(
                P1,
                MEMBER,
                "GET",
                &format!("/v2/lbaas/loadbalancers/{id}"),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(g["loadbalancer"]["listeners"].as_array().unwrap().len(), 2);
        assert!(g["loadbalancer"]["listeners"][0].get("protocol").is_none());
    });
}

#[tokio::test]
async fn refusals_leave_nothing_behind() {
    let cases: Vec<(Value, StatusCode, &str)> = vec![
        (
            json!({"listeners": [{"protocol": "HTTP", "protocol_port": 80,
                   "default_pool": {"protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN"}}]}),
            StatusCode::BAD_REQUEST,
            "Validation failure: Pools must be named when creating a fully populated loadbalancer.",
        ),
        (
            json!({"listeners": [{"protocol": "HTTP", "protocol_port": 80,
                   "default_pool": {"name": "ghost"}}]}),
            StatusCode::BAD_REQUEST,
            "Validation failure: Pool 'ghost' was referenced but no full definition was found.",
        ),
        (
            json!({"pools": [
                {"name": "p", "protocol": "TCP", "lb_algorithm": "ROUND_ROBIN"},
                {"name": "p", "protocol": "TCP", "lb_algorithm": "ROUND_ROBIN"}]}),
            StatusCode::BAD_REQUEST,
            "Validation failure: Pool names must be unique when creating a fully populated loadbalancer.",
        ),
        (
            json!({"pools": [{"name": "p", "protocol": "TCP"}]}),
            StatusCode::BAD_REQUEST,
            "Validation failure: Pool definition for 'p' missing required attribute: lb_algorithm",
        ),
        (
            json!({"listeners": [{"protocol": "UDP", "protocol_port": 53,
                   "default_pool": {"name": "p", "protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN"}}]}),
            StatusCode::BAD_REQUEST,
            "Validation failure: The pool protocol 'HTTP' is invalid while the listener protocol is 'UDP'.",
        ),
        (
            json!({"pools": [{"name": "p", "protocol": "TCP", "lb_algorithm": "ROUND_ROBIN",
                   "members": [{"address": "169.254.169.254", "protocol_port": 80}]}]}),
            StatusCode::BAD_REQUEST,
            "169.254.169.254 is not a valid option for member address",
        ),
        (
            json!({"pools": [{"name": "p", "protocol": "TCP", "lb_algorithm": "ROUND_ROBIN",
                   "healthmonitor": {"type": "UDP-CONNECT", "delay": 5, "timeout": 3, "max_retries": 2}}]}),
            StatusCode::BAD_REQUEST,
            "Validation failure: The UDP-CONNECT type is only supported for pools of type UDP/SCTP.",
        ),
        (
            json!({"listeners": [
                {"protocol": "HTTP", "protocol_port": 80},
                {"protocol": "TCP", "protocol_port": 80}]}),
            StatusCode::CONFLICT,
            "Another Listener on this Load Balancer is already using protocol TCP and protocol_port 80",
        ),
        (
            json!({"listeners": [{"protocol": "HTTP", "protocol_port": 80,
                   "l7policies": [{"action": "REJECT",
                       "rules": [{"type": "PATH", "compare_type": "REGEX", "value": "(("}]}]}]}),
            StatusCode::BAD_REQUEST,
            "",
        ),
        // a null L7 action or rule attribute: the reference's sanitize / l7rule_data texts,
        // not WSME's "Mandatory field missing."
        (
            json!({"listeners": [{"protocol": "HTTP", "protocol_port": 80,
                   "l7policies": [{"action": null}]}]}),
            StatusCode::BAD_REQUEST,
            "Invalid L7 Policy action specified: None",
        ),
        (
            json!({"listeners": [{"protocol": "HTTP", "protocol_port": 80,
                   "l7policies": [{"action": "REJECT",
                       "rules": [{"type": null, "compare_type": "EQUAL_TO", "value": "/a"}]}]}]}),
            StatusCode::BAD_REQUEST,
            "Error parsing L7Rule: Invalid L7 Rule: invalid rule type",
        ),
    ];
    each_backend!(Setup::role_tokens(Policy::default()), |env| {
        for (extra, status, text) in &cases {
            let mut body = json!({"loadbalancer": {"vip_subnet_id": SUBNET}});
            for (k, v) in extra.as_object().unwrap() {
                body["loadbalancer"][k] = v.clone();
            }
            let (s, b) = env
                .call(P1, MEMBER, "POST", "/v2/lbaas/loadbalancers", Some(body))
                .await;
            assert_eq!(s, *status, "{extra}: {b}");
            if !text.is_empty() {
                assert!(
                    b["faultstring"].as_str().unwrap().contains(text),
                    "{extra}: {b}"
                );
            }
            assert_nothing_left(&env).await;
        }
        // a driver error rolls the whole tree back too
        env.provider("ovn").fail_lb_create("boom");
        let (s, _) = env
            .call(P1, MEMBER, "POST", "/v2/lbaas/loadbalancers", Some(tree()))
            .await;
        assert_eq!(s, StatusCode::INTERNAL_SERVER_ERROR);
        assert_nothing_left(&env).await;
    });
}

#[tokio::test]
async fn quotas_are_counted_per_kind() {
    each_backend!(Setup::role_tokens(Policy::default()), |env| {
        for (quota, resource) in [
            (json!({"member": 2}), "Member"),
            (json!({"pool": 1}), "Pool"),
            (json!({"listener": 1}), "Listener"),
            (json!({"healthmonitor": 0}), "Health Monitor"),
        ] {
            let (s, b) = env
                .call(
                    P1,
                    "admin",
                    "PUT",
                    &format!("/v2/lbaas/quotas/{P1}"),
                    Some(json!({"quota": quota})),
                )
                .await;
            assert_eq!(s, StatusCode::ACCEPTED, "{b}");
            let (s, b) = env
                .call(P1, MEMBER, "POST", "/v2/lbaas/loadbalancers", Some(tree()))
                .await;
            assert_eq!(s, StatusCode::FORBIDDEN, "{quota}: {b}");
            assert_eq!(
                b["faultstring"],
                format!("Quota has been met for resources: {resource}")
            );
            assert_nothing_left(&env).await;
            let (s, _) = env
                .call(
                    P1,
                    "admin",
                    "DELETE",
                    &format!("/v2/lbaas/quotas/{P1}"),
                    None,
                )
                .await;
            assert_eq!(s, StatusCode::ACCEPTED);
        }
        // with room for exactly the tree it goes through
        let (s, _) = env
            .call(
                P1,
                "admin",
                "PUT",
                &format!("/v2/lbaas/quotas/{P1}"),
                Some(json!({"quota": {"member": 3, "pool": 2, "listener": 2, "healthmonitor": 1}})),
            )
            .await;
        assert_eq!(s, StatusCode::ACCEPTED);
        let (s, b) = env
            .call(P1, MEMBER, "POST", "/v2/lbaas/loadbalancers", Some(tree()))
            .await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
    });
}

#[tokio::test]
async fn noauth_creates_the_tree_without_quotas() {
    for mysql in common::db::backends() {
        let env = Env::new(
            mysql,
            Setup::role_tokens(Policy::default()).auth(api::AuthMode::NoAuth),
        )
        .await;
        let mut body = tree();
        body["loadbalancer"]["project_id"] = json!(P1);
        let (s, b) = env
            .req_as(None, "POST", "/v2/lbaas/loadbalancers", Some(body))
            .await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        assert_eq!(b["loadbalancer"]["project_id"], P1);
        assert_eq!(b["loadbalancer"]["pools"].as_array().unwrap().len(), 2);
        assert_eq!(env.count("member").await, 3);
        for kind in ["load_balancer", "listener", "pool", "member"] {
            assert_eq!(env.in_use(P1, kind).await, 0, "noauth skips quotas: {kind}");
        }
        env.done().await;
    }
}

/// An object as read back, without what differs between two creates of the same thing (ids,
/// times, parents, statuses, which follow the order of the writes).
fn stored(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(o) = v.as_object_mut() {
        for k in [
            "id",
            "created_at",
            "updated_at",
            "loadbalancers",
            "listeners",
            "pools",
            "default_pool_id",
            "healthmonitor_id",
            "members",
            "l7policies",
            "rules",
            "listener_id",
            "pool_id",
            "redirect_pool_id",
            "provisioning_status",
            "operating_status",
        ] {
            o.remove(k);
        }
    }
    v
}

/// Every attribute whose POST rule is not WSME's plain default — an explicit `null`
/// (`connection_limit: null` is stored NULL by the listener POST) and the defaults a create
/// fills in (timeouts, TLS versions / ALPN of a TLS pool, HTTP monitor fields, member weight,
/// `client_authentication`, HSTS flags, an L7 redirect's code) — stored by the single call exactly as the resource's
/// own POST stores it.
#[tokio::test]
async fn graph_create_stores_what_the_posts_store() {
    let listener = json!({
        "name": null, "description": null, "protocol": "HTTP", "protocol_port": 80,
        "connection_limit": null, "timeout_client_data": null, "timeout_member_connect": null,
        "timeout_member_data": null, "timeout_tcp_inspect": null, "tags": ["t"],
        "allowed_cidrs": ["10.0.0.0/24", "10.0.0.0/24"], "insert_headers": {"X-Forwarded-For": "true"}
    });
    let listener2 = json!({"name": "l2", "protocol": "TCP", "protocol_port": 81,
                           "connection_limit": 7});
    let pool = json!({
        "name": "p", "description": null, "protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN",
        "tls_enabled": true, "tls_ciphers": null, "tls_versions": null, "alpn_protocols": null,
        "session_persistence": {"type": "APP_COOKIE", "cookie_name": "c"}, "tags": ["t"]
    });
    let hm = json!({"name": null, "type": "HTTP", "delay": 5, "timeout": 3, "max_retries": 2,
                    "max_retries_down": null, "http_method": null, "url_path": null,
                    "expected_codes": null, "tags": ["t"]});
    let member = json!({"name": null, "address": "10.0.0.21", "protocol_port": 8080,
                        "weight": null, "backup": null, "monitor_address": null,
                        "monitor_port": null, "subnet_id": null, "tags": ["t"]});
    let policy = json!({"name": null, "action": "REJECT", "position": null, "tags": ["t"]});
    // a redirect whose code is left out: sanitize's default (302), the other redirects null
    let policy2 = json!({"name": "r", "action": "REDIRECT_TO_URL",
                         "redirect_url": "http://u.example/x", "redirect_prefix": null});
    let rule = json!({"type": "PATH", "compare_type": "STARTS_WITH", "value": "/a",
                      "key": null, "invert": null, "tags": ["t"]});
    // `full` implements every create, L7 included
    each_backend!(Setup::named_tokens(), |env| {
        // the single call
        let mut l = listener.clone();
        let mut p = pool.clone();
        p["healthmonitor"] = hm.clone();
        p["members"] = json!([member.clone()]);
        l["default_pool"] = p;
        let mut pol = policy.clone();
        pol["rules"] = json!([rule.clone()]);
        l["l7policies"] = json!([pol, policy2.clone()]);
        let (s, b) = env
            .req(
                "POST",
                "/v2/lbaas/loadbalancers",
                Some(
                    json!({"loadbalancer": {"name": "g", "vip_subnet_id": SUBNET,
                                             "listeners": [l, listener2.clone()]}}),
                ),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        let graph = &b["loadbalancer"];
        let g_pool = &graph["pools"][0];
        let g_listener = by_name(&graph["listeners"], "");
        let g_l2 = by_name(&graph["listeners"], "l2");
        let read = |path: String| {
            let env = &env;
            async move {
                let (s, b) = env.req("GET", &path, None).await;
                assert_eq!(s, StatusCode::OK, "{path}: {b}");
                b
            }
        };
        let g_policy = &g_listener["l7policies"][0];
        let graph_objs = [
            read(format!(
                "/v2/lbaas/listeners/{}",
                g_listener["id"].as_str().unwrap()
            ))
            .await["listener"]
                .clone(),
            read(format!(
                "/v2/lbaas/listeners/{}",
                g_l2["id"].as_str().unwrap()
            ))
            .await["listener"]
                .clone(),
            read(format!(
                "/v2/lbaas/pools/{}",
                g_pool["id"].as_str().unwrap()
            ))
            .await["pool"]
                .clone(),
            read(format!(
                "/v2/lbaas/healthmonitors/{}",
                g_pool["healthmonitor"]["id"].as_str().unwrap()
            ))
            .await["healthmonitor"]
                .clone(),
            read(format!(
                "/v2/lbaas/pools/{}/members/{}",
                g_pool["id"].as_str().unwrap(),
                g_pool["members"][0]["id"].as_str().unwrap()
            ))
            .await["member"]
                .clone(),
            read(format!(
                "/v2/lbaas/l7policies/{}",
                g_policy["id"].as_str().unwrap()
            ))
            .await["l7policy"]
                .clone(),
            read(format!(
                "/v2/lbaas/l7policies/{}/rules/{}",
                g_policy["id"].as_str().unwrap(),
                g_policy["rules"][0]["id"].as_str().unwrap()
            ))
            .await["rule"]
                .clone(),
            read(format!(
                "/v2/lbaas/l7policies/{}",
                g_listener["l7policies"][1]["id"].as_str().unwrap()
            ))
            .await["l7policy"]
                .clone(),
        ];

        // the same objects, one POST each
        let lb = env.active_lb("p").await;
        let mut l = listener.clone();
        l["loadbalancer_id"] = json!(lb);
        let lid = env.create("/v2/lbaas/listeners", "listener", l).await;
        env.activate(&lb, &lid, "").await;
        let mut l2 = listener2.clone();
        l2["loadbalancer_id"] = json!(lb);
        let l2id = env.create("/v2/lbaas/listeners", "listener", l2).await;
        env.activate(&lb, &l2id, "").await;
        let mut p = pool.clone();
        p["listener_id"] = json!(lid);
        let pid = env.create("/v2/lbaas/pools", "pool", p).await;
        env.activate(&lb, &lid, &pid).await;
        let mut h = hm.clone();
        h["pool_id"] = json!(pid);
        let hid = env
            .create("/v2/lbaas/healthmonitors", "healthmonitor", h)
            .await;
        env.activate(&lb, &lid, &pid).await;
        env.set_status("health_monitor", &hid, "ACTIVE").await;
        let mid = env
            .create(
                &format!("/v2/lbaas/pools/{pid}/members"),
                "member",
                member.clone(),
            )
            .await;
        env.activate(&lb, &lid, &pid).await;
        let mut pol = policy.clone();
        pol["listener_id"] = json!(lid);
        let polid = env.create("/v2/lbaas/l7policies", "l7policy", pol).await;
        env.activate(&lb, &lid, &pid).await;
        env.set_status("l7policy", &polid, "ACTIVE").await;
        let rid = env
            .create(
                &format!("/v2/lbaas/l7policies/{polid}/rules"),
                "rule",
                rule.clone(),
            )
            .await;
        env.activate(&lb, &lid, &pid).await;
        let mut pol2 = policy2.clone();
        pol2["listener_id"] = json!(lid);
        let pol2id = env.create("/v2/lbaas/l7policies", "l7policy", pol2).await;
        let post_objs = [
            read(format!("/v2/lbaas/listeners/{lid}")).await["listener"].clone(),
            read(format!("/v2/lbaas/listeners/{l2id}")).await["listener"].clone(),
            read(format!("/v2/lbaas/pools/{pid}")).await["pool"].clone(),
            read(format!("/v2/lbaas/healthmonitors/{hid}")).await["healthmonitor"].clone(),
            read(format!("/v2/lbaas/pools/{pid}/members/{mid}")).await["member"].clone(),
            read(format!("/v2/lbaas/l7policies/{polid}")).await["l7policy"].clone(),
            read(format!("/v2/lbaas/l7policies/{polid}/rules/{rid}")).await["rule"].clone(),
            read(format!("/v2/lbaas/l7policies/{pol2id}")).await["l7policy"].clone(),
        ];
        assert_eq!(graph_objs[0]["connection_limit"], Value::Null);
        assert_eq!(graph_objs[7]["redirect_http_code"], 302);
        for (g, p) in graph_objs.iter().zip(&post_objs) {
            assert_eq!(stored(g), stored(p));
        }
        // a `null` protocol: the POST's answer, nothing written
        let listeners = env.count("listener").await;
        let (s, b) = env
            .req(
                "POST",
                "/v2/lbaas/loadbalancers",
                Some(
                    json!({"loadbalancer": {"vip_subnet_id": SUBNET, "listeners": [
                    {"protocol": null, "protocol_port": 82}]}}),
                ),
            )
            .await;
        assert_eq!(
            (s, b["faultstring"].as_str().unwrap_or("")),
            (
                StatusCode::BAD_REQUEST,
                "None is not a valid option for protocol"
            ),
            "{b}"
        );
        assert_eq!(env.count("listener").await, listeners);
    });
}
