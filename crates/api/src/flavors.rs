//! Flavors (`/v2/lbaas/flavors`, keyed by id) and availability zones
//! (`/v2/lbaas/availabilityzones`, keyed by name), as `octavia/api/v2/controllers/flavors.py`
//! and `availability_zones.py`: global objects, list/show with
//! `read`, writes admin-only; the NIL placeholder is hidden from lists and 404s; a delete
//! re-points DELETED load balancers to the placeholder and refuses (409) while a live one uses it.
//!
//! Both kinds are served by one generic CRUD over [`Catalog`] (as `profiles.rs` serves both
//! profile kinds); what differs between them (key, texts, columns) is the trait's constants.

use crate::types::wsme_body;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use octavia_db::{
    AvailabilityZoneProfileRow, AvailabilityZoneRow, FlavorProfileRow, FlavorRow,
    PLACEHOLDER_ID, Record, SqlValue, Tx,
};
use serde_json::{Value, json};

use crate::context::RequestContext;
use crate::fault::ApiError;
use crate::listing;
use crate::policy;
use crate::state::AppState;
use crate::types::{Kind, Patch, Schema, parse_typed, s};
use crate::view::{or_empty, to_value, view_decl};
use crate::{columns, list};

type Q = Query<Vec<(String, String)>>;

wsme_body! {
    /// `FlavorPOST`.
    pub static FLAVOR_POST, tenant_alias = false;
    /// A validated `FlavorPOST` body as [`FLAVOR_POST`] declares it.
    pub struct FlavorPost {
        /// `name` (mandatory).
        name: String = m(s(255)),
        description: Option<String> = f(s(255)),
        /// `enabled` (left out: true; `null` refused).
        enabled: Patch<bool> = f(Kind::Bool),
        /// `flavor_profile_id` (mandatory).
        flavor_profile_id: String = m(Kind::Uuid),
    }
}

wsme_body! {
    /// `FlavorPUT` (the profile is immutable).
    pub static FLAVOR_PUT, tenant_alias = false;
    /// A validated `FlavorPUT` body as [`FLAVOR_PUT`] declares it.
    pub struct FlavorPut {
        /// `name` (`null` refused).
        name: Patch<String> = f(s(255)),
        /// `description` (`null`: cleared).
        description: Patch<String> = f(s(255)),
        /// `enabled` (`null` refused).
        enabled: Patch<bool> = f(Kind::Bool),
    }
}

wsme_body! {
    /// `AvailabilityZonePOST`.
    pub static AZ_POST, tenant_alias = false;
    /// A validated `AvailabilityZonePOST` body as [`AZ_POST`] declares it.
    pub struct AzPost {
        /// `name` (mandatory).
        name: String = m(s(255)),
        description: Option<String> = f(s(255)),
        /// `enabled` (left out: true; `null` refused).
        enabled: Patch<bool> = f(Kind::Bool),
        /// `availability_zone_profile_id` (mandatory).
        availability_zone_profile_id: String = m(Kind::Uuid),
    }
}

wsme_body! {
    /// `AvailabilityZonePUT` (name and profile immutable).
    pub static AZ_PUT, tenant_alias = false;
    /// A validated `AvailabilityZonePUT` body as [`AZ_PUT`] declares it.
    pub struct AzPut {
        /// `description` (`null`: cleared).
        description: Patch<String> = f(s(255)),
        /// `enabled` (`null` refused).
        enabled: Patch<bool> = f(Kind::Bool),
    }
}

/// A validated POST body of either kind, its profile attribute under one name.
#[derive(Debug, Clone, Default)]
pub struct CatalogPost {
    /// `name` (mandatory).
    pub name: String,
    pub description: Option<String>,
    /// `enabled` (left out: true; `null` refused).
    pub enabled: Patch<bool>,
    /// The profile id ([`Catalog::PROFILE`], mandatory).
    pub profile_id: String,
}

/// A validated PUT body of either kind (an availability zone's name is immutable: always
/// [`Patch::Absent`]).
#[derive(Debug, Clone, Default)]
pub struct CatalogPut {
    /// `name` (`null` refused).
    pub name: Patch<String>,
    /// `description` (`null`: cleared).
    pub description: Patch<String>,
    /// `enabled` (`null` refused).
    pub enabled: Patch<bool>,
}

impl From<FlavorPost> for CatalogPost {
    fn from(b: FlavorPost) -> Self {
        Self {
            name: b.name,
            description: b.description,
            enabled: b.enabled,
            profile_id: b.flavor_profile_id,
        }
    }
}

