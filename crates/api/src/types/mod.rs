//! Request and response typing, as Octavia's WSME types (`octavia/api/v2/types/*.py`).
//!
//! Bodies are parsed by a small WSME re-implementation ([`parse_body`]) driven by
//! declarative [`Schema`]s, so that failures carry WSME's exact texts:
//! unknown keys → `Unknown attribute for argument <arg>: <names>`; coercion failures (a string
//! for an integer, a non-boolean, a non-list) name the *argument* and echo the whole body as a
//! Python dict; range/UUID/enum/length failures name the innermost field.

pub mod health_monitor;
pub mod l7;
pub mod listener;
pub mod load_balancer;
pub mod member;
pub mod pool;
pub mod quotas;

pub(crate) mod pattern;
mod python;

use serde_json::{Map, Value};

use python::{Coercion, py_float, py_int};
pub use python::{py_repr, py_str};

use crate::fault::ApiError;

/// The largest value of an `INT` column (`delay`, `timeout`, `connection_limit`,
/// `hsts_max_age`, `persistence_timeout`): WSME declares no maximum, but a larger value could
/// only fail in the database (a 500); it is refused with WSME's range text instead.
pub const INT_COLUMN_MAX: i64 = i32::MAX as i64;
/// The smallest value of an `INT` column, the lower bound of the same fields where WSME
/// declares none (`persistence_timeout`, a graph's `hsts_max_age`).
pub const INT_COLUMN_MIN: i64 = i32::MIN as i64;
/// The width of the `varchar` column a comma-joined list is stored in (`tls_versions`,
/// `alpn_protocols`: `varchar(512)`).
pub const JOINED_COLUMN_MAX: usize = 512;
/// The width of `health_monitor.url_path` and `l7policy.redirect_url`/`redirect_prefix`
/// (`varchar(255)`): Octavia's `URLPathType`/`URLType` declare no length.
pub const URL_COLUMN_MAX: usize = 255;

