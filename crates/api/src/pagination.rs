//! Pagination, sorting, filtering and field selection of collection GETs, as
//! `octavia/api/common/pagination.py`.
//!
//! [`ListParams`] and the links are shared by both list paths; [`apply`] is the in-memory path
//! (the rendered response objects of one project scope: filters compare against API attribute
//! values, sort keys are API attribute names, and keyset pagination uses the marker row's sort
//! values, so `page_reverse=True` returns the first `limit` items *before* the marker in forward
//! order, as the reference does). The handlers answer in SQL (the `listing` module); [`apply`] is
//! the oracle those answers are tested against.

use std::cmp::Ordering;

use axum::http::{HeaderMap, StatusCode};
use serde_json::{Map, Value, json};

use crate::fault::ApiError;
use crate::state::AppState;

/// The auxiliary (non-filter) query parameters.
const AUX: &[&str] = &[
    "limit",
    "marker",
    "sort",
    "sort_key",
    "sort_dir",
    "fields",
    "page_reverse",
];

/// Parsed list query parameters.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListParams {
    /// Page size; `None` = unlimited.
    pub limit: Option<usize>,
    /// Id of the last item seen.
    pub marker: Option<String>,
    /// `page_reverse=True` (exact string).
    pub page_reverse: bool,
    /// `(key, descending)` pairs, defaults appended.
    pub sort: Vec<(String, bool)>,
    /// `fields=` selections (empty = all).
    pub fields: Vec<String>,
    /// Equality filters `(attribute, value)`.
    pub filters: Vec<(String, String)>,
    /// Tag filters `(kind, tags)`: kind is `tags`, `tags-any`, `not-tags` or `not-tags-any`.
    pub tag_filters: Vec<(String, Vec<String>)>,
    /// The raw `sort` / `sort_key` values, carried into links.
    raw_sort: Option<String>,
    raw_sort_key: Option<String>,
}

fn pecan_400(text: String) -> ApiError {
    ApiError::pecan(StatusCode::BAD_REQUEST, "Bad Request", text)
}

/// oslo `bool_from_string` (non-strict).
pub fn bool_from_string(s: &str) -> bool {
    matches!(
        s.trim().to_ascii_lowercase().as_str(),
        "1" | "t" | "true" | "on" | "y" | "yes"
    )
}

fn sort_dir(d: &str) -> Result<bool, ApiError> {
    match d.to_ascii_lowercase().as_str() {
        "asc" => Ok(false),
        "desc" => Ok(true),
        other => Err(pecan_400(format!(
            "Supplied sort direction '{other}' is not valid."
        ))),
    }
}

