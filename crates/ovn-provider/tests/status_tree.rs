//! Every change of a member's operating status recomputes the pool, listener and load
//! balancer operating statuses (seed 000 §8), against the running stack: NB + SB + ovn-northd
//! (which makes and removes the `Service_Monitor` rows from our health checks) + Neutron, the
//! driver's agent loop turning SB statuses into member statuses.
//!
//! One load balancer: listener TCP 80 → pool → members m1 (10.0.0.10), m2 (10.0.0.11) → TCP
//! health monitor. Transitions, each asserted on member, pool, listener and LB: HM create,
//! health event offline / online, HM disable (checks gone from NB and SB, members NO_MONITOR,
//! DEGRADED → ONLINE) and enable (checks back), member disable / enable, member delete, batch
//! update adding and removing members, all starting from a tree an ERROR member degraded.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::time::Duration;

use openstack::NeutronClient;
use ovn_provider::{Agent, NbDatabase};
use provider::{
    HealthMonitor, Listener, Member, OperatingStatus as Op, Pool, ProviderDriver,
    ProvisioningStatus as Prov, StatusRecord, StatusReport,
};

mod common;
use common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn member_status_changes_recompute_the_tree() {
    guarded_lb(scenario).await;
}

/// The operating statuses of (member `m`, pool, listener, LB) in `r`.
struct Ids<'a> {
    lb: &'a str,
    listener: &'a str,
    pool: &'a str,
}

fn tree_of(r: &StatusReport, ids: &Ids<'_>) -> (Option<Op>, Option<Op>, Option<Op>) {
    (
        rec(&r.pools, ids.pool).1,
        rec(&r.listeners, ids.listener).1,
        rec(&r.loadbalancers, ids.lb).1,
    )
}

/// The first report about `lb_id` for which `pred` holds (the agent loop also reports on this
/// LB when northd adds or removes Service_Monitor rows; those reports are skipped); an error
/// naming `what` after 60 s.
async fn until(
    rx: &mut Reports,
    lb_id: &str,
    what: &str,
    pred: impl Fn(&StatusReport) -> bool,
) -> Result<StatusReport, String> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let r = tokio::time::timeout_at(deadline, next_about(rx, lb_id))
            .await
            .map_err(|_| format!("no report: {what}"))?;
        if pred(&r) {
            return Ok(r);
        }
    }
}

/// True when `r` has a record `id` with provisioning `prov` (when given) and operating `op`.
fn has(list: &[StatusRecord], id: &str, prov: Option<Prov>, op: Op) -> bool {
    list.iter().any(|m| {
        m.id == id
            && m.operating_status == Some(op)
            && (prov.is_none() || m.provisioning_status == prov)
    })
}

/// `call`, then [`until`] `pred`.
async fn act<T, E: std::fmt::Display>(
    call: impl std::future::Future<Output = Result<T, E>>,
    rx: &mut Reports,
    lb_id: &str,
    pred: impl Fn(&StatusReport) -> bool,
) -> Result<StatusReport, String> {
    call.await.msg()?;
    until(rx, lb_id, "the call's report", pred).await
}

/// True when `list` has record `id` with provisioning status `prov`.
fn rec_in(list: &[StatusRecord], id: &str, prov: Prov) -> bool {
    list.iter()
        .any(|m| m.id == id && m.provisioning_status == Some(prov))
}

/// Sets the status of `port`'s Service_Monitor (made by northd) and returns the agent's first
/// report that gives `member` the status `want`.
async fn health_event(
    sb: &ovsdb::Client,
    rx: &mut Reports,
    lb_id: &str,
    (port, ip): (&str, &str),
    status: &str,
    (member, want): (&str, Op),
) -> Result<StatusReport, String> {
    let sm = wait_service_monitor(sb, port, ip, true)
        .await?
        .ok_or("no monitor")?;
    set_monitor_status(sb, sm, status).await?;
    until(rx, lb_id, &format!("{member} {want:?}"), |r| {
        has(&r.members, member, None, want)
    })
    .await
}

