//! Rendering of DB rows into Octavia's response objects (`*Response` of
//! octavia/api/v2/types): each built as its typed view ([`crate::view`], which holds the
//! shapes: `""` for NULL names, the `tenant_id` echo, datetimes without timezone, related
//! objects as `[{"id"}]`) after reading what it shows beside its row, batched for a list page;
//! each resource's attribute table (`*_ATTRS`, the names filters and sort keys may use, in
//! Octavia's declaration order; the views' unit tests keep them equal to the views' fields).

use octavia_db::{
    HealthMonitorRow, L7PolicyRow, L7RuleRow, ListenerRow, LoadBalancerRow, MemberRow, PoolRow,
    SessionPersistenceRow, Tx,
};
use serde_json::Value;

use crate::fault::ApiError;
use crate::related::{rows_in, tags_by_id};
use crate::view::{self, to_value};

/// Attribute names of a load balancer response.
pub const LB_ATTRS: &[&str] = &[
    "id",
    "name",
    "description",
    "provisioning_status",
    "operating_status",
    "admin_state_up",
    "project_id",
    "tenant_id",
    "created_at",
    "updated_at",
    "vip_address",
    "vip_port_id",
    "vip_subnet_id",
    "vip_network_id",
    "vip_qos_policy_id",
    "vip_sg_ids",
    "vip_vnic_type",
    "additional_vips",
    "listeners",
    "pools",
    "provider",
    "flavor_id",
    "availability_zone",
    "tags",
];

/// `LoadBalancerResponse` of a row (listeners / pools as `[{id}]`).
pub async fn render_lb(tx: &mut Tx, lb: &LoadBalancerRow) -> Result<Value, ApiError> {
    // one statement for the VIP and the collections (octavia-db `lb_attachments`)
    let att = tx.lb_attachments(&lb.id).await?;
    Ok(render_lb_with(lb, att))
}

/// [`render_lb`] of a list page: the attachments of all rows in one statement per 500.
pub async fn render_lbs(tx: &mut Tx, rows: &[LoadBalancerRow]) -> Result<Vec<Value>, ApiError> {
    let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
    let atts = tx.lbs_attachments(&ids).await?;
    Ok(rows
        .iter()
        .zip(atts)
        .map(|(r, a)| render_lb_with(r, a))
        .collect())
}

/// [`render_lb`] with the attachments already at hand ([`crate::view::LbView`]).
pub fn render_lb_with(lb: &LoadBalancerRow, att: octavia_db::LbAttachments) -> Value {
    to_value(&view::LbView::new(lb, &att))
}

/// [`render_lbs`] as each object's JSON text (a list page without `fields=`: no map per
/// object, see [`crate::view`]).
pub async fn render_lbs_text(
    tx: &mut Tx,
    rows: &[LoadBalancerRow],
) -> Result<Vec<String>, ApiError> {
    let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
    let atts = tx.lbs_attachments(&ids).await?;
    Ok(rows
        .iter()
        .zip(&atts)
        .map(|(r, a)| view::to_text(&view::LbView::new(r, a)))
        .collect())
}

/// Attribute names of a listener response.
pub const LISTENER_ATTRS: &[&str] = &[
    "id",
    "name",
    "description",
    "provisioning_status",
    "operating_status",
    "admin_state_up",
    "protocol",
    "protocol_port",
    "connection_limit",
    "default_tls_container_ref",
    "sni_container_refs",
    "project_id",
    "tenant_id",
    "default_pool_id",
    "l7policies",
    "insert_headers",
    "created_at",
    "updated_at",
    "loadbalancers",
    "timeout_client_data",
    "timeout_member_connect",
    "timeout_member_data",
    "timeout_tcp_inspect",
    "tags",
    "client_ca_tls_container_ref",
    "client_authentication",
    "client_crl_container_ref",
    "allowed_cidrs",
    "tls_ciphers",
    "tls_versions",
    "alpn_protocols",
    "hsts_max_age",
    "hsts_include_subdomains",
    "hsts_preload",
    "loadbalancer_id",
];

/// `ListenerResponse` of a row.
pub async fn render_listener(tx: &mut Tx, l: &ListenerRow) -> Result<Value, ApiError> {
    // one statement for the collections (octavia-db `listener_attachments`)
    let att = tx.listener_attachments(&l.id).await?;
    Ok(render_listener_with(l, att))
}

