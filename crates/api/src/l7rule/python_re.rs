//! Whether Python's `re.compile` (3.11, `sre_parse`) refuses a pattern, with its error text:
//! octavia/common/validate.py `regex` answers `Unable to parse regular expression: <text>`.
//!
//! No regex engine is used here on purpose: the question is Python's grammar, not a match,
//! and no Rust engine parses it — `regex` / `fancy-regex` accept `\z`, `\p{L}` and a
//! mid-pattern `(?i)`, which Python refuses, and refuse `\Z`, `(?P=name)` and `\N{…}`, which
//! Python accepts; their error texts are not Python's either. The walk below follows
//! `sre_parse._parse`: escapes (`bad escape`, `incomplete escape`), classes (`bad character
//! range`, `unterminated character set`), groups and extensions, repeats (`nothing to
//! repeat` — after nothing, `|`, `(` or an assertion such as `^` —, `multiple repeat`,
//! `min repeat greater than max repeat`) and group references. Not modelled: the names of
//! `\N{…}` (any name is accepted) and the values of `\U` escapes beyond U+10FFFF.

/// What the last item parsed can take: a repeat needs an atom.
#[derive(Clone, Copy, PartialEq)]
enum Last {
    /// Start, `|` or `(`: nothing to repeat.
    Nothing,
    /// `^`, `$`, `\A`, `\Z`, `\b`, `\B`: Python refuses to repeat them.
    Assertion,
    /// A repeat: another one is `multiple repeat`.
    Repeat,
    /// Anything else.
    Atom,
}

/// `MAXREPEAT` of a 64-bit CPython: a repeat count from it on is an `OverflowError`.
const MAX_REPEAT: u64 = 4_294_967_295;

struct Walk {
    cs: Vec<char>,
    /// Open groups: their position and capturing index.
    open: Vec<(usize, Option<usize>)>,
    /// Per capturing group (1-based index − 1): closed yet.
    closed: Vec<bool>,
    /// Named groups and their index.
    names: Vec<(String, usize)>,
}

fn err(text: impl std::fmt::Display, pos: usize) -> String {
    format!("{text} at position {pos}")
}

fn is_hex(c: char) -> bool {
    c.is_ascii_hexdigit()
}

impl Walk {
    fn at(&self, i: usize) -> Option<char> {
        self.cs.get(i).copied()
    }

    /// The hex digits of `\x` / `\u` / `\U` at `i` (the backslash): `n` of them or the
    /// `incomplete escape` error. Returns the index after the escape.
    fn hex_escape(&self, i: usize, n: usize) -> Result<(usize, u32), String> {
        let start = i + 2;
        let mut end = start;
        while end < start + n && self.at(end).is_some_and(is_hex) {
            end += 1;
        }
        let text: String = self.cs[i..end].iter().collect();
        if end - start != n {
            return Err(err(format_args!("incomplete escape {text}"), i));
        }
        let digits: String = self.cs[start..end].iter().collect();
        Ok((end, u32::from_str_radix(&digits, 16).unwrap_or(0)))
    }

    /// `\N{name}` at `i`: the index after it.
    fn named_escape(&self, i: usize) -> Result<usize, String> {
        if self.at(i + 2) != Some('{') {
            return Err(err("missing {", i + 2));
        }
        match self.cs[i + 3..].iter().position(|c| *c == '}') {
            Some(0) => Err(err("missing character name", i + 3)),
            Some(n) => Ok(i + 3 + n + 1),
            None => Err(err("missing }, unterminated name", i + 3)),
        }
    }

    /// A class item at `i`: its source text as `sre_parse` shows it in a range error, its
    /// code point (`None` for a category such as `\d`) and the index after it.
    fn class_item(&self, i: usize) -> Result<(String, Option<u32>, usize), String> {
        let c = self.cs[i];
        if c != '\\' {
            return Ok((c.to_string(), Some(c as u32), i + 1));
        }
        let Some(e) = self.at(i + 1) else {
            return Err(err("bad escape (end of pattern)", i));
        };
        let shown = format!("\\{e}");
        let simple = |v: u32| Ok((shown.clone(), Some(v), i + 2));
        match e {
            'd' | 'D' | 's' | 'S' | 'w' | 'W' => Ok((shown, None, i + 2)),
            'a' => simple(7),
            'b' => simple(8),
            'f' => simple(12),
            'n' => simple(10),
            'r' => simple(13),
            't' => simple(9),
            'v' => simple(11),
            'x' | 'u' | 'U' => {
                let (end, v) = self.hex_escape(i, hex_len(e))?;
                Ok((shown, Some(v), end))
            }
            'N' => Ok((shown, Some(0), self.named_escape(i)?)),
            '0'..='7' => {
                let mut end = i + 2;
                while end < i + 4 && self.at(end).is_some_and(|d| d.is_digit(8)) {
                    end += 1;
                }
                let digits: String = self.cs[i + 1..end].iter().collect();
                Ok((shown, u32::from_str_radix(&digits, 8).ok(), end))
            }
            c if c.is_ascii_alphanumeric() => Err(err(format_args!("bad escape \\{c}"), i)),
            c => Ok((shown, Some(c as u32), i + 2)),
        }
    }

