//! The in-memory replica of the monitored tables, its indexes, and change events.
//!
//! Readers take a [`Snapshot`]: an immutable, cheaply cloned view. The client task builds the
//! next snapshot from the previous one per update notification (copy-on-write per touched
//! table) and swaps it in, so a reader never sees half of a transaction.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rpds::HashTrieMapSync;
use serde_json::Value as Json;
use uuid::Uuid;

use crate::error::{Error, Result};
use crate::index::{Index, KeyIndex, UuidSets, set_add, set_remove};
use crate::row::Row;
use crate::schema::{AtomicType, ColumnType, DatabaseSchema};
use crate::value::{Atom, Value};

/// One replicated table with its indexes: by `_uuid`, by `name` when the table has a
/// string `name` column (names need not be unique, so the index holds sets), and the
/// client's own ([`Index`], [`crate::MonitorSpec::index`]).
///
/// All are persistent maps (hash tries sharing structure): publishing a snapshot keeps the
/// table, and the next update copies only the paths it changes. With a plain hash map each
/// update of a table a snapshot still held copied it whole — 1 ms per NB transaction at 10,000
/// Load_Balancer rows.
#[derive(Debug, Clone, Default)]
pub struct Table {
    rows: HashTrieMapSync<Uuid, Arc<Row>>,
    by_name: Option<UuidSets>,
    by_key: Vec<KeyIndex>,
}

impl PartialEq for Table {
    fn eq(&self, other: &Self) -> bool {
        self.rows == other.rows
    }
}

impl Table {
    fn new(name_indexed: bool, indexes: &[Index], table: &str) -> Table {
        Table {
            rows: HashTrieMapSync::new_sync(),
            by_name: name_indexed.then(HashTrieMapSync::new_sync),
            by_key: indexes
                .iter()
                .filter(|d| d.table == table)
                .map(|d| KeyIndex::new(d.clone()))
                .collect(),
        }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.rows.size()
    }

    /// True when the table holds no row.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The row with this `_uuid`.
    pub fn get(&self, uuid: &Uuid) -> Option<&Arc<Row>> {
        self.rows.get(uuid)
    }

    /// All rows, unordered.
    pub fn rows(&self) -> impl Iterator<Item = &Arc<Row>> {
        self.rows.values()
    }

    /// Rows whose `name` equals `name`, in uuid order (empty if the table has no `name`).
    pub fn find_all_by_name(&self, name: &str) -> Vec<&Arc<Row>> {
        self.by_name
            .as_ref()
            .and_then(|ix| ix.get(name))
            .map(|uuids| uuids.iter().filter_map(|u| self.rows.get(u)).collect())
            .unwrap_or_default()
    }

    /// The first row (lowest uuid) whose `name` equals `name`.
    pub fn find_by_name(&self, name: &str) -> Option<&Arc<Row>> {
        self.find_all_by_name(name).into_iter().next()
    }

    /// Rows under `key` in the client's index `index` ([`crate::MonitorSpec::index`]), in uuid
    /// order; `None` when the table has no index of that name (the caller scans instead).
    pub fn find_by_key(&self, index: &str, key: &str) -> Option<Vec<&Arc<Row>>> {
        let ix = self.by_key.iter().find(|ix| ix.def.name == index)?;
        Some(
            ix.get(key)
                .map(|uuids| uuids.iter().filter_map(|u| self.rows.get(u)).collect())
                .unwrap_or_default(),
        )
    }

    /// Rows matching a predicate (a full scan).
    pub fn filter<'a>(
        &'a self,
        mut pred: impl FnMut(&Row) -> bool + 'a,
    ) -> impl Iterator<Item = &'a Arc<Row>> + 'a {
        self.rows.values().filter(move |r| pred(r))
    }

    fn put(&mut self, row: Arc<Row>) -> Option<Arc<Row>> {
        let old = self.rows.get(&row.uuid).cloned();
        self.rows.insert_mut(row.uuid, row.clone());
        if let Some(ix) = &mut self.by_name {
            let old_name = old.as_ref().and_then(|o| o.get_str("name"));
            let new_name = row.get_str("name");
            if old_name != new_name {
                if let Some(n) = old_name {
                    set_remove(ix, n, &row.uuid);
                }
                if let Some(n) = new_name {
                    set_add(ix, n, row.uuid);
                }
            }
        }
        for ix in &mut self.by_key {
            ix.update(row.uuid, old.as_deref(), Some(&row));
        }
        old
    }

    fn take(&mut self, uuid: &Uuid) -> Option<Arc<Row>> {
        let old = self.rows.get(uuid).cloned()?;
        self.rows.remove_mut(uuid);
        if let (Some(ix), Some(n)) = (&mut self.by_name, old.get_str("name")) {
            set_remove(ix, n, uuid);
        }
        for ix in &mut self.by_key {
            ix.update(*uuid, Some(&old), None);
        }
        Some(old)
    }
}

