//! List and GET plumbing shared by the controllers: query parameters refused or parsed
//! (WSME's `Unknown argument`, the pagination hook every GET runs), `fields=` on one object,
//! the `{<key>: [...], <key>_links: [...]}` collection body, and the rows a list may see.

use axum::http::HeaderMap;
use octavia_db::{ListQuery, Tx};
use serde_json::{Map, Value};

use crate::fault::ApiError;
use crate::pagination::{self, ListParams};
use crate::state::AppState;

/// Reject any query parameter on endpoints that declare none but `allowed`
/// (400 `Unknown argument: "<name>"`, WSME).
pub fn no_query(pairs: &[(String, String)], allowed: &[&str]) -> Result<(), ApiError> {
    match pairs.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
        Some((k, _)) => Err(ApiError::UnknownArgument(k.clone())),
        None => Ok(()),
    }
}

/// `GET one` validates pagination parameters too (the reference's hook runs for every GET).
pub fn check_get_query(
    state: &AppState,
    pairs: &[(String, String)],
) -> Result<Vec<String>, ApiError> {
    let p = ListParams::parse(pairs, state.config().pagination_max_limit, state.config())?;
    Ok(p.fields)
}

/// Apply `fields=` to a single object.
pub fn select(obj: Value, fields: &[String]) -> Value {
    match obj {
        Value::Object(m) => Value::Object(pagination::project_fields(m, fields)),
        other => other,
    }
}

/// Build a collection body `{<key>: [...], <key>_links: [...]}` from rendered objects.
pub fn collection(
    state: &AppState,
    headers: &HeaderMap,
    path: &str,
    key: &str,
    all: Vec<Value>,
    params: &ListParams,
    attrs: &[&str],
) -> Result<Value, ApiError> {
    let objs: Vec<Map<String, Value>> = all
        .into_iter()
        .filter_map(|v| v.as_object().cloned())
        .collect();
    let url = pagination::path_url(state, headers, path);
    let page = pagination::apply(objs, params, attrs, &url, state.config())?;
    let mut body = Map::new();
    body.insert(key.to_string(), Value::Array(page.items));
    body.insert(format!("{key}_links"), page.links);
    Ok(Value::Object(body))
}

/// Rows of a table visible to a list: non-DELETED, in `project` when scoped.
pub async fn visible<T: octavia_db::Record + octavia_db::HasProvisioningStatus>(
    tx: &mut Tx,
    project: &Option<String>,
    extra: Vec<(&str, octavia_db::SqlValue)>,
) -> Result<Vec<T>, ApiError> {
    let mut q = ListQuery {
        exclude_deleted: true,
        ..ListQuery::default()
    };
    if let Some(p) = project {
        q = q.filter("project_id", p.as_str());
    }
    for (k, v) in extra {
        q = q.filter(k, v);
    }
    Ok(tx.list(&q).await?)
}
