//! `ssl = true`: the rustls client configuration (ring provider) built from the `ssl_*`
//! options, verifying the broker as oslo.messaging's `Connection._fetch_ssl_params` and
//! py-amqp's `SSLTransport._wrap_socket_sni` do with Python's `ssl` module:
//!
//! | `ssl_ca_file` | `ssl_version` | chain verified against | name checked |
//! |---|---|---|---|
//! | set | any | that file only | yes, the host being dialled |
//! | empty | empty | the system CAs (`load_default_certs`) | no |
//! | empty | set | nothing (Python's `CERT_NONE` default for `PROTOCOL_TLS`/`_TLSv1_2`) | no |
//!
//! `ssl_cert_file` (with `ssl_key_file`, or the key inside the certificate file) is presented
//! when RabbitMQ asks for a client certificate. Files are read at every connection attempt, so
//! rotated files are picked up at the next reconnect.

use std::sync::Arc;

use tokio_rustls::rustls::client::WebPkiServerVerifier;
use tokio_rustls::rustls::client::danger::{
    HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier,
};
use tokio_rustls::rustls::crypto::{
    CryptoProvider, verify_tls12_signature, verify_tls13_signature,
};
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use tokio_rustls::rustls::{
    self, CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};

use crate::error::{ConfigError, TlsFileCause};
use compat::catalog::oslo_messaging_rabbit as r;

/// What `ssl_version` selects (see [`crate::RabbitOptions::ssl_version`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TlsVersion {
    /// Unset: Python's `PROTOCOL_TLS_CLIENT` (verifies the chain).
    Default,
    /// `sslv23`: Python's `PROTOCOL_TLS` (verifies nothing without a CA file).
    Negotiated,
    /// `tlsv1_2`: TLS 1.2 only (verifies nothing without a CA file).
    Tls12Only,
}

/// The `ssl_*` options the TLS configuration is built from (empty path: unset).
#[derive(Debug, Clone, Copy)]
pub(crate) struct TlsSettings<'a> {
    /// `ssl_ca_file`.
    pub(crate) ca_file: &'a str,
    /// `ssl_cert_file`.
    pub(crate) cert_file: &'a str,
    /// `ssl_key_file`.
    pub(crate) key_file: &'a str,
    /// `ssl_version`, as validated.
    pub(crate) version: TlsVersion,
    /// `ssl_version` as written (for the warning).
    pub(crate) version_text: &'a str,
}

fn read(option: &'static str, path: &str) -> Result<Vec<u8>, ConfigError> {
    std::fs::read(path)
        .map_err(|e| file_err(option, path, "cannot be read", Some(TlsFileCause::Io(e))))
}

fn file_err(
    option: &'static str,
    path: &str,
    reason: &'static str,
    source: Option<TlsFileCause>,
) -> ConfigError {
    ConfigError::TlsFile {
        option,
        path: path.to_owned(),
        reason,
        source,
    }
}

fn certs(option: &'static str, path: &str) -> Result<Vec<CertificateDer<'static>>, ConfigError> {
    let pem = read(option, path)?;
    let certs = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| {
            file_err(
                option,
                path,
                "bad PEM certificate",
                Some(TlsFileCause::Pem(e)),
            )
        })?;
    if certs.is_empty() {
        return Err(file_err(option, path, "holds no PEM certificate", None));
    }
    Ok(certs)
}

/// The client certificate chain and key, when `ssl_cert_file` is set.
fn identity(
    o: &TlsSettings<'_>,
) -> Result<Option<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>)>, ConfigError> {
    if o.cert_file.is_empty() {
        if !o.key_file.is_empty() {
            tracing::warn!(
                ssl_key_file = %o.key_file,
                "[oslo_messaging_rabbit] ssl_key_file is set without ssl_cert_file: ignored, as by oslo.messaging"
            );
        }
        return Ok(None);
    }
    let chain = certs(r::SSL_CERT_FILE.opt.name, o.cert_file)?;
    let (option, path) = if o.key_file.is_empty() {
        (r::SSL_CERT_FILE.opt.name, o.cert_file)
    } else {
        (r::SSL_KEY_FILE.opt.name, o.key_file)
    };
    let key = PrivateKeyDer::from_pem_slice(&read(option, path)?).map_err(|e| {
        file_err(
            option,
            path,
            "no usable PEM private key",
            Some(TlsFileCause::Pem(e)),
        )
    })?;
    Ok(Some((chain, key)))
}

