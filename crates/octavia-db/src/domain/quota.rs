//! Quota check, charge, release and admin updates over the `quotas` table
//! (octavia/db/repositories.py `check_quota_met`, `decrement_quota`, `QuotasRepository`).

use crate::db::OnZero;
use crate::db::Tx;
use crate::error::DbError;
use crate::rows::*;
use crate::sql::SqlValue;

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

/// The outcome of [`Tx::charge_quota_at_once`].
enum AtOnce {
    /// Charged in place.
    Charged,
    /// Not charged; the locked row and the row count when they were read with it.
    Missed(Option<(QuotaRow, i64)>),
}

/// Maps a lock failure to [`DbError::ProjectBusy`].
fn busy(e: DbError) -> DbError {
    if e.is_lock_error() {
        DbError::ProjectBusy
    } else {
        e
    }
}

impl Tx {
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
}
