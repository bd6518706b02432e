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
        let env: TokenEnvelope =
            serde_json::from_slice(&body).map_err(|source| KeystoneError::Json {
                what: "token body".into(),
                source,
            })?;
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

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::keystone::token_body::TOKEN_BODY;

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
}
