//! Seed 004 §5 end to end ("a provider refusal"): the real `openstack` CLI against a real
//! `keel serve`, with the stack's real Barbican, Keystone, Neutron and OVN. A TERMINATED_HTTPS
//! listener whose certificate Barbican holds (a PKCS12 secret, then a certificate container)
//! is read first (and the service user granted read access, as Octavia's `set_acls`) and then
//! refused by the OVN provider with 501; the load balancer is ACTIVE
//! again, no listener is left and the listener quota is not consumed. An unreadable reference
//! is refused with 400 before the provider is asked.
//!
//! Needs the environment of `ci/stack/env.sh` (run through `ci/test.sh`); runs a `keel serve`
//! (with its OVN provider agent), so it is in ci/test.sh's serial set.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

fn env(name: &str) -> String {
    std::env::var(name)
        .unwrap_or_else(|_| panic!("{name} is not set: run the tests through ci/test.sh"))
}

/// A `keel serve` child on a free port with a fresh SQLite DB, killed on drop.
struct Keel {
    child: Child,
    port: u16,
    dir: tempfile::TempDir,
}

impl Drop for Keel {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Keel {
    fn start() -> Keel {
        let dir = tempfile::tempdir().unwrap();
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let conf = dir.path().join("keel.conf");
        let auth = format!(
            "auth_url = {}\nusername = octavia\npassword = octavia-pass\nproject_name = service\n\
             user_domain_name = Default\nproject_domain_name = Default\nregion_name = RegionOne\n",
            env("STACK_KEYSTONE_URL")
        );
        // No [certificates] section: Barbican is found in the catalog (key-manager).
        // Keystone bounds a loaded machine's bcrypt logins fit in (as tests/common's harness).
        let bound = 30;
        std::fs::write(
            &conf,
            format!(
                "[api_settings]\nbind_host = 127.0.0.1\nbind_port = {port}\nauth_strategy = keystone\n\
                 enabled_provider_drivers = ovn:OVN provider driver\ndefault_provider_driver = ovn\n\
                 [database]\nconnection = sqlite://{}?mode=rwc\n\
                 [keystone_authtoken]\n{auth}http_connect_timeout = {bound}\n\
                 [service_auth]\n{auth}timeout = {bound}\n\
                 [neutron]\nendpoint = {}\n[ovn]\novn_nb_connection = {}\novn_sb_connection = {}\n",
                dir.path().join("keel.sqlite").display(),
                env("STACK_NEUTRON_URL"),
                env("STACK_OVN_NB"),
                env("STACK_OVN_SB"),
            ),
        )
        .unwrap();
        let bin = PathBuf::from(env!("CARGO_BIN_EXE_keel"));
        let log = std::fs::File::create(dir.path().join("keel.log")).unwrap();
        let child = Command::new(&bin)
            .arg("--config-file")
            .arg(&conf)
            .arg("serve")
            .stdout(Stdio::from(log.try_clone().unwrap()))
            .stderr(Stdio::from(log))
            .spawn()
            .unwrap();
        let keel = Keel { child, port, dir };
        let deadline = Instant::now() + Duration::from_secs(60);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "keel did not listen on {port}: {}",
                keel.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        keel
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("keel.log")).unwrap_or_default()
    }
}

