//! Typed transaction operations (RFC 7047 §5.2), in the style of libovsdb's
//! `ovsdb.Operation`: a [`Transaction`](crate::Transaction) holds [`Operation`]s, and their
//! JSON is made once, when the transaction goes on the wire ([`Operation::to_json`]).

use std::collections::BTreeMap;

use serde_json::{Map, Value as Json, json};
use uuid::Uuid;

use crate::value::{Atom, Value};

/// A value as an operation writes it (RFC 7047 §5.1 `<value>`). Unlike [`Value`], whose sets
/// and maps are ordered and de-duplicated as the replica holds them, a `Datum` keeps the order
/// and the repetitions it was built with, so the JSON sent is exactly what the caller built
/// (ovsdb-server refuses a set naming an element twice, and that refusal must reach the
/// caller). A [`Value`] converts with `From` (its order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Datum {
    /// One atom: a scalar column's value, sent bare.
    Atom(Atom),
    /// `["set", [atom, …]]`, in this order.
    Set(Vec<Atom>),
    /// `["map", [[key, value], …]]`, in this order.
    Map(Vec<(Atom, Atom)>),
}

impl Datum {
    /// `["set", [["uuid", u] | ["named-uuid", n], …]]` from atoms in the given order.
    pub fn set<A: Into<Atom>>(items: impl IntoIterator<Item = A>) -> Datum {
        Datum::Set(items.into_iter().map(Into::into).collect())
    }

    /// A map of string to string in the given order.
    pub fn str_map<K: Into<String>, V: Into<String>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Datum {
        Datum::Map(
            pairs
                .into_iter()
                .map(|(k, v)| (Atom::String(k.into()), Atom::String(v.into())))
                .collect(),
        )
    }

    /// RFC 7047 §5.1 notation: an atom bare, sets and maps tagged (an empty set is
    /// `["set", []]`).
    pub fn to_json(&self) -> Json {
        match self {
            Datum::Atom(a) => a.to_json(),
            Datum::Set(s) => json!(["set", s.iter().map(Atom::to_json).collect::<Vec<_>>()]),
            Datum::Map(m) => json!([
                "map",
                m.iter()
                    .map(|(k, v)| json!([k.to_json(), v.to_json()]))
                    .collect::<Vec<_>>()
            ]),
        }
    }
}

impl From<Value> for Datum {
    fn from(v: Value) -> Self {
        match v {
            Value::Atom(a) => Datum::Atom(a),
            Value::Set(s) => Datum::Set(s.into_iter().collect()),
            Value::Map(m) => Datum::Map(m.into_iter().collect()),
        }
    }
}

impl From<Atom> for Datum {
    fn from(a: Atom) -> Self {
        Datum::Atom(a)
    }
}

impl From<&str> for Datum {
    fn from(s: &str) -> Self {
        Datum::Atom(Atom::from(s))
    }
}

impl From<String> for Datum {
    fn from(s: String) -> Self {
        Datum::Atom(Atom::String(s))
    }
}

impl From<i64> for Datum {
    fn from(i: i64) -> Self {
        Datum::Atom(Atom::Integer(i))
    }
}

impl From<Uuid> for Datum {
    fn from(u: Uuid) -> Self {
        Datum::Atom(Atom::Uuid(u))
    }
}

impl From<bool> for Datum {
    fn from(b: bool) -> Self {
        Datum::Atom(Atom::Boolean(b))
    }
}

/// Column name → value: the `row` of `insert` / `update`, one of the `rows` of `wait`. A JSON
/// object on the wire, whose keys `serde_json` writes sorted, as this map holds them.
pub type Columns = BTreeMap<String, Datum>;

/// A `where` clause element: `[column, function, value]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    /// Column name (`_uuid` for the row id).
    pub column: String,
    /// `==`, `!=`, `<`, `<=`, `>`, `>=`, `includes`, `excludes`.
    pub function: String,
    /// The value to compare with.
    pub value: Datum,
}

