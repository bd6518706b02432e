//! The status updater (octavia/api/drivers/driver_agent/driver_updater.py: status reports and
//! listener statistics) on SQLite and MariaDB.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use common::*;
use octavia_db::*;
use provider::{
    ListenerStats, OperatingStatus as O, ProvisioningStatus as P, StatsReport, StatusRecord,
    StatusReport, StatusSink,
};

struct Graph {
    lb: String,
    listener: String,
    pool: String,
    members: [String; 2],
    hm: String,
    policy: String,
    policy2: String,
    rule: String,
}

/// LB + listener (SNI, CIDR, default pool) + pool (2 members, HM, session persistence) +
/// 2 l7policies (one redirecting to the pool, with a rule), tags everywhere, quota counters = 10.
async fn graph(db: &Database) -> Graph {
    let g = Graph {
        lb: id(),
        listener: id(),
        pool: id(),
        members: [id(), id()],
        hm: id(),
        policy: id(),
        policy2: id(),
        rule: id(),
    };
    let mut tx = db.begin().await.unwrap();
    tx.insert(&lb(&g.lb, "ACTIVE")).await.unwrap();
    tx.insert(&pool(&g.pool, &g.lb)).await.unwrap();
    let mut l = listener(&g.listener, &g.lb, 80);
    l.default_pool_id = Some(g.pool.clone());
    tx.insert(&l).await.unwrap();
    tx.set_sni_refs(&g.listener, &["c1".into()]).await.unwrap();
    tx.set_listener_cidrs(&g.listener, &["10.0.0.0/8".into()])
        .await
        .unwrap();
    tx.insert(&member(&g.members[0], &g.pool, "10.0.0.1"))
        .await
        .unwrap();
    tx.insert(&member(&g.members[1], &g.pool, "10.0.0.2"))
        .await
        .unwrap();
    tx.insert(&health_monitor(&g.hm, &g.pool)).await.unwrap();
    tx.insert(&SessionPersistenceRow {
        pool_id: g.pool.clone(),
        r#type: "SOURCE_IP".into(),
        ..Default::default()
    })
    .await
    .unwrap();
    let mut p1 = l7policy(&g.policy, &g.listener, 1);
    p1.action = "REDIRECT_TO_POOL".into();
    p1.redirect_pool_id = Some(g.pool.clone());
    tx.insert(&p1).await.unwrap();
    tx.insert(&l7policy(&g.policy2, &g.listener, 2))
        .await
        .unwrap();
    tx.insert(&l7rule(&g.rule, &g.policy)).await.unwrap();
    for r in [
        &g.lb,
        &g.listener,
        &g.pool,
        &g.members[0],
        &g.members[1],
        &g.hm,
        &g.policy,
        &g.rule,
    ] {
        tx.set_tags(r, &["tag".into()]).await.unwrap();
    }
    tx.execute(
        "INSERT INTO quotas (project_id, in_use_load_balancer, in_use_listener, in_use_pool, \
         in_use_member, in_use_health_monitor, in_use_l7policy, in_use_l7rule) VALUES (?, 10, 10, 10, 10, 10, 10, 10)",
        vec![PROJECT.into()],
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
    g
}

async fn quota(db: &Database) -> QuotaRow {
    let mut tx = db.begin_read().await.unwrap();
    tx.get::<QuotaRow>(PROJECT).await.unwrap()
}

async fn count(db: &Database, sql: &str, arg: &str) -> i64 {
    let mut tx = db.begin_read().await.unwrap();
    let v: Vec<i64> = tx.fetch_scalars(sql, vec![arg.into()]).await.unwrap();
    v[0]
}

fn rec(id: &str, p: Option<P>, o: Option<O>) -> StatusRecord {
    StatusRecord::new(id, p, o)
}

#[tokio::test]
async fn member_deleted_removes_row_and_tags_and_decrements_quota_once() {
    each_backend(|db| async move {
        let g = graph(&db).await;
        let up = StatusUpdater::new(db.clone());
        let report = StatusReport {
            members: vec![rec(&g.members[0], Some(P::Deleted), Some(O::Online))],
            pools: vec![rec(&g.pool, Some(P::Active), None)],
            loadbalancers: vec![rec(&g.lb, Some(P::Active), None)],
            ..Default::default()
        };
        up.update_status(report.clone()).await.unwrap();
        let mut tx = db.begin_read().await.unwrap();
        assert!(tx.find::<MemberRow>(&g.members[0]).await.unwrap().is_none());
        assert!(tx.tags(&g.members[0]).await.unwrap().is_empty());
        assert!(tx.find::<MemberRow>(&g.members[1]).await.unwrap().is_some());
        drop(tx);
        assert_eq!(quota(&db).await.in_use_member, Some(9));
        // Re-sending: the member is gone, the record is ignored; no second decrement.
        up.update_status(report).await.unwrap();
        assert_eq!(quota(&db).await.in_use_member, Some(9));
    })
    .await;
}

/// A run of DELETED member records (applied set-based) ends as record by record would: every
/// row and its tags gone, one unit given back per member not already DELETED, an unknown id
/// ignored, the counter never below 0.
#[tokio::test]
async fn a_run_of_deleted_members_gives_the_per_record_outcome() {
    each_backend(|db| async move {
        let g = graph(&db).await;
        let [m0, m1] = g.members.clone();
        let mut tx = db.begin().await.unwrap();
        // m1 already DELETED: no unit back for it (as one record alone)
        tx.set_provisioning_status::<MemberRow>(&m1, P::Deleted)
            .await
            .unwrap();
        tx.execute(
            "UPDATE quotas SET in_use_member = 3 WHERE project_id = ?",
            vec![PROJECT.into()],
        )
        .await
        .unwrap();
        tx.commit().await.unwrap();
        let report = StatusReport {
            members: vec![
                rec(&m0, Some(P::Deleted), None),
                rec("no-such-member", Some(P::Deleted), None),
                rec(&m1, Some(P::Deleted), None),
            ],
            loadbalancers: vec![rec(&g.lb, Some(P::Active), None)],
            ..Default::default()
        };
        let up = StatusUpdater::new(db.clone());
        up.update_status(report).await.unwrap();
        let mut tx = db.begin_read().await.unwrap();
        for m in [&m0, &m1] {
            assert!(tx.find::<MemberRow>(m).await.unwrap().is_none());
            assert!(tx.tags(m).await.unwrap().is_empty());
        }
        drop(tx);
        assert_eq!(quota(&db).await.in_use_member, Some(2));

        // more members going than the counter holds: it stops at 0, as one by one would
        let (m2, m3) = (id(), id());
        let mut tx = db.begin().await.unwrap();
        tx.insert(&member(&m2, &g.pool, "10.0.0.3")).await.unwrap();
        tx.insert(&member(&m3, &g.pool, "10.0.0.4")).await.unwrap();
        tx.execute(
            "UPDATE quotas SET in_use_member = 1 WHERE project_id = ?",
            vec![PROJECT.into()],
        )
        .await
        .unwrap();
        tx.commit().await.unwrap();
        let report = StatusReport {
            members: vec![
                rec(&m2, Some(P::Deleted), None),
                rec(&m3, Some(P::Deleted), None),
            ],
            loadbalancers: vec![rec(&g.lb, Some(P::Active), None)],
            ..Default::default()
        };
        up.update_status(report).await.unwrap();
        assert_eq!(quota(&db).await.in_use_member, Some(0));
    })
    .await;
}

#[tokio::test]
async fn pool_and_listener_deleted_cascade_without_child_quota() {
    each_backend(|db| async move {
        let g = graph(&db).await;
        let up = StatusUpdater::new(db.clone());
        up.update_status(StatusReport {
            pools: vec![rec(&g.pool, Some(P::Deleted), None)],
            ..Default::default()
        })
        .await
        .unwrap();
        let mut tx = db.begin_read().await.unwrap();
        assert!(tx.find::<PoolRow>(&g.pool).await.unwrap().is_none());
        for m in &g.members {
            assert!(tx.find::<MemberRow>(m).await.unwrap().is_none());
            assert!(tx.tags(m).await.unwrap().is_empty());
        }
        assert!(tx.find::<HealthMonitorRow>(&g.hm).await.unwrap().is_none());
        assert!(
            tx.find::<SessionPersistenceRow>(&g.pool)
                .await
                .unwrap()
                .is_none()
        );
        assert_eq!(
            tx.get::<ListenerRow>(&g.listener)
                .await
                .unwrap()
                .default_pool_id,
            None
        );
        assert_eq!(
            tx.get::<L7PolicyRow>(&g.policy)
                .await
                .unwrap()
                .redirect_pool_id,
            None
        );
        drop(tx);
        let q = quota(&db).await;
        assert_eq!(
            (q.in_use_pool, q.in_use_member, q.in_use_health_monitor),
            (Some(9), Some(10), Some(10))
        );

        up.update_status(StatusReport {
            listeners: vec![rec(&g.listener, Some(P::Deleted), None)],
            ..Default::default()
        })
        .await
        .unwrap();
        assert_eq!(
            count(
                &db,
                "SELECT COUNT(*) FROM l7policy WHERE listener_id = ?",
                &g.listener
            )
            .await,
            0
        );
        assert_eq!(
            count(&db, "SELECT COUNT(*) FROM l7rule WHERE id = ?", &g.rule).await,
            0
        );
        assert_eq!(
            count(
                &db,
                "SELECT COUNT(*) FROM sni WHERE listener_id = ?",
                &g.listener
            )
            .await,
            0
        );
        assert_eq!(
            count(
                &db,
                "SELECT COUNT(*) FROM listener_cidr WHERE listener_id = ?",
                &g.listener
            )
            .await,
            0
        );
        assert_eq!(
            count(
                &db,
                "SELECT COUNT(*) FROM tags WHERE resource_id = ?",
                &g.policy
            )
            .await,
            0
        );
        assert_eq!(
            count(
                &db,
                "SELECT COUNT(*) FROM listener WHERE id = ?",
                &g.listener
            )
            .await,
            0
        );
        let q = quota(&db).await;
        assert_eq!(
            (q.in_use_listener, q.in_use_l7policy, q.in_use_l7rule),
            (Some(9), Some(10), Some(10))
        );
    })
    .await;
}

#[tokio::test]
async fn l7policy_deleted_renumbers_the_rest() {
    each_backend(|db| async move {
        let g = graph(&db).await;
        let up = StatusUpdater::new(db.clone());
        up.update_status(StatusReport {
            l7policies: vec![rec(&g.policy, Some(P::Deleted), None)],
            ..Default::default()
        })
        .await
        .unwrap();
        let mut tx = db.begin_read().await.unwrap();
        assert!(tx.find::<L7RuleRow>(&g.rule).await.unwrap().is_none());
        assert_eq!(tx.get::<L7PolicyRow>(&g.policy2).await.unwrap().position, 1);
        drop(tx);
        assert_eq!(quota(&db).await.in_use_l7policy, Some(9));
    })
    .await;
}

#[tokio::test]
async fn lb_deleted_is_a_soft_delete_with_one_decrement() {
    each_backend(|db| async move {
        let g = graph(&db).await;
        let up = StatusUpdater::new(db.clone());
        let report = StatusReport {
            loadbalancers: vec![rec(&g.lb, Some(P::Deleted), Some(O::Offline))],
            ..Default::default()
        };
        up.update_status(report.clone()).await.unwrap();
        let mut tx = db.begin_read().await.unwrap();
        let row = tx.get::<LoadBalancerRow>(&g.lb).await.unwrap();
        assert_eq!(
            (
                row.provisioning_status.as_str(),
                row.operating_status.as_str()
            ),
            ("DELETED", "OFFLINE")
        );
        // Children not reported keep their rows.
        assert!(tx.find::<ListenerRow>(&g.listener).await.unwrap().is_some());
        drop(tx);
        assert_eq!(quota(&db).await.in_use_load_balancer, Some(9));
        up.update_status(report).await.unwrap();
        assert_eq!(
            quota(&db).await.in_use_load_balancer,
            Some(9),
            "already DELETED: no decrement"
        );
        // A missing LB fails the record (octavia dereferences its vip).
        let e = up
            .update_status(StatusReport {
                loadbalancers: vec![rec("missing", Some(P::Deleted), None)],
                ..Default::default()
            })
            .await
            .unwrap_err();
        assert_eq!(
            (e.status_object.as_str(), e.status_object_id.as_deref()),
            ("loadbalancers", Some("missing"))
        );
    })
    .await;
}

/// A report that comes after the LB was deleted (a health report queued before the delete, a
/// late provider answer, another agent's) leaves it DELETED: no status of a deleted LB comes
/// back, alone or in a run of equal records.
#[tokio::test]
async fn a_late_report_leaves_a_deleted_lb_deleted() {
    each_backend(|db| async move {
        let g = graph(&db).await;
        let up = StatusUpdater::new(db.clone());
        up.update_status(StatusReport {
            loadbalancers: vec![rec(&g.lb, Some(P::Deleted), Some(O::Offline))],
            ..Default::default()
        })
        .await
        .unwrap();
        for late in [
            vec![rec(&g.lb, Some(P::Active), Some(O::Online))],
            vec![rec(&g.lb, None, Some(O::Error))],
            vec![
                rec(&g.lb, Some(P::Error), Some(O::Online)),
                rec("another-lb", Some(P::Error), Some(O::Online)),
            ],
        ] {
            up.update_status(StatusReport {
                loadbalancers: late.clone(),
                ..Default::default()
            })
            .await
            .unwrap();
            let mut tx = db.begin_read().await.unwrap();
            let row = tx.get::<LoadBalancerRow>(&g.lb).await.unwrap();
            assert_eq!(
                (
                    row.provisioning_status.as_str(),
                    row.operating_status.as_str()
                ),
                ("DELETED", "OFFLINE"),
                "after {late:?}"
            );
        }
    })
    .await;
}

#[tokio::test]
async fn order_stop_at_first_failure_and_unknown_ids() {
    each_backend(|db| async move {
        let g = graph(&db).await;
        let up = StatusUpdater::new(db.clone());
        {
            let mut tx = db.begin().await.unwrap();
            tx.set_provisioning_status::<LoadBalancerRow>(
                &g.lb,
                provider::ProvisioningStatus::PendingUpdate,
            )
            .await
            .unwrap();
            tx.set_provisioning_status::<MemberRow>(
                &g.members[0],
                provider::ProvisioningStatus::PendingCreate,
            )
            .await
            .unwrap();
            tx.commit().await.unwrap();
        }
        // Unknown member / pool / HM / LB ids succeed; an unknown listener fails the report at the
        // listener, after members were applied and before load balancers.
        let e = up
            .update_status(StatusReport {
                loadbalancers: vec![rec(&g.lb, Some(P::Active), None)],
                listeners: vec![rec("nope", Some(P::Active), None)],
                members: vec![
                    rec("ghost", Some(P::Active), None),
                    rec(&g.members[0], Some(P::Active), Some(O::Online)),
                ],
                pools: vec![rec("ghost", None, Some(O::Online))],
                healthmonitors: vec![rec("ghost", Some(P::Active), None)],
                ..Default::default()
            })
            .await
            .unwrap_err();
        assert_eq!(e.status_object, "listeners");
        assert_eq!(e.status_object_id.as_deref(), Some("nope"));
        assert_eq!(e.fault_string, "Listener nope not found.");
        let mut tx = db.begin_read().await.unwrap();
        let m = tx.get::<MemberRow>(&g.members[0]).await.unwrap();
        assert_eq!(
            (m.provisioning_status.as_str(), m.operating_status.as_str()),
            ("ACTIVE", "ONLINE")
        );
        assert!(m.updated_at.is_some());
        assert_eq!(
            tx.get::<LoadBalancerRow>(&g.lb)
                .await
                .unwrap()
                .provisioning_status,
            "PENDING_UPDATE"
        );
        drop(tx);
        for (report, what) in [
            (
                StatusReport {
                    l7policies: vec![rec("nope", None, Some(O::Online))],
                    ..Default::default()
                },
                "L7 Policy nope not found.",
            ),
            (
                StatusReport {
                    l7rules: vec![rec("nope", Some(P::Active), None)],
                    ..Default::default()
                },
                "L7 Rule nope not found.",
            ),
        ] {
            assert_eq!(
                up.update_status(report).await.unwrap_err().fault_string,
                what
            );
        }
    })
    .await;
}

#[tokio::test]
async fn operating_status_only_records() {
    each_backend(|db| async move {
        let g = graph(&db).await;
        let up = StatusUpdater::new(db.clone());
        up.update_status(StatusReport {
            members: vec![rec(&g.members[1], None, Some(O::Error))],
            pools: vec![rec(&g.pool, None, Some(O::Degraded))],
            loadbalancers: vec![rec(&g.lb, None, Some(O::Degraded)), rec(&g.lb, None, None)],
            ..Default::default()
        })
        .await
        .unwrap();
        let mut tx = db.begin_read().await.unwrap();
        let m = tx.get::<MemberRow>(&g.members[1]).await.unwrap();
        assert_eq!(
            (m.provisioning_status.as_str(), m.operating_status.as_str()),
            ("ACTIVE", "ERROR")
        );
        assert_eq!(
            tx.get::<PoolRow>(&g.pool).await.unwrap().operating_status,
            "DEGRADED"
        );
        let l = tx.get::<LoadBalancerRow>(&g.lb).await.unwrap();
        assert_eq!(
            (l.provisioning_status.as_str(), l.operating_status.as_str()),
            ("ACTIVE", "DEGRADED")
        );
        drop(tx);
        assert_eq!(quota(&db).await.in_use_member, Some(10));
    })
    .await;
}

#[tokio::test]
async fn stats_are_upserted_per_listener() {
    each_backend(|db| async move {
        let up = StatusUpdater::new(db.clone());
        let lid = id();
        let s = |n: u64| ListenerStats {
            id: lid.clone(),
            active_connections: n,
            bytes_in: 1000 * n,
            bytes_out: 2000 * n,
            request_errors: n,
            total_connections: 10 * n,
        };
        up.update_stats(StatsReport {
            listeners: vec![s(1)],
        })
        .await
        .unwrap();
        up.update_stats(StatsReport {
            listeners: vec![s(3)],
        })
        .await
        .unwrap();
        // Out of range for BIGINT: logged and skipped, the reply is still OK.
        let mut bad = s(1);
        bad.id = id();
        bad.bytes_in = u64::MAX;
        up.update_stats(StatsReport {
            listeners: vec![bad],
        })
        .await
        .unwrap();
        let mut tx = db.begin_read().await.unwrap();
        let rows = tx
            .list::<ListenerStatisticsRow>(&ListQuery::default())
            .await
            .unwrap();
        assert_eq!(rows.len(), 1);
        let r = &rows[0];
        assert_eq!(
            (
                r.amphora_id.as_str(),
                r.bytes_in,
                r.bytes_out,
                r.active_connections,
                r.total_connections,
                r.request_errors
            ),
            (lid.as_str(), 3000, 6000, 3, 30, 3)
        );
    })
    .await;
}

/// Settling on (20 s bound) and an API child write open on `g`'s LB: the LB PENDING_UPDATE
/// with `listeners`.
async fn settling_child_write(db: &Database, g: &Graph, listeners: &[String]) -> Tx {
    db.set_settle_wait(std::time::Duration::from_secs(20));
    let mut tx = db.begin().await.unwrap();
    tx.lock_lb_for_child(
        &g.lb,
        listeners,
        provider::ProvisioningStatus::PendingUpdate,
    )
    .await
    .unwrap();
    tx
}

/// `settle`: a transaction that put the LB into PENDING_UPDATE commits, and its `commit`
/// returns only once the provider's report (applied by a status updater racing for the row
/// lock) is committed — so a read right after `commit` sees ACTIVE.
#[tokio::test]
async fn commit_waits_for_the_providers_report_on_its_pending_lb() {
    each_backend(|db| async move {
        let g = graph(&db).await;
        let tx = settling_child_write(&db, &g, &[]).await;
        // The provider's report, sent while the API transaction still holds the LB: it can
        // only land after the commit.
        let up = StatusUpdater::new(db.clone());
        let lb = g.lb.clone();
        let reporter = tokio::spawn(async move {
            let report = StatusReport {
                loadbalancers: vec![rec(&lb, Some(P::Active), None)],
                ..Default::default()
            };
            up.update_status(report).await
        });
        tx.commit().await.unwrap();
        let mut tx = db.begin_read().await.unwrap();
        let row = tx.get::<LoadBalancerRow>(&g.lb).await.unwrap();
        assert_eq!(row.provisioning_status, "ACTIVE");
        drop(tx);
        reporter.await.unwrap().unwrap();
        db.set_settle_wait(std::time::Duration::ZERO);
    })
    .await;
}

/// `settle`: without a report the commit still returns (after the bound), committed.
#[tokio::test]
async fn commit_without_a_report_returns_after_the_bound() {
    each_backend(|db| async move {
        let g = graph(&db).await;
        db.set_settle_wait(std::time::Duration::from_millis(50));
        let mut tx = db.begin().await.unwrap();
        tx.lock_lb_for_child(&g.lb, &[], provider::ProvisioningStatus::PendingUpdate)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        let mut tx = db.begin_read().await.unwrap();
        let row = tx.get::<LoadBalancerRow>(&g.lb).await.unwrap();
        assert_eq!(row.provisioning_status, "PENDING_UPDATE");
    })
    .await;
}

/// The commit gate: work the provider queued under an API transaction starts only once that
/// transaction committed — it then reads the PENDING_* state as every other process does —
/// and the commit returns (settle) once that work's report is committed, children included.
#[tokio::test]
async fn queued_work_starts_after_the_commit_and_the_commit_waits_for_its_report() {
    each_backend(|db| async move {
        let g = graph(&db).await;
        let mut tx = settling_child_write(&db, &g, std::slice::from_ref(&g.listener)).await;
        let gate = tx.commit_gate();
        let (db2, lb, listener) = (db.clone(), g.lb.clone(), g.listener.clone());
        let work = tokio::spawn(async move {
            if !gate.committed().await {
                return None;
            }
            let seen = {
                let mut r = db2.begin_read().await.unwrap();
                r.get::<LoadBalancerRow>(&lb)
                    .await
                    .unwrap()
                    .provisioning_status
            };
            let report = StatusReport {
                listeners: vec![rec(&listener, Some(P::Active), Some(O::Online))],
                loadbalancers: vec![rec(&lb, Some(P::Active), None)],
                ..Default::default()
            };
            StatusUpdater::new(db2).update_status(report).await.unwrap();
            Some(seen)
        });
        tx.commit().await.unwrap();
        let mut r = db.begin_read().await.unwrap();
        let lb = r.get::<LoadBalancerRow>(&g.lb).await.unwrap();
        let l = r.get::<ListenerRow>(&g.listener).await.unwrap();
        drop(r);
        assert_eq!(
            lb.provisioning_status, "ACTIVE",
            "commit returned before the report"
        );
        assert_eq!(
            (l.provisioning_status.as_str(), l.operating_status.as_str()),
            ("ACTIVE", "ONLINE")
        );
        assert_eq!(
            work.await.unwrap(),
            Some(provider::ProvisioningStatus::PendingUpdate),
            "the work started before the commit, or not at all"
        );
        db.set_settle_wait(std::time::Duration::ZERO);
    })
    .await;
}

/// The commit gate: a transaction rolled back (or dropped) cancels the work queued under it,
/// and the database keeps the state from before.
#[tokio::test]
async fn rolled_back_transaction_cancels_its_queued_work() {
    each_backend(|db| async move {
        let g = graph(&db).await;
        for explicit in [true, false] {
            let mut tx = settling_child_write(&db, &g, &[]).await;
            let gate = tx.commit_gate();
            let late = tx.commit_gate();
            if explicit {
                tx.rollback().await.unwrap();
            } else {
                drop(tx);
            }
            assert!(!gate.committed().await);
            assert!(!late.committed().await);
            let mut r = db.begin_read().await.unwrap();
            let row = r.get::<LoadBalancerRow>(&g.lb).await.unwrap();
            assert_eq!(row.provisioning_status, "ACTIVE");
        }
        db.set_settle_wait(std::time::Duration::ZERO);
    })
    .await;
}

/// A report that deletes rows (quota given back) after a settling delete-style write: the
/// report's own transaction takes `quotas` then the LB, and the commit still sees it.
#[tokio::test]
async fn deleting_report_after_a_settling_commit_gives_quota_back_once() {
    each_backend(|db| async move {
        let g = graph(&db).await;
        let mut tx = settling_child_write(&db, &g, &[]).await;
        tx.update::<MemberRow>(
            &g.members[0],
            &[("provisioning_status", SqlValue::from("PENDING_DELETE"))],
        )
        .await
        .unwrap();
        let gate = tx.commit_gate();
        let (db2, lb, member) = (db.clone(), g.lb.clone(), g.members[0].clone());
        let work = tokio::spawn(async move {
            assert!(gate.committed().await);
            let report = StatusReport {
                members: vec![rec(&member, Some(P::Deleted), None)],
                loadbalancers: vec![rec(&lb, Some(P::Active), None)],
                ..Default::default()
            };
            StatusUpdater::new(db2).update_status(report).await.unwrap();
        });
        tx.commit().await.unwrap();
        assert_eq!(
            count(
                &db,
                "SELECT COUNT(*) FROM member WHERE id = ?",
                &g.members[0]
            )
            .await,
            0
        );
        assert_eq!(quota(&db).await.in_use_member, Some(9));
        work.await.unwrap();
        db.set_settle_wait(std::time::Duration::ZERO);
    })
    .await;
}

/// Runs of member records with the same statuses are one `UPDATE … IN (…)`: the rows end as
/// record-by-record application leaves them, including an unknown id (ignored) inside a run
/// and a later record for the same member (applied after the run).
#[tokio::test]
async fn runs_of_equal_records_give_the_per_record_outcome() {
    each_backend(|db| async move {
        let g = graph(&db).await;
        let [m0, m1] = g.members.clone();
        let report = StatusReport {
            members: vec![
                rec(&m0, Some(P::Active), Some(O::Online)),
                rec("no-such-member", Some(P::Active), Some(O::Online)),
                rec(&m1, Some(P::Active), Some(O::Online)),
                rec(&m1, None, Some(O::Error)),
            ],
            loadbalancers: vec![rec(&g.lb, Some(P::Active), None)],
            ..Default::default()
        };
        StatusUpdater::new(db.clone())
            .update_status(report)
            .await
            .unwrap();
        let mut tx = db.begin_read().await.unwrap();
        let s = |m: MemberRow| (m.provisioning_status.as_str(), m.operating_status.as_str());
        assert_eq!(s(tx.get(&m0).await.unwrap()), ("ACTIVE", "ONLINE"));
        assert_eq!(s(tx.get(&m1).await.unwrap()), ("ACTIVE", "ERROR"));
    })
    .await;
}
