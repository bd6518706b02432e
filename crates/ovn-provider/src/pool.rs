//! Pool create / update / delete (seed 000 §4).

use provider::{OperatingStatus as Op, ProvisioningStatus as Prov};
use serde_json::Value;

use crate::edit::{Edit, LbRef};
use crate::external_ids::{self as ext, ListenerValue};
use crate::hm;
use crate::lb::{clean_if_empty, get_or_create_row, selection_fields_of as selection_fields};
use crate::member::{self, MemberFacts};
use crate::nb::NbSnapshot;
use crate::plan::{Plan, PlanError};
use crate::status::{Kind, put};

/// `options` key for SOURCE_IP persistence.
pub const AFFINITY_TIMEOUT: &str = "affinity_timeout";
/// Default `persistence_timeout` (seconds) when the session persistence has none.
pub const DEFAULT_PERSISTENCE_TIMEOUT: &str = "360";

/// The pool fields the handlers use.
#[derive(Debug, Clone, Default)]
pub struct PoolReq {
    /// Octavia pool UUID (its `pool_<id>` key in `external_ids`).
    pub id: String,
    /// UUID of its load balancer (the `Load_Balancer` row's `name`).
    pub lb_id: String,
    /// TCP / UDP / SCTP.
    pub protocol: String,
    /// SOURCE_IP_PORT / SOURCE_IP.
    pub algorithm: Option<String>,
    /// The listener using it, if any.
    pub listener_id: Option<String>,
    /// admin_state_up.
    pub enabled: bool,
    /// Session persistence object, if set.
    pub session_persistence: Option<Value>,
    /// An update that removes the session persistence (`null` or an all-null object):
    /// `options:affinity_timeout` goes too (the reference keeps it).
    pub clear_persistence: bool,
}

/// `affinity_timeout` for a session persistence object, if it sets one (seconds, as text).
pub fn affinity_timeout(sp: Option<&Value>) -> Option<String> {
    let obj = crate::validate::session_persistence_set(sp)?;
    Some(match obj.get("persistence_timeout") {
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        _ => DEFAULT_PERSISTENCE_TIMEOUT.to_string(),
    })
}

/// `pool_create`: `pool_<id>[:D]` = '' on the row of the pool's protocol, the listener value
/// pointed at it, `affinity_timeout`, `selection_fields` from the algorithm (and the row's
/// flavor, [`crate::lb::selection_fields_of`]).
pub fn create(snap: &NbSnapshot, p: &PoolReq) -> Result<Plan, PlanError> {
    let mut edit = Edit::new(snap);
    let h = get_or_create_row(&mut edit, &p.lb_id, &p.protocol)?;
    if let Some(row) = edit.row_mut(&h) {
        if ext::find_pool_key(&row.external_ids, &p.id).is_none() {
            row.external_ids
                .insert(ext::pool_key(&p.id, p.enabled), String::new());
        }
        if let Some(l) = &p.listener_id
            && let Some(k) = ext::find_listener_key(&row.external_ids, l)
        {
            let port = row
                .external_ids
                .get(&k)
                .and_then(|v| ListenerValue::parse(v).ok())
                .map(|v| v.port);
            if let Some(port) = port {
                row.external_ids.insert(
                    k,
                    ListenerValue {
                        port,
                        pool_id: Some(p.id.clone()),
                    }
                    .format(),
                );
            }
        }
        if let Some(t) = affinity_timeout(p.session_persistence.as_ref()) {
            row.options.insert(AFFINITY_TIMEOUT.into(), t);
        }
        row.selection_fields = selection_fields(&row.external_ids, p.algorithm.as_deref());
    }
    let mut plan = Plan::default();
    let op = if p.listener_id.is_some() {
        Op::Online
    } else {
        Op::Offline
    };
    put(
        &mut plan.report,
        Kind::Pool,
        &p.id,
        Some(Prov::Active),
        Some(op),
    );
    put(
        &mut plan.report,
        Kind::LoadBalancer,
        &p.lb_id,
        Some(Prov::Active),
        None,
    );
    if let Some(l) = &p.listener_id {
        put(
            &mut plan.report,
            Kind::Listener,
            l,
            Some(Prov::Active),
            None,
        );
    }
    plan.ops = edit.into_ops();
    Ok(plan)
}

