//! The client's one AMQP connection, kept up by a background task as oslo.messaging's
//! `impl_rabbit.Connection` keeps its kombu connection: dial the current host, on failure
//! switch host and pace retries ([`crate::backoff`]), once connected watch for the connection
//! to go, then wait `kombu_reconnect_delay` and dial again (the same host first).
//!
//! Dialling: TCP (and TLS with `ssl`) bounded by kombu's `connect_timeout` (5 s, which oslo
//! does not change), then lapin's AMQP handshake with `rabbit_login_method`, the heartbeat of
//! `heartbeat_timeout_threshold` and a `connection_name` of oslo's form
//! `<process>:<pid>:<connection uuid>`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use lapin::tcp::{AMQPUriTcpExt, RustlsConnector};
use lapin::uri::{
    AMQPAuthority, AMQPQueryString, AMQPScheme, AMQPUri, AMQPUserInfo, SASLMechanism,
};
use lapin::{Connection, ConnectionProperties, Event};
use tokio::sync::watch;
use tracing::{Instrument, debug, error, info, info_span, warn};

use crate::backoff::{Failover, Intervals, reconnect_delay};
use crate::error::{DialCause, DialError};
use crate::options::{LoginMethod, RabbitOptions};
use crate::session::Session;
use crate::url::Endpoint;

/// kombu's `Connection(connect_timeout=5)`: the bound of one dial (TCP, TLS and AMQP
/// handshake here).
pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// How often the watcher looks at the connection's state besides lapin's events.
const STATUS_POLL: Duration = Duration::from_millis(250);

/// What casts see of the connection.
#[derive(Clone)]
pub(crate) enum State {
    /// No connection yet, or reconnecting.
    Connecting,
    /// Connected: casts publish through this session.
    Connected(Arc<Session>),
}

/// What the background task and the casts share.
pub(crate) struct Shared {
    /// The hosts, shuffled when there are several (oslo's `random.shuffle(url.hosts)`).
    pub(crate) endpoints: Vec<Endpoint>,
    /// The options, URL query applied.
    pub(crate) options: RabbitOptions,
    /// The connection state casts wait on.
    pub(crate) state: watch::Sender<State>,
    /// The last dial failure, for [`crate::CastError::Unavailable`].
    pub(crate) last_error: Mutex<Option<Arc<DialError>>>,
}

impl Shared {
    fn set_last_error(&self, e: Option<Arc<DialError>>) {
        if let Ok(mut g) = self.last_error.lock() {
            *g = e;
        }
    }
}

