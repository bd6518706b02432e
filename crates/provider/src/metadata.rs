//! Provider metadata schemas (flavor and availability-zone keys) and their validation with
//! the texts Octavia gives.
//!
//! Octavia's drivers validate a flavor profile's `flavor_data` with `jsonschema` (draft 7)
//! against a fixed object schema and answer the best-matching error's message, prefixed with
//! the offending key (`octavia/api/drivers/amphora_driver/v2/driver.py` `validate_flavor`):
//! `Additional properties are not allowed ('x' was unexpected)`, `<key> <value> is not of
//! type '<type>'`, `<key> <value> is not one of [...]`, `<key> <value> has non-unique
//! elements`, values printed as Python's `repr`. jsonschema 4.26's `best_match` prefers the
//! shallowest error (an unknown key wins over a bad value, a bad array over a bad item),
//! then the greatest path (key name, then item index), then the schema's keyword order
//! (`type` before `enum`). [`check`] writes that out for the property kinds of [`Kind`] and
//! gives the same texts.

use serde_json::{Map, Value, json};

/// A property's JSON type in a schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `{"type": "string"}` (with [`Property::allowed`]: also `enum`).
    String,
    /// `{"type": "boolean"}`.
    Boolean,
    /// `{"type": "array"}`, any items.
    Array,
    /// `{"type": "array", "items": {"type": "string", "enum": [..]}, "uniqueItems": true}`:
    /// a set of the listed words.
    StringSet(&'static [&'static str]),
    /// `{"type": "array", "items": {"type": "string"}}`.
    StringList,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::String => "string",
            Kind::Boolean => "boolean",
            Kind::Array | Kind::StringSet(_) | Kind::StringList => "array",
        }
    }

    fn accepts(self, v: &Value) -> bool {
        match self {
            Kind::String => v.is_string(),
            Kind::Boolean => v.is_boolean(),
            Kind::Array | Kind::StringSet(_) | Kind::StringList => v.is_array(),
        }
    }
}

/// One schema property: key, type, allowed values (`enum`, strings only), description (the
/// text the flavor-capabilities API answers).
#[derive(Debug, Clone, Copy)]
pub struct Property {
    /// The metadata key.
    pub key: &'static str,
    /// Its JSON type.
    pub kind: Kind,
    /// The `enum` of a [`Kind::String`] property.
    pub allowed: Option<&'static [&'static str]>,
    /// What the key does (answered by the capabilities APIs).
    pub description: &'static str,
}

/// `{key: description}` of `props`: what a driver's `get_supported_flavor_metadata` /
/// `get_supported_availability_zone_metadata` answers.
pub fn descriptions(props: &[Property]) -> Value {
    Value::Object(
        props
            .iter()
            .map(|p| (p.key.to_string(), json!(p.description)))
            .collect(),
    )
}

/// The draft-07 JSON schema [`check`] applies: an object of `props`, nothing else allowed.
pub fn json_schema(title: &str, props: &[Property]) -> Value {
    let properties: Map<String, Value> = props
        .iter()
        .map(|p| {
            let mut s = json!({"type": p.kind.name(), "description": p.description});
            if let Some(a) = p.allowed {
                s["enum"] = json!(a);
            }
            match p.kind {
                Kind::StringSet(words) => {
                    s["items"] = json!({"type": "string", "enum": words});
                    s["uniqueItems"] = json!(true);
                }
                Kind::StringList => s["items"] = json!({"type": "string"}),
                _ => {}
            }
            (p.key.to_string(), s)
        })
        .collect();
    json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": title,
        "type": "object",
        "additionalProperties": false,
        "properties": properties,
    })
}

