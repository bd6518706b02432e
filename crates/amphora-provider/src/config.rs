//! What the amphora driver reads from `octavia.conf`.

/// The amphora driver's options, each named with its `octavia.conf` section and key and
/// Octavia 19.0.0's default ([`Default`] gives those defaults).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AmphoraConfig {
    /// `[controller_worker] network_driver` (default `allowed_address_pairs_driver`): which
    /// [`crate::VipAllocator`] makes VIP ports — `allowed_address_pairs_driver` is
    /// [`crate::NeutronVipAllocator`], `network_noop_driver` is [`crate::NoopVipAllocator`].
    pub network_driver: String,
    /// `[controller_worker] loadbalancer_topology` (default `SINGLE`): the topology the API
    /// stores for a new amphora load balancer unless its flavor says otherwise
    /// (octavia/db/prepare.py `create_load_balancer`); the driver itself does not use it.
    pub loadbalancer_topology: String,
    /// `[controller_worker] compute_driver` (default `compute_nova_driver`): with it a
    /// flavor's `compute_flavor` and an AZ's `compute_zone` are looked up in Nova; with
    /// `compute_noop_driver` any is accepted (`crate::services`).
    pub compute_driver: String,
    /// `[controller_worker] image_driver` (default `image_glance_driver`): as
    /// [`Self::compute_driver`], for a flavor's `amp_image_tag` in Glance
    /// (`image_noop_driver` accepts any).
    pub image_driver: String,
    /// `[controller_worker] volume_driver` (default `volume_noop_driver`): as
    /// [`Self::compute_driver`], for an AZ's `volume_zone` in Cinder with
    /// `volume_cinder_driver`.
    pub volume_driver: String,
    /// `[controller_worker] amp_image_owner_id` (default empty): when set, only images of
    /// this project count for an `amp_image_tag`.
    pub amp_image_owner_id: String,
}

impl Default for AmphoraConfig {
    fn default() -> Self {
        Self {
            network_driver: NEUTRON_NETWORK_DRIVER.into(),
            loadbalancer_topology: "SINGLE".into(),
            compute_driver: COMPUTE_NOVA_DRIVER.into(),
            image_driver: IMAGE_GLANCE_DRIVER.into(),
            volume_driver: VOLUME_NOOP_DRIVER.into(),
            amp_image_owner_id: String::new(),
        }
    }
}

/// `[controller_worker] network_driver` of Octavia's default: VIP ports made in Neutron
/// (octavia/network/drivers/neutron/allowed_address_pairs.py).
pub const NEUTRON_NETWORK_DRIVER: &str = "allowed_address_pairs_driver";

/// `[controller_worker] compute_driver` of Octavia's default: Nova
/// (octavia/compute/drivers/nova_driver.py).
pub const COMPUTE_NOVA_DRIVER: &str = "compute_nova_driver";
/// `[controller_worker] compute_driver` of upstream's noop jobs: nothing looked up.
pub const COMPUTE_NOOP_DRIVER: &str = "compute_noop_driver";
/// `[controller_worker] image_driver` of Octavia's default: Glance
/// (octavia/image/drivers/glance_driver.py).
pub const IMAGE_GLANCE_DRIVER: &str = "image_glance_driver";
/// `[controller_worker] image_driver` of upstream's noop jobs: nothing looked up.
pub const IMAGE_NOOP_DRIVER: &str = "image_noop_driver";
/// `[controller_worker] volume_driver` for Cinder (octavia/volume/drivers/cinder_driver.py).
pub const VOLUME_CINDER_DRIVER: &str = "volume_cinder_driver";
/// `[controller_worker] volume_driver` of Octavia's default: nothing looked up.
pub const VOLUME_NOOP_DRIVER: &str = "volume_noop_driver";

/// `[controller_worker] network_driver` of upstream's noop jobs: every network object exists
/// and nothing is made (octavia/network/drivers/noop_driver/driver.py).
pub const NOOP_NETWORK_DRIVER: &str = "network_noop_driver";

/// True when a `[controller_worker] network_driver` value names the noop driver: VIPs come
/// from [`crate::NoopVipAllocator`], and the API's VIP and member lookups answer as that
/// driver does whatever the provider (octavia-api takes its network driver from
/// octavia/common/utils.py `get_network_driver` for both).
pub fn is_noop_network_driver(network_driver: &str) -> bool {
    network_driver == NOOP_NETWORK_DRIVER
}

impl AmphoraConfig {
    /// [`is_noop_network_driver`] of this config's `network_driver`.
    pub fn noop_network(&self) -> bool {
        is_noop_network_driver(&self.network_driver)
    }
}
