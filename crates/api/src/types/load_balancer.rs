//! Load balancer request types, as `octavia/api/v2/types/load_balancer.py`.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::{Kind, Patch, Schema, Strings, TAGS, f, m, s};
use crate::types::listener::LISTENER_SINGLE;
use crate::types::pool::POOL_SINGLE;

/// `AdditionalVipsType`.
pub static ADDITIONAL_VIP: Schema = Schema {
    fields: &[
        m("subnet_id", Kind::Uuid),
        f("ip_address", Kind::Ip),
        f("port_id", Kind::Uuid),
    ],
    tenant_alias: false,
};

/// `LoadBalancerPOST`.
pub static LB_POST: Schema = Schema {
    fields: &[
        f("name", s(255)),
        f("description", s(255)),
        f("admin_state_up", Kind::Bool),
        f("vip_address", Kind::Ip),
        f("vip_port_id", Kind::Uuid),
        f("vip_subnet_id", Kind::Uuid),
        f("vip_network_id", Kind::Uuid),
        f("vip_qos_policy_id", Kind::Uuid),
        f("vip_sg_ids", Kind::List(&Kind::Uuid)),
        f("additional_vips", Kind::ObjectList(&ADDITIONAL_VIP)),
        f("project_id", s(36)),
        f("listeners", Kind::ObjectList(&LISTENER_SINGLE)),
        f("pools", Kind::ObjectList(&POOL_SINGLE)),
        f("provider", s(64)),
        f("tags", TAGS),
        f("flavor_id", Kind::Uuid),
        f("availability_zone", s(255)),
    ],
    tenant_alias: true,
};

/// `LoadBalancerPUT`.
pub static LB_PUT: Schema = Schema {
    fields: &[
        f("name", s(255)),
        f("description", s(255)),
        f("vip_qos_policy_id", Kind::Uuid),
        f("admin_state_up", Kind::Bool),
        f("vip_sg_ids", Kind::List(&Kind::Uuid)),
        f("tags", TAGS),
    ],
    tenant_alias: false,
};

/// A validated `AdditionalVipsType` object as [`ADDITIONAL_VIP`] declares it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AdditionalVip {
    /// `subnet_id` (mandatory).
    pub subnet_id: String,
    /// `ip_address`.
    pub ip_address: Option<String>,
    /// `port_id`.
    pub port_id: Option<String>,
}

/// A validated `LoadBalancerPOST` body as [`LB_POST`] declares it; `admin_state_up: null` is
/// false (Octavia's `to_dict`), left out true.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LbPost {
    /// `name`.
    pub name: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// `admin_state_up`.
    pub admin_state_up: Patch<bool>,
    /// `vip_address`.
    pub vip_address: Option<String>,
    /// `vip_port_id`.
    pub vip_port_id: Option<String>,
    /// `vip_subnet_id`.
    pub vip_subnet_id: Option<String>,
    /// `vip_network_id`.
    pub vip_network_id: Option<String>,
    /// `vip_qos_policy_id`.
    pub vip_qos_policy_id: Option<String>,
    /// `vip_sg_ids` (sent, even as `null`: the `post:vip_sg_ids` rule applies).
    pub vip_sg_ids: Patch<Strings>,
    /// `additional_vips` (`null` items skipped).
    pub additional_vips: Option<Vec<Option<AdditionalVip>>>,
    /// `project_id` (or `tenant_id`; left out: the caller's).
    pub project_id: Option<String>,
    /// `listeners` (`ListenerSingleCreate` objects, read by the graph's plan).
    pub listeners: Objects,
    /// `pools` (`PoolSingleCreate` objects, as `listeners`).
    pub pools: Objects,
    /// `provider` (`null` or empty: `amphora`; left out: the configured default).
    pub provider: Patch<String>,
    /// `tags`.
    pub tags: Option<Strings>,
    /// `flavor_id`.
    pub flavor_id: Option<String>,
    /// `availability_zone`.
    pub availability_zone: Option<String>,
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

/// A validated `LoadBalancerPUT` body as [`LB_PUT`] declares it: each attribute left out
/// (unchanged), `null` or a value.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LbPut {
    /// `name`.
    pub name: Patch<String>,
    /// `description`.
    pub description: Patch<String>,
    /// `vip_qos_policy_id` (`null`: none).
    pub vip_qos_policy_id: Patch<String>,
    /// `admin_state_up` (`null`: false).
    pub admin_state_up: Patch<bool>,
    /// `vip_sg_ids` (`null`: none).
    pub vip_sg_ids: Patch<Strings>,
    /// `tags` (`null`: none).
    pub tags: Patch<Strings>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::assert_typed_as;

    #[test]
    fn typed_bodies_declare_the_schema_attributes() {
        assert_typed_as::<AdditionalVip>(&ADDITIONAL_VIP);
        assert_typed_as::<LbPost>(&LB_POST);
        assert_typed_as::<LbPut>(&LB_PUT);
    }
}
