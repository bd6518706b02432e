//! What an operator watches: with `[DEFAULT] use_json = True` and a `log_file`, one listener
//! create's `x-openstack-request-id` is found on the API's access line, on the provider job's
//! line and on the status-report line (the job runs in the request's span); a client's own
//! `X-Openstack-Request-Id` is kept as `global_request_id`; with `enable_proxy_headers_parsing`
//! the access line's `remote_addr` is the client a proxy named in `X-Forwarded-For`, and the
//! TCP peer (`127.0.0.1`) for a request without it. The Prometheus endpoint of
//! `[keel] metrics_listen` shows the counters moved by that create, and the NB error / retry
//! counters from the first scrape on.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Command;
use std::time::Duration;

use common::{Backend, Keel, LbGuard, NeutronNet, demo_token, free_port, tag, wait_for};
use serde_json::{Value, json};

fn curl(args: &[&str]) -> String {
    let out = Command::new("curl")
        .args(["-sS"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "curl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// The `x-openstack-request-id` of a `curl -i` answer.
fn request_id(head: &str) -> String {
    head.lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("x-openstack-request-id:")
                .map(|v| v.trim().to_string())
        })
        .unwrap()
}

/// The value of `name{labels…}` in a Prometheus text exposition (0 when absent).
fn sample(text: &str, name: &str, labels: &[&str]) -> f64 {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter(|l| l.starts_with(name) && l[name.len()..].starts_with(['{', ' ']))
        .filter(|l| labels.iter().all(|x| l.contains(x)))
        .filter_map(|l| l.rsplit_once(' ').and_then(|(_, v)| v.parse::<f64>().ok()))
        .sum()
}

#[test]
fn json_log_lines_carry_the_request_id_and_metrics_move() {
    let tag = tag();
    let net = NeutronNet::create(&tag, &[]);
    let metrics_port = free_port();
    let keel = Keel::start_extra(
        Backend::Sqlite,
        &format!(
            "[DEFAULT]\nuse_json = True\nlog_file = {{dir}}/keel.json\n\
             [oslo_middleware]\nenable_proxy_headers_parsing = True\n\
             [keel]\nmetrics_listen = 127.0.0.1:{metrics_port}\n"
        ),
    );
    let metrics_url = format!("http://127.0.0.1:{metrics_port}/metrics");
    let t = demo_token();
    let lb = keel.create_lb(&t, &format!("obs-{tag}"), &net.subnet);
    let lb_id = lb["id"].as_str().unwrap().to_string();
    let _rows = LbGuard(lb_id.clone());
    let before = curl(&[&metrics_url]);

    let global = format!("req-{}", uuid::Uuid::new_v4());
    let body =
        json!({"listener": {"loadbalancer_id": lb_id, "protocol": "TCP", "protocol_port": 80}});
    let head = curl(&[
        "-i",
        "-X",
        "POST",
        "-H",
        &format!("X-Auth-Token: {t}"),
        "-H",
        "Content-Type: application/json",
        "-H",
        &format!("X-Openstack-Request-Id: {global}"),
        "-H",
        "X-Forwarded-For: 192.0.2.44",
        "-d",
        &body.to_string(),
        &format!("{}/v2/lbaas/listeners", keel.url()),
    ]);
    assert!(head.starts_with("HTTP/1.1 201"), "{head}");
    let id = request_id(&head);
    assert_ne!(id, global, "the response carries Keel's own id");
    keel.wait_lb_active(&t, &lb_id);

    let log_path = keel.dir().join("keel.json");
    let lines: Vec<Value> = wait_for(
        "the request's three log lines",
        Duration::from_secs(20),
        || {
            let text = std::fs::read_to_string(&log_path).unwrap_or_default();
            let mine: Vec<Value> = text
                .lines()
                .map(|l| {
                    serde_json::from_str::<Value>(l)
                        .unwrap_or_else(|e| panic!("not JSON ({e}): {l}"))
                })
                .filter(|v| v["request_id"] == id.as_str())
                .collect();
            let has = |m: &str| mine.iter().any(|v| v["message"] == m);
            if has("request") && has("provider job done") && has("status report applied") {
                Ok(mine)
            } else {
                Err(format!("{mine:?}"))
            }
        },
    );
    let find = |m: &str| lines.iter().find(|v| v["message"] == m).unwrap().clone();
    let api = find("request");
    assert_eq!(
        (
            api["method"].as_str(),
            api["path"].as_str(),
            api["status"].as_u64()
        ),
        (Some("POST"), Some("/v2/lbaas/listeners"), Some(201)),
        "{api}"
    );
    assert_eq!(api["global_request_id"], global.as_str(), "{api}");
    assert_eq!(api["remote_addr"], "192.0.2.44", "{api}");
    assert_eq!(api["lb_id"], lb_id.as_str(), "{api}");
    assert!(
        api["project_id"].as_str().is_some_and(|p| !p.is_empty()),
        "{api}"
    );
    let job = find("provider job done");
    assert_eq!(
        (job["kind"].as_str(), job["lb_id"].as_str()),
        (Some("ListenerCreate"), Some(lb_id.as_str())),
        "{job}"
    );
    assert_eq!(find("status report applied")["lb_id"], lb_id.as_str());
    // Without a proxy header the access line names the TCP peer.
    let plain = request_id(&curl(&["-i", &format!("{}/", keel.url())]));
    let line = wait_for("GET /'s access line", Duration::from_secs(20), || {
        std::fs::read_to_string(&log_path)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|v| v["request_id"] == plain.as_str() && v["message"] == "request")
            .ok_or_else(|| "not yet".to_string())
    });
    assert_eq!(
        (line["path"].as_str(), line["remote_addr"].as_str()),
        (Some("/"), Some("127.0.0.1")),
        "{line}"
    );
    let text = std::fs::read_to_string(&log_path).unwrap();
    assert!(!text.contains('\x1b'), "no ANSI escapes in the file");

    // The metrics moved by exactly this create.
    let after = curl(&[&metrics_url]);
    let moved =
        |name: &str, labels: &[&str]| sample(&after, name, labels) - sample(&before, name, labels);
    let route = [
        "route=\"/v2/lbaas/listeners\"",
        "method=\"POST\"",
        "status=\"201\"",
    ];
    assert_eq!(moved("keel_api_requests_total", &route), 1.0, "{after}");
    assert_eq!(
        moved("keel_api_request_duration_seconds_count", &route),
        1.0,
        "{after}"
    );
    assert_eq!(
        moved("keel_provider_jobs_total", &["kind=\"ListenerCreate\""]),
        1.0,
        "{after}"
    );
    assert_eq!(
        moved(
            "keel_provider_job_duration_seconds_count",
            &["kind=\"ListenerCreate\""]
        ),
        1.0,
        "{after}"
    );
    assert!(
        moved("keel_status_reports_total", &["result=\"applied\""]) >= 1.0,
        "{after}"
    );
    assert!(
        moved("keel_nb_transaction_duration_seconds_count", &[]) >= 1.0,
        "{after}"
    );
    assert!(moved("keel_token_cache_total", &[]) >= 1.0, "{after}");
    // where its time went: the stages, the provider job's among them, under its route
    let stage = |s: &str| {
        let label = format!("stage=\"{s}\"");
        moved(
            "keel_stage_duration_seconds_count",
            &["route=\"/v2/lbaas/listeners\"", label.as_str()],
        )
    };
    assert_eq!(stage("nb_transaction"), 1.0, "{after}");
    assert_eq!(stage("status_write"), 1.0, "{after}");
    assert_eq!(stage("job_wait"), 1.0, "{after}");
    assert!(stage("db_commit") >= 2.0, "{after}");
    assert!(stage("db_statement") >= 2.0, "{after}");
    // Neutron's round trips are stages too: the LB create's VIP port under its route; a
    // listener create asks Neutron nothing
    let lb_route = "route=\"/v2/lbaas/loadbalancers\"";
    let neutron = "stage=\"neutron_request\"";
    let lb_neutron = sample(
        &before,
        "keel_stage_duration_seconds_count",
        &[lb_route, neutron],
    );
    assert!(lb_neutron >= 1.0, "{before}");
    assert_eq!(stage("neutron_request"), 0.0, "{after}");
    // exposed from the first scrape, before any failure or retry happened
    for series in [
        "keel_nb_transaction_errors_total ",
        "keel_nb_transaction_retries_total ",
    ] {
        assert!(
            before.lines().any(|l| l.starts_with(series)),
            "{series}: {before}"
        );
    }
    assert_eq!(sample(&after, "keel_agent_lock_held", &[]), 1.0, "{after}");
    assert!(
        sample(&after, "keel_db_pool_connections", &[]) >= 1.0,
        "{after}"
    );
    assert_eq!(
        sample(&after, "keel_provider_jobs_pending", &[]),
        0.0,
        "{after}"
    );
    keel.delete_lb_cascade(&t, &lb_id);
}
