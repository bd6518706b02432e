//! The planners of the agent's events (seed 000 "agent"; the reference's `event.py` +
//! `helper.py` handlers), pure like the other planners (`&NbSnapshot` → [`Plan`]):
//!
//! * NB `Logical_Router_Port` create/delete → associate/disassociate load balancers with the
//!   router and its switches ([`lrp_created`], [`lrp_deleted`]; `lb_create_lrp_assoc` /
//!   `lb_delete_lrp_assoc`).
//! * NB VIP `Logical_Switch_Port` `neutron:port_fip` change → `neutron:vip_fip` (or
//!   `neutron:additional_vip_fips`) and the FIP entries of `vips` ([`vip_fip`];
//!   `vip_port_update_handler` + `handle_vip_fip`).
//!
//! The agent (`agent.rs`) turns NB changes into these events; the driver queues and runs them.

use std::collections::BTreeSet;
use std::net::IpAddr;

use crate::edit::{Edit, LbRef};
use crate::external_ids as ext;
use crate::nb::{HealthCheckRow, LoadBalancerRow, NbSnapshot};
use crate::plan::Plan;
use crate::ports::{ADDITIONAL_VIP_PORT_PREFIX, PORT_FIP, PORT_NAME, VIP_PORT_PREFIX};

/// `Logical_Router_Port.external_ids` key: the router's name (`neutron-` optional).
pub const ROUTER_NAME: &str = "neutron:router_name";
/// `Logical_Router_Port` / `Logical_Switch_Port` `external_ids` key: the switch name.
pub const NETWORK_NAME: &str = "neutron:network_name";
/// `Logical_Router_Port.external_ids` key: `True` on a gateway port.
pub const IS_EXT_GW: &str = "neutron:is_ext_gw";

/// A router interface appeared or went away.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LrpEvent {
    /// `neutron-<router id>`.
    pub router: String,
    /// `neutron-<network id>`.
    pub network: String,
    /// A gateway port (`neutron:is_ext_gw` = true).
    pub is_gw: bool,
    /// Created (else deleted).
    pub created: bool,
}

impl LrpEvent {
    /// From a `Logical_Router_Port` row; `None` without router or network name.
    pub fn from_row(row: &ovsdb::Row, created: bool) -> Option<Self> {
        Some(Self {
            router: ext::ovn_name(row.map_get("external_ids", ROUTER_NAME)?),
            network: row.map_get("external_ids", NETWORK_NAME)?.to_string(),
            is_gw: row
                .map_get("external_ids", IS_EXT_GW)
                .is_some_and(|v| v.eq_ignore_ascii_case("true")),
            created,
        })
    }
}

/// A floating IP associated to / disassociated from a VIP port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FipEvent {
    /// The Octavia load balancer id.
    pub lb_id: String,
    /// The floating IP.
    pub fip: String,
    /// Associated (else disassociated).
    pub associate: bool,
    /// The port is an additional VIP port.
    pub additional: bool,
    /// The VIP port's switch port name, i.e. its Neutron port id ('' when unknown): which of
    /// the row's VIPs the FIP stands for ([`related_vips`]).
    pub port: String,
    /// The IP addresses in the switch port's `addresses`. Only a supplement: Neutron leaves
    /// them empty for Keel's VIP ports (no `device_owner`, see the top README's
    /// Compatibility), so the VIPs come from the row ([`related_vips`]).
    pub related: Vec<String>,
}

/// The load balancer id and "additional" flag of a VIP port name (`ovn-lb-vip-<lb>` or
/// `ovn-lb-vip-additional-<n>-<lb>`); `None` for other ports.
pub(crate) fn vip_port_lb(name: &str) -> Option<(String, bool)> {
    if !name.starts_with(VIP_PORT_PREFIX) {
        return None;
    }
    if name.starts_with(ADDITIONAL_VIP_PORT_PREFIX) {
        // the LB id is the trailing uuid of the name
        Some((name.get(name.len().checked_sub(36)?..)?.to_string(), true))
    } else {
        Some((name[VIP_PORT_PREFIX.len()..].to_string(), false))
    }
}

