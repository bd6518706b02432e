//! The replica indexes a request's lookups on a busy network go through: a provider network
//! has thousands of `Logical_Switch_Port` rows and a load balancer's step needs two or three
//! of them — its switch's router ports (scope step 4) and a member's port by address
//! (`_get_member_lsp`, [`super::NbSnapshot::port_with_ip`]). A pass over the switch's ports
//! for those cost 17 ms (scoped snapshot) + 15 ms (port by address) per step at 10,000 ports;
//! through these indexes a lookup is a hash probe and a check per candidate.
//!
//! Registered on the client by `ovsdb_nb::monitor_spec`; a [`super::RowSource`] without them
//! answers `None` and the callers scan as before.

use std::net::IpAddr;

/// `Logical_Switch_Port`.
pub const LSP: &str = "Logical_Switch_Port";

/// Index of the switch ports that name a router port (`options:router-port`), all under the
/// one key [`ROUTER_PORT_KEY`] (a cloud has one per router interface, a few per router).
pub const LSP_ROUTER_PORTS: &str = "router_ports";

/// The key of every row of [`LSP_ROUTER_PORTS`].
pub const ROUTER_PORT_KEY: &str = "router-port";

/// Index of the switch ports by each IP address of their `addresses` (as [`IpAddr`] prints
/// it, so `fd00::05` and `fd00::5` meet).
pub const LSP_BY_IP: &str = "ip";

/// The keys of `row` in [`LSP_ROUTER_PORTS`].
pub fn router_port_keys(row: &ovsdb::Row) -> Vec<String> {
    row.map_get("options", "router-port")
        .map(|_| vec![ROUTER_PORT_KEY.to_string()])
        .unwrap_or_default()
}

/// The keys of `row` in [`LSP_BY_IP`].
pub fn ip_keys(row: &ovsdb::Row) -> Vec<String> {
    row.get_str_set("addresses")
        .into_iter()
        .flat_map(address_ips)
        .map(|ip| ip.to_string())
        .collect()
}

/// The IPs of one `addresses` entry (`"MAC IP…"`, `router`, `unknown`, `dynamic`): every
/// whitespace-separated token that parses as an address; the MAC and keywords do not.
pub fn address_ips(entry: &str) -> impl Iterator<Item = IpAddr> + '_ {
    entry
        .split_whitespace()
        .filter_map(|t| t.parse::<IpAddr>().ok())
}

/// `spec` with the indexes of this module on `Logical_Switch_Port`.
pub fn with_indexes(spec: ovsdb::MonitorSpec) -> ovsdb::MonitorSpec {
    spec.index(LSP, LSP_ROUTER_PORTS, router_port_keys)
        .index(LSP, LSP_BY_IP, ip_keys)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn lsp(cols: serde_json::Value) -> ovsdb::Row {
        let columns: BTreeMap<String, ovsdb::Value> = cols
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), ovsdb::Value::from_json(v).unwrap()))
            .collect();
        ovsdb::Row::new(ovsdb::Uuid::nil(), columns)
    }

    #[test]
    fn keys_of_router_and_vm_ports() {
        let vm = lsp(serde_json::json!({
            "addresses": ["set", ["fa:16:3e:00:00:01 10.0.0.10 fd00::0a", "unknown"]],
            "options": ["map", []]}));
        assert_eq!(ip_keys(&vm), ["10.0.0.10", "fd00::a"]);
        assert!(router_port_keys(&vm).is_empty());
        let rif = lsp(serde_json::json!({
            "addresses": "router", "options": ["map", [["router-port", "lrp-1"]]]}));
        assert!(ip_keys(&rif).is_empty());
        assert_eq!(router_port_keys(&rif), [ROUTER_PORT_KEY]);
    }
}
