//! RBAC: Octavia's registered policy rules evaluated as oslo.policy does
//! (`octavia/policies/*.py`, `octavia/common/policy.py`, oslo.policy 6.0.0 as pinned by
//! `ci/stack/upper-constraints.txt`; api-contract.md §14.8).
//!
//! * Defaults: the keystone default roles (`reader`/`member`/`admin`, project scope).
//! * `[oslo_policy] enforce_new_defaults = False`: every default that has a deprecated rule
//!   becomes `<new> or <deprecated>`, so the legacy `load-balancer_*` roles
//!   (`load-balancer_observer`, `_global_observer`, `_member`, `_quota_admin`, `_admin`) work
//!   again; True is oslo.policy 6.0.0's default (Octavia sets none of its own).
//! * `[oslo_policy] policy_file`: a YAML (or JSON) mapping rule name → check string that
//!   overrides registered rules and defines aliases, in oslo.policy's rule language
//!   ([`parse_rule`]).
//! * Scope: every Octavia rule has `scope_types = ['project']`; oslo.policy 6.0.0 always
//!   enforces it, so a system-scoped token fails every `os_load-balancer_api:*` rule.
//!
//! Keel is stricter than oslo.policy on one point: a check string it cannot parse is a
//! startup error ([`PolicyError`]) rather than a logged rule that silently denies.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

use crate::context::RequestContext;
use crate::fault::ApiError;

/// A policy file or check string that cannot be used (startup error).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PolicyError {
    /// The policy file could not be read.
    #[error("cannot read policy file {path}: {why}")]
    Read {
        /// The file's path.
        path: String,
        /// The I/O error text.
        why: String,
    },
    /// The file is not YAML/JSON, or not a mapping of rule name → check string.
    #[error("policy file {path}: {why}")]
    Format {
        /// The file's path.
        path: String,
        /// What is wrong.
        why: String,
    },
    /// A check string does not parse.
    #[error("policy rule {name:?}: cannot parse {rule:?}: {why}")]
    Parse {
        /// The rule's name.
        name: String,
        /// The check string.
        rule: String,
        /// What is wrong.
        why: String,
    },
    /// Rules reference each other in a cycle (oslo.policy would recurse forever).
    #[error("policy rules {0:?} are part of a cyclical reference")]
    Cycle(Vec<String>),
}

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

#[derive(Debug, PartialEq)]
enum Token {
    Open,
    Close,
    And,
    Or,
    Not,
    Check(Check),
}

fn parse_check(text: &str) -> Result<Check, String> {
    match text {
        "!" => return Ok(Check::False),
        "@" => return Ok(Check::True),
        _ => {}
    }
    let (kind, matches) = text
        .split_once(':')
        .ok_or_else(|| format!("{text:?} is not `kind:match`, `@` or `!`"))?;
    Ok(match kind {
        "rule" => Check::Rule(matches.to_string()),
        "role" => Check::Role(matches.to_string()),
        "is_admin" => Check::IsAdmin(matches.eq_ignore_ascii_case("true")),
        "http" | "https" => return Err(format!("{kind}: checks are not supported by Keel")),
        _ => Check::Generic {
            kind: kind.to_string(),
            matches: matches.to_string(),
        },
    })
}

/// oslo's tokenizer: whitespace-separated; `(`/`)` peeled off a token's ends only (so
/// `%(project_id)s` survives); `and`/`or`/`not` case-insensitive.
fn tokenize(rule: &str) -> Result<Vec<Token>, String> {
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
                    return Err(format!("unexpected string {core}"))
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
    fn or_expr(&mut self) -> Result<Check, String> {
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
    fn and_expr(&mut self) -> Result<Check, String> {
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
    fn not_expr(&mut self) -> Result<Check, String> {
        match self.tokens.next() {
            Some(Token::Not) => Ok(Check::Not(Box::new(self.not_expr()?))),
            Some(Token::Open) => {
                let inner = self.or_expr()?;
                match self.tokens.next() {
                    Some(Token::Close) => Ok(inner),
                    _ => Err("unbalanced parentheses".into()),
                }
            }
            Some(Token::Check(c)) => Ok(c),
            Some(t) => Err(format!("unexpected {t:?}")),
            None => Err("unexpected end of rule".into()),
        }
    }
}

/// Parses a check string in oslo.policy's language: `role:x`, `rule:name`,
/// `project_id:%(project_id)s`, `is_admin:True`, `@`, `!`, `and`/`or`/`not`, parentheses.
/// The empty string is `@` (oslo). Errors: the reason as text.
pub fn parse_rule(rule: &str) -> Result<Check, String> {
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
        Some(t) => Err(format!("unexpected {t:?}")),
    }
}

/// oslo's old list-of-lists form (`[["role:a", "role:b"], ["role:c"]]` = (a and b) or c).
fn parse_list_rule(items: &[serde_yaml_ng::Value]) -> Result<Check, String> {
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
                    other => Err(format!("expected a string, got {other:?}")),
                })
                .collect::<Result<_, _>>()?,
            other => return Err(format!("expected a string or a list, got {other:?}")),
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