impl ListParams {
    /// Parse decoded query pairs. `max_limit` is `pagination_max_limit` (`None` = infinite).
    /// Errors (pecan shape, raised by the reference's hook): bad limit / sort direction / sort key syntax.
    pub fn parse(
        pairs: &[(String, String)],
        max_limit: Option<usize>,
        cfg: &crate::state::ApiConfig,
    ) -> Result<Self, ApiError> {
        let get = |k: &str| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        let mut p = ListParams {
            marker: get("marker"),
            ..Default::default()
        };
        p.page_reverse = get("page_reverse").as_deref() == Some("True");
        p.limit = match get("limit") {
            None => max_limit,
            Some(l) if l == "infinite" => None,
            Some(l) => match l.trim().parse::<i64>() {
                Ok(n) if n < 1 => None,
                Ok(n) => Some(max_limit.map_or(n as usize, |m| m.min(n as usize))),
                Err(_) => {
                    return Err(pecan_400(format!(
                        "Supplied pagination limit '{l}' is not valid."
                    )));
                }
            },
        };
        if !cfg.allow_pagination {
            p.limit = None;
            p.marker = None;
        }
        p.raw_sort = get("sort");
        p.raw_sort_key = get("sort_key");
        if let Some(sort) = &p.raw_sort {
            for item in sort.split(',') {
                let comps: Vec<&str> = item.split(':').collect();
                match comps.as_slice() {
                    [k] => p.sort.push((k.to_string(), false)),
                    [k, d] => p.sort.push((k.to_string(), sort_dir(d)?)),
                    _ => {
                        return Err(pecan_400(format!(
                            "Supplied sort key '{}' is not valid.",
                            crate::types::py_repr(&json!(comps))
                        )));
                    }
                }
            }
        } else if let Some(keys) = &p.raw_sort_key {
            let dirs: Vec<String> = get("sort_dir")
                .map(|d| d.split(',').map(str::to_string).collect())
                .unwrap_or_default();
            for (i, k) in keys.split(',').enumerate() {
                let desc = match dirs.get(i) {
                    Some(d) => sort_dir(d)?,
                    None => false,
                };
                p.sort.push((k.to_string(), desc));
            }
        }
        if !cfg.allow_sorting {
            p.sort.clear();
        }
        if cfg.allow_field_selection {
            p.fields = pairs
                .iter()
                .filter(|(k, _)| k == "fields")
                .map(|(_, v)| v.clone())
                .collect();
        }
        if cfg.allow_filtering {
            for (k, v) in pairs {
                if AUX.contains(&k.as_str()) {
                    continue;
                }
                if ["tags", "tags-any", "not-tags", "not-tags-any"].contains(&k.as_str()) {
                    let tags: Vec<String> = v.split(',').map(str::to_string).collect();
                    match p.tag_filters.iter_mut().find(|(n, _)| n == k) {
                        Some((_, t)) => t.extend(tags),
                        None => p.tag_filters.push((k.clone(), tags)),
                    }
                } else {
                    p.filters.push((k.clone(), v.clone()));
                }
            }
        }
        Ok(p)
    }

    /// The `project_id` filter, if any (used for the policy scope, §14.5).
    pub fn project_filter(&self) -> Option<&str> {
        self.filters
            .iter()
            .find(|(k, _)| k == "project_id" || k == "tenant_id")
            .map(|(_, v)| v.as_str())
    }
}

fn value_matches(v: &Value, q: &str) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b == bool_from_string(q),
        Value::Number(n) => n.to_string() == q || q.parse::<f64>().ok() == n.as_f64(),
        Value::String(s) => s == q,
        Value::Array(a) => a
            .iter()
            .any(|i| i.get("id").and_then(Value::as_str) == Some(q) || i.as_str() == Some(q)),
        Value::Object(_) => false,
    }
}

fn cmp_values(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Null, Value::Null) => Ordering::Equal,
        (Value::Null, _) => Ordering::Less,
        (_, Value::Null) => Ordering::Greater,
        (Value::Number(x), Value::Number(y)) => x
            .as_f64()
            .partial_cmp(&y.as_f64())
            .unwrap_or(Ordering::Equal),
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::String(x), Value::String(y)) => x.cmp(y),
        (x, y) => x.to_string().cmp(&y.to_string()),
    }
}

