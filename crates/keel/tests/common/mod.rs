//! Shared harness of the end-to-end tests: real `keel serve` processes against the services
//! of `ci/stack/` (Keystone, Neutron, OVN NB/SB + ovn-northd, MariaDB), driven through the
//! real clients (`openstack`, `curl`, `ovsdb-client`, `ovn-nbctl`, `mysql`, `sqlite3`).
//!
//! What each helper starts and what it cleans:
//! * [`Keel::start`]: a temp dir (config, log, SQLite file), a fresh MariaDB database when
//!   asked ([`MariaDb`]), `keel db upgrade` then `keel serve` on a free 127.0.0.1 port
//!   ([`Keel::start_with`]: plus an operator's config text as a second `--config-file`). On drop
//!   the process is killed and waited for, the temp dir and the owned database are removed.
//! * [`NeutronNet::create`]: a network, a 10.0.0.0/24 subnet, a router with an interface on it
//!   and ports with fixed IPs, as the `demo` user. On drop (as `admin`): the router interface,
//!   the router, every port left on the network (also the VIP/HM ports Keel made), the network.
//! * [`LbGuard`]: nothing at start; on drop the NB `Load_Balancer` rows named after the LB.
//! * [`AgentLock`]: holds the agent's NB lock while alive, releases it on drop.
//! * Read-only: [`select`] (OVSDB rows), [`os`]/[`osj`] (the CLI), [`http`] (the REST APIs).
//!
//! Every helper panics with the command and its output on failure: these are tests. The
//! environment comes from `ci/stack/env.sh` (run the tests through `ci/test.sh`).
#![allow(
    dead_code,
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub mod amphora;
pub mod dataplane;
pub mod fluentd;
pub mod monitors;
pub mod tls;

/// The NB lock the provider agent of every `keel serve` competes for
/// (`ovn_provider::agent::AGENT_LOCK`): one name for the whole machine.
pub const AGENT_LOCK: &str = "keel_ovn_provider_agent";

/// An environment variable of `ci/stack/env.sh`; panics saying how to run the tests.
pub fn env(name: &str) -> String {
    std::env::var(name)
        .unwrap_or_else(|_| panic!("{name} is not set: run the tests through ci/test.sh"))
}

/// A TCP port free on 127.0.0.1 right now (the OS picks it; released before returning).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Seconds each Keystone request of a harness Keel may take (`[keystone_authtoken]
/// http_connect_timeout`, `[service_auth] timeout`; Keel's default is 5). Keystone hashes
/// passwords with bcrypt on two workers: on the loaded CI machine six concurrent password
/// logins took 2.1–6.6 s, so a fresh Keel's first request (its service token, then the
/// user token's validation) could answer 503 within the default bound. Tests about the
/// bound itself (`peer_outage.rs`) set their own.
pub const KEYSTONE_BOUND: u32 = 30;

/// A short random tag for the names of one test run (Neutron names, LB names).
pub fn tag() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..8].to_string()
}

