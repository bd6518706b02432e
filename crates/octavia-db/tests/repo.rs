//! Repository functions, LB lock + state checks and quotas, on SQLite and MariaDB.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use common::*;
use octavia_db::*;

#[tokio::test]
async fn crud_roundtrip_and_partial_update() {
    each_backend(|db| async move {
        let lb_id = id();
        let mut tx = db.begin().await.unwrap();
        tx.insert(&lb(&lb_id, "PENDING_CREATE")).await.unwrap();
        tx.insert(&VipRow {
            load_balancer_id: lb_id.clone(),
            ip_address: Some("10.0.0.5".into()),
            vnic_type: "normal".into(),
            octavia_owned: Some(false),
            ..Default::default()
        })
        .await
        .unwrap();
        tx.insert(&VipSecurityGroupRow {
            load_balancer_id: lb_id.clone(),
            sg_id: "sg-b".into(),
        })
        .await
        .unwrap();
        tx.insert(&VipSecurityGroupRow {
            load_balancer_id: lb_id.clone(),
            sg_id: "sg-a".into(),
        })
        .await
        .unwrap();
        tx.insert(&AdditionalVipRow {
            load_balancer_id: lb_id.clone(),
            subnet_id: "subnet-2".into(),
            ip_address: Some("fd00::5".into()),
            ..Default::default()
        })
        .await
        .unwrap();
        let l_id = id();
        let mut l = listener(&l_id, &lb_id, 80);
        l.insert_headers = Some(vec![0x80, 0x04, 0x95]);
        l.tls_versions = Some("TLSv1.2,TLSv1.3".into());
        tx.insert(&l).await.unwrap();
        tx.set_listener_cidrs(
            &l_id,
            &[
                "10.0.0.0/8".into(),
                "192.168.0.0/16".into(),
                "10.0.0.0/8".into(),
            ],
        )
        .await
        .unwrap();
        tx.set_sni_refs(&l_id, &["ref-b".into(), "ref-a".into()])
            .await
            .unwrap();
        tx.set_tags(&lb_id, &["x".into(), "y".into(), "x".into()])
            .await
            .unwrap();
        let hm_pool = id();
        tx.insert(&pool(&hm_pool, &lb_id)).await.unwrap();
        tx.insert(&health_monitor(&id(), &hm_pool)).await.unwrap();
        tx.commit().await.unwrap();

        let mut tx = db.begin_read().await.unwrap();
        let got = tx.get::<LoadBalancerRow>(&lb_id).await.unwrap();
        assert_eq!(got.provisioning_status, "PENDING_CREATE");
        assert!(got.created_at.is_some() && got.updated_at.is_none());
        assert!(got.enabled);
        let vip = tx.vip(&lb_id).await.unwrap().unwrap();
        assert_eq!(vip.ip_address.as_deref(), Some("10.0.0.5"));
        assert_eq!(vip.octavia_owned, Some(false));
        assert_eq!(tx.vip_sg_ids(&lb_id).await.unwrap(), vec!["sg-a", "sg-b"]);
        assert_eq!(
            tx.additional_vips(&lb_id).await.unwrap()[0].subnet_id,
            "subnet-2"
        );
        let gl = tx.get::<ListenerRow>(&l_id).await.unwrap();
        assert_eq!(gl.insert_headers, Some(vec![0x80, 0x04, 0x95]));
        assert_eq!(gl.client_authentication, "NONE");
        assert_eq!(
            tx.listener_cidrs(&l_id).await.unwrap(),
            vec!["10.0.0.0/8", "192.168.0.0/16"]
        );
        assert_eq!(tx.sni_refs(&l_id).await.unwrap(), vec!["ref-b", "ref-a"]);
        assert_eq!(tx.tags(&lb_id).await.unwrap(), vec!["x", "y"]);
        let hms = tx
            .list::<HealthMonitorRow>(&ListQuery::default().filter("pool_id", hm_pool.as_str()))
            .await
            .unwrap();
        assert_eq!(hms[0].http_version, Some(1.1));
        let err = tx.get::<PoolRow>("nope").await.unwrap_err();
        assert_eq!(err.to_string(), "Pool nope not found.");
        drop(tx);

        let mut tx = db.begin().await.unwrap();
        let n = tx
            .update::<LoadBalancerRow>(
                &lb_id,
                &[("name", "renamed".into()), ("description", SqlValue::Null)],
            )
            .await
            .unwrap();
        assert_eq!(n, 1);
        assert!(matches!(
            tx.update::<LoadBalancerRow>(&lb_id, &[("bogus", 1.into())])
                .await,
            Err(DbError::InvalidColumn { .. })
        ));
        // Duplicate (load_balancer_id, protocol, protocol_port) is a typed error.
        let dup = tx.insert(&listener(&id(), &lb_id, 80)).await.unwrap_err();
        assert!(matches!(dup, DbError::Duplicate(_)), "{dup:?}");
        drop(tx); // rollback
        let mut tx = db.begin_read().await.unwrap();
        let got = tx.get::<LoadBalancerRow>(&lb_id).await.unwrap();
        assert_eq!(got.name.as_deref(), Some("lb"), "rolled back");
        drop(tx);
        let mut tx = db.begin().await.unwrap();
        tx.update::<LoadBalancerRow>(&lb_id, &[("name", "renamed".into())])
            .await
            .unwrap();
        tx.commit().await.unwrap();
        let mut tx = db.begin_read().await.unwrap();
        let got = tx.get::<LoadBalancerRow>(&lb_id).await.unwrap();
        assert_eq!(got.name.as_deref(), Some("renamed"));
        assert!(got.updated_at.is_some());
        // An unknown lookup value is refused by the FK.
        drop(tx);
        let mut tx = db.begin().await.unwrap();
        let fk = tx
            .update::<LoadBalancerRow>(&lb_id, &[("provisioning_status", "BOGUS".into())])
            .await
            .unwrap_err();
        assert!(matches!(fk, DbError::ForeignKey(_)), "{fk:?}");
    })
    .await;
}

