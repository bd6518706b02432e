//! `ovn-db-sync` step 6: switch and router references (every switch of `ls_refs`, the VIP
//! switch and every router of `lr_ref` reference the row; `ls_refs` not below what the VIPs
//! and members hold).

use super::*;

impl Sim<'_> {
    /// Step 6: switch and router references.
    pub(super) fn references(&mut self, lb: &LoadBalancer) -> Result<(), SimError> {
        let id = lb.loadbalancer_id.as_str();
        let mut found = Vec::new();
        let ops = {
            let snap = &self.nb;
            let mut edit = Edit::new(snap);
            let vip_ls = lb
                .vip_network_id
                .as_deref()
                .filter(|n| !n.is_empty())
                .map(ext::ovn_name)
                .and_then(|n| snap.switch_named(&n))
                .filter(|ls| !NbSnapshot::is_provider_network(ls));
            for row in snap.lbs_named(id) {
                let h = LbRef::Existing(row.uuid.clone());
                let mut refs = ext::parse_ls_refs(&row.external_ids);
                if let Some(ls) = vip_ls
                    && !refs.contains_key(&ls.name)
                {
                    let n = 1 + lb.additional_vips.iter().flatten().count() as i64;
                    refs.insert(ls.name.clone(), n);
                    found.push(format!(
                        "row {}: VIP switch {} missing from ls_refs, added",
                        row.uuid, ls.name
                    ));
                    if let Some(r) = edit.row_mut(&h) {
                        r.external_ids
                            .insert(ext::LS_REFS.into(), ext::format_ls_refs(&refs));
                    }
                }
                // never fewer references than the VIPs and members of the row hold (a count
                // too low would detach the switch while still in use)
                let mut floor: BTreeMap<String, i64> = BTreeMap::new();
                if let Some(ls) = vip_ls {
                    *floor.entry(ls.name.clone()).or_default() +=
                        1 + lb.additional_vips.iter().flatten().count() as i64;
                }
                for (_, _, members) in ext::pools(&row.external_ids) {
                    for m in members {
                        if let Some(sn) = self.facts.members.subnets.get(&m.subnet_id) {
                            let name = ext::ovn_name(&sn.network_id);
                            if snap
                                .switch_named(&name)
                                .is_some_and(|ls| !NbSnapshot::is_provider_network(ls))
                            {
                                *floor.entry(name).or_default() += 1;
                            }
                        }
                    }
                }
                let mut raised = false;
                for (name, n) in floor {
                    let have = refs.entry(name.clone()).or_insert(0);
                    if *have < n {
                        found.push(format!("row {}: ls_refs {name} {have} → {n}", row.uuid));
                        *have = n;
                        raised = true;
                    }
                }
                if raised && let Some(r) = edit.row_mut(&h) {
                    r.external_ids
                        .insert(ext::LS_REFS.into(), ext::format_ls_refs(&refs));
                }
                for name in refs.keys() {
                    if let Some(ls) = snap.switch_named(name)
                        && !ls.load_balancer.contains(&row.uuid)
                    {
                        found.push(format!(
                            "row {}: not referenced by switch {name}, attached",
                            row.uuid
                        ));
                        edit.attach_switch(&h, &ls.uuid);
                    }
                }
                for name in ext::parse_lr_ref(&row.external_ids) {
                    if let Some(lr) = snap.router_named(&name)
                        && !lr.load_balancer.contains(&row.uuid)
                    {
                        found.push(format!(
                            "row {}: not referenced by router {name}, attached",
                            row.uuid
                        ));
                        edit.attach_router(&h, &lr.uuid);
                    }
                }
            }
            edit.into_ops()
        };
        self.apply(&ops)?;
        for f in found {
            self.d(id, f, true);
        }
        Ok(())
    }
}
