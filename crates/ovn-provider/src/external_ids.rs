//! The `Load_Balancer.external_ids` keys and value formats (seed 000 §1.2).
//!
//! The provider keeps no database: every Octavia object of an OVN load balancer lives in these
//! keys, which Neutron, the maintenance tasks and the sync tool read too, so the byte format is
//! kept exactly (`ovn_octavia_provider/common/constants.py`, `helper.py` key helpers). Parsing is
//! typed: addresses go through `std::net`, a malformed entry is an [`EntryError`], never a panic.

use std::collections::BTreeMap;
use std::net::IpAddr;

/// A row's `external_ids` (OVSDB map string → string).
pub type ExternalIds = BTreeMap<String, String>;

/// Main VIP address.
pub const VIP: &str = "neutron:vip";
/// Neutron port id of the main VIP.
pub const VIP_PORT_ID: &str = "neutron:vip_port_id";
/// Additional VIP addresses, comma-separated.
pub const ADDITIONAL_VIPS: &str = "neutron:additional_vips";
/// Neutron port ids of the additional VIPs, comma-separated.
pub const ADDITIONAL_VIP_PORT_IDS: &str = "neutron:additional_vip_port_ids";
/// Floating IP of the main VIP port.
pub const VIP_FIP: &str = "neutron:vip_fip";
/// Floating IPs of the additional VIP ports, comma-separated.
pub const ADDITIONAL_VIP_FIPS: &str = "neutron:additional_vip_fips";
/// LB admin_state_up as Python `str(bool)`: `True` / `False`.
pub const ENABLED: &str = "enabled";
/// JSON `{"neutron-<net id>": refcount}` of the switches the row is attached to.
pub const LS_REFS: &str = "ls_refs";
/// Comma-separated `neutron-<router id>` of the routers the row is attached to.
pub const LR_REF: &str = "lr_ref";
/// JSON `{member id: operating status}`.
pub const MEMBER_STATUS: &str = "neutron:member_status";
/// JSON list of the health monitor ids of the row.
pub const HEALTHMONITORS: &str = "octavia:healthmonitors";
/// Marks Neutron port-forwarding rows (`neutron:device_owner` = `port_forwarding_plugin`),
/// which are never ours.
pub const DEVICE_OWNER: &str = "neutron:device_owner";
/// Value of [`DEVICE_OWNER`] on Neutron port-forwarding load balancers.
pub const PORT_FORWARDING_PLUGIN: &str = "port_forwarding_plugin";

/// `Load_Balancer_Health_Check.external_ids` key: the health monitor id.
pub const HC_HEALTHMONITOR: &str = "octavia:healthmonitor";
/// `Load_Balancer_Health_Check.external_ids` key: the pool id.
pub const HC_POOL_ID: &str = "octavia:pool_id";
/// `Load_Balancer_Health_Check.external_ids` key: the VIP (or FIP) address probed for.
pub const HC_VIP: &str = "octavia:vip";

/// Prefix of listener keys.
pub const LISTENER_PREFIX: &str = "listener_";
/// Prefix of pool keys.
pub const POOL_PREFIX: &str = "pool_";
/// Prefix of member entries inside a pool value.
pub const MEMBER_PREFIX: &str = "member_";
/// Suffix of a disabled listener or pool key.
pub const DISABLED_SUFFIX: &str = ":D";
/// Prefix Neutron gives OVN names: `neutron-<uuid>`.
pub const OVN_NAME_PREFIX: &str = "neutron-";

/// `neutron-<id>`, unless already prefixed (`common/utils.py::ovn_name`).
pub fn ovn_name(id: &str) -> String {
    if id.starts_with(OVN_NAME_PREFIX) {
        id.to_string()
    } else {
        format!("{OVN_NAME_PREFIX}{id}")
    }
}

/// `listener_<id>` or `listener_<id>:D`.
pub fn listener_key(listener_id: &str, enabled: bool) -> String {
    format!(
        "{LISTENER_PREFIX}{listener_id}{}",
        if enabled { "" } else { DISABLED_SUFFIX }
    )
}

