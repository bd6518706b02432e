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

/// `^(\d{3}(\s*,\s*\d{3})*)$|^(\d{3}-\d{3})$`.
pub fn expected_codes_ok(s: &str) -> bool {
    let three = |t: &str| t.len() == 3 && t.chars().all(|c| c.is_ascii_digit());
    if let Some((a, b)) = s.split_once('-') {
        return three(a) && three(b);
    }
    s.split(',').enumerate().all(|(i, p)| {
        let n = s.split(',').count();
        let t = match (i == 0, i + 1 == n) {
            (true, true) => p,
            (true, false) => p.trim_end(),
            (false, true) => p.trim_start(),
            (false, false) => p.trim(),
        };
        three(t)
    })
}

/// The domain-name regex of `HealthMonitorPOST` (RFC 1123 labels).
fn domain_ok(s: &str) -> bool {
    s.split('.').all(|l| {
        !l.is_empty()
            && l.len() <= 63
            && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    })
}

const CODES: Kind = Kind::Pattern {
    pattern: "^(\\d{3}(\\s*,\\s*\\d{3})*)$|^(\\d{3}-\\d{3})$",
    check: expected_codes_ok,
    // no length in WSME; `health_monitor.expected_codes` is varchar(64)
    max: Some(64),
};
const DOMAIN: Kind = Kind::Pattern {
    pattern: "^(?=^.{1,254}$)(^(?:(?!\\d+\\.|-)[a-zA-Z0-9_\\-]{1,63}(?<!-)\\.?)+(?:[a-zA-Z]{2,})$)",
    check: domain_ok,
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
    #[test]
    fn expected_codes_regex() {
        for ok in ["200", "200,202", "200, 202 ,204", "200-204"] {
            assert!(super::expected_codes_ok(ok), "{ok}");
        }
        for bad in ["20", "200-", "abc", "200,,201", " 200"] {
            assert!(!super::expected_codes_ok(bad), "{bad}");
        }
    }
}
