//! Member FIP centralisation (seed 000 §5.1 step 6, `handle_member_dvr`) against the stack:
//! a member added to a load balancer whose VIP has a FIP gets its own FIP's `NAT` row stripped
//! of `external_mac` and `logical_port` (every other column untouched), in the member's
//! transaction; without a VIP FIP the NAT row is left alone.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::sync::Arc;

use openstack::NeutronClient;
use provider::{
    Listener, LoadBalancer, Member, OperatingStatus as Op, Pool, ProviderDriver,
    ProvisioningStatus as Prov,
};
use serde_json::{Value, json};

mod common;
use common::*;

/// `(external_ip, logical_ip, type, external_mac, logical_port, external_ids)` of the NAT row
/// whose `neutron:fip_id` is `fip_id`, read by a `select`.
async fn nat(nb: &ovsdb::Client, fip_id: &str) -> Value {
    let r = nb
        .transact(nb_txn(vec![json!({"op": "select", "table": "NAT",
            "where": [["external_ids", "includes", ["map", [["neutron:fip_id", fip_id]]]]],
            "columns": ["external_ip", "logical_ip", "type", "external_mac", "logical_port",
                "external_ids"]})]))
        .await
        .unwrap();
    let rows = r[0].rows.clone().unwrap_or_default();
    assert_eq!(rows.len(), 1, "NAT rows of {fip_id}: {rows:?}");
    rows[0].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn member_fip_is_centralised_when_the_vip_has_a_fip() {
    let lb_id = uid();
    let vip_port = format!("ovn-lb-vip-{lb_id}");
    let router = format!("keel-dvr-test-{lb_id}");
    let outcome = guarded(vec![vip_port], {
        let router = router.clone();
        |n, made| scenario(n, lb_id, router, made)
    })
    .await;
    // the test's own NB router (and its NAT rows with it)
    if let Ok(nb) = nb_admin(&[]).await {
        let _ = nb
            .transact(nb_txn(vec![delete_named("Logical_Router", &router)]))
            .await;
    }
    outcome.unwrap();
}

async fn scenario(
    n: NeutronClient,
    lb_id: String,
    router: String,
    made: Made,
) -> Result<(), String> {
    let (n, lb_id, router) = (&n, lb_id.as_str(), router.as_str());
    let Topology {
        net, subnet, ports, ..
    } = topology(
        n,
        &made,
        &format!("keel-ovnp-dvr-{lb_id}"),
        false,
        &["10.0.0.10", "10.0.0.11"],
    )
    .await?;
    let nb = nb_caught_up().await?;
    let admin = nb.client().clone();
    let (driver, mut rx) = driver(Arc::new(nb), n.clone());

    // the members' FIPs as Neutron writes them for DVR (NAT rows of a router)
    let b = uuid::Uuid::new_v4().as_bytes()[..2].to_vec();
    let ext = |last: u8| format!("172.30.{}.{}", b[0], last);
    // Neutron itself clears `external_mac` of a down port's FIP when its port-down event comes
    // in (on a loaded machine, after these rows are written): member A's row, which must be
    // left alone, starts without it, so only Keel could change it.
    let nat_row = |name: &str, fip_id: &str, port: &str, ip: &str, ext_ip: String, mac: &str| {
        let mac = if mac.is_empty() {
            json!(["set", []])
        } else {
            json!(mac)
        };
        json!({"op": "insert", "table": "NAT", "uuid-name": name,
            "row": {"type": "dnat_and_snat", "external_ip": ext_ip, "logical_ip": ip,
                "external_mac": mac, "logical_port": port,
                "external_ids": ["map", [["neutron:fip_id", fip_id],
                    ["neutron:fip_port_id", port], ["neutron:revision_number", "1"]]]}})
    };
    let (fip_a, fip_b) = (format!("fa-{lb_id}"), format!("fb-{lb_id}"));
    admin
        .transact(nb_txn(vec![
            nat_row("nat_a", &fip_a, &ports[0], "10.0.0.10", ext(10), ""),
            nat_row(
                "nat_b",
                &fip_b,
                &ports[1],
                "10.0.0.11",
                ext(11),
                "fa:16:3e:00:10:11",
            ),
            json!({"op": "insert", "table": "Logical_Router",
                "row": {"name": router, "nat": ["set", [["named-uuid", "nat_a"],
                    ["named-uuid", "nat_b"]]]}}),
        ]))
        .await
        .msg()?;
    let before_a = nat(&admin, &fip_a).await;
    let before_b = nat(&admin, &fip_b).await;

    let vip = vip_port(&driver, lb_id, &net.id, &subnet.id, Some("10.0.0.50"))
        .await
        .msg()?;
    let (l_id, p_id) = (uid(), uid());
    driver
        .loadbalancer_create(LoadBalancer {
            listeners: Some(vec![Listener {
                listener_id: l_id.clone(),
                loadbalancer_id: Some(lb_id.into()),
                protocol: Some("TCP".into()),
                protocol_port: Some(80),
                default_pool_id: Some(Some(p_id.clone())),
                ..Default::default()
            }]),
            pools: Some(vec![Pool {
                pool_id: p_id.clone(),
                loadbalancer_id: Some(lb_id.into()),
                listener_id: Some(l_id.clone()),
                protocol: Some("TCP".into()),
                lb_algorithm: Some("SOURCE_IP_PORT".into()),
                ..Default::default()
            }]),
            ..lb_on(lb_id, &vip, &net.id, &subnet.id)
        })
        .await
        .msg()?;
    // one report for the graph (LB, listener, pool)
    next_about(&mut rx, lb_id).await;
    let member = |id: &str, ip: &str| Member {
        member_id: id.into(),
        pool_id: Some(p_id.clone()),
        address: Some(ip.into()),
        protocol_port: Some(8080),
        subnet_id: Some(subnet.id.clone()),
        ..Default::default()
    };

    // 1. no VIP FIP yet: the member's NAT row is left alone (its `logical_port` stays)
    let m1 = uid();
    let r = step_about(
        driver.member_create(member(&m1, "10.0.0.10")),
        &mut rx,
        lb_id,
    )
    .await?;
    assert_eq!(
        rec(&r.members, &m1),
        (Some(Prov::Active), Some(Op::NoMonitor))
    );
    assert_eq!(nat(&admin, &fip_a).await, before_a);

    // 2. the VIP gets a FIP (as the agent records it): the next member is centralised
    admin
        .transact(nb_txn(vec![
            json!({"op": "mutate", "table": "Load_Balancer",
            "where": [["name", "==", lb_id]],
            "mutations": [["external_ids", "insert", ["map", [["neutron:vip_fip", ext(50)]]]]]}),
        ]))
        .await
        .msg()?;
    let m2 = uid();
    let r = step_about(
        driver.member_create(member(&m2, "10.0.0.11")),
        &mut rx,
        lb_id,
    )
    .await?;
    assert_eq!(
        rec(&r.members, &m2),
        (Some(Prov::Active), Some(Op::NoMonitor))
    );
    let after_b = nat(&admin, &fip_b).await;
    let mut want = before_b.clone();
    want["external_mac"] = json!(["set", []]);
    want["logical_port"] = json!(["set", []]);
    assert_eq!(
        after_b, want,
        "only external_mac and logical_port are cleared"
    );
    // the other member's FIP is not touched
    assert_eq!(nat(&admin, &fip_a).await, before_a);
    let ids: BTreeMap<String, String> = after_b["external_ids"][1]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_str().unwrap().into(), p[1].as_str().unwrap().into()))
        .collect();
    assert_eq!(ids["neutron:fip_port_id"], ports[1]);

    // 3. member delete: the NB row is Neutron's to recompute (here no Neutron FIP exists, so
    // nothing is asked); Keel's transaction leaves it as it is
    let r = step_about(
        driver.member_delete(member(&m2, "10.0.0.11")),
        &mut rx,
        lb_id,
    )
    .await?;
    assert_eq!(rec(&r.members, &m2).0, Some(Prov::Deleted));
    assert_eq!(nat(&admin, &fip_b).await, want);

    step_about(
        driver.loadbalancer_delete(
            LoadBalancer {
                loadbalancer_id: lb_id.into(),
                vip_port_id: vip.vip_port_id.clone(),
                ..Default::default()
            },
            true,
        ),
        &mut rx,
        lb_id,
    )
    .await?;
    Ok(())
}
