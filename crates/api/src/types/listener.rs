//! Listener request types, as `octavia/api/v2/types/listener.py`.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::{
    Field, INT_COLUMN_MAX, INT_COLUMN_MIN, JOINED_COLUMN_MAX, Kind, Patch, Schema, Strings, TAGS,
    f, int, m, mn, s,
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

/// A validated `ListenerPOST` body (and a graph's `ListenerSingleCreate`, its subset), field
/// by field as [`LISTENER_POST`] declares them; `null` and a left-out key mean the same
/// except where a [`Patch`] keeps them apart (`admin_state_up: null` is false as Octavia's
/// `to_dict`, `connection_limit: null` is stored NULL, `protocol: null` gets its own 400).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ListenerPost {
    /// `name`.
    pub name: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// `admin_state_up` (left out: true).
    pub admin_state_up: Patch<bool>,
    /// `protocol` (mandatory; `null` reaches the handler).
    pub protocol: Patch<String>,
    /// `protocol_port` (mandatory, 1..65535).
    pub protocol_port: i64,
    /// `connection_limit` (left out: -1).
    pub connection_limit: Patch<i64>,
    /// `default_tls_container_ref`.
    pub default_tls_container_ref: Option<String>,
    /// `sni_container_refs`.
    pub sni_container_refs: Option<Strings>,
    /// `project_id` (or `tenant_id`); the listener takes its load balancer's project.
    pub project_id: Option<String>,
    /// `default_pool_id`.
    pub default_pool_id: Option<String>,
    /// `default_pool`: read by a graph create's plan from the map, before typing.
    pub default_pool: Option<Value>,
    /// `l7policies`: as `default_pool`.
    pub l7policies: Option<Value>,
    /// `insert_headers` (header → value or `null`).
    pub insert_headers: Option<Map<String, Value>>,
    /// `loadbalancer_id` (mandatory on a POST; `null` is looked up as `None`).
    pub loadbalancer_id: Option<String>,
    /// `timeout_client_data` (ms; left out or `null`: the configured default).
    pub timeout_client_data: Option<i64>,
    /// `timeout_member_connect` (ms).
    pub timeout_member_connect: Option<i64>,
    /// `timeout_member_data` (ms).
    pub timeout_member_data: Option<i64>,
    /// `timeout_tcp_inspect` (ms).
    pub timeout_tcp_inspect: Option<i64>,
    /// `tags`.
    pub tags: Option<Strings>,
    /// `client_ca_tls_container_ref`.
    pub client_ca_tls_container_ref: Option<String>,
    /// `client_authentication` (left out: NONE).
    pub client_authentication: Option<String>,
    /// `client_crl_container_ref`.
    pub client_crl_container_ref: Option<String>,
    /// `allowed_cidrs` (normalised CIDRs).
    pub allowed_cidrs: Option<Strings>,
    /// `tls_ciphers`.
    pub tls_ciphers: Option<String>,
    /// `tls_versions`.
    pub tls_versions: Option<Strings>,
    /// `alpn_protocols`.
    pub alpn_protocols: Option<Strings>,
    /// `hsts_max_age` (s).
    pub hsts_max_age: Option<i64>,
    /// `hsts_include_subdomains`.
    pub hsts_include_subdomains: Option<bool>,
    /// `hsts_preload`.
    pub hsts_preload: Option<bool>,
}

/// A validated `ListenerPUT` body as [`LISTENER_PUT`] declares it: each attribute left out
/// (unchanged), `null` or a value.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ListenerPut {
    /// `name`.
    pub name: Patch<String>,
    /// `description`.
    pub description: Patch<String>,
    /// `admin_state_up` (`null`: false).
    pub admin_state_up: Patch<bool>,
    /// `connection_limit` (`null`: -1).
    pub connection_limit: Patch<i64>,
    /// `default_tls_container_ref`.
    pub default_tls_container_ref: Patch<String>,
    /// `sni_container_refs` (`null`: none).
    pub sni_container_refs: Patch<Strings>,
    /// `default_pool_id` (`null`: the default pool removed).
    pub default_pool_id: Patch<String>,
    /// `insert_headers`.
    pub insert_headers: Patch<Map<String, Value>>,
    /// `timeout_client_data` (ms; `null`: the configured default).
    pub timeout_client_data: Patch<i64>,
    /// `timeout_member_connect` (ms).
    pub timeout_member_connect: Patch<i64>,
    /// `timeout_member_data` (ms).
    pub timeout_member_data: Patch<i64>,
    /// `timeout_tcp_inspect` (ms).
    pub timeout_tcp_inspect: Patch<i64>,
    /// `tags` (`null`: none).
    pub tags: Patch<Strings>,
    /// `client_ca_tls_container_ref`: checked, not written (as before this type existed).
    pub client_ca_tls_container_ref: Option<String>,
    /// `client_authentication` (`null`: NONE).
    pub client_authentication: Patch<String>,
    /// `client_crl_container_ref`: checked, not written.
    pub client_crl_container_ref: Option<String>,
    /// `allowed_cidrs` (`null`: none).
    pub allowed_cidrs: Patch<Strings>,
    /// `tls_ciphers`.
    pub tls_ciphers: Patch<String>,
    /// `tls_versions` (`null`: the default versions).
    pub tls_versions: Patch<Strings>,
    /// `alpn_protocols` (`null`: the default protocols).
    pub alpn_protocols: Patch<Strings>,
    /// `hsts_max_age` (s).
    pub hsts_max_age: Patch<i64>,
    /// `hsts_include_subdomains` (`null`: false).
    pub hsts_include_subdomains: Patch<bool>,
    /// `hsts_preload` (`null`: false).
    pub hsts_preload: Patch<bool>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::assert_typed_as;

    #[test]
    fn typed_bodies_declare_the_schema_attributes() {
        assert_typed_as::<ListenerPost>(&LISTENER_POST);
        assert_typed_as::<ListenerPut>(&LISTENER_PUT);
        // a graph's listener is typed as a POST: every attribute it may carry is declared
        let post = crate::types::struct_fields::<ListenerPost>();
        for f in LISTENER_SINGLE.fields {
            assert!(post.contains(&f.name), "{}", f.name);
        }
    }
}
