//! The peers Octavia calls besides Neutron: `[certificates]` (Barbican), `[cinder]`, `[glance]`,
//! `[nova]`: their rows of [`OPTS`](super::OPTS), in registration order.

use std::path::PathBuf;

use crate::catalog::{Opt, Typed, Use};

/// The options of one service the amphora provider calls (`[nova]`, `[glance]`, `[cinder]`,
/// as octavia/common/config.py registers them): the section's `PEER`.
#[derive(Debug)]
pub struct PeerOpts {
    /// `service_name`.
    pub service_name: Typed<Option<String>>,
    /// `endpoint`: the service's URL, used instead of the catalog's when set.
    pub endpoint: Typed<Option<String>>,
    /// `region_name`.
    pub region_name: Typed<Option<String>>,
    /// `endpoint_type`.
    pub endpoint_type: Typed<String>,
    /// `ca_certificates_file`.
    pub ca_certificates_file: Typed<Option<PathBuf>>,
    /// `insecure`: true skips the service's certificate verification.
    pub insecure: Typed<bool>,
}

/// Declares, in a section's module, the [`PeerOpts`] options with the same doc, type and
/// registered row in each of `[nova]`, `[glance]`, `[cinder]`, and the section's `PEER`.
macro_rules! peer {
    ($section:literal) => {
        typed! { $section;
            /// The service's name in the Keystone catalog.
            SERVICE_NAME: Option<String> = "service_name" "str" "";
            /// The service's URL (unset: the Keystone catalog's).
            ENDPOINT: Option<String> = "endpoint" "str" "";
            /// The region of the catalog lookup.
            REGION_NAME: Option<String> = "region_name" "str" "";
            /// The catalog interface (`publicURL`, `internalURL`, `adminURL` or the bare names).
            ENDPOINT_TYPE: String = "endpoint_type" "str" "publicURL";
            /// PEM CA bundle trusted for the service (unset: `[service_auth] cafile`).
            CA_CERTIFICATES_FILE: Option<std::path::PathBuf> = "ca_certificates_file" "str" "";
            /// Whether the service's certificate goes unverified.
            INSECURE: bool = "insecure" "bool" "False";
        }

        /// The section's endpoint options.
        pub const PEER: crate::catalog::PeerOpts = crate::catalog::PeerOpts {
            service_name: SERVICE_NAME,
            endpoint: ENDPOINT,
            region_name: REGION_NAME,
            endpoint_type: ENDPOINT_TYPE,
            ca_certificates_file: CA_CERTIFICATES_FILE,
            insecure: INSECURE,
        };
    };
}

/// `[certificates]`: the options Keel reads, typed (their rows of [`OPTS`](crate::catalog::OPTS)).
pub mod certificates {
    use std::path::PathBuf;
    typed! { "certificates";
        /// The certificate manager (`barbican_cert_manager` or `noop_cert_manager`).
        CERT_MANAGER: String = "cert_manager" "str" "barbican_cert_manager";
        /// Barbican's URL (unset: the Keystone catalog's `key-manager`).
        ENDPOINT: Option<String> = "endpoint" "str" "";
        /// The region of Barbican's catalog lookup.
        REGION_NAME: Option<String> = "region_name" "str" "";
        /// The catalog interface of Barbican.
        ENDPOINT_TYPE: String = "endpoint_type" "str" "publicURL";
        /// PEM CA bundle trusted for Barbican (unset: `[service_auth] cafile`).
        CA_CERTIFICATES_FILE: Option<PathBuf> = "ca_certificates_file" "str" "";
        /// Whether Barbican's certificate goes unverified.
        INSECURE: bool = "insecure" "bool" "False";
    }
}

/// `[cinder]`: the options Keel reads, typed (their rows of [`OPTS`](crate::catalog::OPTS)).
pub mod cinder {
    peer!("cinder");
}

/// `[glance]`: the options Keel reads, typed (their rows of [`OPTS`](crate::catalog::OPTS)).
pub mod glance {
    peer!("glance");
}

/// `[nova]`: the options Keel reads, typed (their rows of [`OPTS`](crate::catalog::OPTS)).
pub mod nova {
    peer!("nova");
}

