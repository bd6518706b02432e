//! The listener's response object, as `octavia/api/v2/types/listener.py` `ListenerResponse`.

use std::collections::BTreeMap;

use octavia_db::{ListenerAttachments, ListenerRow};
use serde::Serialize;

use crate::view::{Dt, IdRef, ScalarList, id_refs, or_empty};

/// A listener response object; fields in sorted key order (see [`crate::view`]).
#[derive(Serialize)]
pub struct ListenerView<'a> {
    admin_state_up: bool,
    allowed_cidrs: Option<&'a [String]>,
    alpn_protocols: ScalarList<'a>,
    client_authentication: &'a str,
    client_ca_tls_container_ref: Option<&'a str>,
    client_crl_container_ref: Option<&'a str>,
    connection_limit: Option<i32>,
    created_at: Dt,
    default_pool_id: Option<&'a str>,
    default_tls_container_ref: Option<&'a str>,
    description: &'a str,
    hsts_include_subdomains: Option<bool>,
    hsts_max_age: Option<i32>,
    hsts_preload: Option<bool>,
    id: &'a str,
    insert_headers: BTreeMap<String, String>,
    l7policies: Vec<IdRef<'a>>,
    loadbalancers: Vec<IdRef<'a>>,
    name: &'a str,
    operating_status: &'a str,
    project_id: Option<&'a str>,
    protocol: &'a str,
    protocol_port: i32,
    provisioning_status: &'a str,
    sni_container_refs: &'a [String],
    tags: &'a [String],
    tenant_id: Option<&'a str>,
    timeout_client_data: Option<i32>,
    timeout_member_connect: Option<i32>,
    timeout_member_data: Option<i32>,
    timeout_tcp_inspect: Option<i32>,
    tls_ciphers: Option<&'a str>,
    tls_versions: ScalarList<'a>,
    updated_at: Dt,
}

impl<'a> ListenerView<'a> {
    /// The response object of `l` with its collections: `""` for a NULL name or description,
    /// `insert_headers` unpickled (`{}` when NULL or not a pickled string map), no allowed
    /// CIDRs `null`, the comma-joined TLS versions / ALPN protocols as lists.
    pub fn new(l: &'a ListenerRow, att: &'a ListenerAttachments) -> Self {
        let insert_headers = l
            .insert_headers
            .as_deref()
            .and_then(|b| octavia_db::unpickle_str_dict(b).ok())
            .unwrap_or_default();
        Self {
            admin_state_up: l.enabled,
            allowed_cidrs: (!att.allowed_cidrs.is_empty()).then_some(att.allowed_cidrs.as_slice()),
            alpn_protocols: ScalarList(l.alpn_protocols.as_deref()),
            client_authentication: &l.client_authentication,
            client_ca_tls_container_ref: l.client_ca_tls_certificate_id.as_deref(),
            client_crl_container_ref: l.client_crl_container_id.as_deref(),
            connection_limit: l.connection_limit,
            created_at: Dt(l.created_at),
            default_pool_id: l.default_pool_id.as_deref(),
            default_tls_container_ref: l.tls_certificate_id.as_deref(),
            description: or_empty(&l.description),
            hsts_include_subdomains: l.hsts_include_subdomains,
            hsts_max_age: l.hsts_max_age,
            hsts_preload: l.hsts_preload,
            id: &l.id,
            insert_headers,
            l7policies: id_refs(&att.l7policy_ids),
            loadbalancers: id_refs(&l.load_balancer_id),
            name: or_empty(&l.name),
            operating_status: l.operating_status.as_str(),
            project_id: l.project_id.as_deref(),
            protocol: &l.protocol,
            protocol_port: l.protocol_port,
            provisioning_status: l.provisioning_status.as_str(),
            sni_container_refs: &att.sni_refs,
            tags: &att.tags,
            tenant_id: l.project_id.as_deref(),
            timeout_client_data: l.timeout_client_data,
            timeout_member_connect: l.timeout_member_connect,
            timeout_member_data: l.timeout_member_data,
            timeout_tcp_inspect: l.timeout_tcp_inspect,
            tls_ciphers: l.tls_ciphers.as_deref(),
            tls_versions: ScalarList(l.tls_versions.as_deref()),
            updated_at: Dt(l.updated_at),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::view::testing::{dt, ids, name, same_as_map, scalar_list, t};
    use serde_json::{Value, json};

    /// The `json!` map this view replaced (`render_listener_with` before the view).
    fn old_map(l: &ListenerRow, att: ListenerAttachments) -> Value {
        let ListenerAttachments {
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

    fn check(l: &ListenerRow, att: &ListenerAttachments) {
        let view = ListenerView::new(l, att);
        let attrs = crate::render::LISTENER_ATTRS;
        same_as_map(&view, old_map(l, att.clone()), attrs, &["loadbalancer_id"]);
    }

    #[test]
    fn listener_view_text_equals_the_map_it_replaced() {
        let headers = json!({"X-Forwarded-For": "true", "X-Forwarded-Port": "tr\"ue"});
        let full = ListenerRow {
            project_id: Some("p".into()),
            id: "i\"d".into(),
            name: Some("n\u{e9}".into()),
            description: Some("d\n".into()),
            protocol: "TERMINATED_HTTPS".into(),
            protocol_port: 443,
            connection_limit: Some(-1),
            load_balancer_id: Some("lb".into()),
            tls_certificate_id: Some("c".into()),
            default_pool_id: Some("dp".into()),
            provisioning_status: "ACTIVE".parse().unwrap(),
            operating_status: "ONLINE".parse().unwrap(),
            enabled: true,
            peer_port: Some(1025),
            insert_headers: Some(crate::pickle::dumps_str_dict(headers.as_object().unwrap())),
            created_at: Some(t()),
            updated_at: Some(t()),
            timeout_client_data: Some(50000),
            timeout_member_connect: Some(5000),
            timeout_member_data: Some(50000),
            timeout_tcp_inspect: Some(0),
            client_ca_tls_certificate_id: Some("ca".into()),
            client_authentication: "OPTIONAL".into(),
            client_crl_container_id: Some("crl".into()),
            tls_ciphers: Some("ECDHE".into()),
            tls_versions: Some("TLSv1.2,TLSv1.3".into()),
            alpn_protocols: Some(String::new()),
            hsts_max_age: Some(3600),
            hsts_include_subdomains: Some(true),
            hsts_preload: Some(false),
        };
        let att = ListenerAttachments {
            sni_refs: vec!["s1".into(), "s2".into()],
            allowed_cidrs: vec!["10.0.0.0/8".into()],
            tags: vec!["a".into(), "b".into()],
            l7policy_ids: vec!["p1".into(), "p2".into()],
        };
        check(&full, &att);
        // every optional field unset, a column that is not a pickle
        let bare = ListenerRow {
            id: "i".into(),
            protocol: "TCP".into(),
            protocol_port: 80,
            provisioning_status: "PENDING_CREATE".parse().unwrap(),
            operating_status: "OFFLINE".parse().unwrap(),
            client_authentication: "NONE".into(),
            ..Default::default()
        };
        check(&bare, &ListenerAttachments::default());
        let junk = ListenerRow {
            insert_headers: Some(b"not a pickle".to_vec()),
            ..bare
        };
        check(&junk, &ListenerAttachments::default());
        let m = crate::view::to_value(&ListenerView::new(&full, &att));
        assert_eq!(m["insert_headers"], headers);
        assert_eq!(m["alpn_protocols"], json!([]));
        assert_eq!(m["loadbalancers"], json!([{"id": "lb"}]));
    }
}
