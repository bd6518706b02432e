//! VIP ports: the network driver's part of `create_vip_port`
//! (octavia/api/drivers/amphora_driver/v2/driver.py), as
//! octavia/network/drivers/neutron/allowed_address_pairs.py `allocate_vip` (with
//! octavia/network/drivers/neutron/base.py `_port_to_vip`, `get_network`, `get_port`) and
//! octavia/network/drivers/noop_driver/driver.py `allocate_vip`.

use std::net::IpAddr;

use async_trait::async_trait;
use openstack::{FixedIpRequest, NeutronClient, NeutronError, Port, PortCreate};
use provider::{AdditionalVip, ProviderError, Vip};
use thiserror::Error;

/// `constants.OCTAVIA_OWNER`: the `device_owner` of the VIP ports Octavia makes.
pub const OCTAVIA_OWNER: &str = "Octavia";

/// What `create_vip_port` needs to know of the VIP network.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VipNetwork {
    /// The network's id.
    pub id: String,
    /// Neutron's `port_security_enabled` (absent counts as false, as the reference's
    /// truthiness test).
    pub port_security_enabled: bool,
}

/// Why a VIP could not be allocated or a network looked up; each maps to the reference's
/// error kind with [`From`] into [`ProviderError`].
#[derive(Debug, Error)]
pub enum VipError {
    /// `VIPInUseException` (Neutron answered 409): [`ProviderError::Conflict`] with
    /// Neutron's message, as the reference's `orig_msg`.
    #[error("{0}")]
    InUse(String),
    /// `AllocateVIPException`, `NetworkNotFound`, `NetworkException` where the reference's
    /// text quotes no Neutron error: [`ProviderError::Driver`] with that text.
    #[error("{0}")]
    Failed(String),
    /// `AllocateVIPException` on a Neutron error creating the VIP port (not a 409, Neutron
    /// reached): [`ProviderError::Driver`] with the reference's text (`create_port_text`).
    #[error("{}", create_port_text(.network_id, .source))]
    CreatePort {
        /// The VIP network the port was asked on.
        network_id: String,
        /// Neutron's refusal.
        #[source]
        source: NeutronError,
    },
    /// `NetworkException` on a Neutron error deleting a broken VIP port Octavia owns:
    /// [`ProviderError::Driver`] with the reference's text.
    #[error("Neutron is failing to service requests due to: {0}. Aborting.")]
    DeletePort(#[source] NeutronError),
    /// A Neutron error other than 404 reading or deleting a port to deallocate:
    /// [`ProviderError::Driver`] with the error's text.
    #[error("{0}")]
    Neutron(#[source] NeutronError),
    /// Neutron could not be reached (Keel's 503 naming Neutron; the reference answers 500).
    #[error("neutron unreachable: {0}")]
    Unavailable(#[source] NeutronError),
}

impl From<VipError> for ProviderError {
    fn from(e: VipError) -> Self {
        match e {
            VipError::InUse(m) => ProviderError::conflict(m),
            VipError::Failed(m) => ProviderError::driver(m),
            e @ (VipError::CreatePort { .. } | VipError::DeletePort(_) | VipError::Neutron(_)) => {
                ProviderError::driver(e.to_string())
            }
            VipError::Unavailable(err) => ProviderError::unavailable("Neutron", err.to_string()),
        }
    }
}

/// The network driver the amphora provider makes VIP ports with.
#[async_trait]
pub trait VipAllocator: Send + Sync {
    /// The network `network_id` (`get_network`).
    ///
    /// # Errors
    /// [`VipError::Failed`] `network not found (network id: <id>).` or `Error retrieving
    /// network (network id: <id>.` (sic); [`VipError::Unavailable`].
    async fn network(&self, network_id: &str) -> Result<VipNetwork, VipError>;

    /// Makes (or reuses) the load balancer's VIP port (`allocate_vip`); returns the VIP
    /// (address, network, port, subnet, `vip_sg_ids` passed through, `octavia_owned`) and
    /// the additional VIPs on the same port.
    ///
    /// # Errors
    /// [`VipError::InUse`] on an address already allocated; [`VipError::Failed`] with the
    /// reference's texts for a VIP port that cannot be read or is broken and not Octavia's,
    /// [`VipError::DeletePort`] for a broken one of Octavia's that cannot be deleted,
    /// [`VipError::CreatePort`] for a port Neutron refused to create;
    /// [`VipError::Unavailable`].
    async fn allocate_vip(
        &self,
        loadbalancer_id: &str,
        project_id: &str,
        vip: &Vip,
        additional_vips: &[AdditionalVip],
    ) -> Result<(Vip, Vec<AdditionalVip>), VipError>;

    /// Deletes VIP ports [`Self::allocate_vip`] made for a create the API then refused
    /// (`ProviderDriver::delete_vip_ports`); a port that is gone or was not made by Octavia
    /// is left alone.
    ///
    /// # Errors
    /// [`VipError::Unavailable`] or [`VipError::Neutron`] on a Neutron error other than 404.
    async fn deallocate(&self, port_ids: &[String]) -> Result<(), VipError>;
}

/// `[controller_worker] network_driver = network_noop_driver`: never talks to Neutron.
/// Networks have port security; `allocate_vip` answers the request's ids and address, new
/// random UUIDs for the missing ids and `198.51.100.1` for a missing address; additional VIPs
/// keep their address and subnet and share the VIP's network and port; `octavia_owned` is
/// unset (the API then records the port as not Octavia's).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoopVipAllocator;

/// The noop driver's address for a VIP that names none.
pub const NOOP_VIP_ADDRESS: &str = "198.51.100.1";

#[async_trait]
impl VipAllocator for NoopVipAllocator {
    async fn network(&self, network_id: &str) -> Result<VipNetwork, VipError> {
        Ok(VipNetwork {
            id: network_id.to_string(),
            port_security_enabled: true,
        })
    }

    async fn allocate_vip(
        &self,
        _loadbalancer_id: &str,
        _project_id: &str,
        vip: &Vip,
        additional_vips: &[AdditionalVip],
    ) -> Result<(Vip, Vec<AdditionalVip>), VipError> {
        let uuid = || uuid::Uuid::new_v4().to_string();
        let given = |v: &Option<String>| v.clone().filter(|s| !s.is_empty());
        let subnet_id = given(&vip.vip_subnet_id).unwrap_or_else(uuid);
        let network_id = given(&vip.vip_network_id).unwrap_or_else(uuid);
        let port_id = given(&vip.vip_port_id).unwrap_or_else(uuid);
        let address = given(&vip.vip_address).unwrap_or_else(|| NOOP_VIP_ADDRESS.to_string());
        let adds = additional_vips
            .iter()
            .map(|a| AdditionalVip {
                ip_address: a.ip_address.clone(),
                subnet_id: a.subnet_id.clone(),
                network_id: Some(network_id.clone()),
                port_id: Some(port_id.clone()),
            })
            .collect();
        Ok((
            Vip {
                vip_address: Some(address),
                vip_network_id: Some(network_id),
                vip_port_id: Some(port_id),
                vip_subnet_id: Some(subnet_id),
                vip_qos_policy_id: None,
                vip_sg_ids: None,
                octavia_owned: None,
            },
            adds,
        ))
    }

    async fn deallocate(&self, _port_ids: &[String]) -> Result<(), VipError> {
        Ok(())
    }
}

/// `[controller_worker] network_driver = allowed_address_pairs_driver`: VIP ports in
/// Neutron with Keel's service credentials (the `NeutronClient` the lead passes must act
/// with the service token, never a user's).
#[derive(Clone)]
pub struct NeutronVipAllocator {
    neutron: NeutronClient,
}

impl std::fmt::Debug for NeutronVipAllocator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NeutronVipAllocator")
            .finish_non_exhaustive()
    }
}

/// The openstacksdk exception class the reference's text names for an HTTP status
/// (`openstack/exceptions.py` `raise_from_response`).
fn sdk_exception(status: u16) -> &'static str {
    match status {
        400 => "BadRequestException",
        403 => "ForbiddenException",
        404 => "NotFoundException",
        409 => "ConflictException",
        412 => "PreconditionFailedException",
        _ => "HttpException",
    }
}