    /// A class `[...]` starting at `start`: the index after its `]`.
    fn class(&self, start: usize) -> Result<usize, String> {
        let mut i = start + 1;
        if self.at(i) == Some('^') {
            i += 1;
        }
        let mut first = true;
        loop {
            let Some(c) = self.at(i) else {
                return Err(err("unterminated character set", start));
            };
            if c == ']' && !first {
                return Ok(i + 1);
            }
            first = false;
            let (lo_text, lo, after) = self.class_item(i)?;
            i = after;
            if self.at(i) == Some('-') {
                match self.at(i + 1) {
                    None => return Err(err("unterminated character set", start)),
                    Some(']') => {}
                    Some(_) => {
                        let (hi_text, hi, after) = self.class_item(i + 1)?;
                        i = after;
                        let bad = match (lo, hi) {
                            (Some(lo), Some(hi)) => hi < lo,
                            _ => true,
                        };
                        if bad {
                            let pos = i - (lo_text.chars().count() + 1 + hi_text.chars().count());
                            return Err(err(
                                format_args!("bad character range {lo_text}-{hi_text}"),
                                pos,
                            ));
                        }
                    }
                }
            }
        }
    }

    /// A numbered reference `\N` (its digits start at `i`): the index after it.
    fn group_ref(&self, i: usize) -> Result<usize, String> {
        let mut end = i;
        while end < i + 2 && self.at(end).is_some_and(|d| d.is_ascii_digit()) {
            end += 1;
        }
        let digits: String = self.cs[i..end].iter().collect();
        let n: usize = digits.parse().unwrap_or(0);
        match self.closed.get(n.wrapping_sub(1)) {
            Some(true) => Ok(end),
            Some(false) => Err(err("cannot refer to an open group", i - 1)),
            None => Err(err(format_args!("invalid group reference {n}"), i)),
        }
    }

    /// A group opening `(` at `i`: the index after the opening and what it leaves as last.
    fn group(&mut self, i: usize, last: Last) -> Result<(usize, Last), String> {
        if self.at(i + 1) != Some('?') {
            self.closed.push(false);
            self.open.push((i, Some(self.closed.len())));
            return Ok((i + 1, Last::Nothing));
        }
        let Some(c) = self.at(i + 2) else {
            return Err(err("unexpected end of pattern", i + 2));
        };
        match c {
            ':' | '=' | '!' | '>' => {
                self.open.push((i, None));
                Ok((i + 3, Last::Nothing))
            }
            '<' if matches!(self.at(i + 3), Some('=' | '!')) => {
                self.open.push((i, None));
                Ok((i + 4, Last::Nothing))
            }
            '#' => match self.cs[i..].iter().position(|c| *c == ')') {
                Some(n) => Ok((i + n + 1, last)),
                None => Err(err("missing ), unterminated comment", i)),
            },
            'P' if self.at(i + 3) == Some('<') => {
                let from = i + 4;
                let Some(n) = self.cs[from..].iter().position(|c| *c == '>') else {
                    return Err(err("missing >, unterminated name", from));
                };
                let name: String = self.cs[from..from + n].iter().collect();
                self.closed.push(false);
                self.names.push((name, self.closed.len()));
                self.open.push((i, Some(self.closed.len())));
                Ok((from + n + 1, Last::Nothing))
            }
            'P' if self.at(i + 3) == Some('=') => {
                let from = i + 4;
                let Some(n) = self.cs[from..].iter().position(|c| *c == ')') else {
                    return Err(err("missing ), unterminated name", from));
                };
                let name: String = self.cs[from..from + n].iter().collect();
                match self.names.iter().find(|(have, _)| *have == name) {
                    None => Err(err(format_args!("unknown group name '{name}'"), from)),
                    Some((_, g)) if !self.closed[g - 1] => {
                        Err(err("cannot refer to an open group", from))
                    }
                    Some(_) => Ok((from + n + 1, Last::Atom)),
                }
            }
            c if "aiLmsux-".contains(c) => {
                let mut j = i + 2;
                while self.at(j).is_some_and(|c| "aiLmsux-".contains(c)) {
                    j += 1;
                }
                match self.at(j) {
                    Some(':') => {
                        self.open.push((i, None));
                        Ok((j + 1, Last::Nothing))
                    }
                    Some(')') if i == 0 => Ok((j + 1, last)),
                    Some(')') => Err(err("global flags not at the start of the expression", i)),
                    _ => Err(err("missing -, : or )", j)),
                }
            }
            _ => {
                let shown: String = self.cs[i + 1..(i + 4).min(self.cs.len())]
                    .iter()
                    .take(if c == '<' { 3 } else { 2 })
                    .collect();
                Err(err(format_args!("unknown extension {shown}"), i + 1))
            }
        }
    }

