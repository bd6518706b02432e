//! Per-load-balancer ordered work queue: per load balancer, provider work runs in the order it
//! was accepted; different load balancers run concurrently.
//!
//! One tokio task per LB with pending work, fed by an unbounded mpsc; the task is created on
//! the first job and ends as soon as its queue is empty. The map lock is held while sending
//! and while a task decides to end, so a job can never land in a queue whose task has gone.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;

/// A unit of work.
pub type Job = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// The queues, keyed by load balancer id.
#[derive(Clone, Default)]
pub struct LbQueues {
    map: Arc<Mutex<HashMap<String, mpsc::UnboundedSender<Job>>>>,
    /// Woken each time a queue task ends (an LB's queue became empty).
    ended: Arc<tokio::sync::Notify>,
}

impl std::fmt::Debug for LbQueues {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.map.lock().map(|m| m.len()).unwrap_or(0);
        f.debug_struct("LbQueues").field("active", &n).finish()
    }
}

impl LbQueues {
    /// New, empty.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of load balancers with a running queue task.
    pub fn active(&self) -> usize {
        self.map.lock().map(|m| m.len()).unwrap_or(0)
    }

    /// The load balancers with a running queue task (queued or running work).
    pub fn keys(&self) -> Vec<String> {
        self.map
            .lock()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// Waits until no queue has work, at most `bound`; true when idle.
    pub async fn idle(&self, bound: std::time::Duration) -> bool {
        let deadline = tokio::time::Instant::now() + bound;
        loop {
            // registered before the check, so an end between the two is not missed
            let ended = self.ended.notified();
            if self.active() == 0 {
                return true;
            }
            if tokio::time::timeout_at(deadline, ended).await.is_err() {
                return self.active() == 0;
            }
        }
    }

    /// Queue `job` behind the pending work of `lb_id`. Must be called inside a tokio runtime.
    pub fn submit(&self, lb_id: &str, job: Job) {
        let Ok(mut map) = self.map.lock() else { return };
        let job = match map.get(lb_id) {
            Some(tx) => match tx.send(job) {
                Ok(()) => return,
                Err(mpsc::error::SendError(job)) => job,
            },
            None => job,
        };
        let (tx, rx) = mpsc::unbounded_channel();
        // cannot fail: we hold the receiver
        let _ = tx.send(job);
        map.insert(lb_id.to_string(), tx);
        tokio::spawn(run(
            self.map.clone(),
            self.ended.clone(),
            lb_id.to_string(),
            rx,
        ));
    }
}

async fn run(
    map: Arc<Mutex<HashMap<String, mpsc::UnboundedSender<Job>>>>,
    ended: Arc<tokio::sync::Notify>,
    key: String,
    mut rx: mpsc::UnboundedReceiver<Job>,
) {
    loop {
        let job = match rx.try_recv() {
            Ok(j) => j,
            Err(_) => {
                let Ok(mut m) = map.lock() else { return };
                match rx.try_recv() {
                    Ok(j) => j,
                    Err(_) => {
                        m.remove(&key);
                        ended.notify_waiters();
                        return;
                    }
                }
            }
        };
        job.await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::sync::oneshot;

    #[tokio::test]
    async fn same_lb_in_order_and_task_ends() {
        let q = LbQueues::new();
        let log = Arc::new(Mutex::new(Vec::new()));
        let (gate_tx, gate_rx) = oneshot::channel::<()>();
        let (done_tx, done_rx) = oneshot::channel::<()>();
        let l = log.clone();
        q.submit(
            "lb",
            Box::pin(async move {
                let _ = gate_rx.await;
                l.lock().unwrap().push(1);
            }),
        );
        for i in 2..=5 {
            let l = log.clone();
            q.submit("lb", Box::pin(async move { l.lock().unwrap().push(i) }));
        }
        q.submit(
            "lb",
            Box::pin(async move {
                let _ = done_tx.send(());
            }),
        );
        // a different LB runs while "lb" is blocked on its first job
        let (other_tx, other_rx) = oneshot::channel::<()>();
        q.submit(
            "other",
            Box::pin(async move {
                let _ = other_tx.send(());
            }),
        );
        other_rx.await.unwrap();
        assert!(log.lock().unwrap().is_empty());
        gate_tx.send(()).unwrap();
        done_rx.await.unwrap();
        assert_eq!(*log.lock().unwrap(), vec![1, 2, 3, 4, 5]);
        // the task removes its entry once idle; wait for it without sleeping blindly
        for _ in 0..1000 {
            if q.active() == 0 {
                break;
            }
            tokio::task::yield_now().await;
        }
        assert_eq!(q.active(), 0);
        // and a new job starts a new task
        let (tx, rx) = oneshot::channel::<()>();
        q.submit(
            "lb",
            Box::pin(async move {
                let _ = tx.send(());
            }),
        );
        rx.await.unwrap();
    }
}
