//! Agent leader election against the real NB/SB/northd: two agents with separate NB
//! connections share one lock; only the holder turns a `Service_Monitor` change into member
//! statuses, and when the holder's connection drops the other takes over.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use ovn_provider::sb::{self, PortBindingRow};
use ovn_provider::{Agent, OvnConfig, OvnProvider, OvsdbNb};
use provider::{OperatingStatus as Op, StatusReport};
use serde_json::json;

mod common;
use common::*;

async fn sb_client() -> ovsdb::Client {
    sb(&["Service_Monitor"]).await.unwrap()
}

/// The test's own SB client: `Service_Monitor` (to find and set northd's monitor) and the
/// `logical_port`/`up` of `Port_Binding` (to mark the member's port up).
async fn sb_test_client() -> ovsdb::Client {
    let spec = ovsdb::MonitorSpec::new()
        .table("Service_Monitor")
        .columns("Port_Binding", &["logical_port", "up"]);
    ovsdb::Client::connect(&env("STACK_OVN_SB"), "OVN_Southbound", spec)
        .await
        .unwrap()
}

/// Deletes the test's NB fixture: switch `ls` and the `Load_Balancer` rows named `lb_id`.
async fn remove_fixture(admin: &ovsdb::Client, ls: &str, lb_id: &str) {
    admin
        .transact(nb_txn(vec![
            delete_named("Logical_Switch", ls),
            delete_named("Load_Balancer", lb_id),
        ]))
        .await
        .unwrap();
}

