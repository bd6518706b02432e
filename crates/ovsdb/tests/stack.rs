//! Read-only checks against the stack's running OVN databases (STACK_OVN_NB / STACK_OVN_SB).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

use ovsdb::{Client, MonitorSpec};
use serde_json::{Value as Json, json};

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!("{name} is not set: run via ci/test.sh (it sources ci/stack/env.sh)")
    })
}

/// `ovsdb-client query` of every row of `table`, `_uuid` column only.
fn server_uuids(remote: &str, db: &str, table: &str) -> Vec<String> {
    let q = json!([db, {"op": "select", "table": table, "where": [], "columns": ["_uuid"]}]);
    let out = Command::new("ovsdb-client")
        .args(["query", remote, &q.to_string()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: Json = serde_json::from_slice(&out.stdout).unwrap();
    let mut v: Vec<String> = j[0]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["_uuid"][1].as_str().unwrap().to_string())
        .collect();
    v.sort();
    v
}

#[tokio::test]
async fn replicas_of_the_stack_databases_match_the_servers() {
    for (var, db, tables) in [
        (
            "STACK_OVN_NB",
            "OVN_Northbound",
            ["NB_Global", "Logical_Switch", "Load_Balancer"],
        ),
        (
            "STACK_OVN_SB",
            "OVN_Southbound",
            ["SB_Global", "Chassis", "Datapath_Binding"],
        ),
    ] {
        let remote = env(var);
        let mut spec = MonitorSpec::new();
        for t in tables {
            spec = spec.table(t);
        }
        let c = Client::connect(&remote, db, spec).await.unwrap();
        // Another writer (northd, neutron) may commit between our two reads; retry once.
        for t in tables {
            let mine = |c: &Client| {
                let mut v: Vec<String> = c
                    .replica()
                    .table(t)
                    .unwrap()
                    .rows()
                    .map(|r| r.uuid().to_string())
                    .collect();
                v.sort();
                v
            };
            let theirs = server_uuids(&remote, db, t);
            c.await_replica_caught_up().await.unwrap();
            let first = mine(&c);
            if first != theirs {
                let theirs = server_uuids(&remote, db, t);
                c.await_replica_caught_up().await.unwrap();
                assert_eq!(mine(&c), theirs, "{db}.{t}");
            }
        }
        assert_eq!(
            c.replica().table(tables[0]).unwrap().len(),
            1,
            "{db} has one global row"
        );
    }
}
