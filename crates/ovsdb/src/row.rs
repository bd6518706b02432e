//! One replicated row ([`Row`]) and its typed column accessors.

use std::collections::BTreeMap;

use uuid::Uuid;

use crate::value::{Atom, Value};

/// One row: its `_uuid` and the monitored columns (normalised, defaults filled in).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub(crate) uuid: Uuid,
    pub(crate) columns: BTreeMap<String, Value>,
}

impl Row {
    /// Builds a row (used by the replica and by tests).
    pub fn new(uuid: Uuid, columns: BTreeMap<String, Value>) -> Row {
        Row { uuid, columns }
    }

    /// The row's `_uuid`.
    pub fn uuid(&self) -> Uuid {
        self.uuid
    }

    /// All monitored columns.
    pub fn columns(&self) -> &BTreeMap<String, Value> {
        &self.columns
    }

    /// A column's value; `None` when the column is not monitored / not in the schema.
    pub fn get(&self, column: &str) -> Option<&Value> {
        self.columns.get(column)
    }

    /// A string column (scalar, or optional with a value). `None` if absent/empty/not a string.
    pub fn get_str(&self, column: &str) -> Option<&str> {
        self.get(column).and_then(Value::as_str)
    }

    /// An integer column (scalar or optional).
    pub fn get_i64(&self, column: &str) -> Option<i64> {
        self.get(column)
            .and_then(Value::single)
            .and_then(Atom::as_i64)
    }

    /// A boolean column (scalar or optional).
    pub fn get_bool(&self, column: &str) -> Option<bool> {
        match self.get(column).and_then(Value::single) {
            Some(Atom::Boolean(b)) => Some(*b),
            _ => None,
        }
    }

    /// A uuid column (scalar or optional), e.g. `Logical_Switch_Port.dhcpv4_options`.
    pub fn get_uuid(&self, column: &str) -> Option<Uuid> {
        self.get(column)
            .and_then(Value::single)
            .and_then(Atom::as_uuid)
    }

    /// A map<string,string> column (`external_ids`, `vips`, `options`) as an owned map;
    /// non-string pairs are skipped, a missing column gives an empty map.
    pub fn get_map(&self, column: &str) -> BTreeMap<String, String> {
        self.get(column)
            .and_then(Value::as_map)
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| Some((k.as_str()?.to_string(), v.as_str()?.to_string())))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// One key of a map<string,string> column without copying the map
    /// (e.g. `row.map_get("external_ids", "neutron:vip")`).
    pub fn map_get(&self, column: &str, key: &str) -> Option<&str> {
        self.get(column)
            .and_then(Value::as_map)
            .and_then(|m| m.get(&Atom::String(key.to_string())))
            .and_then(Atom::as_str)
    }

    /// The atoms of a set column (a scalar counts as a one-element set).
    pub fn get_set(&self, column: &str) -> Vec<&Atom> {
        self.get(column).map(Value::set_items).unwrap_or_default()
    }

    /// A `set<uuid>` column (e.g. `Logical_Switch.load_balancer`), in uuid order.
    pub fn get_uuid_set(&self, column: &str) -> Vec<Uuid> {
        self.get_set(column)
            .into_iter()
            .filter_map(Atom::as_uuid)
            .collect()
    }

    /// A `set<string>` column (e.g. `Load_Balancer.selection_fields`), in string order.
    pub fn get_str_set(&self, column: &str) -> Vec<&str> {
        self.get_set(column)
            .into_iter()
            .filter_map(Atom::as_str)
            .collect()
    }
}
