//! The API's transactional building blocks: LB row lock + state checks, status flips,
//! quota check/increment/decrement, ORM-equivalent cascading deletes.

use crate::db::OnZero;
use crate::db::Tx;
use crate::error::DbError;
use crate::rows::*;
use crate::sql::SqlValue;
use provider::{OperatingStatus, ProvisioningStatus};

/// A quota-counted resource (`quotas` columns `<column>` / `in_use_<column>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QuotaResource {
    /// `load_balancer`.
    LoadBalancer,
    /// `listener`.
    Listener,
    /// `pool`.
    Pool,
    /// `health_monitor`.
    HealthMonitor,
    /// `member`.
    Member,
    /// `l7policy`.
    L7Policy,
    /// `l7rule`.
    L7Rule,
}

impl QuotaResource {
    /// Every resource, in the `quotas` table's column order.
    pub const ALL: [QuotaResource; 7] = [
        Self::LoadBalancer,
        Self::Listener,
        Self::Pool,
        Self::HealthMonitor,
        Self::Member,
        Self::L7Policy,
        Self::L7Rule,
    ];

    /// The `quotas` limit column (`in_use_` + this is the counter).
    pub fn column(self) -> &'static str {
        match self {
            Self::LoadBalancer => "load_balancer",
            Self::Listener => "listener",
            Self::Pool => "pool",
            Self::HealthMonitor => "health_monitor",
            Self::Member => "member",
            Self::L7Policy => "l7policy",
            Self::L7Rule => "l7rule",
        }
    }

    /// The table whose non-DELETED rows are counted when the counter is 0/NULL.
    pub fn table(self) -> &'static str {
        match self {
            Self::LoadBalancer => "load_balancer",
            Self::Listener => "listener",
            Self::Pool => "pool",
            Self::HealthMonitor => "health_monitor",
            Self::Member => "member",
            Self::L7Policy => "l7policy",
            Self::L7Rule => "l7rule",
        }
    }

    /// Name used in `Quota has been met for resources: <name>` (octavia data model `_name()`).
    pub fn display_name(self) -> &'static str {
        match self {
            Self::LoadBalancer => "Load Balancer",
            Self::Listener => "Listener",
            Self::Pool => "Pool",
            Self::HealthMonitor => "Health Monitor",
            Self::Member => "Member",
            Self::L7Policy => "L7 Policy",
            Self::L7Rule => "L7 Rule",
        }
    }
}

/// Project defaults from `[quotas] default_*_quota` (octavia/common/config.py `quota_opts`;
/// all default -1 = unlimited). Used when a `quotas` column is NULL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct QuotaLimits {
    pub load_balancer: i32,
    pub listener: i32,
    pub pool: i32,
    pub health_monitor: i32,
    pub member: i32,
    pub l7policy: i32,
    pub l7rule: i32,
}

impl Default for QuotaLimits {
    fn default() -> Self {
        Self {
            load_balancer: -1,
            listener: -1,
            pool: -1,
            health_monitor: -1,
            member: -1,
            l7policy: -1,
            l7rule: -1,
        }
    }
}

impl QuotaLimits {
    /// The default limit for `r`.
    pub fn get(&self, r: QuotaResource) -> i32 {
        match r {
            QuotaResource::LoadBalancer => self.load_balancer,
            QuotaResource::Listener => self.listener,
            QuotaResource::Pool => self.pool,
            QuotaResource::HealthMonitor => self.health_monitor,
            QuotaResource::Member => self.member,
            QuotaResource::L7Policy => self.l7policy,
            QuotaResource::L7Rule => self.l7rule,
        }
    }
}

impl QuotaRow {
    /// The stored limit for `r` (`None` = use the default).
    pub fn limit(&self, r: QuotaResource) -> Option<i32> {
        match r {
            QuotaResource::LoadBalancer => self.load_balancer,
            QuotaResource::Listener => self.listener,
            QuotaResource::Pool => self.pool,
            QuotaResource::HealthMonitor => self.health_monitor,
            QuotaResource::Member => self.member,
            QuotaResource::L7Policy => self.l7policy,
            QuotaResource::L7Rule => self.l7rule,
        }
    }

