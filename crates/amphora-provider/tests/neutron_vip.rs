//! `NeutronVipAllocator` through `AmphoraProvider::create_vip_port` / `delete_vip_ports`
//! against an in-process fake Keystone + Neutron (plain HTTP on 127.0.0.1): the requests it
//! sends and how each Neutron answer becomes the reference's error. No service needed; the
//! lead can run the same flows against the real Neutron of `ci/stack`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use amphora_provider::{
    AmphoraConfig, AmphoraProvider, NeutronVipAllocator, PoolFacts, PoolReader, ReadError,
    RecordingCaster,
};
use openstack::{HttpConfig, NeutronClient, NeutronConfig, ServiceAuth, ServiceAuthConfig};
use provider::{AdditionalVip, ProviderDriver, ProviderError, Vip};
use serde_json::{Value, json};

type Route = dyn Fn(&str, &str, &Value) -> (u16, Value) + Send + Sync;

/// One request the fake saw: method, path, JSON body (`null` when none).
type Seen = Arc<Mutex<Vec<(String, String, Value)>>>;

/// Serves Keystone's `POST …/auth/tokens` itself and every other request with `route`.
fn fake(route: Box<Route>) -> (String, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let seen: Seen = Arc::default();
    let log = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            let (head, body) = loop {
                let n = s.read(&mut chunk).unwrap_or(0);
                if n == 0 {
                    break (String::new(), Vec::new());
                }
                buf.extend_from_slice(&chunk[..n]);
                if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                    let head = String::from_utf8_lossy(&buf[..i]).to_string();
                    let len = head
                        .lines()
                        .find_map(|l| {
                            let (k, v) = l.split_once(':')?;
                            k.eq_ignore_ascii_case("content-length")
                                .then(|| v.trim().parse::<usize>().ok())?
                        })
                        .unwrap_or(0);
                    let mut body = buf[i + 4..].to_vec();
                    while body.len() < len {
                        let n = s.read(&mut chunk).unwrap_or(0);
                        if n == 0 {
                            break;
                        }
                        body.extend_from_slice(&chunk[..n]);
                    }
                    break (head, body);
                }
            };
            let mut first = head.lines().next().unwrap_or("").split(' ');
            let method = first.next().unwrap_or("").to_string();
            let path = first.next().unwrap_or("").to_string();
            let json: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            let (status, answer) = if path.ends_with("/auth/tokens") {
                (
                    201,
                    json!({"token": {"expires_at": "2099-01-01T00:00:00Z",
                        "user": {"id": "octavia"}, "project": {"id": "service"}}}),
                )
            } else {
                log.lock()
                    .unwrap()
                    .push((method.clone(), path.clone(), json.clone()));
                route(&method, &path, &json)
            };
            let text = if status == 204 {
                String::new()
            } else {
                answer.to_string()
            };
            let resp = format!(
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nX-Subject-Token: tok\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{text}",
                text.len()
            );
            let _ = s.write_all(resp.as_bytes());
        }
    });
    (format!("http://{addr}"), seen)
}

struct NoDb;

#[async_trait::async_trait]
impl PoolReader for NoDb {
    async fn pool(&self, _: &str) -> Result<PoolFacts, ReadError> {
        Ok(PoolFacts::default())
    }
    async fn listener_protocol(&self, _: &str) -> Result<String, ReadError> {
        Ok("HTTP".into())
    }
}

fn driver(route: Box<Route>) -> (AmphoraProvider, Seen) {
    let (url, seen) = fake(route);
    let http = HttpConfig::default().build_client().unwrap();
    let auth = ServiceAuth::new(
        http,
        ServiceAuthConfig {
            auth_url: format!("{url}/identity"),
            username: "octavia".into(),
            password: "pw".into(),
            project_name: "service".into(),
            ..ServiceAuthConfig::default()
        },
    );
    let neutron = NeutronClient::new(
        auth,
        NeutronConfig {
            endpoint_override: Some(url),
            ..NeutronConfig::default()
        },
    );
    let d = AmphoraProvider::new(
        AmphoraConfig::default(),
        Arc::new(RecordingCaster::new()),
        Arc::new(NeutronVipAllocator::new(neutron)),
        Arc::new(NoDb),
    );
    (d, seen)
}

fn network(port_security: bool) -> (u16, Value) {
    (
        200,
        json!({"network": {"id": "n1", "port_security_enabled": port_security}}),
    )
}

fn port(id: &str, project: &str, fixed: &[(&str, &str)]) -> Value {
    json!({"id": id, "network_id": "n1", "project_id": project, "name": format!("octavia-lb-lb1"),
        "device_owner": "Octavia",
        "fixed_ips": fixed.iter().map(|(s, a)| json!({"subnet_id": s, "ip_address": a})).collect::<Vec<_>>()})
}

fn vip() -> Vip {
    Vip {
        vip_network_id: Some("n1".into()),
        vip_subnet_id: Some("s1".into()),
        vip_sg_ids: Some(vec!["sg1".into()]),
        ..Default::default()
    }
}

fn neutron_error(kind: &str, message: &str) -> Value {
    json!({"NeutronError": {"type": kind, "message": message, "detail": ""}})
}

