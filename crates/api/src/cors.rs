//! `[cors]` as oslo.middleware's `CORS` (`oslo_middleware/cors.py`), which
//! `octavia/api/app.py` wraps around every API request with Octavia's defaults
//! (`octavia/common/config.py` `set_cors_middleware_defaults`: `allow_headers` and
//! `expose_headers` `X-Auth-Token, X-Openstack-Request-Id`, `allow_methods` `GET, PUT, POST,
//! DELETE`).
//!
//! The rules, applied to the response the API gave (left alone when it already carries
//! `Access-Control-Allow-Origin`):
//! * `OPTIONS` (preflight): a non-2xx answer becomes an empty 200 — always, with or without
//!   `allowed_origin` (so `OPTIONS` never answers 401/405). CORS headers are added only when
//!   the `Origin` is allowed (exactly, or `*` is among `allowed_origin`), the
//!   `Access-Control-Request-Method` is in `allow_methods` (case-sensitive) and every
//!   `Access-Control-Request-Headers` name is in `allow_headers` or the simple headers
//!   (case-insensitive): `Vary: Origin`, `Access-Control-Allow-Origin` (the origin, or `*`),
//!   `-Allow-Credentials: true` (`allow_credentials`), `-Max-Age` (`max_age`, unless 0),
//!   `-Allow-Methods` (the requested method), `-Allow-Headers` (the requested headers).
//! * Any other method with an allowed `Origin`: `Vary` gains `Origin`,
//!   `Access-Control-Allow-Origin`, `-Allow-Credentials: true` (`allow_credentials`),
//!   `-Expose-Headers` (`expose_headers`, when not empty).

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// `[cors]` with Octavia's defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorsConfig {
    /// `allowed_origin`: `<scheme>://<host>[:<port>]` or `*` (none: no CORS headers).
    pub allowed_origin: Vec<String>,
    /// `allow_credentials` (true).
    pub allow_credentials: bool,
    /// `expose_headers`.
    pub expose_headers: Vec<String>,
    /// `max_age`, seconds (3600; 0: no `Access-Control-Max-Age`).
    pub max_age: u64,
    /// `allow_methods`.
    pub allow_methods: Vec<String>,
    /// `allow_headers`.
    pub allow_headers: Vec<String>,
}

impl Default for CorsConfig {
    fn default() -> Self {
        let ids = || vec!["X-Auth-Token".into(), "X-Openstack-Request-Id".into()];
        Self {
            allowed_origin: Vec::new(),
            allow_credentials: true,
            expose_headers: ids(),
            max_age: 3600,
            allow_methods: ["GET", "PUT", "POST", "DELETE"].map(String::from).to_vec(),
            allow_headers: ids(),
        }
    }
}

/// oslo's `simple_headers`, always allowed in a preflight.
const SIMPLE_HEADERS: [&str; 8] = [
    "Accept",
    "Accept-Language",
    "Content-Type",
    "Cache-Control",
    "Content-Language",
    "Expires",
    "Last-Modified",
    "Pragma",
];

impl CorsConfig {
    /// The `Access-Control-Allow-Origin` value for `origin`, if it is allowed.
    fn allow_origin<'a>(&self, origin: &'a str) -> Option<&'a str> {
        if self.allowed_origin.iter().any(|o| o == origin) {
            Some(origin)
        } else if self.allowed_origin.iter().any(|o| o == "*") {
            Some("*")
        } else {
            None
        }
    }

    /// The preflight headers for a request with `headers`, or `None` when it does not
    /// qualify (see the module doc).
    fn preflight(&self, headers: &HeaderMap) -> Option<Vec<(&'static str, String)>> {
        let text = |n: &str| headers.get(n).and_then(|v| v.to_str().ok());
        let origin = self.allow_origin(text("origin")?)?;
        let method = text("access-control-request-method")?;
        if !self.allow_methods.iter().any(|m| m == method) {
            return None;
        }
        let requested: Vec<&str> = text("access-control-request-headers")
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .filter(|h| !h.is_empty())
            .collect();
        let permitted = |h: &str| {
            self.allow_headers
                .iter()
                .map(String::as_str)
                .chain(SIMPLE_HEADERS)
                .any(|p| p.eq_ignore_ascii_case(h))
        };
        if !requested.iter().all(|h| permitted(h)) {
            return None;
        }
        let mut out = vec![
            ("vary", "Origin".to_string()),
            ("access-control-allow-origin", origin.to_string()),
        ];
        if self.allow_credentials {
            out.push(("access-control-allow-credentials", "true".into()));
        }
        if self.max_age > 0 {
            out.push(("access-control-max-age", self.max_age.to_string()));
        }
        out.push(("access-control-allow-methods", method.to_string()));
        if !requested.is_empty() {
            out.push(("access-control-allow-headers", requested.join(",")));
        }
        Some(out)
    }
}

