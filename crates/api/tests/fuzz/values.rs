//! The hostile values, by the type a schema gives a field or a query parameter.
//!
//! Each value is raw JSON text (or raw query text), not a `serde_json::Value`, so that what
//! JSON cannot carry as a `Value` is tried too: a lone surrogate, `NaN`, `1e400`, a key named
//! twice, nesting deeper than any parser's limit.

use serde_json::Value;

/// One hostile value: a short label (the class, for the coverage count) and its raw JSON.
#[derive(Clone, Debug)]
pub struct Hostile {
    pub label: String,
    pub raw: String,
}

fn h(label: impl Into<String>, raw: impl Into<String>) -> Hostile {
    Hostile {
        label: label.into(),
        raw: raw.into(),
    }
}

fn js(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

/// The schema's types, `null` left out (`"type": ["string", "null"]` → `["string"]`); an
/// `enum` or a `format` without a type counts as a string.
pub fn types_of(s: &Value) -> Vec<String> {
    let mut out: Vec<String> = match s.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(|t| t.as_str().map(String::from))
            .collect(),
        _ => vec![],
    };
    out.retain(|t| t != "null");
    if out.is_empty() && s.get("properties").is_some() {
        out.push("object".into());
    }
    if out.is_empty() && (s.get("enum").is_some() || s.get("format").is_some()) {
        out.push("string".into());
    }
    out
}

