//! The API behind a TLS-terminating proxy: `[oslo_middleware] enable_proxy_headers_parsing`
//! as oslo.middleware's `HTTPProxyToWSGI`. A real haproxy (`ci/stack/tls.sh`, private CA) in
//! front of `keel serve`: through it (curl over HTTPS with the CA) the version document's
//! links and a paginated list's `next` link are `https://` on the proxy's address. Then the
//! headers one at a time, sent straight to Keel: `X-Forwarded-Proto` / `X-Forwarded-Host` /
//! `X-Forwarded-Prefix`, an RFC 7239 `Forwarded` header (its first element; it wins over
//! `X-Forwarded-*`). With the option off (the default) every such header is ignored, and
//! `[api_settings] api_base_uri` sets the base of pagination links but not of the version
//! document (as `octavia/api/root_controller.py`).
//!
//! Runs `keel serve` (in ci/test.sh's serial set); needs Keystone (`ci/stack/env.sh`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Command;

use common::tls::Terminator;
use common::{Backend, Keel, admin_token};
use serde_json::{Value, json};

/// `curl` GET `url` with `headers` (and `--cacert ca` for https); the JSON body.
fn get(url: &str, headers: &[(&str, &str)], token: Option<&str>, ca: Option<&str>) -> Value {
    let mut cmd = Command::new("curl");
    cmd.args(["-sS", "-f"]);
    if let Some(ca) = ca {
        cmd.args(["--cacert", ca]);
    }
    for (k, v) in headers {
        cmd.arg("-H").arg(format!("{k}: {v}"));
    }
    if let Some(t) = token {
        cmd.arg("-H").arg(format!("X-Auth-Token: {t}"));
    }
    let out = cmd.arg(url).output().unwrap();
    assert!(
        out.status.success(),
        "curl {url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Every version link of a version document (there are 31, one per version).
fn version_links(doc: &Value) -> Vec<String> {
    doc["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["links"][0]["href"].as_str().unwrap().to_string())
        .collect()
}

/// Asserts that every version link is `want`.
fn assert_links(doc: &Value, want: &str) {
    let links = version_links(doc);
    assert!(links.len() > 30, "{doc}");
    assert!(links.iter().all(|l| l == want), "want {want}: {links:?}");
}

/// Two projects with explicit quotas, so `GET /v2/lbaas/quotas?limit=1` has a `next` link.
fn two_quotas(keel: &Keel, t: &str) {
    for _ in 0..2 {
        let project = uuid::Uuid::new_v4().simple().to_string();
        let (code, body) = keel.api(
            "PUT",
            &format!("/v2/lbaas/quotas/{project}"),
            t,
            Some(&json!({"quota": {"load_balancer": 5}})),
        );
        assert_eq!(code, 202, "{body}");
    }
}

/// The `next` link of the first quota page as fetched from `base` with `headers`.
fn next_link(base: &str, headers: &[(&str, &str)], t: &str, ca: Option<&str>) -> String {
    let page = get(
        &format!("{base}/v2/lbaas/quotas?limit=1"),
        headers,
        Some(t),
        ca,
    );
    let links = page["quotas_links"].as_array().cloned().unwrap_or_default();
    links
        .iter()
        .find(|l| l["rel"] == "next")
        .and_then(|l| l["href"].as_str())
        .unwrap_or_else(|| panic!("no next link: {page}"))
        .to_string()
}

#[test]
fn links_follow_the_proxy_headers_when_enabled() {
    let keel = Keel::start_extra(
        Backend::Sqlite,
        "[oslo_middleware]\nenable_proxy_headers_parsing = True\n",
    );
    let t = admin_token();
    two_quotas(&keel, &t);

    // Through haproxy (TLS terminated there, `X-Forwarded-Proto: https` added, Host kept).
    let tls = Terminator::up(Some(
        keel.url().rsplit(':').next().unwrap().parse().unwrap(),
    ));
    let https = tls.var("STACK_LB_HTTPS_URL");
    let ca = Some(tls.var("STACK_TLS_CA"));
    assert_links(
        &get(&format!("{https}/"), &[], None, ca),
        &format!("{https}/v2"),
    );
    let next = next_link(https, &[], &t, ca);
    assert!(
        next.starts_with(&format!("{https}/v2/lbaas/quotas?limit=1&marker=")),
        "{next}"
    );

    // The headers one by one, straight to Keel.
    let direct = keel.url();
    let xf = [
        ("X-Forwarded-Proto", "https"),
        ("X-Forwarded-Host", "lb.example.com:443"),
        ("X-Forwarded-Prefix", "/load-balancer"),
    ];
    assert_links(
        &get(&format!("{direct}/"), &xf, None, None),
        "https://lb.example.com/load-balancer/v2",
    );
    let next = next_link(&direct, &xf, &t, None);
    assert!(
        next.starts_with("https://lb.example.com/load-balancer/v2/lbaas/quotas?limit=1&marker="),
        "{next}"
    );
    let fwd = [
        ("X-Forwarded-Host", "ignored.example.com"),
        (
            "Forwarded",
            "for=192.0.2.60;proto=https;host=\"api.example.org:8443\", for=10.0.0.1;proto=http",
        ),
    ];
    assert_links(
        &get(&format!("{direct}/"), &fwd, None, None),
        "https://api.example.org:8443/v2",
    );
    // Only the scheme: the request's own Host stays.
    assert_links(
        &get(
            &format!("{direct}/"),
            &[("X-Forwarded-Proto", "https")],
            None,
            None,
        ),
        &format!("{}/v2", direct.replace("http://", "https://")),
    );
}

#[test]
fn proxy_headers_ignored_by_default_and_api_base_uri_for_pagination_only() {
    let keel = Keel::start_extra(
        Backend::Sqlite,
        "[api_settings]\napi_base_uri = https://public.example.net:9876/\n",
    );
    let t = admin_token();
    two_quotas(&keel, &t);
    let direct = keel.url();
    let headers = [
        ("X-Forwarded-Proto", "https"),
        ("X-Forwarded-Host", "lb.example.com"),
        ("Forwarded", "proto=https;host=api.example.org"),
        ("X-Forwarded-Prefix", "/load-balancer"),
    ];
    assert_links(
        &get(&format!("{direct}/"), &headers, None, None),
        &format!("{direct}/v2"),
    );
    let next = next_link(&direct, &headers, &t, None);
    assert!(
        next.starts_with("https://public.example.net:9876/v2/lbaas/quotas?limit=1&marker="),
        "{next}"
    );
}
