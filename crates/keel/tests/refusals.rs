//! Against a real `keel serve` and the stack's Neutron: a load balancer create the OVN
//! provider refuses after its VIP port was made leaves no port behind (the reference leaks
//! `ovn-lb-vip-<id>`), and `vip_qos_policy_id` is validated in Neutron as the reference does
//! (octavia/common/validate.py `qos_extension_enabled` / `qos_policy_exists`; this stack's
//! Neutron has no `qos` extension, so any policy is refused with the reference's text), and
//! so is each of `vip_sg_ids` (`security_group_exists`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Backend, Keel, LbGuard, NeutronNet, demo_token, neutron, tag};
use serde_json::{Value, json};

/// The ports on the test's network that the OVN provider made as VIP ports.
fn vip_ports(net: &NeutronNet, token: &str) -> Vec<Value> {
    let (code, body) = neutron(
        "GET",
        &format!("/ports?network_id={}", net.net),
        token,
        None,
    );
    assert_eq!(code, 200, "{body}");
    body["ports"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(|p| {
            p["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("ovn-lb-vip-"))
        })
        .collect()
}

#[test]
fn refused_creates_leave_no_port_and_qos_is_validated() {
    let tag = tag();
    let net = NeutronNet::create(&tag, &[]);
    let keel = Keel::start(Backend::Sqlite);
    let token = demo_token();
    let lbs = |keel: &Keel| {
        let (code, b) = keel.api("GET", "/v2/lbaas/loadbalancers", &token, None);
        assert_eq!(code, 200, "{b}");
        b["loadbalancers"].as_array().map(Vec::len).unwrap_or(0)
    };
    let refused_graphs = [
        json!({"protocol": "HTTP", "protocol_port": 80}),
        json!({"protocol": "TCP", "protocol_port": 81, "default_pool": {
            "name": "p", "protocol": "TCP", "lb_algorithm": "SOURCE_IP_PORT",
            "members": [{"address": "10.0.0.50", "protocol_port": 8080,
                         "subnet_id": net.subnet, "monitor_port": 9000}]}}),
    ];
    for listener in refused_graphs {
        let body = json!({"loadbalancer": {"name": format!("refused-{tag}"),
            "vip_subnet_id": net.subnet, "provider": "ovn", "listeners": [listener]}});
        let (code, out) = keel.api("POST", "/v2/lbaas/loadbalancers", &token, Some(&body));
        assert_eq!(code, 501, "{listener}: {out}\n{}", keel.log());
        assert_eq!(out["faultcode"], "Server", "{out}");
        assert_eq!(
            vip_ports(&net, &token),
            Vec::<Value>::new(),
            "{listener}\n{}",
            keel.log()
        );
        assert_eq!(lbs(&keel), 0);
    }

    // VIP QoS: no `qos` extension in this Neutron → the reference's 400, nothing made
    let qos_text = "Validation failure: VIP QoS policy is not allowed in this deployment.";
    let body = json!({"loadbalancer": {"vip_subnet_id": net.subnet, "provider": "ovn",
        "vip_qos_policy_id": "6a0a707c-45ef-4758-b533-e55adddba8ce"}});
    let (code, out) = keel.api("POST", "/v2/lbaas/loadbalancers", &token, Some(&body));
    assert_eq!(
        (code, out["faultstring"].as_str()),
        (400, Some(qos_text)),
        "{out}"
    );
    assert_eq!(lbs(&keel), 0);
    assert_eq!(vip_ports(&net, &token), Vec::<Value>::new());
    // on update, naming the policy at all (even null) needs the extension
    let lb = keel.create_lb(&token, &format!("qos-{tag}"), &net.subnet);
    let lb_id = lb["id"].as_str().unwrap().to_string();
    let _rows = LbGuard(lb_id.clone());
    for policy in [json!(null), json!("6a0a707c-45ef-4758-b533-e55adddba8ce")] {
        let (code, out) = keel.api(
            "PUT",
            &format!("/v2/lbaas/loadbalancers/{lb_id}"),
            &token,
            Some(&json!({"loadbalancer": {"vip_qos_policy_id": policy}})),
        );
        assert_eq!(
            (code, out["faultstring"].as_str()),
            (400, Some(qos_text)),
            "{out}"
        );
    }
    let (code, out) = keel.api(
        "PUT",
        &format!("/v2/lbaas/loadbalancers/{lb_id}"),
        &token,
        Some(&json!({"loadbalancer": {"name": "still-fine"}})),
    );
    assert_eq!(code, 200, "{out}");
    keel.wait_lb_active(&token, &lb_id);
    assert_eq!(vip_ports(&net, &token).len(), 1);

    // vip_sg_ids: each group is looked up in Neutron (validate.py `security_group_exists`),
    // on create and on update; the first missing one is named, nothing is made or changed
    let (code, sgs) = neutron("GET", "/security-groups?name=default", &token, None);
    assert_eq!(code, 200, "{sgs}");
    let existing = sgs["security_groups"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let missing = "0b8f7a8e-4c7e-4f0e-9d55-7e1d6c1a2b3c";
    let sg_text = format!("Security Group {missing} not found.");
    let body = json!({"loadbalancer": {"vip_subnet_id": net.subnet, "provider": "ovn",
        "vip_sg_ids": [existing, missing]}});
    let (code, out) = keel.api("POST", "/v2/lbaas/loadbalancers", &token, Some(&body));
    assert_eq!(
        (code, out["faultstring"].as_str()),
        (400, Some(sg_text.as_str())),
        "{out}"
    );
    assert_eq!(lbs(&keel), 1);
    assert_eq!(vip_ports(&net, &token).len(), 1);
    let lb_path = format!("/v2/lbaas/loadbalancers/{lb_id}");
    let (code, out) = keel.api(
        "PUT",
        &lb_path,
        &token,
        Some(&json!({"loadbalancer": {"vip_sg_ids": [missing]}})),
    );
    assert_eq!(
        (code, out["faultstring"].as_str()),
        (400, Some(sg_text.as_str())),
        "{out}"
    );
    let (_, got) = keel.api("GET", &lb_path, &token, None);
    assert_eq!(got["loadbalancer"]["vip_sg_ids"], json!([]), "{got}");
    assert_eq!(
        got["loadbalancer"]["provisioning_status"], "ACTIVE",
        "{got}"
    );
    keel.delete_lb_cascade(&token, &lb_id);
    assert_eq!(vip_ports(&net, &token), Vec::<Value>::new());
}

/// A load balancer create naming network objects Neutron does not have answers the
/// reference's 400 before anything is made — never the provider's 500 after its port create
/// failed (found by the fuzz through the OVN provider: an `additional_vips` subnet that does
/// not exist answered 500). The kind: every subnet, network and port reference of the VIP.
#[test]
fn lb_create_with_a_control_character_in_project_id_is_400_and_makes_nothing() {
    // fuzz case #15867 (`tenant_id` "nul\u0000byte") answered 503 from Neutron's port create
    let tag = tag();
    let net = NeutronNet::create(&tag, &[]);
    let keel = Keel::start(Backend::Sqlite);
    let admin = common::admin_token();
    for (key, project) in [
        ("tenant_id", "nul\u{0}byte"),
        ("project_id", "tab\tin"),
        ("project_id", "\u{1f}"),
    ] {
        let body = json!({"loadbalancer": {"vip_subnet_id": net.subnet, "provider": "ovn",
            "name": format!("ctl-{tag}"), key: project}});
        let (code, out) = keel.api("POST", "/v2/lbaas/loadbalancers", &admin, Some(&body));
        assert_eq!(code, 400, "{key}={project:?}: {out}\n{}", keel.log());
        assert!(
            out["faultstring"]
                .as_str()
                .is_some_and(|f| f.starts_with("Invalid input for field/attribute project_id.")),
            "{out}"
        );
        let (code, b) = keel.api(
            "GET",
            &format!("/v2/lbaas/loadbalancers?name=ctl-{tag}"),
            &admin,
            None,
        );
        assert_eq!((code, &b["loadbalancers"]), (200, &json!([])), "{b}");
        assert_eq!(vip_ports(&net, &admin), Vec::<Value>::new(), "{project:?}");
    }
}

#[test]
fn lb_create_with_missing_network_objects_is_400_and_makes_nothing() {
    let tag = tag();
    let net = NeutronNet::create(&tag, &[]);
    let keel = Keel::start(Backend::Sqlite);
    let token = demo_token();
    let missing = "3d4c2b1a-0f9e-4d8c-b7a6-958473625140";
    let cases = [
        (
            json!({"vip_subnet_id": net.subnet, "additional_vips": [{"subnet_id": missing}]}),
            format!("Validation failure: Subnet {missing} not found"),
        ),
        (
            json!({"vip_subnet_id": missing}),
            format!("Subnet {missing} not found."),
        ),
        (
            json!({"vip_network_id": missing}),
            format!("Network {missing} not found."),
        ),
        (
            json!({"vip_port_id": missing}),
            format!("Port {missing} not found."),
        ),
    ];
    for (vip, text) in cases {
        let mut lb = vip.clone();
        lb["provider"] = json!("ovn");
        lb["name"] = json!(format!("missing-{tag}"));
        let (code, out) = keel.api(
            "POST",
            "/v2/lbaas/loadbalancers",
            &token,
            Some(&json!({ "loadbalancer": lb })),
        );
        assert_eq!(
            (code, out["faultstring"].as_str()),
            (400, Some(text.as_str())),
            "{vip}: {out}\n{}",
            keel.log()
        );
        let (code, b) = keel.api("GET", "/v2/lbaas/loadbalancers", &token, None);
        assert_eq!(code, 200, "{b}");
        assert_eq!(b["loadbalancers"], json!([]), "{vip}");
        assert_eq!(vip_ports(&net, &token), Vec::<Value>::new(), "{vip}");
    }
}

/// A member batch is validated as Octavia's `MembersController.put`: each new member in
/// list order, its subnet (in Neutron, with the caller's token) then SR-IOV, the first
/// refusal answered; a refused batch writes nothing. Keel looks the batch's subnets up while
/// its transaction works, and awaits their verdicts after its INSERTs: the kind is every
/// order of a bad subnet, a good one and an SR-IOV member, and what stays written.
#[test]
fn member_batch_refusals_come_in_list_order_and_write_nothing() {
    let tag = tag();
    let net = NeutronNet::create(&tag, &[]);
    let keel = Keel::start(Backend::Sqlite);
    let t = demo_token();
    let lb = keel.create_lb(&t, &format!("batch-{tag}"), &net.subnet);
    let lb_id = lb["id"].as_str().unwrap().to_string();
    let _rows = LbGuard(lb_id.clone());
    let pool = keel.create(
        &t,
        &lb_id,
        "/v2/lbaas/pools",
        json!({"pool": {"loadbalancer_id": lb_id, "protocol": "TCP",
            "lb_algorithm": "SOURCE_IP_PORT"}}),
    );
    let members = format!("/v2/lbaas/pools/{}/members", pool["id"].as_str().unwrap());
    let member = |last: u8, subnet: &str| json!({"address": format!("10.0.0.{last}"), "protocol_port": 80, "subnet_id": subnet});
    let put = |list: Vec<Value>| keel.api("PUT", &members, &t, Some(&json!({ "members": list })));
    let (code, out) = put(vec![member(10, &net.subnet)]);
    assert_eq!(code, 202, "{out}");
    keel.wait_lb_active(&t, &lb_id);

    let missing = "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f70819";
    let bad_subnet = format!("Subnet {missing} not found.");
    let sriov = "The load balancer flavor does not allow SR-IOV member ports.".to_string();
    let mut sriov_member = member(13, &net.subnet);
    sriov_member["request_sriov"] = json!(true);
    let cases = [
        (
            vec![
                member(10, &net.subnet),
                member(11, &net.subnet),
                member(12, missing),
            ],
            &bad_subnet,
        ),
        (
            vec![member(12, missing), member(11, &net.subnet)],
            &bad_subnet,
        ),
        (vec![sriov_member.clone(), member(12, missing)], &sriov),
        (vec![member(12, missing), sriov_member.clone()], &bad_subnet),
        (vec![member(11, &net.subnet), sriov_member], &sriov),
    ];
    for (list, text) in cases {
        let shown = format!("{list:?}");
        let (code, out) = put(list);
        assert_eq!(
            (code, out["faultstring"].as_str()),
            (400, Some(text.as_str())),
            "{shown}: {out}\n{}",
            keel.log()
        );
        let (code, now) = keel.api("GET", &members, &t, None);
        assert_eq!(code, 200, "{now}");
        let addresses: Vec<&str> = now["members"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|m| m["address"].as_str())
            .collect();
        assert_eq!(addresses, ["10.0.0.10"], "{shown}: {now}");
        let (_, lb) = keel.api("GET", &format!("/v2/lbaas/loadbalancers/{lb_id}"), &t, None);
        assert_eq!(
            lb["loadbalancer"]["provisioning_status"], "ACTIVE",
            "{shown}: {lb}"
        );
    }
    // and a batch whose subnets are all known goes through
    let (code, out) = put(vec![member(10, &net.subnet), member(11, &net.subnet)]);
    assert_eq!(code, 202, "{out}");
    keel.wait_lb_active(&t, &lb_id);
    let (_, now) = keel.api("GET", &members, &t, None);
    assert_eq!(now["members"].as_array().map(Vec::len), Some(2), "{now}");
}
