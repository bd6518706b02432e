//! Accepted work is never lost: a `keel serve` stopped by SIGTERM finishes what it accepted and
//! exits 0; one SIGKILLed at any instant of a 200-member batch update, an LB create or a
//! cascade delete, then started again alone, brings every object to ACTIVE, ERROR or DELETED
//! within the recovery bound, with the OVN NB matching the database and no VIP port left
//! without its load balancer. Real `keel serve` processes on the stack (Keystone, Neutron,
//! OVN NB/SB + northd) over SQLite and MariaDB, checked with `curl`, `sqlite3`/`mysql` and
//! `ovsdb-client`.
//!
//! The kill instants are delays after the request was sent, spread over the request's life
//! (before its commit, between the commit and the NB transaction, before the status report);
//! whatever instant each lands on, the same end state must hold.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Command;
use std::time::Duration;

use common::{Backend, Keel, LbGuard, NeutronNet, get, map, nb_select, neutron, wait_for};
use serde_json::{Value, json};

/// What `keel serve` logs when it takes over orphaned work.
const TAKEOVER: &str = "taking over accepted work";
/// What it logs when it deletes a VIP port whose LB create never committed.
const SWEPT: &str = "orphan VIP port deleted";
/// Short lease so a restarted Keel takes over within seconds.
const RECOVERY: &str = "[keel]\nrecovery_lease = 2\nrecovery_period = 1\n";
/// How long recovery may take after the restart (lease + periods + the work itself, and the
/// orphan VIP port sweep: two sweeps a lease apart).
const BOUND: Duration = Duration::from_secs(90);

/// `curl` without panicking when the server dies mid-request: `None` then.
fn try_http(method: &str, url: &str, token: &str, body: &Value) -> Option<u16> {
    let out = Command::new("curl")
        .args(["-sS", "-o", "/dev/null", "-w", "%{http_code}", "-X", method])
        .args(["-H", "Content-Type: application/json", "-H"])
        .arg(format!("X-Auth-Token: {token}"))
        .arg("-d")
        .arg(body.to_string())
        .arg(url)
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}

/// Rows of the LB's tree (LB included) still PENDING_*, as the database says.
fn pending(keel: &Keel, lb: &str) -> i64 {
    let q = format!(
        "SELECT (SELECT COUNT(*) FROM load_balancer WHERE id = '{lb}' AND provisioning_status LIKE 'PENDING%') \
         + (SELECT COUNT(*) FROM listener WHERE load_balancer_id = '{lb}' AND provisioning_status LIKE 'PENDING%') \
         + (SELECT COUNT(*) FROM pool WHERE load_balancer_id = '{lb}' AND provisioning_status LIKE 'PENDING%') \
         + (SELECT COUNT(*) FROM member m JOIN pool p ON p.id = m.pool_id WHERE p.load_balancer_id = '{lb}' AND m.provisioning_status LIKE 'PENDING%')"
    );
    keel.sql(&q).parse().unwrap()
}

fn lb_status(keel: &Keel, lb: &str) -> String {
    keel.sql(&format!(
        "SELECT provisioning_status FROM load_balancer WHERE id = '{lb}'"
    ))
}

/// Waits (within [`BOUND`]) until nothing of the LB's tree is PENDING_*.
fn settled(keel: &Keel, lb: &str) {
    wait_for(
        &format!("{lb}: no PENDING_* left"),
        BOUND,
        || match pending(keel, lb) {
            0 => Ok(()),
            n => Err(format!("{n} rows PENDING_*; log: {}", tail(keel))),
        },
    );
}

fn tail(keel: &Keel) -> String {
    let log = keel.log();
    let start = log.len().saturating_sub(1500);
    log[start..].to_string()
}

