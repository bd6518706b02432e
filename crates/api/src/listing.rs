//! Collection GETs in SQL: the filters, tag filters, sort keys, marker and limit of a
//! [`ListParams`] as one keyset query over the listed table (octavia-db [`Tx::page`]), so a list
//! reads and renders only the page's rows, as `octavia/api/common/pagination.py` queries.
//!
//! Each collection maps its API attributes to SQL in a [`Spec`]. The answers are those of the
//! in-memory path ([`crate::pagination::apply`] over the rendered objects of the caller's scope,
//! `crate::list::in_memory`), which answers only what SQL does not express
//! ([`Attr::Memory`]) and is the oracle `tests/list_sql.rs` calls directly; every attribute of
//! every collection has its SQL form here. A value is compared as the API renders it (`""` for a
//! NULL name, `normal` for an empty vnic type, datetimes to the second), NULL sorts lowest and
//! equals NULL, and the marker must be a row of the caller's scope. Strings compare with the
//! database's collation (MariaDB's is case-insensitive, as for the reference).

use axum::http::HeaderMap;
use octavia_db::{Cond, PageQuery, Record, SqlValue, Tx};

use crate::fault::ApiError;
use crate::pagination::{self, ListParams, bool_from_string};
use crate::state::AppState;

/// The `Cond` of `expr = value` for a filter value as the in-memory path compares it; `1 = 0`
/// when no rendered value can equal it.
fn equals(expr: &str, kind: Kind, q: &str) -> Cond {
    let never = || ("1 = 0".to_string(), vec![]);
    let v = match kind {
        Kind::Text => SqlValue::Text(q.to_string()),
        Kind::Bool => SqlValue::Bool(bool_from_string(q)),
        Kind::Int => match q.parse::<f64>() {
            Ok(f) if f.is_finite() && f.fract() == 0.0 && f.abs() < 9.0e15 => {
                // the in-memory path compares as f64
                SqlValue::Int(f as i64)
            }
            _ => return never(),
        },
        Kind::Time => match chrono::NaiveDateTime::parse_from_str(q, "%Y-%m-%dT%H:%M:%S") {
            Ok(t) if t.format("%Y-%m-%dT%H:%M:%S").to_string() == q => SqlValue::Time(t),
            _ => return never(),
        },
        Kind::Hundredths => match q.parse::<f64>() {
            // the rendered value is k / 100 for an integer k; only such a value can equal it
            Ok(f) if f.is_finite() && f.abs() < 9.0e13 && (f * 100.0).round() / 100.0 == f => {
                SqlValue::Int((f * 100.0).round() as i64)
            }
            _ => return never(),
        },
    };
    (format!("{expr} = ?"), vec![v])
}

/// The `Cond` of "`q` is an element of the comma-joined list `expr`" (an element never contains
/// a comma; an empty column is the empty list).
fn element_of(expr: &str, q: &str) -> Cond {
    if q.contains(',') {
        return ("1 = 0".to_string(), vec![]);
    }
    (
        format!("{expr} <> '' AND INSTR(CONCAT(',', {expr}, ','), ?) > 0"),
        vec![SqlValue::Text(format!(",{q},"))],
    )
}

/// The tag-filter conditions, with the in-memory path's semantics (`tags`: all, `tags-any`:
/// one, `not-tags`: not all, `not-tags-any`: none).
fn tag_conds(spec: &Spec, p: &ListParams) -> Vec<Cond> {
    let mut out = Vec::new();
    for (kind, want) in &p.tag_filters {
        let mut uniq = want.clone();
        uniq.sort();
        uniq.dedup();
        let (all, negate) = match kind.as_str() {
            "tags" => (true, false),
            "tags-any" => (false, false),
            "not-tags" => (true, true),
            _ => (false, true),
        };
        let cond = if !spec.tags || uniq.is_empty() {
            // no tags at all: "all" and "any" of a non-empty list fail
            "1 = 0".to_string()
        } else {
            let marks = vec!["?"; uniq.len()].join(", ");
            if all {
                format!(
                    "(SELECT COUNT(DISTINCT `g`.`tag`) FROM `tags` `g` WHERE `g`.`resource_id` = \
                     `t`.`id` AND `g`.`tag` IN ({marks})) = {}",
                    uniq.len()
                )
            } else {
                format!(
                    "EXISTS (SELECT 1 FROM `tags` `g` WHERE `g`.`resource_id` = `t`.`id` AND \
                     `g`.`tag` IN ({marks}))"
                )
            }
        };
        let args = if spec.tags {
            uniq.into_iter().map(SqlValue::Text).collect()
        } else {
            vec![]
        };
        out.push(if negate {
            (format!("NOT ({cond})"), args)
        } else {
            (cond, args)
        });
    }
    out
}