/// Nesting `depth` levels deep (arrays), as raw text.
pub fn nested(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

/// Every hostile value that applies to a field of schema `s` (already resolved), with `valid`
/// a value the field accepts (raw JSON) and `key` the field's name (for a key named twice).
pub fn for_field(s: &Value, key: &str, valid: &str) -> Vec<Hostile> {
    let types = types_of(s);
    let mut v = vec![
        h("null", "null"),
        h("dup-key", format!("{valid}, {}: true", js(key))),
        h("dup-key-null", format!("{valid}, {}: null", js(key))),
        h("nested-64", nested(64)),
        h("nested-obj", "{\"a\": {\"b\": [1, {\"c\": null}]}}"),
    ];
    let wrong_type = [
        ("integer", "wt-int", "7"),
        ("number", "wt-float", "1.5"),
        ("boolean", "wt-bool", "true"),
        ("string", "wt-string", "\"x\""),
        ("array", "wt-array", "[\"x\"]"),
        ("object", "wt-object", "{}"),
    ];
    for (t, label, raw) in wrong_type {
        // numbers are also integers' neighbours: 1.5 stays a wrong value for an integer
        let has = |x: &str| types.iter().any(|y| y == x);
        if !(has(t) || t == "integer" && has("number")) {
            v.push(h(label, raw));
        }
    }
    for t in &types {
        match t.as_str() {
            "integer" | "number" => v.extend(numbers(s, t == "integer")),
            "string" => v.extend(strings(s)),
            "boolean" => v.extend([
                h("bool-string", "\"true\""),
                h("bool-word", "\"yes\""),
                h("bool-1", "1"),
                h("bool-0", "0"),
            ]),
            "array" => v.extend(arrays(s)),
            "object" => v.extend([
                h("obj-empty", "{}"),
                h("obj-unknown-key", "{\"zz-unknown\": 1}"),
                h("obj-null-key-value", "{\"a\": null}"),
                h(
                    "obj-deep",
                    format!("{}1{}", "{\"a\":".repeat(200), "}".repeat(200)),
                ),
            ]),
            _ => {}
        }
    }
    v
}

fn numbers(s: &Value, integer: bool) -> Vec<Hostile> {
    let mut v = vec![
        h("1e308", "1e308"),
        h("-1e308", "-1e308"),
        h("1e400", "1e400"),
        h("2^63", "9223372036854775808"),
        h("-2^63-1", "-9223372036854775809"),
        h("2^64", "18446744073709551616"),
        h("2^31", "2147483648"),
        h("2^32", "4294967296"),
        h("-1", "-1"),
        h("0", "0"),
        h("-0", "-0"),
        h("big-int", "123456789012345678901234567890"),
        h("NaN-string", "\"NaN\""),
        h("Infinity-string", "\"Infinity\""),
        h("-Infinity-string", "\"-Infinity\""),
        h("NaN-bare", "NaN"),
        h("num-string", "\"12\""),
        h("num-string-float", "\"1e308\""),
        h("num-string-junk", "\"12abc\""),
    ];
    if integer {
        v.push(h("float", "1.5"));
        v.push(h("float-whole", "5.0"));
    }
    for (bound, past) in [("minimum", -1.0), ("maximum", 1.0)] {
        if let Some(b) = s.get(bound).and_then(Value::as_f64) {
            let fmt = |x: f64| {
                if integer || x.fract() == 0.0 {
                    format!("{}", x as i128)
                } else {
                    format!("{x}")
                }
            };
            v.push(h(format!("at-{bound}"), fmt(b)));
            v.push(h(format!("past-{bound}"), fmt(b + past)));
        }
    }
    v
}

fn strings(s: &Value) -> Vec<Hostile> {
    let mut v = vec![
        h("empty", "\"\""),
        h("space", "\" \""),
        h("huge-10000", js(&"x".repeat(10_000))),
        h("unicode-256", js(&"é".repeat(256))),
        h("emoji-64", js(&"😀".repeat(64))),
        h("nul", "\"nul\\u0000byte\""),
        h("control", "\"\\u0001\\u001f\\u007f\\t\\n\\r\""),
        h("lone-surrogate", "\"\\ud800\""),
        h("bidi", "\"\\u202eevil\""),
        h("sql-quote", "\"x' OR '1'='1\""),
        h("percent", "\"%00%s%n\""),
        h("NaN-text", "\"NaN\""),
        h("uuid-like-bad", "\"9b8a1c5e-0000-4000-8000-00000000000g\""),
    ];
    if let Some(n) = s.get("maxLength").and_then(Value::as_u64) {
        let n = n as usize;
        v.push(h("at-maxLength", js(&"a".repeat(n))));
        v.push(h("past-maxLength", js(&"a".repeat(n + 1))));
        v.push(h("unicode-at-maxLength", js(&"é".repeat(n))));
        v.push(h("unicode-past-maxLength", js(&"é".repeat(n + 1))));
    }
    if let Some(e) = s.get("enum").and_then(Value::as_array) {
        if let Some(first) = e.iter().find_map(Value::as_str) {
            v.push(h("enum-lower", js(&first.to_lowercase())));
            v.push(h("enum-padded", js(&format!(" {first} "))));
        }
        v.push(h("enum-unknown", "\"NOT_A_CHOICE\""));
    }
    match s.get("format").and_then(Value::as_str) {
        Some("uuid") => v.extend([
            h("uuid-unknown", "\"9b8a1c5e-0000-4000-8000-000000000000\""),
            h("uuid-upper", "\"9B8A1C5E-0000-4000-8000-000000000000\""),
            h("uuid-nil", "\"00000000-0000-0000-0000-000000000000\""),
            h("uuid-short", "\"9b8a1c5e\""),
        ]),
        Some("ipv4") | Some("ipv6") | Some("ip") => v.extend([
            h("ip-bad-octet", "\"10.0.0.256\""),
            h("ip-cidr", "\"10.0.0.1/24\""),
            h("ip-v6-zone", "\"fe80::1%eth0\""),
            h("ip-mapped", "\"::ffff:10.0.0.5\""),
        ]),
        Some("cidr") => v.extend([
            h("cidr-33", "\"10.0.0.0/33\""),
            h("cidr-host-bits", "\"10.0.0.1/24\""),
            h("cidr-v6-129", "\"::/129\""),
        ]),
        Some("uri") => v.extend([
            h("uri-no-scheme", "\"example.com/x\""),
            h("uri-javascript", "\"javascript:alert(1)\""),
            h("uri-huge", js(&format!("http://e.com/{}", "p".repeat(300)))),
        ]),
        _ => {}
    }
    v
}

fn arrays(s: &Value) -> Vec<Hostile> {
    let mut v = vec![
        h("arr-empty", "[]"),
        h("arr-null-item", "[null]"),
        h("arr-wrong-item", "[{\"a\": 1}]"),
        h("arr-int-item", "[1]"),
        h(
            "arr-10000",
            format!("[{}]", vec!["\"x\""; 10_000].join(",")),
        ),
        h("arr-dup", "[\"a\", \"a\"]"),
    ];
    if s.get("items").and_then(|i| i.get("$ref")).is_some() {
        v.push(h("arr-10-objects", format!("[{}]", ["{}"; 10].join(","))));
    }
    v
}

/// Hostile values of a query parameter of schema `s` (raw, before percent-encoding).
pub fn for_query(s: &Value) -> Vec<Hostile> {
    let mut v = vec![
        h("q-empty", ""),
        h("q-huge", "x".repeat(10_000)),
        h("q-unicode", "é😀"),
        h("q-nul", "\u{0}"),
        h("q-control", "\u{1}\u{1f}\n"),
        h("q-quote", "x' OR '1'='1"),
        h("q-sort-like", "name:sideways,id:up"),
        h("q-uuid-unknown", "9b8a1c5e-0000-4000-8000-000000000000"),
        h("q-NaN", "NaN"),
        h("q-Infinity", "Infinity"),
    ];
    let types = types_of(s);
    if types.iter().any(|t| t == "integer" || t == "number") {
        v.extend([
            h("q-minus-1", "-1"),
            h("q-0", "0"),
            h("q-1e308", "1e308"),
            h("q-2^64", "18446744073709551616"),
            h("q-float", "1.5"),
        ]);
    }
    if let Some(e) = s.get("enum").and_then(Value::as_array) {
        if let Some(first) = e.iter().find_map(Value::as_str) {
            v.push(h("q-enum-lower", first.to_lowercase()));
        }
        v.push(h("q-enum-unknown", "NOT_A_CHOICE"));
    }
    v
}

/// Path ids: no UUID, a NUL, very long, a traversal, an unknown UUID, unicode (already
/// percent-encoded: they are sent as written).
pub fn hostile_ids() -> Vec<(&'static str, String)> {
    vec![
        ("id-not-uuid", "not-a-uuid".into()),
        ("id-nul", "%00".into()),
        ("id-traversal", "..%2F..%2Fv2".into()),
        (
            "id-unknown-uuid",
            "9b8a1c5e-0000-4000-8000-000000000000".into(),
        ),
        ("id-unicode", "%C3%A9%F0%9F%98%80".into()),
        ("id-huge", "x".repeat(5_000)),
        (
            "id-uuid-upper",
            "9B8A1C5E-0000-4000-8000-000000000000".into(),
        ),
    ]
}

/// Bodies of the wrong kind for any write: (label, raw text, content type).
pub fn malformed_bodies(wrapper: &str) -> Vec<(String, String, &'static str)> {
    let w = js(wrapper);
    let mut v = vec![
        ("no-json", "{".to_string(), "application/json"),
        ("empty-body", String::new(), "application/json"),
        ("json-array", "[]".into(), "application/json"),
        ("json-string", "\"x\"".into(), "application/json"),
        ("unknown-wrapper", "{\"x\": 1}".into(), "application/json"),
        ("text-plain", "{}".into(), "text/plain"),
        ("xml", "<a/>".into(), "application/xml"),
        ("nested-10000", nested(10_000), "application/json"),
        ("bare-NaN", format!("{{{w}: NaN}}"), "application/json"),
        (
            "trailing-junk",
            format!("{{{w}: {{}}}} x"),
            "application/json",
        ),
        ("bom", format!("\u{feff}{{{w}: {{}}}}"), "application/json"),
    ];
    if !wrapper.is_empty() {
        v.extend([
            ("wrapper-null", format!("{{{w}: null}}"), "application/json"),
            ("wrapper-list", format!("{{{w}: []}}"), "application/json"),
            (
                "wrapper-string",
                format!("{{{w}: \"x\"}}"),
                "application/json",
            ),
            (
                "wrapper-twice",
                format!("{{{w}: {{}}, {w}: {{}}}}"),
                "application/json",
            ),
            (
                "wrapper-and-unknown",
                format!("{{{w}: {{}}, \"zz\": 1}}"),
                "application/json",
            ),
            (
                "inner-unknown-key",
                format!("{{{w}: {{\"zz-unknown\": 1}}}}"),
                "application/json",
            ),
        ]);
    }
    v.into_iter()
        .map(|(l, b, c)| (l.to_string(), b, c))
        .collect()
}
