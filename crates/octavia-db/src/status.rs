//! The status updater: applies provider status reports to the DB with the semantics of
//! octavia's driver-agent `DriverUpdater`.

use async_trait::async_trait;
use provider::{
    ProvisioningStatus, StatsReport, StatusRecord, StatusReport, StatusSink, StatusSinkError,
};

use crate::db::OnZero;
use crate::db::{Database, Tx};
use crate::domain::QuotaResource;
use crate::error::DbError;
use crate::rows::*;
use crate::schema::Dialect;
use crate::sql::SqlValue;

/// Applies [`StatusReport`]s and [`StatsReport`]s to the Octavia DB (`impl StatusSink`).
#[derive(Clone, Debug)]
pub struct StatusUpdater {
    db: Database,
}

/// The object kinds of a status report, in processing order (§2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Member,
    HealthMonitor,
    Pool,
    L7Rule,
    L7Policy,
    Listener,
    LoadBalancer,
}

impl Kind {
    fn collection(self) -> &'static str {
        match self {
            Kind::Member => "members",
            Kind::HealthMonitor => "healthmonitors",
            Kind::Pool => "pools",
            Kind::L7Rule => "l7rules",
            Kind::L7Policy => "l7policies",
            Kind::Listener => "listeners",
            Kind::LoadBalancer => "loadbalancers",
        }
    }

    fn table(self) -> &'static str {
        self.quota().table()
    }

    fn quota(self) -> QuotaResource {
        match self {
            Kind::Member => QuotaResource::Member,
            Kind::HealthMonitor => QuotaResource::HealthMonitor,
            Kind::Pool => QuotaResource::Pool,
            Kind::L7Rule => QuotaResource::L7Rule,
            Kind::L7Policy => QuotaResource::L7Policy,
            Kind::Listener => QuotaResource::Listener,
            Kind::LoadBalancer => QuotaResource::LoadBalancer,
        }
    }

    /// Text of the "unknown id" failure for the repositories that check (§2.3 step 4),
    /// octavia `exceptions.NotFound` with the data model's `_name()`.
    fn not_found_name(self) -> Option<&'static str> {
        match self {
            Kind::Listener => Some("Listener"),
            Kind::L7Policy => Some("L7 Policy"),
            Kind::L7Rule => Some("L7 Rule"),
            _ => None,
        }
    }
}

/// The project of one row (lock-order reads).
#[derive(sqlx::FromRow)]
struct Project {
    project_id: Option<String>,
}

/// (project_id, provisioning_status) of one object row.
#[derive(sqlx::FromRow)]
struct Owner {
    project_id: Option<String>,
    provisioning_status: String,
}

impl StatusUpdater {
    /// A status updater over `db`.
    pub fn new(db: Database) -> Self {
        Self { db }
    }

    /// Applies a report: members → healthmonitors → pools → l7rules → l7policies → listeners →
    /// loadbalancers, records in list order; stops at the first failing record (earlier records
    /// stay committed) and returns its [`StatusSinkError`] (`status_object` = collection key,
    /// `status_object_id` = record id).
    ///
    /// octavia commits each record in its own transaction. A report naming a load balancer (a
    /// provider request's completion) is first applied in ONE transaction that locks the LB
    /// rows before any child, in the API's lock order (LB, then children), so it cannot
    /// deadlock with API writers: one commit instead of one per record (200 members
    /// were 202 commits) and the tree turns ACTIVE at once. If any record fails there, that
    /// transaction is rolled back and the report replayed record by record, which gives
    /// octavia's outcome exactly (same records committed, same failing record and text).
    ///
    /// Afterwards (whatever the outcome) every load balancer the report gives a final
    /// provisioning status (ACTIVE, ERROR, DELETED) is announced to API transactions waiting
    /// in [`crate::Tx::commit`] ([`crate::settle`]).
    pub async fn apply(&self, report: &StatusReport) -> Result<(), StatusSinkError> {
        let outcome = self.apply_all(report).await;
        for lb in &report.loadbalancers {
            if matches!(
                lb.provisioning_status,
                Some(
                    ProvisioningStatus::Active
                        | ProvisioningStatus::Error
                        | ProvisioningStatus::Deleted
                )
            ) {
                self.db.announce_settled(&lb.id);
            }
        }
        outcome
    }

