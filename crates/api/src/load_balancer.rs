//! `/v2/lbaas/loadbalancers`, as `octavia/api/v2/controllers/load_balancer.py`.

use axum::body::Bytes;
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
use crate::listing;
use crate::lookup::{get_db_lb, lb_stats, quota_limits};
use crate::pagination::ListParams;
use crate::policy;
use crate::provider_call::call_provider;
use crate::render::LB_ATTRS;
use crate::state::AppState;
use crate::types::{load_balancer::*, parse_typed};
use crate::{columns, list, provider_call, provider_model, related, render};

pub mod graph;

type Q = Query<Vec<(String, String)>>;

/// `GET /v2/lbaas/loadbalancers`. Without `fields=` the page is written as text
/// ([`listing::page_text`]).
pub async fn get_all(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    headers: HeaderMap,
    Query(q): Q,
) -> Result<Response, ApiError> {
    let params = ListParams::parse(&q, st.config().pagination_max_limit, st.config())?;
    let scope = policy::list_scope(&ctx, "loadbalancer", params.project_filter())?;
    let mut tx = st.db().begin_read().await?;
    let c = listing::Collection {
        spec: &listing::LB,
        attrs: LB_ATTRS,
        path: "/v2/lbaas/loadbalancers",
        key: "loadbalancers",
    };
    let conds = listing::project_scope(&scope);
    if params.fields.is_empty() {
        let key: fn(&LoadBalancerRow) -> &str = |r| &r.id;
        if let Some(text) = listing::page_text(
            &st,
            &headers,
            &mut tx,
            &c,
            &params,
            conds,
            key,
            render::render_lbs_text,
        )
        .await?
        {
            return Ok(listing::json_text(text));
        }
    } else if let Some(body) = listing::page(
        &st,
        &headers,
        &mut tx,
        &c,
        &params,
        conds,
        render::render_lbs,
    )
    .await?
    {
        return Ok(Json(body).into_response());
    }
    Ok(Json(get_all_in_memory(&st, &headers, &mut tx, &scope, &params).await?).into_response())
}

/// The in-memory answer of [`get_all`]: every object of the caller's scope rendered, then filtered,
/// sorted and paged as `octavia/api/common/pagination.py` does ([`crate::pagination::apply`]). It
/// answers what SQL does not express ([`crate::listing::Attr::Memory`]); `tests/list_sql.rs`
/// compares the SQL path against it. Errors: the 400s of a bad filter, sort key or marker, the
/// database's.
pub async fn get_all_in_memory(
    st: &AppState,
    headers: &HeaderMap,
    tx: &mut Tx,
    scope: &Option<String>,
    params: &ListParams,
) -> Result<Value, ApiError> {
    let rows: Vec<LoadBalancerRow> = list::visible(tx, scope, vec![]).await?;
    let mut all = Vec::with_capacity(rows.len());
    for r in &rows {
        all.push(render::render_lb(tx, r).await?);
    }
    list::collection(
        st,
        headers,
        "/v2/lbaas/loadbalancers",
        "loadbalancers",
        all,
        params,
        LB_ATTRS,
    )
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
    let lb = get_db_lb(&mut tx, &id).await?;
    policy::authorize(&ctx, "loadbalancer", "get_one", lb.project_id.as_deref())?;
    let body = render::render_lb(&mut tx, &lb).await?;
    Ok(Json(json!({ "loadbalancer": list::select(body, &fields) })))
}

/// The VIP after validation: `(subnet, network, port, address, qos)`.
#[derive(Debug, Default)]
struct VipReq {
    subnet_id: Option<String>,
    network_id: Option<String>,
    port_id: Option<String>,
    address: Option<String>,
    qos_policy_id: Option<String>,
}