    /// A `{m,n}` at `i`, if it is a repeat (else Python reads a literal `{`): the index after
    /// it, or the count errors.
    fn braces(&self, i: usize) -> Result<Option<usize>, String> {
        if self.at(i + 1) == Some('}') {
            return Ok(None);
        }
        let digits = |from: usize| {
            let mut end = from;
            while self.at(end).is_some_and(|d| d.is_ascii_digit()) {
                end += 1;
            }
            end
        };
        let lo_end = digits(i + 1);
        let (hi_from, hi_end) = if self.at(lo_end) == Some(',') {
            (lo_end + 1, digits(lo_end + 1))
        } else {
            (i + 1, lo_end)
        };
        if self.at(hi_end) != Some('}') {
            return Ok(None);
        }
        let num = |a: usize, b: usize| -> Option<u64> {
            let t: String = self.cs[a..b].iter().collect();
            (!t.is_empty()).then(|| t.parse().unwrap_or(u64::MAX))
        };
        let lo = num(i + 1, lo_end);
        let hi = num(hi_from, hi_end);
        if lo.is_some_and(|n| n >= MAX_REPEAT) || hi.is_some_and(|n| n >= MAX_REPEAT) {
            return Err("the repetition number is too large".into());
        }
        if let (Some(lo), Some(hi)) = (lo, hi)
            && hi < lo
        {
            return Err(err("min repeat greater than max repeat", i + 1));
        }
        Ok(Some(hi_end + 1))
    }
}

fn hex_len(e: char) -> usize {
    match e {
        'x' => 2,
        'u' => 4,
        _ => 8,
    }
}

/// Python's error text when `re.compile(p)` fails, `None` when it compiles.
pub fn regex_error(p: &str) -> Option<String> {
    let mut w = Walk {
        cs: p.chars().collect(),
        open: Vec::new(),
        closed: Vec::new(),
        names: Vec::new(),
    };
    walk(&mut w).err()
}

fn walk(w: &mut Walk) -> Result<(), String> {
    let mut i = 0;
    let mut last = Last::Nothing;
    while let Some(c) = w.at(i) {
        let repeat_at = |last: Last, pos: usize| match last {
            Last::Atom => Ok(()),
            Last::Repeat => Err(err("multiple repeat", pos)),
            Last::Nothing | Last::Assertion => Err(err("nothing to repeat", pos)),
        };
        match c {
            '\\' => {
                let Some(e) = w.at(i + 1) else {
                    return Err(err("bad escape (end of pattern)", i));
                };
                (i, last) = match e {
                    'A' | 'Z' | 'b' | 'B' => (i + 2, Last::Assertion),
                    '1'..='9' => (w.group_ref(i + 1)?, Last::Atom),
                    'x' | 'u' | 'U' => (w.hex_escape(i, hex_len(e))?.0, Last::Atom),
                    'N' => (w.named_escape(i)?, Last::Atom),
                    'd' | 'D' | 's' | 'S' | 'w' | 'W' | 'a' | 'f' | 'n' | 'r' | 't' | 'v' | '0' => {
                        (i + 2, Last::Atom)
                    }
                    e if e.is_ascii_alphabetic() => {
                        return Err(err(format_args!("bad escape \\{e}"), i));
                    }
                    _ => (i + 2, Last::Atom),
                };
                continue;
            }
            '[' => {
                i = w.class(i)?;
                last = Last::Atom;
                continue;
            }
            '(' => {
                (i, last) = w.group(i, last)?;
                continue;
            }
            ')' => {
                let Some((_, group)) = w.open.pop() else {
                    return Err(err("unbalanced parenthesis", i));
                };
                if let Some(g) = group {
                    w.closed[g - 1] = true;
                }
                last = Last::Atom;
            }
            '|' => last = Last::Nothing,
            '^' | '$' => last = Last::Assertion,
            '*' | '+' | '?' => {
                repeat_at(last, i)?;
                // a lazy `?` or possessive `+` belongs to the repeat
                if matches!(w.at(i + 1), Some('?' | '+')) {
                    i += 1;
                }
                last = Last::Repeat;
            }
            '{' => match w.braces(i)? {
                Some(end) => {
                    repeat_at(last, i)?;
                    i = end;
                    if matches!(w.at(i), Some('?' | '+')) {
                        i += 1;
                    }
                    last = Last::Repeat;
                    continue;
                }
                None => last = Last::Atom,
            },
            _ => last = Last::Atom,
        }
        i += 1;
    }
    match w.open.last() {
        Some((pos, _)) => Err(err("missing ), unterminated subpattern", *pos)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::regex_error;

    /// `re.compile`'s answers: made by `python3 crates/api/tests/data/python_re_table.py`
    /// (Python 3.11.7; the stack venv's 3.11.2 answers the same), pasted as printed.
    const PYTHON: &[(&str, Option<&str>)] = &include!("../../tests/data/python_re_compile.rs.in");

    #[test]
    fn refusals_are_pythons() {
        let wrong: Vec<String> = PYTHON
            .iter()
            .filter(|(p, want)| regex_error(p).as_deref() != *want)
            .map(|(p, want)| format!("{p:?}: want {want:?}, got {:?}", regex_error(p)))
            .collect();
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }
}
