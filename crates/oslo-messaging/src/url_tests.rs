//! `TransportUrl` against oslo.messaging's own `TransportURL.parse` and the kombu connection
//! parameters its rabbit driver derives (tests/data/urls.json, written by gen_fixtures.py).

use super::*;
use serde_json::Value;

fn fixture() -> Vec<Value> {
    let text = include_str!("../tests/data/urls.json");
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(cases)) => cases,
        other => panic!("urls.json: {other:?}"),
    }
}

fn opt_str(v: &Value) -> Option<String> {
    v.as_str().map(str::to_owned)
}

#[test]
fn parse_matches_oslo_transport_url_parse() {
    let cases = fixture();
    assert!(cases.len() >= 20);
    for case in cases {
        let raw = case["url"].as_str().unwrap_or_default();
        if case["transport"] == "kombu" {
            // oslo parses it, kombu then has no such transport: refused here.
            assert!(TransportUrl::parse(raw).is_err(), "{raw}");
            continue;
        }
        let url = TransportUrl::parse(raw).unwrap_or_else(|e| panic!("{raw}: {e}"));
        assert_eq!(
            url.transport,
            case["transport"]
                .as_str()
                .unwrap_or_default()
                .to_lowercase()
        );
        assert_eq!(url.virtual_host, opt_str(&case["virtual_host"]), "{raw}");
        let hosts: Vec<TransportHost> = case["hosts"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|h| TransportHost {
                hostname: opt_str(&h["hostname"]).unwrap_or_default(),
                port: h["port"].as_u64().map(|p| p as u16),
                username: opt_str(&h["username"]),
                password: opt_str(&h["password"]),
            })
            .collect();
        assert_eq!(url.hosts, hosts, "{raw}");
        let query: Vec<(String, String)> = case["query"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.clone(), opt_str(v).unwrap_or_default()))
            .collect();
        let mut ours = url.query.clone();
        ours.sort();
        let mut theirs = query;
        theirs.sort();
        assert_eq!(ours, theirs, "{raw}");
        let endpoints = url.endpoints();
        let expected = case["endpoints"].as_array().cloned().unwrap_or_default();
        assert_eq!(endpoints.len(), expected.len(), "{raw}");
        for (ours, theirs) in endpoints.iter().zip(&expected) {
            if theirs.get("kombu_error").is_some() {
                continue;
            }
            assert_eq!(Some(ours.host.as_str()), theirs["host"].as_str(), "{raw}");
            assert_eq!(Some(u64::from(ours.port)), theirs["port"].as_u64(), "{raw}");
            assert_eq!(
                Some(ours.username.as_str()),
                theirs["username"].as_str(),
                "{raw}"
            );
            assert_eq!(
                Some(ours.password.as_str()),
                theirs["password"].as_str(),
                "{raw}"
            );
            assert_eq!(Some(ours.vhost.as_str()), theirs["vhost"].as_str(), "{raw}");
        }
    }
}

#[test]
fn refused_urls_say_why() {
    for (raw, needle) in [
        ("127.0.0.1:5672", "no scheme"),
        ("://h/", "no scheme"),
        ("amqp://h/", "no such driver"),
        ("kafka://h/", "only oslo.messaging's rabbit driver"),
        ("fake://", "only oslo.messaging's rabbit driver"),
        ("kombu+memory:///", "experimental"),
        ("rabbit+x://h/", "experimental"),
        ("kombu://u:p@h/", "kombu"),
        ("rabbit://h:abc/", "not a number"),
        ("rabbit://h:/", "not a number"),
        ("rabbit://h:70000/", "not a number"),
        ("rabbit://[::1/", "bracket"),
        ("rabbit://u:secret@[::1:5672/", "bracket"),
    ] {
        match TransportUrl::parse(raw) {
            Ok(u) => panic!("{raw} accepted: {u}"),
            Err(e) => {
                let text = e.to_string();
                assert!(text.contains(needle), "{raw}: {text}");
                assert!(!text.contains("secret"), "{raw}: password shown: {text}");
            }
        }
    }
}

#[test]
fn display_masks_passwords() {
    let url = TransportUrl::parse("rabbit://octavia:s3cr%40t@h1:5672,u2:pw2@[::1]/vh%2Fx?ssl=1")
        .unwrap_or_else(|e| panic!("{e}"));
    let shown = url.to_string();
    assert_eq!(
        shown,
        "rabbit://octavia:****@h1:5672,u2:****@[::1]/vh/x?ssl=1"
    );
    assert!(!format!("{url:?}").contains("s3cr"));
    assert!(!format!("{:?}", url.hosts[0]).contains("s3cr"));
    assert_eq!(url.hosts[0].password.as_deref(), Some("s3cr@t"));
    assert_eq!(url.query_value("ssl"), Some("1"));
    assert_eq!(url.endpoints()[1].to_string(), "[::1]:5672");
}
