//! Keystone's service catalog: endpoint [`Interface`]s and the token's [`Catalog`], looked up
//! as keystoneauth's `get_endpoint` (without version discovery).

use serde::{Deserialize, Serialize};

use crate::error::UnknownInterface;

/// Endpoint interface of a catalog entry (keystoneauth `interface`; `publicURL`-style names
/// of octavia.conf `endpoint_type` are accepted by [`std::str::FromStr`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Interface {
    /// `public` (keystoneauth's default).
    #[default]
    Public,
    /// `internal`.
    Internal,
    /// `admin`.
    Admin,
}

impl Interface {
    /// The catalog's spelling: `public`, `internal`, `admin`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Public => "public",
            Self::Internal => "internal",
            Self::Admin => "admin",
        }
    }
}

impl Interface {
    /// Parses octavia.conf `valid_interfaces` (a comma-separated list, e.g.
    /// `internal,public`) into interfaces to try in order. Error: the first unknown entry.
    pub fn parse_list(s: &str) -> Result<Vec<Self>, UnknownInterface> {
        s.split(',')
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(str::parse)
            .collect()
    }
}

impl std::fmt::Display for Interface {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Interface {
    type Err = UnknownInterface;
    /// Accepts `public`/`publicURL`, `internal`/`internalURL`, `admin`/`adminURL`
    /// (case-insensitive). Error: [`UnknownInterface`] with the text as given.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let l = s.trim().to_ascii_lowercase();
        match l.trim_end_matches("url") {
            "public" => Ok(Self::Public),
            "internal" => Ok(Self::Internal),
            "admin" => Ok(Self::Admin),
            _ => Err(UnknownInterface(s.to_string())),
        }
    }
}

/// One endpoint of a catalog entry, as in the token body's `catalog[].endpoints[]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct CatalogEndpoint {
    /// Endpoint UUID; `""` when the catalog omits it.
    #[serde(default)]
    pub id: String,
    /// `public`, `internal` or `admin`.
    pub interface: String,
    /// Region id (Keystone ≥ Newton); `region` is the legacy alias.
    #[serde(default)]
    pub region_id: Option<String>,
    /// Legacy region name.
    #[serde(default)]
    pub region: Option<String>,
    /// Base URL, e.g. `http://127.0.0.1:9696`.
    pub url: String,
}

/// One service of the catalog: its type (`network`, `load-balancer`, `identity`,
/// `key-manager`...) and endpoints.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct CatalogService {
    /// Service type, e.g. `network`.
    #[serde(rename = "type")]
    pub service_type: String,
    /// Service name, e.g. `neutron`.
    #[serde(default)]
    pub name: String,
    /// Service UUID; `""` when the catalog omits it.
    #[serde(default)]
    pub id: String,
    /// Its endpoints (interface, region, URL each); empty when none.
    #[serde(default)]
    pub endpoints: Vec<CatalogEndpoint>,
}

/// The service catalog of a token (`token.catalog`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(transparent)]
pub struct Catalog {
    /// Services in Keystone's order.
    pub services: Vec<CatalogService>,
}

impl Catalog {
    /// URL of the first endpoint of `service_type` with `interface`, in `region` when given
    /// (matched against `region_id` or legacy `region`), as keystoneauth's `get_endpoint`
    /// without version discovery. `None` when nothing matches.
    pub fn url_for(
        &self,
        service_type: &str,
        interface: Interface,
        region: Option<&str>,
    ) -> Option<&str> {
        self.services
            .iter()
            .filter(|s| s.service_type == service_type)
            .flat_map(|s| s.endpoints.iter())
            .find(|e| {
                e.interface == interface.as_str()
                    && region.is_none_or(|r| {
                        e.region_id.as_deref() == Some(r) || e.region.as_deref() == Some(r)
                    })
            })
            .map(|e| e.url.as_str())
    }

    /// The first of `interfaces` that has an endpoint (keystoneauth's `valid_interfaces`
    /// order).
    pub fn url_for_any(
        &self,
        service_type: &str,
        interfaces: &[Interface],
        region: Option<&str>,
    ) -> Option<&str> {
        interfaces
            .iter()
            .find_map(|i| self.url_for(service_type, *i, region))
    }

