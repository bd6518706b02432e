//! Provider flavors for OVN: the flavor metadata keys Keel's OVN provider supports, their
//! validation, and how they land on the load balancer's NB `Load_Balancer` rows.
//!
//! The reference (ovn-octavia-provider) refuses every flavor; these keys are Keel's. Each
//! maps onto one OVN `Load_Balancer` setting (`ovn-nb.xml`, "Load_Balancer options"):
//!
//! | key | type | NB | OVN ≥ (NB schema) |
//! |---|---|---|---|
//! | `reject` | boolean | `options:reject` | 21.03 (5.31.0) |
//! | `ct_flush` | boolean | `options:ct_flush` | 23.06 (7.0.4) |
//! | `neighbor_responder` | `reachable` / `all` / `none` | `options:neighbor_responder` | 22.06 (6.3.0) |
//! | `hairpin_snat_ip` | array of IP addresses, one per family | `options:hairpin_snat_ip` (space-separated) | 21.03 (5.31.0) |
//! | `selection_fields` | set of `eth_src eth_dst ip_src ip_dst tp_src tp_dst` | `selection_fields` | any |
//!
//! OVN rejects only on a VIP it knows: with `reject`, an enabled listener without a backend
//! keeps its VIPs with no backends (`crate::vips`), where Keel otherwise leaves them out.
//!
//! `selection_fields` replaces the hash fields of a row before its first pool and of a row
//! whose pools are `SOURCE_IP_PORT` (the reference's `LB_SELECTION_FIELDS_MAP`:
//! `ip_src ip_dst tp_src tp_dst` / `ip_dst ip_src tp_dst tp_src`); a `SOURCE_IP` pool keeps
//! `ip_src ip_dst` (what the algorithm means). `[]` leaves the column empty: OVS's
//! `dp_hash` selection.
//!
//! Versions: OVN sets no version anywhere a client reads except the NB schema version, so a
//! key is refused when the connected `OVN_Northbound` schema is older than the schema of
//! the first OVN release documenting the key (read from OVN's `NEWS` and `ovn-nb.xml` at
//! the release tags). OVN 23.03 (schema 7.0.0) has no `ct_flush`, so a flavor naming it,
//! `true` or `false`, cannot be honoured there. (OVN's `NEWS` for 23.06 says removed
//! backends' entries were flushed by default before; on the stack's 23.03.1 a UDP flow to a
//! removed member is not flushed: `crates/keel/tests/traffic_flavors.rs`.)
//!
//! Where the flavor lives: Octavia hands the profile's metadata to `loadbalancer_create`
//! only ([`provider::LoadBalancer::flavor`]); the provider writes it onto every row of the
//! load balancer — the options themselves, and the flavor as compact JSON under
//! [`FLAVOR_KEY`] in `external_ids` — so that every later job (a new protocol row, a pool's
//! hash fields) reads it from the NB row it edits, without the database. `keel ovn-db-sync`
//! compares the rows with the database's flavor (load balancer → flavor → profile) and
//! repairs them.

use std::collections::BTreeMap;
use std::net::IpAddr;

use provider::metadata::{self, Kind, Property, py_repr};
use serde_json::{Map, Value, json};

use crate::external_ids::ExternalIds;
use crate::nb::LoadBalancerRow;

/// `external_ids` key of a row holding its load balancer's OVN flavor (compact JSON of the
/// flavor's keys, [`OvnFlavor::marker`]); absent without a flavor.
pub const FLAVOR_KEY: &str = "keel:flavor";

/// `neighbor_responder` values (OVN's).
const RESPONDER: &[&str] = &["reachable", "all", "none"];

/// The `selection_fields` words of the NB schema's enum.
const FIELDS: &[&str] = &["eth_dst", "eth_src", "ip_dst", "ip_src", "tp_dst", "tp_src"];

