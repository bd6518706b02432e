//! `ovn-db-sync`'s Neutron reads ([`gather_facts`]), through the driver's port work
//! ([`NeutronPorts`]).

use std::collections::{BTreeMap, BTreeSet};

use openstack::NeutronClient;
use provider::LoadBalancer;

use crate::external_ids as ext;
use crate::lb::LbCreate;
use crate::member::MemberFacts;
use crate::nb::NbSnapshot;
use crate::plan::SubnetInfo;
use crate::ports::NeutronPorts;
use crate::requests::member_subnet;

/// Neutron facts the repairs need, read before planning ([`gather_facts`]).
#[derive(Debug, Clone, Default)]
pub struct SyncFacts {
    /// What `lb_create` needs (VIP port, subnet), for load balancers without a row, by LB id.
    pub lbs: BTreeMap<String, LbCreate>,
    /// Member subnets, and the `ovn-lb-hm-<subnet>` source IP of subnets monitored by a
    /// health monitor.
    pub members: MemberFacts,
    /// Neutron's floating IP of each LB's VIP port (`_fip_sync`), by LB id: `None` when Neutron
    /// has none; LBs whose FIP was not read (no `vip_port_id`, Neutron error) are absent and
    /// their FIP is not synced.
    pub vip_fips: BTreeMap<String, Option<String>>,
}

/// The VIP floating IP of each LB of `desired` with a VIP port (the first one Neutron lists
/// for the port, as one lookup per port would give), read with one list per
/// [`openstack::neutron::FIP_PORTS_PER_LIST`] ports instead of one per LB. The LBs of a list that
/// fails are left out (their FIP is not synced).
async fn vip_fips(neutron: &NeutronClient, desired: &[LoadBalancer], facts: &mut SyncFacts) {
    let with_port: Vec<(&str, &str)> = desired
        .iter()
        .filter_map(|lb| {
            lb.vip_port_id
                .as_deref()
                .filter(|p| !p.is_empty())
                .map(|p| (lb.loadbalancer_id.as_str(), p))
        })
        .collect();
    for group in with_port.chunks(openstack::neutron::FIP_PORTS_PER_LIST) {
        let ports: Vec<&str> = group.iter().map(|(_, p)| *p).collect();
        match neutron.floating_ips_by_ports(&ports).await {
            Ok(fips) => {
                for (lb, port) in group {
                    let fip = fips
                        .iter()
                        .find(|f| f.port_id.as_deref() == Some(*port))
                        .map(|f| f.floating_ip_address.to_string());
                    facts.vip_fips.insert((*lb).to_string(), fip);
                }
            }
            Err(e) => {
                tracing::warn!(lbs = group.len(), error = %e, "VIP FIPs not readable")
            }
        }
    }
}

/// Read from Neutron ([`NeutronPorts`], the driver's port work) what [`crate::sync::plan`] needs: for LBs
/// of `desired` without a row, the VIP port and the subnet holding the VIP address (as the
/// driver's `lb_create`; listed 50 ids a request, [`NeutronPorts::prefetch_vip_facts`]); every member subnet (own, NB entry or VIP subnet); for pools with a health monitor, the `ovn-lb-hm-<subnet>` port of each
/// member subnet, created (as `hm_create` does) when `create_hm_ports` and missing. Lookups
/// that fail are logged and left out (the plan then reports the difference unrepaired).
pub async fn gather_facts(
    neutron: &NeutronClient,
    snap: &NbSnapshot,
    desired: &[LoadBalancer],
    create_hm_ports: bool,
) -> SyncFacts {
    let ports = NeutronPorts::new(neutron.clone(), None);
    let mut facts = SyncFacts::default();
    let mut subnets: BTreeSet<String> = BTreeSet::new();
    let mut hm_subnets: BTreeSet<String> = BTreeSet::new();
    let rowless: Vec<&LoadBalancer> = desired
        .iter()
        .filter(|lb| snap.lbs_named(&lb.loadbalancer_id).is_empty())
        .collect();
    ports.prefetch_vip_facts(&rowless).await;
    for lb in desired {
        let id = &lb.loadbalancer_id;
        let rows = snap.lbs_named(id);
        if rows.is_empty() {
            match ports.lb_create_facts(lb).await {
                Ok(c) => {
                    facts.lbs.insert(id.clone(), c);
                }
                Err(e) => tracing::warn!(lb = %id, error = %e, "VIP facts not readable"),
            }
        }
        for row in &rows {
            for (_, _, members) in ext::pools(&row.external_ids) {
                subnets.extend(members.into_iter().map(|m| m.subnet_id));
            }
        }
        for p in lb.pools.iter().flatten() {
            for m in p.members.iter().flatten() {
                if let Some(s) = member_subnet(lb, m, None) {
                    subnets.insert(s.clone());
                    if p.healthmonitor.is_some() {
                        hm_subnets.insert(s);
                    }
                }
            }
        }
    }
    vip_fips(neutron, desired, &mut facts).await;
    subnets.remove("");
    for id in &subnets {
        match ports.subnet(id).await {
            Ok(s) => {
                if hm_subnets.contains(id) {
                    let port =
                        ports.hm_port(None, &s.id, &s.network_id, &s.project_id, create_hm_ports);
                    match port.await {
                        Ok(Some(ip)) => {
                            facts.members.hm_source.insert(id.clone(), ip.to_string());
                        }
                        Ok(None) => {}
                        Err(e) => {
                            tracing::warn!(subnet = %id, error = %e, "no health-monitor port")
                        }
                    }
                }
                facts.members.subnets.insert(
                    id.clone(),
                    SubnetInfo {
                        id: s.id,
                        network_id: s.network_id,
                        cidr: s.cidr,
                    },
                );
            }
            Err(e) => tracing::warn!(subnet = %id, error = %e, "subnet not readable"),
        }
    }
    facts
}
