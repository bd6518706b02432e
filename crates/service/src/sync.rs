//! `keel ovn-db-sync`: the role of `octavia-ovn-db-sync-util` (seed 000 §7; the driver's
//! `do_sync`). Reads Octavia's load balancers of provider `ovn` from the Octavia DB, builds
//! their provider data models (listeners, pools with members and health monitor: the API's
//! own builders, `api::provider_model`), reconciles the OVN NB ([`ovn_provider::sync::sync`]) and
//! re-sends every synced tree's statuses through the status updater, as the reference does.
//!
//! Output: one line per difference on stdout (`fix <lb>: …` / `unrepaired <lb>: …` /
//! `conflict <lb>: …`, see [`sync::Resolution`]), a
//! progress line on stderr every [`CHUNK`] load balancers, a summary line and a line of where
//! the time went ([`Times`]). Exit status non-zero
//! when the DB, the NB or a transaction failed, or a difference could not be repaired.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use octavia_db::{Database, ListQuery, LoadBalancerRow, Tx};
use ovn_provider::NbDatabase;
use ovn_provider::ports::NeutronPorts;
use ovn_provider::sync::{self, SyncOptions};
use provider::{LoadBalancer, StatusReport, StatusSink};

/// Load balancers planned and committed together (one transaction per chunk).
pub const CHUNK: usize = 100;

/// What to sync (`keel ovn-db-sync` arguments).
#[derive(Debug, Clone, Default)]
pub struct SyncArgs {
    /// `--dry-run`: print the differences, write nothing to NB, send no status report.
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
    /// Listing this deployment's VIP ports (before a purge).
    #[error("Neutron: {0}")]
    Neutron(String),
}

/// Totals of a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Load balancers synced.
    pub load_balancers: usize,
    /// Differences between NB and the Octavia DB, one printed line each.
    pub differences: usize,
    /// Differences left unrepaired.
    pub unrepaired: usize,
    /// Differences that are conflicts of Octavia's own settings one NB row cannot hold
    /// (`conflict` lines; not a failure).
    pub conflicts: usize,
    /// Status reports the updater refused.
    pub status_failures: usize,
    /// Where the run's time went.
    pub times: Times,
}

/// Where a run's time went (the `ovn-db-sync: time …` line). Each stage's own time; the
/// Neutron reads of the next chunk overlap the NB and status writes of the current one, so
/// the stages add up to more than `wall`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Times {
    /// The whole run.
    pub wall: Duration,
    /// Octavia DB reads (the LB list, each chunk's trees).
    pub db_read: Duration,
    /// Neutron reads (VIP ports and subnets, floating IPs, member subnets, HM ports).
    pub neutron: Duration,
    /// The NB snapshot, read once and refreshed after each transaction.
    pub nb_read: Duration,
    /// Planning.
    pub plan: Duration,
    /// NB transactions, until the replica showed them.
    pub nb_write: Duration,
    /// Status writes to the Octavia DB.
    pub status_write: Duration,
}

impl std::fmt::Display for Times {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = |d: Duration| d.as_secs_f64();
        write!(
            f,
            "{:.1} s: Octavia DB reads {:.1} s, Neutron reads {:.1} s (beside the writes), NB reads {:.1} s, plan {:.1} s, NB transactions {:.1} s, status writes {:.1} s",
            s(self.wall),
            s(self.db_read),
            s(self.neutron),
            s(self.nb_read),
            s(self.plan),
            s(self.nb_write),
            s(self.status_write)
        )
    }
}

fn db_err(e: impl std::fmt::Display) -> SyncCmdError {
    SyncCmdError::Db(e.to_string())
}

/// The provider model of one load balancer with its whole tree (as the driver-agent's
/// `get_loadbalancer` hands the reference's `do_sync`): [`lb_trees`] of one row.
pub(crate) async fn lb_tree(
    tx: &mut Tx,
    row: &LoadBalancerRow,
) -> Result<LoadBalancer, SyncCmdError> {
    let mut trees = lb_trees(tx, std::slice::from_ref(row)).await?;
    trees
        .pop()
        .ok_or_else(|| SyncCmdError::Db(format!("load balancer {}: no tree", row.id)))
}

