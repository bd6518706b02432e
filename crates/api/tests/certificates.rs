//! TLS certificate references on listeners and pools: read through the `CertManager` seam
//! (a fake here; keel's Barbican adapter is tested end to end in crates/keel/tests) after the
//! LB lock and before the provider, with Octavia's 400 texts (seed 003 §5, seed 004 §5).
//! Runs on SQLite and MariaDB.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use std::sync::Arc;

use api::certificates::{CertError, CertManager, TlsCertificate};
use async_trait::async_trait;
use axum::http::StatusCode;
use serde_json::json;

const CA_PEM: &str = "-----BEGIN CERTIFICATE-----\nMAcwADAAAwEA\n-----END CERTIFICATE-----\n";
const CRL_PEM: &str = "-----BEGIN X509 CRL-----\nMAcwADAAAwEA\n-----END X509 CRL-----\n";

/// Refs starting with `good` are readable (`good-ca`/`good-crl` as PEM secrets), `p12` is an
/// unreadable bundle, `junk` a secret that is no PEM, the rest unreadable. Every read is
/// logged into the fake provider's call list, so the order against the driver is visible.
struct FakeCerts(Arc<common::driver::Recorder>);

impl FakeCerts {
    fn log(&self, what: String) {
        self.0.note(what);
    }
}

#[async_trait]
impl CertManager for FakeCerts {
    async fn get_cert(
        &self,
        _token: Option<&str>,
        cert_ref: &str,
    ) -> Result<TlsCertificate, CertError> {
        self.log(format!("get_cert {cert_ref}"));
        if cert_ref.starts_with("good") {
            Ok(TlsCertificate::default())
        } else if cert_ref == "p12" {
            Err(CertError::UnreadablePkcs12(
                "Could not deserialize PKCS12 data".into(),
            ))
        } else {
            Err(CertError::Retrieval("404".into()))
        }
    }
    async fn get_secret(
        &self,
        _token: Option<&str>,
        secret_ref: &str,
    ) -> Result<Vec<u8>, CertError> {
        self.log(format!("get_secret {secret_ref}"));
        match secret_ref {
            "good-ca" => Ok(CA_PEM.as_bytes().to_vec()),
            "good-crl" => Ok(CRL_PEM.as_bytes().to_vec()),
            "junk" => Ok(b"not a pem".to_vec()),
            _ => Err(CertError::Retrieval("404".into())),
        }
    }
}

/// The harness's router again, with (or without) the fake cert manager logging into the
/// `fake` provider's calls.
fn with_certs(env: &mut common::Env, certs: bool) {
    let mut state = env.state.clone();
    if certs {
        state = state.with_cert_manager(Arc::new(FakeCerts(env.provider_arc("fake"))));
    }
    env.router = api::router(state);
}

fn tls_listener(lb: &str, extra: serde_json::Value) -> serde_json::Value {
    let mut l =
        json!({"loadbalancer_id": lb, "protocol": "TERMINATED_HTTPS", "protocol_port": 443});
    for (k, v) in extra.as_object().unwrap() {
        l[k] = v.clone();
    }
    json!({ "listener": l })
}

