//! Regression cases (bugs found in the driver, each kept as a test) against the running stack (ci/stack: NB/SB ovsdb-server,
//! ovn-northd, Neutron), through the OVN driver, asserting exact NB rows:
//!
//! 1. IPv6 load balancer with two members and a TCP health monitor: bracketed `vips`, health
//!    check `vip` and `ip_port_mappings` (`[member]` = `<lsp>:[hm source]`, as ovn-nb(5) and
//!    ovn_octavia_provider/ovsdb/impl_idl_ovn.py `AddBackendToIPPortMapping`).
//! 2. TCP and UDP listeners on the same port: two rows; deleting the UDP listener leaves the
//!    TCP row untouched.
//! 3. A member created disabled is OFFLINE and out of `vips` until enabled.
//! 4. A member batch with a `monitor_address` is refused whole (501) and changes no row.
//! 5. LB disable empties `vips` (`enabled` False); enable restores exactly the previous `vips`.
//!
//! No agent runs here (parallel phase of ci/test.sh). Every test deletes what it made — the
//! NB rows through the driver's cascade delete (raw NB delete as a fallback), then the Neutron
//! resources — whatever the outcome. Clients, the driver and `check!` come from tests/common;
//! the per-test world ([`Stack`]), its clean-up and the IPv6 topology are local.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::future::Future;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use openstack::{
    FixedIpRequest, ListFilter, NetworkCreate, NeutronClient, PortCreate, SubnetCreate,
};
use ovn_provider::nb::LoadBalancerRow;
use ovn_provider::sb::{self, ServiceMonitorRow};
use ovn_provider::{NbDatabase, OvnProvider};
use provider::{
    HealthMonitor, Listener, LoadBalancer, Member, OperatingStatus as Op, Pool, ProviderDriver,
    ProviderError, ProvisioningStatus as Prov, StatusRecord, StatusReport, Vip,
};
use serde_json::json;

mod common;
use common::{
    Msg, Reports, check, driver, nb_admin, nb_caught_up, nb_txn, neutron, sb, uid, wait_replica,
};

// --- local helpers ----------------------------------------------------------------------------

/// `(provisioning_status, operating_status)` of `id` in `list`, `(None, None)` when absent.
fn status_of(list: &[StatusRecord], id: &str) -> (Option<Prov>, Option<Op>) {
    list.iter().find(|r| r.id == id).map_or((None, None), |r| {
        (r.provisioning_status, r.operating_status)
    })
}

/// What a test made in Neutron; deleted by [`Stack::cleanup`].
#[derive(Default)]
struct Made {
    /// Ports deleted by name: the driver's `ovn-lb-vip-<lb>` and `ovn-lb-hm-<subnet>`.
    port_names: Vec<String>,
    ports: Vec<String>,
    subnet: Option<String>,
    network: Option<String>,
}

/// One test's world: Neutron, the driver on its own NB connection, its reports, and the
/// record of what to delete.
struct Stack {
    n: NeutronClient,
    nb: Arc<dyn NbDatabase>,
    driver: OvnProvider,
    rx: tokio::sync::Mutex<Reports>,
    made: Mutex<Made>,
    lb_id: String,
}

impl Stack {
    async fn new() -> Result<Arc<Stack>, String> {
        let n = neutron();
        let nb: Arc<dyn NbDatabase> = Arc::new(nb_caught_up().await?);
        let (driver, rx) = driver(nb.clone(), n.clone());
        let lb_id = uid();
        let made = Made {
            port_names: vec![format!("ovn-lb-vip-{lb_id}")],
            ..Made::default()
        };
        Ok(Arc::new(Stack {
            n,
            nb,
            driver,
            rx: tokio::sync::Mutex::new(rx),
            made: Mutex::new(made),
            lb_id,
        }))
    }

    fn record(&self, f: impl FnOnce(&mut Made)) {
        f(&mut self.made.lock().unwrap_or_else(|p| p.into_inner()));
    }

    /// The next status report (60 s at most).
    async fn next(&self) -> Result<StatusReport, String> {
        let mut rx = self.rx.lock().await;
        tokio::time::timeout(Duration::from_secs(60), rx.recv())
            .await
            .map_err(|_| "no status report within 60 s".to_string())?
            .ok_or_else(|| "status sink closed".to_string())
    }

