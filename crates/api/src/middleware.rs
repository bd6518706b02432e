//! Framework-level behaviour every endpoint shares.

use axum::Json;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use tracing::Instrument;

use crate::context;
use crate::fault::ApiError;
use crate::state::AppState;

/// A client's `X-Openstack-Request-Id` when it has oslo's form `req-<uuid>`
/// (oslo_middleware/request_id.py keeps it as the global request id; anything else is dropped).
fn global_request_id(req: &Request) -> Option<String> {
    let v = req.headers().get("x-openstack-request-id")?.to_str().ok()?;
    let rest = v.strip_prefix("req-")?;
    uuid::Uuid::parse_str(rest).ok().map(|_| v.to_string())
}

/// oslo `RequestId`: every response carries `x-openstack-request-id: req-<uuid>` (a new id;
/// a valid one the client sent is kept as `global_request_id`). The request runs in a
/// `request` span holding both ids, and the project and load balancer once known
/// (`middleware::auth_layer`, `lookup::get_db_lb` record them), so every log line of the
/// request — and of the provider work it queues — carries them. One access line per request
/// (client address, method, path, status, milliseconds) as oslo.service's wsgi log; the
/// client is the TCP peer, or the proxy's `Forwarded: for=` / `X-Forwarded-For` with
/// `[oslo_middleware] enable_proxy_headers_parsing` (oslo's `HTTPProxyToWSGI` sets
/// `REMOTE_ADDR` from them), `-` when unknown. The route and status feed the
/// `keel_api_requests_total` / `keel_api_request_duration_seconds` metrics.
pub async fn request_id(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let id = format!("req-{}", uuid::Uuid::new_v4());
    let global = global_request_id(&req);
    let route = req
        .extensions()
        .get::<axum::extract::MatchedPath>()
        .map(|m| m.as_str().to_string())
        .unwrap_or_else(|| "unmatched".into());
    let span = tracing::info_span!(
        "request",
        request_id = %id,
        route = %route,
        global_request_id = tracing::field::Empty,
        project_id = tracing::field::Empty,
        lb_id = tracing::field::Empty,
    );
    if let Some(g) = &global {
        span.record("global_request_id", g.as_str());
    }
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    let remote_addr = crate::proxy_headers::remote_addr(
        req.headers(),
        req.extensions(),
        state.config().enable_proxy_headers_parsing,
    )
    .unwrap_or_else(|| "-".into());
    let started = std::time::Instant::now();
    let mut resp = next.run(req).instrument(span.clone()).await;
    let elapsed = started.elapsed();
    let status = resp.status().as_u16();
    span.in_scope(|| {
        tracing::info!(
            remote_addr = %remote_addr,
            method = %method,
            path = %path,
            status,
            // Milliseconds with 3 decimals (microseconds), not an f64's 17 digits.
            ms = %format_args!("{:.3}", elapsed.as_secs_f64() * 1000.0),
            "request"
        )
    });
    let status_s = status.to_string();
    let labels = [method.as_str(), route.as_str(), status_s.as_str()];
    crate::metrics::REQUESTS.with_label_values(&labels).inc();
    crate::metrics::REQUEST_SECONDS
        .with_label_values(&labels)
        .observe(elapsed.as_secs_f64());
    if let Ok(v) = HeaderValue::from_str(&id) {
        resp.headers_mut().insert("x-openstack-request-id", v);
    }
    resp
}

fn too_large(limit: usize) -> Response {
    (
        StatusCode::PAYLOAD_TOO_LARGE,
        Json(json!({"code": "413 Request Entity Too Large", "title": "Request Entity Too Large",
                    "message": format!("Request is too large. Larger than max_request_body_size ({limit}).")})),
    )
        .into_response()
}

/// oslo `RequestBodySizeLimiter`: bodies over `max_request_body_size` → 413 (pecan/webob shape).
pub async fn body_limit(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let limit = state.config().max_request_body_size;
    let declared = req
        .headers()
        .get("content-length")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > limit) {
        return too_large(limit);
    }
    let (parts, body) = req.into_parts();
    match axum::body::to_bytes(body, limit).await {
        Ok(bytes) => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
        Err(_) => too_large(limit),
    }
}