    /// The stored in-use counter for `r`.
    pub fn in_use(&self, r: QuotaResource) -> Option<i32> {
        match r {
            QuotaResource::LoadBalancer => self.in_use_load_balancer,
            QuotaResource::Listener => self.in_use_listener,
            QuotaResource::Pool => self.in_use_pool,
            QuotaResource::HealthMonitor => self.in_use_health_monitor,
            QuotaResource::Member => self.in_use_member,
            QuotaResource::L7Policy => self.in_use_l7policy,
            QuotaResource::L7Rule => self.in_use_l7rule,
        }
    }
}

/// A partial quota update: `Some(None)` resets that limit to NULL (use default), `None` leaves it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct QuotaUpdate {
    pub load_balancer: Option<Option<i32>>,
    pub listener: Option<Option<i32>>,
    pub pool: Option<Option<i32>>,
    pub health_monitor: Option<Option<i32>>,
    pub member: Option<Option<i32>>,
    pub l7policy: Option<Option<i32>>,
    pub l7rule: Option<Option<i32>>,
}

/// Maps a lock failure to [`DbError::ProjectBusy`].
/// The outcome of [`Tx::charge_quota_at_once`].
enum AtOnce {
    /// Charged in place.
    Charged,
    /// Not charged; the locked row and the row count when they were read with it.
    Missed(Option<(QuotaRow, i64)>),
}

fn busy(e: DbError) -> DbError {
    if e.is_lock_error() {
        DbError::ProjectBusy
    } else {
        e
    }
}

impl Tx {
    /// Locks the load balancer row (`SELECT … FOR UPDATE`; SQLite: held by `BEGIN IMMEDIATE`).
    /// Errors: [`DbError::NotFound`] (`Load Balancer <id> not found.`).
    pub async fn lock_load_balancer(&mut self, lb_id: &str) -> Result<LoadBalancerRow, DbError> {
        self.get_for_update::<LoadBalancerRow>(lb_id).await
    }

    /// LB PUT/DELETE/failover: lock the LB, require its provisioning_status to be one of
    /// `allowed`, set it to `new_status` (octavia `test_and_set_provisioning_status`).
    /// Errors: [`DbError::NotFound`], [`DbError::InvalidState`]
    /// (`Invalid state <status> of loadbalancer resource <id>`).
    pub async fn lock_lb_and_set(
        &mut self,
        lb_id: &str,
        allowed: &[ProvisioningStatus],
        new_status: ProvisioningStatus,
    ) -> Result<LoadBalancerRow, DbError> {
        let mut lb = self.lock_load_balancer(lb_id).await?;
        if !allowed.iter().any(|s| lb.provisioning_status == *s) {
            return Err(DbError::InvalidState {
                status: lb.provisioning_status,
                id: lb.id,
            });
        }
        self.set_provisioning_status::<LoadBalancerRow>(lb_id, new_status)
            .await?;
        lb.provisioning_status = new_status.into();
        Ok(lb)
    }

    /// Child create/update/delete: lock the LB, require ACTIVE, set it PENDING_UPDATE
    /// (octavia `test_and_set_lb_and_listeners_prov_status`), then set each listener in
    /// `listener_ids` to `listener_status` (PENDING_UPDATE, or PENDING_DELETE for a listener delete).
    /// Errors: [`DbError::NotFound`], [`DbError::Immutable`]
    /// (`Load Balancer <id> is immutable and cannot be updated.`).
    pub async fn lock_lb_for_child(
        &mut self,
        lb_id: &str,
        listener_ids: &[String],
        listener_status: ProvisioningStatus,
    ) -> Result<(), DbError> {
        // One conditional UPDATE takes the row lock, tests and sets (a locking read and an
        // UPDATE before), sent with the listeners' updates in one round trip
        // (db::batch); the row is read only to tell 404 from 409. On an error the caller
        // drops the transaction, listener updates included.
        let pending = SqlValue::from(ProvisioningStatus::PendingUpdate);
        let sql = "UPDATE `load_balancer` SET `provisioning_status` = ?, `updated_at` = ? \
                   WHERE `id` = ? AND `provisioning_status` = 'ACTIVE'";
        let not_active = OnZero::NotFound {
            resource: "Load Balancer",
            id: lb_id.to_owned(),
        };
        self.start_batching();
        let args = vec![
            pending.clone(),
            SqlValue::Time(crate::db::now()),
            lb_id.into(),
        ];
        let mut sent = self.write(sql, args, not_active).await;
        let listener = [("provisioning_status", SqlValue::from(listener_status))];
        if sent.is_ok() && !listener_ids.is_empty() {
            sent = self
                .update_many_held::<ListenerRow>(listener_ids, &listener, OnZero::Ignore)
                .await;
        }
        let sent = match sent {
            Ok(()) => self.stop_batching(true).await,
            Err(e) => self.stop_batching(false).await.and(Err(e)),
        };
        match sent {
            Ok(()) => {
                // claimed once this transaction holds the row (crate::settle)
                self.note_lb_status(lb_id, &pending);
                Ok(())
            }
            Err(DbError::NotFound {
                resource: "Load Balancer",
                ..
            }) => {
                let lb = self.lock_load_balancer(lb_id).await?;
                Err(DbError::Immutable {
                    resource: "Load Balancer",
                    id: lb.id,
                })
            }
            Err(e) => Err(e),
        }
    }

