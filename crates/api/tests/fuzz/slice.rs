//! Which cases a run sends, and the tally it prints.
//!
//! * `KEEL_FUZZ_CASE=N[,M…]`: exactly these cases (their index in the full list), to replay.
//! * `KEEL_FUZZ_SECONDS=all`: every case, in order (the by-hand full run).
//! * [`plan_rotating`] (the in-process run's CI slice): the valid request of every operation,
//!   then every case `i` with `i mod K = p`, in order, none cut by time: position `p` is
//!   `KEEL_FUZZ_POSITION`, else the commit count (`git rev-list --count HEAD`) mod `K`, so
//!   consecutive commits send consecutive positions and any `K` consecutive commits the whole
//!   list; the position is printed first (`rotation position p of K`) and
//!   `KEEL_FUZZ_POSITION=p` sends the same slice again.
//! * [`plan`] (and [`plan_rotating`] given `KEEL_FUZZ_SECONDS=N` or `KEEL_FUZZ_SEED`): the full
//!   list shuffled by a seed, sent until `KEEL_FUZZ_SECONDS` (the caller's default) have
//!   passed. The seed is `KEEL_FUZZ_SEED`, else derived from the commit (`CI_COMMIT_SHA`,
//!   `GITHUB_SHA`, else `git rev-parse HEAD`); `KEEL_FUZZ_SEED=<seed>` sends the same order
//!   again (a slice cut by time may end elsewhere).

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use super::cases::Case;

/// What to send.
pub enum Plan {
    /// These indexes, once each.
    Replay(Vec<usize>),
    /// Everything in order.
    All,
    /// Shuffled by `seed`, until `budget` is spent.
    Slice { seed: u64, budget: Duration },
    /// The cases `i ≡ position (mod k)`, all of them, after the valid ones.
    #[allow(dead_code)] // the OVN run (`crates/keel/tests/fuzz_ovn.rs`) keeps the seeded slice
    Rotation { position: u64, k: u64 },
}

/// The plan of a rotating CI slice over `k` positions (see the module doc); a replay, the full
/// run and a by-hand seeded slice (`KEEL_FUZZ_SECONDS=N`, `KEEL_FUZZ_SEED`) as [`plan`].
#[allow(dead_code)] // not the OVN run's
pub fn plan_rotating(k: u64, default_secs: u64) -> Plan {
    let by_hand = ["KEEL_FUZZ_CASE", "KEEL_FUZZ_SECONDS", "KEEL_FUZZ_SEED"]
        .iter()
        .any(|v| std::env::var(v).is_ok());
    if by_hand {
        return plan(default_secs);
    }
    let position = match std::env::var("KEEL_FUZZ_POSITION") {
        Ok(p) => p
            .parse::<u64>()
            .ok()
            .filter(|p| *p < k)
            .unwrap_or_else(|| panic!("KEEL_FUZZ_POSITION: a number below {k}")),
        Err(_) => commit_count().map_or_else(|| commit_seed() % k, |n| n % k),
    };
    Plan::Rotation { position, k }
}

/// `git rev-list --count HEAD` (`None` outside a repository).
#[allow(dead_code)] // not the OVN run's
fn commit_count() -> Option<u64> {
    let o = std::process::Command::new("git")
        .args(["rev-list", "--count", "HEAD"])
        .output()
        .ok()?;
    String::from_utf8_lossy(&o.stdout).trim().parse().ok()
}

/// The plan from the environment (see the module doc); `default_secs` is the slice's budget
/// when `KEEL_FUZZ_SECONDS` is not set.
pub fn plan(default_secs: u64) -> Plan {
    if let Ok(list) = std::env::var("KEEL_FUZZ_CASE") {
        return Plan::Replay(
            list.split(',')
                .map(|s| {
                    s.trim()
                        .parse()
                        .expect("KEEL_FUZZ_CASE: indexes, comma-separated")
                })
                .collect(),
        );
    }
    let secs = match std::env::var("KEEL_FUZZ_SECONDS").as_deref() {
        Ok("all") => return Plan::All,
        Ok(s) => s.parse().expect("KEEL_FUZZ_SECONDS: seconds or `all`"),
        Err(_) => default_secs,
    };
    let seed = match std::env::var("KEEL_FUZZ_SEED") {
        Ok(s) => s.parse().expect("KEEL_FUZZ_SEED: a number"),
        Err(_) => commit_seed(),
    };
    Plan::Slice {
        seed,
        budget: Duration::from_secs(secs),
    }
}

