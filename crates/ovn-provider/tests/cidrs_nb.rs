//! `allowed_cidrs` rows (`ovn_provider::cidrs`) written through the driver's own NB path
//! (`OvsdbNb::transact`) to a real, private `ovsdb-server` with the OVN NB schema (the
//! `crates/ovsdb/tests/common` harness: `ovsdb-tool create`, a unix socket in a temp dir,
//! killed on drop; a missing binary or schema fails the test, never skips it).
//!
//! What it proves: the planned transaction is accepted by the server as one transaction (the
//! names are valid, the references resolve); a listener's rows are a port group anchored on
//! one router port per switch holding the LB, its ACL and its address sets; replacing the
//! list leaves one set of rows (the old ACL garbage-collected); a floating IP's refresh
//! reaches the VIP sets of every listener of the LB; removal by listener, by LB and of
//! everything leaves no row of Keel's, while a Neutron-like port group, its ACL, an address
//! set and a switch ACL that Keel did not make are untouched throughout.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../ovsdb/tests/common/mod.rs"]
mod ovsdb_common;

use ovn_provider::cidrs::{self, ListenerCidrs};
use ovn_provider::nb::{Datum, Op, RowRef};
use ovn_provider::{NbDatabase, NbSnapshot, OvsdbNb};
use ovsdb_common::NbServer;
use serde_json::{Value, json};

fn map(pairs: &[(&str, &str)]) -> Datum {
    Datum::Map(
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    )
}

/// Attaches the row `lb` inserted by the same transaction to switch `ls`.
fn attach(ls: &str) -> Op {
    Op::Mutate {
        table: "Logical_Switch",
        uuid: ls.to_string(),
        column: "load_balancer",
        insert: true,
        value: Datum::Refs(vec![RowRef::Named("lb".into())]),
    }
}

/// The rows of `table` (ovsdb-client's view), sorted by their JSON text.
fn rows(server: &NbServer, table: &str) -> Vec<Value> {
    let mut r = server.query_all(table);
    r.sort_by_key(|v| v.to_string());
    r
}

fn named<'a>(rows: &'a [Value], name: &str) -> &'a Value {
    rows.iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no row {name} in {rows:?}"))
}

fn set(v: &Value) -> Vec<String> {
    match v {
        Value::Array(a) if a.len() == 2 && a[0] == "set" => {
            let mut out: Vec<String> = a[1]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| match x {
                    Value::Array(u) => u[1].as_str().unwrap().to_string(),
                    other => other.as_str().unwrap().to_string(),
                })
                .collect();
            out.sort();
            out
        }
        Value::Array(u) if u.len() == 2 && u[0] == "uuid" => vec![u[1].as_str().unwrap().into()],
        Value::String(s) => vec![s.clone()],
        other => panic!("not a set: {other}"),
    }
}

fn uuid_of(rows: &[Value], name: &str) -> String {
    named(rows, name)["_uuid"][1].as_str().unwrap().to_string()
}

/// Keel's rows: port groups and address sets carrying its owner key.
fn ours(server: &NbServer) -> (Vec<String>, Vec<String>) {
    let is_ours = |r: &&Value| r["external_ids"].to_string().contains(cidrs::OWNER);
    let names = |t: &str| -> Vec<String> {
        let mut n: Vec<String> = rows(server, t)
            .iter()
            .filter(is_ours)
            .map(|r| r["name"].as_str().unwrap().to_string())
            .collect();
        n.sort();
        n
    };
    (names("Port_Group"), names("Address_Set"))
}

async fn apply(nb: &OvsdbNb, ops: Vec<Op>) {
    nb.transact(&ops).await.unwrap();
}

fn listener<'a>(id: &'a str, port: u16, list: &'a [String]) -> ListenerCidrs<'a> {
    ListenerCidrs {
        listener_id: id,
        lb_id: "LB",
        protocol: "TCP",
        port,
        cidrs: list,
    }
}

const L1: &str = "11111111-aaaa-bbbb-cccc-000000000001";
const L2: &str = "11111111-aaaa-bbbb-cccc-000000000002";