#[tokio::test]
async fn list_filters_tags_sort_and_marker() {
    each_backend(|db| async move {
        let mut tx = db.begin().await.unwrap();
        let mut ids = Vec::new();
        for i in 0..5 {
            let lb_id = format!("0000000{i}-0000-0000-0000-000000000000");
            let mut row = lb(&lb_id, if i == 4 { "DELETED" } else { "ACTIVE" });
            row.name = Some(format!("lb{}", 4 - i));
            if i == 1 {
                row.project_id = Some("other".into());
            }
            tx.insert(&row).await.unwrap();
            tx.set_tags(
                &lb_id,
                &(if i % 2 == 0 {
                    vec!["even".into(), "t".into()]
                } else {
                    vec!["t".into()]
                }),
            )
            .await
            .unwrap();
            ids.push(lb_id);
        }
        tx.commit().await.unwrap();
        let mut tx = db.begin_read().await.unwrap();
        let names = |v: Vec<LoadBalancerRow>| v.into_iter().map(|r| r.id).collect::<Vec<_>>();

        let q = ListQuery {
            exclude_deleted: true,
            sort: vec![("id".into(), SortDir::Asc)],
            ..Default::default()
        };
        assert_eq!(names(tx.list(&q).await.unwrap()), ids[..4].to_vec());
        let q = ListQuery {
            exclude_deleted: true,
            ..Default::default()
        }
        .filter("project_id", PROJECT);
        assert_eq!(names(tx.list(&q).await.unwrap()).len(), 3);
        let q = ListQuery {
            tags_all: vec!["even".into(), "t".into()],
            ..Default::default()
        };
        assert_eq!(
            names(tx.list(&q).await.unwrap()),
            vec![ids[0].clone(), ids[2].clone(), ids[4].clone()]
        );
        let q = ListQuery {
            not_tags_any: vec!["even".into()],
            ..Default::default()
        };
        assert_eq!(
            names(tx.list(&q).await.unwrap()),
            vec![ids[1].clone(), ids[3].clone()]
        );
        // Sort by name ascending (lb0 = ids[4] … lb4 = ids[0]), pages of 2 via marker.
        let mut q = ListQuery {
            sort: vec![("name".into(), SortDir::Asc)],
            limit: Some(2),
            ..Default::default()
        };
        let p1 = names(tx.list(&q).await.unwrap());
        assert_eq!(p1, vec![ids[4].clone(), ids[3].clone()]);
        q.marker = Some(p1[1].clone());
        let p2 = names(tx.list(&q).await.unwrap());
        assert_eq!(p2, vec![ids[2].clone(), ids[1].clone()]);
        q.marker = Some(p2[0].clone());
        q.page_reverse = true;
        assert_eq!(names(tx.list(&q).await.unwrap()), p1);
        q.marker = Some("missing".into());
        assert!(matches!(
            tx.list::<LoadBalancerRow>(&q).await,
            Err(DbError::NotFound { .. })
        ));
        let bad = ListQuery {
            sort: vec![("nope".into(), SortDir::Desc)],
            ..Default::default()
        };
        assert!(matches!(
            tx.list::<LoadBalancerRow>(&bad).await,
            Err(DbError::InvalidColumn { .. })
        ));
    })
    .await;
}

