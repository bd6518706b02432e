//! `ovn-db-sync` (seed 000 §7; role of `octavia-ovn-db-sync-util` / the driver's `do_sync`):
//! compare the desired load balancers (Octavia's view, as `provider` data models) with the NB,
//! and repair the NB in ONE transaction.
//!
//! How: the driver's own planners ([`crate::lb`], [`crate::listener`], [`crate::pool`],
//! [`crate::member`], [`crate::hm`]) run one after the other on a simulated copy of the NB
//! ([`sim`]), each step seeing the previous ones' rows; the transaction is the difference
//! between the real NB and the simulated one. A dry run plans the same and writes nothing.
//!
//! Per load balancer, in order (as `_ensure_loadbalancer` of the reference):
//! 1. no `Load_Balancer` row → created as `lb_create` does (VIP port, subnet, routers from
//!    Neutron: [`SyncFacts::lbs`]);
//!    then the flavor on every row (`flavor`: `keel:flavor`, the flavor's `options`, the
//!    hash fields of a row without pools) as the database's flavor profile says;
//! 2. on existing rows: listener keys of listeners Octavia no longer has removed, listener
//!    port / default pool / `:D` drift fixed, pool keys of unknown pools removed (with their
//!    members), pool `:D` drift fixed, `vips` re-framed;
//! 3. listeners and pools without any key → `listener_create` / `pool_create` (protocol rows
//!    created as needed);
//! 4. members: extra or drifted entries removed, missing ones added (`ls_refs`, routers,
//!    `ip_port_mappings` as `member_create`);
//! 5. health monitors: missing `Load_Balancer_Health_Check` rows → `hm_create`, option drift
//!    → `hm_update`, missing member mappings re-added, health checks of monitors Octavia no
//!    longer has → `hm_delete` (the reference's `hm_purge`);
//! 6. switch/router references: every switch of `ls_refs` (and the VIP switch) and router of
//!    `lr_ref` references the row.
//!
//! Without filters, rows carrying Octavia's keys ([`sim::is_octavia_row`]) whose load balancer
//! Octavia does not know are deleted with their references.
//!
//! Differences from the reference: one transaction for all of it (the reference commits
//! object by object), a dry run, and a purge of orphan rows.
//!
//! Files: this one holds the public types, the per-LB sequence (`Sim::sync_lb`, step 1) and
//! the entry points ([`plan`], [`sync`], [`Syncer`]); each step is its own file under
//! `sync/` (`flavor`, `keys`, `fip`, `members`, `health`, `references`), beside `facts` (Neutron
//! reads), `chunk` (the rows a chunk plans on), `report` (the status trees) and `purge`
//! (orphan rows).

use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;
use std::sync::Arc;

use openstack::NeutronClient;
use provider::{
    LoadBalancer, OperatingStatus as OpStatus, ProvisioningStatus as Prov, StatusReport,
};

use crate::edit::{Edit, LbRef};
use crate::external_ids::{self as ext, ListenerValue, ObjectKey};
use crate::hm::{self, HmReq};
use crate::lb;
use crate::listener::{self, ListenerReq};
use crate::member::{self, MemberReq};
use crate::nb::{NbSnapshot, Op};
use crate::ovsdb_nb::{NbDatabase, Written};
use crate::plan::Plan;
use crate::pool::{self, PoolReq};
use crate::ports::NeutronPorts;
use crate::requests::{self, member_subnet};
use crate::sim;
pub use crate::sim::SimError;

mod chunk;
mod facts;
mod fip;
mod flavor;
mod health;
mod keys;
mod members;
mod purge;
mod references;
mod report;

use chunk::chunk_view;

use crate::status::{self, Kind, put};
pub use facts::{FactsQuery, SyncFacts, gather_facts};

