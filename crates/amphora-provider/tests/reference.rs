//! Every cast, refusal and metadata answer of the driver compared with what the reference's
//! own code produced (`tests/data/make_fixtures.py`, run with the Octavia 19.0.0 venv, wrote
//! the JSON files here). Keel's models below are built as Keel's API builds them
//! (`crates/api/src/provider_model.rs`) for the rows the script used. No service needed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::sync::{Arc, Mutex};

use amphora_provider::{
    AmphoraConfig, AmphoraProvider, DbMember, NoopVipAllocator, PoolFacts, PoolReader, ReadError,
    RecordingCaster,
};
use provider::{
    HealthMonitor, L7Policy, L7Rule, Listener, LoadBalancer, Member, Pool, ProviderDriver,
    ProviderError,
};
use serde_json::{Map, Value, json};

/// The configuration the fixtures were made with (make_fixtures.py): the noop compute, image
/// and volume drivers, which look nothing up.
fn noop_drivers() -> AmphoraConfig {
    AmphoraConfig {
        compute_driver: amphora_provider::COMPUTE_NOOP_DRIVER.into(),
        image_driver: amphora_provider::IMAGE_NOOP_DRIVER.into(),
        volume_driver: amphora_provider::VOLUME_NOOP_DRIVER.into(),
        ..AmphoraConfig::default()
    }
}

const LB: &str = "b1c5e8a6-0000-4000-8000-00000000000b";
const LI: &str = "b1c5e8a6-0000-4000-8000-0000000000a1";
const PO: &str = "b1c5e8a6-0000-4000-8000-0000000000b1";
const ME: &str = "b1c5e8a6-0000-4000-8000-0000000000c1";
const ME2: &str = "b1c5e8a6-0000-4000-8000-0000000000c2";
const ME3: &str = "b1c5e8a6-0000-4000-8000-0000000000c3";
const HM: &str = "b1c5e8a6-0000-4000-8000-0000000000d1";
const L7P: &str = "b1c5e8a6-0000-4000-8000-0000000000e1";
const L7R: &str = "b1c5e8a6-0000-4000-8000-0000000000f1";
const PRJ: &str = "a1b2c3d4e5f60718293a4b5c6d7e8f90";
const NET: &str = "b1c5e8a6-0000-4000-8000-000000000e01";
const SUB: &str = "b1c5e8a6-0000-4000-8000-000000000501";
const PORT: &str = "b1c5e8a6-0000-4000-8000-000000000901";

