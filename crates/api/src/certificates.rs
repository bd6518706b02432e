//! TLS certificate references of listeners and pools, read from the certificate manager
//! before the provider is asked (seed 003 §5, seed 004 §5; octavia/api/v2/controllers/base.py
//! `_validate_tls_refs`).
//!
//! The checks are octavia/api/v2/controllers/base.py `_validate_tls_refs` and
//! `_validate_client_ca_and_crl_refs`; the [`CertManager`] seam plays Octavia's
//! `[certificates] cert_manager` (default `barbican_cert_manager`,
//! octavia/certificates/manager/barbican.py). Keel's binary implements it over Barbican with
//! the caller's token; without one every reference is unreadable, as Octavia with no
//! `key-manager` endpoint.
//!
//! Texts (all 400):
//! * any unreadable reference → `Could not retrieve certificate: ['<ref>', …]` (the refs as a
//!   Python list, `CertificateRetrievalException`);
//! * a secret whose payload is no PKCS12 bundle → `The PKCS12 bundle is unreadable. …`
//!   (`UnreadablePKCS12`, raised as is);
//! * a client CA that is no PEM certificate / a CRL that is no PEM CRL → Octavia's
//!   `ValidationException` texts.

use std::sync::Arc;

use async_trait::async_trait;

use crate::fault::ApiError;

/// A certificate bundle as the cert manager returns it (octavia/certificates/common/cert.py).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TlsCertificate {
    /// The certificate, PEM (or the DER bundle's bytes when it came as PKCS12).
    pub certificate: Vec<u8>,
    /// The private key, PEM, when the bundle carries one.
    pub private_key: Option<Vec<u8>>,
    /// Intermediate certificates, PEM each.
    pub intermediates: Vec<Vec<u8>>,
    /// The key's passphrase, if any.
    pub private_key_passphrase: Option<Vec<u8>>,
}

/// Why a reference could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CertError {
    /// Not found, not visible to the token, no key-manager endpoint, transport failure, not a
    /// certificate container… (Octavia: any exception of `get_cert`/`get_secret`). The text is
    /// for logs only; the API answers `Could not retrieve certificate: [<refs>]`.
    #[error("{0}")]
    Retrieval(String),
    /// The secret was read but is no password-less PKCS12 bundle; the text is the parser's
    /// error (cryptography's `Could not deserialize PKCS12 data`).
    #[error("{}", pkcs12_text(.0))]
    UnreadablePkcs12(String),
}

/// octavia/common/exceptions.py `UnreadablePKCS12` with its `error`.
fn pkcs12_text(error: &str) -> String {
    format!(
        "The PKCS12 bundle is unreadable. Please check the PKCS12 bundle validity. In addition, make sure it does not require a pass phrase. Error: {error}"
    )
}

/// The certificate manager, acting with the caller's token (`None` in noauth mode).
#[async_trait]
pub trait CertManager: Send + Sync + 'static {
    /// `get_cert(context, ref, check_only=True)`: a secret holding a PKCS12 bundle, else a
    /// Barbican certificate container (the legacy form), validated.
    async fn get_cert(
        &self,
        token: Option<&str>,
        cert_ref: &str,
    ) -> Result<TlsCertificate, CertError>;
    /// `get_secret(context, ref)`: the secret's payload (client CA / CRL, PEM).
    async fn get_secret(&self, token: Option<&str>, secret_ref: &str)
    -> Result<Vec<u8>, CertError>;
}

/// `str()` of a Python list of strings, e.g. `['a', "b'c"]` (the exception formats the list).
pub fn python_list_repr(items: &[String]) -> String {
    let parts: Vec<String> = items
        .iter()
        .map(|s| provider::metadata::py_str_repr(s))
        .collect();
    format!("[{}]", parts.join(", "))
}

fn retrieval(refs: &[String]) -> ApiError {
    ApiError::BadRequest(format!(
        "Could not retrieve certificate: {}",
        python_list_repr(refs)
    ))
}

