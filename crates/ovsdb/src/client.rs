//! The long-lived client: one background task owns the socket, keeps the replica current, and
//! serves requests from cheaply cloned [`Client`] handles.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use serde_json::{json, Value as Json};
use tokio::io::{AsyncReadExt, AsyncWriteExt, ReadHalf, WriteHalf};
use tokio::sync::{broadcast, mpsc, oneshot, watch};

use crate::error::{Error, Result};
use crate::framing::JsonSplitter;
use crate::remote::{parse_remotes, Io, Remote};
use crate::replica::{parse_updates, Change, MonitorVersion, ReplicaData, RowOp, Snapshot};
use crate::rpc::{self, Message};
use crate::schema::DatabaseSchema;
use crate::tls::SslFiles;
use crate::txn::{parse_transact_result, OpResult, Transaction};
use uuid::Uuid;

/// Which tables (and columns) the replica follows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MonitorSpec {
    all: bool,
    tables: BTreeMap<String, Option<Vec<String>>>,
    /// `where` of the `monitor_cond` request per table (JSON conditions).
    conditions: BTreeMap<String, Vec<Json>>,
}

impl MonitorSpec {
    /// Nothing yet; add tables with [`MonitorSpec::table`] / [`MonitorSpec::columns`].
    pub fn new() -> Self {
        Self::default()
    }

    /// Every table of the server's schema, all columns.
    pub fn all() -> Self {
        MonitorSpec {
            all: true,
            ..Self::default()
        }
    }

    /// Follow `table` with all its columns.
    pub fn table(mut self, table: &str) -> Self {
        self.tables.insert(table.to_string(), None);
        self
    }

    /// Follow only `columns` of `table` (smaller replica, fewer updates).
    pub fn columns(mut self, table: &str, columns: &[&str]) -> Self {
        self.tables.insert(
            table.to_string(),
            Some(columns.iter().map(|c| c.to_string()).collect()),
        );
        self
    }

    /// Follow only the rows of `table` matching all of `conditions` (`monitor_cond` `where`,
    /// ovsdb-server(7)): rows entering the condition arrive as inserts, rows leaving it as
    /// deletes. Adds the table (all columns) if not yet followed. Against a server without
    /// `monitor_cond` (plain `monitor`) the condition cannot be sent and every row is followed.
    pub fn condition(mut self, table: &str, conditions: &[crate::txn::Condition]) -> Self {
        self.tables.entry(table.to_string()).or_insert(None);
        self.conditions.insert(
            table.to_string(),
            conditions
                .iter()
                .map(crate::txn::Condition::to_json)
                .collect(),
        );
        self
    }

    /// Resolves against the server schema: table → explicit column list.
    /// Errors: [`Error::Schema`] for a table/column the server does not have.
    fn resolve(&self, schema: &DatabaseSchema) -> Result<BTreeMap<String, Vec<String>>> {
        let mut out = BTreeMap::new();
        if self.all {
            for (t, ts) in &schema.tables {
                out.insert(t.clone(), ts.columns.keys().cloned().collect());
            }
        }
        for (t, cols) in &self.tables {
            let ts = schema.table(t).ok_or_else(|| {
                Error::Schema(format!("database {} has no table {t}", schema.name))
            })?;
            let cols = match cols {
                None => ts.columns.keys().cloned().collect(),
                Some(cols) => {
                    for c in cols {
                        if !ts.columns.contains_key(c) {
                            return Err(Error::Schema(format!("table {t} has no column {c}")));
                        }
                    }
                    cols.clone()
                }
            };
            out.insert(t.clone(), cols);
        }
        Ok(out)
    }
}

/// Tunables; `Default` gives the values documented per field.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// Largest single JSON message accepted, bytes (default 256 MiB: an initial dump of a big
    /// NB database arrives as one message).
    pub max_message_bytes: usize,
    /// First reconnect delay (default 250 ms); doubles per failed attempt.
    pub backoff_initial: Duration,
    /// Reconnect delay cap (default 8 s, as OVS's reconnect max backoff).
    pub backoff_max: Duration,
    /// Limit for TCP/unix connect (default 10 s).
    pub connect_timeout: Duration,
    /// Limit for get_schema + monitor on (re)connect (default 120 s).
    pub handshake_timeout: Duration,
    /// Limit per request such as `transact` (default 60 s); `None` waits forever.
    pub request_timeout: Option<Duration>,
    /// Capacity of the change-event channel; slower subscribers see `Lagged` (default 4096).
    pub event_capacity: usize,
    /// After this long without receiving anything, send an `echo`; if nothing arrives for
    /// another interval, drop the connection and reconnect (default 5 s, as OVS's
    /// `inactivity_probe`; `None` disables).
    pub inactivity_probe: Option<Duration>,
    /// For clustered databases, use only the raft leader (default true, as the OVS Python
    /// IDL's `leader_only`): a follower is skipped at connect and the connection is moved when
    /// `_Server.Database.leader` turns false. Standalone servers are always usable.
    pub leader_only: bool,
    /// Resume the monitor after a reconnect with `monitor_cond_since` from the replica's last
    /// transaction id, so only the changes since then are downloaded (default true; clustered
    /// servers only — standalone ones answer with a full dump).
    pub resume: bool,
    /// Key, certificate and CA certificate for `ssl:` remotes (the `[ovn] ovn_nb_private_key`,
    /// `ovn_nb_certificate`, `ovn_nb_ca_cert` options); `None` makes `ssl:` remotes fail with
    /// [`Error::Tls`].
    pub ssl: Option<SslFiles>,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            max_message_bytes: 256 << 20,
            backoff_initial: Duration::from_millis(250),
            backoff_max: Duration::from_secs(8),
            connect_timeout: Duration::from_secs(10),
            handshake_timeout: Duration::from_secs(120),
            request_timeout: Some(Duration::from_secs(60)),
            event_capacity: 4096,
            inactivity_probe: Some(Duration::from_secs(5)),
            leader_only: true,
            resume: true,
            ssl: None,
        }
    }
}

