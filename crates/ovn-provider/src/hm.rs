//! Health monitors: `Load_Balancer_Health_Check` rows, `ip_port_mappings`, and the
//! `ovn-lb-hm-<subnet id>` source ports (seed 000 §6).

use std::net::{IpAddr, SocketAddr};

use provider::{OperatingStatus as Op, ProvisioningStatus as Prov};

use crate::edit::{Edit, LbRef};
use crate::external_ids::{self as ext, ExternalIds};
use crate::lb::tree;
use crate::member::{MemberFacts, map_member, mapping_key, unmap_member};
use crate::nb::{Datum, NbSnapshot, Op as NbOp};
use crate::plan::{Plan, PlanError};
use crate::status::{Kind, merge, put};

/// Name prefix of the health-check source port of a subnet.
pub const HM_PORT_PREFIX: &str = "ovn-lb-hm-";
/// `device_owner` of that port (Neutron makes it a localport).
pub const HM_PORT_DEVICE_OWNER: &str = "ovn-lb-hm:distributed";

/// `ovn-lb-hm-<subnet id>` (also its `device_id`).
pub fn hm_port_name(subnet_id: &str) -> String {
    format!("{HM_PORT_PREFIX}{subnet_id}")
}

/// Health monitor fields the handlers use.
#[derive(Debug, Clone, Default)]
pub struct HmReq {
    /// Octavia health monitor UUID.
    pub id: String,
    /// UUID of the pool it monitors.
    pub pool_id: String,
    /// delay → `interval` (s).
    pub interval: Option<i64>,
    /// timeout → `timeout` (s).
    pub timeout: Option<i64>,
    /// max_retries → `success_count`.
    pub success_count: Option<i64>,
    /// max_retries_down → `failure_count`.
    pub failure_count: Option<i64>,
    /// admin_state_up (only changes the reported status).
    pub enabled: bool,
}

impl HmReq {
    /// The health-check `options` of a created (or re-created) health check: every set
    /// value, `0` included (`delay: 0` → `interval: "0"`), as the reference's `hm_create` and
    /// `hm_sync` write them (`str(info['interval'])`); unset values are left out.
    pub fn options(&self) -> ExternalIds {
        self.options_where(|_| true)
    }

    /// The `options` an update merges into the health check: the set, non-zero values (the
    /// reference's `_update_hm` skips a falsy value, so `delay: 0` leaves `interval` as it
    /// was).
    pub fn update_options(&self) -> ExternalIds {
        self.options_where(|v| v != 0)
    }

    fn options_where(&self, keep: impl Fn(i64) -> bool) -> ExternalIds {
        let mut o = ExternalIds::new();
        for (k, v) in [
            ("interval", self.interval),
            ("timeout", self.timeout),
            ("success_count", self.success_count),
            ("failure_count", self.failure_count),
        ] {
            if let Some(v) = v.filter(|v| keep(*v)) {
                o.insert(k.to_string(), v.to_string());
            }
        }
        o
    }
}

/// Octavia's documented default of `max_retries_down` (→ `failure_count`), used when a
/// created health monitor carries none (unset or null).
pub const DEFAULT_FAILURE_COUNT: i64 = 3;

/// The `vip` of a health check: `<ip>:<port>` (`[v6]:port`), or '' without listener port.
pub fn hc_vip(ip: IpAddr, port: Option<u16>) -> String {
    port.map(|p| SocketAddr::new(ip, p).to_string())
        .unwrap_or_default()
}

