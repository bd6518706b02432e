//! Keel run exactly as the deployment tools run Octavia's API, from each tool's own files
//! (`tests/data/deploy/<tool>/`, rendered by hand from the tool's templates with its defaults;
//! each file's first line names its source and commit), against the stack's real services:
//! the tool's command line (through the program names `keel links` writes), its bootstrap,
//! its health check, its log file parsed with kolla's fluentd regex; a load balancer with a
//! listener, pool and member goes ACTIVE; SIGTERM during a cascade delete exits 0 with nothing
//! left PENDING_*. Each prints its time from start to the first 200.
//!
//! Needs the environment of `ci/stack/env.sh` (run through `ci/test.sh`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::fluentd::{KOLLA_FIRSTLINE, KOLLA_FORMAT1};
use common::{LbGuard, MariaDb, NeutronNet, demo_token, env, free_port, http, tag, wait_for};
use regex::Regex;
use serde_json::{Value, json};
use test_pki::make_pki;

/// A tool's file with the stack's addresses and the test's paths put in for its `@NAME@`s.
fn render(tool: &str, file: &str, vars: &[(&str, String)]) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/deploy")
        .join(tool)
        .join(file);
    let mut text = std::fs::read_to_string(&p).unwrap();
    for (k, v) in vars {
        text = text.replace(&format!("@{k}@"), v);
    }
    let left = Regex::new("@[A-Z]+@").unwrap();
    if let Some(l) = text.lines().skip(1).find(|l| left.is_match(l)) {
        panic!("{tool}/{file}: a placeholder without a value: {l}");
    }
    text
}

/// A tool's rendered `octavia.conf` as this stack can serve it. The tools name Octavia's real
/// compute and image drivers (Nova, Glance), whose checks Keel makes or refuses to start
/// without; on a stack without those services (`STACK_COMPUTE=1` not set: no
/// `STACK_NOVA_URL`) the noop drivers are appended in a second `[controller_worker]`, whose
/// values win as oslo.config's. With them, the file is the tool's own.
fn for_this_stack(conf: String) -> String {
    if std::env::var_os("STACK_NOVA_URL").is_some() {
        return conf;
    }
    conf + "\n[controller_worker]\ncompute_driver = compute_noop_driver\n\
            image_driver = image_noop_driver\nvolume_driver = volume_noop_driver\n"
}

/// The command line of a tool's `command` file (its second line), words split.
fn command_line(tool: &str) -> Vec<String> {
    nth_command_line(tool, 1)
}

