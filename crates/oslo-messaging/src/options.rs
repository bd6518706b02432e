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

use compat::catalog::oslo_messaging_rabbit as r;
use compat::catalog::{Boolean, Bounded, Float, Integer, OptValue, OptionalStr, Typed};
use serde_json::{Value, json};

use crate::error::ConfigError;
use crate::tls::{TlsSettings, TlsVersion};
use crate::url::TransportUrl;

/// [`kombu_failover_strategy`](r::KOMBU_FAILOVER_STRATEGY): how the next host is chosen after
/// a connection failure, as kombu's `Connection.failover_strategies`. A [`RabbitOptions`]'s
/// default is the option's; [`Default`] only stands in for a registered default that would
/// not convert.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FailoverStrategy {
    /// `round-robin`: the next host in (shuffled) URL order, cycling.
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

/// [`rabbit_login_method`](r::RABBIT_LOGIN_METHOD): the SASL mechanism offered to RabbitMQ.
/// A [`RabbitOptions`]'s default is the option's; [`Default`] only stands in for a registered
/// default that would not convert.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LoginMethod {
    /// `AMQPLAIN`: user and password in an AMQP field table.
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
/// ([`Default`]). Each field's option (name, oslo type and bounds, registered default,
/// deprecated name) is its constant of `compat::catalog::oslo_messaging_rabbit`, the field's
/// name upper-cased. Integer options are `i64` and floats `f64` so that every value oslo.config
/// accepts can be held; [`RabbitOptions::set`] parses a value as oslo.config does and
/// [`RabbitOptions::check`] refuses what the client cannot honour. Durations are seconds, as
/// in the option.
#[derive(Debug, Clone, PartialEq)]
pub struct RabbitOptions {
    /// [`rpc_conn_pool_size`](r::RPC_CONN_POOL_SIZE): oslo's connection pool bound. Not applicable: the
    /// client keeps one connection for all casts; only checked against `conn_pool_min_size`.
    pub rpc_conn_pool_size: i64,
    /// [`conn_pool_min_size`](r::CONN_POOL_MIN_SIZE): the pool's expiry floor. Not applicable (see above).
    pub conn_pool_min_size: i64,
    /// [`conn_pool_ttl`](r::CONN_POOL_TTL) (s): idle pooled connections' lifetime. Not applicable.
    pub conn_pool_ttl: i64,
    /// [`ssl`](r::SSL): connect over TLS (rustls, TLS 1.2/1.3). The port stays the URL's
    /// (default 5672), as oslo's.
    pub ssl: bool,
    /// [`ssl_version`](r::SSL_VERSION): with `ssl`, `sslv23` (negotiate: TLS 1.2 or 1.3) or `tlsv1_2`
    /// (TLS 1.2 only), case-insensitive; `tlsv1` and `tlsv1_1` are refused (rustls has neither).
    /// Set without `ssl_ca_file`, oslo (Python's `SSLContext(PROTOCOL_…)`) verifies nothing
    /// of the broker's certificate, and neither does this client (with a warning).
    pub ssl_version: String,
    /// [`ssl_key_file`](r::SSL_KEY_FILE): PEM private key for `ssl_cert_file`; empty: the key is read from
    /// `ssl_cert_file` (Python's `load_cert_chain`). Without `ssl_cert_file` it is ignored, as
    /// by oslo.
    pub ssl_key_file: String,
    /// [`ssl_cert_file`](r::SSL_CERT_FILE): PEM client certificate chain presented to RabbitMQ.
    pub ssl_cert_file: String,
    /// [`ssl_ca_file`](r::SSL_CA_FILE): PEM CA bundle; set, the broker's chain must lead to one of these
    /// and its certificate must name the host being dialled. Empty: the system CAs (OpenSSL's
    /// default paths, through rustls-native-certs) verify the chain and the name is not
    /// checked, as oslo's `ssl=True` (unless `ssl_version` is set, see there).
    pub ssl_ca_file: String,
    /// [`ssl_enforce_hostname_verification`](r::SSL_ENFORCE_HOSTNAME_VERIFICATION) (deprecated): no effect, in oslo either.
    pub ssl_enforce_hostname_verification: bool,
    /// [`ssl_enforce_fips_mode`](r::SSL_ENFORCE_FIPS_MODE) (deprecated): no effect, in oslo either.
    pub ssl_enforce_fips_mode: bool,
    /// [`kombu_reconnect_delay`](r::KOMBU_RECONNECT_DELAY) (s): after a connection is lost, the wait before
    /// the first reconnection attempt (oslo's `Connection.ensure` error callback).
    pub kombu_reconnect_delay: f64,
    /// [`kombu_reconnect_splay`](r::KOMBU_RECONNECT_SPLAY) (s): a random 0 – splay seconds added to that wait.
    pub kombu_reconnect_splay: f64,
    /// [`kombu_compression`](r::KOMBU_COMPRESSION): gzip/bz2 bodies. Refused by [`RabbitOptions::check`] when
    /// set: Octavia's worker accepts it but this client does not compress.
    pub kombu_compression: Option<String>,
    /// [`kombu_missing_consumer_retry_timeout`](r::KOMBU_MISSING_CONSUMER_RETRY_TIMEOUT) (s; old name `kombu_reconnect_timeout`):
    /// how long a server retries a reply. Not applicable (casts have no reply).
    pub kombu_missing_consumer_retry_timeout: i64,
    /// [`kombu_failover_strategy`](r::KOMBU_FAILOVER_STRATEGY): see [`FailoverStrategy`].
    pub kombu_failover_strategy: FailoverStrategy,
    /// [`rabbit_login_method`](r::RABBIT_LOGIN_METHOD): see [`LoginMethod`].
    pub rabbit_login_method: LoginMethod,
    /// [`rabbit_retry_interval`](r::RABBIT_RETRY_INTERVAL) (s): first wait between connection attempts, once every
    /// host has failed (kombu's `interval_start`).
    pub rabbit_retry_interval: i64,
    /// [`rabbit_retry_backoff`](r::RABBIT_RETRY_BACKOFF) (s): added to the wait after each failed round of hosts
    /// (kombu's `interval_step`).
    pub rabbit_retry_backoff: i64,
    /// [`rabbit_interval_max`](r::RABBIT_INTERVAL_MAX) (s): the wait's growth stops past this (kombu's
    /// `fxrange(start, max + start, step)`: with the defaults the waits are 1, 3, … 29, 31, 31…).
    pub rabbit_interval_max: i64,
    /// [`rabbit_ha_queues`](r::RABBIT_HA_QUEUES): `x-ha-policy` on declared queues. Not applicable (no queue).
    pub rabbit_ha_queues: bool,
    /// [`rabbit_quorum_queue`](r::RABBIT_QUORUM_QUEUE): quorum queues; also makes the exchange durable (oslo's
    /// `Connection.durable`), which a cast declares.
    pub rabbit_quorum_queue: bool,
    /// [`rabbit_transient_quorum_queue`](r::RABBIT_TRANSIENT_QUORUM_QUEUE): reply/fanout queues. Not applicable, only
    /// checked with `rabbit_stream_fanout`.
    pub rabbit_transient_quorum_queue: bool,
    /// [`rabbit_quorum_delivery_limit`](r::RABBIT_QUORUM_DELIVERY_LIMIT): quorum queue argument. Not applicable.
    pub rabbit_quorum_delivery_limit: i64,
    /// [`rabbit_quorum_max_memory_length`](r::RABBIT_QUORUM_MAX_MEMORY_LENGTH): quorum queue argument. Not applicable.
    pub rabbit_quorum_max_memory_length: i64,
    /// [`rabbit_quorum_max_memory_bytes`](r::RABBIT_QUORUM_MAX_MEMORY_BYTES): quorum queue argument. Not applicable.
    pub rabbit_quorum_max_memory_bytes: i64,
    /// [`rabbit_transient_queues_ttl`](r::RABBIT_TRANSIENT_QUEUES_TTL) (s): reply/fanout queue expiry. Not applicable.
    pub rabbit_transient_queues_ttl: i64,
    /// [`rabbit_qos_prefetch_count`](r::RABBIT_QOS_PREFETCH_COUNT): consumer prefetch. Not applicable, only checked with
    /// `rabbit_stream_fanout`.
    pub rabbit_qos_prefetch_count: i64,
    /// [`heartbeat_timeout_threshold`](r::HEARTBEAT_TIMEOUT_THRESHOLD) (s): the AMQP heartbeat asked of RabbitMQ (the lower of
    /// it and the server's is used). ≤ 0 asks for none, but lapin then follows the server's
    /// value where py-amqp would disable heartbeats. At most 65535.
    pub heartbeat_timeout_threshold: i64,
    /// [`heartbeat_rate`](r::HEARTBEAT_RATE): how often per threshold oslo's thread checks heartbeats. Not
    /// applicable: lapin sends and checks heartbeats on its own schedule.
    pub heartbeat_rate: i64,
    /// [`direct_mandatory_flag`](r::DIRECT_MANDATORY_FLAG) (deprecated): replies' mandatory flag. Not applicable.
    pub direct_mandatory_flag: bool,
    /// [`enable_cancel_on_failover`](r::ENABLE_CANCEL_ON_FAILOVER): consumer argument. Not applicable.
    pub enable_cancel_on_failover: bool,
    /// [`use_queue_manager`](r::USE_QUEUE_MANAGER): stable queue names for consumers. Not applicable.
    pub use_queue_manager: bool,
    /// [`hostname`](r::HOSTNAME) (unset: the machine's host name): queue manager naming. Not applicable.
    pub hostname: String,
    /// [`processname`](r::PROCESSNAME) (unset: the program's base name): queue manager naming. Not applicable.
    pub processname: String,
    /// [`rabbit_stream_fanout`](r::RABBIT_STREAM_FANOUT): stream fanout queues. Not applicable, but its
    /// start-up checks are made.
    pub rabbit_stream_fanout: bool,
    /// [`amqp_durable_queues`](r::AMQP_DURABLE_QUEUES): declare the exchange durable.
    pub amqp_durable_queues: bool,
    /// [`amqp_auto_delete`](r::AMQP_AUTO_DELETE): declare the exchange auto-delete.
    pub amqp_auto_delete: bool,
}

