//! [`AmphoraProvider`]: `provider::ProviderDriver` as
//! octavia/api/drivers/amphora_driver/v2/driver.py `AmphoraProviderDriver` — validate, make
//! the VIP port, cast to `octavia-worker`.

use std::sync::Arc;

use async_trait::async_trait;
use provider::{
    AdditionalVip, HealthMonitor, L7Policy, L7Rule, Listener, LoadBalancer, Member, Pool,
    ProviderDriver, ProviderError, Vip,
};
use serde_json::Value;

use crate::cast::{CastFailure, Caster};
use crate::config::AmphoraConfig;
use crate::payload::{self, Args};
use crate::reader::{PoolReader, ReadError};
use crate::services::{self, Services};
use crate::vip::VipAllocator;
use crate::{checks, flavor};

/// The amphora provider driver (`[api_settings] enabled_provider_drivers = amphora:…`).
///
/// Every driver call checks what the reference checks, then publishes one cast (method and
/// keyword arguments as [`crate::payload`] builds them) and returns: the worker does the
/// work and writes the statuses into the shared database itself, so nothing is reported
/// through a `StatusSink`.
pub struct AmphoraProvider {
    config: AmphoraConfig,
    caster: Arc<dyn Caster>,
    vips: Arc<dyn VipAllocator>,
    pools: Arc<dyn PoolReader>,
    services: Services,
}

impl std::fmt::Debug for AmphoraProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AmphoraProvider")
            .field("config", &self.config)
            .field("services", &self.services)
            .finish_non_exhaustive()
    }
}

/// A cast that did not reach RabbitMQ: 503 `The RabbitMQ service is temporarily
/// unavailable.` (the reference lets oslo.messaging's exception through: a 500).
fn cast_error(method: &str, e: &CastFailure) -> ProviderError {
    tracing::error!(method, error = %e, "cast to octavia-worker failed");
    ProviderError::unavailable("RabbitMQ", format!("cast {method}: {e}"))
}

/// A failed database read: `NotFound` as the reference's 500 (it dereferences the missing
/// row), a database error as 503 naming the database.
fn read_error(e: ReadError) -> ProviderError {
    match e {
        ReadError::NotFound { .. } => {
            ProviderError::driver("'NoneType' object has no attribute 'protocol'")
        }
        ReadError::Database(err) => ProviderError::unavailable("database", err.to_string()),
    }
}

impl AmphoraProvider {
    /// The driver: `caster` publishes to `octavia-worker`, `vips` is the network driver
    /// `[controller_worker] network_driver` names, `pools` reads Octavia's database. No
    /// Nova, Glance or Cinder client: see [`Self::with_services`].
    pub fn new(
        config: AmphoraConfig,
        caster: Arc<dyn Caster>,
        vips: Arc<dyn VipAllocator>,
        pools: Arc<dyn PoolReader>,
    ) -> Self {
        Self {
            config,
            caster,
            vips,
            pools,
            services: Services::default(),
        }
    }

    /// The clients of the real compute, image and volume drivers `config` names (a real
    /// driver without its client refuses every lookup of its kind with a 500).
    pub fn with_services(mut self, services: Services) -> Self {
        self.services = services;
        self
    }

    /// The configuration the driver was built with.
    pub fn config(&self) -> &AmphoraConfig {
        &self.config
    }

    async fn cast(&self, method: &str, args: Args) -> Result<(), ProviderError> {
        self.caster
            .cast(method, args)
            .await
            .map_err(|e| cast_error(method, &e))
    }

    /// `PUT /v2/octavia/amphorae/{id}/failover`: casts `failover_amphora(amphora_id)`
    /// (octavia/api/v2/controllers/amphora.py `FailoverController.put`).
    ///
    /// # Errors
    /// [`ProviderError::Unavailable`] (`RabbitMQ`) when the cast fails; the reference then
    /// sets the LB to ERROR, which is the caller's to do.
    #[tracing::instrument(skip(self))]
    pub async fn failover_amphora(&self, amphora_id: &str) -> Result<(), ProviderError> {
        self.cast("failover_amphora", payload::amphora(amphora_id))
            .await
    }

