//! The flavor and availability-zone lookups of the amphora driver: a flavor's
//! `compute_flavor` in Nova and `amp_image_tag` in Glance, an availability zone's
//! `compute_zone` in Nova and `volume_zone` in Cinder — made when `[controller_worker]
//! compute_driver` / `image_driver` / `volume_driver` name the real drivers, skipped (any
//! value accepted) with the noop drivers, as octavia/api/drivers/amphora_driver/v2/driver.py
//! `validate_flavor` / `validate_availability_zone` over the compute, image and volume drivers.
//!
//! The refusals are the reference's: the driver's exception reaches
//! octavia/api/drivers/utils.py `call_provider` as an unknown error, so the API answers 500
//! `Provider '<name>' reports error: <text>` ([`ProviderError::Driver`]) with
//! * `Nova flavor <id> not found.`, `Nova availability zone <name> not found.`, `Cinder
//!   availability zone <name> not found.` (octavia/common/exceptions.py `InvalidSubresource`,
//!   raised by octavia/compute/drivers/nova_driver.py and octavia/volume/drivers/cinder_driver.py);
//! * `Failed to find an image with tag <tag> due to: Failed to retrieve image with <tag> tag.`
//!   (the amphora driver's `NotFound` around octavia/common/exceptions.py
//!   `ImageGetException`, raised by octavia/image/drivers/glance_driver.py).
//!
//! A service that does not answer (connection, timeout, 5xx, no token) is Keel's 503 `The
//! <Nova|Glance|Cinder> service is temporarily unavailable.` ([`ProviderError::Unavailable`];
//! the reference lets the client library's exception through as a 500).

use std::sync::Arc;

use async_trait::async_trait;
use openstack::{CinderClient, GlanceClient, NovaClient, ServiceError};
use provider::ProviderError;

use crate::config::{
    AmphoraConfig, COMPUTE_NOOP_DRIVER, COMPUTE_NOVA_DRIVER, IMAGE_GLANCE_DRIVER,
    IMAGE_NOOP_DRIVER, VOLUME_CINDER_DRIVER, VOLUME_NOOP_DRIVER,
};

/// Nova as the compute driver's validations use it.
#[async_trait]
pub trait ComputeService: Send + Sync {
    /// Whether the flavor `id` exists (`Ok(false)` on Nova's 404).
    async fn flavor_exists(&self, id: &str) -> Result<bool, ServiceError>;
    /// The names of every availability zone Nova lists.
    async fn availability_zones(&self) -> Result<Vec<String>, ServiceError>;
}

/// Glance as the image driver's `get_image_id_by_tag` uses it.
#[async_trait]
pub trait ImageService: Send + Sync {
    /// The newest active image tagged `tag` (owned by `owner` when given), `None` if none.
    async fn image_id_by_tag(
        &self,
        tag: &str,
        owner: Option<&str>,
    ) -> Result<Option<String>, ServiceError>;
}

/// Cinder as the volume driver's validation uses it.
#[async_trait]
pub trait VolumeService: Send + Sync {
    /// The names of every availability zone Cinder lists.
    async fn availability_zones(&self) -> Result<Vec<String>, ServiceError>;
}

#[async_trait]
impl ComputeService for NovaClient {
    async fn flavor_exists(&self, id: &str) -> Result<bool, ServiceError> {
        match self.flavor(id).await {
            Ok(_) => Ok(true),
            Err(e) if e.is_not_found() => Ok(false),
            Err(e) => Err(e),
        }
    }
    async fn availability_zones(&self) -> Result<Vec<String>, ServiceError> {
        let zones = NovaClient::availability_zones(self).await?;
        Ok(zones.into_iter().map(|z| z.zone_name).collect())
    }
}

#[async_trait]
impl ImageService for GlanceClient {
    async fn image_id_by_tag(
        &self,
        tag: &str,
        owner: Option<&str>,
    ) -> Result<Option<String>, ServiceError> {
        GlanceClient::image_id_by_tag(self, tag, owner).await
    }
}