/// The type of one attribute, as a WSME datatype.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// `wtypes.StringType(min_length, max_length)`.
    Str {
        /// Minimum length in characters.
        min: Option<usize>,
        /// Maximum length in characters.
        max: Option<usize>,
    },
    /// `wtypes.StringType(min_length, max_length, pattern=…)`: the lengths, then Python's
    /// `re.search` of Octavia's regex ([`pattern::search`]).
    Pattern {
        /// Octavia's regex text: run, and shown in the error.
        pattern: &'static str,
        /// Minimum length in characters.
        min: Option<usize>,
        /// Maximum length in characters.
        max: Option<usize>,
    },
    /// `wtypes.UuidType()`; normalised to the dashed lower-case form.
    Uuid,
    /// `wtypes.IntegerType(minimum, maximum)` (or plain `int`).
    Int {
        /// Inclusive minimum (`None`: unbounded).
        min: Option<i64>,
        /// Inclusive maximum (`None`: unbounded).
        max: Option<i64>,
    },
    /// `bool`, with WSME's string coercions.
    Bool,
    /// `float`.
    Float,
    /// `wtypes.Enum(float, …)`: coerced by `float()`, then one of the values
    /// (`http_version`: 1.0, 1.1).
    FloatEnum(&'static [f64]),
    /// `wtypes.Enum(str, …)`.
    Enum(&'static [&'static str]),
    /// Octavia `IPAddressType`.
    Ip,
    /// Octavia `CidrType` (normalised to network/prefix).
    Cidr,
    /// Octavia `URLPathType`.
    UrlPath,
    /// Octavia `URLType` (`validate.url`, scheme required): checked before the length of
    /// its `varchar(255)` column, as the reference validates it in WSME and only its write
    /// would meet the column.
    Url,
    /// Octavia `AlpnProtocolType`.
    Alpn,
    /// `wtypes.ArrayType(item)`.
    List(&'static Kind),
    /// `wtypes.ArrayType(item)` stored comma-joined in one `varchar(max)` column: the joined
    /// text is at most `max` characters (WSME has no such bound; a longer list could only
    /// fail in the database).
    Joined {
        /// The item type.
        item: &'static Kind,
        /// Maximum length of the items joined with `,`, in characters.
        max: usize,
    },
    /// `wtypes.DictType(str, StringType(max_length))`.
    StrDict(Option<usize>),
    /// A complex type.
    Object(&'static Schema),
    /// A list of a complex type.
    ObjectList(&'static Schema),
}

/// One attribute of a complex type.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// JSON key.
    pub name: &'static str,
    /// What the value must be, and how WSME coerces it.
    pub kind: Kind,
    /// WSME `mandatory=True`.
    pub mandatory: bool,
    /// Mandatory as WSME checks it (the key must be sent) with an explicit `null` passed on to
    /// the handler, where the reference gives that `null` its own answer. Without it a `null`
    /// counts as missing (the reference would fail later with a 500).
    pub null_passes: bool,
}

/// A WSME complex type: its attributes in declaration order.
#[derive(Debug)]
pub struct Schema {
    /// Declared attributes; any other key is refused (`Unknown attribute for argument`).
    pub fields: &'static [Field],
    /// Declares `project_id`, so `tenant_id` (≤36 chars) is accepted as its alias
    /// (Octavia `BaseMeta`; `tenant_id` wins when both are given).
    pub tenant_alias: bool,
}

/// Shorthand constructors for schema tables.
pub const fn f(name: &'static str, kind: Kind) -> Field {
    Field {
        name,
        kind,
        mandatory: false,
        null_passes: false,
    }
}
/// A mandatory field.
pub const fn m(name: &'static str, kind: Kind) -> Field {
    Field {
        name,
        kind,
        mandatory: true,
        null_passes: false,
    }
}
/// A mandatory field whose explicit `null` reaches the handler ([`Field::null_passes`]).
pub const fn mn(name: &'static str, kind: Kind) -> Field {
    Field {
        name,
        kind,
        mandatory: true,
        null_passes: true,
    }
}
/// `StringType(max_length=n)`.
pub const fn s(max: usize) -> Kind {
    Kind::Str {
        min: None,
        max: Some(max),
    }
}
/// `IntegerType(minimum, maximum)`.
pub const fn int(min: Option<i64>, max: Option<i64>) -> Kind {
    Kind::Int { min, max }
}
/// `ArrayType(StringType(max_length=255))`, the type of `tags`.
pub const TAGS: Kind = Kind::List(&Kind::Str {
    min: None,
    max: Some(255),
});

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

impl Patch<bool> {
    /// `admin_state_up` (or `enabled`) as a create stores it: left out true, `null` false
    /// (Octavia's `to_dict`).
    pub fn on_create(&self) -> bool {
        match self {
            Self::Absent => true,
            Self::Null => false,
            Self::Value(v) => *v,
        }
    }
}

impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for Patch<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Option::<T>::deserialize(d)?.map_or(Self::Null, Self::Value))
    }
}

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

/// [`parse_body`] then [`Obj::typed`]: the WSME gate's answer for a bad body, else the typed
/// body.
pub fn parse_typed<T: serde::de::DeserializeOwned>(
    body: &[u8],
    argname: &str,
    wrapper: &str,
    schema: &'static Schema,
) -> Result<T, ApiError> {
    parse_body(body, argname, wrapper, schema)?.typed()
}

/// [`parse_list_body`] then [`Obj::typed`] of each item.
pub fn parse_list_typed<T: serde::de::DeserializeOwned>(
    body: &[u8],
    argname: &str,
    key: &str,
    item: &'static Schema,
) -> Result<Vec<T>, ApiError> {
    parse_list_body(body, argname, key, item)?
        .into_iter()
        .map(Obj::typed)
        .collect()
}

/// The field names a typed body declares, read off its `Deserialize` impl: for the tests that
/// tie each struct to its schema table.
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

