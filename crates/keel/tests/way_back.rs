//! The way back to the Python service: on a MariaDB database that `keel db upgrade` made and a
//! `keel serve` served (a load balancer created and left in place), the reference's own
//! `octavia-db-manage` (Octavia 19.0.0, the stack venv) runs `upgrade head` and `current` as on
//! its own database: exit 0, revision head, nothing to migrate; after `keel db
//! remove-keel-objects` it still does, and Keel's objects are gone. Needs the environment of
//! `ci/stack/env.sh`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Command;

use common::{Backend, Keel, MariaDb, NeutronNet, keel_bin};

/// The alembic head of Octavia 19.0.0 (the schema Keel serves).
const HEAD: &str = "fabf4983846b";

/// `octavia-db-manage --config-file <a file naming db> <args>`: (exit ok, stdout + stderr).
fn octavia_db_manage(dir: &std::path::Path, db: &MariaDb, args: &[&str]) -> (bool, String) {
    let conf = dir.join("octavia-db-manage.conf");
    let url = db.url().replacen("mysql://", "mysql+pymysql://", 1);
    std::fs::write(&conf, format!("[database]\nconnection = {url}\n")).unwrap();
    let out = Command::new("octavia-db-manage")
        .arg("--config-file")
        .arg(&conf)
        .args(args)
        .output()
        .expect("octavia-db-manage of the stack venv (source ci/stack/env.sh)");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// `keel --config-file <keel's config> db <cmd>`, which must succeed.
fn keel_db(keel: &Keel, cmd: &str) {
    let out = Command::new(keel_bin())
        .arg("--config-file")
        .arg(&keel.conf)
        .args(["db", cmd])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "keel db {cmd}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_references_octavia_db_manage_runs_on_a_database_keel_served() {
    let db = MariaDb::create();
    let mut keel = Keel::start(Backend::Shared(db.url()));
    let tag = common::tag();
    let net = NeutronNet::create(&tag, &[]);
    let token = common::demo_token();
    let lb = keel.create_lb(&token, &format!("way-back-{tag}"), &net.subnet);
    let lb_id = lb["id"].as_str().unwrap().to_string();
    let _rows = common::LbGuard(lb_id.clone());
    keel.kill();

    let dir = tempfile::tempdir().unwrap();
    for round in ["with Keel's objects", "after keel db remove-keel-objects"] {
        let (ok, out) = octavia_db_manage(dir.path(), &db, &["upgrade", "head"]);
        assert!(ok, "upgrade head ({round}): {out}");
        let (ok, out) = octavia_db_manage(dir.path(), &db, &["current"]);
        assert!(ok && out.contains(HEAD), "current ({round}): {out}");
        // the LB Keel made is still there, as the reference reads it
        assert_eq!(
            db.sql(&format!(
                "SELECT provisioning_status FROM load_balancer WHERE id = '{lb_id}'"
            )),
            "ACTIVE",
            "{round}"
        );
        if round.starts_with("with") {
            keel_db(&keel, "remove-keel-objects");
            let left = db.sql(
                "SELECT COUNT(*) FROM information_schema.statistics WHERE table_schema = DATABASE() \
                 AND index_name LIKE 'keel_ix_%'",
            );
            assert_eq!(left, "0", "keel_ix_* indexes left");
            let table = db.sql(
                "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() \
                 AND table_name = 'keel_deployment'",
            );
            assert_eq!(table, "0", "keel_deployment left");
        }
    }
    // and forward again: `keel db upgrade` adds its objects back, Keel serves the LB
    keel_db(&keel, "upgrade");
    keel.restart();
    keel.delete_lb_cascade(&token, &lb_id);
}
