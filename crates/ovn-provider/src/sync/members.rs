//! `ovn-db-sync` step 4: the member entries of every pool (extra or drifted ones removed,
//! missing ones added as `member_create` does: `ls_refs`, routers, `ip_port_mappings`).

use super::*;

impl Sim<'_> {
    /// Step 4: member entries of every pool.
    pub(super) fn members(&mut self, lb: &LoadBalancer) -> Result<(), SimError> {
        let id = lb.loadbalancer_id.as_str();
        for p in lb.pools.iter().flatten() {
            let pid = p.pool_id.as_str();
            let Some((row, key)) = self.nb.lb_by_pool(pid) else {
                continue;
            };
            let have = ext::parse_pool_members(
                row.external_ids.get(&key).map(String::as_str).unwrap_or(""),
            )
            .0;
            let statuses = ext::parse_member_status(&row.external_ids);
            let mut found = Vec::new();
            let mut want: Vec<MemberReq> = Vec::new();
            for m in p.members.iter().flatten() {
                let old = have.iter().find(|e| e.id == m.member_id);
                match member_subnet(lb, m, old).and_then(|s| requests::member_req(m, pid, s)) {
                    Some(req) => want.push(req),
                    None => found.push((
                        format!("member {}: no address or subnet", m.member_id),
                        false,
                    )),
                }
            }
            let mut create = Vec::new();
            let mut delete = Vec::new();
            let mut update = Vec::new();
            for e in &have {
                match want.iter().find(|w| w.id == e.id) {
                    None => {
                        found.push((
                            format!("member {}: not in Octavia, removed from pool {pid}", e.id),
                            true,
                        ));
                        delete.push(e.id.clone());
                    }
                    Some(w) if w.entry() != *e => {
                        found.push((
                            format!("member {}: {} → {}", w.id, e.format(), w.entry().format()),
                            true,
                        ));
                        delete.push(e.id.clone());
                        create.push(w.clone());
                    }
                    Some(w) => {
                        // a disabled member is OFFLINE; an enabled one may be OFFLINE for health
                        // reasons (its Service_Monitor went away), which is not drift
                        let offline = statuses.get(&w.id).map(String::as_str)
                            == Some(OpStatus::Offline.as_str());
                        if !w.enabled && !offline {
                            found.push((
                                format!("member {}: admin_state_up → {}", w.id, w.enabled),
                                true,
                            ));
                            update.push((w.id.clone(), Some(w.enabled)));
                        }
                    }
                }
            }
            for w in &want {
                if !have.iter().any(|e| e.id == w.id) {
                    found.push((
                        format!("member {}: missing from pool {pid}, added", w.id),
                        true,
                    ));
                    create.push(w.clone());
                }
            }
            if !(create.is_empty() && delete.is_empty() && update.is_empty()) {
                match member::change(
                    &self.nb,
                    pid,
                    &create,
                    &update,
                    &delete,
                    &self.facts.members,
                ) {
                    Ok(plan) => self.apply(&plan.ops)?,
                    Err(e) => {
                        for f in &mut found {
                            f.1 = false;
                        }
                        found.push((format!("pool {pid}: {e}"), false));
                    }
                }
            }
            for (f, r) in found {
                self.d(id, f, r);
            }
        }
        Ok(())
    }
}
