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

/// A list-only attribute: its name and its value of a row (`("pool_id", |r| json!(r.pool_id))`).
pub type Helper<T> = (&'static str, fn(&T) -> Value);

/// The rows a collection never lists, whatever the caller's scope: the SQL condition that
/// leaves them out of a page and the test of the in-memory path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hidden {
    /// None (quotas: every row of the scope).
    Nothing,
    /// Rows whose `provisioning_status` is `DELETED` (the load balancer and its tree).
    Deleted,
    /// Rows whose `status` is `DELETED` (amphorae, `get_all_API_list(show_deleted=False)`).
    StatusDeleted,
    /// The NIL placeholder row, keyed [`octavia_db::PLACEHOLDER_ID`] (flavors, availability
    /// zones and their profiles).
    Placeholder,
}

impl Hidden {
    /// The scope condition over the listed table `t` (`None` for [`Hidden::Nothing`]).
    fn cond<T: octavia_db::Record>(self) -> Option<octavia_db::Cond> {
        match self {
            Self::Nothing => None,
            Self::Deleted => Some(crate::listing::not_deleted()),
            Self::StatusDeleted => Some(("`t`.`status` <> 'DELETED'".to_string(), vec![])),
            Self::Placeholder => Some((
                format!("`t`.`{}` <> ?", T::KEY),
                vec![octavia_db::PLACEHOLDER_ID.into()],
            )),
        }
    }

    /// Whether the in-memory path leaves `row` out (its column named by the variant holds the
    /// hidden value).
    fn hides<T: octavia_db::Record>(self, row: &T) -> bool {
        let (column, hidden) = match self {
            Self::Nothing => return false,
            Self::Deleted => ("provisioning_status", "DELETED"),
            Self::StatusDeleted => ("status", "DELETED"),
            Self::Placeholder => (T::KEY, octavia_db::PLACEHOLDER_ID),
        };
        T::COLUMNS
            .iter()
            .position(|c| *c == column)
            .and_then(|i| row.values().into_iter().nth(i))
            .is_some_and(|v| v == octavia_db::SqlValue::Text(hidden.to_string()))
    }
}

/// A collection a GET lists, as `octavia/api/v2/controllers/*.py` `get_all` over
/// `api/common/pagination.py`: its rows, their SQL [`crate::listing::Spec`], attribute table,
/// path and body key, the rows it never lists, and how a page of rows is rendered. [`get_all`]
/// answers with it.
pub trait Listed: octavia_db::Record + Send + Sync {
    /// How each attribute is written in SQL (e.g. `crate::member::view::MEMBER`).
    const SPEC: &'static crate::listing::Spec;
    /// The attribute names (sort keys, filters, `fields=`; e.g. `MEMBER_ATTRS`).
    const ATTRS: &'static [&'static str];
    /// The body key of the list (`members`).
    const COLLECTION: &'static str;
    /// The key of the list's links when it is not `<COLLECTION>_links` (the profiles'
    /// `flavorprofile_links`, `availability_zone_profile_links`).
    const LINKS: Option<&'static str> = None;
    /// The collection's path, which its links name: `/v2/lbaas/loadbalancers`; a child
    /// collection's has `{parent}` where its parent's id goes
    /// (`/v2/lbaas/pools/{parent}/members`).
    const PATH: &'static str;
    /// The column that names a child collection's parent (`pool_id`); `None` for a top-level
    /// collection.
    const PARENT: Option<&'static str> = None;
    /// The rows never listed ([`Hidden::Deleted`] unless said otherwise).
    const HIDDEN: Hidden = Hidden::Deleted;
    /// A list-only attribute (`loadbalancer_id` of a listener): its name and its value of a
    /// row, added to each object the in-memory path filters and removed from the answer.
    const HELPER: Option<Helper<Self>> = None;
    /// Whether a page without `fields=` is written as text ([`Listed::render_text`]).
    const TEXT: bool = false;
    /// The response objects of a page of rows, in their order. Errors: the database's.
    fn render(
        tx: &mut Tx,
        rows: &[Self],
    ) -> impl Future<Output = Result<Vec<Value>, ApiError>> + Send;
    /// The response objects' JSON text, when [`Listed::TEXT`] (else unused: empty).
    /// Errors: the database's.
    fn render_text(
        tx: &mut Tx,
        rows: &[Self],
    ) -> impl Future<Output = Result<Vec<String>, ApiError>> + Send {
        let _ = (tx, rows);
        async { Ok(Vec::new()) }
    }
    /// A row's id (the links' marker of the text path).
    fn id(&self) -> &str;
}

/// What a collection GET is scoped to: the caller's project ([`crate::policy::list_scope`]:
/// `None` lists every project's) and, for a child collection ([`Listed::PARENT`]), its
/// parent's id.
pub struct Scope<'a> {
    /// The project the rows must belong to.
    pub project: &'a Option<String>,
    /// The parent's id.
    pub parent: Option<&'a str>,
}

impl Scope<'_> {
    /// The scope of a collection of every project's rows (flavors, profiles, amphorae).
    pub const GLOBAL: Scope<'static> = Scope {
        project: &None,
        parent: None,
    };

    /// The request path of `T`'s collection in this scope ([`Listed::PATH`] with the parent's
    /// id).
    fn path<T: Listed>(&self) -> String {
        match self.parent {
            Some(id) => T::PATH.replace("{parent}", id),
            None => T::PATH.to_string(),
        }
    }

    /// The parent column and id, when both the collection and the scope name one.
    fn parent<T: Listed>(&self) -> Option<(&'static str, &str)> {
        T::PARENT.zip(self.parent)
    }
}

