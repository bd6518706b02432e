//! A pooled connection the server ended must not fail the next request: the pool's ping
//! before use replaces it, and a write's `BEGIN` or a read's statement that meets one lost
//! after that ping runs again on another connection. Against the stack's MariaDB: the
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

/// A TCP forwarder to `upstream` that forwards until `frozen` is set, then holds every byte
/// (a SIGSTOPped server, a partition that drops silently). Returns its address.
fn freezing_proxy(
    upstream: String,
    frozen: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> String {
    use std::io::{Read, Write};
    use std::sync::atomic::Ordering;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(client) = client else { return };
            let server = std::net::TcpStream::connect(&upstream).unwrap();
            for (mut from, mut to) in [
                (client.try_clone().unwrap(), server.try_clone().unwrap()),
                (server, client),
            ] {
                let frozen = frozen.clone();
                std::thread::spawn(move || {
                    let mut buf = [0u8; 16384];
                    loop {
                        let Ok(n) = from.read(&mut buf) else { return };
                        if n == 0 {
                            return;
                        }
                        // frozen: what arrives is never delivered
                        if frozen.load(Ordering::SeqCst) {
                            continue;
                        }
                        if to.write_all(&buf[..n]).is_err() {
                            return;
                        }
                    }
                });
            }
        }
    });
    addr
}

/// The server froze right after a connection went back to the pool: the next read and the
/// next write answer `Unavailable` within the pool's bound, neither waits on that connection
/// without end (a connection handed out unpinged did: CI's `keel::peer_outage`).
#[tokio::test]
async fn a_server_frozen_after_the_last_use_is_unavailable_within_the_bound() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let t = common::TestDb::mariadb().await;
    let (_, after_at) = t.url.split_once('@').unwrap();
    let hostport = after_at.split('/').next().unwrap().to_string();
    let frozen = std::sync::Arc::new(AtomicBool::new(false));
    let proxy = freezing_proxy(hostport.clone(), frozen.clone());
    let settings = PoolSettings {
        max_connections: 2,
        acquire_timeout: std::time::Duration::from_secs(2),
        ..PoolSettings::default()
    };
    let db = Database::connect_with(&t.url.replace(&hostport, &proxy), &settings)
        .await
        .unwrap();
    let mut tx = db.begin_read().await.unwrap();
    connection_id(&mut tx).await;
    drop(tx);
    // back in the pool (sqlx's ping on return answered), then the server freezes
    let t0 = std::time::Instant::now();
    while db.pool_use().idle == 0 {
        assert!(t0.elapsed().as_secs() < 5, "the connection never went back");
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    }
    frozen.store(true, Ordering::SeqCst);
    let bound = std::time::Duration::from_secs(10);
    let read = tokio::time::timeout(bound, async {
        let mut tx = db.begin_read().await?;
        tx.fetch_optional_scalar::<i64>("SELECT 1", vec![]).await
    })
    .await
    .expect("a read on a frozen server answers within the bound");
    assert!(
        read.as_ref().is_err_and(|e| e.is_unavailable()),
        "read: {read:?}"
    );
    let write = tokio::time::timeout(bound, db.begin())
        .await
        .expect("a write on a frozen server answers within the bound");
    assert!(
        write.as_ref().is_err_and(|e| e.is_unavailable()),
        "write: {:?}",
        write.err()
    );
    frozen.store(false, Ordering::SeqCst);
    t.drop_db().await;
}
