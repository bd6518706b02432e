//! Traffic through load balancers made with Keel's API, on the stack's data plane
//! (`ci/stack/dataplane-up.sh`: ovs-vswitchd + ovn-controller as a chassis of the stack's SB)
//! and the real Neutron: "VMs" are network namespaces holding a bound Neutron port
//! (`ci/stack/dataplane.sh`), servers answer each connection with their VM's name, so a
//! client sees which member served it.
//!
//! One load balancer carries every assertion of [`tcp_traffic_member_changes_health_restart`]
//! (each step starts from the state the previous one proved), to keep CI short: a same-subnet
//! and a routed client reach every member and only members; the VIP's floating IP answers a
//! client on the external network; under a client loop that must see no failed connection
//! ([`under_loop`]): member admin down/up, delete and batch update (who answers follows), LB,
//! listener and pool updates (the algorithm change reaches the data plane), `keel ovn-db-sync`
//! on the in-sync NB, Keel SIGKILLed and restarted; a TCP health monitor's real probes turn a
//! stopped member ERROR (pool DEGRADED, traffic gone) and ONLINE again, disabling it puts the
//! stopped member back among the backends (its connections refused) and enabling it finds it
//! again, deleting it leaves the members NO_MONITOR; every member down, measured; a UDP
//! listener on the same load balancer reaches its members from both clients.
//! [`udp_connect_monitor`] (ignored in CI: the data plane's UDP probe is unreliable, see
//! there) has a UDP-CONNECT monitor turn a stopped server's member ERROR and ONLINE again.
//! SCTP is not tested: the data plane cannot carry it (README, "Traffic").
//! Figures (member create → first connection, HM reaction times, connections per window) are
//! printed as `TRAFFIC …` lines; the README keeps the last measured ones.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::dataplane::*;
use common::{
    Backend, Endpoint, Keel, LbGuard, NeutronNet, demo_token, nb_select, neutron, wait_for,
};
use serde_json::{Value, json};

