//! Validation on update as on create: each rule a POST enforces on a field holds on PUT for
//! the same field, against the object's stored values (its protocol, its stored CA and HSTS
//! settings), with the reference's texts (octavia/api/v2/controllers/listener.py
//! `_validate_listener_PUT`, pool.py `_validate_pool_PUT`). A refused PUT changes nothing:
//! the object stays ACTIVE with its old values.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use axum::http::StatusCode;
use serde_json::{Value, json};

/// `(listener protocol, field, value, POST fault, PUT fault)`; `None` where POST cannot carry
/// the case (its own rule fires first) or the text is the same.
type Case = (
    &'static str,
    &'static str,
    Value,
    Option<&'static str>,
    &'static str,
);

fn listener_cases() -> Vec<Case> {
    vec![
        (
            "TCP",
            "insert_headers",
            json!({"X-Forwarded-For": "true"}),
            None,
            "insert-headers is not a valid option for a TCP protocol listener.",
        ),
        (
            "HTTP",
            "insert_headers",
            json!({"X-Bogus": "1"}),
            None,
            "['X-Bogus'] is not a valid option for insert_headers",
        ),
        (
            "HTTP",
            "insert_headers",
            json!({"X-SSL-Client-DN": "1"}),
            None,
            "['X-SSL-Client-DN'] is not a valid option for HTTP protocol listener.",
        ),
        (
            "UDP",
            "insert_headers",
            json!({"X-Forwarded-For": "true"}),
            Some("insert-headers is not a valid option for a UDP protocol listener."),
            "Validation failure: UDP protocol listener does not support TLS or header insertion.",
        ),
        (
            "UDP",
            "default_tls_container_ref",
            json!("ref"),
            Some("Validation failure: UDP protocol listener does not support TLS."),
            "Validation failure: UDP protocol listener does not support TLS or header insertion.",
        ),
        (
            "HTTP",
            "default_tls_container_ref",
            json!("ref"),
            None,
            "Validation failure: Certificate container references are not allowed on HTTP protocol listeners.",
        ),
        (
            "HTTP",
            "hsts_max_age",
            json!(10),
            None,
            "Validation failure: The HSTS feature can only be used for listeners using the TERMINATED_HTTPS protocol.",
        ),
        (
            "HTTP",
            "hsts_preload",
            json!(true),
            Some(
                "Validation failure: HSTS configuration options hsts_include_subdomains and hsts_preload only make sense if hsts_max_age is set as well.",
            ),
            "Validation failure: Cannot enable hsts_include_subdomains or hsts_preload if hsts_max_age was not set as well.",
        ),
        (
            "HTTP",
            "tls_versions",
            json!([]),
            None,
            "Validation failure: Empty TLS version list. Either specify at least one TLS version or remove this parameter to use the default.",
        ),
        (
            "HTTP",
            "tls_versions",
            json!(["TLSv9", "TLSv1.2"]),
            None,
            "Validation failure: Invalid TLS versions: TLSv9",
        ),
        (
            "HTTP",
            "alpn_protocols",
            json!([]),
            None,
            "Validation failure: Empty ALPN protocol list. Either specify at least one ALPN protocol or remove this parameter to use the default.",
        ),
        (
            "HTTP",
            "client_authentication",
            json!("MANDATORY"),
            None,
            "Validation failure: Client authentication setting MANDATORY requires a client CA container reference.",
        ),
    ]
}

async fn get(env: &common::Env, path: &str, key: &str) -> Value {
    let (s, b) = env.req("GET", path, None).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    b[key].clone()
}

#[tokio::test]
async fn listener_put_keeps_the_create_rules() {
    each_backend!(common::Setup::noauth(), |env| {
        let lb = env.active_lb("lb").await;
        let mut listeners = std::collections::BTreeMap::new();
        for (n, proto) in ["TCP", "HTTP", "UDP"].iter().enumerate() {
            let id = env
                .create(
                    "/v2/lbaas/listeners",
                    "listener",
                    json!({"loadbalancer_id": lb, "protocol": proto, "protocol_port": 80 + n}),
                )
                .await;
            env.set_active(&[("load_balancer", &lb), ("listener", &id)])
                .await;
            listeners.insert(*proto, id);
        }
        for (proto, field, value, post_fault, put_fault) in listener_cases() {
            // the rule on create
            let (s, b) = env
                .req(
                    "POST",
                    "/v2/lbaas/listeners",
                    Some(
                        json!({"listener": {"loadbalancer_id": lb, "protocol": proto,
                        "protocol_port": 90, field: value}}),
                    ),
                )
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "POST {proto} {field}: {b}");
            assert_eq!(
                b["faultstring"],
                post_fault.unwrap_or(put_fault),
                "POST {proto} {field}"
            );
            // the same rule on update, against the stored protocol
            let id = &listeners[proto];
            let path = format!("/v2/lbaas/listeners/{id}");
            let before = get(&env, &path, "listener").await;
            let (s, b) = env
                .req("PUT", &path, Some(json!({"listener": { field: value }})))
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "PUT {proto} {field}: {b}");
            assert_eq!(b["faultstring"], put_fault, "PUT {proto} {field}");
            let after = get(&env, &path, "listener").await;
            assert_eq!(before, after, "PUT {proto} {field} changed the listener");
            assert_eq!(after["provisioning_status"], "ACTIVE");
        }
        // what the rules allow is stored; a null list goes back to the default
        let http = &listeners["HTTP"];
        let path = format!("/v2/lbaas/listeners/{http}");
        let (s, b) = env
            .req(
                "PUT",
                &path,
                Some(
                    json!({"listener": {"insert_headers": {"X-Forwarded-For": "true"},
                    "tls_versions": ["TLSv1.3"], "alpn_protocols": ["h2"]}}),
                ),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{b}");
        env.set_active(&[("load_balancer", &lb), ("listener", http)])
            .await;
        let l = get(&env, &path, "listener").await;
        assert_eq!(l["insert_headers"], json!({"X-Forwarded-For": "true"}));
        assert_eq!(l["tls_versions"], json!(["TLSv1.3"]));
        assert_eq!(l["alpn_protocols"], json!(["h2"]));
        let (s, b) = env
            .req(
                "PUT",
                &path,
                Some(json!({"listener": {"tls_versions": null, "alpn_protocols": null}})),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{b}");
        let l = get(&env, &path, "listener").await;
        assert_eq!(l["tls_versions"], json!(["TLSv1.2", "TLSv1.3"]));
        assert_eq!(l["alpn_protocols"], json!(["h2", "http/1.1", "http/1.0"]));
    });
}

