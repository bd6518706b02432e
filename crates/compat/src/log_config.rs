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
    Formatter, Handler, LogPlan, Logger, PyLevel, RECORD_KEYS, Sink, py_level, valid_datefmt,
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
pub fn read(file: &Path) -> Result<LogPlan, Vec<String>> {
    let whole = |why: String| {
        vec![format!(
            "[DEFAULT] log_config_append: {}: {why}",
            file.display()
        )]
    };
    let text = std::fs::read_to_string(file).map_err(|e| whole(e.to_string()))?;
    let ini = parse_ini(&text).map_err(whole)?;
    let mut c = FileConfig {
        defaults: ini.get("DEFAULT").cloned().unwrap_or_default(),
        ini: &ini,
        r: Refusals {
            file,
            out: Vec::new(),
        },
    };
    let mut formatters: BTreeMap<String, Formatter> = BTreeMap::new();
    for f in c.keys("formatters") {
        if let Some(formatter) = c.formatter(&f) {
            formatters.insert(f, formatter);
        }
    }
    let mut handlers: Vec<Handler> = Vec::new();
    let mut handler_index: BTreeMap<String, usize> = BTreeMap::new();
    for h in c.keys("handlers") {
        if let Some(handler) = c.handler(&h, &formatters) {
            handler_index.insert(h, handlers.len());
            handlers.push(handler);
        }
    }
    let names = c.keys("loggers");
    if !names.iter().any(|l| l == "root") {
        c.r.push(
            "loggers",
            "keys",
            "must include root (fileConfig requires it)",
        );
    }
    let loggers = names
        .iter()
        .filter_map(|l| c.logger(l, &handler_index))
        .collect();
    if c.r.out.is_empty() {
        Ok(LogPlan { handlers, loggers })
    } else {
        Err(c.r.out)
    }
}

/// The parsed file as `logging.config.fileConfig` walks it, and what it refused so far.
struct FileConfig<'a> {
    ini: &'a Ini,
    defaults: BTreeMap<String, String>,
    r: Refusals<'a>,
}

