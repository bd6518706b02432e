//! `[DEFAULT]`: oslo.log's logging options, oslo.messaging's RPC ones and Octavia's `host`: their
//! rows of [`OPTS`](super::OPTS), in registration order.

use std::path::PathBuf;

use crate::catalog::{Opt, Use};

typed! { "DEFAULT";
    /// oslo.messaging's RPC transport URL (secret: its password), the amphora provider's RabbitMQ.
    TRANSPORT_URL: String = "transport_url" "str" "rabbit://" secret true;
    /// The exchange the amphora provider's casts go to.
    CONTROL_EXCHANGE: String = "control_exchange" "str" "octavia";
    /// oslo.log: DEBUG rather than INFO.
    DEBUG: bool = "debug" "bool" "False";
    /// oslo.log: a Python logging fileConfig file that replaces the other logging options.
    LOG_CONFIG_APPEND: Option<PathBuf> = "log_config_append" "str" "" aliases ["log_config"];
    /// oslo.log: the strftime format of `%(asctime)s`.
    LOG_DATE_FORMAT: String = "log_date_format" "str" "%Y-%m-%d %H:%M:%S";
    /// oslo.log: the file logged to (unset: stderr).
    LOG_FILE: Option<PathBuf> = "log_file" "str" "" aliases ["logfile"];
    /// oslo.log: the directory of a relative `log_file`.
    LOG_DIR: Option<PathBuf> = "log_dir" "str" "" aliases ["logdir"];
    /// oslo.log: JSON lines (`JSONFormatter`).
    USE_JSON: bool = "use_json" "bool" "False";
    /// oslo.log: also log to stderr.
    USE_STDERR: bool = "use_stderr" "bool" "False";
    /// oslo.log: colour the level of each line.
    LOG_COLOR: bool = "log_color" "bool" "False";
    /// oslo.log: the format of a line with a request context.
    LOGGING_CONTEXT_FORMAT_STRING: String = "logging_context_format_string" "str" "%(asctime)s.%(msecs)03d %(process)d %(levelname)s %(name)s [%(global_request_id)s %(request_id)s %(user_identity)s] %(instance)s%(message)s";
    /// oslo.log: the format of a line without a request context.
    LOGGING_DEFAULT_FORMAT_STRING: String = "logging_default_format_string" "str" "%(asctime)s.%(msecs)03d %(process)d %(levelname)s %(name)s [-] %(instance)s%(message)s";
    /// oslo.log: appended to DEBUG lines.
    LOGGING_DEBUG_FORMAT_SUFFIX: String = "logging_debug_format_suffix" "str" "%(funcName)s %(pathname)s:%(lineno)d";
    /// oslo.log: the prefix of each traceback line.
    LOGGING_EXCEPTION_PREFIX: String = "logging_exception_prefix" "str" "%(asctime)s.%(msecs)03d %(process)d ERROR %(name)s %(instance)s";
    /// oslo.log: `%(user_identity)s` of a request context.
    LOGGING_USER_IDENTITY_FORMAT: String = "logging_user_identity_format" "str" "%(user)s %(project)s %(domain)s %(system_scope)s %(user_domain)s %(project_domain)s";
    /// oslo.log: `logger=LEVEL` items, each logger's level.
    DEFAULT_LOG_LEVELS: Vec<String> = "default_log_levels" "list" "amqp=WARN,boto=WARN,sqlalchemy=WARN,suds=INFO,oslo.messaging=INFO,oslo_messaging=INFO,iso8601=WARN,requests.packages.urllib3.connectionpool=WARN,urllib3.connectionpool=WARN,websocket=WARN,requests.packages.urllib3.util.retry=WARN,urllib3.util.retry=WARN,keystonemiddleware=WARN,routes.middleware=WARN,stevedore=WARN,taskflow=WARN,keystoneauth=WARN,oslo.cache=INFO,oslo_policy=INFO,dogpile.core.dogpile=INFO";
}

/// The rows of `[DEFAULT]`, in registration order.
#[rustfmt::skip]
pub(super) const ROWS: &[Opt] = &[
    Opt { section: "DEFAULT", name: "executor_thread_pool_size", kind: "int", default: "64", secret: false, aliases: &["rpc_thread_pool_size"], use_: Use::NotApplicable("RPC") },
    Opt { section: "DEFAULT", name: "rpc_response_timeout", kind: "int", default: "60", secret: false, aliases: &[], use_: Use::NotApplicable("RPC") },
    TRANSPORT_URL.opt,
    CONTROL_EXCHANGE.opt,
    Opt { section: "DEFAULT", name: "rpc_ping_enabled", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::NotApplicable("RPC") },
    Opt { section: "DEFAULT", name: "host", kind: "host", default: "vm", secret: false, aliases: &[], use_: Use::NotApplicable("names the controller host (workers, amphorae)") },
    DEBUG.opt,
    LOG_CONFIG_APPEND.opt,
    LOG_DATE_FORMAT.opt,
    LOG_FILE.opt,
    LOG_DIR.opt,
    Opt { section: "DEFAULT", name: "use_syslog", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "use_journal", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "syslog_log_facility", kind: "str", default: "LOG_USER", secret: false, aliases: &[], use_: Use::Unimplemented },
    USE_JSON.opt,
    USE_STDERR.opt,
    LOG_COLOR.opt,
    Opt { section: "DEFAULT", name: "log_rotate_interval", kind: "int", default: "1", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "log_rotate_interval_type", kind: "str", default: "days", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "max_logfile_count", kind: "int", default: "30", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "max_logfile_size_mb", kind: "int", default: "200", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "log_rotation_type", kind: "str", default: "none", secret: false, aliases: &[], use_: Use::Unimplemented },
    LOGGING_CONTEXT_FORMAT_STRING.opt,
    LOGGING_DEFAULT_FORMAT_STRING.opt,
    LOGGING_DEBUG_FORMAT_SUFFIX.opt,
    LOGGING_EXCEPTION_PREFIX.opt,
    LOGGING_USER_IDENTITY_FORMAT.opt,
    DEFAULT_LOG_LEVELS.opt,
    Opt { section: "DEFAULT", name: "publish_errors", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "instance_format", kind: "str", default: "[instance: %(uuid)s] ", secret: false, aliases: &[], use_: Use::NotApplicable("Nova instances") },
    Opt { section: "DEFAULT", name: "instance_uuid_format", kind: "str", default: "[instance: %(uuid)s] ", secret: false, aliases: &[], use_: Use::NotApplicable("Nova instances") },
    Opt { section: "DEFAULT", name: "rate_limit_interval", kind: "int", default: "0", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "rate_limit_burst", kind: "int", default: "0", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "rate_limit_except_level", kind: "str", default: "CRITICAL", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "fatal_deprecations", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
];
