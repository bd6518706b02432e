//! `/healthcheck` with oslo.middleware's backends, in process over SQLite: the answers of
//! oslo.middleware's `Healthcheck` (200/204 healthy, 503 otherwise; text, JSON or HTML by
//! `Accept`), `disable_by_file`, `disable_by_files_ports`, `enable_by_files`, and
//! `octavia_db_check` turning 503 `The Octavia database is unavailable.` once the pool is
//! closed (after its cached result's `healthcheck_refresh_interval`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use api::healthcheck::{Backend, HealthcheckConfig};
use api::{ApiConfig, AppState, AuthMode};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use tower::ServiceExt;

async fn call(
    router: &axum::Router,
    method: &str,
    accept: Option<&str>,
) -> (StatusCode, String, String) {
    let mut b = Request::builder().method(method).uri("/healthcheck");
    if let Some(a) = accept {
        b = b.header("accept", a);
    }
    let resp = router
        .clone()
        .oneshot(b.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = resp.status();
    let ct = resp
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    let body = axum::body::to_bytes(resp.into_body(), usize::MAX)
        .await
        .unwrap();
    (status, ct, String::from_utf8(body.to_vec()).unwrap())
}

fn router(db: &octavia_db::Database, backends: Vec<Backend>, refresh: Duration) -> axum::Router {
    let cfg = ApiConfig {
        healthcheck_enabled: true,
        healthcheck: HealthcheckConfig {
            backends,
            refresh_interval: refresh,
            server_port: 9876,
            ..Default::default()
        },
        ..ApiConfig::default()
    };
    api::router(AppState::new(
        db.clone(),
        BTreeMap::new(),
        AuthMode::NoAuth,
        None,
        cfg,
    ))
}

#[tokio::test]
async fn backends_files_and_negotiation() {
    let env = common::Env::new(false, common::Setup::noauth()).await;
    let dir = tempfile::tempdir().unwrap();
    let off = dir.path().join("off");
    let port_off = dir.path().join("port-off");
    let on = dir.path().join("on");

    // No backend: oslo's empty answers (an empty text body is a 204 through pecan).
    let r = router(&env.db, vec![], Duration::from_secs(5));
    assert_eq!(
        call(&r, "GET", None).await,
        (StatusCode::NO_CONTENT, String::new(), String::new())
    );
    assert_eq!(call(&r, "HEAD", None).await.0, StatusCode::NO_CONTENT);
    let (s, ct, body) = call(&r, "GET", Some("application/json")).await;
    assert_eq!((s, ct.as_str()), (StatusCode::OK, "application/json"));
    assert_eq!(body, "{\n    \"detailed\": false,\n    \"reasons\": []\n}");

    let r = router(
        &env.db,
        vec![
            Backend::OctaviaDb,
            Backend::DisableByFile(Some(off.clone())),
            Backend::DisableByFilesPorts(BTreeMap::from([
                (9876, port_off.clone()),
                (1, on.clone()),
            ])),
        ],
        Duration::from_secs(5),
    );
    assert_eq!(call(&r, "GET", None).await.2, "OK\nOK\nOK");
    assert_eq!(call(&r, "HEAD", None).await.0, StatusCode::NO_CONTENT);
    std::fs::write(&off, "").unwrap();
    let (s, _, body) = call(&r, "GET", None).await;
    assert_eq!(
        (s, body.as_str()),
        (StatusCode::SERVICE_UNAVAILABLE, "OK\nDISABLED BY FILE\nOK")
    );
    assert_eq!(
        call(&r, "HEAD", None).await.0,
        StatusCode::SERVICE_UNAVAILABLE
    );
    std::fs::remove_file(&off).unwrap();
    std::fs::write(&port_off, "").unwrap();
    let (s, _, body) = call(&r, "GET", Some("text/html")).await;
    assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE);
    assert!(body.contains("<H2>Result of 3 checks:</H2>"), "{body}");
    assert!(body.contains("<TD>DISABLED BY FILE</TD>"), "{body}");
    std::fs::remove_file(&port_off).unwrap();
    assert_eq!(call(&r, "GET", None).await.0, StatusCode::OK);

    // enable_by_files: every path must exist.
    let r = router(
        &env.db,
        vec![Backend::EnableByFiles(vec![on.clone()])],
        Duration::from_secs(5),
    );
    let (s, _, body) = call(&r, "GET", Some("application/json")).await;
    assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(
        body,
        "{\n    \"detailed\": false,\n    \"reasons\": [\n        \"FILE PATH MISSING\"\n    ]\n}"
    );
    std::fs::write(&on, "").unwrap();
    assert_eq!(
        call(&r, "GET", None).await,
        (
            StatusCode::OK,
            "text/plain; charset=UTF-8".into(),
            "OK".into()
        )
    );

    // octavia_db_check: a closed pool is an unavailable database (no cache: refresh 0).
    let r = router(&env.db, vec![Backend::OctaviaDb], Duration::ZERO);
    assert_eq!(call(&r, "GET", None).await.0, StatusCode::OK);
    env.db.close().await;
    let (s, _, body) = call(&r, "GET", None).await;
    assert_eq!(
        (s, body.as_str()),
        (
            StatusCode::SERVICE_UNAVAILABLE,
            "The Octavia database is unavailable."
        )
    );
    env.done().await;
}

#[tokio::test]
async fn the_database_result_is_reused_within_the_refresh_interval() {
    let env = common::Env::new(false, common::Setup::noauth()).await;
    let r = router(&env.db, vec![Backend::OctaviaDb], Duration::from_secs(3600));
    assert_eq!(call(&r, "GET", None).await.0, StatusCode::OK);
    env.db.close().await;
    // Still the cached "OK", as Octavia's plugin within healthcheck_refresh_interval.
    assert_eq!(
        call(&r, "GET", None).await,
        (
            StatusCode::OK,
            "text/plain; charset=UTF-8".into(),
            "OK".into()
        )
    );
    env.done().await;
}