#[tokio::test]
async fn lb_lock_and_state_checks() {
    each_backend(|db| async move {
        let active = id();
        let busy = id();
        let l_id = id();
        let mut tx = db.begin().await.unwrap();
        tx.insert(&lb(&active, "ACTIVE")).await.unwrap();
        tx.insert(&lb(&busy, "PENDING_UPDATE")).await.unwrap();
        tx.insert(&listener(&l_id, &active, 80)).await.unwrap();
        tx.commit().await.unwrap();

        let mut tx = db.begin().await.unwrap();
        let e = tx
            .lock_lb_and_set(
                &busy,
                &[
                    provider::ProvisioningStatus::Active,
                    provider::ProvisioningStatus::Error,
                ],
                provider::ProvisioningStatus::PendingDelete,
            )
            .await
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("Invalid state PENDING_UPDATE of loadbalancer resource {busy}")
        );
        let e = tx
            .lock_lb_for_child(&busy, &[], provider::ProvisioningStatus::PendingUpdate)
            .await
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("Load Balancer {busy} is immutable and cannot be updated.")
        );
        let e = tx.lock_load_balancer("missing").await.unwrap_err();
        assert_eq!(e.to_string(), "Load Balancer missing not found.");
        // ACTIVE: flips LB and listener, visible inside the transaction; rollback undoes it.
        let e = tx
            .lock_lb_for_child("missing", &[], provider::ProvisioningStatus::PendingUpdate)
            .await
            .unwrap_err();
        assert_eq!(e.to_string(), "Load Balancer missing not found.");
        tx.lock_lb_for_child(
            &active,
            std::slice::from_ref(&l_id),
            provider::ProvisioningStatus::PendingUpdate,
        )
        .await
        .unwrap();
        assert_eq!(
            tx.get::<LoadBalancerRow>(&active)
                .await
                .unwrap()
                .provisioning_status,
            "PENDING_UPDATE"
        );
        assert_eq!(
            tx.get::<ListenerRow>(&l_id)
                .await
                .unwrap()
                .provisioning_status,
            "PENDING_UPDATE"
        );
        tx.rollback().await.unwrap();
        let mut tx = db.begin_read().await.unwrap();
        assert_eq!(
            tx.get::<LoadBalancerRow>(&active)
                .await
                .unwrap()
                .provisioning_status,
            "ACTIVE"
        );
        assert_eq!(
            tx.get::<ListenerRow>(&l_id)
                .await
                .unwrap()
                .provisioning_status,
            "ACTIVE"
        );
        drop(tx);

        // A second writer waits for the first and then sees PENDING_UPDATE (the row lock /
        // SQLite write lock serialises them whatever the interleaving).
        let mut tx1 = db.begin().await.unwrap();
        tx1.lock_lb_for_child(&active, &[], provider::ProvisioningStatus::PendingUpdate)
            .await
            .unwrap();
        let db2 = db.clone();
        let a2 = active.clone();
        let second = tokio::spawn(async move {
            let mut tx2 = db2.begin().await.unwrap();
            tx2.lock_lb_for_child(&a2, &[], provider::ProvisioningStatus::PendingUpdate)
                .await
                .map(|_| ())
        });
        tx1.commit().await.unwrap();
        let res = second.await.unwrap();
        assert!(
            matches!(
                res,
                Err(DbError::Immutable {
                    resource: "Load Balancer",
                    ..
                })
            ),
            "{res:?}"
        );
    })
    .await;
}

