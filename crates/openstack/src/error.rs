//! Typed errors of the Keystone and Neutron clients.

use serde::Deserialize;

/// Why a user's token was refused; every case means HTTP 401 to the API's client, as
/// keystonemiddleware's `InvalidToken` (keystonemiddleware/auth_token/__init__.py).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InvalidTokenReason {
    /// The `X-Auth-Token` header was empty.
    Empty,
    /// Keystone answered 404 (unknown, revoked or expired token) or 401 on the subject token.
    NotFound,
    /// Keystone returned the token but its `expires_at` is already past.
    Expired,
    /// Not a token at all (control or non-ASCII characters, or over 8 KiB): refused without
    /// asking Keystone.
    Malformed,
}

impl std::fmt::Display for InvalidTokenReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Empty => "empty token",
            Self::NotFound => "token not found, revoked or expired",
            Self::Expired => "token expired",
            Self::Malformed => "malformed token",
        })
    }
}

/// An endpoint interface that is none of `public`, `internal`, `admin` (nor their `…URL`
/// spellings), from octavia.conf `valid_interfaces` / `endpoint_type` as
/// [`crate::Interface`] parses them; the text (Keel's, for the start-up refusal) quotes the
/// entry as given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown endpoint interface {0:?}")]
pub struct UnknownInterface(pub String);

/// Errors of [`crate::ServiceAuth`] and [`crate::TokenValidator`].
#[derive(Debug, thiserror::Error)]
pub enum KeystoneError {
    /// The user's token is not valid: the API answers 401 (keystonemiddleware semantics).
    #[error("invalid user token: {0}")]
    InvalidToken(InvalidTokenReason),
    /// Keystone rejected Keel's own service credentials (401 on password auth, or the
    /// service token refused twice while validating). A deployment error: API answers 500/503.
    #[error("keystone rejected the service credentials ({status}): {message}")]
    ServiceCredentialsRejected {
        /// HTTP status from Keystone.
        status: u16,
        /// Keystone's error message.
        message: String,
    },
    /// No endpoint of this service type / interface / region in the service catalog.
    #[error(
        "no {interface} endpoint for service type {service_type:?} (region {region:?}) in the catalog"
    )]
    EndpointNotFound {
        /// Service type asked for (e.g. `network`).
        service_type: String,
        /// Interface asked for (`public`, `internal`, `admin`).
        interface: String,
        /// Region asked for, if any.
        region: Option<String>,
    },
    /// The credential names more than one scope (keystoneauth's v3 `Auth` refuses the same
    /// before any request): no token is asked for.
    #[error(
        "the credential names more than one scope ({targets}); a token has one: a project, a domain, a trust or the system"
    )]
    ScopeConflict {
        /// The scopes set, e.g. `project, system`.
        targets: String,
    },
    /// Any other unexpected HTTP status.
    #[error("keystone answered {status}: {message}")]
    Status {
        /// HTTP status.
        status: u16,
        /// Keystone's error message or a body excerpt.
        message: String,
    },
    /// Connection, timeout or TLS failure.
    #[error("keystone request failed: {0}")]
    Transport(#[source] reqwest::Error),
    /// A response without what it must carry (a missing `X-Subject-Token`, an unscoped token).
    #[error("unexpected keystone response: {0}")]
    Decode(String),
    /// A response body that is not the expected JSON: what was read, and serde's error.
    #[error("unexpected keystone response: {what}: {source}")]
    Json {
        /// What was being read (`token body`).
        what: String,
        /// The decoding error.
        #[source]
        source: serde_json::Error,
    },
}

impl KeystoneError {
    /// True when the API must answer 401 to its client (the user's token is bad).
    pub fn is_unauthorized(&self) -> bool {
        matches!(self, Self::InvalidToken(_))
    }

    /// True when Keystone could not answer: no connection, a timeout, a 5xx (keystoneauth's
    /// `ConnectFailure`, `ConnectTimeout`, `ServiceUnavailable` / `InternalServerError`).
    pub fn is_unavailable(&self) -> bool {
        match self {
            Self::Transport(_) => true,
            Self::Status { status, .. } => *status >= 500,
            _ => false,
        }
    }
}

