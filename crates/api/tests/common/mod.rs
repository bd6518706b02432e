//! The one harness of the api integration tests: the router in-process (requests go through
//! `oneshot`, no socket) over a real octavia-db, with fake provider drivers and a chosen auth
//! mode.
//!
//! - [`db`]: the database (SQLite temp file, or a fresh `keel_test_<uuid>` MariaDB database on
//!   STACK_KEEL_DB_URL's server), created and upgraded by [`Env::new`], dropped by
//!   [`Env::done`].
//! - [`driver`]: [`driver::Recorder`], the fake provider that records calls with their models
//!   and can refuse or fail.
//! - [`auth`]: the fake Keystone token validators.
//! - [`Setup`]: which providers, auth mode, policy, tokens and headers a test runs with; the
//!   presets are the configurations the tests rely on (default provider `fake` / `full` /
//!   `ovn` / `yes`, `X-Project-Id` header or not, …).
//! - [`Env`]: the router + database of one run, request helpers and row look-ups.
//!
//! Use [`each_backend!`] to run a body on SQLite, then MariaDB, with `done()` after each.
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    missing_docs
)]

pub mod auth;
pub mod db;
pub mod driver;

use std::collections::BTreeMap;
use std::sync::Arc;

use api::policy::Policy;
use api::{ApiConfig, AppState, AuthMode};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use octavia_db::Database;
use provider::ProviderDriver;
use serde_json::{Value, json};
use tower::ServiceExt;

use driver::Recorder;

/// The project of the noauth `X-Project-Id` header and of the `member`/`reader` tokens.
pub const PROJECT: &str = "0123456789abcdef0123456789abcdef";
/// The `stranger` token's project.
pub const OTHER: &str = "fedcba9876543210fedcba9876543210";
/// Projects for [`auth::RoleTokens`] tokens.
pub const P1: &str = "11111111111111111111111111111111";
pub const P2: &str = "22222222222222222222222222222222";
/// A VIP subnet id (the fake providers never look it up).
pub const SUBNET: &str = "6a0a707c-45ef-4758-b533-e55adddba8ce";

/// How an [`Env`] is built: providers (registered name, description, driver), what is enabled
/// but not loaded, the default provider, auth, policy, and what every request carries.
pub struct Setup {
    providers: Vec<(&'static str, &'static str, Arc<Recorder>)>,
    /// Enabled in the config but not loaded (hidden from the provider list).
    enabled_only: Vec<(&'static str, &'static str)>,
    default_provider: &'static str,
    auth: AuthMode,
    /// `None`: the config's default policy.
    policy: Option<Policy>,
    /// Sent as `X-Project-Id` on every request (noauth's project).
    project_header: Option<&'static str>,
    /// The token [`Env::req`] sends.
    token: Option<&'static str>,
    /// Every answer must carry an `X-OpenStack-Request-Id: req-…`.
    check_request_id: bool,
}

impl Setup {
    fn bare(auth: AuthMode, default_provider: &'static str) -> Self {
        Self {
            providers: vec![],
            enabled_only: vec![],
            default_provider,
            auth,
            policy: None,
            project_header: None,
            token: None,
            check_request_id: false,
        }
    }

    fn provider(mut self, key: &'static str, about: &'static str, r: Recorder) -> Self {
        self.providers.push((key, about, Arc::new(r)));
        self
    }

    /// Noauth as project [`PROJECT`] (`X-Project-Id`); providers `fake` (default,
    /// [`driver::CREATE_DELETE`] + [`driver::REST_OF_CRUD`], records `create_vip_port`) and
    /// `nope` (the same, refusing every call; its driver also calls itself `fake`); every
    /// answer must carry a request id.
    pub fn noauth() -> Self {
        let mut s = Self::bare(AuthMode::NoAuth, "fake")
            .provider(
                "fake",
                "Fake.",
                Recorder::new("fake", &[driver::CREATE_DELETE, driver::REST_OF_CRUD])
                    .recording_vip_ports(),
            )
            .provider(
                "nope",
                "Refuses.",
                Recorder::new("fake", &[driver::CREATE_DELETE, driver::REST_OF_CRUD])
                    .recording_vip_ports()
                    .refusing(),
            );
        s.project_header = Some(PROJECT);
        s.check_request_id = true;
        s
    }

    /// Keystone auth through [`auth::NamedTokens`] ([`Env::req`] as `member`); providers
    /// `full` (default, [`driver::CREATE_DELETE`], [`driver::L7`], [`driver::METADATA`]) and
    /// `ovn` ([`driver::CREATE_DELETE`]); `amphora` enabled but not loaded.
    pub fn named_tokens() -> Self {
        let mut s = Self::bare(AuthMode::Keystone(Arc::new(auth::NamedTokens)), "full")
            .provider(
                "full",
                "Full fake driver.",
                Recorder::new(
                    "full",
                    &[driver::CREATE_DELETE, driver::L7, driver::METADATA],
                ),
            )
            .provider(
                "ovn",
                "Octavia OVN driver.",
                Recorder::new("ovn", &[driver::CREATE_DELETE]),
            );
        s.enabled_only
            .push(("amphora", "The Octavia Amphora driver."));
        s.token = Some("member");
        s
    }

