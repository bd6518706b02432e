//! `ovn-db-sync` against the real NB: a row altered behind the driver's back is repaired in
//! one transaction, and a second run finds nothing to do.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ovn_provider::{sync, NbDatabase, OvsdbNb};
use provider::{Listener, LoadBalancer, Member, Pool};
use serde_json::json;

mod common;
use common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sync_repairs_drift_and_is_idempotent() {
    let nb = OvsdbNb::connect(&env("STACK_OVN_NB")).await.unwrap();
    let lb_id = uid();
    // ids unique to this run: the pool → row lookup must never find another test's rows
    let t = uid().replace('-', "");
    let (l, p, m1, m2) = (
        format!("L{t}"),
        format!("P{t}"),
        format!("M1{t}"),
        format!("M2{t}"),
    );
    // the row as the driver wrote it, then drifted: wrong port, an extra member, a stale
    // listener, a member missing
    nb.transact(vec![
        json!({"op": "insert", "table": "Load_Balancer", "row": {
        "name": lb_id, "protocol": "tcp",
        "external_ids": ["map", [["neutron:vip", "10.66.0.5"], ["enabled", "True"],
            [format!("listener_{l}"), format!("81:pool_{p}")], ["listener_GONE", "90:"],
            [format!("pool_{p}"), format!("member_{m1}_10.66.0.10:80_S,member_X_10.66.0.99:80_S")]]],
        "vips": ["map", [["10.66.0.5:81", "10.66.0.10:80,10.66.0.99:80"]]]}}),
    ])
    .await
    .unwrap();
    let desired = LoadBalancer {
        loadbalancer_id: lb_id.clone(),
        listeners: Some(vec![Listener {
            listener_id: l.clone(),
            protocol_port: Some(80),
            default_pool_id: Some(p.clone()),
            ..Default::default()
        }]),
        pools: Some(vec![Pool {
            pool_id: p.clone(),
            members: Some(vec![
                Member {
                    member_id: m1.clone(),
                    address: Some("10.66.0.10".into()),
                    protocol_port: Some(80),
                    ..Default::default()
                },
                Member {
                    member_id: m2.clone(),
                    address: Some("10.66.0.11".into()),
                    protocol_port: Some(80),
                    subnet_id: Some("S".into()),
                    ..Default::default()
                },
            ]),
            ..Default::default()
        }]),
        ..Default::default()
    };
    let dry = sync::sync(
        &nb,
        None,
        std::slice::from_ref(&desired),
        &sync::SyncOptions {
            dry_run: true,
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .differences;
    let fixed = sync::sync(
        &nb,
        None,
        std::slice::from_ref(&desired),
        &sync::SyncOptions {
            dry_run: false,
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .differences;
    let again = sync::sync(
        &nb,
        None,
        std::slice::from_ref(&desired),
        &sync::SyncOptions {
            dry_run: false,
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .differences;
    let snap = nb.full_snapshot().await.unwrap();
    let row = snap.lbs_named(&lb_id)[0].clone();
    nb.transact(vec![json!({"op": "delete", "table": "Load_Balancer",
        "where": [["name", "==", lb_id]]})])
        .await
        .unwrap();

    assert_eq!(dry, fixed, "a dry run reports what a run repairs");
    assert!(fixed.len() >= 4, "{fixed:?}");
    assert!(again.is_empty(), "second run: {again:?}");
    assert_eq!(
        row.external_ids[&format!("listener_{l}")],
        format!("80:pool_{p}")
    );
    assert!(!row.external_ids.contains_key("listener_GONE"));
    assert_eq!(
        row.external_ids[&format!("pool_{p}")],
        format!("member_{m1}_10.66.0.10:80_S,member_{m2}_10.66.0.11:80_S")
    );
    assert_eq!(row.vips["10.66.0.5:80"], "10.66.0.10:80,10.66.0.11:80");
    assert_eq!(row.vips.len(), 1);
}