    async fn apply_all(&self, report: &StatusReport) -> Result<(), StatusSinkError> {
        if !report.loadbalancers.is_empty() && self.apply_at_once(report).await.is_ok() {
            return Ok(());
        }
        for (kind, records) in groups(report) {
            for rec in records {
                self.apply_record(kind, rec)
                    .await
                    .map_err(|e| StatusSinkError {
                        fault_string: e.to_string(),
                        status_object: kind.collection().to_owned(),
                        status_object_id: Some(rec.id.clone()),
                    })?;
            }
        }
        Ok(())
    }

    /// The whole report in one transaction, LB rows locked first; any failure rolls it all
    /// back (the caller then replays record by record).
    async fn apply_at_once(&self, report: &StatusReport) -> Result<(), RecordError> {
        let mut tx = self.db.begin().await?;
        let mut lbs: Vec<&str> = report.loadbalancers.iter().map(|r| r.id.as_str()).collect();
        lbs.sort_unstable();
        lbs.dedup();
        let deletes = deletes_rows(report);
        if deletes {
            // DELETED records decrement quotas; the API locks `quotas` before the LB
            // (check_quota, then the LB lock): take them in that order too.
            let mut projects = Vec::new();
            for id in &lbs {
                let sql = "SELECT `project_id` FROM `load_balancer` WHERE `id` = ?";
                let p: Option<Project> = tx.fetch_optional(sql, vec![(*id).into()]).await?;
                projects.extend(p.and_then(|p| p.project_id));
            }
            projects.sort_unstable();
            projects.dedup();
            let sql = format!(
                "SELECT `project_id` FROM `quotas` WHERE `project_id` = ?{}",
                tx.for_update()
            );
            for p in projects {
                let _: Option<Project> = tx.fetch_optional(&sql, vec![p.into()]).await?;
            }
        }
        let sql = format!(
            "SELECT `project_id`, `provisioning_status` FROM `load_balancer` WHERE `id` = ?{}",
            tx.for_update()
        );
        // The LB rows are locked first (the API's lock order), by reads whose rows nobody
        // needs: held back with the writes, they go in the same round trip.
        tx.start_batching();
        let mut applied = Ok(());
        for id in lbs {
            applied = tx.write(&*sql, vec![id.into()], OnZero::Ignore).await;
            if applied.is_err() {
                break;
            }
        }
        let applied = match applied {
            Ok(()) => apply_records_in_order(&mut tx, report).await,
            Err(e) => Err(e.into()),
        };
        tx.stop_batching(applied.is_ok()).await?;
        applied?;
        tx.commit_plain().await?;
        Ok(())
    }

    /// One record in its own transaction (§2.3). Errors carry the fault text for the reply.
    async fn apply_record(&self, kind: Kind, rec: &StatusRecord) -> Result<(), RecordError> {
        let mut tx = self.db.begin().await?;
        apply_in(&mut tx, kind, rec).await?;
        tx.commit_plain().await?;
        Ok(())
    }

    /// Upserts `listener_statistics` (listener_id, amphora_id = listener_id) with the absolute
    /// counters (§3). Per-entry failures (e.g. a value beyond the column range) are logged and
    /// skipped, as octavia's stats driver swallows them; nothing is checked against `listener`.
    pub async fn store_stats(&self, report: &StatsReport) -> Result<(), DbError> {
        for s in &report.listeners {
            if let Err(e) = self.store_one(s).await {
                tracing::warn!(listener = %s.id, error = %e, "listener statistics not stored");
            }
        }
        Ok(())
    }

