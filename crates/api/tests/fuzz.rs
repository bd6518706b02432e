//! Hostile input into every operation of the OpenAPI document (`docs/openapi.json`), in
//! process over SQLite and MariaDB with a provider that accepts everything: the answer is
//! 2xx, 4xx or 501 — never another 5xx —; after a refusal every row of every table is as it
//! was; after a 2xx only the rows the operation may touch changed, a GET shows what the
//! request said and the object's row holds it; every operation answers 2xx at least once but
//! those of [`NEVER_2XX`].
//!
//! * `fuzz/cases.rs`: the cases, generated from the document (every operation; every path,
//!   query and body field × every hostile value of its type; malformed bodies);
//! * `fuzz/values.rs`: the hostile values by type;
//! * `fuzz/fixture.rs`: the fixture tree, the fresh objects a DELETE removes, the provider's
//!   part (PENDING_* settled), the database read whole (keyed rows) or by row;
//! * `fuzz/diff.rs`: the whole-database diff after a 2xx and what each operation may touch;
//! * `fuzz/stored.rs`: the read-back check after a 2xx;
//! * `fuzz/slice.rs`: which cases a run sends (in CI one position of a rotation over
//!   [`ROTATION`] positions; all with `KEEL_FUZZ_SECONDS=all`; `KEEL_FUZZ_POSITION=p` one
//!   position; `KEEL_FUZZ_CASE=N` replays one) and the tally printed.
//!
//! `crates/keel/tests/fuzz_ovn.rs` runs the same cases against `keel serve` with the OVN
//! provider. Full run: `KEEL_FUZZ_SECONDS=all cargo test -p api --test fuzz -- --nocapture`
//! (`KEEL_FUZZ_BACKEND=sqlite|mariadb` for one backend).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

#[path = "fuzz/cases.rs"]
mod cases;
mod common;
#[path = "fuzz/diff.rs"]
mod diff;
#[path = "fuzz/fixture.rs"]
mod fixture;
#[path = "fuzz/slice.rs"]
mod slice;
#[path = "fuzz/stored.rs"]
mod stored;
#[path = "fuzz/values.rs"]
mod values;

use std::collections::BTreeMap;

use axum::body::Body;
use axum::http::Request;
use serde_json::Value;
use tower::ServiceExt;

use cases::Case;
use fixture::Fixture;
use stored::ReadBack;

const OPENAPI: &str = include_str!("../../../docs/openapi.json");

/// Seconds of a by-hand seeded slice per backend (`KEEL_FUZZ_SEED` without
/// `KEEL_FUZZ_SECONDS`).
const CI_SECONDS: u64 = 60;

/// The CI slice's rotation `K`: commit number `n` (`git rev-list --count HEAD`) sends the
/// valid requests, then the cases `i ≡ n (mod K)` (`fuzz/slice.rs`), so any `K` consecutive
/// commits send all cases. Chosen for a slice well within 60 s per backend on the shared
/// 2-core machine (2026-12-07, load 3–5): 661–662 cases + 82 valid ones, 12–17 s on SQLite,
/// 25–28 s on MariaDB (at 24, 881–882 + 82: 21–32 s and 37–82 s).
const ROTATION: u64 = 32;

/// The operations whose valid request never answers 2xx in this run, and why; every other
/// operation must answer 2xx at least once in every slice (its valid request is sent first).
/// An operation of this list that does answer 2xx fails the run too (the list is kept exact).
const NEVER_2XX: &[(&str, &str)] = &[
    (
        "GET /healthcheck",
        "the healthcheck endpoint is off by default ([healthcheck] enabled = False): 404",
    ),
    (
        "GET /v2/octavia/amphorae/{id}",
        "the fixture has no amphora (the fake provider makes none): 404",
    ),
    ("DELETE /v2/octavia/amphorae/{id}", "no amphora: 404"),
    ("GET /v2/octavia/amphorae/{id}/stats", "no amphora: 404"),
    ("PUT /v2/octavia/amphorae/{id}/config", "no amphora: 404"),
    ("PUT /v2/octavia/amphorae/{id}/failover", "no amphora: 404"),
];

/// What the fake provider decides whatever the request said: its VIP port.
const FAKE_DECIDES: &[&str] = &[
    "vip_port_id",
    "vip_address",
    "vip_network_id",
    "vip_subnet_id",
];