/// Rows of `T` whose `column` is one of `ids`, grouped by that column (each group in the
/// rows' default order: `created_at`, key; DELETED rows left out).
async fn grouped<T: octavia_db::Record>(
    tx: &mut Tx,
    column: &str,
    ids: &[String],
    key: impl Fn(&T) -> Option<&str>,
) -> Result<HashMap<String, Vec<T>>, SyncCmdError> {
    let rows: Vec<T> = api::related::rows_in(tx, column, ids)
        .await
        .map_err(db_err)?;
    let mut out: HashMap<String, Vec<T>> = HashMap::new();
    for r in rows {
        if let Some(k) = key(&r) {
            out.entry(k.to_string()).or_default().push(r);
        }
    }
    Ok(out)
}

/// [`api::provider_model::lb_model_with`] of a row and its VIP, VIP security groups and
/// additional VIPs as read (the groups' ids sorted, the additional VIPs by subnet, as
/// `lb_model` orders them).
fn lb_head(
    row: &LoadBalancerRow,
    vip: octavia_db::VipRow,
    sgs: Vec<octavia_db::VipSecurityGroupRow>,
    mut add: Vec<octavia_db::AdditionalVipRow>,
) -> LoadBalancer {
    let mut sg: Vec<String> = sgs.into_iter().map(|s| s.sg_id).collect();
    sg.sort();
    add.sort_by(|a, b| a.subnet_id.cmp(&b.subnet_id));
    api::provider_model::lb_model_with(row, vip, sg, add)
}

/// The flavor profile metadata (`flavor_data`, parsed) of each flavor `rows` name, by flavor
/// id: load balancer → flavor → profile, 2 statements per 500 flavors; a flavor whose profile
/// is gone or unreadable is left out (the sync then checks it as no flavor).
async fn flavor_data(
    tx: &mut Tx,
    rows: &[LoadBalancerRow],
) -> Result<HashMap<String, serde_json::Value>, SyncCmdError> {
    use octavia_db::{FlavorProfileRow, FlavorRow};
    let mut flavor_ids: Vec<String> = rows.iter().filter_map(|r| r.flavor_id.clone()).collect();
    flavor_ids.sort();
    flavor_ids.dedup();
    let flavors = grouped::<FlavorRow>(tx, "id", &flavor_ids, |f| Some(f.id.as_str())).await?;
    let profile_ids: Vec<String> = flavors
        .values()
        .flatten()
        .map(|f| f.flavor_profile_id.clone())
        .collect();
    let profiles =
        grouped::<FlavorProfileRow>(tx, "id", &profile_ids, |p| Some(p.id.as_str())).await?;
    Ok(flavors
        .iter()
        .filter_map(|(id, fs)| {
            let profile = profiles.get(&fs.first()?.flavor_profile_id)?.first()?;
            Some((id.clone(), serde_json::from_str(&profile.flavor_data).ok()?))
        })
        .collect())
}

