//! The database schema as read from the server with `get_schema` (RFC 7047 §3.2), never
//! vendored: unknown keys are ignored so newer schemas with extra columns/tables just work.

use std::collections::BTreeMap;

use serde_json::Value as Json;
use uuid::Uuid;

use crate::error::{Error, Result};
use crate::value::{Atom, Value};

/// `<database-schema>`.
#[derive(Debug, Clone, PartialEq)]
pub struct DatabaseSchema {
    /// Database name, e.g. `OVN_Northbound`.
    pub name: String,
    /// Schema version, e.g. `7.0.0`.
    pub version: String,
    /// Tables by name.
    pub tables: BTreeMap<String, TableSchema>,
}

/// `<table-schema>`.
#[derive(Debug, Clone, PartialEq)]
pub struct TableSchema {
    /// Columns by name (without the implicit `_uuid` / `_version`).
    pub columns: BTreeMap<String, ColumnSchema>,
    /// `isRoot`.
    pub is_root: bool,
    /// `indexes`: sets of column names that must be unique together.
    pub indexes: Vec<Vec<String>>,
}

/// `<column-schema>`.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnSchema {
    /// The column type.
    pub ty: ColumnType,
    /// `ephemeral`.
    pub ephemeral: bool,
    /// `mutable` (default true).
    pub mutable: bool,
}

/// The atomic types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomicType {
    /// `integer`.
    Integer,
    /// `real`.
    Real,
    /// `boolean`.
    Boolean,
    /// `string`.
    String,
    /// `uuid`.
    Uuid,
}

/// `<base-type>`: an atomic type plus the constraints we use.
#[derive(Debug, Clone, PartialEq)]
pub struct BaseType {
    /// The atomic type.
    pub atomic: AtomicType,
    /// `refTable` for uuid columns.
    pub ref_table: Option<String>,
    /// `refType` is "weak".
    pub weak_ref: bool,
}

/// `<type>`: key, optional value (maps), `min`, `max` (`None` = "unlimited").
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnType {
    /// Key (or only) type.
    pub key: BaseType,
    /// Value type for maps.
    pub value: Option<BaseType>,
    /// Minimum number of elements.
    pub min: u64,
    /// Maximum number of elements, `None` for "unlimited".
    pub max: Option<u64>,
}

impl ColumnType {
    /// A map column.
    pub fn is_map(&self) -> bool {
        self.value.is_some()
    }

    /// A scalar column (exactly one atom). Optional columns (min 0, max 1) are sets.
    pub fn is_scalar(&self) -> bool {
        self.value.is_none() && self.min == 1 && self.max == Some(1)
    }

    /// The value of a column with no explicit value (ovsdb's default datum): empty set/map when
    /// `min` is 0, otherwise the atomic default (0, 0.0, false, "", all-zero uuid).
    pub fn default_value(&self) -> Value {
        if self.is_map() {
            return Value::empty_map();
        }
        if self.min == 0 {
            return Value::empty_set();
        }
        let a = default_atom(self.key.atomic);
        if self.is_scalar() {
            Value::Atom(a)
        } else {
            Value::set([a])
        }
    }

    /// Brings a wire value into the replica's normal form for this type (see [`Value`]):
    /// scalar → `Atom`, set → `Set`, map → `Map`; integers in real columns become reals.
    pub fn normalize(&self, v: Value) -> Value {
        let fix_key = |a: Atom| coerce(a, self.key.atomic);
        if let Some(vt) = &self.value {
            return match v {
                Value::Map(m) => Value::Map(
                    m.into_iter()
                        .map(|(k, x)| (fix_key(k), coerce(x, vt.atomic)))
                        .collect(),
                ),
                // ["set",[]] is an acceptable spelling of the empty map.
                Value::Set(s) if s.is_empty() => Value::empty_map(),
                other => other,
            };
        }
        if self.is_scalar() {
            match v {
                Value::Atom(a) => Value::Atom(fix_key(a)),
                Value::Set(s) if s.len() == 1 => match s.into_iter().next() {
                    Some(a) => Value::Atom(fix_key(a)),
                    None => Value::empty_set(),
                },
                other => other,
            }
        } else {
            match v {
                Value::Atom(a) => Value::set([fix_key(a)]),
                Value::Set(s) => Value::Set(s.into_iter().map(fix_key).collect()),
                other => other,
            }
        }
    }
}

