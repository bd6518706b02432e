//! WSME's `StringType(pattern=…)` check run as the reference runs it:
//! `re.compile(pattern).search(value)` (wsme/types.py `StringType.validate`) on Octavia's own
//! regex texts, by `fancy-regex` — Octavia's `DOMAIN_NAME_REGEX` needs look-ahead and
//! look-behind, which the `regex` crate lacks (fancy-regex hands every part without them to
//! `regex`).
//!
//! One difference of grammar is translated: Python's `$` (no MULTILINE) matches at the end
//! and before a final `\n`, so `200\n` is a valid `expected_codes` for the reference; it is
//! run as `(?=\n?\z)`. Left as they are: `\d`, `\s` and `\w` are Unicode classes in both
//! engines, but Python's `\s` also takes `\x1c`–`\x1f`, which Unicode's White_Space does not.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex, PoisonError};

use fancy_regex::Regex;

/// Compiled patterns by their text (the schema tables hold `&'static str`s).
static COMPILED: LazyLock<Mutex<HashMap<&'static str, Option<Regex>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// The Python pattern `p` in fancy-regex's grammar: each `$` outside a class (and not
/// escaped) becomes `(?=\n?\z)`.
fn translate(p: &str) -> String {
    let mut out = String::with_capacity(p.len() + 16);
    let mut cs = p.chars().peekable();
    let mut in_class = false;
    let mut class_start = false;
    while let Some(c) = cs.next() {
        match c {
            '\\' => {
                out.push(c);
                if let Some(n) = cs.next() {
                    out.push(n);
                }
                class_start = false;
                continue;
            }
            '[' if !in_class => {
                in_class = true;
                class_start = true;
                out.push(c);
                if cs.peek() == Some(&'^') {
                    out.push('^');
                    cs.next();
                }
                continue;
            }
            // a `]` first in a class is a literal
            ']' if in_class && !class_start => in_class = false,
            '$' if !in_class => {
                out.push_str("(?=\\n?\\z)");
                continue;
            }
            _ => {}
        }
        class_start = false;
        out.push(c);
    }
    out
}

fn compiled(pattern: &'static str) -> Option<Regex> {
    let mut cache = COMPILED.lock().unwrap_or_else(PoisonError::into_inner);
    cache
        .entry(pattern)
        .or_insert_with(|| Regex::new(&translate(pattern)).ok())
        .clone()
}

/// True when Python's `re.search(pattern, value)` finds a match. A pattern that does not
/// compile, or a search that exceeds fancy-regex's backtracking limit, is no match (the value
/// is refused with WSME's pattern text; every pattern of the tables compiles, see the tests).
pub fn search(pattern: &'static str, value: &str) -> bool {
    compiled(pattern).is_some_and(|re| re.is_match(value).unwrap_or(false))
}

/// Whether `pattern` compiles (for the tests of the schema tables).
#[cfg(test)]
pub(crate) fn compiles(pattern: &'static str) -> bool {
    compiled(pattern).is_some()
}

#[cfg(test)]
#[allow(clippy::panic)]
mod tests {
    use super::*;
    use crate::types::{Kind, Schema};

    fn pattern_of(schema: &Schema, field: &str) -> &'static str {
        match schema
            .fields
            .iter()
            .find(|f| f.name == field)
            .map(|f| f.kind)
        {
            Some(Kind::Pattern { pattern, .. }) => pattern,
            _ => panic!("{field} has no pattern"),
        }
    }

    /// `re.search`'s answers: made by `python3 crates/api/tests/data/python_re_table.py
    /// search` (Python 3.11.7; the stack venv's 3.11.2 answers the same), pasted as printed.
    #[test]
    fn octavias_patterns_answer_as_pythons_re_search() {
        let hm = &crate::health_monitor::body::HM_POST;
        let domain = pattern_of(hm, "domain_name");
        let codes = pattern_of(hm, "expected_codes");
        let cookie = pattern_of(&crate::pool::body::SP_POST, "cookie_name");
        let key_value = pattern_of(&crate::l7rule::body::L7RULE_POST, "value");
        for p in [domain, codes, cookie, key_value] {
            assert!(compiles(p), "{p}");
        }
        #[allow(non_snake_case)]
        let (DOMAIN, CODES, COOKIE, KEY_VALUE) = (domain, codes, cookie, key_value);
        let table: &[(&'static str, &str, bool)] =
            &include!("../../tests/data/python_re_search.rs.in");
        let wrong: Vec<String> = table
            .iter()
            .filter(|(p, v, want)| search(p, v) != *want)
            .map(|(p, v, want)| format!("{p} on {v:?}: Python {want}"))
            .collect();
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn dollar_becomes_end_or_final_newline_outside_classes_only() {
        assert_eq!(translate("^a$"), "^a(?=\\n?\\z)");
        assert_eq!(translate("[$]\\$"), "[$]\\$");
        assert_eq!(translate("[]$]$"), "[]$](?=\\n?\\z)");
        assert_eq!(translate("[^]$]$"), "[^]$](?=\\n?\\z)");
    }
}
