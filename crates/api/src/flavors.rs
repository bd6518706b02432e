//! Flavors (`/v2/lbaas/flavors`, keyed by id) and availability zones
//! (`/v2/lbaas/availabilityzones`, keyed by name), as `octavia/api/v2/controllers/flavors.py`
//! and `availability_zones.py`: global objects, list/show with
//! `read`, writes admin-only; the NIL placeholder is hidden from lists and 404s; a delete
//! re-points DELETED load balancers to the placeholder and refuses (409) while a live one uses it.

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use octavia_db::{
    AvailabilityZoneProfileRow, AvailabilityZoneRow, FlavorProfileRow, FlavorRow, ListQuery,
    PLACEHOLDER_ID, SqlValue, Tx,
};
use serde_json::{Value, json};

use crate::AppState;
use crate::context::RequestContext;
use crate::fault::ApiError;
use crate::listing;
use crate::pagination::ListParams;
use crate::policy;
use crate::types::{Kind, Patch, Schema, f, m, parse_typed, s};
use crate::{columns, list};

type Q = Query<Vec<(String, String)>>;

/// `FlavorPOST`.
pub static FLAVOR_POST: Schema = Schema {
    fields: &[
        m("name", s(255)),
        f("description", s(255)),
        f("enabled", Kind::Bool),
        m("flavor_profile_id", Kind::Uuid),
    ],
    tenant_alias: false,
};
/// `FlavorPUT` (the profile is immutable).
pub static FLAVOR_PUT: Schema = Schema {
    fields: &[
        f("name", s(255)),
        f("description", s(255)),
        f("enabled", Kind::Bool),
    ],
    tenant_alias: false,
};
/// `AvailabilityZonePOST`.
pub static AZ_POST: Schema = Schema {
    fields: &[
        m("name", s(255)),
        f("description", s(255)),
        f("enabled", Kind::Bool),
        m("availability_zone_profile_id", Kind::Uuid),
    ],
    tenant_alias: false,
};
/// `AvailabilityZonePUT` (name and profile immutable).
pub static AZ_PUT: Schema = Schema {
    fields: &[f("description", s(255)), f("enabled", Kind::Bool)],
    tenant_alias: false,
};

/// A validated `FlavorPOST` body as [`FLAVOR_POST`] declares it.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FlavorPost {
    /// `name` (mandatory).
    pub name: String,
    /// `description`.
    pub description: Option<String>,
    /// `enabled` (left out: true; `null` refused).
    pub enabled: Patch<bool>,
    /// `flavor_profile_id` (mandatory).
    pub flavor_profile_id: String,
}

/// A validated `FlavorPUT` body as [`FLAVOR_PUT`] declares it.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FlavorPut {
    /// `name` (`null` refused).
    pub name: Patch<String>,
    /// `description` (`null`: cleared).
    pub description: Patch<String>,
    /// `enabled` (`null` refused).
    pub enabled: Patch<bool>,
}

/// A validated `AvailabilityZonePOST` body as [`AZ_POST`] declares it.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AzPost {
    /// `name` (mandatory).
    pub name: String,
    /// `description`.
    pub description: Option<String>,
    /// `enabled` (left out: true; `null` refused).
    pub enabled: Patch<bool>,
    /// `availability_zone_profile_id` (mandatory).
    pub availability_zone_profile_id: String,
}

/// A validated `AvailabilityZonePUT` body as [`AZ_PUT`] declares it.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AzPut {
    /// `description` (`null`: cleared).
    pub description: Patch<String>,
    /// `enabled` (`null` refused).
    pub enabled: Patch<bool>,
}

/// Attribute names of a flavor response (filters, sort keys).
pub const FLAVOR_ATTRS: &[&str] = &["id", "name", "description", "enabled", "flavor_profile_id"];
/// Attribute names of an availability zone response (filters, sort keys).
pub const AZ_ATTRS: &[&str] = &[
    "name",
    "description",
    "enabled",
    "availability_zone_profile_id",
];

