//! `/v2/lbaas/quotas`, as `octavia/api/v2/controllers/quotas.py`.
//!
//! Every quota object carries each limit twice: `loadbalancer` + the deprecated
//! `load_balancer`, `healthmonitor` + the deprecated `health_monitor`. `GET
//! /v2/lbaas/quotas/defaults` is, as in the reference, `GET one` of the project `defaults`
//! (which has no row, so it answers the configured defaults).

pub(crate) mod body;
internal! {
    mod view;
}

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use octavia_db::{QuotaRow, QuotaUpdate, Tx};
use serde_json::{Value, json};

use crate::context::RequestContext;
use crate::fault::ApiError;
use crate::list;
use crate::policy;
use crate::quotas::body::QuotaPut;
use crate::state::{AppState, QuotaDefaults};
use crate::types::{Patch, Wsme};
use crate::view::to_value;
pub use view::QUOTA_ATTRS;
use view::{Limits, QuotaView};

type Q = Query<Vec<(String, String)>>;

/// A stored row as-is (list: NULL stays `null`).
fn render_raw(q: &QuotaRow) -> Value {
    let v = |x: Option<i32>| x.map(i64::from);
    let limits = Limits {
        load_balancer: v(q.load_balancer),
        listener: v(q.listener),
        member: v(q.member),
        pool: v(q.pool),
        health_monitor: v(q.health_monitor),
        l7policy: v(q.l7policy),
        l7rule: v(q.l7rule),
    };
    to_value(&QuotaView::new(&q.project_id, limits))
}

/// A project's effective quotas: the row with NULLs filled from `[quotas]`, or the defaults
/// when the project has no row (`_get_db_quotas`).
fn render_effective(project: &str, q: Option<&QuotaRow>, d: &QuotaDefaults) -> Value {
    let f = |x: Option<i32>, dflt: i64| Some(x.map_or(dflt, i64::from));
    let get = |sel: fn(&QuotaRow) -> Option<i32>| q.and_then(sel);
    let limits = Limits {
        load_balancer: f(get(|r| r.load_balancer), d.load_balancer),
        listener: f(get(|r| r.listener), d.listener),
        member: f(get(|r| r.member), d.member),
        pool: f(get(|r| r.pool), d.pool),
        health_monitor: f(get(|r| r.health_monitor), d.health_monitor),
        l7policy: f(get(|r| r.l7policy), d.l7policy),
        l7rule: f(get(|r| r.l7rule), d.l7rule),
    };
    to_value(&QuotaView::new(project, limits))
}

/// What makes `row`'s unset (NULL) limits the configured defaults `d` (`None` when it has
/// none). The reference stores them: `_get_db_quotas` (octavia/api/v2/controllers/base.py)
/// fills them in on the ORM row
///
/// ```python
/// if db_quotas.listener is None:
///     db_quotas.listener = CONF.quotas.default_listener_quota
/// ```
///
/// inside `with context.session.begin():` (`QuotasController.get`, `put`, `delete`), whose
/// commit writes them; so after any `GET /v2/lbaas/quotas/{project}`, `PUT` or `DELETE` of a
/// project with a row, the list (`get_all`: the rows as stored) shows `-1` (or the
/// configured default), never `null` (recorded: `tests/data/quotas_reference.json`).
fn fill_defaults(row: &QuotaRow, d: &QuotaDefaults) -> Option<QuotaUpdate> {
    let f = |x: Option<i32>, dflt: i64| match x {
        None => i32::try_from(dflt).ok().map(Some),
        Some(_) => None,
    };
    let u = QuotaUpdate {
        load_balancer: f(row.load_balancer, d.load_balancer),
        listener: f(row.listener, d.listener),
        pool: f(row.pool, d.pool),
        health_monitor: f(row.health_monitor, d.health_monitor),
        member: f(row.member, d.member),
        l7policy: f(row.l7policy, d.l7policy),
        l7rule: f(row.l7rule, d.l7rule),
    };
    let any = [
        u.load_balancer,
        u.listener,
        u.pool,
        u.health_monitor,
        u.member,
        u.l7policy,
        u.l7rule,
    ]
    .iter()
    .any(Option::is_some);
    any.then_some(u)
}

