//! Unit tests of the service session: the token's refresh point and scope, and the
//! `POST /v3/auth/tokens` body of every combination of keystoneauth's password options.

use serde_json::{Value, json};

use super::*;
use crate::keystone::token_body::TOKEN_BODY;

#[test]
fn service_token_refreshes_before_expiry() {
    let env: TokenEnvelope = serde_json::from_str(TOKEN_BODY).unwrap();
    let t = parse_service_token("tok".into(), env.token, Duration::from_secs(120));
    let exp = t.expires_at;
    assert!(t.is_fresh(exp - chrono::Duration::seconds(121)));
    assert!(!t.is_fresh(exp - chrono::Duration::seconds(119)));
    assert_eq!(t.catalog.services.len(), 2);
    assert_eq!(t.project_id.as_deref(), Some("p1"));
    assert!(
        !format!("{t:?}").contains("tok\""),
        "Debug must not print the token"
    );
}

#[test]
fn short_lived_token_margin_capped_at_half_life() {
    let body = r#"{"token": {"expires_at": "2030-01-01T00:01:00Z", "issued_at": "2030-01-01T00:00:00Z", "user": {"id": "u"}, "project": {"id": "p"}}}"#;
    let env: TokenEnvelope = serde_json::from_str(body).unwrap();
    let t = parse_service_token("x".into(), env.token, Duration::from_secs(120));
    assert_eq!(t.refresh_at.to_rfc3339(), "2030-01-01T00:00:30+00:00");
}

#[test]
fn a_token_without_a_project_has_no_project_id() {
    // a domain-, system-scoped or unscoped token, as the options asked for
    let body = r#"{"token": {"expires_at": "2030-01-01T00:00:00Z", "user": {"id": "u"}, "system": {"all": true}}}"#;
    let env: TokenEnvelope = serde_json::from_str(body).unwrap();
    let t = parse_service_token("x".into(), env.token, Duration::from_secs(1));
    assert_eq!(t.project_id, None);
    assert_eq!(t.user_id, "u");
}

#[test]
fn v3_root_normalises() {
    assert_eq!(v3_root("http://h:5000"), "http://h:5000/v3");
    assert_eq!(v3_root("http://h:5000/v3/"), "http://h:5000/v3");
    assert_eq!(v3_root("http://h/identity/v3"), "http://h/identity/v3");
}

/// `octavia` / `pw`, nothing else set.
fn base() -> ServiceAuthConfig {
    ServiceAuthConfig {
        username: "octavia".into(),
        password: "pw".into(),
        ..ServiceAuthConfig::default()
    }
}

fn s(v: &str) -> Option<String> {
    Some(v.into())
}

fn body(cfg: &ServiceAuthConfig) -> Value {
    cfg.auth_body().unwrap()
}

fn user(cfg: &ServiceAuthConfig) -> Value {
    body(cfg)["auth"]["identity"]["password"]["user"].clone()
}

fn scope(cfg: &ServiceAuthConfig) -> Value {
    body(cfg)["auth"]["scope"].clone()
}

#[test]
fn project_name_with_its_domain_and_the_whole_body() {
    let cfg = ServiceAuthConfig {
        project_name: "service".into(),
        project_domain_id: s("default"),
        ..base()
    };
    assert_eq!(
        body(&cfg),
        json!({"auth": {
            "identity": {"methods": ["password"], "password": {"user": {
                "name": "octavia", "domain": {"name": "Default"}, "password": "pw"}}},
            "scope": {"project": {"name": "service", "domain": {"id": "default"}}},
        }})
    );
    assert!(!format!("{cfg:?}").contains("pw"));
}

#[test]
fn domain_ids_win_over_names() {
    let cfg = ServiceAuthConfig {
        project_name: "service".into(),
        user_domain_id: s("ud"),
        user_domain_name: s("UserDomain"),
        project_domain_id: s("pd"),
        project_domain_name: s("ProjectDomain"),
        ..base()
    };
    assert_eq!(user(&cfg)["domain"], json!({"id": "ud"}));
    assert_eq!(scope(&cfg)["project"]["domain"], json!({"id": "pd"}));
    let by_name = ServiceAuthConfig {
        user_domain_id: None,
        project_domain_id: None,
        ..cfg
    };
    assert_eq!(user(&by_name)["domain"], json!({"name": "UserDomain"}));
    assert_eq!(
        scope(&by_name)["project"]["domain"],
        json!({"name": "ProjectDomain"})
    );
}

#[test]
fn project_id_scope_sends_no_project_domain() {
    let cfg = ServiceAuthConfig {
        project_id: s("p-1"),
        project_domain_name: s("Ignored"),
        ..base()
    };
    assert_eq!(scope(&cfg), json!({"project": {"id": "p-1"}}));
    // with a project name too: the id wins (one scope, the project)
    let both = ServiceAuthConfig {
        project_name: "service".into(),
        ..cfg
    };
    assert_eq!(scope(&both), json!({"project": {"id": "p-1"}}));
    assert_eq!(both.scope_targets(), ["project"]);
}

