//! Keystone, Neutron and Barbican over HTTPS with a private CA: the stack's real services
//! behind a real TLS terminator (Debian's haproxy, started by `ci/stack/tls.sh` with its own
//! CA in a temp dir and free loopback ports), Keel configured with the reference's options
//! — `[keystone_authtoken] cafile`, `[service_auth] cafile`, `[neutron] cafile` /
//! `insecure`, `[certificates] ca_certificates_file` — and the HTTPS URLs
//! (`auth_url`, `[neutron] endpoint_override`, `[certificates] endpoint`).
//!
//! * Right CA: a load balancer (user token validated over HTTPS, the VIP port made in Neutron
//!   over HTTPS with the service token fetched over HTTPS) and a TCP listener become ACTIVE;
//!   a TERMINATED_HTTPS listener's PKCS12 bundle is read from Barbican over HTTPS and then
//!   refused by the OVN provider (501), which only a successful Barbican read reaches.
//! * A CA that did not sign the terminator's certificate, per section: `[keystone_authtoken]`
//!   → 503 `The Keystone service is temporarily unavailable.`; `[neutron]` → 503 naming
//!   Neutron and nothing stored; `[neutron] insecure = True` with the same wrong CA → the load
//!   balancer is created (as keystoneauth, `insecure` wins over `cafile`);
//!   `[certificates]` → 400 `Could not retrieve certificate: ['<ref>']` as Octavia (every
//!   Barbican failure is that 400), the log naming the TLS failure; never a 500.
//! * A CA file that does not exist: `keel serve` refuses to start, naming the option.
//!
//! Runs `keel serve` (in ci/test.sh's serial set); needs the stack (`ci/stack/env.sh`) and
//! haproxy (`ci/stack/tls.sh` installs it).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;
use std::process::Command;

use common::tls::Terminator;
use common::{Backend, Keel, NeutronNet, demo_token, env, free_port, keel_bin, tag};
use serde_json::{Value, json};

/// A CA that signed nothing the terminator presents.
fn wrong_ca(dir: &Path) -> String {
    test_pki::make_ca(dir, "wrong-ca");
    dir.join("wrong-ca.pem").display().to_string()
}

/// Which CA file each section gets, and `[neutron] insecure`.
struct Cas<'a> {
    authtoken: &'a str,
    service_auth: &'a str,
    neutron: &'a str,
    neutron_insecure: bool,
    barbican: &'a str,
}

/// The extra octavia.conf pointing every peer at the terminator. Generous peer timeouts: a
/// wrong CA fails at the handshake at once, and a loaded machine must not turn a slow
/// Keystone into another 503 than the one under test.
fn conf(tls: &Terminator, cas: &Cas) -> String {
    let ks = tls.var("STACK_KEYSTONE_HTTPS_URL");
    format!(
        "[keystone_authtoken]\nauth_url = {ks}\ncafile = {}\nhttp_connect_timeout = 30\n\
         [service_auth]\nauth_url = {ks}\ncafile = {}\ntimeout = 30\n\
         [neutron]\nendpoint_override = {}\ncafile = {}\ninsecure = {}\n\
         [certificates]\nendpoint = {}\nca_certificates_file = {}\n",
        cas.authtoken,
        cas.service_auth,
        tls.var("STACK_NEUTRON_HTTPS_URL"),
        cas.neutron,
        if cas.neutron_insecure {
            "True"
        } else {
            "False"
        },
        tls.var("STACK_BARBICAN_HTTPS_URL"),
        cas.barbican,
    )
}

