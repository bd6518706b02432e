//! The agent (seed 000 "agent"; the reference's `agent.py` + `event.py`): run by exactly ONE
//! Keel process at a time, the holder of the NB lock [`AGENT_LOCK`]. It follows the NB and SB
//! change streams and queues the work they imply on the driver's queues:
//!
//! * SB `Service_Monitor` update/delete → member operating status + recomputed tree
//!   ([`crate::hm::service_monitor_update`]).
//! * NB `Logical_Router_Port` create/delete and VIP `Logical_Switch_Port` FIP changes → the
//!   event planners of [`crate::events`].
//! * NB `Port_Group` rows of Keel's `allowed_cidrs` losing a port (the anchor's switch port
//!   deleted by Neutron: a router interface removed, a gateway moved) → the LB's rows
//!   re-anchored ([`anchor_lost`], [`crate::cidrs::refresh_lb`]).
//! * A lagged stream, or the lock changing hands → a full re-read of the replicas
//!   ([`rescan_nb`], SB `Service_Monitor` rows).
//! * The maintenance tasks ([`crate::maintenance`]) beside the event loop, while holding the
//!   lock.
//!
//! The agent imports the driver, never the reverse.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use openstack::NeutronClient;

use crate::driver::{OvnConfig, OvnProvider};
use crate::events::{FipEvent, LrpEvent, port_ips, vip_port_lb};
use crate::external_ids as ext;
use crate::hm;
use crate::leadership::{AgentLocks, Leadership};
use crate::member;
use crate::ovsdb_nb::NbDatabase;
use crate::ports::{PORT_FIP, PORT_NAME};
use crate::sb::{self, MonitorStatus, ServiceMonitorRow};
use crate::scope::Scope;

pub use crate::leadership::AGENT_LOCK;

/// What a full re-read of the NB replica finds to do, after the agent's change-event stream
/// reported lost events (`Lagged`): the events it may have missed, rebuilt from the current
/// rows. The reference's IDL never drops events, so it has no counterpart; Keel's bounded
/// event channel can, and then rescans instead of silently missing work.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rescan {
    /// Every router interface, as if just created (`lrp_created` adds only missing
    /// associations, so re-applying one is harmless).
    pub router_ports: Vec<LrpEvent>,
    /// VIP ports whose `neutron:port_fip` disagrees with the load balancer's recorded FIP:
    /// an association not yet recorded, or a recorded main-VIP FIP the port no longer has.
    pub fips: Vec<FipEvent>,
    /// Load balancer ids with `allowed_cidrs` rows (Keel's `Port_Group`s), re-anchored as if
    /// one of their anchors had just gone (a refresh that finds nothing to change writes
    /// the same values).
    pub anchors: Vec<String>,
}

/// The load balancer id of a Keel `allowed_cidrs` `Port_Group` row (`keel:owner` and
/// `keel:lb_id` of its `external_ids`); `None` for any other row.
fn keel_group_lb(row: &ovsdb::Row) -> Option<String> {
    (row.map_get("external_ids", crate::cidrs::OWNER_KEY) == Some(crate::cidrs::OWNER))
        .then(|| row.map_get("external_ids", crate::cidrs::LB_KEY))
        .flatten()
        .map(String::from)
}

/// The load balancer whose `allowed_cidrs` rows must be re-anchored after `change`: an update
/// of one of Keel's `Port_Group` rows whose `ports` lost a member (OVSDB drops a deleted
/// switch port from the weak `ports` reference by itself, so the group no longer filters on
/// that switch). A group that only gained ports (Keel's own refresh) gives `None`.
pub fn anchor_lost(change: &ovsdb::Change) -> Option<String> {
    let ovsdb::Change::Update { table, old, new } = change else {
        return None;
    };
    if table != "Port_Group" {
        return None;
    }
    let now = new.get_uuid_set("ports");
    let lost = old.get_uuid_set("ports").iter().any(|u| !now.contains(u));
    if lost { keel_group_lb(new) } else { None }
}