fn coerce(a: Atom, t: AtomicType) -> Atom {
    match (a, t) {
        #[allow(clippy::cast_precision_loss)]
        (Atom::Integer(i), AtomicType::Real) => Atom::Real(i as f64),
        (a, _) => a,
    }
}

fn default_atom(t: AtomicType) -> Atom {
    match t {
        AtomicType::Integer => Atom::Integer(0),
        AtomicType::Real => Atom::Real(0.0),
        AtomicType::Boolean => Atom::Boolean(false),
        AtomicType::String => Atom::String(String::new()),
        AtomicType::Uuid => Atom::Uuid(Uuid::nil()),
    }
}

impl DatabaseSchema {
    /// Parses the `get_schema` result. Errors: [`Error::Schema`] on a missing name/tables or an
    /// unknown atomic type.
    pub fn from_json(j: &Json) -> Result<DatabaseSchema> {
        let name = j
            .get("name")
            .and_then(Json::as_str)
            .ok_or_else(|| Error::Schema("schema has no name".into()))?
            .to_string();
        let version = j
            .get("version")
            .and_then(Json::as_str)
            .unwrap_or_default()
            .to_string();
        let tables_j = j
            .get("tables")
            .and_then(Json::as_object)
            .ok_or_else(|| Error::Schema("schema has no tables".into()))?;
        let mut tables = BTreeMap::new();
        for (tname, t) in tables_j {
            let cols_j = t
                .get("columns")
                .and_then(Json::as_object)
                .ok_or_else(|| Error::Schema(format!("table {tname} has no columns")))?;
            let mut columns = BTreeMap::new();
            for (cname, c) in cols_j {
                let ty = c
                    .get("type")
                    .ok_or_else(|| Error::Schema(format!("{tname}.{cname} has no type")))
                    .and_then(|t| {
                        parse_type(t).map_err(|e| Error::Schema(format!("{tname}.{cname}: {e}")))
                    })?;
                columns.insert(
                    cname.clone(),
                    ColumnSchema {
                        ty,
                        ephemeral: c.get("ephemeral").and_then(Json::as_bool).unwrap_or(false),
                        mutable: c.get("mutable").and_then(Json::as_bool).unwrap_or(true),
                    },
                );
            }
            let indexes = t
                .get("indexes")
                .and_then(Json::as_array)
                .map(|ix| {
                    ix.iter()
                        .filter_map(Json::as_array)
                        .map(|cols| {
                            cols.iter()
                                .filter_map(|c| c.as_str().map(str::to_string))
                                .collect()
                        })
                        .collect()
                })
                .unwrap_or_default();
            tables.insert(
                tname.clone(),
                TableSchema {
                    columns,
                    is_root: t.get("isRoot").and_then(Json::as_bool).unwrap_or(false),
                    indexes,
                },
            );
        }
        Ok(DatabaseSchema {
            name,
            version,
            tables,
        })
    }

    /// The schema of `table`, if the server has it.
    pub fn table(&self, table: &str) -> Option<&TableSchema> {
        self.tables.get(table)
    }
}

/// Why a column's `type` in a server's schema (RFC 7047 §3.2 `<type>`) does not parse; the
/// text (Keel's) follows `<table>.<column>: ` in [`Error::Schema`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum TypeError {
    /// An atomic type RFC 7047 does not name.
    #[error("unknown atomic type {0:?}")]
    UnknownAtomic(String),
    /// A base type that is neither a string nor an object.
    #[error("bad base type {0}")]
    BadBase(Json),
    /// A type object without `key`.
    #[error("type has no key")]
    NoKey,
    /// A `max` that is neither a number nor `"unlimited"`.
    #[error("bad max {0}")]
    BadMax(Json),
    /// A type that is neither a string nor an object.
    #[error("bad type {0}")]
    BadType(Json),
}

fn parse_atomic(s: &str) -> std::result::Result<AtomicType, TypeError> {
    Ok(match s {
        "integer" => AtomicType::Integer,
        "real" => AtomicType::Real,
        "boolean" => AtomicType::Boolean,
        "string" => AtomicType::String,
        "uuid" => AtomicType::Uuid,
        other => return Err(TypeError::UnknownAtomic(other.to_string())),
    })
}

