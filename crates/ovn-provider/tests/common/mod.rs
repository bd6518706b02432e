//! Shared set-up of the integration tests against the running stack (ci/stack/README.md).
//!
//! - the stack's addresses ([`env`]) and clients: Neutron with Keel's service credentials
//!   ([`neutron`]), the driver's NB database ([`nb`], [`nb_caught_up`]), raw NB/SB clients
//!   ([`nb_admin`], [`sb`]);
//! - the driver with a status channel ([`driver`], [`driver_with`]) and the report-receiving
//!   helpers ([`next`], [`next_about`], [`step`], [`rec`]);
//! - Neutron resources ([`network`], [`subnet`], [`router_on`], [`member_ports`],
//!   [`topology`]), each recorded in a [`Made`] that [`guarded`] / [`Made::cleanup`] delete;
//! - NB rows: [`snapshot`], [`lb_row`], [`wait_replica`], [`nb_txn`], [`delete_named`];
//! - `check!` and [`Msg::msg`] for scenarios returning `Result<(), String>`.
//!
//! Nothing here starts a process: connections close when their last clone is dropped, and
//! rows written straight into the NB are the caller's to delete.
#![allow(
    dead_code,
    unused_macros,
    unused_imports,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use openstack::{
    FixedIpRequest, HttpConfig, ListFilter, Network, NetworkCreate, NeutronClient, NeutronConfig,
    PortCreate, Router, RouterCreate, ServiceAuth, ServiceAuthConfig, Subnet, SubnetCreate,
};
use ovn_provider::nb::LoadBalancerRow;
use ovn_provider::{NbDatabase, NbSnapshot, OvnConfig, OvnProvider, OvsdbNb};
use provider::{
    LoadBalancer, OperatingStatus as Op, ProviderDriver, ProviderError, ProvisioningStatus as Prov,
    StatsReport, StatusRecord, StatusReport, StatusSink, StatusSinkError, Vip,
};
use serde_json::{Value, json};
use tokio::sync::{mpsc, watch};

/// `check!(cond, "format", args…)`: in a scenario returning `Result<(), String>`, returns the
/// formatted message as the error unless `cond` holds (so the caller's clean-up still runs).
macro_rules! check {
    ($cond:expr, $($arg:tt)*) => {
        if !$cond {
            return Err(format!($($arg)*));
        }
    };
}
pub(crate) use check;

/// `.msg()?`: any displayable error as a scenario's `String` error.
pub trait Msg<T> {
    fn msg(self) -> Result<T, String>;
}

impl<T, E: std::fmt::Display> Msg<T> for Result<T, E> {
    fn msg(self) -> Result<T, String> {
        self.map_err(|e| e.to_string())
    }
}

/// The environment variable `name`; panics saying to run via ci/test.sh when it is missing.
pub fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!("{name} is not set: run the tests via ci/test.sh (it sources ci/stack/env.sh)")
    })
}

/// A fresh unique id (UUID v4 text).
pub fn uid() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// A `BTreeMap<String, String>` of `pairs`.
pub fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

// --- clients -------------------------------------------------------------------------------

/// Neutron (STACK_NEUTRON_URL) as Keel's service user `octavia` in project `service`.
pub fn neutron() -> NeutronClient {
    let http = HttpConfig::default().build_client().unwrap();
    let auth = ServiceAuth::new(
        http,
        ServiceAuthConfig {
            auth_url: env("STACK_KEYSTONE_URL"),
            username: "octavia".into(),
            password: "octavia-pass".into(),
            project_name: "service".into(),
            ..ServiceAuthConfig::default()
        },
    );
    NeutronClient::new(
        auth,
        NeutronConfig {
            endpoint_override: Some(env("STACK_NEUTRON_URL")),
            ..NeutronConfig::default()
        },
    )
}

/// The driver's NB database on STACK_OVN_NB (its own connection and replica).
pub async fn nb() -> Result<OvsdbNb, String> {
    OvsdbNb::connect(&env("STACK_OVN_NB")).await.msg()
}

/// [`nb`], returned once its replica has caught up with the server.
pub async fn nb_caught_up() -> Result<OvsdbNb, String> {
    let nb = nb().await?;
    nb.client().await_replica_caught_up().await.msg()?;
    Ok(nb)
}

