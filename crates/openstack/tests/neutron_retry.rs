//! NeutronClient's re-auth and error mapping against a scripted local responder standing in
//! for Neutron (tokens come from the stack's real Keystone).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use openstack::{NeutronClient, NeutronConfig, NeutronError};

const SUBNET: &str = r#"{"subnet": {"id": "s1", "network_id": "n1", "project_id": "p", "cidr": "10.0.0.0/24", "ip_version": 4, "gateway_ip": "10.0.0.1"}}"#;
const UNAUTH: &str = r#"{"error": {"code": 401, "title": "Unauthorized", "message": "The request you have made requires authentication."}}"#;

fn token_of(head: &str) -> String {
    head.lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("x-auth-token")
                .then(|| v.trim().to_string())
        })
        .unwrap()
}

fn client(url: &str) -> NeutronClient {
    NeutronClient::new(
        common::service(common::http()),
        NeutronConfig {
            endpoint_override: Some(url.to_string()),
            ..NeutronConfig::default()
        },
    )
}

#[tokio::test]
async fn service_token_refused_once_is_reissued_and_retried() {
    let (url, seen) =
        common::scripted_server(vec![("401 Unauthorized", UNAUTH), ("200 OK", SUBNET)]).await;
    let subnet = client(&url).get_subnet("s1").await.unwrap();
    assert_eq!(subnet.cidr, "10.0.0.0/24");
    let heads = seen.await.unwrap();
    assert_eq!(heads.len(), 2);
    assert!(
        heads[0].starts_with("GET /v2.0/subnets/s1 "),
        "{}",
        heads[0]
    );
    assert_ne!(
        token_of(&heads[0]),
        token_of(&heads[1]),
        "a new service token on the retry"
    );
}

#[tokio::test]
async fn service_token_refused_twice_is_unauthorized() {
    let (url, seen) = common::scripted_server(vec![
        ("401 Unauthorized", UNAUTH),
        ("401 Unauthorized", UNAUTH),
    ])
    .await;
    match client(&url).get_subnet("s1").await {
        Err(NeutronError::Unauthorized { status: 401, fault }) => {
            assert_eq!(fault.error_type, "Unauthorized")
        }
        other => panic!("expected Unauthorized, got {other:?}"),
    }
    assert_eq!(seen.await.unwrap().len(), 2);
}

#[tokio::test]
async fn user_token_is_sent_as_is_and_not_retried() {
    let (url, seen) = common::scripted_server(vec![("401 Unauthorized", UNAUTH)]).await;
    let r = client(&url)
        .with_user_token("user-tok")
        .get_subnet("s1")
        .await;
    assert!(
        matches!(r, Err(NeutronError::Unauthorized { status: 401, .. })),
        "{r:?}"
    );
    let heads = seen.await.unwrap();
    assert_eq!(heads.len(), 1);
    assert_eq!(token_of(&heads[0]), "user-tok");
}

#[tokio::test]
async fn server_errors_and_bad_bodies_are_typed() {
    let (url, _seen) = common::scripted_server(vec![
        ("500 Internal Server Error", r#"{"NeutronError": {"type": "HTTPInternalServerError", "message": "Request Failed: internal server error while processing your request.", "detail": ""}}"#),
        ("200 OK", r#"{"subnet": {"id": 5}}"#),
    ])
    .await;
    let c = client(&url);
    match c.get_subnet("s1").await {
        Err(NeutronError::Other { status: 500, fault }) => {
            assert_eq!(fault.error_type, "HTTPInternalServerError")
        }
        other => panic!("expected Other 500, got {other:?}"),
    }
    match c.get_subnet("s1").await {
        Err(e @ NeutronError::Json { .. }) => {
            // serde's error is kept as the cause, not only as text
            assert!(std::error::Error::source(&e).is_some(), "{e}");
            assert!(
                e.to_string()
                    .starts_with("unexpected neutron response: subnet: "),
                "{e}"
            );
        }
        other => panic!("expected Json, got {other:?}"),
    }
}

/// `get_subnet_recent`: the same credential within `max_age` is answered from memory; another
/// user's token, or an expired entry, goes to Neutron. Exactly 3 requests reach the responder
/// (it would fail the 4th connection: none is scripted).
#[tokio::test]
async fn recent_subnet_reads_are_per_credential_and_bounded_in_age() {
    let (url, seen) = common::scripted_server(vec![
        ("200 OK", SUBNET),
        ("200 OK", SUBNET),
        ("200 OK", SUBNET),
    ])
    .await;
    let c = client(&url);
    let minute = std::time::Duration::from_secs(60);
    let alice = c.with_user_token("token-alice");
    let bob = c.with_user_token("token-bob");
    assert_eq!(
        alice
            .get_subnet_recent("s1", minute)
            .await
            .unwrap()
            .network_id,
        "n1"
    );
    assert_eq!(
        alice.get_subnet_recent("s1", minute).await.unwrap().cidr,
        "10.0.0.0/24"
    );
    bob.get_subnet_recent("s1", minute).await.unwrap();
    alice
        .get_subnet_recent("s1", std::time::Duration::ZERO)
        .await
        .unwrap();
    let heads = seen.await.unwrap();
    let tokens: Vec<String> = heads.iter().map(|h| token_of(h)).collect();
    assert_eq!(tokens, ["token-alice", "token-bob", "token-alice"]);
}
