//! `ovn-db-sync` step 1b: the load balancer's flavor on every row ([`crate::flavor`]): the
//! `keel:flavor` key and the flavor's `options` as the database's flavor profile says, and
//! the hash fields of a row without pools (rows with pools: `pool_options`, which reads
//! the flavor this step leaves on the row).

use super::*;
use crate::flavor::{self, OvnFlavor};

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
                let Some(r) = edit.row(&h) else { continue };
                if !ext::pools(&r.external_ids).is_empty() {
                    continue;
                }
                let fields = flavor::selection_fields(&r.external_ids, None);
                let (mut a, mut b) = (fields.clone(), r.selection_fields.clone());
                a.sort();
                b.sort();
                if a != b {
                    found.push(format!(
                        "row {}: selection_fields {:?} → {fields:?}",
                        row.uuid, r.selection_fields
                    ));
                    if let Some(r) = edit.row_mut(&h) {
                        r.selection_fields = fields;
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