fn monitor(tables: &[&str]) -> ovsdb::MonitorSpec {
    tables
        .iter()
        .fold(ovsdb::MonitorSpec::new(), |spec, t| spec.table(t))
}

/// A raw `OVN_Northbound` client on STACK_OVN_NB replicating `tables` (none: transact only).
pub async fn nb_admin(tables: &[&str]) -> Result<ovsdb::Client, String> {
    ovsdb::Client::connect(&env("STACK_OVN_NB"), "OVN_Northbound", monitor(tables))
        .await
        .msg()
}

/// A raw `OVN_Southbound` client on STACK_OVN_SB replicating `tables`.
pub async fn sb(tables: &[&str]) -> Result<ovsdb::Client, String> {
    ovsdb::Client::connect(&env("STACK_OVN_SB"), "OVN_Southbound", monitor(tables))
        .await
        .msg()
}

/// One `OVN_Northbound` transaction of operations written as RFC 7047 JSON (`insert`,
/// `select`, `update`, `mutate`, `delete`), each made the typed [`ovsdb::Operation`] that
/// sends the same JSON; panics on anything else.
pub fn nb_txn(ops: Vec<Value>) -> ovsdb::Transaction {
    ops.iter()
        .fold(ovsdb::Transaction::new("OVN_Northbound"), |t, op| {
            t.push(operation(op))
        })
}

/// The typed operation of one RFC 7047 JSON operation object ([`nb_txn`]).
fn operation(op: &Value) -> ovsdb::Operation {
    let table = op["table"].as_str().expect("table").to_string();
    let columns = |v: &Value| -> ovsdb::Columns {
        v.as_object()
            .expect("row")
            .iter()
            .map(|(k, v)| (k.clone(), datum(v)))
            .collect()
    };
    let conditions = || -> Vec<ovsdb::Condition> {
        op["where"]
            .as_array()
            .expect("where")
            .iter()
            .map(|c| ovsdb::Condition::new(str_at(c, 0), str_at(c, 1), datum(&c[2])))
            .collect()
    };
    match op["op"].as_str() {
        Some("insert") => ovsdb::Operation::Insert {
            table,
            row: columns(&op["row"]),
            uuid_name: op["uuid-name"].as_str().map(str::to_string),
        },
        Some("select") => ovsdb::Operation::Select {
            table,
            conditions: conditions(),
            columns: op["columns"].as_array().map(|c| {
                c.iter()
                    .map(|c| c.as_str().expect("column").into())
                    .collect()
            }),
        },
        Some("update") => ovsdb::Operation::Update {
            table,
            conditions: conditions(),
            row: columns(&op["row"]),
        },
        Some("mutate") => ovsdb::Operation::Mutate {
            table,
            conditions: conditions(),
            mutations: op["mutations"]
                .as_array()
                .expect("mutations")
                .iter()
                .map(|m| ovsdb::Mutation::new(str_at(m, 0), str_at(m, 1), datum(&m[2])))
                .collect(),
        },
        Some("delete") => ovsdb::Operation::Delete {
            table,
            conditions: conditions(),
        },
        other => panic!("nb_txn: no operation {other:?}"),
    }
}

/// The string at `i` of a JSON array.
fn str_at(v: &Value, i: usize) -> String {
    v[i].as_str().expect("a string").to_string()
}

/// An RFC 7047 `<value>` as written: a tagged set or map in its order, else one atom.
fn datum(v: &Value) -> ovsdb::Datum {
    let atom = |a: &Value| ovsdb::Atom::from_json(a).expect("an atom");
    let items = || v[1].as_array().expect("elements").iter();
    match v[0].as_str() {
        Some("set") => ovsdb::Datum::Set(items().map(atom).collect()),
        Some("map") => ovsdb::Datum::Map(items().map(|p| (atom(&p[0]), atom(&p[1]))).collect()),
        _ => ovsdb::Datum::Atom(atom(v)),
    }
}

/// The JSON `delete` operation of the rows of `table` named `name`.
pub fn delete_named(table: &str, name: &str) -> Value {
    json!({"op": "delete", "table": table, "where": [["name", "==", name]]})
}

