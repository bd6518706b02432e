//! The seam between the amphora admin API (`crate::amphora`) and the amphora provider's
//! worker: kept apart so that `AppState` can hold it without depending on the handlers.

use async_trait::async_trait;
use provider::ProviderError;

/// The casts the amphora admin API sends to the amphora provider's worker (the reference's
/// `self.client.cast({}, '<method>', amphora_id=…)` on topic `octavia_provisioning_v2`, version 2.0,
/// in octavia/api/v2/controllers/amphora.py). Each is called inside the request's write
/// transaction through `crate::provider_call::call_provider`, after the rows are changed and before the commit:
/// an `Err` rolls the transaction back and answers as a provider error (`Unavailable`: 503,
/// `Driver`: 500 `Provider 'amphora' reports error: …`). An implementation that leaves the
/// outcome to the worker's own database writes calls `provider::gate::no_status_report()`
/// inside the call, so the commit does not wait for a status report.
#[async_trait]
pub trait AmphoraControl: Send + Sync {
    /// `delete_amphora(amphora_id)`: the amphora was set `PENDING_DELETE` (it was `ERROR`).
    async fn delete_amphora(&self, amphora_id: &str) -> Result<(), ProviderError>;
    /// `failover_amphora(amphora_id)`: the amphora's load balancer was set `PENDING_UPDATE`
    /// (it was `ACTIVE`).
    async fn failover_amphora(&self, amphora_id: &str) -> Result<(), ProviderError>;
    /// `update_amphora_agent_config(amphora_id)`: nothing is written before it.
    async fn update_amphora_agent_config(&self, amphora_id: &str) -> Result<(), ProviderError>;
}
