//! The walking-skeleton scenario (issue 2, seed 004 §1–4) end to end: the real `openstack`
//! CLI (python-octaviaclient) against a real `keel serve`, with Keystone, Neutron, OVN NB/SB +
//! ovn-northd from `ci/stack/`. Checks the API's answers, the NB rows (read with
//! `ovsdb-client`, not our own client) and the SB logical flows northd made from them.
//!
//! Needs the environment of `ci/stack/env.sh` (run through `ci/test.sh`).

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
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
    _dir: tempfile::TempDir,
    _mariadb: Option<MariaDb>,
}

impl Drop for Keel {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Where the test's Octavia DB lives.
enum Backend {
    /// The embedded default: a fresh SQLite file.
    Sqlite,
    /// Production: a fresh `keel_test_<tag>` database on the stack's MariaDB, dropped at the end.
    MariaDb,
}

/// A fresh MariaDB database for one test, dropped on drop.
struct MariaDb {
    name: String,
}

impl MariaDb {
    fn url(&self) -> String {
        let base = env("STACK_KEEL_DB_URL");
        let server = base.rsplit_once('/').map(|(s, _)| s.to_string()).unwrap();
        format!("{server}/{}", self.name)
    }

    fn sql(statement: &str) {
        let st = Command::new("mysql")
            .args(["-h127.0.0.1", "-ukeel", "-pkeel-db-pass", "-e", statement])
            .status()
            .unwrap();
        assert!(st.success(), "mysql: {statement}");
    }