    /// Requires the row of `T` (pool or l7policy) to be ACTIVE and sets it to `new_status`.
    /// Errors: [`DbError::NotFound`], [`DbError::Immutable`] (`Pool <id> is immutable and cannot be updated.`).
    pub async fn require_active_and_set<T: Record + HasProvisioningStatus>(
        &mut self,
        id: &str,
        new_status: ProvisioningStatus,
    ) -> Result<T, DbError> {
        let row = self.get_for_update::<T>(id).await?;
        if row.provisioning_status() != ProvisioningStatus::Active {
            return Err(DbError::Immutable {
                resource: T::RESOURCE,
                id: id.to_owned(),
            });
        }
        self.set_provisioning_status::<T>(id, new_status).await?;
        self.get::<T>(id).await
    }

    /// Sets `provisioning_status` (and `updated_at`) of one row of `T`; returns rows matched.
    pub async fn set_provisioning_status<T: Record>(
        &mut self,
        id: &str,
        status: ProvisioningStatus,
    ) -> Result<u64, DbError> {
        self.update::<T>(id, &[("provisioning_status", status.into())])
            .await
    }

    /// Sets `operating_status` (and `updated_at`) of one row of `T`; returns rows matched.
    pub async fn set_operating_status<T: Record>(
        &mut self,
        id: &str,
        status: OperatingStatus,
    ) -> Result<u64, DbError> {
        self.update::<T>(id, &[("operating_status", status.into())])
            .await
    }

    /// Makes sure the project's `quotas` row exists (all NULL when created).
    ///
    /// MariaDB: an autocommitted `INSERT IGNORE` on another connection, as octavia's
    /// `ensure_project_exists` uses its own transaction, so the row is visible to every
    /// concurrent quota check. SQLite: inside this transaction (it holds the database lock).
    async fn ensure_quota_row(&mut self, project_id: &str) -> Result<(), DbError> {
        let sql = format!(
            "{} INTO `quotas` (`project_id`) VALUES (?)",
            self.insert_ignore()
        );
        if self.is_mysql() {
            let exists: Option<String> = self
                .fetch_optional_scalar(
                    "SELECT `project_id` FROM `quotas` WHERE `project_id` = ?",
                    vec![project_id.into()],
                )
                .await?;
            if exists.is_none() {
                self.database()
                    .execute_autocommit(&sql, vec![project_id.into()])
                    .await?;
            }
        } else {
            self.execute(&sql, vec![project_id.into()]).await?;
        }
        Ok(())
    }

    /// The project's `quotas` row, created if missing, locked `FOR UPDATE`. A project seen
    /// before ([`crate::db::QuotaRowsSeen`]) is locked at once; a row gone since is then
    /// inserted in this transaction (a `FOR UPDATE` miss holds a gap lock that another
    /// connection's insert would wait on).
    async fn lock_quota_row(&mut self, project_id: &str) -> Result<QuotaRow, DbError> {
        if self.quota_rows.contains(project_id) {
            match self.get_for_update::<QuotaRow>(project_id).await {
                Ok(q) => return Ok(q),
                Err(DbError::NotFound { .. }) => {
                    self.quota_rows.forget(project_id);
                    let sql = format!(
                        "{} INTO `quotas` (`project_id`) VALUES (?)",
                        self.insert_ignore()
                    );
                    self.execute(&sql, vec![project_id.into()])
                        .await
                        .map_err(busy)?;
                }
                Err(e) => return Err(busy(e)),
            }
        } else {
            self.ensure_quota_row(project_id).await.map_err(busy)?;
        }
        let q = self
            .get_for_update::<QuotaRow>(project_id)
            .await
            .map_err(busy)?;
        self.quota_rows.insert(project_id);
        Ok(q)
    }