/// Neutron's fault body `{"NeutronError": {"type", "message", "detail"}}`
/// (neutron_lib/api/faults.py); fields empty when the body had another shape.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct NeutronFault {
    /// Exception class name, e.g. `IpAddressAlreadyAllocated`, `PortNotFound`.
    #[serde(rename = "type", default)]
    pub error_type: String,
    /// Human-readable message (Octavia quotes it in VIPInUseException).
    #[serde(default)]
    pub message: String,
    /// Extra detail, usually empty.
    #[serde(default)]
    pub detail: String,
}

impl NeutronFault {
    /// Parses a Neutron error body; falls back to the body text as `message` when it is not a
    /// `NeutronError` document (e.g. a proxy's HTML page or keystonemiddleware's 401 JSON).
    pub fn from_body(body: &[u8]) -> Self {
        #[derive(Deserialize)]
        struct Envelope {
            #[serde(rename = "NeutronError")]
            neutron_error: NeutronFaultOrString,
        }
        // Very old Neutron sends a plain string under NeutronError.
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum NeutronFaultOrString {
            Fault(NeutronFault),
            Text(String),
        }
        #[derive(Deserialize)]
        struct Generic {
            error: GenericInner,
        }
        #[derive(Deserialize)]
        struct GenericInner {
            #[serde(default)]
            message: String,
            #[serde(default)]
            title: String,
        }
        if let Ok(env) = serde_json::from_slice::<Envelope>(body) {
            return match env.neutron_error {
                NeutronFaultOrString::Fault(f) => f,
                NeutronFaultOrString::Text(message) => Self {
                    message,
                    ..Self::default()
                },
            };
        }
        if let Ok(g) = serde_json::from_slice::<Generic>(body) {
            return Self {
                error_type: g.error.title,
                message: g.error.message,
                detail: String::new(),
            };
        }
        Self {
            message: crate::http::snippet(body),
            ..Self::default()
        }
    }
}

impl std::fmt::Display for NeutronFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.error_type.is_empty(), self.detail.is_empty()) {
            (true, _) => f.write_str(&self.message),
            (false, true) => write!(f, "{}: {}", self.error_type, self.message),
            (false, false) => write!(f, "{}: {} ({})", self.error_type, self.message, self.detail),
        }
    }
}

/// Errors of [`crate::NeutronClient`], one variant per kind the callers branch on
/// (seed 003 §3: Octavia maps 409 to VIPInUseException, 404 to InvalidSubresource, ignores
/// 404 on port delete).
#[derive(Debug, thiserror::Error)]
pub enum NeutronError {
    /// 404: the resource does not exist or is not visible to the token's project.
    #[error("neutron: not found: {0}")]
    NotFound(NeutronFault),
    /// 409: e.g. `IpAddressAlreadyAllocated`, `IpAddressInUse`, `MacAddressInUse`, `InUse`.
    #[error("neutron: conflict: {0}")]
    Conflict(NeutronFault),
    /// 400: invalid input (bad CIDR, IP not in subnet, unknown filter...).
    #[error("neutron: bad request: {0}")]
    BadRequest(NeutronFault),
    /// 401 (token refused, after one retry with a fresh service token) or 403 (policy).
    #[error("neutron: unauthorized ({status}): {fault}")]
    Unauthorized {
        /// 401 or 403.
        status: u16,
        /// Neutron's fault body.
        fault: NeutronFault,
    },
    /// Any other HTTP status (5xx, 413 quota...).
    #[error("neutron answered {status}: {fault}")]
    Other {
        /// HTTP status.
        status: u16,
        /// Neutron's fault body.
        fault: NeutronFault,
    },
    /// Getting the service token or the endpoint failed.
    #[error("neutron: {0}")]
    Auth(#[from] KeystoneError),
    /// Connection, timeout or TLS failure.
    #[error("neutron request failed: {0}")]
    Transport(#[source] reqwest::Error),
    /// A 2xx answer without what it must carry (a missing key, endless pages, an HM port
    /// without an address).
    #[error("unexpected neutron response: {0}")]
    Decode(String),
    /// A body that is not the expected JSON: what was read or written, and serde's error.
    #[error("unexpected neutron response: {what}: {source}")]
    Json {
        /// The resource key (`subnet`, `ports`), `encoding <key>` or `router interface`.
        what: String,
        /// The decoding (or encoding) error.
        #[source]
        source: serde_json::Error,
    },
}

impl NeutronError {
    /// Maps a non-2xx status and body to its kind.
    pub fn from_status(status: u16, body: &[u8]) -> Self {
        let fault = NeutronFault::from_body(body);
        match status {
            404 => Self::NotFound(fault),
            409 => Self::Conflict(fault),
            400 => Self::BadRequest(fault),
            401 | 403 => Self::Unauthorized { status, fault },
            _ => Self::Other { status, fault },
        }
    }

    /// True for 404.
    pub fn is_not_found(&self) -> bool {
        matches!(self, Self::NotFound(_))
    }

    /// True for 409.
    pub fn is_conflict(&self) -> bool {
        matches!(self, Self::Conflict(_))
    }

    /// The HTTP status Neutron answered, when it answered.
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::NotFound(_) => Some(404),
            Self::Conflict(_) => Some(409),
            Self::BadRequest(_) => Some(400),
            Self::Unauthorized { status, .. } | Self::Other { status, .. } => Some(*status),
            Self::Auth(_) | Self::Transport(_) | Self::Decode(_) | Self::Json { .. } => None,
        }
    }