impl Condition {
    /// `[column, function, value]` with any RFC 7047 §5.1 function (no check here).
    pub fn new(
        column: impl Into<String>,
        function: impl Into<String>,
        value: impl Into<Datum>,
    ) -> Self {
        Condition {
            column: column.into(),
            function: function.into(),
            value: value.into(),
        }
    }
    /// `_uuid == uuid`: selects one row.
    pub fn uuid(uuid: Uuid) -> Self {
        Self::new("_uuid", "==", Atom::Uuid(uuid))
    }
    /// `column == value`.
    pub fn eq(column: impl Into<String>, value: impl Into<Datum>) -> Self {
        Self::new(column, "==", value)
    }
    /// `column != value`.
    pub fn ne(column: impl Into<String>, value: impl Into<Datum>) -> Self {
        Self::new(column, "!=", value)
    }
    /// `column includes value` (set/map containment).
    pub fn includes(column: impl Into<String>, value: impl Into<Datum>) -> Self {
        Self::new(column, "includes", value)
    }
    /// `column excludes value`.
    pub fn excludes(column: impl Into<String>, value: impl Into<Datum>) -> Self {
        Self::new(column, "excludes", value)
    }
    /// `[column, function, value]`.
    pub fn to_json(&self) -> Json {
        json!([self.column, self.function, self.value.to_json()])
    }
}

/// A `mutate` mutation: `[column, mutator, value]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Mutation {
    /// Column to mutate (a set, map, or integer/real column).
    pub column: String,
    /// `insert`, `delete`, `+=`, `-=`, `*=`, `/=`, `%=`.
    pub mutator: String,
    /// Operand: a set or map for `insert`/`delete` (a set of keys also deletes from a map), a
    /// number for the arithmetic mutators.
    pub value: Datum,
}

impl Mutation {
    /// `[column, mutator, value]` with any RFC 7047 §5.1 mutator (no check here).
    pub fn new(
        column: impl Into<String>,
        mutator: impl Into<String>,
        value: impl Into<Datum>,
    ) -> Self {
        Mutation {
            column: column.into(),
            mutator: mutator.into(),
            value: value.into(),
        }
    }
    /// Adds elements to a set, or pairs to a map (keys already present keep their value,
    /// RFC 7047 §5.1 "insert").
    pub fn insert(column: impl Into<String>, value: impl Into<Datum>) -> Self {
        Self::new(column, "insert", value)
    }
    /// Removes set elements; for maps, a map operand removes matching pairs and a set operand
    /// removes those keys.
    pub fn delete(column: impl Into<String>, value: impl Into<Datum>) -> Self {
        Self::new(column, "delete", value)
    }
    /// Numeric `+=`.
    pub fn add(column: impl Into<String>, n: i64) -> Self {
        Self::new(column, "+=", n)
    }
    /// Numeric `-=`.
    pub fn sub(column: impl Into<String>, n: i64) -> Self {
        Self::new(column, "-=", n)
    }
    /// `[column, mutator, value]`.
    pub fn to_json(&self) -> Json {
        json!([self.column, self.mutator, self.value.to_json()])
    }
}

/// `until` of a `wait` operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitUntil {
    /// Wait until the selected rows equal `rows` (`"=="`).
    Equal,
    /// Wait until they differ (`"!="`).
    NotEqual,
}

