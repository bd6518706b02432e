//! Keel's configuration: the operator's `octavia.conf` (one or more `--config-file`s and
//! `--config-dir`s, merged as oslo.config), one typed struct per section.
//!
//! Option names, types and defaults are Octavia's (`octavia/common/config.py`) and
//! ovn-octavia-provider's (`ovn_octavia_provider/common/config.py`); [`compat::catalog`] lists every
//! option they register and what Keel does with it, [`check`] reports the options set but not
//! implemented and refuses values Keel cannot honour.

pub mod check;
pub mod compute;
mod cors;
mod db_url;
mod error;
mod healthcheck;
mod log;
pub mod messaging;
mod section;

use std::collections::BTreeMap;
use std::path::PathBuf;

pub use compat::oslo_config::{Location, Sources};
pub use db_url::octavia_db_url;
pub use error::{ConfigError, DbUrlError};
pub use log::{
    Formatter, LogPlan, LogSettings, OsloFormats, PyLevel, Sink, event_target, python_logger,
};
use section::Section;

/// `[api_settings]`, `[networking]`, `[haproxy_amphora]` timeouts and `[oslo_middleware]`:
/// everything that reaches [`api::ApiConfig`].
#[derive(Debug, Clone)]
pub struct ApiSettings {
    /// Address to bind (default `127.0.0.1`).
    pub bind_host: String,
    /// Port to bind (default 9876).
    pub bind_port: u16,
    /// `keystone` (default) or `noauth`.
    pub auth_strategy: String,
    /// The API's options with the values read.
    pub api: api::ApiConfig,
}

/// `[database]` (oslo.db): the URL and the pool.
#[derive(Debug, Clone)]
pub struct DatabaseSettings {
    /// `connection` as written (SQLAlchemy form: `mysql+pymysql://…`, `sqlite:////abs`).
    pub connection: String,
    /// `connection_parameters` (`a=1&b=2`, default empty): appended to the URL's query.
    pub connection_parameters: String,
    /// MariaDB pool (oslo.db option names): at most `max_pool_size` + `max_overflow`
    /// connections (defaults 5 + 50, see `pool_bound`), `pool_timeout`
    /// (seconds, default 5: how long a request waits for a connection, reconnecting
    /// included, before it answers 503), `connection_recycle_time` (seconds, default 3600).
    pub pool: octavia_db::PoolSettings,
    /// `max_retries` (10, -1 = forever): connection attempts at start-up.
    pub max_retries: i64,
    /// `retry_interval` (10 s) between those attempts.
    pub retry_interval: u64,
}

/// `max_overflow = -1` (SQLAlchemy: no overflow limit) gives this bound: far above MariaDB's
/// own `max_connections` (151 by default), which then limits first.
pub const UNLIMITED_POOL_BOUND: u32 = 4096;

/// The pool's bound from `[database] max_pool_size` (oslo.db default 5, ≥ 0) and
/// `max_overflow` (default 50, ≥ -1): their sum, as SQLAlchemy's `QueuePool` opens
/// `pool_size` connections plus up to `max_overflow` more under load (kolla-ansible renders
/// `max_pool_size = 1`: the overflow is what serves concurrent requests). `-1` is
/// [`UNLIMITED_POOL_BOUND`]. Errors: a non-integer, a value under its minimum, or both 0 (no
/// connection could ever be opened), naming section and key.
fn pool_bound(src: &Sources) -> Result<u32, ConfigError> {
    use compat::catalog::database::{MAX_OVERFLOW, MAX_POOL_SIZE};
    let size = Section::typed(src, &MAX_POOL_SIZE)?.0;
    let overflow = Section::typed(src, &MAX_OVERFLOW)?.0;
    if overflow == -1 {
        return Ok(UNLIMITED_POOL_BOUND);
    }
    match size.saturating_add(overflow) {
        0 => Err(Section::typed_invalid(
            src,
            &MAX_OVERFLOW,
            "max_pool_size + max_overflow is 0: the pool could open no connection",
        )),
        n => Ok(n.min(UNLIMITED_POOL_BOUND.into()) as u32),
    }
}

impl DatabaseSettings {
    /// The URL Keel's driver takes (see [`octavia_db_url`]).
    pub fn url(&self) -> Result<String, DbUrlError> {
        octavia_db_url(&self.connection, &self.connection_parameters)
    }
}

/// TLS of one HTTP client: keystoneauth's session options (`cafile`, `insecure`, `certfile`,
/// `keyfile`, `timeout`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpTls {
    /// PEM CA bundle trusted for this peer.
    pub cafile: Option<PathBuf>,
    /// Do not verify the server's certificate.
    pub insecure: bool,
    /// Client certificate and key.
    pub certfile: Option<PathBuf>,
    /// Key of `certfile`.
    pub keyfile: Option<PathBuf>,
}

impl HttpTls {
    /// The HTTP client options for this peer.
    pub fn http_config(&self) -> openstack::HttpConfig {
        let mut h = openstack::HttpConfig {
            insecure: self.insecure,
            ca_files: self.cafile.iter().cloned().collect(),
            ..Default::default()
        };
        if let (Some(c), Some(k)) = (&self.certfile, &self.keyfile) {
            h.client_cert = Some((c.clone(), k.clone()));
        }
        h
    }
}

