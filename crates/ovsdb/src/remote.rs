//! Remotes: `tcp:`, `ssl:` and `unix:` addresses (ovsdb(7) "active" connection methods),
//! comma-separated lists of them, and opening a connection to one.

use std::path::PathBuf;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};

use crate::error::{Error, Result};
use crate::tls::SslFiles;

/// A parsed remote: `tcp:IP:PORT` (IPv6 as `tcp:[::1]:6641`), `ssl:IP:PORT` or `unix:PATH`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Remote {
    /// `host:port` for `TcpStream::connect`.
    Tcp(String),
    /// Path of the Unix socket, e.g. `/var/run/ovn/ovnnb_db.sock`.
    Unix(PathBuf),
    /// `host:port`, TLS with `ClientOptions::ssl`.
    Ssl(String),
}

impl std::str::FromStr for Remote {
    type Err = Error;
    fn from_str(s: &str) -> Result<Remote> {
        if let Some(path) = s.strip_prefix("unix:") {
            if path.is_empty() {
                return Err(Error::InvalidRemote(s.into()));
            }
            return Ok(Remote::Unix(PathBuf::from(path)));
        }
        for (prefix, ssl) in [("tcp:", false), ("ssl:", true)] {
            if let Some(hp) = s.strip_prefix(prefix) {
                let (host, port) = hp
                    .rsplit_once(':')
                    .ok_or_else(|| Error::InvalidRemote(s.into()))?;
                if host.is_empty() || port.parse::<u16>().is_err() {
                    return Err(Error::InvalidRemote(s.into()));
                }
                return Ok(if ssl {
                    Remote::Ssl(hp.to_string())
                } else {
                    Remote::Tcp(hp.to_string())
                });
            }
        }
        Err(Error::InvalidRemote(s.into()))
    }
}

impl std::fmt::Display for Remote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Remote::Tcp(hp) => write!(f, "tcp:{hp}"),
            Remote::Unix(p) => write!(f, "unix:{}", p.display()),
            Remote::Ssl(hp) => write!(f, "ssl:{hp}"),
        }
    }
}

/// A comma-separated remote list (`tcp:10.0.0.1:6641,tcp:10.0.0.2:6641`), tried in turn as
/// ovsdb clients do for clustered databases.
pub(crate) fn parse_remotes(s: &str) -> Result<Vec<Remote>> {
    let v = s
        .split(',')
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .map(str::parse)
        .collect::<Result<Vec<Remote>>>()?;
    if v.is_empty() {
        return Err(Error::InvalidRemote(s.into()));
    }
    Ok(v)
}

/// A connected byte stream: TCP, unix socket or TLS over TCP.
pub(crate) trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

/// `fut` bounded by `limit`. Errors: the OS error, or [`std::io::ErrorKind::TimedOut`]
/// (text `timed out`) when `limit` passed first.
async fn within<S>(
    limit: Duration,
    fut: impl std::future::Future<Output = std::io::Result<S>>,
) -> std::io::Result<S> {
    tokio::time::timeout(limit, fut).await.unwrap_or_else(|_| {
        Err(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            "timed out",
        ))
    })
}

impl Remote {
    /// Connects (and for `ssl:` completes the TLS handshake, each step within `limit`). The
    /// `ssl` files are read here, at every connection attempt, so a reconnect uses whatever
    /// the files hold by then (see [`crate::tls`]). Errors: [`Error::Connect`] (refused,
    /// timed out), [`Error::Tls`] (no files for an `ssl:` remote, bad files, handshake).
    pub(crate) async fn open(
        &self,
        limit: Duration,
        ssl: Option<&SslFiles>,
    ) -> Result<Box<dyn Io>> {
        let fail = |e: std::io::Error| Error::Connect {
            remote: self.to_string(),
            source: std::sync::Arc::new(e),
        };
        let tcp = |hp: String| async move {
            let s = tokio::net::TcpStream::connect(hp.as_str()).await?;
            s.set_nodelay(true)?;
            Ok::<_, std::io::Error>(s)
        };
        match self {
            Remote::Tcp(hp) => {
                let s = within(limit, tcp(hp.clone())).await.map_err(fail)?;
                Ok(Box::new(s))
            }
            Remote::Unix(p) => {
                let s = within(limit, tokio::net::UnixStream::connect(p))
                    .await
                    .map_err(fail)?;
                Ok(Box::new(s))
            }
            Remote::Ssl(hp) => {
                let files = ssl.ok_or_else(|| Error::Tls {
                    context: format!(
                        "{self}: no private key / certificate / CA certificate configured"
                    ),
                    cause: None,
                })?;
                let s = within(limit, tcp(hp.clone())).await.map_err(fail)?;
                match tokio::time::timeout(limit, crate::tls::wrap(s, files)).await {
                    Ok(r) => Ok(Box::new(r?)),
                    Err(_) => Err(fail(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        "TLS handshake timed out",
                    ))),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_remotes() {
        assert_eq!(
            "tcp:127.0.0.1:6641".parse::<Remote>().unwrap(),
            Remote::Tcp("127.0.0.1:6641".into())
        );
        assert_eq!(
            "tcp:[::1]:6641".parse::<Remote>().unwrap(),
            Remote::Tcp("[::1]:6641".into())
        );
        assert_eq!(
            "unix:/run/ovn/ovnnb_db.sock".parse::<Remote>().unwrap(),
            Remote::Unix("/run/ovn/ovnnb_db.sock".into())
        );
        assert_eq!(
            parse_remotes("tcp:10.0.0.1:6641, tcp:10.0.0.2:6641,").unwrap(),
            vec![
                Remote::Tcp("10.0.0.1:6641".into()),
                Remote::Tcp("10.0.0.2:6641".into())
            ]
        );
        assert!(parse_remotes(" , ").is_err());
        assert!(parse_remotes("tcp:1.2.3.4:1,bogus").is_err());
        for bad in ["", "tcp:1.2.3.4", "tcp::1", "unix:", "tcp:h:99999"] {
            assert!(bad.parse::<Remote>().is_err(), "{bad}");
        }
    }
}
