//! One active agent across kinds: a `keel serve` and the Python provider agent
//! (`octavia-driver-agent` of the stack venv, Octavia 19.0.0 + ovn-octavia-provider 11.0.0,
//! whose `provider_agent -- ovn` takes `neutron_ovn_octavia_event_lock` on NB and SB) on one
//! NB/SB and one MariaDB Octavia database, as during a migration. Keel's agent holds the
//! Python agent's lock on both databases as well as its own (`ovn_provider::leadership`), so
//! exactly one of them acts, and the role passes between kinds when the holder dies:
//!
//! 1. Keel first: it holds all three locks; the Python agent started after it waits. A pool
//!    disabled and enabled again keeps both backends in the NB `vips` (with the Python agent
//!    acting too, its OFFLINE-on-monitor-deletion rule emptied `vips`); a monitor `offline`
//!    is turned into member ERROR by Keel.
//! 2. Keel SIGKILLed: the Python agent takes both locks and reports the member's health; a
//!    Keel restarted now finds the locks held and stays passive (`held=false`).
//! 3. The Python agent killed: the waiting Keel takes over and reports health again.
//!
//! Member health is driven by writing the SB `Service_Monitor` row as ovn-controller would
//! ([`common::monitors`]). In the serial set of `ci/test.sh` (it runs `keel serve`). Needs the
//! environment of `ci/stack/env.sh`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::monitors::{Statuses, hold_monitor_until, monitor_of, set_port_up, sorted, statuses};
use common::{Backend, Keel, MariaDb, NeutronNet, env, lock_held_elsewhere, sb_select, wait_for};
use serde_json::json;

/// The Python agent's lock name (ovn_octavia_provider/agent.py `OVN_EVENT_LOCK_NAME`).
const PY_LOCK: &str = "neutron_ovn_octavia_event_lock";

/// A running `octavia-driver-agent` (its own process group: the provider agents are its
/// children) on the stack's `octavia.conf` plus an override naming the test's database and
/// its own log. Its sockets stay at octavia-lib's default paths (`/var/run/octavia/*.sock`):
/// ovn-octavia-provider 11.0.0 builds its `DriverLibrary()` with the defaults, whatever
/// `[driver_agent]` says, so one such agent per machine. Killed with its group on drop.
struct PythonAgent {
    child: Child,
    dir: tempfile::TempDir,
}

impl PythonAgent {
    fn start(db: &MariaDb) -> Self {
        let dir = tempfile::Builder::new()
            .prefix("keel-pyagent")
            .tempdir()
            .unwrap();
        let d = dir.path().display();
        let url = db.url().replacen("mysql://", "mysql+pymysql://", 1);
        let conf = format!(
            "[DEFAULT]\nlog_file = {d}/agent.log\ndebug = True\n[database]\nconnection = {url}\n\
             [driver_agent]\nenabled_provider_agents = ovn\n"
        );
        std::fs::create_dir_all("/var/run/octavia").unwrap();
        let over = dir.path().join("override.conf");
        std::fs::write(&over, conf).unwrap();
        let base = format!("{}/octavia/octavia.conf", env("STACK_ETC"));
        let child = Command::new("octavia-driver-agent")
            .args(["--config-file", &base, "--config-file"])
            .arg(&over)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("octavia-driver-agent of the stack venv (source ci/stack/env.sh)");
        let agent = PythonAgent { child, dir };
        wait_for(
            "the Python provider agent's start line",
            Duration::from_secs(60),
            || {
                let log = agent.log();
                if log.contains("OVN provider agent has started") {
                    Ok(())
                } else {
                    Err(log.lines().rev().take(5).collect::<Vec<_>>().join("\n"))
                }
            },
        );
        agent
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("agent.log")).unwrap_or_default()
    }

    /// SIGKILL to the whole group, as a crash or `docker kill` would.
    fn kill(&mut self) {
        let pgid = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-KILL", "--", &pgid]).status();
        let _ = self.child.wait();
    }
}

