//! End to end: a single-call (fully populated) load balancer create against a real
//! `keel serve` (Keystone auth, SQLite, the OVN provider on the stack's NB/SB, Neutron), with
//! a plain HTTP client (the `openstack` CLI has no graph create). The NB `Load_Balancer` row
//! the OVN driver makes from the one `loadbalancer_create` carries the listener, the pool, its
//! members and the health check (seed 004 §2; seed 000 §5).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::{
    Backend, Keel, LbGuard, NeutronNet, demo_token, get, map, nb_select, tag, uuids, wait_for,
};
use serde_json::json;

#[test]
fn graph_create_reaches_the_nb() {
    let tag = tag();
    let net = NeutronNet::create(&tag, &[]);
    let keel = Keel::start(Backend::Sqlite);
    let token = demo_token();
    let body = json!({"loadbalancer": {
        "name": format!("graph-{tag}"), "vip_subnet_id": net.subnet, "provider": "ovn",
        "listeners": [{
            "name": "l80", "protocol": "TCP", "protocol_port": 80,
            "default_pool": {
                "name": "p", "protocol": "TCP", "lb_algorithm": "SOURCE_IP_PORT",
                "members": [
                    {"address": "10.0.0.50", "protocol_port": 8080, "subnet_id": net.subnet},
                    {"address": "10.0.0.51", "protocol_port": 8080, "subnet_id": net.subnet}
                ],
                "healthmonitor": {"type": "TCP", "delay": 5, "timeout": 3, "max_retries": 3}
            }
        }]
    }});
    let (code, out) = keel.api("POST", "/v2/lbaas/loadbalancers", &token, Some(&body));
    assert_eq!(code, 201, "{out}\n{}", keel.log());
    let lb = &out["loadbalancer"];
    let lb_id = lb["id"].as_str().unwrap().to_string();
    let _rows = LbGuard(lb_id.clone());
    let listener_id = lb["listeners"][0]["id"].as_str().unwrap().to_string();
    let pool = &lb["pools"][0];
    let pool_id = pool["id"].as_str().unwrap().to_string();
    let hm_id = pool["healthmonitor"]["id"].as_str().unwrap().to_string();
    assert_eq!(lb["listeners"][0]["default_pool_id"], pool_id.as_str());
    assert_eq!(pool["members"].as_array().unwrap().len(), 2, "{out}");
    assert_eq!(pool["healthmonitor"]["type"], "TCP", "{out}");

    let active = keel.wait_lb_active(&token, &lb_id);
    let vip = active["vip_address"].as_str().unwrap().to_string();
    for (path, key) in [
        (format!("/v2/lbaas/listeners/{listener_id}"), "listener"),
        (format!("/v2/lbaas/pools/{pool_id}"), "pool"),
    ] {
        let (code, b) = keel.api("GET", &path, &token, None);
        assert_eq!(code, 200);
        assert_eq!(b[key]["provisioning_status"], "ACTIVE", "{b}");
    }

    // The NB row: VIP → both members, listener → pool, and one health check on the VIP.
    // (the driver reports the LB ACTIVE after each queued step: the monitor may come later)
    let rows = wait_for(
        "NB Load_Balancer with both members and the health check",
        Duration::from_secs(30),
        || {
            let rows = nb_select("Load_Balancer", json!([["name", "==", lb_id]]));
            let vips = rows.first().map(|r| map(&r["vips"])).unwrap_or_default();
            let checks = rows
                .first()
                .map(|r| uuids(&r["health_check"]))
                .unwrap_or_default();
            if vips.len() == 1 && vips[0].1.split(',').count() == 2 && checks.len() == 1 {
                Ok(rows)
            } else {
                Err(format!("{rows:?}"))
            }
        },
    );
    assert_eq!(rows.len(), 1, "{rows:?}");
    let row = &rows[0];
    assert_eq!(row["protocol"], "tcp");
    assert_eq!(
        map(&row["vips"]),
        vec![(
            format!("{vip}:80"),
            "10.0.0.50:8080,10.0.0.51:8080".to_string()
        )]
    );
    let ext = map(&row["external_ids"]);
    assert_eq!(
        get(&ext, &format!("listener_{listener_id}")),
        Some(format!("80:pool_{pool_id}").as_str())
    );
    let members = get(&ext, &format!("pool_{pool_id}")).unwrap_or_default();
    assert!(
        members.contains("10.0.0.50:8080") && members.contains("10.0.0.51:8080"),
        "{members}"
    );
    let checks = uuids(&row["health_check"]);
    assert_eq!(checks.len(), 1, "{row}");
    let hms: serde_json::Value =
        serde_json::from_str(get(&ext, "octavia:healthmonitors").unwrap_or("[]")).unwrap();
    assert_eq!(hms, json!([hm_id]));
    wait_for("health monitor ACTIVE", Duration::from_secs(30), || {
        let (code, b) = keel.api(
            "GET",
            &format!("/v2/lbaas/healthmonitors/{hm_id}"),
            &token,
            None,
        );
        match (code, b["healthmonitor"]["provisioning_status"].as_str()) {
            (200, Some("ACTIVE")) => Ok(()),
            _ => Err(format!("{code} {b}")),
        }
    });

    // Cascade delete through the API removes the row.
    let (code, b) = keel.api(
        "DELETE",
        &format!("/v2/lbaas/loadbalancers/{lb_id}?cascade=true"),
        &token,
        None,
    );
    assert_eq!(code, 204, "{b}");
    wait_for("NB row gone", Duration::from_secs(60), || {
        let rows = nb_select("Load_Balancer", json!([["name", "==", lb_id]]));
        if rows.is_empty() {
            Ok(())
        } else {
            Err(format!("{rows:?}"))
        }
    });
}
