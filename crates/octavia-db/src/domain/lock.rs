//! The load balancer row lock with its state checks, and the status flips of any row
//! (octavia/db/repositories.py `test_and_set_provisioning_status`, `update`).

use crate::db::OnZero;
use crate::db::Tx;
use crate::error::DbError;
use crate::rows::*;
use crate::sql::SqlValue;
use provider::{OperatingStatus, ProvisioningStatus};

impl Tx {
    /// Locks the load balancer row (`SELECT … FOR UPDATE`; SQLite: held by `BEGIN IMMEDIATE`).
    /// Errors: [`DbError::NotFound`] (`Load Balancer <id> not found.`).
    pub async fn lock_load_balancer(&mut self, lb_id: &str) -> Result<LoadBalancerRow, DbError> {
        self.get_for_update::<LoadBalancerRow>(lb_id).await
    }

    /// LB PUT/DELETE/failover: lock the LB, require its provisioning_status to be one of
    /// `allowed`, set it to `new_status` (octavia `test_and_set_provisioning_status`).
    /// Errors: [`DbError::NotFound`], [`DbError::InvalidState`]
    /// (`Invalid state <status> of loadbalancer resource <id>`).
    pub async fn lock_lb_and_set(
        &mut self,
        lb_id: &str,
        allowed: &[ProvisioningStatus],
        new_status: ProvisioningStatus,
    ) -> Result<LoadBalancerRow, DbError> {
        let mut lb = self.lock_load_balancer(lb_id).await?;
        if !allowed.contains(&lb.provisioning_status) {
            return Err(DbError::InvalidState {
                status: lb.provisioning_status,
                id: lb.id,
            });
        }
        self.set_provisioning_status::<LoadBalancerRow>(lb_id, new_status)
            .await?;
        lb.provisioning_status = new_status;
        Ok(lb)
    }

    /// Child create/update/delete: lock the LB, require ACTIVE, set it PENDING_UPDATE
    /// (octavia `test_and_set_lb_and_listeners_prov_status`), then set each listener in
    /// `listener_ids` to `listener_status` (PENDING_UPDATE, or PENDING_DELETE for a listener delete).
    /// Errors: [`DbError::NotFound`], [`DbError::Immutable`]
    /// (`Load Balancer <id> is immutable and cannot be updated.`).
    pub async fn lock_lb_for_child(
        &mut self,
        lb_id: &str,
        listener_ids: &[String],
        listener_status: ProvisioningStatus,
    ) -> Result<(), DbError> {
        // One conditional UPDATE takes the row lock, tests and sets (a locking read and an
        // UPDATE before), sent with the listeners' updates in one round trip
        // (db::batch); the row is read only to tell 404 from 409. On an error the caller
        // drops the transaction, listener updates included.
        let pending = SqlValue::from(ProvisioningStatus::PendingUpdate);
        let sql = "UPDATE `load_balancer` SET `provisioning_status` = ?, `updated_at` = ? \
                   WHERE `id` = ? AND `provisioning_status` = 'ACTIVE'";
        let not_active = OnZero::NotFound {
            resource: "Load Balancer",
            id: lb_id.to_owned(),
        };
        self.start_batching();
        let args = vec![
            pending.clone(),
            SqlValue::Time(crate::db::now()),
            lb_id.into(),
        ];
        let mut sent = self.write(sql, args, not_active).await;
        let listener = [("provisioning_status", SqlValue::from(listener_status))];
        if sent.is_ok() && !listener_ids.is_empty() {
            sent = self
                .update_many_held::<ListenerRow>(listener_ids, &listener, OnZero::Ignore)
                .await;
        }
        let sent = match sent {
            Ok(()) => self.stop_batching(true).await,
            Err(e) => self.stop_batching(false).await.and(Err(e)),
        };
        match sent {
            Ok(()) => {
                // claimed once this transaction holds the row (crate::settle)
                self.note_lb_status(lb_id, &pending);
                Ok(())
            }
            Err(DbError::NotFound {
                resource: "Load Balancer",
                ..
            }) => {
                let lb = self.lock_load_balancer(lb_id).await?;
                Err(DbError::Immutable {
                    resource: "Load Balancer",
                    id: lb.id,
                })
            }
            Err(e) => Err(e),
        }
    }

    /// Requires the row of `T` (pool or l7policy) to be ACTIVE and sets it to `new_status`.
    /// Errors: [`DbError::NotFound`], [`DbError::Immutable`] (`Pool <id> is immutable and cannot be updated.`).
    pub async fn require_active_and_set<T: Record + HasProvisioningStatus>(
        &mut self,
        id: &str,
        new_status: ProvisioningStatus,
    ) -> Result<T, DbError> {
        let row = self.get_for_update::<T>(id).await?;
        if row.provisioning_status() != ProvisioningStatus::Active {
            return Err(DbError::Immutable {
                resource: T::RESOURCE,
                id: id.to_owned(),
            });
        }
        self.set_provisioning_status::<T>(id, new_status).await?;
        self.get::<T>(id).await
    }

    /// Sets `provisioning_status` (and `updated_at`) of one row of `T`; returns rows matched.
    pub async fn set_provisioning_status<T: Record>(
        &mut self,
        id: &str,
        status: ProvisioningStatus,
    ) -> Result<u64, DbError> {
        self.update::<T>(id, &[("provisioning_status", status.into())])
            .await
    }

    /// Sets `operating_status` (and `updated_at`) of one row of `T`; returns rows matched.
    pub async fn set_operating_status<T: Record>(
        &mut self,
        id: &str,
        status: OperatingStatus,
    ) -> Result<u64, DbError> {
        self.update::<T>(id, &[("operating_status", status.into())])
            .await
    }
}

/// Row types with a `provisioning_status` column.
pub trait HasProvisioningStatus {
    /// The current value.
    fn provisioning_status(&self) -> ProvisioningStatus;
}

macro_rules! has_ps {
    ($($t:ty),*) => {$(
        impl HasProvisioningStatus for $t {
            fn provisioning_status(&self) -> ProvisioningStatus { self.provisioning_status }
        }
    )*};
}
has_ps!(
    LoadBalancerRow,
    ListenerRow,
    PoolRow,
    MemberRow,
    HealthMonitorRow,
    L7PolicyRow,
    L7RuleRow
);
