//! The amphora admin API (`/v2/octavia/amphorae`, `api::amphora`) over `amphora` rows written
//! as the amphora provider's Python `octavia-worker` writes them, and the listener / load
//! balancer stats of amphora and OVN rows (`api::lookup::stats_of`, `lb_stats`).
//!
//! Tier: fast (in-process router over SQLite, `ci/fast.sh`) and, under `ci/test.sh`, MariaDB
//! too. The casts go to a fake `AmphoraControl` that records them (and can fail).
//!
//! Expected texts and rules are the reference's (Octavia 19.0.0):
//! * octavia/api/v2/controllers/amphora.py — list / show / delete / failover / config / stats,
//!   their check order (delete and stats: policy first; show, failover, config: lookup first);
//! * octavia/common/exceptions.py — `NotFound`: `'%(resource)s %(id)s not found.'` (resource
//!   `Amphora` from `models.Amphora._name()`, and `Amphora stats for` in the stats controller),
//!   `ImmutableObject`: `'%(resource)s %(id)s is immutable and cannot be updated.'` (resource
//!   `consts.AMPHORA` = `amphora` for the delete, `Load Balancer` for the failover's LB),
//!   `PolicyForbidden`: `'Policy does not allow this request to be performed.'`;
//! * octavia/db/repositories.py — `test_and_set_status_for_delete` (ERROR only → PENDING_DELETE),
//!   `LoadBalancerRepository.test_and_set_provisioning_status` (PENDING_UPDATE from
//!   `MUTABLE_STATUSES` = ACTIVE only), `get_amphora_stats`;
//! * octavia/common/stats.py — `StatsMixin.get_listener_stats`: every row's bytes / totals /
//!   errors, active connections of a row whose amphora is ALLOCATED or whose amphora_id is the
//!   listener id;
//! * octavia/controller/worker/v2/tasks/database_tasks.py — the columns a SINGLE-topology
//!   amphora gets (`CreateAmphoraInDB`: PENDING_CREATE, cert_busy False; `UpdateAmphoraInfo`:
//!   lb_network_ip, cached_zone, image_id, compute_flavor; `UpdateAmphoraDBCertExpiration`;
//!   `MarkAmphoraAllocatedInDB`: ALLOCATED, compute_id, load_balancer_id;
//!   `UpdateAmphoraVIPData`: vrrp_ip, ha_ip, vrrp_port_id, ha_port_id, vrrp_id 1;
//!   `MarkAmphoraStandAloneInDB`: role STANDALONE, vrrp_priority None; vrrp_interface stays
//!   NULL).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use api::AmphoraControl;
use async_trait::async_trait;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use chrono::{NaiveDate, NaiveDateTime};
use common::{Env, Setup};
use octavia_db::{AmphoraRow, ListenerStatisticsRow};
use provider::ProviderError;
use serde_json::{Value, json};

/// The fake seam: records `(method, amphora_id)`; fails with `Unavailable` when told to.
#[derive(Default)]
struct FakeControl {
    calls: Mutex<Vec<(String, String)>>,
    fail: AtomicBool,
}

impl FakeControl {
    fn record(&self, method: &str, id: &str) -> Result<(), ProviderError> {
        self.calls.lock().unwrap().push((method.into(), id.into()));
        if self.fail.load(Ordering::SeqCst) {
            return Err(ProviderError::Unavailable {
                service: "RabbitMQ".into(),
                operator_fault_string: "connection refused".into(),
            });
        }
        Ok(())
    }

    fn take(&self) -> Vec<(String, String)> {
        std::mem::take(&mut *self.calls.lock().unwrap())
    }
}

#[async_trait]
impl AmphoraControl for FakeControl {
    async fn delete_amphora(&self, amphora_id: &str) -> Result<(), ProviderError> {
        self.record("delete_amphora", amphora_id)
    }
    async fn failover_amphora(&self, amphora_id: &str) -> Result<(), ProviderError> {
        self.record("failover_amphora", amphora_id)
    }
    async fn update_amphora_agent_config(&self, amphora_id: &str) -> Result<(), ProviderError> {
        self.record("update_amphora_agent_config", amphora_id)
    }
}

