//! Flavor profiles (`/v2/lbaas/flavorprofiles`) and availability zone profiles
//! (`/v2/lbaas/availabilityzoneprofiles`), as `octavia/api/v2/controllers/flavor_profiles.py`
//! and `availability_zone_profiles.py`. Both are admin-only,
//! keep their metadata as a JSON *string*, validate it through the provider driver
//! (`validate_flavor` / `validate_availability_zone`) and refuse changes while in use.

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use octavia_db::{
    AvailabilityZoneProfileRow, FlavorProfileRow, PLACEHOLDER_ID, SqlValue, Tx,
};
use serde_json::{Value, json};

use crate::context::RequestContext;
use crate::fault::ApiError;
use crate::listing;
use crate::policy;
use crate::provider_call::query_provider;
use crate::state::AppState;
use crate::types::{Patch, Schema, parse_typed, s, wsme_body};
use crate::view::{to_value, view_decl};
use crate::{columns, list, provider_call};

type Q = Query<Vec<(String, String)>>;

/// A profile table: its row type and the names that differ between the two kinds (its list:
/// [`list::Listed`]).
pub trait Profile: list::Listed + 'static {
    /// Policy resource (`flavor-profile`, `availability-zone-profile`).
    const RBAC: &'static str;
    /// Body wrapper / response key (`flavorprofile`, `availability_zone_profile`).
    const WRAPPER: &'static str;
    /// Controller argument name (`flavor_profile_`, `availability_zone_profile_`).
    const ARG: &'static str;
    /// Metadata attribute (`flavor_data`, `availability_zone_data`).
    const DATA: &'static str;
    /// The option named when PUT metadata is not JSON: `flavor_data` for both kinds, as
    /// `availability_zone_profiles.py` `put` names it.
    const PUT_DATA_OPTION: &'static str = "flavor_data";
    /// Object name in 404 texts of the NIL placeholder and delete, and in 409 texts.
    const LABEL: &'static str;
    /// Object name in 404 texts of GET/PUT (the model's `_name()`).
    const MODEL: &'static str;
    /// The table and column that reference a profile (in-use check).
    const USED_BY: (&'static str, &'static str);
    /// POST / PUT schemas.
    fn schemas() -> (&'static Schema, &'static Schema);
    /// The typed POST / PUT body (both declare the same attributes).
    type Body: serde::de::DeserializeOwned + Into<ProfileBody>;
    /// Build a row.
    fn make(id: String, name: String, provider: String, data: String) -> Self;
    /// (id, name, provider_name, data).
    fn parts(&self) -> (&str, &str, &str, &str);
    /// The response object ([`FlavorProfileView`], [`AzProfileView`]).
    fn object(&self) -> Value;
    /// Ask the driver to accept the metadata.
    fn validate(
        driver: std::sync::Arc<dyn provider::ProviderDriver>,
        data: Value,
    ) -> futures::future::BoxFuture<'static, Result<(), provider::ProviderError>>;
}

/// A validated profile POST / PUT body of either kind, its metadata attribute under one
/// name: each attribute left out, `null` (a POST answers it as the reference, a PUT refuses
/// it) or a value.
#[derive(Debug, Clone, Default)]
pub struct ProfileBody {
    pub name: Patch<String>,
    /// `provider_name` (left out, `null` or empty on a POST: `amphora`).
    pub provider_name: Patch<String>,
    /// The metadata JSON text ([`Profile::DATA`]).
    pub data: Patch<String>,
}

wsme_body! {
    /// `FlavorProfilePOST`; an explicit `null` reaches [`post`], which answers it as the
    /// reference.
    pub static FP_POST, tenant_alias = false;
    /// A validated `FlavorProfilePOST` / `FlavorProfilePUT` body ([`FP_POST`], [`FP_PUT`]).
    pub struct FlavorProfileBody {
        name: Patch<String> = mn(s(255)),
        provider_name: Patch<String> = mn(s(255)),
        flavor_data: Patch<String> = mn(s(4096)),
    }
    /// `FlavorProfilePUT`.
    pub static FP_PUT = crate::types::ALL_OPTIONAL, tenant_alias = false;
}