/// A change seen in the replica, broadcast to subscribers after the snapshot that contains it
/// is published. On a resync after reconnect, the differences between the old and the new
/// contents are reported the same way.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// A row appeared.
    Insert {
        /// Table name as in the schema, e.g. `Load_Balancer`.
        table: String,
        /// The new row.
        new: Arc<Row>,
    },
    /// A row changed.
    Update {
        /// Table name as in the schema, e.g. `Load_Balancer`.
        table: String,
        /// The row before (all monitored columns).
        old: Arc<Row>,
        /// The row after.
        new: Arc<Row>,
    },
    /// A row disappeared.
    Delete {
        /// Table name as in the schema, e.g. `Load_Balancer`.
        table: String,
        /// The row before deletion.
        old: Arc<Row>,
    },
}

impl Change {
    /// The table of the change.
    pub fn table(&self) -> &str {
        match self {
            Change::Insert { table, .. }
            | Change::Update { table, .. }
            | Change::Delete { table, .. } => table,
        }
    }

    /// The row's `_uuid`.
    pub fn uuid(&self) -> Uuid {
        match self {
            Change::Insert { new, .. } | Change::Update { new, .. } => new.uuid,
            Change::Delete { old, .. } => old.uuid,
        }
    }

    /// Columns whose value differs between old and new (empty unless `Update`).
    pub fn changed_columns(&self) -> Vec<&str> {
        match self {
            Change::Update { old, new, .. } => new
                .columns
                .iter()
                .filter(|(k, v)| old.columns.get(*k) != Some(*v))
                .map(|(k, _)| k.as_str())
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// What a replica holds besides rows.
#[derive(Debug, Clone)]
pub(crate) struct ReplicaData {
    pub(crate) schema: Arc<DatabaseSchema>,
    /// Monitored columns per table.
    pub(crate) monitored: Arc<BTreeMap<String, Vec<String>>>,
    pub(crate) tables: BTreeMap<String, Arc<Table>>,
    /// The client's secondary indexes ([`crate::MonitorSpec::index`]).
    pub(crate) indexes: Arc<Vec<Index>>,
    pub(crate) generation: u64,
    /// The raft entry id of the last transaction applied (`update3` / `monitor_cond_since`);
    /// `None` for standalone servers, which send the all-zero id.
    pub(crate) last_txn_id: Option<Uuid>,
}

/// An immutable view of the replica at one point: every transaction the server reported up to
/// then is either fully in it or not at all. Cloning is an `Arc` clone.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub(crate) data: Arc<ReplicaData>,
}

impl Snapshot {
    pub(crate) fn empty() -> Snapshot {
        Snapshot {
            data: Arc::new(ReplicaData {
                schema: Arc::new(DatabaseSchema {
                    name: String::new(),
                    version: String::new(),
                    tables: BTreeMap::new(),
                }),
                monitored: Arc::new(BTreeMap::new()),
                tables: BTreeMap::new(),
                indexes: Arc::new(Vec::new()),
                generation: 0,
                last_txn_id: None,
            }),
        }
    }

    /// The server's schema at the time of the last (re)connect.
    pub fn schema(&self) -> &DatabaseSchema {
        &self.data.schema
    }

    /// Counts applied update notifications and resyncs; grows by at least one per change.
    pub fn generation(&self) -> u64 {
        self.data.generation
    }

    /// The id of the last transaction the replica contains, as the server reported it
    /// (`update3`, `monitor_cond_since`); a reconnect resumes from here. `None` for standalone
    /// servers (no transaction ids: ovsdb-server keeps a history only for clustered and relay
    /// databases) and before the first id arrived.
    pub fn last_txn_id(&self) -> Option<Uuid> {
        self.data.last_txn_id
    }

    /// A monitored table; `None` if it is not monitored.
    pub fn table(&self, table: &str) -> Option<&Table> {
        self.data.tables.get(table).map(|t| &**t)
    }

    /// Names of the monitored tables.
    pub fn tables(&self) -> impl Iterator<Item = &str> {
        self.data.tables.keys().map(String::as_str)
    }

    /// A row by table and `_uuid`.
    pub fn row(&self, table: &str, uuid: &Uuid) -> Option<&Arc<Row>> {
        self.table(table)?.get(uuid)
    }

    /// The first row (lowest uuid) of `table` whose `name` column equals `name`.
    pub fn find_by_name(&self, table: &str, name: &str) -> Option<&Arc<Row>> {
        self.table(table)?.find_by_name(name)
    }

    /// [`Table::find_by_key`] of `table`; `None` when the table is not monitored or has no
    /// index `index`.
    pub fn find_by_key(&self, table: &str, index: &str, key: &str) -> Option<Vec<&Arc<Row>>> {
        self.table(table)?.find_by_key(index, key)
    }

    /// Whether two snapshots hold the same rows in the same tables (schema/generation ignored).
    pub fn same_contents(&self, other: &Snapshot) -> bool {
        self.data.tables.len() == other.data.tables.len()
            && self
                .data
                .tables
                .iter()
                .all(|(k, t)| other.data.tables.get(k).is_some_and(|o| **o == **t))
    }
}

/// Which notification format the monitor uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MonitorVersion {
    /// `monitor` → `update` with `old`/`new`.
    V1,
    /// `monitor_cond` → `update2`, `monitor_cond_since` → `update3`.
    V2,
}

/// One row's update as sent by the server.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum RowOp {
    /// v2 `initial` / `insert`: non-default columns of a new row.
    Insert(BTreeMap<String, Value>),
    /// v2 `modify`: per-column diffs.
    Modify(BTreeMap<String, Value>),
    /// v2 `delete` or v1 without `new`.
    Delete,
    /// v1 `new` of an existing or new row (all monitored columns).
    Replace(BTreeMap<String, Value>),
}