/// Asserts that struct `T` declares exactly the attributes of `schema` (the tenant alias
/// arrives as `project_id`), so a name misspelt on either side fails a test.
#[cfg(test)]
#[allow(clippy::panic)]
pub(crate) fn assert_typed_as<T: serde::de::DeserializeOwned>(schema: &Schema) {
    let mut want: Vec<&str> = schema.fields.iter().map(|f| f.name).collect();
    let mut have = struct_fields::<T>();
    want.sort_unstable();
    have.sort_unstable();
    assert_eq!(have, want, "{}", std::any::type_name::<T>());
}

/// Why a value failed.
enum Fail {
    /// A `fromjson` coercion `ValueError`: reported against the argument with the whole body.
    Coerce(Coercion),
    /// Already a final API error (field-level or unknown attribute).
    Api(ApiError),
}

/// Parse a request body `{"<wrapper>": {...}}` as WSME does for a controller argument
/// named `argname` (e.g. `load_balancer`, `listener_`), returning the inner object.
///
/// Errors: invalid JSON → 400 `Request is not in valid JSON format`; unknown keys → 400
/// `Unknown attribute for argument <argname>[.<path>]: <keys>`; coercion failures → 400
/// `Invalid input for field/attribute <argname>. Value: '<body as Python dict>'. <reason>`;
/// validation failures → 400 naming the field; a missing wrapper (e.g. a `{}` body, a 500 in
/// the reference) → 400 `Invalid input for field/attribute <wrapper>. Value: 'None'. Mandatory field missing.`
pub fn parse_body(
    body: &[u8],
    argname: &str,
    wrapper: &str,
    schema: &'static Schema,
) -> Result<Obj, ApiError> {
    let root: Value = serde_json::from_slice(body)
        .map_err(|_| ApiError::BadRequest("Request is not in valid JSON format".to_string()))?;
    let Value::Object(map) = &root else {
        return Err(ApiError::invalid_input(
            argname,
            py_repr(&root),
            "Value not a valid dict",
        ));
    };
    let mut unknown: Vec<String> = map
        .keys()
        .filter(|k| k.as_str() != wrapper)
        .cloned()
        .collect();
    if !unknown.is_empty() {
        unknown.sort();
        return Err(ApiError::UnknownAttribute {
            arg: argname.to_string(),
            attrs: unknown,
        });
    }
    let inner = match map.get(wrapper) {
        None | Some(Value::Null) => {
            return Err(ApiError::invalid_input(
                wrapper,
                "None",
                "Mandatory field missing.",
            ));
        }
        Some(v) => v,
    };
    match from_json_object(schema, inner) {
        Ok(Value::Object(o)) => Ok(Obj(o)),
        Ok(_) => Err(ApiError::invalid_input(
            wrapper,
            "None",
            "Mandatory field missing.",
        )),
        Err(Fail::Coerce(why)) => Err(ApiError::invalid_input(
            argname,
            echo(body, &root),
            why.to_string(),
        )),
        Err(Fail::Api(ApiError::UnknownAttribute { arg, attrs })) => {
            Err(ApiError::UnknownAttribute {
                arg: if arg.is_empty() {
                    format!("{argname}.{wrapper}")
                } else {
                    format!("{argname}.{wrapper}.{arg}")
                },
                attrs,
            })
        }
        Err(Fail::Api(e)) => Err(e),
    }
}