/// The provider models of `rows` with their whole trees, in order: what [`api::provider_model::lb_model`],
/// `lb_children`, `listener_model` and `pool_model` give one by one (same rows, same orders),
/// read for all of `rows` at once in 9 statements per 500 load balancers (not 10 per load
/// balancer with one listener and one pool), 2 more when some have a flavor. Unlike
/// `lb_model`'s `{}`, `flavor` is the flavor profile's metadata (load balancer → flavor →
/// profile `flavor_data`; `{}` without a flavor), what the OVN sync checks the rows'
/// flavor options against (`ovn_provider::flavor`).
pub(crate) async fn lb_trees(
    tx: &mut Tx,
    rows: &[LoadBalancerRow],
) -> Result<Vec<LoadBalancer>, SyncCmdError> {
    use octavia_db::{
        AdditionalVipRow, HealthMonitorRow, ListenerRow, MemberRow, PoolRow, SessionPersistenceRow,
        VipRow, VipSecurityGroupRow,
    };
    let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
    let flavors = flavor_data(tx, rows).await?;
    let mut vips = grouped::<VipRow>(tx, "load_balancer_id", &ids, |v| {
        Some(v.load_balancer_id.as_str())
    })
    .await?;
    let mut sgs = grouped::<VipSecurityGroupRow>(tx, "load_balancer_id", &ids, |v| {
        Some(v.load_balancer_id.as_str())
    })
    .await?;
    let mut adds = grouped::<AdditionalVipRow>(tx, "load_balancer_id", &ids, |v| {
        Some(v.load_balancer_id.as_str())
    })
    .await?;
    let mut listeners = grouped::<ListenerRow>(tx, "load_balancer_id", &ids, |l| {
        l.load_balancer_id.as_deref()
    })
    .await?;
    let mut pools = grouped::<PoolRow>(tx, "load_balancer_id", &ids, |p| {
        p.load_balancer_id.as_deref()
    })
    .await?;
    let listener_ids: Vec<String> = listeners.values().flatten().map(|l| l.id.clone()).collect();
    let atts = tx
        .listeners_attachments(&listener_ids)
        .await
        .map_err(db_err)?;
    let atts: HashMap<String, octavia_db::ListenerAttachments> =
        listener_ids.into_iter().zip(atts).collect();
    let pool_ids: Vec<String> = pools.values().flatten().map(|p| p.id.clone()).collect();
    let sps =
        grouped::<SessionPersistenceRow>(tx, "pool_id", &pool_ids, |s| Some(s.pool_id.as_str()))
            .await?;
    // a pool's `listener_id`: the first listener (default order) whose default pool it is
    let by_default = grouped::<ListenerRow>(tx, "default_pool_id", &pool_ids, |l| {
        l.default_pool_id.as_deref()
    })
    .await?;
    let mut members =
        grouped::<MemberRow>(tx, "pool_id", &pool_ids, |m| Some(m.pool_id.as_str())).await?;
    let hms =
        grouped::<HealthMonitorRow>(tx, "pool_id", &pool_ids, |h| Some(h.pool_id.as_str())).await?;
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let vip = vips
            .remove(&row.id)
            .and_then(|mut v| v.pop())
            .unwrap_or_default();
        let sg = sgs.remove(&row.id).unwrap_or_default();
        let add = adds.remove(&row.id).unwrap_or_default();
        let mut lb = lb_head(row, vip, sg, add);
        lb.flavor = Some(
            row.flavor_id
                .as_ref()
                .and_then(|f| flavors.get(f).cloned())
                .unwrap_or_else(|| serde_json::json!({})),
        );
        let ls = listeners
            .remove(&row.id)
            .unwrap_or_default()
            .iter()
            .map(|l| {
                let att = atts.get(&l.id).cloned().unwrap_or_default();
                api::provider_model::listener_model_with(l, &att)
            })
            .collect();
        let ps = pools
            .remove(&row.id)
            .unwrap_or_default()
            .iter()
            .map(|p| {
                let sp = sps.get(&p.id).and_then(|v| v.first());
                let listener_id = by_default
                    .get(&p.id)
                    .and_then(|v| v.first())
                    .map(|l| l.id.clone());
                let ms = members
                    .remove(&p.id)
                    .unwrap_or_default()
                    .iter()
                    .map(api::provider_model::member_model)
                    .collect();
                let hm = hms
                    .get(&p.id)
                    .and_then(|v| v.first())
                    .map(api::provider_model::hm_model);
                api::provider_model::pool_model_with(p, sp, listener_id, ms, hm)
            })
            .collect();
        lb.listeners = Some(ls);
        lb.pools = Some(ps);
        out.push(lb);
    }
    Ok(out)
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
            let pending = l.provisioning_status.is_pending();
            if pending {
                eprintln!("skip {}: {}", l.id, l.provisioning_status);
            }
            !pending
        })
        .collect();
    Ok((known, selected))
}