/// One difference found between Octavia and the NB.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// The load balancer.
    pub lb_id: String,
    /// What differs and what the sync does about it, e.g. `member M: missing from pool P,
    /// added`.
    pub what: String,
    /// What the planned transaction does about it.
    pub resolution: Resolution,
}

/// What a sync does about a [`Difference`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolution {
    /// The planned transaction repairs it (printed `fix`).
    Repaired,
    /// The NB stays wrong: a missing Neutron fact, a row the sync cannot rebuild (printed
    /// `unrepaired`; `keel ovn-db-sync` exits non-zero, recovery marks the LB ERROR).
    Unrepaired,
    /// Octavia asks for what one NB row cannot hold — pools of one protocol sharing a
    /// `Load_Balancer` row with different algorithms or persistence timeouts — and the row
    /// holds one of the wanted values, the last pool written (as the reference's row-level
    /// settings). Nothing to repair; printed `conflict` so the operator knows.
    Conflict,
}

impl Difference {
    /// True when the NB stays wrong after the sync ([`Resolution::Unrepaired`]).
    pub fn is_unrepaired(&self) -> bool {
        self.resolution == Resolution::Unrepaired
    }

    /// True when the planned transaction repairs it ([`Resolution::Repaired`]).
    pub fn is_repaired(&self) -> bool {
        self.resolution == Resolution::Repaired
    }
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tag = match self.resolution {
            Resolution::Repaired => "fix",
            Resolution::Unrepaired => "unrepaired",
            Resolution::Conflict => "conflict",
        };
        write!(f, "{} {}: {}", tag, self.lb_id, self.what)
    }
}

/// The outcome of planning a sync.
#[derive(Debug, Default)]
pub struct SyncPlan {
    /// Every difference found, in the order found (empty: nothing to do).
    pub differences: Vec<Difference>,
    /// Operations of ONE transaction repairing the NB (empty: nothing to write).
    pub ops: Vec<Op>,
    /// Per synced load balancer with a row, its status tree as the NB shows it after the
    /// repair (the reference's `_get_current_operating_statuses` re-sent to Octavia): every
    /// object ACTIVE with its operating status, health monitors ONLINE/OFFLINE.
    pub reports: Vec<StatusReport>,
}

/// How to run [`sync`].
#[derive(Debug, Clone, Default)]
pub struct SyncOptions {
    /// Plan and report only: no NB transaction, no Neutron port created.
    pub dry_run: bool,
    /// Delete Octavia rows ([`sim::is_octavia_row`]) of load balancers the database does not
    /// have that this deployment made ([`Purge`]). `None` (runs with filters): purge nothing.
    pub purge_unknown: Option<Purge>,
}

/// What a purge may delete: a row ([`sim::is_octavia_row`]) whose load balancer is not in
/// `known` and whose `neutron:vip_port_id` is in `owned_vip_ports`. A row of another
/// deployment (another Keel's database, the Python service) is left alone, logged.
#[derive(Debug, Clone, Default)]
pub struct Purge {
    /// Every LB id the Octavia database has (any provider, any status but DELETED).
    pub known: BTreeSet<String>,
    /// Ids of the VIP ports carrying this deployment's tag (`ports::deployment_tag`).
    pub owned_vip_ports: BTreeSet<String>,
}

/// Why a sync failed: the crate's one job error ([`SyncError::Nb`]: reading the NB or
/// committing; [`SyncError::Sim`]: a planner produced an operation the simulation cannot
/// apply, a bug).
pub use crate::error::JobError as SyncError;

/// The health monitor request of `h` on pool `pool_id`, as its create ([`requests::hm_req`]).
fn hm_req(h: &provider::HealthMonitor, pool_id: &str) -> HmReq {
    HmReq {
        pool_id: pool_id.to_string(),
        ..requests::hm_req(h, None)
    }
}

/// The simulated NB and what was found so far.
struct Sim<'a> {
    nb: NbSnapshot,
    seq: usize,
    diffs: Vec<Difference>,
    facts: &'a SyncFacts,
}