/// Run `body` on each backend with the `named_tokens` setup and the router rebuilt with a
/// [`FakeControl`] (`with_control`) or without one.
macro_rules! each_env {
    ($with_control:expr, |$env:ident, $ctl:ident| $body:block) => {
        for mysql in common::db::backends() {
            let mut $env = Env::new(mysql, Setup::named_tokens()).await;
            let $ctl = Arc::new(FakeControl::default());
            if $with_control {
                $env.router = api::router($env.state.clone().with_amphora_control($ctl.clone()));
            }
            $body
            $env.done().await;
        }
    };
}

fn at(d: u32, h: u32, m: u32) -> NaiveDateTime {
    NaiveDate::from_ymd_opt(2026, 12, d)
        .unwrap()
        .and_hms_opt(h, m, 0)
        .unwrap()
}

fn uid(n: u32) -> String {
    format!("6a0a707c-45ef-4758-b533-{n:012x}")
}

/// A SINGLE-topology amphora of `lb` as the worker leaves it once ALLOCATED (module doc).
fn standalone(id: &str, lb: &str, minute: u32) -> AmphoraRow {
    AmphoraRow {
        id: id.into(),
        compute_id: Some(uid(100 + minute)),
        status: "ALLOCATED".into(),
        load_balancer_id: Some(lb.into()),
        lb_network_ip: Some(format!("192.168.0.{minute}")),
        vrrp_ip: Some("10.42.0.15".into()),
        ha_ip: Some("10.42.0.7".into()),
        vrrp_port_id: Some(uid(200 + minute)),
        ha_port_id: Some(uid(300)),
        role: Some("STANDALONE".into()),
        cert_expiration: Some(at(31, 23, minute)),
        cert_busy: false,
        vrrp_interface: None,
        vrrp_id: Some(1),
        vrrp_priority: None,
        cached_zone: Some("nova".into()),
        created_at: Some(at(7, 3, minute)),
        updated_at: Some(at(7, 4, minute)),
        image_id: Some(uid(400)),
        compute_flavor: Some("65".into()),
    }
}

/// An amphora whose create failed before it was allocated: ERROR, no LB, no server.
fn failed(id: &str, minute: u32) -> AmphoraRow {
    AmphoraRow {
        id: id.into(),
        status: "ERROR".into(),
        cert_busy: false,
        created_at: Some(at(7, 3, minute)),
        ..AmphoraRow::default()
    }
}

async fn insert(env: &Env, rows: &[AmphoraRow]) {
    let mut tx = env.db.begin().await.unwrap();
    tx.insert_many(rows).await.unwrap();
    tx.commit().await.unwrap();
}

async fn stat_rows(env: &Env, rows: &[(&str, &str, i32, i64)]) {
    let mut tx = env.db.begin().await.unwrap();
    for (listener, amp, active, base) in rows {
        tx.insert(&ListenerStatisticsRow {
            listener_id: (*listener).into(),
            amphora_id: (*amp).into(),
            active_connections: *active,
            bytes_in: *base,
            bytes_out: base * 2,
            total_connections: base * 3,
            request_errors: base * 4,
        })
        .await
        .unwrap();
    }
    tx.commit().await.unwrap();
}

async fn amp_row(env: &Env, id: &str) -> AmphoraRow {
    let mut tx = env.db.begin_read().await.unwrap();
    tx.get::<AmphoraRow>(id).await.unwrap()
}

async fn admin(env: &Env, method: &str, path: &str) -> (StatusCode, Value) {
    env.req_as(Some("admin"), method, path, None).await
}

fn fault(b: &Value) -> &str {
    b["faultstring"].as_str().unwrap_or_default()
}

const FORBIDDEN: &str = "Policy does not allow this request to be performed.";

