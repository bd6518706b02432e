//! OVN provider flavors proven with packets, on the stack's data plane (as `traffic.rs`:
//! `ci/stack/dataplane-up.sh`, "VMs" are network namespaces holding bound Neutron ports whose
//! servers answer with their name).
//!
//! Two load balancers on one subnet, the same two members behind each: one created with a
//! flavor whose profile says `reject: true` and `hairpin_snat_ip`, one without. A client on
//! the subnet sees:
//!
//! - a TCP listener without a pool: with `reject`, every connection refused at once (a TCP
//!   reset from OVN); without, every connection times out (OVN drops);
//! - every member down (servers stopped, a TCP health monitor's real probes turn both ERROR):
//!   the same — refused at once with `reject`, a timeout without (`traffic.rs`' "every member
//!   down: timeouts" is the second half);
//! - the servers back: both load balancers serve again;
//! - a member reaching a VIP and balanced to itself (hair-pinned) sees the flavor's
//!   `hairpin_snat_ip` as the source, the VIP without the flavor (OVN's default);
//!
//! - on the load balancer without the flavor, a UDP flow to a member removed from the pool
//!   keeps reaching it (no conntrack flush) while a new flow goes to the remaining member:
//!   what `ct_flush` would end. The stack's OVN 23.03.1 has no `ct_flush` (23.06), so the key
//!   is refused there (`flavors_ovn.rs` tests the refusal) and the flush is not tested.
//!
//! Figures are printed as `TRAFFIC …` lines.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::{Duration, Instant};

use common::dataplane::*;
use common::{Keel, LbGuard, NeutronNet, admin_token, demo_token};
use serde_json::{Value, json};

/// One datagram from `client`'s UDP port `sport` to `vip:port`: the answering VM's name
/// (`None`: no answer within 1 s). The same source port each call, so the datagrams of
/// successive calls are one conntrack flow.
fn udp_from(client: &Vm, sport: u16, vip: &str, port: u16) -> Option<String> {
    const SEND: &str = r#"
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("", int(sys.argv[3])))
s.settimeout(1)
s.sendto(b"x", (sys.argv[1], int(sys.argv[2])))
try:
    print("ok", s.recvfrom(2048)[0].decode().strip())
except OSError as e:
    print("fail", type(e).__name__)
"#;
    let out = dp(&[
        "exec",
        &client.name,
        "python3",
        "-c",
        SEND,
        vip,
        &port.to_string(),
        &sport.to_string(),
    ]);
    out.trim().strip_prefix("ok ").map(str::to_string)
}

