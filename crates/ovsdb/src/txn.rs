//! Transactions (RFC 7047 §4.1.3): a builder of typed [`Operation`]s and the typed
//! per-operation results.

use std::collections::BTreeMap;

use serde_json::{Value as Json, json};
use uuid::Uuid;

use crate::error::{Error, Result, TxnError, TxnErrorKind};
use crate::operation::{Columns, Condition, Datum, Mutation, Operation, WaitUntil};
use crate::value::Value;

fn columns<K: Into<String>, V: Into<Datum>>(row: impl IntoIterator<Item = (K, V)>) -> Columns {
    row.into_iter().map(|(k, v)| (k.into(), v.into())).collect()
}

/// A transaction under construction: a database name and an ordered list of typed
/// [`Operation`]s. Build with chained calls, e.g.
/// `Transaction::new("OVN_Northbound").insert("Load_Balancer", cols, Some("lb")).mutate(..)`,
/// or [`Transaction::push`] operations made elsewhere, then run with `Client::transact`, which
/// makes the JSON ([`Transaction::to_params`]). All operations commit atomically or not at all.
#[derive(Debug, Clone, PartialEq)]
pub struct Transaction {
    db: String,
    ops: Vec<Operation>,
    uuid_names: BTreeMap<String, usize>,
    /// Index of the `guard_absent` wait, if any.
    guard: Option<usize>,
    idempotent: bool,
}

impl Transaction {
    /// An empty transaction on `db` (e.g. `OVN_Northbound`).
    pub fn new(db: impl Into<String>) -> Self {
        Transaction {
            db: db.into(),
            ops: Vec::new(),
            uuid_names: BTreeMap::new(),
            guard: None,
            idempotent: false,
        }
    }

    /// The database name.
    pub fn db(&self) -> &str {
        &self.db
    }

    /// Number of operations.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// True when no operation was added yet.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// `insert` a row. With `uuid_name`, later operations can reference the new row as
    /// `Value::named_uuid(uuid_name)`; its real uuid is in that operation's [`OpResult::uuid`]
    /// (see [`Transaction::op_index`]).
    pub fn insert<K: Into<String>, V: Into<Datum>>(
        self,
        table: &str,
        row: impl IntoIterator<Item = (K, V)>,
        uuid_name: Option<&str>,
    ) -> Self {
        self.push(Operation::Insert {
            table: table.to_string(),
            row: columns(row),
            uuid_name: uuid_name.map(str::to_string),
        })
    }

    /// Appends `op`; an [`Operation::Insert`] with a `uuid_name` is found again by
    /// [`Transaction::op_index`].
    pub fn push(mut self, op: Operation) -> Self {
        if let Operation::Insert {
            uuid_name: Some(n), ..
        } = &op
        {
            self.uuid_names.insert(n.clone(), self.ops.len());
        }
        self.ops.push(op);
        self
    }

    /// The operations, in the order they are sent.
    pub fn operations(&self) -> &[Operation] {
        &self.ops
    }

    /// `update` the rows matching `conditions` with the given column values (whole values,
    /// not diffs).
    pub fn update<K: Into<String>, V: Into<Datum>>(
        self,
        table: &str,
        conditions: &[Condition],
        row: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        self.push(Operation::Update {
            table: table.to_string(),
            conditions: conditions.to_vec(),
            row: columns(row),
        })
    }

    /// `mutate` the rows matching `conditions` (set/map insert/delete, numeric arithmetic).
    pub fn mutate(self, table: &str, conditions: &[Condition], mutations: &[Mutation]) -> Self {
        self.push(Operation::Mutate {
            table: table.to_string(),
            conditions: conditions.to_vec(),
            mutations: mutations.to_vec(),
        })
    }

    /// `delete` the rows matching `conditions`.
    pub fn delete(self, table: &str, conditions: &[Condition]) -> Self {
        self.push(Operation::Delete {
            table: table.to_string(),
            conditions: conditions.to_vec(),
        })
    }

    /// `select` the given columns of the rows matching `conditions` (results in
    /// [`OpResult::rows`]).
    pub fn select(self, table: &str, conditions: &[Condition], columns: &[&str]) -> Self {
        self.push(Operation::Select {
            table: table.to_string(),
            conditions: conditions.to_vec(),
            columns: Some(columns.iter().map(|c| c.to_string()).collect()),
        })
    }

    /// `wait` until the `columns` of the rows matching `conditions` equal (or differ from)
    /// `rows`; `timeout_ms` 0 makes it a pure precondition (fails with `"timed out"` at once),
    /// which is how optimistic concurrency is expressed.
    pub fn wait(
        self,
        table: &str,
        conditions: &[Condition],
        columns: &[&str],
        until: WaitUntil,
        rows: Vec<BTreeMap<String, Value>>,
        timeout_ms: Option<u64>,
    ) -> Self {
        self.push(Operation::Wait {
            table: table.to_string(),
            conditions: conditions.to_vec(),
            columns: columns.iter().map(|c| c.to_string()).collect(),
            until,
            rows: rows.into_iter().map(self::columns).collect(),
            timeout_ms,
        })
    }

