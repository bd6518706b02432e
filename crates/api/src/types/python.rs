//! JSON values as Python sees them, for WSME's texts: `repr()` / `str()` (how a fault echoes a
//! value) and WSME's `fromjson` coercions (`wsme/rest/json.py`: Python's `int()` and
//! `float()`), with the `ValueError`s they raise typed as [`Coercion`].

use serde_json::Value;

/// Why a WSME `fromjson` coercion failed. The parser answers it as Octavia does: 400
/// `Invalid input for field/attribute <argname>. Value: '<body>'. <this text>`, so each text
/// is byte for byte the `ValueError` / `TypeError` message the reference shows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum Coercion {
    /// `int()` of a string or a number that is no integer literal (a string with its Python
    /// `repr`, a number quoted); Python's `ValueError` text.
    #[error("invalid literal for int() with base 10: {0}")]
    IntLiteral(String),
    /// `int()` of a list or a dict (`list` / `dict`, Python's type name); Python's
    /// `TypeError` text.
    #[error("int() argument must be a string, a bytes-like object or a real number, not '{0}'")]
    IntArgument(&'static str),
    /// `float()` of a value that is no float literal (its Python `repr`); Python's
    /// `ValueError` text.
    #[error("could not convert string to float: {0}")]
    FloatLiteral(String),
    /// A boolean attribute given something other than WSME's true/false spellings (the value
    /// as Python `str()`s it); `wsme/rest/json.py` `fromjson(bool)`.
    #[error("Value not an unambiguous boolean: {0}")]
    NotBool(String),
    /// A list attribute given another type (Python `str()` of the value);
    /// `wsme/rest/json.py` `array_fromjson`.
    #[error("Value not a valid list: {0}")]
    NotList(String),
    /// A dict or complex-type attribute given another type (Python `str()` of the value);
    /// `wsme/rest/json.py` `dict_fromjson`.
    #[error("Value not a valid dict: {0}")]
    NotDict(String),
}

/// Python `int(value)` of a JSON value: booleans are 0/1, finite floats truncate, strings
/// are trimmed and may hold `_`, `null` is 0. Errors: [`Coercion::IntLiteral`],
/// [`Coercion::IntArgument`].
pub(super) fn py_int(v: &Value) -> Result<i64, Coercion> {
    match v {
        Value::Bool(b) => Ok(i64::from(*b)),
        Value::Number(n) => n
            .as_i64()
            .or_else(|| {
                n.as_f64()
                    .filter(|x| x.is_finite())
                    .map(|x| x.trunc() as i64)
            })
            .ok_or_else(|| Coercion::IntLiteral(format!("'{n}'"))),
        Value::String(st) => {
            let t = st.trim().replace('_', "");
            t.parse::<i64>()
                .map_err(|_| Coercion::IntLiteral(py_repr(v)))
        }
        Value::Array(_) => Err(Coercion::IntArgument("list")),
        Value::Object(_) => Err(Coercion::IntArgument("dict")),
        Value::Null => Ok(0),
    }
}

/// Python `float(value)` of a JSON value (booleans 1.0/0.0, strings trimmed), as a JSON
/// number. Errors: [`Coercion::FloatLiteral`] (also for a non-finite result, which JSON
/// cannot hold).
pub(super) fn py_float(v: &Value) -> Result<Value, Coercion> {
    let f = match v {
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        Value::Number(n) => n.as_f64(),
        Value::String(st) => st.trim().parse::<f64>().ok(),
        _ => None,
    };
    f.and_then(serde_json::Number::from_f64)
        .map(Value::Number)
        .ok_or_else(|| Coercion::FloatLiteral(py_repr(v)))
}

/// Python `repr()` of a JSON value (dicts as `{'k': 'v'}`, `True`, `None`).
pub fn py_repr(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => {
            if s.contains('\'') && !s.contains('"') {
                format!("\"{s}\"")
            } else {
                format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
            }
        }
        Value::Array(a) => format!("[{}]", a.iter().map(py_repr).collect::<Vec<_>>().join(", ")),
        Value::Object(o) => format!(
            "{{{}}}",
            o.iter()
                .map(|(k, v)| format!("{}: {}", py_repr(&Value::String(k.clone())), py_repr(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Python `str()` of a JSON value (strings raw, everything else as [`py_repr`]).
pub fn py_str(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => py_repr(other),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Each failure is its own variant and reads as Python's message.
    #[test]
    fn coercion_errors_are_typed_with_pythons_texts() {
        let cases = [
            (
                py_int(&json!("eighty")).unwrap_err(),
                Coercion::IntLiteral("'eighty'".into()),
                "invalid literal for int() with base 10: 'eighty'",
            ),
            (
                py_int(&json!([1])).unwrap_err(),
                Coercion::IntArgument("list"),
                "int() argument must be a string, a bytes-like object or a real number, not 'list'",
            ),
            (
                py_int(&json!({"a": 1})).unwrap_err(),
                Coercion::IntArgument("dict"),
                "int() argument must be a string, a bytes-like object or a real number, not 'dict'",
            ),
            (
                py_float(&json!("x")).unwrap_err(),
                Coercion::FloatLiteral("'x'".into()),
                "could not convert string to float: 'x'",
            ),
            (
                py_float(&json!([])).unwrap_err(),
                Coercion::FloatLiteral("[]".into()),
                "could not convert string to float: []",
            ),
        ];
        for (got, want, text) in cases {
            assert_eq!(got, want);
            assert_eq!(got.to_string(), text);
        }
        assert_eq!(
            Coercion::NotBool("maybe".into()).to_string(),
            "Value not an unambiguous boolean: maybe"
        );
        assert_eq!(
            Coercion::NotList("3".into()).to_string(),
            "Value not a valid list: 3"
        );
        assert_eq!(
            Coercion::NotDict("x".into()).to_string(),
            "Value not a valid dict: x"
        );
        assert_eq!(py_int(&json!(" 1_0 ")).unwrap(), 10);
        assert_eq!(py_float(&json!(true)).unwrap(), json!(1.0));
    }
}