/// Calls `probe` until it returns `Some`, every 100 ms, for at most `timeout`; panics with
/// `what` and the last `Err` description when the deadline passes. For observable states
/// that another process reaches asynchronously (a status, a row), never as a bare delay.
pub fn wait_for<T>(
    what: &str,
    timeout: Duration,
    mut probe: impl FnMut() -> Result<T, String>,
) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        match probe() {
            Ok(v) => return v,
            Err(last) => {
                assert!(
                    Instant::now() < deadline,
                    "timed out after {timeout:?} waiting for {what}; last seen: {last}"
                );
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A fresh `keel_test_e2e_<uuid>` database on the stack's MariaDB (user `keel`); dropped on
/// drop.
pub struct MariaDb {
    pub name: String,
}

impl MariaDb {
    /// `CREATE DATABASE keel_test_e2e_<uuid>`.
    pub fn create() -> Self {
        let name = format!("keel_test_e2e_{}", uuid::Uuid::new_v4().simple());
        mysql(None, &format!("CREATE DATABASE {name}"));
        MariaDb { name }
    }

    /// Its SQLAlchemy-style URL (`mysql://keel:…@127.0.0.1:3306/<name>`), from
    /// `STACK_KEEL_DB_URL`'s server part.
    pub fn url(&self) -> String {
        let base = env("STACK_KEEL_DB_URL");
        let server = base.rsplit_once('/').map(|(s, _)| s.to_string()).unwrap();
        format!("{server}/{}", self.name)
    }

    /// Runs `statement` in this database; its tab-separated output, trimmed.
    pub fn sql(&self, statement: &str) -> String {
        mysql(Some(&self.name), statement)
    }
}

impl Drop for MariaDb {
    fn drop(&mut self) {
        mysql(None, &format!("DROP DATABASE IF EXISTS {}", self.name));
    }
}

fn mysql(db: Option<&str>, statement: &str) -> String {
    let mut cmd = Command::new("mysql");
    cmd.args(["-h127.0.0.1", "-ukeel", "-pkeel-db-pass", "-N", "-B"]);
    // the slot's server (`STACK_SLOT=N` moves MariaDB's port), as in STACK_KEEL_DB_URL
    if let Some(port) = std::env::var("STACK_KEEL_DB_URL").ok().and_then(|u| {
        let server = u.rsplit_once('/')?.0.rsplit_once(':')?.1.to_string();
        server.parse::<u16>().ok()
    }) {
        cmd.arg(format!("-P{port}"));
    }
    if let Some(db) = db {
        cmd.arg(db);
    }
    let out = cmd.args(["-e", statement]).output().unwrap();
    assert!(
        out.status.success(),
        "mysql: {statement}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn sqlite(file: &Path, statement: &str) -> String {
    let out = Command::new("sqlite3")
        .arg(file)
        .arg(statement)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "sqlite3: {statement}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Where a [`Keel`]'s Octavia DB lives.
pub enum Backend {
    /// The embedded default: a fresh SQLite file in the temp dir.
    Sqlite,
    /// Production: a fresh [`MariaDb`] database, owned by the `Keel` and dropped with it.
    MariaDb,
    /// An existing MariaDB database (e.g. shared by two `keel serve`); not dropped.
    Shared(String),
}

enum Db {
    Sqlite(PathBuf),
    MariaDb {
        name: String,
        _owned: Option<MariaDb>,
    },
}

/// A `keel serve` child process with `auth_strategy = keystone` (service user `octavia`),
/// the `ovn` provider on the stack's NB/SB and Neutron. Killed (and waited for) on drop.
pub struct Keel {
    child: Child,
    /// Its API (`http://127.0.0.1:<port>`): `keel.api(…)`, `keel.create(…)` reach it by deref.
    endpoint: Endpoint,
    pub port: u16,
    pub conf: PathBuf,
    /// `--config-file` arguments of `keel serve` (for [`Keel::restart`]).
    conf_args: Vec<std::ffi::OsString>,
    db: Db,
    dir: tempfile::TempDir,
}

/// Spawns `keel <conf_args> serve`, stdout/stderr appended to `<dir>/keel.log`.
fn spawn_serve(conf_args: &[std::ffi::OsString], dir: &Path) -> Child {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("keel.log"))
        .unwrap();
    Command::new(keel_bin())
        .args(conf_args)
        .arg("serve")
        .env("NO_COLOR", "1")
        .stdout(Stdio::from(log.try_clone().unwrap()))
        .stderr(Stdio::from(log))
        .spawn()
        .unwrap()
}

/// The `keel` binary of this build.
pub fn keel_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_keel"))
}

impl Keel {
    /// Writes `keel.conf`, runs `keel db upgrade`, spawns `keel serve` (stdout/stderr to
    /// `keel.log`, no ANSI colours) and returns once its port accepts connections (60 s).
    pub fn start(backend: Backend) -> Keel {
        Self::start_full(backend, |conf| conf, "")
    }

    /// [`Keel::start`] with the generated `keel.conf` text passed through `edit` first (e.g.
    /// to point a peer at a proxy or add options).
    pub fn start_with(backend: Backend, edit: impl FnOnce(String) -> String) -> Keel {
        Self::start_full(backend, edit, "")
    }

    /// [`Keel::start`] with `extra` (octavia.conf text) as a second `--config-file`
    /// (`extra.conf` in the temp dir; its values win over `keel.conf`'s, as oslo.config's).
    /// `{dir}` in `extra` stands for the temp dir, `{port}` for the API's port.
    pub fn start_extra(backend: Backend, extra: &str) -> Keel {
        Self::start_full(backend, |conf| conf, extra)
    }

    fn start_full(backend: Backend, edit: impl FnOnce(String) -> String, extra: &str) -> Keel {
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let conf = dir.path().join("keel.conf");
        let (db_url, db) = match backend {
            Backend::Sqlite => {
                let file = dir.path().join("keel.sqlite");
                (
                    format!("sqlite://{}?mode=rwc", file.display()),
                    Db::Sqlite(file),
                )
            }
            Backend::MariaDb => {
                let m = MariaDb::create();
                (
                    m.url(),
                    Db::MariaDb {
                        name: m.name.clone(),
                        _owned: Some(m),
                    },
                )
            }
            Backend::Shared(url) => {
                let name = url.rsplit_once('/').map(|(_, n)| n.to_string()).unwrap();
                (url, Db::MariaDb { name, _owned: None })
            }
        };
        let auth = format!(
            "auth_url = {}\nusername = octavia\npassword = octavia-pass\nproject_name = service\n\
             user_domain_name = Default\nproject_domain_name = Default\nregion_name = RegionOne\n",
            env("STACK_KEYSTONE_URL")
        );
        std::fs::write(
            &conf,
            edit(format!(
                "[api_settings]\nbind_host = 127.0.0.1\nbind_port = {port}\nauth_strategy = keystone\n\
                 enabled_provider_drivers = ovn:OVN provider driver\ndefault_provider_driver = ovn\n\
                 [database]\nconnection = {db_url}\n\
                 [keystone_authtoken]\n{auth}http_connect_timeout = {KEYSTONE_BOUND}\n\
                 [service_auth]\n{auth}timeout = {KEYSTONE_BOUND}\n\
                 [neutron]\nendpoint = {}\n[ovn]\novn_nb_connection = {}\novn_sb_connection = {}\n",
                env("STACK_NEUTRON_URL"),
                env("STACK_OVN_NB"),
                env("STACK_OVN_SB"),
            )),
        )
        .unwrap();
        let mut args = vec![conf.clone()];
        if !extra.is_empty() {
            let x = dir.path().join("extra.conf");
            std::fs::write(
                &x,
                extra
                    .replace("{dir}", &dir.path().display().to_string())
                    .replace("{port}", &port.to_string()),
            )
            .unwrap();
            args.push(x);
        }
        let conf_args: Vec<std::ffi::OsString> = args
            .iter()
            .flat_map(|p| ["--config-file".into(), p.clone().into_os_string()])
            .collect();
        let up = Command::new(keel_bin())
            .args(&conf_args)
            .args(["db", "upgrade"])
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert!(
            up.status.success(),
            "keel db upgrade failed: {}",
            String::from_utf8_lossy(&up.stderr)
        );
        let child = spawn_serve(&conf_args, dir.path());
        let mut keel = Keel {
            child,
            endpoint: Endpoint {
                url: format!("http://127.0.0.1:{port}"),
            },
            port,
            conf,
            conf_args,
            db,
            dir,
        };
        keel.wait_listening();
        keel
    }

    fn wait_listening(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            if let Ok(Some(st)) = self.child.try_wait() {
                panic!("keel serve exited ({st}): {}", self.log());
            }
            assert!(
                Instant::now() < deadline,
                "keel did not start listening on {}: {}",
                self.port,
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Starts `keel serve` again on the same config, database and port (after [`Keel::kill`]
    /// or [`Keel::terminate`]); its log is appended to the same `keel.log`.
    pub fn restart(&mut self) {
        self.kill();
        self.child = spawn_serve(&self.conf_args, self.dir.path());
        self.wait_listening();
    }

    /// Sends SIGTERM and waits (at most `bound`) for `keel serve` to exit; its exit status,
    /// `None` if it was still running at the bound (it is then killed).
    pub fn terminate(&mut self, bound: Duration) -> Option<std::process::ExitStatus> {
        let pid = self.child.id().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
        let deadline = Instant::now() + bound;
        loop {
            if let Ok(Some(st)) = self.child.try_wait() {
                return Some(st);
            }
            if Instant::now() >= deadline {
                self.kill();
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The `keel serve` process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The temp dir (config, log, SQLite file); removed on drop.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// What `keel serve` logged so far (stdout and stderr).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("keel.log")).unwrap_or_default()
    }

    /// Kills `keel serve` (SIGKILL) and waits for it; the temp dir and DB stay until drop
    /// (e.g. for `keel ovn-db-sync` on the same config).
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Runs `statement` on this Keel's Octavia DB (`sqlite3` or `mysql`, independent of
    /// Keel's own client); the output (tab-separated columns), trimmed.
    pub fn sql(&self, statement: &str) -> String {
        match &self.db {
            Db::Sqlite(file) => sqlite(file, statement),
            Db::MariaDb { name, .. } => mysql(Some(name), statement),
        }
    }
}

/// An Octavia v2 endpoint (Keel's, or the Python reference's of `STACK_REFERENCE=1`): the
/// API calls the tests make, each waiting as Octavia's clients wait (for ACTIVE).
pub struct Endpoint {
    /// `http://127.0.0.1:<port>`, no trailing `/`.
    pub url: String,
}

impl Endpoint {
    /// The load-balancer endpoint's URL.
    pub fn url(&self) -> String {
        self.url.clone()
    }

    /// `METHOD <path>` on this endpoint with `token` (see [`http`]).
    pub fn api(&self, method: &str, path: &str, token: &str, body: Option<&Value>) -> (u16, Value) {
        http(method, &format!("{}{path}", self.url()), Some(token), body)
    }

    /// Polls `GET /v2/lbaas/loadbalancers/{id}` until `provisioning_status` is ACTIVE (60 s);
    /// panics on ERROR. Returns the load balancer.
    pub fn wait_lb_active(&self, token: &str, lb_id: &str) -> Value {
        wait_for(
            &format!("load balancer {lb_id} ACTIVE"),
            Duration::from_secs(60),
            || {
                let (code, body) = self.api(
                    "GET",
                    &format!("/v2/lbaas/loadbalancers/{lb_id}"),
                    token,
                    None,
                );
                let lb = &body["loadbalancer"];
                match (code, lb["provisioning_status"].as_str()) {
                    (200, Some("ACTIVE")) => Ok(lb.clone()),
                    (200, Some("ERROR")) => panic!("load balancer {lb_id} went ERROR: {lb}"),
                    _ => Err(format!("{code} {body}")),
                }
            },
        )
    }

    /// `POST <path>` of `body` (expects 201), then waits for the LB to be ACTIVE again;
    /// returns the created object (the body's single top-level value).
    pub fn create(&self, token: &str, lb_id: &str, path: &str, body: Value) -> Value {
        let (code, out) = self.api("POST", path, token, Some(&body));
        assert_eq!(code, 201, "POST {path} {body}: {out}");
        self.wait_lb_active(token, lb_id);
        out.as_object()
            .and_then(|o| o.values().next().cloned())
            .unwrap()
    }

    /// `POST /v2/lbaas/loadbalancers` (provider `ovn`, VIP on `subnet`), then waits for
    /// ACTIVE; returns the load balancer.
    pub fn create_lb(&self, token: &str, name: &str, subnet: &str) -> Value {
        let (code, body) = self.api(
            "POST",
            "/v2/lbaas/loadbalancers",
            token,
            Some(
                &json!({"loadbalancer": {"name": name, "vip_subnet_id": subnet,
                "provider": "ovn"}}),
            ),
        );
        assert_eq!(code, 201, "{body}");
        self.wait_lb_active(token, body["loadbalancer"]["id"].as_str().unwrap())
    }

    /// `DELETE /v2/lbaas/loadbalancers/{id}?cascade=true` (expects 204), then waits until the
    /// NB holds no `Load_Balancer` row named `lb_id` (30 s).
    pub fn delete_lb_cascade(&self, token: &str, lb_id: &str) {
        let (code, body) = self.api(
            "DELETE",
            &format!("/v2/lbaas/loadbalancers/{lb_id}?cascade=true"),
            token,
            None,
        );
        assert_eq!(code, 204, "cascade delete {lb_id}: {body}");
        wait_for(
            &format!("no NB Load_Balancer row {lb_id}"),
            Duration::from_secs(30),
            || {
                let rows = nb_select("Load_Balancer", json!([["name", "==", lb_id]]));
                if rows.is_empty() {
                    Ok(())
                } else {
                    Err(format!("{rows:?}"))
                }
            },
        );
    }
}

impl std::ops::Deref for Keel {
    type Target = Endpoint;

    fn deref(&self) -> &Endpoint {
        &self.endpoint
    }
}

/// The objects [`Keel::create_graph`] made.
pub struct Graph {
    pub lb_id: String,
    pub vip: String,
    pub listener_id: String,
    pub pool_id: String,
    /// Member ids, in the order of the requested addresses.
    pub members: Vec<String>,
    pub hm_id: String,
    /// Removes the NB rows on drop (made right after the LB, so a failing step cleans too).
    pub nb_rows: LbGuard,
}

impl Keel {
    /// Through the API, each step waiting for ACTIVE: a load balancer on `subnet`, a TCP
    /// listener on port 80, its SOURCE_IP_PORT TCP pool, one member per address (port 8080
    /// on `subnet`), a TCP health monitor (delay 5, timeout 3, max_retries 3).
    pub fn create_graph(&self, token: &str, name: &str, subnet: &str, members: &[&str]) -> Graph {
        let lb = self.create_lb(token, name, subnet);
        let lb_id = lb["id"].as_str().unwrap().to_string();
        let nb_rows = LbGuard(lb_id.clone());
        let id = |v: Value| v["id"].as_str().unwrap().to_string();
        let listener_id = id(self.create(
            token,
            &lb_id,
            "/v2/lbaas/listeners",
            json!({"listener": {"loadbalancer_id": lb_id, "protocol": "TCP",
                "protocol_port": 80}}),
        ));
        let pool_id = id(self.create(
            token,
            &lb_id,
            "/v2/lbaas/pools",
            json!({"pool": {"listener_id": listener_id, "protocol": "TCP",
                "lb_algorithm": "SOURCE_IP_PORT"}}),
        ));
        let members = members
            .iter()
            .map(|ip| {
                id(self.create(
                    token,
                    &lb_id,
                    &format!("/v2/lbaas/pools/{pool_id}/members"),
                    json!({"member": {"address": ip, "protocol_port": 8080,
                        "subnet_id": subnet}}),
                ))
            })
            .collect();
        let hm_id = id(self.create(
            token,
            &lb_id,
            "/v2/lbaas/healthmonitors",
            json!({"healthmonitor": {"pool_id": pool_id, "type": "TCP", "delay": 5,
                "timeout": 3, "max_retries": 3}}),
        ));
        Graph {
            vip: lb["vip_address"].as_str().unwrap().to_string(),
            lb_id,
            listener_id,
            pool_id,
            members,
            hm_id,
            nb_rows,
        }
    }
}

impl Drop for Keel {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Runs `openstack <args>` as the `demo` user with Keel as the load-balancer endpoint; its
/// output parsed as JSON (`Null` when empty), or the command and its output as the error.
pub fn os(keel: &Keel, args: &[&str]) -> Result<Value, String> {
    let out = Command::new("openstack")
        .args(args)
        .env("OS_USERNAME", "demo")
        .env("OS_PASSWORD", "demo-pass")
        .env("OS_PROJECT_NAME", "demo")
        .env("OS_LOAD_BALANCER_ENDPOINT_OVERRIDE", keel.url())
        .output()
        .map_err(|e| format!("cannot run openstack: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "openstack {}: {}{}",
            args.join(" "),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    if text.trim().is_empty() {
        return Ok(Value::Null);
    }
    serde_json::from_str(&text).map_err(|e| format!("not JSON ({e}): {text}"))
}

/// [`os`] with `-f json`; panics on failure.
pub fn osj(keel: &Keel, args: &[&str]) -> Value {
    let mut a = args.to_vec();
    a.extend(["-f", "json"]);
    os(keel, &a).unwrap_or_else(|e| panic!("{e}"))
}

/// A project-scoped Keystone token (password auth, domain Default) from `STACK_KEYSTONE_URL`.
pub fn token(user: &str, password: &str, project: &str) -> String {
    let body = json!({"auth": {
        "identity": {"methods": ["password"], "password": {"user": {
            "name": user, "domain": {"name": "Default"}, "password": password}}},
        "scope": {"project": {"name": project, "domain": {"name": "Default"}}}}});
    let out = Command::new("curl")
        .args(["-sS", "-m", CALL_BOUND, "-o", "/dev/null", "-D", "-", "-H"])
        .arg("Content-Type: application/json")
        .arg("-d")
        .arg(body.to_string())
        .arg(format!("{}/auth/tokens", env("STACK_KEYSTONE_URL")))
        .output()
        .unwrap();
    let headers = String::from_utf8_lossy(&out.stdout);
    headers
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("x-subject-token")
                .then(|| v.trim().to_string())
        })
        .unwrap_or_else(|| panic!("no token for {user}: {headers}"))
}

/// The `demo` user's token (project demo), as the tests' end user.
pub fn demo_token() -> String {
    token("demo", "demo-pass", "demo")
}

/// The `admin` user's token (project admin), for cleanup.
pub fn admin_token() -> String {
    token("admin", "admin-pass", "admin")
}

/// Seconds any one call of the harness (curl, ovsdb-client) may take: a peer or a Keel that
/// accepted a request and never answers fails the test naming the call, instead of hanging it
/// until the runner's 600 s kill (which prints nothing about where it hung).
pub const CALL_BOUND: &str = "120";

/// `curl -X <method> <url>` with `X-Auth-Token` and a JSON body, bounded by [`CALL_BOUND`];
/// (status, body as JSON, or `Null` when empty or not JSON).
pub fn http(method: &str, url: &str, token: Option<&str>, body: Option<&Value>) -> (u16, Value) {
    let mut cmd = Command::new("curl");
    cmd.args([
        "-sS",
        "-m",
        CALL_BOUND,
        "-X",
        method,
        "-w",
        "\n%{http_code}",
        "-H",
    ])
    .arg("Content-Type: application/json")
    .arg("-H")
    .arg("Accept: application/json");
    if let Some(t) = token {
        cmd.arg("-H").arg(format!("X-Auth-Token: {t}"));
    }
    // the body on stdin: a list of thousands of CIDRs is longer than an argument may be
    let input = body.map(Value::to_string);
    if input.is_some() {
        cmd.arg("--data-binary").arg("@-");
    }
    let mut child = cmd
        .arg(url)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    if let Some(text) = input {
        std::io::Write::write_all(&mut stdin, text.as_bytes()).unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "curl {method} {url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let (body, code) = text.rsplit_once('\n').unwrap();
    (
        code.trim().parse().unwrap(),
        serde_json::from_str(body).unwrap_or(Value::Null),
    )
}

/// `METHOD <path>` on the stack's Neutron API v2.0 with `token` (see [`http`]).
pub fn neutron(method: &str, path: &str, token: &str, body: Option<&Value>) -> (u16, Value) {
    http(
        method,
        &format!("{}/v2.0{path}", env("STACK_NEUTRON_URL")),
        Some(token),
        body,
    )
}

/// The Neutron objects a user makes before a load balancer (as `ci/stack/smoke-neutron.sh`),
/// through the Neutron API as `demo`: a network `keel-e2e-<tag>`, a subnet 10.0.0.0/24, a
/// router with an interface on it, and one port per requested fixed IP. Deleted on drop.
pub struct NeutronNet {
    pub net: String,
    pub subnet: String,
    pub router: String,
    /// (fixed IP, port id) of the requested ports, in request order.
    pub ports: Vec<(String, String)>,
}

impl NeutronNet {
    /// Creates the objects; panics (after cleaning what was made) on a Neutron error.
    pub fn create(tag: &str, ips: &[&str]) -> Self {
        let t = demo_token();
        let id = |(code, body): (u16, Value), kind: &str| -> String {
            assert!(code == 201 || code == 200, "neutron {kind}: {code} {body}");
            body[kind]["id"].as_str().unwrap().to_string()
        };
        let name = format!("keel-e2e-{tag}");
        let net = id(
            neutron(
                "POST",
                "/networks",
                &t,
                Some(&json!({"network": {"name": name}})),
            ),
            "network",
        );
        let mut me = NeutronNet {
            net,
            subnet: String::new(),
            router: String::new(),
            ports: vec![],
        };
        me.subnet = id(
            neutron(
                "POST",
                "/subnets",
                &t,
                Some(
                    &json!({"subnet": {"name": name, "network_id": me.net, "ip_version": 4,
                    "cidr": "10.0.0.0/24"}}),
                ),
            ),
            "subnet",
        );
        me.router = id(
            neutron(
                "POST",
                "/routers",
                &t,
                Some(&json!({"router": {"name": name}})),
            ),
            "router",
        );
        let (code, body) = neutron(
            "PUT",
            &format!("/routers/{}/add_router_interface", me.router),
            &t,
            Some(&json!({"subnet_id": me.subnet})),
        );
        assert_eq!(code, 200, "add_router_interface: {body}");
        for ip in ips {
            let port = id(
                neutron(
                    "POST",
                    "/ports",
                    &t,
                    Some(
                        &json!({"port": {"name": format!("{name}-{ip}"), "network_id": me.net,
                        "fixed_ips": [{"subnet_id": me.subnet, "ip_address": ip}]}}),
                    ),
                ),
                "port",
            );
            me.ports.push((ip.to_string(), port));
        }
        me
    }

    /// The port id of the requested fixed IP `ip`.
    pub fn port_of(&self, ip: &str) -> &str {
        self.ports
            .iter()
            .find(|(i, _)| i == ip)
            .map(|(_, p)| p.as_str())
            .unwrap()
    }
}

impl Drop for NeutronNet {
    fn drop(&mut self) {
        let t = admin_token();
        if !self.router.is_empty() {
            // every interface, not only this network's first subnet's: a test that adds one
            // (another subnet, IPv6) would otherwise leave the router undeletable (409), one
            // router per run until the project's router quota refuses the next test's
            let (_, ifaces) = neutron(
                "GET",
                &format!(
                    "/ports?device_id={}&device_owner=network:router_interface",
                    self.router
                ),
                &t,
                None,
            );
            for p in ifaces["ports"].as_array().cloned().unwrap_or_default() {
                if let Some(id) = p["id"].as_str() {
                    neutron(
                        "PUT",
                        &format!("/routers/{}/remove_router_interface", self.router),
                        &t,
                        Some(&json!({"port_id": id})),
                    );
                }
            }
            let (code, body) = neutron("DELETE", &format!("/routers/{}", self.router), &t, None);
            if code != 204 && code != 404 {
                eprintln!(
                    "NeutronNet: router {} not deleted: {code} {body}",
                    self.router
                );
            }
        }
        let (_, ports) = neutron("GET", &format!("/ports?network_id={}", self.net), &t, None);
        for p in ports["ports"].as_array().cloned().unwrap_or_default() {
            if let Some(id) = p["id"].as_str() {
                neutron("DELETE", &format!("/ports/{id}"), &t, None);
            }
        }
        neutron("DELETE", &format!("/networks/{}", self.net), &t, None);
    }
}

/// Removes the NB `Load_Balancer` rows named after a load balancer id, even when the test
/// fails (a cascade delete that ran leaves nothing to remove).
pub struct LbGuard(pub String);

impl Drop for LbGuard {
    fn drop(&mut self) {
        let nb = format!("--db={}", env("STACK_OVN_NB"));
        // one row per protocol may share the name, and `lb-del NAME` refuses a name that
        // several rows carry ("Multiple load balancers named"): delete each row by UUID
        let uuids = Command::new("ovn-nbctl")
            .args([&nb, "--bare", "--columns=_uuid", "find", "Load_Balancer"])
            .arg(format!("name={}", self.0))
            .stderr(Stdio::null())
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).to_string())
            .unwrap_or_default();
        for uuid in uuids.split_whitespace() {
            let _ = Command::new("ovn-nbctl")
                .args([&nb, "--if-exists", "lb-del", uuid])
                .stderr(Stdio::null())
                .status();
        }
    }
}

/// Holds the provider agent's NB lock ([`AGENT_LOCK`]) with `ovsdb-client lock` while alive:
/// the agent of any `keel serve` on the shared NB waits instead of reacting (e.g. to the
/// Service_Monitor changes northd derives from rows a test damages). Released on drop.
pub struct AgentLock(Child);

impl AgentLock {
    /// Blocks until the lock is granted.
    pub fn take() -> Self {
        let (mut child, lines) = request_agent_lock();
        for line in lines {
            // `{"locked":true}` at once, or `{"locked":false}` then `locked` when granted
            if line.contains("true") || line.trim() == "locked" {
                return AgentLock(child);
            }
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!("ovsdb-client lock ended without the lock");
    }

    /// Asks for the lock once and withdraws: `true` when some other session holds it now
    /// (the server answered `{"locked":false}`), `false` when it was free.
    pub fn is_held_elsewhere() -> bool {
        lock_held_elsewhere(&env("STACK_OVN_NB"), AGENT_LOCK)
    }
}

/// Asks ovsdb-server at `remote` for the lock `name` once (`ovsdb-client lock`) and
/// withdraws: `true` when another session holds it now (`{"locked":false}`).
pub fn lock_held_elsewhere(remote: &str, name: &str) -> bool {
    let (mut child, mut lines) = request_lock(remote, name);
    let first = lines.next().unwrap_or_default();
    let _ = child.kill();
    let _ = child.wait();
    assert!(first.contains("locked"), "ovsdb-client lock: {first:?}");
    first.contains("false")
}

/// `ovsdb-client lock <NB> keel_ovn_provider_agent` and its output lines.
fn request_agent_lock() -> (Child, impl Iterator<Item = String>) {
    request_lock(&env("STACK_OVN_NB"), AGENT_LOCK)
}

/// `ovsdb-client lock <remote> <name>` and its output lines.
fn request_lock(remote: &str, name: &str) -> (Child, impl Iterator<Item = String> + use<>) {
    use std::io::BufRead;
    let mut child = Command::new("ovsdb-client")
        .args(["lock", remote, name])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let lines = std::io::BufReader::new(out).lines().map_while(Result::ok);
    (child, lines)
}

impl Drop for AgentLock {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Rows of `table` in database `db` at `remote` matching `cond`, read with `ovsdb-client
/// transact` (an independent client, not Keel's).
pub fn select(db: &str, remote: &str, table: &str, cond: Value) -> Vec<Value> {
    let out = transact(
        remote,
        &json!([db, {"op": "select", "table": table, "where": cond}]),
    );
    out[0]["rows"].as_array().cloned().unwrap_or_default()
}

/// [`select`] on the stack's NB.
pub fn nb_select(table: &str, cond: Value) -> Vec<Value> {
    select("OVN_Northbound", &env("STACK_OVN_NB"), table, cond)
}

/// [`select`] on the stack's SB.
pub fn sb_select(table: &str, cond: Value) -> Vec<Value> {
    select("OVN_Southbound", &env("STACK_OVN_SB"), table, cond)
}

/// `ovsdb-client transact <remote> <ops>` (one transaction); the JSON result, asserting that
/// no operation failed.
pub fn transact(remote: &str, ops: &Value) -> Value {
    let out = Command::new("ovsdb-client")
        .args([
            "--timeout",
            CALL_BOUND,
            "transact",
            remote,
            &ops.to_string(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ovsdb-client transact {ops}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v.as_array()
            .is_some_and(|r| r.iter().all(|o| o.get("error").is_none())),
        "ovsdb-client transact {ops}: {v}"
    );
    v
}

/// `ovn-nbctl --db=$STACK_OVN_NB <args>`; its output, trimmed.
pub fn nbctl(args: &[&str]) -> String {
    let out = Command::new("ovn-nbctl")
        .arg(format!("--db={}", env("STACK_OVN_NB")))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ovn-nbctl {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// An OVSDB `["map", [[k, v], ...]]` as (k, v) string pairs, sorted.
pub fn map(v: &Value) -> Vec<(String, String)> {
    let mut m: Vec<(String, String)> = v[1]
        .as_array()
        .map(|pairs| {
            pairs
                .iter()
                .map(|p| {
                    (
                        p[0].as_str().unwrap_or_default().to_string(),
                        p[1].as_str().unwrap_or_default().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    m.sort();
    m
}

/// The value of key `k` in a [`map`].
pub fn get<'a>(m: &'a [(String, String)], k: &str) -> Option<&'a str> {
    m.iter().find(|(kk, _)| kk == k).map(|(_, v)| v.as_str())
}

/// A set column's uuids (`["uuid", u]` or `["set", [["uuid", u], ...]]`).
pub fn uuids(v: &Value) -> Vec<String> {
    match v[0].as_str() {
        Some("uuid") => vec![v[1].as_str().unwrap_or_default().to_string()],
        Some("set") => v[1]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u[1].as_str().unwrap().to_string())
            .collect(),
        _ => vec![],
    }
}
