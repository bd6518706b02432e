//! `PUT /v2/lbaas/pools/{pool_id}/members`: the batch member update, as
//! `octavia/api/v2/controllers/member.py` `MembersController.put`.

use std::collections::{BTreeMap, BTreeSet};

use axum::Extension;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use octavia_db::{MemberRow, PoolRow, QuotaResource, Tx};
use provider::ProvisioningStatus;

use tokio::task::JoinHandle;
use tracing::Instrument;

use super::body::*;
use super::{
    Changes, check_sriov, duplicate, ip_not_reserved, new_row, route_pool, subnet_exists,
    subnet_verdict,
};
use crate::context::RequestContext;
use crate::fault::ApiError;
use crate::lookup::{get_db_lb, lock_pool_child, quota_limits};
use crate::network::{NetworkError, SubnetInfo};
use crate::provider_call::call_provider;
use crate::state::AppState;
use crate::target::Provider;
use crate::types::parse_list_typed;
use crate::{list, policy, provider_model, related};

/// A member's identity in a batch: (address, protocol_port).
type Key = (String, i64);

fn key_of(m: &MemberRow) -> Key {
    (
        m.ip_address.clone().unwrap_or_default(),
        i64::from(m.protocol_port),
    )
}

/// `PUT /v2/lbaas/pools/{pool_id}/members[?additive_only=true]` → 202 with no body.
///
/// Members are matched by (address, protocol_port): new ones are created PENDING_CREATE,
/// listed ones whose fields differ are updated PENDING_UPDATE, unlisted ones go PENDING_DELETE
/// (left untouched with `additive_only`). The driver gets `member_batch_update(pool_id,
/// desired)` with the complete desired set (new, listed, and — additive — untouched members).
/// When nothing is created, changed or deleted the call is a no-op: no lock, no driver call
/// (the reference marks listed unchanged members PENDING_UPDATE; Keel leaves them alone so
/// that every PENDING_* state has a provider status to return it).
pub async fn batch_put(
    State(st): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Path(pool_id): Path<String>,
    Query(q): Query<Vec<(String, String)>>,
    body: Bytes,
) -> Result<StatusCode, ApiError> {
    list::no_query(&q, &["additive_only"])?;
    let additive = q
        .iter()
        .find(|(k, _)| k == "additive_only")
        .is_some_and(|(_, v)| crate::pagination::bool_from_string(v));
    let mut tx = st.db().begin().await?;
    let pool = route_pool(&mut tx, &pool_id).await?;
    let items: Vec<MemberPost> = parse_list_typed(&body, "members_", "members", &MEMBER_POST)?;
    let lb = get_db_lb(
        &mut tx,
        pool.load_balancer_id.as_deref().unwrap_or_default(),
    )
    .await?;
    let project = lb.project_id.clone().unwrap_or_default();
    policy::authorize(&ctx, "member", "post", Some(&project))?;
    policy::authorize(&ctx, "member", "put", Some(&project))?;
    if !additive {
        policy::authorize(&ctx, "member", "delete", Some(&project))?;
    }
    let Provider {
        name: pname,
        driver,
    } = Provider::of(&st, &lb)?;
    let mut checks = SubnetChecks::start(&st, &ctx, &items);
    let old = related::pool_members(&mut tx, &pool_id).await?;
    let plan = Plan::sort(&st, &mut tx, &old, &items).await?;
    let changed = plan.updated.iter().any(|(_, _, ch)| !ch.is_empty());
    if plan.new.is_empty() && !changed && (additive || plan.absent.is_empty()) {
        return Ok(StatusCode::ACCEPTED);
    }
    if !ctx.noauth {
        charge_quota(&st, &mut tx, &project, &plan, additive).await?;
    }
    let has_hm = related::pool_hm(&mut tx, &pool_id).await?.is_some();
    lock_pool_child(&mut tx, &pool).await?;
    let new = NewMembers {
        pool: &pool,
        project: &project,
        has_hm,
        items: &plan.new,
    };
    let mut desired = insert_new(&st, &ctx, &mut tx, &mut checks, new).await?;
    for (m, it, ch) in &plan.updated {
        if !ch.is_empty() {
            tx.update::<MemberRow>(&m.id, ch).await?;
        }
        if let Some(tags) = &it.tags {
            tx.set_tags(&m.id, tags).await?;
        }
        // a member the entry leaves as it was is the row already read
        if ch.is_empty() {
            desired.push(provider_model::member_model(m));
        } else {
            let now: MemberRow = tx.get(&m.id).await?;
            desired.push(provider_model::member_model(&now));
        }
    }
    if additive {
        desired.extend(plan.absent.iter().map(|m| provider_model::member_model(m)));
    } else if !plan.absent.is_empty() {
        let ids: Vec<String> = plan.absent.iter().map(|m| m.id.clone()).collect();
        tx.update_many::<MemberRow>(
            &ids,
            &[(
                "provisioning_status",
                ProvisioningStatus::PendingDelete.into(),
            )],
        )
        .await?;
    }
    call_provider(
        &mut tx,
        &pname,
        driver.member_batch_update(&pool_id, desired),
    )
    .await?;
    tx.commit().await?;
    Ok(StatusCode::ACCEPTED)
}

