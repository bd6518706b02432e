//! The OVN provider behind a check of its Northbound connection.
//!
//! The provider validates against its in-memory NB replica and queues the NB work, which
//! waits for the connection to come back: right for a raft leader change (the client moves
//! to the new leader within about a second), wrong for an NB that stays unreachable — the
//! load balancer would sit in PENDING_* and every following request get a 409. So once the
//! NB connection has been down for longer than `[keel] nb_unavailable_after` (seconds,
//! default 5), every call that would change something answers
//! [`ProviderError::Unavailable`] (the API: 503 `The OVN Northbound service is temporarily
//! unavailable.`) before anything is stored, asked of Neutron or queued; reads (flavor and
//! availability-zone metadata) pass. Service resumes with the reconnection.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use provider::{
    AdditionalVip, HealthMonitor, L7Policy, L7Rule, Listener, LoadBalancer, Member, Pool,
    ProviderDriver, ProviderError, Vip,
};
use serde_json::Value;

/// The name the client sees in the 503 (api `fault::PEER_OVN_NB`).
const NB: &str = api::fault::PEER_OVN_NB;

/// A [`ProviderDriver`] that refuses changes while its NB has been unreachable for longer than
/// a grace period (module docs).
pub struct NbGate {
    inner: Arc<dyn ProviderDriver>,
    /// When the NB connection was last seen down; `None` while connected.
    down_since: Arc<Mutex<Option<Instant>>>,
    grace: Duration,
}

impl NbGate {
    /// Wraps `inner`, following `nb`'s connection state from now on (a background task that
    /// ends with the client).
    pub fn new(inner: Arc<dyn ProviderDriver>, nb: &ovsdb::Client, grace: Duration) -> Self {
        let down_since = Arc::new(Mutex::new((!nb.state().connected).then(Instant::now)));
        let mut rx = nb.watch_state();
        let seen = down_since.clone();
        tokio::spawn(async move {
            loop {
                let connected = rx.borrow_and_update().connected;
                {
                    let mut d = seen.lock().unwrap_or_else(|e| e.into_inner());
                    match (connected, *d) {
                        (true, _) => *d = None,
                        (false, None) => *d = Some(Instant::now()),
                        (false, Some(_)) => {}
                    }
                }
                if rx.changed().await.is_err() {
                    return;
                }
            }
        });
        Self {
            inner,
            down_since,
            grace,
        }
    }

    /// `Err(Unavailable)` once the NB has been down for longer than the grace period.
    fn check(&self) -> Result<(), ProviderError> {
        let since = *self.down_since.lock().unwrap_or_else(|e| e.into_inner());
        match since {
            Some(t) if t.elapsed() > self.grace => Err(ProviderError::unavailable(
                NB,
                format!(
                    "no connection to the OVN Northbound database for {:.1} s",
                    t.elapsed().as_secs_f64()
                ),
            )),
            _ => Ok(()),
        }
    }
}

#[async_trait]
impl ProviderDriver for NbGate {
    fn name(&self) -> &str {
        self.inner.name()
    }

    async fn create_vip_port(
        &self,
        loadbalancer_id: &str,
        project_id: &str,
        vip: Vip,
        additional_vips: Vec<AdditionalVip>,
    ) -> Result<(Vip, Vec<AdditionalVip>), ProviderError> {
        self.check()?;
        self.inner
            .create_vip_port(loadbalancer_id, project_id, vip, additional_vips)
            .await
    }

    /// Clean-up of a refused create: Neutron only, so it passes while the NB is down.
    async fn delete_vip_ports(
        &self,
        loadbalancer_id: &str,
        port_ids: Vec<String>,
    ) -> Result<(), ProviderError> {
        self.inner.delete_vip_ports(loadbalancer_id, port_ids).await
    }

    async fn loadbalancer_create(&self, lb: LoadBalancer) -> Result<(), ProviderError> {
        self.check()?;
        self.inner.loadbalancer_create(lb).await
    }

    async fn loadbalancer_delete(
        &self,
        lb: LoadBalancer,
        cascade: bool,
    ) -> Result<(), ProviderError> {
        self.check()?;
        self.inner.loadbalancer_delete(lb, cascade).await
    }

