//! The operations the provider writes: [`Op`] (RFC 7047 `insert`, `update`, `mutate`,
//! `delete`, `wait`, …) with its [`Datum`] values and [`RowRef`]s, encoded by [`Op::to_json`].

use serde_json::{Value, json};

use super::rows::{StrMap, Uuid};

/// Reference to a row in an operation: an existing uuid or a row inserted by this transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowRef {
    /// An existing row.
    Uuid(Uuid),
    /// A row inserted earlier in the same transaction (`uuid-name`).
    Named(String),
}

impl RowRef {
    fn to_json(&self) -> Value {
        match self {
            RowRef::Uuid(u) => json!(["uuid", u]),
            RowRef::Named(n) => json!(["named-uuid", n]),
        }
    }
}

/// A column value to write.
#[derive(Debug, Clone, PartialEq)]
pub enum Datum {
    /// A string map.
    Map(StrMap),
    /// A set of strings.
    Set(Vec<String>),
    /// A set of row references.
    Refs(Vec<RowRef>),
    /// A plain string.
    Str(String),
    /// An integer (e.g. `ACL.priority`).
    Int(i64),
}

impl Datum {
    fn to_json(&self) -> Value {
        match self {
            Datum::Map(m) => json!([
                "map",
                m.iter().map(|(k, v)| json!([k, v])).collect::<Vec<_>>()
            ]),
            Datum::Set(s) => json!(["set", s]),
            Datum::Refs(r) => json!(["set", r.iter().map(RowRef::to_json).collect::<Vec<_>>()]),
            Datum::Str(s) => json!(s),
            Datum::Int(i) => json!(i),
        }
    }
}

