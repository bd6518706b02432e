//! Harness for the L7 / provider / flavor / AZ / amphora tests: the router in-process over a
//! real octavia-db (SQLite temp file, then a fresh `keel_test_<random>` MariaDB database on
//! STACK_KEEL_DB_URL's server), keystone-style auth through a fake token validator (tokens
//! `admin`, `member`, `reader`, `stranger`), and two fake providers:
//! `full` implements everything (L7, flavor/AZ metadata) and records calls; `ovn` implements
//! only what the OVN provider does (LB, listener, pool) and keeps the trait defaults for the
//! rest, as ovn-octavia-provider inherits octavia-lib's `NotImplementedError`s.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use api::{ApiConfig, AppState, AuthMode, Identity, TokenAuth};
use async_trait::async_trait;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use octavia_db::Database;
use provider::{AdditionalVip, ProviderDriver, ProviderError, Vip};
use serde_json::{json, Value};
use sqlx::Connection;
use tower::ServiceExt;

pub const PROJECT: &str = "0123456789abcdef0123456789abcdef";
pub const OTHER: &str = "fedcba9876543210fedcba9876543210";
pub const SUBNET: &str = "6a0a707c-45ef-4758-b533-e55adddba8ce";

struct Tokens;

#[async_trait]
impl TokenAuth for Tokens {
    async fn validate(&self, token: &str) -> Result<Identity, String> {
        let (project, roles): (&str, &[&str]) = match token {
            "admin" => ("adminproject", &["admin", "member", "reader"]),
            "member" => (PROJECT, &["member", "reader"]),
            "reader" => (PROJECT, &["reader"]),
            "stranger" => (OTHER, &["member", "reader"]),
            _ => return Err("unknown token".into()),
        };
        Ok(Identity {
            project_id: Some(project.into()),
            user_id: format!("{token}-user"),
            roles: roles.iter().map(|r| r.to_string()).collect(),
            system_scope: false,
        })
    }
}

/// Calls seen by a fake provider, with their arguments as JSON.
#[derive(Default)]
pub struct Calls(pub Mutex<Vec<(String, Value)>>);

impl Calls {
    fn rec(&self, what: &str, arg: Value) -> Result<(), ProviderError> {
        self.0.lock().unwrap().push((what.to_string(), arg));
        Ok(())
    }
    pub fn names(&self) -> Vec<String> {
        self.0.lock().unwrap().iter().map(|c| c.0.clone()).collect()
    }
    pub fn last(&self, what: &str) -> Option<Value> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .rev()
            .find(|c| c.0 == what)
            .map(|c| c.1.clone())
    }
}

macro_rules! fake_driver {
    ($t:ty, { $($extra:tt)* }) => {
    #[async_trait]
    impl ProviderDriver for $t {
        fn name(&self) -> &str {
            self.name
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
            self.calls.rec("loadbalancer_create", serde_json::to_value(lb).unwrap())
        }
        async fn loadbalancer_delete(
            &self,
            _lb: provider::LoadBalancer,
            _c: bool,
        ) -> Result<(), ProviderError> {
            self.calls.rec("loadbalancer_delete", Value::Null)
        }
        async fn listener_create(&self, _l: provider::Listener) -> Result<(), ProviderError> {
            self.calls.rec("listener_create", Value::Null)
        }
        async fn pool_create(&self, _p: provider::Pool) -> Result<(), ProviderError> {
            self.calls.rec("pool_create", Value::Null)
        }
        async fn pool_delete(&self, _p: provider::Pool) -> Result<(), ProviderError> {
            self.calls.rec("pool_delete", Value::Null)
        }
        async fn member_create(&self, _m: provider::Member) -> Result<(), ProviderError> {
            self.calls.rec("member_create", Value::Null)
        }
        async fn member_delete(&self, _m: provider::Member) -> Result<(), ProviderError> {
            self.calls.rec("member_delete", Value::Null)
        }
        async fn health_monitor_create(
            &self,
            _h: provider::HealthMonitor,
        ) -> Result<(), ProviderError> {
            self.calls.rec("health_monitor_create", Value::Null)
        }
        async fn health_monitor_delete(
            &self,
            _h: provider::HealthMonitor,
        ) -> Result<(), ProviderError> {
            self.calls.rec("health_monitor_delete", Value::Null)
        }
        $($extra)*
    }
    };
}

pub struct Full {
    name: &'static str,
    pub calls: Calls,
}

