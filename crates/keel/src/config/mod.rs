//! Keel's configuration: an `octavia.conf`-compatible INI file, one typed struct per section.
//!
//! Option names and defaults are Octavia's (`octavia/common/config.py`, api-contract.md
//! §14.10) and ovn-octavia-provider's (`ovn_octavia_provider/common/config.py`), so an
//! operator's existing file works unchanged. Unknown sections and keys are ignored, as
//! oslo.config does.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ini::Ini;

/// A configuration file that could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read or is not valid INI.
    #[error("cannot read config file {path}: {source}")]
    Read {
        /// The file's path.
        path: String,
        /// Why.
        source: ini::Error,
    },
    /// A value has the wrong type.
    #[error("[{section}] {key}: invalid value {value:?}: {why}")]
    Invalid {
        /// INI section.
        section: &'static str,
        /// Option name.
        key: &'static str,
        /// The raw value.
        value: String,
        /// What was expected.
        why: &'static str,
    },
}

/// `[api_settings]`.
#[derive(Debug, Clone)]
pub struct ApiSettings {
    /// Address to bind (default `127.0.0.1`).
    pub bind_host: String,
    /// Port to bind (default 9876).
    pub bind_port: u16,
    /// `keystone` (default) or `noauth`.
    pub auth_strategy: String,
    /// Provider name → description (`enabled_provider_drivers`, `name:desc,name:desc`).
    pub enabled_provider_drivers: BTreeMap<String, String>,
    /// Provider used when a request names none.
    pub default_provider_driver: String,
    /// Largest `limit` a list accepts (default 1000).
    pub pagination_max_limit: u32,
    /// Base URI for links in responses (default: from the request's Host).
    pub api_base_uri: Option<String>,
}

/// `[database]`.
#[derive(Debug, Clone)]
pub struct DatabaseSettings {
    /// SQLAlchemy-style URL: `mysql+pymysql://…`, `mysql://…`, `sqlite:///path` or
    /// `sqlite://path`. Default: `sqlite://keel.sqlite?mode=rwc` (the embedded default).
    pub connection: String,
    /// MariaDB pool (oslo.db option names): `max_pool_size` (default 16), `pool_timeout`
    /// (seconds, default 5: how long a request waits for a connection, reconnecting
    /// included, before it answers 503), `connection_recycle_time` (seconds, default 3600).
    pub pool: octavia_db::PoolSettings,
}

/// A Keystone password credential: `[keystone_authtoken]` and `[service_auth]`.
#[derive(Debug, Clone, Default)]
pub struct KeystoneAuth {
    /// e.g. `http://127.0.0.1:5000/v3`.
    pub auth_url: String,
    /// Service user name.
    pub username: String,
    /// Service user password.
    pub password: String,
    /// Project of the service user.
    pub project_name: String,
    /// Domain of the user (default `Default`).
    pub user_domain_name: String,
    /// Domain of the project (default `Default`).
    pub project_domain_name: String,
    /// Region for catalog lookups.
    pub region_name: Option<String>,
    /// Bound of each request to Keystone: `[keystone_authtoken] http_connect_timeout`,
    /// `[service_auth] timeout` (seconds; default 5 s, so a frozen Keystone answers 503 in
    /// that time instead of holding the request).
    pub timeout: Option<std::time::Duration>,
}

/// `[neutron]`: where and how to reach Neutron.
#[derive(Debug, Clone, Default)]
pub struct NeutronSettings {
    /// Explicit endpoint; default: the catalog's `network` endpoint.
    pub endpoint: Option<String>,
    /// Catalog interface (`public`, `internal`, `admin`; default `public`).
    pub valid_interfaces: String,
    /// Catalog region.
    pub region_name: Option<String>,
    /// `timeout` (seconds; absent = the HTTP client's 30 s): bound of each Neutron request.
    /// Kept long by default: a VIP port create cut short may still be made by Neutron.
    pub timeout: Option<std::time::Duration>,
}

