//! JSON text exactly as Python's `json.dumps(obj)` writes it with its defaults, which is what
//! oslo_serialization's `jsonutils.dumps` (oslo.messaging's inner message) and kombu's
//! `kombu.utils.json.dumps` (the AMQP body) call: separators `", "` and `": "`,
//! `ensure_ascii=True` (every character outside space … `~` escaped as `\uXXXX`, lower-case
//! hex, astral characters as surrogate pairs; `"` `\` `\n` `\r` `\t` `\b` `\f` as short
//! escapes), floats as Python's `repr` (`1.0`, `1e+16`, `1.5e-07`), keys in the map's
//! iteration order (Python keeps insertion order; `serde_json::Map` iterates in key order
//! unless serde_json's `preserve_order` feature is on).

use serde_json::Value;

/// Appends `v`'s Python `json.dumps` text to `out`.
pub(crate) fn write_value(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                out.push_str(&i.to_string());
            } else if let Some(u) = n.as_u64() {
                out.push_str(&u.to_string());
            } else if let Some(f) = n.as_f64() {
                write_float(out, f);
            } else {
                out.push_str(&n.to_string());
            }
        }
        Value::String(s) => write_str(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_str(out, k);
                out.push_str(": ");
                write_value(out, item);
            }
            out.push('}');
        }
    }
}

/// A JSON string literal with `ensure_ascii=True` (`json.encoder.py_encode_basestring_ascii`).
pub(crate) fn write_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
        }
    }
    out.push('"');
}

/// Python's `float.__repr__` (the shortest digits that round-trip, as Rust's `{:e}`), laid out
/// as CPython's `format_float_short` with `'r'`: positional when the decimal exponent is in
/// -4 ..= 15, else `d.ddde±XX` with at least two exponent digits; a positional integer value
/// gets `.0`.
fn write_float(out: &mut String, f: f64) {
    // serde_json holds finite values only; Python would write these as below.
    if f.is_nan() {
        out.push_str("NaN");
        return;
    }
    if f.is_infinite() {
        out.push_str(if f > 0.0 { "Infinity" } else { "-Infinity" });
        return;
    }
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if f.is_sign_negative() {
        out.push('-');
    }
    if (-4..16).contains(&exp) {
        let n = digits.len() as i32;
        if exp < 0 {
            out.push_str("0.");
            for _ in 0..(-exp - 1) {
                out.push('0');
            }
            out.push_str(&digits);
        } else if exp + 1 >= n {
            out.push_str(&digits);
            for _ in 0..(exp + 1 - n) {
                out.push('0');
            }
            out.push_str(".0");
        } else {
            let split = (exp + 1) as usize;
            out.push_str(&digits[..split]);
            out.push('.');
            out.push_str(&digits[split..]);
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", exp.abs()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn float(f: f64) -> String {
        let mut s = String::new();
        write_float(&mut s, f);
        s
    }

    #[test]
    fn floats_as_python_repr() {
        for (f, py) in [
            (1.0, "1.0"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.5, "1.5"),
            (0.1, "0.1"),
            (123456.789, "123456.789"),
            (1e16, "1e+16"),
            (1.5e-7, "1.5e-07"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1e15, "1000000000000000.0"),
            (-2.5e100, "-2.5e+100"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
        ] {
            assert_eq!(float(f), py, "{f:e}");
        }
    }

    #[test]
    fn strings_ensure_ascii() {
        let mut s = String::new();
        write_str(&mut s, "a\"b\\c\n\u{7f}é😀\u{1}/");
        assert_eq!(s, r#""a\"b\\c\n\u007f\u00e9\ud83d\ude00\u0001/""#);
    }
}
