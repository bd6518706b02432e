//! Barbican (key manager), as far as Octavia's certificate manager uses it (seed 003 §5;
//! octavia/certificates/manager/barbican.py and barbican_legacy.py over python-barbicanclient):
//! secrets (metadata, payload) and certificate containers, read with the caller's token; plus
//! store/delete for tests and tools.
//!
//! Like barbicanclient, a reference is resolved by the UUID at its end against the
//! key-manager endpoint (`[certificates] endpoint`, else the catalog's `key-manager` entry):
//! the host written in the reference is not contacted.

use std::sync::Arc;

use base64::Engine;
use reqwest::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::OnceCell;

use crate::KeystoneError;
use crate::http::{join, snippet};
use crate::keystone::{Interface, ServiceAuth};

/// Errors of [`BarbicanClient`]. Octavia maps every one of them to 400 `Could not retrieve
/// certificate: <refs>` (seed 003 §5).
#[derive(Debug, thiserror::Error)]
pub enum BarbicanError {
    /// The reference does not end in a UUID (barbicanclient: `Secret incorrectly specified.`).
    #[error("{entity} incorrectly specified.")]
    InvalidRef {
        /// `Secret` or `Container`.
        entity: &'static str,
    },
    /// No key-manager endpoint configured and no service catalog, or no service session to
    /// name the service user by.
    #[error("barbican: no key-manager endpoint: {0}")]
    NoEndpoint(String),
    /// Keystone did not give what Barbican calls need: the catalog's `key-manager` endpoint
    /// (none there, or the service token refused or unreachable), or, for
    /// [`BarbicanClient::service_user_id`], the service token. Same text as
    /// [`BarbicanError::NoEndpoint`], with Keystone's error.
    #[error("barbican: no key-manager endpoint: {0}")]
    Keystone(#[source] KeystoneError),
    /// 404: no such secret/container, or not visible to the token.
    #[error("barbican: not found")]
    NotFound,
    /// 401/403: the token may not read it.
    #[error("barbican: not authorized ({0})")]
    Unauthorized(u16),
    /// Any other status.
    #[error("barbican answered {status}: {message}")]
    Status {
        /// HTTP status.
        status: u16,
        /// The answer's body, trimmed, cut to 512 bytes.
        message: String,
    },
    /// Connection, timeout or TLS failure.
    #[error("barbican request failed: {0}")]
    Transport(#[source] reqwest::Error),
    /// A 2xx answer without the key it must carry.
    #[error("barbican: unexpected answer: {0}")]
    Decode(String),
    /// A 2xx body that is not JSON of the expected shape.
    #[error("barbican: unexpected answer: {0}")]
    Json(#[source] serde_json::Error),
}

impl BarbicanError {
    /// True for 404 (the reference names nothing visible to the token).
    pub fn is_not_found(&self) -> bool {
        matches!(self, Self::NotFound)
    }
}

/// Where Barbican is (octavia.conf `[certificates]`: `endpoint`, `region_name`,
/// `endpoint_type`).
#[derive(Debug, Clone, Default)]
pub struct BarbicanConfig {
    /// `endpoint`: fixed base URL (with or without `/v1`); `None` = catalog.
    pub endpoint: Option<String>,
    /// `region_name` for the catalog lookup (`None` = the service auth's region).
    pub region_name: Option<String>,
    /// `endpoint_type` (Octavia's default `publicURL` = public).
    pub interface: Interface,
}

/// A secret's metadata (`GET /v1/secrets/{uuid}`).
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct SecretMeta {
    /// The secret's URL, `<barbican endpoint>/v1/secrets/<uuid>`.
    pub secret_ref: String,
    /// Name, if any.
    #[serde(default)]
    pub name: Option<String>,
    /// `ACTIVE`, …
    #[serde(default)]
    pub status: Option<String>,
    /// `opaque`, `certificate`, `private`, …
    #[serde(default)]
    pub secret_type: Option<String>,
    /// `{"default": "<content type>"}`; absent when the secret has no payload.
    #[serde(default)]
    pub content_types: Option<std::collections::BTreeMap<String, String>>,
}

/// One `secret_refs` entry of a container.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct ContainerSecretRef {
    /// Role in the container: `certificate`, `private_key`, `intermediates`,
    /// `private_key_passphrase`.
    #[serde(default)]
    pub name: Option<String>,
    /// The secret's reference.
    pub secret_ref: String,
}

/// A container (`GET /v1/containers/{uuid}`).
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct Container {
    /// The container's URL, `<barbican endpoint>/v1/containers/<uuid>`.
    pub container_ref: String,
    /// Name, if any.
    #[serde(default)]
    pub name: Option<String>,
    /// `generic`, `rsa` or `certificate`.
    #[serde(rename = "type")]
    pub container_type: String,
    /// The secrets it holds, one per role; empty when none.
    #[serde(default)]
    pub secret_refs: Vec<ContainerSecretRef>,
}

impl Container {
    /// The secret ref stored under `name` (e.g. `certificate`).
    pub fn secret(&self, name: &str) -> Option<&str> {
        self.secret_refs
            .iter()
            .find(|s| s.name.as_deref() == Some(name))
            .map(|s| s.secret_ref.as_str())
    }
}

/// The UUID a reference ends in, canonical (lowercase, hyphenated), as barbicanclient's
/// `validate_ref_and_return_uuid` (Python `uuid.UUID` accepts braces, `urn:uuid:`, no
/// hyphens). Errors: [`BarbicanError::InvalidRef`].
pub fn ref_uuid(reference: &str, entity: &'static str) -> Result<String, BarbicanError> {
    let last = reference
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or_default();
    let mut s = last.trim();
    s = s.strip_prefix("urn:").unwrap_or(s);
    s = s.strip_prefix("uuid:").unwrap_or(s);
    s = s.trim_start_matches('{').trim_end_matches('}');
    let hex: String = s.chars().filter(|c| *c != '-').collect();
    if hex.len() != 32 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(BarbicanError::InvalidRef { entity });
    }
    let h = hex.to_ascii_lowercase();
    Ok(format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    ))
}