/// A Keystone credential (`[keystone_authtoken]`, `[service_auth]`, `[neutron]`): the
/// password plugin's options, or `v3applicationcredential`'s (keystoneauth's loaders).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeystoneAuth {
    /// `auth_type` (`password`, `v3password`, `v3applicationcredential`; empty = none
    /// configured, which is the password plugin).
    pub auth_type: String,
    /// `application_credential_id` (`v3applicationcredential`).
    pub application_credential_id: Option<String>,
    /// `application_credential_name` (with `user_id`, or `username` and its domain).
    pub application_credential_name: Option<String>,
    /// `application_credential_secret` (masked by `keel config check`).
    pub application_credential_secret: String,
    /// `user_id`: the owner of an application credential given by name.
    pub user_id: Option<String>,
    /// e.g. `http://127.0.0.1:5000/v3`.
    pub auth_url: String,
    /// Service user name.
    pub username: String,
    /// Service user password.
    pub password: String,
    /// `project_name` (else `tenant_name`): the project scope by name (empty: none).
    pub project_name: String,
    /// `project_id` (else `tenant_id`): the project scope by id (wins over the name).
    pub project_id: Option<String>,
    /// Domain of the user by name (unset: `default_domain_name`, then `Default`).
    pub user_domain_name: Option<String>,
    /// Domain of the user by id (unset: `default_domain_id`; wins over the names).
    pub user_domain_id: Option<String>,
    /// Domain of the project by name (unset: `default_domain_name`, then `Default`).
    pub project_domain_name: Option<String>,
    /// Domain of the project by id (unset: `default_domain_id`; wins over the names).
    pub project_domain_id: Option<String>,
    /// `default_domain_id` (the `password` plugin's; `None` with `v3password`, which has no
    /// such option).
    pub default_domain_id: Option<String>,
    /// `default_domain_name` (the `password` plugin's; `None` with `v3password`).
    pub default_domain_name: Option<String>,
    /// `domain_id`: the domain scope by id.
    pub domain_id: Option<String>,
    /// `domain_name`: the domain scope by name.
    pub domain_name: Option<String>,
    /// `trust_id`: the trust scope.
    pub trust_id: Option<String>,
    /// `system_scope`: the system scope (`all`).
    pub system_scope: Option<String>,
    /// Region for catalog lookups.
    pub region_name: Option<String>,
    /// The session's TLS options.
    pub tls: HttpTls,
    /// Bound of each request to Keystone: `[keystone_authtoken] http_connect_timeout`,
    /// `[service_auth] timeout`, `[neutron] timeout` (seconds; Keystone's default 5 s, so a
    /// frozen Keystone answers 503 in that time instead of holding the request).
    pub timeout: Option<std::time::Duration>,
}

/// keystoneauth's name of the application-credential plugin.
pub const APP_CREDENTIAL_AUTH_TYPE: &str = "v3applicationcredential";

impl KeystoneAuth {
    /// True with `auth_type = v3applicationcredential`.
    pub fn is_application_credential(&self) -> bool {
        self.auth_type == APP_CREDENTIAL_AUTH_TYPE
    }

    /// The application credential of `v3applicationcredential` (`None` for the password
    /// plugin): the id, else the name with `user_id` or `username` + its domain.
    pub fn application_credential(&self) -> Option<openstack::ApplicationCredential> {
        if !self.is_application_credential() {
            return None;
        }
        let user = match (&self.user_id, self.username.is_empty()) {
            (Some(id), _) => Some(openstack::AppCredentialUser::Id(id.clone())),
            (None, false) => Some(openstack::AppCredentialUser::Name {
                name: self.username.clone(),
                domain_id: self.user_domain_id.clone(),
                domain_name: self
                    .user_domain_name
                    .clone()
                    .unwrap_or_else(|| "Default".into()),
            }),
            (None, true) => None,
        };
        Some(openstack::ApplicationCredential {
            id: self.application_credential_id.clone(),
            name: self.application_credential_name.clone(),
            secret: self.application_credential_secret.clone(),
            user,
        })
    }

    /// What `v3applicationcredential` lacks, as `(key, why)` (empty when complete or for the
    /// password plugin), as keystoneauth's loader refuses it: a secret, and an id or a name
    /// with its user.
    pub fn application_credential_gaps(&self) -> Vec<(&'static str, &'static str)> {
        let mut gaps = Vec::new();
        if !self.is_application_credential() {
            return gaps;
        }
        if self.application_credential_secret.is_empty() {
            gaps.push((
                "application_credential_secret",
                "v3applicationcredential needs the credential's secret",
            ));
        }
        if self.application_credential_id.is_none() {
            if self.application_credential_name.is_none() {
                gaps.push((
                    "application_credential_id",
                    "v3applicationcredential needs application_credential_id, or application_credential_name with user_id or username",
                ));
            } else if self.user_id.is_none() && self.username.is_empty() {
                gaps.push((
                    "application_credential_name",
                    "a credential given by name needs its user: user_id, or username with user_domain_name/user_domain_id",
                ));
            }
        }
        if self.auth_url.is_empty() {
            gaps.push((
                "auth_url",
                "v3applicationcredential needs Keystone's auth_url",
            ));
        }
        gaps
    }

    /// The password plugin's refusal of more than one scope, as `(key, why)`: the option of
    /// the second scope named (of project, domain, trust, system) and the error
    /// (`openstack::ServiceAuthConfig::scope`; keystoneauth refuses the first token request
    /// alike). `None` for one scope or none, and for an application credential.
    pub fn scope_conflict(&self) -> Option<(&'static str, String)> {
        if self.is_application_credential() {
            return None;
        }
        let cfg = self.service_auth();
        let e = cfg.scope().err()?;
        let key = match cfg.scope_targets().get(1).copied() {
            Some("domain") if self.domain_id.is_some() => "domain_id",
            Some("domain") => "domain_name",
            Some("trust") => "trust_id",
            _ => "system_scope",
        };
        Some((key, e.to_string()))
    }

