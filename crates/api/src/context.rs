//! Request context and authentication, as `octavia/common/context.py` + keystonemiddleware.
//!
//! `keystone` mode: `X-Auth-Token` is validated by a [`TokenAuth`] (the openstack crate's
//! `TokenValidator` in production); missing or invalid → 401 with keystonemiddleware's body.
//! `noauth` mode: no token; the context is built from `X-Project-Id` / `X-User-Id` / `X-Roles`
//! when present and `is_admin` is forced true.
//!
//! A request that also carries `X-Service-Token` has it validated first, as
//! keystonemiddleware's `BaseAuthProtocol.process_request`: invalid → 401; valid without any
//! of `[keystone_authtoken] service_token_roles` → 401 when `service_token_roles_required`
//! (the default), else accepted with a warning (once). keystonemiddleware also lets such a
//! service token carry an expired user token (`allow_expired`); Keel does not: an expired
//! user token is refused with or without one.

use std::sync::Arc;

use async_trait::async_trait;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};

use crate::fault::ApiError;
use crate::policy::{Credentials, Policy};

/// The policy a context is checked against (shared; equality = same rules).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedPolicy(pub Arc<Policy>);

impl Default for SharedPolicy {
    /// Octavia's defaults (`enforce_new_defaults = True`, no policy file).
    fn default() -> Self {
        Self(crate::policy::default_policy())
    }
}

impl std::ops::Deref for SharedPolicy {
    type Target = Policy;
    fn deref(&self) -> &Policy {
        &self.0
    }
}

/// Who is calling: the identity a policy check runs against.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestContext {
    /// Token project (None for unscoped/system tokens and noauth without `X-Project-Id`).
    pub project_id: Option<String>,
    /// Token user (noauth: the `X-User-Id` header, if any).
    pub user_id: Option<String>,
    /// Role names in the token (Keystone includes implied roles: admin ⊃ member ⊃ reader).
    pub roles: Vec<String>,
    /// Octavia's `context.is_admin`: the `context_is_admin` rule passed, or noauth
    /// (`is_admin:True` in check strings).
    pub is_admin: bool,
    /// True when the token is system-scoped (rejected by project-scoped rules).
    pub system_scope: bool,
    /// The caller's token, for Neutron lookups made with the user's rights (seed 003).
    pub auth_token: Option<String>,
    /// True under noauth: quota checks are skipped entirely.
    pub noauth: bool,
    /// The rules `policy::authorize` enforces (`[oslo_policy]`).
    pub policy: SharedPolicy,
}

impl crate::policy::Subject for RequestContext {
    fn policy(&self) -> &Policy {
        &self.policy
    }

    fn credentials(&self) -> Credentials {
        RequestContext::credentials(self)
    }
}

impl RequestContext {
    /// True when the context carries `role`.
    pub fn has_role(&self, role: &str) -> bool {
        self.roles.iter().any(|r| r.eq_ignore_ascii_case(role))
    }

    /// The policy credentials (oslo.context `to_policy_values` + `is_admin`).
    pub fn credentials(&self) -> Credentials {
        Credentials {
            project_id: self.project_id.clone(),
            user_id: self.user_id.clone(),
            roles: self.roles.clone(),
            is_admin: self.is_admin,
            system_scope: self.system_scope,
        }
    }
}

/// A validated token's identity.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Identity {
    /// Scoped project, if any.
    pub project_id: Option<String>,
    /// Keystone user uuid.
    pub user_id: String,
    /// Role names (implied roles included).
    pub roles: Vec<String>,
    /// True for system-scoped tokens.
    pub system_scope: bool,
}

/// Why a token could not be validated; the text is logged, never shown to the client.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthFailure {
    /// The token is unknown, revoked, expired or malformed → 401 (keystonemiddleware
    /// `InvalidToken`).
    #[error("invalid token: {0}")]
    Invalid(String),
    /// Keystone could not be asked: connection failure, timeout, a 5xx or any other
    /// unexpected answer, Keel's service credentials refused → 503 (keystonemiddleware
    /// `fetch_token`: `ConnectFailure`/`RequestTimeout`/`ServiceError` →
    /// `HTTPServiceUnavailable('The Keystone service is temporarily unavailable.')`).
    #[error("keystone unavailable: {0}")]
    Unavailable(String),
}

/// Validates `X-Auth-Token` values (keystonemiddleware's role).
#[async_trait]
pub trait TokenAuth: Send + Sync + 'static {
    /// The token's identity, or why not: [`AuthFailure::Invalid`] → 401,
    /// [`AuthFailure::Unavailable`] (Keystone could not answer) → 503.
    async fn validate_token(&self, token: &str) -> Result<Identity, AuthFailure>;
}

