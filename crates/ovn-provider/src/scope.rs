//! Scoped NB snapshots: a request decodes only the rows it touches (a step must not
//! slow down with 10,000 unrelated `Load_Balancer` rows in the NB).
//!
//! A [`Scope`] names the request's entry points (load balancer names, pool ids, switch names,
//! member ports); [`extend`] follows the references the planners walk — rows named after the
//! LB, their `health_check` rows, the switches and routers in `ls_refs`/`lr_ref` or holding the
//! rows in `load_balancer`, the ports of those switches, the routers behind router ports, the
//! ports of those routers and the switches those ports name — and decodes exactly those rows
//! into an [`NbSnapshot`]. Lookups go through the replica's `_uuid` and `name` indexes and
//! the router-port index of `nb::indexes` (a switch's router ports); the only scans are over `Logical_Switch`/`Logical_Router` (reverse references, small tables)
//! and the fallbacks noted on [`Scope`].

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::Value;

use crate::external_ids as ext;
use crate::nb::NbSnapshot;
use crate::nb::indexes;

pub use crate::nb::{RowSource, Source};

/// What a request starts from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scope {
    /// Octavia load balancer ids (`Load_Balancer.name`): every row of each.
    pub lbs: Vec<String>,
    /// Pool ids: every row of the LB holding `pool_<id>[:D]`. Found among [`Scope::lbs`]
    /// first, then through the caller's pool index, else by a scan (a pool not in the NB).
    pub pools: Vec<String>,
    /// Switch names (`neutron-<network id>`) the request attaches (VIP and member networks).
    pub switches: Vec<String>,
    /// Switch names whose `load_balancer` rows are needed (HM port still in use?).
    pub lbs_on_switches: Vec<String>,
    /// Router names (`neutron-<router id>`): the router with its ports and its
    /// `load_balancer` rows (router interface events).
    pub lbs_on_routers: Vec<String>,
    /// Member logical switch ports (SB `Service_Monitor.logical_port`): the rows on their
    /// switch, through `external_ids:neutron:network_name`.
    pub member_ports: Vec<String>,
    /// `ip_port_mappings` keys (member addresses): rows mapping them, by a scan; only used when
    /// [`Scope::member_ports`] finds no row mapping the address.
    pub mapping_keys: Vec<String>,
    /// Logical switch port names decoded as they are (the member port of a health event, to
    /// tell whether it is gone or disabled).
    pub ports: Vec<String>,
    /// Every port of the switches decoded, not only their router interfaces: for a VIP FIP
    /// event, which reads the VIP port's `neutron:port_fip`. A switch of a busy network has
    /// thousands of ports (decoding them all cost 85 ms a request at 3,700 ports); a member's
    /// port is found by address without decoding ([`NbSnapshot::port_with_ip`]).
    pub all_switch_ports: bool,
}

impl Scope {
    /// Every row of one load balancer.
    pub fn lb(lb_id: &str) -> Self {
        Self {
            lbs: vec![lb_id.to_string()],
            ..Default::default()
        }
    }

    /// The rows of the LB holding a pool.
    pub fn pool(pool_id: &str) -> Self {
        Self {
            pools: vec![pool_id.to_string()],
            ..Default::default()
        }
    }
}

const LB: &str = "Load_Balancer";
const HC: &str = "Load_Balancer_Health_Check";
const LS: &str = "Logical_Switch";
const LSP: &str = indexes::LSP;
const LR: &str = "Logical_Router";
const LRP: &str = "Logical_Router_Port";
/// The NB's one-row global table; only its `options` are followed (`ovsdb_nb::monitor_spec`).
pub(crate) const NB_GLOBAL: &str = "NB_Global";
/// `NB_Global` option `ovn-northd` fills with the MAC health probes are sent from.
/// Switches with more ports than this find their router ports through the replica's index
/// (a read of every router port of the NB, once per request); smaller ones are scanned.
const SCAN_PORTS_UP_TO: usize = 64;
const SVC_MONITOR_MAC: &str = "svc_monitor_mac";

/// A snapshot holding what `scope` touches. `pool_index` gives candidate row uuids for a pool
/// id (verified here; may be stale or empty).
pub fn build(
    src: Arc<dyn RowSource>,
    scope: &Scope,
    pool_index: &dyn Fn(&str) -> Vec<String>,
) -> NbSnapshot {
    let mut snap = NbSnapshot {
        health_check_supported: src.health_check_supported(),
        ..Default::default()
    };
    extend(&mut snap, src.as_ref(), scope, pool_index);
    snap.source = Some(Source(src));
    snap
}

