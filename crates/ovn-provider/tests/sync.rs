//! `ovn-db-sync` against the real NB: a row altered behind the driver's back is repaired in
//! one transaction, and a second run finds nothing to do.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ovn_provider::{NbDatabase, OvsdbNb, sync};
use provider::{HealthMonitor, Listener, LoadBalancer, Member, Pool};
use serde_json::json;

mod common;
use common::*;

/// One `ovn-db-sync` run of `desired` (a dry run when `dry_run`): the differences it found.
async fn run_sync(nb: &OvsdbNb, desired: &LoadBalancer, dry_run: bool) -> Vec<sync::Difference> {
    sync::sync(
        nb,
        None,
        std::slice::from_ref(desired),
        &sync::SyncOptions {
            dry_run,
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .differences
}

/// Load balancer `lb_id` as Octavia holds it: listener `l` on port 80 whose default pool is
/// `pool`.
fn desired(lb_id: &str, l: &str, pool: Pool) -> LoadBalancer {
    LoadBalancer {
        loadbalancer_id: lb_id.into(),
        listeners: Some(vec![Listener {
            listener_id: l.into(),
            protocol_port: Some(80),
            default_pool_id: Some(Some(pool.pool_id.clone())),
            ..Default::default()
        }]),
        pools: Some(vec![pool]),
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sync_repairs_drift_and_is_idempotent() {
    let nb = nb().await.unwrap();
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
    nb.client()
        .transact(nb_txn(vec![
        json!({"op": "insert", "table": "Load_Balancer", "row": {
        "name": lb_id, "protocol": "tcp",
        "external_ids": ["map", [["neutron:vip", "10.66.0.5"], ["enabled", "True"],
            [format!("listener_{l}"), format!("81:pool_{p}")], ["listener_GONE", "90:"],
            [format!("pool_{p}"), format!("member_{m1}_10.66.0.10:80_S,member_X_10.66.0.99:80_S")]]],
        "vips": ["map", [["10.66.0.5:81", "10.66.0.10:80,10.66.0.99:80"]]]}}),
    ]))
    .await
    .unwrap();
    let desired = desired(
        &lb_id,
        &l,
        Pool {
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
        },
    );
    let dry = run_sync(&nb, &desired, true).await;
    let fixed = run_sync(&nb, &desired, false).await;
    let again = run_sync(&nb, &desired, false).await;
    let snap = nb.full_snapshot().await.unwrap();
    let row = snap.lbs_named(&lb_id)[0].clone();
    nb.client()
        .transact(nb_txn(vec![delete_named("Load_Balancer", &lb_id)]))
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

/// Row-level pool settings and a health check's `vip` drifted in the real NB: the sync writes
/// `selection_fields` of the algorithm, `options:affinity_timeout` of the session persistence
/// and `vip` = `<VIP>:<listener port>`; a second run finds nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sync_repairs_pool_options_and_health_check_vip() {
    let nb = nb().await.unwrap();
    let lb_id = uid();
    let t = uid().replace('-', "");
    let (l, p, h) = (format!("L{t}"), format!("P{t}"), format!("H{t}"));
    let options = ovsdb_map(&HC_OPTIONS);
    nb.client()
        .transact(nb_txn(vec![
            json!({"op": "insert", "table": "Load_Balancer_Health_Check", "uuid-name": "hc",
            "row": {"vip": "10.67.0.5:99", "options": options,
                "external_ids": ["map", [["octavia:healthmonitor", h], ["octavia:pool_id", p],
                    ["octavia:vip", "10.67.0.5"]]]}}),
            json!({"op": "insert", "table": "Load_Balancer", "row": {
            "name": lb_id, "protocol": "tcp",
            "selection_fields": ["set", ["ip_src", "tp_src"]],
            "options": ["map", [["affinity_timeout", "99"]]],
            "health_check": ["named-uuid", "hc"],
            "external_ids": ["map", [["neutron:vip", "10.67.0.5"], ["enabled", "True"],
                [format!("listener_{l}"), format!("80:pool_{p}")], [format!("pool_{p}"), ""],
                ["octavia:healthmonitors", format!("[\"{h}\"]")]]]}}),
        ]))
        .await
        .unwrap();
    let desired = desired(
        &lb_id,
        &l,
        Pool {
            pool_id: p.clone(),
            lb_algorithm: Some("SOURCE_IP".into()),
            session_persistence: Some(json!({"type": "SOURCE_IP", "persistence_timeout": 120})),
            members: Some(vec![]),
            healthmonitor: Some(HealthMonitor {
                healthmonitor_id: h.clone(),
                pool_id: Some(p.clone()),
                kind: Some("TCP".into()),
                delay: Some(5),
                timeout: Some(3),
                max_retries: Some(2),
                max_retries_down: Some(3),
                ..Default::default()
            }),
            ..Default::default()
        },
    );
    let fixed = run_sync(&nb, &desired, false).await;
    let again = run_sync(&nb, &desired, false).await;
    let snap = nb.full_snapshot().await.unwrap();
    let row = snap.lbs_named(&lb_id)[0].clone();
    let hcs: Vec<_> = row
        .health_check
        .iter()
        .map(|u| snap.health_checks[u].clone())
        .collect();
    nb.client()
        .transact(nb_txn(vec![delete_named("Load_Balancer", &lb_id)]))
        .await
        .unwrap();

    let text: Vec<String> = fixed.iter().map(|d| d.to_string()).collect();
    assert_eq!(fixed.len(), 3, "{text:?}");
    assert!(fixed.iter().all(|d| d.is_repaired()), "{text:?}");
    assert!(again.is_empty(), "second run: {again:?}");
    let mut fields = row.selection_fields.clone();
    fields.sort();
    assert_eq!(fields, ["ip_dst", "ip_src"]);
    assert_eq!(
        row.options,
        [("affinity_timeout".to_string(), "120".to_string())].into()
    );
    assert_eq!(hcs.len(), 1);
    assert_eq!(hcs[0].vip, "10.67.0.5:80");
    assert_eq!(hcs[0].external_ids["octavia:vip"], "10.67.0.5");
}