    /// Neutron's fault body, when it answered with an error status.
    pub fn fault(&self) -> Option<&NeutronFault> {
        match self {
            Self::NotFound(f) | Self::Conflict(f) | Self::BadRequest(f) => Some(f),
            Self::Unauthorized { fault, .. } | Self::Other { fault, .. } => Some(fault),
            Self::Auth(_) | Self::Transport(_) | Self::Decode(_) | Self::Json { .. } => None,
        }
    }

    /// True when Neutron (or Keystone, for the service token it needs) is not serving: no
    /// connection, a timeout, a 5xx — keystoneauth's `ConnectFailure`, `ConnectTimeout`,
    /// `ServiceUnavailable` / `InternalServerError`, which Octavia does not retry and a
    /// client may retry later.
    pub fn is_unavailable(&self) -> bool {
        match self {
            Self::Transport(_) => true,
            Self::Other { status, .. } => *status >= 500,
            Self::Auth(k) => k.is_unavailable(),
            _ => false,
        }
    }

    /// Neutron's fault message (what Octavia quotes, e.g. in `VIPInUseException`), else the
    /// error's text.
    pub fn message(&self) -> String {
        match self.fault() {
            Some(f) if !f.message.is_empty() => f.message.clone(),
            _ => self.to_string(),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn neutron_fault_body_parses_to_kind() {
        let body = br#"{"NeutronError": {"type": "IpAddressAlreadyAllocated", "message": "IP address 10.0.0.5 already allocated in subnet abc", "detail": ""}}"#;
        let err = NeutronError::from_status(409, body);
        match &err {
            NeutronError::Conflict(f) => {
                assert_eq!(f.error_type, "IpAddressAlreadyAllocated");
                assert!(f.message.contains("10.0.0.5"));
            }
            other => panic!("expected Conflict, got {other:?}"),
        }
        assert!(err.is_conflict());
        assert_eq!(err.status(), Some(409));
    }

    #[test]
    fn statuses_map_to_kinds() {
        let b = br#"{"NeutronError": {"type": "PortNotFound", "message": "Port x could not be found.", "detail": ""}}"#;
        assert!(NeutronError::from_status(404, b).is_not_found());
        assert!(matches!(
            NeutronError::from_status(400, b),
            NeutronError::BadRequest(_)
        ));
        assert!(matches!(
            NeutronError::from_status(403, b),
            NeutronError::Unauthorized { status: 403, .. }
        ));
        assert!(matches!(
            NeutronError::from_status(503, b),
            NeutronError::Other { status: 503, .. }
        ));
    }

    #[test]
    fn non_neutron_bodies_keep_the_text() {
        let f = NeutronFault::from_body(b"<html>bad gateway</html>");
        assert_eq!(f.error_type, "");
        assert_eq!(f.message, "<html>bad gateway</html>");
        let f = NeutronFault::from_body(
            br#"{"error": {"code": 401, "title": "Unauthorized", "message": "The request you have made requires authentication."}}"#,
        );
        assert_eq!(f.error_type, "Unauthorized");
        assert!(f.message.starts_with("The request"));
        let f = NeutronFault::from_body(br#"{"NeutronError": "old style"}"#);
        assert_eq!(f.message, "old style");
    }
}
