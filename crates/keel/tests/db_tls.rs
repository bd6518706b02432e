//! `[database] connection = mysql+pymysql://…?ssl_ca=…` over a REAL TLS MariaDB: the stack's
//! second server (`ci/stack/db-tls.sh`: `require_secure_transport = ON`, a private CA, a user
//! that needs a client certificate). `keel db upgrade` / `keel db current` run exactly as an
//! operator runs them: the schema lands through a verified TLS session, a client certificate
//! is presented when asked for, a wrong CA and a plaintext URL are refused by the handshake or
//! the server, a missing file is refused before any connection, and nothing is written then.
//! `max_retries = -1` retries for ever, as oslo.db.
//!
//! Needs the environment of `ci/stack/env.sh` (run through `ci/test.sh`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn env(name: &str) -> String {
    std::env::var(name)
        .unwrap_or_else(|_| panic!("{name} is not set: run the tests through ci/test.sh"))
}

const PASS: &str = "keel-db-pass";

/// The `mariadb` CLI as `user` over verified TLS (the test's own view of the server).
fn sql(user: &str, extra: &[&str], query: &str) -> Output {
    Command::new("mariadb")
        .args([
            "--no-defaults",
            "--protocol=TCP",
            "-h",
            "127.0.0.1",
            "-N",
            "-B",
        ])
        .arg(format!("-P{}", env("STACK_DB_TLS_PORT")))
        .arg(format!("-u{user}"))
        .arg(format!("-p{PASS}"))
        .arg(format!("--ssl-ca={}", env("STACK_DB_TLS_CA")))
        .arg("--ssl-verify-server-cert")
        .args(extra)
        .arg("-e")
        .arg(query)
        .output()
        .unwrap()
}

/// A fresh `keel_test_tls_*` database (dropped on drop).
struct Db(String);

impl Db {
    fn new() -> Db {
        let name = format!("keel_test_tls_{}", uuid::Uuid::new_v4().simple());
        let o = sql("keel", &[], &format!("CREATE DATABASE {name}"));
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        Db(name)
    }
    fn tables(&self) -> usize {
        let o = sql(
            "keel",
            &[],
            &format!(
                "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = '{}'",
                self.0
            ),
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).trim().parse().unwrap()
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        let _ = sql("keel", &[], &format!("DROP DATABASE IF EXISTS {}", self.0));
    }
}

fn url(user: &str, db: &Db, query: &str) -> String {
    format!(
        "mysql+pymysql://{user}:{PASS}@127.0.0.1:{}/{}?{query}",
        env("STACK_DB_TLS_PORT"),
        db.0
    )
}

fn conf(dir: &Path, connection: &str, extra: &str) -> PathBuf {
    let p = dir.join("octavia.conf");
    std::fs::write(
        &p,
        format!("[database]\nconnection = {connection}\nretry_interval = 1\n{extra}"),
    )
    .unwrap();
    p
}

