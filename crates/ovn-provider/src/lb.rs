//! Load balancer create / update / delete (seed 000 §2.2–§2.4).

use std::collections::BTreeMap;
use std::net::IpAddr;

use provider::{OperatingStatus as Op, ProvisioningStatus as Prov, StatusReport};

use crate::edit::{Edit, LbRef};
use crate::external_ids::{self as ext, ExternalIds};
use crate::flavor::{self, OvnFlavor};
use crate::nb::{LoadBalancerRow, NbSnapshot};
use crate::plan::{Plan, PlanError, SubnetInfo};
use crate::status::{self, Kind, put};

/// Hash fields per pool algorithm (`LB_SELECTION_FIELDS_MAP`); `None` is the default of a row
/// created before any pool.
pub fn selection_fields(algorithm: Option<&str>) -> Vec<String> {
    let f: &[&str] = match algorithm {
        Some("SOURCE_IP_PORT") => &["ip_dst", "ip_src", "tp_dst", "tp_src"],
        Some("SOURCE_IP") => &["ip_src", "ip_dst"],
        _ => &["ip_src", "ip_dst", "tp_src", "tp_dst"],
    };
    f.iter().map(|s| s.to_string()).collect()
}

/// The hash fields of a row for a pool `algorithm` (`None`: the row before its first pool):
/// those the row's flavor sets ([`flavor::selection_fields`]), else [`selection_fields`].
pub fn selection_fields_of(ids: &ExternalIds, algorithm: Option<&str>) -> Vec<String> {
    flavor::selection_fields(ids, algorithm).unwrap_or_else(|| selection_fields(algorithm))
}

/// Python `str(bool)`.
pub fn py_bool(b: bool) -> String {
    if b { "True" } else { "False" }.to_string()
}

/// What `loadbalancer_create` needs, the VIP port already read from Neutron.
#[derive(Debug, Clone, Default)]
pub struct LbCreate {
    /// Octavia LB id (the row name).
    pub id: String,
    /// VIP address.
    pub vip_address: String,
    /// VIP port id.
    pub vip_port_id: String,
    /// VIP subnet (network + CIDR).
    pub vip_subnet: SubnetInfo,
    /// admin_state_up.
    pub enabled: bool,
    /// Additional VIPs: (address, port id).
    pub additional_vips: Vec<(String, String)>,
    /// The load balancer's flavor (`flavor` of the create's model), written onto its rows.
    pub flavor: OvnFlavor,
}

/// Plan the row of a new LB and its attachments: the routers with an interface on the VIP
/// subnet, the other switches of those routers (same IP family as the VIP), and the VIP switch
/// (counted in `ls_refs`, once per VIP) unless it is a provider network.
///
/// A row already named after the LB (a retried request) is left as is and reported ACTIVE.
pub fn create(snap: &NbSnapshot, req: &LbCreate) -> Result<Plan, PlanError> {
    let mut plan = Plan::default();
    let op = if req.enabled { Op::Online } else { Op::Offline };
    put(
        &mut plan.report,
        Kind::LoadBalancer,
        &req.id,
        Some(Prov::Active),
        Some(op),
    );
    if !snap.lbs_named(&req.id).is_empty() {
        return Ok(plan);
    }
    let ls_name = ext::ovn_name(&req.vip_subnet.network_id);
    let ls = snap
        .switch_named(&ls_name)
        .ok_or_else(|| PlanError::NotFound(format!("Logical_Switch {ls_name}")))?;
    let ipv4 = req
        .vip_address
        .parse::<IpAddr>()
        .map(|a| a.is_ipv4())
        .unwrap_or(true);

    let mut ids = ExternalIds::new();
    ids.insert(ext::VIP.into(), req.vip_address.clone());
    ids.insert(ext::VIP_PORT_ID.into(), req.vip_port_id.clone());
    ids.insert(ext::ENABLED.into(), py_bool(req.enabled));
    if !req.additional_vips.is_empty() {
        let (a, p): (Vec<_>, Vec<_>) = req.additional_vips.iter().cloned().unzip();
        ids.insert(ext::ADDITIONAL_VIPS.into(), a.join(","));
        ids.insert(ext::ADDITIONAL_VIP_PORT_IDS.into(), p.join(","));
    }
    let routers = snap.routers_of_switch(ls, Some(&req.vip_subnet.cidr));
    if !routers.is_empty() {
        ids.insert(
            ext::LR_REF.into(),
            routers
                .iter()
                .map(|r| r.name.clone())
                .collect::<Vec<_>>()
                .join(","),
        );
    }
    let provider_net = NbSnapshot::is_provider_network(ls);
    if !provider_net {
        let mut refs = BTreeMap::new();
        refs.insert(ls_name.clone(), 1 + req.additional_vips.len() as i64);
        ids.insert(ext::LS_REFS.into(), ext::format_ls_refs(&refs));
    }
    let mut row = LoadBalancerRow {
        name: req.id.clone(),
        external_ids: ids,
        ..Default::default()
    };
    req.flavor.apply(&mut row);
    row.selection_fields = selection_fields_of(&row.external_ids, None);
    let mut edit = Edit::new(snap);
    let lb = edit.insert_lb(row);
    let mut switches: Vec<String> = Vec::new();
    for lr in &routers {
        edit.attach_router(&lb, &lr.uuid);
        for name in snap.switches_of_router(lr, ipv4) {
            if let Some(s) = snap.switch_named(&name)
                && !switches.contains(&s.uuid)
            {
                switches.push(s.uuid.clone());
            }
        }
    }
    if !provider_net && !switches.contains(&ls.uuid) {
        switches.push(ls.uuid.clone());
    }
    for s in switches {
        edit.attach_switch(&lb, &s);
    }
    plan.ops = edit.into_ops();
    Ok(plan)
}