/// Run the sync: see the module doc. `status` receives each synced tree's statuses (not on a
/// dry run). Chunk k+1's Octavia trees and Neutron facts are read while chunk k is planned,
/// written to the NB and its statuses written ([`sync::Syncer::query`]): the Neutron reads
/// were the larger part of a restore's wall time.
pub async fn run(
    db: &Database,
    nb: &dyn NbDatabase,
    neutron: Option<&openstack::NeutronClient>,
    status: Arc<dyn StatusSink>,
    args: &SyncArgs,
) -> Result<Summary, SyncCmdError> {
    let started = Instant::now();
    let mut times = Times::default();
    let (known, rows) = octavia_lbs(db, args).await?;
    times.db_read += started.elapsed();
    let mut summary = Summary::default();
    let total = rows.len();
    let opts = SyncOptions {
        dry_run: args.dry_run,
        purge_unknown: None,
    };
    // one NB snapshot for the run while the chunks write nothing (`sync::Syncer`)
    let mut syncer = sync::Syncer::new(nb, neutron);
    let ports = syncer.ports();
    let chunks: Vec<&[LoadBalancerRow]> = rows.chunks(CHUNK).collect();
    let mut current = match chunks.first() {
        Some(c) => {
            let (desired, query) = prepare(db, &mut syncer, c, &mut times).await?;
            let (facts, spent) = fetch(ports.as_deref(), query, &opts).await;
            times.neutron += spent;
            Some((desired, facts))
        }
        None => None,
    };
    for k in 0..chunks.len() {
        let Some((desired, facts)) = current.take() else {
            break;
        };
        let next = match chunks.get(k + 1) {
            Some(c) => Some(prepare(db, &mut syncer, c, &mut times).await?),
            None => None,
        };
        let write = async {
            let plan = syncer.sync_with(&desired, facts, &opts).await?;
            let started = Instant::now();
            let refused = if args.dry_run {
                0
            } else {
                send_statuses(&status, plan.reports.clone()).await
            };
            Ok::<_, SyncCmdError>((plan, refused, started.elapsed()))
        };
        let read = async {
            match next {
                Some((d, q)) => {
                    let (facts, spent) = fetch(ports.as_deref(), q, &opts).await;
                    (Some((d, facts)), spent)
                }
                None => (None, Duration::ZERO),
            }
        };
        let (written, (next, spent)) = tokio::join!(write, read);
        let (plan, refused, status_time) = written?;
        times.neutron += spent;
        times.status_write += status_time;
        current = next;
        report(&plan, &mut summary);
        summary.status_failures += refused;
        summary.load_balancers += desired.len();
        if total > CHUNK {
            eprintln!(
                "progress: {}/{total} load balancers",
                summary.load_balancers
            );
        }
    }
    if !args.filtered() {
        // orphan rows: only when every load balancer was looked at, and only rows whose VIP
        // port carries this deployment's tag (another deployment's rows are not ours)
        let owned_vip_ports = match (neutron, db.deployment_id().await.map_err(db_err)?) {
            (Some(n), Some(d)) => owned_vip_ports(n, &d).await?,
            _ => BTreeSet::new(),
        };
        let plan = syncer
            .sync(
                &[],
                &SyncOptions {
                    dry_run: args.dry_run,
                    purge_unknown: Some(sync::Purge {
                        known,
                        owned_vip_ports,
                    }),
                },
            )
            .await?;
        report(&plan, &mut summary);
    }
    let own = syncer.times();
    times.neutron += own.neutron;
    times.nb_read = own.nb_read;
    times.plan = own.plan;
    times.nb_write = own.nb_write;
    times.wall = started.elapsed();
    summary.times = times;
    Ok(summary)
}

/// One chunk's Octavia trees (one read transaction) and what they ask Neutron.
async fn prepare(
    db: &Database,
    syncer: &mut sync::Syncer<'_>,
    chunk: &[LoadBalancerRow],
    times: &mut Times,
) -> Result<(Vec<LoadBalancer>, sync::FactsQuery), SyncCmdError> {
    let started = Instant::now();
    let desired = {
        let mut tx = db.begin_read().await.map_err(db_err)?;
        lb_trees(&mut tx, chunk).await?
    };
    times.db_read += started.elapsed();
    let query = syncer.query(&desired).await?;
    Ok((desired, query))
}

/// The Neutron facts of `query` (none without Neutron; HM ports not created on a dry run),
/// and the time it took.
async fn fetch(
    ports: Option<&NeutronPorts>,
    query: sync::FactsQuery,
    opts: &SyncOptions,
) -> (sync::SyncFacts, Duration) {
    let started = Instant::now();
    let facts = match ports {
        Some(p) => query.fetch(p, !opts.dry_run).await,
        None => sync::SyncFacts::default(),
    };
    (facts, started.elapsed())
}

/// Ids of the VIP ports carrying deployment `deployment_id`'s tag (every project: service
/// credentials). Errors: Neutron unreachable — then nothing may be purged.
async fn owned_vip_ports(
    neutron: &openstack::NeutronClient,
    deployment_id: &str,
) -> Result<BTreeSet<String>, SyncCmdError> {
    let tag = ovn_provider::driver::deployment_tag(deployment_id);
    let filter = openstack::ListFilter::new().eq("description", tag.clone());
    let ports = neutron
        .list_ports(&filter)
        .await
        .map_err(|e| SyncCmdError::Neutron(e.to_string()))?;
    Ok(ports
        .into_iter()
        .filter(|p| p.description == tag)
        .map(|p| p.id)
        .collect())
}

