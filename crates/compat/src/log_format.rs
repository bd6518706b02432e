//! Python `%`-style log format strings (`logging.PercentStyle`), as oslo.log's
//! `logging_context_format_string` & co. and a fileConfig `[formatter_*] format` write them:
//! `%(name)s`, `%(msecs)03d`, `%(levelname)-8s`, `%(created).3f`, `%%`.
//!
//! Parsed once at start-up (an unknown `%(key)` or a bad conversion is refused there, as
//! Python would fail on every record), rendered per log line from a lookup of the record's
//! attributes.
//!
//! ```
//! use compat::log_format::{Format, Value};
//!
//! let known = |k: &str| ["levelname", "name", "message"].contains(&k);
//! let f = Format::parse("%(levelname)-8s %(name)s: %(message)s (100%%)", known)?;
//! let line = f.render(&|k| match k {
//!     "levelname" => Some(Value::Str("INFO".into())),
//!     "name" => Some(Value::Str("keel".into())),
//!     "message" => Some(Value::Str("started".into())),
//!     _ => None,
//! });
//! assert_eq!(line, "INFO     keel: started (100%)");
//! // an attribute the record does not have is refused when parsed, not on every line
//! assert!(Format::parse("%(nonesuch)s", known).is_err());
//! # Ok::<(), String>(())
//! ```

/// One conversion: `%(key)<flags><width>.<precision><conv>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conversion {
    /// The record attribute, e.g. `request_id`.
    pub key: String,
    /// `-` flag: pad on the right.
    pub left: bool,
    /// `0` flag: pad numbers with zeros.
    pub zero: bool,
    /// Minimum width (0: none).
    pub width: usize,
    /// `.N` precision (floats: decimals; strings: truncation).
    pub precision: Option<usize>,
    /// `s`, `r`, `a`, `d`, `i`, `u`, `f`, `F`, `e`, `g`, `x`, `o`.
    pub conv: char,
}

/// A part of a parsed format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Text as written (`%%` already folded to `%`).
    Lit(String),
    /// A record attribute.
    Field(Conversion),
}

/// A parsed format string.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Format(pub Vec<Part>);

/// A record attribute's value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Text.
    Str(String),
    /// A whole number.
    Int(i64),
    /// A number with a fraction (`created`, `relativeCreated`).
    Float(f64),
}

impl Format {
    /// Parses `text`; every key must satisfy `known`. Errors: a text saying what is wrong
    /// (`unknown key %(foo)s`, `unsupported conversion %q`), for the caller to name the option.
    pub fn parse(text: &str, known: impl Fn(&str) -> bool) -> Result<Format, String> {
        let mut parts = Vec::new();
        let mut lit = String::new();
        let mut it = text.char_indices().peekable();
        while let Some((i, c)) = it.next() {
            if c != '%' {
                lit.push(c);
                continue;
            }
            match it.peek().map(|(_, c)| *c) {
                Some('%') => {
                    it.next();
                    lit.push('%');
                }
                Some('(') => {
                    it.next();
                    let mut key = String::new();
                    loop {
                        match it.next() {
                            Some((_, ')')) => break,
                            Some((_, k)) => key.push(k),
                            None => return Err(format!("unclosed %( at offset {i}")),
                        }
                    }
                    let mut conv = Conversion {
                        key,
                        left: false,
                        zero: false,
                        width: 0,
                        precision: None,
                        conv: 's',
                    };
                    while let Some((_, f)) = it.peek().copied() {
                        match f {
                            '-' => conv.left = true,
                            '0' => conv.zero = true,
                            ' ' | '+' | '#' => {}
                            _ => break,
                        }
                        it.next();
                    }
                    let digits = |it: &mut std::iter::Peekable<std::str::CharIndices<'_>>| {
                        let mut n: Option<usize> = None;
                        while let Some((_, d)) =
                            it.peek().copied().filter(|(_, d)| d.is_ascii_digit())
                        {
                            n = Some(n.unwrap_or(0) * 10 + (d as usize - '0' as usize));
                            it.next();
                        }
                        n
                    };
                    conv.width = digits(&mut it).unwrap_or(0);
                    if it.peek().map(|(_, c)| *c) == Some('.') {
                        it.next();
                        conv.precision = Some(digits(&mut it).unwrap_or(0));
                    }
                    match it.next() {
                        Some((_, c)) if "sradiufFeEgGxXo".contains(c) => conv.conv = c,
                        Some((_, c)) => {
                            return Err(format!("unsupported conversion %({}){c}", conv.key));
                        }
                        None => return Err(format!("%({}) without a conversion", conv.key)),
                    }
                    if !known(&conv.key) {
                        return Err(format!(
                            "unknown key %({})s (not a LogRecord attribute, an oslo.log field or one of Keel's)",
                            conv.key
                        ));
                    }
                    if !lit.is_empty() {
                        parts.push(Part::Lit(std::mem::take(&mut lit)));
                    }
                    parts.push(Part::Field(conv));
                }
                _ => {
                    return Err(format!(
                        "a % at offset {i} is neither %% nor %(key)s (Python would fail)"
                    ));
                }
            }
        }
        if !lit.is_empty() {
            parts.push(Part::Lit(lit));
        }
        Ok(Format(parts))
    }

    /// The line for a record whose attributes `get` gives (`None`: the empty string, as
    /// oslo.log defaults its own fields to `''`).
    pub fn render(&self, get: &dyn Fn(&str) -> Option<Value>) -> String {
        let mut out = String::new();
        for p in &self.0 {
            match p {
                Part::Lit(s) => out.push_str(s),
                Part::Field(c) => {
                    let v = get(&c.key).unwrap_or(Value::Str(String::new()));
                    out.push_str(&convert(c, &v));
                }
            }
        }
        out
    }
}