fn keel(conf: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_keel"))
        .arg("--config-file")
        .arg(conf)
        .args(args)
        .env_remove("KEEL_LOG")
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn keel_reaches_the_tls_database_with_the_pymysql_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let ca = env("STACK_DB_TLS_CA");
    // The server refuses plaintext: a plain session cannot be what makes the next ones pass.
    let db = Db::new();
    let c = conf(
        dir.path(),
        &url("keel", &db, "ssl_disabled=true"),
        "max_retries = 1\n",
    );
    let o = keel(&c, &["db", "current"]);
    assert!(!o.status.success(), "plaintext accepted: {}", text(&o));

    // ssl_ca alone: certificate and host name (SAN IP:127.0.0.1) verified, as PyMySQL.
    let c = conf(
        dir.path(),
        &url("keel", &db, &format!("ssl_ca={ca}&charset=utf8")),
        "",
    );
    let o = keel(&c, &["db", "upgrade"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(db.tables() > 10, "schema not created");
    let o = keel(&c, &["db", "current"]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim(),
        octavia_db::ALEMBIC_HEAD
    );

    // A user the server admits only with a client certificate of its CA (REQUIRE SUBJECT):
    // refused without ssl_cert/ssl_key, admitted with them (in connection_parameters too).
    let db2 = Db::new();
    let c = conf(
        dir.path(),
        &url("keel_x509", &db2, &format!("ssl_ca={ca}")),
        "max_retries = 1\n",
    );
    let o = keel(&c, &["db", "current"]);
    assert!(!o.status.success(), "admitted without a certificate");
    let c = conf(
        dir.path(),
        &url("keel_x509", &db2, &format!("ssl_ca={ca}")),
        &format!(
            "connection_parameters = ssl_cert={}&ssl_key={}\n",
            env("STACK_DB_TLS_CLIENT_CERT"),
            env("STACK_DB_TLS_CLIENT_KEY")
        ),
    );
    let o = keel(&c, &["db", "upgrade"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(db2.tables() > 10);
}

/// RHOSO's form: `?read_default_file=/etc/my.cnf`, the TLS settings in the option file as
/// mariadb-operator writes it (`[client]`, `ssl-cert`, `ssl-key`, `ssl-ca`, `ssl=1`). A user
/// the server admits only with a client certificate proves the file's certificate was used.
#[test]
fn the_option_file_of_read_default_file_carries_the_tls_settings() {
    let dir = tempfile::tempdir().unwrap();
    let cnf = |name: &str, body: String| {
        let p = dir.path().join(name);
        std::fs::write(&p, body).unwrap();
        p.display().to_string()
    };
    let ca_only = cnf(
        "ca-only.cnf",
        format!("[client]\nssl-ca={}\nssl=1\n", env("STACK_DB_TLS_CA")),
    );
    let full = cnf(
        "my.cnf",
        format!(
            "[client]\nssl-cert={}\nssl-key={}\nssl-ca={}\nssl=1",
            env("STACK_DB_TLS_CLIENT_CERT"),
            env("STACK_DB_TLS_CLIENT_KEY"),
            env("STACK_DB_TLS_CA")
        ),
    );
    let db = Db::new();
    let c = conf(
        dir.path(),
        &url("keel_x509", &db, &format!("read_default_file={ca_only}")),
        "max_retries = 1\n",
    );
    let o = keel(&c, &["db", "current"]);
    assert!(
        !o.status.success(),
        "admitted without a certificate: {}",
        text(&o)
    );
    let c = conf(
        dir.path(),
        &url("keel_x509", &db, &format!("read_default_file={full}")),
        "",
    );
    let o = keel(&c, &["db", "upgrade"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(db.tables() > 10, "schema not created");
    // A file that is not there is refused before anything is tried.
    let c = conf(
        dir.path(),
        &url("keel", &db, "read_default_file=/nonexistent/my.cnf"),
        "",
    );
    let o = keel(&c, &["db", "current"]);
    assert!(!o.status.success());
    assert!(
        text(&o).contains("URL parameter read_default_file: /nonexistent/my.cnf: No such file"),
        "{}",
        text(&o)
    );
}

#[test]
fn a_wrong_ca_or_a_missing_file_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::new();
    // A CA that did not sign the server's certificate: the handshake fails, every attempt.
    let other = env("STACK_DB_TLS_OTHER_CA");
    let c = conf(
        dir.path(),
        &url("keel", &db, &format!("ssl_ca={other}")),
        "max_retries = 2\n",
    );
    let o = keel(&c, &["db", "upgrade"]);
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    assert!(t.contains("[database] connection"), "{t}");
    assert!(
        t.to_lowercase().contains("certificate") || t.to_lowercase().contains("tls"),
        "{t}"
    );
    assert_eq!(t.matches("attempts left").count(), 1, "two attempts: {t}");
    assert_eq!(db.tables(), 0);

    // A file that does not exist: refused at start-up, naming option, parameter and file.
    for (connection, extra, option) in [
        (
            url("keel", &db, "ssl_ca=/nonexistent/db-ca.pem"),
            String::new(),
            "connection",
        ),
        (
            url("keel", &db, &format!("ssl_ca={}", env("STACK_DB_TLS_CA"))),
            "connection_parameters = ssl_cert=/nonexistent/db-ca.pem&ssl_key=/nonexistent/k.pem\n"
                .to_string(),
            "connection_parameters",
        ),
    ] {
        let c = conf(dir.path(), &connection, &extra);
        let t0 = Instant::now();
        let o = keel(&c, &["db", "upgrade"]);
        let t = text(&o);
        assert!(!o.status.success(), "{t}");
        assert!(
            t.contains(&format!("[database] {option}: URL parameter ssl_"))
                && t.contains("/nonexistent/db-ca.pem: No such file"),
            "{t}"
        );
        // Refused before any attempt (retry_interval is 1 s).
        assert!(!t.contains("attempts left"), "{t}");
        assert!(t0.elapsed() < Duration::from_secs(10));
        let o = keel(&c, &["config", "check"]);
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    }
    assert_eq!(db.tables(), 0);
}

/// `max_retries = -1`: oslo.db's "retry for ever" at start-up; the process keeps trying.
#[test]
fn max_retries_minus_one_retries_for_ever() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::new();
    let c = conf(
        dir.path(),
        &url(
            "keel",
            &db,
            &format!("ssl_ca={}", env("STACK_DB_TLS_OTHER_CA")),
        ),
        "max_retries = -1\n",
    );
    let log = dir.path().join("keel.log");
    let mut child = Command::new(env!("CARGO_BIN_EXE_keel"))
        .arg("--config-file")
        .arg(&c)
        .args(["db", "upgrade"])
        .stdout(Stdio::null())
        .stderr(Stdio::from(std::fs::File::create(&log).unwrap()))
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let seen = std::fs::read_to_string(&log).unwrap_or_default();
        if seen.matches("unlimited attempts left").count() >= 3 {
            break;
        }
        assert!(child.try_wait().unwrap().is_none(), "keel gave up: {seen}");
        assert!(
            Instant::now() < deadline,
            "no third attempt in 60 s: {seen}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(child.try_wait().unwrap().is_none());
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(db.tables(), 0);
}
