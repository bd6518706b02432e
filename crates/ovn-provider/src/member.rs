//! Member create / update / delete / batch (seed 000 §5).

use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;

use provider::{OperatingStatus as Op, ProvisioningStatus as Prov};

use crate::edit::{Edit, LbRef};
use crate::external_ids::{self as ext, MemberEntry};
use crate::lb::tree;
use crate::nb::NbSnapshot;
use crate::plan::{Plan, PlanError, SubnetInfo};
use crate::status::{Kind, merge, put};

/// A member as the handlers use it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberReq {
    /// Octavia member UUID (the `member_<id>_…` entry in the pool's `external_ids` value).
    pub id: String,
    /// UUID of the member's pool (its `pool_<id>` key in `external_ids`).
    pub pool_id: String,
    /// Member address (IPv4 or IPv6): a backend in the LB's `vips` column.
    pub address: IpAddr,
    /// protocol_port.
    pub port: u16,
    /// Subnet id (the VIP subnet when the user gave none).
    pub subnet_id: String,
    /// admin_state_up.
    pub enabled: bool,
    /// The subnet `subnet_id` names as the API read it (the request's
    /// [`provider::Member::subnet`]); `None`: read it from Neutron when needed.
    pub subnet: Option<provider::Subnet>,
}

impl MemberReq {
    /// The `external_ids` entry.
    pub fn entry(&self) -> MemberEntry {
        MemberEntry {
            id: self.id.clone(),
            address: self.address,
            port: self.port,
            subnet_id: self.subnet_id.clone(),
        }
    }
}

/// Neutron facts for member handlers: subnets by id, and the health-check source IP of each
/// subnet (`ovn-lb-hm-<subnet>` port), present only where it exists or was just created.
#[derive(Debug, Clone, Default)]
pub struct MemberFacts {
    /// Subnets by id.
    pub subnets: BTreeMap<String, SubnetInfo>,
    /// HM port IP by subnet id.
    pub hm_source: BTreeMap<String, String>,
}

impl MemberFacts {
    /// The switches of the subnets (`neutron-<network id>`), for widening a scoped snapshot.
    pub fn switch_names(&self) -> Vec<String> {
        self.subnets
            .values()
            .map(|s| ext::ovn_name(&s.network_id))
            .collect()
    }
}

/// `ip_port_mappings` key of an address: IPv6 in brackets (`[2001:db8::1]`), as the reference
/// and ovn-northd expect.
pub fn mapping_key(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(a) => a.to_string(),
        IpAddr::V6(a) => format!("[{a}]"),
    }
}

/// `ip_port_mappings` value: `<LSP name>:<HM source ip>`, IPv6 source in brackets.
pub fn mapping_value(lsp: &str, src: &str) -> String {
    match src.parse::<IpAddr>() {
        Ok(ip @ IpAddr::V6(_)) => format!("{lsp}:{}", mapping_key(ip)),
        _ => format!("{lsp}:{src}"),
    }
}

/// Register a member in `ip_port_mappings` (`<member ip>` = `<LSP name>:<HM source ip>`):
/// ONLINE on success, ERROR when its port or the HM port is missing.
pub fn map_member(edit: &mut Edit<'_>, h: &LbRef, m: &MemberEntry, facts: &MemberFacts) -> Op {
    let snap = edit.snap;
    let lsp = facts
        .subnets
        .get(&m.subnet_id)
        .and_then(|s| snap.switch_named(&ext::ovn_name(&s.network_id)))
        .and_then(|ls| snap.port_with_ip(ls, m.address));
    let (Some(lsp), Some(src)) = (lsp, facts.hm_source.get(&m.subnet_id)) else {
        return Op::Error;
    };
    if let Some(r) = edit.row_mut(h) {
        r.ip_port_mappings
            .insert(mapping_key(m.address), mapping_value(&lsp, src));
    }
    Op::Online
}