/// `<table-updates>` / `<table-updates2>` parsed.
pub(crate) type TableUpdates = Vec<(String, Vec<(Uuid, RowOp)>)>;

fn parse_row(j: Json) -> Result<BTreeMap<String, Value>> {
    let Json::Object(o) = j else {
        return Err(Error::Protocol(format!("row is not an object: {j}")));
    };
    o.into_iter()
        .filter(|(k, _)| k.as_str() != "_uuid" && k.as_str() != "_version")
        .map(|(k, v)| Ok((k, Value::from_json(&v)?)))
        .collect()
}

/// Parses `<table-updates>` (v1) or `<table-updates2>` (v2/v3), consuming the JSON as it goes:
/// an initial load of 10,000 rows then never holds the whole JSON and all its rows at once.
pub(crate) fn parse_updates(j: Json, version: MonitorVersion) -> Result<TableUpdates> {
    let Json::Object(tables) = j else {
        return Err(Error::Protocol("table-updates is not an object".into()));
    };
    let mut out = Vec::with_capacity(tables.len());
    for (table, rows) in tables {
        let Json::Object(rows) = rows else {
            return Err(Error::Protocol(format!(
                "{table} updates are not an object"
            )));
        };
        let mut ops = Vec::with_capacity(rows.len());
        for (uuid, upd) in rows {
            let uuid = Uuid::parse_str(&uuid)
                .map_err(|e| Error::Protocol(format!("bad row uuid {uuid:?}: {e}")))?;
            let Json::Object(mut upd) = upd else {
                return Err(Error::Protocol(format!("bad row-update for {uuid}")));
            };
            let op = match version {
                MonitorVersion::V1 => match upd.remove("new") {
                    Some(n) => RowOp::Replace(parse_row(n)?),
                    None => RowOp::Delete,
                },
                MonitorVersion::V2 => {
                    if let Some(r) = upd.remove("initial").or_else(|| upd.remove("insert")) {
                        RowOp::Insert(parse_row(r)?)
                    } else if let Some(r) = upd.remove("modify") {
                        RowOp::Modify(parse_row(r)?)
                    } else if upd.contains_key("delete") {
                        RowOp::Delete
                    } else {
                        return Err(Error::Protocol(format!("bad row-update2 for {uuid}")));
                    }
                }
            };
            ops.push((uuid, op));
        }
        out.push((table, ops));
    }
    Ok(out)
}