/// A seed from the commit under test (FNV-1a of its id).
fn commit_seed() -> u64 {
    let commit = ["CI_COMMIT_SHA", "GITHUB_SHA"]
        .iter()
        .find_map(|k| std::env::var(k).ok())
        .or_else(|| {
            std::process::Command::new("git")
                .args(["rev-parse", "HEAD"])
                .output()
                .ok()
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        })
        .unwrap_or_default();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in commit.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h % 1_000_000_000
}

/// splitmix64: a small seeded generator for the shuffle.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The indexes of `n` cases in the plan's order (a slice is cut by time while sending).
pub fn order(plan: &Plan, n: usize) -> Vec<usize> {
    match plan {
        Plan::Replay(v) => v.iter().copied().filter(|i| *i < n).collect(),
        Plan::All => (0..n).collect(),
        Plan::Rotation { position, k } => (0..n).filter(|i| *i as u64 % k == *position).collect(),
        Plan::Slice { seed, .. } => {
            let mut v: Vec<usize> = (0..n).collect();
            let mut st = *seed;
            for i in (1..n).rev() {
                let j = (next(&mut st) % (i as u64 + 1)) as usize;
                v.swap(i, j);
            }
            v
        }
    }
}

/// What a run did: answers by status, operations reached, fields × values covered.
#[derive(Default)]
pub struct Tally {
    pub started: Option<Instant>,
    pub sent: usize,
    pub by_status: BTreeMap<u16, usize>,
    /// Operations a case with real ids was sent to.
    pub reached: BTreeSet<String>,
    /// Operations that answered 2xx at least once.
    pub succeeded: BTreeSet<String>,
    pub covered: BTreeSet<(String, String)>,
}

impl Tally {
    pub fn record(&mut self, c: &Case, status: u16) {
        self.sent += 1;
        *self.by_status.entry(status).or_default() += 1;
        if c.real_path {
            self.reached.insert(c.op.clone());
        }
        if (200..300).contains(&status) {
            self.succeeded.insert(c.op.clone());
        }
        if let Some(cv) = &c.cover {
            self.covered.insert(cv.clone());
        }
    }

    /// One line: the mode, the seed, cases sent of all, answers, reach, coverage and time.
    pub fn line(&self, mode: &str, plan: &Plan, cases: &[Case], ops: usize) -> String {
        let seed = match plan {
            Plan::Slice { seed, .. } => format!("seed {seed}"),
            Plan::Rotation { position, k } => format!("rotation position {position} of {k}"),
            Plan::All => "full run".into(),
            Plan::Replay(v) => format!("replay {v:?}"),
        };
        let pairs: BTreeSet<_> = cases.iter().filter_map(|c| c.cover.clone()).collect();
        let fields: BTreeSet<_> = pairs.iter().map(|(f, _)| f).collect();
        format!(
            "fuzz {mode} ({seed}): {} of {} cases in {:.1} s; answers {:?}; operations reached {}/{ops} (2xx on {}); fields × values {}/{} over {} fields",
            self.sent,
            cases.len(),
            self.started.map_or(0.0, |s| s.elapsed().as_secs_f64()),
            self.by_status,
            self.reached.len(),
            self.succeeded.len(),
            self.covered.len(),
            pairs.len(),
            fields.len(),
        )
    }
}

/// Whether a slice's budget is spent.
pub fn out_of_time(plan: &Plan, started: Instant) -> bool {
    matches!(plan, Plan::Slice { budget, .. } if started.elapsed() >= *budget)
}

/// The cases of the run in order; operations first reached by the valid case of each one, so
/// that even a short slice reaches every operation: the valid cases go first.
pub fn schedule<'a>(plan: &Plan, cases: &'a [Case]) -> Vec<&'a Case> {
    let idx = order(plan, cases.len());
    let valid = |c: &Case| c.what.ends_with(" valid") || c.what.ends_with(" cascade=true");
    match plan {
        Plan::Slice { .. } | Plan::Rotation { .. } => {
            let mut v: Vec<&Case> = cases.iter().filter(|c| valid(c)).collect();
            v.extend(idx.iter().map(|i| &cases[*i]).filter(|c| !valid(c)));
            v
        }
        _ => idx.iter().map(|i| &cases[*i]).collect(),
    }
}