/// Remove a member's mapping unless another pool of the row still monitors the same address.
pub fn unmap_member(edit: &mut Edit<'_>, h: &LbRef, pool_key: &str, address: IpAddr) {
    let Some(r) = edit.row_mut(h) else { return };
    let statuses = ext::parse_member_status(&r.external_ids);
    let still_used = r
        .external_ids
        .iter()
        .filter(|(k, _)| k.starts_with(ext::POOL_PREFIX) && *k != pool_key)
        .any(|(_, v)| {
            ext::parse_pool_members(v).0.iter().any(|o| {
                o.address == address
                    && statuses.get(&o.id).map(String::as_str) != Some("NO_MONITOR")
            })
        });
    if !still_used {
        r.ip_port_mappings.remove(&mapping_key(address));
    }
}

/// The row's `neutron:member_status` map (member id → operating status), read once per
/// request; see [`write_member_statuses`].
fn member_statuses(edit: &Edit<'_>, h: &LbRef) -> BTreeMap<String, String> {
    edit.row(h)
        .map(|r| ext::parse_member_status(&r.external_ids))
        .unwrap_or_default()
}

/// Writes the `neutron:member_status` map back; the key goes when no entry is left.
fn write_member_statuses(edit: &mut Edit<'_>, h: &LbRef, st: &BTreeMap<String, String>) {
    if let Some(r) = edit.row_mut(h) {
        if st.is_empty() {
            r.external_ids.remove(ext::MEMBER_STATUS);
        } else {
            r.external_ids
                .insert(ext::MEMBER_STATUS.into(), ext::format_member_status(st));
        }
    }
}

/// Writes (or with `None` removes) one member's entry of `neutron:member_status`; the key
/// goes when no entry is left.
pub(crate) fn set_member_status(edit: &mut Edit<'_>, h: &LbRef, id: &str, op: Option<Op>) {
    let mut st = member_statuses(edit, h);
    match op {
        Some(op) => {
            st.insert(id.to_string(), op.as_str().to_string());
        }
        None => {
            st.remove(id);
        }
    }
    write_member_statuses(edit, h, &st);
}

fn pool_entries(edit: &Edit<'_>, h: &LbRef, key: &str) -> Vec<MemberEntry> {
    edit.row(h)
        .and_then(|r| r.external_ids.get(key))
        .map(|v| ext::parse_pool_members(v).0)
        .unwrap_or_default()
}

fn set_pool_entries(edit: &mut Edit<'_>, h: &LbRef, key: &str, entries: &[MemberEntry]) {
    if let Some(r) = edit.row_mut(h) {
        r.external_ids
            .insert(key.to_string(), ext::format_pool_members(entries));
    }
}

/// Attach the row to the member's switch (counted in `ls_refs`) and to the routers of the
/// member subnet with their switches (`lr_ref`).
fn attach_member_network(edit: &mut Edit<'_>, h: &LbRef, subnet: &SubnetInfo) {
    let snap = edit.snap;
    let ls_name = ext::ovn_name(&subnet.network_id);
    let Some(ls) = snap.switch_named(&ls_name) else {
        return;
    };
    if NbSnapshot::is_provider_network(ls) {
        return;
    }
    let ipv4 = edit
        .row(h)
        .and_then(|r| r.external_ids.get(ext::VIP))
        .and_then(|v| v.parse::<IpAddr>().ok())
        .is_none_or(|a| a.is_ipv4());
    let mut attach_ls = false;
    let mut new_routers = Vec::new();
    if let Some(r) = edit.row_mut(h) {
        let mut refs = ext::parse_ls_refs(&r.external_ids);
        let n = refs.entry(ls_name.clone()).or_insert(0);
        *n += 1;
        attach_ls = *n == 1;
        r.external_ids
            .insert(ext::LS_REFS.into(), ext::format_ls_refs(&refs));
        let mut lr_ref = ext::parse_lr_ref(&r.external_ids);
        for lr in snap.routers_of_switch(ls, Some(&subnet.cidr)) {
            if !lr_ref.contains(&lr.name) {
                lr_ref.push(lr.name.clone());
            }
            new_routers.push(lr);
        }
        if !lr_ref.is_empty() {
            r.external_ids.insert(ext::LR_REF.into(), lr_ref.join(","));
        }
    }
    if attach_ls {
        edit.attach_switch(h, &ls.uuid);
    }
    for lr in new_routers {
        edit.attach_router(h, &lr.uuid);
        for name in snap.switches_of_router(lr, ipv4) {
            if let Some(s) = snap.switch_named(&name) {
                edit.attach_switch(h, &s.uuid);
            }
        }
    }
}