/// `<COLLECTION>_links` of `body` moved to [`Listed::LINKS`] when the collection names its
/// links otherwise.
fn rename_links<T: Listed>(body: &mut Value) {
    if let Some(links) = T::LINKS
        && let Some(o) = body.as_object_mut()
        && let Some(l) = o.remove(&format!("{}_links", T::COLLECTION))
    {
        o.insert(links.to_string(), l);
    }
}

/// A collection GET (`fields=`, filters, sorting, pages, links): in SQL when the
/// [`crate::listing::Spec`] expresses the request ([`crate::listing::page`] /
/// [`crate::listing::page_text`]), else [`in_memory`]. Errors: 400 for a bad sort key, filter
/// or marker, the database's.
pub async fn get_all<T: Listed>(
    st: &AppState,
    headers: &HeaderMap,
    tx: &mut Tx,
    params: &ListParams,
    scope: &Scope<'_>,
) -> Result<axum::response::Response, ApiError> {
    use crate::listing;
    use axum::response::IntoResponse;
    let path = scope.path::<T>();
    let c = listing::Collection {
        spec: T::SPEC,
        attrs: T::ATTRS,
        path: &path,
        key: T::COLLECTION,
    };
    let mut conds: Vec<octavia_db::Cond> = T::HIDDEN.cond::<T>().into_iter().collect();
    if let Some(p) = scope.project {
        conds.push(listing::scope_eq("project_id", p));
    }
    if let Some((column, id)) = scope.parent::<T>() {
        conds.push(listing::scope_eq(column, id));
    }
    if T::TEXT && params.fields.is_empty() {
        let text =
            listing::page_text(st, headers, tx, &c, params, conds, T::id, T::render_text).await?;
        if let Some(text) = text {
            return Ok(listing::json_text(text));
        }
    } else if let Some(mut body) =
        listing::page(st, headers, tx, &c, params, conds, T::render).await?
    {
        rename_links::<T>(&mut body);
        return Ok(axum::Json(body).into_response());
    }
    Ok(axum::Json(in_memory::<T>(st, headers, tx, params, scope).await?).into_response())
}

/// The in-memory answer of [`get_all`]: every listed object of the scope rendered, then
/// filtered, sorted and paged as `octavia/api/common/pagination.py` does
/// ([`crate::pagination::apply`]). It answers what SQL does not express
/// ([`crate::listing::Attr::Memory`]); `tests/list_sql.rs` compares the SQL path of every
/// collection against it. Errors: the 400s of a bad filter, sort key or marker, the
/// database's.
pub async fn in_memory<T: Listed>(
    st: &AppState,
    headers: &HeaderMap,
    tx: &mut Tx,
    params: &ListParams,
    scope: &Scope<'_>,
) -> Result<Value, ApiError> {
    let mut q = ListQuery {
        exclude_deleted: true,
        ..ListQuery::default()
    };
    if let Some(p) = scope.project {
        q = q.filter("project_id", p.as_str());
    }
    if let Some((column, id)) = scope.parent::<T>() {
        q = q.filter(column, id);
    }
    let mut rows: Vec<T> = tx.list(&q).await?;
    rows.retain(|r| !T::HIDDEN.hides(r));
    let mut all = T::render(tx, &rows).await?;
    if let Some((name, value)) = T::HELPER {
        for (v, r) in all.iter_mut().zip(&rows) {
            if let Some(o) = v.as_object_mut() {
                o.insert(name.into(), value(r));
            }
        }
    }
    let path = scope.path::<T>();
    let mut body = collection(st, headers, &path, T::COLLECTION, all, params, T::ATTRS)?;
    if let Some((name, _)) = T::HELPER
        && let Some(items) = body.get_mut(T::COLLECTION).and_then(Value::as_array_mut)
    {
        for i in items {
            if let Some(o) = i.as_object_mut() {
                o.remove(name);
            }
        }
    }
    rename_links::<T>(&mut body);
    Ok(body)
}

/// `GET /v2/lbaas/<collection>` of a project-owned collection: the query parsed, the list
/// scope of `<rbac>:get_all` ([`crate::policy::list_scope`]: the caller's project unless it
/// may list all, or the `project_id` filter), then [`get_all`]. Errors: 400 for a bad query,
/// 403 by policy, [`get_all`]'s.
pub async fn project_list<T: Listed>(
    st: &AppState,
    ctx: &crate::context::RequestContext,
    headers: &HeaderMap,
    q: &[(String, String)],
    rbac: &str,
) -> Result<axum::response::Response, ApiError> {
    let params = ListParams::parse(q, st.config().pagination_max_limit, st.config())?;
    let project = crate::policy::list_scope(ctx, rbac, params.project_filter())?;
    let mut tx = st.db().begin_read().await?;
    let scope = Scope {
        project: &project,
        parent: None,
    };
    get_all::<T>(st, headers, &mut tx, &params, &scope).await
}

/// `GET` of a collection every caller with `<rbac>:get_all` sees whole (flavors, availability
/// zones, their profiles, amphorae): the policy first, then the query parsed and [`get_all`]
/// over [`Scope::GLOBAL`], in the reference's order. Errors: 403 by policy, 400 for a bad
/// query, [`get_all`]'s.
pub async fn global_list<T: Listed>(
    st: &AppState,
    ctx: &crate::context::RequestContext,
    headers: &HeaderMap,
    q: &[(String, String)],
    rbac: &str,
) -> Result<axum::response::Response, ApiError> {
    crate::policy::authorize(ctx, rbac, "get_all", ctx.project_id.as_deref())?;
    let params = ListParams::parse(q, st.config().pagination_max_limit, st.config())?;
    let mut tx = st.db().begin_read().await?;
    get_all::<T>(st, headers, &mut tx, &params, &Scope::GLOBAL).await
}