#[tokio::test]
async fn listener_refs_read_before_the_provider() {
    for mysql in common::db::backends() {
        let mut env = common::Env::new(mysql, common::Setup::noauth()).await;
        with_certs(&mut env, true);
        let lb = env.active_lb("lb").await;
        env.provider("fake").clear();

        // One unreadable ref among SNI + default: 400 naming it, nothing written, LB ACTIVE.
        let body = tls_listener(
            &lb,
            json!({"default_tls_container_ref": "missing-1", "sni_container_refs": ["good-a", "missing-2"]}),
        );
        let (s, b) = env.req("POST", "/v2/lbaas/listeners", Some(body)).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{b}");
        assert_eq!(
            b["faultstring"],
            "Could not retrieve certificate: ['missing-2', 'missing-1']"
        );
        assert_eq!(
            env.provider("fake").names(),
            [
                "get_cert good-a",
                "get_cert missing-2",
                "get_cert missing-1"
            ]
        );
        assert_eq!(env.count("listener").await, 0);
        assert_eq!(env.count("sni").await, 0);
        assert_eq!(env.status_of("load_balancer", &lb).await, "ACTIVE");

        // PKCS12 unreadable: its own text, at once.
        env.provider("fake").clear();
        let body = tls_listener(
            &lb,
            json!({"default_tls_container_ref": "missing", "sni_container_refs": ["p12"]}),
        );
        let (s, b) = env.req("POST", "/v2/lbaas/listeners", Some(body)).await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            b["faultstring"],
            "The PKCS12 bundle is unreadable. Please check the PKCS12 bundle validity. In addition, make sure it does not require a pass phrase. Error: Could not deserialize PKCS12 data"
        );
        assert_eq!(env.provider("fake").names(), ["get_cert p12"]);

        // Client CA that is no PEM certificate.
        let body = tls_listener(
            &lb,
            json!({"default_tls_container_ref": "good", "client_ca_tls_container_ref": "junk"}),
        );
        let (s, b) = env.req("POST", "/v2/lbaas/listeners", Some(body)).await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            b["faultstring"],
            "Validation failure: The client authentication CA certificate is invalid. It must be a valid x509 PEM format certificate. Error: Unable to load PEM file. See https://cryptography.io/en/latest/faq/#why-can-t-i-import-my-pem-file for more details. MalformedFraming"
        );

        // CA and CRL both unreadable: both named.
        let body = tls_listener(
            &lb,
            json!({"default_tls_container_ref": "good", "client_ca_tls_container_ref": "no-ca", "client_crl_container_ref": "no-crl"}),
        );
        let (s, b) = env.req("POST", "/v2/lbaas/listeners", Some(body)).await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            b["faultstring"],
            "Could not retrieve certificate: ['no-ca', 'no-crl']"
        );
        assert_eq!(env.count("listener").await, 0);

        // Everything readable: the certificates are read, then the provider is asked.
        env.provider("fake").clear();
        let body = tls_listener(
            &lb,
            json!({"default_tls_container_ref": "good", "client_ca_tls_container_ref": "good-ca", "client_crl_container_ref": "good-crl"}),
        );
        let (s, b) = env.req("POST", "/v2/lbaas/listeners", Some(body)).await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        assert_eq!(
            env.provider("fake").names(),
            [
                "get_cert good",
                "get_secret good-ca",
                "get_secret good-crl",
                "listener_create"
            ]
        );
        let lid = b["listener"]["id"].as_str().unwrap().to_string();
        env.set_status("load_balancer", &lb, "ACTIVE").await;
        env.set_status("listener", &lid, "ACTIVE").await;

        // PUT: a new unreadable default ref → 400, nothing changed, no provider call; the
        // stored CA/CRL are read again (listener.py `_validate_listener_PUT`).
        env.provider("fake").clear();
        let (s, b) = env
            .req(
                "PUT",
                &format!("/v2/lbaas/listeners/{lid}"),
                Some(json!({"listener": {"default_tls_container_ref": "gone"}})),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(b["faultstring"], "Could not retrieve certificate: ['gone']");
        assert_eq!(env.provider("fake").names(), ["get_cert gone"]);
        assert_eq!(env.status_of("listener", &lid).await, "ACTIVE");
        assert_eq!(env.status_of("load_balancer", &lb).await, "ACTIVE");
        env.provider("fake").clear();
        let (s, b) = env
            .req(
                "PUT",
                &format!("/v2/lbaas/listeners/{lid}"),
                Some(json!({"listener": {"name": "renamed"}})),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{b}");
        assert_eq!(
            env.provider("fake").names(),
            [
                "get_secret good-ca",
                "get_secret good-crl",
                "listener_update"
            ]
        );
        env.done().await;
    }
}