    /// Checks and takes quota for `count` new objects of `resource` in `project_id`
    /// (octavia/db/repositories.py `check_quota_met`).
    ///
    /// Creates the project's `quotas` row if missing, locks it, takes the limit (row value, or
    /// `defaults` when NULL; -1 = unlimited) and the in-use count (stored counter, or — when it is
    /// 0/NULL — the number of the project's non-DELETED rows of that table), then allows when
    /// `in_use + count <= limit` and writes `in_use + count` back. The caller skips this under
    /// `auth_strategy = noauth`.
    /// Errors: [`DbError::QuotaExceeded`] (403), [`DbError::ProjectBusy`] (503 on lock failure),
    /// [`DbError::MissingProjectId`].
    pub async fn check_quota(
        &mut self,
        project_id: &str,
        resource: QuotaResource,
        count: i32,
        defaults: &QuotaLimits,
    ) -> Result<(), DbError> {
        self.check_and_charge_quota(project_id, resource, Some(count), count, defaults)
            .await
    }

    /// [`Tx::check_quota`] with the check and the charge apart: allows when
    /// `in_use + check <= limit` (no check when `check` is `None`), then writes
    /// `in_use + charge`.
    ///
    /// For the batch member update: Octavia checks the net growth (new minus removed members)
    /// and also charges only that, but each removed member gives its unit back when its
    /// DELETED status arrives, so its `in_use_member` drifts one down per removed member.
    /// Keel checks the net growth and charges every new member: the counter then equals the
    /// members that exist once the provider has reported. Errors: as [`Tx::check_quota`].
    pub async fn check_and_charge_quota(
        &mut self,
        project_id: &str,
        resource: QuotaResource,
        check: Option<i32>,
        charge: i32,
        defaults: &QuotaLimits,
    ) -> Result<(), DbError> {
        if project_id.is_empty() {
            return Err(DbError::MissingProjectId);
        }
        let mut read = None;
        if self.quota_rows.contains(project_id) {
            match self
                .charge_quota_at_once(project_id, resource, check, charge, defaults)
                .await?
            {
                AtOnce::Charged => return Ok(()),
                AtOnce::Missed(r) => read = r,
            }
        }
        let (q, counted) = match read {
            Some((q, n)) => (q, Some(n)),
            None => (self.lock_quota_row(project_id).await?, None),
        };
        let limit = q.limit(resource).unwrap_or_else(|| defaults.get(resource));
        let in_use = match (q.in_use(resource), counted) {
            (Some(n), _) if n != 0 => n,
            (_, Some(n)) => i32::try_from(n).unwrap_or(i32::MAX),
            _ => {
                let sql = format!(
                    "SELECT COUNT(*) FROM `{}` WHERE `project_id` = ? AND `provisioning_status` <> 'DELETED'",
                    resource.table()
                );
                let n: Option<i64> = self
                    .fetch_optional_scalar(&sql, vec![project_id.into()])
                    .await?;
                i32::try_from(n.unwrap_or(0)).unwrap_or(i32::MAX)
            }
        };
        if let Some(count) = check
            && limit != -1
            && in_use.saturating_add(count) > limit
        {
            return Err(DbError::QuotaExceeded {
                resource: resource.display_name(),
            });
        }
        let charged = in_use.saturating_add(charge);
        // the row is locked: the write rides with the transaction's next statement
        let sql = format!(
            "UPDATE `quotas` SET `in_use_{}` = ? WHERE `project_id` = ?",
            resource.column()
        );
        let args = vec![SqlValue::Int(i64::from(charged)), project_id.into()];
        self.write_soon(sql, args, OnZero::Ignore).await
    }