#[test]
fn default_domain_id_is_the_user_and_project_domain() {
    let cfg = ServiceAuthConfig {
        project_name: "service".into(),
        default_domain_id: s("dd"),
        ..base()
    };
    assert_eq!(user(&cfg)["domain"], json!({"id": "dd"}));
    assert_eq!(scope(&cfg)["project"]["domain"], json!({"id": "dd"}));
    // keystoneauth: `user_domain_id or default_domain_id` is an id, and an id wins over a name
    let named = ServiceAuthConfig {
        user_domain_name: s("UserDomain"),
        project_domain_name: s("ProjectDomain"),
        ..cfg.clone()
    };
    assert_eq!(user(&named)["domain"], json!({"id": "dd"}));
    assert_eq!(scope(&named)["project"]["domain"], json!({"id": "dd"}));
    // an explicit id wins over the default one
    let explicit = ServiceAuthConfig {
        user_domain_id: s("ud"),
        project_domain_id: s("pd"),
        ..cfg
    };
    assert_eq!(user(&explicit)["domain"], json!({"id": "ud"}));
    assert_eq!(scope(&explicit)["project"]["domain"], json!({"id": "pd"}));
}

#[test]
fn default_domain_name_fills_only_the_unset_names() {
    let cfg = ServiceAuthConfig {
        project_name: "service".into(),
        default_domain_name: s("Shared"),
        ..base()
    };
    assert_eq!(user(&cfg)["domain"], json!({"name": "Shared"}));
    assert_eq!(scope(&cfg)["project"]["domain"], json!({"name": "Shared"}));
    let user_named = ServiceAuthConfig {
        user_domain_name: s("Users"),
        ..cfg.clone()
    };
    assert_eq!(user(&user_named)["domain"], json!({"name": "Users"}));
    assert_eq!(
        scope(&user_named)["project"]["domain"],
        json!({"name": "Shared"})
    );
    // a default id beats a default name
    let both = ServiceAuthConfig {
        default_domain_id: s("dd"),
        ..cfg
    };
    assert_eq!(user(&both)["domain"], json!({"id": "dd"}));
}

#[test]
fn without_any_domain_keel_sends_default() {
    let cfg = ServiceAuthConfig {
        project_name: "service".into(),
        ..base()
    };
    assert_eq!(user(&cfg)["domain"], json!({"name": "Default"}));
    assert_eq!(scope(&cfg)["project"]["domain"], json!({"name": "Default"}));
}

#[test]
fn user_id_is_sent_without_name_or_domain() {
    let cfg = ServiceAuthConfig {
        user_id: s("u-1"),
        user_domain_id: s("ud"),
        default_domain_id: s("dd"),
        project_id: s("p-1"),
        ..base()
    };
    assert_eq!(user(&cfg), json!({"id": "u-1", "password": "pw"}));
}

#[test]
fn domain_scope_id_wins_over_name() {
    let cfg = ServiceAuthConfig {
        domain_id: s("d-1"),
        domain_name: s("Other"),
        ..base()
    };
    assert_eq!(scope(&cfg), json!({"domain": {"id": "d-1"}}));
    let by_name = ServiceAuthConfig {
        domain_id: None,
        ..cfg
    };
    assert_eq!(scope(&by_name), json!({"domain": {"name": "Other"}}));
    assert_eq!(by_name.scope_targets(), ["domain"]);
}

#[test]
fn trust_and_system_scopes() {
    let trust = ServiceAuthConfig {
        trust_id: s("t-1"),
        ..base()
    };
    assert_eq!(scope(&trust), json!({"OS-TRUST:trust": {"id": "t-1"}}));
    let system = ServiceAuthConfig {
        system_scope: s("all"),
        ..base()
    };
    assert_eq!(scope(&system), json!({"system": {"all": true}}));
    // another system scope counts as one but sends none (keystoneauth only knows `all`)
    let other = ServiceAuthConfig {
        system_scope: s("region-one"),
        ..base()
    };
    assert_eq!(other.scope_targets(), ["system"]);
    assert!(body(&other)["auth"].get("scope").is_none());
}

#[test]
fn no_scope_option_sends_no_scope() {
    let cfg = ServiceAuthConfig {
        project_domain_id: s("pd"),
        default_domain_name: s("Shared"),
        ..base()
    };
    assert!(cfg.scope_targets().is_empty());
    assert!(body(&cfg)["auth"].get("scope").is_none());
    // empty options are unset
    let empty = ServiceAuthConfig {
        project_id: s(""),
        domain_id: s(""),
        trust_id: s(""),
        system_scope: s(""),
        ..cfg
    };
    assert!(body(&empty)["auth"].get("scope").is_none());
}

#[test]
fn more_than_one_scope_is_refused() {
    let cases = [
        (
            ServiceAuthConfig {
                project_name: "service".into(),
                system_scope: s("all"),
                ..base()
            },
            "project, system",
        ),
        (
            ServiceAuthConfig {
                project_id: s("p"),
                domain_name: s("d"),
                ..base()
            },
            "project, domain",
        ),
        (
            ServiceAuthConfig {
                domain_id: s("d"),
                trust_id: s("t"),
                ..base()
            },
            "domain, trust",
        ),
        (
            ServiceAuthConfig {
                project_name: "p".into(),
                domain_id: s("d"),
                trust_id: s("t"),
                system_scope: s("x"),
                ..base()
            },
            "project, domain, trust, system",
        ),
    ];
    for (cfg, want) in cases {
        match cfg.auth_body() {
            Err(KeystoneError::ScopeConflict { targets }) => assert_eq!(targets, want),
            other => panic!("expected ScopeConflict for {want}, got {other:?}"),
        }
    }
}

#[test]
fn application_credential_ignores_the_password_options() {
    let cfg = ServiceAuthConfig {
        project_name: "service".into(),
        system_scope: s("all"),
        application_credential: Some(ApplicationCredential {
            id: s("ac"),
            name: None,
            secret: "sec".into(),
            user: None,
        }),
        ..base()
    };
    let b = body(&cfg);
    assert_eq!(
        b["auth"]["identity"]["methods"],
        json!(["application_credential"])
    );
    assert!(b["auth"].get("scope").is_none());
}
