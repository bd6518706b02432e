//! `[oslo_messaging_rabbit]`: the 37 options oslo.messaging 18.2.0 registers for its rabbit
//! driver, each declared once here (name, oslo type with its bounds, registered default,
//! deprecated names, what Keel does with it), and the value types that convert their texts as
//! oslo.config's `types.Boolean`, `types.Integer` and `types.Float` do, with the refusal texts
//! the `oslo-messaging` crate reports. `oslo-messaging`'s `RabbitOptions` reads its fields
//! from these constants; the catalog's rows are theirs.

use crate::catalog::OptValue;

/// `[oslo_messaging_rabbit]`: every option, typed (their rows of
/// [`OPTS`](crate::catalog::OPTS), in its registration order: `amqp_opts` first).
///
/// ```
/// use compat::catalog::oslo_messaging_rabbit::{KOMBU_RECONNECT_DELAY, RPC_CONN_POOL_SIZE, SSL};
///
/// assert_eq!(RPC_CONN_POOL_SIZE.value(None).map(|n| n.0), Ok(30));
/// let why = "0 is less than the minimum 1".to_string();
/// assert_eq!(RPC_CONN_POOL_SIZE.value(Some("0")), Err(("0".to_string(), why)));
/// assert_eq!(SSL.value(Some(" on ")).map(|b| b.0), Ok(true));
/// assert_eq!(KOMBU_RECONNECT_DELAY.value(Some("4.5")).map(|x| x.0), Ok(4.5));
/// ```
pub mod oslo_messaging_rabbit {
    use crate::catalog::{Boolean, Float, Integer, OptionalStr};

    /// Why the options a cast-only client has no use for do not apply.
    const CASTS: &str = "queues, consumers or replies: the API only casts";