/// barbicanclient's `ACL.identify_ref_type` + `validate_input_ref` (what Octavia's
/// `set_acls` goes through first): the reference's path must have a `secrets` or
/// `containers` element, must not name an ACL, and must end in a UUID. Returns the
/// collection (`secrets`/`containers`) and the UUID. Errors: [`BarbicanError::InvalidRef`].
pub fn acl_entity(reference: &str) -> Result<(&'static str, String), BarbicanError> {
    let r = reference.trim_end_matches('/');
    let elems: Vec<&str> = r.split('/').collect();
    let (kind, entity) = if elems.contains(&"secrets") {
        ("secrets", "Secret")
    } else if elems.contains(&"containers") {
        ("containers", "Container")
    } else {
        return Err(BarbicanError::InvalidRef {
            entity: "Secret or container",
        });
    };
    if r.contains("/acl") {
        return Err(BarbicanError::InvalidRef { entity });
    }
    Ok((kind, ref_uuid(r, entity)?))
}

/// Reads (and, for tools and tests, stores) secrets and containers; cheap to clone.
#[derive(Clone)]
pub struct BarbicanClient {
    http: reqwest::Client,
    service: Option<ServiceAuth>,
    cfg: Arc<BarbicanConfig>,
    root: Arc<OnceCell<String>>,
}

impl std::fmt::Debug for BarbicanClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BarbicanClient")
            .field("cfg", &self.cfg)
            .finish_non_exhaustive()
    }
}

impl BarbicanClient {
    /// A client over the shared HTTP pool; `service` finds the endpoint in the catalog when
    /// `cfg.endpoint` is unset (without either every call fails with `NoEndpoint`).
    pub fn new(http: reqwest::Client, service: Option<ServiceAuth>, cfg: BarbicanConfig) -> Self {
        Self {
            http,
            service,
            cfg: Arc::new(cfg),
            root: Arc::new(OnceCell::new()),
        }
    }

    /// The `/v1` root, resolved once (configured endpoint, else the catalog's `key-manager`).
    /// Errors: [`BarbicanError::NoEndpoint`] with neither, [`BarbicanError::Keystone`] when
    /// the catalog has no such entry or cannot be read.
    pub async fn root(&self) -> Result<&str, BarbicanError> {
        self.root
            .get_or_try_init(|| async {
                let base = match (&self.cfg.endpoint, &self.service) {
                    (Some(e), _) => e.clone(),
                    (None, Some(s)) => s
                        .endpoint(
                            "key-manager",
                            self.cfg.interface,
                            self.cfg.region_name.as_deref(),
                        )
                        .await
                        .map_err(BarbicanError::Keystone)?,
                    (None, None) => {
                        return Err(BarbicanError::NoEndpoint(
                            "no [certificates] endpoint and no service catalog".into(),
                        ));
                    }
                };
                let base = base.trim_end_matches('/');
                Ok(if base.ends_with("/v1") {
                    base.to_string()
                } else {
                    format!("{base}/v1")
                })
            })
            .await
            .map(String::as_str)
    }

