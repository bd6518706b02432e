//! The load balancer's response object, as `octavia/api/v2/types/load_balancer.py`
//! `LoadBalancerResponse`: the view, its attribute table and its collection's listing spec from
//! one declaration (`crate::view::view_decl!`), and the renderers.

use octavia_db::{LbAttachments, LoadBalancerRow, Tx};
use serde::Serialize;
use serde_json::Value;

use crate::fault::ApiError;
use crate::view::{Dt, IdRef, id_refs, or_empty, to_text, to_value, view_decl};

/// One of `additional_vips`.
#[derive(Serialize)]
pub struct AdditionalVipView<'a> {
    ip_address: Option<&'a str>,
    port_id: Option<&'a str>,
    subnet_id: &'a str,
}

view_decl! {
    /// A load balancer response object, as octavia/api/v2/types/load_balancer.py
    /// `LoadBalancerResponse`; serialised in sorted key order (see [`crate::view`]).
    pub struct LbView<'a>;
    /// The response object of `lb` with its attachments: a NULL name or description is `""`,
    /// an empty VIP vnic type `normal`, an empty provider `octavia`; no VIP row gives `null`
    /// VIP fields.
    pub fn new(lb: &'a LoadBalancerRow, att: &'a LbAttachments) {
        let vip = att.vip.as_ref();
        let vip_str =
            |f: fn(&octavia_db::VipRow) -> &Option<String>| vip.and_then(|v| f(v).as_deref());
        let vnic = vip.map_or("", |v| v.vnic_type.as_str());
    };
    /// `LoadBalancerResponse`'s attribute names in Octavia's declaration order (filters, sort
    /// keys, `fields=`).
    pub const LB_ATTRS;
    /// `GET /v2/lbaas/loadbalancers` in SQL (`vip_*` through the `vip` table).
    pub static LB = {
        joins: &[("`v`.", "LEFT JOIN `vip` `v` ON `v`.`load_balancer_id` = `t`.`id`")],
        tags: true,
    };
    fields {
        id: &'a str = &lb.id => Val("`t`.`id`", Text),
        name: &'a str = or_empty(&lb.name) => Str("`t`.`name`"),
        description: &'a str = or_empty(&lb.description) => Str("`t`.`description`"),
        provisioning_status: &'a str = lb.provisioning_status.as_str()
            => Val("`t`.`provisioning_status`", Text),
        operating_status: &'a str = lb.operating_status.as_str()
            => Val("`t`.`operating_status`", Text),
        admin_state_up: bool = lb.enabled => Val("`t`.`enabled`", Bool),
        project_id: Option<&'a str> = lb.project_id.as_deref() => Val("`t`.`project_id`", Text),
        tenant_id: Option<&'a str> = lb.project_id.as_deref() => Val("`t`.`project_id`", Text),
        created_at: Dt = Dt(lb.created_at) => Val("`t`.`created_at`", Time),
        updated_at: Dt = Dt(lb.updated_at) => Val("`t`.`updated_at`", Time),
        vip_address: Option<&'a str> = vip_str(|v| &v.ip_address)
            => Val("`v`.`ip_address`", Text),
        vip_port_id: Option<&'a str> = vip_str(|v| &v.port_id) => Val("`v`.`port_id`", Text),
        vip_subnet_id: Option<&'a str> = vip_str(|v| &v.subnet_id)
            => Val("`v`.`subnet_id`", Text),
        vip_network_id: Option<&'a str> = vip_str(|v| &v.network_id)
            => Val("`v`.`network_id`", Text),
        vip_qos_policy_id: Option<&'a str> = vip_str(|v| &v.qos_policy_id)
            => Val("`v`.`qos_policy_id`", Text),
        vip_sg_ids: &'a [String] = &att.vip_sg_ids => Has(
            "EXISTS (SELECT 1 FROM `vip_security_group` `x` WHERE `x`.`load_balancer_id` = `t`.`id` AND `x`.`sg_id` = ?)"
        ),
        vip_vnic_type: &'a str = if vnic.is_empty() { "normal" } else { vnic } => Val(
            "CASE WHEN COALESCE(`v`.`vnic_type`, '') = '' THEN 'normal' ELSE `v`.`vnic_type` END",
            Text,
        ),
        additional_vips: Vec<AdditionalVipView<'a>> = att
            .additional_vips
            .iter()
            .map(|(subnet_id, ip, port)| AdditionalVipView {
                ip_address: ip.as_deref(),
                port_id: port.as_deref(),
                subnet_id,
            })
            .collect() => Never,
        listeners: Vec<IdRef<'a>> = id_refs(&att.listener_ids) => Has(
            "EXISTS (SELECT 1 FROM `listener` `x` WHERE `x`.`load_balancer_id` = `t`.`id` AND `x`.`provisioning_status` <> 'DELETED' AND `x`.`id` = ?)"
        ),
        pools: Vec<IdRef<'a>> = id_refs(&att.pool_ids) => Has(
            "EXISTS (SELECT 1 FROM `pool` `x` WHERE `x`.`load_balancer_id` = `t`.`id` AND `x`.`provisioning_status` <> 'DELETED' AND `x`.`id` = ?)"
        ),
        provider: &'a str = lb.provider.as_deref().filter(|p| !p.is_empty()).unwrap_or("octavia")
            => Val(
                "CASE WHEN COALESCE(`t`.`provider`, '') = '' THEN 'octavia' ELSE `t`.`provider` END",
                Text,
            ),
        flavor_id: Option<&'a str> = lb.flavor_id.as_deref() => Val("`t`.`flavor_id`", Text),
        availability_zone: Option<&'a str> = lb.availability_zone.as_deref()
            => Val("`t`.`availability_zone`", Text),
        tags: &'a [String] = &att.tags => Has(
            "EXISTS (SELECT 1 FROM `tags` `g` WHERE `g`.`resource_id` = `t`.`id` AND `g`.`tag` = ?)"
        ),
    }
}

