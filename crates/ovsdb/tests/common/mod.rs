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