/// A registered default (`RuleDefault`) with its `DeprecatedRule` check string, if any.
struct RuleDefault {
    name: &'static str,
    check: &'static str,
    deprecated: Option<&'static str>,
}

const fn rd(name: &'static str, check: &'static str) -> RuleDefault {
    RuleDefault {
        name,
        check,
        deprecated: None,
    }
}

const fn dep(name: &'static str, check: &'static str, old: &'static str) -> RuleDefault {
    RuleDefault {
        name,
        check,
        deprecated: Some(old),
    }
}

/// `base.py`, `keystone_default_roles.py`, `advanced_rbac.py` (deprecated = WALLABY rules).
const BASE_RULES: &[RuleDefault] = &[
    rd("load-balancer:owner", "project_id:%(project_id)s"),
    rd(
        "project-member",
        "role:member and project_id:%(project_id)s",
    ),
    rd(
        "project-reader",
        "role:reader and project_id:%(project_id)s",
    ),
    dep(
        "context_is_admin",
        "role:admin",
        "role:admin or role:load-balancer_admin",
    ),
    dep(
        "load-balancer:admin",
        "is_admin:True or role:admin",
        "is_admin:True or role:admin or role:load-balancer_admin",
    ),
    rd("service", "role:service"),
    dep(
        "load-balancer:global_observer",
        "role:admin",
        "role:load-balancer_global_observer",
    ),
    dep(
        "load-balancer:member_and_owner",
        "rule:project-member",
        "role:load-balancer_member and rule:load-balancer:owner",
    ),
    dep(
        "load-balancer:observer_and_owner",
        "rule:project-reader",
        "role:load-balancer_observer and rule:load-balancer:owner",
    ),
    dep(
        "load-balancer:quota-admin",
        "role:admin",
        "role:load-balancer_quota_admin",
    ),
    rd(
        "load-balancer:read",
        "rule:load-balancer:observer_and_owner or rule:load-balancer:global_observer or \
         rule:load-balancer:member_and_owner or rule:load-balancer:admin",
    ),
    rd(
        "load-balancer:read-global",
        "rule:load-balancer:global_observer or rule:load-balancer:admin",
    ),
    rd(
        "load-balancer:write",
        "rule:load-balancer:member_and_owner or rule:load-balancer:admin",
    ),
    rd(
        "load-balancer:read-quota",
        "rule:load-balancer:observer_and_owner or rule:load-balancer:global_observer or \
         rule:load-balancer:member_and_owner or rule:load-balancer:quota-admin or \
         rule:load-balancer:admin",
    ),
    rd(
        "load-balancer:read-quota-global",
        "rule:load-balancer:global_observer or rule:load-balancer:quota-admin or \
         rule:load-balancer:admin",
    ),
    rd(
        "load-balancer:write-quota",
        "rule:load-balancer:quota-admin or rule:load-balancer:admin",
    ),
];

const ADMIN: &str = "rule:load-balancer:admin";
const READ: &str = "rule:load-balancer:read";
const READ_GLOBAL: &str = "rule:load-balancer:read-global";
const WRITE: &str = "rule:load-balancer:write";
const READ_QUOTA: &str = "rule:load-balancer:read-quota";

/// `os_load-balancer_api:<resource>:<action>` → check string (`octavia/policies/<resource>.py`).
const API_RULES: &[(&str, &[(&str, &str)])] = &[
    (
        "amphora",
        &[
            ("get_all", ADMIN),
            ("get_one", ADMIN),
            ("delete", ADMIN),
            ("put_config", ADMIN),
            ("put_failover", ADMIN),
            ("get_stats", ADMIN),
        ],
    ),
    (
        "availability-zone",
        &[
            ("get_all", READ),
            ("post", ADMIN),
            ("put", ADMIN),
            ("get_one", READ),
            ("delete", ADMIN),
        ],
    ),
    (
        "availability-zone-profile",
        &[
            ("get_all", ADMIN),
            ("post", ADMIN),
            ("put", ADMIN),
            ("get_one", ADMIN),
            ("delete", ADMIN),
        ],
    ),
    (
        "flavor",
        &[
            ("get_all", READ),
            ("post", ADMIN),
            ("put", ADMIN),
            ("get_one", READ),
            ("delete", ADMIN),
        ],
    ),
    (
        "flavor-profile",
        &[
            ("get_all", ADMIN),
            ("post", ADMIN),
            ("put", ADMIN),
            ("get_one", ADMIN),
            ("delete", ADMIN),
        ],
    ),
    (
        "healthmonitor",
        &[
            ("get_all", READ),
            ("get_all-global", READ_GLOBAL),
            ("post", WRITE),
            ("get_one", READ),
            ("put", WRITE),
            ("delete", WRITE),
        ],
    ),
    (
        "l7policy",
        &[
            ("get_all", READ),
            ("get_all-global", READ_GLOBAL),
            ("post", WRITE),
            ("get_one", READ),
            ("put", WRITE),
            ("delete", WRITE),
        ],
    ),
    (
        "l7rule",
        &[
            ("get_all", READ),
            ("post", WRITE),
            ("get_one", READ),
            ("put", WRITE),
            ("delete", WRITE),
        ],
    ),
    (
        "listener",
        &[
            ("get_all", READ),
            ("get_all-global", READ_GLOBAL),
            ("post", WRITE),
            ("get_one", READ),
            ("put", WRITE),
            ("delete", WRITE),
            ("get_stats", READ),
        ],
    ),
    (
        "loadbalancer",
        &[
            ("get_all", READ),
            ("get_all-global", READ_GLOBAL),
            ("post", WRITE),
            ("post:vip_sg_ids", WRITE),
            ("get_one", READ),
            ("put", WRITE),
            ("put:vip_sg_ids", WRITE),
            ("delete", WRITE),
            ("get_stats", READ),
            ("get_status", READ),
            ("put_failover", ADMIN),
        ],
    ),
    (
        "member",
        &[
            ("get_all", "rule:load-balancer:read or rule:service"),
            ("post", WRITE),
            ("get_one", READ),
            ("put", WRITE),
            ("delete", WRITE),
        ],
    ),
    (
        "pool",
        &[
            ("get_all", READ),
            ("get_all-global", READ_GLOBAL),
            ("post", WRITE),
            ("get_one", READ),
            ("put", WRITE),
            ("delete", WRITE),
        ],
    ),
    ("provider", &[("get_all", READ)]),
    ("provider-availability-zone", &[("get_all", ADMIN)]),
    ("provider-flavor", &[("get_all", ADMIN)]),
    (
        "quota",
        &[
            ("get_all", READ_QUOTA),
            ("get_all-global", "rule:load-balancer:read-quota-global"),
            ("get_one", READ_QUOTA),
            ("put", "rule:load-balancer:write-quota"),
            ("delete", "rule:load-balancer:write-quota"),
            ("get_defaults", READ_QUOTA),
        ],
    ),
];