/// Validates `metadata` against the object schema of `props` ([`json_schema`]); `Err` is
/// the text Octavia answers (see the module docs).
pub fn check(metadata: &Value, props: &[Property]) -> Result<(), String> {
    let Some(obj) = metadata.as_object() else {
        return Err(format!("{} is not of type 'object'", py_repr(metadata)));
    };
    let mut extras: Vec<&String> = obj
        .keys()
        .filter(|k| !props.iter().any(|p| p.key == k.as_str()))
        .collect();
    if !extras.is_empty() {
        extras.sort();
        let verb = if extras.len() == 1 { "was" } else { "were" };
        let joined: Vec<String> = extras.iter().map(|k| py_str_repr(k)).collect();
        return Err(format!(
            "Additional properties are not allowed ({} {verb} unexpected)",
            joined.join(", ")
        ));
    }
    // (depth, key, item index, message): best_match's relevance
    let mut errors: Vec<(usize, &str, usize, String)> = Vec::new();
    for p in props {
        let Some(v) = obj.get(p.key) else { continue };
        if !p.kind.accepts(v) {
            errors.push((
                1,
                p.key,
                0,
                format!("{} is not of type '{}'", py_repr(v), p.kind.name()),
            ));
            continue;
        }
        if let Some(allowed) = p.allowed
            && !v.as_str().is_some_and(|s| allowed.contains(&s))
        {
            errors.push((1, p.key, 0, not_one_of(v, allowed)));
        }
        let items = v.as_array().map(Vec::as_slice).unwrap_or_default();
        match p.kind {
            Kind::StringSet(words) => {
                if items
                    .iter()
                    .enumerate()
                    .any(|(i, a)| items[..i].contains(a))
                {
                    errors.push((
                        1,
                        p.key,
                        0,
                        format!("{} has non-unique elements", py_repr(v)),
                    ));
                }
                for (i, item) in items.iter().enumerate() {
                    if !item.is_string() {
                        errors.push((2, p.key, i, not_string(item)));
                    } else if !item.as_str().is_some_and(|s| words.contains(&s)) {
                        errors.push((2, p.key, i, not_one_of(item, words)));
                    }
                }
            }
            Kind::StringList => {
                for (i, item) in items.iter().enumerate() {
                    if !item.is_string() {
                        errors.push((2, p.key, i, not_string(item)));
                    }
                }
            }
            _ => {}
        }
    }
    // one error per path at most: the shallowest, then the greatest path, wins
    let best = errors
        .into_iter()
        .max_by_key(|(depth, key, index, _)| (std::cmp::Reverse(*depth), *key, *index));
    match best {
        Some((_, key, _, msg)) => Err(format!("{key} {msg}")),
        None => Ok(()),
    }
}

fn not_string(v: &Value) -> String {
    format!("{} is not of type 'string'", py_repr(v))
}

fn not_one_of(v: &Value, allowed: &[&str]) -> String {
    let list: Vec<String> = allowed.iter().map(|a| py_str_repr(a)).collect();
    format!("{} is not one of [{}]", py_repr(v), list.join(", "))
}

/// Python's `repr` of a `str`.
pub fn py_str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Python's `repr` of a float (shortest round-trip digits, `1e+20` style exponents).
fn py_float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.into();
    }
    let exp = if f == 0.0 {
        0
    } else {
        f.abs().log10().floor() as i32
    };
    if (-4..16).contains(&exp) {
        let s = format!("{f}");
        if s.contains('.') { s } else { format!("{s}.0") }
    } else {
        let s = format!("{f:e}");
        match s.split_once('e') {
            Some((m, e)) => {
                let (sign, digits) = match e.strip_prefix('-') {
                    Some(d) => ('-', d),
                    None => ('+', e),
                };
                format!("{m}e{sign}{digits:0>2}")
            }
            None => s,
        }
    }
}

/// Python's `repr` of a JSON value as `json.loads` gives it.
pub fn py_repr(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => {
            if n.is_i64() || n.is_u64() {
                n.to_string()
            } else {
                n.as_f64().map_or_else(|| n.to_string(), py_float_repr)
            }
        }
        Value::String(s) => py_str_repr(s),
        Value::Array(a) => {
            let items: Vec<String> = a.iter().map(py_repr).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(o) => {
            let items: Vec<String> = o
                .iter()
                .map(|(k, v)| format!("{}: {}", py_str_repr(k), py_repr(v)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_reprs() {
        assert_eq!(py_repr(&json!(1.5)), "1.5");
        assert_eq!(py_repr(&json!(2.0)), "2.0");
        assert_eq!(py_repr(&json!(1e20)), "1e+20");
        assert_eq!(py_repr(&json!(1e-5)), "1e-05");
        assert_eq!(py_repr(&json!("it's")), "\"it's\"");
        assert_eq!(
            py_repr(&json!({"a": [1, null, true]})),
            "{'a': [1, None, True]}"
        );
    }
}
