//! `keel ovn-db-sync` end to end: a load balancer graph made through a real
//! `keel serve`'s API (Keystone, Neutron, OVN NB from `ci/stack/`), then its NB rows damaged behind
//! the driver's back with `ovn-nbctl`; the binary's dry run reports and changes nothing, a
//! run restores the exact rows and re-sends statuses to Octavia, a second run has nothing
//! to do. Runs are filtered with `--lb-id`: the NB is shared with other tests, whose rows an
//! unfiltered run would purge.
//!
//! Needs the environment of `ci/stack/env.sh` (run through `ci/test.sh`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{
    AgentLock, Backend, Keel, NeutronNet, get, keel_bin, map, nb_select as select, nbctl, uuids,
};
use serde_json::json;

/// What the test compares: the LB's row and what references it.
#[derive(Debug, PartialEq)]
struct NbState {
    uuid: String,
    external_ids: Vec<(String, String)>,
    vips: Vec<(String, String)>,
    ip_port_mappings: Vec<(String, String)>,
    /// (vip, options) of its health checks.
    health_checks: Vec<(String, Vec<(String, String)>)>,
    on_switch: bool,
    on_router: bool,
}

fn nb_state(lb_id: &str, net: &str, router: &str) -> Option<NbState> {
    let rows = select("Load_Balancer", json!([["name", "==", lb_id]]));
    assert!(rows.len() <= 1, "{rows:?}");
    let row = rows.first()?;
    let uuid = row["_uuid"][1].as_str().unwrap().to_string();
    let mut health_checks: Vec<(String, Vec<(String, String)>)> = uuids(&row["health_check"])
        .iter()
        .map(|u| {
            let hc = select(
                "Load_Balancer_Health_Check",
                json!([["_uuid", "==", ["uuid", u]]]),
            );
            (
                hc[0]["vip"].as_str().unwrap().to_string(),
                map(&hc[0]["options"]),
            )
        })
        .collect();
    health_checks.sort();
    let ls = select(
        "Logical_Switch",
        json!([["name", "==", format!("neutron-{net}")]]),
    );
    let lr = select(
        "Logical_Router",
        json!([["name", "==", format!("neutron-{router}")]]),
    );
    Some(NbState {
        external_ids: map(&row["external_ids"]),
        vips: map(&row["vips"]),
        ip_port_mappings: map(&row["ip_port_mappings"]),
        health_checks,
        on_switch: uuids(&ls[0]["load_balancer"]).contains(&uuid),
        on_router: uuids(&lr[0]["load_balancer"]).contains(&uuid),
        uuid,
    })
}

fn sync(conf: &Path, lb_id: &str, dry_run: bool) -> Output {
    let mut cmd = Command::new(keel_bin());
    cmd.arg("--config-file")
        .arg(conf)
        .args(["ovn-db-sync", "--lb-id", lb_id]);
    if dry_run {
        cmd.arg("--dry-run");
    }
    cmd.output().unwrap()
}

fn lines(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(String::from)
        .collect()
}

