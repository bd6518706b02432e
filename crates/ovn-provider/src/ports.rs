//! Neutron port work of the OVN provider (seed 000 §2.1, §5.1 step 6, §6): VIP ports
//! (`create_vip_port`, `ovn-lb-vip-<lb>`), health-monitor source ports (`ovn-lb-hm-<subnet>`),
//! member FIP recompute (`handle_member_dvr`), and the Neutron facts a load balancer create or
//! a member change needs. [`NeutronPorts`] is used by the driver (`driver.rs`) and by
//! `ovn-db-sync` (`sync.rs`); it owns the caches that save Neutron round trips
//! ([`crate::facts`], the VIP facts of a just-made port).

use std::collections::{BTreeSet, HashMap};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use openstack::{
    FixedIpRequest, ListFilter, NeutronClient, NeutronError, Port, PortCreate, Subnet,
};
use provider::{AdditionalVip, LoadBalancer, Vip};

use crate::error::JobError;
use crate::external_ids as ext;
use crate::facts::{FactCache, HmPort};
use crate::hm::{self, HM_PORT_DEVICE_OWNER};
use crate::lb::LbCreate;
use crate::member::MemberFacts;
use crate::nb::NbSnapshot;
use crate::ovsdb_nb::NbDatabase;
use crate::plan::SubnetInfo;
use crate::scope::Scope;

/// Name prefix of provider-created VIP ports.
pub const VIP_PORT_PREFIX: &str = "ovn-lb-vip-";
/// Name prefix of additional VIP ports (`ovn-lb-vip-additional-<n>-<lb id>`).
pub const ADDITIONAL_VIP_PORT_PREFIX: &str = "ovn-lb-vip-additional-";
/// `device_owner` the reference (ovn-octavia-provider 11.0.0, `helper.py` `create_vip_port`)
/// gives its VIP ports. Keel creates its VIP ports WITHOUT a `device_owner` (see
/// [`NeutronPorts::create_vip_port`]); this value is still recognised on ports the reference
/// made (the orphan sweep, the maintenance task).
pub const VIP_PORT_DEVICE_OWNER: &str = "ovn-lb:vip";
/// Prefix of the deployment tag of every VIP port Keel creates: `keel-deployment:<id>`, `<id>`
/// the deployment identity its Octavia database holds (octavia-db `keel_objects`), written
/// as the port's `description` in the port create itself (Neutron 29 takes no `tags` in a
/// port create; tagging afterwards would leave a window with an unmarked port). The orphan
/// port sweep and `ovn-db-sync`'s purge act only on ports carrying their own deployment's
/// tag; ports without it (the Python provider's, older Keel's) are never swept.
pub const DEPLOYMENT_TAG_PREFIX: &str = "keel-deployment:";

/// The deployment tag of `deployment_id` ([`DEPLOYMENT_TAG_PREFIX`]).
pub fn deployment_tag(deployment_id: &str) -> String {
    format!("{DEPLOYMENT_TAG_PREFIX}{deployment_id}")
}

/// `Logical_Switch_Port.external_ids` key (written by Neutron): the port's Neutron name.
pub const PORT_NAME: &str = "neutron:port_name";
/// `Logical_Switch_Port.external_ids` key (written by Neutron): the floating IP of the port.
pub const PORT_FIP: &str = "neutron:port_fip";

fn ip(s: &Option<String>) -> Option<IpAddr> {
    s.as_deref().and_then(|a| a.parse().ok())
}

/// `Ok(Some)` for a found resource, `Ok(None)` for any failure but Neutron being down.
fn found<T>(r: Result<T, NeutronError>) -> Result<Option<T>, NeutronError> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(e) if e.is_unavailable() => Err(e),
        Err(_) => Ok(None),
    }
}

/// What `create_vip_port` learnt from Neutron (ids, fixed IPs, network, CIDR: facts that do
/// not change under the LB create that follows within milliseconds).
struct VipFacts {
    at: Instant,
    port: Port,
    subnet: Option<Subnet>,
}

/// Entries of [`NeutronPorts`]' VIP facts older than this are dropped (an LB create rolled
/// back).
const VIP_FACTS_TTL: Duration = Duration::from_secs(60);