/// Decrement the member switch's `ls_refs`; at 0 drop the key and detach the row.
fn detach_member_network(edit: &mut Edit<'_>, h: &LbRef, subnet: Option<&SubnetInfo>) {
    let snap = edit.snap;
    let Some(subnet) = subnet else { return };
    let ls_name = ext::ovn_name(&subnet.network_id);
    let mut detach = false;
    if let Some(r) = edit.row_mut(h) {
        let mut refs = ext::parse_ls_refs(&r.external_ids);
        match refs.get_mut(&ls_name) {
            Some(n) if *n > 1 => *n -= 1,
            Some(_) => {
                refs.remove(&ls_name);
                detach = true;
            }
            None => return,
        }
        r.external_ids
            .insert(ext::LS_REFS.into(), ext::format_ls_refs(&refs));
    }
    if let (true, LbRef::Existing(u), Some(ls)) = (detach, h, snap.switch_named(&ls_name)) {
        edit.detach_switch(u, &ls.uuid);
    }
}

/// Add members to their pool's row (`member_create`, batch creates). The pool's entries and
/// the status map are read and written once, not once per member (a batch of 200 spent most
/// of its planning re-formatting them).
pub fn add(
    edit: &mut Edit<'_>,
    plan: &mut Plan,
    h: &LbRef,
    key: &str,
    members: &[MemberReq],
    facts: &MemberFacts,
) {
    let mut entries = pool_entries(edit, h, key);
    let mut statuses = member_statuses(edit, h);
    let mut ids: BTreeSet<String> = entries.iter().map(|e| e.id.clone()).collect();
    let has_hc = edit.row(h).is_some_and(|r| !r.health_check.is_empty());
    let before = entries.len();
    for m in members {
        if !ids.insert(m.id.clone()) {
            continue;
        }
        let entry = m.entry();
        if let Some(s) = facts.subnets.get(&m.subnet_id) {
            attach_member_network(edit, h, s);
        }
        centralise_member_fip(edit, h, &entry, facts);
        let op = if !m.enabled {
            Op::Offline
        } else if has_hc {
            map_member(edit, h, &entry, facts)
        } else {
            Op::NoMonitor
        };
        entries.push(entry);
        statuses.insert(m.id.clone(), op.as_str().to_string());
        put(
            &mut plan.report,
            Kind::Member,
            &m.id,
            Some(Prov::Active),
            Some(op),
        );
    }
    if entries.len() != before {
        set_pool_entries(edit, h, key, &entries);
        write_member_statuses(edit, h, &statuses);
    }
}

/// `NAT.external_ids` key naming the Neutron port of a floating IP (Neutron's key).
pub const NAT_FIP_PORT: &str = "neutron:fip_port_id";

/// True when the row's VIP (or an additional VIP) has a floating IP.
fn row_has_vip_fip(edit: &Edit<'_>, h: &LbRef) -> bool {
    edit.row(h).is_some_and(|r| {
        r.external_ids
            .get(ext::VIP_FIP)
            .is_some_and(|v| !v.is_empty())
            || r.external_ids
                .get(ext::ADDITIONAL_VIP_FIPS)
                .is_some_and(|v| !v.is_empty())
    })
}

/// The member's `Logical_Switch_Port` name (its Neutron port id): the port of its subnet's
/// switch holding its address.
fn member_lsp(edit: &Edit<'_>, m: &MemberEntry, facts: &MemberFacts) -> Option<String> {
    let snap = edit.snap;
    facts
        .subnets
        .get(&m.subnet_id)
        .and_then(|s| snap.switch_named(&ext::ovn_name(&s.network_id)))
        .and_then(|ls| snap.port_with_ip(ls, m.address))
}

