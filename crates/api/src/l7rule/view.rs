//! The L7 rule's response object, as `octavia/api/v2/types/l7rule.py` `L7RuleResponse`: the
//! view, its attribute table and its collection's listing spec from one declaration
//! (`crate::view::view_decl!`), and the renderers.

use octavia_db::{L7RuleRow, Tx};
use serde_json::Value;

use crate::fault::ApiError;
use crate::related::tags_by_id;
use crate::view::{Dt, to_value, view_decl};

view_decl! {
    /// An L7 rule response object, as octavia/api/v2/types/l7rule.py `L7RuleResponse`;
    /// serialised in sorted key order (see [`crate::view`]).
    pub struct L7RuleView<'a>;
    /// The response object of `r` with its tags (sorted).
    pub fn new(r: &'a L7RuleRow, tags: &'a [String]);
    /// `L7RuleResponse`'s attribute names in Octavia's declaration order (filters, sort keys,
    /// `fields=`).
    pub const L7RULE_ATTRS;
    /// `GET /v2/lbaas/l7policies/{l7policy_id}/rules` in SQL.
    pub static L7RULE = { joins: &[], tags: true };
    fields {
        id: &'a str = &r.id => Val("`t`.`id`", Text),
        r#type: &'a str = &r.r#type => Val("`t`.`type`", Text),
        compare_type: &'a str = &r.compare_type => Val("`t`.`compare_type`", Text),
        key: Option<&'a str> = r.key.as_deref() => Val("`t`.`key`", Text),
        value: &'a str = &r.value => Val("`t`.`value`", Text),
        invert: bool = r.invert => Val("`t`.`invert`", Bool),
        provisioning_status: &'a str = r.provisioning_status.as_str()
            => Val("`t`.`provisioning_status`", Text),
        operating_status: &'a str = r.operating_status.as_str()
            => Val("`t`.`operating_status`", Text),
        created_at: Dt = Dt(r.created_at) => Val("`t`.`created_at`", Time),
        updated_at: Dt = Dt(r.updated_at) => Val("`t`.`updated_at`", Time),
        project_id: Option<&'a str> = r.project_id.as_deref() => Val("`t`.`project_id`", Text),
        tenant_id: Option<&'a str> = r.project_id.as_deref() => Val("`t`.`project_id`", Text),
        admin_state_up: bool = r.enabled => Val("`t`.`enabled`", Bool),
        tags: &'a [String] = tags => Has(
            "EXISTS (SELECT 1 FROM `tags` `g` WHERE `g`.`resource_id` = `t`.`id` AND `g`.`tag` = ?)"
        ),
    }
}

/// `L7RuleResponse` of a row. Errors: the database's.
pub async fn render_rule(tx: &mut Tx, r: &L7RuleRow) -> Result<Value, ApiError> {
    let tags = tx.tags(&r.id).await?;
    Ok(to_value(&L7RuleView::new(r, &tags)))
}

/// [`render_rule`] of a list page (tags in one statement per 500). Errors: the database's.
pub async fn render_rules(tx: &mut Tx, rows: &[L7RuleRow]) -> Result<Vec<Value>, ApiError> {
    let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
    let tags = tags_by_id(tx, &ids).await?;
    Ok(rows
        .iter()
        .zip(&tags)
        .map(|(r, t)| to_value(&L7RuleView::new(r, t)))
        .collect())
}

impl crate::list::Listed for L7RuleRow {
    const SPEC: &'static crate::listing::Spec = &L7RULE;
    const ATTRS: &'static [&'static str] = L7RULE_ATTRS;
    const COLLECTION: &'static str = "rules";
    const PATH: &'static str = "/v2/lbaas/l7policies/{parent}/rules";
    const PARENT: Option<&'static str> = Some("l7policy_id");
    async fn render(tx: &mut Tx, rows: &[Self]) -> Result<Vec<Value>, ApiError> {
        render_rules(tx, rows).await
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

    /// The `json!` map the rule view replaced (`l7rule::render_rule_with` before it).
    fn old_rule(r: &L7RuleRow, tags: Vec<String>) -> Value {
        json!({
            "id": r.id, "type": r.r#type, "compare_type": r.compare_type, "key": r.key,
            "value": r.value, "invert": r.invert, "provisioning_status": r.provisioning_status,
            "operating_status": r.operating_status, "created_at": dt(r.created_at),
            "updated_at": dt(r.updated_at), "project_id": r.project_id, "tenant_id": r.project_id,
            "admin_state_up": r.enabled, "tags": tags,
        })
    }

    fn check_rule(r: &L7RuleRow, tags: &[String]) {
        let view = L7RuleView::new(r, tags);
        same_as_map(&view, old_rule(r, tags.to_vec()));
    }

    #[test]
    fn l7rule_view_text_equals_the_map_it_replaced() {
        let full = L7RuleRow {
            id: "i\"d".into(),
            l7policy_id: "pol".into(),
            r#type: "HEADER".into(),
            compare_type: "REGEX".into(),
            key: Some("X-K".into()),
            value: "^a\\.b$".into(),
            invert: true,
            provisioning_status: "ACTIVE".parse().unwrap(),
            created_at: Some(t()),
            updated_at: Some(t()),
            project_id: Some("p".into()),
            enabled: true,
            operating_status: "ONLINE".parse().unwrap(),
        };
        check_rule(&full, &["a".into()]);
        // every optional field unset
        let bare = L7RuleRow {
            id: "i".into(),
            l7policy_id: "pol".into(),
            r#type: "PATH".into(),
            compare_type: "STARTS_WITH".into(),
            value: "/".into(),
            provisioning_status: "PENDING_CREATE".parse().unwrap(),
            operating_status: "OFFLINE".parse().unwrap(),
            ..Default::default()
        };
        check_rule(&bare, &[]);
    }
}
