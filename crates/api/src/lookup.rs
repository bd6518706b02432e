//! What several resource handlers share: loading a parent row that is not DELETED (404 with
//! Octavia's `<Resource> <id> not found.`), the load-balancer locks of child writes
//! (`test_and_set_lb_and_listeners_prov_status` of octavia/db/repositories.py), the quota
//! limits, listener statistics, the listener/pool protocol pairing and a collection body
//! helper. Every resource module imports this one and none of the others, so a resource can
//! change without touching its siblings.

use octavia_db::{
    HealthMonitorRow, L7PolicyRow, L7RuleRow, ListenerRow, LoadBalancerRow, PoolRow, Tx,
};
use provider::ProvisioningStatus;
use serde_json::{Value, json};

use crate::fault::ApiError;
use crate::related::pool_listeners;
use crate::state::AppState;

/// Load a load balancer that is not DELETED (404 `Load Balancer <id> not found.`).
/// The id is recorded as the request span's `lb_id` (log lines of the request carry it).
pub async fn get_db_lb(tx: &mut octavia_db::Tx, id: &str) -> Result<LoadBalancerRow, ApiError> {
    tracing::Span::current().record("lb_id", id);
    let lb: Option<LoadBalancerRow> = tx.find(id).await?;
    lb.filter(|l| l.provisioning_status != ProvisioningStatus::Deleted)
        .ok_or_else(|| ApiError::not_found("Load Balancer", id))
}

/// [`get_db_lb`] with the attachments a response shows ([`octavia_db::LbAttachments`]),
/// read together (one round trip on MariaDB). Errors: as [`get_db_lb`].
pub async fn get_db_lb_with_attachments(
    tx: &mut octavia_db::Tx,
    id: &str,
) -> Result<(LoadBalancerRow, octavia_db::LbAttachments), ApiError> {
    tracing::Span::current().record("lb_id", id);
    tx.find_lb_with_attachments(id)
        .await?
        .filter(|(l, _)| l.provisioning_status != ProvisioningStatus::Deleted)
        .ok_or_else(|| ApiError::not_found("Load Balancer", id))
}

/// The `[quotas]` defaults in the DB crate's shape.
pub fn quota_limits(st: &AppState) -> octavia_db::QuotaLimits {
    let q = &st.config().quotas;
    let c = |v: i64| i32::try_from(v).unwrap_or(-1);
    octavia_db::QuotaLimits {
        load_balancer: c(q.load_balancer),
        listener: c(q.listener),
        pool: c(q.pool),
        health_monitor: c(q.health_monitor),
        member: c(q.member),
        l7policy: c(q.l7policy),
        l7rule: c(q.l7rule),
    }
}

/// Whether a `listener_statistics` row `ls` (its amphora `a`, LEFT JOINed on
/// `a.id = ls.amphora_id`) counts its `active_connections`, as octavia/common/stats.py
/// `StatsMixin.get_listener_stats`: a provider's row (`amphora_id` = `listener_id`, the OVN
/// provider's convention) or a row of an amphora that is `ALLOCATED` (a spare, failed-over,
/// DELETED or purged amphora's count is stale). Every row's bytes, total connections and
/// request errors count, whatever its amphora.
const ACTIVE_COUNTS: &str = "(ls.amphora_id = ls.listener_id OR a.status = 'ALLOCATED')";

/// The five sums of `listener_statistics` rows `ls` (with their amphora `a`), in the order of
/// [`stats_body`]. SUM of BIGINT is DECIMAL on MariaDB: CAST back to an integer (NUMERIC
/// affinity on SQLite).
fn sums_sql() -> String {
    format!(
        "CAST(COALESCE(SUM(ls.bytes_in), 0) AS SIGNED), \
         CAST(COALESCE(SUM(ls.bytes_out), 0) AS SIGNED), \
         CAST(COALESCE(SUM(CASE WHEN {ACTIVE_COUNTS} THEN ls.active_connections ELSE 0 END), 0) AS SIGNED), \
         CAST(COALESCE(SUM(ls.total_connections), 0) AS SIGNED), \
         CAST(COALESCE(SUM(ls.request_errors), 0) AS SIGNED)"
    )
}

