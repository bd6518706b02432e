//! Health monitor endpoints and the LB status tree in-process against a real octavia-db
//! (SQLite and MariaDB).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use axum::http::StatusCode;
use serde_json::{Value, json};

const HM_KEYS: &[&str] = &[
    "admin_state_up",
    "created_at",
    "delay",
    "domain_name",
    "expected_codes",
    "http_method",
    "http_version",
    "id",
    "max_retries",
    "max_retries_down",
    "name",
    "operating_status",
    "pools",
    "project_id",
    "provisioning_status",
    "tags",
    "tenant_id",
    "timeout",
    "type",
    "updated_at",
    "url_path",
];

#[tokio::test]
async fn health_monitor_lifecycle_and_status_tree() {
    each_backend!(common::Setup::noauth(), |env| {
        let (lb, l, p) = env.lb_listener_pool("TCP").await;
        let hm = |extra: Value| {
            let mut v =
                json!({"pool_id": p, "type": "TCP", "delay": 5, "timeout": 3, "max_retries": 3});
            for (k, x) in extra.as_object().unwrap() {
                v[k] = x.clone();
            }
            json!({"healthmonitor": v})
        };
        let (s, b) = env
            .req(
                "POST",
                "/v2/lbaas/healthmonitors",
                Some(hm(json!({"url_path": "/x"}))),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            b["faultstring"],
            "url_path is not a valid option for health monitors of type TCP"
        );
        let (s, b) = env
            .req(
                "POST",
                "/v2/lbaas/healthmonitors",
                Some(hm(json!({"type": "UDP-CONNECT"}))),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            b["faultstring"],
            "Validation failure: The UDP-CONNECT type is only supported for pools of type UDP/SCTP."
        );
        let (s, b) = env
            .req(
                "POST",
                "/v2/lbaas/healthmonitors",
                Some(hm(json!({"max_retries": 11}))),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            b["faultstring"],
            "Invalid input for field/attribute max_retries. Value: '11'. Value should be lower or equal to 10"
        );
        assert_eq!(env.status_of("load_balancer", &lb).await, "ACTIVE");

        let (s, b) = env
            .req(
                "POST",
                "/v2/lbaas/healthmonitors",
                Some(hm(json!({"name": "hm1"}))),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        let h = &b["healthmonitor"];
        let mut keys: Vec<&str> = h.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort();
        assert_eq!(keys, HM_KEYS);
        assert_eq!(h["max_retries_down"], 3);
        assert_eq!(h["http_method"], Value::Null);
        assert_eq!(h["pools"], json!([{"id": p}]));
        assert_eq!(h["provisioning_status"], "PENDING_CREATE");
        assert_eq!(h["operating_status"], "OFFLINE");
        let hid = h["id"].as_str().unwrap().to_string();
        for (t, id) in [("load_balancer", &lb), ("listener", &l), ("pool", &p)] {
            assert_eq!(env.status_of(t, id).await, "PENDING_UPDATE", "{t}");
        }
        let (s, _) = env
            .req("POST", "/v2/lbaas/healthmonitors", Some(hm(json!({}))))
            .await;
        assert_eq!(s, StatusCode::CONFLICT);
        env.activate(&lb, &l, &p).await;
        let (s, b) = env
            .req("POST", "/v2/lbaas/healthmonitors", Some(hm(json!({}))))
            .await;
        assert_eq!(s, StatusCode::CONFLICT);
        assert_eq!(b["faultstring"], "This pool already has a health monitor");
        assert_eq!(env.count("health_monitor").await, 1);
        env.set_status("health_monitor", &hid, "ACTIVE").await;

        let (_, b) = env.req("GET", &format!("/v2/lbaas/pools/{p}"), None).await;
        assert_eq!(b["pool"]["healthmonitor_id"], hid.as_str());
        // a member now starts OFFLINE (pool has a monitor)
        let (s, b) = env
            .req(
                "POST",
                &format!("/v2/lbaas/pools/{p}/members"),
                Some(json!({"member": {"address": "10.0.0.10", "protocol_port": 8080}})),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        assert_eq!(b["member"]["operating_status"], "OFFLINE");
        let mid = b["member"]["id"].as_str().unwrap().to_string();
        env.activate(&lb, &l, &p).await;

        let (s, b) = env
            .req("GET", &format!("/v2/lbaas/loadbalancers/{lb}/status"), None)
            .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(
            b,
            json!({"statuses": {"loadbalancer": {"id": lb, "name": "lb", "operating_status": "OFFLINE", "provisioning_status": "ACTIVE",
            "listeners": [{"id": l, "name": "", "operating_status": "OFFLINE", "provisioning_status": "ACTIVE",
                "pools": [{"id": p, "name": "", "provisioning_status": "ACTIVE", "operating_status": "OFFLINE",
                    "health_monitor": {"id": hid, "name": "hm1", "type": "TCP", "provisioning_status": "ACTIVE", "operating_status": "OFFLINE"},
                    "members": [{"id": mid, "name": "", "operating_status": "OFFLINE", "provisioning_status": "PENDING_CREATE", "address": "10.0.0.10", "protocol_port": 8080}]}]}]}}})
        );

        let (s, b) = env
            .req(
                "PUT",
                &format!("/v2/lbaas/healthmonitors/{hid}"),
                Some(json!({"healthmonitor": {"http_method": null}})),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            b["faultstring"],
            "http_method is not a valid option for health monitors of type TCP"
        );
        let (s, b) = env
            .req(
                "PUT",
                &format!("/v2/lbaas/healthmonitors/{hid}"),
                Some(json!({"healthmonitor": {"delay": null}})),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(b["faultstring"], "None is not a valid option for delay");
        let (s, b) = env
            .req(
                "PUT",
                &format!("/v2/lbaas/healthmonitors/{hid}"),
                Some(json!({"healthmonitor": {"delay": 10, "max_retries_down": null}})),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{b}");
        assert_eq!(b["healthmonitor"]["delay"], 10);
        assert_eq!(b["healthmonitor"]["max_retries_down"], 3);
        assert_eq!(b["healthmonitor"]["provisioning_status"], "PENDING_UPDATE");
        assert_eq!(env.status_of("pool", &p).await, "PENDING_UPDATE");
        env.activate(&lb, &l, &p).await;

        let (_, b) = env
            .req(
                "GET",
                &format!("/v2/lbaas/healthmonitors?pool_id={p}"),
                None,
            )
            .await;
        assert_eq!(b["healthmonitors"].as_array().unwrap().len(), 1);
        assert!(b["healthmonitors"][0].get("pool_id").is_none());
        let (_, b) = env
            .req("GET", "/v2/lbaas/healthmonitors?type=HTTP", None)
            .await;
        assert_eq!(b["healthmonitors"], json!([]));
        let (s, b) = env
            .req(
                "GET",
                &format!("/v2/lbaas/healthmonitors/{hid}?fields=delay"),
                None,
            )
            .await;
        assert_eq!(
            (s, b),
            (StatusCode::OK, json!({"healthmonitor": {"delay": 10}}))
        );

        let (s, _) = env
            .req("DELETE", &format!("/v2/lbaas/healthmonitors/{hid}"), None)
            .await;
        assert_eq!(s, StatusCode::NO_CONTENT);
        assert_eq!(
            env.status_of("health_monitor", &hid).await,
            "PENDING_DELETE"
        );
        assert_eq!(env.status_of("pool", &p).await, "PENDING_UPDATE");
        env.set_status("health_monitor", &hid, "DELETED").await;
        let (s, b) = env
            .req("GET", &format!("/v2/lbaas/healthmonitors/{hid}"), None)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        assert_eq!(b["faultstring"], format!("Health Monitor {hid} not found."));
        let calls = env.provider("fake").names();
        assert_eq!(
            calls[calls.len() - 4..],
            [
                "health_monitor_create",
                "member_create",
                "health_monitor_update",
                "health_monitor_delete"
            ]
        );
    });
}

#[tokio::test]
async fn health_monitor_http_defaults_udp_rules_and_rollback() {
    each_backend!(common::Setup::noauth(), |env| {
        let (lb, l, p) = env.lb_listener_pool("HTTP").await;
        let (s, b) = env.req("POST", "/v2/lbaas/healthmonitors", Some(json!({"healthmonitor": {"pool_id": p, "type": "HTTP", "delay": 5, "timeout": 3, "max_retries": 2, "domain_name": "a.example"}}))).await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            b["faultstring"],
            "Validation failure: 'http_version' must be specified when 'domain_name' is provided."
        );
        let (s, b) = env.req("POST", "/v2/lbaas/healthmonitors", Some(json!({"healthmonitor": {"pool_id": p, "type": "HTTP", "delay": 5, "timeout": 3, "max_retries": 2, "http_version": 1.1, "domain_name": "a.example"}}))).await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        let h = &b["healthmonitor"];
        assert_eq!(
            (
                h["http_method"].as_str(),
                h["url_path"].as_str(),
                h["expected_codes"].as_str()
            ),
            (Some("GET"), Some("/"), Some("200"))
        );
        assert_eq!(h["http_version"], 1.1);
        env.activate(&lb, &l, &p).await;

        let (lb2, l2, p2) = env.lb_listener_pool("UDP").await;
        let base = json!({"pool_id": p2, "delay": 2, "timeout": 1, "max_retries": 2});
        let mut ping = base.clone();
        ping["type"] = json!("PING");
        let (s, b) = env
            .req(
                "POST",
                "/v2/lbaas/healthmonitors",
                Some(json!({"healthmonitor": ping})),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            b["faultstring"],
            "Validation failure: The associated pool protocol is UDP, so only a UDP-CONNECT/SCTP/TCP/HTTP health monitor is supported."
        );
        let mut udp = base.clone();
        udp["type"] = json!("UDP-CONNECT");
        let (s, b) = env
            .req(
                "POST",
                "/v2/lbaas/healthmonitors",
                Some(json!({"healthmonitor": udp})),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            b["faultstring"],
            "Validation failure: The request delay value 2 should be larger than 3 for UDP-CONNECT health monitor type."
        );

        // provider refusal: nothing stored, nothing left PENDING
        let mut tx = env.db.begin().await.unwrap();
        tx.execute(
            "UPDATE load_balancer SET provider = 'nope' WHERE id = ?",
            vec![lb2.as_str().into()],
        )
        .await
        .unwrap();
        tx.commit().await.unwrap();
        udp["delay"] = json!(5);
        let (s, _) = env
            .req(
                "POST",
                "/v2/lbaas/healthmonitors",
                Some(json!({"healthmonitor": udp})),
            )
            .await;
        assert_eq!(s, StatusCode::NOT_IMPLEMENTED);
        assert_eq!(env.count("health_monitor").await, 1);
        for (t, id) in [("load_balancer", &lb2), ("listener", &l2), ("pool", &p2)] {
            assert_eq!(env.status_of(t, id).await, "ACTIVE", "{t}");
        }
        assert_eq!(env.provider("nope").names(), ["health_monitor_create"]);
    });
}

/// Integers stored in `INT` columns are refused above 2³¹−1 with WSME's range text, on POST
/// and PUT, and nothing is written — never a 500 from the database, never a silently clamped
/// value (`delay` and `timeout` here; `connection_limit` of a listener too).
#[tokio::test]
async fn int_columns_refuse_values_beyond_their_range() {
    each_backend!(common::Setup::noauth(), |env| {
        let (lb, l, p) = env.lb_listener_pool("TCP").await;
        let too_big = 2_147_483_648_i64;
        let text = |field: &str| {
            format!(
                "Invalid input for field/attribute {field}. Value: '{too_big}'. Value should be lower or equal to 2147483647"
            )
        };
        for field in ["delay", "timeout"] {
            let mut hm =
                json!({"pool_id": p, "type": "TCP", "delay": 5, "timeout": 3, "max_retries": 3});
            hm[field] = json!(too_big);
            let (s, b) = env
                .req(
                    "POST",
                    "/v2/lbaas/healthmonitors",
                    Some(json!({"healthmonitor": hm})),
                )
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{b}");
            assert_eq!(b["faultstring"], text(field));
        }
        assert_eq!(env.count("health_monitor").await, 0);
        let hm = env
            .create(
                "/v2/lbaas/healthmonitors",
                "healthmonitor",
                json!({"pool_id": p, "type": "TCP", "delay": 5, "timeout": 3, "max_retries": 3}),
            )
            .await;
        env.activate(&lb, &l, &p).await;
        env.set_status("health_monitor", &hm, "ACTIVE").await;
        for field in ["delay", "timeout"] {
            let (s, b) = env
                .req(
                    "PUT",
                    &format!("/v2/lbaas/healthmonitors/{hm}"),
                    Some(json!({"healthmonitor": {field: too_big}})),
                )
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{b}");
            assert_eq!(b["faultstring"], text(field));
        }
        let (s, b) = env
            .req("GET", &format!("/v2/lbaas/healthmonitors/{hm}"), None)
            .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(
            (
                b["healthmonitor"]["delay"].clone(),
                b["healthmonitor"]["timeout"].clone()
            ),
            (json!(5), json!(3))
        );
        let (s, b) = env
            .req(
                "POST",
                "/v2/lbaas/listeners",
                Some(
                    json!({"listener": {"loadbalancer_id": lb, "protocol": "TCP",
                    "protocol_port": 81, "connection_limit": too_big}}),
                ),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{b}");
        assert_eq!(b["faultstring"], text("connection_limit"));
    });
}