/// `[ovn]`, as ovn-octavia-provider's options.
#[derive(Debug, Clone)]
pub struct OvnSettings {
    /// NB remote(s), e.g. `tcp:127.0.0.1:6641` (comma-separated list accepted).
    pub ovn_nb_connection: String,
    /// SB remote(s), e.g. `tcp:127.0.0.1:6642` (read by the agent, not yet started by `serve`).
    #[allow(dead_code)]
    pub ovn_sb_connection: String,
    /// Seconds to wait for the first connection (default 180).
    pub ovsdb_connection_timeout: u64,
    /// Milliseconds between inactivity probes (default 60000).
    pub ovsdb_probe_interval: u64,
    /// Max seconds between reconnect attempts (default 180).
    pub ovsdb_retry_max_interval: u64,
}

/// `[quotas]`: project defaults, -1 = unlimited.
#[derive(Debug, Clone)]
#[allow(missing_docs)]
pub struct QuotaSettings {
    pub default_load_balancer_quota: i64,
    pub default_listener_quota: i64,
    pub default_member_quota: i64,
    pub default_pool_quota: i64,
    pub default_health_monitor_quota: i64,
    pub default_l7policy_quota: i64,
    pub default_l7rule_quota: i64,
}

/// `[oslo_policy]`, as oslo.policy 6.0.0 (the release `ci/stack/upper-constraints.txt` pins).
#[derive(Debug, Clone)]
pub struct OsloPolicySettings {
    /// `policy_file` (default `policy.yaml`): absolute, or found relative to the config
    /// file's directory then oslo.config's default dirs; absent → the built-in defaults.
    pub policy_file: String,
    /// `enforce_new_defaults` (default True): False ORs each deprecated rule (the legacy
    /// `load-balancer_*` roles) with its new default.
    pub enforce_new_defaults: bool,
    /// `enforce_scope`: accepted for old files but ignored — oslo.policy 6.0.0 removed the
    /// option and always enforces `scope_types` (all of Octavia's rules are project-scoped).
    pub enforce_scope: Option<bool>,
    /// The directory of the config file the options came from (for `policy_file`).
    pub config_dir: Option<PathBuf>,
}

impl OsloPolicySettings {
    /// The effective policy: the file found for `policy_file` (if any) over Octavia's
    /// registered defaults. Errors: an unreadable or invalid file (startup fails).
    /// The file is watched: edits are picked up on the next request, as oslo.policy does.
    pub fn load_policy(&self) -> Result<api::policy::PolicySource, api::policy::PolicyError> {
        if self.enforce_scope == Some(false) {
            tracing::warn!(
                "[oslo_policy] enforce_scope is ignored: oslo.policy 6.0.0 always enforces scope"
            );
        }
        let file = api::policy::find_policy_file(&self.policy_file, self.config_dir.as_deref());
        match &file {
            Some(f) => tracing::info!(file = %f.display(), "policy file loaded"),
            None => tracing::debug!(file = %self.policy_file, "no policy file; defaults only"),
        }
        api::policy::PolicySource::load(file, self.enforce_new_defaults)
    }
}

/// `[certificates]`: where Octavia's `barbican_cert_manager` finds Barbican (TLS references
/// of listeners and pools, seed 003 §5). Keel reads with the caller's token (no ACL grant
/// to the service user: no Keel component reads certificates later).
#[derive(Debug, Clone)]
pub struct CertificatesSettings {
    /// `endpoint`: Barbican's base URL; absent → the catalog's `key-manager`.
    pub endpoint: Option<String>,
    /// `region_name` for the catalog lookup (absent → `[service_auth] region_name`).
    pub region_name: Option<String>,
    /// `endpoint_type` (`publicURL`, `internalURL`, `adminURL` or the bare names).
    pub endpoint_type: String,
}

/// The whole file.
#[derive(Debug, Clone)]
#[allow(missing_docs)]
pub struct Config {
    pub api_settings: ApiSettings,
    pub database: DatabaseSettings,
    pub keystone_authtoken: KeystoneAuth,
    pub service_auth: KeystoneAuth,
    pub neutron: NeutronSettings,
    pub ovn: OvnSettings,
    pub quotas: QuotaSettings,
    pub certificates: CertificatesSettings,
    pub keel: KeelSettings,
    pub oslo_policy: OsloPolicySettings,
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
}

