//! The database under test: a real octavia-db, either a SQLite file in a fresh temp directory
//! or a fresh `keel_test_<uuid>` database on STACK_KEEL_DB_URL's MariaDB server, upgraded to
//! head. [`TestDb::drop_all`] closes the pool and drops the MariaDB database; the temp
//! directory goes when the [`TestDb`] is dropped.

use octavia_db::Database;
use sqlx::Connection;

/// STACK_KEEL_DB_URL (`mysql://user:pass@host:port/db`), or a panic telling how to run.
pub fn keel_db_url() -> String {
    std::env::var("STACK_KEEL_DB_URL").expect(
        "STACK_KEEL_DB_URL is not set: run the tests via ci/test.sh (it sources ci/stack/env.sh)",
    )
}

/// The backends a test runs on: SQLite, then MariaDB — or SQLite alone in the fast tier
/// (`KEEL_TEST_TIER=fast`, `ci/fast.sh`: no root, no stack), which a run has to ask for:
/// without it a missing STACK_KEEL_DB_URL is a failure, never a silent skip.
pub fn backends() -> Vec<bool> {
    match std::env::var("KEEL_TEST_TIER").as_deref() {
        Ok("fast") => vec![false],
        _ => vec![false, true],
    }
}

/// `mysql://user:pass@host:port/` of a URL: the server part, to which a database name is added.
fn server_part(url: &str) -> String {
    let after = url.find("://").map(|i| i + 3).unwrap_or(0);
    match url[after..].find('/') {
        Some(i) => url[..after + i + 1].to_string(),
        None => format!("{url}/"),
    }
}

/// One upgraded octavia-db for one test run; see the module doc for what it owns.
pub struct TestDb {
    pub db: Database,
    /// The MariaDB database's URL (`None` on SQLite): for a test's own connections.
    pub mysql_url: Option<String>,
    /// The MariaDB database created for this run (`None` on SQLite).
    mysql_name: Option<String>,
    /// The SQLite file's directory, removed on drop.
    _dir: Option<tempfile::TempDir>,
}

impl TestDb {
    /// SQLite (`mysql == false`) or a new MariaDB database, upgraded to head.
    pub async fn new(mysql: bool) -> Self {
        let mut mysql_url = None;
        let (db, mysql_name, dir) = if mysql {
            let base = keel_db_url();
            let name = format!("keel_test_{}", uuid::Uuid::new_v4().simple());
            let mut conn = sqlx::MySqlConnection::connect(&base).await.unwrap();
            sqlx::query(&format!("CREATE DATABASE `{name}` CHARACTER SET utf8mb4"))
                .execute(&mut conn)
                .await
                .unwrap();
            conn.close().await.unwrap();
            let url = format!("{}{name}", server_part(&base));
            let db = Database::connect(&url).await.unwrap();
            mysql_url = Some(url);
            (db, Some(name), None)
        } else {
            let dir = tempfile::tempdir().unwrap();
            let url = format!("sqlite://{}?mode=rwc", dir.path().join("o.db").display());
            (Database::connect(&url).await.unwrap(), None, Some(dir))
        };
        db.upgrade().await.unwrap();
        Self {
            db,
            mysql_url,
            mysql_name,
            _dir: dir,
        }
    }

    /// Close the pool, drop the MariaDB database (if any) and remove the SQLite directory.
    pub async fn drop_all(self) {
        self.db.close().await;
        if let Some(name) = self.mysql_name {
            let mut conn = sqlx::MySqlConnection::connect(&keel_db_url())
                .await
                .unwrap();
            sqlx::query(&format!("DROP DATABASE IF EXISTS `{name}`"))
                .execute(&mut conn)
                .await
                .unwrap();
        }
    }
}
