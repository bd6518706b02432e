//! What every controller shares, as `octavia/api/v2/controllers/base.py`: rendering of DB
//! rows into response objects (`""` for NULL names, `tenant_id` echo, datetimes without
//! timezone, as octavia/api/v2/types), the provider data models built from rows
//! (`octavia/api/drivers/utils.py` `*_dict_to_provider_dict`),
//! the provider call wrapper (`octavia/api/drivers/utils.py::call_provider`), and list plumbing.

use axum::http::HeaderMap;
use chrono::NaiveDateTime;
use octavia_db::{
    HealthMonitorRow, ListQuery, ListenerRow, LoadBalancerRow, MemberRow, PoolRow,
    SessionPersistenceRow, Tx,
};
use provider::ProvisioningStatus;
use serde_json::{Map, Value, json};

use crate::AppState;
use crate::fault::ApiError;
use crate::pagination::{self, ListParams};

/// Octavia's datetime rendering: ISO-8601 without timezone, e.g. `2026-11-29T19:59:59`.
pub fn dt(t: Option<NaiveDateTime>) -> Value {
    t.map_or(Value::Null, |t| {
        Value::String(t.format("%Y-%m-%dT%H:%M:%S").to_string())
    })
}

fn name(v: &Option<String>) -> Value {
    Value::String(v.clone().unwrap_or_default())
}

fn ids(ids: &[String]) -> Value {
    Value::Array(ids.iter().map(|i| json!({ "id": i })).collect())
}

/// A comma-joined `ScalarListType` column as a list (`NULL` → `null`).
pub fn scalar_list(v: &Option<String>) -> Value {
    match v {
        None => Value::Null,
        Some(s) if s.is_empty() => json!([]),
        Some(s) => Value::Array(s.split(',').map(|x| Value::String(x.to_string())).collect()),
    }
}

/// A list as a `ScalarListType` column.
pub fn join_list(v: Option<Vec<String>>) -> Option<String> {
    v.map(|l| l.join(","))
}

/// Run a provider call inside the write transaction `tx`, mapping its error as Octavia's
/// `call_provider` does (octavia/api/drivers/utils.py). The work the call
/// queues waits for `tx` to commit ([`octavia_db::Tx::commit_gate`]): a rollback, or a crash
/// before the commit, leaves the OVN NB untouched.
pub async fn call_provider<T>(
    tx: &mut Tx,
    provider: &str,
    fut: impl std::future::Future<Output = Result<T, provider::ProviderError>>,
) -> Result<T, ApiError> {
    // the queued work waits for the commit: a deadlock victim may still run again (retry)
    let gate = tx.commit_gate();
    provider::gate::scope(gate, fut)
        .await
        .map_err(|error| ApiError::Provider {
            provider: provider.to_string(),
            error,
        })
}

/// A provider call that queues no work (flavor / availability-zone metadata and validation,
/// failover's refusal), outside any transaction; errors mapped as [`call_provider`].
pub async fn query_provider<T>(
    provider: &str,
    fut: impl std::future::Future<Output = Result<T, provider::ProviderError>>,
) -> Result<T, ApiError> {
    fut.await.map_err(|error| ApiError::Provider {
        provider: provider.to_string(),
        error,
    })
}

/// The driver a request names when it sends a provider: `null` or empty is `amphora`, as
/// `driver_factory.get_driver` (only an absent provider means the default).
pub fn driver_name(sent: Option<String>) -> String {
    sent.filter(|n| !n.is_empty())
        .unwrap_or_else(|| "amphora".to_string())
}

/// The provider name of a load balancer (NULL means `amphora`).
pub fn lb_provider(lb: &LoadBalancerRow) -> String {
    lb.provider
        .clone()
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| "amphora".into())
}

/// Reject any query parameter on endpoints that declare none but `allowed`
/// (400 `Unknown argument: "<name>"`, WSME).
pub fn no_query(pairs: &[(String, String)], allowed: &[&str]) -> Result<(), ApiError> {
    match pairs.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
        Some((k, _)) => Err(ApiError::UnknownArgument(k.clone())),
        None => Ok(()),
    }
}

/// `GET one` validates pagination parameters too (the reference's hook runs for every GET).
pub fn check_get_query(
    state: &AppState,
    pairs: &[(String, String)],
) -> Result<Vec<String>, ApiError> {
    let p = ListParams::parse(pairs, state.config().pagination_max_limit, state.config())?;
    Ok(p.fields)
}

/// Apply `fields=` to a single object.
pub fn select(obj: Value, fields: &[String]) -> Value {
    match obj {
        Value::Object(m) => Value::Object(pagination::project_fields(m, fields)),
        other => other,
    }
}

