//! BarbicanClient against the stack's real Barbican (key-manager in the catalog,
//! STACK_KEYSTONE_URL): demo stores secrets and a certificate container, reads them back with
//! its token; unknown/foreign/malformed references fail typed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use openstack::{BarbicanClient, BarbicanConfig, BarbicanError};

fn client() -> BarbicanClient {
    let http = common::http();
    BarbicanClient::new(
        http.clone(),
        Some(common::service(http)),
        BarbicanConfig::default(),
    )
}

#[tokio::test]
async fn secrets_and_containers_with_the_user_token() {
    let bc = client();
    let root = bc.root().await.unwrap().to_string();
    assert!(root.ends_with("/v1"), "{root}");
    let (demo, _) = common::demo_token(common::http()).await;
    let tok = Some(demo.as_str());
    let name = common::unique("keel-barbican");

    let cert = bc
        .store_secret(
            tok,
            &format!("{name}-cert"),
            b"-----BEGIN CERTIFICATE-----\nMAcwADAAAwEA\n-----END CERTIFICATE-----\n",
            "text/plain",
            "certificate",
        )
        .await
        .unwrap();
    let blob: Vec<u8> = (0u8..=255).collect();
    let bin = bc
        .store_secret(
            tok,
            &format!("{name}-bin"),
            &blob,
            "application/octet-stream",
            "opaque",
        )
        .await
        .unwrap();
    assert!(cert.starts_with(&root), "{cert} under {root}");

    // Payloads come back as stored, each with its own content type (Barbican trims the
    // trailing whitespace of text payloads).
    let meta = bc.get_secret_meta(tok, &cert).await.unwrap();
    assert_eq!(meta.secret_ref, cert);
    assert_eq!(meta.secret_type.as_deref(), Some("certificate"));
    let pem = b"-----BEGIN CERTIFICATE-----\nMAcwADAAAwEA\n-----END CERTIFICATE-----";
    assert_eq!(bc.get_secret_payload(tok, &cert).await.unwrap(), pem);
    assert_eq!(bc.get_secret_payload(tok, &bin).await.unwrap(), blob);
    // Only the UUID at the end counts (barbicanclient): a foreign host still reads it.
    let uuid = cert.rsplit('/').next().unwrap();
    assert_eq!(
        bc.get_secret_payload(tok, &format!("https://elsewhere.invalid/v1/secrets/{uuid}"))
            .await
            .unwrap(),
        pem
    );

    let container = bc
        .create_certificate_container(
            tok,
            &name,
            &[
                ("certificate", cert.as_str()),
                ("private_key", bin.as_str()),
            ],
        )
        .await
        .unwrap();
    let c = bc.get_container(tok, &container).await.unwrap();
    assert_eq!(c.container_ref, container);
    assert_eq!(c.container_type, "certificate");
    assert_eq!(c.secret("certificate"), Some(cert.as_str()));
    assert_eq!(c.secret("private_key"), Some(bin.as_str()));
    assert_eq!(c.secret("intermediates"), None);
    // A container is no secret, a secret no container.
    assert!(
        bc.get_secret_payload(tok, &container)
            .await
            .unwrap_err()
            .is_not_found()
    );
    assert!(
        bc.get_container(tok, &cert)
            .await
            .unwrap_err()
            .is_not_found()
    );

    // Another project's token cannot read them; nor can a request without a token.
    let demo2 = common::session(common::http(), "demo2", "demo2-pass", "demo2")
        .token()
        .await
        .unwrap();
    let err = bc
        .get_secret_payload(Some(demo2.id()), &cert)
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            BarbicanError::NotFound | BarbicanError::Unauthorized(403)
        ),
        "{err:?}"
    );
    assert!(matches!(
        bc.get_secret_payload(None, &cert).await.unwrap_err(),
        BarbicanError::Unauthorized(401)
    ));

    // Octavia's set_acls: the service user is added to the read ACL once, by the owner.
    let octavia = bc.service_user_id().await.unwrap();
    assert!(bc.read_acl_users(tok, &cert).await.unwrap().is_empty());
    assert!(bc.ensure_read_acl(tok, &cert, &octavia).await.unwrap());
    assert!(!bc.ensure_read_acl(tok, &cert, &octavia).await.unwrap());
    assert_eq!(
        bc.read_acl_users(tok, &cert).await.unwrap(),
        std::slice::from_ref(&octavia)
    );
    assert!(bc.ensure_read_acl(tok, &container, &octavia).await.unwrap());
    assert_eq!(
        bc.read_acl_users(tok, &container).await.unwrap(),
        std::slice::from_ref(&octavia)
    );
    assert!(
        bc.ensure_read_acl(Some(demo2.id()), &bin, &octavia)
            .await
            .is_err()
    );

    bc.delete_container(tok, &container).await.unwrap();
    bc.delete_secret(tok, &cert).await.unwrap();
    bc.delete_secret(tok, &bin).await.unwrap();
    assert!(
        bc.get_secret_meta(tok, &cert)
            .await
            .unwrap_err()
            .is_not_found()
    );
}

#[tokio::test]
async fn unknown_and_malformed_refs_are_typed() {
    let bc = client();
    let (demo, _) = common::demo_token(common::http()).await;
    let tok = Some(demo.as_str());
    let root = bc.root().await.unwrap().to_string();
    let missing = format!("{root}/secrets/{}", "0b4b5a0e-0000-4000-8000-000000000001");
    assert!(matches!(
        bc.get_secret_payload(tok, &missing).await,
        Err(BarbicanError::NotFound)
    ));
    let missing = format!(
        "{root}/containers/{}",
        "0b4b5a0e-0000-4000-8000-000000000001"
    );
    assert!(matches!(
        bc.get_container(tok, &missing).await,
        Err(BarbicanError::NotFound)
    ));
    let err = bc
        .get_secret_payload(tok, &format!("{root}/secrets/not-a-uuid"))
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "Secret incorrectly specified.");

    // No endpoint configured and no catalog: every call says so.
    let none = BarbicanClient::new(common::http(), None, BarbicanConfig::default());
    assert!(matches!(
        none.get_secret_payload(tok, &missing).await,
        Err(BarbicanError::NoEndpoint(_))
    ));
    // A fixed endpoint (with or without /v1) is used as is.
    let fixed = BarbicanClient::new(
        common::http(),
        None,
        BarbicanConfig {
            endpoint: Some(root.trim_end_matches("/v1").to_string() + "/"),
            ..Default::default()
        },
    );
    assert_eq!(fixed.root().await.unwrap(), root);
}
