//! The health monitor's response object, as `octavia/api/v2/types/health_monitor.py`
//! `HealthMonitorResponse`: the view, its attribute table and its collection's listing spec
//! from one declaration (`crate::view::view_decl!`), and the renderers.

use octavia_db::{HealthMonitorRow, Tx};
use serde_json::Value;

use crate::fault::ApiError;
use crate::related::tags_by_id;
use crate::view::{Dt, IdRef, or_empty, to_value, view_decl};

view_decl! {
    /// A health monitor response object, as octavia/api/v2/types/health_monitor.py
    /// `HealthMonitorResponse`; serialised in sorted key order (see [`crate::view`]).
    pub struct HmView<'a>;
    /// The response object of `h` with its tags (sorted): `""` for a NULL name, `max_retries`
    /// the rise and `max_retries_down` the fall threshold, `pools` its one pool, the
    /// single-precision `http_version` rounded to hundredths (`1.1`, not `1.100000023841858`).
    pub fn new(h: &'a HealthMonitorRow, tags: &'a [String]);
    /// `HealthMonitorResponse`'s attribute names in Octavia's declaration order, then the
    /// list-only `pool_id` (filters, sort keys, `fields=`).
    pub const HM_ATTRS;
    /// `GET /v2/lbaas/healthmonitors` in SQL (`http_version`, a float rendered to two
    /// decimals, as hundredths).
    pub static HM = { joins: &[], tags: true };
    fields {
        id: &'a str = &h.id => Val("`t`.`id`", Text),
        name: &'a str = or_empty(&h.name) => Str("`t`.`name`"),
        r#type: &'a str = &h.r#type => Val("`t`.`type`", Text),
        delay: i32 = h.delay => Val("`t`.`delay`", Int),
        timeout: i32 = h.timeout => Val("`t`.`timeout`", Int),
        max_retries: i32 = h.rise_threshold => Val("`t`.`rise_threshold`", Int),
        max_retries_down: i32 = h.fall_threshold => Val("`t`.`fall_threshold`", Int),
        http_method: Option<&'a str> = h.http_method.as_deref() => Val("`t`.`http_method`", Text),
        url_path: Option<&'a str> = h.url_path.as_deref() => Val("`t`.`url_path`", Text),
        expected_codes: Option<&'a str> = h.expected_codes.as_deref()
            => Val("`t`.`expected_codes`", Text),
        admin_state_up: bool = h.enabled => Val("`t`.`enabled`", Bool),
        project_id: Option<&'a str> = h.project_id.as_deref() => Val("`t`.`project_id`", Text),
        tenant_id: Option<&'a str> = h.project_id.as_deref() => Val("`t`.`project_id`", Text),
        pools: [IdRef<'a>; 1] = [IdRef { id: &h.pool_id }] => Has("`t`.`pool_id` = ?"),
        provisioning_status: &'a str = h.provisioning_status.as_str()
            => Val("`t`.`provisioning_status`", Text),
        operating_status: &'a str = h.operating_status.as_str()
            => Val("`t`.`operating_status`", Text),
        created_at: Dt = Dt(h.created_at) => Val("`t`.`created_at`", Time),
        updated_at: Dt = Dt(h.updated_at) => Val("`t`.`updated_at`", Time),
        tags: &'a [String] = tags => Has(
            "EXISTS (SELECT 1 FROM `tags` `g` WHERE `g`.`resource_id` = `t`.`id` AND `g`.`tag` = ?)"
        ),
        http_version: Option<f64> = h.http_version.map(|v| (f64::from(v) * 100.0).round() / 100.0)
            => Val("ROUND(`t`.`http_version` * 100)", Hundredths),
        domain_name: Option<&'a str> = h.domain_name.as_deref() => Val("`t`.`domain_name`", Text),
    }
    list_only { pool_id => Val("`t`.`pool_id`", Text) }
}

/// `HealthMonitorResponse` of a row. Errors: the database's.
pub async fn render_hm(tx: &mut Tx, h: &HealthMonitorRow) -> Result<Value, ApiError> {
    let tags = tx.tags(&h.id).await?;
    Ok(render_hm_with(h, tags))
}

