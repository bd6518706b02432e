//! The amphora provider in `keel serve`: the `amphora-provider` driver over the real parts —
//! its casts through `oslo-messaging` to the operator's `octavia-worker`, its VIP ports by the
//! configured `[controller_worker] network_driver`, its pool reads from the Octavia DB — and
//! the admin API's amphora casts (`api::AmphoraControl`).
//!
//! Octavia registers one driver under three names (`amphora`, `amphorav2`, `octavia`:
//! octavia's setup.cfg `octavia.api.drivers`); a load balancer stores the name it was created
//! with, so each enabled one maps to the same driver here.

use std::collections::BTreeMap;
use std::sync::Arc;

use amphora_provider::{
    AmphoraConfig, AmphoraProvider, CastFailure, Caster, DbMember, NeutronVipAllocator,
    NoopVipAllocator, PoolFacts, PoolReader, ReadError, VipAllocator,
};
use async_trait::async_trait;
use octavia_db::{
    AdditionalVipRow, Database, L7PolicyRow, L7RuleRow, ListQuery, ListenerRow, MemberRow, PoolRow,
    VipRow,
};
use oslo_messaging::{RpcClient, Target};
use provider::{ProviderDriver, ProviderError};
use serde_json::{Map, Value};

use crate::config::Config;

/// The names Octavia loads the amphora driver under (octavia's setup.cfg entry points).
pub const NAMES: [&str; 3] = ["amphora", "amphorav2", "octavia"];

/// The loaded amphora provider: the driver (for `AppState`'s provider map) and the admin
/// API's seam.
pub struct Loaded {
    /// The driver, once per enabled name.
    pub drivers: BTreeMap<String, Arc<dyn ProviderDriver>>,
    /// The amphora admin API's casts.
    pub control: Arc<dyn api::AmphoraControl>,
}

/// Loads the amphora driver when one of [`NAMES`] is in `enabled_provider_drivers`; `None`
/// otherwise (an OVN-only deployment needs no RabbitMQ, Nova, Glance nor Cinder). Errors: the
/// transport URL, an `[oslo_messaging_rabbit]` option, `[controller_worker] network_driver`,
/// or a compute, image or volume driver whose checks cannot be made (`crate::compute`)
/// (`keel serve` refuses to start, naming section and key).
pub async fn load(
    config: &Config,
    db: &Database,
    neutron: openstack::NeutronClient,
    service: &openstack::ServiceAuth,
) -> anyhow::Result<Option<Loaded>> {
    let enabled: Vec<&str> = NAMES
        .into_iter()
        .filter(|n| {
            config
                .api_settings
                .api
                .enabled_provider_drivers
                .contains_key(*n)
        })
        .collect();
    if enabled.is_empty() {
        return Ok(None);
    }
    let m = &config.messaging;
    let (url, options) = m.transport()?;
    let rpc = RpcClient::new(url, options, config.keel.rpc_cast_timeout)?;
    tracing::info!(transport_url = %rpc.url(), exchange = %m.control_exchange,
        "amphora provider: casts to octavia-worker over RabbitMQ");
    let target = Target {
        exchange: m.control_exchange.clone(),
        ..Target::octavia_amphora_v2()
    };
    let services = crate::compute::services(config, service).await?;
    let c = &config.compute;
    let amp_config = AmphoraConfig {
        network_driver: m.network_driver.clone(),
        loadbalancer_topology: config.api_settings.api.loadbalancer_topology.clone(),
        compute_driver: c.compute_driver.clone(),
        image_driver: c.image_driver.clone(),
        volume_driver: c.volume_driver.clone(),
        amp_image_owner_id: c.amp_image_owner_id.clone(),
    };
    let vips: Arc<dyn VipAllocator> = if amp_config.noop_network() {
        Arc::new(NoopVipAllocator)
    } else {
        Arc::new(NeutronVipAllocator::new(neutron))
    };
    let driver = Arc::new(
        AmphoraProvider::new(
            amp_config,
            Arc::new(RpcCaster { rpc, target }),
            vips,
            Arc::new(DbPools(db.clone())),
        )
        .with_services(services),
    );
    let drivers = enabled
        .into_iter()
        .map(|n| (n.to_string(), driver.clone() as Arc<dyn ProviderDriver>))
        .collect();
    Ok(Some(Loaded {
        drivers,
        control: Arc::new(Control(driver)),
    }))
}

/// The driver's casts over `oslo-messaging`, to exchange `[DEFAULT] control_exchange`.
struct RpcCaster {
    rpc: RpcClient,
    target: Target,
}

#[async_trait]
impl Caster for RpcCaster {
    /// Also tells the API that the worker, not a status report, settles this work
    /// (`provider::gate::no_status_report`): the answer goes out at commit, as Octavia's.
    async fn cast(&self, method: &str, args: Map<String, Value>) -> Result<(), CastFailure> {
        provider::gate::no_status_report();
        self.rpc
            .cast(&self.target, method, args)
            .await
            .map_err(|e| CastFailure::with_source(e.to_string(), e))
    }
}

/// The admin API's amphora casts through the driver.
struct Control(Arc<AmphoraProvider>);

#[async_trait]
impl api::AmphoraControl for Control {
    async fn delete_amphora(&self, amphora_id: &str) -> Result<(), ProviderError> {
        self.0.delete_amphora(amphora_id).await
    }
    async fn failover_amphora(&self, amphora_id: &str) -> Result<(), ProviderError> {
        self.0.failover_amphora(amphora_id).await
    }
    async fn update_amphora_agent_config(&self, amphora_id: &str) -> Result<(), ProviderError> {
        self.0.update_amphora_agent_config(amphora_id).await
    }
}