/// Sends `method path` with the raw body; (status, body text, body as JSON or `Null`).
async fn send(
    env: &common::Env,
    method: &str,
    path: &str,
    body: Option<(&str, &str)>,
) -> (u16, String) {
    let mut b = Request::builder()
        .method(method)
        .uri(path)
        .header("host", "keel.test")
        .header("x-project-id", common::PROJECT);
    let body = match body {
        Some((raw, ct)) => {
            b = b.header("content-type", ct);
            Body::from(raw.to_string())
        }
        None => Body::empty(),
    };
    let req = match b.body(body) {
        Ok(r) => r,
        Err(e) => return (0, format!("no request: {e}")),
    };
    let resp = env.router.clone().oneshot(req).await.unwrap();
    let status = resp.status().as_u16();
    let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
        .await
        .unwrap();
    (status, String::from_utf8_lossy(&bytes).into_owned())
}

/// The read-back check of a 2xx (see `fuzz/stored.rs`): mismatches as text.
async fn check_stored(env: &common::Env, rb: ReadBack) -> Vec<String> {
    match rb {
        ReadBack::Deleted { path } => {
            let (s, b) = env.req("GET", &path, None).await;
            let st = b
                .as_object()
                .and_then(|o| o.values().next())
                .map(|o| o["provisioning_status"].clone());
            let gone = s == 404
                || st.as_ref().and_then(Value::as_str).is_some_and(|x| x == "PENDING_DELETE" || x == "DELETED")
                // quotas and metadata objects: a DELETE resets / removes; a 200 quota is the defaults
                || path.contains("/quotas/");
            if gone {
                vec![]
            } else {
                vec![format!("after DELETE, GET {path} → {s} {b}")]
            }
        }
        ReadBack::Members { path, sent } => {
            let (s, b) = env.req("GET", &path, None).await;
            let listed = b["members"].as_array().cloned().unwrap_or_default();
            sent.iter()
                .filter(|m| m.is_object())
                .filter(|m| {
                    !listed.iter().any(|l| {
                        stored::same(&m["address"], &l["address"])
                            && stored::same(&m["protocol_port"], &l["protocol_port"])
                    })
                })
                .map(|m| format!("batch member {m} not listed by GET {path} ({s})"))
                .collect()
        }
        ReadBack::Object {
            path,
            wrapper,
            sent,
        } => {
            let (s, b) = env.req("GET", &path, None).await;
            if s != 200 {
                return vec![format!("GET {path} after the write → {s} {b}")];
            }
            let shown = &b[wrapper.as_str()];
            let mut out = stored::mismatches(&wrapper, &sent, shown, FAKE_DECIDES);
            if let Some((table, key)) = stored::table_of(&wrapper) {
                let id = if key == "project_id" {
                    stored::unescape(path.rsplit('/').next().unwrap_or(""))
                } else {
                    shown[key].as_str().unwrap_or("").to_string()
                };
                let row = fixture::row(env, table, key, &id).await;
                if row.is_empty() {
                    out.push(format!("no `{table}` row {key} = {id}"));
                }
                out.extend(stored::row_mismatches(&sent, shown, &row));
            }
            out
        }
    }
}

