//! A whole LB tree (listener → pool → members + monitor): cascade delete and the L7 guard on
//! pool delete, in-process against a real octavia-db (SQLite and MariaDB).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use axum::http::StatusCode;
use serde_json::json;

#[tokio::test]
async fn full_tree_cascade_delete_and_l7_guard() {
    each_backend!(common::Setup::noauth(), |env| {
        let lb = env.active_lb("lb").await;
        let (s, b) = env.req("POST", "/v2/lbaas/listeners", Some(json!({"listener": {"loadbalancer_id": lb, "protocol": "TCP", "protocol_port": 80}}))).await;
        assert_eq!(s, StatusCode::CREATED);
        let l = b["listener"]["id"].as_str().unwrap().to_string();
        env.set_status("load_balancer", &lb, "ACTIVE").await;
        let (s, b) = env.req("POST", "/v2/lbaas/pools", Some(json!({"pool": {"listener_id": l, "protocol": "TCP", "lb_algorithm": "SOURCE_IP_PORT"}}))).await;
        assert_eq!(s, StatusCode::CREATED);
        let p = b["pool"]["id"].as_str().unwrap().to_string();
        let settle = |p: String| {
            let env = &env;
            let (lb, l) = (lb.clone(), l.clone());
            async move {
                env.set_status("load_balancer", &lb, "ACTIVE").await;
                env.set_status("listener", &l, "ACTIVE").await;
                env.set_status("pool", &p, "ACTIVE").await;
            }
        };
        settle(p.clone()).await;
        for ip in ["10.0.0.10", "10.0.0.11"] {
            let (s, b) = env.req("POST", &format!("/v2/lbaas/pools/{p}/members"), Some(json!({"member": {"address": ip, "protocol_port": 8080, "subnet_id": common::SUBNET}}))).await;
            assert_eq!(s, StatusCode::CREATED, "{b}");
            settle(p.clone()).await;
        }
        let (s, _) = env.req("POST", "/v2/lbaas/healthmonitors", Some(json!({"healthmonitor": {"pool_id": p, "type": "TCP", "delay": 5, "timeout": 3, "max_retries": 3}}))).await;
        assert_eq!(s, StatusCode::CREATED);
        settle(p.clone()).await;

        // an L7 policy redirecting to the pool blocks its delete
        let mut tx = env.db.begin().await.unwrap();
        tx.insert(&octavia_db::L7PolicyRow {
            id: "11111111-2222-3333-4444-555555555555".into(),
            listener_id: l.clone(),
            action: "REDIRECT_TO_POOL".into(),
            redirect_pool_id: Some(p.clone()),
            position: 1,
            enabled: true,
            provisioning_status: "ACTIVE".parse().unwrap(),
            operating_status: "ONLINE".parse().unwrap(),
            ..Default::default()
        })
        .await
        .unwrap();
        tx.commit().await.unwrap();
        let (s, b) = env
            .req("DELETE", &format!("/v2/lbaas/pools/{p}"), None)
            .await;
        assert_eq!(s, StatusCode::CONFLICT);
        assert_eq!(
            b["faultstring"],
            format!("Pool {p} is in use by L7 policy 11111111-2222-3333-4444-555555555555")
        );
        assert_eq!(env.status_of("load_balancer", &lb).await, "ACTIVE");

        let (s, b) = env
            .req("DELETE", &format!("/v2/lbaas/loadbalancers/{lb}"), None)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            b["faultstring"],
            format!("Validation failure: Cannot delete Load Balancer {lb} - it has children")
        );
        let (s, _) = env
            .req(
                "DELETE",
                &format!("/v2/lbaas/loadbalancers/{lb}?cascade=true"),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::NO_CONTENT);
        assert_eq!(env.status_of("load_balancer", &lb).await, "PENDING_DELETE");
        assert_eq!(
            env.provider("fake").names().last().unwrap(),
            "loadbalancer_delete"
        );
        assert_eq!(env.count("member").await, 2);
        assert_eq!(env.count("health_monitor").await, 1);
    });
}
