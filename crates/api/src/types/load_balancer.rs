//! Load balancer request types, as `octavia/api/v2/types/load_balancer.py`.

use super::{Kind, Schema, TAGS, f, m, s};
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
