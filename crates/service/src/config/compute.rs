//! What the amphora provider's flavor and availability-zone checks read from octavia.conf:
//! `[controller_worker] compute_driver`, `image_driver`, `volume_driver`,
//! `amp_image_owner_id`, and where Nova, Glance and Cinder are (`[nova]`, `[glance]`,
//! `[cinder]`: `service_name`, `endpoint`, `region_name`, `endpoint_type`,
//! `ca_certificates_file`, `insecure`, as octavia/common/config.py registers them and
//! octavia/common/clients.py uses them).

use amphora_provider::{
    COMPUTE_NOOP_DRIVER, COMPUTE_NOVA_DRIVER, IMAGE_GLANCE_DRIVER, IMAGE_NOOP_DRIVER,
    VOLUME_CINDER_DRIVER, VOLUME_NOOP_DRIVER,
};

use super::error::ConfigError;
use super::section::Section;
use compat::oslo_config::Sources;

/// Where one of Nova, Glance, Cinder is and how to reach it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerEndpoint {
    /// `service_name`: only catalog entries of that name.
    pub service_name: Option<String>,
    /// `endpoint`: the URL used instead of the catalog's.
    pub endpoint: Option<String>,
    /// `region_name` (absent → `[service_auth] region_name`).
    pub region_name: Option<String>,
    /// `endpoint_type` (`publicURL`, `internalURL`, `adminURL` or the bare names).
    pub endpoint_type: String,
    /// `ca_certificates_file` (absent → `[service_auth] cafile`).
    pub cafile: Option<std::path::PathBuf>,
    /// `insecure`: do not verify the service's certificate.
    pub insecure: bool,
}

/// The compute, image and volume drivers and their services' sections.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComputeSettings {
    /// `[controller_worker] compute_driver` (`compute_nova_driver`).
    pub compute_driver: String,
    /// `[controller_worker] image_driver` (`image_glance_driver`).
    pub image_driver: String,
    /// `[controller_worker] volume_driver` (`volume_noop_driver`).
    pub volume_driver: String,
    /// `[controller_worker] amp_image_owner_id` (empty: any owner).
    pub amp_image_owner_id: String,
    /// `[nova]`.
    pub nova: PeerEndpoint,
    /// `[glance]`.
    pub glance: PeerEndpoint,
    /// `[cinder]`.
    pub cinder: PeerEndpoint,
}

/// Reads them; `sa_cafile` is `[service_auth] cafile` (the default of each section's CA
/// file). Errors: [`ConfigError::Invalid`] for an `insecure` that is no boolean.
pub(crate) fn read(
    src: &Sources,
    sa_cafile: Option<&std::path::Path>,
) -> Result<ComputeSettings, ConfigError> {
    use compat::catalog::{PeerOpts, cinder, controller_worker as cw, glance, nova};
    let peer = |o: &PeerOpts| -> Result<PeerEndpoint, ConfigError> {
        Ok(PeerEndpoint {
            service_name: Section::typed(src, &o.service_name)?,
            endpoint: Section::typed(src, &o.endpoint)?,
            region_name: Section::typed(src, &o.region_name)?,
            endpoint_type: Section::typed(src, &o.endpoint_type)?,
            cafile: Section::typed(src, &o.ca_certificates_file)?
                .or_else(|| sa_cafile.map(std::path::Path::to_path_buf)),
            insecure: Section::typed(src, &o.insecure)?,
        })
    };
    Ok(ComputeSettings {
        compute_driver: Section::typed(src, &cw::COMPUTE_DRIVER)?,
        image_driver: Section::typed(src, &cw::IMAGE_DRIVER)?,
        volume_driver: Section::typed(src, &cw::VOLUME_DRIVER)?,
        amp_image_owner_id: Section::typed(src, &cw::AMP_IMAGE_OWNER_ID)?,
        nova: peer(&nova::PEER)?,
        glance: peer(&glance::PEER)?,
        cinder: peer(&cinder::PEER)?,
    })
}

/// One of the three drivers: its option, the real driver's name, the noop's, the section
/// of its service.
#[derive(Debug, Clone, Copy)]
pub struct DriverKind {
    /// `compute_driver`, `image_driver` or `volume_driver`.
    pub key: &'static str,
    /// `compute_nova_driver`, `image_glance_driver` or `volume_cinder_driver`.
    pub real: &'static str,
    /// The noop driver's name.
    pub noop: &'static str,
    /// `nova`, `glance` or `cinder`.
    pub section: &'static str,
}

/// `compute_driver`.
pub const COMPUTE: DriverKind = DriverKind {
    key: "compute_driver",
    real: COMPUTE_NOVA_DRIVER,
    noop: COMPUTE_NOOP_DRIVER,
    section: "nova",
};
/// `image_driver`.
pub const IMAGE: DriverKind = DriverKind {
    key: "image_driver",
    real: IMAGE_GLANCE_DRIVER,
    noop: IMAGE_NOOP_DRIVER,
    section: "glance",
};
/// `volume_driver`.
pub const VOLUME: DriverKind = DriverKind {
    key: "volume_driver",
    real: VOLUME_CINDER_DRIVER,
    noop: VOLUME_NOOP_DRIVER,
    section: "cinder",
};

impl ComputeSettings {
    /// The configured value of `kind`'s option.
    pub fn driver(&self, kind: DriverKind) -> &str {
        match kind.key {
            "compute_driver" => &self.compute_driver,
            "image_driver" => &self.image_driver,
            _ => &self.volume_driver,
        }
    }

    /// The section of `kind`'s service.
    pub fn peer(&self, kind: DriverKind) -> &PeerEndpoint {
        match kind.section {
            "nova" => &self.nova,
            "glance" => &self.glance,
            _ => &self.cinder,
        }
    }

    /// Whether `kind` is its real driver (`Ok(true)`) or its noop one (`Ok(false)`). Error:
    /// any other name, refused naming the option (octavia-api's stevedore would fail every
    /// check of that kind).
    pub fn is_real(&self, kind: DriverKind) -> Result<bool, ConfigError> {
        let v = self.driver(kind);
        if v == kind.real {
            Ok(true)
        } else if v == kind.noop {
            Ok(false)
        } else {
            Err(ConfigError::Invalid {
                section: "controller_worker".into(),
                key: kind.key.into(),
                value: v.into(),
                why: format!(
                    "the API's amphora driver checks flavors and availability zones with {} or {}",
                    kind.real, kind.noop
                ),
            })
        }
    }
}