/// The flavor schema's properties.
const PROPERTIES: &[Property] = &[
    Property {
        key: "reject",
        kind: Kind::Boolean,
        allowed: None,
        description: "When true, a client connecting while no member is up gets a TCP reset \
                      (ICMP port unreachable for UDP and SCTP) instead of no answer \
                      (OVN Load_Balancer options:reject; OVN 21.03 or later).",
    },
    Property {
        key: "ct_flush",
        kind: Kind::Boolean,
        allowed: None,
        description: "When true, OVN flushes the conntrack entries of a removed or changed \
                      member, so established flows (UDP) do not keep going to it \
                      (options:ct_flush; OVN 23.06 or later, refused on older OVN).",
    },
    Property {
        key: "neighbor_responder",
        kind: Kind::String,
        allowed: Some(RESPONDER),
        description: "Which VIPs the load balancer's routers answer ARP/ND for: reachable \
                      (VIPs in a router subnet, OVN's default), all, or none \
                      (options:neighbor_responder; OVN 22.06 or later).",
    },
    Property {
        key: "hairpin_snat_ip",
        kind: Kind::StringList,
        allowed: None,
        description: "Source address of hair-pinned traffic (a member reaching the VIP and \
                      balanced to itself) instead of the VIP: at most one IPv4 and one IPv6 \
                      address (options:hairpin_snat_ip; OVN 21.03 or later).",
    },
    Property {
        key: "selection_fields",
        kind: Kind::StringSet(FIELDS),
        allowed: None,
        description: "The hash fields of the load balancer before its first pool and for \
                      SOURCE_IP_PORT pools (default ip_src, ip_dst, tp_src, tp_dst); \
                      SOURCE_IP pools keep ip_src, ip_dst; an empty list selects OVS's \
                      dp_hash (Load_Balancer selection_fields).",
    },
];

/// Per key: the first OVN release that has it and that release's `OVN_Northbound` schema.
const MINIMUM: &[(&str, &str, (u32, u32, u32))] = &[
    ("reject", "21.03", (5, 31, 0)),
    ("hairpin_snat_ip", "21.03", (5, 31, 0)),
    ("neighbor_responder", "22.06", (6, 3, 0)),
    ("ct_flush", "23.06", (7, 0, 4)),
];

/// The `options` keys a flavor sets: Keel owns them on its rows (a sync removes the ones the
/// load balancer's flavor does not set).
pub const OPTION_KEYS: [&str; 4] = [
    "reject",
    "ct_flush",
    "neighbor_responder",
    "hairpin_snat_ip",
];

/// `get_supported_flavor_metadata`: `{key: description}` of the five keys.
pub fn supported_flavor_metadata() -> Value {
    metadata::descriptions(PROPERTIES)
}

/// The draft-07 JSON schema `flavor_data` is validated against (the keys, their types).
pub fn flavor_schema() -> Value {
    metadata::json_schema("Octavia OVN Provider Flavor Metadata Schema", PROPERTIES)
}

/// Validates a flavor profile's metadata for the OVN whose `OVN_Northbound` schema version
/// is `nb_schema` (`None`: unknown, no version check). `Err` is the user text: the schema
/// check's (Octavia's jsonschema texts, [`provider::metadata::check`]), a value OVN would
/// refuse (an address that is not one, two of one family), or a key the connected OVN
/// cannot honour.
pub fn validate(meta: &Value, nb_schema: Option<&str>) -> Result<(), String> {
    metadata::check(meta, PROPERTIES)?;
    let ips = meta
        .get("hairpin_snat_ip")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut families = [0usize; 2];
    for ip in ips {
        let Some(addr) = ip.as_str().and_then(|s| s.parse::<IpAddr>().ok()) else {
            return Err(format!(
                "hairpin_snat_ip {} is not an IP address",
                py_repr(ip)
            ));
        };
        families[usize::from(addr.is_ipv6())] += 1;
    }
    if families.iter().any(|n| *n > 1) {
        return Err(format!(
            "hairpin_snat_ip {} holds more than one address of a family (OVN takes one IPv4 \
             and one IPv6 address)",
            py_repr(&Value::Array(ips.to_vec()))
        ));
    }
    let Some(have) = nb_schema else {
        return Ok(());
    };
    let version = parse_version(have);
    for (key, release, min) in MINIMUM {
        if meta.get(*key).is_some() && version.is_none_or(|v| v < *min) {
            return Err(format!(
                "{key} needs OVN {release} or later (OVN_Northbound schema {}.{}.{}); the \
                 connected OVN_Northbound schema is {have}",
                min.0, min.1, min.2
            ));
        }
    }
    Ok(())
}

