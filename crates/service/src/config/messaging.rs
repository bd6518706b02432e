//! What the amphora provider reads from octavia.conf: the RPC transport (`[DEFAULT]
//! transport_url`, `control_exchange`, `[oslo_messaging_rabbit]`, as oslo.messaging 18.2.0
//! registers them) and `[controller_worker] network_driver` (how the API side allocates a
//! VIP, as octavia/common/utils.py `get_network_driver`).

use amphora_provider::{NEUTRON_NETWORK_DRIVER, NOOP_NETWORK_DRIVER};
use oslo_messaging::{RabbitOptions, TransportUrl};

use super::error::ConfigError;
use super::section::Section;
use compat::oslo_config::Sources;

/// The RPC settings, read but not yet checked: [`MessagingSettings::transport`] checks them
/// when an amphora provider is enabled (an OVN-only deployment never needs RabbitMQ).
#[derive(Debug, Clone)]
pub struct MessagingSettings {
    /// `[DEFAULT] transport_url` as written (secret: passwords), oslo's default `rabbit://`.
    pub transport_url: String,
    /// `[DEFAULT] control_exchange` (Octavia's default `octavia`): the exchange casts go to.
    pub control_exchange: String,
    /// `[oslo_messaging_rabbit]`, every option set in a file applied over oslo's defaults.
    pub rabbit: RabbitOptions,
    /// `[controller_worker] network_driver` (`allowed_address_pairs_driver`): the VIP port
    /// maker of the API's amphora driver; `network_noop_driver` allocates without Neutron.
    pub network_driver: String,
}

/// The values of `[oslo_messaging_rabbit]` set in the files, typed as oslo.config types them.
/// Errors: [`ConfigError::Invalid`] naming the option and oslo's reason.
pub(crate) fn read(src: &Sources) -> Result<MessagingSettings, ConfigError> {
    use compat::catalog::{controller_worker::NETWORK_DRIVER, default as d};
    let r = Section {
        src,
        name: "oslo_messaging_rabbit",
    };
    let mut rabbit = RabbitOptions::default();
    for name in oslo_messaging::options::OPTION_NAMES {
        if let Some(v) = r.get(name) {
            rabbit
                .set(name, &v)
                .map_err(|e| r.invalid(name, v.clone(), e.to_string()))?;
        }
    }
    Ok(MessagingSettings {
        transport_url: Section::typed(src, &d::TRANSPORT_URL)?,
        control_exchange: Section::typed(src, &d::CONTROL_EXCHANGE)?,
        rabbit,
        network_driver: Section::typed(src, &NETWORK_DRIVER)?,
    })
}

impl MessagingSettings {
    /// The transport URL parsed and the options with its query applied and checked, as
    /// oslo.messaging does when the first client is made. Errors (each names section, key
    /// and why; `keel serve` refuses to start): a URL oslo's rabbit driver would refuse, an
    /// option whose value cannot be honoured, a TLS file that does not read; a
    /// `network_driver` other than the two the API side has. A URL without a host (oslo's
    /// default `rabbit://`) is taken as oslo takes it: `localhost:5672` as `guest`.
    pub fn transport(&self) -> Result<(TransportUrl, RabbitOptions), ConfigError> {
        let refused = |key: &str, why: String| ConfigError::Invalid {
            section: "DEFAULT".into(),
            key: key.into(),
            value: String::new(),
            why,
        };
        let url = TransportUrl::parse(&self.transport_url)
            .map_err(|e| refused("transport_url", e.to_string()))?;
        // no host (oslo's default `rabbit://`): localhost:5672 as guest, as oslo and kombu
        let opts = self
            .rabbit
            .with_url_query(&url)
            .map_err(|e| ConfigError::Invalid {
                section: "oslo_messaging_rabbit".into(),
                key: "transport_url query".into(),
                value: String::new(),
                why: e.to_string(),
            })?;
        opts.check().map_err(|e| ConfigError::Invalid {
            section: "oslo_messaging_rabbit".into(),
            key: option_of(&e).into(),
            value: String::new(),
            why: e.to_string(),
        })?;
        match self.network_driver.as_str() {
            NEUTRON_NETWORK_DRIVER | NOOP_NETWORK_DRIVER => Ok((url, opts)),
            other => Err(ConfigError::Invalid {
                section: "controller_worker".into(),
                key: "network_driver".into(),
                value: other.into(),
                why: "the API's amphora driver allocates VIPs with allowed_address_pairs_driver \
                      (Neutron) or network_noop_driver"
                    .into(),
            }),
        }
    }
}

/// The option an [`oslo_messaging::ConfigError`] is about.
fn option_of(e: &oslo_messaging::ConfigError) -> &'static str {
    match e {
        oslo_messaging::ConfigError::Option { option, .. }
        | oslo_messaging::ConfigError::TlsFile { option, .. } => option,
        oslo_messaging::ConfigError::Url { .. } => "transport_url",
        oslo_messaging::ConfigError::Tls { .. } => "ssl",
    }
}