/// The pool's members in the database, as `ip:port`, sorted.
fn db_members(keel: &Keel, pool: &str) -> Vec<String> {
    let out = keel.sql(&format!(
        "SELECT ip_address, protocol_port FROM member WHERE pool_id = '{pool}'"
    ));
    let mut v: Vec<String> = out
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut f = l.split(['\t', '|']);
            format!("{}:{}", f.next().unwrap(), f.next().unwrap())
        })
        .collect();
    v.sort();
    v
}

/// The backends of the NB row's `vips` entry `vip_key`, sorted.
fn nb_backends(lb: &str, vip_key: &str) -> Vec<String> {
    let rows = nb_select("Load_Balancer", json!([["name", "==", lb]]));
    assert_eq!(rows.len(), 1, "{rows:?}");
    let vips = map(&rows[0]["vips"]);
    let mut b: Vec<String> = get(&vips, vip_key)
        .unwrap_or_default()
        .split(',')
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect();
    b.sort();
    b
}

/// The `ip:port` keys of a batch body's `members`, sorted (as [`db_members`] gives them).
fn member_keys(members: &Value) -> Vec<String> {
    let mut v: Vec<String> = members
        .as_array()
        .unwrap()
        .iter()
        .map(|m| format!("{}:{}", m["address"].as_str().unwrap(), m["protocol_port"]))
        .collect();
    v.sort();
    v
}

fn members(port: u16, n: u8) -> Value {
    Value::Array(
        (0..n)
            .map(|i| json!({"address": format!("10.0.0.{}", 10 + u16::from(i)), "protocol_port": port}))
            .collect(),
    )
}

/// An LB with a TCP listener on 80 and its pool, all ACTIVE: (lb, pool, vips key).
fn lb_with_pool(
    keel: &Keel,
    token: &str,
    net: &NeutronNet,
    name: &str,
) -> (String, String, String) {
    let lb = keel.create_lb(token, name, &net.subnet);
    let lb_id = lb["id"].as_str().unwrap().to_string();
    let listener = keel.create(
        token,
        &lb_id,
        "/v2/lbaas/listeners",
        json!({"listener": {"loadbalancer_id": lb_id, "protocol": "TCP", "protocol_port": 80}}),
    );
    let pool = keel.create(
        token,
        &lb_id,
        "/v2/lbaas/pools",
        json!({"pool": {"listener_id": listener["id"], "protocol": "TCP",
            "lb_algorithm": "SOURCE_IP_PORT"}}),
    );
    let key = format!("{}:80", lb["vip_address"].as_str().unwrap());
    (lb_id, pool["id"].as_str().unwrap().to_string(), key)
}

