//! The RFC 7047 JSON the provider sends to ovsdb-server, pinned byte for byte: a member add
//! (to a pool with a health monitor) planned from a snapshot, turned into the transaction
//! [`ovn_provider::OvsdbNb`] sends ([`ovn_provider::ovsdb_nb::transaction`]). No service
//! needed (fast tier).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::json;

use ovn_provider::lb::{self, LbCreate};
use ovn_provider::member::{self, MemberFacts, MemberReq};
use ovn_provider::nb::NbSnapshot;
use ovn_provider::ovsdb_nb::transaction;
use ovn_provider::plan::SubnetInfo;

const LB: &str = "0b3e9a52-5a6f-4d0e-8c3b-1f2a3b4c5d6e";
const HC: &str = "1c4f0b63-6b70-4e1f-9d4c-2a3b4c5d6e7f";
const LS: &str = "2d5a1c74-7c81-4f2a-ae5d-3b4c5d6e7f80";
const LSP: &str = "3e6b2d85-8d92-4a3b-bf6e-4c5d6e7f8091";
const LR: &str = "4f7c3e96-9ea3-4b4c-807f-5d6e7f8091a2";
const LRP: &str = "508d4fa7-afb4-4c5d-9180-6e7f8091a2b3";
const LSP_R: &str = "619e50b8-b0c5-4d6e-a291-7f8091a2b3c4";

fn snapshot() -> NbSnapshot {
    let mut s = NbSnapshot::new(true);
    s.insert_json(
        "Load_Balancer",
        LB,
        &json!({"name": "LB", "protocol": ["set", ["tcp"]],
            "vips": ["map", [["10.0.0.5:80", ""]]],
            "health_check": ["set", [["uuid", HC]]],
            "external_ids": ["map", [
                ["neutron:vip", "10.0.0.5"], ["neutron:vip_port_id", "vport"],
                ["enabled", "True"], ["ls_refs", "{\"neutron-net1\": 1}"],
                ["listener_L", "80:pool_P"], ["pool_P", ""],
                ["octavia:healthmonitors", "[\"HM\"]"]]]}),
    );
    s.insert_json(
        "Load_Balancer_Health_Check",
        HC,
        &json!({"vip": "10.0.0.5:80",
            "options": ["map", [["interval", "5"], ["timeout", "5"], ["success_count", "1"],
                ["failure_count", "3"]]],
            "external_ids": ["map", [["octavia:healthmonitor", "HM"],
                ["octavia:pool_id", "P"], ["octavia:vip", "10.0.0.5"]]]}),
    );
    s.insert_json(
        "Logical_Switch",
        LS,
        &json!({"name": "neutron-net1", "ports": ["set", [["uuid", LSP], ["uuid", LSP_R]]],
            "load_balancer": ["set", [["uuid", LB]]]}),
    );
    s.insert_json(
        "Logical_Switch_Port",
        LSP,
        &json!({"name": "port-a", "addresses": "fa:16:3e:00:00:0a 10.0.0.10"}),
    );
    s.insert_json(
        "Logical_Switch_Port",
        LSP_R,
        &json!({"name": "pr", "type": "router", "options": ["map", [["router-port", "lrp-pr"]]],
            "external_ids": ["map", [["neutron:device_owner", "network:router_interface"],
                ["neutron:cidrs", "10.0.0.1/24"]]]}),
    );
    s.insert_json(
        "Logical_Router",
        LR,
        &json!({"name": "neutron-r1", "ports": ["set", [["uuid", LRP]]]}),
    );
    s.insert_json(
        "Logical_Router_Port",
        LRP,
        &json!({"name": "lrp-pr", "networks": "10.0.0.1/24",
            "external_ids": ["map", [["neutron:network_name", "neutron-net1"]]]}),
    );
    s
}

fn subnet() -> SubnetInfo {
    SubnetInfo {
        id: "sub1".into(),
        network_id: "net1".into(),
        cidr: "10.0.0.0/24".into(),
    }
}

fn wire(ops: &[ovn_provider::nb::Op]) -> String {
    serde_json::to_string(&transaction(ops).unwrap().to_params()).unwrap()
}

