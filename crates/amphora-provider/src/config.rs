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
    /// `[controller_worker] compute_driver` (default `compute_nova_driver`): with
    /// `compute_noop_driver` a flavor's `compute_flavor` and an AZ's `compute_zone` are not
    /// looked up (the reference's noop driver accepts any); Keel has no Nova client and never
    /// looks them up (see the crate README).
    pub compute_driver: String,
    /// `[controller_worker] image_driver` (default `image_glance_driver`): as
    /// [`Self::compute_driver`], for a flavor's `amp_image_tag`.
    pub image_driver: String,
    /// `[controller_worker] volume_driver` (default `volume_noop_driver`): as
    /// [`Self::compute_driver`], for an AZ's `volume_zone`.
    pub volume_driver: String,
}

impl Default for AmphoraConfig {
    fn default() -> Self {
        Self {
            network_driver: NEUTRON_NETWORK_DRIVER.into(),
            loadbalancer_topology: "SINGLE".into(),
            compute_driver: "compute_nova_driver".into(),
            image_driver: "image_glance_driver".into(),
            volume_driver: "volume_noop_driver".into(),
        }
    }
}

/// `[controller_worker] network_driver` of Octavia's default: VIP ports made in Neutron
/// (octavia/network/drivers/neutron/allowed_address_pairs.py).
pub const NEUTRON_NETWORK_DRIVER: &str = "allowed_address_pairs_driver";

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
