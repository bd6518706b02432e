//! User-token validation ([`TokenValidator`]): `GET /v3/auth/tokens` into a [`UserContext`],
//! results cached as keystonemiddleware's token cache (seed 003 §4).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use reqwest::StatusCode;
use serde::Serialize;

use super::service_auth::{ServiceAuth, v3_root};
use super::token_body::{TokenBody, TokenEnvelope, keystone_message};
use crate::error::{InvalidTokenReason, KeystoneError};
use crate::http::join;

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
                    let env: TokenEnvelope =
                        serde_json::from_slice(&body).map_err(|source| KeystoneError::Json {
                            what: "token body".into(),
                            source,
                        })?;
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
    use crate::keystone::service_auth::ServiceAuthConfig;
    use crate::keystone::token_body::TOKEN_BODY;

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
