//! A member call reads the NB once before it queues its work: one scoped snapshot serves the
//! address family check, the subnet check and the choice of the load balancer's queue.
//!
//! The NB is an in-memory snapshot holding one load balancer with pool `P` that counts the
//! snapshots taken of it; the API's commit gate is never opened, so the queued job (which
//! takes its own, fresh snapshot when it runs) never starts and the count is the API path's
//! alone. Neutron is never reached (the members name their subnets): no stack is needed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use openstack::{HttpConfig, NeutronClient, NeutronConfig, ServiceAuth, ServiceAuthConfig};
use ovn_provider::nb::Op;
use ovn_provider::scope::Scope;
use ovn_provider::{NbDatabase, NbError, NbSnapshot, OvnConfig, OvnProvider};
use provider::gate::{CommitGate, scope};
use provider::{Member, ProviderDriver, StatsReport, StatusReport, StatusSink, StatusSinkError};
use serde_json::json;

/// One load balancer `lb-1` (VIP 10.0.1.5) with pool `P`; counts [`NbDatabase::snapshot`].
struct CountingNb {
    rows: NbSnapshot,
    snapshots: AtomicUsize,
}

impl CountingNb {
    fn new() -> Self {
        let mut rows = NbSnapshot::default();
        rows.insert_json(
            "Load_Balancer",
            "u1",
            &json!({"name": "lb-1", "external_ids": ["map", [["neutron:vip", "10.0.1.5"],
                ["listener_L", "80:pool_P"], ["pool_P", ""], ["enabled", "True"]]]}),
        );
        Self {
            rows,
            snapshots: AtomicUsize::new(0),
        }
    }
}

#[async_trait]
impl NbDatabase for CountingNb {
    async fn snapshot(&self, _scope: &Scope) -> Result<NbSnapshot, NbError> {
        self.snapshots.fetch_add(1, Ordering::SeqCst);
        Ok(self.rows.clone())
    }
    async fn transact(&self, _ops: &[Op]) -> Result<(), NbError> {
        Ok(())
    }
}

/// Takes every report and drops it.
struct NoSink;

#[async_trait]
impl StatusSink for NoSink {
    async fn update_status(&self, _: StatusReport) -> Result<(), StatusSinkError> {
        Ok(())
    }
    async fn update_stats(&self, _: StatsReport) -> Result<(), StatusSinkError> {
        Ok(())
    }
}

/// Neutron on a closed port: any request would fail.
fn unreachable_neutron() -> NeutronClient {
    let http = HttpConfig::default().build_client().unwrap();
    let auth = ServiceAuth::new(
        http,
        ServiceAuthConfig {
            auth_url: "http://127.0.0.1:9/identity".into(),
            ..ServiceAuthConfig::default()
        },
    );
    NeutronClient::new(
        auth,
        NeutronConfig {
            endpoint_override: Some("http://127.0.0.1:9".into()),
            ..NeutronConfig::default()
        },
    )
}

fn member(id: &str, address: &str) -> Member {
    Member {
        member_id: id.into(),
        pool_id: Some("P".into()),
        address: Some(address.into()),
        protocol_port: Some(80),
        subnet_id: Some("S".into()),
        admin_state_up: Some(true),
        ..Member::default()
    }
}

/// The driver over `nb`, and the snapshots a call made inside a gate that never opens.
async fn snapshots_of<F, Fut>(call: F) -> (usize, Result<(), provider::ProviderError>)
where
    F: FnOnce(OvnProvider) -> Fut,
    Fut: std::future::Future<Output = Result<(), provider::ProviderError>>,
{
    let nb = Arc::new(CountingNb::new());
    let driver = OvnProvider::with_nb(
        nb.clone(),
        unreachable_neutron(),
        Arc::new(NoSink),
        OvnConfig::default(),
    );
    let gate = CommitGate::new();
    let out = scope(gate.waiter(), call(driver.clone())).await;
    let n = nb.snapshots.load(Ordering::SeqCst);
    // rolled back: the queued job is dropped unrun
    drop(gate);
    (n, out)
}

#[tokio::test]
async fn a_member_create_reads_the_nb_once() {
    let (n, out) =
        snapshots_of(|d| async move { d.member_create(member("m1", "10.0.1.9")).await }).await;
    out.unwrap();
    assert_eq!(n, 1);
}

#[tokio::test]
async fn a_member_of_the_other_family_is_refused_after_one_read() {
    let (n, out) =
        snapshots_of(|d| async move { d.member_create(member("m1", "fd00::9")).await }).await;
    assert!(out.is_err(), "an IPv6 member on an IPv4 VIP is refused");
    assert_eq!(n, 1);
}

#[tokio::test]
async fn a_member_batch_and_an_address_update_read_the_nb_once() {
    let (n, out) = snapshots_of(|d| async move {
        d.member_batch_update(
            "P",
            vec![member("m1", "10.0.1.9"), member("m2", "10.0.1.10")],
        )
        .await
    })
    .await;
    out.unwrap();
    assert_eq!(n, 1);
    let (n, out) = snapshots_of(|d| async move {
        d.member_update(member("m1", "10.0.1.9"), member("m1", "10.0.1.9"))
            .await
    })
    .await;
    out.unwrap();
    assert_eq!(n, 1);
}