impl Sim<'_> {
    fn d(&mut self, lb_id: &str, what: String, repaired: bool) {
        let resolution = if repaired {
            Resolution::Repaired
        } else {
            Resolution::Unrepaired
        };
        self.found(lb_id, what, resolution);
    }

    fn found(&mut self, lb_id: &str, what: String, resolution: Resolution) {
        self.diffs.push(Difference {
            lb_id: lb_id.to_string(),
            what,
            resolution,
        });
    }

    fn apply(&mut self, ops: &[Op]) -> Result<(), SimError> {
        sim::apply(&mut self.nb, ops, &mut self.seq)
    }

    fn sync_lb(&mut self, lb: &LoadBalancer) -> Result<(), SimError> {
        let id = lb.loadbalancer_id.as_str();
        if self.nb.lbs_named(id).is_empty() {
            let Some(c) = self.facts.lbs.get(id) else {
                self.d(
                    id,
                    "no Load_Balancer row; its VIP port or subnet is not in Neutron".into(),
                    false,
                );
                return Ok(());
            };
            match lb::create(&self.nb, c) {
                Ok(p) => {
                    self.apply(&p.ops)?;
                    self.d(id, "no Load_Balancer row, created".into(), true);
                }
                Err(e) => {
                    self.d(id, format!("no Load_Balancer row: {e}"), false);
                    return Ok(());
                }
            }
        }
        let want = lb.admin_state_up.unwrap_or(true);
        let drift = self
            .nb
            .lbs_named(id)
            .iter()
            .any(|r| r.external_ids.get(ext::ENABLED) != Some(&lb::py_bool(want)));
        if drift && let Ok(p) = lb::update(&self.nb, id, Some(want)) {
            self.apply(&p.ops)?;
            self.d(id, format!("enabled → {}", lb::py_bool(want)), true);
        }
        self.flavor(lb)?;
        self.keys(lb)?;
        self.missing_listeners_and_pools(lb)?;
        self.pool_options(lb)?;
        self.vip_fip(lb)?;
        self.members(lb)?;
        self.stale_health_monitors(lb)?;
        self.health_monitors(lb)?;
        self.references(lb)?;
        Ok(())
    }
}

/// Plan the sync of `desired` against `snap` (pure): the differences, ONE repairing
/// transaction, the status reports. `purge`: see [`SyncOptions::purge_unknown`] (a purge
/// plans on every row; a plan without one only on the rows of `desired`, `chunk_view`).
/// Errors: only [`SimError`] (a planner emitted an operation the simulation cannot apply).
pub fn plan(
    snap: &NbSnapshot,
    desired: &[LoadBalancer],
    facts: &SyncFacts,
    purge: Option<&Purge>,
) -> Result<SyncPlan, SimError> {
    let view;
    let snap = if purge.is_some() {
        snap
    } else {
        view = chunk_view(snap, desired);
        &view
    };
    let mut s = Sim {
        nb: snap.clone(),
        seq: 0,
        diffs: Vec::new(),
        facts,
    };
    for lb in desired {
        s.sync_lb(lb)?;
    }
    if let Some(p) = purge {
        s.purge(p)?;
    }
    let reports = desired.iter().filter_map(|lb| s.report(lb)).collect();
    Ok(SyncPlan {
        ops: sim::diff(snap, &s.nb),
        differences: s.diffs,
        reports,
    })
}

/// Sync `desired` (Octavia's load balancers of provider `ovn`) into the NB: read the full
/// replica, read Neutron facts (when `neutron` is given; without it, missing rows and health
/// monitor mappings are reported unrepaired), plan ([`plan`]) and, unless `opts.dry_run`,
/// commit the ONE transaction. A transaction refused by a `wait` guard (another writer
/// changed a row) is re-planned, up to 3 attempts. Returns the plan (differences, ops,
/// status reports to send). Errors: NB reads/transaction, simulation. One call of a
/// [`Syncer`] (a run over many chunks keeps one [`Syncer`]).
pub async fn sync(
    nb: &dyn NbDatabase,
    neutron: Option<&NeutronClient>,
    desired: &[LoadBalancer],
    opts: &SyncOptions,
) -> Result<SyncPlan, SyncError> {
    Syncer::new(nb, neutron).sync(desired, opts).await
}

