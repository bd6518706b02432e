//! The pool's response object, as `octavia/api/v2/types/pool.py` `PoolResponse` (and
//! `SessionPersistenceResponse`): the view, its attribute table and its collection's listing
//! spec from one declaration (`crate::view::view_decl!`), and the renderers.

use octavia_db::{PoolAttachments, PoolRow, SessionPersistenceRow, Tx};
use serde::Serialize;
use serde_json::Value;

use crate::fault::ApiError;
use crate::related::rows_in;
use crate::view::{Dt, IdRef, ScalarList, id_refs, or_empty, to_text, to_value, view_decl};

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

view_decl! {
    /// A pool response object, as octavia/api/v2/types/pool.py `PoolResponse`; serialised in
    /// sorted key order (see [`crate::view`]).
    pub struct PoolView<'a>;
    /// The response object of `p` with its session persistence (`null` when none) and
    /// collections: `""` for a NULL name or description, `healthmonitor_id` left out when the
    /// pool has no monitor, the comma-joined TLS versions / ALPN protocols as lists.
    pub fn new(
        p: &'a PoolRow,
        sp: Option<&'a SessionPersistenceRow>,
        att: &'a PoolAttachments,
    );
    /// `PoolResponse`'s attribute names in Octavia's declaration order, then the list-only
    /// `loadbalancer_id` (filters, sort keys, `fields=`).
    pub const POOL_ATTRS;
    /// `GET /v2/lbaas/pools` in SQL.
    pub static POOL = { joins: &[], tags: true };
    fields {
        id: &'a str = &p.id => Val("`t`.`id`", Text),
        name: &'a str = or_empty(&p.name) => Str("`t`.`name`"),
        description: &'a str = or_empty(&p.description) => Str("`t`.`description`"),
        provisioning_status: &'a str = p.provisioning_status.as_str()
            => Val("`t`.`provisioning_status`", Text),
        operating_status: &'a str = p.operating_status.as_str()
            => Val("`t`.`operating_status`", Text),
        admin_state_up: bool = p.enabled => Val("`t`.`enabled`", Bool),
        protocol: &'a str = &p.protocol => Val("`t`.`protocol`", Text),
        lb_algorithm: &'a str = &p.lb_algorithm => Val("`t`.`lb_algorithm`", Text),
        session_persistence: Option<SessionPersistenceView<'a>> =
            sp.map(SessionPersistenceView::new) => Never,
        project_id: Option<&'a str> = p.project_id.as_deref() => Val("`t`.`project_id`", Text),
        tenant_id: Option<&'a str> = p.project_id.as_deref() => Val("`t`.`project_id`", Text),
        loadbalancers: Vec<IdRef<'a>> = id_refs(&p.load_balancer_id)
            => Has("`t`.`load_balancer_id` = ?"),
        listeners: Vec<IdRef<'a>> = id_refs(&att.listener_ids) => Has(
            "EXISTS (SELECT 1 FROM `listener` `x` WHERE `x`.`default_pool_id` = `t`.`id` AND `x`.`provisioning_status` <> 'DELETED' AND `x`.`id` = ?)"
        ),
        created_at: Dt = Dt(p.created_at) => Val("`t`.`created_at`", Time),
        updated_at: Dt = Dt(p.updated_at) => Val("`t`.`updated_at`", Time),
        // the pool's first monitor by (created_at, id), as the response shows it
        healthmonitor_id: Option<&'a str> = att.healthmonitor_id.as_deref() => Val(
            "(SELECT `x`.`id` FROM `health_monitor` `x` WHERE `x`.`pool_id` = `t`.`id` AND `x`.`provisioning_status` <> 'DELETED' ORDER BY `x`.`created_at`, `x`.`id` LIMIT 1)",
            Text,
        ); skip_none,
        members: Vec<IdRef<'a>> = id_refs(&att.member_ids) => Has(
            "EXISTS (SELECT 1 FROM `member` `x` WHERE `x`.`pool_id` = `t`.`id` AND `x`.`provisioning_status` <> 'DELETED' AND `x`.`id` = ?)"
        ),
        tags: &'a [String] = &att.tags => Has(
            "EXISTS (SELECT 1 FROM `tags` `g` WHERE `g`.`resource_id` = `t`.`id` AND `g`.`tag` = ?)"
        ),
        tls_container_ref: Option<&'a str> = p.tls_certificate_id.as_deref()
            => Val("`t`.`tls_certificate_id`", Text),
        ca_tls_container_ref: Option<&'a str> = p.ca_tls_certificate_id.as_deref()
            => Val("`t`.`ca_tls_certificate_id`", Text),
        crl_container_ref: Option<&'a str> = p.crl_container_id.as_deref()
            => Val("`t`.`crl_container_id`", Text),
        tls_enabled: bool = p.tls_enabled => Val("`t`.`tls_enabled`", Bool),
        tls_ciphers: Option<&'a str> = p.tls_ciphers.as_deref() => Val("`t`.`tls_ciphers`", Text),
        tls_versions: ScalarList<'a> = ScalarList(p.tls_versions.as_deref())
            => Csv("`t`.`tls_versions`"),
        alpn_protocols: ScalarList<'a> = ScalarList(p.alpn_protocols.as_deref())
            => Csv("`t`.`alpn_protocols`"),
    }
    list_only { loadbalancer_id => Val("`t`.`load_balancer_id`", Text) }
}

