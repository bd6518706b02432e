//! What the Nova, Glance and Cinder clients share: where the service is (octavia.conf
//! `[nova]`, `[glance]`, `[cinder]`: `endpoint`, `service_name`, `region_name`,
//! `endpoint_type`, as octavia/common/clients.py hands them to novaclient, glanceclient and
//! cinderclient over the `[service_auth]` session), one authenticated `GET`, and the typed
//! [`ServiceError`].

use reqwest::StatusCode;
use serde::de::DeserializeOwned;
use tokio::sync::OnceCell;

use crate::error::KeystoneError;
use crate::http::{join, snippet};
use crate::keystone::{Interface, ServiceAuth};

/// Where one service is: a fixed `endpoint`, else the service token's catalog entry of the
/// service's type (and its aliases), `service_name` when set, `interface`, `region_name`
/// (default: the session's region).
#[derive(Debug, Clone, Default)]
pub struct ServiceEndpoint {
    /// `endpoint`: the URL used instead of the catalog's.
    pub endpoint: Option<String>,
    /// `service_name`: only catalog entries of this name.
    pub service_name: Option<String>,
    /// `region_name`; `None` = the session's `region_name`.
    pub region_name: Option<String>,
    /// `endpoint_type` (Octavia's default `publicURL` = [`Interface::Public`]).
    pub interface: Interface,
}

/// Errors of [`crate::NovaClient`], [`crate::GlanceClient`] and [`crate::CinderClient`];
/// `service` is `nova`, `glance` or `cinder`.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// No endpoint configured and none in the catalog for the type, name, interface and
    /// region asked for.
    #[error(
        "{service}: no {interface} endpoint of type {types} (service name {name:?}, region {region:?}) in the Keystone catalog"
    )]
    NoEndpoint {
        /// `nova`, `glance` or `cinder`.
        service: &'static str,
        /// The service types looked for, `/`-separated (e.g. `block-storage/volumev3/…`).
        types: String,
        /// The `service_name` asked for, if any.
        name: Option<String>,
        /// `public`, `internal` or `admin`.
        interface: &'static str,
        /// The region asked for, if any.
        region: Option<String>,
    },
    /// The service token could not be had (Keystone refused or did not answer).
    #[error("{service}: {source}")]
    Auth {
        /// `nova`, `glance` or `cinder`.
        service: &'static str,
        /// Keystone's error.
        #[source]
        source: KeystoneError,
    },
    /// 404.
    #[error("{service}: not found ({message})")]
    NotFound {
        /// `nova`, `glance` or `cinder`.
        service: &'static str,
        /// The answer's body, trimmed, cut to 512 bytes.
        message: String,
    },
    /// Any other non-2xx status (a 401 after one retry with a new token included).
    #[error("{service} answered {status}: {message}")]
    Status {
        /// `nova`, `glance` or `cinder`.
        service: &'static str,
        /// HTTP status.
        status: u16,
        /// The answer's body, trimmed, cut to 512 bytes.
        message: String,
    },
    /// Connection, timeout or TLS failure.
    #[error("{service} request failed: {source}")]
    Transport {
        /// `nova`, `glance` or `cinder`.
        service: &'static str,
        /// reqwest's error.
        #[source]
        source: reqwest::Error,
    },
    /// A 2xx body that is not the expected JSON.
    #[error("unexpected {service} response: {source}")]
    Decode {
        /// `nova`, `glance` or `cinder`.
        service: &'static str,
        /// serde's error.
        #[source]
        source: serde_json::Error,
    },
}

impl ServiceError {
    /// True for 404.
    pub fn is_not_found(&self) -> bool {
        matches!(self, Self::NotFound { .. })
    }

    /// True when the service (or Keystone, for the token) is not serving: no connection, a
    /// timeout, a 5xx — a client may retry later.
    pub fn is_unavailable(&self) -> bool {
        match self {
            Self::Transport { .. } => true,
            Self::Status { status, .. } => *status >= 500,
            Self::Auth { source, .. } => source.is_unavailable(),
            _ => false,
        }
    }
}