/// Why `ct_flush` matters, on the stack's OVN 23.03.1 (which has no such option, so Keel
/// refuses the key there): a UDP flow to a member removed from the pool keeps reaching that
/// member — its conntrack entry is not flushed — while a new flow goes to the remaining one.
/// A UDP listener and pool on `lb` (the load balancer without a flavor) with members `ms`.
/// OVN's `NEWS` for 23.06 says removed backends' entries were flushed by default before it;
/// this stack shows they are not (the test fails the day they are: the README then changes).
fn udp_flow_to_a_removed_member_ends(
    keel: &Keel,
    token: &str,
    (lb_id, vip, _, _): &(String, String, String, Vec<String>),
    ms: [&Vm; 2],
    client: &Vm,
    subnet: &str,
) {
    let start = Instant::now();
    for m in ms {
        m.serve("udp", 5353);
    }
    let mk = |path: &str, body: Value| -> String {
        let v = keel.create(token, lb_id, path, body);
        v["id"].as_str().unwrap().to_string()
    };
    let listener = mk(
        "/v2/lbaas/listeners",
        json!({"listener": {"loadbalancer_id": lb_id, "protocol": "UDP", "protocol_port": 53}}),
    );
    let pool = mk(
        "/v2/lbaas/pools",
        json!({"pool": {"listener_id": listener, "protocol": "UDP",
            "lb_algorithm": "SOURCE_IP_PORT"}}),
    );
    let members: Vec<(String, &str)> = ms
        .iter()
        .map(|m| {
            let id = mk(
                &format!("/v2/lbaas/pools/{pool}/members"),
                member_body(m, 5353, subnet),
            );
            (id, m.name.as_str())
        })
        .collect();
    wait_who(
        client,
        ("udp", vip, 53),
        &[ms[0].name.as_str(), ms[1].name.as_str()],
    );
    // one flow (a fixed source port): answered by one member, the same one each time
    let sport = 40_053;
    let first = udp_from(client, sport, vip, 53).expect("the flow's first datagram answered");
    for _ in 0..3 {
        assert_eq!(
            udp_from(client, sport, vip, 53).as_deref(),
            Some(first.as_str())
        );
    }
    let (gone, _) = members.iter().find(|(_, n)| *n == first).unwrap();
    let other = members.iter().find(|(_, n)| *n != first).unwrap().1;
    let t0 = Instant::now();
    let (code, body) = keel.api(
        "DELETE",
        &format!("/v2/lbaas/pools/{pool}/members/{gone}"),
        token,
        None,
    );
    assert_eq!(code, 204, "{body}");
    keel.wait_lb_active(token, lb_id);
    // the NB no longer maps the VIP to the removed member, and a new flow shows the data
    // plane has it too: the other member answers it
    let gone_ip = ms.iter().find(|m| m.name == first).unwrap().ip.clone();
    common::wait_for(
        "a new flow answered by the remaining member",
        Duration::from_secs(10),
        || {
            let rows = common::nb_select("Load_Balancer", json!([["name", "==", lb_id]]));
            let vips: Vec<(String, String)> =
                rows.iter().flat_map(|r| common::map(&r["vips"])).collect();
            let stale = vips
                .iter()
                .any(|(v, b)| v.ends_with(":53") && b.contains(&format!("{gone_ip}:")));
            let new_flow = udp_from(client, sport + 1, vip, 53);
            if !stale && new_flow.as_deref() == Some(other) {
                Ok(())
            } else {
                Err(format!("vips {vips:?}, new flow answered by {new_flow:?}"))
            }
        },
    );
    // the old flow: still the removed member (it still serves), datagram after datagram
    let seen: Vec<Option<String>> = (0..10).map(|_| udp_from(client, sport, vip, 53)).collect();
    println!(
        "TRAFFIC UDP flow to a removed member, OVN 23.03.1 (no ct_flush): {} ms after the \
         member delete, 10 more datagrams of the old flow answered by {seen:?} (the removed \
         member {first}, the remaining one {other}); setup {} ms",
        t0.elapsed().as_millis(),
        (t0 - start).as_millis()
    );
    assert!(
        seen.iter().all(|w| w.as_deref() == Some(first.as_str())),
        "the old flow left the removed member (conntrack flushed?): {seen:?}"
    );
}

/// The flavor's `hairpin_snat_ip`: off the members' subnet, so a member's reply to it goes
/// to its gateway (OVN's hairpin stage catches it first).
const HAIRPIN_IP: &str = "172.31.255.1";

/// A UDP server on `vm` port `port` answering each datagram with its source address; stopped
/// (the process this test started, by its PID) on drop.
struct PeerEcho(std::process::Child);

impl PeerEcho {
    fn start(vm: &Vm, port: u16) -> PeerEcho {
        const ECHO: &str = r#"
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("", int(sys.argv[1])))
print("listening", flush=True)
while True:
    _, peer = s.recvfrom(2048)
    s.sendto(peer[0].encode(), peer)
"#;
        let mut child = std::process::Command::new(dataplane())
            .args([
                "exec",
                &vm.name,
                "python3",
                "-u",
                "-c",
                ECHO,
                &port.to_string(),
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        let out = child.stdout.take().unwrap();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(out), &mut line).unwrap();
        assert_eq!(line.trim(), "listening");
        PeerEcho(child)
    }
}

