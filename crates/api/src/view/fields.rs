//! The field types the views share: datetimes, related-object ids, `ScalarListType` columns,
//! nullable names.

use chrono::NaiveDateTime;
use serde::{Serialize, Serializer};

/// A datetime as the API renders it: ISO-8601 without timezone (`%Y-%m-%dT%H:%M:%S`, e.g.
/// `2026-11-29T19:59:59`), `null` when unset.
pub struct Dt(pub Option<NaiveDateTime>);

impl Serialize for Dt {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Some(t) => s.collect_str(&t.format("%Y-%m-%dT%H:%M:%S")),
            None => s.serialize_none(),
        }
    }
}

/// `{"id": <id>}`, the form of related objects (`listeners`, `pools`, `rules`…).
#[derive(Serialize)]
pub struct IdRef<'a> {
    /// The related object's id.
    pub id: &'a str,
}

/// Ids as the `[{"id": …}]` list Octavia renders for related objects.
pub fn id_refs<'a>(ids: impl IntoIterator<Item = &'a String>) -> Vec<IdRef<'a>> {
    ids.into_iter().map(|id| IdRef { id }).collect()
}

/// A comma-joined `ScalarListType` column (octavia/db/types.py) as the list it stores:
/// NULL → `null`, `''` → `[]`, `a,b` → `["a","b"]`.
pub struct ScalarList<'a>(pub Option<&'a str>);

impl Serialize for ScalarList<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            None => s.serialize_none(),
            Some("") => s.collect_seq(std::iter::empty::<&str>()),
            Some(v) => s.collect_seq(v.split(',')),
        }
    }
}

/// A nullable name or description as Octavia renders it (`""` for NULL).
pub(crate) fn or_empty(v: &Option<String>) -> &str {
    v.as_deref().unwrap_or_default()
}