fn pad(c: &Conversion, s: String, numeric: bool) -> String {
    let n = s.chars().count();
    if n >= c.width {
        return s;
    }
    let fill = c.width - n;
    if c.left {
        format!("{s}{}", " ".repeat(fill))
    } else if c.zero && numeric {
        match s.strip_prefix('-') {
            Some(rest) => format!("-{}{rest}", "0".repeat(fill)),
            None => format!("{}{s}", "0".repeat(fill)),
        }
    } else {
        format!("{}{s}", " ".repeat(fill))
    }
}

fn convert(c: &Conversion, v: &Value) -> String {
    let as_f = |v: &Value| match v {
        Value::Int(i) => *i as f64,
        Value::Float(f) => *f,
        Value::Str(s) => s.parse().unwrap_or(0.0),
    };
    match c.conv {
        'd' | 'i' | 'u' => {
            let n = match v {
                Value::Int(i) => *i,
                Value::Float(f) => f.trunc() as i64,
                Value::Str(s) => match s.parse::<i64>() {
                    Ok(n) => n,
                    Err(_) => return pad(c, s.clone(), false),
                },
            };
            pad(c, n.to_string(), true)
        }
        'x' | 'X' | 'o' => {
            let n = as_f(v) as i64;
            let s = match c.conv {
                'x' => format!("{n:x}"),
                'X' => format!("{n:X}"),
                _ => format!("{n:o}"),
            };
            pad(c, s, true)
        }
        'f' | 'F' | 'e' | 'E' | 'g' | 'G' => {
            let p = c.precision.unwrap_or(6);
            let x = as_f(v);
            let s = match c.conv {
                'e' | 'E' => format!("{x:.p$e}"),
                _ => format!("{x:.p$}"),
            };
            pad(c, s, true)
        }
        _ => {
            let s = match v {
                Value::Str(s) => s.clone(),
                Value::Int(i) => i.to_string(),
                Value::Float(f) => f.to_string(),
            };
            let s = if c.conv == 'r' || c.conv == 'a' {
                format!("'{s}'")
            } else {
                s
            };
            let s = match c.precision {
                Some(p) => s.chars().take(p).collect(),
                None => s,
            };
            pad(c, s, false)
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn oslo_default_context_format_renders_as_python() {
        let f = Format::parse(
            "%(asctime)s.%(msecs)03d %(process)d %(levelname)s %(name)s [%(global_request_id)s %(request_id)s %(user_identity)s] %(instance)s%(message)s",
            |_| true,
        )
        .unwrap();
        let line = f.render(&|k| {
            Some(match k {
                "asctime" => Value::Str("2026-12-02 10:00:00".into()),
                "msecs" => Value::Int(7),
                "process" => Value::Int(42),
                "levelname" => Value::Str("INFO".into()),
                "name" => Value::Str("api".into()),
                "global_request_id" => Value::Str("None".into()),
                "request_id" => Value::Str("req-1".into()),
                "user_identity" => Value::Str("u p - - - -".into()),
                "message" => Value::Str("hello".into()),
                _ => return None,
            })
        });
        assert_eq!(
            line,
            "2026-12-02 10:00:00.007 42 INFO api [None req-1 u p - - - -] hello"
        );
        let f = Format::parse("%(levelname)-8s|%(created).3f|%%|%(lineno)5d", |_| true).unwrap();
        let line = f.render(&|k| {
            Some(match k {
                "levelname" => Value::Str("INFO".into()),
                "created" => Value::Float(1.23456),
                "lineno" => Value::Int(12),
                _ => return None,
            })
        });
        assert_eq!(line, "INFO    |1.235|%|   12");
    }

    #[test]
    fn bad_formats_are_refused() {
        for bad in ["%(a)q", "%(a", "50%", "%(a)"] {
            assert!(Format::parse(bad, |_| true).is_err(), "{bad}");
        }
        let e = Format::parse("%(nope)s", |k| k != "nope").unwrap_err();
        assert!(e.contains("unknown key %(nope)s"), "{e}");
    }
}
