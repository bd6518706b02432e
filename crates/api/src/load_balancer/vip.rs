//! A load balancer create's VIP: which forms the deployment allows, the Neutron lookups that
//! complete it (port → network/subnet/address, network → subnet, subnet → network), the
//! additional VIPs' subnets, and the provider's view of both, as
//! `octavia/api/v2/controllers/load_balancer.py` `_validate_vip_request_object` and
//! `_validate_subnets_share_network_but_no_duplicates`. Lookups use the caller's token, so
//! what the user cannot see is "not found".

use std::collections::BTreeSet;

use crate::context::RequestContext;
use crate::fault::ApiError;
use crate::load_balancer::body::{AdditionalVip, LbPost};
use crate::network::{Networking, PortInfo};
use crate::state::AppState;

/// The VIP after validation; each part `None` when neither sent nor found (no Neutron).
#[derive(Debug, Default)]
pub(super) struct VipReq {
    pub(super) subnet_id: Option<String>,
    pub(super) network_id: Option<String>,
    pub(super) port_id: Option<String>,
    pub(super) address: Option<String>,
    pub(super) qos_policy_id: Option<String>,
}

/// The VIP of `b`: its forms checked against `allow_vip_*` (400 `use of <attr> is disallowed
/// by this deployment's configuration.`, 400 `VIP must contain one of: …`), then completed
/// from Neutron (404-like refusals as `InvalidSubresource`, 400 for a port in use or an
/// address outside the subnet), then its QoS policy (the sent one or the port's) and
/// `vip_sg_ids` checked. Without Neutron the sent parts are returned as they are.
pub(super) async fn validate_vip(
    st: &AppState,
    ctx: &RequestContext,
    b: &LbPost,
) -> Result<VipReq, ApiError> {
    let mut v = VipReq {
        subnet_id: b.vip_subnet_id.clone(),
        network_id: b.vip_network_id.clone(),
        port_id: b.vip_port_id.clone(),
        address: b.vip_address.clone(),
        qos_policy_id: b.vip_qos_policy_id.clone(),
    };
    forms_allowed(st, &v)?;
    let Some(net) = st.networking() else {
        return Ok(v);
    };
    let net = net.as_ref();
    let token = ctx.auth_token.as_deref();
    if let Some(port_id) = v.port_id.clone() {
        complete_from_port(net, token, &port_id, &mut v).await?;
    } else if let Some(network_id) = v.network_id.clone() {
        complete_from_network(net, token, &network_id, &mut v).await?;
    } else if let Some(subnet_id) = v.subnet_id.clone() {
        complete_from_subnet(net, token, &subnet_id, &mut v).await?;
    }
    if let Some(qos) = v.qos_policy_id.as_deref() {
        crate::network::validate_qos_policy(net, token, Some(qos)).await?;
    }
    if let Some(sgs) = b.vip_sg_ids.value() {
        crate::network::validate_security_groups(net, token, sgs).await?;
    }
    Ok(v)
}

/// Each sent form must be allowed, and one of them sent.
fn forms_allowed(st: &AppState, v: &VipReq) -> Result<(), ApiError> {
    let cfg = st.config();
    let forms = [
        (v.port_id.is_some(), cfg.allow_vip_port_id, "vip_port_id"),
        (
            v.network_id.is_some(),
            cfg.allow_vip_network_id,
            "vip_network_id",
        ),
        (
            v.subnet_id.is_some(),
            cfg.allow_vip_subnet_id,
            "vip_subnet_id",
        ),
    ];
    if let Some((_, _, n)) = forms.iter().find(|(given, allowed, _)| *given && !*allowed) {
        return Err(ApiError::Validation(format!(
            "use of {n} is disallowed by this deployment's configuration."
        )));
    }
    if forms.iter().all(|(given, _, _)| !given) {
        let allowed: Vec<&str> = forms.iter().filter(|f| f.1).map(|f| f.2).collect();
        return Err(ApiError::Validation(format!(
            "VIP must contain one of: {}.",
            allowed.join(", ")
        )));
    }
    Ok(())
}