/// `hm_create`: one health check per VIP, additional VIP and FIP, the HM id in
/// `octavia:healthmonitors`, every member mapped through its subnet's HM port. The HM is ERROR
/// (and the pool's mappings left out) when a member's HM port is missing.
///
/// A monitor created disabled only has its id in `octavia:healthmonitors`: no health check,
/// no mapping, its members NO_MONITOR (as Octavia's amphora driver, which runs no check for a
/// disabled monitor; the reference probes anyway and reports the HM OFFLINE). [`update`]
/// turns the checks on and off.
#[allow(
    clippy::too_many_lines,
    reason = "a known exception of clippy.toml's bound"
)]
pub fn create(snap: &NbSnapshot, hm: &HmReq, facts: &MemberFacts) -> Result<Plan, PlanError> {
    let mut plan = Plan::default();
    let (row, key) = snap
        .lb_by_pool(&hm.pool_id)
        .ok_or_else(|| PlanError::NotFound(format!("pool_{}", hm.pool_id)))?;
    let h = LbRef::Existing(row.uuid.clone());
    let lb_id = row.name.clone();
    let ids = &row.external_ids;
    if !hm.enabled {
        let mut edit = Edit::new(snap);
        register(&mut edit, &h, &hm.id);
        plan.report = tree(&edit, &lb_id, &h);
        parents_active(&mut plan, ids, &hm.pool_id, &lb_id);
        put(
            &mut plan.report,
            Kind::HealthMonitor,
            &hm.id,
            Some(Prov::Active),
            Some(Op::Offline),
        );
        plan.ops = edit.into_ops();
        return Ok(plan);
    }
    let members = ext::parse_pool_members(ids.get(&key).map(String::as_str).unwrap_or("")).0;
    if !snap.health_checks_of(&hm.id).is_empty() {
        // already created (an earlier attempt committed): report what the rows say
        let edit = Edit::new(snap);
        plan.report = tree(&edit, &lb_id, &h);
        let mapped = members
            .iter()
            .all(|m| row.ip_port_mappings.contains_key(&mapping_key(m.address)));
        let (prov, op) = if mapped {
            (Prov::Active, Op::Online)
        } else {
            plan.hm_subnets = members.iter().map(|m| m.subnet_id.clone()).collect();
            plan.hm_subnets.retain(|s| !s.is_empty());
            plan.hm_subnets.dedup();
            (Prov::Error, Op::Error)
        };
        put(
            &mut plan.report,
            Kind::HealthMonitor,
            &hm.id,
            Some(prov),
            Some(op),
        );
        parents_active(&mut plan, ids, &hm.pool_id, &lb_id);
        return Ok(plan);
    }
    let port = ext::listeners(ids)
        .into_iter()
        .find(|(_, _, v)| v.pool_id.as_deref() == Some(hm.pool_id.as_str()))
        .map(|(_, _, v)| v.port);
    let mut vips: Vec<String> = ids.get(ext::VIP).cloned().into_iter().collect();
    vips.extend(ext::parse_list(ids, ext::ADDITIONAL_VIPS));
    vips.extend(ids.get(ext::VIP_FIP).cloned());
    vips.extend(ext::parse_list(ids, ext::ADDITIONAL_VIP_FIPS));
    let mut edit = Edit::new(snap);
    for vip in vips {
        let Ok(ip) = vip.parse::<IpAddr>() else {
            continue;
        };
        let mut hc_ids = ExternalIds::new();
        hc_ids.insert(ext::HC_HEALTHMONITOR.into(), hm.id.clone());
        hc_ids.insert(ext::HC_POOL_ID.into(), hm.pool_id.clone());
        hc_ids.insert(ext::HC_VIP.into(), vip.clone());
        edit.insert_health_check(&h, hc_vip(ip, port), hm.options(), hc_ids);
    }
    // the row has a health check from now on
    register(&mut edit, &h, &hm.id);
    let mut hm_ok = true;
    let mut statuses = Vec::new();
    for m in &members {
        if !facts.hm_source.contains_key(&m.subnet_id) {
            hm_ok = false;
            break;
        }
        statuses.push((m.id.clone(), map_member(&mut edit, &h, m, facts)));
    }
    if hm_ok {
        if let Some(r) = edit.row_mut(&h) {
            let mut st = ext::parse_member_status(&r.external_ids);
            for (id, op) in &statuses {
                st.insert(id.clone(), op.as_str().to_string());
            }
            if !st.is_empty() {
                r.external_ids
                    .insert(ext::MEMBER_STATUS.into(), ext::format_member_status(&st));
            }
        }
        plan.report = tree(&edit, &lb_id, &h);
        let op = if hm.enabled { Op::Online } else { Op::Offline };
        put(
            &mut plan.report,
            Kind::HealthMonitor,
            &hm.id,
            Some(Prov::Active),
            Some(op),
        );
    } else {
        for m in &members {
            unmap_member(&mut edit, &h, &key, m.address);
            // the HM ports made for this monitor map nothing: deleted after the commit
            if !m.subnet_id.is_empty() && !plan.hm_subnets.contains(&m.subnet_id) {
                plan.hm_subnets.push(m.subnet_id.clone());
            }
        }
        put(
            &mut plan.report,
            Kind::HealthMonitor,
            &hm.id,
            Some(Prov::Error),
            Some(Op::Error),
        );
    }
    parents_active(&mut plan, ids, &hm.pool_id, &lb_id);
    plan.ops = edit.into_ops();
    Ok(plan)
}

