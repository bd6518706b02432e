//! [`RpcClient`]: oslo.messaging's `RPCClient.cast` over the rabbit driver
//! (oslo_messaging/rpc/client.py, oslo_messaging/_drivers/amqpdriver.py `AMQPDriverBase._send`,
//! oslo_messaging/_drivers/impl_rabbit.py `Connection.topic_send`), with every cast bounded in
//! time.

use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::{Instant, timeout_at};
use tracing::{Instrument, debug, debug_span, warn};

use crate::connection::{self, Shared, State};
use crate::envelope::{Target, cast_body, new_unique_id};
use crate::error::{CastError, ConfigError};
use crate::options::RabbitOptions;
use crate::url::TransportUrl;

/// A cast-only oslo.messaging RPC client over RabbitMQ. Cheap to clone (one connection shared
/// by the clones), `Send + Sync`, usable from many tasks at once. Dropping the last clone stops
/// its background connection task and closes the connection.
#[derive(Clone)]
pub struct RpcClient {
    inner: Arc<Inner>,
}

struct Inner {
    shared: Arc<Shared>,
    url: String,
    bound: Duration,
    task: OnceLock<JoinHandle<()>>,
    start_lock: Mutex<()>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        if let Some(task) = self.task.get() {
            task.abort();
        }
    }
}

impl std::fmt::Debug for RpcClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RpcClient")
            .field("url", &self.inner.url)
            .field("bound", &self.inner.bound)
            .finish_non_exhaustive()
    }
}

impl RpcClient {
    /// A client for `url` with `options` (the URL's query parameters override them, as oslo's
    /// `ConfigOptsProxy`); every [`RpcClient::cast`] takes at most `bound` (waiting for a
    /// connection, declaring, publishing and RabbitMQ's confirm).
    ///
    /// Cheap: nothing is dialled here. Called inside a tokio runtime, the connection is
    /// started in the background at once; otherwise at the first [`RpcClient::cast`] or
    /// [`RpcClient::connected`]. The hosts are shuffled when there are several, as oslo's
    /// `Connection.__init__` does. Errors: [`ConfigError`] from the query parameters and from
    /// [`RabbitOptions::check`] (unreadable TLS files, refused values); a zero `bound`.
    pub fn new(
        url: TransportUrl,
        options: RabbitOptions,
        bound: Duration,
    ) -> Result<RpcClient, ConfigError> {
        let options = options.with_url_query(&url)?;
        options.check()?;
        if bound.is_zero() {
            return Err(ConfigError::Option {
                option: "bound",
                reason: "a cast's time bound must be greater than zero".into(),
            });
        }
        let mut endpoints = url.endpoints();
        if endpoints.len() > 1 {
            fastrand::shuffle(&mut endpoints);
        }
        let (state, _) = watch::channel(State::Connecting);
        let client = RpcClient {
            inner: Arc::new(Inner {
                shared: Arc::new(Shared {
                    endpoints,
                    options,
                    state,
                    last_error: Mutex::new(None),
                }),
                url: url.to_string(),
                bound,
                task: OnceLock::new(),
                start_lock: Mutex::new(()),
            }),
        };
        if tokio::runtime::Handle::try_current().is_ok() {
            client.start();
        }
        Ok(client)
    }

    /// Starts the background connection task once (inside a tokio runtime).
    fn start(&self) {
        if self.inner.task.get().is_some() {
            return;
        }
        let Ok(_guard) = self.inner.start_lock.lock() else {
            return;
        };
        if self.inner.task.get().is_none() {
            let shared = self.inner.shared.clone();
            let handle = tokio::spawn(connection::run(shared));
            let _ = self.inner.task.set(handle);
        }
    }

    /// The time bound of one cast, as given to [`RpcClient::new`].
    pub fn bound(&self) -> Duration {
        self.inner.bound
    }

    /// The transport URL, passwords masked (for logs).
    pub fn url(&self) -> &str {
        &self.inner.url
    }

    /// Whether a connection to RabbitMQ is up now (for health checks). Starts the background
    /// connection if it was not.
    pub async fn connected(&self) -> bool {
        self.start();
        match &*self.inner.shared.state.borrow() {
            State::Connected(s) => s.conn.status().connected(),
            State::Connecting => false,
        }
    }

    /// The host (`host:port`) the client is connected to, if any.
    pub async fn connected_to(&self) -> Option<String> {
        self.start();
        match &*self.inner.shared.state.borrow() {
            State::Connected(s) if s.conn.status().connected() => Some(s.endpoint.to_string()),
            _ => None,
        }
    }

