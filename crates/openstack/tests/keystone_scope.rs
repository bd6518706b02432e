//! The password plugin's scope and domain options against the stack's Keystone
//! (STACK_KEYSTONE_URL, the admin persona's OS_*): a user and project of their own in a domain
//! of their own (so that Keel's `Default` fallback would not find them), made through
//! Keystone's API by the system-scoped admin and deleted by a drop guard.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use serde_json::{Value, json};

use openstack::{
    KeystoneError, ServiceAuth, ServiceAuthConfig, TokenValidator, TokenValidatorConfig,
};

/// The admin persona, scoped to the whole system (its `admin` role is a system one too).
fn admin_config() -> ServiceAuthConfig {
    ServiceAuthConfig {
        auth_url: common::env("STACK_KEYSTONE_URL"),
        username: common::env("OS_USERNAME"),
        password: common::env("OS_PASSWORD"),
        user_domain_name: std::env::var("OS_USER_DOMAIN_NAME").ok(),
        system_scope: Some("all".into()),
        ..ServiceAuthConfig::default()
    }
}

/// An admin call: `method url` with `body`, the admin token; the JSON answer (`Null` for
/// 204). Panics on another status than `want`.
async fn admin(
    http: &reqwest::Client,
    token: &str,
    method: reqwest::Method,
    path: &str,
    body: Option<Value>,
    want: u16,
) -> Value {
    let url = format!("{}/{path}", common::env("STACK_KEYSTONE_URL"));
    let mut req = http
        .request(method.clone(), &url)
        .header("X-Auth-Token", token);
    if let Some(b) = body {
        req = req.json(&b);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    assert_eq!(status, want, "{method} {path}: {text}");
    if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap()
    }
}

/// What the test made: deleted on drop (user, project, then the domain, disabled first), with
/// a new admin token on a thread of its own, so cleanup runs when the test panicked.
struct Made {
    /// The name of the domain, the project and the user alike.
    name: String,
    domain: String,
    project: String,
    user: String,
}

impl Drop for Made {
    fn drop(&mut self) {
        let (domain, project, user) =
            (self.domain.clone(), self.project.clone(), self.user.clone());
        let done = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let http = common::http();
                let admin_auth = ServiceAuth::new(http.clone(), admin_config());
                let token = admin_auth.token().await.unwrap();
                let t = token.id();
                use reqwest::Method;
                for path in [format!("users/{user}"), format!("projects/{project}")] {
                    let url = format!("{}/{path}", common::env("STACK_KEYSTONE_URL"));
                    let r = http.delete(&url).header("X-Auth-Token", t).send().await;
                    if let Err(e) = r {
                        eprintln!("cleanup: {path}: {e}");
                    }
                }
                let off = json!({"domain": {"enabled": false}});
                let path = format!("domains/{domain}");
                admin(&http, t, Method::PATCH, &path, Some(off), 200).await;
                admin(&http, t, Method::DELETE, &path, None, 204).await;
            });
        });
        if done.join().is_err() {
            eprintln!("cleanup of domain {} failed", self.domain);
        }
    }
}

/// A domain, a project in it, a user in it with `member` on the project, `member` on the
/// domain and `reader` on the system.
async fn make(http: &reqwest::Client, admin_token: &str, password: &str) -> Made {
    use reqwest::Method;
    let name = common::unique("keel-scope");
    let d = admin(
        http,
        admin_token,
        Method::POST,
        "domains",
        Some(json!({"domain": {"name": name}})),
        201,
    )
    .await;
    let domain = d["domain"]["id"].as_str().unwrap().to_string();
    let mut made = Made {
        name: name.clone(),
        domain: domain.clone(),
        project: String::new(),
        user: String::new(),
    };
    let p = admin(
        http,
        admin_token,
        Method::POST,
        "projects",
        Some(json!({"project": {"name": name, "domain_id": domain}})),
        201,
    )
    .await;
    made.project = p["project"]["id"].as_str().unwrap().to_string();
    let u = admin(
        http,
        admin_token,
        Method::POST,
        "users",
        Some(json!({"user": {"name": name, "domain_id": domain, "password": password}})),
        201,
    )
    .await;
    made.user = u["user"]["id"].as_str().unwrap().to_string();
    let roles = admin(http, admin_token, Method::GET, "roles", None, 200).await;
    let role = |n: &str| {
        roles["roles"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == n)
            .map(|r| r["id"].as_str().unwrap().to_string())
            .unwrap_or_else(|| panic!("no role {n}"))
    };
    let (member, reader) = (role("member"), role("reader"));
    let user = &made.user;
    for path in [
        format!("projects/{}/users/{user}/roles/{member}", made.project),
        format!("domains/{domain}/users/{user}/roles/{member}"),
        format!("system/users/{user}/roles/{reader}"),
    ] {
        admin(http, admin_token, Method::PUT, &path, None, 204).await;
    }
    made
}

