//! `/v2/lbaas/loadbalancers`, as `octavia/api/v2/controllers/load_balancer.py`.

pub(crate) mod body;
internal! {
    mod view;
}

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use octavia_db::{
    AdditionalVipRow, ListQuery, ListenerRow, LoadBalancerRow, PoolRow, QuotaResource, SqlValue,
    Tx, VipRow,
};
use provider::{OperatingStatus, ProvisioningStatus};
use serde_json::{Value, json};

use crate::context::RequestContext;
use crate::fault::{ApiError, MISSING_PROJECT};
use crate::lookup::{get_db_lb, lb_stats, quota_limits};
use crate::policy;
use crate::provider_call::call_provider;
use crate::state::AppState;
use crate::target::{self, Provider};
use crate::types::{Wsme, model_sent};
use crate::{columns, list, provider_call, provider_model, related};
use body::*;

pub(crate) mod graph;
mod vip;

type Q = Query<Vec<(String, String)>>;

/// `GET /v2/lbaas/loadbalancers` ([`list::project_list`]; without `fields=` the page is
/// written as text, [`crate::listing::page_text`]).
pub async fn get_all(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    headers: HeaderMap,
    Query(q): Q,
) -> Result<axum::response::Response, ApiError> {
    list::project_list::<LoadBalancerRow>(&st, &ctx, &headers, &q, "loadbalancer").await
}


/// `GET /v2/lbaas/loadbalancers/{id}`.
pub async fn get_one(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    let fields = list::check_get_query(&st, &q)?;
    let mut tx = st.db().begin_read().await?;
    // the row and its attachments in one read: the GET a client polls until ACTIVE
    let (lb, att) = crate::lookup::get_db_lb_with_attachments(&mut tx, &id).await?;
    policy::authorize(&ctx, "loadbalancer", "get_one", lb.project_id.as_deref())?;
    let body = view::render_lb_with(&lb, att);
    Ok(Json(json!({ "loadbalancer": list::select(body, &fields) })))
}

/// The provider a create uses: the flavor's, which a sent `provider` must match (400 `Flavor
/// '<id>' is not compatible with provider '<name>'`); else the sent one (`null` or "" is
/// `amphora`, driver_factory.get_driver); else the configured default. A `null` does not
/// match a flavor's provider (`None`).
fn provider_name(
    st: &AppState,
    b: &LbPost,
    flavor_provider: Option<String>,
) -> Result<String, ApiError> {
    let sent = b.provider.value().cloned();
    Ok(match (b.provider.given(), sent, flavor_provider) {
        (true, p, Some(fp)) if p.as_deref() != Some(fp.as_str()) => {
            return Err(ApiError::BadRequest(format!(
                "Flavor '{}' is not compatible with provider '{}'",
                b.flavor_id.as_deref().unwrap_or_default(),
                p.as_deref().unwrap_or("None")
            )));
        }
        (_, _, Some(fp)) => fp,
        (true, p, None) => provider_call::driver_name(p),
        (false, _, None) => st.config().default_provider_driver.clone(),
    })
}

