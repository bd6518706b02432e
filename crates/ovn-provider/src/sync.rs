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

use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;

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
use crate::nb::{NbSnapshot, Op, ops_json};
use crate::ovsdb_nb::{NbDatabase, Written};
use crate::plan::Plan;
use crate::pool::{self, PoolReq};
use crate::requests::{self, member_subnet};
use crate::sim;
pub use crate::sim::SimError;

mod facts;
mod fip;
mod health;
mod keys;
mod members;
mod references;

use crate::status::{self, Kind, put};
pub use facts::{SyncFacts, gather_facts};

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

    /// The status tree of a synced LB as the simulated NB shows it.
    fn report(&self, lb: &LoadBalancer) -> Option<StatusReport> {
        let id = lb.loadbalancer_id.as_str();
        let rows = self.nb.lbs_named(id);
        if rows.is_empty() {
            return None;
        }
        let mut report = StatusReport::default();
        let mut lb_op: Option<OpStatus> = None;
        for row in &rows {
            let mut tree = status::operating_tree(id, &row.external_ids);
            // one LB status over all its protocol rows: the worst one
            if let Some(r) = tree.loadbalancers.pop() {
                lb_op = match (lb_op, r.operating_status) {
                    (Some(a), Some(b)) => Some(worse(a, b)),
                    (a, b) => a.or(b),
                };
            }
            status::merge(&mut report, tree);
        }
        put(
            &mut report,
            Kind::LoadBalancer,
            id,
            Some(Prov::Active),
            lb_op,
        );
        for p in lb.pools.iter().flatten() {
            if let Some(h) = &p.healthmonitor {
                let enabled = h.admin_state_up.unwrap_or(true);
                if !enabled || !self.nb.health_checks_of(&h.healthmonitor_id).is_empty() {
                    let op = if enabled {
                        OpStatus::Online
                    } else {
                        OpStatus::Offline
                    };
                    put(
                        &mut report,
                        Kind::HealthMonitor,
                        &h.healthmonitor_id,
                        Some(Prov::Active),
                        Some(op),
                    );
                }
            }
        }
        Some(report)
    }

    /// Rows carrying Octavia's keys whose LB is unknown and whose VIP port is this
    /// deployment's: deleted with their references ([`Purge`]).
    fn purge(&mut self, purge: &Purge) -> Result<(), SimError> {
        let mut names = BTreeSet::new();
        for r in self.nb.load_balancers.values() {
            if !sim::is_octavia_row(&r.external_ids) || purge.known.contains(&r.name) {
                continue;
            }
            let port = r.external_ids.get(crate::external_ids::VIP_PORT_ID);
            if port.is_some_and(|p| purge.owned_vip_ports.contains(p)) {
                names.insert(r.name.clone());
            } else {
                tracing::info!(lb = %r.name, vip_port = ?port,
                    "Load_Balancer row of a load balancer this database does not have, not made by this deployment: left alone");
            }
        }
        for name in names {
            let plan = lb::delete(&self.nb, &name, false);
            self.apply(&plan.ops)?;
            self.d(
                &name,
                "Load_Balancer row of a load balancer Octavia does not have, deleted".into(),
                true,
            );
        }
        Ok(())
    }
}

fn worse(a: OpStatus, b: OpStatus) -> OpStatus {
    let rank = |o: OpStatus| match o {
        OpStatus::Error => 4,
        OpStatus::Degraded => 3,
        OpStatus::Online => 1,
        _ => 2,
    };
    if rank(b) > rank(a) { b } else { a }
}