/// [`render_pool`] of a list page: session persistences in one statement, the rest in one
/// more (per 500 pools). Errors: the database's.
pub async fn render_pools(tx: &mut Tx, rows: &[PoolRow]) -> Result<Vec<Value>, ApiError> {
    pools_rendered(tx, rows, |v| to_value(v)).await
}

/// [`render_pools`] as each object's JSON text (a list page without `fields=`: no map per
/// object, see [`crate::view`]). Errors: the database's.
pub async fn render_pools_text(tx: &mut Tx, rows: &[PoolRow]) -> Result<Vec<String>, ApiError> {
    pools_rendered(tx, rows, |v| to_text(v)).await
}

/// The pools' views (their session persistence and collections read in two statements for
/// the whole page), each turned into `T` by `out`.
async fn pools_rendered<T>(
    tx: &mut Tx,
    rows: &[PoolRow],
    out: impl Fn(&PoolView<'_>) -> T,
) -> Result<Vec<T>, ApiError> {
    let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
    let sps: Vec<SessionPersistenceRow> = rows_in(tx, "pool_id", &ids).await?;
    let sps: std::collections::HashMap<&str, &SessionPersistenceRow> =
        sps.iter().map(|s| (s.pool_id.as_str(), s)).collect();
    let atts = tx.pools_attachments(&ids).await?;
    Ok(rows
        .iter()
        .zip(&atts)
        .map(|(r, a)| out(&PoolView::new(r, sps.get(r.id.as_str()).copied(), a)))
        .collect())
}

/// `PoolResponse` of a row (`healthmonitor_id` omitted when the pool has no monitor). Errors:
/// the database's.
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
    att: PoolAttachments,
) -> Value {
    to_value(&PoolView::new(p, sp, &att))
}

impl crate::list::Listed for PoolRow {
    const SPEC: &'static crate::listing::Spec = &POOL;
    const ATTRS: &'static [&'static str] = POOL_ATTRS;
    const COLLECTION: &'static str = "pools";
    const PATH: &'static str = "/v2/lbaas/pools";
    const HELPER: Option<crate::list::Helper<Self>> =
        Some(("loadbalancer_id", |r| serde_json::json!(r.load_balancer_id)));
    const TEXT: bool = true;
    async fn render_text(tx: &mut Tx, rows: &[Self]) -> Result<Vec<String>, ApiError> {
        render_pools_text(tx, rows).await
    }
    async fn render(tx: &mut Tx, rows: &[Self]) -> Result<Vec<Value>, ApiError> {
        render_pools(tx, rows).await
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
        same_as_map(&view, old_map(p, sp, att.clone()));
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