    /// One driver call and the report it leads to.
    async fn step<T, E: std::fmt::Display>(
        &self,
        call: impl Future<Output = Result<T, E>>,
    ) -> Result<StatusReport, String> {
        call.await.msg()?;
        self.next().await
    }

    /// Every `Load_Balancer` row of this test's LB, from the driver's replica.
    async fn rows(&self) -> Result<Vec<LoadBalancerRow>, String> {
        let snap = self.nb.full_snapshot().await.msg()?;
        Ok(snap.lbs_named(&self.lb_id).into_iter().cloned().collect())
    }

    /// The only row of this test's LB.
    async fn row(&self) -> Result<LoadBalancerRow, String> {
        let rows = self.rows().await?;
        check!(rows.len() == 1, "one Load_Balancer row expected: {rows:?}");
        Ok(rows.into_iter().next().unwrap())
    }

    /// Network + subnet `cidr` (+ the HM port name of the subnet) + one port per address in
    /// `ips`; `(network, subnet, port ids)`.
    async fn topology(
        &self,
        cidr: &str,
        ips: &[IpAddr],
    ) -> Result<(String, String, Vec<String>), String> {
        let net = self
            .n
            .create_network(&NetworkCreate {
                name: Some(format!("keel-ovnp-reg-{}", self.lb_id)),
                ..Default::default()
            })
            .await
            .msg()?;
        self.record(|m| m.network = Some(net.id.clone()));
        let v6 = cidr.contains(':');
        let subnet = self
            .n
            .create_subnet(&SubnetCreate {
                network_id: net.id.clone(),
                cidr: cidr.into(),
                ip_version: if v6 { 6 } else { 4 },
                ..Default::default()
            })
            .await
            .msg()?;
        self.record(|m| {
            m.subnet = Some(subnet.id.clone());
            m.port_names.push(format!("ovn-lb-hm-{}", subnet.id));
        });
        let mut ports = Vec::new();
        for ip in ips {
            let p = self
                .n
                .create_port(&PortCreate {
                    network_id: net.id.clone(),
                    fixed_ips: Some(vec![FixedIpRequest::address(subnet.id.clone(), *ip)]),
                    ..Default::default()
                })
                .await
                .msg()?;
            self.record(|m| m.ports.push(p.id.clone()));
            ports.push(p.id);
        }
        Ok((net.id, subnet.id, ports))
    }

    /// The VIP port at `vip` and the load balancer created on it (reported ACTIVE).
    async fn lb(&self, net: &str, subnet: &str, vip: IpAddr) -> Result<LoadBalancer, String> {
        let (v, _) = self
            .driver
            .create_vip_port(
                &self.lb_id,
                "",
                Vip {
                    vip_network_id: Some(net.into()),
                    vip_subnet_id: Some(subnet.into()),
                    vip_address: Some(vip.to_string()),
                    ..Default::default()
                },
                vec![],
            )
            .await
            .msg()?;
        let lb = LoadBalancer {
            loadbalancer_id: self.lb_id.clone(),
            admin_state_up: Some(true),
            vip_address: v.vip_address.clone(),
            vip_network_id: Some(net.into()),
            vip_port_id: v.vip_port_id.clone(),
            vip_subnet_id: Some(subnet.into()),
            ..Default::default()
        };
        let r = self
            .step(self.driver.loadbalancer_create(lb.clone()))
            .await?;
        check!(
            status_of(&r.loadbalancers, &self.lb_id).0 == Some(Prov::Active),
            "lb create {r:?}"
        );
        Ok(lb)
    }