/// `pool_update`: rename the key for admin_state_up; set `affinity_timeout`; the listeners of
/// the pool come back ACTIVE too (Keel also answers a pure name/algorithm change with every
/// PENDING object ACTIVE). A new `algorithm` rewrites the row's `selection_fields` as a create
/// does (the reference leaves the create's fields, so the hash no longer matches the pool).
pub fn update(
    snap: &NbSnapshot,
    p: &PoolReq,
    enabled: Option<bool>,
    algorithm: Option<&str>,
) -> Result<Plan, PlanError> {
    let mut plan = Plan::default();
    put(
        &mut plan.report,
        Kind::Pool,
        &p.id,
        Some(Prov::Active),
        None,
    );
    put(
        &mut plan.report,
        Kind::LoadBalancer,
        &p.lb_id,
        Some(Prov::Active),
        None,
    );
    let Some((row, key)) = snap.lb_by_pool(&p.id) else {
        return Err(PlanError::NotFound(format!("pool_{}", p.id)));
    };
    for l in ext::pool_listeners(&row.external_ids, &p.id) {
        put(
            &mut plan.report,
            Kind::Listener,
            &l,
            Some(Prov::Active),
            None,
        );
    }
    let h = LbRef::Existing(row.uuid.clone());
    let mut edit = Edit::new(snap);
    if let Some(r) = edit.row_mut(&h) {
        if let Some(e) = enabled {
            if let Some(v) = r.external_ids.remove(&key) {
                r.external_ids.insert(ext::pool_key(&p.id, e), v);
            }
            put(
                &mut plan.report,
                Kind::Pool,
                &p.id,
                None,
                Some(if e { Op::Online } else { Op::Offline }),
            );
        }
        if let Some(t) = affinity_timeout(p.session_persistence.as_ref()) {
            r.options.insert(AFFINITY_TIMEOUT.into(), t);
        } else if p.clear_persistence {
            r.options.remove(AFFINITY_TIMEOUT);
        }
        if let Some(a) = algorithm {
            r.selection_fields = selection_fields(&r.external_ids, Some(a));
        }
    }
    plan.ops = edit.into_ops();
    Ok(plan)
}

/// Remove the pool keys, empty the listener values that pointed at it, drop
/// `affinity_timeout`, clean the row if empty. Members and the health monitor are removed
/// first by the caller (same edit).
pub fn remove(edit: &mut Edit<'_>, plan: &mut Plan, p: &PoolReq) {
    let snap = edit.snap;
    let Some((row, _)) = snap.lb_by_pool(&p.id) else {
        return;
    };
    let h = LbRef::Existing(row.uuid.clone());
    if let Some(r) = edit.row_mut(&h) {
        r.external_ids.remove(&ext::pool_key(&p.id, true));
        r.external_ids.remove(&ext::pool_key(&p.id, false));
        let listeners: Vec<(String, String)> = r
            .external_ids
            .iter()
            .filter(|(k, v)| {
                k.starts_with(ext::LISTENER_PREFIX)
                    && ListenerValue::parse(v)
                        .is_ok_and(|lv| lv.pool_id.as_deref() == Some(p.id.as_str()))
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (k, v) in listeners {
            if let Ok(lv) = ListenerValue::parse(&v) {
                r.external_ids.insert(
                    k.clone(),
                    ListenerValue {
                        port: lv.port,
                        pool_id: None,
                    }
                    .format(),
                );
                if let Some(crate::external_ids::ObjectKey::Listener { id, .. }) =
                    crate::external_ids::ObjectKey::parse(&k)
                {
                    put(
                        &mut plan.report,
                        Kind::Listener,
                        &id,
                        Some(Prov::Active),
                        None,
                    );
                }
            }
        }
        r.options.remove(AFFINITY_TIMEOUT);
    }
    clean_if_empty(edit, &p.lb_id, &h);
}

/// `pool_delete`: the pool's health monitor (`hm_id`), every member (those Octavia named and
/// those the row still holds) and the pool key go in one plan; the pool is DELETED, its LB
/// ACTIVE.
pub fn delete(
    snap: &NbSnapshot,
    p: &PoolReq,
    hm_id: Option<&str>,
    members: &[String],
    facts: &MemberFacts,
) -> Plan {
    let mut plan = Plan::default();
    let mut edit = Edit::new(snap);
    if let Some(h) = hm_id {
        hm::remove(&mut edit, &mut plan, h, &p.id);
    }
    if let Ok((h, key, _)) = member::locate(snap, &p.id) {
        let mut ids = members.to_vec();
        if let Some(row) = edit.row(&h) {
            for e in ext::parse_pool_members(
                row.external_ids.get(&key).map(String::as_str).unwrap_or(""),
            )
            .0
            {
                if !ids.contains(&e.id) {
                    ids.push(e.id);
                }
            }
        }
        member::remove(&mut edit, &mut plan, &h, &key, &ids, facts);
    } else {
        for m in members {
            put(&mut plan.report, Kind::Member, m, Some(Prov::Deleted), None);
        }
    }
    remove(&mut edit, &mut plan, p);
    put(
        &mut plan.report,
        Kind::Pool,
        &p.id,
        Some(Prov::Deleted),
        None,
    );
    put(
        &mut plan.report,
        Kind::LoadBalancer,
        &p.lb_id,
        Some(Prov::Active),
        None,
    );
    plan.ops = edit.into_ops();
    plan
}