    /// The `openstack` crate's service credential.
    pub fn service_auth(&self) -> openstack::ServiceAuthConfig {
        openstack::ServiceAuthConfig {
            application_credential: self.application_credential(),
            auth_url: self.auth_url.clone(),
            username: self.username.clone(),
            password: self.password.clone(),
            user_id: self.user_id.clone(),
            project_name: self.project_name.clone(),
            project_id: self.project_id.clone(),
            user_domain_name: self.user_domain_name.clone(),
            user_domain_id: self.user_domain_id.clone(),
            project_domain_name: self.project_domain_name.clone(),
            project_domain_id: self.project_domain_id.clone(),
            default_domain_id: self.default_domain_id.clone(),
            default_domain_name: self.default_domain_name.clone(),
            domain_id: self.domain_id.clone(),
            domain_name: self.domain_name.clone(),
            trust_id: self.trust_id.clone(),
            system_scope: self.system_scope.clone(),
            region_name: self.region_name.clone(),
            timeout: self.timeout,
            ..Default::default()
        }
    }
}

/// `[keystone_authtoken]` (keystonemiddleware).
#[derive(Debug, Clone, Default)]
pub struct AuthTokenSettings {
    /// The credential (and TLS) used to validate user tokens.
    pub auth: KeystoneAuth,
    /// `token_cache_time` (300 s): how long a validated token is reused.
    pub token_cache_time: u64,
}

/// `[neutron]`: where and how to reach Neutron (ovn-octavia-provider: each auth/session
/// option not set here is taken from `[service_auth]`).
#[derive(Debug, Clone, Default)]
pub struct NeutronSettings {
    /// `endpoint_override` (or the deprecated `endpoint`); default: the catalog's `network`.
    pub endpoint: Option<String>,
    /// `valid_interfaces` (or the deprecated `endpoint_type` without `URL`); default `public`.
    pub valid_interfaces: String,
    /// `region_name`.
    pub region_name: Option<String>,
    /// The credential and TLS of the Neutron session.
    pub auth: KeystoneAuth,
    /// `timeout` (seconds; absent = the HTTP client's 30 s): bound of each Neutron request.
    /// Kept long by default: a VIP port create cut short may still be made by Neutron.
    pub timeout: Option<std::time::Duration>,
}

/// `[ovn]`, as ovn-octavia-provider's options.
#[derive(Debug, Clone)]
pub struct OvnSettings {
    /// NB remote(s): `tcp:`, `ssl:` or `unix:` (a list, tried in turn).
    pub ovn_nb_connection: String,
    /// `ovn_nb_private_key`, `ovn_nb_certificate`, `ovn_nb_ca_cert` (empty = unset).
    pub nb_ssl: [String; 3],
    /// SB remote(s).
    pub ovn_sb_connection: String,
    /// `ovn_sb_private_key`, `ovn_sb_certificate`, `ovn_sb_ca_cert`.
    pub sb_ssl: [String; 3],
    /// Seconds to wait for a connection's first sync (default 180).
    pub ovsdb_connection_timeout: u64,
    /// Milliseconds between inactivity probes (default 60000; 0 disables; else at least 1000).
    pub ovsdb_probe_interval: u64,
    /// Max seconds between reconnect attempts (default 180).
    pub ovsdb_retry_max_interval: u64,
}

impl OvnSettings {
    /// The `ssl:` files of one database, when all three are set.
    pub fn ssl_files(files: &[String; 3]) -> Option<ovsdb::SslFiles> {
        if files.iter().any(String::is_empty) {
            return None;
        }
        Some(ovsdb::SslFiles {
            private_key: PathBuf::from(&files[0]),
            certificate: PathBuf::from(&files[1]),
            ca_cert: PathBuf::from(&files[2]),
        })
    }
}

/// `[oslo_policy]`, as oslo.policy 6.0.0 (the release `ci/stack/upper-constraints.txt` pins).
/// `enforce_scope`, which that release removed, is not read: the review lists it as ignored
/// (`check::unimplemented_why`), so `serve`'s warning and `config check` say the same.
#[derive(Debug, Clone)]
pub struct OsloPolicySettings {
    /// `policy_file` (default `policy.yaml`): absolute, or found relative to the config
    /// file's directory then oslo.config's default dirs; absent → the built-in defaults.
    pub policy_file: String,
    /// `policy_dirs` (default `policy.d`): directories of further rule files.
    pub policy_dirs: Vec<String>,
    /// `enforce_new_defaults` (default True): False ORs each deprecated rule (the legacy
    /// `load-balancer_*` roles) with its new default.
    pub enforce_new_defaults: bool,
    /// The directory of the first config file (for `policy_file`, `policy_dirs`).
    pub config_dir: Option<PathBuf>,
}

impl OsloPolicySettings {
    /// The effective policy: the file found for `policy_file` (if any) over Octavia's
    /// registered defaults. Errors: an unreadable or invalid file (startup fails).
    /// The file is watched: edits are picked up on the next request, as oslo.policy does.
    pub fn load_policy(&self) -> Result<api::policy::PolicySource, api::policy::PolicyError> {
        let file = api::policy::find_policy_file(&self.policy_file, self.config_dir.as_deref());
        match &file {
            Some(f) => tracing::info!(file = %f.display(), "policy file loaded"),
            None => tracing::debug!(file = %self.policy_file, "no policy file; defaults only"),
        }
        api::policy::PolicySource::load(file, self.enforce_new_defaults)
    }