/// The HM id in the row's `octavia:healthmonitors` (once).
fn register(edit: &mut Edit<'_>, h: &LbRef, hm_id: &str) {
    if let Some(r) = edit.row_mut(h) {
        let mut hms = ext::parse_healthmonitors(&r.external_ids);
        if !hms.iter().any(|x| x == hm_id) {
            hms.push(hm_id.to_string());
        }
        r.external_ids
            .insert(ext::HEALTHMONITORS.into(), ext::format_healthmonitors(&hms));
    }
}

/// Pool, its listeners and the LB ACTIVE (operating statuses left to the tree).
fn parents_active(plan: &mut Plan, ids: &ExternalIds, pool_id: &str, lb_id: &str) {
    put(
        &mut plan.report,
        Kind::Pool,
        pool_id,
        Some(Prov::Active),
        None,
    );
    for l in ext::pool_listeners(ids, pool_id) {
        put(
            &mut plan.report,
            Kind::Listener,
            &l,
            Some(Prov::Active),
            None,
        );
    }
    put(
        &mut plan.report,
        Kind::LoadBalancer,
        lb_id,
        Some(Prov::Active),
        None,
    );
}

/// True when `update` of `hm` turns a disabled monitor (registered, no health check) on. The
/// caller then plans [`create`] with the whole monitor ([`crate::requests::hm_full_req`]) and
/// the HM ports of the pool's subnets, and not [`update`].
pub fn update_enables(snap: &NbSnapshot, hm: &HmReq) -> bool {
    hm.enabled && snap.health_checks_of(&hm.id).is_empty() && registered(snap, hm)
}

fn registered(snap: &NbSnapshot, hm: &HmReq) -> bool {
    snap.lb_by_pool(&hm.pool_id)
        .is_some_and(|(r, _)| ext::parse_healthmonitors(&r.external_ids).contains(&hm.id))
}

