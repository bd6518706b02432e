//! A listener's `allowed_cidrs` enforced on an OVN load balancer (issue 44), proven with
//! packets on the stack's data plane (`ci/stack/dataplane-up.sh`; "VMs" as in `traffic.rs`:
//! network namespaces holding a bound Neutron port, servers answering with their VM's name).
//!
//! [`allowed_cidrs_same_subnet_routed_fip_and_changes`]: bad lists first (Octavia's 400
//! texts, nothing stored, no row), then one load balancer, one TCP listener made with a list,
//! one member. Clients: two on the VIP's subnet (one listed, one not), one on a second network behind the LB's router, and `ext`
//! on the external network through the VIP's floating IP. A listed client is served, an
//! unlisted one gets no connection (its SYN is dropped: the probe's 300 ms connect timeout);
//! then the list changes (the routed client and the external network added, the second
//! same-subnet client in and out several times: the time from the `PUT` to the data plane
//! following it is printed as `CIDRS …` lines, p50/p95); an empty list serves everyone;
//! `keel ovn-db-sync` finds nothing on the rows as made, reports a damaged allow set on
//! `--dry-run` (changing nothing) and repairs it; deleting the listener,
//! `keel ovn-remove-keel-objects` (after its `--dry-run` listed them)
//! and the LB's cascade delete each leave no row of Keel's in the NB.
//! [`allowed_cidrs_udp`]: the same on a UDP listener, with datagrams.
//! [`allowed_cidrs_rows_survive_neutrons_own_repair`]: Neutron's `neutron-ovn-db-sync-util`
//! in repair mode leaves the rows as they were (NB only).
//! [`allowed_cidrs_in_a_single_call_create`]: the rows of a graph's listeners (NB only).
//! [`allowed_cidrs_reanchored_when_the_router_interface_goes`]: the agent re-anchors a
//! listener's port group when Neutron removes the router interface it was anchored on.
//! [`allowed_cidrs_additional_vip_and_ipv6`]: an additional IPv4 VIP and an IPv6 VIP, IPv4 and
//! IPv6 clients. [`allowed_cidrs_established_connection_of_a_removed_client`]: what a held
//! connection does when its client leaves the list (it goes on).
//! [`allowed_cidrs_catch_all_and_long_lists`]: `0.0.0.0/0` among other CIDRs, 4,000 CIDRs, a
//! body past the API's size limit.
//! Run: `source ci/stack/env.sh admin; cargo nextest run -p keel -E 'binary(traffic_cidrs)'`
//! (as root, the data plane up: `ci/stack/status.sh`); about 6 min.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::dataplane::*;
use common::{Backend, Keel, LbGuard, NeutronNet, demo_token, env, nb_select, wait_for};
use serde_json::{Value, json};

/// One connection from `vm` to `host:80` with a 300 ms connect timeout: served or not.
fn served_once(vm: &Vm, host: &str) -> bool {
    let out = dp(&["probe", &vm.name, "tcp", host, "80", "1", "20", "300"]);
    out.lines().any(|l| l.starts_with("ok "))
}

/// Three connections: `Some(true)` all served, `Some(false)` none, `None` mixed.
fn state(vm: &Vm, host: &str) -> Option<bool> {
    let out = dp(&["probe", &vm.name, "tcp", host, "80", "3", "20", "300"]);
    let ok = out.lines().filter(|l| l.starts_with("ok ")).count();
    let fail = out.lines().filter(|l| l.starts_with("fail ")).count();
    match (ok, fail) {
        (3, 0) => Some(true),
        (0, 3) => Some(false),
        _ => None,
    }
}

/// Waits (30 s) until every (client, host, served?) holds.
fn expect(what: &str, cases: &[(&Vm, &str, bool)]) {
    wait_for(what, Duration::from_secs(30), || {
        let seen: Vec<_> = cases
            .iter()
            .map(|(vm, host, _)| (vm.name.clone(), state(vm, host)))
            .collect();
        if cases
            .iter()
            .zip(&seen)
            .all(|((_, _, want), (_, got))| *got == Some(*want))
        {
            Ok(())
        } else {
            Err(format!("{seen:?}"))
        }
    });
}

/// `PUT` of the listener's list; returns the time until `vm` → `host` is `served` on every
/// attempt of a 1-connection poll (the first attempt that shows it).
fn change(
    keel: &Keel,
    token: &str,
    lb: &str,
    listener: &str,
    list: &[String],
    (vm, host, served): (&Vm, &str, bool),
) -> Duration {
    let t0 = Instant::now();
    let (code, out) = keel.api(
        "PUT",
        &format!("/v2/lbaas/listeners/{listener}"),
        token,
        Some(&json!({"listener": {"allowed_cidrs": list}})),
    );
    assert!(code == 200 || code == 202, "{code} {out}");
    assert_eq!(
        stored(&out["listener"]["allowed_cidrs"]),
        sorted(list),
        "{out}"
    );
    let deadline = t0 + Duration::from_secs(30);
    let took = loop {
        if served_once(vm, host) == served {
            break t0.elapsed();
        }
        if Instant::now() > deadline {
            let cond = json!([["external_ids", "includes", ["map", [["keel:lb_id", lb]]]]]);
            panic!(
                "{} → {host} not served={served} 30 s after the PUT; LB {:?}; Keel's rows: {:?} {:?}; ACLs {:?}",
                vm.name,
                keel.api("GET", &format!("/v2/lbaas/loadbalancers/{lb}"), token, None),
                nb_select("Port_Group", cond.clone()),
                nb_select("Address_Set", cond.clone()),
                nb_select("ACL", cond),
            );
        }
    };
    keel.wait_lb_active(token, lb);
    took
}

/// The list the API rendered (`null`: empty), sorted.
fn stored(v: &Value) -> Vec<String> {
    let mut l: Vec<String> = v
        .as_array()
        .map(|a| a.iter().map(|x| x.as_str().unwrap().to_string()).collect())
        .unwrap_or_default();
    assert!(
        !v.is_array() || !l.is_empty(),
        "an empty list renders as null: {v}"
    );
    l.sort();
    l
}