/// Parse a body whose root type holds one list attribute, e.g. `MembersRootPUT`
/// (`{"members": [MemberPOST…]}` for the argument `members_`), returning the list items.
///
/// Errors as [`parse_body`], with paths `<argname>` / `<argname>.<key>`; a missing or null
/// list → 400 `Invalid input for field/attribute <key>. Value: 'None'. Mandatory field missing.`
pub fn parse_list_body(
    body: &[u8],
    argname: &str,
    key: &str,
    item: &'static Schema,
) -> Result<Vec<Obj>, ApiError> {
    let root: Value = serde_json::from_slice(body)
        .map_err(|_| ApiError::BadRequest("Request is not in valid JSON format".to_string()))?;
    let Value::Object(map) = &root else {
        return Err(ApiError::invalid_input(
            argname,
            py_repr(&root),
            "Value not a valid dict",
        ));
    };
    let mut unknown: Vec<String> = map.keys().filter(|k| k.as_str() != key).cloned().collect();
    if !unknown.is_empty() {
        unknown.sort();
        return Err(ApiError::UnknownAttribute {
            arg: argname.to_string(),
            attrs: unknown,
        });
    }
    let list = match map.get(key) {
        None | Some(Value::Null) => {
            return Err(ApiError::invalid_input(
                key,
                "None",
                "Mandatory field missing.",
            ));
        }
        Some(v) => v,
    };
    match convert(&Kind::ObjectList(item), list) {
        Ok(Value::Array(items)) => Ok(items
            .into_iter()
            .filter_map(|v| match v {
                Value::Object(o) => Some(Obj(o)),
                _ => None,
            })
            .collect()),
        Ok(_) => Err(ApiError::invalid_input(
            key,
            "None",
            "Mandatory field missing.",
        )),
        Err(Fail::Coerce(why)) => Err(ApiError::invalid_input(
            argname,
            echo(body, &root),
            why.to_string(),
        )),
        Err(Fail::Api(ApiError::UnknownAttribute { arg, attrs })) => {
            Err(ApiError::UnknownAttribute {
                arg: if arg.is_empty() {
                    format!("{argname}.{key}")
                } else {
                    format!("{argname}.{key}.{arg}")
                },
                attrs,
            })
        }
        Err(Fail::Api(e)) => Err(e),
    }
}

fn from_json_object(schema: &'static Schema, value: &Value) -> Result<Value, Fail> {
    let Value::Object(map) = value else {
        return Err(Fail::Coerce(Coercion::NotDict(py_str(value))));
    };
    let mut unknown: Vec<String> = map
        .keys()
        .filter(|k| !(schema.tenant_alias && k.as_str() == "tenant_id"))
        .filter(|k| !schema.fields.iter().any(|f| f.name == k.as_str()))
        .cloned()
        .collect();
    if !unknown.is_empty() {
        unknown.sort();
        return Err(Fail::Api(ApiError::UnknownAttribute {
            arg: String::new(),
            attrs: unknown,
        }));
    }
    let mut out = Map::new();
    for field in schema.fields {
        match map.get(field.name) {
            Some(Value::Null) if field.mandatory && !field.null_passes => {
                return Err(Fail::Api(ApiError::invalid_input(
                    field.name,
                    "None",
                    "Mandatory field missing.",
                )));
            }
            Some(v) => {
                let conv = match convert(&field.kind, v) {
                    Ok(c) => c,
                    Err(Fail::Api(ApiError::UnknownAttribute { arg, attrs })) => {
                        let arg = if arg.is_empty() {
                            field.name.to_string()
                        } else {
                            format!("{}.{arg}", field.name)
                        };
                        return Err(Fail::Api(ApiError::UnknownAttribute { arg, attrs }));
                    }
                    Err(e) => return Err(e),
                };
                let valid = validate(&field.kind, conv).map_err(|(shown, reason)| {
                    Fail::Api(ApiError::invalid_input(field.name, shown, reason))
                })?;
                out.insert(field.name.to_string(), valid);
            }
            None if field.mandatory => {
                return Err(Fail::Api(ApiError::invalid_input(
                    field.name,
                    "None",
                    "Mandatory field missing.",
                )));
            }
            None => {}
        }
    }
    if schema.tenant_alias
        && let Some(t) = map.get("tenant_id")
    {
        let valid = validate(&s(36), t.clone()).map_err(|(shown, reason)| {
            Fail::Api(ApiError::invalid_input("tenant_id", shown, reason))
        })?;
        out.insert("project_id".to_string(), valid);
    }
    Ok(Value::Object(out))
}

