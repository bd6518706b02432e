//! What a [`crate::Client`] is asked to follow and how it behaves: the monitored tables
//! ([`MonitorSpec`], the `<monitor-requests>` of RFC 7047 §4.1.5 and the `where` clauses of
//! ovsdb-server(7) `monitor_cond`), the tunables ([`ClientOptions`]) and the connection state
//! it reports ([`ConnectionState`]).

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value as Json;

use crate::error::{Error, Result};
use crate::index::{Index, KeyFn};
use crate::operation::Condition;
use crate::schema::DatabaseSchema;
use crate::tls::SslFiles;

/// Which tables (and columns) the replica follows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MonitorSpec {
    all: bool,
    tables: BTreeMap<String, Option<Vec<String>>>,
    /// `where` of the `monitor_cond` request per table (JSON conditions).
    pub(crate) conditions: BTreeMap<String, Vec<Json>>,
    /// Secondary indexes the replica keeps ([`MonitorSpec::index`]).
    pub(crate) indexes: Vec<Index>,
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
    pub fn condition(mut self, table: &str, conditions: &[Condition]) -> Self {
        self.tables.entry(table.to_string()).or_insert(None);
        self.conditions.insert(
            table.to_string(),
            conditions.iter().map(Condition::to_json).collect(),
        );
        self
    }

    /// Keep a secondary index `name` of `table`: every row found under each key `keys` gives
    /// it ([`crate::Table::find_by_key`], [`crate::Snapshot::find_by_key`]); kept exact under
    /// every change and resync. Replaces an index of the same table and name. `keys` runs on
    /// each changed row of the table, so it must be cheap.
    pub fn index(mut self, table: &str, name: &str, keys: KeyFn) -> Self {
        let def = Index {
            table: table.to_string(),
            name: name.to_string(),
            keys,
        };
        self.indexes.retain(|d| *d != def);
        self.indexes.push(def);
        self
    }

    /// Resolves against the server schema: table → explicit column list.
    /// Errors: [`Error::Schema`] for a table/column the server does not have.
    pub(crate) fn resolve(&self, schema: &DatabaseSchema) -> Result<BTreeMap<String, Vec<String>>> {
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