/// One case: its placeholders filled, sent, judged. `Err`: what went wrong.
async fn run_case(
    env: &common::Env,
    fx: &mut Fixture,
    c: &Case,
    defaults: &BTreeMap<&'static str, String>,
) -> Result<u16, String> {
    let path = fx.fill(env, &c.path).await?;
    let body = match &c.body {
        Some((raw, ct)) => Some((fx.fill(env, raw).await?, *ct)),
        None => None,
    };
    // the last case's "after" when nothing wrote since (its refusal; no fresh object made)
    let before = match fx.last.take() {
        Some(db) => db,
        None => fixture::snapshot(env).await,
    };
    let (status, text) = send(
        env,
        c.method,
        &path,
        body.as_ref().map(|(b, ct)| (b.as_str(), *ct)),
    )
    .await;
    let after = fixture::snapshot(env).await;
    let short: String = text.chars().take(300).collect();
    if std::env::var("KEEL_FUZZ_CASE").is_ok() {
        eprintln!("#{} {} {path} → {status} {short}", c.index, c.method);
    }
    let fail = |why: String| Err(format!("#{} {} → {status}: {why}", c.index, c.what));
    if status == 0 || (status >= 500 && status != 501) {
        return fail(short);
    }
    let changes = diff::changes(&before, &after);
    if std::env::var("KEEL_FUZZ_CASE").is_ok() {
        let none = diff::Allow::default();
        for ch in diff::unallowed(&changes, &none, defaults) {
            eprintln!("  changed: {ch}");
        }
    }
    if (200..300).contains(&status) {
        let sent = body
            .as_ref()
            .and_then(|(b, _)| serde_json::from_str::<Value>(b).ok());
        let answer: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        // the whole database: only the rows the operation may touch changed
        let allow = diff::allowance(
            &c.op,
            &path,
            sent.as_ref(),
            &answer,
            &before,
            &after,
            common::PROJECT,
        );
        let mut bad = diff::unallowed(&changes, &allow, defaults);
        if let Some(pool) = &allow.batch_pool {
            let members = sent
                .as_ref()
                .and_then(|s| s["members"].as_array().cloned())
                .unwrap_or_default();
            bad.extend(diff::batch_members(&before, &after, pool, &path, &members));
        }
        if c.method == "DELETE" && c.op.starts_with("DELETE /v2/lbaas/quotas/") {
            let p = stored::unescape(
                path.split('?')
                    .next()
                    .unwrap_or("")
                    .rsplit('/')
                    .next()
                    .unwrap_or(""),
            );
            bad.extend(diff::quota_reset(&after, &p, defaults));
        }
        // the object read back
        if let Some(rb) = stored::read_back(c.method, &path, sent.as_ref(), &answer) {
            bad.extend(check_stored(env, rb).await);
        }
        fixture::settle(env).await;
        if !bad.is_empty() {
            return fail(format!("stored otherwise: {}", bad.join("; ")));
        }
    } else if !changes.is_empty() {
        let none = diff::Allow::default();
        let wrote = diff::unallowed(&changes, &none, defaults);
        return fail(format!("refused but wrote: {} ({short})", wrote.join("; ")));
    } else {
        fx.last = Some(after);
    }
    Ok(status)
}