/// `_validate_tls_refs`: every ref read with `get_cert`; the unreadable ones are reported
/// together (400 `Could not retrieve certificate: [...]`), an unreadable PKCS12 bundle at
/// once (400 `The PKCS12 bundle is unreadable. …`). No manager = every ref unreadable.
pub async fn validate_tls_refs(
    cm: Option<&Arc<dyn CertManager>>,
    token: Option<&str>,
    refs: &[String],
) -> Result<(), ApiError> {
    let mut bad = Vec::new();
    for r in refs {
        let res = match cm {
            Some(cm) => cm.get_cert(token, r).await.map(|_| ()),
            None => Err(CertError::Retrieval("no certificate manager".into())),
        };
        match res {
            Ok(()) => {}
            Err(e @ CertError::UnreadablePkcs12(_)) => {
                return Err(ApiError::BadRequest(e.to_string()));
            }
            Err(e) => {
                tracing::warn!(cert_ref = %r, error = %e, "certificate reference unreadable");
                bad.push(r.clone());
            }
        }
    }
    if bad.is_empty() {
        Ok(())
    } else {
        Err(retrieval(&bad))
    }
}

/// `_validate_client_ca_and_crl_refs`: both secrets read (unreadable → 400 `Could not
/// retrieve certificate: [...]` naming each), then the CA must be a PEM X.509 certificate and
/// the CRL a PEM CRL (Octavia's `ValidationException` texts). The CRL's signature is not
/// checked against the CA (Octavia does; Keel has no X.509 signature code).
pub async fn validate_client_ca_and_crl_refs(
    cm: Option<&Arc<dyn CertManager>>,
    token: Option<&str>,
    ca_ref: &str,
    crl_ref: Option<&str>,
) -> Result<(), ApiError> {
    let fetch = |r: String| async move {
        match cm {
            Some(cm) => cm.get_secret(token, &r).await,
            None => Err(CertError::Retrieval("no certificate manager".into())),
        }
    };
    let mut bad = Vec::new();
    let ca = fetch(ca_ref.to_string()).await;
    if ca.is_err() {
        bad.push(ca_ref.to_string());
    }
    let crl = match crl_ref {
        Some(r) => {
            let c = fetch(r.to_string()).await;
            if c.is_err() {
                bad.push(r.to_string());
            }
            c.ok()
        }
        None => None,
    };
    if !bad.is_empty() {
        return Err(retrieval(&bad));
    }
    if let Ok(ca) = ca {
        pem_der(&ca, PemBlock::Certificate).map_err(|e| {
            ApiError::Validation(format!(
                "The client authentication CA certificate is invalid. It must be a valid x509 PEM format certificate. Error: {e}"
            ))
        })?;
    }
    if let Some(crl) = crl.filter(|c| !c.is_empty()) {
        pem_der(&crl, PemBlock::Crl).map_err(|e| {
            ApiError::Validation(format!(
                "The client authentication certificate revocation list is invalid. It must be a valid x509 PEM format certificate revocation list. Error: {e}"
            ))
        })?;
    }
    Ok(())
}

/// Why [`pem_der`] refused a PEM text. Each text is the one cryptography's
/// `load_pem_x509_certificate` / `load_pem_x509_crl` raise in Octavia (quoted after `Error: `
/// in the 400 of octavia/api/v2/controllers/base.py `_validate_client_ca_and_crl_refs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PemError {
    /// No block of the wanted kind, or its framing or base64 is broken: cryptography's
    /// `MalformedFraming`.
    #[error(
        "Unable to load PEM file. See https://cryptography.io/en/latest/faq/#why-can-t-i-import-my-pem-file for more details. MalformedFraming"
    )]
    MalformedFraming,
    /// The DER ends inside a TLV (rust-asn1's `ShortData`, as cryptography shows it).
    #[error("error parsing asn1 value: ParseError {{ kind: ShortData }}")]
    ShortData,
    /// The DER is not a SEQUENCE of SEQUENCE, SEQUENCE, BIT STRING, or has trailing bytes
    /// (rust-asn1's `UnexpectedTag`, as cryptography shows it).
    #[error("error parsing asn1 value: ParseError {{ kind: UnexpectedTag }}")]
    UnexpectedTag,
}

/// Which PEM block [`pem_der`] looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PemBlock {
    /// `-----BEGIN CERTIFICATE-----`
    Certificate,
    /// `-----BEGIN X509 CRL-----`
    Crl,
}

