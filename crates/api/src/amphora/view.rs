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

use crate::fault::ApiError;
use crate::view::{Dt, to_value, view_decl};

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

/// A stored value checked by `check` as `from_db_obj` sets it: NULL is `Some(None)` (`null`), a
/// refused value `None` (left out).
fn checked(v: Option<&str>, check: fn(&str) -> Option<String>) -> Option<Option<String>> {
    match v {
        None => Some(None),
        Some(s) => check(s).map(Some),
    }
}

/// Sets `key` to `v` checked by `check`: NULL is `null`, a refused value leaves the key out.
fn insert_checked(
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

view_decl! {
    /// An amphora response object, as octavia/api/v2/types/amphora.py `AmphoraResponse` filled
    /// by `from_db_obj` (UUID and IP attributes as the module doc says; `loadbalancer_id` is
    /// the `load_balancer_id` column); serialised in sorted key order.
    pub struct AmphoraView<'a>;
    /// The response object of `a`.
    pub fn new(a: &'a AmphoraRow);
    /// `AmphoraResponse`'s attribute names in its declaration order (filters, sort keys,
    /// `fields=`).
    pub const AMPHORA_ATTRS;
    /// `GET /v2/octavia/amphorae` in SQL (no tags). UUID and IP attributes compare as stored:
    /// the worker stores them in the form the response shows.
    pub static AMPHORA = { joins: &[], tags: false };
    fields {
        id: Option<Option<String>> = checked(Some(&a.id), uuid_text)
            => Val("`t`.`id`", Text); skip_none,
        loadbalancer_id: Option<Option<String>> = checked(a.load_balancer_id.as_deref(), uuid_text)
            => Val("`t`.`load_balancer_id`", Text); skip_none,
        compute_id: Option<Option<String>> = checked(a.compute_id.as_deref(), uuid_text)
            => Val("`t`.`compute_id`", Text); skip_none,
        lb_network_ip: Option<Option<String>> = checked(a.lb_network_ip.as_deref(), ip_text)
            => Val("`t`.`lb_network_ip`", Text); skip_none,
        vrrp_ip: Option<Option<String>> = checked(a.vrrp_ip.as_deref(), ip_text)
            => Val("`t`.`vrrp_ip`", Text); skip_none,
        ha_ip: Option<Option<String>> = checked(a.ha_ip.as_deref(), ip_text)
            => Val("`t`.`ha_ip`", Text); skip_none,
        vrrp_port_id: Option<Option<String>> = checked(a.vrrp_port_id.as_deref(), uuid_text)
            => Val("`t`.`vrrp_port_id`", Text); skip_none,
        ha_port_id: Option<Option<String>> = checked(a.ha_port_id.as_deref(), uuid_text)
            => Val("`t`.`ha_port_id`", Text); skip_none,
        cert_expiration: Dt = Dt(a.cert_expiration) => Val("`t`.`cert_expiration`", Time),
        cert_busy: bool = a.cert_busy => Val("`t`.`cert_busy`", Bool),
        role: Option<&'a str> = a.role.as_deref() => Val("`t`.`role`", Text),
        status: &'a str = &a.status => Val("`t`.`status`", Text),
        vrrp_interface: Option<&'a str> = a.vrrp_interface.as_deref()
            => Val("`t`.`vrrp_interface`", Text),
        vrrp_id: Option<i32> = a.vrrp_id => Val("`t`.`vrrp_id`", Int),
        vrrp_priority: Option<i32> = a.vrrp_priority => Val("`t`.`vrrp_priority`", Int),
        cached_zone: Option<&'a str> = a.cached_zone.as_deref() => Val("`t`.`cached_zone`", Text),
        created_at: Dt = Dt(a.created_at) => Val("`t`.`created_at`", Time),
        updated_at: Dt = Dt(a.updated_at) => Val("`t`.`updated_at`", Time),
        image_id: Option<Option<String>> = checked(a.image_id.as_deref(), uuid_text)
            => Val("`t`.`image_id`", Text); skip_none,
        compute_flavor: Option<&'a str> = a.compute_flavor.as_deref()
            => Val("`t`.`compute_flavor`", Text),
    }
}

/// The `AmphoraResponse` of a row (its `AmphoraView`) as a map.
pub fn render(a: &AmphoraRow) -> Value {
    to_value(&AmphoraView::new(a))
}

impl crate::list::Listed for AmphoraRow {
    const SPEC: &'static crate::listing::Spec = &AMPHORA;
    const ATTRS: &'static [&'static str] = AMPHORA_ATTRS;
    const COLLECTION: &'static str = "amphorae";
    const PATH: &'static str = "/v2/octavia/amphorae";
    const HIDDEN: crate::list::Hidden = crate::list::Hidden::StatusDeleted;
    async fn render(_: &mut octavia_db::Tx, rows: &[Self]) -> Result<Vec<Value>, ApiError> {
        Ok(rows.iter().map(render).collect())
    }
    fn id(&self) -> &str {
        &self.id
    }
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
    insert_checked(&mut m, "id", &Some(s.amphora_id.clone()), uuid_text);
    insert_checked(
        &mut m,
        "listener_id",
        &Some(s.listener_id.clone()),
        uuid_text,
    );
    insert_checked(&mut m, "loadbalancer_id", &s.load_balancer_id, uuid_text);
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
