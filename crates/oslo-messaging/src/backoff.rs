//! Reconnection pacing and host choice, as kombu's `Connection._ensure_connection` (kombu
//! 5.6.2 kombu/connection.py) drives them for oslo.messaging's `Connection.ensure_connection`:
//! after each failed attempt the next host is chosen by the failover strategy; the client
//! sleeps only once a whole round of hosts has failed (`completes_cycle`), for the next value
//! of `fxrange(rabbit_retry_interval, rabbit_interval_max + rabbit_retry_interval,
//! rabbit_retry_backoff, repeatlast=True)` (kombu/utils/functional.py); both start afresh
//! after a successful connection.

use std::time::Duration;

use crate::options::{FailoverStrategy, RabbitOptions};

/// kombu's `fxrange(start, stop, step, repeatlast=True)` as an iterator of waits.
#[derive(Debug, Clone)]
pub(crate) struct Intervals {
    cur: f64,
    stop: f64,
    step: f64,
}

impl Intervals {
    /// The waits for `o`'s `rabbit_retry_interval`, `rabbit_retry_backoff` and
    /// `rabbit_interval_max`.
    pub(crate) fn new(o: &RabbitOptions) -> Intervals {
        let start = o.rabbit_retry_interval.max(0) as f64;
        Intervals {
            cur: start,
            stop: o.rabbit_interval_max.max(0) as f64 + start,
            step: o.rabbit_retry_backoff.max(0) as f64,
        }
    }

    /// The next wait.
    pub(crate) fn next_wait(&mut self) -> Duration {
        let v = if self.stop <= 0.0 || self.cur <= self.stop {
            let v = self.cur;
            self.cur += self.step;
            v
        } else {
            self.cur - self.step
        };
        Duration::from_secs_f64(v.max(0.0))
    }
}

/// Which host comes next: kombu's `roundrobin_failover` (`itertools.cycle`) or
/// `shufflecycle` (a random host each time, possibly the same one).
#[derive(Debug, Clone)]
pub(crate) struct Failover {
    strategy: FailoverStrategy,
    hosts: usize,
    current: usize,
}

impl Failover {
    /// Starts at host 0 of `hosts` (at least one).
    pub(crate) fn new(strategy: FailoverStrategy, hosts: usize) -> Failover {
        Failover {
            strategy,
            hosts: hosts.max(1),
            current: 0,
        }
    }

    /// The host to dial now.
    pub(crate) fn current(&self) -> usize {
        self.current
    }

    /// Moves to the next host (kombu's `maybe_switch_next`) and returns it.
    pub(crate) fn switch_next(&mut self) -> usize {
        self.current = match self.strategy {
            FailoverStrategy::RoundRobin => (self.current + 1) % self.hosts,
            FailoverStrategy::Shuffle => fastrand::usize(..self.hosts),
        };
        self.current
    }

    /// Whether failed attempt number `retries` (from 0) completes a round of hosts
    /// (kombu's `completes_cycle`).
    pub(crate) fn completes_cycle(&self, retries: u64) -> bool {
        (retries + 1).is_multiple_of(self.hosts as u64)
    }
}

/// The wait after a connection that was up is lost, before dialling again:
/// `kombu_reconnect_delay` plus a random 0 – `kombu_reconnect_splay` (oslo's
/// `Connection.ensure` error callback).
pub(crate) fn reconnect_delay(o: &RabbitOptions) -> Duration {
    let splay = if o.kombu_reconnect_splay > 0.0 {
        fastrand::f64() * o.kombu_reconnect_splay
    } else {
        0.0
    };
    Duration::from_secs_f64((o.kombu_reconnect_delay.max(0.0) + splay).min(3600.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kombu_fxrange_with_oslo_defaults() {
        let mut i = Intervals::new(&RabbitOptions::default());
        let waits: Vec<u64> = (0..20).map(|_| i.next_wait().as_secs()).collect();
        assert_eq!(
            waits,
            [
                1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31, 31, 31, 31, 31
            ]
        );
        let o = RabbitOptions {
            rabbit_retry_backoff: 0,
            ..RabbitOptions::default()
        };
        let mut i = Intervals::new(&o);
        assert!((0..5).all(|_| i.next_wait() == Duration::from_secs(1)));
    }

    #[test]
    fn round_robin_cycles_and_sleeps_once_per_round() {
        let mut f = Failover::new(FailoverStrategy::RoundRobin, 3);
        assert_eq!(f.current(), 0);
        let order: Vec<usize> = (0..6).map(|_| f.switch_next()).collect();
        assert_eq!(order, [1, 2, 0, 1, 2, 0]);
        let rounds: Vec<bool> = (0..6).map(|r| f.completes_cycle(r)).collect();
        assert_eq!(rounds, [false, false, true, false, false, true]);
        let one = Failover::new(FailoverStrategy::RoundRobin, 1);
        assert!(one.completes_cycle(0));
        let mut s = Failover::new(FailoverStrategy::Shuffle, 2);
        assert!((0..50).all(|_| s.switch_next() < 2));
    }

    #[test]
    fn reconnect_delay_adds_splay() {
        let mut o = RabbitOptions::default();
        assert_eq!(reconnect_delay(&o), Duration::from_secs(1));
        o.kombu_reconnect_splay = 2.0;
        let d = reconnect_delay(&o);
        assert!(d >= Duration::from_secs(1) && d <= Duration::from_secs(3));
    }
}
