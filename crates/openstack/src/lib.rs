//! Thin async clients for the OpenStack services Keel talks to (seed 003 §3–5).
//!
//! * [`ServiceAuth`]: Keel's own Keystone v3 session (octavia.conf `[service_auth]`: password,
//!   or an [`ApplicationCredential`]),
//!   token cached and refreshed before expiry, service catalog parsed
//!   ([`Catalog::url_for`]).
//! * [`TokenValidator`]: validates a user's `X-Auth-Token` (`GET /v3/auth/tokens`) into a
//!   [`UserContext`], with an in-memory cache as keystonemiddleware's token cache.
//! * [`NeutronClient`]: networks, subnets, ports, routers, floating IPs, QoS policies,
//!   security groups, IP availability; acting with the service token or a user's token
//!   ([`NeutronClient::with_user_token`]); errors typed as [`NeutronError`].
//! * [`BarbicanClient`]: secrets (metadata, payload) and certificate containers by
//!   reference, with a user token (Octavia's certificate manager's reads); store/delete.
//! * [`NovaClient`] (flavor, availability zones), [`GlanceClient`] (newest active image by
//!   tag), [`CinderClient`] (availability zones): the amphora provider's flavor and
//!   availability-zone checks, with the service token; endpoints as [`ServiceEndpoint`]
//!   says, errors typed as [`ServiceError`].
//!
//! Every client shares one pooled `reqwest::Client` built by [`HttpConfig::build_client`]
//! (rustls, timeouts from [`HttpConfig`]): build it once per process and clone it.
//!
//! ```
//! use openstack::{Catalog, Interface};
//!
//! // `token.catalog` of a Keystone v3 token body
//! let catalog: Catalog = serde_json::from_str(r#"[
//!   {"type": "network", "id": "n1", "endpoints": [
//!     {"interface": "public", "region_id": "RegionOne", "url": "https://neutron.example:9696"},
//!     {"interface": "internal", "region_id": "RegionOne", "url": "http://10.0.0.5:9696"}]}
//! ]"#)?;
//! // `[neutron] valid_interfaces = internal`, `region_name = RegionOne`
//! assert_eq!(catalog.url_for("network", Interface::Internal, Some("RegionOne")), Some("http://10.0.0.5:9696"));
//! assert_eq!(catalog.url_for("key-manager", Interface::Public, None), None);
//! # Ok::<(), serde_json::Error>(())
//! ```

mod barbican;
mod cinder;
mod error;
mod glance;
mod http;
pub mod keystone;
pub mod neutron;
mod nova;
mod service_client;

pub use barbican::{
    BarbicanClient, BarbicanConfig, BarbicanError, Container, ContainerSecretRef, SecretMeta,
    acl_entity, ref_uuid,
};
pub use cinder::CinderClient;
pub use error::{InvalidTokenReason, KeystoneError, NeutronError, NeutronFault, UnknownInterface};
pub use glance::{GlanceClient, Image};
pub use http::{HttpConfig, HttpConfigError};
pub use keystone::{
    AppCredentialUser, ApplicationCredential, Catalog, CatalogEndpoint, CatalogService, Interface,
    ServiceAuth, ServiceAuthConfig, ServiceToken, TokenValidator, TokenValidatorConfig,
    UserContext,
};
pub use neutron::{
    AddressPair, AllocationPool, ExternalGatewayInfo, FixedIp, FixedIpRequest, FloatingIp,
    HostRoute, ListFilter, Network, NetworkCreate, NetworkIpAvailability, NeutronClient,
    NeutronConfig, Port, PortCreate, PortUpdate, QosPolicy, Router, RouterCreate, SecurityGroup,
    Subnet, SubnetCreate, SubnetIpAvailability,
};
pub use nova::{AvailabilityZone, Flavor, NovaClient, ZoneState};
pub use service_client::{ServiceEndpoint, ServiceError};
