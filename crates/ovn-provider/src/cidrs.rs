//! A listener's `allowed_cidrs` enforced in OVN (issue 44; the reference answers 501): NB rows
//! only Keel writes, planned here and appended to the listener's or load balancer's one
//! transaction.
//!
//! Per listener with a non-empty list, all named after the listener id `L` (`-` → `_`, as
//! OVN names must be identifiers):
//! * `Address_Set` `keel_L_allow4` / `keel_L_allow6`: the list's CIDRs of each family;
//! * `Address_Set` `keel_L_vip4` / `keel_L_vip6`: the load balancer's addresses of each
//!   family clients connect to (VIP, additional VIPs, their floating IPs);
//! * `Port_Group` `keel_L`: one anchor port on every switch that must filter — the switches
//!   the load balancer's rows are attached to (VIP network, the other networks of its
//!   routers, member networks), and the provider networks of its routers when a floating IP
//!   points at a VIP — and its `ACL`s, all `from-lport`, per family with a VIP: `allow` at
//!   [`PRIORITY`]` + 1` matching `ip4.dst == $keel_L_vip4 && tcp.dst == <port> && ip4.src
//!   == $keel_L_allow4`, then `drop` at [`PRIORITY`] matching the same without the source
//!   (`ip6`, `udp`, `sctp` accordingly; a family the list has no CIDR of has the `drop` only:
//!   every client of that family is refused, as the amphora's security group does). One
//!   `drop` with `ip4.src != $set` instead would be one ACL, but `ovn-controller` expands a
//!   negated set of prefixes into the product of each prefix's bit-mismatch flows (the
//!   figures: README, Compatibility), where the pair costs (addresses × CIDRs) + addresses. The `allow` is stateless on a switch without
//!   `allow-related` ACLs (it does not turn conntrack on there); it takes the listed
//!   clients' connections to the listener past lower-priority ACLs, so a Neutron egress rule
//!   of the client's own security group does not apply to them (the members' ingress
//!   rules, `to-lport`, still do).
//!
//! Why this works (OVN 23.03 `northd.c`): a port group's ACLs are installed, with their match
//! as written, on every switch holding one of its ports (`build_port_group_lswitches`,
//! `build_acls`), so one port per switch is enough and the port's own traffic is not what is
//! filtered; a `from-lport` ACL runs in `ls_in_acl`, before `ls_in_lb`, so a new connection's
//! destination is still the VIP (or the floating IP on the provider network, before the
//! router's NAT). A connection already established when its client leaves the list goes on:
//! `ls_in_pre_stateful`'s `ct_lb_mark` gives its packets the member's address before
//! `ls_in_acl`, where the VIP match no longer holds (measured: README). ACLs sit on the port
//! group, not on `Logical_Switch.acls` (what Neutron's `ovn_db_sync` leaves alone: README,
//! Compatibility).
//!
//! Anchor port of a switch: its first `router` port (router interface or gateway), else its
//! `localnet` port, else a VIP port on it. `Port_Group.ports` is a weak reference: a port
//! Neutron deletes leaves the group by itself, and the agent, which follows Keel's groups,
//! then re-anchors the load balancer's rows ([`crate::agent::anchor_lost`], [`refresh_lb`]).
//!
//! Every row carries `external_ids` [`OWNER_KEY`]=[`OWNER`], [`LB_KEY`]=`<lb id>`, and the
//! listener's rows [`LISTENER_KEY`]=`<listener id>`; writes find rows by those keys only
//! (delete-where / update-where), so Keel never reads or touches a row it did not make.

use std::collections::BTreeSet;
use std::net::IpAddr;

use crate::external_ids as ext;
use crate::nb::{Datum, NbSnapshot, Op, RowRef, StrMap, SwitchRow, Uuid};

/// `external_ids` key marking a row Keel made for `allowed_cidrs`.
pub const OWNER_KEY: &str = "keel:owner";
/// Value of [`OWNER_KEY`].
pub const OWNER: &str = "keel-allowed-cidrs";

/// The `where` clause (and monitor condition) of the rows Keel owns, `external_ids includes
/// {OWNER_KEY: OWNER}`: what the driver's NB monitor follows on `Port_Group`, what
/// `keel ovn-db-sync` reads and `keel ovn-remove-keel-objects` deletes.
pub fn owned_rows() -> ovsdb::Condition {
    ovsdb::Condition::includes("external_ids", ovsdb::Datum::str_map([(OWNER_KEY, OWNER)]))
}

