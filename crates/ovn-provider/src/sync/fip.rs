//! `ovn-db-sync` step 3c (`_fip_sync`): the VIP's floating IP as Neutron has it vs what the
//! VIP switch port and the rows record, repaired with the agent's VIP FIP planner.

use super::*;

impl Sim<'_> {
    /// Step 3c (`_fip_sync`): the VIP's floating IP as Neutron has it vs the VIP switch
    /// port's `neutron:port_fip` and the rows' `neutron:vip_fip`. When Neutron and the port
    /// agree, the rows are given the FIP (`neutron:vip_fip`, its `vips` entries, FIP copies of
    /// the VIP health checks: `handle_vip_fip` in sync mode). When they disagree the difference
    /// is reported, not repaired (Neutron's own sync must run first, as the reference says).
    /// Keel also removes a `neutron:vip_fip` neither Neutron nor the port has any more (the
    /// reference only warns).
    pub(super) fn vip_fip(&mut self, lb: &LoadBalancer) -> Result<(), SimError> {
        let id = lb.loadbalancer_id.as_str();
        let Some(neutron_fip) = self.facts.vip_fips.get(id).cloned() else {
            return Ok(());
        };
        let Some(port_id) = lb.vip_port_id.clone().filter(|p| !p.is_empty()) else {
            return Ok(());
        };
        let rows = self.nb.lbs_named(id);
        let Some(first) = rows.first() else {
            return Ok(());
        };
        let recorded = first
            .external_ids
            .get(ext::VIP_FIP)
            .filter(|f| !f.is_empty())
            .cloned();
        let lsp = self
            .nb
            .switch_ports
            .values()
            .find(|p| p.name == port_id)
            .cloned();
        let lsp_fip = lsp
            .as_ref()
            .and_then(|p| p.external_ids.get(crate::ports::PORT_FIP))
            .filter(|f| !f.is_empty())
            .cloned();
        // a supplement only: `events::related_vips` reads the VIP from the row
        let related: Vec<String> = lsp
            .iter()
            .flat_map(|p| p.addresses.iter())
            .flat_map(|a| a.split_whitespace())
            .filter(|t| t.parse::<IpAddr>().is_ok())
            .map(String::from)
            .collect();
        let event = |fip: &str, associate: bool| crate::events::FipEvent {
            lb_id: id.to_string(),
            fip: fip.to_string(),
            associate,
            additional: false,
            port: port_id.to_string(),
            related: related.clone(),
        };
        match (neutron_fip, lsp_fip) {
            (Some(n), _) if lsp.is_none() => self.d(
                id,
                format!("VIP port {port_id} has FIP {n} in Neutron but no switch port: run neutron-ovn-db-sync-util first"),
                false,
            ),
            (Some(n), Some(l)) if n == l => {
                if recorded.as_deref() != Some(n.as_str()) {
                    let plan = crate::events::vip_fip(&self.nb, &event(&n, true));
                    self.apply(&plan.ops)?;
                    self.d(id, format!("neutron:vip_fip {recorded:?} → {n}"), true);
                }
            }
            (Some(n), l) => self.d(
                id,
                format!("VIP FIP {n} in Neutron but {l:?} on the switch port: run neutron-ovn-db-sync-util first"),
                false,
            ),
            (None, Some(l)) => self.d(
                id,
                format!("VIP switch port has FIP {l} that Neutron does not: run neutron-ovn-db-sync-util first"),
                false,
            ),
            (None, None) => {
                if let Some(r) = recorded {
                    let plan = crate::events::vip_fip(&self.nb, &event(&r, false));
                    self.apply(&plan.ops)?;
                    self.d(id, format!("neutron:vip_fip {r}: no FIP any more, removed"), true);
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::sync::fixtures::*;
    use serde_json::json;

    /// `_fip_sync`: the FIP Neutron and the VIP switch port agree on is recorded on the row
    /// (with its `vips` entry and health check); a disagreement is reported unrepaired; a FIP
    /// gone from both is removed from the row.
    #[test]
    fn fip_sync() {
        let mut s = topology();
        let vp = |s: &mut NbSnapshot, fip: Option<&str>| {
            let mut ids = vec![json!(["neutron:port_name", "ovn-lb-vip-LB"])];
            if let Some(f) = fip {
                ids.push(json!(["neutron:port_fip", f]));
            }
            s.insert_json(
                "Logical_Switch_Port",
                "lsp-vp",
                // no `addresses`: as Neutron leaves the switch port of Keel's VIP port (no
                // `device_owner`); the VIP of the FIP's health check comes from the row
                &json!({"name": "vp", "addresses": ["set", []],
                    "external_ids": ["map", ids]}),
            );
        };
        vp(&mut s, Some("172.24.4.9"));
        let with_fip = |fip: Option<&str>| {
            let mut f = facts();
            f.vip_fips.insert("LB".into(), fip.map(String::from));
            f
        };
        let go = |s: &mut NbSnapshot, f: &SyncFacts| {
            let p = plan(s, &[graph()], f, None).unwrap();
            static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(1);
            let mut seq = 5000 * RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            sim::apply(s, &p.ops, &mut seq).unwrap();
            p.differences
        };
        go(&mut s, &with_fip(Some("172.24.4.9")));
        let r = s.lbs_named("LB")[0].clone();
        assert_eq!(r.external_ids[ext::VIP_FIP], "172.24.4.9");
        assert_eq!(r.vips["172.24.4.9:80"], "10.0.0.10:8080");
        let mut hcs: Vec<String> = r
            .health_check
            .iter()
            .map(|h| s.health_checks[h].vip.clone())
            .collect();
        hcs.sort();
        assert_eq!(hcs, ["10.0.0.5:80", "172.24.4.9:80"]);
        assert!(go(&mut s, &with_fip(Some("172.24.4.9"))).is_empty());

        // Neutron and the port disagree: reported, nothing written
        let d = go(&mut s, &with_fip(Some("172.24.4.10")));
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(d[0].is_unrepaired());
        assert_eq!(
            s.lbs_named("LB")[0].external_ids[ext::VIP_FIP],
            "172.24.4.9"
        );

        // the FIP is gone from Neutron and from the port: removed from the row
        vp(&mut s, None);
        let d = go(&mut s, &with_fip(None));
        assert!(
            d.iter().all(Difference::is_repaired) && !d.is_empty(),
            "{d:?}"
        );
        let r = s.lbs_named("LB")[0].clone();
        assert!(!r.external_ids.contains_key(ext::VIP_FIP));
        assert!(!r.vips.contains_key("172.24.4.9:80"));
        assert_eq!(r.health_check.len(), 1);
        assert!(go(&mut s, &with_fip(None)).is_empty());
    }
}
