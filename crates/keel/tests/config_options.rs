//! The operator's octavia.conf options, end to end: each test writes a real config file (a
//! second `--config-file` over the harness's, so later-wins is exercised too), starts
//! `keel serve` against the stack's services, and observes the option's effect over HTTP;
//! plus the refusals, the start-up warnings and `keel config check` on the stack's own
//! reference octavia.conf.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Command;

use common::{
    Backend, Keel, LbGuard, NeutronNet, admin_token, demo_token, env, keel_bin, tag, token,
};
use serde_json::{Value, json};

/// `curl -i`: status, lower-cased headers, body text.
fn raw(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> (u16, Vec<(String, String)>, String) {
    let mut cmd = Command::new("curl");
    cmd.args(["-sS", "-i", "-X", method]);
    for (k, v) in headers {
        cmd.arg("-H").arg(format!("{k}: {v}"));
    }
    if let Some(b) = body {
        cmd.args(["-H", "Content-Type: application/json", "--data-binary"])
            .arg(b);
    }
    let out = cmd.arg(url).output().unwrap();
    assert!(
        out.status.success(),
        "curl {url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    (status, headers, body.to_string())
}

fn names(v: &Value, key: &str) -> Vec<String> {
    v[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["name"].as_str().unwrap().to_string())
        .collect()
}

/// `[api_settings]`, `[oslo_middleware]`, `[networking]`, `[haproxy_amphora]` options change
/// what the API answers.
#[test]
fn api_options_change_the_answers() {
    let tag = tag();
    let net = NeutronNet::create(&tag, &[]);
    let keel = Keel::start_extra(
        Backend::Sqlite,
        "[api_settings]\nallow_sorting = False\nallow_ping_health_monitors = false\n\
         allow_tls_terminated_listeners = False\n\
         [oslo_middleware]\nmax_request_body_size = 2000\n\
         [networking]\nreserved_ips = 10.0.0.77,169.254.169.254\n\
         [haproxy_amphora]\ntimeout_client_data = 12345\ntimeout_member_connect = 2345\n\
         timeout_member_data = 34567\ntimeout_tcp_inspect = 45\n",
    );
    let t = demo_token();
    let lb = keel.create_lb(&t, &format!("cfg-{tag}"), &net.subnet);
    let lb_id = lb["id"].as_str().unwrap().to_string();
    let _rows = LbGuard(lb_id.clone());

    // [haproxy_amphora] timeout_*: the defaults the API fills into a new listener.
    let l = keel.create(&t, &lb_id, "/v2/lbaas/listeners",
        json!({"listener": {"loadbalancer_id": lb_id, "protocol": "TCP", "protocol_port": 80, "name": "b"}}));
    assert_eq!(
        (
            &l["timeout_client_data"],
            &l["timeout_member_connect"],
            &l["timeout_member_data"],
            &l["timeout_tcp_inspect"]
        ),
        (&json!(12345), &json!(2345), &json!(34567), &json!(45)),
        "{l}"
    );
    keel.create(&t, &lb_id, "/v2/lbaas/listeners",
        json!({"listener": {"loadbalancer_id": lb_id, "protocol": "TCP", "protocol_port": 81, "name": "a"}}));

    // allow_sorting = False: the sort parameter is ignored (both directions answer the same order).
    let q = |s: &str| {
        keel.api(
            "GET",
            &format!("/v2/lbaas/listeners?loadbalancer_id={lb_id}&{s}"),
            &t,
            None,
        )
    };
    let (c1, asc) = q("sort=name:asc");
    let (c2, desc) = q("sort=name:desc");
    assert_eq!((c1, c2), (200, 200));
    assert_eq!(names(&asc, "listeners").len(), 2);
    assert_eq!(
        names(&asc, "listeners"),
        names(&desc, "listeners"),
        "sorting is disabled"
    );

    // allow_tls_terminated_listeners = False: Octavia's DisabledOption, before any certificate read.
    let (code, body) = keel.api("POST", "/v2/lbaas/listeners", &t, Some(&json!({"listener": {
        "loadbalancer_id": lb_id, "protocol": "TERMINATED_HTTPS", "protocol_port": 443,
        "default_tls_container_ref": "http://127.0.0.1:9311/v1/secrets/00000000-0000-0000-0000-000000000000"}})));
    assert_eq!(code, 400, "{body}");
    assert_eq!(
        body["faultstring"],
        "The selected protocol is not allowed in this deployment: TERMINATED_HTTPS"
    );

    let pool = keel.create(
        &t,
        &lb_id,
        "/v2/lbaas/pools",
        json!({"pool": {
        "listener_id": l["id"], "protocol": "TCP", "lb_algorithm": "SOURCE_IP_PORT"}}),
    );
    let pool_id = pool["id"].as_str().unwrap();

    // [networking] reserved_ips: a member on a reserved address is refused.
    let (code, body) = keel.api(
        "POST",
        &format!("/v2/lbaas/pools/{pool_id}/members"),
        &t,
        Some(&json!({"member": {
        "address": "10.0.0.77", "protocol_port": 80, "subnet_id": net.subnet}})),
    );
    assert_eq!(code, 400, "{body}");
    assert!(
        body["faultstring"].as_str().unwrap().contains("10.0.0.77"),
        "{body}"
    );

    // allow_ping_health_monitors = False.
    let (code, body) = keel.api(
        "POST",
        "/v2/lbaas/healthmonitors",
        &t,
        Some(&json!({"healthmonitor": {
        "pool_id": pool_id, "type": "PING", "delay": 5, "timeout": 3, "max_retries": 3}})),
    );
    assert_eq!(code, 400, "{body}");
    assert!(
        body["faultstring"].as_str().unwrap().contains("PING"),
        "{body}"
    );

    // [oslo_middleware] max_request_body_size = 2000: 413 above, parsed below.
    let url = format!("{}/v2/lbaas/loadbalancers/{lb_id}", keel.url());
    let big = format!(
        "{{\"loadbalancer\": {{\"description\": \"{}\"}}}}",
        "x".repeat(2100)
    );
    let (code, _, text) = raw("PUT", &url, &[("X-Auth-Token", &t)], Some(&big));
    assert_eq!(code, 413, "{text}");
    assert!(text.contains("max_request_body_size (2000)"), "{text}");
    let small = format!(
        "{{\"loadbalancer\": {{\"description\": \"{}\"}}}}",
        "x".repeat(200)
    );
    let (code, _, text) = raw("PUT", &url, &[("X-Auth-Token", &t)], Some(&small));
    assert_eq!(code, 200, "{text}");
    keel.wait_lb_active(&t, &lb_id);
    keel.delete_lb_cascade(&t, &lb_id);
}

/// `healthcheck_enabled`, `enable_proxy_headers_parsing` and `allow_pagination` on; an
/// SQLAlchemy `sqlite:////abs/path` database created from nothing (the later file's
/// `[database] connection` wins over the harness's).
#[test]
fn healthcheck_proxy_headers_and_sqlalchemy_sqlite_url() {
    let keel = Keel::start_extra(
        Backend::Sqlite,
        "[api_settings]\nhealthcheck_enabled = True\nallow_pagination = False\n\
         [oslo_middleware]\nenable_proxy_headers_parsing = True\n\
         [database]\nconnection = sqlite:///{dir}/sqlalchemy-form.db\n",
    );
    let db = keel.dir().join("sqlalchemy-form.db");
    assert!(
        db.is_file(),
        "{} created from the SQLAlchemy URL; log: {}",
        db.display(),
        keel.log()
    );
    assert!(
        !keel.dir().join("keel.sqlite").exists(),
        "the first file's connection lost"
    );
    // No [healthcheck] backends: oslo's empty answer, a 204 through pecan.
    let (code, _, text) = raw("GET", &format!("{}/healthcheck", keel.url()), &[], None);
    assert_eq!((code, text.trim()), (204, ""));

    // X-Forwarded-Proto read: the version document's links are https.
    let (code, _, text) = raw(
        "GET",
        &format!("{}/", keel.url()),
        &[("X-Forwarded-Proto", "https")],
        None,
    );
    assert_eq!(code, 200, "{text}");
    let v: Value = serde_json::from_str(&text).unwrap();
    let href = v["versions"][0]["links"][0]["href"].as_str().unwrap();
    assert!(href.starts_with("https://127.0.0.1:"), "{v}");

    // allow_pagination = False: no links even with a limit.
    let t = demo_token();
    let (code, body) = keel.api("GET", "/v2/lbaas/loadbalancers?limit=1", &t, None);
    assert_eq!(code, 200, "{body}");
    assert!(
        body.get("loadbalancers_links")
            .is_none_or(|l| l.as_array().is_none_or(|a| a.is_empty())),
        "{body}"
    );
    // The default (healthcheck_enabled = False) is 404: see the harness's plain Keel.
    let plain = Keel::start(Backend::Sqlite);
    let (code, _, _) = raw("GET", &format!("{}/healthcheck", plain.url()), &[], None);
    assert_eq!(code, 404);
    let (_, _, text) = raw(
        "GET",
        &format!("{}/", plain.url()),
        &[("X-Forwarded-Proto", "https")],
        None,
    );
    assert!(
        text.contains("\"http://127.0.0.1:"),
        "proxy headers ignored by default: {text}"
    );
}

/// `[keystone_authtoken] service_token_roles` / `service_token_roles_required` against the
/// stack's Keystone, as keystonemiddleware: a request with `X-Service-Token` passes only when
/// that token is valid and (by default) carries a `service` role — the `octavia` service
/// user's does, the `admin` user's does not; an invalid one is a 401 even beside a valid user
/// token. `service_token_roles = admin` turns the admin token into a service token and the
/// demo user's away; `service_token_roles_required = False` accepts any valid token.
#[test]
fn service_tokens_as_keystonemiddleware() {
    let lbs = "/v2/lbaas/loadbalancers";
    let status = |keel: &Keel, user: Option<&str>, service: &str| {
        let mut h = vec![("X-Service-Token", service)];
        if let Some(u) = user {
            h.push(("X-Auth-Token", u));
        }
        raw("GET", &format!("{}{lbs}", keel.url()), &h, None).0
    };
    let demo = demo_token();
    let admin = admin_token();
    let octavia = token("octavia", "octavia-pass", "service");

    let keel = Keel::start(Backend::Sqlite);
    assert_eq!(
        raw(
            "GET",
            &format!("{}{lbs}", keel.url()),
            &[("X-Auth-Token", &demo)],
            None
        )
        .0,
        200
    );
    assert_eq!(status(&keel, Some(&demo), &octavia), 200);
    assert_eq!(status(&keel, Some(&demo), &admin), 401);
    assert_eq!(status(&keel, Some(&demo), "not-a-token"), 401);
    assert_eq!(
        status(&keel, None, &octavia),
        401,
        "a service token alone is no user"
    );
    drop(keel);

    let keel = Keel::start_extra(
        Backend::Sqlite,
        "[keystone_authtoken]\nservice_token_roles = admin\n",
    );
    assert_eq!(status(&keel, Some(&demo), &admin), 200);
    assert_eq!(status(&keel, Some(&admin), &demo), 401);
    drop(keel);

    let keel = Keel::start_extra(
        Backend::Sqlite,
        "[keystone_authtoken]\nservice_token_roles_required = False\n",
    );
    assert_eq!(status(&keel, Some(&admin), &demo), 200);
    assert_eq!(status(&keel, Some(&demo), "not-a-token"), 401);
}

/// `[keystone_authtoken]` scoped by `project_id`, the user's domain given only by
/// `default_domain_id` (the harness's `project_name` and domain names emptied by a later
/// file): the service token that validates users' tokens is asked for with them, so a user's
/// request is served; with a default domain Keystone does not know, the service credential is
/// refused and the API answers 503, as keystonemiddleware.
#[test]
fn keystone_authtoken_by_project_id_and_default_domain_id() {
    let admin = admin_token();
    let keystone = env("STACK_KEYSTONE_URL");
    let (code, projects) = common::http(
        "GET",
        &format!("{keystone}/projects?name=service&domain_id=default"),
        Some(&admin),
        None,
    );
    assert_eq!(code, 200, "{projects}");
    let service = projects["projects"][0]["id"].as_str().unwrap().to_string();
    let demo = demo_token();
    let lbs = |keel: &Keel| {
        raw(
            "GET",
            &format!("{}/v2/lbaas/loadbalancers", keel.url()),
            &[("X-Auth-Token", &demo)],
            None,
        )
        .0
    };
    let scoped = |domain: &str| {
        format!(
            "[keystone_authtoken]\nproject_name =\nproject_domain_name =\nuser_domain_name =\n\
             project_id = {service}\ndefault_domain_id = {domain}\n"
        )
    };
    let keel = Keel::start_extra(Backend::Sqlite, &scoped("default"));
    assert_eq!(lbs(&keel), 200, "{}", keel.log());
    drop(keel);
    let keel = Keel::start_extra(Backend::Sqlite, &scoped("no-such-domain"));
    assert_eq!(lbs(&keel), 503, "{}", keel.log());
    let log = keel.log();
    assert!(
        log.contains("keystone rejected the service credentials (401)"),
        "{log}"
    );
}

/// `keel --version`: the package version and the commit the binary was built from (a commit
/// of this repository), as an operator checks what is deployed.
#[test]
fn version_names_the_commit() {
    let out = Command::new(keel_bin()).arg("--version").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let want = format!("keel {} (commit ", env!("CARGO_PKG_VERSION"));
    let commit = text
        .trim()
        .strip_prefix(&want)
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        commit.len() == 12 && commit.chars().all(|c| c.is_ascii_hexdigit()),
        "{text}"
    );
    let known = Command::new("git")
        .args(["cat-file", "-e", &format!("{commit}^{{commit}}")])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .unwrap();
    assert!(
        known.success(),
        "{commit} is not a commit of this repository"
    );
}

/// Values Keel cannot honour stop `keel serve` naming section, key and why; options set but
/// not implemented are logged once at start-up.
#[test]
fn refusals_and_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("octavia.conf");
    std::fs::write(
        &conf,
        "[api_settings]\nauth_strategy = testing\n[ovn]\novn_nb_connection = ssl:127.0.0.1:1\n\
         [database]\nconnection = postgresql://u:p@h/o\n",
    )
    .unwrap();
    let out = Command::new(keel_bin())
        .arg("--config-file")
        .arg(&conf)
        .arg("serve")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    for want in [
        "[api_settings] auth_strategy",
        "[ovn] ovn_nb_connection: an ssl: remote needs ovn_nb_private_key",
        "[database] connection",
    ] {
        assert!(err.contains(want), "{want} in {err}");
    }

    let keel = Keel::start_extra(
        Backend::Sqlite,
        "[keystone_authtoken]\nmemcached_servers = 127.0.0.1:11211\n[audit]\nenabled = True\n\
         [driver_agent]\nenabled_provider_agents = ovn\n[made_up]\nkey = 1\n",
    );
    let log = keel.log();
    let count = |s: &str| log.lines().filter(|l| l.contains(s)).count();
    assert_eq!(
        count("option ignored") - count("unknown option ignored"),
        2,
        "{log}"
    );
    assert_eq!(count("memcached_servers"), 1, "{log}");
    assert_eq!(count("no CADF audit middleware"), 1, "{log}");
    assert_eq!(count("unknown option ignored"), 1, "{log}");
    assert_eq!(
        count("enabled_provider_agents"),
        0,
        "amphora/agent options stay quiet: {log}"
    );
    assert!(
        !log.contains('\x1b'),
        "no ANSI escapes in a log that is not a terminal"
    );
}