/// Connection status as seen by the background task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ConnectionState {
    /// True between a completed (re)sync and the next disconnect.
    pub connected: bool,
    /// Number of completed syncs (1 after `connect`, +1 per reconnect).
    pub syncs: u64,
    /// Whether the last sync resumed from the replica's last transaction id
    /// (`monitor_cond_since` answered `found`) instead of downloading everything.
    pub resumed: bool,
    /// Row updates carried by the last sync's monitor reply: the whole monitored contents for
    /// a full sync, only the rows changed since the last transaction for a resume.
    pub sync_rows: u64,
    /// Index (in the comma-separated remote list) of the server of the current or last
    /// connection.
    pub remote: usize,
}

struct Command {
    method: String,
    params: Json,
    reply: oneshot::Sender<Result<Json>>,
}

struct Shared {
    database: String,
    replica: RwLock<Snapshot>,
    events: broadcast::Sender<Change>,
    state: watch::Sender<ConnectionState>,
    options: ClientOptions,
    /// Locks this client wants, re-requested on every reconnect; the watch says "owned".
    locks: Mutex<BTreeMap<String, LockEntry>>,
    /// Highest raft index seen in `_Server.Database`: a server behind it is stale.
    min_index: AtomicI64,
    /// Set when an update could not be applied: the next sync must be a full one.
    force_full: AtomicBool,
}

struct LockEntry {
    steal: bool,
    owned: watch::Sender<bool>,
}

impl Shared {
    fn locks(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, LockEntry>> {
        match self.locks.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    fn set_lock(&self, name: &str, owned: bool) {
        if let Some(e) = self.locks().get(name) {
            e.owned.send_replace(owned);
        }
    }

    /// The server releases a session's locks when it closes.
    fn drop_locks(&self) {
        for e in self.locks().values() {
            e.owned.send_replace(false);
        }
    }

    /// `locked` / `stolen` notifications (RFC 7047 §4.1.9-4.1.10).
    fn lock_notification(&self, method: &str, params: &Json) -> bool {
        let owned = match method {
            "locked" => true,
            "stolen" => false,
            _ => return false,
        };
        if let Some(name) = params.get(0).and_then(Json::as_str) {
            self.set_lock(name, owned);
        }
        true
    }

    fn snapshot(&self) -> Snapshot {
        match self.replica.read() {
            Ok(g) => g.clone(),
            Err(p) => p.into_inner().clone(),
        }
    }
}

/// A handle on one long-lived OVSDB connection and its replica. Clone freely: all clones share
/// the connection; the background task ends when the last clone is dropped.
#[derive(Clone)]
pub struct Client {
    shared: Arc<Shared>,
    cmd: mpsc::UnboundedSender<Command>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("database", &self.shared.database)
            .field("state", &*self.shared.state.borrow())
            .finish()
    }
}

const MONITOR_ID: &str = "keel-replica";
/// Monitor id of the `_Server.Database` monitor.
const SERVER_MONITOR_ID: &str = "keel-server";

impl Client {
    /// Connects to `remote` (`tcp:IP:PORT` or `unix:PATH`, or a comma-separated list of them
    /// tried in turn), reads the schema of `database` from
    /// the server, monitors the tables of `monitor`, and returns once the replica holds the
    /// initial contents. Later disconnects are retried in the background (capped exponential
    /// backoff) with a full resync. Errors: the first attempt's failure ([`Error::Connect`],
    /// [`Error::Rpc`] for an unknown database, [`Error::Schema`] for unknown tables/columns).
    pub async fn connect(remote: &str, database: &str, monitor: MonitorSpec) -> Result<Client> {
        Self::connect_with(remote, database, monitor, ClientOptions::default()).await
    }

