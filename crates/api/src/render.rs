//! Rendering of DB rows into Octavia's response objects (`*Response` of
//! octavia/api/v2/types): each built as its typed view ([`crate::view`], which holds the
//! shapes: `""` for NULL names, the `tenant_id` echo, datetimes without timezone, related
//! objects as `[{"id"}]`) after reading what it shows beside its row, batched for a list page;
//! each resource's attribute table (`*_ATTRS`, the names filters and sort keys may use, in
//! Octavia's declaration order: the names of its list [`listing::Spec`]; the views' unit tests
//! keep them equal to the views' fields).

use octavia_db::{
    HealthMonitorRow, L7PolicyRow, L7RuleRow, ListenerRow, LoadBalancerRow, MemberRow, PoolRow,
    SessionPersistenceRow, Tx,
};
use serde_json::Value;

use crate::fault::ApiError;
use crate::listing;
use crate::related::{rows_in, tags_by_id};
use crate::view::{self, to_value};

/// The names of [`listing::LB`].
pub const LB_ATTRS: &[&str] = &listing::names::<{ listing::LB.attrs.len() }>(listing::LB.attrs);

/// `LoadBalancerResponse` of a row (listeners / pools as `[{id}]`).
pub async fn render_lb(tx: &mut Tx, lb: &LoadBalancerRow) -> Result<Value, ApiError> {
    // one statement for the VIP and the collections (octavia-db `lb_attachments`)
    let att = tx.lb_attachments(&lb.id).await?;
    Ok(render_lb_with(lb, att))
}

/// [`render_lb`] of a list page: the attachments of all rows in one statement per 500.
pub async fn render_lbs(tx: &mut Tx, rows: &[LoadBalancerRow]) -> Result<Vec<Value>, ApiError> {
    let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
    let atts = tx.lbs_attachments(&ids).await?;
    Ok(rows
        .iter()
        .zip(atts)
        .map(|(r, a)| render_lb_with(r, a))
        .collect())
}

/// [`render_lb`] with the attachments already at hand ([`crate::load_balancer::view::LbView`]).
pub fn render_lb_with(lb: &LoadBalancerRow, att: octavia_db::LbAttachments) -> Value {
    to_value(&crate::load_balancer::view::LbView::new(lb, &att))
}

/// [`render_lbs`] as each object's JSON text (a list page without `fields=`: no map per
/// object, see [`crate::view`]).
pub async fn render_lbs_text(
    tx: &mut Tx,
    rows: &[LoadBalancerRow],
) -> Result<Vec<String>, ApiError> {
    let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
    let atts = tx.lbs_attachments(&ids).await?;
    Ok(rows
        .iter()
        .zip(&atts)
        .map(|(r, a)| view::to_text(&crate::load_balancer::view::LbView::new(r, a)))
        .collect())
}

/// The names of [`listing::LISTENER`].
pub const LISTENER_ATTRS: &[&str] =
    &listing::names::<{ listing::LISTENER.attrs.len() }>(listing::LISTENER.attrs);

/// `ListenerResponse` of a row.
pub async fn render_listener(tx: &mut Tx, l: &ListenerRow) -> Result<Value, ApiError> {
    // one statement for the collections (octavia-db `listener_attachments`)
    let att = tx.listener_attachments(&l.id).await?;
    Ok(render_listener_with(l, att))
}

/// [`render_listener`] of a list page: the collections of all rows in one statement per 500.
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
pub fn render_listener_with(l: &ListenerRow, att: octavia_db::ListenerAttachments) -> Value {
    to_value(&crate::listener::view::ListenerView::new(l, &att))
}

/// The names of [`listing::POOL`].
pub const POOL_ATTRS: &[&str] =
    &listing::names::<{ listing::POOL.attrs.len() }>(listing::POOL.attrs);

/// [`render_pool`] of a list page: session persistences in one statement, the rest in one
/// more (per 500 pools).
pub async fn render_pools(tx: &mut Tx, rows: &[PoolRow]) -> Result<Vec<Value>, ApiError> {
    pools_rendered(tx, rows, |v| to_value(v)).await
}