/// WSME `fromjson`: coercions whose `ValueError` is reported against the whole argument.
fn convert(kind: &Kind, v: &Value) -> Result<Value, Fail> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    match kind {
        Kind::Int { .. } => py_int(v).map(Value::from).map_err(Fail::Coerce),
        Kind::Float | Kind::FloatEnum(_) => py_float(v).map_err(Fail::Coerce),
        Kind::Bool => match v {
            Value::Bool(b) => Ok(Value::Bool(*b)),
            Value::Number(n) if n.is_i64() || n.is_u64() => {
                Ok(Value::Bool(n.as_f64() != Some(0.0)))
            }
            Value::String(s) if ["true", "t", "yes", "y", "on", "1"].contains(&s.as_str()) => {
                Ok(Value::Bool(true))
            }
            Value::String(s) if ["false", "f", "no", "n", "off", "0"].contains(&s.as_str()) => {
                Ok(Value::Bool(false))
            }
            other => Err(Fail::Coerce(Coercion::NotBool(py_str(other)))),
        },
        Kind::List(item) | Kind::Joined { item, .. } => match v {
            Value::Array(a) => a
                .iter()
                .map(|i| convert(item, i))
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Array),
            other => Err(Fail::Coerce(Coercion::NotList(py_str(other)))),
        },
        Kind::ObjectList(schema) => match v {
            Value::Array(a) => a
                .iter()
                .map(|i| {
                    if i.is_null() {
                        Ok(Value::Null)
                    } else {
                        from_json_object(schema, i)
                    }
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Array),
            other => Err(Fail::Coerce(Coercion::NotList(py_str(other)))),
        },
        Kind::StrDict(_) => match v {
            Value::Object(_) => Ok(v.clone()),
            other => Err(Fail::Coerce(Coercion::NotDict(py_str(other)))),
        },
        Kind::Object(schema) => from_json_object(schema, v),
        _ => Ok(v.clone()),
    }
}