/// Build a collection body `{<key>: [...], <key>_links: [...]}` from rendered objects.
pub fn collection(
    state: &AppState,
    headers: &HeaderMap,
    path: &str,
    key: &str,
    all: Vec<Value>,
    params: &ListParams,
    attrs: &[&str],
) -> Result<Value, ApiError> {
    let objs: Vec<Map<String, Value>> = all
        .into_iter()
        .filter_map(|v| v.as_object().cloned())
        .collect();
    let url = pagination::path_url(state, headers, path);
    let page = pagination::apply(objs, params, attrs, &url, state.config())?;
    let mut body = Map::new();
    body.insert(key.to_string(), Value::Array(page.items));
    body.insert(format!("{key}_links"), page.links);
    Ok(Value::Object(body))
}

/// Keys of a rendered object (the attributes filters and sort keys may name).
pub fn attrs_of(sample: &[&'static str]) -> Vec<&'static str> {
    sample.to_vec()
}

/// The id lists a load balancer renders.
pub async fn lb_children(
    tx: &mut Tx,
    lb_id: &str,
) -> Result<(Vec<ListenerRow>, Vec<PoolRow>), ApiError> {
    let q = ListQuery::default().filter("load_balancer_id", lb_id);
    let listeners: Vec<ListenerRow> = tx.list(&q).await?;
    let pools: Vec<PoolRow> = tx.list(&q).await?;
    Ok((
        listeners
            .into_iter()
            .filter(|l| l.provisioning_status != ProvisioningStatus::Deleted)
            .collect(),
        pools
            .into_iter()
            .filter(|p| p.provisioning_status != ProvisioningStatus::Deleted)
            .collect(),
    ))
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

/// Listeners whose default pool is `pool_id` (non-DELETED).
pub async fn pool_listeners(tx: &mut Tx, pool_id: &str) -> Result<Vec<ListenerRow>, ApiError> {
    let ls: Vec<ListenerRow> = tx
        .list(&ListQuery::default().filter("default_pool_id", pool_id))
        .await?;
    Ok(ls
        .into_iter()
        .filter(|l| l.provisioning_status != ProvisioningStatus::Deleted)
        .collect())
}

/// The pool's health monitor, if any (non-DELETED).
pub async fn pool_hm(tx: &mut Tx, pool_id: &str) -> Result<Option<HealthMonitorRow>, ApiError> {
    let hms: Vec<HealthMonitorRow> = tx
        .list(&ListQuery::default().filter("pool_id", pool_id))
        .await?;
    Ok(hms
        .into_iter()
        .find(|h| h.provisioning_status != ProvisioningStatus::Deleted))
}

/// The pool's members (non-DELETED).
pub async fn pool_members(tx: &mut Tx, pool_id: &str) -> Result<Vec<MemberRow>, ApiError> {
    let ms: Vec<MemberRow> = tx
        .list(&ListQuery::default().filter("pool_id", pool_id))
        .await?;
    Ok(ms
        .into_iter()
        .filter(|m| m.provisioning_status != ProvisioningStatus::Deleted)
        .collect())
}

/// Tags of many resources, sorted, in the order of `ids` (one statement per 500 ids).
pub async fn tags_by_id(tx: &mut Tx, ids: &[String]) -> Result<Vec<Vec<String>>, ApiError> {
    let mut out = vec![Vec::new(); ids.len()];
    let at: std::collections::HashMap<&str, usize> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect();
    for chunk in ids.chunks(500) {
        for t in tx.tags_of(chunk).await? {
            if let Some(&i) = at.get(t.resource_id.as_str()) {
                out[i].push(t.tag);
            }
        }
    }
    Ok(out)
}

/// Rows of `T` whose `column` is one of `ids`, in `ListQuery`'s default order (`created_at`,
/// key), DELETED ones left out when `T` has a provisioning status (one statement per 500 ids).
pub async fn rows_in<T: octavia_db::Record>(
    tx: &mut Tx,
    column: &str,
    ids: &[String],
) -> Result<Vec<T>, ApiError> {
    let mut out = Vec::new();
    for chunk in ids.chunks(500) {
        let q = ListQuery {
            filters_in: vec![(
                column.to_string(),
                chunk.iter().map(|i| i.as_str().into()).collect(),
            )],
            exclude_deleted: true,
            ..ListQuery::default()
        };
        out.extend(tx.list::<T>(&q).await?);
    }
    Ok(out)
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

// ---- provider data models (octavia/api/drivers/utils.py) ----

/// Provider `LoadBalancer` of a row (+ its VIP); `flavor`/`availability_zone` are `{}`.
pub async fn lb_model(
    tx: &mut Tx,
    lb: &LoadBalancerRow,
) -> Result<provider::LoadBalancer, ApiError> {
    let vip = tx.vip(&lb.id).await?.unwrap_or_default();
    let sgs = tx.vip_sg_ids(&lb.id).await?;
    let add = tx.additional_vips(&lb.id).await?;
    Ok(lb_model_with(lb, vip, sgs, add))
}

/// [`lb_model`] with the VIP row, the VIP security group ids (sorted) and the additional VIPs
/// (by `subnet_id`) already at hand (`keel ovn-db-sync` reads them for many LBs at once).
pub fn lb_model_with(
    lb: &LoadBalancerRow,
    vip: octavia_db::VipRow,
    sgs: Vec<String>,
    add: Vec<octavia_db::AdditionalVipRow>,
) -> provider::LoadBalancer {
    provider::LoadBalancer {
        loadbalancer_id: lb.id.clone(),
        name: lb.name.clone(),
        description: lb.description.clone(),
        admin_state_up: Some(lb.enabled),
        project_id: lb.project_id.clone(),
        vip_address: vip.ip_address,
        vip_network_id: vip.network_id,
        vip_port_id: vip.port_id,
        vip_subnet_id: vip.subnet_id,
        vip_qos_policy_id: vip.qos_policy_id,
        vip_sg_ids: Some(sgs),
        additional_vips: Some(
            add.into_iter()
                .map(|a| provider::AdditionalVip {
                    ip_address: a.ip_address,
                    network_id: a.network_id,
                    port_id: a.port_id,
                    subnet_id: Some(a.subnet_id),
                })
                .collect(),
        ),
        flavor: Some(json!({})),
        availability_zone: Some(json!({})),
        listeners: None,
        pools: None,
    }
}

/// Provider `Listener` of a row.
pub async fn listener_model(tx: &mut Tx, l: &ListenerRow) -> Result<provider::Listener, ApiError> {
    let att = tx.listener_attachments(&l.id).await?;
    Ok(listener_model_with(l, &att))
}

/// [`listener_model`] with the collections already at hand.
pub fn listener_model_with(
    l: &ListenerRow,
    att: &octavia_db::ListenerAttachments,
) -> provider::Listener {
    let sni = att.sni_refs.clone();
    let cidrs = att.allowed_cidrs.clone();
    let headers = l
        .insert_headers
        .as_deref()
        .and_then(crate::pickle::loads_str_dict);
    provider::Listener {
        listener_id: l.id.clone(),
        loadbalancer_id: l.load_balancer_id.clone(),
        name: l.name.clone(),
        description: l.description.clone(),
        admin_state_up: Some(l.enabled),
        project_id: l.project_id.clone(),
        protocol: Some(l.protocol.clone()),
        protocol_port: u16::try_from(l.protocol_port).ok(),
        connection_limit: l.connection_limit.map(i64::from),
        default_pool_id: l.default_pool_id.clone().map(Some),
        default_tls_container_ref: l.tls_certificate_id.clone(),
        sni_container_refs: Some(sni),
        insert_headers: headers,
        timeout_client_data: l.timeout_client_data.map(i64::from),
        timeout_member_connect: l.timeout_member_connect.map(i64::from),
        timeout_member_data: l.timeout_member_data.map(i64::from),
        timeout_tcp_inspect: l.timeout_tcp_inspect.map(i64::from),
        client_ca_tls_container_ref: l.client_ca_tls_certificate_id.clone(),
        client_authentication: Some(l.client_authentication.clone()),
        client_crl_container_ref: l.client_crl_container_id.clone(),
        allowed_cidrs: if cidrs.is_empty() { None } else { Some(cidrs) },
        tls_versions: l.tls_versions.as_ref().map(|s| {
            s.split(',')
                .filter(|x| !x.is_empty())
                .map(str::to_string)
                .collect()
        }),
        tls_ciphers: l.tls_ciphers.clone(),
        alpn_protocols: l.alpn_protocols.as_ref().map(|s| {
            s.split(',')
                .filter(|x| !x.is_empty())
                .map(str::to_string)
                .collect()
        }),
        hsts_max_age: l.hsts_max_age.map(i64::from),
        hsts_include_subdomains: l.hsts_include_subdomains,
        hsts_preload: l.hsts_preload,
        ..Default::default()
    }
}

/// Provider `Member` of a row.
pub fn member_model(m: &MemberRow) -> provider::Member {
    provider::Member {
        member_id: m.id.clone(),
        pool_id: Some(m.pool_id.clone()),
        name: m.name.clone(),
        address: m.ip_address.clone(),
        protocol_port: u16::try_from(m.protocol_port).ok(),
        subnet_id: m.subnet_id.clone(),
        admin_state_up: Some(m.enabled),
        weight: m.weight.map(i64::from),
        backup: Some(m.backup),
        monitor_address: m.monitor_address.clone(),
        monitor_port: m.monitor_port.and_then(|p| u16::try_from(p).ok()),
        project_id: m.project_id.clone(),
        vnic_type: Some(if m.vnic_type.is_empty() {
            "normal".into()
        } else {
            m.vnic_type.clone()
        }),
    }
}

/// Provider `HealthMonitor` of a row.
pub fn hm_model(h: &HealthMonitorRow) -> provider::HealthMonitor {
    provider::HealthMonitor {
        healthmonitor_id: h.id.clone(),
        pool_id: Some(h.pool_id.clone()),
        name: h.name.clone(),
        admin_state_up: Some(h.enabled),
        project_id: h.project_id.clone(),
        kind: Some(h.r#type.clone()),
        delay: Some(i64::from(h.delay)),
        timeout: Some(i64::from(h.timeout)),
        max_retries: Some(i64::from(h.rise_threshold)),
        max_retries_down: Some(i64::from(h.fall_threshold)),
        http_method: h.http_method.clone(),
        url_path: h.url_path.clone(),
        expected_codes: h.expected_codes.clone(),
        http_version: h
            .http_version
            .map(|v| (f64::from(v) * 100.0).round() / 100.0),
        domain_name: h.domain_name.clone(),
    }
}

/// The provider's `session_persistence` dict (keys with NULL values left out).
pub fn sp_model(s: &SessionPersistenceRow) -> Value {
    let mut v = json!({"type": s.r#type});
    if let Some(o) = v.as_object_mut() {
        if let Some(c) = &s.cookie_name {
            o.insert("cookie_name".into(), json!(c));
        }
        if let Some(t) = s.persistence_timeout {
            o.insert("persistence_timeout".into(), json!(t));
        }
        if let Some(g) = &s.persistence_granularity {
            o.insert("persistence_granularity".into(), json!(g));
        }
    }
    v
}

/// Provider `Pool` of a row with its members and monitor.
pub async fn pool_model(tx: &mut Tx, p: &PoolRow) -> Result<provider::Pool, ApiError> {
    let sp: Option<SessionPersistenceRow> = tx.find(&p.id).await?;
    let listener_id = pool_listeners(tx, &p.id)
        .await?
        .into_iter()
        .next()
        .map(|l| l.id);
    let members = pool_members(tx, &p.id)
        .await?
        .iter()
        .map(member_model)
        .collect();
    let hm = pool_hm(tx, &p.id).await?.as_ref().map(hm_model);
    Ok(pool_model_with(p, sp.as_ref(), listener_id, members, hm))
}

/// [`pool_model`] with its parts already at hand (a pool create knows them all).
pub fn pool_model_with(
    p: &PoolRow,
    sp: Option<&SessionPersistenceRow>,
    listener_id: Option<String>,
    members: Vec<provider::Member>,
    hm: Option<provider::HealthMonitor>,
) -> provider::Pool {
    provider::Pool {
        pool_id: p.id.clone(),
        loadbalancer_id: p.load_balancer_id.clone(),
        listener_id,
        name: p.name.clone(),
        description: p.description.clone(),
        admin_state_up: Some(p.enabled),
        project_id: p.project_id.clone(),
        lb_algorithm: Some(p.lb_algorithm.clone()),
        protocol: Some(p.protocol.clone()),
        healthmonitor: hm,
        members: Some(members),
        session_persistence: sp.map(sp_model),
        tls_container_ref: p.tls_certificate_id.clone(),
        ca_tls_container_ref: p.ca_tls_certificate_id.clone(),
        crl_container_ref: p.crl_container_id.clone(),
        tls_enabled: Some(p.tls_enabled),
        tls_versions: p.tls_versions.as_ref().map(|s| {
            s.split(',')
                .filter(|x| !x.is_empty())
                .map(str::to_string)
                .collect()
        }),
        tls_ciphers: p.tls_ciphers.clone(),
        alpn_protocols: p.alpn_protocols.as_ref().map(|s| {
            s.split(',')
                .filter(|x| !x.is_empty())
                .map(str::to_string)
                .collect()
        }),
        ..Default::default()
    }
}

/// A new UUID string (ids are server-generated).
pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// Rows of a table visible to a list: non-DELETED, in `project` when scoped.
pub async fn visible<T: octavia_db::Record + octavia_db::HasProvisioningStatus>(
    tx: &mut Tx,
    project: &Option<String>,
    extra: Vec<(&str, octavia_db::SqlValue)>,
) -> Result<Vec<T>, ApiError> {
    let mut q = ListQuery {
        exclude_deleted: true,
        ..ListQuery::default()
    };
    if let Some(p) = project {
        q = q.filter("project_id", p.as_str());
    }
    for (k, v) in extra {
        q = q.filter(k, v);
    }
    Ok(tx.list(&q).await?)
}