#[tokio::test]
async fn service_user_scopes_and_default_domain_on_the_real_keystone() {
    let http = common::http();
    // the admin's own session is system-scoped: its token has no project
    let admin_auth = ServiceAuth::new(http.clone(), admin_config());
    let admin_token = admin_auth.token().await.unwrap();
    assert_eq!(admin_token.project_id, None);
    let password = "keel-scope-pass";
    let made = make(&http, admin_token.id(), password).await;
    let validator = TokenValidator::new(
        common::service(http.clone()),
        TokenValidatorConfig::default(),
    );
    let user = || ServiceAuthConfig {
        auth_url: common::env("STACK_KEYSTONE_URL"),
        username: made.name.clone(),
        password: password.into(),
        ..ServiceAuthConfig::default()
    };
    let domain = made.domain.clone();
    let project = made.project.clone();

    // default_domain_id only: the user's and the project's domain
    let mut cfg = user();
    cfg.project_name = made.name.clone();
    cfg.default_domain_id = Some(domain.clone());
    let t = ServiceAuth::new(http.clone(), cfg.clone())
        .token()
        .await
        .unwrap();
    assert_eq!(t.project_id.as_deref(), Some(project.as_str()));
    assert_eq!(t.user_id, made.user);
    // without it, Keel's `Default` is not the user's domain: Keystone refuses
    cfg.default_domain_id = None;
    match ServiceAuth::new(http.clone(), cfg).token().await {
        Err(KeystoneError::ServiceCredentialsRejected { status: 401, .. }) => {}
        other => panic!("expected the credentials rejected, got {other:?}"),
    }

    // project_id scope (the user's domain by id, no project domain sent)
    let mut cfg = user();
    cfg.project_id = Some(project.clone());
    cfg.user_domain_id = Some(domain.clone());
    let t = ServiceAuth::new(http.clone(), cfg).token().await.unwrap();
    assert_eq!(t.project_id.as_deref(), Some(project.as_str()));
    let ctx = validator.validate(t.id()).await.unwrap();
    assert_eq!(ctx.project_id.as_deref(), Some(project.as_str()));
    assert!(ctx.has_role("member"), "{:?}", ctx.roles);

    // domain scope by name, the user's domain by default_domain_name
    let mut cfg = user();
    cfg.default_domain_name = Some(made.name.clone());
    cfg.domain_name = Some(made.name.clone());
    let t = ServiceAuth::new(http.clone(), cfg).token().await.unwrap();
    assert_eq!(t.project_id, None);
    let ctx = validator.validate(t.id()).await.unwrap();
    assert_eq!(ctx.domain_id.as_deref(), Some(domain.as_str()));

    // system scope (`reader` on the system)
    let mut cfg = user();
    cfg.user_domain_id = Some(domain.clone());
    cfg.system_scope = Some("all".into());
    let t = ServiceAuth::new(http.clone(), cfg.clone())
        .token()
        .await
        .unwrap();
    assert_eq!(t.project_id, None);
    let ctx = validator.validate(t.id()).await.unwrap();
    assert_eq!(ctx.system_scope.as_deref(), Some("all"));
    assert!(ctx.has_role("reader"), "{:?}", ctx.roles);

    // two scopes: refused before any request
    cfg.project_id = Some(project.clone());
    match ServiceAuth::new(http.clone(), cfg).token().await {
        Err(KeystoneError::ScopeConflict { targets }) => assert_eq!(targets, "project, system"),
        other => panic!("expected ScopeConflict, got {other:?}"),
    }
    drop(made);
}
