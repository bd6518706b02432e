//! Synchronous validation of each driver method (seed 000 §2–§6, `driver.py` `_check_*`).
//!
//! Every check returns the exact `UnsupportedOptionError` text of the reference as a
//! [`ProviderError::UnsupportedOption`] (the API answers 501 `Provider 'ovn' does not support a
//! requested option: <text>`). A missing value prints as Python's `None`.

use std::net::IpAddr;

use provider::{HealthMonitor, Listener, LoadBalancer, Member, Pool, ProviderError};
use serde_json::Value;

/// L4 protocols an OVN load balancer handles (`OVN_NATIVE_LB_PROTOCOLS`).
pub const PROTOCOLS: [&str; 3] = ["TCP", "UDP", "SCTP"];
/// Pool algorithms (`OVN_NATIVE_LB_ALGORITHMS`).
pub const ALGORITHMS: [&str; 2] = ["SOURCE_IP_PORT", "SOURCE_IP"];
/// Health monitor types, in the reference's order (`SUPPORTED_HEALTH_MONITOR_TYPES`).
pub const HM_TYPES: [&str; 2] = ["UDP-CONNECT", "TCP"];
/// Session persistence types (`OVN_NATIVE_SESSION_PERSISTENCE`).
pub const SESSION_PERSISTENCE: [&str; 1] = ["SOURCE_IP"];

/// Text of the failover refusal (seed 000 §2.5).
pub const FAILOVER_TEXT: &str = "OVN provider does not support loadbalancer failover";
/// Text of `IPVersionsMixingNotSupportedError` (seed 000 §5.1).
pub const IP_MIXING_TEXT: &str =
    "OVN provider does not support mixing IPv4/IPv6 configuration within the same Load Balancer.";
/// Text when the NB schema has no `Load_Balancer.health_check` (OVN < 2.12).
pub const HC_UNSUPPORTED_TEXT: &str = "OVN Load Balancer supports Health Check provider from version 2.12. Upgrade OVN in order to use it.";

fn py(v: Option<&str>) -> &str {
    v.unwrap_or("None")
}

/// Listener/pool protocol must be TCP, UDP or SCTP.
pub fn protocol(protocol: Option<&str>) -> Result<(), ProviderError> {
    match protocol {
        Some(p) if PROTOCOLS.contains(&p) => Ok(()),
        other => Err(ProviderError::unsupported(format!(
            "OVN provider does not support {} protocol",
            py(other)
        ))),
    }
}

/// Pool algorithm must be SOURCE_IP_PORT or SOURCE_IP.
pub fn algorithm(algorithm: Option<&str>) -> Result<(), ProviderError> {
    match algorithm {
        Some(a) if ALGORITHMS.contains(&a) => Ok(()),
        other => Err(ProviderError::unsupported(format!(
            "OVN provider does not support {} algorithm",
            py(other)
        ))),
    }
}

/// Session persistence, when set (a non-empty object), must be SOURCE_IP.
///
/// The reference formats `session.type` on a dict and so answers 500 with a Python
/// AttributeError; Keel answers the intended 501 text.
pub fn session_persistence(sp: Option<&Value>) -> Result<(), ProviderError> {
    let Some(obj) = session_persistence_set(sp) else {
        return Ok(());
    };
    let kind = obj.get("type").and_then(Value::as_str);
    match kind {
        Some(k) if SESSION_PERSISTENCE.contains(&k) => Ok(()),
        other => Err(ProviderError::unsupported(format!(
            "OVN provider does not support {} session persistence. Only SOURCE_IP type is supported.",
            py(other)
        ))),
    }
}

/// The session persistence object when it sets anything: `null`, `{}` and an object whose
/// fields are all `null` mean "no session persistence", exactly as an absent field
/// (seed 000: an optional field that arrives as null means its default).
pub fn session_persistence_set(sp: Option<&Value>) -> Option<&serde_json::Map<String, Value>> {
    sp?.as_object().filter(|o| o.values().any(|v| !v.is_null()))
}

