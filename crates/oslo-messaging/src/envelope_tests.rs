//! Cast bodies against the bytes oslo.messaging 18.2.0 + kombu 5.6.2 produce for the same
//! input (tests/data/envelopes.json, written by gen_fixtures.py).

use super::*;

#[test]
fn bodies_are_oslo_messagings_bytes() {
    let cases = match serde_json::from_str::<Value>(include_str!("../tests/data/envelopes.json")) {
        Ok(Value::Array(cases)) => cases,
        other => panic!("envelopes.json: {other:?}"),
    };
    assert!(cases.len() >= 4);
    for case in cases {
        let name = case["name"].as_str().unwrap_or_default();
        let t = &case["target"];
        let s = |v: &Value| v.as_str().map(str::to_owned);
        let target = Target {
            exchange: s(&t["exchange"]).unwrap_or_default(),
            topic: s(&t["topic"]).unwrap_or_default(),
            namespace: s(&t["namespace"]),
            version: s(&t["version"]),
            server: s(&t["server"]),
        };
        let args = case["args"].as_object().cloned().unwrap_or_default();
        let body = cast_body(
            &target,
            case["method"].as_str().unwrap_or_default(),
            &args,
            case["unique_id"].as_str().unwrap_or_default(),
        );
        let expected = case["body"].as_str().unwrap_or_default().as_bytes();
        assert_eq!(
            String::from_utf8_lossy(&body),
            String::from_utf8_lossy(expected),
            "{name}"
        );
        assert_eq!(body, expected, "{name}");
        assert_eq!(case["content_type"], "application/json");
        assert_eq!(case["content_encoding"], "utf-8");
    }
}

#[test]
fn routing_key_and_unique_id() {
    let mut t = Target::octavia_amphora_v2();
    assert_eq!(t.routing_key(), "octavia_provisioning_v2");
    t.server = Some("w1".into());
    assert_eq!(t.routing_key(), "octavia_provisioning_v2.w1");
    let id = new_unique_id();
    assert_eq!(id.len(), 32);
    assert!(
        id.chars()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
    );
    assert_ne!(id, new_unique_id());
}

#[test]
fn properties_are_komb_defaults() {
    let p = properties();
    assert_eq!(
        p.content_type().as_ref().map(|s| s.as_str()),
        Some("application/json")
    );
    assert_eq!(
        p.content_encoding().as_ref().map(|s| s.as_str()),
        Some("utf-8")
    );
    assert_eq!(p.delivery_mode(), &Some(2));
    assert_eq!(p.priority(), &Some(0));
    assert!(p.headers().as_ref().is_some_and(|h| h.inner().is_empty()));
    assert!(p.expiration().is_none());
}
