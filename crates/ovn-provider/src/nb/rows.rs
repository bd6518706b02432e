//! The typed NB rows the provider reads (`Load_Balancer`, `Load_Balancer_Health_Check`,
//! `Logical_Switch(_Port)`, `Logical_Router(_Port)`) and their decoding from RFC 7047 JSON
//! datums (`{"col": <datum>}`, `["set", …]`, `["map", …]`, `["uuid", …]`).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::external_ids::{self as ext, ExternalIds};
use crate::row_index::{IndexKey, Keyed};

/// OVSDB row uuid, as text.
pub type Uuid = String;
/// OVSDB string→string map column.
pub type StrMap = BTreeMap<String, String>;

/// A `Load_Balancer` row.
#[derive(Debug, Clone, Default, PartialEq)]
#[allow(missing_docs)]
pub struct LoadBalancerRow {
    pub uuid: Uuid,
    /// The Octavia load balancer id.
    pub name: String,
    /// `tcp` / `udp` / `sctp`, or `None` for a row without listener or pool yet.
    pub protocol: Option<String>,
    pub external_ids: ExternalIds,
    pub vips: StrMap,
    pub options: StrMap,
    pub selection_fields: Vec<String>,
    pub health_check: Vec<Uuid>,
    pub ip_port_mappings: StrMap,
}

/// A `Load_Balancer_Health_Check` row.
#[derive(Debug, Clone, Default, PartialEq)]
#[allow(missing_docs)]
pub struct HealthCheckRow {
    pub uuid: Uuid,
    /// `<vip>:<port>`, `[v6]:<port>`, or empty when the pool has no listener yet.
    pub vip: String,
    pub options: StrMap,
    pub external_ids: ExternalIds,
}

/// A `Logical_Switch` row.
#[derive(Debug, Clone, Default, PartialEq)]
#[allow(missing_docs)]
pub struct SwitchRow {
    pub uuid: Uuid,
    pub name: String,
    pub external_ids: StrMap,
    pub load_balancer: Vec<Uuid>,
    pub ports: Vec<Uuid>,
}

/// A `Logical_Switch_Port` row.
#[derive(Debug, Clone, Default, PartialEq)]
#[allow(missing_docs)]
pub struct SwitchPortRow {
    pub uuid: Uuid,
    pub name: String,
    pub kind: String,
    pub addresses: Vec<String>,
    pub options: StrMap,
    pub external_ids: StrMap,
    /// `enabled` = `false` (an empty `enabled` means enabled, ovn-nb(5)).
    pub disabled: bool,
}

/// A `Logical_Router` row.
#[derive(Debug, Clone, Default, PartialEq)]
#[allow(missing_docs)]
pub struct RouterRow {
    pub uuid: Uuid,
    pub name: String,
    pub external_ids: StrMap,
    pub load_balancer: Vec<Uuid>,
    pub ports: Vec<Uuid>,
}

/// A `Logical_Router_Port` row.
#[derive(Debug, Clone, Default, PartialEq)]
#[allow(missing_docs)]
pub struct RouterPortRow {
    pub uuid: Uuid,
    pub name: String,
    pub networks: Vec<String>,
    pub external_ids: StrMap,
    pub gateway_chassis: Vec<Uuid>,
    pub ha_chassis_group: Vec<Uuid>,
}

fn atom_str(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Array(a) if a.len() == 2 && (a[0] == "uuid" || a[0] == "named-uuid") => {
            a[1].as_str().map(String::from)
        }
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Decode a set datum (or a bare atom) into strings.
pub fn datum_set(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Array(a)) if a.len() == 2 && a[0] == "set" => a[1]
            .as_array()
            .map(|x| x.iter().filter_map(atom_str).collect())
            .unwrap_or_default(),
        Some(other) => atom_str(other).into_iter().collect(),
        None => Vec::new(),
    }
}