    typed! { "oslo_messaging_rabbit" rows;
        /// amqp.py: declare the exchange durable.
        AMQP_DURABLE_QUEUES: Boolean = "amqp_durable_queues" "bool" "False";
        /// amqp.py: declare the exchange auto-delete.
        AMQP_AUTO_DELETE: Boolean = "amqp_auto_delete" "bool" "False";
        /// The connection pool's bound (≥ 1).
        RPC_CONN_POOL_SIZE: Integer<1> = "rpc_conn_pool_size" "int" "30";
        /// The connection pool's expiry floor.
        CONN_POOL_MIN_SIZE: Integer = "conn_pool_min_size" "int" "2";
        /// Idle pooled connections' lifetime (s).
        CONN_POOL_TTL: Integer = "conn_pool_ttl" "int" "1200" na CASTS;
        /// Connect over TLS.
        SSL: Boolean = "ssl" "bool" "False";
        /// The TLS version (empty: negotiated).
        SSL_VERSION: String = "ssl_version" "str" "";
        /// PEM private key file of the client certificate.
        SSL_KEY_FILE: String = "ssl_key_file" "str" "";
        /// PEM client certificate chain file.
        SSL_CERT_FILE: String = "ssl_cert_file" "str" "";
        /// PEM CA bundle file.
        SSL_CA_FILE: String = "ssl_ca_file" "str" "";
        /// Deprecated, no effect.
        SSL_ENFORCE_HOSTNAME_VERIFICATION: Boolean = "ssl_enforce_hostname_verification" "bool" "True" na CASTS;
        /// Deprecated, no effect.
        SSL_ENFORCE_FIPS_MODE: Boolean = "ssl_enforce_fips_mode" "bool" "False" na CASTS;
        /// The wait before reconnecting (s, 0 – 4.5).
        KOMBU_RECONNECT_DELAY: Float<0, 4500> = "kombu_reconnect_delay" "float" "1.0";
        /// The random addition to that wait (s, ≥ 0).
        KOMBU_RECONNECT_SPLAY: Float<0> = "kombu_reconnect_splay" "float" "0.0";
        /// Body compression (unset: none).
        KOMBU_COMPRESSION: OptionalStr = "kombu_compression" "str" "";
        /// How long a server retries a reply (s).
        KOMBU_MISSING_CONSUMER_RETRY_TIMEOUT: Integer = "kombu_missing_consumer_retry_timeout" "int" "60"
            aliases ["kombu_reconnect_timeout"] na CASTS;
        /// `round-robin` or `shuffle` (the choices: `oslo_messaging::FailoverStrategy`).
        KOMBU_FAILOVER_STRATEGY: String = "kombu_failover_strategy" "str" "round-robin";
        /// `PLAIN`, `AMQPLAIN`, `EXTERNAL` or `RABBIT-CR-DEMO` (`oslo_messaging::LoginMethod`).
        RABBIT_LOGIN_METHOD: String = "rabbit_login_method" "str" "AMQPLAIN";
        /// The first wait between connection rounds (s, ≥ 1).
        RABBIT_RETRY_INTERVAL: Integer<1> = "rabbit_retry_interval" "int" "1";
        /// The wait's growth per round (s, ≥ 0).
        RABBIT_RETRY_BACKOFF: Integer<0> = "rabbit_retry_backoff" "int" "2";
        /// The longest wait (s, ≥ 1).
        RABBIT_INTERVAL_MAX: Integer<1> = "rabbit_interval_max" "int" "30";
        /// `x-ha-policy` on declared queues.
        RABBIT_HA_QUEUES: Boolean = "rabbit_ha_queues" "bool" "False" na CASTS;
        /// Quorum queues (also a durable exchange).
        RABBIT_QUORUM_QUEUE: Boolean = "rabbit_quorum_queue" "bool" "False";
        /// Quorum reply and fanout queues.
        RABBIT_TRANSIENT_QUORUM_QUEUE: Boolean = "rabbit_transient_quorum_queue" "bool" "False";
        /// A quorum queue argument.
        RABBIT_QUORUM_DELIVERY_LIMIT: Integer = "rabbit_quorum_delivery_limit" "int" "0" na CASTS;
        /// A quorum queue argument.
        RABBIT_QUORUM_MAX_MEMORY_LENGTH: Integer = "rabbit_quorum_max_memory_length" "int" "0" na CASTS;
        /// A quorum queue argument.
        RABBIT_QUORUM_MAX_MEMORY_BYTES: Integer = "rabbit_quorum_max_memory_bytes" "int" "0" na CASTS;
        /// Reply and fanout queue expiry (s, ≥ 0).
        RABBIT_TRANSIENT_QUEUES_TTL: Integer<0> = "rabbit_transient_queues_ttl" "int" "1800" na CASTS;
        /// Consumer prefetch.
        RABBIT_QOS_PREFETCH_COUNT: Integer = "rabbit_qos_prefetch_count" "int" "0";
        /// The AMQP heartbeat asked of RabbitMQ (s).
        HEARTBEAT_TIMEOUT_THRESHOLD: Integer = "heartbeat_timeout_threshold" "int" "60";
        /// Heartbeat checks per threshold.
        HEARTBEAT_RATE: Integer = "heartbeat_rate" "int" "3" na CASTS;
        /// Deprecated: replies' mandatory flag.
        DIRECT_MANDATORY_FLAG: Boolean = "direct_mandatory_flag" "bool" "True" na CASTS;
        /// A consumer argument.
        ENABLE_CANCEL_ON_FAILOVER: Boolean = "enable_cancel_on_failover" "bool" "False" na CASTS;
        /// Stable queue names for consumers.
        USE_QUEUE_MANAGER: Boolean = "use_queue_manager" "bool" "False" na CASTS;
        /// Queue manager naming; registered as the machine's host name (the generator's
        /// machine's here), so unset `oslo-messaging` reads the host name instead.
        HOSTNAME: String = "hostname" "str" "vm" na CASTS;
        /// Queue manager naming; registered as the program's base name (the generator's here),
        /// so unset `oslo-messaging` reads the program's instead.
        PROCESSNAME: String = "processname" "str" "oslo-config-generator" na CASTS;
        /// Stream fanout queues.
        RABBIT_STREAM_FANOUT: Boolean = "rabbit_stream_fanout" "bool" "False";
    }
}

/// A value type whose bounds can be checked on a value held outside a text (a field set
/// directly), with the texts of its [`OptValue::parse`](crate::catalog::OptValue::parse).
pub trait Bounded {
    /// The value held (`i64`, `f64`).
    type Raw;
    /// `Ok` when `raw` is within the bounds. Errors: `<n> is less than the minimum <min>`,
    /// `<n> is greater than the maximum <max>` (`f64` display: `1`, `4.5`), for a float also
    /// `<x> is not a finite number`.
    fn within(raw: Self::Raw) -> Result<(), String>;
}