/// A batch sorted against the pool's members: entries to create, entries matching a member
/// (with the columns they change, PENDING_UPDATE added when anything does), and members the
/// batch does not list.
struct Plan<'a> {
    new: Vec<&'a MemberPost>,
    updated: Vec<(&'a MemberRow, &'a MemberPost, Changes)>,
    absent: Vec<&'a MemberRow>,
}

impl<'a> Plan<'a> {
    /// Errors: 400 for a reserved address, a new (address, port) listed twice (`Duplicate`),
    /// or an existing member listed twice (`Member must be updated only once in the same
    /// request.`).
    async fn sort(
        st: &AppState,
        tx: &mut Tx,
        old: &'a [MemberRow],
        items: &'a [MemberPost],
    ) -> Result<Plan<'a>, ApiError> {
        let by_key: BTreeMap<Key, &MemberRow> = old.iter().map(|m| (key_of(m), m)).collect();
        let mut plan = Plan {
            new: Vec::new(),
            updated: Vec::new(),
            absent: Vec::new(),
        };
        let mut seen: BTreeSet<Key> = BTreeSet::new();
        let mut new_keys: BTreeSet<Key> = BTreeSet::new();
        for it in items {
            let key = (it.address.clone(), it.protocol_port);
            let Some(m) = by_key.get(&key) else {
                ip_not_reserved(st, &key.0)?;
                if !new_keys.insert(key.clone()) {
                    return Err(duplicate(&key.0, key.1));
                }
                plan.new.push(it);
                continue;
            };
            if !seen.insert(key) {
                return Err(ApiError::Validation(
                    "Member must be updated only once in the same request.".into(),
                ));
            }
            let mut ch = batch_changes(it, m);
            if !ch.is_empty() || tags_change(tx, it, m).await? {
                ch.push((
                    "provisioning_status",
                    ProvisioningStatus::PendingUpdate.into(),
                ));
            }
            plan.updated.push((m, it, ch));
        }
        plan.absent = old.iter().filter(|m| !seen.contains(&key_of(m))).collect();
        Ok(plan)
    }
}

/// True when the entry sends tags other than the member's (order ignored).
async fn tags_change(tx: &mut Tx, it: &MemberPost, m: &MemberRow) -> Result<bool, ApiError> {
    let Some(want) = &it.tags else {
        return Ok(false);
    };
    let mut want = want.0.clone();
    let mut have = tx.tags(&m.id).await?;
    want.sort();
    have.sort();
    Ok(want != have)
}

/// Octavia checks the net growth; every new member is charged, since each removed one gives
/// its unit back when its DELETED status arrives (octavia-db `check_and_charge_quota`).
async fn charge_quota(
    st: &AppState,
    tx: &mut Tx,
    project: &str,
    plan: &Plan<'_>,
    additive: bool,
) -> Result<(), ApiError> {
    let new = plan.new.len() as i64;
    let diff = if additive {
        new
    } else {
        new - plan.absent.len() as i64
    };
    if diff <= 0 && new == 0 {
        return Ok(());
    }
    tx.check_and_charge_quota(
        project,
        QuotaResource::Member,
        (diff > 0).then(|| i32::try_from(diff).unwrap_or(i32::MAX)),
        i32::try_from(new).unwrap_or(i32::MAX),
        &quota_limits(st),
    )
    .await?;
    Ok(())
}

/// How many distinct subnets of one batch are checked ahead ([`SubnetChecks`]); any
/// further one is checked when its member's turn comes.
const SUBNET_CHECKS_AHEAD: usize = 16;

/// The Neutron lookups of the subnets a batch names (Octavia's `subnet_exists`, with the
/// caller's token), started as soon as the request is authorized, so that Neutron's answer
/// (~20 ms on the stack; the same token's read of the last 30 s answers at once) comes while
/// the transaction reads, locks and inserts. Each is awaited where the batch needs its
/// verdict. Dropped with the request (an earlier error), the unawaited ones are aborted.
struct SubnetChecks(BTreeMap<String, JoinHandle<Result<Option<SubnetInfo>, NetworkError>>>);

impl SubnetChecks {
    /// One lookup per distinct `subnet_id` of `items` (all of them: which members are new is
    /// known only after the pool's members are read), at most [`SUBNET_CHECKS_AHEAD`]; none
    /// without Neutron lookups configured.
    fn start(st: &AppState, ctx: &RequestContext, items: &[MemberPost]) -> Self {
        let mut started = BTreeMap::new();
        let Some(net) = st.networking() else {
            return Self(started);
        };
        for s in items.iter().filter_map(|it| it.subnet_id.as_ref()) {
            if started.len() == SUBNET_CHECKS_AHEAD {
                break;
            }
            if started.contains_key(s) {
                continue;
            }
            let (net, token, id) = (net.clone(), ctx.auth_token.clone(), s.clone());
            let lookup = async move { net.get_subnet(token.as_deref(), &id).await };
            started.insert(s.clone(), tokio::spawn(lookup.in_current_span()));
        }
        Self(started)
    }