    /// [`Client::connect`] with explicit [`ClientOptions`].
    pub async fn connect_with(
        remote: &str,
        database: &str,
        monitor: MonitorSpec,
        options: ClientOptions,
    ) -> Result<Client> {
        let remotes = parse_remotes(remote)?;
        let (events, _) = broadcast::channel(options.event_capacity.max(1));
        let (state, _) = watch::channel(ConnectionState::default());
        let shared = Arc::new(Shared {
            database: database.to_string(),
            replica: RwLock::new(Snapshot::empty()),
            events,
            state,
            options,
            locks: Mutex::new(BTreeMap::new()),
            min_index: AtomicI64::new(0),
            force_full: AtomicBool::new(false),
        });
        let (cmd_tx, cmd_rx) = mpsc::unbounded_channel();
        let (first_tx, first_rx) = oneshot::channel();
        tokio::spawn(run(remotes, monitor, shared.clone(), cmd_rx, first_tx));
        match first_rx.await {
            Ok(Ok(())) => Ok(Client {
                shared,
                cmd: cmd_tx,
            }),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(Error::Closed),
        }
    }

    /// The database name given to `connect`.
    pub fn database(&self) -> &str {
        &self.shared.database
    }

    /// The current replica. While disconnected this is the last known state (check
    /// [`Client::state`]).
    pub fn replica(&self) -> Snapshot {
        self.shared.snapshot()
    }

    /// Change events, sent after the snapshot containing them is published. Subscribe before
    /// reading the snapshot to miss nothing (events may then repeat what the snapshot shows).
    /// A receiver that falls more than `event_capacity` behind gets `Lagged` and should
    /// re-read the snapshot.
    pub fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.shared.events.subscribe()
    }

    /// The connection state now.
    pub fn state(&self) -> ConnectionState {
        *self.shared.state.borrow()
    }

    /// A watch on the connection state (e.g. `wait_for(|s| s.syncs >= 2)` after a restart).
    pub fn watch_state(&self) -> watch::Receiver<ConnectionState> {
        self.shared.state.subscribe()
    }

    /// Sends a raw JSON-RPC request and returns its `result`. Errors: [`Error::Rpc`] for an
    /// error reply, [`Error::Disconnected`] if the connection is down or drops before the reply,
    /// [`Error::Timeout`] after `request_timeout`, [`Error::Closed`].
    pub async fn request(&self, method: &str, params: Json) -> Result<Json> {
        let (tx, rx) = oneshot::channel();
        self.cmd
            .send(Command {
                method: method.to_string(),
                params,
                reply: tx,
            })
            .map_err(|_| Error::Closed)?;
        let wait = async { rx.await.unwrap_or(Err(Error::Closed)) };
        match self.shared.options.request_timeout {
            Some(t) => tokio::time::timeout(t, wait)
                .await
                .unwrap_or(Err(Error::Timeout)),
            None => wait.await,
        }
    }

    /// Runs a transaction. On success returns one [`OpResult`] per operation. Errors:
    /// [`Error::Transaction`] with the classified [`crate::TxnErrorKind`] (constraint or
    /// referential integrity violation, `wait` timed out, not leader, …), plus the
    /// [`Client::request`] errors. A failed transaction changes nothing.
    ///
    /// Read-your-writes: the reply is processed after every update notification the server
    /// sent before it, and ovsdb-server flushes pending monitor updates before sending any
    /// reply (ovsdb/jsonrpc-server.c `ovsdb_jsonrpc_session_send`), so when this returns `Ok`
    /// the replica already contains the transaction's effect (standalone server or leader).
    pub async fn transact(&self, txn: Transaction) -> Result<Vec<OpResult>> {
        let n = txn.len();
        let result = self.request("transact", txn.to_params()).await?;
        parse_transact_result(&result, n)
    }

    /// Runs `txn`, retrying until `deadline` (from now) when it is known not to have
    /// committed (connection down or lost before sending, not leader, `"cluster error"` with
    /// a bad prerequisite), waiting for the client to reconnect in between (capped backoff
    /// 50 ms → 1 s). When an attempt's outcome is unknown ([`Error::may_have_committed`]) it
    /// is re-sent only if the transaction is retry-safe ([`Transaction::guard_absent`] /
    /// [`Transaction::idempotent`]); a guard that then fails means the earlier attempt
    /// committed ([`TxnOutcome::AlreadyApplied`]) — so each transaction takes effect exactly
    /// once or is reported failed. Errors: the last attempt's error (for a non-retry-safe
    /// transaction, [`Error::OutcomeUnknown`] tells the caller to check); permanent errors
    /// (constraint violation, …) are returned at once.
    pub async fn transact_retrying(
        &self,
        txn: Transaction,
        deadline: Duration,
    ) -> Result<crate::TxnOutcome> {
        let end = tokio::time::Instant::now() + deadline;
        let mut uncertain = false;
        let mut pause = Duration::from_millis(50);
        loop {
            let err = match self.transact(txn.clone()).await {
                Ok(r) => return Ok(crate::TxnOutcome::Committed(r)),
                Err(e) => e,
            };
            let guard_failed = err.txn().is_some_and(|t| {
                t.kind == crate::TxnErrorKind::TimedOut && t.op_index == txn.guard_index()
            });
            if uncertain && guard_failed {
                return Ok(crate::TxnOutcome::AlreadyApplied);
            }
            let retry = if err.may_have_committed() {
                uncertain = true;
                txn.is_retry_safe()
            } else {
                err.is_transient()
            };
            let now = tokio::time::Instant::now();
            if !retry || now >= end {
                return Err(if uncertain && !err.may_have_committed() {
                    Error::OutcomeUnknown
                } else {
                    err
                });
            }
            // Wait for a (re)connection or the pause, whichever is later, within the deadline.
            let mut state = self.watch_state();
            let wait = async {
                tokio::time::sleep(pause).await;
                let _ = state.wait_for(|s| s.connected).await;
            };
            let _ = tokio::time::timeout_at(end, wait).await;
            pause = (pause * 2).min(Duration::from_secs(1));
        }
    }

