//! oslo.middleware's parts of Octavia's API from a real config file, seen through HTTP with
//! `curl`. `[healthcheck]`, as oslo's `Healthcheck` behind Octavia's `/healthcheck` answers:
//! * `backends = octavia_db_check, disable_by_file, disable_by_files_ports` —
//!   `GET` 200 `OK\nOK\nOK` (the database answered), `HEAD` 204; `disable_by_file_path`
//!   created (as an operator drains a node) → 503 for GET and HEAD, JSON by `Accept`; the
//!   `disable_by_file_paths` entry of the API's own port → 503 (HTML by `Accept`), another
//!   port's file changes nothing; `POST` 405.
//! * `backends = enable_by_files`, `detailed = True`, `allowed_source_ranges` with
//!   `enable_proxy_headers_parsing` — 503 `FILE PATH MISSING` with the missing path in the
//!   detailed JSON; a client (`X-Forwarded-For`) outside the ranges is passed over (Octavia's
//!   pecan renders it: 200 `null`, or 204 when the client prefers text), one inside is
//!   answered; the marker file created → 200.
//! * `ignore_proxied_requests = True` — a request with `X-Forwarded-Host` is passed over, one
//!   with only an RFC 7239 `Forwarded` header is answered (oslo reads `X-Forwarded*` only).
//! * A backend Keel does not have, or a source range with host bits set, stops `keel serve`
//!   naming the section and key.
//!
//! `[cors]`, as oslo's `CORS` with Octavia's defaults: a preflight `OPTIONS` from an allowed
//! origin gets the allow headers (origin, credentials, `max_age`, the requested method and
//! headers); from another origin, with a method outside `allow_methods` or a header outside
//! `allow_headers`, it gets an empty 200 without them; an actual request (a 200 list, a 401)
//! from the allowed origin carries `Access-Control-Allow-Origin`, credentials and
//! `Access-Control-Expose-Headers`; without `allowed_origin` no CORS header is sent and
//! `OPTIONS` still answers 200.
//!
//! Runs `keel serve` (in ci/test.sh's serial set); needs Keystone (`ci/stack/env.sh`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Command;

use common::{Backend, Keel, demo_token, free_port, keel_bin};

/// `curl` `method` on `url` with extra `headers`: (status, content type, body).
fn curl(method: &str, url: &str, headers: &[&str]) -> (u16, String, String) {
    let mut cmd = Command::new("curl");
    cmd.args(["-sS", "-w", "\n%{http_code} %{content_type}"]);
    match method {
        "HEAD" => {
            cmd.args(["-I", "-o", "/dev/null"]);
        }
        "GET" => {}
        m => {
            cmd.args(["-X", m]);
        }
    }
    for h in headers {
        cmd.arg("-H").arg(h);
    }
    let out = cmd.arg(url).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let (body, tail) = text.rsplit_once('\n').unwrap();
    let (code, ctype) = tail.split_once(' ').unwrap_or((tail, ""));
    (
        code.trim().parse().unwrap(),
        ctype.trim().to_string(),
        body.to_string(),
    )
}

/// (status, body) of a GET.
fn get(url: &str, headers: &[&str]) -> (u16, String) {
    let (code, _, body) = curl("GET", url, headers);
    (code, body)
}

const TEXT: &str = "text/plain; charset=UTF-8";

#[test]
fn disable_by_file_ports_and_the_database() {
    let keel = Keel::start_extra(
        Backend::Sqlite,
        "[api_settings]\nhealthcheck_enabled = True\n\
         [healthcheck]\nbackends = octavia_db_check, disable_by_file, disable_by_files_ports\n\
         disable_by_file_path = {dir}/drain\n\
         disable_by_file_paths = {port}:{dir}/port-drain, 1:{dir}/other-port\n",
    );
    let url = format!("{}/healthcheck", keel.url());
    assert_eq!(
        curl("GET", &url, &[]),
        (200, TEXT.into(), "OK\nOK\nOK".into())
    );
    assert_eq!(curl("HEAD", &url, &[]).0, 204);
    assert_eq!(curl("POST", &url, &[]).0, 405);

    let drain = keel.dir().join("drain");
    std::fs::write(&drain, "").unwrap();
    assert_eq!(get(&url, &[]), (503, "OK\nDISABLED BY FILE\nOK".into()));
    assert_eq!(curl("HEAD", &url, &[]).0, 503);
    let (code, ctype, body) = curl("GET", &url, &["Accept: application/json"]);
    assert_eq!((code, ctype.as_str()), (503, "application/json"));
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        v,
        serde_json::json!({"detailed": false, "reasons": ["OK", "DISABLED BY FILE", "OK"]})
    );
    std::fs::remove_file(&drain).unwrap();

    // Another port's file is not this API's.
    std::fs::write(keel.dir().join("other-port"), "").unwrap();
    assert_eq!(get(&url, &[]), (200, "OK\nOK\nOK".into()));
    std::fs::write(keel.dir().join("port-drain"), "").unwrap();
    let (code, ctype, body) = curl("GET", &url, &["Accept: text/html"]);
    assert_eq!((code, ctype.as_str()), (503, "text/html; charset=UTF-8"));
    assert!(body.contains("<H2>Result of 3 checks:</H2>"), "{body}");
    assert!(body.contains("<TD>DISABLED BY FILE</TD>"), "{body}");
    std::fs::remove_file(keel.dir().join("port-drain")).unwrap();
    assert_eq!(get(&url, &[]), (200, "OK\nOK\nOK".into()));
}

