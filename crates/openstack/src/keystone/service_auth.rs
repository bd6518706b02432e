//! Keel's service session ([`ServiceAuth`]): octavia.conf `[service_auth]` password or
//! application-credential auth to Keystone v3, the token cached and re-issued before expiry
//! (keystoneauth session semantics).

use std::sync::{Arc, RwLock};
use std::time::Duration;

use chrono::{DateTime, Utc};
use reqwest::StatusCode;
use serde_json::json;

use super::app_credential::ApplicationCredential;
use super::catalog::{Catalog, Interface};
use super::token_body::{TokenBody, TokenEnvelope, keystone_message};
use crate::error::KeystoneError;
use crate::http::join;

/// Keystone v3 credentials as keystoneauth's `password` / `v3password` plugins take them
/// (octavia.conf `[service_auth]`, `[keystone_authtoken]`, `[neutron]`): the user (`user_id`,
/// or `username` in its domain), the password, one scope (project, domain, trust or system),
/// `default_domain_*` as the user's and the project's domain where those are unset
/// (`keystoneauth1/identity/generic/password.py`), `region_name`, the session's timeout; or an
/// application credential instead.
#[derive(Clone)]
pub struct ServiceAuthConfig {
    /// Keystone URL, with or without the `/v3` suffix (e.g. `http://127.0.0.1:5000/v3`).
    pub auth_url: String,
    /// `username` of the service user (in `user_domain_name` / `user_domain_id`); ignored when
    /// `user_id` is set.
    pub username: String,
    /// Password (never printed by `Debug`).
    pub password: String,
    /// `user_id`: the user by id, sent without a domain (wins over `username`).
    pub user_id: Option<String>,
    /// `project_name`: scope to this project, in `project_domain_*` (empty: no project).
    pub project_name: String,
    /// `project_id` (or the deprecated `tenant_id`): scope to this project; wins over
    /// `project_name`.
    pub project_id: Option<String>,
    /// User's domain by name; unset: `default_domain_name`, then `Default` (Keel's last
    /// resort, where keystoneauth sends no domain); a domain id wins over it.
    pub user_domain_name: Option<String>,
    /// User's domain by id; unset: `default_domain_id`. Wins over every name.
    pub user_domain_id: Option<String>,
    /// Project's domain by name, sent with `project_name` only; unset: `default_domain_name`,
    /// then `Default`; a domain id wins over it.
    pub project_domain_name: Option<String>,
    /// Project's domain by id; unset: `default_domain_id`. Wins over every name.
    pub project_domain_id: Option<String>,
    /// `default_domain_id` (the generic `password` plugin's): the user's and the project's
    /// domain id where theirs is unset.
    pub default_domain_id: Option<String>,
    /// `default_domain_name`: the user's and the project's domain name where theirs is unset.
    pub default_domain_name: Option<String>,
    /// `domain_id`: scope to this domain (wins over `domain_name`).
    pub domain_id: Option<String>,
    /// `domain_name`: scope to this domain.
    pub domain_name: Option<String>,
    /// `trust_id`: scope to this trust (the user is its trustee).
    pub trust_id: Option<String>,
    /// `system_scope`: `all` scopes to the whole system; another value counts as a scope but
    /// sends none, as keystoneauth.
    pub system_scope: Option<String>,
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

/// The domain name sent when neither the option nor `default_domain_*` gives one.
const KEEL_DOMAIN: &str = "Default";

impl Default for ServiceAuthConfig {
    fn default() -> Self {
        Self {
            auth_url: String::new(),
            username: String::new(),
            password: String::new(),
            user_id: None,
            project_name: String::new(),
            project_id: None,
            user_domain_name: None,
            user_domain_id: None,
            project_domain_name: None,
            project_domain_id: None,
            default_domain_id: None,
            default_domain_name: None,
            domain_id: None,
            domain_name: None,
            trust_id: None,
            system_scope: None,
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
            .field("user_id", &self.user_id)
            .field("project_name", &self.project_name)
            .field("project_id", &self.project_id)
            .field("user_domain_name", &self.user_domain_name)
            .field("user_domain_id", &self.user_domain_id)
            .field("project_domain_name", &self.project_domain_name)
            .field("project_domain_id", &self.project_domain_id)
            .field("default_domain_id", &self.default_domain_id)
            .field("default_domain_name", &self.default_domain_name)
            .field("domain_id", &self.domain_id)
            .field("domain_name", &self.domain_name)
            .field("trust_id", &self.trust_id)
            .field("system_scope", &self.system_scope)
            .field("region_name", &self.region_name)
            .field("refresh_margin", &self.refresh_margin)
            .field("timeout", &self.timeout)
            .field("application_credential", &self.application_credential)
            .finish()
    }
}

/// A set option: `Some` and not empty.
fn set(o: &Option<String>) -> Option<&str> {
    o.as_deref().filter(|v| !v.is_empty())
}

/// `{"id": …}` when an id is known, else `{"name": …}` (Keel's `Default` without either).
fn domain_ref(id: Option<&str>, name: Option<&str>) -> serde_json::Value {
    match (id, name) {
        (Some(id), _) => json!({ "id": id }),
        (None, name) => json!({ "name": name.unwrap_or(KEEL_DOMAIN) }),
    }
}

impl ServiceAuthConfig {
    /// The scopes the options name, each once, of `project` (`project_id` or
    /// `project_name`), `domain` (`domain_id` or `domain_name`), `trust` (`trust_id`) and
    /// `system` (`system_scope`), in that order (keystoneauth's v3 `Auth` counts the same
    /// four). More than one is refused when a token is asked for.
    pub fn scope_targets(&self) -> Vec<&'static str> {
        let project = set(&self.project_id).is_some() || !self.project_name.is_empty();
        let domain = set(&self.domain_id).or(set(&self.domain_name)).is_some();
        [
            ("project", project),
            ("domain", domain),
            ("trust", set(&self.trust_id).is_some()),
            ("system", set(&self.system_scope).is_some()),
        ]
        .into_iter()
        .filter_map(|(name, on)| on.then_some(name))
        .collect()
    }

