//! Keystone application credentials: keystoneauth's `v3applicationcredential` plugin
//! (`keystoneauth1/identity/v3/application_credential.py`), the identity method
//! `application_credential` of `POST /v3/auth/tokens`.

use serde_json::{Value, json};

/// The user an application credential given by name belongs to: by id, or by name in a
/// domain (keystoneauth's `user_id`, or `username` + `user_domain_id`/`user_domain_name`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppCredentialUser {
    /// `user_id`.
    Id(String),
    /// `username` in the domain given by id (wins) or name.
    Name {
        /// `username`.
        name: String,
        /// `user_domain_id`.
        domain_id: Option<String>,
        /// `user_domain_name`.
        domain_name: String,
    },
}

/// An application credential: `application_credential_id`, or
/// `application_credential_name` with its user, and the secret. Keystone scopes the token
/// to the credential's own project and roles, so no scope is sent. `Debug` masks the secret.
#[derive(Clone, PartialEq, Eq)]
pub struct ApplicationCredential {
    /// `application_credential_id` (wins over the name).
    pub id: Option<String>,
    /// `application_credential_name` (needs `user`).
    pub name: Option<String>,
    /// `application_credential_secret`.
    pub secret: String,
    /// The owner, needed with a name (ignored by Keystone with an id).
    pub user: Option<AppCredentialUser>,
}

impl std::fmt::Debug for ApplicationCredential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApplicationCredential")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("secret", &"***")
            .field("user", &self.user)
            .finish()
    }
}

impl ApplicationCredential {
    /// The `POST /v3/auth/tokens` body: `{"auth": {"identity": {"methods":
    /// ["application_credential"], "application_credential": {id | name + user, secret}}}}`.
    pub(crate) fn auth_body(&self) -> Value {
        let mut cred = serde_json::Map::new();
        if let Some(id) = &self.id {
            cred.insert("id".into(), json!(id));
        } else if let Some(name) = &self.name {
            cred.insert("name".into(), json!(name));
            match &self.user {
                Some(AppCredentialUser::Id(id)) => {
                    cred.insert("user".into(), json!({ "id": id }));
                }
                Some(AppCredentialUser::Name {
                    name,
                    domain_id,
                    domain_name,
                }) => {
                    let domain = match domain_id {
                        Some(id) => json!({ "id": id }),
                        None => json!({ "name": domain_name }),
                    };
                    cred.insert("user".into(), json!({ "name": name, "domain": domain }));
                }
                None => {}
            }
        }
        cred.insert("secret".into(), json!(self.secret));
        json!({"auth": {"identity": {
            "methods": ["application_credential"],
            "application_credential": cred,
        }}})
    }

    /// What names it in logs: `id <id>` or `name <name>`.
    pub(crate) fn label(&self) -> String {
        match (&self.id, &self.name) {
            (Some(id), _) => format!("id {id}"),
            (None, Some(n)) => format!("name {n}"),
            (None, None) => "(none)".into(),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn bodies_as_keystoneauth_sends_them() {
        let by_id = ApplicationCredential {
            id: Some("abc".into()),
            name: Some("ignored".into()),
            secret: "s3".into(),
            user: None,
        };
        assert_eq!(
            by_id.auth_body(),
            json!({"auth": {"identity": {"methods": ["application_credential"],
                "application_credential": {"id": "abc", "secret": "s3"}}}})
        );
        let by_name = ApplicationCredential {
            id: None,
            name: Some("keel".into()),
            secret: "s3".into(),
            user: Some(AppCredentialUser::Name {
                name: "octavia".into(),
                domain_id: None,
                domain_name: "Default".into(),
            }),
        };
        assert_eq!(
            by_name.auth_body()["auth"]["identity"]["application_credential"],
            json!({"name": "keel", "secret": "s3",
                "user": {"name": "octavia", "domain": {"name": "Default"}}})
        );
        assert!(!format!("{by_name:?}").contains("s3"));
    }
}
