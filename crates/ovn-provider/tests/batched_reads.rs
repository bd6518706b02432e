//! Neutron reads that scale with the number of load balancers are batched: the VIP port
//! owner maintenance (run at every agent start) and `ovn-db-sync`'s facts for rows it must
//! create read the ports, and their subnets, in `?id=…&id=…` lists of 50, never one GET per
//! load balancer, and give the same results as the one-by-one reads did.
//!
//! Neutron is a test double over a real socket that records each request line and answers
//! from a fixed set of ports (Keystone is the stack's, for the service token); the NB is an
//! in-memory snapshot. What Neutron itself does with a repeated `id` filter is exercised by
//! `tests/agent.rs` (the maintenance task against the stack's Neutron).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use openstack::{HttpConfig, NeutronClient, NeutronConfig, ServiceAuth, ServiceAuthConfig};
use ovn_provider::nb::Op;
use ovn_provider::scope::Scope;
use ovn_provider::{Agent, NbDatabase, NbError, NbSnapshot};
use provider::LoadBalancer;
use serde_json::{Value, json};

mod common;
use common::{driver, env};

const SUBNET: &str = "sub-1";

/// A Neutron double: `ports` by id; records `METHOD path?query` of every request.
#[derive(Clone, Default)]
struct FakeNeutron {
    ports: Arc<BTreeMap<String, Value>>,
    requests: Arc<Mutex<Vec<String>>>,
}

fn subnet_body() -> Value {
    json!({"id": SUBNET, "name": "s", "network_id": "net-1", "project_id": "p",
           "cidr": "10.0.0.0/8", "ip_version": 4, "gateway_ip": "10.0.0.1"})
}

impl FakeNeutron {
    fn answer(&self, method: &str, target: &str) -> (u16, Value) {
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        let path = path.trim_start_matches("/v2.0");
        let ids: Vec<String> = query
            .split('&')
            .filter_map(|kv| kv.strip_prefix("id="))
            .map(String::from)
            .collect();
        match (method, path) {
            ("GET", "/ports") => {
                let found: Vec<Value> = ids
                    .iter()
                    .filter_map(|i| self.ports.get(i).cloned())
                    .collect();
                (200, json!({ "ports": found }))
            }
            ("GET", "/subnets") => {
                let found: Vec<Value> = ids
                    .iter()
                    .filter(|i| *i == SUBNET)
                    .map(|_| subnet_body())
                    .collect();
                (200, json!({ "subnets": found }))
            }
            ("GET", "/floatingips") => (200, json!({"floatingips": []})),
            ("GET", p) if p.starts_with("/subnets/") => (200, json!({"subnet": subnet_body()})),
            ("GET", p) if p.starts_with("/ports/") => {
                match self.ports.get(p.trim_start_matches("/ports/")) {
                    Some(port) => (200, json!({ "port": port })),
                    None => (
                        404,
                        json!({"NeutronError": {"type": "PortNotFound",
                                          "message": "not found", "detail": ""}}),
                    ),
                }
            }
            ("PUT", p) if p.starts_with("/ports/") => {
                let port = self.ports.get(p.trim_start_matches("/ports/")).cloned();
                (200, json!({ "port": port }))
            }
            _ => (
                404,
                json!({"NeutronError": {"type": "NotFound", "message": path,
                               "detail": ""}}),
            ),
        }
    }

    /// Serve on a free port until the test process ends; returns the endpoint.
    fn start(&self) -> String {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let me = self.clone();
        std::thread::spawn(move || {
            for conn in l.incoming() {
                let Ok(c) = conn else { continue };
                let me = me.clone();
                std::thread::spawn(move || me.serve(c));
            }
        });
        format!("http://127.0.0.1:{port}")
    }

