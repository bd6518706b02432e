//! The walking-skeleton scenario (seed 004 §1–4) end to end: the real `openstack`
//! CLI (python-octaviaclient) against a real `keel serve`, with Keystone, Neutron, OVN NB/SB +
//! ovn-northd from `ci/stack/`. Checks the API's answers, the NB rows (read with
//! `ovsdb-client`, not our own client) and the SB logical flows northd made from them.
//!
//! Needs the environment of `ci/stack/env.sh` (run through `ci/test.sh`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Backend, Keel, LbGuard, NeutronNet, env, get, map, os, osj, select, uuids};
use serde_json::{Value, json};

#[test]
fn cli_walking_skeleton_sqlite() {
    walking_skeleton(Backend::Sqlite);
}

#[test]
fn cli_walking_skeleton_mariadb() {
    walking_skeleton(Backend::MariaDb);
}

fn walking_skeleton(backend: Backend) {
    let nb = env("STACK_OVN_NB");
    let sb = env("STACK_OVN_SB");
    let on_sqlite = matches!(backend, Backend::Sqlite);
    let keel = Keel::start(backend);
    let tag = common::tag();

    // Neutron objects a user makes first (as in ci/stack/smoke-neutron.sh), deleted at the end.
    let neutron = NeutronNet::create(&tag, &["10.0.0.10", "10.0.0.11"]);
    let (net_id, subnet_id, router_id) = (
        neutron.net.clone(),
        neutron.subnet.clone(),
        neutron.router.clone(),
    );

    // 1. Load balancer.
    let lb = osj(
        &keel,
        &[
            "loadbalancer",
            "create",
            "--name",
            &format!("lb1-{tag}"),
            "--vip-subnet-id",
            &subnet_id,
            "--provider",
            "ovn",
            "--wait",
        ],
    );
    let lb_id = lb["id"].as_str().unwrap().to_string();
    let _lb_rows = LbGuard(lb_id.clone());
    let lb = osj(&keel, &["loadbalancer", "show", &lb_id]);
    assert_eq!(lb["provisioning_status"], "ACTIVE", "{lb}");
    assert_eq!(lb["operating_status"], "ONLINE", "{lb}");
    let vip = lb["vip_address"].as_str().unwrap().to_string();
    let vip_port = osj(&keel, &["port", "show", &format!("ovn-lb-vip-{lb_id}")]);
    // no device_owner (the reference: `ovn-lb:vip`): Neutron then leaves the VIP port's
    // switch port without addresses, so same-subnet clients reach the VIP
    assert_eq!(vip_port["device_owner"], "");
    assert_eq!(vip_port["device_id"], format!("lb-{lb_id}"));
    let rows = select(
        "OVN_Northbound",
        &nb,
        "Load_Balancer",
        json!([["name", "==", lb_id]]),
    );
    assert_eq!(rows.len(), 1, "{rows:?}");
    let ext = map(&rows[0]["external_ids"]);
    assert_eq!(get(&ext, "neutron:vip"), Some(vip.as_str()));
    assert_eq!(get(&ext, "neutron:vip_port_id"), vip_port["id"].as_str());
    assert_eq!(get(&ext, "enabled"), Some("True"));
    let ls_refs: Value = serde_json::from_str(get(&ext, "ls_refs").unwrap()).unwrap();
    assert_eq!(ls_refs, json!({format!("neutron-{net_id}"): 1}));
    assert_eq!(
        get(&ext, "lr_ref"),
        Some(format!("neutron-{router_id}").as_str())
    );
    let lb_uuid = rows[0]["_uuid"][1].as_str().unwrap().to_string();
    let ls = select(
        "OVN_Northbound",
        &nb,
        "Logical_Switch",
        json!([["name", "==", format!("neutron-{net_id}")]]),
    );
    assert!(
        uuids(&ls[0]["load_balancer"]).contains(&lb_uuid),
        "LB not on its logical switch"
    );
    let lr = select(
        "OVN_Northbound",
        &nb,
        "Logical_Router",
        json!([["name", "==", format!("neutron-{router_id}")]]),
    );
    assert!(
        uuids(&lr[0]["load_balancer"]).contains(&lb_uuid),
        "LB not on its logical router"
    );

    // 2–5. Listener, pool, members, health monitor.
    let listener = osj(
        &keel,
        &[
            "loadbalancer",
            "listener",
            "create",
            "--protocol",
            "TCP",
            "--protocol-port",
            "80",
            &lb_id,
            "--wait",
        ],
    );
    let listener_id = listener["id"].as_str().unwrap().to_string();
    let pool = osj(
        &keel,
        &[
            "loadbalancer",
            "pool",
            "create",
            "--lb-algorithm",
            "SOURCE_IP_PORT",
            "--protocol",
            "TCP",
            "--listener",
            &listener_id,
            "--wait",
        ],
    );
    let pool_id = pool["id"].as_str().unwrap().to_string();
    let mut members = vec![];
    for ip in ["10.0.0.10", "10.0.0.11"] {
        let m = osj(
            &keel,
            &[
                "loadbalancer",
                "member",
                "create",
                "--address",
                ip,
                "--protocol-port",
                "8080",
                "--subnet-id",
                &subnet_id,
                &pool_id,
                "--wait",
            ],
        );
        members.push((m["id"].as_str().unwrap().to_string(), ip));
    }
    let hm = osj(
        &keel,
        &[
            "loadbalancer",
            "healthmonitor",
            "create",
            "--type",
            "TCP",
            "--delay",
            "5",
            "--timeout",
            "3",
            "--max-retries",
            "3",
            &pool_id,
            "--wait",
        ],
    );
    let hm_id = hm["id"].as_str().unwrap().to_string();

    let rows = select(
        "OVN_Northbound",
        &nb,
        "Load_Balancer",
        json!([["name", "==", lb_id]]),
    );
    assert_eq!(rows.len(), 1, "one NB row for the TCP protocol: {rows:?}");
    let row = &rows[0];
    assert_eq!(row["protocol"], "tcp");
    assert_eq!(
        map(&row["vips"]),
        vec![(
            format!("{vip}:80"),
            "10.0.0.10:8080,10.0.0.11:8080".to_string()
        )]
    );
    let ext = map(&row["external_ids"]);
    assert_eq!(
        get(&ext, &format!("listener_{listener_id}")),
        Some(format!("80:pool_{pool_id}").as_str())
    );
    let expected_pool = members
        .iter()
        .map(|(id, ip)| format!("member_{id}_{ip}:8080_{subnet_id}"))
        .collect::<Vec<_>>()
        .join(",");
    assert_eq!(
        get(&ext, &format!("pool_{pool_id}")),
        Some(expected_pool.as_str())
    );
    let hms: Value = serde_json::from_str(get(&ext, "octavia:healthmonitors").unwrap()).unwrap();
    assert_eq!(hms, json!([hm_id]));
    let fields = row["selection_fields"][1]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect::<Vec<_>>();
    let mut fields_sorted = fields.clone();
    fields_sorted.sort();
    assert_eq!(fields_sorted, ["ip_dst", "ip_src", "tp_dst", "tp_src"]);
    let checks = uuids(&row["health_check"]);
    assert_eq!(checks.len(), 1, "one Load_Balancer_Health_Check per VIP");
    let hc = select(
        "OVN_Northbound",
        &nb,
        "Load_Balancer_Health_Check",
        json!([["_uuid", "==", ["uuid", checks[0]]]]),
    );
    assert_eq!(hc[0]["vip"], format!("{vip}:80"));
    let hm_port = osj(&keel, &["port", "show", &format!("ovn-lb-hm-{subnet_id}")]);
    let hm_ip = hm_port["fixed_ips"][0]["ip_address"]
        .as_str()
        .unwrap()
        .to_string();
    let mappings = map(&row["ip_port_mappings"]);
    assert_eq!(mappings.len(), 2, "{mappings:?}");
    for (_, ip) in &members {
        let v = get(&mappings, ip).unwrap_or_else(|| panic!("no ip_port_mappings for {ip}"));
        assert!(v.ends_with(&format!(":{hm_ip}")), "{v}");
    }

    // ovn-northd turned the row into SB logical flows for the VIP.
    let flows = select("OVN_Southbound", &sb, "Logical_Flow", json!([]));
    assert!(
        flows
            .iter()
            .any(|f| f["match"].as_str().unwrap_or("").contains(&vip)
                && f["actions"].as_str().unwrap_or("").contains("ct_lb")),
        "no SB load-balancer flow for {vip}"
    );

    // The status tree and the LB itself.
    let lb = osj(&keel, &["loadbalancer", "show", &lb_id]);
    assert_eq!(
        (
            lb["provisioning_status"].as_str(),
            lb["operating_status"].as_str()
        ),
        (Some("ACTIVE"), Some("ONLINE"))
    );
    let tree = os(&keel, &["loadbalancer", "status", "show", &lb_id]).unwrap();
    let t = &tree["loadbalancer"];
    assert_eq!(t["id"], lb_id.as_str());
    assert_eq!(t["listeners"][0]["id"], listener_id.as_str());
    assert_eq!(t["listeners"][0]["pools"][0]["id"], pool_id.as_str());
    assert_eq!(
        t["listeners"][0]["pools"][0]["health_monitor"]["id"],
        hm_id.as_str()
    );
    assert_eq!(
        t["listeners"][0]["pools"][0]["members"]
            .as_array()
            .unwrap()
            .len(),
        2
    );

    // 6. Statistics (seed 004 §6): the OVN provider reports none, so the fresh listener and
    // its LB answer all zeros; then a `listener_statistics` row as a provider's stats report
    // upserts it (amphora_id = listener_id) is what the LB's stats show. On SQLite only: each
    // CLI call costs seconds, and member_batch_stats covers the sums on MariaDB.
    if on_sqlite {
        cli_stats(&keel, &lb_id, &listener_id);
    }

    // An option OVN does not support: 501, nothing left behind, LB back to ACTIVE.
    let err = os(
        &keel,
        &[
            "loadbalancer",
            "listener",
            "create",
            "--protocol",
            "HTTP",
            "--protocol-port",
            "81",
            &lb_id,
        ],
    )
    .unwrap_err();
    assert!(
        err.contains("Provider 'ovn' does not support a requested option"),
        "{err}"
    );
    let listeners = osj(
        &keel,
        &["loadbalancer", "listener", "list", "--loadbalancer", &lb_id],
    );
    assert_eq!(listeners.as_array().unwrap().len(), 1);
    let lb = osj(&keel, &["loadbalancer", "show", &lb_id]);
    assert_eq!(lb["provisioning_status"], "ACTIVE");

    // Cascade delete removes every NB row, reference and port the steps made.
    os(
        &keel,
        &["loadbalancer", "delete", "--cascade", "--wait", &lb_id],
    )
    .unwrap();
    assert!(
        select(
            "OVN_Northbound",
            &nb,
            "Load_Balancer",
            json!([["name", "==", lb_id]])
        )
        .is_empty()
    );
    let ls = select(
        "OVN_Northbound",
        &nb,
        "Logical_Switch",
        json!([["name", "==", format!("neutron-{net_id}")]]),
    );
    assert!(!uuids(&ls[0]["load_balancer"]).contains(&lb_uuid));
    let lr = select(
        "OVN_Northbound",
        &nb,
        "Logical_Router",
        json!([["name", "==", format!("neutron-{router_id}")]]),
    );
    assert!(!uuids(&lr[0]["load_balancer"]).contains(&lb_uuid));
    assert!(
        select(
            "OVN_Northbound",
            &nb,
            "Load_Balancer_Health_Check",
            json!([["_uuid", "==", ["uuid", checks[0]]]])
        )
        .is_empty()
    );
    assert!(
        os(&keel, &["port", "show", &format!("ovn-lb-vip-{lb_id}")]).is_err(),
        "VIP port left behind"
    );
    assert!(
        os(&keel, &["port", "show", &format!("ovn-lb-hm-{subnet_id}")]).is_err(),
        "HM port left behind"
    );
    let gone = os(&keel, &["loadbalancer", "show", &lb_id]);
    assert!(
        gone.is_err() || gone.as_ref().unwrap()["provisioning_status"] == "DELETED",
        "{gone:?}"
    );
}

/// The stats steps of the scenario (see step 6).
fn cli_stats(keel: &Keel, lb_id: &str, listener_id: &str) {
    let zero = json!({"active_connections": 0, "bytes_in": 0, "bytes_out": 0,
        "request_errors": 0, "total_connections": 0});
    let stats = osj(
        keel,
        &["loadbalancer", "listener", "stats", "show", listener_id],
    );
    assert_eq!(stats, zero, "listener stats");
    assert_eq!(
        osj(keel, &["loadbalancer", "stats", "show", lb_id]),
        zero,
        "load balancer stats"
    );
    keel.sql(&format!(
        "INSERT INTO listener_statistics (listener_id, amphora_id, bytes_in, bytes_out, \
         active_connections, total_connections, request_errors) \
         VALUES ('{listener_id}', '{listener_id}', 1000, 2000, 3, 40, 5)"
    ));
    assert_eq!(
        osj(keel, &["loadbalancer", "stats", "show", lb_id]),
        json!({"active_connections": 3, "bytes_in": 1000, "bytes_out": 2000,
            "request_errors": 5, "total_connections": 40}),
        "load balancer stats after a report"
    );
}
