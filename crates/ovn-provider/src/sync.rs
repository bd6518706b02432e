//! `ovn-db-sync` (seed 000 §7; role of `octavia-ovn-db-sync-util` / the driver's `do_sync`):
//! compare the desired load balancers (Octavia's view, as `provider` data models) with the NB
//! and plan the repair as ONE transaction.
//!
//! Scope of this version: on the existing `Load_Balancer` rows of each LB, listener and pool
//! keys (value drift, `:D` suffix drift, keys of objects Octavia no longer has), member
//! entries (address/port drift, extra members removed, missing members with a subnet added)
//! and `vips` (re-framed from the fixed keys). Reported but not repaired: a LB without any
//! NB row, a listener or pool key missing from every row (creating rows and attachments
//! needs the driver's planners and Neutron facts), health-check rows.

use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;

use provider::LoadBalancer;

use crate::driver::{NbDatabase, NbError};
use crate::edit::{Edit, LbRef};
use crate::external_ids::{self as ext, ListenerValue, MemberEntry, ObjectKey};
use crate::nb::{ops_json, NbSnapshot};
use crate::scope::Scope;

/// One difference found between Octavia and the NB.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// The load balancer.
    pub lb_id: String,
    /// What differs, e.g. `member M: missing from pool P`.
    pub what: String,
    /// True when the planned transaction repairs it.
    pub repaired: bool,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tag = if self.repaired { "fix" } else { "unrepaired" };
        write!(f, "{} {}: {}", tag, self.lb_id, self.what)
    }
}

