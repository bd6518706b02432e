//! The MariaDB pool hands out a connection returned less than a second ago without pinging
//! it; a connection the server ended meanwhile must not fail the request: a write's `BEGIN`
//! and a read's statement run again on another connection. Against the stack's MariaDB: the
//! pooled connection is ended by the server (`KILL`), as a restarted or failed-over server
//! ends them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use octavia_db::{Database, PoolSettings};
use sqlx::Connection;

/// The server-side id of the connection `tx` runs on.
async fn connection_id(tx: &mut octavia_db::Tx) -> i64 {
    tx.fetch_optional_scalar::<i64>("SELECT CAST(CONNECTION_ID() AS SIGNED)", vec![])
        .await
        .unwrap()
        .unwrap()
}

/// Ends connection `id` from another session, as the server does when it goes away.
async fn kill(id: i64) {
    let mut admin = sqlx::MySqlConnection::connect(&common::keel_db_url())
        .await
        .unwrap();
    sqlx::query(&format!("KILL {id}"))
        .execute(&mut admin)
        .await
        .unwrap();
    admin.close().await.unwrap();
}

/// A pool of at most `max` connections (one: the next write gets the one just killed).
async fn small_pool(url: &str, max: u32) -> Database {
    let settings = PoolSettings {
        max_connections: max,
        ..PoolSettings::default()
    };
    Database::connect_with(url, &settings).await.unwrap()
}

#[tokio::test]
async fn a_write_begun_on_a_killed_connection_begins_on_another() {
    let t = common::TestDb::mariadb().await;
    let db = small_pool(&t.url, 1).await;
    let mut tx = db.begin().await.unwrap();
    let first = connection_id(&mut tx).await;
    tx.commit().await.unwrap();
    kill(first).await;
    let mut tx = db.begin().await.expect("BEGIN on another connection");
    let second = connection_id(&mut tx).await;
    assert_ne!(first, second);
    tx.commit().await.unwrap();
    db.close().await;
    t.drop_db().await;
}

#[tokio::test]
async fn a_read_on_a_killed_connection_runs_on_another() {
    let t = common::TestDb::mariadb().await;
    // room for a second connection: the read holds the lost one while it takes another
    let db = small_pool(&t.url, 2).await;
    let mut tx = db.begin_read().await.unwrap();
    let first = connection_id(&mut tx).await;
    drop(tx);
    kill(first).await;
    let mut tx = db.begin_read().await.unwrap();
    let second = connection_id(&mut tx).await;
    assert_ne!(first, second);
    // and the connection it moved to serves the next statement
    assert_eq!(connection_id(&mut tx).await, second);
    drop(tx);
    db.close().await;
    t.drop_db().await;
}
