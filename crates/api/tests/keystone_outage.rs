//! Token validation failures through the router (SQLite and MariaDB): an invalid or missing
//! token is keystonemiddleware's 401; Keystone unreachable or answering 5xx is its 503
//! (`The Keystone service is temporarily unavailable.`), in Octavia's fault body.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use api::policy::Policy;
use axum::http::StatusCode;
use common::{Env, P1, Setup};
use serde_json::json;

#[tokio::test]
async fn outage_is_503_and_bad_tokens_are_401() {
    for mysql in common::db::backends() {
        let env = Env::new(mysql, Setup::role_tokens(Policy::default())).await;
        for token in ["unreachable", "keystone-500"] {
            let (s, b) = env
                .req_as(Some(token), "GET", "/v2/lbaas/loadbalancers", None)
                .await;
            assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE, "{token}");
            assert_eq!(
                b,
                json!({"faultcode": "Server",
                       "faultstring": "The Keystone service is temporarily unavailable.",
                       "debuginfo": null})
            );
        }
        for token in [Some("garbage"), None] {
            let (s, b) = env
                .req_as(token, "GET", "/v2/lbaas/loadbalancers", None)
                .await;
            assert_eq!(s, StatusCode::UNAUTHORIZED, "{token:?}");
            assert_eq!(b["error"]["code"], 401);
        }
        // nothing was written by the refused calls; a good token still works
        let (s, _) = env
            .req_as(
                Some("unreachable"),
                "POST",
                "/v2/lbaas/loadbalancers",
                Some(json!({"loadbalancer": {"vip_subnet_id": common::SUBNET}})),
            )
            .await;
        assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(env.count("load_balancer").await, 0);
        let (s, _) = env
            .call(P1, "member,reader", "GET", "/v2/lbaas/loadbalancers", None)
            .await;
        assert_eq!(s, StatusCode::OK);
        env.done().await;
    }
}