/// The fields and their options (by catalog constant), in oslo's registration order
/// (`rabbit_opts`, then `amqp_opts`); an `= expr` is a default computed at run time instead of
/// the registered one. [`OPTION_NAMES`], [`Default`] and the dispatch of
/// [`RabbitOptions::set`] and [`RabbitOptions::get`] are made from it, so that each option's
/// name, type, bounds and default are the catalog's, written once there.
macro_rules! fields {
    (@default $c:ident) => { default_of(&r::$c) };
    (@default $c:ident $default:expr) => { $default };
    ($($field:ident: $c:ident $(= $default:expr)?;)*) => {
        /// The names of the 37 options, in oslo's registration order (the catalog's
        /// constants' names).
        pub const OPTION_NAMES: [&str; 37] = [$(r::$c.opt.name),*];

        impl Default for RabbitOptions {
            fn default() -> Self {
                RabbitOptions { $($field: fields!(@default $c $($default)?),)* }
            }
        }

        impl RabbitOptions {
            /// Sets the field of option `o` (its own name) from `text`, read as its catalog
            /// constant's type. `Ok(false)`: no field has that option. Errors:
            /// [`ConfigError::Option`] with the type's refusal.
            fn set_field(&mut self, o: &str, text: &str) -> Result<bool, ConfigError> {
                $(if o == r::$c.opt.name {
                    self.$field = convert(&r::$c, text)?;
                    return Ok(true);
                })*
                Ok(false)
            }

            /// The field of option `o` (its own name) as JSON; `None`: no field has it.
            fn get_field(&self, o: &str) -> Option<Value> {
                $(if o == r::$c.opt.name {
                    return Some(self.$field.json());
                })*
                None
            }
        }
    };
}

