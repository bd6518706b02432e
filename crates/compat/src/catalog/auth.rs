//! The Keystone credentials and sessions (keystonemiddleware's `auth_token`, keystoneauth's
//! loaders): `[keystone_authtoken]`, `[service_auth]`, `[neutron]`: their rows of
//! [`OPTS`](super::OPTS), in registration order.

use std::path::PathBuf;
use std::time::Duration;

use crate::catalog::{Opt, Typed, Use};

/// The options of one Keystone credential and its session (keystoneauth's password and
/// `v3applicationcredential` loaders, its session's TLS and timeout), as each of
/// `[keystone_authtoken]`, `[service_auth]` and `[neutron]` registers them: the section's
/// `AUTH`.
#[derive(Debug)]
pub struct AuthOpts {
    /// `auth_type`.
    pub auth_type: Typed<String>,
    /// `auth_url`.
    pub auth_url: Typed<String>,
    /// `username`: the user keystoneauth's `password` plugin logs in as.
    pub username: Typed<String>,
    /// `password` of that user (masked by `keel config check`).
    pub password: Typed<String>,
    /// `project_name`: the project scope by name.
    pub project_name: Typed<String>,
    /// `project_id`: the project scope by id.
    pub project_id: Typed<Option<String>>,
    /// `tenant_id`: the generic plugin's older name of `project_id` (read where that is unset).
    pub tenant_id: Typed<Option<String>>,
    /// `tenant_name`: the older name of `project_name` (read where that is unset).
    pub tenant_name: Typed<Option<String>>,
    /// `user_domain_name`.
    pub user_domain_name: Typed<Option<String>>,
    /// `user_domain_id`.
    pub user_domain_id: Typed<Option<String>>,
    /// `project_domain_name`.
    pub project_domain_name: Typed<Option<String>>,
    /// `project_domain_id`.
    pub project_domain_id: Typed<Option<String>>,
    /// `default_domain_id`: the generic plugin's fallback of both domain ids.
    pub default_domain_id: Typed<Option<String>>,
    /// `default_domain_name`: the generic plugin's fallback of both domain names.
    pub default_domain_name: Typed<Option<String>>,
    /// `domain_id`: the domain scope by id.
    pub domain_id: Typed<Option<String>>,
    /// `domain_name`: the domain scope by name.
    pub domain_name: Typed<Option<String>>,
    /// `trust_id`: the trust scope.
    pub trust_id: Typed<Option<String>>,
    /// `system_scope`: the system scope (`all`).
    pub system_scope: Typed<Option<String>>,
    /// `user_id`.
    pub user_id: Typed<Option<String>>,
    /// `application_credential_id`.
    pub application_credential_id: Typed<Option<String>>,
    /// `application_credential_name`.
    pub application_credential_name: Typed<Option<String>>,
    /// `application_credential_secret`.
    pub application_credential_secret: Typed<String>,
    /// `region_name`.
    pub region_name: Typed<Option<String>>,
    /// `cafile`: the PEM CA bundle the section's HTTPS peers are verified with.
    pub cafile: Typed<Option<PathBuf>>,
    /// `certfile`: the PEM client certificate presented to those peers.
    pub certfile: Typed<Option<PathBuf>>,
    /// `keyfile`: the PEM key of `certfile`.
    pub keyfile: Typed<Option<PathBuf>>,
    /// `insecure`: true skips the peers' certificate verification.
    pub insecure: Typed<bool>,
    /// The bound of each request (s): `http_connect_timeout` in `[keystone_authtoken]`,
    /// `timeout` elsewhere.
    pub timeout: Typed<Option<Duration>>,
}