/// `external_ids` key: the Octavia load balancer id the row serves.
pub const LB_KEY: &str = "keel:lb_id";
/// `external_ids` key: the Octavia listener id the row serves.
pub const LISTENER_KEY: &str = "keel:listener_id";
/// `external_ids` key of an `Address_Set`: what it holds, `allow4`/`allow6`/`vip4`/`vip6`.
pub const ROLE_KEY: &str = "keel:role";
/// `ACL.priority` of the drop ACLs (their allow ACLs: one above): above Neutron's
/// security-group ACLs (1000–1002), so an open security group does not let a refused client
/// through.
pub const PRIORITY: i64 = 1010;

/// `Logical_Router_Port.external_ids` key Neutron sets to `True` on a router's gateway port.
const IS_EXT_GW: &str = "neutron:is_ext_gw";
const PG: &str = "Port_Group";
const AS: &str = "Address_Set";
const LSP: &str = crate::nb::indexes::LSP;

/// The `Port_Group` name of a listener's rows (also the prefix of its address sets).
pub fn group_name(listener_id: &str) -> String {
    format!("keel_{}", listener_id.replace('-', "_"))
}

/// The `Address_Set` name of a listener's rows: `role` is `allow` or `vip`, `v6` the family.
pub fn set_name(listener_id: &str, role: &str, v6: bool) -> String {
    format!(
        "{}_{role}{}",
        group_name(listener_id),
        if v6 { "6" } else { "4" }
    )
}

fn owned(lb_id: &str) -> StrMap {
    let mut m = StrMap::new();
    m.insert(OWNER_KEY.into(), OWNER.into());
    m.insert(LB_KEY.into(), lb_id.into());
    m
}

fn where_op(table: &'static str, map: StrMap, row: Vec<(&'static str, Datum)>) -> Op {
    Op::WhereIncludes {
        table,
        column: "external_ids",
        map,
        row,
    }
}

/// Delete every row Keel made for `listener_id` (none: nothing happens). The group's ACLs go
/// with it (ACL rows are garbage-collected once unreferenced).
pub fn remove_listener(listener_id: &str) -> Vec<Op> {
    let mut m = StrMap::new();
    m.insert(OWNER_KEY.into(), OWNER.into());
    m.insert(LISTENER_KEY.into(), listener_id.into());
    vec![where_op(PG, m.clone(), vec![]), where_op(AS, m, vec![])]
}

/// Delete every row Keel made for the listeners of `lb_id`.
pub fn remove_lb(lb_id: &str) -> Vec<Op> {
    vec![
        where_op(PG, owned(lb_id), vec![]),
        where_op(AS, owned(lb_id), vec![]),
    ]
}

/// Delete every row Keel made for `allowed_cidrs`, of every load balancer (before going
/// back to the Python provider, which neither knows nor removes them).
pub fn remove_all() -> Vec<Op> {
    let mut m = StrMap::new();
    m.insert(OWNER_KEY.into(), OWNER.into());
    vec![where_op(PG, m.clone(), vec![]), where_op(AS, m, vec![])]
}

/// What a load balancer's filtering rows depend on, read from its NB rows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Target {
    /// Addresses clients connect to: VIP, additional VIPs, floating IPs (sorted, distinct).
    pub addresses: BTreeSet<IpAddr>,
    /// One anchor `Logical_Switch_Port` uuid per switch that must filter (sorted, distinct).
    pub anchors: BTreeSet<Uuid>,
}

