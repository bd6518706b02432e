//! The amphora driver's refusals, with Octavia's texts and error kinds
//! (octavia/api/drivers/amphora_driver/v2/driver.py `_validate_*`, `l7policy_create`).
//! Each is an `UnsupportedOptionError` (the API's 501 `Provider 'amphora' does not support a
//! requested option: <text>`).

use std::net::IpAddr;

use provider::ProviderError;

use crate::reader::PoolFacts;

/// `AMPHORA_SUPPORTED_LB_ALGORITHMS`.
pub const SUPPORTED_LB_ALGORITHMS: [&str; 3] = ["ROUND_ROBIN", "SOURCE_IP", "LEAST_CONNECTIONS"];

/// `AMPHORA_SUPPORTED_PROTOCOLS`, in the reference's order (its refusal lists them so).
pub const SUPPORTED_PROTOCOLS: [&str; 9] = [
    "TCP",
    "HTTP",
    "HTTPS",
    "TERMINATED_HTTPS",
    "PROXY",
    "PROXYV2",
    "UDP",
    "SCTP",
    "PROMETHEUS",
];

/// octavia/common/constants.py `AMPHORA_SUPPORTED_ALPN_PROTOCOLS`.
pub const SUPPORTED_ALPN_PROTOCOLS: [&str; 3] = ["h2", "http/1.1", "http/1.0"];

/// `VALID_L7POLICY_LISTENER_PROTOCOLS`.
pub const L7POLICY_LISTENER_PROTOCOLS: [&str; 2] = ["HTTP", "TERMINATED_HTTPS"];

/// octavia/common/constants.py `LVS_PROTOCOLS`: pools whose members' IP versions must match
/// the VIPs'.
pub const LVS_PROTOCOLS: [&str; 2] = ["UDP", "SCTP"];

/// `_validate_pool_algorithm`: `Amphora provider does not support <alg> algorithm.`
/// (`None` prints as Python's `None`, as an unset algorithm would).
pub fn pool_algorithm(lb_algorithm: Option<&str>) -> Result<(), ProviderError> {
    match lb_algorithm {
        Some(a) if SUPPORTED_LB_ALGORITHMS.contains(&a) => Ok(()),
        other => Err(ProviderError::unsupported(format!(
            "Amphora provider does not support {} algorithm.",
            other.unwrap_or("None")
        ))),
    }
}

/// `_validate_listener_protocol`: `Amphora provider does not support <p> protocol.
/// Supported: TCP, HTTP, …`.
pub fn listener_protocol(protocol: Option<&str>) -> Result<(), ProviderError> {
    match protocol {
        Some(p) if SUPPORTED_PROTOCOLS.contains(&p) => Ok(()),
        other => Err(ProviderError::unsupported(format!(
            "Amphora provider does not support {} protocol. Supported: {}",
            other.unwrap_or("None"),
            SUPPORTED_PROTOCOLS.join(", ")
        ))),
    }
}

/// `_validate_alpn_protocols`: `Amphora provider does not support <x, y> ALPN protocol(s).
/// Supported: h2, http/1.1, http/1.0`. The reference joins a Python `set`, whose order is
/// not defined; Keel lists the unsupported values in request order, each once.
pub fn alpn_protocols(alpn: Option<&[String]>) -> Result<(), ProviderError> {
    let Some(alpn) = alpn else { return Ok(()) };
    let mut bad: Vec<&str> = Vec::new();
    for a in alpn {
        if !SUPPORTED_ALPN_PROTOCOLS.contains(&a.as_str()) && !bad.contains(&a.as_str()) {
            bad.push(a);
        }
    }
    if bad.is_empty() {
        return Ok(());
    }
    Err(ProviderError::unsupported(format!(
        "Amphora provider does not support {} ALPN protocol(s). Supported: {}",
        bad.join(", "),
        SUPPORTED_ALPN_PROTOCOLS.join(", ")
    )))
}

/// `_validate_members`: in a `UDP` / `SCTP` pool used by a listener, an IPv6 member needs an
/// IPv6 VIP (primary or additional) and an IPv4 member an IPv4 one: `This provider doesn't
/// support mixing IPv4 and IPv6 addresses for its VIP and members in <protocol> load
/// balancers.` An address that does not parse counts as IPv4 (the reference's `is_ipv6`
/// answers false for it).
pub fn members<'a>(
    pool: &PoolFacts,
    addresses: impl IntoIterator<Item = Option<&'a str>>,
) -> Result<(), ProviderError> {
    if !LVS_PROTOCOLS.contains(&pool.protocol.as_str()) || !pool.has_listeners {
        return Ok(());
    }
    let version = |a: Option<&str>| a.and_then(|a| a.parse::<IpAddr>().ok());
    let lb_has_v4 = pool
        .vip_addresses
        .iter()
        .any(|a| matches!(version(a.as_deref()), Some(IpAddr::V4(_))));
    let lb_has_v6 = pool
        .vip_addresses
        .iter()
        .any(|a| matches!(version(a.as_deref()), Some(IpAddr::V6(_))));
    for a in addresses {
        let member_is_v6 = matches!(version(a), Some(IpAddr::V6(_)));
        if (member_is_v6 && !lb_has_v6) || (!member_is_v6 && !lb_has_v4) {
            return Err(ProviderError::unsupported(format!(
                "This provider doesn't support mixing IPv4 and IPv6 addresses for its VIP and \
                 members in {} load balancers.",
                pool.protocol
            )));
        }
    }
    Ok(())
}

/// `l7policy_create`: `<protocol> protocol listeners do not support L7 policies` unless the
/// listener is `HTTP` or `TERMINATED_HTTPS`.
pub fn l7policy_listener(protocol: &str) -> Result<(), ProviderError> {
    if L7POLICY_LISTENER_PROTOCOLS.contains(&protocol) {
        return Ok(());
    }
    Err(ProviderError::unsupported(format!(
        "{protocol} protocol listeners do not support L7 policies"
    )))
}
