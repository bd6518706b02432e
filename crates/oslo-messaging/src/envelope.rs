//! A cast's message: the AMQP body and properties oslo.messaging 18.2.0 publishes for
//! `RPCClient.cast({}, method, **args)`.
//!
//! The inner message is oslo_messaging/rpc/client.py `_BaseCallContext._make_message`
//! (`method`, `args`, then `namespace` and `version` when the target has them), then
//! oslo_messaging/_drivers/amqpdriver.py `AMQPDriverBase._send` adds `_unique_id`
//! (`uuid4().hex`, oslo_messaging/_drivers/amqp.py `_add_unique_id`) and `_context_*` keys for
//! the context (none for Octavia's empty `{}`); a cast has no `_msg_id`/`_reply_q`/`_timeout`.
//! oslo_messaging/_drivers/common.py `serialize_msg` wraps it as
//! `{"oslo.version": "2.0", "oslo.message": "<inner JSON text>"}`, and kombu's JSON serializer
//! writes that as UTF-8. Both JSON texts are Python's `json.dumps` with its defaults:
//! separators `", "` and `": "`, `ensure_ascii` (`\uXXXX` escapes, surrogate pairs), floats as
//! Python's `repr` (`1e+16`, `1.5e-07`).
//! The properties are kombu's `Producer.publish` defaults as oslo's `Connection._publish`
//! calls it for a cast (checked against a message oslo.messaging really sent): see
//! [`properties`].

use lapin::BasicProperties;
use lapin::types::FieldTable;
use serde_json::{Map, Value};

use crate::pyjson;

/// Where a cast goes, as oslo.messaging's `Target` for a client: the exchange (Octavia's
/// `control_exchange`, `octavia`), the topic (Octavia's amphora driver:
/// `octavia_provisioning_v2`), the endpoint namespace and API version the server dispatches on
/// (Octavia: `controller`, `2.0`) and optionally one server (`topic.server` routing key).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// Exchange name; oslo's `Target.exchange or control_exchange`.
    pub exchange: String,
    /// Topic: the routing key (without `server`).
    pub topic: String,
    /// Endpoint namespace put in the message (`namespace` key) when `Some`.
    pub namespace: Option<String>,
    /// API version put in the message (`version` key) when `Some`.
    pub version: Option<String>,
    /// A server name: the routing key becomes `topic.server` (oslo's `AMQPDriverBase._send`).
    pub server: Option<String>,
}

impl Target {
    /// Octavia's amphora provider driver target (octavia/api/drivers/amphora_driver/v2/driver.py
    /// with octavia/common/constants.py and `control_exchange = octavia`): exchange `octavia`,
    /// topic `octavia_provisioning_v2`, namespace `controller`, version `2.0`, no server.
    pub fn octavia_amphora_v2() -> Target {
        Target {
            exchange: "octavia".into(),
            topic: "octavia_provisioning_v2".into(),
            namespace: Some("controller".into()),
            version: Some("2.0".into()),
            server: None,
        }
    }

    /// The routing key: `topic`, or `topic.server` with a server.
    pub fn routing_key(&self) -> String {
        match &self.server {
            Some(server) => format!("{}.{}", self.topic, server),
            None => self.topic.clone(),
        }
    }
}

/// The envelope's version (`_RPC_ENVELOPE_VERSION` of oslo_messaging/_drivers/common.py).
pub const ENVELOPE_VERSION: &str = "2.0";

/// A fresh `_unique_id`: 32 lower-case hex digits of a random UUID (Python's
/// `uuid.uuid4().hex`).
pub fn new_unique_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// The exact AMQP body bytes oslo.messaging publishes for a cast of `method` with `args` to
/// `target`, with an empty context and `unique_id` as `_unique_id` (normally
/// [`new_unique_id`]). Keys of `args` and of nested objects come out in the map's iteration
/// order — sorted, unless serde_json's `preserve_order` feature is on — where oslo keeps the
/// caller's dict order (the worker parses JSON, so only the bytes differ); everything else is
/// byte for byte oslo's.
pub fn cast_body(
    target: &Target,
    method: &str,
    args: &Map<String, Value>,
    unique_id: &str,
) -> Vec<u8> {
    let mut inner = String::with_capacity(128);
    inner.push_str("{\"method\": ");
    pyjson::write_str(&mut inner, method);
    inner.push_str(", \"args\": ");
    let mut args_text = String::new();
    pyjson::write_value(&mut args_text, &Value::Object(args.clone()));
    inner.push_str(&args_text);
    if let Some(ns) = &target.namespace {
        inner.push_str(", \"namespace\": ");
        pyjson::write_str(&mut inner, ns);
    }
    if let Some(v) = &target.version {
        inner.push_str(", \"version\": ");
        pyjson::write_str(&mut inner, v);
    }
    inner.push_str(", \"_unique_id\": ");
    pyjson::write_str(&mut inner, unique_id);
    inner.push('}');
    let mut outer = String::with_capacity(inner.len() + 64);
    outer.push_str("{\"oslo.version\": ");
    pyjson::write_str(&mut outer, ENVELOPE_VERSION);
    outer.push_str(", \"oslo.message\": ");
    pyjson::write_str(&mut outer, &inner);
    outer.push('}');
    outer.into_bytes()
}

/// The AMQP basic properties of a cast, as kombu sets them for oslo: content-type
/// `application/json`, content-encoding `utf-8`, an empty headers table (present), delivery
/// mode 2 (persistent: kombu's default for an exchange without `delivery_mode`), priority 0;
/// no expiration (a cast has no timeout), no message id, no timestamp.
pub fn properties() -> BasicProperties {
    BasicProperties::default()
        .with_content_type("application/json".into())
        .with_content_encoding("utf-8".into())
        .with_headers(FieldTable::default())
        .with_delivery_mode(2)
        .with_priority(0)
}

#[cfg(test)]
#[path = "envelope_tests.rs"]
mod tests;