/// `_validate_vip_request_object`: allowed VIP forms, then Neutron lookups with the caller's token.
async fn validate_vip(st: &AppState, ctx: &RequestContext, b: &LbPost) -> Result<VipReq, ApiError> {
    let cfg = st.config();
    let mut v = VipReq {
        subnet_id: b.vip_subnet_id.clone(),
        network_id: b.vip_network_id.clone(),
        port_id: b.vip_port_id.clone(),
        address: b.vip_address.clone(),
        qos_policy_id: b.vip_qos_policy_id.clone(),
    };
    for (given, allowed, n) in [
        (v.port_id.is_some(), cfg.allow_vip_port_id, "vip_port_id"),
        (
            v.network_id.is_some(),
            cfg.allow_vip_network_id,
            "vip_network_id",
        ),
        (
            v.subnet_id.is_some(),
            cfg.allow_vip_subnet_id,
            "vip_subnet_id",
        ),
    ] {
        if given && !allowed {
            return Err(ApiError::Validation(format!(
                "use of {n} is disallowed by this deployment's configuration."
            )));
        }
    }
    if v.port_id.is_none() && v.network_id.is_none() && v.subnet_id.is_none() {
        let allowed: Vec<&str> = [
            (cfg.allow_vip_port_id, "vip_port_id"),
            (cfg.allow_vip_network_id, "vip_network_id"),
            (cfg.allow_vip_subnet_id, "vip_subnet_id"),
        ]
        .iter()
        .filter(|(a, _)| *a)
        .map(|(_, n)| *n)
        .collect();
        return Err(ApiError::Validation(format!(
            "VIP must contain one of: {}.",
            allowed.join(", ")
        )));
    }
    let Some(net) = st.networking() else {
        return Ok(v);
    };
    let token = ctx.auth_token.as_deref();
    let internal = ApiError::from;
    if let Some(port_id) = v.port_id.clone() {
        let port = net
            .get_port(token, &port_id)
            .await
            .map_err(internal)?
            .ok_or_else(|| ApiError::InvalidSubresource {
                resource: "Port".into(),
                id: port_id.clone(),
            })?;
        if !port.device_id.is_empty() {
            return Err(ApiError::Validation(format!(
                "Port {port_id} is already used by device {} ",
                port.device_id
            )));
        }
        v.network_id = Some(port.network_id.clone());
        if v.qos_policy_id.is_none() {
            v.qos_policy_id = port.qos_policy_id.clone();
        }
        match (&v.subnet_id, &v.address) {
            (Some(s), _) => {
                let ip = port.fixed_ips.iter().find(|(sub, _)| sub == s).ok_or_else(|| ApiError::Validation("No VIP address found on the specified VIP port within the specified subnet.".into()))?;
                v.address = Some(ip.1.clone());
            }
            (None, Some(a)) => {
                let ip = port
                    .fixed_ips
                    .iter()
                    .find(|(_, ip)| ip == a)
                    .ok_or_else(|| {
                        ApiError::Validation(
                            "Specified VIP address not found on the specified VIP port.".into(),
                        )
                    })?;
                v.subnet_id = Some(ip.0.clone());
            }
            (None, None) => {
                if port.fixed_ips.len() != 1 {
                    return Err(ApiError::Validation("VIP port's subnet could not be determined. Please specify either a VIP subnet or address.".into()));
                }
                v.subnet_id = Some(port.fixed_ips[0].0.clone());
                v.address = Some(port.fixed_ips[0].1.clone());
            }
        }
    } else if let Some(network_id) = v.network_id.clone() {
        let network = net
            .get_network(token, &network_id)
            .await
            .map_err(internal)?
            .ok_or_else(|| ApiError::InvalidSubresource {
                resource: "Network".into(),
                id: network_id.clone(),
            })?;
        if let Some(s) = &v.subnet_id {
            if !network.subnets.contains(s) {
                return Err(ApiError::InvalidSubresource {
                    resource: "Subnet".into(),
                    id: s.clone(),
                });
            }
        } else if network.subnets.is_empty() {
            return Err(ApiError::Validation(
                "Supplied network does not contain a subnet.".into(),
            ));
        } else if let Some(addr) = v.address.clone() {
            let mut found = None;
            for s in &network.subnets {
                if let Some(sub) = net.get_subnet(token, s).await.map_err(internal)?
                    && cidr_contains(&sub.cidr, &addr)
                {
                    found = Some(sub.id);
                    break;
                }
            }
            v.subnet_id = Some(found.ok_or_else(|| {
                ApiError::Validation(
                    "Supplied network does not contain a subnet for VIP address specified.".into(),
                )
            })?);
        } else {
            let mut subs = Vec::new();
            for s in &network.subnets {
                if let Some(sub) = net.get_subnet(token, s).await.map_err(internal)? {
                    subs.push(sub);
                }
            }
            subs.sort_by_key(|s| s.ip_version);
            v.subnet_id = subs.first().map(|s| s.id.clone());
        }
    } else if let Some(subnet_id) = v.subnet_id.clone() {
        let sub = net
            .get_subnet(token, &subnet_id)
            .await
            .map_err(internal)?
            .ok_or_else(|| ApiError::InvalidSubresource {
                resource: "Subnet".into(),
                id: subnet_id.clone(),
            })?;
        if let Some(a) = &v.address
            && !cidr_contains(&sub.cidr, a)
        {
            return Err(ApiError::Validation(format!(
                "VIP address {a} is not in subnet {subnet_id}."
            )));
        }
        v.network_id = Some(sub.network_id);
    }
    // the given policy, or the one the VIP port carries (load_balancer.py)
    if let Some(qos) = v.qos_policy_id.as_deref() {
        crate::network::validate_qos_policy(net.as_ref(), token, Some(qos)).await?;
    }
    if let Some(sgs) = b.vip_sg_ids.value() {
        crate::network::validate_security_groups(net.as_ref(), token, sgs).await?;
    }
    Ok(v)
}

