//! [`Terminator`]: one haproxy TLS terminator of `ci/stack/tls.sh` in front of the stack's
//! Keystone, Neutron and Barbican (and of a Keel's API when asked), with its own CA in a temp
//! dir and free loopback ports; stopped (`tls.sh down`, by its PID file) on drop.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::free_port;

fn tls_sh() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ci/stack/tls.sh")
}

/// A running terminator; [`Terminator::var`] gives what `tls.sh` printed (`STACK_TLS_CA`,
/// `STACK_KEYSTONE_HTTPS_URL`, `STACK_NEUTRON_HTTPS_URL`, `STACK_BARBICAN_HTTPS_URL`,
/// `STACK_LB_HTTPS_URL`).
pub struct Terminator {
    dir: tempfile::TempDir,
    ports: [u16; 4],
    lb_backend: u16,
    vars: HashMap<String, String>,
}

impl Terminator {
    fn run(&self, action: &str) -> std::process::Output {
        Self::command(self.dir.path(), self.ports, self.lb_backend, action)
    }

    fn command(dir: &Path, ports: [u16; 4], lb_backend: u16, action: &str) -> std::process::Output {
        Command::new("bash")
            .arg(tls_sh())
            .arg(action)
            .env("STACK_TLS_DIR", dir)
            .env("KEYSTONE_TLS_PORT", ports[0].to_string())
            .env("NEUTRON_TLS_PORT", ports[1].to_string())
            .env("BARBICAN_TLS_PORT", ports[2].to_string())
            .env("LB_TLS_PORT", ports[3].to_string())
            .env("CATALOG_LB_PORT", lb_backend.to_string())
            .output()
            .unwrap()
    }

    /// `tls.sh up`; `lb_backend`: the port of the Keel behind `STACK_LB_HTTPS_URL` (a closed
    /// port when the test fronts no API).
    pub fn up(lb_backend: Option<u16>) -> Terminator {
        let dir = tempfile::tempdir().unwrap();
        let ports = [free_port(), free_port(), free_port(), free_port()];
        let lb_backend = lb_backend.unwrap_or_else(free_port);
        let out = Self::command(dir.path(), ports, lb_backend, "up");
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            out.status.success(),
            "ci/stack/tls.sh up: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let vars = text
            .lines()
            .filter(|l| l.starts_with("STACK_"))
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Terminator {
            dir,
            ports,
            lb_backend,
            vars,
        }
    }

    /// A value `tls.sh` printed.
    pub fn var(&self, k: &str) -> &str {
        self.vars
            .get(k)
            .unwrap_or_else(|| panic!("tls.sh printed no {k}: {:?}", self.vars))
    }
}

impl Drop for Terminator {
    fn drop(&mut self) {
        let _ = self.run("down");
    }
}
