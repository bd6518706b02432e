//! Recovery of accepted work: no load balancer stays PENDING_* after a restart, a crash or a
//! lost node (the stuck PENDING_* objects Octavia operators otherwise fix by hand in SQL).
//!
//! Every `keel serve` runs [`run`]. The Octavia database is the durable record of accepted
//! work: a write commits its objects as PENDING_* before the provider starts
//! (`provider::gate`), so the NB never holds what the database does not. Each period this
//! process
//! 1. renews the lease (`octavia_db::lease`) of the load balancers it has queued or running
//!    work for, or is recovering;
//! 2. looks for PENDING_* load balancers of provider `ovn` whose lease ended (at start-up also
//!    ACTIVE/ERROR ones with a PENDING_* child), and claims each (one claimant wins);
//! 3. completes what it claimed ([`Recovery::recover`]): a PENDING_DELETE load balancer is
//!    deleted as the API's cascade delete would (the driver's `loadbalancer_delete`: NB rows,
//!    VIP port, DELETED report, quota back); otherwise the NB is reconciled to the database
//!    with the `ovn-db-sync` logic — objects PENDING_DELETE left out, so they are removed — and the
//!    statuses are reported as the original request would have: DELETED for what was being
//!    deleted, ACTIVE (with the operating status NB shows) for the rest; ERROR, logged with the
//!    reason, when the NB could not be made to match;
//! 4. every [`PORT_SWEEP_PERIODS`] periods, and again a lease after a sweep found a candidate
//!    ([`sweep_due`]), deletes VIP ports (`ovn-lb-vip-<id>`) carrying this deployment's tag
//!    whose load balancer the database did not have at two sweeps a lease apart (an LB
//!    create that died between its port create and its commit). A port without
//!    the tag (the Python provider's, an older Keel's) or with another deployment's tag is
//!    never deleted: Keel deletes only what it can prove it made.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use octavia_db::lease::PendingLb;
use octavia_db::{Database, LoadBalancerRow};
use ovn_provider::sync::{self as nbsync, SyncOptions};
use ovn_provider::{NbDatabase, OvnProvider};
use provider::{
    ProviderDriver, ProvisioningStatus as Prov, StatusRecord, StatusReport, StatusSink,
};

/// Sweeps for orphan VIP ports happen every this many periods.
pub const PORT_SWEEP_PERIODS: u32 = 6;

/// Picks one kind's record list (members, pools, …) out of a status report.
type RecordsOf = fn(&mut StatusReport) -> &mut Vec<StatusRecord>;

/// Timing of recovery (`[keel] recovery_lease`, `recovery_period`).
#[derive(Debug, Clone)]
pub struct RecoveryConfig {
    /// A PENDING_* load balancer whose lease is older than this is taken over.
    pub lease: Duration,
    /// How often leases are renewed and orphans looked for (a third of the lease or less).
    pub period: Duration,
}

impl Default for RecoveryConfig {
    fn default() -> Self {
        Self {
            lease: Duration::from_secs(30),
            period: Duration::from_secs(10),
        }
    }
}

/// Why the recovery of one load balancer could not complete.
#[derive(Debug, thiserror::Error)]
pub enum RecoveryError {
    /// Reading the Octavia database.
    #[error("Octavia DB: {0}")]
    Db(String),
    /// Reconciling the NB.
    #[error(transparent)]
    Sync(#[from] nbsync::SyncError),
    /// Asking the driver to delete.
    #[error("OVN provider: {0}")]
    Provider(String),
}

fn db_err(e: impl std::fmt::Display) -> RecoveryError {
    RecoveryError::Db(e.to_string())
}

/// What recovery works with: the same database, driver, NB, Neutron and status updater as the
/// API of this process.
#[derive(Clone)]
pub struct Recovery {
    /// The Octavia database.
    pub db: Database,
    /// This process's OVN driver (its queues are the work this process owns).
    pub ovn: OvnProvider,
    /// The NB (the driver's connection).
    pub nb: Arc<dyn NbDatabase>,
    /// Neutron, service credentials.
    pub neutron: openstack::NeutronClient,
    /// The status updater.
    pub status: Arc<dyn StatusSink>,
    /// Lease length and renewal period.
    pub config: RecoveryConfig,
    /// Load balancers this process is recovering (their leases are renewed too).
    pub recovering: Arc<Mutex<HashSet<String>>>,
    /// The deployment tag of this deployment's VIP ports (`ovn_provider::driver::deployment_tag`,
    /// their `description`): the sweep looks only at ports carrying it.
    pub deployment_tag: String,
}

impl Recovery {
    fn owned(&self) -> Vec<String> {
        let mut own = self.ovn.busy_loadbalancers();
        if let Ok(r) = self.recovering.lock() {
            own.extend(r.iter().cloned());
        }
        own.sort_unstable();
        own.dedup();
        own
    }