/// `POST /v2/lbaas/loadbalancers` → 201 with the full load balancer in PENDING_CREATE
/// (`LoadBalancerFullResponse`). Nested `listeners` / `pools` make it a single-call create
/// ([`graph`]): the whole tree in the same transaction, one provider `loadbalancer_create`
/// with the nested models.
pub async fn post(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Query(q): Q,
    body: Wsme<LbPost>,
) -> Result<Response, ApiError> {
    list::no_query(&q, &[])?;
    let b = body.parse()?;
    let project = create_project(&ctx, &b)?;
    let vip = vip::validate_vip(&st, &ctx, &b).await?;
    let add_req = b.additional_vips();
    vip::no_duplicate_subnets(&vip, &add_req)?;
    vip::validate_additional_subnets(&st, &ctx, &add_req, vip.network_id.as_deref()).await?;
    // flavor / availability zone: existence, enabled, provider (load_balancer.py
    // `_validate_flavor`, `_validate_availability_zone`, `_get_provider`)
    let (flavor_meta, az_meta, flavor_provider) =
        crate::flavors::lb_create_metadata(&st, b.flavor_id.clone(), b.availability_zone.clone())
            .await?;
    let provider_name = provider_name(&st, &b, flavor_provider)?;
    let driver = st.driver(&provider_name)?;

    let mut tx = st.db().begin().await?;
    if !ctx.noauth {
        tx.check_quota(&project, QuotaResource::LoadBalancer, 1, &quota_limits(&st))
            .await?;
    }
    // Single-call create: the pool names are resolved before any child is written
    // (load_balancer.py `_graph_create`, first half; after the LB quota as there).
    let plan = graph::plan(b.listeners.objects(), b.pools.objects())?;
    let sg_ids: Vec<String> = b
        .vip_sg_ids
        .value()
        .map(|s| s.0.clone())
        .unwrap_or_default();
    // load_balancer.py `_apply_flavor_to_lb_dict`: the flavor's topology, else the option's
    let topology = flavor_meta
        .get("loadbalancer_topology")
        .and_then(Value::as_str)
        .unwrap_or(&st.config().loadbalancer_topology)
        .to_string();
    let new_lb = NewLb {
        project: &project,
        provider: &provider_name,
        topology,
    };
    let lb = insert_lb(&mut tx, &b, new_lb, &vip, &sg_ids).await?;
    // The tree is validated and written before the VIP port exists, so a 400/403 on a child
    // leaves no port behind (the reference creates the port first).
    let created = if plan.is_empty() {
        None
    } else {
        Some(graph::create(&st, &ctx, &mut tx, &lb, plan).await?)
    };
    // a Neutron port no rollback removes: this request never runs again (retry)
    crate::retry::side_effect();
    let (pvip, pextra) = vip::provider_vips(&vip, &add_req, &sg_ids);
    let ports = call_provider(
        &mut tx,
        &provider_name,
        driver.create_vip_port(&lb.id, &project, pvip, pextra),
    )
    .await?;
    // the ports the driver made (not a user's `vip_port_id`): every failure from here on
    // deletes them, so a refused create leaves no port behind
    let made: Vec<String> = vip
        .port_id
        .is_none()
        .then(|| ports.0.vip_port_id.clone())
        .flatten()
        .into_iter()
        .chain(
            ports
                .1
                .iter()
                .zip(&add_req)
                .filter(|(_, req)| req.port_id.is_none())
                .filter_map(|(a, _)| a.port_id.clone()),
        )
        .collect();
    let provided = Provided {
        name: &provider_name,
        driver: driver.as_ref(),
        flavor: flavor_meta,
        availability_zone: az_meta,
    };
    match finish_create(tx, &lb, vip, ports, provided, created.as_ref()).await {
        Ok(body) => {
            Ok((StatusCode::CREATED, Json(json!({ "loadbalancer": body }))).into_response())
        }
        Err(e) => {
            if !made.is_empty()
                && let Err(de) = driver.delete_vip_ports(&lb.id, made).await
            {
                tracing::warn!(lb = %lb.id, error = %de, "VIP ports of a refused create left behind");
            }
            Err(e)
        }
    }
}

/// The owner of a created load balancer: the body's `project_id`, else the token's (400
/// `Missing project ID in request where one is required.`); a control character refused (400)
/// — Octavia takes any string of 36, but Neutron answers a 5xx for a port whose project holds
/// a NUL (found by the OpenAPI fuzz) and no Keystone project id has one. Then the policy checks
/// `loadbalancer:post` (and `post:vip_sg_ids` when sent).
fn create_project(ctx: &RequestContext, b: &LbPost) -> Result<String, ApiError> {
    let project = b
        .project_id
        .clone()
        .or_else(|| ctx.project_id.clone())
        .ok_or_else(|| ApiError::Validation(MISSING_PROJECT.into()))?;
    if project.chars().any(char::is_control) {
        return Err(ApiError::invalid_input(
            "project_id",
            project.escape_debug().to_string(),
            "a project id has no control characters",
        ));
    }
    policy::authorize(ctx, "loadbalancer", "post", Some(&project))?;
    if b.vip_sg_ids.given() {
        policy::authorize(ctx, "loadbalancer", "post:vip_sg_ids", Some(&project))?;
    }
    Ok(project)
}

/// What a create decided before the row exists: owner, provider name as stored, topology.
struct NewLb<'a> {
    project: &'a str,
    provider: &'a str,
    /// `SINGLE` / `ACTIVE_STANDBY`: the flavor's `loadbalancer_topology`, else
    /// `[controller_worker] loadbalancer_topology`.
    topology: String,
}

