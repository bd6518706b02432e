//! Quota accounting of the batch member update (PUT /v2/lbaas/pools/{id}/members) with
//! keystone-style auth, on SQLite and MariaDB.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use api::policy::Policy;
use axum::http::StatusCode;
use common::{Env, P1, SUBNET, Setup};
use serde_json::{Value, json};

const MEMBER: &str = "member,reader";

fn id_of(b: &Value, key: &str) -> String {
    b[key]["id"].as_str().unwrap().to_string()
}

/// An ACTIVE LB, TCP listener and its ACTIVE default pool of P1: `(lb, listener, pool)`.
async fn setup(env: &Env) -> (String, String, String) {
    let body = json!({"loadbalancer": {"vip_subnet_id": SUBNET}});
    let (s, b) = env
        .call(P1, MEMBER, "POST", "/v2/lbaas/loadbalancers", Some(body))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    let lb = id_of(&b, "loadbalancer");
    env.set_status("load_balancer", &lb, "ACTIVE").await;
    let body = json!({"listener": {"loadbalancer_id": lb, "protocol": "TCP", "protocol_port": 80}});
    let (s, b) = env
        .call(P1, MEMBER, "POST", "/v2/lbaas/listeners", Some(body))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    let l = id_of(&b, "listener");
    env.set_status("load_balancer", &lb, "ACTIVE").await;
    env.set_status("listener", &l, "ACTIVE").await;
    let body =
        json!({"pool": {"listener_id": l, "protocol": "TCP", "lb_algorithm": "SOURCE_IP_PORT"}});
    let (s, b) = env
        .call(P1, MEMBER, "POST", "/v2/lbaas/pools", Some(body))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    let p = id_of(&b, "pool");
    report_done(env, &lb, &l, &p).await;
    (lb, l, p)
}

/// The provider's report after a call: every member ACTIVE, the PENDING_DELETE ones DELETED,
/// applied by the real status updater (which gives a DELETED member's quota unit back).
async fn report_done(env: &Env, lb: &str, l: &str, p: &str) {
    use provider::{ProvisioningStatus as P, StatusRecord, StatusReport, StatusSink};
    let mut report = StatusReport::default();
    let mut tx = env.db.begin_read().await.unwrap();
    let rows: Vec<octavia_db::MemberRow> = tx
        .list(&octavia_db::ListQuery::default().filter("pool_id", p))
        .await
        .unwrap();
    drop(tx);
    for m in rows {
        let st = if m.provisioning_status == "PENDING_DELETE" {
            P::Deleted
        } else {
            P::Active
        };
        report
            .members
            .push(StatusRecord::new(&m.id, Some(st), None));
    }
    report
        .pools
        .push(StatusRecord::new(p, Some(P::Active), None));
    report
        .listeners
        .push(StatusRecord::new(l, Some(P::Active), None));
    report
        .loadbalancers
        .push(StatusRecord::new(lb, Some(P::Active), None));
    octavia_db::StatusUpdater::new(env.db.clone())
        .update_status(report)
        .await
        .unwrap();
}

/// A batch that replaces members charges every new member, so once the provider has reported
/// (removed members DELETED, each giving its unit back) `in_use_member` equals the members that
/// exist. Octavia charges only the net growth and so drifts one down per removed member.
#[tokio::test]
async fn member_batch_quota_counts_the_members_that_exist() {
    for mysql in common::db::backends() {
        let env = Env::new(mysql, Setup::role_tokens(Policy::default())).await;
        let (lb, l, p) = setup(&env).await;
        let base = format!("/v2/lbaas/pools/{p}/members");
        let m = |ip: &str| json!({"address": ip, "protocol_port": 80});
        let put = |members: Vec<Value>| {
            let (env, base) = (&env, base.clone());
            async move {
                env.call(
                    P1,
                    MEMBER,
                    "PUT",
                    &base,
                    Some(json!({ "members": members })),
                )
                .await
            }
        };
        let (s, b) = put(vec![m("10.0.0.1"), m("10.0.0.2")]).await;
        assert_eq!(s, StatusCode::ACCEPTED, "{b}");
        report_done(&env, &lb, &l, &p).await;
        assert_eq!(env.count("member").await, 2);
        assert_eq!(env.in_use(P1, "member").await, 2);
        // replace .2 by .3 (net growth 0), then .1 and .3 by .4 (net growth −1)
        for (members, exist) in [
            (vec![m("10.0.0.1"), m("10.0.0.3")], 2),
            (vec![m("10.0.0.4")], 1),
        ] {
            let (s, b) = put(members).await;
            assert_eq!(s, StatusCode::ACCEPTED, "{b}");
            report_done(&env, &lb, &l, &p).await;
            assert_eq!(env.count("member").await, exist);
            assert_eq!(env.in_use(P1, "member").await, exist, "in_use_member");
        }
        // the check stays on the net growth: at a limit of 1, swapping the one member passes,
        // growing to two does not
        let mut tx = env.db.begin().await.unwrap();
        tx.execute("UPDATE quotas SET member = 1", vec![])
            .await
            .unwrap();
        tx.commit().await.unwrap();
        let (s, b) = put(vec![m("10.0.0.5")]).await;
        assert_eq!(s, StatusCode::ACCEPTED, "{b}");
        report_done(&env, &lb, &l, &p).await;
        assert_eq!(env.in_use(P1, "member").await, 1);
        let (s, _) = put(vec![m("10.0.0.5"), m("10.0.0.6")]).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        env.done().await;
    }
}
