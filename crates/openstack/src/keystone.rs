//! Keystone v3: Keel's service session ([`ServiceAuth`]) and user-token validation
//! ([`TokenValidator`]), seed 003 §4.
//!
//! By job: `catalog` (endpoint interfaces, catalog lookup), `service_auth` (Keel's own
//! token), `validator` (users' tokens and their cache), `token_body` (the shared
//! `/v3/auth/tokens` body), `app_credential` (the `v3applicationcredential` method).

mod app_credential;
mod catalog;
mod service_auth;
mod token_body;
mod validator;

pub use app_credential::{AppCredentialUser, ApplicationCredential};
pub use catalog::{Catalog, CatalogEndpoint, CatalogService, Interface};
pub use service_auth::{ServiceAuth, ServiceAuthConfig, ServiceToken};
pub use validator::{TokenValidator, TokenValidatorConfig, UserContext};
