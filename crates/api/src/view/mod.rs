//! Typed response objects, serialised straight to JSON text.
//!
//! A list page of 1,000 load balancers rendered as `serde_json::Value` maps spent most of the
//! API's CPU building, sorting and dropping one `BTreeMap` per object. A view borrows the row
//! and its attachments and serialises its keys in the order a sorted map writes them, so the
//! text is byte for byte what serialising the map gives (each view's unit test); the single
//! GETs turn the same view into a `Value` ([`to_value`], as each resource's `render_*` does),
//! so both describe one shape. Each resource's view is in its folder
//! (`crate::listener::view`, …), citing its `*Response` of `octavia/api/v2/types`, declared by
//! `view_decl!` (`decl.rs`): one line per attribute — JSON name, view type, the expression
//! from the row, the listing `Attr` — in Octavia's declaration order, from which the view
//! struct, its `new`, its sorted-key `Serialize`, the attribute table (`LB_ATTRS`, …) and the
//! collection's `listing::Spec` (`LB`, …) all come.

#[cfg(test)]
mod catalog;
mod decl;
mod fields;

pub(crate) use decl::view_decl;
pub use decl::{json_name, sorted_order};
pub(crate) use fields::or_empty;
pub use fields::{Dt, IdRef, ScalarList, id_refs};

use serde::Serialize;

/// `value` as compact JSON text (what `axum::Json` writes).
pub fn to_text<T: Serialize>(value: &T) -> String {
    // serialising these views cannot fail: no map with non-string keys, no failing Serialize
    serde_json::to_string(value).unwrap_or_else(|_| "null".to_string())
}

/// `value` as a `serde_json::Value` (for bodies a handler edits: `fields=`, list-only keys).
pub fn to_value<T: Serialize>(value: &T) -> serde_json::Value {
    // cannot fail, as for `to_text`
    serde_json::to_value(value).unwrap_or(serde_json::Value::Null)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) mod testing {
    //! What every view's unit test checks.
    use serde::Serialize;
    use serde_json::Value;

    /// The former `json!` renderers' helpers, the reference every view is checked against:
    /// a name or description (`null` → `""`).
    pub fn name(v: &Option<String>) -> Value {
        Value::String(v.clone().unwrap_or_default())
    }

    /// Child references as `[{"id": …}]`.
    pub fn ids(ids: &[String]) -> Value {
        Value::Array(ids.iter().map(|i| serde_json::json!({ "id": i })).collect())
    }

    /// A comma-joined column as a list (`NULL` → `null`, `""` → `[]`).
    pub fn scalar_list(v: &Option<String>) -> Value {
        match v {
            None => Value::Null,
            Some(s) if s.is_empty() => serde_json::json!([]),
            Some(s) => Value::Array(s.split(',').map(|x| Value::String(x.to_string())).collect()),
        }
    }

    /// A datetime as `%Y-%m-%dT%H:%M:%S`, `null` when unset.
    pub fn dt(t: Option<chrono::NaiveDateTime>) -> Value {
        t.map_or(Value::Null, |t| {
            Value::String(t.format("%Y-%m-%dT%H:%M:%S").to_string())
        })
    }

    /// A fixed datetime, `2026-01-02T03:04:05`.
    pub fn t() -> chrono::NaiveDateTime {
        chrono::NaiveDate::from_ymd_opt(2026, 1, 2)
            .unwrap()
            .and_hms_opt(3, 4, 5)
            .unwrap()
    }

    /// The view's text is the text of the `json!` map it replaces (`map`), and its value
    /// that map.
    pub fn same_as_map<T: Serialize>(view: &T, map: Value) {
        let text = super::to_text(view);
        assert_eq!(text, serde_json::to_string(&map).unwrap());
        assert_eq!(super::to_value(view), map);
    }
}