    async fn send(
        &self,
        req: reqwest::RequestBuilder,
        token: Option<&str>,
    ) -> Result<Vec<u8>, BarbicanError> {
        let req = match token {
            Some(t) => req.header("X-Auth-Token", t),
            None => req,
        };
        let resp = req.send().await.map_err(BarbicanError::Transport)?;
        let status = resp.status();
        let body = resp.bytes().await.map_err(BarbicanError::Transport)?;
        match status {
            s if s.is_success() => Ok(body.to_vec()),
            StatusCode::NOT_FOUND => Err(BarbicanError::NotFound),
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => {
                Err(BarbicanError::Unauthorized(status.as_u16()))
            }
            s => Err(BarbicanError::Status {
                status: s.as_u16(),
                message: snippet(&body),
            }),
        }
    }

    async fn get_json<T: serde::de::DeserializeOwned>(
        &self,
        token: Option<&str>,
        path: &str,
    ) -> Result<T, BarbicanError> {
        let url = join(self.root().await?, path);
        let body = self
            .send(
                self.http.get(url).header("Accept", "application/json"),
                token,
            )
            .await?;
        serde_json::from_slice(&body).map_err(BarbicanError::Json)
    }

    /// The id of the service user (Keel's `[service_auth]` user), from its session. Errors:
    /// [`BarbicanError::NoEndpoint`] without a service session, [`BarbicanError::Keystone`]
    /// when its token cannot be had.
    pub async fn service_user_id(&self) -> Result<String, BarbicanError> {
        let s = self.service.as_ref().ok_or_else(|| {
            BarbicanError::NoEndpoint("no service session for the service user id".into())
        })?;
        s.token()
            .await
            .map(|t| t.user_id.clone())
            .map_err(BarbicanError::Keystone)
    }