    /// `DELETE /v2/octavia/amphorae/{id}`: casts `delete_amphora(amphora_id)`.
    ///
    /// # Errors
    /// As [`Self::failover_amphora`].
    #[tracing::instrument(skip(self))]
    pub async fn delete_amphora(&self, amphora_id: &str) -> Result<(), ProviderError> {
        self.cast("delete_amphora", payload::amphora(amphora_id))
            .await
    }

    /// `PUT /v2/octavia/amphorae/{id}/config`: casts
    /// `update_amphora_agent_config(amphora_id)`.
    ///
    /// # Errors
    /// As [`Self::failover_amphora`].
    #[tracing::instrument(skip(self))]
    pub async fn update_amphora_agent_config(&self, amphora_id: &str) -> Result<(), ProviderError> {
        self.cast("update_amphora_agent_config", payload::amphora(amphora_id))
            .await
    }
}

#[async_trait]
impl ProviderDriver for AmphoraProvider {
    fn name(&self) -> &str {
        "amphora"
    }

    /// The VIP network must have port security (`Port security must be enabled on the VIP
    /// network.`), then the network driver allocates the port.
    #[tracing::instrument(skip(self, vip, additional_vips), err)]
    async fn create_vip_port(
        &self,
        loadbalancer_id: &str,
        project_id: &str,
        vip: Vip,
        additional_vips: Vec<AdditionalVip>,
    ) -> Result<(Vip, Vec<AdditionalVip>), ProviderError> {
        let Some(network_id) = vip.vip_network_id.as_deref() else {
            // the reference indexes the dict: KeyError
            return Err(ProviderError::driver("'vip_network_id'"));
        };
        let network = self.vips.network(network_id).await?;
        if !network.port_security_enabled {
            return Err(ProviderError::driver(
                "Port security must be enabled on the VIP network.",
            ));
        }
        let (vip, adds) = self
            .vips
            .allocate_vip(loadbalancer_id, project_id, &vip, &additional_vips)
            .await?;
        tracing::info!(
            port_id = vip.vip_port_id.as_deref().unwrap_or(""),
            loadbalancer_id,
            "Amphora provider created VIP port"
        );
        Ok((vip, adds))
    }

    #[tracing::instrument(skip(self), err)]
    async fn delete_vip_ports(
        &self,
        loadbalancer_id: &str,
        port_ids: Vec<String>,
    ) -> Result<(), ProviderError> {
        Ok(self.vips.deallocate(&port_ids).await?)
    }

    #[tracing::instrument(skip_all, fields(lb_id = %lb.loadbalancer_id), err)]
    async fn loadbalancer_create(&self, lb: LoadBalancer) -> Result<(), ProviderError> {
        self.cast("create_load_balancer", payload::lb_create(&lb))
            .await
    }

    #[tracing::instrument(skip_all, fields(lb_id = %lb.loadbalancer_id, cascade), err)]
    async fn loadbalancer_delete(
        &self,
        lb: LoadBalancer,
        cascade: bool,
    ) -> Result<(), ProviderError> {
        self.cast("delete_load_balancer", payload::lb_delete(&lb, cascade))
            .await
    }

    #[tracing::instrument(skip(self), err)]
    async fn loadbalancer_failover(&self, loadbalancer_id: &str) -> Result<(), ProviderError> {
        self.cast(
            "failover_load_balancer",
            payload::lb_failover(loadbalancer_id),
        )
        .await
    }

    #[tracing::instrument(skip_all, fields(lb_id = %old.loadbalancer_id), err)]
    async fn loadbalancer_update(
        &self,
        old: LoadBalancer,
        new: LoadBalancer,
    ) -> Result<(), ProviderError> {
        self.cast("update_load_balancer", payload::lb_update(&old, &new))
            .await
    }

    #[tracing::instrument(skip_all, fields(listener_id = %listener.listener_id), err)]
    async fn listener_create(&self, listener: Listener) -> Result<(), ProviderError> {
        checks::listener_protocol(listener.protocol.as_deref())?;
        checks::alpn_protocols(listener.alpn_protocols.as_deref())?;
        self.cast("create_listener", payload::listener_create(&listener))
            .await
    }

