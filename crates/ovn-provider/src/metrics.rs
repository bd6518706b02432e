//! The OVN provider's Prometheus metrics, in the process-wide default registry
//! (`prometheus::gather` collects them; `keel serve` exposes them).

use std::sync::LazyLock;

use prometheus::{
    Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge, Opts,
};

/// Latency buckets, seconds: 1 ms … 30 s.
const BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

fn registered<T: prometheus::core::Collector + Clone + 'static>(
    m: Result<T, prometheus::Error>,
) -> T {
    match m {
        Ok(m) => {
            let _ = prometheus::register(Box::new(m.clone()));
            m
        }
        // the definitions below are constants: a rejected one is a bug here
        #[allow(clippy::panic)]
        Err(e) => panic!("invalid metric definition: {e}"),
    }
}

/// `keel_provider_jobs_pending`: provider jobs queued or running (all load balancers).
pub static JOBS_PENDING: LazyLock<IntGauge> = LazyLock::new(|| {
    registered(IntGauge::new(
        "keel_provider_jobs_pending",
        "provider jobs queued or running",
    ))
});

/// `keel_provider_job_duration_seconds{kind}`: from submission (queue wait included) to the
/// end of the job, per request kind (`LbCreate`, `ListenerCreate`, `MemberBatch`, …).
pub static JOB_SECONDS: LazyLock<HistogramVec> = LazyLock::new(|| {
    registered(HistogramVec::new(
        HistogramOpts::new(
            "keel_provider_job_duration_seconds",
            "provider job latency, seconds",
        )
        .buckets(BUCKETS.to_vec()),
        &["kind"],
    ))
});

/// `keel_provider_jobs_total{kind}`: provider jobs finished.
pub static JOBS: LazyLock<IntCounterVec> = LazyLock::new(|| {
    registered(IntCounterVec::new(
        Opts::new("keel_provider_jobs_total", "provider jobs finished"),
        &["kind"],
    ))
});

/// `keel_nb_transaction_duration_seconds`: one NB transaction of the driver, sent to answered.
pub static NB_TXN_SECONDS: LazyLock<Histogram> = LazyLock::new(|| {
    registered(Histogram::with_opts(
        HistogramOpts::new(
            "keel_nb_transaction_duration_seconds",
            "NB transaction latency, seconds",
        )
        .buckets(BUCKETS.to_vec()),
    ))
});

/// `keel_nb_transaction_errors_total`: NB transactions that failed (a retryable one is
/// re-planned).
pub static NB_TXN_ERRORS: LazyLock<IntCounter> = LazyLock::new(|| {
    registered(IntCounter::new(
        "keel_nb_transaction_errors_total",
        "NB transactions that failed",
    ))
});

/// `keel_nb_transaction_retries_total`: requests re-planned after a concurrent NB change.
pub static NB_TXN_RETRIES: LazyLock<IntCounter> = LazyLock::new(|| {
    registered(IntCounter::new(
        "keel_nb_transaction_retries_total",
        "provider requests re-planned after a concurrent NB change",
    ))
});

/// `keel_agent_lock_held`: 1 while this process holds the agent's NB lock.
pub static AGENT_LOCK_HELD: LazyLock<IntGauge> = LazyLock::new(|| {
    registered(IntGauge::new(
        "keel_agent_lock_held",
        "1 while this process holds the OVN provider agent lock",
    ))
});