fn parse_base(j: &Json) -> std::result::Result<BaseType, TypeError> {
    match j {
        Json::String(s) => Ok(BaseType {
            atomic: parse_atomic(s)?,
            ref_table: None,
            weak_ref: false,
        }),
        Json::Object(o) => Ok(BaseType {
            atomic: parse_atomic(o.get("type").and_then(Json::as_str).unwrap_or_default())?,
            ref_table: o.get("refTable").and_then(Json::as_str).map(str::to_string),
            weak_ref: o.get("refType").and_then(Json::as_str) == Some("weak"),
        }),
        _ => Err(TypeError::BadBase(j.clone())),
    }
}

fn parse_type(j: &Json) -> std::result::Result<ColumnType, TypeError> {
    match j {
        Json::String(_) => Ok(ColumnType {
            key: parse_base(j)?,
            value: None,
            min: 1,
            max: Some(1),
        }),
        Json::Object(o) => {
            let key = parse_base(o.get("key").ok_or(TypeError::NoKey)?)?;
            let value = o.get("value").map(parse_base).transpose()?;
            let min = o.get("min").and_then(Json::as_u64).unwrap_or(1);
            let max = match o.get("max") {
                None => Some(1),
                Some(Json::String(s)) if s == "unlimited" => None,
                Some(m) => Some(m.as_u64().ok_or_else(|| TypeError::BadMax(m.clone()))?),
            };
            Ok(ColumnType {
                key,
                value,
                min,
                max,
            })
        }
        _ => Err(TypeError::BadType(j.clone())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Each unusable `<type>` is its own variant, and the schema error names the column.
    #[test]
    fn bad_column_types_are_typed() {
        let cases = [
            (
                json!("float"),
                TypeError::UnknownAtomic("float".into()),
                "unknown atomic type \"float\"",
            ),
            (
                json!({"key": 3}),
                TypeError::BadBase(json!(3)),
                "bad base type 3",
            ),
            (json!({"min": 0}), TypeError::NoKey, "type has no key"),
            (
                json!({"key": "string", "max": -1}),
                TypeError::BadMax(json!(-1)),
                "bad max -1",
            ),
            (json!(7), TypeError::BadType(json!(7)), "bad type 7"),
        ];
        for (t, want, text) in cases {
            let got = parse_type(&t).unwrap_err();
            assert_eq!(got, want, "{t}");
            assert_eq!(got.to_string(), text, "{t}");
        }
        let e = DatabaseSchema::from_json(&json!({
            "name": "X", "version": "1.0.0",
            "tables": {"T": {"columns": {"c": {"type": "float"}}}}
        }))
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "OVSDB schema: T.c: unknown atomic type \"float\""
        );
    }

    #[test]
    fn parses_types_and_ignores_unknown_keys() {
        let s = DatabaseSchema::from_json(&json!({
            "name": "X", "version": "1.0.0", "cksum": "1 2", "newKey": true,
            "tables": {"T": {"isRoot": true, "indexes": [["name"]], "extra": 1, "columns": {
                "name": {"type": "string"},
                "protocol": {"type": {"key": {"type": "string", "enum": ["set", ["tcp", "udp"]]},
                              "min": 0, "max": 1}},
                "vips": {"type": {"key": "string", "value": "string", "min": 0, "max": "unlimited"}},
                "ls": {"type": {"key": {"type": "uuid", "refTable": "LS", "refType": "weak"},
                        "min": 0, "max": "unlimited"}, "future": 3}
            }}}
        }))
        .unwrap();
        let t = s.table("T").unwrap();
        assert!(t.columns["name"].ty.is_scalar());
        assert!(!t.columns["protocol"].ty.is_scalar());
        assert_eq!(t.columns["protocol"].ty.default_value(), Value::empty_set());
        assert!(t.columns["vips"].ty.is_map());
        assert!(t.columns["ls"].ty.key.weak_ref);
        assert_eq!(t.indexes, vec![vec!["name".to_string()]]);
        assert_eq!(
            t.columns["protocol"].ty.normalize(Value::from("tcp")),
            Value::set(["tcp"])
        );
        assert_eq!(
            t.columns["name"].ty.normalize(Value::set(["x"])),
            Value::from("x")
        );
    }
}
