//! Each `[oslo_messaging_rabbit]` option's behaviour pinned as it is read today: its default,
//! a valid value and what it reads as, a refused value and the error's text, the deprecated
//! alias. Written before the options' names and defaults came from the catalog, unchanged since.

use super::*;

/// `(name, default, a valid text, its value, a refused text, the refusal's text after
/// `[oslo_messaging_rabbit] <name>: `)`; `None` where the option has no refused text (strings).
type Row = (
    &'static str,
    Value,
    &'static str,
    Value,
    Option<(&'static str, &'static str)>,
);

fn rows() -> Vec<Row> {
    let n = json!(null);
    vec![
        (
            "rpc_conn_pool_size",
            json!(30),
            " 1_5 ",
            json!(15),
            Some(("0", "0 is less than the minimum 1")),
        ),
        (
            "conn_pool_min_size",
            json!(2),
            "-3",
            json!(-3),
            Some(("1.5", "\"1.5\" is not an integer")),
        ),
        (
            "conn_pool_ttl",
            json!(1200),
            "+7",
            json!(7),
            Some(("", "\"\" is not an integer")),
        ),
        (
            "ssl",
            json!(false),
            " YES ",
            json!(true),
            Some(("maybe", "\"maybe\" is not a boolean")),
        ),
        ("ssl_version", json!(""), "TLSv1_2", json!("TLSv1_2"), None),
        ("ssl_key_file", json!(""), "/k.pem", json!("/k.pem"), None),
        ("ssl_cert_file", json!(""), "/c.pem", json!("/c.pem"), None),
        (
            "ssl_ca_file",
            json!(""),
            " /ca.pem",
            json!(" /ca.pem"),
            None,
        ),
        (
            "ssl_enforce_hostname_verification",
            json!(true),
            "off",
            json!(false),
            Some(("2", "\"2\" is not a boolean")),
        ),
        (
            "ssl_enforce_fips_mode",
            json!(false),
            "On",
            json!(true),
            Some(("", "\"\" is not a boolean")),
        ),
        (
            "kombu_reconnect_delay",
            json!(1.0),
            "4.5",
            json!(4.5),
            Some(("4.6", "4.6 is greater than the maximum 4.5")),
        ),
        (
            "kombu_reconnect_splay",
            json!(0.0),
            " 0.25",
            json!(0.25),
            Some(("-1", "-1 is less than the minimum 0")),
        ),
        ("kombu_compression", n.clone(), "", json!(""), None),
        (
            "kombu_missing_consumer_retry_timeout",
            json!(60),
            "90",
            json!(90),
            Some(("9x", "\"9x\" is not an integer")),
        ),
        (
            "kombu_failover_strategy",
            json!("round-robin"),
            "shuffle",
            json!("shuffle"),
            Some(("Shuffle", "\"Shuffle\" is not round-robin or shuffle")),
        ),
        (
            "rabbit_login_method",
            json!("AMQPLAIN"),
            "RABBIT-CR-DEMO",
            json!("RABBIT-CR-DEMO"),
            Some((
                "amqplain",
                "\"amqplain\" is not PLAIN, AMQPLAIN, EXTERNAL or RABBIT-CR-DEMO",
            )),
        ),
        (
            "rabbit_retry_interval",
            json!(1),
            "1",
            json!(1),
            Some(("0", "0 is less than the minimum 1")),
        ),
        (
            "rabbit_retry_backoff",
            json!(2),
            "0",
            json!(0),
            Some(("-1", "-1 is less than the minimum 0")),
        ),
        (
            "rabbit_interval_max",
            json!(30),
            "10",
            json!(10),
            Some(("0", "0 is less than the minimum 1")),
        ),
        (
            "rabbit_ha_queues",
            json!(false),
            "1",
            json!(true),
            Some(("truee", "\"truee\" is not a boolean")),
        ),
        (
            "rabbit_quorum_queue",
            json!(false),
            "true",
            json!(true),
            Some(("y", "\"y\" is not a boolean")),
        ),
        (
            "rabbit_transient_quorum_queue",
            json!(false),
            "on",
            json!(true),
            Some(("t", "\"t\" is not a boolean")),
        ),
        (
            "rabbit_quorum_delivery_limit",
            json!(0),
            "-5",
            json!(-5),
            Some(("1e3", "\"1e3\" is not an integer")),
        ),
        (
            "rabbit_quorum_max_memory_length",
            json!(0),
            "7",
            json!(7),
            Some(("x", "\"x\" is not an integer")),
        ),
        (
            "rabbit_quorum_max_memory_bytes",
            json!(0),
            "8",
            json!(8),
            Some((
                "99999999999999999999",
                "\"99999999999999999999\" is not an integer",
            )),
        ),
        (
            "rabbit_transient_queues_ttl",
            json!(1800),
            "0",
            json!(0),
            Some(("-1", "-1 is less than the minimum 0")),
        ),
        (
            "rabbit_qos_prefetch_count",
            json!(0),
            "4",
            json!(4),
            Some(("four", "\"four\" is not an integer")),
        ),
        (
            "heartbeat_timeout_threshold",
            json!(60),
            "70000",
            json!(70000),
            Some(("6 0", "\"6 0\" is not an integer")),
        ),
        (
            "heartbeat_rate",
            json!(3),
            "5",
            json!(5),
            Some(("3.0", "\"3.0\" is not an integer")),
        ),
        (
            "direct_mandatory_flag",
            json!(true),
            "no",
            json!(false),
            Some(("nope", "\"nope\" is not a boolean")),
        ),
        (
            "enable_cancel_on_failover",
            json!(false),
            "yes",
            json!(true),
            Some(("-1", "\"-1\" is not a boolean")),
        ),
        (
            "use_queue_manager",
            json!(false),
            "0",
            json!(false),
            Some(("ja", "\"ja\" is not a boolean")),
        ),
        (
            "hostname",
            json!(default_hostname()),
            "myhost",
            json!("myhost"),
            None,
        ),
        (
            "processname",
            json!(default_processname()),
            "",
            json!(""),
            None,
        ),
        (
            "rabbit_stream_fanout",
            json!(false),
            "FALSE",
            json!(false),
            Some(("00", "\"00\" is not a boolean")),
        ),
        (
            "amqp_durable_queues",
            json!(false),
            "True",
            json!(true),
            Some(("+", "\"+\" is not a boolean")),
        ),
        (
            "amqp_auto_delete",
            json!(false),
            "off",
            json!(false),
            Some(("of", "\"of\" is not a boolean")),
        ),
    ]
}

