//! Planner scenarios on an in-memory NB: each plan's operations are applied to the snapshot
//! the way ovsdb-server would (named uuids, waits, mutations, garbage collection of
//! health checks) by the crate's NB simulator ([`ovn_provider::sim`], the one `ovn-db-sync`
//! uses), and the resulting rows and reports are asserted.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;

use provider::{OperatingStatus as Op, ProvisioningStatus as Prov, StatusRecord};
use serde_json::json;

use ovn_provider::external_ids as ext;
use ovn_provider::hm::{self, HmReq};
use ovn_provider::lb::{self, LbCreate};
use ovn_provider::listener::{self, ListenerReq};
use ovn_provider::member::{self, MemberFacts, MemberReq};
use ovn_provider::nb::{LoadBalancerRow, NbSnapshot, Op as NbOp};
use ovn_provider::plan::{Plan, SubnetInfo};
use ovn_provider::pool::{self, PoolReq};
use ovn_provider::sim;

const NET: &str = "net1";
const SUBNET: &str = "sub1";
const VIP: &str = "10.0.0.5";

fn topology() -> NbSnapshot {
    let mut s = NbSnapshot::new(true);
    s.insert_json("Logical_Switch", "ls1", &json!({"name": "neutron-net1", "ports": ["set", [["uuid", "lsp-r"], ["uuid", "lsp-a"], ["uuid", "lsp-b"]]]}));
    s.insert_json(
        "Logical_Switch",
        "ls2",
        &json!({"name": "neutron-net2", "ports": ["set", []]}),
    );
    s.insert_json("Logical_Switch_Port", "lsp-r", &json!({"name": "pr", "type": "router",
        "options": ["map", [["router-port", "lrp-pr"]]],
        "external_ids": ["map", [["neutron:device_owner", "network:router_interface"], ["neutron:cidrs", "10.0.0.1/24"]]]}));
    s.insert_json(
        "Logical_Switch_Port",
        "lsp-a",
        &json!({"name": "port-a", "addresses": "fa:16:3e:00:00:0a 10.0.0.10"}),
    );
    s.insert_json(
        "Logical_Switch_Port",
        "lsp-b",
        &json!({"name": "port-b", "addresses": "fa:16:3e:00:00:0b 10.0.0.11"}),
    );
    s.insert_json(
        "Logical_Router",
        "lr1",
        &json!({"name": "neutron-r1", "ports": ["set", [["uuid", "lrp1"], ["uuid", "lrp2"]]]}),
    );
    s.insert_json(
        "Logical_Router_Port",
        "lrp1",
        &json!({"name": "lrp-pr", "networks": "10.0.0.1/24",
        "external_ids": ["map", [["neutron:network_name", "neutron-net1"]]]}),
    );
    s.insert_json(
        "Logical_Router_Port",
        "lrp2",
        &json!({"name": "lrp-p2", "networks": "10.1.0.1/24",
        "external_ids": ["map", [["neutron:network_name", "neutron-net2"]]]}),
    );
    s
}

static SEQ: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Apply operations as ovsdb-server would, with the crate's one NB simulator
/// ([`ovn_provider::sim`]: named uuids, waits, mutations, weak references, health-check
/// garbage collection); a refused transaction (a failed `wait`) panics.
fn apply(s: &mut NbSnapshot, ops: &[NbOp]) {
    let mut seq = SEQ.fetch_add(1000, std::sync::atomic::Ordering::Relaxed);
    sim::apply(s, ops, &mut seq).expect("the NB refuses the transaction");
}

macro_rules! run {
    ($s:expr, $plan:expr) => {{
        let plan: Plan = $plan;
        apply($s, &plan.ops);
        plan
    }};
}

fn rec(list: &[StatusRecord], id: &str) -> (Option<Prov>, Option<Op>) {
    let r = list
        .iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("no {id} in {list:?}"));
    (r.provisioning_status, r.operating_status)
}

fn subnet() -> SubnetInfo {
    SubnetInfo {
        id: SUBNET.into(),
        network_id: NET.into(),
        cidr: "10.0.0.0/24".into(),
    }
}

fn facts(with_hm: bool) -> MemberFacts {
    let mut f = MemberFacts::default();
    f.subnets.insert(SUBNET.into(), subnet());
    if with_hm {
        f.hm_source.insert(SUBNET.into(), "10.0.0.2".into());
    }
    f
}

fn create_lb(s: &mut NbSnapshot) {
    let req = LbCreate {
        id: "LB".into(),
        vip_address: VIP.into(),
        vip_port_id: "vport".into(),
        vip_subnet: subnet(),
        enabled: true,
        additional_vips: vec![],
        flavor: Default::default(),
    };
    let p = run!(s, lb::create(s, &req).unwrap());
    assert_eq!(
        rec(&p.report.loadbalancers, "LB"),
        (Some(Prov::Active), Some(Op::Online))
    );
}

