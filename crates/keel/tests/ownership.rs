//! Keel changes only what it can prove it owns (issue 27, Found 1): Keel A serves a load
//! balancer; Keel B, with another (empty) database, the same service credentials and its agent
//! on (passive: A holds the lock), runs its orphan VIP port sweep and an unfiltered `keel ovn-db-sync` on the same Neutron and NB. A's
//! VIP port and NB row are untouched, and so are a VIP port named as the Python provider names
//! its ports (`ovn-lb-vip-<id>`, `device_owner` `ovn-lb:vip`, no tag) and its NB row; B's own
//! orphans (a port tagged with B's deployment, a row on it) are deleted, which proves the sweep
//! and the purge ran. Real `keel serve` processes on the stack (Keystone, Neutron, OVN NB).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Command;
use std::time::Duration;

use common::{
    Backend, Keel, LbGuard, NeutronNet, get, keel_bin, map, nb_select, neutron, wait_for,
};
use serde_json::{Value, json};

/// Short lease so B's sweep deletes its own orphan within seconds (the sweep deletes a port
/// seen at a sweep a lease earlier; sweeps every 6 periods).
const RECOVERY: &str = "[keel]\nrecovery_lease = 2\nrecovery_period = 1\n";

fn port(id: &str) -> Option<Value> {
    let (code, body) = neutron("GET", &format!("/ports/{id}"), &common::admin_token(), None);
    match code {
        200 => Some(body["port"].clone()),
        404 => None,
        _ => panic!("GET port {id}: {code} {body}"),
    }
}

/// A VIP-like port on `net`: `ovn-lb-vip-<lb>`, `device_owner` `ovn-lb:vip`, `description`.
fn vip_like_port(net: &NeutronNet, lb: &str, description: &str) -> String {
    let (code, body) = neutron(
        "POST",
        "/ports",
        &common::admin_token(),
        Some(
            &json!({"port": {"name": format!("ovn-lb-vip-{lb}"), "network_id": net.net,
            "device_owner": "ovn-lb:vip", "device_id": format!("lb-{lb}"),
            "description": description}}),
        ),
    );
    assert_eq!(code, 201, "{body}");
    body["port"]["id"].as_str().unwrap().to_string()
}

/// An Octavia-looking `Load_Balancer` row `lb` on VIP port `port` (what the Python provider
/// writes for a load balancer without listeners).
fn nb_row(lb: &str, port: &str) {
    common::transact(
        &common::env("STACK_OVN_NB"),
        &json!(["OVN_Northbound", {"op": "insert", "table": "Load_Balancer", "row": {
            "name": lb, "protocol": ["set", []],
            "external_ids": ["map", [["neutron:vip", "10.0.0.99"],
                ["neutron:vip_port_id", port], ["enabled", "True"]]]}}]),
    );
}

/// A map column as its (key, value) pairs.
type Pairs = Vec<(String, String)>;

/// (external_ids, vips) of the rows named `lb`.
fn nb_rows(lb: &str) -> Vec<(Pairs, Pairs)> {
    nb_select("Load_Balancer", json!([["name", "==", lb]]))
        .iter()
        .map(|r| (map(&r["external_ids"]), map(&r["vips"])))
        .collect()
}