fields! {
    rpc_conn_pool_size: RPC_CONN_POOL_SIZE;
    conn_pool_min_size: CONN_POOL_MIN_SIZE;
    conn_pool_ttl: CONN_POOL_TTL;
    ssl: SSL;
    ssl_version: SSL_VERSION;
    ssl_key_file: SSL_KEY_FILE;
    ssl_cert_file: SSL_CERT_FILE;
    ssl_ca_file: SSL_CA_FILE;
    ssl_enforce_hostname_verification: SSL_ENFORCE_HOSTNAME_VERIFICATION;
    ssl_enforce_fips_mode: SSL_ENFORCE_FIPS_MODE;
    kombu_reconnect_delay: KOMBU_RECONNECT_DELAY;
    kombu_reconnect_splay: KOMBU_RECONNECT_SPLAY;
    kombu_compression: KOMBU_COMPRESSION;
    kombu_missing_consumer_retry_timeout: KOMBU_MISSING_CONSUMER_RETRY_TIMEOUT;
    kombu_failover_strategy: KOMBU_FAILOVER_STRATEGY;
    rabbit_login_method: RABBIT_LOGIN_METHOD;
    rabbit_retry_interval: RABBIT_RETRY_INTERVAL;
    rabbit_retry_backoff: RABBIT_RETRY_BACKOFF;
    rabbit_interval_max: RABBIT_INTERVAL_MAX;
    rabbit_ha_queues: RABBIT_HA_QUEUES;
    rabbit_quorum_queue: RABBIT_QUORUM_QUEUE;
    rabbit_transient_quorum_queue: RABBIT_TRANSIENT_QUORUM_QUEUE;
    rabbit_quorum_delivery_limit: RABBIT_QUORUM_DELIVERY_LIMIT;
    rabbit_quorum_max_memory_length: RABBIT_QUORUM_MAX_MEMORY_LENGTH;
    rabbit_quorum_max_memory_bytes: RABBIT_QUORUM_MAX_MEMORY_BYTES;
    rabbit_transient_queues_ttl: RABBIT_TRANSIENT_QUEUES_TTL;
    rabbit_qos_prefetch_count: RABBIT_QOS_PREFETCH_COUNT;
    heartbeat_timeout_threshold: HEARTBEAT_TIMEOUT_THRESHOLD;
    heartbeat_rate: HEARTBEAT_RATE;
    direct_mandatory_flag: DIRECT_MANDATORY_FLAG;
    enable_cancel_on_failover: ENABLE_CANCEL_ON_FAILOVER;
    use_queue_manager: USE_QUEUE_MANAGER;
    hostname: HOSTNAME = default_hostname();
    processname: PROCESSNAME = default_processname();
    rabbit_stream_fanout: RABBIT_STREAM_FANOUT;
    amqp_durable_queues: AMQP_DURABLE_QUEUES;
    amqp_auto_delete: AMQP_AUTO_DELETE;
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

/// A field's type, from the value its option's catalog type reads.
trait Field<T>: Sized {
    /// The field's value. Errors: why oslo.config refuses it (a choice not offered).
    fn from_opt(v: T) -> Result<Self, String>;
}

/// A field's value in the JSON shape oslo gives it (numbers, booleans, strings, `null` for an
/// unset string).
trait Json {
    /// The value as oslo holds it.
    fn json(&self) -> Value;
}

macro_rules! json_as_is {
    ($($t:ty),*) => {$(
        impl Json for $t {
            fn json(&self) -> Value {
                json!(self)
            }
        }
    )*};
}
json_as_is!(i64, f64, bool, String, Option<String>);

impl Json for FailoverStrategy {
    fn json(&self) -> Value {
        json!(self.as_str())
    }
}

impl Json for LoginMethod {
    fn json(&self) -> Value {
        json!(self.as_str())
    }
}

impl<const MIN: i64, const MAX: i64> Field<Integer<MIN, MAX>> for i64 {
    fn from_opt(v: Integer<MIN, MAX>) -> Result<Self, String> {
        Ok(v.0)
    }
}

impl<const MIN: i64, const MAX: i64> Field<Float<MIN, MAX>> for f64 {
    fn from_opt(v: Float<MIN, MAX>) -> Result<Self, String> {
        Ok(v.0)
    }
}

impl Field<Boolean> for bool {
    fn from_opt(v: Boolean) -> Result<Self, String> {
        Ok(v.0)
    }
}

impl Field<String> for String {
    fn from_opt(v: String) -> Result<Self, String> {
        Ok(v)
    }
}

impl Field<OptionalStr> for Option<String> {
    fn from_opt(v: OptionalStr) -> Result<Self, String> {
        Ok(v.0)
    }
}

/// The choices `round-robin` and `shuffle`, exact.
impl Field<String> for FailoverStrategy {
    fn from_opt(v: String) -> Result<Self, String> {
        [FailoverStrategy::RoundRobin, FailoverStrategy::Shuffle]
            .into_iter()
            .find(|c| c.as_str() == v)
            .ok_or_else(|| format!("{v:?} is not round-robin or shuffle"))
    }
}

/// The choices `PLAIN`, `AMQPLAIN`, `EXTERNAL` and `RABBIT-CR-DEMO`, exact.
impl Field<String> for LoginMethod {
    fn from_opt(v: String) -> Result<Self, String> {
        [
            LoginMethod::AmqPlain,
            LoginMethod::Plain,
            LoginMethod::External,
            LoginMethod::RabbitCrDemo,
        ]
        .into_iter()
        .find(|c| c.as_str() == v)
        .ok_or_else(|| format!("{v:?} is not PLAIN, AMQPLAIN, EXTERNAL or RABBIT-CR-DEMO"))
    }
}

/// Option `c`'s `text` read as its catalog type, then as the field's. Errors:
/// [`ConfigError::Option`] naming the option, with the refusal.
fn convert<T: OptValue, F: Field<T>>(c: &Typed<T>, text: &str) -> Result<F, ConfigError> {
    c.value(Some(text))
        .map_err(|(_, why)| why)
        .and_then(F::from_opt)
        .map_err(|why| bad(c.opt.name, why))
}

/// Option `c`'s registered default as the field's value. A default that did not convert
/// would be the field type's [`Default`]; every one converts (the tests read each).
fn default_of<T: OptValue, F: Field<T> + Default>(c: &Typed<T>) -> F {
    c.value(None)
        .ok()
        .and_then(|v| F::from_opt(v).ok())
        .unwrap_or_default()
}

/// Option `c`'s bounds on a field's value set directly. Errors: [`ConfigError::Option`]
/// naming the option, with [`Bounded::within`]'s refusal.
fn bounded<T: Bounded>(c: &Typed<T>, raw: T::Raw) -> Result<(), ConfigError> {
    T::within(raw).map_err(|why| bad(c.opt.name, why))
}

fn bad(option: &'static str, reason: String) -> ConfigError {
    ConfigError::Option { option, reason }
}

/// The option's own name (`&'static`, for errors) of `name` or its deprecated alias, as the
/// catalog's `[oslo_messaging_rabbit]` rows list them.
fn canonical(name: &str) -> Option<&'static str> {
    compat::catalog::find(SECTION, name).map(|o| o.name)
}