/// `loadbalancer_update`: set `enabled` on every row of the LB and recompute `vips`.
pub fn update(snap: &NbSnapshot, lb_id: &str, enabled: Option<bool>) -> Result<Plan, PlanError> {
    let mut plan = Plan::default();
    put(
        &mut plan.report,
        Kind::LoadBalancer,
        lb_id,
        Some(Prov::Active),
        None,
    );
    let Some(enabled) = enabled else {
        return Ok(plan);
    };
    let rows = snap.lbs_named(lb_id);
    if rows.is_empty() {
        return Err(PlanError::NotFound(format!("Load_Balancer {lb_id}")));
    }
    let mut edit = Edit::new(snap);
    for r in rows {
        if let Some(row) = edit.row_mut(&LbRef::Existing(r.uuid.clone())) {
            row.external_ids
                .insert(ext::ENABLED.into(), py_bool(enabled));
        }
    }
    plan.ops = edit.into_ops();
    put(
        &mut plan.report,
        Kind::LoadBalancer,
        lb_id,
        None,
        Some(if enabled { Op::Online } else { Op::Offline }),
    );
    Ok(plan)
}

/// `loadbalancer_delete`: remove every row of the LB and every switch/router reference to it;
/// with `cascade`, report its listeners, pools, members and health monitors DELETED. The VIP
/// ports to delete are decided by the driver (it knows their names). With a VIP FIP, the
/// members' ports go to [`Plan::fip_ports`] (their FIPs are recomputed by Neutron).
pub fn delete(snap: &NbSnapshot, lb_id: &str, cascade: bool) -> Plan {
    let mut plan = Plan::default();
    let mut edit = Edit::new(snap);
    for row in snap.lbs_named(lb_id) {
        if cascade {
            cascade_report(&mut plan.report, &row.external_ids);
        }
        // `handle_member_dvr` on delete: the members' FIPs go back to Neutron's recompute
        let vip_fip = row
            .external_ids
            .get(ext::VIP_FIP)
            .is_some_and(|v| !v.is_empty())
            || row
                .external_ids
                .get(ext::ADDITIONAL_VIP_FIPS)
                .is_some_and(|v| !v.is_empty());
        if vip_fip {
            let switches: Vec<_> = ext::parse_ls_refs(&row.external_ids)
                .keys()
                .filter_map(|n| snap.switch_named(n))
                .collect();
            for (_, _, members) in ext::pools(&row.external_ids) {
                for m in members {
                    let port = switches
                        .iter()
                        .find_map(|ls| snap.port_with_ip(ls, m.address));
                    if let Some(p) = port
                        && !plan.fip_ports.contains(&p)
                    {
                        plan.fip_ports.push(p);
                    }
                }
            }
        }
        for (_, _, members) in ext::pools(&row.external_ids) {
            if !row.health_check.is_empty() {
                for m in members {
                    if !plan.hm_subnets.contains(&m.subnet_id) && !m.subnet_id.is_empty() {
                        plan.hm_subnets.push(m.subnet_id);
                    }
                }
            }
        }
        let mut switches: Vec<String> = snap
            .switches_with_lb(&row.uuid)
            .iter()
            .map(|s| s.uuid.clone())
            .collect();
        for name in ext::parse_ls_refs(&row.external_ids).keys() {
            if let Some(s) = snap.switch_named(name)
                && !switches.contains(&s.uuid)
            {
                switches.push(s.uuid.clone());
            }
        }
        for s in switches {
            edit.detach_switch(&row.uuid, &s);
        }
        let mut routers: Vec<String> = snap
            .routers_with_lb(&row.uuid)
            .iter()
            .map(|r| r.uuid.clone())
            .collect();
        for name in ext::parse_lr_ref(&row.external_ids) {
            if let Some(r) = snap.router_named(&name)
                && !routers.contains(&r.uuid)
            {
                routers.push(r.uuid.clone());
            }
        }
        for r in routers {
            edit.detach_router(&row.uuid, &r);
        }
        edit.delete_lb(&LbRef::Existing(row.uuid.clone()));
    }
    plan.ops = edit.into_ops();
    put(
        &mut plan.report,
        Kind::LoadBalancer,
        lb_id,
        Some(Prov::Deleted),
        Some(Op::Offline),
    );
    plan
}

