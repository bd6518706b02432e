//! BarbicanClient against a one-shot local HTTP responder (the stack has no Barbican): checks
//! the request it sends and how it maps the answers.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use openstack::{BarbicanClient, BarbicanError, HttpConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// Serves one request with `status` and `body`; returns the base URL and the request head.
async fn one_shot(
    status: &'static str,
    body: &'static [u8],
) -> (String, tokio::task::JoinHandle<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        let (mut sock, _) = listener.accept().await.unwrap();
        let mut buf = Vec::new();
        let mut chunk = [0u8; 1024];
        while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = sock.read(&mut chunk).await.unwrap();
            if n == 0 {
                break;
            }
            buf.extend_from_slice(&chunk[..n]);
        }
        let head = format!(
            "HTTP/1.1 {status}\r\nContent-Length: {}\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n",
            body.len()
        );
        sock.write_all(head.as_bytes()).await.unwrap();
        sock.write_all(body).await.unwrap();
        sock.shutdown().await.unwrap();
        String::from_utf8_lossy(&buf).to_string()
    });
    (url, task)
}

#[tokio::test]
async fn payload_is_read_with_the_user_token() {
    let (url, req) = one_shot("200 OK", b"-----BEGIN CERTIFICATE-----\n").await;
    let client = BarbicanClient::new(HttpConfig::default().build_client().unwrap());
    let secret_ref = format!("{url}/v1/secrets/0b4b5a0e-0000-4000-8000-000000000001");
    let payload = client
        .get_secret_payload("user-tok", &secret_ref)
        .await
        .unwrap();
    assert_eq!(payload, b"-----BEGIN CERTIFICATE-----\n");
    let head = req.await.unwrap().to_ascii_lowercase();
    assert!(
        head.starts_with("get /v1/secrets/0b4b5a0e-0000-4000-8000-000000000001/payload http/1.1"),
        "{head}"
    );
    assert!(head.contains("x-auth-token: user-tok"), "{head}");
    assert!(head.contains("accept: application/octet-stream"), "{head}");
}

#[tokio::test]
async fn missing_and_forbidden_secrets_are_typed() {
    let client = BarbicanClient::new(HttpConfig::default().build_client().unwrap());
    let (url, _req) = one_shot("404 Not Found", b"{}").await;
    assert!(matches!(
        client
            .get_secret_payload("t", &format!("{url}/v1/secrets/x"))
            .await,
        Err(BarbicanError::NotFound)
    ));
    let (url, _req) = one_shot("403 Forbidden", b"{}").await;
    assert!(matches!(
        client
            .get_secret_payload("t", &format!("{url}/v1/secrets/x"))
            .await,
        Err(BarbicanError::Unauthorized(403))
    ));
    let (url, _req) = one_shot("500 Internal Server Error", b"boom").await;
    match client
        .get_secret_payload("t", &format!("{url}/v1/secrets/x"))
        .await
    {
        Err(BarbicanError::Status {
            status: 500,
            message,
        }) => assert_eq!(message, "boom"),
        other => panic!("expected Status 500, got {other:?}"),
    }
}
