//! OVSDB values (RFC 7047 §5.1): atoms, sets and maps, and their JSON notation.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value as Json, json};
use uuid::Uuid;

use crate::error::{Error, Result};

/// One OVSDB atom. `NamedUuid` only appears in transactions (`["named-uuid", name]`).
#[derive(Debug, Clone)]
pub enum Atom {
    /// `integer`.
    Integer(i64),
    /// `real`.
    Real(f64),
    /// `boolean`.
    Boolean(bool),
    /// `string`.
    String(String),
    /// `uuid`: `["uuid", "…"]` on the wire.
    Uuid(Uuid),
    /// `["named-uuid", name]`: refers to a row inserted by the same transaction with that
    /// `uuid-name`.
    NamedUuid(String),
}

impl Atom {
    fn rank(&self) -> u8 {
        match self {
            Atom::Integer(_) => 0,
            Atom::Real(_) => 1,
            Atom::Boolean(_) => 2,
            Atom::String(_) => 3,
            Atom::Uuid(_) => 4,
            Atom::NamedUuid(_) => 5,
        }
    }

    /// Parses an atom from its JSON notation.
    pub fn from_json(j: &Json) -> Result<Atom> {
        match j {
            Json::String(s) => Ok(Atom::String(s.clone())),
            Json::Bool(b) => Ok(Atom::Boolean(*b)),
            Json::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Ok(Atom::Integer(i))
                } else if let Some(f) = n.as_f64() {
                    Ok(Atom::Real(f))
                } else {
                    Err(Error::Malformed(format!("number out of range: {n}")))
                }
            }
            Json::Array(a) if a.len() == 2 => match (a[0].as_str(), a[1].as_str()) {
                (Some("uuid"), Some(u)) => Uuid::parse_str(u)
                    .map(Atom::Uuid)
                    .map_err(|e| Error::Malformed(format!("bad uuid {u:?}: {e}"))),
                (Some("named-uuid"), Some(n)) => Ok(Atom::NamedUuid(n.to_string())),
                _ => Err(Error::Malformed(format!("not an atom: {j}"))),
            },
            _ => Err(Error::Malformed(format!("not an atom: {j}"))),
        }
    }

    /// JSON notation of the atom.
    pub fn to_json(&self) -> Json {
        match self {
            Atom::Integer(i) => json!(i),
            Atom::Real(f) => json!(f),
            Atom::Boolean(b) => json!(b),
            Atom::String(s) => json!(s),
            Atom::Uuid(u) => json!(["uuid", u.to_string()]),
            Atom::NamedUuid(n) => json!(["named-uuid", n]),
        }
    }

    /// The string, if this is a string atom.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Atom::String(s) => Some(s),
            _ => None,
        }
    }

    /// The uuid, if this is a uuid atom.
    pub fn as_uuid(&self) -> Option<Uuid> {
        match self {
            Atom::Uuid(u) => Some(*u),
            _ => None,
        }
    }

    /// The integer, if this is an integer atom.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Atom::Integer(i) => Some(*i),
            _ => None,
        }
    }
}

impl PartialEq for Atom {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Atom {}
impl PartialOrd for Atom {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Atom {
    // Total order (reals by total_cmp) so atoms can live in BTreeSet/BTreeMap.
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Atom::Integer(a), Atom::Integer(b)) => a.cmp(b),
            (Atom::Real(a), Atom::Real(b)) => a.total_cmp(b),
            (Atom::Boolean(a), Atom::Boolean(b)) => a.cmp(b),
            (Atom::String(a), Atom::String(b)) => a.cmp(b),
            (Atom::Uuid(a), Atom::Uuid(b)) => a.cmp(b),
            (Atom::NamedUuid(a), Atom::NamedUuid(b)) => a.cmp(b),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

impl From<&str> for Atom {
    fn from(s: &str) -> Self {
        Atom::String(s.to_string())
    }
}
impl From<String> for Atom {
    fn from(s: String) -> Self {
        Atom::String(s)
    }
}
impl From<i64> for Atom {
    fn from(i: i64) -> Self {
        Atom::Integer(i)
    }
}
impl From<bool> for Atom {
    fn from(b: bool) -> Self {
        Atom::Boolean(b)
    }
}
impl From<f64> for Atom {
    fn from(f: f64) -> Self {
        Atom::Real(f)
    }
}
impl From<Uuid> for Atom {
    fn from(u: Uuid) -> Self {
        Atom::Uuid(u)
    }
}

/// A column value. In the replica values are normalised by the column's schema type: scalar
/// columns (min 1, max 1) hold `Atom`, other set columns (including optional ones, min 0 max 1)
/// hold `Set`, map columns hold `Map`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// A single atom (the wire form of a scalar, or of a one-element set).
    Atom(Atom),
    /// `["set", [atom, …]]`.
    Set(BTreeSet<Atom>),
    /// `["map", [[key, value], …]]`.
    Map(BTreeMap<Atom, Atom>),
}

impl Value {
    /// Parses a value from its JSON notation (atom, `["set",…]`, `["map",…]`).
    pub fn from_json(j: &Json) -> Result<Value> {
        if let Json::Array(a) = j
            && a.len() == 2
        {
            match (a[0].as_str(), &a[1]) {
                (Some("set"), Json::Array(items)) => {
                    return items
                        .iter()
                        .map(Atom::from_json)
                        .collect::<Result<BTreeSet<_>>>()
                        .map(Value::Set);
                }
                (Some("map"), Json::Array(pairs)) => {
                    let mut m = BTreeMap::new();
                    for p in pairs {
                        match p {
                            Json::Array(kv) if kv.len() == 2 => {
                                m.insert(Atom::from_json(&kv[0])?, Atom::from_json(&kv[1])?);
                            }
                            _ => return Err(Error::Malformed(format!("bad map pair: {p}"))),
                        }
                    }
                    return Ok(Value::Map(m));
                }
                _ => {}
            }
        }
        Atom::from_json(j).map(Value::Atom)
    }

