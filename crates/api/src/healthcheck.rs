//! `GET|HEAD /healthcheck` as oslo.middleware's `Healthcheck` app, which
//! `octavia/api/root_controller.py` serves when `[api_settings] healthcheck_enabled`.
//!
//! Each `[healthcheck] backends` entry gives one result (`available`, `reason`, `details`):
//! `octavia_db_check` (`octavia/api/healthcheck/healthcheck_plugins.py`: `SELECT 1` on the
//! Octavia DB, its result kept `[api_settings] healthcheck_refresh_interval` seconds; reason
//! `OK` or `The Octavia database is unavailable.`), `disable_by_file`
//! (`disable_by_file_path` exists → `DISABLED BY FILE`), `disable_by_files_ports` (the path
//! of `disable_by_file_paths` `port:path` for the API's port), `enable_by_files` (every path of
//! `enable_by_file_paths` must exist, else `FILE PATH MISSING`). All available → GET 200,
//! HEAD 204; otherwise 503 for both. The GET body is negotiated as webob does among
//! `text/plain` (the reasons, one per line; the default, also when nothing matches),
//! `text/html` and `application/json` (`{"detailed": false, "reasons": [...]}`, indented by
//! 4 with sorted keys). `detailed = True` adds the time, the platform and, per result, its
//! class and details (the Python runtime's fields — `python_version`, `gc`, `threads`,
//! `greenthreads` — have no Keel counterpart and are left out).
//!
//! `allowed_source_ranges` and `ignore_proxied_requests` make oslo's app return nothing for
//! a request from outside the ranges or carrying an `X-Forwarded*` header; Octavia's pecan
//! controller then renders that nothing: 200 `null` (`application/json`, also HEAD with an
//! empty body) unless the client prefers `text/plain` or `text/html` (then 204). As pecan
//! does for every answer, a 200 with an empty body (no backends, text) is sent as a 204.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::AppState;

mod config;

pub use config::{Backend, DbCheckCache, HealthcheckConfig, SourceRange, SourceRangeError};

const DB_UNAVAILABLE: &str = "The Octavia database is unavailable.";

/// `SELECT 1` on the Octavia database (`healthcheck_plugins.py`). Errors: the database's
/// own, whose text becomes the result's `details` as the plugin's exception text does.
async fn db_answers(state: &AppState) -> Result<(), octavia_db::DbError> {
    let mut tx = state.db().begin_read().await?;
    let r = tx
        .fetch_optional_scalar::<i64>("SELECT 1", vec![])
        .await
        .map(|_| ());
    let _ = tx.rollback().await;
    r
}

/// One backend's result (oslo's `HealthcheckResult`; `class` is the Python class name the
/// detailed output shows).
struct Outcome {
    available: bool,
    reason: &'static str,
    details: String,
    class: &'static str,
}

fn outcome(available: bool, reason: &'static str, details: String) -> Outcome {
    Outcome {
        available,
        reason,
        details,
        class: "HealthcheckResult",
    }
}

async fn check(state: &AppState, cfg: &HealthcheckConfig, b: &Backend) -> Outcome {
    match b {
        Backend::OctaviaDb => {
            let cached = cfg
                .db_cache
                .0
                .lock()
                .ok()
                .and_then(|c| c.clone())
                .filter(|(at, _)| at.elapsed() < cfg.refresh_interval)
                .map(|(_, r)| r);
            let result = match cached {
                Some(r) => r,
                None => {
                    let r = db_answers(state).await.map_err(Arc::new);
                    if let Err(e) = &r {
                        tracing::error!(error = %e, "healthcheck: the Octavia database does not answer");
                    }
                    if let Ok(mut c) = cfg.db_cache.0.lock() {
                        *c = Some((Instant::now(), r.clone()));
                    }
                    r
                }
            };
            let (available, reason, details) = match result {
                Ok(()) => (true, "OK", String::new()),
                Err(e) => (false, DB_UNAVAILABLE, e.to_string()),
            };
            Outcome {
                available,
                reason,
                details,
                class: "OctaviaDBCheckResult",
            }
        }
        Backend::DisableByFile(path) => match path {
            None => outcome(
                true,
                "OK",
                "No 'disable_by_file_path' configuration value specified".into(),
            ),
            Some(p) if p.exists() => outcome(
                false,
                "DISABLED BY FILE",
                format!("Path '{}' was found", p.display()),
            ),
            Some(p) => outcome(true, "OK", format!("Path '{}' was not found", p.display())),
        },
        Backend::DisableByFilesPorts(paths) => match paths.get(&cfg.server_port) {
            Some(p) if p.exists() => outcome(false, "DISABLED BY FILE", String::new()),
            _ => outcome(true, "OK", String::new()),
        },
        Backend::EnableByFiles(paths) => match paths.iter().find(|p| !p.exists()) {
            Some(p) => outcome(
                false,
                "FILE PATH MISSING",
                format!("File path {} is missing", p.display()),
            ),
            None => outcome(true, "OK", "Specified file paths are available".into()),
        },
    }
}

