//! Harness: the router in-process over a real octavia-db (SQLite temp file, then a fresh
//! `keel_test_<random>` MariaDB database on STACK_KEEL_DB_URL's server), noauth, and a fake
//! provider driver that records its calls.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use api::{ApiConfig, AppState, AuthMode};
use async_trait::async_trait;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use octavia_db::Database;
use provider::{AdditionalVip, ProviderDriver, ProviderError, Vip};
use serde_json::Value;
use sqlx::Connection;
use tower::ServiceExt;

/// A provider that records every call; `unsupported` refuses every create/update/delete.
pub struct FakeProvider {
    pub calls: Mutex<Vec<String>>,
    pub unsupported: bool,
}

impl FakeProvider {
    fn rec(&self, what: &str) -> Result<(), ProviderError> {
        self.calls.lock().unwrap().push(what.to_string());
        if self.unsupported {
            Err(ProviderError::unsupported("fake refuses"))
        } else {
            Ok(())
        }
    }
    pub fn calls(&self) -> Vec<String> {
        self.calls.lock().unwrap().clone()
    }
}

#[async_trait]
impl ProviderDriver for FakeProvider {
    fn name(&self) -> &str {
        "fake"
    }
    async fn create_vip_port(
        &self,
        _lb: &str,
        _p: &str,
        vip: Vip,
        add: Vec<AdditionalVip>,
    ) -> Result<(Vip, Vec<AdditionalVip>), ProviderError> {
        self.calls.lock().unwrap().push("create_vip_port".into());
        let mut v = vip;
        v.vip_port_id = Some(uuid::Uuid::new_v4().to_string());
        v.vip_address.get_or_insert_with(|| "10.0.0.10".into());
        Ok((v, add))
    }
    async fn loadbalancer_create(&self, _lb: provider::LoadBalancer) -> Result<(), ProviderError> {
        self.rec("loadbalancer_create")
    }
    async fn loadbalancer_update(
        &self,
        _o: provider::LoadBalancer,
        _n: provider::LoadBalancer,
    ) -> Result<(), ProviderError> {
        self.rec("loadbalancer_update")
    }
    async fn loadbalancer_delete(
        &self,
        _lb: provider::LoadBalancer,
        _c: bool,
    ) -> Result<(), ProviderError> {
        self.rec("loadbalancer_delete")
    }
    async fn listener_create(&self, _l: provider::Listener) -> Result<(), ProviderError> {
        self.rec("listener_create")
    }
    async fn listener_update(
        &self,
        _o: provider::Listener,
        _n: provider::Listener,
    ) -> Result<(), ProviderError> {
        self.rec("listener_update")
    }
    async fn listener_delete(&self, _l: provider::Listener) -> Result<(), ProviderError> {
        self.rec("listener_delete")
    }
    async fn pool_create(&self, _p: provider::Pool) -> Result<(), ProviderError> {
        self.rec("pool_create")
    }
    async fn pool_update(
        &self,
        _o: provider::Pool,
        _n: provider::Pool,
    ) -> Result<(), ProviderError> {
        self.rec("pool_update")
    }
    async fn pool_delete(&self, _p: provider::Pool) -> Result<(), ProviderError> {
        self.rec("pool_delete")
    }
    async fn member_create(&self, _m: provider::Member) -> Result<(), ProviderError> {
        self.rec("member_create")
    }
    async fn member_update(
        &self,
        _o: provider::Member,
        _n: provider::Member,
    ) -> Result<(), ProviderError> {
        self.rec("member_update")
    }
    async fn member_delete(&self, _m: provider::Member) -> Result<(), ProviderError> {
        self.rec("member_delete")
    }
    async fn member_batch_update(
        &self,
        _p: &str,
        _m: Vec<provider::Member>,
    ) -> Result<(), ProviderError> {
        self.rec("member_batch_update")
    }
    async fn health_monitor_create(
        &self,
        _h: provider::HealthMonitor,
    ) -> Result<(), ProviderError> {
        self.rec("health_monitor_create")
    }
    async fn health_monitor_update(
        &self,
        _o: provider::HealthMonitor,
        _n: provider::HealthMonitor,
    ) -> Result<(), ProviderError> {
        self.rec("health_monitor_update")
    }
    async fn health_monitor_delete(
        &self,
        _h: provider::HealthMonitor,
    ) -> Result<(), ProviderError> {
        self.rec("health_monitor_delete")
    }
}

pub struct Env {
    pub router: axum::Router,
    pub db: Database,
    pub fake: Arc<FakeProvider>,
    pub nope: Arc<FakeProvider>,
    mysql_name: Option<String>,
    _dir: Option<tempfile::TempDir>,
}

fn keel_db_url() -> String {
    std::env::var("STACK_KEEL_DB_URL").expect(
        "STACK_KEEL_DB_URL is not set: run the tests via ci/test.sh (it sources ci/stack/env.sh)",
    )
}

