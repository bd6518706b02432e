//! Listener request types, as `octavia/api/v2/types/listener.py`.

use serde_json::{Map, Value};

use crate::l7policy::body::L7POLICY_SINGLE;
use crate::pool::body::POOL_SINGLE;
use crate::types::{
    INT_COLUMN_MAX, INT_COLUMN_MIN, JOINED_COLUMN_MAX, Kind, Patch, Strings, TAGS, int, s,
    wsme_body,
};

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

/// Declares a listener body (`wsme_body!` of the head, the fields, then the attributes a POST
/// and a PUT share, then the derived schemas), the shared attributes each of the type
/// `$wrap<T>` (`Option`, `Patch`); the client certificate references are checked, never
/// written by a PUT, so `Option` in both.
macro_rules! listener_body {
    ($wrap:ident { $($head:tt)* } { $($fields:tt)* } { $($derived:tt)* }) => {
        wsme_body! {
            $($head)* {
                $($fields)*
                /// (ms; `null`: the configured default).
                timeout_client_data: $wrap<i64> = f(TIMEOUT),
                /// (ms; `null`: the configured default).
                timeout_member_connect: $wrap<i64> = f(TIMEOUT),
                /// (ms; `null`: the configured default).
                timeout_member_data: $wrap<i64> = f(TIMEOUT),
                /// (ms; `null`: the configured default).
                timeout_tcp_inspect: $wrap<i64> = f(TIMEOUT),
                /// (`null`: none).
                tags: $wrap<Strings> = f(TAGS),
                client_ca_tls_container_ref: Option<String> = f(s(255)),
                client_authentication: $wrap<String> = f(Kind::Enum(CLIENT_AUTH))
                    => client_authentication or "NONE",
                client_crl_container_ref: Option<String> = f(s(255)),
                /// (normalised CIDRs; `null`: none).
                allowed_cidrs: $wrap<Strings> = f(CIDRS),
                tls_ciphers: $wrap<String> = f(s(2048)) => tls_ciphers,
                /// (`null`: the default versions).
                tls_versions: $wrap<Strings> = f(TLS_VERSIONS),
                /// (`null`: the default protocols).
                alpn_protocols: $wrap<Strings> = f(ALPN),
                /// (s; a graph create's down to the column's minimum).
                hsts_max_age: $wrap<i64> = f(int(Some(0), Some(INT_COLUMN_MAX))) => hsts_max_age,
                hsts_include_subdomains: $wrap<bool> = f(Kind::Bool)
                    => hsts_include_subdomains or false,
                hsts_preload: $wrap<bool> = f(Kind::Bool) => hsts_preload or false,
            }
            $($derived)*
        }
    };
}

listener_body! { Option {
    /// `ListenerPOST`.
    pub static LISTENER_POST, tenant_alias = true, wsme = ("listener_", "listener"),
        creates = octavia_db::ListenerRow;
    /// A validated `ListenerPOST` body (and a graph's `ListenerSingleCreate`, its subset);
    /// `null` and a left-out key mean the same except where a [`Patch`] keeps them apart
    /// (`admin_state_up: null` is false as Octavia's `to_dict`, `connection_limit: null` is
    /// stored NULL, `protocol: null` gets its own 400).
    pub struct ListenerPost
} {
    name: Option<String> = f(s(255)) => name,
    description: Option<String> = f(s(255)) => description,
    admin_state_up: Patch<bool> = f(Kind::Bool) => enabled or true null false,
    /// (a `null` gets the reference's own 400, listener.py `post`; a graph create's the
    /// POST's, as the same insert fails in the reference).
    protocol: Patch<String> = mn(Kind::Enum(PROTOCOLS)) => protocol,
    protocol_port: i64 = m(PORT) => protocol_port,
    /// (left out: -1; `null`: NULL).
    connection_limit: Patch<i64> = f(int(Some(-1), Some(INT_COLUMN_MAX))),
    default_tls_container_ref: Option<String> = f(s(255)) => tls_certificate_id,
    sni_container_refs: Option<Strings> = f(REFS),
    /// (or `tenant_id`); the listener takes its load balancer's project.
    project_id: Option<String> = f(s(36)),
    default_pool_id: Option<String> = f(Kind::Uuid),
    /// (read by a graph create's plan from the map, before typing).
    default_pool: Option<Value> = f(Kind::Object(&POOL_SINGLE)),
    /// (as `default_pool`).
    l7policies: Option<Value> = f(Kind::ObjectList(&L7POLICY_SINGLE)),
    /// (header → value or `null`).
    insert_headers: Option<Map<String, Value>> = f(Kind::StrDict(Some(255))),
    /// (a `null` is looked up as `None`: the reference's own 404).
    loadbalancer_id: Option<String> = mn(Kind::Uuid),
} {
    /// `ListenerSingleCreate` (inside a load balancer graph create): `ListenerPOST` without
    /// the project and load balancer, `hsts_max_age` bounded by its column only.
    pub static LISTENER_SINGLE = crate::types::Derive {
        leave_out: &["project_id", "loadbalancer_id"],
        optional: false,
        retype: Some(("hsts_max_age", int(Some(INT_COLUMN_MIN), Some(INT_COLUMN_MAX)))),
    }, tenant_alias = false;
} }

listener_body! { Patch {
    /// `ListenerPUT`: immutable fields are simply not declared (→ 400 unknown attribute).
    pub static LISTENER_PUT, tenant_alias = false, wsme = ("listener_", "listener"),
        updates = octavia_db::ListenerRow;
    /// A validated `ListenerPUT` body as [`LISTENER_PUT`] declares it: each attribute left
    /// out (unchanged), `null` or a value.
    pub struct ListenerPut
} {
    name: Patch<String> = f(s(255)) => name,
    description: Patch<String> = f(s(255)) => description,
    admin_state_up: Patch<bool> = f(Kind::Bool) => enabled or false,
    connection_limit: Patch<i64> = f(int(Some(-1), Some(INT_COLUMN_MAX)))
        => connection_limit or -1,
    default_tls_container_ref: Patch<String> = f(s(255)) => tls_certificate_id,
    /// (`null`: none).
    sni_container_refs: Patch<Strings> = f(REFS),
    /// (`null`: the default pool removed).
    default_pool_id: Patch<String> = f(Kind::Uuid) => default_pool_id,
    insert_headers: Patch<Map<String, Value>> = f(Kind::StrDict(Some(255))),
} {} }