impl FileConfig<'_> {
    /// configparser: a section's value, else [DEFAULT]'s. `raw`: no interpolation (fileConfig
    /// reads format/datefmt raw); otherwise `%%` is `%` and `%(x)s` (refused) refers to
    /// another option.
    fn get(&mut self, s: &str, k: &str, raw: bool) -> Option<String> {
        let v = self
            .ini
            .get(s)?
            .get(k)
            .or_else(|| self.defaults.get(k))?
            .clone();
        if raw {
            return Some(v);
        }
        if v.contains("%(") {
            self.r.push(
                s,
                k,
                "configparser interpolation %(…)s is not supported by Keel",
            );
            return None;
        }
        Some(v.replace("%%", "%"))
    }

    /// The comma-separated `keys` of `[s]` (a missing section refused).
    fn keys(&mut self, s: &str) -> Vec<String> {
        if !self.ini.contains_key(s) {
            self.r.push(
                s,
                "keys",
                "missing: fileConfig needs [loggers], [handlers] and [formatters]",
            );
            return Vec::new();
        }
        self.list(s, "keys")
    }

    /// A comma-separated option, entries trimmed, empty ones dropped.
    fn list(&mut self, s: &str, k: &str) -> Vec<String> {
        self.get(s, k, false)
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .filter(|k| !k.is_empty())
            .map(str::to_string)
            .collect()
    }

    /// The section `[<kind>_<name>]` a `keys` entry names, when it exists (else refused).
    fn section(&mut self, kind: &str, name: &str) -> Option<String> {
        let s = format!("{kind}_{name}");
        if self.ini.contains_key(&s) {
            return Some(s);
        }
        self.r.push(
            &format!("{kind}s"),
            "keys",
            format!("{name}: no [{s}] section"),
        );
        None
    }

    /// `[formatter_<f>]`: `class` (oslo.log's Context or JSON formatter, or
    /// `logging.Formatter` with its `format`), `datefmt`, `style` (`%` only).
    fn formatter(&mut self, f: &str) -> Option<Formatter> {
        let s = self.section("formatter", f)?;
        if let Some(style) = self.get(&s, "style", true).filter(|v| v != "%") {
            self.r
                .push(&s, "style", format!("{style:?}: Keel formats %-style only"));
            return None;
        }
        let datefmt = self.get(&s, "datefmt", true).filter(|v| !v.is_empty());
        if let Some(d) = datefmt.as_deref().filter(|d| !valid_datefmt(d)) {
            self.r
                .push(&s, "datefmt", format!("{d:?} is not a strftime format"));
            return None;
        }
        let class = self
            .get(&s, "class", false)
            .unwrap_or_else(|| "logging.Formatter".into());
        match class.as_str() {
            "oslo_log.formatters.ContextFormatter" => Some(Formatter::Context { datefmt }),
            "oslo_log.formatters.JSONFormatter" => Some(Formatter::Json),
            "logging.Formatter" | "Formatter" => {
                let text = self
                    .get(&s, "format", true)
                    .unwrap_or_else(|| "%(message)s".into());
                match Format::parse(&text, |k| RECORD_KEYS.contains(&k)) {
                    Ok(format) => Some(Formatter::Python { format, datefmt }),
                    Err(why) => {
                        self.r.push(&s, "format", why);
                        None
                    }
                }
            }
            other => {
                self.r.push(
                    &s,
                    "class",
                    format!(
                        "{other:?}: Keel formats with oslo_log.formatters.ContextFormatter, oslo_log.formatters.JSONFormatter or logging.Formatter"
                    ),
                );
                None
            }
        }
    }

    /// `[handler_<h>]`: `class` and `args` ([`sink`]), no `kwargs`, `level`, `formatter` (one
    /// of `formatters`; none: logging's default `%(message)s`).
    fn handler(&mut self, h: &str, formatters: &BTreeMap<String, Formatter>) -> Option<Handler> {
        let s = self.section("handler", h)?;
        let Some(class) = self.get(&s, "class", false) else {
            self.r.push(&s, "class", "missing (fileConfig requires it)");
            return None;
        };
        let args = self.get(&s, "args", false).unwrap_or_else(|| "()".into());
        let kwargs = self.get(&s, "kwargs", false).unwrap_or_else(|| "{}".into());
        if !matches!(kwargs.replace(' ', "").as_str(), "{}" | "") {
            self.r.push(
                &s,
                "kwargs",
                format!("{kwargs:?}: Keel takes a handler's args only"),
            );
            return None;
        }
        let sink = sink(&class, &args, &s, &mut self.r)?;
        let level = match self.get(&s, "level", false) {
            None => 0,
            Some(l) => self.level(&s, &l)?,
        };
        let formatter = match self.get(&s, "formatter", false).filter(|f| !f.is_empty()) {
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
                    self.r.push(
                        &s,
                        "formatter",
                        format!("{f:?} is not one of [formatters] keys"),
                    );
                    return None;
                }
            },
        };
        Some(Handler {
            sink,
            level,
            formatter,
            color: false,
        })
    }

    /// A `level` value of `[s]` as Python's number (refused when not a level name).
    fn level(&mut self, s: &str, l: &str) -> Option<PyLevel> {
        let level = py_level(l);
        if level.is_none() {
            self.r
                .push(s, "level", format!("{l:?} is not a logging level name"));
        }
        level
    }

    /// `[logger_<l>]`: `qualname` (not for root), `level` (root's default WARNING),
    /// `handlers` (built ones, by index), `propagate` (0 or 1; never for root).
    fn logger(&mut self, l: &str, handler_index: &BTreeMap<String, usize>) -> Option<Logger> {
        let s = self.section("logger", l)?;
        let name = if l == "root" {
            String::new()
        } else {
            let Some(q) = self.get(&s, "qualname", false) else {
                self.r
                    .push(&s, "qualname", "missing (fileConfig requires it)");
                return None;
            };
            q
        };
        let level = match self.get(&s, "level", false) {
            None => None,
            Some(v) => Some(self.level(&s, &v)?).filter(|n| *n != 0),
        };
        let mut hs = Vec::new();
        for h in self.list(&s, "handlers") {
            match handler_index.get(&h) {
                Some(i) => hs.push(*i),
                None => self
                    .r
                    .push(&s, "handlers", format!("{h:?} is not a handler Keel built")),
            }
        }
        let propagate = match self.get(&s, "propagate", false).as_deref() {
            None | Some("1") => true,
            Some("0") => false,
            Some(v) => {
                self.r
                    .push(&s, "propagate", format!("{v:?}: expected 0 or 1"));
                true
            }
        };
        Some(Logger {
            name,
            // Python's root defaults to WARNING when fileConfig sets no level.
            level: if l == "root" {
                level.or(Some(30))
            } else {
                level
            },
            handlers: hs,
            propagate: l != "root" && propagate,
        })
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