fn sorted(list: &[String]) -> Vec<String> {
    let mut l = list.to_vec();
    l.sort();
    l
}

/// Keel's rows of `lb` (port groups and address sets with its `keel:lb_id`).
fn keel_rows(lb: &str) -> usize {
    let cond = json!([["external_ids", "includes", ["map", [["keel:lb_id", lb]]]]]);
    nb_select("Port_Group", cond.clone()).len() + nb_select("Address_Set", cond).len()
}

/// Removes Keel's rows of the LB if the test stopped before its own checks did.
struct RowsGuard(String);

impl Drop for RowsGuard {
    fn drop(&mut self) {
        let cond = json!([[
            "external_ids",
            "includes",
            ["map", [["keel:lb_id", self.0]]]
        ]]);
        common::transact(
            &env("STACK_OVN_NB"),
            &json!(["OVN_Northbound",
                {"op": "delete", "table": "Port_Group", "where": cond},
                {"op": "delete", "table": "Address_Set", "where": cond}]),
        );
    }
}

fn pct(v: &mut [Duration], p: f64) -> u128 {
    v.sort();
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[i].as_millis()
}

#[test]
fn allowed_cidrs_same_subnet_routed_fip_and_changes() {
    let tag = common::tag();
    let t4 = &tag[..4];
    dp(&["ext-net"]);
    let net = NeutronNet::create(&format!("ci-{tag}"), &[]);
    let routed = RoutedNet::create(&format!("keel-e2e-ci-{tag}-b"), &net.router);
    let name = |role: &str| format!("{role}{t4}");
    let [member, a, b, r] = vms([
        (name("m"), &net.net),
        (name("a"), &net.net),
        (name("b"), &net.net),
        (name("r"), &routed.net),
    ]);
    member.serve("tcp", 8080);

    let keel = Keel::start(Backend::Sqlite);
    // the floating IP reaches Keel's rows through the agent's event: this Keel must be it
    common::monitors::assert_agent_active(&keel);
    let token = demo_token();
    let lb = keel.create_lb(&token, &format!("ci-{tag}"), &net.subnet);
    let lb_id = lb["id"].as_str().unwrap().to_string();
    let _rows = LbGuard(lb_id.clone());
    let _ours = RowsGuard(lb_id.clone());
    let vip = lb["vip_address"].as_str().unwrap().to_string();
    let id = |v: Value| v["id"].as_str().unwrap().to_string();
    let only_a = vec![format!("{}/32", a.ip)];
    // bad lists: Octavia's 400 texts, no listener stored, no row written
    for (bad, text) in [
        (
            json!(["10.0.0.0/33"]),
            "Value should be IPv4 or IPv6 CIDR format",
        ),
        (json!(["x"]), "Value should be IPv4 or IPv6 CIDR format"),
        (
            json!(["2001:db8::/32"]),
            "CIDR 2001:db8::/32 IP version incompatible with all VIPs",
        ),
    ] {
        let (code, out) = keel.api(
            "POST",
            "/v2/lbaas/listeners",
            &token,
            Some(
                &json!({"listener": {"loadbalancer_id": lb_id, "protocol": "TCP",
                "protocol_port": 80, "allowed_cidrs": bad}}),
            ),
        );
        assert_eq!(code, 400, "{bad}: {out}");
        assert!(
            out["faultstring"]
                .as_str()
                .unwrap_or_default()
                .contains(text),
            "{bad}: {out}"
        );
    }
    let (_, got) = keel.api(
        "GET",
        &format!("/v2/lbaas/listeners?loadbalancer_id={lb_id}"),
        &token,
        None,
    );
    assert_eq!(got["listeners"], json!([]), "{got}");
    assert_eq!(keel_rows(&lb_id), 0);
    let listener = id(keel.create(
        &token,
        &lb_id,
        "/v2/lbaas/listeners",
        json!({"listener": {"loadbalancer_id": lb_id, "protocol": "TCP", "protocol_port": 80,
            "allowed_cidrs": only_a}}),
    ));
    let pool = id(keel.create(
        &token,
        &lb_id,
        "/v2/lbaas/pools",
        json!({"pool": {"listener_id": listener, "protocol": "TCP",
            "lb_algorithm": "SOURCE_IP_PORT"}}),
    ));
    keel.create(
        &token,
        &lb_id,
        &format!("/v2/lbaas/pools/{pool}/members"),
        member_body(&member, 8080, &net.subnet),
    );
    assert_eq!(
        keel_rows(&lb_id),
        3,
        "a port group and the v4 allow/VIP sets"
    );

    // same subnet and routed: only the listed client
    expect(
        "a served; b and the routed r refused",
        &[(&a, &vip, true), (&b, &vip, false), (&r, &vip, false)],
    );

    // through the floating IP: the external client is not listed
    let start = Instant::now();
    let (fip, _fip) = floating_ip(
        &net.router,
        lb["vip_port_id"].as_str().unwrap(),
        &token,
        &lb_id,
        start,
    );
    let ext = Vm {
        name: "ext".into(),
        ip: "172.24.4.2".into(),
        ips: vec!["172.24.4.2".into()],
        keep: true,
    };
    let mut both = only_a.clone();
    both.push(format!("{}/32", ext.ip));
    // the FIP reached Keel's rows (the agent's FIP event): the external client is refused
    // while listed ones are served through the VIP, then listed, it is served through the FIP
    expect(
        "ext refused through the FIP",
        &[(&ext, &fip, false), (&a, &vip, true)],
    );
    let d = change(&keel, &token, &lb_id, &listener, &both, (&ext, &fip, true));
    println!(
        "CIDRS list change → external client served through the FIP: {} ms",
        d.as_millis()
    );
    // the routed network by its CIDR
    let mut routed_list = both.clone();
    routed_list.push("10.1.0.0/24".into());
    let d = change(
        &keel,
        &token,
        &lb_id,
        &listener,
        &routed_list,
        (&r, &vip, true),
    );
    println!(
        "CIDRS list change → routed client served: {} ms",
        d.as_millis()
    );
    expect(
        "routed r and ext served, b still refused",
        &[
            (&r, &vip, true),
            (&ext, &fip, true),
            (&b, &vip, false),
            (&a, &vip, true),
        ],
    );

    // b in and out: the time from the PUT to the data plane following it
    let mut with_b = routed_list.clone();
    with_b.push(format!("{}/32", b.ip));
    let (mut opened, mut closed) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        opened.push(change(
            &keel,
            &token,
            &lb_id,
            &listener,
            &with_b,
            (&b, &vip, true),
        ));
        closed.push(change(
            &keel,
            &token,
            &lb_id,
            &listener,
            &routed_list,
            (&b, &vip, false),
        ));
    }
    println!(
        "CIDRS PUT → client added served: p50 {} ms, p95 {} ms ({:?}); PUT → client removed refused: p50 {} ms, p95 {} ms ({:?})",
        pct(&mut opened, 0.5),
        pct(&mut opened, 0.95),
        opened.iter().map(Duration::as_millis).collect::<Vec<_>>(),
        pct(&mut closed, 0.5),
        pct(&mut closed, 0.95),
        closed.iter().map(Duration::as_millis).collect::<Vec<_>>(),
    );
    expect(
        "a, r, ext served; b refused",
        &[
            (&a, &vip, true),
            (&r, &vip, true),
            (&ext, &fip, true),
            (&b, &vip, false),
        ],
    );

    // `keel ovn-db-sync`: in sync, nothing; a damaged allow set is reported by --dry-run (and
    // left), then repaired, and b is refused again
    let sync = |extra: &[&str]| {
        let out = Command::new(common::keel_bin())
            .arg("--config-file")
            .arg(&keel.conf)
            .args(["ovn-db-sync", "--lb-id", &lb_id])
            .args(extra)
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).to_string(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let (ok, out, err) = sync(&[]);
    assert!(ok && out.is_empty(), "in sync: {out}{err}");
    let allow = format!("keel_{}_allow4", listener.replace('-', "_"));
    common::transact(
        &env("STACK_OVN_NB"),
        &json!(["OVN_Northbound", {"op": "update", "table": "Address_Set",
            "where": [["name", "==", allow]], "row": {"addresses": ["set", ["10.0.0.0/24"]]}}]),
    );
    expect("the damaged set lets b in", &[(&b, &vip, true)]);
    let (ok, out, err) = sync(&["--dry-run"]);
    assert!(
        ok && out.contains(&format!(
            "fix {lb_id}: listener {listener}: allowed_cidrs address sets"
        )),
        "dry run: {out}{err}"
    );
    expect("a dry run leaves the set", &[(&b, &vip, true)]);
    let (ok, out, err) = sync(&[]);
    assert!(ok && out.contains("made anew"), "repair: {out}{err}");
    expect(
        "repaired: b refused, a served",
        &[(&b, &vip, false), (&a, &vip, true)],
    );
    let (ok, out, err) = sync(&[]);
    assert!(ok && out.is_empty(), "in sync after the repair: {out}{err}");

    // an empty list: everyone, and no row of Keel's
    change(&keel, &token, &lb_id, &listener, &[], (&b, &vip, true));
    assert_eq!(keel_rows(&lb_id), 0);
    expect(
        "everyone served",
        &[(&a, &vip, true), (&b, &vip, true), (&r, &vip, true)],
    );

    // deleting the listener, then the LB, removes the rows
    change(&keel, &token, &lb_id, &listener, &only_a, (&b, &vip, false));
    assert_eq!(keel_rows(&lb_id), 3);
    let (code, body) = keel.api("DELETE", &format!("/v2/lbaas/pools/{pool}"), &token, None);
    assert_eq!(code, 204, "{body}");
    keel.wait_lb_active(&token, &lb_id);
    let (code, body) = keel.api(
        "DELETE",
        &format!("/v2/lbaas/listeners/{listener}"),
        &token,
        None,
    );
    assert_eq!(code, 204, "{body}");
    keel.wait_lb_active(&token, &lb_id);
    assert_eq!(keel_rows(&lb_id), 0, "the listener's rows after its delete");
    let second = id(keel.create(
        &token,
        &lb_id,
        "/v2/lbaas/listeners",
        json!({"listener": {"loadbalancer_id": lb_id, "protocol": "TCP", "protocol_port": 81,
            "allowed_cidrs": only_a}}),
    ));
    assert_eq!(keel_rows(&lb_id), 3);
    // `keel ovn-remove-keel-objects`: --dry-run lists the rows and leaves them; then removes them
    let remove = |extra: &[&str]| {
        let out = Command::new(common::keel_bin())
            .arg("--config-file")
            .arg(&keel.conf)
            .arg("ovn-remove-keel-objects")
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let group = format!("Port_Group keel_{}", second.replace('-', "_"));
    let listed = remove(&["--dry-run"]);
    assert!(
        listed.contains(&format!("would remove {group}")),
        "{listed}"
    );
    assert_eq!(keel_rows(&lb_id), 3);
    let removed = remove(&[]);
    assert!(removed.contains(&format!("removed {group}")), "{removed}");
    assert_eq!(keel_rows(&lb_id), 0);
    // a third listener's rows go with the LB's cascade delete
    keel.create(
        &token,
        &lb_id,
        "/v2/lbaas/listeners",
        json!({"listener": {"loadbalancer_id": lb_id, "protocol": "TCP", "protocol_port": 82,
            "allowed_cidrs": only_a}}),
    );
    assert_eq!(keel_rows(&lb_id), 3);
    keel.delete_lb_cascade(&token, &lb_id);
    assert_eq!(
        keel_rows(&lb_id),
        0,
        "the LB's rows after its cascade delete"
    );
}

/// A single-call create (`POST /v2/lbaas/loadbalancers` with its listeners) makes the rows of
/// each listener with a list in the graph's own steps, none for one without; the LB's cascade
/// delete removes them. NB rows only (no data plane).
#[test]
fn allowed_cidrs_in_a_single_call_create() {
    let tag = common::tag();
    let net = NeutronNet::create(&format!("cg-{tag}"), &[]);
    let keel = Keel::start(Backend::Sqlite);
    let token = demo_token();
    let (code, body) = keel.api(
        "POST",
        "/v2/lbaas/loadbalancers",
        &token,
        Some(&json!({"loadbalancer": {"name": format!("cg-{tag}"), "vip_subnet_id": net.subnet,
            "provider": "ovn", "listeners": [
                {"protocol": "TCP", "protocol_port": 80, "allowed_cidrs": ["192.0.2.0/24", "198.51.100.7"]},
                {"protocol": "UDP", "protocol_port": 53}]}})),
    );
    assert_eq!(code, 201, "{body}");
    let lb_id = body["loadbalancer"]["id"].as_str().unwrap().to_string();
    let _rows = LbGuard(lb_id.clone());
    let _ours = RowsGuard(lb_id.clone());
    keel.wait_lb_active(&token, &lb_id);
    let tcp = body["loadbalancer"]["listeners"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["protocol"] == "TCP")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let cond = json!([["external_ids", "includes", ["map", [["keel:lb_id", lb_id]]]]]);
    let groups = nb_select("Port_Group", cond.clone());
    assert_eq!(groups.len(), 1, "{groups:?}");
    assert_eq!(groups[0]["name"], format!("keel_{}", tcp.replace('-', "_")));
    let allow = nb_select("Address_Set", cond)
        .into_iter()
        .find(|s| s["name"].as_str().is_some_and(|n| n.ends_with("_allow4")))
        .unwrap();
    assert_eq!(
        allow["addresses"],
        json!(["set", ["192.0.2.0/24", "198.51.100.7/32"]])
    );
    keel.delete_lb_cascade(&token, &lb_id);
    assert_eq!(keel_rows(&lb_id), 0);
}

/// The rows survive Neutron's own repair: `neutron-ovn-db-sync-util --sync_mode repair`
/// (the stack venv's, Neutron's NB sync plugin: the `octavia_ovn_sync` plugin
/// ovn-octavia-provider installs needs Octavia's driver-agent socket, which a Keel cloud does
/// not have) leaves a listener's port group, its ACLs and address sets exactly as they were
/// (same rows, same anchor port: here the VIP port, the network has no router).
#[test]
fn allowed_cidrs_rows_survive_neutrons_own_repair() {
    let tag = common::tag();
    let net = NeutronNet::create(&format!("cn-{tag}"), &[]);
    let keel = Keel::start(Backend::Sqlite);
    let token = demo_token();
    let (code, body) = keel.api(
        "POST",
        "/v2/lbaas/loadbalancers",
        &token,
        Some(
            &json!({"loadbalancer": {"name": format!("cn-{tag}"), "vip_subnet_id": net.subnet,
            "provider": "ovn", "listeners": [
                {"protocol": "TCP", "protocol_port": 80, "allowed_cidrs": ["192.0.2.0/24"]}]}}),
        ),
    );
    assert_eq!(code, 201, "{body}");
    let lb_id = body["loadbalancer"]["id"].as_str().unwrap().to_string();
    let _rows = LbGuard(lb_id.clone());
    let _ours = RowsGuard(lb_id.clone());
    keel.wait_lb_active(&token, &lb_id);
    let rows = || {
        let cond = json!([["external_ids", "includes", ["map", [["keel:lb_id", lb_id]]]]]);
        let mut all = nb_select("Port_Group", cond.clone());
        let acls: Vec<Value> = all
            .iter()
            .flat_map(|g| common::uuids(&g["acls"]))
            .flat_map(|u| nb_select("ACL", json!([["_uuid", "==", ["uuid", u]]])))
            .collect();
        all.extend(acls);
        all.extend(nb_select("Address_Set", cond));
        for r in &mut all {
            r.as_object_mut().unwrap().remove("_version");
        }
        all
    };
    let before = rows();
    assert_eq!(
        before.len(),
        1 + 2 + 2,
        "a group, two ACLs, two sets: {before:?}"
    );
    // the stack venv's (ci/stack/env.sh puts it first on PATH), Neutron's own configuration
    let etc = env("STACK_ETC");
    let out = Command::new("neutron-ovn-db-sync-util")
        .arg("--config-file")
        .arg(format!("{etc}/neutron/neutron.conf"))
        .arg("--config-file")
        .arg(format!("{etc}/neutron/ml2_conf.ini"))
        .args([
            "--ovn-neutron_sync_mode",
            "repair",
            "--sync_plugin",
            "neutron_nb_sync",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "neutron-ovn-db-sync-util: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(rows(), before, "Neutron's repair changed Keel's rows");
    keel.delete_lb_cascade(&token, &lb_id);
    assert_eq!(keel_rows(&lb_id), 0);
}

/// A UDP listener with a list: the listed client's datagrams are answered, the other's get no
/// answer (the match is on `udp.dst`); an empty list answers both.
#[test]
fn allowed_cidrs_udp() {
    let tag = common::tag();
    let t4 = &tag[..4];
    let net = NeutronNet::create(&format!("cu-{tag}"), &[]);
    let name = |role: &str| format!("{role}{t4}");
    let [member, a, b] = vms([
        (name("um"), &net.net),
        (name("ua"), &net.net),
        (name("ub"), &net.net),
    ]);
    member.serve("udp", 5353);
    let keel = Keel::start(Backend::Sqlite);
    let token = demo_token();
    let lb = keel.create_lb(&token, &format!("cu-{tag}"), &net.subnet);
    let lb_id = lb["id"].as_str().unwrap().to_string();
    let _rows = LbGuard(lb_id.clone());
    let _ours = RowsGuard(lb_id.clone());
    let vip = lb["vip_address"].as_str().unwrap().to_string();
    let id = |v: Value| v["id"].as_str().unwrap().to_string();
    let listener = id(keel.create(
        &token,
        &lb_id,
        "/v2/lbaas/listeners",
        json!({"listener": {"loadbalancer_id": lb_id, "protocol": "UDP", "protocol_port": 53,
            "allowed_cidrs": [format!("{}/32", a.ip)]}}),
    ));
    let pool = id(keel.create(
        &token,
        &lb_id,
        "/v2/lbaas/pools",
        json!({"pool": {"listener_id": listener, "protocol": "UDP",
            "lb_algorithm": "SOURCE_IP_PORT"}}),
    ));
    keel.create(
        &token,
        &lb_id,
        &format!("/v2/lbaas/pools/{pool}/members"),
        member_body(&member, 5353, &net.subnet),
    );
    let udp = |vm: &Vm| -> Option<bool> {
        let out = dp(&["probe", &vm.name, "udp", &vip, "53", "3", "20", "500"]);
        let ok = out.lines().filter(|l| l.starts_with("ok ")).count();
        let fail = out.lines().filter(|l| l.starts_with("fail ")).count();
        match (ok, fail) {
            (3, 0) => Some(true),
            (0, 3) => Some(false),
            _ => None,
        }
    };
    let expect_udp = |what: &str, want: &[(&Vm, bool)]| {
        wait_for(what, Duration::from_secs(30), || {
            let seen: Vec<_> = want
                .iter()
                .map(|(vm, _)| (vm.name.clone(), udp(vm)))
                .collect();
            if want
                .iter()
                .zip(&seen)
                .all(|((_, w), (_, g))| *g == Some(*w))
            {
                Ok(())
            } else {
                Err(format!("{seen:?}"))
            }
        });
    };
    expect_udp("UDP: a answered, b not", &[(&a, true), (&b, false)]);
    let (code, out) = keel.api(
        "PUT",
        &format!("/v2/lbaas/listeners/{listener}"),
        &token,
        Some(&json!({"listener": {"allowed_cidrs": []}})),
    );
    assert!(code == 200 || code == 202, "{code} {out}");
    keel.wait_lb_active(&token, &lb_id);
    expect_udp("UDP, empty list: both answered", &[(&a, true), (&b, true)]);
    assert_eq!(keel_rows(&lb_id), 0);
}

/// A second router with an interface (a port Neutron addresses) on `subnet`; the interface
/// removed and the router deleted on drop (as admin), unless the test removed it.
struct SecondRouter {
    router: String,
    port: String,
}

impl SecondRouter {
    fn create(name: &str, net: &str, subnet: &str) -> SecondRouter {
        let t = demo_token();
        let (c, b) = common::neutron(
            "POST",
            "/routers",
            &t,
            Some(&json!({"router": {"name": name}})),
        );
        assert_eq!(c, 201, "{b}");
        let router = b["router"]["id"].as_str().unwrap().to_string();
        let (c, b) = common::neutron(
            "POST",
            "/ports",
            &t,
            Some(&json!({"port": {"name": name, "network_id": net,
                "fixed_ips": [{"subnet_id": subnet}]}})),
        );
        assert_eq!(c, 201, "{b}");
        let port = b["port"]["id"].as_str().unwrap().to_string();
        let me = SecondRouter { router, port };
        let (c, b) = common::neutron(
            "PUT",
            &format!("/routers/{}/add_router_interface", me.router),
            &t,
            Some(&json!({"port_id": me.port})),
        );
        assert_eq!(c, 200, "{b}");
        me
    }
}

impl Drop for SecondRouter {
    fn drop(&mut self) {
        let t = common::admin_token();
        common::neutron(
            "PUT",
            &format!("/routers/{}/remove_router_interface", self.router),
            &t,
            Some(&json!({"port_id": self.port})),
        );
        common::neutron("DELETE", &format!("/ports/{}", self.port), &t, None);
        common::neutron("DELETE", &format!("/routers/{}", self.router), &t, None);
    }
}

/// The listener's anchors (`Port_Group.ports`, uuids sorted).
fn anchors(listener: &str) -> Vec<String> {
    let name = format!("keel_{}", listener.replace('-', "_"));
    let groups = nb_select("Port_Group", json!([["name", "==", name]]));
    assert_eq!(groups.len(), 1, "{groups:?}");
    let mut u = common::uuids(&groups[0]["ports"]);
    u.sort();
    u
}

/// The router (Neutron id) of the router interface switch port `uuid`.
fn router_of(uuid: &str) -> String {
    let p = nb_select(
        "Logical_Switch_Port",
        json!([["_uuid", "==", ["uuid", uuid]]]),
    );
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!(p[0]["type"], "router", "{p:?}");
    p[0]["external_ids"][1]
        .as_array()
        .unwrap()
        .iter()
        .find(|kv| kv[0] == "neutron:device_id")
        .and_then(|kv| kv[1].as_str())
        .unwrap_or_else(|| panic!("no neutron:device_id: {p:?}"))
        .to_string()
}

/// Re-anchoring by the agent: the VIP's network has two routers, each with the load balancer
/// (the second one's interface added after the LB: the agent's router-interface event);
/// the listener's port group is anchored on one of their switch ports. Neutron removes that
/// router's interface (the switch port goes, OVSDB drops it from the group's weak `ports`)
/// and the group is anchored again on the other router's port, with no API call and no sync:
/// the listed client is served and the unlisted one refused through the remaining router
/// (without an anchor on the switch nothing filters there: the unlisted client would be
/// served). With the network's only router interface removed, the group is anchored on the
/// VIP's own switch port (its clients then reach no VIP: nobody answers ARP for it, a
/// property of OVN load balancers without a router, not of the list).
#[test]
fn allowed_cidrs_reanchored_when_the_router_interface_goes() {
    let tag = common::tag();
    let t4 = &tag[..4];
    let net = NeutronNet::create(&format!("ca-{tag}"), &[]);
    let name = |role: &str| format!("{role}{t4}");
    let [member, a, b] = vms([
        (name("am"), &net.net),
        (name("aa"), &net.net),
        (name("ab"), &net.net),
    ]);
    member.serve("tcp", 8080);
    let keel = Keel::start(Backend::Sqlite);
    // the router interface and the anchor are followed by the agent: this Keel must be it
    common::monitors::assert_agent_active(&keel);
    let token = demo_token();
    let lb = keel.create_lb(&token, &format!("ca-{tag}"), &net.subnet);
    let lb_id = lb["id"].as_str().unwrap().to_string();
    let _rows = LbGuard(lb_id.clone());
    let _ours = RowsGuard(lb_id.clone());
    let vip = lb["vip_address"].as_str().unwrap().to_string();
    let vip_port = lb["vip_port_id"].as_str().unwrap().to_string();
    let listener = listener_with_members(
        &keel,
        &token,
        &lb_id,
        &[format!("{}/32", a.ip)],
        &[(&member.ip, &net.subnet)],
    );
    let first = anchors(&listener);
    assert_eq!(first.len(), 1, "one anchor: {first:?}");
    assert_eq!(
        router_of(&first[0]),
        net.router,
        "on the router's interface"
    );
    expect(
        "one router: a served, b refused",
        &[(&a, &vip, true), (&b, &vip, false)],
    );

    let second = SecondRouter::create(&format!("keel-e2e-ca-{tag}-2"), &net.net, &net.subnet);
    wait_for(
        "the LB on the second router (agent)",
        Duration::from_secs(30),
        || {
            let lr = nb_select(
                "Logical_Router",
                json!([["name", "==", format!("neutron-{}", second.router)]]),
            );
            match lr.first().map(|r| common::uuids(&r["load_balancer"]).len()) {
                Some(n) if n > 0 => Ok(()),
                other => Err(format!("{other:?}")),
            }
        },
    );
    // the interface of the router the group is anchored on goes
    let anchor = anchors(&listener)[0].clone();
    let gone = router_of(&anchor);
    let (code, body) = common::neutron(
        "PUT",
        &format!("/routers/{gone}/remove_router_interface"),
        &common::admin_token(),
        Some(&json!({"subnet_id": net.subnet})),
    );
    assert_eq!(code, 200, "remove_router_interface: {body}");
    let t0 = Instant::now();
    let moved = wait_for(
        "the group anchored on the other router's port",
        Duration::from_secs(30),
        || match anchors(&listener).as_slice() {
            [one] if *one != anchor && router_of(one) != gone => Ok(one.clone()),
            other => Err(format!("anchors {other:?} (was {anchor} of router {gone})")),
        },
    );
    println!(
        "CIDRS router interface removed → group anchored on the other router's port: {} ms",
        t0.elapsed().as_millis()
    );
    // the agent's own event did it (not only a router-interface event's refresh)
    assert!(
        keel.log()
            .lines()
            .any(|l| l.contains("allowed_cidrs anchor lost") && l.contains(&lb_id)),
        "no re-anchoring by the agent in Keel's log"
    );
    // the clients' neighbour entries for the VIP may name the removed router's MAC
    for vm in [&a, &b] {
        dp(&["exec", &vm.name, "ip", "neigh", "flush", "all"]);
    }
    expect(
        "re-anchored on the other router: a served, b refused",
        &[(&a, &vip, true), (&b, &vip, false)],
    );

    // the network's last router interface: the VIP port anchors
    let last = router_of(&moved);
    let (code, body) = common::neutron(
        "PUT",
        &format!("/routers/{last}/remove_router_interface"),
        &common::admin_token(),
        Some(&json!({"subnet_id": net.subnet})),
    );
    assert_eq!(code, 200, "remove_router_interface: {body}");
    let vip_lsp = nb_select("Logical_Switch_Port", json!([["name", "==", vip_port]]));
    let vip_lsp = vip_lsp[0]["_uuid"][1].as_str().unwrap().to_string();
    wait_for(
        "the group anchored on the VIP port",
        Duration::from_secs(30),
        || {
            let now = anchors(&listener);
            if now == [vip_lsp.clone()] {
                Ok(())
            } else {
                Err(format!("anchors {now:?}, want the VIP port {vip_lsp}"))
            }
        },
    );
    keel.delete_lb_cascade(&token, &lb_id);
    assert_eq!(keel_rows(&lb_id), 0);
}

/// A TCP listener on port 80 made with `list`, its pool and one member per (address,
/// subnet) on port 8080; returns the listener id.
fn listener_with_members(
    keel: &Keel,
    token: &str,
    lb_id: &str,
    list: &[String],
    members: &[(&str, &str)],
) -> String {
    let id = |v: Value| v["id"].as_str().unwrap().to_string();
    let listener = id(keel.create(
        token,
        lb_id,
        "/v2/lbaas/listeners",
        json!({"listener": {"loadbalancer_id": lb_id, "protocol": "TCP", "protocol_port": 80,
            "allowed_cidrs": list}}),
    ));
    let pool = id(keel.create(
        token,
        lb_id,
        "/v2/lbaas/pools",
        json!({"pool": {"listener_id": listener, "protocol": "TCP",
            "lb_algorithm": "SOURCE_IP_PORT"}}),
    ));
    for (address, subnet) in members {
        keel.create(
            token,
            lb_id,
            &format!("/v2/lbaas/pools/{pool}/members"),
            json!({"member": {"address": address, "protocol_port": 8080, "subnet_id": subnet}}),
        );
    }
    listener
}

/// A subnet of `net` (as `demo`); its id.
fn subnet(net: &str, name: &str, version: u8, cidr: &str) -> String {
    let (c, b) = common::neutron(
        "POST",
        "/subnets",
        &demo_token(),
        Some(
            &json!({"subnet": {"name": name, "network_id": net, "ip_version": version,
            "cidr": cidr}}),
        ),
    );
    assert_eq!(c, 201, "{b}");
    b["subnet"]["id"].as_str().unwrap().to_string()
}

/// An additional VIP and IPv6 clients: a load balancer with its VIP on 10.0.0.0/24 and two
/// additional VIPs on the same network, one on a second IPv4 subnet (10.2.0.0/24), one IPv6
/// (fd00:9::/64); one listener whose list names client `a` by its IPv4 and its IPv6 address.
/// `a` is served on all three addresses, `b` (same subnets, not listed) refused on all three;
/// the list changed to `b`'s two addresses turns both round.
#[test]
fn allowed_cidrs_additional_vip_and_ipv6() {
    let tag = common::tag();
    let t4 = &tag[..4];
    let net = NeutronNet::create(&format!("cv-{tag}"), &[]);
    let token = demo_token();
    let v6 = subnet(&net.net, &format!("keel-e2e-cv-{tag}-6"), 6, "fd00:9::/64");
    let (c, b) = common::neutron(
        "PUT",
        &format!("/routers/{}/add_router_interface", net.router),
        &token,
        Some(&json!({"subnet_id": v6})),
    );
    assert_eq!(c, 200, "{b}");
    let name = |role: &str| format!("{role}{t4}");
    // made before the second IPv4 subnet: each VM has one address on 10.0.0.0/24, one IPv6
    let [member, a, b] = vms([
        (name("vm"), &net.net),
        (name("va"), &net.net),
        (name("vb"), &net.net),
    ]);
    member.serve("tcp", 8080);
    let second = subnet(&net.net, &format!("keel-e2e-cv-{tag}-b"), 4, "10.2.0.0/24");
    let keel = Keel::start(Backend::Sqlite);
    let (code, body) = keel.api(
        "POST",
        "/v2/lbaas/loadbalancers",
        &token,
        Some(
            &json!({"loadbalancer": {"name": format!("cv-{tag}"), "vip_subnet_id": net.subnet,
            "additional_vips": [{"subnet_id": second}, {"subnet_id": v6}], "provider": "ovn"}}),
        ),
    );
    assert_eq!(code, 201, "{body}");
    let lb_id = body["loadbalancer"]["id"].as_str().unwrap().to_string();
    let _rows = LbGuard(lb_id.clone());
    let _ours = RowsGuard(lb_id.clone());
    let lb = keel.wait_lb_active(&token, &lb_id);
    let vip = lb["vip_address"].as_str().unwrap().to_string();
    let extra: Vec<String> = lb["additional_vips"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["ip_address"].as_str().unwrap().to_string())
        .collect();
    let vip2 = extra
        .iter()
        .find(|a| a.starts_with("10.2.0."))
        .unwrap()
        .clone();
    let vip6 = extra.iter().find(|a| a.contains(':')).unwrap().clone();
    let list = |vm: &Vm| vec![format!("{}/32", vm.ip), format!("{}/128", vm.ip6())];
    let listener = listener_with_members(
        &keel,
        &token,
        &lb_id,
        &list(&a),
        &[(&member.ip, &net.subnet), (&member.ip6(), &v6)],
    );
    assert_eq!(
        keel_rows(&lb_id),
        5,
        "a port group, the allow and VIP sets of both families"
    );
    let vip4_set = nb_select(
        "Address_Set",
        json!([[
            "name",
            "==",
            format!("keel_{}_vip4", listener.replace('-', "_"))
        ]]),
    );
    let mut want = vec![vip.clone(), vip2.clone()];
    want.sort();
    assert_eq!(
        vip4_set[0]["addresses"],
        json!(["set", want]),
        "{vip4_set:?}"
    );
    expect(
        "a served on the VIP, the additional IPv4 VIP and the IPv6 VIP; b refused on all three",
        &[
            (&a, &vip, true),
            (&a, &vip2, true),
            (&a, &vip6, true),
            (&b, &vip, false),
            (&b, &vip2, false),
            (&b, &vip6, false),
        ],
    );
    let d = change(
        &keel,
        &token,
        &lb_id,
        &listener,
        &list(&b),
        (&b, &vip6, true),
    );
    println!(
        "CIDRS list change → IPv6 client served on the IPv6 VIP: {} ms",
        d.as_millis()
    );
    expect(
        "the list turned round: b served on all three, a refused on all three",
        &[
            (&b, &vip, true),
            (&b, &vip2, true),
            (&b, &vip6, true),
            (&a, &vip, false),
            (&a, &vip2, false),
            (&a, &vip6, false),
        ],
    );
    keel.delete_lb_cascade(&token, &lb_id);
    assert_eq!(keel_rows(&lb_id), 0);
}

/// A client's established connection when its CIDR leaves the list (measured, README
/// "allowed_cidrs"): `a` holds ONE connection to the listener (an echo member, a line every
/// 100 ms), the list is changed to name only `b`; new connections of `a` are refused, and the
/// held connection goes on: every one of its next 20 lines is answered. Its packets pass
/// `ls_in_pre_stateful`'s `ct_lb_mark`, which gives an established connection of the load
/// balancer its member's address before `ls_in_acl`, so the `drop` ACL (matching the VIP)
/// does not see them (OVN 23.03, the switch's logical flows). `a` listed again: new
/// connections served, the held one still answered.
#[test]
fn allowed_cidrs_established_connection_of_a_removed_client() {
    let tag = common::tag();
    let t4 = &tag[..4];
    let net = NeutronNet::create(&format!("ce-{tag}"), &[]);
    let name = |role: &str| format!("{role}{t4}");
    let [member, a, b] = vms([
        (name("em"), &net.net),
        (name("ea"), &net.net),
        (name("eb"), &net.net),
    ]);
    member.serve("echo", 8080);
    let keel = Keel::start(Backend::Sqlite);
    let token = demo_token();
    let lb = keel.create_lb(&token, &format!("ce-{tag}"), &net.subnet);
    let lb_id = lb["id"].as_str().unwrap().to_string();
    let _rows = LbGuard(lb_id.clone());
    let _ours = RowsGuard(lb_id.clone());
    let vip = lb["vip_address"].as_str().unwrap().to_string();
    let only = |vm: &Vm| vec![format!("{}/32", vm.ip)];
    let listener = listener_with_members(
        &keel,
        &token,
        &lb_id,
        &only(&a),
        &[(&member.ip, &net.subnet)],
    );
    expect(
        "a served, b refused",
        &[(&a, &vip, true), (&b, &vip, false)],
    );
    let held = a.start_hold(&vip, 80, 100, 1000);
    let first = wait_lines(&held, 5);
    assert!(
        first.iter().all(Option::is_some),
        "the held connection answers: {first:?}"
    );
    let before = held.snapshot().total();
    let t0 = Instant::now();
    let refused = change(
        &keel,
        &token,
        &lb_id,
        &listener,
        &only(&b),
        (&a, &vip, false),
    );
    let at_refusal = held.snapshot().total();
    // 20 more lines (2 s at one each 100 ms, a failed one waits its 1 s timeout)
    let after = wait_lines(&held, at_refusal + 20);
    let after_ok = after[at_refusal..].iter().filter(|l| l.is_some()).count();
    // a listed again: new connections served; what the held one does then, 20 lines more
    let back = change(
        &keel,
        &token,
        &lb_id,
        &listener,
        &only(&a),
        (&a, &vip, true),
    );
    let at_back = held.snapshot().total();
    let resumed = wait_lines(&held, at_back + 20);
    let seen = held.stop();
    let resumed_ok = resumed[at_back..].iter().filter(|l| l.is_some()).count();
    println!(
        "CIDRS established connection, client listed again: new connections served {} ms after the PUT; \
         the held connection then {resumed_ok}/20 lines answered",
        back.as_millis()
    );
    println!(
        "CIDRS established connection of a removed client: new connections refused {} ms after the PUT; \
         the held connection's lines before the PUT {before}, by the refusal {at_refusal} ({} answered), \
         after it {}/{} answered (failures {:?}; {} ms)",
        refused.as_millis(),
        seen.seq[..at_refusal]
            .iter()
            .filter(|l| l.is_some())
            .count(),
        after_ok,
        after.len() - at_refusal,
        seen.failures,
        t0.elapsed().as_millis()
    );
    assert_eq!(
        after_ok,
        after.len() - at_refusal,
        "the held connection of a removed client goes on once new ones are refused: {:?}",
        seen.seq
    );
    assert_eq!(resumed_ok, 20, "{:?}", seen.seq);
    keel.delete_lb_cascade(&token, &lb_id);
    assert_eq!(keel_rows(&lb_id), 0);
}

/// Waits (60 s) until `lp` has `n` lines; returns them (answered: `Some`).
fn wait_lines(lp: &common::dataplane::Loop, n: usize) -> Vec<Option<String>> {
    wait_for(&format!("{n} lines"), Duration::from_secs(60), || {
        let t = lp.snapshot();
        if t.total() >= n {
            Ok(t.seq)
        } else {
            Err(format!("{t:?}"))
        }
    })
}

/// Lists Octavia accepts as they are (no count limit; the request body's size is the only
/// bound: `[oslo_middleware] max_request_body_size`, 413 past it): `0.0.0.0/0` mixed with
/// single addresses is stored as given and lets everyone in; 4,000 CIDRs (~70 KB of body)
/// are stored and enforced (the listed client served, the other refused); a body past the
/// limit answers 413 and changes nothing.
#[test]
fn allowed_cidrs_catch_all_and_long_lists() {
    let tag = common::tag();
    let t4 = &tag[..4];
    let net = NeutronNet::create(&format!("cl-{tag}"), &[]);
    let name = |role: &str| format!("{role}{t4}");
    let [member, a, b] = vms([
        (name("lm"), &net.net),
        (name("la"), &net.net),
        (name("lb"), &net.net),
    ]);
    member.serve("tcp", 8080);
    let keel = Keel::start(Backend::Sqlite);
    let token = demo_token();
    let lb = keel.create_lb(&token, &format!("cl-{tag}"), &net.subnet);
    let lb_id = lb["id"].as_str().unwrap().to_string();
    let _rows = LbGuard(lb_id.clone());
    let _ours = RowsGuard(lb_id.clone());
    let vip = lb["vip_address"].as_str().unwrap().to_string();
    let catch_all = vec!["0.0.0.0/0".to_string(), format!("{}/32", a.ip)];
    let listener = listener_with_members(
        &keel,
        &token,
        &lb_id,
        &catch_all,
        &[(&member.ip, &net.subnet)],
    );
    let (_, got) = keel.api(
        "GET",
        &format!("/v2/lbaas/listeners/{listener}"),
        &token,
        None,
    );
    assert_eq!(
        stored(&got["listener"]["allowed_cidrs"]),
        sorted(&catch_all),
        "{got}"
    );
    expect(
        "0.0.0.0/0 with a listed address: everyone served",
        &[(&a, &vip, true), (&b, &vip, true)],
    );
    // 4,000 CIDRs outside the network, and a
    let mut long: Vec<String> = (0..3999)
        .map(|i| format!("198.18.{}.{}/32", i / 250, i % 250 + 1))
        .collect();
    long.push(format!("{}/32", a.ip));
    let d = change(&keel, &token, &lb_id, &listener, &long, (&b, &vip, false));
    println!(
        "CIDRS list of 4,000 CIDRs → unlisted client refused: {} ms",
        d.as_millis()
    );
    let allow = nb_select(
        "Address_Set",
        json!([[
            "name",
            "==",
            format!("keel_{}_allow4", listener.replace('-', "_"))
        ]]),
    );
    assert_eq!(
        allow[0]["addresses"][1].as_array().map(Vec::len),
        Some(4000)
    );
    expect(
        "4,000 CIDRs: a served, b refused",
        &[(&a, &vip, true), (&b, &vip, false)],
    );
    // past max_request_body_size: 413, the list as it was
    let huge: Vec<String> = (0..8000)
        .map(|i| format!("198.19.{}.{}/32", i / 250, i % 250 + 1))
        .collect();
    let (code, out) = keel.api(
        "PUT",
        &format!("/v2/lbaas/listeners/{listener}"),
        &token,
        Some(&json!({"listener": {"allowed_cidrs": huge}})),
    );
    assert_eq!(code, 413, "{out}");
    let (_, got) = keel.api(
        "GET",
        &format!("/v2/lbaas/listeners/{listener}"),
        &token,
        None,
    );
    assert_eq!(stored(&got["listener"]["allowed_cidrs"]).len(), 4000);
    keel.delete_lb_cascade(&token, &lb_id);
    assert_eq!(keel_rows(&lb_id), 0);
}
