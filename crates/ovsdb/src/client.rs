//! The long-lived client handle: cheaply cloned [`Client`]s send their requests (RFC 7047
//! §4.1.2 `get_schema`, §4.1.3 `transact`, §4.1.8 `lock`/`steal`/`unlock`, §4.1.11 `echo`) to
//! one background task (`session.rs`) that owns the socket and keeps the replica current
//! (`monitor.rs`); readers take the replica from the shared state (`shared.rs`) without a
//! round trip.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicI64};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use serde_json::{Value as Json, json};
use tokio::sync::{broadcast, mpsc, oneshot, watch};

use crate::error::{Error, Result};
use crate::options::{ClientOptions, ConnectionState, MonitorSpec};
use crate::remote::parse_remotes;
use crate::replica::{Change, Snapshot};
use crate::schema::DatabaseSchema;
use crate::session::run;
use crate::shared::{Command, LockEntry, Shared};
use crate::txn::{OpResult, Transaction, parse_transact_result};

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
    /// committed ([`crate::TxnOutcome::AlreadyApplied`]) — so each transaction takes effect
    /// exactly once or is reported failed. Errors: the last attempt's error (for a non-retry-safe
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
            if let Some(e) = locks.get(name)
                && !steal
            {
                return Ok(e.owned.subscribe());
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
