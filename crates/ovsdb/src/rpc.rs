//! JSON-RPC 1.0 messages as ovsdb-server uses them (RFC 7047 §4).

use serde_json::{Value as Json, json};

use crate::error::{Error, Result};

/// One decoded message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A request from the peer that expects a reply (e.g. `echo`).
    Request {
        /// Method name, e.g. `echo`.
        method: String,
        /// `params` array.
        params: Json,
        /// Request id, echoed in the reply.
        id: Json,
    },
    /// A notification (`id` null): `update`, `update2`, `update3`, `locked`, `stolen`.
    Notification {
        /// Method name, e.g. `update3`.
        method: String,
        /// `params` array.
        params: Json,
    },
    /// A reply to one of our requests.
    Response {
        /// The id of our request.
        id: Json,
        /// `result` (null when `error` is set).
        result: Json,
        /// `error` (null on success).
        error: Json,
    },
}

impl Message {
    /// Classifies a JSON object as request, notification or response.
    pub fn from_json(j: Json) -> Result<Message> {
        let Json::Object(mut o) = j else {
            return Err(Error::Malformed("JSON-RPC message is not an object".into()));
        };
        let id = o.remove("id").unwrap_or(Json::Null);
        if let Some(method) = o.remove("method") {
            let Json::String(method) = method else {
                return Err(Error::Malformed("method is not a string".into()));
            };
            let params = o.remove("params").unwrap_or(Json::Null);
            if id.is_null() {
                Ok(Message::Notification { method, params })
            } else {
                Ok(Message::Request { method, params, id })
            }
        } else if o.contains_key("result") || o.contains_key("error") {
            Ok(Message::Response {
                id,
                result: o.remove("result").unwrap_or(Json::Null),
                error: o.remove("error").unwrap_or(Json::Null),
            })
        } else {
            Err(Error::Malformed(
                "JSON-RPC object has neither method nor result/error".into(),
            ))
        }
    }
}

/// Encodes a request with numeric id.
pub fn request(method: &str, params: &Json, id: u64) -> Vec<u8> {
    json!({"method": method, "params": params, "id": id})
        .to_string()
        .into_bytes()
}

/// Encodes a successful reply.
pub fn reply(result: &Json, id: &Json) -> Vec<u8> {
    json!({"result": result, "error": null, "id": id})
        .to_string()
        .into_bytes()
}

/// Encodes an error reply.
pub fn error_reply(error: &str, id: &Json) -> Vec<u8> {
    json!({"result": null, "error": error, "id": id})
        .to_string()
        .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies() {
        assert!(matches!(
            Message::from_json(json!({"method":"echo","params":[],"id":"echo"})).unwrap(),
            Message::Request { .. }
        ));
        assert!(matches!(
            Message::from_json(json!({"method":"update2","params":[1,{}],"id":null})).unwrap(),
            Message::Notification { .. }
        ));
        assert!(matches!(
            Message::from_json(json!({"result":[],"error":null,"id":3})).unwrap(),
            Message::Response { .. }
        ));
        assert!(Message::from_json(json!([1])).is_err());
        assert!(Message::from_json(json!({"id": 1})).is_err());
        assert!(Message::from_json(json!({"method": 5})).is_err());
    }
}
