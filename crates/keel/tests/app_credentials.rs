//! `auth_type = v3applicationcredential` (RHOSO's octavia-operator renders it in
//! `[keystone_authtoken]` and `[service_auth]`; `[neutron]` then falls back to
//! `[service_auth]`'s) against the stack's REAL Keystone, with REAL application credentials
//! of the `octavia` service user made here through the `openstack` CLI. Every password in
//! Keel's files is wrong, so only the credentials can make the API answer: a user token is
//! validated, a load balancer with a listener, pool and member goes ACTIVE (Neutron calls on
//! the credential's token). A secret Keystone refuses stops `keel serve` before the database
//! is touched, naming the section and key.
//!
//! Needs the environment of `ci/stack/env.sh` (run through `ci/test.sh`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::{Backend, Keel, MariaDb, NeutronNet, demo_token, tag};
use serde_json::Value;

/// An application credential of the `octavia` user (project `service`), deleted on drop.
struct AppCred {
    id: String,
    name: String,
    secret: String,
}

fn as_octavia(args: &[&str]) -> Command {
    let mut c = Command::new("openstack");
    c.args(args)
        .env("OS_USERNAME", "octavia")
        .env("OS_PASSWORD", "octavia-pass")
        .env("OS_PROJECT_NAME", "service")
        .env("OS_USER_DOMAIN_NAME", "Default")
        .env("OS_PROJECT_DOMAIN_NAME", "Default");
    c
}

impl AppCred {
    fn create() -> AppCred {
        let name = format!("keel-test-{}", tag());
        let out = as_octavia(&["application", "credential", "create", &name, "-f", "json"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        AppCred {
            id: v["ID"].as_str().unwrap().to_string(),
            secret: v["Secret"].as_str().unwrap().to_string(),
            name,
        }
    }
}

impl Drop for AppCred {
    fn drop(&mut self) {
        let _ = as_octavia(&["application", "credential", "delete", &self.id]).output();
    }
}

/// The octavia.conf lines of one section: the credential by id (or by name with its user),
/// and a wrong password that the password plugin would send.
fn by_id(c: &AppCred, secret: &str) -> String {
    format!(
        "auth_type = v3applicationcredential\napplication_credential_id = {}\n\
         application_credential_secret = {secret}\npassword = not-the-password\n",
        c.id
    )
}

fn by_name(c: &AppCred) -> String {
    format!(
        "auth_type = v3applicationcredential\napplication_credential_name = {}\n\
         username = octavia\nuser_domain_name = Default\n\
         application_credential_secret = {}\npassword = not-the-password\n",
        c.name, c.secret
    )
}

#[test]
fn keel_runs_on_application_credentials_of_the_octavia_user() {
    let sa = AppCred::create();
    let kat = AppCred::create();
    // RHOSO's shape: [keystone_authtoken] and [service_auth] carry the credential; [neutron]
    // sets only project options, so its credential is [service_auth]'s.
    let keel = Keel::start_extra(
        Backend::MariaDb,
        &format!(
            "[service_auth]\n{}[keystone_authtoken]\n{}[neutron]\nproject_name = service\n",
            by_id(&sa, &sa.secret),
            by_name(&kat)
        ),
    );
    let log = keel.log();
    assert!(
        log.contains("application credential accepted by Keystone"),
        "{log}"
    );
    let token = demo_token();
    let (code, body) = keel.api("GET", "/v2/lbaas/loadbalancers", &token, None);
    assert_eq!(code, 200, "{body}: {}", keel.log());

    let t = tag();
    let net = NeutronNet::create(&t, &["10.0.0.21"]);
    let g = keel.create_graph(&token, &format!("appcred-{t}"), &net.subnet, &["10.0.0.21"]);
    let (code, body) = keel.api(
        "GET",
        &format!("/v2/lbaas/loadbalancers/{}/status", g.lb_id),
        &token,
        None,
    );
    assert_eq!(code, 200, "{body}");
    let lb = &body["statuses"]["loadbalancer"];
    assert_eq!(lb["provisioning_status"], "ACTIVE", "{body}");
    assert_eq!(
        lb["listeners"][0]["pools"][0]["members"][0]["provisioning_status"], "ACTIVE",
        "{body}"
    );
    // The VIP port was made by Neutron for the credential's user (octavia, project service).
    let (code, port) = common::neutron(
        "GET",
        &format!("/ports?fixed_ips=ip_address%3D{}", g.vip),
        &common::admin_token(),
        None,
    );
    assert_eq!(code, 200);
    assert!(!port["ports"].as_array().unwrap().is_empty(), "{port}");
    keel.delete_lb_cascade(&token, &g.lb_id);
    drop(g);
}

/// `keel serve` with the given extra octavia.conf text over the harness's base (password
/// sections), on a fresh database that is never upgraded: its exit status and output.
fn serve_refused(extra: &str) -> (bool, String, usize) {
    let db = MariaDb::create();
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("octavia.conf");
    let auth = format!(
        "auth_url = {}\nusername = octavia\npassword = octavia-pass\nproject_name = service\n",
        common::env("STACK_KEYSTONE_URL")
    );
    std::fs::write(
        &conf,
        format!(
            "[api_settings]\nbind_port = {}\n[database]\nconnection = {}\n\
             [keystone_authtoken]\n{auth}[service_auth]\n{auth}[neutron]\nendpoint = {}\n\
             [ovn]\novn_nb_connection = {}\novn_sb_connection = {}\n",
            common::free_port(),
            db.url(),
            common::env("STACK_NEUTRON_URL"),
            common::env("STACK_OVN_NB"),
            common::env("STACK_OVN_SB"),
        ),
    )
    .unwrap();
    let extra_file = dir.path().join("extra.conf");
    std::fs::write(&extra_file, extra).unwrap();
    let started = Instant::now();
    let out = Command::new(common::keel_bin())
        .arg("--config-file")
        .arg(&conf)
        .arg("--config-file")
        .arg(&extra_file)
        .arg("serve")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(60));
    let tables: usize = db
        .sql(&format!(
            "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = '{}'",
            db.name
        ))
        .parse()
        .unwrap();
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
        tables,
    )
}

#[test]
fn a_credential_keystone_refuses_stops_start_up_naming_section_and_key() {
    let c = AppCred::create();
    let (ok, out, tables) = serve_refused(&format!("[service_auth]\n{}", by_id(&c, "wrong")));
    assert!(!ok, "{out}");
    assert!(
        out.contains(&format!(
            "[service_auth] application_credential_id: Keystone refused the application credential \"{}\" (401",
            c.id
        )),
        "{out}"
    );
    assert_eq!(tables, 0, "the database was touched: {out}");

    // [service_auth] good, [keystone_authtoken] refused: that section is named, not a
    // fallback to the other identity.
    let (ok, out, tables) = serve_refused(&format!(
        "[service_auth]\n{}[keystone_authtoken]\n{}",
        by_id(&c, &c.secret),
        by_id(&c, "wrong")
    ));
    assert!(!ok, "{out}");
    assert!(
        out.contains("[keystone_authtoken] application_credential_id: Keystone refused"),
        "{out}"
    );
    assert_eq!(tables, 0, "{out}");

    // A deleted credential (by name) is refused the same way.
    let name = c.name.clone();
    drop(c);
    let (ok, out, _) = serve_refused(&format!(
        "[service_auth]\nauth_type = v3applicationcredential\napplication_credential_name = {name}\n\
         user_id = nobody\napplication_credential_secret = x\n"
    ));
    assert!(!ok, "{out}");
    assert!(
        out.contains("[service_auth] application_credential_name: Keystone refused"),
        "{out}"
    );
}
