//! Fake Keystone token validators (nothing started, nothing to clean up).
//!
//! - [`NamedTokens`]: tokens `admin`, `member`, `reader`, `stranger` (the L7 / flavor tests).
//! - [`RoleTokens`]: token text `<project>|<role>,<role>`, plus the outage tokens
//!   `unreachable` (Keystone cannot be reached, keystonemiddleware's `ConnectFailure`) and
//!   `keystone-500` (Keystone answered 5xx).

use api::context::AuthFailure;
use api::{Identity, TokenAuth};
use async_trait::async_trait;

use super::{OTHER, PROJECT};

/// `admin` (project `adminproject`, admin+member+reader), `member` / `reader` of
/// [`PROJECT`], `stranger` (member of [`OTHER`]); anything else is invalid.
pub struct NamedTokens;

#[async_trait]
impl TokenAuth for NamedTokens {
    async fn validate_token(&self, token: &str) -> Result<Identity, AuthFailure> {
        let (project, roles): (&str, &[&str]) = match token {
            "admin" => ("adminproject", &["admin", "member", "reader"]),
            "member" => (PROJECT, &["member", "reader"]),
            "reader" => (PROJECT, &["reader"]),
            "stranger" => (OTHER, &["member", "reader"]),
            _ => return Err(AuthFailure::Invalid("unknown token".into())),
        };
        Ok(Identity {
            project_id: Some(project.into()),
            user_id: format!("{token}-user"),
            roles: roles.iter().map(|r| r.to_string()).collect(),
            system_scope: false,
        })
    }
}

/// Token `<project>|<roles,…>` → that identity; `unreachable` → Keystone down
/// ("connection refused"); `keystone-500` → Keystone answered 5xx; anything else → invalid.
pub struct RoleTokens;

#[async_trait]
impl TokenAuth for RoleTokens {
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
