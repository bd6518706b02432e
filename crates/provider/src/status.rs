use async_trait::async_trait;
use serde::{Deserialize, Serialize};

/// `provisioning_status` values (the `provisioning_status` lookup table the migrations fill).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[allow(missing_docs)]
pub enum ProvisioningStatus {
    Active,
    PendingCreate,
    PendingUpdate,
    PendingDelete,
    Deleted,
    Error,
}

impl ProvisioningStatus {
    /// The value as stored in the DB and shown by the API.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Active => "ACTIVE",
            Self::PendingCreate => "PENDING_CREATE",
            Self::PendingUpdate => "PENDING_UPDATE",
            Self::PendingDelete => "PENDING_DELETE",
            Self::Deleted => "DELETED",
            Self::Error => "ERROR",
        }
    }

    /// True for the PENDING_* statuses (work accepted, not yet settled).
    pub const fn is_pending(self) -> bool {
        matches!(
            self,
            Self::PendingCreate | Self::PendingUpdate | Self::PendingDelete
        )
    }
}

/// A text that names no value of a status enum: what a database row holding a status outside
/// the lookup table's rows decodes to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is not a {column} value")]
pub struct UnknownStatus {
    /// `ProvisioningStatus` or `OperatingStatus`.
    pub column: &'static str,
    /// The text read.
    pub text: String,
}

impl Default for ProvisioningStatus {
    /// `PENDING_CREATE`, the status a new object's row is written with.
    fn default() -> Self {
        Self::PendingCreate
    }
}

impl Default for OperatingStatus {
    /// `OFFLINE`, the status a new object's row is written with.
    fn default() -> Self {
        Self::Offline
    }
}

/// `operating_status` values (the `operating_status` lookup table the migrations fill).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[allow(missing_docs)]
pub enum OperatingStatus {
    Online,
    Offline,
    Degraded,
    Error,
    NoMonitor,
    Draining,
}

impl OperatingStatus {
    /// The value as stored in the DB and shown by the API.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Online => "ONLINE",
            Self::Offline => "OFFLINE",
            Self::Degraded => "DEGRADED",
            Self::Error => "ERROR",
            Self::NoMonitor => "NO_MONITOR",
            Self::Draining => "DRAINING",
        }
    }
}

/// The comparisons and conversions shared by both status enums: a row's `String` column
/// compares with the enum (`row.provisioning_status != ProvisioningStatus::Deleted`), the enum
/// becomes the column's `String` (`ProvisioningStatus::PendingCreate.into()`), and `ALL`
/// lists every value in the order of the lookup table's rows (`NAMES`: their texts).
macro_rules! status_text {
    ($ty:ident, [$($v:ident),+]) => {
        impl $ty {
            /// Every value, in the order of the lookup table's rows.
            pub const ALL: &'static [$ty] = &[$($ty::$v),+];

            /// [`Self::ALL`] as their texts (the lookup table's rows, the OpenAPI enum).
            pub const NAMES: &'static [&'static str] = &[$($ty::$v.as_str()),+];

            /// The value of a stored or shown text, `None` for any other text.
            pub fn parse(text: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|s| s.as_str() == text)
            }
        }

        impl TryFrom<String> for $ty {
            type Error = UnknownStatus;

            /// A stored text as the status it names; [`UnknownStatus`] for any other text
            /// (how a database row's column decodes).
            fn try_from(text: String) -> Result<Self, UnknownStatus> {
                Self::parse(&text).ok_or(UnknownStatus {
                    column: stringify!($ty),
                    text,
                })
            }
        }

        impl std::str::FromStr for $ty {
            type Err = UnknownStatus;

            /// [`Self::parse`] with the text named in the error.
            fn from_str(text: &str) -> Result<Self, UnknownStatus> {
                Self::try_from(text.to_owned())
            }
        }

        impl PartialEq<str> for $ty {
            fn eq(&self, other: &str) -> bool {
                self.as_str() == other
            }
        }

        impl PartialEq<&str> for $ty {
            fn eq(&self, other: &&str) -> bool {
                self.as_str() == *other
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl From<$ty> for String {
            fn from(s: $ty) -> String {
                s.as_str().to_string()
            }
        }

        impl PartialEq<$ty> for str {
            fn eq(&self, other: &$ty) -> bool {
                self == other.as_str()
            }
        }

        impl PartialEq<$ty> for &str {
            fn eq(&self, other: &$ty) -> bool {
                *self == other.as_str()
            }
        }

        impl PartialEq<$ty> for String {
            fn eq(&self, other: &$ty) -> bool {
                self == other.as_str()
            }
        }
    };
}

