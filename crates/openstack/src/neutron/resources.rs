//! Neutron v2.0 resources as Keel reads and writes them: networks, subnets, ports (and their
//! create/update bodies), routers, floating IPs, QoS policies, security groups, IP
//! availability, and the query filters of list calls. Fields follow the Neutron API
//! reference; absent or `null` fields read as their defaults.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use std::net::IpAddr;

/// `GET /v2.0/networks/{id}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct Network {
    /// Network UUID (`id`); ML2/OVN names its switch `neutron-<id>`.
    pub id: String,
    /// `name`; `""` when unset.
    #[serde(deserialize_with = "null_default")]
    pub name: String,
    /// `project_id` of the owner.
    #[serde(deserialize_with = "null_default")]
    pub project_id: String,
    /// `ACTIVE`, `DOWN`, `BUILD`, `ERROR`.
    #[serde(deserialize_with = "null_default")]
    pub status: String,
    /// `admin_state_up` (`false` also when Neutron omits it).
    pub admin_state_up: bool,
    /// Shared with all projects.
    pub shared: bool,
    /// Ids of its subnets.
    #[serde(deserialize_with = "null_default")]
    pub subnets: Vec<String>,
    /// MTU (net-mtu extension).
    pub mtu: Option<u32>,
    /// `router:external`.
    #[serde(rename = "router:external")]
    pub router_external: bool,
    /// `provider:network_type` (admin only), e.g. `geneve`, `vlan`, `flat`.
    #[serde(rename = "provider:network_type")]
    pub provider_network_type: Option<String>,
    /// `provider:physical_network` (admin only): set for provider networks; the OVN provider
    /// does not associate a VIP on a provider network to its switch (helper.py).
    #[serde(rename = "provider:physical_network")]
    pub provider_physical_network: Option<String>,
    /// `provider:segmentation_id` (admin only).
    #[serde(rename = "provider:segmentation_id")]
    pub provider_segmentation_id: Option<u32>,
    /// Port security default of the network.
    pub port_security_enabled: Option<bool>,
    /// `description`; `""` when unset.
    #[serde(deserialize_with = "null_default")]
    pub description: String,
    /// `tags` (standard-attr-tag extension); empty when none.
    #[serde(deserialize_with = "null_default")]
    pub tags: Vec<String>,
}

/// One allocation pool of a subnet.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct AllocationPool {
    /// First address of the range (inclusive).
    pub start: IpAddr,
    /// Last address of the range (inclusive).
    pub end: IpAddr,
}

/// One host route of a subnet.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct HostRoute {
    /// Destination CIDR.
    pub destination: String,
    /// Next hop address.
    pub nexthop: String,
}

/// `GET /v2.0/subnets/{id}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct Subnet {
    /// Subnet UUID (`id`).
    pub id: String,
    /// `name`; `""` when unset.
    #[serde(deserialize_with = "null_default")]
    pub name: String,
    /// UUID of the subnet's network.
    pub network_id: String,
    /// `project_id` of the owner.
    #[serde(deserialize_with = "null_default")]
    pub project_id: String,
    /// CIDR, e.g. `10.0.0.0/24`, `fd00::/64`.
    pub cidr: String,
    /// 4 or 6.
    pub ip_version: u8,
    /// Gateway address; `None` when the subnet has no gateway.
    pub gateway_ip: Option<IpAddr>,
    /// `enable_dhcp` (`false` also when Neutron omits it).
    pub enable_dhcp: bool,
    /// Ranges Neutron allocates fixed IPs from (`allocation_pools`).
    #[serde(deserialize_with = "null_default")]
    pub allocation_pools: Vec<AllocationPool>,
    /// `dns_nameservers`: addresses as text, in order; empty = none.
    #[serde(deserialize_with = "null_default")]
    pub dns_nameservers: Vec<String>,
    /// Extra routes handed to instances by DHCP (`host_routes`).
    #[serde(deserialize_with = "null_default")]
    pub host_routes: Vec<HostRoute>,
    /// IPv6 address mode (`slaac`, `dhcpv6-stateful`, `dhcpv6-stateless`).
    pub ipv6_address_mode: Option<String>,
    /// IPv6 router advertisement mode (same values as the address mode); `None` when unset,
    /// always for IPv4.
    pub ipv6_ra_mode: Option<String>,
    /// Subnet pool it came from.
    pub subnetpool_id: Option<String>,
    /// Routed-network segment.
    pub segment_id: Option<String>,
    /// `description`; `""` when unset.
    #[serde(deserialize_with = "null_default")]
    pub description: String,
    /// `tags` (standard-attr-tag extension); empty when none.
    #[serde(deserialize_with = "null_default")]
    pub tags: Vec<String>,
}