/// Deletes the `Load_Balancer` rows earlier runs of these tests left (a run that failed never
/// reached its `remove_fixture`; the tests run one at a time). They map the same member
/// addresses and carry the same member id `M` as the new fixture, so an agent's start-up
/// catch-up reports on them too. Hygiene only: they were not the cause of the 60 s waits of
/// `only_the_lock_holder_acts_and_the_other_takes_over` (see its step 3).
async fn remove_leftover_fixtures(admin: &ovsdb::Client) {
    admin
        .transact(nb_txn(vec![json!({
            "op": "delete", "table": "Load_Balancer",
            "where": [["external_ids", "includes", ["map", [["listener_L", "80:pool_P"]]]]]
        })]))
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_lock_holder_acts_and_the_other_takes_over() {
    let lb_id = uid();
    let lsp = format!("keel-agent-test-{}", &lb_id[..8]);
    let ls = format!("neutron-{}", uid());
    let lock = format!("keel_agent_test_{}", lb_id.replace('-', "_"));

    // NB rows as the driver leaves them: a switch with the member port, an LB row with a
    // member, a health check and the member's ip_port_mappings (northd makes the monitor)
    let admin = nb_admin(&[]).await.unwrap();
    remove_leftover_fixtures(&admin).await;
    let ids = json!([
        "map",
        [
            ["neutron:vip", "10.77.0.5"],
            ["enabled", "True"],
            ["listener_L", "80:pool_P"],
            ["pool_P", "member_M_10.77.0.10:80_S"],
            ["ls_refs", format!("{{\"{ls}\": 1}}")]
        ]
    ]);
    admin
        .transact(nb_txn(vec![
            json!({"op": "insert", "table": "Load_Balancer_Health_Check", "uuid-name": "hc",
                "row": {"vip": "10.77.0.5:80", "options": ["map", [["interval", "5"], ["timeout", "5"],
                    ["success_count", "1"], ["failure_count", "1"]]],
                    "external_ids": ["map", [["octavia:healthmonitor", "H"]]]}}),
            json!({"op": "insert", "table": "Load_Balancer", "uuid-name": "lb",
                "row": {"name": lb_id, "protocol": "tcp", "external_ids": ids,
                    "vips": ["map", [["10.77.0.5:80", "10.77.0.10:80"]]],
                    "health_check": ["named-uuid", "hc"],
                    "ip_port_mappings": ["map", [["10.77.0.10", format!("{lsp}:10.77.0.2")]]]}}),
            json!({"op": "insert", "table": "Logical_Switch_Port", "uuid-name": "lsp",
                "row": {"name": lsp, "addresses": "fa:16:3e:77:00:10 10.77.0.10"}}),
            json!({"op": "insert", "table": "Logical_Switch", "uuid-name": "ls",
                "row": {"name": ls, "ports": ["named-uuid", "lsp"],
                    "load_balancer": ["named-uuid", "lb"]}}),
        ]))
        .await
        .unwrap();

    let start = |tag: &'static str| {
        let lock = lock.clone();
        async move {
            let nb = nb().await.unwrap();
            let sb = sb_client().await;
            let (d, rx) = driver(Arc::new(nb.clone()), neutron());
            let client = nb.client().clone();
            let task = tokio::spawn({
                let client = client.clone();
                let lock = lock.clone();
                async move { Agent::new(&d).run_with_lock(client, sb, &lock).await }
            });
            // the same session's lock watch (registers the request with the server)
            let held = client.lock(&lock).await.unwrap();
            let _ = tag;
            (client, task, rx, held)
        }
    };
    let (client_a, task_a, mut rx_a, mut held_a) = start("A").await;
    wait_held(&mut held_a, 10, "A never got the lock").await;
    let (client_b, task_b, mut rx_b, mut held_b) = start("B").await;
    assert!(!*held_b.borrow(), "B must wait for the lock");

    // the monitor northd makes for the member, and the member's port bound and up as
    // ovn-controller leaves it: northd (OVN 23.03 `ovn_lb_svc_create`) turns an `online`
    // monitor of a port whose Port_Binding is not up back to `offline` within milliseconds,
    // and when both writes reach an SB session in one update the `online` is never seen
    let sb = sb_test_client().await;
    let sm = wait_replica(&sb, &format!("northd's Service_Monitor for {lsp}"), |s| {
        find_monitor(s, |r| r.logical_port == lsp)
    })
    .await
    .unwrap();
    wait_replica(&sb, &format!("northd's Port_Binding of {lsp}"), |s| {
        sb::rows(s, sb::PORT_BINDING, PortBindingRow::from_row)
            .into_iter()
            .find(|r| r.logical_port == lsp)
            .map(|r| r.uuid)
    })
    .await
    .unwrap();
    set_port_up(&sb, &lsp).await.unwrap();

    // 1. the holder acts (its start-up catch-up may report other rows first)
    set_monitor_status(&sb, sm, "offline").await.unwrap();
    member_report(&mut rx_a, &lb_id, "M", Op::Error).await;
    // …and the other one did not
    assert!(rx_b.try_recv().is_err(), "B reported without the lock");

    // 2. the holder's connection drops (every clone gone): B is granted the lock
    task_a.abort();
    let _ = task_a.await;
    drop(held_a);
    drop(client_a);
    wait_held(&mut held_b, 30, "B never took over the lock").await;

    // 3. B catches up on taking the lock (M is ERROR, from event 1's row), then handles
    //    the next event
    member_report(&mut rx_b, &lb_id, "M", Op::Error).await;
    set_monitor_status(&sb, sm, "online").await.unwrap();
    member_report(&mut rx_b, &lb_id, "M", Op::Online).await;

    task_b.abort();
    drop(client_b);
    remove_fixture(&admin, &ls, &lb_id).await;
}

/// The first report about load balancer `lb_id` giving member `id` operating status `op`
/// (others are skipped: an agent's catch-up reports every monitored member of the shared SB,
/// and rows other runs left may hold a member with the same id).
async fn member_report(rx: &mut Reports, lb_id: &str, id: &str, op: Op) -> StatusReport {
    loop {
        let r = next(rx).await;
        if r.loadbalancers.iter().any(|l| l.id == lb_id)
            && r.members
                .iter()
                .any(|m| m.id == id && m.operating_status == Some(op))
        {
            return r;
        }
    }
}

/// The `Load_Balancer` row named `lb_id` with its health checks (`vip`, `options`,
/// `external_ids`), sorted by `vip`.
type HcView = (String, BTreeMap<String, String>, BTreeMap<String, String>);

