//! `[oslo_messaging_rabbit]`: every option oslo.messaging 18.2.0 registers for its rabbit
//! driver (`rabbit_opts` of oslo_messaging/_drivers/impl_rabbit.py and `amqp_opts` of
//! oslo_messaging/_drivers/amqp.py, 37 in all) with its default, its oslo.config type and
//! bounds, and what a cast-only client does with it.
//!
//! Honoured: `ssl`, `ssl_version`, `ssl_ca_file`, `ssl_cert_file`, `ssl_key_file`,
//! `amqp_durable_queues`, `rabbit_quorum_queue` (both make the exchange durable),
//! `amqp_auto_delete`, `rabbit_retry_interval`, `rabbit_retry_backoff`, `rabbit_interval_max`,
//! `kombu_failover_strategy`, `kombu_reconnect_delay`, `kombu_reconnect_splay`,
//! `rabbit_login_method`, `heartbeat_timeout_threshold`, and the checks oslo makes at start-up
//! (`rpc_conn_pool_size` ≥ `conn_pool_min_size`; `rabbit_stream_fanout` needing
//! `rabbit_qos_prefetch_count` > 0 and `rabbit_transient_quorum_queue`). Refused when set:
//! `kombu_compression`. The others configure queues, consumers, replies or the connection pool
//! of a server or a `call`, which a cast-only client has none of; each field's doc says so.

use std::fmt;

use serde_json::{Value, json};

use crate::error::ConfigError;
use crate::tls::{TlsSettings, TlsVersion};
use crate::url::TransportUrl;

/// `kombu_failover_strategy`: how the next host is chosen after a connection failure, as
/// kombu's `Connection.failover_strategies`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FailoverStrategy {
    /// `round-robin` (default): the next host in (shuffled) URL order, cycling.
    #[default]
    RoundRobin,
    /// `shuffle`: a host drawn at random each time (kombu's `shufflecycle`).
    Shuffle,
}

impl FailoverStrategy {
    /// The option's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            FailoverStrategy::RoundRobin => "round-robin",
            FailoverStrategy::Shuffle => "shuffle",
        }
    }
}

/// `rabbit_login_method`: the SASL mechanism offered to RabbitMQ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LoginMethod {
    /// `AMQPLAIN` (oslo's default): user and password in an AMQP field table.
    #[default]
    AmqPlain,
    /// `PLAIN`: RFC 4616.
    Plain,
    /// `EXTERNAL`: the TLS client certificate identifies the user.
    External,
    /// `RABBIT-CR-DEMO`: RabbitMQ's challenge-response demo mechanism.
    RabbitCrDemo,
}

impl LoginMethod {
    /// The option's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            LoginMethod::AmqPlain => "AMQPLAIN",
            LoginMethod::Plain => "PLAIN",
            LoginMethod::External => "EXTERNAL",
            LoginMethod::RabbitCrDemo => "RABBIT-CR-DEMO",
        }
    }
}