impl From<FlavorProfileBody> for ProfileBody {
    fn from(b: FlavorProfileBody) -> Self {
        Self {
            name: b.name,
            provider_name: b.provider_name,
            data: b.flavor_data,
        }
    }
}

wsme_body! {
    /// `AvailabilityZoneProfilePOST`.
    pub static AZP_POST, tenant_alias = false;
    /// A validated `AvailabilityZoneProfilePOST` / `…PUT` body ([`AZP_POST`], [`AZP_PUT`]).
    pub struct AzProfileBody {
        name: Patch<String> = mn(s(255)),
        provider_name: Patch<String> = mn(s(255)),
        availability_zone_data: Patch<String> = mn(s(4096)),
    }
    /// `AvailabilityZoneProfilePUT`.
    pub static AZP_PUT = crate::types::ALL_OPTIONAL, tenant_alias = false;
}

impl From<AzProfileBody> for ProfileBody {
    fn from(b: AzProfileBody) -> Self {
        Self {
            name: b.name,
            provider_name: b.provider_name,
            data: b.availability_zone_data,
        }
    }
}

impl Profile for FlavorProfileRow {
    const RBAC: &'static str = "flavor-profile";
    const WRAPPER: &'static str = "flavorprofile";
    const ARG: &'static str = "flavor_profile_";
    const DATA: &'static str = "flavor_data";
    const LABEL: &'static str = "Flavor profile";
    const MODEL: &'static str = "Flavor Profile";
    const USED_BY: (&'static str, &'static str) = ("flavor", "flavor_profile_id");
    fn schemas() -> (&'static Schema, &'static Schema) {
        (&FP_POST, &FP_PUT)
    }
    type Body = FlavorProfileBody;
    fn make(id: String, name: String, provider_name: String, flavor_data: String) -> Self {
        Self {
            id,
            name,
            provider_name,
            flavor_data,
        }
    }
    fn parts(&self) -> (&str, &str, &str, &str) {
        (&self.id, &self.name, &self.provider_name, &self.flavor_data)
    }
    fn object(&self) -> Value {
        to_value(&FlavorProfileView::new(self))
    }
    fn validate(
        driver: std::sync::Arc<dyn provider::ProviderDriver>,
        data: Value,
    ) -> futures::future::BoxFuture<'static, Result<(), provider::ProviderError>> {
        Box::pin(async move { driver.validate_flavor(&data).await })
    }
}

impl Profile for AvailabilityZoneProfileRow {
    const RBAC: &'static str = "availability-zone-profile";
    const WRAPPER: &'static str = "availability_zone_profile";
    const ARG: &'static str = "availability_zone_profile_";
    const DATA: &'static str = "availability_zone_data";
    const LABEL: &'static str = "Availability Zone Profile";
    const MODEL: &'static str = "Availability Zone Profile";
    const USED_BY: (&'static str, &'static str) =
        ("availability_zone", "availability_zone_profile_id");
    fn schemas() -> (&'static Schema, &'static Schema) {
        (&AZP_POST, &AZP_PUT)
    }
    type Body = AzProfileBody;
    fn make(id: String, name: String, provider_name: String, data: String) -> Self {
        Self {
            id,
            name,
            provider_name,
            availability_zone_data: data,
        }
    }
    fn parts(&self) -> (&str, &str, &str, &str) {
        (
            &self.id,
            &self.name,
            &self.provider_name,
            &self.availability_zone_data,
        )
    }
    fn object(&self) -> Value {
        to_value(&AzProfileView::new(self))
    }
    fn validate(
        driver: std::sync::Arc<dyn provider::ProviderDriver>,
        data: Value,
    ) -> futures::future::BoxFuture<'static, Result<(), provider::ProviderError>> {
        Box::pin(async move { driver.validate_availability_zone(&data).await })
    }
}

