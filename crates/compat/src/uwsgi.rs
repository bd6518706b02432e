//! `uwsgi …` as the deployment tools start Octavia's API: `uwsgi /etc/octavia/octavia-api-uwsgi.ini`
//! (kolla-ansible), `uwsgi --ini /etc/octavia/octavia-api-uwsgi.ini` (openstack-helm),
//! `uwsgi --autoload --ini /etc/uwsgi/octavia-api.ini` (OpenStack-Ansible), and
//! `uwsgi --reload|--stop <pidfile>` (OSA's `ExecReload`).
//!
//! The ini is read as uWSGI reads it (`[uwsgi]` or the section of `file.ini:section`;
//! `key = value`; `#`/`;` comment lines; a key may repeat) and every option is sorted by
//! [`option`]: honoured (the listeners `http`, `http-socket`, `https`, `https-socket`; `chdir`,
//! `pidfile`, `add-header`, `uid`/`gid` checked against the running user, `pyargv` read as the
//! application's command line), accepted because Keel already behaves so (`master`,
//! `processes`, `threads`, `die-on-term`, the chunked-body switches…), ignored and named at
//! start-up with the reason (`stats`, `logto2`, `socket-timeout`…), or refused naming file,
//! section and key (`socket`/`uwsgi-socket`: Keel speaks HTTP only; a `module`/`wsgi-file`
//! that is not Octavia's API; any option this table does not know). Option names are uWSGI's
//! (`uwsgi --help`); `_` is read as `-`.
//!
//! ```
//! use compat::Build;
//! use compat::uwsgi::{Request, parse};
//!
//! let build = Build { version: "0.1.0", commit: "afeb6d9" };
//! let args: Vec<String> = ["--http-socket", ":9876", "--master", "--processes=2"]
//!     .iter()
//!     .map(|s| s.to_string())
//!     .collect();
//! let Ok(Request::Serve(plan)) = parse(&args, &build) else { panic!("not served") };
//! assert_eq!(plan.listen.len(), 1);
//! // a uwsgi-protocol socket is refused: Keel speaks HTTP only
//! let args = ["--socket".to_string(), "127.0.0.1:3031".to_string()];
//! assert!(parse(&args, &build).is_err());
//! ```

use std::path::{Path, PathBuf};

use crate::Build;

/// Where an option came from, for errors: `FILE [section]` or `command line`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The ini file, or `None` for the command line.
    pub file: Option<PathBuf>,
    /// The ini section read.
    pub section: String,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.file {
            Some(p) => write!(f, "{} [{}]", p.display(), self.section),
            None => write!(f, "command line"),
        }
    }
}

/// An option Keel cannot honour, or an ini that does not read.
#[derive(Debug, thiserror::Error)]
pub enum UwsgiError {
    /// `FILE [section] key: why`.
    #[error("{origin} {key}: {why}")]
    Option {
        /// Where it was set.
        origin: Origin,
        /// The option as written.
        key: String,
        /// Why Keel refuses it.
        why: String,
    },
    /// The file cannot be read, or has no such section, or a line does not parse.
    #[error("uwsgi config {path}: {why}")]
    File {
        /// The file.
        path: String,
        /// What is wrong.
        why: String,
    },
    /// A command line uWSGI would not take either.
    #[error("uwsgi: {0}")]
    Usage(String),
}

/// One listener: `host:port` (uWSGI's `:9876` = every IPv4 address), with TLS files for
/// `https`/`https-socket`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listen {
    /// `host:port` to bind (`[v6]:port` kept bracketed).
    pub addr: String,
    /// `(certificate, key)` PEM files: the default pair.
    pub tls: Option<(PathBuf, PathBuf)>,
    /// Further pairs chosen by the client's SNI name (httpd's name-based TLS VirtualHosts);
    /// a name not here, or none, gets [`Listen::tls`].
    pub sni: Vec<SniCert>,
}

