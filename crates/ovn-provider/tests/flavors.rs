//! Provider flavors against the running stack (ci/stack): `validate_flavor` against the
//! connected NB's schema version, a load balancer created with a flavor carries its options
//! on its `Load_Balancer` rows (read from the real `ovsdb-server`), they stay through every
//! later change (listener, pool, member, health monitor create/update/delete, a second
//! protocol row), and `ovn-db-sync` reports (dry run, nothing written) then repairs a row
//! altered behind the driver's back.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use ovn_provider::flavor::{FLAVOR_KEY, OPTION_KEYS};
use ovn_provider::nb::LoadBalancerRow;
use ovn_provider::{NbDatabase, OvsdbNb, sync};
use provider::{
    HealthMonitor, Listener, LoadBalancer, Member, Pool, ProviderDriver, ProviderError,
    ProvisioningStatus as Prov,
};
use serde_json::json;

mod common;
use common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flavor_options_on_every_row_through_every_change() {
    guarded_lb(scenario).await;
}

/// Every row of `lb_id` as the real NB holds it.
async fn rows(nb: &dyn NbDatabase, lb_id: &str) -> Result<Vec<LoadBalancerRow>, String> {
    Ok(snapshot(nb)
        .await?
        .lbs_named(lb_id)
        .into_iter()
        .cloned()
        .collect())
}