/// A `Load_Balancer` row: `external_ids`, `vips`, health checks.
type LbView = (
    BTreeMap<String, String>,
    BTreeMap<String, String>,
    Vec<HcView>,
);

fn lb_and_hcs(s: &ovsdb::Snapshot, lb_id: &str) -> Option<LbView> {
    let lb = s.find_by_name("Load_Balancer", lb_id)?;
    let mut hcs: Vec<HcView> = lb
        .get_uuid_set("health_check")
        .iter()
        .filter_map(|u| s.row("Load_Balancer_Health_Check", u))
        .map(|h| {
            (
                h.get_str("vip").unwrap_or("").to_string(),
                h.get_map("options"),
                h.get_map("external_ids"),
            )
        })
        .collect();
    hcs.sort();
    Some((lb.get_map("external_ids"), lb.get_map("vips"), hcs))
}

/// The names of one VIP FIP test, unique to it.
struct FipNames {
    lb_id: String,
    /// The VIP port's Neutron name `ovn-lb-vip-<lb_id>`.
    vip_port: String,
    /// A switch `neutron-<uuid>`.
    ls: String,
    /// The agent lock of this test alone.
    lock: String,
    /// A FIP address `<prefix>.<x>.<y>` (random).
    fip: String,
}

fn fip_names(prefix: &str) -> FipNames {
    let lb_id = uid();
    let b = uuid::Uuid::new_v4().as_bytes()[..2].to_vec();
    FipNames {
        vip_port: format!("ovn-lb-vip-{lb_id}"),
        ls: format!("neutron-{}", uid()),
        lock: format!("keel_agent_test_{}", lb_id.replace('-', "_")),
        fip: format!("{prefix}.{}.{}", b[0], b[1].max(1)),
        lb_id,
    }
}

