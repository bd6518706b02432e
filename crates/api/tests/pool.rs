//! Pool endpoints in-process against a real octavia-db (SQLite and MariaDB).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use axum::http::StatusCode;
use serde_json::{Value, json};

const POOL_KEYS: &[&str] = &[
    "admin_state_up",
    "alpn_protocols",
    "ca_tls_container_ref",
    "created_at",
    "crl_container_ref",
    "description",
    "id",
    "lb_algorithm",
    "listeners",
    "loadbalancers",
    "members",
    "name",
    "operating_status",
    "project_id",
    "protocol",
    "provisioning_status",
    "session_persistence",
    "tags",
    "tenant_id",
    "tls_ciphers",
    "tls_container_ref",
    "tls_enabled",
    "tls_versions",
    "updated_at",
];

/// An ACTIVE LB with an ACTIVE TCP listener on port 80: `(lb, listener)`.
async fn lb_and_listener(env: &common::Env) -> (String, String) {
    let lb = env.active_lb("lb").await;
    let (s, b) = env.req("POST", "/v2/lbaas/listeners", Some(json!({"listener": {"loadbalancer_id": lb, "protocol": "TCP", "protocol_port": 80}}))).await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    let l = b["listener"]["id"].as_str().unwrap().to_string();
    env.set_status("load_balancer", &lb, "ACTIVE").await;
    env.set_status("listener", &l, "ACTIVE").await;
    (lb, l)
}