#[async_trait]
impl VolumeService for CinderClient {
    async fn availability_zones(&self) -> Result<Vec<String>, ServiceError> {
        let zones = CinderClient::availability_zones(self).await?;
        Ok(zones.into_iter().map(|z| z.zone_name).collect())
    }
}

/// The clients of the real drivers the configuration names; a `None` beside a real driver
/// makes every lookup of that kind fail (500), never pass.
#[derive(Clone, Default)]
pub struct Services {
    /// Nova, for `compute_driver = compute_nova_driver`.
    pub compute: Option<Arc<dyn ComputeService>>,
    /// Glance, for `image_driver = image_glance_driver`.
    pub image: Option<Arc<dyn ImageService>>,
    /// Cinder, for `volume_driver = volume_cinder_driver`.
    pub volume: Option<Arc<dyn VolumeService>>,
}

impl std::fmt::Debug for Services {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Services")
            .field("compute", &self.compute.is_some())
            .field("image", &self.image.is_some())
            .field("volume", &self.volume.is_some())
            .finish()
    }
}

/// The client a configured driver needs: `Ok(None)` for its noop driver, the client for the
/// real one, an error when the real one has no client or the name is neither (stevedore's
/// `NoMatches` text in the reference).
fn pick<'a, T: ?Sized>(
    configured: &str,
    (real, noop, namespace): (&str, &str, &str),
    client: Option<&'a Arc<T>>,
) -> Result<Option<&'a T>, ProviderError> {
    if configured == noop {
        Ok(None)
    } else if configured == real {
        client
            .map(|c| Some(c.as_ref()))
            .ok_or_else(|| ProviderError::driver(format!("{real} has no client in this process")))
    } else {
        Err(ProviderError::driver(format!(
            "No '{namespace}' driver found, looking for '{configured}'"
        )))
    }
}

/// A lookup that failed: 503 naming `service` when it did not answer, else 500 with `text`.
fn failed(service: &str, e: &ServiceError, text: String) -> ProviderError {
    if e.is_unavailable() {
        tracing::warn!(service, error = %e, "lookup failed: service unavailable");
        ProviderError::unavailable(service, e.to_string())
    } else {
        tracing::error!(service, error = %e, "lookup failed");
        ProviderError::driver(text)
    }
}

/// The text of a client library's exception the reference lets through (status and body).
fn client_text(e: &ServiceError) -> String {
    match e {
        ServiceError::Status {
            status, message, ..
        } => format!("{message} (HTTP {status})"),
        other => other.to_string(),
    }
}

/// A flavor's `compute_flavor` (when not empty) in Nova, then its `amp_image_tag` in Glance
/// (with `[controller_worker] amp_image_owner_id` when set).
pub(crate) async fn check_flavor(
    config: &AmphoraConfig,
    services: &Services,
    compute_flavor: Option<&str>,
    amp_image_tag: Option<&str>,
) -> Result<(), ProviderError> {
    if let Some(id) = compute_flavor.filter(|s| !s.is_empty()) {
        let compute = (
            COMPUTE_NOVA_DRIVER,
            COMPUTE_NOOP_DRIVER,
            "octavia.compute.drivers",
        );
        if let Some(nova) = pick(&config.compute_driver, compute, services.compute.as_ref())? {
            match nova.flavor_exists(id).await {
                Ok(true) => {}
                Ok(false) => {
                    return Err(ProviderError::driver(format!(
                        "Nova flavor {id} not found."
                    )));
                }
                Err(e) => return Err(failed("Nova", &e, client_text(&e))),
            }
        }
    }
    if let Some(tag) = amp_image_tag.filter(|s| !s.is_empty()) {
        let image = (
            IMAGE_GLANCE_DRIVER,
            IMAGE_NOOP_DRIVER,
            "octavia.image.drivers",
        );
        if let Some(glance) = pick(&config.image_driver, image, services.image.as_ref())? {
            let owner = Some(config.amp_image_owner_id.as_str()).filter(|o| !o.is_empty());
            let due = |why: String| format!("Failed to find an image with tag {tag} due to: {why}");
            match glance.image_id_by_tag(tag, owner).await {
                Ok(Some(_)) => {}
                Ok(None) => {
                    return Err(ProviderError::driver(due(format!(
                        "Failed to retrieve image with {tag} tag."
                    ))));
                }
                Err(e) => return Err(failed("Glance", &e, due(client_text(&e)))),
            }
        }
    }
    Ok(())
}

