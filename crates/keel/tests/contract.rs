//! The API contract end to end, against a real `keel serve` and the stack.
//!
//! `settle`: a client that does not poll can send its next write right after a create's
//! answer, and one that polls sees ACTIVE on its first GET (README "Compatibility").
//!
//! What the API sets, NB follows, and what the API clears (null, the default, disabled,
//! deleted), NB clears: against a real `keel serve`, the stack's Neutron and OVN NB (rows read
//! with `ovsdb-client`, not Keel's client). One graph (LB → TCP listener → SOURCE_IP_PORT pool
//! → 2 members → TCP health monitor); for every NB column, option or `external_ids` key
//! written from an API field, a PUT that sets it and one that clears or resets it:
//!
//! | API field | NB |
//! |---|---|
//! | pool `session_persistence` (SOURCE_IP, null) | `options:affinity_timeout` 360 / absent |
//! | pool `lb_algorithm` | `selection_fields` |
//! | pool `admin_state_up` | `pool_<id>` ↔ `pool_<id>:D` |
//! | HM `max_retries_down` (7, null) | health check `options:failure_count` 7 / 3 |
//! | HM `admin_state_up` | `health_check`, `ip_port_mappings`, `neutron:member_status` NO_MONITOR |
//! | HM delete | `health_check`, `ip_port_mappings`, `octavia:healthmonitors` absent |
//! | listener `default_pool_id` (null, id) | `listener_<id>` = `80:` / `80:pool_<id>` |
//! | listener `admin_state_up` | `listener_<id>` ↔ `listener_<id>:D` |
//! | member `admin_state_up` | `neutron:member_status` OFFLINE, out of `vips` |
//! | member delete | its `neutron:member_status` entry and pool entry gone |
//! | LB `admin_state_up` | `enabled` False, `vips` empty |
//! | pool delete / listener delete | their keys gone, `affinity_timeout` gone |
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Backend, Keel, NeutronNet, demo_token, get, map, nb_select, tag, uuids};
use serde_json::{Value, json};

/// The one NB `Load_Balancer` row named `lb_id`.
fn row(lb_id: &str) -> Value {
    let rows = nb_select("Load_Balancer", json!([["name", "==", lb_id]]));
    assert_eq!(rows.len(), 1, "{rows:?}");
    rows[0].clone()
}

/// The `options` of the row's health checks.
fn hc_options(r: &Value) -> Vec<Vec<(String, String)>> {
    uuids(&r["health_check"])
        .iter()
        .map(|u| {
            let hcs = nb_select(
                "Load_Balancer_Health_Check",
                json!([["_uuid", "==", ["uuid", u]]]),
            );
            map(&hcs[0]["options"])
        })
        .collect()
}

/// An OVSDB set of strings, sorted.
fn set(v: &Value) -> Vec<String> {
    let mut out: Vec<String> = match v[0].as_str() {
        Some("set") => v[1]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect(),
        _ => v.as_str().map(|s| vec![s.to_string()]).unwrap_or_default(),
    };
    out.sort();
    out
}