/// `allowed_cidrs` are enforced by Keel ([`crate::cidrs`]; the reference refuses any with
/// 501): each entry must be an IPv4 or IPv6 CIDR. The API refused anything else with
/// Octavia's 400 already, so this answers only a caller that skipped it: 501 `Value should be
/// IPv4 or IPv6 CIDR format: '<entry>'`.
pub fn allowed_cidrs(cidrs: Option<&Vec<String>>) -> Result<(), ProviderError> {
    match cidrs
        .into_iter()
        .flatten()
        .find(|c| crate::cidrs::normalise(c).is_none())
    {
        Some(bad) => Err(ProviderError::unsupported(format!(
            "Value should be IPv4 or IPv6 CIDR format: '{bad}'"
        ))),
        None => Ok(()),
    }
}

/// True when the member sets `monitor_address` or `monitor_port`.
pub fn has_monitor_options(member: &Member) -> bool {
    member
        .monitor_address
        .as_deref()
        .is_some_and(|a| !a.is_empty())
        || member.monitor_port.is_some_and(|p| p != 0)
}

/// Member create/update: no monitor address/port.
pub fn member_monitor_options(member: &Member) -> Result<(), ProviderError> {
    if has_monitor_options(member) {
        return Err(ProviderError::unsupported(
            "OVN Load Balancer does not support different member monitor address or port.",
        ));
    }
    Ok(())
}

/// Member batch update: no monitor address/port (the batch's own text).
pub fn batch_member_monitor_options(member: &Member) -> Result<(), ProviderError> {
    if has_monitor_options(member) {
        return Err(ProviderError::unsupported(
            "OVN provider does not support monitor options",
        ));
    }
    Ok(())
}

/// True when the member's family differs from the LB's VIPs, unless the VIPs already mix
/// families (`driver.py::_ip_version_differs`). Unparsable addresses never "differ" here: the
/// API validated them.
pub fn ip_version_differs(member_address: &str, lb_vips: &[String]) -> bool {
    let vips: Vec<IpAddr> = lb_vips.iter().filter_map(|v| v.parse().ok()).collect();
    let Some(first) = vips.first() else {
        return false;
    };
    if vips.iter().any(|v| v.is_ipv4() != first.is_ipv4()) {
        return false;
    }
    match member_address.parse::<IpAddr>() {
        Ok(m) => m.is_ipv4() != first.is_ipv4(),
        Err(_) => false,
    }
}

/// [`ip_version_differs`] as the error the API shows.
pub fn member_ip_version(member_address: &str, lb_vips: &[String]) -> Result<(), ProviderError> {
    if ip_version_differs(member_address, lb_vips) {
        return Err(ProviderError::unsupported(IP_MIXING_TEXT));
    }
    Ok(())
}

/// Which call needs a member subnet (the texts differ per call).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberSubnetCall {
    /// member_create / graph create.
    Create,
    /// member_delete / pool_delete.
    Delete,
    /// member_batch_update.
    Batch,
}

/// Text when a member has no subnet and is outside the VIP subnet.
pub fn member_subnet_required(call: MemberSubnetCall) -> ProviderError {
    ProviderError::unsupported(match call {
        MemberSubnetCall::Create => {
            "Subnet is required, or Loadbalancer associated with Pool must have a subnet, for \
             Member creation with OVN Provider Driver if it is not the same as LB VIP subnet"
        }
        MemberSubnetCall::Delete => {
            "Subnet is required, or Loadbalancer associated with Pool must have a subnet, for \
             Member deletion if it is with OVN Provider Driver if it is not the same as LB VIP subnet"
        }
        MemberSubnetCall::Batch => {
            "Subnet is required, or Loadbalancer associated with Pool must have a subnet, for \
             Member batch update with OVN Provider Driver if it is not the same as LB VIP subnet"
        }
    })
}

