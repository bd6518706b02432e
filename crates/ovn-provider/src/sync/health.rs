//! `ovn-db-sync` step 5: health checks of every health monitor (`hm_create` / `hm_update` /
//! `_sync_lbhc`: missing rows, option drift, `vip` values, member mappings) and the purge of
//! health checks of monitors Octavia no longer has (`hm_purge`).

use super::*;

impl Sim<'_> {
    /// Health checks of `hm` against what `hm_create` would make on the pool's row: one per
    /// VIP, additional VIP and FIP with `vip` = `<ip>:<listener port>` (`[v6]:port`; '' without
    /// listener). A wrong `vip` is rewritten, a missing VIP's check created, a check of a VIP
    /// the row no longer has removed.
    pub(super) fn health_check_vips(&mut self, lb_id: &str, hm: &HmReq) -> Result<(), SimError> {
        let mut found = Vec::new();
        let ops = {
            let snap = &self.nb;
            let mut edit = Edit::new(snap);
            if let Some((row, _)) = snap.lb_by_pool(&hm.pool_id) {
                let h = LbRef::Existing(row.uuid.clone());
                let ids = &row.external_ids;
                let port = ext::listeners(ids)
                    .into_iter()
                    .find(|(_, _, v)| v.pool_id.as_deref() == Some(hm.pool_id.as_str()))
                    .map(|(_, _, v)| v.port);
                let mut vips: Vec<String> = ids.get(ext::VIP).cloned().into_iter().collect();
                vips.extend(ext::parse_list(ids, ext::ADDITIONAL_VIPS));
                vips.extend(ids.get(ext::VIP_FIP).cloned());
                vips.extend(ext::parse_list(ids, ext::ADDITIONAL_VIP_FIPS));
                let want: BTreeMap<String, String> = vips
                    .into_iter()
                    .filter_map(|v| {
                        let ip = v.parse::<IpAddr>().ok()?;
                        Some((ip.to_string(), hm::hc_vip(ip, port)))
                    })
                    .collect();
                let hcs: Vec<&crate::nb::HealthCheckRow> = row
                    .health_check
                    .iter()
                    .filter_map(|u| snap.health_checks.get(u))
                    .filter(|hc| hc.external_ids.get(ext::HC_HEALTHMONITOR) == Some(&hm.id))
                    .collect();
                let mut seen = BTreeSet::new();
                let mut stale = Vec::new();
                for hc in &hcs {
                    let v = crate::events::health_check_vip(hc);
                    let key = v
                        .parse::<IpAddr>()
                        .map(|a| a.to_string())
                        .unwrap_or(v.clone());
                    match want.get(&key) {
                        Some(w) if seen.insert(key.clone()) => {
                            if hc.vip != *w {
                                found.push((
                                    format!("health check {}: vip {:?} → {w:?}", hc.uuid, hc.vip),
                                    true,
                                ));
                                edit.push(Op::Update {
                                    table: "Load_Balancer_Health_Check",
                                    uuid: hc.uuid.clone(),
                                    row: vec![("vip", crate::nb::Datum::Str(w.clone()))],
                                });
                            }
                        }
                        _ => {
                            found.push((
                                format!(
                                    "health check {} of {}: VIP {v:?} not on the row (or twice), removed",
                                    hc.uuid, hm.id
                                ),
                                true,
                            ));
                            stale.push(hc.uuid.clone());
                        }
                    }
                }
                edit.remove_health_checks(&row.uuid, stale);
                if !hcs.is_empty() {
                    for (ip, w) in &want {
                        if seen.contains(ip) {
                            continue;
                        }
                        let mut hc_ids = ext::ExternalIds::new();
                        hc_ids.insert(ext::HC_HEALTHMONITOR.into(), hm.id.clone());
                        hc_ids.insert(ext::HC_POOL_ID.into(), hm.pool_id.clone());
                        hc_ids.insert(ext::HC_VIP.into(), ip.clone());
                        found.push((
                            format!(
                                "health monitor {}: no health check for VIP {ip}, created",
                                hm.id
                            ),
                            true,
                        ));
                        edit.insert_health_check(&h, w.clone(), hm.options(), hc_ids);
                    }
                }
            }
            edit.into_ops()
        };
        self.apply(&ops)?;
        for (f, r) in found {
            self.d(lb_id, f, r);
        }
        Ok(())
    }

    /// Step 5: health checks of every health monitor; purge of the others.
    #[allow(
        clippy::too_many_lines,
        reason = "a known exception of clippy.toml's bound"
    )]
    pub(super) fn health_monitors(&mut self, lb: &LoadBalancer) -> Result<(), SimError> {
        let id = lb.loadbalancer_id.as_str();
        let mut wanted = BTreeSet::new();
        for p in lb.pools.iter().flatten() {
            let Some(h) = &p.healthmonitor else { continue };
            wanted.insert(h.healthmonitor_id.clone());
            let req = hm_req(h, &p.pool_id);
            if self.nb.lb_by_pool(&p.pool_id).is_none() {
                continue;
            }
            let hcs: Vec<_> = self
                .nb
                .health_checks_of(&req.id)
                .into_iter()
                .cloned()
                .collect();
            // a disabled monitor has no health check (hm::create / hm::update)
            if !req.enabled {
                if !hcs.is_empty()
                    && let Ok(plan) = hm::update(&self.nb, &req)
                {
                    self.apply(&plan.ops)?;
                    self.d(
                        id,
                        format!(
                            "health monitor {} is disabled: health checks removed",
                            req.id
                        ),
                        true,
                    );
                }
                continue;
            }
            if hcs.is_empty() {
                if !self.nb.health_check_supported {
                    self.d(
                        id,
                        format!("health monitor {}: the NB has no health checks", req.id),
                        false,
                    );
                    continue;
                }
                match hm::create(&self.nb, &req, &self.facts.members) {
                    Ok(plan) => {
                        self.apply(&plan.ops)?;
                        let err = plan
                            .report
                            .healthmonitors
                            .iter()
                            .any(|r| r.provisioning_status == Some(Prov::Error));
                        let what = if err {
                            "no health check, created (a member subnet has no health-monitor port: not mapped)"
                        } else {
                            "no health check, created"
                        };
                        self.d(id, format!("health monitor {}: {what}", req.id), true);
                    }
                    Err(e) => self.d(id, format!("health monitor {}: {e}", req.id), false),
                }
                continue;
            }
            // what an update would write (non-zero values): a drift it cannot fix is left alone
            let opts = req.update_options();
            if hcs
                .iter()
                .any(|hc| opts.iter().any(|(k, v)| hc.options.get(k) != Some(v)))
                && let Ok(plan) = hm::update(&self.nb, &req)
            {
                self.apply(&plan.ops)?;
                self.d(
                    id,
                    format!("health monitor {}: options drifted, rewritten", req.id),
                    true,
                );
            }
            self.health_check_vips(id, &req)?;
            // every monitored member is mapped through its subnet's HM port
            let mut found = Vec::new();
            let ops = {
                let snap = &self.nb;
                let mut edit = Edit::new(snap);
                if let Some((row, key)) = snap.lb_by_pool(&p.pool_id) {
                    let h = LbRef::Existing(row.uuid.clone());
                    let statuses = ext::parse_member_status(&row.external_ids);
                    let entries = ext::parse_pool_members(
                        row.external_ids.get(&key).map(String::as_str).unwrap_or(""),
                    )
                    .0;
                    for e in entries {
                        let offline = statuses.get(&e.id).map(String::as_str)
                            == Some(OpStatus::Offline.as_str());
                        if offline
                            || row
                                .ip_port_mappings
                                .contains_key(&member::mapping_key(e.address))
                        {
                            continue;
                        }
                        if member::map_member(&mut edit, &h, &e, &self.facts.members)
                            == OpStatus::Online
                        {
                            let unmonitored = statuses
                                .get(&e.id)
                                .is_none_or(|s| s == OpStatus::NoMonitor.as_str());
                            if unmonitored {
                                member::set_member_status(
                                    &mut edit,
                                    &h,
                                    &e.id,
                                    Some(OpStatus::Online),
                                );
                            }
                            found.push((
                                format!("member {}: no ip_port_mappings entry, added", e.id),
                                true,
                            ));
                        } else {
                            // No port to monitor (or no health-monitor port on its subnet):
                            // `member_create` leaves such a member unmapped and ERROR, and
                            // so does the sync — the NB then is what the normal path
                            // writes, not a difference that fails the load balancer.
                            if statuses.get(&e.id).map(String::as_str)
                                != Some(OpStatus::Error.as_str())
                            {
                                member::set_member_status(
                                    &mut edit,
                                    &h,
                                    &e.id,
                                    Some(OpStatus::Error),
                                );
                                found.push((
                                    format!("member {}: no port or health-monitor port to monitor it, ERROR", e.id),
                                    true,
                                ));
                            }
                        }
                    }
                }
                edit.into_ops()
            };
            self.apply(&ops)?;
            for (f, r) in found {
                self.d(id, f, r);
            }
        }
        Ok(())
    }

    /// Step 5a: health checks of monitors Octavia does not have (`hm_purge`), first, so a
    /// replaced monitor does not leave its members unmapped.
    pub(super) fn stale_health_monitors(&mut self, lb: &LoadBalancer) -> Result<(), SimError> {
        let id = lb.loadbalancer_id.as_str();
        let wanted: BTreeSet<String> = lb
            .pools
            .iter()
            .flatten()
            .filter_map(|p| p.healthmonitor.as_ref().map(|h| h.healthmonitor_id.clone()))
            .collect();
        let mut stale: BTreeMap<String, String> = BTreeMap::new();
        for row in self.nb.lbs_named(id) {
            for u in &row.health_check {
                if let Some(hc) = self.nb.health_checks.get(u)
                    && let Some(hid) = hc.external_ids.get(ext::HC_HEALTHMONITOR)
                    && !wanted.contains(hid)
                {
                    let pool = hc
                        .external_ids
                        .get(ext::HC_POOL_ID)
                        .cloned()
                        .unwrap_or_default();
                    stale.insert(hid.clone(), pool);
                }
            }
            for hid in ext::parse_healthmonitors(&row.external_ids) {
                if !wanted.contains(&hid) {
                    stale.entry(hid).or_default();
                }
            }
        }
        let monitored: BTreeSet<String> = lb
            .pools
            .iter()
            .flatten()
            .filter(|p| p.healthmonitor.is_some())
            .map(|p| p.pool_id.clone())
            .collect();
        for (hid, pool_id) in stale {
            let ops = if monitored.contains(&pool_id) {
                // the pool is monitored by another HM: drop only the stale health checks, the
                // members stay mapped and monitored
                let snap = &self.nb;
                let mut edit = Edit::new(snap);
                let hcs: Vec<String> = snap
                    .health_checks_of(&hid)
                    .iter()
                    .map(|h| h.uuid.clone())
                    .collect();
                for row in snap.lbs_named(id) {
                    edit.remove_health_checks(&row.uuid, hcs.clone());
                    let mut hms = ext::parse_healthmonitors(&row.external_ids);
                    if hms.contains(&hid) {
                        hms.retain(|x| *x != hid);
                        if let Some(r) = edit.row_mut(&LbRef::Existing(row.uuid.clone())) {
                            r.external_ids.insert(
                                ext::HEALTHMONITORS.into(),
                                ext::format_healthmonitors(&hms),
                            );
                        }
                    }
                }
                edit.into_ops()
            } else {
                hm::delete(&self.nb, &hid, &pool_id).ops
            };
            self.apply(&ops)?;
            self.d(
                id,
                format!("health monitor {hid}: not in Octavia, its health checks removed"),
                true,
            );
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

    /// IPv6: a health check whose `vip` lost its brackets is rewritten as `[v6]:port`.
    #[test]
    fn repairs_an_ipv6_health_check_vip() {
        let mut s = NbSnapshot {
            health_check_supported: true,
            ..Default::default()
        };
        s.insert_json(
            "Load_Balancer_Health_Check",
            "hc1",
            &json!({"vip": "fd00::5:80", "options": ["map", [["interval", "5"], ["timeout", "3"],
                ["success_count", "2"], ["failure_count", "3"]]],
                "external_ids": ["map", [["octavia:healthmonitor", "H"], ["octavia:pool_id", "P"],
                    ["octavia:vip", "fd00::5"]]]}),
        );
        s.insert_json(
            "Load_Balancer",
            "u6",
            &json!({"name": "LB", "protocol": "tcp",
                "selection_fields": ["set", ["ip_dst", "ip_src", "tp_dst", "tp_src"]],
                "health_check": ["set", [["uuid", "hc1"]]],
                "external_ids": ["map", [["neutron:vip", "fd00::5"], ["enabled", "True"],
                    ["neutron:vip_port_id", "vp"], ["listener_L", "80:pool_P"], ["pool_P", ""],
                    ["octavia:healthmonitors", "[\"H\"]"]]]}),
        );
        let mut g = graph();
        g.vip_address = Some("fd00::5".into());
        g.pools.as_mut().unwrap()[0].members = Some(vec![]);
        let p = plan(&s, &[g], &SyncFacts::default(), None).unwrap();
        let upd = p.ops.iter().find_map(|o| match o {
            Op::Update {
                table: "Load_Balancer_Health_Check",
                uuid,
                row,
            } => Some((uuid.clone(), row.clone())),
            _ => None,
        });
        assert_eq!(
            upd,
            Some((
                "hc1".to_string(),
                vec![("vip", crate::nb::Datum::Str("[fd00::5]:80".into()))]
            )),
            "{:?}",
            p.differences
        );
    }
}