/// Rebuild the agent's NB work from the replica `snap` (tables `Logical_Router_Port`,
/// `Logical_Switch_Port`, `Load_Balancer`, Keel's `Port_Group` rows). Additional-VIP FIPs
/// that disappeared are not detected (the row does not say which additional port had which
/// FIP).
pub fn rescan_nb(snap: &ovsdb::Snapshot) -> Rescan {
    let mut out = Rescan::default();
    if let Some(t) = snap.table("Logical_Router_Port") {
        out.router_ports = t
            .rows()
            .filter_map(|r| LrpEvent::from_row(r, true))
            .collect();
        out.router_ports
            .sort_by(|a, b| (&a.router, &a.network).cmp(&(&b.router, &b.network)));
    }
    if let Some(t) = snap.table("Port_Group") {
        let lbs: std::collections::BTreeSet<String> =
            t.rows().filter_map(|r| keel_group_lb(r)).collect();
        out.anchors = lbs.into_iter().collect();
    }
    let (Some(lsps), Some(lbs)) = (
        snap.table("Logical_Switch_Port"),
        snap.table("Load_Balancer"),
    ) else {
        return out;
    };
    for port in lsps.rows() {
        let Some((lb_id, additional)) = port
            .map_get("external_ids", PORT_NAME)
            .and_then(vip_port_lb)
        else {
            continue;
        };
        let rows = lbs.find_all_by_name(&lb_id);
        let Some(first) = rows.first() else { continue };
        let ids = first.get_map("external_ids");
        let current = port
            .map_get("external_ids", PORT_FIP)
            .filter(|f| !f.is_empty());
        let event = |fip: &str, associate: bool| FipEvent {
            lb_id: lb_id.clone(),
            fip: fip.to_string(),
            associate,
            additional,
            port: port.get_str("name").unwrap_or_default().to_string(),
            related: port_ips(port),
        };
        if additional {
            let recorded = ext::parse_list(&ids, ext::ADDITIONAL_VIP_FIPS);
            if let Some(f) = current.filter(|f| !recorded.iter().any(|r| r == f)) {
                out.fips.push(event(f, true));
            }
            continue;
        }
        let recorded = ids.get(ext::VIP_FIP).filter(|f| !f.is_empty());
        match (current, recorded) {
            (Some(c), Some(r)) if c == r.as_str() => {}
            (Some(c), Some(r)) => {
                out.fips.push(event(r, false));
                out.fips.push(event(c, true));
            }
            (Some(c), None) => out.fips.push(event(c, true)),
            (None, Some(r)) => out.fips.push(event(r, false)),
            (None, None) => {}
        }
    }
    out
}

/// The agent of one driver: the driver's NB, Neutron client and settings, and the driver's
/// per-load-balancer queues, where the work it finds is queued. Clones share everything,
/// the rescan counter included.
#[derive(Clone)]
pub struct Agent {
    nb: Arc<dyn NbDatabase>,
    /// Service credentials (the maintenance tasks).
    neutron: NeutronClient,
    /// [`crate::ports::deployment_tag`] of the driver's VIP ports, if it tags them.
    vip_port_tag: Option<String>,
    config: OvnConfig,
    /// The driver, for its queues only.
    queues: OvnProvider,
    /// Full re-reads made after a lagged event stream ([`Agent::rescans`]).
    rescans: Arc<AtomicU64>,
}

impl Agent {
    /// The agent of `driver`, sharing its NB, Neutron client, settings and queues.
    pub fn new(driver: &OvnProvider) -> Self {
        Self {
            nb: driver.nb().clone(),
            neutron: driver.neutron().clone(),
            vip_port_tag: driver.vip_port_tag(),
            config: driver.config().clone(),
            queues: driver.clone(),
            rescans: Arc::default(),
        }
    }

    /// The NB the driver reads and writes.
    pub(crate) fn nb(&self) -> &Arc<dyn NbDatabase> {
        &self.nb
    }

    /// Neutron with the driver's service credentials.
    pub(crate) fn neutron(&self) -> &NeutronClient {
        &self.neutron
    }

    /// The deployment tag of the driver's VIP ports.
    pub(crate) fn vip_port_tag(&self) -> Option<String> {
        self.vip_port_tag.clone()
    }