/// `handle_member_dvr`, member added: when the load balancer's VIP has a FIP, the member's own
/// FIP (the `NAT` row with `external_ids:neutron:fip_port_id` = its port) loses `external_mac`
/// and `logical_port`, so its traffic is centralised on the gateway chassis. Only those two
/// columns of Neutron's row are written, in the member's transaction (the reference clears
/// them in two later transactions).
pub fn centralise_member_fip(edit: &mut Edit<'_>, h: &LbRef, m: &MemberEntry, facts: &MemberFacts) {
    if !row_has_vip_fip(edit, h) {
        return;
    }
    let Some(lsp) = member_lsp(edit, m, facts) else {
        return;
    };
    edit.push(crate::nb::Op::UpdateWhereIncludes {
        table: "NAT",
        column: "external_ids",
        key: NAT_FIP_PORT.into(),
        value: lsp,
        row: vec![
            ("external_mac", crate::nb::Datum::Set(vec![])),
            ("logical_port", crate::nb::Datum::Set(vec![])),
        ],
    });
}

/// Remove members from their pool's row (`member_delete`, batch deletes, pool delete); the
/// entries and the status map are read and written once, as in [`add`]. Another pool's
/// mapping check ([`unmap_member`]) reads only the other pools' entries, which this does not
/// change.
pub fn remove(
    edit: &mut Edit<'_>,
    plan: &mut Plan,
    h: &LbRef,
    key: &str,
    ids: &[String],
    facts: &MemberFacts,
) {
    let mut entries = pool_entries(edit, h, key);
    let mut statuses = member_statuses(edit, h);
    let has_hc = edit.row(h).is_some_and(|r| !r.health_check.is_empty());
    let before = entries.len();
    for id in ids {
        if let Some(pos) = entries.iter().position(|e| &e.id == id) {
            let gone = entries.remove(pos);
            if has_hc {
                unmap_member(edit, h, key, gone.address);
                if !gone.subnet_id.is_empty() && !plan.hm_subnets.contains(&gone.subnet_id) {
                    plan.hm_subnets.push(gone.subnet_id.clone());
                }
            }
            if row_has_vip_fip(edit, h)
                && let Some(lsp) = member_lsp(edit, &gone, facts)
                && !plan.fip_ports.contains(&lsp)
            {
                plan.fip_ports.push(lsp);
            }
            detach_member_network(edit, h, facts.subnets.get(&gone.subnet_id));
            statuses.remove(id);
        }
        put(
            &mut plan.report,
            Kind::Member,
            id,
            Some(Prov::Deleted),
            None,
        );
    }
    if entries.len() != before {
        set_pool_entries(edit, h, key, &entries);
        write_member_statuses(edit, h, &statuses);
    }
}

/// Apply an admin_state_up change to members (`member_update`); the status map is read and
/// written once, as in [`add`].
pub fn set_enabled(
    edit: &mut Edit<'_>,
    plan: &mut Plan,
    h: &LbRef,
    key: &str,
    changes: &[(String, Option<bool>)],
    facts: &MemberFacts,
) {
    let entries: BTreeMap<String, MemberEntry> = pool_entries(edit, h, key)
        .into_iter()
        .map(|e| (e.id.clone(), e))
        .collect();
    let mut statuses = member_statuses(edit, h);
    let has_hc = edit.row(h).is_some_and(|r| !r.health_check.is_empty());
    let mut changed = false;
    for (id, enabled) in changes {
        put(&mut plan.report, Kind::Member, id, Some(Prov::Active), None);
        let Some(enabled) = enabled else { continue };
        let Some(entry) = entries.get(id) else {
            continue;
        };
        let op = if !enabled {
            if has_hc {
                unmap_member(edit, h, key, entry.address);
            }
            Op::Offline
        } else if has_hc {
            let mapped = map_member(edit, h, entry, facts);
            if statuses.get(id).map(String::as_str) == Some("ERROR") {
                Op::Error
            } else {
                mapped
            }
        } else {
            Op::NoMonitor
        };
        statuses.insert(id.clone(), op.as_str().to_string());
        changed = true;
        put(&mut plan.report, Kind::Member, id, None, Some(op));
    }
    if changed {
        write_member_statuses(edit, h, &statuses);
    }
}

