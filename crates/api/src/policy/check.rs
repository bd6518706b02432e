//! oslo.policy's rule language: check strings (and the old list-of-lists form) parsed into
//! [`Check`] trees, and the `%(key)s` / literal helpers the evaluator uses.

use std::collections::BTreeMap;

/// One node of a parsed check string (oslo.policy's `_checks`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    /// `@`: always passes.
    True,
    /// `!`: always fails.
    False,
    /// `rule:<name>`: the named rule (undefined → fails).
    Rule(String),
    /// `role:<name>`: the caller has the role (case-insensitive; `%(x)s` from the target).
    Role(String),
    /// `is_admin:True|False` (Octavia's `IsAdminCheck`): the context's admin flag.
    IsAdmin(bool),
    /// `<kind>:<match>` (oslo `GenericCheck`): a credential (`project_id`, `user_id`,
    /// `roles`, `domain_id`, …) or a literal kind compared with the target-substituted match.
    Generic {
        /// Credential name, or a Python literal (`True`, `'x'`, `3`).
        kind: String,
        /// The value, with `%(key)s` references to the target.
        matches: String,
    },
    /// `not <check>`.
    Not(Box<Check>),
    /// `<a> and <b> …`.
    And(Vec<Check>),
    /// `<a> or <b> …`.
    Or(Vec<Check>),
}

/// Why a check string (or a list-of-lists rule) does not parse. oslo.policy only logs
/// "Failed to understand rule" and denies; Keel refuses to start instead, and these texts
/// (Keel's own) follow the rule's name and text in [`super::PolicyError::Parse`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// A token that is neither `kind:match`, `@` nor `!`.
    #[error("{0:?} is not `kind:match`, `@` or `!`")]
    NotACheck(String),
    /// `http:` / `https:` checks (oslo's remote checks), which Keel does not make.
    #[error("{0}: checks are not supported by Keel")]
    Unsupported(String),
    /// A quoted string where a check belongs.
    #[error("unexpected string {0}")]
    UnexpectedString(String),
    /// An opening parenthesis without its closing one.
    #[error("unbalanced parentheses")]
    Unbalanced,
    /// A token out of place (`and`, `or`, `)` …; shown as the parser names it).
    #[error("unexpected {0}")]
    Unexpected(String),
    /// The rule ends where a check is still due.
    #[error("unexpected end of rule")]
    End,
    /// A list-of-lists rule with an item of another YAML type (shown as parsed).
    #[error("expected {expected}, got {got}")]
    ListItem {
        /// `a string` or `a string or a list`.
        expected: &'static str,
        /// The item as parsed.
        got: String,
    },
}

#[derive(Debug, PartialEq)]
enum Token {
    Open,
    Close,
    And,
    Or,
    Not,
    Check(Check),
}

fn parse_check(text: &str) -> Result<Check, RuleError> {
    match text {
        "!" => return Ok(Check::False),
        "@" => return Ok(Check::True),
        _ => {}
    }
    let (kind, matches) = text
        .split_once(':')
        .ok_or_else(|| RuleError::NotACheck(text.to_string()))?;
    Ok(match kind {
        "rule" => Check::Rule(matches.to_string()),
        "role" => Check::Role(matches.to_string()),
        "is_admin" => Check::IsAdmin(matches.eq_ignore_ascii_case("true")),
        "http" | "https" => return Err(RuleError::Unsupported(kind.to_string())),
        _ => Check::Generic {
            kind: kind.to_string(),
            matches: matches.to_string(),
        },
    })
}

/// oslo's tokenizer: whitespace-separated; `(`/`)` peeled off a token's ends only (so
/// `%(project_id)s` survives); `and`/`or`/`not` case-insensitive.
fn tokenize(rule: &str) -> Result<Vec<Token>, RuleError> {
    let mut out = Vec::new();
    for tok in rule.split_whitespace() {
        let clean = tok.trim_start_matches('(');
        out.extend((0..tok.len() - clean.len()).map(|_| Token::Open));
        if clean.is_empty() {
            continue;
        }
        let core = clean.trim_end_matches(')');
        let trail = clean.len() - core.len();
        if !core.is_empty() {
            let lowered = core.to_ascii_lowercase();
            out.push(match lowered.as_str() {
                "and" => Token::And,
                "or" => Token::Or,
                "not" => Token::Not,
                _ if core.len() >= 2
                    && ((core.starts_with('"') && core.ends_with('"'))
                        || (core.starts_with('\'') && core.ends_with('\''))) =>
                {
                    return Err(RuleError::UnexpectedString(core.to_string()));
                }
                _ => Token::Check(parse_check(core)?),
            });
        }
        out.extend((0..trail).map(|_| Token::Close));
    }
    Ok(out)
}

struct Parser {
    tokens: std::iter::Peekable<std::vec::IntoIter<Token>>,
}

impl Parser {
    // or_expr := and_expr ("or" and_expr)*  — oslo's precedence: not > and > or.
    fn or_expr(&mut self) -> Result<Check, RuleError> {
        let mut items = vec![self.and_expr()?];
        while self.tokens.next_if_eq(&Token::Or).is_some() {
            items.push(self.and_expr()?);
        }
        Ok(if items.len() == 1 {
            items.remove(0)
        } else {
            Check::Or(items)
        })
    }
    fn and_expr(&mut self) -> Result<Check, RuleError> {
        let mut items = vec![self.not_expr()?];
        while self.tokens.next_if_eq(&Token::And).is_some() {
            items.push(self.not_expr()?);
        }
        Ok(if items.len() == 1 {
            items.remove(0)
        } else {
            Check::And(items)
        })
    }
    fn not_expr(&mut self) -> Result<Check, RuleError> {
        match self.tokens.next() {
            Some(Token::Not) => Ok(Check::Not(Box::new(self.not_expr()?))),
            Some(Token::Open) => {
                let inner = self.or_expr()?;
                match self.tokens.next() {
                    Some(Token::Close) => Ok(inner),
                    _ => Err(RuleError::Unbalanced),
                }
            }
            Some(Token::Check(c)) => Ok(c),
            Some(t) => Err(RuleError::Unexpected(format!("{t:?}"))),
            None => Err(RuleError::End),
        }
    }
}

