//! Integration tests against private `ovsdb-server` processes with the OVN NB schema.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::{NB, NbServer};
use ovsdb::{
    Change, Client, Condition, Error, MonitorSpec, Mutation, Snapshot, Transaction, TxnErrorKind,
    Uuid, Value, WaitUntil,
};
use serde_json::json;
use tokio::sync::broadcast;

fn spec() -> MonitorSpec {
    MonitorSpec::new()
        .table("Load_Balancer")
        .table("Logical_Switch")
        .columns("NB_Global", &["nb_cfg", "external_ids"])
}

/// Next event, bounded so a missing event fails the test instead of hanging it.
async fn next_change(rx: &mut broadcast::Receiver<Change>) -> Change {
    tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("no change event within 10s")
        .expect("event channel closed")
}

fn strs(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Every row of `table` in the replica equals the server's own answer to a `select`.
fn assert_replica_matches_server(server: &NbServer, snap: &Snapshot, table: &str) {
    let rows = server.query_all(table);
    let t = snap.table(table).unwrap();
    assert_eq!(t.len(), rows.len(), "{table}: row count");
    let ts = snap.schema().table(table).unwrap();
    for r in rows {
        let uuid = Uuid::parse_str(r["_uuid"][1].as_str().unwrap()).unwrap();
        let mine = t
            .get(&uuid)
            .unwrap_or_else(|| panic!("{table} {uuid} missing"));
        for (col, v) in mine.columns() {
            let theirs = ts.columns[col]
                .ty
                .normalize(Value::from_json(&r[col]).unwrap());
            assert_eq!(v, &theirs, "{table} {uuid} column {col}");
        }
    }
}

async fn lb_lifecycle(server: &NbServer, remote: &str) {
    let nb = Client::connect(remote, NB, spec()).await.unwrap();
    let mut events = nb.subscribe();
    assert!(nb.state().connected);
    assert_eq!(nb.replica().schema().name, NB);
    assert!(nb.replica().table("Load_Balancer").unwrap().is_empty());

    // insert with maps and the optional enum column
    let res = nb
        .transact(Transaction::new(NB).comment("keel test").insert(
            "Load_Balancer",
            [
                ("name", Value::from("lb-1")),
                ("protocol", Value::set(["tcp"])),
                (
                    "vips",
                    Value::str_map([("10.0.0.10:80", "10.0.0.5:8080,10.0.0.6:8080")]),
                ),
                (
                    "external_ids",
                    Value::str_map([("neutron:vip", "10.0.0.10"), ("enabled", "True")]),
                ),
            ],
            Some("lb"),
        ))
        .await
        .unwrap();
    assert_eq!(res.len(), 2);
    let lb = res[1].uuid.unwrap();
    // read-your-writes: no waiting between transact and reading the replica
    let snap = nb.replica();
    let row = snap.row("Load_Balancer", &lb).unwrap();
    assert_eq!(row.get_str("name"), Some("lb-1"));
    assert_eq!(row.get_str("protocol"), Some("tcp"));
    assert_eq!(
        row.get_map("vips"),
        strs(&[("10.0.0.10:80", "10.0.0.5:8080,10.0.0.6:8080")])
    );
    assert_eq!(
        row.map_get("external_ids", "neutron:vip"),
        Some("10.0.0.10")
    );
    assert_eq!(
        snap.find_by_name("Load_Balancer", "lb-1").unwrap().uuid(),
        lb
    );
    match next_change(&mut events).await {
        Change::Insert { table, new } => {
            assert_eq!(table, "Load_Balancer");
            assert_eq!(new.uuid(), lb);
        }
        other => panic!("expected insert, got {other:?}"),
    }

    // mutate: add a VIP, drop one external_ids key
    nb.transact(Transaction::new(NB).mutate(
        "Load_Balancer",
        &[Condition::uuid(lb)],
        &[
            Mutation::insert("vips", Value::str_map([("172.24.4.9:80", "10.0.0.5:8080")])),
            Mutation::delete("external_ids", Value::set(["enabled"])),
        ],
    ))
    .await
    .unwrap();
    let row = nb.replica().row("Load_Balancer", &lb).unwrap().clone();
    assert_eq!(
        row.get_map("vips"),
        strs(&[
            ("10.0.0.10:80", "10.0.0.5:8080,10.0.0.6:8080"),
            ("172.24.4.9:80", "10.0.0.5:8080")
        ])
    );
    assert_eq!(
        row.get_map("external_ids"),
        strs(&[("neutron:vip", "10.0.0.10")])
    );
    match next_change(&mut events).await {
        Change::Update { old, new, .. } => {
            assert_eq!(old.get_map("vips").len(), 1);
            assert_eq!(new.get_map("vips").len(), 2);
            let mut cols = Change::Update {
                table: String::new(),
                old,
                new,
            }
            .changed_columns()
            .into_iter()
            .map(str::to_string)
            .collect::<Vec<_>>();
            cols.sort();
            assert_eq!(cols, vec!["external_ids", "vips"]);
        }
        other => panic!("expected update, got {other:?}"),
    }

    // update: replace whole values, clear protocol
    let res = nb
        .transact(Transaction::new(NB).update(
            "Load_Balancer",
            &[Condition::eq("name", "lb-1")],
            [
                ("name", Value::from("lb-2")),
                ("protocol", Value::empty_set()),
            ],
        ))
        .await
        .unwrap();
    assert_eq!(res[0].count, Some(1));
    let snap = nb.replica();
    assert!(snap.find_by_name("Load_Balancer", "lb-1").is_none());
    let row = snap.find_by_name("Load_Balancer", "lb-2").unwrap();
    assert_eq!(row.get_str("protocol"), None);
    assert_replica_matches_server(server, &snap, "Load_Balancer");
    assert!(matches!(
        next_change(&mut events).await,
        Change::Update { .. }
    ));

    // numeric mutate on NB_Global.nb_cfg, a column-restricted table
    let res = nb
        .transact(Transaction::new(NB).insert("NB_Global", [("nb_cfg", Value::from(5))], None))
        .await
        .unwrap();
    let g = res[0].uuid.unwrap();
    nb.transact(Transaction::new(NB).mutate(
        "NB_Global",
        &[Condition::uuid(g)],
        &[Mutation::add("nb_cfg", 3)],
    ))
    .await
    .unwrap();
    let snap = nb.replica();
    let row = snap.row("NB_Global", &g).unwrap();
    assert_eq!(row.get_i64("nb_cfg"), Some(8));
    assert_eq!(row.columns().len(), 2, "only the monitored columns");

    // delete
    let res = nb
        .transact(Transaction::new(NB).delete("Load_Balancer", &[Condition::uuid(lb)]))
        .await
        .unwrap();
    assert_eq!(res[0].count, Some(1));
    assert!(nb.replica().row("Load_Balancer", &lb).is_none());
    loop {
        match next_change(&mut events).await {
            Change::Delete { table, old } if table == "Load_Balancer" => {
                assert_eq!(old.uuid(), lb);
                assert_eq!(old.get_str("name"), Some("lb-2"));
                break;
            }
            Change::Insert { table, .. } | Change::Update { table, .. } => {
                assert_eq!(table, "NB_Global")
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}

#[tokio::test]
async fn load_balancer_lifecycle_over_unix() {
    let server = NbServer::start();
    lb_lifecycle(&server, &server.unix()).await;
}

#[tokio::test]
async fn load_balancer_lifecycle_over_tcp() {
    let server = NbServer::start();
    lb_lifecycle(&server, &server.tcp()).await;
}

#[tokio::test]
async fn rows_written_by_ovn_nbctl_appear_in_replica() {
    let server = NbServer::start();
    let nb = Client::connect(&server.tcp(), NB, spec()).await.unwrap();
    server.nbctl(&["ls-add", "sw0"]);
    server.nbctl(&[
        "lb-add",
        "lb0",
        "10.0.0.1:80",
        "10.0.0.2:80,10.0.0.3:80",
        "tcp",
    ]);
    server.nbctl(&["ls-lb-add", "sw0", "lb0"]);
    nb.await_replica_caught_up().await.unwrap();
    let snap = nb.replica();
    let lb = snap.find_by_name("Load_Balancer", "lb0").unwrap();
    assert_eq!(
        lb.get_map("vips"),
        strs(&[("10.0.0.1:80", "10.0.0.2:80,10.0.0.3:80")])
    );
    assert_eq!(lb.get_str("protocol"), Some("tcp"));
    let sw = snap.find_by_name("Logical_Switch", "sw0").unwrap();
    assert_eq!(sw.get_uuid_set("load_balancer"), vec![lb.uuid()]);
    assert_replica_matches_server(&server, &snap, "Logical_Switch");
    assert_replica_matches_server(&server, &snap, "Load_Balancer");

    // the other direction: our write is visible to ovn-nbctl
    nb.transact(Transaction::new(NB).mutate(
        "Load_Balancer",
        &[Condition::uuid(lb.uuid())],
        &[Mutation::insert(
            "external_ids",
            Value::str_map([("neutron:vip_port_id", "p1")]),
        )],
    ))
    .await
    .unwrap();
    assert_eq!(
        server.nbctl(&[
            "get",
            "Load_Balancer",
            "lb0",
            "external_ids:neutron\\:vip_port_id"
        ]),
        "p1"
    );
}

#[tokio::test]
async fn transaction_errors_are_typed_and_change_nothing() {
    let server = NbServer::start();
    let nb = Client::connect(&server.unix(), NB, spec()).await.unwrap();
    let mut events = nb.subscribe();
    let before = nb.replica();

    // Logical_Switch.load_balancer is a *weak* reference in NB schema 7.0.0 (a dangling uuid
    // is silently dropped), so referential integrity is exercised with the strong
    // Load_Balancer.health_check reference.
    let ghost = Uuid::new_v4();
    let err = nb
        .transact(
            Transaction::new(NB)
                .insert("Logical_Switch", [("name", Value::from("sw-x"))], None)
                .insert(
                    "Load_Balancer",
                    [
                        ("name", Value::from("lb-x")),
                        ("health_check", Value::uuid_set([ghost])),
                    ],
                    None,
                ),
        )
        .await
        .unwrap_err();
    let t = err
        .txn()
        .unwrap_or_else(|| panic!("not a txn error: {err:?}"));
    assert_eq!(t.kind, TxnErrorKind::ReferentialIntegrity, "{t}");
    assert_eq!(t.op_index, None, "commit-time error");

    // a precondition that does not hold: wait with timeout 0
    let err = nb
        .transact(
            Transaction::new(NB)
                .wait(
                    "Load_Balancer",
                    &[Condition::eq("name", "nope")],
                    &["name"],
                    WaitUntil::Equal,
                    vec![BTreeMap::from([("name".to_string(), Value::from("nope"))])],
                    Some(0),
                )
                .insert("Logical_Switch", [("name", Value::from("sw-y"))], None),
        )
        .await
        .unwrap_err();
    assert_eq!(
        err.txn().map(|t| (t.kind, t.op_index)),
        Some((TxnErrorKind::TimedOut, Some(0)))
    );

    // NB_Global has maxRows 1
    let err = nb
        .transact(
            Transaction::new(NB)
                .insert("NB_Global", [("nb_cfg", Value::from(1))], None)
                .insert("NB_Global", [("nb_cfg", Value::from(2))], None),
        )
        .await
        .unwrap_err();
    assert_eq!(
        err.txn().map(|t| t.kind),
        Some(TxnErrorKind::ConstraintViolation)
    );

    // an unknown column is a syntax-class error from the server
    let err = nb
        .transact(Transaction::new(NB).insert("Load_Balancer", [("bogus", Value::from(1))], None))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Transaction(_)), "{err:?}");

    nb.await_replica_caught_up().await.unwrap();
    let after = nb.replica();
    assert!(after.same_contents(&before));
    assert_eq!(after.generation(), before.generation());
    assert!(matches!(
        events.try_recv(),
        Err(broadcast::error::TryRecvError::Empty)
    ));
    assert!(server.query_all("Logical_Switch").is_empty());
}

#[tokio::test]
async fn server_restart_reconnects_and_resyncs() {
    let mut server = NbServer::start();
    let nb = Client::connect(&server.unix(), NB, spec()).await.unwrap();
    let mut state = nb.watch_state();
    let res = nb
        .transact(
            Transaction::new(NB)
                .insert("Load_Balancer", [("name", Value::from("keep"))], None)
                .insert("Load_Balancer", [("name", Value::from("gone"))], None),
        )
        .await
        .unwrap();
    let (keep, gone) = (res[0].uuid.unwrap(), res[1].uuid.unwrap());
    let mut events = nb.subscribe();

    // A request pending when the connection drops fails with a typed error: this `wait`
    // blocks in the server until its 60 s timeout.
    let blocked = {
        let nb = nb.clone();
        tokio::spawn(async move {
            nb.transact(Transaction::new(NB).wait(
                "Load_Balancer",
                &[Condition::uuid(keep)],
                &["name"],
                WaitUntil::Equal,
                vec![BTreeMap::from([("name".to_string(), Value::from("other"))])],
                Some(60_000),
            ))
            .await
        })
    };
    // The wait is in flight once the server has it; an echo behind it proves it was sent.
    nb.await_replica_caught_up().await.unwrap();

    server.stop();
    let err = blocked.await.unwrap().unwrap_err();
    // It was on the wire: the client cannot know whether it committed.
    assert!(matches!(err, Error::OutcomeUnknown), "{err:?}");
    assert!(err.may_have_committed());
    state.wait_for(|s| !s.connected).await.unwrap();
    // While down, requests fail fast instead of queueing.
    assert!(
        nb.await_replica_caught_up()
            .await
            .unwrap_err()
            .is_transient()
    );

    // Change the database behind the client's back.
    server.offline_transact(&json!([NB,
        {"op": "delete", "table": "Load_Balancer", "where": [["name", "==", "gone"]]},
        {"op": "update", "table": "Load_Balancer", "where": [["name", "==", "keep"]],
         "row": {"vips": ["map", [["1.1.1.1:53", "2.2.2.2:53"]]]}},
        {"op": "insert", "table": "Load_Balancer", "row": {"name": "new"}}]));
    server.restart();
    tokio::time::timeout(
        Duration::from_secs(30),
        state.wait_for(|s| s.connected && s.syncs == 2),
    )
    .await
    .expect("no reconnect within 30s")
    .unwrap();

    // A standalone server keeps no transaction history: the resync is a full one.
    assert!(!nb.state().resumed);
    assert!(nb.replica().last_txn_id().is_none());
    let snap = nb.replica();
    assert_replica_matches_server(&server, &snap, "Load_Balancer");
    let fresh = Client::connect(&server.tcp(), NB, spec()).await.unwrap();
    assert!(snap.same_contents(&fresh.replica()));
    assert!(snap.row("Load_Balancer", &gone).is_none());
    assert_eq!(
        snap.row("Load_Balancer", &keep).unwrap().get_map("vips"),
        strs(&[("1.1.1.1:53", "2.2.2.2:53")])
    );

    // The resync reported exactly the differences.
    let mut seen = Vec::new();
    for _ in 0..3 {
        seen.push(match next_change(&mut events).await {
            Change::Insert { new, .. } => format!("insert {}", new.get_str("name").unwrap()),
            Change::Update { new, .. } => format!("update {}", new.get_str("name").unwrap()),
            Change::Delete { old, .. } => format!("delete {}", old.get_str("name").unwrap()),
        });
    }
    seen.sort();
    assert_eq!(seen, vec!["delete gone", "insert new", "update keep"]);
    assert!(matches!(
        events.try_recv(),
        Err(broadcast::error::TryRecvError::Empty)
    ));

    // And the connection works again.
    nb.transact(Transaction::new(NB).delete("Load_Balancer", &[Condition::eq("name", "new")]))
        .await
        .unwrap();
    assert!(nb.replica().find_by_name("Load_Balancer", "new").is_none());
}

#[tokio::test]
async fn connect_errors_are_typed() {
    let server = NbServer::start();
    assert!(matches!(
        Client::connect("tcp:127.0.0.1", NB, spec()).await,
        Err(Error::InvalidRemote(_))
    ));
    let missing = format!("unix:{}/nope.sock", server.dir.path().display());
    assert!(matches!(
        Client::connect(&missing, NB, spec()).await,
        Err(Error::Connect { .. })
    ));
    assert!(matches!(
        Client::connect(&server.unix(), "Nope", spec()).await,
        Err(Error::Rpc { .. })
    ));
    assert!(matches!(
        Client::connect(&server.unix(), NB, MonitorSpec::new().table("Nope")).await,
        Err(Error::Schema(_))
    ));
    assert!(matches!(
        Client::connect(
            &server.unix(),
            NB,
            MonitorSpec::new().columns("Load_Balancer", &["x"])
        )
        .await,
        Err(Error::Schema(_))
    ));
    // MonitorSpec::all follows every table of the server's schema.
    let nb = Client::connect(&server.unix(), NB, MonitorSpec::all())
        .await
        .unwrap();
    assert_eq!(
        nb.replica().tables().count(),
        nb.replica().schema().tables.len()
    );
}

#[tokio::test]
async fn remote_lists_are_tried_in_turn() {
    let server = NbServer::start();
    let dead = format!("unix:{}/nope.sock", server.dir.path().display());
    let nb = Client::connect(&format!("{dead},{}", server.tcp()), NB, spec())
        .await
        .unwrap();
    assert!(nb.state().connected);
    assert!(matches!(
        Client::connect(&format!("{dead}, {dead}"), NB, spec()).await,
        Err(Error::Connect { .. })
    ));
}

async fn owned(rx: &mut tokio::sync::watch::Receiver<bool>, want: bool, what: &str) {
    tokio::time::timeout(Duration::from_secs(10), rx.wait_for(|o| *o == want))
        .await
        .unwrap_or_else(|_| panic!("{what}: lock ownership never became {want}"))
        .unwrap();
}

#[tokio::test]
async fn locks_elect_one_owner_and_survive_reconnect() {
    let mut server = NbServer::start();
    let a = Client::connect(&server.unix(), NB, spec()).await.unwrap();
    let b = Client::connect(&server.tcp(), NB, spec()).await.unwrap();
    assert!(matches!(
        a.lock("keel-ovn-agent").await,
        Err(Error::InvalidLockName(_))
    ));
    let mut la = a.lock("keel_ovn_agent").await.unwrap();
    owned(&mut la, true, "first lock").await;
    let mut lb = b.lock("keel_ovn_agent").await.unwrap();
    assert!(!*lb.borrow());
    assert!(a.has_lock("keel_ovn_agent") && !b.has_lock("keel_ovn_agent"));

    // release → the waiter gets a `locked` notification
    a.unlock("keel_ovn_agent").await.unwrap();
    owned(&mut lb, true, "waiter after unlock").await;
    assert!(!a.has_lock("keel_ovn_agent"));

    // steal → the previous owner gets `stolen`
    let mut la = a.steal("keel_ovn_agent").await.unwrap();
    owned(&mut la, true, "steal").await;
    owned(&mut lb, false, "stolen").await;

    // a restart drops every lock; whoever asks first after reconnecting owns it, the other
    // waits; exactly one owner in the end
    let mut sa = a.watch_state();
    let mut sb = b.watch_state();
    server.restart();
    for s in [&mut sa, &mut sb] {
        tokio::time::timeout(
            Duration::from_secs(30),
            s.wait_for(|s| s.connected && s.syncs == 2),
        )
        .await
        .expect("no reconnect")
        .unwrap();
    }
    a.await_replica_caught_up().await.unwrap();
    b.await_replica_caught_up().await.unwrap();
    assert!(
        a.has_lock("keel_ovn_agent") ^ b.has_lock("keel_ovn_agent"),
        "exactly one owner"
    );
}