/// keystonemiddleware's 503 text when Keystone cannot validate a token.
pub const KEYSTONE_UNAVAILABLE: &str = "The Keystone service is temporarily unavailable.";

/// Why a request was not authenticated: the response keystonemiddleware would give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthRejection {
    /// 401 with keystonemiddleware's body and `WWW-Authenticate` ([`ApiError::Unauthorized`]).
    Unauthorized,
    /// 503 [`KEYSTONE_UNAVAILABLE`], in Octavia's fault body
    /// (`{"faultcode": "Server", "faultstring": …, "debuginfo": null}`).
    KeystoneUnavailable,
}

impl IntoResponse for AuthRejection {
    fn into_response(self) -> Response {
        match self {
            Self::Unauthorized => ApiError::Unauthorized.into_response(),
            Self::KeystoneUnavailable => {
                let status = axum::http::StatusCode::SERVICE_UNAVAILABLE;
                (
                    status,
                    axum::Json(crate::fault::fault_body(status, KEYSTONE_UNAVAILABLE)),
                )
                    .into_response()
            }
        }
    }
}

/// `[keystone_authtoken] service_token_roles` (`service`) and `service_token_roles_required`
/// (true): what a valid `X-Service-Token` must carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceTokenRules {
    /// A service token passes with any one of these roles (exact names).
    pub roles: Vec<String>,
    /// False: a valid token without them is accepted too (keystonemiddleware's legacy mode).
    pub roles_required: bool,
}

impl Default for ServiceTokenRules {
    fn default() -> Self {
        Self {
            roles: vec!["service".into()],
            roles_required: true,
        }
    }
}

/// The `X-Service-Token` check (see the module doc): `Ok` when the request has none or it
/// passes; 401 when it is invalid or lacks the roles, 503 when Keystone cannot answer.
pub async fn check_service_token(
    mode: &AuthMode,
    rules: &ServiceTokenRules,
    headers: &HeaderMap,
) -> Result<(), AuthRejection> {
    let (AuthMode::Keystone(v), Some(token)) = (mode, header(headers, "x-service-token")) else {
        return Ok(());
    };
    let id = v.validate_token(&token).await.map_err(|e| match e {
        AuthFailure::Invalid(_) => {
            tracing::info!(error = %e, "invalid service token");
            AuthRejection::Unauthorized
        }
        AuthFailure::Unavailable(_) => {
            tracing::error!(error = %e, "unable to validate the service token");
            AuthRejection::KeystoneUnavailable
        }
    })?;
    if id.roles.iter().any(|r| rules.roles.contains(r)) {
        return Ok(());
    }
    if rules.roles_required {
        tracing::info!(roles = ?id.roles, wanted = ?rules.roles, "service token without a service_token_roles role");
        return Err(AuthRejection::Unauthorized);
    }
    static WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if !WARNED.swap(true, std::sync::atomic::Ordering::Relaxed) {
        tracing::warn!(
            "a valid token without a service_token_roles role was accepted as a service token \
             (service_token_roles_required = False)"
        );
    }
    Ok(())
}

/// How requests are authenticated (`[api_settings] auth_strategy`).
#[derive(Clone)]
pub enum AuthMode {
    /// `keystone`: tokens validated by the given validator.
    Keystone(Arc<dyn TokenAuth>),
    /// `noauth`: everyone is admin.
    NoAuth,
}

impl std::fmt::Debug for AuthMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Keystone(_) => f.write_str("Keystone"),
            Self::NoAuth => f.write_str("NoAuth"),
        }
    }
}

