//! `[DEFAULT]` logging options (oslo.log 7.x, `oslo_log/_options.py`) and the plan they make:
//! which handlers (stderr, stdout, files) get which events, formatted how. Either oslo.log's
//! own setup (`_setup_logging_from_conf`: `debug`, `log_file`/`log_dir`, `use_stderr`,
//! `use_json`, `default_log_levels`, the `logging_*_format_string`s) or, with
//! `log_config_append`, the Python logging fileConfig file instead (as oslo.log: then
//! `debug` and `default_log_levels` do not apply), read by [`compat::log_config`].
//!
//! Python logger names ↔ Keel's event targets ([`python_logger`]): `octavia` is Keel's own code
//! (targets `keel`, `api`, `octavia_db`, `provider`), `ovn_octavia_provider` the OVN driver and
//! agent (`ovn_provider`), `ovsdbapp` the OVSDB client (`ovsdb`), `keystoneauth` /
//! `keystonemiddleware` the Keystone client (`openstack::keystone`), `openstack` the other
//! peer clients (`openstack::*`), `sqlalchemy` the SQL driver (`sqlx`), `urllib3` the HTTP
//! stack (`hyper`, `reqwest`, `h2`, `rustls`); any other target sits under `root`.

use std::path::PathBuf;

use super::error::ConfigError;
use super::section::Section;
use compat::catalog::Typed;
use compat::log_format::Format;
use compat::oslo_config::Sources;
pub use compat::python_logging::{
    Formatter, Handler, LogPlan, Logger, PyLevel, RECORD_KEYS, Sink, py_level, valid_datefmt,
};

/// The name an event of `target` is logged under: its `tracing` target, with this crate's
/// modules under `keel::` as they were before they left the binary (`service::recovery` →
/// `keel::recovery`), so log lines, `log_config_append` qualnames (`octavia.keel.recovery`) and
/// log filters read the same names as before the move.
pub fn event_target(target: &str) -> std::borrow::Cow<'_, str> {
    match target.strip_prefix("service") {
        Some(rest) if rest.is_empty() || rest.starts_with("::") => format!("keel{rest}").into(),
        _ => target.into(),
    }
}

/// The Python logger an event of `target` belongs to (see the module doc): the mapped prefix,
/// then the rest of the target's path, dotted (`api::load_balancer` → `octavia.api.load_balancer`).
pub fn python_logger(target: &str) -> String {
    let target = event_target(target);
    let (head, rest) = target.split_once("::").unwrap_or((&target, ""));
    let mapped = match (head, rest) {
        ("keel" | "api" | "octavia_db" | "provider", _) => format!("octavia.{head}"),
        ("ovn_provider", _) => "ovn_octavia_provider".into(),
        ("ovsdb", _) => "ovsdbapp".into(),
        ("openstack", r) if r.starts_with("keystone") => {
            return format!("keystoneauth.{}", r.replace("::", "."));
        }
        ("openstack", _) => "openstack".into(),
        ("sqlx", _) => "sqlalchemy.engine".into(),
        ("hyper" | "hyper_util" | "reqwest" | "h2" | "rustls", _) => {
            "urllib3.connectionpool".into()
        }
        _ => head.to_string(),
    };
    if rest.is_empty() {
        mapped
    } else {
        format!("{mapped}.{}", rest.replace("::", "."))
    }
}

/// oslo.log's format options (`_options.py` defaults), parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct OsloFormats {
    /// `logging_context_format_string`: records with a `request_id`.
    pub context: Format,
    /// `logging_default_format_string`: the others.
    pub default: Format,
    /// `logging_debug_format_suffix`: appended to DEBUG records (empty: none).
    pub debug_suffix: Format,
    /// `logging_exception_prefix`: before each continuation line of a multi-line message (as
    /// oslo.log before each traceback line).
    pub exception_prefix: Format,
    /// `logging_user_identity_format`: `%(user_identity)s`.
    pub user_identity: Format,
    /// `log_date_format`: `%(asctime)s` in oslo.log's own setup.
    pub date_format: String,
}

/// `[DEFAULT]` logging options (oslo.log).
#[derive(Debug, Clone)]
pub struct LogSettings {
    /// `debug` (False): root at DEBUG instead of INFO (oslo.log's own setup only).
    pub debug: bool,
    /// `log_file` (none): log to this file (relative to `log_dir` when that is set).
    pub log_file: Option<PathBuf>,
    /// `log_dir` (none): the directory of `log_file`; alone, the directory of
    /// `<binary>.log` (see [`LogSettings::file`]).
    pub log_dir: Option<PathBuf>,
    /// `use_json` (False): one JSON object per line.
    pub use_json: bool,
    /// `use_stderr` (False): also to stderr when logging to a file; without a file Keel
    /// always logs to stderr.
    pub use_stderr: bool,
    /// `log_color` (False): ANSI colours on stderr even when it is not a terminal; on a
    /// terminal Keel colours anyway.
    pub log_color: bool,
    /// The format strings.
    pub formats: OsloFormats,
    /// `default_log_levels` (oslo.log's list: `sqlalchemy=WARN`, `keystoneauth=WARN`, …):
    /// per-logger levels of oslo.log's own setup.
    pub default_log_levels: Vec<(String, PyLevel)>,
    /// `log_config_append` (or `log_config`): a Python logging fileConfig file that replaces
    /// oslo.log's own setup.
    pub log_config_append: Option<PathBuf>,
}

impl Default for LogSettings {
    fn default() -> Self {
        // The defaults parse (a unit test checks it).
        read(&crate::config::Sources::default()).unwrap_or_else(|_| unreachable_defaults())
    }
}