/// The SQL page query of `p` over `spec` within `scope`, or `None` when the in-memory path must
/// answer (an attribute SQL does not express here, [`Attr::Memory`]).
/// `attrs` are the names filters and sort keys may use; the marker is looked up by the table's
/// key (`Record::KEY`, the collection's [`pagination::key_attr`]). Errors: the in-memory path's
/// 400s for an unknown filter or sort key.
pub fn plan(
    spec: &Spec,
    p: &ListParams,
    attrs: &[&str],
    scope: Vec<Cond>,
) -> Result<Option<PageQuery>, ApiError> {
    let sort = pagination::sort_keys(p, attrs)?;
    let mut filters = Vec::new();
    let mut used = Vec::new();
    for (k, v) in &p.filters {
        match spec.attr(k) {
            Attr::Val(e, kind) => {
                used.push(e);
                filters.push(equals(e, kind, v));
            }
            Attr::Str(c) => {
                used.push(c);
                filters.push(if v.is_empty() {
                    (format!("({c} IS NULL OR {c} = '')"), vec![])
                } else {
                    (format!("{c} = ?"), vec![SqlValue::Text(v.clone())])
                });
            }
            Attr::Has(c) => {
                used.push(c);
                filters.push((c.to_string(), vec![SqlValue::Text(v.clone())]));
            }
            Attr::Csv(e) => {
                used.push(e);
                filters.push(element_of(e, v));
            }
            Attr::Never => filters.push(("1 = 0".to_string(), vec![])),
            Attr::Memory => return Ok(None),
        }
    }
    let mut keys = Vec::new();
    for (k, desc) in &sort {
        match spec.attr(k) {
            Attr::Val(e, _) => {
                used.push(e);
                keys.push((e.to_string(), *desc));
            }
            Attr::Str(c) => {
                used.push(c);
                keys.push((format!("COALESCE({c}, '')"), *desc));
            }
            // `sort_keys` has refused these already
            Attr::Has(_) | Attr::Csv(_) | Attr::Never => {
                return Err(ApiError::BadRequest(format!(
                    "Supplied sort key '{k}' is not valid."
                )));
            }
            Attr::Memory => return Ok(None),
        }
    }
    filters.extend(tag_conds(spec, p));
    let joins = spec
        .joins
        .iter()
        .filter(|(alias, _)| used.iter().any(|e| e.contains(alias)))
        .map(|(_, j)| *j)
        .collect::<Vec<_>>()
        .join(" ");
    Ok(Some(PageQuery {
        joins,
        scope,
        filters,
        keys,
        marker: p.marker.clone(),
        page_reverse: p.page_reverse,
        limit: p.limit,
    }))
}

fn bad_marker(m: &str) -> ApiError {
    ApiError::BadRequest(format!("Supplied pagination marker '{m}' is not valid."))
}

/// The rows of the page `q` (400 `Supplied pagination marker '<m>' is not valid.` when the
/// marker is not a row of the scope).
pub async fn rows<T: Record>(tx: &mut Tx, q: &PageQuery) -> Result<Vec<T>, ApiError> {
    match tx.page::<T>(q).await? {
        Some(rows) => Ok(rows),
        None => Err(bad_marker(q.marker.as_deref().unwrap_or_default())),
    }
}

/// A scope condition `t.<column> = value`.
pub fn scope_eq(column: &str, value: &str) -> Cond {
    (
        format!("`t`.`{column}` = ?"),
        vec![SqlValue::Text(value.to_string())],
    )
}

/// The scope condition of tables with a provisioning status: not DELETED.
pub fn not_deleted() -> Cond {
    ("`t`.`provisioning_status` <> 'DELETED'".to_string(), vec![])
}

/// What a collection GET lists: its [`Spec`], its API attribute names, the request path its
/// links name (`/v2/lbaas/pools/<id>/members`) and the body key (`members`).
pub struct Collection<'a> {
    /// How each attribute is written in SQL.
    pub spec: &'static Spec,
    /// The API attribute names (sort keys and `fields` are checked against them).
    pub attrs: &'a [&'a str],
    /// The path of the request, for the `<key>_links` ([`pagination::path_url`]).
    pub path: &'a str,
    /// The body key of the list.
    pub key: &'a str,
}