    /// The `policy_dirs` entries that exist (found as `policy_file` is) and hold files.
    pub fn populated_policy_dirs(&self) -> Vec<PathBuf> {
        self.policy_dirs
            .iter()
            .filter_map(|d| api::policy::find_policy_dir(d, self.config_dir.as_deref()))
            .filter(|d| {
                std::fs::read_dir(d)
                    .map(|mut e| e.any(|f| f.is_ok_and(|f| f.path().is_file())))
                    .unwrap_or(false)
            })
            .collect()
    }
}

/// `[certificates]`: where Octavia's `barbican_cert_manager` finds Barbican (TLS references
/// of listeners and pools, seed 003 §5). Keel reads with the caller's token.
#[derive(Debug, Clone)]
pub struct CertificatesSettings {
    /// `cert_manager` (`barbican_cert_manager`).
    pub cert_manager: String,
    /// `endpoint`: Barbican's base URL; absent → the catalog's `key-manager`.
    pub endpoint: Option<String>,
    /// `region_name` for the catalog lookup (absent → `[service_auth] region_name`).
    pub region_name: Option<String>,
    /// `endpoint_type` (`publicURL`, `internalURL`, `adminURL` or the bare names).
    pub endpoint_type: String,
    /// `ca_certificates_file` and `insecure` for Barbican (the Keystone part of the session
    /// is `[service_auth]`'s).
    pub tls: HttpTls,
}

/// `[keel]`: Keel's own options (not in octavia.conf; absent = the default).
#[derive(Debug, Clone)]
pub struct KeelSettings {
    /// `settle_wait_ms` (default 1000, 0 = answer at commit as Octavia does): how long a
    /// create/update/delete waits, after its commit, for the provider's status report on the
    /// load balancer, so the client's first GET sees the outcome (octavia-db `settle`).
    pub settle_wait_ms: u64,
    /// `run_agent` (default true): compete for the NB lock and, when holding it, run the OVN
    /// provider agent (events, health, maintenance). False serves the API and the driver only,
    /// as an `octavia-api` without `octavia-driver-agent` beside it.
    pub run_agent: bool,
    /// `nb_unavailable_after` (seconds, default 5): once the NB connection has been down this
    /// long, changes answer 503 naming the OVN Northbound instead of being queued
    /// (`nb_gate`).
    pub nb_unavailable_after: std::time::Duration,
    /// `recovery_lease` (seconds, default 30): a PENDING_* load balancer whose lease no live
    /// process renewed for this long is taken over and completed (`recovery`).
    pub recovery_lease: u64,
    /// `recovery_period` (seconds, default 10): how often leases are renewed and orphans
    /// looked for; at most a third of the lease.
    pub recovery_period: u64,
    /// `[DEFAULT] graceful_shutdown_timeout` (oslo.service, seconds, default 60): on SIGTERM or
    /// SIGINT, how long in-flight requests and accepted provider work may take to finish.
    pub graceful_shutdown_timeout: u64,
    /// `metrics_listen` (none): `host:port` of the Prometheus endpoint (`GET /metrics`),
    /// separate from the API's port; absent = no endpoint.
    pub metrics_listen: Option<String>,
    /// `rpc_cast_timeout` (seconds, default 5, > 0): how long an amphora write waits for
    /// RabbitMQ to confirm its cast (a connection, the publish, the broker's ack) before it is
    /// refused with 503 and nothing stored.
    pub rpc_cast_timeout: std::time::Duration,
}

/// The whole configuration.
#[derive(Debug, Clone)]
#[allow(missing_docs)]
pub struct Config {
    pub sources: Sources,
    pub log: LogSettings,
    pub api_settings: ApiSettings,
    pub database: DatabaseSettings,
    pub keystone_authtoken: AuthTokenSettings,
    pub service_auth: KeystoneAuth,
    pub neutron: NeutronSettings,
    pub ovn: OvnSettings,
    pub certificates: CertificatesSettings,
    pub keel: KeelSettings,
    pub oslo_policy: OsloPolicySettings,
    /// The amphora provider's RPC transport and VIP network driver (`messaging`).
    pub messaging: messaging::MessagingSettings,
    /// The amphora provider's compute, image and volume drivers and their services
    /// (`compute`).
    pub compute: compute::ComputeSettings,
}

/// The section reads that build this module's settings types.
impl Section<'_> {
    /// The credential and its session of the section of `o` (`AuthOpts`' bound of each
    /// request: 5 s unset in `[keystone_authtoken]` and `[service_auth]`).
    pub(crate) fn keystone(
        src: &Sources,
        o: &compat::catalog::AuthOpts,
    ) -> Result<KeystoneAuth, ConfigError> {
        let t = |o| Section::typed(src, o);
        let opt = |o| Section::typed(src, o);
        let auth_type: String = t(&o.auth_type)?;
        // `v3password` registers neither `default_domain_*` nor `tenant_*` (keystoneauth's
        // v3 loader); the generic `password` plugin (and an unset auth_type) does.
        let generic = auth_type != "v3password";
        let generic_only =
            |o| -> Result<Option<String>, ConfigError> { Ok(if generic { opt(o)? } else { None }) };
        let project_name: String = t(&o.project_name)?;
        Ok(KeystoneAuth {
            timeout: Section::typed(src, &o.timeout)?,
            auth_type,
            application_credential_id: opt(&o.application_credential_id)?,
            application_credential_name: opt(&o.application_credential_name)?,
            application_credential_secret: t(&o.application_credential_secret)?,
            user_id: opt(&o.user_id)?,
            auth_url: t(&o.auth_url)?,
            username: t(&o.username)?,
            password: t(&o.password)?,
            project_name: match generic_only(&o.tenant_name)? {
                Some(tenant) if project_name.is_empty() => tenant,
                _ => project_name,
            },
            project_id: opt(&o.project_id)?.or(generic_only(&o.tenant_id)?),
            user_domain_name: opt(&o.user_domain_name)?,
            user_domain_id: opt(&o.user_domain_id)?,
            project_domain_name: opt(&o.project_domain_name)?,
            project_domain_id: opt(&o.project_domain_id)?,
            default_domain_id: generic_only(&o.default_domain_id)?,
            default_domain_name: generic_only(&o.default_domain_name)?,
            domain_id: opt(&o.domain_id)?,
            domain_name: opt(&o.domain_name)?,
            trust_id: opt(&o.trust_id)?,
            system_scope: opt(&o.system_scope)?,
            region_name: opt(&o.region_name)?,
            tls: HttpTls {
                cafile: Section::typed(src, &o.cafile)?,
                insecure: Section::typed(src, &o.insecure)?,
                certfile: Section::typed(src, &o.certfile)?,
                keyfile: Section::typed(src, &o.keyfile)?,
            },
        })
    }
}