/// Every row of `lb_id` has exactly the flavor options `want` among Keel's keys, and the
/// flavor marker; `when` names the step for the failure message.
async fn carries(
    nb: &dyn NbDatabase,
    lb_id: &str,
    want: &[(&str, &str)],
    when: &str,
) -> Result<usize, String> {
    let rs = rows(nb, lb_id).await?;
    check!(!rs.is_empty(), "{when}: no row");
    for r in &rs {
        let have: Vec<(&str, &str)> = r
            .options
            .iter()
            .filter(|(k, _)| OPTION_KEYS.contains(&k.as_str()))
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        check!(
            have == want,
            "{when}: row {} options {:?}",
            r.uuid,
            r.options
        );
        check!(
            r.external_ids.contains_key(FLAVOR_KEY),
            "{when}: row {} without {FLAVOR_KEY}",
            r.uuid
        );
    }
    Ok(rs.len())
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

async fn scenario(n: openstack::NeutronClient, lb_id: String, made: Made) -> Result<(), String> {
    let (n, lb_id) = (&n, lb_id.as_str());
    let Topology { net, subnet, .. } = topology(
        n,
        &made,
        &format!("keel-ovnp-fl-{lb_id}"),
        true,
        &["10.0.0.10", "10.0.0.11"],
    )
    .await?;
    let ovsdb = nb_caught_up().await?;
    let version = ovsdb.schema_version();
    let nb: Arc<dyn NbDatabase> = Arc::new(ovsdb);
    let (driver, mut rx) = driver(nb.clone(), n.clone());

    // validation against the connected OVN: ct_flush exists from NB schema 7.0.4 (OVN 23.06)
    let version = version.ok_or("the real NB has a schema version")?;
    let parts: Vec<u32> = version.split('.').filter_map(|p| p.parse().ok()).collect();
    let r = driver.validate_flavor(&json!({"ct_flush": true})).await;
    if parts.as_slice() < [7, 0, 4].as_slice() {
        check!(
            r == Err(ProviderError::unsupported(format!(
                "ct_flush needs OVN 23.06 or later (OVN_Northbound schema 7.0.4); the \
                 connected OVN_Northbound schema is {version}"
            ))),
            "ct_flush on NB schema {version}: {r:?}"
        );
    } else {
        check!(r == Ok(()), "ct_flush on NB schema {version}: {r:?}");
    }
    let r = driver.validate_flavor(&json!({"reject": "yes"})).await;
    check!(
        r == Err(ProviderError::unsupported(
            "reject 'yes' is not of type 'boolean'"
        )),
        "wrong type: {r:?}"
    );

    let flavor = json!({"reject": true, "neighbor_responder": "all",
        "hairpin_snat_ip": ["10.0.0.99"], "selection_fields": ["ip_src", "ip_dst", "tp_src"]});
    driver.validate_flavor(&flavor).await.msg()?;
    let want = [
        ("hairpin_snat_ip", "10.0.0.99"),
        ("neighbor_responder", "all"),
        ("reject", "true"),
    ];
    let flavor_fields = sorted(vec!["ip_src".into(), "ip_dst".into(), "tp_src".into()]);

    let vip = vip_port(&driver, lb_id, &net.id, &subnet.id, None)
        .await
        .msg()?;
    let base = LoadBalancer {
        flavor: Some(flavor.clone()),
        ..lb_on(lb_id, &vip, &net.id, &subnet.id)
    };
    let r = step(driver.loadbalancer_create(base.clone()), &mut rx).await?;
    check!(
        rec(&r.loadbalancers, lb_id).0 == Some(Prov::Active),
        "lb {r:?}"
    );
    carries(&*nb, lb_id, &want, "LB create").await?;
    let row = lb_row(&*nb, lb_id).await?;
    check!(
        sorted(row.selection_fields.clone()) == flavor_fields,
        "LB create: selection_fields {:?}",
        row.selection_fields
    );

    // listener, pool (SOURCE_IP_PORT: the flavor's fields), member, HM
    let (l_id, p_id, m1, m2, hm_id) = (uid(), uid(), uid(), uid(), uid());
    let listener = |id: &str, proto: &str, port: u16, pool: &str| Listener {
        listener_id: id.into(),
        loadbalancer_id: Some(lb_id.into()),
        protocol: Some(proto.into()),
        protocol_port: Some(port),
        default_pool_id: Some(Some(pool.into())),
        admin_state_up: Some(true),
        ..Default::default()
    };
    let pool = |id: &str, proto: &str, l: &str, alg: &str| Pool {
        pool_id: id.into(),
        loadbalancer_id: Some(lb_id.into()),
        listener_id: Some(l.into()),
        protocol: Some(proto.into()),
        lb_algorithm: Some(alg.into()),
        admin_state_up: Some(true),
        ..Default::default()
    };
    let member = |id: &str, pool: &str, ip: &str| Member {
        member_id: id.into(),
        pool_id: Some(pool.into()),
        address: Some(ip.into()),
        protocol_port: Some(8080),
        subnet_id: Some(subnet.id.clone()),
        admin_state_up: Some(true),
        ..Default::default()
    };
    step(
        driver.listener_create(listener(&l_id, "TCP", 80, &p_id)),
        &mut rx,
    )
    .await?;
    carries(&*nb, lb_id, &want, "listener create").await?;
    // `reject`: a listener without a backend keeps its VIP, empty (OVN then resets)
    let vip80 = format!("{}:80", vip.vip_address.clone().unwrap_or_default());
    let row = lb_row(&*nb, lb_id).await?;
    check!(
        row.vips.get(&vip80).map(String::as_str) == Some(""),
        "listener without pool: vips {:?}",
        row.vips
    );
    let tcp_pool = pool(&p_id, "TCP", &l_id, "SOURCE_IP_PORT");
    step(driver.pool_create(tcp_pool.clone()), &mut rx).await?;
    carries(&*nb, lb_id, &want, "pool create").await?;
    let row = lb_row(&*nb, lb_id).await?;
    check!(
        sorted(row.selection_fields.clone()) == flavor_fields,
        "SOURCE_IP_PORT pool: selection_fields {:?}",
        row.selection_fields
    );
    step(
        driver.member_create(member(&m1, &p_id, "10.0.0.10")),
        &mut rx,
    )
    .await?;
    step(
        driver.member_create(member(&m2, &p_id, "10.0.0.11")),
        &mut rx,
    )
    .await?;
    carries(&*nb, lb_id, &want, "member create").await?;
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
    step(driver.health_monitor_create(hm.clone()), &mut rx).await?;
    carries(&*nb, lb_id, &want, "HM create").await?;

    // pool algorithm SOURCE_IP: its own fields; back: the flavor's
    let source_ip = Pool {
        lb_algorithm: Some("SOURCE_IP".into()),
        ..tcp_pool.clone()
    };
    step(
        driver.pool_update(tcp_pool.clone(), source_ip.clone()),
        &mut rx,
    )
    .await?;
    let row = lb_row(&*nb, lb_id).await?;
    check!(
        sorted(row.selection_fields.clone()) == sorted(vec!["ip_src".into(), "ip_dst".into()]),
        "SOURCE_IP pool: selection_fields {:?}",
        row.selection_fields
    );
    step(driver.pool_update(source_ip, tcp_pool.clone()), &mut rx).await?;
    let row = lb_row(&*nb, lb_id).await?;
    check!(
        sorted(row.selection_fields.clone()) == flavor_fields,
        "back to SOURCE_IP_PORT: selection_fields {:?}",
        row.selection_fields
    );

    // a second protocol: a new row, made by a later job, carries the flavor too
    let (lu, pu) = (uid(), uid());
    step(
        driver.listener_create(listener(&lu, "UDP", 53, &pu)),
        &mut rx,
    )
    .await?;
    step(
        driver.pool_create(pool(&pu, "UDP", &lu, "SOURCE_IP_PORT")),
        &mut rx,
    )
    .await?;
    let n_rows = carries(&*nb, lb_id, &want, "UDP listener + pool").await?;
    check!(n_rows == 2, "a TCP and a UDP row: {n_rows}");

    // updates and deletes keep them
    step(
        driver.health_monitor_update(
            hm.clone(),
            HealthMonitor {
                delay: Some(7),
                ..hm.clone()
            },
        ),
        &mut rx,
    )
    .await?;
    step(
        driver.member_update(
            member(&m2, &p_id, "10.0.0.11"),
            Member {
                admin_state_up: Some(false),
                ..member(&m2, &p_id, "10.0.0.11")
            },
        ),
        &mut rx,
    )
    .await?;
    step(
        driver.member_delete(member(&m2, &p_id, "10.0.0.11")),
        &mut rx,
    )
    .await?;
    step(driver.health_monitor_delete(hm.clone()), &mut rx).await?;
    step(
        driver.listener_update(
            listener(&l_id, "TCP", 80, &p_id),
            Listener {
                admin_state_up: Some(false),
                ..listener(&l_id, "TCP", 80, &p_id)
            },
        ),
        &mut rx,
    )
    .await?;
    step(
        driver.loadbalancer_update(
            base.clone(),
            LoadBalancer {
                admin_state_up: Some(false),
                ..base.clone()
            },
        ),
        &mut rx,
    )
    .await?;
    carries(&*nb, lb_id, &want, "updates and deletes").await?;

    // ovn-db-sync: a row altered behind the driver's back (reject removed, neighbor_responder
    // changed) is reported by a dry run, left as is, then repaired
    let desired = LoadBalancer {
        admin_state_up: Some(false),
        listeners: Some(vec![
            Listener {
                admin_state_up: Some(false),
                ..listener(&l_id, "TCP", 80, &p_id)
            },
            listener(&lu, "UDP", 53, &pu),
        ]),
        pools: Some(vec![
            Pool {
                members: Some(vec![member(&m1, &p_id, "10.0.0.10")]),
                ..tcp_pool.clone()
            },
            pool(&pu, "UDP", &lu, "SOURCE_IP_PORT"),
        ]),
        ..base.clone()
    };
    let admin = nb_admin(&["Load_Balancer"]).await?;
    let tcp_row = rows(&*nb, lb_id)
        .await?
        .into_iter()
        .find(|r| r.protocol.as_deref() == Some("tcp"))
        .ok_or("no tcp row")?;
    admin
        .transact(nb_txn(vec![
            json!({"op": "mutate", "table": "Load_Balancer",
                "where": [["_uuid", "==", ["uuid", tcp_row.uuid]]],
                "mutations": [["options", "delete", ["set", ["reject"]]]]}),
            json!({"op": "mutate", "table": "Load_Balancer",
                "where": [["_uuid", "==", ["uuid", tcp_row.uuid]]],
                "mutations": [["options", "insert",
                    ovsdb_map(&[("neighbor_responder", "none")])]]}),
        ]))
        .await
        .msg()?;
    let ovsdb = nb_caught_up().await?;
    let what =
        |d: &[sync::Difference]| -> Vec<String> { d.iter().map(|x| x.to_string()).collect() };
    let dry = run_sync(&ovsdb, &desired, true).await?;
    check!(
        dry.iter()
            .any(|d| d.is_repaired() && d.what.contains("flavor options")),
        "dry run: {:?}",
        what(&dry)
    );
    let after_dry = rows(&ovsdb, lb_id).await?;
    check!(
        after_dry
            .iter()
            .find(|r| r.uuid == tcp_row.uuid)
            .is_some_and(|r| !r.options.contains_key("reject")),
        "the dry run wrote: {after_dry:?}"
    );
    let fixed = run_sync(&ovsdb, &desired, false).await?;
    check!(
        fixed.iter().any(|d| d.what.contains("flavor options")),
        "sync: {:?}",
        what(&fixed)
    );
    let nb2: Arc<dyn NbDatabase> = Arc::new(nb_caught_up().await?);
    carries(&*nb2, lb_id, &want, "after ovn-db-sync").await?;
    let again = run_sync(&ovsdb, &desired, true).await?;
    check!(again.is_empty(), "second run: {:?}", what(&again));

    step(driver.loadbalancer_delete(desired, true), &mut rx).await?;
    check!(
        rows(&*nb, lb_id).await?.is_empty(),
        "rows left after delete"
    );
    Ok(())
}

/// One `ovn-db-sync` run of `desired` (a dry run when `dry_run`): the differences it found.
async fn run_sync(
    nb: &OvsdbNb,
    desired: &LoadBalancer,
    dry_run: bool,
) -> Result<Vec<sync::Difference>, String> {
    Ok(sync::sync(
        nb,
        None,
        std::slice::from_ref(desired),
        &sync::SyncOptions {
            dry_run,
            ..Default::default()
        },
    )
    .await
    .msg()?
    .differences)
}