/// Writes the new load balancer (PENDING_CREATE / OFFLINE), its VIP as validated (the
/// provider's answer completes it later), its security groups and tags.
async fn insert_lb(
    tx: &mut Tx,
    b: &LbPost,
    new: NewLb<'_>,
    vip: &vip::VipReq,
    sg_ids: &[String],
) -> Result<LoadBalancerRow, ApiError> {
    let NewLb {
        project,
        provider: provider_name,
        topology,
    } = new;
    let id = columns::new_id();
    let mut lb = LoadBalancerRow {
        project_id: Some(project.to_string()),
        id: id.clone(),
        provisioning_status: ProvisioningStatus::PendingCreate,
        operating_status: OperatingStatus::Offline,
        topology: Some(topology),
        provider: Some(provider_name.to_string()),
        ..Default::default()
    };
    b.write_row(&mut lb);
    tx.insert(&lb).await?;
    tx.insert(&VipRow {
        load_balancer_id: id.clone(),
        ip_address: vip.address.clone(),
        port_id: vip.port_id.clone(),
        subnet_id: vip.subnet_id.clone(),
        network_id: vip.network_id.clone(),
        qos_policy_id: vip.qos_policy_id.clone(),
        octavia_owned: None,
        vnic_type: "normal".into(),
    })
    .await?;
    for sg in sg_ids {
        tx.insert(&octavia_db::VipSecurityGroupRow {
            load_balancer_id: id.clone(),
            sg_id: sg.clone(),
        })
        .await?;
    }
    if let Some(tags) = &b.tags {
        tx.set_tags(&id, tags).await?;
    }
    Ok(lb)
}

/// The provider a create goes to, with the flavor and availability zone metadata it validates.
struct Provided<'a> {
    name: &'a str,
    driver: &'a dyn provider::ProviderDriver,
    flavor: Value,
    availability_zone: Value,
}

/// After the VIP ports exist: the VIP rows completed from the provider's answer, the flavor
/// and AZ metadata validated by the provider, `loadbalancer_create` with the nested models,
/// the full body rendered and the transaction committed. An error leaves the ports to the
/// caller to delete.
async fn finish_create(
    mut tx: Tx,
    lb: &LoadBalancerRow,
    vip: vip::VipReq,
    (got, got_add): (provider::Vip, Vec<provider::AdditionalVip>),
    p: Provided<'_>,
    created: Option<&graph::Created>,
) -> Result<Value, ApiError> {
    let id = &lb.id;
    tx.update::<VipRow>(
        id,
        &[
            (
                "ip_address",
                SqlValue::from(got.vip_address.or(vip.address)),
            ),
            ("port_id", SqlValue::from(got.vip_port_id.or(vip.port_id))),
            (
                "subnet_id",
                SqlValue::from(got.vip_subnet_id.or(vip.subnet_id)),
            ),
            (
                "network_id",
                SqlValue::from(got.vip_network_id.or(vip.network_id)),
            ),
            // load_balancer.py `post`: True only when the driver says so, else False
            (
                "octavia_owned",
                SqlValue::from(got.octavia_owned.unwrap_or(false)),
            ),
        ],
    )
    .await?;
    for a in got_add {
        let Some(subnet_id) = a.subnet_id else {
            continue;
        };
        tx.insert(&AdditionalVipRow {
            load_balancer_id: id.clone(),
            ip_address: a.ip_address,
            port_id: a.port_id,
            subnet_id,
            network_id: a.network_id,
        })
        .await?;
    }
    let mut model = provider_model::lb_model(&mut tx, lb).await?;
    if p.flavor.as_object().is_some_and(|m| !m.is_empty()) {
        call_provider(&mut tx, p.name, p.driver.validate_flavor(&p.flavor)).await?;
    }
    if p.availability_zone
        .as_object()
        .is_some_and(|m| !m.is_empty())
    {
        call_provider(
            &mut tx,
            p.name,
            p.driver.validate_availability_zone(&p.availability_zone),
        )
        .await?;
    }
    model.flavor = Some(p.flavor);
    model.availability_zone = Some(p.availability_zone);
    if let Some(created) = created {
        let (listeners, pools) = graph::provider_models(&mut tx, created).await?;
        model.listeners = Some(listeners);
        model.pools = Some(pools);
    }
    // `LoadBalancerFullRootResponse`: listeners and pools rendered in full, before the
    // provider call (which writes no row): the amphora driver's cast reaches octavia-worker
    // at once, and the worker reads the new rows as soon as it has it — committed a few
    // milliseconds after the cast's confirm, not after a render, it finds them at its first
    // read instead of after `api_db_commit_retry_initial_delay` (1 s).
    let lb_now = get_db_lb(&mut tx, id).await?;
    let body = graph::render_full(&mut tx, &lb_now, created).await?;
    call_provider(&mut tx, p.name, p.driver.loadbalancer_create(model)).await?;
    tx.commit().await?;
    Ok(body)
}

