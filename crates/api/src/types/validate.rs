//! WSME `validate_value` for one coerced value: ranges, lengths, enums, UUIDs, CIDRs, URLs
//! and patterns, failures naming the field (octavia/api/v2/types, octavia/common/validate.py).

use serde_json::Value;

use super::pattern;
use super::python::py_str;
use super::schema::{Kind, URL_COLUMN_MAX};

/// WSME `validate_value`: failures name the field and show `str(value)`.
#[allow(
    clippy::too_many_lines,
    reason = "a known exception of clippy.toml's bound"
)]
pub(super) fn validate(kind: &Kind, v: Value) -> Result<Value, (String, String)> {
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
        Kind::Bool => Ok(v),
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