/// [`render_pools`] as each object's JSON text (a list page without `fields=`: no map per
/// object, see [`crate::view`]).
pub async fn render_pools_text(tx: &mut Tx, rows: &[PoolRow]) -> Result<Vec<String>, ApiError> {
    pools_rendered(tx, rows, |v| view::to_text(v)).await
}

/// The pools' views (their session persistence and collections read in two statements for
/// the whole page), each turned into `T` by `out`.
async fn pools_rendered<T>(
    tx: &mut Tx,
    rows: &[PoolRow],
    out: impl Fn(&crate::pool::view::PoolView<'_>) -> T,
) -> Result<Vec<T>, ApiError> {
    let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
    let sps: Vec<SessionPersistenceRow> = rows_in(tx, "pool_id", &ids).await?;
    let sps: std::collections::HashMap<&str, &SessionPersistenceRow> =
        sps.iter().map(|s| (s.pool_id.as_str(), s)).collect();
    let atts = tx.pools_attachments(&ids).await?;
    Ok(rows
        .iter()
        .zip(&atts)
        .map(|(r, a)| {
            out(&crate::pool::view::PoolView::new(
                r,
                sps.get(r.id.as_str()).copied(),
                a,
            ))
        })
        .collect())
}

/// `PoolResponse` of a row (`healthmonitor_id` omitted when the pool has no monitor).
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
    att: octavia_db::PoolAttachments,
) -> Value {
    to_value(&crate::pool::view::PoolView::new(p, sp, &att))
}

/// The names of [`listing::MEMBER`].
pub const MEMBER_ATTRS: &[&str] =
    &listing::names::<{ listing::MEMBER.attrs.len() }>(listing::MEMBER.attrs);

/// `MemberResponse` of a row.
pub async fn render_member(tx: &mut Tx, m: &MemberRow) -> Result<Value, ApiError> {
    let tags = tx.tags(&m.id).await?;
    Ok(render_member_with(m, tags))
}

/// [`render_member`] of a list page (tags in one statement per 500).
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
    to_value(&crate::member::view::MemberView::new(m, &tags))
}

/// The names of [`listing::HM`].
pub const HM_ATTRS: &[&str] = &listing::names::<{ listing::HM.attrs.len() }>(listing::HM.attrs);

/// `HealthMonitorResponse` of a row.
pub async fn render_hm(tx: &mut Tx, h: &HealthMonitorRow) -> Result<Value, ApiError> {
    let tags = tx.tags(&h.id).await?;
    Ok(render_hm_with(h, tags))
}

/// [`render_hm`] of a list page (tags in one statement per 500).
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
    to_value(&crate::health_monitor::view::HmView::new(h, &tags))
}

/// `L7PolicyResponse` of a row (`rules` as `[{id}]`, oldest first; DELETED rules left out).
pub async fn render_policy(tx: &mut Tx, p: &L7PolicyRow) -> Result<Value, ApiError> {
    let rules: Vec<L7RuleRow> = rows_in(tx, "l7policy_id", std::slice::from_ref(&p.id)).await?;
    let tags = tx.tags(&p.id).await?;
    let rule_ids = rules.iter().map(|r| r.id.as_str());
    Ok(to_value(&crate::l7policy::view::L7PolicyView::new(
        p, rule_ids, &tags,
    )))
}

/// [`render_policy`] of a list page: the rules of all rows in one statement, their tags in one
/// more (per 500).
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
            to_value(&crate::l7policy::view::L7PolicyView::new(p, rule_ids, tags))
        })
        .collect())
}

/// `L7RuleResponse` of a row.
pub async fn render_rule(tx: &mut Tx, r: &L7RuleRow) -> Result<Value, ApiError> {
    let tags = tx.tags(&r.id).await?;
    Ok(to_value(&crate::l7rule::view::L7RuleView::new(r, &tags)))
}

/// [`render_rule`] of a list page (tags in one statement per 500).
pub async fn render_rules(tx: &mut Tx, rows: &[L7RuleRow]) -> Result<Vec<Value>, ApiError> {
    let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
    let tags = tags_by_id(tx, &ids).await?;
    Ok(rows
        .iter()
        .zip(&tags)
        .map(|(r, t)| to_value(&crate::l7rule::view::L7RuleView::new(r, t)))
        .collect())
}

