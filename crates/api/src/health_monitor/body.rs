//! Health monitor request types, as `octavia/api/v2/types/health_monitor.py`.

use crate::types::wsme_body;

use crate::types::{INT_COLUMN_MAX, Kind, Patch, Strings, TAGS, int, s};

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

wsme_body! {
    /// `HealthMonitorPOST`.
    pub static HM_POST, tenant_alias = true, wsme = ("health_monitor_", "healthmonitor"),
        creates = octavia_db::HealthMonitorRow;
    /// A validated `HealthMonitorPOST` body (and a graph's `HealthMonitorSingleCreate`, its
    /// subset) as [`HM_POST`] declares it, with the `health_monitor` columns a create writes;
    /// `admin_state_up: null` is false (Octavia's `to_dict`).
    pub struct HmPost {
        name: Option<String> = f(s(255)) => name,
        /// `type` (mandatory).
        r#type: String = m(Kind::Enum(TYPES)) => r#type,
        /// `delay` (s, mandatory).
        delay: i64 = m(int(Some(0), Some(INT_COLUMN_MAX))) => delay,
        /// `timeout` (s, mandatory).
        timeout: i64 = m(int(Some(0), Some(INT_COLUMN_MAX))) => timeout,
        max_retries_down: Option<i64> = f(RETRIES) => fall_threshold or 3,
        /// `max_retries` (mandatory).
        max_retries: i64 = m(RETRIES) => rise_threshold,
        /// `http_method` (HTTP/HTTPS; left out or `null`: GET).
        http_method: Option<String> = f(Kind::Enum(HTTP_METHODS)),
        /// `url_path` (left out or `null`: `/`).
        url_path: Option<String> = f(Kind::UrlPath),
        /// `expected_codes` (left out or `null`: 200).
        expected_codes: Option<String> = f(CODES),
        admin_state_up: Patch<bool> = f(Kind::Bool) => enabled or true null false,
        /// `project_id` (or `tenant_id`); the monitor takes its load balancer's project.
        project_id: Option<String> = f(s(36)),
        /// `pool_id` (mandatory on a POST; none in a graph).
        pool_id: Option<String> = m(Kind::Uuid),
        tags: Option<Strings> = f(TAGS),
        /// `http_version` (1.0 or 1.1).
        http_version: Option<f64> = f(HTTP_VERSION),
        domain_name: Option<String> = f(DOMAIN) => domain_name,
    }
    /// `HealthMonitorSingleCreate` (graph create): `HealthMonitorPOST` without the project
    /// and pool.
    pub static HM_SINGLE = crate::types::Derive {
        leave_out: &["project_id", "pool_id"],
        optional: false,
        retype: None,
    }, tenant_alias = false;
}

wsme_body! {
    /// `HealthMonitorPUT`.
    pub static HM_PUT, tenant_alias = false, wsme = ("health_monitor_", "healthmonitor"),
        updates = octavia_db::HealthMonitorRow;
    /// A validated `HealthMonitorPUT` body as [`HM_PUT`] declares it: each attribute left out
    /// (unchanged), `null` or a value, with the `health_monitor` column it changes (a `null`
    /// as health_monitor.py `put` and `_set_default_on_none` make it).
    pub struct HmPut {
        name: Patch<String> = f(s(255)) => name,
        /// `delay` (`null` refused).
        delay: Patch<i64> = f(int(Some(0), Some(INT_COLUMN_MAX))) => delay,
        /// `timeout` (`null` refused).
        timeout: Patch<i64> = f(int(Some(0), Some(INT_COLUMN_MAX))) => timeout,
        max_retries_down: Patch<i64> = f(RETRIES) => fall_threshold or 3,
        /// `max_retries` (`null` refused).
        max_retries: Patch<i64> = f(RETRIES) => rise_threshold,
        http_method: Patch<String> = f(Kind::Enum(HTTP_METHODS)) => http_method or "GET",
        url_path: Patch<String> = f(Kind::UrlPath) => url_path or "/",
        expected_codes: Patch<String> = f(CODES) => expected_codes or "200",
        admin_state_up: Patch<bool> = f(Kind::Bool) => enabled or false,
        /// `tags` (`null`: none).
        tags: Patch<Strings> = f(TAGS),
        http_version: Patch<f64> = f(HTTP_VERSION) => http_version,
        domain_name: Patch<String> = f(DOMAIN) => domain_name,
    }
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
    fn expected_codes_regex() {
        for ok in ["200", "200,202", "200, 202 ,204", "200-204"] {
            assert!(search(CODES_RE, ok), "{ok}");
        }
        for bad in ["20", "200-", "abc", "200,,201", " 200"] {
            assert!(!search(CODES_RE, bad), "{bad}");
        }
    }
}
