//! Test harness: every test runs on SQLite (a temp file) and on MariaDB (a fresh
//! `keel_test_<random>` database on STACK_KEEL_DB_URL's server, dropped at the end).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::future::Future;

use octavia_db::*;
use sqlx::Connection;

/// STACK_KEEL_DB_URL, or a panic telling how to run the tests.
pub fn keel_db_url() -> String {
    std::env::var("STACK_KEEL_DB_URL").expect(
        "STACK_KEEL_DB_URL is not set: run the tests via ci/test.sh (it sources ci/stack/env.sh)",
    )
}

/// The backends a test runs on: SQLite, then MariaDB — or SQLite alone in the fast tier
/// (`KEEL_TEST_TIER=fast`, `ci/fast.sh`: no root, no stack), which a run has to ask for:
/// without it a missing STACK_KEEL_DB_URL is a failure, never a silent skip.
pub fn backends() -> Vec<bool> {
    match std::env::var("KEEL_TEST_TIER").as_deref() {
        Ok("fast") => vec![false],
        _ => vec![false, true],
    }
}

/// `mysql://user:pass@host:port/` (the server part of a URL, without database).
pub fn server_part(url: &str) -> String {
    let after = url.find("://").map(|i| i + 3).unwrap_or(0);
    match url[after..].find('/') {
        Some(i) => url[..after + i + 1].to_string(),
        None => format!("{url}/"),
    }
}

/// A database for one backend; `drop_db` removes the MariaDB database.
pub struct TestDb {
    pub db: Database,
    pub url: String,
    mysql_name: Option<String>,
    _dir: Option<tempfile::TempDir>,
}

impl TestDb {
    pub async fn sqlite() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let url = format!(
            "sqlite://{}?mode=rwc",
            dir.path().join("octavia.db").display()
        );
        let db = Database::connect(&url).await.unwrap();
        Self {
            db,
            url,
            mysql_name: None,
            _dir: Some(dir),
        }
    }

    pub async fn mariadb() -> Self {
        let base = keel_db_url();
        let name = format!("keel_test_{}", uuid::Uuid::new_v4().simple());
        let mut conn = sqlx::MySqlConnection::connect(&base).await.unwrap();
        sqlx::query(&format!("CREATE DATABASE `{name}` CHARACTER SET utf8mb4"))
            .execute(&mut conn)
            .await
            .unwrap();
        conn.close().await.unwrap();
        let url = format!("{}{name}", server_part(&base));
        let db = Database::connect(&url).await.unwrap();
        Self {
            db,
            url,
            mysql_name: Some(name),
            _dir: None,
        }
    }

    pub async fn drop_db(self) {
        self.db.close().await;
        if let Some(name) = self.mysql_name {
            let mut conn = sqlx::MySqlConnection::connect(&keel_db_url())
                .await
                .unwrap();
            sqlx::query(&format!("DROP DATABASE IF EXISTS `{name}`"))
                .execute(&mut conn)
                .await
                .unwrap();
        }
    }
}

/// Runs `f` on an upgraded SQLite DB, then on an upgraded MariaDB DB.
pub async fn each_backend<F, Fut>(f: F)
where
    F: Fn(Database) -> Fut,
    Fut: Future<Output = ()>,
{
    for mysql in backends() {
        let t = if mysql {
            TestDb::mariadb().await
        } else {
            TestDb::sqlite().await
        };
        t.db.upgrade().await.unwrap();
        f(t.db.clone()).await;
        t.drop_db().await;
    }
}

pub fn id() -> String {
    uuid::Uuid::new_v4().to_string()
}

pub const PROJECT: &str = "0123456789abcdef0123456789abcdef";

pub fn lb(id: &str, status: &str) -> LoadBalancerRow {
    LoadBalancerRow {
        project_id: Some(PROJECT.into()),
        id: id.into(),
        name: Some("lb".into()),
        provisioning_status: status.parse().unwrap(),
        operating_status: "ONLINE".parse().unwrap(),
        enabled: true,
        provider: Some("ovn".into()),
        ..Default::default()
    }
}

pub fn listener(id: &str, lb_id: &str, port: i32) -> ListenerRow {
    ListenerRow {
        project_id: Some(PROJECT.into()),
        id: id.into(),
        protocol: "TCP".into(),
        protocol_port: port,
        load_balancer_id: Some(lb_id.into()),
        provisioning_status: "ACTIVE".parse().unwrap(),
        operating_status: "ONLINE".parse().unwrap(),
        enabled: true,
        client_authentication: "NONE".into(),
        ..Default::default()
    }
}

pub fn pool(id: &str, lb_id: &str) -> PoolRow {
    PoolRow {
        project_id: Some(PROJECT.into()),
        id: id.into(),
        protocol: "TCP".into(),
        lb_algorithm: "SOURCE_IP_PORT".into(),
        operating_status: "ONLINE".parse().unwrap(),
        enabled: true,
        load_balancer_id: Some(lb_id.into()),
        provisioning_status: "ACTIVE".parse().unwrap(),
        ..Default::default()
    }
}

pub fn member(id: &str, pool_id: &str, ip: &str) -> MemberRow {
    MemberRow {
        project_id: Some(PROJECT.into()),
        id: id.into(),
        pool_id: pool_id.into(),
        ip_address: Some(ip.into()),
        protocol_port: 80,
        weight: Some(1),
        operating_status: "NO_MONITOR".parse().unwrap(),
        enabled: true,
        provisioning_status: "ACTIVE".parse().unwrap(),
        vnic_type: "normal".into(),
        ..Default::default()
    }
}

pub fn health_monitor(id: &str, pool_id: &str) -> HealthMonitorRow {
    HealthMonitorRow {
        pool_id: pool_id.into(),
        r#type: "TCP".into(),
        delay: 5,
        timeout: 3,
        fall_threshold: 3,
        rise_threshold: 3,
        enabled: true,
        project_id: Some(PROJECT.into()),
        provisioning_status: "ACTIVE".parse().unwrap(),
        id: id.into(),
        operating_status: "ONLINE".parse().unwrap(),
        http_version: Some(1.1),
        ..Default::default()
    }
}

pub fn l7policy(id: &str, listener_id: &str, position: i32) -> L7PolicyRow {
    L7PolicyRow {
        id: id.into(),
        listener_id: listener_id.into(),
        action: "REJECT".into(),
        position,
        enabled: true,
        provisioning_status: "ACTIVE".parse().unwrap(),
        project_id: Some(PROJECT.into()),
        operating_status: "ONLINE".parse().unwrap(),
        ..Default::default()
    }
}

pub fn l7rule(id: &str, policy_id: &str) -> L7RuleRow {
    L7RuleRow {
        id: id.into(),
        l7policy_id: policy_id.into(),
        r#type: "PATH".into(),
        compare_type: "STARTS_WITH".into(),
        value: "/api".into(),
        provisioning_status: "ACTIVE".parse().unwrap(),
        project_id: Some(PROJECT.into()),
        enabled: true,
        operating_status: "ONLINE".parse().unwrap(),
        ..Default::default()
    }
}