#[test]
fn a_second_keel_on_another_database_changes_nothing_of_the_first_or_of_python() {
    let a = Keel::start(Backend::Sqlite);
    let tag = common::tag();
    let net = NeutronNet::create(&tag, &[]);
    let token = common::demo_token();
    let lb = a.create_lb(&token, &format!("own-a-{tag}"), &net.subnet);
    let lb = lb["id"].as_str().unwrap().to_string();
    let _a_rows = LbGuard(lb.clone());
    a.wait_lb_active(&token, &lb);
    let a_port_id = a
        .api(
            "GET",
            &format!("/v2/lbaas/loadbalancers/{lb}"),
            &token,
            None,
        )
        .1["loadbalancer"]["vip_port_id"]
        .as_str()
        .unwrap()
        .to_string();
    let a_port = port(&a_port_id).expect("A's VIP port");
    let a_deployment = a.sql("SELECT deployment_id FROM keel_deployment");
    assert_eq!(
        a_port["description"],
        json!(format!("keel-deployment:{a_deployment}")),
        "A tags its VIP port with its deployment"
    );
    let a_nb = nb_rows(&lb);
    assert_eq!(a_nb.len(), 1);
    // a VIP port and row as the Python provider makes them: no tag
    let py_lb = uuid_like();
    let py_port = vip_like_port(&net, &py_lb, "");
    let _py_rows = LbGuard(py_lb.clone());
    nb_row(&py_lb, &py_port);
    let py_before = port(&py_port).unwrap();

    // B as deployed (its agent on: A holds the agent lock, so B's waits)
    let mut b = Keel::start_with(Backend::Sqlite, |c| c + RECOVERY);
    let b_deployment = b.sql("SELECT deployment_id FROM keel_deployment");
    assert!(!b_deployment.is_empty() && b_deployment != a_deployment);
    // B's own orphans: a tagged port whose LB B's database lacks, and a row on it
    let b_lb = uuid_like();
    let b_port = vip_like_port(&net, &b_lb, &format!("keel-deployment:{b_deployment}"));
    let _b_rows = LbGuard(b_lb.clone());
    nb_row(&b_lb, &b_port);

    // B's unfiltered ovn-db-sync: purges its own orphan row only
    let out = Command::new(keel_bin())
        .args(["--config-file", b.conf.to_str().unwrap(), "ovn-db-sync"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "ovn-db-sync: {stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(nb_rows(&b_lb).is_empty(), "B's orphan row purged: {stdout}");
    assert_eq!(nb_rows(&lb), a_nb, "A's row untouched: {stdout}");
    assert_eq!(
        nb_rows(&py_lb).len(),
        1,
        "the Python row untouched: {stdout}"
    );

    // B's sweep: deletes its own orphan port (so the sweep ran past the lease) ...
    wait_for(
        "B's sweep deletes its own orphan port",
        Duration::from_secs(60),
        || match port(&b_port) {
            None => Ok(()),
            Some(_) => Err(b.log()),
        },
    );
    // ... and once more: a second orphan of B, made after the first went, goes too, so a
    // whole sweep ran after any call the first one's sweep could still have been making
    let b_lb2 = uuid_like();
    let b_port2 = vip_like_port(&net, &b_lb2, &format!("keel-deployment:{b_deployment}"));
    let _b_rows2 = LbGuard(b_lb2.clone());
    wait_for(
        "B's next sweep deletes its second orphan port",
        Duration::from_secs(60),
        || match port(&b_port2) {
            None => Ok(()),
            Some(_) => Err(b.log()),
        },
    );
    // ... and nothing else: A's port and the Python port, unchanged
    let a_after = port(&a_port_id).expect("A's VIP port survives B's sweep");
    assert_eq!(a_after["revision_number"], a_port["revision_number"]);
    let py_after = port(&py_port).expect("the Python VIP port survives B's sweep");
    assert_eq!(py_after["revision_number"], py_before["revision_number"]);
    let log = b.log();
    assert!(!log.contains(&a_port_id), "B logged A's port: {log}");
    assert!(!log.contains(&py_port), "B logged the Python port: {log}");
    assert_eq!(nb_rows(&lb), a_nb);
    assert_eq!(
        get(&nb_rows(&py_lb)[0].0, "neutron:vip_port_id"),
        Some(py_port.as_str())
    );
    b.kill();
    a.delete_lb_cascade(&token, &lb);
}

/// A fresh UUID (the id of a load balancer no database has).
fn uuid_like() -> String {
    uuid::Uuid::new_v4().to_string()
}