/// [`VipError::CreatePort`]'s text: openstacksdk's `<Exception>: <status>` when Neutron
/// answered a status, else `Error creating neutron port on network <id> due to <error>.`
/// (octavia `allocate_vip`).
fn create_port_text(network_id: &str, source: &NeutronError) -> String {
    match source.status() {
        Some(s) => format!("{}: {s}", sdk_exception(s)),
        None => format!("Error creating neutron port on network {network_id} due to {source}."),
    }
}

/// True for the failures that mean Neutron could not be asked (no HTTP answer).
fn unreachable(e: &NeutronError) -> bool {
    matches!(e, NeutronError::Transport(_) | NeutronError::Auth(_))
}

/// The body of the VIP port `allocate_vip` creates: name `octavia-lb-<lb>`, the VIP network,
/// `admin_state_up` false, `device_id` `lb-<lb>`, `device_owner` `Octavia`, `project_id`,
/// `security_groups` when the VIP names some, and one fixed IP for the VIP (its subnet and
/// address when given) then one per additional VIP (`fixed_ips` left out when none has
/// either). No QoS policy, `binding:vnic_type` or description: 19.0.0 sends none.
pub fn vip_port_request(
    loadbalancer_id: &str,
    project_id: &str,
    vip: &Vip,
    additional_vips: &[AdditionalVip],
) -> PortCreate {
    let fixed = |subnet: &Option<String>, address: &Option<String>| {
        let subnet_id = subnet.clone().filter(|s| !s.is_empty());
        let ip_address = address
            .as_deref()
            .filter(|s| !s.is_empty())
            .and_then(|a| a.parse::<IpAddr>().ok());
        (subnet_id.is_some() || ip_address.is_some()).then_some(FixedIpRequest {
            subnet_id,
            ip_address,
        })
    };
    let mut fixed_ips: Vec<FixedIpRequest> = Vec::new();
    fixed_ips.extend(fixed(&vip.vip_subnet_id, &vip.vip_address));
    for a in additional_vips {
        fixed_ips.extend(fixed(&a.subnet_id, &a.ip_address));
    }
    PortCreate {
        network_id: vip.vip_network_id.clone().unwrap_or_default(),
        name: Some(format!("octavia-lb-{loadbalancer_id}")),
        fixed_ips: (!fixed_ips.is_empty()).then_some(fixed_ips),
        device_owner: Some(OCTAVIA_OWNER.into()),
        device_id: Some(format!("lb-{loadbalancer_id}")),
        admin_state_up: Some(false),
        project_id: Some(project_id.to_string()),
        security_groups: vip.vip_sg_ids.clone().filter(|s| !s.is_empty()),
        ..PortCreate::default()
    }
}

