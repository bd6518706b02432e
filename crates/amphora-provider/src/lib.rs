//! Octavia's amphora provider driver for Keel, as
//! octavia/api/drivers/amphora_driver/v2/driver.py: the API's calls are checked with the
//! reference's texts, the VIP port is made by the configured network driver, and each
//! accepted call is *cast* over RabbitMQ to the operator's own Python `octavia-worker`, which
//! builds the amphorae and writes every status into the shared database.
//!
//! * [`AmphoraProvider`] — `provider::ProviderDriver` (`name() == "amphora"`) plus the admin
//!   API's amphora casts ([`AmphoraProvider::failover_amphora`], …).
//! * [`Caster`] — the seam to RabbitMQ (the lead implements it over `oslo-messaging`);
//!   [`RecordingCaster`] records casts for tests.
//! * [`VipAllocator`] — [`NeutronVipAllocator`] (`allowed_address_pairs_driver`) and
//!   [`NoopVipAllocator`] (`network_noop_driver`).
//! * [`Services`] — Nova, Glance and Cinder for the flavor and availability-zone checks
//!   of the real compute, image and volume drivers ([`ComputeService`], [`ImageService`],
//!   [`VolumeService`]; the noop drivers need none).
//! * [`PoolReader`] — the database reads `member_create`, `member_batch_update` and
//!   `l7policy_create` need.
//! * [`payload`] — each cast's keyword arguments; [`checks`] — the refusals; [`flavor`] —
//!   flavor / availability-zone metadata.
//!
//! ```
//! use std::sync::Arc;
//! use amphora_provider::{
//!     AmphoraConfig, AmphoraProvider, NoopVipAllocator, PoolFacts, PoolReader, ReadError,
//!     RecordingCaster,
//! };
//! use provider::{Pool, ProviderDriver};
//!
//! struct NoDb;
//! #[async_trait::async_trait]
//! impl PoolReader for NoDb {
//!     async fn pool(&self, _: &str) -> Result<PoolFacts, ReadError> { Ok(PoolFacts::default()) }
//!     async fn listener_protocol(&self, _: &str) -> Result<String, ReadError> { Ok("HTTP".into()) }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let caster = Arc::new(RecordingCaster::new());
//! let driver = AmphoraProvider::new(
//!     AmphoraConfig::default(), caster.clone(), Arc::new(NoopVipAllocator), Arc::new(NoDb));
//! let pool = Pool { pool_id: "p1".into(), lb_algorithm: Some("ROUND_ROBIN".into()), ..Default::default() };
//! driver.pool_create(pool).await.unwrap();
//! let casts = caster.take();
//! assert_eq!(casts[0].0, "create_pool");
//! assert_eq!(casts[0].1["pool"]["enabled"], serde_json::Value::Null);
//!
//! // SOURCE_IP_PORT is the OVN provider's algorithm, not the amphora's: 501 in the API
//! let pool = Pool { pool_id: "p2".into(), lb_algorithm: Some("SOURCE_IP_PORT".into()), ..Default::default() };
//! let err = driver.pool_create(pool).await.unwrap_err();
//! assert_eq!(err.to_string(), "Amphora provider does not support SOURCE_IP_PORT algorithm.");
//! # });
//! ```

mod cast;
pub mod checks;
mod config;
mod driver;
pub mod flavor;
pub mod payload;
mod reader;
mod services;
mod vip;

pub use cast::{
    CastFailure, Caster, RPC_NAMESPACE, RPC_TOPIC, RPC_VERSION, RecordedCast, RecordingCaster,
};
pub use config::{
    AmphoraConfig, COMPUTE_NOOP_DRIVER, COMPUTE_NOVA_DRIVER, IMAGE_GLANCE_DRIVER,
    IMAGE_NOOP_DRIVER, NEUTRON_NETWORK_DRIVER, NOOP_NETWORK_DRIVER, VOLUME_CINDER_DRIVER,
    VOLUME_NOOP_DRIVER, is_noop_network_driver,
};
pub use driver::AmphoraProvider;
pub use reader::{DbMember, PoolFacts, PoolReader, ReadError};
pub use services::{ComputeService, ImageService, Services, VolumeService};
pub use vip::{
    NOOP_VIP_ADDRESS, NeutronVipAllocator, NoopVipAllocator, OCTAVIA_OWNER, VipAllocator, VipError,
    VipNetwork, port_to_vip, vip_port_request,
};
