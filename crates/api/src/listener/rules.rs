//! The protocol-dependent rules on a listener's fields, on create and on update
//! (octavia/api/v2/controllers/listener.py `_validate_create_listener`,
//! `_validate_listener_PUT`, `_validate_insert_headers`; octavia/common/validate.py
//! `check_tls_version_list`, `check_alpn_protocols`, `check_hsts_options[_put]`), with the
//! reference's texts. An update is checked against the listener's stored protocol and values.

use crate::fault::ApiError;
use octavia_db::ListenerRow;
use serde_json::{Map, Value};

use crate::listener::body::{ListenerPost, ListenerPut};
use crate::types::{Patch, Strings};

/// `SUPPORTED_HTTP_HEADERS` (octavia-lib constants).
pub const HTTP_HEADERS: &[&str] = &[
    "X-Forwarded-For",
    "X-Forwarded-Port",
    "X-Forwarded-Proto",
    "X-Forwarded-IP",
    "X-Client-IP",
    "X-Real-IP",
];
/// `SUPPORTED_SSL_HEADERS` (octavia-lib constants): only on TERMINATED_HTTPS listeners.
pub const SSL_HEADERS: &[&str] = &[
    "X-SSL-Client-Verify",
    "X-SSL-Client-Has-Cert",
    "X-SSL-Client-DN",
    "X-SSL-Client-CN",
    "X-SSL-Issuer",
    "X-SSL-Client-SHA1",
    "X-SSL-Client-Not-Before",
    "X-SSL-Client-Not-After",
];
pub const TLS_ALL_VERSIONS: &[&str] = &["SSLv3", "TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3"];
/// `default_listener_tls_versions` / `default_pool_tls_versions` (octavia.conf default).
pub const DEFAULT_TLS_VERSIONS: &[&str] = &["TLSv1.2", "TLSv1.3"];
/// `default_listener_alpn_protocols` (octavia.conf default).
pub const DEFAULT_LISTENER_ALPN: &[&str] = &["h2", "http/1.1", "http/1.0"];

/// A default list as the owned strings a row or a model holds.
pub fn owned(list: &[&str]) -> Vec<String> {
    list.iter().map(|x| (*x).to_string()).collect()
}

fn py_list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|i| format!("'{i}'")).collect();
    format!("[{}]", quoted.join(", "))
}

/// The header names of a non-empty `insert_headers`.
fn header_keys(h: Option<&Map<String, Value>>) -> Option<Vec<String>> {
    h.filter(|h| !h.is_empty())
        .map(|h| h.keys().cloned().collect())
}

/// `_validate_insert_headers`: the protocol must support header insertion, every key must be
/// a supported header, and the SSL ones need TERMINATED_HTTPS.
pub fn check_insert_headers(keys: &[String], protocol: &str) -> Result<(), ApiError> {
    if !matches!(protocol, "HTTP" | "TERMINATED_HTTPS") {
        return Err(ApiError::BadRequest(format!(
            "insert-headers is not a valid option for a {protocol} protocol listener."
        )));
    }
    let known =
        |k: &String| HTTP_HEADERS.contains(&k.as_str()) || SSL_HEADERS.contains(&k.as_str());
    if !keys.iter().all(known) {
        return Err(ApiError::BadRequest(format!(
            "{} is not a valid option for insert_headers",
            py_list(keys)
        )));
    }
    if protocol != "TERMINATED_HTTPS" {
        let ssl: Vec<String> = keys
            .iter()
            .filter(|k| SSL_HEADERS.contains(&k.as_str()))
            .cloned()
            .collect();
        if !ssl.is_empty() {
            return Err(ApiError::BadRequest(format!(
                "{} is not a valid option for {protocol} protocol listener.",
                py_list(&ssl)
            )));
        }
    }
    Ok(())
}

