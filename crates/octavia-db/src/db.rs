//! Connection handling, the backend dispatch, the [`Tx`] handle and `upgrade()`.

use std::str::FromStr;
use std::time::Duration;

use chrono::NaiveDateTime;
use sqlx::mysql::{MySql, MySqlConnectOptions, MySqlPool, MySqlPoolOptions, MySqlRow};
use sqlx::sqlite::{
    Sqlite, SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions,
};
use tracing::Instrument;

mod batch;
mod keel_objects;

/// The name of Keel's one table of its own: one row, this database's deployment identity (`db/keel_objects.rs`).
pub const DEPLOYMENT_TABLE: &str = "keel_deployment";

pub(crate) use batch::OnZero;

use crate::error::DbError;
use crate::schema::{ALEMBIC_HEAD, Dialect, LOOKUP_ROWS, tables};
use crate::settle::SettleHub;
use crate::sql::{AnyRow, AnyScalar, Conn, SqlValue, bind_all};

/// Runs of a `BEGIN` that failed because its connection was lost (the server ended it between
/// the pool's ping and the `BEGIN`): it changed nothing, so it runs again on another
/// connection. A read statement in autocommit runs twice at most (`Tx::replace_lost`).
const CONNECTION_ATTEMPTS: usize = 3;

/// How busy the pool is now: connections open and idle among them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolUse {
    /// Connections open now (idle and in use).
    pub size: u32,
    /// Open but unused.
    pub idle: usize,
}

#[derive(Clone, Debug)]
enum Pool {
    Sqlite(SqlitePool),
    MySql(MySqlPool),
}

/// A handle on the Octavia database (cheap to clone; one connection pool).
///
/// Backends: MariaDB/MySQL (`mysql://user:pass@host:port/db`, also oslo.db's
/// `mysql+pymysql://…`) and SQLite (`sqlite://path?mode=rwc`, `sqlite::memory:`).
#[derive(Clone, Debug)]
pub struct Database {
    pool: Pool,
    settle: std::sync::Arc<SettleHub>,
    quota_rows: std::sync::Arc<QuotaRowsSeen>,
    /// Statements sent through this database's [`Tx`]s ([`Database::statements`]).
    statements: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

/// MariaDB pool settings (octavia.conf `[database]`, oslo.db's option names).
///
/// Every wait for the database is bounded by `acquire_timeout`: a server that is down, frozen
/// or unreachable makes a request fail with [`DbError::Unavailable`] after at most that long
/// (the API answers 503), and the next request after it is back is served on a fresh
/// connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolSettings {
    /// Connections open at most: oslo.db's `max_pool_size` + `max_overflow` (default 55, their
    /// defaults 5 + 50).
    pub max_connections: u32,
    /// `pool_timeout`: how long getting a connection may take, reconnecting included
    /// (default 5 s; SQLAlchemy's 30 s would hold every request that long in an outage).
    pub acquire_timeout: Duration,
    /// `connection_recycle_time`: a connection older than this is closed (default 3600 s, as
    /// oslo.db).
    pub max_lifetime: Option<Duration>,
    /// Idle connections are closed after this (default 600 s).
    pub idle_timeout: Option<Duration>,
}

impl Default for PoolSettings {
    fn default() -> Self {
        Self {
            max_connections: 55,
            acquire_timeout: Duration::from_secs(5),
            max_lifetime: Some(Duration::from_secs(3600)),
            idle_timeout: Some(Duration::from_secs(600)),
        }
    }
}

impl Database {
    /// Opens a pool for `url` with the default [`PoolSettings`].
    ///
    /// SQLite: foreign keys on, WAL journal for files, 30 s busy timeout; `sqlite::memory:` uses a
    /// single connection that lives as long as the pool (so the in-memory DB persists).
    /// Errors: [`DbError::Url`] for an unknown scheme, [`DbError::Unavailable`] when the server
    /// cannot be reached, [`DbError::Sql`] when it refuses.
    pub async fn connect(url: &str) -> Result<Self, DbError> {
        Self::connect_with(url, &PoolSettings::default()).await
    }