/// Neutron port work over one Neutron client (service credentials), with the caches that
/// spare repeated reads (subnets, HM ports, the VIP port just made).
pub struct NeutronPorts {
    neutron: NeutronClient,
    /// The deployment tag ([`deployment_tag`]) every VIP port made here carries.
    vip_tag: Option<String>,
    /// The VIP port (and its subnet) `create_vip_port` just made, by LB id: the queued LB
    /// create reads them instead of asking Neutron again (the port GET and subnet
    /// GET the reference makes there were ~2 round trips on top of the port create).
    vip_facts: Mutex<HashMap<String, VipFacts>>,
    /// Subnets and HM ports remembered between requests ([`crate::facts`]).
    facts: FactCache,
}

impl std::fmt::Debug for NeutronPorts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NeutronPorts")
            .field("neutron", &self.neutron)
            .finish()
    }
}

fn vip_port_create(
    tag: Option<&str>,
    lb_id: &str,
    project_id: &str,
    name: String,
    network: Option<String>,
    subnet: Option<String>,
    address: Option<IpAddr>,
) -> PortCreate {
    let fixed = match (subnet, address) {
        (None, None) => None,
        (s, a) => Some(vec![FixedIpRequest {
            subnet_id: s,
            ip_address: a,
        }]),
    };
    PortCreate {
        network_id: network.unwrap_or_default(),
        name: Some(name),
        fixed_ips: fixed,
        // No device_owner, unlike the reference: Neutron's OVN driver
        // (ovn_client.py `_get_port_options`/`update_port`, bug 1789686) leaves the switch
        // port of an unbound `ovn-lb-vip-*` port without `addresses` only when it has no
        // device_owner. With `["<MAC> <VIP>"]` a client on the VIP's own subnet resolves the
        // VIP to that never-bound port and, after ct_lb, the L2 lookup delivers there: 0
        // connections. device_id `lb-<id>` still marks the port in use (Nova refuses it).
        device_owner: None,
        device_id: Some(format!("lb-{lb_id}")),
        admin_state_up: Some(true),
        project_id: Some(project_id.to_string()).filter(|p| !p.is_empty()),
        description: tag.map(String::from),
        ..Default::default()
    }
}

impl NeutronPorts {
    /// Port work over `neutron`, caches empty; `vip_tag` marks every VIP port made here.
    pub fn new(neutron: NeutronClient, vip_tag: Option<String>) -> Self {
        Self {
            neutron,
            vip_tag,
            vip_facts: Mutex::new(HashMap::new()),
            facts: FactCache::default(),
        }
    }

    /// The Neutron client (service credentials).
    pub fn neutron(&self) -> &NeutronClient {
        &self.neutron
    }