#[tokio::test]
async fn list_and_show_render_the_workers_rows() {
    each_env!(false, |env, _ctl| {
        let (lb, _) = env.lb_listener("full", "TCP").await;
        let a1 = uid(1);
        let a2 = uid(2);
        let gone = uid(3);
        let mut deleted = standalone(&gone, &lb, 1);
        deleted.status = "DELETED".into();
        insert(&env, &[standalone(&a1, &lb, 24), failed(&a2, 30), deleted]).await;

        let want1 = json!({
            "id": a1, "loadbalancer_id": lb, "compute_id": uid(124),
            "lb_network_ip": "192.168.0.24", "vrrp_ip": "10.42.0.15", "ha_ip": "10.42.0.7",
            "vrrp_port_id": uid(224), "ha_port_id": uid(300),
            "cert_expiration": "2026-12-31T23:24:00", "cert_busy": false,
            "role": "STANDALONE", "status": "ALLOCATED", "vrrp_interface": null, "vrrp_id": 1,
            "vrrp_priority": null, "cached_zone": "nova",
            "created_at": "2026-12-07T03:24:00", "updated_at": "2026-12-07T04:24:00",
            "image_id": uid(400), "compute_flavor": "65",
        });
        let want2 = json!({
            "id": a2, "loadbalancer_id": null, "compute_id": null, "lb_network_ip": null,
            "vrrp_ip": null, "ha_ip": null, "vrrp_port_id": null, "ha_port_id": null,
            "cert_expiration": null, "cert_busy": false, "role": null, "status": "ERROR",
            "vrrp_interface": null, "vrrp_id": null, "vrrp_priority": null,
            "cached_zone": null, "created_at": "2026-12-07T03:30:00", "updated_at": null,
            "image_id": null, "compute_flavor": null,
        });

        // DELETED is never listed (get_all_API_list(show_deleted=False))
        let (s, b) = admin(&env, "GET", "/v2/octavia/amphorae").await;
        assert_eq!(s, StatusCode::OK, "{b}");
        assert_eq!(b, json!({"amphorae": [want1, want2], "amphorae_links": []}));

        let (s, b) = admin(&env, "GET", &format!("/v2/octavia/amphorae/{a1}")).await;
        assert_eq!(s, StatusCode::OK, "{b}");
        assert_eq!(b, json!({ "amphora": want1 }));
        let (s, b) = admin(
            &env,
            "GET",
            &format!("/v2/octavia/amphorae/{a2}?fields=id&fields=status"),
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{b}");
        assert_eq!(b, json!({"amphora": {"id": a2, "status": "ERROR"}}));
        let (s, b) = admin(&env, "GET", "/v2/octavia/amphorae?fields=role").await;
        assert_eq!(s, StatusCode::OK, "{b}");
        assert_eq!(
            b["amphorae"],
            json!([{"role": "STANDALONE"}, {"role": null}])
        );

        // show: 404 for DELETED and unknown, with the id as requested
        for id in [gone.clone(), uid(9)] {
            let (s, b) = admin(&env, "GET", &format!("/v2/octavia/amphorae/{id}")).await;
            assert_eq!(s, StatusCode::NOT_FOUND);
            assert_eq!(fault(&b), format!("Amphora {id} not found."));
        }

        // policy (admin only): list 403 first; show looks up first (404), then 403
        let (s, b) = env.req("GET", "/v2/octavia/amphorae", None).await;
        assert_eq!((s, fault(&b)), (StatusCode::FORBIDDEN, FORBIDDEN));
        let (s, b) = env
            .req("GET", &format!("/v2/octavia/amphorae/{a1}"), None)
            .await;
        assert_eq!((s, fault(&b)), (StatusCode::FORBIDDEN, FORBIDDEN));
        let (s, _) = env
            .req("GET", &format!("/v2/octavia/amphorae/{}", uid(9)), None)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
    });
}

/// Eight amphorae with repeated values in every column kind.
fn varied(lb: &str) -> Vec<AmphoraRow> {
    (0..8u32)
        .map(|i| {
            let mut a = standalone(&uid(10 + i), lb, 10 + i);
            a.status = ["ALLOCATED", "ERROR", "READY", "BOOTING"][(i % 4) as usize].into();
            a.role = [Some("MASTER"), Some("BACKUP"), None][(i % 3) as usize].map(str::to_string);
            a.vrrp_priority = [Some(100), Some(90), None][(i % 3) as usize];
            a.cert_busy = i % 3 == 0;
            a.cert_expiration = (i % 2 == 0).then(|| at(20 + i % 3, 0, 0));
            a.created_at = Some(at(7, 3, i / 2)); // pairs share created_at
            a.cached_zone = Some(["az1", "az2"][(i % 2) as usize].into());
            if i == 5 {
                a.load_balancer_id = None;
            }
            a
        })
        .collect()
}

#[tokio::test]
async fn list_filters_sorts_and_pages_as_the_in_memory_oracle() {
    each_env!(false, |env, _ctl| {
        let (lb, _) = env.lb_listener("full", "TCP").await;
        insert(&env, &varied(&lb)).await;
        let mut headers = HeaderMap::new();
        headers.insert("host", HeaderValue::from_static("keel.test"));
        let m10 = uid(10);
        let m13 = uid(13);
        let queries: Vec<String> = vec![
            String::new(),
            "status=ERROR".into(),
            "role=MASTER".into(),
            "role=".into(),
            format!("loadbalancer_id={lb}"),
            "vrrp_priority=90".into(),
            "vrrp_priority=90.0".into(),
            "vrrp_id=1".into(),
            "cert_busy=true".into(),
            "cert_busy=0".into(),
            "cert_expiration=2026-12-20T00:00:00".into(),
            "cached_zone=az2&status=ERROR".into(),
            "lb_network_ip=192.168.0.12".into(),
            "sort=vrrp_priority:desc".into(),
            "sort=role:asc,cert_expiration:desc".into(),
            "sort_key=status&sort_dir=desc".into(),
            "sort=created_at:desc".into(),
            "limit=3".into(),
            format!("limit=3&marker={m10}"),
            format!("limit=2&marker={m13}&page_reverse=True"),
            format!("sort=status&limit=2&marker={m13}"),
            "limit=2&fields=id&fields=status".into(),
            "tags=x".into(),
            "project_id=p".into(),
            "sort=bogus".into(),
            format!("marker={}", uid(99)),
        ];
        for q in &queries {
            let path = if q.is_empty() {
                "/v2/octavia/amphorae".to_string()
            } else {
                format!("/v2/octavia/amphorae?{q}")
            };
            let (s, got) = admin(&env, "GET", &path).await;
            let pairs: Vec<(String, String)> = url_pairs(q);
            let cfg = env.state.config();
            let want =
                match api::pagination::ListParams::parse(&pairs, cfg.pagination_max_limit, cfg) {
                    Ok(p) => {
                        let mut tx = env.db.begin_read().await.unwrap();
                        let all = &api::list::Scope::GLOBAL;
                        api::list::in_memory::<AmphoraRow>(&env.state, &headers, &mut tx, &p, all)
                            .await
                    }
                    Err(e) => Err(e),
                };
            match want {
                Ok(body) => {
                    assert_eq!(s, StatusCode::OK, "{q}: {got}");
                    assert_eq!(got, body, "{q}");
                }
                Err(e) => {
                    assert_eq!(s, e.status(), "{q}: {got}");
                    let text = got
                        .get("faultstring")
                        .or_else(|| got.get("description"))
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    assert_eq!(text, e.to_string(), "{q}");
                }
            }
        }
        // a few answers spelled out
        let ids = |b: &Value| -> Vec<String> {
            b["amphorae"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a["id"].as_str().unwrap().to_string())
                .collect()
        };
        let (_, b) = admin(&env, "GET", "/v2/octavia/amphorae?status=ERROR").await;
        assert_eq!(ids(&b), vec![uid(11), uid(15)]);
        let (_, b) = admin(&env, "GET", "/v2/octavia/amphorae?limit=3").await;
        assert_eq!(ids(&b), vec![uid(10), uid(11), uid(12)]);
        assert_eq!(
            b["amphorae_links"],
            json!([{"href": format!("http://keel.test/v2/octavia/amphorae?limit=3&marker={}", uid(12)), "rel": "next"}])
        );
        let (s, b) = admin(&env, "GET", "/v2/octavia/amphorae?sort=bogus").await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(fault(&b), "Supplied sort key 'bogus' is not valid.");
    });
}

/// `a=b&c=d` as the query pairs axum gives (no percent-decoding needed here).
fn url_pairs(q: &str) -> Vec<(String, String)> {
    q.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (k.to_string(), v.to_string())
        })
        .collect()
}

