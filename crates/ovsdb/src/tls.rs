//! `ssl:` remotes: TLS over TCP with a client certificate, verified as OVS does.
//!
//! OVS (lib/stream-ssl.c) requires the peer's certificate to chain to the configured CA
//! certificate and sends its own certificate; it does not match the certificate's name against
//! the remote address (ovs-pki certificates carry only a CN such as `ovsdb id:…`). We do the
//! same: full webpki chain, validity-period and key-usage checks against the CA file, the name
//! check alone waived.

use std::path::PathBuf;
use std::sync::Arc;

use tokio_rustls::rustls;
use tokio_rustls::rustls::client::WebPkiServerVerifier;
use tokio_rustls::rustls::client::danger::{
    HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier,
};
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use tokio_rustls::rustls::{CertificateError, DigitallySignedStruct, SignatureScheme};

use tokio::io::{AsyncRead, AsyncWrite};

use crate::error::{Cause, Error, Result};

/// PEM files for `ssl:` remotes: `[ovn] ovn_nb_private_key`, `ovn_nb_certificate`,
/// `ovn_nb_ca_cert` (ovn-octavia-provider config), as `ovsdb-client --private-key
/// --certificate --ca-cert`. Read at every connect, so rotated files are picked up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SslFiles {
    /// PEM private key (PKCS#8, PKCS#1 RSA or SEC1 EC).
    pub private_key: PathBuf,
    /// PEM certificate chain presented to the server (leaf first).
    pub certificate: PathBuf,
    /// PEM CA certificate(s) the server's certificate must chain to.
    pub ca_cert: PathBuf,
}

fn read(path: &PathBuf) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| Error::tls(format!("reading {}", path.display()), e))
}

impl SslFiles {
    /// Builds the rustls client configuration (ring provider, TLS 1.2 and 1.3). Errors:
    /// [`Error::Tls`] for unreadable or invalid files.
    fn client_config(&self) -> Result<rustls::ClientConfig> {
        let bad = |what: &str, p: &PathBuf, cause: Option<Cause>| Error::Tls {
            context: format!("{what} {}", p.display()),
            cause,
        };
        let ca = read(&self.ca_cert)?;
        let mut roots = rustls::RootCertStore::empty();
        for c in CertificateDer::pem_slice_iter(&ca) {
            let c = c.map_err(|e| bad("CA certificate", &self.ca_cert, Some(Arc::new(e))))?;
            roots
                .add(c)
                .map_err(|e| bad("CA certificate", &self.ca_cert, Some(Arc::new(e))))?;
        }
        if roots.is_empty() {
            return Err(Error::Tls {
                context: format!("CA certificate {}: no certificate", self.ca_cert.display()),
                cause: None,
            });
        }
        let chain = CertificateDer::pem_slice_iter(&read(&self.certificate)?)
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| bad("certificate", &self.certificate, Some(Arc::new(e))))?;
        if chain.is_empty() {
            return Err(Error::Tls {
                context: format!("certificate {}: no certificate", self.certificate.display()),
                cause: None,
            });
        }
        let key = PrivateKeyDer::from_pem_slice(&read(&self.private_key)?)
            .map_err(|e| bad("private key", &self.private_key, Some(Arc::new(e))))?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let webpki = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
            .build()
            .map_err(|e| Error::tls("CA certificate", e))?;
        rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| Error::tls("protocol versions", e))?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(ChainOnly(webpki)))
            .with_client_auth_cert(chain, key)
            .map_err(|e| {
                bad(
                    "private key / certificate",
                    &self.private_key,
                    Some(Arc::new(e)),
                )
            })
    }
}

/// The webpki verifier minus the name check (see the module doc).
#[derive(Debug)]
struct ChainOnly(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        // webpki checks the chain (signature, validity, usage) before the name, so a name
        // mismatch means the chain itself is trusted.
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

/// TLS handshake over `tcp`, with the files as they are on disk now (read again at every
/// call: a reconnect after the files were replaced uses the new ones). Errors: [`Error::Tls`]
/// (bad files, untrusted server certificate, server refusing our certificate).
pub(crate) async fn wrap<S>(tcp: S, files: &SslFiles) -> Result<tokio_rustls::client::TlsStream<S>>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let config = files.client_config()?;
    // Any syntactically valid name: it is not matched against the certificate.
    let name = ServerName::try_from("ovsdb-server").map_err(|e| Error::tls("server name", e))?;
    tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(name, tcp)
        .await
        .map_err(|e| Error::tls("handshake", e))
}