    /// Waits until the replica reflects every transaction the server had committed when this
    /// call reached it: one `echo` round trip, whose reply the server sends only after
    /// flushing pending monitor updates (see [`Client::transact`]). Use after a transaction
    /// issued by another client or through a clustered follower.
    pub async fn await_replica_caught_up(&self) -> Result<()> {
        self.request("echo", json!(["keel-sync"])).await.map(|_| ())
    }

    /// Asks for the OVSDB lock `name` (RFC 7047 §4.1.8; an `<id>`: letters, digits and `_`,
    /// else [`Error::InvalidLockName`]) and keeps asking after every
    /// reconnect until [`Client::unlock`]. The returned watch is `true` while this session owns
    /// the lock (granted now, or later by a `locked` notification) and turns `false` when it is
    /// `stolen` or the connection drops. Used for leader election among Keel processes (the
    /// OVN agent duties run only on the holder). Calling again returns the same watch.
    pub async fn lock(&self, name: &str) -> Result<watch::Receiver<bool>> {
        self.lock_mode(name, false).await
    }

    /// Like [`Client::lock`] but takes the lock from its current owner (`steal`), which gets a
    /// `stolen` notification.
    pub async fn steal(&self, name: &str) -> Result<watch::Receiver<bool>> {
        self.lock_mode(name, true).await
    }

    async fn lock_mode(&self, name: &str, steal: bool) -> Result<watch::Receiver<bool>> {
        // RFC 7047 <id>: [A-Za-z_][A-Za-z0-9_]* (ovsdb-server rejects anything else).
        let valid = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(Error::InvalidLockName(name.to_string()));
        }
        let rx = {
            let mut locks = self.shared.locks();
            if let Some(e) = locks.get(name) {
                if !steal {
                    return Ok(e.owned.subscribe());
                }
            }
            let e = locks.entry(name.to_string()).or_insert_with(|| LockEntry {
                steal,
                owned: watch::channel(false).0,
            });
            e.steal = steal;
            e.owned.subscribe()
        };
        let method = if steal { "steal" } else { "lock" };
        match self.request(method, json!([name])).await {
            Ok(_) => Ok(rx),
            Err(e) => {
                self.shared.locks().remove(name);
                Err(e)
            }
        }
    }

    /// Releases the lock `name` and stops re-requesting it.
    pub async fn unlock(&self, name: &str) -> Result<()> {
        let removed = self.shared.locks().remove(name);
        if let Some(e) = removed {
            e.owned.send_replace(false);
            self.request("unlock", json!([name])).await?;
        }
        Ok(())
    }

    /// Whether this client currently owns the lock `name`.
    pub fn has_lock(&self, name: &str) -> bool {
        self.shared
            .locks()
            .get(name)
            .is_some_and(|e| *e.owned.borrow())
    }

    /// Reads the schema from the server now (the replica's copy is from the last connect).
    pub async fn get_schema(&self) -> Result<DatabaseSchema> {
        let j = self
            .request("get_schema", json!([self.shared.database]))
            .await?;
        DatabaseSchema::from_json(&j)
    }
}

/// Why a session ended.
enum End {
    /// All handles dropped.
    Closed,
    /// The connection failed; `synced` tells whether it had completed a sync.
    Failed { error: Error, synced: bool },
}

async fn run(
    remotes: Vec<Remote>,
    monitor: MonitorSpec,
    shared: Arc<Shared>,
    mut cmd_rx: mpsc::UnboundedReceiver<Command>,
    first: oneshot::Sender<Result<()>>,
) {
    let opts = shared.options.clone();
    let mut first = Some(first);
    let started = tokio::time::Instant::now();
    let mut backoff = opts.backoff_initial;
    let mut attempt = 0usize;
    // Failures since the last successful sync; the backoff grows once per full pass over the
    // remote list, so moving to the next server of a cluster is immediate.
    let mut failures = 0usize;
    loop {
        let index = attempt % remotes.len();
        let remote = &remotes[index];
        attempt += 1;
        match session(index, remote, &monitor, &shared, &mut cmd_rx, &mut first).await {
            End::Closed => return,
            End::Failed { error, synced } => {
                shared.state.send_modify(|s| s.connected = false);
                shared.drop_locks();
                if synced {
                    backoff = opts.backoff_initial;
                    failures = 0;
                }
                failures += 1;
                if first.is_some() {
                    // First connect: every remote once; then keep cycling only while servers
                    // answer but are unusable (a cluster still electing), up to connect_timeout.
                    let unsuitable = matches!(error, Error::ServerUnsuitable { .. });
                    let in_time = started.elapsed() < opts.connect_timeout;
                    if attempt >= remotes.len() && !(unsuitable && in_time) {
                        if let Some(f) = first.take() {
                            let _ = f.send(Err(error));
                        }
                        return;
                    }
                } else {
                    tracing::warn!(remote = %remote, db = %shared.database, %error,
                        "OVSDB connection lost or unusable; reconnecting");
                }
                if !failures.is_multiple_of(remotes.len()) {
                    continue;
                }
                let sleep = tokio::time::sleep(backoff);
                tokio::pin!(sleep);
                loop {
                    tokio::select! {
                        _ = &mut sleep => break,
                        c = cmd_rx.recv() => match c {
                            None => return,
                            Some(c) => { let _ = c.reply.send(Err(Error::Disconnected)); }
                        },
                    }
                }
                backoff = (backoff * 2).min(opts.backoff_max);
            }
        }
    }
}