/// Parses a check string in oslo.policy's language: `role:x`, `rule:name`,
/// `project_id:%(project_id)s`, `is_admin:True`, `@`, `!`, `and`/`or`/`not`, parentheses.
/// The empty string is `@` (oslo). Errors: [`RuleError`].
pub fn parse_rule(rule: &str) -> Result<Check, RuleError> {
    let tokens = tokenize(rule)?;
    if tokens.is_empty() {
        return Ok(Check::True);
    }
    let mut p = Parser {
        tokens: tokens.into_iter().peekable(),
    };
    let check = p.or_expr()?;
    match p.tokens.next() {
        None => Ok(check),
        Some(t) => Err(RuleError::Unexpected(format!("{t:?}"))),
    }
}

/// oslo's old list-of-lists form (`[["role:a", "role:b"], ["role:c"]]` = (a and b) or c).
pub(super) fn parse_list_rule(items: &[serde_yaml_ng::Value]) -> Result<Check, RuleError> {
    if items.is_empty() {
        return Ok(Check::True);
    }
    let mut ors = Vec::new();
    for inner in items {
        let ands: Vec<Check> = match inner {
            serde_yaml_ng::Value::String(s) => vec![parse_check(s)?],
            serde_yaml_ng::Value::Sequence(seq) if seq.is_empty() => continue,
            serde_yaml_ng::Value::Sequence(seq) => seq
                .iter()
                .map(|v| match v {
                    serde_yaml_ng::Value::String(s) => parse_check(s),
                    other => Err(RuleError::ListItem {
                        expected: "a string",
                        got: format!("{other:?}"),
                    }),
                })
                .collect::<Result<_, _>>()?,
            other => {
                return Err(RuleError::ListItem {
                    expected: "a string or a list",
                    got: format!("{other:?}"),
                });
            }
        };
        ors.push(if ands.len() == 1 {
            ands.into_iter().next().unwrap_or(Check::False)
        } else {
            Check::And(ands)
        });
    }
    Ok(match ors.len() {
        0 => Check::False,
        1 => ors.into_iter().next().unwrap_or(Check::False),
        _ => Check::Or(ors),
    })
}

/// Replaces `%(key)s` with the target's values; a missing (or `None`) key → `None`
/// (oslo's `KeyError` → the check fails). Keel's only target key is `project_id`.
pub(super) fn substitute(matches: &str, target: &BTreeMap<&str, String>) -> Option<String> {
    let mut out = String::new();
    let mut rest = matches;
    while let Some(start) = rest.find("%(") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after.find(")s")?;
        out.push_str(target.get(&after[..end])?);
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    Some(out)
}

/// A Python literal as oslo's `ast.literal_eval(kind)` would `str()` it, or `None`.
pub(super) fn literal(kind: &str) -> Option<String> {
    let quoted = |q: char| kind.len() >= 2 && kind.starts_with(q) && kind.ends_with(q);
    if quoted('\'') || quoted('"') {
        return Some(kind[1..kind.len() - 1].to_string());
    }
    if matches!(kind, "True" | "False" | "None") || kind.parse::<i64>().is_ok() {
        return Some(kind.to_string());
    }
    None
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Each refusal is its own variant and reads as the startup error shows it.
    #[test]
    fn rule_errors_are_typed_with_their_texts() {
        let cases: &[(&str, RuleError, &str)] = &[
            (
                "nonsense",
                RuleError::NotACheck("nonsense".into()),
                "\"nonsense\" is not `kind:match`, `@` or `!`",
            ),
            (
                "http://x",
                RuleError::Unsupported("http".into()),
                "http: checks are not supported by Keel",
            ),
            (
                "'x'",
                RuleError::UnexpectedString("'x'".into()),
                "unexpected string 'x'",
            ),
            ("(role:a", RuleError::Unbalanced, "unbalanced parentheses"),
            (
                "and role:a",
                RuleError::Unexpected("And".into()),
                "unexpected And",
            ),
            (
                "role:a role:b",
                RuleError::Unexpected("Check(Role(\"b\"))".into()),
                "unexpected Check(Role(\"b\"))",
            ),
            ("role:a or", RuleError::End, "unexpected end of rule"),
        ];
        for (rule, want, text) in cases {
            let got = parse_rule(rule).unwrap_err();
            assert_eq!(&got, want, "{rule}");
            assert_eq!(got.to_string(), *text, "{rule}");
        }
    }

    #[test]
    fn list_rule_items_of_other_types_are_refused() {
        let three: serde_yaml_ng::Value = serde_yaml_ng::from_str("3").unwrap();
        let inner = serde_yaml_ng::Value::Sequence(vec![three.clone()]);
        let got = parse_list_rule(&[inner]).unwrap_err();
        assert_eq!(got.to_string(), format!("expected a string, got {three:?}"));
        let got = parse_list_rule(std::slice::from_ref(&three)).unwrap_err();
        assert_eq!(
            got.to_string(),
            format!("expected a string or a list, got {three:?}")
        );
        assert!(matches!(
            parse_list_rule(&[serde_yaml_ng::Value::String("http:x".into())]),
            Err(RuleError::Unsupported(k)) if k == "http"
        ));
    }
}