    #[tracing::instrument(skip_all, fields(listener_id = %listener.listener_id), err)]
    async fn listener_delete(&self, listener: Listener) -> Result<(), ProviderError> {
        self.cast("delete_listener", payload::listener_delete(&listener))
            .await
    }

    #[tracing::instrument(skip_all, fields(listener_id = %old.listener_id), err)]
    async fn listener_update(&self, old: Listener, new: Listener) -> Result<(), ProviderError> {
        checks::alpn_protocols(new.alpn_protocols.as_deref())?;
        self.cast("update_listener", payload::listener_update(&old, &new))
            .await
    }

    #[tracing::instrument(skip_all, fields(pool_id = %pool.pool_id), err)]
    async fn pool_create(&self, pool: Pool) -> Result<(), ProviderError> {
        checks::pool_algorithm(pool.lb_algorithm.as_deref())?;
        checks::alpn_protocols(pool.alpn_protocols.as_deref())?;
        self.cast("create_pool", payload::pool_create(&pool)).await
    }

    #[tracing::instrument(skip_all, fields(pool_id = %pool.pool_id), err)]
    async fn pool_delete(&self, pool: Pool) -> Result<(), ProviderError> {
        self.cast("delete_pool", payload::pool_delete(&pool)).await
    }

    #[tracing::instrument(skip_all, fields(pool_id = %old.pool_id), err)]
    async fn pool_update(&self, old: Pool, new: Pool) -> Result<(), ProviderError> {
        checks::alpn_protocols(new.alpn_protocols.as_deref())?;
        if new.lb_algorithm.as_deref().is_some_and(|a| !a.is_empty()) {
            checks::pool_algorithm(new.lb_algorithm.as_deref())?;
        }
        self.cast("update_pool", payload::pool_update(&old, &new))
            .await
    }

    #[tracing::instrument(skip_all, fields(member_id = %member.member_id), err)]
    async fn member_create(&self, member: Member) -> Result<(), ProviderError> {
        let pool_id = member.pool_id.clone().unwrap_or_default();
        let facts = self.pools.pool(&pool_id).await.map_err(read_error)?;
        checks::members(&facts, [member.address.as_deref()])?;
        self.cast("create_member", payload::member(&member)).await
    }

    #[tracing::instrument(skip_all, fields(member_id = %member.member_id), err)]
    async fn member_delete(&self, member: Member) -> Result<(), ProviderError> {
        self.cast("delete_member", payload::member(&member)).await
    }

    #[tracing::instrument(skip_all, fields(member_id = %old.member_id), err)]
    async fn member_update(&self, old: Member, new: Member) -> Result<(), ProviderError> {
        self.cast("update_member", payload::member_update(&old, &new))
            .await
    }

    #[tracing::instrument(skip(self, members), fields(members = members.len()), err)]
    async fn member_batch_update(
        &self,
        pool_id: &str,
        members: Vec<Member>,
    ) -> Result<(), ProviderError> {
        let facts = self.pools.pool(pool_id).await.map_err(read_error)?;
        checks::members(&facts, members.iter().map(|m| m.address.as_deref()))?;
        self.cast(
            "batch_update_members",
            payload::member_batch(&facts.members, &members),
        )
        .await
    }

    #[tracing::instrument(skip_all, fields(hm_id = %hm.healthmonitor_id), err)]
    async fn health_monitor_create(&self, hm: HealthMonitor) -> Result<(), ProviderError> {
        self.cast("create_health_monitor", payload::health_monitor(&hm))
            .await
    }

    #[tracing::instrument(skip_all, fields(hm_id = %hm.healthmonitor_id), err)]
    async fn health_monitor_delete(&self, hm: HealthMonitor) -> Result<(), ProviderError> {
        self.cast("delete_health_monitor", payload::health_monitor(&hm))
            .await
    }

    #[tracing::instrument(skip_all, fields(hm_id = %old.healthmonitor_id), err)]
    async fn health_monitor_update(
        &self,
        old: HealthMonitor,
        new: HealthMonitor,
    ) -> Result<(), ProviderError> {
        self.cast(
            "update_health_monitor",
            payload::health_monitor_update(&old, &new),
        )
        .await
    }