/// Seed 000 §6.1 / `handle_vip_fip`: a FIP associated with the VIP port gives every health
/// check of the VIP a copy probing the FIP; disassociation removes it (exact NB rows).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vip_fip_copies_and_removes_health_checks() {
    let FipNames {
        lb_id,
        vip_port,
        ls,
        lock,
        fip,
    } = fip_names("172.31");

    let admin = nb_admin(&["Load_Balancer", "Load_Balancer_Health_Check"])
        .await
        .unwrap();
    remove_leftover_fixtures(&admin).await;
    let ids = json!([
        "map",
        [
            ["neutron:vip", "10.78.0.5"],
            ["neutron:vip_port_id", "VP"],
            ["enabled", "True"],
            ["listener_L", "80:pool_P"],
            ["pool_P", "member_M_10.78.0.10:80_S"],
            ["octavia:healthmonitors", "[\"H\"]"],
            ["ls_refs", format!("{{\"{ls}\": 1}}")]
        ]
    ]);
    let options = ovsdb_map(&HC_OPTIONS);
    admin
        .transact(nb_txn(vec![
            json!({"op": "insert", "table": "Load_Balancer_Health_Check", "uuid-name": "hc",
                "row": {"vip": "10.78.0.5:80", "options": options,
                    "external_ids": ["map", [["octavia:healthmonitor", "H"],
                        ["octavia:pool_id", "P"], ["octavia:vip", "10.78.0.5"]]]}}),
            json!({"op": "insert", "table": "Load_Balancer", "uuid-name": "lb",
                "row": {"name": lb_id, "protocol": "tcp", "external_ids": ids,
                    "vips": ["map", [["10.78.0.5:80", "10.78.0.10:80"]]],
                    "health_check": ["named-uuid", "hc"]}}),
            json!({"op": "insert", "table": "Logical_Switch_Port", "uuid-name": "vp",
                "row": {"name": format!("vp-{}", &lb_id[..8]),
                    "addresses": "fa:16:3e:78:00:05 10.78.0.5",
                    "external_ids": ["map", [["neutron:port_name", vip_port]]]}}),
            json!({"op": "insert", "table": "Logical_Switch", "uuid-name": "ls",
                "row": {"name": ls, "ports": ["named-uuid", "vp"],
                    "load_balancer": ["named-uuid", "lb"]}}),
        ]))
        .await
        .unwrap();

    let nb = nb().await.unwrap();
    let (d, _rx) = driver(Arc::new(nb.clone()), neutron());
    let client = nb.client().clone();
    let mut held = client.lock(&lock).await.unwrap();
    let task = tokio::spawn({
        let client = client.clone();
        let lock = lock.clone();
        let sb = sb_client().await;
        async move { Agent::new(&d).run_with_lock(client, sb, &lock).await }
    });
    wait_held(&mut held, 10, "the agent never got the lock").await;

    let set_fip = |fip: Option<&str>| {
        let mut m = vec![json!(["neutron:port_name", vip_port])];
        if let Some(f) = fip {
            m.push(json!(["neutron:port_fip", f]));
        }
        nb_txn(vec![json!({"op": "update", "table": "Logical_Switch_Port",
            "where": [["name", "==", format!("vp-{}", &lb_id[..8])]],
            "row": {"external_ids": ["map", m]}})])
    };
    let opts = map(&HC_OPTIONS);
    let vip_hc = (
        "10.78.0.5:80".to_string(),
        opts.clone(),
        map(&[
            ("octavia:healthmonitor", "H"),
            ("octavia:pool_id", "P"),
            ("octavia:vip", "10.78.0.5"),
        ]),
    );

    // 1. associate: vip_fip, the FIP's vips entry, and a copy of the health check
    admin.transact(set_fip(Some(&fip))).await.unwrap();
    let (ids, vips, hcs) = wait_replica(&admin, "the FIP health check", |s| {
        lb_and_hcs(s, &lb_id).filter(|(_, _, h)| h.len() == 2)
    })
    .await
    .unwrap();
    assert_eq!(ids.get("neutron:vip_fip"), Some(&fip));
    assert_eq!(
        vips,
        map(&[
            ("10.78.0.5:80", "10.78.0.10:80"),
            (&format!("{fip}:80"), "10.78.0.10:80")
        ])
    );
    let fip_hc = (
        format!("{fip}:80"),
        opts.clone(),
        map(&[
            ("octavia:healthmonitor", "H"),
            ("octavia:pool_id", "P"),
            ("octavia:vip", &fip),
        ]),
    );
    let mut want = vec![vip_hc.clone(), fip_hc];
    want.sort();
    assert_eq!(hcs, want);

    // 2. disassociate: back to the VIP's health check only
    admin.transact(set_fip(None)).await.unwrap();
    let (ids, vips, hcs) = wait_replica(&admin, "the FIP health check removed", |s| {
        lb_and_hcs(s, &lb_id).filter(|(_, _, h)| h.len() == 1)
    })
    .await
    .unwrap();
    assert!(!ids.contains_key("neutron:vip_fip"), "{ids:?}");
    assert_eq!(vips, map(&[("10.78.0.5:80", "10.78.0.10:80")]));
    assert_eq!(hcs, vec![vip_hc]);
    // the copy row itself is gone (garbage-collected with its last reference)
    let left = admin
        .replica()
        .table("Load_Balancer_Health_Check")
        .map(|t| {
            t.rows()
                .filter(|r| r.map_get("external_ids", "octavia:vip") == Some(fip.as_str()))
                .count()
        })
        .unwrap_or(0);
    assert_eq!(left, 0);

    task.abort();
    remove_fixture(&admin, &ls, &lb_id).await;
}

