//! Status reports: building them, and the operating-status tree of a row (seed 000 §8,
//! `helper.py::_get_current_operating_statuses`).
//!
//! The reference asks Octavia (driver-lib get socket) for pool and listener admin states; Keel
//! reads them from the `:D` suffix of the keys, which carries the same fact, so computing the
//! tree needs no round-trip.

use std::collections::BTreeMap;

use provider::{OperatingStatus as Op, ProvisioningStatus as Prov, StatusRecord, StatusReport};

use crate::external_ids::{self as ext, ExternalIds};

/// Which collection of a [`StatusReport`] a record goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `loadbalancers`.
    LoadBalancer,
    /// `listeners`.
    Listener,
    /// `pools`.
    Pool,
    /// `members`.
    Member,
    /// `healthmonitors`.
    HealthMonitor,
}

/// Add or merge a record: a later value for the same id overrides each status it sets, so a
/// handler can state "parent ACTIVE" first and refine it afterwards.
pub fn put(report: &mut StatusReport, kind: Kind, id: &str, prov: Option<Prov>, op: Option<Op>) {
    let list = match kind {
        Kind::LoadBalancer => &mut report.loadbalancers,
        Kind::Listener => &mut report.listeners,
        Kind::Pool => &mut report.pools,
        Kind::Member => &mut report.members,
        Kind::HealthMonitor => &mut report.healthmonitors,
    };
    if let Some(r) = list.iter_mut().find(|r| r.id == id) {
        if prov.is_some() {
            r.provisioning_status = prov;
        }
        if op.is_some() {
            r.operating_status = op;
        }
    } else {
        list.push(StatusRecord::new(id, prov, op));
    }
}

/// Parse an operating status as stored in `neutron:member_status`.
pub fn parse_op(s: &str) -> Option<Op> {
    Some(match s {
        "ONLINE" => Op::Online,
        "OFFLINE" => Op::Offline,
        "DEGRADED" => Op::Degraded,
        "ERROR" => Op::Error,
        "NO_MONITOR" => Op::NoMonitor,
        "DRAINING" => Op::Draining,
        _ => return None,
    })
}

fn worst(statuses: &[Op]) -> Op {
    if statuses.contains(&Op::Error) {
        Op::Error
    } else if statuses.contains(&Op::Degraded) {
        Op::Degraded
    } else {
        Op::Online
    }
}

/// The recomputed tree of one row, every object ACTIVE plus its operating status.
///
/// Members: their `neutron:member_status`. Pool: OFFLINE if disabled or no member status is
/// known, ERROR if all its members are ERROR, DEGRADED if some are, else ONLINE (a member
/// without a status counts as ONLINE). Listener: OFFLINE if disabled, else the worst of its
/// pool. LB (`lb_id`): OFFLINE if `enabled` = `False`, else the worst of its listeners.
pub fn operating_tree(lb_id: &str, ids: &ExternalIds) -> StatusReport {
    let mut report = StatusReport::default();
    let statuses = ext::parse_member_status(ids);
    // ids are unique (map keys): push, not `put`, whose search made this O(n²) (1,000 members:
    // 1.3 ms, benches/hot_paths.rs)
    report.members = statuses
        .iter()
        .map(|(member, s)| StatusRecord::new(member, Some(Prov::Active), parse_op(s)))
        .collect();
    let mut pool_status: BTreeMap<String, Op> = BTreeMap::new();
    for (pool_id, enabled, members) in ext::pools(ids) {
        let member_ops: Vec<Op> = members
            .iter()
            .map(|m| {
                statuses
                    .get(&m.id)
                    .and_then(|s| parse_op(s))
                    .unwrap_or(Op::Online)
            })
            .collect();
        let op = if !enabled || statuses.is_empty() {
            Op::Offline
        } else if !member_ops.is_empty() && member_ops.iter().all(|s| *s == Op::Error) {
            Op::Error
        } else if member_ops.contains(&Op::Error) {
            Op::Degraded
        } else {
            Op::Online
        };
        pool_status.insert(pool_id.clone(), op);
        put(
            &mut report,
            Kind::Pool,
            &pool_id,
            Some(Prov::Active),
            Some(op),
        );
    }
    let mut listener_ops = Vec::new();
    for (listener_id, enabled, value) in ext::listeners(ids) {
        let op = if !enabled {
            Op::Offline
        } else {
            let pools: Vec<Op> = value
                .pool_id
                .iter()
                .map(|p| pool_status.get(p).copied().unwrap_or(Op::Online))
                .collect();
            worst(&pools)
        };
        listener_ops.push(op);
        put(
            &mut report,
            Kind::Listener,
            &listener_id,
            Some(Prov::Active),
            Some(op),
        );
    }
    let lb_op = if ids.get(ext::ENABLED).map(String::as_str) == Some("False") {
        Op::Offline
    } else {
        worst(&listener_ops)
    };
    put(
        &mut report,
        Kind::LoadBalancer,
        lb_id,
        Some(Prov::Active),
        Some(lb_op),
    );
    report
}