/// [`render_listener`] of a list page: the collections of all rows in one statement per 500.
pub async fn render_listeners(tx: &mut Tx, rows: &[ListenerRow]) -> Result<Vec<Value>, ApiError> {
    let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
    let atts = tx.listeners_attachments(&ids).await?;
    Ok(rows
        .iter()
        .zip(atts)
        .map(|(r, a)| render_listener_with(r, a))
        .collect())
}

/// [`render_listener`] with the collections already at hand (a create knows them).
pub fn render_listener_with(l: &ListenerRow, att: octavia_db::ListenerAttachments) -> Value {
    to_value(&view::ListenerView::new(l, &att))
}

/// Attribute names of a pool response.
pub const POOL_ATTRS: &[&str] = &[
    "id",
    "name",
    "description",
    "provisioning_status",
    "operating_status",
    "admin_state_up",
    "protocol",
    "lb_algorithm",
    "session_persistence",
    "project_id",
    "tenant_id",
    "loadbalancers",
    "listeners",
    "created_at",
    "updated_at",
    "healthmonitor_id",
    "members",
    "tags",
    "tls_container_ref",
    "ca_tls_container_ref",
    "crl_container_ref",
    "tls_enabled",
    "tls_ciphers",
    "tls_versions",
    "alpn_protocols",
    "loadbalancer_id",
];

/// [`render_pool`] of a list page: session persistences in one statement, the rest in one
/// more (per 500 pools).
pub async fn render_pools(tx: &mut Tx, rows: &[PoolRow]) -> Result<Vec<Value>, ApiError> {
    pools_rendered(tx, rows, |v| to_value(v)).await
}

/// [`render_pools`] as each object's JSON text (a list page without `fields=`: no map per
/// object, see [`crate::view`]).
pub async fn render_pools_text(tx: &mut Tx, rows: &[PoolRow]) -> Result<Vec<String>, ApiError> {
    pools_rendered(tx, rows, |v| view::to_text(v)).await
}

