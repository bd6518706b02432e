//! Logging as oslo.log does it: the [`LogPlan`] of `[DEFAULT]` (oslo.log's own setup, or the
//! `log_config_append` fileConfig file) drives which handler (stderr, stdout, a file) gets
//! which event, formatted how.
//!
//! Text lines are oslo.log's `ContextFormatter`'s: `logging_context_format_string` for events
//! inside a request (a `request_id` span field), `logging_default_format_string` outside,
//! `logging_debug_format_suffix` after DEBUG ones, `logging_exception_prefix` before each
//! continuation line of a multi-line message. With the defaults:
//! `2026-12-01 08:43:19.123 4242 INFO api::middleware [None req-… <user> <project> - - - -] request …`.
//! `%(name)s` is the event's target (`api::load_balancer`); its level and handlers are those
//! of the Python logger it maps to (`config::python_logger`: `octavia.api.load_balancer`).
//! `%(message)s` is the message followed by the event's fields as ` key=value`. The bracket's
//! `user_identity` holds the request's user and project ids (`-` when unknown: domains and
//! system scope are not tracked). JSON lines (`use_json = True`, `JSONFormatter`) carry
//! `asctime`, `process`, `levelname`, `name`, `message`, the span fields and the event's.
//!
//! ANSI colour (the level name) only on a stderr handler, and only when stderr is a terminal
//! (or `log_color = True`) and `NO_COLOR` is unset; a file never gets escapes. `KEEL_LOG` (an
//! `EnvFilter` directive) overrides every logger's level.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use tracing::field::{Field, Visit};
use tracing::{Event, Level, Metadata, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;

use crate::config::{Formatter, LogPlan, LogSettings, OsloFormats, PyLevel, Sink};
use compat::log_format::Value;

/// Field values of one span or event, in order of recording.
#[derive(Default, Clone)]
struct Fields(BTreeMap<&'static str, serde_json::Value>, Option<String>);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.put(field, serde_json::Value::String(format!("{value:?}")));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.put(field, serde_json::Value::String(value.to_string()));
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.put(field, value.into());
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.put(field, value.into());
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.put(field, value.into());
    }
}

impl Fields {
    fn put(&mut self, field: &Field, v: serde_json::Value) {
        if field.name() == "message" {
            self.1 = Some(match v {
                serde_json::Value::String(s) => s,
                other => other.to_string(),
            });
        } else {
            self.0.insert(field.name(), v);
        }
    }
}

fn text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// An open handler output.
enum Out {
    Stdout,
    Stderr,
    File {
        path: PathBuf,
        file: std::fs::File,
        /// (device, inode) of the open file, for `watched`.
        id: (u64, u64),
        watched: bool,
    },
    Null,
}

fn file_id(m: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (m.dev(), m.ino())
}

fn open_append(path: &PathBuf) -> std::io::Result<(std::fs::File, (u64, u64))> {
    let f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    let id = file_id(&f.metadata()?);
    Ok((f, id))
}

impl Out {
    fn write_line(&mut self, line: &str) {
        match self {
            Out::Stdout => {
                let _ = writeln!(std::io::stdout().lock(), "{line}");
            }
            Out::Stderr => {
                let _ = writeln!(std::io::stderr().lock(), "{line}");
            }
            Out::File {
                path,
                file,
                id,
                watched,
            } => {
                // WatchedFileHandler: the path moved or removed (logrotate) → reopen it.
                if *watched
                    && std::fs::metadata(&*path).map(|m| file_id(&m)).ok() != Some(*id)
                    && let Ok((f, i)) = open_append(path)
                {
                    *file = f;
                    *id = i;
                }
                let _ = writeln!(file, "{line}");
            }
            Out::Null => {}
        }
    }
}

struct OutHandler {
    out: Mutex<Out>,
    level: PyLevel,
    formatter: Formatter,
    color: bool,
}

/// The layer that routes and writes every event (see the module doc).
/// Where the records of one target go: its effective level and the handlers (indexes).
type Route = (PyLevel, Vec<usize>);

struct OsloLayer {
    plan: LogPlan,
    handlers: Vec<OutHandler>,
    formats: OsloFormats,
    /// `KEEL_LOG` is set: its filter decides levels.
    env_levels: bool,
    routes: Mutex<HashMap<String, Arc<Route>>>,
    pid: u32,
    started: std::time::Instant,
}