#[test]
fn what_the_api_clears_nb_clears() {
    let keel = Keel::start(Backend::Sqlite);
    // the pool re-enable step depends on which agent handles the monitor deletions
    common::monitors::assert_agent_active(&keel);
    let tag = tag();
    let ips = ["10.0.0.10", "10.0.0.11"];
    let net = NeutronNet::create(&tag, &ips);
    let token = demo_token();
    let g = keel.create_graph(&token, &format!("clears-{tag}"), &net.subnet, &ips);
    let lb_id = g.lb_id.as_str();
    let put = |path: &str, body: Value| {
        let (code, out) = keel.api("PUT", path, &token, Some(&body));
        assert_eq!(code, 200, "PUT {path} {body}: {out}");
        keel.wait_lb_active(&token, lb_id);
    };
    let ids = |r: &Value| map(&r["external_ids"]);
    let pool = format!("/v2/lbaas/pools/{}", g.pool_id);
    let hm = format!("/v2/lbaas/healthmonitors/{}", g.hm_id);
    let listener = format!("/v2/lbaas/listeners/{}", g.listener_id);
    let member = |i: usize| format!("{pool}/members/{}", g.members[i]);
    let vip80 = format!("{}:80", g.vip);
    let vips = |r: &Value| map(&r["vips"]);

    // pool session persistence → options:affinity_timeout (a TCP pool takes no
    // `persistence_timeout`, pool.py: the provider's default 360)
    let sp = |v: Value| json!({"pool": {"session_persistence": v}});
    put(&pool, sp(json!({"type": "SOURCE_IP"})));
    assert_eq!(
        get(&map(&row(lb_id)["options"]), "affinity_timeout"),
        Some("360")
    );
    put(&pool, sp(Value::Null));
    assert_eq!(get(&map(&row(lb_id)["options"]), "affinity_timeout"), None);

    // pool lb_algorithm → selection_fields
    put(&pool, json!({"pool": {"lb_algorithm": "SOURCE_IP"}}));
    assert_eq!(set(&row(lb_id)["selection_fields"]), ["ip_dst", "ip_src"]);
    put(&pool, json!({"pool": {"lb_algorithm": "SOURCE_IP_PORT"}}));
    assert_eq!(
        set(&row(lb_id)["selection_fields"]),
        ["ip_dst", "ip_src", "tp_dst", "tp_src"]
    );

    // HM max_retries_down → failure_count; null = Octavia's default 3
    put(&hm, json!({"healthmonitor": {"max_retries_down": 7}}));
    let opts = hc_options(&row(lb_id));
    assert_eq!(opts.len(), 1, "{opts:?}");
    assert_eq!(get(&opts[0], "failure_count"), Some("7"));
    put(&hm, json!({"healthmonitor": {"max_retries_down": null}}));
    assert_eq!(get(&hc_options(&row(lb_id))[0], "failure_count"), Some("3"));

    // HM disabled: no health check, no mapping, members NO_MONITOR; enabled: back
    put(&hm, json!({"healthmonitor": {"admin_state_up": false}}));
    let r = row(lb_id);
    assert!(uuids(&r["health_check"]).is_empty(), "{r}");
    assert!(map(&r["ip_port_mappings"]).is_empty(), "{r}");
    assert_eq!(
        get(&ids(&r), "octavia:healthmonitors"),
        Some(format!("[\"{}\"]", g.hm_id).as_str())
    );
    let status = get(&ids(&r), "neutron:member_status").unwrap().to_string();
    assert_eq!(status.matches("NO_MONITOR").count(), 2, "{status}");
    let (code, m) = keel.api("GET", &member(0), &token, None);
    assert_eq!(
        (code, m["member"]["operating_status"].as_str()),
        (200, Some("NO_MONITOR"))
    );
    put(&hm, json!({"healthmonitor": {"admin_state_up": true}}));
    let r = row(lb_id);
    let opts = hc_options(&r);
    assert_eq!(opts.len(), 1, "{r}");
    assert_eq!(get(&opts[0], "failure_count"), Some("3"));
    assert_eq!(get(&opts[0], "interval"), Some("5"));
    assert_eq!(map(&r["ip_port_mappings"]).len(), 2, "{r}");

    // listener default_pool_id null → the key loses the pool; set again → back
    let lkey = format!("listener_{}", g.listener_id);
    let with_pool = format!("80:pool_{}", g.pool_id);
    put(&listener, json!({"listener": {"default_pool_id": null}}));
    assert_eq!(get(&ids(&row(lb_id)), &lkey), Some("80:"));
    put(
        &listener,
        json!({"listener": {"default_pool_id": g.pool_id}}),
    );
    assert_eq!(get(&ids(&row(lb_id)), &lkey), Some(with_pool.as_str()));

    // listener / pool admin_state_up → the `:D` keys
    let pkey = format!("pool_{}", g.pool_id);
    for (path, key, body) in [(&listener, &lkey, "listener"), (&pool, &pkey, "pool")] {
        let admin = |up: bool| {
            let mut o = serde_json::Map::new();
            o.insert(body.to_string(), json!({"admin_state_up": up}));
            Value::Object(o)
        };
        put(path, admin(false));
        let r = ids(&row(lb_id));
        assert!(
            get(&r, key).is_none() && get(&r, &format!("{key}:D")).is_some(),
            "{body} disabled: {r:?}"
        );
        put(path, admin(true));
        let r = ids(&row(lb_id));
        assert!(
            get(&r, key).is_some() && get(&r, &format!("{key}:D")).is_none(),
            "{body} enabled: {r:?}"
        );
    }

    // member admin_state_up → OFFLINE and out of vips; back
    let both = format!("{}:8080,{}:8080", ips[0], ips[1]);
    let r = row(lb_id);
    assert_eq!(
        get(&vips(&r), &vip80),
        Some(both.as_str()),
        "after the pool is enabled again, member_status {:?}; the agent's status writes:\n{}",
        get(&ids(&r), "neutron:member_status"),
        keel.log()
            .lines()
            .filter(|l| l.contains("Service_Monitor") || l.contains("ServiceMonitor"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    put(&member(0), json!({"member": {"admin_state_up": false}}));
    let r = row(lb_id);
    let status = get(&ids(&r), "neutron:member_status").unwrap().to_string();
    assert!(
        status.contains(&format!("\"{}\": \"OFFLINE\"", g.members[0])),
        "{status}"
    );
    let second = format!("{}:8080", ips[1]);
    assert_eq!(get(&vips(&r), &vip80), Some(second.as_str()));
    put(&member(0), json!({"member": {"admin_state_up": true}}));
    let r = row(lb_id);
    assert_eq!(get(&vips(&r), &vip80), Some(both.as_str()));
    let status = get(&ids(&r), "neutron:member_status").unwrap().to_string();
    assert!(!status.contains("OFFLINE"), "{status}");

    // LB admin_state_up → enabled False, vips empty; back
    let lb = format!("/v2/lbaas/loadbalancers/{lb_id}");
    put(&lb, json!({"loadbalancer": {"admin_state_up": false}}));
    let r = row(lb_id);
    assert_eq!(get(&ids(&r), "enabled"), Some("False"));
    assert!(vips(&r).is_empty(), "{r}");
    put(&lb, json!({"loadbalancer": {"admin_state_up": true}}));
    let r = row(lb_id);
    assert_eq!(get(&ids(&r), "enabled"), Some("True"));
    assert_eq!(get(&vips(&r), &vip80), Some(both.as_str()));

    // member delete → its status entry and pool entry gone
    let del = |path: &str| {
        let (code, out) = keel.api("DELETE", path, &token, None);
        assert_eq!(code, 204, "DELETE {path}: {out}");
        keel.wait_lb_active(&token, lb_id);
    };
    del(&member(0));
    let r = ids(&row(lb_id));
    let status = get(&r, "neutron:member_status").unwrap();
    assert!(!status.contains(&g.members[0]), "{status}");
    assert!(!get(&r, &pkey).unwrap().contains(&g.members[0]), "{r:?}");

    // HM delete → no health check, mapping or octavia:healthmonitors
    del(&hm);
    let r = row(lb_id);
    assert!(uuids(&r["health_check"]).is_empty(), "{r}");
    assert!(map(&r["ip_port_mappings"]).is_empty(), "{r}");
    assert_eq!(get(&ids(&r), "octavia:healthmonitors"), None);

    // pool delete (with persistence set) → key and affinity_timeout gone, listener key `80:`
    put(&pool, sp(json!({"type": "SOURCE_IP"})));
    del(&pool);
    let r = row(lb_id);
    assert_eq!(get(&ids(&r), &pkey), None);
    assert_eq!(get(&ids(&r), &lkey), Some("80:"));
    assert_eq!(get(&map(&r["options"]), "affinity_timeout"), None);

    // listener delete → its key gone
    del(&listener);
    assert_eq!(get(&ids(&row(lb_id)), &lkey), None);
    keel.delete_lb_cascade(&token, lb_id);
}

/// README "Compatibility": a write is answered once the provider's outcome is committed, so
/// the first GET after a create's 201 (`PENDING_CREATE` in the body, as Octavia's) already
/// reads ACTIVE, and a write sent at once (no polling) is accepted, where the reference
/// answers 409 while the load balancer is PENDING_CREATE.
#[test]
fn writes_right_after_a_create_are_accepted() {
    let keel = Keel::start(Backend::Sqlite);
    let tag = tag();
    let net = NeutronNet::create(&tag, &[]);
    let token = demo_token();
    let (code, out) = keel.api(
        "POST",
        "/v2/lbaas/loadbalancers",
        &token,
        Some(&json!({"loadbalancer": {"name": format!("settle-{tag}"),
            "vip_subnet_id": net.subnet, "provider": "ovn"}})),
    );
    assert_eq!(code, 201, "{out}");
    assert_eq!(out["loadbalancer"]["provisioning_status"], "PENDING_CREATE");
    let lb_id = out["loadbalancer"]["id"].as_str().unwrap().to_string();
    let _rows = common::LbGuard(lb_id.clone());
    let lb = format!("/v2/lbaas/loadbalancers/{lb_id}");
    let (code, got) = keel.api("GET", &lb, &token, None);
    assert_eq!(code, 200, "{got}");
    assert_eq!(
        got["loadbalancer"]["provisioning_status"], "ACTIVE",
        "{got}"
    );
    // no polling: a listener create, then an LB update, each right after the previous answer
    let (code, out) = keel.api(
        "POST",
        "/v2/lbaas/listeners",
        &token,
        Some(
            &json!({"listener": {"loadbalancer_id": lb_id, "protocol": "TCP",
            "protocol_port": 80}}),
        ),
    );
    assert_eq!(code, 201, "{out}");
    let (code, out) = keel.api(
        "PUT",
        &lb,
        &token,
        Some(&json!({"loadbalancer": {"name": "renamed"}})),
    );
    assert_eq!(code, 200, "{out}");
    let (_, got) = keel.api("GET", &lb, &token, None);
    assert_eq!(
        (
            got["loadbalancer"]["provisioning_status"].as_str(),
            got["loadbalancer"]["name"].as_str()
        ),
        (Some("ACTIVE"), Some("renamed")),
        "{got}"
    );
    keel.delete_lb_cascade(&token, &lb_id);
}