/// Declares, in a section's module, the [`AuthOpts`] options with the same doc, type and
/// registered row in each of the three sections, and the section's `AUTH` (`$timeout`: its
/// bound of each request, declared beside; `$user_alias`: `username`'s deprecated names).
macro_rules! session {
    ($section:literal, [$($user_alias:literal),*], $timeout:ident) => {
        typed! { $section;
            /// The keystoneauth plugin (`password`, `v3password`, `v3applicationcredential`; empty: the
            /// password plugin).
            AUTH_TYPE: String = "auth_type" "str" "" aliases ["auth_plugin"];
            /// Keystone's URL, e.g. `http://127.0.0.1:5000/v3`.
            AUTH_URL: String = "auth_url" "str" "";
            /// The service user's name.
            USERNAME: String = "username" "str" "" aliases [$($user_alias),*];
            /// The service user's password (masked by `keel config check`).
            PASSWORD: String = "password" "str" "" secret true;
            /// The service user's project by name, in the project's domain (one scope only, of
            /// project, domain, trust and system).
            PROJECT_NAME: String = "project_name" "str" "";
            /// The service user's project by id (wins over the name).
            PROJECT_ID: Option<String> = "project_id" "str" "";
            /// `password` plugin: `project_id` where that is unset (its deprecated name).
            TENANT_ID: Option<String> = "tenant_id" "str" "";
            /// `password` plugin: `project_name` where that is unset (its deprecated name).
            TENANT_NAME: Option<String> = "tenant_name" "str" "";
            /// The user's domain by name (unset: `default_domain_name`, then Keel's `Default`).
            USER_DOMAIN_NAME: Option<String> = "user_domain_name" "str" "";
            /// The user's domain by id (unset: `default_domain_id`; an id wins over any name).
            USER_DOMAIN_ID: Option<String> = "user_domain_id" "str" "";
            /// The project's domain by name (unset: `default_domain_name`, then Keel's `Default`).
            PROJECT_DOMAIN_NAME: Option<String> = "project_domain_name" "str" "";
            /// The project's domain by id (unset: `default_domain_id`; an id wins over any name).
            PROJECT_DOMAIN_ID: Option<String> = "project_domain_id" "str" "";
            /// `password` plugin: the user's and the project's domain id where theirs is unset.
            DEFAULT_DOMAIN_ID: Option<String> = "default_domain_id" "str" "";
            /// `password` plugin: the user's and the project's domain name where theirs is unset.
            DEFAULT_DOMAIN_NAME: Option<String> = "default_domain_name" "str" "";
            /// The domain to scope the token to, by id (wins over the name).
            DOMAIN_ID: Option<String> = "domain_id" "str" "";
            /// The domain to scope the token to, by name.
            DOMAIN_NAME: Option<String> = "domain_name" "str" "";
            /// The trust to scope the token to (the user is its trustee).
            TRUST_ID: Option<String> = "trust_id" "str" "";
            /// The system scope: `all` (another value asks for no scope, as keystoneauth).
            SYSTEM_SCOPE: Option<String> = "system_scope" "str" "";
            /// The user by id (wins over `username`); the owner of an application credential
            /// given by name.
            USER_ID: Option<String> = "user_id" "str" "";
            /// `v3applicationcredential`: the credential's id.
            APPLICATION_CREDENTIAL_ID: Option<String> = "application_credential_id" "str" "";
            /// `v3applicationcredential`: the credential's name (with its user).
            APPLICATION_CREDENTIAL_NAME: Option<String> = "application_credential_name" "str" "";
            /// `v3applicationcredential`: the credential's secret.
            APPLICATION_CREDENTIAL_SECRET: String = "application_credential_secret" "str" "" secret true;
            /// The region of catalog lookups.
            REGION_NAME: Option<String> = "region_name" "str" "";
            /// PEM CA bundle trusted for the session's peers.
            CAFILE: Option<std::path::PathBuf> = "cafile" "str" "";
            /// PEM client certificate of the session.
            CERTFILE: Option<std::path::PathBuf> = "certfile" "str" "";
            /// PEM key of `certfile`.
            KEYFILE: Option<std::path::PathBuf> = "keyfile" "str" "";
            /// Whether the peers' certificates go unverified.
            INSECURE: bool = "insecure" "bool" "False";
        }

        /// The section's credential and session options.
        pub const AUTH: crate::catalog::AuthOpts = crate::catalog::AuthOpts {
            auth_type: AUTH_TYPE,
            auth_url: AUTH_URL,
            username: USERNAME,
            password: PASSWORD,
            project_name: PROJECT_NAME,
            project_id: PROJECT_ID,
            tenant_id: TENANT_ID,
            tenant_name: TENANT_NAME,
            user_domain_name: USER_DOMAIN_NAME,
            user_domain_id: USER_DOMAIN_ID,
            project_domain_name: PROJECT_DOMAIN_NAME,
            project_domain_id: PROJECT_DOMAIN_ID,
            default_domain_id: DEFAULT_DOMAIN_ID,
            default_domain_name: DEFAULT_DOMAIN_NAME,
            domain_id: DOMAIN_ID,
            domain_name: DOMAIN_NAME,
            trust_id: TRUST_ID,
            system_scope: SYSTEM_SCOPE,
            user_id: USER_ID,
            application_credential_id: APPLICATION_CREDENTIAL_ID,
            application_credential_name: APPLICATION_CREDENTIAL_NAME,
            application_credential_secret: APPLICATION_CREDENTIAL_SECRET,
            region_name: REGION_NAME,
            cafile: CAFILE,
            certfile: CERTFILE,
            keyfile: KEYFILE,
            insecure: INSECURE,
            timeout: $timeout,
        };
    };
}

