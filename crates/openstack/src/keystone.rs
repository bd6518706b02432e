//! Keystone v3: Keel's service session ([`ServiceAuth`]) and user-token validation
//! ([`TokenValidator`]), seed 003 §4.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use reqwest::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::error::{InvalidTokenReason, KeystoneError, UnknownInterface};
use crate::http::{join, snippet};

mod app_credential;
pub use app_credential::{AppCredentialUser, ApplicationCredential};

/// Endpoint interface of a catalog entry (keystoneauth `interface`; `publicURL`-style names
/// of octavia.conf `endpoint_type` are accepted by [`std::str::FromStr`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Interface {
    /// `public` (keystoneauth's default).
    #[default]
    Public,
    /// `internal`.
    Internal,
    /// `admin`.
    Admin,
}

impl Interface {
    /// The catalog's spelling: `public`, `internal`, `admin`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Public => "public",
            Self::Internal => "internal",
            Self::Admin => "admin",
        }
    }
}

impl Interface {
    /// Parses octavia.conf `valid_interfaces` (a comma-separated list, e.g.
    /// `internal,public`) into interfaces to try in order. Error: the first unknown entry.
    pub fn parse_list(s: &str) -> Result<Vec<Self>, UnknownInterface> {
        s.split(',')
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(str::parse)
            .collect()
    }
}

impl std::fmt::Display for Interface {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Interface {
    type Err = UnknownInterface;
    /// Accepts `public`/`publicURL`, `internal`/`internalURL`, `admin`/`adminURL`
    /// (case-insensitive). Error: [`UnknownInterface`] with the text as given.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let l = s.trim().to_ascii_lowercase();
        match l.trim_end_matches("url") {
            "public" => Ok(Self::Public),
            "internal" => Ok(Self::Internal),
            "admin" => Ok(Self::Admin),
            _ => Err(UnknownInterface(s.to_string())),
        }
    }
}

/// One endpoint of a catalog entry, as in the token body's `catalog[].endpoints[]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct CatalogEndpoint {
    /// Endpoint UUID; `""` when the catalog omits it.
    #[serde(default)]
    pub id: String,
    /// `public`, `internal` or `admin`.
    pub interface: String,
    /// Region id (Keystone ≥ Newton); `region` is the legacy alias.
    #[serde(default)]
    pub region_id: Option<String>,
    /// Legacy region name.
    #[serde(default)]
    pub region: Option<String>,
    /// Base URL, e.g. `http://127.0.0.1:9696`.
    pub url: String,
}

/// One service of the catalog: its type (`network`, `load-balancer`, `identity`,
/// `key-manager`...) and endpoints.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct CatalogService {
    /// Service type, e.g. `network`.
    #[serde(rename = "type")]
    pub service_type: String,
    /// Service name, e.g. `neutron`.
    #[serde(default)]
    pub name: String,
    /// Service UUID; `""` when the catalog omits it.
    #[serde(default)]
    pub id: String,
    /// Its endpoints (interface, region, URL each); empty when none.
    #[serde(default)]
    pub endpoints: Vec<CatalogEndpoint>,
}

/// The service catalog of a token (`token.catalog`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(transparent)]
pub struct Catalog {
    /// Services in Keystone's order.
    pub services: Vec<CatalogService>,
}

impl Catalog {
    /// URL of the first endpoint of `service_type` with `interface`, in `region` when given
    /// (matched against `region_id` or legacy `region`), as keystoneauth's `get_endpoint`
    /// without version discovery. `None` when nothing matches.
    pub fn url_for(
        &self,
        service_type: &str,
        interface: Interface,
        region: Option<&str>,
    ) -> Option<&str> {
        self.services
            .iter()
            .filter(|s| s.service_type == service_type)
            .flat_map(|s| s.endpoints.iter())
            .find(|e| {
                e.interface == interface.as_str()
                    && region.is_none_or(|r| {
                        e.region_id.as_deref() == Some(r) || e.region.as_deref() == Some(r)
                    })
            })
            .map(|e| e.url.as_str())
    }

    /// The first of `interfaces` that has an endpoint (keystoneauth's `valid_interfaces`
    /// order).
    pub fn url_for_any(
        &self,
        service_type: &str,
        interfaces: &[Interface],
        region: Option<&str>,
    ) -> Option<&str> {
        interfaces
            .iter()
            .find_map(|i| self.url_for(service_type, *i, region))
    }

    /// True when the catalog lists this service type.
    pub fn has_service(&self, service_type: &str) -> bool {
        self.services.iter().any(|s| s.service_type == service_type)
    }
}

