//! A peer of `keel serve` that is down (connections refused, pooled connections reset) or
//! frozen (connections accepted, nothing answered: a SIGSTOPped server) makes Keel answer
//! 503 with an Octavia fault naming that peer, within the bound configured for it, never a
//! 500 — and the first request after the peer is back is served again (dead pooled
//! connections are dropped, not handed out).
//!
//! Each peer is the stack's real service behind a [`Proxy`] the test controls: MariaDB
//! (`[database] pool_timeout`), Keystone (`[keystone_authtoken] http_connect_timeout`),
//! Neutron (`[neutron] timeout`). The bounds are test timeouts (curl `-m`), not asserted
//! durations. The Keels run with `[keel] run_agent = false`: they never take the machine's
//! NB agent lock.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{Backend, Keel, NeutronNet, env, wait_for};
use serde_json::{Value, json};

/// What the proxy does with connections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Forward bytes both ways.
    Up,
    /// Not listening (connect refused); open connections were reset.
    Down,
    /// Accept, forward nothing either way (bytes wait in the socket buffers).
    Frozen,
}

struct Shared {
    mode: Mutex<Mode>,
    conns: Mutex<Vec<TcpStream>>,
    stop: AtomicBool,
}

impl Shared {
    /// The mode now, the lock released on return: a pump that held the guard through its
    /// 20 ms sleep (`match *lock() { Frozen => sleep }`) re-took it at once, and two such pumps
    /// starved `Proxy::set` — the test never unfroze the NB and hung until the runner's kill.
    fn mode(&self) -> Mode {
        *self.mode.lock().unwrap()
    }
}

/// A TCP forwarder on 127.0.0.1:`port` to `upstream`, one thread per direction of each
/// connection. Stopped (and its connections closed) on drop.
struct Proxy {
    port: u16,
    shared: Arc<Shared>,
}

impl Proxy {
    fn start(upstream: &str) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let shared = Arc::new(Shared {
            mode: Mutex::new(Mode::Up),
            conns: Mutex::new(Vec::new()),
            stop: AtomicBool::new(false),
        });
        let s = shared.clone();
        let upstream = upstream.to_string();
        std::thread::spawn(move || accept_loop(Some(listener), port, &upstream, &s));
        Proxy { port, shared }
    }

    fn mode(&self) -> Mode {
        self.shared.mode()
    }

    fn set(&self, mode: Mode) {
        *self.shared.mode.lock().unwrap() = mode;
        if mode == Mode::Down {
            self.reset_all();
        }
    }

    /// Closes every open connection (as a server restart does), keeping the mode.
    fn reset_all(&self) {
        for c in self.shared.conns.lock().unwrap().drain(..) {
            let _ = c.shutdown(Shutdown::Both);
        }
    }

    fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        self.set(Mode::Down);
    }
}

fn accept_loop(mut listener: Option<TcpListener>, port: u16, upstream: &str, s: &Arc<Shared>) {
    while !s.stop.load(Ordering::SeqCst) {
        let mode = s.mode();
        match (mode, listener.is_some()) {
            (Mode::Down, true) => listener = None,
            (Mode::Up | Mode::Frozen, false) => {
                listener = TcpListener::bind(("127.0.0.1", port)).ok();
            }
            _ => {}
        }
        let Some(l) = &listener else {
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        l.set_nonblocking(true).unwrap();
        match l.accept() {
            Ok((client, _)) => {
                let s = s.clone();
                let upstream = upstream.to_string();
                std::thread::spawn(move || serve(client, &upstream, &s));
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(10))
            }
            Err(e) => panic!("proxy accept: {e}"),
        }
    }
}