/// `hm_update`: write the non-empty options on every health check of the HM.
///
/// `admin_state_up` false stops the monitoring, as a delete does (seed 000 §8: members
/// NO_MONITOR, mappings and health checks removed, the pool, listener and LB operating
/// statuses recomputed, so a pool DEGRADED by an ERROR member is ONLINE again), but the id
/// stays in `octavia:healthmonitors`; the HM is ACTIVE/OFFLINE. Still disabled: nothing to
/// write. Turning it on again is [`create`] (see [`update_enables`]); here it is NotFound.
pub fn update(snap: &NbSnapshot, hm: &HmReq) -> Result<Plan, PlanError> {
    let hcs = snap.health_checks_of(&hm.id);
    if hcs.is_empty() {
        let row = snap
            .lb_by_pool(&hm.pool_id)
            .filter(|_| registered(snap, hm));
        let (Some((row, _)), false) = (row, hm.enabled) else {
            return Err(PlanError::NotFound(format!(
                "Load_Balancer_Health_Check of {}",
                hm.id
            )));
        };
        let mut plan = Plan::default();
        parents_active(&mut plan, &row.external_ids, &hm.pool_id, &row.name);
        put(
            &mut plan.report,
            Kind::HealthMonitor,
            &hm.id,
            Some(Prov::Active),
            Some(Op::Offline),
        );
        return Ok(plan);
    }
    if !hm.enabled {
        let mut edit = Edit::new(snap);
        let mut plan = Plan::default();
        let edited = unmonitor(&mut edit, &mut plan, &hm.id, &hm.pool_id, false);
        let mut report = match &edited {
            Some((h, lb_id)) => tree(&edit, lb_id, h),
            None => Default::default(),
        };
        merge(&mut report, std::mem::take(&mut plan.report));
        plan.report = report;
        put(
            &mut plan.report,
            Kind::HealthMonitor,
            &hm.id,
            Some(Prov::Active),
            Some(Op::Offline),
        );
        plan.ops = edit.into_ops();
        return Ok(plan);
    }
    let mut plan = Plan::default();
    let opts = hm.update_options();
    for hc in hcs {
        let mut o = hc.options.clone();
        o.extend(opts.clone());
        plan.ops.push(NbOp::Update {
            table: "Load_Balancer_Health_Check",
            uuid: hc.uuid.clone(),
            row: vec![("options", Datum::Map(o))],
        });
    }
    if let Some((row, _)) = snap.lb_by_pool(&hm.pool_id) {
        put(
            &mut plan.report,
            Kind::LoadBalancer,
            &row.name,
            Some(Prov::Active),
            None,
        );
        for l in ext::pool_listeners(&row.external_ids, &hm.pool_id) {
            put(
                &mut plan.report,
                Kind::Listener,
                &l,
                Some(Prov::Active),
                None,
            );
        }
    }
    put(
        &mut plan.report,
        Kind::Pool,
        &hm.pool_id,
        Some(Prov::Active),
        None,
    );
    let op = if hm.enabled { Op::Online } else { Op::Offline };
    put(
        &mut plan.report,
        Kind::HealthMonitor,
        &hm.id,
        Some(Prov::Active),
        Some(op),
    );
    Ok(plan)
}

/// Remove an HM from an edit: members back to NO_MONITOR, their mappings removed, the health
/// checks dropped, the id removed from `octavia:healthmonitors`. Returns the row edited and
/// its load balancer's id, for the caller to recompute the tree.
pub fn remove(
    edit: &mut Edit<'_>,
    plan: &mut Plan,
    hm_id: &str,
    pool_id: &str,
) -> Option<(LbRef, String)> {
    put(
        &mut plan.report,
        Kind::HealthMonitor,
        hm_id,
        Some(Prov::Deleted),
        Some(Op::NoMonitor),
    );
    unmonitor(edit, plan, hm_id, pool_id, true)
}

