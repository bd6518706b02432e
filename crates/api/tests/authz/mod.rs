//! Harness for the policy, Keystone-outage and graph-create tests: the router in-process over
//! a real octavia-db (SQLite temp file, then a fresh `keel_test_<random>` MariaDB database on
//! STACK_KEEL_DB_URL's server), keystone-style auth through [`RoleTokens`] (token text
//! `<project>|<role>,<role>`; `unreachable` / `keystone-500` fail as an outage does) under a
//! chosen [`Policy`], and a provider `ovn` that records its calls with their models.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use api::context::AuthFailure;
use api::policy::Policy;
use api::{ApiConfig, AppState, AuthMode, Identity, TokenAuth};
use async_trait::async_trait;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use octavia_db::Database;
use provider::{AdditionalVip, ProviderDriver, ProviderError, Vip};
use serde_json::Value;
use sqlx::Connection;
use tower::ServiceExt;

pub const P1: &str = "11111111111111111111111111111111";
pub const P2: &str = "22222222222222222222222222222222";
pub const SUBNET: &str = "6a0a707c-45ef-4758-b533-e55adddba8ce";

/// Token `<project>|<roles,…>` → that identity; `unreachable` → Keystone down;
/// `keystone-500` → Keystone answered 5xx; anything else → invalid.
pub struct RoleTokens;

#[async_trait]
impl TokenAuth for RoleTokens {
    async fn validate(&self, token: &str) -> Result<Identity, String> {
        self.validate_token(token).await.map_err(|e| e.to_string())
    }
    async fn validate_token(&self, token: &str) -> Result<Identity, AuthFailure> {
        match token {
            "unreachable" => return Err(AuthFailure::Unavailable("connection refused".into())),
            "keystone-500" => return Err(AuthFailure::Unavailable("HTTP 500".into())),
            _ => {}
        }
        let (project, roles) = token
            .split_once('|')
            .ok_or_else(|| AuthFailure::Invalid("unknown token".into()))?;
        Ok(Identity {
            project_id: Some(project.into()),
            user_id: format!("user-of-{project}"),
            roles: roles
                .split(',')
                .filter(|r| !r.is_empty())
                .map(str::to_string)
                .collect(),
            system_scope: false,
        })
    }
}

/// Calls seen by [`Recorder`], with their arguments as JSON.
#[derive(Default)]
pub struct Recorder {
    pub calls: Mutex<Vec<(String, Value)>>,
    /// When set, `loadbalancer_create` fails with this (driver error → rollback).
    pub fail_lb_create: Mutex<Option<String>>,
}

impl Recorder {
    fn rec(&self, what: &str, arg: Value) -> Result<(), ProviderError> {
        self.calls.lock().unwrap().push((what.to_string(), arg));
        Ok(())
    }
    pub fn names(&self) -> Vec<String> {
        self.calls
            .lock()
            .unwrap()
            .iter()
            .map(|c| c.0.clone())
            .collect()
    }
    pub fn last(&self, what: &str) -> Option<Value> {
        self.calls
            .lock()
            .unwrap()
            .iter()
            .rev()
            .find(|c| c.0 == what)
            .map(|c| c.1.clone())
    }
}

pub struct Driver(pub Arc<Recorder>);