#[test]
fn ovn_db_sync_restores_a_damaged_load_balancer() {
    let mut keel = Keel::start(Backend::Sqlite);
    let tag = common::tag();
    let neutron = NeutronNet::create(&tag, &["10.0.0.10"]);
    let (net_id, subnet_id, router_id) = (
        neutron.net.clone(),
        neutron.subnet.clone(),
        neutron.router.clone(),
    );

    // the graph, through the API (the CLI path is cli_scenario's)
    let token = common::demo_token();
    let graph = keel.create_graph(&token, &format!("sync-{tag}"), &subnet_id, &["10.0.0.10"]);
    let (lb_id, listener_id, pool_id) = (
        graph.lb_id.clone(),
        graph.listener_id.clone(),
        graph.pool_id.clone(),
    );
    let member_id = graph.members[0].clone();

    let expected = nb_state(&lb_id, &net_id, &router_id).expect("the driver made no row");
    assert!(expected.on_switch && expected.on_router, "{expected:?}");
    assert_eq!(expected.health_checks.len(), 1, "{expected:?}");
    let pool_key = format!("pool_{pool_id}");
    let members = get(&expected.external_ids, &pool_key).unwrap().to_string();
    assert_eq!(
        members,
        format!("member_{member_id}_10.0.0.10:8080_{subnet_id}")
    );

    let conf = keel.conf.clone();
    // nothing to do on a healthy load balancer
    let clean = sync(&conf, &lb_id, false);
    assert!(
        clean.status.success(),
        "{}",
        String::from_utf8_lossy(&clean.stderr)
    );
    assert!(lines(&clean).is_empty(), "{:?}", lines(&clean));

    // from here on no agent acts on the NB (ours stops, others wait for the lock)
    keel.kill();
    let _lock = AgentLock::take();

    // damage 1: off its switch, vips altered, a stray member, the member status ERROR
    let u = expected.uuid.clone();
    nbctl(&["ls-lb-del", &format!("neutron-{net_id}"), &u]);
    nbctl(&[
        "set",
        "Load_Balancer",
        &u,
        r#"vips={"10.9.9.9:1"="10.8.8.8:2"}"#,
    ]);
    nbctl(&[
        "set",
        "Load_Balancer",
        &u,
        &format!(r#"external_ids:{pool_key}="{members},member_stray_10.0.0.99:80_{subnet_id}""#),
        &format!(r#"external_ids:neutron\:member_status="{{\"{member_id}\": \"ERROR\"}}""#),
    ]);
    let damaged = nb_state(&lb_id, &net_id, &router_id).unwrap();
    assert!(!damaged.on_switch);

    let dry = sync(&conf, &lb_id, true);
    assert!(
        dry.status.success(),
        "{}",
        String::from_utf8_lossy(&dry.stderr)
    );
    let dry_lines = lines(&dry);
    for want in [
        "member stray: not in Octavia".to_string(),
        format!("not referenced by switch neutron-{net_id}"),
        "vips drifted".to_string(),
    ] {
        assert!(
            dry_lines.iter().any(|l| l.contains(&want)),
            "{want}: {dry_lines:?}"
        );
    }
    assert_eq!(
        nb_state(&lb_id, &net_id, &router_id).unwrap(),
        damaged,
        "a dry run changed the NB"
    );

    let run = sync(&conf, &lb_id, false);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(
        lines(&run),
        dry_lines,
        "the run repairs what the dry run reported"
    );
    let fixed = nb_state(&lb_id, &net_id, &router_id).unwrap();
    let without_status = |m: &[(String, String)]| -> Vec<(String, String)> {
        m.iter()
            .filter(|(k, _)| k != "neutron:member_status")
            .cloned()
            .collect()
    };
    assert_eq!(
        without_status(&fixed.external_ids),
        without_status(&expected.external_ids)
    );
    assert_eq!(fixed.vips, expected.vips);
    assert_eq!(fixed.ip_port_mappings, expected.ip_port_mappings);
    assert_eq!(fixed.health_checks, expected.health_checks);
    assert!(fixed.on_switch && fixed.on_router);
    // statuses re-sent from the NB: the member ERROR, its pool ERROR (all members down)
    assert_eq!(sql_status(&keel, "member", &member_id), "ERROR");
    assert_eq!(sql_status(&keel, "pool", &pool_id), "ERROR");
    assert_eq!(sql_status(&keel, "listener", &listener_id), "ERROR");

    // damage 2: the Load_Balancer row is gone
    nbctl(&["lb-del", &u]);
    assert!(nb_state(&lb_id, &net_id, &router_id).is_none());
    let dry = sync(&conf, &lb_id, true);
    assert!(dry.status.success());
    assert!(
        lines(&dry)
            .iter()
            .any(|l| l.contains("no Load_Balancer row, created")),
        "{:?}",
        lines(&dry)
    );
    assert!(
        nb_state(&lb_id, &net_id, &router_id).is_none(),
        "a dry run created the row"
    );
    let run = sync(&conf, &lb_id, false);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let recreated = nb_state(&lb_id, &net_id, &router_id).expect("row not recreated");
    assert_eq!(recreated.external_ids, expected.external_ids);
    assert_eq!(recreated.vips, expected.vips);
    assert_eq!(recreated.ip_port_mappings, expected.ip_port_mappings);
    assert_eq!(recreated.health_checks, expected.health_checks);
    assert!(recreated.on_switch && recreated.on_router, "{recreated:?}");
    assert_eq!(sql_status(&keel, "member", &member_id), "ONLINE");
    assert_eq!(sql_status(&keel, "load_balancer", &lb_id), "ONLINE");

    // idempotent: nothing to do, exit 0
    let again = sync(&conf, &lb_id, false);
    assert!(again.status.success());
    assert!(lines(&again).is_empty(), "{:?}", lines(&again));
    assert!(String::from_utf8_lossy(&again.stderr).contains("nothing to do"));
}

/// `operating_status` of row `id` of `table` in the test's Octavia DB (read with `sqlite3`).
fn sql_status(keel: &Keel, table: &str, id: &str) -> String {
    keel.sql(&format!(
        "SELECT operating_status FROM {table} WHERE id = '{id}'"
    ))
}
