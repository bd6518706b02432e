//! Leases under contention (`lease.rs`): many processes' claimants racing for one orphaned
//! load balancer, and lease renewal, on SQLite and MariaDB (`common::each_backend`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use std::sync::Arc;

use chrono::{Duration, NaiveDateTime};
use common::*;
use octavia_db::lease::PendingLb;
use octavia_db::*;

/// Claimants per round and rounds.
const CLAIMANTS: usize = 16;
const ROUNDS: usize = 50;

/// Sets `updated_at` and `provisioning_status` of load balancer `lb`.
async fn set_lb(db: &Database, lb: &str, status: &str, updated_at: NaiveDateTime) {
    let mut tx = db.begin().await.unwrap();
    let n = tx
        .execute(
            "UPDATE `load_balancer` SET `updated_at` = ?, `provisioning_status` = ? WHERE `id` = ?",
            vec![SqlValue::Time(updated_at), status.into(), lb.into()],
        )
        .await
        .unwrap();
    assert_eq!(n, 1);
    tx.commit().await.unwrap();
}

async fn read_lb(db: &Database, lb: &str) -> LoadBalancerRow {
    let mut tx = db.begin_read().await.unwrap();
    let row: LoadBalancerRow = tx.get(lb).await.unwrap();
    tx.rollback().await.unwrap();
    row
}

/// `claim_orphan`: in every one of [`ROUNDS`] rounds the load balancer is made stale again
/// (its lease ended a minute before the cutoff) and [`CLAIMANTS`] tasks, released together,
/// each try to take it over with the same stale read: exactly one wins, and the row carries
/// the winner's `now`. Even rounds: a PENDING_UPDATE load balancer keeps its status; odd
/// rounds: an ACTIVE one (pending children) becomes PENDING_UPDATE.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn claim_orphan_has_one_winner_per_round() {
    each_backend(|db| async move {
        let lb_id = id();
        let mut tx = db.begin().await.unwrap();
        tx.insert(&lb(&lb_id, "PENDING_UPDATE")).await.unwrap();
        tx.commit().await.unwrap();
        let base = now() - Duration::hours(1);
        let lease = Duration::seconds(30);
        for round in 0..ROUNDS {
            let status = if round % 2 == 0 {
                "PENDING_UPDATE"
            } else {
                "ACTIVE"
            };
            // the round's clock: one second later each round
            let at = base + Duration::seconds(round as i64);
            let cutoff = at - lease;
            set_lb(&db, &lb_id, status, cutoff - Duration::seconds(60)).await;
            let stale = PendingLb {
                id: lb_id.clone(),
                provisioning_status: status.into(),
                renewed_at: Some(cutoff - Duration::seconds(60)),
            };
            let start = Arc::new(tokio::sync::Barrier::new(CLAIMANTS));
            let tasks: Vec<_> = (0..CLAIMANTS)
                .map(|_| {
                    let (db, stale, start) = (db.clone(), stale.clone(), start.clone());
                    tokio::spawn(async move {
                        start.wait().await;
                        db.claim_orphan(&stale, cutoff, at).await
                    })
                })
                .collect();
            let mut winners = 0;
            for t in tasks {
                if t.await.unwrap().unwrap() {
                    winners += 1;
                }
            }
            assert_eq!(winners, 1, "round {round} ({status}): {winners} winners");
            let row = read_lb(&db, &lb_id).await;
            assert_eq!(row.updated_at, Some(at), "round {round}");
            assert_eq!(row.provisioning_status, "PENDING_UPDATE", "round {round}");
            // taken: a claimant with a fresh read and the same cutoff finds the lease running
            let fresh = PendingLb {
                renewed_at: Some(at),
                provisioning_status: "PENDING_UPDATE".parse().unwrap(),
                ..stale
            };
            assert!(!db.claim_orphan(&fresh, cutoff, at).await.unwrap());
        }
    })
    .await;
}

/// `renew_leases` renews only the given ids, and of those only PENDING_* ones: an ACTIVE one
/// among the ids and a PENDING_* one not among them keep their `updated_at`. The ids span
/// more than one 500-id statement (ids of no load balancer before them).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn renew_leases_renews_only_the_given_pending_ids() {
    each_backend(|db| async move {
        let old = now() - Duration::hours(2);
        let kinds = [
            ("PENDING_CREATE", true),
            ("PENDING_DELETE", true),
            ("PENDING_UPDATE", true),
            ("ACTIVE", true),
            ("ERROR", true),
            ("PENDING_UPDATE", false),
            ("ACTIVE", false),
        ];
        let mut lbs = Vec::new();
        for (status, _) in kinds {
            let lb_id = id();
            let mut tx = db.begin().await.unwrap();
            tx.insert(&lb(&lb_id, status)).await.unwrap();
            tx.commit().await.unwrap();
            set_lb(&db, &lb_id, status, old).await;
            lbs.push(lb_id);
        }
        let mut ids: Vec<String> = (0..700).map(|_| id()).collect();
        ids.extend(
            lbs.iter()
                .zip(kinds)
                .filter(|(_, (_, given))| *given)
                .map(|(l, _)| l.clone()),
        );
        let at = now();
        let renewed = db.renew_leases(&ids, at).await.unwrap();
        assert_eq!(renewed, 3);
        for (lb_id, (status, given)) in lbs.iter().zip(kinds) {
            let row = read_lb(&db, lb_id).await;
            let want = if given && status.starts_with("PENDING_") {
                at
            } else {
                old
            };
            assert_eq!(row.updated_at, Some(want), "{status} (given: {given})");
            assert_eq!(row.provisioning_status, status, "{status} (given: {given})");
        }
        // nothing to renew: no statement fails
        assert_eq!(db.renew_leases(&[], at).await.unwrap(), 0);
    })
    .await;
}
