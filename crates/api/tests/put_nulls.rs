//! A `null` in a PUT (and a few POST) bodies, per kind, as the reference answers it (recorded
//! with `ci/diff/differential.py`): on a column without NULL a 400 `None is not a valid option
//! for <attr>` and nothing changed (the reference's own check where it has one, e.g. the
//! monitor's `delay`; elsewhere its write fails with a 500 or its OVN driver refuses the
//! `None`); a provider sent as `null` or empty is `amphora`; a list naming a security group
//! twice stores it once; `session_persistence: {}` keeps the stored type; a listener's new
//! `allowed_cidrs` reaches the driver. SQLite and MariaDB.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use axum::http::StatusCode;
use serde_json::{Value, json};

/// (path, wrapper, attribute): PUT `{wrapper: {attribute: null}}` must be refused.
async fn refused(env: &common::Env, lb: &str, path: &str, wrap: &str, attr: &str) {
    let (_, before) = env.req("GET", path, None).await;
    let (s, b) = env
        .req("PUT", path, Some(json!({wrap: {attr: Value::Null}})))
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{path} {attr}: {b}");
    assert_eq!(
        b["faultstring"],
        format!("None is not a valid option for {attr}"),
        "{path}"
    );
    let (_, after) = env.req("GET", path, None).await;
    assert_eq!(before, after, "{path} {attr} changed");
    assert_eq!(env.status_of("load_balancer", lb).await, "ACTIVE");
}

