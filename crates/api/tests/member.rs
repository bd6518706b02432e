//! Member endpoints (single and batch) in-process against a real octavia-db (SQLite and MariaDB).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use axum::http::StatusCode;
use common::SUBNET;
use serde_json::{Value, json};

const MEMBER_KEYS: &[&str] = &[
    "address",
    "admin_state_up",
    "backup",
    "created_at",
    "id",
    "monitor_address",
    "monitor_port",
    "name",
    "operating_status",
    "project_id",
    "protocol_port",
    "provisioning_status",
    "subnet_id",
    "tags",
    "tenant_id",
    "updated_at",
    "vnic_type",
    "weight",
];

async fn member_rows(env: &common::Env, pool: &str) -> Vec<(String, i64, String)> {
    let mut tx = env.db.begin_read().await.unwrap();
    let rows: Vec<octavia_db::MemberRow> = tx
        .list(&octavia_db::ListQuery::default().filter("pool_id", pool))
        .await
        .unwrap();
    let mut v: Vec<_> = rows
        .into_iter()
        .map(|m| {
            (
                m.ip_address.unwrap(),
                i64::from(m.protocol_port),
                m.provisioning_status.to_string(),
            )
        })
        .collect();
    v.sort();
    v
}

#[tokio::test]
async fn member_lifecycle() {
    each_backend!(common::Setup::noauth(), |env| {
        let (lb, l, p) = env.lb_listener_pool("TCP").await;
        let base = format!("/v2/lbaas/pools/{p}/members");
        let (s, b) = env.req("POST", &base, Some(json!({"member": {"address": "10.0.0.10", "protocol_port": 8080, "subnet_id": SUBNET, "name": "m1"}}))).await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        let m = &b["member"];
        let mut keys: Vec<&str> = m.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort();
        assert_eq!(keys, MEMBER_KEYS);
        assert_eq!(m["provisioning_status"], "PENDING_CREATE");
        assert_eq!(m["operating_status"], "NO_MONITOR");
        assert_eq!(m["weight"], 1);
        assert_eq!(m["backup"], false);
        assert_eq!(m["vnic_type"], "normal");
        assert_eq!(m["subnet_id"], SUBNET);
        let mid = m["id"].as_str().unwrap().to_string();
        for (t, id) in [("load_balancer", &lb), ("listener", &l), ("pool", &p)] {
            assert_eq!(env.status_of(t, id).await, "PENDING_UPDATE", "{t}");
        }
        // pool PENDING_UPDATE → 409 naming the pool
        let (s, b) = env
            .req(
                "POST",
                &base,
                Some(json!({"member": {"address": "10.0.0.11", "protocol_port": 8080}})),
            )
            .await;
        assert_eq!(s, StatusCode::CONFLICT);
        assert_eq!(
            b["faultstring"],
            format!("Pool {p} is immutable and cannot be updated.")
        );
        env.set_status("pool", &p, "ACTIVE").await;
        let (s, b) = env
            .req(
                "POST",
                &base,
                Some(json!({"member": {"address": "10.0.0.11", "protocol_port": 8080}})),
            )
            .await;
        assert_eq!(s, StatusCode::CONFLICT);
        assert_eq!(
            b["faultstring"],
            format!("Load Balancer {lb} is immutable and cannot be updated.")
        );
        env.activate(&lb, &l, &p).await;
        env.set_status("member", &mid, "ACTIVE").await;

        let (s, b) = env
            .req(
                "POST",
                &base,
                Some(json!({"member": {"address": "10.0.0.10", "protocol_port": 8080}})),
            )
            .await;
        assert_eq!(s, StatusCode::CONFLICT);
        assert_eq!(
            b["faultstring"],
            "Another member on this pool is already using ip 10.0.0.10 on protocol_port 8080"
        );
        let (s, b) = env
            .req(
                "POST",
                &base,
                Some(json!({"member": {"address": "169.254.169.254", "protocol_port": 80}})),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            b["faultstring"],
            "169.254.169.254 is not a valid option for member address"
        );
        let (s, b) = env
            .req(
                "POST",
                &base,
                Some(json!({"member": {"address": "10.0.0.300", "protocol_port": 80}})),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            b["faultstring"],
            "Invalid input for field/attribute address. Value: '10.0.0.300'. Value should be IPv4 or IPv6 format"
        );
        assert_eq!(env.status_of("load_balancer", &lb).await, "ACTIVE");

        let (s, b) = env
            .req(
                "PUT",
                &format!("{base}/{mid}"),
                Some(json!({"member": {"weight": 5, "backup": null}})),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{b}");
        assert_eq!(b["member"]["weight"], 5);
        assert_eq!(b["member"]["provisioning_status"], "PENDING_UPDATE");
        let (s, b) = env
            .req(
                "PUT",
                &format!("{base}/{mid}"),
                Some(json!({"member": {"address": "10.1.1.1"}})),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            b["faultstring"],
            "Unknown attribute for argument member_.member: address"
        );
        env.activate(&lb, &l, &p).await;

        let (s, b) = env.req("GET", &base, None).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(b["members"].as_array().unwrap().len(), 1);
        assert_eq!(b["members_links"], json!([]));
        let (_, b) = env
            .req(
                "GET",
                &format!("{base}?address=10.0.0.10&fields=name"),
                None,
            )
            .await;
        assert_eq!(b["members"], json!([{"name": "m1"}]));
        let (s, b) = env.req("GET", &format!("{base}/{mid}"), None).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(b["member"]["id"], mid.as_str());
        let (_, b) = env.req("GET", &format!("/v2/lbaas/pools/{p}"), None).await;
        assert_eq!(b["pool"]["members"], json!([{"id": mid}]));

        // unknown pool: pecan-shaped 404; member under another pool: 404 Member
        let missing = uuid::Uuid::new_v4();
        let (s, b) = env
            .req("GET", &format!("/v2/lbaas/pools/{missing}/members"), None)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        assert_eq!(
            b,
            json!({"code": 404, "title": "Bad Request", "description": format!("Pool {missing} not found.")})
        );
        let (s, b) = env.req("POST", "/v2/lbaas/pools", Some(json!({"pool": {"loadbalancer_id": lb, "protocol": "TCP", "lb_algorithm": "ROUND_ROBIN"}}))).await;
        assert_eq!(s, StatusCode::CREATED);
        let p2 = b["pool"]["id"].as_str().unwrap().to_string();
        env.set_status("load_balancer", &lb, "ACTIVE").await;
        let (s, b) = env
            .req("GET", &format!("/v2/lbaas/pools/{p2}/members/{mid}"), None)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        assert_eq!(b["faultstring"], format!("Member {mid} not found."));

        let (s, _) = env.req("DELETE", &format!("{base}/{mid}"), None).await;
        assert_eq!(s, StatusCode::NO_CONTENT);
        assert_eq!(env.status_of("member", &mid).await, "PENDING_DELETE");
        assert_eq!(env.status_of("pool", &p).await, "PENDING_UPDATE");
        assert_eq!(
            env.provider("fake").names()[4..],
            [
                "member_create",
                "member_update",
                "pool_create",
                "member_delete"
            ]
        );
    });
}

#[tokio::test]
async fn member_batch_diff() {
    each_backend!(common::Setup::noauth(), |env| {
        let (lb, l, p) = env.lb_listener_pool("TCP").await;
        let base = format!("/v2/lbaas/pools/{p}/members");
        let m = |ip: &str, w: i64| json!({"address": ip, "protocol_port": 80, "weight": w});
        // empty pool, empty list: no-op, no driver call
        let (s, b) = env.req("PUT", &base, Some(json!({"members": []}))).await;
        assert_eq!((s, b), (StatusCode::ACCEPTED, Value::Null));
        assert_eq!(env.status_of("load_balancer", &lb).await, "ACTIVE");

        let (s, _) = env
            .req(
                "PUT",
                &base,
                Some(json!({"members": [m("10.0.0.1", 1), m("10.0.0.2", 1)]})),
            )
            .await;
        assert_eq!(s, StatusCode::ACCEPTED);
        assert_eq!(
            member_rows(&env, &p).await,
            [
                ("10.0.0.1".into(), 80, "PENDING_CREATE".into()),
                ("10.0.0.2".into(), 80, "PENDING_CREATE".into()),
            ]
        );
        assert_eq!(env.status_of("pool", &p).await, "PENDING_UPDATE");
        // locked while PENDING
        let (s, _) = env
            .req("PUT", &base, Some(json!({"members": [m("10.0.0.3", 1)]})))
            .await;
        assert_eq!(s, StatusCode::CONFLICT);
        env.activate(&lb, &l, &p).await;
        {
            let mut tx = env.db.begin().await.unwrap();
            tx.execute(
                "UPDATE member SET provisioning_status = 'ACTIVE' WHERE pool_id = ?",
                vec![p.as_str().into()],
            )
            .await
            .unwrap();
            tx.commit().await.unwrap();
        }
        let calls = env.provider("fake").names().len();
        // same set again: nothing changed → no driver call, statuses untouched
        let (s, _) = env
            .req(
                "PUT",
                &base,
                Some(json!({"members": [m("10.0.0.2", 1), m("10.0.0.1", 1)]})),
            )
            .await;
        assert_eq!(s, StatusCode::ACCEPTED);
        assert_eq!(env.provider("fake").names().len(), calls);
        assert_eq!(env.status_of("load_balancer", &lb).await, "ACTIVE");

        // .1 changed, .2 absent, .3 new
        let (s, _) = env
            .req(
                "PUT",
                &base,
                Some(json!({"members": [m("10.0.0.1", 7), m("10.0.0.3", 1)]})),
            )
            .await;
        assert_eq!(s, StatusCode::ACCEPTED);
        assert_eq!(
            member_rows(&env, &p).await,
            [
                ("10.0.0.1".into(), 80, "PENDING_UPDATE".into()),
                ("10.0.0.2".into(), 80, "PENDING_DELETE".into()),
                ("10.0.0.3".into(), 80, "PENDING_CREATE".into()),
            ]
        );
        assert_eq!(
            env.provider("fake").names().last().unwrap(),
            "member_batch_update"
        );
        env.activate(&lb, &l, &p).await;

        // additive: absent ones untouched
        let (s, _) = env
            .req(
                "PUT",
                &format!("{base}?additive_only=true"),
                Some(json!({"members": [m("10.0.0.4", 1)]})),
            )
            .await;
        assert_eq!(s, StatusCode::ACCEPTED);
        let rows = member_rows(&env, &p).await;
        assert_eq!(rows.len(), 4);
        assert_eq!(rows[3], ("10.0.0.4".into(), 80, "PENDING_CREATE".into()));
        assert_eq!(rows[0].2, "PENDING_UPDATE");
        env.activate(&lb, &l, &p).await;

        let (s, b) = env
            .req(
                "PUT",
                &base,
                Some(json!({"members": [m("10.0.0.1", 1), m("10.0.0.1", 2)]})),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            b["faultstring"],
            "Validation failure: Member must be updated only once in the same request."
        );
        let (s, b) = env
            .req(
                "PUT",
                &base,
                Some(json!({"members": [{"address": "10.0.0.9", "protocol_port": 80, "x": 1}]})),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            b["faultstring"],
            "Unknown attribute for argument members_.members: x"
        );
        let missing = uuid::Uuid::new_v4();
        let (s, b) = env
            .req(
                "PUT",
                &format!("/v2/lbaas/pools/{missing}/members"),
                Some(json!({"members": []})),
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        assert_eq!(b["description"], format!("Pool {missing} not found."));

        // refusal rolls the batch back
        let mut tx = env.db.begin().await.unwrap();
        tx.execute(
            "UPDATE load_balancer SET provider = 'nope' WHERE id = ?",
            vec![lb.as_str().into()],
        )
        .await
        .unwrap();
        tx.commit().await.unwrap();
        let before = member_rows(&env, &p).await;
        let (s, _) = env
            .req("PUT", &base, Some(json!({"members": [m("10.0.0.8", 1)]})))
            .await;
        assert_eq!(s, StatusCode::NOT_IMPLEMENTED);
        assert_eq!(member_rows(&env, &p).await, before);
        assert_eq!(env.status_of("pool", &p).await, "ACTIVE");
        assert_eq!(env.status_of("load_balancer", &lb).await, "ACTIVE");
    });
}
