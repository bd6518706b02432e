//! The stop signals of `keel serve`: SIGTERM (systemd, `kill`, a rolling restart) and SIGINT
//! (Ctrl-C), as oslo.service's graceful stop.

/// Resolves with the signal's name when SIGTERM or SIGINT arrives. If a handler cannot be
/// installed (not on Unix, or the runtime refused), only the other one is waited for.
pub async fn signal() -> &'static str {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => tokio::select! {
                _ = term.recv() => "SIGTERM",
                _ = tokio::signal::ctrl_c() => "SIGINT",
            },
            Err(e) => {
                tracing::warn!(error = %e, "no SIGTERM handler: only Ctrl-C stops gracefully");
                let _ = tokio::signal::ctrl_c().await;
                "SIGINT"
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
        "SIGINT"
    }
}
