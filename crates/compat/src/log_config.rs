//! `[DEFAULT] log_config_append`: a Python logging fileConfig file (`logging.config.fileConfig`
//! of Python 3.11, as oslo.log's `_load_log_config` loads it) → a [`LogPlan`].
//!
//! What the deployment tools ship is honoured: openstack-helm's `logging.conf`
//! (`octavia/values.yaml` `conf.logging`: `StreamHandler` on `sys.stdout`/`sys.stderr`,
//! `logging.NullHandler`, `oslo_log.formatters.ContextFormatter`, a `%(message)s` formatter,
//! per-logger levels with `qualname`), and `FileHandler` / `handlers.WatchedFileHandler` with a
//! path. Every line Python would act on that Keel cannot build (another handler class, a
//! formatter class, `style = {`, a logger or handler a `keys` list names but no section defines)
//! is refused, naming the file, section, key and why.
//!
//! ```
//! use compat::python_logging::Sink;
//!
//! let conf = "[loggers]\nkeys = root\n[handlers]\nkeys = stderr\n[formatters]\nkeys = plain\n\
//!             [logger_root]\nlevel = INFO\nhandlers = stderr\n\
//!             [handler_stderr]\nclass = StreamHandler\nargs = (sys.stderr,)\nformatter = plain\n\
//!             [formatter_plain]\nformat = %(levelname)s %(message)s\n";
//! let path = std::env::temp_dir().join(format!("compat-doc-{}-logging.conf", std::process::id()));
//! std::fs::write(&path, conf).map_err(|e| vec![e.to_string()])?;
//! let plan = compat::log_config::read(&path);
//! let syslog = conf.replace("class = StreamHandler", "class = handlers.SysLogHandler");
//! std::fs::write(&path, syslog).map_err(|e| vec![e.to_string()])?;
//! let refused = compat::log_config::read(&path);
//! std::fs::remove_file(&path).map_err(|e| vec![e.to_string()])?;
//! let plan = plan?;
//! assert_eq!(plan.handlers[0].sink, Sink::Stderr);
//! assert_eq!(plan.route("octavia.api"), (20, vec![0]));
//! // a handler it cannot build is refused, naming the section
//! let why = refused.map(|_| ()).unwrap_err().join("\n");
//! assert!(why.contains("handler_stderr"), "{why}");
//! # Ok::<(), Vec<String>>(())
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::log_format::Format;
use crate::python_logging::{
    Formatter, Handler, LogPlan, Logger, RECORD_KEYS, Sink, py_level, valid_datefmt,
};

/// configparser's view of the file: sections → lower-cased keys → values (continuations
/// joined with `\n`), `[DEFAULT]`'s keys visible in every section.
type Ini = BTreeMap<String, BTreeMap<String, String>>;

fn parse_ini(text: &str) -> Result<Ini, String> {
    let mut ini = Ini::new();
    let mut section: Option<String> = None;
    let mut last: Option<String> = None;
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim_end();
        let t = line.trim_start();
        if t.is_empty() || t.starts_with('#') || t.starts_with(';') {
            continue;
        }
        if line.starts_with([' ', '\t']) {
            if let (Some(s), Some(k)) = (&section, &last)
                && let Some(v) = ini.get_mut(s).and_then(|m| m.get_mut(k))
            {
                v.push('\n');
                v.push_str(t);
                continue;
            }
            return Err(format!(
                "line {}: continuation without an option: {t}",
                n + 1
            ));
        }
        if let Some(name) = t.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            section = Some(name.to_string());
            ini.entry(name.to_string()).or_default();
            last = None;
            continue;
        }
        let Some(s) = &section else {
            return Err(format!("line {}: an option before any [section]", n + 1));
        };
        let i = t
            .find(['=', ':'])
            .ok_or_else(|| format!("line {}: not key = value: {t}", n + 1))?;
        let key = t[..i].trim().to_ascii_lowercase();
        let value = t[i + 1..].trim().to_string();
        ini.entry(s.clone()).or_default().insert(key.clone(), value);
        last = Some(key);
    }
    Ok(ini)
}

/// One refusal: `log_config_append FILE: [section] key: why`.
struct Refusals<'a> {
    file: &'a Path,
    out: Vec<String>,
}

impl Refusals<'_> {
    fn push(&mut self, section: &str, key: &str, why: impl std::fmt::Display) {
        self.out.push(format!(
            "[DEFAULT] log_config_append: {} [{section}] {key}: {why}",
            self.file.display()
        ));
    }
}

