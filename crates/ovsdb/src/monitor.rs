//! Following the database: the handshake that (re)builds the replica (RFC 7047 §4.1.2 schema,
//! §4.1.5 monitor; ovsdb-server(7) `monitor_cond` / `monitor_cond_since`) and the handling of
//! every later message of the session, update notifications (§4.1.6) above all.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::{Value as Json, json};
use uuid::Uuid;

use crate::conn::Conn;
use crate::error::{Error, Result};
use crate::options::MonitorSpec;
use crate::replica::{MonitorVersion, ReplicaData, TableUpdates, parse_updates};
use crate::rpc::Message;
use crate::schema::DatabaseSchema;
use crate::server_db::{SERVER_MONITOR_ID, ServerDb};
use crate::shared::{Shared, publish_resync, publish_update};

/// Monitor id of the replica's monitor.
const MONITOR_ID: &str = "keel-replica";

/// The `<monitor-requests>` object (RFC 7047 §4.1.5): per table its columns, with `where`
/// when `v2` (`monitor_cond`, ovsdb-server(7)), which also wants each request in an array.
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

/// `last-txn-id` as sent: the all-zero uuid means "none" (standalone servers).
fn txn_id(j: Option<&Json>) -> Result<Option<Uuid>> {
    let s = j
        .and_then(Json::as_str)
        .ok_or_else(|| Error::Protocol("last-txn-id is not a string".into()))?;
    let u = Uuid::parse_str(s).map_err(|e| Error::Protocol(format!("bad last-txn-id: {e}")))?;
    Ok((!u.is_nil()).then_some(u))
}

/// Row updates carried by `updates`.
fn count_rows(updates: &TableUpdates) -> u64 {
    updates.iter().map(|(_, ops)| ops.len() as u64).sum()
}

/// What a completed handshake established.
pub(crate) struct Synced {
    pub(crate) version: MonitorVersion,
    pub(crate) resumed: bool,
    pub(crate) rows: u64,
}

/// The handshake of a new connection, in order: `_Server.Database` (is this server usable?),
/// `get_schema` (RFC 7047 §4.1.2), `set_db_change_aware`, the wanted locks (§4.1.8), then the
/// monitor: `monitor_cond_since` from the replica's last transaction id, else `monitor_cond`,
/// else `monitor` (§4.1.5). A resumed monitor's changes are applied to the replica as one
/// update; any other reply replaces it. Errors: [`Error::ServerUnsuitable`], [`Error::Rpc`],
/// [`Error::Schema`] (a monitored table or column the server lacks), the wire's errors.
#[allow(
    clippy::too_many_lines,
    reason = "a known exception of clippy.toml's bound"
)]
pub(crate) async fn handshake(
    conn: &mut Conn,
    monitor: &MonitorSpec,
    shared: &Shared,
) -> Result<Synced> {
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
        let mut fresh = ReplicaData::new(schema, monitored, Arc::new(monitor.indexes.clone()), 0);
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
    let mut fresh = ReplicaData::new(schema, monitored, Arc::new(monitor.indexes.clone()), 0);
    fresh.apply(updates)?;
    publish_resync(shared, fresh);
    Ok(Synced {
        version,
        resumed: false,
        rows,
    })
}

/// One message of a synced session: a reply completes its pending request (and records lock
/// ownership), a request is answered, `locked`/`stolen` update the locks (§4.1.9-4.1.10),
/// `update`/`update2`/`update3` of our monitor are applied to the replica (§4.1.6), one of
/// the `_Server` monitor re-checks the server. Errors: [`Error::MonitorCanceled`] (the
/// caller reconnects and re-reads the schema), [`Error::ServerUnsuitable`], a malformed update.
pub(crate) async fn handle(
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
