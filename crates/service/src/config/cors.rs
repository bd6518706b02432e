//! `[cors]` (oslo.middleware's CORS options, with the defaults Octavia's
//! `set_cors_middleware_defaults` gives them) as the API's [`CorsConfig`].

use api::cors::CorsConfig;

use super::error::ConfigError;
use super::section::Section;
use compat::oslo_config::Sources;

/// The section's values over Octavia's defaults. Errors: `allow_credentials` not a boolean,
/// `max_age` not an integer (a value ≤ 0 sends no `Access-Control-Max-Age`, as oslo's
/// truthiness test does for 0).
pub(super) fn read(src: &Sources) -> Result<CorsConfig, ConfigError> {
    use compat::catalog::cors as c;
    Ok(CorsConfig {
        allowed_origin: Section::typed(src, &c::ALLOWED_ORIGIN)?,
        allow_credentials: Section::typed(src, &c::ALLOW_CREDENTIALS)?,
        expose_headers: Section::typed(src, &c::EXPOSE_HEADERS)?,
        max_age: Section::typed(src, &c::MAX_AGE)?.max(0) as u64,
        allow_methods: Section::typed(src, &c::ALLOW_METHODS)?,
        allow_headers: Section::typed(src, &c::ALLOW_HEADERS)?,
    })
}
