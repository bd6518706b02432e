//! The read-back check after a 2xx: what a GET of the object shows must be what the request
//! said, as Octavia renders it (WSME's coercions of `"12"` / `"true"`, lists as sets, `tenant_id`
//! as `project_id`), and the object's row must hold what the GET shows.

use serde_json::Value;

/// The object a 2xx write touched, to read back.
pub enum ReadBack {
    /// GET `path`, compare `[wrapper]` with `sent` (an object of the request body).
    Object {
        path: String,
        wrapper: String,
        sent: Value,
    },
    /// GET the members list `path`: each sent member's address and port must be listed.
    Members { path: String, sent: Vec<Value> },
    /// GET `path`: gone (404) or on its way (PENDING_DELETE / DELETED).
    Deleted { path: String },
}

/// The table and key column of a body's wrapper (`None`: not a stored object).
pub fn table_of(wrapper: &str) -> Option<(&'static str, &'static str)> {
    Some(match wrapper {
        "loadbalancer" => ("load_balancer", "id"),
        "listener" => ("listener", "id"),
        "pool" => ("pool", "id"),
        "member" => ("member", "id"),
        "healthmonitor" => ("health_monitor", "id"),
        "l7policy" => ("l7policy", "id"),
        "rule" => ("l7rule", "id"),
        "flavor" => ("flavor", "id"),
        "flavorprofile" => ("flavor_profile", "id"),
        "availability_zone" => ("availability_zone", "name"),
        "availability_zone_profile" => ("availability_zone_profile", "id"),
        "quota" => ("quotas", "project_id"),
        _ => return None,
    })
}

/// What to read back after `method path` answered 2xx with `answer`, the request body being
/// `sent` (the path is already filled in, query included).
pub fn read_back(
    method: &str,
    path: &str,
    sent: Option<&Value>,
    answer: &Value,
) -> Option<ReadBack> {
    let path = path.split('?').next().unwrap_or(path).to_string();
    if method == "DELETE" {
        return Some(ReadBack::Deleted { path });
    }
    let sent = sent?.as_object()?;
    let (wrapper, inner) = sent.iter().next()?;
    if wrapper == "members" {
        return Some(ReadBack::Members {
            path,
            sent: inner.as_array()?.clone(),
        });
    }
    table_of(wrapper)?;
    let path = if method == "POST" {
        let obj = answer.get(wrapper)?;
        let id = obj.get("id").or_else(|| obj.get("name"))?.as_str()?;
        format!("{path}/{}", super::cases::enc(id))
    } else {
        path
    };
    Some(ReadBack::Object {
        path,
        wrapper: wrapper.clone(),
        sent: inner.clone(),
    })
}

/// Keys whose sent value is a tree of children made along (a graph create), not an
/// attribute shown as sent.
const CHILDREN: &[&str] = &[
    "listeners",
    "pools",
    "members",
    "default_pool",
    "l7policies",
    "rules",
    "healthmonitor",
];

/// Python's `bool_from_string` as WSME applies it to a boolean attribute.
fn as_bool(s: &str) -> Option<bool> {
    match s.trim().to_lowercase().as_str() {
        "1" | "t" | "true" | "on" | "y" | "yes" => Some(true),
        "0" | "f" | "false" | "off" | "n" | "no" => Some(false),
        _ => None,
    }
}

/// A number as shown by an attribute that shows `b`: itself, or Python's `int()` of it when
/// the attribute is an integer (WSME's `IntegerType`: `1.5` → 1, `true` → 1).
fn num_same(a: f64, b: &serde_json::Number) -> bool {
    let Some(y) = b.as_f64() else { return false };
    a == y || (b.is_i64() || b.is_u64()) && a.trunc() == y
}

/// `sent` as shown: equal, or the same after WSME's coercion; lists compared as sets with
/// their `null` items dropped (an empty list may show as `null`); `{}` asks for nothing.
pub fn same(sent: &Value, shown: &Value) -> bool {
    match (sent, shown) {
        (a, b) if a == b => true,
        (Value::Number(a), Value::Number(b)) => a.as_f64().is_some_and(|x| num_same(x, b)),
        (Value::String(a), Value::Bool(b)) => as_bool(a) == Some(*b),
        (Value::Number(a), Value::Bool(b)) => a.as_f64().map(|x| x != 0.0) == Some(*b),
        (Value::Bool(a), Value::Number(b)) => num_same(if *a { 1.0 } else { 0.0 }, b),
        (Value::String(a), Value::Number(b)) => {
            a.trim().parse::<f64>().ok().is_some_and(|x| num_same(x, b))
        }
        (Value::Number(a), Value::String(b)) => b.parse::<f64>().ok() == a.as_f64(),
        // a UUID is shown as Python's `str(uuid.UUID(v))`: lower case
        (Value::String(a), Value::String(b)) => {
            a.len() == 36 && a.matches('-').count() == 4 && a.eq_ignore_ascii_case(b)
        }
        (Value::Array(a), shown) => {
            let a: Vec<&Value> = a.iter().filter(|x| !x.is_null()).collect();
            let empty = vec![];
            let b = match shown {
                Value::Array(b) => b,
                Value::Null => &empty,
                _ => return false,
            };
            a.iter().all(|x| b.iter().any(|y| same(x, y)))
                && b.iter().all(|y| a.iter().any(|x| same(x, y)))
        }
        (Value::Object(a), _) if a.is_empty() => true,
        (Value::Object(a), Value::Object(b)) => a
            .iter()
            .all(|(k, v)| v.is_null() || b.get(k).is_some_and(|w| same(v, w))),
        _ => false,
    }
}