/// Keystone v3 password credentials, project-scoped: octavia.conf `[service_auth]`
/// (`auth_url`, `username`, `password`, `project_name`, `user_domain_name`,
/// `project_domain_name`, optional `*_domain_id`, `region_name`, `interface`).
#[derive(Clone)]
pub struct ServiceAuthConfig {
    /// Keystone URL, with or without the `/v3` suffix (e.g. `http://127.0.0.1:5000/v3`).
    pub auth_url: String,
    /// `username` of the service user (in `user_domain_name` / `user_domain_id`).
    pub username: String,
    /// Password (never printed by `Debug`).
    pub password: String,
    /// Project to scope to.
    pub project_name: String,
    /// User's domain by name (default `Default`); ignored when `user_domain_id` is set.
    pub user_domain_name: String,
    /// User's domain by id; wins over the name.
    pub user_domain_id: Option<String>,
    /// Project's domain by name (default `Default`); ignored when `project_domain_id` is set.
    pub project_domain_name: String,
    /// Project's domain by id; wins over the name.
    pub project_domain_id: Option<String>,
    /// Region used for catalog lookups when the caller gives none (octavia.conf
    /// `region_name`).
    pub region_name: Option<String>,
    /// Refresh the token when it expires within this margin (keystoneauth's stale duration,
    /// 120 s), capped at half the token's lifetime.
    pub refresh_margin: Duration,
    /// Bound of each request to Keystone, connect included (keystoneauth's session `timeout`,
    /// keystonemiddleware's `http_connect_timeout`); `None` = the HTTP client's own bound
    /// ([`crate::HttpConfig::request_timeout`]). A frozen Keystone then fails the request
    /// with [`KeystoneError::Transport`] after this long.
    pub timeout: Option<Duration>,
    /// `auth_type = v3applicationcredential`: authenticate with this application credential
    /// instead of the password (the user/project fields above are then not sent).
    pub application_credential: Option<ApplicationCredential>,
}

impl Default for ServiceAuthConfig {
    fn default() -> Self {
        Self {
            auth_url: String::new(),
            username: String::new(),
            password: String::new(),
            project_name: String::new(),
            user_domain_name: "Default".into(),
            user_domain_id: None,
            project_domain_name: "Default".into(),
            project_domain_id: None,
            region_name: None,
            refresh_margin: Duration::from_secs(120),
            timeout: None,
            application_credential: None,
        }
    }
}

impl std::fmt::Debug for ServiceAuthConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServiceAuthConfig")
            .field("auth_url", &self.auth_url)
            .field("username", &self.username)
            .field("password", &"***")
            .field("project_name", &self.project_name)
            .field("user_domain_name", &self.user_domain_name)
            .field("user_domain_id", &self.user_domain_id)
            .field("project_domain_name", &self.project_domain_name)
            .field("project_domain_id", &self.project_domain_id)
            .field("region_name", &self.region_name)
            .field("refresh_margin", &self.refresh_margin)
            .field("timeout", &self.timeout)
            .field("application_credential", &self.application_credential)
            .finish()
    }
}

impl ServiceAuthConfig {
    /// The `POST /v3/auth/tokens` body: the application credential's when there is one,
    /// else password auth scoped to the project.
    fn auth_body(&self) -> serde_json::Value {
        if let Some(ac) = &self.application_credential {
            return ac.auth_body();
        }
        let domain = |id: &Option<String>, name: &str| match id {
            Some(id) => json!({ "id": id }),
            None => json!({ "name": name }),
        };
        json!({"auth": {
            "identity": {"methods": ["password"], "password": {"user": {
                "name": self.username,
                "password": self.password,
                "domain": domain(&self.user_domain_id, &self.user_domain_name),
            }}},
            "scope": {"project": {
                "name": self.project_name,
                "domain": domain(&self.project_domain_id, &self.project_domain_name),
            }},
        }})
    }
}

/// Normalises a Keystone URL to its v3 root: `http://h:5000` and `http://h:5000/v3/` both
/// give `http://h:5000/v3`.
pub(crate) fn v3_root(auth_url: &str) -> String {
    let u = auth_url.trim_end_matches('/');
    if u.ends_with("/v3") {
        u.to_string()
    } else {
        format!("{u}/v3")
    }
}

/// An issued service token with its catalog. `Debug` never prints the token itself.
#[derive(Clone)]
pub struct ServiceToken {
    id: String,
    /// User the token belongs to.
    pub user_id: String,
    /// Project it is scoped to.
    pub project_id: String,
    /// Expiry, from `token.expires_at`.
    pub expires_at: DateTime<Utc>,
    /// Service catalog of the token.
    pub catalog: Catalog,
    refresh_at: DateTime<Utc>,
}

impl ServiceToken {
    /// The token to send as `X-Auth-Token`.
    pub fn id(&self) -> &str {
        &self.id
    }

    fn is_fresh(&self, now: DateTime<Utc>) -> bool {
        now < self.refresh_at
    }
}

impl std::fmt::Debug for ServiceToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServiceToken")
            .field("user_id", &self.user_id)
            .field("project_id", &self.project_id)
            .field("expires_at", &self.expires_at)
            .field("services", &self.catalog.services.len())
            .finish()
    }
}

// --- token body (`GET`/`POST /v3/auth/tokens`) -------------------------------------------

#[derive(Deserialize)]
struct TokenEnvelope {
    token: TokenBody,
}

#[derive(Deserialize)]
struct NamedRef {
    #[serde(default)]
    id: String,
    #[serde(default)]
    name: String,
}

#[derive(Deserialize)]
struct UserRef {
    id: String,
    #[serde(default)]
    name: String,
    domain: Option<NamedRef>,
}

#[derive(Deserialize)]
struct ProjectRef {
    id: String,
    #[serde(default)]
    name: String,
    domain: Option<NamedRef>,
}