struct Section<'a> {
    name: &'static str,
    props: Option<&'a ini::Properties>,
}

impl Section<'_> {
    fn get(&self, key: &str) -> Option<String> {
        self.props
            .and_then(|p| p.get(key))
            .map(|v| v.trim().to_string())
    }
    fn string(&self, key: &str, default: &str) -> String {
        self.get(key).unwrap_or_else(|| default.to_string())
    }
    fn parse<T: std::str::FromStr>(&self, key: &'static str, default: T) -> Result<T, ConfigError> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| ConfigError::Invalid {
                section: self.name,
                key,
                value: v,
                why: "expected a number",
            }),
        }
    }
    /// oslo.config `BoolOpt`: true/false, yes/no, on/off, 1/0 (case-insensitive).
    fn boolean(&self, key: &'static str) -> Result<Option<bool>, ConfigError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => match v.to_ascii_lowercase().as_str() {
                "true" | "yes" | "on" | "1" => Ok(Some(true)),
                "false" | "no" | "off" | "0" => Ok(Some(false)),
                _ => Err(ConfigError::Invalid {
                    section: self.name,
                    key,
                    value: v,
                    why: "expected a boolean",
                }),
            },
        }
    }
    /// A duration in seconds (oslo `IntOpt`/`FloatOpt`); must be positive.
    fn seconds(&self, key: &'static str) -> Result<Option<std::time::Duration>, ConfigError> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        match v.parse::<f64>() {
            Ok(x) if x > 0.0 && x.is_finite() => Ok(Some(std::time::Duration::from_secs_f64(x))),
            _ => Err(ConfigError::Invalid {
                section: self.name,
                key,
                value: v,
                why: "expected a positive number of seconds",
            }),
        }
    }
    fn keystone(&self, timeout_key: &'static str) -> Result<KeystoneAuth, ConfigError> {
        Ok(KeystoneAuth {
            timeout: Some(
                self.seconds(timeout_key)?
                    .unwrap_or(std::time::Duration::from_secs(5)),
            ),
            auth_url: self.string("auth_url", ""),
            username: self.string("username", ""),
            password: self.string("password", ""),
            project_name: self.string("project_name", ""),
            user_domain_name: self.string("user_domain_name", "Default"),
            project_domain_name: self.string("project_domain_name", "Default"),
            region_name: self.get("region_name"),
        })
    }
}