/// The DER of the first PEM block of kind `block` (framing and base64 by `rustls-pki-types`;
/// blocks of other kinds are skipped), checked to be one DER SEQUENCE of SEQUENCEs
/// (certificate/CRL outline: to-be-signed, algorithm, signature). Errors: [`PemError`].
pub fn pem_der(pem: &[u8], block: PemBlock) -> Result<Vec<u8>, PemError> {
    use rustls_pki_types::pem::{PemObject, SectionKind};
    let want = match block {
        PemBlock::Certificate => SectionKind::Certificate,
        PemBlock::Crl => SectionKind::Crl,
    };
    let der = <(SectionKind, Vec<u8>)>::pem_slice_iter(pem)
        .find_map(|item| match item {
            Ok((kind, der)) if kind == want => Some(Ok(der)),
            Ok(_) => None,
            Err(e) => Some(Err(e)),
        })
        .and_then(Result::ok)
        .ok_or(PemError::MalformedFraming)?;
    let (tag, content, rest) = der_tlv(&der).ok_or(PemError::ShortData)?;
    if tag != 0x30 || !rest.is_empty() {
        return Err(PemError::UnexpectedTag);
    }
    let (t1, _, rest) = der_tlv(content).ok_or(PemError::ShortData)?;
    let (t2, _, rest) = der_tlv(rest).ok_or(PemError::ShortData)?;
    let (t3, _, _) = der_tlv(rest).ok_or(PemError::ShortData)?;
    if t1 != 0x30 || t2 != 0x30 || t3 != 0x03 {
        return Err(PemError::UnexpectedTag);
    }
    Ok(der)
}

/// One DER TLV: `(tag, content, rest)`; `None` when truncated or the length is malformed.
fn der_tlv(b: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let tag = *b.first()?;
    let first = *b.get(1)?;
    let (len, hdr) = if first < 0x80 {
        (usize::from(first), 2)
    } else {
        let n = usize::from(first & 0x7f);
        if n == 0 || n > 4 {
            return None;
        }
        let mut len = 0usize;
        for i in 0..n {
            len = (len << 8) | usize::from(*b.get(2 + i)?);
        }
        (len, 2 + n)
    };
    let end = hdr.checked_add(len)?;
    if end > b.len() {
        return None;
    }
    Some((tag, &b[hdr..end], &b[end..]))
}

/// octavia/certificates/common/pkcs12.py `PKCS12Cert` (`load_pkcs12(bundle, None)`): is
/// `der` a PKCS12 PFX (`SEQUENCE { INTEGER 3, ContentInfo, MacData }`) that opens without a
/// pass phrase? Errors, as cryptography's: `Could not deserialize PKCS12 data` (no PFX),
/// `Invalid password or PKCS12 data` (its MAC — HMAC-SHA1/256/384/512 — does not verify
/// with the empty or the absent password). The bags are not decrypted; a MAC with another
/// digest, or none, is not checked.
pub fn check_pkcs12(der: &[u8]) -> Result<(), CertError> {
    let bad = || CertError::UnreadablePkcs12("Could not deserialize PKCS12 data".into());
    let (tag, content, rest) = der_tlv(der).ok_or_else(bad)?;
    if tag != 0x30 || !rest.is_empty() {
        return Err(bad());
    }
    let (t, version, rest) = der_tlv(content).ok_or_else(bad)?;
    if t != 0x02 || version != [3] {
        return Err(bad());
    }
    let (t, auth_safe, mac_data) = der_tlv(rest).ok_or_else(bad)?;
    if t != 0x30 {
        return Err(bad());
    }
    let (t, _, _) = der_tlv(auth_safe).ok_or_else(bad)?;
    if t != 0x06 {
        return Err(bad());
    }
    match pkcs12_mac_opens(auth_safe, mac_data) {
        Some(false) => Err(CertError::UnreadablePkcs12(
            "Invalid password or PKCS12 data".into(),
        )),
        _ => Ok(()),
    }
}

/// Digest algorithms of a PKCS12 MAC: OID content bytes → algorithm.
#[derive(Clone, Copy)]
enum MacDigest {
    Sha1,
    Sha256,
    Sha384,
    Sha512,
}

impl MacDigest {
    fn from_oid(oid: &[u8]) -> Option<Self> {
        const NIST: [u8; 8] = [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02];
        match oid {
            [0x2b, 0x0e, 0x03, 0x02, 0x1a] => Some(Self::Sha1),
            [head @ .., n] if head == NIST => match n {
                1 => Some(Self::Sha256),
                2 => Some(Self::Sha384),
                3 => Some(Self::Sha512),
                _ => None,
            },
            _ => None,
        }
    }