impl NbSnapshot {
    /// Widen a scoped snapshot with switches (by name, with their ports and routers) from the
    /// same replica generation, once Neutron facts name them; no-op without a source.
    pub fn include_switches(&mut self, names: &[String]) {
        let Some(src) = self.source.clone() else {
            return;
        };
        let scope = Scope {
            switches: names.to_vec(),
            ..Default::default()
        };
        extend(self, src.0.as_ref(), &scope, &|_| Vec::new());
    }
}

fn add(snap: &mut NbSnapshot, src: &dyn RowSource, table: &str, uuid: &str) -> bool {
    if snap.contains(table, uuid) {
        return true;
    }
    if table == LS {
        // a busy network's switch holds thousands of ports: read apart, not through JSON
        let Some(row) = src.row_without(LS, uuid, "ports") else {
            return false;
        };
        snap.insert_json(LS, uuid, &row);
        if let Some(ls) = snap.switches.get_mut(uuid) {
            ls.ports = src.uuids(LS, uuid, "ports");
        }
        return true;
    }
    match src.row(table, uuid) {
        Some(row) => {
            snap.insert_json(table, uuid, &row);
            true
        }
        None => false,
    }
}

fn pool_keys(pool_id: &str) -> Vec<String> {
    vec![ext::pool_key(pool_id, true), ext::pool_key(pool_id, false)]
}

fn holds_pool(src: &dyn RowSource, uuid: &str, keys: &[String]) -> bool {
    keys.iter()
        .any(|k| src.map_get(LB, uuid, "external_ids", k).is_some())
}

