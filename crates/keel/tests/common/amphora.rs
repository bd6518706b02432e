//! The amphora provider's end-to-end helpers (`amphora.rs`, `amphora_faults.rs`): a Keel on
//! the Python `octavia-worker`'s database casting to a given `transport_url`, polling an
//! object until the worker wrote the status awaited, and `rabbitmqctl` against the stack's
//! node.

use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use super::{Backend, Keel, env, wait_for};

/// `octavia.conf` text beside the harness's: both providers, amphora the default (as kolla's
/// rendered file leaves it), `network_driver`, the noop compute, image and volume drivers of
/// upstream's noop job (this stack has no Nova, Glance nor Cinder unless `STACK_COMPUTE=1`;
/// `compute_checks.rs` tests the real ones), no OVN agent.
pub fn amphora_conf(transport_url: &str, network_driver: &str) -> String {
    format!(
        "[DEFAULT]\ntransport_url = {transport_url}\n\
         [api_settings]\nenabled_provider_drivers = amphora:The Octavia Amphora driver.,ovn:OVN provider driver\n\
         default_provider_driver = amphora\n\
         [controller_worker]\nnetwork_driver = {network_driver}\n\
         compute_driver = compute_noop_driver\nimage_driver = image_noop_driver\n\
         volume_driver = volume_noop_driver\n\
         [keel]\nrun_agent = false\nrpc_cast_timeout = 3\n"
    )
}

/// A Keel on the worker's database (`STACK_WORKER_DB`) with `extra` as its second config file.
pub fn keel_on_worker_db(extra: &str) -> Keel {
    // the worker reads what Keel writes: one database for both
    // (its URL without the `?charset=` query: the harness reads the database name off the end)
    let url = env("STACK_WORKER_DB");
    let url = url.split('?').next().unwrap_or_default().to_string();
    Keel::start_extra(Backend::Shared(url), extra)
}

/// Polls `GET path` until `key`'s `provisioning_status` is `want` (60 s: the worker's flows
/// take 0.3–2 s each here); panics on ERROR.
pub fn wait_status(keel: &Keel, token: &str, path: &str, key: &str, want: &str) -> Value {
    wait_for(&format!("{path} {want}"), Duration::from_secs(60), || {
        let (code, body) = keel.api("GET", path, token, None);
        let obj = &body[key];
        match (code, obj["provisioning_status"].as_str()) {
            (200, Some(s)) if s == want => Ok(obj.clone()),
            (200, Some("ERROR")) if want != "ERROR" => panic!("{path} went ERROR: {obj}"),
            _ => Err(format!("{code} {body}")),
        }
    })
}

/// Polls until `GET path` answers 404 (the worker marked the object DELETED).
pub fn wait_gone(keel: &Keel, token: &str, path: &str) {
    wait_for(&format!("{path} gone"), Duration::from_secs(60), || {
        let (code, body) = keel.api("GET", path, token, None);
        if code == 404 {
            Ok(())
        } else {
            Err(format!("{code} {body}"))
        }
    });
}

/// `POST path` of `body`, expecting 201; the created object (the body's single top-level value).
pub fn post(keel: &Keel, token: &str, path: &str, body: Value) -> Value {
    let (code, out) = keel.api("POST", path, token, Some(&body));
    assert_eq!(code, 201, "POST {path} {body}: {out}");
    out.as_object()
        .and_then(|o| o.values().next().cloned())
        .unwrap()
}

/// Runs `cmd` (a command line: program and leading arguments, e.g. `STACK_RABBITMQCTL`) with
/// `args` appended; its stdout. Panics with both outputs when it fails.
pub fn run_ctl(cmd: &[String], args: &[&str]) -> String {
    let out = Command::new(&cmd[0])
        .args(&cmd[1..])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{cmd:?} {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `rabbitmqctl` against the stack's node (`STACK_RABBITMQCTL`, a command line); its stdout.
pub fn rabbitmqctl(args: &[&str]) -> String {
    let cmd: Vec<String> = env("STACK_RABBITMQCTL")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    run_ctl(&cmd, args)
}
