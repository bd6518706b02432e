//! What the driver reads from Octavia's database: the reference reads the pool in
//! `member_create` / `member_batch_update` (`self.repositories.pool.get`) and the listener in
//! `l7policy_create` (`self.repositories.listener.get`), octavia/api/drivers/amphora_driver/
//! v2/driver.py. The lead implements [`PoolReader`] over `octavia-db`, inside or next to the
//! API's transaction (the rows the API just wrote need not be visible: the reference reads
//! before its own changes land too).

use async_trait::async_trait;
use serde_json::{Map, Value, json};
use thiserror::Error;

/// A pool as `member_create` / `member_batch_update` need it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PoolFacts {
    /// The pool's `protocol` (`UDP` and `SCTP` pools have their members' IP versions checked).
    pub protocol: String,
    /// True when at least one listener uses the pool (`pool.listeners` is not empty; without
    /// one the reference checks nothing).
    pub has_listeners: bool,
    /// The load balancer's VIP address and its additional VIPs' addresses (`lb.vip` +
    /// `lb.additional_vips`, `ip_address` each; `None` for a NULL column).
    pub vip_addresses: Vec<Option<String>>,
    /// The pool's members now in the database (`pool.members`), not yet changed by the batch.
    pub members: Vec<DbMember>,
}

/// A `member` row, rendered as octavia/common/data_models.py `Member.to_dict()`: the
/// batch's `old_members` (members to delete) are sent in this shape.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct DbMember {
    pub id: String,
    pub project_id: Option<String>,
    pub pool_id: String,
    pub ip_address: String,
    pub protocol_port: i64,
    pub weight: Option<i64>,
    pub backup: bool,
    pub enabled: bool,
    pub subnet_id: Option<String>,
    pub operating_status: String,
    /// ISO 8601 without offset as Python's `datetime.isoformat()`, e.g.
    /// `2026-12-01T10:00:00` (`.ffffff` appended when the microseconds are not 0).
    pub created_at: Option<String>,
    /// As [`Self::created_at`].
    pub updated_at: Option<String>,
    pub provisioning_status: String,
    pub name: Option<String>,
    pub monitor_address: Option<String>,
    pub monitor_port: Option<i64>,
    pub tags: Vec<String>,
    /// `normal` or `direct`.
    pub vnic_type: Option<String>,
}

impl DbMember {
    /// The reference's `Member.to_dict()`: every column, `pool` null, `tags` a list.
    pub fn to_dict(&self) -> Map<String, Value> {
        let v = json!({
            "id": self.id,
            "project_id": self.project_id,
            "pool_id": self.pool_id,
            "ip_address": self.ip_address,
            "protocol_port": self.protocol_port,
            "weight": self.weight,
            "backup": self.backup,
            "enabled": self.enabled,
            "subnet_id": self.subnet_id,
            "operating_status": self.operating_status,
            "pool": null,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "provisioning_status": self.provisioning_status,
            "name": self.name,
            "monitor_address": self.monitor_address,
            "monitor_port": self.monitor_port,
            "tags": self.tags,
            "vnic_type": self.vnic_type,
        });
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }
}

/// Why a read failed.
#[derive(Debug, Error)]
pub enum ReadError {
    /// No such row (the API checked it moments ago; a concurrent delete).
    #[error("{kind} {id} not found")]
    NotFound {
        /// `pool` or `listener`.
        kind: &'static str,
        /// The id looked up.
        id: String,
    },
    /// The database could not answer.
    #[error("database read failed: {0}")]
    Database(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// The database reads of the amphora driver.
#[async_trait]
pub trait PoolReader: Send + Sync {
    /// The pool `pool_id` with its members and its load balancer's VIP addresses.
    ///
    /// # Errors
    /// [`ReadError::NotFound`] when the pool does not exist; [`ReadError::Database`].
    async fn pool(&self, pool_id: &str) -> Result<PoolFacts, ReadError>;

    /// The `protocol` of listener `listener_id` (an L7 policy is accepted on `HTTP` and
    /// `TERMINATED_HTTPS` listeners only).
    ///
    /// # Errors
    /// As [`Self::pool`].
    async fn listener_protocol(&self, listener_id: &str) -> Result<String, ReadError>;
}
