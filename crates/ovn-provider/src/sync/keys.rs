//! `ovn-db-sync` steps 2–3 on the existing rows: listener and pool keys (removed, drift of
//! port, default pool and `:D` fixed, `vips` re-framed), listeners and pools without a key
//! created, and the row-level pool settings (`selection_fields`, `affinity_timeout`).

use super::*;
use crate::lb::selection_fields_of as selection_fields;

impl Sim<'_> {
    /// Step 2: keys on the existing rows.
    #[allow(
        clippy::too_many_lines,
        reason = "a known exception of clippy.toml's bound"
    )]
    pub(super) fn keys(&mut self, lb: &LoadBalancer) -> Result<(), SimError> {
        let id = lb.loadbalancer_id.as_str();
        let listeners: BTreeMap<&str, &provider::Listener> = lb
            .listeners
            .iter()
            .flatten()
            .map(|l| (l.listener_id.as_str(), l))
            .collect();
        let pools: BTreeSet<&str> = lb
            .pools
            .iter()
            .flatten()
            .map(|p| p.pool_id.as_str())
            .collect();
        let mut found = Vec::new();
        let mut orphan_pools = Vec::new();
        let ops = {
            let snap = &self.nb;
            let mut edit = Edit::new(snap);
            for row in snap.lbs_named(id) {
                let h = LbRef::Existing(row.uuid.clone());
                for (key, value) in &row.external_ids {
                    match ObjectKey::parse(key) {
                        Some(ObjectKey::Listener { id: lid, enabled }) => {
                            let Some(l) = listeners.get(lid.as_str()) else {
                                found.push(format!("listener {lid}: not in Octavia, removed"));
                                if let Some(r) = edit.row_mut(&h) {
                                    r.external_ids.remove(key);
                                }
                                continue;
                            };
                            let want_enabled = l.admin_state_up.unwrap_or(true);
                            let want = ListenerValue {
                                port: l.protocol_port.unwrap_or(0),
                                pool_id: l.default_pool_id.clone().flatten(),
                            }
                            .format();
                            if want_enabled != enabled || *value != want {
                                let new_key = ext::listener_key(&lid, want_enabled);
                                found.push(format!(
                                    "listener {lid}: {key}={value} → {new_key}={want}"
                                ));
                                if let Some(r) = edit.row_mut(&h) {
                                    r.external_ids.remove(key);
                                    r.external_ids.insert(new_key, want);
                                }
                            }
                        }
                        Some(ObjectKey::Pool { id: pid, enabled }) => {
                            if !pools.contains(pid.as_str()) {
                                orphan_pools.push(pid);
                                continue;
                            }
                            let want_enabled = lb
                                .pools
                                .iter()
                                .flatten()
                                .find(|p| p.pool_id == pid)
                                .and_then(|p| p.admin_state_up)
                                .unwrap_or(true);
                            if want_enabled != enabled {
                                found.push(format!(
                                    "pool {pid}: enabled {enabled} → {want_enabled}"
                                ));
                                if let Some(r) = edit.row_mut(&h) {
                                    r.external_ids.remove(key);
                                    r.external_ids
                                        .insert(ext::pool_key(&pid, want_enabled), value.clone());
                                }
                            }
                        }
                        None => {}
                    }
                }
                if crate::vips::frame_vips(&row.external_ids) != row.vips {
                    found.push(format!("row {}: vips drifted, re-framed", row.uuid));
                    // touching the row makes the edit write the re-framed vips
                    let _ = edit.row_mut(&h);
                }
            }
            edit.into_ops()
        };
        self.apply(&ops)?;
        for f in found {
            self.d(id, f, true);
        }
        for pid in orphan_pools {
            let ops = {
                let snap = &self.nb;
                let mut edit = Edit::new(snap);
                let mut plan = Plan::default();
                if let Ok((h, key, _)) = member::locate(snap, &pid) {
                    let ids: Vec<String> = snap
                        .lb_by_pool(&pid)
                        .and_then(|(r, k)| r.external_ids.get(&k).cloned())
                        .map(|v| ext::parse_pool_members(&v).0)
                        .unwrap_or_default()
                        .into_iter()
                        .map(|e| e.id)
                        .collect();
                    member::remove(&mut edit, &mut plan, &h, &key, &ids, &self.facts.members);
                }
                let req = PoolReq {
                    id: pid.clone(),
                    lb_id: id.to_string(),
                    ..Default::default()
                };
                pool::remove(&mut edit, &mut plan, &req);
                edit.into_ops()
            };
            self.apply(&ops)?;
            self.d(
                id,
                format!("pool {pid}: not in Octavia, removed with its members"),
                true,
            );
        }
        Ok(())
    }

    /// Step 3: listeners and pools without a key.
    pub(super) fn missing_listeners_and_pools(
        &mut self,
        lb: &LoadBalancer,
    ) -> Result<(), SimError> {
        let id = lb.loadbalancer_id.as_str();
        for l in lb.listeners.iter().flatten() {
            if self.nb.lb_by_listener(id, &l.listener_id).is_some() {
                continue;
            }
            let Some(protocol) = l.protocol.clone().filter(|p| !p.is_empty()) else {
                self.d(
                    id,
                    format!("listener {}: no key, no protocol", l.listener_id),
                    false,
                );
                continue;
            };
            let req = ListenerReq {
                lb_id: id.to_string(),
                protocol,
                ..requests::listener_req(l, None)
            };
            match listener::create(&self.nb, &req) {
                Ok(p) => {
                    self.apply(&p.ops)?;
                    self.d(
                        id,
                        format!("listener {}: no key in any row, created", l.listener_id),
                        true,
                    );
                }
                Err(e) => self.d(id, format!("listener {}: {e}", l.listener_id), false),
            }
        }
        for p in lb.pools.iter().flatten() {
            if self.nb.lb_by_pool(&p.pool_id).is_some() {
                continue;
            }
            let Some(protocol) = p.protocol.clone().filter(|p| !p.is_empty()) else {
                self.d(
                    id,
                    format!("pool {}: no key, no protocol", p.pool_id),
                    false,
                );
                continue;
            };
            let req = PoolReq {
                lb_id: id.to_string(),
                protocol,
                ..requests::pool_req(p, None)
            };
            match pool::create(&self.nb, &req) {
                Ok(plan) => {
                    self.apply(&plan.ops)?;
                    self.d(
                        id,
                        format!("pool {}: no key in any row, created", p.pool_id),
                        true,
                    );
                }
                Err(e) => self.d(id, format!("pool {}: {e}", p.pool_id), false),
            }
        }
        Ok(())
    }

    /// Step 3b: the row-level pool settings, `selection_fields` from the pool algorithm and
    /// `options:affinity_timeout` from its session persistence (`persistence_timeout`, default
    /// 360; removed when no pool of the row has persistence). The reference's `pool_sync` only
    /// sets `affinity_timeout`; Keel also repairs `selection_fields` and a stale timeout. Pools
    /// sharing a row that want different values (the reference's row-level limitation) are a
    /// [`Resolution::Conflict`] while the row holds one of those values; a value none wants is
    /// repaired to the first pool's.
    pub(super) fn pool_options(&mut self, lb: &LoadBalancer) -> Result<(), SimError> {
        let id = lb.loadbalancer_id.as_str();
        let mut by_row: BTreeMap<String, Vec<&provider::Pool>> = BTreeMap::new();
        for p in lb.pools.iter().flatten() {
            if let Some((row, _)) = self.nb.lb_by_pool(&p.pool_id) {
                by_row.entry(row.uuid.clone()).or_default().push(p);
            }
        }
        let sorted = |mut v: Vec<String>| {
            v.sort();
            v
        };
        let mut found = Vec::new();
        let ops = {
            let snap = &self.nb;
            let mut edit = Edit::new(snap);
            for (u, pools) in &by_row {
                let Some(row) = snap.load_balancers.get(u) else {
                    continue;
                };
                let names = pools
                    .iter()
                    .map(|p| p.pool_id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ");
                let h = LbRef::Existing(u.clone());
                // pools of one row wanting different values: the row keeps the one it holds
                // (the last pool written, as the reference) — a conflict, not a drift; a
                // value no pool wants is repaired to the first pool's
                let fields: BTreeSet<Vec<String>> = pools
                    .iter()
                    .map(|p| {
                        sorted(selection_fields(
                            &row.external_ids,
                            p.lb_algorithm.as_deref(),
                        ))
                    })
                    .collect();
                let have = sorted(row.selection_fields.clone());
                if fields.contains(&have) {
                    if fields.len() > 1 {
                        found.push((
                            format!(
                                "row {u}: pools {names} want different selection_fields; the row keeps {have:?}"
                            ),
                            Resolution::Conflict,
                        ));
                    }
                } else if let Some(p) = pools.first() {
                    let want = selection_fields(&row.external_ids, p.lb_algorithm.as_deref());
                    found.push((
                        format!(
                            "row {u}: selection_fields {:?} → {want:?}",
                            row.selection_fields
                        ),
                        Resolution::Repaired,
                    ));
                    if let Some(r) = edit.row_mut(&h) {
                        r.selection_fields = want;
                    }
                }
                let timeouts: BTreeSet<Option<String>> = pools
                    .iter()
                    .map(|p| pool::affinity_timeout(p.session_persistence.as_ref()))
                    .collect();
                let have = row.options.get(pool::AFFINITY_TIMEOUT).cloned();
                if timeouts.contains(&have) {
                    if timeouts.len() > 1 {
                        found.push((
                            format!(
                                "row {u}: pools {names} want different affinity_timeout; the row keeps {have:?}"
                            ),
                            Resolution::Conflict,
                        ));
                    }
                } else if let Some(p) = pools.first() {
                    let want = pool::affinity_timeout(p.session_persistence.as_ref());
                    found.push((
                        format!("row {u}: options:affinity_timeout {have:?} → {want:?}"),
                        Resolution::Repaired,
                    ));
                    if let Some(r) = edit.row_mut(&h) {
                        match want {
                            Some(t) => {
                                r.options.insert(pool::AFFINITY_TIMEOUT.into(), t);
                            }
                            None => {
                                r.options.remove(pool::AFFINITY_TIMEOUT);
                            }
                        }
                    }
                }
            }
            edit.into_ops()
        };
        self.apply(&ops)?;
        for (f, r) in found {
            self.found(id, f, r);
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::sync::fixtures::*;
    use provider::Pool;
    use serde_json::json;

    /// Row-level pool settings and health-check `vip`s that drifted are repaired; a second
    /// plan finds nothing.
    #[test]
    fn repairs_selection_fields_affinity_timeout_and_health_check_vips() {
        let mut s = topology();
        run(&mut s, None);
        let u = s.lbs_named("LB")[0].uuid.clone();
        // damage: wrong fields, a stale timeout, a health check probing the wrong port, and a
        // FIP recorded on the row without its health check
        let r = s.load_balancers.get_mut(&u).unwrap();
        r.selection_fields = vec!["ip_src".into()];
        r.options.insert("affinity_timeout".into(), "99".into());
        r.external_ids
            .insert(ext::VIP_FIP.into(), "172.24.4.9".into());
        r.vips = crate::vips::frame_vips(&r.external_ids);
        let hc = r.health_check[0].clone();
        s.health_checks.get_mut(&hc).unwrap().vip = "10.0.0.5:99".into();
        let diffs = run(&mut s, None);
        let text: Vec<String> = diffs.iter().map(|d| d.to_string()).collect();
        assert!(diffs.iter().all(Difference::is_repaired), "{text:?}");
        assert!(
            text.iter().any(|t| t.contains("selection_fields")),
            "{text:?}"
        );
        assert!(
            text.iter().any(|t| t.contains("affinity_timeout")),
            "{text:?}"
        );
        assert!(
            text.iter()
                .any(|t| t.contains("vip \"10.0.0.5:99\" → \"10.0.0.5:80\"")),
            "{text:?}"
        );
        let r = &s.load_balancers[&u];
        assert_eq!(r.selection_fields, ["ip_dst", "ip_src", "tp_dst", "tp_src"]);
        assert!(!r.options.contains_key("affinity_timeout"));
        let mut vips: Vec<(String, String)> = r
            .health_check
            .iter()
            .map(|h| {
                let hc = &s.health_checks[h];
                (hc.vip.clone(), hc.external_ids["octavia:vip"].clone())
            })
            .collect();
        vips.sort();
        assert_eq!(
            vips,
            [
                ("10.0.0.5:80".to_string(), "10.0.0.5".to_string()),
                ("172.24.4.9:80".to_string(), "172.24.4.9".to_string())
            ]
        );
        assert!(run(&mut s, None).is_empty());

        // session persistence in Octavia: the timeout comes back (default 360 for a null one)
        let mut g = graph();
        g.pools.as_mut().unwrap()[0].session_persistence =
            Some(json!({"type": "SOURCE_IP", "persistence_timeout": null}));
        let p = plan(&s, &[g], &facts(), None).unwrap();
        let mut seq = 2000;
        sim::apply(&mut s, &p.ops, &mut seq).unwrap();
        assert_eq!(s.load_balancers[&u].options["affinity_timeout"], "360");
    }

    /// Two pools of one protocol sharing a row with different algorithms: a conflict while the
    /// row holds one pool's fields (nothing written; recovery does not mark the LB ERROR), a
    /// repair to the first pool's when it holds neither.
    #[test]
    fn pools_sharing_a_row_with_different_algorithms_are_a_conflict() {
        let mut s = topology();
        let mut g = graph();
        g.pools.as_mut().unwrap().push(Pool {
            pool_id: "P2".into(),
            protocol: Some("TCP".into()),
            lb_algorithm: Some("SOURCE_IP".into()),
            ..Default::default()
        });
        let mut seq = 7000;
        let mut sync = |s: &mut NbSnapshot| {
            let p = plan(s, std::slice::from_ref(&g), &facts(), None).unwrap();
            sim::apply(s, &p.ops, &mut seq).unwrap();
            (p.differences, p.ops.is_empty())
        };
        sync(&mut s);
        let u = s.lbs_named("LB")[0].uuid.clone();
        assert!(s.load_balancers[&u].external_ids.contains_key("pool_P2"));
        let (diffs, nothing_written) = sync(&mut s);
        assert!(nothing_written, "{diffs:?}");
        assert_eq!(diffs.len(), 1, "{diffs:?}");
        assert_eq!(diffs[0].resolution, Resolution::Conflict, "{diffs:?}");
        assert!(
            diffs[0].to_string().starts_with("conflict LB: row "),
            "{diffs:?}"
        );
        assert!(!diffs[0].is_unrepaired());

        s.load_balancers.get_mut(&u).unwrap().selection_fields = vec!["tp_dst".into()];
        let (diffs, _) = sync(&mut s);
        assert_eq!(diffs.len(), 1, "{diffs:?}");
        assert!(diffs[0].is_repaired(), "{diffs:?}");
        assert_eq!(
            s.load_balancers[&u].selection_fields,
            ["ip_dst", "ip_src", "tp_dst", "tp_src"]
        );
        let (diffs, nothing_written) = sync(&mut s);
        assert!(nothing_written && diffs.iter().all(|d| d.resolution == Resolution::Conflict));
    }
}
