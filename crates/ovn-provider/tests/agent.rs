//! Agent leader election against the real NB/SB/northd: two agents with separate NB
//! connections share one lock; only the holder turns a `Service_Monitor` change into member
//! statuses, and when the holder's connection drops the other takes over.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::time::Duration;

use ovn_provider::{OvnConfig, OvnProvider, OvsdbNb};
use provider::OperatingStatus as Op;
use serde_json::json;
use tokio::sync::mpsc;

mod common;
use common::*;

async fn sb_client() -> ovsdb::Client {
    ovsdb::Client::connect(
        &env("STACK_OVN_SB"),
        "OVN_Southbound",
        ovsdb::MonitorSpec::new().table("Service_Monitor"),
    )
    .await
    .unwrap()
}

fn nb_txn(ops: Vec<serde_json::Value>) -> ovsdb::Transaction {
    ops.into_iter()
        .fold(ovsdb::Transaction::new("OVN_Northbound"), |t, op| t.raw(op))
}

async fn set_status(sb: &ovsdb::Client, uuid: ovsdb::Uuid, status: &str) {
    sb.transact(ovsdb::Transaction::new("OVN_Southbound").update(
        "Service_Monitor",
        &[ovsdb::Condition::uuid(uuid)],
        [("status", ovsdb::Value::set([status]))],
    ))
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
    let admin = ovsdb::Client::connect(
        &env("STACK_OVN_NB"),
        "OVN_Northbound",
        ovsdb::MonitorSpec::new(),
    )
    .await
    .unwrap();
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
            let nb = OvsdbNb::connect(&env("STACK_OVN_NB")).await.unwrap();
            let sb = sb_client().await;
            let (tx, rx) = mpsc::unbounded_channel();
            let d = OvnProvider::with_nb(
                Arc::new(nb.clone()),
                neutron(),
                Arc::new(Sink(tx)),
                OvnConfig::default(),
            );
            let client = nb.client().clone();
            let task = tokio::spawn({
                let client = client.clone();
                let lock = lock.clone();
                async move { d.run_agent_with_lock(client, sb, &lock).await }
            });
            // the same session's lock watch (registers the request with the server)
            let held = client.lock(&lock).await.unwrap();
            let _ = tag;
            (client, task, rx, held)
        }
    };
    let (client_a, task_a, mut rx_a, mut held_a) = start("A").await;
    tokio::time::timeout(Duration::from_secs(10), held_a.wait_for(|h| *h))
        .await
        .expect("A never got the lock")
        .unwrap();
    let (client_b, task_b, mut rx_b, mut held_b) = start("B").await;
    assert!(!*held_b.borrow(), "B must wait for the lock");

    // the monitor northd makes for the member
    let sb = sb_client().await;
    let mut sb_events = sb.subscribe();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let sm = loop {
        let found = sb.replica().table("Service_Monitor").and_then(|t| {
            t.rows()
                .find(|r| r.get_str("logical_port") == Some(lsp.as_str()))
                .map(|r| r.uuid())
        });
        if let Some(u) = found {
            break u;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "northd made no Service_Monitor for {lsp}"
        );
        let _ = tokio::time::timeout_at(deadline, sb_events.recv()).await;
    };

    // 1. the holder acts
    set_status(&sb, sm, "offline").await;
    let r = next(&mut rx_a).await;
    assert_eq!(rec(&r.members, "M").1, Some(Op::Error), "{r:?}");

    // 2. the holder's connection drops (every clone gone): B is granted the lock
    task_a.abort();
    let _ = task_a.await;
    drop(held_a);
    drop(client_a);
    tokio::time::timeout(Duration::from_secs(30), held_b.wait_for(|h| *h))
        .await
        .expect("B never took over the lock")
        .unwrap();

    // 3. B handles the next event; its FIRST report is this one (it ignored event 1)
    set_status(&sb, sm, "online").await;
    let r = next(&mut rx_b).await;
    assert_eq!(rec(&r.members, "M").1, Some(Op::Online), "{r:?}");

    task_b.abort();
    drop(client_b);
    admin
        .transact(nb_txn(vec![
            json!({"op": "delete", "table": "Logical_Switch", "where": [["name", "==", ls]]}),
            json!({"op": "delete", "table": "Load_Balancer", "where": [["name", "==", lb_id]]}),
        ]))
        .await
        .unwrap();
}