/// Applies a `modify` diff to one column (ovsdb-server(7) "update2"). Only composite columns
/// (max > 1) carry a diff (ovsdb-data.c `ovsdb_datum_diff`): sets toggle the listed elements
/// (present → removed, absent → added); maps insert new keys, delete keys given with their
/// current value, and update keys given with a different value. Columns with max 1 (scalars
/// and optional columns) carry the new value.
pub(crate) fn apply_diff(old: Option<&Value>, diff: Value, ty: Option<&ColumnType>) -> Value {
    let composite = ty.map_or(!matches!(diff, Value::Atom(_)), |t| t.max != Some(1));
    let is_map = ty.map_or(matches!(diff, Value::Map(_)), ColumnType::is_map);
    let diff = match ty {
        Some(t) => t.normalize(diff),
        None => diff,
    };
    if !composite {
        diff
    } else if is_map {
        let mut m = old.and_then(Value::as_map).cloned().unwrap_or_default();
        if let Value::Map(d) = diff {
            for (k, v) in d {
                match m.get(&k) {
                    Some(cur) if *cur == v => {
                        m.remove(&k);
                    }
                    _ => {
                        m.insert(k, v);
                    }
                }
            }
        }
        Value::Map(m)
    } else {
        let mut s: BTreeSet<Atom> = old
            .map(|v| v.set_items().into_iter().cloned().collect())
            .unwrap_or_default();
        for a in diff.set_items() {
            if !s.remove(a) {
                s.insert(a.clone());
            }
        }
        Value::Set(s)
    }
}

fn has_name_index(schema: &DatabaseSchema, table: &str) -> bool {
    schema
        .table(table)
        .and_then(|t| t.columns.get("name"))
        .is_some_and(|c| !c.ty.is_map() && c.ty.key.atomic == AtomicType::String)
}

impl ReplicaData {
    pub(crate) fn new(
        schema: Arc<DatabaseSchema>,
        monitored: Arc<BTreeMap<String, Vec<String>>>,
        indexes: Arc<Vec<Index>>,
        generation: u64,
    ) -> ReplicaData {
        let mut data = ReplicaData {
            schema,
            monitored,
            tables: BTreeMap::new(),
            indexes,
            generation,
            last_txn_id: None,
        };
        let names: Vec<String> = data.monitored.keys().cloned().collect();
        for t in names {
            let table = data.empty_table(&t);
            data.tables.insert(t, Arc::new(table));
        }
        data
    }

    /// A table with no rows and every index it has.
    fn empty_table(&self, table: &str) -> Table {
        Table::new(has_name_index(&self.schema, table), &self.indexes, table)
    }

    fn col_type(&self, table: &str, col: &str) -> Option<&ColumnType> {
        self.schema
            .table(table)
            .and_then(|t| t.columns.get(col))
            .map(|c| &c.ty)
    }

    /// A full row from the columns the server sent: monitored columns it omitted take their
    /// default (update2 `initial`/`insert` leave out default-valued columns).
    fn full_row(&self, table: &str, uuid: Uuid, mut cols: BTreeMap<String, Value>) -> Row {
        let mut columns = BTreeMap::new();
        if let Some(monitored) = self.monitored.get(table) {
            for c in monitored {
                let v = match (cols.remove(c), self.col_type(table, c)) {
                    (Some(v), Some(t)) => t.normalize(v),
                    (Some(v), None) => v,
                    (None, Some(t)) => t.default_value(),
                    (None, None) => continue,
                };
                columns.insert(c.clone(), v);
            }
        }
        // Columns we did not ask for (should not happen) are kept as sent.
        columns.extend(cols);
        Row { uuid, columns }
    }