/// The IP addresses of a switch port's `addresses`.
pub(crate) fn port_ips(row: &ovsdb::Row) -> Vec<String> {
    row.get_str_set("addresses")
        .into_iter()
        .flat_map(|a| a.split_whitespace())
        .filter(|t| t.parse::<IpAddr>().is_ok())
        .map(String::from)
        .collect()
}

impl FipEvent {
    /// From a `Logical_Switch_Port` update (`LogicalSwitchPortUpdateEvent`): only VIP ports
    /// (`neutron:port_name` starting `ovn-lb-vip-`) whose `neutron:port_fip` changed.
    pub fn from_update(old: &ovsdb::Row, new: &ovsdb::Row) -> Option<Self> {
        let name = new.map_get("external_ids", PORT_NAME)?;
        if !name.starts_with(VIP_PORT_PREFIX) {
            return None;
        }
        let before = old.map_get("external_ids", PORT_FIP);
        let after = new.map_get("external_ids", PORT_FIP);
        if before == after {
            return None;
        }
        let (fip, associate) = match (before, after) {
            (Some(b), None) => (b, false),
            (_, Some(a)) => (a, true),
            (None, None) => return None,
        };
        let (lb_id, additional) = vip_port_lb(name)?;
        let related = port_ips(new);
        Some(Self {
            lb_id,
            fip: fip.to_string(),
            associate,
            additional,
            port: new.get_str("name").unwrap_or_default().to_string(),
            related,
        })
    }
}

/// Rows the agent may edit: Octavia rows (with a VIP), never Neutron port-forwarding rows.
fn octavia_row(r: &LoadBalancerRow) -> bool {
    r.external_ids.get(ext::DEVICE_OWNER).map(String::as_str) != Some(ext::PORT_FORWARDING_PLUGIN)
        && r.external_ids.contains_key(ext::VIP)
}

fn vip_is_v4(r: &LoadBalancerRow) -> bool {
    r.external_ids
        .get(ext::VIP)
        .and_then(|v| v.parse::<IpAddr>().ok())
        .is_none_or(|a| a.is_ipv4())
}

/// `lb_create_lrp_assoc`: the rows on the network join the router (and the router's switches
/// of their VIP family, `lr_ref` gains the router); unless the port is a gateway port, the
/// rows on the router join the network (without touching `ls_refs`).
pub fn lrp_created(snap: &NbSnapshot, ev: &LrpEvent) -> Plan {
    let mut plan = Plan::default();
    let (Some(lr), Some(ls)) = (
        snap.router_named(&ev.router),
        snap.switch_named(&ev.network),
    ) else {
        return plan;
    };
    let router_lbs: BTreeSet<&String> = lr.load_balancer.iter().collect();
    let network_lbs: BTreeSet<&String> = ls.load_balancer.iter().collect();
    let mut edit = Edit::new(snap);
    for u in network_lbs.difference(&router_lbs) {
        let Some(row) = snap.load_balancers.get(*u).filter(|r| octavia_row(r)) else {
            continue;
        };
        let h = LbRef::Existing(row.uuid.clone());
        edit.attach_router(&h, &lr.uuid);
        for name in snap.switches_of_router(lr, vip_is_v4(row)) {
            if let Some(s) = snap.switch_named(&name) {
                edit.attach_switch(&h, &s.uuid);
            }
        }
        let refs = ext::parse_lr_ref(&row.external_ids);
        if !refs.contains(&lr.name) {
            let mut refs = refs;
            refs.push(lr.name.clone());
            if let Some(r) = edit.row_mut(&h) {
                r.external_ids.insert(ext::LR_REF.into(), refs.join(","));
            }
        }
    }
    if !ev.is_gw {
        for u in router_lbs.difference(&network_lbs) {
            edit.attach_switch(&LbRef::Existing((*u).clone()), &ls.uuid);
        }
    }
    plan.ops = edit.into_ops();
    plan
}