/// The rows of `[certificates]`, `[cinder]`, `[glance]`, `[nova]`, in registration order.
#[rustfmt::skip]
pub(super) const ROWS: &[Opt] = &[
    certificates::CERT_MANAGER.opt,
    Opt { section: "certificates", name: "cert_generator", kind: "str", default: "local_cert_generator", secret: false, aliases: &[], use_: Use::NotApplicable("amphora certificate generation") },
    Opt { section: "certificates", name: "barbican_auth", kind: "str", default: "barbican_acl_auth", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "certificates", name: "service_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    certificates::ENDPOINT.opt,
    certificates::REGION_NAME.opt,
    certificates::ENDPOINT_TYPE.opt,
    certificates::CA_CERTIFICATES_FILE.opt,
    certificates::INSECURE.opt,
    Opt { section: "certificates", name: "ca_certificate", kind: "str", default: "/etc/ssl/certs/ssl-cert-snakeoil.pem", secret: false, aliases: &[], use_: Use::NotApplicable("amphora certificate generation") },
    Opt { section: "certificates", name: "ca_private_key", kind: "str", default: "/etc/ssl/private/ssl-cert-snakeoil.key", secret: false, aliases: &[], use_: Use::NotApplicable("amphora certificate generation") },
    Opt { section: "certificates", name: "ca_private_key_passphrase", kind: "str", default: "", secret: true, aliases: &[], use_: Use::NotApplicable("amphora certificate generation") },
    Opt { section: "certificates", name: "server_certs_key_passphrase", kind: "list", default: "insecure-key-do-not-use-this-key", secret: true, aliases: &[], use_: Use::NotApplicable("amphora certificate generation") },
    Opt { section: "certificates", name: "signing_digest", kind: "str", default: "sha256", secret: false, aliases: &[], use_: Use::NotApplicable("amphora certificate generation") },
    Opt { section: "certificates", name: "cert_validity_time", kind: "int", default: "2592000", secret: false, aliases: &[], use_: Use::NotApplicable("amphora certificate generation") },
    cinder::SERVICE_NAME.opt,
    cinder::ENDPOINT.opt,
    cinder::REGION_NAME.opt,
    cinder::ENDPOINT_TYPE.opt,
    cinder::CA_CERTIFICATES_FILE.opt,
    Opt { section: "cinder", name: "availability_zone", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("amphora volumes") },
    cinder::INSECURE.opt,
    Opt { section: "cinder", name: "volume_size", kind: "int", default: "16", secret: false, aliases: &[], use_: Use::NotApplicable("amphora volumes") },
    Opt { section: "cinder", name: "volume_type", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("amphora volumes") },
    Opt { section: "cinder", name: "volume_create_retry_interval", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("amphora volumes") },
    Opt { section: "cinder", name: "volume_create_timeout", kind: "int", default: "300", secret: false, aliases: &[], use_: Use::NotApplicable("amphora volumes") },
    Opt { section: "cinder", name: "volume_create_max_retries", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("amphora volumes") },
    glance::SERVICE_NAME.opt,
    glance::ENDPOINT.opt,
    glance::REGION_NAME.opt,
    glance::ENDPOINT_TYPE.opt,
    glance::CA_CERTIFICATES_FILE.opt,
    glance::INSECURE.opt,
    nova::SERVICE_NAME.opt,
    nova::ENDPOINT.opt,
    nova::REGION_NAME.opt,
    nova::ENDPOINT_TYPE.opt,
    nova::CA_CERTIFICATES_FILE.opt,
    nova::INSECURE.opt,
    Opt { section: "nova", name: "enable_anti_affinity", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::NotApplicable("amphora instances") },
    Opt { section: "nova", name: "anti_affinity_policy", kind: "str", default: "anti-affinity", secret: false, aliases: &[], use_: Use::NotApplicable("amphora instances") },
    Opt { section: "nova", name: "random_amphora_name_length", kind: "int", default: "0", secret: false, aliases: &[], use_: Use::NotApplicable("amphora instances") },
    Opt { section: "nova", name: "availability_zone", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("amphora instances") },
];
