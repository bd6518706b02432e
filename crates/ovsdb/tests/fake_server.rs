//! Protocol robustness against a scripted fake server on a unix socket: `echo` answered,
//! malformed and oversized messages → typed failure + reconnect + resync, `monitor` fallback.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use ovsdb::framing::JsonSplitter;
use ovsdb::{Change, Client, ClientOptions, Error, MonitorSpec};
use serde_json::{Value as Json, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{UnixListener, UnixStream};

const U1: &str = "11111111-1111-1111-1111-111111111111";
const U2: &str = "22222222-2222-2222-2222-222222222222";
const U3: &str = "33333333-3333-3333-3333-333333333333";

struct Peer {
    s: UnixStream,
    split: JsonSplitter,
}

impl Peer {
    async fn accept(l: &UnixListener) -> Peer {
        let (s, _) = l.accept().await.unwrap();
        Peer {
            s,
            split: JsonSplitter::new(1 << 20),
        }
    }
    /// The next message, or None at EOF.
    async fn recv(&mut self) -> Option<Json> {
        let mut buf = [0u8; 4096];
        loop {
            if let Some(m) = self.split.next_message().unwrap() {
                return Some(m);
            }
            let n = self.s.read(&mut buf).await.unwrap_or(0);
            if n == 0 {
                return None;
            }
            self.split.feed(&buf[..n]);
        }
    }
    async fn expect(&mut self, method: &str) -> Json {
        let m = self.recv().await.expect("client hung up");
        assert_eq!(m["method"], method, "{m}");
        m
    }
    async fn send(&mut self, j: Json) {
        self.s.write_all(j.to_string().as_bytes()).await.unwrap();
    }
    async fn reply(&mut self, req: &Json, result: Json) {
        self.send(json!({"result": result, "error": null, "id": req["id"]}))
            .await;
    }
    /// Answers `request` with a JSON-RPC error.
    async fn fail(&mut self, req: &Json, error: &str) {
        self.send(json!({"result": null, "error": error, "id": req["id"]}))
            .await;
    }
    /// An old server: no `_Server` database, no `set_db_change_aware`, no
    /// `monitor_cond_since` (the client falls back at each step).
    async fn old_server_preamble(&mut self) {
        let r = self.expect("monitor_cond").await;
        assert_eq!(r["params"][0], "_Server", "{r}");
        self.fail(&r, "unknown database").await;
    }
    async fn old_server_monitor(&mut self) -> Json {
        let r = self.expect("set_db_change_aware").await;
        self.fail(&r, "unknown method").await;
        let r = self.expect("monitor_cond_since").await;
        self.fail(&r, "unknown method").await;
        self.expect("monitor_cond").await
    }
    /// get_schema + monitor_cond with the given initial rows; returns the monitor id.
    async fn handshake(&mut self, initial: Json) -> Json {
        self.old_server_preamble().await;
        let r = self.expect("get_schema").await;
        assert_eq!(r["params"], json!(["Fake"]));
        // extra keys/columns the client does not know about are tolerated
        self.reply(
            &r,
            json!({"name": "Fake", "version": "1.0.0", "cksum": "0 0",
            "tables": {"T": {"columns": {"name": {"type": "string"},
                                          "extra": {"type": "integer", "future": 1}},
                             "isRoot": true}}}),
        )
        .await;
        let r = self.old_server_monitor().await;
        self.reply(&r, initial).await;
        r["params"][1].clone()
    }
    async fn expect_eof(&mut self) {
        assert!(self.recv().await.is_none(), "client should have closed");
    }
}

#[tokio::test]
async fn malformed_oversized_and_fallback() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fake.sock");
    let listener = UnixListener::bind(&path).unwrap();
    let (pending_tx, pending_rx) = tokio::sync::oneshot::channel::<()>();

    let server = tokio::spawn(async move {
        // 1: echo is answered; a pending request fails when garbage arrives.
        let mut p = Peer::accept(&listener).await;
        p.handshake(json!({"T": {U1: {"initial": {"name": "a"}}}}))
            .await;
        p.send(json!({"method": "echo", "params": ["ping", 7], "id": "echo"}))
            .await;
        let r = p.recv().await.unwrap();
        assert_eq!(
            r,
            json!({"result": ["ping", 7], "error": null, "id": "echo"})
        );
        let _ = pending_tx.send(());
        p.expect("transact").await;
        p.s.write_all(b" \"not an object\" ").await.unwrap();
        p.expect_eof().await;

        // 2: resync to other contents, then an oversized message.
        let mut p = Peer::accept(&listener).await;
        let id = p
            .handshake(json!({"T": {U2: {"initial": {"name": "b"}}}}))
            .await;
        let big = "x".repeat(10_000);
        p.send(
            json!({"method": "update2", "params": [id, {"T": {U2: {"modify": {"name": big}}}}],
            "id": null}),
        )
        .await;
        p.expect_eof().await;

        // 3: a server without monitor_cond: fall back to monitor / update (v1).
        let mut p = Peer::accept(&listener).await;
        p.old_server_preamble().await;
        let r = p.expect("get_schema").await;
        p.reply(
            &r,
            json!({"name": "Fake", "tables": {"T": {"columns": {
            "name": {"type": "string"}}}}}),
        )
        .await;
        let r = p.old_server_monitor().await;
        p.fail(&r, "unknown method").await;
        let r = p.expect("monitor").await;
        assert!(r["params"][2]["T"]["columns"].is_array(), "{r}");
        let id = r["params"][1].clone();
        p.reply(&r, json!({"T": {U3: {"new": {"name": "c"}}}}))
            .await;
        p.send(json!({"method": "update", "params": [id, {"T": {U3: {
            "old": {"name": "c"}, "new": {"name": "c2"}}}}], "id": null}))
            .await;
        p.expect_eof().await;
    });

    let opts = ClientOptions {
        max_message_bytes: 4096,
        backoff_initial: Duration::from_millis(10),
        ..ClientOptions::default()
    };
    let client = Client::connect_with(
        &format!("unix:{}", path.display()),
        "Fake",
        MonitorSpec::all(),
        opts,
    )
    .await
    .unwrap();
    assert_eq!(
        client
            .replica()
            .find_by_name("T", "a")
            .unwrap()
            .get_i64("extra"),
        Some(0),
        "default filled for a column the server omitted"
    );
    let mut events = client.subscribe();
    pending_rx.await.unwrap();
    let err = client
        .request("transact", json!(["Fake"]))
        .await
        .unwrap_err();
    // The transaction was on the wire when the connection broke: it may have committed.
    assert!(matches!(err, Error::OutcomeUnknown), "{err:?}");

    let mut log = Vec::new();
    while log.len() < 5 {
        let c = tokio::time::timeout(Duration::from_secs(10), events.recv())
            .await
            .expect("missing change events")
            .unwrap();
        log.push(match c {
            Change::Insert { new, .. } => format!("+{}", new.get_str("name").unwrap()),
            Change::Delete { old, .. } => format!("-{}", old.get_str("name").unwrap()),
            Change::Update { old, new, .. } => format!(
                "{}>{}",
                old.get_str("name").unwrap(),
                new.get_str("name").unwrap()
            ),
        });
    }
    // conn 2 resync: -a +b (order within a resync: inserts/updates, then deletes);
    // conn 3 resync: +c -b; then the v1 update.
    assert_eq!(log, vec!["+b", "-a", "+c", "-b", "c>c2"]);
    assert_eq!(client.state().syncs, 3);
    drop(events);
    drop(client);
    tokio::time::timeout(Duration::from_secs(10), server)
        .await
        .expect("fake server did not finish")
        .unwrap();
}