fn serve(client: TcpStream, upstream: &str, s: &Arc<Shared>) {
    client.set_nonblocking(false).unwrap();
    s.conns.lock().unwrap().push(client.try_clone().unwrap());
    // a connection accepted while frozen waits, unanswered, until the peer is back
    loop {
        match s.mode() {
            Mode::Frozen => {}
            Mode::Down => return,
            Mode::Up => break,
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let Ok(server) = TcpStream::connect(upstream) else {
        let _ = client.shutdown(Shutdown::Both);
        return;
    };
    s.conns.lock().unwrap().push(server.try_clone().unwrap());
    let (c2, s2) = (client.try_clone().unwrap(), server.try_clone().unwrap());
    let sh = s.clone();
    std::thread::spawn(move || pump(c2, s2, &sh));
    pump(server, client, s);
}

fn pump(mut from: TcpStream, mut to: TcpStream, s: &Arc<Shared>) {
    from.set_read_timeout(Some(Duration::from_millis(50)))
        .unwrap();
    let mut buf = [0u8; 16384];
    loop {
        match s.mode() {
            Mode::Down => break,
            Mode::Frozen => {
                std::thread::sleep(Duration::from_millis(20));
                continue;
            }
            Mode::Up => {}
        }
        match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                // bytes read just as the freeze began are held with the rest
                let mut mode = s.mode();
                while mode == Mode::Frozen {
                    std::thread::sleep(Duration::from_millis(20));
                    mode = s.mode();
                }
                if mode == Mode::Down || to.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(_) => break,
        }
    }
    let _ = from.shutdown(Shutdown::Both);
    let _ = to.shutdown(Shutdown::Both);
}

/// `curl` with an overall bound of `max_secs`: (status, body). Panics when no answer came in
/// that time — the bound this test proves.
fn call(
    keel: &Keel,
    method: &str,
    path: &str,
    token: &str,
    body: Option<&Value>,
    max_secs: u32,
) -> (u16, Value) {
    let mut cmd = Command::new("curl");
    cmd.args(["-sS", "-m", &max_secs.to_string(), "-X", method])
        .args([
            "-w",
            "\n%{http_code}",
            "-H",
            "Content-Type: application/json",
        ])
        .arg("-H")
        .arg(format!("X-Auth-Token: {token}"));
    if let Some(b) = body {
        cmd.arg("-d").arg(b.to_string());
    }
    let out = cmd.arg(format!("{}{path}", keel.url())).output().unwrap();
    assert!(
        out.status.success(),
        "{method} {path}: no answer within {max_secs} s ({}); keel log:\n{}",
        String::from_utf8_lossy(&out.stderr),
        keel.log()
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let (body, code) = text.rsplit_once('\n').unwrap();
    (
        code.trim().parse().unwrap(),
        serde_json::from_str(body).unwrap_or(Value::Null),
    )
}

/// Asserts a 503 Octavia fault with `text`.
fn assert_unavailable(what: &str, (code, body): (u16, Value), text: &str) {
    assert_eq!(code, 503, "{what}: {body}");
    assert_eq!(
        body,
        json!({"faultcode": "Server", "faultstring": text, "debuginfo": null}),
        "{what}"
    );
}

/// The curl bound of a request to a Keel whose peer is down: above the 8 s configured for
/// Keystone/Neutron (a loaded 2-core machine needs the margin), below the 30 s the HTTP
/// client and the MariaDB pool waited before.
const BOUND: u32 = 25;

/// Calls `f` until it answers `want` (a peer that is back may still be slow on a loaded
/// machine: 60 s), returning that body; panics with the last answer.
fn served(what: &str, mut f: impl FnMut() -> (u16, Value), want: u16) -> Value {
    wait_for(what, Duration::from_secs(60), || match f() {
        (c, b) if c == want => Ok(b),
        other => Err(format!("{other:?}")),
    })
}

const DB_DOWN: &str = "The database service is temporarily unavailable.";
const NEUTRON_DOWN: &str = "The Neutron service is temporarily unavailable.";
const KEYSTONE_DOWN: &str = "The Keystone service is temporarily unavailable.";

/// `[keel] run_agent = false` plus `extra` appended (later sections win nothing: the keys
/// are new).
fn no_agent(conf: String, extra: &str) -> String {
    format!("{conf}[keel]\nrun_agent = false\n{extra}")
}

/// The `host:port` of `db`'s server (the stack slot's MariaDB), from its URL.
fn db_server(db: &common::MariaDb) -> String {
    let url = db.url();
    let (server, _) = url.rsplit_once('/').unwrap();
    server.rsplit_once('@').unwrap().1.to_string()
}

/// MariaDB refused, reset under a pooled connection, and frozen: every request answers the
/// database 503 within `pool_timeout` (+ margin), and once it is back the very first request
/// is served (the read that met a dead connection ran again on another; the pool pinged the
/// rest and reconnected).
#[test]
fn database_outage_answers_503_naming_the_database_then_recovers() {
    let db = common::MariaDb::create();
    let server = db_server(&db);
    let proxy = Proxy::start(&server);
    let url = db.url().replace(&server, &proxy.addr());
    assert_ne!(url, db.url(), "the DB URL must go through the proxy");
    let keel = Keel::start_with(Backend::Shared(url.clone()), |c| {
        no_agent(
            c.replace("[database]\n", "[database]\npool_timeout = 4\n"),
            "",
        )
    });
    let token = common::demo_token();
    let list = |max| call(&keel, "GET", "/v2/lbaas/loadbalancers", &token, None, max);
    let create = |max| {
        call(
            &keel,
            "POST",
            "/v2/lbaas/listeners",
            &token,
            Some(
                &json!({"listener": {"loadbalancer_id": uuid::Uuid::new_v4().to_string(),
                "protocol": "TCP", "protocol_port": 80}}),
            ),
            max,
        )
    };
    served("GET before the outage", || list(BOUND), 200);
    assert_eq!(create(BOUND).0, 404, "the DB answers: an unknown LB");

    // down: refused, and the pooled connections were reset
    proxy.set(Mode::Down);
    assert_unavailable("GET, database down", list(BOUND), DB_DOWN);
    assert_unavailable("POST, database down", create(BOUND), DB_DOWN);

    // back: the first request is served
    proxy.set(Mode::Up);
    let (code, body) = list(BOUND);
    assert_eq!(code, 200, "first GET after the database is back: {body}");

    // a restart between two requests: every pooled connection is dead, none is handed out
    for _ in 0..3 {
        assert_eq!(list(BOUND).0, 200);
    }
    proxy.reset_all();
    let (code, body) = list(BOUND);
    assert_eq!(
        code, 200,
        "first GET after the connections were reset: {body}"
    );
    assert_eq!(create(BOUND).0, 404);

    // frozen: connections accepted, nothing answers
    proxy.set(Mode::Frozen);
    assert_unavailable("GET, database frozen", list(BOUND), DB_DOWN);
    assert_unavailable("POST, database frozen", create(BOUND), DB_DOWN);
    proxy.set(Mode::Up);
    let (code, body) = list(BOUND);
    assert_eq!(code, 200, "first GET after the freeze: {body}");
    assert_eq!(proxy.mode(), Mode::Up);
}

/// Keystone refused, then frozen, while a token Keel has not seen is validated: 503 with
/// keystonemiddleware's text within `http_connect_timeout` (+ margin), not after Keystone
/// comes back; the same token is accepted once it is back.
#[test]
fn keystone_outage_answers_503_within_the_bound() {
    let keystone = env("STACK_KEYSTONE_URL");
    let upstream = keystone
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_string();
    let proxy = Proxy::start(&upstream);
    let via = keystone.replace(&upstream, &proxy.addr());
    let keel = Keel::start_with(Backend::Sqlite, |c| {
        // only the token validation goes through the proxy; [service_auth] stays direct
        let (head, tail) = c.split_once("[service_auth]").unwrap();
        let head = head.replace(&keystone, &via).replace(
            &format!("http_connect_timeout = {}\n", common::KEYSTONE_BOUND),
            "http_connect_timeout = 8\n",
        );
        assert!(head.contains("http_connect_timeout = 8\n"), "{head}");
        no_agent(format!("{head}[service_auth]{tail}"), "")
    });
    let get = |token: &str| call(&keel, "GET", "/v2/lbaas/loadbalancers", token, None, BOUND);
    served("GET before the outage", || get(&common::demo_token()), 200);

    proxy.set(Mode::Down);
    assert_unavailable(
        "fresh token, Keystone down",
        get(&common::demo_token()),
        KEYSTONE_DOWN,
    );
    proxy.set(Mode::Frozen);
    let fresh = common::demo_token();
    assert_unavailable("fresh token, Keystone frozen", get(&fresh), KEYSTONE_DOWN);
    proxy.set(Mode::Up);
    served("the same token once Keystone is back", || get(&fresh), 200);
}

/// Neutron refused, then frozen: a load balancer create (its VIP subnet is looked up first)
/// answers the Neutron 503 within `[neutron] timeout` (+ margin) and leaves nothing behind;
/// once Neutron is back the same create succeeds.
#[test]
fn neutron_outage_answers_503_naming_neutron() {
    let net = NeutronNet::create(&common::tag(), &[]);
    let neutron = env("STACK_NEUTRON_URL");
    let upstream = neutron.trim_start_matches("http://").to_string();
    let proxy = Proxy::start(&upstream);
    let via = format!("http://{}", proxy.addr());
    let keel = Keel::start_with(Backend::Sqlite, |c| {
        no_agent(
            c.replace(
                &format!("[neutron]\nendpoint = {neutron}\n"),
                &format!("[neutron]\nendpoint = {via}\ntimeout = 8\n"),
            ),
            "",
        )
    });
    let token = common::demo_token();
    let body = json!({"loadbalancer": {"vip_subnet_id": net.subnet, "provider": "ovn"}});
    let create = || {
        call(
            &keel,
            "POST",
            "/v2/lbaas/loadbalancers",
            &token,
            Some(&body),
            BOUND,
        )
    };
    let count = || keel.sql("SELECT COUNT(*) FROM load_balancer");
    // the token validated while Neutron is up (Keystone is not the peer under test)
    let list = || call(&keel, "GET", "/v2/lbaas/loadbalancers", &token, None, BOUND);
    served("GET before the outage", list, 200);

    proxy.set(Mode::Down);
    assert_unavailable("LB create, Neutron down", create(), NEUTRON_DOWN);
    proxy.set(Mode::Frozen);
    assert_unavailable("LB create, Neutron frozen", create(), NEUTRON_DOWN);
    assert_eq!(count(), "0", "a refused create leaves no row");

    proxy.set(Mode::Up);
    let out = served("LB create once Neutron is back", create, 201);
    let lb = out["loadbalancer"]["id"].as_str().unwrap().to_string();
    let _rows = common::LbGuard(lb.clone());
    keel.wait_lb_active(&token, &lb);
    keel.delete_lb_cascade(&token, &lb);
}

/// How many times `keel serve` logged `needle` so far.
fn logged(keel: &Keel, needle: &str) -> usize {
    keel.log().matches(needle).count()
}

const NB_DOWN: &str = "The OVN Northbound service is temporarily unavailable.";
const NB_LOST: &str = "OVSDB connection lost or unusable; reconnecting";
const NB_SYNCED: &str = "OVSDB replica synced";

/// The OVN NB refused, then frozen (found out by the inactivity probe): once Keel's NB
/// connection is down for longer than `[keel] nb_unavailable_after`, a load balancer create
/// answers 503 naming the OVN Northbound, before any row or VIP port is made; after the
/// reconnection the same create succeeds.
#[test]
fn nb_outage_answers_503_naming_the_ovn_northbound() {
    let net = NeutronNet::create(&common::tag(), &[]);
    let nb = env("STACK_OVN_NB");
    let upstream = nb.trim_start_matches("tcp:").to_string();
    let proxy = Proxy::start(&upstream);
    let keel = Keel::start_with(Backend::Sqlite, |c| {
        no_agent(
            c.replace(
                &format!("ovn_nb_connection = {nb}\n"),
                &format!(
                    "ovn_nb_connection = tcp:{}\novsdb_probe_interval = 500\n\
                     ovsdb_retry_max_interval = 1\novsdb_connection_timeout = 2\n",
                    proxy.addr()
                ),
            ),
            "nb_unavailable_after = 0.001\n",
        )
    });
    let token = common::demo_token();
    let body = json!({"loadbalancer": {"vip_subnet_id": net.subnet, "provider": "ovn"}});
    let create = || {
        call(
            &keel,
            "POST",
            "/v2/lbaas/loadbalancers",
            &token,
            Some(&body),
            BOUND,
        )
    };
    let list = || call(&keel, "GET", "/v2/lbaas/loadbalancers", &token, None, BOUND);
    served("GET before the outage", list, 200);
    let ports = || {
        let (code, b) = common::http(
            "GET",
            &format!(
                "{}/v2.0/ports?network_id={}",
                env("STACK_NEUTRON_URL"),
                net.net
            ),
            Some(&common::admin_token()),
            None,
        );
        assert_eq!(code, 200, "{b}");
        b["ports"].as_array().unwrap().len()
    };
    let ports_before = ports();

    for mode in [Mode::Down, Mode::Frozen] {
        let lost = logged(&keel, NB_LOST);
        let synced = logged(&keel, NB_SYNCED);
        proxy.set(mode);
        wait_for(
            "Keel sees the NB connection lost",
            Duration::from_secs(20),
            || {
                (logged(&keel, NB_LOST) > lost)
                    .then_some(())
                    .ok_or_else(|| format!("{mode:?}"))
            },
        );
        assert_unavailable(&format!("LB create, NB {mode:?}"), create(), NB_DOWN);
        assert_eq!(keel.sql("SELECT COUNT(*) FROM load_balancer"), "0");
        assert_eq!(
            ports(),
            ports_before,
            "no VIP port made while the NB is {mode:?}"
        );
        proxy.set(Mode::Up);
        wait_for("Keel back on the NB", Duration::from_secs(20), || {
            (logged(&keel, NB_SYNCED) > synced)
                .then_some(())
                .ok_or_else(|| keel.log())
        });
    }
    let out = served("LB create once the NB is back", create, 201);
    let lb = out["loadbalancer"]["id"].as_str().unwrap().to_string();
    let _rows = common::LbGuard(lb.clone());
    keel.wait_lb_active(&token, &lb);
    keel.delete_lb_cascade(&token, &lb);
}

/// `curl -I`-style status of an unauthenticated `method <path>` (no token), within 5 s.
fn probe(keel: &Keel, method: &str, path: &str) -> u16 {
    let mut cmd = Command::new("curl");
    cmd.args(["-s", "-m", "5", "-o", "/dev/null", "-w", "%{http_code}"]);
    if method == "HEAD" {
        cmd.arg("-I");
    }
    let out = cmd.arg(format!("{}{path}", keel.url())).output().unwrap();
    String::from_utf8_lossy(&out.stdout).parse().unwrap_or(0)
}

/// The deployment tools' health checks while the database is away (a Galera failover): the
/// unauthenticated version document `GET /` and `HEAD /` (kolla's HAProxy `httpchk GET /`,
/// `healthcheck_curl`) answer 200, and `/healthcheck` without `octavia_db_check` (helm's and
/// OSA's probes, oslo.middleware's default: no backends) answers as when the database is up
/// (GET 204 through Octavia's pecan, HEAD 204), so no container is killed by its own probe;
/// with `backends = octavia_db_check` it answers 503 as Octavia's check does, and 200 again
/// once the database is back.
#[test]
fn health_checks_answer_while_the_database_is_away() {
    let db = common::MariaDb::create();
    let server = db_server(&db);
    let proxy = Proxy::start(&server);
    let url = db.url().replace(&server, &proxy.addr());
    assert_ne!(url, db.url(), "the DB URL must go through the proxy");
    let plain = Keel::start_with(Backend::Shared(url.clone()), |c| {
        no_agent(
            c.replace("[database]\n", "[database]\npool_timeout = 2\n")
                .replace(
                    "[api_settings]\n",
                    "[api_settings]\nhealthcheck_enabled = true\n",
                ),
            "",
        )
    });
    let checked = Keel::start_with(Backend::Shared(url), |c| {
        no_agent(
            c.replace("[database]\n", "[database]\npool_timeout = 2\n")
                .replace(
                    "[api_settings]\n",
                    "[api_settings]\nhealthcheck_enabled = true\n",
                ),
            "[healthcheck]\nbackends = octavia_db_check\n",
        )
    });
    let all = |k: &Keel| {
        [
            probe(k, "GET", "/"),
            probe(k, "HEAD", "/"),
            probe(k, "GET", "/healthcheck"),
            probe(k, "HEAD", "/healthcheck"),
        ]
    };
    assert_eq!(all(&plain), [200, 200, 204, 204]);
    assert_eq!(all(&checked), [200, 200, 200, 204]);

    proxy.set(Mode::Down);
    assert_eq!(all(&plain), [200, 200, 204, 204], "database down");
    // octavia_db_check reuses its result for healthcheck_refresh_interval (5 s).
    wait_for(
        "octavia_db_check failing",
        Duration::from_secs(30),
        || match all(&checked) {
            [200, 200, 503, 503] => Ok(()),
            other => Err(format!("{other:?}")),
        },
    );
    assert_eq!(all(&plain), [200, 200, 204, 204], "database still down");

    proxy.set(Mode::Up);
    wait_for(
        "octavia_db_check healthy again",
        Duration::from_secs(30),
        || match all(&checked) {
            [200, 200, 200, 204] => Ok(()),
            other => Err(format!("{other:?}")),
        },
    );
}
