//! The prologue every PUT and DELETE of a resource shares: the row the URL names, its parents
//! up to the load balancer, the policy check on the load balancer's project, and the provider
//! driver of that load balancer — written once, each kind keeping the reference's order of
//! lookups and therefore which 404 / 403 wins (octavia/api/v2/controllers/*.py `put` /
//! `delete`: `_get_db_*`, `_get_lb_project_id_provider`, `_auth_validate_action`,
//! `get_driver`).
//!
//! The driver is a second step ([`Target::provider`]): some updates validate their body
//! between the policy check and the driver load, and a disabled provider (400) must not win
//! over those checks.

use std::sync::Arc;

use octavia_db::{
    HealthMonitorRow, L7PolicyRow, L7RuleRow, ListenerRow, LoadBalancerRow, MemberRow, PoolRow, Tx,
};
use provider::{ProviderDriver, ProvisioningStatus};

use crate::context::RequestContext;
use crate::fault::ApiError;
use crate::lookup::{
    get_db_hm, get_db_l7policy, get_db_l7rule, get_db_lb, get_db_listener, get_db_pool,
};
use crate::state::AppState;
use crate::{policy, provider_call};

/// An authorized write target: the row, its parents (`()` when the load balancer is the only
/// one), its load balancer (not DELETED).
#[derive(Debug)]
pub struct Target<R, P = ()> {
    /// The row the URL names.
    pub row: R,
    /// Its parents below the load balancer: a monitor's or member's pool, a policy's listener,
    /// a rule's policy and listener.
    pub parents: P,
    /// The load balancer the row belongs to.
    pub lb: LoadBalancerRow,
}

impl<R, P> Target<R, P> {
    /// The provider of the target's load balancer ([`Provider::of`]).
    pub fn provider(&self, st: &AppState) -> Result<Provider, ApiError> {
        Provider::of(st, &self.lb)
    }
}

/// A load balancer's provider: its name (NULL is `amphora`) and its loaded driver.
pub struct Provider {
    /// The provider name, as `load_balancer.provider` stores it.
    pub name: String,
    /// The driver of that name.
    pub driver: Arc<dyn ProviderDriver>,
}

impl Provider {
    /// The provider of `lb` (`provider_call::lb_provider`) and its driver: 400 `Provider '<p>'
    /// is not enabled.`, 501 `Provider '<p>' was not found.` ([`AppState::driver`]).
    pub fn of(st: &AppState, lb: &LoadBalancerRow) -> Result<Self, ApiError> {
        let name = provider_call::lb_provider(lb);
        let driver = st.driver(&name)?;
        Ok(Self { name, driver })
    }
}

/// A load balancer by id (404 `Load Balancer <id> not found.`), then the policy check
/// `loadbalancer:<action>` on its project (403), as load_balancer.py `put` / `delete`.
pub async fn load_balancer(
    tx: &mut Tx,
    ctx: &RequestContext,
    id: &str,
    action: &str,
) -> Result<LoadBalancerRow, ApiError> {
    let lb = get_db_lb(tx, id).await?;
    policy::authorize(ctx, "loadbalancer", action, lb.project_id.as_deref())?;
    Ok(lb)
}

/// A listener by id (404 `Listener <id> not found.`), the policy check `listener:<action>` on
/// the listener's own project (403), then its load balancer (404), as listener.py `put` /
/// `delete`.
pub async fn listener(
    tx: &mut Tx,
    ctx: &RequestContext,
    id: &str,
    action: &str,
) -> Result<Target<ListenerRow>, ApiError> {
    let row = get_db_listener(tx, id).await?;
    policy::authorize(ctx, "listener", action, row.project_id.as_deref())?;
    let lb = get_db_lb(tx, row.load_balancer_id.as_deref().unwrap_or_default()).await?;
    Ok(Target {
        row,
        parents: (),
        lb,
    })
}

/// A pool by id (404 `Pool <id> not found.`), its load balancer (404), then the policy check
/// `pool:<action>` on the load balancer's project (403), as pool.py `put` / `delete`.
pub async fn pool(
    tx: &mut Tx,
    ctx: &RequestContext,
    id: &str,
    action: &str,
) -> Result<Target<PoolRow>, ApiError> {
    let row = get_db_pool(tx, id).await?;
    let lb = pool_lb(tx, &row).await?;
    policy::authorize(ctx, "pool", action, lb.project_id.as_deref())?;
    Ok(Target {
        row,
        parents: (),
        lb,
    })
}