#[test]
fn enable_by_files_detailed_and_source_ranges() {
    let keel = Keel::start_extra(
        Backend::Sqlite,
        "[api_settings]\nhealthcheck_enabled = True\n\
         [oslo_middleware]\nenable_proxy_headers_parsing = True\n\
         [healthcheck]\nbackends = enable_by_files\nenable_by_file_paths = {dir}/marker\n\
         detailed = True\nallowed_source_ranges = 192.0.2.0/24, 127.0.0.1\n",
    );
    let url = format!("{}/healthcheck", keel.url());
    let marker = keel.dir().join("marker");
    // Straight from 127.0.0.1: answered.
    assert_eq!(get(&url, &[]), (503, "FILE PATH MISSING".into()));
    let (code, _, body) = curl("GET", &url, &["Accept: application/json"]);
    assert_eq!(code, 503);
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["detailed"], true, "{v}");
    assert_eq!(
        v["reasons"],
        serde_json::json!([{
            "class": "HealthcheckResult",
            "details": format!("File path {} is missing", marker.display()),
            "reason": "FILE PATH MISSING",
        }])
    );
    assert!(v["now"].is_string() && v["platform"].is_string(), "{v}");
    let (code, _, body) = curl("GET", &url, &["Accept: text/html"]);
    assert_eq!(code, 503);
    assert!(
        body.contains("<H1>Server status</H1>") && body.contains("<TH>\nDetails\n</TH>"),
        "{body}"
    );

    // A client the proxy names outside the ranges: passed over, as Octavia renders it.
    let outside = "X-Forwarded-For: 203.0.113.5";
    assert_eq!(
        curl("GET", &url, &[outside]),
        (200, "application/json".into(), "null".into())
    );
    assert_eq!(curl("GET", &url, &[outside, "Accept: text/plain"]).0, 204);
    assert_eq!(curl("HEAD", &url, &[outside]).0, 200);
    // Inside the ranges: answered.
    assert_eq!(
        get(&url, &["X-Forwarded-For: 192.0.2.9"]),
        (503, "FILE PATH MISSING".into())
    );

    std::fs::write(&marker, "").unwrap();
    assert_eq!(get(&url, &[]), (200, "OK".into()));
    assert_eq!(curl("HEAD", &url, &[]).0, 204);
}

#[test]
fn proxied_requests_ignored() {
    let keel = Keel::start_extra(
        Backend::Sqlite,
        "[api_settings]\nhealthcheck_enabled = True\n\
         [healthcheck]\nignore_proxied_requests = True\n",
    );
    let url = format!("{}/healthcheck", keel.url());
    // No backend: oslo's empty text, which pecan sends as a 204.
    assert_eq!(curl("GET", &url, &[]), (204, String::new(), String::new()));
    assert_eq!(
        curl("GET", &url, &["X-Forwarded-Host: lb.example.com"]),
        (200, "application/json".into(), "null".into())
    );
    assert_eq!(curl("GET", &url, &["X-Forwarded-For: 192.0.2.1"]).2, "null");
    assert_eq!(
        curl("GET", &url, &["Forwarded: for=192.0.2.1;proto=https"]),
        (204, String::new(), String::new())
    );
    let (code, ctype, body) = curl("GET", &url, &["Accept: application/json"]);
    assert_eq!((code, ctype.as_str()), (200, "application/json"));
    assert_eq!(body, "{\n    \"detailed\": false,\n    \"reasons\": []\n}");

    // No [cors] allowed_origin: no CORS header, and OPTIONS answers an empty 200.
    let lbs = format!("{}/v2/lbaas/loadbalancers", keel.url());
    let (status, headers, body) = raw(
        "OPTIONS",
        &lbs,
        &[
            "Origin: https://dash.example.com",
            "Access-Control-Request-Method: GET",
        ],
    );
    assert_eq!((status, body.as_str()), (200, ""), "{headers:?}");
    assert!(
        !headers
            .iter()
            .any(|(k, _)| k.starts_with("access-control-")),
        "{headers:?}"
    );
    let (status, headers, _) = raw("GET", &lbs, &["Origin: https://dash.example.com"]);
    assert_eq!(status, 401);
    assert!(
        !headers
            .iter()
            .any(|(k, _)| k.starts_with("access-control-")),
        "{headers:?}"
    );
}

