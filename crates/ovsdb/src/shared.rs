//! The state a [`crate::Client`]'s handles share with its background task: the published
//! replica (readers take an `Arc` snapshot, the task swaps in whole transactions under the
//! write lock), the change broadcast, the connection state, the locks wanted (RFC 7047
//! §4.1.8-4.1.10) and the cluster bookkeeping.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use serde_json::Value as Json;
use tokio::sync::{broadcast, oneshot, watch};
use uuid::Uuid;

use crate::error::{Error, Result};
use crate::options::{ClientOptions, ConnectionState};
use crate::replica::{Change, ReplicaData, RowOp, Snapshot, TableUpdates};

/// A request of a [`crate::Client`] handle to the background task: one JSON-RPC request
/// (RFC 7047 §4.1) and where its `result` (or error) goes.
pub(crate) struct Command {
    pub(crate) method: String,
    pub(crate) params: Json,
    pub(crate) reply: oneshot::Sender<Result<Json>>,
}

/// What the [`crate::Client`] handles and the background task share.
pub(crate) struct Shared {
    pub(crate) database: String,
    pub(crate) replica: RwLock<Snapshot>,
    pub(crate) events: broadcast::Sender<Change>,
    pub(crate) state: watch::Sender<ConnectionState>,
    pub(crate) options: ClientOptions,
    /// Locks this client wants, re-requested on every reconnect; the watch says "owned".
    pub(crate) locks: Mutex<BTreeMap<String, LockEntry>>,
    /// Highest raft index seen in `_Server.Database`: a server behind it is stale.
    pub(crate) min_index: AtomicI64,
    /// Set when an update could not be applied: the next sync must be a full one.
    pub(crate) force_full: AtomicBool,
}

pub(crate) struct LockEntry {
    pub(crate) steal: bool,
    pub(crate) owned: watch::Sender<bool>,
}

impl Shared {
    pub(crate) fn locks(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, LockEntry>> {
        match self.locks.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    pub(crate) fn set_lock(&self, name: &str, owned: bool) {
        if let Some(e) = self.locks().get(name) {
            e.owned.send_replace(owned);
        }
    }

    /// The server releases a session's locks when it closes.
    pub(crate) fn drop_locks(&self) {
        for e in self.locks().values() {
            e.owned.send_replace(false);
        }
    }

    /// `locked` / `stolen` notifications (RFC 7047 §4.1.9-4.1.10).
    pub(crate) fn lock_notification(&self, method: &str, params: &Json) -> bool {
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

    pub(crate) fn snapshot(&self) -> Snapshot {
        match self.replica.read() {
            Ok(g) => g.clone(),
            Err(p) => p.into_inner().clone(),
        }
    }
}

/// Replaces the shared replica with `fresh` and broadcasts the differences.
pub(crate) fn publish_resync(shared: &Shared, mut fresh: ReplicaData) {
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
pub(crate) fn publish_update(
    shared: &Shared,
    updates: TableUpdates,
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
