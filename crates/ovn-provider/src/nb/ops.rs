//! The operations the provider writes: [`Op`] (RFC 7047 `insert`, `update`, `mutate`,
//! `delete`, `wait`, …) with its [`Datum`] values and [`RowRef`]s, lowered to the ovsdb
//! client's typed [`Operation`]s by [`Op::to_operation`] (the JSON is the client's, made once
//! on the wire).

use ovsdb::{Atom, Columns, Condition, Mutation, Operation, WaitUntil};

use super::rows::{StrMap, Uuid};

/// Reference to a row in an operation: an existing uuid or a row inserted by this transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowRef {
    /// An existing row.
    Uuid(Uuid),
    /// A row inserted earlier in the same transaction (`uuid-name`).
    Named(String),
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

/// A row uuid of an [`Op`] that is not a uuid (the ovsdb client sends only well-formed ones).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a row uuid: {uuid:?}")]
pub struct NotAUuid {
    /// The text that is not a uuid.
    pub uuid: String,
    /// Why it is not one.
    #[source]
    pub source: uuid::Error,
}

fn parse_uuid(u: &str) -> Result<ovsdb::Uuid, NotAUuid> {
    ovsdb::Uuid::parse_str(u).map_err(|source| NotAUuid {
        uuid: u.to_string(),
        source,
    })
}

fn str_map(m: &StrMap) -> ovsdb::Datum {
    ovsdb::Datum::str_map(m.iter().map(|(k, v)| (k.as_str(), v.as_str())))
}

impl RowRef {
    fn atom(&self) -> Result<Atom, NotAUuid> {
        Ok(match self {
            RowRef::Uuid(u) => Atom::Uuid(parse_uuid(u)?),
            RowRef::Named(n) => Atom::NamedUuid(n.clone()),
        })
    }
}

impl Datum {
    /// The value as the ovsdb client writes it: sets and maps in this order (a map by key,
    /// a set as listed), repetitions kept.
    pub fn to_ovsdb(&self) -> Result<ovsdb::Datum, NotAUuid> {
        Ok(match self {
            Datum::Map(m) => str_map(m),
            Datum::Set(s) => ovsdb::Datum::set(s.iter().map(String::as_str)),
            Datum::Refs(r) => {
                ovsdb::Datum::Set(r.iter().map(RowRef::atom).collect::<Result<_, _>>()?)
            }
            Datum::Str(s) => ovsdb::Datum::from(s.as_str()),
            Datum::Int(i) => ovsdb::Datum::from(*i),
        })
    }
}

