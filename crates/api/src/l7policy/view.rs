//! The L7 policy's response object, as `octavia/api/v2/types/l7policy.py` `L7PolicyResponse`:
//! the view, its attribute table and its collection's listing spec from one declaration
//! (`crate::view::view_decl!`), and the renderers.

use octavia_db::{L7PolicyRow, L7RuleRow, Tx};
use serde_json::Value;

use crate::fault::ApiError;
use crate::related::{rows_in, tags_by_id};
use crate::view::{Dt, IdRef, or_empty, to_value, view_decl};

view_decl! {
    /// An L7 policy response object, as octavia/api/v2/types/l7policy.py `L7PolicyResponse`;
    /// serialised in sorted key order (see [`crate::view`]).
    pub struct L7PolicyView<'a>;
    /// The response object of `p` with its rules' ids (rendered `[{id}]` in the order given,
    /// oldest first) and tags (sorted): `""` for a NULL name or description.
    pub fn new(
        p: &'a L7PolicyRow,
        rule_ids: impl IntoIterator<Item = &'a str>,
        tags: &'a [String],
    );
    /// `L7PolicyResponse`'s attribute names in Octavia's declaration order (filters, sort keys,
    /// `fields=`).
    pub const L7POLICY_ATTRS;
    /// `GET /v2/lbaas/l7policies` in SQL.
    pub static L7POLICY = { joins: &[], tags: true };
    fields {
        id: &'a str = &p.id => Val("`t`.`id`", Text),
        name: &'a str = or_empty(&p.name) => Str("`t`.`name`"),
        description: &'a str = or_empty(&p.description) => Str("`t`.`description`"),
        provisioning_status: &'a str = p.provisioning_status.as_str()
            => Val("`t`.`provisioning_status`", Text),
        operating_status: &'a str = p.operating_status.as_str()
            => Val("`t`.`operating_status`", Text),
        admin_state_up: bool = p.enabled => Val("`t`.`enabled`", Bool),
        project_id: Option<&'a str> = p.project_id.as_deref() => Val("`t`.`project_id`", Text),
        tenant_id: Option<&'a str> = p.project_id.as_deref() => Val("`t`.`project_id`", Text),
        action: &'a str = &p.action => Val("`t`.`action`", Text),
        listener_id: &'a str = &p.listener_id => Val("`t`.`listener_id`", Text),
        redirect_pool_id: Option<&'a str> = p.redirect_pool_id.as_deref()
            => Val("`t`.`redirect_pool_id`", Text),
        redirect_url: Option<&'a str> = p.redirect_url.as_deref()
            => Val("`t`.`redirect_url`", Text),
        redirect_prefix: Option<&'a str> = p.redirect_prefix.as_deref()
            => Val("`t`.`redirect_prefix`", Text),
        position: i32 = p.position => Val("`t`.`position`", Int),
        rules: Vec<IdRef<'a>> = rule_ids.into_iter().map(|id| IdRef { id }).collect() => Has(
            "EXISTS (SELECT 1 FROM `l7rule` `x` WHERE `x`.`l7policy_id` = `t`.`id` AND `x`.`provisioning_status` <> 'DELETED' AND `x`.`id` = ?)"
        ),
        created_at: Dt = Dt(p.created_at) => Val("`t`.`created_at`", Time),
        updated_at: Dt = Dt(p.updated_at) => Val("`t`.`updated_at`", Time),
        tags: &'a [String] = tags => Has(
            "EXISTS (SELECT 1 FROM `tags` `g` WHERE `g`.`resource_id` = `t`.`id` AND `g`.`tag` = ?)"
        ),
        redirect_http_code: Option<i32> = p.redirect_http_code
            => Val("`t`.`redirect_http_code`", Int),
    }
}

/// `L7PolicyResponse` of a row (`rules` as `[{id}]`, oldest first; DELETED rules left out).
/// Errors: the database's.
pub async fn render_policy(tx: &mut Tx, p: &L7PolicyRow) -> Result<Value, ApiError> {
    let rules: Vec<L7RuleRow> = rows_in(tx, "l7policy_id", std::slice::from_ref(&p.id)).await?;
    let tags = tx.tags(&p.id).await?;
    let rule_ids = rules.iter().map(|r| r.id.as_str());
    Ok(to_value(&L7PolicyView::new(p, rule_ids, &tags)))
}

/// [`render_policy`] of a list page: the rules of all rows in one statement, their tags in one
/// more (per 500). Errors: the database's.
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
            to_value(&L7PolicyView::new(p, rule_ids, tags))
        })
        .collect())
}

impl crate::list::Listed for L7PolicyRow {
    const SPEC: &'static crate::listing::Spec = &L7POLICY;
    const ATTRS: &'static [&'static str] = L7POLICY_ATTRS;
    const COLLECTION: &'static str = "l7policies";
    const PATH: &'static str = "/v2/lbaas/l7policies";
    async fn render(tx: &mut Tx, rows: &[Self]) -> Result<Vec<Value>, ApiError> {
        render_policies(tx, rows).await
    }
    fn id(&self) -> &str {
        &self.id
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::view::testing::{dt, same_as_map, t};
    use serde_json::{Value, json};

    /// The `json!` map the policy view replaced (`l7policy::render_policy_with` before it).
    fn old_policy(p: &L7PolicyRow, rules: Vec<Value>, tags: Vec<String>) -> Value {
        json!({
            "id": p.id, "name": p.name.clone().unwrap_or_default(),
            "description": p.description.clone().unwrap_or_default(),
            "provisioning_status": p.provisioning_status, "operating_status": p.operating_status,
            "admin_state_up": p.enabled, "project_id": p.project_id, "tenant_id": p.project_id,
            "action": p.action, "listener_id": p.listener_id, "redirect_pool_id": p.redirect_pool_id,
            "redirect_url": p.redirect_url, "redirect_prefix": p.redirect_prefix,
            "position": p.position, "rules": rules,
            "created_at": dt(p.created_at), "updated_at": dt(p.updated_at), "tags": tags,
            "redirect_http_code": p.redirect_http_code,
        })
    }

    fn check_policy(p: &L7PolicyRow, rules: &[&str], tags: &[String]) {
        let view = L7PolicyView::new(p, rules.iter().copied(), tags);
        let rule_maps = rules.iter().map(|r| json!({"id": r})).collect();
        let map = old_policy(p, rule_maps, tags.to_vec());
        same_as_map(&view, map);
    }

    #[test]
    fn l7policy_view_text_equals_the_map_it_replaced() {
        let full = L7PolicyRow {
            id: "i\"d".into(),
            name: Some("n\u{e9}".into()),
            description: Some("d\n".into()),
            listener_id: "l".into(),
            action: "REDIRECT_PREFIX".into(),
            redirect_pool_id: Some("rp".into()),
            redirect_url: Some("http://a/".into()),
            position: 3,
            enabled: true,
            provisioning_status: "ACTIVE".parse().unwrap(),
            created_at: Some(t()),
            updated_at: Some(t()),
            project_id: Some("p".into()),
            operating_status: "ONLINE".parse().unwrap(),
            redirect_prefix: Some("https://b".into()),
            redirect_http_code: Some(308),
        };
        check_policy(&full, &["r2", "r1"], &["a".into(), "b".into()]);
        // every optional field unset
        let bare = L7PolicyRow {
            id: "i".into(),
            listener_id: "l".into(),
            action: "REJECT".into(),
            position: 1,
            provisioning_status: "PENDING_CREATE".parse().unwrap(),
            operating_status: "OFFLINE".parse().unwrap(),
            ..Default::default()
        };
        check_policy(&bare, &[], &[]);
    }
}