/// `[keystone_authtoken]`: the options Keel reads, typed (their rows of
/// [`OPTS`](crate::catalog::OPTS)).
pub mod keystone_authtoken {
    use std::time::Duration;
    typed! { "keystone_authtoken";
        /// The `WWW-Authenticate` URI of a 401.
        WWW_AUTHENTICATE_URI: String = "www_authenticate_uri" "str" "";
        /// The bound of each token validation request (s).
        HTTP_CONNECT_TIMEOUT: Option<Duration> = "http_connect_timeout" "int" "" keel "5";
        /// How long a validated token is reused (s).
        TOKEN_CACHE_TIME: u64 = "token_cache_time" "int" "300";
        /// The roles a service token must have one of.
        SERVICE_TOKEN_ROLES: Vec<String> = "service_token_roles" "list" "service";
        /// Whether a service token without those roles is refused.
        SERVICE_TOKEN_ROLES_REQUIRED: bool = "service_token_roles_required" "bool" "True";
    }

    session!("keystone_authtoken", [], HTTP_CONNECT_TIMEOUT);
}

/// `[neutron]`: the options Keel reads, typed (their rows of [`OPTS`](crate::catalog::OPTS)).
pub mod neutron {
    use std::time::Duration;
    typed! { "neutron";
        /// Deprecated default of `endpoint_override`.
        ENDPOINT: Option<String> = "endpoint" "str" "";
        /// Deprecated default of `valid_interfaces` (`publicURL` → `public`).
        ENDPOINT_TYPE: Option<String> = "endpoint_type" "str" "";
        /// Deprecated default of `cafile`.
        CA_CERTIFICATES_FILE: Option<std::path::PathBuf> = "ca_certificates_file" "str" "";
        /// The bound of each Neutron request (s; unset: the HTTP client's 30 s).
        TIMEOUT: Option<Duration> = "timeout" "float" "";
        /// The catalog interface of Neutron (unset: `public`).
        VALID_INTERFACES: Option<String> = "valid_interfaces" "list" "";
        /// Neutron's URL (unset: the Keystone catalog's `network`).
        ENDPOINT_OVERRIDE: Option<String> = "endpoint_override" "str" "";
    }

    session!("neutron", ["user_name"], TIMEOUT);
}

/// `[service_auth]`: the options Keel reads, typed (their rows of [`OPTS`](crate::catalog::OPTS)).
pub mod service_auth {
    use std::time::Duration;
    typed! { "service_auth";
        /// The bound of each request for Keel's own token (s).
        TIMEOUT: Option<Duration> = "timeout" "float" "" keel "5";
    }

    session!("service_auth", ["user_name"], TIMEOUT);
}