    /// One period: renew, look for orphans, claim and start their recovery. `children`: also
    /// look under ACTIVE/ERROR load balancers (start-up). Returns the ids claimed.
    pub async fn tick(&self, children: bool) -> Result<Vec<String>, RecoveryError> {
        let own = self.owned();
        if !own.is_empty() {
            self.db
                .renew_leases(&own, octavia_db::now())
                .await
                .map_err(db_err)?;
        }
        let pending = self
            .db
            .pending_work("ovn", children)
            .await
            .map_err(db_err)?;
        let now = octavia_db::now();
        let cutoff = octavia_db::lease::cutoff(now, self.config.lease);
        let mut claimed = Vec::new();
        for p in pending {
            if own.contains(&p.id) || p.renewed_at.is_some_and(|t| t >= cutoff) {
                continue;
            }
            if self
                .db
                .claim_orphan(&p, cutoff, now)
                .await
                .map_err(db_err)?
            {
                tracing::warn!(
                    lb = %p.id,
                    provisioning_status = %p.provisioning_status,
                    renewed_at = ?p.renewed_at,
                    "taking over accepted work no live process is doing"
                );
                if let Ok(mut r) = self.recovering.lock() {
                    r.insert(p.id.clone());
                }
                claimed.push(p.id.clone());
                let me = self.clone();
                tokio::spawn(async move {
                    let id = p.id.clone();
                    if let Err(e) = me.recover(&p).await {
                        tracing::error!(lb = %id, error = %e, "recovery failed; retried after the lease");
                    }
                    if let Ok(mut r) = me.recovering.lock() {
                        r.remove(&id);
                    }
                });
            }
        }
        Ok(claimed)
    }

    /// Completes the work of one claimed load balancer (see the module doc).
    pub async fn recover(&self, p: &PendingLb) -> Result<(), RecoveryError> {
        let (row, tree) = {
            let mut tx = self.db.begin_read().await.map_err(db_err)?;
            let Some(row) = tx.find::<LoadBalancerRow>(&p.id).await.map_err(db_err)? else {
                return Ok(());
            };
            let tree = crate::sync::lb_tree(&mut tx, &row)
                .await
                .map_err(|e| RecoveryError::Db(e.to_string()))?;
            (row, tree)
        };
        let tree_status = TreeStatus::new(
            &row.id,
            self.db.tree_statuses(&row.id).await.map_err(db_err)?,
        );
        if row.provisioning_status == Prov::PendingDelete {
            // queued like the API's cascade delete: the job reports the LB and every child of
            // the tree DELETED (quota back), also when the NB rows are already gone
            self.ovn
                .loadbalancer_delete(tree, true)
                .await
                .map_err(|e| RecoveryError::Provider(e.to_string()))?;
            tracing::info!(lb = %row.id, "accepted delete queued by recovery");
            return Ok(());
        }
        let desired = tree_status.prune(tree);
        let outcome = nbsync::sync(
            self.nb.as_ref(),
            Some(&self.neutron),
            std::slice::from_ref(&desired),
            &SyncOptions {
                dry_run: false,
                purge_unknown: None,
            },
        )
        .await;
        let report = match outcome {
            Ok(plan) => {
                let unrepaired: Vec<String> = plan
                    .differences
                    .iter()
                    .filter(|d| d.is_unrepaired())
                    .map(|d| d.what.clone())
                    .collect();
                match plan.reports.into_iter().next() {
                    Some(r) if unrepaired.is_empty() => tree_status.complete(r),
                    _ => {
                        tracing::error!(
                            lb = %row.id,
                            why = ?unrepaired,
                            "accepted work could not be completed in the NB: ERROR"
                        );
                        tree_status.failed()
                    }
                }
            }
            Err(e) => {
                tracing::error!(lb = %row.id, error = %e, "NB reconcile failed: ERROR");
                tree_status.failed()
            }
        };
        self.status
            .update_status(report)
            .await
            .map_err(|e| RecoveryError::Db(e.fault_string))?;
        tracing::info!(lb = %row.id, "accepted work completed by recovery");
        Ok(())
    }

