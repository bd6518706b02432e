//! The commit gate: provider work starts only once the API's SQL transaction has committed.
//!
//! The API calls a [`crate::ProviderDriver`] method while it holds the transaction that put
//! the objects into PENDING_* (octavia/api/drivers/utils.py `call_provider`); the method
//! validates and queues its work. If that work reached the OVN Northbound before the SQL
//! commit, a crash in between would leave NB rows the database does not know (and a rollback
//! would leave them for good). So the API hands the driver a [`GateWaiter`] for the call
//! ([`scope`]); the driver's queued job first awaits [`GateWaiter::committed`], which resolves
//! `true` once the transaction committed ([`CommitGate::open`]) and `false` when it was rolled
//! back or dropped (the job is then dropped unrun). After a crash, the committed PENDING_*
//! rows are the durable record of the work, and recovery completes it.
//!
//! Work queued outside any [`scope`] (the agent's own events, recovery) is not gated:
//! [`current`] is `None` there.
//!
//! A waiter also carries the span current where it was made (the API request's,
//! [`GateWaiter::origin`]): the work it gates runs under that span, not under the stage span
//! of the call that queued it, which would otherwise stay open until the work ends.
//!
//! A driver whose outcome reaches the database without a status report (the amphora
//! provider: the operator's `octavia-worker` writes the statuses itself) says so with
//! [`no_status_report`] inside the call, so the API answers at commit instead of waiting for a
//! report that never comes (octavia-db's settle wait).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::watch;

/// The transaction's side of the gate. Dropping it unopened cancels every waiter.
#[derive(Debug)]
pub struct CommitGate {
    tx: watch::Sender<Option<bool>>,
}

/// The queued work's side: resolves once the transaction committed or was given up.
#[derive(Debug, Clone)]
pub struct GateWaiter {
    rx: watch::Receiver<Option<bool>>,
    /// Set by [`no_status_report`]; shared by every clone of one waiter.
    unreported: Arc<AtomicBool>,
    /// The span current when the waiter was made.
    origin: tracing::Span,
}

impl CommitGate {
    /// A closed gate.
    pub fn new() -> Self {
        Self {
            tx: watch::channel(None).0,
        }
    }

    /// A waiter for work that must wait for this gate, whose origin is the current span.
    pub fn waiter(&self) -> GateWaiter {
        GateWaiter {
            rx: self.tx.subscribe(),
            unreported: Arc::default(),
            origin: tracing::Span::current(),
        }
    }

    /// The transaction committed: every waiter resolves `true`.
    pub fn open(self) {
        // no waiter left is fine: nothing was queued behind this gate
        let _ = self.tx.send(Some(true));
    }
}

impl Default for CommitGate {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for CommitGate {
    fn drop(&mut self) {
        // not opened: the transaction rolled back (or never committed)
        self.tx.send_if_modified(|v| {
            if v.is_none() {
                *v = Some(false);
                true
            } else {
                false
            }
        });
    }
}

impl GateWaiter {
    /// A waiter that is already open (tests, and work that needs no gate).
    pub fn open() -> Self {
        let gate = CommitGate::new();
        let w = gate.waiter();
        gate.open();
        w
    }

    /// Waits for the transaction's outcome: `true` committed, `false` rolled back or dropped.
    pub async fn committed(mut self) -> bool {
        let outcome = match self.rx.wait_for(|v| v.is_some()).await {
            Ok(v) => *v,
            // the sender is gone without an outcome: treated as not committed
            Err(_) => None,
        };
        outcome == Some(true)
    }

    /// The span current when this waiter was made ([`CommitGate::waiter`]): the parent for
    /// the spans of the work the call queues.
    pub fn origin(&self) -> &tracing::Span {
        &self.origin
    }

    /// Whether the call run with this waiter ([`scope`]) will report its outcome through a
    /// [`crate::StatusSink`]: `false` once the driver called [`no_status_report`].
    pub fn status_report_expected(&self) -> bool {
        !self.unreported.load(Ordering::Relaxed)
    }
}

tokio::task_local! {
    static CURRENT: GateWaiter;
}

/// Runs `fut` (a provider call) with `waiter` as the gate of the work it queues.
pub async fn scope<F: std::future::Future>(waiter: GateWaiter, fut: F) -> F::Output {
    CURRENT.scope(waiter, fut).await
}

/// The gate of the provider call running on this task, if any ([`scope`]).
pub fn current() -> Option<GateWaiter> {
    CURRENT.try_with(|w| w.clone()).ok()
}

/// Declares, from inside a provider call ([`scope`]), that no status report will follow the
/// work it accepted: another process writes the outcome to the database (the amphora
/// provider's worker, as octavia/controller/worker/v2 does). Outside a scope it does nothing.
pub fn no_status_report() {
    let _ = CURRENT.try_with(|w| w.unreported.store(true, Ordering::Relaxed));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn opened_gate_lets_work_run() {
        let g = CommitGate::new();
        let w = g.waiter();
        let job = tokio::spawn(w.committed());
        g.open();
        assert!(job.await.unwrap());
    }

    #[tokio::test]
    async fn dropped_gate_cancels_work_queued_before_and_after() {
        let g = CommitGate::new();
        let early = g.waiter();
        let late = g.waiter();
        let job = tokio::spawn(early.committed());
        drop(g);
        assert!(!job.await.unwrap());
        assert!(!late.committed().await);
    }

    #[tokio::test]
    async fn scope_hands_the_waiter_to_the_call_only() {
        assert!(current().is_none());
        let g = CommitGate::new();
        let inside = scope(g.waiter(), async { current() }).await;
        assert!(inside.is_some());
        assert!(current().is_none());
        g.open();
        assert!(inside.unwrap().committed().await);
    }

    #[tokio::test]
    async fn a_call_without_report_is_seen_by_the_caller() {
        let g = CommitGate::new();
        let probe = g.waiter();
        assert!(probe.status_report_expected());
        scope(probe.clone(), async { no_status_report() }).await;
        assert!(!probe.status_report_expected());
        // outside any scope: nothing to mark, nothing panics
        no_status_report();
        let other = g.waiter();
        assert!(other.status_report_expected());
    }
}
