//! The programs the deployment tools start, answered by the one `keel` binary under their
//! names (`argv[0]`: a symlink written by `keel links DIR`, or the image's `/usr/bin/<name>`):
//!
//! | name | stands for | runs |
//! |---|---|---|
//! | `uwsgi` | uWSGI serving `octavia.wsgi.api:application` | `keel serve` on the ini's listeners ([`uwsgi`]) |
//! | `httpd` | Apache with mod_wsgi serving `octavia-wsgi` (RHOSO's octavia-operator) | `keel serve` on the configuration's `Listen`s ([`httpd`]) |
//! | `octavia-api` | `octavia.cmd.api:main` | `keel serve` on `[api_settings] bind_host:bind_port` |
//! | `octavia-driver-agent` | Octavia's driver agent running ovn-octavia-provider's agent | the OVN provider agent only, under the same NB lock as `keel serve`'s |
//! | `octavia-db-manage` | octavia/db/migration/cli.py | [`db_manage`] |
//! | `octavia-ovn-db-sync-util` | ovn_octavia_provider/cmd/octavia_ovn_db_sync_util.py | `keel ovn-db-sync` for every `ovn` load balancer |
//!
//! Each reads its command line as oslo.config does ([`oslo_cli`]) — with no `--config-file`,
//! oslo's default files for project `octavia` — and exits as the reference: 2 for a command
//! line argparse rejects, 1 for an error, 0 otherwise.

pub mod db_manage;
pub mod listen;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use compat::{httpd, oslo_cli, uwsgi};

/// This binary's release and commit, for `uwsgi --version` and `httpd -v`.
const BUILD: compat::Build = compat::Build {
    version: env!("CARGO_PKG_VERSION"),
    commit: env!("KEEL_COMMIT"),
};

/// The names `keel links` writes, each dispatched on by [`dispatch`].
pub const PROGRAMS: &[&str] = &[
    "uwsgi",
    "httpd",
    "octavia-api",
    "octavia-db-manage",
    "octavia-ovn-db-sync-util",
    "octavia-driver-agent",
];

/// How the API is served: listeners (none: `[api_settings] bind_host:bind_port`), extra
/// response headers, pidfiles, and the uWSGI options or httpd directives that had no effect
/// (logged at start-up).
#[derive(Debug, Clone, Default)]
pub struct ServeOptions {
    /// From uWSGI's `http`/`https` lines or httpd's `Listen`s.
    pub listen: Vec<uwsgi::Listen>,
    /// uWSGI's `add-header`.
    pub headers: Vec<(String, String)>,
    /// uWSGI's `pidfile`s, httpd's `PidFile`: written once every listener is bound.
    pub pidfiles: Vec<PathBuf>,
    /// `(origin, option, reason)` of ignored options.
    pub ignored: Vec<(String, String, &'static str)>,
    /// The program whose options those are (`uwsgi`, `httpd`), for the log line.
    pub tool: &'static str,
}

impl ServeOptions {
    /// The listeners to bind: the uWSGI ones, else `bind_host:bind_port` (plain HTTP).
    pub fn listeners(&self, bind_host: &str, bind_port: u16) -> Vec<uwsgi::Listen> {
        if self.listen.is_empty() {
            let host = if bind_host.contains(':') && !bind_host.starts_with('[') {
                format!("[{bind_host}]")
            } else {
                bind_host.to_string()
            };
            vec![uwsgi::Listen {
                addr: format!("{host}:{bind_port}"),
                tls: None,
                sni: Vec::new(),
            }]
        } else {
            self.listen.clone()
        }
    }

    /// Logs each ignored uWSGI option once (after logging is set up).
    pub fn log_ignored(&self) {
        for (origin, key, reason) in &self.ignored {
            tracing::warn!(tool = self.tool, %origin, option = %key, reason, "{} option ignored", self.tool);
        }
    }