    /// Keystone auth through [`auth::RoleTokens`] under `policy`; provider `ovn` (default,
    /// [`driver::GRAPH`]); no token unless given per request.
    pub fn role_tokens(policy: Policy) -> Self {
        let mut s = Self::bare(AuthMode::Keystone(Arc::new(auth::RoleTokens)), "ovn").provider(
            "ovn",
            "Octavia OVN driver.",
            Recorder::new("ovn", &[driver::GRAPH]),
        );
        s.policy = Some(policy);
        s
    }

    /// Noauth as project [`PROJECT`]; provider `yes` (default, [`driver::ALL`], flavor
    /// metadata `compute_flavor` only).
    pub fn accept_all() -> Self {
        let mut s = Self::bare(AuthMode::NoAuth, "yes").provider(
            "yes",
            "Accepts everything.",
            Recorder::new("yes", driver::ALL)
                .flavor_metadata(json!({"compute_flavor": "The compute driver flavor ID."})),
        );
        s.project_header = Some(PROJECT);
        s
    }

    /// The same providers and headers under another auth mode.
    pub fn auth(mut self, auth: AuthMode) -> Self {
        self.auth = auth;
        self
    }

    /// [`Env::req`] sends this `X-Auth-Token`.
    pub fn token(mut self, token: &'static str) -> Self {
        self.token = Some(token);
        self
    }
}

/// One run: the router over its own database; see the module doc. End with [`Env::done`].
pub struct Env {
    pub router: axum::Router,
    /// The state the router was built from (to rebuild it with more seams).
    pub state: AppState,
    pub db: Database,
    backend: db::TestDb,
    providers: BTreeMap<&'static str, Arc<Recorder>>,
    project_header: Option<&'static str>,
    token: Option<&'static str>,
    check_request_id: bool,
}

impl Env {
    /// A fresh database (`mysql`: MariaDB, else SQLite) and the router per `setup`.
    pub async fn new(mysql: bool, setup: Setup) -> Self {
        let backend = db::TestDb::new(mysql).await;
        let db = backend.db.clone();
        let mut drivers: BTreeMap<String, Arc<dyn ProviderDriver>> = BTreeMap::new();
        let mut enabled = BTreeMap::new();
        let mut providers = BTreeMap::new();
        for (key, about, r) in setup.providers {
            drivers.insert(key.to_string(), r.clone());
            enabled.insert(key.to_string(), about.to_string());
            providers.insert(key, r);
        }
        for (key, about) in setup.enabled_only {
            enabled.insert(key.to_string(), about.to_string());
        }
        let mut cfg = ApiConfig {
            default_provider_driver: setup.default_provider.into(),
            enabled_provider_drivers: enabled,
            ..ApiConfig::default()
        };
        if let Some(p) = setup.policy {
            cfg.policy = Arc::new(api::policy::PolicySource::fixed(p));
        }
        let state = AppState::new(db.clone(), drivers, setup.auth, None, cfg);
        Self {
            router: api::router(state.clone()),
            state,
            db,
            backend,
            providers,
            project_header: setup.project_header,
            token: setup.token,
            check_request_id: setup.check_request_id,
        }
    }

    /// The fake provider registered as `key`.
    pub fn provider(&self, key: &str) -> &Recorder {
        self.providers
            .get(key)
            .unwrap_or_else(|| panic!("no provider {key} in this setup"))
    }

    /// The same, shared (for fakes of other seams that log into its calls).
    pub fn provider_arc(&self, key: &str) -> Arc<Recorder> {
        self.providers[key].clone()
    }

    /// The MariaDB database's URL (`None` on SQLite), for connections of the test's own.
    pub fn mysql_url(&self) -> Option<String> {
        self.backend.mysql_url.clone()
    }

    /// Close the pool and drop the database.
    pub async fn done(self) {
        self.backend.drop_all().await;
    }

    /// A request with `token` (`None`: no `X-Auth-Token`); JSON body in and out (a body that
    /// is no JSON comes back as a string, an empty one as `Null`).
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
        if let Some(p) = self.project_header {
            b = b.header("x-project-id", p);
        }
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
        if self.check_request_id {
            assert!(
                resp.headers()
                    .get("x-openstack-request-id")
                    .is_some_and(|v| v.to_str().unwrap().starts_with("req-"))
            );
        }
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

    /// A request with the setup's token (if any).
    pub async fn req(&self, method: &str, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        self.req_as(self.token, method, path, body).await
    }

    /// A request with the [`auth::RoleTokens`] token `<project>|<roles>`.
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

