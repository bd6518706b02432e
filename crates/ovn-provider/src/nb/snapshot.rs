//! [`NbSnapshot`]: the typed copy of the NB tables a request plans against, its lookups
//! (LB rows by name / pool / listener, switches and routers of each other, health checks,
//! HM source ports) and the [`RowSource`] a scoped snapshot is decoded from.

use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use super::indexes::{LSP, LSP_BY_IP, address_ips};
use super::rows::{
    HealthCheckRow, LoadBalancerRow, RouterPortRow, RouterRow, SwitchPortRow, SwitchRow, Uuid,
};
use crate::external_ids as ext;
use crate::row_index::{IndexKey, IndexedRows};

/// The NB tables the driver reads, keyed by row uuid.
#[derive(Debug, Clone, Default)]
#[allow(missing_docs)]
pub struct NbSnapshot {
    /// Indexed by name and by pool id ([`NbSnapshot::lbs_named`], [`NbSnapshot::lb_by_pool`]).
    pub load_balancers: IndexedRows<LoadBalancerRow>,
    pub health_checks: BTreeMap<Uuid, HealthCheckRow>,
    pub switches: BTreeMap<Uuid, SwitchRow>,
    pub switch_ports: BTreeMap<Uuid, SwitchPortRow>,
    pub routers: BTreeMap<Uuid, RouterRow>,
    pub router_ports: BTreeMap<Uuid, RouterPortRow>,
    /// False when the schema lacks `Load_Balancer.health_check` (OVN < 2.12).
    pub health_check_supported: bool,
    /// The replica a scoped snapshot was built from (`scope::build`); `None` for a
    /// snapshot filled by hand (it then holds every row it will be asked for).
    pub source: Option<Source>,
    /// Switch uuid → its router-interface ports (`routers_of_switch`), built on first use and
    /// dropped by `insert_json` / `remove_row`: a switch of a busy network has thousands of
    /// ports and only a few router interfaces, and a sync asks once per member.
    pub(crate) router_interfaces: OnceLock<BTreeMap<Uuid, Vec<Uuid>>>,
    /// Switch uuid → address → port name (`port_with_ip`), built on first use and dropped as
    /// [`NbSnapshot::router_interfaces`]; ports a scoped snapshot did not decode are read
    /// from its source.
    pub(crate) port_addresses: OnceLock<BTreeMap<Uuid, BTreeMap<IpAddr, String>>>,
}

/// Read access to NB rows with the replica's indexes (implemented by `ovsdb::Snapshot`; tests
/// use an in-memory table set). Scoped snapshots (`scope.rs`) are decoded through it.
pub trait RowSource: Send + Sync {
    /// One row as RFC 7047 JSON (`{"col": <datum>}`), `None` when absent.
    fn row(&self, table: &str, uuid: &str) -> Option<Value>;
    /// [`RowSource::row`] without `column` (a switch's `ports`, read by
    /// [`RowSource::uuids`]: 10,000 uuids through JSON cost 4 ms a request).
    fn row_without(&self, table: &str, uuid: &str, column: &str) -> Option<Value> {
        let mut row = self.row(table, uuid)?;
        if let Some(cols) = row.as_object_mut() {
            cols.remove(column);
        }
        Some(row)
    }
    /// The uuids of a uuid-set column of one row, in the column's order (empty when absent).
    fn uuids(&self, table: &str, uuid: &str, column: &str) -> Vec<String> {
        self.row(table, uuid)
            .map(|r| super::rows::datum_set(r.get(column)))
            .unwrap_or_default()
    }
    /// Uuids of the rows whose `name` is `name` (name index).
    fn named(&self, table: &str, name: &str) -> Vec<String>;
    /// Uuids of the rows whose uuid-set `column` holds one of `uuids` (a scan of `table`).
    fn referencing(&self, table: &str, column: &str, uuids: &BTreeSet<String>) -> Vec<String>;
    /// Uuids of the rows whose map `column` has one of `keys` (a scan: fallbacks only).
    fn with_map_key(&self, table: &str, column: &str, keys: &[String]) -> Vec<String>;
    /// One value of a map column of one row, without decoding the row.
    fn map_get(&self, table: &str, uuid: &str, column: &str, key: &str) -> Option<String>;
    /// The string atoms of a scalar or set column of one row (empty when absent), without
    /// decoding the row.
    fn strings(&self, table: &str, uuid: &str, column: &str) -> Vec<String>;
    /// Uuids (uuid order) of the rows of `table` under `key` in the replica index `index`
    /// (`nb::indexes`); `None` when the source keeps no such index (the caller scans).
    fn indexed(&self, table: &str, index: &str, key: &str) -> Option<Vec<String>>;
    /// True when the uuid-set `column` of row `uuid` holds `member`, without decoding the row
    /// (a switch's `ports` has thousands).
    fn holds(&self, table: &str, uuid: &str, column: &str, member: &str) -> bool;
    /// True when `Load_Balancer` has a `health_check` column (OVN ≥ 2.12).
    fn health_check_supported(&self) -> bool;
    /// `NB_Global` `options:svc_monitor_mac`: the source MAC of `ovn-controller`'s health
    /// probes (set by `ovn-northd`); `None` when the source does not follow `NB_Global`.
    fn svc_monitor_mac(&self) -> Option<String> {
        None
    }
}

