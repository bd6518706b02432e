//! What the API reads and writes of the amphora driver's rows: an amphora's delete lock
//! (`AmphoraRepository.test_and_set_status_for_delete`) and its listener statistics
//! (`Repositories.get_amphora_stats`), both of octavia/db/repositories.py. The rows themselves
//! ([`AmphoraRow`]) are written by the Python `octavia-worker`.

use provider::ProvisioningStatus;

use crate::db::Tx;
use crate::error::DbError;
use crate::rows::{AmphoraRow, Record};

/// One `listener_statistics` row of an amphora joined with the amphora's `load_balancer_id`,
/// the columns `get_amphora_stats` (octavia/db/repositories.py) reads.
#[derive(Debug, Clone, PartialEq, Eq, Default, sqlx::FromRow)]
pub struct AmphoraStatRow {
    /// The listener.
    pub listener_id: String,
    /// The amphora (the response's `id`).
    pub amphora_id: String,
    /// Connections open at the amphora's last report.
    pub active_connections: i32,
    /// Bytes received.
    pub bytes_in: i64,
    /// Bytes sent.
    pub bytes_out: i64,
    /// Request errors.
    pub request_errors: i64,
    /// Connections since start.
    pub total_connections: i64,
    /// The amphora's load balancer (NULL for an amphora without one).
    pub load_balancer_id: Option<String>,
}

impl Tx {
    /// Locks the amphora `id` (`SELECT … FOR UPDATE`; SQLite: held by `BEGIN IMMEDIATE`),
    /// requires it to be `ERROR` and sets it `PENDING_DELETE` (with `updated_at`), as
    /// `AmphoraRepository.test_and_set_status_for_delete`. Errors: [`DbError::NotFound`]
    /// (`Amphora <id> not found.`) when there is no such row or it is DELETED,
    /// [`DbError::Immutable`] with resource `amphora` (`amphora <id> is immutable and cannot be
    /// updated.`: the reference raises `ImmutableObject(resource=consts.AMPHORA)`) otherwise.
    pub async fn amphora_set_pending_delete(&mut self, id: &str) -> Result<AmphoraRow, DbError> {
        let mut amp = match self.get_for_update::<AmphoraRow>(id).await {
            Ok(a) if a.status != ProvisioningStatus::Deleted => a,
            Ok(_) => {
                return Err(DbError::NotFound {
                    resource: AmphoraRow::RESOURCE,
                    id: id.to_owned(),
                });
            }
            Err(e) => return Err(e),
        };
        if amp.status != ProvisioningStatus::Error {
            return Err(DbError::Immutable {
                resource: "amphora",
                id: id.to_owned(),
            });
        }
        let pending = ProvisioningStatus::PendingDelete;
        self.update::<AmphoraRow>(id, &[("status", pending.into())])
            .await?;
        amp.status = pending.as_str().to_owned();
        Ok(amp)
    }

    /// The `listener_statistics` rows whose `amphora_id` is `amp_id` and names an `amphora` row
    /// (any status, DELETED too), with that amphora's `load_balancer_id`, by listener id
    /// (`get_amphora_stats` has no ORDER BY; InnoDB answers it from the `amphora_id` index, in
    /// listener order). Empty when there are none.
    pub async fn amphora_stats(&mut self, amp_id: &str) -> Result<Vec<AmphoraStatRow>, DbError> {
        const SQL: &str = "SELECT ls.listener_id, ls.amphora_id, ls.active_connections, \
            ls.bytes_in, ls.bytes_out, ls.request_errors, ls.total_connections, \
            a.load_balancer_id \
            FROM listener_statistics ls JOIN amphora a ON a.id = ls.amphora_id \
            WHERE ls.amphora_id = ? ORDER BY ls.listener_id";
        self.fetch_all(SQL, vec![amp_id.into()]).await
    }
}
