//! `keel ovn-db-sync`: the role of `octavia-ovn-db-sync-util` (seed 000 §7; the driver's
//! `do_sync`). Reads Octavia's load balancers of provider `ovn` from the Octavia DB, builds
//! their provider data models (listeners, pools with members and health monitor: the API's
//! own builders, `api::base`), reconciles the OVN NB ([`ovn_provider::sync::sync`]) and
//! re-sends every synced tree's statuses through the status updater, as the reference does.
//!
//! Output: one line per difference on stdout (`fix <lb>: …` / `unrepaired <lb>: …`), a
//! progress line on stderr every [`CHUNK`] load balancers, a summary line. Exit status non-zero
//! when the DB, the NB or a transaction failed, or a difference could not be repaired.

use std::collections::BTreeSet;
use std::sync::Arc;

use octavia_db::{Database, ListQuery, LoadBalancerRow, Tx};
use ovn_provider::sync::{self, SyncOptions};
use ovn_provider::NbDatabase;
use provider::{LoadBalancer, StatusSink};

/// Load balancers planned and committed together (one transaction per chunk).
pub const CHUNK: usize = 100;

/// What to sync (`keel ovn-db-sync` arguments).
#[derive(Debug, Clone, Default)]
pub struct SyncArgs {
    /// Report only.
    pub dry_run: bool,
    /// Only these load balancers (`--lb-id`, repeatable); empty: all.
    pub lb_ids: Vec<String>,
    /// Only this project's load balancers (`--project-id`).
    pub project_id: Option<String>,
}

impl SyncArgs {
    fn filtered(&self) -> bool {
        !self.lb_ids.is_empty() || self.project_id.is_some()
    }
}

/// Errors of the sync command.
#[derive(Debug, thiserror::Error)]
pub enum SyncCmdError {
    /// Reading the Octavia DB.
    #[error("Octavia DB: {0}")]
    Db(String),
    /// Reading or writing the NB.
    #[error(transparent)]
    Sync(#[from] sync::SyncError),
}

/// Totals of a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Load balancers synced.
    pub load_balancers: usize,
    /// Differences found.
    pub differences: usize,
    /// Differences left unrepaired.
    pub unrepaired: usize,
    /// Status reports the updater refused.
    pub status_failures: usize,
}

fn db_err(e: impl std::fmt::Display) -> SyncCmdError {
    SyncCmdError::Db(e.to_string())
}

/// The provider model of one load balancer with its whole tree (as the driver-agent's
/// `get_loadbalancer` hands the reference's `do_sync`).
pub(crate) async fn lb_tree(
    tx: &mut Tx,
    row: &LoadBalancerRow,
) -> Result<LoadBalancer, SyncCmdError> {
    let mut lb = api::base::lb_model(tx, row).await.map_err(db_err)?;
    let (listeners, pools) = api::base::lb_children(tx, &row.id).await.map_err(db_err)?;
    let mut ls = Vec::new();
    for l in &listeners {
        ls.push(api::base::listener_model(tx, l).await.map_err(db_err)?);
    }
    let mut ps = Vec::new();
    for p in &pools {
        ps.push(api::base::pool_model(tx, p).await.map_err(db_err)?);
    }
    lb.listeners = Some(ls);
    lb.pools = Some(ps);
    Ok(lb)
}

/// Octavia's load balancers: (every LB id not DELETED, the `ovn` ones to sync per the
/// filters). Load balancers in a PENDING_* state are left to the request in flight.
async fn octavia_lbs(
    db: &Database,
    args: &SyncArgs,
) -> Result<(BTreeSet<String>, Vec<LoadBalancerRow>), SyncCmdError> {
    let mut tx = db.begin_read().await.map_err(db_err)?;
    let q = ListQuery {
        exclude_deleted: true,
        ..Default::default()
    };
    let all: Vec<LoadBalancerRow> = tx.list(&q).await.map_err(db_err)?;
    let known = all.iter().map(|l| l.id.clone()).collect();
    let selected = all
        .into_iter()
        .filter(|l| l.provider.as_deref() == Some("ovn"))
        .filter(|l| args.lb_ids.is_empty() || args.lb_ids.contains(&l.id))
        .filter(|l| args.project_id.is_none() || l.project_id == args.project_id)
        .filter(|l| {
            let pending = l.provisioning_status.starts_with("PENDING_");
            if pending {
                eprintln!("skip {}: {}", l.id, l.provisioning_status);
            }
            !pending
        })
        .collect();
    Ok((known, selected))
}

