//! Collection GETs in SQL answer exactly what the in-memory path answered.
//!
//! One fixed data set (three projects; NULL, empty and duplicate names; every provisioning and
//! operating status, DELETED rows included; tags; created_at ties and a NULL; VIPs with and
//! without the optional columns) is written straight into the database. Two routers serve it:
//! the API's router (SQL: `api::listing`), and the oracle [`in_memory`]: the request's prologue
//! (parameters, scope or parent authorization, as each handler) and then the collection's
//! in-memory path (`api::list::in_memory`: every object of the caller's scope rendered, then
//! `pagination::apply`), called directly. For each collection and
//! caller (admin = global, a project member = scoped) every combination of filters × tag filters
//! × sort keys/directions (with limit, marker and page_reverse varying along), and every
//! combination of sort × limit × marker × page_reverse, must give the same status and the same
//! body, item by item and link by link; and walking the `next` links from the first page gives
//! the same pages. On SQLite and MariaDB.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use std::sync::Arc;

use api::policy::Policy;
use api::{ApiConfig, AppState, AuthMode};
use axum::body::Body;
use axum::http::Request;
use chrono::NaiveDateTime;
use common::{Env, P1, P2, Setup};
use octavia_db::{
    AdditionalVipRow, AvailabilityZoneProfileRow, AvailabilityZoneRow, FlavorProfileRow, FlavorRow,
    HealthMonitorRow, L7PolicyRow, L7RuleRow, ListenerRow, LoadBalancerRow, MemberRow, PoolRow,
    SessionPersistenceRow, SqlValue, VipRow,
};
use serde_json::Value;
use tower::ServiceExt;

const P3: &str = "33333333333333333333333333333333";
const PROJECTS: [&str; 3] = [P1, P2, P3];
const N_LB: usize = 24;
const N_MEMBERS: usize = 14;
const N_POLICIES: usize = 9;
const N_RULES: usize = 12;

fn id(kind: u32, i: usize) -> String {
    // ids whose order is not the creation order
    format!("{kind:08x}-0000-4000-8000-{:012}", (i * 7919) % 1009)
}

fn at(i: usize) -> Option<NaiveDateTime> {
    if i == 7 {
        return None;
    }
    NaiveDateTime::parse_from_str("2026-11-01 10:00:00", "%Y-%m-%d %H:%M:%S")
        .ok()
        .map(|t| t + chrono::Duration::seconds((i / 3) as i64))
}

fn pick<T: Clone>(v: &[T], i: usize) -> T {
    v[i % v.len()].clone()
}

const PROV: [&str; 5] = ["ACTIVE", "ACTIVE", "ERROR", "PENDING_UPDATE", "DELETED"];
const OPER: [&str; 4] = ["ONLINE", "OFFLINE", "ERROR", "ONLINE"];
const TAGS: [&str; 3] = ["a", "b", "c"];
const TLS_VERSIONS: [Option<&str>; 5] = [
    None,
    Some("TLSv1.2,TLSv1.3"),
    Some(""),
    Some("TLSv1.3"),
    Some("TLSv1.2"),
];
const ALPN: [Option<&str>; 4] = [Some("h2,http/1.1"), None, Some("http/1.1"), Some("")];

fn name(i: usize) -> Option<String> {
    pick(
        &[
            None,
            Some(""),
            Some("web"),
            Some("db"),
            Some("web"),
            Some("api"),
        ],
        i,
    )
    .map(str::to_string)
}

fn tags(i: usize) -> Vec<String> {
    (0..3)
        .filter(|b| (i * 5 + 3) >> b & 1 == 1)
        .map(|b| TAGS[b].to_string())
        .collect()
}

