//! Column codecs of row building: Octavia's `ScalarListType` (a comma-joined list in one
//! column, octavia/db/types.py; read back by [`crate::view::ScalarList`]) and server-made ids.

/// A list as a `ScalarListType` column.
pub fn join_list(v: Option<Vec<String>>) -> Option<String> {
    v.map(|l| l.join(","))
}

/// A new UUID string (ids are server-generated).
pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}
