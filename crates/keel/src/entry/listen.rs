//! The API's listeners: plain TCP (`[api_settings] bind_host:bind_port`, uWSGI's `http`,
//! `http-socket`) and TLS (uWSGI's `https`, `https-socket`: a PEM certificate chain and key,
//! rustls with its safe TLS 1.2/1.3 defaults, as kolla-ansible's `octavia_enable_tls_backend`
//! and OSA's `octavia_backend_ssl` expect of the API server itself; httpd's TLS VirtualHosts
//! sharing a port, each its own pair chosen by the client's SNI name).
//!
//! Every listener serves the same router and stops taking connections when `stop` turns true
//! (axum's graceful shutdown: requests in flight finish). A TLS handshake runs in its own
//! task (bounded by [`HANDSHAKE_BOUND`]), so a slow client never holds the accept loop.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use axum::serve::ListenerExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::server::{ClientHello, ResolvesServerCert};
use tokio_rustls::rustls::sign::CertifiedKey;
use tokio_rustls::server::TlsStream;

use compat::uwsgi::{Listen, SniCert};

/// How long a client may take to finish its TLS handshake.
pub const HANDSHAKE_BOUND: Duration = Duration::from_secs(10);

/// One bound socket, ready to serve.
pub struct Bound {
    listener: TcpListener,
    tls: Option<TlsAcceptor>,
    /// What it is bound to, for the start-up line.
    pub addr: SocketAddr,
}

/// Binds every listener in `specs` (errors name the address; TLS files are read and checked
/// here, so a bad certificate stops start-up before anything is served).
pub async fn bind(specs: &[Listen]) -> anyhow::Result<Vec<Bound>> {
    let mut out = Vec::new();
    for s in specs {
        let tls = match &s.tls {
            Some((cert, key)) => Some(acceptor(cert, key, &s.sni)?),
            None => None,
        };
        let listener = TcpListener::bind(&s.addr)
            .await
            .with_context(|| format!("bind {}", s.addr))?;
        let addr = listener.local_addr()?;
        out.push(Bound {
            listener,
            tls,
            addr,
        });
    }
    Ok(out)
}

/// `true` for a TLS listener.
impl Bound {
    /// Whether it serves TLS.
    pub fn is_tls(&self) -> bool {
        self.tls.is_some()
    }
}

/// A PEM chain and key as rustls's signing pair. Errors name the files.
fn certified(
    provider: &rustls::crypto::CryptoProvider,
    cert: &Path,
    key: &Path,
) -> anyhow::Result<Arc<CertifiedKey>> {
    let read = |p: &Path| std::fs::read(p).with_context(|| format!("reading {}", p.display()));
    let chain = CertificateDer::pem_slice_iter(&read(cert)?)
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("certificate {}", cert.display()))?;
    if chain.is_empty() {
        anyhow::bail!("certificate {}: no PEM certificate", cert.display());
    }
    let key_der = PrivateKeyDer::from_pem_slice(&read(key)?)
        .with_context(|| format!("private key {}", key.display()))?;
    let ck = CertifiedKey::from_der(chain, key_der, provider).with_context(|| {
        format!(
            "certificate {} and key {} do not match",
            cert.display(),
            key.display()
        )
    })?;
    Ok(Arc::new(ck))
}

/// The pair for the client's SNI name, else the default (Apache: the first VirtualHost of
/// the address when no ServerName/ServerAlias matches).
#[derive(Debug)]
struct BySni {
    default: Arc<CertifiedKey>,
    named: Vec<(String, Arc<CertifiedKey>)>,
}

impl ResolvesServerCert for BySni {
    fn resolve(&self, hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        let asked = hello.server_name().map(str::to_ascii_lowercase);
        let hit = asked.and_then(|n| self.named.iter().find(|(k, _)| *k == n));
        Some(hit.map_or(self.default.clone(), |(_, c)| c.clone()))
    }
}

fn acceptor(cert: &Path, key: &Path, sni: &[SniCert]) -> anyhow::Result<TlsAcceptor> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut named = Vec::new();
    for s in sni {
        named.push((
            s.name.to_ascii_lowercase(),
            certified(&provider, &s.cert, &s.key)?,
        ));
    }
    let resolver = BySni {
        default: certified(&provider, cert, key)?,
        named,
    };
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_cert_resolver(Arc::new(resolver));
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// Accepted TLS connections, handshakes done elsewhere (axum's [`axum::serve::Listener`]).
struct TlsListener {
    rx: mpsc::Receiver<(TlsStream<TcpStream>, SocketAddr)>,
    local: SocketAddr,
    acceptor_task: tokio::task::JoinHandle<()>,
}

impl Drop for TlsListener {
    fn drop(&mut self) {
        self.acceptor_task.abort();
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.rx.recv().await {
            Some(c) => c,
            // the acceptor task ended (never, unless aborted): no more connections
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        Ok(self.local)
    }
}

fn tls_listener(listener: TcpListener, acceptor: TlsAcceptor, local: SocketAddr) -> TlsListener {
    let (tx, rx) = mpsc::channel(64);
    let acceptor_task = tokio::spawn(async move {
        loop {
            let (tcp, peer) = match listener.accept().await {
                Ok(c) => c,
                Err(e) => {
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            let _ = tcp.set_nodelay(true);
            let acceptor = acceptor.clone();
            let tx = tx.clone();
            tokio::spawn(async move {
                match tokio::time::timeout(HANDSHAKE_BOUND, acceptor.accept(tcp)).await {
                    Ok(Ok(tls)) => {
                        let _ = tx.send((tls, peer)).await;
                    }
                    Ok(Err(e)) => tracing::debug!(%peer, error = %e, "TLS handshake failed"),
                    Err(_) => tracing::debug!(%peer, "TLS handshake timed out"),
                }
            });
        }
    });
    TlsListener {
        rx,
        local,
        acceptor_task,
    }
}

/// Serves `app` on every listener until `stop` is true; resolves when all have stopped
/// (their requests in flight answered). Errors: the first server error.
pub fn spawn(
    bound: Vec<Bound>,
    app: axum::Router,
    stop: watch::Receiver<bool>,
) -> tokio::task::JoinHandle<std::io::Result<()>> {
    let mut tasks = Vec::new();
    for b in bound {
        let app = app.clone();
        let mut stop = stop.clone();
        let stopped = async move {
            let _ = stop.wait_for(|v| *v).await;
        };
        tasks.push(match b.tls {
            None => tokio::spawn(async move {
                // small responses go out at once, not behind Nagle's wait for an ACK
                let l = b.listener.tap_io(|tcp| {
                    let _ = tcp.set_nodelay(true);
                });
                axum::serve(l, app.into_make_service_with_connect_info::<SocketAddr>())
                    .with_graceful_shutdown(stopped)
                    .await
            }),
            Some(acceptor) => tokio::spawn(async move {
                // TapIo gives the connect-info impl (nodelay was set before the handshake)
                let l = tls_listener(b.listener, acceptor, b.addr).tap_io(|_| {});
                axum::serve(l, app.into_make_service_with_connect_info::<SocketAddr>())
                    .with_graceful_shutdown(stopped)
                    .await
            }),
        });
    }
    tokio::spawn(async move {
        for t in tasks {
            t.await.map_err(std::io::Error::other)??;
        }
        Ok(())
    })
}
