//! Seed 000: an optional field that arrives as null means its documented default, exactly as
//! if it were absent. Against the stack, two load balancers are built through the driver from
//! the same JSON, one with every optional field absent and one with every optional field
//! `null`; their NB rows (keys, `vips`, `selection_fields`, `options`, health checks) must be
//! identical once the ids are aligned, and equal to the documented defaults.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use openstack::NeutronClient;
use ovn_provider::NbDatabase;
use provider::{HealthMonitor, Listener, LoadBalancer, Member, Pool, ProviderDriver};
use serde_json::{Value, json};

mod common;
use common::*;

/// `base` with every key listed in `optional` removed (`null` = false) or set to null.
fn variant(base: &Value, optional: &[&str], null: bool) -> Value {
    let mut o = base.clone();
    for k in optional {
        if null {
            o[*k] = Value::Null;
        } else {
            o.as_object_mut().unwrap().remove(*k);
        }
    }
    o
}

fn model<T: serde::de::DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn null_optional_fields_build_the_same_rows_as_absent_ones() {
    let tag = uid();
    guarded(vec![], |n, made| scenario(n, tag, made))
        .await
        .unwrap();
}

/// The rows of one LB, ids replaced by `<LB>`, `<L>`, `<P>`, `<M>`, `<H>` (comparable).
async fn rows_of(nb: &Arc<dyn NbDatabase>, ids: &[(&str, &str)]) -> String {
    let snap = nb.full_snapshot().await.unwrap();
    let rows = snap.lbs_named(ids[0].0);
    assert_eq!(rows.len(), 1);
    let r = rows[0];
    let hcs: Vec<_> = r
        .health_check
        .iter()
        .map(|u| {
            let h = &snap.health_checks[u];
            (h.vip.clone(), h.options.clone(), h.external_ids.clone())
        })
        .collect();
    let mut ext = r.external_ids.clone();
    // the VIP port differs per LB (and with it nothing else)
    ext.remove("neutron:vip_port_id");
    // the HM port (source IP) is re-created between the two LBs: only the member port counts
    let mappings: Vec<(String, String)> = r
        .ip_port_mappings
        .iter()
        .map(|(k, v)| (k.clone(), v.split(':').next().unwrap_or("").to_string()))
        .collect();
    let mut text = format!(
        "{:?} {ext:?} {:?} {:?} {:?} {hcs:?} {mappings:?}",
        r.protocol, r.vips, r.selection_fields, r.options
    );
    for (id, alias) in ids {
        text = text.replace(id, alias);
    }
    text
}

async fn scenario(n: NeutronClient, tag: String, made: Made) -> Result<(), String> {
    let n = &n;
    let Topology { net, subnet, .. } = topology(
        n,
        &made,
        &format!("keel-ovnp-null-{tag}"),
        false,
        &["10.0.0.10"],
    )
    .await?;
    let nb: Arc<dyn NbDatabase> = Arc::new(nb_caught_up().await?);
    let (d, mut rx) = driver(nb.clone(), n.clone());

    let mut rows = Vec::new();
    for (i, null) in [false, true].into_iter().enumerate() {
        let (lb_id, l, p, m, h) = (uid(), uid(), uid(), uid(), uid());
        made.port_name(format!("ovn-lb-vip-{lb_id}"));
        let address = format!("10.0.0.{}", 50 + i);
        let vip = vip_port(&d, &lb_id, &net.id, &subnet.id, Some(&address))
            .await
            .msg()?;
        let lb: LoadBalancer = model(variant(
            &json!({"loadbalancer_id": lb_id, "vip_address": vip.vip_address,
                "vip_network_id": net.id, "vip_port_id": vip.vip_port_id,
                "vip_subnet_id": subnet.id, "admin_state_up": true, "additional_vips": [],
                "name": "n", "description": "d"}),
            &["admin_state_up", "additional_vips", "name", "description"],
            null,
        ));
        step_about(d.loadbalancer_create(lb), &mut rx, &lb_id).await?;
        let listener: Listener = model(variant(
            &json!({"listener_id": l, "loadbalancer_id": lb_id, "protocol": "TCP",
                "protocol_port": 80, "admin_state_up": true, "default_pool_id": p,
                "allowed_cidrs": [], "connection_limit": -1, "name": "n"}),
            &[
                "admin_state_up",
                "allowed_cidrs",
                "connection_limit",
                "name",
            ],
            null,
        ));
        step_about(d.listener_create(listener), &mut rx, &lb_id).await?;
        let pool: Pool = model(variant(
            &json!({"pool_id": p, "loadbalancer_id": lb_id, "listener_id": l,
                "protocol": "TCP", "lb_algorithm": "SOURCE_IP_PORT", "admin_state_up": true,
                "session_persistence": {}, "name": "n", "tls_enabled": false}),
            &[
                "admin_state_up",
                "session_persistence",
                "name",
                "tls_enabled",
            ],
            null,
        ));
        step_about(d.pool_create(pool), &mut rx, &lb_id).await?;
        let member: Member = model(variant(
            &json!({"member_id": m, "pool_id": p, "address": "10.0.0.10",
                "protocol_port": 8080, "subnet_id": subnet.id, "admin_state_up": true,
                "weight": 1, "backup": false, "monitor_address": "", "name": "n"}),
            &[
                "admin_state_up",
                "weight",
                "backup",
                "monitor_address",
                "name",
            ],
            null,
        ));
        step_about(d.member_create(member), &mut rx, &lb_id).await?;
        let hm: HealthMonitor = model(variant(
            &json!({"healthmonitor_id": h, "pool_id": p, "type": "TCP", "delay": 5,
                "timeout": 3, "max_retries": 2, "max_retries_down": 3,
                "admin_state_up": true, "name": "n"}),
            &["max_retries_down", "admin_state_up", "name"],
            null,
        ));
        let r = step_about(d.health_monitor_create(hm), &mut rx, &lb_id).await?;
        let hm_rec = r.healthmonitors.iter().find(|x| x.id == h).cloned();
        if hm_rec.and_then(|x| x.operating_status) != Some(provider::OperatingStatus::Online) {
            return Err(format!("health monitor not ONLINE: {r:?}"));
        }
        rows.push(
            rows_of(
                &nb,
                &[
                    (lb_id.as_str(), "<LB>"),
                    (l.as_str(), "<L>"),
                    (p.as_str(), "<P>"),
                    (m.as_str(), "<M>"),
                    (h.as_str(), "<H>"),
                    (vip.vip_address.as_deref().unwrap_or(""), "<VIP>"),
                ],
            )
            .await,
        );
        step_about(
            d.loadbalancer_delete(
                LoadBalancer {
                    loadbalancer_id: lb_id.clone(),
                    vip_port_id: vip.vip_port_id.clone(),
                    ..Default::default()
                },
                true,
            ),
            &mut rx,
            &lb_id,
        )
        .await?;
    }
    if rows[0] != rows[1] {
        return Err(format!("absent:\n{}\nnull:\n{}", rows[0], rows[1]));
    }
    // and those rows hold the documented defaults
    let want = [
        "\"enabled\": \"True\"",
        "\"listener_<L>\": \"80:pool_<P>\"",
        "\"pool_<P>\": \"member_<M>_10.0.0.10:8080_",
        "[\"ip_dst\", \"ip_src\", \"tp_dst\", \"tp_src\"] {}",
        "\"failure_count\": \"3\"",
        "\"<VIP>:80\": \"10.0.0.10:8080\"",
    ];
    for w in want {
        if !rows[0].contains(w) {
            return Err(format!("{w} missing from {}", rows[0]));
        }
    }
    Ok(())
}