/// `_port_to_vip`: the first fixed IP on the VIP's subnet is the VIP (address and subnet
/// `None` when there is none), every other fixed IP an additional VIP on the same port.
pub fn port_to_vip(port: &Port, vip: &Vip, octavia_owned: bool) -> (Vip, Vec<AdditionalVip>) {
    let mut primary = None;
    let mut adds = Vec::new();
    for f in &port.fixed_ips {
        if primary.is_none() && Some(&f.subnet_id) == vip.vip_subnet_id.as_ref() {
            primary = Some(f);
        } else {
            adds.push(AdditionalVip {
                ip_address: Some(f.ip_address.to_string()),
                subnet_id: Some(f.subnet_id.clone()),
                network_id: Some(port.network_id.clone()),
                port_id: Some(port.id.clone()),
            });
        }
    }
    (
        Vip {
            vip_address: primary.map(|f| f.ip_address.to_string()),
            vip_network_id: Some(port.network_id.clone()),
            vip_port_id: Some(port.id.clone()),
            vip_subnet_id: primary.map(|f| f.subnet_id.clone()),
            vip_qos_policy_id: None,
            vip_sg_ids: vip.vip_sg_ids.clone(),
            octavia_owned: Some(octavia_owned),
        },
        adds,
    )
}

/// `_validate_fixed_ip`: the port has `address` (compared as addresses) on `subnet_id`.
fn has_fixed_ip(port: &Port, subnet_id: Option<&str>, address: Option<&str>) -> bool {
    let Some(want) = address.and_then(|a| a.parse::<IpAddr>().ok()) else {
        return false;
    };
    port.fixed_ips
        .iter()
        .any(|f| Some(f.subnet_id.as_str()) == subnet_id && f.ip_address == want)
}