/// Line `n` of a tool's `command` file (0: the source line), words split.
fn nth_command_line(tool: &str, n: usize) -> Vec<String> {
    render(tool, "command", &[])
        .lines()
        .nth(n)
        .unwrap()
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// A temp dir with `bin/` (the programs `keel links` writes), `home/` (oslo's `~`), `etc/`,
/// `log/`, and the database the tool's URL names.
struct Site {
    dir: tempfile::TempDir,
    db: MariaDb,
    port: u16,
}

impl Site {
    fn new() -> Site {
        let dir = tempfile::tempdir().unwrap();
        for d in ["bin", "home/.octavia", "etc", "log"] {
            std::fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        let out = Command::new(common::keel_bin())
            .arg("links")
            .arg(dir.path().join("bin"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        Site {
            dir,
            db: MariaDb::create(),
            port: free_port(),
        }
    }
    fn path(&self, p: &str) -> PathBuf {
        self.dir.path().join(p)
    }
    fn vars(&self) -> Vec<(&'static str, String)> {
        let user = String::from_utf8(Command::new("id").arg("-un").output().unwrap().stdout)
            .unwrap()
            .trim()
            .to_string();
        vec![
            ("HOST", "127.0.0.1".into()),
            ("PORT", self.port.to_string()),
            ("LOGDIR", self.path("log").display().to_string()),
            ("ETC", self.path("etc").display().to_string()),
            ("USER", user),
            ("NB", env("STACK_OVN_NB")),
            ("SB", env("STACK_OVN_SB")),
            (
                "KEYSTONE",
                env("STACK_KEYSTONE_URL")
                    .trim_end_matches("/v3")
                    .to_string(),
            ),
            (
                "DB",
                self.db.url().replacen("mysql://", "mysql+pymysql://", 1),
            ),
            ("STATS", free_port().to_string()),
            (
                "LOGGING",
                concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/helm-logging.conf").into(),
            ),
        ]
    }
    /// Runs one of the programs (`bin/<argv0>`) with `HOME` = `home/`, as the tool's container
    /// runs it; waits for it.
    fn run(&self, argv: &[&str]) -> std::process::Output {
        let out = Command::new(self.path("bin").join(argv[0]))
            .args(&argv[1..])
            .env("HOME", self.path("home"))
            .env("NO_COLOR", "1")
            .env_remove("KEEL_LOG")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{argv:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }
    /// Spawns the tool's API command (`/etc/octavia/` and `/etc/uwsgi/` in it are `etc/`);
    /// stdout+stderr to `log/console.log`.
    fn spawn(&self, argv: &[String]) -> Child {
        self.spawn_logged(argv, "console")
    }
    /// [`Site::spawn`] with stdout+stderr to `log/<name>.log`.
    fn spawn_logged(&self, argv: &[String], name: &str) -> Child {
        let console = std::fs::File::create(self.path(&format!("log/{name}.log"))).unwrap();
        let etc = self.path("etc").display().to_string();
        let args: Vec<String> = argv[1..]
            .iter()
            .map(|a| a.replace("/etc/octavia", &etc).replace("/etc/uwsgi", &etc))
            .collect();
        Command::new(self.path("bin").join(&argv[0]))
            .args(&args)
            .env("HOME", self.path("home"))
            .env("NO_COLOR", "1")
            .env_remove("KEEL_LOG")
            .stdout(Stdio::from(console.try_clone().unwrap()))
            .stderr(Stdio::from(console))
            .spawn()
            .unwrap()
    }
    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
    fn console(&self) -> String {
        std::fs::read_to_string(self.path("log/console.log")).unwrap_or_default()
    }
}

/// Polls `GET <url><path>` until it answers one of `ok` (60 s; panics with the console if
/// the program exits); the time it took from `started`.
fn first_ok(
    site: &Site,
    child: &mut Child,
    path: &str,
    ok: &[&[u8]],
    started: Instant,
) -> Duration {
    loop {
        if let Ok(Some(st)) = child.try_wait() {
            panic!("exited ({st}) before answering: {}", site.console());
        }
        let out = Command::new("curl")
            .args(["-s", "-o", "/dev/null", "-w", "%{http_code}"])
            .arg(format!("{}{path}", site.url()))
            .output()
            .unwrap();
        if ok.contains(&out.stdout.as_slice()) {
            return started.elapsed();
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no 200 on {path}: {}",
            site.console()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn api(site: &Site, method: &str, path: &str, token: &str, body: Option<&Value>) -> (u16, Value) {
    http(method, &format!("{}{path}", site.url()), Some(token), body)
}

fn wait_active(site: &Site, token: &str, lb: &str) {
    wait_for("load balancer ACTIVE", Duration::from_secs(60), || {
        let (_, b) = api(
            site,
            "GET",
            &format!("/v2/lbaas/loadbalancers/{lb}"),
            token,
            None,
        );
        match b["loadbalancer"]["provisioning_status"].as_str() {
            Some("ACTIVE") => Ok(()),
            s => Err(format!("{s:?}")),
        }
    });
}

/// LB → listener → pool → member, each ACTIVE; the status tree read back ACTIVE. Returns the
/// LB id (its NB rows removed on the guard's drop).
fn lifecycle(site: &Site, token: &str, net: &NeutronNet) -> (String, LbGuard) {
    let (code, b) = api(
        site,
        "POST",
        "/v2/lbaas/loadbalancers",
        token,
        Some(
            &json!({"loadbalancer": {"name": format!("deploy-{}", tag()),
            "vip_subnet_id": net.subnet, "provider": "ovn"}}),
        ),
    );
    assert_eq!(code, 201, "{b}: {}", site.console());
    let lb = b["loadbalancer"]["id"].as_str().unwrap().to_string();
    let guard = LbGuard(lb.clone());
    wait_active(site, token, &lb);
    let mut parent = json!({"loadbalancer_id": lb});
    for (path, kind, body) in [
        (
            "/v2/lbaas/listeners",
            "listener",
            json!({"protocol": "TCP", "protocol_port": 80}),
        ),
        (
            "/v2/lbaas/pools",
            "pool",
            json!({"protocol": "TCP", "lb_algorithm": "SOURCE_IP_PORT"}),
        ),
        (
            "",
            "member",
            json!({"address": "10.0.0.31", "protocol_port": 8080, "subnet_id": net.subnet}),
        ),
    ] {
        let mut body = body;
        let path = match kind {
            "member" => format!(
                "/v2/lbaas/pools/{}/members",
                parent["pool_id"].as_str().unwrap()
            ),
            _ => path.to_string(),
        };
        if kind != "member" {
            for (k, v) in parent.as_object().unwrap() {
                body[k] = v.clone();
            }
        }
        let (code, b) = api(site, "POST", &path, token, Some(&json!({ kind: body })));
        assert_eq!(code, 201, "{kind}: {b}");
        let id = b[kind]["id"].clone();
        parent = match kind {
            "listener" => json!({"listener_id": id}),
            _ => json!({"pool_id": id}),
        };
        wait_active(site, token, &lb);
    }
    let (code, b) = api(
        site,
        "GET",
        &format!("/v2/lbaas/loadbalancers/{lb}/status"),
        token,
        None,
    );
    assert_eq!(code, 200);
    let s = &b["statuses"]["loadbalancer"];
    assert_eq!(s["provisioning_status"], "ACTIVE", "{b}");
    assert_eq!(s["listeners"][0]["provisioning_status"], "ACTIVE", "{b}");
    assert_eq!(
        s["listeners"][0]["pools"][0]["provisioning_status"], "ACTIVE",
        "{b}"
    );
    assert_eq!(
        s["listeners"][0]["pools"][0]["members"][0]["provisioning_status"], "ACTIVE",
        "{b}"
    );
    (lb, guard)
}

/// A cascade delete accepted, then SIGTERM at once: exit 0 (uWSGI's
/// `gracefully_kill_them_all`), nothing of the tree left PENDING_* in the database.
fn stop_during_delete(site: &Site, child: &mut Child, token: &str, lb: &str) {
    let (code, b) = api(
        site,
        "DELETE",
        &format!("/v2/lbaas/loadbalancers/{lb}?cascade=true"),
        token,
        None,
    );
    assert_eq!(code, 204, "{b}");
    let pid = child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let st = wait_for("exit after SIGTERM", Duration::from_secs(90), || {
        child
            .try_wait()
            .unwrap()
            .ok_or_else(|| "running".to_string())
    });
    assert_eq!(st.code(), Some(0), "{}", site.console());
    let pending = site.db.sql(
        "SELECT (SELECT COUNT(*) FROM load_balancer WHERE provisioning_status LIKE 'PENDING%') \
         + (SELECT COUNT(*) FROM listener WHERE provisioning_status LIKE 'PENDING%') \
         + (SELECT COUNT(*) FROM pool WHERE provisioning_status LIKE 'PENDING%') \
         + (SELECT COUNT(*) FROM member WHERE provisioning_status LIKE 'PENDING%')",
    );
    assert_eq!(pending, "0", "{}", site.console());
}

/// Every line of an oslo.log file parses with kolla's fluentd regex; the access lines are
/// among them.
fn assert_kolla_parses(text: &str) {
    let first = Regex::new(KOLLA_FIRSTLINE).unwrap();
    let format1 = Regex::new(KOLLA_FORMAT1).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() > 5, "{text}");
    for l in &lines {
        assert!(
            first.is_match(l) && format1.is_match(l),
            "fluentd cannot parse: {l}"
        );
    }
    assert!(lines.iter().any(|l| l.contains(" status=200")), "{text}");
}

#[test]
fn kolla_ansible_octavia_api_container() {
    let site = Site::new();
    let vars = site.vars();
    std::fs::write(
        site.path("home/.octavia/octavia.conf"),
        for_this_stack(render("kolla-ansible", "octavia.conf", &vars)),
    )
    .unwrap();
    std::fs::write(
        site.path("etc/octavia-api-uwsgi.ini"),
        render("kolla-ansible", "octavia-api-uwsgi.ini", &vars),
    )
    .unwrap();
    // openstack/kolla docker/octavia/octavia-api/extend_start.sh: the bootstrap container.
    site.run(&["octavia-db-manage", "upgrade", "head"]);
    site.run(&["octavia-db-manage", "upgrade_persistence"]);

    let started = Instant::now();
    let mut child = site.spawn(&command_line("kolla-ansible"));
    // HAProxy's `option httpchk GET /` and the container's `healthcheck_curl <host>:<port>`.
    let took = first_ok(&site, &mut child, "/", &[b"200"], started);
    eprintln!("kolla-ansible: start to first 200: {} ms", took.as_millis());
    let head = Command::new("curl")
        .args(["-s", "-I", "-o", "/dev/null", "-w", "%{http_code}"])
        .arg(site.url())
        .output()
        .unwrap();
    assert_eq!(head.stdout, b"200");

    let token = demo_token();
    let net = NeutronNet::create(&tag(), &["10.0.0.31"]);
    let (lb, _guard) = lifecycle(&site, &token, &net);
    stop_during_delete(&site, &mut child, &token, &lb);
    assert_kolla_parses(&std::fs::read_to_string(site.path("log/octavia-api.log")).unwrap());
}

#[test]
fn openstack_helm_octavia_api_pod() {
    let site = Site::new();
    let vars = site.vars();
    std::fs::write(
        site.path("home/.octavia/octavia.conf"),
        for_this_stack(render("openstack-helm", "octavia.conf", &vars)),
    )
    .unwrap();
    std::fs::write(
        site.path("etc/octavia-api-uwsgi.ini"),
        render("openstack-helm", "octavia-api-uwsgi.ini", &vars),
    )
    .unwrap();
    // helm's conf.policy ({}) as the configmap writes it.
    std::fs::write(site.path("etc/policy.yaml"), "{}\n").unwrap();
    // octavia/templates/bin/_db-sync.sh.tpl: the db-sync job.
    site.run(&["octavia-db-manage", "upgrade", "head"]);
    site.run(&["octavia-db-manage", "upgrade_persistence"]);

    let started = Instant::now();
    let mut child = site.spawn(&command_line("openstack-helm"));
    // The readiness and liveness probes: GET /healthcheck on the http-socket's port, which
    // pass on 2xx/3xx. With no [healthcheck] backends Octavia answers 204 (oslo.middleware's
    // empty healthy body through pecan); GET / answers 200.
    let took = first_ok(
        &site,
        &mut child,
        "/healthcheck",
        &[b"200", b"204"],
        started,
    );
    eprintln!(
        "openstack-helm: start to first probe success: {} ms",
        took.as_millis()
    );
    let took = first_ok(&site, &mut child, "/", &[b"200"], started);
    eprintln!(
        "openstack-helm: start to first 200: {} ms",
        took.as_millis()
    );

    let token = demo_token();
    let net = NeutronNet::create(&tag(), &["10.0.0.31"]);
    let (lb, _guard) = lifecycle(&site, &token, &net);
    stop_during_delete(&site, &mut child, &token, &lb);
    // logging.conf's ContextFormatter lines on stdout: oslo's context format, which kolla's
    // format1 parses (Python's `,mmm` + `.msecs` timestamp is not kolla's firstline).
    let format1 = Regex::new(KOLLA_FORMAT1).unwrap();
    let console = site.console();
    let oslo: Vec<&str> = console
        .lines()
        .filter(|l| l.as_bytes().first().is_some_and(u8::is_ascii_digit))
        .collect();
    assert!(oslo.iter().any(|l| l.contains(" status=200")), "{console}");
    for l in &oslo {
        let c = format1
            .captures(l)
            .unwrap_or_else(|| panic!("format1: {l}"));
        if l.contains(" status=200") {
            assert!(
                c.name("request_id").is_some(),
                "access line without its id: {l}"
            );
        }
    }
}

/// An `ovsdb-server` relaying the stack's `OVN_Northbound` or `OVN_Southbound` (`source`:
/// its `tcp:` remote) on `pssl:` at `port`, with `server.key` / `server.pem` / `ca.pem` of
/// `certs` — the stack's own NB and SB behind the `ssl:` remotes OSA renders (its
/// `octavia_ovn_ssl` default). Killed on drop.
struct SslRelay(Child);

impl SslRelay {
    fn start(certs: &Path, db: &str, source: &str, port: u16) -> SslRelay {
        let p = |f: &str| certs.join(f).display().to_string();
        let child = Command::new("ovsdb-server")
            .arg(format!("--remote=pssl:{port}:127.0.0.1"))
            .arg(format!("--private-key={}", p("server.key")))
            .arg(format!("--certificate={}", p("server.pem")))
            .arg(format!("--ca-cert={}", p("ca.pem")))
            .arg(format!("--unixctl={}", p(&format!("{port}.ctl"))))
            .arg("--no-chdir")
            .arg(format!("--log-file={}", p(&format!("relay-{port}.log"))))
            .arg(format!("relay:{db}:{source}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let relay = SslRelay(child);
        wait_for(
            &format!("the {db} relay's pssl listener"),
            Duration::from_secs(20),
            || std::net::TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string()),
        );
        relay
    }
}

impl Drop for SslRelay {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The `OVN provider agent started … held=…` lines of a log, as `held=true|false`.
fn agent_starts(log: &str) -> Vec<bool> {
    log.lines()
        .filter(|l| l.contains("OVN provider agent started"))
        .map(|l| l.contains("held=true"))
        .collect()
}

/// OpenStack-Ansible's two systemd units as `os_octavia` and the `uwsgi` role write them: the
/// API under `uwsgi --autoload --ini /etc/uwsgi/octavia-api.ini` (the WSGI app reading oslo's
/// default `octavia.conf`), `octavia-driver-agent --config-file /etc/octavia/octavia.conf`
/// beside it, and the role's `ssl:` OVN remotes with its PKI's key, certificate and CA.
/// HAProxy's `GET /healthcheck` passes, exactly one of the two processes runs the OVN
/// provider agent, an LB tree goes ACTIVE through the `ssl:` NB, `ExecReload` (`uwsgi
/// --reload <pidfile>`) leaves the API serving, and SIGTERM of each unit exits 0 with nothing
/// PENDING_*.
#[test]
fn openstack_ansible_systemd_units() {
    let site = Site::new();
    let certs = site.path("certs");
    std::fs::create_dir_all(&certs).unwrap();
    make_pki(&certs, "ca", &["server", "client"]);
    // OSA's PKI role writes the host's files under these names (`octavia_ovn_ssl_*`)
    for (from, to) in [
        ("client.key", "octavia_ovn.key"),
        ("client.pem", "octavia_ovn.pem"),
        ("ca.pem", "octavia_ovn-ca.pem"),
    ] {
        std::fs::copy(certs.join(from), certs.join(to)).unwrap();
    }
    let (nb_port, sb_port) = (free_port(), free_port());
    let _nb = SslRelay::start(&certs, "OVN_Northbound", &env("STACK_OVN_NB"), nb_port);
    let _sb = SslRelay::start(&certs, "OVN_Southbound", &env("STACK_OVN_SB"), sb_port);
    let run = site.path("run");
    std::fs::create_dir_all(run.join("octavia-api/uwsgi")).unwrap();
    let mut vars: Vec<(&str, String)> = site
        .vars()
        .into_iter()
        .filter(|(k, _)| !matches!(*k, "NB" | "SB"))
        .collect();
    vars.extend([
        ("NB", format!("ssl:127.0.0.1:{nb_port}")),
        ("SB", format!("ssl:127.0.0.1:{sb_port}")),
        ("CERTS", certs.display().to_string()),
        ("VENV", site.path("venv").display().to_string()),
        ("RUN", run.display().to_string()),
    ]);
    let conf = for_this_stack(render("openstack-ansible", "octavia.conf", &vars));
    // the API reads oslo's default file, the driver agent its --config-file: the same file
    std::fs::write(site.path("home/.octavia/octavia.conf"), &conf).unwrap();
    std::fs::write(site.path("etc/octavia.conf"), &conf).unwrap();
    std::fs::write(
        site.path("etc/octavia-api.ini"),
        render("openstack-ansible", "octavia-api.ini", &vars),
    )
    .unwrap();
    // os_octavia tasks/octavia_db_sync.yml
    site.run(&["octavia-db-manage", "upgrade", "head"]);
    site.run(&["octavia-db-manage", "upgrade_persistence"]);

    let mut agent = site.spawn_logged(&nth_command_line("openstack-ansible", 2), "driver-agent");
    let started = Instant::now();
    let mut child = site.spawn(&command_line("openstack-ansible"));
    // HAProxy's check (os_octavia's haproxy_service: `GET /healthcheck`)
    let took = first_ok(
        &site,
        &mut child,
        "/healthcheck",
        &[b"200", b"204"],
        started,
    );
    eprintln!(
        "openstack-ansible: start to first /healthcheck success: {} ms",
        took.as_millis()
    );
    let agent_log = || std::fs::read_to_string(site.path("log/driver-agent.log")).unwrap();
    let held = wait_for(
        "both units' `OVN provider agent started` lines",
        Duration::from_secs(30),
        || {
            let (a, b) = (agent_starts(&agent_log()), agent_starts(&site.console()));
            match (a.as_slice(), b.as_slice()) {
                ([a], [b]) => Ok((*a, *b)),
                _ => Err(format!("driver agent {a:?}, api {b:?}")),
            }
        },
    );
    assert!(
        held.0 != held.1,
        "exactly one active agent (driver agent, api): {held:?}\n{}\n{}",
        agent_log(),
        site.console()
    );

    let token = demo_token();
    let net = NeutronNet::create(&tag(), &["10.0.0.31"]);
    let (lb, _guard) = lifecycle(&site, &token, &net);
    // ExecReload: `uwsgi --reload <safe-pidfile>`; the API keeps serving
    let pidfile = run.join("octavia-api/uwsgi/octavia-api.pid");
    site.run(&["uwsgi", "--reload", &pidfile.display().to_string()]);
    let (code, _) = api(
        &site,
        "GET",
        &format!("/v2/lbaas/loadbalancers/{lb}"),
        &token,
        None,
    );
    assert_eq!(code, 200, "{}", site.console());
    stop_during_delete(&site, &mut child, &token, &lb);
    let pid = agent.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let st = wait_for(
        "driver agent exit after SIGTERM",
        Duration::from_secs(60),
        || {
            agent
                .try_wait()
                .unwrap()
                .ok_or_else(|| "running".to_string())
        },
    );
    assert_eq!(st.code(), Some(0), "{}", agent_log());
}

/// RHOSO's API pod laid out in `site/httpd` (standing in for the image's `/etc/httpd`, given
/// with `-d`): the operator's `httpd.conf` (`tls`: `httpd-tls.conf`, its PKI under `pki/`) and
/// lib-common's `ssl.conf`, Keel's image's `conf.modules.d/00-keel.conf`; `octavia.conf`,
/// `octavia.conf.d/custom.conf` and `my.cnf` where the WSGI app's oslo defaults find them.
/// Returns the vars and the command line (`httpd -DFOREGROUND -d site/httpd`).
fn rhoso_site(site: &Site, tls: bool) -> (Vec<(&'static str, String)>, Vec<String>) {
    let root = site.path("httpd");
    for d in ["conf", "conf.d", "conf.modules.d", "run"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../ci/image/httpd/00-keel.conf"
        ),
        root.join("conf.modules.d/00-keel.conf"),
    )
    .unwrap();
    let pki = site.path("pki");
    if tls {
        for d in ["certs", "private"] {
            std::fs::create_dir_all(pki.join(d)).unwrap();
        }
        make_pki(&pki, "ca", &["internal", "public"]);
        for e in ["internal", "public"] {
            std::fs::copy(
                pki.join(format!("{e}.pem")),
                pki.join(format!("certs/{e}.crt")),
            )
            .unwrap();
            std::fs::copy(
                pki.join(format!("{e}.key")),
                pki.join(format!("private/{e}.key")),
            )
            .unwrap();
        }
    }
    let mut vars = site.vars();
    vars.extend([
        ("SERVERROOT", root.display().to_string()),
        ("PKI", pki.display().to_string()),
    ]);
    let conf = if tls { "httpd-tls.conf" } else { "httpd.conf" };
    std::fs::write(root.join("conf/httpd.conf"), render("rhoso", conf, &vars)).unwrap();
    std::fs::write(
        root.join("conf.d/ssl.conf"),
        render("rhoso", "ssl.conf", &vars),
    )
    .unwrap();
    std::fs::write(site.path("etc/my.cnf"), render("rhoso", "my.cnf", &vars)).unwrap();
    std::fs::write(
        site.path("home/.octavia/octavia.conf"),
        render("rhoso", "octavia.conf", &vars),
    )
    .unwrap();
    std::fs::create_dir_all(site.path("home/.octavia/octavia.conf.d")).unwrap();
    std::fs::write(
        site.path("home/.octavia/octavia.conf.d/custom.conf"),
        for_this_stack(render("rhoso", "custom.conf", &vars)),
    )
    .unwrap();
    // templates/octavia/bin/bootstrap.sh: the db-sync job
    let conf = site
        .path("home/.octavia/octavia.conf")
        .display()
        .to_string();
    site.run(&[
        "octavia-db-manage",
        "--config-file",
        &conf,
        "upgrade",
        "head",
    ]);
    site.run(&[
        "octavia-db-manage",
        "--config-file",
        &conf,
        "upgrade_persistence",
    ]);
    let mut cmd = command_line("rhoso");
    cmd[0] = "httpd".into();
    cmd.extend(["-d".to_string(), root.display().to_string()]);
    (vars, cmd)
}

/// RHOSO's octavia-operator API container: kolla_start's `/usr/sbin/httpd -DFOREGROUND` on
/// the operator's `httpd.conf` (both endpoints' VirtualHosts on one `Listen`), the WSGI app
/// reading `/etc/octavia/octavia.conf` + `octavia.conf.d/` and the DB URL's
/// `read_default_file` my.cnf. The probes' `GET /healthcheck` passes, each ignored directive
/// is named once at start-up, `PidFile` holds the PID, an LB tree goes ACTIVE, SIGTERM during
/// a cascade delete exits 0 with nothing PENDING_*.
#[test]
fn rhoso_octavia_operator_api_pod() {
    let site = Site::new();
    let (_vars, cmd) = rhoso_site(&site, false);
    let started = Instant::now();
    let mut child = site.spawn(&cmd);
    let took = first_ok(
        &site,
        &mut child,
        "/healthcheck",
        &[b"200", b"204"],
        started,
    );
    eprintln!(
        "rhoso: start to first probe success: {} ms",
        took.as_millis()
    );
    let took = first_ok(&site, &mut child, "/", &[b"200"], started);
    eprintln!("rhoso: start to first 200: {} ms", took.as_millis());
    let pid = std::fs::read_to_string(site.path("httpd/run/httpd.pid")).unwrap();
    assert_eq!(pid.trim(), child.id().to_string());
    // TraceEnable Off, accepted: Keel answers TRACE 405 as Apache then does
    let trace = Command::new("curl")
        .args(["-s", "-X", "TRACE", "-o", "/dev/null", "-w", "%{http_code}"])
        .arg(format!("{}/", site.url()))
        .output()
        .unwrap();
    assert_eq!(trace.stdout, b"405");
    let console = site.console();
    for d in [
        "WSGIDaemonProcess",
        "CustomLog",
        "User",
        "Alias",
        "SSLSessionCache",
    ] {
        assert!(
            console.contains(&format!("option={d} ")),
            "{d} not named as ignored: {console}"
        );
    }
    let token = demo_token();
    let net = NeutronNet::create(&tag(), &["10.0.0.31"]);
    let (lb, _guard) = lifecycle(&site, &token, &net);
    stop_during_delete(&site, &mut child, &token, &lb);
}

/// The operator with `spec.tls.api` on for both endpoints: each VirtualHost's own
/// certificate on the one port, chosen by SNI (the public `ServerName` gets `public`'s, no
/// name the first VirtualHost's), the HTTPS probe passes, and `httpd -k graceful-stop` (the
/// configuration's `PidFile`) stops it with exit 0.
#[test]
fn rhoso_octavia_operator_api_pod_tls() {
    let site = Site::new();
    let (_vars, cmd) = rhoso_site(&site, true);
    let started = Instant::now();
    let mut child = site.spawn(&cmd);
    let https = format!("https://127.0.0.1:{}", site.port);
    let took = wait_for("the HTTPS probe", Duration::from_secs(60), || {
        if let Ok(Some(st)) = child.try_wait() {
            panic!("exited ({st}): {}", site.console());
        }
        let out = Command::new("curl")
            .args(["-sk", "-o", "/dev/null", "-w", "%{http_code}"])
            .arg(format!("{https}/healthcheck"))
            .output()
            .unwrap();
        match out.stdout.as_slice() {
            b"200" | b"204" => Ok(started.elapsed()),
            c => Err(String::from_utf8_lossy(c).into_owned()),
        }
    });
    eprintln!(
        "rhoso tls: start to first probe success: {} ms",
        took.as_millis()
    );
    // plain HTTP on the TLS port is no answer
    let plain = Command::new("curl")
        .args(["-s", "-o", "/dev/null", "-w", "%{http_code}"])
        .arg(format!("{}/", site.url()))
        .output()
        .unwrap();
    assert_ne!(plain.stdout, b"200");
    let subject = |servername: Option<&str>| {
        let mut c = Command::new("openssl");
        c.args(["s_client", "-connect", &format!("127.0.0.1:{}", site.port)]);
        match servername {
            Some(n) => c.args(["-servername", n]),
            None => c.arg("-noservername"),
        };
        let out = c.stdin(Stdio::null()).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.lines()
            .find(|l| l.starts_with("subject="))
            .unwrap_or_else(|| panic!("no subject: {text}"))
            .to_string()
    };
    // `subject=CN = public id:keel-test` (the leaf's CN is its name)
    for (asked, cn) in [
        (Some("octavia-public.openstack.svc"), "public"),
        (Some("octavia-internal.openstack.svc"), "internal"),
        (None, "internal"),
    ] {
        let s = subject(asked);
        assert!(
            s.contains(&format!("{cn} id:keel-test")),
            "SNI {asked:?}: {s}"
        );
    }
    let root = site.path("httpd").display().to_string();
    site.run(&["httpd", "-k", "graceful-stop", "-d", &root]);
    let st = wait_for(
        "exit after -k graceful-stop",
        Duration::from_secs(60),
        || {
            child
                .try_wait()
                .unwrap()
                .ok_or_else(|| "running".to_string())
        },
    );
    assert_eq!(st.code(), Some(0), "{}", site.console());
}
