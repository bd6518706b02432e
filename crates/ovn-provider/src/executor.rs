//! The executor of the driver's queued jobs ([`Executor`]): snapshot → facts → ONE planner
//! call → commit → post-commit Neutron work → ONE status report.
//!
//! A job whose transaction fails retryably is re-planned from a fresh snapshot, at most
//! [`ATTEMPTS`] times. One whose outcome is unknown ([`NbError::maybe_committed`]: the NB
//! connection dropped with the transaction in flight — a raft leader killed, a frozen
//! process, a drain) is re-planned too, once the NB connection is back
//! ([`crate::ovsdb_nb::RESYNC_BOUND`]): the planners read what committed (every row update is
//! guarded by a `wait`, every insert by a `wait` for its absence, and a plan whose work is
//! already in the rows writes nothing), and the earlier attempt's post-commit work and report
//! are kept ([`Plan::absorb`]), so the report says what the committed work means — ERROR only
//! when no attempt's work landed.

use std::sync::Arc;

use provider::{OperatingStatus as Op, ProvisioningStatus as Prov, StatusReport, StatusSink};
use tracing::Instrument;

use crate::cidrs;
use crate::error::JobError;
use crate::events;
use crate::external_ids as ext;
use crate::hm;
use crate::job::{Request, error_report, merge_report};
use crate::lb::{self, LbCreate};
use crate::listener;
use crate::member::{self, MemberFacts, MemberReq};
use crate::nb::NbSnapshot;
use crate::ovsdb_nb::NbDatabase;
use crate::plan::Plan;
use crate::pool;
use crate::ports::NeutronPorts;
use crate::status::{Kind, put};

/// How many times a request is planned: after a concurrent change or an unknown outcome it
/// is re-planned from a fresh snapshot, up to this many attempts in all.
pub(crate) const ATTEMPTS: usize = 3;

/// What runs the jobs: the NB, Neutron port work and the status sink.
pub(crate) struct Executor {
    pub(crate) nb: Arc<dyn NbDatabase>,
    /// Neutron port work and its caches.
    pub(crate) ports: NeutronPorts,
    pub(crate) status: Arc<dyn StatusSink>,
}

/// The Neutron facts a planner needs, fetched in one step before planning.
#[derive(Default)]
struct Facts {
    /// LB create: the VIP port and subnet.
    lb: Option<LbCreate>,
    /// Member, pool delete and HM planners: the subnets (and HM ports) of the members.
    members: MemberFacts,
}

/// How a request ended.
enum Outcome {
    /// Its work is in the NB: the report of what it means.
    Done(StatusReport),
    /// It failed: the ERROR report.
    Failed(StatusReport),
    /// Its outcome was unknown and another process took the work over: nothing to report.
    TakenOver,
}

/// How one attempt ended.
enum Attempt {
    /// Committed (or nothing to write): the plan, its post-commit work still to run.
    Done(Plan),
    /// Failed; the plan when its transaction may have committed anyway.
    Failed(JobError, Option<Plan>),
}

impl Executor {
    /// Runs one request and sends its report.
    pub(crate) async fn handle(&self, req: Request) {
        let report = match req {
            Request::Graph(steps) => self.graph_report(steps).await,
            req => match self.report_of(req).await {
                Outcome::Done(r) | Outcome::Failed(r) => r,
                Outcome::TakenOver => return,
            },
        };
        if report.is_empty() || self.taken_over(&report).await {
            return;
        }
        let stage = tracing::trace_span!(target: "keel::stage", "status_write");
        if let Err(e) = self.status.update_status(report).instrument(stage).await {
            tracing::error!(error = %e, "status report refused");
        }
    }

