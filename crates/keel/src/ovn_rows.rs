//! `keel ovn-remove-keel-objects [--dry-run]`: deletes every NB row Keel made that the Python
//! provider never writes (the `allowed_cidrs` port groups with their ACLs, and address sets:
//! `ovn_provider::cidrs`), found only by Keel's ownership key, in one transaction — the way
//! back to the reference for the OVN NB, as `keel db remove-keel-objects` is for the database.
//! With `--dry-run`, lists them and changes nothing. One line per row on stdout:
//! `removed <table> <name>` (`would remove …` on a dry run).

use ovn_provider::cidrs::{OWNER, OWNER_KEY};
use serde_json::{Value, json};

/// The tables holding Keel's own rows (their ACLs go with the port groups: an unreferenced
/// ACL is garbage-collected by ovsdb-server).
const TABLES: [&str; 2] = ["Port_Group", "Address_Set"];

/// Errors of the command.
#[derive(Debug, thiserror::Error)]
pub enum RemoveError {
    /// The NB transaction failed (nothing was removed).
    #[error("OVN NB transaction: {0}")]
    Nb(#[source] ovsdb::Error),
}

/// Selects Keel's rows and, unless `dry_run`, deletes them in the same transaction; returns
/// `(table, name)` of each.
pub async fn remove(
    nb: &ovsdb::Client,
    dry_run: bool,
) -> Result<Vec<(&'static str, String)>, RemoveError> {
    let cond = json!([["external_ids", "includes", ["map", [[OWNER_KEY, OWNER]]]]]);
    let mut txn = ovsdb::Transaction::new("OVN_Northbound");
    for t in TABLES {
        txn = txn.raw(json!({"op": "select", "table": t, "where": cond, "columns": ["name"]}));
    }
    if !dry_run {
        for t in TABLES {
            txn = txn.raw(json!({"op": "delete", "table": t, "where": cond}));
        }
    }
    let results = nb.transact(txn).await.map_err(RemoveError::Nb)?;
    let mut out = Vec::new();
    for (t, r) in TABLES.iter().zip(&results) {
        for row in r.rows.iter().flatten() {
            let name = row.get("name").and_then(Value::as_str).unwrap_or_default();
            out.push((*t, name.to_string()));
        }
    }
    Ok(out)
}