fn render_flavor(fl: &FlavorRow) -> Value {
    json!({"id": fl.id, "name": fl.name, "description": fl.description.clone().unwrap_or_default(),
        "enabled": fl.enabled, "flavor_profile_id": fl.flavor_profile_id})
}

fn render_az(az: &AvailabilityZoneRow) -> Value {
    json!({"name": az.name, "description": az.description.clone().unwrap_or_default(),
        "enabled": az.enabled, "availability_zone_profile_id": az.availability_zone_profile_id})
}

/// Load a flavor (placeholder and missing → 404 `Flavor <id> not found.`).
pub async fn get_db_flavor(tx: &mut Tx, id: &str) -> Result<FlavorRow, ApiError> {
    let fl: Option<FlavorRow> = if id == PLACEHOLDER_ID {
        None
    } else {
        tx.find(id).await?
    };
    fl.ok_or_else(|| ApiError::not_found("Flavor", id))
}

/// Load an availability zone (placeholder and missing → 404 `Availability Zone <name> not found.`).
pub async fn get_db_az(tx: &mut Tx, name: &str) -> Result<AvailabilityZoneRow, ApiError> {
    let az: Option<AvailabilityZoneRow> = if name == PLACEHOLDER_ID {
        None
    } else {
        tx.find(name).await?
    };
    az.ok_or_else(|| ApiError::not_found("Availability Zone", name))
}

/// The flavor's metadata and provider (`get_flavor_metadata_dict`, `get_flavor_provider`).
pub async fn flavor_metadata(tx: &mut Tx, fl: &FlavorRow) -> Result<(Value, String), ApiError> {
    let p: FlavorProfileRow = tx.get(&fl.flavor_profile_id).await?;
    let v = serde_json::from_str(&p.flavor_data).unwrap_or_else(|_| json!({}));
    Ok((v, p.provider_name))
}

/// The availability zone's metadata and provider.
pub async fn az_metadata(
    tx: &mut Tx,
    az: &AvailabilityZoneRow,
) -> Result<(Value, String), ApiError> {
    let p: AvailabilityZoneProfileRow = tx.get(&az.availability_zone_profile_id).await?;
    let v = serde_json::from_str(&p.availability_zone_data).unwrap_or_else(|_| json!({}));
    Ok((v, p.provider_name))
}

/// A name taken → 409 `A <field> of <name> already exists.`
async fn name_taken(tx: &mut Tx, table: &str, name: &str) -> Result<bool, ApiError> {
    let n: Option<i64> = tx
        .fetch_optional_scalar(
            &format!("SELECT COUNT(*) FROM `{table}` WHERE `name` = ?"),
            vec![name.into()],
        )
        .await?;
    Ok(n.unwrap_or(0) > 0)
}

/// Re-point DELETED LBs to the placeholder, then refuse while a live LB uses `value` in `col`.
async fn release(tx: &mut Tx, col: &str, value: &str, label: &str) -> Result<(), ApiError> {
    tx.execute(
        &format!("UPDATE `load_balancer` SET `{col}` = ? WHERE `{col}` = ? AND `provisioning_status` = 'DELETED'"),
        vec![PLACEHOLDER_ID.into(), value.into()],
    )
    .await?;
    let n: Option<i64> = tx
        .fetch_optional_scalar(
            &format!("SELECT COUNT(*) FROM `load_balancer` WHERE `{col}` = ?"),
            vec![value.into()],
        )
        .await?;
    if n.unwrap_or(0) > 0 {
        return Err(ApiError::Conflict(format!(
            "{label} {value} is in use and cannot be modified."
        )));
    }
    Ok(())
}