    /// `create_vip_port` (seed 000 §2.1): the VIP port `ovn-lb-vip-<lb>` (or the given
    /// `vip_port_id`'s port) and one `ovn-lb-vip-additional-<n>-<lb>` port per additional VIP,
    /// no `device_owner` (the reference: `ovn-lb:vip`; see `vip_port_create`), `device_id`
    /// `lb-<lb>`; returns the VIPs with port ids,
    /// addresses, subnets and networks filled in. On any failure the ports made here are
    /// deleted again and Neutron's error is returned (409: address in use).
    pub async fn create_vip_port(
        &self,
        loadbalancer_id: &str,
        project_id: &str,
        mut vip: Vip,
        additional_vips: Vec<AdditionalVip>,
    ) -> Result<(Vip, Vec<AdditionalVip>), NeutronError> {
        let neutron = &self.neutron;
        let mut created: Vec<String> = Vec::new();
        let result: Result<(Vip, Vec<AdditionalVip>), NeutronError> = async {
            let port = if let Some(id) = vip.vip_port_id.clone().filter(|s| !s.is_empty()) {
                neutron.get_port(&id).await?
            } else {
                let req = vip_port_create(
                    self.vip_tag.as_deref(),
                    loadbalancer_id,
                    project_id,
                    format!("{VIP_PORT_PREFIX}{loadbalancer_id}"),
                    vip.vip_network_id.clone(),
                    vip.vip_subnet_id.clone(),
                    ip(&vip.vip_address),
                );
                // the subnet GET the queued LB create needs overlaps the port create
                let subnet_get = async {
                    match vip.vip_subnet_id.as_deref().filter(|s| !s.is_empty()) {
                        Some(id) => neutron.get_subnet(id).await.ok(),
                        None => None,
                    }
                };
                let (p, subnet) = tokio::join!(self.create_port(req), subnet_get);
                let p = p?;
                created.push(p.id.clone());
                if let Ok(mut m) = self.vip_facts.lock() {
                    m.retain(|_, f| f.at.elapsed() < VIP_FACTS_TTL);
                    m.insert(
                        loadbalancer_id.to_string(),
                        VipFacts {
                            at: Instant::now(),
                            port: p.clone(),
                            subnet,
                        },
                    );
                }
                p
            };
            vip.vip_port_id = Some(port.id.clone());
            if let Some(f) = port.fixed_ips.first() {
                vip.vip_address = Some(f.ip_address.to_string());
                vip.vip_subnet_id.get_or_insert_with(|| f.subnet_id.clone());
            }
            vip.vip_network_id
                .get_or_insert_with(|| port.network_id.clone());
            let mut out = Vec::new();
            for (n, a) in additional_vips.iter().enumerate() {
                let req = vip_port_create(
                    self.vip_tag.as_deref(),
                    loadbalancer_id,
                    project_id,
                    format!("{VIP_PORT_PREFIX}additional-{}-{loadbalancer_id}", n + 1),
                    a.network_id.clone().or_else(|| vip.vip_network_id.clone()),
                    a.subnet_id.clone(),
                    ip(&a.ip_address),
                );
                let p = self.create_port(req).await?;
                created.push(p.id.clone());
                let f = p.fixed_ips.first();
                out.push(AdditionalVip {
                    ip_address: f.map(|f| f.ip_address.to_string()),
                    network_id: Some(p.network_id.clone()),
                    port_id: Some(p.id.clone()),
                    subnet_id: f.map(|f| f.subnet_id.clone()),
                });
            }
            Ok((vip, out))
        }
        .await;
        match result {
            Ok(v) => Ok(v),
            Err(e) => {
                for id in created {
                    if let Err(de) = neutron.delete_port(&id).await {
                        tracing::warn!(port = %id, error = %de, "could not delete VIP port after failed create_vip_port");
                    }
                }
                Err(e)
            }
        }
    }

