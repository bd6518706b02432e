//! The API's Prometheus metrics, in the process-wide default registry (`prometheus::gather`
//! collects them; `keel serve` exposes them on its metrics listener).

use std::sync::LazyLock;

use prometheus::{HistogramOpts, HistogramVec, IntCounterVec, Opts};

/// Latency buckets, seconds: 1 ms … 10 s.
pub const BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// `keel_api_requests_total{method, route, status}`: requests answered; `route` is the
/// matched route template (`/v2/lbaas/listeners/{id}`), `unmatched` for a 404 of no route.
pub static REQUESTS: LazyLock<IntCounterVec> = LazyLock::new(|| {
    let c = IntCounterVec::new(
        Opts::new("keel_api_requests_total", "API requests answered"),
        &["method", "route", "status"],
    )
    .unwrap_or_else(unreachable_metric);
    let _ = prometheus::register(Box::new(c.clone()));
    c
});

/// `keel_api_request_duration_seconds{method, route, status}`: time to the response head.
pub static REQUEST_SECONDS: LazyLock<HistogramVec> = LazyLock::new(|| {
    let h = HistogramVec::new(
        HistogramOpts::new(
            "keel_api_request_duration_seconds",
            "API request latency, seconds",
        )
        .buckets(BUCKETS.to_vec()),
        &["method", "route", "status"],
    )
    .unwrap_or_else(unreachable_metric);
    let _ = prometheus::register(Box::new(h.clone()));
    h
});

/// A metric definition the crate rejects is a bug in the constant names above.
#[allow(clippy::panic)]
fn unreachable_metric<T>(e: prometheus::Error) -> T {
    panic!("invalid metric definition: {e}")
}