/// The source a scoped snapshot was built from (so it can be widened from the same
/// replica generation once Neutron facts name more switches).
#[derive(Clone)]
pub struct Source(pub Arc<dyn RowSource>);

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Source")
    }
}

/// The tables an [`NbSnapshot`] is built from (what a replica must monitor).
pub const TABLES: [&str; 6] = [
    "Load_Balancer",
    "Load_Balancer_Health_Check",
    "Logical_Switch",
    "Logical_Switch_Port",
    "Logical_Router",
    "Logical_Router_Port",
];

impl NbSnapshot {
    /// An empty snapshot, filled by hand with [`NbSnapshot::insert_json`];
    /// `health_check_supported` as the NB schema's `Load_Balancer.health_check` (OVN ≥ 2.12).
    pub fn new(health_check_supported: bool) -> Self {
        Self {
            health_check_supported,
            ..Default::default()
        }
    }

    /// True when the row is present.
    pub fn contains(&self, table: &str, uuid: &str) -> bool {
        match table {
            "Load_Balancer" => self.load_balancers.contains_key(uuid),
            "Load_Balancer_Health_Check" => self.health_checks.contains_key(uuid),
            "Logical_Switch" => self.switches.contains_key(uuid),
            "Logical_Switch_Port" => self.switch_ports.contains_key(uuid),
            "Logical_Router" => self.routers.contains_key(uuid),
            "Logical_Router_Port" => self.router_ports.contains_key(uuid),
            _ => false,
        }
    }

    /// Number of decoded rows (all tables): the work a request did reading the NB.
    pub fn rows(&self) -> usize {
        self.load_balancers.len()
            + self.health_checks.len()
            + self.switches.len()
            + self.switch_ports.len()
            + self.routers.len()
            + self.router_ports.len()
    }

    /// Add one JSON row of `table` (unknown tables are ignored).
    pub fn insert_json(&mut self, table: &str, uuid: &str, row: &Value) {
        self.router_interfaces = OnceLock::new();
        self.port_addresses = OnceLock::new();
        let u = uuid.to_string();
        match table {
            "Load_Balancer" => {
                self.load_balancers
                    .insert(u, LoadBalancerRow::from_json(uuid, row));
            }
            "Load_Balancer_Health_Check" => {
                self.health_checks
                    .insert(u, HealthCheckRow::from_json(uuid, row));
            }
            "Logical_Switch" => {
                self.switches.insert(u, SwitchRow::from_json(uuid, row));
            }
            "Logical_Switch_Port" => {
                self.switch_ports
                    .insert(u, SwitchPortRow::from_json(uuid, row));
            }
            "Logical_Router" => {
                self.routers.insert(u, RouterRow::from_json(uuid, row));
            }
            "Logical_Router_Port" => {
                self.router_ports
                    .insert(u, RouterPortRow::from_json(uuid, row));
            }
            _ => {}
        }
    }