/// Reads the file. Errors: every refusal (see the module doc), or the one that the file
/// cannot be read or does not parse.
#[allow(
    clippy::too_many_lines,
    reason = "a known exception of clippy.toml's bound"
)]
pub fn read(file: &Path) -> Result<LogPlan, Vec<String>> {
    let whole = |why: String| {
        vec![format!(
            "[DEFAULT] log_config_append: {}: {why}",
            file.display()
        )]
    };
    let text = std::fs::read_to_string(file).map_err(|e| whole(e.to_string()))?;
    let ini = parse_ini(&text).map_err(whole)?;
    let mut r = Refusals {
        file,
        out: Vec::new(),
    };
    let defaults = ini.get("DEFAULT").cloned().unwrap_or_default();
    // configparser: a section's value, else [DEFAULT]'s. `raw`: no interpolation (fileConfig
    // reads format/datefmt raw); otherwise `%%` is `%` and `%(x)s` refers to another option.
    let get = |r: &mut Refusals<'_>, s: &str, k: &str, raw: bool| -> Option<String> {
        let v = ini.get(s)?.get(k).or_else(|| defaults.get(k))?.clone();
        if raw {
            return Some(v);
        }
        if v.contains("%(") {
            r.push(
                s,
                k,
                "configparser interpolation %(…)s is not supported by Keel",
            );
            return None;
        }
        Some(v.replace("%%", "%"))
    };
    let keys = |r: &mut Refusals<'_>, s: &str| -> Vec<String> {
        if !ini.contains_key(s) {
            r.push(
                s,
                "keys",
                "missing: fileConfig needs [loggers], [handlers] and [formatters]",
            );
            return Vec::new();
        }
        get(r, s, "keys", false)
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .filter(|k| !k.is_empty())
            .map(str::to_string)
            .collect()
    };

    let mut formatters: BTreeMap<String, Formatter> = BTreeMap::new();
    for f in keys(&mut r, "formatters") {
        let s = format!("formatter_{f}");
        if !ini.contains_key(&s) {
            r.push("formatters", "keys", format!("{f}: no [{s}] section"));
            continue;
        }
        if let Some(style) = get(&mut r, &s, "style", true).filter(|v| v != "%") {
            r.push(&s, "style", format!("{style:?}: Keel formats %-style only"));
            continue;
        }
        let datefmt = get(&mut r, &s, "datefmt", true).filter(|v| !v.is_empty());
        if let Some(d) = datefmt.as_deref().filter(|d| !valid_datefmt(d)) {
            r.push(&s, "datefmt", format!("{d:?} is not a strftime format"));
            continue;
        }
        let class = get(&mut r, &s, "class", false).unwrap_or_else(|| "logging.Formatter".into());
        let formatter = match class.as_str() {
            "oslo_log.formatters.ContextFormatter" => Formatter::Context { datefmt },
            "oslo_log.formatters.JSONFormatter" => Formatter::Json,
            "logging.Formatter" | "Formatter" => {
                let text = get(&mut r, &s, "format", true).unwrap_or_else(|| "%(message)s".into());
                match Format::parse(&text, |k| RECORD_KEYS.contains(&k)) {
                    Ok(format) => Formatter::Python { format, datefmt },
                    Err(why) => {
                        r.push(&s, "format", why);
                        continue;
                    }
                }
            }
            other => {
                r.push(
                    &s,
                    "class",
                    format!(
                        "{other:?}: Keel formats with oslo_log.formatters.ContextFormatter, oslo_log.formatters.JSONFormatter or logging.Formatter"
                    ),
                );
                continue;
            }
        };
        formatters.insert(f, formatter);
    }

    let mut handlers: Vec<Handler> = Vec::new();
    let mut handler_index: BTreeMap<String, usize> = BTreeMap::new();
    for h in keys(&mut r, "handlers") {
        let s = format!("handler_{h}");
        if !ini.contains_key(&s) {
            r.push("handlers", "keys", format!("{h}: no [{s}] section"));
            continue;
        }
        let Some(class) = get(&mut r, &s, "class", false) else {
            r.push(&s, "class", "missing (fileConfig requires it)");
            continue;
        };
        let args = get(&mut r, &s, "args", false).unwrap_or_else(|| "()".into());
        let kwargs = get(&mut r, &s, "kwargs", false).unwrap_or_else(|| "{}".into());
        if !matches!(kwargs.replace(' ', "").as_str(), "{}" | "") {
            r.push(
                &s,
                "kwargs",
                format!("{kwargs:?}: Keel takes a handler's args only"),
            );
            continue;
        }
        let Some(sink) = sink(&class, &args, &s, &mut r) else {
            continue;
        };
        let level = match get(&mut r, &s, "level", false) {
            None => 0,
            Some(l) => match py_level(&l) {
                Some(l) => l,
                None => {
                    r.push(&s, "level", format!("{l:?} is not a logging level name"));
                    continue;
                }
            },
        };
        let formatter = match get(&mut r, &s, "formatter", false).filter(|f| !f.is_empty()) {
            // No formatter: logging's default, `%(message)s`.
            None => Formatter::Python {
                format: Format(vec![crate::log_format::Part::Field(
                    crate::log_format::Conversion {
                        key: "message".into(),
                        left: false,
                        zero: false,
                        width: 0,
                        precision: None,
                        conv: 's',
                    },
                )]),
                datefmt: None,
            },
            Some(f) => match formatters.get(&f) {
                Some(f) => f.clone(),
                None => {
                    r.push(
                        &s,
                        "formatter",
                        format!("{f:?} is not one of [formatters] keys"),
                    );
                    continue;
                }
            },
        };
        handler_index.insert(h, handlers.len());
        handlers.push(Handler {
            sink,
            level,
            formatter,
            color: false,
        });
    }

    let mut loggers = Vec::new();
    let names = keys(&mut r, "loggers");
    if !names.iter().any(|l| l == "root") {
        r.push(
            "loggers",
            "keys",
            "must include root (fileConfig requires it)",
        );
    }
    for l in names {
        let s = format!("logger_{l}");
        if !ini.contains_key(&s) {
            r.push("loggers", "keys", format!("{l}: no [{s}] section"));
            continue;
        }
        let name = if l == "root" {
            String::new()
        } else {
            match get(&mut r, &s, "qualname", false) {
                Some(q) => q,
                None => {
                    r.push(&s, "qualname", "missing (fileConfig requires it)");
                    continue;
                }
            }
        };
        let level = match get(&mut r, &s, "level", false) {
            None => None,
            Some(v) => match py_level(&v) {
                Some(0) => None,
                Some(n) => Some(n),
                None => {
                    r.push(&s, "level", format!("{v:?} is not a logging level name"));
                    continue;
                }
            },
        };
        let mut hs = Vec::new();
        for h in get(&mut r, &s, "handlers", false)
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .filter(|h| !h.is_empty())
        {
            match handler_index.get(h) {
                Some(i) => hs.push(*i),
                None => r.push(&s, "handlers", format!("{h:?} is not a handler Keel built")),
            }
        }
        let propagate = match get(&mut r, &s, "propagate", false).as_deref() {
            None | Some("1") => true,
            Some("0") => false,
            Some(v) => {
                r.push(&s, "propagate", format!("{v:?}: expected 0 or 1"));
                true
            }
        };
        loggers.push(Logger {
            name,
            // Python's root defaults to WARNING when fileConfig sets no level.
            level: if l == "root" {
                level.or(Some(30))
            } else {
                level
            },
            handlers: hs,
            propagate: l != "root" && propagate,
        });
    }
    if r.out.is_empty() {
        Ok(LogPlan { handlers, loggers })
    } else {
        Err(r.out)
    }
}