fn level_no(l: &Level) -> PyLevel {
    match *l {
        Level::ERROR => 40,
        Level::WARN => 30,
        Level::INFO => 20,
        Level::DEBUG => 10,
        Level::TRACE => 5,
    }
}

fn level_name(l: &Level) -> &'static str {
    match *l {
        Level::ERROR => "ERROR",
        Level::WARN => "WARNING",
        Level::INFO => "INFO",
        Level::DEBUG => "DEBUG",
        Level::TRACE => "TRACE",
    }
}

impl OsloLayer {
    fn route(&self, target: &str) -> Arc<Route> {
        let mut routes = match self.routes.lock() {
            Ok(r) => r,
            Err(p) => p.into_inner(),
        };
        if let Some(r) = routes.get(target) {
            return r.clone();
        }
        let r = Arc::new(self.plan.route(&crate::config::python_logger(target)));
        routes.insert(target.to_string(), r.clone());
        r
    }
}

/// Python's `formatTime`: `datefmt` (strftime), or `%Y-%m-%d %H:%M:%S,mmm` without one.
fn asctime(now: &chrono::DateTime<chrono::Local>, datefmt: Option<&str>) -> String {
    let mut s = String::new();
    match datefmt {
        Some(f) => {
            let _ = write!(s, "{}", now.format(f));
        }
        None => {
            let _ = write!(
                s,
                "{},{:03}",
                now.format("%Y-%m-%d %H:%M:%S"),
                now.timestamp_subsec_millis()
            );
        }
    }
    s
}

/// One event, as the formats see it.
struct Record<'a> {
    meta: &'static Metadata<'static>,
    now: chrono::DateTime<chrono::Local>,
    message: String,
    ctx: &'a BTreeMap<&'static str, serde_json::Value>,
    ev: &'a BTreeMap<&'static str, serde_json::Value>,
    pid: u32,
    relative_ms: f64,
}

impl Record<'_> {
    fn ctx_str(&self, key: &str) -> Option<String> {
        self.ctx
            .get(key)
            .or_else(|| self.ev.get(key))
            .map(text)
            .filter(|s| !s.is_empty())
    }

    /// `get` for [`compat::log_format::Format::render`]; `datefmt` for `asctime`.
    fn value(&self, key: &str, datefmt: Option<&str>, formats: &OsloFormats) -> Option<Value> {
        let s = |v: String| Some(Value::Str(v));
        let dash = |k: &str| self.ctx_str(k).unwrap_or_else(|| "-".into());
        match key {
            "asctime" => s(asctime(&self.now, datefmt)),
            "msecs" => Some(Value::Int(i64::from(self.now.timestamp_subsec_millis()))),
            "created" => Some(Value::Float(
                self.now.timestamp_micros() as f64 / 1_000_000.0,
            )),
            "relativeCreated" => Some(Value::Float(self.relative_ms)),
            "isotime" => s(self
                .now
                .to_rfc3339_opts(chrono::SecondsFormat::Micros, false)),
            "process" => Some(Value::Int(i64::from(self.pid))),
            "processName" => s("MainProcess".into()),
            "thread" => Some(Value::Int(0)),
            "threadName" | "taskName" => s(std::thread::current()
                .name()
                .unwrap_or("MainThread")
                .to_string()),
            "levelname" => s(level_name(self.meta.level()).into()),
            "levelno" => Some(Value::Int(i64::from(level_no(self.meta.level())))),
            "name" => s(crate::config::event_target(self.meta.target()).into_owned()),
            "message" | "msg" => s(self.message.clone()),
            "pathname" => s(self.meta.file().unwrap_or("").to_string()),
            "filename" => s(self
                .meta
                .file()
                .and_then(|f| f.rsplit('/').next())
                .unwrap_or("")
                .to_string()),
            "module" => s(self
                .meta
                .file()
                .and_then(|f| f.rsplit('/').next())
                .map(|f| f.trim_end_matches(".rs").to_string())
                .unwrap_or_default()),
            "funcName" => s(self.meta.module_path().unwrap_or("").to_string()),
            "lineno" => Some(Value::Int(i64::from(self.meta.line().unwrap_or(0)))),
            "error_summary" => s("-".into()),
            // oslo.log: a context's global_request_id, `None` when the request had none.
            "global_request_id" => match self.ctx_str("global_request_id") {
                Some(g) => s(g),
                None if self.ctx_str("request_id").is_some() => s("None".into()),
                None => None,
            },
            "user_identity" => s(formats
                .user_identity
                .render(&|k| self.value(k, datefmt, formats))),
            "user" => s(dash("user_id")),
            "tenant" | "project" => s(dash("project_id")),
            "domain" | "system_scope" | "user_domain" | "project_domain" | "user_name"
            | "project_name" => s("-".into()),
            other => self.ctx_str(other).map(Value::Str),
        }
    }

    fn json(&self) -> String {
        let mut obj = serde_json::Map::new();
        obj.insert(
            "asctime".into(),
            asctime(&self.now, Some("%Y-%m-%d %H:%M:%S%.3f")).into(),
        );
        obj.insert("process".into(), self.pid.into());
        obj.insert("levelname".into(), level_name(self.meta.level()).into());
        obj.insert(
            "name".into(),
            crate::config::event_target(self.meta.target())
                .into_owned()
                .into(),
        );
        obj.insert("message".into(), self.message.clone().into());
        for (k, v) in self.ctx.iter().chain(self.ev.iter()) {
            obj.insert((*k).to_string(), v.clone());
        }
        serde_json::Value::Object(obj).to_string()
    }
}