fn parse_version(v: &str) -> Option<(u32, u32, u32)> {
    let mut it = v.split('.').map(|p| p.parse::<u32>().ok());
    Some((it.next()??, it.next()??, it.next().flatten().unwrap_or(0)))
}

/// A load balancer's OVN flavor: the validated metadata, typed. `Default`: no flavor.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OvnFlavor {
    /// `options:reject`.
    pub reject: Option<bool>,
    /// `options:ct_flush`.
    pub ct_flush: Option<bool>,
    /// `options:neighbor_responder`.
    pub neighbor_responder: Option<String>,
    /// `options:hairpin_snat_ip` (empty: unset).
    pub hairpin_snat_ip: Vec<String>,
    /// The hash fields for rows without pools and `SOURCE_IP_PORT` pools.
    pub selection_fields: Option<Vec<String>>,
}

impl OvnFlavor {
    /// From a profile's metadata (`flavor_data`, validated at profile create and again at LB
    /// create): keys it does not know and values of the wrong type are skipped.
    pub fn from_metadata(meta: Option<&Value>) -> Self {
        let Some(m) = meta.and_then(Value::as_object) else {
            return Self::default();
        };
        let strings = |k: &str| -> Option<Vec<String>> {
            m.get(k).and_then(Value::as_array).map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
        };
        Self {
            reject: m.get("reject").and_then(Value::as_bool),
            ct_flush: m.get("ct_flush").and_then(Value::as_bool),
            neighbor_responder: m
                .get("neighbor_responder")
                .and_then(Value::as_str)
                .map(str::to_string),
            hairpin_snat_ip: strings("hairpin_snat_ip").unwrap_or_default(),
            selection_fields: strings("selection_fields"),
        }
    }

    /// The flavor a row carries under [`FLAVOR_KEY`] (none when absent or unreadable).
    pub fn of_row(ids: &ExternalIds) -> Self {
        let v = ids
            .get(FLAVOR_KEY)
            .and_then(|s| serde_json::from_str::<Value>(s).ok());
        Self::from_metadata(v.as_ref())
    }

    /// True when the flavor sets nothing.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// The [`OPTION_KEYS`] values the flavor sets (`true`/`false`, OVN's words).
    pub fn options(&self) -> BTreeMap<String, String> {
        let mut o = BTreeMap::new();
        if let Some(b) = self.reject {
            o.insert("reject".into(), b.to_string());
        }
        if let Some(b) = self.ct_flush {
            o.insert("ct_flush".into(), b.to_string());
        }
        if let Some(n) = &self.neighbor_responder {
            o.insert("neighbor_responder".into(), n.clone());
        }
        if !self.hairpin_snat_ip.is_empty() {
            o.insert("hairpin_snat_ip".into(), self.hairpin_snat_ip.join(" "));
        }
        o
    }

    /// The [`FLAVOR_KEY`] value: compact JSON of the set keys, keys sorted; `None` when
    /// empty.
    pub fn marker(&self) -> Option<String> {
        if self.is_empty() {
            return None;
        }
        let mut m = Map::new();
        if let Some(b) = self.reject {
            m.insert("reject".into(), json!(b));
        }
        if let Some(b) = self.ct_flush {
            m.insert("ct_flush".into(), json!(b));
        }
        if let Some(n) = &self.neighbor_responder {
            m.insert("neighbor_responder".into(), json!(n));
        }
        if !self.hairpin_snat_ip.is_empty() {
            m.insert("hairpin_snat_ip".into(), json!(self.hairpin_snat_ip));
        }
        if let Some(f) = &self.selection_fields {
            m.insert("selection_fields".into(), json!(f));
        }
        let sorted: BTreeMap<String, Value> = m.into_iter().collect();
        serde_json::to_string(&sorted).ok()
    }

    /// Writes the flavor onto `row`: [`FLAVOR_KEY`] and the [`OPTION_KEYS`] (those the
    /// flavor does not set are removed); other options and `selection_fields` untouched.
    pub fn apply(&self, row: &mut LoadBalancerRow) {
        match self.marker() {
            Some(m) => row.external_ids.insert(FLAVOR_KEY.into(), m),
            None => row.external_ids.remove(FLAVOR_KEY),
        };
        for k in OPTION_KEYS {
            row.options.remove(k);
        }
        row.options.extend(self.options());
    }