    async fn store_one(&self, s: &provider::ListenerStats) -> Result<(), DbError> {
        let big = |v: u64| {
            i64::try_from(v).map_err(|_| DbError::Schema(format!("counter {v} out of range")))
        };
        let active = i32::try_from(s.active_connections).map_err(|_| {
            DbError::Schema(format!(
                "active_connections {} out of range",
                s.active_connections
            ))
        })?;
        let args: Vec<SqlValue> = vec![
            s.id.as_str().into(),
            big(s.bytes_in)?.into(),
            big(s.bytes_out)?.into(),
            active.into(),
            big(s.total_connections)?.into(),
            s.id.as_str().into(),
            big(s.request_errors)?.into(),
        ];
        let mut tx = self.db.begin().await?;
        let head = "INSERT INTO `listener_statistics` (`listener_id`, `bytes_in`, `bytes_out`, \
                    `active_connections`, `total_connections`, `amphora_id`, `request_errors`) \
                    VALUES (?, ?, ?, ?, ?, ?, ?)";
        let sql = match tx.dialect() {
            Dialect::MySql => format!(
                "{head} ON DUPLICATE KEY UPDATE `bytes_in` = VALUES(`bytes_in`), \
                 `bytes_out` = VALUES(`bytes_out`), `active_connections` = VALUES(`active_connections`), \
                 `total_connections` = VALUES(`total_connections`), `request_errors` = VALUES(`request_errors`)"
            ),
            Dialect::Sqlite => format!(
                "{head} ON CONFLICT (`listener_id`, `amphora_id`) DO UPDATE SET \
                 `bytes_in` = excluded.`bytes_in`, `bytes_out` = excluded.`bytes_out`, \
                 `active_connections` = excluded.`active_connections`, \
                 `total_connections` = excluded.`total_connections`, \
                 `request_errors` = excluded.`request_errors`"
            ),
        };
        tx.execute(&sql, args).await?;
        tx.commit_plain().await
    }
}

/// One record inside `tx` (§2.3), not committed. Errors carry the fault text for the reply.
async fn apply_in(tx: &mut Tx, kind: Kind, rec: &StatusRecord) -> Result<(), RecordError> {
    let mut prov = rec.provisioning_status.map(|p| p.as_str());
    if rec.provisioning_status == Some(ProvisioningStatus::Deleted) {
        let sql = format!(
            "SELECT `project_id`, `provisioning_status` FROM `{}` WHERE `id` = ?{}",
            kind.table(),
            tx.for_update()
        );
        let owner: Option<Owner> = tx
            .fetch_optional(&sql, vec![rec.id.as_str().into()])
            .await?;
        let Some(owner) = owner else {
            if kind == Kind::LoadBalancer {
                // octavia dereferences the missing LB's vip first and fails the record.
                return Err(RecordError::Text(
                    "'NoneType' object has no attribute 'vip'".into(),
                ));
            }
            // Already gone: the record is ignored (success).
            return Ok(());
        };
        if kind == Kind::LoadBalancer {
            let vip = tx.vip(&rec.id).await?;
            if vip.and_then(|v| v.octavia_owned) == Some(true) {
                tracing::warn!(lb = %rec.id, "VIP is octavia_owned; Keel has no network driver to deallocate it");
            }
        }
        // The cascade reads first; the quota goes back after it, so on the status path
        // (db::batch) the decrement rides with the cascade's writes: one round trip less.
        match kind {
            Kind::Member => tx.delete_member_cascade(&rec.id).await?,
            Kind::HealthMonitor => tx.delete_health_monitor_cascade(&rec.id).await?,
            Kind::Pool => tx.delete_pool_cascade(&rec.id).await?,
            Kind::L7Rule => tx.delete_l7rule_cascade(&rec.id).await?,
            Kind::L7Policy => tx.delete_l7policy_cascade(&rec.id).await?,
            Kind::Listener => tx.delete_listener_cascade(&rec.id).await?,
            Kind::LoadBalancer => (),
        };
        if owner.provisioning_status != ProvisioningStatus::Deleted
            && let Some(p) = owner.project_id.as_deref()
        {
            tx.decrement_quota(p, kind.quota(), 1).await?;
        }
        if kind != Kind::LoadBalancer {
            return Ok(());
        }
        prov = Some(ProvisioningStatus::Deleted.as_str());
    }
    let op = rec.operating_status.map(|o| o.as_str());
    if prov.is_none() && op.is_none() {
        return Ok(());
    }
    let mut changes: Vec<(&str, SqlValue)> = Vec::new();
    if let Some(p) = prov {
        changes.push(("provisioning_status", p.into()));
    }
    if let Some(o) = op {
        changes.push(("operating_status", o.into()));
    }
    // no row: `<name> <id> not found.` for the kinds octavia looks up first
    let on_zero = match kind.not_found_name() {
        Some(resource) => OnZero::NotFound {
            resource,
            id: rec.id.clone(),
        },
        None => OnZero::Ignore,
    };
    update_kind_many(tx, kind, std::slice::from_ref(&rec.id), &changes, on_zero).await?;
    Ok(())
}