/// A member added to a monitored pool: the `wait` guard on the row's `external_ids`, the
/// row's update (`vips`, `external_ids`, `ip_port_mappings`) and its attachment to the router
/// and switch, exactly as sent before the seam became typed.
#[test]
fn wire_json_of_a_member_add_is_pinned() {
    let s = snapshot();
    let mut facts = MemberFacts::default();
    facts.subnets.insert("sub1".into(), subnet());
    facts.hm_source.insert("sub1".into(), "10.0.0.2".into());
    let m = MemberReq {
        id: "m1".into(),
        pool_id: "P".into(),
        address: "10.0.0.10".parse().unwrap(),
        port: 8080,
        subnet_id: "sub1".into(),
        enabled: true,
        subnet: None,
    };
    let plan = member::change(&s, "P", &[m], &[], &[], &facts).unwrap();
    assert_eq!(
        wire(&plan.ops),
        r#"["OVN_Northbound",{"columns":["external_ids"],"op":"wait","rows":[{"external_ids":["map",[["enabled","True"],["listener_L","80:pool_P"],["ls_refs","{\"neutron-net1\": 1}"],["neutron:vip","10.0.0.5"],["neutron:vip_port_id","vport"],["octavia:healthmonitors","[\"HM\"]"],["pool_P",""]]]}],"table":"Load_Balancer","timeout":0,"until":"==","where":[["_uuid","==",["uuid","0b3e9a52-5a6f-4d0e-8c3b-1f2a3b4c5d6e"]]]},{"op":"update","row":{"external_ids":["map",[["enabled","True"],["listener_L","80:pool_P"],["lr_ref","neutron-r1"],["ls_refs","{\"neutron-net1\": 2}"],["neutron:member_status","{\"m1\": \"ONLINE\"}"],["neutron:vip","10.0.0.5"],["neutron:vip_port_id","vport"],["octavia:healthmonitors","[\"HM\"]"],["pool_P","member_m1_10.0.0.10:8080_sub1"]]],"ip_port_mappings":["map",[["10.0.0.10","port-a:10.0.0.2"]]],"vips":["map",[["10.0.0.5:80","10.0.0.10:8080"]]]},"table":"Load_Balancer","where":[["_uuid","==",["uuid","0b3e9a52-5a6f-4d0e-8c3b-1f2a3b4c5d6e"]]]},{"mutations":[["load_balancer","insert",["set",[["uuid","0b3e9a52-5a6f-4d0e-8c3b-1f2a3b4c5d6e"]]]]],"op":"mutate","table":"Logical_Router","where":[["_uuid","==",["uuid","4f7c3e96-9ea3-4b4c-807f-5d6e7f8091a2"]]]},{"mutations":[["load_balancer","insert",["set",[["uuid","0b3e9a52-5a6f-4d0e-8c3b-1f2a3b4c5d6e"]]]]],"op":"mutate","table":"Logical_Switch","where":[["_uuid","==",["uuid","2d5a1c74-7c81-4f2a-ae5d-3b4c5d6e7f80"]]]}]"#
    );
}

/// A second load balancer on the same switch and router: the guard that no row has its name
/// (`wait` until no row), the insert with its `uuid-name`, the named reference mutated into
/// the switch and router, exactly as sent before the seam became typed.
#[test]
fn wire_json_of_a_load_balancer_create_is_pinned() {
    let s = snapshot();
    let req = LbCreate {
        id: "LB2".into(),
        vip_address: "10.0.0.6".into(),
        vip_port_id: "vport2".into(),
        vip_subnet: subnet(),
        enabled: true,
        additional_vips: vec![],
        flavor: Default::default(),
    };
    let plan = lb::create(&s, &req).unwrap();
    assert_eq!(
        wire(&plan.ops),
        r#"["OVN_Northbound",{"columns":["_uuid"],"op":"wait","rows":[],"table":"Load_Balancer","timeout":0,"until":"==","where":[["name","==","LB2"],["protocol","==",["set",[]]]]},{"op":"insert","row":{"external_ids":["map",[["enabled","True"],["lr_ref","neutron-r1"],["ls_refs","{\"neutron-net1\": 1}"],["neutron:vip","10.0.0.6"],["neutron:vip_port_id","vport2"]]],"health_check":["set",[]],"ip_port_mappings":["map",[]],"name":"LB2","options":["map",[]],"protocol":["set",[]],"selection_fields":["set",["ip_src","ip_dst","tp_src","tp_dst"]],"vips":["map",[]]},"table":"Load_Balancer","uuid-name":"keel_lb_1"},{"mutations":[["load_balancer","insert",["set",[["named-uuid","keel_lb_1"]]]]],"op":"mutate","table":"Logical_Router","where":[["_uuid","==",["uuid","4f7c3e96-9ea3-4b4c-807f-5d6e7f8091a2"]]]},{"mutations":[["load_balancer","insert",["set",[["named-uuid","keel_lb_1"]]]]],"op":"mutate","table":"Logical_Switch","where":[["_uuid","==",["uuid","2d5a1c74-7c81-4f2a-ae5d-3b4c5d6e7f80"]]]}]"#
    );
}
