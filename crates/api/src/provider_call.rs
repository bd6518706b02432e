//! The provider call wrapper, as octavia/api/drivers/utils.py `call_provider`: a driver's
//! error mapped once to the API's, the work it queues held until the transaction commits;
//! and which driver a request or a load balancer names.

use octavia_db::{LoadBalancerRow, Tx};
use tracing::Instrument;

use crate::fault::ApiError;

/// Run a provider call inside the write transaction `tx`, mapping its error as Octavia's
/// `call_provider` does (octavia/api/drivers/utils.py). The work the call
/// queues waits for `tx` to commit ([`octavia_db::Tx::commit_gate`]): a rollback, or a crash
/// before the commit, leaves the OVN NB untouched. A driver that declared
/// [`provider::gate::no_status_report`] (amphora) gets no settle wait at the commit.
pub async fn call_provider<T>(
    tx: &mut Tx,
    provider: &str,
    fut: impl std::future::Future<Output = Result<T, provider::ProviderError>>,
) -> Result<T, ApiError> {
    // the queued work waits for the commit: a deadlock victim may still run again (retry)
    let gate = tx.commit_gate();
    let probe = gate.clone();
    // the stage closes at the end of the function, as before it was entered; the work the
    // call queues runs under the span the gate was made in (the request's), not this stage
    let stage = tracing::trace_span!(target: "keel::stage", "provider_call");
    let out = provider::gate::scope(gate, fut.instrument(stage.clone()))
        .await
        .map_err(|error| ApiError::Provider {
            provider: provider.to_string(),
            error,
        })?;
    if !probe.status_report_expected() {
        // the worker writes the outcome itself: answer at commit (no settle wait)
        tx.skip_settle_wait();
    }
    drop(stage);
    Ok(out)
}

/// A provider call that queues no work (flavor / availability-zone metadata and validation,
/// failover's refusal), outside any transaction; errors mapped as [`call_provider`].
pub async fn query_provider<T>(
    provider: &str,
    fut: impl std::future::Future<Output = Result<T, provider::ProviderError>>,
) -> Result<T, ApiError> {
    fut.await.map_err(|error| ApiError::Provider {
        provider: provider.to_string(),
        error,
    })
}

/// The driver a request names when it sends a provider: `null` or empty is `amphora`, as
/// `driver_factory.get_driver` (only an absent provider means the default).
pub fn driver_name(sent: Option<String>) -> String {
    sent.filter(|n| !n.is_empty())
        .unwrap_or_else(|| "amphora".to_string())
}

/// The provider name of a load balancer (NULL means `amphora`).
pub fn lb_provider(lb: &LoadBalancerRow) -> String {
    lb.provider
        .clone()
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| "amphora".into())
}