/// `openstack <args>` as `user` (password `<user>-pass`, project of the same name, admin's
/// project is admin) against `keel`; `Ok(stdout)` or `Err(stdout + stderr)`.
fn os_as(keel: &Keel, user: &str, args: &[&str]) -> Result<String, String> {
    let out = Command::new("openstack")
        .args(args)
        .env("OS_USERNAME", user)
        .env("OS_PASSWORD", format!("{user}-pass"))
        .env("OS_PROJECT_NAME", user)
        .env(
            "OS_LOAD_BALANCER_ENDPOINT_OVERRIDE",
            format!("http://127.0.0.1:{}", keel.port),
        )
        .output()
        .map_err(|e| format!("cannot run openstack: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    if out.status.success() {
        Ok(stdout)
    } else {
        Err(format!("{stdout}{}", String::from_utf8_lossy(&out.stderr)))
    }
}

/// `openstack <args> -f json` as demo, parsed; panics on failure.
fn osj(keel: &Keel, args: &[&str]) -> Value {
    let mut a = args.to_vec();
    a.extend(["-f", "json"]);
    let out = os_as(keel, "demo", &a).unwrap_or_else(|e| panic!("openstack {args:?}: {e}"));
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

/// Deletes what the test made, even when it fails: the LB (cascade, waited for), then the
/// network (with any port left), then the Barbican objects.
struct Cleanup<'a> {
    keel: Option<&'a Keel>,
    lb: Option<String>,
    network: Option<String>,
    containers: Vec<String>,
    secrets: Vec<String>,
}

impl Drop for Cleanup<'_> {
    fn drop(&mut self) {
        if let (Some(keel), Some(lb)) = (self.keel, &self.lb) {
            let _ = os_as(
                keel,
                "demo",
                &["loadbalancer", "delete", "--cascade", "--wait", lb],
            );
        }
        if let (Some(keel), Some(net)) = (self.keel, &self.network) {
            if let Ok(ports) = os_as(
                keel,
                "admin",
                &["port", "list", "--network", net, "-f", "value", "-c", "ID"],
            ) {
                for p in ports.split_whitespace() {
                    let _ = os_as(keel, "admin", &["port", "delete", p]);
                }
            }
            let _ = os_as(keel, "admin", &["network", "delete", net]);
        }
        if let Some(keel) = self.keel {
            for c in &self.containers {
                let _ = os_as(keel, "demo", &["secret", "container", "delete", c]);
            }
            for s in &self.secrets {
                let _ = os_as(keel, "demo", &["secret", "delete", s]);
            }
        }
    }
}

