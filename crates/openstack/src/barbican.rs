//! Barbican (key manager), minimal: a secret's payload by reference, read with the user's
//! token as Octavia's cert manager does (seed 003 §5).

use reqwest::StatusCode;

use crate::http::{join, snippet};

/// Errors of [`BarbicanClient`]. Octavia maps every one of them to 400 "Could not retrieve
/// certificate: <refs>" (seed 003 §5).
#[derive(Debug, thiserror::Error)]
pub enum BarbicanError {
    /// 404: no such secret, or not visible to the token.
    #[error("barbican: secret not found")]
    NotFound,
    /// 401/403: the token may not read the secret.
    #[error("barbican: not authorized ({0})")]
    Unauthorized(u16),
    /// Any other status.
    #[error("barbican answered {status}: {message}")]
    Status {
        /// HTTP status.
        status: u16,
        /// Body excerpt.
        message: String,
    },
    /// Connection, timeout or TLS failure.
    #[error("barbican request failed: {0}")]
    Transport(#[source] reqwest::Error),
}

/// Reads secret payloads. Secret references are full URLs
/// (`https://barbican/v1/secrets/<uuid>`), so no catalog lookup is needed.
#[derive(Debug, Clone)]
pub struct BarbicanClient {
    http: reqwest::Client,
}

impl BarbicanClient {
    /// A client over the shared HTTP pool.
    pub fn new(http: reqwest::Client) -> Self {
        Self { http }
    }

    /// `GET <secret_ref>/payload` with `Accept: application/octet-stream` and the user's
    /// token; returns the raw bytes (PEM or PKCS12). Errors: [`BarbicanError`].
    pub async fn get_secret_payload(
        &self,
        user_token: &str,
        secret_ref: &str,
    ) -> Result<Vec<u8>, BarbicanError> {
        let resp = self
            .http
            .get(join(secret_ref, "payload"))
            .header("X-Auth-Token", user_token)
            .header("Accept", "application/octet-stream")
            .send()
            .await
            .map_err(BarbicanError::Transport)?;
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
}