/// The `[oslo_messaging_rabbit]` group with oslo.messaging 18.2.0's defaults
/// ([`Default`]). Integer options are `i64` and floats `f64` so that every value oslo.config
/// accepts can be held; [`RabbitOptions::set`] parses a value as oslo.config does and
/// [`RabbitOptions::check`] refuses what the client cannot honour. Durations are seconds, as
/// in the option.
#[derive(Debug, Clone, PartialEq)]
pub struct RabbitOptions {
    /// `rpc_conn_pool_size` (30, ≥ 1): oslo's connection pool bound. Not applicable: the
    /// client keeps one connection for all casts; only checked against `conn_pool_min_size`.
    pub rpc_conn_pool_size: i64,
    /// `conn_pool_min_size` (2): the pool's expiry floor. Not applicable (see above).
    pub conn_pool_min_size: i64,
    /// `conn_pool_ttl` (1200 s): idle pooled connections' lifetime. Not applicable.
    pub conn_pool_ttl: i64,
    /// `ssl` (false): connect over TLS (rustls, TLS 1.2/1.3). The port stays the URL's
    /// (default 5672), as oslo's.
    pub ssl: bool,
    /// `ssl_version` (empty): with `ssl`, `sslv23` (negotiate: TLS 1.2 or 1.3) or `tlsv1_2`
    /// (TLS 1.2 only), case-insensitive; `tlsv1` and `tlsv1_1` are refused (rustls has neither).
    /// Set without `ssl_ca_file`, oslo (Python's `SSLContext(PROTOCOL_…)`) verifies nothing
    /// of the broker's certificate, and neither does this client (with a warning).
    pub ssl_version: String,
    /// `ssl_key_file` (empty): PEM private key for `ssl_cert_file`; empty: the key is read from
    /// `ssl_cert_file` (Python's `load_cert_chain`). Without `ssl_cert_file` it is ignored, as
    /// by oslo.
    pub ssl_key_file: String,
    /// `ssl_cert_file` (empty): PEM client certificate chain presented to RabbitMQ.
    pub ssl_cert_file: String,
    /// `ssl_ca_file` (empty): PEM CA bundle; set, the broker's chain must lead to one of these
    /// and its certificate must name the host being dialled. Empty: the system CAs (OpenSSL's
    /// default paths, through rustls-native-certs) verify the chain and the name is not
    /// checked, as oslo's `ssl=True` (unless `ssl_version` is set, see there).
    pub ssl_ca_file: String,
    /// `ssl_enforce_hostname_verification` (true, deprecated): no effect, in oslo either.
    pub ssl_enforce_hostname_verification: bool,
    /// `ssl_enforce_fips_mode` (false, deprecated): no effect, in oslo either.
    pub ssl_enforce_fips_mode: bool,
    /// `kombu_reconnect_delay` (1.0 s, 0 – 4.5): after a connection is lost, the wait before
    /// the first reconnection attempt (oslo's `Connection.ensure` error callback).
    pub kombu_reconnect_delay: f64,
    /// `kombu_reconnect_splay` (0.0 s, ≥ 0): a random 0 – splay seconds added to that wait.
    pub kombu_reconnect_splay: f64,
    /// `kombu_compression` (unset): gzip/bz2 bodies. Refused by [`RabbitOptions::check`] when
    /// set: Octavia's worker accepts it but this client does not compress.
    pub kombu_compression: Option<String>,
    /// `kombu_missing_consumer_retry_timeout` (60 s; old name `kombu_reconnect_timeout`):
    /// how long a server retries a reply. Not applicable (casts have no reply).
    pub kombu_missing_consumer_retry_timeout: i64,
    /// `kombu_failover_strategy` (`round-robin`): see [`FailoverStrategy`].
    pub kombu_failover_strategy: FailoverStrategy,
    /// `rabbit_login_method` (`AMQPLAIN`): see [`LoginMethod`].
    pub rabbit_login_method: LoginMethod,
    /// `rabbit_retry_interval` (1 s, ≥ 1): first wait between connection attempts, once every
    /// host has failed (kombu's `interval_start`).
    pub rabbit_retry_interval: i64,
    /// `rabbit_retry_backoff` (2 s, ≥ 0): added to the wait after each failed round of hosts
    /// (kombu's `interval_step`).
    pub rabbit_retry_backoff: i64,
    /// `rabbit_interval_max` (30 s, ≥ 1): the wait's growth stops past this (kombu's
    /// `fxrange(start, max + start, step)`: with the defaults the waits are 1, 3, … 29, 31, 31…).
    pub rabbit_interval_max: i64,
    /// `rabbit_ha_queues` (false): `x-ha-policy` on declared queues. Not applicable (no queue).
    pub rabbit_ha_queues: bool,
    /// `rabbit_quorum_queue` (false): quorum queues; also makes the exchange durable (oslo's
    /// `Connection.durable`), which a cast declares.
    pub rabbit_quorum_queue: bool,
    /// `rabbit_transient_quorum_queue` (false): reply/fanout queues. Not applicable, only
    /// checked with `rabbit_stream_fanout`.
    pub rabbit_transient_quorum_queue: bool,
    /// `rabbit_quorum_delivery_limit` (0): quorum queue argument. Not applicable.
    pub rabbit_quorum_delivery_limit: i64,
    /// `rabbit_quorum_max_memory_length` (0): quorum queue argument. Not applicable.
    pub rabbit_quorum_max_memory_length: i64,
    /// `rabbit_quorum_max_memory_bytes` (0): quorum queue argument. Not applicable.
    pub rabbit_quorum_max_memory_bytes: i64,
    /// `rabbit_transient_queues_ttl` (1800 s, ≥ 0): reply/fanout queue expiry. Not applicable.
    pub rabbit_transient_queues_ttl: i64,
    /// `rabbit_qos_prefetch_count` (0): consumer prefetch. Not applicable, only checked with
    /// `rabbit_stream_fanout`.
    pub rabbit_qos_prefetch_count: i64,
    /// `heartbeat_timeout_threshold` (60 s): the AMQP heartbeat asked of RabbitMQ (the lower of
    /// it and the server's is used). ≤ 0 asks for none, but lapin then follows the server's
    /// value where py-amqp would disable heartbeats. At most 65535.
    pub heartbeat_timeout_threshold: i64,
    /// `heartbeat_rate` (3): how often per threshold oslo's thread checks heartbeats. Not
    /// applicable: lapin sends and checks heartbeats on its own schedule.
    pub heartbeat_rate: i64,
    /// `direct_mandatory_flag` (true, deprecated): replies' mandatory flag. Not applicable.
    pub direct_mandatory_flag: bool,
    /// `enable_cancel_on_failover` (false): consumer argument. Not applicable.
    pub enable_cancel_on_failover: bool,
    /// `use_queue_manager` (false): stable queue names for consumers. Not applicable.
    pub use_queue_manager: bool,
    /// `hostname` (the machine's host name): queue manager naming. Not applicable.
    pub hostname: String,
    /// `processname` (the program's base name): queue manager naming. Not applicable.
    pub processname: String,
    /// `rabbit_stream_fanout` (false): stream fanout queues. Not applicable, but its
    /// start-up checks are made.
    pub rabbit_stream_fanout: bool,
    /// `amqp_durable_queues` (false): declare the exchange durable.
    pub amqp_durable_queues: bool,
    /// `amqp_auto_delete` (false): declare the exchange auto-delete.
    pub amqp_auto_delete: bool,
}