    /// The verdict on `subnet` ([`subnet_verdict`]): its lookup's answer, or a lookup now
    /// when none was started (or it did not finish).
    async fn verdict(
        &mut self,
        st: &AppState,
        ctx: &RequestContext,
        subnet: &str,
    ) -> Result<Option<SubnetInfo>, ApiError> {
        if let Some(lookup) = self.0.remove(subnet)
            && let Ok(answer) = lookup.await
        {
            return subnet_verdict(answer, subnet).map(Some);
        }
        subnet_exists(st, ctx, subnet).await
    }

    /// Each distinct subnet of `members`, in list order, until the first refused: the
    /// subnets Neutron answered, by id (none without Neutron lookups).
    async fn check_all(
        &mut self,
        st: &AppState,
        ctx: &RequestContext,
        members: &[&MemberPost],
    ) -> Result<BTreeMap<String, SubnetInfo>, ApiError> {
        let mut found = BTreeMap::new();
        let mut checked: BTreeSet<&String> = BTreeSet::new();
        for s in members.iter().filter_map(|it| it.subnet_id.as_ref()) {
            if checked.insert(s)
                && let Some(subnet) = self.verdict(st, ctx, s).await?
            {
                found.insert(s.clone(), subnet);
            }
        }
        Ok(found)
    }
}

impl Drop for SubnetChecks {
    fn drop(&mut self) {
        for lookup in self.0.values() {
            lookup.abort();
        }
    }
}

/// The members a batch creates, and what their rows take from the pool.
struct NewMembers<'a> {
    pool: &'a PoolRow,
    /// The load balancer's project.
    project: &'a str,
    /// The pool has a health monitor (new members start OFFLINE, else NO_MONITOR).
    has_hm: bool,
    items: &'a [&'a MemberPost],
}

/// The new members in a few multi-row INSERTs, then their tags; each subnet checked once
/// (400 when Neutron does not know it). Returns their provider models, each with its subnet
/// as Neutron answered ([`provider::Member::subnet`]).
///
/// Octavia checks each new member in list order, its subnet then SR-IOV, and stops at the
/// first refusal; that is the error given here too. The subnets' verdicts are awaited after
/// the INSERTs (a refusal rolls them back with the transaction), so that the lookups
/// [`SubnetChecks`] started have the transaction's work to overlap.
async fn insert_new(
    st: &AppState,
    ctx: &RequestContext,
    tx: &mut Tx,
    checks: &mut SubnetChecks,
    new: NewMembers<'_>,
) -> Result<Vec<provider::Member>, ApiError> {
    let mut rows: Vec<MemberRow> = Vec::with_capacity(new.items.len());
    for (i, it) in new.items.iter().enumerate() {
        let vnic = match check_sriov(it) {
            Ok(vnic) => vnic,
            Err(e) => {
                // the subnets of the members up to this one are judged first
                checks.check_all(st, ctx, &new.items[..=i]).await?;
                return Err(e);
            }
        };
        let mut row = new_row(it, new.pool, new.has_hm, vnic);
        row.project_id = Some(new.project.to_string());
        rows.push(row);
    }
    tx.insert_many(&rows).await?;
    let mut models = Vec::with_capacity(rows.len());
    for (it, row) in new.items.iter().zip(&rows) {
        if let Some(tags) = &it.tags {
            tx.set_tags(&row.id, tags).await?;
        }
        models.push(provider_model::member_model(row));
    }
    let subnets = checks.check_all(st, ctx, new.items).await?;
    for m in &mut models {
        m.subnet = m.subnet_id.as_ref().and_then(|s| subnets.get(s).cloned());
    }
    Ok(models)
}

/// The columns a batch entry writes on an existing member: those of `weight`,
/// `admin_state_up`, `backup` and `monitor_*` as a create would write them ([`MemberPost`]'s
/// declaration: left out, their defaults), `name` only when given; only what differs.
fn batch_changes(b: &MemberPost, m: &MemberRow) -> Changes {
    let mut want = m.clone();
    b.write_row(&mut want);
    let mut ch: Changes = Vec::new();
    if m.weight != want.weight {
        ch.push(("weight", want.weight.into()));
    }
    if m.enabled != want.enabled {
        ch.push(("enabled", want.enabled.into()));
    }
    if m.backup != want.backup {
        ch.push(("backup", want.backup.into()));
    }
    if m.monitor_address != want.monitor_address {
        ch.push(("monitor_address", want.monitor_address.into()));
    }
    if m.monitor_port != want.monitor_port {
        ch.push(("monitor_port", want.monitor_port.into()));
    }
    if b.name.given() && m.name != want.name {
        ch.push(("name", want.name.into()));
    }
    ch
}

/// The route of a pool's member collection, as `octavia/api/v2/controllers/member.py`
/// serves it: list and create (the member handlers) and the batch update (here).
pub(crate) fn routes() -> axum::Router<AppState> {
    axum::Router::new().route(
        "/v2/lbaas/pools/{pool_id}/members",
        axum::routing::get(super::get_all)
            .post(super::post)
            .put(batch_put),
    )
}
