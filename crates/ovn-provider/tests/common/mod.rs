//! Shared set-up of the integration tests: the stack's addresses (ci/stack/README.md), a
//! Neutron client with Keel's service credentials, a recording status sink, clean-up.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use async_trait::async_trait;
use openstack::{
    HttpConfig, ListFilter, NeutronClient, NeutronConfig, ServiceAuth, ServiceAuthConfig,
};
use provider::{
    OperatingStatus as Op, ProvisioningStatus as Prov, StatsReport, StatusRecord, StatusReport,
    StatusSink, StatusSinkError,
};
use tokio::sync::mpsc;

pub fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!("{name} is not set: run the tests via ci/test.sh (it sources ci/stack/env.sh)")
    })
}

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

pub async fn next(rx: &mut mpsc::UnboundedReceiver<StatusReport>) -> StatusReport {
    tokio::time::timeout(Duration::from_secs(60), rx.recv())
        .await
        .expect("no status report within 60 s")
        .expect("sink closed")
}

/// The next report that names load balancer `lb_id`. An agent follows the whole shared SB, so
/// it legitimately reports on other tests' load balancers too; those reports are skipped.
pub async fn next_about(
    rx: &mut mpsc::UnboundedReceiver<StatusReport>,
    lb_id: &str,
) -> StatusReport {
    loop {
        let r = next(rx).await;
        if r.loadbalancers.iter().any(|l| l.id == lb_id) {
            return r;
        }
    }
}

pub fn rec(list: &[StatusRecord], id: &str) -> (Option<Prov>, Option<Op>) {
    let r = list
        .iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("no record for {id} in {list:?}"));
    (r.provisioning_status, r.operating_status)
}

pub fn uid() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// What the test made in Neutron; deleted on every exit path.
#[derive(Default)]
pub struct Made {
    pub ports: Vec<String>,
    pub router_if: Option<(String, String)>,
    pub router: Option<String>,
    pub subnet: Option<String>,
    pub network: Option<String>,
}

pub async fn cleanup(n: &NeutronClient, m: &Made, vip_and_hm_names: &[String]) {
    for name in vip_and_hm_names {
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