#[tokio::test]
async fn pool_put_keeps_the_create_rules() {
    each_backend!(common::Setup::noauth(), |env| {
        let (lb, _, tcp) = env.lb_listener_pool("TCP").await;
        let udp = env
            .create(
                "/v2/lbaas/pools",
                "pool",
                json!({"loadbalancer_id": lb, "protocol": "UDP", "lb_algorithm": "ROUND_ROBIN"}),
            )
            .await;
        env.set_active(&[("load_balancer", &lb), ("pool", &udp)])
            .await;
        let cases: Vec<(&str, &str, Value, &str)> = vec![
            (
                "UDP",
                "session_persistence",
                json!({"type": "HTTP_COOKIE"}),
                "Validation failure: Session persistence of type HTTP_COOKIE is not supported for UDP/SCTP protocol pools.",
            ),
            (
                "TCP",
                "session_persistence",
                json!({"type": "HTTP_COOKIE", "cookie_name": "c"}),
                "Validation failure: Field \"cookie_name\" can only be specified with session persistence of type \"APP_COOKIE\".",
            ),
            (
                "TCP",
                "tls_versions",
                json!(["TLSv9"]),
                "Validation failure: Invalid TLS versions: TLSv9",
            ),
            (
                "TCP",
                "alpn_protocols",
                json!([]),
                "Validation failure: Empty ALPN protocol list. Either specify at least one ALPN protocol or remove this parameter to use the default.",
            ),
        ];
        for (proto, field, value, fault) in cases {
            // on create (TLS lists are checked when TLS is enabled, as pool.py)
            let (s, b) = env
                .req(
                    "POST",
                    "/v2/lbaas/pools",
                    Some(json!({"pool": {"loadbalancer_id": lb, "protocol": proto,
                        "lb_algorithm": "ROUND_ROBIN", "tls_enabled": true, field: value}})),
                )
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "POST {proto} {field}: {b}");
            assert_eq!(b["faultstring"], fault, "POST {proto} {field}");
            let id = if proto == "UDP" { &udp } else { &tcp };
            let path = format!("/v2/lbaas/pools/{id}");
            let before = get(&env, &path, "pool").await;
            let (s, b) = env
                .req("PUT", &path, Some(json!({"pool": { field: value }})))
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "PUT {proto} {field}: {b}");
            assert_eq!(b["faultstring"], fault, "PUT {proto} {field}");
            assert_eq!(before, get(&env, &path, "pool").await);
        }
        // null: tls_versions and tls_ciphers back to their defaults, alpn_protocols cleared
        // (pool.py `put` resets only the first two)
        let path = format!("/v2/lbaas/pools/{tcp}");
        let (s, b) = env
            .req(
                "PUT",
                &path,
                Some(
                    json!({"pool": {"tls_versions": ["TLSv1.3"], "alpn_protocols": ["h2"],
                    "tls_ciphers": "ECDHE-RSA-AES128-GCM-SHA256"}}),
                ),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{b}");
        env.set_active(&[("load_balancer", &lb), ("pool", &tcp)])
            .await;
        let p = get(&env, &path, "pool").await;
        assert_eq!(
            (&p["tls_versions"], &p["alpn_protocols"]),
            (&json!(["TLSv1.3"]), &json!(["h2"]))
        );
        let (s, b) = env
            .req(
                "PUT",
                &path,
                Some(
                    json!({"pool": {"tls_versions": null, "alpn_protocols": null,
                    "tls_ciphers": null}}),
                ),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{b}");
        let p = get(&env, &path, "pool").await;
        assert_eq!(p["tls_versions"], json!(["TLSv1.2", "TLSv1.3"]));
        assert_eq!(p["tls_ciphers"], api::pool::DEFAULT_POOL_CIPHERS);
        assert_eq!(p["alpn_protocols"], Value::Null);
    });
}