    /// Hash block size `v` (bytes), RFC 7292 B.2.
    fn block(self) -> usize {
        match self {
            Self::Sha1 | Self::Sha256 => 64,
            Self::Sha384 | Self::Sha512 => 128,
        }
    }

    fn hash(self, data: &[u8]) -> Vec<u8> {
        use sha2::Digest;
        match self {
            Self::Sha1 => sha1::Sha1::digest(data).to_vec(),
            Self::Sha256 => sha2::Sha256::digest(data).to_vec(),
            Self::Sha384 => sha2::Sha384::digest(data).to_vec(),
            Self::Sha512 => sha2::Sha512::digest(data).to_vec(),
        }
    }

    fn hmac(self, key: &[u8], data: &[u8]) -> Option<Vec<u8>> {
        use hmac::{Hmac, Mac};
        fn run<M: Mac + hmac::digest::KeyInit>(key: &[u8], data: &[u8]) -> Option<Vec<u8>> {
            let mut m = <M as hmac::digest::KeyInit>::new_from_slice(key).ok()?;
            m.update(data);
            Some(m.finalize().into_bytes().to_vec())
        }
        match self {
            Self::Sha1 => run::<Hmac<sha1::Sha1>>(key, data),
            Self::Sha256 => run::<Hmac<sha2::Sha256>>(key, data),
            Self::Sha384 => run::<Hmac<sha2::Sha384>>(key, data),
            Self::Sha512 => run::<Hmac<sha2::Sha512>>(key, data),
        }
    }

    /// RFC 7292 B.2 key derivation, ID 3 (MAC key), key length = digest length.
    fn mac_key(self, password: &[u8], salt: &[u8], iterations: u64) -> Vec<u8> {
        let v = self.block();
        let fill = |x: &[u8]| -> Vec<u8> {
            if x.is_empty() {
                return vec![];
            }
            let n = v * x.len().div_ceil(v);
            x.iter().copied().cycle().take(n).collect()
        };
        let mut input = vec![3u8; v];
        input.extend(fill(salt));
        input.extend(fill(password));
        let mut a = self.hash(&input);
        for _ in 1..iterations.max(1) {
            a = self.hash(&a);
        }
        a
    }
}