/// True when `address` lies in `cidr` (e.g. `10.0.0.0/24`); false on any parse failure.
pub fn ip_in_cidr(address: &str, cidr: &str) -> bool {
    let Ok(ip) = address.parse::<IpAddr>() else {
        return false;
    };
    let Some((net, len)) = cidr.split_once('/') else {
        return false;
    };
    let (Ok(net), Ok(len)) = (net.parse::<IpAddr>(), len.parse::<u32>()) else {
        return false;
    };
    match (ip, net) {
        (IpAddr::V4(a), IpAddr::V4(n)) if len <= 32 => {
            let mask = if len == 0 { 0 } else { u32::MAX << (32 - len) };
            u32::from(a) & mask == u32::from(n) & mask
        }
        (IpAddr::V6(a), IpAddr::V6(n)) if len <= 128 => {
            let mask = if len == 0 {
                0
            } else {
                u128::MAX << (128 - len)
            };
            u128::from(a) & mask == u128::from(n) & mask
        }
        _ => false,
    }
}

/// `NotImplemented` (API: 501 "does not support a requested action: …") with octavia-lib's
/// base-class text `This provider does not support <action>.` (`provider_base.py`).
pub fn not_supported<T>(action: &str) -> Result<T, ProviderError> {
    Err(ProviderError::not_implemented(format!(
        "This provider does not support {action}."
    )))
}

/// The synchronous checks of a single-call (graph) load balancer create, all before anything
/// is queued, so a refusal leaves nothing behind (the reference queues `lb_create` first and
/// leaves an orphan row): every listener ([`listener_create`]), every pool ([`pool_create`])
/// and member ([`member_monitor_options`]). A graph's L7 policies are refused as
/// `l7policy_create` is (501): the reference ignores them and they stay PENDING_CREATE.
pub fn loadbalancer_graph(
    lb: &LoadBalancer,
    health_check_supported: bool,
) -> Result<(), ProviderError> {
    for l in lb.listeners.iter().flatten() {
        listener_create(l)?;
        if l.l7policies.as_ref().is_some_and(|p| !p.is_empty()) {
            return not_supported("creating l7policies");
        }
    }
    for p in lb.pools.iter().flatten() {
        pool_create(p, health_check_supported)?;
        for m in p.members.iter().flatten() {
            member_monitor_options(m)?;
        }
    }
    Ok(())
}

/// listener_create: protocol and allowed_cidrs.
pub fn listener_create(l: &Listener) -> Result<(), ProviderError> {
    protocol(l.protocol.as_deref())?;
    allowed_cidrs(l.allowed_cidrs.as_ref())
}

/// listener_update: allowed_cidrs only (protocol and port cannot change).
pub fn listener_update(new: &Listener) -> Result<(), ProviderError> {
    allowed_cidrs(new.allowed_cidrs.as_ref())
}

/// pool_create: protocol, algorithm, session persistence; then the pool's HM if any.
pub fn pool_create(p: &Pool, health_check_supported: bool) -> Result<(), ProviderError> {
    protocol(p.protocol.as_deref())?;
    algorithm(p.lb_algorithm.as_deref())?;
    session_persistence(p.session_persistence.as_ref())?;
    if let Some(hm) = &p.healthmonitor {
        health_monitor_create(hm, health_check_supported)?;
    }
    Ok(())
}

/// pool_update: only the fields present in `new`.
pub fn pool_update(new: &Pool) -> Result<(), ProviderError> {
    if let Some(p) = new.protocol.as_deref() {
        protocol(Some(p))?;
    }
    if let Some(a) = new.lb_algorithm.as_deref() {
        algorithm(Some(a))?;
    }
    session_persistence(new.session_persistence.as_ref())
}

/// health_monitor_create: the NB supports health checks, and the type is TCP or UDP-CONNECT.
pub fn health_monitor_create(
    hm: &HealthMonitor,
    health_check_supported: bool,
) -> Result<(), ProviderError> {
    health_monitor_update(health_check_supported)?;
    match hm.kind.as_deref() {
        None => Err(ProviderError::unsupported(
            "OVN provider health monitor type not specified.",
        )),
        Some(t) if HM_TYPES.contains(&t) => Ok(()),
        Some(t) => Err(ProviderError::unsupported(format!(
            "OVN provider does not support {t} health monitor type. Supported types: {}",
            HM_TYPES.join(", ")
        ))),
    }
}

