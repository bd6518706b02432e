//! Reads of the rows related to a parent that rendering, the provider models and the
//! handlers share: an LB's listeners and pools, a pool's listeners / monitor / members (all
//! non-DELETED), and the batched reads of a list page (tags, rows by a column, 500 ids per
//! statement).

use octavia_db::{
    HealthMonitorRow, L7PolicyRow, L7RuleRow, ListQuery, ListenerRow, MemberRow, PoolRow, Tx,
};
use provider::ProvisioningStatus;

use crate::fault::ApiError;

/// The id lists a load balancer renders.
pub async fn lb_children(
    tx: &mut Tx,
    lb_id: &str,
) -> Result<(Vec<ListenerRow>, Vec<PoolRow>), ApiError> {
    let q = ListQuery::default().filter("load_balancer_id", lb_id);
    let listeners: Vec<ListenerRow> = tx.list(&q).await?;
    let pools: Vec<PoolRow> = tx.list(&q).await?;
    Ok((
        listeners
            .into_iter()
            .filter(|l| l.provisioning_status != ProvisioningStatus::Deleted)
            .collect(),
        pools
            .into_iter()
            .filter(|p| p.provisioning_status != ProvisioningStatus::Deleted)
            .collect(),
    ))
}

/// Listeners whose default pool is `pool_id` (non-DELETED).
pub async fn pool_listeners(tx: &mut Tx, pool_id: &str) -> Result<Vec<ListenerRow>, ApiError> {
    let ls: Vec<ListenerRow> = tx
        .list(&ListQuery::default().filter("default_pool_id", pool_id))
        .await?;
    Ok(ls
        .into_iter()
        .filter(|l| l.provisioning_status != ProvisioningStatus::Deleted)
        .collect())
}

/// The first of the reference's `Pool.listeners` (octavia/db/models.py): a listener whose
/// default pool it is, else the listener of the first enabled L7 policy with at least one
/// rule redirecting to it (`db_pool_to_provider_pool`'s `listener_id`).
pub async fn pool_first_listener_id(
    tx: &mut Tx,
    pool_id: &str,
) -> Result<Option<String>, ApiError> {
    if let Some(l) = pool_listeners(tx, pool_id).await?.into_iter().next() {
        return Ok(Some(l.id));
    }
    let policies: Vec<L7PolicyRow> = tx
        .list(&ListQuery::default().filter("redirect_pool_id", pool_id))
        .await?;
    for p in policies.into_iter().filter(|p| p.enabled) {
        let rules: Vec<L7RuleRow> = tx
            .list(&ListQuery::default().filter("l7policy_id", p.id.as_str()))
            .await?;
        if !rules.is_empty() {
            return Ok(Some(p.listener_id));
        }
    }
    Ok(None)
}

/// The pool's health monitor, if any (non-DELETED).
pub async fn pool_hm(tx: &mut Tx, pool_id: &str) -> Result<Option<HealthMonitorRow>, ApiError> {
    let hms: Vec<HealthMonitorRow> = tx
        .list(&ListQuery::default().filter("pool_id", pool_id))
        .await?;
    Ok(hms
        .into_iter()
        .find(|h| h.provisioning_status != ProvisioningStatus::Deleted))
}

/// The pool's members (non-DELETED).
pub async fn pool_members(tx: &mut Tx, pool_id: &str) -> Result<Vec<MemberRow>, ApiError> {
    let ms: Vec<MemberRow> = tx
        .list(&ListQuery::default().filter("pool_id", pool_id))
        .await?;
    Ok(ms
        .into_iter()
        .filter(|m| m.provisioning_status != ProvisioningStatus::Deleted)
        .collect())
}

/// Tags of many resources, sorted, in the order of `ids` (one statement per 500 ids).
pub async fn tags_by_id(tx: &mut Tx, ids: &[String]) -> Result<Vec<Vec<String>>, ApiError> {
    let mut out = vec![Vec::new(); ids.len()];
    let at: std::collections::HashMap<&str, usize> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect();
    for chunk in ids.chunks(500) {
        for t in tx.tags_of(chunk).await? {
            if let Some(&i) = at.get(t.resource_id.as_str()) {
                out[i].push(t.tag);
            }
        }
    }
    Ok(out)
}

/// Rows of `T` whose `column` is one of `ids`, in `ListQuery`'s default order (`created_at`,
/// key), DELETED ones left out when `T` has a provisioning status (one statement per 500 ids).
pub async fn rows_in<T: octavia_db::Record>(
    tx: &mut Tx,
    column: &str,
    ids: &[String],
) -> Result<Vec<T>, ApiError> {
    let mut out = Vec::new();
    for chunk in ids.chunks(500) {
        let q = ListQuery {
            filters_in: vec![(
                column.to_string(),
                chunk.iter().map(|i| i.as_str().into()).collect(),
            )],
            exclude_deleted: true,
            ..ListQuery::default()
        };
        out.extend(tx.list::<T>(&q).await?);
    }
    Ok(out)
}