/// `{"stats": {bytes_in, bytes_out, active_connections, total_connections, request_errors}}`.
fn stats_body((bi, bo, ac, tc, re): (i64, i64, i64, i64, i64)) -> Value {
    json!({"stats": {"bytes_in": bi, "bytes_out": bo, "active_connections": ac,
        "total_connections": tc, "request_errors": re}})
}

/// The stats of a load balancer that is not DELETED, in one statement: its project and the
/// `{"stats": {...}}` body, the sums of every `listener_statistics` row of its listeners with
/// [`stats_of`]'s rule (`StatsMixin.get_loadbalancer_stats` adds up `get_listener_stats` of
/// each listener; zeros without rows). 404 `Load Balancer <id> not found.` The exporters'
/// scrape calls this once per LB, so it costs one indexed read (the LB's key, the listeners'
/// `load_balancer_id`, the statistics' key and the amphorae's key).
pub async fn lb_stats(
    tx: &mut octavia_db::Tx,
    id: &str,
) -> Result<(Option<String>, Value), ApiError> {
    tracing::Span::current().record("lb_id", id);
    let sql = format!(
        "SELECT lb.project_id, lb.provisioning_status, {} \
         FROM load_balancer lb \
         LEFT JOIN listener l ON l.load_balancer_id = lb.id \
         LEFT JOIN listener_statistics ls ON ls.listener_id = l.id \
         LEFT JOIN amphora a ON a.id = ls.amphora_id \
         WHERE lb.id = ? GROUP BY lb.id, lb.project_id, lb.provisioning_status",
        sums_sql()
    );
    type Sums = (Option<String>, String, i64, i64, i64, i64, i64);
    let row: Option<Sums> = tx.fetch_optional(&sql, vec![id.into()]).await?;
    let Some((project, _, bi, bo, ac, tc, re)) = row.filter(|r| r.1 != "DELETED") else {
        return Err(ApiError::not_found("Load Balancer", id));
    };
    Ok((project, stats_body((bi, bo, ac, tc, re))))
}

/// The `{"stats": {...}}` body of some listeners, as octavia/common/stats.py
/// `StatsMixin.get_listener_stats` sums their `listener_statistics` rows, one statement: bytes
/// in / out, total connections and request errors of every row; active connections only of a
/// provider's row (`amphora_id` = `listener_id`: the OVN provider's) or of an `ALLOCATED`
/// amphora's row (an amphora LB has one row per amphora, and a standby's or a replaced one's
/// count is stale). Zeros without rows. Both providers' rows answer by the same rule, so an
/// OVN listener's stats are its one row's.
pub async fn stats_of(tx: &mut octavia_db::Tx, listener_ids: &[String]) -> Result<Value, ApiError> {
    if listener_ids.is_empty() {
        return Ok(stats_body((0, 0, 0, 0, 0)));
    }
    let marks = vec!["?"; listener_ids.len()].join(", ");
    let sql = format!(
        "SELECT {} FROM listener_statistics ls LEFT JOIN amphora a ON a.id = ls.amphora_id \
         WHERE ls.listener_id IN ({marks})",
        sums_sql()
    );
    let args = listener_ids.iter().map(|l| l.as_str().into()).collect();
    let sums: Option<(i64, i64, i64, i64, i64)> = tx.fetch_optional(&sql, args).await?;
    Ok(stats_body(sums.unwrap_or_default()))
}

/// Load a listener that is not DELETED (404 `Listener <id> not found.`).
pub async fn get_db_listener(tx: &mut octavia_db::Tx, id: &str) -> Result<ListenerRow, ApiError> {
    let l: Option<ListenerRow> = tx.find(id).await?;
    l.filter(|l| l.provisioning_status != ProvisioningStatus::Deleted)
        .ok_or_else(|| ApiError::not_found("Listener", id))
}

/// The port space of a listener protocol: the TCP family (HTTP, HTTPS, TERMINATED_HTTPS,
/// PROXY…, PROMETHEUS) shares one, UDP and SCTP have their own (the duplicate
/// `protocol_port` check of listener.py `_validate_create_listener`).
pub fn port_space(protocol: &str) -> &str {
    match protocol {
        "UDP" => "UDP",
        "SCTP" => "SCTP",
        _ => "TCP",
    }
}