/// A member `id` of the routed pool `pool` (found by the member route, DELETED or not): the
/// member not DELETED (404 `Member <id> not found.`), the pool's load balancer (404), the
/// policy check `member:<action>` on its project (403), and only then the member's pool
/// against the route's (404 `Member <id> not found.`), as member.py `put` / `delete`.
pub async fn member(
    tx: &mut Tx,
    ctx: &RequestContext,
    pool: PoolRow,
    id: &str,
    action: &str,
) -> Result<Target<MemberRow, PoolRow>, ApiError> {
    let m: Option<MemberRow> = tx.find(id).await?;
    let row = m
        .filter(|m| m.provisioning_status != ProvisioningStatus::Deleted)
        .ok_or_else(|| ApiError::not_found("Member", id))?;
    let lb = pool_lb(tx, &pool).await?;
    policy::authorize(ctx, "member", action, lb.project_id.as_deref())?;
    if row.pool_id != pool.id {
        return Err(ApiError::not_found("Member", id));
    }
    Ok(Target {
        row,
        parents: pool,
        lb,
    })
}

/// A health monitor by id (404 `Health Monitor <id> not found.`), its pool (404), the pool's
/// load balancer (404), then the policy check `healthmonitor:<action>` on the load
/// balancer's project (403), as health_monitor.py `put` / `delete`.
pub async fn health_monitor(
    tx: &mut Tx,
    ctx: &RequestContext,
    id: &str,
    action: &str,
) -> Result<Target<HealthMonitorRow, PoolRow>, ApiError> {
    let row = get_db_hm(tx, id).await?;
    let pool = get_db_pool(tx, &row.pool_id).await?;
    let lb = pool_lb(tx, &pool).await?;
    policy::authorize(ctx, "healthmonitor", action, lb.project_id.as_deref())?;
    Ok(Target {
        row,
        parents: pool,
        lb,
    })
}

/// An L7 policy by id (404 `L7 Policy <id> not found.`), its listener and load balancer
/// ([`listener_lb`]), then the policy check `l7policy:<action>` on the load balancer's
/// project (403), as l7policy.py `put` / `delete`.
pub async fn l7policy(
    tx: &mut Tx,
    ctx: &RequestContext,
    id: &str,
    action: &str,
) -> Result<Target<L7PolicyRow, ListenerRow>, ApiError> {
    let row = get_db_l7policy(tx, id).await?;
    let (listener, lb) = listener_lb(tx, &row.listener_id).await?;
    policy::authorize(ctx, "l7policy", action, lb.project_id.as_deref())?;
    Ok(Target {
        row,
        parents: listener,
        lb,
    })
}

/// An L7 rule `id` under policy `policy_id` (the route already found the policy): the rule
/// (404 `L7 Rule <id> not found.`), the policy not DELETED (404 `L7 Policy <id> not found.`),
/// its listener and load balancer ([`listener_lb`]), then the policy check
/// `l7rule:<action>` on the load balancer's project (403), as l7rule.py `put` / `delete`.
/// Like the reference, the rule need not belong to the policy of the URL.
pub async fn l7rule(
    tx: &mut Tx,
    ctx: &RequestContext,
    policy_id: &str,
    id: &str,
    action: &str,
) -> Result<Target<L7RuleRow, (L7PolicyRow, ListenerRow)>, ApiError> {
    let row = get_db_l7rule(tx, id).await?;
    let policy = get_db_l7policy(tx, policy_id).await?;
    let (listener, lb) = listener_lb(tx, &policy.listener_id).await?;
    policy::authorize(ctx, "l7rule", action, lb.project_id.as_deref())?;
    Ok(Target {
        row,
        parents: (policy, listener),
        lb,
    })
}

/// A listener by id (404 `Listener <id> not found.`) and its load balancer (404): the parents
/// of an L7 policy.
pub async fn listener_lb(
    tx: &mut Tx,
    listener_id: &str,
) -> Result<(ListenerRow, LoadBalancerRow), ApiError> {
    let l = get_db_listener(tx, listener_id).await?;
    let lb = get_db_lb(tx, l.load_balancer_id.as_deref().unwrap_or_default()).await?;
    Ok((l, lb))
}

/// The load balancer of a pool (404 `Load Balancer <id> not found.`).
pub async fn pool_lb(tx: &mut Tx, pool: &PoolRow) -> Result<LoadBalancerRow, ApiError> {
    get_db_lb(tx, pool.load_balancer_id.as_deref().unwrap_or_default()).await
}
