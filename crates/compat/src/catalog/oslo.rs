//! The oslo libraries' own sections: `[database]` (oslo.db), `[oslo_concurrency]`,
//! `[oslo_messaging*]` (oslo.messaging; `[oslo_messaging_rabbit]` is typed in
//! `rabbit.rs`), `[oslo_policy]` (oslo.policy): their rows of
//! [`OPTS`](super::OPTS), in registration order.

use crate::catalog::{Opt, Use};

/// `[database]`: the options Keel reads, typed (their rows of [`OPTS`](crate::catalog::OPTS)).
pub mod database {
    use crate::catalog::AtLeast;
    use std::time::Duration;
    typed! { "database";
        /// oslo.db: the database layer (Keel has the `sqlalchemy` one's schema only).
        BACKEND: String = "backend" "str" "sqlalchemy";
        /// oslo.db: the SQLAlchemy URL (Keel: an embedded SQLite file when unset).
        CONNECTION: String = "connection" "str" "" secret true keel "sqlite://keel.sqlite?mode=rwc";
        /// oslo.db: `a=1&b=2` appended to the URL's query.
        CONNECTION_PARAMETERS: String = "connection_parameters" "str" "";
        /// oslo.db: the longest life of a pooled connection (s).
        CONNECTION_RECYCLE_TIME: Option<Duration> = "connection_recycle_time" "int" "3600";
        /// oslo.db: connections kept open (the pool's bound with `max_overflow`).
        MAX_POOL_SIZE: AtLeast<0> = "max_pool_size" "int" "5";
        /// oslo.db: connection attempts at start-up (-1: forever).
        MAX_RETRIES: AtLeast<-1> = "max_retries" "int" "10";
        /// oslo.db: seconds between those attempts.
        RETRY_INTERVAL: u64 = "retry_interval" "int" "10";
        /// oslo.db: connections opened beyond `max_pool_size` under load (-1: unlimited).
        MAX_OVERFLOW: AtLeast<-1> = "max_overflow" "int" "50";
        /// oslo.db: how long a request waits for a pooled connection (s; Keel: 5 when unset).
        POOL_TIMEOUT: Option<Duration> = "pool_timeout" "int" "";
    }
}

/// `[oslo_policy]`: the options Keel reads, typed (their rows of [`OPTS`](crate::catalog::OPTS)).
pub mod oslo_policy {
    typed! { "oslo_policy";
        /// oslo.policy: False ORs each deprecated rule with its new default.
        ENFORCE_NEW_DEFAULTS: bool = "enforce_new_defaults" "bool" "True";
        /// oslo.policy: the file of rule overrides (relative: looked up in the config dirs).
        POLICY_FILE: String = "policy_file" "str" "policy.yaml";
        /// oslo.policy (`MultiStrOpt`): directories of further rule files.
        POLICY_DIRS: Vec<String> = "policy_dirs" "multi" "policy.d";
    }
}

