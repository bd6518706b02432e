//! A pending change to the NB: modified copies of `Load_Balancer` rows plus the extra
//! operations (switch/router references, health-check rows), turned into ONE transaction.
//!
//! Every touched row gets its `vips` recomputed from its `external_ids` ([`crate::vips`]) and a
//! `wait` on the `external_ids` it was planned from (a new row: a `wait` that no row of its name
//! and protocol exists), so two Keel processes racing on one row cannot lose each other's
//! keys, and a request re-planned after an in-flight commit cannot insert a second row: the
//! loser's transaction aborts and is re-planned (the reference has no such guard).

use std::collections::{BTreeMap, BTreeSet};

use crate::external_ids::{self as ext};
use crate::nb::{Datum, LoadBalancerRow, NbSnapshot, Op, RowRef, Uuid};
use crate::vips::frame_vips;

/// Handle on a load-balancer row inside an [`Edit`]: an existing uuid or a row this edit
/// inserts.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum LbRef {
    /// A row already in NB, by `_uuid`.
    Existing(Uuid),
    /// New row (`uuid-name`).
    New(String),
}

impl LbRef {
    /// As an OVSDB row reference.
    pub fn row_ref(&self) -> RowRef {
        match self {
            LbRef::Existing(u) => RowRef::Uuid(u.clone()),
            LbRef::New(n) => RowRef::Named(n.clone()),
        }
    }
}

/// Planned change against one snapshot.
#[derive(Debug)]
pub struct Edit<'a> {
    /// The snapshot planned against.
    pub snap: &'a NbSnapshot,
    rows: BTreeMap<LbRef, LoadBalancerRow>,
    deleted: BTreeSet<Uuid>,
    extra: Vec<Op>,
    inserts: Vec<Op>,
    counter: usize,
}

impl<'a> Edit<'a> {
    /// Start an edit.
    pub fn new(snap: &'a NbSnapshot) -> Self {
        Self {
            snap,
            rows: BTreeMap::new(),
            deleted: BTreeSet::new(),
            extra: Vec::new(),
            inserts: Vec::new(),
            counter: 0,
        }
    }

    /// The current (possibly modified) state of a row.
    pub fn row(&self, r: &LbRef) -> Option<&LoadBalancerRow> {
        self.rows.get(r).or_else(|| match r {
            LbRef::Existing(u) => self.snap.load_balancers.get(u),
            LbRef::New(_) => None,
        })
    }

    /// A mutable copy of a row (copied from the snapshot on first use).
    pub fn row_mut(&mut self, r: &LbRef) -> Option<&mut LoadBalancerRow> {
        if !self.rows.contains_key(r) {
            let LbRef::Existing(u) = r else { return None };
            let row = self.snap.load_balancers.get(u)?.clone();
            self.rows.insert(r.clone(), row);
        }
        self.rows.get_mut(r)
    }

    /// Add a new `Load_Balancer` row; returns its handle.
    pub fn insert_lb(&mut self, row: LoadBalancerRow) -> LbRef {
        self.counter += 1;
        let r = LbRef::New(format!("keel_lb_{}", self.counter));
        self.rows.insert(r.clone(), row);
        r
    }

    /// Delete a row (and drop any pending change to it).
    pub fn delete_lb(&mut self, r: &LbRef) {
        self.rows.remove(r);
        if let LbRef::Existing(u) = r {
            self.deleted.insert(u.clone());
        }
    }

    /// True when the row is deleted by this edit.
    pub fn is_deleted(&self, r: &LbRef) -> bool {
        matches!(r, LbRef::Existing(u) if self.deleted.contains(u))
    }

    /// Add a non-LB operation (run after the row inserts and updates).
    pub fn push(&mut self, op: Op) {
        self.extra.push(op);
    }