    /// Deletes VIP ports of this deployment (tagged [`Recovery::deployment_tag`]) whose load
    /// balancer the database lacked at a sweep at least a lease ago (`seen`, which keeps the
    /// candidates) and still lacks; returns the ports deleted.
    pub async fn sweep_vip_ports(
        &self,
        seen: &mut HashMap<String, Instant>,
    ) -> Result<Vec<String>, RecoveryError> {
        // by the tag alone: Keel's VIP ports carry no device_owner (ovn-provider
        // `ports::vip_port_create`), older Keel's carried `ovn-lb:vip`
        let filter = openstack::ListFilter::new().eq("description", self.deployment_tag.clone());
        let ports = self
            .neutron
            .list_ports(&filter)
            .await
            .map_err(|e| RecoveryError::Provider(e.to_string()))?;
        let by_lb: Vec<(String, String)> = ports
            .into_iter()
            // Neutron filtered on the tag; checked again so a filter it ignored deletes nothing
            .filter(|p| p.description == self.deployment_tag)
            .filter_map(|p| {
                let lb = p
                    .name
                    .strip_prefix(ovn_provider::driver::VIP_PORT_PREFIX)?
                    .to_owned();
                // a tagged port some device claimed since is not a VIP port any more
                if p.device_id != format!("lb-{lb}") {
                    return None;
                }
                Some((lb, p.id))
            })
            .collect();
        let ids: Vec<String> = by_lb.iter().map(|(lb, _)| lb.clone()).collect();
        let known: BTreeSet<String> = self
            .db
            .existing_lbs(&ids)
            .await
            .map_err(db_err)?
            .into_iter()
            .collect();
        let now = Instant::now();
        let mut deleted = Vec::new();
        let mut still = HashMap::new();
        for (lb, port) in by_lb {
            if known.contains(&lb) {
                continue;
            }
            match seen.get(&port) {
                Some(first) if now.duration_since(*first) >= self.config.lease => {
                    match self.neutron.delete_port(&port).await {
                        Ok(_) => {
                            tracing::warn!(lb = %lb, port = %port, "orphan VIP port deleted");
                            deleted.push(port);
                        }
                        Err(e) => {
                            tracing::warn!(port = %port, error = %e, "orphan VIP port not deleted");
                            // tried again a lease from now, not at every period (`sweep_due`)
                            still.insert(port, now);
                        }
                    }
                }
                Some(first) => {
                    still.insert(port, *first);
                }
                None => {
                    still.insert(port, now);
                }
            }
        }
        *seen = still;
        Ok(deleted)
    }
}

/// Whether period `n` sweeps for orphan VIP ports: every [`PORT_SWEEP_PERIODS`] periods, and
/// also as soon as a candidate of an earlier sweep (`seen`: port → first seen) is a `lease`
/// old, so a crashed LB create's port is gone about a lease after a sweep first saw it
/// rather than a whole sweep cycle later. The full port list is only read that often when
/// there is a candidate, which takes a crash.
pub fn sweep_due(n: u32, seen: &HashMap<String, Instant>, lease: Duration, now: Instant) -> bool {
    n.is_multiple_of(PORT_SWEEP_PERIODS)
        || seen
            .values()
            .any(|first| now.saturating_duration_since(*first) >= lease)
}

/// Runs recovery for the life of the process (module doc).
pub async fn run(r: Recovery) {
    let mut first = true;
    let mut n: u32 = 0;
    let mut seen = HashMap::new();
    let mut tick = tokio::time::interval(r.config.period);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        match r.tick(first).await {
            Ok(_) => first = false,
            Err(e) => tracing::warn!(error = %e, "recovery scan failed; next period"),
        }
        if sweep_due(n, &seen, r.config.lease, Instant::now())
            && let Err(e) = r.sweep_vip_ports(&mut seen).await
        {
            tracing::warn!(error = %e, "orphan VIP port sweep failed");
        }
        n = n.wrapping_add(1);
    }
}

