//! OVN provider flavors end to end, against a real `keel serve` and the stack (Keystone,
//! Neutron, OVN NB from `ci/stack/`; rows read with `ovsdb-client`, not Keel's client):
//!
//! - `GET /v2/lbaas/providers/ovn/flavor_capabilities` answers the five keys;
//! - flavor-profile create refuses bad `flavor_data` (unknown key, wrong type, a value outside
//!   the enum, an address that is not one, a key the connected OVN cannot honour) with
//!   Octavia's 501 `Provider 'ovn' does not support a requested option: <jsonschema text>`,
//!   and nothing is written (the profile list is unchanged);
//! - a load balancer created with an OVN flavor has its options on its NB row, kept through
//!   listener, pool, member and health monitor creates;
//! - `keel ovn-db-sync` reads the flavor from the database: a clean run reports nothing, a
//!   dry run names a drifted option and changes nothing, a run repairs it.
//!
//! Needs the environment of `ci/stack/env.sh` (run through `ci/test.sh`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{Backend, Keel, NeutronNet, admin_token, demo_token, get, keel_bin, map, nbctl};
use serde_json::{Value, json};

fn sync(conf: &Path, lb_id: &str, dry_run: bool) -> Output {
    let mut cmd = Command::new(keel_bin());
    cmd.arg("--config-file")
        .arg(conf)
        .args(["ovn-db-sync", "--lb-id", lb_id]);
    if dry_run {
        cmd.arg("--dry-run");
    }
    cmd.output().unwrap()
}

