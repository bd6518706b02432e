//! `keel ovn-db-sync` end to end (issue 5): a load balancer graph made through a real
//! `keel serve` (Keystone, Neutron, OVN NB from `ci/stack/`), then its NB rows damaged behind
//! the driver's back with `ovn-nbctl`; the binary's dry run reports and changes nothing, a
//! run restores the exact rows and re-sends statuses to Octavia, a second run has nothing
//! to do. Runs are filtered with `--lb-id`: the NB is shared with other tests, whose rows an
//! unfiltered run would purge.
//!
//! Needs the environment of `ci/stack/env.sh` (run through `ci/test.sh`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

fn env(name: &str) -> String {
    std::env::var(name)
        .unwrap_or_else(|_| panic!("{name} is not set: run the tests through ci/test.sh"))
}

/// A `keel serve` child process, killed on drop.
struct Keel {
    child: Child,
    port: u16,
    conf: PathBuf,
    _dir: tempfile::TempDir,
}

impl Drop for Keel {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_keel"))
}

fn start_keel() -> Keel {
    let dir = tempfile::tempdir().unwrap();
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let conf = dir.path().join("keel.conf");
    let db_url = format!(
        "sqlite://{}?mode=rwc",
        dir.path().join("keel.sqlite").display()
    );
    let auth = format!(
        "auth_url = {}\nusername = octavia\npassword = octavia-pass\nproject_name = service\n\
         user_domain_name = Default\nproject_domain_name = Default\nregion_name = RegionOne\n",
        env("STACK_KEYSTONE_URL")
    );
    std::fs::write(
        &conf,
        format!(
            "[api_settings]\nbind_host = 127.0.0.1\nbind_port = {port}\nauth_strategy = keystone\n\
             enabled_provider_drivers = ovn:OVN provider driver\ndefault_provider_driver = ovn\n\
             [database]\nconnection = {db_url}\n\
             [keystone_authtoken]\n{auth}[service_auth]\n{auth}\
             [neutron]\nendpoint = {}\n[ovn]\novn_nb_connection = {}\novn_sb_connection = {}\n",
            env("STACK_NEUTRON_URL"),
            env("STACK_OVN_NB"),
            env("STACK_OVN_SB"),
        ),
    )
    .unwrap();
    let st = Command::new(bin())
        .arg("--config-file")
        .arg(&conf)
        .args(["db", "upgrade"])
        .status()
        .unwrap();
    assert!(st.success(), "keel db upgrade failed");
    let log = std::fs::File::create(dir.path().join("keel.log")).unwrap();
    let child = Command::new(bin())
        .arg("--config-file")
        .arg(&conf)
        .arg("serve")
        .stdout(Stdio::from(log.try_clone().unwrap()))
        .stderr(Stdio::from(log))
        .spawn()
        .unwrap();
    let keel = Keel {
        child,
        port,
        conf,
        _dir: dir,
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "keel did not start listening");
        std::thread::sleep(Duration::from_millis(50));
    }
    keel
}

/// `openstack <args> -f json` as `demo` against `keel`.
fn osj(keel: &Keel, args: &[&str]) -> Value {
    let mut a = args.to_vec();
    a.extend(["-f", "json"]);
    os(keel, &a)
}

/// `openstack <args>` as `demo` against `keel`; its output parsed as JSON when there is any.
fn os(keel: &Keel, args: &[&str]) -> Value {
    let out = Command::new("openstack")
        .args(args)
        .env("OS_USERNAME", "demo")
        .env("OS_PASSWORD", "demo-pass")
        .env("OS_PROJECT_NAME", "demo")
        .env(
            "OS_LOAD_BALANCER_ENDPOINT_OVERRIDE",
            format!("http://127.0.0.1:{}", keel.port),
        )
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "openstack {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    if text.trim().is_empty() {
        return Value::Null;
    }
    serde_json::from_str(&text).unwrap()
}

