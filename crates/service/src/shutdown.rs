//! The stop signals of `keel serve` (and of `uwsgi`, `octavia-api`, `octavia-driver-agent`
//! run by Keel): SIGTERM (systemd, `kill`, a rolling restart, uWSGI's `hook-master-start =
//! unix_signal:15 gracefully_kill_them_all`) and SIGINT (Ctrl-C) stop gracefully, as
//! oslo.service's graceful stop. SIGHUP (uWSGI's and oslo.service's reload, OSA's
//! `ExecReload`) is logged and otherwise ignored: Keel does not re-read its configuration
//! while running. SIGQUIT keeps the system's default action (immediate exit): what was
//! accepted is completed by recovery.

/// Resolves with the signal's name when SIGTERM or SIGINT arrives; every SIGHUP before is
/// logged. If a handler cannot be installed (not on Unix, or the runtime refused), only the
/// other ones are waited for.
pub async fn signal() -> &'static str {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut hup = signal(SignalKind::hangup()).ok();
        let hangup = async |hup: &mut Option<tokio::signal::unix::Signal>| match hup {
            Some(h) => h.recv().await,
            None => std::future::pending().await,
        };
        match signal(SignalKind::terminate()) {
            Ok(mut term) => loop {
                tokio::select! {
                    _ = term.recv() => return "SIGTERM",
                    _ = tokio::signal::ctrl_c() => return "SIGINT",
                    _ = hangup(&mut hup) => tracing::warn!(
                        "SIGHUP: Keel does not reload its configuration while running; restart it to apply changes"
                    ),
                }
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