/// Drops every provisioning status of `report`, keeping its operating statuses (a health
/// report: see [`crate::hm::service_monitor_update`]).
pub fn operating_only(report: &mut StatusReport) {
    for records in [
        &mut report.loadbalancers,
        &mut report.listeners,
        &mut report.pools,
        &mut report.members,
        &mut report.healthmonitors,
        &mut report.l7policies,
        &mut report.l7rules,
    ] {
        for r in records.iter_mut() {
            r.provisioning_status = None;
        }
    }
}

/// Merge `other` into `report` record by record ([`put`] semantics).
pub fn merge(report: &mut StatusReport, other: StatusReport) {
    let groups = [
        (Kind::LoadBalancer, other.loadbalancers),
        (Kind::Listener, other.listeners),
        (Kind::Pool, other.pools),
        (Kind::Member, other.members),
        (Kind::HealthMonitor, other.healthmonitors),
    ];
    for (kind, records) in groups {
        for r in records {
            put(
                report,
                kind,
                &r.id,
                r.provisioning_status,
                r.operating_status,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(pairs: &[(&str, &str)]) -> ExternalIds {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn op_of(list: &[StatusRecord], id: &str) -> Option<Op> {
        list.iter()
            .find(|r| r.id == id)
            .and_then(|r| r.operating_status)
    }

    const TWO: &str = "member_m1_10.0.0.10:80_s,member_m2_10.0.0.11:80_s";

    #[test]
    fn put_merges() {
        let mut r = StatusReport::default();
        put(&mut r, Kind::LoadBalancer, "lb", Some(Prov::Active), None);
        put(&mut r, Kind::LoadBalancer, "lb", None, Some(Op::Online));
        put(&mut r, Kind::LoadBalancer, "lb", Some(Prov::Error), None);
        assert_eq!(
            r.loadbalancers,
            vec![StatusRecord::new("lb", Some(Prov::Error), Some(Op::Online))]
        );
    }

    #[test]
    fn no_monitor_members_online_tree() {
        let e = ids(&[
            ("enabled", "True"),
            ("listener_L", "80:pool_P"),
            ("pool_P", TWO),
            (
                "neutron:member_status",
                r#"{"m1": "NO_MONITOR", "m2": "NO_MONITOR"}"#,
            ),
        ]);
        let r = operating_tree("lb", &e);
        assert_eq!(op_of(&r.members, "m1"), Some(Op::NoMonitor));
        assert_eq!(op_of(&r.pools, "P"), Some(Op::Online));
        assert_eq!(op_of(&r.listeners, "L"), Some(Op::Online));
        assert_eq!(op_of(&r.loadbalancers, "lb"), Some(Op::Online));
        assert!(
            r.members
                .iter()
                .all(|m| m.provisioning_status == Some(Prov::Active))
        );
    }

    #[test]
    fn degraded_and_error_propagate() {
        let mut e = ids(&[
            ("listener_L", "80:pool_P"),
            ("pool_P", TWO),
            (
                "neutron:member_status",
                r#"{"m1": "ERROR", "m2": "ONLINE"}"#,
            ),
        ]);
        let r = operating_tree("lb", &e);
        assert_eq!(op_of(&r.pools, "P"), Some(Op::Degraded));
        assert_eq!(op_of(&r.listeners, "L"), Some(Op::Degraded));
        assert_eq!(op_of(&r.loadbalancers, "lb"), Some(Op::Degraded));
        e.insert(
            "neutron:member_status".into(),
            r#"{"m1": "ERROR", "m2": "ERROR"}"#.into(),
        );
        let r = operating_tree("lb", &e);
        assert_eq!(op_of(&r.pools, "P"), Some(Op::Error));
        assert_eq!(op_of(&r.listeners, "L"), Some(Op::Error));
        assert_eq!(op_of(&r.loadbalancers, "lb"), Some(Op::Error));
    }

    #[test]
    fn offline_cases() {
        // no member status known at all → pool OFFLINE
        let e = ids(&[("listener_L", "80:pool_P"), ("pool_P", TWO)]);
        assert_eq!(
            op_of(&operating_tree("lb", &e).pools, "P"),
            Some(Op::Offline)
        );
        // disabled pool / listener / LB
        let e = ids(&[
            ("enabled", "False"),
            ("listener_L:D", "80:pool_P"),
            ("pool_P:D", TWO),
            ("neutron:member_status", r#"{"m1": "ONLINE"}"#),
        ]);
        let r = operating_tree("lb", &e);
        assert_eq!(op_of(&r.pools, "P"), Some(Op::Offline));
        assert_eq!(op_of(&r.listeners, "L"), Some(Op::Offline));
        assert_eq!(op_of(&r.loadbalancers, "lb"), Some(Op::Offline));
    }

    #[test]
    fn listener_without_pool_online() {
        let e = ids(&[("listener_L", "80:")]);
        let r = operating_tree("lb", &e);
        assert_eq!(op_of(&r.listeners, "L"), Some(Op::Online));
        assert_eq!(op_of(&r.loadbalancers, "lb"), Some(Op::Online));
    }
}