/// Listener → allowed pool protocols.
pub fn pool_protocol_ok(listener: &str, pool: &str) -> bool {
    match listener {
        "HTTP" | "TERMINATED_HTTPS" => matches!(pool, "HTTP" | "PROXY" | "PROXYV2"),
        "HTTPS" => matches!(pool, "HTTPS" | "PROXY" | "PROXYV2" | "TCP"),
        "TCP" => matches!(pool, "HTTP" | "HTTPS" | "PROXY" | "PROXYV2" | "TCP"),
        "UDP" => pool == "UDP",
        "SCTP" => pool == "SCTP",
        _ => false,
    }
}

/// Load a pool that is not DELETED (404 `Pool <id> not found.`).
pub async fn get_db_pool(tx: &mut octavia_db::Tx, id: &str) -> Result<PoolRow, ApiError> {
    let p: Option<PoolRow> = tx.find(id).await?;
    p.filter(|p| p.provisioning_status != ProvisioningStatus::Deleted)
        .ok_or_else(|| ApiError::not_found("Pool", id))
}

/// The 400 of a listener/pool protocol mismatch (`base.py::_validate_protocol`).
pub fn check_pool_protocol(listener: &str, pool: &str) -> Result<(), ApiError> {
    if pool_protocol_ok(listener, pool) {
        Ok(())
    } else {
        Err(ApiError::Validation(format!(
            "The pool protocol '{pool}' is invalid while the listener protocol is '{listener}'."
        )))
    }
}

/// Load a policy that is not DELETED (404 `L7 Policy <id> not found.`).
pub async fn get_db_l7policy(tx: &mut Tx, id: &str) -> Result<L7PolicyRow, ApiError> {
    let p: Option<L7PolicyRow> = tx.find(id).await?;
    p.filter(|p| p.provisioning_status != ProvisioningStatus::Deleted)
        .ok_or_else(|| ApiError::not_found("L7 Policy", id))
}

/// LB (ACTIVE → PENDING_UPDATE, else 409 `Load Balancer <id> is immutable…`) and the
/// listener PENDING_UPDATE (`test_and_set_lb_and_listeners_prov_status`).
pub async fn lock_lb_and_listener(
    tx: &mut Tx,
    lb_id: &str,
    listener_id: &str,
) -> Result<(), ApiError> {
    tx.lock_lb_for_child(
        lb_id,
        &[listener_id.to_string()],
        ProvisioningStatus::PendingUpdate,
    )
    .await?;
    Ok(())
}

/// Member and health monitor writes: the pool must be ACTIVE (409 `Pool <id> is immutable and
/// cannot be updated.`), then the LB is locked and set PENDING_UPDATE with the pool's listeners,
/// and the pool goes PENDING_UPDATE (`test_and_set_lb_and_listeners_prov_status(pool_id=…)`
/// of octavia/db/repositories.py). Errors: 404 / 409 from `lock_lb_for_child`.
pub async fn lock_pool_child(tx: &mut Tx, pool: &PoolRow) -> Result<(), ApiError> {
    if pool.provisioning_status != ProvisioningStatus::Active {
        return Err(ApiError::immutable("Pool", &pool.id));
    }
    let listener_ids: Vec<String> = pool_listeners(tx, &pool.id)
        .await?
        .into_iter()
        .map(|l| l.id)
        .collect();
    tx.lock_lb_for_child(
        pool.load_balancer_id.as_deref().unwrap_or_default(),
        &listener_ids,
        ProvisioningStatus::PendingUpdate,
    )
    .await?;
    tx.set_provisioning_status::<PoolRow>(&pool.id, ProvisioningStatus::PendingUpdate)
        .await?;
    Ok(())
}

/// Load a health monitor that is not DELETED (404 `Health Monitor <id> not found.`).
pub async fn get_db_hm(tx: &mut octavia_db::Tx, id: &str) -> Result<HealthMonitorRow, ApiError> {
    let h: Option<HealthMonitorRow> = tx.find(id).await?;
    h.filter(|h| h.provisioning_status != ProvisioningStatus::Deleted)
        .ok_or_else(|| ApiError::not_found("Health Monitor", id))
}

/// Load a rule that is not DELETED (404 `L7 Rule <id> not found.`).
pub async fn get_db_l7rule(tx: &mut Tx, id: &str) -> Result<L7RuleRow, ApiError> {
    let r: Option<L7RuleRow> = tx.find(id).await?;
    r.filter(|r| r.provisioning_status != ProvisioningStatus::Deleted)
        .ok_or_else(|| ApiError::not_found("L7 Rule", id))
}