    /// Remove one row of `table` (unknown tables and rows are ignored).
    pub fn remove_row(&mut self, table: &str, uuid: &str) {
        self.router_interfaces = OnceLock::new();
        self.port_addresses = OnceLock::new();
        match table {
            "Load_Balancer" => {
                self.load_balancers.remove(uuid);
            }
            "Load_Balancer_Health_Check" => {
                self.health_checks.remove(uuid);
            }
            "Logical_Switch" => {
                self.switches.remove(uuid);
            }
            "Logical_Switch_Port" => {
                self.switch_ports.remove(uuid);
            }
            "Logical_Router" => {
                self.routers.remove(uuid);
            }
            "Logical_Router_Port" => {
                self.router_ports.remove(uuid);
            }
            _ => {}
        }
    }

    /// Every row named after the Octavia LB (one per L4 protocol), protocol-less first.
    pub fn lbs_named(&self, lb_id: &str) -> Vec<&LoadBalancerRow> {
        let mut v: Vec<_> = self
            .load_balancers
            .candidates(&IndexKey::Name(lb_id.to_string()))
            .into_iter()
            .filter(|r| r.name == lb_id)
            .collect();
        v.sort_by_key(|r| r.protocol.is_some());
        v
    }

    /// The row of `lb_id` for `protocol` (`_find_ovn_lbs(protocol=…)`): the only row when it
    /// has no protocol yet, else the row with that protocol.
    pub fn lb_for_protocol(&self, lb_id: &str, protocol: &str) -> Option<&LoadBalancerRow> {
        let rows = self.lbs_named(lb_id);
        if rows.len() == 1 && rows[0].protocol.is_none() {
            return Some(rows[0]);
        }
        rows.into_iter().find(|r| {
            r.protocol
                .as_deref()
                .is_some_and(|p| p.eq_ignore_ascii_case(protocol))
        })
    }

    /// The row holding `pool_<id>` or `pool_<id>:D`, with that key; Neutron port-forwarding
    /// rows are skipped.
    pub fn lb_by_pool(&self, pool_id: &str) -> Option<(&LoadBalancerRow, String)> {
        self.load_balancers
            .candidates(&IndexKey::Pool(pool_id.to_string()))
            .into_iter()
            .filter(|r| {
                r.external_ids.get(ext::DEVICE_OWNER).map(String::as_str)
                    != Some(ext::PORT_FORWARDING_PLUGIN)
            })
            .find_map(|r| ext::find_pool_key(&r.external_ids, pool_id).map(|k| (r, k)))
    }

    /// The row holding a listener key.
    pub fn lb_by_listener(
        &self,
        lb_id: &str,
        listener_id: &str,
    ) -> Option<(&LoadBalancerRow, String)> {
        self.lbs_named(lb_id)
            .into_iter()
            .find_map(|r| ext::find_listener_key(&r.external_ids, listener_id).map(|k| (r, k)))
    }

    /// A switch by name (`neutron-<network id>`).
    pub fn switch_named(&self, name: &str) -> Option<&SwitchRow> {
        self.switches.values().find(|s| s.name == name)
    }

    /// A router by name (`neutron-<router id>`).
    pub fn router_named(&self, name: &str) -> Option<&RouterRow> {
        self.routers.values().find(|s| s.name == name)
    }

    /// True when the switch is a provider network (has `neutron:provnet-physical-network`).
    pub fn is_provider_network(ls: &SwitchRow) -> bool {
        ls.external_ids
            .get("neutron:provnet-physical-network")
            .is_some_and(|v| !v.is_empty())
    }