/// A password-less PKCS12 bundle (self-signed www.example.com) stored in Barbican as `demo`
/// over the terminator (curl with the stack CA); its secret ref.
fn store_bundle(tls: &Terminator, work: &Path, token: &str) -> String {
    test_pki::self_signed(work);
    test_pki::pkcs12(work, "bundle.p12", "");
    let b64 = String::from_utf8(test_pki::openssl(
        work,
        &["base64", "-A", "-in", "bundle.p12"],
    ))
    .unwrap();
    let body = json!({"name": format!("keel-https-{}", tag()), "payload": b64.trim(),
        "payload_content_type": "application/octet-stream",
        "payload_content_encoding": "base64", "secret_type": "opaque"});
    let out = Command::new("curl")
        .args(["-sS", "--cacert", tls.var("STACK_TLS_CA"), "-X", "POST"])
        .args(["-H", "Content-Type: application/json", "-H"])
        .arg(format!("X-Auth-Token: {token}"))
        .arg("-d")
        .arg(body.to_string())
        .arg(format!(
            "{}/v1/secrets",
            tls.var("STACK_BARBICAN_HTTPS_URL")
        ))
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("barbican: {}", String::from_utf8_lossy(&out.stdout)));
    v["secret_ref"].as_str().unwrap().to_string()
}

fn lb_body(net: &NeutronNet, name: &str) -> Value {
    json!({"loadbalancer": {"name": name, "vip_subnet_id": net.subnet, "provider": "ovn"}})
}

fn tls_listener(lb_id: &str, secret: &str) -> Value {
    json!({"listener": {"loadbalancer_id": lb_id, "protocol": "TERMINATED_HTTPS",
        "protocol_port": 443, "default_tls_container_ref": secret}})
}

#[test]
fn https_peers_with_the_private_ca() {
    let tls = Terminator::up(None);
    let ca = tls.var("STACK_TLS_CA").to_string();
    let keel = Keel::start_extra(
        Backend::Sqlite,
        &conf(
            &tls,
            &Cas {
                authtoken: &ca,
                service_auth: &ca,
                neutron: &ca,
                neutron_insecure: false,
                barbican: &ca,
            },
        ),
    );
    let t = demo_token();
    let tag = tag();
    let net = NeutronNet::create(&tag, &[]);
    let (code, body) = keel.api(
        "POST",
        "/v2/lbaas/loadbalancers",
        &t,
        Some(&lb_body(&net, &format!("https-{tag}"))),
    );
    assert_eq!(code, 201, "{body}\n{}", keel.log());
    let lb_id = body["loadbalancer"]["id"].as_str().unwrap().to_string();
    let port_id = body["loadbalancer"]["vip_port_id"]
        .as_str()
        .unwrap()
        .to_string();
    keel.wait_lb_active(&t, &lb_id);
    // The VIP port Keel made through the terminator is in Neutron.
    let (code, port) = common::neutron("GET", &format!("/ports/{port_id}"), &t, None);
    assert_eq!(code, 200, "{port}");
    keel.create(
        &t,
        &lb_id,
        "/v2/lbaas/listeners",
        json!({"listener": {"loadbalancer_id": lb_id, "protocol": "TCP", "protocol_port": 80}}),
    );

    let work = tempfile::tempdir().unwrap();
    let secret = store_bundle(&tls, work.path(), &t);
    let (code, body) = keel.api(
        "POST",
        "/v2/lbaas/listeners",
        &t,
        Some(&tls_listener(&lb_id, &secret)),
    );
    assert_eq!(
        code, 501,
        "read from Barbican, refused by the provider: {body}"
    );
    assert!(
        body["faultstring"]
            .as_str()
            .unwrap_or_default()
            .contains("TERMINATED_HTTPS"),
        "{body}"
    );
    keel.wait_lb_active(&t, &lb_id);
    keel.delete_lb_cascade(&t, &lb_id);
    let _ = Command::new("curl")
        .args(["-sS", "--cacert", &ca, "-X", "DELETE", "-H"])
        .arg(format!("X-Auth-Token: {t}"))
        .arg(secret.replace(
            &env("STACK_BARBICAN_URL"),
            tls.var("STACK_BARBICAN_HTTPS_URL"),
        ))
        .output();
}

