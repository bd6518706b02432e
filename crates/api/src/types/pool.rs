//! Pool request types, as `octavia/api/v2/types/pool.py`.

use crate::types::wsme_body;
use serde::Deserialize;

use super::{
    INT_COLUMN_MAX, INT_COLUMN_MIN, JOINED_COLUMN_MAX, Kind, Patch, Schema, Strings, TAGS, f, int,
    m, s,
};
use crate::types::health_monitor::HM_SINGLE;
use crate::types::member::MEMBER_SINGLE;

/// `POOL_SUPPORTED_PROTOCOLS` (octavia-lib constants).
pub const PROTOCOLS: &[&str] = &["TCP", "HTTP", "HTTPS", "PROXY", "PROXYV2", "UDP", "SCTP"];
/// `SUPPORTED_LB_ALGORITHMS`.
pub const ALGORITHMS: &[&str] = &[
    "ROUND_ROBIN",
    "LEAST_CONNECTIONS",
    "SOURCE_IP",
    "SOURCE_IP_PORT",
];
/// `SUPPORTED_SP_TYPES`.
pub const SP_TYPES: &[&str] = &["SOURCE_IP", "HTTP_COOKIE", "APP_COOKIE"];

/// The cookie-name regex of `SessionPersistencePOST`.
const COOKIE: Kind = Kind::Pattern {
    pattern: "^[^\\s,;\\\\]+$",
    min: None,
    max: Some(255),
};

/// `SessionPersistencePOST`.
pub static SP_POST: Schema = Schema {
    fields: &[
        m("type", Kind::Enum(SP_TYPES)),
        f("cookie_name", COOKIE),
        f(
            "persistence_timeout",
            int(Some(INT_COLUMN_MIN), Some(INT_COLUMN_MAX)),
        ),
        f("persistence_granularity", Kind::Ip),
    ],
    tenant_alias: false,
};

/// `SessionPersistencePUT`.
pub static SP_PUT: Schema = Schema {
    fields: &[
        f("type", Kind::Enum(SP_TYPES)),
        f("cookie_name", COOKIE),
        f(
            "persistence_timeout",
            int(Some(INT_COLUMN_MIN), Some(INT_COLUMN_MAX)),
        ),
        f("persistence_granularity", Kind::Ip),
    ],
    tenant_alias: false,
};

const TLS_VERSIONS: Kind = Kind::Joined {
    item: &Kind::Str {
        min: None,
        max: Some(32),
    },
    max: JOINED_COLUMN_MAX,
};
const ALPN: Kind = Kind::Joined {
    item: &Kind::Alpn,
    max: JOINED_COLUMN_MAX,
};

/// `PoolSingleCreate` (graph create; protocol / lb_algorithm checked later).
pub static POOL_SINGLE: Schema = Schema {
    fields: &[
        f("name", s(255)),
        f("description", s(255)),
        f("admin_state_up", Kind::Bool),
        f("protocol", Kind::Enum(PROTOCOLS)),
        f("lb_algorithm", Kind::Enum(ALGORITHMS)),
        f("session_persistence", Kind::Object(&SP_POST)),
        f("healthmonitor", Kind::Object(&HM_SINGLE)),
        f("members", Kind::ObjectList(&MEMBER_SINGLE)),
        f("tags", TAGS),
        f("tls_container_ref", s(255)),
        f("ca_tls_container_ref", s(255)),
        f("crl_container_ref", s(255)),
        f("tls_enabled", Kind::Bool),
        f("tls_ciphers", s(2048)),
        f("tls_versions", TLS_VERSIONS),
        f("alpn_protocols", ALPN),
    ],
    tenant_alias: false,
};

/// A validated `SessionPersistencePOST` / `SessionPersistencePUT` object ([`SP_POST`],
/// [`SP_PUT`]: the same attributes, `type` mandatory on a create). A PUT's object may leave
/// out `type` (the stored type is kept) or be `{}` ([`SessionPersistence::is_empty`]).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SessionPersistence {
    /// `type`.
    pub r#type: Patch<String>,
    /// `cookie_name`.
    pub cookie_name: Patch<String>,
    /// `persistence_timeout` (s).
    pub persistence_timeout: Patch<i64>,
    /// `persistence_granularity` (an IP mask).
    pub persistence_granularity: Patch<String>,
}