/// The pools' views (their session persistence and collections read in two statements for
/// the whole page), each turned into `T` by `out`.
async fn pools_rendered<T>(
    tx: &mut Tx,
    rows: &[PoolRow],
    out: impl Fn(&view::PoolView<'_>) -> T,
) -> Result<Vec<T>, ApiError> {
    let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
    let sps: Vec<SessionPersistenceRow> = rows_in(tx, "pool_id", &ids).await?;
    let sps: std::collections::HashMap<&str, &SessionPersistenceRow> =
        sps.iter().map(|s| (s.pool_id.as_str(), s)).collect();
    let atts = tx.pools_attachments(&ids).await?;
    Ok(rows
        .iter()
        .zip(&atts)
        .map(|(r, a)| out(&view::PoolView::new(r, sps.get(r.id.as_str()).copied(), a)))
        .collect())
}

/// `PoolResponse` of a row (`healthmonitor_id` omitted when the pool has no monitor).
pub async fn render_pool(tx: &mut Tx, p: &PoolRow) -> Result<Value, ApiError> {
    let sp: Option<SessionPersistenceRow> = tx.find(&p.id).await?;
    // one statement for the rest (octavia-db `pool_attachments`)
    let att = tx.pool_attachments(&p.id).await?;
    Ok(render_pool_with(p, sp.as_ref(), att))
}

/// [`render_pool`] with the session persistence and collections already at hand.
pub fn render_pool_with(
    p: &PoolRow,
    sp: Option<&SessionPersistenceRow>,
    att: octavia_db::PoolAttachments,
) -> Value {
    to_value(&view::PoolView::new(p, sp, &att))
}

/// Attribute names of a member response.
pub const MEMBER_ATTRS: &[&str] = &[
    "id",
    "name",
    "operating_status",
    "provisioning_status",
    "admin_state_up",
    "address",
    "protocol_port",
    "weight",
    "backup",
    "subnet_id",
    "project_id",
    "tenant_id",
    "created_at",
    "updated_at",
    "monitor_address",
    "monitor_port",
    "tags",
    "vnic_type",
];

/// `MemberResponse` of a row.
pub async fn render_member(tx: &mut Tx, m: &MemberRow) -> Result<Value, ApiError> {
    let tags = tx.tags(&m.id).await?;
    Ok(render_member_with(m, tags))
}

/// [`render_member`] of a list page (tags in one statement per 500).
pub async fn render_members(tx: &mut Tx, rows: &[MemberRow]) -> Result<Vec<Value>, ApiError> {
    let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
    let tags = tags_by_id(tx, &ids).await?;
    Ok(rows
        .iter()
        .zip(tags)
        .map(|(r, t)| render_member_with(r, t))
        .collect())
}

/// [`render_member`] with the tags (sorted) already at hand.
pub fn render_member_with(m: &MemberRow, tags: Vec<String>) -> Value {
    to_value(&view::MemberView::new(m, &tags))
}

/// Attribute names of a health monitor response.
pub const HM_ATTRS: &[&str] = &[
    "id",
    "name",
    "type",
    "delay",
    "timeout",
    "max_retries",
    "max_retries_down",
    "http_method",
    "url_path",
    "expected_codes",
    "admin_state_up",
    "project_id",
    "tenant_id",
    "pools",
    "provisioning_status",
    "operating_status",
    "created_at",
    "updated_at",
    "tags",
    "http_version",
    "domain_name",
    "pool_id",
];

/// `HealthMonitorResponse` of a row.
pub async fn render_hm(tx: &mut Tx, h: &HealthMonitorRow) -> Result<Value, ApiError> {
    let tags = tx.tags(&h.id).await?;
    Ok(render_hm_with(h, tags))
}

/// [`render_hm`] of a list page (tags in one statement per 500).
pub async fn render_hms(tx: &mut Tx, rows: &[HealthMonitorRow]) -> Result<Vec<Value>, ApiError> {
    let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
    let tags = tags_by_id(tx, &ids).await?;
    Ok(rows
        .iter()
        .zip(tags)
        .map(|(r, t)| render_hm_with(r, t))
        .collect())
}

/// [`render_hm`] with the tags (sorted) already at hand.
pub fn render_hm_with(h: &HealthMonitorRow, tags: Vec<String>) -> Value {
    to_value(&view::HmView::new(h, &tags))
}

/// `L7PolicyResponse` of a row (`rules` as `[{id}]`, oldest first; DELETED rules left out).
pub async fn render_policy(tx: &mut Tx, p: &L7PolicyRow) -> Result<Value, ApiError> {
    let rules: Vec<L7RuleRow> = rows_in(tx, "l7policy_id", std::slice::from_ref(&p.id)).await?;
    let tags = tx.tags(&p.id).await?;
    let rule_ids = rules.iter().map(|r| r.id.as_str());
    Ok(to_value(&view::L7PolicyView::new(p, rule_ids, &tags)))
}

/// [`render_policy`] of a list page: the rules of all rows in one statement, their tags in one
/// more (per 500).
pub async fn render_policies(tx: &mut Tx, rows: &[L7PolicyRow]) -> Result<Vec<Value>, ApiError> {
    let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
    let rules: Vec<L7RuleRow> = rows_in(tx, "l7policy_id", &ids).await?;
    let tags = tags_by_id(tx, &ids).await?;
    Ok(rows
        .iter()
        .zip(&tags)
        .map(|(p, tags)| {
            let rule_ids = rules
                .iter()
                .filter(|r| r.l7policy_id == p.id)
                .map(|r| r.id.as_str());
            to_value(&view::L7PolicyView::new(p, rule_ids, tags))
        })
        .collect())
}

/// `L7RuleResponse` of a row.
pub async fn render_rule(tx: &mut Tx, r: &L7RuleRow) -> Result<Value, ApiError> {
    let tags = tx.tags(&r.id).await?;
    Ok(to_value(&view::L7RuleView::new(r, &tags)))
}

/// [`render_rule`] of a list page (tags in one statement per 500).
pub async fn render_rules(tx: &mut Tx, rows: &[L7RuleRow]) -> Result<Vec<Value>, ApiError> {
    let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
    let tags = tags_by_id(tx, &ids).await?;
    Ok(rows
        .iter()
        .zip(&tags)
        .map(|(r, t)| to_value(&view::L7RuleView::new(r, t)))
        .collect())
}

/// Drop list-only helper keys (used for filtering) from a rendered object.
pub fn strip(mut v: Value, keys: &[&str]) -> Value {
    if let Some(o) = v.as_object_mut() {
        for k in keys {
            o.remove(*k);
        }
    }
    v
}
