//! `ovn-db-sync` of Keel's `allowed_cidrs` rows: what a listener's rows hold ([`Shape`]), as
//! planned ([`planned`]) and as the NB holds them ([`in_nb`]), compared field by field.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::{LB_KEY, LISTENER_KEY};
use crate::nb::{Datum, Op, RowRef, datum_map, datum_set};

/// The content of one listener's rows that filtering depends on (names, not uuids).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Shape {
    /// Anchor `Logical_Switch_Port` uuids of its port group.
    pub ports: BTreeSet<String>,
    /// `<priority> <direction> <action> <match>` of each of its ACLs.
    pub acls: BTreeSet<String>,
    /// Address set name → addresses.
    pub sets: BTreeMap<String, BTreeSet<String>>,
}

impl Shape {
    /// What differs from `want`, in words (empty: nothing).
    pub fn differences(&self, want: &Shape) -> Vec<String> {
        let mut out = Vec::new();
        if self.ports != want.ports {
            out.push(format!("anchors {:?} (want {:?})", self.ports, want.ports));
        }
        if self.acls != want.acls {
            out.push(format!("ACLs {:?} (want {:?})", self.acls, want.acls));
        }
        if self.sets != want.sets {
            out.push(format!(
                "address sets {:?} (want {:?})",
                self.sets, want.sets
            ));
        }
        out
    }
}

fn acl_line(priority: &str, direction: &str, action: &str, m: &str) -> String {
    format!("{priority} {direction} {action} {m}")
}

fn text(d: &Datum) -> String {
    match d {
        Datum::Str(s) => s.clone(),
        Datum::Int(i) => i.to_string(),
        Datum::Set(s) => s.join(","),
        Datum::Map(_) | Datum::Refs(_) => String::new(),
    }
}

/// The shape the inserts of `ops` (a plan of [`super::listener`]) make; `None` when they make
/// no port group (an empty list: no rows).
pub fn planned(ops: &[Op]) -> Option<Shape> {
    let mut shape = Shape::default();
    let mut group = false;
    for op in ops {
        let Op::Insert { table, row, .. } = op else {
            continue;
        };
        let col = |c: &str| row.iter().find(|(k, _)| *k == c).map(|(_, v)| v);
        match *table {
            "Port_Group" => {
                group = true;
                if let Some(Datum::Refs(r)) = col("ports") {
                    shape.ports = r
                        .iter()
                        .filter_map(|x| match x {
                            RowRef::Uuid(u) => Some(u.clone()),
                            RowRef::Named(_) => None,
                        })
                        .collect();
                }
            }
            "ACL" => {
                let t = |c: &str| col(c).map(text).unwrap_or_default();
                shape.acls.insert(acl_line(
                    &t("priority"),
                    &t("direction"),
                    &t("action"),
                    &t("match"),
                ));
            }
            "Address_Set" => {
                let name = col("name").map(text).unwrap_or_default();
                let addresses = match col("addresses") {
                    Some(Datum::Set(s)) => s.iter().cloned().collect(),
                    _ => BTreeSet::new(),
                };
                shape.sets.insert(name, addresses);
            }
            _ => {}
        }
    }
    group.then_some(shape)
}

/// One listener's rows in the NB: its LB id and their shape.
pub type Found = BTreeMap<String, (String, Shape)>;

/// Keel's rows as selected from the NB (RFC 7047 rows with `_uuid`, every column), by
/// listener id: port groups with their ACLs (`acls` rows looked up by uuid) and address sets.
pub fn in_nb(groups: &[Value], acls: &[Value], sets: &[Value]) -> Found {
    let uuid = |r: &Value| datum_set(r.get("_uuid")).into_iter().next();
    let acl_by_uuid: BTreeMap<String, &Value> =
        acls.iter().filter_map(|a| Some((uuid(a)?, a))).collect();
    let mut found = Found::new();
    for g in groups {
        let ids = datum_map(g.get("external_ids"));
        let l = ids.get(LISTENER_KEY).cloned().unwrap_or_default();
        let lb = ids.get(LB_KEY).cloned().unwrap_or_default();
        let e = found.entry(l).or_insert_with(|| (lb, Shape::default()));
        e.1.ports = datum_set(g.get("ports")).into_iter().collect();
        for a in datum_set(g.get("acls")) {
            if let Some(acl) = acl_by_uuid.get(&a) {
                let t = |c: &str| datum_set(acl.get(c)).into_iter().next().unwrap_or_default();
                e.1.acls.insert(acl_line(
                    &t("priority"),
                    &t("direction"),
                    &t("action"),
                    &t("match"),
                ));
            }
        }
    }
    for s in sets {
        let ids = datum_map(s.get("external_ids"));
        let l = ids.get(LISTENER_KEY).cloned().unwrap_or_default();
        let lb = ids.get(LB_KEY).cloned().unwrap_or_default();
        let name = datum_set(s.get("name"))
            .into_iter()
            .next()
            .unwrap_or_default();
        let e = found.entry(l).or_insert_with(|| (lb, Shape::default()));
        e.1.sets
            .insert(name, datum_set(s.get("addresses")).into_iter().collect());
    }
    found
}