fn listener_req() -> ListenerReq {
    ListenerReq {
        id: "L".into(),
        lb_id: "LB".into(),
        protocol: "TCP".into(),
        port: 80,
        default_pool_id: None,
        enabled: true,
        allowed_cidrs: None,
        previous_cidrs: vec![],
    }
}

fn pool_req() -> PoolReq {
    PoolReq {
        id: "P".into(),
        lb_id: "LB".into(),
        protocol: "TCP".into(),
        algorithm: Some("SOURCE_IP_PORT".into()),
        listener_id: Some("L".into()),
        enabled: true,
        session_persistence: None,
        clear_persistence: false,
    }
}

fn member(id: &str, ip: &str) -> MemberReq {
    MemberReq {
        id: id.into(),
        pool_id: "P".into(),
        address: ip.parse().unwrap(),
        port: 8080,
        subnet_id: SUBNET.into(),
        enabled: true,
        subnet: None,
    }
}

fn full(s: &mut NbSnapshot) {
    create_lb(s);
    run!(s, listener::create(s, &listener_req()).unwrap());
    run!(s, pool::create(s, &pool_req()).unwrap());
    run!(
        s,
        member::change(
            s,
            "P",
            &[member("m1", "10.0.0.10"), member("m2", "10.0.0.11")],
            &[],
            &[],
            &facts(false)
        )
        .unwrap()
    );
}

fn only_row(s: &NbSnapshot) -> LoadBalancerRow {
    let rows = s.lbs_named("LB");
    assert_eq!(rows.len(), 1, "{rows:?}");
    rows[0].clone()
}