/// True when a record of `report` is DELETED (rows go away, quotas are given back).
pub(crate) fn deletes_rows(report: &StatusReport) -> bool {
    groups(report).iter().any(|(_, records)| {
        records
            .iter()
            .any(|r| r.provisioning_status == Some(ProvisioningStatus::Deleted))
    })
}

/// Every record of `report` inside `tx`, in §2.2 order, stopping at the first failure. A run
/// of consecutive records of one kind with the same statuses, none DELETED, of a kind whose
/// unknown ids are ignored (members, health monitors, pools, load balancers), is one `UPDATE …
/// WHERE id IN (…)`: the outcome of applying them one by one, in one statement (a
/// batch of 200 members reported ACTIVE was 200 statements).
///
/// The caller batches the writes (`db::batch`) and rolls the whole report back on a failure.
async fn apply_records_in_order(tx: &mut Tx, report: &StatusReport) -> Result<(), RecordError> {
    for (kind, records) in groups(report) {
        let mut i = 0;
        while i < records.len() {
            let rec = &records[i];
            let deleted =
                |r: &StatusRecord| r.provisioning_status == Some(ProvisioningStatus::Deleted);
            if kind == Kind::Member && deleted(rec) {
                let run = records[i..].iter().take_while(|r| deleted(r)).count();
                delete_members(tx, &records[i..i + run]).await?;
                i += run;
                continue;
            }
            let groupable = kind.not_found_name().is_none()
                && rec.provisioning_status != Some(ProvisioningStatus::Deleted)
                && (rec.provisioning_status.is_some() || rec.operating_status.is_some());
            let run = if groupable {
                records[i..]
                    .iter()
                    .take_while(|r| {
                        r.provisioning_status == rec.provisioning_status
                            && r.operating_status == rec.operating_status
                    })
                    .count()
            } else {
                1
            };
            if run > 1 {
                let ids: Vec<String> = records[i..i + run].iter().map(|r| r.id.clone()).collect();
                let mut changes: Vec<(&str, SqlValue)> = Vec::new();
                if let Some(p) = rec.provisioning_status {
                    changes.push(("provisioning_status", p.as_str().into()));
                }
                if let Some(o) = rec.operating_status {
                    changes.push(("operating_status", o.as_str().into()));
                }
                update_kind_many(tx, kind, &ids, &changes, OnZero::Ignore).await?;
            } else {
                apply_in(tx, kind, rec).await?;
            }
            i += run;
        }
    }
    Ok(())
}

