//! Property test: random sequences of transactions (fixed-seed xorshift generator) applied
//! through the client leave the replica equal to the server's contents, and equal to a fresh
//! client's initial dump.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{NB, NbServer, assert_rows_match};
use ovsdb::{Client, Condition, MonitorSpec, Mutation, Transaction, Uuid, Value};

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn spec() -> MonitorSpec {
    MonitorSpec::new()
        .table("Load_Balancer")
        .table("Logical_Switch")
}

/// One random operation on the rows `lbs` / `switches` the replica holds.
fn random_op(
    rng: &mut Rng,
    t: Transaction,
    lbs: &[Uuid],
    switches: &[Uuid],
    step: usize,
) -> Transaction {
    let key = |rng: &mut Rng| format!("10.0.{}.{}:80", rng.below(3), rng.below(4));
    let pick = |rng: &mut Rng, v: &[Uuid]| v[rng.below(v.len())];
    match rng.below(9) {
        0 | 1 => t.insert(
            "Load_Balancer",
            [
                ("name", Value::from(format!("lb-{step}"))),
                (
                    "protocol",
                    Value::set([["tcp", "udp", "sctp"][rng.below(3)]]),
                ),
                (
                    "vips",
                    Value::str_map([(key(rng), "10.1.0.5:8080".to_string())]),
                ),
            ],
            None,
        ),
        2 if !lbs.is_empty() => t.delete("Load_Balancer", &[Condition::uuid(pick(rng, lbs))]),
        3 if !lbs.is_empty() => t.mutate(
            "Load_Balancer",
            &[Condition::uuid(pick(rng, lbs))],
            &[Mutation::insert(
                "vips",
                Value::str_map([(key(rng), format!("10.1.0.{}:80", rng.below(9)))]),
            )],
        ),
        4 if !lbs.is_empty() => t.mutate(
            "Load_Balancer",
            &[Condition::uuid(pick(rng, lbs))],
            &[Mutation::delete("vips", Value::set([key(rng)]))],
        ),
        5 if !lbs.is_empty() => t.update(
            "Load_Balancer",
            &[Condition::uuid(pick(rng, lbs))],
            [
                (
                    "protocol",
                    if rng.below(2) == 0 {
                        Value::empty_set()
                    } else {
                        Value::set(["udp"])
                    },
                ),
                (
                    "external_ids",
                    Value::str_map([("k", format!("v{}", rng.below(5)))]),
                ),
            ],
        ),
        6 => t.insert(
            "Logical_Switch",
            [("name", Value::from(format!("ls-{step}")))],
            None,
        ),
        7 if !lbs.is_empty() && !switches.is_empty() => {
            let m = if rng.below(2) == 0 {
                Mutation::insert
            } else {
                Mutation::delete
            };
            t.mutate(
                "Logical_Switch",
                &[Condition::uuid(pick(rng, switches))],
                &[m("load_balancer", Value::uuid_set([pick(rng, lbs)]))],
            )
        }
        8 if !switches.is_empty() => {
            t.delete("Logical_Switch", &[Condition::uuid(pick(rng, switches))])
        }
        _ => t.comment("noop"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_transactions_keep_replica_equal_to_server() {
    let server = tokio::task::block_in_place(NbServer::start);
    let nb = Client::connect(&server.unix(), NB, spec()).await.unwrap();
    let mut rng = Rng(0x0005_EED0_F0DB);
    let (mut ok, mut failed) = (0, 0);
    for step in 0..300 {
        let snap = nb.replica();
        let uuids = |t: &str| -> Vec<Uuid> {
            let mut v: Vec<Uuid> = snap.table(t).unwrap().rows().map(|r| r.uuid()).collect();
            v.sort();
            v
        };
        let (lbs, switches) = (uuids("Load_Balancer"), uuids("Logical_Switch"));
        let mut t = Transaction::new(NB);
        for _ in 0..1 + rng.below(3) {
            t = random_op(&mut rng, t, &lbs, &switches, step);
        }
        // A transaction may fail (e.g. a server-side constraint); a failure changes nothing,
        // which the periodic comparison checks.
        match nb.transact(t).await {
            Ok(_) => ok += 1,
            Err(e) => {
                assert!(e.txn().is_some(), "{e}");
                failed += 1;
            }
        }
        if step % 50 == 49 {
            let snap = nb.replica();
            for table in ["Load_Balancer", "Logical_Switch"] {
                let rows = tokio::task::block_in_place(|| server.query_all(table));
                assert_rows_match(rows, &snap, table);
            }
        }
    }
    assert!(
        ok > 200,
        "generator should mostly produce valid transactions ({ok}/{failed})"
    );
    let fresh = Client::connect(&server.tcp(), NB, spec()).await.unwrap();
    assert!(nb.replica().same_contents(&fresh.replica()));
    assert!(nb.replica().table("Load_Balancer").unwrap().len() > 10);
}