/// `loadbalancer_delete` of the request's model `lb`: [`delete`] of its rows, with `cascade`
/// the model's own children DELETED too ([`cascade_model_report`]), and its VIP ports to delete
/// after the commit (named by the row, else by the model: a row already gone — an earlier
/// attempt committed — leaves them to the model).
pub fn delete_request(snap: &NbSnapshot, lb: &provider::LoadBalancer, cascade: bool) -> Plan {
    let id = &lb.loadbalancer_id;
    let mut plan = delete(snap, id, cascade);
    if cascade {
        cascade_model_report(&mut plan.report, lb);
    }
    let rows = snap.lbs_named(id);
    let first = rows.first();
    plan.vip_ports.vip = first
        .and_then(|r| r.external_ids.get(ext::VIP_PORT_ID).cloned())
        .or_else(|| lb.vip_port_id.clone());
    plan.vip_ports.additional = first
        .map(|r| ext::parse_list(&r.external_ids, ext::ADDITIONAL_VIP_PORT_IDS))
        .unwrap_or_default();
    if plan.vip_ports.additional.is_empty() {
        plan.vip_ports.additional = additional_port_ids(lb);
    }
    plan
}

/// The additional VIP port ids of a load balancer model.
pub fn additional_port_ids(lb: &provider::LoadBalancer) -> Vec<String> {
    lb.additional_vips
        .iter()
        .flatten()
        .filter_map(|a| a.port_id.clone())
        .collect()
}

/// The cascade report of the request's own tree (the database's children, as the API or
/// recovery read them), added to what the NB rows name: children the NB never held (an
/// ERROR listener) or no longer holds (a delete whose NB transaction committed before its
/// process died, completed by recovery) are reported DELETED too, so none stays behind in
/// the database, undeletable, holding quota.
pub fn cascade_model_report(report: &mut StatusReport, lb: &provider::LoadBalancer) {
    let pools = lb.pools.iter().flatten();
    report_deleted(
        report,
        lb.listeners.iter().flatten().map(|l| l.listener_id.clone()),
        pools.clone().map(|p| {
            let members = p.members.iter().flatten().map(|m| m.member_id.clone());
            (p.pool_id.clone(), members.collect())
        }),
        pools.filter_map(|p| p.healthmonitor.as_ref().map(|h| h.healthmonitor_id.clone())),
    );
}

/// The cascade report of what a row's `external_ids` name.
fn cascade_report(report: &mut StatusReport, ids: &ExternalIds) {
    report_deleted(
        report,
        ext::listeners(ids).into_iter().map(|(id, _, _)| id),
        ext::pools(ids)
            .into_iter()
            .map(|(id, _, ms)| (id, ms.into_iter().map(|m| m.id).collect())),
        ext::parse_healthmonitors(ids).into_iter(),
    );
}

