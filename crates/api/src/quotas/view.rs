//! The quota response object, as `octavia/api/v2/types/quotas.py` `QuotaResponse` (plus the
//! `tenant_id` echo): each limit twice, `loadbalancer` + the deprecated `load_balancer`,
//! `healthmonitor` + the deprecated `health_monitor`.

use crate::view::view_decl;

view_decl! {
    /// A quota response object, as octavia/api/v2/types/quotas.py `QuotaResponse`; `None`
    /// limits render `null`; serialised in sorted key order (see [`crate::view`]).
    pub struct QuotaView<'a>;
    /// The quota object of `project` with `limits`.
    pub fn new(project: &'a str, limits: Limits);
    /// `QuotaResponse`'s attribute names (filters, sort keys, `fields=`): `project_id`, its
    /// `tenant_id` echo, each limit under its name and its deprecated alias.
    pub const QUOTA_ATTRS;
    /// `GET /v2/lbaas/quotas` in SQL (the stored limits; NULL renders `null`).
    pub static QUOTA = { joins: &[], tags: false };
    fields {
        project_id: &'a str = project => Val("`t`.`project_id`", Text),
        tenant_id: &'a str = project => Val("`t`.`project_id`", Text),
        loadbalancer: Option<i64> = limits.load_balancer => Val("`t`.`load_balancer`", Int),
        load_balancer: Option<i64> = limits.load_balancer => Val("`t`.`load_balancer`", Int),
        listener: Option<i64> = limits.listener => Val("`t`.`listener`", Int),
        member: Option<i64> = limits.member => Val("`t`.`member`", Int),
        pool: Option<i64> = limits.pool => Val("`t`.`pool`", Int),
        healthmonitor: Option<i64> = limits.health_monitor => Val("`t`.`health_monitor`", Int),
        health_monitor: Option<i64> = limits.health_monitor => Val("`t`.`health_monitor`", Int),
        l7policy: Option<i64> = limits.l7policy => Val("`t`.`l7policy`", Int),
        l7rule: Option<i64> = limits.l7rule => Val("`t`.`l7rule`", Int),
    }
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
