//! The amphora provider's Nova, Glance and Cinder clients, made for the real drivers
//! `[controller_worker] compute_driver` / `image_driver` / `volume_driver` name, each
//! endpoint resolved at start-up: Keel starts only when it can make every check the
//! configuration asks for (the noop drivers need nothing and accept any value, as
//! octavia-api).
//!
//! Refusals (`keel serve` exits, naming the option): a driver name that is neither the real
//! nor the noop one; an `endpoint_type` that is no interface; a real driver whose service has
//! no endpoint (`[<section>] endpoint` unset and none in the Keystone catalog for its type,
//! `service_name`, interface and region); a catalog that cannot be read because Keystone
//! refused the `[service_auth]` credentials. Keystone not answering is warned about and
//! start-up goes on (the checks then answer 503 until it does), as the other peers.

use std::sync::Arc;

use amphora_provider::Services;
use openstack::{
    CinderClient, GlanceClient, NovaClient, ServiceAuth, ServiceEndpoint, ServiceError,
};

use crate::clients::http;
use crate::config::compute::{COMPUTE, DriverKind, IMAGE, VOLUME};
use crate::config::{Config, HttpTls};

/// The clients of the configured real drivers (none for the noop ones), each endpoint
/// resolved. Errors: see the module's refusals.
pub async fn services(config: &Config, service: &ServiceAuth) -> anyhow::Result<Services> {
    let c = &config.compute;
    let mut out = Services::default();
    if c.is_real(COMPUTE)? {
        let (http, ep) = parts(config, COMPUTE)?;
        let nova = NovaClient::new(http, service.clone(), ep);
        startup(config, COMPUTE, nova.endpoint().await)?;
        out.compute = Some(Arc::new(nova));
    }
    if c.is_real(IMAGE)? {
        let (http, ep) = parts(config, IMAGE)?;
        let glance = GlanceClient::new(http, service.clone(), ep);
        startup(config, IMAGE, glance.endpoint().await)?;
        out.image = Some(Arc::new(glance));
    }
    if c.is_real(VOLUME)? {
        let (http, ep) = parts(config, VOLUME)?;
        let cinder = CinderClient::new(http, service.clone(), ep);
        startup(config, VOLUME, cinder.endpoint().await)?;
        out.volume = Some(Arc::new(cinder));
    }
    Ok(out)
}

/// The HTTP client (the section's CA file and `insecure`) and the endpoint settings of
/// `kind`'s section. Error: an `endpoint_type` that is no interface.
fn parts(config: &Config, kind: DriverKind) -> anyhow::Result<(reqwest::Client, ServiceEndpoint)> {
    let p = config.compute.peer(kind);
    let interface: openstack::Interface = p
        .endpoint_type
        .parse()
        .map_err(|e| anyhow::anyhow!("[{}] endpoint_type: {e}", kind.section))?;
    Ok((
        http(
            kind.section,
            &HttpTls {
                cafile: p.cafile.clone(),
                insecure: p.insecure,
                ..HttpTls::default()
            },
        )?,
        ServiceEndpoint {
            endpoint: p.endpoint.clone(),
            service_name: p.service_name.clone(),
            region_name: p.region_name.clone(),
            interface,
        },
    ))
}

/// Judges the start-up resolution of `kind`'s endpoint.
fn startup(
    config: &Config,
    kind: DriverKind,
    resolved: Result<&str, ServiceError>,
) -> anyhow::Result<()> {
    let driver = config.compute.driver(kind);
    match resolved {
        Ok(url) => {
            tracing::info!(
                driver,
                endpoint = url,
                "amphora provider: {} checks made against {url}",
                kind.key
            );
            Ok(())
        }
        Err(e) if e.is_unavailable() => {
            tracing::warn!(driver, error = %e, "amphora provider: {} endpoint not resolved at start-up: Keystone did not answer; checks needing it answer 503 until it does", kind.key);
            Ok(())
        }
        Err(e) => Err(anyhow::anyhow!(
            "[controller_worker] {} = {driver}: its checks cannot be made: {e}; set [{}] endpoint \
             or a catalog entry, or name {} (which accepts any value)",
            kind.key,
            kind.section,
            kind.noop
        )),
    }
}
