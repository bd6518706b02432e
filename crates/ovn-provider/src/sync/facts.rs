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

/// What one chunk of a sync asks Neutron, read off the NB snapshot ([`FactsQuery::of`]) so
/// that the asking ([`FactsQuery::fetch`]) needs no snapshot: `keel ovn-db-sync` asks for the
/// next chunk while the current one's transaction and status write run. A chunk's LBs are
/// not touched by another chunk's transaction, so the query stays true across it.
#[derive(Debug, Clone, Default)]
pub struct FactsQuery {
    /// LBs without a row: what `lb_create` needs of each.
    rowless: Vec<LoadBalancer>,
    /// (LB id, VIP port id) of every LB with a VIP port: their floating IPs.
    vip_ports: Vec<(String, String)>,
    /// Every member subnet (own, NB entry or VIP subnet).
    subnets: BTreeSet<String>,
    /// The member subnets of pools with a health monitor (their `ovn-lb-hm-<subnet>` port).
    hm_subnets: BTreeSet<String>,
}

impl FactsQuery {
    /// What `desired` needs from Neutron, given the rows `snap` has.
    pub fn of(snap: &NbSnapshot, desired: &[LoadBalancer]) -> Self {
        let mut q = FactsQuery::default();
        for lb in desired {
            let rows = snap.lbs_named(&lb.loadbalancer_id);
            if rows.is_empty() {
                q.rowless.push(lb.clone());
            }
            if let Some(p) = lb.vip_port_id.as_deref().filter(|p| !p.is_empty()) {
                q.vip_ports
                    .push((lb.loadbalancer_id.clone(), p.to_string()));
            }
            for row in &rows {
                for (_, _, members) in ext::pools(&row.external_ids) {
                    q.subnets.extend(members.into_iter().map(|m| m.subnet_id));
                }
            }
            for p in lb.pools.iter().flatten() {
                for m in p.members.iter().flatten() {
                    if let Some(s) = member_subnet(lb, m, None) {
                        q.subnets.insert(s.clone());
                        if p.healthmonitor.is_some() {
                            q.hm_subnets.insert(s);
                        }
                    }
                }
            }
        }
        q.subnets.remove("");
        q
    }

    /// Ask Neutron, through `ports` (its caches kept for a whole run): the create facts of
    /// the rowless LBs, the VIP floating IPs and the member subnets (with HM ports, created
    /// when `create_hm_ports` and missing), the three side by side. Lookups that fail are
    /// logged and left out (the plan then reports the difference unrepaired).
    pub async fn fetch(&self, ports: &NeutronPorts, create_hm_ports: bool) -> SyncFacts {
        let (lbs, vip_fips, members) = tokio::join!(
            self.lb_facts(ports),
            self.vip_fips(ports.neutron()),
            self.member_facts(ports, create_hm_ports)
        );
        SyncFacts {
            lbs,
            members,
            vip_fips,
        }
    }

    /// What `lb_create` needs for each rowless LB: the VIP ports listed 50 ids a request
    /// ([`NeutronPorts::prefetch_vip_facts`]), then each LB's facts from that cache (a port the
    /// lists missed is looked up alone).
    async fn lb_facts(&self, ports: &NeutronPorts) -> BTreeMap<String, LbCreate> {
        let rowless: Vec<&LoadBalancer> = self.rowless.iter().collect();
        ports.prefetch_vip_facts(&rowless).await;
        let mut out = BTreeMap::new();
        for lb in &self.rowless {
            match ports.lb_create_facts(lb).await {
                Ok(c) => {
                    out.insert(lb.loadbalancer_id.clone(), c);
                }
                Err(e) => {
                    tracing::warn!(lb = %lb.loadbalancer_id, error = %e, "VIP facts not readable")
                }
            }
        }
        out
    }

    /// The VIP floating IP of each LB with a VIP port (the first one Neutron lists for the
    /// port, as one lookup per port would give), read with one list per
    /// [`openstack::neutron::FIP_PORTS_PER_LIST`] ports instead of one per LB. The LBs of a
    /// list that fails are left out (their FIP is not synced).
    async fn vip_fips(&self, neutron: &NeutronClient) -> BTreeMap<String, Option<String>> {
        let mut out = BTreeMap::new();
        for group in self
            .vip_ports
            .chunks(openstack::neutron::FIP_PORTS_PER_LIST)
        {
            let ports: Vec<&str> = group.iter().map(|(_, p)| p.as_str()).collect();
            match neutron.floating_ips_by_ports(&ports).await {
                Ok(fips) => {
                    for (lb, port) in group {
                        let fip = fips
                            .iter()
                            .find(|f| f.port_id.as_deref() == Some(port.as_str()))
                            .map(|f| f.floating_ip_address.to_string());
                        out.insert(lb.clone(), fip);
                    }
                }
                Err(e) => {
                    tracing::warn!(lbs = group.len(), error = %e, "VIP FIPs not readable")
                }
            }
        }
        out
    }

    /// Every member subnet, and the `ovn-lb-hm-<subnet>` source IP of the monitored ones.
    async fn member_facts(&self, ports: &NeutronPorts, create_hm_ports: bool) -> MemberFacts {
        let mut facts = MemberFacts::default();
        for id in &self.subnets {
            let s = match ports.subnet(id).await {
                Ok(s) => s,
                Err(e) => {
                    tracing::warn!(subnet = %id, error = %e, "subnet not readable");
                    continue;
                }
            };
            if self.hm_subnets.contains(id) {
                let port =
                    ports.hm_port(None, &s.id, &s.network_id, &s.project_id, create_hm_ports);
                match port.await {
                    Ok(Some(ip)) => {
                        facts.hm_source.insert(id.clone(), ip.to_string());
                    }
                    Ok(None) => {}
                    Err(e) => tracing::warn!(subnet = %id, error = %e, "no health-monitor port"),
                }
            }
            facts.subnets.insert(
                id.clone(),
                SubnetInfo {
                    id: s.id,
                    network_id: s.network_id,
                    cidr: s.cidr,
                },
            );
        }
        facts
    }
}

/// Read from Neutron what [`crate::sync::plan`] needs for `desired` on `snap`
/// ([`FactsQuery`]: for LBs without a row, the VIP port and the subnet holding the VIP address,
/// as the driver's `lb_create`; every member subnet; for pools with a health monitor, the
/// `ovn-lb-hm-<subnet>` port of each member subnet, created as `hm_create` does when
/// `create_hm_ports` and missing; the VIP floating IPs), with caches of its own.
pub async fn gather_facts(
    neutron: &NeutronClient,
    snap: &NbSnapshot,
    desired: &[LoadBalancer],
    create_hm_ports: bool,
) -> SyncFacts {
    let ports = NeutronPorts::new(neutron.clone(), None);
    FactsQuery::of(snap, desired)
        .fetch(&ports, create_hm_ports)
        .await
}
