//! ServiceAuth and TokenValidator against the stack's Keystone (STACK_KEYSTONE_URL).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;

use openstack::{
    Interface, InvalidTokenReason, KeystoneError, TokenValidator, TokenValidatorConfig,
};

#[tokio::test]
async fn service_auth_token_and_catalog() {
    let auth = common::service(common::http());
    let t = auth.token().await.unwrap();
    assert!(!t.id().is_empty());
    assert!(t.expires_at > chrono::Utc::now());
    assert!(t.catalog.has_service("network"), "catalog: {:?}", t.catalog);
    assert!(t.catalog.has_service("load-balancer"));
    assert!(t.catalog.has_service("identity"));
    // Cached: the same token until invalidated.
    let again = auth.token().await.unwrap();
    assert!(Arc::ptr_eq(&t, &again));
    auth.invalidate(&t);
    let fresh = auth.token().await.unwrap();
    assert!(!Arc::ptr_eq(&t, &fresh));

    let neutron = auth
        .endpoint("network", Interface::Public, None)
        .await
        .unwrap();
    assert_eq!(
        neutron.trim_end_matches('/'),
        common::env("STACK_NEUTRON_URL").trim_end_matches('/')
    );
    let internal = auth
        .endpoint("network", Interface::Internal, Some("RegionOne"))
        .await
        .unwrap();
    assert!(internal.starts_with("http"));
    match auth
        .endpoint("network", Interface::Public, Some("NoSuchRegion"))
        .await
    {
        Err(KeystoneError::EndpointNotFound {
            service_type,
            region,
            ..
        }) => {
            assert_eq!(service_type, "network");
            assert_eq!(region.as_deref(), Some("NoSuchRegion"));
        }
        other => panic!("expected EndpointNotFound, got {other:?}"),
    }
}

#[tokio::test]
async fn wrong_service_password_is_typed() {
    let auth = common::session(common::http(), "octavia", "wrong-pass", "service");
    match auth.token().await {
        Err(KeystoneError::ServiceCredentialsRejected { status: 401, .. }) => {}
        other => panic!("expected ServiceCredentialsRejected, got {other:?}"),
    }
}

#[tokio::test]
async fn demo_token_validates_to_its_project_and_roles() {
    let http = common::http();
    let (token, project_id) = common::demo_token(http.clone()).await;
    let v = TokenValidator::new(common::service(http), TokenValidatorConfig::default());
    let ctx = v.validate(&token).await.unwrap();
    assert_eq!(ctx.user_name, "demo");
    assert_eq!(ctx.project_name.as_deref(), Some("demo"));
    assert_eq!(ctx.project_id.as_deref(), Some(project_id.as_str()));
    assert_eq!(ctx.user_domain_id, "default");
    assert_eq!(ctx.project_domain_id.as_deref(), Some("default"));
    assert!(ctx.has_role("member"), "roles: {:?}", ctx.roles);
    assert!(
        ctx.has_role("load-balancer_member"),
        "roles: {:?}",
        ctx.roles
    );
    assert!(!ctx.has_role("admin"));
    assert_eq!(ctx.system_scope, None);
    assert!(ctx.expires_at > chrono::Utc::now());
    // The second validation is served from the cache: the very same context.
    let again = v.validate(&token).await.unwrap();
    assert!(Arc::ptr_eq(&ctx, &again));
    assert_eq!(v.cache_len(), 1);
    v.clear_cache();
    let third = v.validate(&token).await.unwrap();
    assert!(!Arc::ptr_eq(&ctx, &third));
    assert_eq!(*ctx, *third);
}

#[tokio::test]
async fn bad_tokens_are_unauthorized() {
    let v = TokenValidator::new(
        common::service(common::http()),
        TokenValidatorConfig::default(),
    );
    for bad in ["gAAAAABnot-a-real-token", "x"] {
        match v.validate(bad).await {
            Err(e @ KeystoneError::InvalidToken(InvalidTokenReason::NotFound)) => {
                assert!(e.is_unauthorized())
            }
            other => panic!("expected InvalidToken(NotFound) for {bad:?}, got {other:?}"),
        }
    }
    // Negative results are cached too (keystonemiddleware does the same).
    assert_eq!(v.cache_len(), 2);
    assert!(matches!(
        v.validate("x").await,
        Err(KeystoneError::InvalidToken(InvalidTokenReason::NotFound))
    ));
    assert!(matches!(
        v.validate("  ").await,
        Err(KeystoneError::InvalidToken(InvalidTokenReason::Empty))
    ));
}

#[tokio::test]
async fn validator_recovers_from_a_revoked_service_token() {
    let http = common::http();
    let service = common::service(http.clone());
    let (token, _) = common::demo_token(http.clone()).await;
    let stale = service.token().await.unwrap();
    // Revoke the service token behind the session's back (DELETE /v3/auth/tokens by itself).
    let resp = http
        .delete(format!("{}/auth/tokens", service.identity_url()))
        .header("X-Auth-Token", stale.id())
        .header("X-Subject-Token", stale.id())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 204);
    let v = TokenValidator::new(service.clone(), TokenValidatorConfig::default());
    let ctx = v.validate(&token).await.unwrap();
    assert_eq!(ctx.project_name.as_deref(), Some("demo"));
    let now = service.token().await.unwrap();
    assert_ne!(
        now.id(),
        stale.id(),
        "a new service token was issued after the 401"
    );
}

#[tokio::test]
async fn concurrent_callers_share_one_issued_token() {
    let auth = common::service(common::http());
    let calls = (0..8).map(|_| {
        let a = auth.clone();
        tokio::spawn(async move { a.token().await.unwrap() })
    });
    let tokens = futures_join(calls).await;
    for t in &tokens[1..] {
        assert!(
            Arc::ptr_eq(&tokens[0], t),
            "one password auth for all callers"
        );
    }
}

async fn futures_join<T: Send + 'static>(
    handles: impl Iterator<Item = tokio::task::JoinHandle<T>>,
) -> Vec<T> {
    let mut out = Vec::new();
    for h in handles.collect::<Vec<_>>() {
        out.push(h.await.unwrap());
    }
    out
}
