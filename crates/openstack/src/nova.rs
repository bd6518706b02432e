//! Nova (compute), as far as Octavia's API validates against it
//! (octavia/compute/drivers/nova_driver.py `validate_flavor`, `validate_availability_zone`,
//! over novaclient at microversion 2.15, octavia/common/clients.py).

use serde::Deserialize;

use crate::keystone::ServiceAuth;
use crate::service_client::{Kind, ServiceClient, ServiceEndpoint, ServiceError};

/// The microversion novaclient is made with in octavia/common/clients.py.
const MICROVERSION: (&str, &str) = ("X-OpenStack-Nova-API-Version", "2.15");

/// A flavor (`GET /flavors/{id}`); fields Nova omits take their defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Flavor {
    /// Flavor id.
    pub id: String,
    /// Name.
    #[serde(default)]
    pub name: String,
    /// Virtual CPUs.
    #[serde(default)]
    pub vcpus: u32,
    /// Memory, MiB.
    #[serde(default)]
    pub ram: u64,
    /// Root disk, GiB.
    #[serde(default)]
    pub disk: u64,
}

/// `zoneState` of an availability zone.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ZoneState {
    /// Whether the zone has a service up.
    #[serde(default)]
    pub available: bool,
}

/// One `availabilityZoneInfo` entry of `GET /os-availability-zone` (Nova's and Cinder's
/// shape).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct AvailabilityZone {
    /// `zoneName`: what an availability-zone profile's `compute_zone` / `volume_zone` names.
    #[serde(rename = "zoneName")]
    pub zone_name: String,
    /// `zoneState`.
    #[serde(rename = "zoneState", default)]
    pub zone_state: ZoneState,
}

#[derive(Deserialize)]
pub(crate) struct ZoneList {
    #[serde(rename = "availabilityZoneInfo", default)]
    pub(crate) zones: Vec<AvailabilityZone>,
}

/// Nova client with Keel's service token (octavia.conf `[service_auth]`) on its own HTTP
/// client (`[nova] ca_certificates_file`, `insecure`). The endpoint (`[nova] endpoint`, else
/// the catalog's `compute`) is used as given, its `/v2.1` included. Errors:
/// [`ServiceError`]; a 401 makes one retry with a new token.
#[derive(Debug)]
pub struct NovaClient(ServiceClient);

impl NovaClient {
    /// A client; no request until the first call.
    pub fn new(http: reqwest::Client, service: ServiceAuth, endpoint: ServiceEndpoint) -> Self {
        Self(ServiceClient::new(
            http,
            service,
            endpoint,
            Kind {
                name: "nova",
                types: &["compute"],
            },
        ))
    }

    /// The endpoint calls go to (configured, else the catalog's). Errors:
    /// [`ServiceError::NoEndpoint`], [`ServiceError::Auth`].
    pub async fn endpoint(&self) -> Result<&str, ServiceError> {
        self.0.root().await
    }

    /// `GET /flavors/{id}`. An unknown flavor is [`ServiceError::NotFound`].
    pub async fn flavor(&self, id: &str) -> Result<Flavor, ServiceError> {
        #[derive(Deserialize)]
        struct One {
            flavor: Flavor,
        }
        let path = format!("flavors/{}", path_segment(id));
        let one: One = self.0.get_path(&path, &[], &[MICROVERSION]).await?;
        Ok(one.flavor)
    }

    /// `GET /os-availability-zone` (novaclient's `availability_zones.list(detailed=False)`):
    /// every zone, available or not.
    pub async fn availability_zones(&self) -> Result<Vec<AvailabilityZone>, ServiceError> {
        let list: ZoneList = self
            .0
            .get_path("os-availability-zone", &[], &[MICROVERSION])
            .await?;
        Ok(list.zones)
    }
}

/// `s` percent-encoded for one path segment (a flavor id is operator input: `/`, `?`, `#`,
/// `%` and spaces must not change the URL's shape).
pub(crate) fn path_segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn zone_list_and_flavor_parse() {
        let l: ZoneList = serde_json::from_str(
            r#"{"availabilityZoneInfo": [{"zoneName": "nova", "zoneState": {"available": true}, "hosts": null},
                {"zoneName": "az2", "zoneState": {"available": false}, "hosts": null}]}"#,
        )
        .unwrap();
        assert_eq!(l.zones.len(), 2);
        assert_eq!(l.zones[1].zone_name, "az2");
        assert!(!l.zones[1].zone_state.available);
        let f: Flavor = serde_json::from_str(
            r#"{"id": "1", "name": "m1.tiny", "vcpus": 1, "ram": 512, "disk": 1, "OS-FLV-EXT-DATA:ephemeral": 0}"#,
        )
        .unwrap();
        assert_eq!((f.id.as_str(), f.ram), ("1", 512));
    }

    #[test]
    fn path_segments_are_encoded() {
        assert_eq!(path_segment("m1.tiny"), "m1.tiny");
        assert_eq!(path_segment("a/b?c d%"), "a%2Fb%3Fc%20d%25");
    }
}
