//! The NB as a value: apply planned operations to an [`NbSnapshot`] the way ovsdb-server
//! would (named uuids, mutations of reference sets, garbage collection of unreferenced
//! health checks), and turn the difference between two snapshots back into ONE transaction.
//!
//! `ovn-db-sync` chains the driver's planners (LB create, listener, pool, members, health
//! monitor) on a simulated NB, then commits `diff(real, simulated)` at once: a dry run shows
//! exactly what a run writes, and a failed run writes nothing. The planner scenario tests
//! (`tests/scenarios.rs`) apply their plans with the same simulator.

use std::collections::{BTreeMap, BTreeSet};

use crate::nb::{Datum, HealthCheckRow, LoadBalancerRow, NbSnapshot, Op, RowRef, StrMap, Uuid};
use crate::row_index::IndexKey;

/// Prefix of the uuid the simulation gives an inserted row; also its `uuid-name` in the
/// final transaction (letters, digits and `_` only, as RFC 7047 requires).
pub const NEW_PREFIX: &str = "keelsync_";

/// Why an operation could not be simulated (a planner bug, never user input).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("simulating NB operation: {0}")]
pub struct SimError(pub String);

/// Apply `ops` (one planned transaction) to `s`. `seq` numbers the inserted rows across
/// calls, so uuids stay unique within one sync. A `wait` whose row no longer holds the
/// expected `external_ids` is an error, as ovsdb-server refuses it, and so is a health-check
/// reference this transaction writes to a row that does not exist at commit (referential
/// integrity); a switch/router reference it inserts to a `Load_Balancer` row that does not
/// exist at commit vanishes (weak reference). After an error `s` may be partly changed
/// (callers drop it). `tests/sim_against_ovsdb_server.rs` checks all this against a real
/// `ovsdb-server`.
#[allow(
    clippy::too_many_lines,
    reason = "a known exception of clippy.toml's bound"
)]
pub fn apply(s: &mut NbSnapshot, ops: &[Op], seq: &mut usize) -> Result<(), SimError> {
    let mut names: BTreeMap<String, Uuid> = BTreeMap::new();
    let resolve = |names: &BTreeMap<String, Uuid>, r: &RowRef| -> Result<Uuid, SimError> {
        match r {
            RowRef::Uuid(u) => Ok(u.clone()),
            RowRef::Named(n) => names
                .get(n)
                .cloned()
                .ok_or_else(|| SimError(format!("named uuid {n} not inserted before use"))),
        }
    };
    let refs = |names: &BTreeMap<String, Uuid>, d: &Datum| -> Result<Vec<Uuid>, SimError> {
        match d {
            Datum::Refs(r) => {
                let v = r
                    .iter()
                    .map(|x| resolve(names, x))
                    .collect::<Result<Vec<_>, _>>()?;
                distinct(&v)?;
                Ok(v)
            }
            other => Err(SimError(format!("expected references, got {other:?}"))),
        }
    };
    // health checks that may have lost their last reference (inserted ones included)
    let mut maybe_gone: BTreeSet<Uuid> = BTreeSet::new();
    // (Load_Balancer row, health check) strong references this transaction wrote, checked at
    // commit as ovsdb-server checks referential integrity
    let mut strong: Vec<(Uuid, Uuid)> = Vec::new();
    // (table, row, Load_Balancer) weak references this transaction inserted: ovsdb-server
    // drops those whose row does not exist at commit (deleted, or never there)
    let mut weak: Vec<(&'static str, Uuid, Uuid)> = Vec::new();
    for op in ops {
        match op {
            // as ovsdb-server: a guard that no longer holds refuses the transaction (the planners
            // guard only `Load_Balancer.external_ids`)
            Op::WaitEq {
                table: "Load_Balancer",
                uuid,
                column: "external_ids",
                value: Datum::Map(m),
            } => {
                if s.load_balancers.get(uuid).map(|r| &r.external_ids) != Some(m) {
                    return Err(SimError(format!("wait failed on Load_Balancer {uuid}")));
                }
            }
            Op::WaitEq { table, column, .. } => {
                return Err(SimError(format!("wait on {table}.{column}")));
            }
            Op::WaitAbsent {
                table: "Load_Balancer",
                columns,
            } => {
                let matches = |r: &LoadBalancerRow| {
                    columns.iter().all(|(c, v)| match (*c, v) {
                        ("name", Datum::Str(n)) => &r.name == n,
                        ("protocol", Datum::Set(p)) => r.protocol.iter().eq(p.iter()),
                        _ => false,
                    })
                };
                if let Some(r) = s.load_balancers.values().find(|r| matches(r)) {
                    return Err(SimError(format!(
                        "wait failed: Load_Balancer {} exists",
                        r.uuid
                    )));
                }
            }
            Op::WaitAbsent { table, .. } => {
                return Err(SimError(format!("wait for no row of {table}")));
            }
            Op::Insert {
                table,
                uuid_name,
                row,
            } => {
                *seq += 1;
                let uuid = format!("{NEW_PREFIX}{seq}");
                names.insert(uuid_name.clone(), uuid.clone());
                match *table {
                    "Load_Balancer" => {
                        let mut lb = LoadBalancerRow {
                            uuid: uuid.clone(),
                            ..Default::default()
                        };
                        set_lb(&mut lb, row, &|d| refs(&names, d))?;
                        strong.extend(lb.health_check.iter().map(|h| (uuid.clone(), h.clone())));
                        s.load_balancers.insert(uuid, lb);
                    }
                    "Load_Balancer_Health_Check" => {
                        let mut hc = HealthCheckRow {
                            uuid: uuid.clone(),
                            ..Default::default()
                        };
                        set_hc(&mut hc, row);
                        maybe_gone.insert(uuid.clone());
                        s.health_checks.insert(uuid, hc);
                    }
                    t => return Err(SimError(format!("insert into {t}"))),
                }
            }
            Op::Update { table, uuid, row } => match *table {
                "Load_Balancer" => {
                    let lb = s
                        .load_balancers
                        .get_mut(uuid)
                        .ok_or_else(|| SimError(format!("no Load_Balancer {uuid}")))?;
                    let sets_hc = row.iter().any(|(c, _)| *c == "health_check");
                    if sets_hc {
                        maybe_gone.extend(lb.health_check.iter().cloned());
                    }
                    set_lb(lb, row, &|d| refs(&names, d))?;
                    if sets_hc {
                        strong.extend(lb.health_check.iter().map(|h| (uuid.clone(), h.clone())));
                    }
                }
                "Load_Balancer_Health_Check" => {
                    let hc = s
                        .health_checks
                        .get_mut(uuid)
                        .ok_or_else(|| SimError(format!("no health check {uuid}")))?;
                    set_hc(hc, row);
                }
                t => return Err(SimError(format!("update of {t}"))),
            },
            Op::Mutate {
                table,
                uuid,
                column,
                insert,
                value,
            } => {
                let values = refs(&names, value)?;
                let target: &mut Vec<Uuid> = match (*table, *column) {
                    ("Logical_Switch", "load_balancer") => {
                        &mut s
                            .switches
                            .get_mut(uuid)
                            .ok_or_else(|| SimError(format!("no Logical_Switch {uuid}")))?
                            .load_balancer
                    }
                    ("Logical_Router", "load_balancer") => {
                        &mut s
                            .routers
                            .get_mut(uuid)
                            .ok_or_else(|| SimError(format!("no Logical_Router {uuid}")))?
                            .load_balancer
                    }
                    ("Load_Balancer", "health_check") => {
                        &mut s
                            .load_balancers
                            .get_mut(uuid)
                            .ok_or_else(|| SimError(format!("no Load_Balancer {uuid}")))?
                            .health_check
                    }
                    (t, c) => return Err(SimError(format!("mutation of {t}.{c}"))),
                };
                match (*insert, *table) {
                    (false, "Load_Balancer") => maybe_gone.extend(values.iter().cloned()),
                    (true, "Load_Balancer") => {
                        strong.extend(values.iter().map(|h| (uuid.clone(), h.clone())));
                    }
                    (true, t) => weak.extend(values.iter().map(|l| (t, uuid.clone(), l.clone()))),
                    (false, _) => {}
                }
                for v in values {
                    if *insert {
                        if !target.contains(&v) {
                            target.push(v);
                        }
                    } else {
                        target.retain(|x| *x != v);
                    }
                }
            }
            // Neutron's NAT rows are outside the simulated tables
            Op::UpdateWhereIncludes { .. } => {}
            // Keel's `allowed_cidrs` rows (`cidrs`) are outside the simulated tables too
            Op::WhereIncludes { .. } => {}
            Op::Delete { table, uuid } => match *table {
                "Load_Balancer" => {
                    if let Some(old) = s.load_balancers.remove(uuid) {
                        maybe_gone.extend(old.health_check);
                    }
                    // references to a deleted row vanish (weak references)
                    for ls in s.switches.values_mut() {
                        ls.load_balancer.retain(|x| x != uuid);
                    }
                    for lr in s.routers.values_mut() {
                        lr.load_balancer.retain(|x| x != uuid);
                    }
                }
                t => return Err(SimError(format!("delete from {t}"))),
            },
        }
    }
    // referential integrity: a health check referenced by a row this transaction wrote must
    // exist (one garbage-collected by an earlier transaction, or never inserted, makes
    // ovsdb-server refuse the transaction)
    for (lb, hc) in &strong {
        let held = s
            .load_balancers
            .get(lb)
            .is_some_and(|r| r.health_check.contains(hc));
        if held && !s.health_checks.contains_key(hc) {
            return Err(SimError(format!(
                "referential integrity violation: Load_Balancer {lb} health_check references \
                 nonexistent row {hc} in table Load_Balancer_Health_Check"
            )));
        }
    }
    // weak references to a Load_Balancer row that does not exist at commit vanish (only those
    // this transaction inserted: a partial snapshot, e.g. a sync chunk's view, lacks rows that
    // exist)
    for (table, row, lb) in weak {
        if s.load_balancers.contains_key(&lb) {
            continue;
        }
        let target = match table {
            "Logical_Switch" => s.switches.get_mut(&row).map(|r| &mut r.load_balancer),
            _ => s.routers.get_mut(&row).map(|r| &mut r.load_balancer),
        };
        if let Some(t) = target {
            t.retain(|x| *x != lb);
        }
    }
    s.load_balancers.reindex();
    // Load_Balancer_Health_Check is not a root table: rows no longer referenced are collected
    // (looked up through the row index, so a step costs nothing per unrelated row)
    for u in maybe_gone {
        let used = s
            .load_balancers
            .candidates(&IndexKey::HealthCheck(u.clone()))
            .iter()
            .any(|r| r.health_check.contains(&u));
        if !used {
            s.health_checks.remove(&u);
        }
    }
    Ok(())
}

fn set_lb(
    lb: &mut LoadBalancerRow,
    row: &[(&'static str, Datum)],
    refs: &dyn Fn(&Datum) -> Result<Vec<Uuid>, SimError>,
) -> Result<(), SimError> {
    for (col, v) in row {
        match (*col, v) {
            ("name", Datum::Str(x)) => lb.name = x.clone(),
            ("protocol", Datum::Set(x)) => {
                distinct(x)?;
                lb.protocol = x.first().cloned();
            }
            ("protocol", Datum::Str(x)) => lb.protocol = Some(x.clone()),
            ("external_ids", Datum::Map(m)) => lb.external_ids = m.clone(),
            ("vips", Datum::Map(m)) => lb.vips = m.clone(),
            ("options", Datum::Map(m)) => lb.options = m.clone(),
            ("selection_fields", Datum::Set(x)) => {
                distinct(x)?;
                lb.selection_fields = x.clone();
            }
            ("ip_port_mappings", Datum::Map(m)) => lb.ip_port_mappings = m.clone(),
            ("health_check", d) => lb.health_check = refs(d)?,
            (c, d) => return Err(SimError(format!("Load_Balancer.{c} = {d:?}"))),
        }
    }
    Ok(())
}

/// A set datum names each member once: ovsdb-server refuses `["set", [a, a]]` ("set
/// contains duplicate"), in a row and in a mutation alike.
fn distinct(v: &[String]) -> Result<(), SimError> {
    let mut seen = BTreeSet::new();
    match v.iter().find(|x| !seen.insert(*x)) {
        Some(x) => Err(SimError(format!("set contains duplicate {x}"))),
        None => Ok(()),
    }
}

fn set_hc(hc: &mut HealthCheckRow, row: &[(&'static str, Datum)]) {
    for (col, v) in row {
        match (*col, v) {
            ("vip", Datum::Str(x)) => hc.vip = x.clone(),
            ("options", Datum::Map(m)) => hc.options = m.clone(),
            ("external_ids", Datum::Map(m)) => hc.external_ids = m.clone(),
            _ => {}
        }
    }
}

/// A reference to `u` in the final transaction: a row of `real` by uuid, a row the
/// transaction inserts by its `uuid-name`.
fn row_ref(real: &NbSnapshot, u: &Uuid) -> RowRef {
    if real.load_balancers.contains_key(u) || real.health_checks.contains_key(u) {
        RowRef::Uuid(u.clone())
    } else {
        RowRef::Named(u.clone())
    }
}

fn refs_datum(real: &NbSnapshot, list: &[Uuid]) -> Datum {
    Datum::Refs(list.iter().map(|u| row_ref(real, u)).collect())
}

fn lb_columns(
    real: &NbSnapshot,
    row: &LoadBalancerRow,
    orig: Option<&LoadBalancerRow>,
) -> Vec<(&'static str, Datum)> {
    crate::edit::lb_columns_with(row, orig, &|list: &[Uuid]| refs_datum(real, list))
}

fn hc_columns(hc: &HealthCheckRow, orig: Option<&HealthCheckRow>) -> Vec<(&'static str, Datum)> {
    let mut cols = Vec::new();
    if orig.is_none_or(|o| o.vip != hc.vip) {
        cols.push(("vip", Datum::Str(hc.vip.clone())));
    }
    if orig.is_none_or(|o| o.options != hc.options) {
        cols.push(("options", Datum::Map(hc.options.clone())));
    }
    if orig.is_none_or(|o| o.external_ids != hc.external_ids) {
        cols.push(("external_ids", Datum::Map(hc.external_ids.clone())));
    }
    cols
}

#[allow(clippy::too_many_arguments)]
fn ref_changes(
    real: &NbSnapshot,
    table: &'static str,
    uuid: &Uuid,
    before: &[Uuid],
    after: &[Uuid],
    adds: &mut Vec<Op>,
    removes: &mut Vec<Op>,
) {
    if before == after {
        return;
    }
    // a switch can hold every load balancer of its network: sets, not a scan per entry
    let (b, a): (BTreeSet<&Uuid>, BTreeSet<&Uuid>) =
        (before.iter().collect(), after.iter().collect());
    let added: Vec<Uuid> = after.iter().filter(|u| !b.contains(u)).cloned().collect();
    let removed: Vec<Uuid> = before.iter().filter(|u| !a.contains(u)).cloned().collect();
    if !added.is_empty() {
        adds.push(Op::Mutate {
            table,
            uuid: uuid.clone(),
            column: "load_balancer",
            insert: true,
            value: refs_datum(real, &added),
        });
    }
    if !removed.is_empty() {
        removes.push(Op::Mutate {
            table,
            uuid: uuid.clone(),
            column: "load_balancer",
            insert: false,
            value: refs_datum(real, &removed),
        });
    }
}

/// The operations of ONE transaction turning `real` into `sim`, in order: `wait` on the
/// `external_ids` every updated `Load_Balancer` row was planned from, health-check inserts,
/// `Load_Balancer` inserts, updates, switch/router reference mutations, deletes. Rows of
/// `sim` that `real` lacks are inserted under their simulated uuid as `uuid-name`. Health checks no
/// row references any more are left to ovsdb-server's garbage collection.
pub fn diff(real: &NbSnapshot, sim: &NbSnapshot) -> Vec<Op> {
    let mut waits = Vec::new();
    let mut inserts = Vec::new();
    let mut updates = Vec::new();
    let mut mutations = Vec::new();
    let mut deletes = Vec::new();
    for (u, hc) in &sim.health_checks {
        match real.health_checks.get(u) {
            None => inserts.push(Op::Insert {
                table: "Load_Balancer_Health_Check",
                uuid_name: u.clone(),
                row: hc_columns(hc, None),
            }),
            Some(o) => {
                let cols = hc_columns(hc, Some(o));
                if !cols.is_empty() {
                    updates.push(Op::Update {
                        table: "Load_Balancer_Health_Check",
                        uuid: u.clone(),
                        row: cols,
                    });
                }
            }
        }
    }
    for (u, lb) in &sim.load_balancers {
        match real.load_balancers.get(u) {
            None => inserts.push(Op::Insert {
                table: "Load_Balancer",
                uuid_name: u.clone(),
                row: lb_columns(real, lb, None),
            }),
            Some(o) => {
                let cols = lb_columns(real, lb, Some(o));
                if !cols.is_empty() {
                    waits.push(Op::WaitEq {
                        table: "Load_Balancer",
                        uuid: u.clone(),
                        column: "external_ids",
                        value: Datum::Map(o.external_ids.clone()),
                    });
                    updates.push(Op::Update {
                        table: "Load_Balancer",
                        uuid: u.clone(),
                        row: cols,
                    });
                }
            }
        }
    }
    let mut removes = Vec::new();
    for (u, ls) in &sim.switches {
        let before = real
            .switches
            .get(u)
            .map(|r| r.load_balancer.as_slice())
            .unwrap_or(&[]);
        ref_changes(
            real,
            "Logical_Switch",
            u,
            before,
            &ls.load_balancer,
            &mut mutations,
            &mut removes,
        );
    }
    for (u, lr) in &sim.routers {
        let before = real
            .routers
            .get(u)
            .map(|r| r.load_balancer.as_slice())
            .unwrap_or(&[]);
        ref_changes(
            real,
            "Logical_Router",
            u,
            before,
            &lr.load_balancer,
            &mut mutations,
            &mut removes,
        );
    }
    for u in real.load_balancers.keys() {
        if !sim.load_balancers.contains_key(u) {
            deletes.push(Op::Delete {
                table: "Load_Balancer",
                uuid: u.clone(),
            });
        }
    }
    let mut ops = waits;
    ops.append(&mut inserts);
    ops.append(&mut updates);
    ops.append(&mut mutations);
    ops.append(&mut removes);
    ops.append(&mut deletes);
    ops
}

/// `true` when `ids` carry the keys only Octavia's OVN provider writes: a VIP port plus a
/// listener/pool key or `enabled`; never Neutron's own rows (port forwarding: `neutron:
/// device_owner` = `port_forwarding_plugin`).
pub fn is_octavia_row(ids: &StrMap) -> bool {
    use crate::external_ids as ext;
    if ids.get(ext::DEVICE_OWNER).map(String::as_str) == Some(ext::PORT_FORWARDING_PLUGIN) {
        return false;
    }
    ids.contains_key(ext::VIP_PORT_ID)
        && (ids.contains_key(ext::ENABLED)
            || ids
                .keys()
                .any(|k| k.starts_with(ext::LISTENER_PREFIX) || k.starts_with(ext::POOL_PREFIX)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn base() -> NbSnapshot {
        let mut s = NbSnapshot::default();
        s.insert_json("Logical_Switch", "ls1", &json!({"name": "neutron-n1"}));
        s.insert_json(
            "Load_Balancer",
            "lb1",
            &json!({"name": "A", "external_ids": ["map", [["enabled", "True"]]]}),
        );
        s
    }

    #[test]
    fn insert_mutate_then_diff_names_new_rows() {
        let real = base();
        let mut sim = real.clone();
        let mut seq = 0;
        apply(
            &mut sim,
            &[
                Op::Insert {
                    table: "Load_Balancer_Health_Check",
                    uuid_name: "hc".into(),
                    row: vec![("vip", Datum::Str("10.0.0.5:80".into()))],
                },
                Op::Insert {
                    table: "Load_Balancer",
                    uuid_name: "n".into(),
                    row: vec![
                        ("name", Datum::Str("B".into())),
                        (
                            "health_check",
                            Datum::Refs(vec![RowRef::Named("hc".into())]),
                        ),
                    ],
                },
                Op::Mutate {
                    table: "Logical_Switch",
                    uuid: "ls1".into(),
                    column: "load_balancer",
                    insert: true,
                    value: Datum::Refs(vec![RowRef::Named("n".into())]),
                },
                Op::Delete {
                    table: "Load_Balancer",
                    uuid: "lb1".into(),
                },
            ],
            &mut seq,
        )
        .unwrap();
        assert_eq!(
            sim.switches["ls1"].load_balancer,
            vec!["keelsync_2".to_string()]
        );
        let ops = diff(&real, &sim);
        assert!(
            matches!(
                ops.as_slice(),
                [
                    Op::Insert { .. },
                    Op::Insert { .. },
                    Op::Mutate { .. },
                    Op::Delete { .. }
                ]
            ),
            "{ops:?}"
        );
        let Op::Insert { uuid_name, row, .. } = &ops[1] else {
            panic!("{ops:?}")
        };
        assert_eq!(uuid_name, "keelsync_2");
        let named = |n: &str| Datum::Refs(vec![RowRef::Named(n.into())]);
        assert!(
            row.contains(&("health_check", named("keelsync_1"))),
            "{row:?}"
        );
        let Op::Mutate { value, .. } = &ops[2] else {
            panic!("{ops:?}")
        };
        assert_eq!(*value, named("keelsync_2"));
        // an unchanged snapshot needs nothing
        assert!(diff(&real, &real.clone()).is_empty());
    }

    #[test]
    fn unreferenced_health_checks_are_collected() {
        let mut s = base();
        for h in ["h1", "h2", "h3"] {
            s.insert_json("Load_Balancer_Health_Check", h, &json!({"vip": "x"}));
        }
        s.insert_json(
            "Load_Balancer",
            "lb2",
            &json!({"name": "B", "health_check": ["set", [["uuid", "h1"], ["uuid", "h2"]]]}),
        );
        s.insert_json(
            "Load_Balancer",
            "lb3",
            &json!({"name": "C", "health_check": ["uuid", "h2"]}),
        );
        let mut seq = 0;
        let unref = |u: &str| Op::Mutate {
            table: "Load_Balancer",
            uuid: "lb2".into(),
            column: "health_check",
            insert: false,
            value: Datum::Refs(vec![RowRef::Uuid(u.into())]),
        };
        // h1 loses its only reference, h2 keeps lb3's
        apply(&mut s, &[unref("h1"), unref("h2")], &mut seq).unwrap();
        assert_eq!(s.health_checks.keys().collect::<Vec<_>>(), ["h2", "h3"]);
        // deleting lb3 drops h2's last reference; an inserted row nothing references goes too
        let ins = Op::Insert {
            table: "Load_Balancer_Health_Check",
            uuid_name: "n".into(),
            row: vec![("vip", Datum::Str("y".into()))],
        };
        let del = Op::Delete {
            table: "Load_Balancer",
            uuid: "lb3".into(),
        };
        apply(&mut s, &[ins, del], &mut seq).unwrap();
        assert_eq!(s.health_checks.keys().collect::<Vec<_>>(), ["h3"]);
    }

    /// As ovsdb-server (`tests/sim_against_ovsdb_server.rs`): a weak reference inserted to a
    /// `Load_Balancer` row missing at commit vanishes; other references stay.
    #[test]
    fn weak_reference_to_missing_row_vanishes() {
        let mut s = base();
        let attach = |lbs: &[&str]| Op::Mutate {
            table: "Logical_Switch",
            uuid: "ls1".into(),
            column: "load_balancer",
            insert: true,
            value: Datum::Refs(lbs.iter().map(|u| RowRef::Uuid(u.to_string())).collect()),
        };
        let del = Op::Delete {
            table: "Load_Balancer",
            uuid: "lb1".into(),
        };
        let mut seq = 0;
        apply(&mut s, &[attach(&["lb1"])], &mut seq).unwrap();
        apply(&mut s, &[attach(&["gone"])], &mut seq).unwrap();
        assert_eq!(s.switches["ls1"].load_balancer, ["lb1"]);
        apply(&mut s, &[del, attach(&["lb1"])], &mut seq).unwrap();
        assert!(s.switches["ls1"].load_balancer.is_empty());
    }

    /// As ovsdb-server: a `health_check` reference to a row missing at commit (collected by an
    /// earlier transaction, or never there) refuses the transaction.
    #[test]
    fn strong_reference_to_missing_row_refused() {
        let mut s = base();
        let mut seq = 0;
        let refs = |u: &str| Datum::Refs(vec![RowRef::Uuid(u.into())]);
        let update = Op::Update {
            table: "Load_Balancer",
            uuid: "lb1".into(),
            row: vec![("health_check", refs("gone"))],
        };
        let mutate = Op::Mutate {
            table: "Load_Balancer",
            uuid: "lb1".into(),
            column: "health_check",
            insert: true,
            value: refs("gone"),
        };
        for op in [update, mutate] {
            let err = apply(&mut s.clone(), &[op], &mut seq).unwrap_err();
            assert!(err.0.contains("referential integrity"), "{err}");
        }
        // a reference written then removed within the transaction is fine
        let undo = Op::Update {
            table: "Load_Balancer",
            uuid: "lb1".into(),
            row: vec![("health_check", Datum::Refs(vec![]))],
        };
        let set = Op::Update {
            table: "Load_Balancer",
            uuid: "lb1".into(),
            row: vec![("health_check", refs("gone"))],
        };
        apply(&mut s, &[set, undo], &mut seq).unwrap();
    }

    /// As ovsdb-server: a set datum naming a member twice is refused.
    #[test]
    fn duplicate_set_members_refused() {
        let mut s = base();
        let mut seq = 0;
        let lb1 = || RowRef::Uuid("lb1".into());
        let op = Op::Mutate {
            table: "Logical_Switch",
            uuid: "ls1".into(),
            column: "load_balancer",
            insert: true,
            value: Datum::Refs(vec![lb1(), lb1()]),
        };
        assert!(apply(&mut s, &[op], &mut seq).is_err());
        let op = Op::Update {
            table: "Load_Balancer",
            uuid: "lb1".into(),
            row: vec![(
                "selection_fields",
                Datum::Set(vec!["ip_src".into(), "ip_src".into()]),
            )],
        };
        assert!(apply(&mut s, &[op], &mut seq).is_err());
    }

    #[test]
    fn octavia_rows_only() {
        let ids = |kv: &[(&str, &str)]| -> StrMap {
            kv.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        assert!(is_octavia_row(&ids(&[
            ("neutron:vip_port_id", "p"),
            ("enabled", "True")
        ])));
        assert!(is_octavia_row(&ids(&[
            ("neutron:vip_port_id", "p"),
            ("pool_x", "")
        ])));
        assert!(!is_octavia_row(&ids(&[("enabled", "True")])));
        assert!(!is_octavia_row(&ids(&[
            ("neutron:vip_port_id", "p"),
            ("enabled", "True"),
            ("neutron:device_owner", "port_forwarding_plugin")
        ])));
    }
}