impl Drop for PythonAgent {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Both Python locks held by a session that is not the asker's (NB and SB).
fn python_lock_taken() -> bool {
    lock_held_elsewhere(&env("STACK_OVN_NB"), PY_LOCK)
        && lock_held_elsewhere(&env("STACK_OVN_SB"), PY_LOCK)
}

/// The addresses of `member_ips` that appear as backends in the `vips` of the NB
/// `Load_Balancer` row named `lb_id`.
fn backends_in_vips(lb_id: &str, member_ips: &[&str]) -> Vec<String> {
    let rows = common::nb_select("Load_Balancer", json!([["name", "==", lb_id]]));
    let vips: String = rows
        .iter()
        .flat_map(|r| common::map(&r["vips"]))
        .map(|(_, v)| v)
        .collect::<Vec<_>>()
        .join(",");
    member_ips
        .iter()
        .filter(|ip| vips.contains(&format!("{ip}:")))
        .map(|ip| ip.to_string())
        .collect()
}

#[test]
fn one_agent_acts_across_kinds_and_the_role_passes_when_the_holder_dies() {
    let db = MariaDb::create();
    let mut keel = Keel::start(Backend::Shared(db.url()));
    common::monitors::assert_agent_active(&keel);
    assert!(
        python_lock_taken(),
        "the active Keel agent does not hold {PY_LOCK} on both NB and SB"
    );
    let mut python = PythonAgent::start(&db);

    let tag = common::tag();
    let ips = ["10.0.0.10", "10.0.0.11"];
    let neutron = NeutronNet::create(&tag, &ips);
    let token = common::demo_token();
    let graph = keel.create_graph(&token, &format!("kinds-{tag}"), &neutron.subnet, &ips);
    let (lb_id, members) = (graph.lb_id.clone(), graph.members.clone());
    let port = neutron.port_of("10.0.0.10").to_string();
    wait_for(
        "the SB Service_Monitor of 10.0.0.10:8080",
        Duration::from_secs(30),
        || {
            let rows = sb_select("Service_Monitor", monitor_of(&port));
            if rows.len() == 1 {
                Ok(())
            } else {
                Err(format!("{rows:?}"))
            }
        },
    );
    set_port_up(&port);
    let all_online: Statuses = (
        "ONLINE".into(),
        "ONLINE".into(),
        sorted(
            members
                .iter()
                .map(|m| (m.clone(), "ONLINE".to_string()))
                .collect(),
        ),
    );
    let degraded: Statuses = (
        "DEGRADED".into(),
        "DEGRADED".into(),
        sorted(vec![
            (members[0].clone(), "ERROR".into()),
            (members[1].clone(), "ONLINE".into()),
        ]),
    );

    // 1. Keel active, the Python agent waiting: a pool disable/enable round keeps the backends
    let pool = format!("/v2/lbaas/pools/{}", graph.pool_id);
    for up in [false, true] {
        let (code, body) = keel.api(
            "PUT",
            &pool,
            &token,
            Some(&json!({"pool": {"admin_state_up": up}})),
        );
        assert_eq!(code, 200, "pool admin_state_up={up}: {body}");
        keel.wait_lb_active(&token, &lb_id);
    }
    wait_for(
        "both members back in the NB vips",
        Duration::from_secs(30),
        || {
            let found = backends_in_vips(&lb_id, &ips);
            if found.len() == 2 {
                Ok(())
            } else {
                Err(format!("backends in vips: {found:?}"))
            }
        },
    );
    assert_eq!(statuses(&keel, &token, &lb_id).unwrap().2, all_online.2);
    hold_monitor_until(&keel, &token, &lb_id, &port, "offline", &degraded);
    hold_monitor_until(&keel, &token, &lb_id, &port, "online", &all_online);

    // 2. Keel dies: the Python agent takes both locks and reports health
    keel.kill();
    wait_for(
        "the Python agent holding its locks",
        Duration::from_secs(30),
        || {
            if python_lock_taken() {
                Ok(())
            } else {
                Err("a Python lock is free".to_string())
            }
        },
    );
    let before_restart = keel.log().len();
    keel.restart();
    assert!(
        !common::monitors::agent_held_lock_at_start_number(&keel, 2),
        "the restarted Keel became active while the Python agent held {PY_LOCK}"
    );
    hold_monitor_until(&keel, &token, &lb_id, &port, "offline", &degraded);
    hold_monitor_until(&keel, &token, &lb_id, &port, "online", &all_online);
    // passive means silent: the two health changes were the Python agent's to report; no
    // request reached the restarted Keel's provider, so any status report of its own is an
    // agent duty it performed without the lock
    let since = keel.log()[before_restart..].to_string();
    let acted: Vec<&str> = since
        .lines()
        .filter(|l| l.contains("status report applied") || l.contains("held=true"))
        .collect();
    assert!(
        acted.is_empty(),
        "the passive Keel acted while the Python agent held {PY_LOCK}: {acted:?}"
    );

    // 3. the Python agent dies: the waiting Keel takes over
    python.kill();
    wait_for(
        "Keel taking the agent role over",
        Duration::from_secs(30),
        || {
            let log = keel.log();
            if log.contains("lock changed hands")
                && log
                    .lines()
                    .rev()
                    .any(|l| l.contains("lock changed hands") && l.contains("held=true"))
            {
                Ok(())
            } else {
                Err("no `lock changed hands held=true` line".to_string())
            }
        },
    );
    hold_monitor_until(&keel, &token, &lb_id, &port, "offline", &degraded);
    hold_monitor_until(&keel, &token, &lb_id, &port, "online", &all_online);

    keel.delete_lb_cascade(&token, &lb_id);
    drop(python);
    drop(keel);
    drop(db);
}
