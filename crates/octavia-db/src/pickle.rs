//! `listener.insert_headers` storage: a Python pickle of a `dict[str, str]` (SQLAlchemy
//! `PickleType`, `spec/db-schema.md` §6). Only the opcodes CPython emits for such a dict are
//! read; written pickles use protocol 2 opcodes, which every Python 3 reads.

use std::collections::BTreeMap;

use crate::error::DbError;

/// Encodes a header map as a pickle (protocol 2: `PROTO 2, EMPTY_DICT, MARK, (BINUNICODE k,
/// BINUNICODE v)*, SETITEMS, STOP`).
pub fn pickle_str_dict(map: &BTreeMap<String, String>) -> Vec<u8> {
    let mut out = vec![0x80, 2, b'}'];
    if !map.is_empty() {
        out.push(b'(');
        for (k, v) in map {
            for s in [k, v] {
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

#[derive(Clone)]
enum Item {
    Mark,
    Str(String),
    Dict(BTreeMap<String, String>),
}

fn bad(why: &str) -> DbError {
    DbError::Schema(format!(
        "insert_headers is not a pickled dict of strings: {why}"
    ))
}

/// Decodes a pickled `dict[str, str]` (any protocol CPython 3 writes for such a value).
/// Errors: [`DbError::Schema`] for anything else.
pub fn unpickle_str_dict(data: &[u8]) -> Result<BTreeMap<String, String>, DbError> {
    let mut i = 0usize;
    let mut stack: Vec<Item> = Vec::new();
    let mut memo: Vec<Option<Item>> = Vec::new();
    let take = |i: &mut usize, n: usize| -> Result<&[u8], DbError> {
        let s = data.get(*i..*i + n).ok_or_else(|| bad("truncated"))?;
        *i += n;
        Ok(s)
    };
    let le = |b: &[u8]| {
        b.iter()
            .rev()
            .fold(0usize, |a, x| (a << 8) | usize::from(*x))
    };
    let put = |memo: &mut Vec<Option<Item>>, idx: usize, it: Item| {
        if memo.len() <= idx {
            memo.resize(idx + 1, None);
        }
        memo[idx] = Some(it);
    };
    loop {
        let op = *take(&mut i, 1)?.first().ok_or_else(|| bad("truncated"))?;
        match op {
            0x80 => {
                take(&mut i, 1)?;
            }
            0x95 => {
                take(&mut i, 8)?; // FRAME length
            }
            b'}' => stack.push(Item::Dict(BTreeMap::new())),
            b'(' => stack.push(Item::Mark),
            0x8c | b'X' | 0x8d => {
                let n = match op {
                    0x8c => le(take(&mut i, 1)?),
                    b'X' => le(take(&mut i, 4)?),
                    _ => le(take(&mut i, 8)?),
                };
                let s = std::str::from_utf8(take(&mut i, n)?).map_err(|_| bad("utf-8"))?;
                stack.push(Item::Str(s.to_owned()));
            }
            0x94 => {
                let top = stack.last().cloned().ok_or_else(|| bad("memoize empty"))?;
                let idx = memo.len();
                put(&mut memo, idx, top);
            }
            b'q' | b'r' => {
                let idx = if op == b'q' {
                    le(take(&mut i, 1)?)
                } else {
                    le(take(&mut i, 4)?)
                };
                let top = stack.last().cloned().ok_or_else(|| bad("put empty"))?;
                put(&mut memo, idx, top);
            }
            b'h' | b'j' => {
                let idx = if op == b'h' {
                    le(take(&mut i, 1)?)
                } else {
                    le(take(&mut i, 4)?)
                };
                let it = memo
                    .get(idx)
                    .cloned()
                    .flatten()
                    .ok_or_else(|| bad("memo miss"))?;
                stack.push(it);
            }
            b's' | b'u' => {
                let mut pairs = Vec::new();
                if op == b's' {
                    let v = stack.pop();
                    let k = stack.pop();
                    pairs.push((k, v));
                } else {
                    let mut items = Vec::new();
                    loop {
                        match stack.pop() {
                            Some(Item::Mark) => break,
                            Some(x) => items.push(x),
                            None => return Err(bad("no mark")),
                        }
                    }
                    items.reverse();
                    let mut it = items.into_iter();
                    while let Some(k) = it.next() {
                        pairs.push((Some(k), it.next()));
                    }
                }
                let Some(Item::Dict(mut d)) = stack.pop() else {
                    return Err(bad("no dict"));
                };
                for (k, v) in pairs {
                    match (k, v) {
                        (Some(Item::Str(k)), Some(Item::Str(v))) => {
                            d.insert(k, v);
                        }
                        _ => return Err(bad("non-string item")),
                    }
                }
                stack.push(Item::Dict(d));
            }
            b'.' => {
                return match stack.pop() {
                    Some(Item::Dict(d)) => Ok(d),
                    _ => Err(bad("not a dict")),
                }
            }
            _ => return Err(bad(&format!("opcode 0x{op:02x}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn reads_python_protocol_5_and_2() {
        // pickle.dumps({'X-Forwarded-For': 'true', 'X-Forwarded-Port': 'true'}, protocol=5):
        // the second 'true' is a memo reference.
        let p5 = hex("80059533000000000000007d94288c0f582d466f727761726465642d466f72948c0474727565948c10582d466f727761726465642d506f7274946802752e");
        let d = unpickle_str_dict(&p5).unwrap();
        assert_eq!(d.len(), 2);
        assert_eq!(d["X-Forwarded-Port"], "true");
        assert!(unpickle_str_dict(&hex("80057d942e")).unwrap().is_empty());
        let p2 = hex("80027d710058010000006171015801000000627102732e");
        assert_eq!(unpickle_str_dict(&p2).unwrap()["a"], "b");
    }

    #[test]
    fn roundtrip_and_rejects_garbage() {
        let mut m = BTreeMap::new();
        m.insert("X-Forwarded-For".to_string(), "true".to_string());
        m.insert("é".to_string(), "ü".repeat(300));
        assert_eq!(unpickle_str_dict(&pickle_str_dict(&m)).unwrap(), m);
        assert_eq!(pickle_str_dict(&BTreeMap::new()), vec![0x80, 2, b'}', b'.']);
        assert!(unpickle_str_dict(b"garbage").is_err());
        assert!(unpickle_str_dict(&[0x80, 5, b'}', b'(']).is_err());
    }
}
