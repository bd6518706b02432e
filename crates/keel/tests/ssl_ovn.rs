//! `[ovn]` over `ssl:`, NB and SB, with the reference's option names (`ovn_nb_private_key`,
//! `ovn_nb_certificate`, `ovn_nb_ca_cert` and the `ovn_sb_*` ones), against private
//! `ovsdb-server`s (fresh OVN_Northbound / OVN_Southbound databases from the ovn package's
//! schemas) listening only on `pssl:` on free loopback ports, with a CA and CN-only
//! certificates made here with the `openssl` CLI (as ovs-pki makes them). The stack's NB/SB
//! are never touched.
//!
//! Rotation without a Keel restart: Keel reads its three files at every connection attempt
//! (an established session keeps its handshake, as OVS's stream-ssl clients do), so
//! "picked up" means "used by the next connection". Two rotations, each followed by a server
//! restart that forces that next connection:
//! 1. the servers' certificate is replaced by one of a second CA, Keel's CA file becoming the
//!    bundle of both CAs — the old CA file alone no longer verifies the server (checked with
//!    `ovsdb-client`), and a listener create still reaches the NB;
//! 2. Keel's key and certificate are replaced on disk by ones of the second CA and the servers
//!    then trust only it — the old client certificate is refused (checked with
//!    `ovsdb-client`), and a pool create and the cascade delete still reach the NB, the SB
//!    session too is re-established.
//!
//! Runs a `keel serve` (its agent takes the lock on the private NB): in ci/test.sh's serial
//! set; needs the stack's Keystone and Neutron (`ci/stack/env.sh`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::{Backend, Keel, NeutronNet, demo_token, free_port, tag, wait_for};
use serde_json::{Value, json};
use test_pki::make_pki;

/// Replaces `to` by the concatenation of `from` (write aside, then rename: as a deployment
/// tool rotates a file, never a half-written one).
fn install(dir: &Path, from: &[&str], to: &str) {
    let mut text = Vec::new();
    for f in from {
        text.extend(std::fs::read(dir.join(f)).unwrap());
    }
    let tmp = dir.join(format!("{to}.new"));
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(tmp, dir.join(to)).unwrap();
}

/// A private `ovsdb-server` for `db` (`nb` or `sb`), killed on drop: `pssl:` on `port` with
/// `server.key` / `server.pem` / `server-ca.pem` of `dir`, and `punix:<db>.sock` for the
/// test's own reads.
struct Server(Child);

impl Server {
    fn start(dir: &Path, db: &str, port: u16) -> Server {
        let p = |f: &str| dir.join(f).display().to_string();
        let child = Command::new("ovsdb-server")
            .arg(format!("--remote=pssl:{port}:127.0.0.1"))
            .arg(format!("--remote=punix:{}", p(&format!("{db}.sock"))))
            .arg(format!("--private-key={}", p("server.key")))
            .arg(format!("--certificate={}", p("server.pem")))
            .arg(format!("--ca-cert={}", p("server-ca.pem")))
            .arg(format!("--unixctl={}", p(&format!("{db}.ctl"))))
            .arg("--no-chdir")
            .arg(format!("--log-file={}", p(&format!("{db}.log"))))
            .arg(p(&format!("{db}.db")))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let server = Server(child);
        wait_for(
            &format!("the private {db} pssl listener"),
            Duration::from_secs(20),
            || std::net::TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string()),
        );
        server
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `ovsdb-client transact` on the private NB's unix socket; the result array.
fn nb_transact(dir: &Path, ops: &Value) -> Value {
    let out = Command::new("ovsdb-client")
        .arg("transact")
        .arg(format!("unix:{}", dir.join("nb.sock").display()))
        .arg(ops.to_string())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!v.to_string().contains("\"error\""), "{v}");
    v
}

/// The private NB's `Load_Balancer` row named `lb_id` (`external_ids` as JSON text), if any.
fn lb_row(dir: &Path, lb_id: &str) -> Option<String> {
    let v = nb_transact(
        dir,
        &json!(["OVN_Northbound", {"op": "select", "table": "Load_Balancer",
            "where": [["name", "==", lb_id]], "columns": ["external_ids"]}]),
    );
    v[0]["rows"]
        .as_array()
        .and_then(|r| r.first())
        .map(|r| r["external_ids"].to_string())
}

