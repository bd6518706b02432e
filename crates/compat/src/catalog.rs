//! Every option Octavia (19.0.0) and ovn-octavia-provider (11.0.0) register, with oslo.log,
//! oslo.middleware, oslo.policy, oslo.db, oslo.messaging, oslo.concurrency and
//! keystonemiddleware's `auth_token` (plus the password plugin's options keystoneauth adds to
//! `[keystone_authtoken]`), and what Keel does with each. The `v3applicationcredential`
//! plugin's three `application_credential_*` options (keystoneauth registers them when
//! `auth_type` names that plugin) are listed after `password` in each auth section.
//!
//! Names, types and defaults are those `oslo-config-generator` reports for the namespaces
//! `octavia`, `octavia.api.drivers.ovn` and the libraries above; option names are given with
//! `_` (oslo's `dest`), deprecated names as `aliases`.
//!
//! ```
//! use compat::catalog::{Use, find};
//!
//! let port = find("api_settings", "bind_port").ok_or("bind_port")?;
//! assert_eq!((port.kind, port.default, port.use_), ("port", "9876", Use::Honoured));
//! // no such option: the review reports it as unknown
//! assert!(find("api_settings", "no_such_option").is_none());
//! # Ok::<(), &str>(())
//! ```

/// What Keel does with an option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    /// Read and acted upon (see the README's configuration table).
    Honoured,
    /// Applies to the API or the OVN provider but Keel does not implement it: a value set in
    /// a file is logged once at start-up.
    Unimplemented,
    /// Known not to apply to an OVN-only deployment (amphora, controller worker, RPC): never
    /// logged, listed by `keel config check`.
    NotApplicable(&'static str),
}

/// One registered option.
#[derive(Debug, Clone, Copy)]
pub struct Opt {
    /// Section (`DEFAULT` or lower case).
    pub section: &'static str,
    /// Name with `_`.
    pub name: &'static str,
    /// oslo type: `str`, `int`, `bool`, `float`, `list`, `dict`, `multi`, `port`, `ip`, `host`, `uri`.
    pub kind: &'static str,
    /// The registered default as text (empty: none).
    pub default: &'static str,
    /// Registered `secret=True` (masked by `keel config check`).
    pub secret: bool,
    /// Deprecated names of the same option in the same section.
    pub aliases: &'static [&'static str],
    /// What Keel does with it.
    pub use_: Use,
}

/// Looks up `[section] name` by its name or a deprecated alias.
pub fn find(section: &str, name: &str) -> Option<&'static Opt> {
    OPTS.iter()
        .find(|o| o.section == section && (o.name == name || o.aliases.contains(&name)))
}

/// A catalog option with the type its value is read as: [`Typed::opt`] is the option's one
/// spelling of section, name and default, and [`Typed::value`] converts what a file set (or,
/// unset, that default) with `T`'s [`OptValue::parse`].
///
/// ```
/// use compat::catalog::keel::{RUN_AGENT, SETTLE_WAIT_MS};
///
/// assert_eq!(SETTLE_WAIT_MS.value(None), Ok(1000)); // the catalog's default, "1000"
/// assert_eq!(SETTLE_WAIT_MS.value(Some("0")), Ok(0));
/// let why = "should be greater than or equal to 0".to_string();
/// assert_eq!(SETTLE_WAIT_MS.value(Some("-1")), Err(("-1".to_string(), why)));
/// assert_eq!(RUN_AGENT.value(Some("off")), Ok(false));
/// // the same row the catalog lists
/// assert!(compat::catalog::find("keel", "run_agent").is_some_and(|o| o.default == "True"));
/// ```
#[derive(Debug)]
pub struct Typed<T> {
    /// The option's row of [`OPTS`].
    pub opt: Opt,
    read_as: std::marker::PhantomData<fn() -> T>,
}

impl<T: OptValue> Typed<T> {
    /// The option `opt`, read as `T`.
    pub const fn new(opt: Opt) -> Self {
        Typed {
            opt,
            read_as: std::marker::PhantomData,
        }
    }

    /// `set` (the effective value, trimmed; `None`: not set) as `T`, else the default's.
    /// Errors: `(text, why)` for a text that is no `T`.
    pub fn value(&self, set: Option<&str>) -> Result<T, (String, String)> {
        let text = set.unwrap_or(self.opt.default);
        T::parse(text).map_err(|why| (text.to_string(), why))
    }
}

/// A Rust type an option's text converts to, as oslo.config's types convert it.
pub trait OptValue: Sized {
    /// The text as `Self`. Errors: why it is not one (e.g. `expected an integer`).
    fn parse(text: &str) -> Result<Self, String>;
}

fn int_at_least(text: &str, min: i64) -> Result<i64, String> {
    let n: i64 = text
        .parse()
        .map_err(|_| "expected an integer".to_string())?;
    if n < min {
        return Err(format!("should be greater than or equal to {min}"));
    }
    Ok(n)
}

/// `IntOpt` without bounds.
impl OptValue for i64 {
    fn parse(text: &str) -> Result<Self, String> {
        int_at_least(text, i64::MIN)
    }
}

/// `IntOpt(min=0)`.
impl OptValue for u64 {
    fn parse(text: &str) -> Result<Self, String> {
        int_at_least(text, 0).map(|n| n.unsigned_abs())
    }
}

/// `IntOpt(min=1)`.
impl OptValue for std::num::NonZeroU64 {
    fn parse(text: &str) -> Result<Self, String> {
        let n = int_at_least(text, 1)?;
        std::num::NonZeroU64::new(n.unsigned_abs())
            .ok_or_else(|| "should be greater than or equal to 1".to_string())
    }
}

/// `BoolOpt`: true/false, yes/no, on/off, 1/0 (case-insensitive).
impl OptValue for bool {
    fn parse(text: &str) -> Result<Self, String> {
        match text.to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" | "1" => Ok(true),
            "false" | "no" | "off" | "0" => Ok(false),
            _ => Err("expected a boolean".into()),
        }
    }
}

/// `StrOpt` without a default: `None` when empty.
impl OptValue for Option<String> {
    fn parse(text: &str) -> Result<Self, String> {
        Ok(Some(text.to_string()).filter(|t| !t.is_empty()))
    }
}

/// A positive number of seconds (`IntOpt` or `FloatOpt`).
impl OptValue for std::time::Duration {
    fn parse(text: &str) -> Result<Self, String> {
        match text.parse::<f64>() {
            Ok(x) if x > 0.0 && x.is_finite() => Ok(std::time::Duration::from_secs_f64(x)),
            _ => Err("expected a positive number of seconds".into()),
        }
    }
}

/// `[api_settings]`'s switches of the API's features, typed (rows of [`OPTS`]).
#[rustfmt::skip]
pub mod api_settings {
    use crate::catalog::{Opt, Typed, Use};

    /// Whether list calls take `limit` / `marker` and answer with links.
    pub const ALLOW_PAGINATION: Typed<bool> = Typed::new(Opt { section: "api_settings", name: "allow_pagination", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Honoured });
    /// Whether list calls take `sort` / `sort_key` / `sort_dir`.
    pub const ALLOW_SORTING: Typed<bool> = Typed::new(Opt { section: "api_settings", name: "allow_sorting", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Honoured });
    /// Whether list calls take attribute filters.
    pub const ALLOW_FILTERING: Typed<bool> = Typed::new(Opt { section: "api_settings", name: "allow_filtering", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Honoured });
    /// Whether list and show calls take `fields`.
    pub const ALLOW_FIELD_SELECTION: Typed<bool> = Typed::new(Opt { section: "api_settings", name: "allow_field_selection", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Honoured });
    /// Whether `TERMINATED_HTTPS` listeners may be created.
    pub const ALLOW_TLS_TERMINATED_LISTENERS: Typed<bool> = Typed::new(Opt { section: "api_settings", name: "allow_tls_terminated_listeners", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Honoured });
    /// Whether `PING` health monitors may be created.
    pub const ALLOW_PING_HEALTH_MONITORS: Typed<bool> = Typed::new(Opt { section: "api_settings", name: "allow_ping_health_monitors", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Honoured });
    /// Whether `PROMETHEUS` listeners may be created.
    pub const ALLOW_PROMETHEUS_LISTENERS: Typed<bool> = Typed::new(Opt { section: "api_settings", name: "allow_prometheus_listeners", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Honoured });
    /// Whether `GET /healthcheck` is served.
    pub const HEALTHCHECK_ENABLED: Typed<bool> = Typed::new(Opt { section: "api_settings", name: "healthcheck_enabled", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Honoured });
}