    /// Octavia's `BarbicanACLAuth.ensure_secret_access`: with the caller's token, `GET
    /// /v1/{secrets|containers}/{uuid}/acl`; when `user_id` is not among the `read` users,
    /// `PUT` the `read` ACL with it added (project access kept). Returns whether it wrote.
    pub async fn ensure_read_acl(
        &self,
        token: Option<&str>,
        reference: &str,
        user_id: &str,
    ) -> Result<bool, BarbicanError> {
        let (kind, id) = acl_entity(reference)?;
        let path = format!("{kind}/{id}/acl");
        let acl: Value = self.get_json(token, &path).await?;
        let read = acl.get("read").cloned().unwrap_or_else(|| json!({}));
        let mut users: Vec<String> = read
            .get("users")
            .and_then(Value::as_array)
            .map(|u| {
                u.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        if users.iter().any(|u| u == user_id) {
            return Ok(false);
        }
        users.push(user_id.to_string());
        let mut op = json!({ "users": users });
        if let Some(pa) = read.get("project-access").and_then(Value::as_bool) {
            op["project-access"] = json!(pa);
        }
        let url = join(self.root().await?, &path);
        self.send(self.http.put(url).json(&json!({ "read": op })), token)
            .await?;
        Ok(true)
    }

    /// The `read` users of a secret's or container's ACL (`GET …/acl`).
    pub async fn read_acl_users(
        &self,
        token: Option<&str>,
        reference: &str,
    ) -> Result<Vec<String>, BarbicanError> {
        let (kind, id) = acl_entity(reference)?;
        let acl: Value = self.get_json(token, &format!("{kind}/{id}/acl")).await?;
        Ok(acl["read"]["users"]
            .as_array()
            .map(|u| {
                u.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default())
    }

    /// `GET /v1/secrets/{uuid}`: the secret's metadata.
    pub async fn get_secret_meta(
        &self,
        token: Option<&str>,
        secret_ref: &str,
    ) -> Result<SecretMeta, BarbicanError> {
        let id = ref_uuid(secret_ref, "Secret")?;
        self.get_json(token, &format!("secrets/{id}")).await
    }

    /// The secret's payload as barbicanclient's `Secret.payload` reads it: metadata first (its
    /// default content type), then `GET /v1/secrets/{uuid}/payload` with that `Accept`.
    /// A secret without payload answers `NotFound`.
    pub async fn get_secret_payload(
        &self,
        token: Option<&str>,
        secret_ref: &str,
    ) -> Result<Vec<u8>, BarbicanError> {
        let meta = self.get_secret_meta(token, secret_ref).await?;
        let accept = meta
            .content_types
            .as_ref()
            .and_then(|c| c.get("default").cloned())
            .ok_or(BarbicanError::NotFound)?;
        let id = ref_uuid(secret_ref, "Secret")?;
        let url = join(self.root().await?, &format!("secrets/{id}/payload"));
        let body = self
            .send(self.http.get(url).header("Accept", accept), token)
            .await?;
        Ok(body)
    }

    /// `GET /v1/containers/{uuid}`.
    pub async fn get_container(
        &self,
        token: Option<&str>,
        container_ref: &str,
    ) -> Result<Container, BarbicanError> {
        let id = ref_uuid(container_ref, "Container")?;
        self.get_json(token, &format!("containers/{id}")).await
    }

    /// `POST /v1/secrets` (one step, base64 transport): stores `payload` with
    /// `content_type` (`text/plain` or `application/octet-stream`) and returns its reference.
    pub async fn store_secret(
        &self,
        token: Option<&str>,
        name: &str,
        payload: &[u8],
        content_type: &str,
        secret_type: &str,
    ) -> Result<String, BarbicanError> {
        let body = if content_type.starts_with("text/") {
            json!({"name": name, "payload": String::from_utf8_lossy(payload),
                   "payload_content_type": content_type, "secret_type": secret_type})
        } else {
            json!({"name": name,
                   "payload": base64::engine::general_purpose::STANDARD.encode(payload),
                   "payload_content_type": content_type,
                   "payload_content_encoding": "base64", "secret_type": secret_type})
        };
        self.post_ref(token, "secrets", &body, "secret_ref").await
    }

    /// `POST /v1/containers` of type `certificate` with the given member secrets (role name →
    /// secret ref); returns its reference.
    pub async fn create_certificate_container(
        &self,
        token: Option<&str>,
        name: &str,
        members: &[(&str, &str)],
    ) -> Result<String, BarbicanError> {
        let refs: Vec<Value> = members
            .iter()
            .map(|(n, r)| json!({"name": n, "secret_ref": r}))
            .collect();
        let body = json!({"name": name, "type": "certificate", "secret_refs": refs});
        self.post_ref(token, "containers", &body, "container_ref")
            .await
    }

    async fn post_ref(
        &self,
        token: Option<&str>,
        path: &str,
        body: &Value,
        key: &str,
    ) -> Result<String, BarbicanError> {
        let url = join(self.root().await?, path);
        let out = self.send(self.http.post(url).json(body), token).await?;
        let v: Value = serde_json::from_slice(&out).map_err(BarbicanError::Json)?;
        v.get(key)
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| BarbicanError::Decode(format!("no {key} in {v}")))
    }

    /// `DELETE /v1/secrets/{uuid}`.
    pub async fn delete_secret(
        &self,
        token: Option<&str>,
        secret_ref: &str,
    ) -> Result<(), BarbicanError> {
        let id = ref_uuid(secret_ref, "Secret")?;
        let url = join(self.root().await?, &format!("secrets/{id}"));
        self.send(self.http.delete(url), token).await.map(|_| ())
    }

    /// `DELETE /v1/containers/{uuid}` (the member secrets stay).
    pub async fn delete_container(
        &self,
        token: Option<&str>,
        container_ref: &str,
    ) -> Result<(), BarbicanError> {
        let id = ref_uuid(container_ref, "Container")?;
        let url = join(self.root().await?, &format!("containers/{id}"));
        self.send(self.http.delete(url), token).await.map(|_| ())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn refs_resolve_by_their_uuid() {
        let u = "0b4b5a0e-0000-4000-8000-000000000001";
        assert_eq!(
            ref_uuid(&format!("http://x:9311/v1/secrets/{u}"), "Secret").unwrap(),
            u
        );
        assert_eq!(ref_uuid(&format!("{u}/"), "Secret").unwrap(), u);
        assert_eq!(
            ref_uuid("0B4B5A0E000040008000000000000001", "Secret").unwrap(),
            u
        );
        assert_eq!(ref_uuid(&format!("urn:uuid:{{{u}}}"), "Secret").unwrap(), u);
        assert_eq!(
            ref_uuid("http://x/v1/secrets/nope", "Secret")
                .unwrap_err()
                .to_string(),
            "Secret incorrectly specified."
        );
        assert!(ref_uuid("", "Container").is_err());
    }

    #[test]
    fn acl_entities_need_a_collection_in_the_path() {
        let u = "0b4b5a0e-0000-4000-8000-000000000001";
        assert_eq!(
            acl_entity(&format!("http://x/v1/secrets/{u}")).unwrap(),
            ("secrets", u.to_string())
        );
        assert_eq!(
            acl_entity(&format!("http://x/v1/containers/{u}/")).unwrap(),
            ("containers", u.to_string())
        );
        assert_eq!(
            acl_entity(u).unwrap_err().to_string(),
            "Secret or container incorrectly specified."
        );
        assert!(acl_entity(&format!("http://x/v1/secrets/{u}/acl")).is_err());
        assert!(acl_entity("http://x/v1/secrets/nope").is_err());
    }
}