fn header(h: &HeaderMap, name: &str) -> Option<String> {
    h.get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// Build the context for a request under `policy`, or reject it (401 no/invalid token, 503
/// Keystone unavailable). `is_admin` is Octavia's: noauth, or `context_is_admin` passes.
pub async fn authenticate(
    mode: &AuthMode,
    policy: &Arc<Policy>,
    headers: &HeaderMap,
) -> Result<RequestContext, AuthRejection> {
    let policy = SharedPolicy(policy.clone());
    match mode {
        AuthMode::NoAuth => Ok(RequestContext {
            project_id: header(headers, "x-project-id").or_else(|| header(headers, "x-tenant-id")),
            user_id: header(headers, "x-user-id"),
            roles: header(headers, "x-roles")
                .map(|r| {
                    r.split(',')
                        .map(|s| s.trim().to_string())
                        .filter(|s| !s.is_empty())
                        .collect()
                })
                .unwrap_or_default(),
            is_admin: true,
            system_scope: false,
            auth_token: header(headers, "x-auth-token"),
            noauth: true,
            policy,
        }),
        AuthMode::Keystone(v) => {
            let token = header(headers, "x-auth-token").ok_or(AuthRejection::Unauthorized)?;
            let id = v.validate_token(&token).await.map_err(|e| match e {
                AuthFailure::Invalid(_) => {
                    tracing::info!(error = %e, "token rejected");
                    AuthRejection::Unauthorized
                }
                AuthFailure::Unavailable(_) => {
                    tracing::error!(error = %e, "unable to validate token");
                    AuthRejection::KeystoneUnavailable
                }
            })?;
            let mut ctx = RequestContext {
                project_id: id.project_id,
                user_id: Some(id.user_id),
                roles: id.roles,
                is_admin: false,
                system_scope: id.system_scope,
                auth_token: Some(token),
                noauth: false,
                policy,
            };
            ctx.is_admin = ctx.policy.check_is_admin(&ctx.credentials());
            Ok(ctx)
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    struct Fixed;
    #[async_trait]
    impl TokenAuth for Fixed {
        async fn validate_token(&self, token: &str) -> Result<Identity, AuthFailure> {
            if token == "down" {
                return Err(AuthFailure::Unavailable("connection refused".into()));
            }
            if token == "good" {
                Ok(Identity {
                    project_id: Some("p".into()),
                    user_id: "u".into(),
                    roles: vec!["member".into()],
                    system_scope: false,
                })
            } else {
                Err(AuthFailure::Invalid("bad".into()))
            }
        }
    }

    #[tokio::test]
    async fn keystone_mode_requires_a_valid_token() {
        let mode = AuthMode::Keystone(Arc::new(Fixed));
        let mut h = HeaderMap::new();
        assert_eq!(
            authenticate(&mode, &crate::policy::default_policy(), &h)
                .await
                .unwrap_err(),
            AuthRejection::Unauthorized
        );
        h.insert("x-auth-token", "nope".parse().unwrap());
        assert_eq!(
            authenticate(&mode, &crate::policy::default_policy(), &h)
                .await
                .unwrap_err(),
            AuthRejection::Unauthorized
        );
        h.insert("x-auth-token", "down".parse().unwrap());
        let rejection = authenticate(&mode, &crate::policy::default_policy(), &h)
            .await
            .unwrap_err();
        assert_eq!(rejection, AuthRejection::KeystoneUnavailable);
        let resp = rejection.into_response();
        assert_eq!(resp.status(), axum::http::StatusCode::SERVICE_UNAVAILABLE);
        let body = axum::body::to_bytes(resp.into_body(), usize::MAX)
            .await
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"faultcode": "Server", "faultstring": KEYSTONE_UNAVAILABLE,
                               "debuginfo": null})
        );
        h.insert("x-auth-token", "good".parse().unwrap());
        let ctx = authenticate(&mode, &crate::policy::default_policy(), &h)
            .await
            .unwrap();
        assert_eq!(ctx.project_id.as_deref(), Some("p"));
        assert!(!ctx.is_admin);
    }

    #[tokio::test]
    async fn service_tokens_as_keystonemiddleware() {
        let mode = AuthMode::Keystone(Arc::new(Fixed));
        let with = |t: &'static str| {
            let mut h = HeaderMap::new();
            h.insert("x-service-token", t.parse().unwrap());
            h
        };
        let member = ServiceTokenRules {
            roles: vec!["member".into()],
            roles_required: true,
        };
        let strict = ServiceTokenRules::default();
        let lax = ServiceTokenRules {
            roles_required: false,
            ..ServiceTokenRules::default()
        };
        assert_eq!(
            check_service_token(&mode, &strict, &HeaderMap::new()).await,
            Ok(())
        );
        assert_eq!(
            check_service_token(&mode, &member, &with("good")).await,
            Ok(())
        );
        assert_eq!(
            check_service_token(&mode, &strict, &with("good")).await,
            Err(AuthRejection::Unauthorized)
        );
        assert_eq!(
            check_service_token(&mode, &lax, &with("good")).await,
            Ok(())
        );
        assert_eq!(
            check_service_token(&mode, &lax, &with("nope")).await,
            Err(AuthRejection::Unauthorized)
        );
        assert_eq!(
            check_service_token(&mode, &member, &with("down")).await,
            Err(AuthRejection::KeystoneUnavailable)
        );
        assert_eq!(
            check_service_token(&AuthMode::NoAuth, &strict, &with("nope")).await,
            Ok(())
        );
    }

    #[tokio::test]
    async fn noauth_is_admin_with_optional_project() {
        let mut h = HeaderMap::new();
        let ctx = authenticate(&AuthMode::NoAuth, &crate::policy::default_policy(), &h)
            .await
            .unwrap();
        assert!(ctx.is_admin && ctx.project_id.is_none());
        h.insert("x-project-id", "abc".parse().unwrap());
        assert_eq!(
            authenticate(&AuthMode::NoAuth, &crate::policy::default_policy(), &h)
                .await
                .unwrap()
                .project_id
                .as_deref(),
            Some("abc")
        );
    }
}