impl NeutronVipAllocator {
    /// An allocator over `neutron` (service credentials).
    pub fn new(neutron: NeutronClient) -> Self {
        Self { neutron }
    }

    /// The reference's handling of a user's `vip_port_id`: `Ok(Some(vip))` to reuse it,
    /// `Ok(None)` to create a new port (it is gone, or broken and Octavia's — then deleted).
    async fn reuse_port(&self, vip: &Vip) -> Result<Option<(Vip, Vec<AdditionalVip>)>, VipError> {
        let Some(port_id) = vip.vip_port_id.as_deref().filter(|s| !s.is_empty()) else {
            return Ok(None);
        };
        let port = match self.neutron.get_port(port_id).await {
            Ok(p) => p,
            Err(e) if e.is_not_found() => {
                tracing::warn!(port_id, "VIP port is missing from neutron. Rebuilding.");
                return Ok(None);
            }
            Err(e) if unreachable(&e) => return Err(VipError::Unavailable(e)),
            Err(_) => {
                return Err(VipError::Failed(format!(
                    "Error retrieving port (port id: {port_id}."
                )));
            }
        };
        if Some(&port.network_id) == vip.vip_network_id.as_ref()
            && has_fixed_ip(
                &port,
                vip.vip_subnet_id.as_deref(),
                vip.vip_address.as_deref(),
            )
        {
            tracing::info!(port_id, "Port already exists. Nothing to be done.");
            return Ok(Some(port_to_vip(&port, vip, false)));
        }
        if vip.octavia_owned == Some(true) {
            match self.neutron.delete_port(port_id).await {
                Ok(_) => Ok(None),
                Err(e) if unreachable(&e) => Err(VipError::Unavailable(e)),
                Err(e) => Err(VipError::DeletePort(e)),
            }
        } else {
            Err(VipError::Failed(format!(
                "VIP port {} is broken, but is owned by project {} so will not be recreated. \
                 Aborting VIP allocation.",
                port.id, port.project_id
            )))
        }
    }
}

#[async_trait]
impl VipAllocator for NeutronVipAllocator {
    #[tracing::instrument(skip(self), err)]
    async fn network(&self, network_id: &str) -> Result<VipNetwork, VipError> {
        match self.neutron.get_network(network_id).await {
            Ok(n) => Ok(VipNetwork {
                id: n.id,
                port_security_enabled: n.port_security_enabled.unwrap_or(false),
            }),
            Err(e) if e.is_not_found() => Err(VipError::Failed(format!(
                "network not found (network id: {network_id})."
            ))),
            Err(e) if unreachable(&e) => Err(VipError::Unavailable(e)),
            Err(_) => Err(VipError::Failed(format!(
                "Error retrieving network (network id: {network_id}."
            ))),
        }
    }