/// `LoadBalancerResponse` of a row (listeners / pools as `[{id}]`). Errors: the database's.
pub async fn render_lb(tx: &mut Tx, lb: &LoadBalancerRow) -> Result<Value, ApiError> {
    // one statement for the VIP and the collections (octavia-db `lb_attachments`)
    let att = tx.lb_attachments(&lb.id).await?;
    Ok(render_lb_with(lb, att))
}

/// [`render_lb`] of a list page: the attachments of all rows in one statement per 500.
/// Errors: the database's.
pub async fn render_lbs(tx: &mut Tx, rows: &[LoadBalancerRow]) -> Result<Vec<Value>, ApiError> {
    let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
    let atts = tx.lbs_attachments(&ids).await?;
    Ok(rows
        .iter()
        .zip(atts)
        .map(|(r, a)| render_lb_with(r, a))
        .collect())
}

/// [`render_lb`] with the attachments already at hand.
pub fn render_lb_with(lb: &LoadBalancerRow, att: LbAttachments) -> Value {
    to_value(&LbView::new(lb, &att))
}

/// [`render_lbs`] as each object's JSON text (a list page without `fields=`: no map per
/// object, see [`crate::view`]). Errors: the database's.
pub async fn render_lbs_text(
    tx: &mut Tx,
    rows: &[LoadBalancerRow],
) -> Result<Vec<String>, ApiError> {
    let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
    let atts = tx.lbs_attachments(&ids).await?;
    Ok(rows
        .iter()
        .zip(&atts)
        .map(|(r, a)| to_text(&LbView::new(r, a)))
        .collect())
}

impl crate::list::Listed for LoadBalancerRow {
    const SPEC: &'static crate::listing::Spec = &LB;
    const ATTRS: &'static [&'static str] = LB_ATTRS;
    const COLLECTION: &'static str = "loadbalancers";
    const PATH: &'static str = "/v2/lbaas/loadbalancers";
    const TEXT: bool = true;
    async fn render_text(tx: &mut Tx, rows: &[Self]) -> Result<Vec<String>, ApiError> {
        render_lbs_text(tx, rows).await
    }
    async fn render(tx: &mut Tx, rows: &[Self]) -> Result<Vec<Value>, ApiError> {
        render_lbs(tx, rows).await
    }
    fn id(&self) -> &str {
        &self.id
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
