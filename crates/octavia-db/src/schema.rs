//! The Octavia schema at alembic head `fabf4983846b`, as data, rendered to MariaDB or SQLite DDL.
//!
//! Column types, nullability, defaults, keys and constraint names are those a MySQL
//! `octavia-db-manage upgrade head` produces (checked against the live
//! reference DB by `tests/schema.rs`). SQLite gets the closest equivalents.

mod amphora;
mod lookups;
mod model;
mod objects;

pub(crate) use lookups::LOOKUP_ROWS;
pub(crate) use model::{Dialect, Table};

use model::ColType::*;

/// The alembic revision the schema corresponds to.
pub const ALEMBIC_HEAD: &str = "fabf4983846b";

/// The indexes Keel adds beside the reference schema, `(name, table, columns)`: the keyset
/// order of the default sort (`created_at`, `id`), project-scoped and global, of the three
/// largest collections, and the load balancers' `name` (the filter cloud controllers, Terraform
/// and Heat send). Created by [`crate::Database::upgrade`] with `IF NOT EXISTS` (also on a
/// database `octavia-db-manage` made); named `keel_ix_*` so that they are told apart from the
/// reference's, which no migration of the reference names or drops.
pub const LIST_INDEXES: &[(&str, &str, &[&str])] = &[
    (
        "keel_ix_load_balancer_project_created",
        "load_balancer",
        &["project_id", "created_at", "id"],
    ),
    (
        "keel_ix_load_balancer_created",
        "load_balancer",
        &["created_at", "id"],
    ),
    ("keel_ix_load_balancer_name", "load_balancer", &["name"]),
    (
        "keel_ix_listener_project_created",
        "listener",
        &["project_id", "created_at", "id"],
    ),
    (
        "keel_ix_listener_created",
        "listener",
        &["created_at", "id"],
    ),
    (
        "keel_ix_pool_project_created",
        "pool",
        &["project_id", "created_at", "id"],
    ),
    ("keel_ix_pool_created", "pool", &["created_at", "id"]),
];

/// The `CREATE INDEX IF NOT EXISTS` statements of [`LIST_INDEXES`] (the same on both backends).
pub(crate) fn list_index_statements() -> Vec<String> {
    LIST_INDEXES
        .iter()
        .map(|(name, table, cols)| {
            let cols = cols
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ");
            format!("CREATE INDEX IF NOT EXISTS `{name}` ON `{table}` ({cols})")
        })
        .collect()
}

/// What a column can hold, as the API's validation must respect it (one variant per
/// `model::ColType`, named by its MariaDB rendering).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnCapacity {
    /// `varchar(n)`: at most `n` characters (utf8mb4).
    Varchar(u32),
    /// `int(11)`: `i32`.
    Int,
    /// `bigint(20)`: `i64`.
    BigInt,
    /// `tinyint(1)`.
    Bool,
    /// `datetime`.
    DateTime,
    /// `float`: IEEE single precision (|x| ≤ 3.402823466e38).
    Float,
    /// `blob`: at most 65,535 bytes.
    Blob,
}

/// One column of the schema: `(table, column, capacity, nullable)`, every table in creation
/// order; for callers that must prove their values fit (the API's validation tests).
pub fn columns() -> Vec<(&'static str, &'static str, ColumnCapacity, bool)> {
    tables()
        .flat_map(|t| {
            t.columns.iter().map(move |c| {
                let cap = match c.ty {
                    Varchar(n) => ColumnCapacity::Varchar(n),
                    Int => ColumnCapacity::Int,
                    BigInt => ColumnCapacity::BigInt,
                    Bool => ColumnCapacity::Bool,
                    DateTime => ColumnCapacity::DateTime,
                    Float => ColumnCapacity::Float,
                    Blob => ColumnCapacity::Blob,
                };
                (t.name, c.name, cap, c.nullable)
            })
        })
        .collect()
}

/// The nil uuid used by the DELETED-PLACEHOLDER flavor / AZ rows (e37941b010db, c761c8a71579).
pub const PLACEHOLDER_ID: &str = "00000000-0000-0000-0000-000000000000";

/// Placeholder and singleton rows the migrations insert (the `DELETED-PLACEHOLDER` flavor and
/// availability zone with their profiles, `amphora_build_slots`, `spares_pool`), in FK order. Each is an insert that is skipped when the key already exists.
pub(crate) fn seed_rows() -> Vec<(&'static str, &'static [&'static str], Vec<&'static str>)> {
    vec![
        (
            "flavor_profile",
            &["id", "name", "provider_name", "flavor_data"],
            vec![PLACEHOLDER_ID, "DELETED-PLACEHOLDER", "DELETED", "{}"],
        ),
        (
            "flavor",
            &["id", "name", "description", "enabled", "flavor_profile_id"],
            vec![
                PLACEHOLDER_ID,
                "DELETED-PLACEHOLDER",
                "Placeholder for DELETED LBs with DELETED flavors",
                "0",
                PLACEHOLDER_ID,
            ],
        ),
        (
            "availability_zone_profile",
            &["id", "name", "provider_name", "availability_zone_data"],
            vec![PLACEHOLDER_ID, "DELETED-PLACEHOLDER", "DELETED", "{}"],
        ),
        (
            "availability_zone",
            &[
                "name",
                "description",
                "enabled",
                "availability_zone_profile_id",
            ],
            vec![
                PLACEHOLDER_ID,
                "Placeholder for DELETED LBs with DELETED availability zones",
                "0",
                PLACEHOLDER_ID,
            ],
        ),
        ("amphora_build_slots", &["id", "slots_used"], vec!["1", "0"]),
    ]
}

/// Every table at head, in creation (foreign-key) order.
pub(crate) fn tables() -> impl Iterator<Item = &'static Table> {
    lookups::LOOKUP_TABLES
        .iter()
        .chain(objects::OBJECT_TABLES)
        .chain(amphora::AMPHORA_TABLES)
}