    /// Listener `protocol`/`port` with a pool of the same protocol (SOURCE_IP_PORT), both
    /// reported ACTIVE; `(listener, pool)`.
    async fn listener_pool(&self, protocol: &str, port: u16) -> Result<(Listener, Pool), String> {
        let (l_id, p_id) = (uid(), uid());
        let l = Listener {
            listener_id: l_id.clone(),
            loadbalancer_id: Some(self.lb_id.clone()),
            protocol: Some(protocol.into()),
            protocol_port: Some(port),
            admin_state_up: Some(true),
            ..Default::default()
        };
        let r = self.step(self.driver.listener_create(l.clone())).await?;
        check!(
            status_of(&r.listeners, &l_id).0 == Some(Prov::Active),
            "listener create {r:?}"
        );
        let p = Pool {
            pool_id: p_id.clone(),
            loadbalancer_id: Some(self.lb_id.clone()),
            listener_id: Some(l_id.clone()),
            protocol: Some(protocol.into()),
            lb_algorithm: Some("SOURCE_IP_PORT".into()),
            admin_state_up: Some(true),
            ..Default::default()
        };
        let r = self.step(self.driver.pool_create(p.clone())).await?;
        check!(
            status_of(&r.pools, &p_id).0 == Some(Prov::Active),
            "pool create {r:?}"
        );
        let l = Listener {
            default_pool_id: Some(Some(p_id)),
            ..l
        };
        Ok((l, p))
    }

    /// Creates `m` and returns its reported `(provisioning, operating)` status.
    async fn member(&self, m: &Member) -> Result<(Option<Prov>, Option<Op>), String> {
        let r = self.step(self.driver.member_create(m.clone())).await?;
        Ok(status_of(&r.members, &m.member_id))
    }

    /// Deletes what the test made, whatever state it is in: the LB through the driver's
    /// cascade delete (its report awaited), any row still named after it straight in the NB
    /// (detached from switches and routers first), then the Neutron resources.
    async fn cleanup(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if !self.rows().await.unwrap_or_default().is_empty() {
            let lb = LoadBalancer {
                loadbalancer_id: self.lb_id.clone(),
                ..Default::default()
            };
            match self.driver.loadbalancer_delete(lb, true).await {
                Ok(()) => loop {
                    match self.next().await {
                        Ok(r)
                            if status_of(&r.loadbalancers, &self.lb_id).0
                                == Some(Prov::Deleted) =>
                        {
                            break;
                        }
                        Ok(_) => continue,
                        Err(e) => {
                            problems.push(format!("cascade delete: {e}"));
                            break;
                        }
                    }
                },
                Err(e) => problems.push(format!("cascade delete refused: {e}")),
            }
        }
        let left = self.rows().await.unwrap_or_default();
        if !left.is_empty() {
            problems.push(format!("rows left after cascade delete: {left:?}"));
            if let Err(e) = raw_delete(&left).await {
                problems.push(format!("raw NB delete: {e}"));
            }
        }
        let m = std::mem::take(&mut *self.made.lock().unwrap_or_else(|p| p.into_inner()));
        let n = &self.n;
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
        if let Some(s) = &m.subnet {
            let _ = n.delete_subnet(s).await;
        }
        if let Some(net) = &m.network
            && let Err(e) = n.delete_network(net).await
        {
            problems.push(format!("network {net} not deleted: {e}"));
        }
        problems
    }
}

/// Deletes `rows` from the NB in one transaction, removing them from every switch and router
/// first (their strong references would otherwise refuse the delete).
async fn raw_delete(rows: &[LoadBalancerRow]) -> Result<(), String> {
    let mut ops = Vec::new();
    for r in rows {
        let u = json!(["uuid", r.uuid]);
        for table in ["Logical_Switch", "Logical_Router"] {
            ops.push(json!({"op": "mutate", "table": table, "where": [],
                "mutations": [["load_balancer", "delete", ["set", [u.clone()]]]]}));
        }
        ops.push(json!({"op": "delete", "table": "Load_Balancer",
            "where": [["_uuid", "==", u]]}));
    }
    nb_admin(&[]).await?.transact(nb_txn(ops)).await.msg()?;
    Ok(())
}

/// Runs `scenario` in its own task (a panic becomes an error), then [`Stack::cleanup`];
/// panics with the scenario's error and any clean-up problem.
async fn run<F, Fut>(scenario: F)
where
    F: FnOnce(Arc<Stack>) -> Fut,
    Fut: Future<Output = Result<(), String>> + Send + 'static,
{
    let st = Stack::new().await.unwrap_or_else(|e| panic!("set-up: {e}"));
    let outcome = match tokio::spawn(scenario(st.clone())).await {
        Ok(r) => r,
        Err(e) => Err(format!("scenario panicked: {e}")),
    };
    let problems = st.cleanup().await;
    match outcome {
        Err(e) => panic!("{e}\nclean-up: {problems:?}"),
        Ok(()) => assert!(problems.is_empty(), "clean-up: {problems:?}"),
    }
}

