//! Load balancer endpoints in-process against a real octavia-db (SQLite and MariaDB).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use axum::http::StatusCode;
use common::{PROJECT, SUBNET};
use serde_json::json;

const LB_KEYS: &[&str] = &[
    "additional_vips",
    "admin_state_up",
    "availability_zone",
    "created_at",
    "description",
    "flavor_id",
    "id",
    "listeners",
    "name",
    "operating_status",
    "pools",
    "project_id",
    "provider",
    "provisioning_status",
    "tags",
    "tenant_id",
    "updated_at",
    "vip_address",
    "vip_network_id",
    "vip_port_id",
    "vip_qos_policy_id",
    "vip_sg_ids",
    "vip_subnet_id",
    "vip_vnic_type",
];

#[tokio::test]
async fn create_get_list_update_delete() {
    each_backend!(common::Setup::noauth(), |env| {
        let (s, b) = env.req("POST", "/v2/lbaas/loadbalancers", Some(json!({"loadbalancer": {"name": "lb1", "vip_subnet_id": SUBNET, "tags": ["a"]}}))).await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        let lb = &b["loadbalancer"];
        let mut keys: Vec<&str> = lb.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort();
        assert_eq!(keys, LB_KEYS);
        assert_eq!(lb["provisioning_status"], "PENDING_CREATE");
        assert_eq!(lb["operating_status"], "OFFLINE");
        assert_eq!(lb["tenant_id"], PROJECT);
        assert_eq!(lb["provider"], "fake");
        assert_eq!(lb["vip_address"], "10.0.0.10");
        assert_eq!(lb["updated_at"], serde_json::Value::Null);
        assert_eq!(lb["created_at"].as_str().unwrap().len(), 19);
        let id = lb["id"].as_str().unwrap().to_string();
        assert_eq!(
            env.provider("fake").names(),
            ["create_vip_port", "loadbalancer_create"]
        );

        // 409 while PENDING_CREATE
        let (s, b) = env
            .req(
                "PUT",
                &format!("/v2/lbaas/loadbalancers/{id}"),
                Some(json!({"loadbalancer": {"name": "x"}})),
            )
            .await;
        assert_eq!(s, StatusCode::CONFLICT);
        assert_eq!(
            b["faultstring"],
            format!("Invalid state PENDING_CREATE of loadbalancer resource {id}")
        );
        assert_eq!(b["faultcode"], "Client");

        env.set_status("load_balancer", &id, "ACTIVE").await;
        let (s, b) = env
            .req(
                "PUT",
                &format!("/v2/lbaas/loadbalancers/{id}"),
                Some(json!({"loadbalancer": {"name": "renamed"}})),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{b}");
        assert_eq!(b["loadbalancer"]["provisioning_status"], "PENDING_UPDATE");
        assert_eq!(b["loadbalancer"]["name"], "renamed");
        env.set_status("load_balancer", &id, "ACTIVE").await;

        let (s, b) = env
            .req("GET", &format!("/v2.0/lbaas/loadbalancers/{id}"), None)
            .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(b["loadbalancer"]["tags"], json!(["a"]));

        let other = env.active_lb("other").await;
        let (s, b) = env
            .req("GET", "/v2/lbaas/loadbalancers?name=renamed", None)
            .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(b["loadbalancers"].as_array().unwrap().len(), 1);
        assert_eq!(b["loadbalancers_links"], json!([]));
        let (_, b) = env
            .req(
                "GET",
                &format!("/v2/lbaas/loadbalancers?id={other}&fields=id&fields=name"),
                None,
            )
            .await;
        assert_eq!(b["loadbalancers"], json!([{"id": other, "name": "other"}]));
        let (_, b) = env
            .req("GET", "/v2/lbaas/loadbalancers?limit=1", None)
            .await;
        assert_eq!(b["loadbalancers"].as_array().unwrap().len(), 1);
        assert_eq!(b["loadbalancers_links"][0]["rel"], "next");
        let (s, b) = env
            .req("GET", "/v2/lbaas/loadbalancers?bogus=1", None)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            b["faultstring"],
            "One or more arguments are either duplicate or invalid"
        );

        let (s, b) = env
            .req("GET", &format!("/v2/lbaas/loadbalancers/{id}/status"), None)
            .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(b["statuses"]["loadbalancer"]["listeners"], json!([]));
        let (s, b) = env
            .req("GET", &format!("/v2/lbaas/loadbalancers/{id}/stats"), None)
            .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(b["stats"]["bytes_in"], 0);

        let (s, b) = env
            .req("DELETE", &format!("/v2/lbaas/loadbalancers/{id}"), None)
            .await;
        assert_eq!(s, StatusCode::NO_CONTENT, "{b}");
        assert_eq!(b, serde_json::Value::Null);
        assert_eq!(env.status_of("load_balancer", &id).await, "PENDING_DELETE");
        env.set_status("load_balancer", &id, "DELETED").await;
        let (s, b) = env
            .req("GET", &format!("/v2/lbaas/loadbalancers/{id}"), None)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        assert_eq!(b["faultstring"], format!("Load Balancer {id} not found."));
    });
}