fn report(plan: &sync::SyncPlan, summary: &mut Summary) {
    for d in &plan.differences {
        println!("{d}");
        summary.differences += 1;
        match d.resolution {
            sync::Resolution::Repaired => {}
            sync::Resolution::Unrepaired => summary.unrepaired += 1,
            sync::Resolution::Conflict => summary.conflicts += 1,
        }
    }
}

/// Sends a chunk's status trees: merged into one report, so one status transaction per chunk
/// (the trees are of different load balancers), and one by one when the merged one is
/// refused, so that a refused tree does not hold the others back. Returns how many reports
/// were refused.
async fn send_statuses(status: &Arc<dyn StatusSink>, reports: Vec<StatusReport>) -> usize {
    if reports.len() > 1 {
        let mut merged = StatusReport::default();
        reports.iter().cloned().for_each(|r| merged.append(r));
        if status.update_status(merged).await.is_ok() {
            return 0;
        }
    }
    let mut refused = 0;
    for r in reports {
        if let Err(e) = status.update_status(r).await {
            tracing::error!(error = %e, "status report refused");
            refused += 1;
        }
    }
    refused
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
    let nb = ovn_provider::OvsdbNb::new(client.clone());
    let status: Arc<dyn StatusSink> = Arc::new(octavia_db::StatusUpdater::new(db.clone()));
    let mut s = run(&db, &nb, Some(&neutron), status, &args).await?;
    // Keel's own `allowed_cidrs` rows, over the same load balancers
    let (known, rows) = octavia_lbs(&db, &args).await?;
    let trees = {
        let mut tx = db.begin_read().await.map_err(db_err)?;
        lb_trees(&mut tx, &rows).await?
    };
    let known = (!args.filtered()).then_some(&known);
    for line in crate::sync_cidrs::run(&client, &trees, args.dry_run, known).await? {
        println!("{line}");
        s.differences += 1;
    }
    let verb = if args.dry_run {
        "found (dry run, nothing changed)"
    } else {
        "found"
    };
    eprintln!(
        "ovn-db-sync: {} load balancers, {} differences {verb}, {} unrepaired, {} conflicts of Octavia's own settings",
        s.load_balancers, s.differences, s.unrepaired, s.conflicts
    );
    if s.differences == 0 {
        eprintln!("ovn-db-sync: nothing to do");
    }
    eprintln!("ovn-db-sync: time {}", s.times);
    if s.unrepaired > 0 || s.status_failures > 0 {
        anyhow::bail!(
            "{} differences unrepaired, {} status reports refused",
            s.unrepaired,
            s.status_failures
        );
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use octavia_db::{
        AdditionalVipRow, HealthMonitorRow, ListenerRow, MemberRow, PoolRow, SessionPersistenceRow,
        VipRow,
    };

    /// A sink that refuses every report naming load balancer "bad", and records the
    /// load balancers of each report it took.
    struct Picky(std::sync::Mutex<Vec<Vec<String>>>);

    #[async_trait::async_trait]
    impl StatusSink for Picky {
        async fn update_status(&self, r: StatusReport) -> Result<(), provider::StatusSinkError> {
            let ids: Vec<String> = r.loadbalancers.iter().map(|l| l.id.clone()).collect();
            if ids.iter().any(|i| i == "bad") {
                return Err(provider::StatusSinkError {
                    fault_string: "refused".into(),
                    status_object: "loadbalancers".into(),
                    status_object_id: Some("bad".into()),
                });
            }
            self.0.lock().unwrap().push(ids);
            Ok(())
        }
        async fn update_stats(
            &self,
            _: provider::StatsReport,
        ) -> Result<(), provider::StatusSinkError> {
            Ok(())
        }
    }

    fn tree(lb: &str) -> StatusReport {
        use provider::{OperatingStatus as Op, ProvisioningStatus as Prov, StatusRecord};
        StatusReport {
            loadbalancers: vec![StatusRecord::new(lb, Some(Prov::Active), Some(Op::Online))],
            members: vec![StatusRecord::new(
                format!("m-{lb}"),
                Some(Prov::Active),
                Some(Op::NoMonitor),
            )],
            ..Default::default()
        }
    }

    /// A chunk's trees go in one report; when that is refused, each tree alone, so only the
    /// refused one is missing and counted.
    #[tokio::test]
    async fn a_chunk_s_statuses_go_together_and_a_refused_tree_alone() {
        let sink = Arc::new(Picky(Default::default()));
        let status: Arc<dyn StatusSink> = sink.clone();
        let refused = send_statuses(&status, vec![tree("a"), tree("b")]).await;
        assert_eq!(refused, 0);
        assert_eq!(
            *sink.0.lock().unwrap(),
            vec![vec!["a".to_string(), "b".to_string()]]
        );
        sink.0.lock().unwrap().clear();
        let refused = send_statuses(&status, vec![tree("a"), tree("bad"), tree("c")]).await;
        assert_eq!(refused, 1);
        assert_eq!(
            *sink.0.lock().unwrap(),
            vec![vec!["a".to_string()], vec!["c".to_string()]]
        );
    }

    /// The per-row builders `lb_trees` replaces: what one load balancer's tree was before.
    async fn one_by_one(tx: &mut Tx, row: &LoadBalancerRow) -> LoadBalancer {
        let mut lb = api::provider_model::lb_model(tx, row).await.unwrap();
        let (listeners, pools) = api::related::lb_children(tx, &row.id).await.unwrap();
        let mut ls = Vec::new();
        for l in &listeners {
            ls.push(api::provider_model::listener_model(tx, l).await.unwrap());
        }
        let mut ps = Vec::new();
        for p in &pools {
            ps.push(api::provider_model::pool_model(tx, p).await.unwrap());
        }
        lb.listeners = Some(ls);
        lb.pools = Some(ps);
        lb
    }

    fn at(s: u32) -> Option<chrono::NaiveDateTime> {
        chrono::NaiveDate::from_ymd_opt(2026, 1, 1).and_then(|d| d.and_hms_opt(0, 0, s % 60))
    }

    /// Load balancers with 0–2 listeners and 0–3 pools (created_at ties and a NULL, DELETED
    /// children, pools with and without a listener, monitor, session persistence, members),
    /// VIPs with security groups and additional VIPs: `lb_trees` over all of them gives what
    /// the per-row builders give for each, and a pool shared by two listeners names the first.
    #[tokio::test]
    async fn lb_trees_equal_the_per_row_builders() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!(
            "sqlite://{}?mode=rwc",
            dir.path().join("t.sqlite").display()
        );
        let db = Database::connect(&url).await.unwrap();
        db.upgrade().await.unwrap();
        let mut tx = db.begin().await.unwrap();
        let mut rows = Vec::new();
        let id = |k: &str, i: usize| format!("{k}{i:03}-0000-4000-8000-{:012}", (i * 37) % 101);
        for i in 0..12usize {
            let lb = LoadBalancerRow {
                id: id("a", i),
                project_id: Some("p".into()),
                provisioning_status: "ACTIVE".parse().unwrap(),
                operating_status: "ONLINE".parse().unwrap(),
                enabled: i % 3 != 0,
                provider: Some("ovn".into()),
                created_at: at(i as u32),
                ..Default::default()
            };
            tx.insert(&lb).await.unwrap();
            if i % 4 != 3 {
                tx.insert(&VipRow {
                    load_balancer_id: lb.id.clone(),
                    ip_address: Some(format!("10.0.0.{i}")),
                    port_id: Some(id("v", i)),
                    subnet_id: Some("s1".into()),
                    network_id: Some("n1".into()),
                    ..Default::default()
                })
                .await
                .unwrap();
            }
            for (k, sub) in ["s3", "s2"].iter().enumerate().take(i % 3) {
                tx.insert(&AdditionalVipRow {
                    load_balancer_id: lb.id.clone(),
                    ip_address: Some(format!("10.1.{k}.{i}")),
                    port_id: Some(id(&format!("x{k}"), i)),
                    subnet_id: (*sub).into(),
                    network_id: Some("n2".into()),
                })
                .await
                .unwrap();
            }
            // (FK to the vip row)
            for sg in ["sg-b", "sg-a"]
                .iter()
                .take(if i % 4 == 3 { 0 } else { i % 3 })
            {
                tx.execute(
                    "INSERT INTO `vip_security_group` (`load_balancer_id`, `sg_id`) VALUES (?, ?)",
                    vec![lb.id.as_str().into(), (*sg).into()],
                )
                .await
                .unwrap();
            }
            let mut pools = Vec::new();
            for j in 0..(i % 4) {
                let p = PoolRow {
                    id: id(&format!("p{j}"), i),
                    project_id: lb.project_id.clone(),
                    protocol: "TCP".into(),
                    lb_algorithm: "SOURCE_IP_PORT".into(),
                    operating_status: "ONLINE".parse().unwrap(),
                    provisioning_status: if j == 2 { "DELETED" } else { "ACTIVE" }.parse().unwrap(),
                    enabled: true,
                    load_balancer_id: Some(lb.id.clone()),
                    created_at: if j == 1 { None } else { at(i as u32) },
                    ..Default::default()
                };
                tx.insert(&p).await.unwrap();
                for m in 0..(j + i % 2) {
                    tx.insert(&MemberRow {
                        id: id(&format!("m{j}{m}"), i),
                        project_id: lb.project_id.clone(),
                        pool_id: p.id.clone(),
                        ip_address: Some(format!("10.2.{m}.{i}")),
                        protocol_port: 80 + m as i32,
                        operating_status: "ONLINE".parse().unwrap(),
                        provisioning_status: if m == 2 { "DELETED" } else { "ACTIVE" }
                            .parse()
                            .unwrap(),
                        enabled: m != 1,
                        created_at: at((m % 2) as u32),
                        subnet_id: (m == 0).then(|| "s1".into()),
                        ..Default::default()
                    })
                    .await
                    .unwrap();
                }
                if j == 0 && i % 2 == 0 {
                    tx.insert(&HealthMonitorRow {
                        id: id("h", i),
                        pool_id: p.id.clone(),
                        r#type: "TCP".into(),
                        delay: 5,
                        timeout: 3,
                        fall_threshold: 3,
                        rise_threshold: 2,
                        enabled: true,
                        provisioning_status: "ACTIVE".parse().unwrap(),
                        operating_status: "ONLINE".parse().unwrap(),
                        project_id: lb.project_id.clone(),
                        ..Default::default()
                    })
                    .await
                    .unwrap();
                }
                if j == 1 {
                    tx.insert(&SessionPersistenceRow {
                        pool_id: p.id.clone(),
                        r#type: "SOURCE_IP".into(),
                        ..Default::default()
                    })
                    .await
                    .unwrap();
                }
                pools.push(p);
            }
            for k in 0..(i % 3) {
                let l = ListenerRow {
                    id: id(&format!("l{k}"), i),
                    project_id: lb.project_id.clone(),
                    protocol: "TCP".into(),
                    protocol_port: 80 + k as i32,
                    load_balancer_id: Some(lb.id.clone()),
                    // both listeners of an LB on its first pool
                    default_pool_id: pools.first().map(|p| p.id.clone()),
                    provisioning_status: "ACTIVE".parse().unwrap(),
                    operating_status: "ONLINE".parse().unwrap(),
                    enabled: true,
                    created_at: at((i + 1 - k) as u32),
                    client_authentication: "NONE".into(),
                    ..Default::default()
                };
                tx.insert(&l).await.unwrap();
                if k == 1 {
                    tx.set_listener_cidrs(&l.id, &["10.9.0.0/16".into(), "10.8.0.0/16".into()])
                        .await
                        .unwrap();
                }
            }
            rows.push(lb);
        }
        tx.commit().await.unwrap();
        let mut tx = db.begin_read().await.unwrap();
        let trees = lb_trees(&mut tx, &rows).await.unwrap();
        assert_eq!(trees.len(), rows.len());
        let mut shared = 0;
        for (row, tree) in rows.iter().zip(&trees) {
            assert_eq!(*tree, one_by_one(&mut tx, row).await, "{}", row.id);
            assert_eq!(lb_tree(&mut tx, row).await.unwrap(), *tree);
            let ps = tree.pools.as_deref().unwrap_or_default();
            if tree.listeners.as_ref().is_some_and(|l| l.len() == 2) && !ps.is_empty() {
                shared += 1;
                assert!(ps[0].listener_id.is_some());
            }
        }
        assert!(shared > 0);
        assert!(
            trees
                .iter()
                .any(|t| t.additional_vips.as_ref().is_some_and(|a| a.len() == 2))
        );
        assert!(
            trees
                .iter()
                .any(|t| t.pools.iter().flatten().any(|p| p.healthmonitor.is_some()))
        );
    }
}