/// Waits until northd has (`present`) or has no longer (`!present`) a Service_Monitor for
/// `ip`:8080 on `port`; its uuid when present.
async fn wait_service_monitor(
    sb: &ovsdb::Client,
    port: &str,
    ip: &str,
    present: bool,
) -> Result<Option<ovsdb::Uuid>, String> {
    let what = format!("Service_Monitor {ip}:8080 on {port} present = {present}");
    wait_replica(sb, &what, |s| {
        let found = find_monitor(s, |r| {
            r.ip.to_string() == ip && r.port == 8080 && r.logical_port == port
        });
        match (found, present) {
            (Some(u), true) => Some(Some(u)),
            (None, false) => Some(None),
            _ => None,
        }
    })
    .await
}

async fn scenario(n: NeutronClient, lb_id: String, made: Made) -> Result<(), String> {
    let (n, lb_id) = (&n, lb_id.as_str());
    let Topology {
        net, subnet, ports, ..
    } = topology(
        n,
        &made,
        &format!("keel-tree-{lb_id}"),
        false,
        &["10.0.0.10", "10.0.0.11", "10.0.0.12"],
    )
    .await?;
    let nb: Arc<dyn NbDatabase> = Arc::new(nb_caught_up().await?);
    let sb = sb(&["Service_Monitor", "Port_Binding"]).await?;
    let (driver, mut rx) = driver(nb.clone(), n.clone());
    let vip = vip_port(&driver, lb_id, &net.id, &subnet.id, None)
        .await
        .msg()?;
    let lb = lb_on(lb_id, &vip, &net.id, &subnet.id);
    step(driver.loadbalancer_create(lb.clone()), &mut rx).await?;
    let (listener_id, pool_id, hm_id) = (uid(), uid(), uid());
    let ids = Ids {
        lb: lb_id,
        listener: &listener_id,
        pool: &pool_id,
    };
    step(
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
    step(
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
    let mk = |id: &str, ip: &str, up: bool| Member {
        member_id: id.into(),
        pool_id: Some(pool_id.clone()),
        address: Some(ip.into()),
        protocol_port: Some(8080),
        subnet_id: Some(subnet.id.clone()),
        admin_state_up: Some(up),
        ..Default::default()
    };
    let (m1, m2, m3) = (uid(), uid(), uid());
    let (p1, p2, p3) = (
        (ports[0].as_str(), "10.0.0.10"),
        (ports[1].as_str(), "10.0.0.11"),
        (ports[2].as_str(), "10.0.0.12"),
    );
    for (m, ip) in [(&m1, p1.1), (&m2, p2.1)] {
        step(driver.member_create(mk(m, ip, true)), &mut rx).await?;
    }
    let online = (Some(Op::Online), Some(Op::Online), Some(Op::Online));
    let degraded = (Some(Op::Degraded), Some(Op::Degraded), Some(Op::Degraded));

    // --- HM create: members ONLINE, tree ONLINE ---
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
        rec(&r.healthmonitors, &hm_id) == (Some(Prov::Active), Some(Op::Online))
            && rec(&r.members, &m1).1 == Some(Op::Online)
            && rec(&r.members, &m2).1 == Some(Op::Online)
            && tree_of(&r, &ids) == online,
        "hm create {r:?}"
    );
    // the agent loop from here on (its reports are told apart by `until`)
    let follower = tokio::spawn({
        let d = driver.clone();
        let sb = sb.clone();
        async move { Agent::new(&d).follow_service_monitors(sb).await }
    });

    // --- health event offline: m1 ERROR, tree DEGRADED ---
    let r = health_event(&sb, &mut rx, lb_id, p1, "offline", (&m1, Op::Error)).await?;
    check!(tree_of(&r, &ids) == degraded, "after offline {r:?}");

    // --- health event online (the port bound, so northd keeps the status): tree ONLINE ---
    set_port_up(&sb, p1.0).await?;
    let r = health_event(&sb, &mut rx, lb_id, p1, "online", (&m1, Op::Online)).await?;
    check!(tree_of(&r, &ids) == online, "after online {r:?}");
    let r = health_event(&sb, &mut rx, lb_id, p1, "offline", (&m1, Op::Error)).await?;
    check!(tree_of(&r, &ids) == degraded, "offline again {r:?}");

    // --- HM disabled: members NO_MONITOR, tree ONLINE, no check left in NB nor SB ---
    let r = act(
        driver.health_monitor_update(
            hm.clone(),
            HealthMonitor {
                healthmonitor_id: hm_id.clone(),
                admin_state_up: Some(false),
                ..Default::default()
            },
        ),
        &mut rx,
        lb_id,
        |r: &StatusReport| r.healthmonitors.iter().any(|h| h.id == hm_id),
    )
    .await?;
    check!(
        rec(&r.healthmonitors, &hm_id) == (Some(Prov::Active), Some(Op::Offline))
            && rec(&r.members, &m1) == (Some(Prov::Active), Some(Op::NoMonitor))
            && rec(&r.members, &m2) == (Some(Prov::Active), Some(Op::NoMonitor))
            && tree_of(&r, &ids) == online,
        "hm disabled {r:?}"
    );
    let row = lb_row(&*nb, lb_id).await?;
    check!(
        row.health_check.is_empty() && row.ip_port_mappings.is_empty(),
        "checks left on disable {row:?}"
    );
    check!(
        row.external_ids.get("octavia:healthmonitors") == Some(&format!("[\"{hm_id}\"]")),
        "hms key on disable {:?}",
        row.external_ids
    );
    check!(
        row.vips
            .get(&format!("{}:80", vip.vip_address.as_deref().unwrap_or("")))
            == Some(&"10.0.0.10:8080,10.0.0.11:8080".to_string()),
        "vips on disable {:?}",
        row.vips
    );
    wait_service_monitor(&sb, p1.0, p1.1, false).await?;

    // --- a PUT of the delay alone keeps it disabled ---
    let r = act(
        driver.health_monitor_update(
            HealthMonitor {
                admin_state_up: Some(false),
                ..hm.clone()
            },
            HealthMonitor {
                healthmonitor_id: hm_id.clone(),
                delay: Some(6),
                ..Default::default()
            },
        ),
        &mut rx,
        lb_id,
        |r: &StatusReport| r.healthmonitors.iter().any(|h| h.id == hm_id),
    )
    .await?;
    check!(
        rec(&r.healthmonitors, &hm_id) == (Some(Prov::Active), Some(Op::Offline)),
        "delay while disabled {r:?}"
    );
    check!(
        lb_row(&*nb, lb_id).await?.health_check.is_empty(),
        "a delay PUT turned the checks on"
    );

    // --- HM enabled again: checks made anew with the stored options, members ONLINE ---
    let r = act(
        driver.health_monitor_update(
            HealthMonitor {
                admin_state_up: Some(false),
                delay: Some(6),
                ..hm.clone()
            },
            HealthMonitor {
                healthmonitor_id: hm_id.clone(),
                admin_state_up: Some(true),
                ..Default::default()
            },
        ),
        &mut rx,
        lb_id,
        |r: &StatusReport| r.healthmonitors.iter().any(|h| h.id == hm_id),
    )
    .await?;
    check!(
        rec(&r.healthmonitors, &hm_id) == (Some(Prov::Active), Some(Op::Online))
            && rec(&r.members, &m1).1 == Some(Op::Online)
            && rec(&r.members, &m2).1 == Some(Op::Online)
            && tree_of(&r, &ids) == online,
        "hm enabled {r:?}"
    );
    let snap = snapshot(&*nb).await?;
    let row = snap
        .lbs_named(lb_id)
        .first()
        .copied()
        .cloned()
        .ok_or("row")?;
    check!(row.health_check.len() == 1, "checks {:?}", row.health_check);
    let hc = snap
        .health_checks
        .get(&row.health_check[0])
        .ok_or("hc row")?;
    check!(
        hc.options.get("interval").map(String::as_str) == Some("6")
            && hc.options.get("failure_count").map(String::as_str) == Some("4"),
        "hc options {:?}",
        hc.options
    );
    check!(
        row.ip_port_mappings.len() == 2,
        "mappings {:?}",
        row.ip_port_mappings
    );

    // --- member disable / enable, from a DEGRADED tree ---
    let r = health_event(&sb, &mut rx, lb_id, p1, "offline", (&m1, Op::Error)).await?;
    check!(tree_of(&r, &ids) == degraded, "offline after enable {r:?}");
    let r = act(
        driver.member_update(
            mk(&m1, p1.1, true),
            Member {
                member_id: m1.clone(),
                admin_state_up: Some(false),
                ..Default::default()
            },
        ),
        &mut rx,
        lb_id,
        |r: &StatusReport| has(&r.members, &m1, Some(Prov::Active), Op::Offline),
    )
    .await?;
    check!(
        rec(&r.members, &m1) == (Some(Prov::Active), Some(Op::Offline))
            && tree_of(&r, &ids) == online,
        "member disabled {r:?}"
    );
    // out of `vips`: northd drops its monitor (a new one comes with the enable)
    wait_service_monitor(&sb, p1.0, p1.1, false).await?;
    let r = act(
        driver.member_update(
            mk(&m1, p1.1, false),
            Member {
                member_id: m1.clone(),
                admin_state_up: Some(true),
                ..Default::default()
            },
        ),
        &mut rx,
        lb_id,
        |r: &StatusReport| has(&r.members, &m1, Some(Prov::Active), Op::Online),
    )
    .await?;
    check!(
        rec(&r.members, &m1) == (Some(Prov::Active), Some(Op::Online))
            && tree_of(&r, &ids) == online,
        "member enabled {r:?}"
    );

    // --- member delete of the ERROR member: tree ONLINE ---
    let r = health_event(&sb, &mut rx, lb_id, p1, "offline", (&m1, Op::Error)).await?;
    check!(tree_of(&r, &ids) == degraded, "offline before delete {r:?}");
    let r = act(
        driver.member_delete(mk(&m1, p1.1, true)),
        &mut rx,
        lb_id,
        |r: &StatusReport| rec_in(&r.members, &m1, Prov::Deleted),
    )
    .await?;
    check!(
        rec(&r.members, &m1).0 == Some(Prov::Deleted) && tree_of(&r, &ids) == online,
        "member deleted {r:?}"
    );

    // --- batch update: all members ERROR (pool, listener, LB ERROR); a batch adding m3
    //     gives DEGRADED, one removing m2 gives ONLINE ---
    set_port_up(&sb, p2.0).await?;
    let r = health_event(&sb, &mut rx, lb_id, p2, "offline", (&m2, Op::Error)).await?;
    check!(
        tree_of(&r, &ids) == (Some(Op::Error), Some(Op::Error), Some(Op::Error)),
        "all members ERROR {r:?}"
    );
    let r = act(
        driver.member_batch_update(&pool_id, vec![mk(&m2, p2.1, true), mk(&m3, p3.1, true)]),
        &mut rx,
        lb_id,
        |r: &StatusReport| r.members.iter().any(|m| m.id == m3),
    )
    .await?;
    check!(
        rec(&r.members, &m3) == (Some(Prov::Active), Some(Op::Online))
            && tree_of(&r, &ids) == degraded,
        "batch adding m3 {r:?}"
    );
    let r = act(
        driver.member_batch_update(&pool_id, vec![mk(&m3, p3.1, true)]),
        &mut rx,
        lb_id,
        |r: &StatusReport| rec_in(&r.members, &m2, Prov::Deleted),
    )
    .await?;
    check!(
        rec(&r.members, &m2).0 == Some(Prov::Deleted) && tree_of(&r, &ids) == online,
        "batch removing m2 {r:?}"
    );

    // --- cascade delete: nothing left ---
    act(
        driver.loadbalancer_delete(lb.clone(), true),
        &mut rx,
        lb_id,
        |r: &StatusReport| rec_in(&r.loadbalancers, lb_id, Prov::Deleted),
    )
    .await?;
    follower.abort();
    check!(
        snapshot(&*nb).await?.lbs_named(lb_id).is_empty(),
        "rows left"
    );
    Ok(())
}
