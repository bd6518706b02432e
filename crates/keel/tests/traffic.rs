//! Traffic through load balancers made with Keel's API, on the stack's data plane
//! (`ci/stack/dataplane-up.sh`: ovs-vswitchd + ovn-controller as a chassis of the stack's SB)
//! and the real Neutron: "VMs" are network namespaces holding a bound Neutron port
//! (`ci/stack/dataplane.sh`), servers answer each connection with their VM's name, so a
//! client sees which member served it.
//!
//! One load balancer carries every assertion of [`tcp_traffic_member_changes_health_restart`]
//! (each step starts from the state the previous one proved), to keep CI short: a same-subnet
//! and a routed client reach every member and only members; the VIP's floating IP answers a
//! client on the external network; under a client loop that must see no failed connection
//! ([`under_loop`]): member admin down/up, delete and batch update (who answers follows), LB,
//! listener and pool updates (the algorithm change reaches the data plane), `keel ovn-db-sync`
//! on the in-sync NB, Keel SIGKILLed and restarted; a TCP health monitor's real probes turn a
//! stopped member ERROR (pool DEGRADED, traffic gone) and ONLINE again, disabling it puts the
//! stopped member back among the backends (its connections refused) and enabling it finds it
//! again, deleting it leaves the members NO_MONITOR; every member down, measured; a UDP
//! listener on the same load balancer reaches its members from both clients.
//! [`udp_connect_monitor`] (ignored in CI: the data plane's UDP probe is unreliable, see
//! there) has a UDP-CONNECT monitor turn a stopped server's member ERROR and ONLINE again.
//! SCTP is not tested: the data plane cannot carry it (README, "Traffic").
//! Figures (member create → first connection, HM reaction times, connections per window) are
//! printed as `TRAFFIC …` lines; the README keeps the last measured ones.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{Backend, Keel, LbGuard, NeutronNet, demo_token, nb_select, neutron, wait_for};
use serde_json::{Value, json};

fn dataplane() -> String {
    format!("{}/../../ci/stack/dataplane.sh", env!("CARGO_MANIFEST_DIR"))
}

/// `dataplane.sh ARGS`: stdout on success, panics with the output otherwise.
fn dp(args: &[&str]) -> String {
    let out = Command::new(dataplane()).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "dataplane.sh {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// A VM of `dataplane.sh` (removed on drop unless `keep`): its name and first IP.
struct Vm {
    name: String,
    ip: String,
    /// every fixed IP of the port, in Neutron's order
    ips: Vec<String>,
    keep: bool,
}

/// A floating IP, deleted (as admin) on drop.
struct Fip(String);

impl Drop for Fip {
    fn drop(&mut self) {
        neutron(
            "DELETE",
            &format!("/floatingips/{}", self.0),
            &common::admin_token(),
            None,
        );
    }
}

impl Vm {
    fn new(name: &str, network: &str) -> Vm {
        let out = dp(&["vm", name, network]);
        let ips: Vec<String> = out
            .split_whitespace()
            .find_map(|w| w.strip_prefix("ips="))
            .unwrap_or_else(|| panic!("no ips= in {out}"))
            .split(',')
            .map(String::from)
            .collect();
        Vm {
            name: name.to_string(),
            ip: ips[0].clone(),
            ips,
            keep: false,
        }
    }

    fn serve(&self, proto: &str, port: u16) {
        dp(&["serve", &self.name, proto, &port.to_string()]);
    }

    fn stop(&self, proto: &str, port: u16) {
        dp(&["stop", &self.name, proto, &port.to_string()]);
    }

    /// `count` connections to `host:port`: (answers by VM name, failures with reasons).
    fn probe(&self, proto: &str, host: &str, port: u16, count: u32) -> Tally {
        let out = dp(&[
            "probe",
            &self.name,
            proto,
            host,
            &port.to_string(),
            &count.to_string(),
            "20",
            "1000",
        ]);
        let mut t = Tally::default();
        for line in out.lines() {
            t.add(line);
        }
        t
    }

    /// A client loop in the background (one connection every `interval_ms`, at most
    /// `max` attempts); [`Loop::stop`] ends it and returns what it saw.
    fn start_loop(&self, proto: &str, host: &str, port: u16, interval_ms: u32) -> Loop {
        let mut child = Command::new(dataplane())
            .args([
                "probe",
                &self.name,
                proto,
                host,
                &port.to_string(),
                "6000",
                &interval_ms.to_string(),
                "1000",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let tally = Arc::new(Mutex::new(Tally::default()));
        let out = child.stdout.take().unwrap();
        let t = tally.clone();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                t.lock().unwrap().add(&line);
            }
        });
        Loop {
            child,
            tally,
            reader: Some(reader),
        }
    }
}

/// [`Vm::new`] for each (name, network), concurrently (a VM is a Neutron port create and its
/// binding: seconds each on a loaded machine); a failure panics after the others are made
/// (and then removed by their drop).
fn vms<const N: usize>(specs: [(String, &String); N]) -> [Vm; N] {
    std::thread::scope(|s| {
        let handles = specs.map(|(n, net)| s.spawn(move || Vm::new(&n, net)));
        handles.map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
    })
}

impl Drop for Vm {
    fn drop(&mut self) {
        if self.keep {
            return;
        }
        let _ = Command::new(dataplane()).args(["rm", &self.name]).output();
    }
}

/// What a probe saw: answers per VM name, failures per reason, in order.
#[derive(Default, Debug, Clone)]
struct Tally {
    answers: BTreeMap<String, u32>,
    failures: BTreeMap<String, u32>,
    /// every attempt in order: Some(name) / None (failed)
    seq: Vec<Option<String>>,
}