#[tokio::test]
async fn null_on_a_column_without_null_is_refused() {
    each_backend!(common::Setup::noauth(), |env| {
        let (lb, _l, pool) = env.lb_listener_pool("HTTP").await;
        let hm = env
            .create(
                "/v2/lbaas/healthmonitors",
                "healthmonitor",
                json!({"pool_id": pool, "type": "HTTP", "delay": 5, "timeout": 3, "max_retries": 3}),
            )
            .await;
        env.set_active(&[
            ("load_balancer", &lb),
            ("pool", &pool),
            ("health_monitor", &hm),
        ])
        .await;
        let pp = format!("/v2/lbaas/pools/{pool}");
        let hp = format!("/v2/lbaas/healthmonitors/{hm}");
        for (path, wrap, attr) in [
            (&pp, "pool", "lb_algorithm"),
            (&pp, "pool", "tls_enabled"),
            (&hp, "healthmonitor", "delay"),
            (&hp, "healthmonitor", "timeout"),
            (&hp, "healthmonitor", "max_retries"),
        ] {
            refused(&env, &lb, path, wrap, attr).await;
        }
        // `admin_state_up: null` is false, as the reference's `to_dict`; name and
        // description clear
        let (s, b) = env
            .req(
                "PUT",
                &pp,
                Some(json!({"pool": {"admin_state_up": null, "name": null}})),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{b}");
        assert_eq!(
            (&b["pool"]["admin_state_up"], &b["pool"]["name"]),
            (&json!(false), &json!(""))
        );
    });
}

#[tokio::test]
async fn a_provider_sent_as_null_or_empty_is_amphora() {
    each_backend!(common::Setup::noauth(), |env| {
        for p in [Value::Null, json!("")] {
            let (s, b) = env
                .req(
                    "POST",
                    "/v2/lbaas/loadbalancers",
                    Some(json!({"loadbalancer": {"vip_subnet_id": common::SUBNET, "provider": p}})),
                )
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{p}: {b}");
            assert_eq!(b["faultstring"], "Provider 'amphora' is not enabled.");
        }
        assert_eq!(env.count("load_balancer").await, 0);
        assert!(env.provider("fake").last("create_vip_port").is_none());
    });
}

#[tokio::test]
async fn a_security_group_named_twice_is_stored_once() {
    each_backend!(common::Setup::noauth(), |env| {
        let a = "11111111-1111-4111-8111-111111111111";
        let c = "33333333-3333-4333-8333-333333333333";
        // a create naming one twice fails on the table's key, as the reference (409)
        let (s, b) = env
            .req(
                "POST",
                "/v2/lbaas/loadbalancers",
                Some(json!({"loadbalancer": {"vip_subnet_id": common::SUBNET, "vip_sg_ids": [c, a, c]}})),
            )
            .await;
        assert_eq!(s, StatusCode::CONFLICT, "{b}");
        assert_eq!(
            b["faultstring"],
            "Already an entity with that specified id."
        );
        assert_eq!(env.count("load_balancer").await, 0);
        let (s, b) = env
            .req(
                "POST",
                "/v2/lbaas/loadbalancers",
                Some(json!({"loadbalancer": {"vip_subnet_id": common::SUBNET, "vip_sg_ids": [c, a]}})),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        // answered in the table's order
        assert_eq!(b["loadbalancer"]["vip_sg_ids"], json!([a, c]));
        let lb = b["loadbalancer"]["id"].as_str().unwrap().to_string();
        env.set_status("load_balancer", &lb, "ACTIVE").await;
        for (sent, stored) in [
            (json!([a, a]), json!([a])),
            (json!([c, c, a]), json!([a, c])),
        ] {
            let (s, b) = env
                .req(
                    "PUT",
                    &format!("/v2/lbaas/loadbalancers/{lb}"),
                    Some(json!({"loadbalancer": {"vip_sg_ids": sent}})),
                )
                .await;
            assert_eq!(s, StatusCode::OK, "{sent}: {b}");
            assert_eq!(b["loadbalancer"]["vip_sg_ids"], stored, "{sent}");
            let sg_rows = env.count("vip_security_group").await;
            assert_eq!(sg_rows, stored.as_array().unwrap().len() as i64);
            assert_eq!(
                env.provider("fake").last("loadbalancer_update").unwrap()["vip_sg_ids"],
                stored
            );
            env.set_status("load_balancer", &lb, "ACTIVE").await;
        }
    });
}

#[tokio::test]
async fn empty_session_persistence_keeps_the_stored_type() {
    each_backend!(common::Setup::noauth(), |env| {
        let (lb, l, pool) = env.lb_listener_pool("HTTP").await;
        let pp = format!("/v2/lbaas/pools/{pool}");
        let (s, b) = env
            .req(
                "PUT",
                &pp,
                Some(json!({"pool": {"session_persistence": {}}})),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{b}");
        assert_eq!(b["pool"]["session_persistence"], Value::Null);
        env.activate(&lb, &l, &pool).await;
        let (s, b) = env
            .req(
                "PUT",
                &pp,
                Some(json!({"pool": {"session_persistence": {"type": "APP_COOKIE", "cookie_name": "c"}}})),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{b}");
        env.activate(&lb, &l, &pool).await;
        // `{}` is the stored type with the rest cleared: an APP_COOKIE without its cookie
        let (s, b) = env
            .req(
                "PUT",
                &pp,
                Some(json!({"pool": {"session_persistence": {}}})),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{b}");
        assert_eq!(
            b["faultstring"],
            "Validation failure: Field \"cookie_name\" must be specified when using the \"APP_COOKIE\" session persistence type."
        );
        let (s, b) = env
            .req(
                "PUT",
                &pp,
                Some(json!({"pool": {"session_persistence": {"type": "HTTP_COOKIE"}}})),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{b}");
        env.activate(&lb, &l, &pool).await;
        let (s, b) = env
            .req(
                "PUT",
                &pp,
                Some(json!({"pool": {"session_persistence": {}}})),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{b}");
        assert_eq!(
            b["pool"]["session_persistence"],
            json!({"type": "HTTP_COOKIE", "cookie_name": null, "persistence_timeout": null,
                "persistence_granularity": null})
        );
    });
}

#[tokio::test]
async fn a_listener_update_hands_the_driver_its_allowed_cidrs() {
    each_backend!(common::Setup::noauth(), |env| {
        let (lb, l) = env.lb_listener("fake", "TCP").await;
        let (s, b) = env
            .req(
                "PUT",
                &format!("/v2/lbaas/listeners/{l}"),
                Some(json!({"listener": {"allowed_cidrs": ["10.0.0.0/8"]}})),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{b}");
        assert_eq!(
            env.provider("fake").last("listener_update").unwrap()["allowed_cidrs"],
            json!(["10.0.0.0/8"])
        );
        env.set_active(&[("load_balancer", &lb), ("listener", &l)])
            .await;
        let (s, _) = env
            .req(
                "PUT",
                &format!("/v2/lbaas/listeners/{l}"),
                Some(json!({"listener": {"allowed_cidrs": null}})),
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(
            env.provider("fake").last("listener_update").unwrap()["allowed_cidrs"],
            json!([])
        );
    });
}