#[tokio::test]
async fn quota_check_increment_and_exceeded() {
    each_backend(|db| async move {
        let defaults = QuotaLimits {
            listener: 2,
            ..Default::default()
        };
        let lb_id = id();
        let mut tx = db.begin().await.unwrap();
        tx.insert(&lb(&lb_id, "ACTIVE")).await.unwrap();
        tx.commit().await.unwrap();

        // No row yet: created; in-use recomputed from rows (1 LB) + 1.
        let mut tx = db.begin().await.unwrap();
        tx.check_quota(PROJECT, QuotaResource::LoadBalancer, 1, &defaults)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        let mut tx = db.begin_read().await.unwrap();
        let q = tx.get::<QuotaRow>(PROJECT).await.unwrap();
        assert_eq!(q.in_use_load_balancer, Some(2));
        assert_eq!(q.load_balancer, None);
        drop(tx);

        // Listener default limit 2 from config.
        let mut tx = db.begin().await.unwrap();
        tx.check_quota(PROJECT, QuotaResource::Listener, 1, &defaults)
            .await
            .unwrap();
        tx.check_quota(PROJECT, QuotaResource::Listener, 1, &defaults)
            .await
            .unwrap();
        let e = tx
            .check_quota(PROJECT, QuotaResource::Listener, 1, &defaults)
            .await
            .unwrap_err();
        assert!(
            matches!(
                e,
                DbError::QuotaExceeded {
                    resource: "Listener"
                }
            ),
            "{e:?}"
        );
        assert_eq!(e.to_string(), "Quota has been met for resources: Listener");
        tx.commit().await.unwrap();

        // Explicit limit on the row wins over the default; -1 = unlimited.
        let mut tx = db.begin().await.unwrap();
        tx.set_quota(
            PROJECT,
            &QuotaUpdate {
                load_balancer: Some(Some(2)),
                listener: Some(Some(-1)),
                ..Default::default()
            },
        )
        .await
        .unwrap();
        let e = tx
            .check_quota(PROJECT, QuotaResource::LoadBalancer, 1, &defaults)
            .await
            .unwrap_err();
        assert!(matches!(
            e,
            DbError::QuotaExceeded {
                resource: "Load Balancer"
            }
        ));
        tx.check_quota(PROJECT, QuotaResource::Listener, 5, &defaults)
            .await
            .unwrap();
        tx.decrement_quota(PROJECT, QuotaResource::LoadBalancer, 1)
            .await
            .unwrap();
        tx.check_quota(PROJECT, QuotaResource::LoadBalancer, 1, &defaults)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        let mut tx = db.begin().await.unwrap();
        let q = tx.get::<QuotaRow>(PROJECT).await.unwrap();
        assert_eq!(
            (q.in_use_load_balancer, q.in_use_listener),
            (Some(2), Some(7))
        );
        tx.reset_quota(PROJECT).await.unwrap();
        let q = tx.get::<QuotaRow>(PROJECT).await.unwrap();
        assert_eq!(
            (q.load_balancer, q.listener, q.in_use_listener),
            (None, None, Some(7))
        );
        assert!(matches!(
            tx.reset_quota("nobody").await,
            Err(DbError::NotFound {
                resource: "Quotas",
                ..
            })
        ));
        assert!(matches!(
            tx.check_quota("", QuotaResource::Pool, 1, &defaults).await,
            Err(DbError::MissingProjectId)
        ));
    })
    .await;
}

/// A project whose `quotas` row is known takes its quota in one conditional UPDATE: every
/// outcome of octavia's `check_quota_met` / `decrement_quota` must still hold there.
#[tokio::test]
async fn quota_of_a_known_project_keeps_octavias_outcomes() {
    each_backend(|db| async move {
        let defaults = QuotaLimits {
            load_balancer: 3,
            ..Default::default()
        };
        let mut tx = db.begin().await.unwrap();
        tx.insert(&lb(&id(), "ACTIVE")).await.unwrap();
        tx.insert(&lb(&id(), "DELETED")).await.unwrap();
        tx.commit().await.unwrap();
        let in_use = |db: Database| async move {
            let mut tx = db.begin_read().await.unwrap();
            tx.get::<QuotaRow>(PROJECT)
                .await
                .unwrap()
                .in_use_load_balancer
        };
        // first sight of the project: created, counted from the non-DELETED rows
        let mut tx = db.begin().await.unwrap();
        tx.check_quota(PROJECT, QuotaResource::LoadBalancer, 1, &defaults)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        assert_eq!(in_use(db.clone()).await, Some(2));

        // a counter at 0 is recounted from the rows (octavia's upgrade case), then charged
        let mut tx = db.begin().await.unwrap();
        tx.update::<QuotaRow>(PROJECT, &[("in_use_load_balancer", SqlValue::Int(0))])
            .await
            .unwrap();
        tx.check_quota(PROJECT, QuotaResource::LoadBalancer, 1, &defaults)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        assert_eq!(in_use(db.clone()).await, Some(2));

        // up to the default limit, then met; the refused check charges nothing
        let mut tx = db.begin().await.unwrap();
        tx.check_quota(PROJECT, QuotaResource::LoadBalancer, 1, &defaults)
            .await
            .unwrap();
        let e = tx
            .check_quota(PROJECT, QuotaResource::LoadBalancer, 1, &defaults)
            .await
            .unwrap_err();
        assert!(matches!(e, DbError::QuotaExceeded { .. }), "{e:?}");
        tx.commit().await.unwrap();
        assert_eq!(in_use(db.clone()).await, Some(3));

        // a net growth of 0 checked, 0 charged: allowed at the limit, counter unchanged
        let mut tx = db.begin().await.unwrap();
        tx.check_and_charge_quota(PROJECT, QuotaResource::LoadBalancer, Some(0), 0, &defaults)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        assert_eq!(in_use(db.clone()).await, Some(3));

        // decrements stop at 0, and a decrement of a project without a row is a no-op
        let mut tx = db.begin().await.unwrap();
        for _ in 0..4 {
            tx.decrement_quota(PROJECT, QuotaResource::LoadBalancer, 1)
                .await
                .unwrap();
        }
        tx.decrement_quota("nobody", QuotaResource::LoadBalancer, 1)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        assert_eq!(in_use(db.clone()).await, Some(0));
        let mut tx = db.begin_read().await.unwrap();
        assert!(tx.find::<QuotaRow>("nobody").await.unwrap().is_none());
    })
    .await;
}

