use async_trait::async_trait;
use serde_json::Value;

use crate::ProviderError;
use crate::models::{
    AdditionalVip, HealthMonitor, L7Policy, L7Rule, Listener, LoadBalancer, Member, Pool, Vip,
};

fn not_implemented<T>() -> Result<T, ProviderError> {
    Err(ProviderError::not_implemented(
        "This feature is not implemented by the provider.",
    ))
}

/// A load-balancer provider driver, as octavia-lib `provider_base.py::ProviderDriver`.
///
/// The API calls these methods while it holds the SQL transaction that put the objects in
/// PENDING_*; a method must validate synchronously and return fast, queueing the real work,
/// whose outcome it later reports through a [`crate::StatusSink`]. An `Err` makes the API
/// roll the transaction back (seed 004 §5). Every method defaults to
/// [`ProviderError::NotImplemented`], as octavia-lib's base class does.
#[async_trait]
#[allow(missing_docs, unused_variables)]
pub trait ProviderDriver: Send + Sync + 'static {
    /// The provider's name as in `[api_settings] enabled_provider_drivers` (e.g. `ovn`).
    fn name(&self) -> &str;

    /// Create the VIP port(s); returns the filled VIP (at least `vip_port_id`, `vip_address`)
    /// and the additional VIPs. Seed 000 §2.1.
    async fn create_vip_port(
        &self,
        loadbalancer_id: &str,
        project_id: &str,
        vip: Vip,
        additional_vips: Vec<AdditionalVip>,
    ) -> Result<(Vip, Vec<AdditionalVip>), ProviderError> {
        not_implemented()
    }

    /// Delete VIP ports this driver's [`Self::create_vip_port`] made for a load balancer
    /// whose create was then refused or failed (the API's cleanup, so a refused create leaves
    /// no port behind). Only ports the driver created are passed, never a user's
    /// `vip_port_id`. A driver that creates no ports has nothing to do (the default).
    async fn delete_vip_ports(
        &self,
        loadbalancer_id: &str,
        port_ids: Vec<String>,
    ) -> Result<(), ProviderError> {
        Ok(())
    }

    async fn loadbalancer_create(&self, lb: LoadBalancer) -> Result<(), ProviderError> {
        not_implemented()
    }
    async fn loadbalancer_delete(
        &self,
        lb: LoadBalancer,
        cascade: bool,
    ) -> Result<(), ProviderError> {
        not_implemented()
    }
    async fn loadbalancer_failover(&self, loadbalancer_id: &str) -> Result<(), ProviderError> {
        not_implemented()
    }
    async fn loadbalancer_update(
        &self,
        old: LoadBalancer,
        new: LoadBalancer,
    ) -> Result<(), ProviderError> {
        not_implemented()
    }

    async fn listener_create(&self, listener: Listener) -> Result<(), ProviderError> {
        not_implemented()
    }
    async fn listener_delete(&self, listener: Listener) -> Result<(), ProviderError> {
        not_implemented()
    }
    async fn listener_update(&self, old: Listener, new: Listener) -> Result<(), ProviderError> {
        not_implemented()
    }

    async fn pool_create(&self, pool: Pool) -> Result<(), ProviderError> {
        not_implemented()
    }
    async fn pool_delete(&self, pool: Pool) -> Result<(), ProviderError> {
        not_implemented()
    }
    async fn pool_update(&self, old: Pool, new: Pool) -> Result<(), ProviderError> {
        not_implemented()
    }

    async fn member_create(&self, member: Member) -> Result<(), ProviderError> {
        not_implemented()
    }
    async fn member_delete(&self, member: Member) -> Result<(), ProviderError> {
        not_implemented()
    }
    async fn member_update(&self, old: Member, new: Member) -> Result<(), ProviderError> {
        not_implemented()
    }
    /// `members` is the complete desired set; members to delete are absent.
    async fn member_batch_update(
        &self,
        pool_id: &str,
        members: Vec<Member>,
    ) -> Result<(), ProviderError> {
        not_implemented()
    }

    async fn health_monitor_create(&self, hm: HealthMonitor) -> Result<(), ProviderError> {
        not_implemented()
    }
    async fn health_monitor_delete(&self, hm: HealthMonitor) -> Result<(), ProviderError> {
        not_implemented()
    }
    async fn health_monitor_update(
        &self,
        old: HealthMonitor,
        new: HealthMonitor,
    ) -> Result<(), ProviderError> {
        not_implemented()
    }

    async fn l7policy_create(&self, policy: L7Policy) -> Result<(), ProviderError> {
        not_implemented()
    }
    async fn l7policy_delete(&self, policy: L7Policy) -> Result<(), ProviderError> {
        not_implemented()
    }
    async fn l7policy_update(&self, old: L7Policy, new: L7Policy) -> Result<(), ProviderError> {
        not_implemented()
    }

    async fn l7rule_create(&self, rule: L7Rule) -> Result<(), ProviderError> {
        not_implemented()
    }
    async fn l7rule_delete(&self, rule: L7Rule) -> Result<(), ProviderError> {
        not_implemented()
    }
    async fn l7rule_update(&self, old: L7Rule, new: L7Rule) -> Result<(), ProviderError> {
        not_implemented()
    }

    /// JSON-schema-like map of flavor metadata keys to descriptions.
    async fn get_supported_flavor_metadata(&self) -> Result<Value, ProviderError> {
        not_implemented()
    }
    async fn validate_flavor(&self, flavor_metadata: &Value) -> Result<(), ProviderError> {
        not_implemented()
    }
    /// Map of availability-zone metadata keys to descriptions.
    async fn get_supported_availability_zone_metadata(&self) -> Result<Value, ProviderError> {
        not_implemented()
    }
    async fn validate_availability_zone(&self, az_metadata: &Value) -> Result<(), ProviderError> {
        not_implemented()
    }
}
