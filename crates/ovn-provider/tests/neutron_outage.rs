//! Neutron down on the driver's synchronous port paths: with the stack's real Keystone (the
//! service token is obtained) and a Neutron endpoint that refuses connections, or one that
//! answers 503, `create_vip_port`, `delete_vip_ports` and a member create that needs the VIP
//! subnet answer `ProviderError::Unavailable` naming Neutron — the API's 503 `The Neutron
//! service is temporarily unavailable.` — and nothing is written to the NB or queued.
//!
//! The NB is an in-memory one recording transactions (what is asserted is that none is made);
//! the peer under test is Neutron, reached over real sockets.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use openstack::{HttpConfig, NeutronClient, NeutronConfig, ServiceAuth, ServiceAuthConfig};
use ovn_provider::nb::Op;
use ovn_provider::scope::Scope;
use ovn_provider::{NbDatabase, NbError, NbSnapshot};
use provider::{Member, ProviderDriver, ProviderError, Vip};
use serde_json::json;

mod common;
use common::{driver, env};

/// The API's text for this error (octavia's fault body `faultstring`).
const NEUTRON_DOWN: &str = "The Neutron service is temporarily unavailable.";

/// An NB holding one load balancer row (pool `P`, VIP port `vip-port`), recording every
/// transaction it is asked for.
struct RecordingNb {
    snap: NbSnapshot,
    transactions: Mutex<Vec<Vec<Op>>>,
}

#[async_trait]
impl NbDatabase for RecordingNb {
    async fn snapshot(&self, _scope: &Scope) -> Result<NbSnapshot, NbError> {
        Ok(self.snap.clone())
    }
    async fn transact(&self, ops: &[Op]) -> Result<(), NbError> {
        self.transactions.lock().unwrap().push(ops.to_vec());
        Ok(())
    }
}

fn recording_nb() -> Arc<RecordingNb> {
    let mut snap = NbSnapshot::new(true);
    snap.insert_json(
        "Load_Balancer",
        "u1",
        &json!({"name": "LB", "external_ids": ["map", [
            ["neutron:vip", "10.0.0.5"], ["neutron:vip_port_id", "vip-port"],
            ["enabled", "True"], ["pool_P", ""]]]}),
    );
    Arc::new(RecordingNb {
        snap,
        transactions: Mutex::new(vec![]),
    })
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

/// An address nothing listens on (bound, then closed): connections are refused.
fn refused_endpoint() -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    drop(l);
    format!("http://127.0.0.1:{port}")
}

/// A server answering every request `503 Service Unavailable` (a Neutron behind a proxy whose
/// backends are down). Runs until the test process ends.
fn answering_503() -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for conn in l.incoming() {
            let Ok(mut c) = conn else { continue };
            let mut buf = [0u8; 4096];
            let _ = c.read(&mut buf);
            let body = r#"{"NeutronError": {"type": "ServiceUnavailable", "message": "down", "detail": ""}}"#;
            let _ = write!(
                c,
                "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    format!("http://127.0.0.1:{port}")
}

fn assert_neutron_unavailable<T: std::fmt::Debug>(what: &str, r: Result<T, ProviderError>) {
    match r {
        Err(e @ ProviderError::Unavailable { .. }) => {
            let ProviderError::Unavailable { service, .. } = &e else {
                unreachable!()
            };
            assert_eq!(service, "Neutron", "{what}");
            assert_eq!(e.to_string(), NEUTRON_DOWN, "{what}");
        }
        other => panic!("{what}: want Unavailable naming Neutron, got {other:?}"),
    }
}

async fn port_paths_answer_unavailable(endpoint: String, how: &str) {
    let nb = recording_nb();
    let (d, mut reports) = driver(nb.clone(), neutron_at(endpoint));
    let vip = Vip {
        vip_network_id: Some("net".into()),
        vip_subnet_id: Some("subnet".into()),
        ..Default::default()
    };
    assert_neutron_unavailable(
        &format!("create_vip_port, Neutron {how}"),
        d.create_vip_port("LB2", "project", vip, vec![]).await,
    );
    assert_neutron_unavailable(
        &format!("delete_vip_ports, Neutron {how}"),
        d.delete_vip_ports("LB2", vec!["port-1".into()]).await,
    );
    // no subnet given: the driver needs the VIP subnet from Neutron (member_create)
    let member = Member {
        member_id: "M".into(),
        pool_id: Some("P".into()),
        address: Some("10.0.0.7".into()),
        protocol_port: Some(80),
        ..Default::default()
    };
    assert_neutron_unavailable(
        &format!("member_create, Neutron {how}"),
        d.member_create(member).await,
    );
    // refused synchronously: nothing queued, nothing reported, nothing written
    assert_eq!(d.busy_queues(), 0, "{how}: work was queued");
    assert!(
        reports.try_recv().is_err(),
        "{how}: a status report was sent"
    );
    assert!(
        nb.transactions.lock().unwrap().is_empty(),
        "{how}: the NB was written"
    );
}

#[tokio::test]
async fn neutron_refusing_connections_is_unavailable() {
    port_paths_answer_unavailable(refused_endpoint(), "refusing connections").await;
}

#[tokio::test]
async fn neutron_answering_503_is_unavailable() {
    port_paths_answer_unavailable(answering_503(), "answering 503").await;
}