impl From<AzPost> for CatalogPost {
    fn from(b: AzPost) -> Self {
        Self {
            name: b.name,
            description: b.description,
            enabled: b.enabled,
            profile_id: b.availability_zone_profile_id,
        }
    }
}

impl From<FlavorPut> for CatalogPut {
    fn from(b: FlavorPut) -> Self {
        Self {
            name: b.name,
            description: b.description,
            enabled: b.enabled,
        }
    }
}

impl From<AzPut> for CatalogPut {
    fn from(b: AzPut) -> Self {
        Self {
            name: Patch::Absent,
            description: b.description,
            enabled: b.enabled,
        }
    }
}

view_decl! {
    /// A flavor response object, as octavia/api/v2/types/flavors.py `FlavorResponse`;
    /// serialised in sorted key order (see [`crate::view`]).
    pub struct FlavorView<'a>;
    /// The response object of `f` (`""` for a NULL description).
    pub fn new(f: &'a FlavorRow);
    /// `FlavorResponse`'s attribute names in Octavia's declaration order (filters, sort keys,
    /// `fields=`).
    pub const FLAVOR_ATTRS;
    /// `GET /v2/lbaas/flavors` in SQL.
    pub static FLAVOR = { joins: &[], tags: false };
    fields {
        id: &'a str = &f.id => Val("`t`.`id`", Text),
        name: &'a str = &f.name => Val("`t`.`name`", Text),
        description: &'a str = or_empty(&f.description) => Str("`t`.`description`"),
        enabled: bool = f.enabled => Val("`t`.`enabled`", Bool),
        flavor_profile_id: &'a str = &f.flavor_profile_id
            => Val("`t`.`flavor_profile_id`", Text),
    }
}

view_decl! {
    /// An availability zone response object, as octavia/api/v2/types/availability_zones.py
    /// `AvailabilityZoneResponse`; serialised in sorted key order (see [`crate::view`]).
    pub struct AzView<'a>;
    /// The response object of `z` (`""` for a NULL description).
    pub fn new(z: &'a AvailabilityZoneRow);
    /// `AvailabilityZoneResponse`'s attribute names in Octavia's declaration order (filters,
    /// sort keys, `fields=`).
    pub const AZ_ATTRS;
    /// `GET /v2/lbaas/availabilityzones` in SQL.
    pub static AZ = { joins: &[], tags: false };
    fields {
        name: &'a str = &z.name => Val("`t`.`name`", Text),
        description: &'a str = or_empty(&z.description) => Str("`t`.`description`"),
        enabled: bool = z.enabled => Val("`t`.`enabled`", Bool),
        availability_zone_profile_id: &'a str = &z.availability_zone_profile_id
            => Val("`t`.`availability_zone_profile_id`", Text),
    }
}

impl list::Listed for FlavorRow {
    const SPEC: &'static listing::Spec = &FLAVOR;
    const ATTRS: &'static [&'static str] = FLAVOR_ATTRS;
    const COLLECTION: &'static str = "flavors";
    const PATH: &'static str = "/v2/lbaas/flavors";
    const HIDDEN: list::Hidden = list::Hidden::Placeholder;
    async fn render(_: &mut Tx, rows: &[Self]) -> Result<Vec<Value>, ApiError> {
        Ok(rows.iter().map(Catalog::object).collect())
    }
    fn id(&self) -> &str {
        &self.id
    }
}

impl list::Listed for AvailabilityZoneRow {
    const SPEC: &'static listing::Spec = &AZ;
    const ATTRS: &'static [&'static str] = AZ_ATTRS;
    const COLLECTION: &'static str = "availability_zones";
    const PATH: &'static str = "/v2/lbaas/availabilityzones";
    const HIDDEN: list::Hidden = list::Hidden::Placeholder;
    async fn render(_: &mut Tx, rows: &[Self]) -> Result<Vec<Value>, ApiError> {
        Ok(rows.iter().map(Catalog::object).collect())
    }
    fn id(&self) -> &str {
        &self.name
    }
}