/// Whether `ovsdb-client` with these files (relative to `dir`) can list the databases of the
/// `ssl:` server on `port` — OVS's own client as the reference for what the server accepts.
fn ovs_client_accepted(dir: &Path, port: u16, key: &str, cert: &str, ca: &str) -> bool {
    let p = |f: &str| dir.join(f).display().to_string();
    Command::new("ovsdb-client")
        .args(["--timeout=5", "--private-key", &p(key), "--certificate"])
        .args([&p(cert), "--ca-cert", &p(ca)])
        .args(["list-dbs", &format!("ssl:127.0.0.1:{port}")])
        .stdin(Stdio::null())
        .output()
        .unwrap()
        .status
        .success()
}

/// Waits until `keel`'s log shows `n` synced sessions to the `ssl:` server on `port`.
fn wait_synced(keel: &Keel, port: u16, n: usize, what: &str) {
    let remote = format!("remote=ssl:127.0.0.1:{port}");
    wait_for(what, Duration::from_secs(30), || {
        let log = keel.log();
        let got = log
            .lines()
            .filter(|l| l.contains("OVSDB replica synced") && l.contains(&remote))
            .count();
        if got >= n {
            Ok(())
        } else {
            let tail: Vec<&str> = log.lines().rev().take(15).collect();
            Err(format!(
                "{got} syncs to {remote}; log tail: {}",
                tail.join("\n")
            ))
        }
    });
}

/// Polls the LB's NB row until `ok(external_ids text or None)` holds (30 s).
fn wait_row(dir: &Path, lb_id: &str, what: &str, ok: impl Fn(Option<&str>) -> bool) {
    wait_for(what, Duration::from_secs(30), || {
        let row = lb_row(dir, lb_id);
        if ok(row.as_deref()) {
            Ok(())
        } else {
            Err(format!("{row:?}"))
        }
    });
}