    /// [`Database::connect`] with explicit MariaDB pool settings (octavia.conf `[database]`).
    pub async fn connect_with(url: &str, settings: &PoolSettings) -> Result<Self, DbError> {
        let url = url.trim();
        if let Some(rest) = url.strip_prefix("mysql") {
            // oslo.db form: mysql+pymysql://, mysql+mysqldb://, …
            let rest = match rest.find("://") {
                Some(i) if rest[..i].is_empty() || rest[..i].starts_with('+') => &rest[i..],
                _ => {
                    return Err(DbError::Url {
                        url: redact(url),
                        cause: None,
                    });
                }
            };
            let opts = MySqlConnectOptions::from_str(&format!("mysql{rest}")).map_err(|e| {
                DbError::Url {
                    url: redact(url),
                    cause: Some(e),
                }
            })?;
            // sqlx pings a connection before it hands it out (bounded by acquire_timeout), so
            // a server that went away or froze since its last use fails the acquire, never a
            // statement that would wait on it without end
            let pool = MySqlPoolOptions::new()
                .max_connections(settings.max_connections.max(1))
                .acquire_timeout(settings.acquire_timeout)
                .max_lifetime(settings.max_lifetime)
                .idle_timeout(settings.idle_timeout)
                .test_before_acquire(true)
                .connect_with(opts)
                .await?;
            return Ok(Self {
                pool: Pool::MySql(pool),
                settle: std::sync::Arc::new(SettleHub::new()),
                quota_rows: std::sync::Arc::default(),
                statements: std::sync::Arc::default(),
            });
        }
        if url.starts_with("sqlite:") {
            let (opts, memory) = sqlite_options(url)?;
            let opts = opts
                .foreign_keys(true)
                .busy_timeout(Duration::from_secs(30));
            let pool = if memory {
                SqlitePoolOptions::new()
                    .max_connections(1)
                    .min_connections(1)
                    .idle_timeout(None)
                    .max_lifetime(None)
                    .connect_with(opts)
                    .await?
            } else {
                SqlitePoolOptions::new()
                    .max_connections(4)
                    .connect_with(opts.journal_mode(SqliteJournalMode::Wal))
                    .await?
            };
            return Ok(Self {
                pool: Pool::Sqlite(pool),
                settle: std::sync::Arc::new(SettleHub::new()),
                quota_rows: std::sync::Arc::default(),
                statements: std::sync::Arc::default(),
            });
        }
        Err(DbError::Url {
            url: redact(url),
            cause: None,
        })
    }

    /// The pool's connections now (for the metrics endpoint).
    pub fn pool_use(&self) -> PoolUse {
        match &self.pool {
            Pool::Sqlite(p) => PoolUse {
                size: p.size(),
                idle: p.num_idle(),
            },
            Pool::MySql(p) => PoolUse {
                size: p.size(),
                idle: p.num_idle(),
            },
        }
    }

    /// True when the backend is MariaDB/MySQL.
    pub fn is_mysql(&self) -> bool {
        matches!(self.pool, Pool::MySql(_))
    }