/// A random ULA /64 `fd00:XXXX:YYYY::/64` (parallel tests and leftovers never overlap) and
/// the address `<prefix>::<host>` in it.
fn v6_prefix() -> [u16; 3] {
    let b = uuid::Uuid::new_v4().into_bytes();
    [
        0xfd00 | u16::from(b[0]),
        u16::from_be_bytes([b[1], b[2]]),
        u16::from_be_bytes([b[3], b[4]]),
    ]
}

fn v6(p: [u16; 3], host: u16) -> IpAddr {
    IpAddr::V6(Ipv6Addr::new(p[0], p[1], p[2], 0, 0, 0, 0, host))
}

fn member(pool: &Pool, ip: IpAddr, port: u16, subnet: &str, up: bool) -> Member {
    Member {
        member_id: uid(),
        pool_id: Some(pool.pool_id.clone()),
        address: Some(ip.to_string()),
        protocol_port: Some(port),
        subnet_id: Some(subnet.into()),
        admin_state_up: Some(up),
        ..Default::default()
    }
}

fn ip4(s: &str) -> IpAddr {
    s.parse().unwrap()
}

fn strmap(pairs: &[(String, String)]) -> BTreeMap<String, String> {
    pairs.iter().cloned().collect()
}

// --- 1. IPv6 ------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ipv6_lb_members_and_health_monitor_are_bracketed() {
    run(ipv6_scenario).await;
}

