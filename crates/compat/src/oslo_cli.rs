//! The command line every Octavia program takes from oslo.config and oslo.log
//! (`--config-file`, `--config-dir`, `--debug`/`-d`, `--log-file`, `--log-dir`,
//! `--log-config-append`, `--use-json`…), and oslo.config's default files when none is given.
//!
//! Defaults as oslo_config/cfg.py `find_config_files`/`find_config_dirs` for project
//! `octavia` and the program's name `prog`: the first of `~/.octavia/`, `~/`, `/etc/octavia/`,
//! `/etc/` holding `octavia.conf`, then the first holding `<prog>.conf`; the same for the
//! `octavia.conf.d/` and `<prog>.conf.d/` directories. `_parse_config_files` reads the default
//! files only when no `--config-file` is on the command line and the default directories only
//! when no `--config-dir` is, defaults first, then the command line's in order. Command-line
//! values of the logging options win over every file (oslo: the CLI is parsed last).
//!
//! ```
//! use compat::oslo_cli::parse;
//! use compat::oslo_config::Location;
//!
//! let conf = std::env::temp_dir().join(format!("compat-doc-{}.conf", std::process::id()));
//! std::fs::write(&conf, "[DEFAULT]\n").map_err(|e| e.to_string())?;
//! let args = ["--config-file", &conf.display().to_string(), "--debug", "upgrade"]
//!     .map(String::from);
//! let oslo = parse("octavia-db-manage", &args, None);
//! std::fs::remove_file(&conf).map_err(|e| e.to_string())?;
//! let oslo = oslo.map_err(|e| e.to_string())?;
//! assert!(oslo.locations.contains(&Location::File(conf.clone())));
//! assert_eq!(oslo.override_text(), "[DEFAULT]\ndebug = True\n");
//! assert_eq!(oslo.rest, ["upgrade"]);
//! // what argparse refuses, as argparse says it (the file is gone now)
//! let bad = parse("octavia-api", &args, None).map(|_| ()).unwrap_err();
//! assert!(bad.to_string().starts_with("octavia-api: error: "), "{bad}");
//! # Ok::<(), String>(())
//! ```

use std::path::{Path, PathBuf};

use crate::oslo_config::Location;

/// The oslo part of a command line.
#[derive(Debug, Default, Clone)]
pub struct OsloArgs {
    /// Files and directories, defaults included, in reading order.
    pub locations: Vec<Location>,
    /// `[DEFAULT]` lines the command line sets (`debug = True`…), applied after every file.
    pub overrides: Vec<(String, String)>,
    /// Arguments that are not oslo's, in order (a program's own: subcommands…).
    pub rest: Vec<String>,
    /// `--help` / `-h` was given.
    pub help: bool,
    /// `--version` was given.
    pub version: bool,
}

/// Why a command line is refused (argparse's exit status 2).
#[derive(Debug, thiserror::Error)]
#[error("{prog}: error: {why}")]
pub struct UsageError {
    /// The program's name.
    pub prog: String,
    /// What argparse would say.
    pub why: String,
}

/// oslo.log's command-line options: `(flag, [DEFAULT] key, takes a value)`; BoolOpts also
/// take `--no<flag>`.
const LOG_OPTS: &[(&str, &str, bool)] = &[
    ("debug", "debug", false),
    ("log-config-append", "log_config_append", true),
    ("log-config", "log_config_append", true),
    ("log_config", "log_config_append", true),
    ("log-date-format", "log_date_format", true),
    ("log-file", "log_file", true),
    ("logfile", "log_file", true),
    ("log-dir", "log_dir", true),
    ("logdir", "log_dir", true),
    ("use-syslog", "use_syslog", false),
    ("use-journal", "use_journal", false),
    ("syslog-log-facility", "syslog_log_facility", true),
    ("use-json", "use_json", false),
];