/// [`sync`] over a run of many chunks: the full NB snapshot (O(rows) to build) is read once
/// and kept for the whole run: after a chunk committed, only the rows it wrote are read again
/// ([`NbDatabase::refresh`]: the rows it inserted get their uuids from ovsdb-server), and the
/// whole snapshot only when a `wait` guard saw another writer. A snapshot kept across chunks is at worst older than
/// a concurrent change, which the guards of a writing plan catch as for [`sync`]. One
/// [`NeutronPorts`] (its subnet and HM-port caches) serves the whole run.
///
/// A caller that overlaps Neutron reads with NB writes asks [`Syncer::query`] for a chunk's
/// [`FactsQuery`], fetches it itself and hands the facts to [`Syncer::sync_with`].
pub struct Syncer<'a> {
    nb: &'a dyn NbDatabase,
    ports: Option<Arc<NeutronPorts>>,
    snap: Option<NbSnapshot>,
    times: SyncTimes,
}

/// Where a [`Syncer`]'s run spent its time, summed over its chunks (each stage's own
/// duration: a caller that overlaps stages measures its wall time itself).
#[derive(Debug, Clone, Copy, Default)]
pub struct SyncTimes {
    /// Building the full NB snapshot, and refreshing it after each commit.
    pub nb_read: std::time::Duration,
    /// Neutron reads of the facts the Syncer gathered itself ([`Syncer::sync`], re-plans).
    pub neutron: std::time::Duration,
    /// Planning ([`plan`]).
    pub plan: std::time::Duration,
    /// NB transactions, until the replica showed them.
    pub nb_write: std::time::Duration,
}

impl<'a> Syncer<'a> {
    /// A run against `nb` (Neutron facts through `neutron`, see [`sync`]); nothing read yet.
    pub fn new(nb: &'a dyn NbDatabase, neutron: Option<&'a NeutronClient>) -> Self {
        Self {
            nb,
            ports: neutron.map(|n| Arc::new(NeutronPorts::new(n.clone(), None))),
            snap: None,
            times: SyncTimes::default(),
        }
    }

    /// The run's Neutron port work, shared (`None`: the run has no Neutron).
    pub fn ports(&self) -> Option<Arc<NeutronPorts>> {
        self.ports.clone()
    }

    /// The time spent so far, by stage.
    pub fn times(&self) -> SyncTimes {
        self.times
    }

    /// What `desired` asks Neutron, on the run's snapshot (read first if there is none).
    /// Errors: the NB read.
    pub async fn query(&mut self, desired: &[LoadBalancer]) -> Result<FactsQuery, SyncError> {
        let snap = self.snapshot().await?;
        let q = FactsQuery::of(&snap, desired);
        self.snap = Some(snap);
        Ok(q)
    }

    /// [`sync`] of one chunk `desired`, on the run's snapshot. Errors: as [`sync`].
    pub async fn sync(
        &mut self,
        desired: &[LoadBalancer],
        opts: &SyncOptions,
    ) -> Result<SyncPlan, SyncError> {
        let facts = self.gather(desired, opts).await?;
        self.sync_with(desired, facts, opts).await
    }

