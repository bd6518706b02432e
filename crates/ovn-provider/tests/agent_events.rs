//! Every agent event driven through the real Neutron and judged on the real NB's rows (issue
//! 45; the agent's maintenance backfill too): the load balancer is made by the driver on Neutron ports, the routers, router
//! interfaces, gateways and floating IPs by Neutron, and the agent sees only what Neutron's OVN
//! driver and ovn-northd write into the NB / SB. So a change elsewhere that breaks an event's
//! inputs (a port's owner, hence its switch port's `addresses`; a scoped snapshot) fails here,
//! where a unit test that builds the event by hand cannot see it.
//!
//! The expected rows are what ovn-octavia-provider 11.0.0 writes (`helper.py`; each step quotes
//! the function), never what Keel's own planners compute.
//!
//! Needs the stack (ci/test.sh) with `OS_*` of the admin (`source ci/stack/env.sh admin`): the
//! external network, router gateways and floating IPs are made with the `openstack` CLI, the
//! rest with Keel's Neutron client as the `octavia` service user.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::process::Command;
use std::sync::{Arc, Mutex};

use openstack::{NeutronClient, RouterCreate};
use ovn_provider::Agent;
use provider::{
    AdditionalVip, HealthMonitor, Listener, LoadBalancer, Member, OperatingStatus as Op, Pool,
    ProviderDriver, StatusReport,
};
use serde_json::Value;

mod common;
use common::*;