/// The offer webob's `acceptable_offers` puts first among `offers` for `accept`: highest
/// quality, then `offers` order; `None` when none is acceptable. No header or an empty one
/// accepts everything.
fn negotiate(accept: Option<&str>, offers: &[&'static str]) -> Option<&'static str> {
    let Some(accept) = accept.filter(|a| !a.trim().is_empty()) else {
        return offers.first().copied();
    };
    // (type, subtype, q) per media range.
    let ranges: Vec<(String, String, f32)> = accept
        .split(',')
        .filter_map(|r| {
            let mut parts = r.split(';');
            let media = parts.next()?.trim().to_ascii_lowercase();
            let (t, s) = media.split_once('/')?;
            let q = parts
                .filter_map(|p| p.split_once('='))
                .find(|(k, _)| k.trim().eq_ignore_ascii_case("q"))
                .and_then(|(_, v)| v.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            Some((t.to_string(), s.to_string(), q))
        })
        .collect();
    let quality = |offer: &str| -> f32 {
        let (otype, osub) = offer.split_once('/').unwrap_or((offer, ""));
        // The most specific matching range decides (exact, then type/*, then */*).
        let mut best: Option<(u8, f32)> = None;
        for (t, s, q) in &ranges {
            let spec = if t == otype && s == osub {
                2
            } else if t == otype && s == "*" {
                1
            } else if t == "*" && s == "*" {
                0
            } else {
                continue;
            };
            if best.is_none_or(|(b, _)| spec > b) {
                best = Some((spec, *q));
            }
        }
        best.map_or(0.0, |(_, q)| q)
    };
    let mut scored: Vec<(f32, usize)> = offers
        .iter()
        .enumerate()
        .map(|(i, o)| (quality(o), i))
        .filter(|(q, _)| *q > 0.0)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.first().map(|(_, i)| offers[*i])
}

/// oslo's offers, in its order; `text/plain` when none is acceptable.
const OSLO_OFFERS: [&str; 3] = ["text/plain", "text/html", "application/json"];

/// Python's `json.dumps(indent=4, sort_keys=True)` (keys are inserted sorted).
fn pretty(v: &serde_json::Value) -> String {
    use serde::Serialize;
    let mut out = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
    if v.serialize(&mut ser).is_err() {
        return String::new();
    }
    String::from_utf8(out).unwrap_or_default()
}

/// The server facts of the detailed output: current time (UTC, as `str(utcnow())`),
/// platform (`<os>-<kernel release>-<arch>`), hostname.
struct Facts {
    now: String,
    platform: String,
    hostname: String,
}

fn facts() -> Facts {
    let read = |p: &str| {
        std::fs::read_to_string(p)
            .map(|s| s.trim().to_string())
            .unwrap_or_default()
    };
    let os = match std::env::consts::OS {
        "linux" => "Linux",
        other => other,
    };
    Facts {
        now: chrono::Utc::now()
            .format("%Y-%m-%d %H:%M:%S%.6f")
            .to_string(),
        platform: format!(
            "{os}-{}-{}",
            read("/proc/sys/kernel/osrelease"),
            std::env::consts::ARCH
        ),
        hostname: read("/proc/sys/kernel/hostname"),
    }
}

fn body(kind: &str, results: &[Outcome], detailed: bool) -> String {
    match kind {
        "application/json" if detailed => {
            let f = facts();
            let reasons: Vec<serde_json::Value> = results
                .iter()
                .map(|r| {
                    serde_json::json!({"class": r.class, "details": r.details, "reason": r.reason})
                })
                .collect();
            pretty(&serde_json::json!({
                "detailed": true,
                "now": f.now,
                "platform": f.platform,
                "reasons": reasons,
            }))
        }
        "application/json" => {
            let reasons: Vec<&str> = results.iter().map(|r| r.reason).collect();
            pretty(&serde_json::json!({"detailed": false, "reasons": reasons}))
        }
        "text/html" => html(results, detailed.then(facts)),
        _ => results
            .iter()
            .map(|r| r.reason)
            .filter(|r| !r.is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// oslo's HTML template (without the Python runtime's sections).
fn html(results: &[Outcome], facts: Option<Facts>) -> String {
    let e = html_escape;
    let mut s = String::from("<HTML>\n<HEAD><TITLE>Healthcheck Status</TITLE></HEAD>\n<BODY>\n");
    if let Some(f) = &facts {
        s.push_str(&format!(
            "<H1>Server status</H1>\n<B>Server hostname:</B><PRE>{}</PRE>\n\
             <B>Current time:</B><PRE>{}</PRE>\n<B>Platform:</B><PRE>{}</PRE>\n<HR></HR>",
            e(&f.hostname),
            e(&f.now),
            e(&f.platform)
        ));
    }
    s.push_str(&format!(
        "\n<H2>Result of {} checks:</H2>\n<TABLE bgcolor=\"#ffffff\" border=\"1\">\n\
         <TBODY>\n<TR>\n",
        results.len()
    ));
    if facts.is_some() {
        s.push_str("<TH>\nKind\n</TH>\n<TH>\nReason\n</TH>\n<TH>\nDetails\n</TH>\n\n</TR>\n");
    } else {
        s.push_str("\n<TH>\nReason\n</TH>\n</TR>\n");
    }
    for r in results.iter().filter(|r| !r.reason.is_empty()) {
        if facts.is_some() {
            s.push_str(&format!(
                "<TR>\n<TD>{}</TD>\n    <TD>{}</TD>\n<TD>{}</TD>\n</TR>",
                e(r.class),
                e(r.reason),
                e(&r.details)
            ));
        } else {
            s.push_str(&format!("<TR>\n\n    <TD>{}</TD>\n\n</TR>", e(r.reason)));
        }
    }
    s.push_str("\n</TBODY>\n</TABLE>\n<HR></HR>\n\n");
    if facts.is_some() {
        s.push('\n');
    }
    s.push_str("</BODY>\n</HTML>");
    s
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&#34;")
        .replace('\'', "&#39;")
}

/// Whether oslo's app lets this request through: the client (`REMOTE_ADDR`, proxy-given
/// when `enable_proxy_headers_parsing`) in `allowed_source_ranges`, and no `X-Forwarded`,
/// `X-Forwarded-Proto/Host/For/Prefix` header when `ignore_proxied_requests` (oslo reads
/// exactly these `HTTP_X_*` names; the RFC 7239 `Forwarded` header is not among them).
fn answered(state: &AppState, cfg: &HealthcheckConfig, req: &Request) -> bool {
    if !cfg.allowed_source_ranges.is_empty() {
        let client = crate::proxy_headers::remote_addr(
            req.headers(),
            req.extensions(),
            state.config().enable_proxy_headers_parsing,
        );
        let Some(ip) = client.as_deref().and_then(crate::proxy_headers::client_ip) else {
            return false;
        };
        if !cfg.allowed_source_ranges.iter().any(|r| r.contains(ip)) {
            return false;
        }
    }
    if cfg.ignore_proxied_requests {
        const PROXY: [&str; 5] = [
            "x-forwarded",
            "x-forwarded-proto",
            "x-forwarded-host",
            "x-forwarded-for",
            "x-forwarded-prefix",
        ];
        let set = |h: &str| req.headers().get(h).is_some_and(|v| !v.is_empty());
        if PROXY.iter().any(|h| set(h)) {
            return false;
        }
    }
    true
}

/// The response as pecan sends it: a 200 with an empty body becomes a 204, and a 204 has no
/// content type. `ctype` gets `; charset=UTF-8` for text types (webob adds it to `text/*`
/// only, so JSON goes without).
fn finish(status: StatusCode, ctype: &str, body: String) -> Response {
    if status == StatusCode::NO_CONTENT || (status == StatusCode::OK && body.is_empty()) {
        return StatusCode::NO_CONTENT.into_response();
    }
    let ctype = if ctype.starts_with("text/") {
        format!("{ctype}; charset=UTF-8")
    } else {
        ctype.to_string()
    };
    (status, [(header::CONTENT_TYPE, ctype)], body).into_response()
}

/// What pecan makes of the controller's `None` (see the module doc).
fn passed_over(accept: Option<&str>) -> Response {
    match negotiate(accept, &["application/json", "text/plain", "text/html"]) {
        Some("text/plain" | "text/html") => StatusCode::NO_CONTENT.into_response(),
        _ => finish(StatusCode::OK, "application/json", "null".into()),
    }
}

/// `GET|HEAD /healthcheck` (other methods: the router's 405): 404 unless
/// `healthcheck_enabled`; otherwise the backends' results (see the module doc). HEAD answers
/// as GET without the body (204 when healthy, as oslo).
pub async fn healthcheck(State(state): State<AppState>, req: Request) -> Response {
    if !state.config().healthcheck_enabled {
        return crate::fault::ApiError::pecan(StatusCode::NOT_FOUND, "Not Found", "")
            .into_response();
    }
    let method = req.method().clone();
    let cfg = &state.config().healthcheck;
    let accept = req
        .headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok());
    if !answered(&state, cfg, &req) {
        return passed_over(accept);
    }
    let mut results = Vec::with_capacity(cfg.backends.len());
    for b in &cfg.backends {
        results.push(check(&state, cfg, b).await);
    }
    let healthy = results.iter().all(|r| r.available);
    if method == Method::HEAD {
        return if healthy {
            StatusCode::NO_CONTENT.into_response()
        } else {
            finish(StatusCode::SERVICE_UNAVAILABLE, "text/plain", String::new())
        };
    }
    let status = if healthy {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    let kind = negotiate(accept, &OSLO_OFFERS).unwrap_or(OSLO_OFFERS[0]);
    finish(status, kind, body(kind, &results, cfg.detailed))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn oslo(accept: Option<&str>) -> &'static str {
        negotiate(accept, &OSLO_OFFERS).unwrap_or(OSLO_OFFERS[0])
    }

    #[test]
    fn negotiation_as_webob() {
        assert_eq!(oslo(None), "text/plain");
        assert_eq!(oslo(Some("*/*")), "text/plain");
        assert_eq!(oslo(Some("application/json")), "application/json");
        assert_eq!(oslo(Some("application/json, text/plain")), "text/plain");
        assert_eq!(
            oslo(Some("text/plain;q=0.5, application/json")),
            "application/json"
        );
        assert_eq!(oslo(Some("text/html")), "text/html");
        assert_eq!(oslo(Some("application/xml")), "text/plain");
        assert_eq!(
            oslo(Some("text/*;q=0.2, application/json;q=0.1")),
            "text/plain"
        );
        assert_eq!(oslo(Some("text/plain;q=0, */*")), "text/html");
    }

    fn r(reason: &'static str, details: &str, class: &'static str) -> Outcome {
        Outcome {
            available: true,
            reason,
            details: details.into(),
            class,
        }
    }

    #[test]
    fn bodies_as_oslo() {
        let two = [
            r("OK", "Path '/x' was not found", "HealthcheckResult"),
            r("DISABLED BY FILE", "", "OctaviaDBCheckResult"),
        ];
        assert_eq!(body("text/plain", &[], false), "");
        assert_eq!(body("text/plain", &two, true), "OK\nDISABLED BY FILE");
        assert_eq!(
            body("application/json", &two[1..], false),
            "{\n    \"detailed\": false,\n    \"reasons\": [\n        \"DISABLED BY FILE\"\n    ]\n}"
        );
        assert_eq!(
            body("application/json", &[], false),
            "{\n    \"detailed\": false,\n    \"reasons\": []\n}"
        );
        // oslo's jinja2 template rendered with these results (Python-only sections removed).
        assert_eq!(
            body("text/html", &two, false),
            "<HTML>\n<HEAD><TITLE>Healthcheck Status</TITLE></HEAD>\n<BODY>\n\n<H2>Result of 2 \
             checks:</H2>\n<TABLE bgcolor=\"#ffffff\" border=\"1\">\n<TBODY>\n<TR>\n\n<TH>\n\
             Reason\n</TH>\n</TR>\n<TR>\n\n    <TD>OK</TD>\n\n</TR><TR>\n\n    \
             <TD>DISABLED BY FILE</TD>\n\n</TR>\n</TBODY>\n</TABLE>\n<HR></HR>\n\n</BODY>\n</HTML>"
        );
        let facts = Facts {
            now: "NOW".into(),
            platform: "PLAT".into(),
            hostname: "h<1>".into(),
        };
        assert_eq!(
            html(&two, Some(facts)),
            "<HTML>\n<HEAD><TITLE>Healthcheck Status</TITLE></HEAD>\n<BODY>\n<H1>Server status</H1>\n\
             <B>Server hostname:</B><PRE>h&lt;1&gt;</PRE>\n<B>Current time:</B><PRE>NOW</PRE>\n\
             <B>Platform:</B><PRE>PLAT</PRE>\n<HR></HR>\n<H2>Result of 2 checks:</H2>\n\
             <TABLE bgcolor=\"#ffffff\" border=\"1\">\n<TBODY>\n<TR>\n<TH>\nKind\n</TH>\n<TH>\n\
             Reason\n</TH>\n<TH>\nDetails\n</TH>\n\n</TR>\n<TR>\n<TD>HealthcheckResult</TD>\n    \
             <TD>OK</TD>\n<TD>Path &#39;/x&#39; was not found</TD>\n</TR><TR>\n\
             <TD>OctaviaDBCheckResult</TD>\n    <TD>DISABLED BY FILE</TD>\n<TD></TD>\n</TR>\n\
             </TBODY>\n</TABLE>\n<HR></HR>\n\n\n</BODY>\n</HTML>"
        );
        let v: serde_json::Value =
            serde_json::from_str(&body("application/json", &two[..1], true)).unwrap();
        assert_eq!(v["detailed"], true);
        assert_eq!(
            v["reasons"],
            serde_json::json!([{"class": "HealthcheckResult", "details": "Path '/x' was not found", "reason": "OK"}])
        );
        assert!(v["now"].as_str().unwrap().len() >= 19, "{v}");
        assert!(v["platform"].as_str().unwrap().starts_with("Linux-"), "{v}");
    }

    #[test]
    fn source_ranges_as_ip_network() {
        let net = |s: &str| s.parse::<SourceRange>();
        let ip = |s: &str| s.parse::<std::net::IpAddr>().unwrap();
        let lo = net("127.0.0.0/8").unwrap();
        assert!(lo.contains(ip("127.1.2.3")));
        assert!(!lo.contains(ip("128.0.0.1")));
        assert!(!lo.contains(ip("::ffff:127.0.0.1")));
        let one = net("192.0.2.7").unwrap();
        assert!(one.contains(ip("192.0.2.7")) && !one.contains(ip("192.0.2.8")));
        let all = net("0.0.0.0/0").unwrap();
        assert!(all.contains(ip("203.0.113.1")) && !all.contains(ip("::1")));
        let v6 = net("2001:db8::/32").unwrap();
        assert!(v6.contains(ip("2001:db8:1::5")) && !v6.contains(ip("2001:db9::1")));
        assert!(net("::/0").unwrap().contains(ip("::1")));
        assert_eq!(net("10.0.0.1/8"), Err(SourceRangeError::HostBits));
        assert_eq!(net("10.0.0.0/33"), Err(SourceRangeError::Prefix));
        assert_eq!(net("example.com"), Err(SourceRangeError::Syntax));
    }
}