/// Provisioning statuses of one load balancer's tree, by object id.
#[derive(Debug, Default)]
struct TreeStatus {
    lb: String,
    listeners: Vec<(String, String)>,
    pools: Vec<(String, String)>,
    members: Vec<(String, String)>,
    healthmonitors: Vec<(String, String)>,
}

impl TreeStatus {
    fn new(lb: &str, t: octavia_db::lease::TreeStatuses) -> Self {
        Self {
            lb: lb.to_owned(),
            listeners: t.listeners,
            pools: t.pools,
            members: t.members,
            healthmonitors: t.healthmonitors,
        }
    }

    fn deleting(v: &[(String, String)], id: &str) -> bool {
        v.iter().any(|(i, s)| i == id && *s == Prov::PendingDelete)
    }

    /// The tree as it must be in the NB: objects being deleted left out.
    fn prune(&self, mut lb: provider::LoadBalancer) -> provider::LoadBalancer {
        if let Some(ls) = lb.listeners.as_mut() {
            ls.retain(|l| !Self::deleting(&self.listeners, &l.listener_id));
        }
        if let Some(ps) = lb.pools.as_mut() {
            ps.retain(|p| !Self::deleting(&self.pools, &p.pool_id));
            for p in ps.iter_mut() {
                if let Some(ms) = p.members.as_mut() {
                    ms.retain(|m| !Self::deleting(&self.members, &m.member_id));
                }
                if p.healthmonitor
                    .as_ref()
                    .is_some_and(|h| Self::deleting(&self.healthmonitors, &h.healthmonitor_id))
                {
                    p.healthmonitor = None;
                }
            }
        }
        lb
    }

    fn kinds(&self) -> [(&[(String, String)], RecordsOf); 4] {
        [
            (&self.members, |r| &mut r.members),
            (&self.healthmonitors, |r| &mut r.healthmonitors),
            (&self.pools, |r| &mut r.pools),
            (&self.listeners, |r| &mut r.listeners),
        ]
    }

    /// The NB's status tree `r`, plus DELETED for what was being deleted and ACTIVE for any
    /// other PENDING_* object the tree did not name; the load balancer ACTIVE.
    fn complete(&self, mut r: StatusReport) -> StatusReport {
        for (objs, field) in self.kinds() {
            for (id, status) in objs {
                if !pending(status) {
                    continue;
                }
                let records = field(&mut r);
                if *status == Prov::PendingDelete {
                    records.retain(|x| &x.id != id);
                    records.push(record(id, Prov::Deleted));
                } else if !records.iter().any(|x| &x.id == id) {
                    records.push(record(id, Prov::Active));
                }
            }
        }
        if !r.loadbalancers.iter().any(|x| x.id == self.lb) {
            r.loadbalancers.push(record(&self.lb, Prov::Active));
        }
        r
    }

    /// ERROR for the load balancer and every PENDING_* object of its tree.
    fn failed(&self) -> StatusReport {
        let mut r = StatusReport::default();
        for (objs, field) in self.kinds() {
            for (id, status) in objs {
                if pending(status) {
                    field(&mut r).push(record(id, Prov::Error));
                }
            }
        }
        r.loadbalancers.push(record(&self.lb, Prov::Error));
        r
    }
}

fn record(id: &str, p: Prov) -> StatusRecord {
    StatusRecord {
        id: id.to_owned(),
        provisioning_status: Some(p),
        operating_status: None,
    }
}