impl Default for RabbitOptions {
    fn default() -> Self {
        RabbitOptions {
            rpc_conn_pool_size: 30,
            conn_pool_min_size: 2,
            conn_pool_ttl: 1200,
            ssl: false,
            ssl_version: String::new(),
            ssl_key_file: String::new(),
            ssl_cert_file: String::new(),
            ssl_ca_file: String::new(),
            ssl_enforce_hostname_verification: true,
            ssl_enforce_fips_mode: false,
            kombu_reconnect_delay: 1.0,
            kombu_reconnect_splay: 0.0,
            kombu_compression: None,
            kombu_missing_consumer_retry_timeout: 60,
            kombu_failover_strategy: FailoverStrategy::RoundRobin,
            rabbit_login_method: LoginMethod::AmqPlain,
            rabbit_retry_interval: 1,
            rabbit_retry_backoff: 2,
            rabbit_interval_max: 30,
            rabbit_ha_queues: false,
            rabbit_quorum_queue: false,
            rabbit_transient_quorum_queue: false,
            rabbit_quorum_delivery_limit: 0,
            rabbit_quorum_max_memory_length: 0,
            rabbit_quorum_max_memory_bytes: 0,
            rabbit_transient_queues_ttl: 1800,
            rabbit_qos_prefetch_count: 0,
            heartbeat_timeout_threshold: 60,
            heartbeat_rate: 3,
            direct_mandatory_flag: true,
            enable_cancel_on_failover: false,
            use_queue_manager: false,
            hostname: default_hostname(),
            processname: default_processname(),
            rabbit_stream_fanout: false,
            amqp_durable_queues: false,
            amqp_auto_delete: false,
        }
    }
}