/// `fill_defaults` applied to project `project`'s row in `tx`, if it has one; the row as
/// it is then.
async fn store_defaults(
    tx: &mut Tx,
    project: &str,
    d: &QuotaDefaults,
) -> Result<Option<QuotaRow>, ApiError> {
    let Some(row) = tx.find::<QuotaRow>(project).await? else {
        return Ok(None);
    };
    Ok(Some(match fill_defaults(&row, d) {
        Some(u) => tx.set_quota(project, &u).await?,
        None => row,
    }))
}

/// `GET /v2/lbaas/quotas[?project_id=]`: raw rows of the caller's scope
/// ([`list::project_list`]).
pub async fn get_all(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    headers: HeaderMap,
    Query(q): Q,
) -> Result<Response, ApiError> {
    list::project_list::<QuotaRow>(&st, &ctx, &headers, &q, "quota").await
}

impl list::Listed for QuotaRow {
    const SPEC: &'static crate::listing::Spec = &view::QUOTA;
    const ATTRS: &'static [&'static str] = QUOTA_ATTRS;
    const COLLECTION: &'static str = "quotas";
    const PATH: &'static str = "/v2/lbaas/quotas";
    const HIDDEN: list::Hidden = list::Hidden::Nothing;
    async fn render(_: &mut Tx, rows: &[Self]) -> Result<Vec<Value>, ApiError> {
        Ok(rows.iter().map(render_raw).collect())
    }
    fn id(&self) -> &str {
        &self.project_id
    }
}

/// `GET /v2/lbaas/quotas/{project_id}` (also `/v2/lbaas/quotas/defaults`).
pub async fn get_one(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(project): Path<String>,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    list::no_query(&q, &[])?;
    policy::authorize(&ctx, "quota", "get_one", Some(&project))?;
    let mut tx = st.db().begin_read().await?;
    let mut row: Option<QuotaRow> = tx.find(&project).await?;
    tx.rollback().await?;
    // a row with unset limits gets the defaults stored, as the reference's GET does
    // (`fill_defaults`); a row without (every row after its first read) is only read
    if row
        .as_ref()
        .is_some_and(|r| fill_defaults(r, &st.config().quotas).is_some())
    {
        let mut tx = st.db().begin().await?;
        row = store_defaults(&mut tx, &project, &st.config().quotas).await?;
        tx.commit().await?;
    }
    Ok(Json(
        json!({"quota": render_effective(&project, row.as_ref(), &st.config().quotas)}),
    ))
}

/// `GET /v2/lbaas/quotas/{project_id}/default`: the configured defaults.
pub async fn get_defaults(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(project): Path<String>,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    list::no_query(&q, &[])?;
    policy::authorize(&ctx, "quota", "get_defaults", Some(&project))?;
    Ok(Json(
        json!({"quota": render_effective(&project, None, &st.config().quotas)}),
    ))
}

/// One limit of a PUT body: the new spelling wins over the deprecated one (`old`); `null` →
/// reset to the default (`Some(None)`); absent → unchanged (`None`).
fn limit(new: &Patch<i64>, old: &Patch<i64>) -> Option<Option<i32>> {
    let sent = if new.given() { new } else { old };
    sent.sent().map(|v| v.and_then(|v| i32::try_from(*v).ok()))
}