#[test]
fn lb_create_row_and_attachments() {
    let mut s = topology();
    create_lb(&mut s);
    let row = only_row(&s);
    assert_eq!(row.protocol, None);
    assert_eq!(row.external_ids["neutron:vip"], VIP);
    assert_eq!(row.external_ids["neutron:vip_port_id"], "vport");
    assert_eq!(row.external_ids["enabled"], "True");
    assert_eq!(row.external_ids["ls_refs"], r#"{"neutron-net1": 1}"#);
    assert_eq!(row.external_ids["lr_ref"], "neutron-r1");
    // VIP switch, the router, and the router's other switch
    assert_eq!(s.switches["ls1"].load_balancer, vec![row.uuid.clone()]);
    assert_eq!(s.switches["ls2"].load_balancer, vec![row.uuid.clone()]);
    assert_eq!(s.routers["lr1"].load_balancer, vec![row.uuid.clone()]);
    assert!(row.vips.is_empty());
    // a retried create changes nothing
    let again = lb::create(
        &s,
        &LbCreate {
            id: "LB".into(),
            vip_address: VIP.into(),
            vip_port_id: "vport".into(),
            vip_subnet: subnet(),
            enabled: true,
            additional_vips: vec![],
            flavor: Default::default(),
        },
    )
    .unwrap();
    assert!(again.ops.is_empty());
}

#[test]
fn lb_create_needs_its_switch() {
    let s = NbSnapshot::default();
    let req = LbCreate {
        id: "LB".into(),
        vip_address: VIP.into(),
        vip_port_id: "v".into(),
        vip_subnet: subnet(),
        enabled: true,
        additional_vips: vec![],
        flavor: Default::default(),
    };
    assert!(lb::create(&s, &req).is_err());
}

#[test]
fn listener_pool_members_vips() {
    let mut s = topology();
    full(&mut s);
    let row = only_row(&s);
    assert_eq!(row.protocol.as_deref(), Some("tcp"));
    assert_eq!(row.external_ids["listener_L"], "80:pool_P");
    assert_eq!(
        row.external_ids["pool_P"],
        "member_m1_10.0.0.10:8080_sub1,member_m2_10.0.0.11:8080_sub1"
    );
    assert_eq!(row.external_ids["ls_refs"], r#"{"neutron-net1": 3}"#);
    assert_eq!(
        row.external_ids["neutron:member_status"],
        r#"{"m1": "NO_MONITOR", "m2": "NO_MONITOR"}"#
    );
    let mut want = BTreeMap::new();
    want.insert(
        "10.0.0.5:80".to_string(),
        "10.0.0.10:8080,10.0.0.11:8080".to_string(),
    );
    assert_eq!(row.vips, want);
    assert_eq!(
        row.selection_fields,
        vec!["ip_dst", "ip_src", "tp_dst", "tp_src"]
    );
}

#[test]
fn udp_listener_gets_a_second_row() {
    let mut s = topology();
    full(&mut s);
    let udp = ListenerReq {
        id: "U".into(),
        protocol: "UDP".into(),
        port: 53,
        ..listener_req()
    };
    run!(&mut s, listener::create(&s, &udp).unwrap());
    let rows = s.lbs_named("LB");
    assert_eq!(rows.len(), 2);
    let u = rows
        .iter()
        .find(|r| r.protocol.as_deref() == Some("udp"))
        .unwrap();
    assert_eq!(u.external_ids["neutron:vip"], VIP);
    assert_eq!(u.external_ids["listener_U"], "53:");
    assert!(s.switches["ls1"].load_balancer.contains(&u.uuid));
    assert!(s.routers["lr1"].load_balancer.contains(&u.uuid));
    // deleting the only listener of the second row deletes the row and its references
    let p = run!(&mut s, listener::delete(&s, &udp));
    assert_eq!(
        rec(&p.report.listeners, "U"),
        (Some(Prov::Deleted), Some(Op::Offline))
    );
    assert_eq!(s.lbs_named("LB").len(), 1);
    assert_eq!(s.switches["ls1"].load_balancer.len(), 1);
}

#[test]
fn disable_and_enable() {
    let mut s = topology();
    full(&mut s);
    run!(&mut s, lb::update(&s, "LB", Some(false)).unwrap());
    assert!(only_row(&s).vips.is_empty());
    assert_eq!(only_row(&s).external_ids["enabled"], "False");
    run!(&mut s, lb::update(&s, "LB", Some(true)).unwrap());
    assert_eq!(only_row(&s).vips.len(), 1);
    let p = run!(
        &mut s,
        listener::update(&s, &listener_req(), Some(false), None).unwrap()
    );
    assert_eq!(
        rec(&p.report.listeners, "L"),
        (Some(Prov::Active), Some(Op::Offline))
    );
    assert!(only_row(&s).external_ids.contains_key("listener_L:D"));
    assert!(only_row(&s).vips.is_empty());
    run!(
        &mut s,
        listener::update(&s, &listener_req(), Some(true), None).unwrap()
    );
    run!(
        &mut s,
        pool::update(&s, &pool_req(), Some(false), None).unwrap()
    );
    assert!(only_row(&s).external_ids.contains_key("pool_P:D"));
    assert!(only_row(&s).vips.is_empty());
    let p = run!(
        &mut s,
        pool::update(&s, &pool_req(), Some(true), None).unwrap()
    );
    assert_eq!(rec(&p.report.listeners, "L").0, Some(Prov::Active));
    assert_eq!(only_row(&s).vips.len(), 1);
    // member disabled: OFFLINE, out of vips
    let p = run!(
        &mut s,
        member::change(
            &s,
            "P",
            &[],
            &[("m1".into(), Some(false))],
            &[],
            &facts(false)
        )
        .unwrap()
    );
    assert_eq!(
        rec(&p.report.members, "m1"),
        (Some(Prov::Active), Some(Op::Offline))
    );
    assert_eq!(only_row(&s).vips["10.0.0.5:80"], "10.0.0.11:8080");
}

#[test]
fn session_persistence_sets_affinity() {
    let mut s = topology();
    create_lb(&mut s);
    run!(&mut s, listener::create(&s, &listener_req()).unwrap());
    let p = PoolReq {
        algorithm: Some("SOURCE_IP".into()),
        session_persistence: Some(json!({"type": "SOURCE_IP", "persistence_timeout": 120})),
        ..pool_req()
    };
    run!(&mut s, pool::create(&s, &p).unwrap());
    let row = only_row(&s);
    assert_eq!(row.options["affinity_timeout"], "120");
    assert_eq!(row.selection_fields, vec!["ip_src", "ip_dst"]);
    assert_eq!(
        pool::affinity_timeout(Some(&json!({"type": "SOURCE_IP"}))).as_deref(),
        Some("360")
    );
    assert_eq!(pool::affinity_timeout(Some(&json!({}))), None);
    // an update without persistence keeps it; one that clears it removes the option
    run!(&mut s, pool::update(&s, &pool_req(), None, None).unwrap());
    assert_eq!(only_row(&s).options["affinity_timeout"], "120");
    let cleared = PoolReq {
        clear_persistence: true,
        ..pool_req()
    };
    run!(&mut s, pool::update(&s, &cleared, None, None).unwrap());
    assert!(!only_row(&s).options.contains_key("affinity_timeout"));
    // a new algorithm rewrites the hash fields; none given leaves them
    run!(
        &mut s,
        pool::update(&s, &pool_req(), None, Some("SOURCE_IP_PORT")).unwrap()
    );
    let fields = vec!["ip_dst", "ip_src", "tp_dst", "tp_src"];
    assert_eq!(only_row(&s).selection_fields, fields);
    run!(&mut s, pool::update(&s, &pool_req(), None, None).unwrap());
    assert_eq!(only_row(&s).selection_fields, fields);
}

#[test]
fn health_monitor_lifecycle() {
    let mut s = topology();
    full(&mut s);
    let hmr = HmReq {
        id: "H".into(),
        pool_id: "P".into(),
        interval: Some(5),
        timeout: Some(3),
        success_count: Some(2),
        failure_count: Some(4),
        enabled: true,
    };
    let p = run!(&mut s, hm::create(&s, &hmr, &facts(true)).unwrap());
    assert_eq!(
        rec(&p.report.healthmonitors, "H"),
        (Some(Prov::Active), Some(Op::Online))
    );
    assert_eq!(
        rec(&p.report.members, "m1"),
        (Some(Prov::Active), Some(Op::Online))
    );
    assert_eq!(
        rec(&p.report.loadbalancers, "LB"),
        (Some(Prov::Active), Some(Op::Online))
    );
    let row = only_row(&s);
    assert_eq!(row.health_check.len(), 1);
    let hc = &s.health_checks[&row.health_check[0]];
    assert_eq!(hc.vip, "10.0.0.5:80");
    assert_eq!(hc.options["interval"], "5");
    assert_eq!(hc.options["failure_count"], "4");
    assert_eq!(hc.external_ids["octavia:vip"], VIP);
    assert_eq!(row.external_ids["octavia:healthmonitors"], r#"["H"]"#);
    assert_eq!(row.ip_port_mappings["10.0.0.10"], "port-a:10.0.0.2");
    assert_eq!(row.ip_port_mappings["10.0.0.11"], "port-b:10.0.0.2");
    // a new member is mapped and ONLINE; one without a port is ERROR
    let p = run!(
        &mut s,
        member::change(
            &s,
            "P",
            &[member("m3", "10.0.0.12")],
            &[],
            &[],
            &facts(true)
        )
        .unwrap()
    );
    assert_eq!(rec(&p.report.members, "m3").1, Some(Op::Error));
    assert_eq!(rec(&p.report.pools, "P").1, Some(Op::Degraded));
    // update writes options only where given
    let upd = HmReq {
        interval: Some(9),
        timeout: None,
        success_count: None,
        failure_count: None,
        ..hmr.clone()
    };
    run!(&mut s, hm::update(&s, &upd).unwrap());
    let hc = &s.health_checks[&only_row(&s).health_check[0]];
    assert_eq!(
        (
            hc.options["interval"].as_str(),
            hc.options["timeout"].as_str()
        ),
        ("9", "3")
    );
    // delete: members NO_MONITOR, mappings and health checks gone, HM subnet to check
    let p = run!(&mut s, hm::delete(&s, "H", "P"));
    assert_eq!(
        rec(&p.report.healthmonitors, "H"),
        (Some(Prov::Deleted), Some(Op::NoMonitor))
    );
    assert_eq!(
        rec(&p.report.members, "m1"),
        (Some(Prov::Active), Some(Op::NoMonitor))
    );
    assert_eq!(p.hm_subnets, vec![SUBNET.to_string()]);
    let row = only_row(&s);
    assert!(row.health_check.is_empty() && s.health_checks.is_empty());
    assert!(row.ip_port_mappings.is_empty());
    assert!(!row.external_ids.contains_key("octavia:healthmonitors"));
}

/// Seed 000 §8: disabling a monitor stops its checks as a delete does (members NO_MONITOR, the
/// tree recomputed: the pool DEGRADED by an ERROR member is ONLINE again), keeping its id;
/// enabling it makes the checks anew (members ONLINE). Created disabled: nothing monitored.
#[test]
fn health_monitor_disable_and_enable() {
    let mut s = topology();
    full(&mut s);
    let hmr = HmReq {
        id: "H".into(),
        pool_id: "P".into(),
        interval: Some(5),
        timeout: Some(3),
        success_count: Some(2),
        failure_count: Some(4),
        enabled: true,
    };
    run!(&mut s, hm::create(&s, &hmr, &facts(true)).unwrap());
    let ev = hm::ServiceMonitorEvent {
        ip: "10.0.0.10".parse().unwrap(),
        port: 8080,
        protocol: Some("tcp".into()),
        logical_port: "port-a".into(),
        src_ip: "10.0.0.2".parse().unwrap(),
        offline: true,
        deleted: false,
    };
    let p = run!(&mut s, hm::service_monitor_update(&s, "LB", &ev));
    assert_eq!(rec(&p.report.pools, "P").1, Some(Op::Degraded));
    // disable (an update carrying only admin_state_up)
    let off = HmReq {
        interval: None,
        timeout: None,
        success_count: None,
        failure_count: None,
        enabled: false,
        ..hmr.clone()
    };
    assert!(!hm::update_enables(&s, &off));
    let p = run!(&mut s, hm::update(&s, &off).unwrap());
    assert_eq!(
        rec(&p.report.healthmonitors, "H"),
        (Some(Prov::Active), Some(Op::Offline))
    );
    for m in ["m1", "m2"] {
        assert_eq!(
            rec(&p.report.members, m),
            (Some(Prov::Active), Some(Op::NoMonitor))
        );
    }
    assert_eq!(
        rec(&p.report.pools, "P"),
        (Some(Prov::Active), Some(Op::Online))
    );
    assert_eq!(
        rec(&p.report.listeners, "L"),
        (Some(Prov::Active), Some(Op::Online))
    );
    assert_eq!(
        rec(&p.report.loadbalancers, "LB"),
        (Some(Prov::Active), Some(Op::Online))
    );
    assert_eq!(p.hm_subnets, vec![SUBNET.to_string()]);
    let row = only_row(&s);
    assert!(row.health_check.is_empty() && s.health_checks.is_empty());
    assert!(row.ip_port_mappings.is_empty());
    assert_eq!(row.external_ids["octavia:healthmonitors"], r#"["H"]"#);
    assert_eq!(
        row.external_ids["neutron:member_status"],
        r#"{"m1": "NO_MONITOR", "m2": "NO_MONITOR"}"#
    );
    // the event of the removed Service_Monitor concerns nobody any more
    assert!(
        hm::lbs_for_event(
            &s,
            &hm::ServiceMonitorEvent {
                deleted: true,
                ..ev.clone()
            }
        )
        .is_empty()
    );
    // still disabled, another option: nothing written, HM still OFFLINE
    let p = hm::update(
        &s,
        &HmReq {
            interval: Some(7),
            ..off.clone()
        },
    )
    .unwrap();
    assert!(p.ops.is_empty());
    assert_eq!(rec(&p.report.healthmonitors, "H").1, Some(Op::Offline));
    // enable: the caller plans a create of the whole monitor
    let on = HmReq {
        enabled: true,
        ..off.clone()
    };
    assert!(hm::update_enables(&s, &on));
    assert!(hm::update(&s, &on).is_err());
    let p = run!(&mut s, hm::create(&s, &hmr, &facts(true)).unwrap());
    assert_eq!(
        rec(&p.report.healthmonitors, "H"),
        (Some(Prov::Active), Some(Op::Online))
    );
    assert_eq!(rec(&p.report.members, "m1").1, Some(Op::Online));
    assert_eq!(rec(&p.report.pools, "P").1, Some(Op::Online));
    assert_eq!(rec(&p.report.loadbalancers, "LB").1, Some(Op::Online));
    let row = only_row(&s);
    assert_eq!(row.health_check.len(), 1);
    assert_eq!(
        s.health_checks[&row.health_check[0]].options["interval"],
        "5"
    );
    assert_eq!(row.ip_port_mappings["10.0.0.10"], "port-a:10.0.0.2");
    assert_eq!(row.external_ids["octavia:healthmonitors"], r#"["H"]"#);
    // delete after all that: nothing left
    run!(&mut s, hm::delete(&s, "H", "P"));
    assert!(
        !only_row(&s)
            .external_ids
            .contains_key("octavia:healthmonitors")
    );

    // a monitor created disabled monitors nothing; a member added meanwhile is NO_MONITOR
    let p = run!(&mut s, hm::create(&s, &off, &facts(true)).unwrap());
    assert_eq!(
        rec(&p.report.healthmonitors, "H"),
        (Some(Prov::Active), Some(Op::Offline))
    );
    assert_eq!(rec(&p.report.pools, "P").1, Some(Op::Online));
    let row = only_row(&s);
    assert!(row.health_check.is_empty() && row.ip_port_mappings.is_empty());
    assert_eq!(row.external_ids["octavia:healthmonitors"], r#"["H"]"#);
    let p = run!(
        &mut s,
        member::change(
            &s,
            "P",
            &[member("m4", "10.0.0.13")],
            &[],
            &[],
            &facts(true)
        )
        .unwrap()
    );
    assert_eq!(rec(&p.report.members, "m4").1, Some(Op::NoMonitor));
    assert!(hm::update_enables(&s, &on));
}

#[test]
fn hm_without_source_port_is_error() {
    let mut s = topology();
    full(&mut s);
    let hmr = HmReq {
        id: "H".into(),
        pool_id: "P".into(),
        interval: Some(5),
        timeout: Some(3),
        success_count: Some(2),
        failure_count: Some(4),
        enabled: true,
    };
    let p = run!(&mut s, hm::create(&s, &hmr, &facts(false)).unwrap());
    assert_eq!(
        rec(&p.report.healthmonitors, "H"),
        (Some(Prov::Error), Some(Op::Error))
    );
    assert!(only_row(&s).ip_port_mappings.is_empty());
}

#[test]
fn member_delete_and_batch() {
    let mut s = topology();
    full(&mut s);
    let p = run!(
        &mut s,
        member::change(&s, "P", &[], &[], &["m1".into()], &facts(false)).unwrap()
    );
    assert_eq!(rec(&p.report.members, "m1").0, Some(Prov::Deleted));
    let row = only_row(&s);
    assert_eq!(row.external_ids["pool_P"], "member_m2_10.0.0.11:8080_sub1");
    assert_eq!(row.external_ids["ls_refs"], r#"{"neutron-net1": 2}"#);
    assert_eq!(row.vips["10.0.0.5:80"], "10.0.0.11:8080");
    // batch: keep m2, add m4, (m1 already gone); then port change = delete + create
    let p = run!(
        &mut s,
        member::batch(
            &s,
            "P",
            &[member("m2", "10.0.0.11"), member("m4", "10.0.0.10")],
            &facts(false)
        )
        .unwrap()
    );
    assert_eq!(rec(&p.report.members, "m4").0, Some(Prov::Active));
    assert_eq!(
        only_row(&s).vips["10.0.0.5:80"],
        "10.0.0.11:8080,10.0.0.10:8080"
    );
    let moved = MemberReq {
        port: 9090,
        ..member("m2", "10.0.0.11")
    };
    run!(
        &mut s,
        member::batch(&s, "P", &[moved], &facts(false)).unwrap()
    );
    let row = only_row(&s);
    assert_eq!(row.external_ids["pool_P"], "member_m2_10.0.0.11:9090_sub1");
    assert_eq!(row.external_ids["ls_refs"], r#"{"neutron-net1": 2}"#);
}

#[test]
fn pool_delete_then_listener_delete_empties_row() {
    let mut s = topology();
    full(&mut s);
    let mut plan = Plan::default();
    let mut edit = ovn_provider::edit::Edit::new(&s);
    let (h, key, _) = member::locate(&s, "P").unwrap();
    member::remove(
        &mut edit,
        &mut plan,
        &h,
        &key,
        &["m1".into(), "m2".into()],
        &facts(false),
    );
    pool::remove(&mut edit, &mut plan, &pool_req());
    plan.ops = edit.into_ops();
    run!(&mut s, plan);
    let row = only_row(&s);
    assert_eq!(row.external_ids["listener_L"], "80:");
    assert!(!row.external_ids.contains_key("pool_P"));
    assert!(row.vips.is_empty());
    assert_eq!(row.external_ids["ls_refs"], r#"{"neutron-net1": 1}"#);
    run!(&mut s, listener::delete(&s, &listener_req()));
    let row = only_row(&s);
    assert_eq!(
        row.protocol, None,
        "only row keeps existing without protocol"
    );
    assert!(ext::is_lb_empty(&row.external_ids));
}

#[test]
fn cascade_delete_removes_everything() {
    let mut s = topology();
    full(&mut s);
    let hmr = HmReq {
        id: "H".into(),
        pool_id: "P".into(),
        interval: Some(5),
        timeout: Some(3),
        success_count: Some(2),
        failure_count: Some(4),
        enabled: true,
    };
    run!(&mut s, hm::create(&s, &hmr, &facts(true)).unwrap());
    let p = run!(&mut s, lb::delete(&s, "LB", true));
    assert_eq!(
        rec(&p.report.loadbalancers, "LB"),
        (Some(Prov::Deleted), Some(Op::Offline))
    );
    assert_eq!(
        rec(&p.report.listeners, "L"),
        (Some(Prov::Deleted), Some(Op::Offline))
    );
    assert_eq!(rec(&p.report.pools, "P").0, Some(Prov::Deleted));
    assert_eq!(rec(&p.report.members, "m2").0, Some(Prov::Deleted));
    assert_eq!(rec(&p.report.healthmonitors, "H").0, Some(Prov::Deleted));
    assert_eq!(p.hm_subnets, vec![SUBNET.to_string()]);
    assert!(
        p.fip_ports.is_empty(),
        "no VIP FIP: no member FIP to recompute"
    );
    assert!(s.load_balancers.is_empty());
    assert!(s.health_checks.is_empty());
    assert!(s.switches.values().all(|x| x.load_balancer.is_empty()));
    assert!(s.routers.values().all(|x| x.load_balancer.is_empty()));
    // without cascade only the LB is reported
    let mut s = topology();
    full(&mut s);
    let p = lb::delete(&s, "LB", false);
    assert!(p.report.listeners.is_empty() && p.report.members.is_empty());
    // with a VIP FIP the members' ports are listed for Neutron's FIP recompute
    let u = only_row(&s).uuid;
    s.load_balancers
        .get_mut(&u)
        .unwrap()
        .external_ids
        .insert(ext::VIP_FIP.into(), "172.24.4.9".into());
    let p = lb::delete(&s, "LB", true);
    assert_eq!(p.fip_ports, ["port-a", "port-b"]);
}

#[test]
fn concurrent_change_is_refused_by_wait() {
    let mut s = topology();
    full(&mut s);
    let plan = member::change(&s, "P", &[], &[], &["m1".into()], &facts(false)).unwrap();
    // another process changes the row meanwhile
    let u = only_row(&s).uuid;
    s.load_balancers
        .get_mut(&u)
        .unwrap()
        .external_ids
        .insert("x".into(), "y".into());
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| apply(&mut s, &plan.ops)));
    assert!(r.is_err(), "the wait must refuse the stale plan");
}

#[test]
fn service_monitor_events_drive_member_status() {
    let mut s = topology();
    full(&mut s);
    let hmr = HmReq {
        id: "H".into(),
        pool_id: "P".into(),
        interval: Some(5),
        timeout: Some(3),
        success_count: Some(2),
        failure_count: Some(4),
        enabled: true,
    };
    run!(&mut s, hm::create(&s, &hmr, &facts(true)).unwrap());
    let ev = hm::ServiceMonitorEvent {
        ip: "10.0.0.10".parse().unwrap(),
        port: 8080,
        protocol: Some("tcp".into()),
        logical_port: "port-a".into(),
        src_ip: "10.0.0.2".parse().unwrap(),
        offline: true,
        deleted: false,
    };
    assert_eq!(hm::lbs_for_event(&s, &ev), vec!["LB".to_string()]);
    let p = run!(&mut s, hm::service_monitor_update(&s, "LB", &ev));
    // operating statuses only: an object in ERROR stays ERROR
    assert_eq!(rec(&p.report.members, "m1"), (None, Some(Op::Error)));
    assert!(
        [
            &p.report.loadbalancers,
            &p.report.listeners,
            &p.report.pools
        ]
        .iter()
        .all(|rs| rs.iter().all(|r| r.provisioning_status.is_none())),
        "{:?}",
        p.report
    );
    assert_eq!(rec(&p.report.pools, "P").1, Some(Op::Degraded));
    assert_eq!(rec(&p.report.loadbalancers, "LB").1, Some(Op::Degraded));
    // back online
    let p = run!(
        &mut s,
        hm::service_monitor_update(
            &s,
            "LB",
            &hm::ServiceMonitorEvent {
                offline: false,
                ..ev.clone()
            }
        )
    );
    assert_eq!(rec(&p.report.members, "m1").1, Some(Op::Online));
    assert_eq!(rec(&p.report.pools, "P").1, Some(Op::Online));
    // the pool disabled: its backends leave `vips`, northd drops their monitors; that
    // deletion is no member going OFFLINE (else it stays out once the pool is enabled again)
    run!(
        &mut s,
        pool::update(&s, &pool_req(), Some(false), None).unwrap()
    );
    assert!(!only_row(&s).vips.contains_key("10.0.0.5:80"));
    let gone = hm::ServiceMonitorEvent {
        deleted: true,
        ..ev.clone()
    };
    assert!(hm::service_monitor_update(&s, "LB", &gone).ops.is_empty());
    run!(
        &mut s,
        pool::update(&s, &pool_req(), Some(true), None).unwrap()
    );
    assert_eq!(
        only_row(&s).vips["10.0.0.5:80"],
        "10.0.0.10:8080,10.0.0.11:8080"
    );
    // that deletion read only now, the pool enabled again: northd makes a new monitor (the
    // port is there), so the member stays ONLINE and in vips
    assert!(hm::service_monitor_update(&s, "LB", &gone).ops.is_empty());
    // the port disabled, then gone: no monitor comes back → OFFLINE and out of vips
    s.switch_ports.get_mut("lsp-a").unwrap().disabled = true;
    let p = hm::service_monitor_update(&s, "LB", &gone);
    assert_eq!(rec(&p.report.members, "m1").1, Some(Op::Offline));
    s.switch_ports.remove("lsp-a");
    run!(&mut s, hm::service_monitor_update(&s, "LB", &gone));
    assert_eq!(only_row(&s).vips["10.0.0.5:80"], "10.0.0.11:8080");
    // another source or port concerns nobody
    let other = hm::ServiceMonitorEvent {
        src_ip: "10.0.0.3".parse().unwrap(),
        ..ev.clone()
    };
    assert!(hm::lbs_for_event(&s, &other).is_empty());
    assert!(
        hm::service_monitor_update(&s, "LB", &hm::ServiceMonitorEvent { port: 9, ..ev })
            .ops
            .is_empty()
    );
}

/// Seed 000 §6.1: on an LB whose VIP has a FIP, `hm_create` adds a health check probing
/// `<fip>:<listener port>` next to the VIP's; `hm_delete` removes both.
#[test]
fn health_monitor_on_an_lb_with_a_fip() {
    let mut s = topology();
    full(&mut s);
    let u = only_row(&s).uuid;
    s.load_balancers
        .get_mut(&u)
        .unwrap()
        .external_ids
        .insert(ext::VIP_FIP.into(), "172.24.4.9".into());
    let hmr = HmReq {
        id: "H".into(),
        pool_id: "P".into(),
        interval: Some(5),
        timeout: Some(3),
        success_count: Some(2),
        failure_count: Some(3),
        enabled: true,
    };
    run!(&mut s, hm::create(&s, &hmr, &facts(true)).unwrap());
    let row = only_row(&s);
    let mut hcs: Vec<(String, String)> = row
        .health_check
        .iter()
        .map(|h| {
            let hc = &s.health_checks[h];
            (hc.vip.clone(), hc.external_ids["octavia:vip"].clone())
        })
        .collect();
    hcs.sort();
    assert_eq!(
        hcs,
        vec![
            ("10.0.0.5:80".to_string(), VIP.to_string()),
            ("172.24.4.9:80".to_string(), "172.24.4.9".to_string()),
        ]
    );
    run!(&mut s, hm::delete(&s, "H", "P"));
    assert!(only_row(&s).health_check.is_empty() && s.health_checks.is_empty());
}

/// Seed 000 §5.1 step 6 / §5.3 (`handle_member_dvr`): with a FIP on the VIP, a member added
/// centralises its own FIP (its NAT row loses `external_mac`/`logical_port`, in the member's
/// transaction); a member removed has its port listed for Neutron's FIP recompute. Without a
/// VIP FIP neither happens.
#[test]
fn member_fip_centralised_while_the_vip_has_a_fip() {
    let nat_ops = |p: &Plan| -> Vec<serde_json::Value> {
        p.ops
            .iter()
            .filter(|o| matches!(o, NbOp::UpdateWhereIncludes { .. }))
            .map(|o| o.to_operation().unwrap().to_json())
            .collect()
    };
    // no VIP FIP: nothing
    let mut s = topology();
    create_lb(&mut s);
    run!(&mut s, listener::create(&s, &listener_req()).unwrap());
    run!(&mut s, pool::create(&s, &pool_req()).unwrap());
    let p = run!(
        &mut s,
        member::change(
            &s,
            "P",
            &[member("m1", "10.0.0.10")],
            &[],
            &[],
            &facts(false)
        )
        .unwrap()
    );
    assert!(nat_ops(&p).is_empty());
    let p = run!(
        &mut s,
        member::change(&s, "P", &[], &[], &["m1".into()], &facts(false)).unwrap()
    );
    assert!(p.fip_ports.is_empty());
    // with a VIP FIP
    let u = only_row(&s).uuid;
    s.load_balancers
        .get_mut(&u)
        .unwrap()
        .external_ids
        .insert(ext::VIP_FIP.into(), "172.24.4.9".into());
    let p = run!(
        &mut s,
        member::change(
            &s,
            "P",
            &[member("m2", "10.0.0.11")],
            &[],
            &[],
            &facts(false)
        )
        .unwrap()
    );
    assert_eq!(
        nat_ops(&p),
        vec![json!({"op": "update", "table": "NAT",
            "where": [["external_ids", "includes", ["map", [["neutron:fip_port_id", "port-b"]]]]],
            "row": {"external_mac": ["set", []], "logical_port": ["set", []]}})]
    );
    // replaced in one batch by a member on the same port: stays centralised
    let p = run!(
        &mut s,
        member::change(
            &s,
            "P",
            &[member("m3", "10.0.0.11")],
            &[],
            &["m2".into()],
            &facts(false)
        )
        .unwrap()
    );
    assert!(p.fip_ports.is_empty(), "{:?}", p.fip_ports);
    let p = run!(
        &mut s,
        member::change(&s, "P", &[], &[], &["m3".into()], &facts(false)).unwrap()
    );
    assert_eq!(p.fip_ports, vec!["port-b".to_string()]);
}
