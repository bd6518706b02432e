//! Neutron facts the driver may remember between requests.
//!
//! The reference asks Neutron for a member's subnet on every member/pool/health-monitor call
//! and lists the `ovn-lb-hm-<subnet>` port on every health-monitor call: each a REST round
//! trip of 40–100 ms, most of a member create's time. Keel remembers:
//!
//! * subnets: `network_id`, `cidr` and `project_id` cannot change on a Neutron subnet, so a
//!   subnet read once is good until the process ends (a deleted subnet's entry is harmless:
//!   nothing can be created on it);
//! * health-monitor ports by subnet: the port id and source IP. An entry is used only while the
//!   NB replica still holds the port's `Logical_Switch_Port` (Neutron's row for that port id),
//!   and is forgotten when the driver deletes the port; otherwise Neutron is asked, as the
//!   reference does.
//!
//! Both maps are bounded ([`MAX_ENTRIES`]): when full they are cleared, which only costs
//! Neutron round trips.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;

use openstack::Subnet;

/// Entries per map before it is cleared.
pub const MAX_ENTRIES: usize = 16_384;

/// A known `ovn-lb-hm-<subnet>` port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HmPort {
    /// Neutron port id (= its `Logical_Switch_Port` name).
    pub port_id: String,
    /// Its address in the subnet: the health checks' source IP.
    pub ip: IpAddr,
}

/// Remembered subnets and health-monitor ports (see the module doc).
#[derive(Debug, Default)]
pub struct FactCache {
    subnets: Mutex<HashMap<String, Subnet>>,
    hm_ports: Mutex<HashMap<String, HmPort>>,
}

fn put<V>(map: &Mutex<HashMap<String, V>>, key: &str, value: V) {
    if let Ok(mut m) = map.lock() {
        if m.len() >= MAX_ENTRIES && !m.contains_key(key) {
            m.clear();
        }
        m.insert(key.to_owned(), value);
    }
}

impl FactCache {
    /// The subnet read earlier, if any.
    pub fn subnet(&self, id: &str) -> Option<Subnet> {
        self.subnets.lock().ok()?.get(id).cloned()
    }

    /// Remember a subnet Neutron returned.
    pub fn remember_subnet(&self, subnet: &Subnet) {
        put(&self.subnets, &subnet.id, subnet.clone());
    }

    /// The HM port of `subnet_id`, if one was seen and `exists(port_id)` (the replica holds
    /// its switch port); a stale entry is forgotten.
    pub fn hm_port(&self, subnet_id: &str, exists: impl Fn(&str) -> bool) -> Option<HmPort> {
        let mut m = self.hm_ports.lock().ok()?;
        let port = m.get(subnet_id)?.clone();
        if exists(&port.port_id) {
            Some(port)
        } else {
            m.remove(subnet_id);
            None
        }
    }

    /// Remember the HM port of `subnet_id`.
    pub fn remember_hm_port(&self, subnet_id: &str, port: HmPort) {
        put(&self.hm_ports, subnet_id, port);
    }

    /// Forget the HM port of `subnet_id` (the driver deleted it).
    pub fn forget_hm_port(&self, subnet_id: &str) {
        if let Ok(mut m) = self.hm_ports.lock() {
            m.remove(subnet_id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subnet(id: &str) -> Subnet {
        serde_json::from_value(serde_json::json!({
            "id": id, "name": "", "network_id": "net", "project_id": "p",
            "cidr": "10.0.0.0/24", "ip_version": 4, "gateway_ip": null
        }))
        .unwrap()
    }

    #[test]
    fn subnets_are_remembered() {
        let c = FactCache::default();
        assert!(c.subnet("s1").is_none());
        c.remember_subnet(&subnet("s1"));
        assert_eq!(c.subnet("s1").unwrap().network_id, "net");
    }

    #[test]
    fn hm_port_needs_its_switch_port_and_can_be_forgotten() {
        let c = FactCache::default();
        let port = HmPort {
            port_id: "p1".into(),
            ip: "10.0.0.2".parse().unwrap(),
        };
        c.remember_hm_port("s1", port.clone());
        assert_eq!(c.hm_port("s1", |id| id == "p1"), Some(port.clone()));
        // gone from the replica: forgotten, even if it comes back
        assert_eq!(c.hm_port("s1", |_| false), None);
        assert_eq!(c.hm_port("s1", |_| true), None);
        c.remember_hm_port("s1", port);
        c.forget_hm_port("s1");
        assert_eq!(c.hm_port("s1", |_| true), None);
    }

    #[test]
    fn maps_are_bounded() {
        let c = FactCache::default();
        for i in 0..=MAX_ENTRIES {
            c.remember_subnet(&subnet(&format!("s{i}")));
        }
        let n = c.subnets.lock().unwrap().len();
        assert!(n <= MAX_ENTRIES, "{n}");
        assert!(c.subnet(&format!("s{MAX_ENTRIES}")).is_some());
    }
}