#[test]
fn every_option_reads_as_before() {
    let rows = rows();
    let names: Vec<&str> = rows.iter().map(|r| r.0).collect();
    assert_eq!(names, OPTION_NAMES.to_vec(), "names in registration order");
    let d = RabbitOptions::default();
    for (name, default, ok, value, refused) in rows {
        assert!(RabbitOptions::is_option(name), "{name}");
        assert_eq!(d.get(name), Some(default), "{name}: default");
        let mut o = RabbitOptions::default();
        o.set(name, ok)
            .unwrap_or_else(|e| panic!("{name}={ok:?}: {e}"));
        assert_eq!(o.get(name), Some(value), "{name}={ok:?}");
        if let Some((bad, why)) = refused {
            let mut o = RabbitOptions::default();
            let e = o.set(name, bad).err().map(|e| e.to_string());
            assert_eq!(
                e,
                Some(format!("[oslo_messaging_rabbit] {name}: {why}")),
                "{name}={bad:?}"
            );
            // a refused value leaves the option as it was
            assert_eq!(o, RabbitOptions::default(), "{name}={bad:?}");
        }
    }
}

#[test]
fn floats_refuse_what_is_no_finite_number() {
    let mut o = RabbitOptions::default();
    for (text, why) in [
        ("nan", "\"nan\" is not a finite number"),
        ("inf", "\"inf\" is not a finite number"),
        ("-inf", "\"-inf\" is not a finite number"),
        ("x", "\"x\" is not a number"),
        ("", "\"\" is not a number"),
        ("-0.5", "-0.5 is less than the minimum 0"),
    ] {
        let e = o
            .set("kombu_reconnect_delay", text)
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            e,
            Some(format!(
                "[oslo_messaging_rabbit] kombu_reconnect_delay: {why}"
            )),
            "{text:?}"
        );
    }
    o.set("kombu_reconnect_delay", "1e-1")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(o.kombu_reconnect_delay, 0.1);
}