async fn ipv6_scenario(st: Arc<Stack>) -> Result<(), String> {
    let p = v6_prefix();
    let cidr = format!("{:x}:{:x}:{:x}::/64", p[0], p[1], p[2]);
    let (vip, m1_ip, m2_ip) = (v6(p, 0x50), v6(p, 0x10), v6(p, 0x11));
    let (net, subnet, ports) = st.topology(&cidr, &[m1_ip, m2_ip]).await?;
    st.lb(&net, &subnet, vip).await?;
    let (_, pool) = st.listener_pool("TCP", 80).await?;
    let m1 = member(&pool, m1_ip, 8080, &subnet, true);
    let m2 = member(&pool, m2_ip, 8080, &subnet, true);
    for m in [&m1, &m2] {
        let s = st.member(m).await?;
        check!(
            s == (Some(Prov::Active), Some(Op::NoMonitor)),
            "member {}: {s:?}",
            m.member_id
        );
    }
    let vip_key = format!("[{vip}]:80");
    let backends = format!("[{m1_ip}]:8080,[{m2_ip}]:8080");
    let row = st.row().await?;
    check!(
        row.vips == strmap(&[(vip_key.clone(), backends.clone())]),
        "vips: want {{{vip_key}: {backends}}}, got {:?}",
        row.vips
    );
    check!(
        row.protocol.as_deref() == Some("tcp"),
        "protocol {:?}",
        row.protocol
    );

    let hm_id = uid();
    let hm = HealthMonitor {
        healthmonitor_id: hm_id.clone(),
        pool_id: Some(pool.pool_id.clone()),
        kind: Some("TCP".into()),
        delay: Some(5),
        timeout: Some(3),
        max_retries: Some(2),
        max_retries_down: Some(4),
        admin_state_up: Some(true),
        ..Default::default()
    };
    let r = st.step(st.driver.health_monitor_create(hm)).await?;
    check!(
        status_of(&r.healthmonitors, &hm_id) == (Some(Prov::Active), Some(Op::Online)),
        "hm create {r:?}"
    );
    for m in [&m1, &m2] {
        check!(
            status_of(&r.members, &m.member_id).1 == Some(Op::Online),
            "member {} after hm create: {r:?}",
            m.member_id
        );
    }
    // the HM source address: the driver's port on the member subnet
    let hm_ports =
        st.n.list_ports(&ListFilter::new().eq("name", format!("ovn-lb-hm-{subnet}")))
            .await
            .msg()?;
    check!(hm_ports.len() == 1, "one HM port expected: {hm_ports:?}");
    let src = hm_ports[0]
        .fixed_ips
        .iter()
        .find(|f| f.subnet_id == subnet)
        .map(|f| f.ip_address)
        .ok_or("HM port without an address on the subnet")?;
    check!(src.is_ipv6(), "HM source {src}");

    let snap = st.nb.full_snapshot().await.msg()?;
    let rows = snap.lbs_named(&st.lb_id);
    check!(rows.len() == 1, "one row: {rows:?}");
    let row = rows[0];
    check!(
        row.vips == strmap(&[(vip_key.clone(), backends.clone())]),
        "vips after hm: {:?}",
        row.vips
    );
    // ovn-nb(5): `[2001::1]=sw0-p1:[2002::1]`; the LSP of a Neutron port is named by its id
    let want_map = strmap(&[
        (format!("[{m1_ip}]"), format!("{}:[{src}]", ports[0])),
        (format!("[{m2_ip}]"), format!("{}:[{src}]", ports[1])),
    ]);
    check!(
        row.ip_port_mappings == want_map,
        "ip_port_mappings: want {want_map:?}, got {:?}",
        row.ip_port_mappings
    );
    check!(
        row.health_check.len() == 1,
        "one health check: {:?}",
        row.health_check
    );
    let hc = snap
        .health_checks
        .get(&row.health_check[0])
        .ok_or("health check row missing")?;
    check!(hc.vip == vip_key, "health check vip {:?}", hc.vip);
    let want_opts = strmap(&[
        ("interval".into(), "5".into()),
        ("timeout".into(), "3".into()),
        ("success_count".into(), "2".into()),
        ("failure_count".into(), "4".into()),
    ]);
    check!(
        hc.options == want_opts,
        "health check options: want {want_opts:?}, got {:?}",
        hc.options
    );
    // ovn-northd accepts the mappings: it asks ovn-controller to probe each member from the
    // HM source through the member's port (SB `Service_Monitor`, ovn-northd(8))
    let sb = sb(&["Service_Monitor"]).await?;
    let mut want: Vec<(String, String, String)> = [(m1_ip, &ports[0]), (m2_ip, &ports[1])]
        .iter()
        .map(|(ip, lsp)| (ip.to_string(), lsp.to_string(), src.to_string()))
        .collect();
    want.sort();
    let probes = |s: &ovsdb::Snapshot| -> Vec<(String, String, String)> {
        let mut got: Vec<_> = sb::rows(s, sb::SERVICE_MONITOR, ServiceMonitorRow::from_row)
            .into_iter()
            .filter(|r| ports.contains(&r.logical_port) && r.port == 8080)
            .map(|r| (r.ip.to_string(), r.logical_port, r.src_ip.to_string()))
            .collect();
        got.sort();
        got
    };
    let what = format!("SB Service_Monitor rows {want:?}");
    if wait_replica(&sb, &what, |s| (probes(s) == want).then_some(()))
        .await
        .is_err()
    {
        return Err(format!("{what} expected, got {:?}", probes(&sb.replica())));
    }
    Ok(())
}

// --- 2. TCP + UDP on one port -------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tcp_and_udp_listeners_on_one_port_are_two_rows() {
    run(tcp_udp_scenario).await;
}