    /// The body's `scope`, as keystoneauth's v3 `Auth.get_auth_ref` builds it: a domain (id,
    /// else name), else a project (id, else name with its domain), else a trust, else the
    /// system (`system_scope = all` only); `None` without any (Keystone then scopes to the
    /// user's default project, if it has one). Errors: [`KeystoneError::ScopeConflict`] when
    /// more than one of [`Self::scope_targets`] is set.
    pub fn scope(&self) -> Result<Option<serde_json::Value>, KeystoneError> {
        let targets = self.scope_targets();
        if targets.len() > 1 {
            return Err(KeystoneError::ScopeConflict {
                targets: targets.join(", "),
            });
        }
        let project_domain = || {
            domain_ref(
                set(&self.project_domain_id).or(set(&self.default_domain_id)),
                set(&self.project_domain_name).or(set(&self.default_domain_name)),
            )
        };
        Ok(if let Some(id) = set(&self.domain_id) {
            Some(json!({"domain": {"id": id}}))
        } else if let Some(name) = set(&self.domain_name) {
            Some(json!({"domain": {"name": name}}))
        } else if let Some(id) = set(&self.project_id) {
            Some(json!({"project": {"id": id}}))
        } else if !self.project_name.is_empty() {
            Some(json!({"project": {"name": self.project_name, "domain": project_domain()}}))
        } else if let Some(id) = set(&self.trust_id) {
            Some(json!({"OS-TRUST:trust": {"id": id}}))
        } else if set(&self.system_scope) == Some("all") {
            Some(json!({"system": {"all": true}}))
        } else {
            None
        })
    }

    /// The `password` identity method's `user`: by `user_id`, else by `username` in its domain
    /// (`user_domain_id`, else `default_domain_id`, else the names likewise), with the
    /// password.
    fn password_user(&self) -> serde_json::Value {
        let mut user = serde_json::Map::new();
        if let Some(id) = set(&self.user_id) {
            user.insert("id".into(), json!(id));
        } else if !self.username.is_empty() {
            user.insert("name".into(), json!(self.username));
            let domain = domain_ref(
                set(&self.user_domain_id).or(set(&self.default_domain_id)),
                set(&self.user_domain_name).or(set(&self.default_domain_name)),
            );
            user.insert("domain".into(), domain);
        }
        user.insert("password".into(), json!(self.password));
        serde_json::Value::Object(user)
    }

    /// The `POST /v3/auth/tokens` body: the application credential's when there is one, else
    /// the password method with [`Self::scope`]. Errors: those of [`Self::scope`].
    fn auth_body(&self) -> Result<serde_json::Value, KeystoneError> {
        if let Some(ac) = &self.application_credential {
            return Ok(ac.auth_body());
        }
        let mut auth = json!({
            "identity": {"methods": ["password"], "password": {"user": self.password_user()}},
        });
        if let Some(scope) = self.scope()? {
            auth["scope"] = scope;
        }
        Ok(json!({ "auth": auth }))
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
    /// Project it is scoped to (`None`: a domain-, system-scoped or unscoped token).
    pub project_id: Option<String>,
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
    /// expires within the refresh margin. Errors: `ScopeConflict` (the options name more than
    /// one scope; no request made), `ServiceCredentialsRejected` (401 from Keystone),
    /// `Status`, `Transport`, `Decode`.
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
                tracing::debug!(user = %self.inner.cfg.username, scope = ?self.inner.cfg.scope_targets(), "keystone: issuing service token")
            }
        }
        let resp = self
            .keystone_request(reqwest::Method::POST, &url)
            .json(&self.inner.cfg.auth_body()?)
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
        let env: TokenEnvelope =
            serde_json::from_slice(&body).map_err(|source| KeystoneError::Json {
                what: "token body".into(),
                source,
            })?;
        Ok(parse_service_token(
            id,
            env.token,
            self.inner.cfg.refresh_margin,
        ))
    }
}

fn parse_service_token(id: String, body: TokenBody, margin: Duration) -> ServiceToken {
    let lifetime = body
        .issued_at
        .map(|i| body.expires_at - i)
        .unwrap_or_else(|| chrono::Duration::hours(1));
    let margin = chrono::Duration::from_std(margin)
        .unwrap_or_else(|_| chrono::Duration::seconds(120))
        .min(lifetime / 2);
    ServiceToken {
        id,
        user_id: body.user.id,
        project_id: body.project.map(|p| p.id),
        expires_at: body.expires_at,
        catalog: body.catalog.unwrap_or_default(),
        refresh_at: body.expires_at - margin,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests;