#[derive(Deserialize)]
struct SystemRef {
    #[serde(default)]
    all: bool,
}

#[derive(Deserialize)]
struct TokenBody {
    expires_at: DateTime<Utc>,
    issued_at: Option<DateTime<Utc>>,
    user: UserRef,
    project: Option<ProjectRef>,
    domain: Option<NamedRef>,
    system: Option<SystemRef>,
    #[serde(default)]
    roles: Vec<NamedRef>,
    is_admin_project: Option<bool>,
    #[serde(default)]
    catalog: Option<Catalog>,
    #[serde(default)]
    audit_ids: Vec<String>,
}

/// Extracts Keystone's `{"error": {"message"}}` text, or a body excerpt.
fn keystone_message(body: &[u8]) -> String {
    #[derive(Deserialize)]
    struct E {
        error: Inner,
    }
    #[derive(Deserialize)]
    struct Inner {
        #[serde(default)]
        message: String,
    }
    match serde_json::from_slice::<E>(body) {
        Ok(e) => e.error.message,
        Err(_) => snippet(body),
    }
}

/// Keel's service session: password auth to Keystone v3 (octavia.conf `[service_auth]`),
/// the token cached and re-issued `refresh_margin` before expiry (keystoneauth session
/// semantics), the catalog parsed for endpoint lookups. Cheap to clone (shared state);
/// concurrent callers needing a new token wait for one issue (single flight).
#[derive(Clone)]
pub struct ServiceAuth {
    inner: Arc<AuthInner>,
}

struct AuthInner {
    http: reqwest::Client,
    cfg: ServiceAuthConfig,
    identity_url: String,
    cached: RwLock<Option<Arc<ServiceToken>>>,
    refresh: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for ServiceAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServiceAuth")
            .field("cfg", &self.inner.cfg)
            .finish_non_exhaustive()
    }
}

impl ServiceAuth {
    /// A session over the shared `http` client. No request is made until the first
    /// [`ServiceAuth::token`].
    pub fn new(http: reqwest::Client, cfg: ServiceAuthConfig) -> Self {
        let identity_url = v3_root(&cfg.auth_url);
        Self {
            inner: Arc::new(AuthInner {
                http,
                cfg,
                identity_url,
                cached: RwLock::new(None),
                refresh: tokio::sync::Mutex::new(()),
            }),
        }
    }

    /// The Keystone v3 root this session authenticates against (`.../v3`).
    pub fn identity_url(&self) -> &str {
        &self.inner.identity_url
    }

    /// The configuration this session was built with.
    pub fn config(&self) -> &ServiceAuthConfig {
        &self.inner.cfg
    }

    /// The shared HTTP client (for other clients built on this session).
    pub fn http(&self) -> &reqwest::Client {
        &self.inner.http
    }

    /// A request to Keystone on the shared client, bounded by [`ServiceAuthConfig::timeout`].
    pub(crate) fn keystone_request(
        &self,
        method: reqwest::Method,
        url: &str,
    ) -> reqwest::RequestBuilder {
        let req = self.inner.http.request(method, url);
        match self.inner.cfg.timeout {
            Some(t) => req.timeout(t),
            None => req,
        }
    }

    fn cached_fresh(&self) -> Option<Arc<ServiceToken>> {
        let guard = self.inner.cached.read().unwrap_or_else(|e| e.into_inner());
        guard.as_ref().filter(|t| t.is_fresh(Utc::now())).cloned()
    }

    /// A valid service token: the cached one, or a new one when none is cached or it
    /// expires within the refresh margin. Errors: `ServiceCredentialsRejected` (401 from
    /// Keystone), `Status`, `Transport`, `Decode`.
    pub async fn token(&self) -> Result<Arc<ServiceToken>, KeystoneError> {
        if let Some(t) = self.cached_fresh() {
            return Ok(t);
        }
        let _flight = self.inner.refresh.lock().await;
        if let Some(t) = self.cached_fresh() {
            return Ok(t);
        }
        let t = Arc::new(self.issue().await?);
        *self.inner.cached.write().unwrap_or_else(|e| e.into_inner()) = Some(Arc::clone(&t));
        Ok(t)
    }

    /// Drops the cached token if it is still `token` (a service answered 401 with it), so
    /// the next [`ServiceAuth::token`] issues a new one.
    pub fn invalidate(&self, token: &ServiceToken) {
        let mut guard = self.inner.cached.write().unwrap_or_else(|e| e.into_inner());
        if guard.as_ref().is_some_and(|t| t.id == token.id) {
            *guard = None;
        }
    }

    /// Base URL of `service_type` for `interface` in `region` (or the configured
    /// `region_name`) from the service token's catalog. Errors: those of
    /// [`ServiceAuth::token`], `EndpointNotFound`.
    pub async fn endpoint(
        &self,
        service_type: &str,
        interface: Interface,
        region: Option<&str>,
    ) -> Result<String, KeystoneError> {
        let token = self.token().await?;
        let region = region.or(self.inner.cfg.region_name.as_deref());
        token
            .catalog
            .url_for(service_type, interface, region)
            .map(str::to_string)
            .ok_or_else(|| KeystoneError::EndpointNotFound {
                service_type: service_type.to_string(),
                interface: interface.as_str().to_string(),
                region: region.map(str::to_string),
            })
    }