    /// [`Tx::check_and_charge_quota`] as one conditional `UPDATE` of the project's row, which
    /// takes the row lock the `SELECT … FOR UPDATE` would, for a counter that is set (not
    /// 0/NULL) and a limit not met (two round trips → one). On a miss — a counter at
    /// 0/NULL (octavia then counts the rows), quota met, a charge of 0 — MariaDB reads the
    /// locked row and octavia's row count in one more round trip, for the caller to decide; a
    /// missing row gives no read and the caller's step-by-step path creates it. The count is a
    /// plain read: inside the `UPDATE` it would be a locking read of the whole table,
    /// serialising every concurrent create of that kind. (Reading both on every charge, in
    /// the `UPDATE`'s round trip, cost 6 % of the listener loop's throughput: three unprepared
    /// statements instead of one prepared.)
    async fn charge_quota_at_once(
        &mut self,
        project_id: &str,
        resource: QuotaResource,
        check: Option<i32>,
        charge: i32,
        defaults: &QuotaLimits,
    ) -> Result<AtOnce, DbError> {
        let used = format!("`in_use_{}`", resource.column());
        let mut sql = format!(
            "UPDATE `quotas` SET {used} = {used} + ? WHERE `project_id` = ? AND {used} <> 0"
        );
        let mut args: Vec<SqlValue> = vec![SqlValue::Int(i64::from(charge)), project_id.into()];
        if let Some(count) = check {
            let limit = format!("COALESCE(`{}`, ?)", resource.column());
            sql.push_str(&format!(" AND ({limit} = -1 OR {used} + ? <= {limit})"));
            let default = i64::from(defaults.get(resource));
            args.extend([
                SqlValue::Int(default),
                SqlValue::Int(i64::from(count)),
                SqlValue::Int(default),
            ]);
        }
        if self.execute(&sql, args).await.map_err(busy)? == 1 {
            return Ok(AtOnce::Charged);
        }
        // the row and octavia's count in one round trip, for the caller's decision
        let by_project = vec![SqlValue::from(project_id)];
        let stmts = [
            (
                format!(
                    "SELECT {} FROM `quotas` WHERE `project_id` = ? FOR UPDATE",
                    crate::repo::select_list::<QuotaRow>()
                ),
                by_project.clone(),
            ),
            (
                format!(
                    "SELECT COUNT(*) FROM `{}` WHERE `project_id` = ? AND `provisioning_status` <> 'DELETED'",
                    resource.table()
                ),
                by_project,
            ),
        ];
        let mut read = None;
        if let Some(results) = self.query_batch(&stmts).await.map_err(busy)? {
            let mut firsts = results.into_iter().map(|(_, rows)| rows.into_iter().next());
            if let (Some(Some(row)), Some(Some(count))) = (firsts.next(), firsts.next()) {
                use sqlx::{FromRow, Row};
                read = Some((QuotaRow::from_row(&row)?, count.try_get::<i64, _>(0)?));
            }
        }
        Ok(AtOnce::Missed(read))
    }

    /// Releases `count` of `resource` for `project_id` (octavia `decrement_quota`): locks the
    /// project's row and decrements `in_use_<resource>` only when it is > 0; a missing row is a
    /// no-op.
    pub async fn decrement_quota(
        &mut self,
        project_id: &str,
        resource: QuotaResource,
        count: i32,
    ) -> Result<(), DbError> {
        // one conditional UPDATE, which takes the row lock (a held-back write on the status
        // path: db::batch)
        let used = format!("`in_use_{}`", resource.column());
        // `count` one-by-one decrements, each only while > 0: never below 0
        let sql = format!(
            "UPDATE `quotas` SET {used} = CASE WHEN {used} > ? THEN {used} - ? ELSE 0 END \
             WHERE `project_id` = ? AND {used} > 0"
        );
        let why = format!(
            "quota decrement on {resource:?} of project {project_id}: no quotas row, or it \
             would go negative"
        );
        let n = SqlValue::Int(i64::from(count));
        self.write(
            sql,
            vec![n.clone(), n, project_id.into()],
            OnZero::Warn(why),
        )
        .await
        .map_err(busy)
    }

    /// Sets quota limits for a project (PUT /v2/lbaas/quotas/{project_id}); creates the row.
    pub async fn set_quota(
        &mut self,
        project_id: &str,
        u: &QuotaUpdate,
    ) -> Result<QuotaRow, DbError> {
        let sql = format!(
            "{} INTO `quotas` (`project_id`) VALUES (?)",
            self.insert_ignore()
        );
        self.execute(&sql, vec![project_id.into()]).await?;
        let mut ch: Vec<(&str, SqlValue)> = Vec::new();
        let fields = [
            ("load_balancer", u.load_balancer),
            ("listener", u.listener),
            ("pool", u.pool),
            ("health_monitor", u.health_monitor),
            ("member", u.member),
            ("l7policy", u.l7policy),
            ("l7rule", u.l7rule),
        ];
        for (c, v) in fields {
            if let Some(v) = v {
                ch.push((c, v.into()));
            }
        }
        self.update::<QuotaRow>(project_id, &ch).await?;
        self.get::<QuotaRow>(project_id).await
    }

