//! The crate's two error types: [`ConfigError`] (a transport URL or an option we refuse, found
//! before anything is sent) and [`CastError`] (one cast that did not end with RabbitMQ's
//! publisher-confirm ack).

use std::sync::Arc;
use std::time::Duration;

use tokio_rustls::rustls;

/// A `transport_url` or an `[oslo_messaging_rabbit]` option this client refuses, with the
/// reason. Returned by [`crate::TransportUrl::parse`], [`crate::RabbitOptions::check`],
/// [`crate::RabbitOptions::with_url_query`] and [`crate::RpcClient::new`]; oslo.messaging
/// raises `InvalidTransportURL`, `DriverLoadFailure`, oslo.config's `ConfigFileValueError` or
/// a `RuntimeError` for most of the same inputs.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The transport URL cannot be used (`url` is the URL with its passwords masked).
    #[error("transport_url {url}: {reason}")]
    Url {
        /// The URL as given, every password replaced by `****`.
        url: String,
        /// Why it is refused.
        reason: String,
    },
    /// An option's value is refused (`option` is its name in `[oslo_messaging_rabbit]`, or a
    /// URL query parameter of the same name).
    #[error("[oslo_messaging_rabbit] {option}: {reason}")]
    Option {
        /// The option's name, e.g. `ssl_ca_file`.
        option: &'static str,
        /// Why it is refused.
        reason: String,
    },
    /// A TLS file named by an `ssl_*` option cannot be read or parsed.
    #[error("[oslo_messaging_rabbit] {option} {path}: {}", tls_file_text(.reason, .source.as_ref()))]
    TlsFile {
        /// The option naming the file (`ssl_ca_file`, `ssl_cert_file`, `ssl_key_file`).
        option: &'static str,
        /// The file's path as configured.
        path: String,
        /// What is wrong with it: `cannot be read`, `holds no PEM certificate`, `bad PEM
        /// certificate`, `no usable PEM private key`, `bad CA`; empty where the cause says it
        /// all (webpki refusing the CA store).
        reason: &'static str,
        /// The error behind it, when there is one. Its text follows `reason` after `: `
        /// (alone when `reason` is empty), except an I/O error's, which the text leaves out
        /// (`cannot be read`).
        #[source]
        source: Option<TlsFileCause>,
    },
    /// rustls refused the TLS configuration built from the `ssl_*` options.
    #[error("[oslo_messaging_rabbit] ssl: {context}")]
    Tls {
        /// What was being built.
        context: String,
        /// rustls' error.
        #[source]
        source: tokio_rustls::rustls::Error,
    },
}

/// The error behind a [`ConfigError::TlsFile`]; its text and source are the inner error's.
#[derive(Debug, thiserror::Error)]
pub enum TlsFileCause {
    /// Reading the file.
    #[error(transparent)]
    Io(std::io::Error),
    /// Parsing a certificate or private key out of its PEM.
    #[error(transparent)]
    Pem(rustls::pki_types::pem::Error),
    /// rustls refusing a CA certificate.
    #[error(transparent)]
    Rustls(rustls::Error),
    /// webpki refusing to build a verifier on the file's CA certificates.
    #[error(transparent)]
    Verifier(rustls::client::VerifierBuilderError),
}

/// [`ConfigError::TlsFile`]'s text after the path, as its `reason` and `source` say.
fn tls_file_text(reason: &str, source: Option<&TlsFileCause>) -> String {
    match source {
        None | Some(TlsFileCause::Io(_)) => reason.to_owned(),
        Some(c) if reason.is_empty() => c.to_string(),
        Some(c) => format!("{reason}: {c}"),
    }
}

/// A connection attempt of the background connector that failed; the text is `<host:port>:
/// <why>`, as in the connector's `AMQP server on … is unreachable` log line.
#[derive(Debug, thiserror::Error)]
#[error("{endpoint}: {cause}")]
pub struct DialError {
    /// The endpoint dialled, as [`crate::Endpoint`] shows it (`host:port`).
    pub endpoint: String,
    /// Why it failed.
    #[source]
    pub cause: DialCause,
}

/// Why a connection attempt failed ([`DialError`]).
#[derive(Debug, thiserror::Error)]
pub enum DialCause {
    /// The `ssl_*` options did not make a TLS configuration.
    #[error(transparent)]
    Tls(ConfigError),
    /// lapin refused: its runtime, TCP, TLS (e.g. a certificate the CA did not sign) or the
    /// AMQP handshake (e.g. credentials refused).
    #[error(transparent)]
    Amqp(lapin::Error),
    /// No AMQP handshake within the bound (`timed out after <bound>`).
    #[error("timed out after {0:?}")]
    Timeout(Duration),
}

