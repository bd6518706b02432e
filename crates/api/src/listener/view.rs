//! The listener's response object, as `octavia/api/v2/types/listener.py` `ListenerResponse`:
//! the view, its attribute table and its collection's listing spec from one declaration
//! (`crate::view::view_decl!`), and the renderers.

use std::collections::BTreeMap;

use octavia_db::{ListenerAttachments, ListenerRow, Tx};
use serde_json::Value;

use crate::fault::ApiError;
use crate::view::{Dt, IdRef, ScalarList, id_refs, or_empty, to_value, view_decl};

view_decl! {
    /// A listener response object, as octavia/api/v2/types/listener.py `ListenerResponse`;
    /// serialised in sorted key order (see [`crate::view`]).
    pub struct ListenerView<'a>;
    /// The response object of `l` with its collections: `""` for a NULL name or description,
    /// `insert_headers` unpickled (`{}` when NULL or not a pickled string map), no allowed
    /// CIDRs `null`, the comma-joined TLS versions / ALPN protocols as lists.
    pub fn new(l: &'a ListenerRow, att: &'a ListenerAttachments);
    /// `ListenerResponse`'s attribute names in Octavia's declaration order, then the list-only
    /// `loadbalancer_id` (filters, sort keys, `fields=`).
    pub const LISTENER_ATTRS;
    /// `GET /v2/lbaas/listeners` in SQL.
    pub static LISTENER = { joins: &[], tags: true };
    fields {
        id: &'a str = &l.id => Val("`t`.`id`", Text),
        name: &'a str = or_empty(&l.name) => Str("`t`.`name`"),
        description: &'a str = or_empty(&l.description) => Str("`t`.`description`"),
        provisioning_status: &'a str = l.provisioning_status.as_str()
            => Val("`t`.`provisioning_status`", Text),
        operating_status: &'a str = l.operating_status.as_str()
            => Val("`t`.`operating_status`", Text),
        admin_state_up: bool = l.enabled => Val("`t`.`enabled`", Bool),
        protocol: &'a str = &l.protocol => Val("`t`.`protocol`", Text),
        protocol_port: i32 = l.protocol_port => Val("`t`.`protocol_port`", Int),
        connection_limit: Option<i32> = l.connection_limit => Val("`t`.`connection_limit`", Int),
        default_tls_container_ref: Option<&'a str> = l.tls_certificate_id.as_deref()
            => Val("`t`.`tls_certificate_id`", Text),
        sni_container_refs: &'a [String] = &att.sni_refs => Has(
            "EXISTS (SELECT 1 FROM `sni` `x` WHERE `x`.`listener_id` = `t`.`id` AND `x`.`tls_container_id` = ?)"
        ),
        project_id: Option<&'a str> = l.project_id.as_deref() => Val("`t`.`project_id`", Text),
        tenant_id: Option<&'a str> = l.project_id.as_deref() => Val("`t`.`project_id`", Text),
        default_pool_id: Option<&'a str> = l.default_pool_id.as_deref()
            => Val("`t`.`default_pool_id`", Text),
        l7policies: Vec<IdRef<'a>> = id_refs(&att.l7policy_ids) => Has(
            "EXISTS (SELECT 1 FROM `l7policy` `x` WHERE `x`.`listener_id` = `t`.`id` AND `x`.`id` = ?)"
        ),
        insert_headers: BTreeMap<String, String> = l
            .insert_headers
            .as_deref()
            .and_then(|b| octavia_db::unpickle_str_dict(b).ok())
            .unwrap_or_default() => Never,
        created_at: Dt = Dt(l.created_at) => Val("`t`.`created_at`", Time),
        updated_at: Dt = Dt(l.updated_at) => Val("`t`.`updated_at`", Time),
        loadbalancers: Vec<IdRef<'a>> = id_refs(&l.load_balancer_id)
            => Has("`t`.`load_balancer_id` = ?"),
        timeout_client_data: Option<i32> = l.timeout_client_data
            => Val("`t`.`timeout_client_data`", Int),
        timeout_member_connect: Option<i32> = l.timeout_member_connect
            => Val("`t`.`timeout_member_connect`", Int),
        timeout_member_data: Option<i32> = l.timeout_member_data
            => Val("`t`.`timeout_member_data`", Int),
        timeout_tcp_inspect: Option<i32> = l.timeout_tcp_inspect
            => Val("`t`.`timeout_tcp_inspect`", Int),
        tags: &'a [String] = &att.tags => Has(
            "EXISTS (SELECT 1 FROM `tags` `g` WHERE `g`.`resource_id` = `t`.`id` AND `g`.`tag` = ?)"
        ),
        client_ca_tls_container_ref: Option<&'a str> = l.client_ca_tls_certificate_id.as_deref()
            => Val("`t`.`client_ca_tls_certificate_id`", Text),
        client_authentication: &'a str = &l.client_authentication
            => Val("`t`.`client_authentication`", Text),
        client_crl_container_ref: Option<&'a str> = l.client_crl_container_id.as_deref()
            => Val("`t`.`client_crl_container_id`", Text),
        allowed_cidrs: Option<&'a [String]> =
            (!att.allowed_cidrs.is_empty()).then_some(att.allowed_cidrs.as_slice()) => Has(
            "EXISTS (SELECT 1 FROM `listener_cidr` `x` WHERE `x`.`listener_id` = `t`.`id` AND `x`.`cidr` = ?)"
        ),
        tls_ciphers: Option<&'a str> = l.tls_ciphers.as_deref() => Val("`t`.`tls_ciphers`", Text),
        tls_versions: ScalarList<'a> = ScalarList(l.tls_versions.as_deref())
            => Csv("`t`.`tls_versions`"),
        alpn_protocols: ScalarList<'a> = ScalarList(l.alpn_protocols.as_deref())
            => Csv("`t`.`alpn_protocols`"),
        hsts_max_age: Option<i32> = l.hsts_max_age => Val("`t`.`hsts_max_age`", Int),
        hsts_include_subdomains: Option<bool> = l.hsts_include_subdomains
            => Val("`t`.`hsts_include_subdomains`", Bool),
        hsts_preload: Option<bool> = l.hsts_preload => Val("`t`.`hsts_preload`", Bool),
    }
    list_only { loadbalancer_id => Val("`t`.`load_balancer_id`", Text) }
}

/// `ListenerResponse` of a row. Errors: the database's.
pub async fn render_listener(tx: &mut Tx, l: &ListenerRow) -> Result<Value, ApiError> {
    // one statement for the collections (octavia-db `listener_attachments`)
    let att = tx.listener_attachments(&l.id).await?;
    Ok(render_listener_with(l, att))
}

/// [`render_listener`] of a list page: the collections of all rows in one statement per 500.
/// Errors: the database's.
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
pub fn render_listener_with(l: &ListenerRow, att: ListenerAttachments) -> Value {
    to_value(&ListenerView::new(l, &att))
}

impl crate::list::Listed for ListenerRow {
    const SPEC: &'static crate::listing::Spec = &LISTENER;
    const ATTRS: &'static [&'static str] = LISTENER_ATTRS;
    const COLLECTION: &'static str = "listeners";
    const PATH: &'static str = "/v2/lbaas/listeners";
    const HELPER: Option<crate::list::Helper<Self>> =
        Some(("loadbalancer_id", |r| serde_json::json!(r.load_balancer_id)));
    async fn render(tx: &mut Tx, rows: &[Self]) -> Result<Vec<Value>, ApiError> {
        render_listeners(tx, rows).await
    }
    fn id(&self) -> &str {
        &self.id
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
        same_as_map(&view, old_map(l, att.clone()));
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