struct Pending {
    method: String,
    /// For `lock`/`steal`: the lock name, so the task records ownership in message order
    /// (a `locked` notification may follow the reply immediately).
    lock: Option<String>,
    reply: Option<oneshot::Sender<Result<Json>>>,
}

/// The `_Server.Database` row of our database (ovsdb-server(7) "Database" table), as the OVS
/// IDL reads it to pick a usable cluster member.
#[derive(Debug, Clone, Default, PartialEq)]
struct ServerDb {
    exists: bool,
    model: String,
    connected: bool,
    leader: bool,
    index: Option<i64>,
}

impl ServerDb {
    /// Applies `<table-updates2>` of the `_Server` monitor. Every monitored column has max 1,
    /// so `modify` carries new values; omitted columns of `initial` are defaults.
    fn apply(&mut self, updates: &Json) -> Result<()> {
        let rows = updates
            .get("Database")
            .and_then(Json::as_object)
            .into_iter()
            .flatten();
        for (_, u) in rows {
            let (cols, reset) = if let Some(c) = u.get("initial").or_else(|| u.get("insert")) {
                (c, true)
            } else if let Some(c) = u.get("modify") {
                (c, false)
            } else if u.get("delete").is_some() {
                *self = ServerDb::default();
                continue;
            } else {
                return Err(Error::Protocol(format!("bad _Server update {u}")));
            };
            if reset {
                *self = ServerDb {
                    exists: true,
                    ..ServerDb::default()
                };
            }
            if let Some(m) = cols.get("model").and_then(Json::as_str) {
                self.model = m.to_string();
            }
            if let Some(b) = cols.get("connected").and_then(Json::as_bool) {
                self.connected = b;
            }
            if let Some(b) = cols.get("leader").and_then(Json::as_bool) {
                self.leader = b;
            }
            if let Some(i) = cols.get("index") {
                self.index = match crate::value::Value::from_json(i)?.single() {
                    Some(a) => a.as_i64(),
                    None => None,
                };
            }
        }
        Ok(())
    }

    /// Why this server cannot be used, as the OVS IDL decides (python/ovs/db/idl.py
    /// `__check_server_db`): clustered and not connected, not the leader while `leader_only`,
    /// or a raft index behind one already seen.
    fn unsuitable(&self, leader_only: bool, min_index: i64) -> Option<String> {
        if !self.exists {
            // Not served here: `get_schema` then fails with the server's own error.
            return None;
        }
        if self.model == "clustered" {
            if !self.connected {
                return Some("not connected to its cluster".into());
            }
            if leader_only && !self.leader {
                return Some("not the cluster leader".into());
            }
            if let Some(i) = self.index {
                if i < min_index {
                    return Some(format!("stale: raft index {i} < {min_index} already seen"));
                }
            }
        } else if self.model == "relay" && !self.connected {
            return Some("relay not connected to its source".into());
        }
        None
    }
}

struct Conn {
    reader: ReadHalf<Box<dyn Io>>,
    writer: WriteHalf<Box<dyn Io>>,
    splitter: JsonSplitter,
    next_id: u64,
    pending: HashMap<u64, Pending>,
    buf: Vec<u8>,
    /// `_Server.Database` of our database; `None` when the server has no `_Server`.
    server: Option<ServerDb>,
    remote: String,
}

