//! Health monitor request types, as `octavia/api/v2/types/health_monitor.py`.

use serde::Deserialize;

use super::{INT_COLUMN_MAX, Kind, Patch, Schema, Strings, TAGS, f, int, m, s};

/// `SUPPORTED_HEALTH_MONITOR_TYPES`.
pub const TYPES: &[&str] = &[
    "HTTP",
    "HTTPS",
    "PING",
    "TCP",
    "TLS-HELLO",
    "UDP-CONNECT",
    "SCTP",
];
/// `SUPPORTED_HTTP_VERSIONS` (octavia/common/constants.py).
pub const SUPPORTED_HTTP_VERSIONS: &[f64] = &[1.0, 1.1];
/// `SUPPORTED_HEALTH_MONITOR_HTTP_METHODS`.
pub const HTTP_METHODS: &[&str] = &[
    "GET", "HEAD", "POST", "PUT", "DELETE", "TRACE", "OPTIONS", "CONNECT", "PATCH",
];

const CODES: Kind = Kind::Pattern {
    pattern: "^(\\d{3}(\\s*,\\s*\\d{3})*)$|^(\\d{3}-\\d{3})$",
    min: None,
    // no length in WSME; `health_monitor.expected_codes` is varchar(64)
    max: Some(64),
};
/// `StringType(min_length=1, max_length=255, pattern=DOMAIN_NAME_REGEX)` (Octavia 19.0.0
/// octavia/common/constants.py).
const DOMAIN: Kind = Kind::Pattern {
    pattern: "^(?=.{1,253}\\.?$)(?:(?!-|[^.]+_)[A-Za-z0-9-_]{1,63}(?<!-)(?:\\.|$))+$",
    min: Some(1),
    max: Some(255),
};
const RETRIES: Kind = int(Some(1), Some(10));
const HTTP_VERSION: Kind = Kind::FloatEnum(SUPPORTED_HTTP_VERSIONS);

/// `HealthMonitorPOST`.
pub static HM_POST: Schema = Schema {
    fields: &[
        f("name", s(255)),
        m("type", Kind::Enum(TYPES)),
        m("delay", int(Some(0), Some(INT_COLUMN_MAX))),
        m("timeout", int(Some(0), Some(INT_COLUMN_MAX))),
        f("max_retries_down", RETRIES),
        m("max_retries", RETRIES),
        f("http_method", Kind::Enum(HTTP_METHODS)),
        f("url_path", Kind::UrlPath),
        f("expected_codes", CODES),
        f("admin_state_up", Kind::Bool),
        f("project_id", s(36)),
        m("pool_id", Kind::Uuid),
        f("tags", TAGS),
        f("http_version", HTTP_VERSION),
        f("domain_name", DOMAIN),
    ],
    tenant_alias: true,
};

/// `HealthMonitorSingleCreate` (graph create).
pub static HM_SINGLE: Schema = Schema {
    fields: &[
        f("name", s(255)),
        m("type", Kind::Enum(TYPES)),
        m("delay", int(Some(0), Some(INT_COLUMN_MAX))),
        m("timeout", int(Some(0), Some(INT_COLUMN_MAX))),
        f("max_retries_down", RETRIES),
        m("max_retries", RETRIES),
        f("http_method", Kind::Enum(HTTP_METHODS)),
        f("url_path", Kind::UrlPath),
        f("expected_codes", CODES),
        f("admin_state_up", Kind::Bool),
        f("tags", TAGS),
        f("http_version", HTTP_VERSION),
        f("domain_name", DOMAIN),
    ],
    tenant_alias: false,
};

/// `HealthMonitorPUT`.
pub static HM_PUT: Schema = Schema {
    fields: &[
        f("name", s(255)),
        f("delay", int(Some(0), Some(INT_COLUMN_MAX))),
        f("timeout", int(Some(0), Some(INT_COLUMN_MAX))),
        f("max_retries_down", RETRIES),
        f("max_retries", RETRIES),
        f("http_method", Kind::Enum(HTTP_METHODS)),
        f("url_path", Kind::UrlPath),
        f("expected_codes", CODES),
        f("admin_state_up", Kind::Bool),
        f("tags", TAGS),
        f("http_version", HTTP_VERSION),
        f("domain_name", DOMAIN),
    ],
    tenant_alias: false,
};

