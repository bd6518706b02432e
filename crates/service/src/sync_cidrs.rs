//! `keel ovn-db-sync`'s pass over Keel's `allowed_cidrs` rows (`ovn_provider::cidrs`): each
//! synced listener's rows compared with what its list and its load balancer's NB rows plan
//! (`cidrs::check`); a listener whose rows differ gets them made anew, and, on an unfiltered
//! run, rows of a listener the database has no list for are deleted. One line per difference
//! (`fix <lb>: listener <id>: allowed_cidrs …`), all repairs in one transaction, none on a
//! dry run.

use std::collections::BTreeSet;

use ovn_provider::cidrs::{self, check};
use ovn_provider::nb::Op;
use ovn_provider::{NbDatabase, OvsdbNb};
use ovsdb::Operation;
use provider::LoadBalancer;
use serde_json::Value;

/// Errors of the pass (nothing was written).
#[derive(Debug, thiserror::Error)]
pub enum CidrsSyncError {
    /// Reading Keel's rows.
    #[error("OVN NB select: {0}")]
    Select(#[source] ovsdb::Error),
    /// Reading the snapshot or writing the repair.
    #[error("OVN NB: {0}")]
    Nb(#[source] ovn_provider::NbError),
}

/// The `select` of Keel's rows of `table` ([`cidrs::owned_rows`]), every column.
fn owned_select(table: &str) -> ovsdb::Transaction {
    ovsdb::Transaction::new("OVN_Northbound").push(Operation::Select {
        table: table.to_string(),
        conditions: vec![cidrs::owned_rows()],
        columns: None,
    })
}

/// Keel's rows of `table`, every column.
async fn owned(client: &ovsdb::Client, table: &str) -> Result<Vec<Value>, CidrsSyncError> {
    let r = client
        .transact(owned_select(table))
        .await
        .map_err(CidrsSyncError::Select)?;
    Ok(r.into_iter()
        .next()
        .and_then(|x| x.rows)
        .unwrap_or_default())
}

/// Runs the pass over `trees`; with `known` (an unfiltered run: every load balancer id the
/// database has), rows of a load balancer neither among them nor in the NB (gone for every
/// deployment: another Keel's load balancer on the same NB keeps its rows), or of a synced
/// load balancer's listener it no longer has, are deleted (a load balancer skipped as
/// PENDING_* keeps its rows). Returns the difference lines (printed by the caller).
pub async fn run(
    client: &ovsdb::Client,
    trees: &[LoadBalancer],
    dry_run: bool,
    known: Option<&BTreeSet<String>>,
) -> Result<Vec<String>, CidrsSyncError> {
    let nb = OvsdbNb::new(client.clone());
    let snap = nb.full_snapshot().await.map_err(CidrsSyncError::Nb)?;
    let found = check::in_nb(
        &owned(client, "Port_Group").await?,
        &owned(client, "ACL").await?,
        &owned(client, "Address_Set").await?,
    );
    let mut lines = Vec::new();
    let mut ops: Vec<Op> = Vec::new();
    for lb in trees {
        for l in lb.listeners.iter().flatten() {
            let list = l.allowed_cidrs.clone().unwrap_or_default();
            let req = cidrs::ListenerCidrs {
                listener_id: &l.listener_id,
                lb_id: &lb.loadbalancer_id,
                protocol: l.protocol.as_deref().unwrap_or_default(),
                port: l.protocol_port.unwrap_or(0),
                cidrs: &list,
            };
            let plan = cidrs::listener(&snap, &req);
            let want = check::planned(&plan);
            let have = found.get(&l.listener_id).map(|(_, s)| s);
            let what = match (&want, have) {
                (None, None) => continue,
                (Some(_), None) => vec!["allowed_cidrs rows missing, made".to_string()],
                (None, Some(_)) => vec!["allowed_cidrs rows of an empty list, deleted".into()],
                (Some(w), Some(h)) => h
                    .differences(w)
                    .into_iter()
                    .map(|d| format!("allowed_cidrs {d}, made anew"))
                    .collect(),
            };
            if what.is_empty() {
                continue;
            }
            for w in what {
                lines.push(format!(
                    "fix {}: listener {}: {w}",
                    lb.loadbalancer_id, l.listener_id
                ));
            }
            ops.extend(plan);
        }
    }
    if let Some(known) = known {
        let synced_lbs: BTreeSet<&str> =
            trees.iter().map(|lb| lb.loadbalancer_id.as_str()).collect();
        let synced: BTreeSet<&str> = trees
            .iter()
            .flat_map(|lb| lb.listeners.iter().flatten())
            .map(|l| l.listener_id.as_str())
            .collect();
        for (l, (lb, _)) in &found {
            // another deployment's load balancer is not in this database but still has its
            // `Load_Balancer` rows: its rows are not this run's to judge
            let orphan = !known.contains(lb) && snap.lbs_named(lb).is_empty();
            let gone = orphan || (synced_lbs.contains(lb.as_str()) && !synced.contains(l.as_str()));
            if gone {
                lines.push(format!(
                    "fix {lb}: listener {l}: allowed_cidrs rows of a listener or load balancer the database does not have, deleted"
                ));
                ops.extend(cidrs::remove_listener(l));
            }
        }
    }
    if !dry_run && !ops.is_empty() {
        nb.transact(&ops).await.map_err(CidrsSyncError::Nb)?;
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bytes of the select, as sent when it was built as JSON (keys sorted; no
    /// `columns`: every column).
    #[test]
    fn owned_select_wire_json_is_pinned() {
        assert_eq!(
            serde_json::to_string(&owned_select("ACL").to_params()).unwrap(),
            r#"["OVN_Northbound",{"op":"select","table":"ACL","where":[["external_ids","includes",["map",[["keel:owner","keel-allowed-cidrs"]]]]]}]"#
        );
    }
}
