//! The `listener.insert_headers` column is a Python pickle of a `dict[str, str]`
//! (SQLAlchemy `PickleType`, octavia/db/models.py `Listener.insert_headers`). The codec is the DB crate's
//! (`octavia_db::pickle_str_dict` / `unpickle_str_dict`); these adapt it to the JSON maps
//! the API renders.

use serde_json::{Map, Value};

/// Pickle a string map (non-string values are written as empty strings, as before).
pub fn dumps_str_dict(m: &Map<String, Value>) -> Vec<u8> {
    let map = m
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
        .collect();
    octavia_db::pickle_str_dict(&map)
}

/// Unpickle a `dict[str, str]` into a JSON object; `None` for anything else.
pub fn loads_str_dict(b: &[u8]) -> Option<Value> {
    let map = octavia_db::unpickle_str_dict(b).ok()?;
    Some(Value::Object(
        map.into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect(),
    ))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trip_and_cpython_protocol4() {
        let m = json!({"X-Forwarded-For": "true", "X-Forwarded-Port": "true"});
        let b = dumps_str_dict(m.as_object().unwrap());
        assert_eq!(loads_str_dict(&b), Some(m));
        // pickle.dumps({'X-Forwarded-For': 'true'}, protocol=4)
        let py: &[u8] = b"\x80\x04\x95\x1d\x00\x00\x00\x00\x00\x00\x00}\x94\x8c\x0fX-Forwarded-For\x94\x8c\x04true\x94s.";
        assert_eq!(loads_str_dict(py), Some(json!({"X-Forwarded-For": "true"})));
        assert_eq!(
            loads_str_dict(&dumps_str_dict(&Map::new())),
            Some(json!({}))
        );
    }
}