fn lb_status(keel: &Keel, lb: &str) -> String {
    osj(keel, &["loadbalancer", "show", lb])["provisioning_status"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn tls_listener_read_from_barbican_then_refused_by_ovn() {
    let keel = Keel::start();
    let tag = uuid::Uuid::new_v4().simple().to_string()[..8].to_string();
    let mut cleanup = Cleanup {
        keel: Some(&keel),
        lb: None,
        network: None,
        containers: vec![],
        secrets: vec![],
    };

    // A certificate as a user makes one: key + self-signed cert, a password-less PKCS12
    // bundle stored in Barbican (Octavia's documented form), and the same pair as a
    // certificate container (the legacy form).
    let work = tempfile::tempdir().unwrap();
    test_pki::self_signed(work.path());
    test_pki::pkcs12(work.path(), "bundle.p12", "");
    test_pki::pkcs12(work.path(), "locked.p12", "pw");
    let b64 = |f: &str| {
        let out = Command::new("base64")
            .arg("-w0")
            .arg(work.path().join(f))
            .output()
            .unwrap();
        assert!(out.status.success() && !out.stdout.is_empty());
        String::from_utf8(out.stdout).unwrap()
    };
    let store = |name: &str, payload: &str, binary: bool| -> String {
        let mut args = vec!["secret", "store", "--name", name, "--payload", payload];
        if binary {
            args.extend([
                "--payload-content-type",
                "application/octet-stream",
                "--payload-content-encoding",
                "base64",
            ]);
        } else {
            args.extend(["--payload-content-type", "text/plain"]);
        }
        osj(&keel, &args)["Secret href"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let bundle = store(&format!("keel-tls-{tag}-p12"), &b64("bundle.p12"), true);
    cleanup.secrets.push(bundle.clone());
    let locked = store(&format!("keel-tls-{tag}-locked"), &b64("locked.p12"), true);
    cleanup.secrets.push(locked.clone());
    let pem = |f: &str| std::fs::read_to_string(work.path().join(f)).unwrap();
    let cert = store(&format!("keel-tls-{tag}-cert"), &pem("cert.pem"), false);
    cleanup.secrets.push(cert.clone());
    let key = store(&format!("keel-tls-{tag}-key"), &pem("key.pem"), false);
    cleanup.secrets.push(key.clone());
    let container = osj(
        &keel,
        &[
            "secret",
            "container",
            "create",
            "--name",
            &format!("keel-tls-{tag}"),
            "--type",
            "certificate",
            "--secret",
            &format!("certificate={cert}"),
            "--secret",
            &format!("private_key={key}"),
        ],
    )["Container href"]
        .as_str()
        .unwrap()
        .to_string();
    cleanup.containers.push(container.clone());

    // A network, a subnet and an ACTIVE load balancer on it.
    let net = osj(&keel, &["network", "create", &format!("keel-tls-{tag}")])["id"]
        .as_str()
        .unwrap()
        .to_string();
    cleanup.network = Some(net.clone());
    let subnet = osj(
        &keel,
        &[
            "subnet",
            "create",
            "--network",
            &net,
            "--subnet-range",
            "10.0.0.0/24",
            &format!("keel-tls-{tag}"),
        ],
    )["id"]
        .as_str()
        .unwrap()
        .to_string();
    let lb = osj(
        &keel,
        &[
            "loadbalancer",
            "create",
            "--name",
            &format!("keel-tls-{tag}"),
            "--vip-subnet-id",
            &subnet,
            "--provider",
            "ovn",
            "--wait",
        ],
    )["id"]
        .as_str()
        .unwrap()
        .to_string();
    cleanup.lb = Some(lb.clone());
    assert_eq!(lb_status(&keel, &lb), "ACTIVE");
    let project = osj(&keel, &["loadbalancer", "show", &lb])["project_id"]
        .as_str()
        .unwrap()
        .to_string();
    // One listener allowed: a refused create that consumed quota would make the last create
    // below fail.
    os_as(
        &keel,
        "admin",
        &["loadbalancer", "quota", "set", "--listener", "1", &project],
    )
    .unwrap();

    let create = |ref_: &str| {
        os_as(
            &keel,
            "demo",
            &[
                "loadbalancer",
                "listener",
                "create",
                "--name",
                &format!("keel-tls-{tag}"),
                "--protocol",
                "TERMINATED_HTTPS",
                "--protocol-port",
                "443",
                "--default-tls-container-ref",
                ref_,
                &lb,
                "-f",
                "json",
            ],
        )
    };

    // Readable certificate (both forms): read, then refused by the OVN provider (501).
    for good in [&bundle, &container] {
        let err = create(good).expect_err("the OVN provider refuses TERMINATED_HTTPS");
        assert!(
            err.contains("Provider 'ovn' does not support a requested option: OVN provider does not support TERMINATED_HTTPS protocol"),
            "{err}"
        );
        assert!(err.contains("HTTP 501"), "{err}");
        assert_eq!(lb_status(&keel, &lb), "ACTIVE");
        let listeners = osj(&keel, &["loadbalancer", "listener", "list"]);
        assert_eq!(listeners, Value::Array(vec![]), "listener left behind");
    }

    // As Octavia's set_acls: the service user may now read the bundle, the container and
    // the container's secrets (granted with demo's token).
    let octavia = os_as(
        &keel,
        "admin",
        &["user", "show", "octavia", "-f", "value", "-c", "id"],
    )
    .unwrap()
    .trim()
    .to_string();
    for r in [&bundle, &container, &cert, &key] {
        let acl = osj(&keel, &["acl", "get", r]).to_string();
        assert!(acl.contains(&octavia), "{r}: {acl}");
    }

    // Unreadable reference (no such secret): 400 before the provider is asked.
    let root = bundle.rsplit_once("/secrets/").unwrap().0.to_string();
    let missing = format!("{root}/secrets/{}", uuid::Uuid::new_v4());
    let err = create(&missing).expect_err("unreadable ref");
    assert!(
        err.contains(&format!("Could not retrieve certificate: ['{missing}']")),
        "{err}"
    );
    assert!(err.contains("HTTP 400"), "{err}");
    // A secret that is no PKCS12 bundle (the PEM certificate alone): Octavia's text.
    let err = create(&cert).expect_err("PEM is no PKCS12 bundle");
    assert!(
        err.contains("The PKCS12 bundle is unreadable. Please check the PKCS12 bundle validity. In addition, make sure it does not require a pass phrase. Error: Could not deserialize PKCS12 data"),
        "{err}"
    );
    // A bundle behind a pass phrase: cryptography's text for it.
    let err = create(&locked).expect_err("pass phrase");
    assert!(
        err.contains(
            "make sure it does not require a pass phrase. Error: Invalid password or PKCS12 data"
        ),
        "{err}"
    );
    assert_eq!(lb_status(&keel, &lb), "ACTIVE");

    // Quota untouched by the refusals: the one allowed listener can still be made.
    let l = osj(
        &keel,
        &[
            "loadbalancer",
            "listener",
            "create",
            "--protocol",
            "TCP",
            "--protocol-port",
            "80",
            "--wait",
            &lb,
        ],
    );
    assert_eq!(l["provisioning_status"], "ACTIVE", "{l}");
    drop(cleanup);
    drop(keel);
}
