//! Pool request types, as `octavia/api/v2/types/pool.py`.

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

/// `PoolPOST`.
pub static POOL_POST: Schema = Schema {
    fields: &[
        f("name", s(255)),
        f("description", s(255)),
        f("admin_state_up", Kind::Bool),
        f("listener_id", Kind::Uuid),
        f("loadbalancer_id", Kind::Uuid),
        m("protocol", Kind::Enum(PROTOCOLS)),
        m("lb_algorithm", Kind::Enum(ALGORITHMS)),
        f("session_persistence", Kind::Object(&SP_POST)),
        f("project_id", s(36)),
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
    tenant_alias: true,
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

/// `PoolPUT`.
pub static POOL_PUT: Schema = Schema {
    fields: &[
        f("name", s(255)),
        f("description", s(255)),
        f("admin_state_up", Kind::Bool),
        f("lb_algorithm", Kind::Enum(ALGORITHMS)),
        f("session_persistence", Kind::Object(&SP_PUT)),
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

/// A validated `PoolPOST` body (and a graph's `PoolSingleCreate`, its subset, where
/// `protocol` and `lb_algorithm` may be missing) as [`POOL_POST`] declares it.
/// `admin_state_up: null` is false (Octavia's `to_dict`), left out true.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PoolPost {
    /// `name`.
    pub name: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// `admin_state_up`.
    pub admin_state_up: Patch<bool>,
    /// `listener_id`.
    pub listener_id: Option<String>,
    /// `loadbalancer_id`.
    pub loadbalancer_id: Option<String>,
    /// `protocol`.
    pub protocol: Option<String>,
    /// `lb_algorithm`.
    pub lb_algorithm: Option<String>,
    /// `session_persistence`.
    pub session_persistence: Option<SessionPersistence>,
    /// `project_id` (or `tenant_id`); the pool takes its load balancer's project.
    pub project_id: Option<String>,
    /// `healthmonitor` (`HealthMonitorSingleCreate`, a graph create's).
    pub healthmonitor: Option<crate::types::health_monitor::HmPost>,
    /// `members` (`MemberSingleCreate` items, a graph create's; `null` items skipped).
    pub members: Option<Vec<Option<crate::types::member::MemberPost>>>,
    /// `tags`.
    pub tags: Option<Strings>,
    /// `tls_container_ref`.
    pub tls_container_ref: Option<String>,
    /// `ca_tls_container_ref`.
    pub ca_tls_container_ref: Option<String>,
    /// `crl_container_ref`.
    pub crl_container_ref: Option<String>,
    /// `tls_enabled` (`null`: false).
    pub tls_enabled: Option<bool>,
    /// `tls_ciphers`.
    pub tls_ciphers: Option<String>,
    /// `tls_versions`.
    pub tls_versions: Option<Strings>,
    /// `alpn_protocols`.
    pub alpn_protocols: Option<Strings>,
}

/// A validated `PoolPUT` body as [`POOL_PUT`] declares it: each attribute left out
/// (unchanged), `null` or a value.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PoolPut {
    /// `name`.
    pub name: Patch<String>,
    /// `description`.
    pub description: Patch<String>,
    /// `admin_state_up` (`null`: false).
    pub admin_state_up: Patch<bool>,
    /// `lb_algorithm` (`null` refused).
    pub lb_algorithm: Patch<String>,
    /// `session_persistence` (`null`: removed).
    pub session_persistence: Patch<SessionPersistence>,
    /// `tags` (`null`: none).
    pub tags: Patch<Strings>,
    /// `tls_container_ref`.
    pub tls_container_ref: Patch<String>,
    /// `ca_tls_container_ref`.
    pub ca_tls_container_ref: Patch<String>,
    /// `crl_container_ref`.
    pub crl_container_ref: Patch<String>,
    /// `tls_enabled` (`null` refused).
    pub tls_enabled: Patch<bool>,
    /// `tls_ciphers` (`null`: the default ciphers).
    pub tls_ciphers: Patch<String>,
    /// `tls_versions` (`null`: the default versions).
    pub tls_versions: Patch<Strings>,
    /// `alpn_protocols` (`null`: none).
    pub alpn_protocols: Patch<Strings>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{assert_typed_as, struct_fields};

    #[test]
    fn typed_bodies_declare_the_schema_attributes() {
        assert_typed_as::<SessionPersistence>(&SP_POST);
        assert_typed_as::<SessionPersistence>(&SP_PUT);
        assert_typed_as::<PoolPost>(&POOL_POST);
        assert_typed_as::<PoolPut>(&POOL_PUT);
        // a graph's pool is typed as a POST: every attribute it may carry is declared
        let post = struct_fields::<PoolPost>();
        for f in POOL_SINGLE.fields {
            assert!(post.contains(&f.name), "{}", f.name);
        }
    }
}