fake_driver!(Full, {
    async fn l7policy_create(&self, p: provider::L7Policy) -> Result<(), ProviderError> {
        self.calls
            .rec("l7policy_create", serde_json::to_value(p).unwrap())
    }
    async fn l7policy_update(
        &self,
        _o: provider::L7Policy,
        n: provider::L7Policy,
    ) -> Result<(), ProviderError> {
        self.calls
            .rec("l7policy_update", serde_json::to_value(n).unwrap())
    }
    async fn l7policy_delete(&self, p: provider::L7Policy) -> Result<(), ProviderError> {
        self.calls
            .rec("l7policy_delete", serde_json::to_value(p).unwrap())
    }
    async fn l7rule_create(&self, r: provider::L7Rule) -> Result<(), ProviderError> {
        self.calls
            .rec("l7rule_create", serde_json::to_value(r).unwrap())
    }
    async fn l7rule_update(
        &self,
        _o: provider::L7Rule,
        n: provider::L7Rule,
    ) -> Result<(), ProviderError> {
        self.calls
            .rec("l7rule_update", serde_json::to_value(n).unwrap())
    }
    async fn l7rule_delete(&self, r: provider::L7Rule) -> Result<(), ProviderError> {
        self.calls
            .rec("l7rule_delete", serde_json::to_value(r).unwrap())
    }
    async fn get_supported_flavor_metadata(&self) -> Result<Value, ProviderError> {
        Ok(
            json!({"loadbalancer_topology": "The load balancer topology.", "compute_flavor": "The compute driver flavor ID."}),
        )
    }
    async fn validate_flavor(&self, m: &Value) -> Result<(), ProviderError> {
        self.calls.rec("validate_flavor", m.clone())?;
        match m.as_object() {
            Some(o)
                if o.keys()
                    .all(|k| k == "loadbalancer_topology" || k == "compute_flavor") =>
            {
                Ok(())
            }
            _ => Err(ProviderError::unsupported("Unknown flavor metadata key.")),
        }
    }
    async fn get_supported_availability_zone_metadata(&self) -> Result<Value, ProviderError> {
        Ok(json!({"compute_zone": "The compute availability zone."}))
    }
    async fn validate_availability_zone(&self, m: &Value) -> Result<(), ProviderError> {
        self.calls.rec("validate_availability_zone", m.clone())?;
        match m.as_object() {
            Some(o) if o.keys().all(|k| k == "compute_zone") => Ok(()),
            _ => Err(ProviderError::unsupported(
                "Unknown availability zone metadata key.",
            )),
        }
    }
});

pub struct Basic {
    name: &'static str,
    pub calls: Calls,
}

fake_driver!(Basic, {});

pub struct Env {
    pub router: axum::Router,
    pub db: Database,
    pub full: Arc<Full>,
    pub ovn: Arc<Basic>,
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
        let full = Arc::new(Full {
            name: "full",
            calls: Calls::default(),
        });
        let ovn = Arc::new(Basic {
            name: "ovn",
            calls: Calls::default(),
        });
        let mut providers: BTreeMap<String, Arc<dyn ProviderDriver>> = BTreeMap::new();
        providers.insert("full".into(), full.clone());
        providers.insert("ovn".into(), ovn.clone());
        let mut enabled = BTreeMap::new();
        enabled.insert("full".to_string(), "Full fake driver.".to_string());
        enabled.insert("ovn".to_string(), "Octavia OVN driver.".to_string());
        // enabled but not loaded: hidden from the provider list
        enabled.insert(
            "amphora".to_string(),
            "The Octavia Amphora driver.".to_string(),
        );
        let cfg = ApiConfig {
            default_provider_driver: "full".into(),
            enabled_provider_drivers: enabled,
            ..ApiConfig::default()
        };
        let state = AppState::new(
            db.clone(),
            providers,
            AuthMode::Keystone(Arc::new(Tokens)),
            None,
            cfg,
        );
        Self {
            router: api::router(state),
            db,
            full,
            ovn,
            mysql_name,
            _dir: dir,
        }
    }

    /// A request with token `who` (`admin`, `member`, `reader`, `stranger`).
    pub async fn req_as(
        &self,
        who: &str,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let mut b = Request::builder()
            .method(method)
            .uri(path)
            .header("host", "keel.test")
            .header("x-auth-token", who);
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

    /// A request as the project's member.
    pub async fn req(&self, method: &str, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        self.req_as("member", method, path, body).await
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

    pub async fn count(&self, table: &str) -> i64 {
        let mut tx = self.db.begin_read().await.unwrap();
        tx.fetch_optional_scalar::<i64>(&format!("SELECT COUNT(*) FROM `{table}`"), vec![])
            .await
            .unwrap()
            .unwrap_or(0)
    }

    pub async fn sql(&self, sql: &str, args: Vec<octavia_db::SqlValue>) {
        let mut tx = self.db.begin().await.unwrap();
        tx.execute(sql, args).await.unwrap();
        tx.commit().await.unwrap();
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

    /// An ACTIVE LB on `provider` with an ACTIVE listener of `protocol` on port 80; returns
    /// (lb id, listener id).
    pub async fn lb_listener(&self, provider: &str, protocol: &str) -> (String, String) {
        let (s, b) = self
            .req(
                "POST",
                "/v2/lbaas/loadbalancers",
                Some(json!({"loadbalancer": {"vip_subnet_id": SUBNET, "provider": provider}})),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        let lb = b["loadbalancer"]["id"].as_str().unwrap().to_string();
        self.set_status("load_balancer", &lb, "ACTIVE").await;
        let (s, b) = self
            .req(
                "POST",
                "/v2/lbaas/listeners",
                Some(json!({"listener": {"loadbalancer_id": lb, "protocol": protocol, "protocol_port": 80}})),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        let l = b["listener"]["id"].as_str().unwrap().to_string();
        self.set_status("load_balancer", &lb, "ACTIVE").await;
        self.set_status("listener", &l, "ACTIVE").await;
        (lb, l)
    }
}

/// Run `f` against SQLite, then MariaDB.
#[macro_export]
macro_rules! each_backend {
    (|$env:ident| $body:block) => {
        for mysql in [false, true] {
            let $env = support::Env::new(mysql).await;
            $body
            $env.done().await;
        }
    };
}