impl SessionPersistence {
    /// True for `{}`: no attribute sent, not even as `null`.
    pub fn is_empty(&self) -> bool {
        !(self.r#type.given()
            || self.cookie_name.given()
            || self.persistence_timeout.given()
            || self.persistence_granularity.given())
    }
}

wsme_body! {
    /// `PoolPOST`.
    pub static POOL_POST, tenant_alias = true;
    /// A validated `PoolPOST` body (and a graph's `PoolSingleCreate`, its subset, where
    /// `protocol` and `lb_algorithm` may be missing) as [`POOL_POST`] declares it.
    /// `admin_state_up: null` is false (Octavia's `to_dict`), left out true.
    pub struct PoolPost {
        name: Option<String> = f(s(255)),
        description: Option<String> = f(s(255)),
        admin_state_up: Patch<bool> = f(Kind::Bool),
        listener_id: Option<String> = f(Kind::Uuid),
        loadbalancer_id: Option<String> = f(Kind::Uuid),
        protocol: Option<String> = m(Kind::Enum(PROTOCOLS)),
        lb_algorithm: Option<String> = m(Kind::Enum(ALGORITHMS)),
        session_persistence: Option<SessionPersistence> = f(Kind::Object(&SP_POST)),
        /// `project_id` (or `tenant_id`); the pool takes its load balancer's project.
        project_id: Option<String> = f(s(36)),
        /// `healthmonitor` (`HealthMonitorSingleCreate`, a graph create's).
        healthmonitor: Option<crate::types::health_monitor::HmPost> = f(Kind::Object(&HM_SINGLE)),
        /// `members` (`MemberSingleCreate` items, a graph create's; `null` items skipped).
        members: Option<Vec<Option<crate::types::member::MemberPost>>> = f(Kind::ObjectList(&MEMBER_SINGLE)),
        tags: Option<Strings> = f(TAGS),
        tls_container_ref: Option<String> = f(s(255)),
        ca_tls_container_ref: Option<String> = f(s(255)),
        crl_container_ref: Option<String> = f(s(255)),
        /// `tls_enabled` (`null`: false).
        tls_enabled: Option<bool> = f(Kind::Bool),
        tls_ciphers: Option<String> = f(s(2048)),
        tls_versions: Option<Strings> = f(TLS_VERSIONS),
        alpn_protocols: Option<Strings> = f(ALPN),
    }
}

wsme_body! {
    /// `PoolPUT`.
    pub static POOL_PUT, tenant_alias = false;
    /// A validated `PoolPUT` body as [`POOL_PUT`] declares it: each attribute left out
    /// (unchanged), `null` or a value.
    pub struct PoolPut {
        name: Patch<String> = f(s(255)),
        description: Patch<String> = f(s(255)),
        /// `admin_state_up` (`null`: false).
        admin_state_up: Patch<bool> = f(Kind::Bool),
        /// `lb_algorithm` (`null` refused).
        lb_algorithm: Patch<String> = f(Kind::Enum(ALGORITHMS)),
        /// `session_persistence` (`null`: removed).
        session_persistence: Patch<SessionPersistence> = f(Kind::Object(&SP_PUT)),
        /// `tags` (`null`: none).
        tags: Patch<Strings> = f(TAGS),
        tls_container_ref: Patch<String> = f(s(255)),
        ca_tls_container_ref: Patch<String> = f(s(255)),
        crl_container_ref: Patch<String> = f(s(255)),
        /// `tls_enabled` (`null` refused).
        tls_enabled: Patch<bool> = f(Kind::Bool),
        /// `tls_ciphers` (`null`: the default ciphers).
        tls_ciphers: Patch<String> = f(s(2048)),
        /// `tls_versions` (`null`: the default versions).
        tls_versions: Patch<Strings> = f(TLS_VERSIONS),
        /// `alpn_protocols` (`null`: none).
        alpn_protocols: Patch<Strings> = f(ALPN),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{assert_typed_as, struct_fields};

    #[test]
    fn typed_bodies_declare_the_schema_attributes() {
        assert_typed_as::<SessionPersistence>(&SP_POST);
        assert_typed_as::<SessionPersistence>(&SP_PUT);
        // a graph's pool is typed as a POST: every attribute it may carry is declared
        let post = struct_fields::<PoolPost>();
        for f in POOL_SINGLE.fields {
            assert!(post.contains(&f.name), "{}", f.name);
        }
    }
}