#[tokio::test]
async fn validation_errors_are_400s() {
    each_backend!(common::Setup::noauth(), |env| {
        let cases = [
            (
                json!({"loadbalancer": {"vip_subnet_id": SUBNET, "foo": 1}}),
                "Unknown attribute for argument load_balancer.loadbalancer: foo",
            ),
            (
                json!({"loadbalancer": {"vip_subnet_id": "nope"}}),
                "Invalid input for field/attribute vip_subnet_id. Value: 'nope'. Value should be UUID format",
            ),
            (
                json!({}),
                "Invalid input for field/attribute loadbalancer. Value: 'None'. Mandatory field missing.",
            ),
            (
                json!({"loadbalancer": {"name": "x"}}),
                "Validation failure: VIP must contain one of: vip_port_id, vip_network_id, vip_subnet_id.",
            ),
            (
                json!({"loadbalancer": {"vip_subnet_id": SUBNET, "admin_state_up": "maybe"}}),
                "Invalid input for field/attribute load_balancer. Value: '{'loadbalancer': {'admin_state_up': 'maybe', 'vip_subnet_id': '6a0a707c-45ef-4758-b533-e55adddba8ce'}}'. Value not an unambiguous boolean: maybe",
            ),
            (
                json!({"loadbalancer": {"vip_subnet_id": SUBNET, "provider": "bogus"}}),
                "Provider 'bogus' is not enabled.",
            ),
        ];
        for (body, text) in cases {
            let (s, b) = env.req("POST", "/v2/lbaas/loadbalancers", Some(body)).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{b}");
            assert_eq!(
                b,
                json!({"faultcode": "Client", "faultstring": text, "debuginfo": null})
            );
        }
        let (s, _) = env
            .req("POST", "/v2/lbaas/loadbalancers", Some(json!("not json {")))
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(env.count("load_balancer").await, 0);
        assert!(env.provider("fake").names().is_empty());
        let missing = uuid::Uuid::new_v4();
        let (s, b) = env
            .req("GET", &format!("/v2/lbaas/loadbalancers/{missing}"), None)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        assert_eq!(
            b["faultstring"],
            format!("Load Balancer {missing} not found.")
        );
    });
}