/// The differences and the operations of one repairing transaction.
pub fn plan(snap: &NbSnapshot, desired: &[LoadBalancer]) -> (Vec<Difference>, Vec<crate::nb::Op>) {
    let mut diffs = Vec::new();
    let mut edit = Edit::new(snap);
    for lb in desired {
        let id = &lb.loadbalancer_id;
        let mut d = |what: String, repaired: bool| {
            diffs.push(Difference {
                lb_id: id.clone(),
                what,
                repaired,
            })
        };
        let rows = snap.lbs_named(id);
        if rows.is_empty() {
            d("no Load_Balancer row".into(), false);
            continue;
        }
        let listeners: BTreeMap<&str, &provider::Listener> = lb
            .listeners
            .iter()
            .flatten()
            .map(|l| (l.listener_id.as_str(), l))
            .collect();
        let pools: BTreeMap<&str, &provider::Pool> = lb
            .pools
            .iter()
            .flatten()
            .map(|p| (p.pool_id.as_str(), p))
            .collect();
        let mut seen_listeners = BTreeSet::new();
        let mut seen_pools = BTreeSet::new();
        for row in rows {
            let h = LbRef::Existing(row.uuid.clone());
            for (key, value) in &row.external_ids {
                match ObjectKey::parse(key) {
                    Some(ObjectKey::Listener { id: lid, enabled }) => {
                        let Some(l) = listeners.get(lid.as_str()) else {
                            d(format!("listener {lid}: not in Octavia, removed"), true);
                            if let Some(r) = edit.row_mut(&h) {
                                r.external_ids.remove(key);
                            }
                            continue;
                        };
                        seen_listeners.insert(lid.clone());
                        let want_enabled = l.admin_state_up.unwrap_or(true);
                        let want = ListenerValue {
                            port: l.protocol_port.unwrap_or(0),
                            pool_id: l.default_pool_id.clone(),
                        }
                        .format();
                        if want_enabled != enabled || *value != want {
                            d(
                                format!(
                                    "listener {lid}: {key}={value} → {}={want}",
                                    ext::listener_key(&lid, want_enabled)
                                ),
                                true,
                            );
                            if let Some(r) = edit.row_mut(&h) {
                                r.external_ids.remove(key);
                                r.external_ids
                                    .insert(ext::listener_key(&lid, want_enabled), want);
                            }
                        }
                    }
                    Some(ObjectKey::Pool { id: pid, enabled }) => {
                        let Some(p) = pools.get(pid.as_str()) else {
                            d(format!("pool {pid}: not in Octavia, removed"), true);
                            if let Some(r) = edit.row_mut(&h) {
                                r.external_ids.remove(key);
                            }
                            continue;
                        };
                        seen_pools.insert(pid.clone());
                        let want_enabled = p.admin_state_up.unwrap_or(true);
                        let have = ext::parse_pool_members(value).0;
                        let mut want: Vec<MemberEntry> = Vec::new();
                        for m in p.members.iter().flatten() {
                            let old = have.iter().find(|e| e.id == m.member_id);
                            let address =
                                m.address.as_deref().and_then(|a| a.parse::<IpAddr>().ok());
                            let subnet = m
                                .subnet_id
                                .clone()
                                .filter(|s| !s.is_empty())
                                .or_else(|| old.map(|e| e.subnet_id.clone()));
                            match (address, subnet) {
                                (Some(address), Some(subnet_id)) => want.push(MemberEntry {
                                    id: m.member_id.clone(),
                                    address,
                                    port: m.protocol_port.unwrap_or(0),
                                    subnet_id,
                                }),
                                _ => d(
                                    format!("member {}: no address or subnet", m.member_id),
                                    false,
                                ),
                            }
                        }
                        for e in &have {
                            if !want.iter().any(|w| w.id == e.id) {
                                d(
                                    format!(
                                        "member {}: not in Octavia, removed from pool {pid}",
                                        e.id
                                    ),
                                    true,
                                );
                            }
                        }
                        for w in &want {
                            match have.iter().find(|e| e.id == w.id) {
                                None => d(
                                    format!("member {}: missing from pool {pid}, added", w.id),
                                    true,
                                ),
                                Some(e) if e != w => d(
                                    format!("member {}: {} → {}", w.id, e.format(), w.format()),
                                    true,
                                ),
                                _ => {}
                            }
                        }
                        let text = ext::format_pool_members(&want);
                        if want_enabled != enabled || *value != text {
                            if want_enabled != enabled {
                                d(
                                    format!("pool {pid}: enabled {enabled} → {want_enabled}"),
                                    true,
                                );
                            }
                            if let Some(r) = edit.row_mut(&h) {
                                r.external_ids.remove(key);
                                r.external_ids
                                    .insert(ext::pool_key(&pid, want_enabled), text);
                            }
                        }
                    }
                    None => {}
                }
            }
            if crate::vips::frame_vips(&row.external_ids) != row.vips {
                d(format!("row {}: vips drifted, re-framed", row.uuid), true);
                // touching the row makes the edit write the re-framed vips
                let _ = edit.row_mut(&h);
            }
        }
        for l in listeners.keys().filter(|l| !seen_listeners.contains(**l)) {
            d(format!("listener {l}: no key in any row"), false);
        }
        for p in pools.keys().filter(|p| !seen_pools.contains(**p)) {
            d(format!("pool {p}: no key in any row"), false);
        }
    }
    (diffs, edit.into_ops())
}

