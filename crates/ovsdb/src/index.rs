//! Secondary indexes of a replicated table: rows by a key the client computes from each row
//! ([`Index`], asked for with [`crate::MonitorSpec::index`]), kept exact under every insert,
//! update and delete the replica applies, in the same persistent maps as the rows (a
//! published snapshot shares them; the next update copies only the paths it changes).
//!
//! Why: a lookup the planner makes per request — "the router ports of this switch", "the port
//! holding this address" — was a pass over every port of the switch, 17–32 ms on a provider
//! network of 10,000 ports, on every API step of a load balancer there. With an index it is a
//! hash lookup and a check per candidate. In the spirit of libovsdb's client indexes, with
//! the key any function of the row instead of a column's value.

use std::collections::BTreeSet;

use rpds::HashTrieMapSync;
use uuid::Uuid;

use crate::row::Row;

/// The keys of a row under one index (empty: the row is not in the index). Called on every
/// change of a row of the table, so it must be cheap and pure.
pub type KeyFn = fn(&Row) -> Vec<String>;

/// A secondary index of `table` named `name`: each row is found under every key `keys`
/// returns for it.
#[derive(Debug, Clone)]
pub struct Index {
    /// The table, as in the schema (e.g. `Logical_Switch_Port`).
    pub table: String,
    /// What lookups name it by ([`crate::Table::find_by_key`]).
    pub name: String,
    /// The row's keys.
    pub keys: KeyFn,
}

/// Two definitions are the same index when they index the same table under the same name
/// (a function pointer has no meaningful equality).
impl PartialEq for Index {
    fn eq(&self, other: &Self) -> bool {
        self.table == other.table && self.name == other.name
    }
}

impl Eq for Index {}

/// A set-valued persistent map: key → uuids of the rows under it.
pub(crate) type UuidSets = HashTrieMapSync<String, BTreeSet<Uuid>>;

/// Adds `uuid` under `key`.
pub(crate) fn set_add(map: &mut UuidSets, key: &str, uuid: Uuid) {
    let mut set = map.get(key).cloned().unwrap_or_default();
    set.insert(uuid);
    map.insert_mut(key.to_string(), set);
}

/// Removes `uuid` from under `key` (and the key once it holds nothing).
pub(crate) fn set_remove(map: &mut UuidSets, key: &str, uuid: &Uuid) {
    if let Some(set) = map.get(key) {
        let mut set = set.clone();
        set.remove(uuid);
        if set.is_empty() {
            map.remove_mut(key);
        } else {
            map.insert_mut(key.to_string(), set);
        }
    }
}

/// One [`Index`] with its contents.
#[derive(Debug, Clone)]
pub(crate) struct KeyIndex {
    pub(crate) def: Index,
    map: UuidSets,
}

impl KeyIndex {
    pub(crate) fn new(def: Index) -> KeyIndex {
        KeyIndex {
            def,
            map: HashTrieMapSync::new_sync(),
        }
    }

    /// Follows one row from `old` (absent: an insert) to `new` (absent: a delete).
    pub(crate) fn update(&mut self, uuid: Uuid, old: Option<&Row>, new: Option<&Row>) {
        let before: BTreeSet<String> = old
            .map(|r| (self.def.keys)(r))
            .unwrap_or_default()
            .into_iter()
            .collect();
        let after: BTreeSet<String> = new
            .map(|r| (self.def.keys)(r))
            .unwrap_or_default()
            .into_iter()
            .collect();
        for k in before.difference(&after) {
            set_remove(&mut self.map, k, &uuid);
        }
        for k in after.difference(&before) {
            set_add(&mut self.map, k, uuid);
        }
    }

    /// The uuids of the rows under `key`, in uuid order.
    pub(crate) fn get(&self, key: &str) -> Option<&BTreeSet<Uuid>> {
        self.map.get(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;
    use std::collections::BTreeMap;

    fn row(n: u128, kind: &str) -> Row {
        Row::new(
            Uuid::from_u128(n),
            BTreeMap::from([("type".to_string(), Value::from(kind))]),
        )
    }

    fn by_type(r: &Row) -> Vec<String> {
        r.get_str("type")
            .filter(|t| !t.is_empty())
            .map(|t| vec![t.to_string()])
            .unwrap_or_default()
    }

    fn keys(ix: &KeyIndex, key: &str) -> Vec<u128> {
        ix.get(key)
            .map(|s| s.iter().map(|u| u.as_u128()).collect())
            .unwrap_or_default()
    }

    #[test]
    fn follows_inserts_updates_and_deletes() {
        let mut ix = KeyIndex::new(Index {
            table: "Logical_Switch_Port".into(),
            name: "type".into(),
            keys: by_type,
        });
        let (a, b, c) = (row(1, "router"), row(2, ""), row(3, "router"));
        ix.update(a.uuid, None, Some(&a));
        ix.update(b.uuid, None, Some(&b));
        ix.update(c.uuid, None, Some(&c));
        assert_eq!(keys(&ix, "router"), [1, 3]);
        assert_eq!(keys(&ix, ""), Vec::<u128>::new(), "no key, not indexed");
        // a row changing key moves; one keeping it stays once
        let a2 = row(1, "localnet");
        ix.update(a.uuid, Some(&a), Some(&a2));
        ix.update(c.uuid, Some(&c), Some(&c));
        assert_eq!(keys(&ix, "router"), [3]);
        assert_eq!(keys(&ix, "localnet"), [1]);
        // a delete empties its keys, and an empty key is gone
        ix.update(c.uuid, Some(&c), None);
        assert_eq!(ix.get("router"), None);
    }
}