#[tokio::test]
async fn delete_only_from_error_sets_pending_delete_and_casts() {
    each_env!(true, |env, ctl| {
        let (lb, _) = env.lb_listener("full", "TCP").await;
        let ok = uid(1);
        let err = uid(2);
        let gone = uid(3);
        let mut deleted = failed(&gone, 3);
        deleted.status = "DELETED".into();
        insert(&env, &[standalone(&ok, &lb, 1), failed(&err, 2), deleted]).await;
        let before = amp_row(&env, &ok).await;

        // policy first: a member gets 403 even for an unknown id
        for id in [ok.clone(), uid(9)] {
            let (s, b) = env
                .req("DELETE", &format!("/v2/octavia/amphorae/{id}"), None)
                .await;
            assert_eq!((s, fault(&b)), (StatusCode::FORBIDDEN, FORBIDDEN));
        }
        // not ERROR: 409 with the reference's lower-case resource, nothing changed or cast
        let (s, b) = admin(&env, "DELETE", &format!("/v2/octavia/amphorae/{ok}")).await;
        assert_eq!(s, StatusCode::CONFLICT);
        assert_eq!(
            fault(&b),
            format!("amphora {ok} is immutable and cannot be updated.")
        );
        assert_eq!(amp_row(&env, &ok).await, before);
        // unknown and DELETED: 404
        for id in [uid(9), gone.clone()] {
            let (s, b) = admin(&env, "DELETE", &format!("/v2/octavia/amphorae/{id}")).await;
            assert_eq!(s, StatusCode::NOT_FOUND);
            assert_eq!(fault(&b), format!("Amphora {id} not found."));
        }
        // a query parameter is an unknown argument (WSME), nothing written
        let (s, b) = admin(&env, "DELETE", &format!("/v2/octavia/amphorae/{err}?x=1")).await;
        assert_eq!(
            (s, fault(&b)),
            (StatusCode::BAD_REQUEST, "Unknown argument: \"x\"")
        );
        assert!(ctl.take().is_empty());

        // the cast fails: 503, the amphora stays ERROR
        ctl.fail.store(true, Ordering::SeqCst);
        let (s, b) = admin(&env, "DELETE", &format!("/v2/octavia/amphorae/{err}")).await;
        assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE, "{b}");
        assert_eq!(
            fault(&b),
            "The RabbitMQ service is temporarily unavailable."
        );
        assert_eq!(amp_row(&env, &err).await.status, "ERROR");
        assert_eq!(ctl.take(), vec![("delete_amphora".into(), err.clone())]);
        ctl.fail.store(false, Ordering::SeqCst);

        // ERROR → PENDING_DELETE (updated_at set), cast delete_amphora, 204
        let (s, b) = admin(&env, "DELETE", &format!("/v2/octavia/amphorae/{err}")).await;
        assert_eq!(s, StatusCode::NO_CONTENT, "{b}");
        let row = amp_row(&env, &err).await;
        assert_eq!(row.status, "PENDING_DELETE");
        assert!(row.updated_at.is_some());
        assert_eq!(ctl.take(), vec![("delete_amphora".into(), err.clone())]);
        // now PENDING_DELETE: 409
        let (s, _) = admin(&env, "DELETE", &format!("/v2/octavia/amphorae/{err}")).await;
        assert_eq!(s, StatusCode::CONFLICT);
        assert!(ctl.take().is_empty());
    });
}

