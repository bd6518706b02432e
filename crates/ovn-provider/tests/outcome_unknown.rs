//! A transaction whose outcome is unknown, against the stack's real ovsdb-server: the driver
//! talks to the NB through a loopback proxy that, once armed, forwards the next `transact`,
//! waits for the server's reply (so the server has committed it) and then cuts the
//! connection instead of passing the reply on — what the client sees when the raft leader is
//! killed or the process frozen with the transaction in flight. The job must read the rows
//! back and report what landed (ACTIVE / DELETED), not ERROR.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ovn_provider::{OvnProvider, OvsdbNb};
use provider::{
    LoadBalancer, Member, OperatingStatus as Op, ProviderDriver, ProvisioningStatus as Prov,
};
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

mod common;
use common::*;

/// The cutting proxy: `armed` makes it cut the connection after the next `transact` was
/// answered by the server; `transacts` counts the `transact` requests it forwarded.
struct Proxy {
    remote: String,
    armed: Arc<AtomicBool>,
    transacts: Arc<AtomicUsize>,
    cuts: Arc<AtomicUsize>,
}

async fn proxy(target: String) -> Proxy {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let remote = format!("tcp:{}", listener.local_addr().unwrap());
    let armed = Arc::new(AtomicBool::new(false));
    let transacts = Arc::new(AtomicUsize::new(0));
    let cuts = Arc::new(AtomicUsize::new(0));
    let (a, t, c) = (armed.clone(), transacts.clone(), cuts.clone());
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let server = TcpStream::connect(&target).await.unwrap();
            tokio::spawn(relay(client, server, a.clone(), t.clone(), c.clone()));
        }
    });
    Proxy {
        remote,
        armed,
        transacts,
        cuts,
    }
}

/// Relay one connection until either side closes, or, when armed, until the server answered
/// the `transact` whose reply it cuts.
async fn relay(
    client: TcpStream,
    server: TcpStream,
    armed: Arc<AtomicBool>,
    transacts: Arc<AtomicUsize>,
    cuts: Arc<AtomicUsize>,
) {
    let (mut cr, mut cw) = client.into_split();
    let (mut sr, mut sw) = server.into_split();
    let cutting = Arc::new(AtomicBool::new(false));
    let cut = cutting.clone();
    // true when it stopped after sending the transaction to cut
    let up = async move {
        let mut buf = vec![0u8; 1 << 16];
        loop {
            let n = match cr.read(&mut buf).await {
                Ok(0) | Err(_) => return false,
                Ok(n) => n,
            };
            let transact = String::from_utf8_lossy(&buf[..n]).contains("\"transact\"");
            if transact {
                transacts.fetch_add(1, Ordering::SeqCst);
            }
            // flagged before it goes out, so no byte of the reply can slip through
            let cut_this = transact && armed.swap(false, Ordering::SeqCst);
            if cut_this {
                cut.store(true, Ordering::SeqCst);
            }
            if sw.write_all(&buf[..n]).await.is_err() {
                return false;
            }
            if cut_this {
                return true;
            }
        }
    };
    let down = async move {
        let mut buf = vec![0u8; 1 << 16];
        loop {
            let n = match sr.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            if cutting.load(Ordering::SeqCst) {
                // swallowed; the reply means the server has committed: cut now
                if String::from_utf8_lossy(&buf[..n]).contains("\"result\"") {
                    cuts.fetch_add(1, Ordering::SeqCst);
                    return;
                }
                continue;
            }
            if cw.write_all(&buf[..n]).await.is_err() {
                return;
            }
        }
    };
    tokio::pin!(up, down);
    tokio::select! {
        _ = &mut down => {}
        cut = &mut up => if cut { (&mut down).await },
    }
    // every half dropped here: both sockets close
}