/// [`remove`] without the HM's own record; `unregister` false keeps the id in
/// `octavia:healthmonitors` (a disabled monitor). The member subnets go to `plan.hm_subnets`,
/// so HM ports nothing maps through any more are deleted after the commit.
fn unmonitor(
    edit: &mut Edit<'_>,
    plan: &mut Plan,
    hm_id: &str,
    pool_id: &str,
    unregister: bool,
) -> Option<(LbRef, String)> {
    let snap = edit.snap;
    let hcs: Vec<String> = snap
        .health_checks_of(hm_id)
        .iter()
        .map(|h| h.uuid.clone())
        .collect();
    let row = snap
        .load_balancers
        .values()
        .find(|r| {
            ext::parse_healthmonitors(&r.external_ids)
                .iter()
                .any(|h| h == hm_id)
        })
        .or_else(|| snap.lb_by_pool(pool_id).map(|(r, _)| r));
    let row = row?;
    let h = LbRef::Existing(row.uuid.clone());
    let key = ext::find_pool_key(&row.external_ids, pool_id);
    let members = key
        .as_ref()
        .and_then(|k| row.external_ids.get(k))
        .map(|v| ext::parse_pool_members(v).0)
        .unwrap_or_default();
    if let Some(r) = edit.row_mut(&h) {
        let mut st = ext::parse_member_status(&r.external_ids);
        for m in &members {
            st.insert(m.id.clone(), Op::NoMonitor.as_str().to_string());
        }
        if !st.is_empty() {
            r.external_ids
                .insert(ext::MEMBER_STATUS.into(), ext::format_member_status(&st));
        }
        if unregister {
            let mut hms = ext::parse_healthmonitors(&r.external_ids);
            hms.retain(|x| x != hm_id);
            if hms.is_empty() {
                r.external_ids.remove(ext::HEALTHMONITORS);
            } else {
                r.external_ids
                    .insert(ext::HEALTHMONITORS.into(), ext::format_healthmonitors(&hms));
            }
        }
    }
    if let Some(k) = &key {
        for m in &members {
            unmap_member(edit, &h, k, m.address);
            put(
                &mut plan.report,
                Kind::Member,
                &m.id,
                Some(Prov::Active),
                Some(Op::NoMonitor),
            );
            if !m.subnet_id.is_empty() && !plan.hm_subnets.contains(&m.subnet_id) {
                plan.hm_subnets.push(m.subnet_id.clone());
            }
        }
    }
    edit.remove_health_checks(&row.uuid, hcs);
    parents_active(plan, &row.external_ids, pool_id, &row.name);
    Some((h, row.name.clone()))
}

/// `hm_delete` as its own transaction; reports DELETED/NO_MONITOR even when nothing was found.
/// The members turned NO_MONITOR, so the pool, listener and LB operating statuses are
/// recomputed from the edited row (seed 000 §8): a pool DEGRADED by an ERROR member is
/// ONLINE again (the reference leaves it DEGRADED).
pub fn delete(snap: &NbSnapshot, hm_id: &str, pool_id: &str) -> Plan {
    let mut edit = Edit::new(snap);
    let mut plan = Plan::default();
    let edited = remove(&mut edit, &mut plan, hm_id, pool_id);
    let mut report = match &edited {
        Some((h, lb_id)) => tree(&edit, lb_id, h),
        None => Default::default(),
    };
    merge(&mut report, std::mem::take(&mut plan.report));
    plan.report = report;
    plan.ops = edit.into_ops();
    plan
}

/// A SB `Service_Monitor` row as the agent sees it (seed 000 §8 member lifecycle:
/// ONLINE ↔ ERROR on status changes, OFFLINE when the row disappears).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceMonitorEvent {
    /// Member address probed.
    pub ip: IpAddr,
    /// Member port probed.
    pub port: u16,
    /// `tcp` / `udp`, when set.
    pub protocol: Option<String>,
    /// The member's logical switch port.
    pub logical_port: String,
    /// The health-check source address (the HM port's IP).
    pub src_ip: IpAddr,
    /// `status` = `offline`.
    pub offline: bool,
    /// The row was deleted.
    pub deleted: bool,
}

impl ServiceMonitorEvent {
    /// The member's new operating status: OFFLINE when the monitor went away, ERROR when it
    /// reports offline, else ONLINE (`hm_update_event`).
    pub fn member_status(&self) -> Op {
        if self.deleted {
            Op::Offline
        } else if self.offline {
            Op::Error
        } else {
            Op::Online
        }
    }

    fn matches(&self, row: &crate::nb::LoadBalancerRow) -> bool {
        let key = crate::member::mapping_key(self.ip);
        let want = crate::member::mapping_value(&self.logical_port, &self.src_ip.to_string());
        row.ip_port_mappings.get(&key) == Some(&want)
            && self.protocol.as_deref().is_none_or(|p| {
                row.protocol
                    .as_deref()
                    .is_none_or(|rp| rp.eq_ignore_ascii_case(p))
            })
    }
}