/// `curl -i`: (status, headers with lower-case names, body).
fn raw(method: &str, url: &str, headers: &[&str]) -> (u16, Vec<(String, String)>, String) {
    let mut cmd = Command::new("curl");
    cmd.args(["-sS", "-i", "-X", method]);
    for h in headers {
        cmd.arg("-H").arg(h);
    }
    let out = cmd.arg(url).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|c| c.parse().ok())
        .unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    (status, headers, body.to_string())
}

/// The value of header `name` (lower case) in `headers`.
fn hv<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

#[test]
fn cors_as_oslo_with_octavias_defaults() {
    let keel = Keel::start_extra(
        Backend::Sqlite,
        "[cors]\nallowed_origin = https://dash.example.com, https://other.example.com\n\
         max_age = 600\n",
    );
    let lbs = format!("{}/v2/lbaas/loadbalancers", keel.url());
    let dash = "Origin: https://dash.example.com";

    // Preflight from the allowed origin, Octavia's allowed method and headers.
    let (status, h, body) = raw(
        "OPTIONS",
        &lbs,
        &[
            dash,
            "Access-Control-Request-Method: POST",
            "Access-Control-Request-Headers: X-Auth-Token, content-type",
        ],
    );
    assert_eq!((status, body.as_str()), (200, ""), "{h:?}");
    let want = [
        ("access-control-allow-origin", "https://dash.example.com"),
        ("access-control-allow-credentials", "true"),
        ("access-control-max-age", "600"),
        ("access-control-allow-methods", "POST"),
        ("access-control-allow-headers", "X-Auth-Token,content-type"),
        ("vary", "Origin"),
    ];
    for (k, v) in want {
        assert_eq!(hv(&h, k), Some(v), "{k}: {h:?}");
    }
    assert_eq!(hv(&h, "access-control-expose-headers"), None, "{h:?}");

    // Preflights that do not qualify: an empty 200 without CORS headers.
    for headers in [
        vec![
            "Origin: https://evil.example.com",
            "Access-Control-Request-Method: GET",
        ],
        vec![dash, "Access-Control-Request-Method: PATCH"],
        vec![
            dash,
            "Access-Control-Request-Method: GET",
            "Access-Control-Request-Headers: X-Custom",
        ],
        vec![dash],
        vec![],
    ] {
        let (status, h, body) = raw("OPTIONS", &lbs, &headers);
        assert_eq!((status, body.as_str()), (200, ""), "{headers:?}: {h:?}");
        assert_eq!(
            hv(&h, "access-control-allow-origin"),
            None,
            "{headers:?}: {h:?}"
        );
    }

    // Actual requests from the allowed origin, a success and an error alike.
    let token = format!("X-Auth-Token: {}", demo_token());
    let (status, h, _) = raw("GET", &lbs, &[dash, &token]);
    assert_eq!(status, 200, "{h:?}");
    assert_eq!(
        hv(&h, "access-control-allow-origin"),
        Some("https://dash.example.com")
    );
    assert_eq!(hv(&h, "access-control-allow-credentials"), Some("true"));
    assert_eq!(
        hv(&h, "access-control-expose-headers"),
        Some("X-Auth-Token,X-Openstack-Request-Id")
    );
    assert_eq!(hv(&h, "vary"), Some("Origin"));
    assert_eq!(hv(&h, "access-control-max-age"), None, "{h:?}");
    let (status, h, _) = raw("GET", &lbs, &["Origin: https://other.example.com"]);
    assert_eq!(status, 401);
    assert_eq!(
        hv(&h, "access-control-allow-origin"),
        Some("https://other.example.com")
    );
    let (status, h, _) = raw("GET", &lbs, &["Origin: https://evil.example.com", &token]);
    assert_eq!(status, 200);
    assert_eq!(hv(&h, "access-control-allow-origin"), None, "{h:?}");
}

/// `keel serve` on a config with `healthcheck` appended: its stderr, after asserting it failed.
fn refused(healthcheck: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("octavia.conf");
    std::fs::write(
        &conf,
        format!(
            "[api_settings]\nbind_host = 127.0.0.1\nbind_port = {}\n\
             [database]\nconnection = sqlite://{}/x.db?mode=rwc\n[healthcheck]\n{healthcheck}",
            free_port(),
            dir.path().display()
        ),
    )
    .unwrap();
    let out = Command::new(keel_bin())
        .arg("--config-file")
        .arg(&conf)
        .arg("serve")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!out.status.success(), "{text}");
    text
}

#[test]
fn values_keel_cannot_honour_are_refused() {
    let text = refused("backends = octavia_db_check, mystery\n");
    assert!(
        text.contains("[healthcheck] backends") && text.contains("mystery"),
        "{text}"
    );
    let text = refused("backends = disable_by_file, enable_by_files\n");
    assert!(
        text.contains("[healthcheck] backends") && text.contains("same time"),
        "{text}"
    );
    let text = refused("allowed_source_ranges = 10.0.0.1/8\n");
    assert!(
        text.contains("[healthcheck] allowed_source_ranges") && text.contains("host bits"),
        "{text}"
    );
}