#[test]
fn the_alias_and_unknown_names() {
    assert!(RabbitOptions::is_option("kombu_reconnect_timeout"));
    assert!(!RabbitOptions::is_option("no_such_option"));
    assert!(!RabbitOptions::is_option("Ssl"));
    let mut o = RabbitOptions::default();
    o.set("kombu_reconnect_timeout", "7")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(o.kombu_missing_consumer_retry_timeout, 7);
    assert_eq!(o.get("kombu_reconnect_timeout"), Some(json!(7)));
    // the alias's refusal names the option's own name
    let e = o
        .set("kombu_reconnect_timeout", "x")
        .err()
        .map(|e| e.to_string());
    assert_eq!(
        e.as_deref(),
        Some(
            "[oslo_messaging_rabbit] kombu_missing_consumer_retry_timeout: \"x\" is not an integer"
        )
    );
    let e = o.set("no_such_option", "1").err().map(|e| e.to_string());
    assert_eq!(
        e.as_deref(),
        Some(
            "[oslo_messaging_rabbit] transport_url: \"no_such_option\" is not an option of \
             [oslo_messaging_rabbit] (oslo.messaging 18.2.0)"
        )
    );
    assert_eq!(o.get("no_such_option"), None);
}

#[test]
fn check_refuses_out_of_bounds_fields_as_before() {
    let text = |f: &dyn Fn(&mut RabbitOptions)| {
        let mut o = RabbitOptions::default();
        f(&mut o);
        o.check().err().map(|e| e.to_string())
    };
    let r = |s: &str| Some(format!("[oslo_messaging_rabbit] {s}"));
    assert_eq!(text(&|_| {}), None);
    assert_eq!(
        text(&|o| o.rpc_conn_pool_size = 0),
        r("rpc_conn_pool_size: 0 is less than the minimum 1")
    );
    assert_eq!(
        text(&|o| o.rabbit_retry_interval = 0),
        r("rabbit_retry_interval: 0 is less than the minimum 1")
    );
    assert_eq!(
        text(&|o| o.rabbit_retry_backoff = -1),
        r("rabbit_retry_backoff: -1 is less than the minimum 0")
    );
    assert_eq!(
        text(&|o| o.rabbit_interval_max = 0),
        r("rabbit_interval_max: 0 is less than the minimum 1")
    );
    assert_eq!(
        text(&|o| o.rabbit_transient_queues_ttl = -2),
        r("rabbit_transient_queues_ttl: -2 is less than the minimum 0")
    );
    assert_eq!(
        text(&|o| o.kombu_reconnect_delay = 4.75),
        r("kombu_reconnect_delay: 4.75 is greater than the maximum 4.5")
    );
    assert_eq!(
        text(&|o| o.kombu_reconnect_delay = f64::NAN),
        r("kombu_reconnect_delay: NaN is not a finite number")
    );
    assert_eq!(
        text(&|o| o.kombu_reconnect_splay = -0.5),
        r("kombu_reconnect_splay: -0.5 is less than the minimum 0")
    );
    assert_eq!(
        text(&|o| o.kombu_reconnect_splay = f64::INFINITY),
        r("kombu_reconnect_splay: inf is not a finite number")
    );
    // the first refused in check's order
    assert_eq!(
        text(&|o| {
            o.rabbit_interval_max = 0;
            o.rpc_conn_pool_size = 0;
            o.kombu_reconnect_delay = 9.0;
        }),
        r("rpc_conn_pool_size: 0 is less than the minimum 1")
    );
    assert_eq!(
        text(&|o| {
            o.kombu_reconnect_delay = 9.0;
            o.rpc_conn_pool_size = 1;
        }),
        r("kombu_reconnect_delay: 9 is greater than the maximum 4.5")
    );
    assert_eq!(
        text(&|o| o.kombu_compression = Some(String::new())),
        r(
            "kombu_compression: \"\": compressed message bodies are not implemented (unset the option)"
        )
    );
}

#[test]
fn the_default_is_the_enums_default() {
    let d = RabbitOptions::default();
    assert_eq!(d.kombu_failover_strategy, FailoverStrategy::RoundRobin);
    assert_eq!(d.rabbit_login_method, LoginMethod::AmqPlain);
    assert_eq!(d.kombu_compression, None);
    assert!(!d.durable());
}
