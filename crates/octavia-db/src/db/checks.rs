//! Which pooled MariaDB connections are checked before they are handed out.
//!
//! sqlx pings every connection as it goes back to the pool. One that has been idle longer
//! than [`PING_AFTER_IDLE`] since, or any while a lost connection was seen less than
//! [`SUSPECT_AFTER_LOSS`] ago, is pinged again before it is handed out, so one the server (or
//! a proxy) dropped meanwhile is replaced instead of failing the request (bounded by
//! `acquire_timeout`). One returned more recently goes out unpinged: a round trip less per
//! request (the 4-client create/delete loop: ~8 % more operations/s). A server lost in that
//! window fails the `BEGIN`, which changed nothing and is run again on another connection
//! (`Database::begin`), or a read statement in autocommit, run again once (`Tx::fetch_all`
//! and the others); either records the loss, so the pool's other connections are pinged.

use std::sync::Arc;
use std::time::Duration;

use sqlx::mysql::MySqlPoolOptions;

/// When a MariaDB pool last found one of its connections lost (`DbError::ConnectionLost`):
/// for [`SUSPECT_AFTER_LOSS`] after that, every connection is pinged before it is handed out
/// (a restarted server or a failover ends them all, not one).
#[derive(Debug)]
pub(crate) struct Losses {
    base: std::time::Instant,
    /// Milliseconds after `base` of the last loss, plus one; 0 = none yet.
    last_ms: std::sync::atomic::AtomicU64,
}

impl Losses {
    pub(crate) fn new() -> Self {
        Self {
            base: std::time::Instant::now(),
            last_ms: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Notes a connection found lost now.
    pub(crate) fn record(&self) {
        let ms = u64::try_from(self.base.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_ms
            .store(ms.saturating_add(1), std::sync::atomic::Ordering::Relaxed);
    }

    /// True while a recent loss makes every pooled connection suspect.
    fn recent(&self) -> bool {
        match self.last_ms.load(std::sync::atomic::Ordering::Relaxed) {
            0 => false,
            at => {
                let since = Duration::from_millis(at - 1);
                self.base.elapsed().saturating_sub(since) < SUSPECT_AFTER_LOSS
            }
        }
    }
}

/// How long after a lost connection every pooled connection is pinged before use.
const SUSPECT_AFTER_LOSS: Duration = Duration::from_secs(5);

/// How long a pooled MariaDB connection may have been idle and still be handed out without a
/// ping (sqlx pinged it when it was returned).
const PING_AFTER_IDLE: Duration = Duration::from_secs(1);

/// Runs of a `BEGIN` that failed because its connection was lost: it changed nothing, so it
/// is run again on another connection (a read statement in autocommit: twice at most).
pub(crate) const CONNECTION_ATTEMPTS: usize = 3;

/// `options` with the checks above; `losses` is where the pool's users record lost
/// connections.
pub(crate) fn ping_when_suspect(
    options: MySqlPoolOptions,
    losses: Arc<Losses>,
) -> MySqlPoolOptions {
    options
        .test_before_acquire(false)
        .before_acquire(move |conn, meta| {
            let suspect = losses.recent();
            Box::pin(async move {
                if suspect || meta.idle_for >= PING_AFTER_IDLE {
                    sqlx::Connection::ping(conn).await?;
                }
                Ok(true)
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loss_makes_connections_suspect_for_a_while() {
        let l = Losses::new();
        assert!(!l.recent());
        l.record();
        assert!(l.recent());
        let long_ago = Losses {
            base: std::time::Instant::now() - SUSPECT_AFTER_LOSS - Duration::from_secs(1),
            last_ms: std::sync::atomic::AtomicU64::new(1),
        };
        assert!(!long_ago.recent());
    }
}