/// oslo `DictOpt`: `name:description,name:description`.
fn parse_dict(raw: &str) -> BTreeMap<String, String> {
    raw.split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|item| match item.split_once(':') {
            Some((k, v)) => (k.trim().to_string(), v.trim().to_string()),
            None => (item.trim().to_string(), String::new()),
        })
        .collect()
}

impl Config {
    /// Reads the locations in order (later wins). No location: every option at its default.
    pub fn load_all(locations: &[Location]) -> Result<Self, ConfigError> {
        Self::from_sources(Sources::load(locations)?)
    }

    /// Reads one file.
    #[cfg(test)]
    pub fn load(path: &std::path::Path) -> Result<Self, ConfigError> {
        Self::load_all(&[Location::File(path.to_path_buf())])
    }

    /// The configuration with every option at its default.
    #[cfg(test)]
    pub fn defaults() -> Result<Self, ConfigError> {
        Self::from_sources(Sources::default())
    }

    /// Types every option Keel honours, one section after the other (in this order, so the
    /// first bad value reported is the same whatever the split). Errors: a value of the wrong
    /// type or range.
    pub fn from_sources(src: Sources) -> Result<Self, ConfigError> {
        use compat::catalog::{keystone_authtoken as kat, oslo_policy as p, service_auth};
        let log = log::read(&src)?;
        let api_settings = api_settings(&src)?;
        let database = database(&src)?;
        let keystone_authtoken = AuthTokenSettings {
            auth: Section::keystone(&src, &kat::AUTH)?,
            token_cache_time: Section::typed(&src, &kat::TOKEN_CACHE_TIME)?,
        };
        let service_auth = Section::keystone(&src, &service_auth::AUTH)?;
        let neutron = neutron(&src, &service_auth)?;
        let ovn = ovn(&src)?;
        let certificates = certificates(&src, &service_auth)?;
        let keel = keel(&src)?;
        let messaging = messaging::read(&src)?;
        let compute = compute::read(&src, service_auth.tls.cafile.as_deref())?;
        let oslo_policy = OsloPolicySettings {
            policy_file: Section::typed(&src, &p::POLICY_FILE)?,
            policy_dirs: Section::typed_all(&src, &p::POLICY_DIRS)?,
            enforce_new_defaults: Section::typed(&src, &p::ENFORCE_NEW_DEFAULTS)?,
            config_dir: src.first_dir(),
        };
        Ok(Self {
            log,
            api_settings,
            database,
            keystone_authtoken,
            service_auth,
            neutron,
            ovn,
            certificates,
            keel,
            oslo_policy,
            messaging,
            compute,
            sources: src,
        })
    }

    /// The API's options with the policy filled in.
    pub fn api_config(&self, policy: std::sync::Arc<api::policy::PolicySource>) -> api::ApiConfig {
        let mut c = self.api_settings.api.clone();
        c.policy = policy;
        c
    }
}

