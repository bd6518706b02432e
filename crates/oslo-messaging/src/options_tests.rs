//! `RabbitOptions` against the options oslo.messaging registers (tests/data/rabbit_opts.json,
//! written by gen_fixtures.py from `impl_rabbit.rabbit_opts + amqp.amqp_opts`).

use super::*;

fn fixture() -> Vec<Value> {
    match serde_json::from_str::<Value>(include_str!("../tests/data/rabbit_opts.json")) {
        Ok(Value::Array(opts)) => opts,
        other => panic!("rabbit_opts.json: {other:?}"),
    }
}

#[test]
fn defaults_and_names_are_oslo_messaging_18_2_0s() {
    let opts = fixture();
    let names: Vec<&str> = opts.iter().filter_map(|o| o["name"].as_str()).collect();
    assert_eq!(names, OPTION_NAMES.to_vec());
    let d = RabbitOptions::default();
    for o in &opts {
        let name = o["name"].as_str().unwrap_or_default();
        let ours = d.get(name).unwrap_or_else(|| panic!("{name} missing"));
        if o["environment_default"] == true {
            assert!(ours.is_string(), "{name}");
            continue;
        }
        let theirs = &o["default"];
        if let (Some(a), Some(b)) = (ours.as_f64(), theirs.as_f64()) {
            assert_eq!(a, b, "{name}");
        } else {
            assert_eq!(&ours, theirs, "{name}");
        }
        for alias in o["deprecated_names"].as_array().into_iter().flatten() {
            assert!(RabbitOptions::is_option(alias.as_str().unwrap_or_default()));
        }
    }
    d.check()
        .unwrap_or_else(|e| panic!("defaults refused: {e}"));
}

#[test]
fn set_parses_and_bounds_as_oslo_config() {
    let opts = fixture();
    let mut o = RabbitOptions::default();
    for spec in &opts {
        let name = spec["name"].as_str().unwrap_or_default();
        // The minimum is accepted, one below refused; choices are exact.
        if let Some(min) = spec["min"].as_f64() {
            let ok = if spec["type"] == "FloatOpt" {
                format!("{min}")
            } else {
                format!("{}", min as i64)
            };
            o.set(name, &ok)
                .unwrap_or_else(|e| panic!("{name}={ok}: {e}"));
            let below = if spec["type"] == "FloatOpt" {
                format!("{}", min - 0.5)
            } else {
                format!("{}", min as i64 - 1)
            };
            assert!(o.set(name, &below).is_err(), "{name}={below}");
        }
        if let Some(max) = spec["max"].as_f64() {
            assert!(o.set(name, &format!("{}", max + 0.5)).is_err(), "{name}");
        }
        for choice in spec["choices"].as_array().into_iter().flatten() {
            let c = choice.as_str().unwrap_or_default();
            o.set(name, c).unwrap_or_else(|e| panic!("{name}={c}: {e}"));
            assert_eq!(o.get(name), Some(json!(c)));
            assert!(
                o.set(name, &c.to_lowercase().replace('-', "_")).is_err() || c == c.to_lowercase()
            );
        }
        if spec["type"] == "BoolOpt" {
            for (text, v) in [
                ("True", true),
                ("on", true),
                ("1", true),
                ("no", false),
                ("OFF", false),
            ] {
                o.set(name, text)
                    .unwrap_or_else(|e| panic!("{name}={text}: {e}"));
                assert_eq!(o.get(name), Some(json!(v)));
            }
            assert!(o.set(name, "maybe").is_err());
        }
    }
    o.set("kombu_reconnect_timeout", "7")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(o.kombu_missing_consumer_retry_timeout, 7);
    assert!(o.set("no_such_option", "1").is_err());
}