/// SIGKILL at spread instants of 200-member batch updates (200 new members replacing 200
/// old ones each time), restart alone: every time, nothing PENDING_* within the bound, the LB
/// ACTIVE, and the NB pool holds exactly the database's members.
fn batch_killed_at_any_instant(backend: Backend) {
    let mut keel = Keel::start_with(backend, |c| c + RECOVERY);
    let tag = common::tag();
    let net = NeutronNet::create(&tag, &[]);
    let token = common::demo_token();
    let (lb, pool, key) = lb_with_pool(&keel, &token, &net, &format!("rec-batch-{tag}"));
    let _rows = LbGuard(lb.clone());
    let url = format!("{}/v2/lbaas/pools/{pool}/members", keel.url());
    // one batch left alone: how long the request lives on this machine (token validated,
    // so the rounds below spend their time in the request itself)
    let started = std::time::Instant::now();
    assert_eq!(
        try_http(
            "PUT",
            &url,
            &token,
            &json!({ "members": members(7070, 200) })
        ),
        Some(202)
    );
    let life = started.elapsed().as_millis() as u64;
    let mut recovered = 0;
    // spread instants over that life; a loaded machine answers later than the calibration
    // did, so while no round has hit accepted-but-unfinished work, later instants follow
    // (×1.5 each, at most 8 more)
    let spread = [20u64, 40, 60, 75, 90, 100].map(|p| life * p / 100);
    let mut later = std::iter::successors(Some(life * 3 / 2), |d| Some(d * 3 / 2)).take(8);
    for round in 0.. {
        let delay_ms = match spread.get(round) {
            Some(d) => *d,
            None if recovered == 0 => match later.next() {
                Some(d) => d,
                None => break,
            },
            None => break,
        };
        let takeovers = keel.log().matches(TAKEOVER).count();
        // the restarted process validates the token before the timed request
        let (code, _) = keel.api("GET", &format!("/v2/lbaas/pools/{pool}"), &token, None);
        assert_eq!(code, 200);
        let port = if round % 2 == 0 { 8080 } else { 9090 };
        let body = json!({ "members": members(port, 200) });
        // the whole old set or the whole new set, never a mix: a batch update is one change
        // (read once the previous change settled: PENDING_* rows of both sets are rows too)
        settled(&keel, &lb);
        let old = db_members(&keel, &pool);
        let new = member_keys(&body["members"]);
        let (u, t) = (url.clone(), token.clone());
        let client = std::thread::spawn(move || try_http("PUT", &u, &t, &body));
        std::thread::sleep(Duration::from_millis(delay_ms));
        keel.kill();
        let answered = client.join().unwrap();
        keel.restart();
        settled(&keel, &lb);
        assert_eq!(
            lb_status(&keel, &lb),
            "ACTIVE",
            "round {round}: {}",
            tail(&keel)
        );
        let db = db_members(&keel, &pool);
        assert_eq!(
            db,
            nb_backends(&lb, &key),
            "round {round} (kill after {delay_ms} ms, client saw {answered:?}): DB and NB disagree"
        );
        assert!(
            db == old || db == new,
            "round {round} (kill after {delay_ms} ms, client saw {answered:?}): the member set is \
             neither the whole old set nor the whole new set: {} members, {} of the old {}, {} of \
             the new {}",
            db.len(),
            db.iter().filter(|m| old.contains(m)).count(),
            old.len(),
            db.iter().filter(|m| new.contains(m)).count(),
            new.len()
        );
        if answered == Some(202) {
            // accepted: the new set must have landed
            assert_eq!(
                db, new,
                "round {round} (kill after {delay_ms} ms): the client saw 202, the old set stayed"
            );
        }
        if keel.log().matches(TAKEOVER).count() > takeovers {
            recovered += 1;
        }
        eprintln!(
            "round {round}: kill after {delay_ms} of {life} ms, client saw {answered:?}, recovered: {recovered}"
        );
    }
    // the spread of instants must have hit accepted-but-unfinished work at least once
    assert!(
        recovered > 0,
        "no round left work for recovery: {}",
        tail(&keel)
    );
    keel.delete_lb_cascade(&token, &lb);
}

#[test]
fn batch_update_killed_at_any_instant_sqlite() {
    batch_killed_at_any_instant(Backend::Sqlite);
}

#[test]
fn batch_update_killed_at_any_instant_mariadb() {
    batch_killed_at_any_instant(Backend::MariaDb);
}

/// The VIP ports (`ovn-lb-vip-<lb>`) on `net`, by LB id.
fn vip_ports(net: &NeutronNet) -> Vec<String> {
    let (code, body) = neutron(
        "GET",
        &format!("/ports?network_id={}", net.net),
        &common::admin_token(),
        None,
    );
    assert_eq!(code, 200, "{body}");
    body["ports"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| {
            p["name"]
                .as_str()?
                .strip_prefix("ovn-lb-vip-")
                .map(String::from)
        })
        .collect()
}