/// `pool_<id>` or `pool_<id>:D`.
pub fn pool_key(pool_id: &str, enabled: bool) -> String {
    format!(
        "{POOL_PREFIX}{pool_id}{}",
        if enabled { "" } else { DISABLED_SUFFIX }
    )
}

/// Which Octavia object an `external_ids` key names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ObjectKey {
    /// `listener_<id>[:D]`.
    Listener {
        /// Octavia listener UUID.
        id: String,
        /// False for the `:D` form.
        enabled: bool,
    },
    /// `pool_<id>[:D]`.
    Pool {
        /// Octavia pool UUID.
        id: String,
        /// False for the `:D` form.
        enabled: bool,
    },
}

impl ObjectKey {
    /// Classify a key; `None` for every other key (VIP, refs, statuses…).
    pub fn parse(key: &str) -> Option<Self> {
        let split = |rest: &str| match rest.strip_suffix(DISABLED_SUFFIX) {
            Some(id) => (id.to_string(), false),
            None => (rest.to_string(), true),
        };
        if let Some(rest) = key.strip_prefix(LISTENER_PREFIX) {
            let (id, enabled) = split(rest);
            return (!id.is_empty()).then_some(Self::Listener { id, enabled });
        }
        if let Some(rest) = key.strip_prefix(POOL_PREFIX) {
            let (id, enabled) = split(rest);
            return (!id.is_empty()).then_some(Self::Pool { id, enabled });
        }
        None
    }
}

/// A malformed `external_ids` value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed {what}: {value:?}")]
pub struct EntryError {
    /// What was being parsed (`member entry`, `listener value`).
    pub what: &'static str,
    /// The offending text.
    pub value: String,
}

fn bad(what: &'static str, value: &str) -> EntryError {
    EntryError {
        what,
        value: value.to_string(),
    }
}

/// A listener value: `<protocol_port>:pool_<pool id>`, or `<protocol_port>:` without pool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListenerValue {
    /// The listener's protocol_port.
    pub port: u16,
    /// Its default pool, if any.
    pub pool_id: Option<String>,
}

impl ListenerValue {
    /// Parse `80:pool_<id>` / `80:`.
    pub fn parse(value: &str) -> Result<Self, EntryError> {
        let (port, pool) = value
            .split_once(':')
            .ok_or_else(|| bad("listener value", value))?;
        let port = port
            .parse::<u16>()
            .map_err(|_| bad("listener value", value))?;
        let pool_id = if pool.is_empty() {
            None
        } else {
            let id = pool
                .strip_prefix(POOL_PREFIX)
                .ok_or_else(|| bad("listener value", value))?;
            Some(id.to_string())
        };
        Ok(Self { port, pool_id })
    }

    /// The stored text.
    pub fn format(&self) -> String {
        match &self.pool_id {
            Some(id) => format!("{}:{}", self.port, pool_key(id, true)),
            None => format!("{}:", self.port),
        }
    }
}

/// One member inside a pool value: `member_<id>_<ip>:<port>_<subnet id>`.
///
/// IPv6 addresses are written without brackets, as the reference does; the port is the text
/// after the last `:` and the address must parse as an [`IpAddr`].
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct MemberEntry {
    /// Octavia member UUID.
    pub id: String,
    /// Member address, IPv4 or IPv6.
    pub address: IpAddr,
    /// Member `protocol_port`, 1..=65535.
    pub port: u16,
    /// Member subnet id (empty when unknown, as in legacy rows).
    pub subnet_id: String,
}

impl MemberEntry {
    /// Parse one entry.
    pub fn parse(entry: &str) -> Result<Self, EntryError> {
        let rest = entry
            .strip_prefix(MEMBER_PREFIX)
            .ok_or_else(|| bad("member entry", entry))?;
        // ids are UUIDs (no '_'), so the id ends at the first '_' and the subnet starts after
        // the last one.
        let (id, rest) = rest
            .split_once('_')
            .ok_or_else(|| bad("member entry", entry))?;
        let (addr_port, subnet_id) = rest.rsplit_once('_').unwrap_or((rest, ""));
        let (addr, port) = addr_port
            .rsplit_once(':')
            .ok_or_else(|| bad("member entry", entry))?;
        let addr = addr.trim_start_matches('[').trim_end_matches(']');
        let address = addr
            .parse::<IpAddr>()
            .map_err(|_| bad("member entry", entry))?;
        let port = port
            .parse::<u16>()
            .map_err(|_| bad("member entry", entry))?;
        if id.is_empty() {
            return Err(bad("member entry", entry));
        }
        Ok(Self {
            id: id.to_string(),
            address,
            port,
            subnet_id: subnet_id.to_string(),
        })
    }

