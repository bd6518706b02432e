//! Keel's log lines as the deployment tools' pipelines parse them, from a real `keel serve`
//! against the stack's services:
//!
//! * kolla-ansible: `log_dir` + `log_file = octavia-api.log` with `debug = True`, parsed by
//!   kolla's fluentd oslo.log regex (below, copied with its source). Every line of the file
//!   matches, with the right pid, level, logger name, request id and project; access lines,
//!   WARNING, ERROR and DEBUG lines are among them; `debug = True` brings no SQL driver lines
//!   (oslo's `default_log_levels`: `sqlalchemy=WARN`).
//! * openstack-helm: its default `logging.conf` (`tests/data/helm-logging.conf`) as
//!   `log_config_append`: ContextFormatter lines on stdout, Keel's `octavia` lines twice (the
//!   `octavia` logger's handler and root's), as Python's logging does with that file.
//!
//! Needs the environment of `ci/stack/env.sh` (run through `ci/test.sh`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Command;
use std::time::Duration;

use common::{Backend, Keel, LbGuard, NeutronNet, demo_token, tag, wait_for};
use regex::Regex;

use common::fluentd::{KOLLA_FIRSTLINE, KOLLA_FORMAT1};

/// `curl -i`: (status, x-openstack-request-id).
fn call(method: &str, url: &str, token: Option<&str>, body: Option<&str>) -> (u16, String) {
    let mut c = Command::new("curl");
    c.args(["-sS", "-i", "-o", "-", "-X", method]);
    if let Some(t) = token {
        c.arg("-H").arg(format!("X-Auth-Token: {t}"));
    }
    if let Some(b) = body {
        c.args(["-H", "Content-Type: application/json", "-d", b]);
    }
    let out = c.arg(url).output().unwrap();
    let head = String::from_utf8_lossy(&out.stdout).to_string();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status: {head}"));
    let id = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("x-openstack-request-id:")
                .map(|v| v.trim().to_string())
        })
        .unwrap_or_default();
    (status, id)
}

/// Requests both tests make: unauthenticated `GET /` (200), a bogus token (401), a list
/// (200), a bad body (400). Returns each (status, request id).
fn traffic(keel: &Keel) -> Vec<(u16, String)> {
    let t = demo_token();
    let u = keel.url();
    let lbs = format!("{u}/v2/lbaas/loadbalancers");
    let r = vec![
        call("GET", &format!("{u}/"), None, None),
        call("GET", &lbs, Some("bogus"), None),
        call("GET", &lbs, Some(&t), None),
        call(
            "POST",
            &lbs,
            Some(&t),
            Some(r#"{"loadbalancer": {"vip_subnet_id": 7}}"#),
        ),
    ];
    let statuses: Vec<u16> = r.iter().map(|(s, _)| *s).collect();
    assert_eq!(statuses, [200, 401, 200, 400], "{r:?}");
    r
}

/// The fields kolla's fluentd takes from one line.
#[derive(Debug)]
struct Parsed {
    pid: String,
    level: String,
    module: String,
    request_id: Option<String>,
    tenant: Option<String>,
    payload: String,
}

fn parse(re: &Regex, line: &str) -> Parsed {
    let c = re
        .captures(line)
        .unwrap_or_else(|| panic!("kolla's format1 does not match: {line}"));
    let g = |n: &str| c.name(n).map(|m| m.as_str().to_string());
    Parsed {
        pid: g("Pid").unwrap(),
        level: g("log_level").unwrap(),
        module: g("python_module").unwrap(),
        request_id: g("request_id"),
        tenant: g("tenant_id"),
        payload: g("Payload").unwrap_or_default(),
    }
}

#[test]
fn kolla_log_file_lines_parse_with_kollas_fluentd_regex() {
    let keel = Keel::start_extra(
        Backend::Sqlite,
        "[DEFAULT]\ndebug = True\nlog_dir = {dir}\nlog_file = octavia-api.log\n\
         rate_limit_interval = 5\n\
         [api_settings]\nenabled_provider_drivers = ovn:OVN provider driver,noop_driver:The Octavia noop driver\n",
    );
    let mut requests = traffic(&keel);
    // Two 501s a user causes: a provider Keel cannot load (ERROR, as Octavia's
    // driver_factory), and an option the OVN provider does not support (INFO, as
    // call_provider logs a provider's UnsupportedOptionError).
    let net = NeutronNet::create(&tag(), &[]);
    let t = demo_token();
    let lbs = format!("{}/v2/lbaas/loadbalancers", keel.url());
    requests.push(call(
        "POST",
        &lbs,
        Some(&t),
        Some(&format!(
            r#"{{"loadbalancer": {{"vip_subnet_id": "{}", "provider": "noop_driver"}}}}"#,
            net.subnet
        )),
    ));
    let lb = keel.create_lb(&t, &format!("logs-{}", tag()), &net.subnet);
    let lb_id = lb["id"].as_str().unwrap().to_string();
    let _rows = LbGuard(lb_id.clone());
    requests.push(call(
        "POST",
        &format!("{}/v2/lbaas/listeners", keel.url()),
        Some(&t),
        Some(&format!(
            r#"{{"listener": {{"loadbalancer_id": "{lb_id}", "protocol": "HTTP", "protocol_port": 80}}}}"#
        )),
    ));
    assert_eq!((requests[4].0, requests[5].0), (501, 501), "{requests:?}");
    keel.delete_lb_cascade(&t, &lb_id);
    let path = keel.dir().join("octavia-api.log");
    let last = requests.last().unwrap().1.clone();
    let text = wait_for(
        "the last request's access line",
        Duration::from_secs(20),
        || {
            let t = std::fs::read_to_string(&path).unwrap_or_default();
            t.lines()
                .any(|l| l.contains(&last) && l.contains(" status=501"))
                .then_some(t.clone())
                .ok_or(t)
        },
    );
    let first = Regex::new(KOLLA_FIRSTLINE).unwrap();
    let format1 = Regex::new(KOLLA_FORMAT1).unwrap();
    let pid = keel.pid().to_string();
    let mut levels = std::collections::BTreeSet::new();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() > 10, "{text}");
    for line in &lines {
        let p = parse(&format1, line);
        assert!(first.is_match(line), "not a first line for fluentd: {line}");
        assert!(p.pid.parse::<u32>().is_ok(), "{line}");
        assert!(
            ["DEBUG", "INFO", "WARNING", "ERROR"].contains(&p.level.as_str()),
            "{line}"
        );
        assert!(!p.module.starts_with("sqlx"), "SQL at debug: {line}");
        levels.insert(p.level);
    }
    assert_eq!(
        levels.into_iter().collect::<Vec<_>>(),
        ["DEBUG", "ERROR", "INFO", "WARNING"],
        "{text}"
    );
    // Each request's access line: its id (without `req-`), the project once authenticated.
    for (i, (status, id)) in requests.iter().enumerate() {
        let line = lines
            .iter()
            .find(|l| {
                l.contains(&format!("req-{}", &id[4..])) && l.contains(&format!(" status={status}"))
            })
            .unwrap_or_else(|| panic!("no access line for {id}: {text}"));
        let p = parse(&format1, line);
        assert_eq!(p.request_id.as_deref(), Some(&id[4..]), "{line}");
        assert_eq!(p.level, "INFO", "{line}");
        // `keel db upgrade` (before serve) writes to the same file, with its own pid.
        assert_eq!(p.pid, pid, "{line}");
        assert!(p.payload.contains(" ms="), "{line}");
        let ms = p
            .payload
            .rsplit_once(" ms=")
            .unwrap()
            .1
            .split(' ')
            .next()
            .unwrap();
        assert!(
            ms.split_once('.').is_some_and(|(_, f)| f.len() == 3),
            "milliseconds with 3 decimals: {line}"
        );
        let tenant = p.tenant.unwrap();
        if i < 2 {
            assert_eq!(tenant, "-", "unauthenticated: {line}");
        } else {
            assert!(
                tenant.len() == 32 && tenant.chars().all(|c| c.is_ascii_hexdigit()),
                "{line}"
            );
        }
    }
    let in_request = |id: &str, level: &str| {
        lines
            .iter()
            .filter(|l| l.contains(&id[4..]))
            .map(|l| parse(&format1, l))
            .any(|p| p.level == level && p.payload.contains("Provider '"))
    };
    assert!(in_request(&requests[4].1, "ERROR"), "{text}");
    assert!(in_request(&requests[5].1, "INFO"), "{text}");
    assert!(
        !lines
            .iter()
            .any(|l| l.contains(&requests[5].1[4..]) && parse(&format1, l).level == "ERROR"),
        "a user's 501 at ERROR: {text}"
    );
}

