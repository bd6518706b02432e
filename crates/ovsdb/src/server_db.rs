//! The `_Server.Database` row of the monitored database (ovsdb-server(7), "Database" table),
//! which says whether a server is usable: standalone, clustered and connected to its cluster
//! (the leader, when only the leader will do), or a relay connected to its source.

use serde_json::Value as Json;

use crate::error::{Error, Result};
use crate::value::Value;

/// Monitor id of the `_Server.Database` monitor.
pub(crate) const SERVER_MONITOR_ID: &str = "keel-server";

/// The `_Server.Database` row of our database (ovsdb-server(7) "Database" table), as the OVS
/// IDL reads it to pick a usable cluster member.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ServerDb {
    pub(crate) exists: bool,
    pub(crate) model: String,
    pub(crate) connected: bool,
    pub(crate) leader: bool,
    pub(crate) index: Option<i64>,
}

impl ServerDb {
    /// Applies `<table-updates2>` of the `_Server` monitor. Every monitored column has max 1,
    /// so `modify` carries new values; omitted columns of `initial` are defaults.
    pub(crate) fn apply(&mut self, updates: &Json) -> Result<()> {
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
                self.index = match Value::from_json(i)?.single() {
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
    pub(crate) fn unsuitable(&self, leader_only: bool, min_index: i64) -> Option<String> {
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
            if let Some(i) = self.index
                && i < min_index
            {
                return Some(format!("stale: raft index {i} < {min_index} already seen"));
            }
        } else if self.model == "relay" && !self.connected {
            return Some("relay not connected to its source".into());
        }
        None
    }
}
