//! Load balancer request types, as `octavia/api/v2/types/load_balancer.py`.

use crate::types::wsme_body;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::listener::body::LISTENER_SINGLE;
use crate::pool::body::POOL_SINGLE;
use crate::types::{Kind, Patch, Strings, TAGS, s};

wsme_body! {
    /// `AdditionalVipsType`.
    pub static ADDITIONAL_VIP, tenant_alias = false;
    /// A validated `AdditionalVipsType` object as [`ADDITIONAL_VIP`] declares it.
    pub struct AdditionalVip {
        /// `subnet_id` (mandatory).
        subnet_id: String = m(Kind::Uuid),
        ip_address: Option<String> = f(Kind::Ip),
        port_id: Option<String> = f(Kind::Uuid),
    }
}

wsme_body! {
    /// `LoadBalancerPOST`.
    pub static LB_POST, tenant_alias = true, wsme = ("load_balancer", "loadbalancer"),
        creates = octavia_db::LoadBalancerRow;
    /// A validated `LoadBalancerPOST` body as [`LB_POST`] declares it, with the
    /// `load_balancer` columns a create writes of it as sent (the VIP's are its own rows);
    /// `admin_state_up: null` is false (Octavia's `to_dict`).
    pub struct LbPost {
        name: Option<String> = f(s(255)) => name,
        description: Option<String> = f(s(255)) => description,
        admin_state_up: Patch<bool> = f(Kind::Bool) => enabled or true null false,
        vip_address: Option<String> = f(Kind::Ip),
        vip_port_id: Option<String> = f(Kind::Uuid),
        vip_subnet_id: Option<String> = f(Kind::Uuid),
        vip_network_id: Option<String> = f(Kind::Uuid),
        vip_qos_policy_id: Option<String> = f(Kind::Uuid),
        /// `vip_sg_ids` (sent, even as `null`: the `post:vip_sg_ids` rule applies).
        vip_sg_ids: Patch<Strings> = f(Kind::List(&Kind::Uuid)),
        /// `additional_vips` (`null` items skipped).
        additional_vips: Option<Vec<Option<AdditionalVip>>> = f(Kind::ObjectList(&ADDITIONAL_VIP)),
        /// `project_id` (or `tenant_id`; left out: the caller's).
        project_id: Option<String> = f(s(36)),
        /// `listeners` (`ListenerSingleCreate` objects, read by the graph's plan).
        listeners: Objects = f(Kind::ObjectList(&LISTENER_SINGLE)),
        /// `pools` (`PoolSingleCreate` objects, as `listeners`).
        pools: Objects = f(Kind::ObjectList(&POOL_SINGLE)),
        /// `provider` (`null` or empty: `amphora`; left out: the configured default).
        provider: Patch<String> = f(s(64)),
        tags: Option<Strings> = f(TAGS),
        flavor_id: Option<String> = f(Kind::Uuid) => flavor_id,
        availability_zone: Option<String> = f(s(255)) => availability_zone,
    }
}

/// A validated list of complex objects a graph create's plan reads as maps (it moves nested
/// pools before typing them); `null` items skipped.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Objects(Option<Vec<Option<Map<String, Value>>>>);

impl Objects {
    /// The objects sent, in order.
    pub fn objects(&self) -> Vec<Map<String, Value>> {
        self.0.iter().flatten().flatten().cloned().collect()
    }
}

impl LbPost {
    /// The additional VIPs sent, `null` items skipped.
    pub fn additional_vips(&self) -> Vec<&AdditionalVip> {
        self.additional_vips.iter().flatten().flatten().collect()
    }
}

wsme_body! {
    /// `LoadBalancerPUT`.
    pub static LB_PUT, tenant_alias = false, wsme = ("load_balancer", "loadbalancer"),
        updates = octavia_db::LoadBalancerRow;
    /// A validated `LoadBalancerPUT` body as [`LB_PUT`] declares it: each attribute left out
    /// (unchanged), `null` or a value, with the `load_balancer` columns a PUT changes of it.
    pub struct LbPut {
        name: Patch<String> = f(s(255)) => name,
        description: Patch<String> = f(s(255)) => description,
        /// `vip_qos_policy_id` (the `vip` row's; `null`: none).
        vip_qos_policy_id: Patch<String> = f(Kind::Uuid),
        admin_state_up: Patch<bool> = f(Kind::Bool) => enabled or false,
        /// `vip_sg_ids` (`null`: none).
        vip_sg_ids: Patch<Strings> = f(Kind::List(&Kind::Uuid)),
        /// `tags` (`null`: none).
        tags: Patch<Strings> = f(TAGS),
    }
}