/// WSME `validate_value`: failures name the field and show `str(value)`.
fn validate(kind: &Kind, v: Value) -> Result<Value, (String, String)> {
    if v.is_null() {
        return Ok(v);
    }
    let shown = py_str(&v);
    let fail = |reason: &str| Err((shown.clone(), reason.to_string()));
    match kind {
        Kind::Str { min, max } => {
            let Some(st) = v.as_str() else {
                return fail("Value should be string");
            };
            let n = st.chars().count();
            if let Some(min) = min
                && n < *min
            {
                return fail(&format!(
                    "Value should have a minimum character requirement of {min}"
                ));
            }
            if let Some(max) = max
                && n > *max
            {
                return fail(&format!(
                    "Value should have a maximum character requirement of {max}"
                ));
            }
            Ok(v)
        }
        Kind::Pattern { pattern, min, max } => {
            let Some(st) = v.as_str() else {
                return fail("Value should be string");
            };
            if let Some(min) = min
                && st.chars().count() < *min
            {
                return fail(&format!(
                    "Value should have a minimum character requirement of {min}"
                ));
            }
            if let Some(max) = max
                && st.chars().count() > *max
            {
                return fail(&format!(
                    "Value should have a maximum character requirement of {max}"
                ));
            }
            if !pattern::search(pattern, st) {
                return fail(&format!("Value should match the pattern {pattern}"));
            }
            Ok(v)
        }
        Kind::Uuid => match v.as_str().and_then(|st| uuid::Uuid::parse_str(st).ok()) {
            Some(u) => Ok(Value::String(u.hyphenated().to_string())),
            None => fail("Value should be UUID format"),
        },
        Kind::Int { min, max } => {
            let n = v.as_i64().unwrap_or_default();
            if let Some(min) = min
                && n < *min
            {
                return fail(&format!("Value should be greater or equal to {min}"));
            }
            if let Some(max) = max
                && n > *max
            {
                return fail(&format!("Value should be lower or equal to {max}"));
            }
            Ok(v)
        }
        Kind::Bool | Kind::Float => Ok(v),
        Kind::FloatEnum(values) => match v.as_f64() {
            Some(x) if values.contains(&x) => Ok(v),
            _ => fail(&format!(
                "Value should be one of: {}",
                values
                    .iter()
                    .map(|x| format!("{x:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        },
        Kind::Enum(values) => match v.as_str() {
            Some(st) if values.contains(&st) => Ok(v),
            _ => fail(&format!("Value should be one of: {}", values.join(", "))),
        },
        Kind::Ip => match v.as_str().map(|st| st.parse::<std::net::IpAddr>()) {
            Some(Ok(_)) => Ok(v),
            _ => fail("Value should be IPv4 or IPv6 format"),
        },
        Kind::Cidr => match v.as_str().and_then(normalise_cidr) {
            Some(c) => Ok(Value::String(c)),
            None => fail("Value should be IPv4 or IPv6 CIDR format"),
        },
        // validity first: a long invalid text gets WSME's own answer, not the column's
        Kind::UrlPath | Kind::Url => {
            let (valid, invalid): (fn(&str) -> bool, &str) = match kind {
                Kind::Url => (valid_url, "Value must be a valid URL string"),
                _ => (valid_url_path, "Value must be a valid URL Path string"),
            };
            match v.as_str() {
                Some(u) if !valid(u) => fail(invalid),
                Some(u) if u.chars().count() > URL_COLUMN_MAX => fail(&format!(
                    "Value should have a maximum character requirement of {URL_COLUMN_MAX}"
                )),
                Some(_) => Ok(v),
                None => fail(invalid),
            }
        }
        Kind::Alpn => match v.as_str() {
            Some("h2" | "http/1.1" | "http/1.0") => Ok(v),
            _ => fail("Value should be a valid ALPN protocol ID"),
        },
        Kind::List(item) => {
            let Value::Array(a) = v else {
                return fail("Wrong type. Expected list");
            };
            let mut out = Vec::with_capacity(a.len());
            for i in a {
                match validate(item, i) {
                    Ok(x) => out.push(x),
                    Err((_, reason)) => return Err((shown, reason)),
                }
            }
            Ok(Value::Array(out))
        }
        Kind::Joined { item, max } => {
            let list = validate(&Kind::List(item), v)?;
            let joined = list.as_array().map_or(0, |a| {
                a.iter().map(|i| py_str(i).chars().count()).sum::<usize>()
                    + a.len().saturating_sub(1)
            });
            if joined > *max {
                return fail(&format!(
                    "Value should have a maximum character requirement of {max}"
                ));
            }
            Ok(list)
        }
        Kind::StrDict(max) => {
            let Value::Object(o) = &v else {
                return fail("Wrong type. Expected dict");
            };
            for val in o.values() {
                match val {
                    Value::String(st) if max.is_none_or(|m| st.chars().count() <= m) => {}
                    Value::String(_) => {
                        return fail(&format!(
                            "Value should have a maximum character requirement of {}",
                            max.unwrap_or(0)
                        ));
                    }
                    Value::Null => {}
                    _ => return fail("Value should be string"),
                }
            }
            Ok(v)
        }
        Kind::Object(_) | Kind::ObjectList(_) => Ok(v),
    }
}

/// `ipaddress.ip_network(value, strict=False).with_prefixlen`.
pub fn normalise_cidr(s: &str) -> Option<String> {
    let (addr, len) = match s.split_once('/') {
        Some((a, l)) => (a, Some(l)),
        None => (s, None),
    };
    let ip: std::net::IpAddr = addr.parse().ok()?;
    let max = if ip.is_ipv4() { 32 } else { 128 };
    let len: u32 = match len {
        Some(l) => l.parse().ok().filter(|l| *l <= max)?,
        None => max,
    };
    Some(match ip {
        std::net::IpAddr::V4(a) => {
            let mask = if len == 0 { 0 } else { u32::MAX << (32 - len) };
            format!("{}/{len}", std::net::Ipv4Addr::from(u32::from(a) & mask))
        }
        std::net::IpAddr::V6(a) => {
            let mask = if len == 0 {
                0
            } else {
                u128::MAX << (128 - len)
            };
            format!("{}/{len}", std::net::Ipv6Addr::from(u128::from(a) & mask))
        }
    })
}

/// Octavia `validate.url_path`: starts with `/`, no whitespace, no scheme or host.
/// `validate.url(require_scheme=True)`: no control characters or spaces, scheme http or
/// https, a host (octavia/common/validate.py).
pub fn valid_url(u: &str) -> bool {
    if u.chars()
        .any(|c| (c as u32) <= 0x20 || (0x7f..=0x9f).contains(&(c as u32)))
    {
        return false;
    }
    let Some((scheme, rest)) = u.split_once("://") else {
        return false;
    };
    if !matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https") {
        return false;
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = authority.rsplit('@').next().unwrap_or_default();
    let host = if host.starts_with('[') {
        host.split(']')
            .next()
            .unwrap_or_default()
            .trim_start_matches('[')
    } else {
        host.split(':').next().unwrap_or_default()
    };
    !host.is_empty()
}

fn valid_url_path(p: &str) -> bool {
    p.starts_with('/') && !p.starts_with("//") && !p.chars().any(char::is_whitespace)
}

/// A JSON value whose objects keep the client's key order (serde_json's map sorts them).
enum Ordered {
    Scalar(Value),
    List(Vec<Ordered>),
    Dict(Vec<(String, Ordered)>),
}

impl<'de> serde::Deserialize<'de> for Ordered {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Ordered;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("JSON")
            }
            fn visit_bool<E>(self, b: bool) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(Value::Bool(b)))
            }
            fn visit_i64<E>(self, n: i64) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(Value::from(n)))
            }
            fn visit_u64<E>(self, n: u64) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(Value::from(n)))
            }
            fn visit_f64<E>(self, n: f64) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(Value::from(n)))
            }
            fn visit_str<E>(self, s: &str) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(Value::String(s.to_string())))
            }
            fn visit_unit<E>(self) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(Value::Null))
            }
            fn visit_none<E>(self) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(Value::Null))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<Ordered, A::Error> {
                let mut v = Vec::new();
                while let Some(x) = a.next_element()? {
                    v.push(x);
                }
                Ok(Ordered::List(v))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<Ordered, A::Error> {
                let mut v: Vec<(String, Ordered)> = Vec::new();
                while let Some((k, x)) = a.next_entry::<String, Ordered>()? {
                    // a repeated key keeps its first place and its last value, as a Python dict
                    match v.iter_mut().find(|(have, _)| *have == k) {
                        Some(slot) => slot.1 = x,
                        None => v.push((k, x)),
                    }
                }
                Ok(Ordered::Dict(v))
            }
        }
        d.deserialize_any(V)
    }
}

