//! `OvnProvider`: the [`ProviderDriver`] of the OVN provider (seed 000, `driver.py` +
//! `helper.py` request handlers).
//!
//! Each method validates synchronously ([`crate::validate`]) and queues its work on the LB's
//! ordered queue ([`crate::queue`]). A job reads the NB replica ([`NbDatabase::snapshot`]),
//! reads Neutron where needed, plans ONE transaction ([`crate::lb`], [`crate::listener`],
//! [`crate::pool`], [`crate::member`], [`crate::hm`]), commits it, cleans up Neutron ports
//! that lost their last user, and sends ONE status report.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use openstack::{
    FixedIpRequest, ListFilter, NeutronClient, NeutronError, Port, PortCreate, Subnet,
};
use provider::{
    AdditionalVip, HealthMonitor, L7Policy, L7Rule, Listener, LoadBalancer, Member,
    OperatingStatus as Op, Pool, ProviderDriver, ProviderError, ProvisioningStatus as Prov,
    StatusReport, StatusSink, Vip,
};
use serde_json::Value;

use crate::agent;
use crate::external_ids as ext;
use crate::hm::{self, HmReq, HM_PORT_DEVICE_OWNER};
use crate::listener::{self, ListenerReq};
use crate::member::{self, MemberFacts, MemberReq};
use crate::nb::{ops_json, NbSnapshot};
use crate::plan::{Plan, PlanError, SubnetInfo};
use crate::pool::{self, PoolReq};
use crate::queue::LbQueues;
use crate::scope::Scope;
use crate::status::{put, Kind};
use crate::validate::{self, MemberSubnetCall};
use crate::{edit::Edit, lb};

/// Name prefix of provider-created VIP ports.
pub const VIP_PORT_PREFIX: &str = "ovn-lb-vip-";
/// `device_owner` of VIP ports (no `:distributed`: Neutron must not make them localports).
pub const VIP_PORT_DEVICE_OWNER: &str = "ovn-lb:vip";

/// Errors talking to the NB.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("OVN NB: {message}")]
pub struct NbError {
    /// What failed.
    pub message: String,
    /// True when re-planning from a fresh snapshot may succeed: a `wait` guard saw a
    /// concurrent change, or the connection/leader changed.
    pub retry: bool,
}

impl NbError {
    /// A permanent error.
    pub fn fatal(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            retry: false,
        }
    }
}

/// What the driver needs from the OVN NB: a snapshot of the replica, and transactions.
///
/// Implemented over the process's one long-lived `ovsdb` client (design.md).
#[async_trait]
pub trait NbDatabase: Send + Sync + 'static {
    /// A typed copy of the replica rows `scope` touches ([`crate::scope`]); an implementation
    /// may return more rows than asked for (a fake returns all it has).
    async fn snapshot(&self, scope: &Scope) -> Result<NbSnapshot, NbError>;
    /// Every row of [`crate::nb::TABLES`] (O(rows): `ovn-db-sync` and tests, never requests).
    async fn full_snapshot(&self) -> Result<NbSnapshot, NbError> {
        self.snapshot(&Scope::default()).await
    }
    /// Run one transaction (RFC 7047 operations on `OVN_Northbound`); returns once it
    /// committed AND the replica shows it, so the next request reads its effects.
    async fn transact(&self, ops: Vec<Value>) -> Result<(), NbError>;
}

/// Driver settings (octavia.conf `[ovn]`, subset).
#[derive(Debug, Clone)]
pub struct OvnConfig {
    /// The provider name reported to the API (`ovn`).
    pub name: String,
    /// Period of the agent's maintenance tasks ([`crate::maintenance`]; the reference's 600 s,
    /// first run when the agent takes the lock); `None` disables them.
    pub maintenance_period: Option<Duration>,
}

impl Default for OvnConfig {
    fn default() -> Self {
        Self {
            name: "ovn".into(),
            maintenance_period: Some(crate::maintenance::DEFAULT_PERIOD),
        }
    }
}

/// The OVN provider driver.
#[derive(Clone)]
pub struct OvnProvider {
    inner: Arc<Inner>,
}

struct Inner {
    nb: Arc<dyn NbDatabase>,
    neutron: NeutronClient,
    status: Arc<dyn StatusSink>,
    config: OvnConfig,
    queues: LbQueues,
    /// pool id → LB id for pools queued but maybe not yet in the NB.
    pool_lb: Mutex<HashMap<String, String>>,
    /// The VIP port (and its subnet) `create_vip_port` just made, by LB id: the queued LB
    /// create reads them instead of asking Neutron again (the port GET and subnet
    /// GET the reference makes there were ~2 round trips on top of the port create).
    vip_facts: Mutex<HashMap<String, VipFacts>>,
    /// Subnets and HM ports remembered between requests ([`crate::facts`]).
    facts: crate::facts::FactCache,
    /// Full re-reads the agent made after its event streams lagged ([`OvnProvider::agent_rescans`]).
    rescans: std::sync::atomic::AtomicU64,
}

/// What `create_vip_port` learnt from Neutron (ids, fixed IPs, network, CIDR: facts that do
/// not change under the LB create that follows within milliseconds).
struct VipFacts {
    at: Instant,
    port: Port,
    subnet: Option<Subnet>,
}

/// Entries of [`Inner::vip_facts`] older than this are dropped (an LB create rolled back).
const VIP_FACTS_TTL: Duration = Duration::from_secs(60);

/// One queued request.
#[derive(Debug, Clone)]
enum Request {
    LbCreate(LoadBalancer),
    LbUpdate {
        lb_id: String,
        enabled: Option<bool>,
    },
    LbDelete {
        lb: LoadBalancer,
        cascade: bool,
    },
    ListenerCreate(ListenerReq),
    ListenerUpdate {
        l: ListenerReq,
        enabled: Option<bool>,
        default_pool: Option<Option<String>>,
    },
    ListenerDelete(ListenerReq),
    PoolCreate(PoolReq),
    PoolUpdate {
        p: PoolReq,
        enabled: Option<bool>,
    },
    PoolDelete {
        p: PoolReq,
        hm_id: Option<String>,
        members: Vec<String>,
    },
    Members {
        lb_id: String,
        pool_id: String,
        create: Vec<MemberReq>,
        update: Vec<(String, Option<bool>)>,
        delete: Vec<String>,
    },
    MemberBatch {
        lb_id: String,
        pool_id: String,
        desired: Vec<MemberReq>,
    },
    HmCreate {
        lb_id: String,
        hm: HmReq,
    },
    HmUpdate {
        lb_id: String,
        hm: HmReq,
    },
    HmDelete {
        lb_id: String,
        hm_id: String,
        pool_id: String,
    },
    ServiceMonitor {
        lb_id: String,
        ev: hm::ServiceMonitorEvent,
    },
    RouterPort(agent::LrpEvent),
    VipFip(agent::FipEvent),
    /// A single-call (graph) LB create: the steps run in order and ONE report covering
    /// them all is sent after the last, so nothing of the call is ACTIVE before all of it is
    /// in NB; the first failing step reports ERROR for its object and for every
    /// object of the steps after it (never left PENDING_CREATE).
    Graph(Vec<Request>),
}

impl Request {
    /// The request's kind, for logs and metrics.
    fn kind(&self) -> &'static str {
        match self {
            Request::LbCreate(_) => "LbCreate",
            Request::LbUpdate { .. } => "LbUpdate",
            Request::LbDelete { .. } => "LbDelete",
            Request::ListenerCreate(_) => "ListenerCreate",
            Request::ListenerUpdate { .. } => "ListenerUpdate",
            Request::ListenerDelete(_) => "ListenerDelete",
            Request::PoolCreate(_) => "PoolCreate",
            Request::PoolUpdate { .. } => "PoolUpdate",
            Request::PoolDelete { .. } => "PoolDelete",
            Request::Members { .. } => "Members",
            Request::MemberBatch { .. } => "MemberBatch",
            Request::HmCreate { .. } => "HmCreate",
            Request::HmUpdate { .. } => "HmUpdate",
            Request::HmDelete { .. } => "HmDelete",
            Request::ServiceMonitor { .. } => "ServiceMonitor",
            Request::RouterPort(_) => "RouterPort",
            Request::VipFip(_) => "VipFip",
            Request::Graph(_) => "Graph",
        }
    }

    /// The NB rows the request starts from (see [`crate::scope`]).
    fn scope(&self) -> Scope {
        let with_pool = |lb_id: &str, pool_id: &str| Scope {
            lbs: vec![lb_id.to_string()],
            pools: vec![pool_id.to_string()],
            ..Default::default()
        };
        match self {
            Request::LbCreate(lb) | Request::LbDelete { lb, .. } => Scope::lb(&lb.loadbalancer_id),
            Request::LbUpdate { lb_id, .. } | Request::ServiceMonitor { lb_id, .. } => {
                Scope::lb(lb_id)
            }
            Request::ListenerCreate(l)
            | Request::ListenerDelete(l)
            | Request::ListenerUpdate { l, .. } => Scope::lb(&l.lb_id),
            Request::PoolCreate(p) => Scope::lb(&p.lb_id),
            Request::PoolUpdate { p, .. } | Request::PoolDelete { p, .. } => {
                with_pool(&p.lb_id, &p.id)
            }
            Request::Members { lb_id, pool_id, .. }
            | Request::MemberBatch { lb_id, pool_id, .. }
            | Request::HmDelete { lb_id, pool_id, .. } => with_pool(lb_id, pool_id),
            Request::HmCreate { lb_id, hm } | Request::HmUpdate { lb_id, hm } => {
                with_pool(lb_id, &hm.pool_id)
            }
            Request::RouterPort(ev) => Scope {
                switches: vec![ev.network.clone()],
                lbs_on_switches: vec![ev.network.clone()],
                lbs_on_routers: vec![ev.router.clone()],
                ..Default::default()
            },
            Request::VipFip(ev) => Scope::lb(&ev.lb_id),
            Request::Graph(steps) => steps.first().map(Request::scope).unwrap_or_default(),
        }
    }
}

fn neutron_text(e: &NeutronError) -> String {
    match e.fault() {
        Some(f) if !f.message.is_empty() => f.message.clone(),
        _ => e.to_string(),
    }
}

fn ip(s: &Option<String>) -> Option<IpAddr> {
    s.as_deref().and_then(|a| a.parse().ok())
}

impl OvnProvider {
    /// Build the driver over the process's NB client (its monitor must include
    /// [`crate::ovsdb_nb::monitor_spec`]), Neutron (service credentials) and the status sink.
    pub fn new(
        nb: ovsdb::Client,
        neutron: NeutronClient,
        status: Arc<dyn StatusSink>,
        config: OvnConfig,
    ) -> Self {
        Self::with_nb(
            Arc::new(crate::ovsdb_nb::OvsdbNb::new(nb)),
            neutron,
            status,
            config,
        )
    }