/// SIGKILL at spread instants of LB creates and of cascade deletes, restart alone: every load
/// balancer ends ACTIVE with its NB row, or DELETED without one (or is absent: the create never
/// committed), and no VIP port outlives its load balancer.
#[test]
fn lb_create_and_cascade_delete_killed_at_any_instant() {
    let mut keel = Keel::start_with(Backend::MariaDb, |c| c + RECOVERY);
    let tag = common::tag();
    let net = NeutronNet::create(&tag, &[]);
    let token = common::demo_token();
    let url = format!("{}/v2/lbaas/loadbalancers", keel.url());
    // one create left alone: how long it lives here (its LB is deleted at the end)
    let started = std::time::Instant::now();
    let first = keel.create_lb(&token, &format!("rec-first-{tag}"), &net.subnet);
    let life = started.elapsed().as_millis() as u64;
    let first = first["id"].as_str().unwrap().to_string();
    let _first_rows = LbGuard(first.clone());
    for percent in [30u64, 60, 85, 100] {
        let delay_ms = life * percent / 100;
        let (code, _) = keel.api(
            "GET",
            &format!("/v2/lbaas/loadbalancers/{first}"),
            &token,
            None,
        );
        assert_eq!(code, 200);
        let body = json!({"loadbalancer": {"name": format!("rec-create-{tag}"),
            "vip_subnet_id": net.subnet, "provider": "ovn"}});
        let (u, t) = (url.clone(), token.clone());
        let client = std::thread::spawn(move || try_http("POST", &u, &t, &body));
        std::thread::sleep(Duration::from_millis(delay_ms));
        keel.kill();
        let _ = client.join();
        keel.restart();
    }
    let ids: Vec<String> = keel
        .sql(&format!(
            "SELECT id FROM load_balancer WHERE name = 'rec-create-{tag}'"
        ))
        .lines()
        .map(String::from)
        .collect();
    let _rows: Vec<LbGuard> = ids.iter().cloned().map(LbGuard).collect();
    for lb in &ids {
        settled(&keel, lb);
        assert_eq!(lb_status(&keel, lb), "ACTIVE", "{}", tail(&keel));
        assert_eq!(
            nb_select("Load_Balancer", json!([["name", "==", lb]])).len(),
            1
        );
    }
    wait_for("no VIP port without its load balancer", BOUND, || {
        let orphans: Vec<String> = vip_ports(&net)
            .into_iter()
            .filter(|lb| !ids.contains(lb) && *lb != first)
            .collect();
        if orphans.is_empty() {
            Ok(())
        } else {
            Err(format!("{orphans:?}"))
        }
    });

    // cascade deletes killed at spread instants of a delete's life
    let started = std::time::Instant::now();
    keel.delete_lb_cascade(&token, &first);
    let life = started.elapsed().as_millis() as u64;
    for percent in [10u64, 40, 70, 100] {
        let delay_ms = life * percent / 100;
        let (lb, _pool, _key) = lb_with_pool(&keel, &token, &net, &format!("rec-del-{tag}"));
        let _rows = LbGuard(lb.clone());
        let u = format!("{url}/{lb}?cascade=true");
        let t = token.clone();
        let client = std::thread::spawn(move || try_http("DELETE", &u, &t, &Value::Null));
        std::thread::sleep(Duration::from_millis(delay_ms));
        keel.kill();
        let _ = client.join();
        keel.restart();
        settled(&keel, &lb);
        let rows = nb_select("Load_Balancer", json!([["name", "==", lb]]));
        match lb_status(&keel, &lb).as_str() {
            "DELETED" => {
                assert!(rows.is_empty(), "deleted LB {lb} kept NB rows {rows:?}");
                wait_for("the children DELETED too", BOUND, || {
                    match live_children(&keel, &lb) {
                        0 => Ok(()),
                        n => Err(format!("{n} children of a DELETED LB left")),
                    }
                });
            }
            "ACTIVE" => {
                // the kill came before the delete committed: it never happened
                assert_eq!(rows.len(), 1);
                keel.delete_lb_cascade(&token, &lb);
            }
            other => panic!("{lb} ended {other}: {}", tail(&keel)),
        }
    }
    let log = keel.log();
    let (takeovers, swept) = (log.matches(TAKEOVER).count(), log.matches(SWEPT).count());
    eprintln!("takeovers {takeovers}, orphan VIP ports deleted {swept}");
    assert!(
        takeovers + swept > 0,
        "no kill left work for recovery: {}",
        tail(&keel)
    );
}

