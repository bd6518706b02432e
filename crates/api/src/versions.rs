//! Version discovery and the bare `/v2` answers, as `octavia/api/root_controller.py`
//! (`/healthcheck`: see [`crate::healthcheck`]).

use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;
use serde_json::{Value, json};

use crate::state::AppState;

/// `(id, status, updated)` of every API version, in the reference's order
/// (octavia/api/root_controller.py; v2.7's out-of-order date is the reference's).
pub const VERSIONS: &[(&str, &str, &str)] = &[
    ("v2.0", "SUPPORTED", "2016-12-11T00:00:00Z"),
    ("v2.1", "SUPPORTED", "2018-04-20T00:00:00Z"),
    ("v2.2", "SUPPORTED", "2018-07-31T00:00:00Z"),
    ("v2.3", "SUPPORTED", "2018-12-18T00:00:00Z"),
    ("v2.4", "SUPPORTED", "2018-12-19T00:00:00Z"),
    ("v2.5", "SUPPORTED", "2019-01-21T00:00:00Z"),
    ("v2.6", "SUPPORTED", "2019-01-25T00:00:00Z"),
    ("v2.7", "SUPPORTED", "2018-01-25T12:00:00Z"),
    ("v2.8", "SUPPORTED", "2019-02-12T00:00:00Z"),
    ("v2.9", "SUPPORTED", "2019-03-04T00:00:00Z"),
    ("v2.10", "SUPPORTED", "2019-03-05T00:00:00Z"),
    ("v2.11", "SUPPORTED", "2019-06-24T00:00:00Z"),
    ("v2.12", "SUPPORTED", "2019-09-11T00:00:00Z"),
    ("v2.13", "SUPPORTED", "2019-09-13T00:00:00Z"),
    ("v2.14", "SUPPORTED", "2019-11-10T00:00:00Z"),
    ("v2.15", "SUPPORTED", "2020-03-10T00:00:00Z"),
    ("v2.16", "SUPPORTED", "2020-03-15T00:00:00Z"),
    ("v2.17", "SUPPORTED", "2020-04-29T00:00:00Z"),
    ("v2.18", "SUPPORTED", "2020-04-29T01:00:00Z"),
    ("v2.19", "SUPPORTED", "2020-05-12T00:00:00Z"),
    ("v2.20", "SUPPORTED", "2020-08-02T00:00:00Z"),
    ("v2.21", "SUPPORTED", "2020-09-03T00:00:00Z"),
    ("v2.22", "SUPPORTED", "2020-09-04T00:00:00Z"),
    ("v2.23", "SUPPORTED", "2020-09-07T00:00:00Z"),
    ("v2.24", "SUPPORTED", "2020-10-15T00:00:00Z"),
    ("v2.25", "SUPPORTED", "2021-10-02T00:00:00Z"),
    ("v2.26", "SUPPORTED", "2022-08-29T00:00:00Z"),
    ("v2.27", "SUPPORTED", "2023-05-05T00:00:00Z"),
    ("v2.28", "SUPPORTED", "2023-11-08T00:00:00Z"),
    ("v2.29", "SUPPORTED", "2024-10-15T00:00:00Z"),
    ("v2.30", "CURRENT", "2025-02-26T00:00:00Z"),
];

/// The versions document for a base URL (`http://host:port/`, trailing slash included).
pub fn versions_body(base: &str) -> Value {
    let versions: Vec<Value> = VERSIONS
        .iter()
        .map(|(id, status, updated)| {
            json!({"id": id, "status": status, "updated": updated,
                   "links": [{"href": format!("{base}v2"), "rel": "self"}]})
        })
        .collect();
    json!({ "versions": versions })
}

/// `GET /`: no auth; every link is `<request URL with trailing slash>v2`. The request URL is
/// webob's `path_url` as `root_controller.py` uses it: `[api_settings] api_base_uri` does not
/// apply here, the proxy headers do (`enable_proxy_headers_parsing`, see
/// [`crate::proxy_headers`]).
pub async fn index(State(state): State<AppState>, headers: HeaderMap) -> Json<Value> {
    let origin =
        crate::proxy_headers::Origin::of(&headers, state.config().enable_proxy_headers_parsing);
    Json(versions_body(&origin.url("/")))
}

/// `GET /v2`, `/v2/lbaas`, `/v2/octavia`: the JSON string `"v2"` (auth required).
pub async fn v2() -> Json<Value> {
    Json(Value::String("v2".into()))
}