    /// Insert a `Load_Balancer_Health_Check` row and reference it from `lb`.
    pub fn insert_health_check(
        &mut self,
        lb: &LbRef,
        vip: String,
        options: ext::ExternalIds,
        external_ids: ext::ExternalIds,
    ) {
        self.counter += 1;
        let name = format!("keel_hc_{}", self.counter);
        self.inserts.push(Op::Insert {
            table: "Load_Balancer_Health_Check",
            uuid_name: name.clone(),
            row: vec![
                ("vip", Datum::Str(vip)),
                ("options", Datum::Map(options)),
                ("external_ids", Datum::Map(external_ids)),
            ],
        });
        self.attach(
            lb,
            "Load_Balancer",
            lb,
            "health_check",
            Some(RowRef::Named(name)),
        );
    }

    /// `mutate insert` of the LB into `table.column` of row `target` (switch or router), or of
    /// `value` into the LB's own column when `table` is `Load_Balancer`.
    fn attach(
        &mut self,
        lb: &LbRef,
        table: &'static str,
        target: &LbRef,
        column: &'static str,
        value: Option<RowRef>,
    ) {
        let value = value.unwrap_or_else(|| lb.row_ref());
        match target {
            LbRef::Existing(u) => self.extra.push(Op::Mutate {
                table,
                uuid: u.clone(),
                column,
                insert: true,
                value: Datum::Refs(vec![value]),
            }),
            LbRef::New(_) => {
                // a new row: put the reference in its insert
                if let (Some(row), RowRef::Named(n)) = (self.rows.get_mut(target), value) {
                    row.health_check.push(format!("named:{n}"));
                }
            }
        }
    }

    /// Reference the LB from a switch (`Logical_Switch.load_balancer`).
    pub fn attach_switch(&mut self, lb: &LbRef, switch_uuid: &str) {
        self.extra.push(Op::Mutate {
            table: "Logical_Switch",
            uuid: switch_uuid.to_string(),
            column: "load_balancer",
            insert: true,
            value: Datum::Refs(vec![lb.row_ref()]),
        });
    }

    /// Reference the LB from a router (`Logical_Router.load_balancer`).
    pub fn attach_router(&mut self, lb: &LbRef, router_uuid: &str) {
        self.extra.push(Op::Mutate {
            table: "Logical_Router",
            uuid: router_uuid.to_string(),
            column: "load_balancer",
            insert: true,
            value: Datum::Refs(vec![lb.row_ref()]),
        });
    }

    /// Drop the LB from a switch.
    pub fn detach_switch(&mut self, lb_uuid: &str, switch_uuid: &str) {
        self.extra.push(Op::Mutate {
            table: "Logical_Switch",
            uuid: switch_uuid.to_string(),
            column: "load_balancer",
            insert: false,
            value: Datum::Refs(vec![RowRef::Uuid(lb_uuid.to_string())]),
        });
    }

    /// Drop the LB from a router.
    pub fn detach_router(&mut self, lb_uuid: &str, router_uuid: &str) {
        self.extra.push(Op::Mutate {
            table: "Logical_Router",
            uuid: router_uuid.to_string(),
            column: "load_balancer",
            insert: false,
            value: Datum::Refs(vec![RowRef::Uuid(lb_uuid.to_string())]),
        });
    }

    /// Remove health-check rows from an existing LB (they are garbage-collected: the table is
    /// not a root table).
    pub fn remove_health_checks(&mut self, lb_uuid: &str, hcs: Vec<Uuid>) {
        if hcs.is_empty() {
            return;
        }
        if let Some(row) = self.row_mut(&LbRef::Existing(lb_uuid.to_string())) {
            row.health_check.retain(|h| !hcs.contains(h));
        }
    }