/// `GET /v2/lbaas/flavors`.
pub async fn flavor_get_all(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    headers: HeaderMap,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    policy::authorize(&ctx, "flavor", "get_all", ctx.project_id.as_deref())?;
    let params = ListParams::parse(&q, st.config().pagination_max_limit, st.config())?;
    let mut tx = st.db().begin_read().await?;
    let conds = vec![("`t`.`id` <> ?".to_string(), vec![PLACEHOLDER_ID.into()])];
    let c = listing::Collection {
        spec: &listing::FLAVOR,
        attrs: FLAVOR_ATTRS,
        path: "/v2/lbaas/flavors",
        key: "flavors",
    };
    let render =
        async |_: &mut Tx, rows: &[FlavorRow]| Ok(rows.iter().map(render_flavor).collect());
    if let Some(body) = listing::page(&st, &headers, &mut tx, &c, &params, conds, render).await? {
        return Ok(Json(body));
    }
    // the in-memory path (see `listing`)
    let rows: Vec<FlavorRow> = tx.list(&ListQuery::default()).await?;
    let all = rows
        .iter()
        .filter(|r| r.id != PLACEHOLDER_ID)
        .map(render_flavor)
        .collect();
    Ok(Json(list::collection(
        &st,
        &headers,
        "/v2/lbaas/flavors",
        "flavors",
        all,
        &params,
        FLAVOR_ATTRS,
    )?))
}

/// `GET /v2/lbaas/flavors/{id}`.
pub async fn flavor_get_one(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    policy::authorize(&ctx, "flavor", "get_one", ctx.project_id.as_deref())?;
    let fields = list::check_get_query(&st, &q)?;
    let mut tx = st.db().begin_read().await?;
    let fl = get_db_flavor(&mut tx, &id).await?;
    Ok(Json(
        json!({"flavor": list::select(render_flavor(&fl), &fields)}),
    ))
}

/// `POST /v2/lbaas/flavors` → 201 (admin). Duplicate name → 409 `A flavor of <name> already
/// exists.`; an unknown profile → 400 `<id> is not a valid option for flavor_profile_id`
/// (the reference fails at the FK with a 500).
pub async fn flavor_post(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Query(q): Q,
    body: Bytes,
) -> Result<Response, ApiError> {
    list::no_query(&q, &[])?;
    let b: FlavorPost = parse_typed(&body, "flavor_", "flavor", &FLAVOR_POST)?;
    policy::authorize(&ctx, "flavor", "post", ctx.project_id.as_deref())?;
    b.enabled.refuse_null("enabled")?;
    let (name, profile) = (b.name, b.flavor_profile_id);
    let mut tx = st.db().begin().await?;
    if name_taken(&mut tx, "flavor", &name).await? {
        return Err(ApiError::Conflict(format!(
            "A flavor of {name} already exists."
        )));
    }
    let fp: Option<FlavorProfileRow> = tx.find(&profile).await?;
    if fp.is_none() {
        return Err(ApiError::InvalidOption {
            value: profile,
            option: "flavor_profile_id".into(),
        });
    }
    let row = FlavorRow {
        id: columns::new_id(),
        name,
        description: b.description,
        enabled: b.enabled.into_value().unwrap_or(true),
        flavor_profile_id: profile,
    };
    tx.insert(&row).await?;
    tx.commit().await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({"flavor": render_flavor(&row)})),
    )
        .into_response())
}

/// `PUT /v2/lbaas/flavors/{id}` → 200 (admin); a `null` name or `enabled` → 400 `None is
/// not a valid option for <key>` (the reference: a 500 from its update).
pub async fn flavor_put(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    list::no_query(&q, &[])?;
    let b: FlavorPut = parse_typed(&body, "flavor_", "flavor", &FLAVOR_PUT)?;
    policy::authorize(&ctx, "flavor", "put", ctx.project_id.as_deref())?;
    let mut tx = st.db().begin().await?;
    get_db_flavor(&mut tx, &id).await?;
    b.name.refuse_null("name")?;
    b.enabled.refuse_null("enabled")?;
    let mut ch: Vec<(&str, SqlValue)> = Vec::new();
    if let Some(n) = b.name.into_value() {
        if name_taken(&mut tx, "flavor", &n).await? {
            return Err(ApiError::Conflict(format!(
                "A flavor of {n} already exists."
            )));
        }
        ch.push(("name", n.into()));
    }
    if let Some(d) = b.description.sent() {
        ch.push(("description", d.cloned().into()));
    }
    if let Some(e) = b.enabled.value() {
        ch.push(("enabled", (*e).into()));
    }
    if !ch.is_empty() {
        tx.update::<FlavorRow>(&id, &ch).await?;
    }
    let fl = get_db_flavor(&mut tx, &id).await?;
    tx.commit().await?;
    Ok(Json(json!({"flavor": render_flavor(&fl)})))
}

