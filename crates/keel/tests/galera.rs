//! Keel on a three-node MariaDB Galera cluster, each Keel on its own node (multi-writer: the
//! hardest case; behind haproxy a deployment has one writer). Run by hand with the HA stack
//! up (`ci/ha/up.sh`, nodes on 127.0.0.1:3311-3313; `KEEL_HA_GALERA` overrides):
//!
//! ```bash
//! source ci/stack/env.sh admin && cargo nextest run -p keel --test galera --run-ignored all
//! ```
//!
//! * several `keel db upgrade` at once on a fresh database, one per node, all succeed and
//!   leave the schema at head on every node;
//! * two Keels writing the same load balancer through two nodes: row locks are node-local in
//!   Galera, so both can take the LB, and the second commit fails certification (1213). The
//!   request is then run again (nothing of it was stored, its provider work never started)
//!   and answers as on one MariaDB — 200, or 409 immutable while the other's change is in
//!   progress — never 500.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use std::process::Command;
use std::sync::{Arc, Barrier};
use std::time::Duration;

use common::{Backend, Keel, NeutronNet, keel_bin, wait_for};
use serde_json::json;

fn nodes() -> Vec<String> {
    std::env::var("KEEL_HA_GALERA")
        .unwrap_or_else(|_| "127.0.0.1:3311,127.0.0.1:3312,127.0.0.1:3313".into())
        .split(',')
        .map(str::to_string)
        .collect()
}

/// `mysql` as `keel` on `node` (`host:port`); tab-separated output, trimmed.
fn sql(node: &str, db: Option<&str>, statement: &str) -> String {
    let (host, port) = node.split_once(':').unwrap();
    let mut cmd = Command::new("mysql");
    cmd.args([
        "-h",
        host,
        "-P",
        port,
        "-ukeel",
        "-pkeel-db-pass",
        "-N",
        "-B",
    ]);
    if let Some(db) = db {
        cmd.arg(db);
    }
    let out = cmd.args(["-e", statement]).output().unwrap();
    assert!(
        out.status.success(),
        "mysql {node}: {statement}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A fresh `keel_test_galera_<uuid>` database (made on node 1, replicated), dropped on drop.
struct GaleraDb(String);

impl GaleraDb {
    fn create() -> Self {
        let name = format!("keel_test_galera_{}", uuid::Uuid::new_v4().simple());
        sql(&nodes()[0], None, &format!("CREATE DATABASE {name}"));
        GaleraDb(name)
    }
    fn url(&self, node: &str) -> String {
        format!("mysql://keel:keel-db-pass@{node}/{}", self.0)
    }
}

impl Drop for GaleraDb {
    fn drop(&mut self) {
        sql(
            &nodes()[0],
            None,
            &format!("DROP DATABASE IF EXISTS {}", self.0),
        );
    }
}

/// Certification failures and brute-force aborts of the cluster's nodes so far.
fn conflicts() -> u64 {
    nodes()
        .iter()
        .map(|n| {
            sql(
                n,
                None,
                "SELECT SUM(VARIABLE_VALUE) FROM information_schema.GLOBAL_STATUS \
                 WHERE VARIABLE_NAME IN ('WSREP_LOCAL_CERT_FAILURES', 'WSREP_LOCAL_BF_ABORTS')",
            )
            .parse::<u64>()
            .unwrap()
        })
        .sum()
}

#[test]
#[ignore = "needs the Galera nodes of ci/ha/up.sh"]
fn concurrent_db_upgrades_one_per_node_all_succeed() {
    let db = GaleraDb::create();
    let dir = tempfile::tempdir().unwrap();
    let children: Vec<_> = nodes()
        .iter()
        .enumerate()
        .flat_map(|(i, node)| {
            // two per node: the named lock serialises those, not the ones on other nodes
            (0..2).map(move |j| (i, j, node.clone()))
        })
        .map(|(i, j, node)| {
            let conf = dir.path().join(format!("keel-{i}-{j}.conf"));
            std::fs::write(
                &conf,
                format!("[database]\nconnection = {}\n", db.url(&node)),
            )
            .unwrap();
            let child = Command::new(keel_bin())
                .arg("--config-file")
                .arg(&conf)
                .args(["db", "upgrade"])
                .env("NO_COLOR", "1")
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            (conf, child)
        })
        .collect();
    for (conf, child) in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}: keel db upgrade failed: {}",
            conf.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let cur = Command::new(keel_bin())
            .arg("--config-file")
            .arg(&conf)
            .args(["db", "current"])
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&cur.stdout).trim(),
            octavia_head(),
            "{}",
            String::from_utf8_lossy(&cur.stderr)
        );
    }
    let tables = |n: &str| {
        sql(
            n,
            None,
            &format!(
                "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = '{}'",
                db.0
            ),
        )
    };
    let statuses = |n: &str| sql(n, Some(&db.0), "SELECT COUNT(*) FROM provisioning_status");
    let first = (tables(&nodes()[0]), statuses(&nodes()[0]));
    assert!(first.0.parse::<u32>().unwrap() > 30, "{first:?}");
    for n in &nodes()[1..] {
        assert_eq!((tables(n), statuses(n)), first, "node {n}");
    }
}

