//! Updates, batches and deletes against the running stack (ci/stack): graph create, member
//! batch, enable/disable of every level, a second protocol row, session persistence, pool
//! delete with its health monitor and members, listener delete, non-cascade LB delete.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use openstack::{ListFilter, NeutronClient};
use ovn_provider::NbDatabase;
use provider::{
    HealthMonitor, Listener, LoadBalancer, Member, OperatingStatus as Op, Pool, ProviderDriver,
    ProviderError, ProvisioningStatus as Prov,
};
use serde_json::json;

mod common;
use common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lifecycle_against_the_stack() {
    guarded_lb(scenario).await;
}

async fn scenario(n: NeutronClient, lb_id: String, made: Made) -> Result<(), String> {
    let (n, lb_id) = (&n, lb_id.as_str());
    let Topology { net, subnet, .. } = topology(
        n,
        &made,
        &format!("keel-ovnp-lc-{lb_id}"),
        true,
        &["10.0.0.10", "10.0.0.11"],
    )
    .await?;
    let nb: Arc<dyn NbDatabase> = Arc::new(nb_caught_up().await?);
    let (driver, mut rx) = driver(nb.clone(), n.clone());

    let vip = vip_port(&driver, lb_id, &net.id, &subnet.id, Some("10.0.0.50"))
        .await
        .msg()?;
    check!(
        vip.vip_address.as_deref() == Some("10.0.0.50"),
        "fixed VIP address {vip:?}"
    );
    // the same address again: Neutron 409 → Conflict (409 at the API)
    let other = uid();
    let dup = vip_port(&driver, &other, &net.id, &subnet.id, Some("10.0.0.50")).await;
    check!(
        matches!(dup, Err(ProviderError::Conflict { .. })),
        "duplicate VIP: {dup:?}"
    );

    let (l_id, p_id, m1, m2, hm_id) = (uid(), uid(), uid(), uid(), uid());
    let base = lb_on(lb_id, &vip, &net.id, &subnet.id);
    // a graph with an HTTP listener is refused before anything is queued
    let bad = LoadBalancer {
        listeners: Some(vec![Listener {
            listener_id: uid(),
            loadbalancer_id: Some(lb_id.into()),
            protocol: Some("HTTP".into()),
            protocol_port: Some(80),
            ..Default::default()
        }]),
        ..base.clone()
    };
    let r = driver.loadbalancer_create(bad).await;
    check!(
        r == Err(ProviderError::unsupported(
            "OVN provider does not support HTTP protocol"
        )),
        "graph 501: {r:?}"
    );
    check!(
        driver.busy_queues() == 0 && snapshot(&*nb).await?.lbs_named(lb_id).is_empty(),
        "refused graph left work behind"
    );

    // graph create: listener TCP 80 → pool → one member without subnet (VIP subnet)
    let pool = Pool {
        pool_id: p_id.clone(),
        loadbalancer_id: Some(lb_id.into()),
        listener_id: Some(l_id.clone()),
        protocol: Some("TCP".into()),
        lb_algorithm: Some("SOURCE_IP_PORT".into()),
        admin_state_up: Some(true),
        members: Some(vec![Member {
            member_id: m1.clone(),
            pool_id: Some(p_id.clone()),
            address: Some("10.0.0.10".into()),
            protocol_port: Some(8080),
            admin_state_up: Some(true),
            ..Default::default()
        }]),
        ..Default::default()
    };
    let graph = LoadBalancer {
        listeners: Some(vec![Listener {
            listener_id: l_id.clone(),
            loadbalancer_id: Some(lb_id.into()),
            protocol: Some("TCP".into()),
            protocol_port: Some(80),
            default_pool_id: Some(Some(p_id.clone())),
            admin_state_up: Some(true),
            ..Default::default()
        }]),
        pools: Some(vec![pool.clone()]),
        ..base.clone()
    };
    // one report for the whole graph, sent once all of it is in NB
    let r = step(driver.loadbalancer_create(graph), &mut rx).await?;
    check!(
        rec(&r.loadbalancers, lb_id).0 == Some(Prov::Active),
        "lb {r:?}"
    );
    check!(
        rec(&r.listeners, &l_id).0 == Some(Prov::Active),
        "listener {r:?}"
    );
    check!(rec(&r.pools, &p_id).0 == Some(Prov::Active), "pool {r:?}");
    check!(
        rec(&r.members, &m1) == (Some(Prov::Active), Some(Op::NoMonitor)),
        "member {r:?}"
    );
    let vip80 = "10.0.0.50:80".to_string();
    let row = lb_row(&*nb, lb_id).await?;
    check!(
        row.vips.get(&vip80).map(String::as_str) == Some("10.0.0.10:8080"),
        "graph vips {:?}",
        row.vips
    );
    check!(
        row.external_ids.get(&format!("pool_{p_id}"))
            == Some(&format!("member_{m1}_10.0.0.10:8080_{}", subnet.id)),
        "member entry {:?}",
        row.external_ids
    );

    // member batch: keep m1, add m2 (no subnet given → VIP subnet)
    let mk = |id: &str, ip: &str| Member {
        member_id: id.into(),
        pool_id: Some(p_id.clone()),
        address: Some(ip.into()),
        protocol_port: Some(8080),
        admin_state_up: Some(true),
        ..Default::default()
    };
    let r = step(
        driver.member_batch_update(&p_id, vec![mk(&m1, "10.0.0.10"), mk(&m2, "10.0.0.11")]),
        &mut rx,
    )
    .await?;
    check!(
        rec(&r.members, &m2).0 == Some(Prov::Active)
            && rec(&r.members, &m1).0 == Some(Prov::Active),
        "batch {r:?}"
    );
    let row = lb_row(&*nb, lb_id).await?;
    check!(
        row.vips.get(&vip80).map(String::as_str) == Some("10.0.0.10:8080,10.0.0.11:8080"),
        "batch vips {:?}",
        row.vips
    );
    // a member outside the VIP subnet without subnet_id is refused synchronously
    let r = driver.member_create(mk(&uid(), "192.168.9.9")).await;
    check!(
        matches!(r, Err(ProviderError::UnsupportedOption { ref user_fault_string, .. }) if user_fault_string.starts_with("Subnet is required")),
        "outside subnet: {r:?}"
    );
    let r = driver
        .member_create(Member {
            monitor_port: Some(1),
            ..mk(&uid(), "10.0.0.12")
        })
        .await;
    check!(
        r == Err(ProviderError::unsupported(
            "OVN Load Balancer does not support different member monitor address or port."
        )),
        "monitor port: {r:?}"
    );
    let r = driver.member_create(mk(&uid(), "2001:db8::9")).await;
    check!(
        matches!(r, Err(ProviderError::UnsupportedOption { ref user_fault_string, .. }) if user_fault_string.contains("mixing IPv4/IPv6")),
        "family: {r:?}"
    );

    // member disable
    let r = step(
        driver.member_update(
            mk(&m1, "10.0.0.10"),
            Member {
                member_id: m1.clone(),
                admin_state_up: Some(false),
                ..Default::default()
            },
        ),
        &mut rx,
    )
    .await?;
    check!(
        rec(&r.members, &m1) == (Some(Prov::Active), Some(Op::Offline)),
        "member disable {r:?}"
    );
    let row = lb_row(&*nb, lb_id).await?;
    check!(
        row.vips.get(&vip80).map(String::as_str) == Some("10.0.0.11:8080"),
        "vips after disable {:?}",
        row.vips
    );

    // listener disable / enable
    let l_old = Listener {
        listener_id: l_id.clone(),
        loadbalancer_id: Some(lb_id.into()),
        protocol: Some("TCP".into()),
        protocol_port: Some(80),
        ..Default::default()
    };
    let r = step(
        driver.listener_update(
            l_old.clone(),
            Listener {
                listener_id: l_id.clone(),
                admin_state_up: Some(false),
                ..Default::default()
            },
        ),
        &mut rx,
    )
    .await?;
    check!(
        rec(&r.listeners, &l_id) == (Some(Prov::Active), Some(Op::Offline)),
        "listener disable {r:?}"
    );
    check!(
        lb_row(&*nb, lb_id).await?.vips.is_empty(),
        "vips with listener disabled"
    );
    step(
        driver.listener_update(
            l_old.clone(),
            Listener {
                listener_id: l_id.clone(),
                admin_state_up: Some(true),
                ..Default::default()
            },
        ),
        &mut rx,
    )
    .await?;
    let vips_before = lb_row(&*nb, lb_id).await?.vips.clone();

    // listener default pool removed (PUT default_pool_id: null → Some(None)), then restored
    let l_with_pool = Listener {
        default_pool_id: Some(Some(p_id.clone())),
        ..l_old.clone()
    };
    let r = step(
        driver.listener_update(
            l_with_pool.clone(),
            Listener {
                listener_id: l_id.clone(),
                default_pool_id: Some(None),
                ..Default::default()
            },
        ),
        &mut rx,
    )
    .await?;
    check!(
        rec(&r.listeners, &l_id).0 == Some(Prov::Active),
        "default pool removal {r:?}"
    );
    let row = lb_row(&*nb, lb_id).await?;
    let lkey = format!("listener_{l_id}");
    check!(
        row.external_ids
            .get(&lkey)
            .is_some_and(|v| !v.contains(&p_id)),
        "listener key still names the pool {:?}",
        row.external_ids.get(&lkey)
    );
    check!(
        !row.vips.contains_key(&vip80),
        "vips without a default pool {:?}",
        row.vips
    );
    step(
        driver.listener_update(
            Listener {
                default_pool_id: Some(None),
                ..l_old.clone()
            },
            Listener {
                listener_id: l_id.clone(),
                default_pool_id: Some(Some(p_id.clone())),
                ..Default::default()
            },
        ),
        &mut rx,
    )
    .await?;
    check!(
        lb_row(&*nb, lb_id).await?.vips == vips_before,
        "vips with the pool back"
    );

    // pool: session persistence
    let p_old = Pool {
        members: None,
        ..pool.clone()
    };
    let r = step(
        driver.pool_update(
            p_old.clone(),
            Pool {
                pool_id: p_id.clone(),
                session_persistence: Some(json!({"type": "SOURCE_IP", "persistence_timeout": 90})),
                ..Default::default()
            },
        ),
        &mut rx,
    )
    .await?;
    check!(
        rec(&r.pools, &p_id).0 == Some(Prov::Active)
            && rec(&r.listeners, &l_id).0 == Some(Prov::Active),
        "pool update {r:?}"
    );
    let row = lb_row(&*nb, lb_id).await?;
    check!(
        row.options.get("affinity_timeout").map(String::as_str) == Some("90"),
        "affinity {:?}",
        row.options
    );
    // cleared by the API (`session_persistence: null` → the model's explicit null): the
    // option goes from the real NB row; an update that does not name it keeps it
    step(
        driver.pool_update(
            p_old.clone(),
            Pool {
                pool_id: p_id.clone(),
                name: Some("renamed".into()),
                ..Default::default()
            },
        ),
        &mut rx,
    )
    .await?;
    let row = lb_row(&*nb, lb_id).await?;
    check!(
        row.options.get("affinity_timeout").map(String::as_str) == Some("90"),
        "affinity kept {:?}",
        row.options
    );
    step(
        driver.pool_update(
            p_old.clone(),
            Pool {
                pool_id: p_id.clone(),
                session_persistence: Some(serde_json::Value::Null),
                ..Default::default()
            },
        ),
        &mut rx,
    )
    .await?;
    let row = lb_row(&*nb, lb_id).await?;
    check!(
        !row.options.contains_key("affinity_timeout"),
        "affinity cleared {:?}",
        row.options
    );
    step(
        driver.pool_update(
            p_old.clone(),
            Pool {
                pool_id: p_id.clone(),
                session_persistence: Some(json!({"type": "SOURCE_IP", "persistence_timeout": 90})),
                ..Default::default()
            },
        ),
        &mut rx,
    )
    .await?;
    let r = driver
        .pool_update(
            p_old.clone(),
            Pool {
                pool_id: p_id.clone(),
                session_persistence: Some(json!({"type": "HTTP_COOKIE"})),
                ..Default::default()
            },
        )
        .await;
    check!(
        matches!(r, Err(ProviderError::UnsupportedOption { .. })),
        "cookie persistence: {r:?}"
    );

    // LB disable / enable
    let r = step(
        driver.loadbalancer_update(
            base.clone(),
            LoadBalancer {
                loadbalancer_id: lb_id.into(),
                admin_state_up: Some(false),
                ..Default::default()
            },
        ),
        &mut rx,
    )
    .await?;
    check!(
        rec(&r.loadbalancers, lb_id) == (Some(Prov::Active), Some(Op::Offline)),
        "lb disable {r:?}"
    );
    let row = lb_row(&*nb, lb_id).await?;
    check!(
        row.vips.is_empty() && row.external_ids.get("enabled").map(String::as_str) == Some("False"),
        "disabled row {row:?}"
    );
    step(
        driver.loadbalancer_update(
            base.clone(),
            LoadBalancer {
                loadbalancer_id: lb_id.into(),
                admin_state_up: Some(true),
                ..Default::default()
            },
        ),
        &mut rx,
    )
    .await?;

    // a UDP listener makes a second row with the same name and VIP, attached like the first
    let u_id = uid();
    let udp = Listener {
        listener_id: u_id.clone(),
        loadbalancer_id: Some(lb_id.into()),
        protocol: Some("UDP".into()),
        protocol_port: Some(53),
        admin_state_up: Some(true),
        ..Default::default()
    };
    step(driver.listener_create(udp.clone()), &mut rx).await?;
    let snap = snapshot(&*nb).await?;
    let rows = snap.lbs_named(lb_id);
    check!(rows.len() == 2, "two rows expected: {rows:?}");
    let udp_row = rows
        .iter()
        .find(|r| r.protocol.as_deref() == Some("udp"))
        .ok_or("no udp row")?;
    check!(
        snap.switch_named(&format!("neutron-{}", net.id))
            .is_some_and(|s| s.load_balancer.contains(&udp_row.uuid)),
        "udp row not on the switch"
    );
    let r = step(driver.listener_delete(udp), &mut rx).await?;
    check!(
        rec(&r.listeners, &u_id) == (Some(Prov::Deleted), Some(Op::Offline)),
        "udp delete {r:?}"
    );
    check!(
        snapshot(&*nb).await?.lbs_named(lb_id).len() == 1,
        "udp row left"
    );

    // HM, then pool delete with its HM and members in one request
    let hm = HealthMonitor {
        healthmonitor_id: hm_id.clone(),
        pool_id: Some(p_id.clone()),
        kind: Some("TCP".into()),
        delay: Some(5),
        timeout: Some(3),
        max_retries: Some(2),
        max_retries_down: Some(2),
        admin_state_up: Some(true),
        ..Default::default()
    };
    let r = step(driver.health_monitor_create(hm.clone()), &mut rx).await?;
    check!(
        rec(&r.healthmonitors, &hm_id).0 == Some(Prov::Active),
        "hm {r:?}"
    );
    step(
        driver.health_monitor_update(
            hm.clone(),
            HealthMonitor {
                healthmonitor_id: hm_id.clone(),
                delay: Some(7),
                admin_state_up: Some(true),
                ..Default::default()
            },
        ),
        &mut rx,
    )
    .await?;
    let snap = snapshot(&*nb).await?;
    let row = snap.lbs_named(lb_id)[0].clone();
    check!(
        snap.health_checks
            .get(&row.health_check[0])
            .is_some_and(|h| h.options.get("interval").map(String::as_str) == Some("7")),
        "hm update"
    );
    let pdel = Pool {
        healthmonitor: Some(hm.clone()),
        members: Some(vec![mk(&m1, "10.0.0.10"), mk(&m2, "10.0.0.11")]),
        ..pool.clone()
    };
    let r = step(driver.pool_delete(pdel), &mut rx).await?;
    check!(
        rec(&r.pools, &p_id).0 == Some(Prov::Deleted),
        "pool deleted {r:?}"
    );
    check!(
        rec(&r.healthmonitors, &hm_id).0 == Some(Prov::Deleted),
        "hm deleted {r:?}"
    );
    check!(
        rec(&r.members, &m2).0 == Some(Prov::Deleted),
        "members deleted {r:?}"
    );
    check!(
        rec(&r.listeners, &l_id).0 == Some(Prov::Active),
        "listener back {r:?}"
    );
    let snap = snapshot(&*nb).await?;
    let row = snap.lbs_named(lb_id)[0].clone();
    check!(
        row.external_ids
            .get(&format!("listener_{l_id}"))
            .map(String::as_str)
            == Some("80:"),
        "listener value {:?}",
        row.external_ids
    );
    check!(
        row.health_check.is_empty() && row.ip_port_mappings.is_empty() && row.vips.is_empty(),
        "leftovers {row:?}"
    );
    check!(
        !row.options.contains_key("affinity_timeout"),
        "affinity left"
    );
    check!(
        row.external_ids.get("ls_refs").map(String::as_str)
            == Some(&*format!("{{\"neutron-{}\": 1}}", net.id)),
        "ls_refs {:?}",
        row.external_ids
    );
    let hm_ports = n
        .list_ports(&ListFilter::new().eq("name", format!("ovn-lb-hm-{}", subnet.id)))
        .await
        .msg()?;
    check!(hm_ports.is_empty(), "HM port left {hm_ports:?}");

    // listener delete: the only row stays, without protocol
    step(driver.listener_delete(l_old), &mut rx).await?;
    let row = lb_row(&*nb, lb_id).await?;
    check!(row.protocol.is_none(), "protocol left {:?}", row.protocol);

    // non-cascade delete of the empty LB
    let r = step(driver.loadbalancer_delete(base.clone(), false), &mut rx).await?;
    check!(
        rec(&r.loadbalancers, lb_id) == (Some(Prov::Deleted), Some(Op::Offline)),
        "lb delete {r:?}"
    );
    let snap = snapshot(&*nb).await?;
    check!(snap.lbs_named(lb_id).is_empty(), "row left");
    check!(
        snap.switch_named(&format!("neutron-{}", net.id))
            .is_some_and(|s| s.load_balancer.is_empty()),
        "LS refs left"
    );
    let vp = n.get_port(vip.vip_port_id.as_deref().unwrap_or("")).await;
    check!(
        vp.as_ref().is_err_and(|x| x.is_not_found()),
        "VIP port left {vp:?}"
    );
    Ok(())
}
