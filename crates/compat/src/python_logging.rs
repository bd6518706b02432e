//! Python's logging tree as `logging.config.fileConfig` or oslo.log's own setup leave it:
//! handlers (where, from which level, formatted how) and loggers (dotted names, levels,
//! handlers, `propagate`), and how a record of one logger is routed through it
//! ([`LogPlan::route`], as `Logger.callHandlers`).
//!
//! ```
//! use compat::log_format::Format;
//! use compat::python_logging::{Formatter, Handler, LogPlan, Logger, Sink, py_level};
//!
//! let handler = Handler {
//!     sink: Sink::Stderr,
//!     level: 0,
//!     formatter: Formatter::Python { format: Format::default(), datefmt: None },
//!     color: false,
//! };
//! let logger = |name: &str, level: &str, handlers: Vec<usize>| Logger {
//!     name: name.into(),
//!     level: py_level(level),
//!     handlers,
//!     propagate: true,
//! };
//! let plan = LogPlan {
//!     handlers: vec![handler],
//!     loggers: vec![logger("", "INFO", vec![0]), logger("sqlalchemy", "WARN", vec![])],
//! };
//! // `sqlalchemy.engine` takes `sqlalchemy`'s level and propagates to the root's handler
//! assert_eq!(plan.route("sqlalchemy.engine"), (30, vec![0]));
//! assert_eq!(plan.route("octavia.api"), (20, vec![0]));
//! ```

use std::path::PathBuf;

use crate::log_format::Format;

/// A Python logging level (`logging.DEBUG` = 10 …; oslo.log's `TRACE` = 5). Keel's events:
/// TRACE 5, DEBUG 10, INFO 20, WARN 30, ERROR 40.
pub type PyLevel = u8;

/// A Python level name (`DEBUG`, `WARN`, …, as `logging._checkLevel`: upper case) → its number.
pub fn py_level(name: &str) -> Option<PyLevel> {
    Some(match name.trim() {
        "NOTSET" => 0,
        "TRACE" => 5,
        "DEBUG" => 10,
        "INFO" => 20,
        "WARN" | "WARNING" => 30,
        "ERROR" => 40,
        "CRITICAL" | "FATAL" => 50,
        _ => return None,
    })
}

/// Where a handler writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sink {
    /// `sys.stdout`.
    Stdout,
    /// `sys.stderr`.
    Stderr,
    /// A file opened for appending; `watched`: reopened when moved or removed (logrotate), as
    /// `logging.handlers.WatchedFileHandler`.
    File {
        /// The file.
        path: PathBuf,
        /// Reopen when the path no longer names the open file.
        watched: bool,
    },
    /// `logging.NullHandler`: nothing.
    Null,
}

/// How a handler formats.
#[derive(Debug, Clone, PartialEq)]
pub enum Formatter {
    /// `oslo_log.formatters.ContextFormatter`: oslo.log's `logging_*_format_string`s;
    /// `datefmt` for `%(asctime)s` (None: Python's `%Y-%m-%d %H:%M:%S,mmm`).
    Context {
        /// `[formatter_*] datefmt`, or `log_date_format` in oslo.log's own setup.
        datefmt: Option<String>,
    },
    /// `logging.Formatter` with `format` (default `%(message)s`) and `datefmt`.
    Python {
        /// The parsed `format`.
        format: Format,
        /// `datefmt` (strftime).
        datefmt: Option<String>,
    },
    /// `oslo_log.formatters.JSONFormatter` (and `use_json = True`).
    Json,
}

/// One handler.
#[derive(Debug, Clone, PartialEq)]
pub struct Handler {
    /// Where.
    pub sink: Sink,
    /// Minimum level (0: all).
    pub level: PyLevel,
    /// How.
    pub formatter: Formatter,
    /// ANSI colours (oslo's `ColorHandler`: `log_color`, or stderr on a terminal).
    pub color: bool,
}

/// One configured logger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Logger {
    /// Dotted Python name; `""` is the root logger.
    pub name: String,
    /// Level (None: NOTSET, the parent's applies).
    pub level: Option<PyLevel>,
    /// Indexes into [`LogPlan::handlers`].
    pub handlers: Vec<usize>,
    /// Records also go to the parent's handlers.
    pub propagate: bool,
}

/// Handlers and loggers, as Python's logging tree after setup.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LogPlan {
    /// Every handler.
    pub handlers: Vec<Handler>,
    /// Every configured logger, the root (`""`) included.
    pub loggers: Vec<Logger>,
}

impl LogPlan {
    fn logger(&self, name: &str) -> Option<&Logger> {
        self.loggers.iter().find(|l| l.name == name)
    }

    /// The ancestors of `name` that are configured, most specific first, root last.
    fn chain(&self, name: &str) -> Vec<&Logger> {
        let mut out = Vec::new();
        let mut n = name.to_string();
        loop {
            if let Some(l) = self.logger(&n) {
                out.push(l);
            }
            if n.is_empty() {
                break;
            }
            n = n
                .rsplit_once('.')
                .map_or(String::new(), |(p, _)| p.to_string());
        }
        out
    }

    /// For an event of Python logger `name`: its effective level (Python's
    /// `getEffectiveLevel`; root's default WARNING) and the handlers it reaches (the chain's
    /// until a logger with `propagate = 0`; a handler on two loggers gets it twice, as Python).
    pub fn route(&self, name: &str) -> (PyLevel, Vec<usize>) {
        let chain = self.chain(name);
        let level = chain.iter().find_map(|l| l.level).unwrap_or(30);
        let mut handlers = Vec::new();
        for l in chain {
            handlers.extend(l.handlers.iter().copied());
            if !l.propagate {
                break;
            }
        }
        (level, handlers)
    }
}

/// The record attributes a format may name: Python's `LogRecord`, oslo.log's
/// `ContextFormatter` fields and context values, and the fields of Keel's request spans.
pub const RECORD_KEYS: &[&str] = &[
    "asctime",
    "msecs",
    "created",
    "relativeCreated",
    "process",
    "processName",
    "thread",
    "threadName",
    "taskName",
    "levelname",
    "levelno",
    "name",
    "message",
    "msg",
    "args",
    "module",
    "filename",
    "pathname",
    "funcName",
    "lineno",
    "exc_info",
    "exc_text",
    "stack_info",
    "isotime",
    "instance",
    "color",
    "user_identity",
    "resource",
    "user_name",
    "project_name",
    "global_request_id",
    "request_id",
    "error_summary",
    "user",
    "tenant",
    "project",
    "domain",
    "system_scope",
    "user_domain",
    "project_domain",
    "user_id",
    "project_id",
    "lb_id",
    "hostname",
    "extra_keys",
];

/// Whether `f` is a strftime format Keel can render (a `datefmt`, `log_date_format`).
pub fn valid_datefmt(f: &str) -> bool {
    !chrono::format::StrftimeItems::new(f).any(|i| matches!(i, chrono::format::Item::Error))
}
