//! The L7 policy's response object, as `octavia/api/v2/types/l7policy.py` `L7PolicyResponse`.

use octavia_db::L7PolicyRow;
use serde::Serialize;

use crate::view::{Dt, IdRef, or_empty};

/// An L7 policy response object; fields in sorted key order (see [`crate::view`]).
#[derive(Serialize)]
pub struct L7PolicyView<'a> {
    action: &'a str,
    admin_state_up: bool,
    created_at: Dt,
    description: &'a str,
    id: &'a str,
    listener_id: &'a str,
    name: &'a str,
    operating_status: &'a str,
    position: i32,
    project_id: Option<&'a str>,
    provisioning_status: &'a str,
    redirect_http_code: Option<i32>,
    redirect_pool_id: Option<&'a str>,
    redirect_prefix: Option<&'a str>,
    redirect_url: Option<&'a str>,
    rules: Vec<IdRef<'a>>,
    tags: &'a [String],
    tenant_id: Option<&'a str>,
    updated_at: Dt,
}

impl<'a> L7PolicyView<'a> {
    /// The response object of `p` with its rules' ids (rendered `[{id}]` in the order given,
    /// oldest first) and tags (sorted): `""` for a NULL name or description.
    pub fn new(
        p: &'a L7PolicyRow,
        rule_ids: impl IntoIterator<Item = &'a str>,
        tags: &'a [String],
    ) -> Self {
        Self {
            action: &p.action,
            admin_state_up: p.enabled,
            created_at: Dt(p.created_at),
            description: or_empty(&p.description),
            id: &p.id,
            listener_id: &p.listener_id,
            name: or_empty(&p.name),
            operating_status: p.operating_status.as_str(),
            position: p.position,
            project_id: p.project_id.as_deref(),
            provisioning_status: p.provisioning_status.as_str(),
            redirect_http_code: p.redirect_http_code,
            redirect_pool_id: p.redirect_pool_id.as_deref(),
            redirect_prefix: p.redirect_prefix.as_deref(),
            redirect_url: p.redirect_url.as_deref(),
            rules: rule_ids.into_iter().map(|id| IdRef { id }).collect(),
            tags,
            tenant_id: p.project_id.as_deref(),
            updated_at: Dt(p.updated_at),
        }
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
        same_as_map(&view, map, crate::l7policy::L7POLICY_ATTRS, &[]);
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
