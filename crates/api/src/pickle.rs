//! The `listener.insert_headers` column is a Python pickle of a `dict[str, str]`
//! (SQLAlchemy `PickleType`, db-schema.md §6). This writes protocol 2 and reads the opcodes
//! CPython emits for such a dict at protocols 2–5.

use serde_json::{Map, Value};

/// Pickle a string map (protocol 2: `PROTO 2, EMPTY_DICT, MARK, BINUNICODE…, SETITEMS, STOP`).
pub fn dumps_str_dict(m: &Map<String, Value>) -> Vec<u8> {
    let mut out = vec![0x80, 2, b'}'];
    if !m.is_empty() {
        out.push(b'(');
        for (k, v) in m {
            for s in [k.as_str(), v.as_str().unwrap_or_default()] {
                out.push(b'X');
                out.extend_from_slice(&(s.len() as u32).to_le_bytes());
                out.extend_from_slice(s.as_bytes());
            }
        }
        out.push(b'u');
    }
    out.push(b'.');
    out
}

/// Unpickle a `dict[str, str]`; `None` for anything else.
pub fn loads_str_dict(b: &[u8]) -> Option<Value> {
    let mut i = 0usize;
    let mut stack: Vec<Option<String>> = Vec::new();
    let mut dict = Map::new();
    let take = |i: &mut usize, n: usize| -> Option<&[u8]> {
        let s = b.get(*i..*i + n)?;
        *i += n;
        Some(s)
    };
    loop {
        let op = *b.get(i)?;
        i += 1;
        match op {
            0x80 => i += 1,   // PROTO
            0x95 => i += 8,   // FRAME
            b'}' | b'(' => {} // EMPTY_DICT, MARK
            0x94 => {}        // MEMOIZE
            b'q' => i += 1,   // BINPUT
            b'r' => i += 4,   // LONG_BINPUT
            b'X' => {
                let n = u32::from_le_bytes(take(&mut i, 4)?.try_into().ok()?) as usize;
                stack.push(Some(String::from_utf8(take(&mut i, n)?.to_vec()).ok()?));
            }
            0x8c => {
                let n = *take(&mut i, 1)?.first()? as usize;
                stack.push(Some(String::from_utf8(take(&mut i, n)?.to_vec()).ok()?));
            }
            b'u' | b's' => {
                while stack.len() >= 2 {
                    let v = stack.pop()??;
                    let k = stack.pop()??;
                    dict.insert(k, Value::String(v));
                }
            }
            b'.' => return Some(Value::Object(dict)),
            _ => return None,
        }
    }
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
