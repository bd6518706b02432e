//! Pool request types, as `octavia/api/v2/types/pool.py`.

use crate::types::wsme_body;

use crate::health_monitor::body::HM_SINGLE;
use crate::member::body::MEMBER_SINGLE;
use crate::types::{
    INT_COLUMN_MAX, INT_COLUMN_MIN, JOINED_COLUMN_MAX, Kind, Patch, Strings, TAGS, int, s,
};

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

wsme_body! {
    /// `SessionPersistencePOST`.
    pub static SP_POST, tenant_alias = false;
    /// A validated `SessionPersistencePOST` / `SessionPersistencePUT` object ([`SP_POST`],
    /// [`SP_PUT`]: the same attributes, `type` mandatory on a create). A PUT's object may leave
    /// out `type` (the stored type is kept) or be `{}` ([`SessionPersistence::is_empty`]).
    pub struct SessionPersistence {
        r#type: Patch<String> = m(Kind::Enum(SP_TYPES)),
        cookie_name: Patch<String> = f(COOKIE),
        /// (s).
        persistence_timeout: Patch<i64> = f(int(Some(INT_COLUMN_MIN), Some(INT_COLUMN_MAX))),
        /// (an IP mask).
        persistence_granularity: Patch<String> = f(Kind::Ip),
    }
    /// `SessionPersistencePUT`.
    pub static SP_PUT = crate::types::ALL_OPTIONAL, tenant_alias = false;
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
    pub static POOL_POST, tenant_alias = true, wsme = ("pool_", "pool"),
        creates = octavia_db::PoolRow;
    /// A validated `PoolPOST` body (and a graph's `PoolSingleCreate`, its subset, where
    /// `protocol` and `lb_algorithm` may be missing) as [`POOL_POST`] declares it, with the
    /// `pool` columns a create writes. `admin_state_up: null` is false (Octavia's `to_dict`).
    pub struct PoolPost {
        name: Option<String> = f(s(255)) => name,
        description: Option<String> = f(s(255)) => description,
        admin_state_up: Patch<bool> = f(Kind::Bool) => enabled or true null false,
        listener_id: Option<String> = f(Kind::Uuid),
        loadbalancer_id: Option<String> = f(Kind::Uuid),
        protocol: Option<String> = m(Kind::Enum(PROTOCOLS)) => protocol,
        lb_algorithm: Option<String> = m(Kind::Enum(ALGORITHMS)) => lb_algorithm,
        session_persistence: Option<SessionPersistence> = f(Kind::Object(&SP_POST)),
        /// `project_id` (or `tenant_id`); the pool takes its load balancer's project.
        project_id: Option<String> = f(s(36)),
        /// `healthmonitor` (`HealthMonitorSingleCreate`, a graph create's).
        healthmonitor: Option<crate::health_monitor::body::HmPost> = f(Kind::Object(&HM_SINGLE)),
        /// `members` (`MemberSingleCreate` items, a graph create's; `null` items skipped).
        members: Option<Vec<Option<crate::member::body::MemberPost>>> = f(Kind::ObjectList(&MEMBER_SINGLE)),
        tags: Option<Strings> = f(TAGS),
        tls_container_ref: Option<String> = f(s(255)) => tls_certificate_id,
        ca_tls_container_ref: Option<String> = f(s(255)) => ca_tls_certificate_id,
        crl_container_ref: Option<String> = f(s(255)) => crl_container_id,
        tls_enabled: Option<bool> = f(Kind::Bool) => tls_enabled or false,
        tls_ciphers: Option<String> = f(s(2048)),
        tls_versions: Option<Strings> = f(TLS_VERSIONS),
        alpn_protocols: Option<Strings> = f(ALPN),
    }
    /// `PoolSingleCreate` (graph create): `PoolPOST` without the listener, load balancer and
    /// project, `protocol` and `lb_algorithm` optional (checked later).
    pub static POOL_SINGLE = crate::types::Derive {
        leave_out: &["listener_id", "loadbalancer_id", "project_id"],
        optional: true,
        retype: None,
    }, tenant_alias = false;
}

wsme_body! {
    /// `PoolPUT`.
    pub static POOL_PUT, tenant_alias = false, wsme = ("pool_", "pool"),
        updates = octavia_db::PoolRow;
    /// A validated `PoolPUT` body as [`POOL_PUT`] declares it: each attribute left out
    /// (unchanged), `null` or a value, with the `pool` column it changes (the TLS lists and
    /// ciphers: `put_changes`).
    pub struct PoolPut {
        name: Patch<String> = f(s(255)) => name,
        description: Patch<String> = f(s(255)) => description,
        admin_state_up: Patch<bool> = f(Kind::Bool) => enabled or false,
        /// `lb_algorithm` (`null` refused).
        lb_algorithm: Patch<String> = f(Kind::Enum(ALGORITHMS)) => lb_algorithm,
        /// `session_persistence` (`null`: removed).
        session_persistence: Patch<SessionPersistence> = f(Kind::Object(&SP_PUT)),
        /// `tags` (`null`: none).
        tags: Patch<Strings> = f(TAGS),
        tls_container_ref: Patch<String> = f(s(255)) => tls_certificate_id,
        ca_tls_container_ref: Patch<String> = f(s(255)) => ca_tls_certificate_id,
        crl_container_ref: Patch<String> = f(s(255)) => crl_container_id,
        /// `tls_enabled` (`null` refused).
        tls_enabled: Patch<bool> = f(Kind::Bool) => tls_enabled,
        /// `tls_ciphers` (`null`: the default ciphers).
        tls_ciphers: Patch<String> = f(s(2048)),
        /// `tls_versions` (`null`: the default versions).
        tls_versions: Patch<Strings> = f(TLS_VERSIONS),
        /// `alpn_protocols` (`null`: none).
        alpn_protocols: Patch<Strings> = f(ALPN),
    }
}