/// A global object a load balancer may name — a flavor (keyed by id) or an availability zone
/// (keyed by name; [`Record::KEY`], [`Record::TABLE`]) — and the names that differ between the
/// two kinds (its list: [`list::Listed`]).
pub trait Catalog: list::Listed + 'static {
    /// Policy resource (`flavor`, `availability-zone`).
    const RBAC: &'static str;
    /// Body wrapper / response key (`flavor`, `availability_zone`).
    const WRAPPER: &'static str;
    /// Controller argument name (`flavor_`, `availability_zone_`).
    const ARG: &'static str;
    /// Object name in the 409 of a taken name (`flavor`, `availability zone`).
    const NOUN: &'static str;
    /// Object name in 404 and in-use texts (`Flavor`, `Availability Zone`).
    const LABEL: &'static str;
    /// The `load_balancer` column that names one (`flavor_id`, `availability_zone`).
    const LB_COLUMN: &'static str;
    /// The profile attribute (`flavor_profile_id`, `availability_zone_profile_id`).
    const PROFILE: &'static str;
    /// The profile's row.
    type ProfileRow: Record;
    /// The typed POST body.
    type Post: serde::de::DeserializeOwned + Into<CatalogPost>;
    /// The typed PUT body.
    type Put: serde::de::DeserializeOwned + Into<CatalogPut>;
    /// POST / PUT schemas.
    fn schemas() -> (&'static Schema, &'static Schema);
    /// A new row of a validated POST (a flavor gets a new id; a zone is keyed by its name).
    fn make(b: CatalogPost) -> Self;
    /// The response object ([`FlavorView`], [`AzView`]).
    fn object(&self) -> Value;
}

impl Catalog for FlavorRow {
    const RBAC: &'static str = "flavor";
    const WRAPPER: &'static str = "flavor";
    const ARG: &'static str = "flavor_";
    const NOUN: &'static str = "flavor";
    const LABEL: &'static str = "Flavor";
    const LB_COLUMN: &'static str = "flavor_id";
    const PROFILE: &'static str = "flavor_profile_id";
    type ProfileRow = FlavorProfileRow;
    type Post = FlavorPost;
    type Put = FlavorPut;
    fn schemas() -> (&'static Schema, &'static Schema) {
        (&FLAVOR_POST, &FLAVOR_PUT)
    }
    fn make(b: CatalogPost) -> Self {
        Self {
            id: columns::new_id(),
            name: b.name,
            description: b.description,
            enabled: b.enabled.into_value().unwrap_or(true),
            flavor_profile_id: b.profile_id,
        }
    }
    fn object(&self) -> Value {
        to_value(&FlavorView::new(self))
    }
}

impl Catalog for AvailabilityZoneRow {
    const RBAC: &'static str = "availability-zone";
    const WRAPPER: &'static str = "availability_zone";
    const ARG: &'static str = "availability_zone_";
    const NOUN: &'static str = "availability zone";
    const LABEL: &'static str = "Availability Zone";
    const LB_COLUMN: &'static str = "availability_zone";
    const PROFILE: &'static str = "availability_zone_profile_id";
    type ProfileRow = AvailabilityZoneProfileRow;
    type Post = AzPost;
    type Put = AzPut;
    fn schemas() -> (&'static Schema, &'static Schema) {
        (&AZ_POST, &AZ_PUT)
    }
    fn make(b: CatalogPost) -> Self {
        Self {
            name: b.name,
            description: b.description,
            enabled: b.enabled.into_value().unwrap_or(true),
            availability_zone_profile_id: b.profile_id,
        }
    }
    fn object(&self) -> Value {
        to_value(&AzView::new(self))
    }
}

/// Load a flavor or availability zone by its key (placeholder and missing → 404
/// `Flavor <id> not found.` / `Availability Zone <name> not found.`).
pub async fn get_db<C: Catalog>(tx: &mut Tx, key: &str) -> Result<C, ApiError> {
    let row: Option<C> = if key == PLACEHOLDER_ID {
        None
    } else {
        tx.find(key).await?
    };
    row.ok_or_else(|| ApiError::not_found(C::LABEL, key))
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

/// `GET /v2/lbaas/flavors`, `GET /v2/lbaas/availabilityzones` ([`list::global_list`]: every
/// object but the NIL placeholder).
pub async fn get_all<C: Catalog>(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    headers: HeaderMap,
    Query(q): Q,
) -> Result<Response, ApiError> {
    list::global_list::<C>(&st, &ctx, &headers, &q, C::RBAC).await
}

/// `GET /v2/lbaas/flavors/{id}`, `GET /v2/lbaas/availabilityzones/{name}`.
pub async fn get_one<C: Catalog>(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(key): Path<String>,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    policy::authorize(&ctx, C::RBAC, "get_one", ctx.project_id.as_deref())?;
    let fields = list::check_get_query(&st, &q)?;
    let mut tx = st.db().begin_read().await?;
    let row: C = get_db(&mut tx, &key).await?;
    Ok(Json(
        json!({ C::WRAPPER: list::select(row.object(), &fields) }),
    ))
}

/// `POST /v2/lbaas/flavors`, `POST /v2/lbaas/availabilityzones` → 201 (admin). A taken name →
/// 409 `A flavor of <name> already exists.` / `A availability zone of <name> already exists.`
/// (sic); an unknown profile → 400 `<id> is not a valid option for flavor_profile_id` (the
/// reference fails at the FK with a 500).
pub async fn post<C: Catalog>(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Query(q): Q,
    body: Bytes,
) -> Result<Response, ApiError> {
    list::no_query(&q, &[])?;
    let b: CatalogPost = parse_typed::<C::Post>(&body, C::ARG, C::WRAPPER, C::schemas().0)?.into();
    policy::authorize(&ctx, C::RBAC, "post", ctx.project_id.as_deref())?;
    b.enabled.refuse_null("enabled")?;
    let mut tx = st.db().begin().await?;
    if name_taken(&mut tx, C::TABLE, &b.name).await? {
        return Err(ApiError::Conflict(format!(
            "A {} of {} already exists.",
            C::NOUN,
            b.name
        )));
    }
    let profile: Option<C::ProfileRow> = tx.find(&b.profile_id).await?;
    if profile.is_none() {
        return Err(ApiError::InvalidOption {
            value: b.profile_id,
            option: C::PROFILE.into(),
        });
    }
    let row = C::make(b);
    tx.insert(&row).await?;
    tx.commit().await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({ C::WRAPPER: row.object() })),
    )
        .into_response())
}

