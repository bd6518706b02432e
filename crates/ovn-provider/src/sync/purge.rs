//! The purge of orphan rows (no filters): `Load_Balancer` rows carrying Octavia's keys whose
//! load balancer the database does not have and whose VIP port this deployment made, deleted
//! with their references as `lb_delete` does. Keel's addition; the reference purges nothing.

use super::*;

impl Sim<'_> {
    /// Rows carrying Octavia's keys whose LB is unknown and whose VIP port is this
    /// deployment's: deleted with their references ([`Purge`]).
    pub(super) fn purge(&mut self, purge: &Purge) -> Result<(), SimError> {
        let mut names = BTreeSet::new();
        for r in self.nb.load_balancers.values() {
            if !sim::is_octavia_row(&r.external_ids) || purge.known.contains(&r.name) {
                continue;
            }
            let port = r.external_ids.get(crate::external_ids::VIP_PORT_ID);
            if port.is_some_and(|p| purge.owned_vip_ports.contains(p)) {
                names.insert(r.name.clone());
            } else {
                tracing::info!(lb = %r.name, vip_port = ?port,
                    "Load_Balancer row of a load balancer this database does not have, not made by this deployment: left alone");
            }
        }
        for name in names {
            let plan = lb::delete(&self.nb, &name, false);
            self.apply(&plan.ops)?;
            self.d(
                &name,
                "Load_Balancer row of a load balancer Octavia does not have, deleted".into(),
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

    #[test]
    fn repairs_references_vips_strays_and_purges_orphans() {
        let mut s = topology();
        run(&mut s, None);
        let good = s.lbs_named("LB")[0].clone();
        let u = good.uuid.clone();
        // drift: off the switch, vips altered, a stray member, a stale health check
        s.switches.get_mut("ls1").unwrap().load_balancer.clear();
        let r = s.load_balancers.get_mut(&u).unwrap();
        r.vips.insert("10.0.0.5:80".into(), "10.9.9.9:1".into());
        r.external_ids.insert(
            "pool_P".into(),
            "member_M1_10.0.0.10:8080_sub1,member_X_10.0.0.99:80_sub1".into(),
        );
        s.insert_json(
            "Load_Balancer_Health_Check",
            "hc-old",
            &json!({"vip": "10.0.0.5:80",
            "external_ids": ["map", [["octavia:healthmonitor", "OLD"], ["octavia:pool_id", "P"]]]}),
        );
        s.load_balancers
            .get_mut(&u)
            .unwrap()
            .health_check
            .push("hc-old".into());
        // an orphan Octavia row of this deployment, one of another deployment (its VIP port
        // not ours) and a Neutron port-forwarding row
        s.insert_json(
            "Load_Balancer",
            "orphan",
            &json!({"name": "GONE",
            "external_ids": ["map", [["neutron:vip_port_id", "p"], ["enabled", "True"]]]}),
        );
        s.insert_json(
            "Load_Balancer",
            "foreign",
            &json!({"name": "OTHER",
            "external_ids": ["map", [["neutron:vip_port_id", "q"], ["enabled", "True"]]]}),
        );
        s.insert_json(
            "Load_Balancer",
            "pf",
            &json!({"name": "pf-floatingip-x-tcp",
            "external_ids": ["map", [["neutron:device_owner", "port_forwarding_plugin"],
                ["neutron:vip_port_id", "p"], ["enabled", "True"]]]}),
        );
        let known = Purge {
            known: ["LB".to_string()].into(),
            owned_vip_ports: ["p".to_string()].into(),
        };
        let diffs = run(&mut s, Some(&known));
        let text: Vec<String> = diffs.iter().map(|d| d.to_string()).collect();
        for want in [
            "member X: not in Octavia",
            "not referenced by switch neutron-net1",
            "vips drifted",
            "health monitor OLD: not in Octavia",
            "fix GONE: Load_Balancer row",
        ] {
            assert!(text.iter().any(|t| t.contains(want)), "{want}: {text:?}");
        }
        assert!(!s.load_balancers.contains_key("orphan"));
        assert!(s.load_balancers.contains_key("foreign"), "not ours: kept");
        assert!(!text.iter().any(|t| t.contains("OTHER")), "{text:?}");
        assert!(s.load_balancers.contains_key("pf"));
        let fixed = s.lbs_named("LB")[0].clone();
        assert_eq!(fixed.external_ids, good.external_ids);
        assert_eq!(fixed.vips, good.vips);
        assert_eq!(fixed.health_check, good.health_check);
        assert!(s.switches["ls1"].load_balancer.contains(&u));
        assert!(run(&mut s, Some(&known)).is_empty());
    }
}
