use thiserror::Error;

/// Errors of the Octavia DB layer. `Display` gives the API fault text where one exists.
///
/// HTTP mapping the API is expected to apply:
/// [`DbError::NotFound`] → 404, [`DbError::InvalidState`] / [`DbError::Immutable`] /
/// [`DbError::Duplicate`] → 409, [`DbError::QuotaExceeded`] → 403, [`DbError::ProjectBusy`] → 503,
/// [`DbError::MissingProjectId`] → 400, [`DbError::Unavailable`] / [`DbError::ConnectionLost`]
/// → 503, everything else → 500.
#[derive(Debug, Error)]
pub enum DbError {
    /// A row does not exist (`<Resource> <id> not found.`, octavia `exceptions.NotFound`).
    #[error("{resource} {id} not found.")]
    NotFound {
        /// Resource display name: `Load Balancer`, `Listener`, `Pool`, `Member`, `Health Monitor`,
        /// `L7Policy`, `L7Rule`, `Quotas`, `Flavor`, …
        resource: &'static str,
        /// The id looked up.
        id: String,
    },
    /// The load balancer is not in a state that allows the action
    /// (octavia `exceptions.ImmutableObject` as raised for LB PUT/DELETE/failover).
    #[error("Invalid state {status} of loadbalancer resource {id}")]
    InvalidState {
        /// Current provisioning_status of the load balancer.
        status: provider::ProvisioningStatus,
        /// The load balancer id.
        id: String,
    },
    /// A parent object is not ACTIVE, so a child cannot change
    /// (octavia `exceptions.ImmutableObject` as raised by child controllers).
    #[error("{resource} {id} is immutable and cannot be updated.")]
    Immutable {
        /// `Load Balancer`, `Pool`, `Listener` or `L7Policy`.
        resource: &'static str,
        /// The object's id.
        id: String,
    },
    /// The project's quota for `resource` is met (`octavia/db/repositories.py::check_quota_met`).
    #[error("Quota has been met for resources: {resource}")]
    QuotaExceeded {
        /// `Load Balancer`, `Listener`, `Pool`, `Health Monitor`, `Member`, `L7 Policy` or `L7 Rule`.
        resource: &'static str,
    },
    /// The quota row could not be locked (deadlock / lock wait timeout).
    #[error("Project busy.  Unable to lock the project.  Please try again.")]
    ProjectBusy,
    /// A quota check without a project id (octavia `exceptions.MissingProjectID`).
    #[error("Missing project ID in request where one is required.")]
    MissingProjectId,
    /// A unique / primary key violation; the text is the server's message.
    #[error("duplicate entry: {}", server_message(.0))]
    Duplicate(#[source] sqlx::Error),
    /// A foreign key violation (e.g. a status name missing from its lookup table); the text
    /// is the server's message.
    #[error("foreign key violation: {}", server_message(.0))]
    ForeignKey(#[source] sqlx::Error),
    /// A batch of held-back writes came back with the wrong number of results
    /// (`db::batch`).
    #[error("write batch: {0}")]
    Batch(String),
    /// The database URL is not one Keel understands: its scheme, or what sqlx refused in it.
    #[error("invalid database URL: {url}{}", cause_suffix(.cause.as_ref()))]
    Url {
        /// The URL with its password masked.
        url: String,
        /// sqlx's refusal of the URL's options, when it parsed the scheme.
        #[source]
        cause: Option<sqlx::Error>,
    },
    /// The database holds a schema Keel cannot upgrade (e.g. an older alembic revision).
    #[error("schema: {0}")]
    Schema(String),
    /// A `listener.insert_headers` value that is not a pickled `dict[str, str]` (another
    /// type, truncated or trailing bytes); [`crate::unpickle_str_dict`].
    #[error("schema: insert_headers is not a pickled dict of strings: {0}")]
    Pickle(#[source] serde_pickle::Error),
    /// A caller passed a column / sort key that does not exist for the table.
    #[error("invalid column {column} for table {table}")]
    InvalidColumn {
        /// The table queried.
        table: &'static str,
        /// The rejected name.
        column: String,
    },
    /// The database could not be reached or answered that it cannot serve: connection refused
    /// or dropped, no connection within the pool's `acquire_timeout` (server down, frozen or
    /// every connection busy), server shutting down, a Galera node outside the primary
    /// component (1047 `WSREP has not yet prepared node for application use`), too many
    /// connections (1040). Nothing was committed by the failing statement; the API answers 503.
    #[error("database unavailable: {0}")]
    Unavailable(#[source] sqlx::Error),
    /// [`DbError::Unavailable`] on a connection that is gone (closed, reset, killed by the
    /// server): a statement that changed nothing may run again on another connection. The
    /// API answers it as [`DbError::Unavailable`].
    #[error("database unavailable: {0}")]
    ConnectionLost(#[source] sqlx::Error),
    /// Any other SQL error.
    #[error("database error: {0}")]
    Sql(#[source] sqlx::Error),
}

/// MariaDB server errors that mean "not serving now" rather than "this statement is wrong":
/// ER_CON_COUNT_ERROR 1040, ER_UNKNOWN_COM_ERROR 1047 (what a Galera node outside the
/// primary component answers), ER_SERVER_SHUTDOWN 1053, ER_CONNECTION_KILLED 1927,
/// ER_CLIENT_INTERACTION_TIMEOUT 4031.
const UNAVAILABLE_CODES: [u32; 5] = [1040, 1047, 1053, 1927, 4031];

/// MariaDB server errors that end the connection they arrive on: ER_SERVER_SHUTDOWN 1053,
/// ER_CONNECTION_KILLED 1927, ER_CLIENT_INTERACTION_TIMEOUT 4031.
const CONNECTION_ENDED_CODES: [u32; 3] = [1053, 1927, 4031];

/// True when `e` means the connection it ran on is gone (closed, reset, killed, timed out by
/// the server): a statement that changed nothing can be run again on another connection.
fn lost_connection(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Io(_) | sqlx::Error::Tls(_) => true,
        sqlx::Error::Database(d) => d
            .try_downcast_ref::<sqlx::mysql::MySqlDatabaseError>()
            .is_some_and(|m| CONNECTION_ENDED_CODES.contains(&u32::from(m.number()))),
        _ => false,
    }
}

fn unavailable(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(d) => d
            .try_downcast_ref::<sqlx::mysql::MySqlDatabaseError>()
            .is_some_and(|m| UNAVAILABLE_CODES.contains(&u32::from(m.number()))),
        _ => false,
    }
}

/// `: <cause>` for a display that names its cause, else nothing.
fn cause_suffix(cause: Option<&sqlx::Error>) -> String {
    cause.map(|c| format!(": {c}")).unwrap_or_default()
}

/// The server's own message of a database error (`Duplicate entry 'x' for key 'PRIMARY'`),
/// else sqlx's text.
fn server_message(e: &sqlx::Error) -> String {
    match e {
        sqlx::Error::Database(d) => d.message().to_owned(),
        other => other.to_string(),
    }
}

impl From<sqlx::Error> for DbError {
    fn from(e: sqlx::Error) -> Self {
        if lost_connection(&e) {
            return Self::ConnectionLost(e);
        }
        if unavailable(&e) {
            return Self::Unavailable(e);
        }
        match &e {
            sqlx::Error::Database(d) if d.kind() == sqlx::error::ErrorKind::UniqueViolation => {
                Self::Duplicate(e)
            }
            sqlx::Error::Database(d) if d.kind() == sqlx::error::ErrorKind::ForeignKeyViolation => {
                Self::ForeignKey(e)
            }
            _ => Self::Sql(e),
        }
    }
}

impl DbError {
    /// True when the database could not serve ([`DbError::Unavailable`],
    /// [`DbError::ConnectionLost`]).
    pub fn is_unavailable(&self) -> bool {
        matches!(self, Self::Unavailable(_) | Self::ConnectionLost(_))
    }

    /// True when MariaDB rolled the whole transaction back as a deadlock victim (1213): it may
    /// be run again from its start.
    pub fn is_deadlock(&self) -> bool {
        let Self::Sql(sqlx::Error::Database(d)) = self else {
            return false;
        };
        d.try_downcast_ref::<sqlx::mysql::MySqlDatabaseError>()
            .is_some_and(|m| m.number() == 1213)
    }

    /// True for MariaDB deadlock (1213) / lock wait timeout (1205) and SQLite busy/locked errors:
    /// the transaction may be retried.
    pub fn is_lock_error(&self) -> bool {
        let Self::Sql(sqlx::Error::Database(d)) = self else {
            return false;
        };
        if let Some(m) = d.try_downcast_ref::<sqlx::mysql::MySqlDatabaseError>() {
            // ER_LOCK_DEADLOCK, ER_LOCK_WAIT_TIMEOUT
            return matches!(m.number(), 1213 | 1205);
        }
        // SQLITE_BUSY, SQLITE_LOCKED
        matches!(d.code().as_deref(), Some("5") | Some("6"))
    }
}