view_decl! {
    /// A flavor profile response object, as octavia/api/v2/types/flavor_profile.py
    /// `FlavorProfileResponse`: the metadata as the JSON text stored; serialised in sorted key
    /// order (see [`crate::view`]).
    pub struct FlavorProfileView<'a>;
    /// The response object of `p`.
    pub fn new(p: &'a FlavorProfileRow);
    /// `FlavorProfileResponse`'s attribute names in Octavia's declaration order (filters, sort
    /// keys, `fields=`).
    pub const FLAVOR_PROFILE_ATTRS;
    /// `GET /v2/lbaas/flavorprofiles` in SQL.
    pub static FLAVOR_PROFILE = { joins: &[], tags: false };
    fields {
        id: &'a str = &p.id => Val("`t`.`id`", Text),
        name: &'a str = &p.name => Val("`t`.`name`", Text),
        provider_name: &'a str = &p.provider_name => Val("`t`.`provider_name`", Text),
        flavor_data: &'a str = &p.flavor_data => Val("`t`.`flavor_data`", Text),
    }
}

view_decl! {
    /// An availability zone profile response object, as
    /// octavia/api/v2/types/availability_zone_profile.py `AvailabilityZoneProfileResponse`:
    /// the metadata as the JSON text stored; serialised in sorted key order (see
    /// [`crate::view`]).
    pub struct AzProfileView<'a>;
    /// The response object of `p`.
    pub fn new(p: &'a AvailabilityZoneProfileRow);
    /// `AvailabilityZoneProfileResponse`'s attribute names in Octavia's declaration order
    /// (filters, sort keys, `fields=`).
    pub const AZ_PROFILE_ATTRS;
    /// `GET /v2/lbaas/availabilityzoneprofiles` in SQL.
    pub static AZ_PROFILE = { joins: &[], tags: false };
    fields {
        id: &'a str = &p.id => Val("`t`.`id`", Text),
        name: &'a str = &p.name => Val("`t`.`name`", Text),
        provider_name: &'a str = &p.provider_name => Val("`t`.`provider_name`", Text),
        availability_zone_data: &'a str = &p.availability_zone_data
            => Val("`t`.`availability_zone_data`", Text),
    }
}

impl list::Listed for FlavorProfileRow {
    const SPEC: &'static listing::Spec = &FLAVOR_PROFILE;
    const ATTRS: &'static [&'static str] = FLAVOR_PROFILE_ATTRS;
    const COLLECTION: &'static str = "flavorprofiles";
    const LINKS: Option<&'static str> = Some("flavorprofile_links");
    const PATH: &'static str = "/v2/lbaas/flavorprofiles";
    const HIDDEN: list::Hidden = list::Hidden::Placeholder;
    async fn render(_: &mut Tx, rows: &[Self]) -> Result<Vec<Value>, ApiError> {
        Ok(rows.iter().map(Profile::object).collect())
    }
    fn id(&self) -> &str {
        &self.id
    }
}

impl list::Listed for AvailabilityZoneProfileRow {
    const SPEC: &'static listing::Spec = &AZ_PROFILE;
    const ATTRS: &'static [&'static str] = AZ_PROFILE_ATTRS;
    const COLLECTION: &'static str = "availability_zone_profiles";
    const LINKS: Option<&'static str> = Some("availability_zone_profile_links");
    const PATH: &'static str = "/v2/lbaas/availabilityzoneprofiles";
    const HIDDEN: list::Hidden = list::Hidden::Placeholder;
    async fn render(_: &mut Tx, rows: &[Self]) -> Result<Vec<Value>, ApiError> {
        Ok(rows.iter().map(Profile::object).collect())
    }
    fn id(&self) -> &str {
        &self.id
    }
}

/// The metadata as a JSON value; 400 `<data> is not a valid option for <option>` (`None` for
/// a `null`).
fn parse_data(data: Option<&str>, option: &str) -> Result<Value, ApiError> {
    data.and_then(|d| serde_json::from_str(d).ok())
        .ok_or_else(|| ApiError::InvalidOption {
            value: data.unwrap_or("None").to_string(),
            option: option.to_string(),
        })
}

