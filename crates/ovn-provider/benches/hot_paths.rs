//! Micro-benchmarks of the provider's hot paths, under criterion (statistics, outliers, and
//! comparison with a saved baseline: `bench/micro.sh`):
//!
//! - `external_ids` framing of a pool of 1,000 members: parse + format the pool value;
//! - `vips` framing (`frame_vips`) of a row with that pool behind one listener;
//! - the status tree (`operating_tree`) of that row (1,000 member records + pool/listener/LB);
//! - replica lookups by name on the live NB (`STACK_OVN_NB`, default `tcp:127.0.0.1:6641`):
//!   `Load_Balancer` by `name` through the replica's index, and the scoped snapshot a request
//!   builds (`NbDatabase::snapshot(Scope::lb)`), with however many rows the NB holds
//!   (run `bench/ovsdb_raw.py insert --rows 10000` first for the 10k case). Skipped, with a
//!   note, when the NB does not answer. `HOT_PATHS_LBS=name,…` restricts the rows looked up
//!   to those names (e.g. LBs on a switch of 10,000 ports).
//!
//! `cargo bench -p ovn-provider --bench hot_paths [-- <filter>] [-- --save-baseline B | --baseline B]`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};

use ovn_provider::NbDatabase;
use ovn_provider::external_ids::{self as ext, ExternalIds, MemberEntry};
use ovn_provider::ovsdb_nb::OvsdbNb;
use ovn_provider::scope::Scope;
use ovn_provider::{status, vips};

const MEMBERS: usize = 1_000;

fn uuid(i: usize) -> String {
    format!("{:08x}-0000-4000-8000-{:012x}", i, i)
}

/// A row's `external_ids` as the provider writes it: VIP, one listener → one pool of `n`
/// members (10.1.x.y:8080 on one subnet), `neutron:member_status` for each, `ls_refs`.
fn row_with_pool(n: usize) -> (ExternalIds, String) {
    let pool = uuid(1);
    let listener = uuid(2);
    let subnet = uuid(3);
    let members: Vec<MemberEntry> = (0..n)
        .map(|i| MemberEntry {
            id: uuid(1000 + i),
            address: format!("10.1.{}.{}", i / 250, i % 250 + 1).parse().unwrap(),
            port: 8080,
            subnet_id: subnet.clone(),
        })
        .collect();
    let mut ids = ExternalIds::new();
    ids.insert(ext::VIP.into(), "10.0.0.10".into());
    ids.insert(ext::VIP_PORT_ID.into(), uuid(4));
    ids.insert(ext::ENABLED.into(), "True".into());
    ids.insert(
        ext::LS_REFS.into(),
        format!("{{\"neutron-{}\": 2}}", uuid(5)),
    );
    ids.insert(
        ext::listener_key(&listener, true),
        format!("80:pool_{pool}"),
    );
    ids.insert(
        ext::pool_key(&pool, true),
        ext::format_pool_members(&members),
    );
    let status: BTreeMap<String, String> = members
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let s = if i % 10 == 0 { "ERROR" } else { "ONLINE" };
            (m.id.clone(), s.to_string())
        })
        .collect();
    ids.insert(
        ext::MEMBER_STATUS.into(),
        ext::format_member_status(&status),
    );
    (ids, pool)
}

fn framing(c: &mut Criterion) {
    let (ids, pool) = row_with_pool(MEMBERS);
    let value = ids.get(&ext::pool_key(&pool, true)).unwrap().clone();
    let (members, _) = ext::parse_pool_members(&value);
    let mut g = c.benchmark_group("pool_1000_members");
    g.bench_function("parse_pool_members", |b| {
        b.iter(|| {
            let (m, e) = ext::parse_pool_members(black_box(&value));
            assert!(m.len() == MEMBERS && e.is_empty());
        });
    });
    g.bench_function("format_pool_members", |b| {
        b.iter(|| ext::format_pool_members(black_box(&members)));
    });
    g.bench_function("parse_member_status", |b| {
        b.iter(|| ext::parse_member_status(black_box(&ids)));
    });
    g.bench_function("frame_vips_1_listener", |b| {
        b.iter(|| assert_eq!(vips::frame_vips(black_box(&ids)).len(), 1));
    });
    g.bench_function("operating_tree", |b| {
        b.iter(|| {
            let r = status::operating_tree("lb", black_box(&ids));
            assert_eq!(r.members.len(), MEMBERS);
        });
    });
    g.finish();
}

fn replica(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let remote = std::env::var("STACK_OVN_NB").unwrap_or_else(|_| "tcp:127.0.0.1:6641".into());
    let connect = OvsdbNb::connect(&remote);
    let nb =
        match rt.block_on(async { tokio::time::timeout(Duration::from_secs(10), connect).await }) {
            Ok(Ok(nb)) => nb,
            other => {
                println!("replica lookups: skipped, NB {remote} not reachable ({other:?})");
                return;
            }
        };
    let snap = nb.client().replica();
    let names: Vec<String> = snap
        .table("Load_Balancer")
        .map(|t| {
            t.rows()
                .filter_map(|r| r.get_str("name").map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let names: Vec<String> = match std::env::var("HOT_PATHS_LBS") {
        Ok(only) => {
            let only: Vec<&str> = only.split(',').collect();
            names
                .into_iter()
                .filter(|n| only.contains(&n.as_str()))
                .collect()
        }
        Err(_) => names,
    };
    println!(
        "replica of {remote}: {} Load_Balancer rows, {} Logical_Switch rows",
        names.len(),
        snap.table("Logical_Switch").map_or(0, |t| t.len())
    );
    if names.is_empty() {
        println!("replica lookups: skipped, no Load_Balancer rows");
        return;
    }
    let mut g = c.benchmark_group("nb_replica");
    let mut i = 0usize;
    g.bench_function("find_by_name_lb", |b| {
        b.iter(|| {
            i = (i + 7919) % names.len();
            assert!(snap.find_by_name("Load_Balancer", &names[i]).is_some());
        });
    });
    g.bench_function("find_by_name_lb_absent", |b| {
        b.iter(|| {
            assert!(
                snap.find_by_name("Load_Balancer", black_box("no-such-lb"))
                    .is_none()
            );
        });
    });
    // the scoped snapshot a request starts from (rows of one LB + the switches it references)
    let mut j = 0usize;
    g.bench_function("snapshot_scope_lb", |b| {
        b.iter(|| {
            j = (j + 7919) % names.len();
            let s = rt.block_on(nb.snapshot(&Scope::lb(&names[j]))).unwrap();
            assert!(!s.lbs_named(&names[j]).is_empty());
        });
    });
    // …and a member's port found by address on the row's switch (`_get_member_lsp`), once per
    // fresh snapshot as a member create does
    g.bench_function("snapshot_and_member_port", |b| {
        b.iter(|| {
            j = (j + 7919) % names.len();
            let s = rt.block_on(nb.snapshot(&Scope::lb(&names[j]))).unwrap();
            let row = s.lbs_named(&names[j])[0];
            let member: Option<std::net::IpAddr> = row
                .vips
                .values()
                .flat_map(|b| b.split(','))
                .filter_map(|b| b.rsplit_once(':')?.0.parse().ok())
                .next();
            let switches: Vec<String> = ext::parse_ls_refs(&row.external_ids).into_keys().collect();
            member.map_or(0, |ip| {
                switches
                    .iter()
                    .filter_map(|n| s.switch_named(n))
                    .filter_map(|ls| s.port_with_ip(ls, ip))
                    .count()
            })
        });
    });
    g.finish();
}

criterion_group!(benches, framing, replica);
criterion_main!(benches);
