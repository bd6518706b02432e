//! The shape of the schema as data: tables, columns, their types, defaults and keys, and
//! their DDL per backend. The tables themselves are in `lookups`, `objects` and `amphora`.

use ColType::*;

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

/// A [`Column`] (`const`, for the table lists).
pub(super) const fn col(
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

/// A [`ForeignKey`] (`const`, for the table lists).
pub(super) const fn fk(
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