/// The PFX's MAC checked with the empty password (BMPString `00 00`) and the absent one, as
/// OpenSSL does for a NULL pass phrase. `Some(true)`: it opens; `Some(false)`: wrong
/// password or damaged; `None`: no MAC, or a form this check does not read.
fn pkcs12_mac_opens(auth_safe: &[u8], mac_data: &[u8]) -> Option<bool> {
    // authSafe ContentInfo { OID data, [0] { OCTET STRING } }: the MAC covers the octets.
    let (_, _, rest) = der_tlv(auth_safe)?;
    let (t, explicit, _) = der_tlv(rest)?;
    let (t2, data, _) = der_tlv(explicit)?;
    if t != 0xa0 || t2 != 0x04 {
        return None;
    }
    // MacData { DigestInfo { AlgorithmIdentifier { OID, … }, OCTET STRING }, salt, iterations }
    let (t, mac_data, _) = der_tlv(mac_data)?;
    if t != 0x30 {
        return None;
    }
    let (_, digest_info, rest) = der_tlv(mac_data)?;
    let (_, alg, rest_di) = der_tlv(digest_info)?;
    let (t, oid, _) = der_tlv(alg)?;
    let (t2, mac, _) = der_tlv(rest_di)?;
    if t != 0x06 || t2 != 0x04 {
        return None;
    }
    let digest = MacDigest::from_oid(oid)?;
    let (t, salt, rest) = der_tlv(rest)?;
    if t != 0x04 {
        return None;
    }
    let iterations = match der_tlv(rest) {
        Some((0x02, n, _)) if n.len() <= 8 => {
            n.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b))
        }
        Some(_) => return None,
        None => 1,
    };
    if iterations > 10_000_000 {
        return None;
    }
    let opens = |password: &[u8]| {
        let key = digest.mac_key(password, salt, iterations);
        digest.hmac(&key, data).is_some_and(|m| m == mac)
    };
    Some(opens(&[0, 0]) || opens(&[]))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use base64::Engine;

    #[test]
    fn python_list_text() {
        assert_eq!(
            python_list_repr(&["http://b/v1/secrets/x".into()]),
            "['http://b/v1/secrets/x']"
        );
        assert_eq!(
            python_list_repr(&["a'b".into(), "c\"d'".into(), "é\n".into()]),
            r#"["a'b", 'c"d\'', 'é\n']"#
        );
        assert_eq!(python_list_repr(&[]), "[]");
    }

    #[test]
    fn pkcs12_outline() {
        assert_eq!(
            check_pkcs12(b"hello").unwrap_err().to_string(),
            "The PKCS12 bundle is unreadable. Please check the PKCS12 bundle validity. In addition, make sure it does not require a pass phrase. Error: Could not deserialize PKCS12 data"
        );
        // version 3, ContentInfo { OID 1.2.840.113549.1.7.1 }
        let pfx = [
            0x30, 0x10, 0x02, 0x01, 0x03, 0x30, 0x0b, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7,
            0x0d, 0x01, 0x07, 0x01,
        ];
        assert!(check_pkcs12(&pfx).is_ok());
        let mut v2 = pfx;
        v2[4] = 2;
        assert!(check_pkcs12(&v2).is_err());
        assert!(check_pkcs12(&pfx[..10]).is_err());
    }

    #[test]
    fn pkcs12_bundles_made_by_openssl() {
        // EC key + self-signed cert, `openssl pkcs12 -export` (OpenSSL 3): empty pass phrase
        // with SHA-256 and SHA-1 MACs, and a bundle behind the pass phrase "pw".
        let nopass = include_bytes!("../tests/data/nopass-sha256.p12");
        let nopass_sha1 = include_bytes!("../tests/data/nopass-sha1.p12");
        let pass = include_bytes!("../tests/data/pass-sha256.p12");
        assert_eq!(check_pkcs12(nopass), Ok(()));
        assert_eq!(check_pkcs12(nopass_sha1), Ok(()));
        assert_eq!(
            check_pkcs12(pass),
            Err(CertError::UnreadablePkcs12(
                "Invalid password or PKCS12 data".into()
            ))
        );
        // One flipped byte inside the authenticated data breaks the MAC.
        let mut damaged = nopass.to_vec();
        damaged[200] ^= 0x01;
        assert!(check_pkcs12(&damaged).is_err());
    }

    #[test]
    fn pem_outline() {
        assert_eq!(
            pem_der(b"nope", PemBlock::Certificate).unwrap_err(),
            PemError::MalformedFraming
        );
        assert_eq!(
            PemError::MalformedFraming.to_string(),
            "Unable to load PEM file. See https://cryptography.io/en/latest/faq/#why-can-t-i-import-my-pem-file for more details. MalformedFraming"
        );
        // SEQUENCE { SEQUENCE {}, SEQUENCE {}, BIT STRING {0} }
        let der = [0x30, 0x07, 0x30, 0x00, 0x30, 0x00, 0x03, 0x01, 0x00];
        let b64 = base64::engine::general_purpose::STANDARD.encode(der);
        let pem = format!("-----BEGIN CERTIFICATE-----\n{b64}\n-----END CERTIFICATE-----\n");
        assert_eq!(pem_der(pem.as_bytes(), PemBlock::Certificate).unwrap(), der);
        assert_eq!(
            pem_der(pem.as_bytes(), PemBlock::Crl).unwrap_err(),
            PemError::MalformedFraming
        );
        let short = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
        let e = pem_der(short.as_bytes(), PemBlock::Certificate).unwrap_err();
        assert_eq!(e, PemError::ShortData);
        assert_eq!(
            e.to_string(),
            "error parsing asn1 value: ParseError { kind: ShortData }"
        );
        // SEQUENCE { SEQUENCE {}, SEQUENCE {}, INTEGER 0 }: no signature BIT STRING.
        let der = [0x30, 0x07, 0x30, 0x00, 0x30, 0x00, 0x02, 0x01, 0x00];
        let b64 = base64::engine::general_purpose::STANDARD.encode(der);
        let pem = format!("-----BEGIN CERTIFICATE-----\n{b64}\n-----END CERTIFICATE-----\n");
        let e = pem_der(pem.as_bytes(), PemBlock::Certificate).unwrap_err();
        assert_eq!(e, PemError::UnexpectedTag);
        assert_eq!(
            e.to_string(),
            "error parsing asn1 value: ParseError { kind: UnexpectedTag }"
        );
    }
}