impl Conn {
    async fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.writer
            .write_all(bytes)
            .await
            .map_err(|e| Error::Io(e.to_string()))
    }

    async fn send_request(
        &mut self,
        method: &str,
        params: &Json,
        reply: Option<oneshot::Sender<Result<Json>>>,
    ) -> Result<u64> {
        let id = self.next_id;
        self.next_id += 1;
        let lock = matches!(method, "lock" | "steal")
            .then(|| params.get(0).and_then(Json::as_str).map(str::to_string))
            .flatten();
        self.pending.insert(
            id,
            Pending {
                method: method.to_string(),
                lock,
                reply,
            },
        );
        self.write(&rpc::request(method, params, id)).await?;
        Ok(id)
    }

    /// Reads until one message is available.
    async fn next_message(&mut self) -> Result<Message> {
        loop {
            if let Some(j) = self.splitter.next_message()? {
                return Message::from_json(j);
            }
            let n = self
                .reader
                .read(&mut self.buf)
                .await
                .map_err(|e| Error::Io(e.to_string()))?;
            if n == 0 {
                return Err(Error::Eof);
            }
            self.splitter.feed(&self.buf[..n]);
        }
    }

    /// Answers `echo` (ovsdb-server's inactivity probe) and other requests.
    async fn answer(&mut self, method: &str, params: Json, id: Json) -> Result<()> {
        if method == "echo" {
            self.write(&rpc::reply(&params, &id)).await
        } else {
            self.write(&rpc::error_reply("unknown method", &id)).await
        }
    }

    /// Applies a `_Server` monitor update and checks the server is still usable.
    fn server_update(&mut self, shared: &Shared, updates: &Json) -> Result<()> {
        let db = self.server.get_or_insert_with(ServerDb::default);
        db.apply(updates)?;
        if let Some(i) = db.index {
            shared.min_index.fetch_max(i, Ordering::Relaxed);
        }
        let min = shared.min_index.load(Ordering::Relaxed);
        match db.unsuitable(shared.options.leader_only, min) {
            Some(reason) => Err(Error::ServerUnsuitable {
                remote: self.remote.clone(),
                reason,
            }),
            None => Ok(()),
        }
    }

    /// A request/response during the handshake (no other traffic of ours is in flight).
    async fn call(&mut self, shared: &Shared, method: &str, params: Json) -> Result<Json> {
        let want = self.send_request(method, &params, None).await?;
        loop {
            match self.next_message().await? {
                Message::Response { id, result, error } if id.as_u64() == Some(want) => {
                    self.pending.remove(&want);
                    if error.is_null() {
                        return Ok(result);
                    }
                    return Err(Error::Rpc {
                        method: method.to_string(),
                        error,
                    });
                }
                Message::Request { method, params, id } => self.answer(&method, params, id).await?,
                Message::Notification { method, params }
                    if shared.lock_notification(&method, &params) => {}
                Message::Notification { method, params }
                    if method == "update2" && params.get(0) == Some(&json!(SERVER_MONITOR_ID)) =>
                {
                    self.server_update(shared, params.get(1).unwrap_or(&Json::Null))?;
                }
                other => tracing::debug!(?other, "OVSDB message ignored during handshake"),
            }
        }
    }
}

fn monitor_requests(
    monitored: &BTreeMap<String, Vec<String>>,
    conditions: &BTreeMap<String, Vec<Json>>,
    v2: bool,
) -> Json {
    Json::Object(
        monitored
            .iter()
            .map(|(t, cols)| {
                let mut req = json!({"columns": cols});
                if let (true, Some(w), Some(o)) = (v2, conditions.get(t), req.as_object_mut()) {
                    o.insert("where".into(), Json::Array(w.clone()));
                }
                (t.clone(), if v2 { json!([req]) } else { req })
            })
            .collect(),
    )
}

/// Replaces the shared replica with `fresh` and broadcasts the differences.
fn publish_resync(shared: &Shared, mut fresh: ReplicaData) {
    let changes;
    {
        let mut g = match shared.replica.write() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        changes = g.data.diff_against(&fresh);
        fresh.generation = g.data.generation + 1;
        *g = Snapshot {
            data: Arc::new(fresh),
        };
    }
    for c in changes {
        let _ = shared.events.send(c);
    }
}

/// Applies one notification atomically: validated first (every `modify` names a row the
/// replica holds), then applied under the write lock (copy-on-write: only tables a reader's
/// snapshot still shares get cloned). A failed validation leaves the replica untouched and
/// forces the next sync to be a full one. `txn_id`: `Some` to record the transaction id of
/// `update3` / a resumed monitor.
fn publish_update(
    shared: &Shared,
    updates: crate::replica::TableUpdates,
    txn_id: Option<Option<Uuid>>,
) -> Result<()> {
    let changes = {
        let mut g = match shared.replica.write() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        for (table, ops) in &updates {
            for (uuid, op) in ops {
                if matches!(op, RowOp::Modify(_)) && g.row(table, uuid).is_none() {
                    shared.force_full.store(true, Ordering::Relaxed);
                    return Err(Error::Protocol(format!(
                        "modify of unknown row {uuid} in {table}"
                    )));
                }
            }
        }
        let data = Arc::make_mut(&mut g.data);
        let changes = data.apply(updates)?;
        if let Some(id) = txn_id {
            data.last_txn_id = id;
        }
        changes
    };
    for c in changes {
        let _ = shared.events.send(c);
    }
    Ok(())
}

/// `last-txn-id` as sent: the all-zero uuid means "none" (standalone servers).
fn txn_id(j: Option<&Json>) -> Result<Option<Uuid>> {
    let s = j
        .and_then(Json::as_str)
        .ok_or_else(|| Error::Protocol("last-txn-id is not a string".into()))?;
    let u = Uuid::parse_str(s).map_err(|e| Error::Protocol(format!("bad last-txn-id: {e}")))?;
    Ok((!u.is_nil()).then_some(u))
}

