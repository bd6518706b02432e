//! The amphora provider under faults, against real parts: a real `keel serve` casting over
//! real RabbitMQ nodes to real Python `octavia-worker` processes (Octavia 19.0.0, upstream's
//! noop drivers) that share Keel's database. Every process a test breaks is one the test
//! started itself (its own workers, its own RabbitMQ nodes), stopped by PID on drop, also when
//! the test fails; the stack's own node and worker are never touched.
//!
//! * [`a_stopped_worker_loses_nothing`]: with the test's worker SIGKILLed, amphora writes
//!   through Keel are still answered 201 at once (RabbitMQ confirmed the cast), the messages
//!   wait in the queue `octavia_provisioning_v2` (`rabbitmqctl list_queues`: 2 messages, 0
//!   consumers) and the objects stay PENDING_*; a new worker on the same queue takes every
//!   object to ACTIVE and empties the queue. (The queue is oslo's default: durable false,
//!   auto_delete false: it outlives its consumers, not a broker restart.)
//! * [`a_killed_rabbitmq_node_of_a_multi_host_url_fails_over`]: `transport_url =
//!   rabbit://…@127.0.0.1:A,…@127.0.0.1:B/` (oslo's multi-host form) over two independent
//!   nodes, each with a worker. Keel picks one host (oslo shuffles them), the test finds which
//!   (`rabbitmqctl list_connections`: Keel's `connection_name` `keel:<pid>:<uuid>`), a cast
//!   through it goes ACTIVE, then that node's beam is SIGKILLed: the very next write through
//!   the same Keel process is answered 201, Keel is now connected to the other node and the
//!   object goes ACTIVE through the worker there; nothing is left PENDING_*. (Measured: Keel
//!   sees the loss at once, the peer's RST, redials the dead host after
//!   `kombu_reconnect_delay` = 1 s, is refused and fails over at once; the write waits for
//!   that inside its cast bound, `rpc_cast_timeout = 3`, and is answered after ~1 s.)
//!
//! Needs `ci/stack/up.sh` with its RabbitMQ node and worker (`STACK_TRANSPORT_URL`,
//! `STACK_RABBITMQCTL`, `STACK_WORKER_CONF`, `STACK_WORKER_DB` from `ci/stack/env.sh`; the
//! venv's `octavia-worker` on PATH), Keystone; no Neutron (noop network driver). The first
//! test adds a vhost `keel-faults-<tag>` on the stack's node (deleted on drop); the second
//! starts two throw-away nodes with `ci/stack/rabbitmq.sh` in the first two slots of 1–8 whose
//! RabbitMQ ports are free (slots 1 and 2 on a bare machine: AMQP 6672 and 7672, see
//! ci/stack/README.md "Extra nodes"; a slot another checkout's stack runs is passed over), each
//! in its own temp state directory. Run
//! through `ci/test.sh` (serial: every `keel::*` binary runs `keel serve`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::amphora::{
    amphora_conf, keel_on_worker_db, post, rabbitmqctl, run_ctl, wait_gone, wait_status,
};
use common::{Keel, demo_token, env, tag, wait_for};
use serde_json::json;

/// The queue every worker consumes casts from (topic `octavia_provisioning_v2`, no server).
const QUEUE: &str = "octavia_provisioning_v2";

/// `rabbit://octavia:…@127.0.0.1:<port>` of the stack's credentials (every node of
/// `rabbitmq.sh` loads the same user), without the path.
fn rabbit_host(port: u16) -> String {
    format!("octavia:octavia-mq-pass@127.0.0.1:{port}")
}

/// Whether process `pid` exists and is not a zombie.
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            s.rsplit_once(')')
                .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z'))
        })
        .unwrap_or(false)
}

fn cmdline(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
        .unwrap_or_default()
}

fn signal(sig: &str, target: &str) {
    let _ = Command::new("kill")
        .args([sig, "--", target])
        .stderr(Stdio::null())
        .status();
}

