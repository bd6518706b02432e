//! The amphora provider end to end: a real `keel serve` casting over the stack's private
//! RabbitMQ node to the operator's Python `octavia-worker` (Octavia 19.0.0, upstream's noop
//! amphora / compute / network / image drivers), which takes ids from the casts, re-reads the
//! load-balancer tree from the database it shares with Keel and writes every outcome there.
//! So each ACTIVE / DELETED below was written by the Python worker from rows Keel wrote: a
//! message it cannot decode, a payload missing a key it reads, or a row it cannot read leaves
//! the object PENDING_* and fails the test.
//!
//! Needs `ci/stack/up.sh` with its RabbitMQ node and worker (`STACK_TRANSPORT_URL`,
//! `STACK_WORKER_DB` from `ci/stack/env.sh`), Keystone and Neutron (the VIP subnet is
//! validated there), OVN NB/SB (the OVN load balancer beside the amphora one). Run through
//! `ci/test.sh` (serial: every `keel::*` binary runs `keel serve`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use std::time::{Duration, Instant};

use common::amphora::{amphora_conf, keel_on_worker_db, post, rabbitmqctl, wait_gone, wait_status};
use common::{Keel, NeutronNet, admin_token, demo_token, env, free_port, wait_for};
use serde_json::{Value, json};