/// The data set; returns nothing (ids are [`id`]`(kind, i)`).
async fn seed(env: &Env) {
    let mut tx = env.db.begin().await.unwrap();
    for i in 0..N_LB {
        let lb = LoadBalancerRow {
            project_id: Some(pick(&PROJECTS, i / 2).to_string()),
            id: id(1, i),
            name: name(i),
            description: pick(&[None, Some("d1"), Some("d2")], i).map(str::to_string),
            provisioning_status: pick(&PROV, i).parse().unwrap(),
            operating_status: pick(&OPER, i).parse().unwrap(),
            enabled: i % 3 != 0,
            created_at: at(i),
            updated_at: if i % 2 == 0 { None } else { at(i + 5) },
            provider: pick(&[Some("ovn"), None, Some("amphora"), Some("")], i).map(str::to_string),
            ..Default::default()
        };
        tx.insert(&lb).await.unwrap();
        if i % 5 != 1 {
            tx.insert(&VipRow {
                load_balancer_id: lb.id.clone(),
                ip_address: Some(format!("10.0.{}.{}", i % 3, i % 4)),
                port_id: Some(id(9, i)),
                subnet_id: Some(pick(&["s1", "s2"], i).into()),
                network_id: Some("n1".into()),
                qos_policy_id: if i % 3 == 0 { Some("q1".into()) } else { None },
                octavia_owned: Some(true),
                vnic_type: pick(&["", "normal", "direct"], i).into(),
            })
            .await
            .unwrap();
        }
        if i % 4 == 2 {
            tx.insert(&AdditionalVipRow {
                load_balancer_id: lb.id.clone(),
                ip_address: Some(format!("10.2.0.{i}")),
                port_id: Some(id(12, i)),
                subnet_id: "s3".into(),
                network_id: Some("n1".into()),
            })
            .await
            .unwrap();
        }
        tx.set_tags(&lb.id, &tags(i)).await.unwrap();
        for j in 0..(1 + i % 2) {
            let k = i * 2 + j;
            let l = ListenerRow {
                project_id: lb.project_id.clone(),
                id: id(2, k),
                name: name(k + 1),
                description: pick(&[None, Some("d1")], k).map(str::to_string),
                protocol: pick(&["TCP", "HTTP", "UDP"], k).into(),
                protocol_port: pick(&[80, 443, 8080], k / 2) + j as i32,
                connection_limit: pick(&[None, Some(-1), Some(100)], k),
                load_balancer_id: Some(lb.id.clone()),
                provisioning_status: pick(&PROV, k + 1).parse().unwrap(),
                operating_status: pick(&OPER, k).parse().unwrap(),
                enabled: k % 4 != 0,
                created_at: at(k / 2),
                updated_at: at(k),
                timeout_client_data: Some(50000),
                client_authentication: "NONE".into(),
                hsts_preload: pick(&[None, Some(true), Some(false)], k),
                tls_versions: pick(&TLS_VERSIONS, k).map(str::to_string),
                alpn_protocols: pick(&ALPN, k + 1).map(str::to_string),
                insert_headers: (k % 3 == 1).then(|| {
                    let h = serde_json::json!({"X-Forwarded-For": "true"});
                    api::pickle::dumps_str_dict(h.as_object().unwrap())
                }),
                ..Default::default()
            };
            tx.insert(&l).await.unwrap();
            tx.set_tags(&l.id, &tags(k + 1)).await.unwrap();
        }
        let pool = PoolRow {
            project_id: lb.project_id.clone(),
            id: id(3, i),
            name: name(i + 2),
            description: pick(&[None, Some("d2")], i).map(str::to_string),
            protocol: pick(&["TCP", "HTTP", "UDP"], i).into(),
            lb_algorithm: pick(&["ROUND_ROBIN", "SOURCE_IP_PORT"], i).into(),
            operating_status: pick(&OPER, i + 1).parse().unwrap(),
            enabled: i % 5 != 0,
            load_balancer_id: Some(lb.id.clone()),
            created_at: at(i + 1),
            updated_at: at(i),
            provisioning_status: pick(&PROV, i + 2).parse().unwrap(),
            tls_enabled: i % 4 == 0,
            tls_versions: pick(&TLS_VERSIONS, i + 2).map(str::to_string),
            alpn_protocols: pick(&ALPN, i).map(str::to_string),
            ..Default::default()
        };
        tx.insert(&pool).await.unwrap();
        tx.set_tags(&pool.id, &tags(i + 2)).await.unwrap();
        if i % 3 == 0 {
            tx.execute(
                "UPDATE `listener` SET `default_pool_id` = ? WHERE `id` = ?",
                vec![pool.id.as_str().into(), id(2, i * 2).as_str().into()],
            )
            .await
            .unwrap();
            tx.insert(&SessionPersistenceRow {
                pool_id: pool.id.clone(),
                r#type: "SOURCE_IP".into(),
                ..Default::default()
            })
            .await
            .unwrap();
        }
        if i % 2 == 0 {
            let hm = HealthMonitorRow {
                pool_id: pool.id.clone(),
                r#type: pick(&["TCP", "HTTP", "PING"], i / 2).into(),
                delay: pick(&[5, 10], i / 2),
                timeout: 3,
                fall_threshold: pick(&[3, 2, 3], i),
                rise_threshold: pick(&[3, 1], i / 2),
                http_method: if i % 4 == 0 { Some("GET".into()) } else { None },
                enabled: i % 6 != 0,
                project_id: lb.project_id.clone(),
                provisioning_status: pick(&PROV, i / 2).parse().unwrap(),
                name: name(i / 2),
                id: id(4, i),
                created_at: at(i / 2),
                operating_status: pick(&OPER, i / 2).parse().unwrap(),
                http_version: pick(&[Some(1.1), None, Some(1.0), None], i / 2),
                ..Default::default()
            };
            tx.insert(&hm).await.unwrap();
            tx.set_tags(&hm.id, &tags(i / 2)).await.unwrap();
        }
    }
    // members of one pool, rules of one policy
    for m in 0..N_MEMBERS {
        let row = MemberRow {
            project_id: Some(P1.into()),
            id: id(5, m),
            pool_id: id(3, 0),
            subnet_id: pick(&[None, Some("s1")], m).map(str::to_string),
            ip_address: Some(format!("10.1.0.{}", m % 7)),
            protocol_port: pick(&[80, 8080], m / 7),
            weight: pick(&[Some(1), None, Some(10)], m),
            operating_status: pick(&OPER, m).parse().unwrap(),
            enabled: m % 4 != 1,
            created_at: at(m),
            updated_at: at(m / 2),
            provisioning_status: pick(&PROV, m).parse().unwrap(),
            name: name(m),
            backup: m % 3 == 2,
            vnic_type: pick(&["", "normal", "direct"], m).into(),
            monitor_port: pick(&[None, Some(9000)], m),
            ..Default::default()
        };
        tx.insert(&row).await.unwrap();
        tx.set_tags(&row.id, &tags(m)).await.unwrap();
    }
    for k in 0..N_POLICIES {
        let p = L7PolicyRow {
            id: id(6, k),
            name: name(k),
            description: None,
            listener_id: id(2, pick(&[0, 2, 3], k)),
            action: pick(&["REJECT", "REDIRECT_TO_URL"], k).into(),
            redirect_url: if k % 2 == 1 {
                Some("http://a.b/".into())
            } else {
                None
            },
            position: (k / 3 + 1) as i32,
            enabled: k % 3 != 0,
            provisioning_status: pick(&PROV, k).parse().unwrap(),
            created_at: at(k),
            project_id: Some(P1.into()),
            operating_status: pick(&OPER, k).parse().unwrap(),
            ..Default::default()
        };
        tx.insert(&p).await.unwrap();
        tx.set_tags(&p.id, &tags(k)).await.unwrap();
    }
    for r in 0..N_RULES {
        let row = L7RuleRow {
            id: id(7, r),
            l7policy_id: id(6, r % 2),
            r#type: pick(&["PATH", "HEADER", "HOST_NAME"], r).into(),
            compare_type: pick(&["EQUAL_TO", "STARTS_WITH"], r).into(),
            key: if r % 3 == 1 { Some("X-A".into()) } else { None },
            value: pick(&["/a", "/b"], r / 2).into(),
            invert: r % 4 == 0,
            provisioning_status: pick(&PROV, r).parse().unwrap(),
            created_at: at(r),
            project_id: Some(P1.into()),
            enabled: r % 5 != 0,
            operating_status: pick(&OPER, r).parse().unwrap(),
            ..Default::default()
        };
        tx.insert(&row).await.unwrap();
        tx.set_tags(&row.id, &tags(r)).await.unwrap();
    }
    for k in 0..6 {
        tx.insert(&FlavorProfileRow {
            id: id(8, k),
            name: pick(&["fp", "gp"], k).into(),
            provider_name: pick(&["ovn", "amphora", "ovn"], k).into(),
            flavor_data: "{}".into(),
        })
        .await
        .unwrap();
        tx.insert(&AvailabilityZoneProfileRow {
            id: id(10, k),
            name: pick(&["zp", "yp"], k).into(),
            provider_name: pick(&["ovn", "amphora", "ovn"], k).into(),
            availability_zone_data: "{}".into(),
        })
        .await
        .unwrap();
        tx.insert(&FlavorRow {
            id: id(11, k),
            name: format!("f{k}"),
            description: pick(&[None, Some("x"), Some("")], k).map(str::to_string),
            enabled: k % 2 == 0,
            flavor_profile_id: id(8, k / 2),
        })
        .await
        .unwrap();
        tx.insert(&AvailabilityZoneRow {
            name: format!("az{k}"),
            description: pick(&[None, Some("x")], k).map(str::to_string),
            enabled: k % 3 != 0,
            availability_zone_profile_id: id(10, k / 2),
        })
        .await
        .unwrap();
    }
    // a key that a link's marker must percent-encode
    tx.insert(&AvailabilityZoneRow {
        name: "az 6&x=y/ü".into(),
        description: None,
        enabled: true,
        availability_zone_profile_id: id(10, 1),
    })
    .await
    .unwrap();
    for (i, p) in PROJECTS.iter().enumerate() {
        tx.execute(
            "INSERT INTO `quotas` (`project_id`, `load_balancer`, `listener`, `pool`) VALUES (?, ?, ?, ?)",
            vec![(*p).into(), SqlValue::Int(i as i64 * 5), if i == 1 { SqlValue::Null } else { SqlValue::Int(3) }, SqlValue::Int(10 - i as i64)],
        )
        .await
        .unwrap();
    }
    tx.commit().await.unwrap();
}

