//! Column codecs shared by rendering and row building: Octavia's `ScalarListType` (a
//! comma-joined list in one column, octavia/db/types.py) both ways, and server-made ids.

use serde_json::{Value, json};

/// A comma-joined `ScalarListType` column as a list (`NULL` → `null`).
pub fn scalar_list(v: &Option<String>) -> Value {
    match v {
        None => Value::Null,
        Some(s) if s.is_empty() => json!([]),
        Some(s) => Value::Array(s.split(',').map(|x| Value::String(x.to_string())).collect()),
    }
}

/// A list as a `ScalarListType` column.
pub fn join_list(v: Option<Vec<String>>) -> Option<String> {
    v.map(|l| l.join(","))
}

/// A new UUID string (ids are server-generated).
pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}
