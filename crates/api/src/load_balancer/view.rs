//! The load balancer's response object, as `octavia/api/v2/types/load_balancer.py`
//! `LoadBalancerResponse`.

use octavia_db::{LbAttachments, LoadBalancerRow};
use serde::Serialize;

use crate::view::{Dt, IdRef, id_refs, or_empty};

/// One of `additional_vips`.
#[derive(Serialize)]
pub struct AdditionalVipView<'a> {
    ip_address: Option<&'a str>,
    port_id: Option<&'a str>,
    subnet_id: &'a str,
}

/// A load balancer response object; fields in sorted key order (see [`crate::view`]).
#[derive(Serialize)]
pub struct LbView<'a> {
    additional_vips: Vec<AdditionalVipView<'a>>,
    admin_state_up: bool,
    availability_zone: Option<&'a str>,
    created_at: Dt,
    description: &'a str,
    flavor_id: Option<&'a str>,
    id: &'a str,
    listeners: Vec<IdRef<'a>>,
    name: &'a str,
    operating_status: &'a str,
    pools: Vec<IdRef<'a>>,
    project_id: Option<&'a str>,
    provider: &'a str,
    provisioning_status: &'a str,
    tags: &'a [String],
    tenant_id: Option<&'a str>,
    updated_at: Dt,
    vip_address: Option<&'a str>,
    vip_network_id: Option<&'a str>,
    vip_port_id: Option<&'a str>,
    vip_qos_policy_id: Option<&'a str>,
    vip_sg_ids: &'a [String],
    vip_subnet_id: Option<&'a str>,
    vip_vnic_type: &'a str,
}

impl<'a> LbView<'a> {
    /// The response object of `lb` with its attachments: a NULL name or description is `""`,
    /// an empty VIP vnic type `normal`, an empty provider `octavia`; no VIP row gives `null`
    /// VIP fields.
    pub fn new(lb: &'a LoadBalancerRow, att: &'a LbAttachments) -> Self {
        let vip = att.vip.as_ref();
        let vip_str =
            |f: fn(&octavia_db::VipRow) -> &Option<String>| vip.and_then(|v| f(v).as_deref());
        let vnic = vip.map_or("", |v| v.vnic_type.as_str());
        Self {
            additional_vips: att
                .additional_vips
                .iter()
                .map(|(subnet_id, ip, port)| AdditionalVipView {
                    ip_address: ip.as_deref(),
                    port_id: port.as_deref(),
                    subnet_id,
                })
                .collect(),
            admin_state_up: lb.enabled,
            availability_zone: lb.availability_zone.as_deref(),
            created_at: Dt(lb.created_at),
            description: or_empty(&lb.description),
            flavor_id: lb.flavor_id.as_deref(),
            id: &lb.id,
            listeners: id_refs(&att.listener_ids),
            name: or_empty(&lb.name),
            operating_status: lb.operating_status.as_str(),
            pools: id_refs(&att.pool_ids),
            project_id: lb.project_id.as_deref(),
            provider: lb
                .provider
                .as_deref()
                .filter(|p| !p.is_empty())
                .unwrap_or("octavia"),
            provisioning_status: lb.provisioning_status.as_str(),
            tags: &att.tags,
            tenant_id: lb.project_id.as_deref(),
            updated_at: Dt(lb.updated_at),
            vip_address: vip_str(|v| &v.ip_address),
            vip_network_id: vip_str(|v| &v.network_id),
            vip_port_id: vip_str(|v| &v.port_id),
            vip_qos_policy_id: vip_str(|v| &v.qos_policy_id),
            vip_sg_ids: &att.vip_sg_ids,
            vip_subnet_id: vip_str(|v| &v.subnet_id),
            vip_vnic_type: if vnic.is_empty() { "normal" } else { vnic },
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::view::to_text;
    use octavia_db::VipRow;

    fn lb() -> (LoadBalancerRow, LbAttachments) {
        let t = chrono::NaiveDate::from_ymd_opt(2026, 1, 2)
            .unwrap()
            .and_hms_opt(3, 4, 5)
            .unwrap();
        let row = LoadBalancerRow {
            project_id: Some("p".into()),
            id: "i\"d".into(),
            name: None,
            description: Some("d\u{e9}\n".into()),
            provisioning_status: "ACTIVE".parse().unwrap(),
            operating_status: "ONLINE".parse().unwrap(),
            enabled: true,
            created_at: Some(t),
            updated_at: None,
            provider: Some(String::new()),
            flavor_id: Some("f".into()),
            ..Default::default()
        };
        let att = LbAttachments {
            vip: Some(VipRow {
                load_balancer_id: "i\"d".into(),
                ip_address: Some("10.0.0.1".into()),
                port_id: None,
                subnet_id: Some("s".into()),
                network_id: Some("n".into()),
                qos_policy_id: None,
                octavia_owned: Some(false),
                vnic_type: String::new(),
            }),
            additional_vips: vec![("s2".into(), Some("10.0.1.1".into()), None)],
            vip_sg_ids: vec!["g1".into(), "g2".into()],
            tags: vec!["a".into(), "b".into()],
            listener_ids: vec!["l1".into()],
            pool_ids: vec!["p1".into(), "p2".into()],
        };
        (row, att)
    }

    #[test]
    fn lb_view_text_equals_the_sorted_map_of_the_same_view() {
        let (row, att) = lb();
        let text = to_text(&LbView::new(&row, &att));
        let map = serde_json::to_value(LbView::new(&row, &att)).unwrap();
        assert_eq!(text, serde_json::to_string(&map).unwrap());
        assert_eq!(
            map.as_object().unwrap().len(),
            crate::render::LB_ATTRS.len()
        );
        for a in crate::render::LB_ATTRS {
            assert!(map.get(*a).is_some(), "{a}");
        }
        assert_eq!(map["name"], "");
        assert_eq!(map["provider"], "octavia");
        assert_eq!(map["vip_vnic_type"], "normal");
        assert_eq!(map["created_at"], "2026-01-02T03:04:05");
        assert_eq!(map["updated_at"], serde_json::Value::Null);
        assert_eq!(
            map["pools"],
            serde_json::json!([{"id": "p1"}, {"id": "p2"}])
        );
        assert_eq!(
            map["additional_vips"],
            serde_json::json!([{"subnet_id": "s2", "ip_address": "10.0.1.1", "port_id": null}])
        );
        // no VIP row: every VIP field null, vnic type `normal`
        let bare = LbAttachments::default();
        let m = serde_json::to_value(LbView::new(&row, &bare)).unwrap();
        assert_eq!(m["vip_address"], serde_json::Value::Null);
        assert_eq!(m["vip_vnic_type"], "normal");
    }
}