#[tokio::test]
async fn provider_refusal_is_501_and_stores_nothing() {
    each_backend!(common::Setup::noauth(), |env| {
        let (s, b) = env
            .req(
                "POST",
                "/v2/lbaas/loadbalancers",
                Some(json!({"loadbalancer": {"vip_subnet_id": SUBNET, "provider": "nope"}})),
            )
            .await;
        assert_eq!(s, StatusCode::NOT_IMPLEMENTED);
        assert_eq!(
            b,
            json!({"faultcode": "Server", "faultstring": "Provider 'nope' does not support a requested option: fake refuses", "debuginfo": null})
        );
        assert_eq!(env.count("load_balancer").await, 0);
        assert_eq!(env.count("vip").await, 0);
        // the VIP port the driver made is deleted again
        assert_eq!(
            env.provider("nope").names(),
            ["create_vip_port", "loadbalancer_create", "delete_vip_ports"]
        );
        let ports = env.provider("nope").last("delete_vip_ports").unwrap();
        assert_eq!(ports.as_array().map(Vec::len), Some(1), "{ports}");
        // a graph refused the same way, and a driver failure after the port: the same
        env.provider("nope").clear();
        let (s, _) = env
            .req(
                "POST",
                "/v2/lbaas/loadbalancers",
                Some(
                    json!({"loadbalancer": {"vip_subnet_id": SUBNET, "provider": "nope",
                    "listeners": [{"protocol": "HTTP", "protocol_port": 80}]}}),
                ),
            )
            .await;
        assert_eq!(s, StatusCode::NOT_IMPLEMENTED);
        assert_eq!(
            env.provider("nope").names(),
            ["create_vip_port", "loadbalancer_create", "delete_vip_ports"]
        );
        env.provider("fake").clear();
        env.provider("fake").fail_lb_create("boom");
        let (s, _) = env
            .req(
                "POST",
                "/v2/lbaas/loadbalancers",
                Some(json!({"loadbalancer": {"vip_subnet_id": SUBNET}})),
            )
            .await;
        assert_eq!(s, StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(
            env.provider("fake").names(),
            ["create_vip_port", "delete_vip_ports"]
        );
        // a port the user gave is never deleted
        env.provider("nope").clear();
        let (s, _) = env
            .req(
                "POST",
                "/v2/lbaas/loadbalancers",
                Some(json!({"loadbalancer": {"vip_port_id": SUBNET, "provider": "nope"}})),
            )
            .await;
        assert_eq!(s, StatusCode::NOT_IMPLEMENTED);
        assert_eq!(
            env.provider("nope").names(),
            ["create_vip_port", "loadbalancer_create"]
        );
        assert_eq!(env.count("load_balancer").await, 0);
        assert_eq!(env.count("vip").await, 0);
    });
}

#[tokio::test]
async fn versions_and_framework() {
    let env = common::Env::new(false, common::Setup::noauth()).await;
    let (s, b) = env.req("GET", "/", None).await;
    assert_eq!(s, StatusCode::OK);
    let v = b["versions"].as_array().unwrap();
    assert_eq!(v.len(), 31);
    assert_eq!(
        v[30],
        json!({"id": "v2.30", "status": "CURRENT", "updated": "2025-02-26T00:00:00Z", "links": [{"href": "http://keel.test/v2", "rel": "self"}]})
    );
    let (s, b) = env.req("GET", "/v2", None).await;
    assert_eq!((s, b), (StatusCode::OK, json!("v2")));
    let (s, _) = env.req("GET", "/v2/lbaas/loadbalancers.json", None).await;
    assert_eq!(s, StatusCode::OK);
    let (s, _) = env.req("GET", "/v2/loadbalancers", None).await;
    assert_eq!(s, StatusCode::OK);
    // pecan's routing errors: `abort(404)` / `abort(405)` carry an empty detail
    let (s, b) = env.req("GET", "/nope", None).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert_eq!(
        b,
        json!({"code": 404, "title": "Not Found", "description": ""})
    );
    let (s, b) = env.req("PATCH", "/v2/lbaas/loadbalancers", None).await;
    assert_eq!(s, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(
        b,
        json!({"code": 405, "title": "Method Not Allowed", "description": ""})
    );
    let big = "x".repeat(200_000);
    let (s, b) = env
        .req(
            "POST",
            "/v2/lbaas/loadbalancers",
            Some(json!({"loadbalancer": {"name": big}})),
        )
        .await;
    assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(b["title"], "Request Entity Too Large");
    let (s, _) = env.req("GET", "/healthcheck", None).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    env.done().await;
}