/// Run the sync: see the module doc. `status` receives each synced tree's statuses (not on a
/// dry run).
pub async fn run(
    db: &Database,
    nb: &dyn NbDatabase,
    neutron: Option<&openstack::NeutronClient>,
    status: Arc<dyn StatusSink>,
    args: &SyncArgs,
) -> Result<Summary, SyncCmdError> {
    let (known, rows) = octavia_lbs(db, args).await?;
    let mut summary = Summary::default();
    let total = rows.len();
    for (n, chunk) in rows.chunks(CHUNK).enumerate() {
        let mut desired = Vec::new();
        {
            let mut tx = db.begin_read().await.map_err(db_err)?;
            for row in chunk {
                desired.push(lb_tree(&mut tx, row).await?);
            }
        }
        let plan = sync::sync(
            nb,
            neutron,
            &desired,
            &SyncOptions {
                dry_run: args.dry_run,
                purge_unknown: None,
            },
        )
        .await?;
        report(&plan, &mut summary);
        if !args.dry_run {
            send_statuses(&status, plan.reports, &mut summary).await;
        }
        summary.load_balancers += chunk.len();
        if total > CHUNK {
            eprintln!(
                "progress: {}/{} load balancers",
                (n * CHUNK + chunk.len()).min(total),
                total
            );
        }
    }
    if !args.filtered() {
        // orphan rows: only when every load balancer was looked at
        let plan = sync::sync(
            nb,
            None,
            &[],
            &SyncOptions {
                dry_run: args.dry_run,
                purge_unknown: Some(known),
            },
        )
        .await?;
        report(&plan, &mut summary);
    }
    Ok(summary)
}

fn report(plan: &sync::SyncPlan, summary: &mut Summary) {
    for d in &plan.differences {
        println!("{d}");
        summary.differences += 1;
        if !d.repaired {
            summary.unrepaired += 1;
        }
    }
}

async fn send_statuses(
    status: &Arc<dyn StatusSink>,
    reports: Vec<provider::StatusReport>,
    summary: &mut Summary,
) {
    for r in reports {
        if let Err(e) = status.update_status(r).await {
            tracing::error!(error = %e, "status report refused");
            summary.status_failures += 1;
        }
    }
}

/// `keel ovn-db-sync`: connect the Octavia DB, Neutron (service user of `[service_auth]`) and
/// the NB (`[ovn] ovn_nb_connection`) as `keel serve` does, run [`run`], print the summary.
/// Errors: connections, DB/NB failures, and differences left unrepaired.
pub async fn command(config: crate::config::Config, args: SyncArgs) -> anyhow::Result<()> {
    use anyhow::Context;
    let db = crate::clients::database(&config).await?;
    let neutron = crate::clients::neutron(&config)?;
    let client = ovsdb::Client::connect_with(
        &config.ovn.ovn_nb_connection,
        "OVN_Northbound",
        ovn_provider::ovsdb_nb::monitor_spec(),
        crate::clients::ovsdb_options(&config.ovn, false),
    )
    .await
    .with_context(|| format!("OVN NB at {}", config.ovn.ovn_nb_connection))?;
    let nb = ovn_provider::OvsdbNb::new(client);
    let status: Arc<dyn StatusSink> = Arc::new(octavia_db::StatusUpdater::new(db.clone()));
    let s = run(&db, &nb, Some(&neutron), status, &args).await?;
    let verb = if args.dry_run {
        "found (dry run, nothing changed)"
    } else {
        "found"
    };
    eprintln!(
        "ovn-db-sync: {} load balancers, {} differences {verb}, {} unrepaired",
        s.load_balancers, s.differences, s.unrepaired
    );
    if s.differences == 0 {
        eprintln!("ovn-db-sync: nothing to do");
    }
    if s.unrepaired > 0 || s.status_failures > 0 {
        anyhow::bail!(
            "{} differences unrepaired, {} status reports refused",
            s.unrepaired,
            s.status_failures
        );
    }
    Ok(())
}
