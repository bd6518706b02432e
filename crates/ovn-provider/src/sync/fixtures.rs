//! Test fixtures of the sync's unit tests: an NB topology (switch, router, ports), the
//! desired graph (LB, listener, pool, member, health monitor), its Neutron facts, and `run`
//! (plan, then apply as ovsdb-server would).

use super::*;
use crate::lb::LbCreate;
use crate::plan::SubnetInfo;
use provider::{Listener, Member, Pool};
use serde_json::json;

pub(super) fn nb() -> NbSnapshot {
    let mut s = NbSnapshot {
        health_check_supported: true,
        ..Default::default()
    };
    s.insert_json(
        "Load_Balancer",
        "u1",
        &json!({"name": "LB", "protocol": "tcp",
        "external_ids": ["map", [["neutron:vip", "10.0.0.5"], ["enabled", "True"],
            ["listener_L", "81:pool_P"], ["listener_OLD", "90:"],
            ["pool_P", "member_M1_10.0.0.10:80_S,member_X_10.0.0.99:80_S"]]],
        "vips": ["map", [["10.0.0.5:81", "10.0.0.10:80,10.0.0.99:80"]]]}),
    );
    s
}

pub(super) fn desired(port: u16) -> LoadBalancer {
    LoadBalancer {
        loadbalancer_id: "LB".into(),
        listeners: Some(vec![Listener {
            listener_id: "L".into(),
            protocol_port: Some(port),
            default_pool_id: Some(Some("P".into())),
            ..Default::default()
        }]),
        pools: Some(vec![Pool {
            pool_id: "P".into(),
            members: Some(vec![
                Member {
                    member_id: "M1".into(),
                    address: Some("10.0.0.10".into()),
                    protocol_port: Some(80),
                    ..Default::default()
                },
                Member {
                    member_id: "M2".into(),
                    address: Some("10.0.0.11".into()),
                    protocol_port: Some(80),
                    subnet_id: Some("S".into()),
                    ..Default::default()
                },
            ]),
            ..Default::default()
        }]),
        ..Default::default()
    }
}

pub(super) fn topology() -> NbSnapshot {
    let mut s = NbSnapshot {
        health_check_supported: true,
        ..Default::default()
    };
    s.insert_json(
        "Logical_Switch",
        "ls1",
        &json!({"name": "neutron-net1",
        "ports": ["set", [["uuid", "lsp-r"], ["uuid", "lsp-a"]]]}),
    );
    s.insert_json(
        "Logical_Switch_Port",
        "lsp-r",
        &json!({"name": "pr", "type": "router",
        "options": ["map", [["router-port", "lrp-pr"]]],
        "external_ids": ["map", [["neutron:device_owner", "network:router_interface"],
            ["neutron:cidrs", "10.0.0.1/24"]]]}),
    );
    s.insert_json(
        "Logical_Switch_Port",
        "lsp-a",
        &json!({"name": "port-a", "addresses": "fa:16:3e:00:00:0a 10.0.0.10"}),
    );
    s.insert_json(
        "Logical_Router",
        "lr1",
        &json!({"name": "neutron-r1", "ports": ["set", [["uuid", "lrp1"]]]}),
    );
    s.insert_json(
        "Logical_Router_Port",
        "lrp1",
        &json!({"name": "lrp-pr",
        "networks": "10.0.0.1/24",
        "external_ids": ["map", [["neutron:network_name", "neutron-net1"]]]}),
    );
    s
}

pub(super) fn graph() -> LoadBalancer {
    LoadBalancer {
        loadbalancer_id: "LB".into(),
        vip_address: Some("10.0.0.5".into()),
        vip_network_id: Some("net1".into()),
        vip_subnet_id: Some("sub1".into()),
        vip_port_id: Some("vp".into()),
        admin_state_up: Some(true),
        listeners: Some(vec![Listener {
            listener_id: "L".into(),
            protocol: Some("TCP".into()),
            protocol_port: Some(80),
            default_pool_id: Some(Some("P".into())),
            ..Default::default()
        }]),
        pools: Some(vec![Pool {
            pool_id: "P".into(),
            protocol: Some("TCP".into()),
            listener_id: Some("L".into()),
            lb_algorithm: Some("SOURCE_IP_PORT".into()),
            members: Some(vec![Member {
                member_id: "M1".into(),
                address: Some("10.0.0.10".into()),
                protocol_port: Some(8080),
                ..Default::default()
            }]),
            healthmonitor: Some(provider::HealthMonitor {
                healthmonitor_id: "H".into(),
                delay: Some(5),
                timeout: Some(3),
                max_retries: Some(2),
                max_retries_down: Some(3),
                ..Default::default()
            }),
            ..Default::default()
        }]),
        ..Default::default()
    }
}

pub(super) fn facts() -> SyncFacts {
    let sub = SubnetInfo {
        id: "sub1".into(),
        network_id: "net1".into(),
        cidr: "10.0.0.0/24".into(),
    };
    let mut f = SyncFacts::default();
    f.lbs.insert(
        "LB".into(),
        LbCreate {
            id: "LB".into(),
            vip_address: "10.0.0.5".into(),
            vip_port_id: "vp".into(),
            vip_subnet: sub.clone(),
            enabled: true,
            additional_vips: vec![],
            flavor: Default::default(),
        },
    );
    f.members.subnets.insert("sub1".into(), sub);
    f.members.hm_source.insert("sub1".into(), "10.0.0.2".into());
    f
}

/// Plan, apply to `s` as ovsdb-server would, and return the differences.
pub(super) fn run(s: &mut NbSnapshot, purge: Option<&Purge>) -> Vec<Difference> {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(1);
    let p = plan(s, &[graph()], &facts(), purge).unwrap();
    // uuids unique across runs, as ovsdb-server's
    let mut seq = 1000 * RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    sim::apply(s, &p.ops, &mut seq).unwrap();
    p.differences
}