/// Each additional VIP's subnet exists and shares the VIP's network, before anything is made
/// (load_balancer.py `_validate_subnets_share_network_but_no_duplicates`: 400 `Subnet <id> not
/// found`, 400 `All VIP subnets must belong to the same network.`). Without this check the
/// provider's port create failed on the missing subnet and the client got a 500.
async fn validate_additional_subnets(
    st: &AppState,
    ctx: &RequestContext,
    additional: &[&AdditionalVip],
    vip_network: Option<&str>,
) -> Result<(), ApiError> {
    let Some(net) = st.networking() else {
        return Ok(());
    };
    let token = ctx.auth_token.as_deref();
    for subnet_id in additional.iter().map(|a| &a.subnet_id) {
        let sub = net
            .get_subnet(token, subnet_id)
            .await
            .map_err(ApiError::from)?
            .ok_or_else(|| ApiError::Validation(format!("Subnet {subnet_id} not found")))?;
        if vip_network.is_some_and(|n| n != sub.network_id) {
            return Err(ApiError::Validation(
                "All VIP subnets must belong to the same network.".into(),
            ));
        }
    }
    Ok(())
}

/// True when `addr` lies in `cidr`.
pub fn cidr_contains(cidr: &str, addr: &str) -> bool {
    let (Some(net), Ok(ip)) = (
        crate::types::normalise_cidr(cidr),
        addr.parse::<std::net::IpAddr>(),
    ) else {
        return false;
    };
    let Some((_, len)) = net.split_once('/') else {
        return false;
    };
    crate::types::normalise_cidr(&format!("{ip}/{len}")).as_deref() == Some(net.as_str())
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
    body: Bytes,
) -> Result<Response, ApiError> {
    list::no_query(&q, &[])?;
    let b: LbPost = parse_typed(&body, "load_balancer", "loadbalancer", &LB_POST)?;
    let project = b
        .project_id
        .clone()
        .or_else(|| ctx.project_id.clone())
        .ok_or_else(|| ApiError::Validation(MISSING_PROJECT.into()))?;
    // Octavia takes any string of 36; Neutron answers a 5xx for a port whose project has a
    // NUL (found by the OpenAPI fuzz through the OVN provider), and no Keystone project id
    // holds a control character: refused here, before anything is written or asked
    if project.chars().any(char::is_control) {
        return Err(ApiError::invalid_input(
            "project_id",
            project.escape_debug().to_string(),
            "a project id has no control characters",
        ));
    }
    policy::authorize(&ctx, "loadbalancer", "post", Some(&project))?;
    if b.vip_sg_ids.given() {
        policy::authorize(&ctx, "loadbalancer", "post:vip_sg_ids", Some(&project))?;
    }
    let vip = validate_vip(&st, &ctx, &b).await?;
    let add_req = b.additional_vips();
    let mut seen = std::collections::BTreeSet::new();
    for a in &add_req {
        if !seen.insert(&a.subnet_id) || vip.subnet_id.as_ref() == Some(&a.subnet_id) {
            return Err(ApiError::Validation(
                "Duplicate VIP subnet(s) specified. Only one IP can be bound per subnet.".into(),
            ));
        }
    }
    validate_additional_subnets(&st, &ctx, &add_req, vip.network_id.as_deref()).await?;
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
    let id = columns::new_id();
    let lb = LoadBalancerRow {
        project_id: Some(project.clone()),
        id: id.clone(),
        name: b.name.clone(),
        description: b.description.clone(),
        provisioning_status: ProvisioningStatus::PendingCreate.into(),
        operating_status: OperatingStatus::Offline.into(),
        enabled: b.admin_state_up.on_create(),
        topology: Some("SINGLE".into()),
        provider: Some(provider_name.clone()),
        flavor_id: b.flavor_id.clone(),
        availability_zone: b.availability_zone.clone(),
        ..Default::default()
    };
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
    let sg_ids: Vec<String> = b
        .vip_sg_ids
        .value()
        .map(|s| s.0.clone())
        .unwrap_or_default();
    for sg in &sg_ids {
        tx.insert(&octavia_db::VipSecurityGroupRow {
            load_balancer_id: id.clone(),
            sg_id: sg.clone(),
        })
        .await?;
    }
    if let Some(tags) = &b.tags {
        tx.set_tags(&id, tags).await?;
    }
    let pvip = provider::Vip {
        vip_address: vip.address.clone(),
        vip_network_id: vip.network_id.clone(),
        vip_port_id: vip.port_id.clone(),
        vip_subnet_id: vip.subnet_id.clone(),
        vip_qos_policy_id: vip.qos_policy_id.clone(),
        vip_sg_ids: if sg_ids.is_empty() {
            None
        } else {
            Some(sg_ids.clone())
        },
        octavia_owned: None,
    };
    let padd: Vec<provider::AdditionalVip> = add_req
        .iter()
        .map(|a| provider::AdditionalVip {
            ip_address: a.ip_address.clone(),
            network_id: vip.network_id.clone(),
            port_id: a.port_id.clone(),
            subnet_id: Some(a.subnet_id.clone()),
        })
        .collect();
    // The tree is validated and written before the VIP port exists, so a 400/403 on a child
    // leaves no port behind (the reference creates the port first).
    let created = if plan.is_empty() {
        None
    } else {
        Some(graph::create(&st, &ctx, &mut tx, &lb, plan).await?)
    };
    // a Neutron port no rollback removes: this request never runs again (retry)
    crate::retry::side_effect();
    let (got, got_add) = call_provider(
        &mut tx,
        &provider_name,
        driver.create_vip_port(&id, &project, pvip, padd),
    )
    .await?;
    // the ports the driver made (not a user's `vip_port_id`): every failure from here on
    // deletes them, so a refused create leaves no port behind
    let mut made: Vec<String> = Vec::new();
    if vip.port_id.is_none() {
        made.extend(got.vip_port_id.clone());
    }
    for (a, req) in got_add.iter().zip(&add_req) {
        if req.port_id.is_none() {
            made.extend(a.port_id.clone());
        }
    }
    let rest: Result<Value, ApiError> = async {
        tx.update::<VipRow>(
            &id,
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
                ("octavia_owned", SqlValue::from(got.octavia_owned)),
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
        let mut model = provider_model::lb_model(&mut tx, &lb).await?;
        if flavor_meta.as_object().is_some_and(|m| !m.is_empty()) {
            call_provider(
                &mut tx,
                &provider_name,
                driver.validate_flavor(&flavor_meta),
            )
            .await?;
        }
        if az_meta.as_object().is_some_and(|m| !m.is_empty()) {
            call_provider(
                &mut tx,
                &provider_name,
                driver.validate_availability_zone(&az_meta),
            )
            .await?;
        }
        model.flavor = Some(flavor_meta);
        model.availability_zone = Some(az_meta);
        if let Some(created) = &created {
            let (listeners, pools) = graph::provider_models(&mut tx, created).await?;
            model.listeners = Some(listeners);
            model.pools = Some(pools);
        }
        call_provider(&mut tx, &provider_name, driver.loadbalancer_create(model)).await?;
        let lb_now = get_db_lb(&mut tx, &id).await?;
        // `LoadBalancerFullRootResponse`: listeners and pools rendered in full.
        let body = graph::render_full(&mut tx, &lb_now, created.as_ref()).await?;
        tx.commit().await?;
        Ok(body)
    }
    .await;
    let body = match rest {
        Ok(body) => body,
        Err(e) => {
            if !made.is_empty()
                && let Err(de) = driver.delete_vip_ports(&id, made).await
            {
                tracing::warn!(lb = %id, error = %de, "VIP ports of a refused create left behind");
            }
            return Err(e);
        }
    };
    Ok((StatusCode::CREATED, Json(json!({ "loadbalancer": body }))).into_response())
}

/// `PUT /v2/lbaas/loadbalancers/{id}` → 200, LB in PENDING_UPDATE.
pub async fn put(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(id): Path<String>,
    Query(q): Q,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    list::no_query(&q, &[])?;
    let b: LbPut = parse_typed(&body, "load_balancer", "loadbalancer", &LB_PUT)?;
    let mut tx = st.db().begin().await?;
    let lb = get_db_lb(&mut tx, &id).await?;
    policy::authorize(&ctx, "loadbalancer", "put", lb.project_id.as_deref())?;
    if b.vip_sg_ids.given() {
        policy::authorize(
            &ctx,
            "loadbalancer",
            "put:vip_sg_ids",
            lb.project_id.as_deref(),
        )?;
    }
    if let (Some(given), Some(net)) = (b.vip_qos_policy_id.sent(), st.networking()) {
        // a changed policy is looked up; null or the same one needs only the extension
        let stored: Option<VipRow> = tx.find(&id).await?;
        let lookup = given
            .map(String::as_str)
            .filter(|g| stored.and_then(|v| v.qos_policy_id).as_deref() != Some(*g));
        crate::network::validate_qos_policy(net.as_ref(), ctx.auth_token.as_deref(), lookup)
            .await?;
    }
    // each named group must exist; null is no group (load_balancer.py `put`)
    if let (Some(sgs), Some(net)) = (b.vip_sg_ids.value(), st.networking()) {
        crate::network::validate_security_groups(net.as_ref(), ctx.auth_token.as_deref(), sgs)
            .await?;
    }
    let pname = provider_call::lb_provider(&lb);
    let driver = st.driver(&pname)?;
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
    let mut changes: Vec<(&str, SqlValue)> = Vec::new();
    if let Some(n) = b.name.sent() {
        changes.push(("name", n.cloned().into()));
        new.name = Some(n.cloned().unwrap_or_default());
    }
    if let Some(d) = b.description.sent() {
        changes.push(("description", d.cloned().into()));
        new.description = Some(d.cloned().unwrap_or_default());
    }
    if let Some(a) = b.admin_state_up.sent() {
        let a = a.copied().unwrap_or(false);
        changes.push(("enabled", a.into()));
        new.admin_state_up = Some(a);
    }
    tx.update::<LoadBalancerRow>(&id, &changes).await?;
    if let Some(q) = b.vip_qos_policy_id.sent() {
        tx.update::<VipRow>(&id, &[("qos_policy_id", q.cloned().into())])
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
            vec![id.as_str().into()],
        )
        .await?;
        for sg in &sgs {
            tx.insert(&octavia_db::VipSecurityGroupRow {
                load_balancer_id: id.clone(),
                sg_id: sg.clone(),
            })
            .await?;
        }
        new.vip_sg_ids = Some(sgs);
    }
    if let Some(tags) = b.tags.sent() {
        tx.set_tags(&id, tags.map_or(&[][..], |t| &t[..])).await?;
    }
    call_provider(&mut tx, &pname, driver.loadbalancer_update(old, new)).await?;
    let lb_now = get_db_lb(&mut tx, &id).await?;
    let body = render::render_lb(&mut tx, &lb_now).await?;
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
    let lb = get_db_lb(&mut tx, &id).await?;
    policy::authorize(&ctx, "loadbalancer", "delete", lb.project_id.as_deref())?;
    let pname = provider_call::lb_provider(&lb);
    let driver = st.driver(&pname)?;
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
    let pname = provider_call::lb_provider(&lb);
    let driver = st.driver(&pname)?;
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

#[cfg(test)]
mod tests {
    #[test]
    fn cidr_membership() {
        assert!(super::cidr_contains("10.0.0.0/24", "10.0.0.7"));
        assert!(!super::cidr_contains("10.0.0.0/24", "10.0.1.7"));
        assert!(super::cidr_contains("fd00::/64", "fd00::5"));
    }
}