async fn tcp_udp_scenario(st: Arc<Stack>) -> Result<(), String> {
    let (m1_ip, m2_ip) = (ip4("10.0.0.10"), ip4("10.0.0.11"));
    let (net, subnet, _) = st.topology("10.0.0.0/24", &[m1_ip, m2_ip]).await?;
    st.lb(&net, &subnet, ip4("10.0.0.50")).await?;
    let (_, tcp_pool) = st.listener_pool("TCP", 80).await?;
    st.member(&member(&tcp_pool, m1_ip, 8080, &subnet, true))
        .await?;
    let (udp, udp_pool) = st.listener_pool("UDP", 80).await?;
    st.member(&member(&udp_pool, m2_ip, 5353, &subnet, true))
        .await?;

    let rows = st.rows().await?;
    check!(rows.len() == 2, "two rows expected: {rows:?}");
    let by_proto = |rows: &[LoadBalancerRow], p: &str| {
        rows.iter()
            .find(|r| r.protocol.as_deref() == Some(p))
            .cloned()
    };
    let tcp = by_proto(&rows, "tcp").ok_or("no tcp row")?;
    let udp_row = by_proto(&rows, "udp").ok_or("no udp row")?;
    let vip_of = |r: &LoadBalancerRow| r.external_ids.get("neutron:vip").cloned();
    check!(
        vip_of(&tcp).as_deref() == Some("10.0.0.50") && vip_of(&udp_row) == vip_of(&tcp),
        "same VIP on both rows: {:?} / {:?}",
        tcp.external_ids,
        udp_row.external_ids
    );
    check!(
        tcp.vips == strmap(&[("10.0.0.50:80".into(), "10.0.0.10:8080".into())]),
        "tcp vips {:?}",
        tcp.vips
    );
    check!(
        udp_row.vips == strmap(&[("10.0.0.50:80".into(), "10.0.0.11:5353".into())]),
        "udp vips {:?}",
        udp_row.vips
    );

    let r = st.step(st.driver.listener_delete(udp.clone())).await?;
    check!(
        status_of(&r.listeners, &udp.listener_id) == (Some(Prov::Deleted), Some(Op::Offline)),
        "udp listener delete {r:?}"
    );
    let rows = st.rows().await?;
    let tcp_after = by_proto(&rows, "tcp").ok_or("tcp row gone")?;
    check!(
        tcp_after == tcp,
        "tcp row changed by the udp listener delete:\nbefore {tcp:?}\nafter  {tcp_after:?}"
    );
    // the UDP row stays for its pool (helper.py `listener_delete` → `_clean_lb_if_empty`
    // keeps a row that still has a pool): same protocol, no listener key, no vips
    let u = rows
        .iter()
        .find(|r| r.uuid == udp_row.uuid)
        .ok_or("udp row deleted although its pool remains")?;
    check!(
        rows.len() == 2
            && u.protocol.as_deref() == Some("udp")
            && u.vips.is_empty()
            && !u
                .external_ids
                .contains_key(&format!("listener_{}", udp.listener_id))
            && u.external_ids
                .contains_key(&format!("pool_{}", udp_pool.pool_id)),
        "udp row after its listener's delete: {u:?}"
    );
    Ok(())
}

// --- 3. member created disabled -------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn member_created_disabled_is_offline_until_enabled() {
    run(disabled_member_scenario).await;
}

async fn disabled_member_scenario(st: Arc<Stack>) -> Result<(), String> {
    let (m1_ip, m2_ip) = (ip4("10.0.0.10"), ip4("10.0.0.11"));
    let (net, subnet, _) = st.topology("10.0.0.0/24", &[m1_ip, m2_ip]).await?;
    st.lb(&net, &subnet, ip4("10.0.0.50")).await?;
    let (_, pool) = st.listener_pool("TCP", 80).await?;
    let m1 = member(&pool, m1_ip, 8080, &subnet, true);
    st.member(&m1).await?;
    let m2 = member(&pool, m2_ip, 8080, &subnet, false);
    let s = st.member(&m2).await?;
    check!(
        s == (Some(Prov::Active), Some(Op::Offline)),
        "disabled member create: {s:?}"
    );
    let row = st.row().await?;
    check!(
        row.vips == strmap(&[("10.0.0.50:80".into(), "10.0.0.10:8080".into())]),
        "vips with m2 disabled {:?}",
        row.vips
    );

    let r = st
        .step(st.driver.member_update(
            m2.clone(),
            Member {
                member_id: m2.member_id.clone(),
                admin_state_up: Some(true),
                ..Default::default()
            },
        ))
        .await?;
    check!(
        status_of(&r.members, &m2.member_id) == (Some(Prov::Active), Some(Op::NoMonitor)),
        "member enable {r:?}"
    );
    let row = st.row().await?;
    check!(
        row.vips
            == strmap(&[(
                "10.0.0.50:80".into(),
                "10.0.0.10:8080,10.0.0.11:8080".into()
            )]),
        "vips with m2 enabled {:?}",
        row.vips
    );
    Ok(())
}

// --- 4. batch with monitor_address ----------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn member_batch_with_monitor_address_is_refused_whole() {
    run(batch_monitor_scenario).await;
}