/// The caller's policy values (oslo.context `to_policy_values` + Octavia's `is_admin`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Credentials {
    /// Token project.
    pub project_id: Option<String>,
    /// Token user.
    pub user_id: Option<String>,
    /// Role names.
    pub roles: Vec<String>,
    /// `context_is_admin` passed, or noauth.
    pub is_admin: bool,
    /// System-scoped token.
    pub system_scope: bool,
}

impl Credentials {
    fn value(&self, kind: &str) -> Option<Vec<String>> {
        match kind {
            "project_id" | "tenant" | "tenant_id" => self.project_id.clone().map(|p| vec![p]),
            "user_id" | "user" => self.user_id.clone().map(|u| vec![u]),
            "roles" => Some(self.roles.clone()),
            "is_admin" => Some(vec![if self.is_admin { "True" } else { "False" }.into()]),
            "system_scope" => self.system_scope.then(|| vec!["all".to_string()]),
            _ => None,
        }
    }
}

/// Replaces `%(key)s` with the target's values; a missing (or `None`) key → `None`
/// (oslo's `KeyError` → the check fails). Keel's only target key is `project_id`.
fn substitute(matches: &str, target: &BTreeMap<&str, String>) -> Option<String> {
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
fn literal(kind: &str) -> Option<String> {
    let quoted = |q: char| kind.len() >= 2 && kind.starts_with(q) && kind.ends_with(q);
    if quoted('\'') || quoted('"') {
        return Some(kind[1..kind.len() - 1].to_string());
    }
    if matches!(kind, "True" | "False" | "None") || kind.parse::<i64>().is_ok() {
        return Some(kind.to_string());
    }
    None
}

/// The effective rule set: Octavia's registered defaults merged with a policy file, as
/// oslo.policy's `Enforcer.load_rules` builds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    rules: BTreeMap<String, Check>,
    registered: BTreeSet<String>,
}

impl Default for Policy {
    /// Octavia's defaults with `enforce_new_defaults = True` and no policy file.
    fn default() -> Self {
        DEFAULT_POLICY.as_ref().clone()
    }
}

static DEFAULT_POLICY: LazyLock<Arc<Policy>> = LazyLock::new(|| {
    Arc::new(Policy::build(BTreeMap::new(), true).unwrap_or_else(|_| Policy::deny_all_fallback()))
});

/// The shared default policy (no file, new defaults).
pub fn default_policy() -> Arc<Policy> {
    DEFAULT_POLICY.clone()
}

fn registered_defaults() -> impl Iterator<Item = (String, &'static str, Option<&'static str>)> {
    BASE_RULES
        .iter()
        .map(|r| (r.name.to_string(), r.check, r.deprecated))
        .chain(API_RULES.iter().flat_map(|(resource, actions)| {
            actions.iter().map(move |(action, check)| {
                (
                    format!("os_load-balancer_api:{resource}:{action}"),
                    *check,
                    None,
                )
            })
        }))
}

impl Policy {
    // Only reachable if a built-in check string failed to parse (a unit test guards that).
    fn deny_all_fallback() -> Self {
        Self {
            rules: BTreeMap::new(),
            registered: BTreeSet::new(),
        }
    }

