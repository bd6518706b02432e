//! Pool request types, as `octavia/api/v2/types/pool.py`.

use super::{INT_COLUMN_MAX, INT_COLUMN_MIN, JOINED_COLUMN_MAX, Kind, Schema, TAGS, f, int, m, s};
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

/// The cookie-name regex `^[^\s,;\\]+$` of `SessionPersistencePOST`.
fn cookie_ok(s: &str) -> bool {
    !s.is_empty()
        && !s
            .chars()
            .any(|c| c.is_whitespace() || c == ',' || c == ';' || c == '\\')
}
const COOKIE: Kind = Kind::Pattern {
    pattern: "^[^\\s,;\\\\]+$",
    check: cookie_ok,
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