fn count_rows(updates: &crate::replica::TableUpdates) -> u64 {
    updates.iter().map(|(_, ops)| ops.len() as u64).sum()
}

/// What a completed handshake established.
struct Synced {
    version: MonitorVersion,
    resumed: bool,
    rows: u64,
}

async fn handshake(conn: &mut Conn, monitor: &MonitorSpec, shared: &Shared) -> Result<Synced> {
    let db = shared.database.clone();
    // 1. Which server is this? (_Server.Database; absent on servers older than OVS 2.9.)
    let server_req = json!(["_Server", SERVER_MONITOR_ID, {"Database": [{
        "columns": ["name", "model", "connected", "leader", "index"],
        "where": [["name", "==", db]]}]}]);
    match conn.call(shared, "monitor_cond", server_req).await {
        Ok(initial) => {
            conn.server = Some(ServerDb::default());
            conn.server_update(shared, &initial)?;
        }
        Err(Error::Rpc { error, .. })
            if matches!(error.as_str(), Some("unknown database" | "unknown method"))
                || error.get("error").and_then(Json::as_str) == Some("unknown database") => {}
        Err(e) => return Err(e),
    }
    // 2. Schema.
    let schema_j = conn.call(shared, "get_schema", json!([db])).await?;
    let schema = Arc::new(DatabaseSchema::from_json(&schema_j)?);
    let monitored = Arc::new(monitor.resolve(&schema)?);
    // 3. Be told of schema changes instead of being disconnected (ovsdb-server(7)).
    if let Err(e) = conn
        .call(shared, "set_db_change_aware", json!([true]))
        .await
    {
        tracing::debug!(%e, "set_db_change_aware not supported");
    }
    // 4. Locks before the monitor: `call` must not swallow update notifications.
    let wanted: Vec<(String, bool)> = shared
        .locks()
        .iter()
        .map(|(n, e)| (n.clone(), e.steal))
        .collect();
    for (name, steal) in wanted {
        let method = if steal { "steal" } else { "lock" };
        let r = conn.call(shared, method, json!([name])).await?;
        shared.set_lock(&name, r.get("locked").and_then(Json::as_bool) == Some(true));
    }
    // 5. Monitor: resume from the last transaction id when the replica is of the same schema
    //    and columns (monitor_cond_since), else monitor_cond, else monitor.
    let prev = shared.snapshot();
    let force_full = shared.force_full.swap(false, Ordering::Relaxed);
    let since = prev
        .data
        .last_txn_id
        .filter(|_| !force_full && *prev.data.schema == *schema)
        .filter(|_| *prev.data.monitored == *monitored);
    let requests = monitor_requests(&monitored, &monitor.conditions, true);
    let mut reply = None;
    if shared.options.resume {
        let params = json!([
            db,
            MONITOR_ID,
            requests,
            since.unwrap_or_default().to_string()
        ]);
        match conn.call(shared, "monitor_cond_since", params).await {
            Ok(r) => reply = Some(r),
            Err(Error::Rpc { error, .. }) if error.as_str() == Some("unknown method") => {}
            Err(e) => return Err(e),
        }
    }
    if let Some(mut r) = reply {
        let found = r.get(0).and_then(Json::as_bool).unwrap_or(false);
        let last = txn_id(r.get(1))?;
        let initial = r.get_mut(2).map(Json::take).unwrap_or_default();
        drop(r);
        let updates = parse_updates(initial, MonitorVersion::V2)?;
        let rows = count_rows(&updates);
        if found && since.is_some() {
            publish_update(shared, updates, Some(last))?;
            return Ok(Synced {
                version: MonitorVersion::V2,
                resumed: true,
                rows,
            });
        }
        let mut fresh = ReplicaData::new(schema, monitored, 0);
        fresh.apply(updates)?;
        fresh.last_txn_id = last;
        publish_resync(shared, fresh);
        return Ok(Synced {
            version: MonitorVersion::V2,
            resumed: false,
            rows,
        });
    }
    let (version, initial) = match conn
        .call(shared, "monitor_cond", json!([db, MONITOR_ID, requests]))
        .await
    {
        Ok(r) => (MonitorVersion::V2, r),
        Err(Error::Rpc { error, .. }) if error.as_str() == Some("unknown method") => {
            let r = conn
                .call(
                    shared,
                    "monitor",
                    json!([
                        db,
                        MONITOR_ID,
                        monitor_requests(&monitored, &monitor.conditions, false)
                    ]),
                )
                .await?;
            (MonitorVersion::V1, r)
        }
        Err(e) => return Err(e),
    };
    let updates = parse_updates(initial, version)?;
    let rows = count_rows(&updates);
    let mut fresh = ReplicaData::new(schema, monitored, 0);
    fresh.apply(updates)?;
    publish_resync(shared, fresh);
    Ok(Synced {
        version,
        resumed: false,
        rows,
    })
}