/// `lb_delete_lrp_assoc`: rows created on the network (in its `ls_refs`) leave the router
/// (`lr_ref` loses it) and the router's switches not reachable through their remaining
/// routers; the router's other rows leave the network.
pub fn lrp_deleted(snap: &NbSnapshot, ev: &LrpEvent) -> Plan {
    let mut plan = Plan::default();
    let (Some(lr), Some(ls)) = (
        snap.router_named(&ev.router),
        snap.switch_named(&ev.network),
    ) else {
        return plan;
    };
    let mut edit = Edit::new(snap);
    let mut from_network: BTreeSet<String> = BTreeSet::new();
    for u in &ls.load_balancer {
        let Some(row) = snap.load_balancers.get(u) else {
            continue;
        };
        if !ext::parse_ls_refs(&row.external_ids).contains_key(&ls.name) {
            continue;
        }
        from_network.insert(u.clone());
        if !octavia_row(row) {
            continue;
        }
        let h = LbRef::Existing(u.clone());
        let refs = ext::parse_lr_ref(&row.external_ids);
        let remaining: Vec<String> = refs.iter().filter(|r| **r != lr.name).cloned().collect();
        if !refs.is_empty() {
            if let Some(r) = edit.row_mut(&h) {
                if remaining.is_empty() {
                    r.external_ids.remove(ext::LR_REF);
                } else {
                    r.external_ids
                        .insert(ext::LR_REF.into(), remaining.join(","));
                }
            }
            edit.detach_router(u, &lr.uuid);
        }
        let v4 = vip_is_v4(row);
        let still: BTreeSet<String> = remaining
            .iter()
            .filter_map(|n| snap.router_named(n))
            .flat_map(|r| snap.switches_of_router(r, v4))
            .collect();
        for name in snap.switches_of_router(lr, v4) {
            if still.contains(&name) {
                continue;
            }
            if let Some(s) = snap.switch_named(&name) {
                edit.detach_switch(u, &s.uuid);
            }
        }
    }
    for u in lr
        .load_balancer
        .iter()
        .filter(|u| !from_network.contains(*u))
    {
        edit.detach_switch(u, &ls.uuid);
    }
    plan.ops = edit.into_ops();
    plan
}

/// True when the snapshot holds the event's VIP switch port and its `neutron:port_fip` no
/// longer says what the event says (a later change already superseded it: the event is
/// dropped rather than applied out of order). A port outside the snapshot proves nothing.
fn is_stale(snap: &NbSnapshot, ev: &FipEvent) -> bool {
    let main = format!("{}{}", VIP_PORT_PREFIX, ev.lb_id);
    let port = snap.switch_ports.values().find(|p| {
        let Some(name) = p.external_ids.get(PORT_NAME) else {
            return false;
        };
        if ev.additional && !ev.port.is_empty() {
            p.name == ev.port
        } else if ev.additional {
            name.starts_with(ADDITIONAL_VIP_PORT_PREFIX)
                && name.ends_with(&ev.lb_id)
                && p.addresses
                    .iter()
                    .flat_map(|a| a.split_whitespace())
                    .any(|t| ev.related.iter().any(|r| r == t))
        } else {
            *name == main
        }
    });
    let Some(port) = port else {
        return false;
    };
    let current = port.external_ids.get(PORT_FIP).filter(|f| !f.is_empty());
    if ev.associate {
        current != Some(&ev.fip)
    } else {
        current == Some(&ev.fip)
    }
}

/// The VIP a health check probes (`_get_vip_lbhc`): its `octavia:vip`, else the address part
/// of its `vip` (brackets of an IPv6 `[v6]:port` removed), else ''.
pub fn health_check_vip(hc: &HealthCheckRow) -> String {
    if let Some(v) = hc.external_ids.get(ext::HC_VIP).filter(|v| !v.is_empty()) {
        return v.clone();
    }
    match hc.vip.rsplit_once(':') {
        Some((a, _)) => a.trim_start_matches('[').trim_end_matches(']').to_string(),
        None => String::new(),
    }
}