/// Agent robustness: the agent's NB event channel holds ONE event, and a single transaction
/// brings two dozen changes (a VIP port FIP among them): the stream reports `Lagged`, the agent
/// re-reads the replica and still records the FIP (`neutron:vip_fip`, the FIP's `vips` entry).
/// A current-thread runtime makes the burst arrive before the agent reads any of it.
#[tokio::test]
async fn lagged_events_trigger_a_rescan() {
    let FipNames {
        lb_id,
        vip_port,
        ls,
        lock,
        fip,
    } = fip_names("172.29");
    let admin = nb_admin(&["Load_Balancer"]).await.unwrap();
    remove_leftover_fixtures(&admin).await;
    let ids = json!([
        "map",
        [
            ["neutron:vip", "10.79.0.5"],
            ["enabled", "True"],
            ["listener_L", "80:pool_P"],
            ["pool_P", "member_M_10.79.0.10:80_S"],
            ["ls_refs", format!("{{\"{ls}\": 1}}")]
        ]
    ]);
    let vp_name = format!("vp-{}", &lb_id[..8]);
    admin
        .transact(nb_txn(vec![
            json!({"op": "insert", "table": "Load_Balancer", "uuid-name": "lb",
                "row": {"name": lb_id, "protocol": "tcp", "external_ids": ids,
                    "vips": ["map", [["10.79.0.5:80", "10.79.0.10:80"]]]}}),
            json!({"op": "insert", "table": "Logical_Switch_Port", "uuid-name": "vp",
                "row": {"name": vp_name, "addresses": "fa:16:3e:79:00:05 10.79.0.5",
                    "external_ids": ["map", [["neutron:port_name", vip_port]]]}}),
            json!({"op": "insert", "table": "Logical_Switch", "uuid-name": "ls",
                "row": {"name": ls, "ports": ["named-uuid", "vp"],
                    "load_balancer": ["named-uuid", "lb"]}}),
        ]))
        .await
        .unwrap();

    let client = ovsdb::Client::connect_with(
        &env("STACK_OVN_NB"),
        "OVN_Northbound",
        ovn_provider::ovsdb_nb::monitor_spec(),
        ovsdb::ClientOptions {
            event_capacity: 1,
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let (d, _rx) = driver(Arc::new(OvsdbNb::new(client.clone())), neutron());
    let mut held = client.lock(&lock).await.unwrap();
    let agent = Agent::new(&d);
    let task = tokio::spawn({
        let agent = agent.clone();
        let client = client.clone();
        let lock = lock.clone();
        let sb = sb_client().await;
        async move { agent.run_with_lock(client, sb, &lock).await }
    });
    wait_held(&mut held, 10, "the agent never got the lock").await;
    assert_eq!(agent.rescans(), 0);

    // one transaction: the FIP on the VIP port and 24 more ports on the switch
    let mut ops = vec![json!({"op": "update", "table": "Logical_Switch_Port",
        "where": [["name", "==", vp_name]],
        "row": {"external_ids": ["map", [["neutron:port_name", vip_port],
            ["neutron:port_fip", fip]]]}})];
    let mut names = Vec::new();
    for i in 0..24 {
        let n = format!("p{i}");
        ops.push(
            json!({"op": "insert", "table": "Logical_Switch_Port", "uuid-name": n,
            "row": {"name": format!("burst-{}-{i}", &lb_id[..8])}}),
        );
        names.push(json!(["named-uuid", n]));
    }
    ops.push(
        json!({"op": "mutate", "table": "Logical_Switch", "where": [["name", "==", ls]],
        "mutations": [["ports", "insert", ["set", names]]]}),
    );
    admin.transact(nb_txn(ops)).await.unwrap();

    let (ids, vips) = wait_replica(&admin, "the FIP recorded after the lag", |s| {
        let lb = s.find_by_name("Load_Balancer", &lb_id)?;
        let ids = lb.get_map("external_ids");
        ids.contains_key("neutron:vip_fip")
            .then(|| (ids, lb.get_map("vips")))
    })
    .await
    .unwrap();
    assert!(agent.rescans() >= 1, "the stream never lagged");
    assert_eq!(ids.get("neutron:vip_fip"), Some(&fip));
    assert_eq!(
        vips,
        map(&[
            ("10.79.0.5:80", "10.79.0.10:80"),
            (&format!("{fip}:80"), "10.79.0.10:80")
        ])
    );

    task.abort();
    remove_fixture(&admin, &ls, &lb_id).await;
}

async fn maintenance_driver() -> (OvnProvider, OvsdbNb) {
    let nb = nb_caught_up().await.unwrap();
    let (d, _rx) = driver_with(
        Arc::new(nb.clone()),
        neutron(),
        OvnConfig {
            maintenance_period: None,
            ..OvnConfig::default()
        },
    );
    (d, nb)
}

/// Neutron, a fresh id and the network `keel-ovnp-mt-<id>` (recorded in the returned [`Made`]).
async fn maintenance_network() -> (openstack::NeutronClient, String, Made, openstack::Network) {
    let n = neutron();
    let id = uid();
    let made = Made::default();
    let net = network(&n, &made, format!("keel-ovnp-mt-{id}"))
        .await
        .unwrap();
    (n, id, made, net)
}

/// Maintenance `add_device_owner_lb_vip_ports` (Keel's variant): the provider's VIP port gets
/// `device_id` `lb-<id>` and NO `device_owner` (the reference writes `ovn-lb:vip`, which breaks
/// same-subnet clients); a port of this deployment (its tag) that the Python agent's backfill
/// gave `ovn-lb:vip` loses it again, an untagged one keeps it; a user-provided port and a port
/// claimed by another device are left alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn maintenance_backfills_vip_port_owners() {
    let (n, lb_id, made, net) = maintenance_network().await;
    let deployment = format!("dep-{lb_id}");
    let tag = ovn_provider::driver::deployment_tag(&deployment);
    let lb_device = format!("lb-{lb_id}");
    let port = |name: String, device: &str, owner: &str, description: &str| openstack::PortCreate {
        network_id: net.id.clone(),
        name: Some(name),
        device_id: Some(device.to_string()).filter(|d| !d.is_empty()),
        device_owner: Some(owner.to_string()).filter(|o| !o.is_empty()),
        description: Some(description.to_string()).filter(|d| !d.is_empty()),
        ..Default::default()
    };
    let mut ids = Vec::new();
    for (name, device, owner, description) in [
        (format!("ovn-lb-vip-{lb_id}"), "", "", ""),
        (format!("user-vip-{lb_id}"), "", "", ""),
        (
            format!("ovn-lb-vip-additional-1-{lb_id}"),
            "some-vm",
            "",
            "",
        ),
        (
            format!("ovn-lb-vip-additional-2-{lb_id}"),
            lb_device.as_str(),
            "ovn-lb:vip",
            tag.as_str(),
        ),
        (
            format!("ovn-lb-vip-additional-3-{lb_id}"),
            lb_device.as_str(),
            "ovn-lb:vip",
            "",
        ),
    ] {
        let p = n
            .create_port(&port(name, device, owner, description))
            .await
            .unwrap();
        made.port(&p.id);
        ids.push(p.id);
    }
    let nb = nb_caught_up().await.unwrap();
    let (d, _rx) = driver_with(
        Arc::new(nb.clone()),
        neutron(),
        OvnConfig {
            maintenance_period: None,
            deployment_id: Some(deployment.clone()),
            ..OvnConfig::default()
        },
    );
    nb.client()
        .transact(nb_txn(vec![
            json!({"op": "insert", "table": "Load_Balancer", "row": {
        "name": lb_id, "external_ids": ["map", [["neutron:vip", "10.80.0.5"],
            ["neutron:vip_port_id", ids[0]], ["enabled", "True"],
            ["neutron:additional_vip_port_ids", ids[1..].join(",")]]]}}),
        ]))
        .await
        .unwrap();

    let outcome = Agent::new(&d).maintain_vip_port_owners().await;
    let mut got = Vec::new();
    for id in &ids {
        let p = n.get_port(id).await.unwrap();
        got.push((p.device_owner, p.device_id));
    }
    nb.client()
        .transact(nb_txn(vec![delete_named("Load_Balancer", &lb_id)]))
        .await
        .unwrap();
    made.cleanup(&n).await;

    assert!(
        matches!(outcome, Ok(ovn_provider::maintenance::Outcome::Done)),
        "{outcome:?}"
    );
    assert_eq!(
        got,
        vec![
            (String::new(), lb_device.clone()),
            (String::new(), String::new()),
            (String::new(), "some-vm".to_string()),
            (String::new(), lb_device.clone()),
            ("ovn-lb:vip".to_string(), lb_device.clone()),
        ]
    );
}

/// Maintenance `change_device_owner_lb_hm_ports`: a legacy `network:distributed` HM port
/// becomes `ovn-lb-hm:distributed` with `device_id` = its name, and stays a `localport`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn maintenance_migrates_hm_port_owner() {
    let (n, _, made, net) = maintenance_network().await;
    let subnet = subnet(&n, &made, &net.id, "10.81.0.0/24").await.unwrap();
    let name = format!("ovn-lb-hm-{}", subnet.id);
    let p = n
        .create_port(&openstack::PortCreate {
            network_id: net.id.clone(),
            name: Some(name.clone()),
            device_owner: Some("network:distributed".into()),
            fixed_ips: Some(vec![openstack::FixedIpRequest::subnet(subnet.id.clone())]),
            ..Default::default()
        })
        .await
        .unwrap();
    made.port(&p.id);
    let (d, nb) = maintenance_driver().await;

    let outcome = Agent::new(&d).maintain_hm_port_owners().await;
    let after = n.get_port(&p.id).await.unwrap();
    let lsp_type = wait_replica(nb.client(), "the HM port's switch port", |s| {
        s.find_by_name("Logical_Switch_Port", &p.id)
            .map(|r| r.get_str("type").unwrap_or("").to_string())
    })
    .await
    .unwrap();
    made.cleanup(&n).await;

    assert!(
        matches!(outcome, Ok(ovn_provider::maintenance::Outcome::Done)),
        "{outcome:?}"
    );
    assert_eq!(
        (after.device_owner.as_str(), after.device_id.as_str()),
        ("ovn-lb-hm:distributed", name.as_str())
    );
    assert_eq!(lsp_type, "localport");
}

