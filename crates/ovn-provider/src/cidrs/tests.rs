use serde_json::{Value, json};

use super::*;
use crate::sim;

fn map(pairs: &[(&str, &str)]) -> Value {
    json!([
        "map",
        pairs.iter().map(|(k, v)| json!([k, v])).collect::<Vec<_>>()
    ])
}

fn uuids(list: &[&str]) -> Value {
    json!([
        "set",
        list.iter().map(|u| json!(["uuid", u])).collect::<Vec<_>>()
    ])
}

/// net1 (VIP, router port rp1, VIP port), net2 (router port rp2, no LB), ext (provider
/// network, gateway port gw); router r1 with its gateway on ext; LB "LB" on net1 and r1.
fn topology(fip: bool) -> NbSnapshot {
    let mut s = NbSnapshot::new(true);
    s.insert_json(
        "Logical_Switch_Port",
        "rp1",
        &json!({"name": "rp1", "type": "router"}),
    );
    s.insert_json(
        "Logical_Switch_Port",
        "vipp",
        &json!({"name": "vip-port", "type": ""}),
    );
    s.insert_json(
        "Logical_Switch_Port",
        "rp2",
        &json!({"name": "rp2", "type": "router"}),
    );
    s.insert_json(
        "Logical_Switch_Port",
        "ln",
        &json!({"name": "ln", "type": "localnet"}),
    );
    s.insert_json(
        "Logical_Switch",
        "ls1",
        &json!({"name": "neutron-net1", "ports": uuids(&["vipp", "rp1"]), "load_balancer": uuids(&["lb1"])}),
    );
    s.insert_json(
        "Logical_Switch",
        "ls2",
        &json!({"name": "neutron-net2", "ports": uuids(&["rp2"]), "load_balancer": uuids(&["lb1"])}),
    );
    s.insert_json(
        "Logical_Switch",
        "lsx",
        &json!({"name": "neutron-ext", "ports": uuids(&["ln"]),
                "external_ids": map(&[("neutron:provnet-physical-network", "physnet1")])}),
    );
    s.insert_json(
        "Logical_Router_Port",
        "gwp",
        &json!({"name": "lrp-gw", "networks": "172.24.4.5/24", "gateway_chassis": uuids(&["gc"]),
                "external_ids": map(&[("neutron:network_name", "ext")])}),
    );
    s.insert_json(
        "Logical_Router",
        "lr1",
        &json!({"name": "neutron-r1", "ports": uuids(&["gwp"]), "load_balancer": uuids(&["lb1"])}),
    );
    let mut ids = vec![
        ("neutron:vip", "10.0.0.5"),
        ("neutron:vip_port_id", "vip-port"),
        ("ls_refs", r#"{"neutron-net1": 1}"#),
        ("lr_ref", "neutron-r1"),
        ("enabled", "True"),
    ];
    if fip {
        ids.push(("neutron:vip_fip", "172.24.4.10"));
    }
    s.insert_json(
        "Load_Balancer",
        "lb1",
        &json!({"name": "LB", "protocol": "tcp", "external_ids": map(&ids)}),
    );
    s
}

fn req<'a>(cidrs: &'a [String]) -> ListenerCidrs<'a> {
    ListenerCidrs {
        listener_id: "aaaa-bbbb",
        lb_id: "LB",
        protocol: "TCP",
        port: 80,
        cidrs,
    }
}

fn inserts<'a>(ops: &'a [Op], table: &str) -> Vec<&'a Vec<(&'static str, Datum)>> {
    ops.iter()
        .filter_map(|o| match o {
            Op::Insert { table: t, row, .. } if *t == table => Some(row),
            _ => None,
        })
        .collect()
}