/// Reads and parses the files `ssl_*` name (for [`crate::RabbitOptions::check`]).
pub(crate) fn check_files(o: &TlsSettings<'_>) -> Result<(), ConfigError> {
    if !o.ca_file.is_empty() {
        certs(r::SSL_CA_FILE.opt.name, o.ca_file)?;
    }
    identity(o)?;
    Ok(())
}

fn tls_err(context: &str) -> impl FnOnce(rustls::Error) -> ConfigError + '_ {
    move |source| ConfigError::Tls {
        context: context.to_owned(),
        source,
    }
}

/// Builds the rustls configuration for `o` (see the module doc). Errors: unreadable or invalid
/// files ([`ConfigError::TlsFile`]), no system CA to verify with ([`ConfigError::Option`]),
/// rustls refusing the key ([`ConfigError::Tls`]).
pub(crate) fn client_config(o: &TlsSettings<'_>) -> Result<Arc<ClientConfig>, ConfigError> {
    let version = o.version;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier: Arc<dyn ServerCertVerifier> = if !o.ca_file.is_empty() {
        let mut roots = RootCertStore::empty();
        for c in certs(r::SSL_CA_FILE.opt.name, o.ca_file)? {
            roots.add(c).map_err(|e| {
                file_err(
                    r::SSL_CA_FILE.opt.name,
                    o.ca_file,
                    "bad CA",
                    Some(TlsFileCause::Rustls(e)),
                )
            })?;
        }
        WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
            .build()
            .map_err(|e| {
                file_err(
                    r::SSL_CA_FILE.opt.name,
                    o.ca_file,
                    "",
                    Some(TlsFileCause::Verifier(e)),
                )
            })?
    } else if version == TlsVersion::Default {
        let mut roots = RootCertStore::empty();
        let native = rustls_native_certs::load_native_certs();
        for e in &native.errors {
            tracing::warn!(error = %e, "loading the system CA certificates");
        }
        let (added, _ignored) = roots.add_parsable_certificates(native.certs);
        if added == 0 {
            return Err(ConfigError::Option {
                option: r::SSL_CA_FILE.opt.name,
                reason: "unset, and no system CA certificate could be loaded to verify RabbitMQ"
                    .into(),
            });
        }
        let webpki = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
            .build()
            .map_err(|e| ConfigError::Option {
                option: r::SSL_CA_FILE.opt.name,
                reason: format!("system CA certificates: {e}"),
            })?;
        Arc::new(ChainOnly(webpki))
    } else {
        tracing::warn!(
            ssl_version = %o.version_text,
            "[oslo_messaging_rabbit] ssl_version is set without ssl_ca_file: RabbitMQ's certificate is not verified (as oslo.messaging with Python's ssl module)"
        );
        Arc::new(NoVerification(provider.clone()))
    };
    let builder = ClientConfig::builder_with_provider(provider);
    let builder = match version {
        TlsVersion::Tls12Only => builder.with_protocol_versions(&[&rustls::version::TLS12]),
        TlsVersion::Default | TlsVersion::Negotiated => {
            builder.with_safe_default_protocol_versions()
        }
    }
    .map_err(tls_err("protocol versions"))?
    .dangerous()
    .with_custom_certificate_verifier(verifier);
    let config = match identity(o)? {
        Some((chain, key)) => builder
            .with_client_auth_cert(chain, key)
            .map_err(tls_err("ssl_cert_file / ssl_key_file"))?,
        None => builder.with_no_client_auth(),
    };
    Ok(Arc::new(config))
}

/// The webpki verifier without the name check (`ssl` without `ssl_ca_file`).
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
    ) -> Result<ServerCertVerified, rustls::Error> {
        // webpki checks the chain before the name: a name error means the chain is trusted.
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
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

/// Accepts any certificate (Python's `CERT_NONE`), still checking the handshake signatures.
#[derive(Debug)]
struct NoVerification(Arc<CryptoProvider>);

impl ServerCertVerifier for NoVerification {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}