    #[tracing::instrument(skip(self, vip, additional_vips), err)]
    async fn allocate_vip(
        &self,
        loadbalancer_id: &str,
        project_id: &str,
        vip: &Vip,
        additional_vips: &[AdditionalVip],
    ) -> Result<(Vip, Vec<AdditionalVip>), VipError> {
        if let Some(found) = self.reuse_port(vip).await? {
            return Ok(found);
        }
        let req = vip_port_request(loadbalancer_id, project_id, vip, additional_vips);
        match self.neutron.create_port(&req).await {
            Ok(port) => Ok(port_to_vip(&port, vip, true)),
            Err(NeutronError::Conflict(fault)) => {
                Err(VipError::InUse(if fault.message.is_empty() {
                    format!(
                        "Error creating neutron port on network {} due to ConflictException: 409.",
                        req.network_id
                    )
                } else {
                    fault.message
                }))
            }
            Err(e) if unreachable(&e) => Err(VipError::Unavailable(e)),
            Err(source) => Err(VipError::CreatePort {
                network_id: req.network_id,
                source,
            }),
        }
    }

    #[tracing::instrument(skip(self), err)]
    async fn deallocate(&self, port_ids: &[String]) -> Result<(), VipError> {
        for id in port_ids {
            let port = match self.neutron.get_port(id).await {
                Ok(p) => p,
                Err(e) if e.is_not_found() => continue,
                Err(e) if unreachable(&e) => return Err(VipError::Unavailable(e)),
                Err(e) => return Err(VipError::Neutron(e)),
            };
            if port.device_owner != OCTAVIA_OWNER || !port.name.starts_with("octavia-lb-") {
                tracing::warn!(port_id = %id, owner = %port.device_owner, "not an Octavia VIP port; left alone");
                continue;
            }
            match self.neutron.delete_port(id).await {
                Ok(_) => {}
                Err(e) if e.is_not_found() => {}
                Err(e) if unreachable(&e) => return Err(VipError::Unavailable(e)),
                Err(e) => return Err(VipError::Neutron(e)),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vip() -> Vip {
        Vip {
            vip_address: Some("10.0.0.5".into()),
            vip_network_id: Some("n1".into()),
            vip_subnet_id: Some("s1".into()),
            vip_sg_ids: Some(vec!["sg1".into(), "sg2".into()]),
            ..Default::default()
        }
    }

    /// The body `allocate_vip` posts, as the reference's `create_port(**port)` sends it.
    #[test]
    fn vip_port_body() {
        let adds = [
            AdditionalVip {
                subnet_id: Some("s6".into()),
                ..Default::default()
            },
            AdditionalVip {
                subnet_id: Some("s7".into()),
                ip_address: Some("fd00::7".into()),
                ..Default::default()
            },
            AdditionalVip::default(),
        ];
        let req = vip_port_request("lb1", "p1", &vip(), &adds);
        assert_eq!(
            serde_json::to_value(&req).unwrap(),
            json!({
                "name": "octavia-lb-lb1",
                "network_id": "n1",
                "admin_state_up": false,
                "device_id": "lb-lb1",
                "device_owner": "Octavia",
                "project_id": "p1",
                "security_groups": ["sg1", "sg2"],
                "fixed_ips": [
                    {"subnet_id": "s1", "ip_address": "10.0.0.5"},
                    {"subnet_id": "s6"},
                    {"subnet_id": "s7", "ip_address": "fd00::7"}
                ]
            })
        );
        // no address, no security groups: neither key is sent
        let bare = Vip {
            vip_address: None,
            vip_sg_ids: Some(vec![]),
            ..vip()
        };
        let body = serde_json::to_value(vip_port_request("lb1", "p1", &bare, &[])).unwrap();
        assert_eq!(body["fixed_ips"], json!([{"subnet_id": "s1"}]));
        assert!(body.get("security_groups").is_none());
    }

    fn port(fixed: &[(&str, &str)]) -> Port {
        serde_json::from_value(json!({
            "id": "port1", "network_id": "n1", "project_id": "p1",
            "fixed_ips": fixed.iter().map(|(s, a)| json!({"subnet_id": s, "ip_address": a})).collect::<Vec<_>>(),
        }))
        .unwrap()
    }

    #[test]
    fn port_to_vip_splits_primary_and_additional() {
        let p = port(&[("s6", "fd00::5"), ("s1", "10.0.0.5"), ("s1", "10.0.0.6")]);
        let (v, adds) = port_to_vip(&p, &vip(), true);
        assert_eq!(v.vip_address.as_deref(), Some("10.0.0.5"));
        assert_eq!(v.vip_subnet_id.as_deref(), Some("s1"));
        assert_eq!(v.vip_port_id.as_deref(), Some("port1"));
        assert_eq!(v.octavia_owned, Some(true));
        assert_eq!(v.vip_sg_ids, vip().vip_sg_ids);
        let addrs: Vec<_> = adds.iter().map(|a| a.ip_address.clone().unwrap()).collect();
        assert_eq!(addrs, ["fd00::5", "10.0.0.6"]);
        assert!(adds.iter().all(|a| a.port_id.as_deref() == Some("port1")));
        assert!(has_fixed_ip(&p, Some("s1"), Some("10.0.0.5")));
        assert!(!has_fixed_ip(&p, Some("s6"), Some("10.0.0.5")));
        assert!(has_fixed_ip(&p, Some("s6"), Some("fd00:0::5")));
    }

    #[tokio::test]
    async fn noop_answers_the_request_or_made_up_values() {
        let n = NoopVipAllocator;
        assert!(n.network("x").await.unwrap().port_security_enabled);
        let adds = [AdditionalVip {
            subnet_id: Some("s6".into()),
            ip_address: Some("fd00::6".into()),
            ..Default::default()
        }];
        let (v, a) = n.allocate_vip("lb1", "p1", &vip(), &adds).await.unwrap();
        assert_eq!(v.vip_address.as_deref(), Some("10.0.0.5"));
        assert_eq!(v.vip_network_id.as_deref(), Some("n1"));
        assert_eq!(v.vip_subnet_id.as_deref(), Some("s1"));
        assert_eq!(v.octavia_owned, None);
        let port = v.vip_port_id.clone().unwrap();
        assert!(uuid::Uuid::parse_str(&port).is_ok());
        assert_eq!(a[0].port_id.as_deref(), Some(port.as_str()));
        assert_eq!(a[0].network_id.as_deref(), Some("n1"));
        assert_eq!(a[0].ip_address.as_deref(), Some("fd00::6"));
        let (v, _) = n
            .allocate_vip("lb1", "p1", &Vip::default(), &[])
            .await
            .unwrap();
        assert_eq!(v.vip_address.as_deref(), Some(NOOP_VIP_ADDRESS));
        assert!(uuid::Uuid::parse_str(v.vip_subnet_id.as_deref().unwrap()).is_ok());
        n.deallocate(&["p".into()]).await.unwrap();
    }

    #[test]
    fn errors_map_to_the_references_kinds() {
        assert!(matches!(
            ProviderError::from(VipError::InUse(
                "IP address 10.0.0.5 already allocated".into()
            )),
            ProviderError::Conflict { .. }
        ));
        // the Neutron error stays the source; the text is the reference's
        let e = VipError::CreatePort {
            network_id: "n1".into(),
            source: NeutronError::from_status(500, b"boom"),
        };
        assert!(std::error::Error::source(&e).is_some());
        assert_eq!(e.to_string(), "HttpException: 500");
        let e = VipError::CreatePort {
            network_id: "n1".into(),
            source: NeutronError::Decode("no \"port\" in the response".into()),
        };
        assert_eq!(
            ProviderError::from(e),
            ProviderError::driver(
                "Error creating neutron port on network n1 due to unexpected neutron response: \
                 no \"port\" in the response."
            )
        );
        let e = VipError::DeletePort(NeutronError::from_status(400, b"bad"));
        assert_eq!(
            e.to_string(),
            "Neutron is failing to service requests due to: neutron: bad request: bad. Aborting."
        );
        assert_eq!(sdk_exception(400), "BadRequestException");
        assert_eq!(sdk_exception(500), "HttpException");
    }
}
