//! Who completes accepted work: a lease on PENDING_* load balancers kept in Octavia's own
//! `load_balancer.updated_at` column (no schema change the Python tools could trip over).
//!
//! A write commits its objects as PENDING_* (and `updated_at` = now) before the provider
//! starts ([`crate::Tx::commit_gate`]). The process doing that work renews the lease of every
//! load balancer it has queued or running work for ([`Database::renew_leases`], every few
//! seconds). A PENDING_* load balancer whose `updated_at` (or `created_at`) is older than the
//! lease is orphaned — its process died, was killed, or lost its node — and any process may
//! take it over with [`Database::claim_orphan`], a conditional `UPDATE` that exactly one
//! claimant wins; the winner then completes the work (keel's recovery) and the status
//! updater gives the final status.
//!
//! Processes compare `updated_at` with their own clock: their clocks must agree to well within
//! the lease (as NTP keeps them; Galera and OVN raft need that too).

use chrono::NaiveDateTime;
use provider::ProvisioningStatus;

use crate::{Database, DbError, SqlValue};

/// A load balancer whose tree holds PENDING_* work, as read by [`Database::pending_work`].
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct PendingLb {
    /// The load balancer's id.
    pub id: String,
    /// Its `provisioning_status` (PENDING_*, or ACTIVE/ERROR when only a child is pending).
    pub provisioning_status: String,
    /// `updated_at`, else `created_at`: the last renewal of its lease.
    pub renewed_at: Option<NaiveDateTime>,
}

/// `now` minus `lease`: leases renewed before this have ended.
pub fn cutoff(now: NaiveDateTime, lease: std::time::Duration) -> NaiveDateTime {
    chrono::Duration::from_std(lease)
        .ok()
        .and_then(|d| now.checked_sub_signed(d))
        .unwrap_or(NaiveDateTime::MIN)
}

/// `(id, provisioning_status)` of every listener, pool, member and health monitor of one load
/// balancer ([`Database::tree_statuses`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TreeStatuses {
    /// `(id, provisioning_status)` of the load balancer's listeners.
    pub listeners: Vec<(String, String)>,
    /// `(id, provisioning_status)` of its pools.
    pub pools: Vec<(String, String)>,
    /// Members of its pools.
    pub members: Vec<(String, String)>,
    /// Health monitors of its pools.
    pub healthmonitors: Vec<(String, String)>,
}

#[derive(sqlx::FromRow)]
struct IdStatus {
    id: String,
    provisioning_status: String,
}

/// Children tables whose rows name their load balancer directly.
const DIRECT_CHILDREN: [&str; 2] = ["listener", "pool"];

/// Children tables whose rows name their pool.
const POOL_CHILDREN: [&str; 2] = ["member", "health_monitor"];

impl Database {
    /// Load balancers of provider `provider` whose tree holds PENDING_* work: the load
    /// balancer itself PENDING_*, or (with `children`) any listener, pool, member or health
    /// monitor PENDING_* under an ACTIVE/ERROR load balancer (a report applied only in part).
    /// One statement per table; O(load balancers) without `children`.
    pub async fn pending_work(
        &self,
        provider: &str,
        children: bool,
    ) -> Result<Vec<PendingLb>, DbError> {
        let mut tx = self.begin_read().await?;
        let sql = "SELECT `id`, `provisioning_status`, COALESCE(`updated_at`, `created_at`) AS \
                   `renewed_at` FROM `load_balancer` WHERE `provider` = ? AND \
                   `provisioning_status` LIKE 'PENDING%'";
        let mut out: Vec<PendingLb> = tx.fetch_all(sql, vec![provider.into()]).await?;
        if children {
            let mut ids: Vec<String> = Vec::new();
            for t in DIRECT_CHILDREN {
                let sql = format!(
                    "SELECT DISTINCT `load_balancer_id` FROM `{t}` WHERE \
                     `provisioning_status` LIKE 'PENDING%' AND `load_balancer_id` IS NOT NULL"
                );
                ids.extend(tx.fetch_scalars::<String>(&sql, vec![]).await?);
            }
            for t in POOL_CHILDREN {
                let sql = format!(
                    "SELECT DISTINCT p.`load_balancer_id` FROM `{t}` c JOIN `pool` p ON \
                     p.`id` = c.`pool_id` WHERE c.`provisioning_status` LIKE 'PENDING%' \
                     AND p.`load_balancer_id` IS NOT NULL"
                );
                ids.extend(tx.fetch_scalars::<String>(&sql, vec![]).await?);
            }
            ids.sort_unstable();
            ids.dedup();
            ids.retain(|id| !out.iter().any(|p| &p.id == id));
            for chunk in ids.chunks(500) {
                let sql = format!(
                    "SELECT `id`, `provisioning_status`, COALESCE(`updated_at`, `created_at`) \
                     AS `renewed_at` FROM `load_balancer` WHERE `provider` = ? AND \
                     `provisioning_status` IN ('ACTIVE', 'ERROR') AND `id` IN ({})",
                    vec!["?"; chunk.len()].join(", ")
                );
                let mut args = vec![SqlValue::from(provider)];
                args.extend(chunk.iter().map(|i| SqlValue::from(i.as_str())));
                out.extend(tx.fetch_all::<PendingLb>(&sql, args).await?);
            }
        }
        Ok(out)
    }