/// ContentTypeHook: an `Accept` that excludes JSON → 406 (empty `Accept` tolerated;
/// healthcheck exempt).
pub async fn accept_json(req: Request, next: Next) -> Response {
    if req.uri().path() != "/healthcheck"
        && let Some(accept) = req.headers().get("accept").and_then(|v| v.to_str().ok())
    {
        let a = accept.trim();
        let ok = a.is_empty()
            || a.split(',').any(|t| {
                let t = t.split(';').next().unwrap_or("").trim();
                t == "application/json" || t == "application/*" || t == "*/*"
            });
        if !ok {
            return ApiError::pecan(
                StatusCode::NOT_ACCEPTABLE,
                "Not Acceptable",
                "Only content type application/json is accepted.",
            )
            .into_response();
        }
    }
    next.run(req).await
}

/// pecan's 404 for unknown paths (its `description` is empty).
pub async fn not_found() -> Response {
    ApiError::pecan(StatusCode::NOT_FOUND, "Not Found", "").into_response()
}

/// pecan's 405 for a known path with another method (its `description` is empty).
pub async fn method_not_allowed() -> Response {
    ApiError::pecan(StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed", "").into_response()
}

/// The collections reachable both under `/v2/lbaas/` and directly under `/v2/`
/// (`V2Controller` inherits `BaseV2Controller`).
const LBAAS: &[&str] = &[
    "loadbalancers",
    "listeners",
    "pools",
    "healthmonitors",
    "l7policies",
    "quotas",
    "providers",
    "flavors",
    "flavorprofiles",
    "availabilityzones",
    "availabilityzoneprofiles",
];

/// Path aliases resolved before routing: `.json` suffix, `/v2.0` → `/v2`,
/// `/v2/<collection>` → `/v2/lbaas/<collection>`, trailing `/` dropped.
pub fn rewrite_path(mut req: Request) -> Request {
    let uri = req.uri();
    let mut path = uri.path().to_string();
    if let Some(p) = path.strip_suffix(".json") {
        path = p.to_string();
    }
    if path == "/v2.0" || path.starts_with("/v2.0/") {
        path = format!("/v2{}", &path[5..]);
    }
    if path.len() > 1
        && let Some(p) = path.strip_suffix('/')
    {
        path = p.to_string();
    }
    if let Some(rest) = path.strip_prefix("/v2/") {
        let first = rest.split('/').next().unwrap_or("");
        if LBAAS.contains(&first) {
            path = format!("/v2/lbaas/{rest}");
        }
    }
    if path != uri.path() {
        let pq = match uri.query() {
            Some(q) => format!("{path}?{q}"),
            None => path,
        };
        if let Ok(new) = pq.parse::<Uri>() {
            *req.uri_mut() = new;
        }
    }
    req
}

/// Middleware: authenticates every request except `/` and `/healthcheck` (the paths
/// Octavia's auth wrapper skips) and stores the [`RequestContext`] as an extension.
pub async fn auth_layer(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let path = req.uri().path();
    if path == "/" || path == "/healthcheck" {
        return next.run(req).await;
    }
    let service = &state.config().service_token;
    if let Err(e) = context::check_service_token(state.auth(), service, req.headers()).await {
        return e.into_response();
    }
    let policy = state.config().policy.current();
    let authenticated = context::authenticate(state.auth(), &policy, req.headers())
        .instrument(tracing::trace_span!(target: "keel::stage", "auth"))
        .await;
    match authenticated {
        Ok(ctx) => {
            if let Some(p) = &ctx.project_id {
                tracing::Span::current().record("project_id", p.as_str());
            }
            req.extensions_mut().insert(ctx);
            next.run(req).await
        }
        Err(e) => {
            let mut resp = e.into_response();
            // keystonemiddleware's header names where to authenticate.
            let uri = &state.config().www_authenticate_uri;
            if resp.status() == StatusCode::UNAUTHORIZED
                && !uri.is_empty()
                && let Ok(v) = HeaderValue::from_str(&format!("Keystone uri=\"{uri}\""))
            {
                resp.headers_mut()
                    .insert(axum::http::header::WWW_AUTHENTICATE, v);
            }
            resp
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rw(p: &str) -> String {
        let req = Request::builder()
            .uri(p)
            .body(Body::empty())
            .unwrap_or_default();
        rewrite_path(req).uri().to_string()
    }

    #[test]
    fn aliases() {
        assert_eq!(rw("/v2.0/lbaas/loadbalancers"), "/v2/lbaas/loadbalancers");
        assert_eq!(
            rw("/v2/loadbalancers.json?name=a"),
            "/v2/lbaas/loadbalancers?name=a"
        );
        assert_eq!(rw("/v2/lbaas/pools/"), "/v2/lbaas/pools");
        assert_eq!(rw("/"), "/");
        assert_eq!(rw("/v2.0"), "/v2");
    }
}