/// load_balancer.py `put`'s Neutron checks, before the lock: a changed `vip_qos_policy_id`
/// is looked up (`null` or the stored one needs only the QoS extension), each sent
/// `vip_sg_ids` group must exist (400).
async fn put_vip_checks(
    st: &AppState,
    ctx: &RequestContext,
    tx: &mut Tx,
    id: &str,
    b: &LbPut,
) -> Result<(), ApiError> {
    let Some(net) = st.networking() else {
        return Ok(());
    };
    let token = ctx.auth_token.as_deref();
    if let Some(given) = b.vip_qos_policy_id.sent() {
        let stored: Option<VipRow> = tx.find(id).await?;
        let lookup = given
            .map(String::as_str)
            .filter(|g| stored.and_then(|v| v.qos_policy_id).as_deref() != Some(*g));
        crate::network::validate_qos_policy(net.as_ref(), token, lookup).await?;
    }
    if let Some(sgs) = b.vip_sg_ids.value() {
        crate::network::validate_security_groups(net.as_ref(), token, sgs).await?;
    }
    Ok(())
}

/// Writes what a PUT sends — the `load_balancer` columns [`LbPut`] declares (name,
/// description, `admin_state_up`: `null` false), the VIP's QoS policy, its security groups,
/// tags — and fills the provider's `new` model with the same.
async fn write_put(
    tx: &mut Tx,
    id: &str,
    b: &LbPut,
    new: &mut provider::LoadBalancer,
) -> Result<(), ApiError> {
    let changes = b.column_changes();
    let r = b.nulls_resolved();
    model_sent!(r, new;
        name: |v| Some(v.cloned().unwrap_or_default());
        description: |v| Some(v.cloned().unwrap_or_default());
        admin_state_up: |v| v.copied();
    );
    tx.update::<LoadBalancerRow>(id, &changes).await?;
    if let Some(q) = b.vip_qos_policy_id.sent() {
        tx.update::<VipRow>(id, &[("qos_policy_id", q.cloned().into())])
            .await?;
        new.vip_qos_policy_id = q.cloned();
    }
    if let Some(sgs) = b.vip_sg_ids.sent() {
        // a group named twice is stored once, in the table's order (the reference's VIP
        // repository replaces the collection; its answer lists each group once)
        let sgs: Vec<String> = sgs
            .map(|s| s.0.clone())
            .unwrap_or_default()
            .into_iter()
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        tx.execute(
            "DELETE FROM `vip_security_group` WHERE `load_balancer_id` = ?",
            vec![id.into()],
        )
        .await?;
        for sg in &sgs {
            tx.insert(&octavia_db::VipSecurityGroupRow {
                load_balancer_id: id.to_string(),
                sg_id: sg.clone(),
            })
            .await?;
        }
        new.vip_sg_ids = Some(sgs);
    }
    if let Some(tags) = b.tags.sent() {
        tx.set_tags(id, tags.map_or(&[][..], |t| &t[..])).await?;
    }
    Ok(())
}