/// `[networking]`'s switches of the VIP arguments, typed (rows of [`OPTS`]).
#[rustfmt::skip]
pub mod networking {
    use crate::catalog::{Opt, Typed, Use};

    /// Whether a load balancer's VIP may be given as a network.
    pub const ALLOW_VIP_NETWORK_ID: Typed<bool> = Typed::new(Opt { section: "networking", name: "allow_vip_network_id", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Honoured });
    /// Whether a load balancer's VIP may be given as a subnet.
    pub const ALLOW_VIP_SUBNET_ID: Typed<bool> = Typed::new(Opt { section: "networking", name: "allow_vip_subnet_id", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Honoured });
    /// Whether a load balancer's VIP may be given as an existing port.
    pub const ALLOW_VIP_PORT_ID: Typed<bool> = Typed::new(Opt { section: "networking", name: "allow_vip_port_id", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Honoured });
}

/// `[haproxy_amphora]`'s listener timeouts (ms), the API's defaults, typed (rows of [`OPTS`]).
#[rustfmt::skip]
pub mod haproxy_amphora {
    use crate::catalog::{Opt, Typed, Use};

    /// A listener's client inactivity timeout when the request sets none.
    pub const TIMEOUT_CLIENT_DATA: Typed<i64> = Typed::new(Opt { section: "haproxy_amphora", name: "timeout_client_data", kind: "int", default: "50000", secret: false, aliases: &[], use_: Use::Honoured });
    /// A listener's member connect timeout when the request sets none.
    pub const TIMEOUT_MEMBER_CONNECT: Typed<i64> = Typed::new(Opt { section: "haproxy_amphora", name: "timeout_member_connect", kind: "int", default: "5000", secret: false, aliases: &[], use_: Use::Honoured });
    /// A listener's member inactivity timeout when the request sets none.
    pub const TIMEOUT_MEMBER_DATA: Typed<i64> = Typed::new(Opt { section: "haproxy_amphora", name: "timeout_member_data", kind: "int", default: "50000", secret: false, aliases: &[], use_: Use::Honoured });
    /// How long a listener waits for content inspection when the request sets none.
    pub const TIMEOUT_TCP_INSPECT: Typed<i64> = Typed::new(Opt { section: "haproxy_amphora", name: "timeout_tcp_inspect", kind: "int", default: "0", secret: false, aliases: &[], use_: Use::Honoured });
}

/// `[quotas]`'s defaults (-1: unlimited), typed (rows of [`OPTS`]).
#[rustfmt::skip]
pub mod quotas {
    use crate::catalog::{Opt, Typed, Use};

    /// Load balancers per project when no quota is set.
    pub const DEFAULT_LOAD_BALANCER_QUOTA: Typed<i64> = Typed::new(Opt { section: "quotas", name: "default_load_balancer_quota", kind: "int", default: "-1", secret: false, aliases: &[], use_: Use::Honoured });
    /// Listeners per project when no quota is set.
    pub const DEFAULT_LISTENER_QUOTA: Typed<i64> = Typed::new(Opt { section: "quotas", name: "default_listener_quota", kind: "int", default: "-1", secret: false, aliases: &[], use_: Use::Honoured });
    /// Members per project when no quota is set.
    pub const DEFAULT_MEMBER_QUOTA: Typed<i64> = Typed::new(Opt { section: "quotas", name: "default_member_quota", kind: "int", default: "-1", secret: false, aliases: &[], use_: Use::Honoured });
    /// Pools per project when no quota is set.
    pub const DEFAULT_POOL_QUOTA: Typed<i64> = Typed::new(Opt { section: "quotas", name: "default_pool_quota", kind: "int", default: "-1", secret: false, aliases: &[], use_: Use::Honoured });
    /// Health monitors per project when no quota is set.
    pub const DEFAULT_HEALTH_MONITOR_QUOTA: Typed<i64> = Typed::new(Opt { section: "quotas", name: "default_health_monitor_quota", kind: "int", default: "-1", secret: false, aliases: &[], use_: Use::Honoured });
    /// L7 policies per project when no quota is set.
    pub const DEFAULT_L7POLICY_QUOTA: Typed<i64> = Typed::new(Opt { section: "quotas", name: "default_l7policy_quota", kind: "int", default: "-1", secret: false, aliases: &[], use_: Use::Honoured });
    /// L7 rules per project when no quota is set.
    pub const DEFAULT_L7RULE_QUOTA: Typed<i64> = Typed::new(Opt { section: "quotas", name: "default_l7rule_quota", kind: "int", default: "-1", secret: false, aliases: &[], use_: Use::Honoured });
}

/// Keel's own options (`[keel]`) and `[DEFAULT] graceful_shutdown_timeout` (oslo.service's),
/// each a [`Typed`] constant: its row of [`OPTS`] and the type it is read as.
pub mod keel {
    use std::num::NonZeroU64;
    use std::time::Duration;

    use crate::catalog::{Opt, Typed, Use};

    /// `[keel] settle_wait_ms`: how long a write waits for the provider's status report (ms).
    pub const SETTLE_WAIT_MS: Typed<u64> = Typed::new(Opt {
        section: "keel",
        name: "settle_wait_ms",
        kind: "int",
        default: "1000",
        secret: false,
        aliases: &[],
        use_: Use::Honoured,
    });

    /// `[keel] nb_unavailable_after`: how long the NB may be down before writes answer 503.
    pub const NB_UNAVAILABLE_AFTER: Typed<Duration> = Typed::new(Opt {
        section: "keel",
        name: "nb_unavailable_after",
        kind: "int",
        default: "5",
        secret: false,
        aliases: &[],
        use_: Use::Honoured,
    });

    /// `[keel] recovery_lease`: the lease of a PENDING_* load balancer (s, at least 1).
    pub const RECOVERY_LEASE: Typed<NonZeroU64> = Typed::new(Opt {
        section: "keel",
        name: "recovery_lease",
        kind: "int",
        default: "30",
        secret: false,
        aliases: &[],
        use_: Use::Honoured,
    });

    /// `[keel] recovery_period`: how often leases are renewed (s, at least 1).
    pub const RECOVERY_PERIOD: Typed<NonZeroU64> = Typed::new(Opt {
        section: "keel",
        name: "recovery_period",
        kind: "int",
        default: "10",
        secret: false,
        aliases: &[],
        use_: Use::Honoured,
    });

    /// `[DEFAULT] graceful_shutdown_timeout` (oslo.service's): the bound of a graceful stop (s).
    pub const GRACEFUL_SHUTDOWN_TIMEOUT: Typed<u64> = Typed::new(Opt {
        section: "DEFAULT",
        name: "graceful_shutdown_timeout",
        kind: "int",
        default: "60",
        secret: false,
        aliases: &[],
        use_: Use::Honoured,
    });

    /// `[keel] rpc_cast_timeout`: the bound of one amphora cast.
    pub const RPC_CAST_TIMEOUT: Typed<Duration> = Typed::new(Opt {
        section: "keel",
        name: "rpc_cast_timeout",
        kind: "int",
        default: "5",
        secret: false,
        aliases: &[],
        use_: Use::Honoured,
    });

    /// `[keel] metrics_listen`: `host:port` of the Prometheus endpoint (none: off).
    pub const METRICS_LISTEN: Typed<Option<String>> = Typed::new(Opt {
        section: "keel",
        name: "metrics_listen",
        kind: "str",
        default: "",
        secret: false,
        aliases: &[],
        use_: Use::Honoured,
    });

    /// `[keel] run_agent`: whether this process competes for the OVN agent's lock.
    pub const RUN_AGENT: Typed<bool> = Typed::new(Opt {
        section: "keel",
        name: "run_agent",
        kind: "bool",
        default: "True",
        secret: false,
        aliases: &[],
        use_: Use::Honoured,
    });
}

/// Keel's own options (`[keel]`) and options oslo.policy 6.0.0 removed but Keel still knows
/// (ignored with a warning, not reported as unknown).
const KEEL: &[Opt] = &[
    keel::SETTLE_WAIT_MS.opt,
    keel::NB_UNAVAILABLE_AFTER.opt,
    keel::RECOVERY_LEASE.opt,
    keel::RECOVERY_PERIOD.opt,
    keel::GRACEFUL_SHUTDOWN_TIMEOUT.opt,
    keel::RPC_CAST_TIMEOUT.opt,
    keel::METRICS_LISTEN.opt,
    keel::RUN_AGENT.opt,
    // kolla-ansible writes keystonemiddleware's memcache options (these three) into
    // [service_auth] too (ansible/roles/octavia/templates/octavia.conf.j2); no library
    // registers them there.
    Opt {
        section: "service_auth",
        name: "memcached_servers",
        kind: "str",
        default: "",
        secret: false,
        aliases: &[],
        use_: Use::Unimplemented,
    },
    Opt {
        section: "service_auth",
        name: "memcache_security_strategy",
        kind: "str",
        default: "",
        secret: false,
        aliases: &[],
        use_: Use::Unimplemented,
    },
    Opt {
        section: "service_auth",
        name: "memcache_secret_key",
        kind: "str",
        default: "",
        secret: true,
        aliases: &[],
        use_: Use::Unimplemented,
    },
    Opt {
        section: "oslo_policy",
        name: "enforce_scope",
        kind: "bool",
        default: "",
        secret: false,
        aliases: &[],
        use_: Use::Unimplemented,
    },
];