/// `name messages consumers` of [`QUEUE`] on a node (`ctl`: its rabbitmqctl command line) in
/// `vhost`; `None` while the queue does not exist.
fn queue_state(ctl: &[String], vhost: &str) -> Option<(u64, u64)> {
    let out = run_ctl(
        ctl,
        &[
            "list_queues",
            "-q",
            "-p",
            vhost,
            "name",
            "messages",
            "consumers",
        ],
    );
    out.lines().find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        match f[..] {
            [name, m, c] if name == QUEUE => Some((m.parse().ok()?, c.parse().ok()?)),
            _ => None,
        }
    })
}

/// Waits (120 s: a worker's start is 5–20 s of Python imports here) until [`QUEUE`] has a
/// consumer, with `worker` alive.
fn wait_consuming(ctl: &[String], vhost: &str, worker: &mut Worker) {
    wait_for(
        &format!("a consumer on {QUEUE} (vhost {vhost})"),
        Duration::from_secs(120),
        || {
            if let Ok(Some(st)) = worker.child.try_wait() {
                panic!("octavia-worker exited ({st}): {}", worker.log_tail());
            }
            match queue_state(ctl, vhost) {
                Some((_, c)) if c >= 1 => Ok(()),
                other => Err(format!("{other:?}")),
            }
        },
    );
}

/// Whether `keel`'s AMQP connection (client property `connection_name` =
/// `keel:<pid>:<uuid>`, oslo's form) is among a node's connections.
fn keel_connected_to(ctl: &[String], keel: &Keel) -> bool {
    run_ctl(ctl, &["list_connections", "-q", "client_properties"])
        .contains(&format!("keel:{}:", keel.pid()))
}

/// A Python `octavia-worker` of the test: `$STACK_WORKER_CONF` with another `transport_url`,
/// `host`, `log_file` and lock path, in a process group of its own (cotyledon's master and
/// its `ConsumerService` child). Killed (the whole group, SIGKILL) on drop.
struct Worker {
    child: Child,
    dir: tempfile::TempDir,
}