    /// Like [`ServiceAuth::endpoint`], trying `interfaces` in order; the error names the
    /// first one.
    pub async fn endpoint_any(
        &self,
        service_type: &str,
        interfaces: &[Interface],
        region: Option<&str>,
    ) -> Result<String, KeystoneError> {
        let token = self.token().await?;
        let region = region.or(self.inner.cfg.region_name.as_deref());
        token
            .catalog
            .url_for_any(service_type, interfaces, region)
            .map(str::to_string)
            .ok_or_else(|| KeystoneError::EndpointNotFound {
                service_type: service_type.to_string(),
                interface: interfaces
                    .iter()
                    .map(|i| i.as_str())
                    .collect::<Vec<_>>()
                    .join(","),
                region: region.map(str::to_string),
            })
    }

    /// `POST /v3/auth/tokens` with the password credentials; the new token is in the
    /// `X-Subject-Token` header, its catalog in the body.
    async fn issue(&self) -> Result<ServiceToken, KeystoneError> {
        let url = join(&self.inner.identity_url, "auth/tokens");
        match &self.inner.cfg.application_credential {
            Some(ac) => {
                tracing::debug!(application_credential = %ac.label(), "keystone: issuing service token")
            }
            None => {
                tracing::debug!(user = %self.inner.cfg.username, project = %self.inner.cfg.project_name, "keystone: issuing service token")
            }
        }
        let resp = self
            .keystone_request(reqwest::Method::POST, &url)
            .json(&self.inner.cfg.auth_body())
            .send()
            .await
            .map_err(KeystoneError::Transport)?;
        let status = resp.status();
        let subject = resp
            .headers()
            .get("x-subject-token")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let body = resp.bytes().await.map_err(KeystoneError::Transport)?;
        match status {
            s if s.is_success() => {}
            StatusCode::UNAUTHORIZED => {
                return Err(KeystoneError::ServiceCredentialsRejected {
                    status: 401,
                    message: keystone_message(&body),
                });
            }
            s => {
                return Err(KeystoneError::Status {
                    status: s.as_u16(),
                    message: keystone_message(&body),
                });
            }
        }
        let id = subject.ok_or_else(|| {
            KeystoneError::Decode("no X-Subject-Token header in the auth response".into())
        })?;
        let env: TokenEnvelope = serde_json::from_slice(&body)
            .map_err(|e| KeystoneError::Decode(format!("token body: {e}")))?;
        parse_service_token(id, env.token, self.inner.cfg.refresh_margin)
    }
}

fn parse_service_token(
    id: String,
    body: TokenBody,
    margin: Duration,
) -> Result<ServiceToken, KeystoneError> {
    let project = body
        .project
        .ok_or_else(|| KeystoneError::Decode("service token is not project-scoped".to_string()))?;
    let lifetime = body
        .issued_at
        .map(|i| body.expires_at - i)
        .unwrap_or_else(|| chrono::Duration::hours(1));
    let margin = chrono::Duration::from_std(margin)
        .unwrap_or_else(|_| chrono::Duration::seconds(120))
        .min(lifetime / 2);
    Ok(ServiceToken {
        id,
        user_id: body.user.id,
        project_id: project.id,
        expires_at: body.expires_at,
        catalog: body.catalog.unwrap_or_default(),
        refresh_at: body.expires_at - margin,
    })
}

// --- user token validation ----------------------------------------------------------------

/// The identity of a validated user token: what keystonemiddleware puts in the `X-*`
/// headers and Octavia's `RequestContext.from_environ` reads (seed 003 §4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UserContext {
    /// `X-User-Id`.
    pub user_id: String,
    /// `X-User-Name`.
    pub user_name: String,
    /// `X-User-Domain-Id`.
    pub user_domain_id: String,
    /// `X-User-Domain-Name`.
    pub user_domain_name: String,
    /// `X-Project-Id`; `None` for domain-, system- or un-scoped tokens (Octavia then says
    /// "Missing project ID" on creation).
    pub project_id: Option<String>,
    /// `X-Project-Name`.
    pub project_name: Option<String>,
    /// `X-Project-Domain-Id`.
    pub project_domain_id: Option<String>,
    /// `X-Project-Domain-Name`.
    pub project_domain_name: Option<String>,
    /// `X-Domain-Id` of a domain-scoped token.
    pub domain_id: Option<String>,
    /// `X-Domain-Name` of a domain-scoped token.
    pub domain_name: Option<String>,
    /// `X-Roles`: role names, e.g. `member`, `reader`, `load-balancer_member`.
    pub roles: Vec<String>,
    /// `X-Is-Admin-Project` (true when Keystone omits it, as keystonemiddleware).
    pub is_admin_project: bool,
    /// `X-System-Scope`: `Some("all")` for a system-scoped token.
    pub system_scope: Option<String>,
    /// When the token expires.
    pub expires_at: DateTime<Utc>,
    /// The token's audit ids (for logs; never the token itself).
    pub audit_ids: Vec<String>,
}

impl UserContext {
    /// True when the token carries `role` (exact name).
    pub fn has_role(&self, role: &str) -> bool {
        self.roles.iter().any(|r| r == role)
    }