    /// A guard making the transaction safe to re-send: a `wait` (timeout 0) that no row of
    /// `table` matches `conditions`, e.g. `name == "lb-7"` before inserting `lb-7`. If an
    /// earlier attempt did commit, the re-sent transaction fails at this operation with
    /// `"timed out"` and changes nothing; `Client::transact_retrying` reports that as
    /// [`crate::TxnOutcome::AlreadyApplied`]. Add it before the operations it protects.
    pub fn guard_absent(mut self, table: &str, conditions: &[Condition]) -> Self {
        self.guard = Some(self.ops.len());
        self.wait(
            table,
            conditions,
            &[],
            WaitUntil::Equal,
            Vec::new(),
            Some(0),
        )
    }

    /// Declares that committing this transaction twice has the same effect as once (e.g. it
    /// only `update`s columns to absolute values), so `Client::transact_retrying` may re-send
    /// it when an earlier attempt's outcome is unknown.
    pub fn idempotent(mut self) -> Self {
        self.idempotent = true;
        self
    }

    /// Whether re-sending after an unknown outcome is safe ([`Transaction::guard_absent`] or
    /// [`Transaction::idempotent`]).
    pub fn is_retry_safe(&self) -> bool {
        self.idempotent || self.guard.is_some()
    }

    /// Index of the [`Transaction::guard_absent`] operation.
    pub fn guard_index(&self) -> Option<usize> {
        self.guard
    }

    /// `comment`: recorded in the database log (ovsdb-tool show-log).
    pub fn comment(self, text: &str) -> Self {
        self.push(Operation::Comment(text.to_string()))
    }

    /// Index of the `insert` that declared `uuid_name`.
    pub fn op_index(&self, uuid_name: &str) -> Option<usize> {
        self.uuid_names.get(uuid_name).copied()
    }

    /// The `transact` params: `[db, op, …]`.
    pub fn to_params(&self) -> Json {
        let mut p = Vec::with_capacity(self.ops.len() + 1);
        p.push(json!(self.db));
        p.extend(self.ops.iter().map(Operation::to_json));
        Json::Array(p)
    }
}

/// What `Client::transact_retrying` established.
#[derive(Debug, Clone, PartialEq)]
pub enum TxnOutcome {
    /// Committed by this call: one result per operation.
    Committed(Vec<OpResult>),
    /// An attempt whose reply was lost did commit: the re-sent transaction found its
    /// [`Transaction::guard_absent`] condition false. Per-op results are not available.
    AlreadyApplied,
}

/// The result of one successful operation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OpResult {
    /// `insert`: the new row's uuid.
    pub uuid: Option<Uuid>,
    /// `update`/`mutate`/`delete`: number of rows matched.
    pub count: Option<u64>,
    /// `select`: the rows, as JSON objects.
    pub rows: Option<Vec<Json>>,
}