    /// Agent duty: queue the member-status update a SB `Service_Monitor` change implies, on
    /// the queue of every load balancer monitoring that member (seed 000 §8).
    pub async fn service_monitor_event(&self, ev: hm::ServiceMonitorEvent) {
        let scope = Scope {
            member_ports: vec![ev.logical_port.clone()],
            mapping_keys: vec![member::mapping_key(ev.ip)],
            ..Default::default()
        };
        let Ok(snap) = self.nb().snapshot(&scope).await else {
            return;
        };
        for lb_id in hm::lbs_for_event(&snap, &ev) {
            self.queues.queue_service_monitor(lb_id, ev.clone());
        }
    }

    /// Agent duty: follow the SB `Service_Monitor` table of `sb` (a client monitoring it) and
    /// turn every status change or deletion into member statuses. Runs until the client's
    /// event stream closes; does not take the agent lock (see [`Agent::run`]).
    pub async fn follow_service_monitors(&self, sb: ovsdb::Client) {
        let mut rx = sb.subscribe();
        loop {
            let change = match rx.recv().await {
                Ok(c) => c,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => {
                    tracing::warn!(missed = n, "Service_Monitor events lagged: rescanning");
                    self.rescan_sb(&sb).await;
                    continue;
                }
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
            };
            if let Some(ev) = service_monitor_change(&change) {
                self.service_monitor_event(ev).await;
            }
        }
    }

    /// The agent (seed 000 "agent"; `agent.py`): compete for the agent role on `nb` (the
    /// client this driver writes through) and `sb` under [`AgentLocks::production`] — Keel's
    /// own NB lock [`AGENT_LOCK`] and the Python agent's lock on both databases, so that one
    /// agent of either kind is active ([`crate::leadership`]) — and, while this process is
    /// active, turn SB `Service_Monitor` changes of `sb`, NB `Logical_Router_Port`
    /// creates/deletes, VIP `Logical_Switch_Port` FIP changes and lost `allowed_cidrs`
    /// anchors into queued requests. When the holder's connection drops, ovsdb-server grants
    /// the locks to the next waiting process. Runs until both event streams close. Errors:
    /// only taking the first lock (invalid name, NB unreachable).
    pub async fn run(&self, nb: ovsdb::Client, sb: ovsdb::Client) -> Result<(), ovsdb::Error> {
        self.run_with_locks(nb, sb, AgentLocks::production()).await
    }

    /// [`Agent::run`] competing only with processes using the election lock
    /// `lock` (tests sharing an NB with a running Keel).
    pub async fn run_with_lock(
        &self,
        nb: ovsdb::Client,
        sb: ovsdb::Client,
        lock: &str,
    ) -> Result<(), ovsdb::Error> {
        self.run_with_locks(nb, sb, AgentLocks::own_only(lock))
            .await
    }