    fn serve(&self, c: std::net::TcpStream) {
        let mut r = BufReader::new(c.try_clone().unwrap());
        let mut w = c;
        loop {
            let mut line = String::new();
            if r.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let mut parts = line.split_whitespace();
            let (Some(method), Some(target)) = (parts.next(), parts.next()) else {
                return;
            };
            let (method, target) = (method.to_string(), target.to_string());
            let mut len = 0usize;
            loop {
                let mut h = String::new();
                if r.read_line(&mut h).unwrap_or(0) == 0 {
                    return;
                }
                if h == "\r\n" {
                    break;
                }
                if let Some(v) = h.to_ascii_lowercase().strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0u8; len];
            if r.read_exact(&mut body).is_err() {
                return;
            }
            self.requests
                .lock()
                .unwrap()
                .push(format!("{method} {target}"));
            let (code, body) = self.answer(&method, &target);
            let body = body.to_string();
            let _ = write!(
                w,
                "HTTP/1.1 {code} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            );
        }
    }

    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.requests.lock().unwrap())
    }
}

/// Neutron at `endpoint`, authenticated against the stack's Keystone as Keel's service user.
fn neutron_at(endpoint: String) -> NeutronClient {
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
            endpoint_override: Some(endpoint),
            ..NeutronConfig::default()
        },
    )
}

struct StaticNb(NbSnapshot);

#[async_trait]
impl NbDatabase for StaticNb {
    async fn snapshot(&self, _scope: &Scope) -> Result<NbSnapshot, NbError> {
        Ok(self.0.clone())
    }
    async fn transact(&self, _ops: &[Op]) -> Result<(), NbError> {
        Ok(())
    }
}

fn lb_id(i: usize) -> String {
    format!("lb-{i:03}")
}
fn port_id(i: usize) -> String {
    format!("port-{i:03}")
}
fn ip(i: usize) -> String {
    format!("10.0.{}.{}", i / 200, 10 + i % 200)
}

/// `n` VIP ports: every 3rd legacy (no owner, no device), every 7th a user's port (other
/// name), every 11th claimed by another device, the rest already owned; port 5 is gone.
fn ports(n: usize) -> BTreeMap<String, Value> {
    (0..n)
        .filter(|i| *i != 5)
        .map(|i| {
            let (name, owner, device) = if i % 7 == 0 {
                (format!("user-port-{i}"), String::new(), String::new())
            } else if i % 11 == 0 {
                (
                    format!("ovn-lb-vip-{}", lb_id(i)),
                    String::new(),
                    "vm-x".into(),
                )
            } else if i % 3 == 0 {
                (
                    format!("ovn-lb-vip-{}", lb_id(i)),
                    String::new(),
                    String::new(),
                )
            } else {
                (
                    format!("ovn-lb-vip-{}", lb_id(i)),
                    "ovn-lb:vip".into(),
                    format!("lb-{}", lb_id(i)),
                )
            };
            let body = json!({"id": port_id(i), "name": name, "network_id": "net-1",
                "device_owner": owner, "device_id": device, "mac_address": "fa:16:3e:00:00:01",
                "fixed_ips": [{"subnet_id": SUBNET, "ip_address": ip(i)}]});
            (port_id(i), body)
        })
        .collect()
}

/// The ports the one-by-one task updated: present, named `ovn-lb-vip-`, not already owned,
/// not claimed by another device.
fn backfilled(n: usize) -> Vec<String> {
    (0..n)
        .filter(|i| *i != 5 && i % 7 != 0 && i % 11 != 0 && i % 3 == 0)
        .map(|i| format!("PUT /v2.0/ports/{}", port_id(i)))
        .collect()
}

fn ids_of(req: &str) -> Vec<String> {
    let q = req.split_once('?').map(|(_, q)| q).unwrap_or("");
    q.split('&')
        .filter_map(|kv| kv.strip_prefix("id="))
        .map(String::from)
        .collect()
}