/// Each attribute of `sent` (the object under `wrapper`) that `shown` does not show as sent
/// (`null`s, which ask for the default, and children trees are not compared; a child object's
/// `project_id` is its load balancer's, as Octavia's controllers set it).
/// `skip`: attributes the run's provider decides (the fake's VIP port ignores the request's).
pub fn mismatches(wrapper: &str, sent: &Value, shown: &Value, skip: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let Some(sent) = sent.as_object() else {
        return out;
    };
    let child = !matches!(wrapper, "loadbalancer" | "quota");
    for (k, v) in sent {
        if v.is_null() || CHILDREN.contains(&k.as_str()) || skip.contains(&k.as_str()) {
            continue;
        }
        // an empty reference clears it (octavia's listener.py PUT)
        if k.ends_with("_ref") && v == "" {
            continue;
        }
        if child && (k == "project_id" || k == "tenant_id") {
            continue;
        }
        let (key, v) = match k.as_str() {
            // the alias loses to project_id when both are given
            "tenant_id" if sent.get("project_id").is_some_and(|p| !p.is_null()) => continue,
            "tenant_id" => ("project_id", v),
            other => (other, v),
        };
        let Some(w) = shown.get(key) else { continue };
        let v = &normalised(key, v);
        // an L7 policy position past the end is the last one (octavia's l7policy.py)
        let num = |x: &Value| x.as_f64().or_else(|| x.as_str()?.trim().parse().ok());
        let clamped = key == "position" && num(w) <= num(v);
        if !same(v, w) && !clamped {
            out.push(format!("{key}: sent {}, shown {}", cut(v), cut(w)));
        }
    }
    out
}

/// Each attribute of `sent` that is a column of the row and whose column text (`~` for NULL,
/// as the runner reads rows) is not what `shown` shows.
pub fn row_mismatches(
    sent: &Value,
    shown: &Value,
    row: &std::collections::BTreeMap<String, String>,
) -> Vec<String> {
    let mut out = Vec::new();
    for (k, v) in sent.as_object().into_iter().flatten() {
        if v.is_null() {
            continue;
        }
        let (Some(col), Some(w)) = (row.get(k.as_str()), shown.get(k.as_str())) else {
            continue;
        };
        let ok = match w {
            Value::Null => col == "~" || col.is_empty(),
            Value::Bool(b) => col == if *b { "1" } else { "0" },
            Value::Number(n) => col.parse::<f64>().ok() == n.as_f64(),
            Value::String(s) => col == s || (s.is_empty() && col == "~"),
            _ => true,
        };
        if !ok {
            out.push(format!(
                "{k}: column {}, shown {}",
                cut(&Value::String(col.clone())),
                cut(w)
            ));
        }
    }
    out
}

fn cut(v: &Value) -> String {
    super::cases::short(&v.to_string())
}

/// `%XX` escapes decoded (a path segment as the server reads it).
pub fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match (
            b[i],
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What the API stores for a list attribute: CIDRs as network/prefix (octavia's
/// `validate.py` via `ipaddress.ip_network(strict=False)`), and no empty element in the lists
/// stored joined with `,` (`tls_versions`, `alpn_protocols`).
fn normalised(key: &str, v: &Value) -> Value {
    let Some(items) = v.as_array() else {
        return v.clone();
    };
    let out = items.iter().filter_map(|x| match (key, x.as_str()) {
        ("tls_versions" | "alpn_protocols", Some("")) => None,
        ("allowed_cidrs", Some(c)) => {
            Some(Value::String(network(c).unwrap_or_else(|| c.to_string())))
        }
        _ => Some(x.clone()),
    });
    Value::Array(out.collect())
}

/// `a.b.c.d/n` or `v6/n` with the host bits cleared.
fn network(cidr: &str) -> Option<String> {
    let (ip, n) = cidr.split_once('/')?;
    let n: u32 = n.parse().ok()?;
    match ip.parse::<std::net::IpAddr>().ok()? {
        std::net::IpAddr::V4(a) if n <= 32 => {
            let mask = u32::MAX.checked_shl(32 - n).unwrap_or(0);
            Some(format!(
                "{}/{n}",
                std::net::Ipv4Addr::from(u32::from(a) & mask)
            ))
        }
        std::net::IpAddr::V6(a) if n <= 128 => {
            let mask = u128::MAX.checked_shl(128 - n).unwrap_or(0);
            Some(format!(
                "{}/{n}",
                std::net::Ipv6Addr::from(u128::from(a) & mask)
            ))
        }
        _ => None,
    }
}