// --- driver and status reports -------------------------------------------------------------

/// The reports the driver's status sink received, in order.
pub type Reports = mpsc::UnboundedReceiver<StatusReport>;

/// A status sink that forwards every report to a channel (statistics are dropped).
pub struct Sink(pub mpsc::UnboundedSender<StatusReport>);

#[async_trait]
impl StatusSink for Sink {
    async fn update_status(&self, report: StatusReport) -> Result<(), StatusSinkError> {
        let _ = self.0.send(report);
        Ok(())
    }
    async fn update_stats(&self, _: StatsReport) -> Result<(), StatusSinkError> {
        Ok(())
    }
}

/// The driver on `nb` and `n` with the default [`OvnConfig`], and the channel of its reports.
/// It starts no task of its own until an operation is queued.
pub fn driver(nb: Arc<dyn NbDatabase>, n: NeutronClient) -> (OvnProvider, Reports) {
    driver_with(nb, n, OvnConfig::default())
}

/// [`driver`] with `config`.
pub fn driver_with(
    nb: Arc<dyn NbDatabase>,
    n: NeutronClient,
    config: OvnConfig,
) -> (OvnProvider, Reports) {
    let (tx, rx) = mpsc::unbounded_channel();
    (OvnProvider::with_nb(nb, n, Arc::new(Sink(tx)), config), rx)
}

/// The next report; panics when none comes within 60 s or the sink is gone.
pub async fn next(rx: &mut Reports) -> StatusReport {
    tokio::time::timeout(Duration::from_secs(60), rx.recv())
        .await
        .expect("no status report within 60 s")
        .expect("sink closed")
}

/// The next report that names load balancer `lb_id`. An agent follows the whole shared SB, so
/// it legitimately reports on other tests' load balancers too; those reports are skipped.
pub async fn next_about(rx: &mut Reports, lb_id: &str) -> StatusReport {
    loop {
        let r = next(rx).await;
        if r.loadbalancers.iter().any(|l| l.id == lb_id) {
            return r;
        }
    }
}

/// One driver call (`call`, not yet awaited) and the report it leads to: the call's error as
/// the scenario's error, else [`next`].
pub async fn step<T, E: std::fmt::Display>(
    call: impl Future<Output = Result<T, E>>,
    rx: &mut Reports,
) -> Result<StatusReport, String> {
    call.await.msg()?;
    Ok(next(rx).await)
}

/// [`step`] with [`next_about`] `lb_id`: the call, then the next report naming `lb_id`.
pub async fn step_about<T, E: std::fmt::Display>(
    call: impl Future<Output = Result<T, E>>,
    rx: &mut Reports,
    lb_id: &str,
) -> Result<StatusReport, String> {
    call.await.msg()?;
    Ok(next_about(rx, lb_id).await)
}

/// The VIP request of a load balancer on `net_id` / `subnet_id`, at `address` when given
/// (else Neutron picks the address).
pub fn vip_on(net_id: &str, subnet_id: &str, address: Option<&str>) -> Vip {
    Vip {
        vip_network_id: Some(net_id.to_string()),
        vip_subnet_id: Some(subnet_id.to_string()),
        vip_address: address.map(str::to_string),
        ..Default::default()
    }
}

/// The VIP port of load balancer `lb_id` made by driver `d` ([`vip_on`] `net_id`, `subnet_id`,
/// `address`), without additional VIPs; the VIP as the driver completed it.
pub async fn vip_port(
    d: &OvnProvider,
    lb_id: &str,
    net_id: &str,
    subnet_id: &str,
    address: Option<&str>,
) -> Result<Vip, ProviderError> {
    d.create_vip_port(lb_id, "", vip_on(net_id, subnet_id, address), vec![])
        .await
        .map(|(vip, _)| vip)
}

/// Load balancer `lb_id`, enabled, on `vip` (as `create_vip_port` returned it) in `net_id` /
/// `subnet_id`, without listeners or pools.
pub fn lb_on(lb_id: &str, vip: &Vip, net_id: &str, subnet_id: &str) -> LoadBalancer {
    LoadBalancer {
        loadbalancer_id: lb_id.into(),
        admin_state_up: Some(true),
        vip_address: vip.vip_address.clone(),
        vip_network_id: Some(net_id.to_string()),
        vip_port_id: vip.vip_port_id.clone(),
        vip_subnet_id: Some(subnet_id.to_string()),
        ..Default::default()
    }
}