/// A certificate and key served to clients asking for `name` by SNI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SniCert {
    /// The server name, lower-case.
    pub name: String,
    /// PEM certificate chain.
    pub cert: PathBuf,
    /// PEM private key.
    pub key: PathBuf,
}

/// What the ini and command line ask of the API server.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// Every `http`/`http-socket`/`https`/`https-socket`, in order.
    pub listen: Vec<Listen>,
    /// `pidfile`, `safe-pidfile` (and the `2` forms): written with Keel's PID once bound.
    pub pidfiles: Vec<PathBuf>,
    /// `chdir`.
    pub chdir: Option<PathBuf>,
    /// `add-header = Name: value`, added to every response.
    pub headers: Vec<(String, String)>,
    /// `pyargv`: the application's own command line (oslo.config options).
    pub pyargv: Vec<String>,
    /// Options set but without effect in Keel: `(origin, key, reason)`, logged at start-up.
    pub ignored: Vec<(String, String, &'static str)>,
}

/// What `uwsgi <args>` asks for.
#[derive(Debug)]
pub enum Request {
    /// Serve the API as `plan` says.
    Serve(Plan),
    /// `--reload PIDFILE` (SIGHUP) or `--stop PIDFILE` (SIGINT) to the process in the file.
    Signal {
        /// The pidfile.
        pidfile: PathBuf,
        /// `HUP` or `INT` (`kill -s` names).
        signal: &'static str,
    },
    /// `--version` / `--help`: print this and exit 0.
    Print(String),
}

/// Options that take no value on uWSGI's command line (`--master`), unless written `--x=v`.
const FLAGS: &[&str] = &[
    "master",
    "die-on-term",
    "enable-threads",
    "lazy-apps",
    "lazy",
    "thunder-lock",
    "need-app",
    "vacuum",
    "strict",
    "autoload",
    "exit-on-reload",
    "http-auto-chunked",
    "http-chunked-input",
    "http-raw-body",
    "ignore-sigpipe",
    "ignore-write-errors",
    "disable-write-exception",
    "disable-logging",
    "log-x-forwarded-for",
    "stats-http",
    "single-interpreter",
    "memory-report",
    "auto-procname",
];

/// Parses `uwsgi`'s arguments (without the program name): `FILE.ini[:section]` positional,
/// `--ini FILE[:section]`, `--ini-paste FILE`, `--key value`, `--key=value`, `--flag`.
/// Errors: an option Keel cannot honour ([`UwsgiError::Option`]), an unreadable ini, or a
/// command line without any listener.
pub fn parse(args: &[String], build: &Build) -> Result<Request, UwsgiError> {
    let mut plan = Plan::default();
    let cli = Origin {
        file: None,
        section: "uwsgi".into(),
    };
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        let Some(opt) = a.strip_prefix("--") else {
            if a.starts_with('-') {
                return Err(UwsgiError::Usage(format!("unrecognized option {a:?}")));
            }
            read_config_file(a, false, &mut plan)?;
            continue;
        };
        let (key, inline) = match opt.split_once('=') {
            Some((k, v)) => (k.replace('_', "-"), Some(v.to_string())),
            None => (opt.replace('_', "-"), None),
        };
        let value = |i: &mut usize| -> Result<String, UwsgiError> {
            if let Some(v) = &inline {
                return Ok(v.clone());
            }
            if FLAGS.contains(&key.as_str()) {
                return Ok("true".into());
            }
            // uWSGI's flags take no value; an option without one is read as a flag too
            match args.get(*i) {
                Some(v) if !v.starts_with('-') => {
                    *i += 1;
                    Ok(v.clone())
                }
                _ => Ok("true".into()),
            }
        };
        match key.as_str() {
            "version" => {
                return Ok(Request::Print(format!(
                    "{} (Keel {}, uWSGI-compatible entry point)\n",
                    build.version, build.commit
                )));
            }
            "help" => return Ok(Request::Print(HELP.into())),
            "ini" => read_config_file(&value(&mut i)?, false, &mut plan)?,
            "ini-paste" => read_config_file(&value(&mut i)?, true, &mut plan)?,
            "reload" | "stop" => {
                return Ok(Request::Signal {
                    pidfile: PathBuf::from(value(&mut i)?),
                    signal: if key == "reload" { "HUP" } else { "INT" },
                });
            }
            _ => {
                let v = value(&mut i)?;
                option(&cli, &key, &v, &mut plan)?;
            }
        }
    }
    if plan.listen.is_empty() {
        return Err(UwsgiError::Usage(
            "no http, http-socket, https or https-socket: Keel would serve nothing".into(),
        ));
    }
    Ok(Request::Serve(plan))
}