    /// Applies one notification's updates; returns the changes in order. Errors
    /// ([`Error::Protocol`], e.g. `modify` of an unknown row) mean the replica diverged: the
    /// caller drops the connection and resyncs; `self` may then be partially updated and must
    /// be discarded.
    pub(crate) fn apply(&mut self, updates: TableUpdates) -> Result<Vec<Change>> {
        let mut changes = Vec::new();
        for (table, ops) in updates {
            if !self.tables.contains_key(&table) {
                let empty = self.empty_table(&table);
                self.tables.insert(table.clone(), Arc::new(empty));
            }
            let mut t = self.tables.remove(&table).unwrap_or_default();
            let tm = Arc::make_mut(&mut t);
            let mut result = Ok(());
            for (uuid, op) in ops {
                match op {
                    RowOp::Insert(cols) | RowOp::Replace(cols) => {
                        let new = Arc::new(self.full_row(&table, uuid, cols));
                        match tm.put(new.clone()) {
                            Some(old) => changes.push(Change::Update {
                                table: table.clone(),
                                old,
                                new,
                            }),
                            None => changes.push(Change::Insert {
                                table: table.clone(),
                                new,
                            }),
                        }
                    }
                    RowOp::Modify(diff) => {
                        let Some(old) = tm.get(&uuid).cloned() else {
                            result = Err(Error::Protocol(format!(
                                "modify of unknown row {uuid} in {table}"
                            )));
                            break;
                        };
                        let mut cols = old.columns.clone();
                        for (c, d) in diff {
                            let v = apply_diff(cols.get(&c), d, self.col_type(&table, &c));
                            cols.insert(c, v);
                        }
                        let new = Arc::new(Row {
                            uuid,
                            columns: cols,
                        });
                        tm.put(new.clone());
                        changes.push(Change::Update {
                            table: table.clone(),
                            old,
                            new,
                        });
                    }
                    RowOp::Delete => {
                        if let Some(old) = tm.take(&uuid) {
                            changes.push(Change::Delete {
                                table: table.clone(),
                                old,
                            });
                        }
                    }
                }
            }
            self.tables.insert(table, t);
            result?;
        }
        self.generation += 1;
        Ok(changes)
    }