fn columns(row: &[(&'static str, Datum)]) -> Result<Columns, NotAUuid> {
    row.iter()
        .map(|(k, v)| Ok((k.to_string(), v.to_ovsdb()?)))
        .collect()
}

fn by_uuid(u: &str) -> Result<Vec<Condition>, NotAUuid> {
    Ok(vec![Condition::uuid(parse_uuid(u)?)])
}

impl Op {
    /// The typed RFC 7047 operation the ovsdb client sends (`where _uuid == …` for a row,
    /// `timeout: 0` for the `wait` guards); `Err` when a row uuid is not a uuid.
    pub fn to_operation(&self) -> Result<Operation, NotAUuid> {
        Ok(match self {
            Op::Insert {
                table,
                uuid_name,
                row,
            } => Operation::Insert {
                table: table.to_string(),
                row: columns(row)?,
                uuid_name: Some(uuid_name.clone()),
            },
            Op::Update { table, uuid, row } => Operation::Update {
                table: table.to_string(),
                conditions: by_uuid(uuid)?,
                row: columns(row)?,
            },
            Op::Mutate {
                table,
                uuid,
                column,
                insert,
                value,
            } => Operation::Mutate {
                table: table.to_string(),
                conditions: by_uuid(uuid)?,
                mutations: vec![Mutation::new(
                    *column,
                    if *insert { "insert" } else { "delete" },
                    value.to_ovsdb()?,
                )],
            },
            Op::Delete { table, uuid } => Operation::Delete {
                table: table.to_string(),
                conditions: by_uuid(uuid)?,
            },
            Op::UpdateWhereIncludes {
                table,
                column,
                key,
                value,
                row,
            } => Operation::Update {
                table: table.to_string(),
                conditions: vec![Condition::includes(
                    *column,
                    ovsdb::Datum::str_map([(key.as_str(), value.as_str())]),
                )],
                row: columns(row)?,
            },
            Op::WhereIncludes {
                table,
                column,
                map,
                row,
            } => {
                let conditions = vec![Condition::includes(*column, str_map(map))];
                if row.is_empty() {
                    Operation::Delete {
                        table: table.to_string(),
                        conditions,
                    }
                } else {
                    Operation::Update {
                        table: table.to_string(),
                        conditions,
                        row: columns(row)?,
                    }
                }
            }
            Op::WaitEq {
                table,
                uuid,
                column,
                value,
            } => Operation::Wait {
                table: table.to_string(),
                conditions: by_uuid(uuid)?,
                columns: vec![column.to_string()],
                until: WaitUntil::Equal,
                rows: vec![Columns::from([(column.to_string(), value.to_ovsdb()?)])],
                timeout_ms: Some(0),
            },
            Op::WaitAbsent { table, columns } => Operation::Wait {
                table: table.to_string(),
                conditions: columns
                    .iter()
                    .map(|(c, v)| Ok(Condition::eq(*c, v.to_ovsdb()?)))
                    .collect::<Result<_, NotAUuid>>()?,
                columns: vec!["_uuid".to_string()],
                until: WaitUntil::Equal,
                rows: vec![],
                timeout_ms: Some(0),
            },
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    const U1: &str = "0b3e9a52-5a6f-4d0e-8c3b-1f2a3b4c5d6e";

    fn wire(op: &Op) -> Value {
        op.to_operation().unwrap().to_json()
    }

    #[test]
    fn encode_ops() {
        let mut m = StrMap::new();
        m.insert("a".into(), "b".into());
        let op = Op::Update {
            table: "Load_Balancer",
            uuid: U1.into(),
            row: vec![("external_ids", Datum::Map(m.clone()))],
        };
        assert_eq!(
            wire(&op),
            json!({"op": "update", "table": "Load_Balancer", "where": [["_uuid", "==", ["uuid", U1]]],
                   "row": {"external_ids": ["map", [["a", "b"]]]}})
        );
        let op = Op::Mutate {
            table: "Logical_Switch",
            uuid: U1.into(),
            column: "load_balancer",
            insert: true,
            value: Datum::Refs(vec![RowRef::Named("new_lb".into())]),
        };
        assert_eq!(
            wire(&op)["mutations"],
            json!([[
                "load_balancer",
                "insert",
                ["set", [["named-uuid", "new_lb"]]]
            ]])
        );
        let op = Op::WaitEq {
            table: "Load_Balancer",
            uuid: U1.into(),
            column: "external_ids",
            value: Datum::Map(m),
        };
        let j = wire(&op);
        assert_eq!(j["op"], "wait");
        assert_eq!(j["until"], "==");
        assert_eq!(j["timeout"], 0);
        assert_eq!(j["rows"], json!([{"external_ids": ["map", [["a", "b"]]]}]));
        assert_eq!(
            wire(&Op::Delete {
                table: "T",
                uuid: U1.into()
            })["op"],
            "delete"
        );
        // a set keeps its order and its repetitions (the server refuses a repeated member)
        let ins = Op::Insert {
            table: "T",
            uuid_name: "n".into(),
            row: vec![
                ("protocol", Datum::Set(vec![])),
                ("f", Datum::Set(vec!["b".into(), "a".into(), "b".into()])),
            ],
        };
        assert_eq!(
            wire(&ins)["row"],
            json!({"protocol": ["set", []], "f": ["set", ["b", "a", "b"]]})
        );
    }

    #[test]
    fn a_row_uuid_that_is_no_uuid_is_refused() {
        let e = Op::Delete {
            table: "T",
            uuid: "u1".into(),
        }
        .to_operation()
        .unwrap_err();
        assert_eq!(e.uuid, "u1");
        let refs = Datum::Refs(vec![RowRef::Uuid("x".into())]);
        assert!(refs.to_ovsdb().is_err());
    }
}