fn not_found(resource: &str, id: &str) -> ApiError {
    ApiError::InvalidSubresource {
        resource: resource.into(),
        id: id.to_string(),
    }
}

/// `vip_port_id`: a free port; its network, its QoS policy unless one was sent, and the fixed
/// IP the sent subnet or address names (or its only one).
async fn complete_from_port(
    net: &dyn Networking,
    token: Option<&str>,
    port_id: &str,
    v: &mut VipReq,
) -> Result<(), ApiError> {
    let port: PortInfo = net
        .get_port(token, port_id)
        .await?
        .ok_or_else(|| not_found("Port", port_id))?;
    if !port.device_id.is_empty() {
        return Err(ApiError::Validation(format!(
            "Port {port_id} is already used by device {} ",
            port.device_id
        )));
    }
    v.network_id = Some(port.network_id.clone());
    if v.qos_policy_id.is_none() {
        v.qos_policy_id = port.qos_policy_id.clone();
    }
    let refuse = |msg: &str| ApiError::Validation(msg.into());
    let (subnet, address) = match (&v.subnet_id, &v.address) {
        (Some(s), _) => port
            .fixed_ips
            .iter()
            .find(|(sub, _)| sub == s)
            .ok_or_else(|| {
                refuse(
                    "No VIP address found on the specified VIP port within the specified subnet.",
                )
            })?,
        (None, Some(a)) => port
            .fixed_ips
            .iter()
            .find(|(_, ip)| ip == a)
            .ok_or_else(|| refuse("Specified VIP address not found on the specified VIP port."))?,
        (None, None) => match port.fixed_ips.as_slice() {
            [only] => only,
            _ => {
                return Err(refuse(
                    "VIP port's subnet could not be determined. Please specify either a VIP \
                     subnet or address.",
                ));
            }
        },
    };
    v.subnet_id = Some(subnet.clone());
    v.address = Some(address.clone());
    Ok(())
}

/// `vip_network_id`: the sent subnet must be on it; else the subnet holding the sent address;
/// else its subnet of the lowest IP version.
async fn complete_from_network(
    net: &dyn Networking,
    token: Option<&str>,
    network_id: &str,
    v: &mut VipReq,
) -> Result<(), ApiError> {
    let network = net
        .get_network(token, network_id)
        .await?
        .ok_or_else(|| not_found("Network", network_id))?;
    if let Some(s) = &v.subnet_id {
        return match network.holds(s) {
            true => Ok(()),
            false => Err(not_found("Subnet", s)),
        };
    }
    if network.subnets.is_empty() {
        return Err(ApiError::Validation(
            "Supplied network does not contain a subnet.".into(),
        ));
    }
    let mut subnets = Vec::new();
    for s in &network.subnets {
        if let Some(sub) = net.get_subnet(token, s).await? {
            // with an address, the first subnet holding it is the one: no further lookups
            if v.address
                .as_deref()
                .is_some_and(|a| cidr_contains(&sub.cidr, a))
            {
                v.subnet_id = Some(sub.id);
                return Ok(());
            }
            subnets.push(sub);
        }
    }
    if v.address.is_some() {
        return Err(ApiError::Validation(
            "Supplied network does not contain a subnet for VIP address specified.".into(),
        ));
    }
    subnets.sort_by_key(|s| s.ip_version);
    v.subnet_id = subnets.first().map(|s| s.id.clone());
    Ok(())
}