async fn session(
    index: usize,
    remote: &Remote,
    monitor: &MonitorSpec,
    shared: &Shared,
    cmd_rx: &mut mpsc::UnboundedReceiver<Command>,
    first: &mut Option<oneshot::Sender<Result<()>>>,
) -> End {
    let opts = &shared.options;
    let failed = |error| End::Failed {
        error,
        synced: false,
    };
    let stream = match remote.open(opts.connect_timeout, opts.ssl.as_ref()).await {
        Ok(s) => s,
        Err(e) => return failed(e),
    };
    let (reader, writer) = tokio::io::split(stream);
    let mut conn = Conn {
        reader,
        writer,
        splitter: JsonSplitter::new(opts.max_message_bytes),
        next_id: 1,
        pending: HashMap::new(),
        buf: vec![0; 64 * 1024],
        server: None,
        remote: remote.to_string(),
    };
    let synced = match tokio::time::timeout(
        opts.handshake_timeout,
        handshake(&mut conn, monitor, shared),
    )
    .await
    {
        Ok(Ok(v)) => v,
        Ok(Err(e)) => return failed(e),
        Err(_) => return failed(Error::Timeout),
    };
    let version = synced.version;
    shared.state.send_modify(|s| {
        s.connected = true;
        s.syncs += 1;
        s.resumed = synced.resumed;
        s.sync_rows = synced.rows;
        s.remote = index;
    });
    if let Some(f) = first.take() {
        let _ = f.send(Ok(()));
    }
    tracing::info!(remote = %remote, db = %shared.database, ?version, resumed = synced.resumed,
        rows = synced.rows, "OVSDB replica synced");

    // Inactivity probe: silence for one interval → echo; for another → give up.
    let probe = opts.inactivity_probe;
    let mut last_rx = tokio::time::Instant::now();
    let mut probing = false;
    let error = loop {
        let deadline = last_rx + probe.unwrap_or(Duration::from_secs(3600));
        let step: Result<bool> = tokio::select! {
            biased;
            m = conn.next_message() => match m {
                Ok(m) => {
                    last_rx = tokio::time::Instant::now();
                    probing = false;
                    handle(&mut conn, shared, m, version).await.map(|_| true)
                }
                Err(e) => Err(e),
            },
            _ = tokio::time::sleep_until(deadline), if probe.is_some() => {
                if probing {
                    Err(Error::InactivityTimeout)
                } else {
                    probing = true;
                    last_rx = tokio::time::Instant::now();
                    conn.send_request("echo", &json!(["keel-probe"]), None).await.map(|_| true)
                }
            },
            c = cmd_rx.recv() => match c {
                None => Ok(false),
                Some(c) => conn.send_request(&c.method, &c.params, Some(c.reply)).await.map(|_| true),
            },
        };
        match step {
            Ok(true) => {}
            Ok(false) => return End::Closed,
            Err(e) => break e,
        }
    };
    for (_, p) in conn.pending.drain() {
        if let Some(r) = p.reply {
            // A transaction already on the wire may have committed.
            let e = if p.method == "transact" {
                Error::OutcomeUnknown
            } else {
                Error::Disconnected
            };
            let _ = r.send(Err(e));
        }
    }
    End::Failed {
        error,
        synced: true,
    }
}

async fn handle(
    conn: &mut Conn,
    shared: &Shared,
    msg: Message,
    version: MonitorVersion,
) -> Result<()> {
    match msg {
        Message::Response { id, result, error } => {
            let Some(p) = id.as_u64().and_then(|i| conn.pending.remove(&i)) else {
                tracing::debug!(%id, "OVSDB reply to unknown request");
                return Ok(());
            };
            if let (Some(name), true) = (&p.lock, error.is_null()) {
                shared.set_lock(
                    name,
                    result.get("locked").and_then(Json::as_bool) == Some(true),
                );
            }
            if let Some(r) = p.reply {
                let res = if error.is_null() {
                    Ok(result)
                } else {
                    Err(Error::Rpc {
                        method: p.method,
                        error,
                    })
                };
                let _ = r.send(res);
            }
            Ok(())
        }
        Message::Request { method, params, id } => conn.answer(&method, params, id).await,
        Message::Notification { method, params } => {
            if shared.lock_notification(&method, &params) {
                return Ok(());
            }
            let mut params = params;
            let p = params.as_array_mut().map(Vec::as_mut_slice);
            let (updates, txn) = match (method.as_str(), p) {
                ("update2", Some([mid, u])) if *mid == SERVER_MONITOR_ID => {
                    return conn.server_update(shared, u);
                }
                ("update" | "update2", Some([mid, u])) if *mid == MONITOR_ID => (u.take(), None),
                ("update3", Some([mid, last_txn, u])) if *mid == MONITOR_ID => {
                    (u.take(), Some(txn_id(Some(last_txn))?))
                }
                ("monitor_canceled", _) => return Err(Error::MonitorCanceled),
                _ => {
                    tracing::debug!(%method, "OVSDB notification ignored");
                    return Ok(());
                }
            };
            let v = if method == "update" {
                MonitorVersion::V1
            } else {
                version
            };
            publish_update(shared, parse_updates(updates, v)?, txn)
        }
    }
}
