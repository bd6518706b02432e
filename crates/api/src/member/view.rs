//! The member's response object, as `octavia/api/v2/types/member.py` `MemberResponse`.

use octavia_db::MemberRow;
use serde::Serialize;

use crate::view::{Dt, or_empty};

/// A member response object; fields in sorted key order (see [`crate::view`]).
#[derive(Serialize)]
pub struct MemberView<'a> {
    address: Option<&'a str>,
    admin_state_up: bool,
    backup: bool,
    created_at: Dt,
    id: &'a str,
    monitor_address: Option<&'a str>,
    monitor_port: Option<i32>,
    name: &'a str,
    operating_status: &'a str,
    project_id: Option<&'a str>,
    protocol_port: i32,
    provisioning_status: &'a str,
    subnet_id: Option<&'a str>,
    tags: &'a [String],
    tenant_id: Option<&'a str>,
    updated_at: Dt,
    vnic_type: &'a str,
    weight: Option<i32>,
}

impl<'a> MemberView<'a> {
    /// The response object of `m` with its tags (sorted): `""` for a NULL name, an empty
    /// vnic type `normal`.
    pub fn new(m: &'a MemberRow, tags: &'a [String]) -> Self {
        Self {
            address: m.ip_address.as_deref(),
            admin_state_up: m.enabled,
            backup: m.backup,
            created_at: Dt(m.created_at),
            id: &m.id,
            monitor_address: m.monitor_address.as_deref(),
            monitor_port: m.monitor_port,
            name: or_empty(&m.name),
            operating_status: m.operating_status.as_str(),
            project_id: m.project_id.as_deref(),
            protocol_port: m.protocol_port,
            provisioning_status: m.provisioning_status.as_str(),
            subnet_id: m.subnet_id.as_deref(),
            tags,
            tenant_id: m.project_id.as_deref(),
            updated_at: Dt(m.updated_at),
            vnic_type: if m.vnic_type.is_empty() {
                "normal"
            } else {
                &m.vnic_type
            },
            weight: m.weight,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::view::testing::{dt, name, same_as_map, t};
    use serde_json::{Value, json};

    /// The `json!` map this view replaced (`render_member_with` before the view).
    fn old_map(m: &MemberRow, tags: Vec<String>) -> Value {
        json!({
            "id": m.id, "name": name(&m.name), "operating_status": m.operating_status,
            "provisioning_status": m.provisioning_status, "admin_state_up": m.enabled, "address": m.ip_address,
            "protocol_port": m.protocol_port, "weight": m.weight, "backup": m.backup, "subnet_id": m.subnet_id,
            "project_id": m.project_id, "tenant_id": m.project_id, "created_at": dt(m.created_at),
            "updated_at": dt(m.updated_at), "monitor_address": m.monitor_address, "monitor_port": m.monitor_port,
            "tags": tags, "vnic_type": if m.vnic_type.is_empty() { "normal".to_string() } else { m.vnic_type.clone() },
        })
    }

    fn check(m: &MemberRow, tags: &[String]) {
        let view = MemberView::new(m, tags);
        same_as_map(
            &view,
            old_map(m, tags.to_vec()),
            crate::render::MEMBER_ATTRS,
            &[],
        );
    }

    #[test]
    fn member_view_text_equals_the_map_it_replaced() {
        let full = MemberRow {
            project_id: Some("p".into()),
            id: "i\"d".into(),
            pool_id: "pool".into(),
            subnet_id: Some("s".into()),
            ip_address: Some("2001:db8::1".into()),
            protocol_port: 8080,
            weight: Some(0),
            operating_status: "ONLINE".parse().unwrap(),
            enabled: false,
            created_at: Some(t()),
            updated_at: Some(t()),
            provisioning_status: "ACTIVE".parse().unwrap(),
            name: Some("n\u{e9}\n".into()),
            monitor_address: Some("10.0.0.2".into()),
            monitor_port: Some(9000),
            backup: true,
            vnic_type: "direct".into(),
        };
        check(&full, &["a".into(), "b".into()]);
        // every optional field unset, an empty vnic type
        let bare = MemberRow {
            id: "i".into(),
            pool_id: "pool".into(),
            protocol_port: 80,
            operating_status: "NO_MONITOR".parse().unwrap(),
            provisioning_status: "PENDING_CREATE".parse().unwrap(),
            ..Default::default()
        };
        check(&bare, &[]);
        assert_eq!(
            crate::view::to_value(&MemberView::new(&bare, &[]))["vnic_type"],
            "normal"
        );
    }
}