/// The VIP addresses of `row` that the event's port holds: `vip_related` of
/// `vip_port_update_handler`, which the reference reads from Neutron
///
/// ```python
/// port = neutron_client.get_port(vip_lp.name)
/// ...
/// request_info['vip_related'] = [ip['ip_address'] for ip in port.fixed_ips]
/// ```
///
/// and Keel from the row, where the load balancer's create recorded each VIP port's address:
/// the main port's is `neutron:vip`; an additional port's is the entry of
/// `neutron:additional_vips` at its position in `neutron:additional_vip_port_ids`. The switch
/// port's own `addresses` ([`FipEvent::related`]) are added: Neutron leaves them empty for
/// Keel's VIP ports (no `device_owner`), so reading only them found no VIP, and no FIP health
/// check was made (issue 45).
pub fn related_vips(row: &LoadBalancerRow, ev: &FipEvent) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if ev.additional {
        let ports = ext::parse_list(&row.external_ids, ext::ADDITIONAL_VIP_PORT_IDS);
        let vips = ext::parse_list(&row.external_ids, ext::ADDITIONAL_VIPS);
        for (p, v) in ports.iter().zip(&vips) {
            if !ev.port.is_empty() && *p == ev.port {
                out.push(v.clone());
            }
        }
    } else if let Some(v) = row.external_ids.get(ext::VIP).filter(|v| !v.is_empty()) {
        out.push(v.clone());
    }
    for r in &ev.related {
        if !out.contains(r) {
            out.push(r.clone());
        }
    }
    out
}

