//! Provider data models, as octavia-lib `octavia_lib/api/drivers/data_models.py`.
//!
//! octavia-lib's `Unset` is `None` here. For update calls the API passes the full old
//! object and a new object holding the id plus only the fields that changed (as the
//! controllers' `*_update` calls in octavia/api/v2/controllers). Serialised with serde, `None` is omitted, so the JSON of a
//! model is the octavia-lib `to_dict()` shape.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// A present key deserialises to `Some(value or None)`; an absent one stays `None` (Unset).
fn null_is_some<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// A load balancer as the provider sees it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct LoadBalancer {
    pub loadbalancer_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admin_state_up: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vip_address: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vip_network_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vip_port_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vip_subnet_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vip_qos_policy_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vip_sg_ids: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub additional_vips: Option<Vec<AdditionalVip>>,
    /// Flavor-profile metadata (`{}` when the LB has no flavor).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flavor: Option<Value>,
    /// Availability-zone metadata (`{}` when none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub availability_zone: Option<Value>,
    /// Full graph on single-call create and cascade delete.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub listeners: Option<Vec<Listener>>,
    /// Full graph on single-call create and cascade delete.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pools: Option<Vec<Pool>>,
}

/// The primary VIP handed to `create_vip_port` and returned by it (octavia-lib `VIP`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct Vip {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vip_address: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vip_network_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vip_port_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vip_subnet_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vip_qos_policy_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vip_sg_ids: Option<Vec<String>>,
    /// True when the port was made by Octavia itself (never for the OVN provider).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub octavia_owned: Option<bool>,
}

/// An additional VIP: a plain dict in octavia-lib, `{ip_address, network_id, port_id, subnet_id}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct AdditionalVip {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ip_address: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subnet_id: Option<String>,
}

/// A listener as the provider sees it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct Listener {
    pub listener_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loadbalancer_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admin_state_up: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    /// `HTTP`, `HTTPS`, `TCP`, `TERMINATED_HTTPS`, `UDP`, `SCTP`, `PROMETHEUS`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    /// 1..=65535.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol_port: Option<u16>,
    /// -1 = unlimited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connection_limit: Option<i64>,
    /// Three states, as octavia-lib: `None` = Unset (unchanged on update), `Some(None)` = null
    /// (an update that removes the default pool), `Some(Some(id))`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "null_is_some"
    )]
    pub default_pool_id: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_pool: Option<Box<Pool>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_tls_container_ref: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_tls_container_data: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sni_container_refs: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sni_container_data: Option<Vec<Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub insert_headers: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub l7policies: Option<Vec<L7Policy>>,
    /// Frontend client inactivity timeout, ms; `None` = Unset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_client_data: Option<i64>,
    /// Backend member connection timeout, ms; `None` = Unset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_member_connect: Option<i64>,
    /// Backend member inactivity timeout, ms; `None` = Unset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_member_data: Option<i64>,
    /// Time to wait for TCP packets for content inspection, ms; `None` = Unset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_tcp_inspect: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_ca_tls_container_ref: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_ca_tls_container_data: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_authentication: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_crl_container_ref: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_crl_container_data: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_cidrs: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tls_versions: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tls_ciphers: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alpn_protocols: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hsts_max_age: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hsts_include_subdomains: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hsts_preload: Option<bool>,
}

/// A pool as the provider sees it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct Pool {
    pub pool_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loadbalancer_id: Option<String>,
    /// The first listener using the pool, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub listener_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admin_state_up: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    /// `ROUND_ROBIN`, `LEAST_CONNECTIONS`, `SOURCE_IP`, `SOURCE_IP_PORT`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lb_algorithm: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub healthmonitor: Option<HealthMonitor>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub members: Option<Vec<Member>>,
    /// `{type, cookie_name, persistence_timeout, persistence_granularity}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_persistence: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tls_container_ref: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tls_container_data: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ca_tls_container_ref: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ca_tls_container_data: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crl_container_ref: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crl_container_data: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tls_enabled: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tls_versions: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tls_ciphers: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alpn_protocols: Option<Vec<String>>,
}

/// A member as the provider sees it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct Member {
    pub member_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pool_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol_port: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subnet_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admin_state_up: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weight: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backup: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub monitor_address: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub monitor_port: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    /// `normal` or `direct`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vnic_type: Option<String>,
    /// The member's subnet as the API read it from Neutron to validate `subnet_id` (with the
    /// caller's token), so a provider need not read it again; `None` when the API read none
    /// (no `subnet_id`, a model built from the database: ovn-db-sync, the agent, an update or
    /// a delete). Not an octavia-lib attribute: in process only, never serialised.
    #[serde(skip)]
    pub subnet: Option<Subnet>,
}

/// A Neutron subnet as the API read it (`GET /v2.0/subnets/{id}`), for the provider models
/// that carry one ([`Member::subnet`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Subnet {
    /// Subnet UUID.
    pub id: String,
    /// The network it belongs to.
    pub network_id: String,
    /// CIDR, e.g. `10.0.0.0/24`, `fd00::/64`.
    pub cidr: String,
    /// 4 or 6.
    pub ip_version: u8,
    /// The owner's project id (`""` when Neutron gave none).
    pub project_id: String,
    /// Gateway address; `None` when the subnet has none.
    pub gateway_ip: Option<String>,
}

/// A health monitor as the provider sees it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct HealthMonitor {
    pub healthmonitor_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pool_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admin_state_up: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    /// `HTTP`, `HTTPS`, `PING`, `TCP`, `TLS-HELLO`, `UDP-CONNECT`, `SCTP`.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Seconds between probes (API `delay`); `None` = Unset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delay: Option<i64>,
    /// Seconds a probe waits for its answer (API `timeout`); `None` = Unset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_retries: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_retries_down: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http_method: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url_path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_codes: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http_version: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domain_name: Option<String>,
}

/// An L7 policy as the provider sees it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct L7Policy {
    pub l7policy_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub listener_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admin_state_up: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position: Option<i64>,
    /// The four redirect attributes have octavia-lib's three states (as
    /// [`Listener::default_pool_id`]): an update's `Some(None)` is the null
    /// l7policy.py `put` passes for the attributes `sanitize_l7policy_api_args` cleared.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "null_is_some"
    )]
    pub redirect_pool_id: Option<Option<String>>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "null_is_some"
    )]
    pub redirect_url: Option<Option<String>>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "null_is_some"
    )]
    pub redirect_prefix: Option<Option<String>>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "null_is_some"
    )]
    pub redirect_http_code: Option<Option<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules: Option<Vec<L7Rule>>,
}

/// An L7 rule as the provider sees it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct L7Rule {
    pub l7rule_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub l7policy_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admin_state_up: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compare_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invert: Option<bool>,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// `default_pool_id` keeps octavia-lib's three states through JSON.
    #[test]
    fn default_pool_id_unset_null_and_set() {
        let unset: Listener = serde_json::from_str(r#"{"listener_id": "l"}"#).unwrap();
        let null: Listener =
            serde_json::from_str(r#"{"listener_id": "l", "default_pool_id": null}"#).unwrap();
        let set: Listener =
            serde_json::from_str(r#"{"listener_id": "l", "default_pool_id": "p"}"#).unwrap();
        assert_eq!(unset.default_pool_id, None);
        assert_eq!(null.default_pool_id, Some(None));
        assert_eq!(set.default_pool_id, Some(Some("p".to_string())));
        for l in [unset, null, set] {
            let back: Listener = serde_json::from_value(serde_json::to_value(&l).unwrap()).unwrap();
            assert_eq!(back, l);
        }
    }
}