    /// Routers with an interface on `ls`, restricted to the interface of `subnet_cidr` when
    /// given (`_find_lrs_of_ls`): switch ports of type `router` owned by
    /// `network:router_interface`, through `options:router-port` to the router holding that
    /// `Logical_Router_Port`.
    pub fn routers_of_switch(&self, ls: &SwitchRow, subnet_cidr: Option<&str>) -> Vec<&RouterRow> {
        let mut out: Vec<&RouterRow> = Vec::new();
        let index = self
            .router_interfaces
            .get_or_init(|| self.index_router_interfaces());
        // a switch row that is not this snapshot's own (a copy) is scanned
        let scanned;
        let ports = match index.get(&ls.uuid) {
            Some(p)
                if self
                    .switches
                    .get(&ls.uuid)
                    .is_some_and(|s| std::ptr::eq(s, ls)) =>
            {
                p
            }
            _ => {
                scanned = self.router_interfaces_of(ls);
                &scanned
            }
        };
        for port in ports.iter().filter_map(|u| self.switch_ports.get(u)) {
            if let Some(cidr) = subnet_cidr {
                let cidrs = port
                    .external_ids
                    .get("neutron:cidrs")
                    .cloned()
                    .unwrap_or_default();
                if !cidrs.split_whitespace().any(|c| same_network(c, cidr)) {
                    continue;
                }
            }
            let Some(lrp_name) = port.options.get("router-port") else {
                continue;
            };
            let found = self.routers.values().find(|lr| {
                lr.ports.iter().any(|p| {
                    self.router_ports
                        .get(p)
                        .is_some_and(|lrp| &lrp.name == lrp_name)
                }) || lr
                    .external_ids
                    .get("neutron:gw_port_id")
                    .is_some_and(|g| format!("lrp-{g}") == *lrp_name)
            });
            if let Some(lr) = found
                && !out.iter().any(|o| o.uuid == lr.uuid)
            {
                out.push(lr);
            }
        }
        out
    }

    /// Every switch's ports of type `router` owned by `network:router_interface`, in the
    /// switch's port order.
    fn index_router_interfaces(&self) -> BTreeMap<Uuid, Vec<Uuid>> {
        self.switches
            .values()
            .map(|ls| (ls.uuid.clone(), self.router_interfaces_of(ls)))
            .collect()
    }

    /// The ports of `ls` of type `router` owned by `network:router_interface`.
    fn router_interfaces_of(&self, ls: &SwitchRow) -> Vec<Uuid> {
        ls.ports
            .iter()
            .filter(|u| {
                self.switch_ports.get(*u).is_some_and(|p| {
                    p.kind == "router"
                        && p.external_ids
                            .get("neutron:device_owner")
                            .map(String::as_str)
                            == Some("network:router_interface")
                })
            })
            .cloned()
            .collect()
    }

    /// Switch names attached to a router through its non-gateway ports of the VIP's family
    /// (`_find_ls_for_lr`).
    pub fn switches_of_router(&self, lr: &RouterRow, ipv4: bool) -> Vec<String> {
        let mut out = Vec::new();
        for lrp in lr.ports.iter().filter_map(|u| self.router_ports.get(u)) {
            if !lrp.gateway_chassis.is_empty() || !lrp.ha_chassis_group.is_empty() {
                continue;
            }
            let Some(first) = lrp.networks.first() else {
                continue;
            };
            let Some(ip) = first
                .split('/')
                .next()
                .and_then(|a| a.parse::<IpAddr>().ok())
            else {
                continue;
            };
            if ip.is_ipv4() != ipv4 {
                continue;
            }
            if let Some(net) = lrp.external_ids.get("neutron:network_name") {
                let name = ext::ovn_name(net);
                if !out.contains(&name) {
                    out.push(name);
                }
            }
        }
        out
    }

    /// Switches whose `load_balancer` references the row.
    pub fn switches_with_lb(&self, lb_uuid: &str) -> Vec<&SwitchRow> {
        self.switches
            .values()
            .filter(|s| s.load_balancer.iter().any(|u| u == lb_uuid))
            .collect()
    }

    /// Routers whose `load_balancer` references the row.
    pub fn routers_with_lb(&self, lb_uuid: &str) -> Vec<&RouterRow> {
        self.routers
            .values()
            .filter(|s| s.load_balancer.iter().any(|u| u == lb_uuid))
            .collect()
    }