/// `GET path` on `router` as `token`: (status, body).
async fn get(router: &axum::Router, token: &str, path: &str) -> (u16, Value) {
    let req = Request::builder()
        .uri(path)
        .header("host", "keel.test")
        .header("x-auth-token", token)
        .body(Body::empty())
        .unwrap();
    let resp = router.clone().oneshot(req).await.unwrap();
    let status = resp.status().as_u16();
    let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
        .await
        .unwrap();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

/// One collection's query space.
struct Space {
    path: &'static str,
    key: &'static str,
    filters: Vec<String>,
    sorts: Vec<&'static str>,
    markers: Vec<String>,
}

const TAG_QUERIES: &[&str] = &[
    "",
    "tags=a",
    "tags=a,b",
    "tags=a&tags=c",
    "tags-any=a,c",
    "not-tags=a,b",
    "not-tags-any=c",
    "tags=b&not-tags-any=c",
];
const LIMITS: &[&str] = &["", "limit=1", "limit=4", "limit=0"];

fn join(parts: &[&str]) -> String {
    parts
        .iter()
        .filter(|p| !p.is_empty())
        .cloned()
        .collect::<Vec<_>>()
        .join("&")
}

/// Compare both routers on every query of `space` for `token`; returns how many were compared.
async fn compare(sql: &axum::Router, mem: &AppState, token: &str, s: &Space) -> usize {
    let mut n = 0;
    let check = |q: String| {
        let path = if q.is_empty() {
            s.path.to_string()
        } else {
            format!("{}?{q}", s.path)
        };
        async move {
            let a = get(sql, token, &path).await;
            let b = in_memory(mem, token, &path).await;
            assert_eq!(
                a, b,
                "GET {path} as {token}: SQL (left) vs in-memory (right)"
            );
            a
        }
    };
    let mut markers = vec![String::new()];
    markers.extend(s.markers.iter().map(|m| format!("marker={m}")));
    // filters × tag filters, then filters × sorts, with the rest varying along
    let mut k = 0usize;
    let vary = |k: &mut usize| {
        let limit = LIMITS[*k % LIMITS.len()];
        let marker = markers[(*k / 2) % markers.len()].clone();
        let rev = if k.is_multiple_of(3) {
            "page_reverse=True"
        } else {
            ""
        };
        *k += 1;
        (limit, marker, rev)
    };
    for f in &s.filters {
        for (i, t) in TAG_QUERIES.iter().enumerate() {
            let (limit, marker, rev) = vary(&mut k);
            let so = s.sorts[i % s.sorts.len()];
            check(join(&[f, t, so, limit, &marker, rev])).await;
            n += 1;
        }
        for (i, so) in s.sorts.iter().enumerate() {
            let (limit, marker, rev) = vary(&mut k);
            let t = TAG_QUERIES[i % TAG_QUERIES.len()];
            check(join(&[f, t, so, limit, &marker, rev])).await;
            n += 1;
        }
    }
    // sorts × limits × markers × page_reverse
    for so in &s.sorts {
        for limit in LIMITS {
            for marker in &markers {
                for rev in ["", "page_reverse=True"] {
                    check(join(&[so, limit, marker, rev])).await;
                    n += 1;
                }
            }
        }
    }
    // walking the next links
    for so in &s.sorts {
        let mut q = join(&[so, "limit=3"]);
        for _ in 0..(2 * N_LB) {
            let (status, body) = check(q.clone()).await;
            n += 1;
            if status != 200 {
                break;
            }
            let next = body[format!("{}_links", s.key)]
                .as_array()
                .and_then(|l| l.iter().find(|x| x["rel"] == "next"))
                .and_then(|x| x["href"].as_str())
                .map(|h| {
                    h.split_once('?')
                        .map(|(_, q)| q.to_string())
                        .unwrap_or_default()
                });
            match next {
                Some(nq) => q = nq,
                None => break,
            }
        }
    }
    n
}

fn router(env: &Env) -> (axum::Router, AppState) {
    let state = AppState::new(
        env.db.clone(),
        Default::default(),
        AuthMode::Keystone(Arc::new(common::auth::RoleTokens)),
        None,
        ApiConfig::default(),
    );
    (api::router(state.clone()), state)
}

/// The oracle: `GET uri` as `token` answered by the collection's in-memory path, after the
/// handler's own prologue (list parameters, then the list scope, or the parent's lookup and
/// authorization), as status and body.
async fn in_memory(st: &AppState, token: &str, uri: &str) -> (u16, Value) {
    use api::{list, pagination::ListParams, policy};
    use axum::response::IntoResponse;
    let mut headers = axum::http::HeaderMap::new();
    headers.insert("host", "keel.test".parse().unwrap());
    headers.insert("x-auth-token", token.parse().unwrap());
    let auth = AuthMode::Keystone(Arc::new(common::auth::RoleTokens));
    let ctx = api::context::authenticate(&auth, &st.config().policy.current(), &headers)
        .await
        .unwrap();
    let parsed: axum::http::Uri = uri.parse().unwrap();
    let axum::extract::Query(q) =
        axum::extract::Query::<Vec<(String, String)>>::try_from_uri(&parsed).unwrap();
    let path = parsed.path();
    let answer = async {
        let cfg = st.config();
        let (flavor_like, rbac) = match path {
            "/v2/lbaas/flavors" => (true, "flavor"),
            "/v2/lbaas/availabilityzones" => (true, "availability-zone"),
            "/v2/lbaas/flavorprofiles" => (true, "flavor-profile"),
            "/v2/lbaas/availabilityzoneprofiles" => (true, "availability-zone-profile"),
            _ => (false, ""),
        };
        if flavor_like {
            policy::authorize(&ctx, rbac, "get_all", ctx.project_id.as_deref())?;
        }
        let params = ListParams::parse(&q, cfg.pagination_max_limit, cfg)?;
        let scope = |resource: &str| policy::list_scope(&ctx, resource, params.project_filter());
        let mut tx = st.db().begin_read().await?;
        let tx = &mut tx;
        let h = &headers;
        let p = &params;
        let all = |project| list::Scope {
            project,
            parent: None,
        };
        match path.trim_start_matches("/v2/lbaas/") {
            "loadbalancers" => {
                let s = scope("loadbalancer")?;
                list::in_memory::<LoadBalancerRow>(st, h, tx, p, &all(&s)).await
            }
            "listeners" => {
                let s = scope("listener")?;
                list::in_memory::<ListenerRow>(st, h, tx, p, &all(&s)).await
            }
            "pools" => {
                let s = scope("pool")?;
                list::in_memory::<PoolRow>(st, h, tx, p, &all(&s)).await
            }
            "healthmonitors" => {
                let s = scope("healthmonitor")?;
                list::in_memory::<HealthMonitorRow>(st, h, tx, p, &all(&s)).await
            }
            "l7policies" => {
                let s = scope("l7policy")?;
                list::in_memory::<L7PolicyRow>(st, h, tx, p, &all(&s)).await
            }
            "quotas" => {
                let s = scope("quota")?;
                list::in_memory::<octavia_db::QuotaRow>(st, h, tx, p, &all(&s)).await
            }
            "flavors" => list::in_memory::<FlavorRow>(st, h, tx, p, &list::Scope::GLOBAL).await,
            "availabilityzones" => {
                list::in_memory::<AvailabilityZoneRow>(st, h, tx, p, &list::Scope::GLOBAL).await
            }
            "flavorprofiles" => {
                list::in_memory::<FlavorProfileRow>(st, h, tx, p, &list::Scope::GLOBAL).await
            }
            "availabilityzoneprofiles" => {
                let s = &list::Scope::GLOBAL;
                list::in_memory::<AvailabilityZoneProfileRow>(st, h, tx, p, s).await
            }
            rest => match rest.split('/').collect::<Vec<_>>()[..] {
                ["pools", pool_id, "members"] => {
                    let pool = api::lookup::get_db_pool(tx, pool_id).await?;
                    policy::authorize(&ctx, "member", "get_all", pool.project_id.as_deref())?;
                    let s = list::Scope {
                        project: &None,
                        parent: Some(pool_id),
                    };
                    list::in_memory::<MemberRow>(st, h, tx, p, &s).await
                }
                ["l7policies", policy_id, "rules"] => {
                    let l7 = api::lookup::get_db_l7policy(tx, policy_id).await?;
                    policy::authorize(&ctx, "l7rule", "get_all", l7.project_id.as_deref())?;
                    let s = list::Scope {
                        project: &None,
                        parent: Some(policy_id),
                    };
                    list::in_memory::<L7RuleRow>(st, h, tx, p, &s).await
                }
                _ => panic!("no in-memory path for {path}"),
            },
        }
    };
    let resp = match answer.await {
        Ok(body) => return (200, body),
        Err(e) => e.into_response(),
    };
    let status = resp.status().as_u16();
    let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
        .await
        .unwrap();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

fn callers() -> Vec<String> {
    vec![format!("{P1}|admin"), format!("{P2}|member,reader")]
}

fn owned(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// Seed both backends and compare every space of `spaces` for every caller.
async fn run(spaces: impl Fn() -> Vec<Space>, callers: &[String]) {
    for mysql in common::db::backends() {
        let env = Env::new(mysql, Setup::role_tokens(Policy::default())).await;
        seed(&env).await;
        let (sql, mem) = router(&env);
        let mut total = 0;
        for token in callers {
            for space in spaces() {
                total += compare(&sql, &mem, token, &space).await;
            }
        }
        assert!(total > 300, "{total}");
        env.done().await;
    }
}

fn lb_space() -> Space {
    Space {
        path: "/v2/lbaas/loadbalancers",
        key: "loadbalancers",
        filters: owned(&[
            "",
            "name=web",
            "name=",
            "operating_status=ONLINE",
            "admin_state_up=false",
            "admin_state_up=True",
            "provisioning_status=ERROR",
            "project_id=22222222222222222222222222222222",
            "tenant_id=11111111111111111111111111111111",
            "vip_address=10.0.1.1",
            "vip_subnet_id=s1",
            "vip_vnic_type=normal",
            "vip_qos_policy_id=q1",
            "provider=octavia",
            "description=d1",
            "name=web&operating_status=ONLINE",
            "created_at=2026-11-01T10:00:02",
            "updated_at=2026-11-01T10:00:02",
            "bogus=1",
            "additional_vips=x",
            &format!("listeners={}", id(2, 7)),
            &format!("pools={}", id(3, 9)),
            &format!("id={}", id(1, 5)),
            // a page with `fields=` is rendered through maps, without it as text
            "fields=id",
            "fields=name&fields=vip_address,tags",
        ]),
        sorts: vec![
            "",
            "sort=name",
            "sort=name:desc,operating_status",
            "sort_key=provisioning_status&sort_dir=desc",
            "sort_key=name,description&sort_dir=asc,desc",
            "sort=created_at:desc",
            "sort=updated_at",
            "sort=vip_address:desc",
            "sort=admin_state_up:desc,name:asc",
            "sort=provider,vip_vnic_type:desc",
            "sort=zzz",
            "sort=tags",
            "sort=additional_vips",
            "sort=vip_sg_ids:desc",
            "sort=pools",
            "sort=name:sideways",
        ],
        markers: vec![
            id(1, 2),
            id(1, 7),
            id(1, 11),
            id(1, 4), // DELETED
            id(1, 13),
            "nope".into(),
        ],
    }
}

fn listener_space() -> Space {
    Space {
        path: "/v2/lbaas/listeners",
        key: "listeners",
        filters: owned(&[
            "",
            "protocol=TCP",
            "protocol_port=80",
            "protocol_port=80.0",
            "protocol_port=x",
            "connection_limit=-1",
            "name=",
            "admin_state_up=0",
            "hsts_preload=true",
            &format!("loadbalancer_id={}", id(1, 3)),
            &format!("loadbalancers={}", id(1, 3)),
            &format!("default_pool_id={}", id(3, 6)),
            &format!("l7policies={}", id(6, 1)),
            "operating_status=OFFLINE&protocol=HTTP",
            "project_id=33333333333333333333333333333333",
            "insert_headers=x",
            "insert_headers=",
            "timeout_client_data=50000",
            "tls_versions=TLSv1.2",
            "tls_versions=TLSv1.3",
            "tls_versions=TLSv1.2,TLSv1.3",
            "tls_versions=",
            "alpn_protocols=h2",
            "alpn_protocols=http/1.1&protocol=TCP",
            "sni_container_refs=x",
        ]),
        sorts: vec![
            "",
            "sort=protocol_port",
            "sort=protocol:desc,protocol_port:desc",
            "sort=connection_limit",
            "sort=name,created_at:desc",
            "sort=loadbalancer_id",
            "sort=hsts_preload:desc",
            "sort=l7policies",
            "sort=tls_versions",
            "sort=insert_headers:desc",
            "sort=loadbalancers",
        ],
        markers: vec![id(2, 3), id(2, 10), id(2, 0), id(2, 20)],
    }
}

fn pool_space() -> Space {
    Space {
        path: "/v2/lbaas/pools",
        key: "pools",
        filters: owned(&[
            "",
            "protocol=HTTP",
            "lb_algorithm=ROUND_ROBIN",
            "tls_enabled=true",
            "name=web",
            &format!("loadbalancer_id={}", id(1, 2)),
            &format!("listeners={}", id(2, 6)),
            &format!("healthmonitor_id={}", id(4, 4)),
            &format!("members={}", id(5, 3)),
            "session_persistence=x",
            "session_persistence=",
            "tls_versions=TLSv1.3",
            "alpn_protocols=http/1.1",
            "alpn_protocols=",
            "healthmonitor_id=nope",
            "admin_state_up=false&protocol=TCP",
        ]),
        sorts: vec![
            "",
            "sort=lb_algorithm,protocol:desc",
            "sort=name:desc",
            "sort=loadbalancer_id",
            "sort=tls_enabled",
            "sort=updated_at:desc",
            "sort=members",
            "sort=healthmonitor_id:desc",
            "sort=healthmonitor_id,name",
            "sort=session_persistence",
            "sort=alpn_protocols",
        ],
        markers: vec![id(3, 1), id(3, 8), id(3, 2), id(3, 17)],
    }
}

fn hm_space() -> Space {
    Space {
        path: "/v2/lbaas/healthmonitors",
        key: "healthmonitors",
        filters: owned(&[
            "",
            "type=HTTP",
            "delay=5",
            "max_retries=3",
            "max_retries_down=2",
            "http_method=GET",
            "http_version=1.1",
            "http_version=1.10",
            "http_version=1",
            "http_version=1.0",
            "http_version=1.05",
            "http_version=x",
            &format!("pool_id={}", id(3, 4)),
            &format!("pools={}", id(3, 4)),
            "name=",
        ]),
        sorts: vec![
            "",
            "sort=type,delay:desc",
            "sort=max_retries",
            "sort=http_method:desc",
            "sort=pool_id",
            "sort=http_version",
            "sort=http_version:desc,name",
            "sort=pools",
        ],
        markers: vec![id(4, 0), id(4, 6), id(4, 8), id(4, 16)],
    }
}

fn member_space() -> Space {
    Space {
        path: Box::leak(format!("/v2/lbaas/pools/{}/members", id(3, 0)).into_boxed_str()),
        key: "members",
        filters: owned(&[
            "",
            "address=10.1.0.3",
            "protocol_port=80",
            "weight=10",
            "backup=true",
            "vnic_type=normal",
            "subnet_id=s1",
            "monitor_port=9000",
            "name=",
            "operating_status=ONLINE&admin_state_up=true",
        ]),
        sorts: vec![
            "",
            "sort=address,protocol_port:desc",
            "sort=weight:desc",
            "sort=vnic_type",
            "sort=backup,name",
            "sort=tags",
        ],
        markers: vec![id(5, 0), id(5, 5), id(5, 4), id(5, 11)],
    }
}

fn l7_spaces() -> Vec<Space> {
    vec![
        Space {
            path: "/v2/lbaas/l7policies",
            key: "l7policies",
            filters: owned(&[
                "",
                "action=REJECT",
                "position=1",
                &format!("listener_id={}", id(2, 2)),
                &format!("rules={}", id(7, 2)),
                "redirect_url=http://a.b/",
            ]),
            sorts: vec![
                "",
                "sort=position,action:desc",
                "sort=listener_id",
                "sort=rules",
            ],
            markers: vec![id(6, 0), id(6, 5), id(6, 4)],
        },
        Space {
            path: Box::leak(format!("/v2/lbaas/l7policies/{}/rules", id(6, 0)).into_boxed_str()),
            key: "rules",
            filters: owned(&[
                "",
                "type=PATH",
                "compare_type=EQUAL_TO",
                "key=X-A",
                "invert=true",
                "value=/a",
            ]),
            sorts: vec!["", "sort=type:desc,value", "sort=key", "sort=invert"],
            markers: vec![id(7, 0), id(7, 6), id(7, 4)],
        },
        Space {
            path: "/v2/lbaas/quotas",
            key: "quotas",
            filters: owned(&[
                "",
                "load_balancer=5",
                "listener=3",
                "project_id=33333333333333333333333333333333",
            ]),
            sorts: vec![
                "",
                "sort=listener:desc",
                "sort=pool",
                "sort=loadbalancer,project_id:desc",
            ],
            markers: vec![P1.into()],
        },
        Space {
            path: "/v2/lbaas/flavors",
            key: "flavors",
            filters: owned(&[
                "",
                "enabled=true",
                "description=",
                &format!("flavor_profile_id={}", id(8, 1)),
            ]),
            sorts: vec!["", "sort=flavor_profile_id,name:desc", "sort=description"],
            markers: vec![id(11, 2), id(11, 5)],
        },
        Space {
            path: "/v2/lbaas/availabilityzones",
            key: "availability_zones",
            filters: owned(&["", "enabled=false", "name=az2"]),
            sorts: vec!["", "sort=availability_zone_profile_id:desc", "sort=name"],
            markers: vec!["az1".into()],
        },
        Space {
            path: "/v2/lbaas/flavorprofiles",
            key: "flavorprofiles",
            filters: owned(&["", "provider_name=ovn", "name=gp"]),
            sorts: vec!["", "sort=provider_name:desc,name", "sort=name"],
            markers: vec![id(8, 2), id(8, 3)],
        },
        Space {
            path: "/v2/lbaas/availabilityzoneprofiles",
            key: "availability_zone_profiles",
            filters: owned(&["", "provider_name=amphora", "name=zp"]),
            sorts: vec!["", "sort=provider_name,name:desc", "sort=id"],
            markers: vec![id(10, 0), id(10, 3)],
        },
    ]
}

#[tokio::test]
async fn load_balancer_lists_match_the_in_memory_path() {
    run(|| vec![lb_space()], &callers()).await;
}

#[tokio::test]
async fn listener_lists_match_the_in_memory_path() {
    run(|| vec![listener_space()], &callers()).await;
}

#[tokio::test]
async fn pool_and_health_monitor_lists_match_the_in_memory_path() {
    run(|| vec![pool_space(), hm_space()], &callers()).await;
}

#[tokio::test]
async fn member_l7_and_quota_lists_match_the_in_memory_path() {
    let p1 = [format!("{P1}|admin"), format!("{P1}|member,reader")];
    run(
        || {
            let mut v = vec![member_space()];
            v.extend(l7_spaces());
            v
        },
        &p1,
    )
    .await;
}

/// The attribute that names an item in its collection's links (quotas and AZs have no `id`).
fn item_key(path: &str) -> &'static str {
    if path.ends_with("/quotas") {
        "project_id"
    } else if path.ends_with("/availabilityzones") {
        "name"
    } else {
        "id"
    }
}

/// The item keys of a page's collection, and its link of relation `rel` as a path + query.
fn page_of(body: &Value, s: &Space, rel: &str) -> (Vec<String>, Option<String>) {
    let key = item_key(s.path);
    let items = body[s.key]
        .as_array()
        .unwrap_or_else(|| panic!("no {} in {body}", s.key))
        .iter()
        .map(|i| i[key].as_str().unwrap_or_default().to_string())
        .collect();
    // the profiles' links keys are singular, as the reference's types name them
    let links = match s.key {
        "flavorprofiles" => "flavorprofile_links".to_string(),
        "availability_zone_profiles" => "availability_zone_profile_links".to_string(),
        k => format!("{k}_links"),
    };
    let link = body[links]
        .as_array()
        .and_then(|l| l.iter().find(|x| x["rel"] == rel))
        .and_then(|x| x["href"].as_str())
        .map(|h| {
            h.strip_prefix("http://keel.test")
                .unwrap_or_else(|| panic!("{h}"))
                .to_string()
        });
    (items, link)
}

/// Walk `s` with `limit` and `sort` on `router` as `token`: following the `next` links from
/// the first page gives every item of the unpaged list once, in its order, every page answering
/// 200; each page's `previous` link answers the items before that page (the first `limit` of
/// them, in forward order, as the reference's `page_reverse`). Returns the pages walked.
async fn walk(router: &axum::Router, token: &str, s: &Space, sort: &str, limit: usize) -> usize {
    let unpaged = format!("{}?{}", s.path, join(&[sort, "limit=infinite"]));
    let (status, body) = get(router, token, &unpaged).await;
    assert_eq!(status, 200, "GET {unpaged}: {body}");
    let (full, _) = page_of(&body, s, "next");
    assert!(!full.is_empty(), "GET {unpaged}: {body}");
    let mut seen: Vec<String> = Vec::new();
    let mut next = Some(format!(
        "{}?{}",
        s.path,
        join(&[sort, &format!("limit={limit}")])
    ));
    let mut pages = 0;
    while let Some(path) = next {
        pages += 1;
        assert!(pages <= full.len() + 2, "GET {path}: the walk does not end");
        let (status, body) = get(router, token, &path).await;
        assert_eq!(status, 200, "GET {path} as {token}: {body}");
        let (items, n) = page_of(&body, s, "next");
        assert!(items.len() <= limit, "GET {path}: {items:?}");
        if let Some(prev) = page_of(&body, s, "previous").1 {
            let (status, pbody) = get(router, token, &prev).await;
            assert_eq!(status, 200, "GET {prev} (previous of {path}): {pbody}");
            let before = seen.len().min(limit);
            assert_eq!(
                page_of(&pbody, s, "next").0,
                full[..before],
                "GET {prev} (previous of {path})"
            );
        } else {
            // only the first page, and an empty last one (no links at all), have none
            assert!(
                seen.is_empty() || items.is_empty(),
                "GET {path}: a later page without a previous link"
            );
        }
        seen.extend(items);
        next = n;
    }
    assert_eq!(
        seen, full,
        "{} {sort} limit={limit} as {token}: the walk",
        s.path
    );
    pages
}

/// Every collection (quotas and availability zones, keyed by project and name, included)
/// walked page by page through its `next` and `previous` links gives its whole list, on both
/// backends, for an admin and a member, with the default order and with sort keys that tie
/// (the in-memory oracle agrees page by page: the equivalence tests above).
#[tokio::test]
async fn every_collection_pages_through_its_links_to_the_full_list() {
    for mysql in common::db::backends() {
        let env = Env::new(mysql, Setup::role_tokens(Policy::default())).await;
        seed(&env).await;
        let (sql, _) = router(&env);
        let mut pages = 0;
        let mut spaces = vec![
            lb_space(),
            listener_space(),
            pool_space(),
            hm_space(),
            member_space(),
        ];
        spaces.extend(l7_spaces());
        for s in &spaces {
            let tokens = if s.path.ends_with("profiles") {
                vec![format!("{P1}|admin")]
            } else if s.path.ends_with("/quotas")
                || s.path.contains("/v2/lbaas/pools/")
                || s.path.contains("/l7")
            {
                vec![format!("{P1}|admin"), format!("{P1}|member,reader")]
            } else {
                callers()
            };
            let mut sorts = vec!["", "sort=id:desc"];
            if item_key(s.path) != "id" {
                sorts = vec!["", "sort=enabled:desc"];
            }
            if s.path.ends_with("/quotas") {
                sorts = vec!["", "sort=listener:desc", "sort=project_id:desc"];
            }
            if s.path.contains("/loadbalancers") {
                sorts.push("sort=name,operating_status:desc");
            }
            for token in &tokens {
                for sort in &sorts {
                    for limit in [1, 3] {
                        pages += walk(&sql, token, s, sort, limit).await;
                    }
                }
            }
        }
        assert!(pages > 300, "{pages}");
        env.done().await;
    }
}

/// A page costs the same statements whatever its size and whatever the size of the caller's
/// scope (its children are read for the whole page at once, never per row, and rows outside
/// the page are never read), and a marker one more (its sort values): counted with
/// `Database::statements` for every collection, pages of 1, 2 and all items, as admin (all
/// projects) and, for the top-level collections, as one project's member; on both backends.
#[tokio::test]
async fn a_page_costs_the_same_statements_whatever_its_size() {
    for mysql in common::db::backends() {
        let env = Env::new(mysql, Setup::role_tokens(Policy::default())).await;
        seed(&env).await;
        let (sql, _) = router(&env);
        let admin = format!("{P1}|admin");
        let member = format!("{P2}|member,reader");
        let mut spaces = vec![
            lb_space(),
            listener_space(),
            pool_space(),
            hm_space(),
            member_space(),
        ];
        spaces.extend(l7_spaces());
        let (mut checked, mut scoped_checks) = (0, 0);
        for s in &spaces {
            let count_as = async |token: &str, q: &str| {
                let path = if q.is_empty() {
                    s.path.to_string()
                } else {
                    format!("{}?{q}", s.path)
                };
                let before = env.db.statements();
                let (status, body) = get(&sql, token, &path).await;
                assert!(status == 200 || token != admin, "{path}: {body}");
                let n = body[s.key].as_array().map_or(0, Vec::len);
                (env.db.statements() - before, n)
            };
            let count = async |q: &str| count_as(&admin, q).await;
            let (one, n1) = count("limit=1").await;
            let (two, n2) = count("limit=2").await;
            let (all, n) = count("").await;
            if n < 3 {
                continue;
            }
            assert_eq!((n1, n2), (1, 2), "{}", s.path);
            assert_eq!(one, two, "{}: 1 vs 2 items", s.path);
            assert_eq!(one, all, "{}: 1 vs {n} items", s.path);
            assert!(one >= 1, "{}", s.path);
            let top_level = !s.path["/v2/lbaas/".len()..].contains('/');
            let scope_size = if top_level {
                count_as(&member, "").await.1
            } else {
                0
            };
            // project-owned collections only (flavors, AZs… are the same for everyone)
            if scope_size > 0 && scope_size < n {
                let (scoped, in_scope) = count_as(&member, "limit=1").await;
                assert_eq!(in_scope, 1, "{}", s.path);
                assert_eq!(scoped, one, "{}: one project vs all", s.path);
                scoped_checks += 1;
            }
            let (_, page) = get(&sql, &admin, &format!("{}?limit=1", s.path)).await;
            let marker: String = page[s.key][0][item_key(s.path)]
                .as_str()
                .unwrap()
                .bytes()
                .map(|b| match b {
                    b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' => char::from(b).to_string(),
                    _ => format!("%{b:02X}"),
                })
                .collect();
            let (marked, _) = count(&format!("limit=1&marker={marker}")).await;
            assert_eq!(marked, one + 1, "{}: with a marker", s.path);
            checked += 1;
        }
        assert!(
            checked >= 6 && scoped_checks >= 3,
            "{checked} {scoped_checks}"
        );
        env.done().await;
    }
}

/// Every attribute a list may filter or sort on has its SQL form (none falls back to the
/// in-memory path).
#[test]
fn every_listed_attribute_has_its_sql_form() {
    use api::listing::Spec;
    let pairs: [(&Spec, &[&str]); 10] = [
        (
            &api::load_balancer::view::LB,
            api::load_balancer::view::LB_ATTRS,
        ),
        (
            &api::listener::view::LISTENER,
            api::listener::view::LISTENER_ATTRS,
        ),
        (&api::pool::view::POOL, api::pool::view::POOL_ATTRS),
        (&api::member::view::MEMBER, api::member::view::MEMBER_ATTRS),
        (
            &api::health_monitor::view::HM,
            api::health_monitor::view::HM_ATTRS,
        ),
        (
            &api::l7policy::view::L7POLICY,
            api::l7policy::L7POLICY_ATTRS,
        ),
        (&api::l7rule::view::L7RULE, api::l7rule::L7RULE_ATTRS),
        (&api::flavors::FLAVOR, api::flavors::FLAVOR_ATTRS),
        (&api::flavors::AZ, api::flavors::AZ_ATTRS),
        (&api::quotas::view::QUOTA, api::quotas::QUOTA_ATTRS),
    ];
    for (spec, attrs) in pairs {
        for a in attrs.iter().filter(|a| **a != "tenant_id") {
            assert!(
                spec.attrs.iter().any(|(n, _)| n == a),
                "{a} has no SQL form"
            );
        }
    }
    for (spec, data) in [
        (&api::profiles::FLAVOR_PROFILE, "flavor_data"),
        (&api::profiles::AZ_PROFILE, "availability_zone_data"),
    ] {
        for a in ["id", "name", "provider_name", data] {
            assert!(spec.attrs.iter().any(|(n, _)| *n == a), "{a}");
        }
    }
}