    /// Builds the rule set: `file_rules` (already parsed) win; every registered default not
    /// in them is added, OR-ed with its deprecated check string when `enforce_new_defaults`
    /// is false and the strings differ (oslo `_handle_deprecated_rule`).
    /// Errors: a cycle among the rules.
    pub fn build(
        file_rules: BTreeMap<String, Check>,
        enforce_new_defaults: bool,
    ) -> Result<Self, PolicyError> {
        let mut rules = file_rules;
        let mut registered = BTreeSet::new();
        for (name, check, deprecated) in registered_defaults() {
            registered.insert(name.clone());
            if rules.contains_key(&name) {
                continue;
            }
            let parse = |s: &str| {
                parse_rule(s).map_err(|why| PolicyError::Parse {
                    name: name.clone(),
                    rule: s.to_string(),
                    why,
                })
            };
            let mut c = parse(check)?;
            if let Some(old) = deprecated {
                if !enforce_new_defaults && old != check {
                    c = Check::Or(vec![c, parse(old)?]);
                }
            }
            rules.insert(name, c);
        }
        let policy = Self { rules, registered };
        policy.check_cycles()?;
        for (name, check) in &policy.rules {
            if let Some(missing) = policy.undefined_reference(check) {
                tracing::warn!(rule = %name, %missing, "policy rule references an undefined rule");
            }
        }
        Ok(policy)
    }

    /// Parses a policy file's text (YAML; JSON is a subset) into rule overrides and builds
    /// the rule set. `source` names the file in errors. An empty document = no overrides.
    pub fn from_text(
        source: &str,
        text: &str,
        enforce_new_defaults: bool,
    ) -> Result<Self, PolicyError> {
        let format = |why: String| PolicyError::Format {
            path: source.to_string(),
            why,
        };
        let doc: serde_yaml_ng::Value =
            serde_yaml_ng::from_str(text).map_err(|e| format(e.to_string()))?;
        let mut file_rules = BTreeMap::new();
        match doc {
            serde_yaml_ng::Value::Null => {}
            serde_yaml_ng::Value::Mapping(map) => {
                for (k, v) in map {
                    let name = match k {
                        serde_yaml_ng::Value::String(s) => s,
                        other => {
                            return Err(format(format!("rule name {other:?} is not a string")))
                        }
                    };
                    let (rule_text, parsed) = match &v {
                        serde_yaml_ng::Value::String(s) => (s.clone(), parse_rule(s)),
                        serde_yaml_ng::Value::Null => (String::new(), Ok(Check::True)),
                        serde_yaml_ng::Value::Sequence(items) => {
                            (format!("{items:?}"), parse_list_rule(items))
                        }
                        other => {
                            return Err(format(format!(
                                "rule {name:?}: expected a check string, got {other:?}"
                            )))
                        }
                    };
                    let check = parsed.map_err(|why| PolicyError::Parse {
                        name: name.clone(),
                        rule: rule_text,
                        why,
                    })?;
                    file_rules.insert(name, check);
                }
            }
            other => {
                return Err(format(format!(
                    "expected a mapping of rule name to check string, got {other:?}"
                )))
            }
        }
        Self::build(file_rules, enforce_new_defaults)
    }

    /// Loads `[oslo_policy]`: `policy_file` (absent → defaults only, as oslo.policy) with
    /// `enforce_new_defaults`. Errors: unreadable file, bad YAML, bad rule, cycle.
    pub fn load(
        policy_file: Option<&Path>,
        enforce_new_defaults: bool,
    ) -> Result<Self, PolicyError> {
        match policy_file {
            None => Self::build(BTreeMap::new(), enforce_new_defaults),
            Some(path) => {
                let text = std::fs::read_to_string(path).map_err(|e| PolicyError::Read {
                    path: path.display().to_string(),
                    why: e.to_string(),
                })?;
                Self::from_text(&path.display().to_string(), &text, enforce_new_defaults)
            }
        }
    }

    /// The rule `name`, if defined.
    pub fn rule(&self, name: &str) -> Option<&Check> {
        self.rules.get(name)
    }

