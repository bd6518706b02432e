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