/// SIGTERM: the requests and provider work in flight finish (a 200-member batch answered 202
/// and applied to the database and the NB), the agent lock is given up, and the process
/// exits 0.
#[test]
fn sigterm_finishes_accepted_work_and_exits_zero() {
    let mut keel = Keel::start(Backend::Sqlite);
    let tag = common::tag();
    let net = NeutronNet::create(&tag, &[]);
    let token = common::demo_token();
    let (lb, pool, key) = lb_with_pool(&keel, &token, &net, &format!("rec-term-{tag}"));
    let _rows = LbGuard(lb.clone());
    let url = format!("{}/v2/lbaas/pools/{pool}/members", keel.url());
    let body = json!({ "members": members(8080, 200) });
    let t = token.clone();
    let client = std::thread::spawn(move || try_http("PUT", &url, &t, &body));
    // SIGTERM once the request is being served: its rows are written (PENDING_* or already
    // ACTIVE when the work was quicker than this poll)
    wait_for(
        "the batch reached the database",
        Duration::from_secs(30),
        || {
            let n: i64 = keel
                .sql(&format!(
                    "SELECT COUNT(*) FROM member WHERE pool_id = '{pool}'"
                ))
                .parse()
                .unwrap();
            if n > 0 {
                Ok(())
            } else {
                Err("no member row yet".into())
            }
        },
    );
    let status = keel.terminate(Duration::from_secs(60));
    assert_eq!(client.join().unwrap(), Some(202), "{}", keel.log());
    let status =
        status.unwrap_or_else(|| panic!("still running 60 s after SIGTERM: {}", keel.log()));
    assert!(status.success(), "exit {status}: {}", keel.log());
    assert!(keel.log().contains("keel stopped"), "{}", keel.log());
    assert_eq!(pending(&keel, &lb), 0, "{}", keel.log());
    let db = db_members(&keel, &pool);
    assert_eq!(db.len(), 200);
    assert_eq!(db, nb_backends(&lb, &key));
    assert!(
        !common::AgentLock::is_held_elsewhere(),
        "agent lock still held after exit"
    );
    keel.restart();
    keel.delete_lb_cascade(&token, &lb);
}

/// Rows of the LB's children (listeners, pools, members, health monitors) not DELETED.
fn live_children(keel: &Keel, lb: &str) -> i64 {
    let q = format!(
        "SELECT (SELECT COUNT(*) FROM listener WHERE load_balancer_id = '{lb}' AND provisioning_status <> 'DELETED') \
         + (SELECT COUNT(*) FROM pool WHERE load_balancer_id = '{lb}' AND provisioning_status <> 'DELETED') \
         + (SELECT COUNT(*) FROM member m JOIN pool p ON p.id = m.pool_id WHERE p.load_balancer_id = '{lb}' AND m.provisioning_status <> 'DELETED') \
         + (SELECT COUNT(*) FROM health_monitor h JOIN pool p ON p.id = h.pool_id WHERE p.load_balancer_id = '{lb}' AND h.provisioning_status <> 'DELETED')"
    );
    keel.sql(&q).parse().unwrap()
}

/// `quotas.in_use_<kind>` of `project` (0 for NULL or no row).
fn in_use(keel: &Keel, project: &str, kind: &str) -> i64 {
    keel.sql(&format!(
        "SELECT COALESCE(MAX(in_use_{kind}), 0) FROM quotas WHERE project_id = '{project}'"
    ))
    .parse()
    .unwrap()
}