    /// True when `row` carries exactly this flavor ([`OvnFlavor::apply`] would change
    /// nothing).
    pub fn matches(&self, row: &LoadBalancerRow) -> bool {
        let mut r = row.clone();
        self.apply(&mut r);
        r.external_ids == row.external_ids && r.options == row.options
    }
}

/// The hash fields the flavor a row carries sets for a pool `algorithm` (`None`: the row
/// before its first pool): its `selection_fields` for `None` and `SOURCE_IP_PORT`; `None`
/// when it sets none or for `SOURCE_IP` (the algorithm's own fields then,
/// [`crate::lb::selection_fields_of`]).
pub fn selection_fields(ids: &ExternalIds, algorithm: Option<&str>) -> Option<Vec<String>> {
    if algorithm == Some("SOURCE_IP") {
        return None;
    }
    OvnFlavor::of_row(ids).selection_fields
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(meta: Value, schema: Option<&str>) -> String {
        validate(&meta, schema).unwrap_err()
    }

    /// The texts of Octavia's `validate_flavor` (jsonschema 4.26 `best_match`, the key
    /// prefixed), as Python gives them for `flavor_schema()`.
    #[test]
    fn schema_texts_are_octavias() {
        assert_eq!(
            err(json!({"rejekt": true}), None),
            "Additional properties are not allowed ('rejekt' was unexpected)"
        );
        assert_eq!(
            err(json!({"reject": "yes", "zz": 1, "aa": 2}), None),
            "Additional properties are not allowed ('aa', 'zz' were unexpected)"
        );
        assert_eq!(
            err(json!({"reject": "yes"}), None),
            "reject 'yes' is not of type 'boolean'"
        );
        assert_eq!(
            err(json!({"ct_flush": 1}), None),
            "ct_flush 1 is not of type 'boolean'"
        );
        assert_eq!(
            err(json!({"neighbor_responder": "some"}), None),
            "neighbor_responder 'some' is not one of ['reachable', 'all', 'none']"
        );
        assert_eq!(
            err(json!({"neighbor_responder": true}), None),
            "neighbor_responder True is not of type 'string'"
        );
        assert_eq!(
            err(json!({"hairpin_snat_ip": "10.0.0.1"}), None),
            "hairpin_snat_ip '10.0.0.1' is not of type 'array'"
        );
        assert_eq!(
            err(json!({"hairpin_snat_ip": ["10.0.0.1", 5]}), None),
            "hairpin_snat_ip 5 is not of type 'string'"
        );
        assert_eq!(
            err(json!({"selection_fields": ["ip_src", "ip_src"]}), None),
            "selection_fields ['ip_src', 'ip_src'] has non-unique elements"
        );
        assert_eq!(
            err(json!({"selection_fields": ["ip_src", "ip_proto", 3]}), None),
            "selection_fields 3 is not of type 'string'"
        );
        assert_eq!(
            err(json!({"selection_fields": ["ip_proto"]}), None),
            "selection_fields 'ip_proto' is not one of ['eth_dst', 'eth_src', 'ip_dst', \
             'ip_src', 'tp_dst', 'tp_src']"
        );
        // two bad keys: the greatest name wins
        assert_eq!(
            err(json!({"reject": 1, "ct_flush": 1}), None),
            "reject 1 is not of type 'boolean'"
        );
        // a bad set beats a bad item; among items the last wins
        assert_eq!(
            err(json!({"selection_fields": ["ip_proto", "ip_proto"]}), None),
            "selection_fields ['ip_proto', 'ip_proto'] has non-unique elements"
        );
        assert!(
            err(json!({"selection_fields": [3, "x"]}), None)
                .starts_with("selection_fields 'x' is not one of")
        );
        assert_eq!(err(json!([]), None), "[] is not of type 'object'");
    }

    #[test]
    fn values_ovn_would_refuse() {
        assert_eq!(
            err(json!({"hairpin_snat_ip": ["10.0.0.300"]}), None),
            "hairpin_snat_ip '10.0.0.300' is not an IP address"
        );
        assert!(
            err(json!({"hairpin_snat_ip": ["10.0.0.1", "10.0.0.2"]}), None)
                .starts_with("hairpin_snat_ip ['10.0.0.1', '10.0.0.2'] holds more than one")
        );
        assert!(validate(&json!({"hairpin_snat_ip": ["10.0.0.1", "fd00::1"]}), None).is_ok());
        assert!(validate(&json!({"selection_fields": []}), None).is_ok());
        assert!(validate(&json!({}), None).is_ok());
    }

    #[test]
    fn keys_newer_than_the_connected_ovn_are_refused() {
        let all = json!({"reject": true, "hairpin_snat_ip": ["10.0.0.9"],
            "neighbor_responder": "all", "selection_fields": ["ip_src"]});
        // OVN 23.03 (schema 7.0.0): all but ct_flush
        assert!(validate(&all, Some("7.0.0")).is_ok());
        assert_eq!(
            err(json!({"ct_flush": true}), Some("7.0.0")),
            "ct_flush needs OVN 23.06 or later (OVN_Northbound schema 7.0.4); the connected \
             OVN_Northbound schema is 7.0.0"
        );
        assert!(err(json!({"ct_flush": false}), Some("7.0.0")).starts_with("ct_flush needs"));
        assert!(validate(&json!({"ct_flush": true}), Some("7.0.4")).is_ok());
        assert!(validate(&json!({"ct_flush": true}), Some("7.11.0")).is_ok());
        assert!(err(all.clone(), Some("6.1.0")).starts_with("neighbor_responder needs OVN 22.06"));
        assert!(err(json!({"reject": true}), Some("5.29.0")).starts_with("reject needs OVN 21.03"));
        assert!(err(json!({"reject": true}), Some("garbage")).starts_with("reject needs"));
        assert!(validate(&json!({"selection_fields": []}), Some("5.0.0")).is_ok());
    }

    #[test]
    fn rows_carry_the_flavor() {
        let f = OvnFlavor::from_metadata(Some(&json!({"reject": true, "ct_flush": false,
            "neighbor_responder": "none", "hairpin_snat_ip": ["10.0.0.9", "fd00::9"],
            "selection_fields": ["ip_src", "tp_src"]})));
        let mut row = LoadBalancerRow::default();
        row.options.insert("affinity_timeout".into(), "30".into());
        row.options.insert("reject".into(), "false".into());
        assert!(!f.matches(&row));
        f.apply(&mut row);
        assert!(f.matches(&row));
        assert_eq!(
            row.options,
            BTreeMap::from([
                ("affinity_timeout".to_string(), "30".to_string()),
                ("ct_flush".into(), "false".into()),
                ("hairpin_snat_ip".into(), "10.0.0.9 fd00::9".into()),
                ("neighbor_responder".into(), "none".into()),
                ("reject".into(), "true".into()),
            ])
        );
        assert_eq!(OvnFlavor::of_row(&row.external_ids), f);
        let of = |alg| crate::lb::selection_fields_of(&row.external_ids, alg);
        assert_eq!(of(Some("SOURCE_IP_PORT")), ["ip_src", "tp_src"]);
        assert_eq!(of(None), ["ip_src", "tp_src"]);
        assert_eq!(of(Some("SOURCE_IP")), ["ip_src", "ip_dst"]);
        // no flavor: the row loses the keys Keel owns, keeps the others
        OvnFlavor::default().apply(&mut row);
        assert_eq!(row.options.len(), 1);
        assert!(!row.external_ids.contains_key(FLAVOR_KEY));
        assert_eq!(
            selection_fields(&row.external_ids, Some("SOURCE_IP_PORT")),
            None
        );
    }

    #[test]
    fn capabilities_are_the_schema_keys() {
        let caps = supported_flavor_metadata();
        let schema = flavor_schema();
        let keys: Vec<&String> = caps.as_object().unwrap().keys().collect();
        let props: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        assert_eq!(keys, props);
        assert_eq!(keys.len(), 5);
        assert_eq!(schema["additionalProperties"], json!(false));
    }
}
