//! `[cors]` (oslo.middleware's CORS options, with the defaults Octavia's
//! `set_cors_middleware_defaults` gives them) as the API's [`CorsConfig`].

use api::cors::CorsConfig;

use super::error::ConfigError;
use super::section::Section;

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// The section's values over Octavia's defaults. Errors: `allow_credentials` not a boolean,
/// `max_age` not an integer (a value ≤ 0 sends no `Access-Control-Max-Age`, as oslo's
/// truthiness test does for 0).
pub(super) fn read(c: &Section<'_>) -> Result<CorsConfig, ConfigError> {
    let d = CorsConfig::default();
    Ok(CorsConfig {
        allowed_origin: c.list("allowed_origin", &[]),
        allow_credentials: c.boolean("allow_credentials", d.allow_credentials)?,
        expose_headers: c.list("expose_headers", &strs(&d.expose_headers)),
        max_age: c.int("max_age", 3600, None)?.max(0) as u64,
        allow_methods: c.list("allow_methods", &strs(&d.allow_methods)),
        allow_headers: c.list("allow_headers", &strs(&d.allow_headers)),
    })
}