/// Maps a `transact` result array to per-op results or the first error. `n_ops` is the number
/// of operations sent: an extra trailing element is a commit-time error (RFC 7047 §4.1.3).
pub(crate) fn parse_transact_result(result: &Json, n_ops: usize) -> Result<Vec<OpResult>> {
    let items = result
        .as_array()
        .ok_or_else(|| Error::Protocol(format!("transact result is not an array: {result}")))?;
    for (i, it) in items.iter().enumerate() {
        if let Some(e) = it.get("error") {
            let error = e.as_str().unwrap_or("unknown error").to_string();
            return Err(Error::Transaction(TxnError {
                kind: TxnErrorKind::from_error(&error),
                details: it.get("details").and_then(Json::as_str).map(str::to_string),
                error,
                op_index: (i < n_ops).then_some(i),
            }));
        }
    }
    if items.len() < n_ops {
        return Err(Error::Protocol(format!(
            "transact returned {} results for {n_ops} operations",
            items.len()
        )));
    }
    items
        .iter()
        .take(n_ops)
        .map(|it| {
            let uuid = match it.get("uuid") {
                Some(u) => match crate::value::Atom::from_json(u)? {
                    crate::value::Atom::Uuid(u) => Some(u),
                    _ => return Err(Error::Protocol(format!("bad insert uuid {u}"))),
                },
                None => None,
            };
            Ok(OpResult {
                uuid,
                count: it.get("count").and_then(Json::as_u64),
                rows: it.get("rows").and_then(Json::as_array).cloned(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_params() {
        let u = Uuid::nil();
        let t = Transaction::new("NB")
            .insert("LB", [("name", Value::from("a"))], Some("lb"))
            .mutate(
                "LS",
                &[Condition::uuid(u)],
                &[Mutation::insert("load_balancer", Value::named_uuid("lb"))],
            )
            .comment("c");
        assert_eq!(t.op_index("lb"), Some(0));
        assert_eq!(
            t.to_params(),
            json!(["NB",
                {"op": "insert", "table": "LB", "row": {"name": "a"}, "uuid-name": "lb"},
                {"op": "mutate", "table": "LS",
                 "where": [["_uuid", "==", ["uuid", u.to_string()]]],
                 "mutations": [["load_balancer", "insert", ["named-uuid", "lb"]]]},
                {"op": "comment", "comment": "c"}])
        );
    }

    /// The bytes of every builder operation, as sent before operations became typed
    /// (`serde_json` without `preserve_order`: object keys sorted; array order as built).
    #[test]
    fn wire_json_of_every_operation_is_pinned() {
        let u = Uuid::from_u128(0x0b3e9a52_5a6f_4d0e_8c3b_1f2a3b4c5d6e);
        let row = BTreeMap::from([("name".to_string(), Value::from("a"))]);
        let t = Transaction::new("OVN_Northbound")
            .comment("keel: member add")
            .guard_absent("Load_Balancer", &[Condition::eq("name", "a")])
            .wait(
                "Load_Balancer",
                &[Condition::uuid(u)],
                &["name", "vips"],
                WaitUntil::NotEqual,
                vec![row],
                None,
            )
            .insert(
                "Load_Balancer",
                [
                    ("name", Value::from("a")),
                    ("vips", Value::str_map([("10.0.0.5:80", "10.0.0.10:8080")])),
                    ("selection_fields", Value::set(["ip_src", "ip_dst"])),
                ],
                Some("lb"),
            )
            .update(
                "Load_Balancer",
                &[Condition::includes(
                    "external_ids",
                    Value::str_map([("k", "v")]),
                )],
                [("protocol", Value::empty_set())],
            )
            .mutate(
                "Logical_Switch",
                &[Condition::uuid(u), Condition::ne("name", "x")],
                &[
                    Mutation::insert("load_balancer", Value::named_uuid("lb")),
                    Mutation::delete("external_ids", Value::set(["k"])),
                    Mutation::add("n", 2),
                ],
            )
            .select("NB_Global", &[], &["nb_cfg"])
            .delete(
                "Load_Balancer",
                &[Condition::excludes("protocol", Value::set(["udp"]))],
            )
            .push(Operation::Assert {
                lock: "keel".into(),
            })
            .push(Operation::Abort);
        assert_eq!(
            serde_json::to_string(&t.to_params()).unwrap(),
            r#"["OVN_Northbound",{"comment":"keel: member add","op":"comment"},{"columns":[],"op":"wait","rows":[],"table":"Load_Balancer","timeout":0,"until":"==","where":[["name","==","a"]]},{"columns":["name","vips"],"op":"wait","rows":[{"name":"a"}],"table":"Load_Balancer","until":"!=","where":[["_uuid","==",["uuid","0b3e9a52-5a6f-4d0e-8c3b-1f2a3b4c5d6e"]]]},{"op":"insert","row":{"name":"a","selection_fields":["set",["ip_dst","ip_src"]],"vips":["map",[["10.0.0.5:80","10.0.0.10:8080"]]]},"table":"Load_Balancer","uuid-name":"lb"},{"op":"update","row":{"protocol":["set",[]]},"table":"Load_Balancer","where":[["external_ids","includes",["map",[["k","v"]]]]]},{"mutations":[["load_balancer","insert",["named-uuid","lb"]],["external_ids","delete",["set",["k"]]],["n","+=",2]],"op":"mutate","table":"Logical_Switch","where":[["_uuid","==",["uuid","0b3e9a52-5a6f-4d0e-8c3b-1f2a3b4c5d6e"]],["name","!=","x"]]},{"columns":["nb_cfg"],"op":"select","table":"NB_Global","where":[]},{"op":"delete","table":"Load_Balancer","where":[["protocol","excludes",["set",["udp"]]]]},{"lock":"keel","op":"assert"},{"op":"abort"}]"#,
        );
    }

    #[test]
    fn maps_results_and_errors() {
        let u = "11111111-1111-1111-1111-111111111111";
        let ok =
            parse_transact_result(&json!([{"uuid": ["uuid", u]}, {"count": 1}, {}]), 3).unwrap();
        assert_eq!(ok[0].uuid.map(|x| x.to_string()).as_deref(), Some(u));
        assert_eq!(ok[1].count, Some(1));
        let e = parse_transact_result(
            &json!([{"uuid": ["uuid", u]}, {"error": "referential integrity violation",
                "details": "cannot delete"}]),
            1,
        )
        .unwrap_err();
        let t = e.txn().unwrap();
        assert_eq!(t.kind, TxnErrorKind::ReferentialIntegrity);
        assert_eq!(t.op_index, None);
        let e = parse_transact_result(&json!([{"error": "timed out"}, null]), 2).unwrap_err();
        assert_eq!(e.txn().unwrap().kind, TxnErrorKind::TimedOut);
        assert_eq!(e.txn().unwrap().op_index, Some(0));
        assert!(parse_transact_result(&json!({}), 1).is_err());
        assert!(parse_transact_result(&json!([{}]), 2).is_err());
    }
}
