//! `Load_Balancer.vips`: the data-plane mapping, recomputed from `external_ids` on every
//! change (seed 000 §1.2, `helper.py::_frame_vip_ips`).
//!
//! Shape: `"<vip>:<port>" = "<ip>:<port>,<ip>:<port>"`, IPv6 written `[addr]:port`. Nothing when
//! the LB is disabled (`enabled` = `False`); per enabled listener whose pool is enabled and has
//! members, the members not OFFLINE in `neutron:member_status` are grouped by IP family and
//! mapped from every VIP and additional VIP of the same family, and from the VIP FIP and the
//! additional FIPs (IPv4 only). With a flavor's `reject` ([`crate::flavor`]), an enabled
//! listener without a backend of a VIP's family keeps that VIP with no backends
//! (`"<vip>:<port>" = ""`), so OVN answers its clients with a reset / ICMP unreachable
//! instead of letting them time out.

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};

use crate::external_ids::{self as ext, ExternalIds, ListenerValue, ObjectKey};

/// Compute the `vips` column for a row's `external_ids`.
///
/// Addresses that do not parse (a corrupt VIP key) are skipped, never a panic.
pub fn frame_vips(ids: &ExternalIds) -> BTreeMap<String, String> {
    let mut vips = BTreeMap::new();
    if ids.get(ext::ENABLED).map(String::as_str) == Some("False") {
        return vips;
    }
    let mut lb_vips: Vec<IpAddr> = Vec::new();
    if let Some(v) = ids.get(ext::VIP) {
        lb_vips.extend(v.parse::<IpAddr>().ok());
    }
    lb_vips.extend(
        ext::parse_list(ids, ext::ADDITIONAL_VIPS)
            .iter()
            .filter_map(|v| v.parse::<IpAddr>().ok()),
    );
    let mut fips: Vec<IpAddr> = Vec::new();
    if let Some(v) = ids.get(ext::VIP_FIP) {
        fips.extend(v.parse::<IpAddr>().ok());
    }
    fips.extend(
        ext::parse_list(ids, ext::ADDITIONAL_VIP_FIPS)
            .iter()
            .filter_map(|v| v.parse::<IpAddr>().ok()),
    );
    let statuses = ext::parse_member_status(ids);
    let reject = crate::flavor::OvnFlavor::of_row(ids).reject == Some(true);

    for (key, value) in ids {
        let Some(ObjectKey::Listener { enabled: true, .. }) = ObjectKey::parse(key) else {
            continue;
        };
        let Ok(ListenerValue { port, pool_id }) = ListenerValue::parse(value) else {
            continue;
        };
        // only the enabled key: a disabled pool is stored as `pool_<id>:D`
        let pool_value = pool_id.and_then(|p| ids.get(&ext::pool_key(&p, true)));
        if pool_value.is_none() && !reject {
            continue;
        }
        let (members, _) = ext::parse_pool_members(pool_value.map_or("", String::as_str));
        let online = members
            .iter()
            .filter(|m| statuses.get(&m.id).map(String::as_str) != Some("OFFLINE"))
            .map(|m| SocketAddr::new(m.address, m.port));
        let (v4, v6): (Vec<SocketAddr>, Vec<SocketAddr>) = online.partition(SocketAddr::is_ipv4);
        let join = |l: &[SocketAddr]| {
            l.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(",")
        };
        for vip in &lb_vips {
            let backends = if vip.is_ipv4() { &v4 } else { &v6 };
            if !backends.is_empty() || reject {
                vips.insert(SocketAddr::new(*vip, port).to_string(), join(backends));
            }
        }
        if !v4.is_empty() || reject {
            for fip in fips.iter().filter(|f| f.is_ipv4()) {
                vips.insert(SocketAddr::new(*fip, port).to_string(), join(&v4));
            }
        }
    }
    vips
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(pairs: &[(&str, &str)]) -> ExternalIds {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    const TWO: &str = "member_m1_10.0.0.10:8080_s,member_m2_10.0.0.11:8080_s";

    #[test]
    fn basic_listener_pool_members() {
        let e = ids(&[
            ("neutron:vip", "10.0.0.5"),
            ("enabled", "True"),
            ("listener_L", "80:pool_P"),
            ("pool_P", TWO),
        ]);
        let v = frame_vips(&e);
        assert_eq!(v.len(), 1);
        assert_eq!(v["10.0.0.5:80"], "10.0.0.10:8080,10.0.0.11:8080");
    }

    #[test]
    fn nothing_when_disabled_or_incomplete() {
        let base = [("neutron:vip", "10.0.0.5"), ("pool_P", TWO)];
        let mut e = ids(&base);
        e.insert("enabled".into(), "False".into());
        e.insert("listener_L".into(), "80:pool_P".into());
        assert!(frame_vips(&e).is_empty(), "LB disabled");
        let mut e = ids(&base);
        e.insert("listener_L:D".into(), "80:pool_P".into());
        assert!(frame_vips(&e).is_empty(), "listener disabled");
        let e = ids(&[
            ("neutron:vip", "10.0.0.5"),
            ("listener_L", "80:pool_P"),
            ("pool_P:D", TWO),
        ]);
        assert!(frame_vips(&e).is_empty(), "pool disabled");
        let e = ids(&[
            ("neutron:vip", "10.0.0.5"),
            ("listener_L", "80:pool_P"),
            ("pool_P", ""),
        ]);
        assert!(frame_vips(&e).is_empty(), "no members");
        let e = ids(&[
            ("neutron:vip", "10.0.0.5"),
            ("listener_L", "80:"),
            ("pool_P", TWO),
        ]);
        assert!(frame_vips(&e).is_empty(), "listener without pool");
    }

    #[test]
    fn offline_members_skipped() {
        let e = ids(&[
            ("neutron:vip", "10.0.0.5"),
            ("listener_L", "80:pool_P"),
            ("pool_P", TWO),
            (
                "neutron:member_status",
                r#"{"m1": "OFFLINE", "m2": "ERROR"}"#,
            ),
        ]);
        assert_eq!(frame_vips(&e)["10.0.0.5:80"], "10.0.0.11:8080");
    }

    #[test]
    fn ipv6_brackets_and_family_split() {
        let e = ids(&[
            ("neutron:vip", "10.0.0.5"),
            ("neutron:additional_vips", "2001:db8::5"),
            ("listener_L", "443:pool_P"),
            (
                "pool_P",
                "member_m1_10.0.0.10:8443_s,member_m2_2001:db8::10:8443_s6",
            ),
        ]);
        let v = frame_vips(&e);
        assert_eq!(v.len(), 2);
        assert_eq!(v["10.0.0.5:443"], "10.0.0.10:8443");
        assert_eq!(v["[2001:db8::5]:443"], "[2001:db8::10]:8443");
    }

    #[test]
    fn fips_ipv4_only() {
        let e = ids(&[
            ("neutron:vip", "10.0.0.5"),
            ("neutron:vip_fip", "172.24.4.10"),
            ("neutron:additional_vip_fips", "172.24.4.11,2001:db8::99"),
            ("listener_L", "80:pool_P"),
            ("pool_P", TWO),
        ]);
        let v = frame_vips(&e);
        assert_eq!(v.len(), 3);
        assert_eq!(v["172.24.4.10:80"], "10.0.0.10:8080,10.0.0.11:8080");
        assert_eq!(v["172.24.4.11:80"], "10.0.0.10:8080,10.0.0.11:8080");
    }

    #[test]
    fn two_listeners_one_pool() {
        let e = ids(&[
            ("neutron:vip", "10.0.0.5"),
            ("listener_A", "80:pool_P"),
            ("listener_B", "8000:pool_P"),
            ("pool_P", "member_m1_10.0.0.10:8080_s"),
        ]);
        let v = frame_vips(&e);
        assert_eq!(v.len(), 2);
        assert_eq!(v["10.0.0.5:8000"], "10.0.0.10:8080");
    }

    /// With a flavor's `reject`, a listener without backends keeps its VIPs, empty; the
    /// others are framed as without it.
    #[test]
    fn reject_keeps_vips_without_backends() {
        let flavor = r#"{"reject":true}"#;
        let e = ids(&[
            ("neutron:vip", "10.0.0.5"),
            ("neutron:vip_fip", "172.24.4.10"),
            ("keel:flavor", flavor),
            ("listener_A", "80:pool_P"),
            ("listener_B", "81:"),
            ("listener_C", "82:pool_Q"),
            ("listener_D:D", "83:pool_P"),
            ("pool_P", "member_m1_10.0.0.10:8080_s"),
            ("pool_Q", ""),
            ("neutron:member_status", r#"{"m1": "OFFLINE"}"#),
        ]);
        let v = frame_vips(&e);
        let want: BTreeMap<String, String> = [
            "10.0.0.5:80",
            "10.0.0.5:81",
            "10.0.0.5:82",
            "172.24.4.10:80",
            "172.24.4.10:81",
            "172.24.4.10:82",
        ]
        .into_iter()
        .map(|k| (k.to_string(), String::new()))
        .collect();
        assert_eq!(v, want);
        let mut on = e.clone();
        on.remove("neutron:member_status");
        assert_eq!(frame_vips(&on)["10.0.0.5:80"], "10.0.0.10:8080");
        let mut off = e.clone();
        off.insert("keel:flavor".into(), r#"{"reject":false}"#.into());
        assert!(frame_vips(&off).is_empty());
        off.insert("keel:flavor".into(), flavor.into());
        off.insert("enabled".into(), "False".into());
        assert!(frame_vips(&off).is_empty(), "LB disabled");
    }

    #[test]
    fn corrupt_vip_ignored() {
        let e = ids(&[
            ("neutron:vip", "nonsense"),
            ("listener_A", "80:pool_P"),
            ("pool_P", TWO),
        ]);
        assert!(frame_vips(&e).is_empty());
    }
}