#[test]
fn url_query_overrides_options() {
    let url = TransportUrl::parse(
        "rabbit://h/?ssl=true&amqp_durable_queues=1&kombu_failover_strategy=shuffle",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let o = RabbitOptions::default()
        .with_url_query(&url)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(o.ssl && o.amqp_durable_queues && o.durable());
    assert_eq!(o.kombu_failover_strategy, FailoverStrategy::Shuffle);
    for bad in [
        "rabbit://h/?nope=1",
        "rabbit://h/?ssl=1&ssl=0",
        "rabbit://h/?rabbit_retry_interval=0",
    ] {
        let url = TransportUrl::parse(bad).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            RabbitOptions::default().with_url_query(&url).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn check_refuses_what_cannot_be_honoured() {
    let refused = |f: &dyn Fn(&mut RabbitOptions), needle: &str| {
        let mut o = RabbitOptions::default();
        f(&mut o);
        match o.check() {
            Ok(()) => panic!("accepted ({needle})"),
            Err(e) => assert!(e.to_string().contains(needle), "{e} lacks {needle}"),
        }
    };
    refused(
        &|o| o.kombu_compression = Some("gzip".into()),
        "kombu_compression",
    );
    refused(&|o| o.rpc_conn_pool_size = 1, "conn_pool_min_size");
    refused(
        &|o| o.rabbit_stream_fanout = true,
        "rabbit_qos_prefetch_count",
    );
    refused(
        &|o| {
            o.rabbit_stream_fanout = true;
            o.rabbit_qos_prefetch_count = 1;
        },
        "rabbit_transient_quorum_queue",
    );
    refused(
        &|o| o.heartbeat_timeout_threshold = 70000,
        "heartbeat_timeout_threshold",
    );
    refused(&|o| o.kombu_reconnect_delay = 5.0, "kombu_reconnect_delay");
    refused(&|o| o.rabbit_retry_interval = 0, "rabbit_retry_interval");
    refused(
        &|o| {
            o.ssl = true;
            o.ssl_version = "TLSv1".into();
        },
        "ssl_version",
    );
    refused(
        &|o| {
            o.ssl = true;
            o.ssl_version = "SSLv3".into();
        },
        "invalid SSL version",
    );
    refused(
        &|o| {
            o.ssl = true;
            o.ssl_ca_file = "/nonexistent/ca.pem".into();
        },
        "ssl_ca_file /nonexistent/ca.pem",
    );
    refused(
        &|o| {
            o.ssl = true;
            o.ssl_cert_file = "/nonexistent/cert.pem".into();
        },
        "ssl_cert_file",
    );
    // Without ssl the files are not read (oslo ignores them).
    let o = RabbitOptions {
        ssl_ca_file: "/nonexistent/ca.pem".into(),
        ssl_version: "TLSv1".into(),
        ..RabbitOptions::default()
    };
    o.check().unwrap_or_else(|e| panic!("{e}"));
    // TLSv1_2 and SSLv23 in any case are accepted.
    for v in ["TLSv1_2", "sslv23", "SSLv23"] {
        let o = RabbitOptions {
            ssl: true,
            ssl_version: v.into(),
            ..RabbitOptions::default()
        };
        o.check().unwrap_or_else(|e| panic!("{v}: {e}"));
    }
}

#[test]
fn check_reads_tls_files() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let empty = dir.path().join("empty.pem");
    std::fs::write(&empty, "not a certificate\n").unwrap_or_else(|e| panic!("{e}"));
    let o = RabbitOptions {
        ssl: true,
        ssl_ca_file: empty.display().to_string(),
        ..RabbitOptions::default()
    };
    let e = o.check().err().map(|e| e.to_string()).unwrap_or_default();
    assert!(e.contains("holds no PEM certificate"), "{e}");
}

#[test]
fn tls_file_errors_keep_their_cause() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let missing = dir.path().join("missing.pem").display().to_string();
    let o = RabbitOptions {
        ssl: true,
        ssl_ca_file: missing.clone(),
        ..RabbitOptions::default()
    };
    let e = o
        .check()
        .err()
        .unwrap_or_else(|| panic!("a missing CA file passed"));
    // the I/O error is the source, and (as before) not in the text
    assert_eq!(
        e.to_string(),
        format!("[oslo_messaging_rabbit] ssl_ca_file {missing}: cannot be read")
    );
    let io = std::error::Error::source(&e)
        .and_then(|c| c.downcast_ref::<crate::TlsFileCause>())
        .unwrap_or_else(|| panic!("no TlsFileCause source: {e:?}"));
    assert!(matches!(io, crate::TlsFileCause::Io(_)), "{io:?}");
    // a PEM block that does not decode: the parse error is the source and ends the text
    let bad = dir.path().join("bad.pem");
    std::fs::write(
        &bad,
        "-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let o = RabbitOptions {
        ssl: true,
        ssl_ca_file: bad.display().to_string(),
        ..RabbitOptions::default()
    };
    let e = o
        .check()
        .err()
        .unwrap_or_else(|| panic!("a bad CA file passed"));
    let cause = std::error::Error::source(&e)
        .map(ToString::to_string)
        .unwrap_or_else(|| panic!("no source: {e:?}"));
    assert_eq!(
        e.to_string(),
        format!(
            "[oslo_messaging_rabbit] ssl_ca_file {}: bad PEM certificate: {cause}",
            bad.display()
        )
    );
}