    /// Resets all seven limits to NULL, keeping the counters (DELETE /v2/lbaas/quotas/{id}).
    /// Errors: [`DbError::NotFound`] (`Quotas <project_id> not found.`).
    pub async fn reset_quota(&mut self, project_id: &str) -> Result<(), DbError> {
        self.get_for_update::<QuotaRow>(project_id).await?;
        let nulls: Vec<(&str, SqlValue)> = QuotaResource::ALL
            .iter()
            .map(|r| (r.column(), SqlValue::Null))
            .collect();
        self.update::<QuotaRow>(project_id, &nulls).await?;
        Ok(())
    }

    /// The load balancer's VIP row, if any.
    pub async fn vip(&mut self, lb_id: &str) -> Result<Option<VipRow>, DbError> {
        self.find::<VipRow>(lb_id).await
    }

    /// The load balancer's additional VIPs (ordered by subnet_id).
    pub async fn additional_vips(&mut self, lb_id: &str) -> Result<Vec<AdditionalVipRow>, DbError> {
        self.fetch_all(
            "SELECT `load_balancer_id`, `ip_address`, `port_id`, `subnet_id`, `network_id` \
             FROM `additional_vip` WHERE `load_balancer_id` = ? ORDER BY `subnet_id`",
            vec![lb_id.into()],
        )
        .await
    }

    /// The VIP security group ids of a load balancer, sorted.
    pub async fn vip_sg_ids(&mut self, lb_id: &str) -> Result<Vec<String>, DbError> {
        self.fetch_scalars(
            "SELECT `sg_id` FROM `vip_security_group` WHERE `load_balancer_id` = ? ORDER BY `sg_id`",
            vec![lb_id.into()],
        )
        .await
    }

    /// The listener's `allowed_cidrs`, sorted.
    pub async fn listener_cidrs(&mut self, listener_id: &str) -> Result<Vec<String>, DbError> {
        self.fetch_scalars(
            "SELECT `cidr` FROM `listener_cidr` WHERE `listener_id` = ? ORDER BY `cidr`",
            vec![listener_id.into()],
        )
        .await
    }

    /// Replaces the listener's `allowed_cidrs`.
    pub async fn set_listener_cidrs(
        &mut self,
        listener_id: &str,
        cidrs: &[String],
    ) -> Result<(), DbError> {
        self.execute(
            "DELETE FROM `listener_cidr` WHERE `listener_id` = ?",
            vec![listener_id.into()],
        )
        .await?;
        let mut uniq = cidrs.to_vec();
        uniq.sort();
        uniq.dedup();
        for c in uniq {
            self.execute(
                "INSERT INTO `listener_cidr` (`listener_id`, `cidr`) VALUES (?, ?)",
                vec![listener_id.into(), c.into()],
            )
            .await?;
        }
        Ok(())
    }

    /// The listener's SNI container refs in `position` order.
    pub async fn sni_refs(&mut self, listener_id: &str) -> Result<Vec<String>, DbError> {
        self.fetch_scalars(
            "SELECT `tls_container_id` FROM `sni` WHERE `listener_id` = ? ORDER BY `position`, `tls_container_id`",
            vec![listener_id.into()],
        )
        .await
    }

    /// Replaces the listener's SNI refs (positions 0..n in the given order).
    pub async fn set_sni_refs(
        &mut self,
        listener_id: &str,
        refs: &[String],
    ) -> Result<(), DbError> {
        self.execute(
            "DELETE FROM `sni` WHERE `listener_id` = ?",
            vec![listener_id.into()],
        )
        .await?;
        let mut seen = std::collections::HashSet::new();
        for (i, r) in refs.iter().enumerate() {
            if !seen.insert(r.clone()) {
                continue;
            }
            self.execute(
                "INSERT INTO `sni` (`listener_id`, `tls_container_id`, `position`) VALUES (?, ?, ?)",
                vec![listener_id.into(), r.clone().into(), SqlValue::Int(i as i64)],
            )
            .await?;
        }
        Ok(())
    }