    fn from_body(body: TokenBody) -> Self {
        let (user_domain_id, user_domain_name) =
            body.user.domain.map(|d| (d.id, d.name)).unwrap_or_default();
        let (project_id, project_name, project_domain_id, project_domain_name) = match body.project
        {
            Some(p) => {
                let (did, dname) = p.domain.map(|d| (d.id, d.name)).unwrap_or_default();
                (Some(p.id), Some(p.name), Some(did), Some(dname))
            }
            None => (None, None, None, None),
        };
        let (domain_id, domain_name) = match body.domain {
            Some(d) => (Some(d.id), Some(d.name)),
            None => (None, None),
        };
        Self {
            user_id: body.user.id,
            user_name: body.user.name,
            user_domain_id,
            user_domain_name,
            project_id,
            project_name,
            project_domain_id,
            project_domain_name,
            domain_id,
            domain_name,
            roles: body.roles.into_iter().map(|r| r.name).collect(),
            is_admin_project: body.is_admin_project.unwrap_or(true),
            system_scope: body.system.filter(|s| s.all).map(|_| "all".to_string()),
            expires_at: body.expires_at,
            audit_ids: body.audit_ids,
        }
    }
}

/// Settings of [`TokenValidator`] (octavia.conf `[keystone_authtoken]`).
#[derive(Debug, Clone)]
pub struct TokenValidatorConfig {
    /// How long a validation result is reused, capped by the token's expiry
    /// (keystonemiddleware `token_cache_time`, default 300 s).
    pub cache_ttl: Duration,
    /// At most this many tokens cached; on overflow expired entries are dropped, then all.
    pub max_cache_entries: usize,
    /// Keystone URL to validate against (`www_authenticate_uri`/`auth_url`); default: the
    /// service session's `auth_url`.
    pub identity_url: Option<String>,
}

impl Default for TokenValidatorConfig {
    fn default() -> Self {
        Self {
            cache_ttl: Duration::from_secs(300),
            max_cache_entries: 10_000,
            identity_url: None,
        }
    }
}

#[derive(Clone)]
enum Cached {
    Valid(Arc<UserContext>),
    Invalid(InvalidTokenReason),
}

struct CacheEntry {
    until: Instant,
    value: Cached,
}

/// The token cache, separated from the clock so it is testable without sleeping.
struct TokenCache {
    map: HashMap<String, CacheEntry>,
    max: usize,
}

impl TokenCache {
    fn get(&self, token: &str, now: Instant) -> Option<Cached> {
        self.map
            .get(token)
            .filter(|e| e.until > now)
            .map(|e| e.value.clone())
    }

    fn insert(&mut self, token: &str, value: Cached, until: Instant, now: Instant) {
        if self.map.len() >= self.max && !self.map.contains_key(token) {
            self.map.retain(|_, e| e.until > now);
            if self.map.len() >= self.max {
                self.map.clear();
            }
        }
        self.map
            .insert(token.to_string(), CacheEntry { until, value });
    }
}

/// Longest token accepted for validation (bytes).
const MAX_TOKEN_LEN: usize = 8192;

/// Validates users' tokens against Keystone (`GET /v3/auth/tokens`, `X-Subject-Token` = the
/// user's token, `X-Auth-Token` = the service token), as keystonemiddleware's auth_token
/// does for Octavia (octavia/common/keystone.py `SkippingAuthProtocol`). Results, valid or
/// not, are cached per token for `cache_ttl` (never past the token's expiry).
pub struct TokenValidator {
    service: ServiceAuth,
    identity_url: String,
    cfg: TokenValidatorConfig,
    cache: Mutex<TokenCache>,
}

impl std::fmt::Debug for TokenValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenValidator")
            .field("identity_url", &self.identity_url)
            .field("cfg", &self.cfg)
            .finish_non_exhaustive()
    }
}

/// `keel_token_cache_total{result = hit | miss}`: user-token validations answered from the
/// cache or sent to Keystone (Prometheus default registry).
static TOKEN_CACHE: std::sync::LazyLock<prometheus::IntCounterVec> =
    std::sync::LazyLock::new(|| {
        let c = prometheus::IntCounterVec::new(
            prometheus::Opts::new(
                "keel_token_cache_total",
                "user-token validations by token-cache outcome",
            ),
            &["result"],
        );
        match c {
            Ok(c) => {
                let _ = prometheus::register(Box::new(c.clone()));
                c
            }
            // a constant definition: a rejected one is a bug here
            #[allow(clippy::panic)]
            Err(e) => panic!("invalid metric definition: {e}"),
        }
    });

impl TokenValidator {
    /// A validator using `service`'s token (and HTTP client) to call Keystone.
    pub fn new(service: ServiceAuth, cfg: TokenValidatorConfig) -> Self {
        let identity_url = cfg
            .identity_url
            .as_deref()
            .map(v3_root)
            .unwrap_or_else(|| service.identity_url().to_string());
        let max = cfg.max_cache_entries.max(1);
        Self {
            service,
            identity_url,
            cfg,
            cache: Mutex::new(TokenCache {
                map: HashMap::new(),
                max,
            }),
        }
    }