/// One fixed IP of a port, as Neutron returns it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct FixedIp {
    /// Subnet of the address.
    pub subnet_id: String,
    /// The address itself, IPv4 or IPv6.
    pub ip_address: IpAddr,
}

/// One fixed IP asked for on create/update: a subnet (Neutron picks the address), an
/// address (Neutron finds the subnet), or both.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
pub struct FixedIpRequest {
    /// Subnet to allocate from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subnet_id: Option<String>,
    /// Exact address wanted (409 `IpAddressAlreadyAllocated` when taken).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ip_address: Option<IpAddr>,
}

impl FixedIpRequest {
    /// Any free address of `subnet_id`.
    pub fn subnet(subnet_id: impl Into<String>) -> Self {
        Self {
            subnet_id: Some(subnet_id.into()),
            ip_address: None,
        }
    }

    /// Exactly `ip_address` in `subnet_id`.
    pub fn address(subnet_id: impl Into<String>, ip_address: IpAddr) -> Self {
        Self {
            subnet_id: Some(subnet_id.into()),
            ip_address: Some(ip_address),
        }
    }
}

/// An allowed address pair of a port.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct AddressPair {
    /// Address or CIDR.
    pub ip_address: String,
    /// MAC (default: the port's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mac_address: Option<String>,
}

/// `GET /v2.0/ports/{id}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct Port {
    /// Port id (also the OVN `Logical_Switch_Port` name).
    pub id: String,
    /// Name, e.g. `ovn-lb-vip-<lb id>`, `ovn-lb-hm-<subnet id>`.
    #[serde(deserialize_with = "null_default")]
    pub name: String,
    /// UUID of the port's network.
    pub network_id: String,
    /// `project_id` of the owner.
    #[serde(deserialize_with = "null_default")]
    pub project_id: String,
    /// `mac_address`, e.g. `fa:16:3e:12:34:56`.
    #[serde(deserialize_with = "null_default")]
    pub mac_address: String,
    /// `admin_state_up` (`false` also when Neutron omits it).
    pub admin_state_up: bool,
    /// `ACTIVE`, `DOWN`, `BUILD`.
    #[serde(deserialize_with = "null_default")]
    pub status: String,
    /// Device id, e.g. `lb-<lb id>` for a VIP port.
    #[serde(deserialize_with = "null_default")]
    pub device_id: String,
    /// Device owner, e.g. `ovn-lb:vip`, `ovn-lb-hm:distributed`, `network:router_interface`.
    #[serde(deserialize_with = "null_default")]
    pub device_owner: String,
    /// `fixed_ips`: one entry per address, in Neutron's order.
    pub fixed_ips: Vec<FixedIp>,
    /// Security group ids.
    #[serde(deserialize_with = "null_default")]
    pub security_groups: Vec<String>,
    /// Allowed address pairs.
    #[serde(deserialize_with = "null_default")]
    pub allowed_address_pairs: Vec<AddressPair>,
    /// QoS policy id (qos extension).
    pub qos_policy_id: Option<String>,
    /// Port security (port-security extension).
    pub port_security_enabled: Option<bool>,
    /// `binding:host_id` (admin only).
    #[serde(rename = "binding:host_id")]
    pub binding_host_id: Option<String>,
    /// DNS name (dns-integration extension).
    pub dns_name: Option<String>,
    /// `description`; `""` when unset.
    #[serde(deserialize_with = "null_default")]
    pub description: String,
    /// `tags` (standard-attr-tag extension); empty when none.
    #[serde(deserialize_with = "null_default")]
    pub tags: Vec<String>,
}

