//! The status tree re-sent to Octavia after a sync (the reference's
//! `_get_current_operating_statuses`): every object ACTIVE with the operating status the
//! repaired NB shows, health monitors ONLINE/OFFLINE.

use super::*;

impl Sim<'_> {
    /// The status tree of a synced LB as the simulated NB shows it.
    pub(super) fn report(&self, lb: &LoadBalancer) -> Option<StatusReport> {
        let id = lb.loadbalancer_id.as_str();
        let rows = self.nb.lbs_named(id);
        if rows.is_empty() {
            return None;
        }
        let mut report = StatusReport::default();
        let mut lb_op: Option<OpStatus> = None;
        for row in &rows {
            let mut tree = status::operating_tree(id, &row.external_ids);
            // one LB status over all its protocol rows: the worst one
            if let Some(r) = tree.loadbalancers.pop() {
                lb_op = match (lb_op, r.operating_status) {
                    (Some(a), Some(b)) => Some(worse(a, b)),
                    (a, b) => a.or(b),
                };
            }
            status::merge(&mut report, tree);
        }
        put(
            &mut report,
            Kind::LoadBalancer,
            id,
            Some(Prov::Active),
            lb_op,
        );
        for p in lb.pools.iter().flatten() {
            if let Some(h) = &p.healthmonitor {
                let enabled = h.admin_state_up.unwrap_or(true);
                if !enabled || !self.nb.health_checks_of(&h.healthmonitor_id).is_empty() {
                    let op = if enabled {
                        OpStatus::Online
                    } else {
                        OpStatus::Offline
                    };
                    put(
                        &mut report,
                        Kind::HealthMonitor,
                        &h.healthmonitor_id,
                        Some(Prov::Active),
                        Some(op),
                    );
                }
            }
        }
        Some(report)
    }
}

fn worse(a: OpStatus, b: OpStatus) -> OpStatus {
    let rank = |o: OpStatus| match o {
        OpStatus::Error => 4,
        OpStatus::Degraded => 3,
        OpStatus::Online => 1,
        _ => 2,
    };
    if rank(b) > rank(a) { b } else { a }
}
