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
    // the row as the driver wrote it, then drifted: wrong port, an extra member, a stale
    // listener, a member missing
    nb.transact(vec![
        json!({"op": "insert", "table": "Load_Balancer", "row": {
        "name": lb_id, "protocol": "tcp",
        "external_ids": ["map", [["neutron:vip", "10.66.0.5"], ["enabled", "True"],
            ["listener_L", "81:pool_P"], ["listener_GONE", "90:"],
            ["pool_P", "member_M1_10.66.0.10:80_S,member_X_10.66.0.99:80_S"]]],
        "vips": ["map", [["10.66.0.5:81", "10.66.0.10:80,10.66.0.99:80"]]]}}),
    ])
    .await
    .unwrap();
    let desired = LoadBalancer {
        loadbalancer_id: lb_id.clone(),
        listeners: Some(vec![Listener {
            listener_id: "L".into(),
            protocol_port: Some(80),
            default_pool_id: Some("P".into()),
            ..Default::default()
        }]),
        pools: Some(vec![Pool {
            pool_id: "P".into(),
            members: Some(vec![
                Member {
                    member_id: "M1".into(),
                    address: Some("10.66.0.10".into()),
                    protocol_port: Some(80),
                    ..Default::default()
                },
                Member {
                    member_id: "M2".into(),
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
    assert_eq!(row.external_ids["listener_L"], "80:pool_P");
    assert!(!row.external_ids.contains_key("listener_GONE"));
    assert_eq!(
        row.external_ids["pool_P"],
        "member_M1_10.66.0.10:80_S,member_M2_10.66.0.11:80_S"
    );
    assert_eq!(row.vips["10.66.0.5:80"], "10.66.0.10:80,10.66.0.11:80");
    assert_eq!(row.vips.len(), 1);
}