async fn run(mysql: bool) {
    let wanted = std::env::var("KEEL_FUZZ_BACKEND").ok();
    let name = if mysql { "mariadb" } else { "sqlite" };
    if wanted.as_deref().is_some_and(|w| w != name) {
        return;
    }
    let doc: Value = serde_json::from_str(OPENAPI).unwrap();
    let all = cases::generate(&doc);
    let ops = cases::operations(&doc);
    let plan = slice::plan_rotating(ROTATION, CI_SECONDS);
    match &plan {
        slice::Plan::Slice { seed, .. } => {
            eprintln!("fuzz {name}: seed {seed} (replay with KEEL_FUZZ_SEED={seed})");
        }
        slice::Plan::Rotation { position, k } => {
            let n = slice::order(&plan, all.len()).len();
            eprintln!(
                "fuzz {name}: rotation position {position} of {k}, cases i ≡ {position} (mod {k}): {n} cases (and the valid request of each operation; replay with KEEL_FUZZ_POSITION={position})"
            );
        }
        _ => {}
    }
    let env = common::Env::new(mysql, common::Setup::accept_all()).await;
    let mut fx = Fixture::make(&env).await;
    let (s, d) = env
        .req(
            "GET",
            "/v2/lbaas/quotas/f0220000000000000000000000000001/default",
            None,
        )
        .await;
    assert!(s.is_success(), "quota defaults: {s} {d}");
    let defaults = diff::defaults_by_column(&d["quota"]);
    let mut tally = slice::Tally {
        started: Some(std::time::Instant::now()),
        ..Default::default()
    };
    let mut failures = Vec::new();
    for c in slice::schedule(&plan, &all) {
        if slice::out_of_time(&plan, tally.started.unwrap()) {
            break;
        }
        if tally.sent % 1000 == 999 {
            eprintln!(
                "fuzz: {} sent, {:.0} s, answers {:?}",
                tally.sent + 1,
                tally.started.unwrap().elapsed().as_secs_f64(),
                tally.by_status
            );
        }
        match run_case(&env, &mut fx, c, &defaults).await {
            Ok(status) => tally.record(c, status),
            Err(e) => {
                tally.record(c, 999);
                failures.push(e);
            }
        }
    }
    eprintln!("{}", tally.line(name, &plan, &all, ops.len()));
    let no_2xx: Vec<&String> = tally
        .reached
        .iter()
        .filter(|o| !tally.succeeded.contains(*o))
        .collect();
    eprintln!("fuzz {name}: reached without a 2xx: {no_2xx:?}");
    env.done().await;
    if !matches!(plan, slice::Plan::Replay(_)) {
        let missed: Vec<&String> = ops.iter().filter(|o| !tally.reached.contains(*o)).collect();
        assert!(missed.is_empty(), "operations never reached: {missed:?}");
        // every operation answered 2xx at least once, but those that never can
        let never = |o: &str| NEVER_2XX.iter().any(|(n, _)| *n == o);
        let silent: Vec<&String> = ops
            .iter()
            .filter(|o| !never(o) && !tally.succeeded.contains(*o))
            .collect();
        let listed: Vec<&String> = ops
            .iter()
            .filter(|o| never(o) && tally.succeeded.contains(*o))
            .collect();
        failures.extend(
            silent
                .iter()
                .map(|o| format!("{o}: no 2xx in this slice, not even its valid request")),
        );
        failures.extend(
            listed
                .iter()
                .map(|o| format!("{o}: answered 2xx, but NEVER_2XX says it never can")),
        );
        let unknown: Vec<&str> = NEVER_2XX
            .iter()
            .map(|(n, _)| *n)
            .filter(|n| !ops.iter().any(|o| o == n))
            .collect();
        assert!(
            unknown.is_empty(),
            "NEVER_2XX names no operation: {unknown:?}"
        );
    }
    assert!(
        failures.is_empty(),
        "{} failures (replay: KEEL_FUZZ_CASE=<#>):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_input_sqlite() {
    run(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_input_mariadb() {
    run(true).await;
}

/// The generator's own contract: every operation of the document has cases with real ids,
/// and every field of every request body gets at least the values every type gets.
#[test]
fn every_operation_and_field_has_cases() {
    let doc: Value = serde_json::from_str(OPENAPI).unwrap();
    let all = cases::generate(&doc);
    let ops = cases::operations(&doc);
    for op in &ops {
        assert!(
            all.iter().any(|c| &c.op == op && c.real_path),
            "{op}: no case reaches it"
        );
    }
    let mut per_field: std::collections::BTreeMap<&str, usize> = Default::default();
    for (f, _) in all.iter().filter_map(|c| c.cover.as_ref()) {
        *per_field.entry(f.as_str()).or_default() += 1;
    }
    let thin: Vec<_> = per_field
        .iter()
        .filter(|(f, n)| **n < 5 && !f.ends_with("zz_unknown"))
        .collect();
    let kind = |f: &str| {
        if f.contains(" path ") {
            "path"
        } else if f.contains(" query ") {
            "query"
        } else if f.ends_with(" body") {
            "whole body"
        } else {
            "body field"
        }
    };
    let mut by_kind: std::collections::BTreeMap<&str, (usize, usize)> = Default::default();
    for (f, n) in &per_field {
        let e = by_kind.entry(kind(f)).or_default();
        e.0 += 1;
        e.1 += n;
    }
    eprintln!(
        "{} cases, {} fields; (fields, field × value cases) by kind: {by_kind:?}",
        all.len(),
        per_field.len()
    );
    if std::env::var("KEEL_FUZZ_LIST").is_ok() {
        for c in &all {
            eprintln!("#{} {} {}", c.index, c.path, c.what);
        }
    }
    assert!(thin.is_empty(), "fields with fewer than 5 values: {thin:?}");
}

/// The rotation's contract: the `ROTATION` positions together send every case exactly once
/// (so any `ROTATION` consecutive commits cover the whole list), none more than its share
/// (⌈cases / ROTATION⌉).
#[test]
fn rotation_covers_every_case_once() {
    let doc: Value = serde_json::from_str(OPENAPI).unwrap();
    let n = cases::generate(&doc).len();
    let mut seen = vec![0u32; n];
    for position in 0..ROTATION {
        let plan = slice::Plan::Rotation {
            position,
            k: ROTATION,
        };
        let part = slice::order(&plan, n);
        assert!(
            part.len() <= n / ROTATION as usize + 1,
            "position {position}: {} cases",
            part.len()
        );
        for i in part {
            seen[i] += 1;
        }
    }
    let wrong: Vec<usize> = (0..n).filter(|i| seen[*i] != 1).collect();
    assert!(
        wrong.is_empty(),
        "cases not sent exactly once per rotation: {wrong:?}"
    );
}

/// The diff's keys and owner columns are columns of the schema (a renamed column would
/// otherwise make every row of its table look new).
#[test]
fn diff_keys_are_schema_columns() {
    let cols = octavia_db::columns();
    let has = |t: &str, c: &str| cols.iter().any(|x| x.0 == t && x.1 == c);
    for (table, keys) in fixture::KEYS {
        for k in *keys {
            assert!(has(table, k), "{table}.{k} is no column");
        }
    }
    for (table, c) in diff::named_columns() {
        assert!(has(table, c), "{table}.{c} is no column");
    }
}
