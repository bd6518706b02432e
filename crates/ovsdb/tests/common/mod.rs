//! Test harness: a private `ovsdb-server` with the OVN NB schema in a tempdir, killed on Drop.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value as Json;

/// The NB schema Debian's `ovn-common` installs.
pub const NB_SCHEMA: &str = "/usr/share/ovn/ovn-nb.ovsschema";
/// The database name in that schema.
pub const NB: &str = "OVN_Northbound";

/// One ovsdb-server process serving a fresh NB database on a unix socket and 127.0.0.1.
pub struct NbServer {
    pub dir: tempfile::TempDir,
    child: Option<Child>,
    pub port: u16,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl NbServer {
    /// Creates the database with `ovsdb-tool create` and starts the server.
    pub fn start() -> NbServer {
        let dir = tempfile::tempdir().unwrap();
        let st = Command::new("ovsdb-tool")
            .arg("create")
            .arg(dir.path().join("nb.db"))
            .arg(NB_SCHEMA)
            .status()
            .expect("ovsdb-tool (package openvswitch-common) must be installed");
        assert!(st.success(), "ovsdb-tool create failed");
        let mut s = NbServer {
            dir,
            child: None,
            port: free_port(),
        };
        s.spawn();
        s
    }

    fn path(&self, f: &str) -> PathBuf {
        self.dir.path().join(f)
    }

    /// `unix:<dir>/nb.sock`.
    pub fn unix(&self) -> String {
        format!("unix:{}", self.path("nb.sock").display())
    }

    /// `tcp:127.0.0.1:<port>`.
    pub fn tcp(&self) -> String {
        format!("tcp:127.0.0.1:{}", self.port)
    }

    fn spawn(&mut self) {
        let child = Command::new("ovsdb-server")
            .arg(format!("--remote=punix:{}", self.path("nb.sock").display()))
            .arg(format!("--remote=ptcp:{}:127.0.0.1", self.port))
            .arg(format!("--unixctl={}", self.path("ctl").display()))
            .arg(format!("--pidfile={}", self.path("pid").display()))
            .arg("--no-chdir")
            .arg(format!("--log-file={}", self.path("log").display()))
            .arg(self.path("nb.db"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("ovsdb-server (package openvswitch-switch) must be installed");
        self.child = Some(child);
        // Readiness: both listeners accept (the server creates them before serving).
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let unix_ok = std::os::unix::net::UnixStream::connect(self.path("nb.sock")).is_ok();
            let tcp_ok = std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok();
            if unix_ok && tcp_ok {
                return;
            }
            if let Some(Ok(Some(st))) = self.child.as_mut().map(Child::try_wait) {
                panic!(
                    "ovsdb-server exited with {st}; log: {}",
                    std::fs::read_to_string(self.path("log")).unwrap_or_default()
                );
            }
            assert!(Instant::now() < deadline, "ovsdb-server did not come up");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Kills the server (SIGKILL) and waits for it to exit.
    pub fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
        let _ = std::fs::remove_file(self.path("nb.sock"));
    }

    /// Starts the server again on the same database file, socket and port.
    pub fn restart(&mut self) {
        self.stop();
        self.spawn();
    }

    /// Runs `ovsdb-tool transact` on the database file (server must be stopped).
    pub fn offline_transact(&self, txn: &Json) -> Json {
        let out = Command::new("ovsdb-tool")
            .arg("transact")
            .arg(self.path("nb.db"))
            .arg(txn.to_string())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// `ovn-nbctl --db=unix:… <args>` (another client), returns stdout.
    pub fn nbctl(&self, args: &[&str]) -> String {
        let out = Command::new("ovn-nbctl")
            .arg(format!("--db={}", self.unix()))
            .args(args)
            .output()
            .expect("ovn-nbctl must be installed");
        assert!(
            out.status.success(),
            "ovn-nbctl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// `ovsdb-client query` of all rows of `table` (all columns): the server's own view.
    pub fn query_all(&self, table: &str) -> Vec<Json> {
        let txn = serde_json::json!([NB, {"op": "select", "table": table, "where": []}]);
        let out = Command::new("ovsdb-client")
            .arg("query")
            .arg(self.unix())
            .arg(txn.to_string())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let j: Json = serde_json::from_slice(&out.stdout).unwrap();
        j[0]["rows"].as_array().cloned().unwrap_or_default()
    }
}

impl Drop for NbServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Polls `cond` every 20 ms until it holds or `secs` pass (then panics with `what`).
pub fn poll_until(secs: u64, what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// One member of a raft cluster.
struct Member {
    child: Option<Child>,
    client_port: u16,
}

/// A raft cluster of `ovsdb-server`s with the NB schema on 127.0.0.1 (`ovsdb-tool
/// create-cluster` / `join-cluster`), killed on Drop.
pub struct Cluster {
    pub dir: tempfile::TempDir,
    members: Vec<Member>,
}

impl Cluster {
    /// Creates and starts `n` servers; returns once one of them is the leader and every
    /// member is connected to the cluster.
    pub fn start(n: usize) -> Cluster {
        let dir = tempfile::tempdir().unwrap();
        let raft: Vec<u16> = (0..n).map(|_| free_port()).collect();
        for i in 0..n {
            let db = dir.path().join(format!("nb{i}.db"));
            let local = format!("tcp:127.0.0.1:{}", raft[i]);
            let mut cmd = Command::new("ovsdb-tool");
            if i == 0 {
                cmd.arg("create-cluster")
                    .arg(&db)
                    .arg(NB_SCHEMA)
                    .arg(&local);
            } else {
                cmd.arg("join-cluster")
                    .arg(&db)
                    .arg(NB)
                    .arg(&local)
                    .arg(format!("tcp:127.0.0.1:{}", raft[0]));
            }
            let out = cmd.output().expect("ovsdb-tool must be installed");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let mut c = Cluster {
            dir,
            members: (0..n)
                .map(|_| Member {
                    child: None,
                    client_port: free_port(),
                })
                .collect(),
        };
        for i in 0..n {
            c.spawn(i);
        }
        poll_until(30, "cluster formed", || {
            c.leader().is_some()
                && (0..n).all(|i| {
                    c.status(i)
                        .is_some_and(|s| s.contains("Status: cluster member"))
                })
        });
        c
    }

    fn path(&self, f: &str) -> PathBuf {
        self.dir.path().join(f)
    }

    fn spawn(&mut self, i: usize) {
        let port = self.members[i].client_port;
        let child = Command::new("ovsdb-server")
            .arg(format!("--remote=ptcp:{port}:127.0.0.1"))
            .arg(format!(
                "--unixctl={}",
                self.path(&format!("ctl{i}")).display()
            ))
            .arg(format!(
                "--pidfile={}",
                self.path(&format!("pid{i}")).display()
            ))
            .arg("--no-chdir")
            .arg(format!(
                "--log-file={}",
                self.path(&format!("log{i}")).display()
            ))
            .arg(self.path(&format!("nb{i}.db")))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("ovsdb-server must be installed");
        self.members[i].child = Some(child);
        poll_until(20, "cluster member listening", || {
            std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
    }

    /// `tcp:127.0.0.1:<port>` of member `i`.
    pub fn remote(&self, i: usize) -> String {
        format!("tcp:127.0.0.1:{}", self.members[i].client_port)
    }

    /// All members' remotes, comma-separated.
    pub fn remotes(&self) -> String {
        (0..self.members.len())
            .map(|i| self.remote(i))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// `cluster/status` of member `i` (None if it is down or does not answer).
    pub fn status(&self, i: usize) -> Option<String> {
        self.members[i].child.as_ref()?;
        let out = Command::new("ovs-appctl")
            .arg("-t")
            .arg(self.path(&format!("ctl{i}")))
            .arg("cluster/status")
            .arg(NB)
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// The member that says it is the leader.
    pub fn leader(&self) -> Option<usize> {
        (0..self.members.len())
            .find(|&i| self.status(i).is_some_and(|s| s.contains("Role: leader")))
    }

    /// SIGKILLs member `i`.
    pub fn kill(&mut self, i: usize) {
        if let Some(mut c) = self.members[i].child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Starts member `i` again on its database file and port.
    pub fn restart(&mut self, i: usize) {
        self.kill(i);
        self.spawn(i);
    }

    /// `ovsdb-client query` (leader only) of all rows of `table` over the live members.
    pub fn query_all(&self, table: &str) -> Vec<Json> {
        let live: Vec<String> = (0..self.members.len())
            .filter(|&i| self.members[i].child.is_some())
            .map(|i| self.remote(i))
            .collect();
        query_all(&live.join(","), table)
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for i in 0..self.members.len() {
            self.kill(i);
        }
    }
}

/// `ovsdb-client query <remote>` selecting every row of `table`.
pub fn query_all(remote: &str, table: &str) -> Vec<Json> {
    let txn = serde_json::json!([NB, {"op": "select", "table": table, "where": []}]);
    let out = Command::new("ovsdb-client")
        .arg("query")
        .arg(remote)
        .arg(txn.to_string())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: Json = serde_json::from_slice(&out.stdout).unwrap();
    j[0]["rows"].as_array().cloned().unwrap_or_default()
}

/// A TCP relay in front of a server whose gate the test opens and closes: closing drops every
/// relayed connection and refuses new ones, cutting one client off while others keep working.
pub struct Gate {
    pub port: u16,
    open: std::sync::Arc<tokio::sync::watch::Sender<bool>>,
}

impl Gate {
    /// Relays 127.0.0.1:<port> to `target` (`host:port`). Needs a tokio runtime.
    pub async fn start(target: String) -> Gate {
        let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = l.local_addr().unwrap().port();
        let open = std::sync::Arc::new(tokio::sync::watch::channel(true).0);
        let o = open.clone();
        tokio::spawn(async move {
            loop {
                let Ok((mut inbound, _)) = l.accept().await else {
                    return;
                };
                if !*o.borrow() {
                    continue; // dropped: refused
                }
                let target = target.clone();
                let mut closed = o.subscribe();
                tokio::spawn(async move {
                    let Ok(mut out) = tokio::net::TcpStream::connect(target).await else {
                        return;
                    };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut inbound, &mut out) => {}
                        _ = closed.wait_for(|open| !*open) => {}
                    }
                });
            }
        });
        Gate { port, open }
    }

    /// `tcp:127.0.0.1:<port>`.
    pub fn remote(&self) -> String {
        format!("tcp:127.0.0.1:{}", self.port)
    }

    /// Opens or closes the gate.
    pub fn set_open(&self, open: bool) {
        self.open.send_replace(open);
    }
}

/// Every row of `table` in the replica equals the server's rows (`query_all` output), and
/// the counts agree.
pub fn assert_rows_match(rows: Vec<Json>, snap: &ovsdb::Snapshot, table: &str) {
    let t = snap.table(table).unwrap();
    assert_eq!(t.len(), rows.len(), "{table}: row count");
    let ts = snap.schema().table(table).unwrap();
    for r in rows {
        let uuid = ovsdb::Uuid::parse_str(r["_uuid"][1].as_str().unwrap()).unwrap();
        let mine = t
            .get(&uuid)
            .unwrap_or_else(|| panic!("{table} {uuid} missing"));
        for (col, v) in mine.columns() {
            let theirs = ts.columns[col]
                .ty
                .normalize(ovsdb::Value::from_json(&r[col]).unwrap());
            assert_eq!(v, &theirs, "{table} {uuid} column {col}");
        }
    }
}

/// `ovsdb-client query` over `ssl:` with the given key, certificate and CA.
pub fn query_all_ssl(
    remote: &str,
    key: &std::path::Path,
    cert: &std::path::Path,
    ca: &std::path::Path,
    table: &str,
) -> Vec<Json> {
    let txn = serde_json::json!([NB, {"op": "select", "table": table, "where": []}]);
    let out = Command::new("ovsdb-client")
        .arg(format!("--private-key={}", key.display()))
        .arg(format!("--certificate={}", cert.display()))
        .arg(format!("--ca-cert={}", ca.display()))
        .arg("query")
        .arg(remote)
        .arg(txn.to_string())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: Json = serde_json::from_slice(&out.stdout).unwrap();
    j[0]["rows"].as_array().cloned().unwrap_or_default()
}