status_text!(
    ProvisioningStatus,
    [
        Active,
        PendingCreate,
        PendingUpdate,
        PendingDelete,
        Deleted,
        Error
    ]
);
status_text!(
    OperatingStatus,
    [Online, Offline, Degraded, Error, NoMonitor, Draining]
);

/// One record of a status report: an object id and the statuses to set on it.
///
/// A `None` status leaves that column unchanged (driver_updater.py `_process_status_update` sets
/// only the keys a record carries).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusRecord {
    /// The object's uuid.
    pub id: String,
    /// New provisioning status; `DELETED` removes the row (soft delete for load balancers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provisioning_status: Option<ProvisioningStatus>,
    /// New operating status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operating_status: Option<OperatingStatus>,
}

impl StatusRecord {
    /// A record setting both statuses.
    pub fn new(
        id: impl Into<String>,
        provisioning_status: Option<ProvisioningStatus>,
        operating_status: Option<OperatingStatus>,
    ) -> Self {
        Self {
            id: id.into(),
            provisioning_status,
            operating_status,
        }
    }
}

/// A status report from a provider, as octavia-lib `update_loadbalancer_status(status)`.
///
/// The dictionary octavia-lib sends (`loadbalancers`, `listeners`, `pools`, `members`,
/// `healthmonitors`, `l7policies`, `l7rules`). The status updater applies members first and load
/// balancers last (as driver_updater.py), so a parent becomes mutable only after its children are settled.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct StatusReport {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub loadbalancers: Vec<StatusRecord>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub listeners: Vec<StatusRecord>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pools: Vec<StatusRecord>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<StatusRecord>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub healthmonitors: Vec<StatusRecord>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub l7policies: Vec<StatusRecord>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub l7rules: Vec<StatusRecord>,
}

impl StatusReport {
    /// True when the report carries no record at all.
    pub fn is_empty(&self) -> bool {
        self.loadbalancers.is_empty()
            && self.listeners.is_empty()
            && self.pools.is_empty()
            && self.members.is_empty()
            && self.healthmonitors.is_empty()
            && self.l7policies.is_empty()
            && self.l7rules.is_empty()
    }

    /// Adds every record of `other` after this report's own, list by list. Meant for reports
    /// of different objects (the trees of different load balancers): a record of an object
    /// both name is kept twice, the later one applied last.
    pub fn append(&mut self, other: StatusReport) {
        self.loadbalancers.extend(other.loadbalancers);
        self.listeners.extend(other.listeners);
        self.pools.extend(other.pools);
        self.members.extend(other.members);
        self.healthmonitors.extend(other.healthmonitors);
        self.l7policies.extend(other.l7policies);
        self.l7rules.extend(other.l7rules);
    }
}

/// Listener statistics, absolute values (octavia-lib `update_listener_statistics`). Counters in
/// bytes / connections.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct ListenerStats {
    pub id: String,
    pub active_connections: u64,
    pub bytes_in: u64,
    pub bytes_out: u64,
    pub request_errors: u64,
    pub total_connections: u64,
}

/// A statistics report, as octavia-lib `update_listener_statistics(statistics)`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatsReport {
    /// One entry per listener.
    #[serde(default)]
    pub listeners: Vec<ListenerStats>,
}

/// Why a status report could not be applied (octavia-lib `UpdateStatusError`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("status update failed on {status_object} {status_object_id:?}: {fault_string}")]
pub struct StatusSinkError {
    /// The exception text.
    pub fault_string: String,
    /// The collection key of the failing record (`members`, `loadbalancers`, …).
    pub status_object: String,
    /// The failing record's id.
    pub status_object_id: Option<String>,
}

/// Where a provider sends its reports: the status updater (driver_updater's role).
///
/// Implemented over the Octavia DB by `octavia-db`; the provider never touches SQL itself.
#[async_trait]
pub trait StatusSink: Send + Sync + 'static {
    /// Apply a status report with Octavia's semantics.
    async fn update_status(&self, report: StatusReport) -> Result<(), StatusSinkError>;

    /// Store listener statistics (driver_updater.py `update_listener_statistics`).
    async fn update_stats(&self, report: StatsReport) -> Result<(), StatusSinkError>;

    /// Whether load balancer `lb_id` still waits for provider work (PENDING_*): `Some(false)`
    /// tells a job whose NB outcome is unknown that its work was taken over and completed by
    /// another process (its lease ended while this one was frozen), so it must not re-plan.
    /// `None` (the default, or the database unreadable): unknown.
    async fn work_pending(&self, lb_id: &str) -> Option<bool> {
        let _ = lb_id;
        None
    }
}