/// 120 load balancer rows (one with a second protocol row sharing its port): the VIP port
/// owner task reads the 120 ports in 3 lists of at most 50 ids (each port once), makes no
/// single-port GET, and updates exactly the legacy ports of the one-by-one task.
#[tokio::test]
async fn vip_port_owner_maintenance_lists_ports_in_batches() {
    let n = 120;
    let fake = FakeNeutron {
        ports: Arc::new(ports(n)),
        ..Default::default()
    };
    let endpoint = fake.start();
    let mut snap = NbSnapshot::default();
    for i in 0..n {
        snap.insert_json(
            "Load_Balancer",
            &format!("u{i:03}"),
            &json!({"name": lb_id(i), "protocol": "tcp", "external_ids": ["map", [
                ["neutron:vip_port_id", port_id(i)], ["neutron:vip", ip(i)]]]}),
        );
    }
    snap.insert_json(
        "Load_Balancer",
        "u999",
        &json!({"name": lb_id(3), "protocol": "udp", "external_ids": ["map", [
            ["neutron:vip_port_id", port_id(3)]]]}),
    );
    let (d, _reports) = driver(Arc::new(StaticNb(snap)), neutron_at(endpoint));
    let out = Agent::new(&d).maintain_vip_port_owners().await.unwrap();
    assert_eq!(out, ovn_provider::maintenance::Outcome::Done);
    let reqs = fake.take();
    let lists: Vec<&String> = reqs
        .iter()
        .filter(|r| r.starts_with("GET /v2.0/ports?"))
        .collect();
    assert_eq!(lists.len(), 3, "{reqs:?}");
    let mut listed: Vec<String> = lists.iter().flat_map(|r| ids_of(r)).collect();
    assert!(lists.iter().all(|r| ids_of(r).len() <= 50));
    listed.sort();
    let want: Vec<String> = (0..n).map(port_id).collect();
    assert_eq!(listed, want, "each port listed once");
    assert!(!reqs.iter().any(|r| r.starts_with("GET /v2.0/ports/")));
    let puts: Vec<String> = reqs
        .iter()
        .filter(|r| r.starts_with("PUT"))
        .cloned()
        .collect();
    assert_eq!(puts, backfilled(n));
}

/// `ovn-db-sync` facts for 120 load balancers without a row: the VIP ports are read in 3
/// `ports?id=` lists and their one subnet in one `subnets?id=` list, and each LB's create
/// facts (port, VIP subnet) are what the single reads gave; the LB whose port is gone is
/// looked up alone (404) and has no facts.
#[tokio::test]
async fn sync_facts_list_vip_ports_in_batches() {
    let n = 120;
    let fake = FakeNeutron {
        ports: Arc::new(ports(n)),
        ..Default::default()
    };
    let neutron = neutron_at(fake.start());
    let desired: Vec<LoadBalancer> = (0..n)
        .map(|i| LoadBalancer {
            loadbalancer_id: lb_id(i),
            vip_address: Some(ip(i)),
            vip_port_id: Some(port_id(i)),
            vip_subnet_id: Some(SUBNET.into()),
            vip_network_id: Some("net-1".into()),
            ..Default::default()
        })
        .collect();
    let snap = NbSnapshot::default();
    let facts = ovn_provider::sync::gather_facts(&neutron, &snap, &desired, false).await;
    let reqs = fake.take();
    let port_lists = reqs
        .iter()
        .filter(|r| r.starts_with("GET /v2.0/ports?"))
        .count();
    let subnet_lists = reqs
        .iter()
        .filter(|r| r.starts_with("GET /v2.0/subnets?"))
        .count();
    assert_eq!((port_lists, subnet_lists), (3, 1), "{reqs:?}");
    // the one single read: the port the lists did not find, looked up as before (404)
    let singles: Vec<&String> = reqs
        .iter()
        .filter(|r| r.starts_with("GET /v2.0/ports/") || r.starts_with("GET /v2.0/subnets/"))
        .collect();
    assert_eq!(
        singles,
        [&format!("GET /v2.0/ports/{}", port_id(5))],
        "{reqs:?}"
    );
    assert_eq!(facts.lbs.len(), n - 1);
    assert!(!facts.lbs.contains_key(&lb_id(5)));
    let c = &facts.lbs[&lb_id(42)];
    assert_eq!(c.vip_port_id, port_id(42));
    assert_eq!(c.vip_address, ip(42));
    assert_eq!(c.vip_subnet.id, SUBNET);
    assert_eq!(c.vip_subnet.network_id, "net-1");
    assert_eq!(c.vip_subnet.cidr, "10.0.0.0/8");
}
