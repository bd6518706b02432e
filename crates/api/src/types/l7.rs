//! L7 policy / rule types as far as a load balancer graph create needs them
//! (`octavia/api/v2/types/l7policy.py`, `l7rule.py`). L7 endpoints are not served yet.

use super::{Kind, Schema, TAGS, f, int, mn, s};
use crate::types::pool::POOL_SINGLE;

/// `SUPPORTED_L7POLICY_ACTIONS`.
pub const ACTIONS: &[&str] = &[
    "REJECT",
    "REDIRECT_TO_URL",
    "REDIRECT_TO_POOL",
    "REDIRECT_PREFIX",
];
/// `SUPPORTED_L7RULE_TYPES`.
pub const RULE_TYPES: &[&str] = &[
    "HOST_NAME",
    "PATH",
    "FILE_TYPE",
    "HEADER",
    "COOKIE",
    "SSL_CONN_HAS_CERT",
    "SSL_VERIFY_RESULT",
    "SSL_DN_FIELD",
];
/// `SUPPORTED_L7RULE_COMPARE_TYPES`.
pub const COMPARE_TYPES: &[&str] = &["REGEX", "STARTS_WITH", "ENDS_WITH", "CONTAINS", "EQUAL_TO"];

/// `L7RuleSingleCreate`. A `null` `type`, `compare_type` or `value` reaches
/// `validate.l7rule_data`, which the reference runs on every inline rule
/// (octavia/db/prepare.py `create_l7policy`) and which refuses it with its own text.
pub static L7RULE_SINGLE: Schema = Schema {
    fields: &[
        mn("type", Kind::Enum(RULE_TYPES)),
        mn("compare_type", Kind::Enum(COMPARE_TYPES)),
        f("key", s(255)),
        mn("value", s(255)),
        f("invert", Kind::Bool),
        f("admin_state_up", Kind::Bool),
        f("tags", TAGS),
    ],
    tenant_alias: false,
};

/// `L7PolicySingleCreate`.
pub static L7POLICY_SINGLE: Schema = Schema {
    fields: &[
        f("name", s(255)),
        f("description", s(255)),
        f("admin_state_up", Kind::Bool),
        // null: `sanitize_l7policy_api_args`' own 400
        mn("action", Kind::Enum(ACTIONS)),
        f("redirect_pool", Kind::Object(&POOL_SINGLE)),
        f("redirect_url", Kind::Url),
        f("redirect_prefix", Kind::Url),
        f("position", int(Some(1), Some(2147483647))),
        f("redirect_http_code", int(Some(301), Some(308))),
        f("rules", Kind::ObjectList(&L7RULE_SINGLE)),
        f("tags", TAGS),
    ],
    tenant_alias: false,
};