/// Validate parsed metadata with the named provider (400 not enabled, 501 not loaded, driver
/// errors as `call_provider`).
async fn validate_with<P: Profile>(
    st: &AppState,
    provider_name: &str,
    data: Value,
) -> Result<(), ApiError> {
    let driver = st.driver(provider_name)?;
    query_provider(provider_name, P::validate(driver, data)).await
}

async fn get_db<P: Profile>(tx: &mut Tx, id: &str) -> Result<P, ApiError> {
    if id == PLACEHOLDER_ID {
        return Err(ApiError::not_found(P::LABEL, id));
    }
    let p: Option<P> = tx.find(id).await?;
    p.ok_or_else(|| ApiError::not_found(P::MODEL, id))
}

async fn in_use<P: Profile>(tx: &mut Tx, id: &str) -> Result<bool, ApiError> {
    let (table, col) = P::USED_BY;
    let n: Option<i64> = tx
        .fetch_optional_scalar(
            &format!("SELECT COUNT(*) FROM `{table}` WHERE `{col}` = ?"),
            vec![id.into()],
        )
        .await?;
    Ok(n.unwrap_or(0) > 0)
}

/// `GET` collection ([`list::global_list`]: every profile but the NIL placeholder).
pub async fn get_all<P: Profile>(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    headers: HeaderMap,
    Query(q): Q,
) -> Result<Response, ApiError> {
    list::global_list::<P>(&st, &ctx, &headers, &q, P::RBAC).await
}

/// `GET /{id}`.
pub async fn get_one<P: Profile>(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    policy::authorize(&ctx, P::RBAC, "get_one", ctx.project_id.as_deref())?;
    let fields = list::check_get_query(&st, &q)?;
    let mut tx = st.db().begin_read().await?;
    let p: P = get_db(&mut tx, &id).await?;
    Ok(Json(json!({P::WRAPPER: list::select(p.object(), &fields)})))
}

/// `POST` → 201 after the driver accepted the metadata. In the reference's order: the
/// metadata parsed (`null` or not JSON → 400 InvalidOption), the provider looked up (`null` or
/// empty → `amphora`), the driver asked; then a `null` name → 400 `Mandatory field missing`
/// (the reference fails its insert with a 500).
pub async fn post<P: Profile>(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Query(q): Q,
    body: Bytes,
) -> Result<Response, ApiError> {
    list::no_query(&q, &[])?;
    let b: ProfileBody = parse_typed::<P::Body>(&body, P::ARG, P::WRAPPER, P::schemas().0)?.into();
    policy::authorize(&ctx, P::RBAC, "post", ctx.project_id.as_deref())?;
    let data = b.data.into_value();
    let parsed = parse_data(data.as_deref(), P::DATA)?;
    let provider_name = provider_call::driver_name(b.provider_name.into_value());
    validate_with::<P>(&st, &provider_name, parsed).await?;
    let Some(name) = b.name.into_value() else {
        return Err(ApiError::invalid_input(
            "name",
            "None",
            "Mandatory field missing.",
        ));
    };
    let row = P::make(
        columns::new_id(),
        name,
        provider_name,
        data.unwrap_or_default(),
    );
    let mut tx = st.db().begin().await?;
    tx.insert(&row).await?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, Json(json!({P::WRAPPER: row.object()}))).into_response())
}