/// A `Load_Balancer` row named `lb_id` with a pool of its own, written straight into the NB;
/// returns the pool id. The id is unique: the tests run side by side on one NB, and the
/// driver finds a pool's row by its `pool_<id>` key, so a shared id sent one test's member
/// into the other's row.
async fn lb_with_pool(lb_id: &str) -> String {
    let admin = nb_admin(&[]).await.unwrap();
    let pool_id = uid();
    let key = format!("pool_{pool_id}");
    let row = json!({
        "name": lb_id,
        "external_ids": ovsdb_map(&[("neutron:vip", "10.77.0.5"), ("enabled", "True"), (key.as_str(), "")]),
    });
    admin
        .transact(nb_txn(vec![
            json!({"op": "insert", "table": "Load_Balancer", "row": row}),
        ]))
        .await
        .unwrap();
    pool_id
}

async fn cleanup(lb_id: &str) {
    let admin = nb_admin(&[]).await.unwrap();
    let _ = admin
        .transact(nb_txn(vec![delete_named("Load_Balancer", lb_id)]))
        .await;
}

/// The driver on its own NB connection through the proxy.
async fn driver_through(p: &Proxy) -> (Arc<OvsdbNb>, OvnProvider, Reports) {
    let nb = Arc::new(OvsdbNb::connect(&p.remote).await.unwrap());
    nb.client().await_replica_caught_up().await.unwrap();
    let (d, rx) = driver(nb.clone(), neutron());
    (nb, d, rx)
}

#[tokio::test]
async fn member_create_committed_then_cut_is_active() {
    let p = proxy(env("STACK_OVN_NB").trim_start_matches("tcp:").to_string()).await;
    let lb_id = uid();
    let pool_id = lb_with_pool(&lb_id).await;
    let (nb, d, mut rx) = driver_through(&p).await;
    let before = p.transacts.load(Ordering::SeqCst);
    p.armed.store(true, Ordering::SeqCst);
    let m = Member {
        member_id: "M".into(),
        pool_id: Some(pool_id.clone()),
        address: Some("10.77.0.7".into()),
        protocol_port: Some(80),
        subnet_id: Some(uid()),
        ..Default::default()
    };
    d.member_create(m).await.unwrap();
    let r = next_about(&mut rx, &lb_id).await;
    let row = lb_row(nb.as_ref(), &lb_id).await;
    cleanup(&lb_id).await;
    assert_eq!(
        p.cuts.load(Ordering::SeqCst),
        1,
        "the transaction's reply was cut"
    );
    assert_eq!(
        rec(&r.members, "M"),
        (Some(Prov::Active), Some(Op::NoMonitor)),
        "{r:?}"
    );
    assert_eq!(rec(&r.pools, &pool_id).0, Some(Prov::Active), "{r:?}");
    let row = row.unwrap();
    let pool = row
        .external_ids
        .get(&format!("pool_{pool_id}"))
        .cloned()
        .unwrap_or_default();
    assert!(pool.starts_with("member_M_10.77.0.7:80_"), "{pool}");
    assert_eq!(pool.matches("member_").count(), 1, "written once: {pool}");
    assert_eq!(
        p.transacts.load(Ordering::SeqCst) - before,
        1,
        "the re-plan found the member and wrote nothing"
    );
}

#[tokio::test]
async fn lb_delete_committed_then_cut_is_deleted() {
    let p = proxy(env("STACK_OVN_NB").trim_start_matches("tcp:").to_string()).await;
    let lb_id = uid();
    let pool_id = lb_with_pool(&lb_id).await;
    let (nb, d, mut rx) = driver_through(&p).await;
    p.armed.store(true, Ordering::SeqCst);
    let lb = LoadBalancer {
        loadbalancer_id: lb_id.clone(),
        ..Default::default()
    };
    d.loadbalancer_delete(lb, true).await.unwrap();
    let r = next_about(&mut rx, &lb_id).await;
    nb.client().await_replica_caught_up().await.unwrap();
    let rows = snapshot(nb.as_ref()).await.unwrap().lbs_named(&lb_id).len();
    cleanup(&lb_id).await;
    assert_eq!(
        p.cuts.load(Ordering::SeqCst),
        1,
        "the transaction's reply was cut"
    );
    assert_eq!(
        rec(&r.loadbalancers, &lb_id).0,
        Some(Prov::Deleted),
        "{r:?}"
    );
    assert_eq!(rec(&r.pools, &pool_id).0, Some(Prov::Deleted), "{r:?}");
    assert_eq!(rows, 0, "the row is gone");
}