/// Splits `args` (without the program name) for program `prog`. `home`: the `~` of the
/// default search (`$HOME`). Errors: an oslo option without its value, a missing
/// `--config-file`/`--config-dir` (oslo.config refuses those too).
#[allow(
    clippy::too_many_lines,
    reason = "a known exception of clippy.toml's bound"
)]
pub fn parse(prog: &str, args: &[String], home: Option<&Path>) -> Result<OsloArgs, UsageError> {
    let usage = |why: String| UsageError {
        prog: prog.to_string(),
        why,
    };
    let mut out = OsloArgs::default();
    let mut cli: Vec<Location> = Vec::new();
    let (mut saw_file, mut saw_dir) = (false, false);
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == "--" {
            out.rest.extend(args[i..].iter().cloned());
            break;
        }
        if a == "-h" || a == "--help" {
            out.help = true;
            continue;
        }
        if a == "--version" {
            out.version = true;
            continue;
        }
        if a == "-d" {
            out.overrides.push(("debug".into(), "True".into()));
            continue;
        }
        let Some(opt) = a.strip_prefix("--") else {
            out.rest.push(a.clone());
            continue;
        };
        let (name, inline) = match opt.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (opt, None),
        };
        let value = |i: &mut usize| -> Result<String, UsageError> {
            if let Some(v) = &inline {
                return Ok(v.clone());
            }
            let v = args
                .get(*i)
                .ok_or_else(|| usage(format!("argument --{name}: expected one argument")))?;
            *i += 1;
            Ok(v.clone())
        };
        match name {
            "config-file" => {
                saw_file = true;
                let p = PathBuf::from(value(&mut i)?);
                if !p.is_file() {
                    return Err(usage(format!(
                        "Failed to find some config files: {}",
                        p.display()
                    )));
                }
                cli.push(Location::File(p));
            }
            "config-dir" => {
                saw_dir = true;
                let p = PathBuf::from(value(&mut i)?);
                if !p.is_dir() {
                    return Err(usage(format!(
                        "Config directory not found: {}",
                        p.display()
                    )));
                }
                cli.push(Location::Dir(p));
            }
            _ => {
                let bool_neg = name.strip_prefix("no").and_then(|n| {
                    LOG_OPTS
                        .iter()
                        .find(|(f, _, takes)| *f == n && !takes)
                        .map(|(_, key, _)| *key)
                });
                if let Some(key) = bool_neg {
                    out.overrides.push((key.into(), "False".into()));
                } else if let Some((_, key, takes)) = LOG_OPTS.iter().find(|(f, _, _)| *f == name) {
                    let v = if *takes {
                        value(&mut i)?
                    } else {
                        inline.clone().unwrap_or_else(|| "True".into())
                    };
                    out.overrides.push(((*key).into(), v));
                } else {
                    out.rest.push(a.clone());
                }
            }
        }
    }
    let dirs = search_dirs(home);
    if !saw_file {
        for name in ["octavia", prog] {
            if let Some(f) = first(&dirs, &format!("{name}.conf"), Path::is_file) {
                out.locations.push(Location::File(f));
            }
        }
    }
    if !saw_dir {
        for name in ["octavia", prog] {
            if let Some(d) = first(&dirs, &format!("{name}.conf.d"), Path::is_dir) {
                out.locations.push(Location::Dir(d));
            }
        }
    }
    out.locations.extend(cli);
    Ok(out)
}

/// oslo's `_get_config_dirs("octavia")` (without the snap ones).
fn search_dirs(home: Option<&Path>) -> Vec<PathBuf> {
    let mut d = Vec::new();
    if let Some(h) = home {
        d.push(h.join(".octavia"));
        d.push(h.to_path_buf());
    }
    d.push(PathBuf::from("/etc/octavia"));
    d.push(PathBuf::from("/etc"));
    d
}

fn first(dirs: &[PathBuf], name: &str, ok: fn(&Path) -> bool) -> Option<PathBuf> {
    dirs.iter().map(|d| d.join(name)).find(|p| ok(p))
}

impl OsloArgs {
    /// The command line's `[DEFAULT]` values as INI text (read after every file, so they win).
    pub fn override_text(&self) -> String {
        let mut t = String::from("[DEFAULT]\n");
        for (k, v) in &self.overrides {
            t.push_str(&format!("{k} = {v}\n"));
        }
        t
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn home_defaults_first_file_then_dir_and_cli_replaces_each() {
        let h = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(h.path().join(".octavia/octavia.conf.d")).unwrap();
        std::fs::write(h.path().join(".octavia/octavia.conf"), "[DEFAULT]\n").unwrap();
        std::fs::write(h.path().join("octavia.conf"), "[DEFAULT]\n").unwrap();
        std::fs::write(h.path().join("octavia-driver-agent.conf"), "[DEFAULT]\n").unwrap();
        let o = parse("octavia-driver-agent", &[], Some(h.path())).unwrap();
        assert_eq!(
            o.locations[..3],
            [
                Location::File(h.path().join(".octavia/octavia.conf")),
                Location::File(h.path().join("octavia-driver-agent.conf")),
                Location::Dir(h.path().join(".octavia/octavia.conf.d")),
            ]
        );
        let f = h.path().join("octavia.conf").display().to_string();
        let o = parse("octavia-api", &args(&["--config-file", &f]), Some(h.path())).unwrap();
        // the default dir still read (no --config-dir), before the command line's file
        assert_eq!(
            o.locations,
            [
                Location::Dir(h.path().join(".octavia/octavia.conf.d")),
                Location::File(h.path().join("octavia.conf")),
            ]
        );
    }

    #[test]
    fn logging_options_and_the_rest() {
        let o = parse(
            "octavia-db-manage",
            &args(&[
                "--debug",
                "--log-file=/x.log",
                "--nouse-json",
                "upgrade",
                "head",
            ]),
            None,
        )
        .unwrap();
        assert_eq!(o.rest, ["upgrade", "head"]);
        assert_eq!(
            o.override_text(),
            "[DEFAULT]\ndebug = True\nlog_file = /x.log\nuse_json = False\n"
        );
        let e = parse("x", &args(&["--config-file", "/nonexistent.conf"]), None).unwrap_err();
        assert!(e.to_string().contains("/nonexistent.conf"));
        assert!(parse("x", &args(&["--log-dir"]), None).is_err());
    }
}