/// `PUT /v2/lbaas/flavors/{id}`, `PUT /v2/lbaas/availabilityzones/{name}` → 200 (admin); a
/// `null` name or `enabled` → 400 `None is not a valid option for <key>` (the reference: a 500
/// from its update); a taken name → 409 as [`post`].
pub async fn put<C: Catalog>(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(key): Path<String>,
    Query(q): Q,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    list::no_query(&q, &[])?;
    let b: CatalogPut = parse_typed::<C::Put>(&body, C::ARG, C::WRAPPER, C::schemas().1)?.into();
    policy::authorize(&ctx, C::RBAC, "put", ctx.project_id.as_deref())?;
    let mut tx = st.db().begin().await?;
    get_db::<C>(&mut tx, &key).await?;
    b.name.refuse_null("name")?;
    b.enabled.refuse_null("enabled")?;
    let mut ch: Vec<(&str, SqlValue)> = Vec::new();
    if let Some(n) = b.name.into_value() {
        if name_taken(&mut tx, C::TABLE, &n).await? {
            return Err(ApiError::Conflict(format!(
                "A {} of {n} already exists.",
                C::NOUN
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
        tx.update::<C>(&key, &ch).await?;
    }
    let row: C = get_db(&mut tx, &key).await?;
    tx.commit().await?;
    Ok(Json(json!({ C::WRAPPER: row.object() })))
}

/// `DELETE /v2/lbaas/flavors/{id}`, `DELETE /v2/lbaas/availabilityzones/{name}` → 204
/// (admin); in use → 409 `Flavor <id> is in use and cannot be modified.` /
/// `Availability Zone <name> is in use and cannot be modified.`
pub async fn delete<C: Catalog>(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(key): Path<String>,
    Query(q): Q,
) -> Result<StatusCode, ApiError> {
    list::no_query(&q, &[])?;
    policy::authorize(&ctx, C::RBAC, "delete", ctx.project_id.as_deref())?;
    let mut tx = st.db().begin().await?;
    get_db::<C>(&mut tx, &key).await?;
    release(&mut tx, C::LB_COLUMN, &key, C::LABEL).await?;
    tx.delete::<C>(&key).await?;
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
        let fl: FlavorRow = get_db(&mut tx, &f)
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
        let a: AvailabilityZoneRow = get_db(&mut tx, &name)
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

/// The routes of flavors and availability zones (one generic handler set over both rows), as `octavia/api/v2/controllers/flavors.py`, `octavia/api/v2/controllers/availability_zones.py` serves them; [`crate::router`]
/// merges them under its layers.
pub(crate) fn routes() -> axum::Router<AppState> {
    use axum::routing::get;
    use octavia_db::{AvailabilityZoneRow, FlavorRow};
    axum::Router::new()
        .route(
            "/v2/lbaas/flavors",
            get(get_all::<FlavorRow>).post(post::<FlavorRow>),
        )
        .route(
            "/v2/lbaas/flavors/{id}",
            get(get_one::<FlavorRow>)
                .put(put::<FlavorRow>)
                .delete(delete::<FlavorRow>),
        )
        .route(
            "/v2/lbaas/availabilityzones",
            get(get_all::<AvailabilityZoneRow>).post(post::<AvailabilityZoneRow>),
        )
        .route(
            "/v2/lbaas/availabilityzones/{name}",
            get(get_one::<AvailabilityZoneRow>)
                .put(put::<AvailabilityZoneRow>)
                .delete(delete::<AvailabilityZoneRow>),
        )
}