/// `DELETE /v2/lbaas/flavors/{id}` → 204 (admin); in use → 409 `Flavor <id> is in use and
/// cannot be modified.`
pub async fn flavor_delete(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
) -> Result<StatusCode, ApiError> {
    list::no_query(&q, &[])?;
    policy::authorize(&ctx, "flavor", "delete", ctx.project_id.as_deref())?;
    let mut tx = st.db().begin().await?;
    get_db_flavor(&mut tx, &id).await?;
    release(&mut tx, "flavor_id", &id, "Flavor").await?;
    tx.delete::<FlavorRow>(&id).await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /v2/lbaas/availabilityzones`.
pub async fn az_get_all(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    headers: HeaderMap,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    policy::authorize(
        &ctx,
        "availability-zone",
        "get_all",
        ctx.project_id.as_deref(),
    )?;
    let params = ListParams::parse(&q, st.config().pagination_max_limit, st.config())?;
    let mut tx = st.db().begin_read().await?;
    let conds = vec![("`t`.`name` <> ?".to_string(), vec![PLACEHOLDER_ID.into()])];
    let c = listing::Collection {
        spec: &listing::AZ,
        attrs: AZ_ATTRS,
        path: "/v2/lbaas/availabilityzones",
        key: "availability_zones",
    };
    let render =
        async |_: &mut Tx, rows: &[AvailabilityZoneRow]| Ok(rows.iter().map(render_az).collect());
    if let Some(body) = listing::page(&st, &headers, &mut tx, &c, &params, conds, render).await? {
        return Ok(Json(body));
    }
    // the in-memory path (see `listing`)
    let rows: Vec<AvailabilityZoneRow> = tx.list(&ListQuery::default()).await?;
    let all = rows
        .iter()
        .filter(|r| r.name != PLACEHOLDER_ID)
        .map(render_az)
        .collect();
    Ok(Json(list::collection(
        &st,
        &headers,
        "/v2/lbaas/availabilityzones",
        "availability_zones",
        all,
        &params,
        AZ_ATTRS,
    )?))
}

/// `GET /v2/lbaas/availabilityzones/{name}`.
pub async fn az_get_one(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(name): Path<String>,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    policy::authorize(
        &ctx,
        "availability-zone",
        "get_one",
        ctx.project_id.as_deref(),
    )?;
    let fields = list::check_get_query(&st, &q)?;
    let mut tx = st.db().begin_read().await?;
    let az = get_db_az(&mut tx, &name).await?;
    Ok(Json(
        json!({"availability_zone": list::select(render_az(&az), &fields)}),
    ))
}

/// `POST /v2/lbaas/availabilityzones` → 201 (admin). Duplicate → 409 `A availability zone of
/// <name> already exists.` (sic); unknown profile → 400 InvalidOption.
pub async fn az_post(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Query(q): Q,
    body: Bytes,
) -> Result<Response, ApiError> {
    list::no_query(&q, &[])?;
    let b: AzPost = parse_typed(&body, "availability_zone_", "availability_zone", &AZ_POST)?;
    policy::authorize(&ctx, "availability-zone", "post", ctx.project_id.as_deref())?;
    b.enabled.refuse_null("enabled")?;
    let (name, profile) = (b.name, b.availability_zone_profile_id);
    let mut tx = st.db().begin().await?;
    if name_taken(&mut tx, "availability_zone", &name).await? {
        return Err(ApiError::Conflict(format!(
            "A availability zone of {name} already exists."
        )));
    }
    let p: Option<AvailabilityZoneProfileRow> = tx.find(&profile).await?;
    if p.is_none() {
        return Err(ApiError::InvalidOption {
            value: profile,
            option: "availability_zone_profile_id".into(),
        });
    }
    let row = AvailabilityZoneRow {
        name,
        description: b.description,
        enabled: b.enabled.into_value().unwrap_or(true),
        availability_zone_profile_id: profile,
    };
    tx.insert(&row).await?;
    tx.commit().await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({"availability_zone": render_az(&row)})),
    )
        .into_response())
}

