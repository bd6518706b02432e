//! Member health by hand: the SB `Service_Monitor` rows of a test's member written as
//! ovn-controller would write them (this part of the stack has no data plane), and the status
//! tree read back through a Keel's API. The member is the first of a [`super::NeutronNet`]
//! made with `10.0.0.10` (port 8080, as [`super::Keel::create_graph`] makes it).

use std::time::Duration;

use serde_json::{Value, json};

use super::{Keel, env, sb_select, transact, wait_for};

/// Whether `keel`'s agent got the lock when it started: its `OVN provider agent started`
/// log line carries `held=true|false` (`ovn_provider::Agent::run`). Waits for the
/// line (the agent starts beside the API, not before it).
pub fn agent_held_lock_at_start(keel: &Keel) -> bool {
    agent_held_lock_at_start_number(keel, 1)
}

/// [`agent_held_lock_at_start`] for the `n`-th start of `keel` (1 = the first; after
/// [`Keel::restart`] the log holds every start's line): waits for that line.
pub fn agent_held_lock_at_start_number(keel: &Keel, n: usize) -> bool {
    wait_for(
        "the `OVN provider agent started` log line",
        Duration::from_secs(30),
        || {
            let log = keel.log();
            let line = log
                .lines()
                .filter(|l| l.contains("OVN provider agent started"))
                .nth(n - 1)
                .ok_or_else(|| log.clone())?;
            if line.contains("held=true") {
                Ok(true)
            } else if line.contains("held=false") {
                Ok(false)
            } else {
                Err(line.to_string())
            }
        },
    )
}

/// Panics unless `keel`'s agent became the active agent at start: a test whose outcome
/// depends on what the agent does (health reports, the monitor-deletion rule) must not pass or
/// fail because another agent (a Python provider agent, a Keel outside the test) acts instead.
pub fn assert_agent_active(keel: &Keel) {
    assert!(
        agent_held_lock_at_start(keel),
        "this keel serve is not the active OVN provider agent: another agent holds \
         keel_ovn_provider_agent or neutron_ovn_octavia_event_lock on this NB/SB \
         (ci/stack/foreign-agents.sh names it)"
    );
}

/// Operating statuses of (LB, pool, [(member id, status)] sorted).
pub type Statuses = (String, String, Vec<(String, String)>);

/// The status tree (`GET /v2/lbaas/loadbalancers/{id}/status`) as [`Statuses`]; the LB has
/// one listener with one pool.
pub fn statuses(keel: &Keel, token: &str, lb_id: &str) -> Result<Statuses, String> {
    let (code, body) = keel.api(
        "GET",
        &format!("/v2/lbaas/loadbalancers/{lb_id}/status"),
        token,
        None,
    );
    if code != 200 {
        return Err(format!("{code} {body}"));
    }
    let lb = &body["statuses"]["loadbalancer"];
    let pool = &lb["listeners"][0]["pools"][0];
    let s = |v: &Value| {
        v["operating_status"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let mut members: Vec<(String, String)> = pool["members"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|m| (m["id"].as_str().unwrap_or_default().to_string(), s(m)))
        .collect();
    members.sort();
    Ok((s(lb), s(pool), members))
}

pub fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
    v.sort();
    v
}

/// Sets our member's `Service_Monitor` to `status` (as ovn-controller reports a probe) and
/// polls the status tree through `keel`'s API until it is `want` (60 s); on timeout panics
/// with the last tree, the NB `neutron:member_status`, the SB rows and the end of `keel`'s
/// log. The member's port must be up ([`set_port_up`]). The write is repeated only if the
/// row is seen at another status (northd may replace the row when the HM port changes).
pub fn hold_monitor_until(
    keel: &Keel,
    token: &str,
    lb_id: &str,
    port: &str,
    status: &str,
    want: &Statuses,
) {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let row = sb_select("Service_Monitor", monitor_of(port));
        if row.first().and_then(|r| r["status"].as_str()) != Some(status) {
            set_monitor_status(port, status);
        }
        let s = statuses(keel, token, lb_id);
        if s.as_ref() == Ok(want) {
            return;
        }
        if std::time::Instant::now() > deadline {
            let log = keel.log();
            let tail: Vec<&str> = log.lines().rev().take(30).collect();
            let nb = super::nb_select("Load_Balancer", json!([["name", "==", lb_id]]));
            let member_status: Vec<String> = nb
                .iter()
                .map(|r| {
                    super::get(&super::map(&r["external_ids"]), "neutron:member_status")
                        .unwrap_or_default()
                        .to_string()
                })
                .collect();
            let mappings: Vec<_> = nb
                .iter()
                .map(|r| super::map(&r["ip_port_mappings"]))
                .collect();
            let monitors: Vec<String> =
                sb_select("Service_Monitor", json!([["ip", "==", "10.0.0.10"]]))
                    .iter()
                    .map(|r| {
                        format!(
                            "{} {} {} {}",
                            r["logical_port"], r["src_ip"], r["status"], r["_uuid"]
                        )
                    })
                    .collect();
            panic!(
                "statuses through the API: want {want:?}, last {s:?}; NB member_status \
                 {member_status:?}, ip_port_mappings {mappings:?}; SB monitors of 10.0.0.10 \
                 {monitors:?}; log tail (newest first):\n{}",
                tail.join("\n")
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Sets `up` of our member port's SB `Port_Binding`, as ovn-controller does once it has bound
/// the port (this stack runs none). ovn-northd (OVN 23.03 `ovn_lb_svc_create`) turns an
/// `online` `Service_Monitor` of a port that is not up back to `offline` within milliseconds;
/// an SB session that gets both writes in one update never sees the `online`.
pub fn set_port_up(port: &str) {
    let out = transact(
        &env("STACK_OVN_SB"),
        &json!(["OVN_Southbound", {"op": "update", "table": "Port_Binding",
            "where": [["logical_port", "==", port]], "row": {"up": true}}]),
    );
    assert_eq!(out[0]["count"], 1, "Port_Binding rows updated: {out}");
}

/// The `where` of our member's SB `Service_Monitor` row: other tests' members may share
/// 10.0.0.10:8080, never our Neutron port (`logical_port`).
pub fn monitor_of(port: &str) -> serde_json::Value {
    json!([
        ["ip", "==", "10.0.0.10"],
        ["port", "==", 8080],
        ["logical_port", "==", port]
    ])
}

/// Sets `status` of our member's SB `Service_Monitor` row (one transaction, exactly one row
/// updated), as ovn-controller does after its health checks. By its columns, not its uuid:
/// northd may replace the row (e.g. when the HM port changes).
pub fn set_monitor_status(port: &str, status: &str) {
    let out = transact(
        &env("STACK_OVN_SB"),
        &json!(["OVN_Southbound", {"op": "update", "table": "Service_Monitor",
            "where": monitor_of(port), "row": {"status": status}}]),
    );
    assert_eq!(out[0]["count"], 1, "Service_Monitor rows updated: {out}");
}