/// A handler `class` with its `args` → where it writes (None: refused, said in `r`).
fn sink(class: &str, args: &str, s: &str, r: &mut Refusals<'_>) -> Option<Sink> {
    let a: String = args.chars().filter(|c| !c.is_whitespace()).collect();
    match class {
        "StreamHandler" | "logging.StreamHandler" => match a.as_str() {
            "()" | "(sys.stderr,)" | "(sys.stderr)" => Some(Sink::Stderr),
            "(sys.stdout,)" | "(sys.stdout)" => Some(Sink::Stdout),
            _ => {
                r.push(
                    s,
                    "args",
                    format!("{args:?}: a StreamHandler writes to sys.stdout or sys.stderr"),
                );
                None
            }
        },
        "FileHandler"
        | "logging.FileHandler"
        | "handlers.WatchedFileHandler"
        | "logging.handlers.WatchedFileHandler" => {
            let watched = class.ends_with("WatchedFileHandler");
            match file_args(args) {
                Some(path) => Some(Sink::File { path, watched }),
                None => {
                    r.push(
                        s,
                        "args",
                        format!(
                            "{args:?}: expected ('/path/file.log',) or ('/path/file.log', 'a')"
                        ),
                    );
                    None
                }
            }
        }
        "NullHandler" | "logging.NullHandler" => Some(Sink::Null),
        other => {
            r.push(
                s,
                "class",
                format!(
                    "{other:?}: Keel cannot build this handler (it writes to StreamHandler sys.stdout/sys.stderr, FileHandler, handlers.WatchedFileHandler, NullHandler)"
                ),
            );
            None
        }
    }
}

