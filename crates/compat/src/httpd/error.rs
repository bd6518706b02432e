//! The httpd entry point's one error type (its own module, so the reader and the sorter
//! share it without importing each other).

/// A command line or configuration httpd would not take either, or one Keel cannot honour.
#[derive(Debug, thiserror::Error)]
pub enum HttpdError {
    /// `FILE:LINE: why` (a directive's `FILE:LINE Name: why`).
    #[error("httpd: {at}: {why}")]
    Config {
        /// `FILE:LINE`.
        at: String,
        /// What is wrong.
        why: String,
    },
    /// A command line httpd(8) refuses too.
    #[error("httpd: {0}\n{USAGE}")]
    Usage(String),
}

/// httpd(8)'s usage text, with what Keel's entry point is.
pub const USAGE: &str = "Usage: httpd [-D name] [-d directory] [-f file]\n\
                     \x20            [-C \"directive\"] [-c \"directive\"]\n\
                     \x20            [-k start|restart|graceful|graceful-stop|stop]\n\
                     \x20            [-v] [-V] [-h] [-l] [-M] [-t] [-T] [-S] [-X]\n\
                     Keel's httpd-compatible entry point: serves Octavia's API where the \
                     configuration's VirtualHosts map / to octavia-wsgi (docs/deploy/rhoso.md).";