/// `check_tls_version_list`: `None` (unset/null) passes; `[]` and unknown versions do not.
pub fn check_tls_versions(versions: Option<&[String]>) -> Result<(), ApiError> {
    let Some(v) = versions else { return Ok(()) };
    if v.is_empty() {
        return Err(ApiError::Validation("Empty TLS version list. Either specify at least one TLS version or remove this parameter to use the default.".into()));
    }
    let bad: Vec<&str> = v
        .iter()
        .map(String::as_str)
        .filter(|x| !TLS_ALL_VERSIONS.contains(x))
        .collect();
    if !bad.is_empty() {
        return Err(ApiError::Validation(format!(
            "Invalid TLS versions: {}",
            bad.join(", ")
        )));
    }
    Ok(())
}

/// `check_alpn_protocols`: `[]` is refused (the items were checked by the type).
pub fn check_alpn(protocols: Option<&[String]>) -> Result<(), ApiError> {
    if protocols.is_some_and(<[String]>::is_empty) {
        return Err(ApiError::Validation("Empty ALPN protocol list. Either specify at least one ALPN protocol or remove this parameter to use the default.".into()));
    }
    Ok(())
}

/// A non-empty default certificate ref or SNI list.
fn has_tls_refs(default_ref: Option<&String>, sni: Option<&Strings>) -> bool {
    default_ref.is_some_and(|r| !r.is_empty()) || sni.is_some_and(|l| !l.is_empty())
}

/// The create rules, in the reference's order (`_validate_create_listener`).
pub fn check_create(b: &ListenerPost, protocol: &str) -> Result<(), ApiError> {
    if let Some(keys) = header_keys(b.insert_headers.as_ref()) {
        check_insert_headers(&keys, protocol)?;
    }
    let tls_refs = has_tls_refs(
        b.default_tls_container_ref.as_ref(),
        b.sni_container_refs.as_ref(),
    );
    let client_ca = b
        .client_ca_tls_container_ref
        .as_ref()
        .is_some_and(|r| !r.is_empty());
    if matches!(protocol, "UDP" | "SCTP") && tls_refs {
        return Err(ApiError::Validation(format!(
            "{protocol} protocol listener does not support TLS."
        )));
    }
    let offload = protocol == "TERMINATED_HTTPS" || (protocol == "PROMETHEUS" && tls_refs);
    if !offload && tls_refs {
        return Err(ApiError::Validation(format!(
            "Certificate container references are not allowed on {protocol} protocol listeners."
        )));
    }
    if client_ca && !tls_refs {
        return Err(ApiError::Validation("An SNI or default certificate container reference must be provided with a client CA container reference.".into()));
    }
    if offload && !tls_refs {
        return Err(ApiError::Validation(format!(
            "An SNI or default certificate container reference must be provided for {protocol} protocol listeners."
        )));
    }
    let auth = b.client_authentication.as_deref().unwrap_or("NONE");
    if auth != "NONE" && !client_ca {
        return Err(ApiError::Validation(format!(
            "Client authentication setting {auth} requires a client CA container reference."
        )));
    }
    if b.client_crl_container_ref
        .as_ref()
        .is_some_and(|r| !r.is_empty())
        && !client_ca
    {
        return Err(ApiError::Validation("A client authentication CA reference is required to specify a client authentication revocation list.".into()));
    }
    check_tls_versions(b.tls_versions.as_deref().map(Vec::as_slice))?;
    check_alpn(b.alpn_protocols.as_deref().map(Vec::as_slice))?;
    let max_age = b.hsts_max_age.is_some();
    if (b.hsts_include_subdomains == Some(true) || b.hsts_preload == Some(true)) && !max_age {
        return Err(ApiError::Validation("HSTS configuration options hsts_include_subdomains and hsts_preload only make sense if hsts_max_age is set as well.".into()));
    }
    if max_age && protocol != "TERMINATED_HTTPS" {
        return Err(ApiError::Validation(
            "The HSTS feature can only be used for listeners using the TERMINATED_HTTPS protocol."
                .into(),
        ));
    }
    Ok(())
}