/// `('path',)`, `("path", 'a')` → the path (mode `a` only: Keel never truncates a log).
fn file_args(args: &str) -> Option<PathBuf> {
    let inner = args.trim().strip_prefix('(')?.strip_suffix(')')?;
    let mut items = inner.split(',').map(str::trim).filter(|s| !s.is_empty());
    let unquote = |s: &str| {
        s.strip_prefix('\'')
            .and_then(|s| s.strip_suffix('\''))
            .or_else(|| s.strip_prefix('"').and_then(|s| s.strip_suffix('"')))
            .map(str::to_string)
    };
    let path = unquote(items.next()?)?;
    if let Some(mode) = items.next()
        && unquote(mode)? != "a"
    {
        return None;
    }
    if items.next().is_some() || path.is_empty() {
        return None;
    }
    Some(PathBuf::from(path))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// openstack-helm's default `logging.conf`, as rendered (source in its first line).
    pub(crate) const HELM: &str = include_str!("../../keel/tests/data/helm-logging.conf");

    fn plan(text: &str) -> Result<LogPlan, Vec<String>> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("logging.conf");
        std::fs::write(&p, text).unwrap();
        read(&p)
    }

    #[test]
    fn helm_default_is_honoured_as_python_would() {
        let p = plan(HELM).unwrap();
        assert_eq!(p.handlers.len(), 3);
        assert_eq!(p.handlers[0].sink, Sink::Stdout);
        assert!(matches!(
            p.handlers[0].formatter,
            Formatter::Context { datefmt: None }
        ));
        // octavia's lines reach stdout twice (its own handler, then root's), as in Python.
        assert_eq!(p.route("octavia.api.load_balancer"), (20, vec![0, 0]));
        // Loggers not in [loggers] keys are not configured (Python skips their sections).
        assert_eq!(p.route("sqlalchemy.engine"), (20, vec![0]));
    }

    #[test]
    fn what_keel_cannot_build_is_refused_naming_section_and_key() {
        for (bad, section, key) in [
            (
                HELM.replace(
                    "class = logging.NullHandler",
                    "class = fluent.handler.FluentHandler",
                ),
                "[handler_null] class",
                "FluentHandler",
            ),
            (
                HELM.replace("args = (sys.stderr,)", "args = (open('/x'),)"),
                "[handler_stderr] args",
                "sys.stdout or sys.stderr",
            ),
            (
                HELM.replace(
                    "class = oslo_log.formatters.ContextFormatter",
                    "class = oslo_log.formatters.FluentFormatter",
                ),
                "[formatter_context] class",
                "FluentFormatter",
            ),
            (
                HELM.replace("format = %(message)s", "format = %(nope)s"),
                "[formatter_default] format",
                "unknown key",
            ),
            (
                HELM.replace(
                    "keys = stdout,stderr,null",
                    "keys = stdout,stderr,null,gone",
                ),
                "[handlers] keys",
                "gone",
            ),
            (
                HELM.replace(
                    "level = INFO\nqualname = octavia",
                    "level = LOUD\nqualname = octavia",
                ),
                "[logger_octavia] level",
                "LOUD",
            ),
            (
                HELM.replace("[loggers]\nkeys = root,octavia", ""),
                "[loggers] keys",
                "missing",
            ),
        ] {
            let e = plan(&bad).unwrap_err();
            assert!(
                e.iter()
                    .any(|l| l.contains("logging.conf") && l.contains(section) && l.contains(key)),
                "{section}: {e:?}"
            );
        }
        let e = read(Path::new("/nonexistent/logging.conf")).unwrap_err();
        assert!(
            e[0].contains("/nonexistent/logging.conf: No such file"),
            "{e:?}"
        );
    }

    #[test]
    fn file_handlers_take_a_path() {
        let t = "[loggers]\nkeys=root\n[handlers]\nkeys=f,w\n[formatters]\nkeys=\n\
                 [logger_root]\nhandlers=f,w\n\
                 [handler_f]\nclass=FileHandler\nargs=('/var/log/octavia/api.log', 'a')\n\
                 [handler_w]\nclass=handlers.WatchedFileHandler\nargs=(\"/var/log/o.log\",)\nlevel=ERROR\n";
        let p = plan(t).unwrap();
        assert_eq!(
            p.handlers[0].sink,
            Sink::File {
                path: "/var/log/octavia/api.log".into(),
                watched: false
            }
        );
        assert_eq!(p.handlers[1].level, 40);
        // Root without a level: WARNING, as Python.
        assert_eq!(p.route("octavia"), (30, vec![0, 1]));
        let e = plan(&t.replace("'a')", "'w')")).unwrap_err();
        assert!(e[0].contains("[handler_f] args"), "{e:?}");
    }
}