    fn check_cycles(&self) -> Result<(), PolicyError> {
        fn refs<'a>(c: &'a Check, out: &mut Vec<&'a str>) {
            match c {
                Check::Rule(r) => out.push(r),
                Check::Not(i) => refs(i, out),
                Check::And(v) | Check::Or(v) => v.iter().for_each(|i| refs(i, out)),
                _ => {}
            }
        }
        // Depth-first colouring over rule → referenced rules.
        let mut state: BTreeMap<&str, u8> = BTreeMap::new();
        let mut cyclic = BTreeSet::new();
        fn visit<'a>(
            p: &'a Policy,
            name: &'a str,
            state: &mut BTreeMap<&'a str, u8>,
            cyclic: &mut BTreeSet<String>,
            stack: &mut Vec<&'a str>,
        ) {
            match state.get(name) {
                Some(2) => return,
                Some(1) => {
                    if let Some(pos) = stack.iter().position(|n| *n == name) {
                        cyclic.extend(stack[pos..].iter().map(|s| s.to_string()));
                    }
                    return;
                }
                _ => {}
            }
            let Some(check) = p.rules.get(name) else {
                return;
            };
            state.insert(name, 1);
            stack.push(name);
            let mut out = Vec::new();
            refs(check, &mut out);
            for r in out {
                visit(p, r, state, cyclic, stack);
            }
            stack.pop();
            state.insert(name, 2);
        }
        for name in self.rules.keys() {
            visit(self, name, &mut state, &mut cyclic, &mut Vec::new());
        }
        if cyclic.is_empty() {
            Ok(())
        } else {
            Err(PolicyError::Cycle(cyclic.into_iter().collect()))
        }
    }

    fn undefined_reference<'a>(&self, c: &'a Check) -> Option<&'a str> {
        match c {
            Check::Rule(r) if !self.rules.contains_key(r) => Some(r),
            Check::Not(i) => self.undefined_reference(i),
            Check::And(v) | Check::Or(v) => v.iter().find_map(|i| self.undefined_reference(i)),
            _ => None,
        }
    }

    fn eval(
        &self,
        c: &Check,
        creds: &Credentials,
        target: &BTreeMap<&str, String>,
        depth: usize,
    ) -> bool {
        match c {
            Check::True => true,
            Check::False => false,
            // Cycles are rejected at build time; the depth cap is belt and braces.
            Check::Rule(name) => match self.rules.get(name) {
                Some(r) if depth < 64 => self.eval(r, creds, target, depth + 1),
                _ => false,
            },
            Check::Role(m) => substitute(m, target)
                .is_some_and(|role| creds.roles.iter().any(|r| r.eq_ignore_ascii_case(&role))),
            Check::IsAdmin(expected) => creds.is_admin == *expected,
            Check::Generic { kind, matches } => {
                let Some(m) = substitute(matches, target) else {
                    return false;
                };
                if let Some(lit) = literal(kind) {
                    return m == lit;
                }
                creds.value(kind).is_some_and(|vals| vals.contains(&m))
            }
            Check::Not(i) => !self.eval(i, creds, target, depth),
            Check::And(v) => v.iter().all(|i| self.eval(i, creds, target, depth)),
            Check::Or(v) => v.iter().any(|i| self.eval(i, creds, target, depth)),
        }
    }

    /// oslo `Enforcer.enforce(rule, target, creds)`: an undefined rule fails closed; a
    /// registered rule (all project-scoped) fails for a system-scoped token.
    /// `target_project` is the target's `project_id`.
    pub fn enforce(&self, rule: &str, creds: &Credentials, target_project: Option<&str>) -> bool {
        if self.registered.contains(rule) && creds.system_scope {
            return false;
        }
        let Some(check) = self.rules.get(rule) else {
            return false;
        };
        let mut target = BTreeMap::new();
        if let Some(p) = target_project {
            target.insert("project_id", p.to_string());
        }
        self.eval(check, creds, &target, 0)
    }

    /// Octavia's `check_is_admin`: the `context_is_admin` rule with the credentials as
    /// target (project-scoped, so false for system tokens).
    pub fn check_is_admin(&self, creds: &Credentials) -> bool {
        self.enforce("context_is_admin", creds, creds.project_id.as_deref())
    }
}

/// The policy in force, re-read when its file changes (oslo.policy's `Enforcer.load_rules`
/// runs on every check and re-reads a policy file whose modification time changed).
///
/// A changed file that no longer parses keeps the last good rules (logged at error): Keel
/// prefers that to oslo's failing every request until the file is fixed.
#[derive(Debug)]
pub struct PolicySource {
    file: Option<PathBuf>,
    enforce_new_defaults: bool,
    cache: std::sync::RwLock<(Option<FileStamp>, Arc<Policy>)>,
}

/// What identifies one version of the file: modification time and length.
type FileStamp = (std::time::SystemTime, u64);

fn stamp(path: &Path) -> Option<FileStamp> {
    let m = std::fs::metadata(path).ok()?;
    Some((m.modified().ok()?, m.len()))
}

impl PolicySource {
    /// Rules that never change (no file to watch).
    pub fn fixed(policy: Policy) -> Self {
        Self {
            file: None,
            enforce_new_defaults: true,
            cache: std::sync::RwLock::new((None, Arc::new(policy))),
        }
    }

    /// Loads `file` (if any) over the defaults, as [`Policy::load`]; the file is watched.
    /// Errors: the file cannot be used now (startup fails).
    pub fn load(file: Option<PathBuf>, enforce_new_defaults: bool) -> Result<Self, PolicyError> {
        let st = file.as_deref().and_then(stamp);
        let policy = Policy::load(file.as_deref(), enforce_new_defaults)?;
        Ok(Self {
            file,
            enforce_new_defaults,
            cache: std::sync::RwLock::new((st, Arc::new(policy))),
        })
    }

    /// The watched file, if any.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// The rules in force now: re-reads the file when its stamp changed since the last read.
    pub fn current(&self) -> Arc<Policy> {
        let cached = match self.cache.read() {
            Ok(c) => c.clone(),
            Err(p) => p.into_inner().clone(),
        };
        let Some(path) = &self.file else {
            return cached.1;
        };
        let now = stamp(path);
        if now == cached.0 {
            return cached.1;
        }
        let policy = match Policy::load(Some(path), self.enforce_new_defaults) {
            Ok(p) => {
                tracing::info!(file = %path.display(), "policy file reloaded");
                Arc::new(p)
            }
            Err(e) => {
                tracing::error!(error = %e, "policy file changed but cannot be used; keeping the previous rules");
                cached.1
            }
        };
        let mut w = match self.cache.write() {
            Ok(w) => w,
            Err(p) => p.into_inner(),
        };
        *w = (now, policy.clone());
        policy
    }
}