/// Decode a map datum into a string map.
pub fn datum_map(v: Option<&Value>) -> StrMap {
    let Some(Value::Array(a)) = v else {
        return StrMap::new();
    };
    if a.len() != 2 || a[0] != "map" {
        return StrMap::new();
    }
    a[1].as_array()
        .map(|pairs| {
            pairs
                .iter()
                .filter_map(|p| {
                    let p = p.as_array()?;
                    Some((atom_str(p.first()?)?, atom_str(p.get(1)?)?))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn datum_str(v: Option<&Value>) -> String {
    datum_set(v).into_iter().next().unwrap_or_default()
}

impl LoadBalancerRow {
    /// From a JSON row (`_uuid` given separately).
    pub fn from_json(uuid: &str, row: &Value) -> Self {
        Self {
            uuid: uuid.to_string(),
            name: datum_str(row.get("name")),
            protocol: datum_set(row.get("protocol")).into_iter().next(),
            external_ids: datum_map(row.get("external_ids")),
            vips: datum_map(row.get("vips")),
            options: datum_map(row.get("options")),
            selection_fields: datum_set(row.get("selection_fields")),
            health_check: datum_set(row.get("health_check")),
            ip_port_mappings: datum_map(row.get("ip_port_mappings")),
        }
    }
}

impl Keyed for LoadBalancerRow {
    /// The row's name, the pool ids of its `pool_<id>[:D]` keys, its health checks.
    fn index_keys(&self) -> Vec<IndexKey> {
        let pools = self.external_ids.keys().filter_map(|k| {
            let id = k.strip_prefix(ext::POOL_PREFIX)?;
            Some(IndexKey::Pool(
                id.strip_suffix(ext::DISABLED_SUFFIX)
                    .unwrap_or(id)
                    .to_string(),
            ))
        });
        let hcs = self.health_check.iter().cloned().map(IndexKey::HealthCheck);
        std::iter::once(IndexKey::Name(self.name.clone()))
            .chain(pools)
            .chain(hcs)
            .collect()
    }
}

impl HealthCheckRow {
    /// From a JSON row.
    pub fn from_json(uuid: &str, row: &Value) -> Self {
        Self {
            uuid: uuid.to_string(),
            vip: datum_str(row.get("vip")),
            options: datum_map(row.get("options")),
            external_ids: datum_map(row.get("external_ids")),
        }
    }
}

impl SwitchRow {
    /// From a JSON row.
    pub fn from_json(uuid: &str, row: &Value) -> Self {
        Self {
            uuid: uuid.to_string(),
            name: datum_str(row.get("name")),
            external_ids: datum_map(row.get("external_ids")),
            load_balancer: datum_set(row.get("load_balancer")),
            ports: datum_set(row.get("ports")),
        }
    }
}

impl SwitchPortRow {
    /// From a JSON row.
    pub fn from_json(uuid: &str, row: &Value) -> Self {
        Self {
            uuid: uuid.to_string(),
            name: datum_str(row.get("name")),
            kind: datum_str(row.get("type")),
            addresses: datum_set(row.get("addresses")),
            options: datum_map(row.get("options")),
            external_ids: datum_map(row.get("external_ids")),
            disabled: row.get("enabled") == Some(&Value::Bool(false)),
        }
    }
}

impl RouterRow {
    /// From a JSON row.
    pub fn from_json(uuid: &str, row: &Value) -> Self {
        Self {
            uuid: uuid.to_string(),
            name: datum_str(row.get("name")),
            external_ids: datum_map(row.get("external_ids")),
            load_balancer: datum_set(row.get("load_balancer")),
            ports: datum_set(row.get("ports")),
        }
    }
}

impl RouterPortRow {
    /// From a JSON row.
    pub fn from_json(uuid: &str, row: &Value) -> Self {
        Self {
            uuid: uuid.to_string(),
            name: datum_str(row.get("name")),
            networks: datum_set(row.get("networks")),
            external_ids: datum_map(row.get("external_ids")),
            gateway_chassis: datum_set(row.get("gateway_chassis")),
            ha_chassis_group: datum_set(row.get("ha_chassis_group")),
        }
    }
}