    /// [`Syncer::sync`] with the chunk's Neutron `facts` already read (the fetch of
    /// [`Syncer::query`]'s answer, or [`SyncFacts::default`] without Neutron). A re-plan after
    /// a concurrent NB change reads the facts again itself. Errors: as [`sync`].
    pub async fn sync_with(
        &mut self,
        desired: &[LoadBalancer],
        facts: SyncFacts,
        opts: &SyncOptions,
    ) -> Result<SyncPlan, SyncError> {
        let mut facts = facts;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let snap = self.snapshot().await?;
            let started = std::time::Instant::now();
            let plan = plan(&snap, desired, &facts, opts.purge_unknown.as_ref());
            self.times.plan += started.elapsed();
            let plan = plan?;
            if opts.dry_run || plan.ops.is_empty() {
                self.snap = Some(snap);
                return Ok(plan);
            }
            // written: the rows it wrote are read again; refused: the whole replica
            let started = std::time::Instant::now();
            let committed = self.nb.transact(&plan.ops).await;
            self.times.nb_write += started.elapsed();
            match committed {
                Ok(()) => {
                    let written = Written::of(
                        &plan.ops,
                        desired.iter().map(|lb| lb.loadbalancer_id.clone()),
                    );
                    let mut snap = snap;
                    // purged rows are not named after a desired LB: their names too
                    let purged = plan.differences.iter().map(|d| d.lb_id.clone());
                    let written = Written {
                        lb_names: written.lb_names.into_iter().chain(purged).collect(),
                        ..written
                    };
                    let started = std::time::Instant::now();
                    let refreshed = self.nb.refresh(&mut snap, &written).await;
                    self.times.nb_read += started.elapsed();
                    refreshed?;
                    self.snap = Some(snap);
                    return Ok(plan);
                }
                Err(e) if e.retry() && attempt < 3 => {
                    tracing::info!(error = %e, attempt, "re-planning the sync after a concurrent NB change");
                    facts = self.gather(desired, opts).await?;
                }
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// The run's snapshot, taken out (read first if there is none).
    async fn snapshot(&mut self) -> Result<NbSnapshot, SyncError> {
        if let Some(s) = self.snap.take() {
            return Ok(s);
        }
        let started = std::time::Instant::now();
        let snap = self.nb.full_snapshot().await;
        self.times.nb_read += started.elapsed();
        Ok(snap?)
    }

    /// The Neutron facts of `desired` on the run's snapshot (none without Neutron).
    async fn gather(
        &mut self,
        desired: &[LoadBalancer],
        opts: &SyncOptions,
    ) -> Result<SyncFacts, SyncError> {
        let query = self.query(desired).await?;
        let Some(ports) = &self.ports else {
            return Ok(SyncFacts::default());
        };
        let started = std::time::Instant::now();
        let facts = query.fetch(ports, !opts.dry_run).await;
        self.times.neutron += started.elapsed();
        Ok(facts)
    }
}

#[cfg(test)]
mod fixtures;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::sync::fixtures::*;

    #[test]
    fn repairs_keys_members_and_vips() {
        let s = nb();
        let SyncPlan {
            differences: diffs,
            ops,
            ..
        } = plan(&s, &[desired(80)], &SyncFacts::default(), None).unwrap();
        let text: Vec<String> = diffs.iter().map(|d| d.to_string()).collect();
        assert!(
            text.iter()
                .any(|t| t.contains("listener OLD: not in Octavia")),
            "{text:?}"
        );
        assert!(
            text.iter().any(|t| t.contains("member X: not in Octavia")),
            "{text:?}"
        );
        assert!(
            text.iter().any(|t| t.contains("member M2: missing")),
            "{text:?}"
        );
        assert!(
            text.iter()
                .any(|t| t.contains("listener L: listener_L=81:pool_P")),
            "{text:?}"
        );
        let row = ops
            .iter()
            .find_map(|o| match o {
                crate::nb::Op::Update { row, .. } => Some(row.clone()),
                _ => None,
            })
            .unwrap();
        let get = |c: &str| row.iter().find(|(k, _)| *k == c).map(|(_, v)| v.clone());
        let Some(crate::nb::Datum::Map(ids)) = get("external_ids") else {
            panic!()
        };
        assert_eq!(ids["listener_L"], "80:pool_P");
        assert!(!ids.contains_key("listener_OLD"));
        assert_eq!(
            ids["pool_P"],
            "member_M1_10.0.0.10:80_S,member_M2_10.0.0.11:80_S"
        );
        let Some(crate::nb::Datum::Map(vips)) = get("vips") else {
            panic!()
        };
        assert_eq!(vips["10.0.0.5:80"], "10.0.0.10:80,10.0.0.11:80");
        // the row had no selection_fields: an unset algorithm's fields are written
        let Some(crate::nb::Datum::Set(fields)) = get("selection_fields") else {
            panic!()
        };
        assert_eq!(fields, ["ip_src", "ip_dst", "tp_src", "tp_dst"]);

        // applied: nothing left to do
        let mut fixed = s.clone();
        let r = fixed.load_balancers.get_mut("u1").unwrap();
        r.external_ids = ids;
        r.vips = vips;
        r.selection_fields = fields;
        let SyncPlan {
            differences: diffs,
            ops,
            ..
        } = plan(&fixed, &[desired(80)], &SyncFacts::default(), None).unwrap();
        assert!(diffs.is_empty(), "{diffs:?}");
        assert!(ops.is_empty());
    }

    #[test]
    fn missing_rows_are_reported() {
        let SyncPlan {
            differences: diffs,
            ops,
            ..
        } = plan(
            &NbSnapshot::default(),
            &[desired(80)],
            &SyncFacts::default(),
            None,
        )
        .unwrap();
        assert_eq!(diffs.len(), 1);
        assert!(diffs[0].is_unrepaired());
        assert!(ops.is_empty());
    }

    #[test]
    fn creates_the_whole_graph_then_finds_nothing() {
        let mut s = topology();
        let diffs = run(&mut s, None);
        assert!(diffs.iter().all(Difference::is_repaired), "{diffs:?}");
        let rows = s.lbs_named("LB");
        assert_eq!(rows.len(), 1);
        let r = rows[0].clone();
        assert_eq!(r.protocol.as_deref(), Some("tcp"));
        assert_eq!(r.external_ids["listener_L"], "80:pool_P");
        assert_eq!(r.external_ids["pool_P"], "member_M1_10.0.0.10:8080_sub1");
        assert_eq!(r.external_ids["neutron:vip_port_id"], "vp");
        assert_eq!(r.external_ids["ls_refs"], r#"{"neutron-net1": 2}"#);
        assert_eq!(r.external_ids["lr_ref"], "neutron-r1");
        assert_eq!(r.external_ids["octavia:healthmonitors"], r#"["H"]"#);
        assert_eq!(r.vips["10.0.0.5:80"], "10.0.0.10:8080");
        assert_eq!(r.ip_port_mappings["10.0.0.10"], "port-a:10.0.0.2");
        assert_eq!(r.selection_fields, ["ip_dst", "ip_src", "tp_dst", "tp_src"]);
        assert_eq!(r.health_check.len(), 1);
        let hc = &s.health_checks[&r.health_check[0]];
        assert_eq!(hc.vip, "10.0.0.5:80");
        assert_eq!(hc.options["interval"], "5");
        assert!(s.switches["ls1"].load_balancer.contains(&r.uuid));
        assert!(s.routers["lr1"].load_balancer.contains(&r.uuid));
        let report = plan(&s, &[graph()], &facts(), None).unwrap();
        assert!(report.differences.is_empty(), "{:?}", report.differences);
        assert!(report.ops.is_empty());
        let st = &report.reports[0];
        assert_eq!(st.members[0].operating_status, Some(OpStatus::Online));
        assert_eq!(
            st.healthmonitors[0].operating_status,
            Some(OpStatus::Online)
        );
        assert_eq!(st.loadbalancers[0].provisioning_status, Some(Prov::Active));
    }
}
