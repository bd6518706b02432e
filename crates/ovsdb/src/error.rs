//! Typed errors of the OVSDB client.

use std::fmt;
use std::sync::Arc;

/// The error a failure wraps, shared so that [`Error`] stays `Clone` (one disconnect fails
/// every waiter with the same cause).
pub type Cause = Arc<dyn std::error::Error + Send + Sync>;

/// Every failure the client reports. Cheap to clone so one disconnect can fail many waiters.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    /// The remote string is not `tcp:IP:PORT`, `ssl:IP:PORT` or `unix:PATH`.
    #[error("invalid OVSDB remote {0:?}: expected tcp:IP:PORT, ssl:IP:PORT or unix:PATH")]
    InvalidRemote(String),
    /// Opening the stream failed (refused, unreachable, timed out).
    #[error("connecting to {remote} failed: {source}")]
    Connect {
        /// The remote as given.
        remote: String,
        /// The OS error.
        #[source]
        source: Arc<std::io::Error>,
    },
    /// Reading or writing the stream failed.
    #[error("OVSDB i/o error: {0}")]
    Io(#[source] Arc<std::io::Error>),
    /// The peer closed the stream.
    #[error("OVSDB connection closed by the server")]
    Eof,
    /// One JSON value on the wire exceeded the configured size limit (bytes).
    #[error("OVSDB message exceeds the {limit}-byte limit")]
    MessageTooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// The bytes on the wire are not a JSON-RPC 1.0 message (RFC 7047 §4).
    #[error("malformed OVSDB message: {0}")]
    Malformed(String),
    /// A well-formed message that breaks the protocol (unknown row in a `modify`, bad update shape).
    #[error("OVSDB protocol error: {0}")]
    Protocol(String),
    /// The server answered a request with a JSON-RPC `error` (e.g. `"unknown method"`).
    #[error("OVSDB server rejected {method}: {error}")]
    Rpc {
        /// The request method.
        method: String,
        /// The `error` member of the reply.
        error: serde_json::Value,
    },
    /// The schema is unusable or the monitor names a table/column the server does not have.
    #[error("OVSDB schema: {0}")]
    Schema(String),
    /// The connection dropped (or is down) while the request was pending; the client reconnects.
    #[error("OVSDB connection lost; request not answered")]
    Disconnected,
    /// Every `Client` handle was dropped; the background task is gone.
    #[error("OVSDB client closed")]
    Closed,
    /// Nothing arrived from the server for two inactivity-probe intervals (one `echo`
    /// unanswered); the connection is dropped and re-established.
    #[error("OVSDB inactivity probe timed out")]
    InactivityTimeout,
    /// A lock name that is not an RFC 7047 `<id>` (`[A-Za-z_][A-Za-z0-9_]*`).
    #[error("invalid OVSDB lock name {0:?}")]
    InvalidLockName(String),
    /// The request got no reply within the configured request timeout.
    #[error("OVSDB request timed out")]
    Timeout,
    /// A `transact` was answered with an error for one of its operations or its commit.
    #[error("OVSDB transaction failed: {0}")]
    Transaction(TxnError),
    /// The connection dropped after a `transact` was sent and before its reply: the
    /// transaction may or may not have committed. Re-running it is safe only if it is
    /// idempotent or guarded (see [`crate::Transaction::guard_absent`] and
    /// `Client::transact_retrying`, which resolve this case).
    #[error("OVSDB connection lost after sending the transaction; outcome unknown")]
    OutcomeUnknown,
    /// The server is reachable but unusable for this client (ovsdb-server(7) `_Server`
    /// database, as the OVS IDL checks): not the cluster leader while `leader_only` is set,
    /// disconnected from its cluster, older than data already seen (stale raft index), or
    /// not serving the database. The client moves on to the next remote.
    #[error("OVSDB server {remote} unusable: {reason}")]
    ServerUnsuitable {
        /// The remote as configured, e.g. `tcp:127.0.0.1:6641`.
        remote: String,
        /// Why, e.g. `"not the cluster leader"`.
        reason: String,
    },
    /// The server cancelled the monitor (`monitor_canceled`, sent to `set_db_change_aware`
    /// sessions when the database's schema changes or it is removed); the client reconnects
    /// and re-reads the schema.
    #[error("OVSDB monitor canceled by the server")]
    MonitorCanceled,
    /// TLS setup or handshake failed for an `ssl:` remote: unreadable key/certificate/CA
    /// files, or a server certificate that does not chain to the CA certificate.
    #[error("OVSDB SSL: {context}{}", .cause.as_ref().map(|c| format!(": {c}")).unwrap_or_default())]
    Tls {
        /// What was being done: `reading <path>`, `CA certificate <path>`, `handshake`, …
        context: String,
        /// The file, PEM, rustls or handshake error, when one caused it.
        #[source]
        cause: Option<Cause>,
    },
}