/// `[api_settings]`, `[networking]`, `[haproxy_amphora]`, `[oslo_middleware]`, `[quotas]` and
/// `[controller_worker] loadbalancer_topology`: the API's options without the listener's.
fn api_options(src: &Sources) -> Result<api::ApiConfig, ConfigError> {
    use compat::catalog::{
        api_settings, haproxy_amphora, networking, oslo_middleware as m, quotas,
    };
    let pagination_max_limit = pagination_max_limit(src)?;
    let (enabled_provider_drivers, default_provider_driver) = provider_drivers(src)?;
    let api = api::ApiConfig {
        pagination_max_limit,
        default_provider_driver,
        enabled_provider_drivers,
        allow_pagination: Section::typed(src, &api_settings::ALLOW_PAGINATION)?,
        allow_sorting: Section::typed(src, &api_settings::ALLOW_SORTING)?,
        allow_filtering: Section::typed(src, &api_settings::ALLOW_FILTERING)?,
        allow_field_selection: Section::typed(src, &api_settings::ALLOW_FIELD_SELECTION)?,
        api_base_uri: Section::typed(src, &api_settings::API_BASE_URI)?,
        healthcheck_enabled: Section::typed(src, &api_settings::HEALTHCHECK_ENABLED)?,
        max_request_body_size: Section::typed(src, &m::MAX_REQUEST_BODY_SIZE)?.0 as usize,
        enable_proxy_headers_parsing: Section::typed(src, &m::ENABLE_PROXY_HEADERS_PARSING)?,
        allow_vip_network_id: Section::typed(src, &networking::ALLOW_VIP_NETWORK_ID)?,
        allow_vip_subnet_id: Section::typed(src, &networking::ALLOW_VIP_SUBNET_ID)?,
        allow_vip_port_id: Section::typed(src, &networking::ALLOW_VIP_PORT_ID)?,
        reserved_ips: Section::typed(src, &networking::RESERVED_IPS)?,
        allow_ping_health_monitors: Section::typed(src, &api_settings::ALLOW_PING_HEALTH_MONITORS)?,
        allow_tls_terminated_listeners: Section::typed(
            src,
            &api_settings::ALLOW_TLS_TERMINATED_LISTENERS,
        )?,
        allow_prometheus_listeners: Section::typed(src, &api_settings::ALLOW_PROMETHEUS_LISTENERS)?,
        udp_connect_min_interval_health_monitor: Section::typed(
            src,
            &api_settings::UDP_CONNECT_MIN_INTERVAL_HEALTH_MONITOR,
        )?,
        timeout_client_data: Section::typed(src, &haproxy_amphora::TIMEOUT_CLIENT_DATA)?,
        timeout_member_connect: Section::typed(src, &haproxy_amphora::TIMEOUT_MEMBER_CONNECT)?,
        timeout_member_data: Section::typed(src, &haproxy_amphora::TIMEOUT_MEMBER_DATA)?,
        timeout_tcp_inspect: Section::typed(src, &haproxy_amphora::TIMEOUT_TCP_INSPECT)?,
        quotas: api::QuotaDefaults {
            load_balancer: Section::typed(src, &quotas::DEFAULT_LOAD_BALANCER_QUOTA)?,
            listener: Section::typed(src, &quotas::DEFAULT_LISTENER_QUOTA)?,
            member: Section::typed(src, &quotas::DEFAULT_MEMBER_QUOTA)?,
            pool: Section::typed(src, &quotas::DEFAULT_POOL_QUOTA)?,
            health_monitor: Section::typed(src, &quotas::DEFAULT_HEALTH_MONITOR_QUOTA)?,
            l7policy: Section::typed(src, &quotas::DEFAULT_L7POLICY_QUOTA)?,
            l7rule: Section::typed(src, &quotas::DEFAULT_L7RULE_QUOTA)?,
        },
        loadbalancer_topology: loadbalancer_topology(src)?,
        ..Default::default()
    };
    for ip in &api.reserved_ips {
        if ip.parse::<std::net::IpAddr>().is_err() {
            let why = "expected an IP address";
            return Err(Section::typed_refuse(
                &networking::RESERVED_IPS,
                ip.clone(),
                why,
            ));
        }
    }
    Ok(api)
}

/// `[api_settings] pagination_max_limit`: `infinite` (`None`, case-insensitive) or an
/// integer at least 1, as Octavia's pagination helper reads that `StrOpt`. Errors: anything
/// else, naming the option.
fn pagination_max_limit(src: &Sources) -> Result<Option<usize>, ConfigError> {
    use compat::catalog::{AtLeast, OptValue, api_settings::PAGINATION_MAX_LIMIT};
    let limit = Section::typed(src, &PAGINATION_MAX_LIMIT)?;
    if limit.eq_ignore_ascii_case("infinite") {
        return Ok(None);
    }
    let n = AtLeast::<1>::parse(&limit)
        .map_err(|why| Section::typed_invalid(src, &PAGINATION_MAX_LIMIT, why))?;
    Ok(Some(n.0 as usize))
}

/// `[api_settings] enabled_provider_drivers` (`name:description,…`, Keel's default OVN only)
/// and `default_provider_driver`: Octavia's default is `amphora`; Keel's is `ovn` unless the
/// operator enabled amphora.
fn provider_drivers(src: &Sources) -> Result<(BTreeMap<String, String>, String), ConfigError> {
    use compat::catalog::api_settings::{DEFAULT_PROVIDER_DRIVER, ENABLED_PROVIDER_DRIVERS};
    let enabled = parse_dict(&Section::typed(src, &ENABLED_PROVIDER_DRIVERS)?);
    let keel_default = if enabled.contains_key("amphora") {
        "amphora"
    } else {
        "ovn"
    };
    let default = Section::typed(src, &DEFAULT_PROVIDER_DRIVER.keel_default(keel_default))?;
    Ok((enabled, default))
}

/// `[api_settings]` with the API's options ([`api_options`]), then `[healthcheck]`, `[cors]`
/// and `[keystone_authtoken]`'s service-token rules.
fn api_settings(src: &Sources) -> Result<ApiSettings, ConfigError> {
    use compat::catalog::{api_settings as a, keystone_authtoken as k};
    let api = api_options(src)?;
    let bind_port = {
        let p = Section::typed(src, &a::BIND_PORT)?.0;
        u16::try_from(p)
            .map_err(|_| Section::typed_refuse(&a::BIND_PORT, p.to_string(), "expected a port"))?
    };
    let api = api::ApiConfig {
        healthcheck: healthcheck::read(src, bind_port)?,
        cors: cors::read(src)?,
        www_authenticate_uri: Section::typed(src, &k::WWW_AUTHENTICATE_URI)?,
        service_token: api::context::ServiceTokenRules {
            roles: Section::typed(src, &k::SERVICE_TOKEN_ROLES)?,
            roles_required: Section::typed(src, &k::SERVICE_TOKEN_ROLES_REQUIRED)?,
        },
        ..api
    };
    let api_settings = ApiSettings {
        bind_host: Section::typed(src, &a::BIND_HOST)?,
        bind_port,
        auth_strategy: Section::typed(src, &a::AUTH_STRATEGY)?,
        api,
    };
    Ok(api_settings)
}