/// A validated `HealthMonitorPOST` body (and a graph's `HealthMonitorSingleCreate`, its
/// subset) as [`HM_POST`] declares it; `admin_state_up: null` is false (Octavia's `to_dict`),
/// left out true.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HmPost {
    /// `name`.
    pub name: Option<String>,
    /// `type` (mandatory).
    pub r#type: String,
    /// `delay` (s, mandatory).
    pub delay: i64,
    /// `timeout` (s, mandatory).
    pub timeout: i64,
    /// `max_retries_down` (left out or `null`: 3).
    pub max_retries_down: Option<i64>,
    /// `max_retries` (mandatory).
    pub max_retries: i64,
    /// `http_method` (HTTP/HTTPS; left out or `null`: GET).
    pub http_method: Option<String>,
    /// `url_path` (left out or `null`: `/`).
    pub url_path: Option<String>,
    /// `expected_codes` (left out or `null`: 200).
    pub expected_codes: Option<String>,
    /// `admin_state_up`.
    pub admin_state_up: Patch<bool>,
    /// `project_id` (or `tenant_id`); the monitor takes its load balancer's project.
    pub project_id: Option<String>,
    /// `pool_id` (mandatory on a POST; none in a graph).
    pub pool_id: Option<String>,
    /// `tags`.
    pub tags: Option<Strings>,
    /// `http_version` (1.0 or 1.1).
    pub http_version: Option<f64>,
    /// `domain_name`.
    pub domain_name: Option<String>,
}

/// A validated `HealthMonitorPUT` body as [`HM_PUT`] declares it: each attribute left out
/// (unchanged), `null` or a value.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HmPut {
    /// `name`.
    pub name: Patch<String>,
    /// `delay` (`null` refused).
    pub delay: Patch<i64>,
    /// `timeout` (`null` refused).
    pub timeout: Patch<i64>,
    /// `max_retries_down` (`null`: 3).
    pub max_retries_down: Patch<i64>,
    /// `max_retries` (`null` refused).
    pub max_retries: Patch<i64>,
    /// `http_method` (`null`: GET).
    pub http_method: Patch<String>,
    /// `url_path` (`null`: `/`).
    pub url_path: Patch<String>,
    /// `expected_codes` (`null`: 200).
    pub expected_codes: Patch<String>,
    /// `admin_state_up` (`null`: false).
    pub admin_state_up: Patch<bool>,
    /// `tags` (`null`: none).
    pub tags: Patch<Strings>,
    /// `http_version`.
    pub http_version: Patch<f64>,
    /// `domain_name`.
    pub domain_name: Patch<String>,
}

#[cfg(test)]
mod tests {
    use super::CODES;
    use crate::types::Kind;
    use crate::types::pattern::search;

    const CODES_RE: &str = match CODES {
        Kind::Pattern { pattern, .. } => pattern,
        _ => "",
    };

    #[test]
    fn typed_bodies_declare_the_schema_attributes() {
        use super::*;
        use crate::types::{assert_typed_as, struct_fields};
        assert_typed_as::<HmPost>(&HM_POST);
        assert_typed_as::<HmPut>(&HM_PUT);
        let post = struct_fields::<HmPost>();
        for f in HM_SINGLE.fields {
            assert!(post.contains(&f.name), "{}", f.name);
        }
    }

    #[test]
    fn expected_codes_regex() {
        for ok in ["200", "200,202", "200, 202 ,204", "200-204"] {
            assert!(search(CODES_RE, ok), "{ok}");
        }
        for bad in ["20", "200-", "abc", "200,,201", " 200"] {
            assert!(!search(CODES_RE, bad), "{bad}");
        }
    }
}