/// The [`Target`] of `lb_id` in `snap`; `None` when the LB has no NB row.
pub fn target(snap: &NbSnapshot, lb_id: &str) -> Option<Target> {
    let rows = snap.lbs_named(lb_id);
    let first = rows.first()?;
    let ids = &first.external_ids;
    let mut t = Target::default();
    let mut vip_ports: Vec<String> = ext::parse_list(ids, ext::ADDITIONAL_VIP_PORT_IDS);
    vip_ports.extend(ids.get(ext::VIP_PORT_ID).cloned());
    let mut fip = false;
    for key in [
        ext::VIP,
        ext::ADDITIONAL_VIPS,
        ext::VIP_FIP,
        ext::ADDITIONAL_VIP_FIPS,
    ] {
        for a in ext::parse_list(ids, key) {
            if let Ok(ip) = a.parse::<IpAddr>() {
                t.addresses.insert(ip);
                fip |= key == ext::VIP_FIP || key == ext::ADDITIONAL_VIP_FIPS;
            }
        }
    }
    let mut switches: Vec<&SwitchRow> = Vec::new();
    for r in &rows {
        push_new(&mut switches, snap.switches_with_lb(&r.uuid));
    }
    let by_name = ext::parse_ls_refs(ids)
        .into_keys()
        .filter_map(|n| snap.switch_named(&n));
    push_new(&mut switches, by_name);
    if fip {
        let mut routers: Vec<_> = ext::parse_lr_ref(ids)
            .iter()
            .filter_map(|n| snap.router_named(n))
            .collect();
        for r in &rows {
            routers.extend(snap.routers_with_lb(&r.uuid));
        }
        let gateways: Vec<&SwitchRow> = routers
            .iter()
            .flat_map(|lr| lr.ports.iter().filter_map(|u| snap.router_ports.get(u)))
            .filter(|p| {
                p.external_ids.get(IS_EXT_GW).map(String::as_str) == Some("True")
                    || !p.gateway_chassis.is_empty()
                    || !p.ha_chassis_group.is_empty()
            })
            .filter_map(|p| p.external_ids.get("neutron:network_name"))
            .filter_map(|net| snap.switch_named(&ext::ovn_name(net)))
            .collect();
        push_new(&mut switches, gateways);
    }
    for s in switches {
        if let Some(a) = anchor(snap, s, &vip_ports) {
            t.anchors.insert(a);
        }
    }
    Some(t)
}

fn push_new<'a>(into: &mut Vec<&'a SwitchRow>, from: impl IntoIterator<Item = &'a SwitchRow>) {
    for s in from {
        if !into.iter().any(|x| x.uuid == s.uuid) {
            into.push(s);
        }
    }
}

/// The anchor port of `ls` (see the module's text); `None` when it has none of them.
fn anchor(snap: &NbSnapshot, ls: &SwitchRow, vip_ports: &[String]) -> Option<Uuid> {
    let kind = |u: &Uuid| -> Option<String> {
        match (snap.switch_ports.get(u), &snap.source) {
            (Some(p), _) => Some(p.kind.clone()),
            (None, Some(src)) => src.0.strings(LSP, u, "type").into_iter().next(),
            (None, None) => None,
        }
    };
    // decoded ports first: a scoped snapshot decodes a switch's router ports
    let decoded = ls.ports.iter().find(|u| {
        snap.switch_ports
            .get(*u)
            .is_some_and(|p| p.kind == "router")
    });
    if let Some(u) = decoded {
        return Some(u.clone());
    }
    for want in ["router", "localnet"] {
        if let Some(u) = ls.ports.iter().find(|u| kind(u).as_deref() == Some(want)) {
            return Some(u.clone());
        }
    }
    for name in vip_ports {
        let on_ls = |u: &Uuid| ls.ports.contains(u);
        let found = snap
            .switch_ports
            .values()
            .find(|p| &p.name == name && on_ls(&p.uuid))
            .map(|p| p.uuid.clone())
            .or_else(|| {
                let src = snap.source.as_ref()?;
                src.0.named(LSP, name).into_iter().find(|u| on_ls(u))
            });
        if found.is_some() {
            return found;
        }
    }
    None
}

/// The CIDRs of one family, normalised (host bits cleared, as Octavia stores them) and
/// distinct; entries that do not parse are left out (the API refused them already).
pub fn family(cidrs: &[String], v6: bool) -> Vec<String> {
    let mut out = BTreeSet::new();
    for c in cidrs {
        if let Some(n) = normalise(c)
            && n.contains(':') == v6
        {
            out.insert(n);
        }
    }
    out.into_iter().collect()
}

/// `addr/len` with the host bits cleared (`10.1.2.3/8` → `10.0.0.0/8`); a bare address is a
/// host route. `None` when it is not a CIDR.
pub fn normalise(cidr: &str) -> Option<String> {
    let (a, len) = match cidr.split_once('/') {
        Some((a, l)) => (a, Some(l.parse::<u8>().ok()?)),
        None => (cidr, None),
    };
    let ip: IpAddr = a.parse().ok()?;
    Some(match ip {
        IpAddr::V4(v4) => {
            let len = len.unwrap_or(32);
            if len > 32 {
                return None;
            }
            let mask = u32::MAX.checked_shl(32 - u32::from(len)).unwrap_or(0);
            format!("{}/{len}", std::net::Ipv4Addr::from(u32::from(v4) & mask))
        }
        IpAddr::V6(v6) => {
            let len = len.unwrap_or(128);
            if len > 128 {
                return None;
            }
            let mask = u128::MAX.checked_shl(128 - u32::from(len)).unwrap_or(0);
            format!("{}/{len}", std::net::Ipv6Addr::from(u128::from(v6) & mask))
        }
    })
}

