//! One queued job of the driver: the [`Request`] an API call or an agent event became, the
//! NB rows it starts from ([`Request::scope`]) and what it reports when it fails
//! ([`error_report`]), or, as one step of a graph create, how its report merges
//! ([`merge_report`]).

use provider::{LoadBalancer, OperatingStatus as Op, ProvisioningStatus as Prov, StatusReport};

use crate::events::{FipEvent, LrpEvent};
use crate::external_ids as ext;
use crate::hm::{self, HmReq};
use crate::listener::ListenerReq;
use crate::member::MemberReq;
use crate::nb::NbSnapshot;
use crate::pool::PoolReq;
use crate::scope::Scope;
use crate::status::{Kind, put};

/// One queued request.
#[derive(Debug, Clone)]
pub(crate) enum Request {
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
        /// `lb_algorithm` when the update sets it.
        algorithm: Option<String>,
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
    /// `hm` carries what the update sets; `full` the whole monitor it leaves (for turning a
    /// disabled one on again).
    HmUpdate {
        lb_id: String,
        hm: HmReq,
        full: HmReq,
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
    RouterPort(LrpEvent),
    VipFip(FipEvent),
    /// The `allowed_cidrs` rows of a load balancer re-anchored and their VIP sets rewritten
    /// (an anchor port left one of its port groups: [`crate::cidrs::refresh_lb`]).
    Anchors {
        lb_id: String,
    },
    /// A single-call (graph) LB create: the steps run in order and ONE report covering
    /// them all is sent after the last, so nothing of the call is ACTIVE before all of it is
    /// in NB; the first failing step reports ERROR for its object and for every
    /// object of the steps after it (never left PENDING_CREATE).
    Graph(Vec<Request>),
}

impl Request {
    /// The request's kind, for logs and metrics.
    pub(crate) fn kind(&self) -> &'static str {
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
            Request::Anchors { .. } => "Anchors",
            Request::Graph(_) => "Graph",
        }
    }

    /// The load balancer whose PENDING_* state (and lease) an API request's work holds;
    /// `None` for agent events and graphs (each graph step names its own).
    pub(crate) fn lease_lb(&self) -> Option<&str> {
        match self {
            Request::LbCreate(lb) | Request::LbDelete { lb, .. } => Some(&lb.loadbalancer_id),
            Request::LbUpdate { lb_id, .. }
            | Request::Members { lb_id, .. }
            | Request::MemberBatch { lb_id, .. }
            | Request::HmCreate { lb_id, .. }
            | Request::HmUpdate { lb_id, .. }
            | Request::HmDelete { lb_id, .. } => Some(lb_id),
            Request::ListenerCreate(l)
            | Request::ListenerDelete(l)
            | Request::ListenerUpdate { l, .. } => Some(&l.lb_id),
            Request::PoolCreate(p)
            | Request::PoolUpdate { p, .. }
            | Request::PoolDelete { p, .. } => Some(&p.lb_id),
            Request::ServiceMonitor { .. }
            | Request::RouterPort(_)
            | Request::VipFip(_)
            | Request::Anchors { .. }
            | Request::Graph(_) => None,
        }
    }

    /// The NB rows the request starts from (see [`crate::scope`]).
    pub(crate) fn scope(&self) -> Scope {
        let with_pool = |lb_id: &str, pool_id: &str| Scope {
            lbs: vec![lb_id.to_string()],
            pools: vec![pool_id.to_string()],
            ..Default::default()
        };
        match self {
            Request::LbCreate(lb) | Request::LbDelete { lb, .. } => Scope::lb(&lb.loadbalancer_id),
            Request::LbUpdate { lb_id, .. } => Scope::lb(lb_id),
            // a deleted monitor: is the member's port gone or disabled?
            Request::ServiceMonitor { lb_id, ev } => Scope {
                ports: vec![ev.logical_port.clone()],
                ..Scope::lb(lb_id)
            },
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
            Request::HmCreate { lb_id, hm } | Request::HmUpdate { lb_id, hm, .. } => {
                with_pool(lb_id, &hm.pool_id)
            }
            Request::RouterPort(ev) => Scope {
                switches: vec![ev.network.clone()],
                lbs_on_switches: vec![ev.network.clone()],
                lbs_on_routers: vec![ev.router.clone()],
                ..Default::default()
            },
            // the VIP port's `neutron:port_fip` says whether the event is stale
            Request::VipFip(ev) => Scope {
                all_switch_ports: true,
                ..Scope::lb(&ev.lb_id)
            },
            Request::Anchors { lb_id } => Scope::lb(lb_id),
            Request::Graph(steps) => steps.first().map(Request::scope).unwrap_or_default(),
        }
    }
}

/// Adds `from`'s records to `into` ([`put`]: a later status for the same object wins),
/// except that an object already ERROR stays ERROR: the steps of one graph report their
/// parents ACTIVE, which must not hide that the parent's own step failed.
pub(crate) fn merge_report(into: &mut StatusReport, from: StatusReport) {
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

/// The report of a failed request: the object ERROR, its parents ACTIVE (so the LB becomes
/// mutable again), as the reference's exception paths.
#[allow(
    clippy::too_many_lines,
    reason = "a known exception of clippy.toml's bound"
)]
pub(crate) fn error_report(req: &Request, snap: Option<&NbSnapshot>) -> StatusReport {
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
        Request::HmCreate { lb_id, hm } | Request::HmUpdate { lb_id, hm, .. } => {
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
        Request::ServiceMonitor { .. }
        | Request::RouterPort(_)
        | Request::VipFip(_)
        | Request::Anchors { .. } => {}
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