impl Tally {
    fn add(&mut self, line: &str) {
        if let Some(name) = line.strip_prefix("ok ") {
            *self.answers.entry(name.to_string()).or_default() += 1;
            self.seq.push(Some(name.to_string()));
        } else if let Some(why) = line.strip_prefix("fail ") {
            *self.failures.entry(why.to_string()).or_default() += 1;
            self.seq.push(None);
        }
    }

    fn who(&self) -> BTreeSet<String> {
        self.answers.keys().cloned().collect()
    }

    fn failed(&self) -> u32 {
        self.failures.values().sum()
    }

    fn total(&self) -> usize {
        self.seq.len()
    }
}

struct Loop {
    child: Child,
    tally: Arc<Mutex<Tally>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Loop {
    fn snapshot(&self) -> Tally {
        self.tally.lock().unwrap().clone()
    }

    fn stop(mut self) -> Tally {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
        self.snapshot()
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Polls (30 s) until 12 connections from `client` to `host:port` all succeed and are
/// answered by exactly the VMs `want`; returns how long that took.
fn wait_who(client: &Vm, (proto, host, port): (&str, &str, u16), want: &[&str]) -> Duration {
    let want: BTreeSet<String> = want.iter().map(|s| s.to_string()).collect();
    let t0 = Instant::now();
    wait_for(
        &format!(
            "{} → {host}:{port}/{proto} answered by exactly {want:?}",
            client.name
        ),
        Duration::from_secs(30),
        || {
            let t = client.probe(proto, host, port, 12);
            if t.failed() == 0 && t.who() == want {
                Ok(())
            } else {
                Err(format!("{t:?}"))
            }
        },
    );
    t0.elapsed()
}

/// Runs `change` under a client loop: `client` opens a connection to `host:port` every 20 ms,
/// seen running before `change` and going on (20 attempts more) after it. Prints the figures
/// as a `TRAFFIC` line and asserts that no connection failed; returns what the loop saw.
fn under_loop(
    client: &Vm,
    (proto, host, port): (&str, &str, u16),
    what: &str,
    start: Instant,
    change: impl FnOnce(),
) -> Tally {
    let lp = client.start_loop(proto, host, port, 20);
    let progress = |lp: &Loop, n: usize, what: &str| {
        wait_for(what, Duration::from_secs(15), || {
            let seen = lp.snapshot().total();
            if seen >= n {
                Ok(())
            } else {
                Err(format!("{seen} attempts"))
            }
        })
    };
    progress(&lp, 5, "the client loop runs");
    change();
    let n = lp.snapshot().total();
    progress(&lp, n + 20, "the client loop goes on after the change");
    let seen = lp.stop();
    println!(
        "TRAFFIC {} {what}: {} connections, {} failed {:?}",
        since(start),
        seen.total(),
        seen.failed(),
        seen.failures
    );
    assert_eq!(
        seen.failed(),
        0,
        "connections failed during {what}: {:?}",
        seen.failures
    );
    seen
}

/// A second network + subnet (10.1.0.0/24) on `net`'s router, as `demo`; deleted on drop.
struct RoutedNet {
    router: String,
    net: String,
    subnet: String,
}

impl RoutedNet {
    fn create(name: &str, router: &str) -> RoutedNet {
        let t = demo_token();
        let (c, b) = neutron(
            "POST",
            "/networks",
            &t,
            Some(&json!({"network": {"name": name}})),
        );
        assert_eq!(c, 201, "{b}");
        let net = b["network"]["id"].as_str().unwrap().to_string();
        let (c, b) = neutron(
            "POST",
            "/subnets",
            &t,
            Some(
                &json!({"subnet": {"name": name, "network_id": net, "ip_version": 4,
                "cidr": "10.1.0.0/24"}}),
            ),
        );
        assert_eq!(c, 201, "{b}");
        let subnet = b["subnet"]["id"].as_str().unwrap().to_string();
        let (c, b) = neutron(
            "PUT",
            &format!("/routers/{router}/add_router_interface"),
            &t,
            Some(&json!({"subnet_id": subnet})),
        );
        assert_eq!(c, 200, "{b}");
        RoutedNet {
            router: router.to_string(),
            net,
            subnet,
        }
    }
}

impl Drop for RoutedNet {
    fn drop(&mut self) {
        let t = common::admin_token();
        neutron(
            "PUT",
            &format!("/routers/{}/remove_router_interface", self.router),
            &t,
            Some(&json!({"subnet_id": self.subnet})),
        );
        let (_, ports) = neutron("GET", &format!("/ports?network_id={}", self.net), &t, None);
        for p in ports["ports"].as_array().cloned().unwrap_or_default() {
            if let Some(id) = p["id"].as_str() {
                neutron("DELETE", &format!("/ports/{id}"), &t, None);
            }
        }
        neutron("DELETE", &format!("/networks/{}", self.net), &t, None);
    }
}

/// `PUT <path>` of `body` (expects 200 or 202), then waits for the LB to be ACTIVE.
fn put(keel: &Keel, token: &str, lb: &str, path: &str, body: Value) {
    let (code, out) = keel.api("PUT", path, token, Some(&body));
    assert!(
        code == 200 || code == 202,
        "PUT {path} {body}: {code} {out}"
    );
    keel.wait_lb_active(token, lb);
}

/// Pool `pool`'s operating_status and its members' (id → operating_status), from the LB
/// status tree (`GET /v2/lbaas/loadbalancers/{lb}/status`, pools under their listeners).
fn status_tree(
    keel: &Keel,
    token: &str,
    lb: &str,
    pool: &str,
) -> (String, BTreeMap<String, String>) {
    let (code, body) = keel.api(
        "GET",
        &format!("/v2/lbaas/loadbalancers/{lb}/status"),
        token,
        None,
    );
    assert_eq!(code, 200, "{body}");
    let listeners = body["statuses"]["loadbalancer"]["listeners"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let Some(p) = listeners
        .iter()
        .flat_map(|l| l["pools"].as_array().cloned().unwrap_or_default())
        .find(|p| p["id"] == pool)
    else {
        return ("(no such pool in the tree)".into(), BTreeMap::new());
    };
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    let members = p["members"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|m| (text(&m["id"]), text(&m["operating_status"])))
        .collect();
    (text(&p["operating_status"]), members)
}

/// The SB `Service_Monitor` rows (`ip:port/protocol status`): what ovn-controller's probes
/// last reported, for a failure message that tells a probe result from Keel's reading of it.
fn service_monitors() -> String {
    common::sb_select("Service_Monitor", json!([]))
        .iter()
        .map(|r| {
            format!(
                "{}:{}/{} {}",
                r["ip"].as_str().unwrap_or_default(),
                r["port"],
                r["protocol"].as_str().unwrap_or_default(),
                r["status"]
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Polls the status tree (30 s) until member `member` of `pool` is `want` and the pool
/// `pool_want`; returns the time it took.
fn wait_member(
    keel: &Keel,
    token: &str,
    (lb, pool): (&str, &str),
    member: &str,
    want: &str,
    pool_want: &str,
) -> Duration {
    let t0 = Instant::now();
    wait_for(
        &format!("member {member} {want}, pool {pool_want}"),
        Duration::from_secs(30),
        || {
            let (status, members) = status_tree(keel, token, lb, pool);
            if members.get(member).map(String::as_str) == Some(want) && status == pool_want {
                Ok(())
            } else {
                Err(format!(
                    "pool {status}, members {members:?}; SB Service_Monitor: {}",
                    service_monitors()
                ))
            }
        },
    );
    t0.elapsed()
}

/// ovs-vswitchd's PID: a change during a test means it crashed and was restarted (its
/// `--monitor`), which the test must not take for a Keel result.
fn vswitchd_pid() -> String {
    dp(&["vswitchd-pid"]).trim().to_string()
}

/// Seconds since `t` (the test's start), for the `TRAFFIC [+Ns]` lines: where the time goes.
fn since(t: Instant) -> String {
    format!("[+{:.0}s]", t.elapsed().as_secs_f64())
}

/// `router`'s gateway on the external network keel-dp-ext (`dataplane.sh ext-net`: made if
/// absent, shared by tests), then a floating IP on `port` (an LB's VIP port): its address and
/// its guard. Each layer the floating IP's first packet needs is awaited in order, with a
/// failure naming it: the gateway's `cr-lrp-<port>` bound to this slot's chassis (Neutron's
/// `HA_Chassis_Group` + ovn-controller's claim: only there does OVN answer ARP for the
/// address), the NB `NAT` row (Neutron), the address among the LB's `vips` (Keel's agent,
/// from the VIP port's `neutron:port_fip`); the external client's stale neighbour entry
/// for the address (a FAILED one from an earlier test) is flushed.
fn floating_ip(router: &str, port: &str, token: &str, lb: &str, start: Instant) -> (String, Fip) {
    let ext_net = dp(&["ext-net"]).trim().to_string();
    let (c, b) = neutron(
        "PUT",
        &format!("/routers/{router}"),
        token,
        Some(&json!({"router": {"external_gateway_info": {"network_id": ext_net}}})),
    );
    assert_eq!(c, 200, "router gateway: {b}");
    let admin = common::admin_token();
    let (c, b) = neutron(
        "GET",
        &format!("/ports?device_id={router}&device_owner=network:router_gateway"),
        &admin,
        None,
    );
    assert_eq!(c, 200, "{b}");
    let gw_port = b["ports"][0]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("no gateway port: {b}"));
    let slot = std::env::var("STACK_SLOT").unwrap_or_else(|_| "0".into());
    let chassis = format!("keel-dp-{slot}");
    let chassis_uuid = common::sb_select("Chassis", json!([["name", "==", chassis]]))
        .first()
        .map(|r| r["_uuid"].clone())
        .unwrap_or_else(|| panic!("no SB chassis {chassis}"));
    let cr = format!("cr-lrp-{gw_port}");
    wait_for(
        &format!("the router gateway {cr} bound to {chassis}"),
        Duration::from_secs(30),
        || {
            let pb = common::sb_select("Port_Binding", json!([["logical_port", "==", cr]]));
            match pb.first() {
                Some(r) if r["chassis"] == chassis_uuid => Ok(()),
                other => Err(format!(
                    "{other:?}; NB gateway port: {:?}",
                    nb_select(
                        "Logical_Router_Port",
                        json!([["name", "==", format!("lrp-{gw_port}")]])
                    )
                    .first()
                    .map(|r| r["ha_chassis_group"].clone())
                )),
            }
        },
    );
    println!("TRAFFIC {} router gateway bound to {chassis}", since(start));
    let (c, b) = neutron(
        "POST",
        "/floatingips",
        token,
        Some(&json!({"floatingip": {"floating_network_id": ext_net, "port_id": port}})),
    );
    assert_eq!(c, 201, "floating IP: {b}");
    let guard = Fip(b["floatingip"]["id"].as_str().unwrap().to_string());
    let fip = b["floatingip"]["floating_ip_address"]
        .as_str()
        .unwrap()
        .to_string();
    wait_for(
        &format!("NB NAT {fip} (Neutron) and {fip} among the LB's vips (Keel)"),
        Duration::from_secs(30),
        || {
            let nat = nb_select("NAT", json!([["external_ip", "==", fip]]));
            let vips = nb_select("Load_Balancer", json!([["name", "==", lb]]))
                .iter()
                .map(|r| r["vips"].to_string())
                .collect::<Vec<_>>();
            if !nat.is_empty() && vips.iter().any(|v| v.contains(&format!("\"{fip}:"))) {
                Ok(())
            } else {
                Err(format!("NAT {nat:?}; vips {vips:?}"))
            }
        },
    );
    dp(&["exec", "ext", "ip", "neigh", "flush", "to", &fip]);
    println!("TRAFFIC {} floating IP {fip} in the NB", since(start));
    (fip, guard)
}

fn member_body(vm: &Vm, port: u16, subnet: &str) -> Value {
    json!({"member": {"name": vm.name, "address": vm.ip, "protocol_port": port,
        "subnet_id": subnet}})
}

#[test]
fn tcp_traffic_member_changes_health_restart() {
    let start = Instant::now();
    let vswitchd = vswitchd_pid();
    let tag = common::tag();
    let t4 = &tag[..4];
    // the external network and its client first, long before any monitor: in 3 of the 4
    // runs where they were made mid-test (as on a fresh machine, a CI rehearsal included)
    // the TCP monitor's probes then failed a member that answered; already there, 0 of 6
    // (a correlation, the mechanism is not known)
    dp(&["ext-net"]);
    let net = NeutronNet::create(&format!("tr-{tag}"), &[]);
    let routed = RoutedNet::create(&format!("keel-e2e-tr-{tag}-b"), &net.router);
    let name = |role: &str| format!("{role}{t4}");
    let [m1, m2, m3, same, routed_client] = vms([
        (name("ma"), &net.net),
        (name("mb"), &net.net),
        (name("mc"), &net.net),
        (name("cs"), &net.net),
        (name("cr"), &routed.net),
    ]);
    for m in [&m1, &m2, &m3] {
        m.serve("tcp", 8080);
    }

    let mut keel = Keel::start(Backend::Sqlite);
    let token = demo_token();
    let lb = keel.create_lb(&token, &format!("tr-{tag}"), &net.subnet);
    let lb_id = lb["id"].as_str().unwrap().to_string();
    let _rows = LbGuard(lb_id.clone());
    let vip = lb["vip_address"].as_str().unwrap().to_string();
    let id = |v: Value| v["id"].as_str().unwrap().to_string();
    let listener = id(keel.create(
        &token,
        &lb_id,
        "/v2/lbaas/listeners",
        json!({"listener": {"loadbalancer_id": lb_id, "protocol": "TCP", "protocol_port": 80}}),
    ));
    let pool = id(keel.create(
        &token,
        &lb_id,
        "/v2/lbaas/pools",
        json!({"pool": {"listener_id": listener, "protocol": "TCP",
            "lb_algorithm": "SOURCE_IP_PORT"}}),
    ));
    let members = format!("/v2/lbaas/pools/{pool}/members");
    let tcp = ("tcp", vip.as_str(), 80);
    let in_pool = (lb_id.as_str(), pool.as_str());

    // member create → first connection served (the create's answer comes once the NB row
    // is committed: settle_wait_ms)
    let t0 = Instant::now();
    let mem1 = id(keel.create(
        &token,
        &lb_id,
        &members,
        member_body(&m1, 8080, &net.subnet),
    ));
    wait_for(
        "first connection through the VIP",
        Duration::from_secs(30),
        || {
            let t = same.probe("tcp", &vip, 80, 1);
            if t.failed() == 0 {
                Ok(())
            } else {
                Err(format!("{t:?}"))
            }
        },
    );
    println!(
        "TRAFFIC {} member create → first connection served: {} ms",
        since(start),
        t0.elapsed().as_millis()
    );
    let mem2 = id(keel.create(
        &token,
        &lb_id,
        &members,
        member_body(&m2, 8080, &net.subnet),
    ));

    // every member, only members, from the VIP's own subnet and from behind the router
    let both = [m1.name.as_str(), m2.name.as_str()];
    wait_who(&same, tcp, &both);
    for client in [&same, &routed_client] {
        let t = client.probe("tcp", &vip, 80, 30);
        assert_eq!(
            (t.failed(), t.who()),
            (0, both.iter().map(|s| s.to_string()).collect()),
            "client {}: {t:?}",
            client.name
        );
    }

    // why same-subnet clients work: the VIP port has no device_owner, so Neutron leaves its
    // switch port without addresses; the reference's owner (`ovn-lb:vip`), set here for
    // contrast, gives it "<MAC> <VIP>" and same-subnet connections die on that never-bound
    // port while routed ones go on (the test that it can fail)
    let vip_port = lb["vip_port_id"].as_str().unwrap().to_string();
    let vip_port_path = format!("/ports/{vip_port}");
    let (_, p) = neutron("GET", &vip_port_path, &common::admin_token(), None);
    assert_eq!(p["port"]["device_owner"], "", "{p}");
    let lsp_addresses = || {
        nb_select("Logical_Switch_Port", json!([["name", "==", vip_port]]))
            .first()
            .map(|r| r["addresses"].clone())
            .unwrap_or(Value::Null)
    };
    assert_eq!(
        lsp_addresses(),
        json!(["set", []]),
        "VIP port's switch port addresses"
    );
    let set_owner = |owner: &str| {
        let (c, b) = neutron(
            "PUT",
            &vip_port_path,
            &common::admin_token(),
            Some(&json!({"port": {"device_owner": owner}})),
        );
        assert_eq!(c, 200, "{b}");
        wait_for(
            "the VIP port's LSP addresses follow",
            Duration::from_secs(20),
            || {
                let a = lsp_addresses();
                if (a == json!(["set", []])) == owner.is_empty() {
                    Ok(())
                } else {
                    Err(a.to_string())
                }
            },
        );
        dp(&["exec", &same.name, "ip", "neigh", "flush", "all"]);
    };
    set_owner("ovn-lb:vip");
    let broken = same.probe("tcp", &vip, 80, 5);
    let routed_ok = routed_client.probe("tcp", &vip, 80, 10);
    set_owner("");
    wait_who(&same, tcp, &both);
    println!(
        "TRAFFIC {} VIP port with the reference's device_owner ovn-lb:vip: same-subnet {}/5, \
         routed {}/10 connections",
        since(start),
        5 - broken.failed(),
        10 - routed_ok.failed()
    );
    assert_eq!(
        broken.failed(),
        5,
        "same-subnet with the reference's VIP port: {broken:?}"
    );
    assert_eq!(
        routed_ok.failed(),
        0,
        "routed with the reference's VIP port: {routed_ok:?}"
    );

    // the VIP's floating IP, from a client on the external network (keel-dp-ext, shared)
    let (fip, _fip) = floating_ip(&net.router, &vip_port, &token, &lb_id, start);
    let ext = Vm {
        name: "ext".into(),
        ip: "172.24.4.2".into(),
        ips: vec!["172.24.4.2".into()],
        keep: true,
    };
    let t0 = Instant::now();
    wait_who(&ext, ("tcp", &fip, 80), &both);
    println!(
        "TRAFFIC {} floating IP in the NB → every member answers on it from outside: {} ms",
        since(start),
        t0.elapsed().as_millis()
    );

    // member changes under a client loop: nothing refused, who answers follows the API
    let m1_path = format!("{members}/{mem1}");
    let seen = under_loop(
        &same,
        tcp,
        "member admin down/up, delete, batch update",
        start,
        || {
            put(
                &keel,
                &token,
                &lb_id,
                &m1_path,
                json!({"member": {"admin_state_up": false}}),
            );
            wait_who(&same, tcp, &[&m2.name]);
            put(
                &keel,
                &token,
                &lb_id,
                &m1_path,
                json!({"member": {"admin_state_up": true}}),
            );
            wait_who(&same, tcp, &both);
            let (code, body) = keel.api("DELETE", &m1_path, &token, None);
            assert_eq!(code, 204, "{body}");
            keel.wait_lb_active(&token, &lb_id);
            wait_who(&same, tcp, &[&m2.name]);
            // batch update: keep m2, add m3
            let kept: Vec<Value> = [&m2, &m3]
                .iter()
                .map(|v| {
                    json!({"name": v.name, "address": v.ip, "protocol_port": 8080,
                        "subnet_id": net.subnet})
                })
                .collect();
            let batch = json!({ "members": kept });
            put(&keel, &token, &lb_id, &members, batch);
            wait_who(&same, tcp, &[&m2.name, &m3.name]);
        },
    );
    assert!(
        seen.who()
            .is_subset(&[&m1, &m2, &m3].iter().map(|v| v.name.clone()).collect()),
        "{seen:?}"
    );
    let (_, tree) = status_tree(&keel, &token, &lb_id, &pool);
    assert!(
        tree.contains_key(&mem2),
        "member {mem2} kept by the batch update: {tree:?}"
    );
    let mem3 = tree
        .keys()
        .find(|k| **k != mem2)
        .cloned()
        .unwrap_or_else(|| panic!("member of m3 in {tree:?}"));
    let m23 = [m2.name.as_str(), m3.name.as_str()];

    // load balancer, listener and pool updates under a client loop; the pool's algorithm
    // change reaches the data plane (SOURCE_IP: one client, one member) and back
    under_loop(
        &routed_client,
        tcp,
        "load balancer, listener, pool updates",
        start,
        || {
            let lb_path = format!("/v2/lbaas/loadbalancers/{lb_id}");
            put(
                &keel,
                &token,
                &lb_id,
                &lb_path,
                json!({"loadbalancer": {"description": "updated"}}),
            );
            put(
                &keel,
                &token,
                &lb_id,
                &format!("/v2/lbaas/listeners/{listener}"),
                json!({"listener": {"name": "updated", "description": "updated"}}),
            );
            let pool_path = format!("/v2/lbaas/pools/{pool}");
            put(
                &keel,
                &token,
                &lb_id,
                &pool_path,
                json!({"pool": {"lb_algorithm": "SOURCE_IP"}}),
            );
            wait_for(
                "SOURCE_IP: 20 connections, one member",
                Duration::from_secs(30),
                || {
                    let t = same.probe("tcp", &vip, 80, 20);
                    if t.failed() == 0 && t.who().len() == 1 {
                        Ok(())
                    } else {
                        Err(format!("{t:?}"))
                    }
                },
            );
            put(
                &keel,
                &token,
                &lb_id,
                &pool_path,
                json!({"pool": {"lb_algorithm": "SOURCE_IP_PORT"}}),
            );
            wait_who(&same, tcp, &m23);
        },
    );

    // TCP health monitor by real probes
    let hm = id(keel.create(
        &token,
        &lb_id,
        "/v2/lbaas/healthmonitors",
        json!({"healthmonitor": {"pool_id": pool, "type": "TCP", "delay": 1, "timeout": 1,
            "max_retries": 1, "max_retries_down": 2}}),
    ));
    let hm_path = format!("/v2/lbaas/healthmonitors/{hm}");
    wait_member(&keel, &token, in_pool, &mem2, "ONLINE", "ONLINE");
    wait_member(&keel, &token, in_pool, &mem3, "ONLINE", "ONLINE");
    let t0 = Instant::now();
    m2.stop("tcp", 8080);
    wait_member(&keel, &token, in_pool, &mem2, "ERROR", "DEGRADED");
    let to_error = t0.elapsed();
    wait_who(&same, tcp, &[&m3.name]);
    let traffic_gone = t0.elapsed();

    // HM disabled: no probe decides any more (members NO_MONITOR, the HM OFFLINE), so the
    // stopped member is a backend again and its connections are refused
    put(
        &keel,
        &token,
        &lb_id,
        &hm_path,
        json!({"healthmonitor": {"admin_state_up": false}}),
    );
    wait_member(&keel, &token, in_pool, &mem2, "NO_MONITOR", "ONLINE");
    wait_member(&keel, &token, in_pool, &mem3, "NO_MONITOR", "ONLINE");
    let hm_status = || {
        let (c, b) = keel.api("GET", &hm_path, &token, None);
        assert_eq!(c, 200, "{b}");
        b["healthmonitor"]["operating_status"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(hm_status(), "OFFLINE");
    let refused = wait_for(
        "the stopped member back among the backends (refused connections)",
        Duration::from_secs(30),
        || {
            let t = same.probe("tcp", &vip, 80, 20);
            if t.failures.contains_key("Connection_refused") {
                Ok(t)
            } else {
                Err(format!("{t:?}"))
            }
        },
    );
    assert!(
        refused.who().iter().all(|w| *w == m3.name),
        "only m3 answers, m2 refuses: {refused:?}"
    );
    // enabled again: the probes find the stopped member again
    let t0 = Instant::now();
    put(
        &keel,
        &token,
        &lb_id,
        &hm_path,
        json!({"healthmonitor": {"admin_state_up": true}}),
    );
    wait_member(&keel, &token, in_pool, &mem2, "ERROR", "DEGRADED");
    let reenabled_error = t0.elapsed();
    assert_eq!(hm_status(), "ONLINE");
    wait_who(&same, tcp, &[&m3.name]);
    let t0 = Instant::now();
    m2.serve("tcp", 8080);
    wait_member(&keel, &token, in_pool, &mem2, "ONLINE", "ONLINE");
    let to_online = t0.elapsed();
    wait_who(&same, tcp, &m23);
    println!(
        "TRAFFIC {} TCP HM (delay 1, timeout 1, max_retries_down 2): server stop → member ERROR \
         {} ms, → traffic gone {} ms; HM disabled: {:?} (the stopped member a backend again); \
         HM enabled → ERROR again {} ms; server start → ONLINE {} ms",
        since(start),
        to_error.as_millis(),
        traffic_gone.as_millis(),
        refused.failures,
        reenabled_error.as_millis(),
        to_online.as_millis()
    );

    // `keel ovn-db-sync` on the in-sync NB (monitor, floating IP, two switches): it finds
    // nothing to change and no connection fails while it runs
    under_loop(&same, tcp, "keel ovn-db-sync (in sync)", start, || {
        let out = Command::new(common::keel_bin())
            .arg("--config-file")
            .arg(&keel.conf)
            .args(["ovn-db-sync", "--lb-id", &lb_id])
            .output()
            .unwrap();
        assert!(
            out.status.success() && out.stdout.is_empty(),
            "ovn-db-sync on an in-sync NB: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    });

    // every member down: what a client sees (no member answers; drop or reset, measured)
    for m in [&m2, &m3] {
        m.stop("tcp", 8080);
    }
    wait_member(&keel, &token, in_pool, &mem3, "ERROR", "ERROR");
    wait_member(&keel, &token, in_pool, &mem2, "ERROR", "ERROR");
    let t = same.probe("tcp", &vip, 80, 3);
    println!(
        "TRAFFIC {} every TCP member ERROR: {}/3 connections failed, {:?}",
        since(start),
        t.failed(),
        t.failures
    );
    assert_eq!(t.failed(), 3, "no member may answer: {t:?}");
    for m in [&m2, &m3] {
        m.serve("tcp", 8080);
    }
    wait_member(&keel, &token, in_pool, &mem2, "ONLINE", "ONLINE");
    wait_member(&keel, &token, in_pool, &mem3, "ONLINE", "ONLINE");
    wait_who(&same, tcp, &m23);

    // HM delete: members NO_MONITOR (the API's tree), traffic to both
    let (code, body) = keel.api("DELETE", &hm_path, &token, None);
    assert_eq!(code, 204, "{body}");
    keel.wait_lb_active(&token, &lb_id);
    wait_member(&keel, &token, in_pool, &mem2, "NO_MONITOR", "ONLINE");
    wait_member(&keel, &token, in_pool, &mem3, "NO_MONITOR", "ONLINE");
    wait_who(&same, tcp, &m23);

    // the control plane fails, the data plane does not: SIGKILL + restart under a client loop
    let seen = under_loop(&routed_client, tcp, "Keel SIGKILL + restart", start, || {
        keel.kill();
        keel.restart();
        keel.wait_lb_active(&token, &lb_id);
    });
    assert_eq!(
        seen.who(),
        m23.iter().map(|s| s.to_string()).collect(),
        "{seen:?}"
    );

    udp_listener(
        &keel,
        &token,
        (&lb_id, &vip, &net.subnet),
        [&m2, &m3],
        &[&same, &routed_client],
        start,
    );

    keel.delete_lb_cascade(&token, &lb_id);
    assert_eq!(
        vswitchd_pid(),
        vswitchd,
        "ovs-vswitchd crashed and was restarted during the test (see its log)"
    );
}

/// A UDP listener + pool (port 53 → members `ms` serving UDP 5353) on the load balancer
/// `lb_id`; waits until both members answer each of `clients`. Returns (pool id, member ids).
fn udp_listener(
    keel: &Keel,
    token: &str,
    (lb_id, vip, subnet): (&str, &str, &str),
    ms: [&Vm; 2],
    clients: &[&Vm],
    start: Instant,
) -> (String, Vec<String>) {
    let id = |v: Value| v["id"].as_str().unwrap().to_string();
    for m in ms {
        m.serve("udp", 5353);
    }
    let listener = id(keel.create(
        token,
        lb_id,
        "/v2/lbaas/listeners",
        json!({"listener": {"loadbalancer_id": lb_id, "protocol": "UDP", "protocol_port": 53}}),
    ));
    let pool = id(keel.create(
        token,
        lb_id,
        "/v2/lbaas/pools",
        json!({"pool": {"listener_id": listener, "protocol": "UDP",
            "lb_algorithm": "SOURCE_IP_PORT"}}),
    ));
    let mids: Vec<String> = ms
        .iter()
        .map(|m| {
            id(keel.create(
                token,
                lb_id,
                &format!("/v2/lbaas/pools/{pool}/members"),
                member_body(m, 5353, subnet),
            ))
        })
        .collect();
    let names = [ms[0].name.as_str(), ms[1].name.as_str()];
    for c in clients {
        wait_who(c, ("udp", vip, 53), &names);
    }
    println!(
        "TRAFFIC {} UDP listener: both members from {} client(s)",
        since(start),
        clients.len()
    );
    (pool, mids)
}

/// A UDP-CONNECT health monitor by real probes: a stopped server's ICMP port unreachable
/// turns its member ERROR and traffic goes to the other; the server back → ONLINE; every
/// member down, measured (drop or ICMP).
///
/// Ignored while the data plane's defect it finds is open: on Debian 12's OVN 23.03.1 the
/// probe saw the stopped server in 3.6 and 3.8 s in two runs and not within 30 s in one (SB
/// `Service_Monitor` still `online`, no pinctrl warning), so in CI it would fail about one
/// run in three on a row Keel does not write. Run by hand: `--run-ignored only`.
#[test]
#[ignore = "OVN 23.03.1's UDP health check missed a stopped server in 1 of 3 runs (see the doc)"]
fn udp_connect_monitor() {
    let start = Instant::now();
    let tag = common::tag();
    let t4 = &tag[..4];
    let net = NeutronNet::create(&format!("tru-{tag}"), &[]);
    let name = |role: &str| format!("{role}{t4}");
    let [m1, m2, client] = vms([
        (name("ua"), &net.net),
        (name("ub"), &net.net),
        (name("ux"), &net.net),
    ]);
    let keel = Keel::start(Backend::Sqlite);
    let token = demo_token();
    let lb = keel.create_lb(&token, &format!("tru-{tag}"), &net.subnet);
    let lb_id = lb["id"].as_str().unwrap().to_string();
    let _rows = LbGuard(lb_id.clone());
    let vip = lb["vip_address"].as_str().unwrap().to_string();
    let ms = [&m1, &m2];
    let (pool, mids) = udp_listener(
        &keel,
        &token,
        (&lb_id, &vip, &net.subnet),
        ms,
        &[&client],
        start,
    );
    let udp = ("udp", vip.as_str(), 53);
    let names = [m1.name.as_str(), m2.name.as_str()];
    let in_pool = (lb_id.as_str(), pool.as_str());
    keel.create(
        &token,
        &lb_id,
        "/v2/lbaas/healthmonitors",
        json!({"healthmonitor": {"pool_id": pool, "type": "UDP-CONNECT", "delay": 3,
            "timeout": 1, "max_retries": 1, "max_retries_down": 1}}),
    );
    for m in &mids {
        wait_member(&keel, &token, in_pool, m, "ONLINE", "ONLINE");
    }
    let t0 = Instant::now();
    m1.stop("udp", 5353);
    wait_member(&keel, &token, in_pool, &mids[0], "ERROR", "DEGRADED");
    let to_error = t0.elapsed();
    wait_who(&client, udp, &[names[1]]);
    let traffic_gone = t0.elapsed();
    let t0 = Instant::now();
    m1.serve("udp", 5353);
    wait_member(&keel, &token, in_pool, &mids[0], "ONLINE", "ONLINE");
    let to_online = t0.elapsed();
    wait_who(&client, udp, &names);
    println!(
        "TRAFFIC {} UDP-CONNECT HM (delay 3 — the API's minimum —, timeout 1, max_retries_down \
         1): server stop → member ERROR {} ms, → traffic gone {} ms; server start → ONLINE {} ms",
        since(start),
        to_error.as_millis(),
        traffic_gone.as_millis(),
        to_online.as_millis()
    );

    // every UDP member down: drop or ICMP unreachable, measured
    for m in ms {
        m.stop("udp", 5353);
    }
    for m in &mids {
        wait_member(&keel, &token, in_pool, m, "ERROR", "ERROR");
    }
    let t = client.probe("udp", &vip, 53, 3);
    println!(
        "TRAFFIC {} every UDP member ERROR: {}/3 datagrams unanswered, {:?}",
        since(start),
        t.failed(),
        t.failures
    );
    assert_eq!(t.failed(), 3, "no member may answer: {t:?}");
    keel.delete_lb_cascade(&token, &lb_id);
}

/// The IPv6 address of `vm` (panics when it has none).
fn ip6(vm: &Vm) -> String {
    vm.ips
        .iter()
        .find(|i| i.contains(':'))
        .cloned()
        .unwrap_or_else(|| panic!("{} has no IPv6 address: {:?}", vm.name, vm.ips))
}

/// An IPv6 VIP with IPv6 members (same-subnet client), `SOURCE_IP` session persistence
/// keeping one client on one member, and a listener moved to another pool.
#[test]
fn ipv6_vip_session_persistence_pool_change() {
    let start = Instant::now();
    let vswitchd = vswitchd_pid();
    let tag = common::tag();
    let t4 = &tag[..4];
    let net = NeutronNet::create(&format!("tr6-{tag}"), &[]);
    let token = demo_token();
    let (c, b) = neutron(
        "POST",
        "/subnets",
        &token,
        Some(
            &json!({"subnet": {"name": format!("keel-e2e-tr6-{tag}"), "network_id": net.net,
            "ip_version": 6, "cidr": "fd00:9::/64"}}),
        ),
    );
    assert_eq!(c, 201, "{b}");
    let subnet6 = b["subnet"]["id"].as_str().unwrap().to_string();
    let (c, b) = neutron(
        "PUT",
        &format!("/routers/{}/add_router_interface", net.router),
        &token,
        Some(&json!({"subnet_id": subnet6})),
    );
    assert_eq!(c, 200, "{b}");
    let name = |role: &str| format!("{role}{t4}");
    let [m1, m2, m3, client] = vms([
        (name("sa"), &net.net),
        (name("sb"), &net.net),
        (name("sc"), &net.net),
        (name("sx"), &net.net),
    ]);
    for m in [&m1, &m2, &m3] {
        m.serve("tcp", 8080);
    }

    let keel = Keel::start(Backend::Sqlite);
    let lb = keel.create_lb(&token, &format!("tr6-{tag}"), &subnet6);
    let lb_id = lb["id"].as_str().unwrap().to_string();
    let _rows = LbGuard(lb_id.clone());
    let vip = lb["vip_address"].as_str().unwrap().to_string();
    assert!(vip.contains(':'), "an IPv6 VIP: {lb}");
    let id = |v: Value| v["id"].as_str().unwrap().to_string();
    let listener = id(keel.create(
        &token,
        &lb_id,
        "/v2/lbaas/listeners",
        json!({"listener": {"loadbalancer_id": lb_id, "protocol": "TCP", "protocol_port": 80}}),
    ));
    let pool = id(keel.create(
        &token,
        &lb_id,
        "/v2/lbaas/pools",
        json!({"pool": {"listener_id": listener, "protocol": "TCP",
            "lb_algorithm": "SOURCE_IP_PORT"}}),
    ));
    for m in [&m1, &m2] {
        keel.create(
            &token,
            &lb_id,
            &format!("/v2/lbaas/pools/{pool}/members"),
            json!({"member": {"address": ip6(m), "protocol_port": 8080, "subnet_id": subnet6}}),
        );
    }
    // IPv6 VIP, IPv6 members, a client on the VIP's own subnet
    wait_who(&client, ("tcp", &vip, 80), &[&m1.name, &m2.name]);

    // SOURCE_IP session persistence: every connection of one client to one member
    put(
        &keel,
        &token,
        &lb_id,
        &format!("/v2/lbaas/pools/{pool}"),
        json!({"pool": {"session_persistence": {"type": "SOURCE_IP"}}}),
    );
    let sticky = wait_for(
        "SOURCE_IP persistence: 20 connections, one member",
        Duration::from_secs(30),
        || {
            let t = client.probe("tcp", &vip, 80, 20);
            if t.failed() == 0 && t.who().len() == 1 {
                Ok(t)
            } else {
                Err(format!("{t:?}"))
            }
        },
    );
    println!(
        "TRAFFIC {} IPv6 VIP, SOURCE_IP persistence: 20/20 connections to {:?}",
        since(start),
        sticky.who()
    );
    put(
        &keel,
        &token,
        &lb_id,
        &format!("/v2/lbaas/pools/{pool}"),
        json!({"pool": {"session_persistence": null}}),
    );
    wait_who(&client, ("tcp", &vip, 80), &[&m1.name, &m2.name]);

    // the listener moved to another pool: only that pool's member answers
    let pool2 = id(keel.create(
        &token,
        &lb_id,
        "/v2/lbaas/pools",
        json!({"pool": {"loadbalancer_id": lb_id, "protocol": "TCP",
            "lb_algorithm": "SOURCE_IP_PORT"}}),
    ));
    keel.create(
        &token,
        &lb_id,
        &format!("/v2/lbaas/pools/{pool2}/members"),
        json!({"member": {"address": ip6(&m3), "protocol_port": 8080, "subnet_id": subnet6}}),
    );
    put(
        &keel,
        &token,
        &lb_id,
        &format!("/v2/lbaas/listeners/{listener}"),
        json!({"listener": {"default_pool_id": pool2}}),
    );
    wait_who(&client, ("tcp", &vip, 80), &[&m3.name]);

    keel.delete_lb_cascade(&token, &lb_id);
    let (_, _) = neutron(
        "PUT",
        &format!("/routers/{}/remove_router_interface", net.router),
        &common::admin_token(),
        Some(&json!({"subnet_id": subnet6})),
    );
    assert_eq!(
        vswitchd_pid(),
        vswitchd,
        "ovs-vswitchd crashed and was restarted during the test (see its log)"
    );
}