fn col<'a>(row: &'a [(&'static str, Datum)], c: &str) -> &'a Datum {
    &row.iter().find(|(k, _)| *k == c).unwrap().1
}

#[test]
fn names_are_ovn_identifiers() {
    assert_eq!(group_name("a-b-c"), "keel_a_b_c");
    assert_eq!(set_name("a-b", "allow", false), "keel_a_b_allow4");
    assert_eq!(set_name("a-b", "vip", true), "keel_a_b_vip6");
}

#[test]
fn normalise_clears_host_bits() {
    assert_eq!(normalise("10.1.2.3/8").as_deref(), Some("10.0.0.0/8"));
    assert_eq!(normalise("10.1.2.3").as_deref(), Some("10.1.2.3/32"));
    assert_eq!(normalise("0.0.0.0/0").as_deref(), Some("0.0.0.0/0"));
    assert_eq!(
        normalise("2001:db8::1/32").as_deref(),
        Some("2001:db8::/32")
    );
    assert_eq!(normalise("10.0.0.0/33"), None);
    assert_eq!(normalise("x/8"), None);
    assert_eq!(normalise("10.0.0.0/-1"), None);
    let list = vec!["10.0.0.1/24".into(), "10.0.0.0/24".into(), "::/0".into()];
    assert_eq!(family(&list, false), vec!["10.0.0.0/24".to_string()]);
    assert_eq!(family(&list, true), vec!["::/0".to_string()]);
}

#[test]
fn empty_list_only_removes() {
    let s = topology(false);
    let ops = listener(&s, &req(&[]));
    assert_eq!(ops, remove_listener("aaaa-bbbb"));
    assert!(
        ops.iter()
            .all(|o| matches!(o, Op::WhereIncludes { row, .. } if row.is_empty()))
    );
}

#[test]
fn rows_of_a_listener() {
    let s = topology(false);
    let cidrs = vec!["192.0.2.7/24".to_string()];
    let ops = listener(&s, &req(&cidrs));
    // first the old rows go, by the listener's ownership keys
    assert_eq!(ops[..2], remove_listener("aaaa-bbbb")[..]);
    let sets = inserts(&ops, "Address_Set");
    assert_eq!(sets.len(), 2, "{ops:#?}");
    let allow = sets
        .iter()
        .find(|r| col(r, "name") == &Datum::Str("keel_aaaa_bbbb_allow4".into()))
        .unwrap();
    assert_eq!(
        col(allow, "addresses"),
        &Datum::Set(vec!["192.0.2.0/24".into()])
    );
    let vip = sets
        .iter()
        .find(|r| col(r, "name") == &Datum::Str("keel_aaaa_bbbb_vip4".into()))
        .unwrap();
    assert_eq!(col(vip, "addresses"), &Datum::Set(vec!["10.0.0.5".into()]));
    let Datum::Map(ids) = col(vip, "external_ids") else {
        panic!()
    };
    assert_eq!(ids.get(OWNER_KEY).map(String::as_str), Some(OWNER));
    assert_eq!(ids.get(LB_KEY).map(String::as_str), Some("LB"));
    assert_eq!(ids.get(LISTENER_KEY).map(String::as_str), Some("aaaa-bbbb"));
    let acls = inserts(&ops, "ACL");
    assert_eq!(acls.len(), 2, "v4 VIP only: allow and drop");
    let acl = |r: &Vec<(&'static str, Datum)>| {
        ["priority", "direction", "action", "match"].map(|c| col(r, c).clone())
    };
    let s = |x: &str| Datum::Str(x.into());
    assert_eq!(
        acl(acls[0]),
        [
            Datum::Int(PRIORITY + 1),
            s("from-lport"),
            s("allow"),
            s(
                "ip4.dst == $keel_aaaa_bbbb_vip4 && tcp.dst == 80 && ip4.src == $keel_aaaa_bbbb_allow4"
            )
        ]
    );
    assert_eq!(
        acl(acls[1]),
        [
            Datum::Int(PRIORITY),
            s("from-lport"),
            s("drop"),
            s("ip4.dst == $keel_aaaa_bbbb_vip4 && tcp.dst == 80")
        ]
    );
    // no negated set: ovn-controller would expand it into the product of bit-mismatch flows
    assert!(
        acls.iter()
            .all(|r| !matches!(col(r, "match"), Datum::Str(m) if m.contains("!=")))
    );
    let pgs = inserts(&ops, "Port_Group");
    assert_eq!(pgs.len(), 1);
    // a router port on each switch holding the LB; no FIP: the provider network is left out
    assert_eq!(
        col(pgs[0], "ports"),
        &Datum::Refs(vec![RowRef::Uuid("rp1".into()), RowRef::Uuid("rp2".into())])
    );
    assert_eq!(
        col(pgs[0], "acls"),
        &Datum::Refs(vec![
            RowRef::Named("keel_aaaa_bbbb_allow_ip4".into()),
            RowRef::Named("keel_aaaa_bbbb_drop_ip4".into())
        ])
    );
}

#[test]
fn a_family_without_cidrs_is_refused_whole() {
    let mut s = topology(false);
    let mut lb = s.load_balancers.get("lb1").unwrap().clone();
    lb.external_ids
        .insert(ext::ADDITIONAL_VIPS.into(), "2001:db8::5".into());
    s.load_balancers.insert("lb1".into(), lb);
    let cidrs = vec!["192.0.2.0/24".to_string()];
    let ops = listener(
        &s,
        &ListenerCidrs {
            protocol: "UDP",
            port: 53,
            ..req(&cidrs)
        },
    );
    let matches: Vec<_> = inserts(&ops, "ACL")
        .iter()
        .map(|r| col(r, "match").clone())
        .collect();
    assert_eq!(
        matches,
        vec![
            Datum::Str(
                "ip4.dst == $keel_aaaa_bbbb_vip4 && udp.dst == 53 && ip4.src == $keel_aaaa_bbbb_allow4"
                    .into()
            ),
            Datum::Str("ip4.dst == $keel_aaaa_bbbb_vip4 && udp.dst == 53".into()),
            Datum::Str("ip6.dst == $keel_aaaa_bbbb_vip6 && udp.dst == 53".into()),
        ]
    );
    assert_eq!(inserts(&ops, "Address_Set").len(), 3, "vip4, allow4, vip6");
}

#[test]
fn a_fip_adds_the_provider_network_and_its_address() {
    let s = topology(true);
    let cidrs = vec!["192.0.2.0/24".to_string()];
    let ops = listener(&s, &req(&cidrs));
    let pg = inserts(&ops, "Port_Group")[0];
    assert_eq!(
        col(pg, "ports"),
        &Datum::Refs(vec![
            RowRef::Uuid("ln".into()),
            RowRef::Uuid("rp1".into()),
            RowRef::Uuid("rp2".into())
        ])
    );
    let vip = inserts(&ops, "Address_Set")
        .into_iter()
        .find(|r| col(r, "name") == &Datum::Str("keel_aaaa_bbbb_vip4".into()))
        .unwrap();
    assert_eq!(
        col(vip, "addresses"),
        &Datum::Set(vec!["10.0.0.5".into(), "172.24.4.10".into()])
    );
    // a later FIP on an LB with rows: rewritten where the keys find them
    let r = refresh_lb(&s, "LB");
    assert_eq!(r.len(), 2);
    assert!(
        matches!(&r[0], Op::WhereIncludes { table: "Port_Group", map, .. } if map.get(LB_KEY).map(String::as_str) == Some("LB"))
    );
}

#[test]
fn a_switch_without_router_port_is_anchored_on_the_vip_port() {
    let mut s = topology(false);
    let mut ls = s.switches.get("ls1").unwrap().clone();
    ls.ports = vec!["vipp".into()];
    s.switches.insert("ls1".into(), ls);
    let t = target(&s, "LB").unwrap();
    assert_eq!(
        t.anchors.into_iter().collect::<Vec<_>>(),
        vec!["rp2".to_string(), "vipp".to_string()]
    );
    assert_eq!(target(&s, "other"), None);
}

#[test]
fn removal_keys() {
    for (ops, key, value) in [
        (remove_lb("LB"), LB_KEY, "LB"),
        (remove_listener("L"), LISTENER_KEY, "L"),
        (remove_all(), OWNER_KEY, OWNER),
    ] {
        let tables: Vec<_> = ops
            .iter()
            .map(|o| match o {
                Op::WhereIncludes {
                    table, map, row, ..
                } => {
                    assert!(row.is_empty());
                    assert_eq!(map.get(OWNER_KEY).map(String::as_str), Some(OWNER));
                    assert_eq!(map.get(key).map(String::as_str), Some(value));
                    *table
                }
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(tables, vec!["Port_Group", "Address_Set"]);
    }
    let j = remove_lb("LB")[0].to_operation().unwrap().to_json();
    assert_eq!(j["op"], "delete");
    assert_eq!(
        j["where"],
        json!([[
            "external_ids",
            "includes",
            ["map", [[LB_KEY, "LB"], [OWNER_KEY, OWNER]]]
        ]])
    );
}

#[test]
fn the_simulator_leaves_the_rows_alone() {
    let mut s = topology(false);
    let cidrs = vec!["192.0.2.0/24".to_string()];
    let ops: Vec<Op> = listener(&s, &req(&cidrs))
        .into_iter()
        .filter(|o| matches!(o, Op::WhereIncludes { .. }))
        .collect();
    let before = s.load_balancers.len();
    sim::apply(&mut s, &ops, &mut 0).unwrap();
    assert_eq!(s.load_balancers.len(), before);
}

#[test]
fn same_families_are_rewritten_in_place() {
    let s = topology(false);
    let mut l = crate::listener::ListenerReq {
        id: "L".into(),
        lb_id: "LB".into(),
        protocol: "TCP".into(),
        port: 80,
        allowed_cidrs: Some(vec!["192.0.2.0/24".into(), "198.51.100.1/32".into()]),
        previous_cidrs: vec!["203.0.113.0/24".into()],
        ..Default::default()
    };
    let ops = listener_req(&s, &l);
    let [
        Op::WhereIncludes {
            table: "Address_Set",
            map,
            row,
            ..
        },
    ] = ops.as_slice()
    else {
        panic!("{ops:#?}")
    };
    assert_eq!(map.get(ROLE_KEY).map(String::as_str), Some("allow4"));
    assert_eq!(map.get(LISTENER_KEY).map(String::as_str), Some("L"));
    assert_eq!(
        row,
        &vec![(
            "addresses",
            Datum::Set(vec!["192.0.2.0/24".into(), "198.51.100.1/32".into()])
        )]
    );
    // a family appears: the rows are made anew; no previous list: made anew; unchanged: none
    l.previous_cidrs = vec!["2001:db8::/32".into()];
    assert!(!inserts(&listener_req(&s, &l), "Port_Group").is_empty());
    l.previous_cidrs = vec![];
    assert!(!inserts(&listener_req(&s, &l), "Port_Group").is_empty());
    l.allowed_cidrs = None;
    assert!(listener_req(&s, &l).is_empty());
}

#[test]
fn planned_shape_equals_the_rows_it_writes() {
    let s = topology(true);
    let cidrs = vec!["192.0.2.0/24".to_string()];
    let ops = listener(&s, &req(&cidrs));
    let want = check::planned(&ops).unwrap();
    assert_eq!(want.acls.len(), 2);
    assert_eq!(want.sets.len(), 2);
    // the same rows as the NB would hand them back
    let pg = json!({"_uuid": ["uuid", "pg1"], "name": "keel_aaaa_bbbb",
        "ports": uuids(&["ln", "rp1", "rp2"]), "acls": uuids(&["acl1", "acl2"]),
        "external_ids": map(&[(LB_KEY, "LB"), (LISTENER_KEY, "aaaa-bbbb"), (OWNER_KEY, OWNER)])});
    let acl = json!({"_uuid": ["uuid", "acl1"], "priority": PRIORITY, "direction": "from-lport",
        "action": "drop", "match": "ip4.dst == $keel_aaaa_bbbb_vip4 && tcp.dst == 80"});
    let allow = json!({"_uuid": ["uuid", "acl2"], "priority": PRIORITY + 1, "direction": "from-lport",
        "action": "allow", "match": "ip4.dst == $keel_aaaa_bbbb_vip4 && tcp.dst == 80 && ip4.src == $keel_aaaa_bbbb_allow4"});
    let set = |name: &str, a: &[&str]| {
        json!({"_uuid": ["uuid", name], "name": name, "addresses": ["set", a],
            "external_ids": map(&[(LB_KEY, "LB"), (LISTENER_KEY, "aaaa-bbbb")])})
    };
    let sets = [
        set("keel_aaaa_bbbb_vip4", &["10.0.0.5", "172.24.4.10"]),
        set("keel_aaaa_bbbb_allow4", &["192.0.2.0/24"]),
    ];
    let acls = [acl, allow];
    let found = check::in_nb(std::slice::from_ref(&pg), &acls, &sets);
    let (lb, got) = &found["aaaa-bbbb"];
    assert_eq!(lb, "LB");
    assert!(
        got.differences(&want).is_empty(),
        "{:?}",
        got.differences(&want)
    );
    // a lost anchor and a stale list are named
    let mut pg2 = pg;
    pg2["ports"] = uuids(&["rp1"]);
    let stale = [
        sets[0].clone(),
        set("keel_aaaa_bbbb_allow4", &["10.0.0.0/8"]),
    ];
    let found = check::in_nb(&[pg2], &acls, &stale);
    let d = found["aaaa-bbbb"].1.differences(&want);
    assert_eq!(d.len(), 2, "{d:?}");
    assert!(d[0].starts_with("anchors"));
    assert!(d[1].starts_with("address sets"));
}

#[test]
fn refresh_follows_the_planned_transaction() {
    let s = topology(false);
    // a FIP event's write: the row's external_ids gain the FIP
    let mut ids = s.load_balancers.get("lb1").unwrap().external_ids.clone();
    ids.insert(ext::VIP_FIP.into(), "172.24.4.10".into());
    let ops = vec![Op::Update {
        table: "Load_Balancer",
        uuid: "lb1".into(),
        row: vec![("external_ids", Datum::Map(ids))],
    }];
    let r = refresh_touched(&s, &ops);
    let Some(Op::WhereIncludes { row, .. }) = r.first() else {
        panic!("{r:#?}")
    };
    assert_eq!(
        row,
        &vec![(
            "ports",
            Datum::Refs(vec![
                RowRef::Uuid("ln".into()),
                RowRef::Uuid("rp1".into()),
                RowRef::Uuid("rp2".into())
            ])
        )]
    );
    let Some(Op::WhereIncludes { row, map, .. }) = r.get(1) else {
        panic!("{r:#?}")
    };
    assert_eq!(map.get(ROLE_KEY).map(String::as_str), Some("vip4"));
    assert_eq!(
        row,
        &vec![(
            "addresses",
            Datum::Set(vec!["10.0.0.5".into(), "172.24.4.10".into()])
        )]
    );
    // a transaction that touches no LB: nothing
    assert!(refresh_touched(&s, &[]).is_empty());
}
