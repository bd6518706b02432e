//! Splitting the byte stream into JSON-RPC messages.
//!
//! ovsdb-server writes JSON values back to back with no delimiter (RFC 7047 §4 leaves framing
//! to JSON itself), so we scan bytes, track nesting outside strings, and cut when the top-level
//! object/array closes. Only ASCII bytes are structural, so UTF-8 needs no decoding here.

use crate::error::{Error, Result};

/// Buffer capacity kept between messages (larger capacity is released, see
/// `JsonSplitter::release_spare`).
const KEEP_CAPACITY: usize = 1 << 20;

/// Incremental splitter: `feed` bytes as they arrive, then drain complete messages with
/// `next_message`. A value longer than `max_len` bytes is an error (the connection is then
/// dropped by the caller), so a misbehaving peer cannot grow the buffer without bound.
#[derive(Debug)]
pub struct JsonSplitter {
    buf: Vec<u8>,
    /// Next byte to scan.
    pos: usize,
    /// Start of the current value, once its first byte was seen.
    start: Option<usize>,
    depth: usize,
    in_string: bool,
    escape: bool,
    max_len: usize,
}

impl JsonSplitter {
    /// A splitter that rejects values longer than `max_len` bytes.
    pub fn new(max_len: usize) -> Self {
        JsonSplitter {
            buf: Vec::new(),
            pos: 0,
            start: None,
            depth: 0,
            in_string: false,
            escape: false,
            max_len,
        }
    }

    /// Appends received bytes.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// Bytes buffered but not yet returned.
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// Bytes the buffer holds allocated.
    pub fn capacity(&self) -> usize {
        self.buf.capacity()
    }

    /// After one large message (the initial monitor reply of an NB with 10,000 load balancers
    /// is tens of MB) the buffer would keep its capacity for the life of the connection: give
    /// it back once at most a quarter of it is in use.
    fn release_spare(&mut self) {
        if self.buf.capacity() > KEEP_CAPACITY && self.buf.len() < self.buf.capacity() / 4 {
            self.buf.shrink_to(self.buf.len().max(KEEP_CAPACITY));
        }
    }

    /// The next complete message parsed as JSON, `Ok(None)` when more bytes are needed.
    /// Errors: [`Error::MessageTooLarge`], [`Error::Malformed`] (not an object/array at top
    /// level, or invalid JSON inside); after an error the splitter must be discarded.
    pub fn next_message(&mut self) -> Result<Option<serde_json::Value>> {
        while self.pos < self.buf.len() {
            let b = self.buf[self.pos];
            match self.start {
                None => {
                    if b.is_ascii_whitespace() {
                        self.pos += 1;
                        continue;
                    }
                    if b != b'{' && b != b'[' {
                        return Err(Error::Malformed(format!(
                            "unexpected byte 0x{b:02x} between messages"
                        )));
                    }
                    self.start = Some(self.pos);
                    self.depth = 1;
                }
                Some(start) => {
                    if self.in_string {
                        if self.escape {
                            self.escape = false;
                        } else if b == b'\\' {
                            self.escape = true;
                        } else if b == b'"' {
                            self.in_string = false;
                        }
                    } else {
                        match b {
                            b'"' => self.in_string = true,
                            b'{' | b'[' => self.depth += 1,
                            b'}' | b']' => {
                                self.depth -= 1;
                                if self.depth == 0 {
                                    let end = self.pos + 1;
                                    let parsed = serde_json::from_slice(&self.buf[start..end])
                                        .map_err(|e| Error::Malformed(e.to_string()));
                                    self.buf.drain(..end);
                                    self.release_spare();
                                    self.pos = 0;
                                    self.start = None;
                                    return parsed.map(Some);
                                }
                            }
                            _ => {}
                        }
                    }
                    if self.pos + 1 - start > self.max_len {
                        return Err(Error::MessageTooLarge {
                            limit: self.max_len,
                        });
                    }
                }
            }
            self.pos += 1;
        }
        // Drop leading whitespace so an idle peer's keep-alive bytes don't accumulate.
        if self.start.is_none() {
            self.buf.clear();
            self.pos = 0;
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn all(s: &mut JsonSplitter) -> Vec<serde_json::Value> {
        let mut out = Vec::new();
        while let Some(m) = s.next_message().unwrap() {
            out.push(m);
        }
        out
    }

    #[test]
    fn splits_back_to_back_values_at_every_boundary() {
        let msgs = [
            json!({"id": 1, "result": {"a": "}{][\"\\"}, "error": null}),
            json!({"method": "update2", "params": [null, {"T": {}}], "id": null}),
            json!(["x", {"é ü 中": [1, 2, {"k": "v"}]}]),
        ];
        let wire: Vec<u8> = msgs
            .iter()
            .flat_map(|m| serde_json::to_vec(m).unwrap())
            .collect();
        for cut in 0..=wire.len() {
            for cut2 in cut..=wire.len() {
                let mut s = JsonSplitter::new(1 << 20);
                let mut got = Vec::new();
                s.feed(&wire[..cut]);
                got.extend(all(&mut s));
                s.feed(&wire[cut..cut2]);
                got.extend(all(&mut s));
                s.feed(&wire[cut2..]);
                got.extend(all(&mut s));
                assert_eq!(got, msgs, "cuts at {cut}/{cut2}");
                assert_eq!(s.buffered(), 0);
            }
        }
    }

    #[test]
    fn byte_by_byte_with_whitespace() {
        let wire = b" {\"a\":\"x\\\"y\"}\n\n [1]  ";
        let mut s = JsonSplitter::new(1024);
        let mut got = Vec::new();
        for b in wire {
            s.feed(&[*b]);
            got.extend(all(&mut s));
        }
        assert_eq!(got, vec![json!({"a": "x\"y"}), json!([1])]);
    }

    #[test]
    fn rejects_garbage_between_messages() {
        let mut s = JsonSplitter::new(1024);
        s.feed(b"{} 42");
        assert_eq!(s.next_message().unwrap(), Some(json!({})));
        assert!(matches!(s.next_message(), Err(Error::Malformed(_))));
    }

    #[test]
    fn rejects_invalid_json_inside_balanced_braces() {
        let mut s = JsonSplitter::new(1024);
        s.feed(b"{\"a\" 1}");
        assert!(matches!(s.next_message(), Err(Error::Malformed(_))));
        let mut s = JsonSplitter::new(1024);
        s.feed(b"{\"a\": [1}]");
        assert!(matches!(s.next_message(), Err(Error::Malformed(_))));
    }

    /// A 20 MB message does not leave 20 MB allocated behind it; the messages after it
    /// still split (in the same and in later feeds).
    #[test]
    fn a_large_message_leaves_no_large_buffer() {
        let big = json!({"id": 1, "result": "x".repeat(20 << 20)});
        let mut wire = serde_json::to_vec(&big).unwrap();
        wire.extend_from_slice(b"{\"id\": 2}");
        let mut s = JsonSplitter::new(64 << 20);
        s.feed(&wire);
        assert_eq!(s.next_message().unwrap(), Some(big));
        assert!(s.capacity() <= KEEP_CAPACITY, "{}", s.capacity());
        assert_eq!(s.next_message().unwrap(), Some(json!({"id": 2})));
        s.feed(b"[3]");
        assert_eq!(s.next_message().unwrap(), Some(json!([3])));
    }

    #[test]
    fn rejects_oversized_message_before_it_completes() {
        let mut s = JsonSplitter::new(16);
        s.feed(b"{\"a\": \"0123456789abcdef");
        assert!(matches!(
            s.next_message(),
            Err(Error::MessageTooLarge { limit: 16 })
        ));
    }
}