/// `PUT /{id}`, in the reference's order: `null` values → 400 `None is not a valid option for
/// <attr>`; a new provider or metadata while in use → 409 `<Label> <id> is in use and cannot
/// be modified.`; the NIL placeholder → 404; new metadata parsed (400 InvalidOption naming
/// `flavor_data`) and validated with the new provider (empty → `amphora`) or the stored one
/// (the profile read first: 404); then the update, and 404 when there was no such profile.
pub async fn put<P: Profile>(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    list::no_query(&q, &[])?;
    let b: ProfileBody = parse_typed::<P::Body>(&body, P::ARG, P::WRAPPER, P::schemas().1)?.into();
    policy::authorize(&ctx, P::RBAC, "put", ctx.project_id.as_deref())?;
    b.name.refuse_null("name")?;
    b.provider_name.refuse_null("provider_name")?;
    b.data.refuse_null(P::DATA)?;
    let mut tx = st.db().begin().await?;
    if (b.data.given() || b.provider_name.given()) && in_use::<P>(&mut tx, &id).await? {
        return Err(ApiError::Conflict(format!(
            "{} {id} is in use and cannot be modified.",
            P::LABEL
        )));
    }
    if id == PLACEHOLDER_ID {
        return Err(ApiError::not_found(P::LABEL, &id));
    }
    if let Some(data) = b.data.value() {
        let parsed = parse_data(Some(data), P::PUT_DATA_OPTION)?;
        let provider_name = match b.provider_name.value() {
            Some(p) => provider_call::driver_name(Some(p.clone())),
            None => get_db::<P>(&mut tx, &id).await?.parts().2.to_string(),
        };
        validate_with::<P>(&st, &provider_name, parsed).await?;
    }
    let mut ch: Vec<(&str, SqlValue)> = Vec::new();
    for (k, v) in [
        ("name", b.name),
        ("provider_name", b.provider_name),
        (P::DATA, b.data),
    ] {
        if let Some(v) = v.into_value() {
            ch.push((k, v.into()));
        }
    }
    if !ch.is_empty() {
        tx.update::<P>(&id, &ch).await?;
    }
    let p: P = get_db(&mut tx, &id).await?;
    tx.commit().await?;
    Ok(Json(json!({P::WRAPPER: p.object()})))
}

/// `DELETE /{id}` → 204; in use → 409; missing → 404 `<Label> <id> not found.`
pub async fn delete<P: Profile>(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
) -> Result<StatusCode, ApiError> {
    list::no_query(&q, &[])?;
    policy::authorize(&ctx, P::RBAC, "delete", ctx.project_id.as_deref())?;
    if id == PLACEHOLDER_ID {
        return Err(ApiError::not_found(P::LABEL, &id));
    }
    let mut tx = st.db().begin().await?;
    if in_use::<P>(&mut tx, &id).await? {
        return Err(ApiError::Conflict(format!(
            "{} {id} is in use and cannot be modified.",
            P::LABEL
        )));
    }
    if tx.delete::<P>(&id).await? == 0 {
        return Err(ApiError::not_found(P::LABEL, &id));
    }
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The routes of flavor profiles and availability zone profiles (one generic handler set over both rows), as `octavia/api/v2/controllers/flavor_profiles.py`, `octavia/api/v2/controllers/availability_zone_profiles.py` serves them; [`crate::router`]
/// merges them under its layers.
pub(crate) fn routes() -> axum::Router<AppState> {
    use axum::routing::get;
    use octavia_db::{AvailabilityZoneProfileRow, FlavorProfileRow};
    axum::Router::new()
        .route(
            "/v2/lbaas/flavorprofiles",
            get(get_all::<FlavorProfileRow>).post(post::<FlavorProfileRow>),
        )
        .route(
            "/v2/lbaas/flavorprofiles/{id}",
            get(get_one::<FlavorProfileRow>)
                .put(put::<FlavorProfileRow>)
                .delete(delete::<FlavorProfileRow>),
        )
        .route(
            "/v2/lbaas/availabilityzoneprofiles",
            get(get_all::<AvailabilityZoneProfileRow>).post(post::<AvailabilityZoneProfileRow>),
        )
        .route(
            "/v2/lbaas/availabilityzoneprofiles/{id}",
            get(get_one::<AvailabilityZoneProfileRow>)
                .put(put::<AvailabilityZoneProfileRow>)
                .delete(delete::<AvailabilityZoneProfileRow>),
        )
}