/// [`CastError::Unavailable`]'s text after the wait: the last failure, else that no attempt
/// has finished.
fn unavailable_text(last: Option<&DialError>) -> String {
    last.map_or_else(
        || "no connection attempt finished yet".to_owned(),
        ToString::to_string,
    )
}

/// Why one [`crate::RpcClient::cast`] did not end with RabbitMQ confirming the message. The
/// message may or may not have been delivered after [`CastError::Unavailable`] or
/// [`CastError::Timeout`] (a confirm lost with the connection); never after the other
/// variants except [`CastError::Connection`].
#[derive(Debug, thiserror::Error)]
pub enum CastError {
    /// No connection to any RabbitMQ host could be had within the cast's bound (`waited`).
    /// `last_error` is the last connection attempt's failure, when there was one.
    #[error("RabbitMQ unavailable after {waited:?}: {}", unavailable_text(.last_error.as_deref()))]
    Unavailable {
        /// How long the cast waited for a connection.
        waited: Duration,
        /// The last connection failure logged by the background connector (shared by every
        /// cast that finds no connection until the next attempt).
        #[source]
        last_error: Option<Arc<DialError>>,
    },
    /// Connected, but the exchange declaration, the publish or its confirm did not finish
    /// within the cast's bound. The message may still reach the queue.
    #[error("cast to exchange {exchange:?} not confirmed within {bound:?} ({stage})")]
    Timeout {
        /// The exchange of the cast (`[DEFAULT] control_exchange`, Octavia's `octavia`).
        exchange: String,
        /// The client's bound.
        bound: Duration,
        /// What was under way: `channel`, `declare` or `confirm`.
        stage: &'static str,
    },
    /// RabbitMQ refused to declare the exchange (e.g. 406 PRECONDITION_FAILED for flags other
    /// than an existing exchange's, 403 ACCESS_REFUSED), as oslo.messaging's
    /// `Connection._publish` gets from `exchange.declare()`.
    #[error("declaring exchange {exchange:?} failed")]
    Declare {
        /// The exchange of the cast (`[DEFAULT] control_exchange`, Octavia's `octavia`).
        exchange: String,
        /// lapin's error (carrying the AMQP reply code and text).
        #[source]
        source: lapin::Error,
    },
    /// The publish or its confirm failed on the channel or the connection (closed under us,
    /// channel error, I/O error). The message may or may not have been routed.
    #[error("publishing to exchange {exchange:?} failed")]
    Publish {
        /// The exchange of the cast (`[DEFAULT] control_exchange`, Octavia's `octavia`).
        exchange: String,
        /// lapin's error.
        #[source]
        source: lapin::Error,
    },
    /// RabbitMQ answered the publish with basic.nack: it did not take responsibility for the
    /// message (internal error of the queue; see RabbitMQ's publisher-confirms docs).
    #[error("RabbitMQ nacked the cast to exchange {exchange:?} routing key {routing_key:?}")]
    Nacked {
        /// The exchange of the cast (`[DEFAULT] control_exchange`, Octavia's `octavia`).
        exchange: String,
        /// The routing key (the topic, `octavia_prov`, or `<topic>.<server>`).
        routing_key: String,
    },
    /// RabbitMQ returned the message (basic.return: unroutable with `mandatory`): no queue is
    /// bound for the routing key (no worker consumes the topic now). Casts are published with
    /// `mandatory`, unlike oslo.messaging's `topic_send`, whose unroutable casts RabbitMQ acks
    /// and drops: a cast nobody can receive is refused instead of lost.
    #[error("RabbitMQ returned the cast to exchange {exchange:?}: {reply_code} {reply_text}")]
    Returned {
        /// The exchange of the cast (`[DEFAULT] control_exchange`, Octavia's `octavia`).
        exchange: String,
        /// AMQP reply code (312 NO_ROUTE, 313 NO_CONSUMERS).
        reply_code: u16,
        /// AMQP reply text.
        reply_text: String,
    },
    /// Opening a channel or enabling publisher confirms on it failed.
    #[error("opening a confirm-mode channel failed")]
    Connection {
        /// lapin's error.
        #[source]
        source: lapin::Error,
    },
    /// The client's background connection task is gone (the runtime shut down).
    #[error("the RpcClient's connection task has stopped")]
    Stopped,
}
