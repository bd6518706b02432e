//! Quota enforcement and RBAC for pools, members and health monitors under keystone-style
//! auth (fake token validator), in-process against a real octavia-db (SQLite and MariaDB).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use axum::http::StatusCode;
use common::PROJECT;
use serde_json::json;

#[tokio::test]
async fn quotas_and_policy_on_pool_children() {
    each_backend!(common::Setup::named_tokens(), |env| {
        let (lb, l) = env.lb_listener("full", "TCP").await;
        // members may not change quotas; admins may
        let (s, _) = env
            .req(
                "PUT",
                &format!("/v2/lbaas/quotas/{PROJECT}"),
                Some(json!({"quota": {"member": 0, "healthmonitor": 0}})),
            )
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (s, _) = env
            .req_as(
                Some("admin"),
                "PUT",
                &format!("/v2/lbaas/quotas/{PROJECT}"),
                Some(json!({"quota": {"member": 0, "healthmonitor": 0}})),
            )
            .await;
        assert_eq!(s, StatusCode::ACCEPTED);
        let (s, b) = env
            .req_as(
                Some("member"),
                "GET",
                &format!("/v2/lbaas/quotas/{PROJECT}"),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(b["quota"]["member"], 0);

        // a reader cannot create a pool; a stranger cannot see it
        let body =
            json!({"pool": {"listener_id": l, "protocol": "TCP", "lb_algorithm": "ROUND_ROBIN"}});
        let (s, _) = env
            .req_as(
                Some("reader"),
                "POST",
                "/v2/lbaas/pools",
                Some(body.clone()),
            )
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (s, b) = env.req("POST", "/v2/lbaas/pools", Some(body)).await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        let p = b["pool"]["id"].as_str().unwrap().to_string();
        for (t, id) in [("load_balancer", &lb), ("listener", &l), ("pool", &p)] {
            env.set_status(t, id, "ACTIVE").await;
        }
        let (s, _) = env
            .req_as(
                Some("stranger"),
                "GET",
                &format!("/v2/lbaas/pools/{p}"),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (_, b) = env
            .req_as(Some("stranger"), "GET", "/v2/lbaas/pools", None)
            .await;
        assert_eq!(b["pools"], json!([]));
        let (s, _) = env
            .req_as(
                Some("stranger"),
                "GET",
                &format!("/v2/lbaas/pools/{p}/members"),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (s, b) = env
            .req_as(
                Some("reader"),
                "GET",
                &format!("/v2/lbaas/pools/{p}/members"),
                None,
            )
            .await;
        assert_eq!(
            (s, b),
            (StatusCode::OK, json!({"members": [], "members_links": []}))
        );

        // member quota 0 (checked before the provider is called): single and batch refused,
        // nothing stored, nothing locked
        let (s, b) = env
            .req(
                "POST",
                &format!("/v2/lbaas/pools/{p}/members"),
                Some(json!({"member": {"address": "10.0.0.1", "protocol_port": 80}})),
            )
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        assert_eq!(b["faultstring"], "Quota has been met for resources: Member");
        let (s, b) = env
            .req(
                "PUT",
                &format!("/v2/lbaas/pools/{p}/members"),
                Some(json!({"members": [{"address": "10.0.0.2", "protocol_port": 80}]})),
            )
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        assert_eq!(b["faultstring"], "Quota has been met for resources: Member");
        assert_eq!(env.count("member").await, 0);
        // an empty batch on an empty pool is a no-op, not a quota question
        let (s, _) = env
            .req(
                "PUT",
                &format!("/v2/lbaas/pools/{p}/members"),
                Some(json!({"members": []})),
            )
            .await;
        assert_eq!(s, StatusCode::ACCEPTED);
        let (s, b) = env.req("POST", "/v2/lbaas/healthmonitors", Some(json!({"healthmonitor": {"pool_id": p, "type": "TCP", "delay": 5, "timeout": 3, "max_retries": 3}}))).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        assert_eq!(
            b["faultstring"],
            "Quota has been met for resources: Health Monitor"
        );
        assert_eq!(env.count("health_monitor").await, 0);
        assert_eq!(env.status_of("pool", &p).await, "ACTIVE");
        let (_, b) = env
            .req_as(Some("admin"), "GET", "/v2/lbaas/quotas", None)
            .await;
        assert_eq!(b["quotas"][0]["member"], 0);
    });
}