    /// The `connection_name` client property of the current connection
    /// (`<process>:<pid>:<uuid>`, oslo's form), as RabbitMQ lists it; `None` when not connected.
    pub async fn connection_name(&self) -> Option<String> {
        self.start();
        match &*self.inner.shared.state.borrow() {
            State::Connected(s) if s.conn.status().connected() => Some(s.name.clone()),
            _ => None,
        }
    }

    /// Casts `method` with `args` to `target`: the message oslo.messaging's
    /// `RPCClient.cast({}, method, **args)` publishes ([`crate::envelope::cast_body`] with a
    /// fresh `_unique_id`, [`crate::envelope::properties`]), to exchange `target.exchange`
    /// (declared topic, durable per `amqp_durable_queues`/`rabbit_quorum_queue`, auto-delete
    /// per `amqp_auto_delete`, once per channel) with routing key [`Target::routing_key`].
    /// Returns `Ok` once RabbitMQ confirmed it (basic.ack), within the client's bound.
    ///
    /// Errors: [`CastError::Unavailable`] (no connection within the bound: RabbitMQ down or
    /// refusing us), [`CastError::Timeout`], [`CastError::Declare`], [`CastError::Publish`],
    /// [`CastError::Nacked`], [`CastError::Returned`], [`CastError::Connection`],
    /// [`CastError::Stopped`]. Like oslo's cast with its default `retry=None`, a publish that
    /// failed because its connection died is sent again (same `_unique_id`, which oslo's
    /// servers de-duplicate on) on the next connection; unlike oslo, never past the bound.
    pub async fn cast(
        &self,
        target: &Target,
        method: &str,
        args: Map<String, Value>,
    ) -> Result<(), CastError> {
        self.start();
        let bound = self.inner.bound;
        let deadline = Instant::now() + bound;
        let unique_id = new_unique_id();
        let body = cast_body(target, method, &args, &unique_id);
        let routing_key = target.routing_key();
        let span = debug_span!(
            "oslo_cast",
            exchange = %target.exchange,
            routing_key = %routing_key,
            method,
            unique_id = %unique_id,
        );
        async {
            loop {
                let session = self.wait_connected(deadline).await?;
                debug!(host = %session.endpoint, "CAST unique_id: {unique_id} exchange '{}' topic '{routing_key}'", target.exchange);
                let result = session
                    .cast(
                        &self.inner.shared.options,
                        target,
                        &routing_key,
                        &body,
                        deadline,
                        bound,
                    )
                    .await;
                match result {
                    Err(
                        e @ (CastError::Publish { .. }
                        | CastError::Connection { .. }
                        | CastError::Declare { .. }),
                    ) if !session.conn.status().connected() => {
                        // The connection died under the cast: like oslo's `ensure` (a cast's
                        // default `retry=None`), send it again, same `_unique_id`, on the
                        // next connection, within the bound.
                        session.lost.notify_one();
                        warn!(error = %e, "cast failed with its connection; resending on the next one");
                    }
                    other => return other,
                }
            }
        }
        .instrument(span)
        .await
    }

    /// The live session, waiting for one until `deadline`.
    async fn wait_connected(
        &self,
        deadline: Instant,
    ) -> Result<Arc<crate::session::Session>, CastError> {
        let shared = &self.inner.shared;
        let mut rx = shared.state.subscribe();
        loop {
            if let State::Connected(s) = &*rx.borrow_and_update()
                && s.conn.status().connected()
            {
                return Ok(s.clone());
            }
            match timeout_at(deadline, rx.changed()).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) => return Err(CastError::Stopped),
                Err(_) => {
                    let last_error = shared.last_error.lock().ok().and_then(|e| e.clone());
                    return Err(CastError::Unavailable {
                        waited: self.inner.bound,
                        last_error,
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_is_clone_send_sync_and_new_is_cheap_outside_a_runtime() {
        fn shareable<T: Clone + Send + Sync + 'static>() {}
        shareable::<RpcClient>();
        let url =
            TransportUrl::parse("rabbit://u:p@127.0.0.1:1/").unwrap_or_else(|e| panic!("{e}"));
        let c = RpcClient::new(
            url.clone(),
            RabbitOptions::default(),
            Duration::from_secs(1),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(c.inner.task.get().is_none(), "no runtime: nothing started");
        assert_eq!(c.url(), "rabbit://u:****@127.0.0.1:1/");
        assert!(RpcClient::new(url.clone(), RabbitOptions::default(), Duration::ZERO).is_err());
        let bad = TransportUrl::parse("rabbit://h/?kombu_compression=gzip")
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(RpcClient::new(bad, RabbitOptions::default(), Duration::from_secs(1)).is_err());
    }
}