/// `PUT /v2/lbaas/loadbalancers/{id}` → 200, LB in PENDING_UPDATE.
pub async fn put(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
    body: Wsme<LbPut>,
) -> Result<Json<Value>, ApiError> {
    list::no_query(&q, &[])?;
    let b = body.parse()?;
    let mut tx = st.db().begin().await?;
    let lb = target::load_balancer(&mut tx, &ctx, &id, "put").await?;
    if b.vip_sg_ids.given() {
        policy::authorize(
            &ctx,
            "loadbalancer",
            "put:vip_sg_ids",
            lb.project_id.as_deref(),
        )?;
    }
    put_vip_checks(&st, &ctx, &mut tx, &id, &b).await?;
    let Provider {
        name: pname,
        driver,
    } = Provider::of(&st, &lb)?;
    let old = provider_model::lb_model(&mut tx, &lb).await?;
    tx.lock_lb_and_set(
        &id,
        &[ProvisioningStatus::Active],
        ProvisioningStatus::PendingUpdate,
    )
    .await?;
    let mut new = provider::LoadBalancer {
        loadbalancer_id: id.clone(),
        ..Default::default()
    };
    write_put(&mut tx, &id, &b, &mut new).await?;
    call_provider(&mut tx, &pname, driver.loadbalancer_update(old, new)).await?;
    let lb_now = get_db_lb(&mut tx, &id).await?;
    let body = view::render_lb(&mut tx, &lb_now).await?;
    tx.commit().await?;
    Ok(Json(json!({ "loadbalancer": body })))
}

