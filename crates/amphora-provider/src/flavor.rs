//! Flavor and availability-zone metadata: the keys the amphora driver supports and their
//! validation, as octavia/api/drivers/amphora_driver/flavor_schema.py,
//! availability_zone_schema.py and v2/driver.py `validate_flavor` /
//! `validate_availability_zone`.
//!
//! The reference validates with `jsonschema` (draft 7) and answers its best-matching
//! error's message, prefixed with the offending key: `Additional properties are not allowed
//! ('x' was unexpected)`, `<key> <value> is not of type '<type>'`, `<key> <value> is not one
//! of [...]`, values printed as Python's `repr`. jsonschema 4.26's `best_match` prefers the
//! shallowest error (an unknown key wins), then among siblings the greatest key name, then
//! the schema's keyword order (`type` before `enum`). The check is written out here against
//! the two fixed schemas and gives the same texts.

use serde_json::{Map, Value, json};

/// A property's JSON type in the schemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    String,
    Boolean,
    Array,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::String => "string",
            Kind::Boolean => "boolean",
            Kind::Array => "array",
        }
    }

    fn accepts(self, v: &Value) -> bool {
        match self {
            Kind::String => v.is_string(),
            Kind::Boolean => v.is_boolean(),
            Kind::Array => v.is_array(),
        }
    }
}

/// One schema property: key, type, allowed values (`enum`), description.
struct Property {
    key: &'static str,
    kind: Kind,
    allowed: Option<&'static [&'static str]>,
    description: &'static str,
}

/// `SUPPORTED_LB_TOPOLOGIES`, in the order the reference's enum lists them.
const TOPOLOGIES: &[&str] = &["ACTIVE_STANDBY", "SINGLE"];

/// flavor_schema.py `SUPPORTED_FLAVOR_SCHEMA`'s properties.
const FLAVOR: &[Property] = &[
    Property {
        key: "loadbalancer_topology",
        kind: Kind::String,
        allowed: Some(TOPOLOGIES),
        description: "The load balancer topology. One of: SINGLE - One amphora per load \
                      balancer. ACTIVE_STANDBY - Two amphora per load balancer.",
    },
    Property {
        key: "compute_flavor",
        kind: Kind::String,
        allowed: None,
        description: "The compute driver flavor ID.",
    },
    Property {
        key: "amp_image_tag",
        kind: Kind::String,
        allowed: None,
        description: "The amphora image tag.",
    },
    Property {
        key: "sriov_vip",
        kind: Kind::Boolean,
        allowed: None,
        description: "When true, the VIP port will be created using an SR-IOV VF port.",
    },
    Property {
        key: "allow_member_sriov",
        kind: Kind::Boolean,
        allowed: None,
        description: "When true, users can request a member port be SR-IOV enabled at \
                      member creation time.",
    },
];

/// availability_zone_schema.py `SUPPORTED_AVAILABILITY_ZONE_SCHEMA`'s properties.
const AVAILABILITY_ZONE: &[Property] = &[
    Property {
        key: "compute_zone",
        kind: Kind::String,
        allowed: None,
        description: "The compute availability zone.",
    },
    Property {
        key: "volume_zone",
        kind: Kind::String,
        allowed: None,
        description: "The volume availability zone.",
    },
    Property {
        key: "management_network",
        kind: Kind::String,
        allowed: None,
        description: "The management network ID for the amphora.",
    },
    Property {
        key: "valid_vip_networks",
        kind: Kind::Array,
        allowed: None,
        description: "List of network IDs that are allowed for VIP use. This \
                      overrides/replaces the list of allowed networks configured in \
                      `octavia.conf`.",
    },
];

fn descriptions(props: &[Property]) -> Value {
    Value::Object(
        props
            .iter()
            .map(|p| (p.key.to_string(), json!(p.description)))
            .collect(),
    )
}

/// `get_supported_flavor_metadata`: `{key: description}` for the five flavor keys.
pub fn supported_flavor_metadata() -> Value {
    descriptions(FLAVOR)
}

/// `get_supported_availability_zone_metadata`: `{key: description}` for the four AZ keys.
pub fn supported_availability_zone_metadata() -> Value {
    descriptions(AVAILABILITY_ZONE)
}

/// Validates `metadata` against the flavor schema; `Err` is the reference's user text.
pub fn check_flavor(metadata: &Value) -> Result<(), String> {
    check(metadata, FLAVOR)
}

/// Validates `metadata` against the availability-zone schema; `Err` is the user text.
pub fn check_availability_zone(metadata: &Value) -> Result<(), String> {
    check(metadata, AVAILABILITY_ZONE)
}

fn check(metadata: &Value, props: &[Property]) -> Result<(), String> {
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
    let mut errors: Vec<(&str, String)> = Vec::new();
    for p in props {
        let Some(v) = obj.get(p.key) else { continue };
        if !p.kind.accepts(v) {
            errors.push((
                p.key,
                format!("{} is not of type '{}'", py_repr(v), p.kind.name()),
            ));
        } else if let Some(allowed) = p.allowed
            && !v.as_str().is_some_and(|s| allowed.contains(&s))
        {
            let list: Vec<String> = allowed.iter().map(|a| py_str_repr(a)).collect();
            errors.push((
                p.key,
                format!("{} is not one of [{}]", py_repr(v), list.join(", ")),
            ));
        }
    }
    // the greatest key among sibling errors wins (jsonschema's relevance compares paths)
    match errors.into_iter().max_by(|a, b| a.0.cmp(b.0)) {
        Some((key, msg)) => Err(format!("{key} {msg}")),
        None => Ok(()),
    }
}

/// Python's `repr` of a `str`.
fn py_str_repr(s: &str) -> String {
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
pub(crate) fn py_repr(v: &Value) -> String {
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

/// The networks an AZ names for the reference's `get_network` checks: every
/// `valid_vip_networks` entry then `management_network` (non-strings printed as Python).
pub fn az_networks(metadata: &Map<String, Value>) -> Vec<String> {
    let as_id = |v: &Value| v.as_str().map_or_else(|| py_repr(v), str::to_string);
    let mut nets: Vec<String> = metadata
        .get("valid_vip_networks")
        .and_then(Value::as_array)
        .map(|a| a.iter().map(as_id).collect())
        .unwrap_or_default();
    if let Some(m) = metadata.get("management_network").filter(|m| {
        // the reference skips a falsy value
        !m.is_null() && m.as_str().is_none_or(|s| !s.is_empty())
    }) {
        nets.push(as_id(m));
    }
    nets
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