/// The rows of `[keystone_authtoken]`, `[neutron]`, `[service_auth]`, in registration order.
#[rustfmt::skip]
pub(super) const ROWS: &[Opt] = &[
    keystone_authtoken::WWW_AUTHENTICATE_URI.opt,
    Opt { section: "keystone_authtoken", name: "auth_version", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "keystone_authtoken", name: "interface", kind: "str", default: "internal", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "keystone_authtoken", name: "delay_auth_decision", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    keystone_authtoken::HTTP_CONNECT_TIMEOUT.opt,
    Opt { section: "keystone_authtoken", name: "http_request_max_retries", kind: "int", default: "3", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "keystone_authtoken", name: "cache", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    keystone_authtoken::CERTFILE.opt,
    keystone_authtoken::KEYFILE.opt,
    keystone_authtoken::CAFILE.opt,
    keystone_authtoken::INSECURE.opt,
    keystone_authtoken::REGION_NAME.opt,
    Opt { section: "keystone_authtoken", name: "memcached_servers", kind: "list", default: "", secret: false, aliases: &["memcache_servers"], use_: Use::Unimplemented },
    keystone_authtoken::TOKEN_CACHE_TIME.opt,
    Opt { section: "keystone_authtoken", name: "memcache_security_strategy", kind: "str", default: "None", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "keystone_authtoken", name: "memcache_secret_key", kind: "str", default: "", secret: true, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "keystone_authtoken", name: "memcache_tls_enabled", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "keystone_authtoken", name: "memcache_tls_cafile", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "keystone_authtoken", name: "memcache_tls_certfile", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "keystone_authtoken", name: "memcache_tls_keyfile", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "keystone_authtoken", name: "memcache_tls_allowed_ciphers", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "keystone_authtoken", name: "memcache_pool_dead_retry", kind: "int", default: "300", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "keystone_authtoken", name: "memcache_pool_maxsize", kind: "int", default: "10", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "keystone_authtoken", name: "memcache_pool_socket_timeout", kind: "int", default: "3", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "keystone_authtoken", name: "memcache_pool_unused_timeout", kind: "int", default: "60", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "keystone_authtoken", name: "memcache_pool_conn_get_timeout", kind: "int", default: "10", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "keystone_authtoken", name: "memcache_use_advanced_pool", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "keystone_authtoken", name: "include_service_catalog", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::NotApplicable("the API never reads the catalog of a user token") },
    Opt { section: "keystone_authtoken", name: "enforce_token_bind", kind: "str", default: "permissive", secret: false, aliases: &[], use_: Use::Unimplemented },
    keystone_authtoken::SERVICE_TOKEN_ROLES.opt,
    keystone_authtoken::SERVICE_TOKEN_ROLES_REQUIRED.opt,
    Opt { section: "keystone_authtoken", name: "service_type", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "keystone_authtoken", name: "memcache_sasl_enabled", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "keystone_authtoken", name: "memcache_username", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "keystone_authtoken", name: "memcache_password", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    keystone_authtoken::AUTH_TYPE.opt,
    Opt { section: "keystone_authtoken", name: "auth_section", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    keystone_authtoken::AUTH_URL.opt,
    keystone_authtoken::USERNAME.opt,
    keystone_authtoken::PASSWORD.opt,
    keystone_authtoken::APPLICATION_CREDENTIAL_ID.opt,
    keystone_authtoken::APPLICATION_CREDENTIAL_NAME.opt,
    keystone_authtoken::APPLICATION_CREDENTIAL_SECRET.opt,
    keystone_authtoken::PROJECT_NAME.opt,
    keystone_authtoken::PROJECT_DOMAIN_NAME.opt,
    keystone_authtoken::PROJECT_DOMAIN_ID.opt,
    keystone_authtoken::USER_DOMAIN_NAME.opt,
    keystone_authtoken::USER_DOMAIN_ID.opt,
    keystone_authtoken::USER_ID.opt,
    keystone_authtoken::PROJECT_ID.opt,
    keystone_authtoken::SYSTEM_SCOPE.opt,
    keystone_authtoken::DOMAIN_ID.opt,
    keystone_authtoken::DOMAIN_NAME.opt,
    keystone_authtoken::TRUST_ID.opt,
    keystone_authtoken::DEFAULT_DOMAIN_ID.opt,
    keystone_authtoken::DEFAULT_DOMAIN_NAME.opt,
    keystone_authtoken::TENANT_ID.opt,
    keystone_authtoken::TENANT_NAME.opt,
    neutron::ENDPOINT.opt,
    neutron::ENDPOINT_TYPE.opt,
    neutron::CA_CERTIFICATES_FILE.opt,
    neutron::CAFILE.opt,
    neutron::CERTFILE.opt,
    neutron::KEYFILE.opt,
    neutron::INSECURE.opt,
    neutron::TIMEOUT.opt,
    Opt { section: "neutron", name: "collect_timing", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "neutron", name: "split_loggers", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    neutron::AUTH_TYPE.opt,
    Opt { section: "neutron", name: "auth_section", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    neutron::AUTH_URL.opt,
    neutron::SYSTEM_SCOPE.opt,
    neutron::DOMAIN_ID.opt,
    neutron::DOMAIN_NAME.opt,
    neutron::PROJECT_ID.opt,
    neutron::PROJECT_NAME.opt,
    neutron::PROJECT_DOMAIN_ID.opt,
    neutron::PROJECT_DOMAIN_NAME.opt,
    neutron::TRUST_ID.opt,
    neutron::DEFAULT_DOMAIN_ID.opt,
    neutron::DEFAULT_DOMAIN_NAME.opt,
    neutron::USER_ID.opt,
    neutron::USERNAME.opt,
    neutron::USER_DOMAIN_ID.opt,
    neutron::USER_DOMAIN_NAME.opt,
    neutron::PASSWORD.opt,
    neutron::APPLICATION_CREDENTIAL_ID.opt,
    neutron::APPLICATION_CREDENTIAL_NAME.opt,
    neutron::APPLICATION_CREDENTIAL_SECRET.opt,
    neutron::TENANT_ID.opt,
    neutron::TENANT_NAME.opt,
    Opt { section: "neutron", name: "service_type", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "neutron", name: "service_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    neutron::VALID_INTERFACES.opt,
    neutron::REGION_NAME.opt,
    neutron::ENDPOINT_OVERRIDE.opt,
    Opt { section: "neutron", name: "version", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "neutron", name: "min_version", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "neutron", name: "max_version", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "neutron", name: "connect_retries", kind: "int", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "neutron", name: "connect_retry_delay", kind: "float", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "neutron", name: "status_code_retries", kind: "int", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "neutron", name: "status_code_retry_delay", kind: "float", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "neutron", name: "retriable_status_codes", kind: "list", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    service_auth::CAFILE.opt,
    service_auth::CERTFILE.opt,
    service_auth::KEYFILE.opt,
    service_auth::INSECURE.opt,
    service_auth::TIMEOUT.opt,
    Opt { section: "service_auth", name: "collect_timing", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "service_auth", name: "split_loggers", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    service_auth::AUTH_TYPE.opt,
    Opt { section: "service_auth", name: "auth_section", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    service_auth::AUTH_URL.opt,
    service_auth::SYSTEM_SCOPE.opt,
    service_auth::DOMAIN_ID.opt,
    service_auth::DOMAIN_NAME.opt,
    service_auth::PROJECT_ID.opt,
    service_auth::PROJECT_NAME.opt,
    service_auth::PROJECT_DOMAIN_ID.opt,
    service_auth::PROJECT_DOMAIN_NAME.opt,
    service_auth::TRUST_ID.opt,
    service_auth::DEFAULT_DOMAIN_ID.opt,
    service_auth::DEFAULT_DOMAIN_NAME.opt,
    service_auth::USER_ID.opt,
    service_auth::USERNAME.opt,
    service_auth::USER_DOMAIN_ID.opt,
    service_auth::USER_DOMAIN_NAME.opt,
    service_auth::PASSWORD.opt,
    service_auth::APPLICATION_CREDENTIAL_ID.opt,
    service_auth::APPLICATION_CREDENTIAL_NAME.opt,
    service_auth::APPLICATION_CREDENTIAL_SECRET.opt,
    service_auth::TENANT_ID.opt,
    service_auth::TENANT_NAME.opt,
    Opt { section: "service_auth", name: "service_type", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("the OVN provider's Octavia client (Keel calls no Octavia API)") },
    Opt { section: "service_auth", name: "service_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("the OVN provider's Octavia client (Keel calls no Octavia API)") },
    Opt { section: "service_auth", name: "valid_interfaces", kind: "list", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("the OVN provider's Octavia client (Keel calls no Octavia API)") },
    service_auth::REGION_NAME.opt,
    Opt { section: "service_auth", name: "endpoint_override", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("the OVN provider's Octavia client (Keel calls no Octavia API)") },
    Opt { section: "service_auth", name: "version", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("the OVN provider's Octavia client (Keel calls no Octavia API)") },
    Opt { section: "service_auth", name: "min_version", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("the OVN provider's Octavia client (Keel calls no Octavia API)") },
    Opt { section: "service_auth", name: "max_version", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("the OVN provider's Octavia client (Keel calls no Octavia API)") },
    Opt { section: "service_auth", name: "connect_retries", kind: "int", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("the OVN provider's Octavia client (Keel calls no Octavia API)") },
    Opt { section: "service_auth", name: "connect_retry_delay", kind: "float", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("the OVN provider's Octavia client (Keel calls no Octavia API)") },
    Opt { section: "service_auth", name: "status_code_retries", kind: "int", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("the OVN provider's Octavia client (Keel calls no Octavia API)") },
    Opt { section: "service_auth", name: "status_code_retry_delay", kind: "float", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("the OVN provider's Octavia client (Keel calls no Octavia API)") },
    Opt { section: "service_auth", name: "retriable_status_codes", kind: "list", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("the OVN provider's Octavia client (Keel calls no Octavia API)") },
];