/// `options` of the NB health check of a TCP monitor with delay 5, timeout 3, max_retries 2,
/// max_retries_down 3 (seed 000: interval, timeout, success_count, failure_count).
pub const HC_OPTIONS: [(&str, &str); 4] = [
    ("interval", "5"),
    ("timeout", "3"),
    ("success_count", "2"),
    ("failure_count", "3"),
];

/// An OVSDB `["map", [[k, v], …]]` of `pairs`.
pub fn ovsdb_map(pairs: &[(&str, &str)]) -> Value {
    json!(["map", pairs.iter().map(|(k, v)| [k, v]).collect::<Vec<_>>()])
}

/// `(provisioning_status, operating_status)` of object `id` in `list`; panics when absent.
pub fn rec(list: &[StatusRecord], id: &str) -> (Option<Prov>, Option<Op>) {
    let r = list
        .iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("no record for {id} in {list:?}"));
    (r.provisioning_status, r.operating_status)
}

// --- NB rows -------------------------------------------------------------------------------

/// A full snapshot of `nb`'s replica.
pub async fn snapshot(nb: &dyn NbDatabase) -> Result<NbSnapshot, String> {
    nb.full_snapshot().await.msg()
}

/// The first `Load_Balancer` row named `lb_id` (an error when there is none).
pub async fn lb_row(nb: &dyn NbDatabase, lb_id: &str) -> Result<LoadBalancerRow, String> {
    snapshot(nb)
        .await?
        .lbs_named(lb_id)
        .first()
        .map(|r| (*r).clone())
        .ok_or_else(|| format!("row gone: no Load_Balancer row named {lb_id}"))
}

/// Waits until `f` finds what it looks for in `c`'s replica (re-checked on every change
/// event); after 30 s the error `timed out waiting for: {what}`.
pub async fn wait_replica<T>(
    c: &ovsdb::Client,
    what: &str,
    f: impl Fn(&ovsdb::Snapshot) -> Option<T>,
) -> Result<T, String> {
    let mut events = c.subscribe();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(v) = f(&c.replica()) {
            return Ok(v);
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(format!("timed out waiting for: {what}"));
        }
        let _ = tokio::time::timeout_at(deadline, events.recv()).await;
    }
}

/// The `_uuid` of a SB `Service_Monitor` row of `snap` that `pick` accepts.
pub fn find_monitor(
    snap: &ovsdb::Snapshot,
    pick: impl Fn(&ovn_provider::sb::ServiceMonitorRow) -> bool,
) -> Option<ovsdb::Uuid> {
    use ovn_provider::sb::{self, ServiceMonitorRow};
    sb::rows(snap, sb::SERVICE_MONITOR, ServiceMonitorRow::from_row)
        .into_iter()
        .find(|r| pick(r))
        .map(|r| r.uuid)
}

/// Sets `status` of the SB `Service_Monitor` row `uuid` (as ovn-controller would), in one
/// transaction.
pub async fn set_monitor_status(
    sb: &ovsdb::Client,
    uuid: ovsdb::Uuid,
    status: &str,
) -> Result<(), String> {
    sb.transact(ovsdb::Transaction::new("OVN_Southbound").update(
        "Service_Monitor",
        &[ovsdb::Condition::uuid(uuid)],
        [("status", ovsdb::Value::set([status]))],
    ))
    .await
    .msg()?;
    Ok(())
}

/// Sets `up` of the SB `Port_Binding` of `logical_port` to true, as ovn-controller does once it
/// has bound the port (this stack runs none). ovn-northd (OVN 23.03 `ovn_lb_svc_create`) sets
/// an `online` `Service_Monitor` of a port whose binding is not up back to `offline`; with the
/// port up, a status the test writes stays. Exactly one row must match.
pub async fn set_port_up(sb: &ovsdb::Client, logical_port: &str) -> Result<(), String> {
    let r = sb
        .transact(ovsdb::Transaction::new("OVN_Southbound").update(
            "Port_Binding",
            &[ovsdb::Condition::eq("logical_port", logical_port)],
            [("up", ovsdb::Value::set([true]))],
        ))
        .await
        .msg()?;
    match r.first().and_then(|o| o.count) {
        Some(1) => Ok(()),
        n => Err(format!(
            "Port_Binding rows of {logical_port} updated: {n:?}"
        )),
    }
}