    /// Deletes the VIP ports `create_vip_port` made for a load balancer whose create the API
    /// then refused; an already deleted port counts as deleted. Returns the last failure.
    pub async fn delete_vip_ports(
        &self,
        loadbalancer_id: &str,
        port_ids: Vec<String>,
    ) -> Result<(), NeutronError> {
        if let Ok(mut m) = self.vip_facts.lock() {
            m.remove(loadbalancer_id);
        }
        let mut failed = None;
        for id in port_ids {
            // an already deleted port is what we want
            if let Err(e) = self.neutron.delete_port(&id).await {
                tracing::warn!(port = %id, error = %e, "could not delete the VIP port of a refused load balancer create");
                failed = Some(e);
            }
        }
        match failed {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The VIP subnet of the LB owning `pool_id` (id and CIDR), through the row's VIP port;
    /// `Ok(None)` when the row, its VIP port or the subnet is not found. Errors: Neutron down
    /// ([`NeutronError::is_unavailable`]).
    pub async fn vip_subnet_of_pool(
        &self,
        snap: &NbSnapshot,
        pool_id: &str,
    ) -> Result<Option<SubnetInfo>, NeutronError> {
        let Some((row, _)) = snap.lb_by_pool(pool_id) else {
            return Ok(None);
        };
        let (Some(port_id), Some(vip)) = (
            row.external_ids.get(ext::VIP_PORT_ID),
            row.external_ids
                .get(ext::VIP)
                .and_then(|v| v.parse::<IpAddr>().ok()),
        ) else {
            return Ok(None);
        };
        let Some(port) = found(self.neutron.get_port(port_id).await)? else {
            return Ok(None);
        };
        let Some(fip) = port.fixed_ips.iter().find(|f| f.ip_address == vip) else {
            return Ok(None);
        };
        let Some(subnet) = found(self.neutron.get_subnet(&fip.subnet_id).await)? else {
            return Ok(None);
        };
        Ok(Some(SubnetInfo {
            id: subnet.id,
            network_id: subnet.network_id,
            cidr: subnet.cidr,
        }))
    }

    /// Create a port; on 409 reuse the port of that name on that network (a previous
    /// attempt may have made it).
    pub async fn create_port(&self, req: PortCreate) -> Result<Port, NeutronError> {
        let name = req.name.clone().unwrap_or_default();
        let network = req.network_id.clone();
        match self.neutron.create_port(&req).await {
            Err(e) if e.is_conflict() => {
                // a previous attempt may have created it: reuse the port of that name
                let f = ListFilter::new().eq("name", name).eq("network_id", network);
                match self.neutron.list_ports(&f).await {
                    Ok(mut ports) if !ports.is_empty() => Ok(ports.remove(0)),
                    _ => Err(e),
                }
            }
            other => other,
        }
    }

    /// `handle_member_dvr`, member deleted: Neutron's "empty update" (the FIP's own
    /// description written back) of every floating IP of `ports`, so Neutron recomputes the NAT
    /// row (restoring `external_mac`/`logical_port` where DVR applies). Failures are logged:
    /// the member is gone either way.
    pub async fn recompute_member_fips(&self, ports: &[String]) {
        for port in ports {
            let fips = match self.neutron.floating_ips_by_port(port).await {
                Ok(f) => f,
                Err(e) => {
                    tracing::warn!(port = %port, error = %e, "member FIP lookup failed");
                    continue;
                }
            };
            for f in fips {
                if let Err(e) = self
                    .neutron
                    .update_floating_ip_description(&f.id, &f.description)
                    .await
                {
                    tracing::warn!(fip = %f.id, error = %e, "member FIP recompute failed");
                }
            }
        }
    }

    /// Read the VIP ports of `lbs` (those naming a `vip_port_id`) and the subnets holding their
    /// VIP addresses in lists of 50 ids ([`NeutronClient::ports_by_ids`],
    /// [`NeutronClient::subnets_by_ids`]), so that the [`NeutronPorts::lb_create_facts`] of
    /// each that follow ask Neutron nothing (`ovn-db-sync` creating many rows). A failed list
    /// is logged and leaves those LBs to their own reads.
    pub async fn prefetch_vip_facts(&self, lbs: &[&LoadBalancer]) {
        let n = &self.neutron;
        let wanted: Vec<(&str, &str)> = lbs
            .iter()
            .filter_map(|lb| {
                let port = lb.vip_port_id.as_deref().filter(|p| !p.is_empty())?;
                Some((lb.loadbalancer_id.as_str(), port))
            })
            .collect();
        if wanted.is_empty() {
            return;
        }
        let ids: Vec<&str> = wanted.iter().map(|(_, p)| *p).collect();
        let ports: HashMap<String, Port> = match n.ports_by_ids(&ids).await {
            Ok(v) => v.into_iter().map(|p| (p.id.clone(), p)).collect(),
            Err(e) => {
                tracing::warn!(error = %e, "VIP ports not listable: read one by one");
                return;
            }
        };
        let subnet_ids: BTreeSet<&str> = ports
            .values()
            .flat_map(|p| p.fixed_ips.iter().map(|f| f.subnet_id.as_str()))
            .filter(|s| !s.is_empty() && self.facts.subnet(s).is_none())
            .collect();
        let ids: Vec<&str> = subnet_ids.into_iter().collect();
        match n.subnets_by_ids(&ids).await {
            Ok(v) => v.iter().for_each(|s| self.facts.remember_subnet(s)),
            Err(e) => tracing::warn!(error = %e, "VIP subnets not listable: read one by one"),
        }
        let Ok(mut m) = self.vip_facts.lock() else {
            return;
        };
        for (lb, port) in wanted {
            let Some(p) = ports.get(port) else { continue };
            let vip = lbs
                .iter()
                .find(|l| l.loadbalancer_id == lb)
                .and_then(|l| l.vip_address.as_deref())
                .and_then(|a| a.parse::<IpAddr>().ok());
            let subnet = p
                .fixed_ips
                .iter()
                .find(|f| Some(f.ip_address) == vip)
                .and_then(|f| self.facts.subnet(&f.subnet_id));
            m.insert(
                lb.to_string(),
                VipFacts {
                    at: Instant::now(),
                    port: p.clone(),
                    subnet,
                },
            );
        }
    }

    /// The Neutron facts of a load balancer create (seed 000 §2.2): its VIP port (the given
    /// `vip_port_id`, else the port holding the VIP address on the VIP network) and the subnet
    /// holding the VIP address; from the VIP facts `create_vip_port` left when they match.
    /// Errors: Neutron, or [`JobError::Facts`] when the model or Neutron lacks what is needed.
    pub async fn lb_create_facts(&self, lb: &LoadBalancer) -> Result<LbCreate, JobError> {
        let n = &self.neutron;
        let vip: IpAddr = lb
            .vip_address
            .as_deref()
            .and_then(|a| a.parse().ok())
            .ok_or(JobError::Facts("load balancer without a valid vip_address"))?;
        let cached = self
            .vip_facts
            .lock()
            .ok()
            .and_then(|mut m| m.remove(&lb.loadbalancer_id));
        let port = match lb.vip_port_id.as_deref().filter(|s| !s.is_empty()) {
            Some(id) => match cached.as_ref().filter(|c| c.port.id == id) {
                Some(c) => c.port.clone(),
                None => n.get_port(id).await?,
            },
            None => {
                let net = lb.vip_network_id.clone().unwrap_or_default();
                let f = ListFilter::new()
                    .eq("network_id", net)
                    .fixed_ip_address(vip);
                n.list_ports(&f)
                    .await?
                    .into_iter()
                    .next()
                    .ok_or(JobError::Facts("VIP port not found"))?
            }
        };
        let fip = port
            .fixed_ips
            .iter()
            .find(|f| f.ip_address == vip)
            .ok_or(JobError::Facts("VIP address not on its port"))?;
        let subnet = match cached
            .and_then(|c| c.subnet)
            .filter(|s| s.id == fip.subnet_id)
        {
            Some(s) => s,
            None => n.get_subnet(&fip.subnet_id).await?,
        };
        // members usually sit on the VIP subnet: their create needs no read of it again
        self.facts.remember_subnet(&subnet);
        Ok(LbCreate {
            id: lb.loadbalancer_id.clone(),
            vip_address: vip.to_string(),
            vip_port_id: port.id.clone(),
            vip_subnet: SubnetInfo {
                id: subnet.id,
                network_id: subnet.network_id,
                cidr: subnet.cidr,
            },
            enabled: lb.admin_state_up.unwrap_or(true),
            additional_vips: lb
                .additional_vips
                .iter()
                .flatten()
                .filter_map(|a| Some((a.ip_address.clone()?, a.port_id.clone()?)))
                .collect(),
            flavor: crate::flavor::OvnFlavor::from_metadata(lb.flavor.as_ref()),
        })
    }

    /// Subnets by id, and (when `with_hm_ports`) the HM source IP of each subnet, creating the
    /// `ovn-lb-hm-<subnet>` port on first use. A subnet in `given` (as the API read it for the
    /// request: [`provider::Member::subnet`]) is taken as it is, else [`NeutronPorts::subnet`].
    pub async fn member_facts(
        &self,
        snap: &NbSnapshot,
        subnet_ids: &[String],
        given: &[provider::Subnet],
        with_hm_ports: bool,
    ) -> MemberFacts {
        let mut facts = MemberFacts::default();
        for id in subnet_ids {
            if id.is_empty() || facts.subnets.contains_key(id) {
                continue;
            }
            let read = match given.iter().find(|g| g.id == *id) {
                Some(g) => Ok(self.remember_given(g)),
                None => self.subnet(id).await,
            };
            match read {
                Ok(s) => {
                    facts.subnets.insert(
                        id.clone(),
                        SubnetInfo {
                            id: s.id.clone(),
                            network_id: s.network_id.clone(),
                            cidr: s.cidr.clone(),
                        },
                    );
                    if with_hm_ports {
                        match self
                            .ensure_hm_port(snap, &s.id, &s.network_id, &s.project_id)
                            .await
                        {
                            Ok(ip) => {
                                facts.hm_source.insert(id.clone(), ip.to_string());
                            }
                            Err(e) => {
                                tracing::error!(subnet = %id, error = %e, "no health-monitor port")
                            }
                        }
                    }
                }
                Err(e) => tracing::warn!(subnet = %id, error = %e, "subnet not readable"),
            }
        }
        facts
    }

    /// The subnet a request carried ([`provider::Member::subnet`]) as Neutron's, remembered
    /// ([`crate::facts`]) for the requests that follow (a pool delete, a monitor create).
    fn remember_given(&self, g: &provider::Subnet) -> Subnet {
        let s = Subnet {
            id: g.id.clone(),
            network_id: g.network_id.clone(),
            project_id: g.project_id.clone(),
            cidr: g.cidr.clone(),
            ip_version: g.ip_version,
            gateway_ip: g.gateway_ip.as_deref().and_then(|a| a.parse().ok()),
            ..Subnet::default()
        };
        self.facts.remember_subnet(&s);
        s
    }

    /// A subnet by id: remembered ([`crate::facts`]), else read from Neutron; remembered.
    /// Errors: Neutron's (404 `NotFound`, unavailable).
    pub async fn subnet(&self, id: &str) -> Result<Subnet, NeutronError> {
        if let Some(s) = self.facts.subnet(id) {
            return Ok(s);
        }
        let s = self.neutron.get_subnet(id).await?;
        self.facts.remember_subnet(&s);
        Ok(s)
    }

    /// The source IP of `subnet_id`'s `ovn-lb-hm-<subnet>` port, creating the port on first
    /// use ([`NeutronPorts::hm_port`]).
    pub async fn ensure_hm_port(
        &self,
        snap: &NbSnapshot,
        subnet_id: &str,
        network_id: &str,
        project_id: &str,
    ) -> Result<IpAddr, NeutronError> {
        self.hm_port(Some(snap), subnet_id, network_id, project_id, true)
            .await?
            .ok_or_else(|| NeutronError::Decode("HM port without address in its subnet".into()))
    }

    /// The source IP of `subnet_id`'s `ovn-lb-hm-<subnet>` port (seed 000 §6): remembered and
    /// still in `snap`'s replica (no REST call), else Neutron's port of that name on
    /// `network_id`, else, when `create`, a new port (`device_owner` `ovn-lb-hm:distributed`,
    /// port security off, project `project_id`, MAC = the NB's `svc_monitor_mac` when free). `Ok(None)`: no port (and not `create`), or a
    /// port without an address in the subnet.
    pub async fn hm_port(
        &self,
        snap: Option<&NbSnapshot>,
        subnet_id: &str,
        network_id: &str,
        project_id: &str,
        create: bool,
    ) -> Result<Option<IpAddr>, NeutronError> {
        // Known and still in the replica (Neutron's switch port of that port id): no REST call.
        let in_replica = |port_id: &str| {
            snap.and_then(|s| s.source.as_ref())
                .is_some_and(|s| !s.0.named("Logical_Switch_Port", port_id).is_empty())
        };
        if let Some(p) = self.facts.hm_port(subnet_id, in_replica) {
            return Ok(Some(p.ip));
        }
        let name = hm::hm_port_name(subnet_id);
        let f = ListFilter::new()
            .eq("name", name.clone())
            .eq("network_id", network_id.to_string());
        let existing = self.neutron.list_ports(&f).await?;
        if let Some((id, ip)) = existing
            .iter()
            .find_map(|p| Some((p.id.clone(), p.ip_in_subnet(subnet_id)?)))
        {
            let known = HmPort { port_id: id, ip };
            self.facts.remember_hm_port(subnet_id, known);
            return Ok(Some(ip));
        }
        if !create {
            return Ok(None);
        }
        let mut req = PortCreate {
            network_id: network_id.to_string(),
            name: Some(name.clone()),
            fixed_ips: Some(vec![FixedIpRequest::subnet(subnet_id)]),
            device_owner: Some(HM_PORT_DEVICE_OWNER.into()),
            device_id: Some(name),
            admin_state_up: Some(true),
            port_security_enabled: Some(false),
            project_id: Some(project_id.to_string()).filter(|p| !p.is_empty()),
            mac_address: snap
                .and_then(|s| s.source.as_ref())
                .and_then(|s| s.0.svc_monitor_mac()),
            ..Default::default()
        };
        // The probes leave from the port's IP with `svc_monitor_mac` as source MAC, while the
        // port's own switch port answers ARP for that IP with the port's MAC: a member that
        // learnt the latter sends its replies to a port nobody binds and the probe times out
        // (member ERROR while it serves). One MAC for both ends that race. A second subnet of
        // the same network cannot reuse the MAC (409) and falls back to Neutron's.
        let port = match self.neutron.create_port(&req).await {
            Err(e) if req.mac_address.is_some() && (e.is_conflict() || e.status() == Some(403)) => {
                tracing::info!(subnet = subnet_id, error = %e, "HM port: svc_monitor_mac refused, Neutron's MAC used");
                req.mac_address = None;
                self.neutron.create_port(&req).await?
            }
            r => r?,
        };
        let Some(ip) = port.ip_in_subnet(subnet_id) else {
            return Ok(None);
        };
        let known = HmPort {
            port_id: port.id.clone(),
            ip,
        };
        self.facts.remember_hm_port(subnet_id, known);
        Ok(Some(ip))
    }

    /// Delete the `ovn-lb-hm-<subnet>` ports no row maps a member through any more.
    pub async fn cleanup_hm_ports(&self, nb: &dyn NbDatabase, subnets: &[String]) {
        for s in subnets {
            let Some(ports) = self.hm_ports_of(nb, s).await else {
                continue;
            };
            // rows using a subnet's HM port have a member on that subnet's switch
            let scope = Scope {
                lbs_on_switches: ports.iter().map(|p| ext::ovn_name(&p.1)).collect(),
                ..Default::default()
            };
            let Ok(snap) = nb.snapshot(&scope).await else {
                return;
            };
            for (id, _, ips) in ports {
                if ips
                    .iter()
                    .any(|ip| snap.hm_source_in_use(&ip.to_string(), None))
                {
                    continue;
                }
                self.facts.forget_hm_port(s);
                if let Err(e) = self.neutron.delete_port(&id).await {
                    tracing::warn!(port = %id, error = %e, "could not delete HM port");
                }
            }
        }
    }

    /// The `ovn-lb-hm-<subnet>` ports of `subnet`: (port id, network id, addresses). From the
    /// fact cache when the port and its subnet are known and the NB replica still holds the
    /// port's switch port; else Neutron's port list by name (`None` when that fails).
    async fn hm_ports_of(
        &self,
        nb: &dyn NbDatabase,
        subnet: &str,
    ) -> Option<Vec<(String, String, Vec<IpAddr>)>> {
        let known = self.facts.subnet(subnet).and_then(|sub| {
            let p = self.facts.hm_port(subnet, |_| true)?;
            Some((p, sub.network_id))
        });
        if let Some((p, network_id)) = known {
            let in_replica = nb
                .snapshot(&Scope::default())
                .await
                .ok()
                .and_then(|snap| snap.source)
                .is_some_and(|src| !src.0.named("Logical_Switch_Port", &p.port_id).is_empty());
            if in_replica {
                return Some(vec![(p.port_id, network_id, vec![p.ip])]);
            }
        }
        let f = ListFilter::new().eq("name", hm::hm_port_name(subnet));
        let ports = self.neutron.list_ports(&f).await.ok()?;
        Some(
            ports
                .into_iter()
                .map(|p| {
                    let ips = p.fixed_ips.iter().map(|f| f.ip_address).collect();
                    (p.id, p.network_id, ips)
                })
                .collect(),
        )
    }

    /// Delete the VIP port when the provider made it (`ovn-lb-vip-` name), and every
    /// additional VIP port. The name is read from the port's switch port in the NB replica
    /// (`external_ids:neutron:port_name`, written by Neutron) when `snap` holds it; from
    /// Neutron otherwise.
    pub async fn delete_vip_ports_if_ours(
        &self,
        snap: Option<&NbSnapshot>,
        vip_port: Option<&str>,
        additional: &[String],
    ) {
        if let Some(id) = vip_port.filter(|s| !s.is_empty()) {
            let replica_name = snap.and_then(|s| s.source.as_ref()).and_then(|src| {
                let uuid = src.0.named("Logical_Switch_Port", id).into_iter().next()?;
                src.0
                    .map_get("Logical_Switch_Port", &uuid, "external_ids", PORT_NAME)
            });
            let read = match replica_name {
                Some(name) => Ok(name),
                None => self.neutron.get_port(id).await.map(|p| p.name),
            };
            match read {
                Ok(name) if name.starts_with(VIP_PORT_PREFIX) => {
                    if let Err(e) = self.neutron.delete_port(id).await {
                        tracing::warn!(port = %id, error = %e, "could not delete VIP port");
                    }
                }
                Ok(_) => tracing::info!(port = %id, "preserving user-provided VIP port"),
                Err(e) if e.is_not_found() => {}
                Err(e) => tracing::warn!(port = %id, error = %e, "could not read VIP port"),
            }
        }
        for id in additional {
            if let Err(e) = self.neutron.delete_port(id).await {
                tracing::warn!(port = %id, error = %e, "could not delete additional VIP port");
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use openstack::{HttpConfig, NeutronConfig, ServiceAuth, ServiceAuthConfig};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    const SUBNET: &str = r#"{"subnet": {"id": "s1", "network_id": "n1", "project_id": "p", "cidr": "10.0.0.0/24", "ip_version": 4, "gateway_ip": "10.0.0.1"}}"#;

    /// A Neutron double on a local socket answering every request with subnet `s1`; counts
    /// the requests. The client acts with a user token, so no Keystone is asked.
    async fn counting_neutron() -> (NeutronPorts, Arc<AtomicUsize>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let reads = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&reads);
        tokio::spawn(async move {
            while let Ok((mut conn, _)) = listener.accept().await {
                let mut buf = vec![0; 4096];
                let n = conn.read(&mut buf).await.unwrap_or(0);
                if String::from_utf8_lossy(&buf[..n]).starts_with("GET /v2.0/subnets/s1 ") {
                    counted.fetch_add(1, Ordering::SeqCst);
                }
                let answer = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{SUBNET}",
                    SUBNET.len()
                );
                let _ = conn.write_all(answer.as_bytes()).await;
            }
        });
        let http = HttpConfig::default().build_client().unwrap();
        let cfg = NeutronConfig {
            endpoint_override: Some(url),
            ..NeutronConfig::default()
        };
        let client = NeutronClient::new(ServiceAuth::new(http, ServiceAuthConfig::default()), cfg)
            .with_user_token("token");
        (NeutronPorts::new(client, None), reads)
    }

    fn given() -> provider::Subnet {
        provider::Subnet {
            id: "s1".into(),
            network_id: "n1".into(),
            cidr: "10.0.0.0/24".into(),
            ip_version: 4,
            project_id: "p".into(),
            gateway_ip: Some("10.0.0.1".into()),
        }
    }

    #[tokio::test]
    async fn a_subnet_the_request_carries_is_not_read_again() {
        let (ports, reads) = counting_neutron().await;
        let snap = NbSnapshot::default();
        let facts = ports
            .member_facts(&snap, &["s1".into()], &[given()], false)
            .await;
        let s = &facts.subnets["s1"];
        assert_eq!(
            (s.network_id.as_str(), s.cidr.as_str()),
            ("n1", "10.0.0.0/24")
        );
        assert_eq!(reads.load(Ordering::SeqCst), 0);
        // remembered: a later request without it (a pool delete) reads nothing either
        ports.member_facts(&snap, &["s1".into()], &[], false).await;
        assert_eq!(reads.load(Ordering::SeqCst), 0);
    }

    #[tokio::test]
    async fn without_one_the_subnet_is_read_from_neutron() {
        let (ports, reads) = counting_neutron().await;
        let snap = NbSnapshot::default();
        let other = provider::Subnet {
            id: "s2".into(),
            ..given()
        };
        let facts = ports
            .member_facts(&snap, &["s1".into()], &[other], false)
            .await;
        let s = &facts.subnets["s1"];
        assert_eq!(
            (s.network_id.as_str(), s.cidr.as_str()),
            ("n1", "10.0.0.0/24")
        );
        assert_eq!(reads.load(Ordering::SeqCst), 1);
    }
}
