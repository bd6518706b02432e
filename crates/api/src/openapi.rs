//! The OpenAPI 3.1 document of the whole API, served as `GET /v2/openapi.json` and checked in
//! as `docs/openapi.json`.
//!
//! Nothing in it is written twice: request bodies are rendered from the very [`Schema`](crate::types::Schema) tables
//! [`crate::types::parse_body`] validates with (lengths, ranges, enums, patterns, UUID / IP /
//! CIDR formats, nesting, mandatory fields, the `tenant_id` alias); response bodies from the
//! attribute tables the handlers filter and sort by (`crate::render::LB_ATTRS`, …), each attribute typed
//! by the same request schemas (plus the few response-only attributes in [`Resource::extra`]);
//! the graph create's `…Full` objects from those same resources ([`Full`]: attributes removed,
//! related objects nested whole, as `load_balancer::graph::render_full`); the 401 / 503 of
//! every authenticated operation from `middleware::auth_layer` (503 = Keystone outage, with
//! `context::KEYSTONE_UNAVAILABLE`); paths and methods from [`OPERATIONS`], which the tests check against [`crate::router`] (a
//! route cannot be served undocumented) and whose success codes and bodies they check against
//! real responses (`crates/api/tests/openapi.rs`).

mod render;
mod tables;

use std::sync::OnceLock;

use axum::Json;
use serde_json::{Map, Value, json};

use render::{components, operation};
pub use tables::*;

/// The whole document (OpenAPI 3.1.0), deterministic: same input tables, same value.
pub fn document() -> Value {
    let mut paths = Map::new();
    for o in OPERATIONS {
        let entry = paths.entry(o.path.to_string()).or_insert_with(|| json!({}));
        entry[o.method] = operation(o);
    }
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Keel: OpenStack Octavia v2 API",
            "version": crate::versions::VERSIONS.last().map_or("v2", |v| v.0),
            "description": "The Octavia v2 load-balancing API of Octavia 19.0.0, as served by Keel. \
                Generated from the request schemas, response attribute tables and route table \
                of the `api` crate (`crates/api/src/openapi.rs`). Aliases not listed as paths: \
                `/v2.0/…` = `/v2/…`, `/v2/<collection>` = `/v2/lbaas/<collection>`, a `.json` \
                suffix and a trailing `/` are ignored, and every GET also answers HEAD. Request \
                bodies are coerced as WSME does (`\"80\"` for an integer, `\"yes\"` for a \
                boolean); the schemas give the canonical types. With `fields=`, only the \
                selected attributes of an object are returned.",
            "license": {"name": "Apache-2.0", "identifier": "Apache-2.0"},
        },
        "security": [{"keystone": []}],
        "paths": paths,
        "components": components(),
    })
}

/// `GET /v2/openapi.json`: this document. Behind the same authentication as `GET /v2` (any
/// valid token, no policy rule), as every Octavia path but `/` and `/healthcheck` is; the
/// document holds no deployment data, so no RBAC rule guards it.
pub async fn serve() -> Json<Value> {
    static DOC: OnceLock<Value> = OnceLock::new();
    Json(DOC.get_or_init(document).clone())
}
