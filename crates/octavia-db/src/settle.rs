//! Answering once the provider has settled.
//!
//! Octavia answers a create/update/delete as soon as its SQL transaction commits, with the load
//! balancer in PENDING_*; the client then polls until it is ACTIVE again. With a provider that
//! finishes in a few milliseconds (OVN: one NB transaction), that first poll usually races the
//! provider's status report and the client waits a whole poll interval for nothing.
//!
//! So with a bound set ([`crate::Database::set_settle_wait`]; zero, the default, is Octavia's
//! behaviour), [`crate::Tx::commit`] of a transaction that put load balancers into PENDING_*
//! commits, lets the provider's work start, then waits (at most the bound) until the status
//! updater has committed the provider's outcome for each of them (`SettleHub::announce`).
//! The response body is unchanged (rendered inside the transaction, it still says PENDING_*, as
//! Octavia's does); what changes is that the client's first GET sees the provider's outcome.
//! The write and its outcome are two commits: the first is the durable record of the accepted
//! work, which recovery completes if the process dies before the second.

use std::time::Duration;

use tokio::sync::broadcast;

/// Reports kept for slow waiters; a waiter that lags further just waits out its bound.
const CAPACITY: usize = 1024;

/// The per-[`crate::Database`] hub: status appliers announce settled load balancers, committed
/// API transactions wait for theirs.
#[derive(Debug)]
pub(crate) struct SettleHub {
    sender: broadcast::Sender<String>,
    wait: std::sync::atomic::AtomicU64,
}

impl SettleHub {
    pub(crate) fn new() -> Self {
        Self {
            sender: broadcast::channel(CAPACITY).0,
            wait: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// The bound, zero when waiting is off.
    pub(crate) fn wait(&self) -> Duration {
        Duration::from_micros(self.wait.load(std::sync::atomic::Ordering::Relaxed))
    }

    pub(crate) fn set_wait(&self, d: Duration) {
        let micros = u64::try_from(d.as_micros()).unwrap_or(u64::MAX);
        self.wait
            .store(micros, std::sync::atomic::Ordering::Relaxed);
    }

    /// Announces that the provider's outcome for load balancer `id` is committed.
    pub(crate) fn announce(&self, id: &str) {
        // No receiver is the common case (nobody waiting): not an error.
        let _ = self.sender.send(id.to_owned());
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<String> {
        self.sender.subscribe()
    }
}

/// Waits until every id of `pending` was announced on `rx`, or `bound` has passed.
/// Returns true when all settled in time.
pub(crate) async fn wait_for(
    mut rx: broadcast::Receiver<String>,
    mut pending: Vec<String>,
    bound: Duration,
) -> bool {
    let deadline = tokio::time::Instant::now() + bound;
    while !pending.is_empty() {
        match tokio::time::timeout_at(deadline, rx.recv()).await {
            Ok(Ok(id)) => pending.retain(|p| *p != id),
            Ok(Err(broadcast::error::RecvError::Lagged(_))) => continue,
            Ok(Err(broadcast::error::RecvError::Closed)) | Err(_) => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used)]
    use super::*;

    #[tokio::test]
    async fn waits_for_every_pending_id_and_ignores_others() {
        let hub = SettleHub::new();
        let rx = hub.subscribe();
        hub.announce("other");
        hub.announce("a");
        hub.announce("b");
        let ids = vec!["a".to_string(), "b".to_string()];
        assert!(wait_for(rx, ids, Duration::from_secs(5)).await);
    }

    #[tokio::test]
    async fn gives_up_at_the_bound_when_nothing_is_announced() {
        let hub = SettleHub::new();
        let rx = hub.subscribe();
        hub.announce("other");
        let ids = vec!["a".to_string()];
        assert!(!wait_for(rx, ids, Duration::from_millis(20)).await);
    }

    #[test]
    fn bound_round_trips() {
        let hub = SettleHub::new();
        assert_eq!(hub.wait(), Duration::ZERO);
        hub.set_wait(Duration::from_millis(250));
        assert_eq!(hub.wait(), Duration::from_millis(250));
    }
}