    /// The operations, in order: waits, inserts, updates, mutations, deletes.
    pub fn into_ops(self) -> Vec<Op> {
        let mut waits = Vec::new();
        let mut inserts = self.inserts;
        let mut updates = Vec::new();
        let mut deletes = Vec::new();
        for (r, mut row) in self.rows {
            row.vips = frame_vips(&row.external_ids);
            match &r {
                LbRef::New(name) => {
                    // no row like it appeared since the snapshot (a re-planned insert)
                    waits.push(Op::WaitAbsent {
                        table: "Load_Balancer",
                        columns: vec![
                            ("name", Datum::Str(row.name.clone())),
                            (
                                "protocol",
                                Datum::Set(row.protocol.iter().cloned().collect()),
                            ),
                        ],
                    });
                    inserts.push(Op::Insert {
                        table: "Load_Balancer",
                        uuid_name: name.clone(),
                        row: lb_columns(&row, None),
                    });
                }
                LbRef::Existing(u) => {
                    let Some(orig) = self.snap.load_balancers.get(u) else {
                        continue;
                    };
                    let cols = lb_columns(&row, Some(orig));
                    if cols.is_empty() {
                        continue;
                    }
                    waits.push(Op::WaitEq {
                        table: "Load_Balancer",
                        uuid: u.clone(),
                        column: "external_ids",
                        value: Datum::Map(orig.external_ids.clone()),
                    });
                    updates.push(Op::Update {
                        table: "Load_Balancer",
                        uuid: u.clone(),
                        row: cols,
                    });
                }
            }
        }
        for u in self.deleted {
            deletes.push(Op::Delete {
                table: "Load_Balancer",
                uuid: u,
            });
        }
        let mut ops = waits;
        ops.append(&mut inserts);
        ops.append(&mut updates);
        ops.extend(self.extra);
        ops.append(&mut deletes);
        ops
    }
}

fn refs(list: &[String]) -> Datum {
    Datum::Refs(
        list.iter()
            .map(|h| match h.strip_prefix("named:") {
                Some(n) => RowRef::Named(n.to_string()),
                None => RowRef::Uuid(h.clone()),
            })
            .collect(),
    )
}

/// Columns of `row` that differ from `orig` (all of them for a new row).
fn lb_columns(row: &LoadBalancerRow, orig: Option<&LoadBalancerRow>) -> Vec<(&'static str, Datum)> {
    lb_columns_with(row, orig, &refs)
}

/// [`lb_columns`] with the `health_check` references written by `hc_refs` (the sync
/// simulator names the rows of a real snapshot differently); `health_check` is compared as
/// the set it is in OVSDB.
pub(crate) fn lb_columns_with(
    row: &LoadBalancerRow,
    orig: Option<&LoadBalancerRow>,
    hc_refs: &dyn Fn(&[Uuid]) -> Datum,
) -> Vec<(&'static str, Datum)> {
    let mut cols = Vec::new();
    let changed = |f: &dyn Fn(&LoadBalancerRow) -> bool| orig.is_none_or(f);
    if orig.is_none() {
        cols.push(("name", Datum::Str(row.name.clone())));
    }
    if changed(&|o| o.protocol != row.protocol) {
        cols.push((
            "protocol",
            Datum::Set(row.protocol.iter().cloned().collect()),
        ));
    }
    if changed(&|o| o.external_ids != row.external_ids) {
        cols.push(("external_ids", Datum::Map(row.external_ids.clone())));
    }
    if changed(&|o| o.vips != row.vips) {
        cols.push(("vips", Datum::Map(row.vips.clone())));
    }
    if changed(&|o| o.options != row.options) {
        cols.push(("options", Datum::Map(row.options.clone())));
    }
    if changed(&|o| o.selection_fields != row.selection_fields) {
        cols.push(("selection_fields", Datum::Set(row.selection_fields.clone())));
    }
    if changed(&|o| o.ip_port_mappings != row.ip_port_mappings) {
        cols.push(("ip_port_mappings", Datum::Map(row.ip_port_mappings.clone())));
    }
    if changed(&|o| {
        let a: BTreeSet<&Uuid> = o.health_check.iter().collect();
        let b: BTreeSet<&Uuid> = row.health_check.iter().collect();
        a != b
    }) {
        cols.push(("health_check", hc_refs(&row.health_check)));
    }
    cols
}
