//! `/v2/lbaas/pools/{pool_id}/members`, as `octavia/api/v2/controllers/member.py`.

pub(crate) mod body;
internal! {
    mod view;
}

use provider::{OperatingStatus, ProvisioningStatus};
use std::net::IpAddr;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use octavia_db::{ListQuery, MemberRow, PoolRow, QuotaResource, SqlValue};
use serde_json::{Value, json};

use crate::context::RequestContext;
use crate::fault::ApiError;
use crate::lookup::{get_db_lb, get_db_pool, lock_pool_child, quota_limits};
use crate::pagination::ListParams;
use crate::policy;
use crate::provider_call::call_provider;
use crate::state::AppState;
use crate::target::{self, Provider, Target};
use crate::types::{Wsme, model_sent};
use crate::{columns, list, provider_model, related};
use body::*;

pub(crate) mod batch;

type Q = Query<Vec<(String, String)>>;

/// Column changes of one member row.
type Changes = Vec<(&'static str, SqlValue)>;

/// The pool of a member route; an unknown pool is pecan's 404
/// `{"code": 404, "title": "Bad Request", "description": "Pool <id> not found."}` (the
/// reference's `_lookup`, which also finds DELETED pools).
async fn route_pool(tx: &mut octavia_db::Tx, pool_id: &str) -> Result<PoolRow, ApiError> {
    let p: Option<PoolRow> = tx.find(pool_id).await?;
    p.ok_or_else(|| {
        ApiError::pecan(
            StatusCode::NOT_FOUND,
            "Bad Request",
            format!("Pool {pool_id} not found."),
        )
    })
}

/// Load a member of `pool_id` that is not DELETED (404 `Member <id> not found.`, also when it
/// belongs to another pool).
pub async fn get_db_member(
    tx: &mut octavia_db::Tx,
    pool_id: &str,
    id: &str,
) -> Result<MemberRow, ApiError> {
    let m: Option<MemberRow> = tx.find(id).await?;
    m.filter(|m| m.provisioning_status != ProvisioningStatus::Deleted && m.pool_id == pool_id)
        .ok_or_else(|| ApiError::not_found("Member", id))
}

/// Python's `ipaddress.ip_address(a).exploded.upper()`.
pub fn exploded_upper(a: &IpAddr) -> String {
    match a {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => v6
            .segments()
            .iter()
            .map(|s| format!("{s:04X}"))
            .collect::<Vec<_>>()
            .join(":"),
    }
}

/// `validate.ip_not_reserved`: 400 `<IP> is not a valid option for member address` when the
/// address is in `[networking] reserved_ips`.
pub(crate) fn ip_not_reserved(st: &AppState, address: &str) -> Result<(), ApiError> {
    let Ok(ip) = address.parse::<IpAddr>() else {
        return Ok(());
    };
    let shown = exploded_upper(&ip);
    let reserved = st.config().reserved_ips.iter().any(|r| {
        r.parse::<IpAddr>()
            .map(|r| exploded_upper(&r))
            .unwrap_or_else(|_| r.to_uppercase())
            == shown
    });
    if reserved {
        return Err(ApiError::InvalidOption {
            value: shown,
            option: "member address".into(),
        });
    }
    Ok(())
}

/// `validate.subnet_exists` with the caller's token (400 `Subnet <id> not found.`): the
/// subnet as Neutron answered, handed on to the driver in the member's model
/// ([`provider::Member::subnet`]); `None` when no Neutron lookups are configured.
async fn subnet_exists(
    st: &AppState,
    ctx: &RequestContext,
    subnet: &str,
) -> Result<Option<crate::network::SubnetInfo>, ApiError> {
    let Some(net) = st.networking() else {
        return Ok(None);
    };
    subnet_verdict(
        net.get_subnet(ctx.auth_token.as_deref(), subnet).await,
        subnet,
    )
    .map(Some)
}

/// What Neutron's answer on `subnet` means for a member: the subnet when found, 400
/// `Subnet <id> not found.` for any lookup failure (as Octavia), 503 when Neutron is
/// unavailable (Octavia says "not found" then too).
fn subnet_verdict(
    r: Result<Option<crate::network::SubnetInfo>, crate::network::NetworkError>,
    subnet: &str,
) -> Result<crate::network::SubnetInfo, ApiError> {
    match r {
        Ok(Some(s)) => Ok(s),
        Err(e @ crate::network::NetworkError::Unavailable(_)) => Err(e.into()),
        Ok(None) | Err(_) => Err(ApiError::InvalidSubresource {
            resource: "Subnet".into(),
            id: subnet.to_string(),
        }),
    }
}

/// `MemberSRIOVDisabled` unless the LB's flavor allows SR-IOV members (Keel has no flavor
/// metadata yet, so any `request_sriov: true` is refused).
pub(crate) fn check_sriov(b: &MemberPost) -> Result<&'static str, ApiError> {
    if b.request_sriov.unwrap_or(false) {
        return Err(ApiError::BadRequest(
            "The load balancer flavor does not allow SR-IOV member ports.".into(),
        ));
    }
    Ok("normal")
}

