//! Typed request bodies: the validated map ([`Obj`]) turned into a per-resource struct, with
//! [`Patch`] keeping a PUT's absent / `null` / value apart and [`Strings`] for list
//! attributes.

use serde_json::{Map, Value};

use crate::fault::ApiError;

/// A parsed, validated request object: only the keys the client sent (`null`s kept). Handlers
/// never read it by key: [`Obj::typed`] turns it into the resource's body struct.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Obj(pub Map<String, Value>);

/// One attribute of a validated body as the handler reads it: left out, sent as `null`, or
/// sent with a value. A PUT changes only what was sent, and several attributes give `null`
/// its own meaning (a reset to the default, a removal), so the three cases stay apart.
/// Deserialised from the validated map with `#[serde(default)]`: a missing key is
/// [`Patch::Absent`].
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Patch<T> {
    /// The key was not sent.
    #[default]
    Absent,
    /// The key was sent as `null`.
    Null,
    /// The key was sent with this value.
    Value(T),
}

impl<T> Patch<T> {
    /// True when the key was sent (even as `null`).
    pub fn given(&self) -> bool {
        !matches!(self, Self::Absent)
    }
    /// True when the key was sent as `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Self::Null)
    }
    /// The value; `None` when left out or `null`.
    pub fn value(&self) -> Option<&T> {
        match self {
            Self::Value(v) => Some(v),
            _ => None,
        }
    }
    /// The value, owned; `None` when left out or `null`.
    pub fn into_value(self) -> Option<T> {
        match self {
            Self::Value(v) => Some(v),
            _ => None,
        }
    }
    /// 400 `None is not a valid option for <name>` when sent as `null`: an attribute whose
    /// column has no NULL (the reference's own answer where it checks, e.g.
    /// `health_monitor.py` `_validate_update_hm`; elsewhere its write fails with a 500).
    pub fn refuse_null(&self, name: &str) -> Result<(), ApiError> {
        match self {
            Self::Null => Err(ApiError::InvalidOption {
                value: "None".into(),
                option: name.to_string(),
            }),
            _ => Ok(()),
        }
    }
    /// What a PUT writes: `None` when left out, `Some(None)` for a `null`, `Some(Some(v))`.
    pub fn sent(&self) -> Option<Option<&T>> {
        match self {
            Self::Absent => None,
            Self::Null => Some(None),
            Self::Value(v) => Some(Some(v)),
        }
    }
}

impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for Patch<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Option::<T>::deserialize(d)?.map_or(Self::Null, Self::Value))
    }
}

/// A PUT's column changes and driver-model updates, one line per attribute:
/// `field [as "column"]: |v| value => column value, model value;`. When `b.field` was sent
/// (`v`: `None` for a `null`, else the value), `v` is rebound to `value`, `(column, column
/// value)` pushed to `ch` (the column named as the attribute unless `as` names it) and the
/// model's attribute of the attribute's name set to `model value`.
macro_rules! put_sent {
    ($b:ident, $ch:ident, $new:ident;
     $($field:ident $(as $column:literal)?: |$v:ident| $val:expr => $col:expr, $model:expr;)*) => {$(
        if let Some($v) = $b.$field.sent() {
            let $v = $val;
            $ch.push(($crate::types::put_sent!(@column $field $($column)?), $col.into()));
            $new.$field = $model;
        }
    )*};
    (@column $field:ident) => { stringify!($field) };
    (@column $field:ident $column:literal) => { $column };
}
pub(crate) use put_sent;

/// A PUT's driver-model updates, one line per attribute: `field: |v| model value;` sets the
/// model's attribute of that name when `b.field` was sent (`v`: `None` for a `null`, else the
/// value); the column changes come from the body's declaration (`column_changes`).
macro_rules! model_sent {
    ($b:ident, $new:ident; $($field:ident: |$v:ident| $model:expr;)*) => {$(
        if let Some($v) = $b.$field.sent() {
            $new.$field = $model;
        }
    )*};
}
pub(crate) use model_sent;

/// A validated list of strings (`tags`, certificate refs, CIDRs, TLS versions…): WSME passes
/// a `null` item through the item check, and the handlers have always dropped it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Strings(pub Vec<String>);

impl<'de> serde::Deserialize<'de> for Strings {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let items = Vec::<Option<String>>::deserialize(d)?;
        Ok(Self(items.into_iter().flatten().collect()))
    }
}

impl std::ops::Deref for Strings {
    type Target = Vec<String>;
    fn deref(&self) -> &Vec<String> {
        &self.0
    }
}

impl Obj {
    /// The validated map as a typed body `T` (a per-resource struct of `types/*.rs`). The
    /// schema gate has already checked every value, so a failure here is a disagreement
    /// between a schema table and its struct: 500, never a client's fault.
    pub fn typed<T: serde::de::DeserializeOwned>(self) -> Result<T, ApiError> {
        serde_json::from_value(Value::Object(self.0))
            .map_err(|e| ApiError::Internal(format!("request body typing: {e}")))
    }
}

/// The field names a typed body declares, read off its `Deserialize` impl: for the tests that
/// tie a graph create's schema table to its POST's struct.
#[cfg(test)]
pub(crate) fn struct_fields<T: serde::de::DeserializeOwned>() -> Vec<&'static str> {
    use serde::de::{Error, Visitor};
    struct Probe(std::cell::RefCell<Vec<&'static str>>);
    #[derive(Debug)]
    struct Stop;
    impl std::fmt::Display for Stop {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("stop")
        }
    }
    impl std::error::Error for Stop {}
    impl Error for Stop {
        fn custom<M: std::fmt::Display>(_: M) -> Self {
            Stop
        }
    }
    impl<'de> serde::Deserializer<'de> for &Probe {
        type Error = Stop;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
            Err(Stop)
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Stop> {
            self.0.borrow_mut().extend_from_slice(fields);
            Err(Stop)
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
            identifier ignored_any
        }
    }
    let probe = Probe(std::cell::RefCell::new(Vec::new()));
    let _ = T::deserialize(&probe);
    probe.0.into_inner()
}