/// `PUT /v2/lbaas/quotas/{project_id}` → 202 `{"quota": …}` (effective values).
pub async fn put(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(project): Path<String>,
    Query(q): Q,
    body: Wsme<QuotaPut>,
) -> Result<Response, ApiError> {
    list::no_query(&q, &[])?;
    let b = body.parse()?;
    policy::authorize(&ctx, "quota", "put", Some(&project))?;
    let none = Patch::Absent;
    let u = QuotaUpdate {
        load_balancer: limit(&b.loadbalancer, &b.load_balancer),
        listener: limit(&b.listener, &none),
        pool: limit(&b.pool, &none),
        health_monitor: limit(&b.healthmonitor, &b.health_monitor),
        member: limit(&b.member, &none),
        l7policy: limit(&b.l7policy, &none),
        l7rule: limit(&b.l7rule, &none),
    };
    let mut tx = st.db().begin().await?;
    let mut row = tx.set_quota(&project, &u).await?;
    if let Some(fill) = fill_defaults(&row, &st.config().quotas) {
        row = tx.set_quota(&project, &fill).await?;
    }
    tx.commit().await?;
    Ok((
        StatusCode::ACCEPTED,
        Json(json!({"quota": render_effective(&project, Some(&row), &st.config().quotas)})),
    )
        .into_response())
}

/// `DELETE /v2/lbaas/quotas/{project_id}` → 202 with no body: all limits back to the
/// defaults (counters kept), stored as the configured values (`fill_defaults`: the
/// reference's `delete` reads the row back through `_get_db_quotas` in a second committed
/// transaction); 404 `Quotas <project_id> not found.` without a row.
pub async fn delete(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(project): Path<String>,
    Query(q): Q,
) -> Result<StatusCode, ApiError> {
    list::no_query(&q, &[])?;
    policy::authorize(&ctx, "quota", "delete", Some(&project))?;
    let mut tx = st.db().begin().await?;
    tx.reset_quota(&project).await?;
    store_defaults(&mut tx, &project, &st.config().quotas).await?;
    tx.commit().await?;
    Ok(StatusCode::ACCEPTED)
}

/// The routes of quotas, as `octavia/api/v2/controllers/quotas.py` serves them; [`crate::router`]
/// merges them under its layers.
pub(crate) fn routes() -> axum::Router<AppState> {
    use axum::routing::get;
    axum::Router::new()
        .route("/v2/lbaas/quotas", get(get_all))
        .route(
            "/v2/lbaas/quotas/{project_id}",
            get(get_one).put(put).delete(delete),
        )
        .route("/v2/lbaas/quotas/{project_id}/default", get(get_defaults))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    /// `_get_db_quotas`: every NULL limit becomes its `[quotas] default_*_quota` (here
    /// configured, not -1), a set one is kept; a row without NULL needs no write.
    #[test]
    fn unset_limits_take_the_configured_defaults() {
        let d = QuotaDefaults {
            load_balancer: 10,
            listener: 20,
            member: 30,
            pool: 40,
            health_monitor: 50,
            l7policy: 60,
            l7rule: -1,
        };
        let row = QuotaRow {
            project_id: "p".into(),
            load_balancer: Some(5),
            health_monitor: Some(-1),
            ..Default::default()
        };
        let u = fill_defaults(&row, &d).unwrap();
        assert_eq!(
            (
                u.load_balancer,
                u.listener,
                u.member,
                u.pool,
                u.health_monitor,
                u.l7policy,
                u.l7rule
            ),
            (
                None,
                Some(Some(20)),
                Some(Some(30)),
                Some(Some(40)),
                None,
                Some(Some(60)),
                Some(Some(-1))
            )
        );
        let full = QuotaRow {
            project_id: "p".into(),
            load_balancer: Some(1),
            listener: Some(1),
            member: Some(1),
            pool: Some(1),
            health_monitor: Some(1),
            l7policy: Some(1),
            l7rule: Some(1),
            ..Default::default()
        };
        assert!(fill_defaults(&full, &d).is_none());
    }

    #[test]
    fn new_spelling_wins_and_null_resets() {
        let b: QuotaPut = crate::types::Obj(
            json!({"loadbalancer": 5, "load_balancer": 7, "health_monitor": null})
                .as_object()
                .cloned()
                .unwrap(),
        )
        .typed()
        .unwrap();
        assert_eq!(limit(&b.loadbalancer, &b.load_balancer), Some(Some(5)));
        assert_eq!(limit(&b.healthmonitor, &b.health_monitor), Some(None));
        assert_eq!(limit(&b.pool, &Patch::Absent), None);
    }
}