    /// The stored text.
    pub fn format(&self) -> String {
        format!(
            "{MEMBER_PREFIX}{}_{}:{}_{}",
            self.id, self.address, self.port, self.subnet_id
        )
    }
}

/// Parse a pool value (comma-joined entries; empty string = no member). Malformed entries are
/// returned as errors beside the good ones so one bad entry does not hide the pool.
pub fn parse_pool_members(value: &str) -> (Vec<MemberEntry>, Vec<EntryError>) {
    let mut ok = Vec::new();
    let mut errs = Vec::new();
    for part in value.split(',').filter(|p| !p.is_empty()) {
        match MemberEntry::parse(part) {
            Ok(m) => ok.push(m),
            Err(e) => errs.push(e),
        }
    }
    (ok, errs)
}

/// Format a pool value.
pub fn format_pool_members(members: &[MemberEntry]) -> String {
    members
        .iter()
        .map(MemberEntry::format)
        .collect::<Vec<_>>()
        .join(",")
}

/// Python `json.dumps` of a flat JSON value (`", "` and `": "` separators), so rows we write
/// read the same as the reference's.
pub fn python_json(value: &serde_json::Value) -> String {
    use serde_json::Value;
    match value {
        Value::Object(m) => {
            let parts: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{}: {}", Value::String(k.clone()), python_json(v)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        Value::Array(a) => {
            format!(
                "[{}]",
                a.iter().map(python_json).collect::<Vec<_>>().join(", ")
            )
        }
        other => other.to_string(),
    }
}

/// `ls_refs` as a map; missing or invalid JSON reads as empty (as the reference).
pub fn parse_ls_refs(ext: &ExternalIds) -> BTreeMap<String, i64> {
    ext.get(LS_REFS)
        .and_then(|s| serde_json::from_str(s).ok())
        .unwrap_or_default()
}

/// `ls_refs` text.
pub fn format_ls_refs(refs: &BTreeMap<String, i64>) -> String {
    let v = serde_json::Value::Object(refs.iter().map(|(k, n)| (k.clone(), (*n).into())).collect());
    python_json(&v)
}