    async fn loadbalancer_failover(&self, loadbalancer_id: &str) -> Result<(), ProviderError> {
        self.check()?;
        self.inner.loadbalancer_failover(loadbalancer_id).await
    }

    async fn loadbalancer_update(
        &self,
        old: LoadBalancer,
        new: LoadBalancer,
    ) -> Result<(), ProviderError> {
        self.check()?;
        self.inner.loadbalancer_update(old, new).await
    }

    async fn listener_create(&self, listener: Listener) -> Result<(), ProviderError> {
        self.check()?;
        self.inner.listener_create(listener).await
    }

    async fn listener_delete(&self, listener: Listener) -> Result<(), ProviderError> {
        self.check()?;
        self.inner.listener_delete(listener).await
    }

    async fn listener_update(&self, old: Listener, new: Listener) -> Result<(), ProviderError> {
        self.check()?;
        self.inner.listener_update(old, new).await
    }

    async fn pool_create(&self, pool: Pool) -> Result<(), ProviderError> {
        self.check()?;
        self.inner.pool_create(pool).await
    }

    async fn pool_delete(&self, pool: Pool) -> Result<(), ProviderError> {
        self.check()?;
        self.inner.pool_delete(pool).await
    }

    async fn pool_update(&self, old: Pool, new: Pool) -> Result<(), ProviderError> {
        self.check()?;
        self.inner.pool_update(old, new).await
    }

    async fn member_create(&self, member: Member) -> Result<(), ProviderError> {
        self.check()?;
        self.inner.member_create(member).await
    }

    async fn member_delete(&self, member: Member) -> Result<(), ProviderError> {
        self.check()?;
        self.inner.member_delete(member).await
    }

    async fn member_update(&self, old: Member, new: Member) -> Result<(), ProviderError> {
        self.check()?;
        self.inner.member_update(old, new).await
    }

    async fn member_batch_update(
        &self,
        pool_id: &str,
        members: Vec<Member>,
    ) -> Result<(), ProviderError> {
        self.check()?;
        self.inner.member_batch_update(pool_id, members).await
    }

    async fn health_monitor_create(&self, hm: HealthMonitor) -> Result<(), ProviderError> {
        self.check()?;
        self.inner.health_monitor_create(hm).await
    }

    async fn health_monitor_delete(&self, hm: HealthMonitor) -> Result<(), ProviderError> {
        self.check()?;
        self.inner.health_monitor_delete(hm).await
    }

    async fn health_monitor_update(
        &self,
        old: HealthMonitor,
        new: HealthMonitor,
    ) -> Result<(), ProviderError> {
        self.check()?;
        self.inner.health_monitor_update(old, new).await
    }

    async fn l7policy_create(&self, policy: L7Policy) -> Result<(), ProviderError> {
        self.check()?;
        self.inner.l7policy_create(policy).await
    }

    async fn l7policy_delete(&self, policy: L7Policy) -> Result<(), ProviderError> {
        self.check()?;
        self.inner.l7policy_delete(policy).await
    }

    async fn l7policy_update(&self, old: L7Policy, new: L7Policy) -> Result<(), ProviderError> {
        self.check()?;
        self.inner.l7policy_update(old, new).await
    }

    async fn l7rule_create(&self, rule: L7Rule) -> Result<(), ProviderError> {
        self.check()?;
        self.inner.l7rule_create(rule).await
    }

    async fn l7rule_delete(&self, rule: L7Rule) -> Result<(), ProviderError> {
        self.check()?;
        self.inner.l7rule_delete(rule).await
    }

    async fn l7rule_update(&self, old: L7Rule, new: L7Rule) -> Result<(), ProviderError> {
        self.check()?;
        self.inner.l7rule_update(old, new).await
    }

    async fn get_supported_flavor_metadata(&self) -> Result<Value, ProviderError> {
        self.inner.get_supported_flavor_metadata().await
    }

    async fn validate_flavor(&self, flavor_metadata: &Value) -> Result<(), ProviderError> {
        self.inner.validate_flavor(flavor_metadata).await
    }

    async fn get_supported_availability_zone_metadata(&self) -> Result<Value, ProviderError> {
        self.inner.get_supported_availability_zone_metadata().await
    }

    async fn validate_availability_zone(&self, az_metadata: &Value) -> Result<(), ProviderError> {
        self.inner.validate_availability_zone(az_metadata).await
    }
}