impl Worker {
    fn start(transport_url: &str, name: &str) -> Worker {
        let dir = tempfile::Builder::new()
            .prefix("keel-faults-worker")
            .tempdir()
            .unwrap();
        let d = dir.path().display();
        let base = std::fs::read_to_string(env("STACK_WORKER_CONF")).unwrap();
        let conf: String = base
            .lines()
            .map(|l| {
                let key = l.split('=').next().unwrap_or_default().trim();
                match key {
                    "transport_url" => format!("transport_url = {transport_url}"),
                    "host" => format!("host = keel-faults-{name}"),
                    "log_file" => format!("log_file = {d}/worker.log"),
                    "lock_path" => format!("lock_path = {d}"),
                    _ => l.to_string(),
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        assert!(conf.contains(transport_url), "{conf}");
        let path = dir.path().join("octavia.conf");
        std::fs::write(&path, conf).unwrap();
        let out = std::fs::File::create(dir.path().join("stdout.log")).unwrap();
        let child = Command::new("octavia-worker")
            .arg("--config-file")
            .arg(&path)
            .env("PYTHONWARNINGS", "ignore::DeprecationWarning")
            .stdin(Stdio::null())
            .stdout(Stdio::from(out.try_clone().unwrap()))
            .stderr(Stdio::from(out))
            .process_group(0)
            .spawn()
            .expect("octavia-worker of the stack venv on PATH (source ci/stack/env.sh)");
        Worker { child, dir }
    }

    fn log_tail(&self) -> String {
        let mut s = String::new();
        for f in ["worker.log", "stdout.log"] {
            let text = std::fs::read_to_string(self.dir.path().join(f)).unwrap_or_default();
            let lines: Vec<&str> = text.lines().collect();
            s += &format!(
                "--- {f}\n{}\n",
                lines[lines.len().saturating_sub(30)..].join("\n")
            );
        }
        s
    }

    /// SIGKILL to the worker's whole process group (a crash, `docker kill`), then waits until
    /// no process of the group is left.
    fn kill(&mut self) {
        let pgid = self.child.id();
        signal("-KILL", &format!("-{pgid}"));
        let _ = self.child.wait();
        wait_for(
            "the worker's process group gone",
            Duration::from_secs(10),
            || {
                let left: Vec<u32> = std::fs::read_dir("/proc")
                    .unwrap()
                    .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
                    .filter(|p| {
                        std::fs::read_to_string(format!("/proc/{p}/stat")).is_ok_and(|s| {
                            s.rsplit_once(')')
                                .and_then(|(_, r)| r.split_whitespace().nth(2))
                                .is_some_and(|g| g == pgid.to_string())
                        }) && alive(*p)
                    })
                    .collect();
                if left.is_empty() {
                    Ok(())
                } else {
                    Err(format!("{left:?}"))
                }
            },
        );
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("octavia-worker {:?}:\n{}", self.dir.path(), self.log_tail());
        }
        if matches!(self.child.try_wait(), Ok(None)) {
            self.kill();
        }
    }
}

/// A test vhost on the stack's node, the stack's user allowed on it; deleted on drop (with its
/// queues and connections).
struct Vhost(String);

impl Vhost {
    fn create() -> Vhost {
        let name = format!("keel-faults-{}", tag());
        rabbitmqctl(&["add_vhost", &name]);
        let v = Vhost(name);
        rabbitmqctl(&["set_permissions", "-p", &v.0, "octavia", ".*", ".*", ".*"]);
        v
    }
}

impl Drop for Vhost {
    fn drop(&mut self) {
        rabbitmqctl(&["delete_vhost", &self.0]);
    }
}

/// A throw-away RabbitMQ node of `ci/stack/rabbitmq.sh` (the stack's own script, found beside
/// `STACK_RABBITMQCTL`) in slot `slot` (AMQP 5672 + slot×1000, its own epmd), with a temp
/// `STACK_STATE`. On drop: its beam SIGKILLed, its epmd and `rabbitmq-server` wrapper
/// SIGTERMed, each by the PID the script recorded, then the state removed.
struct RabbitNode {
    slot: u8,
    state: tempfile::TempDir,
    script: PathBuf,
}

/// The first two stack slots of 1–8 on whose RabbitMQ ports (AMQP 5672, distribution 25672,
/// epmd 4369, each + slot × 1000) nothing listens: a slot-N stack running beside this one
/// (ci/stack/README.md, "A second stack beside the first") keeps its node and its epmd.
fn free_rabbit_slots() -> [u8; 2] {
    let free = |port: u16| std::net::TcpListener::bind(("127.0.0.1", port)).is_ok();
    let slots: Vec<u8> = (1..=8u8)
        .filter(|s| {
            let off = u16::from(*s) * 1000;
            [5672, 25672, 4369].iter().all(|p| free(p + off))
        })
        .take(2)
        .collect();
    assert!(
        slots.len() == 2,
        "no two slots of 1-8 with free RabbitMQ ports"
    );
    [slots[0], slots[1]]
}

impl RabbitNode {
    /// `rabbitmq.sh start` (not waiting: see [`RabbitNode::wait_ready`]).
    fn start(slot: u8) -> RabbitNode {
        let state = tempfile::Builder::new()
            .prefix(&format!("keel-faults-rmq{slot}-"))
            .tempdir_in("/var/tmp")
            .unwrap();
        // the node runs as user rabbitmq: it must reach $STACK_STATE/rabbitmq
        std::fs::set_permissions(
            state.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
        let stack_ctl = env("STACK_RABBITMQCTL");
        let script = PathBuf::from(stack_ctl.split_whitespace().next().unwrap());
        let node = RabbitNode {
            slot,
            state,
            script,
        };
        node.script_run("start");
        node
    }

    fn script_cmd(&self) -> Vec<String> {
        vec![
            "env".into(),
            format!("STACK_SLOT={}", self.slot),
            format!("STACK_STATE={}", self.state.path().display()),
            self.script.display().to_string(),
        ]
    }

    fn script_run(&self, sub: &str) {
        run_ctl(&self.script_cmd(), &[sub]);
    }

    /// `rabbitmq.sh wait`: the node logged `Server startup complete` with its port open.
    fn wait_ready(&self) {
        self.script_run("wait");
    }

    /// Its rabbitmqctl command line (`rabbitmq.sh ctl`).
    fn ctl(&self) -> Vec<String> {
        let mut c = self.script_cmd();
        c.push("ctl".into());
        c
    }

    fn port(&self) -> u16 {
        5672 + u16::from(self.slot) * 1000
    }

    /// The PID in `file` (under the state dir) if it names a live process whose command line
    /// contains `what`.
    fn pid(&self, file: &str, what: &str) -> Option<u32> {
        let pid: u32 = std::fs::read_to_string(self.state.path().join(file))
            .ok()?
            .trim()
            .parse()
            .ok()?;
        (alive(pid) && cmdline(pid).contains(what)).then_some(pid)
    }

    fn beam(&self) -> Option<u32> {
        self.pid("rabbitmq/beam.pid", "beam")
    }

    /// SIGKILL to the node's Erlang VM (a crashed host), then waits until it is gone.
    fn kill_beam(&self) {
        let pid = self.beam().expect("the node's beam runs");
        signal("-KILL", &pid.to_string());
        wait_for("the beam gone", Duration::from_secs(10), || {
            if alive(pid) {
                Err(cmdline(pid))
            } else {
                Ok(())
            }
        });
    }
}

impl Drop for RabbitNode {
    fn drop(&mut self) {
        if let Some(pid) = self.beam() {
            signal("-KILL", &pid.to_string());
        }
        for (file, what) in [
            ("run/rabbitmq.pid", "rabbitmq-server"),
            ("run/rabbitmq-epmd.pid", "epmd"),
        ] {
            if let Some(pid) = self.pid(file, what) {
                signal("-TERM", &pid.to_string());
            }
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        for (file, what) in [
            ("rabbitmq/beam.pid", "beam"),
            ("run/rabbitmq.pid", "rabbitmq-server"),
            ("run/rabbitmq-epmd.pid", "epmd"),
        ] {
            while self.pid(file, what).is_some() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
}

fn lb_path(id: &str) -> String {
    format!("/v2/lbaas/loadbalancers/{id}")
}

fn id(v: &serde_json::Value) -> String {
    v["id"].as_str().unwrap().to_string()
}

/// Cascade-deletes each LB through `keel` and waits until the worker marked it DELETED.
fn delete_all(keel: &Keel, token: &str, lbs: &[&str]) {
    for lb in lbs {
        let (code, out) = keel.api(
            "DELETE",
            &format!("{}?cascade=true", lb_path(lb)),
            token,
            None,
        );
        assert_eq!(code, 204, "{out}");
    }
    for lb in lbs {
        wait_gone(keel, token, &lb_path(lb));
    }
}

/// No LB of `lbs` nor any of their listeners left PENDING_* in the database.
fn assert_nothing_pending(keel: &Keel, lbs: &[&str]) {
    let ids = lbs
        .iter()
        .map(|l| format!("'{l}'"))
        .collect::<Vec<_>>()
        .join(",");
    let pending = keel.sql(&format!(
        "SELECT 'lb', id, provisioning_status FROM load_balancer WHERE id IN ({ids}) \
         AND provisioning_status LIKE 'PENDING%' UNION ALL \
         SELECT 'listener', id, provisioning_status FROM listener WHERE load_balancer_id IN ({ids}) \
         AND provisioning_status LIKE 'PENDING%'"
    ));
    assert_eq!(pending, "", "objects left PENDING_*");
}

fn lb_body(name: &str) -> serde_json::Value {
    // the noop network driver takes ids that exist nowhere (no Neutron needed)
    json!({"loadbalancer": {"name": name, "vip_subnet_id": uuid::Uuid::new_v4().to_string()}})
}

fn listener_body(lb: &str, port: u16) -> serde_json::Value {
    json!({"listener": {"loadbalancer_id": lb, "protocol": "HTTP", "protocol_port": port}})
}

/// Times one call, for the report in the test's output and the "at once" bound.
fn timed<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let t0 = Instant::now();
    let out = f();
    let took = t0.elapsed();
    eprintln!("{what}: {took:?}");
    assert!(
        took < Duration::from_secs(10),
        "{what} answered at once, not after {took:?}"
    );
    out
}

#[test]
fn a_stopped_worker_loses_nothing() {
    let vhost = Vhost::create();
    let url = format!("{}{}", env("STACK_TRANSPORT_URL"), vhost.0);
    let stack_ctl: Vec<String> = env("STACK_RABBITMQCTL")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let mut worker = Worker::start(&url, &format!("stop-{}", tag()));
    wait_consuming(&stack_ctl, &vhost.0, &mut worker);
    let keel = keel_on_worker_db(&amphora_conf(&url, "network_noop_driver"));
    let demo = demo_token();

    // with the worker up: a create goes ACTIVE
    let lb1 = id(&post(
        &keel,
        &demo,
        "/v2/lbaas/loadbalancers",
        lb_body("faults-before-stop"),
    ));
    wait_status(&keel, &demo, &lb_path(&lb1), "loadbalancer", "ACTIVE");

    // the worker killed: RabbitMQ sees its consumer go
    worker.kill();
    wait_for(
        "no consumer left",
        Duration::from_secs(30),
        || match queue_state(&stack_ctl, &vhost.0) {
            Some((0, 0)) => Ok(()),
            other => Err(format!("{other:?}")),
        },
    );

    // amphora writes meanwhile: each answered 201 at once, the cast confirmed by RabbitMQ
    let lb2 = timed("LB create with the worker down", || {
        post(
            &keel,
            &demo,
            "/v2/lbaas/loadbalancers",
            lb_body("faults-while-stopped"),
        )
    });
    assert_eq!(lb2["provisioning_status"], "PENDING_CREATE", "{lb2}");
    let lb2 = id(&lb2);
    let listener = timed("listener create with the worker down", || {
        post(&keel, &demo, "/v2/lbaas/listeners", listener_body(&lb1, 80))
    });
    assert_eq!(
        listener["provisioning_status"], "PENDING_CREATE",
        "{listener}"
    );
    let l_path = format!("/v2/lbaas/listeners/{}", id(&listener));

    // both casts wait in the worker's queue, nobody consuming; the objects stay pending
    assert_eq!(
        queue_state(&stack_ctl, &vhost.0),
        Some((2, 0)),
        "the two casts wait in {QUEUE}"
    );
    for (path, key, want) in [
        (lb_path(&lb2), "loadbalancer", "PENDING_CREATE"),
        (l_path.clone(), "listener", "PENDING_CREATE"),
        (lb_path(&lb1), "loadbalancer", "PENDING_UPDATE"),
    ] {
        let (code, body) = keel.api("GET", &path, &demo, None);
        assert_eq!(code, 200, "{body}");
        assert_eq!(body[key]["provisioning_status"], want, "{path}: {body}");
    }

    // a worker again: it takes both messages and every object goes ACTIVE
    let mut worker = Worker::start(&url, &format!("again-{}", tag()));
    let t0 = Instant::now();
    wait_status(&keel, &demo, &lb_path(&lb2), "loadbalancer", "ACTIVE");
    wait_status(&keel, &demo, &l_path, "listener", "ACTIVE");
    wait_status(&keel, &demo, &lb_path(&lb1), "loadbalancer", "ACTIVE");
    eprintln!("all ACTIVE {:?} after the new worker's start", t0.elapsed());
    wait_consuming(&stack_ctl, &vhost.0, &mut worker);
    wait_for(
        "the queue drained",
        Duration::from_secs(30),
        || match queue_state(&stack_ctl, &vhost.0) {
            Some((0, c)) if c >= 1 => Ok(()),
            other => Err(format!("{other:?}")),
        },
    );
    assert_nothing_pending(&keel, &[&lb1, &lb2]);

    delete_all(&keel, &demo, &[&lb1, &lb2]);
}

#[test]
fn a_killed_rabbitmq_node_of_a_multi_host_url_fails_over() {
    // two independent nodes (started together: ~10 s each), a worker on each
    let [a, b] = free_rabbit_slots();
    let nodes = [RabbitNode::start(a), RabbitNode::start(b)];
    for n in &nodes {
        n.wait_ready();
    }
    let mut workers: Vec<Worker> = nodes
        .iter()
        .map(|n| {
            Worker::start(
                &format!("rabbit://{}/", rabbit_host(n.port())),
                &format!("node{}-{}", n.slot, tag()),
            )
        })
        .collect();
    for (n, w) in nodes.iter().zip(workers.iter_mut()) {
        wait_consuming(&n.ctl(), "/", w);
    }
    let url = format!(
        "rabbit://{},{}/",
        rabbit_host(nodes[0].port()),
        rabbit_host(nodes[1].port())
    );
    let keel = keel_on_worker_db(&amphora_conf(&url, "network_noop_driver"));
    let demo = demo_token();

    // Keel connects to one host of the URL (oslo shuffles them): which one
    let (first, other) = wait_for(
        "Keel connected to one node",
        Duration::from_secs(30),
        || {
            let on: Vec<bool> = nodes
                .iter()
                .map(|n| keel_connected_to(&n.ctl(), &keel))
                .collect();
            match on[..] {
                [true, false] => Ok((&nodes[0], &nodes[1])),
                [false, true] => Ok((&nodes[1], &nodes[0])),
                _ => Err(format!("connected to [slot {a}, slot {b}]: {on:?}")),
            }
        },
    );
    eprintln!(
        "Keel connected to the node on port {}; the other is on {}",
        first.port(),
        other.port()
    );

    // a cast through it, taken ACTIVE by that node's worker
    let lb1 = id(&post(
        &keel,
        &demo,
        "/v2/lbaas/loadbalancers",
        lb_body("faults-before-node-kill"),
    ));
    wait_status(&keel, &demo, &lb_path(&lb1), "loadbalancer", "ACTIVE");
    assert!(
        keel_connected_to(&first.ctl(), &keel),
        "still on the first node"
    );

    // the node Keel is connected to crashes
    first.kill_beam();
    let killed = Instant::now();

    // the next write through the same Keel: 201, through the other node
    let (code, lb2) = keel.api(
        "POST",
        "/v2/lbaas/loadbalancers",
        &demo,
        Some(&lb_body("faults-after-node-kill")),
    );
    let took = killed.elapsed();
    eprintln!("first write after the kill: {code} after {took:?}");
    assert_eq!(
        code,
        201,
        "the first write after the node's kill ({took:?}): {lb2}\n{}",
        keel.log()
    );
    let lb2 = id(&lb2["loadbalancer"]);
    assert!(
        keel_connected_to(&other.ctl(), &keel),
        "Keel now on the other node: {}",
        keel.log()
    );
    wait_status(&keel, &demo, &lb_path(&lb2), "loadbalancer", "ACTIVE");
    // and the one after, on the LB made through the dead node
    let listener = post(&keel, &demo, "/v2/lbaas/listeners", listener_body(&lb1, 81));
    wait_status(
        &keel,
        &demo,
        &format!("/v2/lbaas/listeners/{}", id(&listener)),
        "listener",
        "ACTIVE",
    );
    wait_status(&keel, &demo, &lb_path(&lb1), "loadbalancer", "ACTIVE");
    assert_eq!(
        queue_state(&other.ctl(), "/"),
        Some((0, 1)),
        "the surviving node's worker took every cast"
    );
    assert_nothing_pending(&keel, &[&lb1, &lb2]);
    for line in keel
        .log()
        .lines()
        .filter(|l| l.contains("AMQP server") || l.contains("failing over"))
    {
        eprintln!("keel: {line}");
    }

    delete_all(&keel, &demo, &[&lb1, &lb2]);
    drop(keel);
    drop(workers);
}