#[test]
fn ssl_nb_and_sb_with_rotated_certificates_and_no_restart() {
    let pki = tempfile::tempdir().unwrap();
    let d = pki.path();
    make_pki(d, "ca", &["server", "client"]);
    for (db, schema) in [("nb", "ovn-nb"), ("sb", "ovn-sb")] {
        let st = Command::new("ovsdb-tool")
            .arg("create")
            .arg(d.join(format!("{db}.db")))
            .arg(format!("/usr/share/ovn/{schema}.ovsschema"))
            .status()
            .unwrap();
        assert!(st.success(), "ovsdb-tool create {db}");
    }
    install(d, &["server.key"], "server.key");
    install(d, &["server.pem"], "server.pem");
    install(d, &["ca.pem"], "server-ca.pem");
    // Keel's files: fixed paths, replaced in place later.
    install(d, &["client.key"], "keel.key");
    install(d, &["client.pem"], "keel.pem");
    install(d, &["ca.pem"], "keel-ca.pem");
    let (nb_port, sb_port) = (free_port(), free_port());
    let mut nb = Server::start(d, "nb", nb_port);
    let mut sb = Server::start(d, "sb", sb_port);

    let tag = tag();
    let net = NeutronNet::create(&tag, &[]);
    // The network's switch, as Neutron's OVN driver makes it in a real NB.
    nb_transact(
        d,
        &json!(["OVN_Northbound", {"op": "insert", "table": "Logical_Switch",
            "row": {"name": format!("neutron-{}", net.net)}}]),
    );
    let p = |f: &str| d.join(f).display().to_string();
    let keel = Keel::start_extra(
        Backend::Sqlite,
        &format!(
            "[ovn]\novn_nb_connection = ssl:127.0.0.1:{nb_port}\n\
             ovn_nb_private_key = {key}\novn_nb_certificate = {cert}\novn_nb_ca_cert = {ca}\n\
             ovn_sb_connection = ssl:127.0.0.1:{sb_port}\n\
             ovn_sb_private_key = {key}\novn_sb_certificate = {cert}\novn_sb_ca_cert = {ca}\n\
             ovsdb_retry_max_interval = 1\n",
            key = p("keel.key"),
            cert = p("keel.pem"),
            ca = p("keel-ca.pem"),
        ),
    );
    wait_synced(&keel, nb_port, 1, "the NB session over ssl:");
    wait_synced(&keel, sb_port, 1, "the SB session over ssl: (the agent)");

    let t = demo_token();
    let (code, body) = keel.api(
        "POST",
        "/v2/lbaas/loadbalancers",
        &t,
        Some(&json!({"loadbalancer": {
            "name": format!("tls-{tag}"), "vip_subnet_id": net.subnet, "provider": "ovn"}})),
    );
    assert_eq!(code, 201, "{body}");
    let lb_id = body["loadbalancer"]["id"].as_str().unwrap().to_string();
    wait_row(d, &lb_id, "the LB's row in the ssl: NB", |r| r.is_some());
    keel.wait_lb_active(&t, &lb_id);

    // 1. The servers' certificate rotated to a second CA; Keel's CA file becomes the bundle.
    make_pki(d, "ca2", &["server2", "client2"]);
    install(d, &["ca.pem", "ca2.pem"], "keel-ca.pem");
    install(d, &["ca.pem", "ca2.pem"], "server-ca.pem");
    install(d, &["server2.key"], "server.key");
    install(d, &["server2.pem"], "server.pem");
    drop(nb);
    nb = Server::start(d, "nb", nb_port);
    assert!(
        !ovs_client_accepted(d, nb_port, "client.key", "client.pem", "ca.pem"),
        "the old CA file alone must not verify the rotated server certificate"
    );
    assert!(ovs_client_accepted(
        d,
        nb_port,
        "keel.key",
        "keel.pem",
        "keel-ca.pem"
    ));
    wait_synced(&keel, nb_port, 2, "Keel's reconnect to the rotated NB");
    let listener = keel.create(
        &t,
        &lb_id,
        "/v2/lbaas/listeners",
        json!({"listener": {"loadbalancer_id": lb_id, "protocol": "TCP", "protocol_port": 80}}),
    );
    let listener_id = listener["id"].as_str().unwrap().to_string();
    wait_row(d, &lb_id, "the listener in the NB row", |r| {
        r.is_some_and(|r| r.contains(&format!("listener_{listener_id}")))
    });

    // 2. Keel's own key and certificate replaced on disk; the servers trust only the new CA.
    install(d, &["client2.key"], "keel.key");
    install(d, &["client2.pem"], "keel.pem");
    install(d, &["ca2.pem"], "server-ca.pem");
    drop(nb);
    drop(sb);
    nb = Server::start(d, "nb", nb_port);
    sb = Server::start(d, "sb", sb_port);
    assert!(
        !ovs_client_accepted(d, nb_port, "client.key", "client.pem", "keel-ca.pem"),
        "the old client certificate must be refused now"
    );
    wait_synced(
        &keel,
        nb_port,
        3,
        "Keel's reconnect with its new certificate (NB)",
    );
    wait_synced(
        &keel,
        sb_port,
        2,
        "Keel's reconnect with its new certificate (SB)",
    );
    let pool = keel.create(
        &t,
        &lb_id,
        "/v2/lbaas/pools",
        json!({"pool": {"listener_id": listener_id, "protocol": "TCP",
            "lb_algorithm": "SOURCE_IP_PORT"}}),
    );
    let pool_id = pool["id"].as_str().unwrap().to_string();
    wait_row(d, &lb_id, "the pool in the NB row", |r| {
        r.is_some_and(|r| r.contains(&format!("pool_{pool_id}")))
    });
    let (code, body) = keel.api(
        "DELETE",
        &format!("/v2/lbaas/loadbalancers/{lb_id}?cascade=true"),
        &t,
        None,
    );
    assert_eq!(code, 204, "{body}");
    wait_row(d, &lb_id, "the LB's row gone from the NB", |r| r.is_none());
    let log = keel.log();
    assert!(!log.contains("panicked"), "keel serve panicked: {log}");
    drop((nb, sb));
}