/// One NB operation of a transaction.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// Insert a row named `uuid_name` for later references.
    Insert {
        /// NB table (ovn-nb(5)), e.g. `Load_Balancer`.
        table: &'static str,
        /// `uuid-name` (must be an id: letters, digits, `_`).
        uuid_name: String,
        /// Columns to set; a column not listed gets its schema default.
        row: Vec<(&'static str, Datum)>,
    },
    /// Overwrite columns of a row.
    Update {
        /// NB table (ovn-nb(5)), e.g. `Load_Balancer`.
        table: &'static str,
        /// `_uuid` of the row.
        uuid: Uuid,
        /// Columns to overwrite; a column not listed keeps its value.
        row: Vec<(&'static str, Datum)>,
    },
    /// Insert into / delete from a set or map column (`mutate`).
    Mutate {
        /// NB table (ovn-nb(5)), e.g. `Logical_Switch`.
        table: &'static str,
        /// `_uuid` of the row.
        uuid: Uuid,
        /// The set or map column, e.g. `load_balancer`, `external_ids`.
        column: &'static str,
        /// True for `insert`, false for `delete`.
        insert: bool,
        /// Value (a set of refs, or a map; for a map `delete`, a set of keys).
        value: Datum,
    },
    /// Delete a row.
    Delete {
        /// NB table (ovn-nb(5)).
        table: &'static str,
        /// `_uuid` of the row.
        uuid: Uuid,
    },
    /// Overwrite columns of every row of `table` whose map `column` includes `key` = `value`
    /// (no row: nothing happens). Used on Neutron's `NAT` rows, found by
    /// `external_ids:neutron:fip_port_id`, where only the reference's columns are written.
    UpdateWhereIncludes {
        /// NB table (ovn-nb(5)), e.g. `NAT`.
        table: &'static str,
        /// Map column of the condition.
        column: &'static str,
        /// Key of the condition.
        key: String,
        /// Value of the condition.
        value: String,
        /// Columns to overwrite in each matching row; a column not listed keeps its value.
        row: Vec<(&'static str, Datum)>,
    },
    /// Overwrite columns of every row of `table` whose map `column` includes all of `map`;
    /// with `row` empty, delete those rows instead (no row: nothing happens). Used on the rows
    /// Keel alone writes, found by their ownership keys (`crate::cidrs`).
    WhereIncludes {
        /// NB table (ovn-nb(5)), e.g. `Port_Group`.
        table: &'static str,
        /// Map column of the condition, e.g. `external_ids`.
        column: &'static str,
        /// Entries every matching row's `column` holds.
        map: StrMap,
        /// Columns to overwrite; empty: delete the matching rows.
        row: Vec<(&'static str, Datum)>,
    },
    /// Abort unless the row's `column` still equals `value` (optimistic concurrency between
    /// Keel processes sharing one NB).
    WaitEq {
        /// NB table (ovn-nb(5)).
        table: &'static str,
        /// `_uuid` of the row.
        uuid: Uuid,
        /// The column compared (RFC 7047 `wait` with `until: ==`, timeout 0).
        column: &'static str,
        /// The value the column must still hold: the one in the snapshot the plan was made from.
        value: Datum,
    },
    /// Abort if `table` already has a row whose columns equal `columns` (the guard of an
    /// insert: a `Load_Balancer` row planned as new because the snapshot had none, while an
    /// earlier attempt's insert was still being committed by the raft cluster).
    WaitAbsent {
        /// NB table (ovn-nb(5)).
        table: &'static str,
        /// (column, value) pairs a row must all match to abort.
        columns: Vec<(&'static str, Datum)>,
    },
}

impl Op {
    /// The RFC 7047 operation object.
    pub fn to_json(&self) -> Value {
        let cols = |row: &[(&'static str, Datum)]| -> Value {
            Value::Object(
                row.iter()
                    .map(|(k, v)| (k.to_string(), v.to_json()))
                    .collect(),
            )
        };
        let by_uuid = |u: &str| json!([["_uuid", "==", ["uuid", u]]]);
        match self {
            Op::Insert {
                table,
                uuid_name,
                row,
            } => {
                json!({"op": "insert", "table": table, "uuid-name": uuid_name, "row": cols(row)})
            }
            Op::Update { table, uuid, row } => {
                json!({"op": "update", "table": table, "where": by_uuid(uuid), "row": cols(row)})
            }
            Op::Mutate {
                table,
                uuid,
                column,
                insert,
                value,
            } => json!({
                "op": "mutate", "table": table, "where": by_uuid(uuid),
                "mutations": [[column, if *insert { "insert" } else { "delete" }, value.to_json()]]
            }),
            Op::Delete { table, uuid } => {
                json!({"op": "delete", "table": table, "where": by_uuid(uuid)})
            }
            Op::UpdateWhereIncludes {
                table,
                column,
                key,
                value,
                row,
            } => json!({
                "op": "update", "table": table,
                "where": [[column, "includes", ["map", [[key, value]]]]], "row": cols(row)
            }),
            Op::WhereIncludes {
                table,
                column,
                map,
                row,
            } => {
                let cond = json!([[column, "includes", Datum::Map(map.clone()).to_json()]]);
                if row.is_empty() {
                    json!({"op": "delete", "table": table, "where": cond})
                } else {
                    json!({"op": "update", "table": table, "where": cond, "row": cols(row)})
                }
            }
            Op::WaitEq {
                table,
                uuid,
                column,
                value,
            } => json!({
                "op": "wait", "timeout": 0, "table": table, "where": by_uuid(uuid),
                "columns": [column], "until": "==", "rows": [{ (*column): value.to_json() }]
            }),
            Op::WaitAbsent { table, columns } => {
                let cond: Vec<Value> = columns
                    .iter()
                    .map(|(c, v)| json!([c, "==", v.to_json()]))
                    .collect();
                json!({
                    "op": "wait", "timeout": 0, "table": table, "where": cond,
                    "columns": ["_uuid"], "until": "==", "rows": []
                })
            }
        }
    }
}

/// Encode a list of operations as `transact` params after the database name.
pub fn ops_json(ops: &[Op]) -> Vec<Value> {
    ops.iter().map(Op::to_json).collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn encode_ops() {
        let mut m = StrMap::new();
        m.insert("a".into(), "b".into());
        let op = Op::Update {
            table: "Load_Balancer",
            uuid: "u1".into(),
            row: vec![("external_ids", Datum::Map(m.clone()))],
        };
        assert_eq!(
            op.to_json(),
            json!({"op": "update", "table": "Load_Balancer", "where": [["_uuid", "==", ["uuid", "u1"]]],
                   "row": {"external_ids": ["map", [["a", "b"]]]}})
        );
        let op = Op::Mutate {
            table: "Logical_Switch",
            uuid: "ls".into(),
            column: "load_balancer",
            insert: true,
            value: Datum::Refs(vec![RowRef::Named("new_lb".into())]),
        };
        assert_eq!(
            op.to_json()["mutations"],
            json!([[
                "load_balancer",
                "insert",
                ["set", [["named-uuid", "new_lb"]]]
            ]])
        );
        let op = Op::WaitEq {
            table: "Load_Balancer",
            uuid: "u1".into(),
            column: "external_ids",
            value: Datum::Map(m),
        };
        let j = op.to_json();
        assert_eq!(j["op"], "wait");
        assert_eq!(j["until"], "==");
        assert_eq!(j["rows"], json!([{"external_ids": ["map", [["a", "b"]]]}]));
        assert_eq!(
            Op::Delete {
                table: "T",
                uuid: "x".into()
            }
            .to_json()["op"],
            "delete"
        );
        let ins = Op::Insert {
            table: "T",
            uuid_name: "n".into(),
            row: vec![("protocol", Datum::Set(vec![]))],
        };
        assert_eq!(ins.to_json()["row"], json!({"protocol": ["set", []]}));
    }
}