#[test]
fn a_wrong_ca_fails_clearly_per_section() {
    let tls = Terminator::up(None);
    let ca = tls.var("STACK_TLS_CA").to_string();
    let work = tempfile::tempdir().unwrap();
    let wrong = wrong_ca(work.path());
    let t = demo_token();
    let tag = tag();
    let net = NeutronNet::create(&tag, &[]);
    let right = Cas {
        authtoken: &ca,
        service_auth: &ca,
        neutron: &ca,
        neutron_insecure: false,
        barbican: &ca,
    };

    // [keystone_authtoken]: user tokens cannot be validated.
    let keel = Keel::start_extra(
        Backend::Sqlite,
        &conf(
            &tls,
            &Cas {
                authtoken: &wrong,
                ..right
            },
        ),
    );
    let (code, body) = keel.api("GET", "/v2/lbaas/loadbalancers", &t, None);
    assert_eq!(code, 503, "{body}");
    assert_eq!(
        body["faultstring"], "The Keystone service is temporarily unavailable.",
        "{body}"
    );
    drop(keel);

    // [neutron]: the VIP subnet cannot be read; nothing stored.
    let keel = Keel::start_extra(
        Backend::Sqlite,
        &conf(
            &tls,
            &Cas {
                neutron: &wrong,
                ..right
            },
        ),
    );
    let (code, body) = keel.api(
        "POST",
        "/v2/lbaas/loadbalancers",
        &t,
        Some(&lb_body(&net, &format!("wrong-neutron-{tag}"))),
    );
    assert_eq!(code, 503, "{body}");
    assert!(
        body["faultstring"]
            .as_str()
            .unwrap_or_default()
            .contains("Neutron"),
        "{body}\n{}",
        keel.log()
    );
    let (code, body) = keel.api("GET", "/v2/lbaas/loadbalancers", &t, None);
    assert_eq!(code, 200);
    assert_eq!(body["loadbalancers"], json!([]), "nothing stored");
    drop(keel);

    // [neutron] insecure = True: the wrong CA does not matter; [certificates] with the wrong
    // CA: the certificate cannot be read (Octavia's 400), the log says why.
    let keel = Keel::start_extra(
        Backend::Sqlite,
        &conf(
            &tls,
            &Cas {
                neutron: &wrong,
                neutron_insecure: true,
                barbican: &wrong,
                ..right
            },
        ),
    );
    let (code, body) = keel.api(
        "POST",
        "/v2/lbaas/loadbalancers",
        &t,
        Some(&lb_body(&net, &format!("insecure-{tag}"))),
    );
    assert_eq!(code, 201, "insecure = True: {body}\n{}", keel.log());
    let lb_id = body["loadbalancer"]["id"].as_str().unwrap().to_string();
    keel.wait_lb_active(&t, &lb_id);
    let secret = store_bundle(&tls, work.path(), &t);
    let (code, body) = keel.api(
        "POST",
        "/v2/lbaas/listeners",
        &t,
        Some(&tls_listener(&lb_id, &secret)),
    );
    assert_eq!(code, 400, "{body}");
    assert_eq!(
        body["faultstring"],
        format!("Could not retrieve certificate: ['{secret}']"),
        "{body}"
    );
    let log = keel.log();
    assert!(
        log.lines()
            .any(|l| l.contains("barbican") && l.to_lowercase().contains("certificate")),
        "the log names the Barbican TLS failure: {log}"
    );
    keel.wait_lb_active(&t, &lb_id);
    keel.delete_lb_cascade(&t, &lb_id);
    drop(keel);

    // A CA file that does not exist: no start, the option named.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("octavia.conf");
    std::fs::write(
        &file,
        format!(
            "[neutron]\ncafile = {}/nope.pem\n[database]\nconnection = sqlite://{}/x.db?mode=rwc\n\
             [api_settings]\nbind_host = 127.0.0.1\nbind_port = {}\n",
            dir.path().display(),
            dir.path().display(),
            free_port()
        ),
    )
    .unwrap();
    let out = Command::new(keel_bin())
        .arg("--config-file")
        .arg(&file)
        .arg("serve")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let err =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("[neutron] cafile") && err.contains("nope.pem"),
        "{err}"
    );
}