#[test]
fn amphora_tree_lives_and_dies_through_the_python_worker() {
    let keel = keel_on_worker_db(&amphora_conf(
        &env("STACK_TRANSPORT_URL"),
        "network_noop_driver",
    ));
    let net = NeutronNet::create("amp", &[]);
    let demo = demo_token();
    let admin = admin_token();

    // No provider named: the configured default, amphora (driver_factory.get_driver).
    let lb = post(
        &keel,
        &demo,
        "/v2/lbaas/loadbalancers",
        json!({"loadbalancer": {"name": "amp-e2e", "vip_subnet_id": net.subnet}}),
    );
    assert_eq!(lb["provider"], "amphora", "{lb}");
    assert_eq!(lb["provisioning_status"], "PENDING_CREATE", "{lb}");
    let lb_id = lb["id"].as_str().unwrap().to_string();
    let lb_path = format!("/v2/lbaas/loadbalancers/{lb_id}");
    wait_status(&keel, &demo, &lb_path, "loadbalancer", "ACTIVE");
    // the rows as octavia-api writes them: topology from [controller_worker], the VIP not
    // owned (the noop network driver made no port), the quota counted
    assert_eq!(
        keel.sql(&format!(
            "SELECT topology, provider FROM load_balancer WHERE id = '{lb_id}'"
        )),
        "SINGLE\tamphora"
    );
    assert_eq!(
        keel.sql(&format!(
            "SELECT octavia_owned, vnic_type FROM vip WHERE load_balancer_id = '{lb_id}'"
        )),
        "0\tnormal"
    );

    // The worker's amphora row, read through the admin API.
    let amps_path = format!("/v2/octavia/amphorae?loadbalancer_id={lb_id}");
    let (code, amps) = keel.api("GET", &amps_path, &admin, None);
    assert_eq!(code, 200, "{amps}");
    let amps = amps["amphorae"].as_array().unwrap().clone();
    assert_eq!(
        amps.len(),
        1,
        "one STANDALONE amphora for a SINGLE LB: {amps:?}"
    );
    assert_eq!(amps[0]["role"], "STANDALONE");
    assert_eq!(amps[0]["status"], "ALLOCATED");
    let first_amp = amps[0]["id"].as_str().unwrap().to_string();
    let (code, body) = keel.api("GET", &amps_path, &demo, None);
    assert_eq!(code, 403, "the amphora API is admin only: {body}");

    // Every child kind to ACTIVE, each written by the worker.
    let listener = post(
        &keel,
        &demo,
        "/v2/lbaas/listeners",
        json!({"listener": {"loadbalancer_id": lb_id, "protocol": "HTTP", "protocol_port": 80,
            "name": "l1"}}),
    );
    let l_path = format!("/v2/lbaas/listeners/{}", listener["id"].as_str().unwrap());
    wait_status(&keel, &demo, &l_path, "listener", "ACTIVE");
    wait_status(&keel, &demo, &lb_path, "loadbalancer", "ACTIVE");
    let pool = post(
        &keel,
        &demo,
        "/v2/lbaas/pools",
        json!({"pool": {"listener_id": listener["id"], "protocol": "HTTP",
            "lb_algorithm": "LEAST_CONNECTIONS", "session_persistence": {"type": "HTTP_COOKIE"}}}),
    );
    let pool_id = pool["id"].as_str().unwrap().to_string();
    let p_path = format!("/v2/lbaas/pools/{pool_id}");
    wait_status(&keel, &demo, &p_path, "pool", "ACTIVE");
    wait_status(&keel, &demo, &lb_path, "loadbalancer", "ACTIVE");
    let member = post(
        &keel,
        &demo,
        &format!("/v2/lbaas/pools/{pool_id}/members"),
        json!({"member": {"address": "10.0.0.30", "protocol_port": 8080,
            "subnet_id": net.subnet}}),
    );
    let m_path = format!(
        "/v2/lbaas/pools/{pool_id}/members/{}",
        member["id"].as_str().unwrap()
    );
    wait_status(&keel, &demo, &m_path, "member", "ACTIVE");
    wait_status(&keel, &demo, &lb_path, "loadbalancer", "ACTIVE");
    let hm = post(
        &keel,
        &demo,
        "/v2/lbaas/healthmonitors",
        json!({"healthmonitor": {"pool_id": pool_id, "type": "HTTP", "delay": 5,
            "timeout": 3, "max_retries": 2, "url_path": "/health"}}),
    );
    let hm_path = format!("/v2/lbaas/healthmonitors/{}", hm["id"].as_str().unwrap());
    wait_status(&keel, &demo, &hm_path, "healthmonitor", "ACTIVE");
    wait_status(&keel, &demo, &lb_path, "loadbalancer", "ACTIVE");
    let policy = post(
        &keel,
        &demo,
        "/v2/lbaas/l7policies",
        json!({"l7policy": {"listener_id": listener["id"], "action": "REDIRECT_TO_URL",
            "redirect_url": "http://example.com/"}}),
    );
    let pol_path = format!("/v2/lbaas/l7policies/{}", policy["id"].as_str().unwrap());
    wait_status(&keel, &demo, &pol_path, "l7policy", "ACTIVE");
    wait_status(&keel, &demo, &lb_path, "loadbalancer", "ACTIVE");
    let rule = post(
        &keel,
        &demo,
        &format!("{pol_path}/rules"),
        json!({"rule": {"type": "PATH", "compare_type": "STARTS_WITH", "value": "/old"}}),
    );
    let rule_path = format!("{pol_path}/rules/{}", rule["id"].as_str().unwrap());
    wait_status(&keel, &demo, &rule_path, "rule", "ACTIVE");
    wait_status(&keel, &demo, &lb_path, "loadbalancer", "ACTIVE");

    // Updates: each answered PENDING_UPDATE, then ACTIVE by the worker with the new value.
    for (path, key, body) in [
        (
            &lb_path,
            "loadbalancer",
            json!({"loadbalancer": {"name": "amp-e2e-2"}}),
        ),
        (
            &l_path,
            "listener",
            json!({"listener": {"connection_limit": 100}}),
        ),
        (
            &p_path,
            "pool",
            json!({"pool": {"lb_algorithm": "ROUND_ROBIN"}}),
        ),
        (&m_path, "member", json!({"member": {"weight": 5}})),
        (
            &hm_path,
            "healthmonitor",
            json!({"healthmonitor": {"delay": 7}}),
        ),
        (
            &pol_path,
            "l7policy",
            json!({"l7policy": {"position": 1, "name": "p"}}),
        ),
        (&rule_path, "rule", json!({"rule": {"value": "/older"}})),
    ] {
        let (code, out) = keel.api("PUT", path, &demo, Some(&body));
        assert_eq!(code, 200, "PUT {path} {body}: {out}");
        let got = wait_status(&keel, &demo, path, key, "ACTIVE");
        wait_status(&keel, &demo, &lb_path, "loadbalancer", "ACTIVE");
        let (field, want) = body[key].as_object().unwrap().iter().next().unwrap();
        assert_eq!(&got[field], want, "{path} after PUT: {got}");
    }

    // A member batch: the whole new set, the old member gone.
    let (code, out) = keel.api(
        "PUT",
        &format!("/v2/lbaas/pools/{pool_id}/members"),
        &demo,
        Some(&json!({"members": [
            {"address": "10.0.0.31", "protocol_port": 8080, "subnet_id": net.subnet},
            {"address": "10.0.0.32", "protocol_port": 8080, "subnet_id": net.subnet}]})),
    );
    assert_eq!(code, 202, "{out}");
    wait_status(&keel, &demo, &p_path, "pool", "ACTIVE");
    wait_status(&keel, &demo, &lb_path, "loadbalancer", "ACTIVE");
    wait_status(&keel, &demo, &lb_path, "loadbalancer", "ACTIVE");
    let (_, members) = keel.api(
        "GET",
        &format!("/v2/lbaas/pools/{pool_id}/members"),
        &demo,
        None,
    );
    let mut addrs: Vec<&str> = members["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["address"].as_str().unwrap())
        .collect();
    addrs.sort();
    assert_eq!(addrs, ["10.0.0.31", "10.0.0.32"], "{members}");

    // LB failover (admin): PENDING_UPDATE, then ACTIVE on a new amphora.
    let (code, out) = keel.api("PUT", &format!("{lb_path}/failover"), &admin, None);
    assert_eq!(code, 202, "{out}");
    wait_status(&keel, &demo, &lb_path, "loadbalancer", "ACTIVE");
    let amp_now = |keel: &Keel| -> Vec<Value> {
        let (_, amps) = keel.api("GET", &amps_path, &admin, None);
        amps["amphorae"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|a| a["status"] != "DELETED")
            .cloned()
            .collect()
    };
    let after_lb_failover = amp_now(&keel);
    assert_eq!(after_lb_failover.len(), 1, "{after_lb_failover:?}");
    assert_ne!(after_lb_failover[0]["id"], first_amp.as_str());

    // Amphora failover, configure, stats.
    let amp = after_lb_failover[0]["id"].as_str().unwrap().to_string();
    let (code, out) = keel.api(
        "PUT",
        &format!("/v2/octavia/amphorae/{amp}/failover"),
        &admin,
        None,
    );
    assert_eq!(code, 202, "{out}");
    wait_status(&keel, &demo, &lb_path, "loadbalancer", "ACTIVE");
    let replaced = amp_now(&keel);
    assert_eq!(replaced.len(), 1, "{replaced:?}");
    assert_ne!(replaced[0]["id"], amp.as_str());
    let amp = replaced[0]["id"].as_str().unwrap().to_string();
    let (code, out) = keel.api(
        "PUT",
        &format!("/v2/octavia/amphorae/{amp}/config"),
        &admin,
        None,
    );
    assert_eq!(code, 202, "{out}");
    let (code, out) = keel.api("GET", &format!("{lb_path}/stats"), &demo, None);
    assert_eq!(code, 200, "{out}");

    // An amphora in ERROR (as the health manager would leave it) deleted: the worker
    // marks it DELETED.
    keel.sql(&format!(
        "UPDATE amphora SET status = 'ERROR' WHERE id = '{amp}'"
    ));
    let (code, out) = keel.api(
        "DELETE",
        &format!("/v2/octavia/amphorae/{amp}"),
        &admin,
        None,
    );
    assert_eq!(code, 204, "{out}");
    wait_for("amphora DELETED", Duration::from_secs(60), || {
        let s = keel.sql(&format!("SELECT status FROM amphora WHERE id = '{amp}'"));
        if s == "DELETED" { Ok(()) } else { Err(s) }
    });

    // An OVN load balancer beside it, in the same project: both listed.
    let (code, ovn) = keel.api(
        "POST",
        "/v2/lbaas/loadbalancers",
        &demo,
        Some(
            &json!({"loadbalancer": {"name": "ovn-beside", "vip_subnet_id": net.subnet,
            "provider": "ovn"}}),
        ),
    );
    assert_eq!(code, 201, "{ovn}");
    let ovn_id = ovn["loadbalancer"]["id"].as_str().unwrap().to_string();
    keel.wait_lb_active(&demo, &ovn_id);
    let (_, list) = keel.api("GET", "/v2/lbaas/loadbalancers", &demo, None);
    let mut providers: Vec<&str> = list["loadbalancers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["id"] == lb_id.as_str() || l["id"] == ovn_id.as_str())
        .map(|l| l["provider"].as_str().unwrap())
        .collect();
    providers.sort();
    assert_eq!(providers, ["amphora", "ovn"], "{list}");
    keel.delete_lb_cascade(&demo, &ovn_id);

    // Cascade delete: the worker deletes the whole tree.
    let (code, out) = keel.api("DELETE", &format!("{lb_path}?cascade=true"), &demo, None);
    assert_eq!(code, 204, "{out}");
    wait_gone(&keel, &demo, &lb_path);
    assert_eq!(
        keel.sql(&format!(
            "SELECT provisioning_status FROM load_balancer WHERE id = '{lb_id}'"
        )),
        "DELETED"
    );
}

#[test]
fn amphora_write_without_rabbitmq_is_refused_and_stores_nothing() {
    // Nothing listens on this port: every cast fails within rpc_cast_timeout (3 s).
    let dead = format!("rabbit://octavia:x@127.0.0.1:{}/", free_port());
    let keel = keel_on_worker_db(&amphora_conf(&dead, "allowed_address_pairs_driver"));
    let net = NeutronNet::create("ampdown", &[]);
    let demo = demo_token();
    let name = format!("amp-down-{}", uuid::Uuid::new_v4().simple());

    let t0 = Instant::now();
    let (code, body) = keel.api(
        "POST",
        "/v2/lbaas/loadbalancers",
        &demo,
        Some(
            &json!({"loadbalancer": {"name": name, "vip_subnet_id": net.subnet,
            "provider": "amphora"}}),
        ),
    );
    let took = t0.elapsed();
    assert_eq!(code, 503, "{body}");
    assert!(
        body["faultstring"]
            .as_str()
            .unwrap_or("")
            .contains("RabbitMQ"),
        "the fault names RabbitMQ: {body}"
    );
    assert!(
        took < Duration::from_secs(20),
        "bounded, not a hang: {took:?}"
    );
    // nothing stored, and the VIP port the allowed-address-pairs driver made is deleted again
    assert_eq!(
        keel.sql(&format!(
            "SELECT COUNT(*) FROM load_balancer WHERE name = '{name}'"
        )),
        "0"
    );
    let (code, ports) = common::neutron(
        "GET",
        &format!("/ports?network_id={}&device_owner=Octavia", net.net),
        &admin_token(),
        None,
    );
    assert_eq!(code, 200, "{ports}");
    assert_eq!(
        ports["ports"],
        json!([]),
        "a refused create leaves no VIP port"
    );

    // The OVN provider in the same Keel does not need RabbitMQ.
    let lb = keel.create_lb(&demo, "ovn-while-rabbit-down", &net.subnet);
    keel.delete_lb_cascade(&demo, lb["id"].as_str().unwrap());
}

/// `[controller_worker] network_driver = network_noop_driver`, as upstream's noop API job
/// (octavia-tempest-plugin `test_with_noop`): networks, subnets and security groups that
/// exist nowhere are accepted, as octavia-api's noop network driver accepts them, and the
/// worker takes the LB to ACTIVE. With the Neutron driver the same request is Neutron's 400.
#[test]
fn noop_network_driver_takes_ids_that_exist_nowhere() {
    let keel = keel_on_worker_db(&amphora_conf(
        &env("STACK_TRANSPORT_URL"),
        "network_noop_driver",
    ));
    let demo = demo_token();
    let admin = admin_token();
    let fake = || uuid::Uuid::new_v4().to_string();
    let (network, subnet, member_subnet) = (fake(), fake(), fake());
    // the shape tempest sends in noop mode (test_base.py `_setup_lb_network_kwargs`)
    let lb = post(
        &keel,
        &demo,
        "/v2/lbaas/loadbalancers",
        json!({"loadbalancer": {"name": "amp-noop-net", "vip_network_id": network,
            "vip_subnet_id": subnet, "vip_address": "198.18.33.33",
            "vip_sg_ids": [fake()]}}),
    );
    assert_eq!(lb["vip_network_id"], network.as_str(), "{lb}");
    assert_eq!(lb["vip_subnet_id"], subnet.as_str(), "{lb}");
    assert_eq!(lb["vip_address"], "198.18.33.33", "{lb}");
    let lb_id = lb["id"].as_str().unwrap().to_string();
    let lb_path = format!("/v2/lbaas/loadbalancers/{lb_id}");
    wait_status(&keel, &demo, &lb_path, "loadbalancer", "ACTIVE");
    // a network alone: one of its subnets is chosen, as the noop driver lists one
    let lb2 = post(
        &keel,
        &demo,
        "/v2/lbaas/loadbalancers",
        json!({"loadbalancer": {"name": "amp-noop-net2", "vip_network_id": fake()}}),
    );
    assert!(
        lb2["vip_subnet_id"].as_str().is_some_and(|s| s.len() == 36),
        "{lb2}"
    );
    let lb2_path = format!("/v2/lbaas/loadbalancers/{}", lb2["id"].as_str().unwrap());
    wait_status(&keel, &demo, &lb2_path, "loadbalancer", "ACTIVE");
    let pool = post(
        &keel,
        &demo,
        "/v2/lbaas/pools",
        json!({"pool": {"loadbalancer_id": lb_id, "protocol": "HTTP",
            "lb_algorithm": "ROUND_ROBIN"}}),
    );
    let pool_id = pool["id"].as_str().unwrap().to_string();
    wait_status(&keel, &demo, &lb_path, "loadbalancer", "ACTIVE");
    let member = post(
        &keel,
        &demo,
        &format!("/v2/lbaas/pools/{pool_id}/members"),
        json!({"member": {"address": "198.18.0.10", "protocol_port": 80,
            "subnet_id": member_subnet}}),
    );
    assert_eq!(member["subnet_id"], member_subnet.as_str(), "{member}");
    wait_status(&keel, &demo, &lb_path, "loadbalancer", "ACTIVE");
    // an AZ profile naming a management network that exists nowhere
    let (code, body) = keel.api(
        "POST",
        "/v2/lbaas/availabilityzoneprofiles",
        &admin,
        Some(&json!({"availability_zone_profile": {"name": "noop-az",
            "provider_name": "amphora",
            "availability_zone_data": format!("{{\"management_network\": \"{}\"}}", fake())}})),
    );
    assert_eq!(code, 201, "{body}");
    let azp = body["availability_zone_profile"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (code, body) = keel.api(
        "DELETE",
        &format!("/v2/lbaas/availabilityzoneprofiles/{azp}"),
        &admin,
        None,
    );
    assert_eq!(code, 204, "{body}");
    for path in [&lb_path, &lb2_path] {
        let (code, out) = keel.api("DELETE", &format!("{path}?cascade=true"), &demo, None);
        assert_eq!(code, 204, "{out}");
        wait_gone(&keel, &demo, path);
    }
    drop(keel);

    // The Neutron driver asks Neutron, which has no such network.
    let keel = keel_on_worker_db(&amphora_conf(
        &env("STACK_TRANSPORT_URL"),
        "allowed_address_pairs_driver",
    ));
    let network = fake();
    let (code, body) = keel.api(
        "POST",
        "/v2/lbaas/loadbalancers",
        &demo,
        Some(&json!({"loadbalancer": {"vip_network_id": network}})),
    );
    assert_eq!(code, 400, "{body}");
    assert_eq!(
        body["faultstring"],
        format!("Network {network} not found."),
        "{body}"
    );
}

/// Starts the RabbitMQ application again when dropped (a failing test leaves the stack whole).
struct RabbitBack;

impl Drop for RabbitBack {
    fn drop(&mut self) {
        rabbitmqctl(&["start_app"]);
    }
}

#[test]
fn rabbitmq_stopped_and_started_keel_reconnects_by_itself() {
    let keel = keel_on_worker_db(&amphora_conf(
        &env("STACK_TRANSPORT_URL"),
        "network_noop_driver",
    ));
    let net = NeutronNet::create("amprestart", &[]);
    let demo = demo_token();
    let create = |name: &str| {
        keel.api(
            "POST",
            "/v2/lbaas/loadbalancers",
            &demo,
            Some(&json!({"loadbalancer": {"name": name, "vip_subnet_id": net.subnet}})),
        )
    };
    // connected: a create goes through
    let (code, lb) = create("amp-before-stop");
    assert_eq!(code, 201, "{lb}");
    let first = lb["loadbalancer"]["id"].as_str().unwrap().to_string();
    wait_status(
        &keel,
        &demo,
        &format!("/v2/lbaas/loadbalancers/{first}"),
        "loadbalancer",
        "ACTIVE",
    );

    // RabbitMQ's application stopped (connections closed, the port shut), as in a broker
    // restart: amphora writes are refused within the bound and store nothing; OVN keeps working
    rabbitmqctl(&["stop_app"]);
    let back = RabbitBack;
    let down_name = format!("amp-while-down-{}", uuid::Uuid::new_v4().simple());
    let t0 = Instant::now();
    let (code, body) = create(&down_name);
    assert_eq!(code, 503, "{body}");
    assert!(t0.elapsed() < Duration::from_secs(20), "{:?}", t0.elapsed());
    assert_eq!(
        keel.sql(&format!(
            "SELECT COUNT(*) FROM load_balancer WHERE name = '{down_name}'"
        )),
        "0"
    );
    let ovn = keel.create_lb(&demo, "ovn-while-rabbit-stopped", &net.subnet);

    // started again: the same Keel process casts again, without a restart (its connection
    // comes back with kombu's back-off); the worker reconnects too and the LB goes ACTIVE
    drop(back);
    let id = wait_for(
        "an amphora create accepted again",
        Duration::from_secs(60),
        || {
            let (code, body) = create(&format!("amp-after-{}", uuid::Uuid::new_v4().simple()));
            match code {
                201 => Ok(body["loadbalancer"]["id"].as_str().unwrap().to_string()),
                503 => Err(format!("{code} {body}")),
                _ => panic!("{code} {body}"),
            }
        },
    );
    wait_status(
        &keel,
        &demo,
        &format!("/v2/lbaas/loadbalancers/{id}"),
        "loadbalancer",
        "ACTIVE",
    );
    for lb in [first, id] {
        let (code, out) = keel.api(
            "DELETE",
            &format!("/v2/lbaas/loadbalancers/{lb}?cascade=true"),
            &demo,
            None,
        );
        assert_eq!(code, 204, "{out}");
        wait_gone(&keel, &demo, &format!("/v2/lbaas/loadbalancers/{lb}"));
    }
    keel.delete_lb_cascade(&demo, ovn["id"].as_str().unwrap());
}