    /// Replaces the contents with `fresh` (built from a monitor's initial reply after a
    /// reconnect) and returns the differences as changes.
    pub(crate) fn diff_against(&self, fresh: &ReplicaData) -> Vec<Change> {
        let mut changes = Vec::new();
        let empty = Table::default();
        for (name, new_t) in &fresh.tables {
            let old_t = self.tables.get(name).map_or(&empty, |t| &**t);
            for (uuid, new) in &new_t.rows {
                match old_t.rows.get(uuid) {
                    None => changes.push(Change::Insert {
                        table: name.clone(),
                        new: new.clone(),
                    }),
                    Some(old) if old != new => changes.push(Change::Update {
                        table: name.clone(),
                        old: old.clone(),
                        new: new.clone(),
                    }),
                    Some(_) => {}
                }
            }
        }
        for (name, old_t) in &self.tables {
            let new_t = fresh.tables.get(name).map_or(&empty, |t| &**t);
            for (uuid, old) in &old_t.rows {
                if !new_t.rows.contains_key(uuid) {
                    changes.push(Change::Delete {
                        table: name.clone(),
                        old: old.clone(),
                    });
                }
            }
        }
        changes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Arc<DatabaseSchema> {
        Arc::new(
            DatabaseSchema::from_json(&json!({"name": "NB", "version": "1", "tables": {
                "Load_Balancer": {"columns": {
                    "name": {"type": "string"},
                    "protocol": {"type": {"key": "string", "min": 0, "max": 1}},
                    "vips": {"type": {"key": "string", "value": "string", "min": 0, "max": "unlimited"}},
                    "ls": {"type": {"key": "uuid", "min": 0, "max": "unlimited"}},
                    "n": {"type": "integer"}
                }}}}))
            .unwrap(),
        )
    }

    fn data() -> ReplicaData {
        let monitored = BTreeMap::from([(
            "Load_Balancer".to_string(),
            ["name", "protocol", "vips", "ls", "n"]
                .map(String::from)
                .to_vec(),
        )]);
        ReplicaData::new(schema(), Arc::new(monitored), Arc::new(Vec::new()), 0)
    }

    const U1: &str = "11111111-1111-1111-1111-111111111111";
    const U2: &str = "22222222-2222-2222-2222-222222222222";
    const U3: &str = "33333333-3333-3333-3333-333333333333";

    fn upd(j: Json) -> TableUpdates {
        parse_updates(j, MonitorVersion::V2).unwrap()
    }

    #[test]
    fn insert_fills_defaults_and_indexes_name() {
        let mut d = data();
        let ch = d
            .apply(upd(
                json!({"Load_Balancer": {U1: {"insert": {"name": "lb1"}}}}),
            ))
            .unwrap();
        assert_eq!(ch.len(), 1);
        let s = Snapshot { data: Arc::new(d) };
        let r = s.find_by_name("Load_Balancer", "lb1").unwrap();
        assert_eq!(r.uuid().to_string(), U1);
        assert_eq!(r.get("protocol"), Some(&Value::empty_set()));
        assert_eq!(r.get("vips"), Some(&Value::empty_map()));
        assert_eq!(r.get_i64("n"), Some(0));
        assert_eq!(r.get_str("protocol"), None);
    }

    /// Keys of the test index: each key of `vips`.
    fn vip_keys(r: &Row) -> Vec<String> {
        r.get_map("vips").into_keys().collect()
    }

    #[test]
    fn client_indexes_follow_inserts_modifies_deletes_and_resyncs() {
        let monitored = data().monitored;
        let indexes = Arc::new(vec![Index {
            table: "Load_Balancer".into(),
            name: "vip".into(),
            keys: vip_keys,
        }]);
        let mut d = ReplicaData::new(schema(), monitored.clone(), indexes.clone(), 0);
        d.apply(upd(json!({"Load_Balancer": {
            U1: {"initial": {"name": "a", "vips": ["map", [["v1", "x"], ["v2", "x"]]]}},
            U2: {"initial": {"name": "b", "vips": ["map", [["v2", "y"]]]}}}})))
            .unwrap();
        let found = |d: &ReplicaData, key: &str| -> Vec<String> {
            let s = Snapshot {
                data: Arc::new(d.clone()),
            };
            s.find_by_key("Load_Balancer", "vip", key)
                .unwrap()
                .iter()
                .map(|r| r.uuid().to_string())
                .collect()
        };
        assert_eq!(found(&d, "v1"), [U1]);
        assert_eq!(found(&d, "v2"), [U1, U2]);
        // a modify moves the row between keys; a delete takes it out
        d.apply(upd(json!({"Load_Balancer": {
            U1: {"modify": {"vips": ["map", [["v1", "x"], ["v3", "z"]]]}},
            U2: {"delete": null}}})))
            .unwrap();
        assert_eq!(found(&d, "v1"), Vec::<String>::new());
        assert_eq!(found(&d, "v2"), [U1]);
        assert_eq!(found(&d, "v3"), [U1]);
        // a resync builds the index from the fresh contents
        let mut fresh = ReplicaData::new(d.schema.clone(), monitored, d.indexes.clone(), 0);
        fresh
            .apply(upd(json!({"Load_Balancer": {
                U3: {"initial": {"name": "c", "vips": ["map", [["v3", "w"]]]}}}})))
            .unwrap();
        assert_eq!(found(&fresh, "v3"), [U3]);
        let s = Snapshot {
            data: Arc::new(fresh),
        };
        assert!(s.find_by_key("Load_Balancer", "other", "v3").is_none());
        assert!(s.find_by_key("Logical_Switch", "vip", "v3").is_none());
    }

    #[test]
    fn modify_applies_map_set_and_scalar_diffs() {
        let mut d = data();
        d.apply(upd(json!({"Load_Balancer": {U1: {"initial": {
            "name": "lb1", "protocol": "tcp",
            "vips": ["map", [["a", "1"], ["b", "2"], ["c", "3"]]],
            "ls": ["set", [["uuid", U2]]]}}}})))
            .unwrap();
        let ch = d
            .apply(upd(json!({"Load_Balancer": {U1: {"modify": {
                "name": "lb2",
                // protocol is optional (max 1): the new value, not a diff
                "protocol": "udp",
                // a: same value → delete; b: new value → update; d: new key → insert
                "vips": ["map", [["a", "1"], ["b", "9"], ["d", "4"]]],
                // single-element set diff arrives as a bare atom
                "ls": ["uuid", U3]}}}})))
            .unwrap();
        let Change::Update { old, new, .. } = &ch[0] else {
            panic!("expected update, got {ch:?}")
        };
        assert_eq!(old.get_str("name"), Some("lb1"));
        assert_eq!(new.get_str("name"), Some("lb2"));
        assert_eq!(new.get_str("protocol"), Some("udp"));
        assert_eq!(
            new.get_map("vips"),
            BTreeMap::from([
                ("b".into(), "9".into()),
                ("c".into(), "3".into()),
                ("d".into(), "4".into())
            ])
        );
        let mut want = vec![Uuid::parse_str(U2).unwrap(), Uuid::parse_str(U3).unwrap()];
        want.sort();
        assert_eq!(new.get_uuid_set("ls"), want);
        let mut cc = ch[0].changed_columns();
        cc.sort();
        assert_eq!(cc, vec!["ls", "name", "protocol", "vips"]);

        // removing one set element, clearing the optional column
        d.apply(upd(json!({"Load_Balancer": {U1: {"modify": {
            "ls": ["uuid", U2], "protocol": ["set", []]}}}})))
            .unwrap();
        let s = Snapshot { data: Arc::new(d) };
        let r = s
            .row("Load_Balancer", &Uuid::parse_str(U1).unwrap())
            .unwrap();
        assert_eq!(r.get_uuid_set("ls"), vec![Uuid::parse_str(U3).unwrap()]);
        assert_eq!(r.get("protocol"), Some(&Value::empty_set()));
        assert!(s.find_by_name("Load_Balancer", "lb1").is_none());
        assert!(s.find_by_name("Load_Balancer", "lb2").is_some());
    }

    #[test]
    fn delete_and_unknown_modify() {
        let mut d = data();
        d.apply(upd(
            json!({"Load_Balancer": {U1: {"insert": {"name": "x"}}}}),
        ))
        .unwrap();
        let ch = d
            .apply(upd(json!({"Load_Balancer": {U1: {"delete": null}}})))
            .unwrap();
        assert!(matches!(&ch[0], Change::Delete { old, .. } if old.get_str("name") == Some("x")));
        assert!(d.tables["Load_Balancer"].find_by_name("x").is_none());
        assert!(matches!(
            d.apply(upd(
                json!({"Load_Balancer": {U2: {"modify": {"name": "y"}}}})
            )),
            Err(Error::Protocol(_))
        ));
        assert!(parse_updates(json!({"T": {U1: {"bogus": 1}}}), MonitorVersion::V2).is_err());
        assert!(
            parse_updates(
                json!({"T": {"not-a-uuid": {"delete": null}}}),
                MonitorVersion::V2
            )
            .is_err()
        );
    }

    #[test]
    fn snapshots_are_isolated_from_later_updates() {
        let mut d = data();
        d.apply(upd(
            json!({"Load_Balancer": {U1: {"insert": {"name": "a"}}}}),
        ))
        .unwrap();
        let before = Snapshot {
            data: Arc::new(d.clone()),
        };
        d.apply(upd(
            json!({"Load_Balancer": {U2: {"insert": {"name": "b"}}}}),
        ))
        .unwrap();
        assert_eq!(before.table("Load_Balancer").unwrap().len(), 1);
        assert_eq!(d.tables["Load_Balancer"].len(), 2);
    }

    #[test]
    fn v1_updates_and_resync_diff() {
        let mut d = data();
        let v1 = parse_updates(
            json!({"Load_Balancer": {U1: {"new": {"name": "a", "n": 1}},
                                      U2: {"new": {"name": "b", "n": 2}}}}),
            MonitorVersion::V1,
        )
        .unwrap();
        d.apply(v1).unwrap();
        let mut fresh =
            ReplicaData::new(d.schema.clone(), d.monitored.clone(), d.indexes.clone(), 0);
        fresh
            .apply(upd(
                json!({"Load_Balancer": {U1: {"initial": {"name": "a", "n": 5}},
                                                 U3: {"initial": {"name": "c"}}}}),
            ))
            .unwrap();
        let mut kinds: Vec<(String, &str)> = d
            .diff_against(&fresh)
            .iter()
            .map(|c| {
                (
                    c.uuid().to_string(),
                    match c {
                        Change::Insert { .. } => "insert",
                        Change::Update { .. } => "update",
                        Change::Delete { .. } => "delete",
                    },
                )
            })
            .collect();
        kinds.sort();
        assert_eq!(
            kinds,
            vec![
                (U1.to_string(), "update"),
                (U2.to_string(), "delete"),
                (U3.to_string(), "insert")
            ]
        );
    }
}
