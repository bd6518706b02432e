//! The catalog's `[oslo_messaging_rabbit]` rows pinned as they were when they were written out
//! by hand in `catalog/oslo.rs` (name, oslo type, registered default, deprecated names, secret,
//! use), in registration order: `keel config check` and `docs/configuration.md` print them.

use compat::catalog::{OPTS, Use, find};

const CASTS: &str = "queues, consumers or replies: the API only casts";

#[test]
fn rabbit_rows_are_unchanged() {
    let rows: Vec<String> = OPTS
        .iter()
        .filter(|o| o.section == "oslo_messaging_rabbit")
        .map(|o| {
            let use_ = match o.use_ {
                Use::Honoured => "Honoured".to_string(),
                Use::Unimplemented => "Unimplemented".to_string(),
                Use::NotApplicable(w) if w == CASTS => "NotApplicable(casts)".to_string(),
                Use::NotApplicable(w) => format!("NotApplicable({w})"),
            };
            format!(
                "{} {} {} [{}] {} {use_}",
                o.name,
                o.kind,
                o.default,
                o.aliases.join(","),
                o.secret
            )
        })
        .collect();
    let want = [
        "amqp_durable_queues bool False [] false Honoured",
        "amqp_auto_delete bool False [] false Honoured",
        "rpc_conn_pool_size int 30 [] false Honoured",
        "conn_pool_min_size int 2 [] false Honoured",
        "conn_pool_ttl int 1200 [] false NotApplicable(casts)",
        "ssl bool False [] false Honoured",
        "ssl_version str  [] false Honoured",
        "ssl_key_file str  [] false Honoured",
        "ssl_cert_file str  [] false Honoured",
        "ssl_ca_file str  [] false Honoured",
        "ssl_enforce_hostname_verification bool True [] false NotApplicable(casts)",
        "ssl_enforce_fips_mode bool False [] false NotApplicable(casts)",
        "kombu_reconnect_delay float 1.0 [] false Honoured",
        "kombu_reconnect_splay float 0.0 [] false Honoured",
        "kombu_compression str  [] false Honoured",
        "kombu_missing_consumer_retry_timeout int 60 [kombu_reconnect_timeout] false NotApplicable(casts)",
        "kombu_failover_strategy str round-robin [] false Honoured",
        "rabbit_login_method str AMQPLAIN [] false Honoured",
        "rabbit_retry_interval int 1 [] false Honoured",
        "rabbit_retry_backoff int 2 [] false Honoured",
        "rabbit_interval_max int 30 [] false Honoured",
        "rabbit_ha_queues bool False [] false NotApplicable(casts)",
        "rabbit_quorum_queue bool False [] false Honoured",
        "rabbit_transient_quorum_queue bool False [] false Honoured",
        "rabbit_quorum_delivery_limit int 0 [] false NotApplicable(casts)",
        "rabbit_quorum_max_memory_length int 0 [] false NotApplicable(casts)",
        "rabbit_quorum_max_memory_bytes int 0 [] false NotApplicable(casts)",
        "rabbit_transient_queues_ttl int 1800 [] false NotApplicable(casts)",
        "rabbit_qos_prefetch_count int 0 [] false Honoured",
        "heartbeat_timeout_threshold int 60 [] false Honoured",
        "heartbeat_rate int 3 [] false NotApplicable(casts)",
        "direct_mandatory_flag bool True [] false NotApplicable(casts)",
        "enable_cancel_on_failover bool False [] false NotApplicable(casts)",
        "use_queue_manager bool False [] false NotApplicable(casts)",
        "hostname str vm [] false NotApplicable(casts)",
        "processname str oslo-config-generator [] false NotApplicable(casts)",
        "rabbit_stream_fanout bool False [] false Honoured",
    ];
    assert_eq!(rows, want);
}

#[test]
fn rabbit_rows_sit_between_notifications_and_middleware() {
    let sections: Vec<&str> = OPTS.iter().map(|o| o.section).collect();
    let first = sections.iter().position(|s| *s == "oslo_messaging_rabbit");
    let last = sections.iter().rposition(|s| *s == "oslo_messaging_rabbit");
    let (Some(first), Some(last)) = (first, last) else {
        panic!("no [oslo_messaging_rabbit] rows");
    };
    assert_eq!(last - first + 1, 37);
    assert_eq!(sections[first - 1], "oslo_messaging_notifications");
    assert_eq!(sections[last + 1], "oslo_middleware"); // sections in byte order
}

#[test]
fn the_alias_finds_its_option() {
    let o = find("oslo_messaging_rabbit", "kombu_reconnect_timeout");
    assert_eq!(
        o.map(|o| o.name),
        Some("kombu_missing_consumer_retry_timeout")
    );
    assert!(find("oslo_messaging_rabbit", "no_such_option").is_none());
}
