//! L7 rule request types, as `octavia/api/v2/types/l7rule.py` (the POST and PUT bodies are in
//! the handler module).

use crate::types::{Kind, Patch, Schema, Strings, TAGS, f, mn, s, wsme_body};

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

/// `StringType(max_length=255, pattern=r'^[^\r\n]*$')` of `key` / `value`.
const KEY_VALUE: Kind = Kind::Pattern {
    pattern: "^[^\\r\\n]*$",
    min: None,
    max: Some(255),
};

wsme_body! {
    /// `L7RulePOST` (octavia/api/v2/types/l7rule.py). A `null` `type`, `compare_type` or `value`
    /// is sent on to `validate.l7rule_data`, which refuses it with its own text.
    pub static L7RULE_POST, tenant_alias = true, wsme = ("rule_", "rule"),
        creates = octavia_db::L7RuleRow;
    /// A validated `L7RulePOST` body (and an inline `L7RuleSingleCreate`, its subset) as
    /// [`L7RULE_POST`] declares it, with the `l7rule` columns a create writes: a `null`
    /// `type`, `compare_type` or `value` is kept for [`validate_rule`](super::validate_rule);
    /// `admin_state_up: null` is false (Octavia's `to_dict`).
    pub struct L7RulePost {
        r#type: Option<String> = mn(Kind::Enum(RULE_TYPES)) => r#type,
        compare_type: Option<String> = mn(Kind::Enum(COMPARE_TYPES)) => compare_type,
        key: Option<String> = f(KEY_VALUE) => key,
        value: Option<String> = mn(KEY_VALUE) => value,
        invert: Option<bool> = f(Kind::Bool) => invert or false,
        admin_state_up: Patch<bool> = f(Kind::Bool) => enabled or true null false,
        /// `project_id` (or `tenant_id`); the rule takes its load balancer's project.
        project_id: Option<String> = f(Kind::Str { min: None, max: Some(36) }),
        tags: Option<Strings> = f(TAGS),
    }
}

wsme_body! {
    /// `L7RulePUT`.
    pub static L7RULE_PUT, tenant_alias = false, wsme = ("l7rule_", "rule"),
        updates = octavia_db::L7RuleRow;
    /// A validated `L7RulePUT` body as [`L7RULE_PUT`] declares it: each attribute left out
    /// (the stored one kept), `null` or a value, with the `l7rule` columns a PUT changes of it
    /// (a `null` `type`, `compare_type` or `value` never reaches them:
    /// [`validate_rule`](super::validate_rule) refuses it first).
    pub struct L7RulePut {
        r#type: Patch<String> = f(Kind::Enum(RULE_TYPES)) => r#type or "",
        compare_type: Patch<String> = f(Kind::Enum(COMPARE_TYPES)) => compare_type or "",
        key: Patch<String> = f(KEY_VALUE) => key,
        value: Patch<String> = f(KEY_VALUE) => value or "",
        invert: Patch<bool> = f(Kind::Bool) => invert or false,
        admin_state_up: Patch<bool> = f(Kind::Bool) => enabled or false,
        /// `tags` (`null`: none).
        tags: Patch<Strings> = f(TAGS),
    }
}