    /// URL of the first endpoint with `interface` (in `region` when given) of a service whose
    /// type is one of `service_types` and, when `service_name` is given, whose name is that:
    /// keystoneauth's `get_endpoint` with `service_name`, the types being one service type
    /// and its aliases (os-service-types, e.g. `block-storage`, `volumev3`, `volume`).
    pub fn url_for_named(
        &self,
        service_types: &[&str],
        service_name: Option<&str>,
        interface: Interface,
        region: Option<&str>,
    ) -> Option<&str> {
        service_types.iter().find_map(|t| {
            self.services
                .iter()
                .filter(|s| s.service_type == *t && service_name.is_none_or(|n| s.name == n))
                .flat_map(|s| s.endpoints.iter())
                .find(|e| {
                    e.interface == interface.as_str()
                        && region.is_none_or(|r| {
                            e.region_id.as_deref() == Some(r) || e.region.as_deref() == Some(r)
                        })
                })
                .map(|e| e.url.as_str())
        })
    }

    /// True when the catalog lists this service type.
    pub fn has_service(&self, service_type: &str) -> bool {
        self.services.iter().any(|s| s.service_type == service_type)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::keystone::token_body::{TOKEN_BODY, TokenEnvelope};

    #[test]
    fn catalog_lookup_by_type_interface_region() {
        let env: TokenEnvelope = serde_json::from_str(TOKEN_BODY).unwrap();
        let cat = env.token.catalog.unwrap();
        assert_eq!(
            cat.url_for("network", Interface::Public, None),
            Some("http://public:9696")
        );
        assert_eq!(
            cat.url_for("network", Interface::Internal, Some("RegionOne")),
            Some("http://internal:9696")
        );
        assert_eq!(
            cat.url_for("network", Interface::Public, Some("RegionTwo")),
            Some("http://two:9696")
        );
        assert_eq!(
            cat.url_for("network", Interface::Admin, Some("RegionTwo")),
            None
        );
        assert_eq!(
            cat.url_for("load-balancer", Interface::Public, None),
            Some("http://lb:9876")
        );
        assert_eq!(cat.url_for("key-manager", Interface::Public, None), None);
        assert!(cat.has_service("load-balancer"));
    }

    #[test]
    fn valid_interfaces_list_is_tried_in_order() {
        let list = Interface::parse_list("admin, internal,public").unwrap();
        assert_eq!(
            list,
            vec![Interface::Admin, Interface::Internal, Interface::Public]
        );
        let e = Interface::parse_list("internal,bogus").unwrap_err();
        assert_eq!(e, UnknownInterface("bogus".into()));
        assert_eq!(e.to_string(), "unknown endpoint interface \"bogus\"");
        let env: TokenEnvelope = serde_json::from_str(TOKEN_BODY).unwrap();
        let cat = env.token.catalog.unwrap();
        // load-balancer has only a public endpoint: the list falls through to it.
        assert_eq!(
            cat.url_for_any(
                "load-balancer",
                &[Interface::Internal, Interface::Public],
                None
            ),
            Some("http://lb:9876")
        );
        assert_eq!(
            cat.url_for_any("network", &[Interface::Internal, Interface::Public], None),
            Some("http://internal:9696")
        );
        assert_eq!(cat.url_for_any("network", &[], None), None);
    }

    #[test]
    fn named_lookup_filters_by_name_and_tries_aliases_in_order() {
        let cat: Catalog = serde_json::from_str(
            r#"[
            {"type": "volumev3", "name": "cinderv3", "endpoints": [
                {"interface": "public", "region_id": "RegionOne", "url": "http://c:8776/v3/p"}]},
            {"type": "compute", "name": "nova", "endpoints": [
                {"interface": "public", "region_id": "RegionOne", "url": "http://n:8774/v2.1"}]},
            {"type": "compute", "name": "nova-two", "endpoints": [
                {"interface": "public", "region_id": "RegionOne", "url": "http://n2:8774/v2.1"}]}
        ]"#,
        )
        .unwrap();
        let volume = ["block-storage", "volumev3", "volume"];
        assert_eq!(
            cat.url_for_named(&volume, None, Interface::Public, Some("RegionOne")),
            Some("http://c:8776/v3/p")
        );
        assert_eq!(
            cat.url_for_named(&["compute"], Some("nova-two"), Interface::Public, None),
            Some("http://n2:8774/v2.1")
        );
        assert_eq!(
            cat.url_for_named(&["compute"], Some("other"), Interface::Public, None),
            None
        );
        assert_eq!(
            cat.url_for_named(&["compute"], None, Interface::Internal, None),
            None
        );
        assert_eq!(
            cat.url_for_named(&["image"], None, Interface::Public, None),
            None
        );
    }

    #[test]
    fn interface_parses_octavia_spellings() {
        assert_eq!("publicURL".parse::<Interface>(), Ok(Interface::Public));
        assert_eq!("internal".parse::<Interface>(), Ok(Interface::Internal));
        assert_eq!("ADMIN".parse::<Interface>(), Ok(Interface::Admin));
        assert_eq!(
            "private".parse::<Interface>(),
            Err(UnknownInterface("private".into()))
        );
    }
}