/// The two crash states an operator trial left behind, made exactly (SQL + NB by hand, then a
/// restart), so the recovery of each is tested whatever instant a kill lands on:
/// * work on a pool with a health monitor and a member with no Neutron port (a member the
///   normal path keeps unmapped and ERROR): recovery ends ACTIVE, the member that was being
///   deleted DELETED and its quota back — not the whole tree ERROR, the member kept;
/// * a cascade delete whose NB transaction committed before the process died (the NB rows
///   gone, the LB PENDING_DELETE): recovery deletes the listener, pool, members and health
///   monitor too, and gives their quota back — none stays ACTIVE under a DELETED LB.
#[test]
fn recovery_completes_work_the_nb_already_shows() {
    let mut keel = Keel::start_with(Backend::Sqlite, |c| c + RECOVERY);
    let tag = common::tag();
    // 10.0.0.10 has a Neutron port; 10.0.0.20 and 10.0.0.21 have none
    let net = NeutronNet::create(&tag, &["10.0.0.10"]);
    let token = common::demo_token();
    let g = keel.create_graph(
        &token,
        &format!("rec-nb-{tag}"),
        &net.subnet,
        &["10.0.0.10", "10.0.0.20", "10.0.0.21"],
    );
    let lb = g.lb_id.clone();
    let project = keel.sql(&format!(
        "SELECT project_id FROM load_balancer WHERE id = '{lb}'"
    ));
    let members_before = in_use(&keel, &project, "member");

    // 1. a member delete (10.0.0.21) accepted, its NB part done, the report lost
    let (code, out) = keel.api(
        "DELETE",
        &format!("/v2/lbaas/pools/{}/members/{}", g.pool_id, g.members[2]),
        &token,
        None,
    );
    assert_eq!(code, 204, "{out}");
    keel.wait_lb_active(&token, &lb);
    keel.kill();
    keel.sql(&format!(
        "DELETE FROM member WHERE id = '{m}'; INSERT INTO member (project_id, id, pool_id, subnet_id, ip_address, protocol_port, \
         weight, operating_status, enabled, created_at, updated_at, provisioning_status, backup) \
         VALUES ('{project}', '{m}', '{pool}', '{subnet}', '10.0.0.21', 8080, 1, 'ERROR', 1, \
         '2000-01-01 00:00:00', '2000-01-01 00:00:00', 'PENDING_DELETE', 0)",
        m = g.members[2],
        pool = g.pool_id,
        subnet = net.subnet
    ));
    keel.sql(&format!(
        "UPDATE quotas SET in_use_member = {members_before} WHERE project_id = '{project}'"
    ));
    keel.sql(&format!(
        "UPDATE load_balancer SET provisioning_status = 'PENDING_UPDATE', \
         updated_at = '2000-01-01 00:00:00' WHERE id = '{lb}'"
    ));
    keel.restart();
    settled(&keel, &lb);
    assert_eq!(lb_status(&keel, &lb), "ACTIVE", "{}", tail(&keel));
    let left = keel.sql(&format!(
        "SELECT id, provisioning_status FROM member WHERE pool_id = '{}' ORDER BY ip_address",
        g.pool_id
    ));
    assert!(!left.contains(&g.members[2]), "{left}");
    assert!(!left.contains("ERROR"), "{left}");
    assert_eq!(in_use(&keel, &project, "member"), members_before - 1);

    // 2. a cascade delete whose NB transaction committed, the report lost
    let listeners_before = in_use(&keel, &project, "listener");
    keel.kill();
    common::nbctl(&["lb-del", &lb]);
    keel.sql(&format!(
        "UPDATE load_balancer SET provisioning_status = 'PENDING_DELETE', \
         updated_at = '2000-01-01 00:00:00' WHERE id = '{lb}'"
    ));
    keel.restart();
    settled(&keel, &lb);
    wait_for("the LB DELETED with its children", BOUND, || {
        match (lb_status(&keel, &lb).as_str(), live_children(&keel, &lb)) {
            ("DELETED", 0) => Ok(()),
            (s, n) => Err(format!("LB {s}, {n} children not DELETED; {}", tail(&keel))),
        }
    });
    assert_eq!(in_use(&keel, &project, "listener"), listeners_before - 1);
    assert_eq!(in_use(&keel, &project, "member"), members_before - 3);
}
