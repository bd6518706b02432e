//! Health monitor request types, as `octavia/api/v2/types/health_monitor.py`.

use super::{INT_COLUMN_MAX, Kind, Schema, TAGS, f, int, m, s};

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
    fn expected_codes_regex() {
        for ok in ["200", "200,202", "200, 202 ,204", "200-204"] {
            assert!(search(CODES_RE, ok), "{ok}");
        }
        for bad in ["20", "200-", "abc", "200,,201", " 200"] {
            assert!(!search(CODES_RE, bad), "{bad}");
        }
    }
}
