//! `OvnProvider`: the [`ProviderDriver`] of the OVN provider (seed 000, `driver.py` +
//! `helper.py` request handlers).
//!
//! Each method validates synchronously ([`crate::validate`]), converts the provider model
//! ([`crate::requests`]) and queues the work on the LB's ordered queue ([`crate::queue`]),
//! where the executor (`executor.rs`) runs it: NB snapshot, Neutron facts, ONE planned
//! transaction, post-commit Neutron clean-up, ONE status report. The agent (`agent.rs`,
//! which imports this module) queues its events through the same executor.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use openstack::NeutronClient;
use provider::{
    AdditionalVip, HealthMonitor, L7Policy, L7Rule, Listener, LoadBalancer, Member, Pool,
    ProviderDriver, ProviderError, StatusSink, Vip,
};
use serde_json::Value;

use crate::error::provider_error;
use crate::events::{FipEvent, LrpEvent};
use crate::executor::Executor;
use crate::external_ids as ext;
use crate::hm;
use crate::job::Request;
use crate::member::MemberReq;
use crate::nb::NbSnapshot;
use crate::ovsdb_nb::NbDatabase;
use crate::plan::SubnetInfo;
use crate::ports::NeutronPorts;
use crate::queue::LbQueues;
use crate::requests::{self, hm_req, listener_req, pool_req};
use crate::scope::Scope;
use crate::validate::{self, MemberSubnetCall};

// Kept at their old paths for callers outside this crate (keel's recovery).
pub use crate::ports::{VIP_PORT_DEVICE_OWNER, VIP_PORT_PREFIX, deployment_tag};

/// The reference's period of every maintenance task (`spacing=600`).
pub const DEFAULT_MAINTENANCE_PERIOD: Duration = Duration::from_secs(600);

/// Driver settings (octavia.conf `[ovn]`, subset).
#[derive(Debug, Clone)]
pub struct OvnConfig {
    /// The provider name reported to the API (`ovn`).
    pub name: String,
    /// Period of the agent's maintenance tasks (`maintenance.rs`; the reference's 600 s,
    /// first run when the agent takes the lock); `None` disables them.
    pub maintenance_period: Option<Duration>,
    /// This deployment's identity (octavia-db `deployment`): every VIP port the driver makes
    /// carries its tag ([`crate::ports::deployment_tag`], as `description`); `None`: untagged.
    pub deployment_id: Option<String>,
}

impl Default for OvnConfig {
    fn default() -> Self {
        Self {
            name: "ovn".into(),
            maintenance_period: Some(DEFAULT_MAINTENANCE_PERIOD),
            deployment_id: None,
        }
    }
}

/// The OVN provider driver.
#[derive(Clone)]
pub struct OvnProvider {
    inner: Arc<Inner>,
}

struct Inner {
    /// What runs the queued jobs (the NB, Neutron port work, the status sink).
    jobs: Executor,
    config: OvnConfig,
    queues: LbQueues,
    /// pool id → LB id for pools queued but maybe not yet in the NB.
    pool_lb: Mutex<HashMap<String, String>>,
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
                jobs: Executor {
                    nb,
                    ports: NeutronPorts::new(
                        neutron,
                        config
                            .deployment_id
                            .as_deref()
                            .map(crate::ports::deployment_tag),
                    ),
                    status,
                },
                config,
                queues: LbQueues::new(),
                pool_lb: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// The NB this driver reads and writes.
    pub(crate) fn nb(&self) -> &Arc<dyn NbDatabase> {
        &self.inner.jobs.nb
    }

    /// The Neutron client (service credentials).
    pub(crate) fn neutron(&self) -> &NeutronClient {
        self.inner.jobs.ports.neutron()
    }

    /// The deployment tag ([`crate::ports::deployment_tag`]) of the VIP ports made here.
    pub(crate) fn vip_port_tag(&self) -> Option<String> {
        self.inner
            .config
            .deployment_id
            .as_deref()
            .map(crate::ports::deployment_tag)
    }

    /// The driver's settings.
    pub(crate) fn config(&self) -> &OvnConfig {
        &self.inner.config
    }

    /// Agent work: a router interface event, on the router's own queue.
    pub(crate) fn queue_router_port(&self, ev: LrpEvent) {
        self.enqueue(&format!("lrp:{}", ev.router), Request::RouterPort(ev));
    }

    /// Agent work: a VIP FIP event, on its load balancer's queue.
    pub(crate) fn queue_vip_fip(&self, ev: FipEvent) {
        self.enqueue(&ev.lb_id.clone(), Request::VipFip(ev));
    }