impl Drop for PeerEcho {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Hair-pinned traffic (member `m` reaching a VIP, balanced to itself): the member sees the
/// flavor's `hairpin_snat_ip` as the source on the flavored load balancer, the VIP on the
/// other (OVN's default). A UDP listener 9090 and a pool of `m` alone on each of `lbs`.
fn hairpin_source(
    keel: &Keel,
    token: &str,
    lbs: &[(String, String, String, Vec<String>)],
    m: &Vm,
    subnet: &str,
) {
    let _echo = PeerEcho::start(m, 9090);
    for ((lb_id, vip, _, _), want) in lbs.iter().zip([HAIRPIN_IP, "vip"]) {
        let want = if want == "vip" { vip.as_str() } else { want };
        let mk = |path: &str, body: Value| -> String {
            let v = keel.create(token, lb_id, path, body);
            v["id"].as_str().unwrap().to_string()
        };
        let listener = mk(
            "/v2/lbaas/listeners",
            json!({"listener": {"loadbalancer_id": lb_id, "protocol": "UDP",
                "protocol_port": 9090}}),
        );
        let pool = mk(
            "/v2/lbaas/pools",
            json!({"pool": {"listener_id": listener, "protocol": "UDP",
                "lb_algorithm": "SOURCE_IP_PORT"}}),
        );
        mk(
            &format!("/v2/lbaas/pools/{pool}/members"),
            member_body(m, 9090, subnet),
        );
        let t0 = Instant::now();
        let mut sport = 41_000;
        let seen = common::wait_for(
            "a hair-pinned datagram answered",
            Duration::from_secs(15),
            || {
                sport += 1;
                udp_from(m, sport, vip, 9090).ok_or_else(|| "no answer".to_string())
            },
        );
        println!(
            "TRAFFIC hair-pinned datagram (member → VIP → itself), source seen by the member: \
             {seen} (want {want}) after {} ms",
            t0.elapsed().as_millis()
        );
        assert_eq!(seen, want, "the source a hair-pinned member sees");
    }
}

/// Probes `count` TCP connections (timeout 1 s each) from `client` to `vip:port`: the
/// failure reasons and how long it took.
fn refusals(client: &Vm, vip: &str, port: u16, count: u32) -> (Tally, Duration) {
    let t0 = Instant::now();
    let t = client.probe("tcp", vip, port, count);
    (t, t0.elapsed())
}

#[test]
fn reject_and_hairpin_flavor_with_packets() {
    let start = Instant::now();
    let tag = common::tag();
    let t4 = &tag[..4];
    let net = NeutronNet::create(&format!("tf-{tag}"), &[]);
    let name = |role: &str| format!("{role}{t4}");
    let [m1, m2, client] = vms([
        (name("fa"), &net.net),
        (name("fb"), &net.net),
        (name("fc"), &net.net),
    ]);
    for m in [&m1, &m2] {
        m.serve("tcp", 8080);
    }
    let keel = Keel::start(common::Backend::Sqlite);
    common::monitors::assert_agent_active(&keel);
    let admin = admin_token();
    let token = demo_token();
    let id = |v: &Value, k: &str| v[k]["id"].as_str().unwrap().to_string();

    let (code, body) = keel.api(
        "POST",
        "/v2/lbaas/flavorprofiles",
        &admin,
        Some(
            &json!({"flavorprofile": {"name": format!("tf-{tag}"), "provider_name": "ovn",
            "flavor_data": json!({"reject": true, "hairpin_snat_ip": [HAIRPIN_IP]}).to_string()}}),
        ),
    );
    assert_eq!(code, 201, "{body}");
    let profile = id(&body, "flavorprofile");
    let (code, body) = keel.api(
        "POST",
        "/v2/lbaas/flavors",
        &admin,
        Some(&json!({"flavor": {"name": format!("tf-{tag}"), "flavor_profile_id": profile}})),
    );
    assert_eq!(code, 201, "{body}");
    let flavor = id(&body, "flavor");

    // (lb id, vip, pool, members) of each load balancer; the guards remove NB rows on failure
    let mut lbs = Vec::new();
    let mut guards = Vec::new();
    for with_flavor in [true, false] {
        let mut lb = json!({"name": format!("tf-{tag}"), "vip_subnet_id": net.subnet,
            "provider": "ovn"});
        if with_flavor {
            lb["flavor_id"] = json!(flavor);
        }
        let (code, body) = keel.api(
            "POST",
            "/v2/lbaas/loadbalancers",
            &token,
            Some(&json!({ "loadbalancer": lb })),
        );
        assert_eq!(code, 201, "{body}");
        let lb_id = id(&body, "loadbalancer");
        guards.push(LbGuard(lb_id.clone()));
        let lb = keel.wait_lb_active(&token, &lb_id);
        let vip = lb["vip_address"].as_str().unwrap().to_string();
        let mk = |path: &str, body: Value| -> String {
            let v = keel.create(&token, &lb_id, path, body);
            v["id"].as_str().unwrap().to_string()
        };
        let listener = mk(
            "/v2/lbaas/listeners",
            json!({"listener": {"loadbalancer_id": lb_id, "protocol": "TCP",
                "protocol_port": 80}}),
        );
        // a second listener, never given a pool
        mk(
            "/v2/lbaas/listeners",
            json!({"listener": {"loadbalancer_id": lb_id, "protocol": "TCP",
                "protocol_port": 81}}),
        );
        let pool = mk(
            "/v2/lbaas/pools",
            json!({"pool": {"listener_id": listener, "protocol": "TCP",
                "lb_algorithm": "SOURCE_IP_PORT"}}),
        );
        let members: Vec<String> = [&m1, &m2]
            .iter()
            .map(|m| {
                mk(
                    &format!("/v2/lbaas/pools/{pool}/members"),
                    member_body(m, 8080, &net.subnet),
                )
            })
            .collect();
        mk(
            "/v2/lbaas/healthmonitors",
            json!({"healthmonitor": {"pool_id": pool, "type": "TCP", "delay": 1,
                "timeout": 1, "max_retries": 1, "max_retries_down": 2}}),
        );
        lbs.push((lb_id, vip, pool, members));
    }
    let both = [m1.name.as_str(), m2.name.as_str()];
    for (lb_id, vip, pool, members) in &lbs {
        for m in members {
            wait_member(&keel, &token, (lb_id, pool), m, "ONLINE", "ONLINE");
        }
        wait_who(&client, ("tcp", vip, 80), &both);
    }
    println!("TRAFFIC {} both load balancers serve", since(start));

    // what a client sees, with and without `reject`: (label, failure reason expected)
    let expect = [
        ("reject", "Connection_refused"),
        ("no flavor", "TimeoutError"),
    ];
    let check = |what: &str, port: u16| {
        for ((_, vip, _, _), (label, reason)) in lbs.iter().zip(expect) {
            let (t, took) = refusals(&client, vip, port, 3);
            println!(
                "TRAFFIC {} {what}, {label}: {:?} in {} ms",
                since(start),
                t.failures,
                took.as_millis()
            );
            assert_eq!(t.failed(), 3, "{what}, {label}: {t:?}");
            assert_eq!(
                t.failures.get(reason).copied(),
                Some(3),
                "{what}, {label}: {t:?}"
            );
        }
    };
    check("listener without a pool", 81);

    // every member down: the monitor's probes turn both ERROR on both load balancers
    for m in [&m1, &m2] {
        m.stop("tcp", 8080);
    }
    for (lb_id, _, pool, members) in &lbs {
        for m in members {
            wait_member(&keel, &token, (lb_id, pool), m, "ERROR", "ERROR");
        }
    }
    check("every member ERROR", 80);

    // the servers back: both serve again
    for m in [&m1, &m2] {
        m.serve("tcp", 8080);
    }
    for (lb_id, vip, pool, members) in &lbs {
        for m in members {
            wait_member(&keel, &token, (lb_id, pool), m, "ONLINE", "ONLINE");
        }
        wait_who(&client, ("tcp", vip, 80), &both);
    }

    hairpin_source(&keel, &token, &lbs, &m1, &net.subnet);
    udp_flow_to_a_removed_member_ends(&keel, &token, &lbs[1], [&m1, &m2], &client, &net.subnet);
    println!("TRAFFIC {} done", since(start));

    for (lb_id, _, _, _) in &lbs {
        keel.delete_lb_cascade(&token, lb_id);
    }
    let (code, body) = keel.api(
        "DELETE",
        &format!("/v2/lbaas/flavors/{flavor}"),
        &admin,
        None,
    );
    assert_eq!(code, 204, "{body}");
    let (code, body) = keel.api(
        "DELETE",
        &format!("/v2/lbaas/flavorprofiles/{profile}"),
        &admin,
        None,
    );
    assert_eq!(code, 204, "{body}");
    drop(guards);
}