/// `[database]`.
fn database(src: &Sources) -> Result<DatabaseSettings, ConfigError> {
    use compat::catalog::database as db;
    let database = DatabaseSettings {
        connection: Section::typed(src, &db::CONNECTION)?,
        connection_parameters: Section::typed(src, &db::CONNECTION_PARAMETERS)?,
        pool: {
            let d = octavia_db::PoolSettings::default();
            octavia_db::PoolSettings {
                max_connections: pool_bound(src)?,
                acquire_timeout: Section::typed(src, &db::POOL_TIMEOUT)?
                    .unwrap_or(d.acquire_timeout),
                max_lifetime: Section::typed(src, &db::CONNECTION_RECYCLE_TIME)?,
                ..d
            }
        },
        max_retries: Section::typed(src, &db::MAX_RETRIES)?.0,
        retry_interval: Section::typed(src, &db::RETRY_INTERVAL)?,
    };
    Ok(database)
}

/// `[neutron]`, as ovn-octavia-provider's `KeystoneSession('neutron')` reads it: when
/// `[neutron]`'s own credential cannot load (keystoneauth's `MissingRequiredOptions`: no
/// `auth_url`, or a `v3applicationcredential` without its secret), each option not set in
/// `[neutron]` is `[service_auth]`'s; a `[neutron]` that loads on its own takes nothing from
/// `[service_auth]` (its scope, domains, region and TLS files included). Keel also borrows when
/// `[neutron]` names no `auth_type`, where keystoneauth would have no credential at all. The
/// deprecated `endpoint`, `endpoint_type`, `ca_certificates_file` are the defaults of
/// `endpoint_override`, `valid_interfaces`, `cafile`.
fn neutron(src: &Sources, service_auth: &KeystoneAuth) -> Result<NeutronSettings, ConfigError> {
    use compat::catalog::neutron::{self as ne, AUTH};
    let mut nauth = Section::keystone(src, &AUTH)?;
    // [neutron] timeout bounds the Neutron calls; the session's token requests keep
    // [service_auth]'s bound.
    let neutron_timeout = nauth.timeout;
    nauth.timeout = service_auth.timeout;
    let sa = service_auth;
    let loads_alone = Section::is_set(src, &AUTH.auth_type)
        && Section::is_set(src, &AUTH.auth_url)
        && (nauth.auth_type != "v3applicationcredential"
            || Section::is_set(src, &AUTH.application_credential_secret));
    // an option [service_auth] fills: one [neutron] does not set, when [neutron] cannot load alone
    let borrows = !loads_alone;
    macro_rules! fallback {
        ($($f:ident),*) => {$(
            if borrows && !Section::is_set(src, &AUTH.$f) { nauth.$f = sa.$f.clone(); }
        )*};
    }
    fallback!(
        auth_type,
        application_credential_id,
        application_credential_name,
        application_credential_secret,
        user_id,
        auth_url,
        username,
        password,
        user_domain_name,
        user_domain_id,
        project_domain_name,
        project_domain_id,
        default_domain_id,
        default_domain_name,
        domain_id,
        domain_name,
        trust_id,
        system_scope,
        region_name
    );
    // `tenant_*` set in [neutron] are its `project_*` (their deprecated names)
    if borrows
        && !Section::is_set(src, &AUTH.project_name)
        && !Section::is_set(src, &AUTH.tenant_name)
    {
        nauth.project_name = sa.project_name.clone();
    }
    if borrows && !Section::is_set(src, &AUTH.project_id) && !Section::is_set(src, &AUTH.tenant_id)
    {
        nauth.project_id = sa.project_id.clone();
    }
    if nauth.auth_type == "v3password" {
        // options the v3 plugin does not register, so none to take from [service_auth]
        nauth.default_domain_id = None;
        nauth.default_domain_name = None;
    }
    let lent = |own: &Option<PathBuf>, theirs: &Option<PathBuf>| {
        own.clone().or_else(|| theirs.clone().filter(|_| borrows))
    };
    nauth.tls = HttpTls {
        cafile: lent(
            &nauth
                .tls
                .cafile
                .clone()
                .or(Section::typed(src, &ne::CA_CERTIFICATES_FILE)?),
            &sa.tls.cafile,
        ),
        insecure: if borrows && !Section::is_set(src, &AUTH.insecure) {
            sa.tls.insecure
        } else {
            nauth.tls.insecure
        },
        certfile: lent(&nauth.tls.certfile, &sa.tls.certfile),
        keyfile: lent(&nauth.tls.keyfile, &sa.tls.keyfile),
    };
    let interfaces = match Section::typed(src, &ne::VALID_INTERFACES)? {
        Some(i) => i,
        None => Section::typed(src, &ne::ENDPOINT_TYPE)?
            .map(|t| t.replace("URL", ""))
            .unwrap_or_else(|| "public".into()),
    };
    let neutron = NeutronSettings {
        endpoint: Section::typed(src, &ne::ENDPOINT_OVERRIDE)?
            .or(Section::typed(src, &ne::ENDPOINT)?),
        valid_interfaces: interfaces,
        region_name: nauth.region_name.clone(),
        auth: nauth,
        timeout: neutron_timeout,
    };
    Ok(neutron)
}