/// `oslo_messaging_rabbit`, the section of every constant.
const SECTION: &str = r::SSL.opt.section;

impl RabbitOptions {
    /// Whether `name` is an option of the group (or its deprecated alias
    /// `kombu_reconnect_timeout`).
    pub fn is_option(name: &str) -> bool {
        canonical(name).is_some()
    }

    /// Sets option `name` from its text in a config file or URL query, parsed and bounded as
    /// oslo.config's type for it (booleans `true/1/on/yes`/`false/0/off/no`, integers with
    /// their `min`/`max`, choices exact): the type of its constant in
    /// `compat::catalog::oslo_messaging_rabbit`. Errors: [`ConfigError::Option`] for an
    /// unknown name or a value oslo.config would refuse.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), ConfigError> {
        let Some(o) = canonical(name) else {
            return Err(ConfigError::Option {
                option: "transport_url",
                reason: format!(
                    "{name:?} is not an option of [oslo_messaging_rabbit] (oslo.messaging 18.2.0)"
                ),
            });
        };
        if self.set_field(o, value)? {
            Ok(())
        } else {
            Err(bad(o, "option not handled".into()))
        }
    }

    /// The value of option `name` as JSON (`null` for an unset string option), the shape of
    /// oslo's own value; `None` for an unknown name. Used to compare defaults with oslo's.
    pub fn get(&self, name: &str) -> Option<Value> {
        self.get_field(canonical(name)?)
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
        bounded(&r::RPC_CONN_POOL_SIZE, self.rpc_conn_pool_size)?;
        bounded(&r::RABBIT_RETRY_INTERVAL, self.rabbit_retry_interval)?;
        bounded(&r::RABBIT_RETRY_BACKOFF, self.rabbit_retry_backoff)?;
        bounded(&r::RABBIT_INTERVAL_MAX, self.rabbit_interval_max)?;
        bounded(
            &r::RABBIT_TRANSIENT_QUEUES_TTL,
            self.rabbit_transient_queues_ttl,
        )?;
        bounded(&r::KOMBU_RECONNECT_DELAY, self.kombu_reconnect_delay)?;
        bounded(&r::KOMBU_RECONNECT_SPLAY, self.kombu_reconnect_splay)?;
        if self.rpc_conn_pool_size < self.conn_pool_min_size {
            return Err(bad(
                r::RPC_CONN_POOL_SIZE.opt.name,
                format!(
                    "{} must be greater than or equal to conn_pool_min_size {} (as oslo's \
                     RabbitDriver requires)",
                    self.rpc_conn_pool_size, self.conn_pool_min_size
                ),
            ));
        }
        if self.rabbit_stream_fanout && self.rabbit_qos_prefetch_count <= 0 {
            return Err(bad(
                r::RABBIT_STREAM_FANOUT.opt.name,
                "needs rabbit_qos_prefetch_count greater than 0 (as oslo.messaging)".into(),
            ));
        }
        if self.rabbit_stream_fanout && !self.rabbit_transient_quorum_queue {
            return Err(bad(
                r::RABBIT_STREAM_FANOUT.opt.name,
                "needs rabbit_transient_quorum_queue = true (as oslo.messaging)".into(),
            ));
        }
        if let Some(c) = &self.kombu_compression {
            return Err(bad(
                r::KOMBU_COMPRESSION.opt.name,
                format!("{c:?}: compressed message bodies are not implemented (unset the option)"),
            ));
        }
        if self.heartbeat_timeout_threshold > i64::from(u16::MAX) {
            return Err(bad(
                r::HEARTBEAT_TIMEOUT_THRESHOLD.opt.name,
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
                r::SSL_VERSION.opt.name,
                format!("{v}: rustls implements TLS 1.2 and 1.3 only (use tlsv1_2 or sslv23)"),
            )),
            _ => Err(bad(
                r::SSL_VERSION.opt.name,
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