/// The update rules against the stored listener `l` (`_validate_listener_PUT`), before any
/// certificate is read.
pub fn check_put(b: &ListenerPut, l: &ListenerRow) -> Result<(), ApiError> {
    let protocol = l.protocol.as_str();
    let tls_refs = has_tls_refs(
        b.default_tls_container_ref.value(),
        b.sni_container_refs.value(),
    );
    let headers = header_keys(b.insert_headers.value());
    if matches!(protocol, "UDP" | "SCTP") && (tls_refs || headers.is_some()) {
        return Err(ApiError::Validation(format!(
            "{protocol} protocol listener does not support TLS or header insertion."
        )));
    }
    let offload = protocol == "TERMINATED_HTTPS" || (protocol == "PROMETHEUS" && tls_refs);
    if !offload && tls_refs {
        return Err(ApiError::Validation(format!(
            "Certificate container references are not allowed on {protocol} protocol listeners."
        )));
    }
    if let Some(auth) = b.client_authentication.value().filter(|a| *a != "NONE") {
        let ca = l.client_ca_tls_certificate_id.is_some()
            || b.client_ca_tls_container_ref
                .as_ref()
                .is_some_and(|r| !r.is_empty());
        if !ca {
            return Err(ApiError::Validation(format!(
                "Client authentication setting {auth} requires a client CA container reference."
            )));
        }
    }
    if let Some(keys) = headers {
        check_insert_headers(&keys, protocol)?;
    }
    if b.tls_versions.given() {
        check_tls_versions(b.tls_versions.value().map(|v| v.as_slice()))?;
    }
    if b.alpn_protocols.given() {
        check_alpn(b.alpn_protocols.value().map(|v| v.as_slice()))?;
    }
    let body_age = b.hsts_max_age.value();
    let enables = |f: &Patch<bool>| f.value() == Some(&true);
    if (enables(&b.hsts_include_subdomains) || enables(&b.hsts_preload))
        && l.hsts_max_age.is_none()
        && body_age.is_none()
    {
        return Err(ApiError::Validation("Cannot enable hsts_include_subdomains or hsts_preload if hsts_max_age was not set as well.".into()));
    }
    if body_age.is_some() && protocol != "TERMINATED_HTTPS" {
        return Err(ApiError::Validation(
            "The HSTS feature can only be used for listeners using the TERMINATED_HTTPS protocol."
                .into(),
        ));
    }
    Ok(())
}

/// listener.py `_validate_cidr_compatible_with_vip`, on create (the graph's listeners too) and
/// on an update sending a non-empty list: 400 `Allowed CIDRs are not allowed when using
/// custom VIP Security Groups.` when the load balancer has `vip_sg_ids`; 400 `CIDR <cidr> IP
/// version incompatible with all VIPs ['<vip>', …] IP version.` for the first CIDR whose IP
/// version no VIP (the VIP, then the additional VIPs) shares. Checked in the API, before any
/// provider sees the list (the OVN provider then enforces it in the NB).
pub async fn cidrs_fit_vips(
    tx: &mut octavia_db::Tx,
    lb_id: &str,
    cidrs: &[String],
) -> Result<(), ApiError> {
    if cidrs.is_empty() {
        return Ok(());
    }
    if !tx.vip_sg_ids(lb_id).await?.is_empty() {
        return Err(ApiError::Validation(
            "Allowed CIDRs are not allowed when using custom VIP Security Groups.".into(),
        ));
    }
    let mut vips: Vec<String> = tx
        .vip(lb_id)
        .await?
        .and_then(|v| v.ip_address)
        .into_iter()
        .collect();
    vips.extend(
        tx.additional_vips(lb_id)
            .await?
            .into_iter()
            .filter_map(|a| a.ip_address),
    );
    let v6 = |s: &str| s.contains(':');
    for cidr in cidrs {
        if !vips.is_empty() && !vips.iter().any(|vip| v6(vip) == v6(cidr)) {
            let listed: Vec<String> = vips.iter().map(|v| format!("'{v}'")).collect();
            return Err(ApiError::Validation(format!(
                "CIDR {cidr} IP version incompatible with all VIPs [{}] IP version.",
                listed.join(", ")
            )));
        }
    }
    Ok(())
}
