//! JSON rendering of DB rows into Octavia's response objects (`*Response` of
//! octavia/api/v2/types): `""` for NULL names, the `tenant_id` echo, datetimes without
//! timezone, related objects as `[{"id"}]`; each resource's attribute table (`*_ATTRS`, the
//! names filters and sort keys may use); a list page renders with batched reads.

use chrono::NaiveDateTime;
use octavia_db::{
    HealthMonitorRow, ListenerRow, LoadBalancerRow, MemberRow, PoolRow, SessionPersistenceRow, Tx,
};
use serde_json::{Value, json};

use crate::columns::scalar_list;
use crate::fault::ApiError;
use crate::related::{rows_in, tags_by_id};

/// Octavia's datetime rendering: ISO-8601 without timezone, e.g. `2026-11-29T19:59:59`.
pub fn dt(t: Option<NaiveDateTime>) -> Value {
    t.map_or(Value::Null, |t| {
        Value::String(t.format("%Y-%m-%dT%H:%M:%S").to_string())
    })
}

/// A nullable name or description as Octavia renders it (`""` for NULL).
fn name(v: &Option<String>) -> Value {
    Value::String(v.clone().unwrap_or_default())
}

/// Ids as the `[{"id": …}]` list Octavia renders for related objects.
fn ids(ids: &[String]) -> Value {
    Value::Array(ids.iter().map(|i| json!({ "id": i })).collect())
}

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
    serde_json::to_value(crate::view::LbView::new(lb, &att)).unwrap_or(Value::Null)
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
        .map(|(r, a)| crate::view::to_text(&crate::view::LbView::new(r, a)))
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
    let octavia_db::ListenerAttachments {
        sni_refs: sni,
        allowed_cidrs: cidrs,
        tags,
        l7policy_ids: policy_ids,
    } = att;
    let headers = l
        .insert_headers
        .as_deref()
        .and_then(crate::pickle::loads_str_dict)
        .unwrap_or_else(|| json!({}));
    json!({
        "id": l.id, "name": name(&l.name), "description": name(&l.description),
        "provisioning_status": l.provisioning_status, "operating_status": l.operating_status,
        "admin_state_up": l.enabled, "protocol": l.protocol, "protocol_port": l.protocol_port,
        "connection_limit": l.connection_limit, "default_tls_container_ref": l.tls_certificate_id,
        "sni_container_refs": sni, "project_id": l.project_id, "tenant_id": l.project_id,
        "default_pool_id": l.default_pool_id, "l7policies": ids(&policy_ids), "insert_headers": headers,
        "created_at": dt(l.created_at), "updated_at": dt(l.updated_at),
        "loadbalancers": ids(&l.load_balancer_id.iter().cloned().collect::<Vec<_>>()),
        "timeout_client_data": l.timeout_client_data, "timeout_member_connect": l.timeout_member_connect,
        "timeout_member_data": l.timeout_member_data, "timeout_tcp_inspect": l.timeout_tcp_inspect,
        "tags": tags, "client_ca_tls_container_ref": l.client_ca_tls_certificate_id,
        "client_authentication": l.client_authentication, "client_crl_container_ref": l.client_crl_container_id,
        "allowed_cidrs": if cidrs.is_empty() { Value::Null } else { json!(cidrs) },
        "tls_ciphers": l.tls_ciphers, "tls_versions": scalar_list(&l.tls_versions),
        "alpn_protocols": scalar_list(&l.alpn_protocols), "hsts_max_age": l.hsts_max_age,
        "hsts_include_subdomains": l.hsts_include_subdomains, "hsts_preload": l.hsts_preload,
    })
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

/// The pool's session persistence as the API shows it (`null` when none).
pub fn render_sp(sp: &Option<SessionPersistenceRow>) -> Value {
    match sp {
        None => Value::Null,
        Some(s) => json!({"type": s.r#type, "cookie_name": s.cookie_name,
            "persistence_timeout": s.persistence_timeout, "persistence_granularity": s.persistence_granularity}),
    }
}

/// [`render_pool`] of a list page: session persistences in one statement, the rest in one
/// more (per 500 pools).
pub async fn render_pools(tx: &mut Tx, rows: &[PoolRow]) -> Result<Vec<Value>, ApiError> {
    let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
    let sps: Vec<SessionPersistenceRow> = rows_in(tx, "pool_id", &ids).await?;
    let sps: std::collections::HashMap<&str, &SessionPersistenceRow> =
        sps.iter().map(|s| (s.pool_id.as_str(), s)).collect();
    let atts = tx.pools_attachments(&ids).await?;
    Ok(rows
        .iter()
        .zip(atts)
        .map(|(r, a)| render_pool_with(r, sps.get(r.id.as_str()).copied(), a))
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
    let octavia_db::PoolAttachments {
        listener_ids: listeners,
        member_ids: members,
        healthmonitor_id: hm,
        tags,
    } = att;
    let sp = sp.cloned();
    let mut v = json!({
        "id": p.id, "name": name(&p.name), "description": name(&p.description),
        "provisioning_status": p.provisioning_status, "operating_status": p.operating_status,
        "admin_state_up": p.enabled, "protocol": p.protocol, "lb_algorithm": p.lb_algorithm,
        "session_persistence": render_sp(&sp), "project_id": p.project_id, "tenant_id": p.project_id,
        "loadbalancers": ids(&p.load_balancer_id.iter().cloned().collect::<Vec<_>>()),
        "listeners": ids(&listeners), "created_at": dt(p.created_at), "updated_at": dt(p.updated_at),
        "members": ids(&members), "tags": tags, "tls_container_ref": p.tls_certificate_id,
        "ca_tls_container_ref": p.ca_tls_certificate_id, "crl_container_ref": p.crl_container_id,
        "tls_enabled": p.tls_enabled, "tls_ciphers": p.tls_ciphers, "tls_versions": scalar_list(&p.tls_versions),
        "alpn_protocols": scalar_list(&p.alpn_protocols),
    });
    if let (Some(hm), Some(o)) = (hm, v.as_object_mut()) {
        o.insert("healthmonitor_id".into(), Value::String(hm));
    }
    v
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
    json!({
        "id": m.id, "name": name(&m.name), "operating_status": m.operating_status,
        "provisioning_status": m.provisioning_status, "admin_state_up": m.enabled, "address": m.ip_address,
        "protocol_port": m.protocol_port, "weight": m.weight, "backup": m.backup, "subnet_id": m.subnet_id,
        "project_id": m.project_id, "tenant_id": m.project_id, "created_at": dt(m.created_at),
        "updated_at": dt(m.updated_at), "monitor_address": m.monitor_address, "monitor_port": m.monitor_port,
        "tags": tags, "vnic_type": if m.vnic_type.is_empty() { "normal".to_string() } else { m.vnic_type.clone() },
    })
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

/// Drop list-only helper keys (used for filtering) from a rendered object.
pub fn strip(mut v: Value, keys: &[&str]) -> Value {
    if let Some(o) = v.as_object_mut() {
        for k in keys {
            o.remove(*k);
        }
    }
    v
}