    /// Validates `user_token` (the request's `X-Auth-Token`).
    ///
    /// Errors: `InvalidToken(Empty | NotFound | Expired | Malformed)` → the API answers 401;
    /// `ServiceCredentialsRejected` when Keystone refuses the service token twice (a fresh one
    /// is issued after the first 401); `Status` (e.g. 403: the service user may not
    /// validate tokens), `Transport`, `Decode` → 500/503.
    pub async fn validate(&self, user_token: &str) -> Result<Arc<UserContext>, KeystoneError> {
        let user_token = user_token.trim();
        if user_token.is_empty() {
            return Err(KeystoneError::InvalidToken(InvalidTokenReason::Empty));
        }
        // Fernet/JWS tokens are short printable ASCII; anything else cannot be valid and
        // should neither reach Keystone nor fill the cache.
        if user_token.len() > MAX_TOKEN_LEN || !user_token.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(KeystoneError::InvalidToken(InvalidTokenReason::Malformed));
        }
        let cached = self
            .cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(user_token, Instant::now());
        TOKEN_CACHE
            .with_label_values(&[if cached.is_some() { "hit" } else { "miss" }])
            .inc();
        match cached {
            Some(Cached::Valid(ctx)) if ctx.expires_at > Utc::now() => return Ok(ctx),
            Some(Cached::Valid(_)) => {
                return Err(KeystoneError::InvalidToken(InvalidTokenReason::Expired));
            }
            Some(Cached::Invalid(reason)) => return Err(KeystoneError::InvalidToken(reason)),
            None => {}
        }
        let result = self.fetch(user_token).await;
        let now = Instant::now();
        let entry = match &result {
            Ok(ctx) => {
                let left = (ctx.expires_at - Utc::now()).to_std().unwrap_or_default();
                Some((
                    Cached::Valid(Arc::clone(ctx)),
                    now + left.min(self.cfg.cache_ttl),
                ))
            }
            Err(KeystoneError::InvalidToken(r)) => {
                Some((Cached::Invalid(*r), now + self.cfg.cache_ttl))
            }
            Err(_) => None,
        };
        if let Some((value, until)) = entry {
            self.cache
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(user_token, value, until, now);
        }
        result
    }

    /// Number of cached validation results (valid and invalid), for metrics and tests.
    pub fn cache_len(&self) -> usize {
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .map
            .len()
    }

    /// Forgets every cached result.
    pub fn clear_cache(&self) {
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .map
            .clear();
    }

    async fn fetch(&self, user_token: &str) -> Result<Arc<UserContext>, KeystoneError> {
        let url = join(&self.identity_url, "auth/tokens");
        let mut retried = false;
        loop {
            let service = self.service.token().await?;
            let resp = self
                .service
                .keystone_request(reqwest::Method::GET, &url)
                .query(&[("nocatalog", "1")])
                .header("X-Auth-Token", service.id())
                .header("X-Subject-Token", user_token)
                .send()
                .await
                .map_err(KeystoneError::Transport)?;
            let status = resp.status();
            let body = resp.bytes().await.map_err(KeystoneError::Transport)?;
            match status {
                s if s.is_success() => {
                    let env: TokenEnvelope = serde_json::from_slice(&body)
                        .map_err(|e| KeystoneError::Decode(format!("token body: {e}")))?;
                    let ctx = UserContext::from_body(env.token);
                    if ctx.expires_at <= Utc::now() {
                        return Err(KeystoneError::InvalidToken(InvalidTokenReason::Expired));
                    }
                    return Ok(Arc::new(ctx));
                }
                StatusCode::NOT_FOUND => {
                    return Err(KeystoneError::InvalidToken(InvalidTokenReason::NotFound));
                }
                StatusCode::UNAUTHORIZED if !retried => {
                    // Our service token was refused (revoked, expired early): get a new one.
                    self.service.invalidate(&service);
                    retried = true;
                }
                StatusCode::UNAUTHORIZED => {
                    return Err(KeystoneError::ServiceCredentialsRejected {
                        status: 401,
                        message: keystone_message(&body),
                    });
                }
                s => {
                    return Err(KeystoneError::Status {
                        status: s.as_u16(),
                        message: keystone_message(&body),
                    });
                }
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    const TOKEN_BODY: &str = r#"{"token": {"methods": ["password"], "user": {"domain": {"id": "default", "name": "Default"}, "id": "u1", "name": "demo", "password_expires_at": null}, "audit_ids": ["a1"], "expires_at": "2026-11-29T21:01:19.000000Z", "issued_at": "2026-11-29T20:01:19.000000Z", "project": {"domain": {"id": "default", "name": "Default"}, "id": "p1", "name": "demo"}, "is_domain": false, "roles": [{"id": "r1", "name": "member"}, {"id": "r2", "name": "load-balancer_member"}],
      "catalog": [{"endpoints": [
          {"id": "e1", "interface": "admin", "region_id": "RegionOne", "url": "http://admin:9696", "region": "RegionOne"},
          {"id": "e2", "interface": "internal", "region_id": "RegionOne", "url": "http://internal:9696", "region": "RegionOne"},
          {"id": "e3", "interface": "public", "region_id": "RegionOne", "url": "http://public:9696", "region": "RegionOne"},
          {"id": "e4", "interface": "public", "region_id": "RegionTwo", "url": "http://two:9696", "region": "RegionTwo"}],
        "id": "s1", "type": "network", "name": "neutron"},
        {"endpoints": [{"id": "e5", "interface": "public", "region_id": "RegionOne", "url": "http://lb:9876"}], "id": "s2", "type": "load-balancer", "name": "octavia"}]}}"#;

    #[test]
    fn catalog_lookup_by_type_interface_region() {
        let env: TokenEnvelope = serde_json::from_str(TOKEN_BODY).unwrap();
        let cat = env.token.catalog.unwrap();
        assert_eq!(
            cat.url_for("network", Interface::Public, None),
            Some("http://public:9696")
        );
        assert_eq!(
            cat.url_for("network", Interface::Internal, Some("RegionOne")),
            Some("http://internal:9696")
        );
        assert_eq!(
            cat.url_for("network", Interface::Public, Some("RegionTwo")),
            Some("http://two:9696")
        );
        assert_eq!(
            cat.url_for("network", Interface::Admin, Some("RegionTwo")),
            None
        );
        assert_eq!(
            cat.url_for("load-balancer", Interface::Public, None),
            Some("http://lb:9876")
        );
        assert_eq!(cat.url_for("key-manager", Interface::Public, None), None);
        assert!(cat.has_service("load-balancer"));
    }

    #[test]
    fn user_context_from_project_token() {
        let env: TokenEnvelope = serde_json::from_str(TOKEN_BODY).unwrap();
        let ctx = UserContext::from_body(env.token);
        assert_eq!(ctx.user_id, "u1");
        assert_eq!(ctx.project_id.as_deref(), Some("p1"));
        assert_eq!(ctx.project_domain_id.as_deref(), Some("default"));
        assert_eq!(ctx.roles, vec!["member", "load-balancer_member"]);
        assert!(ctx.has_role("member") && !ctx.has_role("admin"));
        assert!(ctx.is_admin_project, "absent is_admin_project means true");
        assert_eq!(ctx.system_scope, None);
        assert_eq!(ctx.domain_id, None);
        assert_eq!(ctx.expires_at.to_rfc3339(), "2026-11-29T21:01:19+00:00");
    }

    #[test]
    fn user_context_from_system_and_domain_tokens() {
        let sys = r#"{"token": {"expires_at": "2030-01-01T00:00:00Z", "user": {"id": "u"}, "system": {"all": true}, "roles": [{"id": "r", "name": "admin"}], "is_admin_project": false}}"#;
        let ctx = UserContext::from_body(serde_json::from_str::<TokenEnvelope>(sys).unwrap().token);
        assert_eq!(ctx.system_scope.as_deref(), Some("all"));
        assert_eq!(ctx.project_id, None);
        assert!(!ctx.is_admin_project);
        let dom = r#"{"token": {"expires_at": "2030-01-01T00:00:00Z", "user": {"id": "u"}, "domain": {"id": "d1", "name": "Dom"}}}"#;
        let ctx = UserContext::from_body(serde_json::from_str::<TokenEnvelope>(dom).unwrap().token);
        assert_eq!(ctx.domain_id.as_deref(), Some("d1"));
        assert!(ctx.roles.is_empty());
    }

    #[test]
    fn service_token_refreshes_before_expiry() {
        let env: TokenEnvelope = serde_json::from_str(TOKEN_BODY).unwrap();
        let t = parse_service_token("tok".into(), env.token, Duration::from_secs(120)).unwrap();
        let exp = t.expires_at;
        assert!(t.is_fresh(exp - chrono::Duration::seconds(121)));
        assert!(!t.is_fresh(exp - chrono::Duration::seconds(119)));
        assert_eq!(t.catalog.services.len(), 2);
        assert!(
            !format!("{t:?}").contains("tok\""),
            "Debug must not print the token"
        );
    }

    #[test]
    fn short_lived_token_margin_capped_at_half_life() {
        let body = r#"{"token": {"expires_at": "2030-01-01T00:01:00Z", "issued_at": "2030-01-01T00:00:00Z", "user": {"id": "u"}, "project": {"id": "p"}}}"#;
        let env: TokenEnvelope = serde_json::from_str(body).unwrap();
        let t = parse_service_token("x".into(), env.token, Duration::from_secs(120)).unwrap();
        assert_eq!(t.refresh_at.to_rfc3339(), "2030-01-01T00:00:30+00:00");
    }

    #[test]
    fn unscoped_service_token_is_an_error() {
        let body = r#"{"token": {"expires_at": "2030-01-01T00:00:00Z", "user": {"id": "u"}}}"#;
        let env: TokenEnvelope = serde_json::from_str(body).unwrap();
        assert!(matches!(
            parse_service_token("x".into(), env.token, Duration::from_secs(1)),
            Err(KeystoneError::Decode(_))
        ));
    }

    #[test]
    fn auth_body_prefers_domain_ids() {
        let cfg = ServiceAuthConfig {
            username: "octavia".into(),
            password: "pw".into(),
            project_name: "service".into(),
            project_domain_id: Some("default".into()),
            ..ServiceAuthConfig::default()
        };
        let b = cfg.auth_body();
        assert_eq!(
            b["auth"]["identity"]["password"]["user"]["domain"],
            json!({"name": "Default"})
        );
        assert_eq!(
            b["auth"]["scope"]["project"]["domain"],
            json!({"id": "default"})
        );
        assert!(!format!("{cfg:?}").contains("pw"));
    }

    #[test]
    fn v3_root_normalises() {
        assert_eq!(v3_root("http://h:5000"), "http://h:5000/v3");
        assert_eq!(v3_root("http://h:5000/v3/"), "http://h:5000/v3");
        assert_eq!(v3_root("http://h/identity/v3"), "http://h/identity/v3");
    }

    #[test]
    fn valid_interfaces_list_is_tried_in_order() {
        let list = Interface::parse_list("admin, internal,public").unwrap();
        assert_eq!(
            list,
            vec![Interface::Admin, Interface::Internal, Interface::Public]
        );
        let e = Interface::parse_list("internal,bogus").unwrap_err();
        assert_eq!(e, UnknownInterface("bogus".into()));
        assert_eq!(e.to_string(), "unknown endpoint interface \"bogus\"");
        let env: TokenEnvelope = serde_json::from_str(TOKEN_BODY).unwrap();
        let cat = env.token.catalog.unwrap();
        // load-balancer has only a public endpoint: the list falls through to it.
        assert_eq!(
            cat.url_for_any(
                "load-balancer",
                &[Interface::Internal, Interface::Public],
                None
            ),
            Some("http://lb:9876")
        );
        assert_eq!(
            cat.url_for_any("network", &[Interface::Internal, Interface::Public], None),
            Some("http://internal:9696")
        );
        assert_eq!(cat.url_for_any("network", &[], None), None);
    }

    #[test]
    fn interface_parses_octavia_spellings() {
        assert_eq!("publicURL".parse::<Interface>(), Ok(Interface::Public));
        assert_eq!("internal".parse::<Interface>(), Ok(Interface::Internal));
        assert_eq!("ADMIN".parse::<Interface>(), Ok(Interface::Admin));
        assert_eq!(
            "private".parse::<Interface>(),
            Err(UnknownInterface("private".into()))
        );
    }

    fn ctx() -> Cached {
        let env: TokenEnvelope = serde_json::from_str(TOKEN_BODY).unwrap();
        Cached::Valid(Arc::new(UserContext::from_body(env.token)))
    }

    #[test]
    fn cache_entries_expire_at_their_deadline() {
        let mut c = TokenCache {
            map: HashMap::new(),
            max: 10,
        };
        let t0 = Instant::now();
        c.insert("a", ctx(), t0 + Duration::from_secs(300), t0);
        c.insert(
            "b",
            Cached::Invalid(InvalidTokenReason::NotFound),
            t0 + Duration::from_secs(5),
            t0,
        );
        assert!(matches!(
            c.get("a", t0 + Duration::from_secs(299)),
            Some(Cached::Valid(_))
        ));
        assert!(c.get("a", t0 + Duration::from_secs(300)).is_none());
        assert!(matches!(
            c.get("b", t0),
            Some(Cached::Invalid(InvalidTokenReason::NotFound))
        ));
        assert!(c.get("b", t0 + Duration::from_secs(6)).is_none());
        assert!(c.get("zzz", t0).is_none());
    }

    #[tokio::test]
    async fn malformed_tokens_are_refused_without_a_request() {
        // An unroutable Keystone: any request would fail with Transport, not InvalidToken.
        let http = crate::HttpConfig::default().build_client().unwrap();
        let auth = ServiceAuth::new(
            http,
            ServiceAuthConfig {
                auth_url: "http://127.0.0.1:1/v3".into(),
                ..ServiceAuthConfig::default()
            },
        );
        let v = TokenValidator::new(auth, TokenValidatorConfig::default());
        for bad in [
            "tok en",
            "tok\u{7f}",
            "jeton-é",
            &"a".repeat(MAX_TOKEN_LEN + 1),
        ] {
            assert!(
                matches!(
                    v.validate(bad).await,
                    Err(KeystoneError::InvalidToken(InvalidTokenReason::Malformed))
                ),
                "{bad:?}"
            );
        }
        assert!(matches!(
            v.validate("").await,
            Err(KeystoneError::InvalidToken(InvalidTokenReason::Empty))
        ));
        assert!(matches!(
            v.validate("plausible").await,
            Err(KeystoneError::Transport(_))
        ));
        assert_eq!(v.cache_len(), 0);
    }

    #[test]
    fn cache_is_bounded() {
        let mut c = TokenCache {
            map: HashMap::new(),
            max: 3,
        };
        let t0 = Instant::now();
        let later = t0 + Duration::from_secs(10);
        c.insert("old", ctx(), t0 + Duration::from_secs(1), t0);
        c.insert("b", ctx(), later, t0);
        c.insert("c", ctx(), later, t0);
        // Full: the expired entry goes first.
        c.insert("d", ctx(), later, t0 + Duration::from_secs(2));
        assert_eq!(c.map.len(), 3);
        assert!(!c.map.contains_key("old"));
        // Full of live entries: cleared, then the new one stored.
        c.insert("e", ctx(), later, t0 + Duration::from_secs(2));
        assert_eq!(c.map.len(), 1);
        assert!(c.map.contains_key("e"));
    }
}