/// The rows of `[database]`, `[oslo_concurrency]`, `[oslo_messaging]`, `[oslo_messaging_kafka]`,
/// `[oslo_messaging_notifications]`, `[oslo_policy]`, in registration order
/// (`[oslo_messaging_rabbit]`'s come from its constants, [`super::oslo_messaging_rabbit`]).
#[rustfmt::skip]
pub(super) const ROWS: &[Opt] = &[
    Opt { section: "database", name: "sqlite_synchronous", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Unimplemented },
    database::BACKEND.opt,
    database::CONNECTION.opt,
    Opt { section: "database", name: "slave_connection", kind: "str", default: "", secret: true, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "database", name: "asyncio_connection", kind: "str", default: "", secret: true, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "database", name: "asyncio_slave_connection", kind: "str", default: "", secret: true, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "database", name: "synchronous_reader", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "database", name: "mysql_sql_mode", kind: "str", default: "TRADITIONAL", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "database", name: "mysql_wsrep_sync_wait", kind: "int", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    database::CONNECTION_RECYCLE_TIME.opt,
    database::MAX_POOL_SIZE.opt,
    database::MAX_RETRIES.opt,
    database::RETRY_INTERVAL.opt,
    database::MAX_OVERFLOW.opt,
    Opt { section: "database", name: "connection_debug", kind: "int", default: "0", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "database", name: "connection_trace", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    database::POOL_TIMEOUT.opt,
    Opt { section: "database", name: "use_db_reconnect", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "database", name: "db_retry_interval", kind: "int", default: "1", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "database", name: "db_inc_retry_interval", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "database", name: "db_max_retry_interval", kind: "int", default: "10", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "database", name: "db_max_retries", kind: "int", default: "20", secret: false, aliases: &[], use_: Use::Unimplemented },
    database::CONNECTION_PARAMETERS.opt,
    Opt { section: "oslo_concurrency", name: "disable_process_locking", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::NotApplicable("external locks of the controller worker") },
    Opt { section: "oslo_concurrency", name: "lock_path", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("external locks of the controller worker") },
    Opt { section: "oslo_messaging", name: "topic", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("RPC to the controller worker") },
    Opt { section: "oslo_messaging_kafka", name: "kafka_max_fetch_bytes", kind: "int", default: "1048576", secret: false, aliases: &[], use_: Use::NotApplicable("RPC/notifications") },
    Opt { section: "oslo_messaging_kafka", name: "kafka_consumer_timeout", kind: "float", default: "1.0", secret: false, aliases: &[], use_: Use::NotApplicable("RPC/notifications") },
    Opt { section: "oslo_messaging_kafka", name: "consumer_group", kind: "str", default: "oslo_messaging_consumer", secret: false, aliases: &[], use_: Use::NotApplicable("RPC/notifications") },
    Opt { section: "oslo_messaging_kafka", name: "producer_batch_timeout", kind: "float", default: "0.0", secret: false, aliases: &[], use_: Use::NotApplicable("RPC/notifications") },
    Opt { section: "oslo_messaging_kafka", name: "producer_batch_size", kind: "int", default: "16384", secret: false, aliases: &[], use_: Use::NotApplicable("RPC/notifications") },
    Opt { section: "oslo_messaging_kafka", name: "compression_codec", kind: "str", default: "none", secret: false, aliases: &[], use_: Use::NotApplicable("RPC/notifications") },
    Opt { section: "oslo_messaging_kafka", name: "enable_auto_commit", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::NotApplicable("RPC/notifications") },
    Opt { section: "oslo_messaging_kafka", name: "max_poll_records", kind: "int", default: "500", secret: false, aliases: &[], use_: Use::NotApplicable("RPC/notifications") },
    Opt { section: "oslo_messaging_kafka", name: "security_protocol", kind: "str", default: "PLAINTEXT", secret: false, aliases: &[], use_: Use::NotApplicable("RPC/notifications") },
    Opt { section: "oslo_messaging_kafka", name: "sasl_mechanism", kind: "str", default: "PLAIN", secret: false, aliases: &[], use_: Use::NotApplicable("RPC/notifications") },
    Opt { section: "oslo_messaging_kafka", name: "ssl_cafile", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("RPC/notifications") },
    Opt { section: "oslo_messaging_kafka", name: "ssl_client_cert_file", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("RPC/notifications") },
    Opt { section: "oslo_messaging_kafka", name: "ssl_client_key_file", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("RPC/notifications") },
    Opt { section: "oslo_messaging_kafka", name: "ssl_client_key_password", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("RPC/notifications") },
    Opt { section: "oslo_messaging_notifications", name: "driver", kind: "multi", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("notifications (Octavia sends none from the API for OVN)") },
    Opt { section: "oslo_messaging_notifications", name: "transport_url", kind: "str", default: "", secret: true, aliases: &[], use_: Use::NotApplicable("notifications (Octavia sends none from the API for OVN)") },
    Opt { section: "oslo_messaging_notifications", name: "topics", kind: "list", default: "notifications", secret: false, aliases: &[], use_: Use::NotApplicable("notifications (Octavia sends none from the API for OVN)") },
    Opt { section: "oslo_messaging_notifications", name: "retry", kind: "int", default: "-1", secret: false, aliases: &[], use_: Use::NotApplicable("notifications (Octavia sends none from the API for OVN)") },
    oslo_policy::ENFORCE_NEW_DEFAULTS.opt,
    oslo_policy::POLICY_FILE.opt,
    Opt { section: "oslo_policy", name: "policy_default_rule", kind: "str", default: "default", secret: false, aliases: &[], use_: Use::Unimplemented },
    oslo_policy::POLICY_DIRS.opt,
    Opt { section: "oslo_policy", name: "remote_content_type", kind: "str", default: "application/x-www-form-urlencoded", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "oslo_policy", name: "remote_ssl_verify_server_crt", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "oslo_policy", name: "remote_ssl_ca_crt_file", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "oslo_policy", name: "remote_ssl_client_crt_file", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "oslo_policy", name: "remote_ssl_client_key_file", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "oslo_policy", name: "remote_timeout", kind: "float", default: "60", secret: false, aliases: &[], use_: Use::Unimplemented },
];