#[tokio::test]
async fn unanswered_inactivity_probe_reconnects() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fake.sock");
    let listener = UnixListener::bind(&path).unwrap();
    let server = tokio::spawn(async move {
        let mut p = Peer::accept(&listener).await;
        p.handshake(json!({})).await;
        // A silent server: the client probes with echo, we never answer.
        let probe = p.expect("echo").await;
        assert!(probe["id"].is_u64(), "{probe}");
        p.expect_eof().await;
        let mut p = Peer::accept(&listener).await;
        p.handshake(json!({"T": {U1: {"initial": {"name": "back"}}}}))
            .await;
        // An answered probe keeps the connection: reply to two in a row.
        for _ in 0..2 {
            let e = p.expect("echo").await;
            p.reply(&e, e["params"].clone()).await;
        }
        p
    });
    let opts = ClientOptions {
        inactivity_probe: Some(Duration::from_millis(50)),
        backoff_initial: Duration::from_millis(10),
        ..ClientOptions::default()
    };
    let client = Client::connect_with(
        &format!("unix:{}", path.display()),
        "Fake",
        MonitorSpec::all(),
        opts,
    )
    .await
    .unwrap();
    let mut state = client.watch_state();
    tokio::time::timeout(Duration::from_secs(10), state.wait_for(|s| s.syncs == 2))
        .await
        .expect("no reconnect after the unanswered probe")
        .unwrap();
    assert!(client.replica().find_by_name("T", "back").is_some());
    let _peer = tokio::time::timeout(Duration::from_secs(10), server)
        .await
        .expect("fake server did not see two probes")
        .unwrap();
    assert_eq!(client.state().syncs, 2, "answered probes keep the session");
}