/// `openstack <args>` (admin, from `OS_*`); its stdout parsed as JSON when `json`.
fn os(args: &[&str], json: bool) -> Result<Value, String> {
    let mut c = Command::new("openstack");
    c.args(args);
    if json {
        c.args(["-f", "json"]);
    }
    let out = c.output().map_err(|e| format!("openstack {args:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "openstack {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    if json {
        serde_json::from_slice(&out.stdout).map_err(|e| format!("openstack {args:?}: {e}"))
    } else {
        Ok(Value::Null)
    }
}

/// [`os`] off the runtime's worker threads (a CLI call takes seconds).
async fn os_async(args: Vec<String>, json: bool) -> Result<Value, String> {
    tokio::task::spawn_blocking(move || {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        os(&a, json)
    })
    .await
    .map_err(|e| e.to_string())?
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

/// What the test made, deleted in reverse order afterwards whatever happened (errors ignored:
/// already gone).
#[derive(Clone, Default)]
struct Undo(Arc<Mutex<Vec<UndoStep>>>);

enum UndoStep {
    /// `openstack <args>`
    Cli(Vec<String>),
    Port(String),
    RouterIf(String, String),
    Router(String),
    Subnet(String),
    Network(String),
    /// the ports named so (the driver's VIP and HM ports)
    PortNamed(String),
}

impl Undo {
    fn push(&self, s: UndoStep) {
        self.0.lock().unwrap().push(s);
    }
    async fn run(&self, n: &NeutronClient) {
        let steps = std::mem::take(&mut *self.0.lock().unwrap());
        for st in steps.into_iter().rev() {
            match st {
                UndoStep::Cli(a) => {
                    let _ = os_async(a, false).await;
                }
                UndoStep::Port(p) => {
                    let _ = n.delete_port(&p).await;
                }
                UndoStep::RouterIf(r, sn) => {
                    let _ = n.remove_router_interface(&r, &sn).await;
                }
                UndoStep::Router(r) => {
                    let _ =
                        os_async(s(&["router", "unset", "--external-gateway", &r]), false).await;
                    let _ = n.delete_router(&r).await;
                }
                UndoStep::Subnet(x) => {
                    let _ = n.delete_subnet(&x).await;
                }
                UndoStep::Network(x) => {
                    let _ = n.delete_network(&x).await;
                }
                UndoStep::PortNamed(name) => {
                    if let Ok(ps) = n
                        .list_ports(&openstack::ListFilter::new().eq("name", name))
                        .await
                    {
                        for p in ps {
                            let _ = n.delete_port(&p.id).await;
                        }
                    }
                }
            }
        }
    }
}

/// A health check as compared here: `vip`, `options`, `external_ids`.
type Hc = (String, BTreeMap<String, String>, BTreeMap<String, String>);

/// The NB facts of the load balancer's row that the events change.
#[derive(Debug, Clone, PartialEq, Eq)]
struct RowView {
    external_ids: BTreeMap<String, String>,
    vips: BTreeMap<String, String>,
    /// sorted
    hcs: Vec<Hc>,
    /// names of the routers whose `load_balancer` holds the row, sorted
    routers: Vec<String>,
    /// names of the switches whose `load_balancer` holds the row, sorted
    switches: Vec<String>,
}

fn row_view(snap: &ovsdb::Snapshot, lb_id: &str) -> Option<RowView> {
    let lb = snap.find_by_name("Load_Balancer", lb_id)?;
    let u = lb.uuid();
    let mut hcs: Vec<Hc> = lb
        .get_uuid_set("health_check")
        .iter()
        .filter_map(|h| snap.row("Load_Balancer_Health_Check", h))
        .map(|h| {
            (
                h.get_str("vip").unwrap_or("").to_string(),
                h.get_map("options"),
                h.get_map("external_ids"),
            )
        })
        .collect();
    hcs.sort();
    let holders = |table: &str| -> Vec<String> {
        let mut v: Vec<String> = snap
            .table(table)
            .map(|t| {
                t.rows()
                    .filter(|r| r.get_uuid_set("load_balancer").contains(&u))
                    .filter_map(|r| r.get_str("name").map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    };
    Some(RowView {
        external_ids: lb.get_map("external_ids"),
        vips: lb.get_map("vips"),
        hcs,
        routers: holders("Logical_Router"),
        switches: holders("Logical_Switch"),
    })
}

/// Waits (30 s) until the row satisfies `want`; the error shows the last row seen.
async fn wait_row(
    nb: &ovsdb::Client,
    lb_id: &str,
    what: &str,
    want: impl Fn(&RowView) -> bool,
) -> Result<RowView, String> {
    let found = wait_replica(nb, what, |snap| row_view(snap, lb_id).filter(|r| want(r))).await;
    found.map_err(|e| format!("{e}; the row: {:#?}", row_view(&nb.replica(), lb_id)))
}

/// The reference's health check of VIP (or FIP) `vip` for port 80 (`_add_lbhc` /
/// `handle_vip_fip`): `vip` `<vip>:80`, the monitor's options, `external_ids` naming the
/// monitor, the pool and the VIP.
fn hc(vip: &str, hm: &str, pool: &str) -> Hc {
    (
        format!("{vip}:80"),
        map(&HC_OPTIONS),
        map(&[
            ("octavia:healthmonitor", hm),
            ("octavia:pool_id", pool),
            ("octavia:vip", vip),
        ]),
    )
}

fn sorted(mut v: Vec<Hc>) -> Vec<Hc> {
    v.sort();
    v
}

/// The first report naming member `m` with operating status `op`.
async fn member_report(rx: &mut Reports, lb_id: &str, m: &str, op: Op) -> StatusReport {
    loop {
        let r = next(rx).await;
        if r.loadbalancers.iter().any(|l| l.id == lb_id)
            && r.members
                .iter()
                .any(|x| x.id == m && x.operating_status == Some(op))
        {
            return r;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agent_events_through_neutron() {
    let n = neutron();
    let undo = Undo::default();
    let lb_id = uid();
    let outcome = tokio::spawn(scenario(n.clone(), lb_id.clone(), undo.clone())).await;
    // the NB row first (the agent is gone with the scenario's task), then Neutron's objects
    if let Ok(admin) = nb_admin(&[]).await {
        let _ = admin
            .transact(nb_txn(vec![delete_named("Load_Balancer", &lb_id)]))
            .await;
    }
    undo.run(&n).await;
    match outcome {
        Ok(Ok(())) => {}
        Ok(Err(e)) => panic!("{e}"),
        Err(e) => panic!("scenario panicked: {e}"),
    }
}

async fn scenario(n: NeutronClient, lb_id: String, undo: Undo) -> Result<(), String> {
    let (n, lb_id) = (&n, lb_id.as_str());
    let tag = &lb_id[..8];

    // --- Neutron: an external network (admin), a network with two subnets, a member port ----
    let ext = os_async(
        s(&[
            "network",
            "create",
            "--external",
            &format!("keel-ae-ext-{tag}"),
        ]),
        true,
    )
    .await?;
    let ext_id = ext["id"].as_str().ok_or("no ext network id")?.to_string();
    undo.push(UndoStep::Cli(s(&["network", "delete", &ext_id])));
    // the FIP range is unique to the test (the NB's other rows never hold these addresses)
    let b = uuid::Uuid::new_v4().as_bytes()[0];
    let ext_cidr = format!("100.{}.{b}.0/24", 64 + (b % 64));
    os_async(
        s(&[
            "subnet",
            "create",
            "--network",
            &ext_id,
            "--subnet-range",
            &ext_cidr,
            "--no-dhcp",
            &format!("keel-ae-ext-{tag}"),
        ]),
        true,
    )
    .await?;

    let net = network(n, &Made::default(), format!("keel-ae-{tag}")).await?;
    undo.push(UndoStep::Network(net.id.clone()));
    let s1 = subnet(n, &Made::default(), &net.id, "10.0.0.0/24").await?;
    undo.push(UndoStep::Subnet(s1.id.clone()));
    undo.push(UndoStep::PortNamed(format!("ovn-lb-hm-{}", s1.id)));
    let s2 = subnet(n, &Made::default(), &net.id, "10.1.0.0/24").await?;
    undo.push(UndoStep::Subnet(s2.id.clone()));
    undo.push(UndoStep::PortNamed(format!("ovn-lb-hm-{}", s2.id)));
    // (deleted before the subnets: pushed after them)
    undo.push(UndoStep::PortNamed(format!("ovn-lb-vip-{lb_id}")));
    undo.push(UndoStep::PortNamed(format!(
        "ovn-lb-vip-additional-1-{lb_id}"
    )));
    let member_ports = member_ports(n, &Made::default(), &net.id, &s1.id, &["10.0.0.10"]).await?;
    for p in &member_ports {
        undo.push(UndoStep::Port(p.clone()));
    }
    let ls = format!("neutron-{}", net.id);

    // --- the agent, on its own lock, on the driver's NB connection ----------------------------
    let nb = nb_caught_up().await?;
    let (d, mut rx) = driver(Arc::new(nb.clone()), n.clone());
    let client = nb.client().clone();
    let lock = format!("keel_agent_test_{}", lb_id.replace('-', "_"));
    let mut held = client.lock(&lock).await.msg()?;
    let sb_agent = sb(&["Service_Monitor"]).await?;
    let agent = tokio::spawn({
        let d = d.clone();
        let client = client.clone();
        let lock = lock.clone();
        async move { Agent::new(&d).run_with_lock(client, sb_agent, &lock).await }
    });
    wait_held(&mut held, 10, "the agent never got the lock").await;
    let admin = nb_admin(&[
        "Load_Balancer",
        "Load_Balancer_Health_Check",
        "Logical_Router",
        "Logical_Switch",
    ])
    .await?;

    // --- the load balancer: VIP 10.0.0.50 on s1, additional VIP 10.1.0.50 on s2; TCP 80 →
    //     pool → member 10.0.0.10:8080; a TCP monitor -----------------------------------------
    let (vip, addl) = d
        .create_vip_port(
            lb_id,
            "",
            vip_on(&net.id, &s1.id, Some("10.0.0.50")),
            vec![AdditionalVip {
                subnet_id: Some(s2.id.clone()),
                ip_address: Some("10.1.0.50".into()),
                ..Default::default()
            }],
        )
        .await
        .msg()?;
    let vip_port = vip.vip_port_id.clone().ok_or("no VIP port")?;
    let addl_port = addl
        .first()
        .and_then(|a| a.port_id.clone())
        .ok_or("no additional VIP port")?;
    let (l_id, p_id, m_id, hm_id) = (uid(), uid(), uid(), uid());
    let graph = LoadBalancer {
        additional_vips: Some(addl.clone()),
        listeners: Some(vec![Listener {
            listener_id: l_id.clone(),
            loadbalancer_id: Some(lb_id.into()),
            protocol: Some("TCP".into()),
            protocol_port: Some(80),
            default_pool_id: Some(Some(p_id.clone())),
            admin_state_up: Some(true),
            ..Default::default()
        }]),
        pools: Some(vec![Pool {
            pool_id: p_id.clone(),
            loadbalancer_id: Some(lb_id.into()),
            listener_id: Some(l_id.clone()),
            protocol: Some("TCP".into()),
            lb_algorithm: Some("SOURCE_IP_PORT".into()),
            admin_state_up: Some(true),
            members: Some(vec![Member {
                member_id: m_id.clone(),
                pool_id: Some(p_id.clone()),
                address: Some("10.0.0.10".into()),
                protocol_port: Some(8080),
                subnet_id: Some(s1.id.clone()),
                admin_state_up: Some(true),
                ..Default::default()
            }]),
            ..Default::default()
        }]),
        ..lb_on(lb_id, &vip, &net.id, &s1.id)
    };
    step_about(d.loadbalancer_create(graph), &mut rx, lb_id).await?;
    step_about(
        d.health_monitor_create(HealthMonitor {
            healthmonitor_id: hm_id.clone(),
            pool_id: Some(p_id.clone()),
            kind: Some("TCP".into()),
            delay: Some(5),
            timeout: Some(3),
            max_retries: Some(2),
            max_retries_down: Some(3),
            admin_state_up: Some(true),
            ..Default::default()
        }),
        &mut rx,
        lb_id,
    )
    .await?;
    let members = "10.0.0.10:8080".to_string();
    let vip_hcs = vec![
        hc("10.0.0.50", &hm_id, &p_id),
        hc("10.1.0.50", &hm_id, &p_id),
    ];
    let base = wait_row(&admin, lb_id, "the LB row with its health checks", |r| {
        r.hcs.len() == 2
    })
    .await?;
    check!(
        base.hcs == sorted(vip_hcs.clone()),
        "`_add_lbhc`: one health check per VIP: {:#?}",
        base.hcs
    );
    check!(
        base.routers.is_empty() && base.switches == vec![ls.clone()],
        "before any router: {base:#?}"
    );

    // --- router port add (`lb_create_lrp_assoc`): "Add only those lb to routers which are
    //     unique to the network" → `_add_lb_to_lr_association`:
    //         commands.append(self.ovn_nbdb_api.lr_lb_add(ovn_lr.uuid, ovn_lb.uuid, ...))
    //         for net in self._find_ls_for_lr(ovn_lr, ip_version=lb_vip.version):
    //             commands.append(self.ovn_nbdb_api.ls_lb_add(net, ovn_lb.uuid, ...))
    //         if ovn_lr.name not in str(lr_rf): ... lr_rf = f"{lr_rf},{ovn_lr.name}"
    // ------------------------------------------------------------------------------------------
    let r1 = n
        .create_router(&RouterCreate {
            name: Some(format!("keel-ae-r1-{tag}")),
            ..Default::default()
        })
        .await
        .msg()?;
    undo.push(UndoStep::Router(r1.id.clone()));
    n.add_router_interface(&r1.id, &s1.id).await.msg()?;
    undo.push(UndoStep::RouterIf(r1.id.clone(), s1.id.clone()));
    let lr1 = format!("neutron-{}", r1.id);
    let row = wait_row(
        &admin,
        lb_id,
        "the row on router 1 (router port add)",
        |r| r.routers == vec![lr1.clone()],
    )
    .await?;
    check!(
        row.external_ids.get("lr_ref") == Some(&lr1) && row.switches == vec![ls.clone()],
        "router port add: {row:#?}"
    );
    // a second router, on s2: the row joins it too, `lr_ref` = "<r1>,<r2>"
    let r2 = n
        .create_router(&RouterCreate {
            name: Some(format!("keel-ae-r2-{tag}")),
            ..Default::default()
        })
        .await
        .msg()?;
    undo.push(UndoStep::Router(r2.id.clone()));
    n.add_router_interface(&r2.id, &s2.id).await.msg()?;
    undo.push(UndoStep::RouterIf(r2.id.clone(), s2.id.clone()));
    let lr2 = format!("neutron-{}", r2.id);
    let mut both = vec![lr1.clone(), lr2.clone()];
    both.sort();
    let row = wait_row(
        &admin,
        lb_id,
        "the row on router 2 (router port add)",
        |r| r.routers == both,
    )
    .await?;
    check!(
        row.external_ids.get("lr_ref") == Some(&format!("{lr1},{lr2}")),
        "second router: {row:#?}"
    );

    // gateways on the external network (a gateway port: `is_gw_port` → nothing more)
    for r in [&r1.id, &r2.id] {
        os_async(
            s(&["router", "set", "--external-gateway", &ext_id, r]),
            false,
        )
        .await?;
    }

    // --- FIP on the VIP (`vip_port_update_handler` → `handle_vip_fip`): `neutron:vip_fip`,
    //     the FIP's `vips` entry (`_frame_vip_ips`), and for every health check whose
    //     `_get_vip_lbhc` is one of the port's fixed IPs (`vip_related`, from Neutron) a copy
    //     with `vip` = `<fip>:80` and `octavia:vip` = the FIP. helper.py 11.0.0:
    //         for lb_hc in ovn_lb.health_check:
    //             if self._get_vip_lbhc(lb_hc) in fip_info['vip_related']:
    //                 vip = fip_info['vip_fip']
    //                 lb_hc_external_ids[ovn_const.LB_EXT_IDS_HM_VIP] = vip
    //                 ... vip += ':' + port
    //                 kwargs = {'vip': vip, 'options': lb_hc.options, 'external_ids': ...}
    //     where `vip_related` = `[ip['ip_address'] for ip in port.fixed_ips]` of the Neutron
    //     port (`vip_port_update_handler`) --------------------------------------------------
    let fip1 = os_async(
        s(&[
            "floating",
            "ip",
            "create",
            "--project",
            "service",
            "--port",
            &vip_port,
            &ext_id,
        ]),
        true,
    )
    .await?;
    let fip1_id = fip1["id"].as_str().ok_or("no FIP id")?.to_string();
    undo.push(UndoStep::Cli(s(&["floating", "ip", "delete", &fip1_id])));
    let fip1 = fip1["floating_ip_address"]
        .as_str()
        .ok_or("no FIP address")?
        .to_string();
    let row = wait_row(&admin, lb_id, "the VIP's FIP recorded", |r| {
        r.external_ids.contains_key("neutron:vip_fip")
    })
    .await?;
    check!(
        row.external_ids.get("neutron:vip_fip") == Some(&fip1),
        "vip_fip: {row:#?}"
    );
    let want_vips = |fips: &[&str]| -> BTreeMap<String, String> {
        let mut m = map(&[
            ("10.0.0.50:80", members.as_str()),
            ("10.1.0.50:80", members.as_str()),
        ]);
        for f in fips {
            m.insert(format!("{f}:80"), members.clone());
        }
        m
    };
    check!(
        row.vips == want_vips(&[&fip1]),
        "vips with the VIP's FIP: {row:#?}"
    );
    let mut with_fip1 = vip_hcs.clone();
    with_fip1.push(hc(&fip1, &hm_id, &p_id));
    let row = wait_row(&admin, lb_id, "the FIP's health check", |r| {
        r.hcs.len() >= 3
    })
    .await
    .map_err(|e| format!("`handle_vip_fip` adds a health check for the FIP: {e}"))?;
    check!(
        row.hcs == sorted(with_fip1.clone()),
        "health checks with the VIP's FIP: {:#?}",
        row.hcs
    );

    // --- FIP on the additional VIP: `neutron:additional_vip_fips`, its `vips` entry, and a
    //     copy of the additional VIP's health check -------------------------------------------
    let fip2 = os_async(
        s(&[
            "floating",
            "ip",
            "create",
            "--project",
            "service",
            "--port",
            &addl_port,
            &ext_id,
        ]),
        true,
    )
    .await?;
    let fip2_id = fip2["id"].as_str().ok_or("no FIP id")?.to_string();
    undo.push(UndoStep::Cli(s(&["floating", "ip", "delete", &fip2_id])));
    let fip2 = fip2["floating_ip_address"]
        .as_str()
        .ok_or("no FIP address")?
        .to_string();
    let row = wait_row(&admin, lb_id, "the additional VIP's FIP recorded", |r| {
        r.external_ids.contains_key("neutron:additional_vip_fips")
    })
    .await?;
    check!(
        row.external_ids.get("neutron:additional_vip_fips") == Some(&fip2)
            && row.external_ids.get("neutron:vip_fip") == Some(&fip1),
        "additional_vip_fips: {row:#?}"
    );
    check!(
        row.vips == want_vips(&[&fip1, &fip2]),
        "vips with both FIPs: {row:#?}"
    );
    let mut with_both = with_fip1.clone();
    with_both.push(hc(&fip2, &hm_id, &p_id));
    let row = wait_row(&admin, lb_id, "the additional FIP's health check", |r| {
        r.hcs.len() >= 4
    })
    .await
    .map_err(|e| format!("`handle_vip_fip` adds a health check for the additional FIP: {e}"))?;
    check!(
        row.hcs == sorted(with_both),
        "health checks with both FIPs: {:#?}",
        row.hcs
    );

    // --- Service_Monitor changes (`ServiceMonitorUpdateEvent` → `hm_update_event`): the
    //     member's monitor northd made, set offline then online as ovn-controller would ----------
    let sb_t = ovsdb::Client::connect(
        &env("STACK_OVN_SB"),
        "OVN_Southbound",
        ovsdb::MonitorSpec::new()
            .table("Service_Monitor")
            .columns("Port_Binding", &["logical_port", "up"]),
    )
    .await
    .msg()?;
    let member_lsp = member_ports[0].clone();
    let sm = wait_replica(&sb_t, "northd's Service_Monitor of the member", |snap| {
        find_monitor(snap, |r| r.logical_port == member_lsp)
    })
    .await?;
    set_port_up(&sb_t, &member_lsp).await?;
    set_monitor_status(&sb_t, sm, "offline").await?;
    member_report(&mut rx, lb_id, &m_id, Op::Error).await;
    let row = wait_row(&admin, lb_id, "the member ERROR in the row", |r| {
        r.external_ids
            .get("neutron:member_status")
            .is_some_and(|s| s.contains("ERROR"))
    })
    .await?;
    check!(
        row.external_ids.get("neutron:member_status")
            == Some(&format!("{{\"{m_id}\": \"ERROR\"}}")),
        "member_status: {row:#?}"
    );
    set_monitor_status(&sb_t, sm, "online").await?;
    member_report(&mut rx, lb_id, &m_id, Op::Online).await;
    wait_row(&admin, lb_id, "the member ONLINE in the row", |r| {
        r.external_ids.get("neutron:member_status") == Some(&format!("{{\"{m_id}\": \"ONLINE\"}}"))
    })
    .await?;

    // --- FIPs disassociated: the keys, the FIP `vips` entries and the FIP health checks go
    //     (`handle_vip_fip`, disassociate) ------------------------------------------------------
    for id in [&fip1_id, &fip2_id] {
        os_async(s(&["floating", "ip", "unset", "--port", id]), false).await?;
    }
    let row = wait_row(&admin, lb_id, "both FIPs forgotten", |r| {
        !r.external_ids.contains_key("neutron:vip_fip")
            && !r.external_ids.contains_key("neutron:additional_vip_fips")
            && r.hcs.len() == 2
    })
    .await?;
    check!(
        row.vips == want_vips(&[]) && row.hcs == sorted(vip_hcs.clone()),
        "after disassociation: {row:#?}"
    );

    // --- maintenance backfill (`add_device_owner_lb_vip_ports`, Keel's variant: `device_id`
    //     `lb-<id>` only, never `device_owner` `ovn-lb:vip`, README "Compatibility"): VIP ports
    //     whose `device_id` was lost get it back, and their switch ports still hold no address
    //     (what lets same-subnet clients reach the VIP, and why the FIP event reads the row) ----
    for p in [&vip_port, &addl_port] {
        n.update_port(
            p,
            &openstack::PortUpdate {
                device_id: Some(String::new()),
                ..Default::default()
            },
        )
        .await
        .msg()?;
    }
    let outcome = Agent::new(&d).maintain_vip_port_owners().await;
    check!(
        matches!(outcome, Ok(ovn_provider::maintenance::Outcome::Done)),
        "maintenance: {outcome:?}"
    );
    let lsps = nb_admin(&["Logical_Switch_Port"]).await?;
    for p in [&vip_port, &addl_port] {
        let port = n.get_port(p).await.msg()?;
        check!(
            port.device_id == format!("lb-{lb_id}") && port.device_owner.is_empty(),
            "maintenance backfill of {p}: device_id {:?}, device_owner {:?}",
            port.device_id,
            port.device_owner
        );
        let want = format!("lb-{lb_id}");
        let (addresses, owner) = wait_replica(&lsps, "the VIP switch port backfilled", |snap| {
            let r = snap.find_by_name("Logical_Switch_Port", p)?;
            (r.map_get("external_ids", "neutron:device_id") == Some(want.as_str())).then(|| {
                (
                    r.get_str_set("addresses")
                        .into_iter()
                        .map(String::from)
                        .collect::<Vec<String>>(),
                    r.map_get("external_ids", "neutron:device_owner")
                        .unwrap_or("")
                        .to_string(),
                )
            })
        })
        .await?;
        check!(
            owner.is_empty()
                && !addresses
                    .iter()
                    .any(|a| a.contains("10.0.0.50") || a.contains("10.1.0.50")),
            "VIP switch port {p} after maintenance: addresses {addresses:?}, owner {owner:?}"
        );
    }

    // --- router port remove (`lb_delete_lrp_assoc` → `_del_lb_to_lr_association`): the row
    //     leaves the router, `lr_ref` keeps the other router; the network stays (it is still
    //     reached through the remaining router):
    //         remaining_lr_refs = [r for r in ... lr_ref.split(',') if r != ovn_lr.name]
    //         commands.append(self.ovn_nbdb_api.lr_lb_del(ovn_lr.uuid, ovn_lb.uuid, ...))
    //         for net in self._find_ls_for_lr(ovn_lr, ip_version=lb_vip.version):
    //             if net not in networks_in_remaining_routers: ... ls_lb_del(net, ...)
    // ------------------------------------------------------------------------------------------
    n.remove_router_interface(&r2.id, &s2.id).await.msg()?;
    let row = wait_row(
        &admin,
        lb_id,
        "the row off router 2 (router port remove)",
        |r| r.routers == vec![lr1.clone()],
    )
    .await?;
    check!(
        row.external_ids.get("lr_ref") == Some(&lr1) && row.switches == vec![ls.clone()],
        "router 2 removed: {row:#?}"
    );
    n.remove_router_interface(&r1.id, &s1.id).await.msg()?;
    let row = wait_row(
        &admin,
        lb_id,
        "the row off router 1 (router port remove)",
        |r| r.routers.is_empty(),
    )
    .await?;
    check!(
        !row.external_ids.contains_key("lr_ref") && row.switches == vec![ls.clone()],
        "router 1 removed: {row:#?}"
    );

    agent.abort();
    Ok(())
}