/// Add to `snap` the rows `scope` touches (see the module doc).
#[allow(
    clippy::too_many_lines,
    reason = "a known exception of clippy.toml's bound"
)]
pub fn extend(
    snap: &mut NbSnapshot,
    src: &dyn RowSource,
    scope: &Scope,
    pool_index: &dyn Fn(&str) -> Vec<String>,
) {
    // 1. load balancer rows: by name, by pool, by switch, by member port
    let mut names: Vec<String> = scope.lbs.clone();
    for pool in &scope.pools {
        let keys = pool_keys(pool);
        let in_named = names
            .iter()
            .flat_map(|n| src.named(LB, n))
            .any(|u| holds_pool(src, &u, &keys));
        if in_named {
            continue;
        }
        let mut found: Vec<String> = pool_index(pool)
            .into_iter()
            .filter(|u| holds_pool(src, u, &keys))
            .collect();
        if found.is_empty() {
            found = src.with_map_key(LB, "external_ids", &keys);
        }
        for u in found {
            if let Some(row) = src.row(LB, &u) {
                let name = crate::nb::datum_set(row.get("name"))
                    .into_iter()
                    .next()
                    .unwrap_or_default();
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
    }
    let mut lb_switches: Vec<String> = scope.lbs_on_switches.clone();
    for lsp in &scope.ports {
        for u in src.named(LSP, lsp) {
            add(snap, src, LSP, &u);
        }
    }
    for lsp in &scope.member_ports {
        for u in src.named(LSP, lsp) {
            add(snap, src, LSP, &u);
            if let Some(net) = src.map_get(LSP, &u, "external_ids", "neutron:network_name") {
                lb_switches.push(ext::ovn_name(&net));
            }
        }
    }
    for sw in &lb_switches {
        for u in src.named(LS, sw) {
            let Some(row) = src.row(LS, &u) else { continue };
            for lb in crate::nb::datum_set(row.get("load_balancer")) {
                add(snap, src, LB, &lb);
            }
        }
    }
    let mut named_routers: Vec<String> = Vec::new();
    for lr in &scope.lbs_on_routers {
        for u in src.named(LR, lr) {
            let Some(row) = src.row(LR, &u) else { continue };
            for lb in crate::nb::datum_set(row.get("load_balancer")) {
                add(snap, src, LB, &lb);
            }
            named_routers.push(u);
        }
    }
    if !scope.mapping_keys.is_empty() {
        let mapped = snap.load_balancers.values().any(|r| {
            scope
                .mapping_keys
                .iter()
                .any(|k| r.ip_port_mappings.contains_key(k))
        });
        if !mapped {
            for u in src.with_map_key(LB, "ip_port_mappings", &scope.mapping_keys) {
                add(snap, src, LB, &u);
            }
        }
    }
    for n in &names {
        for u in src.named(LB, n) {
            add(snap, src, LB, &u);
        }
    }
    // 2. their health checks
    let lb_uuids: BTreeSet<String> = snap.load_balancers.keys().cloned().collect();
    let hcs: Vec<String> = snap
        .load_balancers
        .values()
        .flat_map(|r| r.health_check.clone())
        .collect();
    for u in hcs {
        add(snap, src, HC, &u);
    }
    // 3. switches: named by the request, in ls_refs, or holding a row
    let mut switches: Vec<String> = scope.switches.clone();
    let mut routers: Vec<String> = Vec::new();
    for r in snap.load_balancers.values() {
        switches.extend(ext::parse_ls_refs(&r.external_ids).into_keys());
        routers.extend(ext::parse_lr_ref(&r.external_ids));
    }
    let mut switch_uuids: Vec<String> = switches.iter().flat_map(|n| src.named(LS, n)).collect();
    let mut router_uuids: Vec<String> = routers.iter().flat_map(|n| src.named(LR, n)).collect();
    router_uuids.extend(named_routers);
    if !lb_uuids.is_empty() {
        switch_uuids.extend(src.referencing(LS, "load_balancer", &lb_uuids));
        router_uuids.extend(src.referencing(LR, "load_balancer", &lb_uuids));
    }
    // 4. the switches with their router ports (every port with `all_switch_ports`); routers
    //    behind router ports
    // a busy provider network's switch: the NB's router ports (replica index, read once per
    // request), each checked against the switch's `ports` without a pass over them, when
    // they are fewer; a small switch, or a source without the index: a pass over its ports
    let mut router_ports: Option<Option<Vec<String>>> = None;
    for ls in switch_uuids {
        if !add(snap, src, LS, &ls) {
            continue;
        }
        let all = snap.switches.get(&ls).map(|s| &s.ports);
        let indexed = match all {
            Some(all) if !scope.all_switch_ports && all.len() > SCAN_PORTS_UP_TO => router_ports
                .get_or_insert_with(|| {
                    src.indexed(LSP, indexes::LSP_ROUTER_PORTS, indexes::ROUTER_PORT_KEY)
                })
                .as_ref()
                .filter(|rp| rp.len() < all.len()),
            _ => None,
        };
        let ports: Vec<String> = match indexed {
            Some(rp) => rp
                .iter()
                .filter(|p| src.holds(LS, &ls, "ports", p))
                .cloned()
                .collect(),
            None => all.cloned().unwrap_or_default(),
        };
        for p in ports {
            // a router port names its router port; the others are not decoded
            let wanted = scope.all_switch_ports
                || snap.switch_ports.contains_key(&p)
                || src.map_get(LSP, &p, "options", "router-port").is_some();
            if !wanted || !add(snap, src, LSP, &p) {
                continue;
            }
            let Some(lsp) = snap.switch_ports.get(&p) else {
                continue;
            };
            if lsp.kind != "router" {
                continue;
            }
            let Some(lrp_name) = lsp.options.get("router-port").cloned() else {
                continue;
            };
            let device = lsp.external_ids.get("neutron:device_id").cloned();
            let lrps = src.named(LRP, &lrp_name);
            let by_device: Vec<String> = device
                .map(|d| src.named(LR, &ext::ovn_name(&d)))
                .unwrap_or_default();
            let lrp_set: BTreeSet<String> = lrps.iter().cloned().collect();
            let owner: Vec<String> = by_device
                .into_iter()
                .filter(|lr| {
                    src.row(LR, lr).is_some_and(|row| {
                        crate::nb::datum_set(row.get("ports"))
                            .iter()
                            .any(|u| lrp_set.contains(u))
                            || gw_port_matches(src, lr, &lrp_name)
                    })
                })
                .collect();
            if owner.is_empty() && !lrp_set.is_empty() {
                router_uuids.extend(src.referencing(LR, "ports", &lrp_set));
            } else {
                router_uuids.extend(owner);
            }
        }
    }
    // 5. routers with their ports, and the switches those ports name (without their ports)
    for lr in router_uuids {
        if !add(snap, src, LR, &lr) {
            continue;
        }
        let ports = snap
            .routers
            .get(&lr)
            .map(|s| s.ports.clone())
            .unwrap_or_default();
        for p in ports {
            if !add(snap, src, LRP, &p) {
                continue;
            }
            let net = snap
                .router_ports
                .get(&p)
                .and_then(|r| r.external_ids.get("neutron:network_name").cloned());
            if let Some(net) = net {
                for u in src.named(LS, &ext::ovn_name(&net)) {
                    add(snap, src, LS, &u);
                }
            }
        }
    }
}

fn gw_port_matches(src: &dyn RowSource, lr: &str, lrp_name: &str) -> bool {
    src.map_get(LR, lr, "external_ids", "neutron:gw_port_id")
        .is_some_and(|g| format!("lrp-{g}") == lrp_name)
}

// ---- the replica as a source --------------------------------------------------------------

fn parse_uuid(s: &str) -> Option<ovsdb::Uuid> {
    s.parse().ok()
}

/// A replica row as RFC 7047 JSON, without the column `skip`.
fn row_json(row: &ovsdb::Row, skip: Option<&str>) -> Value {
    Value::Object(
        row.columns()
            .iter()
            .filter(|(k, _)| Some(k.as_str()) != skip)
            .map(|(k, v)| (k.clone(), v.to_json()))
            .collect(),
    )
}

impl RowSource for ovsdb::Snapshot {
    fn row(&self, table: &str, uuid: &str) -> Option<Value> {
        let row = ovsdb::Snapshot::row(self, table, &parse_uuid(uuid)?)?;
        Some(row_json(row, None))
    }

    fn named(&self, table: &str, name: &str) -> Vec<String> {
        self.table(table)
            .map(|t| {
                t.find_all_by_name(name)
                    .into_iter()
                    .map(|r| r.uuid().to_string())
                    .collect()
            })
            .unwrap_or_default()
    }

    fn referencing(&self, table: &str, column: &str, uuids: &BTreeSet<String>) -> Vec<String> {
        let wanted: BTreeSet<ovsdb::Uuid> = uuids.iter().filter_map(|u| parse_uuid(u)).collect();
        self.table(table)
            .map(|t| {
                t.filter(|r| {
                    r.get_set(column)
                        .into_iter()
                        .any(|a| a.as_uuid().is_some_and(|u| wanted.contains(&u)))
                })
                .map(|r| r.uuid().to_string())
                .collect()
            })
            .unwrap_or_default()
    }

    fn with_map_key(&self, table: &str, column: &str, keys: &[String]) -> Vec<String> {
        self.table(table)
            .map(|t| {
                t.filter(|r| keys.iter().any(|k| r.map_get(column, k).is_some()))
                    .map(|r| r.uuid().to_string())
                    .collect()
            })
            .unwrap_or_default()
    }

    fn row_without(&self, table: &str, uuid: &str, column: &str) -> Option<Value> {
        let row = ovsdb::Snapshot::row(self, table, &parse_uuid(uuid)?)?;
        Some(row_json(row, Some(column)))
    }

    fn uuids(&self, table: &str, uuid: &str, column: &str) -> Vec<String> {
        let Some(row) = parse_uuid(uuid).and_then(|u| ovsdb::Snapshot::row(self, table, &u)) else {
            return Vec::new();
        };
        row.get_uuid_set(column)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    fn map_get(&self, table: &str, uuid: &str, column: &str, key: &str) -> Option<String> {
        ovsdb::Snapshot::row(self, table, &parse_uuid(uuid)?)?
            .map_get(column, key)
            .map(String::from)
    }

    fn strings(&self, table: &str, uuid: &str, column: &str) -> Vec<String> {
        let Some(row) = parse_uuid(uuid).and_then(|u| ovsdb::Snapshot::row(self, table, &u)) else {
            return Vec::new();
        };
        row.get_str_set(column)
            .into_iter()
            .map(String::from)
            .collect()
    }

    fn indexed(&self, table: &str, index: &str, key: &str) -> Option<Vec<String>> {
        let rows = self.find_by_key(table, index, key)?;
        Some(rows.iter().map(|r| r.uuid().to_string()).collect())
    }

    fn holds(&self, table: &str, uuid: &str, column: &str, member: &str) -> bool {
        let (Some(uuid), Some(member)) = (parse_uuid(uuid), parse_uuid(member)) else {
            return false;
        };
        match ovsdb::Snapshot::row(self, table, &uuid).and_then(|r| r.get(column)) {
            Some(ovsdb::Value::Set(set)) => set.contains(&ovsdb::Atom::Uuid(member)),
            Some(ovsdb::Value::Atom(a)) => *a == ovsdb::Atom::Uuid(member),
            _ => false,
        }
    }

    fn health_check_supported(&self) -> bool {
        self.schema()
            .table(LB)
            .is_some_and(|t| t.columns.contains_key("health_check"))
    }

    fn svc_monitor_mac(&self) -> Option<String> {
        self.table(NB_GLOBAL)?
            .rows()
            .find_map(|r| r.map_get("options", SVC_MONITOR_MAC))
            .map(String::from)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;
    use std::collections::BTreeMap;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// In-memory tables that count every row they hand out or look at.
    #[derive(Default)]
    pub(crate) struct MemSource {
        pub tables: BTreeMap<String, BTreeMap<String, Value>>,
        pub touched: AtomicUsize,
        /// Keeps no index (`indexed` answers `None`), as a replica without them.
        pub unindexed: bool,
    }

    impl MemSource {
        pub fn put(&mut self, table: &str, uuid: &str, row: Value) {
            self.tables
                .entry(table.to_string())
                .or_default()
                .insert(uuid.to_string(), row);
        }
        fn rows(&self, table: &str) -> impl Iterator<Item = (&String, &Value)> + use<'_> {
            self.tables.get(table).into_iter().flat_map(|t| t.iter())
        }
    }

    impl RowSource for MemSource {
        fn row(&self, table: &str, uuid: &str) -> Option<Value> {
            self.touched.fetch_add(1, Ordering::Relaxed);
            self.tables.get(table)?.get(uuid).cloned()
        }
        fn named(&self, table: &str, name: &str) -> Vec<String> {
            // a hash index: constant work per lookup, like the replica's
            let hits: Vec<String> = self
                .rows(table)
                .filter(|(_, r)| r.get("name").and_then(Value::as_str) == Some(name))
                .map(|(u, _)| u.clone())
                .collect();
            self.touched.fetch_add(hits.len(), Ordering::Relaxed);
            hits
        }
        fn referencing(&self, table: &str, column: &str, uuids: &BTreeSet<String>) -> Vec<String> {
            self.rows(table)
                .inspect(|_| {
                    self.touched.fetch_add(1, Ordering::Relaxed);
                })
                .filter(|(_, r)| {
                    crate::nb::datum_set(r.get(column))
                        .iter()
                        .any(|u| uuids.contains(u))
                })
                .map(|(u, _)| u.clone())
                .collect()
        }
        fn with_map_key(&self, table: &str, column: &str, keys: &[String]) -> Vec<String> {
            self.rows(table)
                .inspect(|_| {
                    self.touched.fetch_add(1, Ordering::Relaxed);
                })
                .filter(|(_, r)| {
                    let m = crate::nb::datum_map(r.get(column));
                    keys.iter().any(|k| m.contains_key(k))
                })
                .map(|(u, _)| u.clone())
                .collect()
        }
        fn map_get(&self, table: &str, uuid: &str, column: &str, key: &str) -> Option<String> {
            self.touched.fetch_add(1, Ordering::Relaxed);
            crate::nb::datum_map(self.tables.get(table)?.get(uuid)?.get(column))
                .get(key)
                .cloned()
        }
        fn strings(&self, table: &str, uuid: &str, column: &str) -> Vec<String> {
            self.touched.fetch_add(1, Ordering::Relaxed);
            self.tables
                .get(table)
                .and_then(|t| t.get(uuid))
                .map(|r| crate::nb::datum_set(r.get(column)))
                .unwrap_or_default()
        }
        fn indexed(&self, table: &str, index: &str, key: &str) -> Option<Vec<String>> {
            // the replica's key functions over every row: the index's answer, at a scan's cost
            if self.unindexed {
                return None;
            }
            let keys: ovsdb::KeyFn = match (table, index) {
                (LSP, indexes::LSP_ROUTER_PORTS) => indexes::router_port_keys,
                (LSP, indexes::LSP_BY_IP) => indexes::ip_keys,
                _ => return None,
            };
            let hits: Vec<String> = self
                .rows(table)
                .filter(|(_, r)| {
                    let columns = r
                        .as_object()
                        .into_iter()
                        .flatten()
                        .filter_map(|(k, v)| Some((k.clone(), ovsdb::Value::from_json(v).ok()?)))
                        .collect();
                    keys(&ovsdb::Row::new(ovsdb::Uuid::nil(), columns))
                        .iter()
                        .any(|k| k == key)
                })
                .map(|(u, _)| u.clone())
                .collect();
            // a hash index: constant work per lookup, like the replica's
            self.touched.fetch_add(hits.len(), Ordering::Relaxed);
            Some(hits)
        }
        fn holds(&self, table: &str, uuid: &str, column: &str, member: &str) -> bool {
            self.touched.fetch_add(1, Ordering::Relaxed);
            self.tables
                .get(table)
                .and_then(|t| t.get(uuid))
                .is_some_and(|r| {
                    crate::nb::datum_set(r.get(column))
                        .iter()
                        .any(|u| u == member)
                })
        }
        fn health_check_supported(&self) -> bool {
            true
        }
    }

    /// One LB with a pool and an HC on a switch behind a router, plus `extra` unrelated rows.
    pub(crate) fn nb(extra: usize) -> MemSource {
        let mut s = MemSource::default();
        s.put(LS, "ls1", json!({"name": "neutron-net1", "external_ids": ["map", []],
            "load_balancer": ["set", [["uuid", "lb1"]]], "ports": ["set", [["uuid", "lsp-r"], ["uuid", "lsp-vm"]]]}));
        s.put(
            LSP,
            "lsp-r",
            json!({"name": "p-r", "type": "router", "addresses": "router",
            "options": ["map", [["router-port", "lrp-p-r"]]],
            "external_ids": ["map", [["neutron:device_owner", "network:router_interface"],
                ["neutron:cidrs", "10.0.0.1/24"], ["neutron:device_id", "r1"]]]}),
        );
        s.put(LSP, "lsp-vm", json!({"name": "p-vm", "type": "", "addresses": ["set", ["fa:16:3e:00:00:01 10.0.0.10"]],
            "options": ["map", []], "external_ids": ["map", [["neutron:network_name", "neutron-net1"]]]}));
        s.put(
            LR,
            "lr1",
            json!({"name": "neutron-r1", "external_ids": ["map", []],
            "load_balancer": ["set", [["uuid", "lb1"]]], "ports": ["uuid", "lrp1"]}),
        );
        s.put(
            LRP,
            "lrp1",
            json!({"name": "lrp-p-r", "networks": "10.0.0.1/24",
            "external_ids": ["map", [["neutron:network_name", "neutron-net1"]]]}),
        );
        s.put(LB, "lb1", json!({"name": "LB", "protocol": "tcp",
            "external_ids": ["map", [["pool_P", "member_M_10.0.0.10:80_S"], ["neutron:vip", "10.0.0.5"],
                ["ls_refs", "{\"neutron-net1\": 1}"], ["lr_ref", "neutron-r1"]]],
            "health_check": ["set", [["uuid", "hc1"]]],
            "ip_port_mappings": ["map", [["10.0.0.10", "p-vm:10.0.0.2"]]]}));
        s.put(HC, "hc1", json!({"vip": "10.0.0.5:80", "external_ids": ["map", [["octavia:healthmonitor", "H"]]]}));
        for i in 0..extra {
            s.put(LB, &format!("x{i}"), json!({"name": format!("other-{i}"), "protocol": "tcp",
                "external_ids": ["map", [[format!("pool_Q{i}"), ""], ["ls_refs", "{\"neutron-elsewhere\": 1}"]]]}));
        }
        s
    }

    /// pool id → row uuids, as `OvsdbNb`'s incrementally kept index (built before counting).
    fn pool_index(src: &MemSource) -> BTreeMap<String, Vec<String>> {
        let mut ix: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (u, r) in src.rows(LB) {
            for k in crate::nb::datum_map(r.get("external_ids")).keys() {
                if let Some(p) = k.strip_prefix("pool_") {
                    ix.entry(p.trim_end_matches(":D").to_string())
                        .or_default()
                        .push(u.clone());
                }
            }
        }
        ix
    }

    fn scoped(src: MemSource, scope: &Scope) -> (NbSnapshot, usize) {
        let ix = pool_index(&src);
        let src = Arc::new(src);
        let snap = build(src.clone(), scope, &|p| {
            ix.get(p).cloned().unwrap_or_default()
        });
        (snap, src.touched.load(Ordering::Relaxed))
    }

    #[test]
    fn lb_scope_follows_references() {
        let (s, _) = scoped(nb(0), &Scope::lb("LB"));
        assert_eq!(s.load_balancers.len(), 1);
        assert_eq!(s.health_checks.len(), 1);
        let ls = s.switch_named("neutron-net1").unwrap();
        // the router interface only: the VM port is decoded on request
        assert_eq!(s.switch_ports.keys().collect::<Vec<_>>(), vec!["lsp-r"]);
        let lrs = s.routers_of_switch(ls, Some("10.0.0.0/24"));
        assert_eq!(lrs.len(), 1);
        assert_eq!(s.switches_of_router(lrs[0], true), vec!["neutron-net1"]);
        assert_eq!(s.switches_with_lb("lb1").len(), 1);
        assert_eq!(s.routers_with_lb("lb1").len(), 1);
        assert!(s.health_check_supported);
    }

    #[test]
    fn pool_and_member_port_scopes() {
        let (s, _) = scoped(nb(3), &Scope::pool("P"));
        assert_eq!(
            s.lb_by_pool("P").map(|(r, k)| (r.name.clone(), k)),
            Some(("LB".into(), "pool_P".into()))
        );
        assert_eq!(s.load_balancers.len(), 1);
        let scope = Scope {
            member_ports: vec!["p-vm".into()],
            ..Default::default()
        };
        let (s, _) = scoped(nb(3), &scope);
        assert_eq!(s.load_balancers.keys().collect::<Vec<_>>(), vec!["lb1"]);
        // unknown pool: found by the scan fallback among the extra rows
        let (s, _) = scoped(nb(3), &Scope::pool("Q2"));
        assert_eq!(s.lbs_named("other-2").len(), 1);
    }

    /// Ports other than router interfaces are decoded when the scope asks: all of them
    /// (`all_switch_ports`) or by name (`ports`, `member_ports`).
    #[test]
    fn switch_ports_on_request() {
        let all = Scope {
            all_switch_ports: true,
            ..Scope::lb("LB")
        };
        let (s, _) = scoped(nb(0), &all);
        assert_eq!(s.switch_ports.len(), 2);
        // without it, the member port is still found by its address, through the source
        let (s, _) = scoped(nb(0), &Scope::lb("LB"));
        assert_eq!(s.switch_ports.len(), 1);
        let ls = s.switch_named("neutron-net1").unwrap();
        assert_eq!(
            s.port_with_ip(ls, "10.0.0.10".parse().unwrap()).as_deref(),
            Some("p-vm")
        );
        assert_eq!(s.port_with_ip(ls, "10.0.0.11".parse().unwrap()), None);
        // a copy of the switch row is answered the same
        let copy = ls.clone();
        assert_eq!(
            s.port_with_ip(&copy, "10.0.0.10".parse().unwrap())
                .as_deref(),
            Some("p-vm")
        );
        for named in [
            Scope {
                ports: vec!["p-vm".into()],
                ..Scope::lb("LB")
            },
            Scope {
                member_ports: vec!["p-vm".into()],
                ..Default::default()
            },
        ] {
            let (s, _) = scoped(nb(0), &named);
            assert_eq!(
                s.switch_ports
                    .values()
                    .map(|p| p.name.as_str())
                    .collect::<Vec<_>>(),
                vec!["p-r", "p-vm"],
                "{named:?}"
            );
        }
    }

    /// The rows a request decodes do not grow with the ports of its switch (a busy network):
    /// only router interfaces are followed.
    #[test]
    fn rows_are_flat_in_the_ports_of_a_switch() {
        let busy = |n: usize| {
            let mut src = nb(0);
            let mut ports = vec![json!(["uuid", "lsp-r"]), json!(["uuid", "lsp-vm"])];
            for i in 0..n {
                let u = format!("vm{i}");
                src.put(LSP, &u, json!({"name": format!("p-{u}"), "type": "",
                    "addresses": ["set", [format!("fa:16:3e:00:10:00 10.0.{}.{}", i / 250, i % 250)]],
                    "options": ["map", []], "external_ids": ["map", []]}));
                ports.push(json!(["uuid", u]));
            }
            src.put(
                LS,
                "ls1",
                json!({"name": "neutron-net1", "external_ids": ["map", []],
                "load_balancer": ["set", [["uuid", "lb1"]]], "ports": ["set", ports]}),
            );
            src
        };
        for scope in [Scope::lb("LB"), Scope::pool("P")] {
            let (small, _) = scoped(busy(0), &scope);
            let (busy_1k, looked_1k) = scoped(busy(1_000), &scope);
            let (big, looked_big) = scoped(busy(10_000), &scope);
            assert_eq!(small.rows(), big.rows(), "{scope:?}");
            assert_eq!(busy_1k.rows(), big.rows(), "{scope:?}");
            // a busy switch's router ports come from the replica's index, not a look at every
            // port (a switch of up to SCAN_PORTS_UP_TO ports is scanned)
            assert_eq!(looked_1k, looked_big, "{scope:?}");
            let ls = big.switch_named("neutron-net1").unwrap();
            assert_eq!(big.routers_of_switch(ls, Some("10.0.0.0/24")).len(), 1);
            assert_eq!(
                big.port_with_ip(ls, "10.0.39.249".parse().unwrap())
                    .as_deref(),
                Some("p-vm9999")
            );
        }
    }

    /// An address used on two networks: each switch answers with its own port, and two
    /// ports of one switch holding it give the first in the switch's port order.
    #[test]
    fn port_with_ip_answers_per_switch() {
        let mut src = nb(0);
        let vm = |name: &str| {
            json!({"name": name, "type": "", "addresses": ["set", ["fa:16:3e:00:00:09 10.0.0.10"]],
                "options": ["map", []], "external_ids": ["map", []]})
        };
        src.put(LSP, "a-other", vm("p-other"));
        src.put(LSP, "b-dup", vm("p-dup"));
        src.put(
            LS,
            "ls2",
            json!({"name": "neutron-net2", "external_ids": ["map", []],
            "load_balancer": ["set", []], "ports": ["set", [["uuid", "a-other"]]]}),
        );
        // ls1 also holds b-dup, before lsp-vm in its port order
        src.put(
            LS,
            "ls1",
            json!({"name": "neutron-net1", "external_ids": ["map", []],
            "load_balancer": ["set", [["uuid", "lb1"]]],
            "ports": ["set", [["uuid", "lsp-r"], ["uuid", "b-dup"], ["uuid", "lsp-vm"]]]}),
        );
        let scope = Scope {
            switches: vec!["neutron-net2".into()],
            ..Scope::lb("LB")
        };
        let ip = "10.0.0.10".parse().unwrap();
        // through the index, and by the pass over the ports of a source without it
        for unindexed in [false, true] {
            let src = MemSource {
                tables: src.tables.clone(),
                unindexed,
                ..Default::default()
            };
            let (s, _) = scoped(src, &scope);
            let net1 = s.switch_named("neutron-net1").unwrap();
            let net2 = s.switch_named("neutron-net2").unwrap();
            assert_eq!(s.port_with_ip(net1, ip).as_deref(), Some("p-dup"));
            assert_eq!(s.port_with_ip(net2, ip).as_deref(), Some("p-other"));
        }
    }

    #[test]
    fn widening_adds_switches_from_the_same_source() {
        let src = Arc::new(nb(0));
        let mut s = build(src, &Scope::default(), &|_| Vec::new());
        assert!(s.switches.is_empty());
        s.include_switches(&["neutron-net1".to_string()]);
        assert!(s.switch_named("neutron-net1").is_some());
        assert_eq!(s.routers.len(), 1);
    }

    /// The rows a request decodes and looks at do not grow with unrelated
    /// `Load_Balancer` rows (the bench's +10,000 rows not referenced by any switch/router).
    #[test]
    fn work_is_flat_in_unrelated_rows() {
        let scopes = [
            Scope::lb("LB"),
            Scope::pool("P"),
            Scope {
                lbs: vec!["LB".into()],
                pools: vec!["P".into()],
                switches: vec!["neutron-net1".into()],
                ..Default::default()
            },
            Scope {
                member_ports: vec!["p-vm".into()],
                mapping_keys: vec!["10.0.0.10".into()],
                ..Default::default()
            },
            Scope {
                lbs_on_switches: vec!["neutron-net1".into()],
                ..Default::default()
            },
        ];
        for scope in scopes {
            let (small, small_work) = scoped(nb(0), &scope);
            let (big, big_work) = scoped(nb(10_000), &scope);
            assert_eq!(small.rows(), big.rows(), "{scope:?}");
            assert_eq!(small_work, big_work, "{scope:?}");
            assert!(big.rows() < 10, "{scope:?}");
        }
    }
}