    /// The name of the port of `ls` that carries `ip` (`_get_member_lsp`; MACs stripped from
    /// `addresses`), the first in the switch's port order. With a source keeping the
    /// `nb::indexes` address index, the candidates come from it; else ports a scoped snapshot
    /// did not decode are read from its source (a switch of a busy network has thousands).
    pub fn port_with_ip(&self, ls: &SwitchRow, ip: IpAddr) -> Option<String> {
        if let Some(src) = &self.source
            && let Some(candidates) = src.0.indexed(LSP, LSP_BY_IP, &ip.to_string())
        {
            // the NB's ports holding the address (one per network using it): the first of
            // them in the switch's port order, as the pass over its ports finds
            let (_, first) = candidates
                .iter()
                .filter_map(|u| Some((ls.ports.iter().position(|p| p == u)?, u)))
                .min()?;
            return match self.switch_ports.get(first) {
                Some(p) => Some(p.name.clone()),
                None => src.0.strings(LSP, first, "name").into_iter().next(),
            };
        }
        let own = self
            .switches
            .get(&ls.uuid)
            .is_some_and(|s| std::ptr::eq(s, ls));
        if !own {
            return self.addresses_of(ls).remove(&ip);
        }
        let index = self.port_addresses.get_or_init(|| {
            self.switches
                .values()
                .map(|ls| (ls.uuid.clone(), self.addresses_of(ls)))
                .collect()
        });
        index.get(&ls.uuid)?.get(&ip).cloned()
    }

    /// Address → port name over the ports of `ls`, the first port of an address kept.
    fn addresses_of(&self, ls: &SwitchRow) -> BTreeMap<IpAddr, String> {
        let mut out = BTreeMap::new();
        for u in &ls.ports {
            let (name, addresses) = match (self.switch_ports.get(u), &self.source) {
                (Some(p), _) => (p.name.clone(), p.addresses.clone()),
                (None, Some(src)) => {
                    let name = src.0.strings(LSP, u, "name").into_iter().next();
                    let Some(name) = name else { continue };
                    (name, src.0.strings(LSP, u, "addresses"))
                }
                (None, None) => continue,
            };
            for ip in addresses.iter().flat_map(|a| address_ips(a)) {
                out.entry(ip).or_insert_with(|| name.clone());
            }
        }
        out
    }

    /// Health-check rows created for a health monitor.
    pub fn health_checks_of(&self, hm_id: &str) -> Vec<&HealthCheckRow> {
        self.health_checks
            .values()
            .filter(|h| {
                h.external_ids
                    .get(ext::HC_HEALTHMONITOR)
                    .map(String::as_str)
                    == Some(hm_id)
            })
            .collect()
    }

    /// True when some row with health checks maps a member through `hm_ip` (the HM port of a
    /// subnet is still in use).
    pub fn hm_source_in_use(&self, hm_ip: &str, except_lb: Option<&str>) -> bool {
        let Ok(hm_ip) = hm_ip
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
        else {
            return false;
        };
        self.load_balancers
            .values()
            .filter(|r| Some(r.uuid.as_str()) != except_lb)
            .any(|r| {
                !r.health_check.is_empty()
                    && r.ip_port_mappings
                        .values()
                        .any(|v| mapping_source(v) == Some(hm_ip))
            })
    }
}

/// The HM source address of an `ip_port_mappings` value (`<lsp>:<ip>` or `<lsp>:[<v6>]`).
pub fn mapping_source(value: &str) -> Option<IpAddr> {
    if let Some(inner) = value.strip_suffix(']') {
        let start = inner.rfind('[')?;
        return inner[start + 1..].parse().ok();
    }
    value.rsplit_once(':')?.1.parse().ok()
}