    /// Renews the lease of the PENDING_* load balancers among `ids` (this process's queued or
    /// running work) to `now`; returns how many rows it renewed. One autocommit `UPDATE` per
    /// 500 ids.
    pub async fn renew_leases(&self, ids: &[String], now: NaiveDateTime) -> Result<u64, DbError> {
        let mut n = 0;
        for chunk in ids.chunks(500) {
            let mut tx = self.begin().await?;
            let sql = format!(
                "UPDATE `load_balancer` SET `updated_at` = ? WHERE `provisioning_status` LIKE \
                 'PENDING%' AND `id` IN ({})",
                vec!["?"; chunk.len()].join(", ")
            );
            let mut args = vec![SqlValue::Time(now)];
            args.extend(chunk.iter().map(|i| SqlValue::from(i.as_str())));
            n += tx.execute(&sql, args).await?;
            tx.commit_plain().await?;
        }
        Ok(n)
    }

    /// Takes over load balancer `lb.id` if it is still as `lb` was read and its lease ended
    /// before `cutoff`: sets `updated_at` = `now` (a PENDING_* one keeps its status; an
    /// ACTIVE/ERROR one with pending children becomes PENDING_UPDATE, so the API refuses
    /// changes until it is completed). True for exactly one of concurrent claimants.
    pub async fn claim_orphan(
        &self,
        lb: &PendingLb,
        cutoff: NaiveDateTime,
        now: NaiveDateTime,
    ) -> Result<bool, DbError> {
        let status = if lb.provisioning_status.starts_with("PENDING_") {
            lb.provisioning_status.clone()
        } else {
            ProvisioningStatus::PendingUpdate.into()
        };
        let mut tx = self.begin().await?;
        let sql = "UPDATE `load_balancer` SET `updated_at` = ?, `provisioning_status` = ? \
                   WHERE `id` = ? AND `provisioning_status` = ? AND \
                   (COALESCE(`updated_at`, `created_at`) IS NULL OR \
                   COALESCE(`updated_at`, `created_at`) < ?)";
        let args = vec![
            SqlValue::Time(now),
            status.into(),
            lb.id.as_str().into(),
            lb.provisioning_status.as_str().into(),
            SqlValue::Time(cutoff),
        ];
        let won = tx.execute(sql, args).await? == 1;
        tx.commit_plain().await?;
        Ok(won)
    }

    /// The provisioning statuses of load balancer `lb`'s tree, one statement per kind.
    pub async fn tree_statuses(&self, lb: &str) -> Result<TreeStatuses, DbError> {
        let mut tx = self.begin_read().await?;
        let mut kinds: Vec<Vec<(String, String)>> = Vec::new();
        for t in DIRECT_CHILDREN {
            let sql = format!(
                "SELECT `id`, `provisioning_status` FROM `{t}` WHERE `load_balancer_id` = ?"
            );
            let rows: Vec<IdStatus> = tx.fetch_all(&sql, vec![lb.into()]).await?;
            kinds.push(
                rows.into_iter()
                    .map(|r| (r.id, r.provisioning_status))
                    .collect(),
            );
        }
        for t in POOL_CHILDREN {
            let sql = format!(
                "SELECT c.`id`, c.`provisioning_status` FROM `{t}` c JOIN `pool` p ON \
                 p.`id` = c.`pool_id` WHERE p.`load_balancer_id` = ?"
            );
            let rows: Vec<IdStatus> = tx.fetch_all(&sql, vec![lb.into()]).await?;
            kinds.push(
                rows.into_iter()
                    .map(|r| (r.id, r.provisioning_status))
                    .collect(),
            );
        }
        let mut k = kinds.into_iter();
        Ok(TreeStatuses {
            listeners: k.next().unwrap_or_default(),
            pools: k.next().unwrap_or_default(),
            members: k.next().unwrap_or_default(),
            healthmonitors: k.next().unwrap_or_default(),
        })
    }

    /// Whether load balancer `lb` is PENDING_* (false when it is ACTIVE, ERROR, DELETED or
    /// gone): a job whose outcome is unknown re-plans only while its load balancer still waits
    /// for it (a process frozen past its lease finds the work taken over and done).
    pub async fn lb_pending(&self, lb: &str) -> Result<bool, DbError> {
        let mut tx = self.begin_read().await?;
        let sql = "SELECT `id`, `provisioning_status` FROM `load_balancer` WHERE `id` = ?";
        let rows: Vec<IdStatus> = tx.fetch_all(sql, vec![lb.into()]).await?;
        Ok(rows
            .iter()
            .any(|r| r.provisioning_status.starts_with("PENDING_")))
    }

    /// Of `ids`, those that name a load balancer Octavia still has (any status but DELETED).
    pub async fn existing_lbs(&self, ids: &[String]) -> Result<Vec<String>, DbError> {
        let mut tx = self.begin_read().await?;
        let mut out = Vec::new();
        for chunk in ids.chunks(500) {
            let sql = format!(
                "SELECT `id` FROM `load_balancer` WHERE `provisioning_status` <> 'DELETED' \
                 AND `id` IN ({})",
                vec!["?"; chunk.len()].join(", ")
            );
            let args = chunk.iter().map(|i| SqlValue::from(i.as_str())).collect();
            out.extend(tx.fetch_scalars::<String>(&sql, args).await?);
        }
        Ok(out)
    }
}