#[tokio::test]
async fn writes_without_an_amphora_provider_are_501_and_write_nothing() {
    each_env!(false, |env, _ctl| {
        let (lb, _) = env.lb_listener("full", "TCP").await;
        let ok = uid(1);
        let err = uid(2);
        insert(&env, &[standalone(&ok, &lb, 1), failed(&err, 2)]).await;
        for (method, path) in [
            ("DELETE", format!("/v2/octavia/amphorae/{err}")),
            ("PUT", format!("/v2/octavia/amphorae/{ok}/failover")),
            ("PUT", format!("/v2/octavia/amphorae/{ok}/config")),
        ] {
            let (s, b) = admin(&env, method, &path).await;
            assert_eq!(s, StatusCode::NOT_IMPLEMENTED, "{path}");
            assert_eq!(fault(&b), "Provider 'amphora' was not found.");
        }
        assert_eq!(amp_row(&env, &err).await.status, "ERROR");
        assert_eq!(env.status_of("load_balancer", &lb).await, "ACTIVE");
        // the checks still come first
        let (s, _) = admin(&env, "DELETE", &format!("/v2/octavia/amphorae/{ok}")).await;
        assert_eq!(s, StatusCode::CONFLICT);
    });
}

#[tokio::test]
async fn failover_locks_an_active_lb_and_casts() {
    each_env!(true, |env, ctl| {
        let (lb, _) = env.lb_listener("full", "TCP").await;
        let a = uid(1);
        let spare = uid(2);
        insert(&env, &[standalone(&a, &lb, 1), failed(&spare, 2)]).await;
        let path = format!("/v2/octavia/amphorae/{a}/failover");

        // lookup first (404), then policy against the LB's project (403)
        let (s, b) = env
            .req(
                "PUT",
                &format!("/v2/octavia/amphorae/{}/failover", uid(9)),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        assert_eq!(fault(&b), format!("Amphora {} not found.", uid(9)));
        let (s, b) = env.req("PUT", &path, None).await;
        assert_eq!((s, fault(&b)), (StatusCode::FORBIDDEN, FORBIDDEN));
        // no load balancer: 409 (the reference fails with a 500), nothing cast
        let (s, b) = admin(
            &env,
            "PUT",
            &format!("/v2/octavia/amphorae/{spare}/failover"),
        )
        .await;
        assert_eq!(s, StatusCode::CONFLICT);
        assert_eq!(
            fault(&b),
            format!("amphora {spare} is immutable and cannot be updated.")
        );
        // the cast fails: rolled back, the LB stays ACTIVE
        ctl.fail.store(true, Ordering::SeqCst);
        let (s, _) = admin(&env, "PUT", &path).await;
        assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(env.status_of("load_balancer", &lb).await, "ACTIVE");
        assert_eq!(ctl.take(), vec![("failover_amphora".into(), a.clone())]);
        ctl.fail.store(false, Ordering::SeqCst);

        // ACTIVE → PENDING_UPDATE, cast failover_amphora, 202
        let (s, b) = admin(&env, "PUT", &path).await;
        assert_eq!(s, StatusCode::ACCEPTED, "{b}");
        assert_eq!(env.status_of("load_balancer", &lb).await, "PENDING_UPDATE");
        assert_eq!(amp_row(&env, &a).await.status, "ALLOCATED");
        assert_eq!(ctl.take(), vec![("failover_amphora".into(), a.clone())]);
        // PENDING_UPDATE, and ERROR too (MUTABLE_STATUSES is ACTIVE alone): 409, no cast
        for status in ["PENDING_UPDATE", "ERROR"] {
            env.set_status("load_balancer", &lb, status).await;
            let (s, b) = admin(&env, "PUT", &path).await;
            assert_eq!(s, StatusCode::CONFLICT, "{status}");
            assert_eq!(
                fault(&b),
                format!("Load Balancer {lb} is immutable and cannot be updated.")
            );
            assert_eq!(env.status_of("load_balancer", &lb).await, status);
        }
        assert!(ctl.take().is_empty());
    });
}

#[tokio::test]
async fn config_casts_and_changes_nothing() {
    each_env!(true, |env, ctl| {
        let (lb, _) = env.lb_listener("full", "TCP").await;
        let a = uid(1);
        let spare = uid(2);
        insert(&env, &[standalone(&a, &lb, 1), failed(&spare, 2)]).await;
        env.set_status("load_balancer", &lb, "PENDING_UPDATE").await;
        let before = amp_row(&env, &a).await;
        let path = format!("/v2/octavia/amphorae/{a}/config");

        let (s, b) = env.req("PUT", &path, None).await;
        assert_eq!((s, fault(&b)), (StatusCode::FORBIDDEN, FORBIDDEN));
        let (s, b) = admin(
            &env,
            "PUT",
            &format!("/v2/octavia/amphorae/{}/config", uid(9)),
        )
        .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        assert_eq!(fault(&b), format!("Amphora {} not found.", uid(9)));
        let (s, _) = admin(&env, "PUT", &format!("/v2/octavia/amphorae/{spare}/config")).await;
        assert_eq!(s, StatusCode::CONFLICT);
        assert!(ctl.take().is_empty());

        // no status is checked: the LB is PENDING_UPDATE and stays so
        let (s, b) = admin(&env, "PUT", &path).await;
        assert_eq!(s, StatusCode::ACCEPTED, "{b}");
        assert_eq!(
            ctl.take(),
            vec![("update_amphora_agent_config".into(), a.clone())]
        );
        assert_eq!(amp_row(&env, &a).await, before);
        assert_eq!(env.status_of("load_balancer", &lb).await, "PENDING_UPDATE");
    });
}

#[tokio::test]
async fn amphora_stats_list_the_amphoras_rows() {
    each_env!(false, |env, _ctl| {
        let (lb, l1) = env.lb_listener("full", "TCP").await;
        let a = uid(1);
        let b2 = uid(2);
        insert(&env, &[standalone(&a, &lb, 1), failed(&b2, 2)]).await;
        // a second listener id that sorts before l1 is not needed: one made-up listener id
        let l0 = "00000000-0000-4000-8000-000000000000";
        stat_rows(
            &env,
            &[(&l1, &a, 5, 10), (l0, &a, 0, 1), (&l1, &b2, 9, 100)],
        )
        .await;
        // a listener's own row (OVN convention): not an amphora's
        stat_rows(&env, &[(&l1, &l1, 3, 1000)]).await;

        let (s, b) = env
            .req("GET", &format!("/v2/octavia/amphorae/{a}/stats"), None)
            .await;
        assert_eq!((s, fault(&b)), (StatusCode::FORBIDDEN, FORBIDDEN));
        let (s, b) = admin(&env, "GET", &format!("/v2/octavia/amphorae/{a}/stats")).await;
        assert_eq!(s, StatusCode::OK, "{b}");
        assert_eq!(
            b,
            json!({"amphora_stats": [
                {"active_connections": 0, "bytes_in": 1, "bytes_out": 2, "id": a,
                 "listener_id": l0, "loadbalancer_id": lb, "request_errors": 4,
                 "total_connections": 3},
                {"active_connections": 5, "bytes_in": 10, "bytes_out": 20, "id": a,
                 "listener_id": l1, "loadbalancer_id": lb, "request_errors": 40,
                 "total_connections": 30},
            ]})
        );
        let (s, b) = admin(&env, "GET", &format!("/v2/octavia/amphorae/{b2}/stats")).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(b["amphora_stats"][0]["loadbalancer_id"], Value::Null);
        // rows of no amphora (the listener's own) and no rows: 404
        for id in [l1.clone(), uid(9)] {
            let (s, b) = admin(&env, "GET", &format!("/v2/octavia/amphorae/{id}/stats")).await;
            assert_eq!(s, StatusCode::NOT_FOUND);
            assert_eq!(fault(&b), format!("Amphora stats for {id} not found."));
        }
        let (s, _) = admin(&env, "GET", &format!("/v2/octavia/amphorae/{a}/stats?x=1")).await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
    });
}

#[tokio::test]
async fn listener_and_lb_stats_of_amphora_rows_sum_as_stats_mixin() {
    each_env!(false, |env, _ctl| {
        let (lb, l1) = env.lb_listener("full", "TCP").await;
        let l2 = env
            .create(
                "/v2/lbaas/listeners",
                "listener",
                json!({"loadbalancer_id": lb, "protocol": "TCP", "protocol_port": 81}),
            )
            .await;
        env.set_status("load_balancer", &lb, "ACTIVE").await;
        let (allocated, ready, deleted) = (uid(1), uid(2), uid(3));
        let mut r = standalone(&ready, &lb, 2);
        r.status = "READY".into();
        let mut d = standalone(&deleted, &lb, 3);
        d.status = "DELETED".into();
        insert(&env, &[standalone(&allocated, &lb, 1), r, d]).await;
        let purged = uid(4); // an amphora row housekeeping removed
        stat_rows(
            &env,
            &[
                (&l1, &allocated, 5, 1),
                (&l1, &ready, 7, 10),
                (&l1, &deleted, 11, 100),
                (&l1, &purged, 13, 1000),
                (&l2, &allocated, 17, 10000),
            ],
        )
        .await;
        // every row's counters; active connections of the ALLOCATED amphora's rows only
        let (s, b) = env
            .req("GET", &format!("/v2/lbaas/listeners/{l1}/stats"), None)
            .await;
        assert_eq!(s, StatusCode::OK, "{b}");
        assert_eq!(
            b,
            json!({"stats": {"bytes_in": 1111, "bytes_out": 2222, "active_connections": 5,
                "total_connections": 3333, "request_errors": 4444}})
        );
        let (s, b) = env
            .req("GET", &format!("/v2/lbaas/loadbalancers/{lb}/stats"), None)
            .await;
        assert_eq!(s, StatusCode::OK, "{b}");
        assert_eq!(
            b,
            json!({"stats": {"bytes_in": 11111, "bytes_out": 22222, "active_connections": 22,
                "total_connections": 33333, "request_errors": 44444}})
        );
        // the amphora failed over: its count no longer counts, its bytes still do
        env.sql(
            "UPDATE amphora SET status = 'DELETED' WHERE id = ?",
            vec![allocated.as_str().into()],
        )
        .await;
        let (_, b) = env
            .req("GET", &format!("/v2/lbaas/loadbalancers/{lb}/stats"), None)
            .await;
        assert_eq!(b["stats"]["active_connections"], 0);
        assert_eq!(b["stats"]["bytes_in"], 11111);
    });
}

/// The former `stats_of`: every row's counters, active connections of the row whose
/// amphora_id is the listener id.
fn ovn_formula(rows: &[(&str, &str, i32, i64)], listeners: &[&str]) -> Value {
    let mut s = [0i64; 5];
    for (l, amp, active, base) in rows.iter().filter(|r| listeners.contains(&r.0)) {
        s[0] += base;
        s[1] += base * 2;
        s[2] += if amp == l { i64::from(*active) } else { 0 };
        s[3] += base * 3;
        s[4] += base * 4;
    }
    json!({"stats": {"bytes_in": s[0], "bytes_out": s[1], "active_connections": s[2],
        "total_connections": s[3], "request_errors": s[4]}})
}

#[tokio::test]
async fn ovn_rows_answer_as_before() {
    each_env!(false, |env, _ctl| {
        let (lb, l1) = env.lb_listener("ovn", "TCP").await;
        let l2 = env
            .create(
                "/v2/lbaas/listeners",
                "listener",
                json!({"loadbalancer_id": lb, "protocol": "UDP", "protocol_port": 53}),
            )
            .await;
        env.set_status("load_balancer", &lb, "ACTIVE").await;
        let (_, l3) = env.lb_listener("ovn", "TCP").await;
        // empty first: zeros
        let (_, b) = env
            .req("GET", &format!("/v2/lbaas/listeners/{l1}/stats"), None)
            .await;
        assert_eq!(b, ovn_formula(&[], &[&l1]));
        let rows = [
            (l1.as_str(), l1.as_str(), 4, 3),
            (l2.as_str(), l2.as_str(), 6, 50),
            (l3.as_str(), l3.as_str(), 9, 700),
        ];
        stat_rows(&env, &rows).await;
        for l in [&l1, &l2, &l3] {
            let (s, b) = env
                .req("GET", &format!("/v2/lbaas/listeners/{l}/stats"), None)
                .await;
            assert_eq!(s, StatusCode::OK);
            assert_eq!(b, ovn_formula(&rows, &[l]));
        }
        let (_, b) = env
            .req("GET", &format!("/v2/lbaas/loadbalancers/{lb}/stats"), None)
            .await;
        assert_eq!(b, ovn_formula(&rows, &[&l1, &l2]));
        assert_eq!(b["stats"]["active_connections"], 10);
    });
}
