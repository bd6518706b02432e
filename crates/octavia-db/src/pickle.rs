//! `listener.insert_headers` storage: a Python pickle of a `dict[str, str]` (SQLAlchemy
//! `PickleType` on octavia/db/models.py `Listener.insert_headers`). The codec is the
//! `serde-pickle` crate: it reads every protocol CPython 3 writes (0–5, memo and frame opcodes
//! included) and writes protocol 2, which every Python 3 (and 2) reads.

use std::collections::BTreeMap;

use crate::error::DbError;

/// Encodes a header map as a protocol-2 pickle of a `dict[str, str]`.
pub fn pickle_str_dict(map: &BTreeMap<String, String>) -> Vec<u8> {
    // A map of strings always serialises; the empty pickle of `{}` is the fallback that
    // keeps the signature infallible.
    serde_pickle::to_vec(map, serde_pickle::SerOptions::new().proto_v2())
        .unwrap_or_else(|_| vec![0x80, 2, b'}', b'.'])
}

/// Decodes a pickled `dict[str, str]` (any protocol CPython 3 writes for such a value).
/// Errors: [`DbError::Pickle`] for anything else (another type, truncated or trailing bytes).
pub fn unpickle_str_dict(data: &[u8]) -> Result<BTreeMap<String, String>, DbError> {
    serde_pickle::from_slice(data, serde_pickle::DeOptions::new()).map_err(DbError::Pickle)
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
        let p5 = hex(
            "80059533000000000000007d94288c0f582d466f727761726465642d466f72948c0474727565948c10582d466f727761726465642d506f7274946802752e",
        );
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
        assert!(
            unpickle_str_dict(&pickle_str_dict(&BTreeMap::new()))
                .unwrap()
                .is_empty()
        );
        // protocol 2 on the wire: what Python 2 and 3 both read
        assert_eq!(&pickle_str_dict(&m)[..2], &[0x80, 2]);
        // the refusal keeps serde-pickle's error as its source, and its text after the prefix
        let err = unpickle_str_dict(b"garbage").unwrap_err();
        let cause = std::error::Error::source(&err).unwrap().to_string();
        assert_eq!(
            err.to_string(),
            format!("schema: insert_headers is not a pickled dict of strings: {cause}")
        );
        assert!(unpickle_str_dict(&[0x80, 5, b'}', b'(']).is_err());
        // a pickled list and a dict with a non-string value are not header maps
        assert!(unpickle_str_dict(&hex("80025d71002e")).is_err());
        assert!(unpickle_str_dict(&hex("80027d710058010000006171014b01732e")).is_err());
    }

    #[test]
    fn python_reads_what_keel_writes() {
        // Octavia (Python) reads the column back: the real unpickler must give the same dict.
        let mut m = BTreeMap::new();
        m.insert("X-Forwarded-For".to_string(), "true".to_string());
        m.insert("é".to_string(), "ü".repeat(3));
        let hex: String = pickle_str_dict(&m)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let out = std::process::Command::new("python3")
            .args([
                "-c",
                "import pickle,sys,json; print(json.dumps(pickle.loads(bytes.fromhex(sys.argv[1])), sort_keys=True))",
                &hex,
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let back: BTreeMap<String, String> = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(back, m);
    }
}