    /// Run one write statement in its own transaction.
    pub async fn sql(&self, sql: &str, args: Vec<octavia_db::SqlValue>) {
        let mut tx = self.db.begin().await.unwrap();
        tx.execute(sql, args).await.unwrap();
        tx.commit().await.unwrap();
    }

    /// Set an object's provisioning_status directly (what the provider's status report would do).
    pub async fn set_status(&self, table: &str, id: &str, status: &str) {
        self.sql(
            &format!("UPDATE `{table}` SET provisioning_status = ? WHERE id = ?"),
            vec![status.into(), id.into()],
        )
        .await;
    }

    /// Make each `(table, id)` ACTIVE, in one transaction.
    pub async fn set_active(&self, objs: &[(&str, &str)]) {
        let mut tx = self.db.begin().await.unwrap();
        for (table, id) in objs {
            tx.execute(
                &format!("UPDATE `{table}` SET provisioning_status = 'ACTIVE' WHERE id = ?"),
                vec![(*id).into()],
            )
            .await
            .unwrap();
        }
        tx.commit().await.unwrap();
    }

    /// Rows in `table`.
    pub async fn count(&self, table: &str) -> i64 {
        let mut tx = self.db.begin_read().await.unwrap();
        tx.fetch_optional_scalar::<i64>(&format!("SELECT COUNT(*) FROM `{table}`"), vec![])
            .await
            .unwrap()
            .unwrap_or(0)
    }

    /// provisioning_status of row `id` of `table` ("" when there is none).
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

    /// POST `{key: obj}` to `path` with the setup's token, assert 201 Created; returns the new
    /// object's id.
    pub async fn create(&self, path: &str, key: &str, obj: Value) -> String {
        let (s, b) = self.req("POST", path, Some(json!({ key: obj }))).await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        b[key]["id"].as_str().unwrap().to_string()
    }

    /// POST a load balancer (`lb` is the inner object; `vip_subnet_id` [`SUBNET`] added), make
    /// it ACTIVE; returns its id.
    async fn post_active_lb(&self, mut lb: Value) -> String {
        lb["vip_subnet_id"] = json!(SUBNET);
        let id = self
            .create("/v2/lbaas/loadbalancers", "loadbalancer", lb)
            .await;
        self.set_status("load_balancer", &id, "ACTIVE").await;
        id
    }

    /// Create an LB named `name` on the default provider and make it ACTIVE; returns its id.
    pub async fn active_lb(&self, name: &str) -> String {
        self.post_active_lb(json!({ "name": name })).await
    }

    /// A listener of `protocol` on port 80 of the ACTIVE LB `lb`, which is made ACTIVE again
    /// (the listener stays PENDING_CREATE); returns the listener id.
    async fn listener_on(&self, lb: &str, protocol: &str) -> String {
        let l = self
            .create(
                "/v2/lbaas/listeners",
                "listener",
                json!({"loadbalancer_id": lb, "protocol": protocol, "protocol_port": 80}),
            )
            .await;
        self.set_status("load_balancer", lb, "ACTIVE").await;
        l
    }

    /// An ACTIVE LB on `provider` with an ACTIVE listener of `protocol` on port 80; returns
    /// (lb id, listener id).
    pub async fn lb_listener(&self, provider: &str, protocol: &str) -> (String, String) {
        let lb = self.post_active_lb(json!({ "provider": provider })).await;
        let l = self.listener_on(&lb, protocol).await;
        self.set_status("listener", &l, "ACTIVE").await;
        (lb, l)
    }

    /// An ACTIVE LB `lb`, an ACTIVE listener of `protocol` and its ACTIVE default pool
    /// (SOURCE_IP_PORT, created while the listener is still PENDING_CREATE): `(lb, listener,
    /// pool)`.
    pub async fn lb_listener_pool(&self, protocol: &str) -> (String, String, String) {
        let lb = self.active_lb("lb").await;
        let l = self.listener_on(&lb, protocol).await;
        let p = self
            .create(
                "/v2/lbaas/pools",
                "pool",
                json!({"listener_id": l, "protocol": protocol, "lb_algorithm": "SOURCE_IP_PORT"}),
            )
            .await;
        self.activate(&lb, &l, &p).await;
        (lb, l, p)
    }

    /// Set LB, listener and pool ACTIVE, in that order (what the provider's report would do).
    pub async fn activate(&self, lb: &str, listener: &str, pool: &str) {
        self.set_status("load_balancer", lb, "ACTIVE").await;
        self.set_status("listener", listener, "ACTIVE").await;
        self.set_status("pool", pool, "ACTIVE").await;
    }
}

/// Run the body with `$env` built from `$setup` (evaluated afresh each time) on SQLite, then
/// MariaDB, calling `done()` after each.
#[macro_export]
macro_rules! each_backend {
    ($setup:expr, |$env:ident| $body:block) => {
        for mysql in common::db::backends() {
            let $env = common::Env::new(mysql, $setup).await;
            $body
            $env.done().await;
        }
    };
}