/// Never used: [`read`] of an empty source cannot fail (unit-tested); a plan with no formats.
fn unreachable_defaults() -> LogSettings {
    LogSettings {
        debug: false,
        log_file: None,
        log_dir: None,
        use_json: false,
        use_stderr: false,
        log_color: false,
        formats: OsloFormats {
            context: Format::default(),
            default: Format::default(),
            debug_suffix: Format::default(),
            exception_prefix: Format::default(),
            user_identity: Format::default(),
            date_format: compat::catalog::default::LOG_DATE_FORMAT.default.into(),
        },
        default_log_levels: Vec::new(),
        log_config_append: None,
    }
}

/// Reads `[DEFAULT]`'s logging options. Errors: a format string Python could not apply, a
/// `default_log_levels` item that is not `logger=LEVEL`.
pub(crate) fn read(src: &Sources) -> Result<LogSettings, ConfigError> {
    use compat::catalog::default as d;
    let known = |k: &str| RECORD_KEYS.contains(&k);
    let fmt = |o: &Typed<String>| -> Result<Format, ConfigError> {
        let v = Section::typed(src, o)?;
        Format::parse(&v, known).map_err(|why| Section::typed_invalid(src, o, why))
    };
    let formats = OsloFormats {
        context: fmt(&d::LOGGING_CONTEXT_FORMAT_STRING)?,
        default: fmt(&d::LOGGING_DEFAULT_FORMAT_STRING)?,
        debug_suffix: fmt(&d::LOGGING_DEBUG_FORMAT_SUFFIX)?,
        exception_prefix: fmt(&d::LOGGING_EXCEPTION_PREFIX)?,
        user_identity: fmt(&d::LOGGING_USER_IDENTITY_FORMAT)?,
        date_format: {
            let v = Section::typed(src, &d::LOG_DATE_FORMAT)?;
            if !valid_datefmt(&v) {
                return Err(Section::typed_invalid(
                    src,
                    &d::LOG_DATE_FORMAT,
                    "not a strftime format",
                ));
            }
            v
        },
    };
    let mut default_log_levels = Vec::new();
    for item in Section::typed(src, &d::DEFAULT_LOG_LEVELS)? {
        let parsed = item
            .split_once('=')
            .and_then(|(n, l)| py_level(l).map(|l| (n.trim().to_string(), l)));
        match parsed {
            Some(p) => default_log_levels.push(p),
            None => {
                return Err(Section::typed_refuse(
                    &d::DEFAULT_LOG_LEVELS,
                    item,
                    "expected logger=LEVEL (DEBUG, INFO, WARN, WARNING, ERROR, CRITICAL)",
                ));
            }
        }
    }
    Ok(LogSettings {
        debug: Section::typed(src, &d::DEBUG)?,
        log_file: Section::typed(src, &d::LOG_FILE)?,
        log_dir: Section::typed(src, &d::LOG_DIR)?,
        use_json: Section::typed(src, &d::USE_JSON)?,
        use_stderr: Section::typed(src, &d::USE_STDERR)?,
        log_color: Section::typed(src, &d::LOG_COLOR)?,
        formats,
        default_log_levels,
        log_config_append: Section::typed(src, &d::LOG_CONFIG_APPEND)?,
    })
}

impl LogSettings {
    /// The file to log to, as oslo.log's `_get_log_file_path`: `log_dir/log_file` (an absolute
    /// `log_file` stands alone), `log_file`, `log_dir/<binary>.log`, or none (stderr).
    ///
    /// `binary` is the name oslo.log would derive for the reference program this Keel command
    /// stands in for (`octavia-api` for `keel serve`, see `main.rs`). oslo.log takes the base name of the
    /// script at the bottom of the Python stack, i.e. the console script the operator started
    /// (`/usr/bin/octavia-api` → `octavia-api`); Keel's own name (`keel`) would put the file
    /// where no existing log collection (kolla's fluentd, logrotate rules) looks for it.
    pub fn file(&self, binary: &str) -> Option<PathBuf> {
        match (&self.log_file, &self.log_dir) {
            (Some(f), Some(d)) => Some(d.join(f)),
            (Some(f), None) => Some(f.clone()),
            (None, Some(d)) => Some(d.join(format!("{binary}.log"))),
            (None, None) => None,
        }
    }

    /// oslo.log's own setup, used without `log_config_append` (root at DEBUG with `debug`,
    /// else INFO; `default_log_levels`; the log file, stderr without one or with
    /// `use_stderr`; ContextFormatter, or JSON with `use_json`). `stderr_tty`: stderr is a
    /// terminal (colours). Errors: format strings Keel cannot honour.
    pub(super) fn own_plan(&self, binary: &str, stderr_tty: bool) -> Result<LogPlan, Vec<String>> {
        let formatter = if self.use_json {
            Formatter::Json
        } else {
            Formatter::Context {
                datefmt: Some(self.formats.date_format.clone()),
            }
        };
        let mut handlers = Vec::new();
        let file = self.file(binary);
        if let Some(path) = &file {
            handlers.push(Handler {
                sink: Sink::File {
                    path: path.clone(),
                    watched: true,
                },
                level: 0,
                formatter: formatter.clone(),
                color: false,
            });
        }
        if file.is_none() || self.use_stderr {
            handlers.push(Handler {
                sink: Sink::Stderr,
                level: 0,
                formatter,
                color: stderr_tty || self.log_color,
            });
        }
        let mut loggers = vec![Logger {
            name: String::new(),
            level: Some(if self.debug { 10 } else { 20 }),
            handlers: (0..handlers.len()).collect(),
            propagate: false,
        }];
        for (name, level) in &self.default_log_levels {
            loggers.push(Logger {
                name: name.clone(),
                level: Some(*level),
                handlers: Vec::new(),
                propagate: true,
            });
        }
        Ok(LogPlan { handlers, loggers })
    }
}