fn cmp_items(a: &Map<String, Value>, b: &Map<String, Value>, sort: &[(String, bool)]) -> Ordering {
    for (k, desc) in sort {
        let o = cmp_values(
            a.get(k).unwrap_or(&Value::Null),
            b.get(k).unwrap_or(&Value::Null),
        );
        let o = if *desc { o.reverse() } else { o };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// One page of a collection: the items (fields projected) and the `<collection>_links`.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// Items in order.
    pub items: Vec<Value>,
    /// `[{"href", "rel"}]`; `null` when pagination is disabled.
    pub links: Value,
}

/// Filter, sort and page `all` (every visible object of the caller's scope), as the reference's
/// `PaginationHelper.apply`. `attrs` are the attribute names filters and sort keys may use.
///
/// Errors: unknown filter → 400 `One or more arguments are either duplicate or invalid`;
/// unknown sort key → 400 `Supplied sort key '<k>' is not valid.`; unknown marker → 400
/// `Supplied pagination marker '<m>' is not valid.`
pub fn apply(
    all: Vec<Map<String, Value>>,
    p: &ListParams,
    attrs: &[&str],
    path_url: &str,
    cfg: &crate::state::ApiConfig,
) -> Result<Page, ApiError> {
    let sort = sort_keys(p, attrs)?;
    let key = key_attr(attrs);
    let marker_row = match &p.marker {
        Some(m) => Some(
            all.iter()
                .find(|i| i.get(key).and_then(Value::as_str) == Some(m.as_str()))
                .cloned()
                .ok_or_else(|| {
                    ApiError::BadRequest(format!("Supplied pagination marker '{m}' is not valid."))
                })?,
        ),
        None => None,
    };
    let mut items: Vec<Map<String, Value>> = all
        .into_iter()
        .filter(|i| {
            p.filters.iter().all(|(k, v)| {
                let key = if k == "tenant_id" {
                    "project_id"
                } else {
                    k.as_str()
                };
                i.get(key).is_some_and(|x| value_matches(x, v))
            })
        })
        .filter(|i| {
            let tags: Vec<&str> = i
                .get("tags")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            p.tag_filters.iter().all(|(kind, want)| {
                let has = |t: &String| tags.contains(&t.as_str());
                match kind.as_str() {
                    "tags" => want.iter().all(has),
                    "tags-any" => want.iter().any(has),
                    "not-tags" => !want.iter().all(has),
                    _ => !want.iter().any(has),
                }
            })
        })
        .collect();
    if cfg.allow_sorting {
        items.sort_by(|a, b| cmp_items(a, b, &sort));
    }
    if let Some(m) = &marker_row {
        let want = if p.page_reverse {
            Ordering::Less
        } else {
            Ordering::Greater
        };
        items.retain(|i| cmp_items(i, m, &sort) == want);
    }
    if let Some(l) = p.limit {
        items.truncate(l);
    }
    Ok(finish(items, p, key, path_url, cfg))
}

/// The attribute that names an item of a collection in its links' `marker=`: `id`, or, for the
/// two collections without one, their table key, which their attribute lists name first
/// (`project_id` of quotas, `name` of availability zones). The reference writes the item's
/// `id` (`marker=None` for these two) and looks the marker up by `id`, which these tables do not
/// have; Keel pages them by their key.
pub fn key_attr<'a>(attrs: &[&'a str]) -> &'a str {
    if attrs.contains(&"id") {
        "id"
    } else {
        attrs.first().copied().unwrap_or("id")
    }
}

/// Attributes whose value is a list or an object in every response that has them: not sort
/// keys. The reference answers a sort on most of them with a 500 (SQLAlchemy cannot order by a
/// relationship) and orders the rest by their stored encoding; Keel refuses them all with the
/// 400 of an unknown sort key.
pub const UNSORTABLE: &[&str] = &[
    "tags",
    "listeners",
    "pools",
    "loadbalancers",
    "members",
    "l7policies",
    "rules",
    "vip_sg_ids",
    "additional_vips",
    "sni_container_refs",
    "allowed_cidrs",
    "tls_versions",
    "alpn_protocols",
    "insert_headers",
    "session_persistence",
];

/// The sort keys of a list after validation: the requested ones, then `created_at` and `id`
/// ascending when the resource has them and they were not requested, then the
/// [`key_attr`] when not already there (so the order is total and a marker's successors are
/// well defined). Errors: unknown filter →
/// 400 `One or more arguments are either duplicate or invalid`; unknown sort key or one in
/// [`UNSORTABLE`] → 400 `Supplied sort key '<k>' is not valid.`
pub fn sort_keys(p: &ListParams, attrs: &[&str]) -> Result<Vec<(String, bool)>, ApiError> {
    for (k, _) in &p.filters {
        if !attrs.contains(&k.as_str()) {
            return Err(ApiError::BadRequest(
                "One or more arguments are either duplicate or invalid".into(),
            ));
        }
    }
    let mut sort = p.sort.clone();
    for (k, _) in &sort {
        if !attrs.contains(&k.as_str()) || UNSORTABLE.contains(&k.as_str()) {
            return Err(ApiError::BadRequest(format!(
                "Supplied sort key '{k}' is not valid."
            )));
        }
    }
    for default in ["created_at", "id", key_attr(attrs)] {
        if attrs.contains(&default) && !sort.iter().any(|(k, _)| k == default) {
            sort.push((default.to_string(), false));
        }
    }
    Ok(sort)
}