impl Port {
    /// The first address of the port in `subnet_id`.
    pub fn ip_in_subnet(&self, subnet_id: &str) -> Option<IpAddr> {
        self.fixed_ips
            .iter()
            .find(|f| f.subnet_id == subnet_id)
            .map(|f| f.ip_address)
    }
}

/// Body of `POST /v2.0/ports`. Only set fields are sent; `extra` carries any other attribute
/// (e.g. `binding:host_id`) as is.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PortCreate {
    /// Network (required).
    pub network_id: String,
    /// `name`; `None` = not sent (Neutron stores `""`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Fixed IPs; `None` = Neutron allocates one per subnet, `Some(vec![])` = no address.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fixed_ips: Option<Vec<FixedIpRequest>>,
    /// `device_owner`, e.g. `ovn-lb:vip`; `None` = not sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_owner: Option<String>,
    /// `device_id`, e.g. `lb-<lb id>`; `None` = not sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_id: Option<String>,
    /// Administrative state (Neutron default true).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admin_state_up: Option<bool>,
    /// Owner project (admin/service tokens may create for another project).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    /// Security groups (`None` = the project's default group).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub security_groups: Option<Vec<String>>,
    /// `qos_policy_id`; `None` = not sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qos_policy_id: Option<String>,
    /// `mac_address` (admin or network owner); `None` = Neutron allocates one. The OVN HM
    /// port asks for the NB's `svc_monitor_mac`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mac_address: Option<String>,
    /// Port security (the OVN HM port is created with `false`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port_security_enabled: Option<bool>,
    /// Allowed address pairs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_address_pairs: Option<Vec<AddressPair>>,
    /// `description`; `None` = not sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Other attributes, sent verbatim.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, Value>,
}

/// Body of `PUT /v2.0/ports/{id}`: only set fields are sent. `qos_policy_id: Some(None)`
/// sends `null` (detach the policy).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PortUpdate {
    /// New `name`; `None` = unchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// New `admin_state_up`; `None` = unchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admin_state_up: Option<bool>,
    /// New `device_owner`; `None` = unchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_owner: Option<String>,
    /// New `device_id`; `None` = unchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_id: Option<String>,
    /// Replaces the fixed IPs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fixed_ips: Option<Vec<FixedIpRequest>>,
    /// Replaces the security groups.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub security_groups: Option<Vec<String>>,
    /// QoS policy; `Some(None)` detaches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qos_policy_id: Option<Option<String>>,
    /// New `port_security_enabled`; `None` = unchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port_security_enabled: Option<bool>,
    /// Replaces the allowed address pairs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_address_pairs: Option<Vec<AddressPair>>,
    /// New `description`; `None` = unchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Other attributes, sent verbatim.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, Value>,
}

/// Body of `POST /v2.0/networks` (tests and fixtures).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct NetworkCreate {
    /// `name`; `None` = not sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `project_id` (another project's needs an admin token); `None` = the token's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    /// `admin_state_up`; `None` = Neutron's default (`true`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admin_state_up: Option<bool>,
    /// Other attributes (e.g. `router:external`, `provider:*`), sent verbatim.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, Value>,
}

/// Body of `POST /v2.0/subnets` (tests and fixtures).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SubnetCreate {
    /// Network (required).
    pub network_id: String,
    /// CIDR (required).
    pub cidr: String,
    /// 4 or 6 (required).
    pub ip_version: u8,
    /// `name`; `None` = not sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Gateway; `Some(None)` sends `null` (no gateway).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gateway_ip: Option<Option<IpAddr>>,
    /// `enable_dhcp`; `None` = Neutron's default (`true`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enable_dhcp: Option<bool>,
    /// `project_id` (another project's needs an admin token); `None` = the token's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    /// Other attributes (e.g. `ipv6_address_mode`), sent verbatim.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, Value>,
}