#[tokio::test]
async fn a_new_vip_port_is_octavias() {
    let (d, seen) = driver(Box::new(|m, p, _| match (m, p) {
        ("GET", "/v2.0/networks/n1") => network(true),
        ("POST", "/v2.0/ports") => (
            201,
            json!({"port": port("vp", "p1", &[("s1", "10.0.0.7"), ("s6", "fd00::7")])}),
        ),
        _ => (404, neutron_error("NotFound", "no")),
    }));
    let adds = vec![AdditionalVip {
        subnet_id: Some("s6".into()),
        ..Default::default()
    }];
    let (v, a) = d.create_vip_port("lb1", "p1", vip(), adds).await.unwrap();
    assert_eq!(v.vip_port_id.as_deref(), Some("vp"));
    assert_eq!(v.vip_address.as_deref(), Some("10.0.0.7"));
    assert_eq!(v.octavia_owned, Some(true));
    assert_eq!(v.vip_sg_ids, Some(vec!["sg1".to_string()]));
    assert_eq!(a[0].ip_address.as_deref(), Some("fd00::7"));
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2);
    assert_eq!(
        seen[1].2,
        json!({"port": {"name": "octavia-lb-lb1", "network_id": "n1", "admin_state_up": false,
            "device_id": "lb-lb1", "device_owner": "Octavia", "project_id": "p1",
            "security_groups": ["sg1"], "fixed_ips": [{"subnet_id": "s1"}, {"subnet_id": "s6"}]}})
    );
}

#[tokio::test]
async fn the_vip_network_needs_port_security() {
    let (d, seen) = driver(Box::new(|_, _, _| network(false)));
    let err = d
        .create_vip_port("lb1", "p1", vip(), vec![])
        .await
        .unwrap_err();
    assert_eq!(
        err,
        ProviderError::driver("Port security must be enabled on the VIP network.")
    );
    assert_eq!(seen.lock().unwrap().len(), 1, "no port made");
}

#[tokio::test]
async fn neutron_refusals_are_the_references_errors() {
    let msg = "IP address 10.0.0.5 already allocated in subnet s1";
    let (d, _) = driver(Box::new(move |m, _, _| match m {
        "GET" => network(true),
        _ => (409, neutron_error("IpAddressAlreadyAllocated", msg)),
    }));
    let err = d
        .create_vip_port("lb1", "p1", vip(), vec![])
        .await
        .unwrap_err();
    assert_eq!(err, ProviderError::conflict(msg));

    let (d, _) = driver(Box::new(|m, _, _| match m {
        "GET" => network(true),
        _ => (400, neutron_error("InvalidInput", "bad")),
    }));
    let err = d
        .create_vip_port("lb1", "p1", vip(), vec![])
        .await
        .unwrap_err();
    assert_eq!(err, ProviderError::driver("BadRequestException: 400"));

    let (d, _) = driver(Box::new(|_, _, _| {
        (404, neutron_error("NetworkNotFound", "x"))
    }));
    let err = d
        .create_vip_port("lb1", "p1", vip(), vec![])
        .await
        .unwrap_err();
    assert_eq!(
        err,
        ProviderError::driver("network not found (network id: n1).")
    );
}

#[tokio::test]
async fn a_users_port_is_reused_or_refused() {
    let user_vip = Vip {
        vip_port_id: Some("up".into()),
        vip_address: Some("10.0.0.9".into()),
        ..vip()
    };
    let (d, seen) = driver(Box::new(|m, p, _| match (m, p) {
        ("GET", "/v2.0/networks/n1") => network(true),
        ("GET", "/v2.0/ports/up") => (
            200,
            json!({"port": port("up", "u1", &[("s1", "10.0.0.9")])}),
        ),
        _ => (500, json!({})),
    }));
    let (v, _) = d
        .create_vip_port("lb1", "p1", user_vip.clone(), vec![])
        .await
        .unwrap();
    assert_eq!(v.vip_port_id.as_deref(), Some("up"));
    assert_eq!(v.octavia_owned, Some(false));
    assert!(seen.lock().unwrap().iter().all(|(m, ..)| m == "GET"));

    let (d, _) = driver(Box::new(|m, p, _| match (m, p) {
        ("GET", "/v2.0/networks/n1") => network(true),
        ("GET", "/v2.0/ports/up") => (
            200,
            json!({"port": port("up", "u1", &[("s1", "10.0.0.8")])}),
        ),
        _ => (500, json!({})),
    }));
    let err = d
        .create_vip_port("lb1", "p1", user_vip, vec![])
        .await
        .unwrap_err();
    assert_eq!(
        err,
        ProviderError::driver(
            "VIP port up is broken, but is owned by project u1 so will not be recreated. \
             Aborting VIP allocation."
        )
    );
}

#[tokio::test]
async fn only_octavias_ports_are_deleted() {
    let (d, seen) = driver(Box::new(|m, p, _| match (m, p) {
        ("GET", "/v2.0/ports/mine") => (200, json!({"port": port("mine", "p1", &[])})),
        ("GET", "/v2.0/ports/theirs") => (
            200,
            json!({"port": {"id": "theirs", "network_id": "n1", "device_owner": "compute:nova"}}),
        ),
        ("DELETE", _) => (204, Value::Null),
        _ => (404, neutron_error("PortNotFound", "gone")),
    }));
    d.delete_vip_ports("lb1", vec!["mine".into(), "theirs".into(), "gone".into()])
        .await
        .unwrap();
    let deletes: Vec<String> = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|(m, ..)| m == "DELETE")
        .map(|(_, p, _)| p.clone())
        .collect();
    assert_eq!(deletes, ["/v2.0/ports/mine"]);
}
