//! The member's response object, as `octavia/api/v2/types/member.py` `MemberResponse`: the
//! view, its attribute table and its collection's listing spec from one declaration
//! (`crate::view::view_decl!`), and the renderers that read what it shows beside the row.

use octavia_db::{MemberRow, Tx};
use serde_json::Value;

use crate::fault::ApiError;
use crate::related::tags_by_id;
use crate::view::{Dt, or_empty, to_value, view_decl};

view_decl! {
    /// A member response object, as octavia/api/v2/types/member.py `MemberResponse`;
    /// serialised in sorted key order (see [`crate::view`]).
    pub struct MemberView<'a>;
    /// The response object of `m` with its tags (sorted): `""` for a NULL name, an empty
    /// vnic type `normal`.
    pub fn new(m: &'a MemberRow, tags: &'a [String]);
    /// `MemberResponse`'s attribute names in Octavia's declaration order (filters, sort keys,
    /// `fields=`).
    pub const MEMBER_ATTRS;
    /// `GET /v2/lbaas/pools/{pool_id}/members` in SQL.
    pub static MEMBER = { joins: &[], tags: true };
    fields {
        id: &'a str = &m.id => Val("`t`.`id`", Text),
        name: &'a str = or_empty(&m.name) => Str("`t`.`name`"),
        operating_status: &'a str = m.operating_status.as_str()
            => Val("`t`.`operating_status`", Text),
        provisioning_status: &'a str = m.provisioning_status.as_str()
            => Val("`t`.`provisioning_status`", Text),
        admin_state_up: bool = m.enabled => Val("`t`.`enabled`", Bool),
        address: Option<&'a str> = m.ip_address.as_deref() => Val("`t`.`ip_address`", Text),
        protocol_port: i32 = m.protocol_port => Val("`t`.`protocol_port`", Int),
        weight: Option<i32> = m.weight => Val("`t`.`weight`", Int),
        backup: bool = m.backup => Val("`t`.`backup`", Bool),
        subnet_id: Option<&'a str> = m.subnet_id.as_deref() => Val("`t`.`subnet_id`", Text),
        project_id: Option<&'a str> = m.project_id.as_deref() => Val("`t`.`project_id`", Text),
        tenant_id: Option<&'a str> = m.project_id.as_deref() => Val("`t`.`project_id`", Text),
        created_at: Dt = Dt(m.created_at) => Val("`t`.`created_at`", Time),
        updated_at: Dt = Dt(m.updated_at) => Val("`t`.`updated_at`", Time),
        monitor_address: Option<&'a str> = m.monitor_address.as_deref()
            => Val("`t`.`monitor_address`", Text),
        monitor_port: Option<i32> = m.monitor_port => Val("`t`.`monitor_port`", Int),
        tags: &'a [String] = tags => Has(
            "EXISTS (SELECT 1 FROM `tags` `g` WHERE `g`.`resource_id` = `t`.`id` AND `g`.`tag` = ?)"
        ),
        vnic_type: &'a str = if m.vnic_type.is_empty() { "normal" } else { &m.vnic_type } => Val(
            "CASE WHEN COALESCE(`t`.`vnic_type`, '') = '' THEN 'normal' ELSE `t`.`vnic_type` END",
            Text,
        ),
    }
}

/// `MemberResponse` of a row. Errors: the database's.
pub async fn render_member(tx: &mut Tx, m: &MemberRow) -> Result<Value, ApiError> {
    let tags = tx.tags(&m.id).await?;
    Ok(render_member_with(m, tags))
}

/// [`render_member`] of a list page (tags in one statement per 500). Errors: the database's.
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
    to_value(&MemberView::new(m, &tags))
}

impl crate::list::Listed for MemberRow {
    const SPEC: &'static crate::listing::Spec = &MEMBER;
    const ATTRS: &'static [&'static str] = MEMBER_ATTRS;
    const COLLECTION: &'static str = "members";
    const PATH: &'static str = "/v2/lbaas/pools/{parent}/members";
    const PARENT: Option<&'static str> = Some("pool_id");
    async fn render(tx: &mut Tx, rows: &[Self]) -> Result<Vec<Value>, ApiError> {
        render_members(tx, rows).await
    }
    fn id(&self) -> &str {
        &self.id
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::view::testing::{dt, name, same_as_map, t};
    use serde_json::{Value, json};

    /// The `json!` map this view replaced (`render_member_with` before the view).
    fn old_map(m: &MemberRow, tags: Vec<String>) -> Value {
        json!({
            "id": m.id, "name": name(&m.name), "operating_status": m.operating_status,
            "provisioning_status": m.provisioning_status, "admin_state_up": m.enabled, "address": m.ip_address,
            "protocol_port": m.protocol_port, "weight": m.weight, "backup": m.backup, "subnet_id": m.subnet_id,
            "project_id": m.project_id, "tenant_id": m.project_id, "created_at": dt(m.created_at),
            "updated_at": dt(m.updated_at), "monitor_address": m.monitor_address, "monitor_port": m.monitor_port,
            "tags": tags, "vnic_type": if m.vnic_type.is_empty() { "normal".to_string() } else { m.vnic_type.clone() },
        })
    }

    fn check(m: &MemberRow, tags: &[String]) {
        let view = MemberView::new(m, tags);
        same_as_map(&view, old_map(m, tags.to_vec()));
    }

    #[test]
    fn member_view_text_equals_the_map_it_replaced() {
        let full = MemberRow {
            project_id: Some("p".into()),
            id: "i\"d".into(),
            pool_id: "pool".into(),
            subnet_id: Some("s".into()),
            ip_address: Some("2001:db8::1".into()),
            protocol_port: 8080,
            weight: Some(0),
            operating_status: "ONLINE".parse().unwrap(),
            enabled: false,
            created_at: Some(t()),
            updated_at: Some(t()),
            provisioning_status: "ACTIVE".parse().unwrap(),
            name: Some("n\u{e9}\n".into()),
            monitor_address: Some("10.0.0.2".into()),
            monitor_port: Some(9000),
            backup: true,
            vnic_type: "direct".into(),
        };
        check(&full, &["a".into(), "b".into()]);
        // every optional field unset, an empty vnic type
        let bare = MemberRow {
            id: "i".into(),
            pool_id: "pool".into(),
            protocol_port: 80,
            operating_status: "NO_MONITOR".parse().unwrap(),
            provisioning_status: "PENDING_CREATE".parse().unwrap(),
            ..Default::default()
        };
        check(&bare, &[]);
        assert_eq!(
            crate::view::to_value(&MemberView::new(&bare, &[]))["vnic_type"],
            "normal"
        );
    }
}
