//! `ssl:` remotes against a private ovsdb-server with `--private-key/--certificate/--ca-cert`
//! and a `pssl:` listener; certificates made with the `openssl` CLI (`test-pki`: a CA, and
//! leaf certificates carrying only a CN, as ovs-pki makes them).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use common::{NB, NB_SCHEMA, poll_until};
use ovsdb::{Client, ClientOptions, Error, MonitorSpec, SslFiles, Transaction, Value};
use test_pki::{make_ca, make_leaf};

/// `ovsdb-server` on `nb.db` of `d` with a `pssl:` listener on `port` (TLS files relative to
/// `d`); returns once the port accepts connections.
fn spawn_server(d: &Path, port: u16, key: &str, cert: &str, ca: &str) -> Child {
    let p = |f: &str| d.join(f).display().to_string();
    let child = Command::new("ovsdb-server")
        .arg(format!("--remote=pssl:{port}:127.0.0.1"))
        .arg(format!("--private-key={}", p(key)))
        .arg(format!("--certificate={}", p(cert)))
        .arg(format!("--ca-cert={}", p(ca)))
        .arg(format!("--unixctl={}", p("ctl")))
        .arg("--no-chdir")
        .arg(format!("--log-file={}", p("log")))
        .arg(p("nb.db"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    poll_until(20, "pssl listener", || {
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    });
    child
}

struct SslServer {
    dir: tempfile::TempDir,
    child: Child,
    port: u16,
}

impl SslServer {
    fn start() -> SslServer {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        make_ca(d, "ca");
        make_leaf(d, "ca", "server");
        make_leaf(d, "ca", "client");
        make_ca(d, "otherca");
        make_leaf(d, "otherca", "stranger");
        let st = Command::new("ovsdb-tool")
            .arg("create")
            .arg(d.join("nb.db"))
            .arg(NB_SCHEMA)
            .status()
            .unwrap();
        assert!(st.success());
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = spawn_server(d, port, "server.key", "server.pem", "ca.pem");
        SslServer { dir, child, port }
    }

    /// Stops the server and starts it again on the same port and database with other files
    /// (relative to the temp dir).
    fn restart(&mut self, key: &str, cert: &str, ca: &str) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.child = spawn_server(self.dir.path(), self.port, key, cert, ca);
    }

    fn files(&self, key: &str, cert: &str, ca: &str) -> SslFiles {
        let p = |f: &str| -> PathBuf { self.dir.path().join(f) };
        SslFiles {
            private_key: p(key),
            certificate: p(cert),
            ca_cert: p(ca),
        }
    }

    fn remote(&self) -> String {
        format!("ssl:127.0.0.1:{}", self.port)
    }
}

impl Drop for SslServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn opts(ssl: Option<SslFiles>) -> ClientOptions {
    ClientOptions {
        ssl,
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ssl_remote_with_client_certificate() {
    let server = tokio::task::block_in_place(SslServer::start);
    let spec = || MonitorSpec::new().table("Load_Balancer");
    let good = server.files("client.key", "client.pem", "ca.pem");
    let nb = Client::connect_with(&server.remote(), NB, spec(), opts(Some(good.clone())))
        .await
        .unwrap();
    let res = nb
        .transact(Transaction::new(NB).insert(
            "Load_Balancer",
            [("name", Value::from("over-tls"))],
            None,
        ))
        .await
        .unwrap();
    let snap = nb.replica();
    assert_eq!(
        snap.row("Load_Balancer", &res[0].uuid.unwrap())
            .unwrap()
            .get_str("name"),
        Some("over-tls")
    );
    let rows = common::query_all_ssl(
        &server.remote(),
        &good.private_key,
        &good.certificate,
        &good.ca_cert,
        "Load_Balancer",
    );
    common::assert_rows_match(rows, &snap, "Load_Balancer");

    // A server whose certificate does not chain to our CA is refused.
    let wrong_ca = server.files("client.key", "client.pem", "otherca.pem");
    let err = Client::connect_with(&server.remote(), NB, spec(), opts(Some(wrong_ca)))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Tls { .. } if err.to_string().contains("handshake")),
        "{err:?}"
    );
    // The server refuses a client certificate from another CA.
    let stranger = server.files("stranger.key", "stranger.pem", "ca.pem");
    let err = Client::connect_with(&server.remote(), NB, spec(), opts(Some(stranger)))
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::Tls { .. } | Error::Eof | Error::Io(_)),
        "{err:?}"
    );
    // Missing or unreadable files are typed errors, not panics.
    let err = Client::connect_with(&server.remote(), NB, spec(), opts(None))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Tls { .. }), "{err:?}");
    let missing = server.files("nope.key", "client.pem", "ca.pem");
    let err = Client::connect_with(&server.remote(), NB, spec(), opts(Some(missing)))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Tls { .. } if err.to_string().contains("nope.key")),
        "{err:?}"
    );
    let garbage = server.files("ext.cnf", "client.pem", "ca.pem");
    let err = Client::connect_with(&server.remote(), NB, spec(), opts(Some(garbage)))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Tls { .. }), "{err:?}");
}