/// `BoolOpt` as oslo.config's `types.Boolean`: `true/1/on/yes`, `false/0/off/no`, any case,
/// surrounding whitespace ignored. Refused: `"<text>" is not a boolean`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Boolean(pub bool);

impl OptValue for Boolean {
    fn parse(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "true" | "1" | "on" | "yes" => Ok(Boolean(true)),
            "false" | "0" | "off" | "no" => Ok(Boolean(false)),
            _ => Err(format!("{text:?} is not a boolean")),
        }
    }
}

/// `IntOpt(min=MIN, max=MAX)` as oslo.config's `types.Integer` (Python's `int()`: surrounding
/// whitespace and `_` ignored, a sign allowed), then its bounds; `i64::MIN` / `i64::MAX`: no
/// bound. Refused: `"<text>" is not an integer` and [`Bounded::within`]'s texts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Integer<const MIN: i64 = { i64::MIN }, const MAX: i64 = { i64::MAX }>(pub i64);

impl<const MIN: i64, const MAX: i64> Bounded for Integer<MIN, MAX> {
    type Raw = i64;
    #[allow(
        clippy::cast_precision_loss,
        reason = "the texts show f64s, as oslo's floats"
    )]
    fn within(n: i64) -> Result<(), String> {
        range(
            n as f64,
            (MIN != i64::MIN).then_some(MIN as f64),
            (MAX != i64::MAX).then_some(MAX as f64),
        )
    }
}

impl<const MIN: i64, const MAX: i64> OptValue for Integer<MIN, MAX> {
    fn parse(text: &str) -> Result<Self, String> {
        let n: i64 = text
            .trim()
            .replace('_', "")
            .parse()
            .map_err(|_| format!("{text:?} is not an integer"))?;
        Self::within(n)?;
        Ok(Integer(n))
    }
}

/// `FloatOpt(min, max)` as oslo.config's `types.Float`, bounds given in thousandths (const
/// generics take no `f64`: `Float<0, 4500>` is 0 – 4.5); `i64::MIN` / `i64::MAX`: no bound.
/// Refused: `"<text>" is not a number`, `"<text>" is not a finite number` and
/// [`Bounded::within`]'s texts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Float<const MIN_MILLI: i64 = { i64::MIN }, const MAX_MILLI: i64 = { i64::MAX }>(pub f64);

impl<const MIN_MILLI: i64, const MAX_MILLI: i64> Bounded for Float<MIN_MILLI, MAX_MILLI> {
    type Raw = f64;
    #[allow(
        clippy::cast_precision_loss,
        reason = "bounds in thousandths, far below 2^53"
    )]
    fn within(x: f64) -> Result<(), String> {
        if !x.is_finite() {
            return Err(format!("{x} is not a finite number"));
        }
        range(
            x,
            (MIN_MILLI != i64::MIN).then_some(MIN_MILLI as f64 / 1000.0),
            (MAX_MILLI != i64::MAX).then_some(MAX_MILLI as f64 / 1000.0),
        )
    }
}

impl<const MIN_MILLI: i64, const MAX_MILLI: i64> OptValue for Float<MIN_MILLI, MAX_MILLI> {
    fn parse(text: &str) -> Result<Self, String> {
        let x: f64 = text
            .trim()
            .parse()
            .map_err(|_| format!("{text:?} is not a number"))?;
        if !x.is_finite() {
            return Err(format!("{text:?} is not a finite number"));
        }
        Self::within(x)?;
        Ok(Float(x))
    }
}

/// `StrOpt` registered without a default (`None`): unset it is `None`, set (even empty) its
/// text as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionalStr(pub Option<String>);

impl OptValue for OptionalStr {
    fn parse(text: &str) -> Result<Self, String> {
        Ok(OptionalStr(Some(text.to_string())))
    }
    fn unset(default: &str) -> Result<Self, String> {
        match default {
            "" => Ok(OptionalStr(None)),
            d => Self::parse(d),
        }
    }
}

/// `n` against the bounds, the texts `<n> is less than the minimum <min>` and `<n> is greater
/// than the maximum <max>`.
fn range(n: f64, min: Option<f64>, max: Option<f64>) -> Result<(), String> {
    if let Some(m) = min
        && n < m
    {
        return Err(format!("{n} is less than the minimum {m}"));
    }
    if let Some(m) = max
        && n > m
    {
        return Err(format!("{n} is greater than the maximum {m}"));
    }
    Ok(())
}