    /// JSON notation; sets are always sent as `["set",[…]]`, which ovsdb-server accepts for
    /// any column type.
    pub fn to_json(&self) -> Json {
        match self {
            Value::Atom(a) => a.to_json(),
            Value::Set(s) => json!(["set", s.iter().map(Atom::to_json).collect::<Vec<_>>()]),
            Value::Map(m) => json!([
                "map",
                m.iter()
                    .map(|(k, v)| json!([k.to_json(), v.to_json()]))
                    .collect::<Vec<_>>()
            ]),
        }
    }

    /// The empty set (also the "absent" value of optional columns).
    pub fn empty_set() -> Value {
        Value::Set(BTreeSet::new())
    }

    /// The empty map.
    pub fn empty_map() -> Value {
        Value::Map(BTreeMap::new())
    }

    /// A string atom.
    pub fn string(s: impl Into<String>) -> Value {
        Value::Atom(Atom::String(s.into()))
    }

    /// A uuid atom.
    pub fn uuid(u: Uuid) -> Value {
        Value::Atom(Atom::Uuid(u))
    }

    /// `["named-uuid", name]`: a reference to a row inserted in the same transaction.
    pub fn named_uuid(name: impl Into<String>) -> Value {
        Value::Atom(Atom::NamedUuid(name.into()))
    }

    /// A set of atoms.
    pub fn set<A: Into<Atom>>(items: impl IntoIterator<Item = A>) -> Value {
        Value::Set(items.into_iter().map(Into::into).collect())
    }

    /// A set of uuids.
    pub fn uuid_set(items: impl IntoIterator<Item = Uuid>) -> Value {
        Value::Set(items.into_iter().map(Atom::Uuid).collect())
    }

    /// A map of string to string (`external_ids`, `vips`, `options`, …).
    pub fn str_map<K: Into<String>, V: Into<String>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Value {
        Value::Map(
            pairs
                .into_iter()
                .map(|(k, v)| (Atom::String(k.into()), Atom::String(v.into())))
                .collect(),
        )
    }

    /// The atoms of this value seen as a set (an `Atom` is a one-element set).
    pub fn set_items(&self) -> Vec<&Atom> {
        match self {
            Value::Atom(a) => vec![a],
            Value::Set(s) => s.iter().collect(),
            Value::Map(_) => Vec::new(),
        }
    }

    /// The single atom of a scalar or a one-element set.
    pub fn single(&self) -> Option<&Atom> {
        match self {
            Value::Atom(a) => Some(a),
            Value::Set(s) if s.len() == 1 => s.iter().next(),
            _ => None,
        }
    }

    /// The string of a scalar or one-element set.
    pub fn as_str(&self) -> Option<&str> {
        self.single().and_then(Atom::as_str)
    }

    /// The map, if this is a map value (an empty set counts as the empty map).
    pub fn as_map(&self) -> Option<&BTreeMap<Atom, Atom>> {
        static EMPTY: BTreeMap<Atom, Atom> = BTreeMap::new();
        match self {
            Value::Map(m) => Some(m),
            Value::Set(s) if s.is_empty() => Some(&EMPTY),
            _ => None,
        }
    }
}

impl From<Atom> for Value {
    fn from(a: Atom) -> Self {
        Value::Atom(a)
    }
}
impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::string(s)
    }
}
impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::string(s)
    }
}
impl From<i64> for Value {
    fn from(i: i64) -> Self {
        Value::Atom(Atom::Integer(i))
    }
}
impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Atom(Atom::Boolean(b))
    }
}
impl From<Uuid> for Value {
    fn from(u: Uuid) -> Self {
        Value::uuid(u)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_wire_notation() {
        let u = "7f9d1b1e-5a1c-4a5e-9e0a-0c1b2d3e4f50";
        assert_eq!(
            Value::from_json(&json!(["uuid", u])).unwrap(),
            Value::uuid(Uuid::parse_str(u).unwrap())
        );
        assert_eq!(
            Value::from_json(&json!(["map", [["a", "b"], ["c", "d"]]])).unwrap(),
            Value::str_map([("a", "b"), ("c", "d")])
        );
        assert_eq!(
            Value::from_json(&json!(["set", [1, 2]])).unwrap(),
            Value::set([1i64, 2])
        );
        assert_eq!(
            Value::from_json(&json!(1.5)).unwrap(),
            Value::Atom(Atom::Real(1.5))
        );
        assert!(Value::from_json(&json!(["uuid", "nope"])).is_err());
        assert!(Value::from_json(&json!({"a": 1})).is_err());
        assert!(Value::from_json(&json!(["map", [["a"]]])).is_err());
    }

    #[test]
    fn round_trips() {
        for v in [
            Value::str_map([("10.0.0.1:80", "10.0.0.2:80,10.0.0.3:80")]),
            Value::set(["tcp"]),
            Value::empty_set(),
            Value::named_uuid("lb"),
            Value::from(true),
        ] {
            let back = Value::from_json(&v.to_json()).unwrap();
            // A one-element set reads back as a set (we always emit ["set",…]).
            assert_eq!(back, v);
        }
    }
}