/// A collection GET answered in SQL: [`plan`] → the page's rows ([`rows`]) → `render` (one
/// call for the whole page) → the body with its links ([`body`]). `Ok(None)` when the
/// in-memory path must answer instead (see [`plan`]). Errors: 400 for a bad sort key, filter
/// or marker, the database's, `render`'s.
pub async fn page<T: Record>(
    st: &AppState,
    headers: &HeaderMap,
    tx: &mut Tx,
    c: &Collection<'_>,
    p: &ListParams,
    scope: Vec<Cond>,
    render: impl AsyncFnOnce(&mut Tx, &[T]) -> Result<Vec<serde_json::Value>, ApiError>,
) -> Result<Option<serde_json::Value>, ApiError> {
    let Some(q) = plan(c.spec, p, c.attrs, scope)? else {
        return Ok(None);
    };
    let rows: Vec<T> = rows(tx, &q).await?;
    let objs = render(tx, &rows).await?;
    let url = pagination::path_url(st, headers, c.path);
    Ok(Some(body(&url, c.key, objs, p, c.attrs, st.config())))
}

/// [`page`] for a request without `fields=` whose objects `render` writes as JSON text
/// ([`crate::view`]): the body's text, the same bytes [`body`] would serialise to (`<key>`
/// sorts before `<key>_links`). `key_of` gives a row's [`pagination::key_attr`] value (the
/// links' marker). `Ok(None)` as for [`page`]; errors as [`page`].
#[allow(clippy::too_many_arguments)]
pub async fn page_text<T: Record>(
    st: &AppState,
    headers: &HeaderMap,
    tx: &mut Tx,
    c: &Collection<'_>,
    p: &ListParams,
    scope: Vec<Cond>,
    key_of: fn(&T) -> &str,
    render: impl AsyncFnOnce(&mut Tx, &[T]) -> Result<Vec<String>, ApiError>,
) -> Result<Option<String>, ApiError> {
    let Some(q) = plan(c.spec, p, c.attrs, scope)? else {
        return Ok(None);
    };
    let rows: Vec<T> = rows(tx, &q).await?;
    let objs = render(tx, &rows).await?;
    let url = pagination::path_url(st, headers, c.path);
    let ends = rows
        .first()
        .map(|r| key_of(r).to_string())
        .zip(rows.last().map(|r| key_of(r).to_string()));
    let links = pagination::links(ends, rows.len(), p, &url, st.config());
    let len = objs.iter().map(|o| o.len() + 1).sum::<usize>() + 2 * c.key.len() + 64;
    let mut out = String::with_capacity(len);
    out.push('{');
    out.push_str(&to_text(&c.key));
    out.push_str(":[");
    for (i, o) in objs.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(o);
    }
    out.push_str("],");
    out.push_str(&to_text(&format!("{}_links", c.key)));
    out.push(':');
    out.push_str(&to_text(&links));
    out.push('}');
    Ok(Some(out))
}

/// A JSON response of a body already written as text (what `axum::Json` answers).
pub fn json_text(body: String) -> axum::response::Response {
    use axum::response::IntoResponse;
    (
        [(
            axum::http::header::CONTENT_TYPE,
            axum::http::HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}

/// A collection body `{<key>: [...], <key>_links: [...]}` of a page's rendered objects;
/// `attrs` as for [`plan`] (the links' marker is the [`pagination::key_attr`]).
pub fn body(
    url: &str,
    key: &str,
    objs: Vec<serde_json::Value>,
    p: &ListParams,
    attrs: &[&str],
    cfg: &crate::state::ApiConfig,
) -> serde_json::Value {
    let items = objs
        .into_iter()
        .filter_map(|v| match v {
            serde_json::Value::Object(m) => Some(m),
            _ => None,
        })
        .collect();
    let page = pagination::finish(items, p, pagination::key_attr(attrs), url, cfg);
    let mut body = serde_json::Map::new();
    body.insert(key.to_string(), serde_json::Value::Array(page.items));
    body.insert(format!("{key}_links"), page.links);
    serde_json::Value::Object(body)
}

mod specs;
pub use specs::*;

/// `value` as compact JSON text (as `crate::view::to_text`; a string or a list of links never
/// fails to serialise).
fn to_text<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".to_string())
}
