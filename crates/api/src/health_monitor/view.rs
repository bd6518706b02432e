//! The health monitor's response object, as `octavia/api/v2/types/health_monitor.py`
//! `HealthMonitorResponse`.

use octavia_db::HealthMonitorRow;
use serde::Serialize;

use crate::view::{Dt, IdRef, or_empty};

/// A health monitor response object; fields in sorted key order (see [`crate::view`]).
#[derive(Serialize)]
pub struct HmView<'a> {
    admin_state_up: bool,
    created_at: Dt,
    delay: i32,
    domain_name: Option<&'a str>,
    expected_codes: Option<&'a str>,
    http_method: Option<&'a str>,
    http_version: Option<f64>,
    id: &'a str,
    max_retries: i32,
    max_retries_down: i32,
    name: &'a str,
    operating_status: &'a str,
    pools: [IdRef<'a>; 1],
    project_id: Option<&'a str>,
    provisioning_status: &'a str,
    tags: &'a [String],
    tenant_id: Option<&'a str>,
    timeout: i32,
    r#type: &'a str,
    updated_at: Dt,
    url_path: Option<&'a str>,
}

impl<'a> HmView<'a> {
    /// The response object of `h` with its tags (sorted): `""` for a NULL name, `max_retries`
    /// the rise and `max_retries_down` the fall threshold, `pools` its one pool, the
    /// single-precision `http_version` rounded to hundredths (`1.1`, not `1.100000023841858`).
    pub fn new(h: &'a HealthMonitorRow, tags: &'a [String]) -> Self {
        Self {
            admin_state_up: h.enabled,
            created_at: Dt(h.created_at),
            delay: h.delay,
            domain_name: h.domain_name.as_deref(),
            expected_codes: h.expected_codes.as_deref(),
            http_method: h.http_method.as_deref(),
            http_version: h
                .http_version
                .map(|v| (f64::from(v) * 100.0).round() / 100.0),
            id: &h.id,
            max_retries: h.rise_threshold,
            max_retries_down: h.fall_threshold,
            name: or_empty(&h.name),
            operating_status: h.operating_status.as_str(),
            pools: [IdRef { id: &h.pool_id }],
            project_id: h.project_id.as_deref(),
            provisioning_status: h.provisioning_status.as_str(),
            tags,
            tenant_id: h.project_id.as_deref(),
            timeout: h.timeout,
            r#type: &h.r#type,
            updated_at: Dt(h.updated_at),
            url_path: h.url_path.as_deref(),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::view::testing::{dt, name, same_as_map, t};
    use serde_json::{Value, json};

    /// The `json!` map this view replaced (`render_hm_with` before the view).
    fn old_map(h: &HealthMonitorRow, tags: Vec<String>) -> Value {
        json!({
            "id": h.id, "name": name(&h.name), "type": h.r#type, "delay": h.delay, "timeout": h.timeout,
            "max_retries": h.rise_threshold, "max_retries_down": h.fall_threshold, "http_method": h.http_method,
            "url_path": h.url_path, "expected_codes": h.expected_codes, "admin_state_up": h.enabled,
            "project_id": h.project_id, "tenant_id": h.project_id, "pools": [{"id": h.pool_id}],
            "provisioning_status": h.provisioning_status, "operating_status": h.operating_status,
            "created_at": dt(h.created_at), "updated_at": dt(h.updated_at), "tags": tags,
            "http_version": h.http_version.map(|v| (f64::from(v) * 100.0).round() / 100.0), "domain_name": h.domain_name,
        })
    }

    fn check(h: &HealthMonitorRow, tags: &[String]) {
        let view = HmView::new(h, tags);
        same_as_map(
            &view,
            old_map(h, tags.to_vec()),
            crate::render::HM_ATTRS,
            &["pool_id"],
        );
    }

    #[test]
    fn hm_view_text_equals_the_map_it_replaced() {
        let full = HealthMonitorRow {
            pool_id: "pool".into(),
            r#type: "HTTP".into(),
            delay: 5,
            timeout: 3,
            fall_threshold: 2,
            rise_threshold: 4,
            http_method: Some("GET".into()),
            url_path: Some("/h\"c".into()),
            expected_codes: Some("200-204".into()),
            enabled: true,
            project_id: Some("p".into()),
            provisioning_status: "ACTIVE".parse().unwrap(),
            name: Some("n\u{e9}".into()),
            id: "i".into(),
            created_at: Some(t()),
            updated_at: Some(t()),
            operating_status: "ONLINE".parse().unwrap(),
            http_version: Some(1.1),
            domain_name: Some("example.org".into()),
        };
        check(&full, &["a".into()]);
        for v in [1.0, 1.1, 2.0, f32::NAN] {
            let h = HealthMonitorRow {
                http_version: Some(v),
                ..full.clone()
            };
            check(&h, &[]);
        }
        // every optional field unset
        let bare = HealthMonitorRow {
            pool_id: "pool".into(),
            r#type: "TCP".into(),
            provisioning_status: "PENDING_CREATE".parse().unwrap(),
            id: "i".into(),
            operating_status: "OFFLINE".parse().unwrap(),
            ..Default::default()
        };
        check(&bare, &[]);
        let m = crate::view::to_value(&HmView::new(&full, &[]));
        assert_eq!(crate::view::to_text(&m["http_version"]), "1.1");
    }
}