/// Maintenance `format_ip_port_mappings_ipv6`: bare IPv6 `ip_port_mappings` get brackets.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn maintenance_brackets_ipv6_mappings() {
    let lb_id = uid();
    let (d, nb) = maintenance_driver().await;
    use ovn_provider::NbDatabase;
    nb.client()
        .transact(nb_txn(vec![
            json!({"op": "insert", "table": "Load_Balancer", "row": {
        "name": lb_id, "external_ids": ["map", [["neutron:vip", "fd00:82::5"]]],
        "ip_port_mappings": ["map", [["fd00:82::10", "lsp-m1:fd00:82::2"]]]}}),
        ]))
        .await
        .unwrap();
    let outcome = Agent::new(&d).maintain_ipv6_mappings().await;
    let snap = nb.full_snapshot().await.unwrap();
    let row = snap.lbs_named(&lb_id)[0].clone();
    nb.client()
        .transact(nb_txn(vec![delete_named("Load_Balancer", &lb_id)]))
        .await
        .unwrap();
    assert!(
        matches!(outcome, Ok(ovn_provider::maintenance::Outcome::Done)),
        "{outcome:?}"
    );
    assert_eq!(
        row.ip_port_mappings,
        map(&[("[fd00:82::10]", "lsp-m1:[fd00:82::2]")])
    );
}