    /// Build the driver over any [`NbDatabase`].
    pub fn with_nb(
        nb: Arc<dyn NbDatabase>,
        neutron: NeutronClient,
        status: Arc<dyn StatusSink>,
        config: OvnConfig,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                nb,
                neutron,
                status,
                config,
                queues: LbQueues::new(),
                pool_lb: Mutex::new(HashMap::new()),
                vip_facts: Mutex::new(HashMap::new()),
                facts: crate::facts::FactCache::default(),
                rescans: std::sync::atomic::AtomicU64::new(0),
            }),
        }
    }

    /// Agent duty: queue the member-status update a SB `Service_Monitor` change implies, on
    /// the queue of every load balancer monitoring that member (seed 000 §8).
    pub async fn service_monitor_event(&self, ev: hm::ServiceMonitorEvent) {
        let scope = Scope {
            member_ports: vec![ev.logical_port.clone()],
            mapping_keys: vec![member::mapping_key(ev.ip)],
            ..Default::default()
        };
        let Ok(snap) = self.inner.nb.snapshot(&scope).await else {
            return;
        };
        for lb_id in hm::lbs_for_event(&snap, &ev) {
            self.enqueue(
                &lb_id.clone(),
                Request::ServiceMonitor {
                    lb_id,
                    ev: ev.clone(),
                },
            );
        }
    }

    /// Agent duty: follow the SB `Service_Monitor` table of `sb` (a client monitoring it) and
    /// turn every status change or deletion into member statuses. Runs until the client's
    /// event stream closes; does not take the agent lock (see [`OvnProvider::run_agent`]).
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

    /// The agent (seed 000 "agent"; `agent.py`): take the NB lock [`agent::AGENT_LOCK`] on
    /// `nb` (the client this driver writes through) and, while this process holds it, turn
    /// SB `Service_Monitor` changes of `sb`, NB `Logical_Router_Port` creates/deletes and VIP
    /// `Logical_Switch_Port` FIP changes into queued requests. Exactly one process holds the
    /// lock; when its connection drops, ovsdb-server grants it to the next waiting process
    /// (`locked` notification). Runs until both event streams close. Errors: only taking
    /// the lock (invalid name, NB unreachable).
    pub async fn run_agent(
        &self,
        nb: ovsdb::Client,
        sb: ovsdb::Client,
    ) -> Result<(), ovsdb::Error> {
        self.run_agent_with_lock(nb, sb, agent::AGENT_LOCK).await
    }

    /// [`OvnProvider::run_agent`] with another lock name (tests sharing an NB with a running
    /// Keel).
    pub async fn run_agent_with_lock(
        &self,
        nb: ovsdb::Client,
        sb: ovsdb::Client,
        lock: &str,
    ) -> Result<(), ovsdb::Error> {
        use tokio::sync::broadcast::error::RecvError;
        let mut nb_rx = nb.subscribe();
        let mut sb_rx = sb.subscribe();
        let mut leader = nb.lock(lock).await?;
        let mut held = *leader.borrow();
        crate::metrics::AGENT_LOCK_HELD.set(i64::from(held));
        tracing::info!(lock, held, "OVN provider agent started");
        if held {
            // what changed while no agent ran (a restart, the lock free): from the replicas
            self.rescan_nb(&nb);
            self.rescan_sb(&sb).await;
        }
        // maintenance runs beside the event loop, only while this process holds the lock
        let maintenance = self.inner.config.maintenance_period.map(|period| {
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
        Ok(())
    }

    /// Full re-reads made after a lagged event stream, since this driver was built (for tests
    /// and metrics).
    pub fn agent_rescans(&self) -> u64 {
        self.inner
            .rescans
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// After lost NB events: queue every router-port association and every VIP FIP the
    /// replica shows unapplied ([`agent::rescan_nb`]).
    fn rescan_nb(&self, nb: &ovsdb::Client) {
        self.inner
            .rescans
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let found = agent::rescan_nb(&nb.replica());
        tracing::info!(
            router_ports = found.router_ports.len(),
            fips = found.fips.len(),
            "agent NB rescan"
        );
        for ev in found.router_ports {
            self.enqueue(&format!("lrp:{}", ev.router), Request::RouterPort(ev));
        }
        for ev in found.fips {
            self.enqueue(&ev.lb_id.clone(), Request::VipFip(ev));
        }
    }

    /// After lost SB events: every `Service_Monitor` row with a status is handled as if it
    /// had just changed (member statuses are recomputed from the current rows).
    async fn rescan_sb(&self, sb: &ovsdb::Client) {
        self.inner
            .rescans
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let snap = sb.replica();
        let Some(t) = snap.table("Service_Monitor") else {
            return;
        };
        let events: Vec<hm::ServiceMonitorEvent> = t
            .rows()
            .filter(|r| r.get_str("status").is_some_and(|s| !s.is_empty()))
            .filter_map(|r| service_monitor_from_row(r, false))
            .collect();
        for ev in events {
            self.service_monitor_event(ev).await;
        }
    }

    /// One change seen by the lock holder.
    async fn agent_change(&self, change: &ovsdb::Change) {
        match (change.table(), change) {
            ("Service_Monitor", c) => {
                if let Some(ev) = service_monitor_change(c) {
                    self.service_monitor_event(ev).await;
                }
            }
            ("Logical_Router_Port", ovsdb::Change::Insert { new, .. }) => {
                if let Some(ev) = agent::LrpEvent::from_row(new, true) {
                    self.enqueue(&format!("lrp:{}", ev.router), Request::RouterPort(ev));
                }
            }
            ("Logical_Router_Port", ovsdb::Change::Delete { old, .. }) => {
                if let Some(ev) = agent::LrpEvent::from_row(old, false) {
                    self.enqueue(&format!("lrp:{}", ev.router), Request::RouterPort(ev));
                }
            }
            ("Logical_Switch_Port", ovsdb::Change::Update { old, new, .. }) => {
                if let Some(ev) = agent::FipEvent::from_update(old, new) {
                    self.enqueue(&ev.lb_id.clone(), Request::VipFip(ev));
                }
            }
            _ => {}
        }
    }

    /// The NB this driver reads and writes.
    pub(crate) fn nb(&self) -> &Arc<dyn NbDatabase> {
        &self.inner.nb
    }

    /// The Neutron client (service credentials).
    pub(crate) fn neutron(&self) -> &NeutronClient {
        &self.inner.neutron
    }

    /// Queues with work in progress (for tests and metrics).
    pub fn busy_queues(&self) -> usize {
        self.inner.queues.active()
    }

    /// Load balancers with queued or running work (the lease the recovery of accepted work
    /// keeps alive for this process).
    pub fn busy_loadbalancers(&self) -> Vec<String> {
        self.inner.queues.keys()
    }

    /// Waits until every queue is empty, at most `bound`; true when drained.
    pub async fn drain(&self, bound: Duration) -> bool {
        self.inner.queues.idle(bound).await
    }

    /// Queues `req` behind `lb_id`'s work. The job runs in a `provider_job` span (kind, LB)
    /// under the span that queued it — an API request's, so its log lines and its status
    /// report carry that request's id — and feeds the job metrics.
    fn enqueue(&self, lb_id: &str, req: Request) {
        use tracing::Instrument;
        let inner = self.inner.clone();
        // Queued by an API call inside its SQL transaction: NB work only after the commit,
        // so the database always holds (as PENDING_*) what the NB may already show.
        let gate = provider::gate::current();
        let lb = lb_id.to_owned();
        let kind = req.kind();
        let span = tracing::info_span!("provider_job", kind, lb_id = %lb_id);
        let queued = std::time::Instant::now();
        crate::metrics::JOBS_PENDING.inc();
        self.inner.queues.submit(
            lb_id,
            Box::pin(
                async move {
                    let committed = match gate {
                        Some(g) => g.committed().await,
                        None => true,
                    };
                    if committed {
                        inner.handle(req).await;
                        let secs = queued.elapsed().as_secs_f64();
                        crate::metrics::JOB_SECONDS
                            .with_label_values(&[kind])
                            .observe(secs);
                        crate::metrics::JOBS.with_label_values(&[kind]).inc();
                        tracing::info!(ms = secs * 1000.0, "provider job done");
                    } else {
                        tracing::debug!(lb = %lb, "request rolled back before its work started");
                    }
                    crate::metrics::JOBS_PENDING.dec();
                }
                .instrument(span),
            ),
        );
    }

    async fn snapshot(&self, scope: &Scope) -> Result<NbSnapshot, ProviderError> {
        self.inner
            .nb
            .snapshot(scope)
            .await
            .map_err(|e| ProviderError::driver(e.to_string()))
    }

    /// The LB owning a pool: the NB row, else a pool queued by this process, else `None`.
    async fn lb_of_pool(&self, pool_id: &str) -> Option<String> {
        if let Ok(snap) = self.inner.nb.snapshot(&Scope::pool(pool_id)).await {
            if let Some((row, _)) = snap.lb_by_pool(pool_id) {
                return Some(row.name.clone());
            }
        }
        self.inner
            .pool_lb
            .lock()
            .ok()
            .and_then(|m| m.get(pool_id).cloned())
    }

    /// The VIP subnet of the LB owning `pool_id` (id and CIDR), through the row's VIP port.
    async fn vip_subnet_of_pool(&self, snap: &NbSnapshot, pool_id: &str) -> Option<SubnetInfo> {
        let (row, _) = snap.lb_by_pool(pool_id)?;
        let port_id = row.external_ids.get(ext::VIP_PORT_ID)?;
        let vip: IpAddr = row.external_ids.get(ext::VIP)?.parse().ok()?;
        let port = self.inner.neutron.get_port(port_id).await.ok()?;
        let fip = port.fixed_ips.iter().find(|f| f.ip_address == vip)?;
        let subnet = self.inner.neutron.get_subnet(&fip.subnet_id).await.ok()?;
        Some(SubnetInfo {
            id: subnet.id,
            network_id: subnet.network_id,
            cidr: subnet.cidr,
        })
    }

    /// Sync checks of member create/delete/batch, filling the subnet from the VIP subnet.
    async fn member_reqs(
        &self,
        members: &[Member],
        call: MemberSubnetCall,
        check_family: bool,
    ) -> Result<Vec<MemberReq>, ProviderError> {
        let scope = Scope {
            pools: members.iter().filter_map(|m| m.pool_id.clone()).collect(),
            ..Default::default()
        };
        let snap = self.snapshot(&scope).await?;
        let mut out = Vec::new();
        let mut vip_subnet: Option<Option<SubnetInfo>> = None;
        for m in members {
            if call == MemberSubnetCall::Batch {
                validate::batch_member_monitor_options(m)?;
            } else if call == MemberSubnetCall::Create {
                validate::member_monitor_options(m)?;
            }
            let address = m.address.clone().unwrap_or_default();
            let pool_id = m.pool_id.clone().unwrap_or_default();
            if check_family {
                if let Some((row, _)) = snap.lb_by_pool(&pool_id) {
                    let mut vips: Vec<String> = row
                        .external_ids
                        .get(ext::VIP)
                        .cloned()
                        .into_iter()
                        .collect();
                    vips.extend(ext::parse_list(&row.external_ids, ext::ADDITIONAL_VIPS));
                    validate::member_ip_version(&address, &vips)?;
                }
            }
            let subnet_id = match m.subnet_id.clone().filter(|s| !s.is_empty()) {
                Some(s) => s,
                None => {
                    if vip_subnet.is_none() {
                        vip_subnet = Some(self.vip_subnet_of_pool(&snap, &pool_id).await);
                    }
                    match vip_subnet.as_ref().and_then(|s| s.as_ref()) {
                        Some(s) if validate::ip_in_cidr(&address, &s.cidr) => s.id.clone(),
                        _ => return Err(validate::member_subnet_required(call)),
                    }
                }
            };
            let Ok(addr) = address.parse::<IpAddr>() else {
                return Err(ProviderError::driver(format!(
                    "Invalid member address {address:?}"
                )));
            };
            out.push(MemberReq {
                id: m.member_id.clone(),
                pool_id,
                address: addr,
                port: m.protocol_port.unwrap_or(0),
                subnet_id,
                enabled: m.admin_state_up.unwrap_or(true),
            });
        }
        Ok(out)
    }

    fn listener_req(l: &Listener, old: Option<&Listener>) -> ListenerReq {
        let src = old.unwrap_or(l);
        ListenerReq {
            id: l.listener_id.clone(),
            lb_id: src.loadbalancer_id.clone().unwrap_or_default(),
            protocol: src.protocol.clone().unwrap_or_default(),
            port: src.protocol_port.unwrap_or(0),
            default_pool_id: l.default_pool_id.clone().flatten(),
            enabled: l.admin_state_up.unwrap_or(true),
        }
    }

    fn pool_req(p: &Pool, old: Option<&Pool>) -> PoolReq {
        let src = old.unwrap_or(p);
        PoolReq {
            id: p.pool_id.clone(),
            lb_id: src.loadbalancer_id.clone().unwrap_or_default(),
            protocol: src.protocol.clone().unwrap_or_default(),
            algorithm: src.lb_algorithm.clone(),
            listener_id: src.listener_id.clone(),
            enabled: p.admin_state_up.unwrap_or(true),
            session_persistence: validate::session_persistence_set(p.session_persistence.as_ref())
                .map(|o| Value::Object(o.clone())),
            // an update's explicit null (what the API sends for `session_persistence: null`)
            // clears it; absent (None) leaves it unchanged
            clear_persistence: old.is_some() && matches!(p.session_persistence, Some(Value::Null)),
        }
    }

    /// The HM request; on create (`old` = None) an unset/null `max_retries_down` is Octavia's
    /// default 3, on update unset/null means "unchanged".
    fn hm_req(hm: &HealthMonitor, old: Option<&HealthMonitor>) -> HmReq {
        let failure_count = match old {
            None => Some(hm.max_retries_down.unwrap_or(hm::DEFAULT_FAILURE_COUNT)),
            Some(_) => hm.max_retries_down,
        };
        HmReq {
            id: hm.healthmonitor_id.clone(),
            pool_id: old
                .and_then(|o| o.pool_id.clone())
                .or_else(|| hm.pool_id.clone())
                .unwrap_or_default(),
            interval: hm.delay,
            timeout: hm.timeout,
            success_count: hm.max_retries,
            failure_count,
            enabled: hm.admin_state_up.unwrap_or(true),
        }
    }

    async fn create_port(&self, req: PortCreate) -> Result<Port, NeutronError> {
        let name = req.name.clone().unwrap_or_default();
        let network = req.network_id.clone();
        match self.inner.neutron.create_port(&req).await {
            Err(e) if e.is_conflict() => {
                // a previous attempt may have created it: reuse the port of that name
                let f = ListFilter::new().eq("name", name).eq("network_id", network);
                match self.inner.neutron.list_ports(&f).await {
                    Ok(mut ports) if !ports.is_empty() => Ok(ports.remove(0)),
                    _ => Err(e),
                }
            }
            other => other,
        }
    }
}

fn vip_port_create(
    lb_id: &str,
    project_id: &str,
    name: String,
    network: Option<String>,
    subnet: Option<String>,
    address: Option<IpAddr>,
) -> PortCreate {
    let fixed = match (subnet, address) {
        (None, None) => None,
        (s, a) => Some(vec![FixedIpRequest {
            subnet_id: s,
            ip_address: a,
        }]),
    };
    PortCreate {
        network_id: network.unwrap_or_default(),
        name: Some(name),
        fixed_ips: fixed,
        device_owner: Some(VIP_PORT_DEVICE_OWNER.into()),
        device_id: Some(format!("lb-{lb_id}")),
        admin_state_up: Some(true),
        project_id: Some(project_id.to_string()).filter(|p| !p.is_empty()),
        ..Default::default()
    }
}

#[async_trait]
impl ProviderDriver for OvnProvider {
    fn name(&self) -> &str {
        &self.inner.config.name
    }

    async fn create_vip_port(
        &self,
        loadbalancer_id: &str,
        project_id: &str,
        mut vip: Vip,
        additional_vips: Vec<AdditionalVip>,
    ) -> Result<(Vip, Vec<AdditionalVip>), ProviderError> {
        let neutron = &self.inner.neutron;
        let mut created: Vec<String> = Vec::new();
        let result: Result<(Vip, Vec<AdditionalVip>), NeutronError> = async {
            let port = if let Some(id) = vip.vip_port_id.clone().filter(|s| !s.is_empty()) {
                neutron.get_port(&id).await?
            } else {
                let req = vip_port_create(
                    loadbalancer_id,
                    project_id,
                    format!("{VIP_PORT_PREFIX}{loadbalancer_id}"),
                    vip.vip_network_id.clone(),
                    vip.vip_subnet_id.clone(),
                    ip(&vip.vip_address),
                );
                // the subnet GET the queued LB create needs overlaps the port create
                let subnet_get = async {
                    match vip.vip_subnet_id.as_deref().filter(|s| !s.is_empty()) {
                        Some(id) => neutron.get_subnet(id).await.ok(),
                        None => None,
                    }
                };
                let (p, subnet) = tokio::join!(self.create_port(req), subnet_get);
                let p = p?;
                created.push(p.id.clone());
                if let Ok(mut m) = self.inner.vip_facts.lock() {
                    m.retain(|_, f| f.at.elapsed() < VIP_FACTS_TTL);
                    m.insert(
                        loadbalancer_id.to_string(),
                        VipFacts {
                            at: Instant::now(),
                            port: p.clone(),
                            subnet,
                        },
                    );
                }
                p
            };
            vip.vip_port_id = Some(port.id.clone());
            if let Some(f) = port.fixed_ips.first() {
                vip.vip_address = Some(f.ip_address.to_string());
                vip.vip_subnet_id.get_or_insert_with(|| f.subnet_id.clone());
            }
            vip.vip_network_id
                .get_or_insert_with(|| port.network_id.clone());
            let mut out = Vec::new();
            for (n, a) in additional_vips.iter().enumerate() {
                let req = vip_port_create(
                    loadbalancer_id,
                    project_id,
                    format!("{VIP_PORT_PREFIX}additional-{}-{loadbalancer_id}", n + 1),
                    a.network_id.clone().or_else(|| vip.vip_network_id.clone()),
                    a.subnet_id.clone(),
                    ip(&a.ip_address),
                );
                let p = self.create_port(req).await?;
                created.push(p.id.clone());
                let f = p.fixed_ips.first();
                out.push(AdditionalVip {
                    ip_address: f.map(|f| f.ip_address.to_string()),
                    network_id: Some(p.network_id.clone()),
                    port_id: Some(p.id.clone()),
                    subnet_id: f.map(|f| f.subnet_id.clone()),
                });
            }
            Ok((vip, out))
        }
        .await;
        match result {
            Ok(v) => Ok(v),
            Err(e) => {
                for id in created {
                    if let Err(de) = neutron.delete_port(&id).await {
                        tracing::warn!(port = %id, error = %de, "could not delete VIP port after failed create_vip_port");
                    }
                }
                if e.is_conflict() {
                    Err(ProviderError::conflict(neutron_text(&e)))
                } else {
                    Err(ProviderError::driver(neutron_text(&e)))
                }
            }
        }
    }

    async fn delete_vip_ports(
        &self,
        loadbalancer_id: &str,
        port_ids: Vec<String>,
    ) -> Result<(), ProviderError> {
        if let Ok(mut m) = self.inner.vip_facts.lock() {
            m.remove(loadbalancer_id);
        }
        let neutron = &self.inner.neutron;
        let mut failed = None;
        for id in port_ids {
            // an already deleted port is what we want
            if let Err(e) = neutron.delete_port(&id).await {
                tracing::warn!(port = %id, error = %e, "could not delete the VIP port of a refused load balancer create");
                failed = Some(e);
            }
        }
        match failed {
            Some(e) => Err(ProviderError::driver(neutron_text(&e))),
            None => Ok(()),
        }
    }

    async fn loadbalancer_create(&self, lb: LoadBalancer) -> Result<(), ProviderError> {
        // the whole graph is validated before anything is queued, so a 501 leaves nothing
        // behind (the reference queues lb_create first and leaves an orphan row)
        let snap_hc = self
            .snapshot(&Scope::default())
            .await?
            .health_check_supported;
        for l in lb.listeners.iter().flatten() {
            validate::listener_create(l)?;
            // The reference ignores a graph's L7 policies and leaves them PENDING_CREATE for
            // ever; refuse them as its l7policy_create does (the whole graph rolls back).
            if l.l7policies.as_ref().is_some_and(|p| !p.is_empty()) {
                return not_supported("creating l7policies");
            }
        }
        for p in lb.pools.iter().flatten() {
            validate::pool_create(p, snap_hc)?;
            for m in p.members.iter().flatten() {
                validate::member_monitor_options(m)?;
            }
        }
        let id = lb.loadbalancer_id.clone();
        let listeners = lb.listeners.clone().unwrap_or_default();
        let pools = lb.pools.clone().unwrap_or_default();
        let vip_subnet = lb.vip_subnet_id.clone().filter(|s| !s.is_empty());
        let mut steps = vec![Request::LbCreate(lb)];
        for l in &listeners {
            steps.push(Request::ListenerCreate(Self::listener_req(l, None)));
        }
        for p in &pools {
            if let Ok(mut m) = self.inner.pool_lb.lock() {
                m.insert(p.pool_id.clone(), id.clone());
            }
            steps.push(Request::PoolCreate(Self::pool_req(p, None)));
            let members: Vec<MemberReq> = p
                .members
                .iter()
                .flatten()
                .filter_map(|m| {
                    Some(MemberReq {
                        id: m.member_id.clone(),
                        pool_id: p.pool_id.clone(),
                        address: ip(&m.address)?,
                        port: m.protocol_port.unwrap_or(0),
                        subnet_id: m
                            .subnet_id
                            .clone()
                            .filter(|s| !s.is_empty())
                            .or_else(|| vip_subnet.clone())
                            .unwrap_or_default(),
                        enabled: m.admin_state_up.unwrap_or(true),
                    })
                })
                .collect();
            if !members.is_empty() {
                steps.push(Request::Members {
                    lb_id: id.clone(),
                    pool_id: p.pool_id.clone(),
                    create: members,
                    update: vec![],
                    delete: vec![],
                });
            }
            if let Some(h) = &p.healthmonitor {
                steps.push(Request::HmCreate {
                    lb_id: id.clone(),
                    hm: Self::hm_req(h, None),
                });
            }
        }
        let req = if steps.len() == 1 {
            steps.remove(0)
        } else {
            Request::Graph(steps)
        };
        self.enqueue(&id, req);
        Ok(())
    }

    async fn loadbalancer_delete(
        &self,
        lb: LoadBalancer,
        cascade: bool,
    ) -> Result<(), ProviderError> {
        let id = lb.loadbalancer_id.clone();
        self.enqueue(&id, Request::LbDelete { lb, cascade });
        Ok(())
    }

    async fn loadbalancer_failover(&self, _loadbalancer_id: &str) -> Result<(), ProviderError> {
        Err(ProviderError::unsupported(validate::FAILOVER_TEXT))
    }

    async fn loadbalancer_update(
        &self,
        _old: LoadBalancer,
        new: LoadBalancer,
    ) -> Result<(), ProviderError> {
        let id = new.loadbalancer_id.clone();
        self.enqueue(
            &id.clone(),
            Request::LbUpdate {
                lb_id: id,
                enabled: new.admin_state_up,
            },
        );
        Ok(())
    }

    async fn listener_create(&self, listener: Listener) -> Result<(), ProviderError> {
        validate::listener_create(&listener)?;
        let req = Self::listener_req(&listener, None);
        self.enqueue(&req.lb_id.clone(), Request::ListenerCreate(req));
        Ok(())
    }

    async fn listener_delete(&self, listener: Listener) -> Result<(), ProviderError> {
        let req = Self::listener_req(&listener, None);
        self.enqueue(&req.lb_id.clone(), Request::ListenerDelete(req));
        Ok(())
    }

    async fn listener_update(&self, old: Listener, new: Listener) -> Result<(), ProviderError> {
        validate::listener_update(&new)?;
        let req = Self::listener_req(&new, Some(&old));
        // Some(None): the update removed the default pool (octavia-lib's None, not Unset).
        let default_pool = new.default_pool_id.clone();
        self.enqueue(
            &req.lb_id.clone(),
            Request::ListenerUpdate {
                l: req,
                enabled: new.admin_state_up,
                default_pool,
            },
        );
        Ok(())
    }

    async fn pool_create(&self, pool: Pool) -> Result<(), ProviderError> {
        let hc = self
            .snapshot(&Scope::default())
            .await?
            .health_check_supported;
        validate::pool_create(&pool, hc)?;
        let req = Self::pool_req(&pool, None);
        if let Ok(mut m) = self.inner.pool_lb.lock() {
            m.insert(req.id.clone(), req.lb_id.clone());
        }
        let lb_id = req.lb_id.clone();
        self.enqueue(&lb_id, Request::PoolCreate(req));
        if let Some(h) = &pool.healthmonitor {
            self.enqueue(
                &lb_id,
                Request::HmCreate {
                    lb_id: lb_id.clone(),
                    hm: Self::hm_req(h, None),
                },
            );
        }
        Ok(())
    }

    async fn pool_delete(&self, pool: Pool) -> Result<(), ProviderError> {
        let req = Self::pool_req(&pool, None);
        let members = pool
            .members
            .iter()
            .flatten()
            .map(|m| m.member_id.clone())
            .collect();
        let hm_id = pool
            .healthmonitor
            .as_ref()
            .map(|h| h.healthmonitor_id.clone());
        self.enqueue(
            &req.lb_id.clone(),
            Request::PoolDelete {
                p: req,
                hm_id,
                members,
            },
        );
        Ok(())
    }

    async fn pool_update(&self, old: Pool, new: Pool) -> Result<(), ProviderError> {
        validate::pool_update(&new)?;
        let req = Self::pool_req(&new, Some(&old));
        self.enqueue(
            &req.lb_id.clone(),
            Request::PoolUpdate {
                p: req,
                enabled: new.admin_state_up,
            },
        );
        Ok(())
    }

    async fn member_create(&self, member: Member) -> Result<(), ProviderError> {
        let reqs = self
            .member_reqs(
                std::slice::from_ref(&member),
                MemberSubnetCall::Create,
                true,
            )
            .await?;
        let pool_id = member.pool_id.clone().unwrap_or_default();
        let lb_id = self
            .lb_of_pool(&pool_id)
            .await
            .unwrap_or_else(|| pool_id.clone());
        self.enqueue(
            &lb_id.clone(),
            Request::Members {
                lb_id,
                pool_id,
                create: reqs,
                update: vec![],
                delete: vec![],
            },
        );
        Ok(())
    }

    async fn member_delete(&self, member: Member) -> Result<(), ProviderError> {
        let pool_id = member.pool_id.clone().unwrap_or_default();
        let lb_id = self
            .lb_of_pool(&pool_id)
            .await
            .unwrap_or_else(|| pool_id.clone());
        self.enqueue(
            &lb_id.clone(),
            Request::Members {
                lb_id,
                pool_id,
                create: vec![],
                update: vec![],
                delete: vec![member.member_id],
            },
        );
        Ok(())
    }

    async fn member_update(&self, old: Member, new: Member) -> Result<(), ProviderError> {
        validate::member_monitor_options(&new)?;
        if let Some(a) = &new.address {
            let pool = old.pool_id.clone().unwrap_or_default();
            let snap = self.snapshot(&Scope::pool(&pool)).await?;
            if let Some((row, _)) = snap.lb_by_pool(&pool) {
                let mut vips: Vec<String> = row
                    .external_ids
                    .get(ext::VIP)
                    .cloned()
                    .into_iter()
                    .collect();
                vips.extend(ext::parse_list(&row.external_ids, ext::ADDITIONAL_VIPS));
                validate::member_ip_version(a, &vips)?;
            }
        }
        let pool_id = old.pool_id.clone().unwrap_or_default();
        let lb_id = self
            .lb_of_pool(&pool_id)
            .await
            .unwrap_or_else(|| pool_id.clone());
        self.enqueue(
            &lb_id.clone(),
            Request::Members {
                lb_id,
                pool_id,
                create: vec![],
                update: vec![(new.member_id.clone(), new.admin_state_up)],
                delete: vec![],
            },
        );
        Ok(())
    }

    async fn member_batch_update(
        &self,
        pool_id: &str,
        members: Vec<Member>,
    ) -> Result<(), ProviderError> {
        let desired = self
            .member_reqs(&members, MemberSubnetCall::Batch, true)
            .await?;
        let Some(lb_id) = self.lb_of_pool(pool_id).await else {
            return Err(ProviderError::driver(format!(
                "Loadbalancer with pool pool_{pool_id} does not exist"
            )));
        };
        self.enqueue(
            &lb_id.clone(),
            Request::MemberBatch {
                lb_id,
                pool_id: pool_id.to_string(),
                desired,
            },
        );
        Ok(())
    }

    async fn health_monitor_create(&self, hm: HealthMonitor) -> Result<(), ProviderError> {
        let hc = self
            .snapshot(&Scope::default())
            .await?
            .health_check_supported;
        validate::health_monitor_create(&hm, hc)?;
        let req = Self::hm_req(&hm, None);
        let lb_id = self
            .lb_of_pool(&req.pool_id)
            .await
            .unwrap_or_else(|| req.pool_id.clone());
        self.enqueue(&lb_id.clone(), Request::HmCreate { lb_id, hm: req });
        Ok(())
    }

    async fn health_monitor_delete(&self, hm: HealthMonitor) -> Result<(), ProviderError> {
        let pool_id = hm.pool_id.clone().unwrap_or_default();
        let lb_id = self
            .lb_of_pool(&pool_id)
            .await
            .unwrap_or_else(|| pool_id.clone());
        self.enqueue(
            &lb_id.clone(),
            Request::HmDelete {
                lb_id,
                hm_id: hm.healthmonitor_id,
                pool_id,
            },
        );
        Ok(())
    }

    async fn health_monitor_update(
        &self,
        old: HealthMonitor,
        new: HealthMonitor,
    ) -> Result<(), ProviderError> {
        let hc = self
            .snapshot(&Scope::default())
            .await?
            .health_check_supported;
        validate::health_monitor_update(hc)?;
        let req = Self::hm_req(&new, Some(&old));
        let lb_id = self
            .lb_of_pool(&req.pool_id)
            .await
            .unwrap_or_else(|| req.pool_id.clone());
        self.enqueue(&lb_id.clone(), Request::HmUpdate { lb_id, hm: req });
        Ok(())
    }

    // The OVN provider implements neither L7 nor flavors/availability zones; the reference
    // inherits octavia-lib's `ProviderDriver` base, whose 501 texts name the action
    // (`provider_base.py`), and tempest shows them as skip reasons.
    async fn l7policy_create(&self, _: L7Policy) -> Result<(), ProviderError> {
        not_supported("creating l7policies")
    }
    async fn l7policy_delete(&self, _: L7Policy) -> Result<(), ProviderError> {
        not_supported("deleting l7policies")
    }
    async fn l7policy_update(&self, _: L7Policy, _: L7Policy) -> Result<(), ProviderError> {
        not_supported("updating l7policies")
    }
    async fn l7rule_create(&self, _: L7Rule) -> Result<(), ProviderError> {
        not_supported("creating l7rules")
    }
    async fn l7rule_delete(&self, _: L7Rule) -> Result<(), ProviderError> {
        not_supported("deleting l7rules")
    }
    async fn l7rule_update(&self, _: L7Rule, _: L7Rule) -> Result<(), ProviderError> {
        not_supported("updating l7rules")
    }
    async fn get_supported_flavor_metadata(&self) -> Result<Value, ProviderError> {
        not_supported("getting the supported flavor metadata")
    }
    async fn validate_flavor(&self, _: &Value) -> Result<(), ProviderError> {
        not_supported("validating flavors")
    }
    async fn get_supported_availability_zone_metadata(&self) -> Result<Value, ProviderError> {
        not_supported("getting the supported availability zone metadata")
    }
    async fn validate_availability_zone(&self, _: &Value) -> Result<(), ProviderError> {
        not_supported("validating availability zones")
    }
}

/// `NotImplemented` (API: 501 "does not support a requested action: …") with octavia-lib's
/// base-class text "This provider does not support <action>." (`provider_base.py`).
fn not_supported<T>(action: &str) -> Result<T, ProviderError> {
    Err(ProviderError::not_implemented(format!(
        "This provider does not support {action}."
    )))
}

/// Why a request failed: retryable (re-plan from a fresh snapshot) or not.
#[derive(Debug)]
enum RunError {
    Retry(String),
    Fail(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Retry(m) | RunError::Fail(m) => f.write_str(m),
        }
    }
}

impl From<String> for RunError {
    fn from(m: String) -> Self {
        RunError::Fail(m)
    }
}

impl From<&str> for RunError {
    fn from(m: &str) -> Self {
        RunError::Fail(m.to_string())
    }
}

impl From<NbError> for RunError {
    fn from(e: NbError) -> Self {
        if e.retry {
            RunError::Retry(e.message)
        } else {
            RunError::Fail(e.message)
        }
    }
}

/// How many times a request is re-planned after a concurrent change.
const ATTEMPTS: usize = 3;

impl Inner {
    async fn handle(&self, req: Request) {
        let report = match req {
            Request::Graph(steps) => self.graph_report(steps).await,
            req => self.report_of(req).await.0,
        };
        if report.is_empty() {
            return;
        }
        if let Err(e) = self.status.update_status(report).await {
            tracing::error!(error = %e, "status report refused");
        }
    }

    /// The steps of a [`Request::Graph`] in order, their reports merged into one (a later
    /// status for an object overrides an earlier one); after a failed step the remaining
    /// steps are not run and report ERROR for their objects.
    async fn graph_report(&self, steps: Vec<Request>) -> StatusReport {
        let mut merged = StatusReport::default();
        let mut failed = false;
        let mut lb_failed = None;
        for step in steps {
            let report = if failed {
                error_report(&step, None)
            } else {
                let lb_id = match &step {
                    Request::LbCreate(lb) => Some(lb.loadbalancer_id.clone()),
                    _ => None,
                };
                let (report, ok) = Box::pin(self.report_of(step)).await;
                failed = !ok;
                if failed {
                    lb_failed = lb_id;
                }
                report
            };
            merge_report(&mut merged, report);
        }
        // the children's ERROR reports name their LB ACTIVE: an LB that was not created
        // stays ERROR
        if let Some(id) = lb_failed {
            put(
                &mut merged,
                Kind::LoadBalancer,
                &id,
                Some(Prov::Error),
                Some(Op::Error),
            );
        }
        merged
    }

    /// Runs one request (re-planned up to [`ATTEMPTS`] times): its report, and whether it
    /// succeeded (else the report is the ERROR one, after the request's clean-up).
    async fn report_of(&self, req: Request) -> (StatusReport, bool) {
        let mut attempt = 0;
        let outcome = loop {
            attempt += 1;
            match self.run(&req).await {
                Err(RunError::Retry(why)) if attempt < ATTEMPTS => {
                    crate::metrics::NB_TXN_RETRIES.inc();
                    tracing::info!(request = ?req, error = %why, attempt, "re-planning after a concurrent NB change");
                }
                other => break other,
            }
        };
        match outcome {
            Ok(r) => (r, true),
            Err(why) => {
                tracing::error!(request = ?req, error = %why, "OVN provider request failed");
                let snap = self.nb.snapshot(&req.scope()).await.ok();
                if let Request::LbCreate(lb) = &req {
                    self.delete_vip_ports_if_ours(
                        snap.as_ref(),
                        lb.vip_port_id.as_deref(),
                        &lb_additional_port_ids(lb),
                    )
                    .await;
                }
                (error_report(&req, snap.as_ref()), false)
            }
        }
    }

    async fn run(&self, req: &Request) -> Result<StatusReport, RunError> {
        let mut snap = self.nb.snapshot(&req.scope()).await?;
        let pe = |e: PlanError| e.to_string();
        let plan: Plan = match req {
            Request::LbCreate(lb) => {
                let c = self.lb_create_facts(lb).await?;
                snap.include_switches(&[ext::ovn_name(&c.vip_subnet.network_id)]);
                lb::create(&snap, &c).map_err(pe)?
            }
            Request::LbUpdate { lb_id, enabled } => {
                lb::update(&snap, lb_id, *enabled).map_err(pe)?
            }
            Request::LbDelete { lb, cascade } => {
                let mut plan = lb::delete(&snap, &lb.loadbalancer_id, *cascade);
                let rows = snap.lbs_named(&lb.loadbalancer_id);
                let vip_port = rows
                    .first()
                    .and_then(|r| r.external_ids.get(ext::VIP_PORT_ID).cloned())
                    .or_else(|| lb.vip_port_id.clone());
                let mut addl: Vec<String> = rows
                    .first()
                    .map(|r| ext::parse_list(&r.external_ids, ext::ADDITIONAL_VIP_PORT_IDS))
                    .unwrap_or_default();
                if addl.is_empty() {
                    addl = lb_additional_port_ids(lb);
                }
                self.commit(&plan).await?;
                // The report waits for the ports to be gone (a client deletes the network next),
                // so the VIP and HM port deletions run side by side, not one after the other.
                tokio::join!(
                    self.delete_vip_ports_if_ours(Some(&snap), vip_port.as_deref(), &addl),
                    self.cleanup_hm_ports(&plan.hm_subnets),
                    self.recompute_member_fips(&plan.fip_ports),
                );
                return Ok(std::mem::take(&mut plan.report));
            }
            Request::ListenerCreate(l) => listener::create(&snap, l).map_err(pe)?,
            Request::ListenerUpdate {
                l,
                enabled,
                default_pool,
            } => listener::update(&snap, l, *enabled, default_pool.clone()).map_err(pe)?,
            Request::ListenerDelete(l) => listener::delete(&snap, l),
            Request::PoolCreate(p) => pool::create(&snap, p).map_err(pe)?,
            Request::PoolUpdate { p, enabled } => pool::update(&snap, p, *enabled).map_err(pe)?,
            Request::PoolDelete { p, hm_id, members } => {
                let facts = self
                    .member_facts(&snap, &ids_subnets(&snap, &p.id), false)
                    .await;
                snap.include_switches(&facts.switch_names());
                let mut plan = Plan::default();
                let mut edit = Edit::new(&snap);
                if let Some(h) = hm_id {
                    hm::remove(&mut edit, &mut plan, h, &p.id);
                }
                if let Ok((h, key, _)) = member::locate(&snap, &p.id) {
                    let mut ids = members.clone();
                    if let Some(row) = edit.row(&h) {
                        for e in ext::parse_pool_members(
                            row.external_ids.get(&key).map(String::as_str).unwrap_or(""),
                        )
                        .0
                        {
                            if !ids.contains(&e.id) {
                                ids.push(e.id);
                            }
                        }
                    }
                    member::remove(&mut edit, &mut plan, &h, &key, &ids, &facts);
                } else {
                    for m in members {
                        put(&mut plan.report, Kind::Member, m, Some(Prov::Deleted), None);
                    }
                }
                pool::remove(&mut edit, &mut plan, p);
                put(
                    &mut plan.report,
                    Kind::Pool,
                    &p.id,
                    Some(Prov::Deleted),
                    None,
                );
                put(
                    &mut plan.report,
                    Kind::LoadBalancer,
                    &p.lb_id,
                    Some(Prov::Active),
                    None,
                );
                plan.ops = edit.into_ops();
                plan
            }
            Request::Members {
                pool_id,
                create,
                update,
                delete,
                ..
            } => {
                let mut subnets: Vec<String> = create.iter().map(|m| m.subnet_id.clone()).collect();
                subnets.extend(ids_subnets(&snap, pool_id));
                let with_hc = snap
                    .lb_by_pool(pool_id)
                    .is_some_and(|(r, _)| !r.health_check.is_empty());
                let facts = self.member_facts(&snap, &subnets, with_hc).await;
                snap.include_switches(&facts.switch_names());
                member::change(&snap, pool_id, create, update, delete, &facts).map_err(pe)?
            }
            Request::MemberBatch {
                pool_id, desired, ..
            } => {
                let mut subnets: Vec<String> =
                    desired.iter().map(|m| m.subnet_id.clone()).collect();
                subnets.extend(ids_subnets(&snap, pool_id));
                let with_hc = snap
                    .lb_by_pool(pool_id)
                    .is_some_and(|(r, _)| !r.health_check.is_empty());
                let facts = self.member_facts(&snap, &subnets, with_hc).await;
                snap.include_switches(&facts.switch_names());
                member::batch(&snap, pool_id, desired, &facts).map_err(pe)?
            }
            Request::HmCreate { hm, .. } => {
                let subnets = ids_subnets(&snap, &hm.pool_id);
                let facts = self.member_facts(&snap, &subnets, true).await;
                snap.include_switches(&facts.switch_names());
                let plan = hm::create(&snap, hm, &facts).map_err(pe)?;
                if let Err(e) = self.commit(&plan).await {
                    self.cleanup_hm_ports(&subnets).await;
                    return Err(e);
                }
                if plan
                    .report
                    .healthmonitors
                    .iter()
                    .any(|r| r.provisioning_status == Some(Prov::Error))
                {
                    self.cleanup_hm_ports(&subnets).await;
                }
                return Ok(plan.report);
            }
            Request::HmUpdate { hm, .. } => hm::update(&snap, hm).map_err(pe)?,
            Request::HmDelete { hm_id, pool_id, .. } => hm::delete(&snap, hm_id, pool_id),
            Request::ServiceMonitor { lb_id, ev } => hm::service_monitor_update(&snap, lb_id, ev),
            Request::RouterPort(ev) if ev.created => agent::lrp_created(&snap, ev),
            Request::RouterPort(ev) => agent::lrp_deleted(&snap, ev),
            Request::VipFip(ev) => agent::vip_fip(&snap, ev),
            // handled step by step in `handle`; never planned as one
            Request::Graph(_) => return Err(RunError::Fail("a graph is not one plan".into())),
        };
        self.commit(&plan).await?;
        self.cleanup_hm_ports(&plan.hm_subnets).await;
        self.recompute_member_fips(&plan.fip_ports).await;
        Ok(plan.report)
    }

    /// `handle_member_dvr`, member deleted: Neutron's "empty update" (the FIP's own
    /// description written back) of every floating IP of `ports`, so Neutron recomputes the NAT
    /// row (restoring `external_mac`/`logical_port` where DVR applies). Failures are logged:
    /// the member is gone either way.
    async fn recompute_member_fips(&self, ports: &[String]) {
        for port in ports {
            let fips = match self.neutron.floating_ips_by_port(port).await {
                Ok(f) => f,
                Err(e) => {
                    tracing::warn!(port = %port, error = %e, "member FIP lookup failed");
                    continue;
                }
            };
            for f in fips {
                if let Err(e) = self
                    .neutron
                    .update_floating_ip_description(&f.id, &f.description)
                    .await
                {
                    tracing::warn!(fip = %f.id, error = %e, "member FIP recompute failed");
                }
            }
        }
    }

    async fn commit(&self, plan: &Plan) -> Result<(), RunError> {
        if plan.ops.is_empty() {
            return Ok(());
        }
        Ok(self.nb.transact(ops_json(&plan.ops)).await?)
    }

    async fn lb_create_facts(&self, lb: &LoadBalancer) -> Result<lb::LbCreate, String> {
        let n = &self.neutron;
        let vip: IpAddr = lb
            .vip_address
            .as_deref()
            .and_then(|a| a.parse().ok())
            .ok_or("load balancer without a valid vip_address")?;
        let cached = self
            .vip_facts
            .lock()
            .ok()
            .and_then(|mut m| m.remove(&lb.loadbalancer_id));
        let port = match lb.vip_port_id.as_deref().filter(|s| !s.is_empty()) {
            Some(id) => match cached.as_ref().filter(|c| c.port.id == id) {
                Some(c) => c.port.clone(),
                None => n.get_port(id).await.map_err(|e| e.to_string())?,
            },
            None => {
                let net = lb.vip_network_id.clone().unwrap_or_default();
                let f = ListFilter::new()
                    .eq("network_id", net)
                    .fixed_ip_address(vip);
                n.list_ports(&f)
                    .await
                    .map_err(|e| e.to_string())?
                    .into_iter()
                    .next()
                    .ok_or("VIP port not found")?
            }
        };
        let fip = port
            .fixed_ips
            .iter()
            .find(|f| f.ip_address == vip)
            .ok_or("VIP address not on its port")?;
        let subnet = match cached
            .and_then(|c| c.subnet)
            .filter(|s| s.id == fip.subnet_id)
        {
            Some(s) => s,
            None => n
                .get_subnet(&fip.subnet_id)
                .await
                .map_err(|e| e.to_string())?,
        };
        // members usually sit on the VIP subnet: their create needs no read of it again
        self.facts.remember_subnet(&subnet);
        Ok(lb::LbCreate {
            id: lb.loadbalancer_id.clone(),
            vip_address: vip.to_string(),
            vip_port_id: port.id.clone(),
            vip_subnet: SubnetInfo {
                id: subnet.id,
                network_id: subnet.network_id,
                cidr: subnet.cidr,
            },
            enabled: lb.admin_state_up.unwrap_or(true),
            additional_vips: lb
                .additional_vips
                .iter()
                .flatten()
                .filter_map(|a| Some((a.ip_address.clone()?, a.port_id.clone()?)))
                .collect(),
        })
    }

    /// Subnets by id, and (when `with_hm_ports`) the HM source IP of each subnet, creating the
    /// `ovn-lb-hm-<subnet>` port on first use.
    async fn member_facts(
        &self,
        snap: &NbSnapshot,
        subnet_ids: &[String],
        with_hm_ports: bool,
    ) -> MemberFacts {
        let mut facts = MemberFacts::default();
        for id in subnet_ids {
            if id.is_empty() || facts.subnets.contains_key(id) {
                continue;
            }
            let subnet = match self.facts.subnet(id) {
                Some(s) => Ok(s),
                None => {
                    let read = self.neutron.get_subnet(id).await;
                    if let Ok(s) = &read {
                        self.facts.remember_subnet(s);
                    }
                    read
                }
            };
            match subnet {
                Ok(s) => {
                    facts.subnets.insert(
                        id.clone(),
                        SubnetInfo {
                            id: s.id.clone(),
                            network_id: s.network_id.clone(),
                            cidr: s.cidr.clone(),
                        },
                    );
                    if with_hm_ports {
                        match self
                            .ensure_hm_port(snap, &s.id, &s.network_id, &s.project_id)
                            .await
                        {
                            Ok(ip) => {
                                facts.hm_source.insert(id.clone(), ip.to_string());
                            }
                            Err(e) => {
                                tracing::error!(subnet = %id, error = %e, "no health-monitor port")
                            }
                        }
                    }
                }
                Err(e) => tracing::warn!(subnet = %id, error = %e, "subnet not readable"),
            }
        }
        facts
    }

    async fn ensure_hm_port(
        &self,
        snap: &NbSnapshot,
        subnet_id: &str,
        network_id: &str,
        project_id: &str,
    ) -> Result<IpAddr, NeutronError> {
        // Known and still in the replica (Neutron's switch port of that port id): no REST call.
        let in_replica = |port_id: &str| {
            snap.source
                .as_ref()
                .is_some_and(|s| !s.0.named("Logical_Switch_Port", port_id).is_empty())
        };
        if let Some(p) = self.facts.hm_port(subnet_id, in_replica) {
            return Ok(p.ip);
        }
        let name = hm::hm_port_name(subnet_id);
        let f = ListFilter::new()
            .eq("name", name.clone())
            .eq("network_id", network_id.to_string());
        let existing = self.neutron.list_ports(&f).await?;
        if let Some((id, ip)) = existing
            .iter()
            .find_map(|p| Some((p.id.clone(), p.ip_in_subnet(subnet_id)?)))
        {
            let known = crate::facts::HmPort { port_id: id, ip };
            self.facts.remember_hm_port(subnet_id, known);
            return Ok(ip);
        }
        let req = PortCreate {
            network_id: network_id.to_string(),
            name: Some(name.clone()),
            fixed_ips: Some(vec![FixedIpRequest::subnet(subnet_id)]),
            device_owner: Some(HM_PORT_DEVICE_OWNER.into()),
            device_id: Some(name),
            admin_state_up: Some(true),
            port_security_enabled: Some(false),
            project_id: Some(project_id.to_string()).filter(|p| !p.is_empty()),
            ..Default::default()
        };
        let port = self.neutron.create_port(&req).await?;
        let ip = port
            .ip_in_subnet(subnet_id)
            .ok_or_else(|| NeutronError::Decode("HM port without address in its subnet".into()))?;
        let known = crate::facts::HmPort {
            port_id: port.id.clone(),
            ip,
        };
        self.facts.remember_hm_port(subnet_id, known);
        Ok(ip)
    }

    /// Delete the `ovn-lb-hm-<subnet>` ports no row maps a member through any more.
    async fn cleanup_hm_ports(&self, subnets: &[String]) {
        for s in subnets {
            let Some(ports) = self.hm_ports_of(s).await else {
                continue;
            };
            // rows using a subnet's HM port have a member on that subnet's switch
            let scope = Scope {
                lbs_on_switches: ports.iter().map(|p| ext::ovn_name(&p.1)).collect(),
                ..Default::default()
            };
            let Ok(snap) = self.nb.snapshot(&scope).await else {
                return;
            };
            for (id, _, ips) in ports {
                if ips
                    .iter()
                    .any(|ip| snap.hm_source_in_use(&ip.to_string(), None))
                {
                    continue;
                }
                self.facts.forget_hm_port(s);
                if let Err(e) = self.neutron.delete_port(&id).await {
                    tracing::warn!(port = %id, error = %e, "could not delete HM port");
                }
            }
        }
    }

    /// The `ovn-lb-hm-<subnet>` ports of `subnet`: (port id, network id, addresses). From the
    /// fact cache when the port and its subnet are known and the NB replica still holds the
    /// port's switch port; else Neutron's port list by name (`None` when that fails).
    async fn hm_ports_of(&self, subnet: &str) -> Option<Vec<(String, String, Vec<IpAddr>)>> {
        let known = self.facts.subnet(subnet).and_then(|sub| {
            let p = self.facts.hm_port(subnet, |_| true)?;
            Some((p, sub.network_id))
        });
        if let Some((p, network_id)) = known {
            let in_replica = self
                .nb
                .snapshot(&Scope::default())
                .await
                .ok()
                .and_then(|snap| snap.source)
                .is_some_and(|src| !src.0.named("Logical_Switch_Port", &p.port_id).is_empty());
            if in_replica {
                return Some(vec![(p.port_id, network_id, vec![p.ip])]);
            }
        }
        let f = ListFilter::new().eq("name", hm::hm_port_name(subnet));
        let ports = self.neutron.list_ports(&f).await.ok()?;
        Some(
            ports
                .into_iter()
                .map(|p| {
                    let ips = p.fixed_ips.iter().map(|f| f.ip_address).collect();
                    (p.id, p.network_id, ips)
                })
                .collect(),
        )
    }

    /// Delete the VIP port when the provider made it (`ovn-lb-vip-` name), and every
    /// additional VIP port. The name is read from the port's switch port in the NB replica
    /// (`external_ids:neutron:port_name`, written by Neutron) when `snap` holds it; from
    /// Neutron otherwise.
    async fn delete_vip_ports_if_ours(
        &self,
        snap: Option<&NbSnapshot>,
        vip_port: Option<&str>,
        additional: &[String],
    ) {
        if let Some(id) = vip_port.filter(|s| !s.is_empty()) {
            let replica_name = snap.and_then(|s| s.source.as_ref()).and_then(|src| {
                let uuid = src.0.named("Logical_Switch_Port", id).into_iter().next()?;
                src.0.map_get(
                    "Logical_Switch_Port",
                    &uuid,
                    "external_ids",
                    agent::PORT_NAME,
                )
            });
            let read = match replica_name {
                Some(name) => Ok(name),
                None => self.neutron.get_port(id).await.map(|p| p.name),
            };
            match read {
                Ok(name) if name.starts_with(VIP_PORT_PREFIX) => {
                    if let Err(e) = self.neutron.delete_port(id).await {
                        tracing::warn!(port = %id, error = %e, "could not delete VIP port");
                    }
                }
                Ok(_) => tracing::info!(port = %id, "preserving user-provided VIP port"),
                Err(e) if e.is_not_found() => {}
                Err(e) => tracing::warn!(port = %id, error = %e, "could not read VIP port"),
            }
        }
        for id in additional {
            if let Err(e) = self.neutron.delete_port(id).await {
                tracing::warn!(port = %id, error = %e, "could not delete additional VIP port");
            }
        }
    }
}

/// The member-status event of a SB `Service_Monitor` change (`ServiceMonitorUpdateEvent`): a
/// status change, a new row with a status, or a deletion; `None` otherwise.
pub fn service_monitor_change(change: &ovsdb::Change) -> Option<hm::ServiceMonitorEvent> {
    if change.table() != "Service_Monitor" {
        return None;
    }
    match change {
        ovsdb::Change::Update { old, new, .. } if old.get("status") != new.get("status") => {
            service_monitor_from_row(new, false)
        }
        ovsdb::Change::Insert { new, .. }
            if new.get_str("status").is_some_and(|s| !s.is_empty()) =>
        {
            service_monitor_from_row(new, false)
        }
        ovsdb::Change::Delete { old, .. } => service_monitor_from_row(old, true),
        _ => None,
    }
}

/// A `Service_Monitor` row as an event; `None` when a column is missing or malformed.
pub fn service_monitor_from_row(
    row: &ovsdb::Row,
    deleted: bool,
) -> Option<hm::ServiceMonitorEvent> {
    Some(hm::ServiceMonitorEvent {
        ip: row.get_str("ip")?.parse().ok()?,
        port: u16::try_from(row.get_i64("port")?).ok()?,
        protocol: row.get_str("protocol").map(String::from),
        logical_port: row.get_str("logical_port")?.to_string(),
        src_ip: row.get_str("src_ip")?.parse().ok()?,
        offline: row.get_str("status") == Some("offline"),
        deleted,
    })
}

fn lb_additional_port_ids(lb: &LoadBalancer) -> Vec<String> {
    lb.additional_vips
        .iter()
        .flatten()
        .filter_map(|a| a.port_id.clone())
        .collect()
}

/// Subnets of the members already in a pool.
fn ids_subnets(snap: &NbSnapshot, pool_id: &str) -> Vec<String> {
    snap.lb_by_pool(pool_id)
        .and_then(|(r, k)| r.external_ids.get(&k).map(|v| ext::parse_pool_members(v).0))
        .unwrap_or_default()
        .into_iter()
        .map(|m| m.subnet_id)
        .collect()
}

/// The report of a failed request: the object ERROR, its parents ACTIVE (so the LB becomes
/// mutable again), as the reference's exception paths.
/// Adds `from`'s records to `into` ([`put`]: a later status for the same object wins),
/// except that an object already ERROR stays ERROR: the steps of one graph report their
/// parents ACTIVE, which must not hide that the parent's own step failed.
fn merge_report(into: &mut StatusReport, from: StatusReport) {
    let lists = [
        (Kind::Member, from.members),
        (Kind::HealthMonitor, from.healthmonitors),
        (Kind::Pool, from.pools),
        (Kind::Listener, from.listeners),
        (Kind::LoadBalancer, from.loadbalancers),
    ];
    for (kind, records) in lists {
        let existing = match kind {
            Kind::Member => &into.members,
            Kind::HealthMonitor => &into.healthmonitors,
            Kind::Pool => &into.pools,
            Kind::Listener => &into.listeners,
            Kind::LoadBalancer => &into.loadbalancers,
        };
        let failed: Vec<String> = existing
            .iter()
            .filter(|e| e.provisioning_status == Some(Prov::Error))
            .map(|e| e.id.clone())
            .collect();
        for r in records.into_iter().filter(|r| !failed.contains(&r.id)) {
            put(into, kind, &r.id, r.provisioning_status, r.operating_status);
        }
    }
}

fn error_report(req: &Request, snap: Option<&NbSnapshot>) -> StatusReport {
    let mut r = StatusReport::default();
    let pool_parents = |r: &mut StatusReport, pool_id: &str, lb_id: &str| {
        put(r, Kind::Pool, pool_id, Some(Prov::Active), None);
        if let Some((row, _)) = snap.and_then(|s| s.lb_by_pool(pool_id)) {
            for l in ext::pool_listeners(&row.external_ids, pool_id) {
                put(r, Kind::Listener, &l, Some(Prov::Active), None);
            }
        }
        put(r, Kind::LoadBalancer, lb_id, Some(Prov::Active), None);
    };
    match req {
        Request::Graph(steps) => {
            for step in steps {
                merge_report(&mut r, error_report(step, snap));
            }
        }
        Request::LbCreate(lb) => put(
            &mut r,
            Kind::LoadBalancer,
            &lb.loadbalancer_id,
            Some(Prov::Error),
            Some(Op::Error),
        ),
        Request::LbUpdate { lb_id, .. } => put(
            &mut r,
            Kind::LoadBalancer,
            lb_id,
            Some(Prov::Error),
            Some(Op::Error),
        ),
        Request::LbDelete { lb, .. } => put(
            &mut r,
            Kind::LoadBalancer,
            &lb.loadbalancer_id,
            Some(Prov::Error),
            Some(Op::Error),
        ),
        Request::ListenerCreate(l)
        | Request::ListenerDelete(l)
        | Request::ListenerUpdate { l, .. } => {
            put(
                &mut r,
                Kind::Listener,
                &l.id,
                Some(Prov::Error),
                Some(Op::Error),
            );
            if let Some(p) = &l.default_pool_id {
                put(&mut r, Kind::Pool, p, Some(Prov::Active), None);
            }
            put(
                &mut r,
                Kind::LoadBalancer,
                &l.lb_id,
                Some(Prov::Active),
                None,
            );
        }
        Request::PoolCreate(p) | Request::PoolUpdate { p, .. } | Request::PoolDelete { p, .. } => {
            pool_parents(&mut r, &p.id, &p.lb_id);
            put(&mut r, Kind::Pool, &p.id, Some(Prov::Error), None);
            if let Some(l) = &p.listener_id {
                put(&mut r, Kind::Listener, l, Some(Prov::Active), None);
            }
        }
        Request::Members {
            lb_id,
            pool_id,
            create,
            update,
            delete,
        } => {
            pool_parents(&mut r, pool_id, lb_id);
            for id in create
                .iter()
                .map(|m| &m.id)
                .chain(update.iter().map(|(id, _)| id))
                .chain(delete.iter())
            {
                put(&mut r, Kind::Member, id, Some(Prov::Error), None);
            }
        }
        Request::MemberBatch {
            lb_id,
            pool_id,
            desired,
        } => {
            pool_parents(&mut r, pool_id, lb_id);
            for m in desired {
                put(&mut r, Kind::Member, &m.id, Some(Prov::Error), None);
            }
        }
        Request::HmCreate { lb_id, hm } | Request::HmUpdate { lb_id, hm } => {
            pool_parents(&mut r, &hm.pool_id, lb_id);
            put(
                &mut r,
                Kind::HealthMonitor,
                &hm.id,
                Some(Prov::Error),
                Some(Op::Error),
            );
        }
        // a health event has no API object waiting: nothing to report
        Request::ServiceMonitor { .. } | Request::RouterPort(_) | Request::VipFip(_) => {}
        Request::HmDelete {
            lb_id,
            hm_id,
            pool_id,
        } => {
            pool_parents(&mut r, pool_id, lb_id);
            put(
                &mut r,
                Kind::HealthMonitor,
                hm_id,
                Some(Prov::Error),
                Some(Op::Error),
            );
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use openstack::{HttpConfig, NeutronConfig, ServiceAuth, ServiceAuthConfig};
    use provider::{StatsReport, StatusSinkError};
    use serde_json::json;
    use tokio::sync::mpsc;

    /// An NB whose transactions fail `fail` times (retryable or not), then succeed.
    struct FakeNb {
        snap: NbSnapshot,
        fail: Mutex<usize>,
        retry: bool,
        calls: Mutex<Vec<Vec<Value>>>,
    }

    #[async_trait]
    impl NbDatabase for FakeNb {
        async fn snapshot(&self, _scope: &Scope) -> Result<NbSnapshot, NbError> {
            Ok(self.snap.clone())
        }
        async fn transact(&self, ops: Vec<Value>) -> Result<(), NbError> {
            self.calls.lock().unwrap().push(ops);
            let mut f = self.fail.lock().unwrap();
            if *f > 0 {
                *f -= 1;
                return Err(NbError {
                    message: "timed out".into(),
                    retry: self.retry,
                });
            }
            Ok(())
        }
    }

    struct Sink(mpsc::UnboundedSender<StatusReport>);

    #[async_trait]
    impl StatusSink for Sink {
        async fn update_status(&self, r: StatusReport) -> Result<(), StatusSinkError> {
            let _ = self.0.send(r);
            Ok(())
        }
        async fn update_stats(&self, _: StatsReport) -> Result<(), StatusSinkError> {
            Ok(())
        }
    }

    fn unreachable_neutron() -> NeutronClient {
        // never called by the requests below; no request is made until first use
        let http = HttpConfig::default().build_client().unwrap();
        let auth = ServiceAuth::new(
            http,
            ServiceAuthConfig {
                auth_url: "http://127.0.0.1:9/v3".into(),
                ..Default::default()
            },
        );
        NeutronClient::new(auth, NeutronConfig::default())
    }

    fn setup(
        fail: usize,
        retry: bool,
    ) -> (
        OvnProvider,
        Arc<FakeNb>,
        mpsc::UnboundedReceiver<StatusReport>,
    ) {
        let mut snap = NbSnapshot {
            health_check_supported: true,
            ..Default::default()
        };
        snap.insert_json(
            "Load_Balancer",
            "u1",
            &json!({"name": "LB", "external_ids": ["map", [["neutron:vip", "10.0.0.5"], ["enabled", "True"]]]}),
        );
        let nb = Arc::new(FakeNb {
            snap,
            fail: Mutex::new(fail),
            retry,
            calls: Mutex::new(vec![]),
        });
        let (tx, rx) = mpsc::unbounded_channel();
        let d = OvnProvider::with_nb(
            nb.clone(),
            unreachable_neutron(),
            Arc::new(Sink(tx)),
            OvnConfig::default(),
        );
        (d, nb, rx)
    }

    fn listener() -> Listener {
        Listener {
            listener_id: "L".into(),
            loadbalancer_id: Some("LB".into()),
            protocol: Some("TCP".into()),
            protocol_port: Some(80),
            ..Default::default()
        }
    }

    #[tokio::test]
    async fn replans_after_a_concurrent_change() {
        let (d, nb, mut rx) = setup(1, true);
        d.listener_create(listener()).await.unwrap();
        let r = rx.recv().await.unwrap();
        assert_eq!(
            r.listeners,
            vec![provider::StatusRecord::new(
                "L",
                Some(Prov::Active),
                Some(Op::Online)
            )]
        );
        assert_eq!(
            r.loadbalancers,
            vec![provider::StatusRecord::new("LB", Some(Prov::Active), None)]
        );
        let calls = nb.calls.lock().unwrap();
        assert_eq!(calls.len(), 2, "one failed attempt, one re-planned");
        assert_eq!(calls[0][0]["op"], "wait");
    }

    #[tokio::test]
    async fn permanent_failure_reports_error_and_frees_the_lb() {
        let (d, nb, mut rx) = setup(5, false);
        d.listener_create(listener()).await.unwrap();
        let r = rx.recv().await.unwrap();
        assert_eq!(
            r.listeners,
            vec![provider::StatusRecord::new(
                "L",
                Some(Prov::Error),
                Some(Op::Error)
            )]
        );
        assert_eq!(
            r.loadbalancers,
            vec![provider::StatusRecord::new("LB", Some(Prov::Active), None)]
        );
        assert_eq!(nb.calls.lock().unwrap().len(), 1);
    }

    /// A graph create whose LB step fails (Neutron unreachable for the VIP port facts) sends
    /// ONE report: the LB and every child of the graph ERROR, none left PENDING_CREATE, and
    /// nothing was written to NB.
    #[tokio::test]
    async fn failed_graph_reports_every_object_error_once() {
        let (d, nb, mut rx) = setup(0, false);
        let graph = LoadBalancer {
            loadbalancer_id: "G".into(),
            vip_address: Some("10.0.0.9".into()),
            vip_port_id: Some("vip-port".into()),
            listeners: Some(vec![Listener {
                loadbalancer_id: Some("G".into()),
                default_pool_id: Some(Some("P".into())),
                ..listener()
            }]),
            pools: Some(vec![Pool {
                pool_id: "P".into(),
                loadbalancer_id: Some("G".into()),
                listener_id: Some("L".into()),
                protocol: Some("TCP".into()),
                lb_algorithm: Some("SOURCE_IP_PORT".into()),
                ..Default::default()
            }]),
            ..Default::default()
        };
        d.loadbalancer_create(graph).await.unwrap();
        let r = rx.recv().await.unwrap();
        let prov = |list: &[provider::StatusRecord], id: &str| {
            list.iter()
                .find(|x| x.id == id)
                .and_then(|x| x.provisioning_status)
        };
        assert_eq!(prov(&r.loadbalancers, "G"), Some(Prov::Error), "{r:?}");
        assert_eq!(prov(&r.listeners, "L"), Some(Prov::Error), "{r:?}");
        assert_eq!(prov(&r.pools, "P"), Some(Prov::Error), "{r:?}");
        assert!(nb.calls.lock().unwrap().is_empty());
        assert!(rx.try_recv().is_err(), "one report only");
    }

    /// A graph whose listener carries L7 policies is refused whole, synchronously (501), as
    /// l7policy_create is: nothing queued, nothing reported.
    #[tokio::test]
    async fn graph_with_l7_policies_is_refused_whole() {
        let (d, nb, mut rx) = setup(0, false);
        let graph = LoadBalancer {
            loadbalancer_id: "G".into(),
            listeners: Some(vec![Listener {
                l7policies: Some(vec![L7Policy {
                    l7policy_id: "P7".into(),
                    ..Default::default()
                }]),
                ..listener()
            }]),
            ..Default::default()
        };
        let err = d.loadbalancer_create(graph).await.unwrap_err();
        assert!(err.to_string().contains("l7policies"), "{err}");
        assert!(rx.try_recv().is_err());
        assert!(nb.calls.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn retries_are_bounded() {
        let (d, nb, mut rx) = setup(10, true);
        d.listener_create(listener()).await.unwrap();
        let r = rx.recv().await.unwrap();
        assert_eq!(r.listeners[0].provisioning_status, Some(Prov::Error));
        assert_eq!(nb.calls.lock().unwrap().len(), ATTEMPTS);
    }

    #[tokio::test]
    async fn sync_refusals() {
        let (d, _, _) = setup(0, false);
        assert_eq!(
            d.loadbalancer_failover("LB").await,
            Err(ProviderError::unsupported(validate::FAILOVER_TEXT))
        );
        let l = Listener {
            protocol: Some("HTTPS".into()),
            ..listener()
        };
        assert_eq!(
            d.listener_create(l).await,
            Err(ProviderError::unsupported(
                "OVN provider does not support HTTPS protocol"
            ))
        );
        let p = Pool {
            pool_id: "P".into(),
            protocol: Some("TCP".into()),
            lb_algorithm: Some("ROUND_ROBIN".into()),
            ..Default::default()
        };
        assert_eq!(
            d.pool_create(p).await,
            Err(ProviderError::unsupported(
                "OVN provider does not support ROUND_ROBIN algorithm"
            ))
        );
        let hm = HealthMonitor {
            healthmonitor_id: "H".into(),
            kind: Some("HTTP".into()),
            ..Default::default()
        };
        assert!(matches!(
            d.health_monitor_create(hm).await,
            Err(ProviderError::UnsupportedOption { .. })
        ));
        // L7 keeps the trait's NotImplemented (501 "does not support a requested action")
        let r = d.l7policy_create(provider::L7Policy::default()).await;
        assert_eq!(
            r,
            Err(ProviderError::not_implemented(
                "This provider does not support creating l7policies."
            ))
        );
        // flavors / AZs: octavia-lib's texts (tempest's skip reasons, as the reference's)
        assert_eq!(
            d.validate_flavor(&serde_json::json!({})).await,
            Err(ProviderError::not_implemented(
                "This provider does not support validating flavors."
            ))
        );
        assert_eq!(
            d.get_supported_flavor_metadata().await,
            Err(ProviderError::not_implemented(
                "This provider does not support getting the supported flavor metadata."
            ))
        );
        assert_eq!(
            d.get_supported_availability_zone_metadata().await,
            Err(ProviderError::not_implemented(
                "This provider does not support getting the supported availability zone metadata."
            ))
        );
        assert_eq!(
            d.validate_availability_zone(&serde_json::json!({})).await,
            Err(ProviderError::not_implemented(
                "This provider does not support validating availability zones."
            ))
        );
        assert_eq!(d.name(), "ovn");
    }
}

/// Seed 000: "an optional field that arrives as null means its documented default, exactly
/// as if it were absent". Every optional field of the provider models the driver reads is
/// checked three ways: absent, `null`, and (where one is documented) the default written out;
/// the request the driver builds must be the same, on create and on update.
#[cfg(test)]
mod null_means_default {
    use super::*;
    use serde_json::json;

    fn model<T: serde::de::DeserializeOwned>(v: Value) -> T {
        serde_json::from_value(v).unwrap()
    }

    fn with(base: &Value, field: &str, v: Value) -> Value {
        let mut o = base.clone();
        o[field] = v;
        o
    }

    /// `(field, documented default or None when absent is the default)`.
    type Row = (&'static str, Option<Value>);

    /// Checks `build(absent) == build(null) == build(default)` for each row.
    fn check<T: serde::de::DeserializeOwned>(
        what: &str,
        base: &Value,
        rows: &[Row],
        build: &dyn Fn(&T) -> String,
    ) {
        for (field, default) in rows {
            let mut absent = base.clone();
            absent.as_object_mut().unwrap().remove(*field);
            let want = build(&model(absent));
            let null = build(&model(with(base, field, Value::Null)));
            assert_eq!(null, want, "{what}.{field}: null differs from absent");
            if let Some(d) = default {
                let explicit = build(&model(with(base, field, d.clone())));
                assert_eq!(
                    explicit, want,
                    "{what}.{field}: default {d} differs from absent"
                );
            }
        }
    }

    #[test]
    fn listener_fields() {
        let base = json!({"listener_id": "L", "loadbalancer_id": "LB", "protocol": "TCP",
            "protocol_port": 80, "admin_state_up": false, "default_pool_id": "P",
            "allowed_cidrs": ["10.0.0.0/8"], "connection_limit": 5, "name": "n",
            "description": "d", "timeout_client_data": 1000, "insert_headers": {},
            "l7policies": [], "tls_versions": [], "sni_container_refs": []});
        let rows: Vec<Row> = vec![
            ("admin_state_up", Some(json!(true))),
            ("default_pool_id", None),
            ("allowed_cidrs", Some(json!([]))),
            ("connection_limit", None),
            ("name", None),
            ("description", None),
            ("timeout_client_data", None),
            ("insert_headers", None),
            ("l7policies", None),
            ("tls_versions", None),
            ("sni_container_refs", None),
        ];
        let old: Listener = model(base.clone());
        let create = |l: &Listener| {
            format!(
                "{:?} {:?}",
                OvnProvider::listener_req(l, None),
                validate::listener_create(l).map_err(|e| e.to_string())
            )
        };
        let update = |l: &Listener| {
            format!(
                "{:?} {:?} {:?} {:?}",
                OvnProvider::listener_req(l, Some(&old)),
                l.admin_state_up,
                l.default_pool_id,
                validate::listener_update(l).map_err(|e| e.to_string())
            )
        };
        check("listener create", &base, &rows, &create);
        // an update carries only the changed fields: null = unset = unchanged…
        let upd = json!({"listener_id": "L", "admin_state_up": false, "default_pool_id": "P2",
            "allowed_cidrs": [], "connection_limit": 7});
        let urows: Vec<Row> = vec![
            ("admin_state_up", None),
            ("allowed_cidrs", Some(json!([]))),
            ("connection_limit", None),
        ];
        check("listener update", &upd, &urows, &update);
        // …except `default_pool_id`, whose null is the API's "remove the default pool"
        // (octavia-lib None, not Unset): the request carries Some(None).
        let null: Listener = model(json!({"listener_id": "L", "default_pool_id": null}));
        let absent: Listener = model(json!({"listener_id": "L"}));
        assert_eq!(null.default_pool_id, Some(None));
        assert_eq!(absent.default_pool_id, None);
    }

    #[test]
    fn pool_fields() {
        let base = json!({"pool_id": "P", "loadbalancer_id": "LB", "listener_id": "L",
            "protocol": "TCP", "lb_algorithm": "SOURCE_IP", "admin_state_up": false,
            "session_persistence": {"type": "SOURCE_IP", "persistence_timeout": 60},
            "healthmonitor": {"healthmonitor_id": "H", "type": "TCP", "delay": 5,
                "timeout": 3, "max_retries": 2},
            "members": [], "name": "n", "tls_enabled": false});
        let rows: Vec<Row> = vec![
            ("admin_state_up", Some(json!(true))),
            ("listener_id", None),
            ("session_persistence", Some(json!({}))),
            ("healthmonitor", None),
            ("members", None),
            ("name", None),
            ("tls_enabled", None),
        ];
        let old: Pool = model(base.clone());
        let build = |p: &Pool| {
            let req = OvnProvider::pool_req(p, None);
            format!(
                "{req:?} {:?} {:?} {:?} {:?}",
                pool::affinity_timeout(req.session_persistence.as_ref()),
                lb::selection_fields(req.algorithm.as_deref()),
                p.healthmonitor
                    .as_ref()
                    .map(|h| OvnProvider::hm_req(h, None)),
                validate::pool_create(p, true).map_err(|e| e.to_string())
            )
        };
        check("pool create", &base, &rows, &build);
        // inside session_persistence: a null timeout is 360, an all-null object is none
        let sp = |v: Value| -> String {
            let p: Pool = model(with(&base, "session_persistence", v));
            let req = OvnProvider::pool_req(&p, None);
            format!(
                "{:?} {:?} {:?}",
                req.session_persistence.is_some(),
                pool::affinity_timeout(req.session_persistence.as_ref()),
                validate::pool_create(&p, true).map_err(|e| e.to_string())
            )
        };
        assert_eq!(
            sp(json!({"type": "SOURCE_IP", "persistence_timeout": null, "cookie_name": null})),
            sp(json!({"type": "SOURCE_IP", "persistence_timeout": 360}))
        );
        assert_eq!(
            sp(json!({"type": "SOURCE_IP", "persistence_timeout": null})),
            sp(json!({"type": "SOURCE_IP"}))
        );
        assert_eq!(
            sp(
                json!({"type": null, "persistence_timeout": null, "cookie_name": null,
                "persistence_granularity": null})
            ),
            sp(Value::Null)
        );
        assert_eq!(sp(json!({})), sp(Value::Null));
        // update: null = unset = unchanged (the old protocol/algorithm are used)
        let upd = json!({"pool_id": "P", "admin_state_up": true, "lb_algorithm": "SOURCE_IP",
            "session_persistence": {"type": "SOURCE_IP"}, "protocol": "TCP"});
        let urows: Vec<Row> = vec![
            ("admin_state_up", None),
            ("lb_algorithm", None),
            ("session_persistence", Some(json!({}))),
            ("protocol", None),
        ];
        let update = |p: &Pool| {
            let req = OvnProvider::pool_req(p, Some(&old));
            format!(
                "{req:?} {:?} {:?} {:?}",
                p.admin_state_up,
                pool::affinity_timeout(req.session_persistence.as_ref()),
                validate::pool_update(p).map_err(|e| e.to_string())
            )
        };
        check("pool update", &upd, &urows, &update);
        // an unset algorithm selects the reference's `None` fields
        assert_eq!(
            lb::selection_fields(None),
            ["ip_src", "ip_dst", "tp_src", "tp_dst"]
        );
    }

    #[test]
    fn health_monitor_fields() {
        let base = json!({"healthmonitor_id": "H", "pool_id": "P", "type": "TCP",
            "delay": 5, "timeout": 3, "max_retries": 2, "max_retries_down": 4,
            "admin_state_up": false, "name": "n", "http_method": "GET",
            "url_path": "/", "expected_codes": "200", "http_version": 1.1,
            "domain_name": "x"});
        let rows: Vec<Row> = vec![
            ("admin_state_up", Some(json!(true))),
            ("max_retries_down", Some(json!(3))),
            ("name", None),
            ("http_method", None),
            ("url_path", None),
            ("expected_codes", None),
            ("http_version", None),
            ("domain_name", None),
        ];
        let create = |h: &HealthMonitor| {
            let req = OvnProvider::hm_req(h, None);
            format!(
                "{req:?} {:?} {:?}",
                req.options(),
                validate::health_monitor_create(h, true).map_err(|e| e.to_string())
            )
        };
        check("health monitor create", &base, &rows, &create);
        let old: HealthMonitor = model(base.clone());
        let upd = json!({"healthmonitor_id": "H", "delay": 9, "timeout": 8,
            "max_retries": 7, "max_retries_down": 6, "admin_state_up": true});
        let urows: Vec<Row> = vec![
            ("delay", None),
            ("timeout", None),
            ("max_retries", None),
            ("max_retries_down", None),
            ("admin_state_up", Some(json!(true))),
        ];
        let update = |h: &HealthMonitor| {
            let req = OvnProvider::hm_req(h, Some(&old));
            format!("{req:?} {:?}", req.options())
        };
        check("health monitor update", &upd, &urows, &update);
        // unset on update writes nothing (the row keeps its options)
        let h: HealthMonitor = model(json!({"healthmonitor_id": "H", "max_retries_down": null}));
        assert!(OvnProvider::hm_req(&h, Some(&old)).options().is_empty());
    }

    #[test]
    fn member_fields() {
        let base = json!({"member_id": "M", "pool_id": "P", "address": "10.0.0.7",
            "protocol_port": 80, "subnet_id": "S", "admin_state_up": false, "weight": 5,
            "backup": true, "monitor_address": "10.0.0.8", "monitor_port": 81,
            "name": "n", "vnic_type": "normal"});
        // the fields the driver reads synchronously (monitor options) and the request fields
        let build = |m: &Member| {
            format!(
                "{:?} {:?} {:?} {:?} {:?}",
                m.admin_state_up.unwrap_or(true),
                m.subnet_id.clone().filter(|s| !s.is_empty()),
                validate::member_monitor_options(m).map_err(|e| e.to_string()),
                validate::batch_member_monitor_options(m).map_err(|e| e.to_string()),
                (m.protocol_port, &m.address, &m.pool_id)
            )
        };
        let rows: Vec<Row> = vec![
            ("admin_state_up", Some(json!(true))),
            ("subnet_id", None),
            ("weight", None),
            ("backup", None),
            ("monitor_address", None),
            ("monitor_port", None),
            ("name", None),
            ("vnic_type", None),
        ];
        // monitor options are refused when set, so the base for them has none
        let mut no_mon = base.clone();
        no_mon["monitor_address"] = Value::Null;
        no_mon["monitor_port"] = Value::Null;
        check("member", &no_mon, &rows, &build);
        // a set monitor option is refused, a null one is not
        let m: Member = model(base.clone());
        assert!(validate::member_monitor_options(&m).is_err());
        assert!(validate::member_monitor_options(&model(no_mon)).is_ok());
    }

    #[test]
    fn load_balancer_fields() {
        let base = json!({"loadbalancer_id": "LB", "vip_address": "10.0.0.5",
            "vip_network_id": "N", "vip_port_id": "VP", "vip_subnet_id": "S",
            "admin_state_up": false, "additional_vips": [], "vip_qos_policy_id": "Q",
            "vip_sg_ids": [], "flavor": {}, "availability_zone": {}, "listeners": [],
            "pools": [], "name": "n", "description": "d", "project_id": "p"});
        let rows: Vec<Row> = vec![
            ("admin_state_up", Some(json!(true))),
            ("additional_vips", Some(json!([]))),
            ("vip_qos_policy_id", None),
            ("vip_sg_ids", None),
            ("flavor", None),
            ("availability_zone", None),
            ("listeners", Some(json!([]))),
            ("pools", Some(json!([]))),
            ("name", None),
            ("description", None),
        ];
        let build = |lb: &LoadBalancer| {
            format!(
                "{:?} {:?} {:?} {:?}",
                lb.admin_state_up.unwrap_or(true),
                lb_additional_port_ids(lb),
                lb.listeners.iter().flatten().count(),
                lb.pools.iter().flatten().count()
            )
        };
        check("load balancer", &base, &rows, &build);
        // update: only admin_state_up is used; null = unset = unchanged
        let snap = NbSnapshot::default();
        let upd = |v: Value| {
            let lb: LoadBalancer = model(v);
            let p = lb::update(&snap, "LB", lb.admin_state_up).unwrap();
            format!("{:?} {:?}", p.ops, p.report)
        };
        assert_eq!(
            upd(json!({"loadbalancer_id": "LB", "admin_state_up": null})),
            upd(json!({"loadbalancer_id": "LB"}))
        );
        // additional VIPs: an entry's null fields are as absent ones
        let av = |v: Value| {
            let lb: LoadBalancer = model(with(&base, "additional_vips", v));
            lb_additional_port_ids(&lb)
        };
        assert_eq!(
            av(
                json!([{"ip_address": "10.0.1.5", "port_id": "AP", "subnet_id": null,
                "network_id": null}])
            ),
            av(json!([{"ip_address": "10.0.1.5", "port_id": "AP"}]))
        );
    }
}