/// health_monitor_update: only the schema check.
pub fn health_monitor_update(health_check_supported: bool) -> Result<(), ProviderError> {
    if !health_check_supported {
        return Err(ProviderError::unsupported(HC_UNSUPPORTED_TEXT));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(e: ProviderError) -> String {
        match e {
            ProviderError::UnsupportedOption {
                user_fault_string,
                operator_fault_string,
            } => {
                assert_eq!(user_fault_string, operator_fault_string);
                user_fault_string
            }
            other => panic!("not UnsupportedOption: {other:?}"),
        }
    }

    #[test]
    fn protocols() {
        for p in PROTOCOLS {
            assert!(protocol(Some(p)).is_ok());
        }
        for p in ["HTTP", "HTTPS", "TERMINATED_HTTPS", "PROMETHEUS", "tcp"] {
            assert_eq!(
                text(protocol(Some(p)).unwrap_err()),
                format!("OVN provider does not support {p} protocol")
            );
        }
        assert_eq!(
            text(protocol(None).unwrap_err()),
            "OVN provider does not support None protocol"
        );
    }

    #[test]
    fn algorithms() {
        assert!(algorithm(Some("SOURCE_IP_PORT")).is_ok());
        assert!(algorithm(Some("SOURCE_IP")).is_ok());
        for a in ["ROUND_ROBIN", "LEAST_CONNECTIONS"] {
            assert_eq!(
                text(algorithm(Some(a)).unwrap_err()),
                format!("OVN provider does not support {a} algorithm")
            );
        }
    }

    #[test]
    fn persistence() {
        assert!(session_persistence(None).is_ok());
        assert!(session_persistence(Some(&json!(null))).is_ok());
        assert!(session_persistence(Some(&json!({}))).is_ok());
        assert!(
            session_persistence(Some(
                &json!({"type": "SOURCE_IP", "persistence_timeout": 10})
            ))
            .is_ok()
        );
        assert_eq!(
            text(session_persistence(Some(&json!({"type": "HTTP_COOKIE"}))).unwrap_err()),
            "OVN provider does not support HTTP_COOKIE session persistence. Only SOURCE_IP type is supported."
        );
    }

    #[test]
    fn cidrs_and_listeners() {
        assert!(allowed_cidrs(None).is_ok());
        assert!(allowed_cidrs(Some(&vec![])).is_ok());
        let mut l = Listener {
            listener_id: "l".into(),
            protocol: Some("TCP".into()),
            allowed_cidrs: Some(vec!["10.0.0.0/8".into(), "2001:db8::/32".into()]),
            ..Default::default()
        };
        assert!(listener_create(&l).is_ok());
        l.allowed_cidrs = Some(vec!["10.0.0.0/8".into(), "10.0.0.0/33".into()]);
        assert_eq!(
            text(listener_create(&l).unwrap_err()),
            "Value should be IPv4 or IPv6 CIDR format: '10.0.0.0/33'"
        );
        assert!(listener_update(&l).is_err());
        assert!(listener_update(&Listener::default()).is_ok());
        let l = Listener {
            protocol: Some("HTTP".into()),
            ..Default::default()
        };
        assert_eq!(
            text(listener_create(&l).unwrap_err()),
            "OVN provider does not support HTTP protocol"
        );
    }

    #[test]
    fn pools() {
        let mut p = Pool {
            pool_id: "p".into(),
            protocol: Some("TCP".into()),
            lb_algorithm: Some("SOURCE_IP_PORT".into()),
            ..Default::default()
        };
        assert!(pool_create(&p, true).is_ok());
        p.healthmonitor = Some(HealthMonitor {
            kind: Some("HTTP".into()),
            ..Default::default()
        });
        assert_eq!(
            text(pool_create(&p, true).unwrap_err()),
            "OVN provider does not support HTTP health monitor type. Supported types: UDP-CONNECT, TCP"
        );
        p.lb_algorithm = Some("ROUND_ROBIN".into());
        assert!(pool_create(&p, true).is_err());
        // update checks only present fields
        assert!(pool_update(&Pool::default()).is_ok());
        let u = Pool {
            lb_algorithm: Some("LEAST_CONNECTIONS".into()),
            ..Default::default()
        };
        assert_eq!(
            text(pool_update(&u).unwrap_err()),
            "OVN provider does not support LEAST_CONNECTIONS algorithm"
        );
    }

    #[test]
    fn members() {
        let mut m = Member {
            member_id: "m".into(),
            address: Some("10.0.0.1".into()),
            ..Default::default()
        };
        assert!(member_monitor_options(&m).is_ok());
        m.monitor_port = Some(8080);
        assert_eq!(
            text(member_monitor_options(&m).unwrap_err()),
            "OVN Load Balancer does not support different member monitor address or port."
        );
        assert_eq!(
            text(batch_member_monitor_options(&m).unwrap_err()),
            "OVN provider does not support monitor options"
        );
        m.monitor_port = None;
        m.monitor_address = Some("10.0.0.2".into());
        assert!(has_monitor_options(&m));
        m.monitor_address = Some(String::new());
        assert!(!has_monitor_options(&m));
    }

    #[test]
    fn ip_families() {
        let v4 = vec!["10.0.0.5".to_string()];
        assert!(!ip_version_differs("10.0.0.9", &v4));
        assert!(ip_version_differs("2001:db8::9", &v4));
        assert_eq!(
            text(member_ip_version("2001:db8::9", &v4).unwrap_err()),
            IP_MIXING_TEXT
        );
        let mixed = vec!["10.0.0.5".to_string(), "2001:db8::5".to_string()];
        assert!(!ip_version_differs("2001:db8::9", &mixed));
        assert!(!ip_version_differs("10.0.0.9", &[]));
        let v6 = vec!["2001:db8::5".to_string()];
        assert!(ip_version_differs("10.0.0.9", &v6));
    }

    #[test]
    fn subnets() {
        assert!(ip_in_cidr("10.0.0.10", "10.0.0.0/24"));
        assert!(!ip_in_cidr("10.0.1.10", "10.0.0.0/24"));
        assert!(ip_in_cidr("10.9.9.9", "0.0.0.0/0"));
        assert!(ip_in_cidr("2001:db8::1", "2001:db8::/64"));
        assert!(!ip_in_cidr("2001:db9::1", "2001:db8::/64"));
        assert!(!ip_in_cidr("10.0.0.1", "2001:db8::/64"));
        assert!(!ip_in_cidr("x", "10.0.0.0/24"));
        assert!(!ip_in_cidr("10.0.0.1", "10.0.0.0/33"));
        assert!(
            text(member_subnet_required(MemberSubnetCall::Create))
                .contains("for Member creation with OVN")
        );
        assert!(
            text(member_subnet_required(MemberSubnetCall::Delete))
                .contains("for Member deletion if it is")
        );
        assert!(
            text(member_subnet_required(MemberSubnetCall::Batch))
                .contains("for Member batch update with")
        );
    }

    #[test]
    fn health_monitors() {
        let hm = HealthMonitor {
            kind: Some("TCP".into()),
            ..Default::default()
        };
        assert!(health_monitor_create(&hm, true).is_ok());
        let hm = HealthMonitor {
            kind: Some("UDP-CONNECT".into()),
            ..Default::default()
        };
        assert!(health_monitor_create(&hm, true).is_ok());
        assert_eq!(
            text(health_monitor_create(&hm, false).unwrap_err()),
            HC_UNSUPPORTED_TEXT
        );
        let hm = HealthMonitor::default();
        assert_eq!(
            text(health_monitor_create(&hm, true).unwrap_err()),
            "OVN provider health monitor type not specified."
        );
        for t in ["HTTP", "HTTPS", "PING", "TLS-HELLO", "SCTP"] {
            let hm = HealthMonitor {
                kind: Some(t.into()),
                ..Default::default()
            };
            assert_eq!(
                text(health_monitor_create(&hm, true).unwrap_err()),
                format!(
                    "OVN provider does not support {t} health monitor type. Supported types: UDP-CONNECT, TCP"
                )
            );
        }
        assert!(health_monitor_update(true).is_ok());
    }
}