/// The part of `snap` the sync of `desired` reads and writes: the `Load_Balancer` rows named
/// after a desired LB, holding one of its pools or registering one of its health monitors;
/// the health checks those rows reference or those monitors own; every switch, router and
/// port (small tables). Planning a chunk on this copy, not on a copy of every row, keeps a run
/// over N load balancers O(N) instead of O(N²).
fn chunk_view(snap: &NbSnapshot, desired: &[LoadBalancer]) -> NbSnapshot {
    let names: BTreeSet<&str> = desired.iter().map(|l| l.loadbalancer_id.as_str()).collect();
    let pools: BTreeSet<&str> = desired
        .iter()
        .flat_map(|l| l.pools.iter().flatten())
        .map(|p| p.pool_id.as_str())
        .collect();
    let mut hms: BTreeSet<String> = desired
        .iter()
        .flat_map(|l| l.pools.iter().flatten())
        .filter_map(|p| p.healthmonitor.as_ref())
        .map(|h| h.healthmonitor_id.clone())
        .collect();
    let mut view = NbSnapshot {
        health_check_supported: snap.health_check_supported,
        switches: snap.switches.clone(),
        switch_ports: snap.switch_ports.clone(),
        routers: snap.routers.clone(),
        router_ports: snap.router_ports.clone(),
        source: snap.source.clone(),
        ..Default::default()
    };
    let mut rows: BTreeSet<&str> = BTreeSet::new();
    for n in &names {
        rows.extend(snap.lbs_named(n).iter().map(|r| r.uuid.as_str()));
    }
    for p in &pools {
        rows.extend(
            snap.load_balancers
                .candidates(&crate::row_index::IndexKey::Pool((*p).to_string()))
                .iter()
                .map(|r| r.uuid.as_str()),
        );
    }
    if !hms.is_empty() {
        // a monitor registered on a row of another LB (the planners look it up by id)
        rows.extend(
            snap.load_balancers
                .values()
                .filter(|r| {
                    ext::parse_healthmonitors(&r.external_ids)
                        .iter()
                        .any(|h| hms.contains(h))
                })
                .map(|r| r.uuid.as_str()),
        );
    }
    let mut hcs: BTreeSet<&str> = BTreeSet::new();
    for u in rows {
        if let Some(r) = snap.load_balancers.get(u) {
            hcs.extend(r.health_check.iter().map(String::as_str));
            hms.extend(ext::parse_healthmonitors(&r.external_ids));
            view.load_balancers.insert(u.to_string(), r.clone());
        }
    }
    for (u, h) in snap.health_checks.iter() {
        let owned = h
            .external_ids
            .get(ext::HC_HEALTHMONITOR)
            .is_some_and(|m| hms.contains(m));
        if owned || hcs.contains(u.as_str()) {
            view.health_checks.insert(u.clone(), h.clone());
        }
    }
    view
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
/// a concurrent change, which the guards of a writing plan catch as for [`sync`].
pub struct Syncer<'a> {
    nb: &'a dyn NbDatabase,
    neutron: Option<&'a NeutronClient>,
    snap: Option<NbSnapshot>,
}

impl<'a> Syncer<'a> {
    /// A run against `nb` (Neutron facts through `neutron`, see [`sync`]); nothing read yet.
    pub fn new(nb: &'a dyn NbDatabase, neutron: Option<&'a NeutronClient>) -> Self {
        Self {
            nb,
            neutron,
            snap: None,
        }
    }

