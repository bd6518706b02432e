//! The L7 rule's response object, as `octavia/api/v2/types/l7rule.py` `L7RuleResponse`.

use octavia_db::L7RuleRow;
use serde::Serialize;

use crate::view::Dt;

/// An L7 rule response object; fields in sorted key order (see [`crate::view`]).
#[derive(Serialize)]
pub struct L7RuleView<'a> {
    admin_state_up: bool,
    compare_type: &'a str,
    created_at: Dt,
    id: &'a str,
    invert: bool,
    key: Option<&'a str>,
    operating_status: &'a str,
    project_id: Option<&'a str>,
    provisioning_status: &'a str,
    tags: &'a [String],
    tenant_id: Option<&'a str>,
    r#type: &'a str,
    updated_at: Dt,
    value: &'a str,
}

impl<'a> L7RuleView<'a> {
    /// The response object of `r` with its tags (sorted).
    pub fn new(r: &'a L7RuleRow, tags: &'a [String]) -> Self {
        Self {
            admin_state_up: r.enabled,
            compare_type: &r.compare_type,
            created_at: Dt(r.created_at),
            id: &r.id,
            invert: r.invert,
            key: r.key.as_deref(),
            operating_status: r.operating_status.as_str(),
            project_id: r.project_id.as_deref(),
            provisioning_status: r.provisioning_status.as_str(),
            tags,
            tenant_id: r.project_id.as_deref(),
            r#type: &r.r#type,
            updated_at: Dt(r.updated_at),
            value: &r.value,
        }
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
        same_as_map(
            &view,
            old_rule(r, tags.to_vec()),
            crate::l7rule::L7RULE_ATTRS,
            &[],
        );
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