fn set(resp: &mut Response, name: &'static str, value: &str) {
    if let Ok(v) = HeaderValue::from_str(value) {
        resp.headers_mut().insert(name, v);
    }
}

/// Middleware: the CORS decoration of every response (see the module doc).
pub async fn cors(
    State(cfg): State<std::sync::Arc<CorsConfig>>,
    req: Request,
    next: Next,
) -> Response {
    let cfg = cfg.as_ref();
    // Decided from the request before it is handed on, so its headers need no copy.
    let preflight = req.method() == Method::OPTIONS;
    let preflight_headers = if preflight {
        cfg.preflight(req.headers()).unwrap_or_default()
    } else {
        Vec::new()
    };
    let origin = req
        .headers()
        .get("origin")
        .and_then(|v| v.to_str().ok())
        .and_then(|o| cfg.allow_origin(o))
        .map(str::to_string);
    let mut resp = next.run(req).await;
    if resp.headers().contains_key("access-control-allow-origin") {
        return resp;
    }
    if preflight {
        if !resp.status().is_success() {
            // oslo's NoContentTypeResponse: 200, no body, no content type.
            let mut empty = StatusCode::OK.into_response();
            if let Some(id) = resp.headers().get("x-openstack-request-id") {
                empty
                    .headers_mut()
                    .insert("x-openstack-request-id", id.clone());
            }
            resp = empty;
        }
        for (name, value) in preflight_headers {
            set(&mut resp, name, &value);
        }
        return resp;
    }
    let Some(origin) = origin else {
        return resp;
    };
    let vary = match resp.headers().get("vary").and_then(|v| v.to_str().ok()) {
        Some(v) => format!("{v},Origin"),
        None => "Origin".into(),
    };
    set(&mut resp, "vary", &vary);
    set(&mut resp, "access-control-allow-origin", &origin);
    if cfg.allow_credentials {
        set(&mut resp, "access-control-allow-credentials", "true");
    }
    if !cfg.expose_headers.is_empty() {
        set(
            &mut resp,
            "access-control-expose-headers",
            &cfg.expose_headers.join(","),
        );
    }
    resp
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn h(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut m = HeaderMap::new();
        for (k, v) in pairs {
            m.append(*k, v.parse().unwrap());
        }
        m
    }

    #[test]
    fn preflight_rules() {
        let cfg = CorsConfig {
            allowed_origin: vec!["https://dash.example.com".into()],
            ..CorsConfig::default()
        };
        let ok = h(&[
            ("origin", "https://dash.example.com"),
            ("access-control-request-method", "PUT"),
            (
                "access-control-request-headers",
                "x-auth-token, Content-Type",
            ),
        ]);
        assert_eq!(
            cfg.preflight(&ok).unwrap(),
            vec![
                ("vary", "Origin".to_string()),
                (
                    "access-control-allow-origin",
                    "https://dash.example.com".into()
                ),
                ("access-control-allow-credentials", "true".into()),
                ("access-control-max-age", "3600".into()),
                ("access-control-allow-methods", "PUT".into()),
                (
                    "access-control-allow-headers",
                    "x-auth-token,Content-Type".into()
                ),
            ]
        );
        let other_origin = h(&[
            ("origin", "https://evil.example.com"),
            ("access-control-request-method", "GET"),
        ]);
        assert_eq!(cfg.preflight(&other_origin), None);
        let patch = h(&[
            ("origin", "https://dash.example.com"),
            ("access-control-request-method", "PATCH"),
        ]);
        assert_eq!(cfg.preflight(&patch), None);
        let lower = h(&[
            ("origin", "https://dash.example.com"),
            ("access-control-request-method", "get"),
        ]);
        assert_eq!(cfg.preflight(&lower), None);
        let odd_header = h(&[
            ("origin", "https://dash.example.com"),
            ("access-control-request-method", "GET"),
            ("access-control-request-headers", "X-Custom"),
        ]);
        assert_eq!(cfg.preflight(&odd_header), None);
        let no_method = h(&[("origin", "https://dash.example.com")]);
        assert_eq!(cfg.preflight(&no_method), None);

        let star = CorsConfig {
            allowed_origin: vec!["*".into()],
            allow_credentials: false,
            max_age: 0,
            ..CorsConfig::default()
        };
        assert_eq!(
            star.preflight(&other_origin).unwrap(),
            vec![
                ("vary", "Origin".to_string()),
                ("access-control-allow-origin", "*".into()),
                ("access-control-allow-methods", "GET".into()),
            ]
        );
        assert_eq!(CorsConfig::default().preflight(&ok), None);
    }
}