const HELP: &str = "usage: uwsgi [FILE.ini[:section]] [--ini FILE[:section]] [--ini-paste FILE] \
[--OPTION VALUE]...\n       uwsgi --reload|--stop PIDFILE\n\nKeel's uWSGI-compatible entry point: \
serves Octavia's API from the ini's http/http-socket/https lines.\nSee docs/deploy/ for the \
options honoured, ignored and refused.\n";

/// Reads `spec` (`file` or `file:section`) as `--ini` does; `paste`: `--ini-paste` (the
/// `[uwsgi]` section; a PasteDeploy application section is refused: Keel serves only Octavia).
fn read_config_file(spec: &str, paste: bool, plan: &mut Plan) -> Result<(), UwsgiError> {
    let (path, section) = match spec.rsplit_once(':') {
        Some((p, s)) if !s.contains('/') && !p.is_empty() => (p, s),
        _ => (spec, "uwsgi"),
    };
    let ext = Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("");
    if matches!(ext, "xml" | "yaml" | "yml" | "json" | "js") {
        return Err(UwsgiError::File {
            path: path.into(),
            why: format!("only ini files are read by Keel, not .{ext}"),
        });
    }
    let file_err = |why: String| UwsgiError::File {
        path: path.into(),
        why,
    };
    let text = std::fs::read_to_string(path).map_err(|e| file_err(e.to_string()))?;
    let origin = Origin {
        file: Some(PathBuf::from(path)),
        section: section.into(),
    };
    let mut current: Option<String> = None;
    let mut found = false;
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with(['#', ';']) {
            continue;
        }
        if let Some(name) = line.strip_prefix('[') {
            let name = name
                .strip_suffix(']')
                .ok_or_else(|| file_err(format!("line {}: a section ends with ]", n + 1)))?;
            if paste && name != section && is_paste_app(name) {
                return Err(UwsgiError::Option {
                    origin: Origin {
                        file: Some(PathBuf::from(path)),
                        section: name.into(),
                    },
                    key: "use".into(),
                    why: "a PasteDeploy application: Keel serves only Octavia's API".into(),
                });
            }
            found |= name == section;
            current = Some(name.to_string());
            continue;
        }
        if current.as_deref() != Some(section) {
            continue;
        }
        let (k, v) = line
            .split_once('=')
            .ok_or_else(|| file_err(format!("line {}: no '=' in {line:?}", n + 1)))?;
        option(&origin, &k.trim().replace('_', "-"), v.trim(), plan)?;
    }
    if !found {
        return Err(file_err(format!("no [{section}] section")));
    }
    Ok(())
}

fn is_paste_app(section: &str) -> bool {
    ["app:", "pipeline:", "composite:", "filter:", "filter-app:"]
        .iter()
        .any(|p| section.starts_with(p))
}

/// uWSGI's boolean forms.
fn truth(origin: &Origin, key: &str, v: &str) -> Result<bool, UwsgiError> {
    match v.to_ascii_lowercase().as_str() {
        "" | "1" | "true" | "yes" | "on" | "y" => Ok(true),
        "0" | "false" | "no" | "off" | "n" => Ok(false),
        _ => Err(refuse(origin, key, format!("{v:?} is not a boolean"))),
    }
}