fn fixture(name: &str) -> Value {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn s(v: &str) -> Option<String> {
    Some(v.to_string())
}

/// The fake database: the pool facts and listener protocol the next call reads.
#[derive(Default)]
struct FakeDb {
    pool: Mutex<PoolFacts>,
    listener_protocol: Mutex<String>,
}

#[async_trait::async_trait]
impl PoolReader for FakeDb {
    async fn pool(&self, _pool_id: &str) -> Result<PoolFacts, ReadError> {
        Ok(self.pool.lock().unwrap().clone())
    }
    async fn listener_protocol(&self, _listener_id: &str) -> Result<String, ReadError> {
        Ok(self.listener_protocol.lock().unwrap().clone())
    }
}

struct Rig {
    caster: Arc<RecordingCaster>,
    db: Arc<FakeDb>,
    driver: AmphoraProvider,
}

fn rig() -> Rig {
    let caster = Arc::new(RecordingCaster::new());
    let db = Arc::new(FakeDb::default());
    *db.listener_protocol.lock().unwrap() = "HTTP".into();
    let driver = AmphoraProvider::new(
        noop_drivers(),
        caster.clone(),
        Arc::new(NoopVipAllocator),
        db.clone(),
    );
    Rig { caster, db, driver }
}

impl Rig {
    /// The one cast the last call made, as `{"method", "args"}`.
    fn cast(&self) -> Value {
        let mut casts = self.caster.take();
        assert_eq!(casts.len(), 1, "one cast per call");
        let (method, args) = casts.remove(0);
        json!({"method": method, "args": Value::Object(args)})
    }
}

fn check(rig: &Rig, name: &str) {
    let want = &fixture("casts.json")[name];
    assert!(!want.is_null(), "no fixture {name}");
    assert_eq!(&rig.cast(), want, "{name}");
}

fn lb_row() -> LoadBalancer {
    LoadBalancer {
        loadbalancer_id: LB.into(),
        name: s("lb1"),
        description: None,
        admin_state_up: Some(true),
        project_id: s(PRJ),
        vip_address: s("10.0.0.5"),
        vip_network_id: s(NET),
        vip_port_id: s(PORT),
        vip_subnet_id: s(SUB),
        vip_qos_policy_id: None,
        vip_sg_ids: Some(vec![]),
        additional_vips: Some(vec![]),
        flavor: Some(json!({})),
        availability_zone: Some(json!({})),
        listeners: None,
        pools: None,
    }
}

fn listener_row() -> Listener {
    Listener {
        listener_id: LI.into(),
        loadbalancer_id: s(LB),
        name: s("l1"),
        admin_state_up: Some(true),
        project_id: s(PRJ),
        protocol: s("HTTP"),
        protocol_port: Some(80),
        connection_limit: Some(-1),
        sni_container_refs: Some(vec![]),
        insert_headers: Some(json!({})),
        timeout_client_data: Some(50000),
        timeout_member_connect: Some(5000),
        timeout_member_data: Some(50000),
        timeout_tcp_inspect: Some(0),
        client_authentication: s("NONE"),
        hsts_include_subdomains: Some(false),
        hsts_preload: Some(false),
        ..Default::default()
    }
}

fn member_row(id: &str, address: &str, name: &str) -> Member {
    Member {
        member_id: id.into(),
        pool_id: s(PO),
        name: s(name),
        address: s(address),
        protocol_port: Some(8080),
        subnet_id: s(SUB),
        admin_state_up: Some(true),
        weight: Some(1),
        backup: Some(false),
        monitor_address: None,
        monitor_port: None,
        project_id: s(PRJ),
        vnic_type: s("normal"),
        subnet: None,
    }
}

fn db_member(id: &str, address: &str, name: &str) -> DbMember {
    DbMember {
        id: id.into(),
        project_id: s(PRJ),
        pool_id: PO.into(),
        ip_address: address.into(),
        protocol_port: 8080,
        weight: Some(1),
        backup: false,
        enabled: true,
        subnet_id: s(SUB),
        operating_status: "NO_MONITOR".parse().unwrap(),
        created_at: s("2026-12-01T10:00:00"),
        updated_at: None,
        provisioning_status: "ACTIVE".parse().unwrap(),
        name: s(name),
        monitor_address: None,
        monitor_port: None,
        tags: vec![],
        vnic_type: s("normal"),
    }
}

fn hm_row() -> HealthMonitor {
    HealthMonitor {
        healthmonitor_id: HM.into(),
        pool_id: s(PO),
        name: s("hm1"),
        admin_state_up: Some(true),
        project_id: s(PRJ),
        kind: s("HTTP"),
        delay: Some(5),
        timeout: Some(3),
        max_retries: Some(2),
        max_retries_down: Some(3),
        http_method: s("GET"),
        url_path: s("/"),
        expected_codes: s("200"),
        http_version: Some(1.1),
        domain_name: None,
    }
}

fn pool_row(members: Vec<Member>, hm: Option<HealthMonitor>) -> Pool {
    Pool {
        pool_id: PO.into(),
        loadbalancer_id: s(LB),
        listener_id: None,
        name: s("p1"),
        admin_state_up: Some(true),
        project_id: s(PRJ),
        lb_algorithm: s("ROUND_ROBIN"),
        protocol: s("HTTP"),
        healthmonitor: hm,
        members: Some(members),
        // Keel's sp_model leaves the NULL keys out
        session_persistence: Some(json!({"type": "APP_COOKIE", "cookie_name": "c1"})),
        tls_enabled: Some(false),
        ..Default::default()
    }
}

fn l7policy_row() -> L7Policy {
    L7Policy {
        l7policy_id: L7P.into(),
        listener_id: s(LI),
        name: s("pol1"),
        admin_state_up: Some(true),
        project_id: s(PRJ),
        action: s("REDIRECT_TO_URL"),
        position: Some(1),
        redirect_url: Some(s("http://example.com")),
        redirect_http_code: Some(Some(302)),
        rules: Some(vec![]),
        ..Default::default()
    }
}

fn l7rule_row() -> L7Rule {
    L7Rule {
        l7rule_id: L7R.into(),
        l7policy_id: s(L7P),
        admin_state_up: Some(true),
        project_id: s(PRJ),
        kind: s("PATH"),
        compare_type: s("STARTS_WITH"),
        key: None,
        value: s("/api"),
        invert: Some(false),
    }
}

#[tokio::test]
async fn load_balancer_casts() {
    let r = rig();
    // create: the request named no description
    let create = LoadBalancer {
        description: None,
        ..lb_row()
    };
    r.driver.loadbalancer_create(create.clone()).await.unwrap();
    check(&r, "loadbalancer_create");
    let with = LoadBalancer {
        flavor: Some(json!({"loadbalancer_topology": "ACTIVE_STANDBY"})),
        availability_zone: Some(json!({"compute_zone": "az1"})),
        ..create
    };
    r.driver.loadbalancer_create(with).await.unwrap();
    check(&r, "loadbalancer_create_flavor_az");
    r.driver.loadbalancer_delete(lb_row(), false).await.unwrap();
    check(&r, "loadbalancer_delete");
    r.driver.loadbalancer_delete(lb_row(), true).await.unwrap();
    check(&r, "loadbalancer_delete_cascade");
    r.driver.loadbalancer_failover(LB).await.unwrap();
    check(&r, "loadbalancer_failover");
    let new = LoadBalancer {
        loadbalancer_id: LB.into(),
        name: s("lb2"),
        admin_state_up: Some(false),
        vip_qos_policy_id: s("b1c5e8a6-0000-4000-8000-000000000a05"),
        ..Default::default()
    };
    r.driver.loadbalancer_update(lb_row(), new).await.unwrap();
    check(&r, "loadbalancer_update");
    let new = LoadBalancer {
        loadbalancer_id: LB.into(),
        description: s("d"),
        ..Default::default()
    };
    r.driver.loadbalancer_update(lb_row(), new).await.unwrap();
    check(&r, "loadbalancer_update_description");
}

#[tokio::test]
async fn listener_casts() {
    let r = rig();
    r.driver.listener_create(listener_row()).await.unwrap();
    check(&r, "listener_create");
}

/// Lists and a nested default pool are dropped by the reference's `to_dict()`; a pool's
/// list columns are kept by `create_pool`'s recursive one and dropped from `original_pool`.
#[tokio::test]
async fn list_columns_and_nested_models() {
    let r = rig();
    let l = Listener {
        default_pool_id: Some(Some(PO.into())),
        default_pool: Some(Box::new(pool_row(vec![], None))),
        alpn_protocols: Some(vec!["h2".into(), "http/1.1".into()]),
        tls_versions: Some(vec!["TLSv1.2".into()]),
        allowed_cidrs: Some(vec!["10.0.0.0/8".into()]),
        insert_headers: Some(json!({"X-Forwarded-For": "true"})),
        ..listener_row()
    };
    r.driver.listener_create(l).await.unwrap();
    check(&r, "listener_create_lists");
    let p = Pool {
        listener_id: s(LI),
        session_persistence: None,
        tls_versions: Some(vec!["TLSv1.2".into(), "TLSv1.3".into()]),
        alpn_protocols: Some(vec!["h2".into()]),
        ..pool_row(vec![], None)
    };
    r.driver.pool_create(p).await.unwrap();
    check(&r, "pool_create_lists");
}

#[tokio::test]
async fn pool_casts() {
    let r = rig();
    r.driver.pool_create(pool_row(vec![], None)).await.unwrap();
    check(&r, "pool_create");
    let full = pool_row(vec![member_row(ME, "10.0.0.10", "m1")], Some(hm_row()));
    r.driver.pool_create(full).await.unwrap();
    check(&r, "pool_create_with_children");
}

#[tokio::test]
async fn member_casts() {
    let r = rig();
    *r.db.pool.lock().unwrap() = PoolFacts {
        protocol: "HTTP".into(),
        has_listeners: false,
        vip_addresses: vec![],
        members: vec![],
    };
    let m = member_row(ME, "10.0.0.10", "m1");
    r.driver.member_create(m.clone()).await.unwrap();
    check(&r, "member_create");
    r.driver.member_delete(m.clone()).await.unwrap();
    check(&r, "member_delete");
    let new = Member {
        member_id: ME.into(),
        weight: Some(5),
        admin_state_up: Some(false),
        name: s("m2"),
        ..Default::default()
    };
    r.driver.member_update(m.clone(), new).await.unwrap();
    check(&r, "member_update");

    r.db.pool.lock().unwrap().members = vec![
        db_member(ME, "10.0.0.10", "m1"),
        db_member(ME2, "10.0.0.11", "m2"),
    ];
    let keep = Member {
        weight: Some(7),
        ..m
    };
    let new = member_row(ME3, "10.0.0.12", "m3");
    r.driver
        .member_batch_update(PO, vec![keep, new])
        .await
        .unwrap();
    check(&r, "member_batch_update");
}

#[tokio::test]
async fn health_monitor_casts() {
    let r = rig();
    r.driver.health_monitor_create(hm_row()).await.unwrap();
    check(&r, "health_monitor_create");
    r.driver.health_monitor_delete(hm_row()).await.unwrap();
    check(&r, "health_monitor_delete");
    let new = HealthMonitor {
        healthmonitor_id: HM.into(),
        delay: Some(10),
        max_retries_down: Some(4),
        max_retries: Some(5),
        admin_state_up: Some(false),
        url_path: s("/health"),
        ..Default::default()
    };
    r.driver.health_monitor_update(hm_row(), new).await.unwrap();
    check(&r, "health_monitor_update");
}

#[tokio::test]
async fn l7_casts() {
    let r = rig();
    r.driver.l7policy_create(l7policy_row()).await.unwrap();
    check(&r, "l7policy_create");
    r.driver.l7policy_delete(l7policy_row()).await.unwrap();
    check(&r, "l7policy_delete");
    r.driver.l7rule_create(l7rule_row()).await.unwrap();
    check(&r, "l7rule_create");
    r.driver.l7rule_delete(l7rule_row()).await.unwrap();
    check(&r, "l7rule_delete");
}

/// The update dicts where the reference sends a field the request set to null: an L7
/// policy's redirect attributes can say it; an L7 rule's `key` cannot (see the README), so
/// only the other keys are compared.
#[tokio::test]
async fn l7_updates_but_their_nulls() {
    let r = rig();
    let new = L7Policy {
        l7policy_id: L7P.into(),
        position: Some(2),
        admin_state_up: Some(false),
        action: s("REJECT"),
        redirect_url: Some(None),
        ..Default::default()
    };
    r.driver.l7policy_update(l7policy_row(), new).await.unwrap();
    check(&r, "l7policy_update");

    let new = L7Rule {
        l7rule_id: L7R.into(),
        value: s("/v2"),
        admin_state_up: Some(false),
        ..Default::default()
    };
    r.driver.l7rule_update(l7rule_row(), new).await.unwrap();
    let mut want = fixture("casts.json")["l7rule_update"].clone();
    want["args"]["l7rule_updates"]
        .as_object_mut()
        .unwrap()
        .remove("key");
    assert_eq!(r.cast(), want);
}

const LI2: &str = "b1c5e8a6-0000-4000-8000-0000000000a2";
const PO2: &str = "b1c5e8a6-0000-4000-8000-0000000000b2";
const PO3: &str = "b1c5e8a6-0000-4000-8000-0000000000b3";

/// Update and delete convert the reference's ORM objects (`orm_*` fixtures): a listener
/// without `default_pool` and with its raw `insert_headers` (NULL: null); the update's
/// every changed attribute.
#[tokio::test]
async fn orm_listener_casts() {
    let r = rig();
    let tcp = Listener {
        listener_id: LI2.into(),
        name: s("l2"),
        protocol: s("TCP"),
        insert_headers: None,
        ..listener_row()
    };
    r.driver.listener_delete(tcp).await.unwrap();
    check(&r, "orm_listener_delete");
    let http = Listener {
        default_pool_id: Some(s(PO)),
        insert_headers: Some(json!({"X-Forwarded-For": "true"})),
        ..listener_row()
    };
    let new = Listener {
        listener_id: LI.into(),
        name: s("l1-u"),
        timeout_client_data: Some(12345),
        timeout_tcp_inspect: Some(10),
        insert_headers: Some(json!({"X-Forwarded-Port": "true"})),
        client_authentication: s("NONE"),
        tls_ciphers: s("ECDHE"),
        hsts_max_age: Some(5),
        hsts_include_subdomains: Some(true),
        hsts_preload: Some(false),
        ..Default::default()
    };
    r.driver.listener_update(http, new).await.unwrap();
    check(&r, "orm_listener_update");
}

/// `original_pool` without `healthmonitor` and, unless the API read it, without
/// `session_persistence`; `delete_pool` with a monitor and members only when there are.
#[tokio::test]
async fn orm_pool_casts() {
    let r = rig();
    let sp_c = Some(json!({"type": "APP_COOKIE", "cookie_name": "c"}));
    // the API passes no stored persistence when the request's names its type (or is null)
    let p3 = Pool {
        pool_id: PO3.into(),
        name: s("p3"),
        listener_id: s(LI),
        session_persistence: None,
        ..pool_row(vec![member_row(ME, "10.0.0.10", "m1")], Some(hm_row()))
    };
    let new = Pool {
        pool_id: PO3.into(),
        name: s("p3-u"),
        lb_algorithm: s("SOURCE_IP"),
        session_persistence: Some(Value::Null),
        ..Default::default()
    };
    r.driver.pool_update(p3, new).await.unwrap();
    check(&r, "orm_pool_update");
    let p1 = Pool {
        listener_id: s(LI),
        ..pool_row(vec![member_row(ME, "10.0.0.10", "m1")], Some(hm_row()))
    };
    let new = Pool {
        pool_id: PO.into(),
        session_persistence: Some(json!({"type": "APP_COOKIE", "cookie_name": "c2"})),
        ..Default::default()
    };
    r.driver.pool_update(p1.clone(), new).await.unwrap();
    // only `original_pool` here: Keel's `pool_updates` persistence names every key
    let want = &fixture("casts.json")["orm_pool_update_sp_without_type"]["args"];
    assert_eq!(r.cast()["args"]["original_pool"], want["original_pool"]);
    let p2 = Pool {
        pool_id: PO2.into(),
        name: s("p2"),
        protocol: s("TCP"),
        lb_algorithm: s("LEAST_CONNECTIONS"),
        session_persistence: sp_c,
        ..pool_row(vec![], None)
    };
    r.driver.pool_delete(p2).await.unwrap();
    check(&r, "orm_pool_delete");
    r.driver.pool_delete(p1).await.unwrap();
    check(&r, "orm_pool_delete_children");
}

/// An update to REJECT: the redirect attributes sanitize cleared are sent as null.
#[tokio::test]
async fn orm_l7policy_update_sends_cleared_redirects_as_null() {
    let r = rig();
    let old = L7Policy {
        action: s("REDIRECT_TO_POOL"),
        redirect_pool_id: Some(s(PO3)),
        redirect_url: None,
        redirect_http_code: None,
        ..l7policy_row()
    };
    let new = L7Policy {
        l7policy_id: L7P.into(),
        name: s("pol-u"),
        action: s("REJECT"),
        redirect_pool_id: Some(None),
        redirect_url: Some(None),
        ..Default::default()
    };
    r.driver.l7policy_update(old, new).await.unwrap();
    check(&r, "orm_l7policy_update_reject");
}

/// `old_members` in the reference's `db_pool.members` order (the differential run's
/// `batch_update_members` deleting every member of a pool: 10.77.0.12:8080 before
/// 10.77.0.13:8081, though Keel's read had them the other way round).
#[tokio::test]
async fn batch_old_members_in_the_unique_index_order() {
    let r = rig();
    let mut m3 = db_member(ME3, "10.77.0.13", "m3");
    m3.protocol_port = 8081;
    *r.db.pool.lock().unwrap() = PoolFacts {
        protocol: "HTTP".into(),
        has_listeners: true,
        vip_addresses: vec![],
        members: vec![
            m3,
            db_member(ME2, "10.77.0.12", "m2-u"),
            db_member(ME, "10.77.0.12", "m1"),
        ],
    };
    r.driver.member_batch_update(PO, vec![]).await.unwrap();
    let cast = r.cast();
    let order: Vec<(&str, i64)> = cast["args"]["old_members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["ip_address"].as_str().unwrap(),
                m["protocol_port"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        order,
        [
            ("10.77.0.12", 8080),
            ("10.77.0.12", 8080),
            ("10.77.0.13", 8081)
        ]
    );
}

#[tokio::test]
async fn amphora_casts() {
    let r = rig();
    r.driver.failover_amphora("amp-1").await.unwrap();
    check(&r, "failover_amphora");
    r.driver.delete_amphora("amp-1").await.unwrap();
    check(&r, "delete_amphora");
    r.driver.update_amphora_agent_config("amp-1").await.unwrap();
    check(&r, "update_amphora_agent_config");
}

fn refusal(name: &str) -> ProviderError {
    let f = &fixture("refusals.json")[name];
    let user = f["user"].as_str().unwrap().to_string();
    let operator = f["operator"].as_str().unwrap().to_string();
    match f["kind"].as_str().unwrap() {
        "unsupported" => ProviderError::UnsupportedOption {
            user_fault_string: user,
            operator_fault_string: operator,
        },
        "driver" => ProviderError::Driver {
            user_fault_string: user,
            operator_fault_string: operator,
        },
        k => panic!("kind {k}"),
    }
}

#[tokio::test]
async fn refusals_are_the_references() {
    let r = rig();
    let err = r
        .driver
        .pool_create(Pool {
            pool_id: PO.into(),
            lb_algorithm: s("SOURCE_IP_PORT"),
            protocol: s("TCP"),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err, refusal("pool_algorithm"));
    let err = r
        .driver
        .pool_update(
            Pool {
                pool_id: PO.into(),
                ..Default::default()
            },
            Pool {
                pool_id: PO.into(),
                lb_algorithm: s("SOURCE_IP_PORT"),
                ..Default::default()
            },
        )
        .await
        .unwrap_err();
    assert_eq!(err, refusal("pool_update_algorithm"));
    let err = r
        .driver
        .listener_create(Listener {
            listener_id: LI.into(),
            protocol: s("FOO"),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err, refusal("listener_protocol"));
    let err = r
        .driver
        .listener_create(Listener {
            listener_id: LI.into(),
            protocol: s("TERMINATED_HTTPS"),
            alpn_protocols: Some(vec!["h2".into(), "spdy/3".into()]),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err, refusal("listener_alpn"));
    let err = r
        .driver
        .listener_update(
            Listener {
                listener_id: LI.into(),
                ..Default::default()
            },
            Listener {
                listener_id: LI.into(),
                alpn_protocols: Some(vec!["h3".into()]),
                ..Default::default()
            },
        )
        .await
        .unwrap_err();
    assert_eq!(err, refusal("listener_update_alpn"));
    let err = r
        .driver
        .pool_create(Pool {
            pool_id: PO.into(),
            lb_algorithm: s("ROUND_ROBIN"),
            alpn_protocols: Some(vec!["h3".into()]),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err, refusal("pool_alpn"));

    *r.db.pool.lock().unwrap() = PoolFacts {
        protocol: "UDP".into(),
        has_listeners: true,
        vip_addresses: vec![s("10.0.0.5")],
        members: vec![],
    };
    let v6 = Member {
        member_id: ME.into(),
        pool_id: s(PO),
        address: s("fd00::10"),
        ..Default::default()
    };
    let err = r.driver.member_create(v6.clone()).await.unwrap_err();
    assert_eq!(err, refusal("member_mixed_ip"));
    r.db.pool.lock().unwrap().protocol = "SCTP".into();
    let err = r
        .driver
        .member_batch_update(PO, vec![v6])
        .await
        .unwrap_err();
    assert_eq!(err, refusal("member_batch_mixed_ip"));

    *r.db.listener_protocol.lock().unwrap() = "TCP".into();
    let err = r.driver.l7policy_create(l7policy_row()).await.unwrap_err();
    assert_eq!(err, refusal("l7policy_tcp"));
    assert!(r.caster.take().is_empty(), "a refusal casts nothing");
}

#[tokio::test]
async fn flavor_and_az_metadata_are_the_references() {
    let r = rig();
    let f = fixture("metadata.json");
    assert_eq!(
        r.driver.get_supported_flavor_metadata().await.unwrap(),
        f["supported_flavor_metadata"]
    );
    assert_eq!(
        r.driver
            .get_supported_availability_zone_metadata()
            .await
            .unwrap(),
        f["supported_availability_zone_metadata"]
    );
    for (list, az) in [("flavors", false), ("availability_zones", true)] {
        for case in f[list].as_array().unwrap() {
            let input = &case["input"];
            let got = if az {
                r.driver.validate_availability_zone(input).await
            } else {
                r.driver.validate_flavor(input).await
            };
            match (&case["error"], got) {
                (Value::Null, Ok(())) => {}
                (
                    want,
                    Err(ProviderError::UnsupportedOption {
                        user_fault_string, ..
                    }),
                ) => {
                    assert_eq!(want["kind"], "unsupported", "{input}");
                    assert_eq!(want["user"], user_fault_string.as_str(), "{input}");
                }
                (want, got) => panic!("{input}: want {want}, got {got:?}"),
            }
        }
    }
}

#[tokio::test]
async fn a_cast_rabbitmq_refuses_is_a_503_naming_it() {
    let driver = AmphoraProvider::new(
        noop_drivers(),
        Arc::new(RecordingCaster::failing()),
        Arc::new(NoopVipAllocator),
        Arc::new(FakeDb::default()),
    );
    let err = driver.loadbalancer_failover(LB).await.unwrap_err();
    assert!(matches!(&err, ProviderError::Unavailable { service, .. } if service == "RabbitMQ"));
    assert_eq!(
        err.to_string(),
        "The RabbitMQ service is temporarily unavailable."
    );
}

#[tokio::test]
async fn private_keys_are_never_cast() {
    let r = rig();
    let l = Listener {
        protocol: s("TERMINATED_HTTPS"),
        default_tls_container_ref: s("ref1"),
        default_tls_container_data: Some(json!({"certificate": "C", "private_key": "KEY"})),
        sni_container_data: Some(vec![json!({"private_key": "KEY2"})]),
        ..listener_row()
    };
    r.driver.listener_create(l.clone()).await.unwrap();
    r.driver.listener_update(l.clone(), l).await.unwrap();
    let p = Pool {
        tls_container_ref: s("ref2"),
        tls_container_data: Some(json!({"private_key": "KEY3"})),
        ..pool_row(vec![], None)
    };
    r.driver.pool_create(p.clone()).await.unwrap();
    r.driver.pool_delete(p.clone()).await.unwrap();
    r.driver.pool_update(p.clone(), p).await.unwrap();
    for (method, args) in r.caster.take() {
        let text = Value::Object(args).to_string();
        assert!(!text.contains("KEY"), "{method}: {text}");
        assert!(!text.contains("_container_data\""), "{method}: {text}");
    }
}

#[test]
fn db_member_renders_every_column() {
    let m: Map<String, Value> = db_member(ME2, "10.0.0.11", "m2").to_dict();
    let want = &fixture("casts.json")["member_batch_update"]["args"]["old_members"][0];
    assert_eq!(&Value::Object(m), want);
}