/// A recounted quota charge is sent with the transaction's next statement (crate::batch).
/// When that statement is a load balancer lock that is refused, the charge must still be in
/// the transaction: the refused lock drops only its own writes, and a commit stores the
/// charge — nothing lost, nothing written twice.
#[tokio::test]
async fn a_held_quota_charge_outlives_a_refused_lb_lock() {
    each_backend(|db| async move {
        let defaults = QuotaLimits {
            listener: 5,
            ..Default::default()
        };
        let busy = id();
        let mut tx = db.begin().await.unwrap();
        tx.insert(&lb(&busy, "PENDING_UPDATE")).await.unwrap();
        tx.commit().await.unwrap();
        let in_use = |db: Database| async move {
            let mut tx = db.begin_read().await.unwrap();
            tx.get::<QuotaRow>(PROJECT).await.unwrap().in_use_listener
        };
        // first sight of the project, then its known row with the counter back at 0: both
        // recount (no listener rows) and charge 1
        for _ in 0..2 {
            let mut tx = db.begin().await.unwrap();
            tx.check_quota(PROJECT, QuotaResource::Listener, 1, &defaults)
                .await
                .unwrap();
            let e = tx
                .lock_lb_for_child(&busy, &[], provider::ProvisioningStatus::PendingUpdate)
                .await
                .unwrap_err();
            assert!(matches!(e, DbError::Immutable { .. }), "{e:?}");
            tx.commit().await.unwrap();
            assert_eq!(in_use(db.clone()).await, Some(1));
            let mut tx = db.begin().await.unwrap();
            tx.update::<QuotaRow>(PROJECT, &[("in_use_listener", SqlValue::Int(0))])
                .await
                .unwrap();
            tx.commit().await.unwrap();
        }
    })
    .await;
}

/// Taking quota locks the project's `quotas` row and nothing else: while one project's
/// charge is uncommitted (the API holds it until the provider reports), another project's
/// writes go on. Octavia counts with a plain read; a count inside the locking statement
/// would lock every scanned row of the table.
#[tokio::test]
async fn quota_charge_does_not_hold_other_projects_writes() {
    let t = TestDb::mariadb().await;
    t.db.upgrade().await.unwrap();
    let db = t.db.clone();
    let defaults = QuotaLimits {
        listener: 10,
        ..Default::default()
    };
    let (lb_a, lb_b) = (id(), id());
    let mut other = lb(&lb_b, "ACTIVE");
    other.project_id = Some("other-project".into());
    let mut tx = db.begin().await.unwrap();
    tx.insert(&lb(&lb_a, "ACTIVE")).await.unwrap();
    tx.insert(&other).await.unwrap();
    tx.insert(&listener(&id(), &lb_a, 80)).await.unwrap();
    tx.commit().await.unwrap();
    // counter unset (counted from the rows), then set (charged in place)
    for round in 0..2 {
        let mut held = db.begin().await.unwrap();
        held.check_quota(PROJECT, QuotaResource::Listener, 1, &defaults)
            .await
            .unwrap();
        let mut l = listener(&id(), &lb_b, 100 + round);
        l.project_id = Some("other-project".into());
        let write = async {
            let mut tx = db.begin().await.unwrap();
            tx.insert(&l).await.unwrap();
            tx.commit().await.unwrap();
        };
        let waited = tokio::time::timeout(std::time::Duration::from_secs(5), write).await;
        assert!(
            waited.is_ok(),
            "round {round}: the other project's write waited"
        );
        held.commit().await.unwrap();
    }
    let mut tx = db.begin_read().await.unwrap();
    let q = tx.get::<QuotaRow>(PROJECT).await.unwrap();
    assert_eq!(q.in_use_listener, Some(3));
    drop(tx);
    t.drop_db().await;
}
