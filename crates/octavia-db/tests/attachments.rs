//! `lb_attachments` / `listener_attachments` (one UNION statement each) give exactly what the
//! single-table reads give, in their orders, on SQLite and MariaDB.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use common::*;
use octavia_db::*;

#[tokio::test]
async fn attachments_equal_the_single_table_reads() {
    each_backend(|db| async move {
        let (lb_id, other) = (id(), id());
        let mut tx = db.begin().await.unwrap();
        tx.insert(&lb(&lb_id, "ACTIVE")).await.unwrap();
        tx.insert(&lb(&other, "ACTIVE")).await.unwrap();
        // children in an order unlike their ids' order; one DELETED of each kind
        let mut listener_ids = Vec::new();
        for (i, port) in [(0, 80), (1, 81), (2, 82)] {
            let l = id();
            let mut row = listener(&l, &lb_id, port);
            row.created_at = Some(now() - chrono::Duration::seconds(10 - i));
            if i == 1 {
                row.provisioning_status = "DELETED".parse().unwrap();
            }
            tx.insert(&row).await.unwrap();
            listener_ids.push(l);
        }
        tx.insert(&listener(&id(), &other, 80)).await.unwrap();
        for i in 0..3 {
            let mut p = pool(&id(), &lb_id);
            p.created_at = Some(now() - chrono::Duration::seconds(5 - i));
            tx.insert(&p).await.unwrap();
        }
        for (subnet, ip) in [("s-b", "10.0.1.5"), ("s-a", "10.0.0.5")] {
            tx.insert(&AdditionalVipRow {
                load_balancer_id: lb_id.clone(),
                subnet_id: subnet.into(),
                ip_address: Some(ip.into()),
                port_id: Some(format!("port-{subnet}")),
                ..Default::default()
            })
            .await
            .unwrap();
        }
        tx.insert(&VipRow {
            load_balancer_id: lb_id.clone(),
            ip_address: Some("10.0.0.9".into()),
            port_id: Some("vip-port".into()),
            subnet_id: Some("s-a".into()),
            network_id: Some("net".into()),
            qos_policy_id: Some("qos".into()),
            octavia_owned: Some(false),
            vnic_type: "direct".into(),
        })
        .await
        .unwrap();
        for sg in ["sg-2", "sg-1"] {
            tx.insert(&VipSecurityGroupRow {
                load_balancer_id: lb_id.clone(),
                sg_id: sg.into(),
            })
            .await
            .unwrap();
        }
        tx.set_tags(&lb_id, &["zeta".into(), "alpha".into()])
            .await
            .unwrap();
        let l0 = listener_ids[0].clone();
        tx.set_sni_refs(&l0, &["ref-z".into(), "ref-a".into()])
            .await
            .unwrap();
        tx.set_listener_cidrs(&l0, &["10.2.0.0/16".into(), "10.1.0.0/16".into()])
            .await
            .unwrap();
        tx.set_tags(&l0, &["t2".into(), "t1".into()]).await.unwrap();
        for (pos, pid) in [(2, id()), (1, id())] {
            tx.insert(&l7policy(&pid, &l0, pos)).await.unwrap();
        }
        tx.commit().await.unwrap();

        let mut tx = db.begin_read().await.unwrap();
        let got = tx.lb_attachments(&lb_id).await.unwrap();
        let q = ListQuery::default().filter("load_balancer_id", lb_id.as_str());
        let ls: Vec<ListenerRow> = tx.list(&q).await.unwrap();
        let ps: Vec<PoolRow> = tx.list(&q).await.unwrap();
        let want = LbAttachments {
            vip: tx.vip(&lb_id).await.unwrap(),
            additional_vips: tx
                .additional_vips(&lb_id)
                .await
                .unwrap()
                .into_iter()
                .map(|a| (a.subnet_id, a.ip_address, a.port_id))
                .collect(),
            vip_sg_ids: tx.vip_sg_ids(&lb_id).await.unwrap(),
            tags: tx.tags(&lb_id).await.unwrap(),
            listener_ids: ls
                .into_iter()
                .filter(|l| l.provisioning_status != "DELETED")
                .map(|l| l.id)
                .collect(),
            pool_ids: ps.into_iter().map(|p| p.id).collect(),
        };
        assert_eq!(got, want);
        assert_eq!(
            got.listener_ids,
            [listener_ids[0].clone(), listener_ids[2].clone()]
        );
        assert_eq!(got.additional_vips[0].0, "s-a");
        let vip = got.vip.clone().expect("vip");
        assert_eq!(
            (
                vip.port_id.as_deref(),
                vip.octavia_owned,
                vip.vnic_type.as_str()
            ),
            (Some("vip-port"), Some(false), "direct")
        );
        assert_eq!(tx.lb_attachments(&other).await.unwrap().vip, None);
        assert_eq!(got.pool_ids.len(), 3);

        let got = tx.listener_attachments(&l0).await.unwrap();
        let policies: Vec<L7PolicyRow> = tx
            .list(
                &ListQuery {
                    sort: vec![("position".into(), SortDir::Asc)],
                    ..ListQuery::default()
                }
                .filter("listener_id", l0.as_str()),
            )
            .await
            .unwrap();
        let want = ListenerAttachments {
            sni_refs: tx.sni_refs(&l0).await.unwrap(),
            allowed_cidrs: tx.listener_cidrs(&l0).await.unwrap(),
            tags: tx.tags(&l0).await.unwrap(),
            l7policy_ids: policies.into_iter().map(|p| p.id).collect(),
        };
        assert_eq!(got, want);
        assert_eq!(
            got.sni_refs,
            ["ref-z", "ref-a"],
            "SNI keeps its given order"
        );
        assert_eq!(got.l7policy_ids.len(), 2);
        // nothing attached
        assert_eq!(
            tx.listener_attachments(&listener_ids[2]).await.unwrap(),
            ListenerAttachments::default()
        );
        assert_eq!(
            tx.lb_attachments("nope").await.unwrap(),
            LbAttachments::default()
        );
    })
    .await;
}