/// The page of `items` (already filtered, sorted and cut to the limit): `fields=` applied and
/// the `previous` / `next` links as `PaginationHelper._make_links` (`null` when pagination is
/// disabled). `key` is the [`key_attr`] of the collection; its value is the links' marker,
/// percent-encoded (an id is left as it is).
pub fn finish(
    items: Vec<Map<String, Value>>,
    p: &ListParams,
    key: &str,
    path_url: &str,
    cfg: &crate::state::ApiConfig,
) -> Page {
    let id = |i: &Map<String, Value>| {
        i.get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let ends = items.first().map(id).zip(items.last().map(id));
    let links = links(ends, items.len(), p, path_url, cfg);
    let items = items
        .into_iter()
        .map(|i| Value::Object(project_fields(i, &p.fields)))
        .collect();
    Page { items, links }
}

/// The `previous` / `next` links of a page of `n` items whose first and last [`key_attr`]
/// values are `ends` (`None`: an empty page), as `PaginationHelper._make_links`; `null` when
/// pagination is disabled. The marker is percent-encoded (an id is left as it is).
pub fn links(
    ends: Option<(String, String)>,
    n: usize,
    p: &ListParams,
    path_url: &str,
    cfg: &crate::state::ApiConfig,
) -> Value {
    if !cfg.allow_pagination {
        return Value::Null;
    }
    let mut links = Vec::new();
    if let Some((first, last)) = ends {
        let mut base = vec![format!(
            "limit={}",
            p.limit.map_or("None".to_string(), |l| l.to_string())
        )];
        if let Some(s) = &p.raw_sort {
            base.push(format!("sort={s}"));
        }
        if let Some(s) = &p.raw_sort_key {
            base.push(format!("sort_key={s}"));
        }
        if p.marker.is_some() {
            let mut prev = base.clone();
            prev.push(format!("marker={}", encode_query_value(&first)));
            prev.push("page_reverse=True".into());
            links
                .push(json!({"href": format!("{path_url}?{}", prev.join("&")), "rel": "previous"}));
        }
        if p.limit.is_none_or(|l| n >= l) {
            let mut next = base;
            next.push(format!("marker={}", encode_query_value(&last)));
            links.push(json!({"href": format!("{path_url}?{}", next.join("&")), "rel": "next"}));
        }
    }
    Value::Array(links)
}

/// `s` percent-encoded for a query value: every byte but the unreserved ones of RFC 3986.
fn encode_query_value(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `fields=` projection: keep only the selected keys (unknown names ignored; none = all).
pub fn project_fields(item: Map<String, Value>, fields: &[String]) -> Map<String, Value> {
    if fields.is_empty() {
        return item;
    }
    item.into_iter()
        .filter(|(k, _)| fields.iter().any(|f| f == k))
        .collect()
}

/// The request's URL without query, for pagination links (as `octavia/api/common/pagination.py`
/// `_make_links`): `[api_settings] api_base_uri` + prefix + path when set, else the request's
/// own URL ([`crate::proxy_headers::Origin::url`]: `http://<Host><path>`, or what the proxy
/// headers say when `enable_proxy_headers_parsing`).
pub fn path_url(state: &AppState, headers: &HeaderMap, path: &str) -> String {
    let origin =
        crate::proxy_headers::Origin::of(headers, state.config().enable_proxy_headers_parsing);
    if let Some(base) = &state.config().api_base_uri {
        return format!("{}{}{path}", base.trim_end_matches('/'), origin.prefix);
    }
    origin.url(path)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn item(id: &str, name: &str, created: &str) -> Map<String, Value> {
        json!({"id": id, "name": name, "created_at": created, "tags": ["t1"], "admin_state_up": true})
            .as_object()
            .cloned()
            .unwrap_or_default()
    }
    fn q(s: &[(&str, &str)]) -> Vec<(String, String)> {
        s.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }
    const ATTRS: &[&str] = &["id", "name", "created_at", "tags", "admin_state_up"];

    fn run(query: &[(&str, &str)]) -> Result<Page, ApiError> {
        let cfg = crate::state::ApiConfig::default();
        let p = ListParams::parse(&q(query), Some(1000), &cfg)?;
        let all = vec![
            item("3", "c", "2020-01-03"),
            item("1", "a", "2020-01-01"),
            item("2", "b", "2020-01-02"),
        ];
        apply(all, &p, ATTRS, "http://h/v2/lbaas/x", &cfg)
    }
    fn ids(p: &Page) -> Vec<&str> {
        p.items
            .iter()
            .map(|i| i["id"].as_str().unwrap_or_default())
            .collect()
    }

    #[test]
    fn default_order_and_filters() {
        let p = run(&[]).unwrap();
        assert_eq!(ids(&p), ["1", "2", "3"]);
        assert_eq!(p.links, json!([]));
        assert_eq!(ids(&run(&[("name", "b")]).unwrap()), ["2"]);
        assert_eq!(
            ids(&run(&[("admin_state_up", "false")]).unwrap()),
            Vec::<&str>::new()
        );
        assert!(run(&[("bogus", "1")]).is_err());
        assert_eq!(
            ids(&run(&[("not-tags", "t1")]).unwrap()),
            Vec::<&str>::new()
        );
    }

    #[test]
    fn keyset_pages_and_links() {
        let p = run(&[("limit", "1"), ("sort", "name")]).unwrap();
        assert_eq!(ids(&p), ["1"]);
        assert_eq!(
            p.links,
            json!([{"href": "http://h/v2/lbaas/x?limit=1&sort=name&marker=1", "rel": "next"}])
        );
        let p = run(&[
            ("limit", "1"),
            ("sort", "name"),
            ("marker", "3"),
            ("page_reverse", "True"),
        ])
        .unwrap();
        assert_eq!(ids(&p), ["1"]);
        assert_eq!(p.links.as_array().map(Vec::len), Some(2));
        let p = run(&[("limit", "0")]).unwrap();
        assert_eq!(ids(&p).len(), 3);
        assert_eq!(
            p.links[0]["href"],
            "http://h/v2/lbaas/x?limit=None&marker=3"
        );
        assert_eq!(
            ids(&run(&[("sort", "name:desc")]).unwrap()),
            ["3", "2", "1"]
        );
        assert_eq!(
            run(&[("limit", "x")]).unwrap_err().to_string(),
            "Supplied pagination limit 'x' is not valid."
        );
        assert_eq!(
            run(&[("marker", "9")]).unwrap_err().to_string(),
            "Supplied pagination marker '9' is not valid."
        );
        assert_eq!(
            run(&[("sort", "zzz")]).unwrap_err().to_string(),
            "Supplied sort key 'zzz' is not valid."
        );
        assert!(run(&[("sort", "name:up")]).is_err());
    }

    #[test]
    fn keyless_collections_page_by_their_key() {
        assert_eq!(key_attr(crate::quotas::QUOTA_ATTRS), "project_id");
        assert_eq!(key_attr(crate::flavors::AZ_ATTRS), "name");
        assert_eq!(key_attr(ATTRS), "id");
        assert_eq!(encode_query_value("az 1&x=é"), "az%201%26x%3D%C3%A9");
        assert_eq!(encode_query_value("0a-F_.~"), "0a-F_.~");
    }

    #[test]
    fn field_projection() {
        let p = ListParams::parse(
            &q(&[("fields", "id"), ("fields", "name")]),
            None,
            &crate::state::ApiConfig::default(),
        )
        .unwrap();
        let m = project_fields(item("1", "a", "x"), &p.fields);
        assert_eq!(Value::Object(m), json!({"id": "1", "name": "a"}));
    }
}