/// Listeners DELETED/OFFLINE, each pool's members then the pool DELETED, monitors DELETED.
fn report_deleted(
    report: &mut StatusReport,
    listeners: impl Iterator<Item = String>,
    pools: impl Iterator<Item = (String, Vec<String>)>,
    hms: impl Iterator<Item = String>,
) {
    for id in listeners {
        put(
            report,
            Kind::Listener,
            &id,
            Some(Prov::Deleted),
            Some(Op::Offline),
        );
    }
    for (id, members) in pools {
        for m in members {
            put(report, Kind::Member, &m, Some(Prov::Deleted), None);
        }
        put(report, Kind::Pool, &id, Some(Prov::Deleted), None);
    }
    for hm in hms {
        put(report, Kind::HealthMonitor, &hm, Some(Prov::Deleted), None);
    }
}

/// Find the row of `lb_id` for `protocol`, or plan it (`_get_or_create_ovn_lb`): a row with
/// that protocol; else the protocol-less row, given the protocol; else a new row copying the
/// first row's VIPs, FIPs, `enabled`, `ls_refs`, `lr_ref`, flavor ([`OvnFlavor::of_row`]),
/// and attached to the same switches and routers.
pub fn get_or_create_row(
    edit: &mut Edit<'_>,
    lb_id: &str,
    protocol: &str,
) -> Result<LbRef, PlanError> {
    let protocol = protocol.to_ascii_lowercase();
    let snap = edit.snap;
    let rows = snap.lbs_named(lb_id);
    let first = rows
        .first()
        .copied()
        .ok_or_else(|| PlanError::NotFound(format!("Load_Balancer {lb_id}")))?;
    if let Some(r) = rows
        .iter()
        .find(|r| r.protocol.as_deref() == Some(protocol.as_str()))
    {
        return Ok(LbRef::Existing(r.uuid.clone()));
    }
    if let Some(r) = rows.iter().find(|r| r.protocol.is_none()) {
        let h = LbRef::Existing(r.uuid.clone());
        if let Some(row) = edit.row_mut(&h) {
            row.protocol = Some(protocol);
        }
        return Ok(h);
    }
    let mut ids = ExternalIds::new();
    for k in [
        ext::VIP,
        ext::VIP_PORT_ID,
        ext::ENABLED,
        ext::ADDITIONAL_VIPS,
        ext::ADDITIONAL_VIP_PORT_IDS,
        ext::VIP_FIP,
        ext::ADDITIONAL_VIP_FIPS,
        ext::LS_REFS,
        ext::LR_REF,
    ] {
        if let Some(v) = first.external_ids.get(k) {
            ids.insert(k.to_string(), v.clone());
        }
    }
    let mut row = LoadBalancerRow {
        name: lb_id.to_string(),
        protocol: Some(protocol),
        external_ids: ids,
        ..Default::default()
    };
    OvnFlavor::of_row(&first.external_ids).apply(&mut row);
    row.selection_fields = selection_fields_of(&row.external_ids, None);
    let h = edit.insert_lb(row);
    for s in snap.switches_with_lb(&first.uuid) {
        edit.attach_switch(&h, &s.uuid);
    }
    for r in snap.routers_with_lb(&first.uuid) {
        edit.attach_router(&h, &r.uuid);
    }
    Ok(h)
}

/// When a row holds no listener and no pool any more: clear its protocol if it is the LB's
/// only row, else delete it with its references (`_clean_lb_if_empty`).
pub fn clean_if_empty(edit: &mut Edit<'_>, lb_id: &str, h: &LbRef) {
    let Some(row) = edit.row(h) else { return };
    if !ext::is_lb_empty(&row.external_ids) {
        return;
    }
    let snap = edit.snap;
    let n = snap.lbs_named(lb_id).len();
    if n <= 1 {
        if let Some(row) = edit.row_mut(h) {
            row.protocol = None;
        }
    } else if let LbRef::Existing(u) = h {
        for s in snap.switches_with_lb(u) {
            edit.detach_switch(u, &s.uuid);
        }
        for r in snap.routers_with_lb(u) {
            edit.detach_router(u, &r.uuid);
        }
        edit.delete_lb(h);
    }
}

/// The full operating-status tree of a row after an edit (members, pools, listeners, LB).
pub fn tree(edit: &Edit<'_>, lb_id: &str, h: &LbRef) -> StatusReport {
    edit.row(h)
        .map(|r| status::operating_tree(lb_id, &r.external_ids))
        .unwrap_or_default()
}
