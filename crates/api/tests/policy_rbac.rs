//! `[oslo_policy]` end to end through the router (SQLite and MariaDB): the legacy
//! `load-balancer_*` roles with `enforce_new_defaults = False` (octavia/policies/*.py,
//! advanced_rbac.py), and a policy file turning rules into `!` and `@`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use std::collections::BTreeMap;

use api::policy::Policy;
use axum::http::StatusCode;
use common::{Env, P1, P2, SUBNET, Setup};
use serde_json::json;

const DENIED: &str = "Policy does not allow this request to be performed.";

fn legacy() -> Policy {
    Policy::build(BTreeMap::new(), false).unwrap()
}

async fn create_lb(env: &Env, project: &str, roles: &str) -> (StatusCode, serde_json::Value) {
    env.call(
        project,
        roles,
        "POST",
        "/v2/lbaas/loadbalancers",
        Some(json!({"loadbalancer": {"vip_subnet_id": SUBNET}})),
    )
    .await
}

#[tokio::test]
async fn legacy_roles_follow_octavias_deprecated_rules() {
    each_backend!(Setup::role_tokens(legacy()), |env| {
        // create: load-balancer_member in its project; observers and quota admins may not
        for roles in [
            "load-balancer_observer",
            "load-balancer_global_observer",
            "load-balancer_quota_admin",
        ] {
            let (s, b) = create_lb(&env, P1, roles).await;
            assert_eq!(s, StatusCode::FORBIDDEN, "{roles}: {b}");
            assert_eq!(b["faultstring"], DENIED);
        }
        let (s, b) = create_lb(&env, P1, "load-balancer_member").await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        let lb = b["loadbalancer"]["id"].as_str().unwrap().to_string();
        env.set_status("load_balancer", &lb, "ACTIVE").await;
        let one = format!("/v2/lbaas/loadbalancers/{lb}");

        // get_one: owner observer/member, global observer, admins; not a stranger
        for (project, roles, want) in [
            (P1, "load-balancer_observer", StatusCode::OK),
            (P1, "load-balancer_member", StatusCode::OK),
            (P2, "load-balancer_observer", StatusCode::FORBIDDEN),
            (P2, "load-balancer_member", StatusCode::FORBIDDEN),
            (P2, "load-balancer_global_observer", StatusCode::OK),
            (P2, "load-balancer_quota_admin", StatusCode::FORBIDDEN),
            (P2, "load-balancer_admin", StatusCode::OK),
            (P2, "admin", StatusCode::OK),
            (P1, "", StatusCode::FORBIDDEN),
        ] {
            let (s, _) = env.call(project, roles, "GET", &one, None).await;
            assert_eq!(s, want, "{project} {roles}");
        }

        // list: an observer sees its project; a global observer every project
        let (s, b) = env
            .call(
                P2,
                "load-balancer_observer",
                "GET",
                "/v2/lbaas/loadbalancers",
                None,
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(b["loadbalancers"].as_array().unwrap().len(), 0);
        let (s, b) = env
            .call(
                P1,
                "load-balancer_observer",
                "GET",
                "/v2/lbaas/loadbalancers",
                None,
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(b["loadbalancers"].as_array().unwrap().len(), 1);
        let (s, b) = env
            .call(
                P2,
                "load-balancer_global_observer",
                "GET",
                "/v2/lbaas/loadbalancers",
                None,
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(b["loadbalancers"].as_array().unwrap().len(), 1);

        // quota: quota admin reads and writes any project; a member only reads its own
        let q1 = format!("/v2/lbaas/quotas/{P1}");
        let body = json!({"quota": {"pool": 5}});
        let (s, _) = env
            .call(P1, "load-balancer_member", "PUT", &q1, Some(body.clone()))
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (s, _) = env.call(P1, "load-balancer_member", "GET", &q1, None).await;
        assert_eq!(s, StatusCode::OK);
        let (s, _) = env.call(P2, "load-balancer_member", "GET", &q1, None).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (s, b) = env
            .call(P2, "load-balancer_quota_admin", "PUT", &q1, Some(body))
            .await;
        assert_eq!(s, StatusCode::ACCEPTED, "{b}");
        let (s, b) = env
            .call(
                P2,
                "load-balancer_quota_admin",
                "GET",
                "/v2/lbaas/quotas",
                None,
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(b["quotas"].as_array().unwrap().len(), 1, "{b}");
        let (s, _) = env
            .call(P2, "load-balancer_global_observer", "GET", &q1, None)
            .await;
        assert_eq!(s, StatusCode::OK);

        // delete: not an observer, not another project's member; load-balancer_admin may
        for (project, roles) in [
            (P1, "load-balancer_observer"),
            (P2, "load-balancer_member"),
            (P2, "load-balancer_global_observer"),
        ] {
            let (s, _) = env.call(project, roles, "DELETE", &one, None).await;
            assert_eq!(s, StatusCode::FORBIDDEN, "{project} {roles}");
        }
        let (s, b) = env
            .call(P2, "load-balancer_admin", "DELETE", &one, None)
            .await;
        assert_eq!(s, StatusCode::NO_CONTENT, "{b}");
    });
}

#[tokio::test]
async fn new_defaults_ignore_legacy_roles() {
    each_backend!(Setup::role_tokens(Policy::default()), |env| {
        let (s, b) = create_lb(&env, P1, "load-balancer_member").await;
        assert_eq!(s, StatusCode::FORBIDDEN, "{b}");
        let (s, _) = env
            .call(P1, "load-balancer_admin", "GET", "/v2/lbaas/quotas", None)
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (s, b) = create_lb(&env, P1, "member,reader").await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        assert_eq!(env.count("load_balancer").await, 1);
    });
}

#[tokio::test]
async fn policy_file_rules_to_deny_and_allow_all() {
    let text = "\
\"os_load-balancer_api:loadbalancer:get_one\": \"!\"
\"os_load-balancer_api:loadbalancer:get_all-global\": \"@\"
";
    let policy = || Policy::from_text("policy.yaml", text, true).unwrap();
    each_backend!(Setup::role_tokens(policy()), |env| {
        let (s, b) = create_lb(&env, P1, "member,reader").await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        let lb = b["loadbalancer"]["id"].as_str().unwrap().to_string();
        // `!`: even an admin is refused, with Octavia's text
        let (s, b) = env
            .call(
                P1,
                "admin,member,reader",
                "GET",
                &format!("/v2/lbaas/loadbalancers/{lb}"),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        assert_eq!(b["faultstring"], DENIED);
        // `@`: any token lists every project's load balancers
        let (s, b) = env
            .call(P2, "", "GET", "/v2/lbaas/loadbalancers", None)
            .await;
        assert_eq!(s, StatusCode::OK, "{b}");
        assert_eq!(b["loadbalancers"][0]["id"], lb.as_str());
        // untouched rules keep their defaults
        let (s, _) = env.call(P2, "", "GET", "/v2/lbaas/pools", None).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
    });
}
