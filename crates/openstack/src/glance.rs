//! Glance (images), as far as Octavia's API validates against it
//! (octavia/image/drivers/glance_driver.py `get_image_id_by_tag`, over glanceclient v2,
//! octavia/common/clients.py).

use serde::Deserialize;

use crate::http::join;
use crate::keystone::ServiceAuth;
use crate::service_client::{Kind, ServiceClient, ServiceEndpoint, ServiceError};

/// An image of `GET /v2/images`; fields Glance omits or nulls take their defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Image {
    /// Image id.
    pub id: String,
    /// Name (`""` when none).
    #[serde(default, deserialize_with = "null_as_default")]
    pub name: String,
    /// `active`, `queued`, …
    #[serde(default)]
    pub status: String,
    /// Owning project.
    #[serde(default, deserialize_with = "null_as_default")]
    pub owner: String,
    /// Tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Creation time, RFC 3339.
    #[serde(default)]
    pub created_at: String,
}

fn null_as_default<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(Option::<String>::deserialize(d)?.unwrap_or_default())
}

/// Glance client with Keel's service token (`[service_auth]`) on its own HTTP client
/// (`[glance] ca_certificates_file`, `insecure`). The endpoint (`[glance] endpoint`, else the
/// catalog's `image`) has any version suffix removed and `/v2` appended, as glanceclient.
/// Errors: [`ServiceError`]; a 401 makes one retry with a new token.
#[derive(Debug)]
pub struct GlanceClient(ServiceClient);

impl GlanceClient {
    /// A client; no request until the first call.
    pub fn new(http: reqwest::Client, service: ServiceAuth, endpoint: ServiceEndpoint) -> Self {
        Self(ServiceClient::new(
            http,
            service,
            endpoint,
            Kind {
                name: "glance",
                types: &["image"],
            },
        ))
    }

    /// The endpoint (configured, else the catalog's), as given. Errors:
    /// [`ServiceError::NoEndpoint`], [`ServiceError::Auth`].
    pub async fn endpoint(&self) -> Result<&str, ServiceError> {
        self.0.root().await
    }

    /// `GET /v2/images?tag=<tag>&status=active[&owner=<owner>]&sort=created_at:desc&limit=2`:
    /// the active images carrying `tag` (and owned by `owner` when given), newest first, at
    /// most two (two is enough to tell the operator a tag is not unique).
    pub async fn active_images_by_tag(
        &self,
        tag: &str,
        owner: Option<&str>,
    ) -> Result<Vec<Image>, ServiceError> {
        #[derive(Deserialize)]
        struct List {
            #[serde(default)]
            images: Vec<Image>,
        }
        let url = join(&strip_version(self.0.root().await?), "v2/images");
        let mut query = vec![("tag", tag), ("status", "active")];
        if let Some(o) = owner.filter(|o| !o.is_empty()) {
            query.push(("owner", o));
        }
        query.extend([("sort", "created_at:desc"), ("limit", "2")]);
        let list: List = self.0.get(&url, &query, &[]).await?;
        Ok(list.images)
    }

    /// The id of the newest active image tagged `tag` (owned by `owner` when given and not
    /// empty), `None` when there is none; more than one is logged and the newest taken
    /// (`get_image_id_by_tag`).
    pub async fn image_id_by_tag(
        &self,
        tag: &str,
        owner: Option<&str>,
    ) -> Result<Option<String>, ServiceError> {
        let images = self.active_images_by_tag(tag, owner).await?;
        if images.len() > 1 {
            tracing::warn!(
                tag,
                image_id = %images[0].id,
                "more than one Glance image has the amphora image tag: the newest is used"
            );
        }
        Ok(images.into_iter().next().map(|i| i.id))
    }
}

/// An endpoint without its trailing version (`/v2`, `/v2.0`, `/v1/`), as glanceclient's
/// `strip_version`.
fn strip_version(url: &str) -> String {
    let u = url.trim_end_matches('/');
    if let Some((head, last)) = u.rsplit_once('/') {
        let v = last.strip_prefix('v').unwrap_or("");
        let mut parts = v.splitn(2, '.');
        let major = parts.next().unwrap_or("");
        let minor_ok = parts
            .next()
            .is_none_or(|m| !m.is_empty() && m.bytes().all(|b| b.is_ascii_digit()));
        if !major.is_empty() && major.bytes().all(|b| b.is_ascii_digit()) && minor_ok {
            return head.to_string();
        }
    }
    u.to_string()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_stripped() {
        assert_eq!(strip_version("http://g:9292"), "http://g:9292");
        assert_eq!(strip_version("http://g:9292/v2/"), "http://g:9292");
        assert_eq!(strip_version("http://h/image/v2.1"), "http://h/image");
        assert_eq!(strip_version("http://h/image"), "http://h/image");
        assert_eq!(strip_version("http://h/vx"), "http://h/vx");
    }

    #[test]
    fn image_with_nulls_parses() {
        let i: Image = serde_json::from_str(
            r#"{"id": "i1", "name": null, "status": "active", "owner": null, "tags": ["amphora"], "created_at": "2026-12-07T10:00:00Z"}"#,
        )
        .unwrap();
        assert_eq!((i.id.as_str(), i.name.as_str()), ("i1", ""));
        assert_eq!(i.tags, vec!["amphora"]);
    }
}