/// An availability zone's `compute_zone` (when not empty) among Nova's zones, then its
/// `volume_zone` among Cinder's.
pub(crate) async fn check_availability_zone(
    config: &AmphoraConfig,
    services: &Services,
    compute_zone: Option<&str>,
    volume_zone: Option<&str>,
) -> Result<(), ProviderError> {
    if let Some(zone) = compute_zone.filter(|s| !s.is_empty()) {
        let compute = (
            COMPUTE_NOVA_DRIVER,
            COMPUTE_NOOP_DRIVER,
            "octavia.compute.drivers",
        );
        if let Some(nova) = pick(&config.compute_driver, compute, services.compute.as_ref())? {
            match nova.availability_zones().await {
                Ok(zones) if zones.iter().any(|z| z == zone) => {}
                Ok(_) => {
                    return Err(ProviderError::driver(format!(
                        "Nova availability zone {zone} not found."
                    )));
                }
                Err(e) => return Err(failed("Nova", &e, client_text(&e))),
            }
        }
    }
    if let Some(zone) = volume_zone.filter(|s| !s.is_empty()) {
        let volume = (
            VOLUME_CINDER_DRIVER,
            VOLUME_NOOP_DRIVER,
            "octavia.volume.drivers",
        );
        if let Some(cinder) = pick(&config.volume_driver, volume, services.volume.as_ref())? {
            match cinder.availability_zones().await {
                Ok(zones) if zones.iter().any(|z| z == zone) => {}
                Ok(_) => {
                    return Err(ProviderError::driver(format!(
                        "Cinder availability zone {zone} not found."
                    )));
                }
                Err(e) => return Err(failed("Cinder", &e, client_text(&e))),
            }
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Nova, Glance and Cinder in memory; every call recorded.
    #[derive(Default)]
    struct Fake {
        flavors: Vec<&'static str>,
        zones: Vec<&'static str>,
        images: Vec<(&'static str, &'static str)>,
        down: bool,
        calls: Mutex<Vec<String>>,
    }

    impl Fake {
        fn call(&self, c: String) -> Result<(), ServiceError> {
            self.calls.lock().unwrap().push(c);
            if self.down {
                Err(ServiceError::Status {
                    service: "fake",
                    status: 503,
                    message: "down".into(),
                })
            } else {
                Ok(())
            }
        }
    }

    #[async_trait]
    impl ComputeService for Fake {
        async fn flavor_exists(&self, id: &str) -> Result<bool, ServiceError> {
            self.call(format!("flavor {id}"))?;
            Ok(self.flavors.contains(&id))
        }
        async fn availability_zones(&self) -> Result<Vec<String>, ServiceError> {
            self.call("zones".into())?;
            Ok(self.zones.iter().map(|z| z.to_string()).collect())
        }
    }

    #[async_trait]
    impl ImageService for Fake {
        async fn image_id_by_tag(
            &self,
            tag: &str,
            owner: Option<&str>,
        ) -> Result<Option<String>, ServiceError> {
            self.call(format!("image {tag} {owner:?}"))?;
            Ok(self
                .images
                .iter()
                .find(|(t, o)| *t == tag && owner.is_none_or(|w| w == *o))
                .map(|(t, _)| format!("id-{t}")))
        }
    }

    #[async_trait]
    impl VolumeService for Fake {
        async fn availability_zones(&self) -> Result<Vec<String>, ServiceError> {
            self.call("volume zones".into())?;
            Ok(self.zones.iter().map(|z| z.to_string()).collect())
        }
    }

    fn real() -> AmphoraConfig {
        AmphoraConfig {
            volume_driver: VOLUME_CINDER_DRIVER.into(),
            amp_image_owner_id: "owner1".into(),
            ..AmphoraConfig::default()
        }
    }

    fn services(fake: &Arc<Fake>) -> Services {
        Services {
            compute: Some(fake.clone()),
            image: Some(fake.clone()),
            volume: Some(fake.clone()),
        }
    }

    fn driver_text(e: ProviderError) -> String {
        match e {
            ProviderError::Driver {
                user_fault_string, ..
            } => user_fault_string,
            other => panic!("not a driver error: {other:?}"),
        }
    }

    #[tokio::test]
    async fn real_drivers_look_up_and_refuse_with_the_references_texts() {
        let fake = Arc::new(Fake {
            flavors: vec!["f1"],
            zones: vec!["nova"],
            images: vec![("amphora", "owner1")],
            ..Fake::default()
        });
        let (c, s) = (real(), services(&fake));
        assert_eq!(
            check_flavor(&c, &s, Some("f1"), Some("amphora")).await,
            Ok(())
        );
        let e = check_flavor(&c, &s, Some("nope"), None).await.unwrap_err();
        assert_eq!(driver_text(e), "Nova flavor nope not found.");
        let e = check_flavor(&c, &s, None, Some("other")).await.unwrap_err();
        assert_eq!(
            driver_text(e),
            "Failed to find an image with tag other due to: Failed to retrieve image with other tag."
        );
        assert_eq!(
            check_availability_zone(&c, &s, Some("nova"), Some("nova")).await,
            Ok(())
        );
        let e = check_availability_zone(&c, &s, Some("az9"), None)
            .await
            .unwrap_err();
        assert_eq!(driver_text(e), "Nova availability zone az9 not found.");
        let e = check_availability_zone(&c, &s, None, Some("az9"))
            .await
            .unwrap_err();
        assert_eq!(driver_text(e), "Cinder availability zone az9 not found.");
        // empty values are not looked up (the reference's `if compute_flavor:`)
        assert_eq!(check_flavor(&c, &s, Some(""), Some("")).await, Ok(()));
        let calls = fake.calls.lock().unwrap().clone();
        assert_eq!(
            calls,
            [
                "flavor f1",
                "image amphora Some(\"owner1\")",
                "flavor nope",
                "image other Some(\"owner1\")",
                "zones",
                "volume zones",
                "zones",
                "volume zones"
            ]
        );
    }

    #[tokio::test]
    async fn noop_drivers_accept_anything_without_a_lookup() {
        let fake = Arc::new(Fake::default());
        let c = AmphoraConfig {
            compute_driver: COMPUTE_NOOP_DRIVER.into(),
            image_driver: IMAGE_NOOP_DRIVER.into(),
            volume_driver: VOLUME_NOOP_DRIVER.into(),
            ..AmphoraConfig::default()
        };
        let s = services(&fake);
        assert_eq!(check_flavor(&c, &s, Some("x"), Some("y")).await, Ok(()));
        assert_eq!(
            check_availability_zone(&c, &s, Some("x"), Some("y")).await,
            Ok(())
        );
        // no client needed either
        assert_eq!(
            check_flavor(&c, &Services::default(), Some("x"), Some("y")).await,
            Ok(())
        );
        assert!(fake.calls.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn a_real_driver_without_its_client_or_an_unknown_driver_never_passes() {
        let e = check_flavor(&real(), &Services::default(), Some("f1"), None)
            .await
            .unwrap_err();
        assert_eq!(
            driver_text(e),
            "compute_nova_driver has no client in this process"
        );
        let c = AmphoraConfig {
            image_driver: "image_other_driver".into(),
            ..real()
        };
        let e = check_flavor(&c, &Services::default(), None, Some("t"))
            .await
            .unwrap_err();
        assert_eq!(
            driver_text(e),
            "No 'octavia.image.drivers' driver found, looking for 'image_other_driver'"
        );
    }

    #[tokio::test]
    async fn an_unavailable_service_is_503_naming_it() {
        let fake = Arc::new(Fake {
            down: true,
            ..Fake::default()
        });
        let s = services(&fake);
        let e = check_flavor(&real(), &s, Some("f1"), None)
            .await
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "The Nova service is temporarily unavailable."
        );
        let e = check_availability_zone(&real(), &s, None, Some("z"))
            .await
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "The Cinder service is temporarily unavailable."
        );
    }
}
