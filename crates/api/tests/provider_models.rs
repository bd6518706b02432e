//! The provider models the API hands a driver where the reference's differ from a plain
//! conversion of the rows (the amphora provider's differential run found each one in a
//! cast): values from Octavia 19.0.0's controllers —
//! * listener.py `post` converts the repository's data model (`insert_headers` `{}` for a
//!   NULL column), `put` every attribute sent;
//! * l7policy.py `put` passes the attributes `sanitize_l7policy_api_args` cleared as null;
//! * pool.py `put` converts the ORM pool: `listener_id` the first of `Pool.listeners` (an L7
//!   policy's listener too), the stored persistence only when it read it (a sent one without
//!   `type`).
//!
//! Tier: fast (in-process router over SQLite) and MariaDB under `ci/test.sh`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use serde_json::{Value, json};

#[tokio::test]
async fn listener_models_are_the_references() {
    each_backend!(common::Setup::accept_all(), |env| {
        let (lb, l) = env.lb_listener("yes", "HTTP").await;
        let created = env.provider("yes").last("listener_create").unwrap();
        assert_eq!(created["insert_headers"], json!({}));
        let (s, _) = env
            .req(
                "PUT",
                &format!("/v2/lbaas/listeners/{l}"),
                Some(json!({"listener": {
                    "name": "l-u", "timeout_client_data": 12345, "timeout_member_data": null,
                    "insert_headers": {"X-Forwarded-For": "true"}}})),
            )
            .await;
        assert_eq!(s.as_u16(), 200);
        let new = env.provider("yes").last("listener_update").unwrap();
        assert_eq!(
            new,
            json!({"listener_id": l, "name": "l-u", "timeout_client_data": 12345,
                   "timeout_member_data": 50000,
                   "insert_headers": {"X-Forwarded-For": "true"}})
        );
        env.set_active(&[("load_balancer", lb.as_str())]).await;
    });
}

#[tokio::test]
async fn l7policy_update_to_reject_clears_the_redirects() {
    each_backend!(common::Setup::accept_all(), |env| {
        let (lb, l, p) = env.lb_listener_pool("HTTP").await;
        let pol = env
            .create(
                "/v2/lbaas/l7policies",
                "l7policy",
                json!({"listener_id": l, "action": "REDIRECT_TO_POOL", "redirect_pool_id": p}),
            )
            .await;
        env.activate(&lb, &l, &p).await;
        let (s, _) = env
            .req(
                "PUT",
                &format!("/v2/lbaas/l7policies/{pol}"),
                Some(json!({"l7policy": {"action": "REJECT", "name": "pol-u"}})),
            )
            .await;
        assert_eq!(s.as_u16(), 200);
        let new = env.provider("yes").last("l7policy_update").unwrap();
        assert_eq!(
            new,
            json!({"l7policy_id": pol, "name": "pol-u", "action": "REJECT",
                   "redirect_pool_id": null, "redirect_url": null})
        );
    });
}

#[tokio::test]
async fn pool_update_original_is_the_orm_pools() {
    each_backend!(common::Setup::accept_all(), |env| {
        let (lb, l, _) = env.lb_listener_pool("HTTP").await;
        // a pool no listener defaults to, redirected to by an enabled policy with a rule
        let p2 = env
            .create(
                "/v2/lbaas/pools",
                "pool",
                json!({"loadbalancer_id": lb, "protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN",
                       "session_persistence": {"type": "APP_COOKIE", "cookie_name": "c"}}),
            )
            .await;
        env.set_active(&[("load_balancer", lb.as_str()), ("pool", p2.as_str())])
            .await;
        let pol = env
            .create(
                "/v2/lbaas/l7policies",
                "l7policy",
                json!({"listener_id": l, "action": "REDIRECT_TO_POOL", "redirect_pool_id": p2}),
            )
            .await;
        env.set_active(&[
            ("load_balancer", lb.as_str()),
            ("listener", l.as_str()),
            ("l7policy", pol.as_str()),
        ])
        .await;
        env.create(
            &format!("/v2/lbaas/l7policies/{pol}/rules"),
            "rule",
            json!({"type": "PATH", "compare_type": "STARTS_WITH", "value": "/api"}),
        )
        .await;
        env.set_active(&[("load_balancer", lb.as_str()), ("listener", l.as_str())])
            .await;
        let put = |sp: Value| {
            let path = format!("/v2/lbaas/pools/{p2}");
            let env = &env;
            async move {
                let (s, b) = env
                    .req(
                        "PUT",
                        &path,
                        Some(json!({"pool": {"session_persistence": sp}})),
                    )
                    .await;
                assert_eq!(s.as_u16(), 200, "{b}");
                env.provider("yes").last("pool_update").unwrap()
            }
        };
        // a persistence without type: pool.py reads the stored one to complete it
        let call = put(json!({"cookie_name": "c2"})).await;
        assert_eq!(call["old"]["listener_id"], json!(l));
        assert_eq!(
            call["old"]["session_persistence"]["type"], "APP_COOKIE",
            "{call}"
        );
        env.set_active(&[("load_balancer", lb.as_str()), ("pool", p2.as_str())])
            .await;
        // otherwise it is never read: absent
        let call = put(Value::Null).await;
        assert!(call["old"].get("session_persistence").is_none(), "{call}");
    });
}
