//! The seam to RabbitMQ: one `cast` (fire and forget) per call, as the reference's
//! `self.client.cast({}, '<method>', **payload)` in
//! octavia/api/drivers/amphora_driver/v2/driver.py.

use std::sync::Mutex;

use async_trait::async_trait;
use serde_json::{Map, Value};
use thiserror::Error;

/// The worker's RPC namespace (octavia/common/constants.py `RPC_NAMESPACE_CONTROLLER_AGENT`).
pub const RPC_NAMESPACE: &str = "controller";
/// The worker's topic (octavia/common/constants.py `TOPIC_AMPHORA_V2`).
pub const RPC_TOPIC: &str = "octavia_provisioning_v2";
/// The target version the reference's client sends (`messaging.Target(version="2.0")`).
pub const RPC_VERSION: &str = "2.0";

/// Sends one oslo.messaging cast to `octavia-worker` (target: [`RPC_TOPIC`], namespace
/// [`RPC_NAMESPACE`], version [`RPC_VERSION`], no fanout, empty context `{}`).
///
/// `method` is the worker endpoint's name (octavia/controller/queue/v2/endpoints.py, e.g.
/// `create_load_balancer`); `args` its keyword arguments. The lead implements it over the
/// `oslo-messaging` crate's `RpcClient::cast`.
#[async_trait]
pub trait Caster: Send + Sync {
    /// Publishes the cast; `Ok` once the broker accepted the message.
    ///
    /// # Errors
    /// [`CastFailure`] when the message could not be published (broker down, channel
    /// closed, publish refused); the driver answers it as a 503 naming RabbitMQ.
    async fn cast(&self, method: &str, args: Map<String, Value>) -> Result<(), CastFailure>;
}

/// A cast that did not reach the broker.
#[derive(Debug, Error)]
#[error("{reason}")]
pub struct CastFailure {
    /// What went wrong, for the operator's log.
    pub reason: String,
    /// The transport's own error, when there is one.
    #[source]
    pub source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl CastFailure {
    /// A failure described by `reason` alone.
    pub fn new(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
            source: None,
        }
    }

    /// A failure caused by `source`, described by `reason`.
    pub fn with_source(
        reason: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Self {
            reason: reason.into(),
            source: Some(Box::new(source)),
        }
    }
}

/// One cast as a [`RecordingCaster`] kept it: `(method, args)`.
pub type RecordedCast = (String, Map<String, Value>);

/// An in-memory [`Caster`] for tests: keeps every cast, or refuses them all when built
/// with [`RecordingCaster::failing`].
#[derive(Debug, Default)]
pub struct RecordingCaster {
    casts: Mutex<Vec<RecordedCast>>,
    fail: bool,
}

impl RecordingCaster {
    /// A caster that accepts and records every cast.
    pub fn new() -> Self {
        Self::default()
    }

    /// A caster whose every cast fails (`connection refused`), as a broker that is down.
    pub fn failing() -> Self {
        Self {
            casts: Mutex::new(Vec::new()),
            fail: true,
        }
    }

    /// The casts recorded so far, oldest first (and forgets them).
    pub fn take(&self) -> Vec<RecordedCast> {
        match self.casts.lock() {
            Ok(mut g) => std::mem::take(&mut *g),
            Err(p) => std::mem::take(&mut *p.into_inner()),
        }
    }
}

#[async_trait]
impl Caster for RecordingCaster {
    async fn cast(&self, method: &str, args: Map<String, Value>) -> Result<(), CastFailure> {
        if self.fail {
            return Err(CastFailure::new("connection refused"));
        }
        match self.casts.lock() {
            Ok(mut g) => g.push((method.to_string(), args)),
            Err(p) => p.into_inner().push((method.to_string(), args)),
        }
        Ok(())
    }
}