#[async_trait]
impl ProviderDriver for Driver {
    fn name(&self) -> &str {
        "ovn"
    }
    async fn create_vip_port(
        &self,
        _lb: &str,
        _p: &str,
        vip: Vip,
        add: Vec<AdditionalVip>,
    ) -> Result<(Vip, Vec<AdditionalVip>), ProviderError> {
        let mut v = vip;
        v.vip_port_id = Some(uuid::Uuid::new_v4().to_string());
        v.vip_address.get_or_insert_with(|| "10.0.0.10".into());
        Ok((v, add))
    }
    async fn loadbalancer_create(&self, lb: provider::LoadBalancer) -> Result<(), ProviderError> {
        if let Some(why) = self.0.fail_lb_create.lock().unwrap().clone() {
            return Err(ProviderError::driver(why));
        }
        self.0
            .rec("loadbalancer_create", serde_json::to_value(lb).unwrap())
    }
    async fn loadbalancer_delete(
        &self,
        _lb: provider::LoadBalancer,
        _c: bool,
    ) -> Result<(), ProviderError> {
        self.0.rec("loadbalancer_delete", Value::Null)
    }
    async fn listener_create(&self, _l: provider::Listener) -> Result<(), ProviderError> {
        self.0.rec("listener_create", Value::Null)
    }
    async fn pool_create(&self, _p: provider::Pool) -> Result<(), ProviderError> {
        self.0.rec("pool_create", Value::Null)
    }
    async fn member_create(&self, _m: provider::Member) -> Result<(), ProviderError> {
        self.0.rec("member_create", Value::Null)
    }
    async fn member_batch_update(
        &self,
        _pool_id: &str,
        _members: Vec<provider::Member>,
    ) -> Result<(), ProviderError> {
        self.0.rec("member_batch_update", Value::Null)
    }
    async fn health_monitor_create(
        &self,
        _h: provider::HealthMonitor,
    ) -> Result<(), ProviderError> {
        self.0.rec("health_monitor_create", Value::Null)
    }
    async fn l7policy_create(&self, _p: provider::L7Policy) -> Result<(), ProviderError> {
        self.0.rec("l7policy_create", Value::Null)
    }
    async fn l7rule_create(&self, _r: provider::L7Rule) -> Result<(), ProviderError> {
        self.0.rec("l7rule_create", Value::Null)
    }
}

pub struct Env {
    pub router: axum::Router,
    pub db: Database,
    pub driver: Arc<Recorder>,
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
    /// Keystone-style auth through [`RoleTokens`] under `policy`.
    pub async fn new(mysql: bool, policy: Policy) -> Self {
        Self::with(mysql, AuthMode::Keystone(Arc::new(RoleTokens)), policy).await
    }

    pub async fn with(mysql: bool, auth: AuthMode, policy: Policy) -> Self {
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
        let driver = Arc::new(Recorder::default());
        let mut providers: BTreeMap<String, Arc<dyn ProviderDriver>> = BTreeMap::new();
        providers.insert("ovn".into(), Arc::new(Driver(driver.clone())));
        let mut enabled = BTreeMap::new();
        enabled.insert("ovn".to_string(), "Octavia OVN driver.".to_string());
        let cfg = ApiConfig {
            default_provider_driver: "ovn".into(),
            enabled_provider_drivers: enabled,
            policy: Arc::new(api::policy::PolicySource::fixed(policy)),
            ..ApiConfig::default()
        };
        let state = AppState::new(db.clone(), providers, auth, None, cfg);
        Self {
            router: api::router(state),
            db,
            driver,
            mysql_name,
            _dir: dir,
        }
    }

    /// A request with `token` (`None`: no `X-Auth-Token`).
    pub async fn req_as(
        &self,
        token: Option<&str>,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let mut b = Request::builder()
            .method(method)
            .uri(path)
            .header("host", "keel.test");
        if let Some(t) = token {
            b = b.header("x-auth-token", t);
        }
        if body.is_some() {
            b = b.header("content-type", "application/json");
        }
        let req = b
            .body(body.map_or(Body::empty(), |v| Body::from(v.to_string())))
            .unwrap();
        let resp = self.router.clone().oneshot(req).await.unwrap();
        let status = resp.status();
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

    /// As `req_as` with token `<project>|<roles>`.
    pub async fn call(
        &self,
        project: &str,
        roles: &str,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        self.req_as(Some(&format!("{project}|{roles}")), method, path, body)
            .await
    }

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

    /// `quotas.in_use_<kind>` for `project` (0 when there is no quotas row or NULL).
    pub async fn in_use(&self, project: &str, kind: &str) -> i64 {
        let mut tx = self.db.begin_read().await.unwrap();
        tx.fetch_optional_scalar::<Option<i64>>(
            &format!("SELECT in_use_{kind} FROM quotas WHERE project_id = ?"),
            vec![project.into()],
        )
        .await
        .unwrap()
        .flatten()
        .unwrap_or(0)
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
}