/// Subnets of the members already in a pool (from the row's `pool_<id>` entries).
pub fn pool_subnets(snap: &NbSnapshot, pool_id: &str) -> Vec<String> {
    snap.lb_by_pool(pool_id)
        .and_then(|(r, k)| r.external_ids.get(&k).map(|v| ext::parse_pool_members(v).0))
        .unwrap_or_default()
        .into_iter()
        .map(|m| m.subnet_id)
        .collect()
}

/// The row and key of a pool, or NotFound.
pub fn locate(snap: &NbSnapshot, pool_id: &str) -> Result<(LbRef, String, String), PlanError> {
    let (row, key) = snap
        .lb_by_pool(pool_id)
        .ok_or_else(|| PlanError::NotFound(format!("pool_{pool_id}")))?;
    Ok((LbRef::Existing(row.uuid.clone()), key, row.name.clone()))
}

/// One request changing the members of one pool: creates, enabled changes, deletes; all in
/// one transaction, reported with the recomputed tree (the reference splits a batch into
/// several requests and transactions).
pub fn change(
    snap: &NbSnapshot,
    pool_id: &str,
    create: &[MemberReq],
    update: &[(String, Option<bool>)],
    delete: &[String],
    facts: &MemberFacts,
) -> Result<Plan, PlanError> {
    let (h, key, lb_id) = locate(snap, pool_id)?;
    let mut edit = Edit::new(snap);
    let mut plan = Plan::default();
    remove(&mut edit, &mut plan, &h, &key, delete, facts);
    set_enabled(&mut edit, &mut plan, &h, &key, update, facts);
    add(&mut edit, &mut plan, &h, &key, create, facts);
    // a port still (or again) behind a member of the row keeps its FIP centralised
    if !plan.fip_ports.is_empty() {
        let still: Vec<String> = edit
            .row(&h)
            .map(|r| {
                ext::pools(&r.external_ids)
                    .into_iter()
                    .flat_map(|(_, _, members)| members)
                    .filter_map(|m| member_lsp(&edit, &m, facts))
                    .collect()
            })
            .unwrap_or_default();
        plan.fip_ports.retain(|p| !still.contains(p));
    }
    let mut report = tree(&edit, &lb_id, &h);
    // deleted members and explicit statuses win over the tree
    merge(&mut report, std::mem::take(&mut plan.report));
    plan.report = report;
    plan.ops = edit.into_ops();
    Ok(plan)
}

/// Plan a batch update: members in `desired` but not in the pool are created, those present
/// (same id, address, port, subnet) updated, the rest deleted (`driver.py::member_batch_update`).
pub fn batch(
    snap: &NbSnapshot,
    pool_id: &str,
    desired: &[MemberReq],
    facts: &MemberFacts,
) -> Result<Plan, PlanError> {
    let (h, key, _) = locate(snap, pool_id)?;
    let existing = snap
        .load_balancers
        .get(match &h {
            LbRef::Existing(u) => u.as_str(),
            LbRef::New(n) => n.as_str(),
        })
        .and_then(|r| r.external_ids.get(&key))
        .map(|v| ext::parse_pool_members(v).0)
        .unwrap_or_default();
    // sets, not list scans: a batch of 200 against 200 was 40,000 comparisons
    let present: BTreeSet<&MemberEntry> = existing.iter().collect();
    let mut create = Vec::new();
    let mut update = Vec::new();
    let mut keep = BTreeSet::new();
    for m in desired {
        if present.contains(&m.entry()) {
            update.push((m.id.clone(), Some(m.enabled)));
            keep.insert(m.id.as_str());
        } else {
            create.push(m.clone());
        }
    }
    let delete: Vec<String> = existing
        .iter()
        .filter(|e| !keep.contains(e.id.as_str()))
        .map(|e| e.id.clone())
        .collect();
    change(snap, pool_id, &create, &update, &delete, facts)
}
