//! The amphora's response objects, as octavia/api/v2/types/amphora.py `AmphoraResponse` and
//! `AmphoraStatisticsResponse` filled by `BaseType.from_db_obj` (octavia/api/common/types.py).
//!
//! `from_db_obj` sets each attribute through its WSME type and silently leaves out one whose
//! stored value the type refuses (`try_set_attr` swallows `InvalidInput`): a UUID attribute is
//! `str(uuid.UUID(value))` (lower case, hyphenated) or absent, an IP attribute is the stored
//! text when it is an IPv4 / IPv6 address or absent. NULL renders `null`; datetimes
//! `%Y-%m-%dT%H:%M:%S` (Python's `isoformat()` of a `DATETIME` without fractions).

use std::net::IpAddr;

use octavia_db::{AmphoraRow, AmphoraStatRow};
use serde_json::{Map, Value};

/// Attribute names of an amphora response (filters / sort keys / `fields=`), in
/// `AmphoraResponse`'s declaration order.
pub const AMPHORA_ATTRS: &[&str] = &[
    "id",
    "loadbalancer_id",
    "compute_id",
    "lb_network_ip",
    "vrrp_ip",
    "ha_ip",
    "vrrp_port_id",
    "ha_port_id",
    "cert_expiration",
    "cert_busy",
    "role",
    "status",
    "vrrp_interface",
    "vrrp_id",
    "vrrp_priority",
    "cached_zone",
    "created_at",
    "updated_at",
    "image_id",
    "compute_flavor",
];

/// WSME `UuidType.validate` (`str(uuid.UUID(value))`): `urn:` / `uuid:` dropped, braces
/// stripped from both ends, dashes removed; 32 hex digits give the lower-case hyphenated form,
/// anything else `None` (Python's `int(hex, 16)` also takes `_`, `0x`, `+` and spaces, which no
/// stored id has; those are refused here).
pub fn uuid_text(v: &str) -> Option<String> {
    let hex = v.replace("urn:", "").replace("uuid:", "");
    let hex: String = hex
        .trim_matches(|c| c == '{' || c == '}')
        .chars()
        .filter(|c| *c != '-')
        .collect();
    if hex.len() != 32 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let h = hex.to_ascii_lowercase();
    Some(format!(
        "{}-{}-{}-{}-{}",
        &h[..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..]
    ))
}

/// Octavia's `IPAddressType.validate` (WSME's IPv4 / IPv6 types, `netaddr` with `INET_PTON`):
/// the stored text when it is an address, else `None`.
fn ip_text(v: &str) -> Option<String> {
    v.parse::<IpAddr>().ok().map(|_| v.to_string())
}

fn dt(t: Option<chrono::NaiveDateTime>) -> Value {
    t.map_or(Value::Null, |t| {
        Value::String(t.format("%Y-%m-%dT%H:%M:%S").to_string())
    })
}

/// Sets `key` to `v` checked by `check`: NULL is `null`, a refused value leaves the key out.
fn checked(
    m: &mut Map<String, Value>,
    key: &str,
    v: &Option<String>,
    check: fn(&str) -> Option<String>,
) {
    match v {
        None => {
            m.insert(key.into(), Value::Null);
        }
        Some(s) => {
            if let Some(ok) = check(s) {
                m.insert(key.into(), Value::String(ok));
            }
        }
    }
}

fn text(v: &Option<String>) -> Value {
    v.clone().map_or(Value::Null, Value::String)
}

/// The `AmphoraResponse` of a row: the 20 attributes of [`AMPHORA_ATTRS`] (`loadbalancer_id`
/// is the `load_balancer_id` column), UUID and IP attributes as the module doc says.
pub fn render(a: &AmphoraRow) -> Value {
    let mut m = Map::new();
    checked(&mut m, "id", &Some(a.id.clone()), uuid_text);
    checked(&mut m, "loadbalancer_id", &a.load_balancer_id, uuid_text);
    checked(&mut m, "compute_id", &a.compute_id, uuid_text);
    checked(&mut m, "lb_network_ip", &a.lb_network_ip, ip_text);
    checked(&mut m, "vrrp_ip", &a.vrrp_ip, ip_text);
    checked(&mut m, "ha_ip", &a.ha_ip, ip_text);
    checked(&mut m, "vrrp_port_id", &a.vrrp_port_id, uuid_text);
    checked(&mut m, "ha_port_id", &a.ha_port_id, uuid_text);
    m.insert("cert_expiration".into(), dt(a.cert_expiration));
    m.insert("cert_busy".into(), Value::Bool(a.cert_busy));
    m.insert("role".into(), text(&a.role));
    m.insert("status".into(), Value::String(a.status.clone()));
    m.insert("vrrp_interface".into(), text(&a.vrrp_interface));
    m.insert("vrrp_id".into(), a.vrrp_id.map_or(Value::Null, Value::from));
    m.insert(
        "vrrp_priority".into(),
        a.vrrp_priority.map_or(Value::Null, Value::from),
    );
    m.insert("cached_zone".into(), text(&a.cached_zone));
    m.insert("created_at".into(), dt(a.created_at));
    m.insert("updated_at".into(), dt(a.updated_at));
    checked(&mut m, "image_id", &a.image_id, uuid_text);
    m.insert("compute_flavor".into(), text(&a.compute_flavor));
    Value::Object(m)
}

