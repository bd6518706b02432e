//! The one shared HTTP client: pooled connections, rustls, configurable timeouts.

use std::time::Duration;

/// Timeouts and pool settings of the shared `reqwest::Client`.
///
/// Defaults: connect 5 s, whole request 30 s (keystoneauth has no default timeout; a bounded
/// one keeps a stuck Neutron from pinning API workers), idle pooled connections kept 90 s,
/// at most 32 idle connections per host.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// TCP (+TLS) connect timeout.
    pub connect_timeout: Duration,
    /// Timeout of one whole request (send + response body).
    pub request_timeout: Duration,
    /// How long an idle pooled connection is kept.
    pub pool_idle_timeout: Duration,
    /// Maximum idle connections kept per host.
    pub pool_max_idle_per_host: usize,
    /// Accept TLS certificates that do not verify (octavia.conf `insecure = True`).
    pub insecure: bool,
    /// `User-Agent` header sent with every request.
    pub user_agent: String,
    /// PEM CA bundles (octavia.conf `cafile`, `ca_certificates_file`): a private CA of HTTPS
    /// Keystone/Neutron/Barbican endpoints. When any is given, only these are trusted (as
    /// keystoneauth's `verify=<cafile>`); when none, the built-in web roots are.
    pub ca_files: Vec<std::path::PathBuf>,
    /// PEM client certificate and its key (keystoneauth `certfile`, `keyfile`), presented to
    /// servers that ask for one.
    pub client_cert: Option<(std::path::PathBuf, std::path::PathBuf)>,
}

/// An [`HttpConfig`] that cannot be turned into a client.
#[derive(Debug, thiserror::Error)]
pub enum HttpConfigError {
    /// A CA, certificate or key file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// Path of the CA, certificate or key file, as configured.
        path: String,
        /// The I/O error, e.g. `No such file or directory (os error 2)`.
        #[source]
        source: std::io::Error,
    },
    /// A file was read but reqwest refused its PEM: a CA bundle, or a client certificate with
    /// its key.
    #[error("{path}: {source}")]
    Pem {
        /// Path of the file (`<cert> + <key>` for a client certificate).
        path: String,
        /// reqwest's parse error.
        #[source]
        source: reqwest::Error,
    },
    /// A CA file that parsed but holds no certificate (`<path>: no PEM certificate`).
    #[error("{path}: no PEM certificate")]
    NoCertificate {
        /// Path of the CA file, as configured.
        path: String,
    },
    /// reqwest's builder refused (TLS backend initialisation).
    #[error("HTTP client: {0}")]
    Build(#[from] reqwest::Error),
}

fn read_file(p: &std::path::Path) -> Result<Vec<u8>, HttpConfigError> {
    std::fs::read(p).map_err(|source| HttpConfigError::Read {
        path: p.display().to_string(),
        source,
    })
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(30),
            pool_idle_timeout: Duration::from_secs(90),
            pool_max_idle_per_host: 32,
            insecure: false,
            user_agent: format!("keel/{}", env!("CARGO_PKG_VERSION")),
            ca_files: Vec::new(),
            client_cert: None,
        }
    }
}

impl HttpConfig {
    /// Builds the pooled client. Build it once per process and clone it (clones share the
    /// pool). The CA and client-certificate files are read now (a rotated file needs a new
    /// client). Errors: an unreadable or non-PEM file, reqwest's builder error.
    pub fn build_client(&self) -> Result<reqwest::Client, HttpConfigError> {
        let mut b = reqwest::Client::builder()
            .connect_timeout(self.connect_timeout)
            .timeout(self.request_timeout)
            .pool_idle_timeout(self.pool_idle_timeout)
            .pool_max_idle_per_host(self.pool_max_idle_per_host)
            .danger_accept_invalid_certs(self.insecure)
            .tls_built_in_root_certs(self.ca_files.is_empty())
            .user_agent(self.user_agent.clone());
        for f in &self.ca_files {
            let path = || f.display().to_string();
            let certs =
                reqwest::Certificate::from_pem_bundle(&read_file(f)?).map_err(|source| {
                    HttpConfigError::Pem {
                        path: path(),
                        source,
                    }
                })?;
            if certs.is_empty() {
                return Err(HttpConfigError::NoCertificate { path: path() });
            }
            for c in certs {
                b = b.add_root_certificate(c);
            }
        }
        if let Some((cert, key)) = &self.client_cert {
            let mut pem = read_file(cert)?;
            pem.push(b'\n');
            pem.extend(read_file(key)?);
            let id = reqwest::Identity::from_pem(&pem).map_err(|source| HttpConfigError::Pem {
                path: format!("{} + {}", cert.display(), key.display()),
                source,
            })?;
            b = b.identity(id);
        }
        Ok(b.build()?)
    }
}

/// Joins a base URL and a path with exactly one `/` between them.
pub(crate) fn join(base: &str, path: &str) -> String {
    format!(
        "{}/{}",
        base.trim_end_matches('/'),
        path.trim_start_matches('/')
    )
}

/// Cuts a response body to a loggable size (error messages quote it).
pub(crate) fn snippet(body: &[u8]) -> String {
    const MAX: usize = 512;
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.len() <= MAX {
        return text.to_string();
    }
    let mut end = MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn join_has_one_slash() {
        assert_eq!(
            join("http://h:1/v3/", "/auth/tokens"),
            "http://h:1/v3/auth/tokens"
        );
        assert_eq!(join("http://h:1", "v2.0/ports"), "http://h:1/v2.0/ports");
    }

    #[test]
    fn snippet_cuts_long_bodies_on_char_boundary() {
        let long = "é".repeat(400);
        let s = snippet(long.as_bytes());
        assert!(s.ends_with('…'));
        assert!(s.len() <= 512 + '…'.len_utf8());
        assert_eq!(snippet(b"  short \n"), "short");
    }
}