/// This crate's result type; the error defaults to [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The error of a failed `transact`, as RFC 7047 §5.2 "errors" (plus clustered "not leader").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxnError {
    /// Classified `error` string.
    pub kind: TxnErrorKind,
    /// The `error` string exactly as the server sent it.
    pub error: String,
    /// The `details` string, when present.
    pub details: Option<String>,
    /// Index of the failing operation in the transaction; `None` when the commit itself failed
    /// (the server appends an extra result element for commit-time errors such as
    /// referential integrity).
    pub op_index: Option<usize>,
}

impl fmt::Display for TxnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.error)?;
        if let Some(i) = self.op_index {
            write!(f, " (operation {i})")?;
        }
        if let Some(d) = &self.details {
            write!(f, ": {d}")?;
        }
        Ok(())
    }
}

/// The kinds of transaction error ovsdb-server reports (RFC 7047 §5.2, ovsdb-server(7)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TxnErrorKind {
    /// `"constraint violation"`: e.g. duplicate index value, set size out of bounds.
    ConstraintViolation,
    /// `"referential integrity violation"`: a strong reference to a missing row, or deleting a
    /// row still referenced.
    ReferentialIntegrity,
    /// `"resources exhausted"`.
    ResourcesExhausted,
    /// `"I/O error"` writing the database.
    Io,
    /// `"duplicate uuid-name"`.
    DuplicateUuidName,
    /// `"domain error"` (e.g. division by zero in a mutation).
    DomainError,
    /// `"range error"` (integer overflow in a mutation).
    RangeError,
    /// `"timed out"`: a `wait` operation's condition did not hold before its timeout.
    TimedOut,
    /// `"not supported"`.
    NotSupported,
    /// `"aborted"` (an `abort` operation).
    Aborted,
    /// `"not owner"`: an `assert` on a lock this session does not hold.
    NotOwner,
    /// `"not leader"` / `"cluster error"`: retry on (or reconnect to) the cluster leader.
    NotLeader,
    /// `"syntax error"` or an unknown column/table in an operation.
    Syntax,
    /// Any other `error` string (none of the RFC 7047 / ovsdb-server(7) ones above).
    Other,
}

impl TxnErrorKind {
    /// Classifies an RFC 7047 `error` string.
    pub fn from_error(error: &str) -> Self {
        match error {
            "constraint violation" => Self::ConstraintViolation,
            "referential integrity violation" => Self::ReferentialIntegrity,
            "resources exhausted" => Self::ResourcesExhausted,
            "I/O error" => Self::Io,
            "duplicate uuid-name" => Self::DuplicateUuidName,
            "domain error" => Self::DomainError,
            "range error" => Self::RangeError,
            "timed out" => Self::TimedOut,
            "not supported" => Self::NotSupported,
            "aborted" => Self::Aborted,
            "not owner" => Self::NotOwner,
            "not leader" | "cluster error" => Self::NotLeader,
            "syntax error" | "unknown column" | "unknown table" | "unknown database" => {
                Self::Syntax
            }
            _ => Self::Other,
        }
    }
}

impl Error {
    /// [`Error::Io`] of an OS error.
    pub(crate) fn io(e: std::io::Error) -> Self {
        Error::Io(Arc::new(e))
    }

    /// [`Error::Tls`] with the error that caused it.
    pub(crate) fn tls(
        context: impl Into<String>,
        cause: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Error::Tls {
            context: context.into(),
            cause: Some(Arc::new(cause)),
        }
    }

    /// The transaction error, when this is one.
    pub fn txn(&self) -> Option<&TxnError> {
        match self {
            Error::Transaction(t) => Some(t),
            _ => None,
        }
    }

    /// True for failures a caller may retry unchanged after the client reconnects
    /// (connection loss, timeout, not leader).
    pub fn is_transient(&self) -> bool {
        match self {
            Error::Disconnected
            | Error::Timeout
            | Error::Io(_)
            | Error::Eof
            | Error::InactivityTimeout
            | Error::ServerUnsuitable { .. }
            | Error::MonitorCanceled => true,
            Error::Transaction(t) => t.kind == TxnErrorKind::NotLeader,
            _ => false,
        }
    }

    /// True when a `transact` that failed this way may nevertheless have committed: the
    /// connection dropped with the request in flight ([`Error::OutcomeUnknown`]), the request
    /// timed out ([`Error::Timeout`]), or the raft commit ended as `"lost leadership"`,
    /// `"server shutdown"` or `"timeout"` (ovsdb/raft.c `raft_command_status_to_string`: the
    /// entry may still be committed by the next leader).
    pub fn may_have_committed(&self) -> bool {
        match self {
            Error::OutcomeUnknown | Error::Timeout => true,
            Error::Transaction(t) => {
                t.kind == TxnErrorKind::NotLeader
                    && matches!(
                        t.details.as_deref(),
                        Some("lost leadership" | "server shutdown" | "timeout")
                    )
            }
            _ => false,
        }
    }
}
