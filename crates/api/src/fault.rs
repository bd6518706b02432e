//! The one error type of the API and its mapping to HTTP status + fault body.
//!
//! Errors raised inside controllers render as WSME faults
//! (`{"faultcode": "Client"|"Server", "faultstring": …, "debuginfo": null}`, `faultcode` is
//! `Client` for 4xx); routing-level errors render as pecan's `{"code", "title", "description"}`
//! (as the reference answers, checked against it). Texts are Octavia's
//! (`octavia/common/exceptions.py`, WSME `wsme/exc.py`).

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use provider::ProviderError;
use serde_json::json;

/// Every error an API request can end in; mapped once to status and body by [`IntoResponse`].
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// WSME `InvalidInput`: 400 `Invalid input for field/attribute <field>. Value: '<value>'. <reason>`.
    #[error("Invalid input for field/attribute {field}. Value: '{value}'. {reason}")]
    InvalidInput {
        /// Field (or argument) name.
        field: String,
        /// The offending value in Python `str()` form.
        value: String,
        /// WSME's reason text.
        reason: String,
    },
    /// WSME `UnknownAttribute`: 400 `Unknown attribute(s) for argument <arg>: <a, b>`.
    #[error("{}", unknown_attr_text(.arg, .attrs))]
    UnknownAttribute {
        /// Dotted argument path, e.g. `load_balancer.loadbalancer`.
        arg: String,
        /// The unknown keys, sorted.
        attrs: Vec<String>,
    },
    /// WSME `UnknownArgument`: 400 `Unknown argument: "<name>"` (undeclared query parameter).
    #[error("Unknown argument: \"{0}\"")]
    UnknownArgument(String),
    /// A 400 with a free text (WSME `ClientSideError`, e.g. `Request is not in valid JSON format`).
    #[error("{0}")]
    BadRequest(String),
    /// Octavia `ValidationException`: 400 `Validation failure: <detail>`.
    #[error("Validation failure: {0}")]
    Validation(String),
    /// Octavia `InvalidOption`: 400 `<value> is not a valid option for <option>`.
    #[error("{value} is not a valid option for {option}")]
    InvalidOption {
        /// The rejected value, as the reference shows it.
        value: String,
        /// What it was given for.
        option: String,
    },
    /// Octavia `InvalidSubresource`: 400 `<resource> <id> not found.` (e.g. a VIP subnet).
    #[error("{resource} {id} not found.")]
    InvalidSubresource {
        /// `Subnet`, `Network`, `Port`, …
        resource: String,
        /// The id asked for.
        id: String,
    },
    /// Octavia `NotFound`: 404 `<Resource Name> <id> not found.`
    #[error("{resource} {id} not found.")]
    NotFound {
        /// `Load Balancer`, `Listener`, `Pool`, `Member`, `Health Monitor`, `Quotas`, …
        resource: String,
        /// The id asked for.
        id: String,
    },
    /// A routing-level 404 rendered in pecan's shape (member routes under an unknown pool:
    /// the reference says title `Bad Request`, sic).
    #[error("{description}")]
    PecanError {
        /// HTTP status.
        status: StatusCode,
        /// pecan `title`.
        title: String,
        /// pecan `description`.
        description: String,
    },
    /// Octavia `PolicyForbidden`: 403.
    #[error("Policy does not allow this request to be performed.")]
    PolicyForbidden,
    /// Octavia `QuotaException`: 403 `Quota has been met for resources: <Resource>`.
    #[error("Quota has been met for resources: {0}")]
    Quota(String),
    /// Octavia `ImmutableObject`: 409 `<resource> <id> is immutable and cannot be updated.`
    #[error("{resource} {id} is immutable and cannot be updated.")]
    Immutable {
        /// `Load Balancer`, `Pool`, …
        resource: String,
        /// The id as requested.
        id: String,
    },
    /// Octavia `LBPendingStateError`: 409 `Invalid state <S> of loadbalancer resource <id>`.
    #[error("Invalid state {state} of loadbalancer resource {id}")]
    LbPendingState {
        /// The LB's provisioning_status.
        state: String,
        /// LB id.
        id: String,
    },
    /// Any other 409 with Octavia's text (duplicate listener/member/HM/pool, in use, …).
    #[error("{0}")]
    Conflict(String),
    /// Octavia `ProviderNotEnabled`: 400 `Provider '<p>' is not enabled.`
    #[error("Provider '{0}' is not enabled.")]
    ProviderNotEnabled(String),
    /// Octavia `ProviderNotFound`: 501 `Provider '<p>' was not found.`
    #[error("Provider '{0}' was not found.")]
    ProviderNotFound(String),
    /// A provider driver refused a call (octavia/api/drivers/utils.py `call_provider`).
    #[error("{}", provider_text(.provider, .error))]
    Provider {
        /// The provider's name.
        provider: String,
        /// What the driver raised.
        error: ProviderError,
    },
    /// keystonemiddleware's 401.
    #[error("The request you have made requires authentication.")]
    Unauthorized,
    /// Octavia `ProjectBusyException`: 503.
    #[error("Project busy.  Unable to lock the project.  Please try again.")]
    ProjectBusy,
    /// A service Keel depends on could not be reached or did not answer in time: 503
    /// `The <service> service is temporarily unavailable.` (keystonemiddleware's wording for
    /// Keystone, applied to every peer so the client learns which one is down; Octavia
    /// itself answers 500 for a database or Neutron outage). `service` is one of
    /// [`PEER_DATABASE`], [`PEER_NEUTRON`], [`PEER_KEYSTONE`], [`PEER_OVN_NB`]; `cause` is
    /// logged, never shown.
    #[error("The {service} service is temporarily unavailable.")]
    PeerUnavailable {
        /// The peer's name as shown to the client.
        service: &'static str,
        /// What failed (logged).
        cause: String,
    },
    /// Anything unexpected: 500 Server fault with the error text.
    #[error("{0}")]
    Internal(String),
    /// A transaction MariaDB rolled back as a deadlock victim (1213): 500 as [`ApiError::Internal`];
    /// before any side effect outside the database the request is run again (the `retry`
    /// middleware; the response carries [`Deadlocked`]).
    #[error("{0}")]
    Deadlock(String),
}