    /// Next `peer_port` for a new listener of the LB: the LB's highest + 1, at least 1025
    /// (octavia/db/repositories.py `_find_next_peer_port`, `HAPROXY_BASE_PEER_PORT`).
    pub async fn next_peer_port(&mut self, lb_id: &str) -> Result<i32, DbError> {
        let max: Option<Option<i32>> = self
            .fetch_optional_scalar(
                "SELECT MAX(`peer_port`) FROM `listener` WHERE `load_balancer_id` = ?",
                vec![lb_id.into()],
            )
            .await?;
        Ok(max.flatten().map_or(1025, |m| m + 1))
    }

    /// [`Tx::next_peer_port`] from the LB's listener rows already read (all of them, DELETED
    /// included, as the `MAX` is): one statement less on a listener create.
    pub fn peer_port_after(listeners: &[ListenerRow]) -> i32 {
        listeners
            .iter()
            .filter_map(|l| l.peer_port)
            .max()
            .map_or(1025, |m| m + 1)
    }

    /// Deletes a health monitor row and its tags (ORM cascade of `HealthMonitor`).
    pub async fn delete_health_monitor_cascade(&mut self, id: &str) -> Result<(), DbError> {
        self.delete_tags(&[id.to_owned()]).await?;
        self.delete_held::<HealthMonitorRow>(id).await
    }

    /// Deletes a member row and its tags.
    pub async fn delete_member_cascade(&mut self, id: &str) -> Result<(), DbError> {
        self.delete_members_cascade(&[id.to_owned()]).await
    }

    /// Deletes member rows and their tags, a few hundred ids per statement (held-back writes
    /// on the status path: `db::batch`).
    pub async fn delete_members_cascade(&mut self, ids: &[String]) -> Result<(), DbError> {
        for chunk in ids.chunks(500) {
            self.delete_tags(chunk).await?;
            let sql = format!(
                "DELETE FROM `member` WHERE `id` IN ({})",
                vec!["?"; chunk.len()].join(", ")
            );
            let args = chunk.iter().map(|s| SqlValue::Text(s.clone())).collect();
            self.write(sql, args, OnZero::Ignore).await?;
        }
        Ok(())
    }

    /// Deletes an l7rule row and its tags.
    pub async fn delete_l7rule_cascade(&mut self, id: &str) -> Result<(), DbError> {
        self.delete_tags(&[id.to_owned()]).await?;
        self.delete_held::<L7RuleRow>(id).await
    }

    /// Deletes an l7policy with its rules and tags, then renumbers the listener's remaining
    /// policies 1..n (ORM ordering_list).
    pub async fn delete_l7policy_cascade(&mut self, id: &str) -> Result<(), DbError> {
        let Some(p) = self.find::<L7PolicyRow>(id).await? else {
            return Ok(());
        };
        let rules = self.l7rule_ids(id).await?;
        self.delete_tags(&rules).await?;
        self.write(
            "DELETE FROM `l7rule` WHERE `l7policy_id` = ?",
            vec![id.into()],
            OnZero::Ignore,
        )
        .await?;
        self.delete_tags(&[id.to_owned()]).await?;
        self.delete_held::<L7PolicyRow>(id).await?;
        self.renumber_l7policies(&p.listener_id).await
    }

    /// Renumbers a listener's l7policies 1..n keeping their order (position, then created_at).
    pub async fn renumber_l7policies(&mut self, listener_id: &str) -> Result<(), DbError> {
        let ids: Vec<String> = self
            .fetch_scalars(
                "SELECT `id` FROM `l7policy` WHERE `listener_id` = ? ORDER BY `position`, `created_at`, `id`",
                vec![listener_id.into()],
            )
            .await?;
        for (i, pid) in ids.iter().enumerate() {
            self.write(
                "UPDATE `l7policy` SET `position` = ? WHERE `id` = ? AND `position` <> ?",
                vec![
                    SqlValue::Int(i as i64 + 1),
                    pid.clone().into(),
                    SqlValue::Int(i as i64 + 1),
                ],
                OnZero::Ignore,
            )
            .await?;
        }
        Ok(())
    }