/// What one listener's rows are made from.
#[derive(Debug, Clone)]
pub struct ListenerCidrs<'a> {
    /// Octavia listener id.
    pub listener_id: &'a str,
    /// Its load balancer's id.
    pub lb_id: &'a str,
    /// `TCP` / `UDP` / `SCTP` (any case).
    pub protocol: &'a str,
    /// `protocol_port`.
    pub port: u16,
    /// `allowed_cidrs`; empty: everyone is allowed (no row).
    pub cidrs: &'a [String],
}

/// Replace the rows of a listener: delete what Keel had made for it, then, when the list is
/// not empty and the LB has an NB row, insert its address sets, ACLs and port group anew.
pub fn listener(snap: &NbSnapshot, l: &ListenerCidrs<'_>) -> Vec<Op> {
    let mut ops = remove_listener(l.listener_id);
    if l.cidrs.is_empty() {
        return ops;
    }
    let Some(t) = target(snap, l.lb_id) else {
        return ops;
    };
    let mut ids = owned(l.lb_id);
    ids.insert(LISTENER_KEY.into(), l.listener_id.into());
    let proto = l.protocol.to_ascii_lowercase();
    let mut acls = Vec::new();
    for v6 in [false, true] {
        let vips: Vec<String> = t
            .addresses
            .iter()
            .filter(|a| a.is_ipv6() == v6)
            .map(IpAddr::to_string)
            .collect();
        if vips.is_empty() {
            continue;
        }
        let ip = if v6 { "ip6" } else { "ip4" };
        let allowed = family(l.cidrs, v6);
        let vip_set = set_name(l.listener_id, "vip", v6);
        ops.push(address_set(
            &vip_set,
            vips,
            &ids,
            &format!("vip{}", &ip[2..]),
        ));
        let to_listener = format!("{ip}.dst == ${vip_set} && {proto}.dst == {}", l.port);
        let mut rules = Vec::new();
        if !allowed.is_empty() {
            let allow_set = set_name(l.listener_id, "allow", v6);
            let m = format!("{to_listener} && {ip}.src == ${allow_set}");
            rules.push(("allow", PRIORITY + 1, m, "allow"));
            ops.push(address_set(
                &allow_set,
                allowed,
                &ids,
                &format!("allow{}", &ip[2..]),
            ));
        }
        rules.push(("drop", PRIORITY, to_listener, "drop"));
        for (kind, priority, m, action) in rules {
            let name = format!("{}_{kind}_{ip}", group_name(l.listener_id));
            ops.push(Op::Insert {
                table: "ACL",
                uuid_name: name.clone(),
                row: vec![
                    ("priority", Datum::Int(priority)),
                    ("direction", Datum::Str("from-lport".into())),
                    ("match", Datum::Str(m)),
                    ("action", Datum::Str(action.into())),
                    ("external_ids", Datum::Map(ids.clone())),
                ],
            });
            acls.push(RowRef::Named(name));
        }
    }
    ops.push(Op::Insert {
        table: PG,
        uuid_name: group_name(l.listener_id),
        row: vec![
            ("name", Datum::Str(group_name(l.listener_id))),
            (
                "ports",
                Datum::Refs(t.anchors.iter().cloned().map(RowRef::Uuid).collect()),
            ),
            ("acls", Datum::Refs(acls)),
            ("external_ids", Datum::Map(ids)),
        ],
    });
    ops
}

/// [`listener`] for a planner request: nothing when its `allowed_cidrs` is `None` (an update
/// leaving the list as it was; a create without one writes nothing either); an update from
/// a non-empty list to one with CIDRs of the same IP families is [`in_place`].
pub fn listener_req(snap: &NbSnapshot, l: &crate::listener::ListenerReq) -> Vec<Op> {
    let Some(cidrs) = &l.allowed_cidrs else {
        return Vec::new();
    };
    let req = ListenerCidrs {
        listener_id: &l.id,
        lb_id: &l.lb_id,
        protocol: &l.protocol,
        port: l.port,
        cidrs,
    };
    let families = |list: &[String]| [false, true].map(|v6| !family(list, v6).is_empty());
    if !cidrs.is_empty()
        && !l.previous_cidrs.is_empty()
        && families(cidrs) == families(&l.previous_cidrs)
    {
        return in_place(&req);
    }
    listener(snap, &req)
}

