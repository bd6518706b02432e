//! The token body Keystone answers `GET`/`POST /v3/auth/tokens` with, and its error text.

use chrono::{DateTime, Utc};
use serde::Deserialize;

use super::catalog::Catalog;
use crate::http::snippet;

#[derive(Deserialize)]
pub(super) struct TokenEnvelope {
    pub(super) token: TokenBody,
}

#[derive(Deserialize)]
pub(super) struct NamedRef {
    #[serde(default)]
    pub(super) id: String,
    #[serde(default)]
    pub(super) name: String,
}

#[derive(Deserialize)]
pub(super) struct UserRef {
    pub(super) id: String,
    #[serde(default)]
    pub(super) name: String,
    pub(super) domain: Option<NamedRef>,
}

#[derive(Deserialize)]
pub(super) struct ProjectRef {
    pub(super) id: String,
    #[serde(default)]
    pub(super) name: String,
    pub(super) domain: Option<NamedRef>,
}

#[derive(Deserialize)]
pub(super) struct SystemRef {
    #[serde(default)]
    pub(super) all: bool,
}

#[derive(Deserialize)]
pub(super) struct TokenBody {
    pub(super) expires_at: DateTime<Utc>,
    pub(super) issued_at: Option<DateTime<Utc>>,
    pub(super) user: UserRef,
    pub(super) project: Option<ProjectRef>,
    pub(super) domain: Option<NamedRef>,
    pub(super) system: Option<SystemRef>,
    #[serde(default)]
    pub(super) roles: Vec<NamedRef>,
    pub(super) is_admin_project: Option<bool>,
    #[serde(default)]
    pub(super) catalog: Option<Catalog>,
    #[serde(default)]
    pub(super) audit_ids: Vec<String>,
}

/// Extracts Keystone's `{"error": {"message"}}` text, or a body excerpt.
pub(super) fn keystone_message(body: &[u8]) -> String {
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

/// A project-scoped token body with a two-service catalog, for the unit tests.
#[cfg(test)]
pub(super) const TOKEN_BODY: &str = r#"{"token": {"methods": ["password"], "user": {"domain": {"id": "default", "name": "Default"}, "id": "u1", "name": "demo", "password_expires_at": null}, "audit_ids": ["a1"], "expires_at": "2026-11-29T21:01:19.000000Z", "issued_at": "2026-11-29T20:01:19.000000Z", "project": {"domain": {"id": "default", "name": "Default"}, "id": "p1", "name": "demo"}, "is_domain": false, "roles": [{"id": "r1", "name": "member"}, {"id": "r2", "name": "load-balancer_member"}],
      "catalog": [{"endpoints": [
          {"id": "e1", "interface": "admin", "region_id": "RegionOne", "url": "http://admin:9696", "region": "RegionOne"},
          {"id": "e2", "interface": "internal", "region_id": "RegionOne", "url": "http://internal:9696", "region": "RegionOne"},
          {"id": "e3", "interface": "public", "region_id": "RegionOne", "url": "http://public:9696", "region": "RegionOne"},
          {"id": "e4", "interface": "public", "region_id": "RegionTwo", "url": "http://two:9696", "region": "RegionTwo"}],
        "id": "s1", "type": "network", "name": "neutron"},
        {"endpoints": [{"id": "e5", "interface": "public", "region_id": "RegionOne", "url": "http://lb:9876"}], "id": "s2", "type": "load-balancer", "name": "octavia"}]}}"#;
