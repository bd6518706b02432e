//! `[oslo_policy] policy_file`: a file that does not parse stops `keel serve` at startup with
//! a message naming the file and the rule (before any connection is attempted).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

#[test]
fn a_bad_policy_file_stops_startup() {
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("octavia.conf");
    std::fs::write(
        &conf,
        "[api_settings]\nbind_host = 127.0.0.1\nbind_port = 1\n\
         [database]\nconnection = sqlite:///nonexistent-dir/never-used.sqlite\n\
         [oslo_policy]\npolicy_file = my-policy.yaml\n",
    )
    .unwrap();
    // relative to the config file's directory, as oslo.config finds it
    std::fs::write(
        dir.path().join("my-policy.yaml"),
        "\"os_load-balancer_api:loadbalancer:get_one\": \"role:admin or\"\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_keel"))
        .arg("--config-file")
        .arg(&conf)
        .arg("serve")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("[oslo_policy]"), "{err}");
    assert!(err.contains("my-policy.yaml"), "{err}");
    assert!(
        err.contains("os_load-balancer_api:loadbalancer:get_one"),
        "{err}"
    );
}
