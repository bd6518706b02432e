//! The Prometheus endpoint (`[keel] metrics_listen`, `host:port`, off the API port; absent:
//! none): `GET /metrics` renders the process-wide default registry in the text exposition
//! format with the `prometheus` crate — the API's, the provider's, the token cache's metrics
//! and the gauges sampled here at each scrape (DB pool). Unauthenticated: bind it to
//! loopback or a management network.
//!
//! Also the status sink that counts and logs the reports the provider sends
//! (`keel_status_reports_total{result}`, one `status report applied` line each, in the span of
//! the job — hence of the request — that produced it).

use std::sync::{Arc, LazyLock};

use async_trait::async_trait;
use prometheus::{Encoder, IntCounterVec, IntGauge, Opts};
use provider::{StatsReport, StatusReport, StatusSink, StatusSinkError};

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

static STATUS_REPORTS: LazyLock<IntCounterVec> = LazyLock::new(|| {
    registered(IntCounterVec::new(
        Opts::new(
            "keel_status_reports_total",
            "provider status reports, by outcome",
        ),
        &["result"],
    ))
});
static DB_POOL_SIZE: LazyLock<IntGauge> = LazyLock::new(|| {
    registered(IntGauge::new(
        "keel_db_pool_connections",
        "open Octavia DB connections",
    ))
});
static DB_POOL_IDLE: LazyLock<IntGauge> = LazyLock::new(|| {
    registered(IntGauge::new(
        "keel_db_pool_idle_connections",
        "idle Octavia DB connections",
    ))
});

/// A [`StatusSink`] that counts and logs every report it passes on.
pub struct CountedStatus(pub Arc<dyn StatusSink>);

#[async_trait]
impl StatusSink for CountedStatus {
    async fn update_status(&self, report: StatusReport) -> Result<(), StatusSinkError> {
        let r = self.0.update_status(report).await;
        let result = if r.is_ok() { "applied" } else { "refused" };
        STATUS_REPORTS.with_label_values(&[result]).inc();
        match &r {
            Ok(()) => tracing::info!("status report applied"),
            Err(e) => tracing::warn!(error = %e, "status report refused"),
        }
        r
    }

    async fn update_stats(&self, report: StatsReport) -> Result<(), StatusSinkError> {
        self.0.update_stats(report).await
    }

    async fn work_pending(&self, lb_id: &str) -> Option<bool> {
        self.0.work_pending(lb_id).await
    }
}

/// Serves `GET /metrics` on `addr` until the process ends. Errors: the address cannot be bound.
pub async fn serve(addr: &str, db: octavia_db::Database) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| anyhow::anyhow!("[keel] metrics_listen {addr}: {e}"))?;
    // the statics register on first use: touch the ones nothing may have used yet, so a
    // scrape shows every unlabelled series from the start (at 0)
    LazyLock::force(&STATUS_REPORTS);
    {
        use ovn_provider::metrics as m;
        LazyLock::force(&m::JOBS_PENDING);
        LazyLock::force(&m::NB_TXN_SECONDS);
        LazyLock::force(&m::NB_TXN_ERRORS);
        LazyLock::force(&m::NB_TXN_RETRIES);
        LazyLock::force(&m::AGENT_LOCK_HELD);
    }
    let app = axum::Router::new().route(
        "/metrics",
        axum::routing::get(move || {
            let db = db.clone();
            async move {
                let u = db.pool_use();
                DB_POOL_SIZE.set(i64::from(u.size));
                DB_POOL_IDLE.set(i64::try_from(u.idle).unwrap_or(i64::MAX));
                let mut buf = Vec::new();
                let enc = prometheus::TextEncoder::new();
                match enc.encode(&prometheus::gather(), &mut buf) {
                    Ok(()) => (
                        [(
                            axum::http::header::CONTENT_TYPE,
                            enc.format_type().to_string(),
                        )],
                        buf,
                    )
                        .into_response_parts(),
                    Err(e) => (
                        [(axum::http::header::CONTENT_TYPE, "text/plain".to_string())],
                        e.to_string().into_bytes(),
                    )
                        .into_response_parts(),
                }
            }
        }),
    );
    tracing::info!(%addr, "metrics endpoint serving /metrics");
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            tracing::error!(error = %e, "metrics endpoint stopped");
        }
    });
    Ok(())
}

trait Parts {
    fn into_response_parts(self) -> axum::response::Response;
}
impl<T: axum::response::IntoResponse> Parts for T {
    fn into_response_parts(self) -> axum::response::Response {
        self.into_response()
    }
}
