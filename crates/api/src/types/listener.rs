//! Listener request types, as `octavia/api/v2/types/listener.py`.

use super::{
    Field, INT_COLUMN_MAX, INT_COLUMN_MIN, JOINED_COLUMN_MAX, Kind, Schema, TAGS, f, int, m, mn, s,
};
use crate::types::l7::L7POLICY_SINGLE;
use crate::types::pool::POOL_SINGLE;

/// `LISTENER_SUPPORTED_PROTOCOLS` (octavia-lib constants).
pub const PROTOCOLS: &[&str] = &[
    "TCP",
    "HTTPS",
    "HTTP",
    "TERMINATED_HTTPS",
    "UDP",
    "SCTP",
    "PROMETHEUS",
];
/// `SUPPORTED_CLIENT_AUTH_MODES`.
pub const CLIENT_AUTH: &[&str] = &["NONE", "OPTIONAL", "MANDATORY"];
/// `MAX_TIMEOUT`: 24 days in milliseconds.
pub const MAX_TIMEOUT: i64 = 24 * 24 * 60 * 60 * 1000;

const PORT: Kind = int(Some(1), Some(65535));
const TIMEOUT: Kind = int(Some(0), Some(MAX_TIMEOUT));
/// `sni_container_refs` items: WSME allows 255 characters, but `sni.tls_container_id` is
/// `varchar(128)`; a longer reference could only fail in the database.
const REFS: Kind = Kind::List(&Kind::Str {
    min: None,
    max: Some(128),
});
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
const CIDRS: Kind = Kind::List(&Kind::Cidr);

macro_rules! common_tail {
    ($hsts:expr) => {
        [
            f("timeout_client_data", TIMEOUT),
            f("timeout_member_connect", TIMEOUT),
            f("timeout_member_data", TIMEOUT),
            f("timeout_tcp_inspect", TIMEOUT),
            f("tags", TAGS),
            f("client_ca_tls_container_ref", s(255)),
            f("client_authentication", Kind::Enum(CLIENT_AUTH)),
            f("client_crl_container_ref", s(255)),
            f("allowed_cidrs", CIDRS),
            f("tls_ciphers", s(2048)),
            f("tls_versions", TLS_VERSIONS),
            f("alpn_protocols", ALPN),
            f("hsts_max_age", $hsts),
            f("hsts_include_subdomains", Kind::Bool),
            f("hsts_preload", Kind::Bool),
        ]
    };
}

const TAIL_POST: [Field; 15] = common_tail!(int(Some(0), Some(INT_COLUMN_MAX)));
const TAIL_SINGLE: [Field; 15] = common_tail!(int(Some(INT_COLUMN_MIN), Some(INT_COLUMN_MAX)));

/// `ListenerPOST`.
pub static LISTENER_POST: Schema = Schema {
    fields: &[
        f("name", s(255)),
        f("description", s(255)),
        f("admin_state_up", Kind::Bool),
        // a null protocol or load balancer gets the reference's own 400 / 404
        // (listener.py `post`)
        mn("protocol", Kind::Enum(PROTOCOLS)),
        m("protocol_port", PORT),
        f("connection_limit", int(Some(-1), Some(INT_COLUMN_MAX))),
        f("default_tls_container_ref", s(255)),
        f("sni_container_refs", REFS),
        f("project_id", s(36)),
        f("default_pool_id", Kind::Uuid),
        f("default_pool", Kind::Object(&POOL_SINGLE)),
        f("l7policies", Kind::ObjectList(&L7POLICY_SINGLE)),
        f("insert_headers", Kind::StrDict(Some(255))),
        mn("loadbalancer_id", Kind::Uuid),
        TAIL_POST[0],
        TAIL_POST[1],
        TAIL_POST[2],
        TAIL_POST[3],
        TAIL_POST[4],
        TAIL_POST[5],
        TAIL_POST[6],
        TAIL_POST[7],
        TAIL_POST[8],
        TAIL_POST[9],
        TAIL_POST[10],
        TAIL_POST[11],
        TAIL_POST[12],
        TAIL_POST[13],
        TAIL_POST[14],
    ],
    tenant_alias: true,
};

/// `ListenerSingleCreate` (inside a load balancer graph create).
pub static LISTENER_SINGLE: Schema = Schema {
    fields: &[
        f("name", s(255)),
        f("description", s(255)),
        f("admin_state_up", Kind::Bool),
        // a null protocol: the POST's answer (the same insert fails in the reference)
        mn("protocol", Kind::Enum(PROTOCOLS)),
        m("protocol_port", PORT),
        f("connection_limit", int(Some(-1), Some(INT_COLUMN_MAX))),
        f("default_tls_container_ref", s(255)),
        f("sni_container_refs", REFS),
        f("default_pool_id", Kind::Uuid),
        f("default_pool", Kind::Object(&POOL_SINGLE)),
        f("l7policies", Kind::ObjectList(&L7POLICY_SINGLE)),
        f("insert_headers", Kind::StrDict(Some(255))),
        TAIL_SINGLE[0],
        TAIL_SINGLE[1],
        TAIL_SINGLE[2],
        TAIL_SINGLE[3],
        TAIL_SINGLE[4],
        TAIL_SINGLE[5],
        TAIL_SINGLE[6],
        TAIL_SINGLE[7],
        TAIL_SINGLE[8],
        TAIL_SINGLE[9],
        TAIL_SINGLE[10],
        TAIL_SINGLE[11],
        TAIL_SINGLE[12],
        TAIL_SINGLE[13],
        TAIL_SINGLE[14],
    ],
    tenant_alias: false,
};

/// `ListenerPUT`: immutable fields are simply not declared (→ 400 unknown attribute).
pub static LISTENER_PUT: Schema = Schema {
    fields: &[
        f("name", s(255)),
        f("description", s(255)),
        f("admin_state_up", Kind::Bool),
        f("connection_limit", int(Some(-1), Some(INT_COLUMN_MAX))),
        f("default_tls_container_ref", s(255)),
        f("sni_container_refs", REFS),
        f("default_pool_id", Kind::Uuid),
        f("insert_headers", Kind::StrDict(Some(255))),
        TAIL_POST[0],
        TAIL_POST[1],
        TAIL_POST[2],
        TAIL_POST[3],
        TAIL_POST[4],
        TAIL_POST[5],
        TAIL_POST[6],
        TAIL_POST[7],
        TAIL_POST[8],
        TAIL_POST[9],
        TAIL_POST[10],
        TAIL_POST[11],
        TAIL_POST[12],
        TAIL_POST[13],
        TAIL_POST[14],
    ],
    tenant_alias: false,
};