/// `handle_vip_fip`: record (or forget) the floating IP of the VIP (or of an additional VIP)
/// on every row of the LB; `vips` gains (or loses) the FIP entries as the rows are re-framed.
///
/// Health checks (`_add_lbhc` FIP copies): on association every health check of the row whose
/// VIP is one of the port's VIPs ([`related_vips`]) gets a copy probing
/// `<fip>:<port>` (same `options`, `external_ids` with `octavia:vip` = the FIP; `vip` '' when
/// the original has no port); on disassociation the health checks of the FIP go. Keel skips a
/// copy that already exists (an event seen twice does not duplicate rows), removes every
/// health check of the FIP (the reference removes the first one per row only), and drops an
/// event the VIP switch port in the snapshot already contradicts (applied late, it would undo
/// a newer change).
pub fn vip_fip(snap: &NbSnapshot, ev: &FipEvent) -> Plan {
    let mut plan = Plan::default();
    if is_stale(snap, ev) {
        return plan;
    }
    let mut edit = Edit::new(snap);
    for row in snap.lbs_named(&ev.lb_id) {
        let h = LbRef::Existing(row.uuid.clone());
        let Some(r) = edit.row_mut(&h) else { continue };
        let mut addl = ext::parse_list(&r.external_ids, ext::ADDITIONAL_VIP_FIPS);
        if ev.associate {
            if ev.additional {
                if !addl.contains(&ev.fip) {
                    addl.push(ev.fip.clone());
                }
                r.external_ids
                    .insert(ext::ADDITIONAL_VIP_FIPS.into(), addl.join(","));
            } else {
                r.external_ids.insert(ext::VIP_FIP.into(), ev.fip.clone());
            }
        } else {
            if addl.contains(&ev.fip) {
                addl.retain(|f| *f != ev.fip);
                if addl.is_empty() {
                    r.external_ids.remove(ext::ADDITIONAL_VIP_FIPS);
                } else {
                    r.external_ids
                        .insert(ext::ADDITIONAL_VIP_FIPS.into(), addl.join(","));
                }
            }
            if r.external_ids.get(ext::VIP_FIP) == Some(&ev.fip) {
                r.external_ids.remove(ext::VIP_FIP);
            }
        }
        let hcs: Vec<&HealthCheckRow> = row
            .health_check
            .iter()
            .filter_map(|u| snap.health_checks.get(u))
            .collect();
        let of_fip = |hc: &&HealthCheckRow| health_check_vip(hc) == ev.fip;
        if ev.associate {
            let Ok(fip) = ev.fip.parse::<IpAddr>() else {
                continue;
            };
            let related = related_vips(row, ev);
            for hc in hcs
                .iter()
                .filter(|hc| related.contains(&health_check_vip(hc)))
            {
                let hm = hc.external_ids.get(ext::HC_HEALTHMONITOR);
                let exists = hcs
                    .iter()
                    .any(|o| of_fip(o) && o.external_ids.get(ext::HC_HEALTHMONITOR) == hm);
                if exists {
                    continue;
                }
                let port = hc
                    .vip
                    .rsplit_once(':')
                    .and_then(|(_, p)| p.parse::<u16>().ok());
                let mut ids = hc.external_ids.clone();
                ids.insert(ext::HC_VIP.into(), ev.fip.clone());
                edit.insert_health_check(&h, crate::hm::hc_vip(fip, port), hc.options.clone(), ids);
            }
        } else {
            let gone: Vec<String> = hcs
                .iter()
                .filter(|hc| of_fip(hc))
                .map(|hc| hc.uuid.clone())
                .collect();
            edit.remove_health_checks(&row.uuid, gone);
        }
    }
    plan.ops = edit.into_ops();
    plan
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nb::{Datum, Op};
    use serde_json::json;

    fn topo() -> NbSnapshot {
        let mut s = NbSnapshot {
            health_check_supported: true,
            ..Default::default()
        };
        s.insert_json(
            "Logical_Switch",
            "ls1",
            &json!({"name": "neutron-n1",
            "load_balancer": ["set", [["uuid", "lbA"]]], "ports": ["set", []]}),
        );
        s.insert_json(
            "Logical_Switch",
            "ls2",
            &json!({"name": "neutron-n2",
            "load_balancer": ["set", [["uuid", "lbB"]]], "ports": ["set", []]}),
        );
        s.insert_json("Logical_Router", "lr1", &json!({"name": "neutron-r1",
            "load_balancer": ["set", [["uuid", "lbB"]]], "ports": ["set", [["uuid", "p1"], ["uuid", "p2"]]]}));
        s.insert_json(
            "Logical_Router_Port",
            "p1",
            &json!({"name": "lrp-1", "networks": "10.0.1.1/24",
            "external_ids": ["map", [["neutron:network_name", "neutron-n1"]]]}),
        );
        s.insert_json(
            "Logical_Router_Port",
            "p2",
            &json!({"name": "lrp-2", "networks": "10.0.2.1/24",
            "external_ids": ["map", [["neutron:network_name", "neutron-n2"]]]}),
        );
        s.insert_json("Load_Balancer", "lbA", &json!({"name": "A",
            "external_ids": ["map", [["neutron:vip", "10.0.1.5"], ["ls_refs", "{\"neutron-n1\": 1}"],
                ["listener_L", "80:pool_P"], ["pool_P", "member_M_10.0.1.9:80_S"], ["enabled", "True"]]],
            "vips": ["map", [["10.0.1.5:80", "10.0.1.9:80"]]]}));
        s.insert_json("Load_Balancer", "lbB", &json!({"name": "B",
            "external_ids": ["map", [["neutron:vip", "10.0.2.5"], ["ls_refs", "{\"neutron-n2\": 1}"],
                ["lr_ref", "neutron-r1"]]]}));
        s
    }

    fn mutations(ops: &[Op]) -> Vec<(String, String, bool)> {
        ops.iter()
            .filter_map(|o| match o {
                Op::Mutate {
                    uuid,
                    insert,
                    value: Datum::Refs(r),
                    ..
                } => Some((uuid.clone(), format!("{r:?}"), *insert)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn router_port_created_associates_both_ways() {
        let s = topo();
        let ev = LrpEvent {
            router: "neutron-r1".into(),
            network: "neutron-n1".into(),
            is_gw: false,
            created: true,
        };
        let plan = lrp_created(&s, &ev);
        let m = mutations(&plan.ops);
        // A joins the router and the router's switches; B joins n1
        assert!(
            m.contains(&("lr1".into(), "[Uuid(\"lbA\")]".into(), true)),
            "{m:?}"
        );
        assert!(
            m.contains(&("ls2".into(), "[Uuid(\"lbA\")]".into(), true)),
            "{m:?}"
        );
        assert!(
            m.contains(&("ls1".into(), "[Uuid(\"lbB\")]".into(), true)),
            "{m:?}"
        );
        let upd = plan.ops.iter().find_map(|o| match o {
            Op::Update { uuid, row, .. } if uuid == "lbA" => Some(row.clone()),
            _ => None,
        });
        let ids = upd.and_then(|r| r.into_iter().find(|(c, _)| *c == "external_ids"));
        assert!(
            matches!(ids, Some((_, Datum::Map(m))) if m.get("lr_ref").map(String::as_str) == Some("neutron-r1"))
        );
        // a gateway port does not pull the router's rows into the network
        let gw = lrp_created(&s, &LrpEvent { is_gw: true, ..ev });
        assert!(!mutations(&gw.ops).contains(&("ls1".into(), "[Uuid(\"lbB\")]".into(), true)));
    }

    #[test]
    fn router_port_deleted_disassociates() {
        let mut s = topo();
        // the deleted interface is gone from the router
        s.routers
            .get_mut("lr1")
            .unwrap()
            .ports
            .retain(|p| p != "p2");
        let ev = LrpEvent {
            router: "neutron-r1".into(),
            network: "neutron-n2".into(),
            is_gw: false,
            created: false,
        };
        let plan = lrp_deleted(&s, &ev);
        let m = mutations(&plan.ops);
        assert!(
            m.contains(&("lr1".into(), "[Uuid(\"lbB\")]".into(), false)),
            "{m:?}"
        );
        assert!(
            m.contains(&("ls1".into(), "[Uuid(\"lbB\")]".into(), false)),
            "{m:?}"
        );
        assert!(
            !m.iter().any(|(u, _, _)| u == "ls2"),
            "B stays on its own network: {m:?}"
        );
    }

    #[test]
    fn fip_associate_and_disassociate() {
        let s = topo();
        let ev = FipEvent {
            lb_id: "A".into(),
            fip: "172.24.4.9".into(),
            associate: true,
            additional: false,
            port: String::new(),
            related: vec!["10.0.1.5".into()],
        };
        let plan = vip_fip(&s, &ev);
        let row = plan
            .ops
            .iter()
            .find_map(|o| match o {
                Op::Update { row, .. } => Some(row.clone()),
                _ => None,
            })
            .unwrap();
        let vips = row
            .iter()
            .find(|(c, _)| *c == "vips")
            .map(|(_, d)| d.clone());
        assert!(
            matches!(vips, Some(Datum::Map(m)) if m.get("172.24.4.9:80").map(String::as_str) == Some("10.0.1.9:80"))
        );
        let mut s2 = s.clone();
        s2.load_balancers
            .get_mut("lbA")
            .unwrap()
            .external_ids
            .insert(ext::VIP_FIP.into(), "172.24.4.9".into());
        let plan = vip_fip(
            &s2,
            &FipEvent {
                associate: false,
                ..ev
            },
        );
        let row = plan
            .ops
            .iter()
            .find_map(|o| match o {
                Op::Update { row, .. } => Some(row.clone()),
                _ => None,
            })
            .unwrap();
        let ids = row
            .iter()
            .find(|(c, _)| *c == "external_ids")
            .map(|(_, d)| d.clone());
        assert!(matches!(ids, Some(Datum::Map(m)) if !m.contains_key(ext::VIP_FIP)));
    }

    fn with_hc(s: &mut NbSnapshot, uuid: &str, vip: &str, octavia_vip: &str) {
        s.insert_json(
            "Load_Balancer_Health_Check",
            uuid,
            &json!({"vip": vip, "options": ["map", [["interval", "5"], ["timeout", "3"]]],
                "external_ids": ["map", [["octavia:healthmonitor", "H"],
                    ["octavia:pool_id", "P"], ["octavia:vip", octavia_vip]]]}),
        );
        s.load_balancers
            .get_mut("lbA")
            .unwrap()
            .health_check
            .push(uuid.to_string());
    }

    #[test]
    fn fip_health_checks_follow_the_fip() {
        let mut s = topo();
        with_hc(&mut s, "hc1", "10.0.1.5:80", "10.0.1.5");
        let ev = FipEvent {
            lb_id: "A".into(),
            fip: "172.24.4.9".into(),
            associate: true,
            additional: false,
            port: String::new(),
            related: vec!["10.0.1.5".into()],
        };
        let plan = vip_fip(&s, &ev);
        let inserts: Vec<_> = plan
            .ops
            .iter()
            .filter_map(|o| match o {
                Op::Insert { table, row, .. } => Some((*table, row.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(inserts.len(), 1, "{:?}", plan.ops);
        let (table, row) = &inserts[0];
        assert_eq!(*table, "Load_Balancer_Health_Check");
        assert_eq!(row[0], ("vip", Datum::Str("172.24.4.9:80".into())));
        let Datum::Map(ids) = &row[2].1 else { panic!() };
        assert_eq!(ids["octavia:vip"], "172.24.4.9");
        assert_eq!(ids["octavia:healthmonitor"], "H");
        assert_eq!(ids["octavia:pool_id"], "P");
        let Datum::Map(opts) = &row[1].1 else {
            panic!()
        };
        assert_eq!(opts["interval"], "5");
        // referenced from the LB row in the same transaction
        assert!(plan.ops.iter().any(|o| matches!(o,
            Op::Mutate { uuid, column: "health_check", insert: true, .. } if uuid == "lbA")));
        // an additional port that holds none of the row's VIPs: no copy
        let other = vip_fip(
            &s,
            &FipEvent {
                additional: true,
                port: "ap9".into(),
                related: vec!["10.0.9.9".into()],
                ..ev.clone()
            },
        );
        assert!(!other.ops.iter().any(|o| matches!(o, Op::Insert { .. })));
        // the copy exists already (event seen twice): nothing inserted
        let mut s2 = s.clone();
        with_hc(&mut s2, "hc2", "172.24.4.9:80", "172.24.4.9");
        s2.load_balancers
            .get_mut("lbA")
            .unwrap()
            .external_ids
            .insert(ext::VIP_FIP.into(), "172.24.4.9".into());
        let again = vip_fip(&s2, &ev);
        assert!(!again.ops.iter().any(|o| matches!(o, Op::Insert { .. })));
        // disassociation drops the FIP's health check, keeps the VIP's
        let gone = vip_fip(
            &s2,
            &FipEvent {
                associate: false,
                ..ev
            },
        );
        let hc = gone.ops.iter().find_map(|o| match o {
            Op::Update { row, .. } => row.iter().find(|(c, _)| *c == "health_check").cloned(),
            _ => None,
        });
        assert_eq!(
            hc,
            Some((
                "health_check",
                Datum::Refs(vec![crate::nb::RowRef::Uuid("hc1".into())])
            ))
        );
    }

    /// The inserted health checks' `(vip, octavia:vip)`.
    fn inserted_hcs(plan: &Plan) -> Vec<(String, String)> {
        plan.ops
            .iter()
            .filter_map(|o| match o {
                Op::Insert { table, row, .. } if *table == "Load_Balancer_Health_Check" => {
                    let vip = row.iter().find_map(|(c, d)| match (c, d) {
                        (&"vip", Datum::Str(s)) => Some(s.clone()),
                        _ => None,
                    })?;
                    let ov = row.iter().find_map(|(c, d)| match (c, d) {
                        (&"external_ids", Datum::Map(m)) => m.get("octavia:vip").cloned(),
                        _ => None,
                    })?;
                    Some((vip, ov))
                }
                _ => None,
            })
            .collect()
    }

    /// Issue 45: Neutron leaves the switch port of Keel's VIP port (no `device_owner`) without
    /// `addresses`, so the event carries no address; the VIP comes from the row: `neutron:vip`
    /// for the main port, the additional VIP at the port's position for an additional one.
    #[test]
    fn fip_health_checks_come_from_the_row_not_the_switch_port() {
        let mut s = topo();
        with_hc(&mut s, "hc1", "10.0.1.5:80", "10.0.1.5");
        with_hc(&mut s, "hc2", "10.0.1.6:80", "10.0.1.6");
        with_hc(&mut s, "hc3", "10.0.1.7:80", "10.0.1.7");
        let ids = &mut s.load_balancers.get_mut("lbA").unwrap().external_ids;
        ids.insert(ext::ADDITIONAL_VIPS.into(), "10.0.1.6,10.0.1.7".into());
        ids.insert(ext::ADDITIONAL_VIP_PORT_IDS.into(), "ap1,ap2".into());
        let main = FipEvent {
            lb_id: "A".into(),
            fip: "172.24.4.9".into(),
            associate: true,
            additional: false,
            port: "vp".into(),
            related: vec![],
        };
        assert_eq!(
            inserted_hcs(&vip_fip(&s, &main)),
            vec![("172.24.4.9:80".to_string(), "172.24.4.9".to_string())]
        );
        let addl = FipEvent {
            fip: "172.24.4.10".into(),
            additional: true,
            port: "ap2".into(),
            ..main.clone()
        };
        let plan = vip_fip(&s, &addl);
        assert_eq!(
            inserted_hcs(&plan),
            vec![("172.24.4.10:80".to_string(), "172.24.4.10".to_string())]
        );
        // the copy is of the additional VIP's own health check (hc3's options are all alike:
        // the VIP it was copied from is told by `related_vips`)
        let row = &s.load_balancers["lbA"];
        assert_eq!(related_vips(row, &addl), vec!["10.0.1.7".to_string()]);
        assert_eq!(related_vips(row, &main), vec!["10.0.1.5".to_string()]);
        // a port the row does not name: no VIP of the row
        let other = FipEvent {
            port: "ap9".into(),
            ..addl
        };
        assert!(inserted_hcs(&vip_fip(&s, &other)).is_empty());
    }

    #[test]
    fn health_check_vip_of_a_row() {
        let hc = |vip: &str, ov: Option<&str>| HealthCheckRow {
            vip: vip.into(),
            external_ids: ov
                .map(|v| [(ext::HC_VIP.to_string(), v.to_string())].into())
                .unwrap_or_default(),
            ..Default::default()
        };
        assert_eq!(
            health_check_vip(&hc("10.0.0.1:80", Some("10.0.0.2"))),
            "10.0.0.2"
        );
        assert_eq!(health_check_vip(&hc("10.0.0.1:80", None)), "10.0.0.1");
        assert_eq!(health_check_vip(&hc("[fd00::1]:80", None)), "fd00::1");
        assert_eq!(health_check_vip(&hc("", None)), "");
    }

    #[test]
    fn an_event_the_port_contradicts_is_dropped() {
        let mut s = topo();
        s.insert_json(
            "Logical_Switch_Port",
            "vp",
            &json!({"name": "vp", "addresses": "fa:16:3e:00:00:05 10.0.1.5",
                "external_ids": ["map", [["neutron:port_name", "ovn-lb-vip-A"]]]}),
        );
        let ev = FipEvent {
            lb_id: "A".into(),
            fip: "172.24.4.9".into(),
            associate: true,
            additional: false,
            port: String::new(),
            related: vec!["10.0.1.5".into()],
        };
        // the port has no FIP (any more): a late association is not applied
        assert!(vip_fip(&s, &ev).ops.is_empty());
        // the port has it: applied
        s.switch_ports
            .get_mut("vp")
            .unwrap()
            .external_ids
            .insert(PORT_FIP.into(), "172.24.4.9".into());
        assert!(!vip_fip(&s, &ev).ops.is_empty());
        // a late disassociation of a FIP the port has again is not applied
        s.load_balancers
            .get_mut("lbA")
            .unwrap()
            .external_ids
            .insert(ext::VIP_FIP.into(), "172.24.4.9".into());
        let gone = FipEvent {
            associate: false,
            ..ev
        };
        assert!(vip_fip(&s, &gone).ops.is_empty());
    }
}