#[test]
fn tcp_traffic_member_changes_health_restart() {
    let start = Instant::now();
    let vswitchd = vswitchd_pid();
    let tag = common::tag();
    let t4 = &tag[..4];
    // the external network and its client first, long before any monitor: in 3 of the 4
    // runs where they were made mid-test (as on a fresh machine, a CI rehearsal included)
    // the TCP monitor's probes then failed a member that answered; already there, 0 of 6
    // (a correlation, the mechanism is not known)
    dp(&["ext-net"]);
    let net = NeutronNet::create(&format!("tr-{tag}"), &[]);
    let routed = RoutedNet::create(&format!("keel-e2e-tr-{tag}-b"), &net.router);
    let name = |role: &str| format!("{role}{t4}");
    let [m1, m2, m3, same, routed_client] = vms([
        (name("ma"), &net.net),
        (name("mb"), &net.net),
        (name("mc"), &net.net),
        (name("cs"), &net.net),
        (name("cr"), &routed.net),
    ]);
    for m in [&m1, &m2, &m3] {
        m.serve("tcp", 8080);
    }

    let mut keel = Keel::start(Backend::Sqlite);
    // what follows judges the agent's work (health, FIPs): this Keel must be the agent
    common::monitors::assert_agent_active(&keel);
    let token = demo_token();
    let lb = keel.create_lb(&token, &format!("tr-{tag}"), &net.subnet);
    let lb_id = lb["id"].as_str().unwrap().to_string();
    let _rows = LbGuard(lb_id.clone());
    let vip = lb["vip_address"].as_str().unwrap().to_string();
    let id = |v: Value| v["id"].as_str().unwrap().to_string();
    let listener = id(keel.create(
        &token,
        &lb_id,
        "/v2/lbaas/listeners",
        json!({"listener": {"loadbalancer_id": lb_id, "protocol": "TCP", "protocol_port": 80}}),
    ));
    let pool = id(keel.create(
        &token,
        &lb_id,
        "/v2/lbaas/pools",
        json!({"pool": {"listener_id": listener, "protocol": "TCP",
            "lb_algorithm": "SOURCE_IP_PORT"}}),
    ));
    let members = format!("/v2/lbaas/pools/{pool}/members");
    let tcp = ("tcp", vip.as_str(), 80);
    let in_pool = (lb_id.as_str(), pool.as_str());

    // member create → first connection served (the create's answer comes once the NB row
    // is committed: settle_wait_ms)
    let t0 = Instant::now();
    let mem1 = id(keel.create(
        &token,
        &lb_id,
        &members,
        member_body(&m1, 8080, &net.subnet),
    ));
    wait_for(
        "first connection through the VIP",
        Duration::from_secs(30),
        || {
            let t = same.probe("tcp", &vip, 80, 1);
            if t.failed() == 0 {
                Ok(())
            } else {
                Err(format!("{t:?}"))
            }
        },
    );
    println!(
        "TRAFFIC {} member create → first connection served: {} ms",
        since(start),
        t0.elapsed().as_millis()
    );
    let mem2 = id(keel.create(
        &token,
        &lb_id,
        &members,
        member_body(&m2, 8080, &net.subnet),
    ));

    // every member, only members, from the VIP's own subnet and from behind the router
    let both = [m1.name.as_str(), m2.name.as_str()];
    wait_who(&same, tcp, &both);
    for client in [&same, &routed_client] {
        let t = client.probe("tcp", &vip, 80, 30);
        assert_eq!(
            (t.failed(), t.who()),
            (0, both.iter().map(|s| s.to_string()).collect()),
            "client {}: {t:?}",
            client.name
        );
    }

    // why same-subnet clients work: the VIP port has no device_owner, so Neutron leaves its
    // switch port without addresses; the reference's owner (`ovn-lb:vip`), set here for
    // contrast, gives it "<MAC> <VIP>" and same-subnet connections die on that never-bound
    // port while routed ones go on (the test that it can fail)
    let vip_port = lb["vip_port_id"].as_str().unwrap().to_string();
    let vip_port_path = format!("/ports/{vip_port}");
    let (_, p) = neutron("GET", &vip_port_path, &common::admin_token(), None);
    assert_eq!(p["port"]["device_owner"], "", "{p}");
    let lsp_addresses = || {
        nb_select("Logical_Switch_Port", json!([["name", "==", vip_port]]))
            .first()
            .map(|r| r["addresses"].clone())
            .unwrap_or(Value::Null)
    };
    assert_eq!(
        lsp_addresses(),
        json!(["set", []]),
        "VIP port's switch port addresses"
    );
    let set_owner = |owner: &str| {
        let (c, b) = neutron(
            "PUT",
            &vip_port_path,
            &common::admin_token(),
            Some(&json!({"port": {"device_owner": owner}})),
        );
        assert_eq!(c, 200, "{b}");
        wait_for(
            "the VIP port's LSP addresses follow",
            Duration::from_secs(20),
            || {
                let a = lsp_addresses();
                if (a == json!(["set", []])) == owner.is_empty() {
                    Ok(())
                } else {
                    Err(a.to_string())
                }
            },
        );
        dp(&["exec", &same.name, "ip", "neigh", "flush", "all"]);
    };
    set_owner("ovn-lb:vip");
    let broken = same.probe("tcp", &vip, 80, 5);
    let routed_ok = routed_client.probe("tcp", &vip, 80, 10);
    set_owner("");
    wait_who(&same, tcp, &both);
    println!(
        "TRAFFIC {} VIP port with the reference's device_owner ovn-lb:vip: same-subnet {}/5, \
         routed {}/10 connections",
        since(start),
        5 - broken.failed(),
        10 - routed_ok.failed()
    );
    assert_eq!(
        broken.failed(),
        5,
        "same-subnet with the reference's VIP port: {broken:?}"
    );
    assert_eq!(
        routed_ok.failed(),
        0,
        "routed with the reference's VIP port: {routed_ok:?}"
    );

    // the VIP's floating IP, from a client on the external network (keel-dp-ext, shared)
    let (fip, _fip) = floating_ip(&net.router, &vip_port, &token, &lb_id, start);
    let ext = Vm {
        name: "ext".into(),
        ip: "172.24.4.2".into(),
        ips: vec!["172.24.4.2".into()],
        keep: true,
    };
    let t0 = Instant::now();
    wait_who(&ext, ("tcp", &fip, 80), &both);
    println!(
        "TRAFFIC {} floating IP in the NB → every member answers on it from outside: {} ms",
        since(start),
        t0.elapsed().as_millis()
    );

    // member changes under a client loop: nothing refused, who answers follows the API
    let m1_path = format!("{members}/{mem1}");
    let seen = under_loop(
        &same,
        tcp,
        "member admin down/up, delete, batch update",
        start,
        || {
            put(
                &keel,
                &token,
                &lb_id,
                &m1_path,
                json!({"member": {"admin_state_up": false}}),
            );
            wait_who(&same, tcp, &[&m2.name]);
            put(
                &keel,
                &token,
                &lb_id,
                &m1_path,
                json!({"member": {"admin_state_up": true}}),
            );
            wait_who(&same, tcp, &both);
            let (code, body) = keel.api("DELETE", &m1_path, &token, None);
            assert_eq!(code, 204, "{body}");
            keel.wait_lb_active(&token, &lb_id);
            wait_who(&same, tcp, &[&m2.name]);
            // batch update: keep m2, add m3
            let kept: Vec<Value> = [&m2, &m3]
                .iter()
                .map(|v| {
                    json!({"name": v.name, "address": v.ip, "protocol_port": 8080,
                        "subnet_id": net.subnet})
                })
                .collect();
            let batch = json!({ "members": kept });
            put(&keel, &token, &lb_id, &members, batch);
            wait_who(&same, tcp, &[&m2.name, &m3.name]);
        },
    );
    assert!(
        seen.who()
            .is_subset(&[&m1, &m2, &m3].iter().map(|v| v.name.clone()).collect()),
        "{seen:?}"
    );
    let (_, tree) = status_tree(&keel, &token, &lb_id, &pool);
    assert!(
        tree.contains_key(&mem2),
        "member {mem2} kept by the batch update: {tree:?}"
    );
    let mem3 = tree
        .keys()
        .find(|k| **k != mem2)
        .cloned()
        .unwrap_or_else(|| panic!("member of m3 in {tree:?}"));
    let m23 = [m2.name.as_str(), m3.name.as_str()];

    // load balancer, listener and pool updates under a client loop; the pool's algorithm
    // change reaches the data plane (SOURCE_IP: one client, one member) and back
    under_loop(
        &routed_client,
        tcp,
        "load balancer, listener, pool updates",
        start,
        || {
            let lb_path = format!("/v2/lbaas/loadbalancers/{lb_id}");
            put(
                &keel,
                &token,
                &lb_id,
                &lb_path,
                json!({"loadbalancer": {"description": "updated"}}),
            );
            put(
                &keel,
                &token,
                &lb_id,
                &format!("/v2/lbaas/listeners/{listener}"),
                json!({"listener": {"name": "updated", "description": "updated"}}),
            );
            let pool_path = format!("/v2/lbaas/pools/{pool}");
            put(
                &keel,
                &token,
                &lb_id,
                &pool_path,
                json!({"pool": {"lb_algorithm": "SOURCE_IP"}}),
            );
            wait_for(
                "SOURCE_IP: 20 connections, one member",
                Duration::from_secs(30),
                || {
                    let t = same.probe("tcp", &vip, 80, 20);
                    if t.failed() == 0 && t.who().len() == 1 {
                        Ok(())
                    } else {
                        Err(format!("{t:?}"))
                    }
                },
            );
            put(
                &keel,
                &token,
                &lb_id,
                &pool_path,
                json!({"pool": {"lb_algorithm": "SOURCE_IP_PORT"}}),
            );
            wait_who(&same, tcp, &m23);
        },
    );

    // TCP health monitor by real probes
    let hm = id(keel.create(
        &token,
        &lb_id,
        "/v2/lbaas/healthmonitors",
        json!({"healthmonitor": {"pool_id": pool, "type": "TCP", "delay": 1, "timeout": 1,
            "max_retries": 1, "max_retries_down": 2}}),
    ));
    let hm_path = format!("/v2/lbaas/healthmonitors/{hm}");
    wait_member(&keel, &token, in_pool, &mem2, "ONLINE", "ONLINE");
    wait_member(&keel, &token, in_pool, &mem3, "ONLINE", "ONLINE");
    probe_source_answers_with_probe_mac(&[&m2, &m3]);
    let t0 = Instant::now();
    m2.stop("tcp", 8080);
    wait_member(&keel, &token, in_pool, &mem2, "ERROR", "DEGRADED");
    let to_error = t0.elapsed();
    wait_who(&same, tcp, &[&m3.name]);
    let traffic_gone = t0.elapsed();

    // HM disabled: no probe decides any more (members NO_MONITOR, the HM OFFLINE), so the
    // stopped member is a backend again and its connections are refused
    put(
        &keel,
        &token,
        &lb_id,
        &hm_path,
        json!({"healthmonitor": {"admin_state_up": false}}),
    );
    wait_member(&keel, &token, in_pool, &mem2, "NO_MONITOR", "ONLINE");
    wait_member(&keel, &token, in_pool, &mem3, "NO_MONITOR", "ONLINE");
    let hm_status = || {
        let (c, b) = keel.api("GET", &hm_path, &token, None);
        assert_eq!(c, 200, "{b}");
        b["healthmonitor"]["operating_status"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(hm_status(), "OFFLINE");
    let refused = wait_for(
        "the stopped member back among the backends (refused connections)",
        Duration::from_secs(30),
        || {
            let t = same.probe("tcp", &vip, 80, 20);
            if t.failures.contains_key("Connection_refused") {
                Ok(t)
            } else {
                Err(format!("{t:?}"))
            }
        },
    );
    assert!(
        refused.who().iter().all(|w| *w == m3.name),
        "only m3 answers, m2 refuses: {refused:?}"
    );
    // enabled again: the probes find the stopped member again
    let t0 = Instant::now();
    put(
        &keel,
        &token,
        &lb_id,
        &hm_path,
        json!({"healthmonitor": {"admin_state_up": true}}),
    );
    wait_member(&keel, &token, in_pool, &mem2, "ERROR", "DEGRADED");
    let reenabled_error = t0.elapsed();
    assert_eq!(hm_status(), "ONLINE");
    wait_who(&same, tcp, &[&m3.name]);
    let t0 = Instant::now();
    m2.serve("tcp", 8080);
    wait_member(&keel, &token, in_pool, &mem2, "ONLINE", "ONLINE");
    let to_online = t0.elapsed();
    wait_who(&same, tcp, &m23);
    println!(
        "TRAFFIC {} TCP HM (delay 1, timeout 1, max_retries_down 2): server stop → member ERROR \
         {} ms, → traffic gone {} ms; HM disabled: {:?} (the stopped member a backend again); \
         HM enabled → ERROR again {} ms; server start → ONLINE {} ms",
        since(start),
        to_error.as_millis(),
        traffic_gone.as_millis(),
        refused.failures,
        reenabled_error.as_millis(),
        to_online.as_millis()
    );

    // `keel ovn-db-sync` on the in-sync NB (monitor, floating IP, two switches): it finds
    // nothing to change and no connection fails while it runs
    under_loop(&same, tcp, "keel ovn-db-sync (in sync)", start, || {
        let out = Command::new(common::keel_bin())
            .arg("--config-file")
            .arg(&keel.conf)
            .args(["ovn-db-sync", "--lb-id", &lb_id])
            .output()
            .unwrap();
        assert!(
            out.status.success() && out.stdout.is_empty(),
            "ovn-db-sync on an in-sync NB: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    });

    // every member down: what a client sees (no member answers; drop or reset, measured)
    for m in [&m2, &m3] {
        m.stop("tcp", 8080);
    }
    wait_member(&keel, &token, in_pool, &mem3, "ERROR", "ERROR");
    wait_member(&keel, &token, in_pool, &mem2, "ERROR", "ERROR");
    let t = same.probe("tcp", &vip, 80, 3);
    println!(
        "TRAFFIC {} every TCP member ERROR: {}/3 connections failed, {:?}",
        since(start),
        t.failed(),
        t.failures
    );
    assert_eq!(t.failed(), 3, "no member may answer: {t:?}");
    for m in [&m2, &m3] {
        m.serve("tcp", 8080);
    }
    wait_member(&keel, &token, in_pool, &mem2, "ONLINE", "ONLINE");
    wait_member(&keel, &token, in_pool, &mem3, "ONLINE", "ONLINE");
    wait_who(&same, tcp, &m23);

    // HM delete: members NO_MONITOR (the API's tree), traffic to both
    let (code, body) = keel.api("DELETE", &hm_path, &token, None);
    assert_eq!(code, 204, "{body}");
    keel.wait_lb_active(&token, &lb_id);
    wait_member(&keel, &token, in_pool, &mem2, "NO_MONITOR", "ONLINE");
    wait_member(&keel, &token, in_pool, &mem3, "NO_MONITOR", "ONLINE");
    wait_who(&same, tcp, &m23);

    // the control plane fails, the data plane does not: SIGKILL + restart under a client loop
    let seen = under_loop(&routed_client, tcp, "Keel SIGKILL + restart", start, || {
        keel.kill();
        keel.restart();
        keel.wait_lb_active(&token, &lb_id);
    });
    assert_eq!(
        seen.who(),
        m23.iter().map(|s| s.to_string()).collect(),
        "{seen:?}"
    );

    udp_listener(
        &keel,
        &token,
        (&lb_id, &vip, &net.subnet),
        [&m2, &m3],
        &[&same, &routed_client],
        start,
    );

    keel.delete_lb_cascade(&token, &lb_id);
    assert_eq!(
        vswitchd_pid(),
        vswitchd,
        "ovs-vswitchd crashed and was restarted during the test (see its log)"
    );
}

/// A UDP listener + pool (port 53 → members `ms` serving UDP 5353) on the load balancer
/// `lb_id`; waits until both members answer each of `clients`. Returns (pool id, member ids).
fn udp_listener(
    keel: &Endpoint,
    token: &str,
    (lb_id, vip, subnet): (&str, &str, &str),
    ms: [&Vm; 2],
    clients: &[&Vm],
    start: Instant,
) -> (String, Vec<String>) {
    let id = |v: Value| v["id"].as_str().unwrap().to_string();
    for m in ms {
        m.serve("udp", 5353);
    }
    let listener = id(keel.create(
        token,
        lb_id,
        "/v2/lbaas/listeners",
        json!({"listener": {"loadbalancer_id": lb_id, "protocol": "UDP", "protocol_port": 53}}),
    ));
    let pool = id(keel.create(
        token,
        lb_id,
        "/v2/lbaas/pools",
        json!({"pool": {"listener_id": listener, "protocol": "UDP",
            "lb_algorithm": "SOURCE_IP_PORT"}}),
    ));
    let mids: Vec<String> = ms
        .iter()
        .map(|m| {
            id(keel.create(
                token,
                lb_id,
                &format!("/v2/lbaas/pools/{pool}/members"),
                member_body(m, 5353, subnet),
            ))
        })
        .collect();
    let names = [ms[0].name.as_str(), ms[1].name.as_str()];
    for c in clients {
        wait_who(c, ("udp", vip, 53), &names);
    }
    println!(
        "TRAFFIC {} UDP listener: both members from {} client(s)",
        since(start),
        clients.len()
    );
    (pool, mids)
}

/// A UDP-CONNECT health monitor by real probes: a stopped server's ICMP port unreachable
/// turns its member ERROR and traffic goes to the other; the server back → ONLINE; every
/// member down, measured (drop or ICMP).
///
/// Ignored while the data plane's defect it finds is open: on Debian 12's OVN 23.03.1 the
/// probe saw the stopped server in 3.6 and 3.8 s in two runs and not within 30 s in one (SB
/// `Service_Monitor` still `online`, no pinctrl warning), so in CI it would fail about one
/// run in three on a row Keel does not write. Run by hand: `--run-ignored only`.
#[test]
#[ignore = "OVN 23.03.1's UDP health check missed a stopped server in 1 of 3 runs (see the doc)"]
fn udp_connect_monitor() {
    let start = Instant::now();
    let tag = common::tag();
    let t4 = &tag[..4];
    let net = NeutronNet::create(&format!("tru-{tag}"), &[]);
    let name = |role: &str| format!("{role}{t4}");
    let [m1, m2, client] = vms([
        (name("ua"), &net.net),
        (name("ub"), &net.net),
        (name("ux"), &net.net),
    ]);
    let keel = Keel::start(Backend::Sqlite);
    // what follows judges the agent's work (health, FIPs): this Keel must be the agent
    common::monitors::assert_agent_active(&keel);
    let token = demo_token();
    let lb = keel.create_lb(&token, &format!("tru-{tag}"), &net.subnet);
    let lb_id = lb["id"].as_str().unwrap().to_string();
    let _rows = LbGuard(lb_id.clone());
    let vip = lb["vip_address"].as_str().unwrap().to_string();
    let ms = [&m1, &m2];
    let (pool, mids) = udp_listener(
        &keel,
        &token,
        (&lb_id, &vip, &net.subnet),
        ms,
        &[&client],
        start,
    );
    let udp = ("udp", vip.as_str(), 53);
    let names = [m1.name.as_str(), m2.name.as_str()];
    let in_pool = (lb_id.as_str(), pool.as_str());
    keel.create(
        &token,
        &lb_id,
        "/v2/lbaas/healthmonitors",
        json!({"healthmonitor": {"pool_id": pool, "type": "UDP-CONNECT", "delay": 3,
            "timeout": 1, "max_retries": 1, "max_retries_down": 1}}),
    );
    for m in &mids {
        wait_member(&keel, &token, in_pool, m, "ONLINE", "ONLINE");
    }
    let t0 = Instant::now();
    m1.stop("udp", 5353);
    wait_member(&keel, &token, in_pool, &mids[0], "ERROR", "DEGRADED");
    let to_error = t0.elapsed();
    wait_who(&client, udp, &[names[1]]);
    let traffic_gone = t0.elapsed();
    let t0 = Instant::now();
    m1.serve("udp", 5353);
    wait_member(&keel, &token, in_pool, &mids[0], "ONLINE", "ONLINE");
    let to_online = t0.elapsed();
    wait_who(&client, udp, &names);
    println!(
        "TRAFFIC {} UDP-CONNECT HM (delay 3 — the API's minimum —, timeout 1, max_retries_down \
         1): server stop → member ERROR {} ms, → traffic gone {} ms; server start → ONLINE {} ms",
        since(start),
        to_error.as_millis(),
        traffic_gone.as_millis(),
        to_online.as_millis()
    );

    // every UDP member down: drop or ICMP unreachable, measured
    for m in ms {
        m.stop("udp", 5353);
    }
    for m in &mids {
        wait_member(&keel, &token, in_pool, m, "ERROR", "ERROR");
    }
    let t = client.probe("udp", &vip, 53, 3);
    println!(
        "TRAFFIC {} every UDP member ERROR: {}/3 datagrams unanswered, {:?}",
        since(start),
        t.failed(),
        t.failures
    );
    assert_eq!(t.failed(), 3, "no member may answer: {t:?}");
    keel.delete_lb_cascade(&token, &lb_id);
}

/// An IPv6 VIP with IPv6 members (same-subnet client), `SOURCE_IP` session persistence
/// keeping one client on one member, and a listener moved to another pool.
#[test]
fn ipv6_vip_session_persistence_pool_change() {
    let start = Instant::now();
    let vswitchd = vswitchd_pid();
    let tag = common::tag();
    let t4 = &tag[..4];
    let net = NeutronNet::create(&format!("tr6-{tag}"), &[]);
    let token = demo_token();
    let (c, b) = neutron(
        "POST",
        "/subnets",
        &token,
        Some(
            &json!({"subnet": {"name": format!("keel-e2e-tr6-{tag}"), "network_id": net.net,
            "ip_version": 6, "cidr": "fd00:9::/64"}}),
        ),
    );
    assert_eq!(c, 201, "{b}");
    let subnet6 = b["subnet"]["id"].as_str().unwrap().to_string();
    let (c, b) = neutron(
        "PUT",
        &format!("/routers/{}/add_router_interface", net.router),
        &token,
        Some(&json!({"subnet_id": subnet6})),
    );
    assert_eq!(c, 200, "{b}");
    let name = |role: &str| format!("{role}{t4}");
    let [m1, m2, m3, client] = vms([
        (name("sa"), &net.net),
        (name("sb"), &net.net),
        (name("sc"), &net.net),
        (name("sx"), &net.net),
    ]);
    for m in [&m1, &m2, &m3] {
        m.serve("tcp", 8080);
    }

    let keel = Keel::start(Backend::Sqlite);
    // what follows judges the agent's work (health, FIPs): this Keel must be the agent
    common::monitors::assert_agent_active(&keel);
    let lb = keel.create_lb(&token, &format!("tr6-{tag}"), &subnet6);
    let lb_id = lb["id"].as_str().unwrap().to_string();
    let _rows = LbGuard(lb_id.clone());
    let vip = lb["vip_address"].as_str().unwrap().to_string();
    assert!(vip.contains(':'), "an IPv6 VIP: {lb}");
    let id = |v: Value| v["id"].as_str().unwrap().to_string();
    let listener = id(keel.create(
        &token,
        &lb_id,
        "/v2/lbaas/listeners",
        json!({"listener": {"loadbalancer_id": lb_id, "protocol": "TCP", "protocol_port": 80}}),
    ));
    let pool = id(keel.create(
        &token,
        &lb_id,
        "/v2/lbaas/pools",
        json!({"pool": {"listener_id": listener, "protocol": "TCP",
            "lb_algorithm": "SOURCE_IP_PORT"}}),
    ));
    for m in [&m1, &m2] {
        keel.create(
            &token,
            &lb_id,
            &format!("/v2/lbaas/pools/{pool}/members"),
            json!({"member": {"address": m.ip6(), "protocol_port": 8080, "subnet_id": subnet6}}),
        );
    }
    // IPv6 VIP, IPv6 members, a client on the VIP's own subnet
    wait_who(&client, ("tcp", &vip, 80), &[&m1.name, &m2.name]);

    // SOURCE_IP session persistence: every connection of one client to one member
    put(
        &keel,
        &token,
        &lb_id,
        &format!("/v2/lbaas/pools/{pool}"),
        json!({"pool": {"session_persistence": {"type": "SOURCE_IP"}}}),
    );
    let sticky = wait_for(
        "SOURCE_IP persistence: 20 connections, one member",
        Duration::from_secs(30),
        || {
            let t = client.probe("tcp", &vip, 80, 20);
            if t.failed() == 0 && t.who().len() == 1 {
                Ok(t)
            } else {
                Err(format!("{t:?}"))
            }
        },
    );
    println!(
        "TRAFFIC {} IPv6 VIP, SOURCE_IP persistence: 20/20 connections to {:?}",
        since(start),
        sticky.who()
    );
    put(
        &keel,
        &token,
        &lb_id,
        &format!("/v2/lbaas/pools/{pool}"),
        json!({"pool": {"session_persistence": null}}),
    );
    wait_who(&client, ("tcp", &vip, 80), &[&m1.name, &m2.name]);

    // the listener moved to another pool: only that pool's member answers
    let pool2 = id(keel.create(
        &token,
        &lb_id,
        "/v2/lbaas/pools",
        json!({"pool": {"loadbalancer_id": lb_id, "protocol": "TCP",
            "lb_algorithm": "SOURCE_IP_PORT"}}),
    ));
    keel.create(
        &token,
        &lb_id,
        &format!("/v2/lbaas/pools/{pool2}/members"),
        json!({"member": {"address": m3.ip6(), "protocol_port": 8080, "subnet_id": subnet6}}),
    );
    put(
        &keel,
        &token,
        &lb_id,
        &format!("/v2/lbaas/listeners/{listener}"),
        json!({"listener": {"default_pool_id": pool2}}),
    );
    wait_who(&client, ("tcp", &vip, 80), &[&m3.name]);

    keel.delete_lb_cascade(&token, &lb_id);
    let (_, _) = neutron(
        "PUT",
        &format!("/routers/{}/remove_router_interface", net.router),
        &common::admin_token(),
        Some(&json!({"subnet_id": subnet6})),
    );
    assert_eq!(
        vswitchd_pid(),
        vswitchd,
        "ovs-vswitchd crashed and was restarted during the test (see its log)"
    );
}

/// One step of [`beside_the_reference`]: its result (`Ok(figure)`), or the failure of a wait
/// or an assertion inside it (its panic message), so that the reference's run goes on.
fn step(out: &mut Vec<(String, Result<String, String>)>, what: &str, f: impl FnOnce() -> String) {
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|e| {
        e.downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "panicked".into())
            .chars()
            .take(300)
            .collect()
    });
    println!("SIDE {what}: {r:?}");
    out.push((what.to_string(), r));
}

/// The same traffic steps through one Octavia endpoint — Keel's (`KEEL_SIDE=keel`: a `keel
/// serve` this test starts, its agent active) or the Python reference's (`KEEL_SIDE=reference`,
/// `KEEL_REFERENCE_ENDPOINT`: Octavia 19.0.0 + ovn-octavia-provider 11.0.0 of
/// `STACK_REFERENCE=1`, its driver agent active) — on the stack's data plane, Neutron and
/// networks: member create → first connection (routed client), same-subnet and routed clients,
/// the VIP port's `device_owner`, the floating IP from the external network, member admin
/// down/up under a client loop, a TCP health monitor's statuses right after its create and by
/// real probes (server stop → ERROR, → traffic gone; start → ONLINE), every member down, and
/// the cascade delete. Each step's figure or failure is a `SIDE` line and a row of the JSON
/// written to `KEEL_SIDE_OUT`; `ci/stack/traffic-reference.sh` runs both sides, one after the
/// other (never both agents at once), and prints the table. Keel's side must pass every step;
/// the reference's is measured, not judged.
#[test]
#[ignore = "run by ci/stack/traffic-reference.sh (both sides, the reference started between)"]
fn beside_the_reference() {
    let side = std::env::var("KEEL_SIDE").unwrap_or_else(|_| "keel".into());
    let start = Instant::now();
    let tag = common::tag();
    let t4 = &tag[..4];
    dp(&["ext-net"]);
    let net = NeutronNet::create(&format!("side-{tag}"), &[]);
    let routed = RoutedNet::create(&format!("keel-e2e-side-{tag}-b"), &net.router);
    let name = |role: &str| format!("{role}{t4}");
    let [m1, m2, same, client] = vms([
        (name("sa"), &net.net),
        (name("sb"), &net.net),
        (name("ss"), &net.net),
        (name("sr"), &routed.net),
    ]);
    for m in [&m1, &m2] {
        m.serve("tcp", 8080);
    }
    let keel = (side == "keel").then(|| Keel::start(Backend::Sqlite));
    if let Some(k) = &keel {
        common::monitors::assert_agent_active(k);
    }
    let endpoint = match &keel {
        Some(k) => Endpoint { url: k.url() },
        None => Endpoint {
            url: std::env::var("KEEL_REFERENCE_ENDPOINT")
                .expect("KEEL_SIDE=reference needs KEEL_REFERENCE_ENDPOINT"),
        },
    };
    let api = &endpoint;
    let token = demo_token();
    let mut out = Vec::new();
    let lb = api.create_lb(&token, &format!("side-{tag}"), &net.subnet);
    let lb_id = lb["id"].as_str().unwrap().to_string();
    let _rows = LbGuard(lb_id.clone());
    let vip = lb["vip_address"].as_str().unwrap().to_string();
    let vip_port = lb["vip_port_id"].as_str().unwrap().to_string();
    let id = |v: Value| v["id"].as_str().unwrap().to_string();
    let listener = id(api.create(
        &token,
        &lb_id,
        "/v2/lbaas/listeners",
        json!({"listener": {"loadbalancer_id": lb_id, "protocol": "TCP", "protocol_port": 80}}),
    ));
    let pool = id(api.create(
        &token,
        &lb_id,
        "/v2/lbaas/pools",
        json!({"pool": {"listener_id": listener, "protocol": "TCP",
            "lb_algorithm": "SOURCE_IP_PORT"}}),
    ));
    let members = format!("/v2/lbaas/pools/{pool}/members");
    let tcp = ("tcp", vip.as_str(), 80);
    let in_pool = (lb_id.as_str(), pool.as_str());
    let both = [m1.name.as_str(), m2.name.as_str()];
    let mut mids = Vec::new();
    step(
        &mut out,
        "member create → first connection (routed client)",
        || {
            let t0 = Instant::now();
            mids.push(id(api.create(
                &token,
                &lb_id,
                &members,
                member_body(&m1, 8080, &net.subnet),
            )));
            wait_who(&client, tcp, &[&m1.name]);
            format!("{} ms", t0.elapsed().as_millis())
        },
    );
    mids.push(id(api.create(
        &token,
        &lb_id,
        &members,
        member_body(&m2, 8080, &net.subnet),
    )));
    step(&mut out, "routed client, 20 connections", || {
        wait_who(&client, tcp, &both);
        let t = client.probe("tcp", &vip, 80, 20);
        assert!(
            t.failed() == 0,
            "{}/20 answered, failed: {:?}",
            20 - t.failed(),
            t.failures
        );
        format!("20/20 answered, by {:?}", t.answers)
    });
    step(&mut out, "same-subnet client, 10 connections", || {
        let t = same.probe("tcp", &vip, 80, 10);
        assert!(
            t.failed() == 0,
            "{}/10 answered, failed: {:?}",
            10 - t.failed(),
            t.failures
        );
        format!("10/10 answered, by {:?}", t.answers)
    });
    step(
        &mut out,
        "VIP port device_owner / its switch port's addresses",
        || {
            let (_, p) = neutron(
                "GET",
                &format!("/ports/{vip_port}"),
                &common::admin_token(),
                None,
            );
            let lsp = nb_select("Logical_Switch_Port", json!([["name", "==", vip_port]]));
            format!(
                "{:?} / {}",
                p["port"]["device_owner"].as_str().unwrap_or_default(),
                lsp.first()
                    .map(|r| r["addresses"].to_string())
                    .unwrap_or_default()
            )
        },
    );
    step(
        &mut out,
        "floating IP → every member answers from outside",
        || {
            let (fip, guard) = floating_ip(&net.router, &vip_port, &token, &lb_id, start);
            let ext = Vm {
                name: "ext".into(),
                ip: "172.24.4.2".into(),
                ips: vec!["172.24.4.2".into()],
                keep: true,
            };
            let t0 = Instant::now();
            wait_who(&ext, ("tcp", &fip, 80), &both);
            drop(guard);
            format!(
                "{} ms after the FIP was in the NB",
                t0.elapsed().as_millis()
            )
        },
    );
    let m1_path = format!("{members}/{}", mids[0]);
    step(&mut out, "member admin down/up under a client loop", || {
        let seen = under_loop(&client, tcp, "member admin down/up", start, || {
            put(
                api,
                &token,
                &lb_id,
                &m1_path,
                json!({"member": {"admin_state_up": false}}),
            );
            wait_who(&client, tcp, &[&m2.name]);
            put(
                api,
                &token,
                &lb_id,
                &m1_path,
                json!({"member": {"admin_state_up": true}}),
            );
            wait_who(&client, tcp, &both);
        });
        format!("{} connections, 0 failed", seen.total())
    });
    let hm = id(api.create(
        &token,
        &lb_id,
        "/v2/lbaas/healthmonitors",
        json!({"healthmonitor": {"pool_id": pool, "type": "TCP", "delay": 1, "timeout": 1,
            "max_retries": 1, "max_retries_down": 2}}),
    ));
    step(
        &mut out,
        "member statuses right after the HM create",
        || {
            let (status, tree) = status_tree(api, &token, &lb_id, &pool);
            format!(
                "pool {status}, members {:?}",
                tree.values().collect::<Vec<_>>()
            )
        },
    );
    step(
        &mut out,
        "TCP HM: server stop → ERROR / → traffic gone / start → ONLINE",
        || {
            wait_member(api, &token, in_pool, &mids[0], "ONLINE", "ONLINE");
            wait_member(api, &token, in_pool, &mids[1], "ONLINE", "ONLINE");
            let t0 = Instant::now();
            m2.stop("tcp", 8080);
            wait_member(api, &token, in_pool, &mids[1], "ERROR", "DEGRADED");
            let to_error = t0.elapsed();
            wait_who(&client, tcp, &[&m1.name]);
            let gone = t0.elapsed();
            let t0 = Instant::now();
            m2.serve("tcp", 8080);
            wait_member(api, &token, in_pool, &mids[1], "ONLINE", "ONLINE");
            let online = t0.elapsed();
            wait_who(&client, tcp, &both);
            format!(
                "{:.1} s / {:.1} s / {:.1} s",
                to_error.as_secs_f64(),
                gone.as_secs_f64(),
                online.as_secs_f64()
            )
        },
    );
    step(&mut out, "every member down: 3 connections", || {
        for m in [&m1, &m2] {
            m.stop("tcp", 8080);
        }
        wait_member(api, &token, in_pool, &mids[0], "ERROR", "ERROR");
        wait_member(api, &token, in_pool, &mids[1], "ERROR", "ERROR");
        let t = client.probe("tcp", &vip, 80, 3);
        for m in [&m1, &m2] {
            m.serve("tcp", 8080);
        }
        format!("{}/3 failed: {:?}", t.failed(), t.failures)
    });
    let _ = hm;
    step(&mut out, "cascade delete → NB rows gone", || {
        let t0 = Instant::now();
        api.delete_lb_cascade(&token, &lb_id);
        format!("{} ms", t0.elapsed().as_millis())
    });
    drop(keel);
    if let Ok(path) = std::env::var("KEEL_SIDE_OUT") {
        let rows: Vec<Value> = out
            .iter()
            .map(|(what, r)| match r {
                Ok(v) => json!({"step": what, "ok": v}),
                Err(e) => json!({"step": what, "failed": e}),
            })
            .collect();
        std::fs::write(&path, json!({"side": side, "steps": rows}).to_string()).unwrap();
    }
    if side == "keel" {
        let failed: Vec<_> = out.iter().filter(|(_, r)| r.is_err()).collect();
        assert!(failed.is_empty(), "Keel failed steps: {failed:?}");
    }
}