#[test]
fn helm_logging_conf_is_honoured() {
    let conf = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/helm-logging.conf");
    let keel = Keel::start_extra(
        Backend::Sqlite,
        &format!("[DEFAULT]\nlog_config_append = {conf}\ndebug = True\n"),
    );
    let requests = traffic(&keel);
    let format1 = Regex::new(KOLLA_FORMAT1).unwrap();
    let id = requests[2].1.clone();
    let log = wait_for("the list's access line", Duration::from_secs(20), || {
        let t = keel.log();
        t.contains(&id).then_some(t.clone()).ok_or(t)
    });
    let access: Vec<&str> = log
        .lines()
        .filter(|l| l.contains(&id) && l.contains(" status=200"))
        .collect();
    // `octavia`'s handler and root's: twice, as Python with this file.
    assert_eq!(access.len(), 2, "{log}");
    let time_of_day = Regex::new(r"^\d{2}:\d{2}:\d{2},\d{3}\.\d{3}$").unwrap();
    for l in &access {
        let p = parse(&format1, l);
        assert_eq!(p.level, "INFO");
        assert_eq!(p.request_id.as_deref(), Some(&id[4..]));
        // ContextFormatter without datefmt: Python's `%Y-%m-%d %H:%M:%S,mmm` then `.msecs`.
        let ts = l.split(' ').nth(1).unwrap();
        assert!(time_of_day.is_match(ts), "{l}");
    }
    // The root logger is at INFO (the file's level; `debug` does not apply with a file).
    assert!(!log.lines().any(|l| l.contains(" DEBUG ")), "{log}");
}

#[test]
fn a_logging_file_keel_cannot_honour_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("logging.conf");
    let helm = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/helm-logging.conf"
    ))
    .unwrap();
    std::fs::write(
        &bad,
        helm.replace(
            "class = logging.NullHandler",
            "class = handlers.SysLogHandler",
        ),
    )
    .unwrap();
    let conf = dir.path().join("octavia.conf");
    std::fs::write(
        &conf,
        format!(
            "[DEFAULT]\nlog_config_append = {}\n[database]\nconnection = sqlite:///{}/k.sqlite\n",
            bad.display(),
            dir.path().display()
        ),
    )
    .unwrap();
    let out = Command::new(common::keel_bin())
        .arg("--config-file")
        .arg(&conf)
        .args(["db", "upgrade"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains(&format!(
            "[DEFAULT] log_config_append: {} [handler_null] class: \"handlers.SysLogHandler\"",
            bad.display()
        )),
        "{err}"
    );
    // Refused before the database was touched.
    assert!(!dir.path().join("k.sqlite").exists());
}
