//! Micro-benchmarks of the provider's hot paths, plain `Instant` loops, no harness:
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
//! `cargo bench -p ovn-provider --bench hot_paths` — prints one line per case: iterations,
//! mean and p50/p99 per iteration (µs).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use ovn_provider::NbDatabase;
use ovn_provider::external_ids::{self as ext, ExternalIds, MemberEntry};
use ovn_provider::ovsdb_nb::OvsdbNb;
use ovn_provider::scope::Scope;
use ovn_provider::{status, vips};

const MEMBERS: usize = 1_000;

/// Run `f` for ~`budget` (at least 20 iterations); print mean, p50, p99 in µs.
fn bench(name: &str, budget: Duration, mut f: impl FnMut()) {
    for _ in 0..5 {
        f();
    }
    let mut samples = Vec::new();
    let start = Instant::now();
    while samples.len() < 20 || start.elapsed() < budget {
        let t = Instant::now();
        f();
        samples.push(t.elapsed().as_secs_f64() * 1e6);
    }
    samples.sort_by(f64::total_cmp);
    let mean = samples.iter().sum::<f64>() / samples.len() as f64;
    let p = |q: f64| samples[((samples.len() - 1) as f64 * q) as usize];
    println!(
        "{name:58} n={:7}  mean {:9.2} µs  p50 {:9.2}  p99 {:9.2}",
        samples.len(),
        mean,
        p(0.5),
        p(0.99)
    );
}

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

fn pure() {
    let budget = Duration::from_millis(1500);
    let (ids, pool) = row_with_pool(MEMBERS);
    let value = ids.get(&ext::pool_key(&pool, true)).unwrap().clone();
    println!(
        "pool of {MEMBERS} members: pool value {} bytes, external_ids {} keys",
        value.len(),
        ids.len()
    );
    bench("parse_pool_members (1,000 members)", budget, || {
        let (m, e) = ext::parse_pool_members(black_box(&value));
        assert!(m.len() == MEMBERS && e.is_empty());
    });
    let (members, _) = ext::parse_pool_members(&value);
    bench("format_pool_members (1,000 members)", budget, || {
        black_box(ext::format_pool_members(black_box(&members)));
    });
    bench("parse_member_status (1,000 entries)", budget, || {
        black_box(ext::parse_member_status(black_box(&ids)));
    });
    bench("frame_vips (1 listener, pool of 1,000)", budget, || {
        let v = vips::frame_vips(black_box(&ids));
        assert_eq!(v.len(), 1);
    });
    bench(
        "operating_tree (1,000 members + pool/listener/LB)",
        budget,
        || {
            let r = status::operating_tree("lb", black_box(&ids));
            assert_eq!(r.members.len(), MEMBERS);
        },
    );
}

async fn replica() {
    let remote = std::env::var("STACK_OVN_NB").unwrap_or_else(|_| "tcp:127.0.0.1:6641".into());
    let nb = match tokio::time::timeout(Duration::from_secs(10), OvsdbNb::connect(&remote)).await {
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
    let budget = Duration::from_millis(1500);
    let mut i = 0usize;
    bench("replica find_by_name(Load_Balancer)", budget, || {
        i = (i + 7919) % names.len();
        assert!(snap.find_by_name("Load_Balancer", &names[i]).is_some());
    });
    bench(
        "replica find_by_name(Load_Balancer, absent)",
        budget,
        || {
            assert!(
                snap.find_by_name("Load_Balancer", black_box("no-such-lb"))
                    .is_none()
            );
        },
    );
    // the scoped snapshot a request starts from (rows of one LB + the switches it references)
    let mut samples = Vec::new();
    let start = Instant::now();
    let mut j = 0usize;
    while samples.len() < 20 || start.elapsed() < budget {
        j = (j + 7919) % names.len();
        let t = Instant::now();
        let s = nb.snapshot(&Scope::lb(&names[j])).await.unwrap();
        samples.push(t.elapsed().as_secs_f64() * 1e6);
        assert!(!s.lbs_named(&names[j]).is_empty());
    }
    report("NbDatabase::snapshot(Scope::lb) (scoped snapshot)", samples);
    // …and a member's port found by address on the row's switch (`_get_member_lsp`), once per
    // fresh snapshot as a member create does
    let mut samples = Vec::new();
    let mut found = 0usize;
    let start = Instant::now();
    while samples.len() < 20 || start.elapsed() < budget {
        j = (j + 7919) % names.len();
        let t = Instant::now();
        let s = nb.snapshot(&Scope::lb(&names[j])).await.unwrap();
        let row = s.lbs_named(&names[j])[0];
        let member: Option<std::net::IpAddr> = row
            .vips
            .values()
            .flat_map(|b| b.split(','))
            .filter_map(|b| b.rsplit_once(':')?.0.parse().ok())
            .next();
        let switches: Vec<String> = ext::parse_ls_refs(&row.external_ids).into_keys().collect();
        if let Some(ip) = member {
            found += switches
                .iter()
                .filter_map(|n| s.switch_named(n))
                .filter_map(|ls| s.port_with_ip(ls, ip))
                .count();
        }
        samples.push(t.elapsed().as_secs_f64() * 1e6);
    }
    report(
        &format!("… + port_with_ip of a member ({found} found)"),
        samples,
    );
}

/// Prints mean, p50 and p99 (µs) of `samples`.
fn report(name: &str, mut samples: Vec<f64>) {
    samples.sort_by(f64::total_cmp);
    let mean = samples.iter().sum::<f64>() / samples.len() as f64;
    println!(
        "{:58} n={:7}  mean {:9.2} µs  p50 {:9.2}  p99 {:9.2}",
        name,
        samples.len(),
        mean,
        samples[samples.len() / 2],
        samples[(samples.len() - 1) * 99 / 100]
    );
}

fn main() {
    pure();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(replica());
}