/// Waits up to `secs` seconds for the lock watch `held` to say the lock is held.
pub async fn wait_held(held: &mut watch::Receiver<bool>, secs: u64, what: &str) {
    tokio::time::timeout(Duration::from_secs(secs), held.wait_for(|h| *h))
        .await
        .unwrap_or_else(|_| panic!("{what}"))
        .unwrap();
}

// --- Neutron resources and their clean-up ---------------------------------------------------

/// What a test made in Neutron, in creation order per kind.
#[derive(Default)]
pub struct Resources {
    /// Ports deleted by name (the driver's VIP `ovn-lb-vip-<lb>` and HM `ovn-lb-hm-<subnet>`
    /// ports, whose ids the test may never learn).
    pub port_names: Vec<String>,
    pub ports: Vec<String>,
    /// `(router, subnet)` of a router interface.
    pub router_if: Option<(String, String)>,
    pub router: Option<String>,
    pub subnet: Option<String>,
    pub network: Option<String>,
}

/// A shared record of [`Resources`]: clones see the same record, so a scenario running in
/// its own task can record what it makes and the caller still deletes it after a panic.
#[derive(Clone, Default)]
pub struct Made(Arc<Mutex<Resources>>);

impl Made {
    /// A record that already lists the ports named `port_names`.
    pub fn with_port_names(port_names: Vec<String>) -> Self {
        Made(Arc::new(Mutex::new(Resources {
            port_names,
            ..Resources::default()
        })))
    }

    /// Changes the record.
    pub fn record(&self, f: impl FnOnce(&mut Resources)) {
        f(&mut self.0.lock().unwrap_or_else(|p| p.into_inner()));
    }

    /// Records port `id`.
    pub fn port(&self, id: &str) {
        self.record(|r| r.ports.push(id.to_string()));
    }

    /// Records the ports named `name`.
    pub fn port_name(&self, name: String) {
        self.record(|r| r.port_names.push(name));
    }

    /// Deletes everything recorded (ports by name, ports, router interface, router, subnet,
    /// network), ignoring errors (already gone), and empties the record.
    pub async fn cleanup(&self, n: &NeutronClient) {
        let m = std::mem::take(&mut *self.0.lock().unwrap_or_else(|p| p.into_inner()));
        for name in &m.port_names {
            if let Ok(ports) = n
                .list_ports(&ListFilter::new().eq("name", name.clone()))
                .await
            {
                for p in ports {
                    let _ = n.delete_port(&p.id).await;
                }
            }
        }
        for p in &m.ports {
            let _ = n.delete_port(p).await;
        }
        if let Some((r, s)) = &m.router_if {
            let _ = n.remove_router_interface(r, s).await;
        }
        if let Some(r) = &m.router {
            let _ = n.delete_router(r).await;
        }
        if let Some(s) = &m.subnet {
            let _ = n.delete_subnet(s).await;
        }
        if let Some(net) = &m.network {
            let _ = n.delete_network(net).await;
        }
    }
}

/// Runs `scenario` in its own task (a panic in it becomes the error `scenario panicked: …`)
/// with a Neutron client and a [`Made`] already listing `port_names`; then deletes everything
/// recorded in it, whatever the outcome, and returns the scenario's outcome.
pub async fn guarded<F, Fut>(port_names: Vec<String>, scenario: F) -> Result<(), String>
where
    F: FnOnce(NeutronClient, Made) -> Fut,
    Fut: Future<Output = Result<(), String>> + Send + 'static,
{
    let n = neutron();
    let made = Made::with_port_names(port_names);
    let outcome = match tokio::spawn(scenario(n.clone(), made.clone())).await {
        Ok(r) => r,
        Err(e) => Err(format!("scenario panicked: {e}")),
    };
    made.cleanup(&n).await;
    outcome
}