/// Replaces `to` (in `d`) by `from`'s content: written aside, then renamed, as deployment
/// tools rotate files.
fn rotate(d: &Path, from: &str, to: &str) {
    std::fs::copy(d.join(from), d.join(format!("{to}.new"))).unwrap();
    std::fs::rename(d.join(format!("{to}.new")), d.join(to)).unwrap();
}

/// The files are read at every connection attempt: a live session keeps its handshake, and
/// once the server restarts with a certificate of another CA and trusts only that CA, the
/// reconnect succeeds with the client's files as they are on disk by then.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rotated_files_are_used_by_the_next_connection() {
    let mut server = tokio::task::block_in_place(SslServer::start);
    let d = server.dir.path().to_path_buf();
    for (from, to) in [
        ("client.key", "mine.key"),
        ("client.pem", "mine.pem"),
        ("ca.pem", "mine-ca.pem"),
    ] {
        rotate(&d, from, to);
    }
    let mut o = opts(Some(server.files("mine.key", "mine.pem", "mine-ca.pem")));
    o.backoff_max = std::time::Duration::from_millis(500);
    let spec = MonitorSpec::new().table("Load_Balancer");
    let nb = Client::connect_with(&server.remote(), NB, spec, o)
        .await
        .unwrap();
    assert_eq!(nb.state().syncs, 1);

    // New server and client certificates from `otherca`; the client's files replaced on
    // disk while its session is up: the session is untouched.
    make_leaf(&d, "otherca", "server2");
    make_leaf(&d, "otherca", "client2");
    rotate(&d, "client2.key", "mine.key");
    rotate(&d, "client2.pem", "mine.pem");
    rotate(&d, "otherca.pem", "mine-ca.pem");
    let insert = |name: &str| {
        Transaction::new(NB).insert("Load_Balancer", [("name", Value::from(name))], None)
    };
    nb.transact(insert("before-restart")).await.unwrap();
    assert_eq!(nb.state().syncs, 1);

    // The server now presents server2 and trusts only otherca: the old files would fail both
    // ways, the reconnect reads the new ones.
    tokio::task::block_in_place(|| server.restart("server2.key", "server2.pem", "otherca.pem"));
    let mut state = nb.watch_state();
    tokio::time::timeout(
        std::time::Duration::from_secs(20),
        state.wait_for(|s| s.connected && s.syncs >= 2),
    )
    .await
    .expect("reconnected with the rotated files within 20 s")
    .unwrap();
    nb.transact(insert("after-rotation")).await.unwrap();
    let snap = nb.replica();
    for name in ["before-restart", "after-rotation"] {
        assert!(snap.find_by_name("Load_Balancer", name).is_some(), "{name}");
    }
    // A client still holding the old files is refused by the rotated server.
    let old = server.files("client.key", "client.pem", "ca.pem");
    let err = Client::connect_with(&server.remote(), NB, MonitorSpec::new(), opts(Some(old)))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Tls { .. }), "{err:?}");
}
