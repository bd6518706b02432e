//! Logging as oslo.log does it, from `[DEFAULT]`: `debug`, `log_file`/`log_dir` (`log_dir`
//! alone: `<log_dir>/octavia-api.log` for `keel serve`, as octavia-api's), `use_stderr`,
//! `use_json`, `log_color`.
//!
//! Text lines follow oslo.log's `logging_context_format_string`
//! (`%(asctime)s.%(msecs)03d %(process)d %(levelname)s %(name)s [%(request_id)s …] %(message)s`):
//! `2026-12-01 08:43:19.123 4242 INFO api::load_balancer [req-… project=… lb=…] message k=v`.
//! The bracket holds the fields of the spans the event is in (`request_id`, `project_id`,
//! `lb_id`, …; `-` outside any). JSON lines (`use_json = True`) carry the same as keys
//! (`asctime`, `process`, `levelname`, `name`, `message`, the span fields, the event's
//! fields), one object per line, as oslo.log's `JSONFormatter` does per record.
//!
//! ANSI colour only on stderr, and only when it is a terminal (or `log_color = True`) and
//! `NO_COLOR` is unset; a file never gets escapes. `KEEL_LOG` (an `EnvFilter` directive)
//! overrides the level from `debug`.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};

use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;

use crate::config::LogSettings;

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

struct Sink {
    file: Option<std::fs::File>,
    stderr: bool,
    stderr_ansi: bool,
}

/// The layer that writes every event (see the module doc).
struct OsloLayer {
    json: bool,
    sink: Arc<Mutex<Sink>>,
    pid: u32,
}

fn text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl<S> Layer<S> for OsloLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
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
        let now = chrono::Local::now();
        let asctime = now.format("%Y-%m-%d %H:%M:%S%.3f").to_string();
        let level = match *meta.level() {
            Level::ERROR => "ERROR",
            Level::WARN => "WARNING",
            Level::INFO => "INFO",
            Level::DEBUG => "DEBUG",
            Level::TRACE => "TRACE",
        };
        let message = ev.1.take().unwrap_or_default();
        let (plain, coloured) = if self.json {
            let mut obj = serde_json::Map::new();
            obj.insert("asctime".into(), asctime.into());
            obj.insert("process".into(), self.pid.into());
            obj.insert("levelname".into(), level.into());
            obj.insert("name".into(), meta.target().into());
            obj.insert("message".into(), message.into());
            for (k, v) in ctx_fields.iter().chain(ev.0.iter()) {
                obj.insert((*k).to_string(), v.clone());
            }
            let line = serde_json::Value::Object(obj).to_string();
            (line.clone(), line)
        } else {
            let bracket = if ctx_fields.is_empty() {
                "-".to_string()
            } else {
                let id = ctx_fields.get("request_id").map(text);
                id.into_iter()
                    .chain(
                        ctx_fields
                            .iter()
                            .filter(|(k, _)| **k != "request_id")
                            .map(|(k, v)| format!("{k}={}", text(v))),
                    )
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let mut rest = message;
            for (k, v) in &ev.0 {
                rest.push_str(&format!(" {k}={}", text(v)));
            }
            let head = format!("{asctime} {} ", self.pid);
            let tail = format!(" {} [{bracket}] {rest}", meta.target());
            let colour = match *meta.level() {
                Level::ERROR => "31",
                Level::WARN => "33",
                Level::INFO => "32",
                _ => "34",
            };
            (
                format!("{head}{level}{tail}"),
                format!("{head}\x1b[{colour}m{level}\x1b[0m{tail}"),
            )
        };
        let mut sink = match self.sink.lock() {
            Ok(s) => s,
            Err(p) => p.into_inner(),
        };
        if let Some(f) = sink.file.as_mut() {
            let _ = writeln!(f, "{plain}");
        }
        if sink.stderr {
            let line = if sink.stderr_ansi { &coloured } else { &plain };
            let _ = writeln!(std::io::stderr().lock(), "{line}");
        }
    }
}

/// Installs the process-wide logger; `binary` names the file under `log_dir` when `log_file`
/// is unset (see [`LogSettings::file`]). Errors: the log file cannot be opened.
pub fn init(s: &LogSettings, binary: &str) -> anyhow::Result<()> {
    let file = match s.file(binary) {
        Some(path) => Some(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .map_err(|e| {
                    let key = if s.log_file.is_some() {
                        "log_file"
                    } else {
                        "log_dir"
                    };
                    anyhow::anyhow!("[DEFAULT] {key} {}: {e}", path.display())
                })?,
        ),
        None => None,
    };
    let stderr = file.is_none() || s.use_stderr;
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let stderr_ansi = stderr && !no_color && (std::io::stderr().is_terminal() || s.log_color);
    let default = if s.debug { "debug" } else { "info" };
    let filter = tracing_subscriber::EnvFilter::try_from_env("KEEL_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let layer = OsloLayer {
        json: s.use_json,
        sink: Arc::new(Mutex::new(Sink {
            file,
            stderr,
            stderr_ansi,
        })),
        pid: std::process::id(),
    };
    tracing_subscriber::registry()
        .with(filter)
        .with(layer)
        .try_init()
        .map_err(|e| anyhow::anyhow!("logging: {e}"))
}