#[tokio::test]
async fn pool_attachments_equal_the_single_table_reads() {
    each_backend(|db| async move {
        let (lb_id, pool_id, empty_pool) = (id(), id(), id());
        let mut tx = db.begin().await.unwrap();
        tx.insert(&lb(&lb_id, "ACTIVE")).await.unwrap();
        tx.insert(&pool(&pool_id, &lb_id)).await.unwrap();
        tx.insert(&pool(&empty_pool, &lb_id)).await.unwrap();
        let mut listener_ids = Vec::new();
        for (i, port) in [(0, 80), (1, 81), (2, 82)] {
            let mut l = listener(&id(), &lb_id, port);
            l.default_pool_id = Some(pool_id.clone());
            l.created_at = Some(now() - chrono::Duration::seconds(10 - i));
            if i == 0 {
                l.provisioning_status = "DELETED".parse().unwrap();
            }
            tx.insert(&l).await.unwrap();
            listener_ids.push(l.id);
        }
        let mut member_ids = Vec::new();
        for i in 0..4 {
            let mut m = member(&id(), &pool_id, &format!("10.0.0.{i}"));
            m.created_at = Some(now() - chrono::Duration::seconds(20 - i));
            tx.insert(&m).await.unwrap();
            member_ids.push(m.id);
        }
        let hm = id();
        tx.insert(&health_monitor(&hm, &pool_id)).await.unwrap();
        tx.set_tags(&pool_id, &["b".into(), "a".into()])
            .await
            .unwrap();
        tx.commit().await.unwrap();

        let mut tx = db.begin_read().await.unwrap();
        let got = tx.pool_attachments(&pool_id).await.unwrap();
        let ls: Vec<ListenerRow> = tx
            .list(&ListQuery::default().filter("default_pool_id", pool_id.as_str()))
            .await
            .unwrap();
        let ms: Vec<MemberRow> = tx
            .list(&ListQuery::default().filter("pool_id", pool_id.as_str()))
            .await
            .unwrap();
        let want = PoolAttachments {
            listener_ids: ls
                .into_iter()
                .filter(|l| l.provisioning_status != "DELETED")
                .map(|l| l.id)
                .collect(),
            member_ids: ms.into_iter().map(|m| m.id).collect(),
            healthmonitor_id: Some(hm),
            tags: tx.tags(&pool_id).await.unwrap(),
        };
        assert_eq!(got, want);
        assert_eq!(got.listener_ids, listener_ids[1..]);
        assert_eq!(got.member_ids, member_ids);
        assert_eq!(got.tags, ["a", "b"]);
        assert_eq!(
            tx.pool_attachments(&empty_pool).await.unwrap(),
            PoolAttachments::default()
        );
    })
    .await;
}