/// `lr_ref` as a list of router names.
pub fn parse_lr_ref(ext: &ExternalIds) -> Vec<String> {
    ext.get(LR_REF)
        .map(|s| {
            s.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

/// `neutron:member_status` as a map (member id → operating status text).
pub fn parse_member_status(ext: &ExternalIds) -> BTreeMap<String, String> {
    ext.get(MEMBER_STATUS)
        .and_then(|s| serde_json::from_str(s).ok())
        .unwrap_or_default()
}

/// `neutron:member_status` text.
pub fn format_member_status(m: &BTreeMap<String, String>) -> String {
    let v = serde_json::Value::Object(
        m.iter()
            .map(|(k, s)| (k.clone(), s.clone().into()))
            .collect(),
    );
    python_json(&v)
}

/// `octavia:healthmonitors` as a list.
pub fn parse_healthmonitors(ext: &ExternalIds) -> Vec<String> {
    ext.get(HEALTHMONITORS)
        .and_then(|s| serde_json::from_str(s).ok())
        .unwrap_or_default()
}

/// `octavia:healthmonitors` text.
pub fn format_healthmonitors(ids: &[String]) -> String {
    python_json(&serde_json::Value::Array(
        ids.iter().map(|s| s.clone().into()).collect(),
    ))
}

/// Comma-separated list value (additional VIPs, FIPs, port ids); empty items dropped.
pub fn parse_list(ext: &ExternalIds, key: &str) -> Vec<String> {
    ext.get(key)
        .map(|s| {
            s.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

/// True when the row holds no listener and no pool (`helper.py::_is_lb_empty`).
pub fn is_lb_empty(ext: &ExternalIds) -> bool {
    !ext.keys().any(|k| ObjectKey::parse(k).is_some())
}

/// The key under which a pool is stored on this row (enabled or `:D`), if any.
pub fn find_pool_key(ext: &ExternalIds, pool_id: &str) -> Option<String> {
    [pool_key(pool_id, true), pool_key(pool_id, false)]
        .into_iter()
        .find(|k| ext.contains_key(k))
}

/// The key under which a listener is stored on this row, if any.
pub fn find_listener_key(ext: &ExternalIds, listener_id: &str) -> Option<String> {
    [
        listener_key(listener_id, true),
        listener_key(listener_id, false),
    ]
    .into_iter()
    .find(|k| ext.contains_key(k))
}

/// Ids of the listeners whose value points at `pool_id` (`_get_pool_listeners`).
pub fn pool_listeners(ext: &ExternalIds, pool_id: &str) -> Vec<String> {
    listeners(ext)
        .into_iter()
        .filter(|(_, _, v)| v.pool_id.as_deref() == Some(pool_id))
        .map(|(id, _, _)| id)
        .collect()
}

/// Every parseable listener: `(id, enabled, value)`.
pub fn listeners(ext: &ExternalIds) -> Vec<(String, bool, ListenerValue)> {
    ext.iter()
        .filter_map(|(k, v)| match ObjectKey::parse(k) {
            Some(ObjectKey::Listener { id, enabled }) => {
                ListenerValue::parse(v).ok().map(|lv| (id, enabled, lv))
            }
            _ => None,
        })
        .collect()
}

/// Every pool: `(id, enabled, members)`.
pub fn pools(ext: &ExternalIds) -> Vec<(String, bool, Vec<MemberEntry>)> {
    ext.iter()
        .filter_map(|(k, v)| match ObjectKey::parse(k) {
            Some(ObjectKey::Pool { id, enabled }) => Some((id, enabled, parse_pool_members(v).0)),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: &str = "member_6f1c_10.0.0.10:8080_sub-1";

    #[test]
    fn keys() {
        assert_eq!(listener_key("L", true), "listener_L");
        assert_eq!(listener_key("L", false), "listener_L:D");
        assert_eq!(pool_key("P", true), "pool_P");
        assert_eq!(pool_key("P", false), "pool_P:D");
        assert_eq!(
            ObjectKey::parse("listener_L:D"),
            Some(ObjectKey::Listener {
                id: "L".into(),
                enabled: false
            })
        );
        assert_eq!(
            ObjectKey::parse("pool_P"),
            Some(ObjectKey::Pool {
                id: "P".into(),
                enabled: true
            })
        );
        assert_eq!(ObjectKey::parse("pool_"), None);
        assert_eq!(ObjectKey::parse("neutron:vip"), None);
        assert_eq!(ObjectKey::parse("ls_refs"), None);
    }

    #[test]
    fn ovn_names() {
        assert_eq!(ovn_name("abc"), "neutron-abc");
        assert_eq!(ovn_name("neutron-abc"), "neutron-abc");
    }

    #[test]
    fn listener_values() {
        let v = ListenerValue::parse("80:pool_P").unwrap();
        assert_eq!(
            v,
            ListenerValue {
                port: 80,
                pool_id: Some("P".into())
            }
        );
        assert_eq!(v.format(), "80:pool_P");
        let v = ListenerValue::parse("443:").unwrap();
        assert_eq!(v.pool_id, None);
        assert_eq!(v.format(), "443:");
        assert!(ListenerValue::parse("eighty:").is_err());
        assert!(ListenerValue::parse("80").is_err());
        assert!(ListenerValue::parse("80:xpool").is_err());
        assert!(ListenerValue::parse("70000:").is_err());
    }

    #[test]
    fn member_entries_v4_v6() {
        let m = MemberEntry::parse(M).unwrap();
        assert_eq!(m.id, "6f1c");
        assert_eq!(m.address, "10.0.0.10".parse::<IpAddr>().unwrap());
        assert_eq!(m.port, 8080);
        assert_eq!(m.subnet_id, "sub-1");
        assert_eq!(m.format(), M);
        let v6 = "member_a_2001:db8::1:443_s";
        let m = MemberEntry::parse(v6).unwrap();
        assert_eq!(m.address, "2001:db8::1".parse::<IpAddr>().unwrap());
        assert_eq!(m.port, 443);
        assert_eq!(m.format(), v6);
        // legacy entry without subnet part
        let m = MemberEntry::parse("member_a_10.0.0.1:80").unwrap();
        assert_eq!(m.subnet_id, "");
        for bad in [
            "member__10.0.0.1:80_s",
            "x_a_10.0.0.1:80_s",
            "member_a_10.0.0.300:80_s",
            "member_a_10.0.0.1_s",
            "member_a_10.0.0.1:x_s",
        ] {
            assert!(MemberEntry::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn pool_values() {
        let (ms, errs) = parse_pool_members("");
        assert!(ms.is_empty() && errs.is_empty());
        let v = format!("{M},member_b_10.0.0.11:8080_sub-1");
        let (ms, errs) = parse_pool_members(&v);
        assert_eq!(ms.len(), 2);
        assert!(errs.is_empty());
        assert_eq!(format_pool_members(&ms), v);
        let (ms, errs) = parse_pool_members(&format!("{M},garbage"));
        assert_eq!((ms.len(), errs.len()), (1, 1));
    }

    #[test]
    fn json_values_python_style() {
        let mut refs = BTreeMap::new();
        refs.insert("neutron-a".to_string(), 2);
        refs.insert("neutron-b".to_string(), 1);
        assert_eq!(format_ls_refs(&refs), r#"{"neutron-a": 2, "neutron-b": 1}"#);
        let mut ext = ExternalIds::new();
        ext.insert(LS_REFS.into(), format_ls_refs(&refs));
        assert_eq!(parse_ls_refs(&ext), refs);
        ext.insert(LS_REFS.into(), "not json".into());
        assert!(parse_ls_refs(&ext).is_empty());
        assert_eq!(
            format_healthmonitors(&["h1".into(), "h2".into()]),
            r#"["h1", "h2"]"#
        );
        ext.insert(HEALTHMONITORS.into(), r#"["h1"]"#.into());
        assert_eq!(parse_healthmonitors(&ext), vec!["h1".to_string()]);
        let mut st = BTreeMap::new();
        st.insert("m1".to_string(), "ONLINE".to_string());
        assert_eq!(format_member_status(&st), r#"{"m1": "ONLINE"}"#);
        assert_eq!(format_ls_refs(&BTreeMap::new()), "{}");
    }

    #[test]
    fn lists_and_lookups() {
        let mut ext = ExternalIds::new();
        ext.insert(LR_REF.into(), "neutron-r1,neutron-r2".into());
        assert_eq!(parse_lr_ref(&ext), vec!["neutron-r1", "neutron-r2"]);
        assert!(is_lb_empty(&ext));
        ext.insert("listener_L".into(), "80:pool_P".into());
        ext.insert("listener_K:D".into(), "81:pool_P".into());
        ext.insert("pool_P:D".into(), M.into());
        assert!(!is_lb_empty(&ext));
        assert_eq!(find_pool_key(&ext, "P").as_deref(), Some("pool_P:D"));
        assert_eq!(find_pool_key(&ext, "Q"), None);
        assert_eq!(
            find_listener_key(&ext, "K").as_deref(),
            Some("listener_K:D")
        );
        let mut l = pool_listeners(&ext, "P");
        l.sort();
        assert_eq!(l, vec!["K", "L"]);
        assert_eq!(pools(&ext)[0].0, "P");
        assert!(!pools(&ext)[0].1);
        ext.insert(ADDITIONAL_VIPS.into(), "10.0.0.5, 10.0.0.6".into());
        assert_eq!(
            parse_list(&ext, ADDITIONAL_VIPS),
            vec!["10.0.0.5", "10.0.0.6"]
        );
    }
}
