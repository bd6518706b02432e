//! `[DEFAULT]`: oslo.log's logging options, oslo.messaging's RPC ones and Octavia's `host`: their
//! rows of [`OPTS`](super::OPTS), in registration order.

use super::{Opt, Use};

/// The rows of `[DEFAULT]`, in registration order.
#[rustfmt::skip]
pub(super) const ROWS: &[Opt] = &[
    Opt { section: "DEFAULT", name: "executor_thread_pool_size", kind: "int", default: "64", secret: false, aliases: &["rpc_thread_pool_size"], use_: Use::NotApplicable("RPC") },
    Opt { section: "DEFAULT", name: "rpc_response_timeout", kind: "int", default: "60", secret: false, aliases: &[], use_: Use::NotApplicable("RPC") },
    Opt { section: "DEFAULT", name: "transport_url", kind: "str", default: "rabbit://", secret: true, aliases: &[], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "control_exchange", kind: "str", default: "octavia", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "rpc_ping_enabled", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::NotApplicable("RPC") },
    Opt { section: "DEFAULT", name: "host", kind: "host", default: "vm", secret: false, aliases: &[], use_: Use::NotApplicable("names the controller host (workers, amphorae)") },
    Opt { section: "DEFAULT", name: "debug", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "log_config_append", kind: "str", default: "", secret: false, aliases: &["log_config"], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "log_date_format", kind: "str", default: "%Y-%m-%d %H:%M:%S", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "log_file", kind: "str", default: "", secret: false, aliases: &["logfile"], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "log_dir", kind: "str", default: "", secret: false, aliases: &["logdir"], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "use_syslog", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "use_journal", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "syslog_log_facility", kind: "str", default: "LOG_USER", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "use_json", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "use_stderr", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "log_color", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "log_rotate_interval", kind: "int", default: "1", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "log_rotate_interval_type", kind: "str", default: "days", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "max_logfile_count", kind: "int", default: "30", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "max_logfile_size_mb", kind: "int", default: "200", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "log_rotation_type", kind: "str", default: "none", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "logging_context_format_string", kind: "str", default: "%(asctime)s.%(msecs)03d %(process)d %(levelname)s %(name)s [%(global_request_id)s %(request_id)s %(user_identity)s] %(instance)s%(message)s", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "logging_default_format_string", kind: "str", default: "%(asctime)s.%(msecs)03d %(process)d %(levelname)s %(name)s [-] %(instance)s%(message)s", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "logging_debug_format_suffix", kind: "str", default: "%(funcName)s %(pathname)s:%(lineno)d", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "logging_exception_prefix", kind: "str", default: "%(asctime)s.%(msecs)03d %(process)d ERROR %(name)s %(instance)s", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "logging_user_identity_format", kind: "str", default: "%(user)s %(project)s %(domain)s %(system_scope)s %(user_domain)s %(project_domain)s", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "default_log_levels", kind: "list", default: "amqp=WARN,boto=WARN,sqlalchemy=WARN,suds=INFO,oslo.messaging=INFO,oslo_messaging=INFO,iso8601=WARN,requests.packages.urllib3.connectionpool=WARN,urllib3.connectionpool=WARN,websocket=WARN,requests.packages.urllib3.util.retry=WARN,urllib3.util.retry=WARN,keystonemiddleware=WARN,routes.middleware=WARN,stevedore=WARN,taskflow=WARN,keystoneauth=WARN,oslo.cache=INFO,oslo_policy=INFO,dogpile.core.dogpile=INFO", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "DEFAULT", name: "publish_errors", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "instance_format", kind: "str", default: "[instance: %(uuid)s] ", secret: false, aliases: &[], use_: Use::NotApplicable("Nova instances") },
    Opt { section: "DEFAULT", name: "instance_uuid_format", kind: "str", default: "[instance: %(uuid)s] ", secret: false, aliases: &[], use_: Use::NotApplicable("Nova instances") },
    Opt { section: "DEFAULT", name: "rate_limit_interval", kind: "int", default: "0", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "rate_limit_burst", kind: "int", default: "0", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "rate_limit_except_level", kind: "str", default: "CRITICAL", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "DEFAULT", name: "fatal_deprecations", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
];