/// Python's `socket.gethostname()` on Linux (the kernel's node name).
fn default_hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_owned())
        .unwrap_or_default()
}

/// `os.path.basename(sys.argv[0])`.
fn default_processname() -> String {
    std::env::args_os()
        .next()
        .and_then(|a| {
            std::path::Path::new(&a)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
        .unwrap_or_default()
}

/// The names of the 37 options, in oslo's registration order.
pub const OPTION_NAMES: [&str; 37] = [
    "rpc_conn_pool_size",
    "conn_pool_min_size",
    "conn_pool_ttl",
    "ssl",
    "ssl_version",
    "ssl_key_file",
    "ssl_cert_file",
    "ssl_ca_file",
    "ssl_enforce_hostname_verification",
    "ssl_enforce_fips_mode",
    "kombu_reconnect_delay",
    "kombu_reconnect_splay",
    "kombu_compression",
    "kombu_missing_consumer_retry_timeout",
    "kombu_failover_strategy",
    "rabbit_login_method",
    "rabbit_retry_interval",
    "rabbit_retry_backoff",
    "rabbit_interval_max",
    "rabbit_ha_queues",
    "rabbit_quorum_queue",
    "rabbit_transient_quorum_queue",
    "rabbit_quorum_delivery_limit",
    "rabbit_quorum_max_memory_length",
    "rabbit_quorum_max_memory_bytes",
    "rabbit_transient_queues_ttl",
    "rabbit_qos_prefetch_count",
    "heartbeat_timeout_threshold",
    "heartbeat_rate",
    "direct_mandatory_flag",
    "enable_cancel_on_failover",
    "use_queue_manager",
    "hostname",
    "processname",
    "rabbit_stream_fanout",
    "amqp_durable_queues",
    "amqp_auto_delete",
];

/// oslo.config's `types.Boolean`: true/1/on/yes, false/0/off/no, any case.
fn parse_bool(option: &'static str, v: &str) -> Result<bool, ConfigError> {
    match v.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "on" | "yes" => Ok(true),
        "false" | "0" | "off" | "no" => Ok(false),
        _ => Err(bad(option, format!("{v:?} is not a boolean"))),
    }
}

/// oslo.config's `types.Integer` (Python's `int()`), then its `min`/`max`.
fn parse_int(
    option: &'static str,
    v: &str,
    min: Option<i64>,
    max: Option<i64>,
) -> Result<i64, ConfigError> {
    let n: i64 = v
        .trim()
        .replace('_', "")
        .parse()
        .map_err(|_| bad(option, format!("{v:?} is not an integer")))?;
    check_range(
        option,
        n as f64,
        min.map(|m| m as f64),
        max.map(|m| m as f64),
    )?;
    Ok(n)
}

fn parse_float(
    option: &'static str,
    v: &str,
    min: Option<f64>,
    max: Option<f64>,
) -> Result<f64, ConfigError> {
    let n: f64 = v
        .trim()
        .parse()
        .map_err(|_| bad(option, format!("{v:?} is not a number")))?;
    if !n.is_finite() {
        return Err(bad(option, format!("{v:?} is not a finite number")));
    }
    check_range(option, n, min, max)?;
    Ok(n)
}

fn check_range(
    option: &'static str,
    n: f64,
    min: Option<f64>,
    max: Option<f64>,
) -> Result<(), ConfigError> {
    if let Some(m) = min
        && n < m
    {
        return Err(bad(option, format!("{n} is less than the minimum {m}")));
    }
    if let Some(m) = max
        && n > m
    {
        return Err(bad(option, format!("{n} is greater than the maximum {m}")));
    }
    Ok(())
}

fn bad(option: &'static str, reason: String) -> ConfigError {
    ConfigError::Option { option, reason }
}

/// The name's `&'static` spelling (for errors), accepting the deprecated alias.
fn canonical(name: &str) -> Option<&'static str> {
    if name == "kombu_reconnect_timeout" {
        return Some("kombu_missing_consumer_retry_timeout");
    }
    OPTION_NAMES.iter().copied().find(|n| *n == name)
}

