//! Answering once the provider has settled (issue 6).
//!
//! Octavia answers a create/update/delete as soon as its SQL transaction commits, with the load
//! balancer in PENDING_*; the client then polls until it is ACTIVE again. With a provider that
//! finishes in a few milliseconds (OVN: one NB transaction), that first poll usually races the
//! provider's status report and the client waits a whole poll interval for nothing.
//!
//! So a [`crate::Tx`] that puts a load balancer into PENDING_* claims it (when the bound of
//! [`crate::Database::set_settle_wait`] is not zero; zero, the default, is Octavia's behaviour).
//! The provider's reports naming that load balancer are then handed to that transaction
//! ([`SettleHub::offer`], called by [`crate::StatusUpdater`]), and [`crate::Tx::commit`] waits
//! for them (within the bound) and applies them before its one commit: the write and the
//! provider's outcome land together. The response body is unchanged (rendered inside the
//! transaction, it still says PENDING_*, as Octavia's does); what changes is that the client's
//! first GET sees the provider's outcome. Nothing is reported earlier than it happened: the
//! provider reports after its NB transaction committed, and the report becomes visible with the
//! SQL commit. A load balancer that could not be claimed is waited for after the commit
//! ([`SettleHub::announce`]).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use provider::StatusReport;
use tokio::sync::{broadcast, mpsc};

/// Reports kept for slow waiters; a waiter that lags further just waits out its bound.
const CAPACITY: usize = 1024;

/// The per-[`crate::Database`] hub: status appliers announce settled load balancers, committing
/// API transactions wait for theirs.
///
/// The hand-off: a transaction that puts a load balancer into PENDING_* claims it
/// ([`SettleHub::claim`]). While the claim holds, the provider's reports naming that load
/// balancer are handed to the transaction ([`SettleHub::offer`]) instead of being applied in a
/// transaction of their own, which would wait on the API transaction's row locks and then commit
/// again. The API transaction applies them before its single commit (issue 6): one commit per
/// write instead of two.
#[derive(Debug)]
pub(crate) struct SettleHub {
    sender: broadcast::Sender<String>,
    wait: std::sync::atomic::AtomicU64,
    claims: Mutex<HashMap<String, mpsc::UnboundedSender<StatusReport>>>,
}

impl SettleHub {
    pub(crate) fn new() -> Self {
        Self {
            sender: broadcast::channel(CAPACITY).0,
            wait: std::sync::atomic::AtomicU64::new(0),
            claims: Mutex::new(HashMap::new()),
        }
    }

    /// Claims load balancer `id` for the calling transaction: `None` when another holds it.
    pub(crate) fn claim(&self, id: &str) -> Option<mpsc::UnboundedReceiver<StatusReport>> {
        let mut m = self.claims.lock().ok()?;
        if m.contains_key(id) {
            return None;
        }
        let (tx, rx) = mpsc::unbounded_channel();
        m.insert(id.to_owned(), tx);
        Some(rx)
    }

    /// Ends the claim on `id`; reports already handed over stay in its receiver.
    pub(crate) fn release(&self, id: &str) {
        if let Ok(mut m) = self.claims.lock() {
            m.remove(id);
        }
    }

    /// Hands `report` to the transaction that claimed one of its load balancers: true when
    /// handed over (the caller must not apply it).
    pub(crate) fn offer(&self, report: &StatusReport) -> bool {
        let Ok(m) = self.claims.lock() else {
            return false;
        };
        let Some(sender) = report.loadbalancers.iter().find_map(|r| m.get(&r.id)) else {
            return false;
        };
        sender.send(report.clone()).is_ok()
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

    fn report(lb: &str, prov: provider::ProvisioningStatus) -> StatusReport {
        StatusReport {
            loadbalancers: vec![provider::StatusRecord {
                id: lb.into(),
                provisioning_status: Some(prov),
                operating_status: None,
            }],
            ..Default::default()
        }
    }

    #[test]
    fn offers_go_to_the_claimant_until_released() {
        use provider::ProvisioningStatus::{Active, Deleted};
        let hub = SettleHub::new();
        assert!(!hub.offer(&report("a", Active)), "nobody claimed a");
        let mut rx = hub.claim("a").expect("first claim");
        assert!(hub.claim("a").is_none(), "one claimant at a time");
        assert!(hub.offer(&report("a", Active)));
        assert!(hub.offer(&report("a", Deleted)));
        assert_eq!(rx.try_recv().ok(), Some(report("a", Active)));
        assert_eq!(rx.try_recv().ok(), Some(report("a", Deleted)));
        assert!(!hub.offer(&report("b", Active)), "b is not claimed");
        hub.release("a");
        assert!(!hub.offer(&report("a", Active)));
        assert!(rx.try_recv().is_err());
    }

    #[test]
    fn bound_round_trips() {
        let hub = SettleHub::new();
        assert_eq!(hub.wait(), Duration::ZERO);
        hub.set_wait(Duration::from_millis(250));
        assert_eq!(hub.wait(), Duration::from_millis(250));
    }
}