/// 409 `Another member on this pool is already using ip <ip> on protocol_port <port>`.
pub(crate) fn duplicate(ip: &str, port: i64) -> ApiError {
    ApiError::Conflict(format!(
        "Another member on this pool is already using ip {ip} on protocol_port {port}"
    ))
}

/// The member row a create writes — the POST, the batch update and the graph create alike —
/// PENDING_CREATE with a new id in `pool` (its project): OFFLINE with a monitor, else
/// NO_MONITOR; the attributes' columns as [`MemberPost`] declares them.
pub(crate) fn new_row(b: &MemberPost, pool: &PoolRow, has_hm: bool, vnic: &str) -> MemberRow {
    let mut row = MemberRow {
        project_id: pool.project_id.clone(),
        id: columns::new_id(),
        pool_id: pool.id.clone(),
        operating_status: if has_hm {
            OperatingStatus::Offline
        } else {
            OperatingStatus::NoMonitor
        },
        provisioning_status: ProvisioningStatus::PendingCreate,
        vnic_type: vnic.into(),
        ..Default::default()
    };
    b.write_row(&mut row);
    row
}

/// Inserts the [`new_row`] of `b` in the load balancer's `project` and its tags — the POST
/// and the graph create alike (the batch update writes its new rows in one statement);
/// returns the row.
pub(crate) async fn insert_new(
    tx: &mut octavia_db::Tx,
    b: &MemberPost,
    pool: &PoolRow,
    project: &str,
    has_hm: bool,
    vnic: &str,
) -> Result<MemberRow, ApiError> {
    let mut row = new_row(b, pool, has_hm, vnic);
    row.project_id = Some(project.to_string());
    row.created_at = Some(octavia_db::now());
    tx.insert(&row).await?;
    if let Some(tags) = &b.tags {
        tx.set_tags(&row.id, tags).await?;
    }
    Ok(row)
}

/// `GET /v2/lbaas/pools/{pool_id}/members` (policy `member:get_all` on the pool's project).
pub async fn get_all(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(pool_id): Path<String>,
    headers: HeaderMap,
    Query(q): Q,
) -> Result<axum::response::Response, ApiError> {
    let params = ListParams::parse(&q, st.config().pagination_max_limit, st.config())?;
    let mut tx = st.db().begin_read().await?;
    route_pool(&mut tx, &pool_id).await?;
    let pool = get_db_pool(&mut tx, &pool_id).await?;
    policy::authorize(&ctx, "member", "get_all", pool.project_id.as_deref())?;
    let scope = list::Scope {
        project: &None,
        parent: Some(&pool_id),
    };
    list::get_all::<MemberRow>(&st, &headers, &mut tx, &params, &scope).await
}

/// `GET /v2/lbaas/pools/{pool_id}/members/{id}`.
pub async fn get_one(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path((pool_id, id)): Path<(String, String)>,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    let fields = list::check_get_query(&st, &q)?;
    let mut tx = st.db().begin_read().await?;
    route_pool(&mut tx, &pool_id).await?;
    let m: Option<MemberRow> = tx.find(&id).await?;
    let m = m
        .filter(|m| m.provisioning_status != ProvisioningStatus::Deleted)
        .ok_or_else(|| ApiError::not_found("Member", &id))?;
    policy::authorize(&ctx, "member", "get_one", m.project_id.as_deref())?;
    if m.pool_id != pool_id {
        return Err(ApiError::not_found("Member", &id));
    }
    Ok(Json(
        json!({"member": list::select(view::render_member(&mut tx, &m).await?, &fields)}),
    ))
}

/// `POST /v2/lbaas/pools/{pool_id}/members` → 201, member PENDING_CREATE (operating
/// NO_MONITOR, or OFFLINE when the pool has a monitor); pool, its listeners and the LB
/// PENDING_UPDATE.
pub async fn post(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(pool_id): Path<String>,
    Query(q): Q,
    body: Wsme<MemberPost>,
) -> Result<Response, ApiError> {
    list::no_query(&q, &[])?;
    let mut tx = st.db().begin().await?;
    let pool = route_pool(&mut tx, &pool_id).await?;
    let b = body.parse()?;
    let lb = get_db_lb(
        &mut tx,
        pool.load_balancer_id.as_deref().unwrap_or_default(),
    )
    .await?;
    let project = lb.project_id.clone().unwrap_or_default();
    policy::authorize(&ctx, "member", "post", Some(&project))?;
    let address = b.address.clone();
    ip_not_reserved(&st, &address)?;
    let subnet = match &b.subnet_id {
        Some(s) => subnet_exists(&st, &ctx, s).await?,
        None => None,
    };
    let Provider {
        name: pname,
        driver,
    } = Provider::of(&st, &lb)?;
    if !ctx.noauth {
        tx.check_quota(&project, QuotaResource::Member, 1, &quota_limits(&st))
            .await?;
    }
    let vnic = check_sriov(&b)?;
    let has_hm = related::pool_hm(&mut tx, &pool_id).await?.is_some();
    lock_pool_child(&mut tx, &pool).await?;
    let port = b.protocol_port;
    let existing: Vec<MemberRow> = tx
        .list(&ListQuery::default().filter("pool_id", pool_id.as_str()))
        .await?;
    if existing.iter().any(|m| {
        m.ip_address.as_deref() == Some(address.as_str()) && i64::from(m.protocol_port) == port
    }) {
        return Err(duplicate(&address, port));
    }
    let row = insert_new(&mut tx, &b, &pool, &project, has_hm, vnic).await?;
    // the response is the row as written (no re-read); tags read back only if given
    let tags = match &b.tags {
        Some(_) => tx.tags(&row.id).await?,
        None => Vec::new(),
    };
    let model = provider::Member {
        subnet,
        ..provider_model::member_model(&row)
    };
    call_provider(&mut tx, &pname, driver.member_create(model)).await?;
    let body = view::render_member_with(&row, tags);
    tx.commit().await?;
    Ok((StatusCode::CREATED, Json(json!({"member": body}))).into_response())
}