impl RabbitOptions {
    /// Whether `name` is an option of the group (or its deprecated alias
    /// `kombu_reconnect_timeout`).
    pub fn is_option(name: &str) -> bool {
        canonical(name).is_some()
    }

    /// Sets option `name` from its text in a config file or URL query, parsed and bounded as
    /// oslo.config's type for it (booleans `true/1/on/yes`/`false/0/off/no`, integers with
    /// their `min`/`max`, choices exact). Errors: [`ConfigError::Option`] for an unknown name
    /// or a value oslo.config would refuse.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), ConfigError> {
        let Some(o) = canonical(name) else {
            return Err(ConfigError::Option {
                option: "transport_url",
                reason: format!(
                    "{name:?} is not an option of [oslo_messaging_rabbit] (oslo.messaging 18.2.0)"
                ),
            });
        };
        let s = || value.to_owned();
        match o {
            "rpc_conn_pool_size" => self.rpc_conn_pool_size = parse_int(o, value, Some(1), None)?,
            "conn_pool_min_size" => self.conn_pool_min_size = parse_int(o, value, None, None)?,
            "conn_pool_ttl" => self.conn_pool_ttl = parse_int(o, value, None, None)?,
            "ssl" => self.ssl = parse_bool(o, value)?,
            "ssl_version" => self.ssl_version = s(),
            "ssl_key_file" => self.ssl_key_file = s(),
            "ssl_cert_file" => self.ssl_cert_file = s(),
            "ssl_ca_file" => self.ssl_ca_file = s(),
            "ssl_enforce_hostname_verification" => {
                self.ssl_enforce_hostname_verification = parse_bool(o, value)?
            }
            "ssl_enforce_fips_mode" => self.ssl_enforce_fips_mode = parse_bool(o, value)?,
            "kombu_reconnect_delay" => {
                self.kombu_reconnect_delay = parse_float(o, value, Some(0.0), Some(4.5))?
            }
            "kombu_reconnect_splay" => {
                self.kombu_reconnect_splay = parse_float(o, value, Some(0.0), None)?
            }
            "kombu_compression" => self.kombu_compression = Some(s()),
            "kombu_missing_consumer_retry_timeout" => {
                self.kombu_missing_consumer_retry_timeout = parse_int(o, value, None, None)?
            }
            "kombu_failover_strategy" => {
                self.kombu_failover_strategy = match value {
                    "round-robin" => FailoverStrategy::RoundRobin,
                    "shuffle" => FailoverStrategy::Shuffle,
                    _ => return Err(bad(o, format!("{value:?} is not round-robin or shuffle"))),
                }
            }
            "rabbit_login_method" => {
                self.rabbit_login_method = match value {
                    "AMQPLAIN" => LoginMethod::AmqPlain,
                    "PLAIN" => LoginMethod::Plain,
                    "EXTERNAL" => LoginMethod::External,
                    "RABBIT-CR-DEMO" => LoginMethod::RabbitCrDemo,
                    _ => {
                        return Err(bad(
                            o,
                            format!("{value:?} is not PLAIN, AMQPLAIN, EXTERNAL or RABBIT-CR-DEMO"),
                        ));
                    }
                }
            }
            "rabbit_retry_interval" => {
                self.rabbit_retry_interval = parse_int(o, value, Some(1), None)?
            }
            "rabbit_retry_backoff" => {
                self.rabbit_retry_backoff = parse_int(o, value, Some(0), None)?
            }
            "rabbit_interval_max" => self.rabbit_interval_max = parse_int(o, value, Some(1), None)?,
            "rabbit_ha_queues" => self.rabbit_ha_queues = parse_bool(o, value)?,
            "rabbit_quorum_queue" => self.rabbit_quorum_queue = parse_bool(o, value)?,
            "rabbit_transient_quorum_queue" => {
                self.rabbit_transient_quorum_queue = parse_bool(o, value)?
            }
            "rabbit_quorum_delivery_limit" => {
                self.rabbit_quorum_delivery_limit = parse_int(o, value, None, None)?
            }
            "rabbit_quorum_max_memory_length" => {
                self.rabbit_quorum_max_memory_length = parse_int(o, value, None, None)?
            }
            "rabbit_quorum_max_memory_bytes" => {
                self.rabbit_quorum_max_memory_bytes = parse_int(o, value, None, None)?
            }
            "rabbit_transient_queues_ttl" => {
                self.rabbit_transient_queues_ttl = parse_int(o, value, Some(0), None)?
            }
            "rabbit_qos_prefetch_count" => {
                self.rabbit_qos_prefetch_count = parse_int(o, value, None, None)?
            }
            "heartbeat_timeout_threshold" => {
                self.heartbeat_timeout_threshold = parse_int(o, value, None, None)?
            }
            "heartbeat_rate" => self.heartbeat_rate = parse_int(o, value, None, None)?,
            "direct_mandatory_flag" => self.direct_mandatory_flag = parse_bool(o, value)?,
            "enable_cancel_on_failover" => self.enable_cancel_on_failover = parse_bool(o, value)?,
            "use_queue_manager" => self.use_queue_manager = parse_bool(o, value)?,
            "hostname" => self.hostname = s(),
            "processname" => self.processname = s(),
            "rabbit_stream_fanout" => self.rabbit_stream_fanout = parse_bool(o, value)?,
            "amqp_durable_queues" => self.amqp_durable_queues = parse_bool(o, value)?,
            "amqp_auto_delete" => self.amqp_auto_delete = parse_bool(o, value)?,
            _ => {
                return Err(bad(o, "option not handled".into()));
            }
        }
        Ok(())
    }

    /// The value of option `name` as JSON (`null` for an unset string option), the shape of
    /// oslo's own value; `None` for an unknown name. Used to compare defaults with oslo's.
    pub fn get(&self, name: &str) -> Option<Value> {
        let v = match canonical(name)? {
            "rpc_conn_pool_size" => json!(self.rpc_conn_pool_size),
            "conn_pool_min_size" => json!(self.conn_pool_min_size),
            "conn_pool_ttl" => json!(self.conn_pool_ttl),
            "ssl" => json!(self.ssl),
            "ssl_version" => json!(self.ssl_version),
            "ssl_key_file" => json!(self.ssl_key_file),
            "ssl_cert_file" => json!(self.ssl_cert_file),
            "ssl_ca_file" => json!(self.ssl_ca_file),
            "ssl_enforce_hostname_verification" => json!(self.ssl_enforce_hostname_verification),
            "ssl_enforce_fips_mode" => json!(self.ssl_enforce_fips_mode),
            "kombu_reconnect_delay" => json!(self.kombu_reconnect_delay),
            "kombu_reconnect_splay" => json!(self.kombu_reconnect_splay),
            "kombu_compression" => json!(self.kombu_compression),
            "kombu_missing_consumer_retry_timeout" => {
                json!(self.kombu_missing_consumer_retry_timeout)
            }
            "kombu_failover_strategy" => json!(self.kombu_failover_strategy.as_str()),
            "rabbit_login_method" => json!(self.rabbit_login_method.as_str()),
            "rabbit_retry_interval" => json!(self.rabbit_retry_interval),
            "rabbit_retry_backoff" => json!(self.rabbit_retry_backoff),
            "rabbit_interval_max" => json!(self.rabbit_interval_max),
            "rabbit_ha_queues" => json!(self.rabbit_ha_queues),
            "rabbit_quorum_queue" => json!(self.rabbit_quorum_queue),
            "rabbit_transient_quorum_queue" => json!(self.rabbit_transient_quorum_queue),
            "rabbit_quorum_delivery_limit" => json!(self.rabbit_quorum_delivery_limit),
            "rabbit_quorum_max_memory_length" => json!(self.rabbit_quorum_max_memory_length),
            "rabbit_quorum_max_memory_bytes" => json!(self.rabbit_quorum_max_memory_bytes),
            "rabbit_transient_queues_ttl" => json!(self.rabbit_transient_queues_ttl),
            "rabbit_qos_prefetch_count" => json!(self.rabbit_qos_prefetch_count),
            "heartbeat_timeout_threshold" => json!(self.heartbeat_timeout_threshold),
            "heartbeat_rate" => json!(self.heartbeat_rate),
            "direct_mandatory_flag" => json!(self.direct_mandatory_flag),
            "enable_cancel_on_failover" => json!(self.enable_cancel_on_failover),
            "use_queue_manager" => json!(self.use_queue_manager),
            "hostname" => json!(self.hostname),
            "processname" => json!(self.processname),
            "rabbit_stream_fanout" => json!(self.rabbit_stream_fanout),
            "amqp_durable_queues" => json!(self.amqp_durable_queues),
            "amqp_auto_delete" => json!(self.amqp_auto_delete),
            _ => return None,
        };
        Some(v)
    }

    /// These options with the transport URL's query parameters applied over them, as oslo's
    /// `ConfigOptsProxy` (oslo_messaging/_drivers/common.py) lets `?ssl=1&…` override the
    /// group. Errors: [`ConfigError::Option`] for a parameter that is not an option of the group
    /// (oslo: `NoSuchOptError`) or whose value its type refuses.
    pub fn with_url_query(&self, url: &TransportUrl) -> Result<RabbitOptions, ConfigError> {
        let mut out = self.clone();
        for (k, v) in &url.query {
            out.set(k, v)?;
        }
        Ok(out)
    }

    /// Whether the exchange is declared durable: `amqp_durable_queues or rabbit_quorum_queue`
    /// (oslo's `Connection.durable`).
    pub fn durable(&self) -> bool {
        self.amqp_durable_queues || self.rabbit_quorum_queue
    }

    /// Refuses what oslo.messaging refuses at start-up and what this client cannot honour,
    /// naming the option: a bound oslo.config enforces (for fields set directly);
    /// `rpc_conn_pool_size` < `conn_pool_min_size` (`RabbitDriver.__init__`);
    /// `rabbit_stream_fanout` without `rabbit_qos_prefetch_count` > 0 or without
    /// `rabbit_transient_quorum_queue` (`Connection.__init__`); `kombu_compression` set;
    /// `heartbeat_timeout_threshold` over 65535; with `ssl`: an `ssl_version` other than
    /// `sslv23`/`tlsv1_2` (any case), and a CA, certificate or key file that cannot be read or
    /// holds no certificate/key. Errors: [`ConfigError::Option`], [`ConfigError::TlsFile`].
    pub fn check(&self) -> Result<(), ConfigError> {
        let int =
            |o: &'static str, n: i64, min: i64| check_range(o, n as f64, Some(min as f64), None);
        int("rpc_conn_pool_size", self.rpc_conn_pool_size, 1)?;
        int("rabbit_retry_interval", self.rabbit_retry_interval, 1)?;
        int("rabbit_retry_backoff", self.rabbit_retry_backoff, 0)?;
        int("rabbit_interval_max", self.rabbit_interval_max, 1)?;
        int(
            "rabbit_transient_queues_ttl",
            self.rabbit_transient_queues_ttl,
            0,
        )?;
        for (o, v, max) in [
            (
                "kombu_reconnect_delay",
                self.kombu_reconnect_delay,
                Some(4.5),
            ),
            ("kombu_reconnect_splay", self.kombu_reconnect_splay, None),
        ] {
            if !v.is_finite() {
                return Err(bad(o, format!("{v} is not a finite number")));
            }
            check_range(o, v, Some(0.0), max)?;
        }
        if self.rpc_conn_pool_size < self.conn_pool_min_size {
            return Err(bad(
                "rpc_conn_pool_size",
                format!(
                    "{} must be greater than or equal to conn_pool_min_size {} (as oslo's \
                     RabbitDriver requires)",
                    self.rpc_conn_pool_size, self.conn_pool_min_size
                ),
            ));
        }
        if self.rabbit_stream_fanout && self.rabbit_qos_prefetch_count <= 0 {
            return Err(bad(
                "rabbit_stream_fanout",
                "needs rabbit_qos_prefetch_count greater than 0 (as oslo.messaging)".into(),
            ));
        }
        if self.rabbit_stream_fanout && !self.rabbit_transient_quorum_queue {
            return Err(bad(
                "rabbit_stream_fanout",
                "needs rabbit_transient_quorum_queue = true (as oslo.messaging)".into(),
            ));
        }
        if let Some(c) = &self.kombu_compression {
            return Err(bad(
                "kombu_compression",
                format!("{c:?}: compressed message bodies are not implemented (unset the option)"),
            ));
        }
        if self.heartbeat_timeout_threshold > i64::from(u16::MAX) {
            return Err(bad(
                "heartbeat_timeout_threshold",
                format!(
                    "{} exceeds AMQP's 16-bit heartbeat (65535 s)",
                    self.heartbeat_timeout_threshold
                ),
            ));
        }
        if self.ssl {
            crate::tls::check_files(&self.tls_settings()?)?;
        }
        Ok(())
    }

    /// The `ssl_*` options as the TLS module takes them, `ssl_version` validated.
    pub(crate) fn tls_settings(&self) -> Result<TlsSettings<'_>, ConfigError> {
        Ok(TlsSettings {
            ca_file: &self.ssl_ca_file,
            cert_file: &self.ssl_cert_file,
            key_file: &self.ssl_key_file,
            version: self.tls_version()?,
            version_text: &self.ssl_version,
        })
    }

    /// What `ssl_version` selects: rustls' default versions (1.2 and 1.3) when empty or
    /// `sslv23`, TLS 1.2 alone for `tlsv1_2`.
    fn tls_version(&self) -> Result<TlsVersion, ConfigError> {
        match self.ssl_version.to_ascii_lowercase().as_str() {
            "" => Ok(TlsVersion::Default),
            "sslv23" => Ok(TlsVersion::Negotiated),
            "tlsv1_2" => Ok(TlsVersion::Tls12Only),
            v @ ("tlsv1" | "tlsv1_1") => Err(bad(
                "ssl_version",
                format!("{v}: rustls implements TLS 1.2 and 1.3 only (use tlsv1_2 or sslv23)"),
            )),
            _ => Err(bad(
                "ssl_version",
                format!(
                    "invalid SSL version {:?} (oslo.messaging takes TLSv1, TLSv1_1, TLSv1_2, \
                     SSLv23; this client TLSv1_2 and SSLv23)",
                    self.ssl_version
                ),
            )),
        }
    }
}

impl fmt::Display for FailoverStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for LoginMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
#[path = "options_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "options_pin_tests.rs"]
mod pin_tests;