#[tokio::test]
async fn without_a_cert_manager_every_ref_is_unreadable() {
    let mut env = common::Env::new(false, common::Setup::noauth()).await;
    with_certs(&mut env, false);
    let lb = env.active_lb("lb").await;
    let body = tls_listener(
        &lb,
        json!({"default_tls_container_ref": "http://b/v1/secrets/x"}),
    );
    let (s, b) = env.req("POST", "/v2/lbaas/listeners", Some(body)).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert_eq!(
        b["faultstring"],
        "Could not retrieve certificate: ['http://b/v1/secrets/x']"
    );
    // A listener without refs never asks.
    let (s, b) = env
        .req(
            "POST",
            "/v2/lbaas/listeners",
            Some(json!({"listener": {"loadbalancer_id": lb, "protocol": "HTTP", "protocol_port": 80}})),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    env.done().await;
}

#[tokio::test]
async fn pool_refs_read_before_the_provider() {
    for mysql in common::db::backends() {
        let mut env = common::Env::new(mysql, common::Setup::noauth()).await;
        with_certs(&mut env, true);
        let lb = env.active_lb("lb").await;
        env.provider("fake").clear();
        let pool = |extra: serde_json::Value| {
            let mut p = json!({"loadbalancer_id": lb, "protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN", "tls_enabled": true});
            for (k, v) in extra.as_object().unwrap() {
                p[k] = v.clone();
            }
            json!({ "pool": p })
        };
        let (s, b) = env
            .req(
                "POST",
                "/v2/lbaas/pools",
                Some(pool(json!({"tls_container_ref": "nope"}))),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(b["faultstring"], "Could not retrieve certificate: ['nope']");
        let (s, b) = env
            .req(
                "POST",
                "/v2/lbaas/pools",
                Some(pool(
                    json!({"tls_container_ref": "good", "ca_tls_container_ref": "no-ca"}),
                )),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            b["faultstring"],
            "Could not retrieve certificate: ['no-ca']"
        );
        let (s, b) = env
            .req(
                "POST",
                "/v2/lbaas/pools",
                Some(pool(
                    json!({"ca_tls_container_ref": "good-ca", "crl_container_ref": "junk"}),
                )),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            b["faultstring"],
            "Validation failure: The client authentication certificate revocation list is invalid. It must be a valid x509 PEM format certificate revocation list. Error: Unable to load PEM file. See https://cryptography.io/en/latest/faq/#why-can-t-i-import-my-pem-file for more details. MalformedFraming"
        );
        assert_eq!(env.count("pool").await, 0);
        assert_eq!(env.status_of("load_balancer", &lb).await, "ACTIVE");
        assert!(
            !env.provider("fake")
                .names()
                .iter()
                .any(|c| c == "pool_create")
        );

        env.provider("fake").clear();
        let (s, b) = env
            .req(
                "POST",
                "/v2/lbaas/pools",
                Some(pool(
                    json!({"tls_container_ref": "good", "ca_tls_container_ref": "good-ca"}),
                )),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        assert_eq!(
            env.provider("fake").names(),
            ["get_cert good", "get_secret good-ca", "pool_create"]
        );
        let pid = b["pool"]["id"].as_str().unwrap().to_string();
        env.set_status("load_balancer", &lb, "ACTIVE").await;
        env.set_status("pool", &pid, "ACTIVE").await;

        env.provider("fake").clear();
        let (s, b) = env
            .req(
                "PUT",
                &format!("/v2/lbaas/pools/{pid}"),
                Some(json!({"pool": {"tls_container_ref": "gone"}})),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(b["faultstring"], "Could not retrieve certificate: ['gone']");
        assert_eq!(env.provider("fake").names(), ["get_cert gone"]);
        assert_eq!(env.status_of("pool", &pid).await, "ACTIVE");
        // The stored CA is read again on any PUT (pool.py `_validate_pool_PUT`).
        env.provider("fake").clear();
        let (s, b) = env
            .req(
                "PUT",
                &format!("/v2/lbaas/pools/{pid}"),
                Some(json!({"pool": {"name": "p"}})),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{b}");
        assert_eq!(
            env.provider("fake").names(),
            ["get_secret good-ca", "pool_update"]
        );
        env.done().await;
    }
}