/// `vip_subnet_id`: the sent address must lie in it; the network is the subnet's.
async fn complete_from_subnet(
    net: &dyn Networking,
    token: Option<&str>,
    subnet_id: &str,
    v: &mut VipReq,
) -> Result<(), ApiError> {
    let sub = net
        .get_subnet(token, subnet_id)
        .await?
        .ok_or_else(|| not_found("Subnet", subnet_id))?;
    // (the noop network driver's subnets have no CIDR to check against)
    if let Some(a) = &v.address
        && !sub.cidr.is_empty()
        && !cidr_contains(&sub.cidr, a)
    {
        return Err(ApiError::Validation(format!(
            "VIP address {a} is not in subnet {subnet_id}."
        )));
    }
    v.network_id = Some(sub.network_id);
    Ok(())
}

/// No two VIPs on one subnet (400 `Duplicate VIP subnet(s) specified. Only one IP can be bound
/// per subnet.`).
pub(super) fn no_duplicate_subnets(
    vip: &VipReq,
    additional: &[&AdditionalVip],
) -> Result<(), ApiError> {
    let mut seen = BTreeSet::new();
    for a in additional {
        if !seen.insert(&a.subnet_id) || vip.subnet_id.as_ref() == Some(&a.subnet_id) {
            return Err(ApiError::Validation(
                "Duplicate VIP subnet(s) specified. Only one IP can be bound per subnet.".into(),
            ));
        }
    }
    Ok(())
}

/// Each additional VIP's subnet exists and shares the VIP's network, before anything is made
/// (400 `Subnet <id> not found`, 400 `All VIP subnets must belong to the same network.`).
/// Without this check the provider's port create failed on the missing subnet and the client
/// got a 500.
pub(super) async fn validate_additional_subnets(
    st: &AppState,
    ctx: &RequestContext,
    additional: &[&AdditionalVip],
    vip_network: Option<&str>,
) -> Result<(), ApiError> {
    let Some(net) = st.networking() else {
        return Ok(());
    };
    let token = ctx.auth_token.as_deref();
    for subnet_id in additional.iter().map(|a| &a.subnet_id) {
        let sub = net
            .get_subnet(token, subnet_id)
            .await?
            .ok_or_else(|| ApiError::Validation(format!("Subnet {subnet_id} not found")))?;
        if vip_network.is_some_and(|n| n != sub.network_id) {
            return Err(ApiError::Validation(
                "All VIP subnets must belong to the same network.".into(),
            ));
        }
    }
    Ok(())
}

/// The provider's `Vip` and `AdditionalVip`s for `create_vip_port` (additional VIPs take the
/// VIP's network; `vip_sg_ids` `None` when empty, as octavia-lib's data model).
pub(super) fn provider_vips(
    vip: &VipReq,
    additional: &[&AdditionalVip],
    sg_ids: &[String],
) -> (provider::Vip, Vec<provider::AdditionalVip>) {
    let pvip = provider::Vip {
        vip_address: vip.address.clone(),
        vip_network_id: vip.network_id.clone(),
        vip_port_id: vip.port_id.clone(),
        vip_subnet_id: vip.subnet_id.clone(),
        vip_qos_policy_id: vip.qos_policy_id.clone(),
        vip_sg_ids: (!sg_ids.is_empty()).then(|| sg_ids.to_vec()),
        octavia_owned: None,
    };
    let pextra = additional
        .iter()
        .map(|a| provider::AdditionalVip {
            ip_address: a.ip_address.clone(),
            network_id: vip.network_id.clone(),
            port_id: a.port_id.clone(),
            subnet_id: Some(a.subnet_id.clone()),
        })
        .collect();
    (pvip, pextra)
}

/// True when `addr` lies in `cidr`.
pub(super) fn cidr_contains(cidr: &str, addr: &str) -> bool {
    let (Some(net), Ok(ip)) = (
        crate::types::normalise_cidr(cidr),
        addr.parse::<std::net::IpAddr>(),
    ) else {
        return false;
    };
    let Some((_, len)) = net.split_once('/') else {
        return false;
    };
    crate::types::normalise_cidr(&format!("{ip}/{len}")).as_deref() == Some(net.as_str())
}