    /// `app` with the `add-header` headers on every response. Errors: a header name or value
    /// HTTP does not allow.
    pub fn wrap(&self, app: axum::Router) -> anyhow::Result<axum::Router> {
        use axum::http::{HeaderName, HeaderValue};
        if self.headers.is_empty() {
            return Ok(app);
        }
        let mut hs = Vec::new();
        for (n, v) in &self.headers {
            let name = HeaderName::try_from(n.as_str())
                .map_err(|e| anyhow::anyhow!("uwsgi add-header {n:?}: {e}"))?;
            let value = HeaderValue::try_from(v.as_str())
                .map_err(|e| anyhow::anyhow!("uwsgi add-header {n}: {v:?}: {e}"))?;
            hs.push((name, value));
        }
        let hs = std::sync::Arc::new(hs);
        Ok(app.layer(axum::middleware::map_response(
            move |mut r: axum::response::Response| {
                let hs = hs.clone();
                async move {
                    for (n, v) in hs.iter() {
                        r.headers_mut().insert(n.clone(), v.clone());
                    }
                    r
                }
            },
        )))
    }

    /// Writes Keel's PID into every pidfile. Errors name the file.
    pub fn write_pidfiles(&self) -> anyhow::Result<()> {
        for p in &self.pidfiles {
            std::fs::write(p, format!("{}\n", std::process::id()))
                .map_err(|e| anyhow::anyhow!("{} pidfile {}: {e}", self.tool, p.display()))?;
        }
        Ok(())
    }
}

/// What a program name asks Keel to do.
#[derive(Debug)]
pub enum Job {
    /// The API, the provider and (per `[keel] run_agent`) the agent, as `keel serve`.
    Serve(ServeOptions),
    /// The OVN provider agent alone.
    DriverAgent,
    /// An `octavia-db-manage` command.
    Db(db_manage::DbCommand),
    /// `octavia-ovn-db-sync-util`: sync every `ovn` load balancer.
    OvnDbSync,
}

/// A program invocation Keel runs.
#[derive(Debug)]
pub struct Invocation {
    /// The reference program's name (oslo.log's binary name for `log_dir` alone).
    pub binary: &'static str,
    /// Configuration locations and command-line overrides.
    pub oslo: oslo_cli::OsloArgs,
    /// What to run.
    pub job: Job,
}

/// [`dispatch`]'s answer.
// one value per process, moved once: boxing the large variant buys nothing
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Dispatch {
    /// `argv[0]` is not one of [`PROGRAMS`]: Keel's own command line.
    Keel,
    /// Run this.
    Run(Invocation),
    /// Done (help, version, a refused command line, a control command): exit with this.
    Exit(i32),
}

fn usage_exit(msg: &str, code: i32) -> Dispatch {
    eprintln!("{msg}");
    Dispatch::Exit(code)
}

/// Dispatches on the base name of `argv[0]`.
pub fn dispatch(argv: &[OsString]) -> Dispatch {
    let name = argv
        .first()
        .map(Path::new)
        .and_then(Path::file_name)
        .and_then(|n| n.to_str())
        .unwrap_or("");
    let Some(&prog) = PROGRAMS.iter().find(|p| **p == name) else {
        return Dispatch::Keel;
    };
    let args: Vec<String> = argv[1..]
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    if prog == "uwsgi" {
        return uwsgi_dispatch(&args, home.as_deref());
    }
    if prog == "httpd" {
        return httpd_dispatch(&args, home.as_deref());
    }
    let oslo = match oslo_cli::parse(prog, &args, home.as_deref()) {
        Ok(o) => o,
        Err(e) => return usage_exit(&e.to_string(), 2),
    };
    if oslo.version {
        println!(
            "{prog} {} (Keel, commit {})",
            env!("CARGO_PKG_VERSION"),
            env!("KEEL_COMMIT")
        );
        return Dispatch::Exit(0);
    }
    if oslo.help {
        println!(
            "usage: {prog} [--config-file PATH] [--config-dir DIR] [--debug] [--log-file PATH] \
             [--log-dir DIR] [--use-json]{}\n\n{prog} run by Keel (see docs/deploy/).",
            if prog == "octavia-db-manage" {
                " {upgrade head,upgrade_persistence,current,history,check_migration}"
            } else {
                ""
            }
        );
        return Dispatch::Exit(0);
    }
    let (binary, job) = match prog {
        "octavia-db-manage" => match db_manage::parse(&oslo.rest) {
            Ok(c) => ("octavia-db-manage", Job::Db(c)),
            Err((code, msg)) => return usage_exit(&msg, code),
        },
        _ if !oslo.rest.is_empty() => {
            return usage_exit(
                &format!(
                    "{prog}: error: unrecognized arguments: {}",
                    oslo.rest.join(" ")
                ),
                2,
            );
        }
        "octavia-api" => ("octavia-api", Job::Serve(ServeOptions::default())),
        "octavia-driver-agent" => ("octavia-driver-agent", Job::DriverAgent),
        _ => ("octavia-ovn-db-sync-util", Job::OvnDbSync),
    };
    let mut oslo = oslo;
    if matches!(job, Job::OvnDbSync) {
        // The reference overrides `debug` from its own argv: True with `--debug`, else False
        // (whatever the files say).
        let debug = args.iter().any(|a| a == "--debug");
        oslo.overrides.retain(|(k, _)| k != "debug");
        oslo.overrides
            .push(("debug".into(), if debug { "True" } else { "False" }.into()));
    }
    Dispatch::Run(Invocation { binary, oslo, job })
}

fn uwsgi_dispatch(args: &[String], home: Option<&Path>) -> Dispatch {
    let plan = match uwsgi::parse(args, &BUILD) {
        Ok(uwsgi::Request::Serve(plan)) => plan,
        Ok(uwsgi::Request::Print(text)) => {
            print!("{text}");
            return Dispatch::Exit(0);
        }
        Ok(uwsgi::Request::Signal { pidfile, signal }) => {
            return signal_pidfile("uwsgi", &pidfile, signal);
        }
        Err(e) => return usage_exit(&e.to_string(), 1),
    };
    if let Some(dir) = &plan.chdir
        && let Err(e) = std::env::set_current_dir(dir)
    {
        return usage_exit(&format!("uwsgi chdir {}: {e}", dir.display()), 1);
    }
    // Octavia's WSGI module parses the interpreter's argv (`pyargv`) with oslo.config, its
    // program name being `uwsgi`.
    let oslo = match oslo_cli::parse("uwsgi", &plan.pyargv, home) {
        Ok(o) if o.rest.is_empty() => o,
        Ok(o) => {
            return usage_exit(
                &format!(
                    "uwsgi: pyargv: unrecognized arguments: {}",
                    o.rest.join(" ")
                ),
                1,
            );
        }
        Err(e) => return usage_exit(&e.to_string(), 1),
    };
    Dispatch::Run(Invocation {
        binary: "octavia-api",
        oslo,
        job: Job::Serve(ServeOptions {
            listen: plan.listen,
            headers: plan.headers,
            pidfiles: plan.pidfiles,
            ignored: plan.ignored,
            tool: "uwsgi",
        }),
    })
}

/// `httpd …`: the configuration's listeners; the WSGI application reads oslo's default
/// files with no command line, as octavia/api/app.py `setup_app` under mod_wsgi, whose
/// `sys.argv` is `['mod_wsgi']` (so oslo's program name, for `<prog>.conf`, is `mod_wsgi`).
fn httpd_dispatch(args: &[String], home: Option<&Path>) -> Dispatch {
    let plan = match httpd::parse(args, &BUILD) {
        Ok(httpd::Request::Serve(plan)) => plan,
        Ok(httpd::Request::Print { text, stderr }) => {
            if stderr {
                eprint!("{text}");
            } else {
                print!("{text}");
            }
            return Dispatch::Exit(0);
        }
        Ok(httpd::Request::Signal { pidfile, signal }) => {
            return signal_pidfile("httpd", &pidfile, signal);
        }
        Err(e) => return usage_exit(&e.to_string(), 1),
    };
    let oslo = match oslo_cli::parse("mod_wsgi", &[], home) {
        Ok(o) => o,
        Err(e) => return usage_exit(&e.to_string(), 1),
    };
    Dispatch::Run(Invocation {
        binary: "octavia-api",
        oslo,
        job: Job::Serve(ServeOptions {
            listen: plan.listen,
            headers: Vec::new(),
            pidfiles: plan.pidfile.into_iter().collect(),
            ignored: plan.ignored,
            tool: "httpd",
        }),
    })
}

/// `uwsgi --reload|--stop PIDFILE`, `httpd -k …`: the signal to the PID in the file
/// (`kill -s`).
fn signal_pidfile(tool: &str, pidfile: &Path, signal: &str) -> Dispatch {
    let pid = match std::fs::read_to_string(pidfile) {
        Ok(t) => t.trim().to_string(),
        Err(e) => return usage_exit(&format!("{tool}: {}: {e}", pidfile.display()), 1),
    };
    if pid.parse::<u32>().is_err() {
        return usage_exit(&format!("{tool}: {}: no PID in it", pidfile.display()), 1);
    }
    match std::process::Command::new("kill")
        .args(["-s", signal, &pid])
        .status()
    {
        Ok(s) if s.success() => Dispatch::Exit(0),
        Ok(_) => Dispatch::Exit(1),
        Err(e) => usage_exit(&format!("{tool}: kill: {e}"), 1),
    }
}

/// `keel links DIR`: a symlink `DIR/<name>` → this executable for each of [`PROGRAMS`].
/// Idempotent (an existing symlink is replaced); a regular file of that name (a real uWSGI)
/// is never overwritten: error naming it. Returns the links written.
pub fn write_links(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let exe = std::env::current_exe()?;
    std::fs::create_dir_all(dir)?;
    let mut out = Vec::new();
    for name in PROGRAMS {
        let link = dir.join(name);
        match std::fs::symlink_metadata(&link) {
            Ok(m) if m.file_type().is_symlink() => std::fs::remove_file(&link)?,
            Ok(_) => anyhow::bail!(
                "{} exists and is not a symlink: not replaced (remove it to let Keel answer as {name})",
                link.display()
            ),
            Err(_) => {}
        }
        std::os::unix::fs::symlink(&exe, &link)
            .map_err(|e| anyhow::anyhow!("{}: {e}", link.display()))?;
        out.push(link);
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    fn run(argv: &[&str]) -> Dispatch {
        dispatch(&argv.iter().map(OsString::from).collect::<Vec<_>>())
    }

    #[test]
    fn names_dispatch_and_keel_stays_keel() {
        assert!(matches!(run(&["/usr/bin/keel", "serve"]), Dispatch::Keel));
        assert!(matches!(
            run(&["octavia-api", "--bogus"]),
            Dispatch::Exit(2)
        ));
        assert!(matches!(
            run(&["octavia-db-manage", "nonsense"]),
            Dispatch::Exit(2)
        ));
        match run(&["/x/octavia-db-manage", "upgrade", "head"]) {
            Dispatch::Run(i) => {
                assert!(matches!(i.job, Job::Db(db_manage::DbCommand::UpgradeHead)))
            }
            other => panic!("{other:?}"),
        }
        match run(&["octavia-ovn-db-sync-util"]) {
            Dispatch::Run(i) => {
                assert_eq!(
                    i.oslo.overrides,
                    [("debug".to_string(), "False".to_string())]
                )
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn links_are_idempotent_and_spare_real_files() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(write_links(d.path()).unwrap().len(), PROGRAMS.len());
        assert_eq!(write_links(d.path()).unwrap().len(), PROGRAMS.len());
        std::fs::remove_file(d.path().join("uwsgi")).unwrap();
        std::fs::write(d.path().join("uwsgi"), "#!/bin/sh\n").unwrap();
        assert!(
            write_links(d.path())
                .unwrap_err()
                .to_string()
                .contains("not a symlink")
        );
    }

    #[test]
    fn default_listener_from_bind_settings() {
        let o = ServeOptions::default();
        assert_eq!(o.listeners("::1", 9876)[0].addr, "[::1]:9876");
        assert_eq!(o.listeners("127.0.0.1", 9876)[0].addr, "127.0.0.1:9876");
    }
}