/// Compare `desired` with the NB and, unless `dry_run`, commit the repair in one transaction.
/// Returns every difference found (empty: nothing to do). Errors: the NB transaction.
pub async fn sync(
    nb: &dyn NbDatabase,
    desired: &[LoadBalancer],
    dry_run: bool,
) -> Result<Vec<Difference>, NbError> {
    let scope = Scope {
        lbs: desired.iter().map(|l| l.loadbalancer_id.clone()).collect(),
        ..Default::default()
    };
    let snap = nb.snapshot(&scope).await?;
    let (diffs, ops) = plan(&snap, desired);
    if !dry_run && !ops.is_empty() {
        nb.transact(ops_json(&ops)).await?;
    }
    Ok(diffs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use provider::{Listener, Member, Pool};
    use serde_json::json;

    fn nb() -> NbSnapshot {
        let mut s = NbSnapshot {
            health_check_supported: true,
            ..Default::default()
        };
        s.insert_json(
            "Load_Balancer",
            "u1",
            &json!({"name": "LB", "protocol": "tcp",
            "external_ids": ["map", [["neutron:vip", "10.0.0.5"], ["enabled", "True"],
                ["listener_L", "81:pool_P"], ["listener_OLD", "90:"],
                ["pool_P", "member_M1_10.0.0.10:80_S,member_X_10.0.0.99:80_S"]]],
            "vips": ["map", [["10.0.0.5:81", "10.0.0.10:80,10.0.0.99:80"]]]}),
        );
        s
    }

    fn desired(port: u16) -> LoadBalancer {
        LoadBalancer {
            loadbalancer_id: "LB".into(),
            listeners: Some(vec![Listener {
                listener_id: "L".into(),
                protocol_port: Some(port),
                default_pool_id: Some("P".into()),
                ..Default::default()
            }]),
            pools: Some(vec![Pool {
                pool_id: "P".into(),
                members: Some(vec![
                    Member {
                        member_id: "M1".into(),
                        address: Some("10.0.0.10".into()),
                        protocol_port: Some(80),
                        ..Default::default()
                    },
                    Member {
                        member_id: "M2".into(),
                        address: Some("10.0.0.11".into()),
                        protocol_port: Some(80),
                        subnet_id: Some("S".into()),
                        ..Default::default()
                    },
                ]),
                ..Default::default()
            }]),
            ..Default::default()
        }
    }

    #[test]
    fn repairs_keys_members_and_vips() {
        let s = nb();
        let (diffs, ops) = plan(&s, &[desired(80)]);
        let text: Vec<String> = diffs.iter().map(|d| d.to_string()).collect();
        assert!(
            text.iter()
                .any(|t| t.contains("listener OLD: not in Octavia")),
            "{text:?}"
        );
        assert!(
            text.iter().any(|t| t.contains("member X: not in Octavia")),
            "{text:?}"
        );
        assert!(
            text.iter().any(|t| t.contains("member M2: missing")),
            "{text:?}"
        );
        assert!(
            text.iter()
                .any(|t| t.contains("listener L: listener_L=81:pool_P")),
            "{text:?}"
        );
        let row = ops
            .iter()
            .find_map(|o| match o {
                crate::nb::Op::Update { row, .. } => Some(row.clone()),
                _ => None,
            })
            .unwrap();
        let get = |c: &str| row.iter().find(|(k, _)| *k == c).map(|(_, v)| v.clone());
        let Some(crate::nb::Datum::Map(ids)) = get("external_ids") else {
            panic!()
        };
        assert_eq!(ids["listener_L"], "80:pool_P");
        assert!(!ids.contains_key("listener_OLD"));
        assert_eq!(
            ids["pool_P"],
            "member_M1_10.0.0.10:80_S,member_M2_10.0.0.11:80_S"
        );
        let Some(crate::nb::Datum::Map(vips)) = get("vips") else {
            panic!()
        };
        assert_eq!(vips["10.0.0.5:80"], "10.0.0.10:80,10.0.0.11:80");

        // applied: nothing left to do
        let mut fixed = s.clone();
        let r = fixed.load_balancers.get_mut("u1").unwrap();
        r.external_ids = ids;
        r.vips = vips;
        let (diffs, ops) = plan(&fixed, &[desired(80)]);
        assert!(diffs.is_empty(), "{diffs:?}");
        assert!(ops.is_empty());
    }

    #[test]
    fn missing_rows_are_reported() {
        let (diffs, ops) = plan(&NbSnapshot::default(), &[desired(80)]);
        assert_eq!(diffs.len(), 1);
        assert!(!diffs[0].repaired);
        assert!(ops.is_empty());
    }
}