fn refuse(origin: &Origin, key: &str, why: impl Into<String>) -> UwsgiError {
    UwsgiError::Option {
        origin: origin.clone(),
        key: key.into(),
        why: why.into(),
    }
}

/// The callables that are Octavia's API (`octavia.wsgi.api:application`, the module alone
/// meaning its `application`), and the WSGI scripts of older packages.
fn is_octavia_app(key: &str, v: &str) -> bool {
    match key {
        "wsgi-file" | "file" => {
            let p = Path::new(v);
            v.ends_with("octavia/wsgi/api.py")
                || v.ends_with("octavia/api/app.py")
                || p.file_name()
                    .is_some_and(|n| n == "octavia-wsgi" || n == "octavia-api-wsgi")
        }
        _ => matches!(
            v,
            "octavia.wsgi.api:application" | "octavia.wsgi.api" | "octavia.wsgi.api:app"
        ),
    }
}

/// Sorts one option into `plan` (see the module doc). Errors: the option is refused.
#[allow(
    clippy::too_many_lines,
    reason = "a known exception of clippy.toml's bound"
)]
pub fn option(origin: &Origin, key: &str, v: &str, plan: &mut Plan) -> Result<(), UwsgiError> {
    if v.contains("$(") || v.contains("@(") || v.contains("%(") || has_magic(v) {
        return Err(refuse(
            origin,
            key,
            format!("{v:?}: uWSGI placeholders ($(…), @(…), %(…), %n) are not expanded by Keel"),
        ));
    }
    let mut ignore = |reason: &'static str| {
        plan.ignored
            .push((origin.to_string(), key.to_string(), reason));
    };
    match key {
        "http" | "http-socket" => {
            let addr = listen_addr(origin, key, v)?;
            plan.listen.push(Listen {
                addr,
                tls: None,
                sni: Vec::new(),
            });
        }
        "https" | "https-socket" => {
            let parts: Vec<&str> = v.split(',').map(str::trim).collect();
            if parts.len() < 3 || parts[1].is_empty() || parts[2].is_empty() {
                return Err(refuse(
                    origin,
                    key,
                    "expected address,certificate,key[,ciphers]",
                ));
            }
            if parts.get(4).is_some_and(|ca| !ca.is_empty()) {
                return Err(refuse(
                    origin,
                    key,
                    "client certificate authentication (the 5th field) is not implemented",
                ));
            }
            if parts.get(3).is_some_and(|c| !c.is_empty()) {
                ignore("cipher list: rustls offers only its safe TLS 1.2/1.3 suites");
            }
            let addr = listen_addr(origin, key, parts[0])?;
            for f in &parts[1..3] {
                if !Path::new(f).is_file() {
                    return Err(refuse(origin, key, format!("{f}: no such file")));
                }
            }
            plan.listen.push(Listen {
                addr,
                tls: Some((PathBuf::from(parts[1]), PathBuf::from(parts[2]))),
                sni: Vec::new(),
            });
        }
        "socket" | "uwsgi-socket" | "shared-socket" | "fastcgi-socket" | "scgi-socket"
        | "suwsgi-socket" | "http-to" | "zerg" => {
            return Err(refuse(
                origin,
                key,
                "Keel speaks HTTP only, not the uwsgi/FastCGI/SCGI protocols: serve with \
                 http or http-socket and point the proxy at it",
            ));
        }
        "module" | "wsgi" | "wsgi-file" | "file" | "mount" => {
            let app = v.rsplit_once('=').map_or(v, |(_, a)| a).trim();
            if !is_octavia_app(key, app) {
                return Err(refuse(
                    origin,
                    key,
                    format!(
                        "{app:?} is not Octavia's API (octavia.wsgi.api:application): Keel \
                         serves nothing else"
                    ),
                ));
            }
        }
        "callable" => {
            if v != "application" {
                return Err(refuse(origin, key, "Octavia's callable is `application`"));
            }
        }
        "hook-master-start" => {
            if v.split_whitespace().collect::<Vec<_>>()
                != ["unix_signal:15", "gracefully_kill_them_all"]
            {
                return Err(refuse(
                    origin,
                    key,
                    "only `unix_signal:15 gracefully_kill_them_all` (Keel's own SIGTERM \
                     handling) is accepted",
                ));
            }
        }
        "chdir" => plan.chdir = Some(PathBuf::from(v)),
        "pidfile" | "pidfile2" | "safe-pidfile" | "safe-pidfile2" => {
            plan.pidfiles.push(PathBuf::from(v));
        }
        "add-header" => {
            let (name, value) = v
                .split_once(':')
                .ok_or_else(|| refuse(origin, key, "expected `Name: value`"))?;
            plan.headers
                .push((name.trim().to_string(), value.trim().to_string()));
        }
        "pyargv" => plan.pyargv = v.split_whitespace().map(str::to_string).collect(),
        "uid" | "gid" => check_identity(origin, key, v)?,
        "die-on-term"
        | "master"
        | "enable-threads"
        | "lazy-apps"
        | "lazy"
        | "thunder-lock"
        | "need-app"
        | "strict"
        | "exit-on-reload"
        | "http-auto-chunked"
        | "http-chunked-input"
        | "http-raw-body"
        | "ignore-sigpipe"
        | "ignore-write-errors"
        | "disable-write-exception"
        | "vacuum"
        | "single-interpreter"
        | "memory-report"
        | "autoload"
        | "auto-procname" => {
            truth(origin, key, v)?;
        }
        // One multi-threaded process serves every request; worker counts do not apply.
        "processes"
        | "workers"
        | "threads"
        | "listen"
        | "buffer-size"
        | "chunked-input-limit"
        | "post-buffering"
        | "offload-threads" => {
            v.parse::<u64>()
                .map_err(|_| refuse(origin, key, format!("{v:?} is not a number")))?;
        }
        "plugin" | "plugins" | "need-plugin" | "plugins-dir" => {
            ignore("Keel loads no uWSGI plugins (the API is built in)")
        }
        "virtualenv" | "venv" | "home" | "pythonpath" | "python-path" | "py-autoreload" => {
            ignore("no Python interpreter in Keel")
        }
        "stats" | "stats-server" | "stats-http" | "stats-minified" => ignore(
            "the uWSGI stats server is not implemented ([keel] metrics_listen serves Prometheus metrics)",
        ),
        "logto"
        | "logto2"
        | "logger"
        | "req-logger"
        | "logfile-chmod"
        | "logfile-chown"
        | "log-x-forwarded-for"
        | "disable-logging"
        | "log-format"
        | "logformat"
        | "route-user-agent"
        | "log-maxsize"
        | "log-reopen" => ignore(
            "Keel writes its request lines through oslo.log's settings ([DEFAULT] log_file, \
             log_dir, use_stderr), not uWSGI's logger",
        ),
        "socket-timeout" | "http-timeout" | "harakiri" | "harakiri-verbose" => {
            ignore("no per-request timeout: Keel bounds its own peer calls")
        }
        "max-requests"
        | "reload-on-rss"
        | "reload-mercy"
        | "worker-reload-mercy"
        | "max-worker-lifetime"
        | "min-worker-lifetime"
        | "touch-reload"
        | "master-fifo"
        | "cheaper"
        | "cheaper-algo"
        | "cheaper-initial"
        | "cheaper-step" => ignore(
            "no worker processes to recycle; the drain bound is [DEFAULT] graceful_shutdown_timeout",
        ),
        "static-map" | "static-map2" | "check-static" => {
            ignore("Octavia's API serves no static files")
        }
        "procname" | "procname-prefix" | "procname-prefix-spaced" | "procname-master" => {
            ignore("the process keeps its name (keel)")
        }
        "env" => ignore(
            "environment variables are not set by Keel: set them in the container or unit \
             (Keel's peers use each section's CA file, not REQUESTS_CA_BUNDLE)",
        ),
        _ => {
            return Err(refuse(
                origin,
                key,
                "unknown to Keel's uWSGI entry point (see docs/deploy/ for the options it \
                 takes); refused rather than ignored",
            ));
        }
    }
    Ok(())
}

