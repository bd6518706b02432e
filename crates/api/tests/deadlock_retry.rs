//! A write that MariaDB rolls back as a deadlock victim before its provider call is run again
//! (api `retry`): the client gets the answer of a run without the deadlock. MariaDB only
//! (SQLite's writers queue on one lock and never deadlock).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use api::policy::Policy;
use axum::http::StatusCode;
use common::{Env, P1, SUBNET, Setup};
use serde_json::json;
use sqlx::{Connection, Executor, MySqlConnection, Row};

const MEMBER: &str = "member,reader";

async fn deadlocks(c: &mut MySqlConnection) -> i64 {
    let row = sqlx::query("SHOW GLOBAL STATUS LIKE 'Innodb_deadlocks'")
        .fetch_one(c)
        .await
        .unwrap();
    row.get::<String, _>(1).parse().unwrap()
}

/// The listener create locks the project's `quotas` row, then waits for the LB row, which a
/// transaction of the test holds; that transaction, heavier (50 rows written), then asks for
/// the `quotas` row: InnoDB rolls the create back as the lighter victim. The create has not
/// called its provider yet, so Keel runs it again; it waits for the test's transaction, which
/// rolls back, and answers 201. Before, the client got a 500.
#[tokio::test]
async fn a_deadlock_victim_before_the_provider_call_is_run_again() {
    let env = Env::new(true, Setup::role_tokens(Policy::default())).await;
    let url = env.mysql_url().unwrap();
    let body = json!({"loadbalancer": {"vip_subnet_id": SUBNET}});
    let (s, b) = env
        .call(P1, MEMBER, "POST", "/v2/lbaas/loadbalancers", Some(body))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    let lb = b["loadbalancer"]["id"].as_str().unwrap().to_string();
    env.set_status("load_balancer", &lb, "ACTIVE").await;

    let mut holder = MySqlConnection::connect(&url).await.unwrap();
    let mut probe = MySqlConnection::connect(&url).await.unwrap();
    let before = deadlocks(&mut probe).await;
    holder.execute("BEGIN").await.unwrap();
    for i in 0..50 {
        sqlx::query("INSERT INTO `tags` (`resource_id`, `tag`) VALUES (?, ?)")
            .bind("deadlock-test-weight")
            .bind(format!("t{i}"))
            .execute(&mut holder)
            .await
            .unwrap();
    }
    sqlx::query("SELECT `id` FROM `load_balancer` WHERE `id` = ? FOR UPDATE")
        .bind(&lb)
        .fetch_one(&mut holder)
        .await
        .unwrap();

    let create = env.call(
        P1,
        MEMBER,
        "POST",
        "/v2/lbaas/listeners",
        Some(json!({"listener": {"loadbalancer_id": lb, "protocol": "TCP", "protocol_port": 80}})),
    );
    let choreography = async {
        // the create holds the quotas row once a NOWAIT probe of it fails
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        loop {
            probe.execute("BEGIN").await.unwrap();
            let got = sqlx::query(
                "SELECT `project_id` FROM `quotas` WHERE `project_id` = ? FOR UPDATE NOWAIT",
            )
            .bind(P1)
            .fetch_optional(&mut probe)
            .await;
            probe.execute("ROLLBACK").await.unwrap();
            if got.is_err() {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the create never locked the quotas row"
            );
            tokio::task::yield_now().await;
        }
        // the cycle: the holder asks for the row the create holds
        sqlx::query("SELECT `project_id` FROM `quotas` WHERE `project_id` = ? FOR UPDATE")
            .bind(P1)
            .fetch_one(&mut holder)
            .await
            .unwrap();
        holder.execute("ROLLBACK").await.unwrap();
    };
    let ((s, b), ()) = tokio::join!(create, choreography);

    // a global counter: other tests' deadlocks may add to it, ours must
    assert!(
        deadlocks(&mut probe).await > before,
        "InnoDB saw no deadlock: the test did not build its cycle"
    );
    assert_eq!(s, StatusCode::CREATED, "{b}");
    assert_eq!(env.count("listener").await, 1);
    assert_eq!(env.in_use(P1, "listener").await, 1);
    assert_eq!(env.status_of("load_balancer", &lb).await, "PENDING_UPDATE");
    env.done().await;
}