/// The `ports` of Keel's `Port_Group` `name` in `admin`'s replica (uuids, sorted); `None`
/// while the row is not there.
fn group_ports(admin: &ovsdb::Client, name: &str) -> Option<Vec<ovsdb::Uuid>> {
    let snap = admin.replica();
    let row = snap
        .table("Port_Group")?
        .rows()
        .find(|r| r.get_str("name") == Some(name))?
        .clone();
    let mut p = row.get_uuid_set("ports");
    p.sort();
    Some(p)
}

/// The uuid of the switch port named `name` in `admin`'s replica.
fn lsp_uuid(admin: &ovsdb::Client, name: &str) -> ovsdb::Uuid {
    admin
        .replica()
        .table("Logical_Switch_Port")
        .and_then(|t| t.rows().find(|r| r.get_str("name") == Some(name)).cloned())
        .unwrap_or_else(|| panic!("no switch port {name}"))
        .uuid()
}

/// `allowed_cidrs` re-anchoring by the agent alone: a listener's port group anchored on its
/// switch's router port; that switch port is deleted with no router-port event (as when
/// Neutron deletes the gateway port of another router, or the LSP before its LRP), OVSDB
/// drops it from the group's weak `ports`, and the agent anchors the group on the VIP's
/// switch port (the next candidate), in one transaction (exact NB rows).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_allowed_cidrs_anchor_is_replaced() {
    let FipNames {
        lb_id, ls, lock, ..
    } = fip_names("172.30");
    let group = format!("keel_L{}", lb_id.replace('-', "_"));
    let admin = nb_admin(&["Load_Balancer", "Logical_Switch_Port", "Port_Group"])
        .await
        .unwrap();
    remove_leftover_fixtures(&admin).await;
    let vp = format!("vp-{}", &lb_id[..8]);
    let rp = format!("rp-{}", &lb_id[..8]);
    let ids = json!([
        "map",
        [
            ["neutron:vip", "10.77.0.5"],
            ["neutron:vip_port_id", vp],
            ["enabled", "True"],
            ["listener_L", "80:pool_P"],
            ["ls_refs", format!("{{\"{ls}\": 1}}")]
        ]
    ]);
    let keel_ids = json!([
        "map",
        [
            ["keel:owner", "keel-allowed-cidrs"],
            ["keel:lb_id", lb_id],
            ["keel:listener_id", "L"]
        ]
    ]);
    admin
        .transact(nb_txn(vec![
            json!({"op": "insert", "table": "Load_Balancer", "uuid-name": "lb",
                "row": {"name": lb_id, "protocol": "tcp", "external_ids": ids,
                    "vips": ["map", [["10.77.0.5:80", "10.77.0.10:80"]]]}}),
            json!({"op": "insert", "table": "Logical_Switch_Port", "uuid-name": "vp",
                "row": {"name": vp, "addresses": "fa:16:3e:77:00:05 10.77.0.5"}}),
            json!({"op": "insert", "table": "Logical_Switch_Port", "uuid-name": "rp",
                "row": {"name": rp, "type": "router", "addresses": "router",
                    "options": ["map", [["router-port", format!("lrp-{rp}")]]]}}),
            json!({"op": "insert", "table": "Logical_Switch", "uuid-name": "ls",
                "row": {"name": ls, "ports": ["set", [["named-uuid", "vp"], ["named-uuid", "rp"]]],
                    "load_balancer": ["named-uuid", "lb"]}}),
            json!({"op": "insert", "table": "Port_Group", "uuid-name": "pg",
                "row": {"name": group, "ports": ["named-uuid", "rp"], "external_ids": keel_ids}}),
        ]))
        .await
        .unwrap();

    let nb = nb().await.unwrap();
    let (d, _rx) = driver(Arc::new(nb.clone()), neutron());
    let client = nb.client().clone();
    let mut held = client.lock(&lock).await.unwrap();
    let task = tokio::spawn({
        let client = client.clone();
        let lock = lock.clone();
        let sb = sb_client().await;
        async move { Agent::new(&d).run_with_lock(client, sb, &lock).await }
    });
    wait_held(&mut held, 10, "the agent never got the lock").await;
    let (vp_uuid, rp_uuid) = (lsp_uuid(&admin, &vp), lsp_uuid(&admin, &rp));
    assert_eq!(group_ports(&admin, &group), Some(vec![rp_uuid]));

    // the router port leaves its switch (and the NB: a switch port is not a root row)
    admin
        .transact(nb_txn(vec![
            json!({"op": "mutate", "table": "Logical_Switch",
            "where": [["name", "==", ls]],
            "mutations": [["ports", "delete", ["uuid", rp_uuid.to_string()]]]}),
        ]))
        .await
        .unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let now = group_ports(&admin, &group);
        if now == Some(vec![vp_uuid]) {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "not re-anchored on the VIP port {vp_uuid} in 10 s: {now:?}"
        );
        let mut rx = admin.subscribe();
        let _ = tokio::time::timeout(Duration::from_millis(200), rx.recv()).await;
    }

    task.abort();
    admin
        .transact(nb_txn(vec![delete_named("Port_Group", &group)]))
        .await
        .unwrap();
    remove_fixture(&admin, &ls, &lb_id).await;
}
