//! Listener create / update / delete (seed 000 §3).

use std::net::{IpAddr, SocketAddr};

use provider::{OperatingStatus as Op, ProvisioningStatus as Prov};

use crate::edit::{Edit, LbRef};
use crate::external_ids::{self as ext, ListenerValue};
use crate::lb::{clean_if_empty, get_or_create_row};
use crate::nb::{Datum, NbSnapshot, Op as NbOp};
use crate::plan::{Plan, PlanError};
use crate::status::{Kind, put};

/// The listener fields the handlers use.
#[derive(Debug, Clone, Default)]
pub struct ListenerReq {
    /// Octavia listener UUID (its `listener_<id>` key in `external_ids`).
    pub id: String,
    /// UUID of its load balancer (the `Load_Balancer` row's `name`).
    pub lb_id: String,
    /// TCP / UDP / SCTP.
    pub protocol: String,
    /// protocol_port.
    pub port: u16,
    /// UUID of its default pool; `None` = no pool, so the listener has no `vips` entry.
    pub default_pool_id: Option<String>,
    /// admin_state_up (unset = true).
    pub enabled: bool,
    /// `allowed_cidrs`: on create `None` is empty (everyone), on update `None` is unchanged
    /// and `Some(empty)` clears the list ([`crate::cidrs`]).
    pub allowed_cidrs: Option<Vec<String>>,
    /// On update, the list before it (the API's model of the old listener): a change that
    /// keeps the same IP families rewrites the address sets in place ([`crate::cidrs`]).
    pub previous_cidrs: Vec<String>,
}

/// Point the pool's health checks at `port` (`_update_lbhc_vip_port`).
fn retarget_health_checks(edit: &mut Edit<'_>, h: &LbRef, pool_id: &str, port: u16) {
    let snap = edit.snap;
    let Some(row) = edit.row(h) else { return };
    let hcs: Vec<_> = row
        .health_check
        .iter()
        .filter_map(|u| snap.health_checks.get(u))
        .collect();
    let mut ops = Vec::new();
    for hc in hcs {
        if hc.external_ids.get(ext::HC_POOL_ID).map(String::as_str) != Some(pool_id) {
            continue;
        }
        let Some(ip) = hc
            .external_ids
            .get(ext::HC_VIP)
            .and_then(|v| v.parse::<IpAddr>().ok())
        else {
            continue;
        };
        ops.push(NbOp::Update {
            table: "Load_Balancer_Health_Check",
            uuid: hc.uuid.clone(),
            row: vec![("vip", Datum::Str(SocketAddr::new(ip, port).to_string()))],
        });
    }
    for op in ops {
        edit.push(op);
    }
}

/// `listener_create`: add `listener_<id>[:D]` = `<port>:pool_<default pool>` on the row of the
/// listener's protocol (created if needed) and recompute `vips`.
pub fn create(snap: &NbSnapshot, l: &ListenerReq) -> Result<Plan, PlanError> {
    let mut edit = Edit::new(snap);
    let h = get_or_create_row(&mut edit, &l.lb_id, &l.protocol)?;
    let value = ListenerValue {
        port: l.port,
        pool_id: l.default_pool_id.clone(),
    };
    if let Some(row) = edit.row_mut(&h) {
        if let Some(old) = ext::find_listener_key(&row.external_ids, &l.id) {
            row.external_ids.remove(&old);
        }
        row.external_ids
            .insert(ext::listener_key(&l.id, l.enabled), value.format());
        if row.protocol.is_none() {
            row.protocol = Some(l.protocol.to_ascii_lowercase());
        }
    }
    if let Some(pool) = &l.default_pool_id {
        retarget_health_checks(&mut edit, &h, pool, l.port);
    }
    let mut plan = Plan::default();
    let op = if l.enabled { Op::Online } else { Op::Offline };
    put(
        &mut plan.report,
        Kind::Listener,
        &l.id,
        Some(Prov::Active),
        Some(op),
    );
    put(
        &mut plan.report,
        Kind::LoadBalancer,
        &l.lb_id,
        Some(Prov::Active),
        None,
    );
    plan.ops = edit.into_ops();
    Ok(plan)
}

/// `listener_update`: rename the key for admin_state_up, rewrite the default pool.
pub fn update(
    snap: &NbSnapshot,
    l: &ListenerReq,
    enabled: Option<bool>,
    default_pool: Option<Option<String>>,
) -> Result<Plan, PlanError> {
    let mut plan = Plan::default();
    put(
        &mut plan.report,
        Kind::Listener,
        &l.id,
        Some(Prov::Active),
        None,
    );
    put(
        &mut plan.report,
        Kind::LoadBalancer,
        &l.lb_id,
        Some(Prov::Active),
        None,
    );
    if enabled.is_none() && default_pool.is_none() {
        return Ok(plan);
    }
    let (row, key) = snap
        .lb_by_listener(&l.lb_id, &l.id)
        .ok_or_else(|| PlanError::NotFound(format!("listener_{}", l.id)))?;
    let h = LbRef::Existing(row.uuid.clone());
    let mut edit = Edit::new(snap);
    let Some(r) = edit.row_mut(&h) else {
        return Err(PlanError::NotFound(row.uuid.clone()));
    };
    let mut value = r
        .external_ids
        .remove(&key)
        .and_then(|v| ListenerValue::parse(&v).ok())
        .unwrap_or(ListenerValue {
            port: l.port,
            pool_id: None,
        });
    let now_enabled = enabled.unwrap_or(!key.ends_with(ext::DISABLED_SUFFIX));
    if let Some(p) = &default_pool {
        value.pool_id = p.clone();
    }
    r.external_ids
        .insert(ext::listener_key(&l.id, now_enabled), value.format());
    if let Some(e) = enabled {
        put(
            &mut plan.report,
            Kind::Listener,
            &l.id,
            None,
            Some(if e { Op::Online } else { Op::Offline }),
        );
    }
    if let Some(Some(p)) = &default_pool {
        put(&mut plan.report, Kind::Pool, p, Some(Prov::Active), None);
        retarget_health_checks(&mut edit, &h, p, value.port);
    }
    plan.ops = edit.into_ops();
    Ok(plan)
}

/// `listener_delete`: remove the key; clean the row when it is empty. A missing row or key is
/// already the desired state.
pub fn delete(snap: &NbSnapshot, l: &ListenerReq) -> Plan {
    let mut plan = Plan::default();
    put(
        &mut plan.report,
        Kind::Listener,
        &l.id,
        Some(Prov::Deleted),
        Some(Op::Offline),
    );
    put(
        &mut plan.report,
        Kind::LoadBalancer,
        &l.lb_id,
        Some(Prov::Active),
        None,
    );
    let Some((row, key)) = snap.lb_by_listener(&l.lb_id, &l.id) else {
        return plan;
    };
    let h = LbRef::Existing(row.uuid.clone());
    let mut edit = Edit::new(snap);
    if let Some(r) = edit.row_mut(&h) {
        r.external_ids.remove(&key);
    }
    clean_if_empty(&mut edit, &l.lb_id, &h);
    plan.ops = edit.into_ops();
    plan
}