/// A router's external gateway.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct ExternalGatewayInfo {
    /// UUID of the external network the gateway is on.
    pub network_id: String,
    /// `enable_snat`; `None` when Neutron omits it.
    pub enable_snat: Option<bool>,
    /// The router's addresses on that network (`external_fixed_ips`).
    pub external_fixed_ips: Vec<FixedIp>,
}

/// `GET /v2.0/routers/{id}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct Router {
    /// Router id (OVN `Logical_Router` `neutron-<id>`).
    pub id: String,
    /// `name`; `""` when unset.
    #[serde(deserialize_with = "null_default")]
    pub name: String,
    /// `project_id` of the owner.
    #[serde(deserialize_with = "null_default")]
    pub project_id: String,
    /// `ACTIVE`, `ALLOCATING` or `ERROR` (neutron-lib's router statuses).
    #[serde(deserialize_with = "null_default")]
    pub status: String,
    /// `admin_state_up` (`false` also when Neutron omits it).
    pub admin_state_up: bool,
    /// External gateway, if set.
    pub external_gateway_info: Option<ExternalGatewayInfo>,
    /// Distributed (DVR; admin only).
    pub distributed: Option<bool>,
    /// HA (admin only).
    pub ha: Option<bool>,
    /// `description`; `""` when unset.
    #[serde(deserialize_with = "null_default")]
    pub description: String,
    /// `tags` (standard-attr-tag extension); empty when none.
    #[serde(deserialize_with = "null_default")]
    pub tags: Vec<String>,
}

/// Body of `POST /v2.0/routers` (tests and fixtures).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RouterCreate {
    /// `name`; `None` = not sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `project_id` (another project's needs an admin token); `None` = the token's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    /// `admin_state_up`; `None` = Neutron's default (`true`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admin_state_up: Option<bool>,
    /// External gateway `{"network_id": ...}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external_gateway_info: Option<Value>,
}

/// `GET /v2.0/floatingips/{id}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct FloatingIp {
    /// Floating IP id (OVN NAT `external_ids:neutron:fip_id`).
    pub id: String,
    /// The public address.
    pub floating_ip_address: IpAddr,
    /// UUID of the external network the address comes from (`floating_network_id`).
    #[serde(deserialize_with = "null_default")]
    #[serde(default)]
    pub floating_network_id: String,
    /// Associated internal address.
    #[serde(default)]
    pub fixed_ip_address: Option<IpAddr>,
    /// Port the address is associated with; `None` = unassociated.
    #[serde(default)]
    pub port_id: Option<String>,
    /// Router doing the NAT.
    #[serde(default)]
    pub router_id: Option<String>,
    /// `project_id` of the owner.
    #[serde(deserialize_with = "null_default")]
    #[serde(default)]
    pub project_id: String,
    /// `ACTIVE`, `DOWN`, `ERROR`.
    #[serde(deserialize_with = "null_default")]
    #[serde(default)]
    pub status: String,
    /// `description`; `""` when unset.
    #[serde(deserialize_with = "null_default")]
    #[serde(default)]
    pub description: String,
}

/// `GET /v2.0/qos/policies/{id}` (validation of `vip_qos_policy_id`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct QosPolicy {
    /// QoS policy UUID (`id`).
    pub id: String,
    /// `name`; `""` when unset.
    #[serde(deserialize_with = "null_default")]
    pub name: String,
    /// `project_id` of the owner.
    #[serde(deserialize_with = "null_default")]
    pub project_id: String,
    /// `shared`: usable by every project.
    pub shared: bool,
    /// Project default policy.
    pub is_default: bool,
    /// `description`; `""` when unset.
    #[serde(deserialize_with = "null_default")]
    pub description: String,
}

/// `GET /v2.0/security-groups/{id}` (validation of `vip_sg_ids`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct SecurityGroup {
    /// Security group id.
    pub id: String,
    /// `name`, e.g. `default`; `""` when unset.
    #[serde(deserialize_with = "null_default")]
    pub name: String,
    /// `project_id` of the owner.
    #[serde(deserialize_with = "null_default")]
    pub project_id: String,
    /// Stateful (stateful-security-group extension).
    pub stateful: Option<bool>,
    /// `description`; `""` when unset.
    #[serde(deserialize_with = "null_default")]
    pub description: String,
}