fn unknown_attr_text(arg: &str, attrs: &[String]) -> String {
    let s = if attrs.len() > 1 { "s" } else { "" };
    format!(
        "Unknown attribute{s} for argument {arg}: {}",
        attrs.join(", ")
    )
}

fn provider_text(provider: &str, error: &ProviderError) -> String {
    match error {
        ProviderError::UnsupportedOption {
            user_fault_string, ..
        } => {
            format!(
                "Provider '{provider}' does not support a requested option: {user_fault_string}"
            )
        }
        ProviderError::NotImplemented {
            user_fault_string, ..
        } => {
            format!(
                "Provider '{provider}' does not support a requested action: {user_fault_string}"
            )
        }
        ProviderError::Conflict {
            user_fault_string, ..
        } => {
            format!("The VIP IP address is already in use: {user_fault_string}")
        }
        ProviderError::Driver {
            user_fault_string, ..
        } => {
            format!("Provider '{provider}' reports error: {user_fault_string}")
        }
        ProviderError::Unavailable { .. } => error.to_string(),
    }
}

impl ApiError {
    /// The HTTP status Octavia answers with for this error.
    pub fn status(&self) -> StatusCode {
        use ApiError::*;
        match self {
            InvalidInput { .. }
            | UnknownAttribute { .. }
            | UnknownArgument(_)
            | BadRequest(_)
            | Validation(_)
            | InvalidOption { .. }
            | InvalidSubresource { .. }
            | ProviderNotEnabled(_) => StatusCode::BAD_REQUEST,
            NotFound { .. } => StatusCode::NOT_FOUND,
            PecanError { status, .. } => *status,
            PolicyForbidden | Quota(_) => StatusCode::FORBIDDEN,
            Immutable { .. } | LbPendingState { .. } | Conflict(_) => StatusCode::CONFLICT,
            ProviderNotFound(_) => StatusCode::NOT_IMPLEMENTED,
            Provider { error, .. } => match error {
                ProviderError::UnsupportedOption { .. } | ProviderError::NotImplemented { .. } => {
                    StatusCode::NOT_IMPLEMENTED
                }
                ProviderError::Conflict { .. } => StatusCode::CONFLICT,
                ProviderError::Driver { .. } => StatusCode::INTERNAL_SERVER_ERROR,
                ProviderError::Unavailable { .. } => StatusCode::SERVICE_UNAVAILABLE,
            },
            Unauthorized => StatusCode::UNAUTHORIZED,
            ProjectBusy | PeerUnavailable { .. } => StatusCode::SERVICE_UNAVAILABLE,
            Internal(_) | Deadlock(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// Shorthand for [`ApiError::NotFound`].
    pub fn not_found(resource: &str, id: &str) -> Self {
        Self::NotFound {
            resource: resource.to_string(),
            id: id.to_string(),
        }
    }

    /// Shorthand for [`ApiError::Immutable`].
    pub fn immutable(resource: &str, id: &str) -> Self {
        Self::Immutable {
            resource: resource.to_string(),
            id: id.to_string(),
        }
    }

    /// Shorthand for [`ApiError::InvalidInput`].
    pub fn invalid_input(field: &str, value: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::InvalidInput {
            field: field.to_string(),
            value: value.into(),
            reason: reason.into(),
        }
    }

    /// A pecan-shaped error (`{"code", "title", "description"}`).
    pub fn pecan(status: StatusCode, title: &str, description: impl Into<String>) -> Self {
        Self::PecanError {
            status,
            title: title.to_string(),
            description: description.into(),
        }
    }
}

/// The WSME fault body for a status and text.
pub fn fault_body(status: StatusCode, text: &str) -> serde_json::Value {
    let code = if status.is_client_error() {
        "Client"
    } else {
        "Server"
    };
    json!({"faultcode": code, "faultstring": text, "debuginfo": null})
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        match &self {
            ApiError::PecanError {
                title, description, ..
            } => (
                status,
                axum::Json(
                    json!({"code": status.as_u16(), "title": title, "description": description}),
                ),
            )
                .into_response(),
            ApiError::Unauthorized => {
                let body = json!({"error": {"code": 401, "title": "Unauthorized",
                    "message": "The request you have made requires authentication."}});
                let mut resp = (status, axum::Json(body)).into_response();
                resp.headers_mut().insert(
                    header::WWW_AUTHENTICATE,
                    HeaderValue::from_static("Keystone uri=\"\""),
                );
                resp
            }
            // logged by the retry middleware, which runs the request again or gives this answer
            ApiError::Deadlock(_) => {
                let text = self.to_string();
                let mut resp = (status, axum::Json(fault_body(status, &text))).into_response();
                resp.extensions_mut().insert(Deadlocked(text));
                resp
            }
            ApiError::PeerUnavailable { service, cause } => {
                tracing::error!(service, %cause, "request failed: a peer service is unavailable");
                (status, axum::Json(fault_body(status, &self.to_string()))).into_response()
            }
            // A provider's refusal the user caused: INFO, as call_provider logs it.
            ApiError::Provider {
                provider,
                error:
                    ProviderError::NotImplemented {
                        operator_fault_string: op,
                        ..
                    },
            } => {
                tracing::info!("Provider '{provider}' raised a not implemented error: {op}");
                (status, axum::Json(fault_body(status, &self.to_string()))).into_response()
            }
            ApiError::Provider {
                provider,
                error:
                    ProviderError::UnsupportedOption {
                        operator_fault_string: op,
                        ..
                    },
            } => {
                tracing::info!("Provider '{provider}' raised an unsupported option error: {op}");
                (status, axum::Json(fault_body(status, &self.to_string()))).into_response()
            }
            _ => {
                if status.is_server_error() {
                    tracing::error!(error = %self, "request failed");
                }
                (status, axum::Json(fault_body(status, &self.to_string()))).into_response()
            }
        }
    }
}

/// Response extension of an [`ApiError::Deadlock`] answer, with the error text: the retry
/// middleware runs the request again when it changed nothing outside the database, else logs
/// the text and gives this answer.
#[derive(Clone, Debug)]
pub struct Deadlocked(pub String);

impl From<octavia_db::DbError> for ApiError {
    /// The DB layer's errors as the API answers them (octavia-db `DbError` docs).
    fn from(e: octavia_db::DbError) -> Self {
        use octavia_db::DbError as D;
        match e {
            D::NotFound { resource, id } => ApiError::NotFound {
                resource: resource.to_string(),
                id,
            },
            D::InvalidState { status, id } => ApiError::LbPendingState {
                state: status.to_string(),
                id,
            },
            D::Immutable { resource, id } => ApiError::Immutable {
                resource: resource.to_string(),
                id,
            },
            D::QuotaExceeded { resource } => ApiError::Quota(resource.to_string()),
            D::ProjectBusy => ApiError::ProjectBusy,
            D::MissingProjectId => ApiError::Validation(MISSING_PROJECT.to_string()),
            D::Duplicate(_) => {
                ApiError::Conflict("Already an entity with that specified id.".into())
            }
            D::Unavailable(cause) | D::ConnectionLost(cause) => ApiError::PeerUnavailable {
                service: PEER_DATABASE,
                cause: cause.to_string(),
            },
            other if other.is_deadlock() => ApiError::Deadlock(other.to_string()),
            other => ApiError::Internal(other.to_string()),
        }
    }
}

/// [`ApiError::PeerUnavailable`] for the Octavia database (MariaDB / Galera / SQLite).
pub const PEER_DATABASE: &str = "database";
/// [`ApiError::PeerUnavailable`] for Neutron.
pub const PEER_NEUTRON: &str = "Neutron";
/// [`ApiError::PeerUnavailable`] for Keystone (the text is then keystonemiddleware's own,
/// `context::KEYSTONE_UNAVAILABLE`).
pub const PEER_KEYSTONE: &str = "Keystone";
/// [`ApiError::PeerUnavailable`] for the OVN Northbound database.
pub const PEER_OVN_NB: &str = "OVN Northbound";

/// `MissingProjectID` detail text of a create without any project.
pub const MISSING_PROJECT: &str = "Missing project ID in request where one is required. An administrator should check the keystone settings in the Octavia configuration.";

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn provider_errors_map_as_call_provider() {
        let e = ApiError::Provider {
            provider: "ovn".into(),
            error: ProviderError::unsupported("x"),
        };
        assert_eq!(e.status(), StatusCode::NOT_IMPLEMENTED);
        assert_eq!(
            e.to_string(),
            "Provider 'ovn' does not support a requested option: x"
        );
        let e = ApiError::Provider {
            provider: "ovn".into(),
            error: ProviderError::not_implemented("y"),
        };
        assert_eq!(
            e.to_string(),
            "Provider 'ovn' does not support a requested action: y"
        );
        let e = ApiError::Provider {
            provider: "ovn".into(),
            error: ProviderError::conflict("z"),
        };
        assert_eq!(e.status(), StatusCode::CONFLICT);
        assert_eq!(e.to_string(), "The VIP IP address is already in use: z");
        let e = ApiError::Provider {
            provider: "ovn".into(),
            error: ProviderError::driver("w"),
        };
        assert_eq!(e.status(), StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(e.to_string(), "Provider 'ovn' reports error: w");
        let e = ApiError::Provider {
            provider: "ovn".into(),
            error: ProviderError::unavailable(PEER_OVN_NB, "disconnected"),
        };
        assert_eq!(e.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(
            e.to_string(),
            "The OVN Northbound service is temporarily unavailable."
        );
    }

    #[test]
    fn texts_match_octavia() {
        let e = ApiError::UnknownAttribute {
            arg: "load_balancer.loadbalancer".into(),
            attrs: vec!["a".into()],
        };
        assert_eq!(
            e.to_string(),
            "Unknown attribute for argument load_balancer.loadbalancer: a"
        );
        let e = ApiError::UnknownAttribute {
            arg: "x".into(),
            attrs: vec!["a".into(), "b".into()],
        };
        assert_eq!(e.to_string(), "Unknown attributes for argument x: a, b");
        assert_eq!(
            ApiError::not_found("Load Balancer", "1").to_string(),
            "Load Balancer 1 not found."
        );
        assert_eq!(
            ApiError::Quota("Listener".into()).status(),
            StatusCode::FORBIDDEN
        );
        let down = ApiError::PeerUnavailable {
            service: PEER_KEYSTONE,
            cause: "x".into(),
        };
        assert_eq!(down.to_string(), crate::context::KEYSTONE_UNAVAILABLE);
        assert_eq!(down.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(
            ApiError::from(octavia_db::DbError::Unavailable(sqlx::Error::PoolTimedOut)).to_string(),
            "The database service is temporarily unavailable."
        );
        assert_eq!(
            fault_body(StatusCode::CONFLICT, "t"),
            json!({"faultcode": "Client", "faultstring": "t", "debuginfo": null})
        );
        assert_eq!(
            fault_body(StatusCode::NOT_IMPLEMENTED, "t")["faultcode"],
            "Server"
        );
    }
}