    fn create() -> Self {
        let name = format!("keel_test_e2e_{}", uuid::Uuid::new_v4().simple());
        Self::sql(&format!("CREATE DATABASE {name}"));
        MariaDb { name }
    }
}

impl Drop for MariaDb {
    fn drop(&mut self) {
        Self::sql(&format!("DROP DATABASE IF EXISTS {}", self.name));
    }
}

fn start_keel(backend: Backend) -> Keel {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let conf = dir.path().join("keel.conf");
    let (db_url, mariadb) = match backend {
        Backend::Sqlite => (
            format!(
                "sqlite://{}?mode=rwc",
                dir.path().join("keel.sqlite").display()
            ),
            None,
        ),
        Backend::MariaDb => {
            let m = MariaDb::create();
            (m.url(), Some(m))
        }
    };
    let keystone = env("STACK_KEYSTONE_URL");
    let auth = format!(
        "auth_url = {keystone}\nusername = octavia\npassword = octavia-pass\nproject_name = service\n\
         user_domain_name = Default\nproject_domain_name = Default\nregion_name = RegionOne\n"
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
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_keel"));
    let st = Command::new(&bin)
        .args(["--config-file"])
        .arg(&conf)
        .args(["db", "upgrade"])
        .status()
        .unwrap();
    assert!(st.success(), "keel db upgrade failed");
    let log = std::fs::File::create(dir.path().join("keel.log")).unwrap();
    let child = Command::new(&bin)
        .args(["--config-file"])
        .arg(&conf)
        .arg("serve")
        .stdout(Stdio::from(log.try_clone().unwrap()))
        .stderr(Stdio::from(log))
        .spawn()
        .unwrap();
    let keel = Keel {
        child,
        port,
        _dir: dir,
        _mariadb: mariadb,
    };
    // Readiness: the versions document answers.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "keel did not start listening on {port}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    keel
}

/// Runs `openstack <args> -f json` as the `demo` user against `keel`; returns the parsed output.
fn os(keel: &Keel, args: &[&str]) -> Result<Value, String> {
    let mut cmd = Command::new("openstack");
    cmd.args(args)
        .env("OS_USERNAME", "demo")
        .env("OS_PASSWORD", "demo-pass")
        .env("OS_PROJECT_NAME", "demo")
        .env(
            "OS_LOAD_BALANCER_ENDPOINT_OVERRIDE",
            format!("http://127.0.0.1:{}", keel.port),
        );
    let out = cmd
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

fn osj(keel: &Keel, args: &[&str]) -> Value {
    let mut a = args.to_vec();
    a.extend(["-f", "json"]);
    os(keel, &a).unwrap_or_else(|e| panic!("{e}"))
}

/// Selects rows of an OVSDB table with `ovsdb-client` (an independent client).
fn select(db: &str, remote: &str, table: &str, cond: Value) -> Vec<Value> {
    let q = json!([db, {"op": "select", "table": table, "where": cond}]);
    let out = Command::new("ovsdb-client")
        .args(["transact", remote, &q.to_string()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ovsdb-client: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v[0]["rows"].as_array().cloned().unwrap_or_default()
}

/// An OVSDB `["map", [[k, v], ...]]` as (k, v) string pairs.
fn map(v: &Value) -> Vec<(String, String)> {
    v[1].as_array()
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
        .unwrap_or_default()
}

fn get<'a>(m: &'a [(String, String)], k: &str) -> Option<&'a str> {
    m.iter().find(|(kk, _)| kk == k).map(|(_, v)| v.as_str())
}

/// A set column's uuids (`["uuid", u]` or `["set", [["uuid", u], ...]]`).
fn uuids(v: &Value) -> Vec<String> {
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

#[test]
fn cli_walking_skeleton_sqlite() {
    walking_skeleton(Backend::Sqlite);
}

#[test]
fn cli_walking_skeleton_mariadb() {
    walking_skeleton(Backend::MariaDb);
}

fn walking_skeleton(backend: Backend) {
    let nb = env("STACK_OVN_NB");
    let sb = env("STACK_OVN_SB");
    let keel = start_keel(backend);
    let tag = uuid::Uuid::new_v4().simple().to_string()[..8].to_string();

    // Neutron objects a user makes first (as in ci/stack/smoke-neutron.sh).
    let net = osj(&keel, &["network", "create", &format!("keel-e2e-{tag}")]);
    let net_id = net["id"].as_str().unwrap().to_string();
    let cleanup_net = scopeguard(net_id.clone());
    let subnet = osj(
        &keel,
        &[
            "subnet",
            "create",
            "--network",
            &net_id,
            "--subnet-range",
            "10.0.0.0/24",
            &format!("keel-e2e-{tag}"),
        ],
    );
    let subnet_id = subnet["id"].as_str().unwrap().to_string();
    let router = osj(&keel, &["router", "create", &format!("keel-e2e-{tag}")]);
    let router_id = router["id"].as_str().unwrap().to_string();
    let _cleanup_router = RouterGuard {
        router: router_id.clone(),
        subnet: subnet_id.clone(),
    };
    os(&keel, &["router", "add", "subnet", &router_id, &subnet_id]).unwrap();
    for ip in ["10.0.0.10", "10.0.0.11"] {
        osj(
            &keel,
            &[
                "port",
                "create",
                "--network",
                &net_id,
                "--fixed-ip",
                &format!("subnet={subnet_id},ip-address={ip}"),
                &format!("keel-e2e-{tag}-{ip}"),
            ],
        );
    }

    // 1. Load balancer.
    let lb = osj(
        &keel,
        &[
            "loadbalancer",
            "create",
            "--name",
            &format!("lb1-{tag}"),
            "--vip-subnet-id",
            &subnet_id,
            "--provider",
            "ovn",
            "--wait",
        ],
    );
    let lb_id = lb["id"].as_str().unwrap().to_string();
    let lb = osj(&keel, &["loadbalancer", "show", &lb_id]);
    assert_eq!(lb["provisioning_status"], "ACTIVE", "{lb}");
    assert_eq!(lb["operating_status"], "ONLINE", "{lb}");
    let vip = lb["vip_address"].as_str().unwrap().to_string();
    let vip_port = osj(&keel, &["port", "show", &format!("ovn-lb-vip-{lb_id}")]);
    assert_eq!(vip_port["device_owner"], "ovn-lb:vip");
    assert_eq!(vip_port["device_id"], format!("lb-{lb_id}"));
    let rows = select(
        "OVN_Northbound",
        &nb,
        "Load_Balancer",
        json!([["name", "==", lb_id]]),
    );
    assert_eq!(rows.len(), 1, "{rows:?}");
    let ext = map(&rows[0]["external_ids"]);
    assert_eq!(get(&ext, "neutron:vip"), Some(vip.as_str()));
    assert_eq!(get(&ext, "neutron:vip_port_id"), vip_port["id"].as_str());
    assert_eq!(get(&ext, "enabled"), Some("True"));
    let ls_refs: Value = serde_json::from_str(get(&ext, "ls_refs").unwrap()).unwrap();
    assert_eq!(ls_refs, json!({format!("neutron-{net_id}"): 1}));
    assert_eq!(
        get(&ext, "lr_ref"),
        Some(format!("neutron-{router_id}").as_str())
    );
    let lb_uuid = rows[0]["_uuid"][1].as_str().unwrap().to_string();
    let ls = select(
        "OVN_Northbound",
        &nb,
        "Logical_Switch",
        json!([["name", "==", format!("neutron-{net_id}")]]),
    );
    assert!(
        uuids(&ls[0]["load_balancer"]).contains(&lb_uuid),
        "LB not on its logical switch"
    );
    let lr = select(
        "OVN_Northbound",
        &nb,
        "Logical_Router",
        json!([["name", "==", format!("neutron-{router_id}")]]),
    );
    assert!(
        uuids(&lr[0]["load_balancer"]).contains(&lb_uuid),
        "LB not on its logical router"
    );

    // 2–5. Listener, pool, members, health monitor.
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
    let mut members = vec![];
    for ip in ["10.0.0.10", "10.0.0.11"] {
        let m = osj(
            &keel,
            &[
                "loadbalancer",
                "member",
                "create",
                "--address",
                ip,
                "--protocol-port",
                "8080",
                "--subnet-id",
                &subnet_id,
                &pool_id,
                "--wait",
            ],
        );
        members.push((m["id"].as_str().unwrap().to_string(), ip));
    }
    let hm = osj(
        &keel,
        &[
            "loadbalancer",
            "healthmonitor",
            "create",
            "--type",
            "TCP",
            "--delay",
            "5",
            "--timeout",
            "3",
            "--max-retries",
            "3",
            &pool_id,
            "--wait",
        ],
    );
    let hm_id = hm["id"].as_str().unwrap().to_string();

    let rows = select(
        "OVN_Northbound",
        &nb,
        "Load_Balancer",
        json!([["name", "==", lb_id]]),
    );
    assert_eq!(rows.len(), 1, "one NB row for the TCP protocol: {rows:?}");
    let row = &rows[0];
    assert_eq!(row["protocol"], "tcp");
    assert_eq!(
        map(&row["vips"]),
        vec![(
            format!("{vip}:80"),
            "10.0.0.10:8080,10.0.0.11:8080".to_string()
        )]
    );
    let ext = map(&row["external_ids"]);
    assert_eq!(
        get(&ext, &format!("listener_{listener_id}")),
        Some(format!("80:pool_{pool_id}").as_str())
    );
    let expected_pool = members
        .iter()
        .map(|(id, ip)| format!("member_{id}_{ip}:8080_{subnet_id}"))
        .collect::<Vec<_>>()
        .join(",");
    assert_eq!(
        get(&ext, &format!("pool_{pool_id}")),
        Some(expected_pool.as_str())
    );
    let hms: Value = serde_json::from_str(get(&ext, "octavia:healthmonitors").unwrap()).unwrap();
    assert_eq!(hms, json!([hm_id]));
    let fields = row["selection_fields"][1]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect::<Vec<_>>();
    let mut fields_sorted = fields.clone();
    fields_sorted.sort();
    assert_eq!(fields_sorted, ["ip_dst", "ip_src", "tp_dst", "tp_src"]);
    let checks = uuids(&row["health_check"]);
    assert_eq!(checks.len(), 1, "one Load_Balancer_Health_Check per VIP");
    let hc = select(
        "OVN_Northbound",
        &nb,
        "Load_Balancer_Health_Check",
        json!([["_uuid", "==", ["uuid", checks[0]]]]),
    );
    assert_eq!(hc[0]["vip"], format!("{vip}:80"));
    let hm_port = osj(&keel, &["port", "show", &format!("ovn-lb-hm-{subnet_id}")]);
    let hm_ip = hm_port["fixed_ips"][0]["ip_address"]
        .as_str()
        .unwrap()
        .to_string();
    let mappings = map(&row["ip_port_mappings"]);
    assert_eq!(mappings.len(), 2, "{mappings:?}");
    for (_, ip) in &members {
        let v = get(&mappings, ip).unwrap_or_else(|| panic!("no ip_port_mappings for {ip}"));
        assert!(v.ends_with(&format!(":{hm_ip}")), "{v}");
    }

    // ovn-northd turned the row into SB logical flows for the VIP.
    let flows = select("OVN_Southbound", &sb, "Logical_Flow", json!([]));
    assert!(
        flows
            .iter()
            .any(|f| f["match"].as_str().unwrap_or("").contains(&vip)
                && f["actions"].as_str().unwrap_or("").contains("ct_lb")),
        "no SB load-balancer flow for {vip}"
    );

    // The status tree and the LB itself.
    let lb = osj(&keel, &["loadbalancer", "show", &lb_id]);
    assert_eq!(
        (
            lb["provisioning_status"].as_str(),
            lb["operating_status"].as_str()
        ),
        (Some("ACTIVE"), Some("ONLINE"))
    );
    let tree = os(&keel, &["loadbalancer", "status", "show", &lb_id]).unwrap();
    let t = &tree["loadbalancer"];
    assert_eq!(t["id"], lb_id.as_str());
    assert_eq!(t["listeners"][0]["id"], listener_id.as_str());
    assert_eq!(t["listeners"][0]["pools"][0]["id"], pool_id.as_str());
    assert_eq!(
        t["listeners"][0]["pools"][0]["health_monitor"]["id"],
        hm_id.as_str()
    );
    assert_eq!(
        t["listeners"][0]["pools"][0]["members"]
            .as_array()
            .unwrap()
            .len(),
        2
    );

    // An option OVN does not support: 501, nothing left behind, LB back to ACTIVE.
    let err = os(
        &keel,
        &[
            "loadbalancer",
            "listener",
            "create",
            "--protocol",
            "HTTP",
            "--protocol-port",
            "81",
            &lb_id,
        ],
    )
    .unwrap_err();
    assert!(
        err.contains("Provider 'ovn' does not support a requested option"),
        "{err}"
    );
    let listeners = osj(
        &keel,
        &["loadbalancer", "listener", "list", "--loadbalancer", &lb_id],
    );
    assert_eq!(listeners.as_array().unwrap().len(), 1);
    let lb = osj(&keel, &["loadbalancer", "show", &lb_id]);
    assert_eq!(lb["provisioning_status"], "ACTIVE");

    // Cascade delete removes every NB row, reference and port the steps made.
    os(
        &keel,
        &["loadbalancer", "delete", "--cascade", "--wait", &lb_id],
    )
    .unwrap();
    assert!(select(
        "OVN_Northbound",
        &nb,
        "Load_Balancer",
        json!([["name", "==", lb_id]])
    )
    .is_empty());
    let ls = select(
        "OVN_Northbound",
        &nb,
        "Logical_Switch",
        json!([["name", "==", format!("neutron-{net_id}")]]),
    );
    assert!(!uuids(&ls[0]["load_balancer"]).contains(&lb_uuid));
    let lr = select(
        "OVN_Northbound",
        &nb,
        "Logical_Router",
        json!([["name", "==", format!("neutron-{router_id}")]]),
    );
    assert!(!uuids(&lr[0]["load_balancer"]).contains(&lb_uuid));
    assert!(select(
        "OVN_Northbound",
        &nb,
        "Load_Balancer_Health_Check",
        json!([["_uuid", "==", ["uuid", checks[0]]]])
    )
    .is_empty());
    assert!(
        os(&keel, &["port", "show", &format!("ovn-lb-vip-{lb_id}")]).is_err(),
        "VIP port left behind"
    );
    assert!(
        os(&keel, &["port", "show", &format!("ovn-lb-hm-{subnet_id}")]).is_err(),
        "HM port left behind"
    );
    let gone = os(&keel, &["loadbalancer", "show", &lb_id]);
    assert!(
        gone.is_err() || gone.as_ref().unwrap()["provisioning_status"] == "DELETED",
        "{gone:?}"
    );
    drop(cleanup_net);
}

/// Deletes the test's router (after removing its subnet interface), even when the test fails.
struct RouterGuard {
    router: String,
    subnet: String,
}

impl Drop for RouterGuard {
    fn drop(&mut self) {
        admin(&["router", "remove", "subnet", &self.router, &self.subnet]);
        admin(&["router", "delete", &self.router]);
    }
}

/// Deletes the test's network and its ports, even when the test fails.
struct NetGuard(String);

impl Drop for NetGuard {
    fn drop(&mut self) {
        let out = Command::new("openstack")
            .args([
                "port",
                "list",
                "--network",
                &self.0,
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
        admin(&["network", "delete", &self.0]);
    }
}

fn scopeguard(net: String) -> NetGuard {
    NetGuard(net)
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