/// The `AmphoraStatisticsResponse` of one row (`id`, `listener_id`, `loadbalancer_id` as UUID
/// attributes).
pub fn render_stat(s: &AmphoraStatRow) -> Value {
    let mut m = Map::new();
    m.insert(
        "active_connections".into(),
        Value::from(s.active_connections),
    );
    m.insert("bytes_in".into(), Value::from(s.bytes_in));
    m.insert("bytes_out".into(), Value::from(s.bytes_out));
    checked(&mut m, "id", &Some(s.amphora_id.clone()), uuid_text);
    checked(
        &mut m,
        "listener_id",
        &Some(s.listener_id.clone()),
        uuid_text,
    );
    checked(&mut m, "loadbalancer_id", &s.load_balancer_id, uuid_text);
    m.insert("request_errors".into(), Value::from(s.request_errors));
    m.insert("total_connections".into(), Value::from(s.total_connections));
    Value::Object(m)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn uuids_as_python_uuid_shows_them() {
        let canon = "6a0a707c-45ef-4758-b533-e55adddba8ce";
        for v in [
            canon,
            "6A0A707C-45EF-4758-B533-E55ADDDBA8CE",
            "6a0a707c45ef4758b533e55adddba8ce",
            "{6a0a707c-45ef-4758-b533-e55adddba8ce}",
            "urn:uuid:6a0a707c-45ef-4758-b533-e55adddba8ce",
            "6a0a-707c45ef4758b533e55adddba8ce",
        ] {
            assert_eq!(uuid_text(v).as_deref(), Some(canon), "{v}");
        }
        for v in [
            "",
            "noop",
            "6a0a707c-45ef-4758-b533-e55adddba8c",
            "g".repeat(32).as_str(),
        ] {
            assert_eq!(uuid_text(v), None, "{v}");
        }
    }

    /// The reference's answer for this row, printed by octavia 19.0.0's own code in the stack
    /// venv: `json.dumps(wsme.rest.json.tojson(AmphoraResponse,
    /// AmphoraResponse.from_db_obj(models.Amphora(id=<upper-case id>, status="READY",
    /// compute_id="not-a-uuid", lb_network_ip="192.0.2.300", vrrp_ip="2001:db8::5",
    /// cert_busy=False))), sort_keys=True)`.
    #[test]
    fn refused_values_are_left_out_and_nulls_kept() {
        let a = AmphoraRow {
            id: "6A0A707C-45EF-4758-B533-000000000003".into(),
            compute_id: Some("not-a-uuid".into()),
            status: "READY".into(),
            lb_network_ip: Some("192.0.2.300".into()),
            vrrp_ip: Some("2001:db8::5".into()),
            ..AmphoraRow::default()
        };
        let reference = r#"{"cached_zone": null, "cert_busy": false, "cert_expiration": null, "compute_flavor": null, "created_at": null, "ha_ip": null, "ha_port_id": null, "id": "6a0a707c-45ef-4758-b533-000000000003", "image_id": null, "loadbalancer_id": null, "role": null, "status": "READY", "updated_at": null, "vrrp_id": null, "vrrp_interface": null, "vrrp_ip": "2001:db8::5", "vrrp_port_id": null, "vrrp_priority": null}"#;
        let want: Value = serde_json::from_str(reference).unwrap();
        assert_eq!(render(&a), want);
    }

    /// As above: `AmphoraStatisticsResponse(active_connections=5, bytes_in=10, bytes_out=20,
    /// id=…1, listener_id=…5, loadbalancer_id=None, request_errors=40, total_connections=30)`.
    #[test]
    fn a_stat_row_renders_as_the_reference() {
        let s = AmphoraStatRow {
            listener_id: "6a0a707c-45ef-4758-b533-000000000005".into(),
            amphora_id: "6a0a707c-45ef-4758-b533-000000000001".into(),
            active_connections: 5,
            bytes_in: 10,
            bytes_out: 20,
            request_errors: 40,
            total_connections: 30,
            load_balancer_id: None,
        };
        let reference = r#"{"active_connections": 5, "bytes_in": 10, "bytes_out": 20, "id": "6a0a707c-45ef-4758-b533-000000000001", "listener_id": "6a0a707c-45ef-4758-b533-000000000005", "loadbalancer_id": null, "request_errors": 40, "total_connections": 30}"#;
        let want: Value = serde_json::from_str(reference).unwrap();
        assert_eq!(render_stat(&s), want);
    }
}
