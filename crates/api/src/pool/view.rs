//! The pool's response object, as `octavia/api/v2/types/pool.py` `PoolResponse` (and
//! `SessionPersistenceResponse`).

use octavia_db::{PoolAttachments, PoolRow, SessionPersistenceRow};
use serde::Serialize;

use crate::view::{Dt, IdRef, ScalarList, id_refs, or_empty};

/// A pool's session persistence; fields in sorted key order.
#[derive(Serialize)]
pub struct SessionPersistenceView<'a> {
    cookie_name: Option<&'a str>,
    persistence_granularity: Option<&'a str>,
    persistence_timeout: Option<i32>,
    r#type: &'a str,
}

impl<'a> SessionPersistenceView<'a> {
    /// The session persistence of its row.
    pub fn new(s: &'a SessionPersistenceRow) -> Self {
        Self {
            cookie_name: s.cookie_name.as_deref(),
            persistence_granularity: s.persistence_granularity.as_deref(),
            persistence_timeout: s.persistence_timeout,
            r#type: &s.r#type,
        }
    }
}

/// A pool response object; fields in sorted key order (see [`crate::view`]).
#[derive(Serialize)]
pub struct PoolView<'a> {
    admin_state_up: bool,
    alpn_protocols: ScalarList<'a>,
    ca_tls_container_ref: Option<&'a str>,
    created_at: Dt,
    crl_container_ref: Option<&'a str>,
    description: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    healthmonitor_id: Option<&'a str>,
    id: &'a str,
    lb_algorithm: &'a str,
    listeners: Vec<IdRef<'a>>,
    loadbalancers: Vec<IdRef<'a>>,
    members: Vec<IdRef<'a>>,
    name: &'a str,
    operating_status: &'a str,
    project_id: Option<&'a str>,
    protocol: &'a str,
    provisioning_status: &'a str,
    session_persistence: Option<SessionPersistenceView<'a>>,
    tags: &'a [String],
    tenant_id: Option<&'a str>,
    tls_ciphers: Option<&'a str>,
    tls_container_ref: Option<&'a str>,
    tls_enabled: bool,
    tls_versions: ScalarList<'a>,
    updated_at: Dt,
}

impl<'a> PoolView<'a> {
    /// The response object of `p` with its session persistence (`null` when none) and
    /// collections: `""` for a NULL name or description, `healthmonitor_id` left out when the
    /// pool has no monitor, the comma-joined TLS versions / ALPN protocols as lists.
    pub fn new(
        p: &'a PoolRow,
        sp: Option<&'a SessionPersistenceRow>,
        att: &'a PoolAttachments,
    ) -> Self {
        Self {
            admin_state_up: p.enabled,
            alpn_protocols: ScalarList(p.alpn_protocols.as_deref()),
            ca_tls_container_ref: p.ca_tls_certificate_id.as_deref(),
            created_at: Dt(p.created_at),
            crl_container_ref: p.crl_container_id.as_deref(),
            description: or_empty(&p.description),
            healthmonitor_id: att.healthmonitor_id.as_deref(),
            id: &p.id,
            lb_algorithm: &p.lb_algorithm,
            listeners: id_refs(&att.listener_ids),
            loadbalancers: id_refs(&p.load_balancer_id),
            members: id_refs(&att.member_ids),
            name: or_empty(&p.name),
            operating_status: p.operating_status.as_str(),
            project_id: p.project_id.as_deref(),
            protocol: &p.protocol,
            provisioning_status: p.provisioning_status.as_str(),
            session_persistence: sp.map(SessionPersistenceView::new),
            tags: &att.tags,
            tenant_id: p.project_id.as_deref(),
            tls_ciphers: p.tls_ciphers.as_deref(),
            tls_container_ref: p.tls_certificate_id.as_deref(),
            tls_enabled: p.tls_enabled,
            tls_versions: ScalarList(p.tls_versions.as_deref()),
            updated_at: Dt(p.updated_at),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::view::testing::{dt, ids, name, same_as_map, scalar_list, t};
    use serde_json::{Value, json};

    /// The `json!` map this view replaced (`render_pool_with` before the view).
    fn old_map(p: &PoolRow, sp: Option<&SessionPersistenceRow>, att: PoolAttachments) -> Value {
        let render_sp = |sp: &Option<SessionPersistenceRow>| match sp {
            None => Value::Null,
            Some(s) => json!({"type": s.r#type, "cookie_name": s.cookie_name,
                "persistence_timeout": s.persistence_timeout, "persistence_granularity": s.persistence_granularity}),
        };
        let PoolAttachments {
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

    fn check(p: &PoolRow, sp: Option<&SessionPersistenceRow>, att: &PoolAttachments) {
        let view = PoolView::new(p, sp, att);
        let mut hidden = vec!["loadbalancer_id"];
        if att.healthmonitor_id.is_none() {
            hidden.push("healthmonitor_id");
        }
        same_as_map(
            &view,
            old_map(p, sp, att.clone()),
            crate::render::POOL_ATTRS,
            &hidden,
        );
    }

    #[test]
    fn pool_view_text_equals_the_map_it_replaced() {
        let full = PoolRow {
            project_id: Some("p".into()),
            id: "i\"d".into(),
            name: Some("n\u{e9}".into()),
            description: Some("d\n".into()),
            protocol: "HTTPS".into(),
            lb_algorithm: "ROUND_ROBIN".into(),
            operating_status: "ONLINE".parse().unwrap(),
            enabled: true,
            load_balancer_id: Some("lb".into()),
            created_at: Some(t()),
            updated_at: Some(t()),
            provisioning_status: "ACTIVE".parse().unwrap(),
            tls_certificate_id: Some("c".into()),
            ca_tls_certificate_id: Some("ca".into()),
            crl_container_id: Some("crl".into()),
            tls_enabled: true,
            tls_ciphers: Some("ECDHE".into()),
            tls_versions: Some("TLSv1.2,TLSv1.3".into()),
            alpn_protocols: Some("h2,http/1.1".into()),
        };
        let sp = SessionPersistenceRow {
            pool_id: "i\"d".into(),
            r#type: "APP_COOKIE".into(),
            cookie_name: Some("c".into()),
            persistence_timeout: Some(360),
            persistence_granularity: Some("255.255.255.255".into()),
        };
        let att = PoolAttachments {
            listener_ids: vec!["l1".into()],
            member_ids: vec!["m1".into(), "m2".into()],
            healthmonitor_id: Some("hm".into()),
            tags: vec!["a".into(), "b".into()],
        };
        check(&full, Some(&sp), &att);
        let bare_sp = SessionPersistenceRow {
            r#type: "SOURCE_IP".into(),
            ..Default::default()
        };
        check(&full, Some(&bare_sp), &att);
        // every optional field unset: no monitor, no session persistence
        let bare = PoolRow {
            id: "i".into(),
            protocol: "TCP".into(),
            lb_algorithm: "SOURCE_IP_PORT".into(),
            operating_status: "OFFLINE".parse().unwrap(),
            provisioning_status: "PENDING_CREATE".parse().unwrap(),
            tls_versions: Some(String::new()),
            ..Default::default()
        };
        check(&bare, None, &PoolAttachments::default());
        let m = crate::view::to_value(&PoolView::new(&bare, None, &PoolAttachments::default()));
        assert!(m.get("healthmonitor_id").is_none());
        assert_eq!(m["session_persistence"], Value::Null);
    }
}