/// [`guarded`] for a scenario about one new load balancer: a fresh id (passed to it) whose
/// VIP port `ovn-lb-vip-<id>` is deleted afterwards; panics with the scenario's error.
pub async fn guarded_lb<F, Fut>(scenario: F)
where
    F: FnOnce(NeutronClient, String, Made) -> Fut,
    Fut: Future<Output = Result<(), String>> + Send + 'static,
{
    let lb_id = uid();
    let vip_port = format!("ovn-lb-vip-{lb_id}");
    if let Err(e) = guarded(vec![vip_port], |n, made| scenario(n, lb_id, made)).await {
        panic!("{e}");
    }
}

/// A network named `name`, recorded in `made`.
pub async fn network(n: &NeutronClient, made: &Made, name: String) -> Result<Network, String> {
    let net = n
        .create_network(&NetworkCreate {
            name: Some(name),
            ..Default::default()
        })
        .await
        .msg()?;
    made.record(|r| r.network = Some(net.id.clone()));
    Ok(net)
}

/// An IPv4 subnet `cidr` on `net_id`, recorded in `made` together with the name of the HM
/// port the driver may make on it (`ovn-lb-hm-<subnet>`).
pub async fn subnet(
    n: &NeutronClient,
    made: &Made,
    net_id: &str,
    cidr: &str,
) -> Result<Subnet, String> {
    let subnet = n
        .create_subnet(&SubnetCreate {
            network_id: net_id.to_string(),
            cidr: cidr.into(),
            ip_version: 4,
            ..Default::default()
        })
        .await
        .msg()?;
    made.record(|r| {
        r.subnet = Some(subnet.id.clone());
        r.port_names.push(format!("ovn-lb-hm-{}", subnet.id));
    });
    Ok(subnet)
}

/// A router named `name` with an interface on `subnet_id`, both recorded in `made`.
pub async fn router_on(
    n: &NeutronClient,
    made: &Made,
    name: String,
    subnet_id: &str,
) -> Result<Router, String> {
    let router = n
        .create_router(&RouterCreate {
            name: Some(name),
            ..Default::default()
        })
        .await
        .msg()?;
    made.record(|r| r.router = Some(router.id.clone()));
    n.add_router_interface(&router.id, subnet_id).await.msg()?;
    made.record(|r| r.router_if = Some((router.id.clone(), subnet_id.to_string())));
    Ok(router)
}

/// One port per address in `ips` on `net_id` / `subnet_id` (the members' ports), recorded in
/// `made`; their ids in the order of `ips`.
pub async fn member_ports(
    n: &NeutronClient,
    made: &Made,
    net_id: &str,
    subnet_id: &str,
    ips: &[&str],
) -> Result<Vec<String>, String> {
    let mut ids = Vec::new();
    for ip in ips {
        let p = n
            .create_port(&PortCreate {
                network_id: net_id.to_string(),
                fixed_ips: Some(vec![FixedIpRequest::address(
                    subnet_id.to_string(),
                    ip.parse().msg()?,
                )]),
                ..Default::default()
            })
            .await
            .msg()?;
        made.port(&p.id);
        ids.push(p.id);
    }
    Ok(ids)
}

/// What [`topology`] made.
pub struct Topology {
    pub net: Network,
    pub subnet: Subnet,
    pub router: Option<Router>,
    /// The member ports' ids, in the order of the addresses asked for.
    pub ports: Vec<String>,
}

/// Network `name` + subnet 10.0.0.0/24 (+ router `name` with an interface on it when
/// `router`) + a port per address in `member_ips`: the usual member topology, all recorded
/// in `made`.
pub async fn topology(
    n: &NeutronClient,
    made: &Made,
    name: &str,
    router: bool,
    member_ips: &[&str],
) -> Result<Topology, String> {
    let net = network(n, made, name.to_string()).await?;
    let subnet = subnet(n, made, &net.id, "10.0.0.0/24").await?;
    let router = if router {
        Some(router_on(n, made, name.to_string(), &subnet.id).await?)
    } else {
        None
    };
    let ports = member_ports(n, made, &net.id, &subnet.id, member_ips).await?;
    Ok(Topology {
        net,
        subnet,
        router,
        ports,
    })
}