/// The list changed within the same IP families: only the allow sets' `addresses` are
/// rewritten, where Keel's keys find them. Replacing the rows instead (new port group, ACL
/// and sets) makes `ovn-controller` recompute every logical flow (13 s a change on the
/// loaded 2-core stack), where an address set's change is processed incrementally.
pub fn in_place(l: &ListenerCidrs<'_>) -> Vec<Op> {
    let mut ops = Vec::new();
    for (v6, role) in [(false, "allow4"), (true, "allow6")] {
        let list = family(l.cidrs, v6);
        if list.is_empty() {
            continue;
        }
        let mut m = owned(l.lb_id);
        m.insert(LISTENER_KEY.into(), l.listener_id.into());
        m.insert(ROLE_KEY.into(), role.into());
        ops.push(where_op(AS, m, vec![("addresses", Datum::Set(list))]));
    }
    ops
}

fn address_set(name: &str, addresses: Vec<String>, ids: &StrMap, role: &str) -> Op {
    let mut ids = ids.clone();
    ids.insert(ROLE_KEY.into(), role.into());
    Op::Insert {
        table: AS,
        uuid_name: format!("{name}_row"),
        row: vec![
            ("name", Datum::Str(name.into())),
            ("addresses", Datum::Set(addresses)),
            ("external_ids", Datum::Map(ids)),
        ],
    }
}

/// Bring the rows of every listener of `lb_id` up to date with the LB's addresses and
/// switches (a floating IP or a network came or went): anchors and VIP sets rewritten where
/// Keel's ownership keys find them; no row: nothing happens.
pub fn refresh_lb(snap: &NbSnapshot, lb_id: &str) -> Vec<Op> {
    let Some(t) = target(snap, lb_id) else {
        return Vec::new();
    };
    let mut ops = vec![where_op(
        PG,
        owned(lb_id),
        vec![(
            "ports",
            Datum::Refs(t.anchors.iter().cloned().map(RowRef::Uuid).collect()),
        )],
    )];
    for (v6, role) in [(false, "vip4"), (true, "vip6")] {
        let vips: Vec<String> = t
            .addresses
            .iter()
            .filter(|a| a.is_ipv6() == v6)
            .map(IpAddr::to_string)
            .collect();
        if vips.is_empty() {
            continue;
        }
        let mut m = owned(lb_id);
        m.insert(ROLE_KEY.into(), role.into());
        ops.push(where_op(AS, m, vec![("addresses", Datum::Set(vips))]));
    }
    ops
}

/// [`refresh_lb`] of every load balancer whose rows or switch/router references `ops` (a
/// planned transaction) change, computed on `snap` with `ops` applied ([`crate::sim`]): a
/// member on a new network, a router interface, a floating IP. Nothing when the simulation
/// fails (`ovn-db-sync` then repairs).
pub fn refresh_touched(snap: &NbSnapshot, ops: &[Op]) -> Vec<Op> {
    let mut names = BTreeSet::new();
    let mut name_of = |u: &Uuid| {
        if let Some(r) = snap.load_balancers.get(u) {
            names.insert(r.name.clone());
        }
    };
    for op in ops {
        match op {
            Op::Update {
                table: "Load_Balancer",
                uuid,
                ..
            }
            | Op::Mutate {
                table: "Load_Balancer",
                uuid,
                ..
            } => name_of(uuid),
            Op::Mutate {
                table: "Logical_Switch" | "Logical_Router",
                value: Datum::Refs(refs),
                ..
            } => {
                for r in refs {
                    if let RowRef::Uuid(u) = r {
                        name_of(u);
                    }
                }
            }
            _ => {}
        }
    }
    if names.is_empty() {
        return Vec::new();
    }
    let mut after = snap.clone();
    if crate::sim::apply(&mut after, ops, &mut 0).is_err() {
        return Vec::new();
    }
    names.iter().flat_map(|n| refresh_lb(&after, n)).collect()
}

pub mod check;

#[cfg(test)]
mod tests;