/// uWSGI's `%n`-style magic variables (`%d`, `%n`, `%p`…; `%%` is a literal `%`).
fn has_magic(v: &str) -> bool {
    let b = v.as_bytes();
    b.windows(2)
        .enumerate()
        .any(|(i, w)| w[0] == b'%' && w[1].is_ascii_alphabetic() && (i == 0 || b[i - 1] != b'%'))
}

/// `host:port`, `:port` (every IPv4 address), `[v6]:port`, as `http`'s address.
fn listen_addr(origin: &Origin, key: &str, v: &str) -> Result<String, UwsgiError> {
    let (host, port) = v.rsplit_once(':').ok_or_else(|| {
        refuse(
            origin,
            key,
            format!("{v:?}: a unix socket path; Keel listens on host:port only"),
        )
    })?;
    port.parse::<u16>()
        .map_err(|_| refuse(origin, key, format!("{v:?}: the port is not a number")))?;
    let host = if host.is_empty() || host == "*" {
        "0.0.0.0"
    } else {
        host
    };
    Ok(format!("{host}:{port}"))
}

/// `uid`/`gid` as a name or number: accepted when the process already runs as it (uWSGI would
/// switch to it as root; Keel never changes identity — start it as that user, as kolla_start
/// and systemd's `User=` do).
fn check_identity(origin: &Origin, key: &str, v: &str) -> Result<(), UwsgiError> {
    let (db, field) = if key == "uid" {
        ("/etc/passwd", "Uid:")
    } else {
        ("/etc/group", "Gid:")
    };
    let wanted = match v.parse::<u32>() {
        Ok(n) => Some(n),
        Err(_) => std::fs::read_to_string(db).ok().and_then(|t| {
            t.lines()
                .map(|l| l.split(':').collect::<Vec<_>>())
                .find(|f| f.first() == Some(&v))
                .and_then(|f| f.get(2).and_then(|n| n.parse().ok()))
        }),
    };
    let Some(wanted) = wanted else {
        return Err(refuse(origin, key, format!("no such {key} {v:?} in {db}")));
    };
    let current = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with(field)).and_then(|l| {
                l.split_whitespace()
                    .nth(2)
                    .and_then(|n| n.parse::<u32>().ok())
            })
        });
    if current == Some(wanted) {
        Ok(())
    } else {
        Err(refuse(
            origin,
            key,
            format!(
                "Keel runs as {key} {} and does not switch to {v} ({wanted}): start it as \
                 that user (kolla_start, systemd User=) or drop the line",
                current.map_or("?".to_string(), |c| c.to_string())
            ),
        ))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    const TEST_BUILD: Build = Build {
        version: "0.1.0",
        commit: "test",
    };

    fn ini(text: &str) -> (tempfile::TempDir, String) {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("api-uwsgi.ini");
        std::fs::write(&p, text).unwrap();
        let s = p.display().to_string();
        (d, s)
    }

    fn serve(args: &[&str]) -> Result<Plan, UwsgiError> {
        let a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        parse(&a, &TEST_BUILD).map(|r| match r {
            Request::Serve(p) => p,
            other => panic!("{other:?}"),
        })
    }

    #[test]
    fn positional_ini_and_ini_flag_read_the_uwsgi_section() {
        let (_d, p) = ini("[uwsgi]\n# c\nhttp = 127.0.0.1:9876\nprocesses = 4\n\
             die-on-term = true\nmodule = octavia.wsgi.api:application\n\
             add-header = Connection: close\nstats = 0.0.0.0:1717\n[other]\nsocket = x:1\n");
        for args in [vec![p.as_str()], vec!["--ini", p.as_str()]] {
            let plan = serve(&args).unwrap();
            assert_eq!(
                plan.listen,
                vec![Listen {
                    addr: "127.0.0.1:9876".into(),
                    tls: None,
                    sni: Vec::new(),
                }]
            );
            assert_eq!(plan.headers, vec![("Connection".into(), "close".into())]);
            assert_eq!(plan.ignored.len(), 1, "{:?}", plan.ignored);
            assert_eq!(plan.ignored[0].1, "stats");
        }
    }

    #[test]
    fn refusals_name_file_section_and_key() {
        let (_d, p) = ini("[uwsgi]\nhttp = :9876\nsocket = 127.0.0.1:3031\n");
        let e = serve(&[&p]).unwrap_err().to_string();
        assert!(
            e.contains(&p) && e.contains("[uwsgi]") && e.contains("socket"),
            "{e}"
        );
        let (_d, p) = ini("[uwsgi]\nhttp = :9876\nmodule = keystone.wsgi.api:application\n");
        let e = serve(&[&p]).unwrap_err().to_string();
        assert!(e.contains("module") && e.contains("not Octavia"), "{e}");
        let (_d, p) = ini("[uwsgi]\nhttp = :9876\nmystery-knob = 3\n");
        let e = serve(&[&p]).unwrap_err().to_string();
        assert!(e.contains("mystery-knob") && e.contains("unknown"), "{e}");
        let (_d, p) = ini("[uwsgi]\nhttp = :9876\nhook-master-start = unix_signal:1 reload\n");
        assert!(serve(&[&p]).is_err());
        let (_d, p) = ini("[uwsgi]\nhttp = /run/octavia.sock\n");
        assert!(
            serve(&[&p])
                .unwrap_err()
                .to_string()
                .contains("unix socket")
        );
        let (_d, p) = ini("[uwsgi]\nhttp = :%(port)\n");
        assert!(
            serve(&[&p])
                .unwrap_err()
                .to_string()
                .contains("placeholders")
        );
        let e = serve(&["--http", ":1", "--mystery"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("command line") && e.contains("mystery"), "{e}");
    }

    #[test]
    fn listeners_forms_and_section_selection() {
        let (_d, p) =
            ini("[uwsgi]\nhttp = :1\n[api]\nhttp-socket = [::1]:2\nhttp_socket = 10.0.0.1:3\n");
        let plan = serve(&[&format!("{p}:api")]).unwrap();
        let addrs: Vec<_> = plan.listen.iter().map(|l| l.addr.as_str()).collect();
        assert_eq!(addrs, ["[::1]:2", "10.0.0.1:3"]);
        let plan = serve(&["--http-socket", ":9876", "--master", "--processes=2"]).unwrap();
        assert_eq!(plan.listen[0].addr, "0.0.0.0:9876");
        assert!(serve(&["--master"]).is_err(), "no listener");
        assert!(serve(&[&format!("{p}:nosuch")]).is_err());
    }

    #[test]
    fn https_needs_existing_files() {
        let d = tempfile::tempdir().unwrap();
        let (c, k) = (d.path().join("c.pem"), d.path().join("k.pem"));
        std::fs::write(&c, "x").unwrap();
        std::fs::write(&k, "x").unwrap();
        let v = format!("127.0.0.1:9876,{},{},HIGH", c.display(), k.display());
        let plan = serve(&["--https-socket", &v]).unwrap();
        assert_eq!(plan.listen[0].tls, Some((c.clone(), k.clone())));
        assert_eq!(plan.ignored.len(), 1);
        let v = format!("127.0.0.1:9876,{},/nonexistent.pem", c.display());
        assert!(
            serve(&["--https", &v])
                .unwrap_err()
                .to_string()
                .contains("no such file")
        );
    }

    #[test]
    fn control_commands() {
        let a = ["--reload".to_string(), "/run/x.pid".to_string()];
        assert!(matches!(
            parse(&a, &TEST_BUILD).unwrap(),
            Request::Signal { signal: "HUP", .. }
        ));
    }
}