/// Every option: the registered ones, then Keel's own (`[keel]`) and the removed ones it knows.
pub static OPTS: std::sync::LazyLock<Vec<Opt>> =
    std::sync::LazyLock::new(|| REGISTERED.iter().chain(KEEL).copied().collect());

/// The options the reference registers.
#[rustfmt::skip]
const REGISTERED: &[Opt] = &[
    Opt { section: "DEFAULT", name: "executor_thread_pool_size", kind: "int", default: "64", secret: false, aliases: &["rpc_thread_pool_size"], use_: Use::NotApplicable("RPC") },
    Opt { section: "DEFAULT", name: "rpc_response_timeout", kind: "int", default: "60", secret: false, aliases: &[], use_: Use::NotApplicable("RPC") },
    Opt { section: "DEFAULT", name: "transport_url", kind: "str", default: "rabbit://", secret: true, aliases: &[], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "control_exchange", kind: "str", default: "octavia", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "rpc_ping_enabled", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::NotApplicable("RPC") },
    Opt { section: "DEFAULT", name: "host", kind: "host", default: "vm", secret: false, aliases: &[], use_: Use::NotApplicable("names the controller host (workers, amphorae)") },
    Opt { section: "DEFAULT", name: "debug", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "log_config_append", kind: "str", default: "", secret: false, aliases: &["log_config"], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "log_date_format", kind: "str", default: "%Y-%m-%d %H:%M:%S", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "log_file", kind: "str", default: "", secret: false, aliases: &["logfile"], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "log_dir", kind: "str", default: "", secret: false, aliases: &["logdir"], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "use_syslog", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "use_journal", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "syslog_log_facility", kind: "str", default: "LOG_USER", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "use_json", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "use_stderr", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "log_color", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "log_rotate_interval", kind: "int", default: "1", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "log_rotate_interval_type", kind: "str", default: "days", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "max_logfile_count", kind: "int", default: "30", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "max_logfile_size_mb", kind: "int", default: "200", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "log_rotation_type", kind: "str", default: "none", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "logging_context_format_string", kind: "str", default: "%(asctime)s.%(msecs)03d %(process)d %(levelname)s %(name)s [%(global_request_id)s %(request_id)s %(user_identity)s] %(instance)s%(message)s", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "logging_default_format_string", kind: "str", default: "%(asctime)s.%(msecs)03d %(process)d %(levelname)s %(name)s [-] %(instance)s%(message)s", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "logging_debug_format_suffix", kind: "str", default: "%(funcName)s %(pathname)s:%(lineno)d", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "logging_exception_prefix", kind: "str", default: "%(asctime)s.%(msecs)03d %(process)d ERROR %(name)s %(instance)s", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "logging_user_identity_format", kind: "str", default: "%(user)s %(project)s %(domain)s %(system_scope)s %(user_domain)s %(project_domain)s", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "default_log_levels", kind: "list", default: "amqp=WARN,boto=WARN,sqlalchemy=WARN,suds=INFO,oslo.messaging=INFO,oslo_messaging=INFO,iso8601=WARN,requests.packages.urllib3.connectionpool=WARN,urllib3.connectionpool=WARN,websocket=WARN,requests.packages.urllib3.util.retry=WARN,urllib3.util.retry=WARN,keystonemiddleware=WARN,routes.middleware=WARN,stevedore=WARN,taskflow=WARN,keystoneauth=WARN,oslo.cache=INFO,oslo_policy=INFO,dogpile.core.dogpile=INFO", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "publish_errors", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "instance_format", kind: "str", default: "[instance: %(uuid)s] ", secret: false, aliases: &[], use_: Use::NotApplicable("Nova instances") },
    Opt { section: "DEFAULT", name: "instance_uuid_format", kind: "str", default: "[instance: %(uuid)s] ", secret: false, aliases: &[], use_: Use::NotApplicable("Nova instances") },
    Opt { section: "DEFAULT", name: "rate_limit_interval", kind: "int", default: "0", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "rate_limit_burst", kind: "int", default: "0", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "rate_limit_except_level", kind: "str", default: "CRITICAL", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "fatal_deprecations", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "amphora_agent", name: "agent_server_ca", kind: "str", default: "/etc/octavia/certs/client_ca.pem", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "agent_server_cert", kind: "str", default: "/etc/octavia/certs/server.pem", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "agent_server_network_dir", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "agent_request_read_timeout", kind: "int", default: "180", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "agent_tls_protocol", kind: "str", default: "TLSv1.2", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "admin_log_targets", kind: "list", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "tenant_log_targets", kind: "list", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "user_log_facility", kind: "int", default: "0", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "administrative_log_facility", kind: "int", default: "1", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "log_protocol", kind: "str", default: "UDP", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "log_retry_count", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "log_retry_interval", kind: "int", default: "2", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "log_queue_size", kind: "int", default: "10000", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "logging_template_override", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "forward_all_logs", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "disable_local_log_storage", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "amphora_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "amphora_udp_driver", kind: "str", default: "keepalived_lvs", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "api_settings", name: "bind_host", kind: "ip", default: "127.0.0.1", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "api_settings", name: "bind_port", kind: "port", default: "9876", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "api_settings", name: "auth_strategy", kind: "str", default: "keystone", secret: false, aliases: &[], use_: Use::Honoured },
    api_settings::ALLOW_PAGINATION.opt,
    api_settings::ALLOW_SORTING.opt,
    api_settings::ALLOW_FILTERING.opt,
    api_settings::ALLOW_FIELD_SELECTION.opt,
    Opt { section: "api_settings", name: "pagination_max_limit", kind: "str", default: "1000", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "api_settings", name: "api_base_uri", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    api_settings::ALLOW_TLS_TERMINATED_LISTENERS.opt,
    api_settings::ALLOW_PING_HEALTH_MONITORS.opt,
    api_settings::ALLOW_PROMETHEUS_LISTENERS.opt,
    Opt { section: "api_settings", name: "enabled_provider_drivers", kind: "dict", default: "amphora:The Octavia Amphora driver.,octavia:Deprecated alias of the Octavia Amphora driver.", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "api_settings", name: "default_provider_driver", kind: "str", default: "amphora", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "api_settings", name: "udp_connect_min_interval_health_monitor", kind: "int", default: "3", secret: false, aliases: &[], use_: Use::Honoured },
    api_settings::HEALTHCHECK_ENABLED.opt,
    Opt { section: "api_settings", name: "healthcheck_refresh_interval", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "api_settings", name: "default_listener_ciphers", kind: "str", default: "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384:DHE-RSA-CHACHA20-POLY1305", secret: false, aliases: &[], use_: Use::NotApplicable("used only by TERMINATED_HTTPS listeners and TLS pools, which the OVN provider refuses (501)") },
    Opt { section: "api_settings", name: "default_pool_ciphers", kind: "str", default: "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384:DHE-RSA-CHACHA20-POLY1305", secret: false, aliases: &[], use_: Use::NotApplicable("used only by TERMINATED_HTTPS listeners and TLS pools, which the OVN provider refuses (501)") },
    Opt { section: "api_settings", name: "tls_cipher_prohibit_list", kind: "str", default: "", secret: false, aliases: &["tls_cipher_blacklist"], use_: Use::NotApplicable("used only by TERMINATED_HTTPS listeners and TLS pools, which the OVN provider refuses (501)") },
    Opt { section: "api_settings", name: "default_listener_tls_versions", kind: "list", default: "TLSv1.2,TLSv1.3", secret: false, aliases: &[], use_: Use::NotApplicable("used only by TERMINATED_HTTPS listeners and TLS pools, which the OVN provider refuses (501)") },
    Opt { section: "api_settings", name: "default_pool_tls_versions", kind: "list", default: "TLSv1.2,TLSv1.3", secret: false, aliases: &[], use_: Use::NotApplicable("used only by TERMINATED_HTTPS listeners and TLS pools, which the OVN provider refuses (501)") },
    Opt { section: "api_settings", name: "minimum_tls_version", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("used only by TERMINATED_HTTPS listeners and TLS pools, which the OVN provider refuses (501)") },
    Opt { section: "api_settings", name: "default_listener_alpn_protocols", kind: "list", default: "h2,http/1.1,http/1.0", secret: false, aliases: &[], use_: Use::NotApplicable("used only by TERMINATED_HTTPS listeners and TLS pools, which the OVN provider refuses (501)") },
    Opt { section: "api_settings", name: "default_pool_alpn_protocols", kind: "list", default: "h2,http/1.1,http/1.0", secret: false, aliases: &[], use_: Use::NotApplicable("used only by TERMINATED_HTTPS listeners and TLS pools, which the OVN provider refuses (501)") },
    Opt { section: "api_settings", name: "tls1_3_supported_ciphers", kind: "str", default: "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_CCM_SHA256:TLS_AES_128_CCM_8_SHA256", secret: false, aliases: &[], use_: Use::NotApplicable("used only by TERMINATED_HTTPS listeners and TLS pools, which the OVN provider refuses (501)") },
    Opt { section: "audit", name: "enabled", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "audit", name: "audit_map_file", kind: "str", default: "/etc/octavia/octavia_api_audit_map.conf", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "audit", name: "ignore_req_list", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "certificates", name: "cert_manager", kind: "str", default: "barbican_cert_manager", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "certificates", name: "cert_generator", kind: "str", default: "local_cert_generator", secret: false, aliases: &[], use_: Use::NotApplicable("amphora certificate generation") },
    Opt { section: "certificates", name: "barbican_auth", kind: "str", default: "barbican_acl_auth", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "certificates", name: "service_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "certificates", name: "endpoint", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "certificates", name: "region_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "certificates", name: "endpoint_type", kind: "str", default: "publicURL", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "certificates", name: "ca_certificates_file", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "certificates", name: "insecure", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "certificates", name: "ca_certificate", kind: "str", default: "/etc/ssl/certs/ssl-cert-snakeoil.pem", secret: false, aliases: &[], use_: Use::NotApplicable("amphora certificate generation") },
    Opt { section: "certificates", name: "ca_private_key", kind: "str", default: "/etc/ssl/private/ssl-cert-snakeoil.key", secret: false, aliases: &[], use_: Use::NotApplicable("amphora certificate generation") },
    Opt { section: "certificates", name: "ca_private_key_passphrase", kind: "str", default: "", secret: true, aliases: &[], use_: Use::NotApplicable("amphora certificate generation") },
    Opt { section: "certificates", name: "server_certs_key_passphrase", kind: "list", default: "insecure-key-do-not-use-this-key", secret: true, aliases: &[], use_: Use::NotApplicable("amphora certificate generation") },
    Opt { section: "certificates", name: "signing_digest", kind: "str", default: "sha256", secret: false, aliases: &[], use_: Use::NotApplicable("amphora certificate generation") },
    Opt { section: "certificates", name: "cert_validity_time", kind: "int", default: "2592000", secret: false, aliases: &[], use_: Use::NotApplicable("amphora certificate generation") },
    Opt { section: "cinder", name: "service_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "cinder", name: "endpoint", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "cinder", name: "region_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "cinder", name: "endpoint_type", kind: "str", default: "publicURL", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "cinder", name: "ca_certificates_file", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "cinder", name: "availability_zone", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("amphora volumes") },
    Opt { section: "cinder", name: "insecure", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "cinder", name: "volume_size", kind: "int", default: "16", secret: false, aliases: &[], use_: Use::NotApplicable("amphora volumes") },
    Opt { section: "cinder", name: "volume_type", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("amphora volumes") },
    Opt { section: "cinder", name: "volume_create_retry_interval", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("amphora volumes") },
    Opt { section: "cinder", name: "volume_create_timeout", kind: "int", default: "300", secret: false, aliases: &[], use_: Use::NotApplicable("amphora volumes") },
    Opt { section: "cinder", name: "volume_create_max_retries", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("amphora volumes") },
    Opt { section: "compute", name: "max_retries", kind: "int", default: "15", secret: false, aliases: &[], use_: Use::NotApplicable("compute driver (amphorae)") },
    Opt { section: "compute", name: "retry_interval", kind: "int", default: "1", secret: false, aliases: &[], use_: Use::NotApplicable("compute driver (amphorae)") },
    Opt { section: "compute", name: "retry_backoff", kind: "int", default: "1", secret: false, aliases: &[], use_: Use::NotApplicable("compute driver (amphorae)") },
    Opt { section: "compute", name: "retry_max", kind: "int", default: "10", secret: false, aliases: &[], use_: Use::NotApplicable("compute driver (amphorae)") },
    Opt { section: "controller_worker", name: "workers", kind: "int", default: "1", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "amp_active_retries", kind: "int", default: "30", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "amp_active_wait_sec", kind: "int", default: "10", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "amp_flavor_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "amp_image_tag", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "amp_image_owner_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "controller_worker", name: "amp_ssh_key_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "amp_timezone", kind: "str", default: "UTC", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "amp_boot_network_list", kind: "list", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "amp_secgroup_list", kind: "list", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "client_ca", kind: "str", default: "/etc/octavia/certs/ca_01.pem", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "amphora_driver", kind: "str", default: "amphora_haproxy_rest_driver", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "compute_driver", kind: "str", default: "compute_nova_driver", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "controller_worker", name: "network_driver", kind: "str", default: "allowed_address_pairs_driver", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "controller_worker", name: "volume_driver", kind: "str", default: "volume_noop_driver", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "controller_worker", name: "image_driver", kind: "str", default: "image_glance_driver", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "controller_worker", name: "distributor_driver", kind: "str", default: "distributor_noop_driver", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "statistics_drivers", kind: "list", default: "stats_db", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "loadbalancer_topology", kind: "str", default: "SINGLE", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "controller_worker", name: "user_data_config_drive", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "amphora_delete_retries", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "amphora_delete_retry_interval", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "event_notifications", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "db_commit_retry_attempts", kind: "int", default: "2000", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "db_commit_retry_initial_delay", kind: "int", default: "1", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "db_commit_retry_backoff", kind: "int", default: "1", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "db_commit_retry_max", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "cors", name: "allowed_origin", kind: "list", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "cors", name: "allow_credentials", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "cors", name: "expose_headers", kind: "list", default: "X-Auth-Token,X-Openstack-Request-Id", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "cors", name: "max_age", kind: "int", default: "3600", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "cors", name: "allow_methods", kind: "list", default: "GET,PUT,POST,DELETE", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "cors", name: "allow_headers", kind: "list", default: "X-Auth-Token,X-Openstack-Request-Id", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "database", name: "sqlite_synchronous", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "database", name: "backend", kind: "str", default: "sqlalchemy", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "database", name: "connection", kind: "str", default: "", secret: true, aliases: &[], use_: Use::Honoured },
    Opt { section: "database", name: "slave_connection", kind: "str", default: "", secret: true, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "database", name: "asyncio_connection", kind: "str", default: "", secret: true, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "database", name: "asyncio_slave_connection", kind: "str", default: "", secret: true, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "database", name: "synchronous_reader", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "database", name: "mysql_sql_mode", kind: "str", default: "TRADITIONAL", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "database", name: "mysql_wsrep_sync_wait", kind: "int", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "database", name: "connection_recycle_time", kind: "int", default: "3600", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "database", name: "max_pool_size", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "database", name: "max_retries", kind: "int", default: "10", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "database", name: "retry_interval", kind: "int", default: "10", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "database", name: "max_overflow", kind: "int", default: "50", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "database", name: "connection_debug", kind: "int", default: "0", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "database", name: "connection_trace", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "database", name: "pool_timeout", kind: "int", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "database", name: "use_db_reconnect", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "database", name: "db_retry_interval", kind: "int", default: "1", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "database", name: "db_inc_retry_interval", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "database", name: "db_max_retry_interval", kind: "int", default: "10", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "database", name: "db_max_retries", kind: "int", default: "20", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "database", name: "connection_parameters", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "driver_agent", name: "status_socket_path", kind: "str", default: "/var/run/octavia/status.sock", secret: false, aliases: &[], use_: Use::NotApplicable("provider agent sockets (the OVN provider runs in-process)") },
    Opt { section: "driver_agent", name: "stats_socket_path", kind: "str", default: "/var/run/octavia/stats.sock", secret: false, aliases: &[], use_: Use::NotApplicable("provider agent sockets (the OVN provider runs in-process)") },
    Opt { section: "driver_agent", name: "get_socket_path", kind: "str", default: "/var/run/octavia/get.sock", secret: false, aliases: &[], use_: Use::NotApplicable("provider agent sockets (the OVN provider runs in-process)") },
    Opt { section: "driver_agent", name: "status_request_timeout", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("provider agent sockets (the OVN provider runs in-process)") },
    Opt { section: "driver_agent", name: "status_max_processes", kind: "int", default: "50", secret: false, aliases: &[], use_: Use::NotApplicable("provider agent sockets (the OVN provider runs in-process)") },
    Opt { section: "driver_agent", name: "stats_request_timeout", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("provider agent sockets (the OVN provider runs in-process)") },
    Opt { section: "driver_agent", name: "stats_max_processes", kind: "int", default: "50", secret: false, aliases: &[], use_: Use::NotApplicable("provider agent sockets (the OVN provider runs in-process)") },
    Opt { section: "driver_agent", name: "get_request_timeout", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("provider agent sockets (the OVN provider runs in-process)") },
    Opt { section: "driver_agent", name: "get_max_processes", kind: "int", default: "50", secret: false, aliases: &[], use_: Use::NotApplicable("provider agent sockets (the OVN provider runs in-process)") },
    Opt { section: "driver_agent", name: "max_process_warning_percent", kind: "float", default: "0.75", secret: false, aliases: &[], use_: Use::NotApplicable("provider agent sockets (the OVN provider runs in-process)") },
    Opt { section: "driver_agent", name: "provider_agent_shutdown_timeout", kind: "int", default: "60", secret: false, aliases: &[], use_: Use::NotApplicable("provider agent sockets (the OVN provider runs in-process)") },
    Opt { section: "driver_agent", name: "enabled_provider_agents", kind: "list", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("provider agent sockets (the OVN provider runs in-process)") },
    Opt { section: "glance", name: "service_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "glance", name: "endpoint", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "glance", name: "region_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "glance", name: "endpoint_type", kind: "str", default: "publicURL", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "glance", name: "ca_certificates_file", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "glance", name: "insecure", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "haproxy_amphora", name: "base_path", kind: "str", default: "/var/lib/octavia", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "base_cert_dir", kind: "str", default: "/var/lib/octavia/certs", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "haproxy_template", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "connection_logging", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "connection_max_retries", kind: "int", default: "120", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "connection_retry_interval", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "active_connection_max_retries", kind: "int", default: "15", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "active_connection_retry_interval", kind: "int", default: "2", secret: false, aliases: &["active_connection_rety_interval"], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "failover_connection_max_retries", kind: "int", default: "2", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "failover_connection_retry_interval", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "build_rate_limit", kind: "int", default: "-1", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "build_active_retries", kind: "int", default: "120", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "build_retry_interval", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "haproxy_stick_size", kind: "str", default: "10k", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "user_log_format", kind: "str", default: "{{ project_id }} {{ lb_id }} %f %ci %cp %t %{+Q}r %ST %B %U %[ssl_c_verify] %{+Q}[ssl_c_s_dn] %b %s %Tt %tsc", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "bind_host", kind: "ip", default: "::", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "bind_port", kind: "port", default: "9443", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "lb_network_interface", kind: "str", default: "o-hm0", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "haproxy_cmd", kind: "str", default: "/usr/sbin/haproxy", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "respawn_count", kind: "int", default: "2", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "respawn_interval", kind: "int", default: "2", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "rest_request_conn_timeout", kind: "float", default: "10", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "rest_request_read_timeout", kind: "float", default: "60", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    haproxy_amphora::TIMEOUT_CLIENT_DATA.opt,
    haproxy_amphora::TIMEOUT_MEMBER_CONNECT.opt,
    haproxy_amphora::TIMEOUT_MEMBER_DATA.opt,
    haproxy_amphora::TIMEOUT_TCP_INSPECT.opt,
    Opt { section: "haproxy_amphora", name: "client_cert", kind: "str", default: "/etc/octavia/certs/client.pem", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "server_ca", kind: "str", default: "/etc/octavia/certs/server_ca.pem", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "api_db_commit_retry_attempts", kind: "int", default: "15", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "api_db_commit_retry_initial_delay", kind: "int", default: "1", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "api_db_commit_retry_backoff", kind: "int", default: "1", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "api_db_commit_retry_max", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "default_connection_limit", kind: "int", default: "50000", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "health_manager", name: "bind_ip", kind: "ip", default: "127.0.0.1", secret: false, aliases: &[], use_: Use::NotApplicable("health manager (amphorae)") },
    Opt { section: "health_manager", name: "bind_port", kind: "port", default: "5555", secret: false, aliases: &[], use_: Use::NotApplicable("health manager (amphorae)") },
    Opt { section: "health_manager", name: "failover_threads", kind: "int", default: "10", secret: false, aliases: &[], use_: Use::NotApplicable("health manager (amphorae)") },
    Opt { section: "health_manager", name: "health_update_threads", kind: "int", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("health manager (amphorae)") },
    Opt { section: "health_manager", name: "stats_update_threads", kind: "int", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("health manager (amphorae)") },
    Opt { section: "health_manager", name: "heartbeat_key", kind: "str", default: "", secret: true, aliases: &[], use_: Use::NotApplicable("health manager (amphorae)") },
    Opt { section: "health_manager", name: "heartbeat_timeout", kind: "int", default: "60", secret: false, aliases: &[], use_: Use::NotApplicable("health manager (amphorae)") },
    Opt { section: "health_manager", name: "health_check_interval", kind: "int", default: "3", secret: false, aliases: &[], use_: Use::NotApplicable("health manager (amphorae)") },
    Opt { section: "health_manager", name: "sock_rlimit", kind: "int", default: "0", secret: false, aliases: &[], use_: Use::NotApplicable("health manager (amphorae)") },
    Opt { section: "health_manager", name: "failover_threshold", kind: "int", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("health manager (amphorae)") },
    Opt { section: "health_manager", name: "controller_ip_port_list", kind: "list", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("health manager (amphorae)") },
    Opt { section: "health_manager", name: "heartbeat_interval", kind: "int", default: "10", secret: false, aliases: &[], use_: Use::NotApplicable("health manager (amphorae)") },
    Opt { section: "healthcheck", name: "detailed", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "healthcheck", name: "backends", kind: "list", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "healthcheck", name: "allowed_source_ranges", kind: "list", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "healthcheck", name: "ignore_proxied_requests", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "healthcheck", name: "disable_by_file_path", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "healthcheck", name: "disable_by_file_paths", kind: "list", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "healthcheck", name: "enable_by_file_paths", kind: "list", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "house_keeping", name: "cleanup_interval", kind: "int", default: "30", secret: false, aliases: &[], use_: Use::NotApplicable("housekeeping (amphorae)") },
    Opt { section: "house_keeping", name: "amphora_expiry_age", kind: "int", default: "604800", secret: false, aliases: &[], use_: Use::NotApplicable("housekeeping (amphorae)") },
    Opt { section: "house_keeping", name: "load_balancer_expiry_age", kind: "int", default: "604800", secret: false, aliases: &[], use_: Use::NotApplicable("housekeeping (amphorae)") },
    Opt { section: "house_keeping", name: "cert_interval", kind: "int", default: "3600", secret: false, aliases: &[], use_: Use::NotApplicable("housekeeping (amphorae)") },
    Opt { section: "house_keeping", name: "cert_expiry_buffer", kind: "int", default: "1209600", secret: false, aliases: &[], use_: Use::NotApplicable("housekeeping (amphorae)") },
    Opt { section: "house_keeping", name: "cert_rotate_threads", kind: "int", default: "10", secret: false, aliases: &[], use_: Use::NotApplicable("housekeeping (amphorae)") },
    Opt { section: "keepalived_vrrp", name: "vrrp_advert_int", kind: "int", default: "1", secret: false, aliases: &[], use_: Use::NotApplicable("amphora VRRP") },
    Opt { section: "keepalived_vrrp", name: "vrrp_check_interval", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("amphora VRRP") },
    Opt { section: "keepalived_vrrp", name: "vrrp_fail_count", kind: "int", default: "2", secret: false, aliases: &[], use_: Use::NotApplicable("amphora VRRP") },
    Opt { section: "keepalived_vrrp", name: "vrrp_success_count", kind: "int", default: "2", secret: false, aliases: &[], use_: Use::NotApplicable("amphora VRRP") },
    Opt { section: "keepalived_vrrp", name: "vrrp_garp_refresh_interval", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("amphora VRRP") },
    Opt { section: "keepalived_vrrp", name: "vrrp_garp_refresh_count", kind: "int", default: "2", secret: false, aliases: &[], use_: Use::NotApplicable("amphora VRRP") },
    Opt { section: "keystone_authtoken", name: "www_authenticate_uri", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "keystone_authtoken", name: "auth_version", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "keystone_authtoken", name: "interface", kind: "str", default: "internal", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "keystone_authtoken", name: "delay_auth_decision", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "keystone_authtoken", name: "http_connect_timeout", kind: "int", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "keystone_authtoken", name: "http_request_max_retries", kind: "int", default: "3", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "keystone_authtoken", name: "cache", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "keystone_authtoken", name: "certfile", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "keystone_authtoken", name: "keyfile", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "keystone_authtoken", name: "cafile", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "keystone_authtoken", name: "insecure", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "keystone_authtoken", name: "region_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "keystone_authtoken", name: "memcached_servers", kind: "list", default: "", secret: false, aliases: &["memcache_servers"], use_: Use::Unimplemented },
    Opt { section: "keystone_authtoken", name: "token_cache_time", kind: "int", default: "300", secret: false, aliases: &[], use_: Use::Honoured },
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
    Opt { section: "keystone_authtoken", name: "service_token_roles", kind: "list", default: "service", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "keystone_authtoken", name: "service_token_roles_required", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "keystone_authtoken", name: "service_type", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "keystone_authtoken", name: "memcache_sasl_enabled", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "keystone_authtoken", name: "memcache_username", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "keystone_authtoken", name: "memcache_password", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "keystone_authtoken", name: "auth_type", kind: "str", default: "", secret: false, aliases: &["auth_plugin"], use_: Use::Honoured },
    Opt { section: "keystone_authtoken", name: "auth_section", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "keystone_authtoken", name: "auth_url", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "keystone_authtoken", name: "username", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "keystone_authtoken", name: "password", kind: "str", default: "", secret: true, aliases: &[], use_: Use::Honoured },
    Opt { section: "keystone_authtoken", name: "application_credential_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "keystone_authtoken", name: "application_credential_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "keystone_authtoken", name: "application_credential_secret", kind: "str", default: "", secret: true, aliases: &[], use_: Use::Honoured },
    Opt { section: "keystone_authtoken", name: "project_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "keystone_authtoken", name: "project_domain_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "keystone_authtoken", name: "project_domain_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "keystone_authtoken", name: "user_domain_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "keystone_authtoken", name: "user_domain_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "keystone_authtoken", name: "user_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "keystone_authtoken", name: "project_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "keystone_authtoken", name: "system_scope", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "keystone_authtoken", name: "domain_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "keystone_authtoken", name: "domain_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "keystone_authtoken", name: "trust_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "keystone_authtoken", name: "default_domain_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "keystone_authtoken", name: "default_domain_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "keystone_authtoken", name: "tenant_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "keystone_authtoken", name: "tenant_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "networking", name: "max_retries", kind: "int", default: "15", secret: false, aliases: &[], use_: Use::NotApplicable("VIP port plumbing of the amphora network driver") },
    Opt { section: "networking", name: "retry_interval", kind: "int", default: "1", secret: false, aliases: &[], use_: Use::NotApplicable("VIP port plumbing of the amphora network driver") },
    Opt { section: "networking", name: "retry_backoff", kind: "int", default: "1", secret: false, aliases: &[], use_: Use::NotApplicable("VIP port plumbing of the amphora network driver") },
    Opt { section: "networking", name: "retry_max", kind: "int", default: "10", secret: false, aliases: &[], use_: Use::NotApplicable("VIP port plumbing of the amphora network driver") },
    Opt { section: "networking", name: "port_detach_timeout", kind: "int", default: "300", secret: false, aliases: &[], use_: Use::NotApplicable("VIP port plumbing of the amphora network driver") },
    networking::ALLOW_VIP_NETWORK_ID.opt,
    networking::ALLOW_VIP_SUBNET_ID.opt,
    networking::ALLOW_VIP_PORT_ID.opt,
    Opt { section: "networking", name: "valid_vip_networks", kind: "list", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "networking", name: "denylist_vip_networks", kind: "list", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "networking", name: "reserved_ips", kind: "list", default: "169.254.169.254", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "networking", name: "allow_invisible_resource_usage", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "networking", name: "use_remote_group_for_lb_peer_ports", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::NotApplicable("VIP port plumbing of the amphora network driver") },
    Opt { section: "neutron", name: "endpoint", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "neutron", name: "endpoint_type", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "neutron", name: "ca_certificates_file", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "neutron", name: "cafile", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "neutron", name: "certfile", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "neutron", name: "keyfile", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "neutron", name: "insecure", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "neutron", name: "timeout", kind: "float", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "neutron", name: "collect_timing", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "neutron", name: "split_loggers", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "neutron", name: "auth_type", kind: "str", default: "", secret: false, aliases: &["auth_plugin"], use_: Use::Honoured },
    Opt { section: "neutron", name: "auth_section", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "neutron", name: "auth_url", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "neutron", name: "system_scope", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "neutron", name: "domain_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "neutron", name: "domain_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "neutron", name: "project_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "neutron", name: "project_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "neutron", name: "project_domain_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "neutron", name: "project_domain_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "neutron", name: "trust_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "neutron", name: "default_domain_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "neutron", name: "default_domain_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "neutron", name: "user_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "neutron", name: "username", kind: "str", default: "", secret: false, aliases: &["user_name"], use_: Use::Honoured },
    Opt { section: "neutron", name: "user_domain_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "neutron", name: "user_domain_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "neutron", name: "password", kind: "str", default: "", secret: true, aliases: &[], use_: Use::Honoured },
    Opt { section: "neutron", name: "application_credential_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "neutron", name: "application_credential_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "neutron", name: "application_credential_secret", kind: "str", default: "", secret: true, aliases: &[], use_: Use::Honoured },
    Opt { section: "neutron", name: "tenant_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "neutron", name: "tenant_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "neutron", name: "service_type", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "neutron", name: "service_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "neutron", name: "valid_interfaces", kind: "list", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "neutron", name: "region_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "neutron", name: "endpoint_override", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "neutron", name: "version", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "neutron", name: "min_version", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "neutron", name: "max_version", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "neutron", name: "connect_retries", kind: "int", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "neutron", name: "connect_retry_delay", kind: "float", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "neutron", name: "status_code_retries", kind: "int", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "neutron", name: "status_code_retry_delay", kind: "float", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "neutron", name: "retriable_status_codes", kind: "list", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "nova", name: "service_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "nova", name: "endpoint", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "nova", name: "region_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "nova", name: "endpoint_type", kind: "str", default: "publicURL", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "nova", name: "ca_certificates_file", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "nova", name: "insecure", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "nova", name: "enable_anti_affinity", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::NotApplicable("amphora instances") },
    Opt { section: "nova", name: "anti_affinity_policy", kind: "str", default: "anti-affinity", secret: false, aliases: &[], use_: Use::NotApplicable("amphora instances") },
    Opt { section: "nova", name: "random_amphora_name_length", kind: "int", default: "0", secret: false, aliases: &[], use_: Use::NotApplicable("amphora instances") },
    Opt { section: "nova", name: "availability_zone", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("amphora instances") },
    Opt { section: "oslo_concurrency", name: "disable_process_locking", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::NotApplicable("external locks of the controller worker") },
    Opt { section: "oslo_concurrency", name: "lock_path", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("external locks of the controller worker") },
    Opt { section: "oslo_messaging", name: "topic", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("RPC to the controller worker") },
    Opt { section: "oslo_messaging_kafka", name: "kafka_max_fetch_bytes", kind: "int", default: "1048576", secret: false, aliases: &[], use_: Use::NotApplicable("RPC/notifications") },
    Opt { section: "oslo_messaging_kafka", name: "kafka_consumer_timeout", kind: "float", default: "1.0", secret: false, aliases: &[], use_: Use::NotApplicable("RPC/notifications") },
    Opt { section: "oslo_messaging_kafka", name: "consumer_group", kind: "str", default: "oslo_messaging_consumer", secret: false, aliases: &[], use_: Use::NotApplicable("RPC/notifications") },
    Opt { section: "oslo_messaging_kafka", name: "producer_batch_timeout", kind: "float", default: "0.0", secret: false, aliases: &[], use_: Use::NotApplicable("RPC/notifications") },
    Opt { section: "oslo_messaging_kafka", name: "producer_batch_size", kind: "int", default: "16384", secret: false, aliases: &[], use_: Use::NotApplicable("RPC/notifications") },
    Opt { section: "oslo_messaging_kafka", name: "compression_codec", kind: "str", default: "none", secret: false, aliases: &[], use_: Use::NotApplicable("RPC/notifications") },
    Opt { section: "oslo_messaging_kafka", name: "enable_auto_commit", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::NotApplicable("RPC/notifications") },
    Opt { section: "oslo_messaging_kafka", name: "max_poll_records", kind: "int", default: "500", secret: false, aliases: &[], use_: Use::NotApplicable("RPC/notifications") },
    Opt { section: "oslo_messaging_kafka", name: "security_protocol", kind: "str", default: "PLAINTEXT", secret: false, aliases: &[], use_: Use::NotApplicable("RPC/notifications") },
    Opt { section: "oslo_messaging_kafka", name: "sasl_mechanism", kind: "str", default: "PLAIN", secret: false, aliases: &[], use_: Use::NotApplicable("RPC/notifications") },
    Opt { section: "oslo_messaging_kafka", name: "ssl_cafile", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("RPC/notifications") },
    Opt { section: "oslo_messaging_kafka", name: "ssl_client_cert_file", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("RPC/notifications") },
    Opt { section: "oslo_messaging_kafka", name: "ssl_client_key_file", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("RPC/notifications") },
    Opt { section: "oslo_messaging_kafka", name: "ssl_client_key_password", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("RPC/notifications") },
    Opt { section: "oslo_messaging_notifications", name: "driver", kind: "multi", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("notifications (Octavia sends none from the API for OVN)") },
    Opt { section: "oslo_messaging_notifications", name: "transport_url", kind: "str", default: "", secret: true, aliases: &[], use_: Use::NotApplicable("notifications (Octavia sends none from the API for OVN)") },
    Opt { section: "oslo_messaging_notifications", name: "topics", kind: "list", default: "notifications", secret: false, aliases: &[], use_: Use::NotApplicable("notifications (Octavia sends none from the API for OVN)") },
    Opt { section: "oslo_messaging_notifications", name: "retry", kind: "int", default: "-1", secret: false, aliases: &[], use_: Use::NotApplicable("notifications (Octavia sends none from the API for OVN)") },
    Opt { section: "oslo_messaging_rabbit", name: "amqp_durable_queues", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "oslo_messaging_rabbit", name: "amqp_auto_delete", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "oslo_messaging_rabbit", name: "rpc_conn_pool_size", kind: "int", default: "30", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "oslo_messaging_rabbit", name: "conn_pool_min_size", kind: "int", default: "2", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "oslo_messaging_rabbit", name: "conn_pool_ttl", kind: "int", default: "1200", secret: false, aliases: &[], use_: Use::NotApplicable("queues, consumers or replies: the API only casts") },
    Opt { section: "oslo_messaging_rabbit", name: "ssl", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "oslo_messaging_rabbit", name: "ssl_version", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "oslo_messaging_rabbit", name: "ssl_key_file", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "oslo_messaging_rabbit", name: "ssl_cert_file", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "oslo_messaging_rabbit", name: "ssl_ca_file", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "oslo_messaging_rabbit", name: "ssl_enforce_hostname_verification", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::NotApplicable("queues, consumers or replies: the API only casts") },
    Opt { section: "oslo_messaging_rabbit", name: "ssl_enforce_fips_mode", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::NotApplicable("queues, consumers or replies: the API only casts") },
    Opt { section: "oslo_messaging_rabbit", name: "kombu_reconnect_delay", kind: "float", default: "1.0", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "oslo_messaging_rabbit", name: "kombu_reconnect_splay", kind: "float", default: "0.0", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "oslo_messaging_rabbit", name: "kombu_compression", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "oslo_messaging_rabbit", name: "kombu_missing_consumer_retry_timeout", kind: "int", default: "60", secret: false, aliases: &["kombu_reconnect_timeout"], use_: Use::NotApplicable("queues, consumers or replies: the API only casts") },
    Opt { section: "oslo_messaging_rabbit", name: "kombu_failover_strategy", kind: "str", default: "round-robin", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "oslo_messaging_rabbit", name: "rabbit_login_method", kind: "str", default: "AMQPLAIN", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "oslo_messaging_rabbit", name: "rabbit_retry_interval", kind: "int", default: "1", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "oslo_messaging_rabbit", name: "rabbit_retry_backoff", kind: "int", default: "2", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "oslo_messaging_rabbit", name: "rabbit_interval_max", kind: "int", default: "30", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "oslo_messaging_rabbit", name: "rabbit_ha_queues", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::NotApplicable("queues, consumers or replies: the API only casts") },
    Opt { section: "oslo_messaging_rabbit", name: "rabbit_quorum_queue", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "oslo_messaging_rabbit", name: "rabbit_transient_quorum_queue", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "oslo_messaging_rabbit", name: "rabbit_quorum_delivery_limit", kind: "int", default: "0", secret: false, aliases: &[], use_: Use::NotApplicable("queues, consumers or replies: the API only casts") },
    Opt { section: "oslo_messaging_rabbit", name: "rabbit_quorum_max_memory_length", kind: "int", default: "0", secret: false, aliases: &[], use_: Use::NotApplicable("queues, consumers or replies: the API only casts") },
    Opt { section: "oslo_messaging_rabbit", name: "rabbit_quorum_max_memory_bytes", kind: "int", default: "0", secret: false, aliases: &[], use_: Use::NotApplicable("queues, consumers or replies: the API only casts") },
    Opt { section: "oslo_messaging_rabbit", name: "rabbit_transient_queues_ttl", kind: "int", default: "1800", secret: false, aliases: &[], use_: Use::NotApplicable("queues, consumers or replies: the API only casts") },
    Opt { section: "oslo_messaging_rabbit", name: "rabbit_qos_prefetch_count", kind: "int", default: "0", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "oslo_messaging_rabbit", name: "heartbeat_timeout_threshold", kind: "int", default: "60", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "oslo_messaging_rabbit", name: "heartbeat_rate", kind: "int", default: "3", secret: false, aliases: &[], use_: Use::NotApplicable("queues, consumers or replies: the API only casts") },
    Opt { section: "oslo_messaging_rabbit", name: "direct_mandatory_flag", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::NotApplicable("queues, consumers or replies: the API only casts") },
    Opt { section: "oslo_messaging_rabbit", name: "enable_cancel_on_failover", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::NotApplicable("queues, consumers or replies: the API only casts") },
    Opt { section: "oslo_messaging_rabbit", name: "use_queue_manager", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::NotApplicable("queues, consumers or replies: the API only casts") },
    Opt { section: "oslo_messaging_rabbit", name: "hostname", kind: "str", default: "vm", secret: false, aliases: &[], use_: Use::NotApplicable("queues, consumers or replies: the API only casts") },
    Opt { section: "oslo_messaging_rabbit", name: "processname", kind: "str", default: "oslo-config-generator", secret: false, aliases: &[], use_: Use::NotApplicable("queues, consumers or replies: the API only casts") },
    Opt { section: "oslo_messaging_rabbit", name: "rabbit_stream_fanout", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "oslo_middleware", name: "max_request_body_size", kind: "int", default: "114688", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "oslo_middleware", name: "enable_proxy_headers_parsing", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "oslo_middleware", name: "http_basic_auth_user_file", kind: "str", default: "/etc/htpasswd", secret: false, aliases: &[], use_: Use::NotApplicable("Octavia offers no http_basic auth_strategy") },
    Opt { section: "oslo_middleware_tracing", name: "enabled", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "oslo_middleware_tracing", name: "otlp_endpoint", kind: "uri", default: "http://localhost:4318", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "oslo_middleware_tracing", name: "otlp_protocol", kind: "str", default: "http/protobuf", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "oslo_middleware_tracing", name: "service_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "oslo_middleware_tracing", name: "sampling_rate", kind: "float", default: "1.0", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "oslo_middleware_tracing", name: "insecure", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "oslo_policy", name: "enforce_new_defaults", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "oslo_policy", name: "policy_file", kind: "str", default: "policy.yaml", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "oslo_policy", name: "policy_default_rule", kind: "str", default: "default", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "oslo_policy", name: "policy_dirs", kind: "multi", default: "policy.d", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "oslo_policy", name: "remote_content_type", kind: "str", default: "application/x-www-form-urlencoded", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "oslo_policy", name: "remote_ssl_verify_server_crt", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "oslo_policy", name: "remote_ssl_ca_crt_file", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "oslo_policy", name: "remote_ssl_client_crt_file", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "oslo_policy", name: "remote_ssl_client_key_file", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "oslo_policy", name: "remote_timeout", kind: "float", default: "60", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "ovn", name: "ovn_nb_connection", kind: "list", default: "tcp:127.0.0.1:6641", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "ovn", name: "ovn_nb_private_key", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "ovn", name: "ovn_nb_certificate", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "ovn", name: "ovn_nb_ca_cert", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "ovn", name: "ovn_sb_connection", kind: "list", default: "tcp:127.0.0.1:6642", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "ovn", name: "ovn_sb_private_key", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "ovn", name: "ovn_sb_certificate", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "ovn", name: "ovn_sb_ca_cert", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "ovn", name: "ovsdb_connection_timeout", kind: "int", default: "180", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "ovn", name: "ovsdb_retry_max_interval", kind: "int", default: "180", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "ovn", name: "ovsdb_probe_interval", kind: "int", default: "60000", secret: false, aliases: &[], use_: Use::Honoured },
    quotas::DEFAULT_LOAD_BALANCER_QUOTA.opt,
    quotas::DEFAULT_LISTENER_QUOTA.opt,
    quotas::DEFAULT_MEMBER_QUOTA.opt,
    quotas::DEFAULT_POOL_QUOTA.opt,
    quotas::DEFAULT_HEALTH_MONITOR_QUOTA.opt,
    quotas::DEFAULT_L7POLICY_QUOTA.opt,
    quotas::DEFAULT_L7RULE_QUOTA.opt,
    Opt { section: "service_auth", name: "cafile", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "service_auth", name: "certfile", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "service_auth", name: "keyfile", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "service_auth", name: "insecure", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "service_auth", name: "timeout", kind: "float", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "service_auth", name: "collect_timing", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "service_auth", name: "split_loggers", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "service_auth", name: "auth_type", kind: "str", default: "", secret: false, aliases: &["auth_plugin"], use_: Use::Honoured },
    Opt { section: "service_auth", name: "auth_section", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "service_auth", name: "auth_url", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "service_auth", name: "system_scope", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "service_auth", name: "domain_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "service_auth", name: "domain_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "service_auth", name: "project_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "service_auth", name: "project_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "service_auth", name: "project_domain_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "service_auth", name: "project_domain_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "service_auth", name: "trust_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "service_auth", name: "default_domain_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "service_auth", name: "default_domain_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "service_auth", name: "user_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "service_auth", name: "username", kind: "str", default: "", secret: false, aliases: &["user_name"], use_: Use::Honoured },
    Opt { section: "service_auth", name: "user_domain_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "service_auth", name: "user_domain_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "service_auth", name: "password", kind: "str", default: "", secret: true, aliases: &[], use_: Use::Honoured },
    Opt { section: "service_auth", name: "application_credential_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "service_auth", name: "application_credential_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "service_auth", name: "application_credential_secret", kind: "str", default: "", secret: true, aliases: &[], use_: Use::Honoured },
    Opt { section: "service_auth", name: "tenant_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "service_auth", name: "tenant_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "service_auth", name: "service_type", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("the OVN provider's Octavia client (Keel calls no Octavia API)") },
    Opt { section: "service_auth", name: "service_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("the OVN provider's Octavia client (Keel calls no Octavia API)") },
    Opt { section: "service_auth", name: "valid_interfaces", kind: "list", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("the OVN provider's Octavia client (Keel calls no Octavia API)") },
    Opt { section: "service_auth", name: "region_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "service_auth", name: "endpoint_override", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("the OVN provider's Octavia client (Keel calls no Octavia API)") },
    Opt { section: "service_auth", name: "version", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("the OVN provider's Octavia client (Keel calls no Octavia API)") },
    Opt { section: "service_auth", name: "min_version", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("the OVN provider's Octavia client (Keel calls no Octavia API)") },
    Opt { section: "service_auth", name: "max_version", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("the OVN provider's Octavia client (Keel calls no Octavia API)") },
    Opt { section: "service_auth", name: "connect_retries", kind: "int", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("the OVN provider's Octavia client (Keel calls no Octavia API)") },
    Opt { section: "service_auth", name: "connect_retry_delay", kind: "float", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("the OVN provider's Octavia client (Keel calls no Octavia API)") },
    Opt { section: "service_auth", name: "status_code_retries", kind: "int", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("the OVN provider's Octavia client (Keel calls no Octavia API)") },
    Opt { section: "service_auth", name: "status_code_retry_delay", kind: "float", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("the OVN provider's Octavia client (Keel calls no Octavia API)") },
    Opt { section: "service_auth", name: "retriable_status_codes", kind: "list", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("the OVN provider's Octavia client (Keel calls no Octavia API)") },
    Opt { section: "task_flow", name: "engine", kind: "str", default: "parallel", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "max_workers", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "disable_revert", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "persistence_connection", kind: "str", default: "sqlite://", secret: true, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_enabled", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_backend_driver", kind: "str", default: "redis_taskflow_driver", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_backend_hosts", kind: "list", default: "127.0.0.1", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_backend_port", kind: "port", default: "6379", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_backend_username", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_backend_password", kind: "str", default: "", secret: true, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_backend_namespace", kind: "str", default: "octavia_jobboard", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_redis_backend_db", kind: "int", default: "0", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_redis_sentinel", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_redis_sentinel_username", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_redis_sentinel_password", kind: "str", default: "", secret: true, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_redis_backend_ssl_options", kind: "dict", default: "ssl:False,ssl_ca_certs:None,ssl_cert_reqs:required,ssl_certfile:None,ssl_keyfile:None", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_redis_sentinel_ssl_options", kind: "dict", default: "ssl:False,ssl_ca_certs:None,ssl_cert_reqs:required,ssl_certfile:None,ssl_keyfile:None", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_zookeeper_ssl_options", kind: "dict", default: "certfile:None,keyfile:None,keyfile_password:None,use_ssl:False,verify_certs:True", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_etcd_ssl_options", kind: "dict", default: "ca_cert:None,cert_cert:None,cert_key:None,use_ssl:False", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_etcd_timeout", kind: "int", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_etcd_api_path", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_expiration_time", kind: "int", default: "30", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_save_logbook", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
];

#[cfg(test)]
mod tests {
    use super::keel::*;

    /// Every typed constant's default converts to its type (an unset option never fails).
    #[test]
    fn typed_defaults_convert() {
        assert!(SETTLE_WAIT_MS.value(None).is_ok());
        assert!(NB_UNAVAILABLE_AFTER.value(None).is_ok());
        assert!(RECOVERY_LEASE.value(None).is_ok());
        assert!(RECOVERY_PERIOD.value(None).is_ok());
        assert!(GRACEFUL_SHUTDOWN_TIMEOUT.value(None).is_ok());
        assert!(RPC_CAST_TIMEOUT.value(None).is_ok());
        assert_eq!(METRICS_LISTEN.value(None), Ok(None));
        assert_eq!(RUN_AGENT.value(None), Ok(true));
        use super::{api_settings as a, haproxy_amphora as h, networking as n, quotas as q};
        for o in [
            a::ALLOW_PAGINATION,
            a::ALLOW_SORTING,
            a::ALLOW_FILTERING,
            a::ALLOW_FIELD_SELECTION,
            a::ALLOW_TLS_TERMINATED_LISTENERS,
            a::ALLOW_PING_HEALTH_MONITORS,
            a::ALLOW_PROMETHEUS_LISTENERS,
            n::ALLOW_VIP_NETWORK_ID,
            n::ALLOW_VIP_SUBNET_ID,
            n::ALLOW_VIP_PORT_ID,
        ] {
            assert_eq!(o.value(None), Ok(true), "{}", o.opt.name);
        }
        assert_eq!(a::HEALTHCHECK_ENABLED.value(None), Ok(false));
        for (o, d) in [
            (h::TIMEOUT_CLIENT_DATA, 50000),
            (h::TIMEOUT_MEMBER_CONNECT, 5000),
            (h::TIMEOUT_MEMBER_DATA, 50000),
            (h::TIMEOUT_TCP_INSPECT, 0),
            (q::DEFAULT_LOAD_BALANCER_QUOTA, -1),
            (q::DEFAULT_LISTENER_QUOTA, -1),
            (q::DEFAULT_MEMBER_QUOTA, -1),
            (q::DEFAULT_POOL_QUOTA, -1),
            (q::DEFAULT_HEALTH_MONITOR_QUOTA, -1),
            (q::DEFAULT_L7POLICY_QUOTA, -1),
            (q::DEFAULT_L7RULE_QUOTA, -1),
        ] {
            assert_eq!(o.value(None), Ok(d), "{}", o.opt.name);
        }
    }
}