fn ordered_repr(v: &Ordered) -> String {
    match v {
        Ordered::Scalar(x) => py_repr(x),
        Ordered::List(a) => format!(
            "[{}]",
            a.iter().map(ordered_repr).collect::<Vec<_>>().join(", ")
        ),
        Ordered::Dict(o) => format!(
            "{{{}}}",
            o.iter()
                .map(|(k, x)| format!(
                    "{}: {}",
                    py_repr(&Value::String(k.clone())),
                    ordered_repr(x)
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The request body as WSME echoes it in `Invalid input` texts: Python's `repr` of the parsed
/// dict, keys in the client's order (`root` when the body cannot be read again).
fn echo(body: &[u8], root: &Value) -> String {
    serde_json::from_slice::<Ordered>(body)
        .map(|o| ordered_repr(&o))
        .unwrap_or_else(|_| py_repr(root))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    static INNER: Schema = Schema {
        fields: &[m("subnet_id", Kind::Uuid)],
        tenant_alias: false,
    };
    static T: Schema = Schema {
        fields: &[
            f("name", s(255)),
            m("protocol_port", int(Some(1), Some(65535))),
            f("admin_state_up", Kind::Bool),
            f("vip_subnet_id", Kind::Uuid),
            f("protocol", Kind::Enum(&["TCP", "UDP"])),
            f("extra", Kind::ObjectList(&INNER)),
            f("cidrs", Kind::List(&Kind::Cidr)),
            f("project_id", s(36)),
        ],
        tenant_alias: true,
    };

    // String on purpose: these tests compare the fault texts the client reads.
    fn p(body: Value) -> Result<Obj, String> {
        parse_body(body.to_string().as_bytes(), "listener_", "listener", &T)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn unknown_attributes_name_the_argument_path() {
        assert_eq!(
            p(json!({"listener": {"protocol_port": 1, "foo": 1}})).unwrap_err(),
            "Unknown attribute for argument listener_.listener: foo"
        );
        assert_eq!(
            p(json!({"listener": {"protocol_port": 1, "b": 1, "a": 2}})).unwrap_err(),
            "Unknown attributes for argument listener_.listener: a, b"
        );
        assert_eq!(
            p(json!({"other": {}})).unwrap_err(),
            "Unknown attribute for argument listener_: other"
        );
        assert_eq!(
            p(json!({"listener": {"protocol_port": 1, "extra": [{"subnet_id": "x", "z": 1}]}}))
                .unwrap_err(),
            "Unknown attribute for argument listener_.listener.extra: z"
        );
    }

    #[test]
    fn echoed_bodies_keep_the_clients_key_order() {
        let body = br#"{"listener": {"protocol_port": "x", "name": "n", "admin_state_up": true}}"#;
        let e = parse_body(body, "listener_", "listener", &T).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Invalid input for field/attribute listener_. Value: '{'listener': {'protocol_port': 'x', 'name': 'n', 'admin_state_up': True}}'. invalid literal for int() with base 10: 'x'"
        );
    }

    #[test]
    fn coercion_failures_echo_the_body() {
        assert_eq!(
            p(json!({"listener": {"protocol_port": "eighty"}})).unwrap_err(),
            "Invalid input for field/attribute listener_. Value: '{'listener': {'protocol_port': 'eighty'}}'. invalid literal for int() with base 10: 'eighty'"
        );
        assert_eq!(
            p(json!({"listener": {"protocol_port": 1, "admin_state_up": "maybe"}})).unwrap_err(),
            "Invalid input for field/attribute listener_. Value: '{'listener': {'admin_state_up': 'maybe', 'protocol_port': 1}}'. Value not an unambiguous boolean: maybe"
        );
    }

    #[test]
    fn field_failures_name_the_field() {
        assert_eq!(
            p(json!({"listener": {"protocol_port": 0}})).unwrap_err(),
            "Invalid input for field/attribute protocol_port. Value: '0'. Value should be greater or equal to 1"
        );
        assert_eq!(
            p(json!({"listener": {"protocol_port": 1, "vip_subnet_id": ""}})).unwrap_err(),
            "Invalid input for field/attribute vip_subnet_id. Value: ''. Value should be UUID format"
        );
        assert_eq!(
            p(json!({"listener": {}})).unwrap_err(),
            "Invalid input for field/attribute protocol_port. Value: 'None'. Mandatory field missing."
        );
        assert_eq!(
            p(json!({"listener": {"protocol_port": 1, "protocol": "X"}})).unwrap_err(),
            "Invalid input for field/attribute protocol. Value: 'X'. Value should be one of: TCP, UDP"
        );
        assert_eq!(
            p(json!({"listener": {"protocol_port": 1, "name": 5}})).unwrap_err(),
            "Invalid input for field/attribute name. Value: '5'. Value should be string"
        );
        assert_eq!(
            p(json!({})).unwrap_err(),
            "Invalid input for field/attribute listener. Value: 'None'. Mandatory field missing."
        );
        assert_eq!(
            parse_body(b"{", "a", "b", &T).unwrap_err().to_string(),
            "Request is not in valid JSON format"
        );
    }

    #[test]
    fn coercions_and_normalisation() {
        let o = p(
            json!({"listener": {"protocol_port": "80", "admin_state_up": "yes", "tenant_id": "p1",
            "vip_subnet_id": "6A0A707C45EF4758B533E55ADDDBA8CE", "cidrs": ["10.0.0.5/24"]}}),
        )
        .unwrap();
        let o = &o.0;
        assert_eq!(o["protocol_port"], json!(80));
        assert_eq!(o["admin_state_up"], json!(true));
        assert_eq!(o["project_id"], json!("p1"));
        assert_eq!(
            o["vip_subnet_id"],
            json!("6a0a707c-45ef-4758-b533-e55adddba8ce")
        );
        assert_eq!(o["cidrs"], json!(["10.0.0.0/24"]));
        assert!(!o.contains_key("name"));
    }
}