    /// [`Agent::run`] under the lock set `locks`.
    pub async fn run_with_locks(
        &self,
        nb: ovsdb::Client,
        sb: ovsdb::Client,
        locks: AgentLocks,
    ) -> Result<(), ovsdb::Error> {
        use tokio::sync::broadcast::error::RecvError;
        let mut nb_rx = nb.subscribe();
        let mut sb_rx = sb.subscribe();
        let lock = locks.own.as_str();
        let leadership = Leadership::start(nb.clone(), sb.clone(), locks.clone()).await?;
        let mut leader = leadership.active();
        let mut held = *leader.borrow();
        crate::metrics::AGENT_LOCK_HELD.set(i64::from(held));
        tracing::info!(lock, held, "OVN provider agent started");
        if held {
            // what changed while no agent ran (a restart, the lock free): from the replicas
            self.rescan_nb(&nb);
            self.rescan_sb(&sb).await;
        }
        // maintenance runs beside the event loop, only while this process holds the lock
        let maintenance = self.config.maintenance_period.map(|period| {
            let d = self.clone();
            let leader = leader.clone();
            tokio::spawn(async move { d.run_maintenance(period, leader).await })
        });
        let (mut nb_open, mut sb_open, mut lock_open) = (true, true, true);
        while nb_open || sb_open {
            let (from_nb, change) = tokio::select! {
                c = leader.changed(), if lock_open => {
                    if c.is_err() {
                        lock_open = false;
                        continue;
                    }
                    let now = *leader.borrow_and_update();
                    if now != held {
                        held = now;
                        crate::metrics::AGENT_LOCK_HELD.set(i64::from(held));
                        tracing::info!(lock, held, "OVN provider agent lock changed hands");
                        if held {
                            // events seen while another process held the lock (or while it
                            // died) were not ours to handle: catch up from the replicas
                            self.rescan_nb(&nb);
                            self.rescan_sb(&sb).await;
                        }
                    }
                    continue;
                }
                c = nb_rx.recv(), if nb_open => {
                    if matches!(c, Err(RecvError::Closed)) {
                        nb_open = false;
                    }
                    (true, c)
                }
                c = sb_rx.recv(), if sb_open => {
                    if matches!(c, Err(RecvError::Closed)) {
                        sb_open = false;
                    }
                    (false, c)
                }
            };
            let change = match change {
                Ok(c) => c,
                Err(RecvError::Lagged(n)) => {
                    // events were lost: what they would have caused is rebuilt from the replica
                    tracing::warn!(missed = n, nb = from_nb, "agent events lagged: rescanning");
                    if *leader.borrow() {
                        if from_nb {
                            self.rescan_nb(&nb);
                        } else {
                            self.rescan_sb(&sb).await;
                        }
                    }
                    continue;
                }
                Err(RecvError::Closed) => continue,
            };
            if !*leader.borrow() {
                continue;
            }
            self.agent_change(&change).await;
        }
        if let Some(m) = maintenance {
            m.abort();
        }
        drop(leadership);
        Ok(())
    }

    /// Full re-reads made after a lagged event stream, since this agent was made (for tests
    /// and metrics).
    pub fn rescans(&self) -> u64 {
        self.rescans.load(Ordering::Relaxed)
    }

    /// After lost NB events: queue every router-port association and every VIP FIP the
    /// replica shows unapplied ([`rescan_nb`]).
    fn rescan_nb(&self, nb: &ovsdb::Client) {
        self.rescans.fetch_add(1, Ordering::Relaxed);
        let found = rescan_nb(&nb.replica());
        tracing::info!(
            router_ports = found.router_ports.len(),
            fips = found.fips.len(),
            anchors = found.anchors.len(),
            "agent NB rescan"
        );
        for ev in found.router_ports {
            self.queues.queue_router_port(ev);
        }
        for ev in found.fips {
            self.queues.queue_vip_fip(ev);
        }
        for lb_id in found.anchors {
            self.queues.queue_anchors(lb_id);
        }
    }

    /// After lost SB events: every `Service_Monitor` row with a status is handled as if it
    /// had just changed (member statuses are recomputed from the current rows).
    async fn rescan_sb(&self, sb: &ovsdb::Client) {
        self.rescans.fetch_add(1, Ordering::Relaxed);
        let events: Vec<hm::ServiceMonitorEvent> = sb::rows(
            &sb.replica(),
            sb::SERVICE_MONITOR,
            ServiceMonitorRow::from_row,
        )
        .into_iter()
        .filter(|r| r.status.is_some())
        .map(|r| r.event(false))
        .collect();
        for ev in events {
            self.service_monitor_event(ev).await;
        }
    }