/// [`render_hm`] of a list page (tags in one statement per 500). Errors: the database's.
pub async fn render_hms(tx: &mut Tx, rows: &[HealthMonitorRow]) -> Result<Vec<Value>, ApiError> {
    let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
    let tags = tags_by_id(tx, &ids).await?;
    Ok(rows
        .iter()
        .zip(tags)
        .map(|(r, t)| render_hm_with(r, t))
        .collect())
}

/// [`render_hm`] with the tags (sorted) already at hand.
pub fn render_hm_with(h: &HealthMonitorRow, tags: Vec<String>) -> Value {
    to_value(&HmView::new(h, &tags))
}

impl crate::list::Listed for HealthMonitorRow {
    const SPEC: &'static crate::listing::Spec = &HM;
    const ATTRS: &'static [&'static str] = HM_ATTRS;
    const COLLECTION: &'static str = "healthmonitors";
    const PATH: &'static str = "/v2/lbaas/healthmonitors";
    const HELPER: Option<crate::list::Helper<Self>> =
        Some(("pool_id", |r| serde_json::json!(r.pool_id)));
    async fn render(tx: &mut Tx, rows: &[Self]) -> Result<Vec<Value>, ApiError> {
        render_hms(tx, rows).await
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

    /// The `json!` map this view replaced (`render_hm_with` before the view).
    fn old_map(h: &HealthMonitorRow, tags: Vec<String>) -> Value {
        json!({
            "id": h.id, "name": name(&h.name), "type": h.r#type, "delay": h.delay, "timeout": h.timeout,
            "max_retries": h.rise_threshold, "max_retries_down": h.fall_threshold, "http_method": h.http_method,
            "url_path": h.url_path, "expected_codes": h.expected_codes, "admin_state_up": h.enabled,
            "project_id": h.project_id, "tenant_id": h.project_id, "pools": [{"id": h.pool_id}],
            "provisioning_status": h.provisioning_status, "operating_status": h.operating_status,
            "created_at": dt(h.created_at), "updated_at": dt(h.updated_at), "tags": tags,
            "http_version": h.http_version.map(|v| (f64::from(v) * 100.0).round() / 100.0), "domain_name": h.domain_name,
        })
    }

    fn check(h: &HealthMonitorRow, tags: &[String]) {
        let view = HmView::new(h, tags);
        same_as_map(&view, old_map(h, tags.to_vec()));
    }

    #[test]
    fn hm_view_text_equals_the_map_it_replaced() {
        let full = HealthMonitorRow {
            pool_id: "pool".into(),
            r#type: "HTTP".into(),
            delay: 5,
            timeout: 3,
            fall_threshold: 2,
            rise_threshold: 4,
            http_method: Some("GET".into()),
            url_path: Some("/h\"c".into()),
            expected_codes: Some("200-204".into()),
            enabled: true,
            project_id: Some("p".into()),
            provisioning_status: "ACTIVE".parse().unwrap(),
            name: Some("n\u{e9}".into()),
            id: "i".into(),
            created_at: Some(t()),
            updated_at: Some(t()),
            operating_status: "ONLINE".parse().unwrap(),
            http_version: Some(1.1),
            domain_name: Some("example.org".into()),
        };
        check(&full, &["a".into()]);
        for v in [1.0, 1.1, 2.0, f32::NAN] {
            let h = HealthMonitorRow {
                http_version: Some(v),
                ..full.clone()
            };
            check(&h, &[]);
        }
        // every optional field unset
        let bare = HealthMonitorRow {
            pool_id: "pool".into(),
            r#type: "TCP".into(),
            provisioning_status: "PENDING_CREATE".parse().unwrap(),
            id: "i".into(),
            operating_status: "OFFLINE".parse().unwrap(),
            ..Default::default()
        };
        check(&bare, &[]);
        let m = crate::view::to_value(&HmView::new(&full, &[]));
        assert_eq!(crate::view::to_text(&m["http_version"]), "1.1");
    }
}