/// One operation of a transaction (RFC 7047 §5.2). Tables and columns are not checked here:
/// ovsdb-server refuses what its schema lacks, and the refusal comes back as a
/// [`crate::TxnError`] naming the operation.
#[derive(Debug, Clone, PartialEq)]
pub enum Operation {
    /// §5.2.1 `insert`; with `uuid_name`, later operations refer to the new row as
    /// `["named-uuid", uuid_name]` and its uuid is in the operation's
    /// [`crate::OpResult::uuid`].
    Insert {
        /// Table name.
        table: String,
        /// Columns to set; a column not listed gets its schema default.
        row: Columns,
        /// `uuid-name`: an id (letters, digits, `_`).
        uuid_name: Option<String>,
    },
    /// §5.2.2 `select`: the rows matching `conditions` in [`crate::OpResult::rows`].
    Select {
        /// Table name.
        table: String,
        /// `where`: every condition must hold (none: every row).
        conditions: Vec<Condition>,
        /// Columns to return; `None`: every column (the key is left out).
        columns: Option<Vec<String>>,
    },
    /// §5.2.3 `update`: whole column values of the matching rows (not diffs).
    Update {
        /// Table name.
        table: String,
        /// `where`.
        conditions: Vec<Condition>,
        /// Columns to overwrite; a column not listed keeps its value.
        row: Columns,
    },
    /// §5.2.4 `mutate`: set/map insert/delete, arithmetic, in the matching rows.
    Mutate {
        /// Table name.
        table: String,
        /// `where`.
        conditions: Vec<Condition>,
        /// Applied in order.
        mutations: Vec<Mutation>,
    },
    /// §5.2.5 `delete` the matching rows.
    Delete {
        /// Table name.
        table: String,
        /// `where`.
        conditions: Vec<Condition>,
    },
    /// §5.2.6 `wait` until the `columns` of the matching rows equal (or differ from) `rows`;
    /// `timeout_ms` 0 makes it a precondition that fails at once with `"timed out"`.
    Wait {
        /// Table name.
        table: String,
        /// `where`.
        conditions: Vec<Condition>,
        /// The columns compared.
        columns: Vec<String>,
        /// `==` or `!=`.
        until: WaitUntil,
        /// The rows compared with (their `columns` only).
        rows: Vec<Columns>,
        /// Milliseconds; `None`: the key is left out (wait for ever).
        timeout_ms: Option<u64>,
    },
    /// §5.2.7 `commit` with `durable`.
    Commit {
        /// Whether the commit must reach stable storage before the reply.
        durable: bool,
    },
    /// §5.2.8 `abort`: the transaction fails here and changes nothing.
    Abort,
    /// §5.2.9 `comment`: recorded in the database log (`ovsdb-tool show-log`).
    Comment(String),
    /// §5.2.10 `assert` that this session owns lock `lock`.
    Assert {
        /// The lock's name.
        lock: String,
    },
}

fn columns_json(row: &Columns) -> Json {
    Json::Object(
        row.iter()
            .map(|(k, v)| (k.clone(), v.to_json()))
            .collect::<Map<_, _>>(),
    )
}

fn where_json(conds: &[Condition]) -> Json {
    Json::Array(conds.iter().map(Condition::to_json).collect())
}

impl Operation {
    /// The RFC 7047 operation object (made once, at the wire: [`crate::Transaction::to_params`]).
    pub fn to_json(&self) -> Json {
        match self {
            Operation::Insert {
                table,
                row,
                uuid_name,
            } => {
                let mut op = json!({"op": "insert", "table": table, "row": columns_json(row)});
                if let (Some(n), Some(o)) = (uuid_name, op.as_object_mut()) {
                    o.insert("uuid-name".into(), json!(n));
                }
                op
            }
            Operation::Select {
                table,
                conditions,
                columns,
            } => {
                let mut op =
                    json!({"op": "select", "table": table, "where": where_json(conditions)});
                if let (Some(c), Some(o)) = (columns, op.as_object_mut()) {
                    o.insert("columns".into(), json!(c));
                }
                op
            }
            Operation::Update {
                table,
                conditions,
                row,
            } => json!({"op": "update", "table": table,
                "where": where_json(conditions), "row": columns_json(row)}),
            Operation::Mutate {
                table,
                conditions,
                mutations,
            } => json!({"op": "mutate", "table": table,
                "where": where_json(conditions),
                "mutations": mutations.iter().map(Mutation::to_json).collect::<Vec<_>>()}),
            Operation::Delete { table, conditions } => {
                json!({"op": "delete", "table": table, "where": where_json(conditions)})
            }
            Operation::Wait {
                table,
                conditions,
                columns,
                until,
                rows,
                timeout_ms,
            } => {
                let mut op = json!({"op": "wait", "table": table,
                    "where": where_json(conditions), "columns": columns,
                    "until": match until { WaitUntil::Equal => "==", WaitUntil::NotEqual => "!=" },
                    "rows": rows.iter().map(columns_json).collect::<Vec<_>>()});
                if let (Some(t), Some(o)) = (timeout_ms, op.as_object_mut()) {
                    o.insert("timeout".into(), json!(t));
                }
                op
            }
            Operation::Commit { durable } => json!({"op": "commit", "durable": durable}),
            Operation::Abort => json!({"op": "abort"}),
            Operation::Comment(text) => json!({"op": "comment", "comment": text}),
            Operation::Assert { lock } => json!({"op": "assert", "lock": lock}),
        }
    }
}