impl PartialEq for PolicySource {
    fn eq(&self, other: &Self) -> bool {
        self.file == other.file
            && self.enforce_new_defaults == other.enforce_new_defaults
            && self.current() == other.current()
    }
}

/// A [`PolicySource`] of the defaults (no file).
pub fn default_policy_source() -> Arc<PolicySource> {
    static SOURCE: LazyLock<Arc<PolicySource>> =
        LazyLock::new(|| Arc::new(PolicySource::fixed(Policy::default())));
    SOURCE.clone()
}

/// oslo.config's `find_file` for a relative `policy_file`: the config file's directory,
/// then `~/.octavia`, `~`, `/etc/octavia`, `/etc`; an absolute path is taken as is.
/// `None` when no such file exists (oslo.policy then uses the defaults).
pub fn find_policy_file(policy_file: &str, config_dir: Option<&Path>) -> Option<PathBuf> {
    let p = Path::new(policy_file);
    if p.is_absolute() {
        return p.is_file().then(|| p.to_path_buf());
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut dirs: Vec<PathBuf> = config_dir.map(Path::to_path_buf).into_iter().collect();
    if let Some(h) = &home {
        dirs.push(h.join(".octavia"));
        dirs.push(h.clone());
    }
    dirs.push(PathBuf::from("/etc/octavia"));
    dirs.push(PathBuf::from("/etc"));
    dirs.into_iter().map(|d| d.join(p)).find(|f| f.is_file())
}

/// The directory oslo.policy uses for one `policy_dirs` entry: absolute as is, else looked up
/// as [`find_policy_file`] does. `None` when no such directory exists (oslo.policy skips it).
pub fn find_policy_dir(dir: &str, config_dir: Option<&Path>) -> Option<PathBuf> {
    let p = Path::new(dir);
    if p.is_absolute() {
        return p.is_dir().then(|| p.to_path_buf());
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut dirs: Vec<PathBuf> = config_dir.map(Path::to_path_buf).into_iter().collect();
    if let Some(h) = &home {
        dirs.push(h.join(".octavia"));
        dirs.push(h.clone());
    }
    dirs.push(PathBuf::from("/etc/octavia"));
    dirs.push(PathBuf::from("/etc"));
    dirs.into_iter().map(|d| d.join(p)).find(|f| f.is_dir())
}

/// Enforce `os_load-balancer_api:<resource>:<action>` against `target_project` with the
/// context's policy; 403 `Policy does not allow this request to be performed.` when denied.
pub fn authorize(
    ctx: &RequestContext,
    resource: &str,
    action: &str,
    target_project: Option<&str>,
) -> Result<(), ApiError> {
    if allowed(ctx, resource, action, target_project) {
        Ok(())
    } else {
        Err(ApiError::PolicyForbidden)
    }
}

/// True when `os_load-balancer_api:<resource>:<action>` passes for `target_project`.
pub fn allowed(
    ctx: &RequestContext,
    resource: &str,
    action: &str,
    target_project: Option<&str>,
) -> bool {
    ctx.policy.enforce(
        &format!("os_load-balancer_api:{resource}:{action}"),
        &ctx.credentials(),
        target_project,
    )
}

/// Which projects a list may show, as `BaseController._auth_get_all`: `None` = all projects
/// (optionally narrowed by `?project_id=`), `Some(p)` = only project `p`.
pub fn list_scope(
    ctx: &RequestContext,
    resource: &str,
    query_project: Option<&str>,
) -> Result<Option<String>, ApiError> {
    if allowed(ctx, resource, "get_all-global", query_project) {
        return Ok(query_project.map(str::to_string));
    }
    let project = query_project
        .map(str::to_string)
        .or_else(|| ctx.project_id.clone())
        .ok_or(ApiError::PolicyForbidden)?;
    authorize(ctx, resource, "get_all", Some(&project))?;
    Ok(Some(project))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn ctx_with(project: &str, roles: &[&str], policy: Arc<Policy>) -> RequestContext {
        let mut c = RequestContext {
            project_id: Some(project.into()),
            roles: roles.iter().map(|r| r.to_string()).collect(),
            ..Default::default()
        };
        c.policy = crate::context::SharedPolicy(policy.clone());
        c.is_admin = policy.check_is_admin(&c.credentials());
        c
    }

    fn ctx(project: &str, roles: &[&str]) -> RequestContext {
        ctx_with(project, roles, default_policy())
    }

    fn legacy() -> Arc<Policy> {
        Arc::new(Policy::build(BTreeMap::new(), false).unwrap())
    }

    #[test]
    fn builtin_rules_parse_without_cycles() {
        for (name, check, old) in registered_defaults() {
            assert!(parse_rule(check).is_ok(), "{name}");
            if let Some(o) = old {
                assert!(parse_rule(o).is_ok(), "{name}");
            }
        }
        let p = Policy::build(BTreeMap::new(), true).unwrap();
        assert!(!p.rules.is_empty());
        assert!(p
            .rule("os_load-balancer_api:loadbalancer:get_one")
            .is_some());
    }

    #[test]
    fn parser_precedence_and_parentheses() {
        use Check::*;
        assert_eq!(
            parse_rule("role:a or role:b and not role:c").unwrap(),
            Or(vec![
                Role("a".into()),
                And(vec![Role("b".into()), Not(Box::new(Role("c".into())))])
            ])
        );
        assert_eq!(
            parse_rule("(role:a or role:b) AND project_id:%(project_id)s").unwrap(),
            And(vec![
                Or(vec![Role("a".into()), Role("b".into())]),
                Generic {
                    kind: "project_id".into(),
                    matches: "%(project_id)s".into()
                }
            ])
        );
        assert_eq!(parse_rule("").unwrap(), True);
        assert_eq!(parse_rule("!").unwrap(), False);
        assert_eq!(parse_rule("((@))").unwrap(), True);
        assert_eq!(parse_rule("is_admin:True").unwrap(), IsAdmin(true));
        for bad in [
            "role:a or",
            "(role:a",
            "role:a)",
            "and role:a",
            "nonsense",
            "role:a role:b",
            "http://x",
        ] {
            assert!(parse_rule(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn keystone_default_roles() {
        let member = ctx("p1", &["member", "reader"]);
        let reader = ctx("p1", &["reader"]);
        let admin = ctx("p9", &["admin", "member", "reader"]);
        assert!(authorize(&member, "loadbalancer", "post", Some("p1")).is_ok());
        assert!(authorize(&member, "loadbalancer", "get_one", Some("p2")).is_err());
        assert!(authorize(&reader, "loadbalancer", "get_one", Some("p1")).is_ok());
        assert!(authorize(&reader, "loadbalancer", "put", Some("p1")).is_err());
        assert!(authorize(&admin, "loadbalancer", "delete", Some("p1")).is_ok());
        assert!(authorize(&member, "loadbalancer", "put_failover", Some("p1")).is_err());
        assert!(authorize(&member, "quota", "put", Some("p1")).is_err());
        assert!(authorize(&reader, "quota", "get_one", Some("p1")).is_ok());
        assert!(authorize(&ctx("p1", &[]), "loadbalancer", "get_one", Some("p1")).is_err());
        let mut sys = admin.clone();
        sys.system_scope = true;
        assert!(authorize(&sys, "loadbalancer", "get_one", Some("p1")).is_err());
        // The legacy roles mean nothing under the new defaults.
        let legacy_member = ctx("p1", &["load-balancer_member"]);
        assert!(authorize(&legacy_member, "loadbalancer", "get_one", Some("p1")).is_err());
        assert!(authorize(&member, "no-such", "get_one", Some("p1")).is_err());
    }

    #[test]
    fn legacy_roles_with_enforce_new_defaults_false() {
        let p = legacy();
        let observer = ctx_with("p1", &["load-balancer_observer"], p.clone());
        let global = ctx_with("p1", &["load-balancer_global_observer"], p.clone());
        let member = ctx_with("p1", &["load-balancer_member"], p.clone());
        let quota = ctx_with("p1", &["load-balancer_quota_admin"], p.clone());
        let lb_admin = ctx_with("p1", &["load-balancer_admin"], p.clone());
        let new_member = ctx_with("p1", &["member", "reader"], p.clone());
        assert!(authorize(&observer, "loadbalancer", "get_one", Some("p1")).is_ok());
        assert!(authorize(&observer, "loadbalancer", "get_one", Some("p2")).is_err());
        assert!(authorize(&observer, "loadbalancer", "post", Some("p1")).is_err());
        assert!(authorize(&global, "loadbalancer", "get_one", Some("p2")).is_ok());
        assert!(authorize(&global, "loadbalancer", "get_all-global", None).is_ok());
        assert!(authorize(&global, "pool", "delete", Some("p1")).is_err());
        assert!(authorize(&member, "loadbalancer", "post", Some("p1")).is_ok());
        assert!(authorize(&member, "loadbalancer", "delete", Some("p2")).is_err());
        assert!(authorize(&member, "quota", "put", Some("p1")).is_err());
        assert!(authorize(&quota, "quota", "put", Some("p2")).is_ok());
        assert!(authorize(&quota, "quota", "get_all-global", None).is_ok());
        assert!(authorize(&quota, "loadbalancer", "get_one", Some("p1")).is_err());
        assert!(
            lb_admin.is_admin,
            "context_is_admin includes load-balancer_admin"
        );
        assert!(authorize(&lb_admin, "amphora", "get_all", None).is_ok());
        assert!(authorize(&lb_admin, "loadbalancer", "delete", Some("p7")).is_ok());
        assert!(authorize(&new_member, "loadbalancer", "post", Some("p1")).is_ok());
    }

    #[test]
    fn policy_file_overrides_and_aliases() {
        let text = "\
\"os_load-balancer_api:loadbalancer:get_one\": \"!\"
\"os_load-balancer_api:loadbalancer:get_all-global\": \"@\"
\"load-balancer:write\": \"rule:custom\"
custom: \"role:writer and (project_id:%(project_id)s or user_id:u9)\"
";
        let p = Arc::new(Policy::from_text("policy.yaml", text, true).unwrap());
        let admin = ctx_with("p1", &["admin"], p.clone());
        assert!(authorize(&admin, "loadbalancer", "get_one", Some("p1")).is_err());
        let nobody = ctx_with("p1", &[], p.clone());
        assert!(authorize(&nobody, "loadbalancer", "get_all-global", None).is_ok());
        let writer = ctx_with("p1", &["writer"], p.clone());
        assert!(authorize(&writer, "pool", "post", Some("p1")).is_ok());
        assert!(authorize(&writer, "pool", "post", Some("p2")).is_err());
        let mut u9 = ctx_with("p1", &["writer"], p.clone());
        u9.user_id = Some("u9".into());
        assert!(authorize(&u9, "pool", "post", Some("p2")).is_ok());
        // JSON is YAML; the list form still parses.
        let json = r#"{"context_is_admin": [["role:boss"], ["role:chief", "role:x"]]}"#;
        let pj = Arc::new(Policy::from_text("policy.json", json, true).unwrap());
        assert!(ctx_with("p1", &["boss"], pj.clone()).is_admin);
        assert!(!ctx_with("p1", &["chief"], pj.clone()).is_admin);
        assert!(Policy::from_text("e", "", true).is_ok());
    }

    #[test]
    fn bad_files_are_typed_errors() {
        assert!(matches!(
            Policy::from_text("f", "a: [unclosed", true),
            Err(PolicyError::Format { .. })
        ));
        assert!(matches!(
            Policy::from_text("f", "- just\n- a list\n", true),
            Err(PolicyError::Format { .. })
        ));
        assert!(matches!(
            Policy::from_text("f", "x: \"role:a or\"\n", true),
            Err(PolicyError::Parse { .. })
        ));
        assert!(matches!(
            Policy::from_text("f", "a: rule:b\nb: rule:a\n", true),
            Err(PolicyError::Cycle(_))
        ));
        assert!(matches!(
            Policy::load(Some(Path::new("/nonexistent/policy.yaml")), true),
            Err(PolicyError::Read { .. })
        ));
        let err = Policy::from_text("f", "x: \"role:a or\"\n", true).unwrap_err();
        assert!(err.to_string().contains("\"x\""), "{err}");
    }

    #[test]
    fn a_changed_file_is_reloaded_and_a_broken_one_ignored() {
        use std::time::{Duration, SystemTime};
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("policy.yaml");
        let write = |text: &str, age: u64| {
            std::fs::write(&f, text).unwrap();
            let t = SystemTime::now() - Duration::from_secs(age);
            std::fs::File::options()
                .write(true)
                .open(&f)
                .unwrap()
                .set_modified(t)
                .unwrap();
        };
        let rule = "os_load-balancer_api:loadbalancer:get_one";
        write("{}", 300);
        let src = PolicySource::load(Some(f.clone()), true).unwrap();
        assert_ne!(src.current().rule(rule), Some(&Check::False));
        write(&format!("\"{rule}\": \"!\""), 200);
        assert_eq!(src.current().rule(rule), Some(&Check::False));
        write("\"x\": \"role:a and\"", 100);
        assert_eq!(
            src.current().rule(rule),
            Some(&Check::False),
            "last good kept"
        );
        write("", 50);
        assert_ne!(src.current().rule(rule), Some(&Check::False));
        assert_eq!(src.file(), Some(f.as_path()));
    }

    #[test]
    fn find_file_relative_to_config_dir() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            find_policy_file("keel-test-policy.yaml", Some(dir.path())),
            None
        );
        std::fs::write(dir.path().join("keel-test-policy.yaml"), "{}").unwrap();
        assert_eq!(
            find_policy_file("keel-test-policy.yaml", Some(dir.path())),
            Some(dir.path().join("keel-test-policy.yaml"))
        );
        let abs = dir.path().join("keel-test-policy.yaml");
        assert_eq!(
            find_policy_file(abs.to_str().unwrap(), None),
            Some(abs.clone())
        );
    }

    #[test]
    fn list_scopes() {
        assert_eq!(
            list_scope(&ctx("p1", &["member"]), "listener", None)
                .unwrap()
                .as_deref(),
            Some("p1")
        );
        assert!(list_scope(&ctx("p1", &["member"]), "listener", Some("p2")).is_err());
        assert_eq!(
            list_scope(&ctx("p9", &["admin"]), "listener", None).unwrap(),
            None
        );
        let noauth = RequestContext {
            is_admin: true,
            ..Default::default()
        };
        assert_eq!(
            list_scope(&noauth, "pool", Some("x")).unwrap().as_deref(),
            Some("x")
        );
        assert!(list_scope(&RequestContext::default(), "pool", None).is_err());
    }
}
