//! `[database] max_pool_size` + `max_overflow` bound the pool as SQLAlchemy's `QueuePool`
//! (oslo.db's defaults 5 + 50): kolla-ansible renders `max_pool_size = 1`, and a Keel whose
//! pool were that one connection would answer 503 as soon as one request waits on the
//! database. Proven on the stack's MariaDB: a request held on a table lock (another session's
//! `LOCK TABLES load_balancer WRITE`) keeps its connection; a second request on another table
//! gets an overflow connection and answers 200 at once — and with `max_overflow = 0` it waits
//! `pool_timeout` and answers 503, so the first half cannot pass by accident.
//!
//! Needs the environment of `ci/stack/env.sh` (run through `ci/test.sh`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{Backend, Keel, MariaDb, admin_token, wait_for};

/// The stack's MariaDB port (from `STACK_KEEL_DB_URL`).
fn db_port() -> String {
    let url = common::env("STACK_KEEL_DB_URL");
    let server = url.rsplit_once('/').unwrap().0;
    server.rsplit_once(':').unwrap().1.to_string()
}

fn mysql_cmd(db: &str) -> Command {
    let mut c = Command::new("mysql");
    c.args(["-h127.0.0.1", "-ukeel", "-pkeel-db-pass", "-N", "-B"])
        .arg(format!("-P{}", db_port()))
        .arg(db);
    c
}

/// A `mysql` session holding `LOCK TABLES <table> WRITE` until dropped.
struct TableLock(Child);

impl TableLock {
    fn take(db: &MariaDb, table: &str) -> TableLock {
        // --unbuffered: the "locked" line is written as soon as the lock is held.
        let mut child = mysql_cmd(&db.name)
            .arg("--unbuffered")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.as_mut().unwrap();
        writeln!(stdin, "LOCK TABLES {table} WRITE; SELECT 'locked';").unwrap();
        stdin.flush().unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(line.trim(), "locked");
        TableLock(child)
    }
}

impl Drop for TableLock {
    fn drop(&mut self) {
        if let Some(mut stdin) = self.0.stdin.take() {
            let _ = writeln!(stdin, "UNLOCK TABLES;");
        }
        let _ = self.0.wait();
    }
}

/// Statements of `db` waiting for the table's metadata lock (`SHOW PROCESSLIST`).
fn waiting_on_lock(db: &MariaDb) -> usize {
    let out = mysql_cmd(&db.name)
        .args([
            "-e",
            &format!(
                "SELECT COUNT(*) FROM information_schema.processlist WHERE db = '{}' AND state LIKE 'Waiting for table metadata lock%'",
                db.name
            ),
        ])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

/// With one request holding the only pooled connection (blocked on the lock), the status of
/// a second request that needs the database, and how long it took.
fn second_request_while_one_waits(keel: &Keel, db: &MariaDb, token: &str) -> (u16, Duration) {
    // Warm: the token is validated and cached, the pooled connection exists.
    assert_eq!(keel.api("GET", "/v2/lbaas/flavors", token, None).0, 200);
    let lock = TableLock::take(db, "load_balancer");
    let (url, t) = (keel.url(), token.to_string());
    let held = std::thread::spawn(move || {
        common::http(
            "GET",
            &format!("{url}/v2/lbaas/loadbalancers"),
            Some(&t),
            None,
        )
        .0
    });
    wait_for(
        "a Keel query blocked on the table lock",
        Duration::from_secs(20),
        || match waiting_on_lock(db) {
            0 => Err("none waiting yet".into()),
            _ => Ok(()),
        },
    );
    let started = Instant::now();
    let (code, body) = keel.api("GET", "/v2/lbaas/flavors", token, None);
    let took = started.elapsed();
    if code == 503 {
        assert_eq!(
            body["faultstring"], "The database service is temporarily unavailable.",
            "{body}"
        );
    }
    drop(lock);
    assert_eq!(held.join().unwrap(), 200, "the held request, once unlocked");
    (code, took)
}

#[test]
fn kolla_max_pool_size_1_still_serves_concurrent_requests_through_the_overflow() {
    let db = MariaDb::create();
    let token = admin_token();
    let with = |pool: &str| {
        Keel::start_with(Backend::Shared(db.url()), |c| {
            // No agent and no recovery pass during the test: only the two requests use the pool.
            c.replace(
                "[database]\n",
                &format!("[database]\n{pool}pool_timeout = 3\n"),
            ) + "[keel]\nrun_agent = false\nrecovery_period = 10000\nrecovery_lease = 30000\n"
        })
    };

    // kolla-ansible's octavia.conf: max_pool_size = 1, max_overflow at oslo.db's default.
    let keel = with("max_pool_size = 1\n");
    let (code, took) = second_request_while_one_waits(&keel, &db, &token);
    assert_eq!(
        code,
        200,
        "second request with the overflow: {}",
        keel.log()
    );
    assert!(
        took < Duration::from_secs(3),
        "it waited for the pool: {took:?}"
    );
    drop(keel);

    // No overflow: the pool is that one connection, the second request waits pool_timeout.
    let keel = with("max_pool_size = 1\nmax_overflow = 0\n");
    let (code, took) = second_request_while_one_waits(&keel, &db, &token);
    assert_eq!(code, 503, "second request without overflow: {}", keel.log());
    assert!(took >= Duration::from_secs(3), "{took:?}");
}
