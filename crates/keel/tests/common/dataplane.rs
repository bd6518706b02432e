//! The stack's data plane for tests (`ci/stack/dataplane.sh`): "VMs" (network namespaces
//! holding a bound Neutron port) that serve, probe and loop, the waits on who answers, the
//! status tree and the SB `Service_Monitor` rows, a routed second network and a floating IP.
//! Used by `traffic.rs` against Keel and, beside it, against the Python reference.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{Endpoint, demo_token, nb_select, neutron, wait_for};

/// `ci/stack/dataplane.sh`.
pub fn dataplane() -> String {
    format!("{}/../../ci/stack/dataplane.sh", env!("CARGO_MANIFEST_DIR"))
}

/// `dataplane.sh ARGS`: stdout on success, panics with the output otherwise.
pub fn dp(args: &[&str]) -> String {
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
pub struct Vm {
    pub name: String,
    pub ip: String,
    /// every fixed IP of the port, in Neutron's order
    pub ips: Vec<String>,
    pub keep: bool,
}

/// A floating IP, deleted (as admin) on drop.
pub struct Fip(pub String);

impl Drop for Fip {
    fn drop(&mut self) {
        neutron(
            "DELETE",
            &format!("/floatingips/{}", self.0),
            &super::admin_token(),
            None,
        );
    }
}

impl Vm {
    /// The VM's IPv6 fixed address (panics when its port has none).
    pub fn ip6(&self) -> String {
        self.ips
            .iter()
            .find(|i| i.contains(':'))
            .cloned()
            .unwrap_or_else(|| panic!("{} has no IPv6 address: {:?}", self.name, self.ips))
    }

    pub fn new(name: &str, network: &str) -> Vm {
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

    pub fn serve(&self, proto: &str, port: u16) {
        dp(&["serve", &self.name, proto, &port.to_string()]);
    }

    pub fn stop(&self, proto: &str, port: u16) {
        dp(&["stop", &self.name, proto, &port.to_string()]);
    }

    /// `count` connections to `host:port`: (answers by VM name, failures with reasons).
    pub fn probe(&self, proto: &str, host: &str, port: u16, count: u32) -> Tally {
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
    pub fn start_loop(&self, proto: &str, host: &str, port: u16, interval_ms: u32) -> Loop {
        Loop::start(&[
            "probe",
            &self.name,
            proto,
            host,
            &port.to_string(),
            "6000",
            &interval_ms.to_string(),
            "1000",
        ])
    }

    /// ONE TCP connection to `host:port` (a server of `serve … echo`) kept open in the
    /// background, a line sent every `interval_ms` and its answer awaited `timeout_ms`
    /// (`dataplane.sh hold`): the [`Loop`]'s tally has one entry per line, `connected`
    /// once the connection is up.
    pub fn start_hold(&self, host: &str, port: u16, interval_ms: u32, timeout_ms: u32) -> Loop {
        Loop::start(&[
            "hold",
            &self.name,
            host,
            &port.to_string(),
            "100000",
            &interval_ms.to_string(),
            &timeout_ms.to_string(),
        ])
    }
}

impl Loop {
    /// `dataplane.sh ARGS` in the background, each line of its output added to the tally.
    fn start(args: &[&str]) -> Loop {
        let mut child = Command::new(dataplane())
            .args(args)
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
pub fn vms<const N: usize>(specs: [(String, &String); N]) -> [Vm; N] {
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
pub struct Tally {
    pub answers: BTreeMap<String, u32>,
    pub failures: BTreeMap<String, u32>,
    /// every attempt in order: Some(name) / None (failed)
    pub seq: Vec<Option<String>>,
}

impl Tally {
    pub fn add(&mut self, line: &str) {
        if let Some(name) = line.strip_prefix("ok ") {
            *self.answers.entry(name.to_string()).or_default() += 1;
            self.seq.push(Some(name.to_string()));
        } else if let Some(why) = line.strip_prefix("fail ") {
            *self.failures.entry(why.to_string()).or_default() += 1;
            self.seq.push(None);
        }
    }

    pub fn who(&self) -> BTreeSet<String> {
        self.answers.keys().cloned().collect()
    }

    pub fn failed(&self) -> u32 {
        self.failures.values().sum()
    }

    pub fn total(&self) -> usize {
        self.seq.len()
    }
}

pub struct Loop {
    pub child: Child,
    pub tally: Arc<Mutex<Tally>>,
    pub reader: Option<std::thread::JoinHandle<()>>,
}

impl Loop {
    pub fn snapshot(&self) -> Tally {
        self.tally.lock().unwrap().clone()
    }

    pub fn stop(mut self) -> Tally {
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
pub fn wait_who(client: &Vm, (proto, host, port): (&str, &str, u16), want: &[&str]) -> Duration {
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
pub fn under_loop(
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
pub struct RoutedNet {
    pub router: String,
    pub net: String,
    pub subnet: String,
}

impl RoutedNet {
    pub fn create(name: &str, router: &str) -> RoutedNet {
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
        let t = super::admin_token();
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
pub fn put(keel: &Endpoint, token: &str, lb: &str, path: &str, body: Value) {
    let (code, out) = keel.api("PUT", path, token, Some(&body));
    assert!(
        code == 200 || code == 202,
        "PUT {path} {body}: {code} {out}"
    );
    keel.wait_lb_active(token, lb);
}

/// Pool `pool`'s operating_status and its members' (id → operating_status), from the LB
/// status tree (`GET /v2/lbaas/loadbalancers/{lb}/status`, pools under their listeners).
pub fn status_tree(
    keel: &Endpoint,
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
pub fn service_monitors() -> String {
    super::sb_select("Service_Monitor", json!([]))
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
pub fn wait_member(
    keel: &Endpoint,
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
pub fn vswitchd_pid() -> String {
    dp(&["vswitchd-pid"]).trim().to_string()
}

/// Seconds since `t` (the test's start), for the `TRAFFIC [+Ns]` lines: where the time goes.
pub fn since(t: Instant) -> String {
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
pub fn floating_ip(
    router: &str,
    port: &str,
    token: &str,
    lb: &str,
    start: Instant,
) -> (String, Fip) {
    let ext_net = dp(&["ext-net"]).trim().to_string();
    let (c, b) = neutron(
        "PUT",
        &format!("/routers/{router}"),
        token,
        Some(&json!({"router": {"external_gateway_info": {"network_id": ext_net}}})),
    );
    assert_eq!(c, 200, "router gateway: {b}");
    let admin = super::admin_token();
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
    let chassis_uuid = super::sb_select("Chassis", json!([["name", "==", chassis]]))
        .first()
        .map(|r| r["_uuid"].clone())
        .unwrap_or_else(|| panic!("no SB chassis {chassis}"));
    let cr = format!("cr-lrp-{gw_port}");
    wait_for(
        &format!("the router gateway {cr} bound to {chassis}"),
        Duration::from_secs(30),
        || {
            let pb = super::sb_select("Port_Binding", json!([["logical_port", "==", cr]]));
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

pub fn member_body(vm: &Vm, port: u16, subnet: &str) -> Value {
    json!({"member": {"name": vm.name, "address": vm.ip, "protocol_port": port,
        "subnet_id": subnet}})
}

/// The health probes' source answers ARP with one MAC: each `ovn-lb-hm:distributed` port
/// Neutron holds carries NB_Global `options:svc_monitor_mac`, and every member VM of `vms`
/// that resolved such a port's IP holds that MAC for it (the port's MAC and the probes' MAC
/// differing made a serving member ERROR whenever it learnt the port's). Panics naming the
/// port and VM otherwise; at least one VM must have resolved a probe source.
pub fn probe_source_answers_with_probe_mac(vms: &[&Vm]) {
    let global = nb_select("NB_Global", json!([]));
    let options = super::map(&global[0]["options"]);
    let probe_mac = super::get(&options, "svc_monitor_mac")
        .expect("NB_Global options:svc_monitor_mac (set by ovn-northd)")
        .to_lowercase();
    let (status, body) = neutron(
        "GET",
        "/ports?device_owner=ovn-lb-hm:distributed",
        &super::admin_token(),
        None,
    );
    assert_eq!(status, 200, "{body}");
    let mut resolved = 0;
    for port in body["ports"].as_array().into_iter().flatten() {
        let mac = port["mac_address"]
            .as_str()
            .unwrap_or_default()
            .to_lowercase();
        for ip in port["fixed_ips"].as_array().into_iter().flatten() {
            let ip = ip["ip_address"].as_str().unwrap_or_default();
            for vm in vms {
                let neigh = dp(&["exec", &vm.name, "ip", "neigh", "show", ip]);
                let Some(learnt) = neigh
                    .split_whitespace()
                    .skip_while(|w| *w != "lladdr")
                    .nth(1)
                else {
                    continue;
                };
                resolved += 1;
                assert_eq!(
                    (mac.as_str(), learnt.to_lowercase()),
                    (probe_mac.as_str(), probe_mac.clone()),
                    "HM port {} ({ip}) as seen by {}: (port MAC, MAC the VM learnt) against \
                     svc_monitor_mac",
                    port["name"],
                    vm.name
                );
            }
        }
    }
    assert!(
        resolved > 0,
        "no member VM resolved a probe source IP: {body}"
    );
}