/// `DELETE /v2/lbaas/loadbalancers/{id}[?cascade=true]` → 204, LB in PENDING_DELETE.
pub async fn delete(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
) -> Result<StatusCode, ApiError> {
    list::no_query(&q, &["cascade"])?;
    let cascade = q
        .iter()
        .find(|(k, _)| k == "cascade")
        .is_some_and(|(_, v)| crate::pagination::bool_from_string(v));
    let mut tx = st.db().begin().await?;
    let lb = target::load_balancer(&mut tx, &ctx, &id, "delete").await?;
    let Provider {
        name: pname,
        driver,
    } = Provider::of(&st, &lb)?;
    tx.lock_lb_and_set(
        &id,
        &[ProvisioningStatus::Active, ProvisioningStatus::Error],
        ProvisioningStatus::PendingDelete,
    )
    .await?;
    let (listeners, pools) = related::lb_children(&mut tx, &id).await?;
    if (!listeners.is_empty() || !pools.is_empty()) && !cascade {
        return Err(ApiError::Validation(format!(
            "Cannot delete Load Balancer {id} - it has children"
        )));
    }
    let mut model = provider_model::lb_model(&mut tx, &lb).await?;
    if cascade {
        let mut lm = Vec::new();
        for l in &listeners {
            lm.push(provider_model::listener_model(&mut tx, l).await?);
        }
        let mut pm = Vec::new();
        for p in &pools {
            pm.push(provider_model::pool_model(&mut tx, p).await?);
        }
        model.listeners = Some(lm);
        model.pools = Some(pm);
    }
    call_provider(&mut tx, &pname, driver.loadbalancer_delete(model, cascade)).await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /v2/lbaas/loadbalancers/{id}/status` (alias `/statuses`): the status tree.
pub async fn get_status(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    list::no_query(&q, &[])?;
    let mut tx = st.db().begin_read().await?;
    let lb = get_db_lb(&mut tx, &id).await?;
    policy::authorize(&ctx, "loadbalancer", "get_status", lb.project_id.as_deref())?;
    let (listeners, _) = related::lb_children(&mut tx, &id).await?;
    let mut ls = Vec::new();
    for l in &listeners {
        let mut pools = Vec::new();
        for pid in status_pool_ids(&mut tx, l).await? {
            let p: Option<PoolRow> = tx.find(&pid).await?;
            if let Some(p) = p.filter(|p| p.provisioning_status != ProvisioningStatus::Deleted) {
                let hm = related::pool_hm(&mut tx, &p.id).await?.map(|h| {
                    json!({"id": h.id, "name": h.name.unwrap_or_default(), "type": h.r#type,
                           "provisioning_status": h.provisioning_status, "operating_status": h.operating_status})
                });
                let members: Vec<Value> = related::pool_members(&mut tx, &p.id)
                    .await?
                    .into_iter()
                    .map(|m| json!({"id": m.id, "name": m.name.unwrap_or_default(), "operating_status": m.operating_status,
                        "provisioning_status": m.provisioning_status, "address": m.ip_address, "protocol_port": m.protocol_port}))
                    .collect();
                pools.push(json!({"id": p.id, "name": p.name.unwrap_or_default(), "provisioning_status": p.provisioning_status,
                    "operating_status": p.operating_status, "health_monitor": hm, "members": members}));
            }
        }
        ls.push(json!({"id": l.id, "name": l.name.clone().unwrap_or_default(), "operating_status": l.operating_status,
            "provisioning_status": l.provisioning_status, "pools": pools}));
    }
    Ok(Json(
        json!({"statuses": {"loadbalancer": {"id": lb.id, "name": lb.name.unwrap_or_default(),
        "operating_status": lb.operating_status, "provisioning_status": lb.provisioning_status, "listeners": ls}}}),
    ))
}

/// A listener's pools in the status tree: its default pool, then the redirect pools of its
/// enabled L7 policies that have at least one rule, de-duplicated.
async fn status_pool_ids(
    tx: &mut octavia_db::Tx,
    l: &ListenerRow,
) -> Result<Vec<String>, ApiError> {
    let mut ids: Vec<String> = l.default_pool_id.iter().cloned().collect();
    let policies: Vec<octavia_db::L7PolicyRow> = tx
        .list(
            &ListQuery {
                sort: vec![("position".into(), octavia_db::SortDir::Asc)],
                ..ListQuery::default()
            }
            .filter("listener_id", l.id.as_str()),
        )
        .await?;
    for p in policies.into_iter().filter(|p| p.enabled) {
        let Some(rp) = p.redirect_pool_id else {
            continue;
        };
        let rules: Vec<octavia_db::L7RuleRow> = tx
            .list(&ListQuery::default().filter("l7policy_id", p.id.as_str()))
            .await?;
        if !rules.is_empty() && !ids.contains(&rp) {
            ids.push(rp);
        }
    }
    Ok(ids)
}

/// `GET /v2/lbaas/loadbalancers/{id}/stats`.
pub async fn get_stats(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    list::no_query(&q, &[])?;
    let mut tx = st.db().begin_read().await?;
    let (project, stats) = lb_stats(&mut tx, &id).await?;
    policy::authorize(&ctx, "loadbalancer", "get_stats", project.as_deref())?;
    Ok(Json(stats))
}

/// `PUT /v2/lbaas/loadbalancers/{id}/failover` → 202 (admin only by default).
pub async fn failover(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
) -> Result<StatusCode, ApiError> {
    list::no_query(&q, &[])?;
    let mut tx = st.db().begin().await?;
    let lb = get_db_lb(&mut tx, &id).await?;
    policy::authorize(
        &ctx,
        "loadbalancer",
        "put_failover",
        lb.project_id.as_deref(),
    )?;
    let Provider {
        name: pname,
        driver,
    } = Provider::of(&st, &lb)?;
    tx.lock_lb_and_set(
        &id,
        &[ProvisioningStatus::Active, ProvisioningStatus::Error],
        ProvisioningStatus::PendingUpdate,
    )
    .await?;
    call_provider(&mut tx, &pname, driver.loadbalancer_failover(&id)).await?;
    tx.commit().await?;
    Ok(StatusCode::ACCEPTED)
}

/// The routes of load balancers, as `octavia/api/v2/controllers/load_balancer.py` serves them; [`crate::router`]
/// merges them under its layers.
pub(crate) fn routes() -> axum::Router<AppState> {
    use axum::routing::{self, get};
    axum::Router::new()
        .route("/v2/lbaas/loadbalancers", get(get_all).post(post))
        .route(
            "/v2/lbaas/loadbalancers/{id}",
            get(get_one).put(put).delete(delete),
        )
        .route("/v2/lbaas/loadbalancers/{id}/status", get(get_status))
        .route("/v2/lbaas/loadbalancers/{id}/statuses", get(get_status))
        .route("/v2/lbaas/loadbalancers/{id}/stats", get(get_stats))
        .route(
            "/v2/lbaas/loadbalancers/{id}/failover",
            routing::put(failover),
        )
}

#[cfg(test)]
mod tests {
    #[test]
    fn cidr_membership() {
        assert!(super::vip::cidr_contains("10.0.0.0/24", "10.0.0.7"));
        assert!(!super::vip::cidr_contains("10.0.0.0/24", "10.0.1.7"));
        assert!(super::vip::cidr_contains("fd00::/64", "fd00::5"));
    }
}