    /// Agent work: re-anchor the `allowed_cidrs` rows of `lb_id`, on its queue.
    pub(crate) fn queue_anchors(&self, lb_id: String) {
        self.enqueue(&lb_id.clone(), Request::Anchors { lb_id });
    }

    /// Agent work: a member status change, on the queue of `lb_id`.
    pub(crate) fn queue_service_monitor(&self, lb_id: String, ev: hm::ServiceMonitorEvent) {
        self.enqueue(&lb_id.clone(), Request::ServiceMonitor { lb_id, ev });
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
        // under the request's span, not the `provider_call` stage this runs in (see gate.rs)
        let parent = gate
            .as_ref()
            .map_or_else(tracing::Span::current, |g| g.origin().clone());
        let span = tracing::info_span!(parent: &parent, "provider_job", kind, lb_id = %lb_id);
        let queued = std::time::Instant::now();
        let waiting = tracing::trace_span!(target: "keel::stage", parent: &span, "job_wait");
        crate::metrics::JOBS_PENDING.inc();
        self.inner.queues.submit(
            lb_id,
            Box::pin(
                async move {
                    let committed = async {
                        match gate {
                            Some(g) => g.committed().await,
                            None => true,
                        }
                    }
                    .instrument(waiting)
                    .await;
                    if committed {
                        inner.jobs.handle(req).await;
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

    /// The NB rows `scope` touches, for a synchronous driver call (an NB failure is the
    /// call's [`ProviderError::Driver`], see `From<NbError>` in `error.rs`).
    async fn snapshot(&self, scope: &Scope) -> Result<NbSnapshot, ProviderError> {
        Ok(self.inner.jobs.nb.snapshot(scope).await?)
    }

    /// Whether the NB schema has `Load_Balancer.health_check` (OVN ≥ 2.12).
    async fn health_check_supported(&self) -> Result<bool, ProviderError> {
        Ok(self
            .snapshot(&Scope::default())
            .await?
            .health_check_supported)
    }

    /// The queue of a pool's work: its LB's ([`OvnProvider::lb_of_pool`]), else the pool's own.
    async fn queue_of_pool(&self, pool_id: &str) -> String {
        self.lb_of_pool(pool_id)
            .await
            .unwrap_or_else(|| pool_id.to_string())
    }

    /// The LB owning a pool: the NB row, else a pool queued by this process, else `None`.
    async fn lb_of_pool(&self, pool_id: &str) -> Option<String> {
        let snap = self
            .inner
            .jobs
            .nb
            .snapshot(&Scope::pool(pool_id))
            .await
            .ok();
        self.lb_of_pool_in(snap.as_ref(), pool_id)
    }

    /// [`OvnProvider::lb_of_pool`] in a snapshot the call already took (its scope holds the
    /// pool); `None` for a snapshot that failed.
    fn lb_of_pool_in(&self, snap: Option<&NbSnapshot>, pool_id: &str) -> Option<String> {
        if let Some((row, _)) = snap.and_then(|s| s.lb_by_pool(pool_id)) {
            return Some(row.name.clone());
        }
        self.inner
            .pool_lb
            .lock()
            .ok()
            .and_then(|m| m.get(pool_id).cloned())
    }

    /// The one NB snapshot of a member call: the pools of `members` and `pool_id`.
    async fn member_snapshot(
        &self,
        pool_id: &str,
        members: &[Member],
    ) -> Result<NbSnapshot, ProviderError> {
        let mut pools = vec![pool_id.to_string()];
        for p in members.iter().filter_map(|m| m.pool_id.as_ref()) {
            if !pools.contains(p) {
                pools.push(p.clone());
            }
        }
        self.snapshot(&Scope {
            pools,
            ..Default::default()
        })
        .await
    }

    /// Sync checks of member create/delete/batch in `snap` (holding the members' pools),
    /// filling the subnet from the VIP subnet.
    async fn member_reqs(
        &self,
        snap: &NbSnapshot,
        members: &[Member],
        call: MemberSubnetCall,
        check_family: bool,
    ) -> Result<Vec<MemberReq>, ProviderError> {
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
            if check_family && let Some((row, _)) = snap.lb_by_pool(&pool_id) {
                validate::member_ip_version(&address, &lb_vips(row))?;
            }
            let subnet_id = match m.subnet_id.clone().filter(|s| !s.is_empty()) {
                Some(s) => s,
                None => {
                    if vip_subnet.is_none() {
                        let found = self
                            .inner
                            .jobs
                            .ports
                            .vip_subnet_of_pool(snap, &pool_id)
                            .await;
                        vip_subnet = Some(found.map_err(|e| provider_error(&e))?);
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
                subnet: requests::given_subnet(m, &subnet_id),
                subnet_id,
                enabled: m.admin_state_up.unwrap_or(true),
            });
        }
        Ok(out)
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
        vip: Vip,
        additional_vips: Vec<AdditionalVip>,
    ) -> Result<(Vip, Vec<AdditionalVip>), ProviderError> {
        self.inner
            .jobs
            .ports
            .create_vip_port(loadbalancer_id, project_id, vip, additional_vips)
            .await
            .map_err(|e| provider_error(&e))
    }

    async fn delete_vip_ports(
        &self,
        loadbalancer_id: &str,
        port_ids: Vec<String>,
    ) -> Result<(), ProviderError> {
        self.inner
            .jobs
            .ports
            .delete_vip_ports(loadbalancer_id, port_ids)
            .await
            .map_err(|e| provider_error(&e))
    }

    async fn loadbalancer_create(&self, lb: LoadBalancer) -> Result<(), ProviderError> {
        // the whole graph is validated before anything is queued, so a 501 leaves nothing
        // behind (the reference queues lb_create first and leaves an orphan row)
        let snap_hc = self.health_check_supported().await?;
        validate::loadbalancer_graph(&lb, snap_hc)?;
        let id = lb.loadbalancer_id.clone();
        let listeners = lb.listeners.clone().unwrap_or_default();
        let pools = lb.pools.clone().unwrap_or_default();
        let vip_subnet = lb.vip_subnet_id.clone().filter(|s| !s.is_empty());
        let mut steps = vec![Request::LbCreate(lb)];
        for l in &listeners {
            steps.push(Request::ListenerCreate(listener_req(l, None)));
        }
        for p in &pools {
            if let Ok(mut m) = self.inner.pool_lb.lock() {
                m.insert(p.pool_id.clone(), id.clone());
            }
            steps.push(Request::PoolCreate(pool_req(p, None)));
            let members = requests::graph_members(p, vip_subnet.as_deref());
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
                    hm: hm_req(h, None),
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
        let req = listener_req(&listener, None);
        self.enqueue(&req.lb_id.clone(), Request::ListenerCreate(req));
        Ok(())
    }

    async fn listener_delete(&self, listener: Listener) -> Result<(), ProviderError> {
        let req = listener_req(&listener, None);
        self.enqueue(&req.lb_id.clone(), Request::ListenerDelete(req));
        Ok(())
    }

    async fn listener_update(&self, old: Listener, new: Listener) -> Result<(), ProviderError> {
        validate::listener_update(&new)?;
        let req = listener_req(&new, Some(&old));
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
        let hc = self.health_check_supported().await?;
        validate::pool_create(&pool, hc)?;
        let req = pool_req(&pool, None);
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
                    hm: hm_req(h, None),
                },
            );
        }
        Ok(())
    }

    async fn pool_delete(&self, pool: Pool) -> Result<(), ProviderError> {
        let req = pool_req(&pool, None);
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
        let req = pool_req(&new, Some(&old));
        self.enqueue(
            &req.lb_id.clone(),
            Request::PoolUpdate {
                p: req,
                enabled: new.admin_state_up,
                algorithm: new.lb_algorithm.clone(),
            },
        );
        Ok(())
    }

    async fn member_create(&self, member: Member) -> Result<(), ProviderError> {
        let pool_id = member.pool_id.clone().unwrap_or_default();
        let members = std::slice::from_ref(&member);
        // one snapshot serves the checks and the queue's LB
        let snap = self.member_snapshot(&pool_id, members).await?;
        let reqs = self
            .member_reqs(&snap, members, MemberSubnetCall::Create, true)
            .await?;
        let lb_id = self
            .lb_of_pool_in(Some(&snap), &pool_id)
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
        let lb_id = self.queue_of_pool(&pool_id).await;
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
        let pool_id = old.pool_id.clone().unwrap_or_default();
        let lb_id = match &new.address {
            Some(a) => {
                let snap = self.snapshot(&Scope::pool(&pool_id)).await?;
                if let Some((row, _)) = snap.lb_by_pool(&pool_id) {
                    validate::member_ip_version(a, &lb_vips(row))?;
                }
                self.lb_of_pool_in(Some(&snap), &pool_id)
                    .unwrap_or_else(|| pool_id.clone())
            }
            None => self.queue_of_pool(&pool_id).await,
        };
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
        let snap = self.member_snapshot(pool_id, &members).await?;
        let desired = self
            .member_reqs(&snap, &members, MemberSubnetCall::Batch, true)
            .await?;
        let Some(lb_id) = self.lb_of_pool_in(Some(&snap), pool_id) else {
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
        let hc = self.health_check_supported().await?;
        validate::health_monitor_create(&hm, hc)?;
        let req = hm_req(&hm, None);
        let lb_id = self.queue_of_pool(&req.pool_id).await;
        self.enqueue(&lb_id.clone(), Request::HmCreate { lb_id, hm: req });
        Ok(())
    }

    async fn health_monitor_delete(&self, hm: HealthMonitor) -> Result<(), ProviderError> {
        let pool_id = hm.pool_id.clone().unwrap_or_default();
        let lb_id = self.queue_of_pool(&pool_id).await;
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
        let hc = self.health_check_supported().await?;
        validate::health_monitor_update(hc)?;
        let req = hm_req(&new, Some(&old));
        let full = requests::hm_full_req(&old, &new);
        let lb_id = self.queue_of_pool(&req.pool_id).await;
        self.enqueue(
            &lb_id.clone(),
            Request::HmUpdate {
                lb_id,
                hm: req,
                full,
            },
        );
        Ok(())
    }

    // The OVN provider implements neither L7 nor availability zones; the reference inherits
    // octavia-lib's `ProviderDriver` base, whose 501 texts name the action
    // (`provider_base.py`), and tempest shows them as skip reasons. Flavors are Keel's
    // ([`crate::flavor`]; the reference refuses them as it refuses L7).
    async fn l7policy_create(&self, _: L7Policy) -> Result<(), ProviderError> {
        validate::not_supported("creating l7policies")
    }
    async fn l7policy_delete(&self, _: L7Policy) -> Result<(), ProviderError> {
        validate::not_supported("deleting l7policies")
    }
    async fn l7policy_update(&self, _: L7Policy, _: L7Policy) -> Result<(), ProviderError> {
        validate::not_supported("updating l7policies")
    }
    async fn l7rule_create(&self, _: L7Rule) -> Result<(), ProviderError> {
        validate::not_supported("creating l7rules")
    }
    async fn l7rule_delete(&self, _: L7Rule) -> Result<(), ProviderError> {
        validate::not_supported("deleting l7rules")
    }
    async fn l7rule_update(&self, _: L7Rule, _: L7Rule) -> Result<(), ProviderError> {
        validate::not_supported("updating l7rules")
    }
    async fn get_supported_flavor_metadata(&self) -> Result<Value, ProviderError> {
        Ok(crate::flavor::supported_flavor_metadata())
    }
    /// [`crate::flavor::validate`] against the connected NB's schema version; a refusal is
    /// octavia-lib's `UnsupportedOptionError` (501, as the amphora driver's).
    async fn validate_flavor(&self, flavor_metadata: &Value) -> Result<(), ProviderError> {
        let version = self.inner.jobs.nb.schema_version();
        crate::flavor::validate(flavor_metadata, version.as_deref())
            .map_err(ProviderError::unsupported)
    }
    async fn get_supported_availability_zone_metadata(&self) -> Result<Value, ProviderError> {
        validate::not_supported("getting the supported availability zone metadata")
    }
    async fn validate_availability_zone(&self, _: &Value) -> Result<(), ProviderError> {
        validate::not_supported("validating availability zones")
    }
}

/// The VIP and additional VIP addresses of a row.
fn lb_vips(row: &crate::nb::LoadBalancerRow) -> Vec<String> {
    let mut vips: Vec<String> = row
        .external_ids
        .get(ext::VIP)
        .cloned()
        .into_iter()
        .collect();
    vips.extend(ext::parse_list(&row.external_ids, ext::ADDITIONAL_VIPS));
    vips
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::executor::tests::{listener, setup};

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
        // flavors: Keel's keys, a refusal is an unsupported option
        assert_eq!(d.validate_flavor(&serde_json::json!({})).await, Ok(()));
        assert_eq!(
            d.validate_flavor(&serde_json::json!({"bogus": 1})).await,
            Err(ProviderError::unsupported(
                "Additional properties are not allowed ('bogus' was unexpected)"
            ))
        );
        assert_eq!(
            d.get_supported_flavor_metadata().await,
            Ok(crate::flavor::supported_flavor_metadata())
        );
        // AZs: octavia-lib's texts (tempest's skip reasons, as the reference's)
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