/// True when two CIDRs name the same network (`10.0.0.1/24` ~ `10.0.0.0/24`).
pub fn same_network(a: &str, b: &str) -> bool {
    fn net(c: &str) -> Option<(IpAddr, u32)> {
        let (ip, len) = c.split_once('/')?;
        let ip: IpAddr = ip.parse().ok()?;
        let len: u32 = len.parse().ok()?;
        Some(match ip {
            IpAddr::V4(v) if len <= 32 => {
                let m = if len == 0 { 0 } else { u32::MAX << (32 - len) };
                (IpAddr::V4((u32::from(v) & m).into()), len)
            }
            IpAddr::V6(v) if len <= 128 => {
                let m = if len == 0 {
                    0
                } else {
                    u128::MAX << (128 - len)
                };
                (IpAddr::V6((u128::from(v) & m).into()), len)
            }
            _ => return None,
        })
    }
    matches!((net(a), net(b)), (Some(x), Some(y)) if x == y)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample() -> NbSnapshot {
        let mut s = NbSnapshot {
            health_check_supported: true,
            ..Default::default()
        };
        s.insert_json(
            "Logical_Switch",
            "ls1",
            &json!({"name": "neutron-net1", "external_ids": ["map", []], "load_balancer": ["set", []],
                    "ports": ["set", [["uuid", "lsp-r"], ["uuid", "lsp-vm"]]]}),
        );
        s.insert_json(
            "Logical_Switch_Port",
            "lsp-r",
            &json!({"name": "p-r", "type": "router", "addresses": "router",
                    "options": ["map", [["router-port", "lrp-p-r"]]],
                    "external_ids": ["map", [["neutron:device_owner", "network:router_interface"],
                                             ["neutron:cidrs", "10.0.0.1/24"]]]}),
        );
        s.insert_json(
            "Logical_Switch_Port",
            "lsp-vm",
            &json!({"name": "p-vm", "type": "", "addresses": ["set", ["fa:16:3e:00:00:01 10.0.0.10"]],
                    "options": ["map", []], "external_ids": ["map", []]}),
        );
        s.insert_json(
            "Logical_Router",
            "lr1",
            &json!({"name": "neutron-r1", "external_ids": ["map", []], "load_balancer": ["uuid", "lb1"],
                    "ports": ["uuid", "lrp1"]}),
        );
        s.insert_json(
            "Logical_Router_Port",
            "lrp1",
            &json!({"name": "lrp-p-r", "networks": "10.0.0.1/24",
                    "external_ids": ["map", [["neutron:network_name", "neutron-net1"]]],
                    "gateway_chassis": ["set", []], "ha_chassis_group": ["set", []]}),
        );
        s.insert_json(
            "Load_Balancer",
            "lb1",
            &json!({"name": "LB", "protocol": ["set", []],
                    "external_ids": ["map", [["pool_P:D", ""], ["neutron:vip", "10.0.0.5"]]],
                    "vips": ["map", []], "options": ["map", []], "selection_fields": ["set", ["ip_src"]],
                    "health_check": ["set", []], "ip_port_mappings": ["map", []]}),
        );
        s
    }

    #[test]
    fn decode_rows() {
        let s = sample();
        let lb = &s.load_balancers["lb1"];
        assert_eq!(lb.name, "LB");
        assert_eq!(lb.protocol, None);
        assert_eq!(lb.external_ids["neutron:vip"], "10.0.0.5");
        assert_eq!(lb.selection_fields, vec!["ip_src"]);
        assert_eq!(s.routers["lr1"].load_balancer, vec!["lb1"]);
        assert_eq!(
            s.switch_ports["lsp-vm"].addresses,
            vec!["fa:16:3e:00:00:01 10.0.0.10"]
        );
    }

    #[test]
    fn queries() {
        let s = sample();
        assert_eq!(s.lbs_named("LB").len(), 1);
        assert_eq!(
            s.lb_for_protocol("LB", "TCP").map(|r| r.uuid.as_str()),
            Some("lb1")
        );
        assert_eq!(
            s.lb_by_pool("P").map(|(r, k)| (r.uuid.clone(), k)),
            Some(("lb1".into(), "pool_P:D".into()))
        );
        let ls = s.switch_named("neutron-net1").unwrap();
        let lrs = s.routers_of_switch(ls, Some("10.0.0.0/24"));
        assert_eq!(lrs.len(), 1);
        assert_eq!(lrs[0].name, "neutron-r1");
        assert!(s.routers_of_switch(ls, Some("10.1.0.0/24")).is_empty());
        assert_eq!(s.switches_of_router(lrs[0], true), vec!["neutron-net1"]);
        assert!(s.switches_of_router(lrs[0], false).is_empty());
        assert_eq!(s.routers_with_lb("lb1").len(), 1);
        assert!(s.switches_with_lb("lb1").is_empty());
        assert_eq!(
            s.port_with_ip(ls, "10.0.0.10".parse().unwrap()).as_deref(),
            Some("p-vm")
        );
        assert!(s.port_with_ip(ls, "10.0.0.99".parse().unwrap()).is_none());
    }

    /// The router-interface index follows rows added and removed after it was built, and a
    /// copy of a switch row is answered as the snapshot's own.
    #[test]
    fn routers_of_switch_follow_changes() {
        let mut s = sample();
        let names = |s: &NbSnapshot, ls: &SwitchRow, cidr: &str| -> Vec<String> {
            s.routers_of_switch(ls, Some(cidr))
                .iter()
                .map(|r| r.name.clone())
                .collect()
        };
        let own = s.switch_named("neutron-net1").unwrap();
        assert_eq!(names(&s, own, "10.0.0.0/24"), vec!["neutron-r1"]);
        // a second subnet's router interface, on a second router
        s.insert_json(
            "Logical_Router",
            "lr2",
            &json!({"name": "neutron-r2", "external_ids": ["map", []], "load_balancer": ["set", []],
                    "ports": ["uuid", "lrp2"]}),
        );
        s.insert_json(
            "Logical_Router_Port",
            "lrp2",
            &json!({"name": "lrp-p-r2", "networks": "10.1.0.1/24", "external_ids": ["map", []],
                    "gateway_chassis": ["set", []], "ha_chassis_group": ["set", []]}),
        );
        s.insert_json(
            "Logical_Switch_Port",
            "lsp-r2",
            &json!({"name": "p-r2", "type": "router", "addresses": "router",
                    "options": ["map", [["router-port", "lrp-p-r2"]]],
                    "external_ids": ["map", [["neutron:device_owner", "network:router_interface"],
                                             ["neutron:cidrs", "10.1.0.1/24"]]]}),
        );
        s.insert_json(
            "Logical_Switch",
            "ls1",
            &json!({"name": "neutron-net1", "external_ids": ["map", []], "load_balancer": ["set", []],
                    "ports": ["set", [["uuid", "lsp-r"], ["uuid", "lsp-vm"], ["uuid", "lsp-r2"]]]}),
        );
        let own = s.switch_named("neutron-net1").unwrap();
        assert_eq!(names(&s, own, "10.1.0.0/24"), vec!["neutron-r2"]);
        let copy = own.clone();
        assert_eq!(names(&s, &copy, "10.1.0.0/24"), vec!["neutron-r2"]);
        assert_eq!(names(&s, &copy, "10.0.0.0/24"), vec!["neutron-r1"]);
        s.remove_row("Logical_Switch_Port", "lsp-r");
        let own = s.switch_named("neutron-net1").unwrap();
        assert!(names(&s, own, "10.0.0.0/24").is_empty());
        assert_eq!(names(&s, own, "10.1.0.0/24"), vec!["neutron-r2"]);
    }

    /// What `lbs_named` and `lb_by_pool` answered before the index: scans of every row.
    fn scan_named<'a>(s: &'a NbSnapshot, id: &str) -> Vec<&'a str> {
        let mut v: Vec<_> = s.load_balancers.values().filter(|r| r.name == id).collect();
        v.sort_by_key(|r| r.protocol.is_some());
        v.into_iter().map(|r| r.uuid.as_str()).collect()
    }
    fn scan_pool(s: &NbSnapshot, pool: &str) -> Option<(String, String)> {
        s.load_balancers
            .values()
            .filter(|r| {
                r.external_ids.get(ext::DEVICE_OWNER).map(String::as_str)
                    != Some(ext::PORT_FORWARDING_PLUGIN)
            })
            .find_map(|r| ext::find_pool_key(&r.external_ids, pool).map(|k| (r.uuid.clone(), k)))
    }
    fn same_as_scans(s: &NbSnapshot) {
        for id in ["A", "B", "C", "none"] {
            let got: Vec<&str> = s.lbs_named(id).iter().map(|r| r.uuid.as_str()).collect();
            assert_eq!(got, scan_named(s, id), "lbs_named({id})");
        }
        for p in ["P1", "P2", "P3", "P4", "PF", "nowhere"] {
            let got = s.lb_by_pool(p).map(|(r, k)| (r.uuid.clone(), k));
            assert_eq!(got, scan_pool(s, p), "lb_by_pool({p})");
        }
    }

    /// The name and pool indexes answer as the scans did: an LB with two protocol rows, a row
    /// with several pools (one disabled), a pool held by two rows (the first by uuid wins), a
    /// port-forwarding row holding a pool key (skipped), a pool in no LB; and again after rows
    /// are changed in place, replaced, inserted and removed.
    #[test]
    fn indexed_lookups_equal_the_scans() {
        let mut s = NbSnapshot::default();
        let lb = |s: &mut NbSnapshot, u: &str, name: &str, proto: Option<&str>, ids: &[&str]| {
            let ids: Vec<Value> = ids.iter().map(|k| json!([k, ""])).collect();
            let proto = proto.map_or(json!(["set", []]), |p| json!(p));
            s.insert_json(
                "Load_Balancer",
                u,
                &json!({"name": name, "protocol": proto, "external_ids": ["map", ids]}),
            );
        };
        lb(&mut s, "u3", "A", Some("udp"), &["pool_P2"]);
        lb(
            &mut s,
            "u1",
            "A",
            Some("tcp"),
            &["pool_P1", "pool_P3:D", "listener_L"],
        );
        lb(&mut s, "u2", "B", None, &["pool_P2"]);
        lb(&mut s, "u0", "PFROW", None, &["pool_PF"]);
        s.load_balancers
            .get_mut("u0")
            .unwrap()
            .external_ids
            .insert(ext::DEVICE_OWNER.into(), ext::PORT_FORWARDING_PLUGIN.into());
        same_as_scans(&s);
        assert_eq!(
            s.lb_by_pool("P3").map(|(r, k)| (r.uuid.as_str(), k)),
            Some(("u1", "pool_P3:D".to_string()))
        );
        assert!(s.lb_by_pool("nowhere").is_none());
        assert_eq!(s.lbs_named("A").len(), 2);
        // changed in place after the index was built: P1 moves to B, A's tcp row is renamed
        let r = s.load_balancers.get_mut("u1").unwrap();
        r.external_ids.remove("pool_P1");
        r.name = "C".into();
        s.load_balancers
            .get_mut("u2")
            .unwrap()
            .external_ids
            .insert("pool_P1:D".into(), String::new());
        same_as_scans(&s);
        s.load_balancers.reindex();
        same_as_scans(&s);
        // replaced, inserted, removed
        lb(&mut s, "u2", "B", Some("tcp"), &["pool_P4"]);
        lb(&mut s, "u4", "A", None, &["pool_P2:D"]);
        same_as_scans(&s);
        s.load_balancers.remove("u3");
        same_as_scans(&s);
        let c = s.clone();
        same_as_scans(&c);
    }

    #[test]
    fn mapping_sources() {
        assert_eq!(
            mapping_source("lsp1:10.0.0.2"),
            Some("10.0.0.2".parse().unwrap())
        );
        assert_eq!(
            mapping_source("lsp1:[2001:db8::2]"),
            Some("2001:db8::2".parse().unwrap())
        );
        assert_eq!(mapping_source("garbage"), None);
        assert_eq!(
            crate::member::mapping_key("2001:db8::9".parse().unwrap()),
            "[2001:db8::9]"
        );
        assert_eq!(
            crate::member::mapping_value("p", "2001:db8::2"),
            "p:[2001:db8::2]"
        );
        assert_eq!(crate::member::mapping_value("p", "10.0.0.2"), "p:10.0.0.2");
    }

    #[test]
    fn networks() {
        assert!(same_network("10.0.0.1/24", "10.0.0.0/24"));
        assert!(!same_network("10.0.0.1/24", "10.0.0.0/25"));
        assert!(same_network("2001:db8::1/64", "2001:db8::/64"));
        assert!(!same_network("bad", "10.0.0.0/24"));
    }
}