/// `keel config check` on the stack's own octavia.conf (the one the Python reference runs
/// with): it is accepted, the effective values are shown with the password masked, and the
/// ignored options are listed.
#[test]
fn config_check_on_the_reference_octavia_conf() {
    let reference = std::path::PathBuf::from(env("STACK_ETC")).join("octavia/octavia.conf");
    let text = std::fs::read_to_string(&reference).unwrap();
    let out = Command::new(keel_bin())
        .arg("--config-file")
        .arg(&reference)
        .args(["config", "check"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&format!(
            "ovn_nb_connection = {}    # {}",
            common::env("STACK_OVN_NB"),
            reference.display()
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("allow_sorting = True    # default"),
        "{stdout}"
    );
    for line in text
        .lines()
        .filter(|l| l.trim_start().starts_with("password"))
    {
        let secret = line.split_once('=').unwrap().1.trim();
        assert!(!stdout.contains(secret), "password shown: {stdout}");
    }
    assert!(
        stdout.contains("[driver_agent] status_socket_path"),
        "{stdout}"
    );
    assert!(
        // honoured now (the 401's WWW-Authenticate), so among the effective options
        // the stack's Keystone, whichever slot it runs on (ci/stack: port 5000 + slot offset)
        stdout.contains(&format!(
            "www_authenticate_uri = {}    # {}",
            common::env("STACK_KEYSTONE_URL").trim_end_matches("/v3"),
            reference.display()
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("# refused (keel serve would not start): 0"),
        "{stdout}"
    );
    // A refused file: exit status 1 with the reason printed.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.conf");
    std::fs::write(&bad, "[certificates]\ncert_manager = local_cert_manager\n").unwrap();
    let out = Command::new(keel_bin())
        .arg("--config-file")
        .arg(&bad)
        .args(["config", "check"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("[certificates] cert_manager"));
}

/// `keel config check` with keystoneauth's scope and default-domain options: honoured in
/// `[service_auth]` and `[neutron]` as in `[keystone_authtoken]` (shown among the effective
/// options with their file, not listed as ignored); two scopes in one section refused, naming
/// the second one's option.
#[test]
fn config_check_on_the_scope_options() {
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("octavia.conf");
    std::fs::write(
        &conf,
        "[service_auth]\nauth_url = http://k:5000/v3\nusername = octavia\nproject_id = p-1\n\
         default_domain_id = dd\n[neutron]\nsystem_scope = all\nproject_id = \n\
         [keystone_authtoken]\ndomain_name = Ops\n",
    )
    .unwrap();
    let check = |conf: &std::path::Path| {
        let out = Command::new(keel_bin())
            .arg("--config-file")
            .arg(conf)
            .args(["config", "check"])
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).to_string(),
        )
    };
    let (code, stdout) = check(&conf);
    let shown = conf.display();
    for want in [
        format!("project_id = p-1    # {shown}"),
        format!("default_domain_id = dd    # {shown}"),
        format!("system_scope = all    # {shown}"),
        format!("domain_name = Ops    # {shown}"),
        "# set but not implemented by Keel (ignored, logged at start-up): 0".to_string(),
        "# refused (keel serve would not start): 0".to_string(),
    ] {
        assert!(stdout.contains(&want), "{want} in {stdout}");
    }
    assert_eq!(code, Some(0), "{stdout}");

    std::fs::write(
        &conf,
        "[service_auth]\nproject_name = service\ntrust_id = t-1\n",
    )
    .unwrap();
    let (code, stdout) = check(&conf);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stdout.contains(
            "[service_auth] trust_id: the credential names more than one scope (project, trust)"
        ),
        "{stdout}"
    );
    assert!(stdout.contains(&format!("(in {shown})")), "{stdout}");
}