    #[tracing::instrument(skip_all, fields(l7policy_id = %policy.l7policy_id), err)]
    async fn l7policy_create(&self, policy: L7Policy) -> Result<(), ProviderError> {
        let listener_id = policy.listener_id.clone().unwrap_or_default();
        let protocol = self
            .pools
            .listener_protocol(&listener_id)
            .await
            .map_err(read_error)?;
        checks::l7policy_listener(&protocol)?;
        self.cast("create_l7policy", payload::l7policy(&policy))
            .await
    }

    #[tracing::instrument(skip_all, fields(l7policy_id = %policy.l7policy_id), err)]
    async fn l7policy_delete(&self, policy: L7Policy) -> Result<(), ProviderError> {
        self.cast("delete_l7policy", payload::l7policy(&policy))
            .await
    }

    #[tracing::instrument(skip_all, fields(l7policy_id = %old.l7policy_id), err)]
    async fn l7policy_update(&self, old: L7Policy, new: L7Policy) -> Result<(), ProviderError> {
        self.cast("update_l7policy", payload::l7policy_update(&old, &new))
            .await
    }

    #[tracing::instrument(skip_all, fields(l7rule_id = %rule.l7rule_id), err)]
    async fn l7rule_create(&self, rule: L7Rule) -> Result<(), ProviderError> {
        self.cast("create_l7rule", payload::l7rule(&rule)).await
    }

    #[tracing::instrument(skip_all, fields(l7rule_id = %rule.l7rule_id), err)]
    async fn l7rule_delete(&self, rule: L7Rule) -> Result<(), ProviderError> {
        self.cast("delete_l7rule", payload::l7rule(&rule)).await
    }

    #[tracing::instrument(skip_all, fields(l7rule_id = %old.l7rule_id), err)]
    async fn l7rule_update(&self, old: L7Rule, new: L7Rule) -> Result<(), ProviderError> {
        self.cast("update_l7rule", payload::l7rule_update(&old, &new))
            .await
    }

    async fn get_supported_flavor_metadata(&self) -> Result<Value, ProviderError> {
        Ok(flavor::supported_flavor_metadata())
    }

    /// The schema check (`UnsupportedOptionError` with jsonschema's text), then
    /// `compute_flavor` in Nova and `amp_image_tag` in Glance unless the configured driver is
    /// the noop one (`crate::services`: texts and statuses).
    #[tracing::instrument(skip(self), err)]
    async fn validate_flavor(&self, flavor_metadata: &Value) -> Result<(), ProviderError> {
        flavor::check_flavor(flavor_metadata).map_err(ProviderError::unsupported)?;
        let text = |key: &str| flavor_metadata.get(key).and_then(Value::as_str);
        services::check_flavor(
            &self.config,
            &self.services,
            text("compute_flavor"),
            text("amp_image_tag"),
        )
        .await
    }

    async fn get_supported_availability_zone_metadata(&self) -> Result<Value, ProviderError> {
        Ok(flavor::supported_availability_zone_metadata())
    }

    /// The schema check, then `compute_zone` among Nova's zones and `volume_zone` among
    /// Cinder's unless the configured driver is the noop one (`crate::services`), then every
    /// `valid_vip_networks` entry and the `management_network` must exist (`get_network`; a
    /// missing one is a 500 `network not found (network id: <id>).` as the reference).
    #[tracing::instrument(skip(self), err)]
    async fn validate_availability_zone(&self, az_metadata: &Value) -> Result<(), ProviderError> {
        flavor::check_availability_zone(az_metadata).map_err(ProviderError::unsupported)?;
        let text = |key: &str| az_metadata.get(key).and_then(Value::as_str);
        services::check_availability_zone(
            &self.config,
            &self.services,
            text("compute_zone"),
            text("volume_zone"),
        )
        .await?;
        if let Some(obj) = az_metadata.as_object() {
            for net in flavor::az_networks(obj) {
                self.vips.network(&net).await?;
            }
        }
        Ok(())
    }
}