    /// How many statements the [`Tx`]s of this database (and its clones) have sent so far
    /// (each query or execute counts once; the held writes of the status path and
    /// `BEGIN`/`COMMIT` do not). Lets
    /// tests prove that a request costs a bounded number of round trips.
    pub fn statements(&self) -> u64 {
        self.statements.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// How long [`Tx::commit`] of a transaction that put a load balancer into PENDING_* waits
    /// for the provider's report on it ([`crate::settle`]); zero (the default) = no wait, as
    /// Octavia. Applies to every clone of this `Database`.
    pub fn set_settle_wait(&self, bound: Duration) {
        self.settle.set_wait(bound);
    }

    /// Tells transactions waiting in [`Tx::commit`] that the provider's outcome for load
    /// balancer `id` is committed (called by [`crate::StatusUpdater`]).
    pub(crate) fn announce_settled(&self, id: &str) {
        self.settle.announce(id);
    }

    /// Starts a write transaction.
    ///
    /// MariaDB: `BEGIN` (row locks come from [`Tx::lock_load_balancer`] etc. via `FOR UPDATE`).
    /// SQLite: `BEGIN IMMEDIATE`, i.e. the database write lock is taken up front, which gives the
    /// same serialisation as the row locks. Dropping a [`Tx`] without [`Tx::commit`] rolls back.
    /// Do not hold a `Tx` while waiting on another one of the same `Database` (an in-memory SQLite
    /// pool has one connection).
    #[tracing::instrument(target = "keel::stage", name = "db_begin", level = "trace", skip_all)]
    pub async fn begin(&self) -> Result<Tx, DbError> {
        let inner = match &self.pool {
            Pool::Sqlite(p) => TxInner::Sqlite(p.begin_with("BEGIN IMMEDIATE").await?),
            Pool::MySql(p) => {
                let mut attempt = 1;
                loop {
                    match p.begin().await.map_err(DbError::from) {
                        Ok(t) => break TxInner::MySql(t),
                        Err(DbError::ConnectionLost(e)) if attempt < CONNECTION_ATTEMPTS => {
                            tracing::debug!(error = %e, "BEGIN on a lost connection; another one");
                            attempt += 1;
                        }
                        Err(e) => return Err(e),
                    }
                }
            }
        };
        Ok(Tx {
            inner,
            pool: self.pool.clone(),
            settle: self.settle.clone(),
            quota_rows: self.quota_rows.clone(),
            statements: self.statements.clone(),
            pending_lbs: Vec::new(),
            gate: None,
            batch: Default::default(),
        })
    }

    /// Starts a read for GETs and lists: a deferred `BEGIN` on SQLite; on MariaDB a pooled
    /// connection in autocommit (each statement its own consistent read, as a GET needs no
    /// more: nothing it renders spans two statements' rows in a way a client could rely on).
    pub async fn begin_read(&self) -> Result<Tx, DbError> {
        let inner = match &self.pool {
            Pool::Sqlite(p) => TxInner::Sqlite(p.begin().await?),
            Pool::MySql(p) => TxInner::MySqlRead(p.acquire().await?),
        };
        Ok(Tx {
            inner,
            pool: self.pool.clone(),
            settle: self.settle.clone(),
            quota_rows: self.quota_rows.clone(),
            statements: self.statements.clone(),
            pending_lbs: Vec::new(),
            gate: None,
            batch: Default::default(),
        })
    }

    /// Closes the pool (waits for connections to be returned).
    pub async fn close(&self) {
        match &self.pool {
            Pool::Sqlite(p) => p.close().await,
            Pool::MySql(p) => p.close().await,
        }
    }

    /// Runs one statement outside any transaction (autocommit); returns rows affected.
    pub(crate) async fn execute_autocommit(
        &self,
        sql: &str,
        args: Vec<SqlValue>,
    ) -> Result<u64, DbError> {
        Ok(match &self.pool {
            Pool::Sqlite(p) => bind_all!(sqlx::query(sql), args)
                .execute(p)
                .await?
                .rows_affected(),
            Pool::MySql(p) => bind_all!(sqlx::query(sql), args)
                .execute(p)
                .await?
                .rows_affected(),
        })
    }

    /// The alembic revision stored in `alembic_version`, or `None` when the table is absent/empty.
    pub async fn current_revision(&self) -> Result<Option<String>, DbError> {
        let mut tx = self.begin_read().await?;
        let exists = tx.table_exists("alembic_version").await?;
        if !exists {
            return Ok(None);
        }
        let rev: Option<String> = tx
            .fetch_optional_scalar("SELECT version_num FROM alembic_version LIMIT 1", vec![])
            .await?;
        Ok(rev)
    }

    /// What `keel db upgrade` runs: brings an empty database to alembic head
    /// [`ALEMBIC_HEAD`](crate::ALEMBIC_HEAD).
    ///
    /// Creates every table of the schema at head (MariaDB types as the migrations produce them,
    /// SQLite equivalents), inserts the lookup rows, the DELETED-PLACEHOLDER flavor/AZ rows, the
    /// `amphora_build_slots` and `spares_pool` rows, and finally `alembic_version = fabf4983846b`.
    /// Idempotent: a database already at head (ours or one made by `octavia-db-manage upgrade
    /// head`) only gets the list indexes it lacks (`schema::LIST_INDEXES`); a run interrupted
    /// half-way is completed by the next one.
    /// Also makes Keel's `keel_deployment` row (the deployment identity, see `keel_objects`).
    /// Errors: [`DbError::Schema`] when the database is at another alembic revision (run
    /// `octavia-db-manage upgrade head` first).
    pub async fn upgrade(&self) -> Result<(), DbError> {
        self.upgrade_tables().await?;
        // Keel's list indexes, also on a database octavia-db-manage made (`schema::LIST_INDEXES`)
        for stmt in crate::schema::list_index_statements() {
            again_on_deadlock(|| async {
                match &self.pool {
                    Pool::MySql(p) => sqlx::query(&stmt).execute(p).await.map(|_| ()),
                    Pool::Sqlite(p) => sqlx::query(&stmt).execute(p).await.map(|_| ()),
                }
                .map_err(DbError::from)
            })
            .await?;
        }
        again_on_deadlock(|| self.ensure_deployment()).await?;
        Ok(())
    }

    async fn upgrade_tables(&self) -> Result<(), DbError> {
        match self.current_revision().await? {
            Some(r) if r == ALEMBIC_HEAD => return Ok(()),
            Some(r) => {
                return Err(DbError::Schema(format!(
                    "database is at alembic revision {r}; keel creates only revision {ALEMBIC_HEAD} \
                     (run `octavia-db-manage upgrade head` on it first)"
                )));
            }
            None => {}
        }
        match &self.pool {
            Pool::MySql(p) => {
                // DDL auto-commits on MariaDB: serialise concurrent upgrades with a named lock on
                // one connection, and write alembic_version last. On Galera the lock is only
                // the node's own: upgrades on other nodes run at the same time, and their
                // identical seed rows conflict at certification (1213). Every statement is
                // idempotent (IF NOT EXISTS, INSERT IGNORE), so it is simply run again.
                let mut conn = p.acquire().await?;
                let got: Option<i64> =
                    sqlx::query_scalar("SELECT GET_LOCK('keel_db_upgrade', 120)")
                        .fetch_one(&mut *conn)
                        .await?;
                if got != Some(1) {
                    return Err(DbError::Schema("could not take the upgrade lock".into()));
                }
                let res = async {
                    for stmt in upgrade_statements(Dialect::MySql) {
                        let mut attempt = 1u64;
                        loop {
                            match sqlx::query(&stmt.0).execute(&mut *conn).await {
                                Ok(_) => break,
                                Err(e) => {
                                    let e = DbError::from(e);
                                    if !e.is_deadlock() || attempt >= UPGRADE_ATTEMPTS {
                                        return Err(e);
                                    }
                                    tracing::info!(attempt, error = %e, "schema upgrade statement conflicted; running it again");
                                    tokio::time::sleep(Duration::from_millis(20 * attempt)).await;
                                    attempt += 1;
                                }
                            }
                        }
                    }
                    Ok::<(), DbError>(())
                }
                .await;
                sqlx::query("SELECT RELEASE_LOCK('keel_db_upgrade')")
                    .execute(&mut *conn)
                    .await?;
                res
            }
            Pool::Sqlite(p) => {
                let mut tx = p.begin_with("BEGIN IMMEDIATE").await?;
                for stmt in upgrade_statements(Dialect::Sqlite) {
                    sqlx::query(&stmt.0).execute(&mut *tx).await?;
                }
                tx.commit().await?;
                Ok(())
            }
        }
    }
}

/// Runs of one upgrade statement that a concurrent upgrade on another Galera node made a
/// certification victim.
const UPGRADE_ATTEMPTS: u64 = 10;

/// Runs `step` again (up to [`UPGRADE_ATTEMPTS`] times, short growing pauses) while it fails
/// as a deadlock victim (1213): upgrades running at once on several Galera nodes conflict at
/// certification on their identical, idempotent statements (IF NOT EXISTS, INSERT IGNORE).
async fn again_on_deadlock<T, F, Fut>(mut step: F) -> Result<T, DbError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, DbError>>,
{
    let mut attempt = 1u64;
    loop {
        match step().await {
            Err(e) if e.is_deadlock() && attempt < UPGRADE_ATTEMPTS => {
                tracing::info!(attempt, error = %e, "schema upgrade step conflicted; running it again");
                tokio::time::sleep(Duration::from_millis(20 * attempt)).await;
                attempt += 1;
            }
            other => return other,
        }
    }
}

/// Hides the password of a URL for error messages.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let creds = &url[s + 3..at];
            match creds.find(':') {
                Some(c) => format!("{}{}:***{}", &url[..s + 3], &creds[..c], &url[at..]),
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
}

struct Stmt(String);

fn sql_str(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// The statements of [`Database::upgrade`], in order (DDL, seeds, alembic_version last).
fn upgrade_statements(d: Dialect) -> Vec<Stmt> {
    let ignore = match d {
        Dialect::MySql => "INSERT IGNORE",
        Dialect::Sqlite => "INSERT OR IGNORE",
    };
    let mut out = Vec::new();
    for t in tables() {
        for s in t.ddl(d) {
            out.push(Stmt(s));
        }
    }
    for (table, names) in LOOKUP_ROWS {
        for n in *names {
            out.push(Stmt(format!(
                "{ignore} INTO `{table}` (`name`) VALUES ({})",
                sql_str(n)
            )));
        }
    }
    for (table, cols, vals) in crate::schema::seed_rows() {
        let cols = cols
            .iter()
            .map(|c| format!("`{c}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let vals = vals
            .iter()
            .map(|v| sql_str(v))
            .collect::<Vec<_>>()
            .join(", ");
        out.push(Stmt(format!(
            "{ignore} INTO `{table}` ({cols}) VALUES ({vals})"
        )));
    }
    // spares_pool: one row stamped at upgrade time (46d914b2a5e5), only when empty.
    let now = match d {
        Dialect::MySql => "current_timestamp()",
        Dialect::Sqlite => "CURRENT_TIMESTAMP",
    };
    out.push(Stmt(format!(
        "INSERT INTO `spares_pool` (`updated_at`) SELECT {now} FROM (SELECT 1 AS x) AS one \
         WHERE NOT EXISTS (SELECT 1 FROM `spares_pool`)"
    )));
    out.push(Stmt(format!(
        "{ignore} INTO `alembic_version` (`version_num`) VALUES ({})",
        sql_str(ALEMBIC_HEAD)
    )));
    out
}

/// Projects whose `quotas` row this process has seen exist. Octavia never deletes a `quotas`
/// row (a quota DELETE resets the limits), so a quota check of a known project skips the
/// existence read that must precede its `FOR UPDATE`. Bounded: cleared when full.
#[derive(Debug, Default)]
pub(crate) struct QuotaRowsSeen(std::sync::Mutex<std::collections::HashSet<String>>);

impl QuotaRowsSeen {
    const MAX: usize = 100_000;

    pub(crate) fn contains(&self, project_id: &str) -> bool {
        self.0.lock().is_ok_and(|s| s.contains(project_id))
    }

    pub(crate) fn insert(&self, project_id: &str) {
        if let Ok(mut s) = self.0.lock() {
            if s.len() >= Self::MAX {
                s.clear();
            }
            s.insert(project_id.to_owned());
        }
    }

    pub(crate) fn forget(&self, project_id: &str) {
        if let Ok(mut s) = self.0.lock() {
            s.remove(project_id);
        }
    }
}

enum TxInner {
    Sqlite(sqlx::Transaction<'static, Sqlite>),
    MySql(sqlx::Transaction<'static, MySql>),
    /// [`Database::begin_read`] on MariaDB: a pooled connection in autocommit. A GET's two or
    /// three statements then cost no `BEGIN`/`ROLLBACK` round trips.
    MySqlRead(sqlx::pool::PoolConnection<MySql>),
}

impl TxInner {
    fn conn(&mut self) -> Conn<'_> {
        match self {
            TxInner::Sqlite(t) => Conn::Sqlite(t),
            TxInner::MySql(t) => Conn::MySql(t),
            TxInner::MySqlRead(c) => Conn::MySql(c),
        }
    }
}

/// An open SQL transaction on the Octavia DB; the repository functions are its methods.
///
/// Commit with [`Tx::commit`]; dropping it (or [`Tx::rollback`]) rolls back. The API holds one
/// `Tx` across the provider call and rolls back if the driver raises, as Octavia's controllers
/// do around `driver_utils.call_provider`; the work the provider queues during that
/// call waits for this transaction's [`Tx::commit_gate`] and never runs if it rolls back.
pub struct Tx {
    inner: TxInner,
    pool: Pool,
    settle: std::sync::Arc<SettleHub>,
    pub(crate) quota_rows: std::sync::Arc<QuotaRowsSeen>,
    /// Load balancers this transaction wrote a PENDING_* `provisioning_status` to.
    pending_lbs: Vec<String>,
    statements: std::sync::Arc<std::sync::atomic::AtomicU64>,
    /// Opened once the commit succeeded ([`provider::gate`]); dropped unopened on rollback.
    gate: Option<provider::gate::CommitGate>,
    /// Writes of the status path held back for one round trip ([`batch`]).
    pub(crate) batch: batch::Batch,
}

/// The body of every `Tx::fetch_*`: held writes are sent first ([`batch`]); a read in
/// autocommit whose connection the server had ended runs once more on another
/// (`Tx::replace_lost`); inside a transaction a lost connection is the caller's error.
macro_rules! read_once_more {
    ($tx:ident . $method:ident($sql:ident, $args:ident)) => {{
        $tx.flush().await?;
        if !$tx.is_read() {
            return $tx.conn().$method($sql, $args).await;
        }
        let first = $tx.conn().$method($sql, $args.clone()).await;
        if !$tx.replace_lost(&first).await? {
            return first;
        }
        $tx.conn().$method($sql, $args).await
    }};
}

impl Tx {
    /// Commits the transaction, then lets the provider work queued under it start
    /// ([`Tx::commit_gate`]): the database holds the accepted change (PENDING_*) before the
    /// provider touches the OVN NB, so after a crash at any instant the database is the
    /// record of what the NB must become.
    ///
    /// If it put load balancers into PENDING_* and the database has a settle bound
    /// ([`Database::set_settle_wait`]), it then waits, at most that bound and holding no
    /// connection, until the provider's outcome for each of them is committed by the status
    /// updater ([`crate::settle`]). The outcome of the wait changes nothing else.
    pub async fn commit(mut self) -> Result<(), DbError> {
        let bound = self.settle.wait();
        let gate = self.gate.take();
        let pending = std::mem::take(&mut self.pending_lbs);
        let waiting = (!bound.is_zero() && !pending.is_empty()).then(|| self.settle.subscribe());
        self.commit_plain().await?;
        if let Some(g) = gate {
            g.open();
        }
        if let Some(rx) = waiting
            && !crate::settle::wait_for(rx, pending, bound)
                .instrument(tracing::trace_span!(target: "keel::stage", "settle_wait"))
                .await
        {
            tracing::debug!(
                ?bound,
                "provider had not reported when the settle wait ended"
            );
        }
        Ok(())
    }

    /// The commit alone, without the settle wait: the status updater's own transactions
    /// (which never write PENDING_*), and the end of [`Tx::commit`].
    #[tracing::instrument(target = "keel::stage", name = "db_commit", level = "trace", skip_all)]
    pub(crate) async fn commit_plain(mut self) -> Result<(), DbError> {
        self.flush().await?;
        match self.inner {
            TxInner::Sqlite(t) => t.commit().await?,
            TxInner::MySql(t) => t.commit().await?,
            TxInner::MySqlRead(_) => {}
        }
        Ok(())
    }

    /// The gate for provider work queued under this transaction: run the provider call inside
    /// [`provider::gate::scope`] with it. It opens when [`Tx::commit`] succeeded; a rollback,
    /// a failed commit or a dropped transaction cancels the work.
    pub fn commit_gate(&mut self) -> provider::gate::GateWaiter {
        self.gate
            .get_or_insert_with(provider::gate::CommitGate::new)
            .waiter()
    }

    pub(crate) fn conn(&mut self) -> Conn<'_> {
        // every statement takes the connection once
        self.statements
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.inner.conn()
    }

    /// No settle wait at [`Tx::commit`] for the load balancers written so far: their provider
    /// reports no status (`provider::gate::no_status_report`; the amphora worker writes its
    /// outcome straight to the database), so the answer goes out at commit, as Octavia's.
    pub fn skip_settle_wait(&mut self) {
        self.pending_lbs.clear();
    }

    /// Records that this transaction writes `status` to load balancer `id`: a PENDING_* one
    /// is waited for in [`Tx::commit`] when settling is on.
    pub(crate) fn note_lb_status(&mut self, id: &str, status: &SqlValue) {
        if matches!(status, SqlValue::Text(s) if s.starts_with("PENDING_"))
            && !self.pending_lbs.iter().any(|p| p == id)
        {
            self.pending_lbs.push(id.to_owned());
        }
    }

    /// From now on, [`Tx::write`] holds writes back (MariaDB only; [`batch`]).
    pub(crate) fn start_batching(&mut self) {
        let mysql = self.is_mysql();
        self.batch.start(mysql);
    }

    /// Stops batching; with `keep`, sends what is held (one round trip), else drops what
    /// was held since [`Tx::start_batching`] (the caller rolls back past those writes).
    pub(crate) async fn stop_batching(&mut self, keep: bool) -> Result<(), DbError> {
        self.batch.stop(keep);
        if keep { self.flush().await } else { Ok(()) }
    }

    /// A write whose row count only matters as `on_zero`: held back while batching, else run
    /// at once. Errors: as [`Tx::execute`], and [`DbError::NotFound`] per `on_zero` — at
    /// once, or from the flush that sends it.
    pub(crate) async fn write(
        &mut self,
        sql: impl Into<String>,
        args: Vec<SqlValue>,
        on_zero: OnZero,
    ) -> Result<(), DbError> {
        if self.batch.is_on() {
            self.batch.hold(sql, args, on_zero);
            return Ok(());
        }
        self.flush().await?;
        let n = self.execute_now(&sql.into(), args).await?;
        batch::check(n, on_zero)
    }

    /// A write to a row this transaction already holds, whose row count does not matter
    /// beyond `on_zero`: on MariaDB held back until the transaction's next statement, which
    /// sends it (in one round trip when that statement is a batch); on SQLite run at once.
    /// Errors: as [`Tx::write`].
    pub(crate) async fn write_soon(
        &mut self,
        sql: impl Into<String>,
        args: Vec<SqlValue>,
        on_zero: OnZero,
    ) -> Result<(), DbError> {
        if !self.is_mysql() {
            return self.write(sql, args, on_zero).await;
        }
        self.batch.hold(sql, args, on_zero);
        Ok(())
    }

    /// Sends the held writes ([`batch::Batch::flush`]); before every statement.
    pub(crate) async fn flush(&mut self) -> Result<(), DbError> {
        self.batch.flush(self.inner.conn()).await
    }

    /// `stmts` as one multi-statement query (MariaDB, every value inlinable; held writes are
    /// sent first): each statement's row count and rows, in order. `None` when that is not
    /// possible (SQLite, a value without an escape-free literal): the caller runs them its
    /// usual way. Errors: the first failing statement's (those after it did not run).
    pub(crate) async fn query_batch(
        &mut self,
        stmts: &[(String, Vec<SqlValue>)],
    ) -> Result<Option<Vec<(u64, Vec<MySqlRow>)>>, DbError> {
        if !self.is_mysql() {
            return Ok(None);
        }
        let Some(text) = batch::inline_all(stmts) else {
            return Ok(None);
        };
        self.flush().await?;
        let Conn::MySql(c) = self.conn() else {
            return Ok(None);
        };
        let first = batch::run_text(c, &text, stmts.len()).await;
        // a read's statements changed nothing: once more on another connection
        if !self.replace_lost(&first).await? {
            return Ok(Some(first?));
        }
        let Conn::MySql(c) = self.conn() else {
            return Ok(None);
        };
        Ok(Some(batch::run_text(c, &text, stmts.len()).await?))
    }

    /// True for a [`Database::begin_read`] on MariaDB (autocommit, nothing written).
    fn is_read(&self) -> bool {
        matches!(self.inner, TxInner::MySqlRead(_))
    }

    /// When `r` failed because a read's connection was lost (the server ended it after the
    /// pool's ping), takes another connection from the pool and answers true: the caller
    /// runs its statement once more.
    async fn replace_lost<T>(&mut self, r: &Result<T, DbError>) -> Result<bool, DbError> {
        if !matches!(r, Err(DbError::ConnectionLost(_))) || !self.is_read() {
            return Ok(false);
        }
        let Pool::MySql(p) = &self.pool else {
            return Ok(false);
        };
        // The lost connection still counts in the pool until it is dropped: with no room for
        // another and none idle, waiting for one could wait on ourselves.
        let full = p.size() >= p.options().get_max_connections() && p.num_idle() == 0;
        if full {
            return Ok(false);
        }
        tracing::debug!("read on a lost connection; once more on another");
        self.inner = TxInner::MySqlRead(p.acquire().await?);
        Ok(true)
    }

    /// Rolls the transaction back.
    pub async fn rollback(self) -> Result<(), DbError> {
        match self.inner {
            TxInner::Sqlite(t) => t.rollback().await?,
            TxInner::MySql(t) => t.rollback().await?,
            TxInner::MySqlRead(_) => {}
        }
        Ok(())
    }

    /// True when the backend is MariaDB/MySQL.
    pub fn is_mysql(&self) -> bool {
        !matches!(self.inner, TxInner::Sqlite(_))
    }

    pub(crate) fn dialect(&self) -> Dialect {
        match self.inner {
            TxInner::Sqlite(_) => Dialect::Sqlite,
            TxInner::MySql(_) | TxInner::MySqlRead(_) => Dialect::MySql,
        }
    }

    /// `" FOR UPDATE"` on MariaDB, `""` on SQLite (whose `BEGIN IMMEDIATE` already holds the lock).
    pub(crate) fn for_update(&self) -> &'static str {
        match self.inner {
            TxInner::Sqlite(_) => "",
            TxInner::MySql(_) | TxInner::MySqlRead(_) => " FOR UPDATE",
        }
    }

    /// `INSERT IGNORE` / `INSERT OR IGNORE`.
    pub(crate) fn insert_ignore(&self) -> &'static str {
        match self.inner {
            TxInner::Sqlite(_) => "INSERT OR IGNORE",
            TxInner::MySql(_) | TxInner::MySqlRead(_) => "INSERT IGNORE",
        }
    }

    /// The database behind this transaction (for statements that must run outside it).
    pub(crate) fn database(&self) -> Database {
        Database {
            pool: self.pool.clone(),
            settle: self.settle.clone(),
            quota_rows: self.quota_rows.clone(),
            statements: self.statements.clone(),
        }
    }

    /// Runs a statement with `?` placeholders; returns rows affected.
    pub async fn execute(&mut self, sql: &str, args: Vec<SqlValue>) -> Result<u64, DbError> {
        self.flush().await?;
        self.execute_now(sql, args).await
    }

    /// [`Tx::execute`] without sending held writes first ([`batch`]).
    pub(crate) async fn execute_now(
        &mut self,
        sql: &str,
        args: Vec<SqlValue>,
    ) -> Result<u64, DbError> {
        self.conn().execute(sql, args).await
    }

    /// Runs a query and decodes every row as `T`.
    pub async fn fetch_all<T: AnyRow>(
        &mut self,
        sql: &str,
        args: Vec<SqlValue>,
    ) -> Result<Vec<T>, DbError> {
        read_once_more!(self.fetch_all(sql, args))
    }

    /// Runs a query and decodes the first row as `T`, if any.
    pub async fn fetch_optional<T: AnyRow>(
        &mut self,
        sql: &str,
        args: Vec<SqlValue>,
    ) -> Result<Option<T>, DbError> {
        read_once_more!(self.fetch_optional(sql, args))
    }

    /// Runs a query and decodes the first column of every row.
    pub async fn fetch_scalars<T: AnyScalar>(
        &mut self,
        sql: &str,
        args: Vec<SqlValue>,
    ) -> Result<Vec<T>, DbError> {
        read_once_more!(self.fetch_scalars(sql, args))
    }

    /// Runs a query and decodes the first column of the first row, if any.
    pub async fn fetch_optional_scalar<T: AnyScalar>(
        &mut self,
        sql: &str,
        args: Vec<SqlValue>,
    ) -> Result<Option<T>, DbError> {
        read_once_more!(self.fetch_optional_scalar(sql, args))
    }

    /// True when `table` exists in the current database.
    pub(crate) async fn table_exists(&mut self, table: &str) -> Result<bool, DbError> {
        let sql = match self.inner {
            TxInner::Sqlite(_) => {
                "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?"
            }
            TxInner::MySql(_) | TxInner::MySqlRead(_) => {
                "SELECT COUNT(*) FROM information_schema.TABLES \
                 WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?"
            }
        };
        let n: Option<i64> = self.fetch_optional_scalar(sql, vec![table.into()]).await?;
        Ok(n.unwrap_or(0) > 0)
    }
}

/// Current UTC time truncated to whole seconds (MariaDB `DATETIME` has no fraction), as the
/// ORM's `created_at`/`updated_at` defaults.
pub fn now() -> NaiveDateTime {
    let n = chrono::Utc::now().naive_utc();
    n.with_nanosecond_zero()
}

trait NanoZero {
    fn with_nanosecond_zero(self) -> Self;
}

impl NanoZero for NaiveDateTime {
    fn with_nanosecond_zero(self) -> Self {
        use chrono::Timelike;
        self.with_nanosecond(0).unwrap_or(self)
    }
}

/// Compile-time guard: a handler awaits [`Tx::commit`] inside axum's `Send` futures, and
/// sqlx's higher-ranked executor lifetimes can silently make it `!Send`.
#[allow(dead_code)]
fn _commit_is_send(tx: Tx) {
    fn is_send<T: Send>(_: T) {}
    is_send(tx.commit());
}

/// SQLite options of a URL, and whether it is an in-memory database. SQLAlchemy's forms (what
/// an octavia.conf `[database] connection` carries) are understood: `sqlite://` and
/// `sqlite:///:memory:` (memory), `sqlite:///<relative path>`, `sqlite:////<absolute path>`;
/// other URLs are sqlx's (`sqlite://path?mode=rwc`, `sqlite::memory:`). A database file is
/// created when missing, as SQLAlchemy does, unless the URL names its own `mode`.
fn sqlite_options(url: &str) -> Result<(SqliteConnectOptions, bool), DbError> {
    let bad = |e: sqlx::Error| DbError::Url {
        url: url.to_owned(),
        cause: Some(e),
    };
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let memory_url = base == "sqlite://" || base == "sqlite:///:memory:";
    if memory_url {
        return Ok((
            SqliteConnectOptions::from_str("sqlite::memory:").map_err(bad)?,
            true,
        ));
    }
    let mut opts = match base.strip_prefix("sqlite:///") {
        // SQLAlchemy: what follows the third slash is the path (a fourth makes it absolute)
        Some(path) if query.is_empty() => SqliteConnectOptions::new().filename(path),
        _ => SqliteConnectOptions::from_str(url).map_err(bad)?,
    };
    let memory = url.contains(":memory:") || url.contains("mode=memory");
    if !memory && !query.contains("mode=") {
        opts = opts.create_if_missing(true);
    }
    Ok((opts, memory))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_password() {
        assert_eq!(
            redact("mysql://keel:secret@127.0.0.1:3306/keel"),
            "mysql://keel:***@127.0.0.1:3306/keel"
        );
        assert_eq!(redact("sqlite::memory:"), "sqlite::memory:");
    }

    #[test]
    fn upgrade_writes_alembic_version_last() {
        for d in [Dialect::MySql, Dialect::Sqlite] {
            let stmts = upgrade_statements(d);
            let last = stmts.last().map(|s| s.0.clone()).unwrap_or_default();
            assert!(
                last.contains("alembic_version") && last.contains(ALEMBIC_HEAD),
                "{last}"
            );
        }
    }
}