/// Names (Octavia LB ids) of the load balancers a Service_Monitor event concerns.
pub fn lbs_for_event(snap: &NbSnapshot, ev: &ServiceMonitorEvent) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for row in snap.load_balancers.values().filter(|r| ev.matches(r)) {
        if !out.contains(&row.name) {
            out.push(row.name.clone());
        }
    }
    out
}

/// True when the row's `vips` send traffic to `ip:port`.
fn in_vips(row: &crate::nb::LoadBalancerRow, ip: IpAddr, port: u16) -> bool {
    let backend = SocketAddr::new(ip, port);
    row.vips.values().any(|v| {
        v.split(',')
            .any(|b| b.parse::<SocketAddr>().is_ok_and(|b| b == backend))
    })
}

/// True when the member's logical switch port is gone from the snapshot or disabled: then
/// ovn-northd has no monitor to make for it again.
fn port_gone(snap: &NbSnapshot, logical_port: &str) -> bool {
    !snap
        .switch_ports
        .values()
        .any(|p| p.name == logical_port && !p.disabled)
}

/// Store the member status an event implies on every row of `lb_id` that monitors it, and
/// report the recomputed tree. Nothing to write (and an empty report) when no member matches.
///
/// A deleted monitor turns the member OFFLINE only when the row's `vips` still send to it and
/// its logical switch port is gone or disabled (ovn-northd(8): no monitor without an enabled
/// port). ovn-northd also drops the monitor while the backend is out of `vips` (its listener,
/// pool or LB disabled) and makes a new one when it is back; that deletion can reach the
/// agent after the NB row is enabled again. An OFFLINE member is left out of `vips`, so
/// taking such a deletion as the member going OFFLINE (as the reference does) would keep it
/// out of service for good.
///
/// The report carries operating statuses only: a health report is no provisioning outcome,
/// so an object in ERROR (a failed update) stays ERROR. The reference's `hm_update_event`
/// reports every object of the tree ACTIVE, which turns ERROR (and, mid-job, PENDING_*)
/// into ACTIVE.
pub fn service_monitor_update(snap: &NbSnapshot, lb_id: &str, ev: &ServiceMonitorEvent) -> Plan {
    let mut plan = Plan::default();
    let mut edit = Edit::new(snap);
    let status = ev.member_status();
    let mut touched = Vec::new();
    let counts = |r: &crate::nb::LoadBalancerRow| {
        !ev.deleted || (in_vips(r, ev.ip, ev.port) && port_gone(snap, &ev.logical_port))
    };
    for row in snap
        .lbs_named(lb_id)
        .into_iter()
        .filter(|r| ev.matches(r) && counts(r))
    {
        let members: Vec<String> = ext::pools(&row.external_ids)
            .into_iter()
            .flat_map(|(_, _, ms)| ms)
            .filter(|m| m.address == ev.ip && m.port == ev.port)
            .map(|m| m.id)
            .collect();
        if members.is_empty() {
            continue;
        }
        let h = LbRef::Existing(row.uuid.clone());
        if let Some(r) = edit.row_mut(&h) {
            let mut st = ext::parse_member_status(&r.external_ids);
            for m in &members {
                st.insert(m.clone(), status.as_str().to_string());
            }
            r.external_ids
                .insert(ext::MEMBER_STATUS.into(), ext::format_member_status(&st));
        }
        touched.push(h);
    }
    for h in &touched {
        merge(&mut plan.report, tree(&edit, lb_id, h));
    }
    crate::status::operating_only(&mut plan.report);
    plan.ops = edit.into_ops();
    if !plan.ops.is_empty() {
        // the agent's one writer of health statuses: say what moved a member
        tracing::info!(
            backend = %SocketAddr::new(ev.ip, ev.port),
            logical_port = %ev.logical_port,
            deleted = ev.deleted,
            status = ev.member_status().as_str(),
            "member status from a SB Service_Monitor change"
        );
    }
    plan
}