/// One service's kind: its short name and the catalog types it is listed under (the
/// service type and os-service-types' aliases, as keystoneauth matches them).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Kind {
    pub(crate) name: &'static str,
    pub(crate) types: &'static [&'static str],
}

/// The shared part of a client: HTTP pool, session, endpoint, root resolved once.
#[derive(Debug)]
pub(crate) struct ServiceClient {
    http: reqwest::Client,
    service: ServiceAuth,
    endpoint: ServiceEndpoint,
    kind: Kind,
    root: OnceCell<String>,
}

impl ServiceClient {
    pub(crate) fn new(
        http: reqwest::Client,
        service: ServiceAuth,
        endpoint: ServiceEndpoint,
        kind: Kind,
    ) -> Self {
        Self {
            http,
            service,
            endpoint,
            kind,
            root: OnceCell::new(),
        }
    }

    /// The configured endpoint, else the catalog's, resolved once (a failure is not kept).
    pub(crate) async fn root(&self) -> Result<&str, ServiceError> {
        let service = self.kind.name;
        let root = self
            .root
            .get_or_try_init(|| async {
                if let Some(e) = &self.endpoint.endpoint {
                    return Ok(e.clone());
                }
                let token = self
                    .service
                    .token()
                    .await
                    .map_err(|source| ServiceError::Auth { service, source })?;
                let region = self.endpoint.region_name.as_deref().or(self
                    .service
                    .config()
                    .region_name
                    .as_deref());
                token
                    .catalog
                    .url_for_named(
                        self.kind.types,
                        self.endpoint.service_name.as_deref(),
                        self.endpoint.interface,
                        region,
                    )
                    .map(str::to_string)
                    .ok_or_else(|| ServiceError::NoEndpoint {
                        service,
                        types: self.kind.types.join("/"),
                        name: self.endpoint.service_name.clone(),
                        interface: self.endpoint.interface.as_str(),
                        region: region.map(str::to_string),
                    })
            })
            .await?;
        Ok(root.as_str())
    }

    /// `GET <url>` with the service token and `headers`, `query` appended; the 2xx body
    /// decoded. A 401 makes one retry with a new token.
    pub(crate) async fn get<T: DeserializeOwned>(
        &self,
        url: &str,
        query: &[(&str, &str)],
        headers: &[(&str, &str)],
    ) -> Result<T, ServiceError> {
        let service = self.kind.name;
        let mut retried = false;
        loop {
            let token = self
                .service
                .token()
                .await
                .map_err(|source| ServiceError::Auth { service, source })?;
            let mut req = self
                .http
                .get(url)
                .header("X-Auth-Token", token.id())
                .header("Accept", "application/json");
            for (k, v) in headers {
                req = req.header(*k, *v);
            }
            if !query.is_empty() {
                req = req.query(query);
            }
            let resp = req
                .send()
                .await
                .map_err(|source| ServiceError::Transport { service, source })?;
            let status = resp.status();
            let body = resp
                .bytes()
                .await
                .map_err(|source| ServiceError::Transport { service, source })?;
            tracing::debug!(service, url, status = status.as_u16(), "GET");
            if status.is_success() {
                return serde_json::from_slice(&body)
                    .map_err(|source| ServiceError::Decode { service, source });
            }
            if status == StatusCode::UNAUTHORIZED && !retried {
                self.service.invalidate(&token);
                retried = true;
                continue;
            }
            let message = snippet(&body);
            return Err(if status == StatusCode::NOT_FOUND {
                ServiceError::NotFound { service, message }
            } else {
                ServiceError::Status {
                    service,
                    status: status.as_u16(),
                    message,
                }
            });
        }
    }

    /// [`Self::get`] of `path` under the root.
    pub(crate) async fn get_path<T: DeserializeOwned>(
        &self,
        path: &str,
        query: &[(&str, &str)],
        headers: &[(&str, &str)],
    ) -> Result<T, ServiceError> {
        let url = join(self.root().await?, path);
        self.get(&url, query, headers).await
    }
}