fn server_part(url: &str) -> String {
    let after = url.find("://").map(|i| i + 3).unwrap_or(0);
    match url[after..].find('/') {
        Some(i) => url[..after + i + 1].to_string(),
        None => format!("{url}/"),
    }
}

impl Env {
    pub async fn new(mysql: bool) -> Self {
        let (db, mysql_name, dir) = if mysql {
            let base = keel_db_url();
            let name = format!("keel_test_{}", uuid::Uuid::new_v4().simple());
            let mut conn = sqlx::MySqlConnection::connect(&base).await.unwrap();
            sqlx::query(&format!("CREATE DATABASE `{name}` CHARACTER SET utf8mb4"))
                .execute(&mut conn)
                .await
                .unwrap();
            conn.close().await.unwrap();
            let db = Database::connect(&format!("{}{name}", server_part(&base)))
                .await
                .unwrap();
            (db, Some(name), None)
        } else {
            let dir = tempfile::tempdir().unwrap();
            let db = Database::connect(&format!(
                "sqlite://{}?mode=rwc",
                dir.path().join("o.db").display()
            ))
            .await
            .unwrap();
            (db, None, Some(dir))
        };
        db.upgrade().await.unwrap();
        let fake = Arc::new(FakeProvider {
            calls: Mutex::new(vec![]),
            unsupported: false,
        });
        let nope = Arc::new(FakeProvider {
            calls: Mutex::new(vec![]),
            unsupported: true,
        });
        let mut providers: BTreeMap<String, Arc<dyn ProviderDriver>> = BTreeMap::new();
        providers.insert("fake".into(), fake.clone());
        providers.insert("nope".into(), nope.clone());
        let mut cfg = ApiConfig {
            default_provider_driver: "fake".into(),
            ..ApiConfig::default()
        };
        cfg.enabled_provider_drivers
            .insert("fake".into(), "Fake.".into());
        cfg.enabled_provider_drivers
            .insert("nope".into(), "Refuses.".into());
        let state = AppState::new(db.clone(), providers, AuthMode::NoAuth, None, cfg);
        Self {
            router: api::router(state),
            db,
            fake,
            nope,
            mysql_name,
            _dir: dir,
        }
    }

    pub async fn req(&self, method: &str, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        let mut b = Request::builder()
            .method(method)
            .uri(path)
            .header("host", "keel.test")
            .header("x-project-id", PROJECT);
        if body.is_some() {
            b = b.header("content-type", "application/json");
        }
        let req = b
            .body(body.map_or(Body::empty(), |v| Body::from(v.to_string())))
            .unwrap();
        let resp = self.router.clone().oneshot(req).await.unwrap();
        let status = resp.status();
        assert!(resp
            .headers()
            .get("x-openstack-request-id")
            .is_some_and(|v| v.to_str().unwrap().starts_with("req-")));
        let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
            .await
            .unwrap();
        let v = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes)
                .unwrap_or(Value::String(String::from_utf8_lossy(&bytes).into()))
        };
        (status, v)
    }

    /// Set an object's provisioning_status directly (what the provider's status report would do).
    pub async fn set_status(&self, table: &str, id: &str, status: &str) {
        let mut tx = self.db.begin().await.unwrap();
        tx.execute(
            &format!("UPDATE `{table}` SET provisioning_status = ? WHERE id = ?"),
            vec![status.into(), id.into()],
        )
        .await
        .unwrap();
        tx.commit().await.unwrap();
    }

    pub async fn count(&self, table: &str) -> i64 {
        let mut tx = self.db.begin_read().await.unwrap();
        tx.fetch_optional_scalar::<i64>(&format!("SELECT COUNT(*) FROM `{table}`"), vec![])
            .await
            .unwrap()
            .unwrap_or(0)
    }

    pub async fn status_of(&self, table: &str, id: &str) -> String {
        let mut tx = self.db.begin_read().await.unwrap();
        tx.fetch_optional_scalar::<String>(
            &format!("SELECT provisioning_status FROM `{table}` WHERE id = ?"),
            vec![id.into()],
        )
        .await
        .unwrap()
        .unwrap_or_default()
    }

    pub async fn done(self) {
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

    /// Create an LB (provider fake) and make it ACTIVE; returns its id.
    pub async fn active_lb(&self, name: &str) -> String {
        let (s, b) = self
            .req(
                "POST",
                "/v2/lbaas/loadbalancers",
                Some(serde_json::json!({"loadbalancer": {"name": name, "vip_subnet_id": SUBNET}})),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        let id = b["loadbalancer"]["id"].as_str().unwrap().to_string();
        self.set_status("load_balancer", &id, "ACTIVE").await;
        id
    }
}

pub const PROJECT: &str = "0123456789abcdef0123456789abcdef";
pub const SUBNET: &str = "6a0a707c-45ef-4758-b533-e55adddba8ce";

/// Run `f` against SQLite, then MariaDB.
#[macro_export]
macro_rules! each_backend {
    (|$env:ident| $body:block) => {
        for mysql in [false, true] {
            let $env = common::Env::new(mysql).await;
            $body
            $env.done().await;
        }
    };
}