fn lines(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// The `options` of the LB's (single) NB row.
fn options(lb_id: &str) -> Vec<(String, String)> {
    let rows = common::nb_select("Load_Balancer", json!([["name", "==", lb_id]]));
    assert_eq!(rows.len(), 1, "{rows:?}");
    map(&rows[0]["options"])
}

#[test]
fn ovn_flavor_profiles_capabilities_nb_rows_and_sync() {
    let tag = common::tag();
    let net = NeutronNet::create(&format!("fl-{tag}"), &["10.0.0.10"]);
    let keel = Keel::start(Backend::Sqlite);
    let admin = admin_token();

    // the capabilities: the five keys, each described
    let (code, body) = keel.api(
        "GET",
        "/v2/lbaas/providers/ovn/flavor_capabilities",
        &admin,
        None,
    );
    assert_eq!(code, 200, "{body}");
    let mut names: Vec<&str> = body["flavor_capabilities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            assert!(
                c["description"].as_str().is_some_and(|d| d.len() > 20),
                "{c}"
            );
            c["name"].as_str().unwrap()
        })
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "ct_flush",
            "hairpin_snat_ip",
            "neighbor_responder",
            "reject",
            "selection_fields"
        ]
    );

    // refusals: Octavia's 501 with the jsonschema text; nothing written
    let profiles = |keel: &Keel| -> usize {
        let (code, body) = keel.api("GET", "/v2/lbaas/flavorprofiles", &admin, None);
        assert_eq!(code, 200, "{body}");
        body["flavorprofiles"].as_array().unwrap().len()
    };
    let before = profiles(&keel);
    let nb_version = Command::new("ovsdb-client")
        .args([
            "get-schema-version",
            &common::env("STACK_OVN_NB"),
            "OVN_Northbound",
        ])
        .output()
        .unwrap();
    let nb_version = String::from_utf8_lossy(&nb_version.stdout)
        .trim()
        .to_string();
    let mut refusals = vec![
        (
            json!({"reject": true, "fail_fast": true}),
            "Additional properties are not allowed ('fail_fast' was unexpected)".to_string(),
        ),
        (
            json!({"reject": "true"}),
            "reject 'true' is not of type 'boolean'".into(),
        ),
        (
            json!({"neighbor_responder": "some"}),
            "neighbor_responder 'some' is not one of ['reachable', 'all', 'none']".into(),
        ),
        (
            json!({"selection_fields": ["ip_src", "ip_src"]}),
            "selection_fields ['ip_src', 'ip_src'] has non-unique elements".into(),
        ),
        (
            json!({"hairpin_snat_ip": ["10.0.0.300"]}),
            "hairpin_snat_ip '10.0.0.300' is not an IP address".into(),
        ),
    ];
    // OVN 23.03 (NB schema 7.0.0) has no ct_flush
    if nb_version == "7.0.0" {
        refusals.push((
            json!({"ct_flush": true}),
            "ct_flush needs OVN 23.06 or later (OVN_Northbound schema 7.0.4); the connected \
             OVN_Northbound schema is 7.0.0"
                .into(),
        ));
    }
    for (data, text) in &refusals {
        let (code, body) = keel.api(
            "POST",
            "/v2/lbaas/flavorprofiles",
            &admin,
            Some(&json!({"flavorprofile": {"name": format!("fl-{tag}"),
                "provider_name": "ovn", "flavor_data": data.to_string()}})),
        );
        assert_eq!(code, 501, "{data}: {body}");
        assert_eq!(
            body["faultstring"],
            format!("Provider 'ovn' does not support a requested option: {text}"),
            "{data}"
        );
    }
    assert_eq!(profiles(&keel), before, "a refused profile was written");

    // a good profile and its flavor
    let data = json!({"reject": true, "neighbor_responder": "all",
        "hairpin_snat_ip": ["10.0.0.99"]});
    let (code, body) = keel.api(
        "POST",
        "/v2/lbaas/flavorprofiles",
        &admin,
        Some(&json!({"flavorprofile": {"name": format!("fl-{tag}"),
            "provider_name": "ovn", "flavor_data": data.to_string()}})),
    );
    assert_eq!(code, 201, "{body}");
    let profile = body["flavorprofile"]["id"].as_str().unwrap().to_string();
    let (code, body) = keel.api(
        "POST",
        "/v2/lbaas/flavors",
        &admin,
        Some(&json!({"flavor": {"name": format!("fl-{tag}"), "flavor_profile_id": profile}})),
    );
    assert_eq!(code, 201, "{body}");
    let flavor = body["flavor"]["id"].as_str().unwrap().to_string();

    // a load balancer with it (a member's token), then a listener, pool, member, monitor
    let token = demo_token();
    let (code, body) = keel.api(
        "POST",
        "/v2/lbaas/loadbalancers",
        &token,
        Some(&json!({"loadbalancer": {"name": format!("fl-{tag}"),
            "vip_subnet_id": net.subnet, "flavor_id": flavor}})),
    );
    assert_eq!(code, 201, "{body}");
    assert_eq!(body["loadbalancer"]["provider"], "ovn", "{body}");
    let lb_id = body["loadbalancer"]["id"].as_str().unwrap().to_string();
    let _rows = common::LbGuard(lb_id.clone());
    keel.wait_lb_active(&token, &lb_id);
    let want = [
        ("hairpin_snat_ip", "10.0.0.99"),
        ("neighbor_responder", "all"),
        ("reject", "true"),
    ];
    let has_flavor = |when: &str| {
        let o = options(&lb_id);
        for (k, v) in want {
            assert_eq!(get(&o, k), Some(v), "{when}: {o:?}");
        }
    };
    has_flavor("LB create");
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
    keel.create(
        &token,
        &lb_id,
        &format!("/v2/lbaas/pools/{pool}/members"),
        json!({"member": {"address": "10.0.0.10", "protocol_port": 8080,
            "subnet_id": net.subnet}}),
    );
    keel.create(
        &token,
        &lb_id,
        "/v2/lbaas/healthmonitors",
        json!({"healthmonitor": {"pool_id": pool, "type": "TCP", "delay": 5,
            "timeout": 3, "max_retries": 3}}),
    );
    has_flavor("listener, pool, member, health monitor");

    // ovn-db-sync: the flavor comes from the database
    let conf = keel.conf.clone();
    let clean = sync(&conf, &lb_id, false);
    assert!(
        clean.status.success(),
        "{}",
        String::from_utf8_lossy(&clean.stderr)
    );
    assert!(lines(&clean).is_empty(), "{:?}", lines(&clean));
    let u = common::nb_select("Load_Balancer", json!([["name", "==", lb_id]]))[0]["_uuid"][1]
        .as_str()
        .unwrap()
        .to_string();
    nbctl(&["remove", "Load_Balancer", &u, "options", "reject"]);
    nbctl(&[
        "set",
        "Load_Balancer",
        &u,
        "options:neighbor_responder=none",
    ]);
    let damaged = options(&lb_id);
    let dry = sync(&conf, &lb_id, true);
    assert!(
        dry.status.success(),
        "{}",
        String::from_utf8_lossy(&dry.stderr)
    );
    assert!(
        lines(&dry)
            .iter()
            .any(|l| l.starts_with(&format!("fix {lb_id}: row {u}: flavor options"))),
        "{:?}",
        lines(&dry)
    );
    assert_eq!(options(&lb_id), damaged, "a dry run changed the NB");
    let fixed = sync(&conf, &lb_id, false);
    assert!(
        fixed.status.success(),
        "{}",
        String::from_utf8_lossy(&fixed.stderr)
    );
    has_flavor("after ovn-db-sync");
    let again = sync(&conf, &lb_id, true);
    assert!(lines(&again).is_empty(), "{:?}", lines(&again));

    // the way back: `keel ovn-remove-keel-objects` takes the flavor off the row (a dry run
    // names it and changes nothing), the reference's keys stay
    let remove = |dry_run: bool| {
        let mut cmd = Command::new(keel_bin());
        cmd.arg("--config-file")
            .arg(&conf)
            .arg("ovn-remove-keel-objects");
        if dry_run {
            cmd.arg("--dry-run");
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        lines(&out)
    };
    let before = options(&lb_id);
    let said = remove(true);
    assert!(
        said.iter()
            .any(|l| l.starts_with(&format!("would remove Load_Balancer {lb_id} (keel:flavor"))),
        "{said:?}"
    );
    assert_eq!(options(&lb_id), before, "a dry run changed the NB");
    remove(false);
    let row = &common::nb_select("Load_Balancer", json!([["name", "==", lb_id]]))[0];
    let ext = map(&row["external_ids"]);
    assert!(!ext.iter().any(|(k, _)| k == "keel:flavor"), "{ext:?}");
    assert!(ext.iter().any(|(k, _)| k == "neutron:vip"), "{ext:?}");
    let left = map(&row["options"]);
    assert!(
        !left.iter().any(|(k, _)| [
            "reject",
            "ct_flush",
            "neighbor_responder",
            "hairpin_snat_ip"
        ]
        .contains(&k.as_str())),
        "{left:?}"
    );

    keel.delete_lb_cascade(&token, &lb_id);
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
}