/// Address usage of one subnet (`subnet_ip_availability[]`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct SubnetIpAvailability {
    /// Subnet UUID.
    pub subnet_id: String,
    /// The subnet's `name`; `""` when unset.
    #[serde(deserialize_with = "null_default")]
    pub subnet_name: String,
    /// The subnet's CIDR, e.g. `10.0.0.0/24`.
    pub cidr: String,
    /// 4 or 6.
    pub ip_version: u8,
    /// Addresses in the allocation pools (IPv6 subnets exceed u64: /48 has 2^80).
    #[serde(deserialize_with = "de_count")]
    pub total_ips: u128,
    /// Addresses in use.
    #[serde(deserialize_with = "de_count")]
    pub used_ips: u128,
}

/// `GET /v2.0/network-ip-availabilities/{id}`: Octavia picks a VIP subnet with free
/// addresses from it (seed 003 §3, "pick subnet").
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct NetworkIpAvailability {
    /// Network UUID.
    pub network_id: String,
    /// The network's `name`; `""` when unset.
    #[serde(deserialize_with = "null_default")]
    pub network_name: String,
    /// `project_id` of the network's owner.
    #[serde(deserialize_with = "null_default")]
    pub project_id: String,
    /// Addresses in the allocation pools of all its subnets (`total_ips`).
    #[serde(deserialize_with = "de_count")]
    pub total_ips: u128,
    /// Addresses allocated on the network (`used_ips`).
    #[serde(deserialize_with = "de_count")]
    pub used_ips: u128,
    /// The same counts for each of its subnets.
    pub subnet_ip_availability: Vec<SubnetIpAvailability>,
}

/// `null` → the type's default: some Neutron plug-ins send `null` for empty strings/lists.
fn null_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// Accepts any JSON number as an address count (huge IPv6 counts may arrive as floats).
fn de_count<'de, D: Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
    struct V;
    impl serde::de::Visitor<'_> for V {
        type Value = u128;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a non-negative number")
        }
        fn visit_u64<E>(self, v: u64) -> Result<u128, E> {
            Ok(u128::from(v))
        }
        fn visit_u128<E>(self, v: u128) -> Result<u128, E> {
            Ok(v)
        }
        fn visit_i64<E>(self, v: i64) -> Result<u128, E> {
            Ok(u128::try_from(v).unwrap_or(0))
        }
        fn visit_f64<E>(self, v: f64) -> Result<u128, E> {
            // `as` saturates (NaN → 0): fine for a capacity figure.
            Ok(v as u128)
        }
    }
    d.deserialize_any(V)
}

/// Query filters of a list call, sent as repeated `key=value` pairs (Neutron ANDs them;
/// repeating a key ORs its values).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListFilter {
    pairs: Vec<(String, String)>,
}

impl ListFilter {
    /// No filter (all visible resources).
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `key=value`, e.g. `("name", "ovn-lb-vip-<id>")`, `("device_owner", "ovn-lb:vip")`,
    /// `("network_id", id)`, `("port_id", id)` (floating IPs), `("description", text)` (exact match).
    pub fn eq(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.pairs.push((key.into(), value.into()));
        self
    }

    /// Ports with an address in `subnet_id` (`fixed_ips=subnet_id=<id>`).
    pub fn fixed_ip_subnet(self, subnet_id: &str) -> Self {
        self.eq("fixed_ips", format!("subnet_id={subnet_id}"))
    }

    /// Ports holding `ip` (`fixed_ips=ip_address=<ip>`).
    pub fn fixed_ip_address(self, ip: IpAddr) -> Self {
        self.eq("fixed_ips", format!("ip_address={ip}"))
    }

    /// The pairs, in insertion order.
    pub fn pairs(&self) -> &[(String, String)] {
        &self.pairs
    }
}