/// The driver's reads (`repositories.pool.get`, `repositories.listener.get` in
/// octavia/api/drivers/amphora_driver/v2/driver.py) on a connection of their own: they see
/// the rows before the API's open transaction changes them, as the reference's own session.
struct DbPools(Database);

fn db_error(e: octavia_db::DbError) -> ReadError {
    ReadError::Database(Box::new(e))
}

/// Python's `datetime.isoformat()` of a naive timestamp (`.ffffff` only when not zero).
fn isoformat(t: Option<chrono::NaiveDateTime>) -> Option<String> {
    t.map(|t| {
        if t.and_utc().timestamp_subsec_micros() == 0 {
            t.format("%Y-%m-%dT%H:%M:%S").to_string()
        } else {
            t.format("%Y-%m-%dT%H:%M:%S%.6f").to_string()
        }
    })
}

#[async_trait]
impl PoolReader for DbPools {
    async fn pool(&self, pool_id: &str) -> Result<PoolFacts, ReadError> {
        let mut tx = self.0.begin_read().await.map_err(db_error)?;
        let pool: PoolRow =
            tx.find(pool_id)
                .await
                .map_err(db_error)?
                .ok_or_else(|| ReadError::NotFound {
                    kind: "pool",
                    id: pool_id.to_string(),
                })?;
        // models.py `Pool.listeners`: the listeners whose default pool it is, and those of
        // enabled L7 policies with at least one rule redirecting to it
        let defaults: Vec<ListenerRow> = tx
            .list(&ListQuery::default().filter("default_pool_id", pool_id))
            .await
            .map_err(db_error)?;
        let mut has_listeners = !defaults.is_empty();
        if !has_listeners {
            let policies: Vec<L7PolicyRow> = tx
                .list(&ListQuery::default().filter("redirect_pool_id", pool_id))
                .await
                .map_err(db_error)?;
            for p in policies.iter().filter(|p| p.enabled) {
                let rules: Vec<L7RuleRow> = tx
                    .list(&ListQuery::default().filter("l7policy_id", p.id.as_str()))
                    .await
                    .map_err(db_error)?;
                if !rules.is_empty() {
                    has_listeners = true;
                    break;
                }
            }
        }
        let mut vip_addresses = Vec::new();
        if let Some(lb) = pool.load_balancer_id.as_deref() {
            let vip: Option<VipRow> = tx.find(lb).await.map_err(db_error)?;
            vip_addresses.extend(vip.map(|v| v.ip_address));
            let adds: Vec<AdditionalVipRow> = tx
                .list(&ListQuery::default().filter("load_balancer_id", lb))
                .await
                .map_err(db_error)?;
            vip_addresses.extend(adds.into_iter().map(|a| a.ip_address));
        }
        let rows: Vec<MemberRow> = tx
            .list(&ListQuery::default().filter("pool_id", pool_id))
            .await
            .map_err(db_error)?;
        let ids: Vec<String> = rows.iter().map(|m| m.id.clone()).collect();
        let tags = tx.tags_of(&ids).await.map_err(db_error)?;
        let members = rows
            .into_iter()
            .map(|m| DbMember {
                tags: tags
                    .iter()
                    .filter(|t| t.resource_id == m.id)
                    .map(|t| t.tag.clone())
                    .collect(),
                id: m.id,
                project_id: m.project_id,
                pool_id: m.pool_id,
                ip_address: m.ip_address.unwrap_or_default(),
                protocol_port: i64::from(m.protocol_port),
                weight: m.weight.map(i64::from),
                backup: m.backup,
                enabled: m.enabled,
                subnet_id: m.subnet_id,
                operating_status: m.operating_status.into(),
                created_at: isoformat(m.created_at),
                updated_at: isoformat(m.updated_at),
                provisioning_status: m.provisioning_status.into(),
                name: m.name,
                monitor_address: m.monitor_address,
                monitor_port: m.monitor_port.map(i64::from),
                vnic_type: Some(m.vnic_type),
            })
            .collect();
        tx.rollback().await.map_err(db_error)?;
        Ok(PoolFacts {
            protocol: pool.protocol,
            has_listeners,
            vip_addresses,
            members,
        })
    }

    async fn listener_protocol(&self, listener_id: &str) -> Result<String, ReadError> {
        let mut tx = self.0.begin_read().await.map_err(db_error)?;
        let l: Option<ListenerRow> = tx.find(listener_id).await.map_err(db_error)?;
        tx.rollback().await.map_err(db_error)?;
        l.map(|l| l.protocol).ok_or_else(|| ReadError::NotFound {
            kind: "listener",
            id: listener_id.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn isoformat_is_pythons() {
        let t = chrono::NaiveDate::from_ymd_opt(2026, 12, 1)
            .and_then(|d| d.and_hms_micro_opt(10, 0, 0, 0));
        assert_eq!(super::isoformat(t).as_deref(), Some("2026-12-01T10:00:00"));
        let t = chrono::NaiveDate::from_ymd_opt(2026, 12, 1)
            .and_then(|d| d.and_hms_micro_opt(10, 0, 0, 42));
        assert_eq!(
            super::isoformat(t).as_deref(),
            Some("2026-12-01T10:00:00.000042")
        );
    }
}