/// True for a stored PENDING_* `provisioning_status` (an unknown text is not pending).
fn pending(status: &str) -> bool {
    Prov::parse(status).is_some_and(Prov::is_pending)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> TreeStatus {
        let s = |a: &str, b: &str| (a.to_string(), b.to_string());
        TreeStatus {
            lb: "LB".into(),
            listeners: vec![s("L1", "ACTIVE"), s("L2", "PENDING_DELETE")],
            pools: vec![s("P1", "PENDING_UPDATE")],
            members: vec![
                s("M1", "PENDING_CREATE"),
                s("M2", "PENDING_DELETE"),
                s("M3", "ACTIVE"),
            ],
            healthmonitors: vec![s("H1", "PENDING_DELETE")],
        }
    }

    #[test]
    fn a_candidate_port_is_swept_again_once_a_lease_old() {
        let lease = Duration::from_secs(30);
        let t0 = Instant::now();
        let mut seen = HashMap::new();
        // no candidate: only every PORT_SWEEP_PERIODS periods
        assert!(sweep_due(0, &seen, lease, t0));
        assert!(!sweep_due(1, &seen, lease, t0));
        assert!(sweep_due(PORT_SWEEP_PERIODS, &seen, lease, t0));
        seen.insert("p".to_string(), t0);
        // a candidate younger than the lease: still the cycle
        assert!(!sweep_due(1, &seen, lease, t0 + Duration::from_secs(29)));
        // a lease old: at once, whatever the cycle says
        assert!(sweep_due(3, &seen, lease, t0 + lease));
        assert!(sweep_due(4, &seen, lease, t0 + Duration::from_secs(45)));
    }

    #[test]
    fn prune_leaves_out_what_was_being_deleted() {
        let m = |id: &str| provider::Member {
            member_id: id.into(),
            ..Default::default()
        };
        let lb = provider::LoadBalancer {
            loadbalancer_id: "LB".into(),
            listeners: Some(vec![
                provider::Listener {
                    listener_id: "L1".into(),
                    ..Default::default()
                },
                provider::Listener {
                    listener_id: "L2".into(),
                    ..Default::default()
                },
            ]),
            pools: Some(vec![provider::Pool {
                pool_id: "P1".into(),
                members: Some(vec![m("M1"), m("M2"), m("M3")]),
                healthmonitor: Some(provider::HealthMonitor {
                    healthmonitor_id: "H1".into(),
                    ..Default::default()
                }),
                ..Default::default()
            }]),
            ..Default::default()
        };
        let out = tree().prune(lb);
        let ls: Vec<_> = out
            .listeners
            .unwrap()
            .into_iter()
            .map(|l| l.listener_id)
            .collect();
        assert_eq!(ls, ["L1"]);
        let p = &out.pools.unwrap()[0];
        let ms: Vec<_> = p
            .members
            .iter()
            .flatten()
            .map(|m| m.member_id.clone())
            .collect();
        assert_eq!(ms, ["M1", "M3"]);
        assert!(p.healthmonitor.is_none());
    }

    #[test]
    fn complete_reports_deleted_and_active_for_every_pending_object() {
        let nb = StatusReport {
            members: vec![StatusRecord {
                id: "M1".into(),
                provisioning_status: Some(Prov::Active),
                operating_status: Some(provider::OperatingStatus::NoMonitor),
            }],
            ..Default::default()
        };
        let r = tree().complete(nb);
        let st = |v: &[StatusRecord], id: &str| {
            v.iter()
                .find(|x| x.id == id)
                .and_then(|x| x.provisioning_status)
        };
        assert_eq!(st(&r.members, "M1"), Some(Prov::Active));
        assert_eq!(st(&r.members, "M2"), Some(Prov::Deleted));
        assert_eq!(
            st(&r.members, "M3"),
            None,
            "not pending: left as the NB says"
        );
        assert_eq!(st(&r.listeners, "L2"), Some(Prov::Deleted));
        assert_eq!(st(&r.pools, "P1"), Some(Prov::Active));
        assert_eq!(st(&r.healthmonitors, "H1"), Some(Prov::Deleted));
        assert_eq!(st(&r.loadbalancers, "LB"), Some(Prov::Active));
    }

    #[test]
    fn failed_marks_every_pending_object_error() {
        let r = tree().failed();
        assert_eq!(r.members.len(), 2);
        assert_eq!(r.listeners.len(), 1);
        assert!(
            r.loadbalancers
                .iter()
                .all(|x| x.provisioning_status == Some(Prov::Error))
        );
    }
}
