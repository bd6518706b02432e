//! Flavor and availability-zone metadata: the keys the amphora driver supports and their
//! validation, as octavia/api/drivers/amphora_driver/flavor_schema.py,
//! availability_zone_schema.py and v2/driver.py `validate_flavor` /
//! `validate_availability_zone`.
//!
//! The check and its texts are [`provider::metadata`]'s (jsonschema's, as the reference
//! answers them); this file holds the two fixed schemas.

use provider::metadata::{Kind, Property, check, descriptions, py_repr};
use serde_json::{Map, Value};

/// `SUPPORTED_LB_TOPOLOGIES`, in the order the reference's enum lists them.
const TOPOLOGIES: &[&str] = &["ACTIVE_STANDBY", "SINGLE"];

/// flavor_schema.py `SUPPORTED_FLAVOR_SCHEMA`'s properties.
const FLAVOR: &[Property] = &[
    Property {
        key: "loadbalancer_topology",
        kind: Kind::String,
        allowed: Some(TOPOLOGIES),
        description: "The load balancer topology. One of: SINGLE - One amphora per load \
                      balancer. ACTIVE_STANDBY - Two amphora per load balancer.",
    },
    Property {
        key: "compute_flavor",
        kind: Kind::String,
        allowed: None,
        description: "The compute driver flavor ID.",
    },
    Property {
        key: "amp_image_tag",
        kind: Kind::String,
        allowed: None,
        description: "The amphora image tag.",
    },
    Property {
        key: "sriov_vip",
        kind: Kind::Boolean,
        allowed: None,
        description: "When true, the VIP port will be created using an SR-IOV VF port.",
    },
    Property {
        key: "allow_member_sriov",
        kind: Kind::Boolean,
        allowed: None,
        description: "When true, users can request a member port be SR-IOV enabled at \
                      member creation time.",
    },
];

/// availability_zone_schema.py `SUPPORTED_AVAILABILITY_ZONE_SCHEMA`'s properties.
const AVAILABILITY_ZONE: &[Property] = &[
    Property {
        key: "compute_zone",
        kind: Kind::String,
        allowed: None,
        description: "The compute availability zone.",
    },
    Property {
        key: "volume_zone",
        kind: Kind::String,
        allowed: None,
        description: "The volume availability zone.",
    },
    Property {
        key: "management_network",
        kind: Kind::String,
        allowed: None,
        description: "The management network ID for the amphora.",
    },
    Property {
        key: "valid_vip_networks",
        kind: Kind::Array,
        allowed: None,
        description: "List of network IDs that are allowed for VIP use. This \
                      overrides/replaces the list of allowed networks configured in \
                      `octavia.conf`.",
    },
];

/// `get_supported_flavor_metadata`: `{key: description}` for the five flavor keys.
pub fn supported_flavor_metadata() -> Value {
    descriptions(FLAVOR)
}

/// `get_supported_availability_zone_metadata`: `{key: description}` for the four AZ keys.
pub fn supported_availability_zone_metadata() -> Value {
    descriptions(AVAILABILITY_ZONE)
}

/// Validates `metadata` against the flavor schema; `Err` is the reference's user text.
pub fn check_flavor(metadata: &Value) -> Result<(), String> {
    check(metadata, FLAVOR)
}

/// Validates `metadata` against the availability-zone schema; `Err` is the user text.
pub fn check_availability_zone(metadata: &Value) -> Result<(), String> {
    check(metadata, AVAILABILITY_ZONE)
}

/// The networks an AZ names for the reference's `get_network` checks: every
/// `valid_vip_networks` entry then `management_network` (non-strings printed as Python).
pub fn az_networks(metadata: &Map<String, Value>) -> Vec<String> {
    let as_id = |v: &Value| v.as_str().map_or_else(|| py_repr(v), str::to_string);
    let mut nets: Vec<String> = metadata
        .get("valid_vip_networks")
        .and_then(Value::as_array)
        .map(|a| a.iter().map(as_id).collect())
        .unwrap_or_default();
    if let Some(m) = metadata.get("management_network").filter(|m| {
        // the reference skips a falsy value
        !m.is_null() && m.as_str().is_none_or(|s| !s.is_empty())
    }) {
        nets.push(as_id(m));
    }
    nets
}
