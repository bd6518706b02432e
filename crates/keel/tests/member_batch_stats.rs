//! The HTTP API end to end against a real `keel serve` on MariaDB (Keystone token from the
//! real Keystone, Neutron and OVN NB from `ci/stack/`), through `curl`:
//! * seed 004 §6 (statistics): `listener_statistics` rows written into the DB as a provider's
//!   stats report upserts them (amphora_id = listener_id) are what
//!   `GET /v2/lbaas/listeners/{id}/stats` answers, and the LB's stats are their sum over its
//!   listeners (a listener without a row counts zero);
//! * seed 004 §3 (batch member update, `PUT /v2/lbaas/pools/{id}/members`, additive_only
//!   false): the moment the LB is ACTIVE again, the pool's member list is exactly the
//!   request (deleted members gone, no PENDING_*) and the NB `vips` hold exactly its
//!   addresses.
//!
//! Needs the environment of `ci/stack/env.sh` (run through `ci/test.sh`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Backend, Keel, LbGuard, NeutronNet, get, map, nb_select};
use serde_json::{Value, json};

/// (address, protocol_port, weight, provisioning_status) of a member.
type MemberState = (String, i64, i64, String);

/// The pool's members as [`MemberState`]s, sorted.
fn member_list(keel: &Keel, token: &str, pool_id: &str) -> Vec<MemberState> {
    let (code, body) = keel.api(
        "GET",
        &format!("/v2/lbaas/pools/{pool_id}/members"),
        token,
        None,
    );
    assert_eq!(code, 200, "{body}");
    let mut out: Vec<_> = body["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["address"].as_str().unwrap().to_string(),
                m["protocol_port"].as_i64().unwrap(),
                m["weight"].as_i64().unwrap(),
                m["provisioning_status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

/// The backends of the NB row's `vips` entry for `vip_key`, sorted.
fn nb_backends(lb_id: &str, vip_key: &str) -> Vec<String> {
    let rows = nb_select("Load_Balancer", json!([["name", "==", lb_id]]));
    assert_eq!(rows.len(), 1, "{rows:?}");
    let vips = map(&rows[0]["vips"]);
    let mut b: Vec<String> = get(&vips, vip_key)
        .unwrap_or_default()
        .split(',')
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect();
    b.sort();
    b
}

/// `PUT /v2/lbaas/pools/{pool_id}/members` (additive_only false) → 202, then the state the
/// moment the LB is ACTIVE again: the member list and the NB backends of `vip_key`.
fn batch(
    keel: &Keel,
    token: &str,
    lb_id: &str,
    pool_id: &str,
    vip_key: &str,
    members: Value,
) -> (Vec<MemberState>, Vec<String>) {
    let (code, body) = keel.api(
        "PUT",
        &format!("/v2/lbaas/pools/{pool_id}/members"),
        token,
        Some(&json!({ "members": members })),
    );
    assert_eq!(code, 202, "{body}");
    keel.wait_lb_active(token, lb_id);
    (
        member_list(keel, token, pool_id),
        nb_backends(lb_id, vip_key),
    )
}

fn stats(keel: &Keel, token: &str, path: &str) -> Value {
    let (code, body) = keel.api("GET", path, token, None);
    assert_eq!(code, 200, "{path}: {body}");
    body
}

/// The `stats` object octavia answers, from the five counters.
fn stats_body(bytes_in: i64, bytes_out: i64, active: i64, total: i64, errors: i64) -> Value {
    json!({"stats": {"bytes_in": bytes_in, "bytes_out": bytes_out,
        "active_connections": active, "total_connections": total, "request_errors": errors}})
}

#[test]
fn statistics_sum_and_member_batch_update() {
    let keel = Keel::start(Backend::MariaDb);
    let tag = common::tag();
    let neutron = NeutronNet::create(&tag, &[]);
    let token = common::demo_token();

    let lb = keel.create_lb(&token, &format!("batch-{tag}"), &neutron.subnet);
    let lb_id = lb["id"].as_str().unwrap().to_string();
    let _lb_rows = LbGuard(lb_id.clone());
    let vip = lb["vip_address"].as_str().unwrap().to_string();
    let mut listeners = vec![];
    for port in [80, 81] {
        let l = keel.create(
            &token,
            &lb_id,
            "/v2/lbaas/listeners",
            json!({"listener": {"loadbalancer_id": lb_id, "protocol": "TCP",
                "protocol_port": port}}),
        );
        listeners.push(l["id"].as_str().unwrap().to_string());
    }
    let pool = keel.create(
        &token,
        &lb_id,
        "/v2/lbaas/pools",
        json!({"pool": {"listener_id": listeners[0], "protocol": "TCP",
            "lb_algorithm": "SOURCE_IP_PORT"}}),
    );
    let pool_id = pool["id"].as_str().unwrap().to_string();

    // --- statistics (seed 004 §6) ---
    let lb_stats = format!("/v2/lbaas/loadbalancers/{lb_id}/stats");
    assert_eq!(stats(&keel, &token, &lb_stats), stats_body(0, 0, 0, 0, 0));
    keel.sql(&format!(
        "INSERT INTO listener_statistics (listener_id, amphora_id, bytes_in, bytes_out, \
         active_connections, total_connections, request_errors) VALUES \
         ('{a}', '{a}', 1000, 2000, 3, 40, 5), ('{b}', '{b}', 7, 11, 1, 13, 2)",
        a = listeners[0],
        b = listeners[1],
    ));
    assert_eq!(
        stats(
            &keel,
            &token,
            &format!("/v2/lbaas/listeners/{}/stats", listeners[0])
        ),
        stats_body(1000, 2000, 3, 40, 5)
    );
    assert_eq!(
        stats(
            &keel,
            &token,
            &format!("/v2/lbaas/listeners/{}/stats", listeners[1])
        ),
        stats_body(7, 11, 1, 13, 2)
    );
    assert_eq!(
        stats(&keel, &token, &lb_stats),
        stats_body(1007, 2011, 4, 53, 7),
        "LB stats = sum over its listeners"
    );

    // --- batch member update (seed 004 §3) ---
    let subnet = neutron.subnet.clone();
    let vip_key = format!("{vip}:80");
    let active = |ip: &str, w: i64| (ip.to_string(), 8080, w, "ACTIVE".to_string());
    // from nothing: two members created
    let (list, backends) = batch(
        &keel,
        &token,
        &lb_id,
        &pool_id,
        &vip_key,
        json!([
            {"address": "10.0.0.10", "protocol_port": 8080, "subnet_id": subnet},
            {"address": "10.0.0.11", "protocol_port": 8080, "subnet_id": subnet},
        ]),
    );
    assert_eq!(list, vec![active("10.0.0.10", 1), active("10.0.0.11", 1)]);
    assert_eq!(backends, ["10.0.0.10:8080", "10.0.0.11:8080"]);
    // one kept with a new weight, one absent (deleted), one new
    let (list, backends) = batch(
        &keel,
        &token,
        &lb_id,
        &pool_id,
        &vip_key,
        json!([
            {"address": "10.0.0.10", "protocol_port": 8080, "subnet_id": subnet, "weight": 5},
            {"address": "10.0.0.12", "protocol_port": 8080, "subnet_id": subnet},
        ]),
    );
    assert_eq!(list, vec![active("10.0.0.10", 5), active("10.0.0.12", 1)]);
    assert_eq!(backends, ["10.0.0.10:8080", "10.0.0.12:8080"]);
    // an empty request empties the pool
    let (list, backends) = batch(&keel, &token, &lb_id, &pool_id, &vip_key, json!([]));
    assert_eq!(list, vec![]);
    assert!(backends.is_empty(), "{backends:?}");

    keel.delete_lb_cascade(&token, &lb_id);
}