fn admin(args: &[&str]) {
    let _ = Command::new("openstack")
        .args(args)
        .env("OS_USERNAME", "admin")
        .env("OS_PASSWORD", "admin-pass")
        .env("OS_PROJECT_NAME", "admin")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// Deletes the test's network, its ports and the router, even when the test fails.
struct NeutronGuard {
    net: String,
    router: Option<(String, String)>,
}

impl Drop for NeutronGuard {
    fn drop(&mut self) {
        if let Some((router, subnet)) = &self.router {
            admin(&["router", "remove", "subnet", router, subnet]);
            admin(&["router", "delete", router]);
        }
        let out = Command::new("openstack")
            .args([
                "port",
                "list",
                "--network",
                &self.net,
                "-f",
                "value",
                "-c",
                "ID",
            ])
            .env("OS_USERNAME", "admin")
            .env("OS_PASSWORD", "admin-pass")
            .env("OS_PROJECT_NAME", "admin")
            .output();
        if let Ok(out) = out {
            let ids: Vec<String> = String::from_utf8_lossy(&out.stdout)
                .split_whitespace()
                .map(String::from)
                .collect();
            if !ids.is_empty() {
                let mut args = vec!["port", "delete"];
                args.extend(ids.iter().map(String::as_str));
                admin(&args);
            }
        }
        admin(&["network", "delete", &self.net]);
    }
}

/// Removes the load balancer's NB rows, even when the test fails (its ports go with the
/// network, the Octavia DB with the temp dir).
struct LbGuard(String);

impl Drop for LbGuard {
    fn drop(&mut self) {
        let _ = Command::new("ovn-nbctl")
            .args([
                &format!("--db={}", env("STACK_OVN_NB")),
                "--if-exists",
                "lb-del",
                &self.0,
            ])
            .status();
    }
}

/// Holds the provider agent's NB lock (`keel_ovn_provider_agent`) while the test damages
/// rows: an agent of any `keel serve` on the shared NB would otherwise react to the
/// Service_Monitor changes northd derives from the damage, and race the sync.
struct AgentLock(Child);

impl AgentLock {
    fn take() -> Self {
        use std::io::BufRead;
        let mut child = Command::new("ovsdb-client")
            .args(["lock", &env("STACK_OVN_NB"), "keel_ovn_provider_agent"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let out = child.stdout.take().unwrap();
        for line in std::io::BufReader::new(out).lines() {
            let line = line.unwrap();
            // `{"locked":true}` at once, or `{"locked":false}` then `locked` when granted
            if line.contains("true") || line.trim() == "locked" {
                return AgentLock(child);
            }
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!("ovsdb-client lock ended without the lock");
    }
}

impl Drop for AgentLock {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `SELECT <column> FROM <table> WHERE id = <id>` on the test's SQLite Octavia DB.
fn sql_status(db: &Path, table: &str, id: &str) -> String {
    let out = Command::new("sqlite3")
        .arg(db)
        .arg(format!(
            "SELECT operating_status FROM {table} WHERE id = '{id}'"
        ))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn nbctl(args: &[&str]) -> String {
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

/// Rows of an NB table matching `cond`, read with `ovsdb-client` (an independent client).
fn select(table: &str, cond: Value) -> Vec<Value> {
    let q = json!(["OVN_Northbound", {"op": "select", "table": table, "where": cond}]);
    let out = Command::new("ovsdb-client")
        .args(["transact", &env("STACK_OVN_NB"), &q.to_string()])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v[0]["rows"].as_array().cloned().unwrap_or_default()
}

/// An OVSDB map as sorted (k, v) pairs.
fn map(v: &Value) -> Vec<(String, String)> {
    let mut m: Vec<(String, String)> = v[1]
        .as_array()
        .map(|pairs| {
            pairs
                .iter()
                .map(|p| {
                    (
                        p[0].as_str().unwrap().to_string(),
                        p[1].as_str().unwrap().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    m.sort();
    m
}

fn get(m: &[(String, String)], k: &str) -> Option<String> {
    m.iter().find(|(kk, _)| kk == k).map(|(_, v)| v.clone())
}

fn uuids(v: &Value) -> Vec<String> {
    match v[0].as_str() {
        Some("uuid") => vec![v[1].as_str().unwrap().to_string()],
        Some("set") => v[1]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u[1].as_str().unwrap().to_string())
            .collect(),
        _ => vec![],
    }
}

/// What the test compares: the LB's row and what references it.
#[derive(Debug, PartialEq)]
struct NbState {
    uuid: String,
    external_ids: Vec<(String, String)>,
    vips: Vec<(String, String)>,
    ip_port_mappings: Vec<(String, String)>,
    /// (vip, options) of its health checks.
    health_checks: Vec<(String, Vec<(String, String)>)>,
    on_switch: bool,
    on_router: bool,
}

fn nb_state(lb_id: &str, net: &str, router: &str) -> Option<NbState> {
    let rows = select("Load_Balancer", json!([["name", "==", lb_id]]));
    assert!(rows.len() <= 1, "{rows:?}");
    let row = rows.first()?;
    let uuid = row["_uuid"][1].as_str().unwrap().to_string();
    let mut health_checks: Vec<(String, Vec<(String, String)>)> = uuids(&row["health_check"])
        .iter()
        .map(|u| {
            let hc = select(
                "Load_Balancer_Health_Check",
                json!([["_uuid", "==", ["uuid", u]]]),
            );
            (
                hc[0]["vip"].as_str().unwrap().to_string(),
                map(&hc[0]["options"]),
            )
        })
        .collect();
    health_checks.sort();
    let ls = select(
        "Logical_Switch",
        json!([["name", "==", format!("neutron-{net}")]]),
    );
    let lr = select(
        "Logical_Router",
        json!([["name", "==", format!("neutron-{router}")]]),
    );
    Some(NbState {
        external_ids: map(&row["external_ids"]),
        vips: map(&row["vips"]),
        ip_port_mappings: map(&row["ip_port_mappings"]),
        health_checks,
        on_switch: uuids(&ls[0]["load_balancer"]).contains(&uuid),
        on_router: uuids(&lr[0]["load_balancer"]).contains(&uuid),
        uuid,
    })
}

fn sync(conf: &Path, lb_id: &str, dry_run: bool) -> Output {
    let mut cmd = Command::new(bin());
    cmd.arg("--config-file")
        .arg(conf)
        .args(["ovn-db-sync", "--lb-id", lb_id]);
    if dry_run {
        cmd.arg("--dry-run");
    }
    cmd.output().unwrap()
}

fn lines(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(String::from)
        .collect()
}

#[test]
fn ovn_db_sync_restores_a_damaged_load_balancer() {
    let keel = start_keel();
    let tag = uuid::Uuid::new_v4().simple().to_string()[..8].to_string();
    let net = osj(&keel, &["network", "create", &format!("keel-sync-{tag}")]);
    let net_id = net["id"].as_str().unwrap().to_string();
    let mut guard = NeutronGuard {
        net: net_id.clone(),
        router: None,
    };
    let subnet = osj(
        &keel,
        &[
            "subnet",
            "create",
            "--network",
            &net_id,
            "--subnet-range",
            "10.0.0.0/24",
            &format!("keel-sync-{tag}"),
        ],
    );
    let subnet_id = subnet["id"].as_str().unwrap().to_string();
    let router = osj(&keel, &["router", "create", &format!("keel-sync-{tag}")]);
    let router_id = router["id"].as_str().unwrap().to_string();
    guard.router = Some((router_id.clone(), subnet_id.clone()));
    os(&keel, &["router", "add", "subnet", &router_id, &subnet_id]);
    osj(
        &keel,
        &[
            "port",
            "create",
            "--network",
            &net_id,
            "--fixed-ip",
            &format!("subnet={subnet_id},ip-address=10.0.0.10"),
            &format!("keel-sync-{tag}-m1"),
        ],
    );

    let lb = osj(
        &keel,
        &[
            "loadbalancer",
            "create",
            "--name",
            &format!("sync-{tag}"),
            "--vip-subnet-id",
            &subnet_id,
            "--provider",
            "ovn",
            "--wait",
        ],
    );
    let lb_id = lb["id"].as_str().unwrap().to_string();
    let _lb_guard = LbGuard(lb_id.clone());
    let listener = osj(
        &keel,
        &[
            "loadbalancer",
            "listener",
            "create",
            "--protocol",
            "TCP",
            "--protocol-port",
            "80",
            &lb_id,
            "--wait",
        ],
    );
    let listener_id = listener["id"].as_str().unwrap().to_string();
    let pool = osj(
        &keel,
        &[
            "loadbalancer",
            "pool",
            "create",
            "--lb-algorithm",
            "SOURCE_IP_PORT",
            "--protocol",
            "TCP",
            "--listener",
            &listener_id,
            "--wait",
        ],
    );
    let pool_id = pool["id"].as_str().unwrap().to_string();
    let member = osj(
        &keel,
        &[
            "loadbalancer",
            "member",
            "create",
            "--address",
            "10.0.0.10",
            "--protocol-port",
            "8080",
            "--subnet-id",
            &subnet_id,
            &pool_id,
            "--wait",
        ],
    );
    let member_id = member["id"].as_str().unwrap().to_string();
    osj(
        &keel,
        &[
            "loadbalancer",
            "healthmonitor",
            "create",
            "--delay",
            "5",
            "--max-retries",
            "2",
            "--timeout",
            "3",
            "--type",
            "TCP",
            &pool_id,
            "--wait",
        ],
    );

    let expected = nb_state(&lb_id, &net_id, &router_id).expect("the driver made no row");
    assert!(expected.on_switch && expected.on_router, "{expected:?}");
    assert_eq!(expected.health_checks.len(), 1, "{expected:?}");
    let pool_key = format!("pool_{pool_id}");
    let members = get(&expected.external_ids, &pool_key).unwrap();
    assert_eq!(
        members,
        format!("member_{member_id}_10.0.0.10:8080_{subnet_id}")
    );

    let conf = keel.conf.clone();
    // nothing to do on a healthy load balancer
    let clean = sync(&conf, &lb_id, false);
    assert!(
        clean.status.success(),
        "{}",
        String::from_utf8_lossy(&clean.stderr)
    );
    assert!(lines(&clean).is_empty(), "{:?}", lines(&clean));

    // from here on no agent acts on the NB (ours stops, others wait for the lock)
    let db = keel._dir.path().join("keel.sqlite");
    let dir = keel_stop(keel);
    let _lock = AgentLock::take();

    // damage 1: off its switch, vips altered, a stray member, the member status ERROR
    let u = expected.uuid.clone();
    nbctl(&["ls-lb-del", &format!("neutron-{net_id}"), &u]);
    nbctl(&[
        "set",
        "Load_Balancer",
        &u,
        r#"vips={"10.9.9.9:1"="10.8.8.8:2"}"#,
    ]);
    nbctl(&[
        "set",
        "Load_Balancer",
        &u,
        &format!(r#"external_ids:{pool_key}="{members},member_stray_10.0.0.99:80_{subnet_id}""#),
        &format!(r#"external_ids:neutron\:member_status="{{\"{member_id}\": \"ERROR\"}}""#),
    ]);
    let damaged = nb_state(&lb_id, &net_id, &router_id).unwrap();
    assert!(!damaged.on_switch);

    let dry = sync(&conf, &lb_id, true);
    assert!(
        dry.status.success(),
        "{}",
        String::from_utf8_lossy(&dry.stderr)
    );
    let dry_lines = lines(&dry);
    for want in [
        "member stray: not in Octavia".to_string(),
        format!("not referenced by switch neutron-{net_id}"),
        "vips drifted".to_string(),
    ] {
        assert!(
            dry_lines.iter().any(|l| l.contains(&want)),
            "{want}: {dry_lines:?}"
        );
    }
    assert_eq!(
        nb_state(&lb_id, &net_id, &router_id).unwrap(),
        damaged,
        "a dry run changed the NB"
    );

    let run = sync(&conf, &lb_id, false);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(
        lines(&run),
        dry_lines,
        "the run repairs what the dry run reported"
    );
    let fixed = nb_state(&lb_id, &net_id, &router_id).unwrap();
    let without_status = |m: &[(String, String)]| -> Vec<(String, String)> {
        m.iter()
            .filter(|(k, _)| k != "neutron:member_status")
            .cloned()
            .collect()
    };
    assert_eq!(
        without_status(&fixed.external_ids),
        without_status(&expected.external_ids)
    );
    assert_eq!(fixed.vips, expected.vips);
    assert_eq!(fixed.ip_port_mappings, expected.ip_port_mappings);
    assert_eq!(fixed.health_checks, expected.health_checks);
    assert!(fixed.on_switch && fixed.on_router);
    // statuses re-sent from the NB: the member ERROR, its pool ERROR (all members down)
    assert_eq!(sql_status(&db, "member", &member_id), "ERROR");
    assert_eq!(sql_status(&db, "pool", &pool_id), "ERROR");
    assert_eq!(sql_status(&db, "listener", &listener_id), "ERROR");

    // damage 2: the Load_Balancer row is gone
    nbctl(&["lb-del", &u]);
    assert!(nb_state(&lb_id, &net_id, &router_id).is_none());
    let dry = sync(&conf, &lb_id, true);
    assert!(dry.status.success());
    assert!(
        lines(&dry)
            .iter()
            .any(|l| l.contains("no Load_Balancer row, created")),
        "{:?}",
        lines(&dry)
    );
    assert!(
        nb_state(&lb_id, &net_id, &router_id).is_none(),
        "a dry run created the row"
    );
    let run = sync(&conf, &lb_id, false);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let recreated = nb_state(&lb_id, &net_id, &router_id).expect("row not recreated");
    assert_eq!(recreated.external_ids, expected.external_ids);
    assert_eq!(recreated.vips, expected.vips);
    assert_eq!(recreated.ip_port_mappings, expected.ip_port_mappings);
    assert_eq!(recreated.health_checks, expected.health_checks);
    assert!(recreated.on_switch && recreated.on_router, "{recreated:?}");
    assert_eq!(sql_status(&db, "member", &member_id), "ONLINE");
    assert_eq!(sql_status(&db, "load_balancer", &lb_id), "ONLINE");

    // idempotent: nothing to do, exit 0
    let again = sync(&conf, &lb_id, false);
    assert!(again.status.success());
    assert!(lines(&again).is_empty(), "{:?}", lines(&again));
    assert!(String::from_utf8_lossy(&again.stderr).contains("nothing to do"));
    drop(dir);
}

/// Stop `keel serve` (and its agent), keeping its directory (config, SQLite DB).
fn keel_stop(mut keel: Keel) -> tempfile::TempDir {
    let _ = keel.child.kill();
    let _ = keel.child.wait();
    let dir = std::mem::replace(&mut keel._dir, tempfile::tempdir().unwrap());
    drop(keel);
    dir
}