    /// True when a load balancer the report settles no longer waits for this work
    /// ([`StatusSink::work_pending`] `Some(false)`): this process was frozen past its lease
    /// and another one took the work over and settled it (or it was settled and deleted
    /// since). Its report is stale and is dropped, so that it cannot undo what was done since
    /// (a DELETED load balancer given its final status again, a later change's status
    /// overwritten). What it cannot see: a new write accepted on the same load balancer
    /// between the takeover's end and this check, whose PENDING_* this report would end
    /// early; the window is this process's freeze plus one read.
    async fn taken_over(&self, report: &StatusReport) -> bool {
        for lb in &report.loadbalancers {
            if lb.provisioning_status.is_some_and(|p| !p.is_pending())
                && self.status.work_pending(&lb.id).await == Some(false)
            {
                tracing::warn!(lb_id = %lb.id, "the load balancer no longer waits for this work (taken over and settled elsewhere): its status report is dropped");
                return true;
            }
        }
        false
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
                match Box::pin(self.report_of(step)).await {
                    Outcome::Done(r) => r,
                    Outcome::Failed(r) => {
                        failed = true;
                        lb_failed = lb_id;
                        r
                    }
                    // another process completes the whole graph: report nothing of it
                    Outcome::TakenOver => return StatusReport::default(),
                }
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

    /// Runs one request (planned up to [`ATTEMPTS`] times): its report, or the ERROR one
    /// after the request's clean-up, or nothing when its outcome is unknown and its load
    /// balancer no longer waits for it ([`StatusSink::work_pending`]: its lease ended and
    /// another process redid the work from the database — re-planning could undo what was
    /// changed since).
    async fn report_of(&self, req: Request) -> Outcome {
        // the plans of attempts whose transaction may have committed
        let mut landed: Option<Plan> = None;
        let mut hm_subnets: Vec<String> = Vec::new();
        let mut attempt = 0;
        let why = loop {
            attempt += 1;
            let (why, maybe) = match self.attempt(&req, &mut hm_subnets).await {
                Attempt::Done(mut plan) => {
                    if let Some(earlier) = landed.take() {
                        tracing::info!(request = ?req, attempt, "re-planned after an unknown outcome: done");
                        plan.absorb(earlier);
                    }
                    let stage = tracing::trace_span!(target: "keel::stage", "after_commit");
                    self.after_commit(&plan).instrument(stage).await;
                    return Outcome::Done(plan.report);
                }
                Attempt::Failed(why, maybe) => (why, maybe),
            };
            if let Some(mut plan) = maybe {
                if let Some(earlier) = landed.take() {
                    plan.absorb(earlier);
                }
                landed = Some(plan);
            }
            if !why.retryable() || attempt >= ATTEMPTS {
                break why;
            }
            if landed.is_some()
                && let Some(lb) = req.lease_lb()
                && self.status.work_pending(lb).await == Some(false)
            {
                tracing::warn!(request = ?req, error = %why, lb_id = lb, "outcome unknown and the load balancer no longer waits for this work (taken over): not re-planned");
                return Outcome::TakenOver;
            }
            crate::metrics::NB_TXN_RETRIES.inc();
            tracing::info!(request = ?req, error = %why, attempt, "re-planning from a fresh NB snapshot");
        };
        tracing::error!(request = ?req, error = %why, attempts = attempt, "OVN provider request failed");
        let snap = self.nb.snapshot(&req.scope()).await.ok();
        // HM ports made for the request go again, unless an attempt may have committed (its
        // rows may map members through them; the replica may not say so yet)
        if landed.is_none() {
            self.ports
                .cleanup_hm_ports(self.nb.as_ref(), &hm_subnets)
                .await;
            if let Request::LbCreate(lb) = &req {
                self.ports
                    .delete_vip_ports_if_ours(
                        snap.as_ref(),
                        lb.vip_port_id.as_deref(),
                        &lb::additional_port_ids(lb),
                    )
                    .await;
            }
        }
        Outcome::Failed(error_report(&req, snap.as_ref()))
    }

    /// One attempt: snapshot, facts, plan, commit. The subnets whose HM port the facts
    /// step may have made are added to `hm_subnets`.
    async fn attempt(&self, req: &Request, hm_subnets: &mut Vec<String>) -> Attempt {
        let planned = async {
            let stage = tracing::trace_span!(target: "keel::stage", "nb_snapshot");
            let mut snap = self.nb.snapshot(&req.scope()).instrument(stage).await?;
            let stage = tracing::trace_span!(target: "keel::stage", "neutron_facts");
            let facts = self.facts(req, &mut snap).instrument(stage).await?;
            for s in facts.members.hm_source.keys() {
                if !hm_subnets.contains(s) {
                    hm_subnets.push(s.clone());
                }
            }
            let _stage = tracing::trace_span!(target: "keel::stage", "nb_plan").entered();
            plan(req, &snap, &facts)
        };
        let plan = match planned.await {
            Ok(p) => p,
            Err(e) => return Attempt::Failed(e, None),
        };
        if plan.ops.is_empty() {
            return Attempt::Done(plan);
        }
        let stage = tracing::trace_span!(target: "keel::stage", "nb_transaction");
        let committed = self.nb.transact(&plan.ops).instrument(stage).await;
        match committed {
            Ok(()) => Attempt::Done(plan),
            Err(e) if e.maybe_committed() => Attempt::Failed(e.into(), Some(plan)),
            Err(e) => Attempt::Failed(e.into(), None),
        }
    }

    /// The Neutron facts of `req`, `snap` widened to the switches they name.
    async fn facts(&self, req: &Request, snap: &mut NbSnapshot) -> Result<Facts, JobError> {
        let mut facts = Facts::default();
        match req {
            Request::LbCreate(lb) => {
                let c = self.ports.lb_create_facts(lb).await?;
                snap.include_switches(&[ext::ovn_name(&c.vip_subnet.network_id)]);
                facts.lb = Some(c);
            }
            Request::PoolDelete { p, .. } => {
                let subnets = member::pool_subnets(snap, &p.id);
                facts.members = self.ports.member_facts(snap, &subnets, &[], false).await;
            }
            Request::Members {
                pool_id, create, ..
            } => facts.members = self.pool_member_facts(snap, pool_id, create).await,
            Request::MemberBatch {
                pool_id, desired, ..
            } => facts.members = self.pool_member_facts(snap, pool_id, desired).await,
            Request::HmCreate { hm, .. } => facts.members = self.hm_facts(snap, hm).await,
            Request::HmUpdate { hm, full, .. } if hm::update_enables(snap, hm) => {
                facts.members = self.hm_facts(snap, full).await;
            }
            _ => return Ok(facts),
        }
        snap.include_switches(&facts.members.switch_names());
        Ok(facts)
    }

    /// The member facts of a change to `pool_id` adding `members` (their subnets and those of
    /// the members already there; HM ports when the row has health checks).
    async fn pool_member_facts(
        &self,
        snap: &NbSnapshot,
        pool_id: &str,
        members: &[MemberReq],
    ) -> MemberFacts {
        let mut subnets: Vec<String> = members.iter().map(|m| m.subnet_id.clone()).collect();
        subnets.extend(member::pool_subnets(snap, pool_id));
        let given: Vec<provider::Subnet> =
            members.iter().filter_map(|m| m.subnet.clone()).collect();
        let with_hc = snap
            .lb_by_pool(pool_id)
            .is_some_and(|(r, _)| !r.health_check.is_empty());
        self.ports
            .member_facts(snap, &subnets, &given, with_hc)
            .await
    }

    /// `hm_create` (also an update turning a disabled monitor on): the pool's member subnets
    /// with their HM ports, made on first use (a disabled monitor maps nothing: none made).
    async fn hm_facts(&self, snap: &NbSnapshot, hm: &hm::HmReq) -> MemberFacts {
        let subnets = member::pool_subnets(snap, &hm.pool_id);
        self.ports
            .member_facts(snap, &subnets, &[], hm.enabled)
            .await
    }

    /// The post-commit Neutron work of every plan, side by side (the report waits for it: a
    /// client deletes the network next): VIP ports of a deleted LB, HM ports that lost their
    /// last user, member FIPs to recompute.
    async fn after_commit(&self, plan: &Plan) {
        let vip = &plan.vip_ports;
        tokio::join!(
            async {
                if vip.vip.is_some() || !vip.additional.is_empty() {
                    let snap = self.nb.snapshot(&Default::default()).await.ok();
                    self.ports
                        .delete_vip_ports_if_ours(
                            snap.as_ref(),
                            vip.vip.as_deref(),
                            &vip.additional,
                        )
                        .await;
                }
            },
            self.ports
                .cleanup_hm_ports(self.nb.as_ref(), &plan.hm_subnets),
            self.ports.recompute_member_fips(&plan.fip_ports),
        );
    }
}

/// The plan of `req` on `snap`: one planner call per request.
fn plan(req: &Request, snap: &NbSnapshot, facts: &Facts) -> Result<Plan, JobError> {
    let m = &facts.members;
    let mut p = match req {
        Request::LbCreate(_) => {
            let c = facts.lb.as_ref().ok_or(JobError::Facts("no VIP facts"))?;
            lb::create(snap, c)?
        }
        Request::LbUpdate { lb_id, enabled } => lb::update(snap, lb_id, *enabled)?,
        Request::LbDelete { lb, cascade } => {
            let mut p = lb::delete_request(snap, lb, *cascade);
            p.ops.extend(cidrs::remove_lb(&lb.loadbalancer_id));
            p
        }
        Request::ListenerCreate(l) => {
            let mut p = listener::create(snap, l)?;
            p.ops.extend(cidrs::listener_req(snap, l));
            p
        }
        Request::ListenerUpdate {
            l,
            enabled,
            default_pool,
        } => {
            let mut p = listener::update(snap, l, *enabled, default_pool.clone())?;
            p.ops.extend(cidrs::listener_req(snap, l));
            p
        }
        Request::ListenerDelete(l) => {
            let mut p = listener::delete(snap, l);
            p.ops.extend(cidrs::remove_listener(&l.id));
            p
        }
        Request::PoolCreate(p) => pool::create(snap, p)?,
        Request::PoolUpdate {
            p,
            enabled,
            algorithm,
        } => pool::update(snap, p, *enabled, algorithm.as_deref())?,
        Request::PoolDelete { p, hm_id, members } => {
            pool::delete(snap, p, hm_id.as_deref(), members, m)
        }
        Request::Members {
            pool_id,
            create,
            update,
            delete,
            ..
        } => member::change(snap, pool_id, create, update, delete, m)?,
        Request::MemberBatch {
            pool_id, desired, ..
        } => member::batch(snap, pool_id, desired, m)?,
        Request::HmCreate { hm, .. } => hm::create(snap, hm, m)?,
        Request::HmUpdate { hm, full, .. } if hm::update_enables(snap, hm) => {
            hm::create(snap, full, m)?
        }
        Request::HmUpdate { hm, .. } => hm::update(snap, hm)?,
        Request::HmDelete { hm_id, pool_id, .. } => hm::delete(snap, hm_id, pool_id),
        Request::ServiceMonitor { lb_id, ev } => hm::service_monitor_update(snap, lb_id, ev),
        Request::RouterPort(ev) if ev.created => events::lrp_created(snap, ev),
        Request::RouterPort(ev) => events::lrp_deleted(snap, ev),
        Request::VipFip(ev) => events::vip_fip(snap, ev),
        Request::Anchors { lb_id } => Plan {
            ops: cidrs::refresh_lb(snap, lb_id),
            ..Plan::default()
        },
        // run step by step in `handle`; never planned as one
        Request::Graph(_) => return Err(JobError::Graph),
    };
    // the `allowed_cidrs` rows follow their LB's floating IPs and networks
    if matches!(
        req,
        Request::Members { .. }
            | Request::MemberBatch { .. }
            | Request::RouterPort(_)
            | Request::VipFip(_)
    ) {
        let more = cidrs::refresh_touched(snap, &p.ops);
        p.ops.extend(more);
    }
    Ok(p)
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::BTreeMap;
    use std::sync::Mutex;

    use async_trait::async_trait;
    use openstack::{HttpConfig, NeutronClient, NeutronConfig, ServiceAuth, ServiceAuthConfig};
    use provider::{
        HealthMonitor, Listener, LoadBalancer, Member, OperatingStatus as Op, Pool, ProviderDriver,
        ProvisioningStatus as Prov, StatsReport, StatusRecord, StatusReport, StatusSink,
        StatusSinkError,
    };
    use serde_json::{Value, json};
    use tokio::sync::mpsc;

    use super::ATTEMPTS;
    use crate::driver::{OvnConfig, OvnProvider};
    use crate::nb::{Datum, NbSnapshot, Op as NbOp};
    use crate::ovsdb_nb::{NbDatabase, NbError};
    use crate::scope::Scope;

    /// The error of a failed `wait` guard (a retryable refusal), with `details`.
    fn timed_out(details: Option<String>) -> ovsdb::Error {
        ovsdb::Error::Transaction(ovsdb::TxnError {
            kind: ovsdb::TxnErrorKind::TimedOut,
            error: "timed out".into(),
            details,
            op_index: None,
        })
    }

    /// How the fake NB's first `fail` transactions end.
    #[derive(Clone, Copy, PartialEq, Eq)]
    pub(crate) enum Failure {
        /// Refused, nothing written (`retry` as given: a failed guard, a permanent error).
        Refused { retry: bool },
        /// Committed, then the connection dropped before the reply: outcome unknown.
        CommittedThenDropped,
        /// Dropped before the server saw it: outcome unknown, nothing written.
        Dropped,
    }

    /// An NB that applies the driver's typed transactions with the crate's simulator
    /// ([`crate::sim::apply`]: waits, inserts, updates, deletes; all or nothing) and fails the
    /// first `fail`.
    pub(crate) struct FakeNb {
        snap: Mutex<NbSnapshot>,
        seq: Mutex<usize>,
        fail: Mutex<usize>,
        failure: Failure,
        pub(crate) calls: Mutex<Vec<Vec<NbOp>>>,
    }

    impl FakeNb {
        /// How many rows `table` holds (`Load_Balancer` or `Load_Balancer_Health_Check`).
        fn count(&self, table: &str) -> usize {
            let snap = self.snap.lock().unwrap();
            match table {
                "Load_Balancer" => snap.load_balancers.len(),
                _ => snap.health_checks.len(),
            }
        }

        /// Apply `ops` as ovsdb-server would (all or nothing); a failed `wait` is retryable.
        fn apply(&self, ops: &[NbOp]) -> Result<(), NbError> {
            let mut snap = self.snap.lock().unwrap();
            let mut next = snap.clone();
            crate::sim::apply(&mut next, ops, &mut self.seq.lock().unwrap())
                .map_err(|e| NbError::transact(timed_out(Some(e.to_string()))))?;
            *snap = next;
            Ok(())
        }
    }

    #[async_trait]
    impl NbDatabase for FakeNb {
        async fn snapshot(&self, _scope: &Scope) -> Result<NbSnapshot, NbError> {
            Ok(self.snap.lock().unwrap().clone())
        }
        async fn transact(&self, ops: &[NbOp]) -> Result<(), NbError> {
            self.calls.lock().unwrap().push(ops.to_vec());
            let failing = {
                let mut f = self.fail.lock().unwrap();
                let failing = *f > 0;
                *f = f.saturating_sub(1);
                failing
            };
            let unknown = NbError::transact(ovsdb::Error::OutcomeUnknown);
            match (failing, self.failure) {
                (false, _) => self.apply(ops),
                (true, Failure::Refused { retry: true }) => Err(NbError::transact(timed_out(None))),
                (true, Failure::Refused { retry: false }) => Err(NbError::transact(
                    ovsdb::Error::Transaction(ovsdb::TxnError {
                        kind: ovsdb::TxnErrorKind::ConstraintViolation,
                        error: "constraint violation".into(),
                        details: None,
                        op_index: None,
                    }),
                )),
                (true, Failure::CommittedThenDropped) => {
                    self.apply(ops)?;
                    Err(unknown)
                }
                (true, Failure::Dropped) => Err(unknown),
            }
        }
    }

    /// Reports to a channel; `pending` is its answer to [`StatusSink::work_pending`].
    struct Sink(mpsc::UnboundedSender<StatusReport>, Option<bool>);

    #[async_trait]
    impl StatusSink for Sink {
        async fn update_status(&self, r: StatusReport) -> Result<(), StatusSinkError> {
            let _ = self.0.send(r);
            Ok(())
        }
        async fn update_stats(&self, _: StatsReport) -> Result<(), StatusSinkError> {
            Ok(())
        }
        async fn work_pending(&self, _: &str) -> Option<bool> {
            self.1
        }
    }

    fn unreachable_neutron() -> NeutronClient {
        // every read fails at once (nothing listens on port 9): subnets stay unknown
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

    /// A `Load_Balancer` row named `LB` (VIP 10.0.0.5, enabled) with `extra` external_ids.
    fn lb_row(extra: &[(&str, &str)]) -> Value {
        let mut ids: BTreeMap<&str, &str> = [("neutron:vip", "10.0.0.5"), ("enabled", "True")]
            .into_iter()
            .collect();
        ids.extend(extra.iter().copied());
        let pairs: Vec<Value> = ids.iter().map(|(k, v)| json!([k, v])).collect();
        json!({"name": "LB", "external_ids": ["map", pairs]})
    }

    /// The driver over a [`FakeNb`] holding one LB row (with `extra` external_ids) whose first
    /// `fail` transactions end as `failure` says.
    pub(crate) fn setup_with(
        extra: &[(&str, &str)],
        fail: usize,
        failure: Failure,
    ) -> (
        OvnProvider,
        std::sync::Arc<FakeNb>,
        mpsc::UnboundedReceiver<StatusReport>,
    ) {
        setup_pending(extra, fail, failure, None)
    }

    /// [`setup_with`] whose status sink answers `pending` to
    /// [`StatusSink::work_pending`].
    fn setup_pending(
        extra: &[(&str, &str)],
        fail: usize,
        failure: Failure,
        pending: Option<bool>,
    ) -> (
        OvnProvider,
        std::sync::Arc<FakeNb>,
        mpsc::UnboundedReceiver<StatusReport>,
    ) {
        let mut snap = NbSnapshot::new(true);
        snap.insert_json("Load_Balancer", "u1", &lb_row(extra));
        let nb = std::sync::Arc::new(FakeNb {
            snap: Mutex::new(snap),
            seq: Mutex::new(0),
            fail: Mutex::new(fail),
            failure,
            calls: Mutex::new(vec![]),
        });
        let (tx, rx) = mpsc::unbounded_channel();
        let d = OvnProvider::with_nb(
            nb.clone(),
            unreachable_neutron(),
            std::sync::Arc::new(Sink(tx, pending)),
            OvnConfig::default(),
        );
        (d, nb, rx)
    }

    /// [`setup_with`] an empty LB whose transactions are refused `fail` times.
    pub(crate) fn setup(
        fail: usize,
        retry: bool,
    ) -> (
        OvnProvider,
        std::sync::Arc<FakeNb>,
        mpsc::UnboundedReceiver<StatusReport>,
    ) {
        setup_with(&[], fail, Failure::Refused { retry })
    }

    pub(crate) fn listener() -> Listener {
        Listener {
            listener_id: "L".into(),
            loadbalancer_id: Some("LB".into()),
            protocol: Some("TCP".into()),
            protocol_port: Some(80),
            ..Default::default()
        }
    }

    fn member(id: &str, address: &str) -> Member {
        Member {
            member_id: id.into(),
            pool_id: Some("P".into()),
            address: Some(address.into()),
            protocol_port: Some(80),
            subnet_id: Some("S".into()),
            ..Default::default()
        }
    }

    fn status(list: &[StatusRecord], id: &str) -> (Option<Prov>, Option<Op>) {
        list.iter()
            .find(|r| r.id == id)
            .map(|r| (r.provisioning_status, r.operating_status))
            .unwrap_or((None, None))
    }

    fn lb_ids(nb: &FakeNb) -> Vec<BTreeMap<String, String>> {
        let snap = nb.snap.lock().unwrap();
        snap.load_balancers
            .values()
            .map(|r| r.external_ids.clone())
            .collect()
    }

    #[tokio::test]
    async fn replans_after_a_concurrent_change() {
        let (d, nb, mut rx) = setup(1, true);
        d.listener_create(listener()).await.unwrap();
        let r = rx.recv().await.unwrap();
        assert_eq!(
            status(&r.listeners, "L"),
            (Some(Prov::Active), Some(Op::Online))
        );
        assert_eq!(status(&r.loadbalancers, "LB"), (Some(Prov::Active), None));
        let calls = nb.calls.lock().unwrap();
        assert_eq!(calls.len(), 2, "one failed attempt, one re-planned");
        assert!(matches!(calls[0][0], NbOp::WaitEq { .. }), "{:?}", calls[0]);
    }

    #[tokio::test]
    async fn permanent_failure_reports_error_and_frees_the_lb() {
        let (d, nb, mut rx) = setup(5, false);
        d.listener_create(listener()).await.unwrap();
        let r = rx.recv().await.unwrap();
        assert_eq!(
            status(&r.listeners, "L"),
            (Some(Prov::Error), Some(Op::Error))
        );
        assert_eq!(status(&r.loadbalancers, "LB"), (Some(Prov::Active), None));
        assert_eq!(nb.calls.lock().unwrap().len(), 1);
    }

    #[tokio::test]
    async fn retries_are_bounded() {
        let (d, nb, mut rx) = setup(10, true);
        d.listener_create(listener()).await.unwrap();
        let r = rx.recv().await.unwrap();
        assert_eq!(r.listeners[0].provisioning_status, Some(Prov::Error));
        assert_eq!(nb.calls.lock().unwrap().len(), ATTEMPTS);
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
        assert_eq!(status(&r.loadbalancers, "G").0, Some(Prov::Error), "{r:?}");
        assert_eq!(status(&r.listeners, "L").0, Some(Prov::Error), "{r:?}");
        assert_eq!(status(&r.pools, "P").0, Some(Prov::Error), "{r:?}");
        assert!(nb.calls.lock().unwrap().is_empty());
        assert!(rx.try_recv().is_err(), "one report only");
    }

    /// A member create whose transaction committed while the connection dropped (outcome
    /// unknown) is re-planned from the rows, finds its member there, writes nothing more and
    /// reports the member ACTIVE — one member entry in the pool, not ERROR.
    #[tokio::test]
    async fn member_create_committed_with_unknown_outcome_is_active() {
        let (d, nb, mut rx) = setup_with(&[("pool_P", "")], 1, Failure::CommittedThenDropped);
        d.member_create(member("M", "10.0.0.7")).await.unwrap();
        let r = rx.recv().await.unwrap();
        assert_eq!(
            status(&r.members, "M"),
            (Some(Prov::Active), Some(Op::NoMonitor)),
            "{r:?}"
        );
        assert_eq!(status(&r.pools, "P").0, Some(Prov::Active), "{r:?}");
        assert_eq!(
            status(&r.loadbalancers, "LB").0,
            Some(Prov::Active),
            "{r:?}"
        );
        assert_eq!(
            nb.calls.lock().unwrap().len(),
            1,
            "the re-plan writes nothing"
        );
        let ids = lb_ids(&nb);
        assert_eq!(ids[0]["pool_P"], "member_M_10.0.0.7:80_S");
    }

    /// The same drop before the server saw the transaction: the re-plan writes it.
    #[tokio::test]
    async fn member_create_dropped_before_commit_is_written_again() {
        let (d, nb, mut rx) = setup_with(&[("pool_P", "")], 1, Failure::Dropped);
        d.member_create(member("M", "10.0.0.7")).await.unwrap();
        let r = rx.recv().await.unwrap();
        assert_eq!(status(&r.members, "M").0, Some(Prov::Active), "{r:?}");
        assert_eq!(nb.calls.lock().unwrap().len(), 2);
        assert_eq!(lb_ids(&nb)[0]["pool_P"], "member_M_10.0.0.7:80_S");
    }

    /// An outcome that stays unknown (the NB never answers) ends ERROR after [`ATTEMPTS`]:
    /// bounded, never PENDING.
    #[tokio::test]
    async fn unknown_outcomes_are_bounded() {
        let (d, nb, mut rx) = setup_with(&[("pool_P", "")], 10, Failure::Dropped);
        d.member_create(member("M", "10.0.0.7")).await.unwrap();
        let r = rx.recv().await.unwrap();
        assert_eq!(status(&r.members, "M").0, Some(Prov::Error), "{r:?}");
        assert_eq!(nb.calls.lock().unwrap().len(), ATTEMPTS);
    }

    /// A batch that deleted a member committed with an unknown outcome: the re-plan no longer
    /// sees the deleted member, the report still names it DELETED (kept from the attempt
    /// that landed).
    #[tokio::test]
    async fn batch_delete_committed_with_unknown_outcome_reports_deleted() {
        let pool = "member_A_10.0.0.7:80_S,member_B_10.0.0.8:80_S";
        let status_ids = r#"{"A": "NO_MONITOR", "B": "NO_MONITOR"}"#;
        let extra = [("pool_P", pool), ("neutron:member_status", status_ids)];
        let (d, nb, mut rx) = setup_with(&extra, 1, Failure::CommittedThenDropped);
        d.member_batch_update("P", vec![member("A", "10.0.0.7")])
            .await
            .unwrap();
        let r = rx.recv().await.unwrap();
        assert_eq!(status(&r.members, "B").0, Some(Prov::Deleted), "{r:?}");
        assert_eq!(status(&r.members, "A").0, Some(Prov::Active), "{r:?}");
        assert_eq!(lb_ids(&nb)[0]["pool_P"], "member_A_10.0.0.7:80_S");
    }

    /// A cascade delete committed with an unknown outcome: the rows are gone when it is
    /// re-planned, and the report still names the children the rows held DELETED.
    #[tokio::test]
    async fn cascade_delete_committed_with_unknown_outcome_reports_deleted() {
        let extra = [
            ("listener_L", "80:pool_P"),
            ("pool_P", "member_M_10.0.0.7:80_S"),
        ];
        let (d, nb, mut rx) = setup_with(&extra, 1, Failure::CommittedThenDropped);
        let lb = LoadBalancer {
            loadbalancer_id: "LB".into(),
            ..Default::default()
        };
        d.loadbalancer_delete(lb, true).await.unwrap();
        let r = rx.recv().await.unwrap();
        assert_eq!(
            status(&r.loadbalancers, "LB").0,
            Some(Prov::Deleted),
            "{r:?}"
        );
        assert_eq!(status(&r.listeners, "L").0, Some(Prov::Deleted), "{r:?}");
        assert_eq!(status(&r.pools, "P").0, Some(Prov::Deleted), "{r:?}");
        assert_eq!(status(&r.members, "M").0, Some(Prov::Deleted), "{r:?}");
        assert!(nb.count("Load_Balancer") == 0);
    }

    /// A health monitor create committed with an unknown outcome is not created twice: one
    /// health check per VIP, the monitor ACTIVE.
    #[tokio::test]
    async fn hm_create_committed_with_unknown_outcome_inserts_once() {
        let extra = [("listener_L", "80:pool_P"), ("pool_P", "")];
        let (d, nb, mut rx) = setup_with(&extra, 1, Failure::CommittedThenDropped);
        let hm = HealthMonitor {
            healthmonitor_id: "H".into(),
            pool_id: Some("P".into()),
            kind: Some("TCP".into()),
            delay: Some(5),
            timeout: Some(5),
            max_retries: Some(3),
            admin_state_up: Some(true),
            ..Default::default()
        };
        d.health_monitor_create(hm).await.unwrap();
        let r = rx.recv().await.unwrap();
        assert_eq!(
            status(&r.healthmonitors, "H"),
            (Some(Prov::Active), Some(Op::Online)),
            "{r:?}"
        );
        assert_eq!(nb.count("Load_Balancer_Health_Check"), 1);
        assert_eq!(
            nb.calls.lock().unwrap().len(),
            1,
            "the re-plan writes nothing"
        );
    }

    /// A new row is guarded by a `wait` for no row of its name and protocol, so a re-plan
    /// after an insert whose outcome was unknown cannot insert a second one.
    #[tokio::test]
    async fn new_rows_are_guarded_by_their_absence() {
        let (d, nb, mut rx) = setup_with(&[], 0, Failure::Dropped);
        d.listener_create(listener()).await.unwrap();
        rx.recv().await.unwrap();
        // a listener of another protocol inserts a second row of the LB
        let udp = Listener {
            listener_id: "U".into(),
            protocol: Some("UDP".into()),
            ..listener()
        };
        d.listener_create(udp).await.unwrap();
        let r = rx.recv().await.unwrap();
        assert_eq!(status(&r.listeners, "U").0, Some(Prov::Active), "{r:?}");
        let calls = nb.calls.lock().unwrap();
        let wait = calls[1]
            .iter()
            .find_map(|op| match op {
                NbOp::WaitAbsent { columns, .. } => Some(columns),
                _ => None,
            })
            .expect("a wait for the absence of the new row");
        assert_eq!(
            *wait,
            [
                ("name", Datum::Str("LB".into())),
                ("protocol", Datum::Set(vec!["udp".into()]))
            ]
        );
        assert_eq!(nb.count("Load_Balancer"), 2);
    }

    /// Work that succeeded after its load balancer stopped waiting for it (this process was
    /// frozen past its lease; another one settled the work): its report is dropped.
    #[tokio::test]
    async fn a_report_nobody_waits_for_is_dropped() {
        let (d, nb, mut rx) = setup_pending(&[("pool_P", "")], 0, Failure::Dropped, Some(false));
        d.member_create(member("M", "10.0.0.7")).await.unwrap();
        assert!(d.drain(std::time::Duration::from_secs(10)).await);
        assert!(rx.try_recv().is_err(), "no report");
        assert_eq!(
            nb.calls.lock().unwrap().len(),
            1,
            "the work itself was done"
        );
        // the same work, its load balancer still waiting: reported
        let (d, _nb, mut rx) = setup_pending(&[("pool_P", "")], 0, Failure::Dropped, Some(true));
        d.member_create(member("M", "10.0.0.7")).await.unwrap();
        let r = rx.recv().await.unwrap();
        assert_eq!(status(&r.members, "M").0, Some(Prov::Active), "{r:?}");
    }

    /// An unknown outcome whose load balancer no longer waits for the work (another process
    /// took it over while this one was frozen): not re-planned, nothing reported.
    #[tokio::test]
    async fn taken_over_work_is_not_replanned() {
        let (d, nb, mut rx) = setup_pending(&[("pool_P", "")], 1, Failure::Dropped, Some(false));
        d.member_create(member("M", "10.0.0.7")).await.unwrap();
        assert!(d.drain(std::time::Duration::from_secs(10)).await);
        assert!(rx.try_recv().is_err(), "no report");
        assert_eq!(nb.calls.lock().unwrap().len(), 1, "not re-planned");
        assert_eq!(lb_ids(&nb)[0]["pool_P"], "");
    }
}