fn process_name() -> String {
    std::env::args_os()
        .next()
        .and_then(|a| {
            std::path::Path::new(&a)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "keel".into())
}

/// The background task: connects, watches, reconnects, for as long as it is not aborted.
pub(crate) async fn run(shared: Arc<Shared>) {
    let o = &shared.options;
    let mut failover = Failover::new(o.kombu_failover_strategy, shared.endpoints.len());
    let mut intervals = Intervals::new(o);
    let mut retries: u64 = 0;
    let mut was_connected = false;
    loop {
        let ep = &shared.endpoints[failover.current()];
        let connection_id = uuid::Uuid::new_v4().to_string();
        let span = info_span!("amqp_connection", host = %ep, connection_id = %connection_id);
        let name = format!("{}:{}:{connection_id}", process_name(), std::process::id());
        let dialled = dial(&shared, ep, &name).instrument(span.clone()).await;
        match dialled {
            Ok(conn) => {
                let _g = span.enter();
                if was_connected {
                    info!("Reconnected to AMQP server on {ep}");
                } else {
                    info!("Connected to AMQP server on {ep}");
                }
                shared.set_last_error(None);
                retries = 0;
                intervals = Intervals::new(o);
                was_connected = true;
                let session = Arc::new(Session::new(conn, ep.clone(), name));
                shared.state.send_replace(State::Connected(session.clone()));
                drop(_g);
                let reason = watch_connection(&session).instrument(span.clone()).await;
                shared.state.send_replace(State::Connecting);
                let delay = reconnect_delay(o);
                let _g = span.enter();
                error!(
                    "AMQP server on {ep} is unreachable: {reason}. Trying again in {:.1} seconds.",
                    delay.as_secs_f64()
                );
                drop(_g);
                session.close().await;
                tokio::time::sleep(delay).await;
            }
            Err(e) => {
                let _g = span.enter();
                let wait = if failover.completes_cycle(retries) {
                    intervals.next_wait()
                } else {
                    Duration::ZERO
                };
                error!(
                    "AMQP server on {ep} is unreachable: {e}. Trying again in {} seconds.",
                    wait.as_secs()
                );
                shared.set_last_error(Some(Arc::new(DialError {
                    endpoint: ep.to_string(),
                    cause: e,
                })));
                retries += 1;
                if shared.endpoints.len() > 1 {
                    let next = &shared.endpoints[failover.switch_next()];
                    info!("failing over from {ep} to {next}");
                }
                drop(_g);
                tokio::time::sleep(wait).await;
            }
        }
    }
}

/// Waits until the connection is no longer usable; returns why.
async fn watch_connection(session: &Session) -> String {
    let mut events = session.conn.events_listener();
    let mut poll = tokio::time::interval(STATUS_POLL);
    loop {
        tokio::select! {
            ev = events.next() => match ev {
                Some(Event::Error(e)) => {
                    if !session.conn.status().connected() {
                        return e.to_string();
                    }
                    debug!(error = %e, "channel error on a live connection");
                }
                Some(Event::ConnectionBlocked(reason)) => {
                    error!("The broker has blocked the connection: {reason}");
                }
                Some(Event::ConnectionUnblocked) => info!("The broker has unblocked the connection"),
                Some(_) => {}
                None => return "connection closed".into(),
            },
            _ = poll.tick() => {
                let status = session.conn.status();
                if !status.connected() {
                    return format!("connection no longer open ({status:?})");
                }
            }
            () = session.lost.notified() => {
                if !session.conn.status().connected() {
                    return "connection lost during a cast".into();
                }
            }
        }
    }
}

/// One dial of `ep`: TCP (+ TLS) and the AMQP handshake, within [`CONNECT_TIMEOUT`].
async fn dial(shared: &Shared, ep: &Endpoint, name: &str) -> Result<Connection, DialCause> {
    let o = &shared.options;
    let tls = if o.ssl {
        Some(RustlsConnector::from(
            o.tls_settings()
                .and_then(|t| crate::tls::client_config(&t))
                .map_err(DialCause::Tls)?,
        ))
    } else {
        None
    };
    let heartbeat = o.heartbeat_timeout_threshold.clamp(0, i64::from(u16::MAX)) as u16;
    let uri = AMQPUri {
        scheme: AMQPScheme::AMQP,
        authority: AMQPAuthority {
            userinfo: AMQPUserInfo {
                username: ep.username.clone(),
                password: ep.password.clone(),
            },
            // kombu's pyamqp transport dials localhost as 127.0.0.1.
            host: if ep.host == "localhost" {
                "127.0.0.1".into()
            } else {
                ep.host.clone()
            },
            port: ep.port,
        },
        vhost: ep.vhost.clone(),
        query: AMQPQueryString {
            heartbeat: Some(heartbeat),
            auth_mechanism: Some(match o.rabbit_login_method {
                LoginMethod::AmqPlain => SASLMechanism::AMQPlain,
                LoginMethod::Plain => SASLMechanism::Plain,
                LoginMethod::External => SASLMechanism::External,
                LoginMethod::RabbitCrDemo => SASLMechanism::RabbitCrDemo,
            }),
            ..AMQPQueryString::default()
        },
    };
    let props = ConnectionProperties::default().with_connection_name(name.into());
    let server_name = ep.host.clone();
    let runtime = lapin::runtime::default_runtime().map_err(DialCause::Amqp)?;
    debug!("Connecting to AMQP server");
    let connect = Connection::connector(
        uri,
        runtime,
        async move |uri, runtime| {
            let stream = uri.connect_async(&runtime).await?;
            match &tls {
                Some(connector) => Ok(stream.into_rustls(connector, &server_name).await?),
                None => Ok(stream),
            }
        },
        props,
    );
    match tokio::time::timeout(CONNECT_TIMEOUT, connect).await {
        Ok(Ok(conn)) => Ok(conn),
        Ok(Err(e)) => Err(DialCause::Amqp(e)),
        Err(_) => {
            warn!("no AMQP handshake within {CONNECT_TIMEOUT:?}");
            Err(DialCause::Timeout(CONNECT_TIMEOUT))
        }
    }
}