impl OsloLayer {
    fn format(&self, h: &OutHandler, r: &Record<'_>) -> String {
        let f = &self.formats;
        match &h.formatter {
            Formatter::Json => r.json(),
            Formatter::Python { format, datefmt } => {
                format.render(&|k| r.value(k, datefmt.as_deref(), f))
            }
            Formatter::Context { datefmt } => {
                let d = datefmt.as_deref();
                let colored = |k: &str| match (k, h.color) {
                    ("levelname", true) => {
                        let c = match *r.meta.level() {
                            Level::ERROR => "31",
                            Level::WARN => "33",
                            Level::INFO => "32",
                            _ => "34",
                        };
                        Some(Value::Str(format!(
                            "\x1b[{c}m{}\x1b[0m",
                            level_name(r.meta.level())
                        )))
                    }
                    _ => r.value(k, d, f),
                };
                let main = if r.ctx_str("request_id").is_some() {
                    &f.context
                } else {
                    &f.default
                };
                // One line per line of the message: the first as the format says, the
                // others after logging_exception_prefix (oslo.log's traceback lines).
                let mut lines = r.message.split('\n');
                let first = lines.next().unwrap_or("").to_string();
                let head = Record {
                    message: first,
                    ..*r
                };
                let mut out = main.render(&|k| match k {
                    "message" | "msg" => head.value(k, d, f),
                    _ => colored(k),
                });
                if *r.meta.level() == Level::DEBUG && !f.debug_suffix.0.is_empty() {
                    out.push(' ');
                    out.push_str(&f.debug_suffix.render(&|k| r.value(k, d, f)));
                }
                for more in lines {
                    out.push('\n');
                    out.push_str(&f.exception_prefix.render(&|k| r.value(k, d, f)));
                    out.push_str(more);
                }
                out
            }
        }
    }
}