    /// One change seen by the lock holder.
    async fn agent_change(&self, change: &ovsdb::Change) {
        match (change.table(), change) {
            (sb::SERVICE_MONITOR, c) => {
                if let Some(ev) = service_monitor_change(c) {
                    self.service_monitor_event(ev).await;
                }
            }
            ("Logical_Router_Port", ovsdb::Change::Insert { new, .. }) => {
                if let Some(ev) = LrpEvent::from_row(new, true) {
                    self.queues.queue_router_port(ev);
                }
            }
            ("Logical_Router_Port", ovsdb::Change::Delete { old, .. }) => {
                if let Some(ev) = LrpEvent::from_row(old, false) {
                    self.queues.queue_router_port(ev);
                }
            }
            ("Logical_Switch_Port", ovsdb::Change::Update { old, new, .. }) => {
                if let Some(ev) = FipEvent::from_update(old, new) {
                    self.queues.queue_vip_fip(ev);
                }
            }
            ("Port_Group", c) => {
                if let Some(lb_id) = anchor_lost(c) {
                    tracing::info!(lb_id, "allowed_cidrs anchor lost: re-anchoring");
                    self.queues.queue_anchors(lb_id);
                }
            }
            _ => {}
        }
    }
}

/// The member-status event of a SB `Service_Monitor` change (`ServiceMonitorUpdateEvent`): a
/// status change, a new row with a status, or a deletion; `None` otherwise, and for a row
/// that does not decode ([`ServiceMonitorRow::from_row`], logged).
pub fn service_monitor_change(change: &ovsdb::Change) -> Option<hm::ServiceMonitorEvent> {
    if change.table() != sb::SERVICE_MONITOR {
        return None;
    }
    let decoded = |row: &ovsdb::Row| {
        ServiceMonitorRow::from_row(row)
            .inspect_err(|e| tracing::warn!(error = %e, "SB row ignored"))
            .ok()
    };
    match change {
        ovsdb::Change::Update { old, new, .. }
            if MonitorStatus::of(old) != MonitorStatus::of(new) =>
        {
            decoded(new).map(|r| r.event(false))
        }
        ovsdb::Change::Insert { new, .. } => decoded(new)
            .filter(|r| r.status.is_some())
            .map(|r| r.event(false)),
        ovsdb::Change::Delete { old, .. } => decoded(old).map(|r| r.event(true)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use super::anchor_lost;
    use crate::cidrs::{LB_KEY, OWNER, OWNER_KEY};

    fn group(ids: &[(&str, &str)], ports: &[ovsdb::Uuid]) -> Arc<ovsdb::Row> {
        let mut cols = BTreeMap::new();
        cols.insert(
            "external_ids".to_string(),
            ovsdb::Value::str_map(ids.iter().copied()),
        );
        cols.insert(
            "ports".to_string(),
            ovsdb::Value::uuid_set(ports.iter().copied()),
        );
        Arc::new(ovsdb::Row::new(ovsdb::Uuid::nil(), cols))
    }

    fn update(old: Arc<ovsdb::Row>, new: Arc<ovsdb::Row>) -> ovsdb::Change {
        ovsdb::Change::Update {
            table: "Port_Group".into(),
            old,
            new,
        }
    }

    #[test]
    fn a_port_leaving_keels_group_names_its_lb() {
        let (a, b) = (ovsdb::Uuid::from_u128(1), ovsdb::Uuid::from_u128(2));
        let ours = [(OWNER_KEY, OWNER), (LB_KEY, "lb-1")];
        let lost = update(group(&ours, &[a, b]), group(&ours, &[b]));
        assert_eq!(anchor_lost(&lost).as_deref(), Some("lb-1"));
        // gaining or swapping in place: a swap loses one too
        assert_eq!(
            anchor_lost(&update(group(&ours, &[a]), group(&ours, &[a, b]))),
            None
        );
        assert_eq!(
            anchor_lost(&update(group(&ours, &[a]), group(&ours, &[b]))).as_deref(),
            Some("lb-1")
        );
        // a group Keel does not own, another table, an insert: nothing
        let neutron = [("neutron:security_group_id", "sg")];
        assert_eq!(
            anchor_lost(&update(group(&neutron, &[a, b]), group(&neutron, &[b]))),
            None
        );
        let other = ovsdb::Change::Update {
            table: "Address_Set".into(),
            old: group(&ours, &[a]),
            new: group(&ours, &[]),
        };
        assert_eq!(anchor_lost(&other), None);
        let insert = ovsdb::Change::Insert {
            table: "Port_Group".into(),
            new: group(&ours, &[a]),
        };
        assert_eq!(anchor_lost(&insert), None);
    }
}