/// Parses `name:description,name:description` (oslo `DictOpt`).
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
    /// Reads an INI file. A missing file is an error; missing options take their defaults.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let ini = Ini::load_from_file(path).map_err(|source| ConfigError::Read {
            path: path.display().to_string(),
            source,
        })?;
        let mut c = Self::from_ini(&ini)?;
        c.oslo_policy.config_dir = path
            .parent()
            .map(|d| {
                if d.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    d
                }
            })
            .map(Path::to_path_buf);
        Ok(c)
    }

    /// The configuration with every option at its default (embedded SQLite, noauth-less keystone).
    pub fn defaults() -> Result<Self, ConfigError> {
        Self::from_ini(&Ini::new())
    }

    fn from_ini(ini: &Ini) -> Result<Self, ConfigError> {
        let s = |name: &'static str| Section {
            name,
            props: ini.section(Some(name)),
        };
        let api = s("api_settings");
        let db = s("database");
        let neutron = s("neutron");
        let ovn = s("ovn");
        let q = s("quotas");
        let pol = s("oslo_policy");
        let keel = s("keel");
        let enabled =
            parse_dict(&api.string("enabled_provider_drivers", "ovn:OVN provider driver"));
        Ok(Self {
            api_settings: ApiSettings {
                bind_host: api.string("bind_host", "127.0.0.1"),
                bind_port: api.parse("bind_port", 9876)?,
                auth_strategy: api.string("auth_strategy", "keystone"),
                enabled_provider_drivers: enabled,
                default_provider_driver: api.string("default_provider_driver", "ovn"),
                pagination_max_limit: api.parse("pagination_max_limit", 1000)?,
                api_base_uri: api.get("api_base_uri"),
            },
            database: DatabaseSettings {
                connection: db.string("connection", "sqlite://keel.sqlite?mode=rwc"),
                pool: {
                    let d = octavia_db::PoolSettings::default();
                    octavia_db::PoolSettings {
                        max_connections: db.parse("max_pool_size", d.max_connections)?,
                        acquire_timeout: db.seconds("pool_timeout")?.unwrap_or(d.acquire_timeout),
                        max_lifetime: db.seconds("connection_recycle_time")?.or(d.max_lifetime),
                        ..d
                    }
                },
            },
            keystone_authtoken: s("keystone_authtoken").keystone("http_connect_timeout")?,
            service_auth: s("service_auth").keystone("timeout")?,
            neutron: NeutronSettings {
                endpoint: neutron
                    .get("endpoint")
                    .or_else(|| neutron.get("endpoint_override")),
                valid_interfaces: neutron.string("valid_interfaces", "public"),
                region_name: neutron.get("region_name"),
                timeout: neutron.seconds("timeout")?,
            },
            ovn: OvnSettings {
                ovn_nb_connection: ovn.string("ovn_nb_connection", "tcp:127.0.0.1:6641"),
                ovn_sb_connection: ovn.string("ovn_sb_connection", "tcp:127.0.0.1:6642"),
                ovsdb_connection_timeout: ovn.parse("ovsdb_connection_timeout", 180)?,
                ovsdb_probe_interval: ovn.parse("ovsdb_probe_interval", 60000)?,
                ovsdb_retry_max_interval: ovn.parse("ovsdb_retry_max_interval", 180)?,
            },
            quotas: QuotaSettings {
                default_load_balancer_quota: q.parse("default_load_balancer_quota", -1)?,
                default_listener_quota: q.parse("default_listener_quota", -1)?,
                default_member_quota: q.parse("default_member_quota", -1)?,
                default_pool_quota: q.parse("default_pool_quota", -1)?,
                default_health_monitor_quota: q.parse("default_health_monitor_quota", -1)?,
                default_l7policy_quota: q.parse("default_l7policy_quota", -1)?,
                default_l7rule_quota: q.parse("default_l7rule_quota", -1)?,
            },
            oslo_policy: OsloPolicySettings {
                policy_file: pol.string("policy_file", "policy.yaml"),
                enforce_new_defaults: pol.boolean("enforce_new_defaults")?.unwrap_or(true),
                enforce_scope: pol.boolean("enforce_scope")?,
                config_dir: None,
            },
            certificates: {
                let c = s("certificates");
                CertificatesSettings {
                    endpoint: c.get("endpoint").filter(|e| !e.is_empty()),
                    region_name: c.get("region_name").filter(|r| !r.is_empty()),
                    endpoint_type: c.string("endpoint_type", "publicURL"),
                }
            },
            keel: KeelSettings {
                settle_wait_ms: keel.parse("settle_wait_ms", 1000)?,
                run_agent: keel.boolean("run_agent")?.unwrap_or(true),
                nb_unavailable_after: keel
                    .seconds("nb_unavailable_after")?
                    .unwrap_or(std::time::Duration::from_secs(5)),
            },
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_octavias_with_ovn_provider() {
        let c = Config::defaults().unwrap();
        assert_eq!(c.api_settings.bind_port, 9876);
        assert_eq!(c.api_settings.pagination_max_limit, 1000);
        assert_eq!(c.api_settings.default_provider_driver, "ovn");
        assert_eq!(c.quotas.default_member_quota, -1);
        assert_eq!(c.ovn.ovn_nb_connection, "tcp:127.0.0.1:6641");
    }

    #[test]
    fn reads_an_octavia_conf() {
        let ini = Ini::load_from_str(
            "[api_settings]\nbind_port = 9877\nenabled_provider_drivers = ovn: OVN driver, amphora:Amp\n\
             [database]\nconnection = mysql+pymysql://u:p@127.0.0.1/octavia\n\
             [service_auth]\nauth_url = http://k/v3\nusername = octavia\n",
        )
        .unwrap();
        let c = Config::from_ini(&ini).unwrap();
        assert_eq!(c.api_settings.bind_port, 9877);
        assert_eq!(
            c.api_settings
                .enabled_provider_drivers
                .get("ovn")
                .map(String::as_str),
            Some("OVN driver")
        );
        assert_eq!(c.api_settings.enabled_provider_drivers.len(), 2);
        assert_eq!(
            c.database.connection,
            "mysql+pymysql://u:p@127.0.0.1/octavia"
        );
        assert_eq!(c.service_auth.username, "octavia");
        assert_eq!(c.service_auth.user_domain_name, "Default");
    }

    #[test]
    fn oslo_policy_options() {
        let c = Config::defaults().unwrap();
        assert_eq!(c.oslo_policy.policy_file, "policy.yaml");
        assert!(c.oslo_policy.enforce_new_defaults);
        let dir = tempfile::tempdir().unwrap();
        let conf = dir.path().join("octavia.conf");
        std::fs::write(
            &conf,
            "[oslo_policy]\nenforce_new_defaults = False\nenforce_scope = false\n\
             policy_file = keel-policy.yaml\n",
        )
        .unwrap();
        let c = Config::load(&conf).unwrap();
        assert!(!c.oslo_policy.enforce_new_defaults);
        assert_eq!(c.oslo_policy.enforce_scope, Some(false));
        // Absent file: defaults only.
        let p = c.oslo_policy.load_policy().unwrap().current();
        assert!(p
            .rule("os_load-balancer_api:loadbalancer:get_one")
            .is_some());
        // Present, relative to the config file's directory.
        std::fs::write(
            dir.path().join("keel-policy.yaml"),
            "\"os_load-balancer_api:loadbalancer:get_one\": \"!\"\n",
        )
        .unwrap();
        let p = c.oslo_policy.load_policy().unwrap().current();
        assert_eq!(
            p.rule("os_load-balancer_api:loadbalancer:get_one"),
            Some(&api::policy::Check::False)
        );
        std::fs::write(dir.path().join("keel-policy.yaml"), "x: \"role:a and\"\n").unwrap();
        assert!(c.oslo_policy.load_policy().is_err());
        let bad = Ini::load_from_str("[oslo_policy]\nenforce_new_defaults = maybe\n").unwrap();
        assert!(Config::from_ini(&bad).is_err());
    }

    #[test]
    fn peer_timeouts() {
        let c = Config::defaults().unwrap();
        assert_eq!(c.database.pool, octavia_db::PoolSettings::default());
        assert_eq!(
            c.keystone_authtoken.timeout,
            Some(std::time::Duration::from_secs(5))
        );
        assert_eq!(c.neutron.timeout, None);
        let ini = Ini::load_from_str(
            "[database]\npool_timeout = 2\nmax_pool_size = 4\n\
             [keystone_authtoken]\nhttp_connect_timeout = 3\n\
             [service_auth]\ntimeout = 1.5\n[neutron]\ntimeout = 7\n",
        )
        .unwrap();
        let c = Config::from_ini(&ini).unwrap();
        assert_eq!(
            c.database.pool.acquire_timeout,
            std::time::Duration::from_secs(2)
        );
        assert_eq!(c.database.pool.max_connections, 4);
        assert_eq!(
            c.keystone_authtoken.timeout,
            Some(std::time::Duration::from_secs(3))
        );
        assert_eq!(
            c.service_auth.timeout,
            Some(std::time::Duration::from_millis(1500))
        );
        assert_eq!(c.neutron.timeout, Some(std::time::Duration::from_secs(7)));
        let bad = Ini::load_from_str("[database]\npool_timeout = 0\n").unwrap();
        assert!(Config::from_ini(&bad).is_err());
    }

    #[test]
    fn a_bad_number_is_a_typed_error() {
        let ini = Ini::load_from_str("[api_settings]\nbind_port = lots\n").unwrap();
        let err = Config::from_ini(&ini).unwrap_err();
        assert!(
            matches!(
                err,
                ConfigError::Invalid {
                    key: "bind_port",
                    ..
                }
            ),
            "{err}"
        );
    }
}