/// A run of DELETED member records, with the outcome of [`apply_in`] one by one (each row
/// locked, its tags and row deleted, its project's member quota given back unless it was
/// already DELETED; an unknown id ignored) in a few statements: a batch update that drops
/// 100 members was 100 lock reads and 100 write round trips.
async fn delete_members(tx: &mut Tx, records: &[StatusRecord]) -> Result<(), RecordError> {
    let ids: Vec<String> = records.iter().map(|r| r.id.clone()).collect();
    let mut given_back: std::collections::BTreeMap<String, i32> = Default::default();
    for chunk in ids.chunks(500) {
        let sql = format!(
            "SELECT `project_id`, `provisioning_status` FROM `member` WHERE `id` IN ({}){}",
            vec!["?"; chunk.len()].join(", "),
            tx.for_update()
        );
        let args = chunk.iter().map(|id| id.as_str().into()).collect();
        let owners: Vec<Owner> = tx.fetch_all(&sql, args).await?;
        for o in owners {
            if o.provisioning_status != ProvisioningStatus::Deleted.as_str()
                && let Some(p) = o.project_id
            {
                *given_back.entry(p).or_default() += 1;
            }
        }
    }
    tx.delete_members_cascade(&ids).await?;
    for (project, n) in given_back {
        tx.decrement_quota(&project, QuotaResource::Member, n)
            .await?;
    }
    Ok(())
}

/// The update of `ids` of `kind`, held back while batching (`db::batch`).
async fn update_kind_many(
    tx: &mut Tx,
    kind: Kind,
    ids: &[String],
    changes: &[(&str, SqlValue)],
    on_zero: OnZero,
) -> Result<(), DbError> {
    // reports carry final statuses only, so there is no PENDING_* to note (Tx::update)
    match kind {
        Kind::Member => {
            tx.update_many_held::<MemberRow>(ids, changes, on_zero)
                .await
        }
        Kind::HealthMonitor => {
            tx.update_many_held::<HealthMonitorRow>(ids, changes, on_zero)
                .await
        }
        Kind::Pool => tx.update_many_held::<PoolRow>(ids, changes, on_zero).await,
        Kind::L7Rule => {
            tx.update_many_held::<L7RuleRow>(ids, changes, on_zero)
                .await
        }
        Kind::L7Policy => {
            tx.update_many_held::<L7PolicyRow>(ids, changes, on_zero)
                .await
        }
        Kind::Listener => {
            tx.update_many_held::<ListenerRow>(ids, changes, on_zero)
                .await
        }
        Kind::LoadBalancer => {
            tx.update_many_held::<LoadBalancerRow>(ids, changes, on_zero)
                .await
        }
    }
}

/// The report's record lists in processing order (§2.2).
fn groups(report: &StatusReport) -> [(Kind, &Vec<StatusRecord>); 7] {
    [
        (Kind::Member, &report.members),
        (Kind::HealthMonitor, &report.healthmonitors),
        (Kind::Pool, &report.pools),
        (Kind::L7Rule, &report.l7rules),
        (Kind::L7Policy, &report.l7policies),
        (Kind::Listener, &report.listeners),
        (Kind::LoadBalancer, &report.loadbalancers),
    ]
}

/// Why one record failed.
#[derive(Debug)]
enum RecordError {
    Db(DbError),
    Text(String),
}

impl From<DbError> for RecordError {
    fn from(e: DbError) -> Self {
        RecordError::Db(e)
    }
}

impl std::fmt::Display for RecordError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecordError::Db(e) => write!(f, "{e}"),
            RecordError::Text(t) => f.write_str(t),
        }
    }
}

#[async_trait]
impl StatusSink for StatusUpdater {
    async fn update_status(&self, report: StatusReport) -> Result<(), StatusSinkError> {
        self.apply(&report).await
    }

    async fn work_pending(&self, lb_id: &str) -> Option<bool> {
        self.db.lb_pending(lb_id).await.ok()
    }

    async fn update_stats(&self, report: StatsReport) -> Result<(), StatusSinkError> {
        self.store_stats(&report)
            .await
            .map_err(|e| StatusSinkError {
                fault_string: e.to_string(),
                status_object: "listeners".into(),
                status_object_id: None,
            })
    }
}