#[tokio::test]
async fn rows_written_replaced_refreshed_removed_on_a_real_server() {
    let server = NbServer::start();
    server.nbctl(&["ls-add", "neutron-net1"]);
    server.nbctl(&["lsp-add", "neutron-net1", "vip-port"]);
    server.nbctl(&[
        "lsp-add",
        "neutron-net1",
        "rp1",
        "--",
        "lsp-set-type",
        "rp1",
        "router",
    ]);
    server.nbctl(&["ls-add", "neutron-net2"]);
    server.nbctl(&[
        "lsp-add",
        "neutron-net2",
        "rp2",
        "--",
        "lsp-set-type",
        "rp2",
        "router",
    ]);
    // what Neutron owns: a security group's port group with an ACL, an address set, and an
    // ACL on a switch
    server.nbctl(&[
        "--",
        "--id=@a",
        "create",
        "ACL",
        "priority=1002",
        "direction=from-lport",
        "match=\"ip4.src == 10.9.9.9\"",
        "action=allow-related",
        "--",
        "create",
        "Port_Group",
        "name=pg_sg",
        "acls=@a",
        "external_ids:\"neutron:security_group_id\"=sg",
    ]);
    server.nbctl(&["pg-set-ports", "pg_sg", "vip-port"]);
    server.nbctl(&[
        "create",
        "Address_Set",
        "name=as_sg",
        "addresses=\"10.9.9.9\"",
    ]);
    server.nbctl(&[
        "acl-add",
        "neutron-net2",
        "to-lport",
        "1001",
        "ip4",
        "allow",
    ]);
    let foreign = |s: &NbServer| {
        let pg: Vec<Value> = rows(s, "Port_Group")
            .into_iter()
            .filter(|r| r["name"] == "pg_sg")
            .collect();
        let as_: Vec<Value> = rows(s, "Address_Set")
            .into_iter()
            .filter(|r| r["name"] == "as_sg")
            .collect();
        let acl: Vec<Value> = rows(s, "ACL")
            .into_iter()
            .filter(|r| !r["external_ids"].to_string().contains(cidrs::OWNER))
            .collect();
        (pg, as_, acl)
    };
    let before = foreign(&server);
    assert_eq!(before.2.len(), 2);

    let nb = OvsdbNb::connect(&server.unix()).await.unwrap();
    let ls = rows(&server, "Logical_Switch");
    let (ls1, ls2) = (uuid_of(&ls, "neutron-net1"), uuid_of(&ls, "neutron-net2"));
    let lb_ids = map(&[
        ("neutron:vip", "10.0.0.5"),
        ("neutron:vip_port_id", "vip-port"),
        ("ls_refs", r#"{"neutron-net1": 1}"#),
        ("enabled", "True"),
    ]);
    let insert = Op::Insert {
        table: "Load_Balancer",
        uuid_name: "lb".into(),
        row: vec![
            ("name", Datum::Str("LB".into())),
            ("protocol", Datum::Str("tcp".into())),
            ("external_ids", lb_ids),
        ],
    };
    nb.transact(&[insert, attach(&ls1), attach(&ls2)])
        .await
        .unwrap();
    let snap: NbSnapshot = nb.full_snapshot().await.unwrap();

    // create: one port group anchored on both router ports, one ACL, two address sets
    let list = vec!["192.0.2.7/24".to_string(), "2001:db8::/32".to_string()];
    apply(&nb, cidrs::listener(&snap, &listener(L1, 80, &list))).await;
    let lsp = rows(&server, "Logical_Switch_Port");
    let (rp1, rp2) = (uuid_of(&lsp, "rp1"), uuid_of(&lsp, "rp2"));
    let pgs = rows(&server, "Port_Group");
    let g1 = named(&pgs, &cidrs::group_name(L1));
    let mut anchors = vec![rp1.clone(), rp2.clone()];
    anchors.sort();
    assert_eq!(set(&g1["ports"]), anchors);
    let acls = rows(&server, "ACL");
    let acl1 = set(&g1["acls"]);
    assert_eq!(
        acl1.len(),
        2,
        "the LB has IPv4 addresses only: allow and drop: {g1}"
    );
    let mut got: Vec<(Value, Value, Value)> = acl1
        .iter()
        .map(|u| {
            let a = acls.iter().find(|a| a["_uuid"][1] == *u).unwrap();
            assert_eq!(a["direction"], "from-lport");
            (
                a["priority"].clone(),
                a["action"].clone(),
                a["match"].clone(),
            )
        })
        .collect();
    got.sort_by_key(|g| g.0.to_string());
    let vip4 = "$keel_11111111_aaaa_bbbb_cccc_000000000001_vip4";
    let allow4 = "$keel_11111111_aaaa_bbbb_cccc_000000000001_allow4";
    assert_eq!(
        got,
        vec![
            (
                json!(cidrs::PRIORITY),
                json!("drop"),
                json!(format!("ip4.dst == {vip4} && tcp.dst == 80"))
            ),
            (
                json!(cidrs::PRIORITY + 1),
                json!("allow"),
                json!(format!(
                    "ip4.dst == {vip4} && tcp.dst == 80 && ip4.src == {allow4}"
                ))
            ),
        ]
    );
    let sets = rows(&server, "Address_Set");
    assert_eq!(
        set(&named(&sets, &cidrs::set_name(L1, "allow", false))["addresses"]),
        vec!["192.0.2.0/24"]
    );
    assert_eq!(
        set(&named(&sets, &cidrs::set_name(L1, "vip", false))["addresses"]),
        vec!["10.0.0.5"]
    );

    // a new list replaces the rows: still one group, its old ACL gone with it
    let list = vec!["198.51.100.0/24".to_string(), "203.0.113.9/32".to_string()];
    apply(&nb, cidrs::listener(&snap, &listener(L1, 80, &list))).await;
    let sets = rows(&server, "Address_Set");
    assert_eq!(
        set(&named(&sets, &cidrs::set_name(L1, "allow", false))["addresses"]),
        vec!["198.51.100.0/24", "203.0.113.9/32"]
    );
    assert_eq!(
        rows(&server, "ACL").len(),
        4,
        "Neutron's two and Keel's allow and drop"
    );

    // a second listener; a floating IP reaches both listeners' VIP sets
    let list2 = vec!["192.0.2.0/24".to_string()];
    apply(&nb, cidrs::listener(&snap, &listener(L2, 443, &list2))).await;
    let lb_uuid = rows(&server, "Load_Balancer")[0]["_uuid"][1]
        .as_str()
        .unwrap()
        .to_string();
    nb.transact(&[Op::Mutate {
        table: "Load_Balancer",
        uuid: lb_uuid,
        column: "external_ids",
        insert: true,
        value: map(&[("neutron:vip_fip", "172.24.4.10")]),
    }])
    .await
    .unwrap();
    let snap = nb.full_snapshot().await.unwrap();
    apply(&nb, cidrs::refresh_lb(&snap, "LB")).await;
    let sets = rows(&server, "Address_Set");
    for l in [L1, L2] {
        assert_eq!(
            set(&named(&sets, &cidrs::set_name(l, "vip", false))["addresses"]),
            vec!["10.0.0.5", "172.24.4.10"]
        );
    }
    let (pgs, ass) = ours(&server);
    assert_eq!(pgs.len(), 2);
    assert_eq!(ass.len(), 4);

    // an empty list removes the listener's rows only
    apply(&nb, cidrs::listener(&snap, &listener(L1, 80, &[]))).await;
    assert_eq!(ours(&server).0, vec![cidrs::group_name(L2)]);
    assert_eq!(rows(&server, "ACL").len(), 4);

    // the LB's removal removes the rest; Neutron's rows are as they were
    apply(&nb, cidrs::remove_lb("LB")).await;
    assert_eq!(ours(&server), (vec![], vec![]));
    assert_eq!(rows(&server, "ACL").len(), 2);
    assert_eq!(foreign(&server), before);

    // `remove_all`: every LB's rows, nothing else
    apply(&nb, cidrs::listener(&snap, &listener(L1, 80, &list))).await;
    assert_eq!(ours(&server).0.len(), 1);
    apply(&nb, cidrs::remove_all()).await;
    assert_eq!(ours(&server), (vec![], vec![]));
    assert_eq!(foreign(&server), before);
}
