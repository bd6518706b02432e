//! `ovn-db-sync` step 1b: the load balancer's flavor on every row ([`crate::flavor`]): the
//! `keel:flavor` key and the flavor's `options` as the database's flavor profile says. The
//! hash fields of rows with pools are `pool_options`' (it reads the flavor this step leaves
//! on the row); a row without pools keeps its fields unchecked, as before flavors (a deleted
//! pool's fields stay on its row, as the reference leaves them).

use super::*;
use crate::flavor::OvnFlavor;

impl Sim<'_> {
    /// Step 1b: flavor options. A model without `flavor` (`None`) is not checked.
    pub(super) fn flavor(&mut self, lb: &LoadBalancer) -> Result<(), SimError> {
        let Some(meta) = lb.flavor.as_ref() else {
            return Ok(());
        };
        let want = OvnFlavor::from_metadata(Some(meta));
        let id = lb.loadbalancer_id.as_str();
        let mut found = Vec::new();
        let ops = {
            let snap = &self.nb;
            let mut edit = Edit::new(snap);
            for row in snap.lbs_named(id) {
                let h = LbRef::Existing(row.uuid.clone());
                if !want.matches(row) {
                    let have = OvnFlavor::of_row(&row.external_ids);
                    found.push(format!(
                        "row {}: flavor options {:?} → {:?}",
                        row.uuid,
                        have.options(),
                        want.options()
                    ));
                    if let Some(r) = edit.row_mut(&h) {
                        want.apply(r);
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

#[cfg(test)]
mod tests {
    use super::super::fixtures::{facts, graph, topology};
    use super::*;
    use provider::{Listener, Pool};
    use serde_json::{Value, json};

    /// The fixture graph with a flavor, plus a UDP listener and pool (a second row, made
    /// by `get_or_create_row`).
    fn flavored(meta: Value) -> (LoadBalancer, SyncFacts) {
        let mut g = graph();
        g.flavor = Some(meta.clone());
        g.listeners.as_mut().unwrap().push(Listener {
            listener_id: "LU".into(),
            protocol: Some("UDP".into()),
            protocol_port: Some(53),
            default_pool_id: Some(Some("PU".into())),
            ..Default::default()
        });
        g.pools.as_mut().unwrap().push(Pool {
            pool_id: "PU".into(),
            protocol: Some("UDP".into()),
            listener_id: Some("LU".into()),
            lb_algorithm: Some("SOURCE_IP".into()),
            ..Default::default()
        });
        let mut f = facts();
        if let Some(c) = f.lbs.get_mut("LB") {
            c.flavor = OvnFlavor::from_metadata(Some(&meta));
        }
        (g, f)
    }

    fn sync(s: &mut NbSnapshot, g: &LoadBalancer, f: &SyncFacts) -> (Vec<String>, bool) {
        static SEQ: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(50_000);
        let p = plan(s, std::slice::from_ref(g), f, None).unwrap();
        let mut seq = SEQ.fetch_add(1000, std::sync::atomic::Ordering::Relaxed);
        sim::apply(s, &p.ops, &mut seq).unwrap();
        let text = p.differences.iter().map(|d| d.to_string()).collect();
        (text, p.ops.is_empty())
    }

    fn rows(s: &NbSnapshot) -> Vec<crate::nb::LoadBalancerRow> {
        s.lbs_named("LB").into_iter().cloned().collect()
    }

    #[test]
    fn every_row_carries_the_flavor_and_drift_is_repaired() {
        let meta = json!({"reject": true, "neighbor_responder": "all",
            "hairpin_snat_ip": ["10.0.0.77"], "selection_fields": ["ip_src", "tp_src"]});
        let (g, f) = flavored(meta);
        let mut s = topology();
        sync(&mut s, &g, &f);
        let rs = rows(&s);
        assert_eq!(rs.len(), 2, "{rs:?}");
        for r in &rs {
            assert_eq!(r.options.get("reject").map(String::as_str), Some("true"));
            assert_eq!(
                r.options.get("neighbor_responder").map(String::as_str),
                Some("all")
            );
            assert_eq!(
                r.options.get("hairpin_snat_ip").map(String::as_str),
                Some("10.0.0.77")
            );
            assert!(r.external_ids.contains_key(crate::flavor::FLAVOR_KEY));
            // TCP row: SOURCE_IP_PORT → the flavor's fields; UDP row: SOURCE_IP's own
            let want: &[&str] = if r.protocol.as_deref() == Some("udp") {
                &["ip_src", "ip_dst"]
            } else {
                &["ip_src", "tp_src"]
            };
            assert_eq!(r.selection_fields, want, "{r:?}");
        }
        let (diffs, nothing) = sync(&mut s, &g, &f);
        assert!(nothing && diffs.is_empty(), "{diffs:?}");

        // drift: an option removed, one changed, the hash fields changed
        let u = rs
            .iter()
            .find(|r| r.protocol.as_deref() == Some("tcp"))
            .unwrap();
        let r = s.load_balancers.get_mut(&u.uuid).unwrap();
        r.options.remove("reject");
        r.options.insert("neighbor_responder".into(), "none".into());
        r.selection_fields = vec!["ip_dst".into()];
        let (diffs, _) = sync(&mut s, &g, &f);
        assert!(
            diffs
                .iter()
                .any(|d| d.starts_with("fix LB: row ") && d.contains("flavor options")),
            "{diffs:?}"
        );
        assert!(
            diffs.iter().any(|d| d.contains("selection_fields")),
            "{diffs:?}"
        );
        assert_eq!(rows(&s), rs);
        let (diffs, nothing) = sync(&mut s, &g, &f);
        assert!(nothing && diffs.is_empty(), "{diffs:?}");

        // the database says no flavor: Keel's option keys and the marker go, other options
        // stay, the hash fields are the algorithm's again
        let (mut plain, f0) = flavored(json!({}));
        plain.flavor = Some(json!({}));
        let (diffs, _) = sync(&mut s, &plain, &f0);
        assert_eq!(
            diffs
                .iter()
                .filter(|d| d.contains("flavor options"))
                .count(),
            2,
            "{diffs:?}"
        );
        for r in rows(&s) {
            assert!(
                crate::flavor::OPTION_KEYS
                    .iter()
                    .all(|k| !r.options.contains_key(*k)),
                "{r:?}"
            );
            assert!(!r.external_ids.contains_key(crate::flavor::FLAVOR_KEY));
            if r.protocol.as_deref() == Some("tcp") {
                assert_eq!(
                    r.selection_fields,
                    crate::lb::selection_fields(Some("SOURCE_IP_PORT"))
                );
            }
        }
        // a model without `flavor` is not checked
        plain.flavor = None;
        let with = flavored(json!({"reject": true})).0;
        sync(&mut s, &with, &f);
        let (diffs, nothing) = sync(&mut s, &plain, &f0);
        assert!(nothing && diffs.is_empty(), "{diffs:?}");
    }

    /// A row without pools takes the flavor's hash fields (`lb_create`'s default); the sync
    /// leaves a pool-less row's fields alone (a deleted pool's stay, as before flavors).
    #[test]
    fn a_row_without_pools_has_the_flavor_hash_fields() {
        let mut g = graph();
        g.listeners = Some(vec![]);
        g.pools = Some(vec![]);
        g.flavor = Some(json!({"selection_fields": []}));
        let mut f = facts();
        if let Some(c) = f.lbs.get_mut("LB") {
            c.flavor = OvnFlavor::from_metadata(g.flavor.as_ref());
        }
        let mut s = topology();
        sync(&mut s, &g, &f);
        assert_eq!(rows(&s)[0].selection_fields, Vec::<String>::new());
        let u = rows(&s)[0].uuid.clone();
        s.load_balancers.get_mut(&u).unwrap().selection_fields = vec!["ip_src".into()];
        let (diffs, nothing) = sync(&mut s, &g, &f);
        assert!(nothing && diffs.is_empty(), "{diffs:?}");
    }
}
