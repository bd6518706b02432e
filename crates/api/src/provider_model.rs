//! The provider data models of DB rows, as octavia/api/drivers/utils.py
//! `*_dict_to_provider_dict`: what a provider driver is handed (`provider::LoadBalancer`,
//! `Listener`, `Pool`, `Member`, `HealthMonitor`).

use octavia_db::{
    HealthMonitorRow, ListenerRow, LoadBalancerRow, MemberRow, PoolRow, SessionPersistenceRow, Tx,
};
use serde_json::{Value, json};

use crate::fault::ApiError;
use crate::related::{pool_first_listener_id, pool_hm, pool_members};

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

/// Provider `Member` of a row; `subnet` `None` (a create sets what its validation read).
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
        subnet: None,
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

/// Provider `Pool` of a row with its members, monitor and first listener.
pub async fn pool_model(tx: &mut Tx, p: &PoolRow) -> Result<provider::Pool, ApiError> {
    let sp: Option<SessionPersistenceRow> = tx.find(&p.id).await?;
    let listener_id = pool_first_listener_id(tx, &p.id).await?;
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
