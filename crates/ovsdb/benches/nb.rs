//! Benchmarks beside the Python OVS IDL, same work, same private ovsdb-server, same run:
//! initial sync of 10,000 Load_Balancer rows (time, peak RSS), sequential single-row
//! Load_Balancer updates (transactions/s), and the raw ceiling (pipelined `transact`s on a
//! bare socket, Rust and Python) next to this client pipelining through concurrent callers.
//!
//! `cargo bench -p ovsdb --bench nb` (needs ovsdb-server, ovsdb-tool, the NB schema and
//! `KEEL_BENCH_PYTHON`, default /var/tmp/keel-stack/venv/bin/python, with `ovs` + `ovsdbapp`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ovsdb::framing::JsonSplitter;
use ovsdb::{Client, Condition, MonitorSpec, Transaction, Uuid, Value};
use serde_json::{Value as Json, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const NB: &str = "OVN_Northbound";
const ROWS: usize = 10_000;
const TXNS: usize = 1_000;
const RAW: usize = 5_000;
const DEPTH: usize = 64;

fn lb_row(i: usize) -> Vec<(&'static str, Value)> {
    let id = Uuid::new_v4().to_string();
    vec![
        ("name", Value::from(id.clone())),
        ("protocol", Value::set(["tcp"])),
        (
            "vips",
            Value::str_map([(
                format!("10.{}.{}.10:80", i / 250, i % 250),
                "10.0.0.5:8080,10.0.0.6:8080".to_string(),
            )]),
        ),
        (
            "external_ids",
            Value::str_map([
                ("neutron:vip".to_string(), "10.0.0.10".to_string()),
                (
                    "neutron:vip_port_id".to_string(),
                    Uuid::new_v4().to_string(),
                ),
                ("enabled".to_string(), "True".to_string()),
                (format!("listener_{id}"), "80:pool_x".to_string()),
                (
                    format!("pool_{id}"),
                    "member_a_10.0.0.5:8080_subnet,member_b_10.0.0.6:8080_subnet".to_string(),
                ),
                ("neutron:member_status".to_string(), "{}".to_string()),
            ]),
        ),
    ]
}

struct Server {
    _dir: tempfile::TempDir,
    child: Child,
    port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_server() -> Server {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("nb.db");
    assert!(
        Command::new("ovsdb-tool")
            .arg("create")
            .arg(&db)
            .arg("/usr/share/ovn/ovn-nb.ovsschema")
            .status()
            .unwrap()
            .success()
    );
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new("ovsdb-server")
        .arg(format!("--remote=ptcp:{port}:127.0.0.1"))
        .arg(format!("--unixctl={}", dir.path().join("ctl").display()))
        .arg("--no-chdir")
        .arg(&db)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "ovsdb-server did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    Server {
        _dir: dir,
        child,
        port,
    }
}

fn vm_hwm_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn python(args: &[&str]) -> Json {
    let py = std::env::var("KEEL_BENCH_PYTHON")
        .unwrap_or_else(|_| "/var/tmp/keel-stack/venv/bin/python".into());
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/bench-py/idl_bench.py");
    let out = Command::new(py).arg(script).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "python {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Child mode: connect, sync, report time and peak RSS of this process alone.
async fn child_sync(remote: &str) {
    let t0 = Instant::now();
    let nb = Client::connect(remote, NB, MonitorSpec::new().table("Load_Balancer"))
        .await
        .unwrap();
    let ms = t0.elapsed().as_secs_f64() * 1000.0;
    let rows = nb.replica().table("Load_Balancer").unwrap().len();
    println!("{}", json!({"ms": ms, "rows": rows, "rss_kb": vm_hwm_kb()}));
}

async fn raw_pipelined(port: u16, uuid: Uuid, n: usize, depth: usize) -> f64 {
    let s = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    s.set_nodelay(true).unwrap();
    let (mut r, mut w) = s.into_split();
    let mut split = JsonSplitter::new(1 << 20);
    let mut buf = vec![0u8; 65536];
    let (mut sent, mut done) = (0usize, 0usize);
    let t0 = Instant::now();
    while done < n {
        let mut out = Vec::new();
        while sent < n && sent - done < depth {
            sent += 1;
            let req = json!({"id": sent, "method": "transact", "params": [NB,
                {"op": "update", "table": "Load_Balancer",
                 "where": [["_uuid", "==", ["uuid", uuid.to_string()]]],
                 "row": {"external_ids": ["map", [["bench-seq", sent.to_string()]]]}}]});
            out.extend_from_slice(req.to_string().as_bytes());
        }
        if !out.is_empty() {
            w.write_all(&out).await.unwrap();
        }
        let k = r.read(&mut buf).await.unwrap();
        assert!(k > 0, "server closed");
        split.feed(&buf[..k]);
        while let Some(m) = split.next_message().unwrap() {
            if m["id"].as_u64().is_some() {
                assert!(m["result"][0].get("error").is_none(), "{m}");
                done += 1;
            }
        }
    }
    n as f64 / t0.elapsed().as_secs_f64()
}

async fn find(nb: &Client, name: &str) -> Uuid {
    nb.replica()
        .find_by_name("Load_Balancer", name)
        .map(|r| r.uuid())
        .unwrap()
}

fn update(uuid: Uuid, i: usize) -> Transaction {
    Transaction::new(NB).mutate(
        "Load_Balancer",
        &[Condition::uuid(uuid)],
        &[
            ovsdb::Mutation::delete("external_ids", Value::set(["bench-seq"])),
            ovsdb::Mutation::insert(
                "external_ids",
                Value::str_map([("bench-seq", i.to_string())]),
            ),
        ],
    )
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("child-sync") {
        return child_sync(&args[2]).await;
    }
    if args.iter().any(|a| a == "--list") {
        return;
    }
    let server = start_server();
    let remote = format!("tcp:127.0.0.1:{}", server.port);
    let nb = Client::connect(&remote, NB, MonitorSpec::new().table("Load_Balancer"))
        .await
        .unwrap();
    for chunk in 0..ROWS / 1000 {
        let mut t = Transaction::new(NB);
        for i in 0..1000 {
            t = t.insert("Load_Balancer", lb_row(chunk * 1000 + i), None);
        }
        nb.transact(t).await.unwrap();
    }
    for name in ["bench-target-rs", "bench-target-py", "bench-target-raw"] {
        let mut row = lb_row(0);
        row[0].1 = Value::from(name);
        nb.transact(Transaction::new(NB).insert("Load_Balancer", row, None))
            .await
            .unwrap();
    }
    println!(
        "ovsdb bench: {} Load_Balancer rows on a private ovsdb-server",
        ROWS + 3
    );

    // 1. Initial sync (separate processes so peak RSS is the client's alone).
    let exe = std::env::current_exe().unwrap();
    let mut rs = Vec::new();
    let mut py = Vec::new();
    for _ in 0..3 {
        let out = Command::new(&exe)
            .args(["child-sync", &remote])
            .output()
            .unwrap();
        rs.push(serde_json::from_slice::<Json>(&out.stdout).unwrap());
        py.push(python(&["sync", &remote]));
    }
    let best = |v: &[Json], k: &str| {
        v.iter()
            .map(|j| j[k].as_f64().unwrap())
            .fold(f64::INFINITY, f64::min)
    };
    let (rs_ms, py_ms) = (best(&rs, "ms"), best(&py, "ms"));
    let (rs_rss, py_rss) = (best(&rs, "rss_kb"), best(&py, "rss_kb"));
    println!(
        "initial sync: rust {rs_ms:.0} ms / {:.1} MiB peak RSS; python IDL {py_ms:.0} ms / \
         {:.1} MiB; time ratio {:.1}x, RSS ratio {:.1}x",
        rs_rss / 1024.0,
        py_rss / 1024.0,
        py_ms / rs_ms,
        py_rss / rs_rss
    );

    // 2. Sequential single-row updates.
    let target = find(&nb, "bench-target-rs").await;
    let t0 = Instant::now();
    for i in 0..TXNS {
        nb.transact(update(target, i)).await.unwrap();
    }
    let rs_tps = TXNS as f64 / t0.elapsed().as_secs_f64();
    let py_tps = python(&["txn", &remote, &TXNS.to_string()])["tps"]
        .as_f64()
        .unwrap();
    println!(
        "single-row updates, one at a time: rust {rs_tps:.0} txn/s; python IDL {py_tps:.0} \
         txn/s; ratio {:.1}x",
        rs_tps / py_tps
    );

    // 3. Ceiling: raw pipelined transacts (depth 64), and this client with 64 callers.
    let raw_target = find(&nb, "bench-target-raw").await;
    let raw_rs = raw_pipelined(server.port, raw_target, RAW, DEPTH).await;
    let raw_py = python(&["raw", &remote, &RAW.to_string(), &DEPTH.to_string()])["tps"]
        .as_f64()
        .unwrap();
    let t0 = Instant::now();
    let mut tasks = Vec::new();
    for c in 0..DEPTH {
        let nb = nb.clone();
        tasks.push(tokio::spawn(async move {
            for i in 0..RAW / DEPTH {
                nb.transact(update(target, c * 100_000 + i)).await.unwrap();
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let client_tps = (RAW / DEPTH * DEPTH) as f64 / t0.elapsed().as_secs_f64();
    println!(
        "pipelined (depth {DEPTH}): raw rust socket {raw_rs:.0} txn/s; raw python socket \
         {raw_py:.0} txn/s; keel client with {DEPTH} concurrent callers {client_tps:.0} txn/s \
         ({:.0}% of the raw ceiling)",
        100.0 * client_tps / raw_rs
    );
}