fn octavia_head() -> &'static str {
    "fabf4983846b"
}

#[test]
#[ignore = "needs the Galera nodes of ci/ha/up.sh"]
fn conflicting_writes_through_two_nodes_answer_2xx_or_409_never_500() {
    let db = GaleraDb::create();
    let ns = nodes();
    let start = |node: &str| {
        let url = db.url(node);
        Keel::start_with(Backend::Shared(url), |c| {
            format!("{c}[keel]\nrun_agent = false\n")
        })
    };
    let a = start(&ns[0]);
    let b = start(&ns[1]);
    let net = NeutronNet::create(&common::tag(), &[]);
    let token = common::demo_token();
    let lb = a.create_lb(&token, "galera", &net.subnet);
    let lb_id = lb["id"].as_str().unwrap().to_string();
    let _rows = common::LbGuard(lb_id.clone());
    let listener = a.create(
        &token,
        &lb_id,
        "/v2/lbaas/listeners",
        json!({"listener": {"loadbalancer_id": lb_id, "protocol": "TCP", "protocol_port": 80}}),
    );
    let path = format!("/v2/lbaas/listeners/{}", listener["id"].as_str().unwrap());
    let (a, b) = (Arc::new(a), Arc::new(b));
    let before = conflicts();
    let mut answers = std::collections::BTreeMap::<u16, u32>::new();
    for round in 0..40 {
        let barrier = Arc::new(Barrier::new(2));
        let threads: Vec<_> = [a.clone(), b.clone()]
            .into_iter()
            .enumerate()
            .map(|(i, k)| {
                let (barrier, path, token) = (barrier.clone(), path.clone(), token.clone());
                std::thread::spawn(move || {
                    let body = json!({"listener": {"description": format!("r{round} k{i}")}});
                    barrier.wait();
                    k.api("PUT", &path, &token, Some(&body))
                })
            })
            .collect();
        for t in threads {
            let (code, body) = t.join().unwrap();
            assert!(
                code == 200 || code == 409,
                "round {round}: {code} {body}\nA:\n{}\nB:\n{}",
                a.log(),
                b.log()
            );
            *answers.entry(code).or_default() += 1;
        }
        wait_for("LB ACTIVE after the round", Duration::from_secs(60), || {
            let (c, v) = a.api(
                "GET",
                &format!("/v2/lbaas/loadbalancers/{lb_id}"),
                &token,
                None,
            );
            match v["loadbalancer"]["provisioning_status"].as_str() {
                Some("ACTIVE") => Ok(()),
                s => Err(format!("{c} {s:?}")),
            }
        });
        if conflicts() >= before + 3 {
            break;
        }
    }
    let seen = conflicts() - before;
    assert!(
        seen > 0,
        "no certification conflict in 40 rounds: the test did not exercise Galera ({answers:?})"
    );
    assert!(answers.contains_key(&200), "{answers:?}");
    let reruns = [&a, &b]
        .iter()
        .map(|k| {
            k.log()
                .matches("nothing outside the database changed: running the request again")
                .count()
        })
        .sum::<usize>();
    assert!(reruns > 0, "no request was run again after a conflict");
    a.delete_lb_cascade(&token, &lb_id);
    eprintln!("answers {answers:?}, Galera conflicts {seen}, requests run again {reruns}");
}