    /// Deletes a listener with its SNI rows, CIDR rows, l7policies (with rules) and tags.
    pub async fn delete_listener_cascade(&mut self, id: &str) -> Result<(), DbError> {
        // reads first: the writes then go in one batch on the status path
        let mut policies: Vec<(String, Vec<String>)> = Vec::new();
        let ids: Vec<String> = self
            .fetch_scalars(
                "SELECT `id` FROM `l7policy` WHERE `listener_id` = ?",
                vec![id.into()],
            )
            .await?;
        for p in ids {
            let rules = self.l7rule_ids(&p).await?;
            policies.push((p, rules));
        }
        let by_listener = vec![SqlValue::from(id)];
        self.write(
            "DELETE FROM `sni` WHERE `listener_id` = ?",
            by_listener.clone(),
            OnZero::Ignore,
        )
        .await?;
        self.write(
            "DELETE FROM `listener_cidr` WHERE `listener_id` = ?",
            by_listener,
            OnZero::Ignore,
        )
        .await?;
        for (p, rules) in policies {
            self.delete_tags(&rules).await?;
            self.write(
                "DELETE FROM `l7rule` WHERE `l7policy_id` = ?",
                vec![p.as_str().into()],
                OnZero::Ignore,
            )
            .await?;
            self.delete_tags(std::slice::from_ref(&p)).await?;
            self.delete_held::<L7PolicyRow>(&p).await?;
        }
        self.delete_tags(&[id.to_owned()]).await?;
        self.delete_held::<ListenerRow>(id).await
    }

    async fn l7rule_ids(&mut self, policy_id: &str) -> Result<Vec<String>, DbError> {
        self.fetch_scalars(
            "SELECT `id` FROM `l7rule` WHERE `l7policy_id` = ?",
            vec![policy_id.into()],
        )
        .await
    }

    /// Deletes a pool with its members, health monitor, session persistence and tags; nulls
    /// `listener.default_pool_id` and `l7policy.redirect_pool_id` still pointing at it.
    pub async fn delete_pool_cascade(&mut self, id: &str) -> Result<(), DbError> {
        // reads first: the writes then go in one batch on the status path
        let members: Vec<String> = self
            .fetch_scalars(
                "SELECT `id` FROM `member` WHERE `pool_id` = ?",
                vec![id.into()],
            )
            .await?;
        let hms: Vec<String> = self
            .fetch_scalars(
                "SELECT `id` FROM `health_monitor` WHERE `pool_id` = ?",
                vec![id.into()],
            )
            .await?;
        self.delete_tags(&members).await?;
        self.write(
            "DELETE FROM `member` WHERE `pool_id` = ?",
            vec![id.into()],
            OnZero::Ignore,
        )
        .await?;
        self.delete_tags(&hms).await?;
        for sql in [
            "DELETE FROM `health_monitor` WHERE `pool_id` = ?",
            "DELETE FROM `session_persistence` WHERE `pool_id` = ?",
            "UPDATE `listener` SET `default_pool_id` = NULL WHERE `default_pool_id` = ?",
            "UPDATE `l7policy` SET `redirect_pool_id` = NULL WHERE `redirect_pool_id` = ?",
        ] {
            self.write(sql, vec![id.into()], OnZero::Ignore).await?;
        }
        self.delete_tags(&[id.to_owned()]).await?;
        self.delete_held::<PoolRow>(id).await
    }

    async fn delete_tags(&mut self, ids: &[String]) -> Result<(), DbError> {
        if ids.is_empty() {
            return Ok(());
        }
        let sql = format!(
            "DELETE FROM `tags` WHERE `resource_id` IN ({})",
            vec!["?"; ids.len()].join(", ")
        );
        self.write(
            sql,
            ids.iter().map(|s| SqlValue::Text(s.clone())).collect(),
            OnZero::Ignore,
        )
        .await
    }
}

/// Row types with a `provisioning_status` column.
pub trait HasProvisioningStatus {
    /// The current value.
    fn provisioning_status(&self) -> &str;
}

macro_rules! has_ps {
    ($($t:ty),*) => {$(
        impl HasProvisioningStatus for $t {
            fn provisioning_status(&self) -> &str { &self.provisioning_status }
        }
    )*};
}
has_ps!(
    LoadBalancerRow,
    ListenerRow,
    PoolRow,
    MemberRow,
    HealthMonitorRow,
    L7PolicyRow,
    L7RuleRow
);