/// `[ovn]`: the NB and SB remotes (each `tcp:`, `ssl:` or `unix:`), their TLS files, the
/// OVSDB timers.
fn ovn(src: &Sources) -> Result<OvnSettings, ConfigError> {
    use compat::catalog::ovn as o;
    let t = |x| Section::typed(src, x);
    let probe = Section::typed(src, &o::OVSDB_PROBE_INTERVAL)?;
    let ovn = OvnSettings {
        ovn_nb_connection: Section::typed(src, &o::OVN_NB_CONNECTION)?.join(","),
        nb_ssl: [
            t(&o::OVN_NB_PRIVATE_KEY)?,
            t(&o::OVN_NB_CERTIFICATE)?,
            t(&o::OVN_NB_CA_CERT)?,
        ],
        ovn_sb_connection: Section::typed(src, &o::OVN_SB_CONNECTION)?.join(","),
        sb_ssl: [
            t(&o::OVN_SB_PRIVATE_KEY)?,
            t(&o::OVN_SB_CERTIFICATE)?,
            t(&o::OVN_SB_CA_CERT)?,
        ],
        ovsdb_connection_timeout: Section::typed(src, &o::OVSDB_CONNECTION_TIMEOUT)?,
        // "If non-zero the value will be forced to at least 1000 milliseconds."
        ovsdb_probe_interval: if probe == 0 { 0 } else { probe.max(1000) },
        ovsdb_retry_max_interval: Section::typed(src, &o::OVSDB_RETRY_MAX_INTERVAL)?,
    };
    for (key, remotes) in [
        (&o::OVN_NB_CONNECTION, &ovn.ovn_nb_connection),
        (&o::OVN_SB_CONNECTION, &ovn.ovn_sb_connection),
    ] {
        for r in remotes.split(',') {
            if !(r.starts_with("tcp:") || r.starts_with("ssl:") || r.starts_with("unix:"))
                || r.len() <= 4
            {
                return Err(Section::typed_refuse(
                    key,
                    r.to_string(),
                    "expected tcp:IP:PORT, ssl:IP:PORT or unix:FILE",
                ));
            }
        }
    }
    Ok(ovn)
}

/// `[certificates]`, the CA file falling back to `[service_auth] cafile`.
fn certificates(src: &Sources, sa: &KeystoneAuth) -> Result<CertificatesSettings, ConfigError> {
    use compat::catalog::certificates as c;
    let certificates = CertificatesSettings {
        cert_manager: Section::typed(src, &c::CERT_MANAGER)?,
        endpoint: Section::typed(src, &c::ENDPOINT)?,
        region_name: Section::typed(src, &c::REGION_NAME)?,
        endpoint_type: Section::typed(src, &c::ENDPOINT_TYPE)?,
        tls: HttpTls {
            cafile: Section::typed(src, &c::CA_CERTIFICATES_FILE)?
                .or_else(|| sa.tls.cafile.clone()),
            insecure: Section::typed(src, &c::INSECURE)?,
            ..Default::default()
        },
    };
    Ok(certificates)
}

/// `[keel]` (Keel's own options) and `[DEFAULT] graceful_shutdown_timeout`, each read by the
/// type of its constant in `compat::catalog::keel` (name and default written there once).
fn keel(src: &Sources) -> Result<KeelSettings, ConfigError> {
    use compat::catalog::keel::{
        GRACEFUL_SHUTDOWN_TIMEOUT, METRICS_LISTEN, NB_UNAVAILABLE_AFTER, RPC_CAST_TIMEOUT,
        RUN_AGENT, SETTLE_WAIT_MS,
    };
    let (recovery_lease, recovery_period) = recovery_timing(src)?;
    Ok(KeelSettings {
        settle_wait_ms: Section::typed(src, &SETTLE_WAIT_MS)?,
        run_agent: Section::typed(src, &RUN_AGENT)?,
        nb_unavailable_after: Section::typed(src, &NB_UNAVAILABLE_AFTER)?,
        recovery_lease,
        recovery_period,
        graceful_shutdown_timeout: Section::typed(src, &GRACEFUL_SHUTDOWN_TIMEOUT)?,
        metrics_listen: Section::typed(src, &METRICS_LISTEN)?,
        rpc_cast_timeout: Section::typed(src, &RPC_CAST_TIMEOUT)?,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;

/// `[keel] recovery_lease` and `recovery_period` (seconds, each ≥ 1), the lease longer than
/// the period: a lease no longer than the renewal period ends while its owner still works, and
/// another replica would take over (and redo) work in flight. Refused, naming the option,
/// rather than silently raised.
fn recovery_timing(src: &Sources) -> Result<(u64, u64), ConfigError> {
    use compat::catalog::keel::{RECOVERY_LEASE, RECOVERY_PERIOD};
    let lease = Section::typed(src, &RECOVERY_LEASE)?.get();
    let period = Section::typed(src, &RECOVERY_PERIOD)?.get();
    if period >= lease {
        return Err(Section::typed_refuse(
            &RECOVERY_LEASE,
            lease.to_string(),
            format!("should be longer than recovery_period ({period} s), ideally three times it"),
        ));
    }
    Ok((lease, period))
}

impl LogSettings {
    /// The handlers and loggers: the fileConfig file's with `log_config_append`
    /// (`compat::log_config::read`), else oslo.log's own setup (`LogSettings::own_plan`).
    /// Errors: each refusal naming the file, section, key and why.
    pub fn plan(&self, binary: &str, stderr_tty: bool) -> Result<LogPlan, Vec<String>> {
        if let Some(path) = &self.log_config_append {
            return compat::log_config::read(path);
        }
        self.own_plan(binary, stderr_tty)
    }
}

/// `[controller_worker] loadbalancer_topology`: `SINGLE` (the default) or `ACTIVE_STANDBY`, the
/// choices octavia/common/config.py gives it; any other value refused.
fn loadbalancer_topology(src: &Sources) -> Result<String, ConfigError> {
    use compat::catalog::controller_worker::LOADBALANCER_TOPOLOGY;
    let t = Section::typed(src, &LOADBALANCER_TOPOLOGY)?;
    match t.as_str() {
        "SINGLE" | "ACTIVE_STANDBY" => Ok(t),
        _ => Err(Section::typed_invalid(
            src,
            &LOADBALANCER_TOPOLOGY,
            "expected SINGLE or ACTIVE_STANDBY",
        )),
    }
}