/// `PUT /v2/lbaas/availabilityzones/{name}` → 200 (admin); `enabled: null` → 400 `None is not
/// a valid option for enabled` (the reference: a 500 from its update).
pub async fn az_put(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(name): Path<String>,
    Query(q): Q,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    list::no_query(&q, &[])?;
    let b: AzPut = parse_typed(&body, "availability_zone_", "availability_zone", &AZ_PUT)?;
    policy::authorize(&ctx, "availability-zone", "put", ctx.project_id.as_deref())?;
    let mut tx = st.db().begin().await?;
    get_db_az(&mut tx, &name).await?;
    b.enabled.refuse_null("enabled")?;
    let mut ch: Vec<(&str, SqlValue)> = Vec::new();
    if let Some(d) = b.description.sent() {
        ch.push(("description", d.cloned().into()));
    }
    if let Some(e) = b.enabled.value() {
        ch.push(("enabled", (*e).into()));
    }
    if !ch.is_empty() {
        tx.update::<AvailabilityZoneRow>(&name, &ch).await?;
    }
    let az = get_db_az(&mut tx, &name).await?;
    tx.commit().await?;
    Ok(Json(json!({"availability_zone": render_az(&az)})))
}

/// `DELETE /v2/lbaas/availabilityzones/{name}` → 204 (admin); in use → 409
/// `Availability Zone <name> is in use and cannot be modified.`
pub async fn az_delete(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(name): Path<String>,
    Query(q): Q,
) -> Result<StatusCode, ApiError> {
    list::no_query(&q, &[])?;
    policy::authorize(
        &ctx,
        "availability-zone",
        "delete",
        ctx.project_id.as_deref(),
    )?;
    let mut tx = st.db().begin().await?;
    get_db_az(&mut tx, &name).await?;
    release(&mut tx, "availability_zone", &name, "Availability Zone").await?;
    tx.delete::<AvailabilityZoneRow>(&name).await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

/// What an LB create names: (flavor metadata, AZ metadata, the flavor's provider).
///
/// Unknown flavor → 400 `Validation failure: Invalid flavor_id.`; unknown AZ → 400
/// `Validation failure: Invalid availability zone.`; disabled → 400 `The selected
/// <flavor|availability_zone> is not allowed in this deployment: <value>` (load_balancer.py).
/// Absent → `{}`.
pub async fn lb_create_metadata(
    st: &AppState,
    flavor_id: Option<String>,
    az: Option<String>,
) -> Result<(Value, Value, Option<String>), ApiError> {
    let mut tx = st.db().begin_read().await?;
    let (mut fm, mut am, mut fp) = (json!({}), json!({}), None);
    if let Some(f) = flavor_id {
        let fl = get_db_flavor(&mut tx, &f)
            .await
            .map_err(|_| ApiError::Validation("Invalid flavor_id.".into()))?;
        if !fl.enabled {
            return Err(ApiError::BadRequest(format!(
                "The selected flavor is not allowed in this deployment: {f}"
            )));
        }
        let (m, p) = flavor_metadata(&mut tx, &fl).await?;
        fm = m;
        fp = Some(p);
    }
    if let Some(name) = az {
        let a = get_db_az(&mut tx, &name)
            .await
            .map_err(|_| ApiError::Validation("Invalid availability zone.".into()))?;
        if !a.enabled {
            return Err(ApiError::BadRequest(format!(
                "The selected availability_zone is not allowed in this deployment: {name}"
            )));
        }
        am = az_metadata(&mut tx, &a).await?.0;
    }
    tx.rollback().await?;
    Ok((fm, am, fp))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::assert_typed_as;

    #[test]
    fn typed_bodies_declare_the_schema_attributes() {
        assert_typed_as::<FlavorPost>(&FLAVOR_POST);
        assert_typed_as::<FlavorPut>(&FLAVOR_PUT);
        assert_typed_as::<AzPost>(&AZ_POST);
        assert_typed_as::<AzPut>(&AZ_PUT);
    }
}
