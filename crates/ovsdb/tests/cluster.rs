//! Clustered NB databases: `monitor_cond_since` resume, leader-only connections, leader loss
//! during a stream of transactions. Private raft clusters on loopback (common::Cluster).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::{Cluster, Gate, NB, assert_rows_match};
use ovsdb::{
    Change, Client, ClientOptions, Condition, Error, MonitorSpec, Transaction, TxnOutcome, Value,
};

fn spec() -> MonitorSpec {
    MonitorSpec::new().table("Load_Balancer")
}

fn lb_row(name: &str) -> [(&'static str, Value); 3] {
    [
        ("name", Value::from(name)),
        ("protocol", Value::set(["tcp"])),
        (
            "vips",
            Value::str_map([("10.0.0.10:80", "10.0.0.5:8080,10.0.0.6:8080")]),
        ),
    ]
}

async fn wait_syncs(nb: &Client, n: u64) -> ovsdb::ConnectionState {
    let mut w = nb.watch_state();
    let s = tokio::time::timeout(
        Duration::from_secs(10),
        w.wait_for(|s| s.connected && s.syncs >= n),
    )
    .await
    .expect("no resync within 10s")
    .unwrap();
    *s
}

fn fast() -> ClientOptions {
    ClientOptions {
        backoff_initial: Duration::from_millis(50),
        backoff_max: Duration::from_millis(500),
        ..Default::default()
    }
}

/// Seeds `n` Load_Balancer rows in one transaction; returns their uuids.
async fn seed(nb: &Client, n: usize) -> Vec<ovsdb::Uuid> {
    let mut t = Transaction::new(NB);
    for i in 0..n {
        t = t.insert("Load_Balancer", lb_row(&format!("lb-{i}")), None);
    }
    let res = nb.transact(t).await.unwrap();
    res.iter().map(|r| r.uuid.unwrap()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_restart_resumes_with_monitor_cond_since() {
    let mut cluster = tokio::task::block_in_place(|| Cluster::start(1));
    let nb = Client::connect_with(&cluster.remote(0), NB, spec(), fast())
        .await
        .unwrap();
    assert!(!nb.state().resumed);
    let lbs = seed(&nb, 200).await;
    let before = nb.replica();
    assert_eq!(before.table("Load_Balancer").unwrap().len(), 200);
    assert!(
        before.last_txn_id().is_some(),
        "clustered server reports transaction ids"
    );

    tokio::task::block_in_place(|| cluster.restart(0));
    let st = wait_syncs(&nb, 2).await;
    // Resumed from the last transaction id: nothing to download, not the 200 rows.
    assert!(st.resumed, "{st:?}");
    assert_eq!(st.sync_rows, 0, "{st:?}");
    let snap = nb.replica();
    assert!(snap.same_contents(&before));
    assert_rows_match(cluster.query_all("Load_Balancer"), &snap, "Load_Balancer");

    // The resumed monitor keeps flowing.
    nb.transact(Transaction::new(NB).update(
        "Load_Balancer",
        &[Condition::uuid(lbs[0])],
        [("name", Value::from("renamed"))],
    ))
    .await
    .unwrap();
    assert_eq!(
        nb.replica()
            .row("Load_Balancer", &lbs[0])
            .unwrap()
            .get_str("name"),
        Some("renamed")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reconnect_resumes_with_only_the_missed_changes() {
    let cluster = tokio::task::block_in_place(|| Cluster::start(1));
    let gate = Gate::start(cluster.remote(0).trim_start_matches("tcp:").to_string()).await;
    let nb = Client::connect_with(&gate.remote(), NB, spec(), fast())
        .await
        .unwrap();
    let other = Client::connect(&cluster.remote(0), NB, spec())
        .await
        .unwrap();
    let lbs = seed(&nb, 200).await;
    // ovsdb-server trims its transaction history once it holds more atoms than the database
    // (ovsdb/transaction.c), which the 200-row seed alone would: our last id must be a later,
    // small transaction, as in steady operation.
    nb.transact(Transaction::new(NB).update(
        "Load_Balancer",
        &[Condition::uuid(lbs[0])],
        [("name", Value::from("steady"))],
    ))
    .await
    .unwrap();
    let mut events = nb.subscribe();

    // Cut only our client off; another client changes 5 rows meanwhile.
    gate.set_open(false);
    tokio::time::timeout(Duration::from_secs(10), async {
        nb.watch_state().wait_for(|s| !s.connected).await.unwrap();
    })
    .await
    .unwrap();
    let res = other
        .transact(
            Transaction::new(NB)
                .update(
                    "Load_Balancer",
                    &[Condition::uuid(lbs[1])],
                    [("name", Value::from("changed-1"))],
                )
                .update(
                    "Load_Balancer",
                    &[Condition::uuid(lbs[2])],
                    [("vips", Value::str_map([("10.0.0.99:443", "10.0.0.7:8443")]))],
                )
                .update(
                    "Load_Balancer",
                    &[Condition::uuid(lbs[3])],
                    [("protocol", Value::set(["udp"]))],
                )
                .delete("Load_Balancer", &[Condition::uuid(lbs[4])])
                .insert("Load_Balancer", lb_row("new-one"), None),
        )
        .await
        .unwrap();
    let new_one = res[4].uuid.unwrap();
    gate.set_open(true);

    let st = wait_syncs(&nb, 2).await;
    assert!(st.resumed, "{st:?}");
    // Exactly the 5 rows that changed came over the wire, not the table (200 rows).
    assert_eq!(st.sync_rows, 5, "{st:?}");
    let snap = nb.replica();
    assert_eq!(snap.table("Load_Balancer").unwrap().len(), 200);
    assert_rows_match(cluster.query_all("Load_Balancer"), &snap, "Load_Balancer");
    assert_eq!(
        snap.row("Load_Balancer", &lbs[1]).unwrap().get_str("name"),
        Some("changed-1")
    );
    assert!(snap.row("Load_Balancer", &new_one).is_some());
    assert!(snap.row("Load_Balancer", &lbs[4]).is_none());

    // Subscribers saw exactly those changes.
    let mut seen = BTreeMap::new();
    while seen.len() < 5 {
        let c = tokio::time::timeout(Duration::from_secs(5), events.recv())
            .await
            .expect("missing change events")
            .unwrap();
        let kind = match c {
            Change::Insert { .. } => "insert",
            Change::Update { .. } => "update",
            Change::Delete { .. } => "delete",
        };
        seen.insert(c.uuid(), kind);
    }
    assert_eq!(seen[&lbs[1]], "update");
    assert_eq!(seen[&lbs[4]], "delete");
    assert_eq!(seen[&new_one], "insert");
    assert!(events.try_recv().is_err(), "no further events");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leader_only_skips_followers() {
    let cluster = tokio::task::block_in_place(|| Cluster::start(3));
    let leader = tokio::task::block_in_place(|| cluster.leader()).unwrap();
    let follower = (leader + 1) % 3;
    // A follower alone is refused with a typed error...
    let err = Client::connect_with(
        &cluster.remote(follower),
        NB,
        spec(),
        ClientOptions {
            connect_timeout: Duration::from_millis(300),
            ..fast()
        },
    )
    .await
    .unwrap_err();
    assert!(
        matches!(&err, Error::ServerUnsuitable { reason, .. } if reason.contains("leader")),
        "{err:?}"
    );
    // ...but accepted when leader_only is off.
    let any = Client::connect_with(
        &cluster.remote(follower),
        NB,
        spec(),
        ClientOptions {
            leader_only: false,
            ..fast()
        },
    )
    .await
    .unwrap();
    assert_eq!(any.state().remote, 0);
    // With the full list (follower first), the client lands on the leader.
    let list = format!("{},{}", cluster.remote(follower), cluster.remote(leader));
    let nb = Client::connect_with(&list, NB, spec(), fast())
        .await
        .unwrap();
    assert_eq!(nb.state().remote, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leader_killed_during_transactions_commits_each_exactly_once() {
    let mut cluster = tokio::task::block_in_place(|| Cluster::start(3));
    let nb = Client::connect_with(&cluster.remotes(), NB, spec(), fast())
        .await
        .unwrap();
    let first_leader = nb.state().remote;
    let mut events = nb.subscribe();
    let n = 150usize;
    let writer = {
        let nb = nb.clone();
        tokio::spawn(async move {
            let mut outcomes = Vec::new();
            for i in 0..n {
                let name = format!("stream-{i}");
                let txn = Transaction::new(NB)
                    .guard_absent("Load_Balancer", &[Condition::eq("name", name.as_str())])
                    .insert("Load_Balancer", lb_row(&name), None);
                outcomes.push((
                    name,
                    nb.transact_retrying(txn, Duration::from_secs(20)).await,
                ));
            }
            outcomes
        })
    };
    // Kill the leader once the stream is under way (10 rows seen).
    tokio::time::timeout(Duration::from_secs(10), async {
        let mut seen = 0;
        while seen < 10 {
            if let Ok(Change::Insert { .. }) = events.recv().await {
                seen += 1;
            }
        }
    })
    .await
    .expect("stream did not start");
    tokio::task::block_in_place(|| cluster.kill(first_leader));
    let outcomes = writer.await.unwrap();
    let st = nb.state();
    assert!(st.syncs >= 2 && st.remote != first_leader, "{st:?}");

    // Every transaction was committed exactly once, or reported failed and is absent.
    let rows = tokio::task::block_in_place(|| cluster.query_all("Load_Balancer"));
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for r in &rows {
        *count
            .entry(r["name"].as_str().unwrap().to_string())
            .or_default() += 1;
    }
    let mut committed = 0;
    for (name, outcome) in &outcomes {
        match outcome {
            Ok(TxnOutcome::Committed(_) | TxnOutcome::AlreadyApplied) => {
                committed += 1;
                assert_eq!(count.get(name), Some(&1), "{name} committed once");
            }
            Err(e) => assert_eq!(count.get(name), None, "{name} failed ({e}) yet present"),
        }
    }
    assert_eq!(
        committed, n,
        "all transactions should succeed within the deadline"
    );
    assert_eq!(rows.len(), n);
    // The replica equals the new leader's content.
    nb.await_replica_caught_up().await.unwrap();
    assert_rows_match(rows, &nb.replica(), "Load_Balancer");
}