    /// [`sync`] of one chunk `desired`, on the run's snapshot. Errors: as [`sync`].
    pub async fn sync(
        &mut self,
        desired: &[LoadBalancer],
        opts: &SyncOptions,
    ) -> Result<SyncPlan, SyncError> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let snap = match self.snap.take() {
                Some(s) => s,
                None => self.nb.full_snapshot().await?,
            };
            let facts = match self.neutron {
                Some(n) => gather_facts(n, &snap, desired, !opts.dry_run).await,
                None => SyncFacts::default(),
            };
            let plan = plan(&snap, desired, &facts, opts.purge_unknown.as_ref())?;
            if opts.dry_run || plan.ops.is_empty() {
                self.snap = Some(snap);
                return Ok(plan);
            }
            // written: the rows it wrote are read again; refused: the whole replica
            match self.nb.transact(ops_json(&plan.ops)).await {
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
                    self.nb.refresh(&mut snap, &written).await?;
                    self.snap = Some(snap);
                    return Ok(plan);
                }
                Err(e) if e.retry && attempt < 3 => {
                    tracing::info!(error = %e, attempt, "re-planning the sync after a concurrent NB change");
                }
                Err(e) => return Err(e.into()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lb::LbCreate;
    use crate::plan::SubnetInfo;
    use crate::sim;
    use provider::{Listener, Member, Pool};
    use serde_json::json;

    fn nb() -> NbSnapshot {
        let mut s = NbSnapshot {
            health_check_supported: true,
            ..Default::default()
        };
        s.insert_json(
            "Load_Balancer",
            "u1",
            &json!({"name": "LB", "protocol": "tcp",
            "external_ids": ["map", [["neutron:vip", "10.0.0.5"], ["enabled", "True"],
                ["listener_L", "81:pool_P"], ["listener_OLD", "90:"],
                ["pool_P", "member_M1_10.0.0.10:80_S,member_X_10.0.0.99:80_S"]]],
            "vips": ["map", [["10.0.0.5:81", "10.0.0.10:80,10.0.0.99:80"]]]}),
        );
        s
    }

    fn desired(port: u16) -> LoadBalancer {
        LoadBalancer {
            loadbalancer_id: "LB".into(),
            listeners: Some(vec![Listener {
                listener_id: "L".into(),
                protocol_port: Some(port),
                default_pool_id: Some(Some("P".into())),
                ..Default::default()
            }]),
            pools: Some(vec![Pool {
                pool_id: "P".into(),
                members: Some(vec![
                    Member {
                        member_id: "M1".into(),
                        address: Some("10.0.0.10".into()),
                        protocol_port: Some(80),
                        ..Default::default()
                    },
                    Member {
                        member_id: "M2".into(),
                        address: Some("10.0.0.11".into()),
                        protocol_port: Some(80),
                        subnet_id: Some("S".into()),
                        ..Default::default()
                    },
                ]),
                ..Default::default()
            }]),
            ..Default::default()
        }
    }

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

    fn topology() -> NbSnapshot {
        let mut s = NbSnapshot {
            health_check_supported: true,
            ..Default::default()
        };
        s.insert_json(
            "Logical_Switch",
            "ls1",
            &json!({"name": "neutron-net1",
            "ports": ["set", [["uuid", "lsp-r"], ["uuid", "lsp-a"]]]}),
        );
        s.insert_json(
            "Logical_Switch_Port",
            "lsp-r",
            &json!({"name": "pr", "type": "router",
            "options": ["map", [["router-port", "lrp-pr"]]],
            "external_ids": ["map", [["neutron:device_owner", "network:router_interface"],
                ["neutron:cidrs", "10.0.0.1/24"]]]}),
        );
        s.insert_json(
            "Logical_Switch_Port",
            "lsp-a",
            &json!({"name": "port-a", "addresses": "fa:16:3e:00:00:0a 10.0.0.10"}),
        );
        s.insert_json(
            "Logical_Router",
            "lr1",
            &json!({"name": "neutron-r1", "ports": ["set", [["uuid", "lrp1"]]]}),
        );
        s.insert_json(
            "Logical_Router_Port",
            "lrp1",
            &json!({"name": "lrp-pr",
            "networks": "10.0.0.1/24",
            "external_ids": ["map", [["neutron:network_name", "neutron-net1"]]]}),
        );
        s
    }

    fn graph() -> LoadBalancer {
        LoadBalancer {
            loadbalancer_id: "LB".into(),
            vip_address: Some("10.0.0.5".into()),
            vip_network_id: Some("net1".into()),
            vip_subnet_id: Some("sub1".into()),
            vip_port_id: Some("vp".into()),
            admin_state_up: Some(true),
            listeners: Some(vec![Listener {
                listener_id: "L".into(),
                protocol: Some("TCP".into()),
                protocol_port: Some(80),
                default_pool_id: Some(Some("P".into())),
                ..Default::default()
            }]),
            pools: Some(vec![Pool {
                pool_id: "P".into(),
                protocol: Some("TCP".into()),
                listener_id: Some("L".into()),
                lb_algorithm: Some("SOURCE_IP_PORT".into()),
                members: Some(vec![Member {
                    member_id: "M1".into(),
                    address: Some("10.0.0.10".into()),
                    protocol_port: Some(8080),
                    ..Default::default()
                }]),
                healthmonitor: Some(provider::HealthMonitor {
                    healthmonitor_id: "H".into(),
                    delay: Some(5),
                    timeout: Some(3),
                    max_retries: Some(2),
                    max_retries_down: Some(3),
                    ..Default::default()
                }),
                ..Default::default()
            }]),
            ..Default::default()
        }
    }

    fn facts() -> SyncFacts {
        let sub = SubnetInfo {
            id: "sub1".into(),
            network_id: "net1".into(),
            cidr: "10.0.0.0/24".into(),
        };
        let mut f = SyncFacts::default();
        f.lbs.insert(
            "LB".into(),
            LbCreate {
                id: "LB".into(),
                vip_address: "10.0.0.5".into(),
                vip_port_id: "vp".into(),
                vip_subnet: sub.clone(),
                enabled: true,
                additional_vips: vec![],
            },
        );
        f.members.subnets.insert("sub1".into(), sub);
        f.members.hm_source.insert("sub1".into(), "10.0.0.2".into());
        f
    }

    /// Plan, apply to `s` as ovsdb-server would, and return the differences.
    fn run(s: &mut NbSnapshot, purge: Option<&Purge>) -> Vec<Difference> {
        static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(1);
        let p = plan(s, &[graph()], &facts(), purge).unwrap();
        // uuids unique across runs, as ovsdb-server's
        let mut seq = 1000 * RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        sim::apply(s, &p.ops, &mut seq).unwrap();
        p.differences
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

    #[test]
    fn repairs_references_vips_strays_and_purges_orphans() {
        let mut s = topology();
        run(&mut s, None);
        let good = s.lbs_named("LB")[0].clone();
        let u = good.uuid.clone();
        // drift: off the switch, vips altered, a stray member, a stale health check
        s.switches.get_mut("ls1").unwrap().load_balancer.clear();
        let r = s.load_balancers.get_mut(&u).unwrap();
        r.vips.insert("10.0.0.5:80".into(), "10.9.9.9:1".into());
        r.external_ids.insert(
            "pool_P".into(),
            "member_M1_10.0.0.10:8080_sub1,member_X_10.0.0.99:80_sub1".into(),
        );
        s.insert_json(
            "Load_Balancer_Health_Check",
            "hc-old",
            &json!({"vip": "10.0.0.5:80",
            "external_ids": ["map", [["octavia:healthmonitor", "OLD"], ["octavia:pool_id", "P"]]]}),
        );
        s.load_balancers
            .get_mut(&u)
            .unwrap()
            .health_check
            .push("hc-old".into());
        // an orphan Octavia row of this deployment, one of another deployment (its VIP port
        // not ours) and a Neutron port-forwarding row
        s.insert_json(
            "Load_Balancer",
            "orphan",
            &json!({"name": "GONE",
            "external_ids": ["map", [["neutron:vip_port_id", "p"], ["enabled", "True"]]]}),
        );
        s.insert_json(
            "Load_Balancer",
            "foreign",
            &json!({"name": "OTHER",
            "external_ids": ["map", [["neutron:vip_port_id", "q"], ["enabled", "True"]]]}),
        );
        s.insert_json(
            "Load_Balancer",
            "pf",
            &json!({"name": "pf-floatingip-x-tcp",
            "external_ids": ["map", [["neutron:device_owner", "port_forwarding_plugin"],
                ["neutron:vip_port_id", "p"], ["enabled", "True"]]]}),
        );
        let known = Purge {
            known: ["LB".to_string()].into(),
            owned_vip_ports: ["p".to_string()].into(),
        };
        let diffs = run(&mut s, Some(&known));
        let text: Vec<String> = diffs.iter().map(|d| d.to_string()).collect();
        for want in [
            "member X: not in Octavia",
            "not referenced by switch neutron-net1",
            "vips drifted",
            "health monitor OLD: not in Octavia",
            "fix GONE: Load_Balancer row",
        ] {
            assert!(text.iter().any(|t| t.contains(want)), "{want}: {text:?}");
        }
        assert!(!s.load_balancers.contains_key("orphan"));
        assert!(s.load_balancers.contains_key("foreign"), "not ours: kept");
        assert!(!text.iter().any(|t| t.contains("OTHER")), "{text:?}");
        assert!(s.load_balancers.contains_key("pf"));
        let fixed = s.lbs_named("LB")[0].clone();
        assert_eq!(fixed.external_ids, good.external_ids);
        assert_eq!(fixed.vips, good.vips);
        assert_eq!(fixed.health_check, good.health_check);
        assert!(s.switches["ls1"].load_balancer.contains(&u));
        assert!(run(&mut s, Some(&known)).is_empty());
    }

    /// A chunk is planned on its own rows only (`chunk_view`): with 40 unrelated LB rows
    /// around (their own pools, monitors, health checks and switch references), creating the graph and repairing its drift give
    /// exactly the differences and operations of a plan on an NB holding only the topology
    /// and the synced LB's rows, and the unrelated rows are never touched.
    #[test]
    fn a_chunk_plans_the_same_among_unrelated_rows() {
        let crowd = |s: &mut NbSnapshot| {
            for i in 0..40 {
                let u = format!("other{i}");
                s.insert_json(
                    "Load_Balancer_Health_Check",
                    &format!("hc{i}"),
                    &json!({"vip": "10.1.0.5:80", "external_ids": ["map", [
                        ["octavia:healthmonitor", format!("HM{i}")]]]}),
                );
                s.insert_json(
                    "Load_Balancer",
                    &u,
                    &json!({"name": format!("LB{i}"), "protocol": "tcp",
                    "health_check": ["uuid", format!("hc{i}")],
                    "external_ids": ["map", [["neutron:vip_port_id", format!("p{i}")],
                        ["enabled", "True"], [format!("pool_Q{i}"), "member_A_10.1.0.9:80_sub1"],
                        ["octavia:healthmonitors", format!("[\"HM{i}\"]")]]]}),
                );
                s.switches
                    .get_mut("ls1")
                    .unwrap()
                    .load_balancer
                    .push(u.clone());
            }
        };
        let (mut alone, mut crowded) = (topology(), topology());
        crowd(&mut crowded);
        let before = crowded.clone();
        for step in 0..2 {
            let a = plan(&alone, &[graph()], &facts(), None).unwrap();
            let c = plan(&crowded, &[graph()], &facts(), None).unwrap();
            assert_eq!(a.differences, c.differences, "step {step}");
            // the switch reference mutations list only the synced rows: same operations
            assert_eq!(a.ops, c.ops, "step {step}");
            let (mut s1, mut s2) = (1000 * (step + 1), 1000 * (step + 1));
            sim::apply(&mut alone, &a.ops, &mut s1).unwrap();
            sim::apply(&mut crowded, &c.ops, &mut s2).unwrap();
            // drift for the second round: the graph's row loses its vips
            for s in [&mut alone, &mut crowded] {
                let u = s.lbs_named("LB")[0].uuid.clone();
                s.load_balancers.get_mut(&u).unwrap().vips.clear();
            }
        }
        for i in 0..40 {
            let u = format!("other{i}");
            assert_eq!(crowded.load_balancers[&u], before.load_balancers[&u]);
            assert!(crowded.switches["ls1"].load_balancer.contains(&u));
        }
    }

    /// Row-level pool settings and health-check `vip`s that drifted are repaired; a second
    /// plan finds nothing.
    #[test]
    fn repairs_selection_fields_affinity_timeout_and_health_check_vips() {
        let mut s = topology();
        run(&mut s, None);
        let u = s.lbs_named("LB")[0].uuid.clone();
        // damage: wrong fields, a stale timeout, a health check probing the wrong port, and a
        // FIP recorded on the row without its health check
        let r = s.load_balancers.get_mut(&u).unwrap();
        r.selection_fields = vec!["ip_src".into()];
        r.options.insert("affinity_timeout".into(), "99".into());
        r.external_ids
            .insert(ext::VIP_FIP.into(), "172.24.4.9".into());
        r.vips = crate::vips::frame_vips(&r.external_ids);
        let hc = r.health_check[0].clone();
        s.health_checks.get_mut(&hc).unwrap().vip = "10.0.0.5:99".into();
        let diffs = run(&mut s, None);
        let text: Vec<String> = diffs.iter().map(|d| d.to_string()).collect();
        assert!(diffs.iter().all(Difference::is_repaired), "{text:?}");
        assert!(
            text.iter().any(|t| t.contains("selection_fields")),
            "{text:?}"
        );
        assert!(
            text.iter().any(|t| t.contains("affinity_timeout")),
            "{text:?}"
        );
        assert!(
            text.iter()
                .any(|t| t.contains("vip \"10.0.0.5:99\" → \"10.0.0.5:80\"")),
            "{text:?}"
        );
        let r = &s.load_balancers[&u];
        assert_eq!(r.selection_fields, ["ip_dst", "ip_src", "tp_dst", "tp_src"]);
        assert!(!r.options.contains_key("affinity_timeout"));
        let mut vips: Vec<(String, String)> = r
            .health_check
            .iter()
            .map(|h| {
                let hc = &s.health_checks[h];
                (hc.vip.clone(), hc.external_ids["octavia:vip"].clone())
            })
            .collect();
        vips.sort();
        assert_eq!(
            vips,
            [
                ("10.0.0.5:80".to_string(), "10.0.0.5".to_string()),
                ("172.24.4.9:80".to_string(), "172.24.4.9".to_string())
            ]
        );
        assert!(run(&mut s, None).is_empty());

        // session persistence in Octavia: the timeout comes back (default 360 for a null one)
        let mut g = graph();
        g.pools.as_mut().unwrap()[0].session_persistence =
            Some(json!({"type": "SOURCE_IP", "persistence_timeout": null}));
        let p = plan(&s, &[g], &facts(), None).unwrap();
        let mut seq = 2000;
        sim::apply(&mut s, &p.ops, &mut seq).unwrap();
        assert_eq!(s.load_balancers[&u].options["affinity_timeout"], "360");
    }

    /// IPv6: a health check whose `vip` lost its brackets is rewritten as `[v6]:port`.
    /// Two pools of one protocol sharing a row with different algorithms: a conflict while the
    /// row holds one pool's fields (nothing written; recovery does not mark the LB ERROR), a
    /// repair to the first pool's when it holds neither.
    #[test]
    fn pools_sharing_a_row_with_different_algorithms_are_a_conflict() {
        let mut s = topology();
        let mut g = graph();
        g.pools.as_mut().unwrap().push(Pool {
            pool_id: "P2".into(),
            protocol: Some("TCP".into()),
            lb_algorithm: Some("SOURCE_IP".into()),
            ..Default::default()
        });
        let mut seq = 7000;
        let mut sync = |s: &mut NbSnapshot| {
            let p = plan(s, std::slice::from_ref(&g), &facts(), None).unwrap();
            sim::apply(s, &p.ops, &mut seq).unwrap();
            (p.differences, p.ops.is_empty())
        };
        sync(&mut s);
        let u = s.lbs_named("LB")[0].uuid.clone();
        assert!(s.load_balancers[&u].external_ids.contains_key("pool_P2"));
        let (diffs, nothing_written) = sync(&mut s);
        assert!(nothing_written, "{diffs:?}");
        assert_eq!(diffs.len(), 1, "{diffs:?}");
        assert_eq!(diffs[0].resolution, Resolution::Conflict, "{diffs:?}");
        assert!(
            diffs[0].to_string().starts_with("conflict LB: row "),
            "{diffs:?}"
        );
        assert!(!diffs[0].is_unrepaired());

        s.load_balancers.get_mut(&u).unwrap().selection_fields = vec!["tp_dst".into()];
        let (diffs, _) = sync(&mut s);
        assert_eq!(diffs.len(), 1, "{diffs:?}");
        assert!(diffs[0].is_repaired(), "{diffs:?}");
        assert_eq!(
            s.load_balancers[&u].selection_fields,
            ["ip_dst", "ip_src", "tp_dst", "tp_src"]
        );
        let (diffs, nothing_written) = sync(&mut s);
        assert!(nothing_written && diffs.iter().all(|d| d.resolution == Resolution::Conflict));
    }

    #[test]
    fn repairs_an_ipv6_health_check_vip() {
        let mut s = NbSnapshot {
            health_check_supported: true,
            ..Default::default()
        };
        s.insert_json(
            "Load_Balancer_Health_Check",
            "hc1",
            &json!({"vip": "fd00::5:80", "options": ["map", [["interval", "5"], ["timeout", "3"],
                ["success_count", "2"], ["failure_count", "3"]]],
                "external_ids": ["map", [["octavia:healthmonitor", "H"], ["octavia:pool_id", "P"],
                    ["octavia:vip", "fd00::5"]]]}),
        );
        s.insert_json(
            "Load_Balancer",
            "u6",
            &json!({"name": "LB", "protocol": "tcp",
                "selection_fields": ["set", ["ip_dst", "ip_src", "tp_dst", "tp_src"]],
                "health_check": ["set", [["uuid", "hc1"]]],
                "external_ids": ["map", [["neutron:vip", "fd00::5"], ["enabled", "True"],
                    ["neutron:vip_port_id", "vp"], ["listener_L", "80:pool_P"], ["pool_P", ""],
                    ["octavia:healthmonitors", "[\"H\"]"]]]}),
        );
        let mut g = graph();
        g.vip_address = Some("fd00::5".into());
        g.pools.as_mut().unwrap()[0].members = Some(vec![]);
        let p = plan(&s, &[g], &SyncFacts::default(), None).unwrap();
        let upd = p.ops.iter().find_map(|o| match o {
            Op::Update {
                table: "Load_Balancer_Health_Check",
                uuid,
                row,
            } => Some((uuid.clone(), row.clone())),
            _ => None,
        });
        assert_eq!(
            upd,
            Some((
                "hc1".to_string(),
                vec![("vip", crate::nb::Datum::Str("[fd00::5]:80".into()))]
            )),
            "{:?}",
            p.differences
        );
    }

    /// `_fip_sync`: the FIP Neutron and the VIP switch port agree on is recorded on the row
    /// (with its `vips` entry and health check); a disagreement is reported unrepaired; a FIP
    /// gone from both is removed from the row.
    #[test]
    fn fip_sync() {
        let mut s = topology();
        let vp = |s: &mut NbSnapshot, fip: Option<&str>| {
            let mut ids = vec![json!(["neutron:port_name", "ovn-lb-vip-LB"])];
            if let Some(f) = fip {
                ids.push(json!(["neutron:port_fip", f]));
            }
            s.insert_json(
                "Logical_Switch_Port",
                "lsp-vp",
                &json!({"name": "vp", "addresses": "fa:16:3e:00:00:05 10.0.0.5",
                    "external_ids": ["map", ids]}),
            );
        };
        vp(&mut s, Some("172.24.4.9"));
        let with_fip = |fip: Option<&str>| {
            let mut f = facts();
            f.vip_fips.insert("LB".into(), fip.map(String::from));
            f
        };
        let go = |s: &mut NbSnapshot, f: &SyncFacts| {
            let p = plan(s, &[graph()], f, None).unwrap();
            static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(1);
            let mut seq = 5000 * RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            sim::apply(s, &p.ops, &mut seq).unwrap();
            p.differences
        };
        go(&mut s, &with_fip(Some("172.24.4.9")));
        let r = s.lbs_named("LB")[0].clone();
        assert_eq!(r.external_ids[ext::VIP_FIP], "172.24.4.9");
        assert_eq!(r.vips["172.24.4.9:80"], "10.0.0.10:8080");
        let mut hcs: Vec<String> = r
            .health_check
            .iter()
            .map(|h| s.health_checks[h].vip.clone())
            .collect();
        hcs.sort();
        assert_eq!(hcs, ["10.0.0.5:80", "172.24.4.9:80"]);
        assert!(go(&mut s, &with_fip(Some("172.24.4.9"))).is_empty());

        // Neutron and the port disagree: reported, nothing written
        let d = go(&mut s, &with_fip(Some("172.24.4.10")));
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(d[0].is_unrepaired());
        assert_eq!(
            s.lbs_named("LB")[0].external_ids[ext::VIP_FIP],
            "172.24.4.9"
        );

        // the FIP is gone from Neutron and from the port: removed from the row
        vp(&mut s, None);
        let d = go(&mut s, &with_fip(None));
        assert!(
            d.iter().all(Difference::is_repaired) && !d.is_empty(),
            "{d:?}"
        );
        let r = s.lbs_named("LB")[0].clone();
        assert!(!r.external_ids.contains_key(ext::VIP_FIP));
        assert!(!r.vips.contains_key("172.24.4.9:80"));
        assert_eq!(r.health_check.len(), 1);
        assert!(go(&mut s, &with_fip(None)).is_empty());
    }
}