#[tokio::test]
async fn pool_lifecycle_on_listener() {
    each_backend!(common::Setup::noauth(), |env| {
        let (lb, l) = lb_and_listener(&env).await;
        let (s, b) = env
            .req(
                "POST",
                "/v2/lbaas/pools",
                Some(json!({"pool": {"protocol": "TCP", "lb_algorithm": "ROUND_ROBIN"}})),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            b["faultstring"],
            "Validation failure: Must provide at least one of: loadbalancer_id, listener_id"
        );
        let (s, b) = env.req("POST", "/v2/lbaas/pools", Some(json!({"pool": {"listener_id": l, "protocol": "UDP", "lb_algorithm": "ROUND_ROBIN"}}))).await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            b["faultstring"],
            "Validation failure: The pool protocol 'UDP' is invalid while the listener protocol is 'TCP'."
        );

        let (s, b) = env.req("POST", "/v2/lbaas/pools", Some(json!({"pool": {"listener_id": l, "protocol": "TCP", "lb_algorithm": "SOURCE_IP_PORT", "name": "p1",
            "session_persistence": {"type": "SOURCE_IP"}}}))).await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        let p = &b["pool"];
        let mut keys: Vec<&str> = p.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort();
        assert_eq!(keys, POOL_KEYS, "no healthmonitor_id without a monitor");
        assert_eq!(p["provisioning_status"], "PENDING_CREATE");
        assert_eq!(p["operating_status"], "OFFLINE");
        assert_eq!(p["listeners"], json!([{"id": l}]));
        assert_eq!(p["loadbalancers"], json!([{"id": lb}]));
        assert_eq!(
            p["session_persistence"],
            json!({"type": "SOURCE_IP", "cookie_name": null, "persistence_timeout": null, "persistence_granularity": null})
        );
        assert_eq!(p["tls_versions"], Value::Null);
        let pid = p["id"].as_str().unwrap().to_string();
        assert_eq!(env.status_of("load_balancer", &lb).await, "PENDING_UPDATE");
        assert_eq!(env.status_of("listener", &l).await, "PENDING_UPDATE");
        let (_, b) = env
            .req("GET", &format!("/v2/lbaas/listeners/{l}"), None)
            .await;
        assert_eq!(b["listener"]["default_pool_id"], pid.as_str());

        // LB PENDING_UPDATE → 409
        let (s, b) = env
            .req(
                "PUT",
                &format!("/v2/lbaas/pools/{pid}"),
                Some(json!({"pool": {"name": "x"}})),
            )
            .await;
        assert_eq!(s, StatusCode::CONFLICT);
        assert_eq!(
            b["faultstring"],
            format!("Load Balancer {lb} is immutable and cannot be updated.")
        );
        for (t, id) in [("load_balancer", &lb), ("listener", &l), ("pool", &pid)] {
            env.set_status(t, id, "ACTIVE").await;
        }
        let (s, b) = env.req("POST", "/v2/lbaas/pools", Some(json!({"pool": {"listener_id": l, "protocol": "TCP", "lb_algorithm": "ROUND_ROBIN"}}))).await;
        assert_eq!(s, StatusCode::CONFLICT);
        assert_eq!(b["faultstring"], "This listener already has a default pool");
        assert_eq!(env.status_of("load_balancer", &lb).await, "ACTIVE");

        let (s, b) = env
            .req(
                "PUT",
                &format!("/v2/lbaas/pools/{pid}"),
                Some(json!({"pool": {"protocol": "UDP"}})),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            b["faultstring"],
            "Unknown attribute for argument pool_.pool: protocol"
        );
        let (s, b) = env
            .req(
                "PUT",
                &format!("/v2/lbaas/pools/{pid}"),
                Some(json!({"pool": {"lb_algorithm": "ROUND_ROBIN", "session_persistence": null}})),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{b}");
        assert_eq!(b["pool"]["lb_algorithm"], "ROUND_ROBIN");
        assert_eq!(b["pool"]["provisioning_status"], "PENDING_UPDATE");
        assert_eq!(b["pool"]["session_persistence"], Value::Null);
        assert_eq!(env.count("session_persistence").await, 0);
        assert_eq!(env.status_of("listener", &l).await, "PENDING_UPDATE");
        for (t, id) in [("load_balancer", &lb), ("listener", &l), ("pool", &pid)] {
            env.set_status(t, id, "ACTIVE").await;
        }

        // a second pool on the LB only
        let (s, b) = env.req("POST", "/v2/lbaas/pools", Some(json!({"pool": {"loadbalancer_id": lb, "protocol": "HTTP", "lb_algorithm": "LEAST_CONNECTIONS", "name": "p2", "tags": ["t"]}}))).await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        assert_eq!(b["pool"]["listeners"], json!([]));
        let p2 = b["pool"]["id"].as_str().unwrap().to_string();
        env.set_status("load_balancer", &lb, "ACTIVE").await;

        let (_, b) = env.req("GET", "/v2/lbaas/pools?name=p1", None).await;
        assert_eq!(b["pools"].as_array().unwrap().len(), 1);
        let (_, b) = env
            .req(
                "GET",
                &format!("/v2/lbaas/pools?loadbalancer_id={lb}&sort=name:desc"),
                None,
            )
            .await;
        let names: Vec<&str> = b["pools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["p2", "p1"]);
        assert!(b["pools"][0].get("loadbalancer_id").is_none());
        let (_, b) = env
            .req("GET", "/v2/lbaas/pools?tags=t&fields=id", None)
            .await;
        assert_eq!(b["pools"], json!([{"id": p2}]));
        let (_, b) = env.req("GET", "/v2/lbaas/pools?limit=1", None).await;
        assert_eq!(b["pools_links"][0]["rel"], "next");
        let (_, b) = env
            .req("GET", &format!("/v2/lbaas/loadbalancers/{lb}"), None)
            .await;
        assert_eq!(b["loadbalancer"]["pools"].as_array().unwrap().len(), 2);

        let (s, _) = env
            .req("DELETE", &format!("/v2/lbaas/pools/{pid}"), None)
            .await;
        assert_eq!(s, StatusCode::NO_CONTENT);
        assert_eq!(env.status_of("pool", &pid).await, "PENDING_DELETE");
        assert_eq!(env.status_of("listener", &l).await, "PENDING_UPDATE");
        assert_eq!(env.status_of("load_balancer", &lb).await, "PENDING_UPDATE");
        assert_eq!(
            env.provider("fake").names()[3..],
            ["pool_create", "pool_update", "pool_create", "pool_delete"]
        );
        let missing = uuid::Uuid::new_v4();
        let (s, b) = env
            .req("GET", &format!("/v2/lbaas/pools/{missing}"), None)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        assert_eq!(b["faultstring"], format!("Pool {missing} not found."));
    });
}

#[tokio::test]
async fn pool_validation_and_provider_refusal() {
    each_backend!(common::Setup::noauth(), |env| {
        let (lb, l) = lb_and_listener(&env).await;
        let cases = [
            (
                json!({"pool": {"loadbalancer_id": lb, "protocol": "TCP", "lb_algorithm": "RANDOM"}}),
                "Invalid input for field/attribute lb_algorithm. Value: 'RANDOM'. Value should be one of: ROUND_ROBIN, LEAST_CONNECTIONS, SOURCE_IP, SOURCE_IP_PORT",
            ),
            (
                json!({"pool": {"loadbalancer_id": lb, "protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN", "session_persistence": {"type": "APP_COOKIE"}}}),
                "Validation failure: Field \"cookie_name\" must be specified when using the \"APP_COOKIE\" session persistence type.",
            ),
            (
                json!({"pool": {"loadbalancer_id": lb, "protocol": "UDP", "lb_algorithm": "ROUND_ROBIN", "session_persistence": {"type": "HTTP_COOKIE"}}}),
                "Validation failure: Session persistence of type HTTP_COOKIE is not supported for UDP/SCTP protocol pools.",
            ),
            (
                json!({"pool": {"listener_id": uuid::Uuid::new_v4(), "protocol": "TCP", "lb_algorithm": "ROUND_ROBIN"}}),
                "",
            ),
        ];
        for (body, text) in cases {
            let (s, b) = env.req("POST", "/v2/lbaas/pools", Some(body)).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{b}");
            if !text.is_empty() {
                assert_eq!(b["faultstring"], text);
            }
        }
        assert_eq!(env.count("pool").await, 0);
        // provider refuses: nothing stored, statuses untouched, listener not linked
        let mut tx = env.db.begin().await.unwrap();
        tx.execute(
            "UPDATE load_balancer SET provider = 'nope' WHERE id = ?",
            vec![lb.as_str().into()],
        )
        .await
        .unwrap();
        tx.commit().await.unwrap();
        let (s, b) = env.req("POST", "/v2/lbaas/pools", Some(json!({"pool": {"listener_id": l, "protocol": "TCP", "lb_algorithm": "ROUND_ROBIN", "session_persistence": {"type": "SOURCE_IP"}}}))).await;
        assert_eq!(s, StatusCode::NOT_IMPLEMENTED, "{b}");
        assert_eq!(env.count("pool").await, 0);
        assert_eq!(env.count("session_persistence").await, 0);
        assert_eq!(env.status_of("load_balancer", &lb).await, "ACTIVE");
        assert_eq!(env.status_of("listener", &l).await, "ACTIVE");
        let (_, b) = env
            .req("GET", &format!("/v2/lbaas/listeners/{l}"), None)
            .await;
        assert_eq!(b["listener"]["default_pool_id"], Value::Null);
        assert_eq!(env.provider("nope").names(), ["pool_create"]);
    });
}
