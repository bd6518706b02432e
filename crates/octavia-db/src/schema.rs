//! The Octavia schema at alembic head `fabf4983846b`, as data, rendered to MariaDB or SQLite DDL.
//!
//! Column types, nullability, defaults, keys and constraint names are those a MySQL
//! `octavia-db-manage upgrade head` produces (checked against the live
//! reference DB by `tests/schema.rs`). SQLite gets the closest equivalents.

mod amphora;
mod lookups;
mod objects;

pub(crate) use lookups::LOOKUP_ROWS;

use ColType::*;

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

/// A column type, named by its MariaDB rendering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ColType {
    /// `varchar(n)`.
    Varchar(u32),
    /// `int(11)`.
    Int,
    /// `bigint(20)`.
    BigInt,
    /// `tinyint(1)` (SQLAlchemy Boolean).
    Bool,
    /// `datetime` (naive UTC).
    DateTime,
    /// `float`.
    Float,
    /// `blob` (SQLAlchemy PickleType).
    Blob,
}

/// What a column can hold, as the API's validation must respect it (one variant per
/// [`ColType`], named by its MariaDB rendering).
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

/// A server default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Default {
    Text(&'static str),
    Int(i64),
    Now,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Column {
    pub name: &'static str,
    pub ty: ColType,
    pub nullable: bool,
    pub default: Option<Default>,
    pub auto_increment: bool,
}

const fn col(
    name: &'static str,
    ty: ColType,
    nullable: bool,
    default: Option<Default>,
    auto_increment: bool,
) -> Column {
    Column {
        name,
        ty,
        nullable,
        default,
        auto_increment,
    }
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct ForeignKey {
    pub name: &'static str,
    pub column: &'static str,
    pub ref_table: &'static str,
    pub ref_column: &'static str,
}

const fn fk(
    name: &'static str,
    column: &'static str,
    ref_table: &'static str,
    ref_column: &'static str,
) -> ForeignKey {
    ForeignKey {
        name,
        column,
        ref_table,
        ref_column,
    }
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Table {
    pub name: &'static str,
    pub columns: &'static [Column],
    pub primary_key: &'static [&'static str],
    pub unique: &'static [(&'static str, &'static [&'static str])],
    pub indexes: &'static [(&'static str, &'static [&'static str])],
    pub foreign_keys: &'static [ForeignKey],
}

/// SQL dialect of a backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    MySql,
    Sqlite,
}

fn quote_list(cols: &[&str]) -> String {
    cols.iter()
        .map(|c| format!("`{c}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Table {
    /// `CREATE TABLE IF NOT EXISTS` plus, on SQLite, the `CREATE INDEX` statements.
    pub(crate) fn ddl(&self, dialect: Dialect) -> Vec<String> {
        let mut parts = Vec::new();
        let mut inline_pk = false;
        for c in self.columns {
            let ty = match (dialect, c.ty) {
                (Dialect::MySql, Varchar(n)) | (Dialect::Sqlite, Varchar(n)) => {
                    format!("varchar({n})")
                }
                (Dialect::MySql, Int) => "int(11)".into(),
                (Dialect::Sqlite, Int) => "INTEGER".into(),
                (Dialect::MySql, BigInt) => "bigint(20)".into(),
                (Dialect::Sqlite, BigInt) => "BIGINT".into(),
                (Dialect::MySql, Bool) => "tinyint(1)".into(),
                (Dialect::Sqlite, Bool) => "BOOLEAN".into(),
                (_, DateTime) => "datetime".into(),
                (_, Float) => "float".into(),
                (_, Blob) => "blob".into(),
            };
            let mut s = format!("`{}` {ty}", c.name);
            if c.auto_increment && dialect == Dialect::Sqlite {
                // SQLite only auto-increments an INTEGER PRIMARY KEY declared on the column.
                s.push_str(" PRIMARY KEY AUTOINCREMENT");
                inline_pk = true;
            } else {
                s.push_str(if c.nullable { " NULL" } else { " NOT NULL" });
            }
            match (c.default, dialect) {
                (Some(Default::Text(t)), _) => s.push_str(&format!(" DEFAULT '{t}'")),
                (Some(Default::Int(i)), _) => s.push_str(&format!(" DEFAULT {i}")),
                (Some(Default::Now), Dialect::MySql) => s.push_str(" DEFAULT current_timestamp()"),
                (Some(Default::Now), Dialect::Sqlite) => s.push_str(" DEFAULT CURRENT_TIMESTAMP"),
                (None, _) => {}
            }
            if c.auto_increment && dialect == Dialect::MySql {
                s.push_str(" AUTO_INCREMENT");
            }
            parts.push(s);
        }
        if !inline_pk {
            parts.push(format!("PRIMARY KEY ({})", quote_list(self.primary_key)));
        }
        for (name, cols) in self.unique {
            parts.push(match dialect {
                Dialect::MySql => format!("UNIQUE KEY `{name}` ({})", quote_list(cols)),
                Dialect::Sqlite => format!("CONSTRAINT `{name}` UNIQUE ({})", quote_list(cols)),
            });
        }
        if dialect == Dialect::MySql {
            for (name, cols) in self.indexes {
                parts.push(format!("KEY `{name}` ({})", quote_list(cols)));
            }
        }
        for f in self.foreign_keys {
            parts.push(format!(
                "CONSTRAINT `{}` FOREIGN KEY (`{}`) REFERENCES `{}` (`{}`)",
                f.name, f.column, f.ref_table, f.ref_column
            ));
        }
        let tail = match dialect {
            Dialect::MySql => " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4",
            Dialect::Sqlite => "",
        };
        let mut out = vec![format!(
            "CREATE TABLE IF NOT EXISTS `{}` (\n  {}\n){tail}",
            self.name,
            parts.join(",\n  ")
        )];
        if dialect == Dialect::Sqlite {
            for (name, cols) in self.indexes {
                out.push(format!(
                    "CREATE INDEX IF NOT EXISTS `{name}` ON `{}` ({})",
                    self.name,
                    quote_list(cols)
                ));
            }
        }
        out
    }
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
