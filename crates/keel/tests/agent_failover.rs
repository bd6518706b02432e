//! Agent failover between two real `keel serve` processes: both on the same
//! MariaDB Octavia DB and the stack's NB/SB, so exactly one holds the NB lock
//! `keel_ovn_provider_agent` (seed 000 "agent"). A load balancer → listener → pool → two
//! members → TCP health monitor is made through the lock holder's API; ovn-northd derives an
//! SB `Service_Monitor` row per member. The holder is killed (SIGKILL, by its PID); then the
//! test writes `status` into the first member's `Service_Monitor` row with `ovsdb-client
//! transact`, and keeps it there, as ovn-controller would. The survivor — which made none of
//! these objects — must take the lock over and turn `offline` into member ERROR, pool and LB
//! DEGRADED, then `online` back into ONLINE, as its API shows.
//!
//! The lock name is one for the whole machine: this binary is in the serial set of
//! `ci/test.sh`, and fails with a clear message when a `keel serve` outside it holds the lock.
//! Needs the environment of `ci/stack/env.sh` (run through `ci/test.sh`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::monitors::{
    Statuses, agent_held_lock_at_start, hold_monitor_until, monitor_of, set_port_up, sorted,
    statuses,
};
use common::{AgentLock, Backend, Keel, MariaDb, NeutronNet, sb_select, wait_for};

#[test]
fn survivor_takes_over_the_agent_after_the_lock_holder_dies() {
    let db = MariaDb::create();
    let first = Keel::start(Backend::Shared(db.url()));
    let first_held = agent_held_lock_at_start(&first);
    let second = Keel::start(Backend::Shared(db.url()));
    let second_held = agent_held_lock_at_start(&second);
    let (mut holder, survivor) = match (first_held, second_held) {
        (true, false) => (first, second),
        (false, true) => (second, first),
        (false, false) => panic!(
            "neither keel serve holds the NB lock keel_ovn_provider_agent: another process on \
             this machine does (a keel serve outside this test?); run through ci/test.sh"
        ),
        (true, true) => panic!("both keel serve processes say they hold the NB lock"),
    };

    let tag = common::tag();
    let neutron = NeutronNet::create(&tag, &["10.0.0.10", "10.0.0.11"]);
    let token = common::demo_token();

    // The graph, through the lock holder's API.
    let graph = holder.create_graph(
        &token,
        &format!("failover-{tag}"),
        &neutron.subnet,
        &["10.0.0.10", "10.0.0.11"],
    );
    let (lb_id, members) = (graph.lb_id.clone(), graph.members.clone());

    // northd's Service_Monitor for the first member: ours by its logical port (other tests'
    // members may share 10.0.0.10:8080, never our Neutron port).
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

    let online = [&members[0], &members[1]].map(|m| (m.clone(), "ONLINE".to_string()));
    let all_online: Statuses = ("ONLINE".into(), "ONLINE".into(), sorted(online.to_vec()));
    assert_eq!(
        statuses(&holder, &token, &lb_id).unwrap(),
        all_online,
        "statuses before the failover"
    );

    // The holder dies; the lock is not left free (the survivor waited for it).
    holder.kill();
    assert!(
        AgentLock::is_held_elsewhere(),
        "nobody holds keel_ovn_provider_agent after the holder died"
    );

    let degraded: Statuses = (
        "DEGRADED".into(),
        "DEGRADED".into(),
        sorted(vec![
            (members[0].clone(), "ERROR".into()),
            (members[1].clone(), "ONLINE".into()),
        ]),
    );
    hold_monitor_until(&survivor, &token, &lb_id, &port, "offline", &degraded);

    hold_monitor_until(&survivor, &token, &lb_id, &port, "online", &all_online);

    // The survivor also serves writes: cascade delete removes the NB row.
    survivor.delete_lb_cascade(&token, &lb_id);
    drop(survivor);
    drop(holder);
    drop(db);
}
