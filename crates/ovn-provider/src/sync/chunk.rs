//! The rows one chunk of a sync plans on (`chunk_view`), so that a run over N load
//! balancers costs O(N), not O(N²).

use std::collections::BTreeSet;

use provider::LoadBalancer;

use crate::external_ids as ext;
use crate::nb::NbSnapshot;

/// The part of `snap` the sync of `desired` reads and writes: the `Load_Balancer` rows named
/// after a desired LB, holding one of its pools or registering one of its health monitors;
/// the health checks those rows reference or those monitors own; every switch, router and
/// port (small tables). Planning a chunk on this copy, not on a copy of every row, keeps a run
/// over N load balancers O(N) instead of O(N²).
pub(super) fn chunk_view(snap: &NbSnapshot, desired: &[LoadBalancer]) -> NbSnapshot {
    let names: BTreeSet<&str> = desired.iter().map(|l| l.loadbalancer_id.as_str()).collect();
    let pools: BTreeSet<&str> = desired
        .iter()
        .flat_map(|l| l.pools.iter().flatten())
        .map(|p| p.pool_id.as_str())
        .collect();
    let mut hms: BTreeSet<String> = desired
        .iter()
        .flat_map(|l| l.pools.iter().flatten())
        .filter_map(|p| p.healthmonitor.as_ref())
        .map(|h| h.healthmonitor_id.clone())
        .collect();
    let mut view = NbSnapshot {
        health_check_supported: snap.health_check_supported,
        switches: snap.switches.clone(),
        switch_ports: snap.switch_ports.clone(),
        routers: snap.routers.clone(),
        router_ports: snap.router_ports.clone(),
        source: snap.source.clone(),
        ..Default::default()
    };
    let mut rows: BTreeSet<&str> = BTreeSet::new();
    for n in &names {
        rows.extend(snap.lbs_named(n).iter().map(|r| r.uuid.as_str()));
    }
    for p in &pools {
        rows.extend(
            snap.load_balancers
                .candidates(&crate::row_index::IndexKey::Pool((*p).to_string()))
                .iter()
                .map(|r| r.uuid.as_str()),
        );
    }
    if !hms.is_empty() {
        // a monitor registered on a row of another LB (the planners look it up by id)
        rows.extend(
            snap.load_balancers
                .values()
                .filter(|r| {
                    ext::parse_healthmonitors(&r.external_ids)
                        .iter()
                        .any(|h| hms.contains(h))
                })
                .map(|r| r.uuid.as_str()),
        );
    }
    let mut hcs: BTreeSet<&str> = BTreeSet::new();
    for u in rows {
        if let Some(r) = snap.load_balancers.get(u) {
            hcs.extend(r.health_check.iter().map(String::as_str));
            hms.extend(ext::parse_healthmonitors(&r.external_ids));
            view.load_balancers.insert(u.to_string(), r.clone());
        }
    }
    for (u, h) in snap.health_checks.iter() {
        let owned = h
            .external_ids
            .get(ext::HC_HEALTHMONITOR)
            .is_some_and(|m| hms.contains(m));
        if owned || hcs.contains(u.as_str()) {
            view.health_checks.insert(u.clone(), h.clone());
        }
    }
    view
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::sim;
    use crate::sync::fixtures::*;
    use crate::sync::plan;
    use serde_json::json;

    /// A chunk is planned on its own rows only (`chunk_view`): with 40 unrelated LB rows
    /// around (their own pools, monitors, health checks and switch references), creating the graph and repairing its drift give
    /// exactly the differences and operations of a plan on an NB holding only the topology
    /// and the synced LB's rows, and the unrelated rows are never touched.
    #[test]
    fn a_chunk_plans_the_same_among_unrelated_rows() {
        let crowd = |s: &mut NbSnapshot| {
            for i in 0..40 {
                let u = format!("other{i}");
                s.insert_json(
                    "Load_Balancer_Health_Check",
                    &format!("hc{i}"),
                    &json!({"vip": "10.1.0.5:80", "external_ids": ["map", [
                        ["octavia:healthmonitor", format!("HM{i}")]]]}),
                );
                s.insert_json(
                    "Load_Balancer",
                    &u,
                    &json!({"name": format!("LB{i}"), "protocol": "tcp",
                    "health_check": ["uuid", format!("hc{i}")],
                    "external_ids": ["map", [["neutron:vip_port_id", format!("p{i}")],
                        ["enabled", "True"], [format!("pool_Q{i}"), "member_A_10.1.0.9:80_sub1"],
                        ["octavia:healthmonitors", format!("[\"HM{i}\"]")]]]}),
                );
                s.switches
                    .get_mut("ls1")
                    .unwrap()
                    .load_balancer
                    .push(u.clone());
            }
        };
        let (mut alone, mut crowded) = (topology(), topology());
        crowd(&mut crowded);
        let before = crowded.clone();
        for step in 0..2 {
            let a = plan(&alone, &[graph()], &facts(), None).unwrap();
            let c = plan(&crowded, &[graph()], &facts(), None).unwrap();
            assert_eq!(a.differences, c.differences, "step {step}");
            // the switch reference mutations list only the synced rows: same operations
            assert_eq!(a.ops, c.ops, "step {step}");
            let (mut s1, mut s2) = (1000 * (step + 1), 1000 * (step + 1));
            sim::apply(&mut alone, &a.ops, &mut s1).unwrap();
            sim::apply(&mut crowded, &c.ops, &mut s2).unwrap();
            // drift for the second round: the graph's row loses its vips
            for s in [&mut alone, &mut crowded] {
                let u = s.lbs_named("LB")[0].uuid.clone();
                s.load_balancers.get_mut(&u).unwrap().vips.clear();
            }
        }
        for i in 0..40 {
            let u = format!("other{i}");
            assert_eq!(crowded.load_balancers[&u], before.load_balancers[&u]);
            assert!(crowded.switches["ls1"].load_balancer.contains(&u));
        }
    }
}