async fn batch_monitor_scenario(st: Arc<Stack>) -> Result<(), String> {
    let ips = [ip4("10.0.0.10"), ip4("10.0.0.11"), ip4("10.0.0.12")];
    let (net, subnet, _) = st.topology("10.0.0.0/24", &ips).await?;
    st.lb(&net, &subnet, ip4("10.0.0.50")).await?;
    let (_, pool) = st.listener_pool("TCP", 80).await?;
    let m1 = member(&pool, ips[0], 8080, &subnet, true);
    let m2 = member(&pool, ips[1], 8080, &subnet, true);
    st.member(&m1).await?;
    st.member(&m2).await?;
    let before = st.rows().await?;
    check!(
        before.len() == 1
            && before[0].vips
                == strmap(&[(
                    "10.0.0.50:80".into(),
                    "10.0.0.10:8080,10.0.0.11:8080".into()
                )]),
        "rows before the batch {before:?}"
    );

    // keep m1, change m2's weight and give it a monitor address, add m3, all refused
    let batch = vec![
        m1.clone(),
        Member {
            weight: Some(5),
            monitor_address: Some("10.0.0.11".into()),
            ..m2.clone()
        },
        member(&pool, ips[2], 8080, &subnet, true),
    ];
    let r = st.driver.member_batch_update(&pool.pool_id, batch).await;
    check!(
        r == Err(ProviderError::unsupported(
            "OVN provider does not support monitor options"
        )),
        "batch with monitor_address: {r:?}"
    );
    check!(st.driver.busy_queues() == 0, "the refused batch was queued");
    // a barrier: the same set without the monitor address changes nothing and is reported
    // after anything the refused batch could have queued on this LB
    let r = st
        .step(
            st.driver
                .member_batch_update(&pool.pool_id, vec![m1.clone(), m2.clone()]),
        )
        .await?;
    check!(
        status_of(&r.members, &m1.member_id).0 == Some(Prov::Active)
            && status_of(&r.members, &m2.member_id).0 == Some(Prov::Active),
        "barrier batch {r:?}"
    );
    let after = st.rows().await?;
    check!(
        after == before,
        "rows changed:\nbefore {before:?}\nafter  {after:?}"
    );
    Ok(())
}

// --- 5. LB disable / enable -----------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lb_disable_then_enable_restores_vips() {
    run(lb_toggle_scenario).await;
}

async fn lb_toggle_scenario(st: Arc<Stack>) -> Result<(), String> {
    let (m1_ip, m2_ip) = (ip4("10.0.0.10"), ip4("10.0.0.11"));
    let (net, subnet, _) = st.topology("10.0.0.0/24", &[m1_ip, m2_ip]).await?;
    let lb = st.lb(&net, &subnet, ip4("10.0.0.50")).await?;
    let (_, pool) = st.listener_pool("TCP", 80).await?;
    st.member(&member(&pool, m1_ip, 8080, &subnet, true))
        .await?;
    st.member(&member(&pool, m2_ip, 8080, &subnet, true))
        .await?;
    let before = st.row().await?;
    check!(
        before.vips
            == strmap(&[(
                "10.0.0.50:80".into(),
                "10.0.0.10:8080,10.0.0.11:8080".into()
            )])
            && before.external_ids.get("enabled").map(String::as_str) == Some("True"),
        "enabled row {before:?}"
    );

    let toggle = |up: bool| {
        st.driver.loadbalancer_update(
            lb.clone(),
            LoadBalancer {
                loadbalancer_id: st.lb_id.clone(),
                admin_state_up: Some(up),
                ..Default::default()
            },
        )
    };
    let r = st.step(toggle(false)).await?;
    check!(
        status_of(&r.loadbalancers, &st.lb_id) == (Some(Prov::Active), Some(Op::Offline)),
        "lb disable {r:?}"
    );
    let row = st.row().await?;
    check!(
        row.vips.is_empty() && row.external_ids.get("enabled").map(String::as_str) == Some("False"),
        "disabled row {row:?}"
    );

    let r = st.step(toggle(true)).await?;
    check!(
        status_of(&r.loadbalancers, &st.lb_id) == (Some(Prov::Active), Some(Op::Online)),
        "lb enable {r:?}"
    );
    let row = st.row().await?;
    check!(
        row.vips == before.vips
            && row.external_ids.get("enabled").map(String::as_str) == Some("True"),
        "enabled again: want vips {:?}, got {row:?}",
        before.vips
    );
    Ok(())
}
