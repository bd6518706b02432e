//! The quota response object, as `octavia/api/v2/types/quotas.py` `QuotaResponse` (plus the
//! `tenant_id` echo): each limit twice, `loadbalancer` + the deprecated `load_balancer`,
//! `healthmonitor` + the deprecated `health_monitor`.

use serde::Serialize;

/// A quota response object; `None` limits render `null`; fields in sorted key order (see
/// [`crate::view`]).
#[derive(Serialize)]
pub struct QuotaView<'a> {
    health_monitor: Option<i64>,
    healthmonitor: Option<i64>,
    l7policy: Option<i64>,
    l7rule: Option<i64>,
    listener: Option<i64>,
    load_balancer: Option<i64>,
    loadbalancer: Option<i64>,
    member: Option<i64>,
    pool: Option<i64>,
    project_id: &'a str,
    tenant_id: &'a str,
}

/// A project's limits per resource (`None`: unset; -1: unlimited).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Limits {
    /// Load balancers.
    pub load_balancer: Option<i64>,
    /// Listeners.
    pub listener: Option<i64>,
    /// Members.
    pub member: Option<i64>,
    /// Pools.
    pub pool: Option<i64>,
    /// Health monitors.
    pub health_monitor: Option<i64>,
    /// L7 policies.
    pub l7policy: Option<i64>,
    /// L7 rules.
    pub l7rule: Option<i64>,
}

impl<'a> QuotaView<'a> {
    /// The quota object of `project` with `limits`.
    pub fn new(project: &'a str, limits: Limits) -> Self {
        Self {
            health_monitor: limits.health_monitor,
            healthmonitor: limits.health_monitor,
            l7policy: limits.l7policy,
            l7rule: limits.l7rule,
            listener: limits.listener,
            load_balancer: limits.load_balancer,
            loadbalancer: limits.load_balancer,
            member: limits.member,
            pool: limits.pool,
            project_id: project,
            tenant_id: project,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::view::testing::same_as_map;
    use serde_json::json;

    #[test]
    fn quota_view_text_equals_the_map_it_replaced() {
        let full = Limits {
            load_balancer: Some(1),
            listener: Some(-1),
            member: Some(3),
            pool: Some(4),
            health_monitor: Some(5),
            l7policy: Some(6),
            l7rule: Some(0),
        };
        for l in [full, Limits::default()] {
            let (lb, hm) = (l.load_balancer, l.health_monitor);
            // `quotas::render` before the view
            let map = json!({
                "project_id": "p\"", "tenant_id": "p\"",
                "loadbalancer": lb, "load_balancer": lb, "listener": l.listener, "member": l.member,
                "pool": l.pool, "healthmonitor": hm, "health_monitor": hm, "l7policy": l.l7policy,
                "l7rule": l.l7rule,
            });
            same_as_map(&QuotaView::new("p\"", l), map);
        }
    }
}
