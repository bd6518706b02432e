//! The driver against the running stack: OVN NB/SB + ovn-northd + Neutron (ci/stack).
//!
//! Network + subnet 10.0.0.0/24 + router with an interface on it, two member ports; then
//! create LB → listener TCP 80 → pool SOURCE_IP_PORT → members 10.0.0.10/11:8080 → TCP health
//! monitor, asserting the NB rows and statuses at each step and that ovn-northd derived SB rows
//! from them; then a cascade delete removes every row, reference and port.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::sync::Arc;

use openstack::{ListFilter, NeutronClient};
use ovn_provider::{Agent, NbDatabase};
use provider::{
    HealthMonitor, Listener, Member, OperatingStatus as Op, Pool, ProviderDriver, ProviderError,
    ProvisioningStatus as Prov,
};

mod common;
use common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn walking_skeleton_against_the_stack() {
    guarded_lb(scenario).await;
}

async fn scenario(n: NeutronClient, lb_id: String, made: Made) -> Result<(), String> {
    let (n, lb_id) = (&n, lb_id.as_str());
    // --- Neutron topology ---
    let Topology {
        net,
        subnet,
        router,
        ports,
    } = topology(
        n,
        &made,
        &format!("keel-ovnp-{lb_id}"),
        true,
        &["10.0.0.10", "10.0.0.11"],
    )
    .await?;
    let router = router.ok_or("no router")?;

    // --- NB/SB clients, driver, status sink ---
    let nb: Arc<dyn NbDatabase> = Arc::new(nb_caught_up().await?);
    let sb = sb(&["Load_Balancer", "Service_Monitor"]).await?;
    let (driver, mut rx) = driver(nb.clone(), n.clone());
    let ls_name = format!("neutron-{}", net.id);
    let lr_name = format!("neutron-{}", router.id);

    // --- sync validation (501 texts) ---
    let bad = driver
        .listener_create(Listener {
            listener_id: uid(),
            protocol: Some("HTTP".into()),
            ..Default::default()
        })
        .await;
    check!(
        bad == Err(ProviderError::unsupported(
            "OVN provider does not support HTTP protocol"
        )),
        "HTTP listener: {bad:?}"
    );
    let bad = driver.loadbalancer_failover(lb_id).await;
    check!(
        matches!(bad, Err(ProviderError::UnsupportedOption { .. })),
        "failover: {bad:?}"
    );

    // --- VIP port ---
    let vip = vip_port(&driver, lb_id, &net.id, &subnet.id, None)
        .await
        .msg()?;
    let vip_addr = vip.vip_address.clone().ok_or("no VIP address")?;
    let vip_port = n
        .get_port(vip.vip_port_id.as_deref().unwrap_or(""))
        .await
        .msg()?;
    check!(
        vip_port.name == format!("ovn-lb-vip-{lb_id}"),
        "VIP port name {}",
        vip_port.name
    );
    check!(
        vip_port.device_owner.is_empty() && vip_port.device_id == format!("lb-{lb_id}"),
        "VIP port owner {vip_port:?}"
    );

    // --- LB ---
    let lb = lb_on(lb_id, &vip, &net.id, &subnet.id);
    let r = step(driver.loadbalancer_create(lb.clone()), &mut rx).await?;
    check!(
        rec(&r.loadbalancers, lb_id) == (Some(Prov::Active), Some(Op::Online)),
        "lb create report {r:?}"
    );
    let snap = snapshot(&*nb).await?;
    let rows = snap.lbs_named(lb_id);
    check!(rows.len() == 1, "one row expected, got {rows:?}");
    let row = rows[0].clone();
    check!(row.protocol.is_none(), "protocol {:?}", row.protocol);
    let ids = &row.external_ids;
    check!(ids.get("neutron:vip") == Some(&vip_addr), "vip key {ids:?}");
    check!(
        ids.get("neutron:vip_port_id") == vip.vip_port_id.as_ref(),
        "vip port key {ids:?}"
    );
    check!(
        ids.get("enabled").map(String::as_str) == Some("True"),
        "enabled {ids:?}"
    );
    check!(
        ids.get("ls_refs") == Some(&format!("{{\"{ls_name}\": 1}}")),
        "ls_refs {ids:?}"
    );
    check!(ids.get("lr_ref") == Some(&lr_name), "lr_ref {ids:?}");
    let ls = snap.switch_named(&ls_name).ok_or("no switch")?;
    check!(
        ls.load_balancer.contains(&row.uuid),
        "LS load_balancer {:?}",
        ls.load_balancer
    );
    let lr = snap.router_named(&lr_name).ok_or("no router")?;
    check!(
        lr.load_balancer.contains(&row.uuid),
        "LR load_balancer {:?}",
        lr.load_balancer
    );

    // --- listener TCP 80, pool SOURCE_IP_PORT ---
    let listener_id = uid();
    let pool_id = uid();
    let r = step(
        driver.listener_create(Listener {
            listener_id: listener_id.clone(),
            loadbalancer_id: Some(lb_id.into()),
            protocol: Some("TCP".into()),
            protocol_port: Some(80),
            admin_state_up: Some(true),
            ..Default::default()
        }),
        &mut rx,
    )
    .await?;
    check!(
        rec(&r.listeners, &listener_id) == (Some(Prov::Active), Some(Op::Online)),
        "listener report {r:?}"
    );
    check!(
        rec(&r.loadbalancers, lb_id).0 == Some(Prov::Active),
        "lb in listener report {r:?}"
    );
    let r = step(
        driver.pool_create(Pool {
            pool_id: pool_id.clone(),
            loadbalancer_id: Some(lb_id.into()),
            listener_id: Some(listener_id.clone()),
            protocol: Some("TCP".into()),
            lb_algorithm: Some("SOURCE_IP_PORT".into()),
            admin_state_up: Some(true),
            ..Default::default()
        }),
        &mut rx,
    )
    .await?;
    check!(
        rec(&r.pools, &pool_id) == (Some(Prov::Active), Some(Op::Online)),
        "pool report {r:?}"
    );
    check!(
        rec(&r.listeners, &listener_id).0 == Some(Prov::Active),
        "listener in pool report {r:?}"
    );

    // --- members ---
    let m1 = uid();
    let m2 = uid();
    for (m, ip) in [(&m1, "10.0.0.10"), (&m2, "10.0.0.11")] {
        let r = step(
            driver.member_create(Member {
                member_id: m.clone(),
                pool_id: Some(pool_id.clone()),
                address: Some(ip.into()),
                protocol_port: Some(8080),
                subnet_id: Some(subnet.id.clone()),
                admin_state_up: Some(true),
                ..Default::default()
            }),
            &mut rx,
        )
        .await?;
        check!(
            rec(&r.members, m) == (Some(Prov::Active), Some(Op::NoMonitor)),
            "member report {r:?}"
        );
        check!(
            rec(&r.pools, &pool_id).0 == Some(Prov::Active),
            "pool in member report {r:?}"
        );
        check!(
            rec(&r.loadbalancers, lb_id) == (Some(Prov::Active), Some(Op::Online)),
            "lb in member report {r:?}"
        );
    }
    let snap = snapshot(&*nb).await?;
    let row = snap
        .lbs_named(lb_id)
        .first()
        .copied()
        .cloned()
        .ok_or("row gone")?;
    check!(
        row.protocol.as_deref() == Some("tcp"),
        "protocol {:?}",
        row.protocol
    );
    let mut want_vips = BTreeMap::new();
    want_vips.insert(
        format!("{vip_addr}:80"),
        "10.0.0.10:8080,10.0.0.11:8080".to_string(),
    );
    check!(row.vips == want_vips, "vips {:?}", row.vips);
    let ids = &row.external_ids;
    check!(
        ids.get(&format!("listener_{listener_id}")) == Some(&format!("80:pool_{pool_id}")),
        "listener key {ids:?}"
    );
    check!(
        ids.get(&format!("pool_{pool_id}"))
            == Some(&format!(
                "member_{m1}_10.0.0.10:8080_{},member_{m2}_10.0.0.11:8080_{}",
                subnet.id, subnet.id
            )),
        "pool key {ids:?}"
    );
    let mut sel = row.selection_fields.clone();
    sel.sort();
    check!(
        sel == ["ip_dst", "ip_src", "tp_dst", "tp_src"],
        "selection_fields {sel:?}"
    );
    check!(
        ids.get("ls_refs") == Some(&format!("{{\"{ls_name}\": 3}}")),
        "ls_refs after members {ids:?}"
    );

    // --- TCP health monitor ---
    let hm_id = uid();
    let hm = HealthMonitor {
        healthmonitor_id: hm_id.clone(),
        pool_id: Some(pool_id.clone()),
        kind: Some("TCP".into()),
        delay: Some(5),
        timeout: Some(3),
        max_retries: Some(2),
        max_retries_down: Some(4),
        admin_state_up: Some(true),
        ..Default::default()
    };
    let r = step(driver.health_monitor_create(hm.clone()), &mut rx).await?;
    check!(
        rec(&r.healthmonitors, &hm_id) == (Some(Prov::Active), Some(Op::Online)),
        "hm report {r:?}"
    );
    check!(
        rec(&r.members, &m1).1 == Some(Op::Online),
        "member after hm {r:?}"
    );
    let snap = snapshot(&*nb).await?;
    let row = snap
        .lbs_named(lb_id)
        .first()
        .copied()
        .cloned()
        .ok_or("row gone")?;
    check!(
        row.health_check.len() == 1,
        "health_check {:?}",
        row.health_check
    );
    let hc = snap
        .health_checks
        .get(&row.health_check[0])
        .ok_or("hc row missing")?;
    check!(hc.vip == format!("{vip_addr}:80"), "hc vip {}", hc.vip);
    let opts: Vec<(&str, &str)> = hc
        .options
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    check!(
        opts == [
            ("failure_count", "4"),
            ("interval", "5"),
            ("success_count", "2"),
            ("timeout", "3")
        ],
        "hc options {opts:?}"
    );
    check!(
        hc.external_ids.get("octavia:healthmonitor") == Some(&hm_id)
            && hc.external_ids.get("octavia:pool_id") == Some(&pool_id),
        "hc ids {:?}",
        hc.external_ids
    );
    check!(
        row.external_ids.get("octavia:healthmonitors") == Some(&format!("[\"{hm_id}\"]")),
        "hms key {:?}",
        row.external_ids
    );
    let hm_ports = n
        .list_ports(&ListFilter::new().eq("name", format!("ovn-lb-hm-{}", subnet.id)))
        .await
        .msg()?;
    check!(hm_ports.len() == 1, "HM ports {hm_ports:?}");
    check!(
        hm_ports[0].device_owner == "ovn-lb-hm:distributed",
        "HM port owner {}",
        hm_ports[0].device_owner
    );
    let hm_ip = hm_ports[0]
        .ip_in_subnet(&subnet.id)
        .ok_or("HM port without IP")?
        .to_string();
    for (ip, port_id) in [("10.0.0.10", &ports[0]), ("10.0.0.11", &ports[1])] {
        check!(
            row.ip_port_mappings.get(ip) == Some(&format!("{port_id}:{hm_ip}")),
            "ip_port_mappings {:?}",
            row.ip_port_mappings
        );
    }

    // --- ovn-northd derived the SB Load_Balancer from our row ---
    wait_replica(
        &sb,
        &format!("SB Load_Balancer {lb_id} with the VIP"),
        |s| {
            s.table("Load_Balancer")
                .is_some_and(|t| {
                    t.rows().any(|r| {
                        r.get_str("name") == Some(lb_id)
                            && r.get("vips").is_some_and(|v| {
                                v.to_json().to_string().contains(&format!("{vip_addr}:80"))
                            })
                    })
                })
                .then_some(())
        },
    )
    .await?;

    // --- agent: a Service_Monitor going offline makes the member ERROR, the pool DEGRADED ---
    let follower = tokio::spawn({
        let d = driver.clone();
        let sb = sb.clone();
        async move { Agent::new(&d).follow_service_monitors(sb).await }
    });
    let sm_uuid = wait_replica(&sb, "northd's Service_Monitor for 10.0.0.10:8080", |s| {
        // ours: other tests' members may share 10.0.0.10:8080, never our port
        find_monitor(s, |r| {
            r.ip.to_string() == "10.0.0.10" && r.port == 8080 && r.logical_port == ports[0]
        })
    })
    .await?;
    set_monitor_status(&sb, sm_uuid, "offline").await?;
    let r = next_about(&mut rx, lb_id).await;
    follower.abort();
    check!(
        // a health report carries operating statuses only
        rec(&r.members, &m1) == (None, Some(Op::Error)),
        "member after offline {r:?}"
    );
    check!(
        rec(&r.pools, &pool_id).1 == Some(Op::Degraded),
        "pool after offline {r:?}"
    );
    check!(
        rec(&r.loadbalancers, lb_id).1 == Some(Op::Degraded),
        "lb after offline {r:?}"
    );

    // --- the monitor deleted: members NO_MONITOR, the tree recomputed (seed 000 §8) ---
    let r = step(driver.health_monitor_delete(hm.clone()), &mut rx).await?;
    check!(
        rec(&r.healthmonitors, &hm_id).0 == Some(Prov::Deleted)
            && rec(&r.members, &m1).1 == Some(Op::NoMonitor)
            && rec(&r.members, &m2).1 == Some(Op::NoMonitor),
        "members after hm delete {r:?}"
    );
    check!(
        rec(&r.pools, &pool_id).1 == Some(Op::Online)
            && rec(&r.listeners, &listener_id).1 == Some(Op::Online)
            && rec(&r.loadbalancers, lb_id).1 == Some(Op::Online),
        "tree after hm delete {r:?}"
    );
    let row = snapshot(&*nb)
        .await?
        .lbs_named(lb_id)
        .first()
        .map(|r| (*r).clone())
        .ok_or("row gone")?;
    check!(
        row.health_check.is_empty() && row.ip_port_mappings.is_empty(),
        "health check / mappings left {row:?}"
    );

    // --- cascade delete ---
    let r = step(driver.loadbalancer_delete(lb.clone(), true), &mut rx).await?;
    check!(
        rec(&r.loadbalancers, lb_id) == (Some(Prov::Deleted), Some(Op::Offline)),
        "lb delete {r:?}"
    );
    check!(
        rec(&r.listeners, &listener_id).0 == Some(Prov::Deleted),
        "listener deleted {r:?}"
    );
    check!(
        rec(&r.pools, &pool_id).0 == Some(Prov::Deleted),
        "pool deleted {r:?}"
    );
    check!(
        rec(&r.members, &m1).0 == Some(Prov::Deleted)
            && rec(&r.members, &m2).0 == Some(Prov::Deleted),
        "members deleted {r:?}"
    );
    let snap = snapshot(&*nb).await?;
    check!(snap.lbs_named(lb_id).is_empty(), "rows left");
    check!(
        snap.health_checks
            .values()
            .all(|h| h.external_ids.get("octavia:healthmonitor") != Some(&hm_id)),
        "health check left"
    );
    check!(
        snap.switch_named(&ls_name)
            .is_some_and(|s| s.load_balancer.is_empty()),
        "LS refs left"
    );
    check!(
        snap.router_named(&lr_name)
            .is_some_and(|s| s.load_balancer.is_empty()),
        "LR refs left"
    );
    let vip_left = n.get_port(vip.vip_port_id.as_deref().unwrap_or("")).await;
    check!(
        vip_left.as_ref().is_err_and(|x| x.is_not_found()),
        "VIP port left: {vip_left:?}"
    );
    let hm_left = n
        .list_ports(&ListFilter::new().eq("name", format!("ovn-lb-hm-{}", subnet.id)))
        .await
        .msg()?;
    check!(hm_left.is_empty(), "HM port left: {hm_left:?}");
    Ok(())
}