impl<S> Layer<S> for OsloLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn enabled(&self, meta: &Metadata<'_>, _ctx: Context<'_, S>) -> bool {
        if meta.is_span() || self.env_levels {
            return true;
        }
        let (level, handlers) = &*self.route(meta.target());
        level_no(meta.level()) >= *level && !handlers.is_empty()
    }

    fn on_new_span(
        &self,
        attrs: &tracing::span::Attributes<'_>,
        id: &tracing::span::Id,
        ctx: Context<'_, S>,
    ) {
        if let Some(span) = ctx.span(id) {
            let mut f = Fields::default();
            attrs.record(&mut f);
            span.extensions_mut().insert(f);
        }
    }

    fn on_record(
        &self,
        id: &tracing::span::Id,
        values: &tracing::span::Record<'_>,
        ctx: Context<'_, S>,
    ) {
        if let Some(span) = ctx.span(id) {
            let mut ext = span.extensions_mut();
            if let Some(f) = ext.get_mut::<Fields>() {
                values.record(f);
            }
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let mut ev = Fields::default();
        event.record(&mut ev);
        // Outermost span first, so an inner span's value of the same field wins.
        let mut ctx_fields: BTreeMap<&'static str, serde_json::Value> = BTreeMap::new();
        if let Some(scope) = ctx.event_scope(event) {
            for span in scope.from_root() {
                if let Some(f) = span.extensions().get::<Fields>() {
                    for (k, v) in &f.0 {
                        ctx_fields.insert(k, v.clone());
                    }
                }
            }
        }
        let meta = event.metadata();
        let route = self.route(meta.target());
        let mut message = ev.1.take().unwrap_or_default();
        let mut json_message = message.clone();
        for (k, v) in &ev.0 {
            message.push_str(&format!(" {k}={}", text(v)));
        }
        let r = Record {
            meta,
            now: chrono::Local::now(),
            message: std::mem::take(&mut message),
            ctx: &ctx_fields,
            ev: &ev.0,
            pid: self.pid,
            relative_ms: self.started.elapsed().as_secs_f64() * 1000.0,
        };
        let no = level_no(meta.level());
        for &i in &route.1 {
            let Some(h) = self.handlers.get(i) else {
                continue;
            };
            if no < h.level {
                continue;
            }
            let line = if matches!(h.formatter, Formatter::Json) {
                let j = Record {
                    message: std::mem::take(&mut json_message),
                    ..r
                };
                let line = j.json();
                json_message = j.message;
                line
            } else {
                self.format(h, &r)
            };
            let mut out = match h.out.lock() {
                Ok(o) => o,
                Err(p) => p.into_inner(),
            };
            out.write_line(&line);
        }
    }
}

/// Installs the process-wide logger; `binary` names the file under `log_dir` when `log_file`
/// is unset (see [`LogSettings::file`]). A `log_config_append` Keel cannot honour (the
/// review refuses it) leaves oslo.log's own setup in place, so that the refusal is seen.
/// Errors: a log file cannot be opened (naming the option or the logging file's handler).
pub fn init(s: &LogSettings, binary: &str) -> anyhow::Result<()> {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let tty = !no_color && std::io::stderr().is_terminal();
    let plan = match s.plan(binary, tty) {
        Ok(p) => p,
        Err(_) => LogSettings {
            log_config_append: None,
            ..s.clone()
        }
        .plan(binary, tty)
        .map_err(|e| anyhow::anyhow!("logging: {}", e.join("; ")))?,
    };
    let mut handlers = Vec::new();
    for h in &plan.handlers {
        let out = match &h.sink {
            Sink::Stdout => Out::Stdout,
            Sink::Stderr => Out::Stderr,
            Sink::Null => Out::Null,
            Sink::File { path, watched } => {
                let (file, id) = open_append(path).map_err(|e| {
                    let key = match (&s.log_config_append, &s.log_file) {
                        (Some(f), _) => format!("log_config_append {} handler", f.display()),
                        (None, Some(_)) => "log_file".into(),
                        (None, None) => "log_dir".into(),
                    };
                    anyhow::anyhow!("[DEFAULT] {key} {}: {e}", path.display())
                })?;
                Out::File {
                    path: path.clone(),
                    file,
                    id,
                    watched: *watched,
                }
            }
        };
        handlers.push(OutHandler {
            out: Mutex::new(out),
            level: h.level,
            formatter: h.formatter.clone(),
            color: h.color && !no_color && matches!(h.sink, Sink::Stderr),
        });
    }
    let env = tracing_subscriber::EnvFilter::try_from_env("KEEL_LOG").ok();
    let layer = OsloLayer {
        plan,
        handlers,
        formats: s.formats.clone(),
        env_levels: env.is_some(),
        routes: Mutex::new(HashMap::new()),
        pid: std::process::id(),
        started: std::time::Instant::now(),
    };
    // per-layer filters: `KEEL_LOG` chooses what is logged, never which stages are timed
    tracing_subscriber::registry()
        .with(layer.with_filter(env))
        .with(crate::stages::StageLayer::filtered())
        .try_init()
        .map_err(|e| anyhow::anyhow!("logging: {e}"))
}