/// `PUT /v2/lbaas/pools/{pool_id}/members/{id}` → 200, member PENDING_UPDATE (`weight: null`
/// → 1, `backup: null` → false).
pub async fn put(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path((pool_id, id)): Path<(String, String)>,
    Query(q): Q,
    body: Wsme<MemberPut>,
) -> Result<Json<Value>, ApiError> {
    list::no_query(&q, &[])?;
    let mut tx = st.db().begin().await?;
    let pool = route_pool(&mut tx, &pool_id).await?;
    let b = body.parse()?;
    let Target {
        row: m,
        parents: pool,
        lb,
    } = target::member(&mut tx, &ctx, pool, &id, "put").await?;
    let Provider {
        name: pname,
        driver,
    } = Provider::of(&st, &lb)?;
    lock_pool_child(&mut tx, &pool).await?;
    let old = provider_model::member_model(&m);
    let mut new = provider::Member {
        member_id: id.clone(),
        ..Default::default()
    };
    let mut ch: Vec<(&str, SqlValue)> = vec![(
        "provisioning_status",
        ProvisioningStatus::PendingUpdate.into(),
    )];
    ch.extend(b.column_changes());
    let r = b.nulls_resolved();
    model_sent!(r, new;
        name: |v| Some(v.cloned().unwrap_or_default());
        admin_state_up: |v| v.copied();
        weight: |v| v.copied();
        backup: |v| v.copied();
        monitor_address: |v| v.cloned();
        monitor_port: |v| v.and_then(|p| u16::try_from(*p).ok());
    );
    tx.update::<MemberRow>(&id, &ch).await?;
    if let Some(tags) = b.tags.sent() {
        tx.set_tags(&id, tags.map_or(&[][..], |t| &t[..])).await?;
    }
    call_provider(&mut tx, &pname, driver.member_update(old, new)).await?;
    let m = get_db_member(&mut tx, &pool_id, &id).await?;
    let body = view::render_member(&mut tx, &m).await?;
    tx.commit().await?;
    Ok(Json(json!({"member": body})))
}

/// `DELETE /v2/lbaas/pools/{pool_id}/members/{id}` → 204, member PENDING_DELETE.
pub async fn delete(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path((pool_id, id)): Path<(String, String)>,
    Query(q): Q,
) -> Result<StatusCode, ApiError> {
    list::no_query(&q, &[])?;
    let mut tx = st.db().begin().await?;
    let pool = route_pool(&mut tx, &pool_id).await?;
    let Target {
        row: m,
        parents: pool,
        lb,
    } = target::member(&mut tx, &ctx, pool, &id, "delete").await?;
    let Provider {
        name: pname,
        driver,
    } = Provider::of(&st, &lb)?;
    lock_pool_child(&mut tx, &pool).await?;
    tx.set_provisioning_status::<MemberRow>(&id, ProvisioningStatus::PendingDelete)
        .await?;
    call_provider(
        &mut tx,
        &pname,
        driver.member_delete(provider_model::member_model(&m)),
    )
    .await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The route of one member (the collection's is [`batch::routes`], beside the batch update), as `octavia/api/v2/controllers/member.py` serves them; [`crate::router`]
/// merges them under its layers.
pub(crate) fn routes() -> axum::Router<AppState> {
    use axum::routing::get;
    axum::Router::new().route(
        "/v2/lbaas/pools/{pool_id}/members/{id}",
        get(get_one).put(put).delete(delete),
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn exploded_forms() {
        assert_eq!(
            exploded_upper(&"fd00::a".parse().unwrap()),
            "FD00:0000:0000:0000:0000:0000:0000:000A"
        );
        assert_eq!(exploded_upper(&"10.0.0.1".parse().unwrap()), "10.0.0.1");
    }
}
