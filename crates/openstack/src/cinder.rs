//! Cinder (block storage), as far as Octavia's API validates against it
//! (octavia/volume/drivers/cinder_driver.py `validate_availability_zone`, over cinderclient
//! v3, octavia/common/clients.py).

use crate::keystone::ServiceAuth;
use crate::nova::{AvailabilityZone, ZoneList};
use crate::service_client::{Kind, ServiceClient, ServiceEndpoint, ServiceError};

/// Cinder client with Keel's service token (`[service_auth]`) on its own HTTP client
/// (`[cinder] ca_certificates_file`, `insecure`). The endpoint (`[cinder] endpoint`, else the
/// catalog's `block-storage` / `volumev3` / `volumev2` / `volume` / `block-store`, the
/// aliases keystoneauth matches for cinderclient's `volumev3`) is used as given, its
/// `/v3/<project>` included. Errors: [`ServiceError`]; a 401 makes one retry with a new
/// token.
#[derive(Debug)]
pub struct CinderClient(ServiceClient);

impl CinderClient {
    /// A client; no request until the first call.
    pub fn new(http: reqwest::Client, service: ServiceAuth, endpoint: ServiceEndpoint) -> Self {
        Self(ServiceClient::new(
            http,
            service,
            endpoint,
            Kind {
                name: "cinder",
                types: &[
                    "block-storage",
                    "volumev3",
                    "volumev2",
                    "volume",
                    "block-store",
                ],
            },
        ))
    }

    /// The endpoint calls go to (configured, else the catalog's). Errors:
    /// [`ServiceError::NoEndpoint`], [`ServiceError::Auth`].
    pub async fn endpoint(&self) -> Result<&str, ServiceError> {
        self.0.root().await
    }

    /// `GET /os-availability-zone` (cinderclient's `availability_zones.list(detailed=False)`):
    /// every zone, available or not.
    pub async fn availability_zones(&self) -> Result<Vec<AvailabilityZone>, ServiceError> {
        let list: ZoneList = self.0.get_path("os-availability-zone", &[], &[]).await?;
        Ok(list.zones)
    }
}
