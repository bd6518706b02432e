//! The policy engine: the rule set ([`Policy`]: Octavia's registered defaults, the deprecated
//! `load-balancer_*` alternatives, a policy file's overrides and aliases), the credentials a
//! check reads, and the checks the handlers call ([`authorize`], [`allowed`], [`list_scope`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::{Arc, LazyLock};

use super::check::{Check, RuleError, literal, parse_list_rule, parse_rule, substitute};
use super::defaults::registered_defaults;

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
        /// Why it does not parse.
        why: RuleError,
    },
    /// Rules reference each other in a cycle (oslo.policy would recurse forever).
    #[error("policy rules {0:?} are part of a cyclical reference")]
    Cycle(Vec<String>),
}

/// The caller's policy values (oslo.context `to_policy_values` + Octavia's `is_admin`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Credentials {
    /// Token project (`project_id:%(project_id)s` checks).
    pub project_id: Option<String>,
    /// Token user (`user_id:` checks).
    pub user_id: Option<String>,
    /// Role names, implied roles included (`role:` checks, case-insensitive).
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
            if let Some(old) = deprecated
                && !enforce_new_defaults
                && old != check
            {
                c = Check::Or(vec![c, parse(old)?]);
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
                            return Err(format(format!("rule name {other:?} is not a string")));
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
                            )));
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
                )));
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

/// What a policy check needs of a caller: the rules in force and its credentials
/// (`context::RequestContext` implements it; the rules live here, the request context above).
pub trait Subject {
    /// The rules the caller is checked against.
    fn policy(&self) -> &Policy;
    /// The caller's policy values.
    fn credentials(&self) -> Credentials;
}

/// Enforce `os_load-balancer_api:<resource>:<action>` against `target_project` with the
/// context's policy; 403 `Policy does not allow this request to be performed.` when denied.
pub fn authorize(
    ctx: &impl Subject,
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
    ctx: &impl Subject,
    resource: &str,
    action: &str,
    target_project: Option<&str>,
) -> bool {
    ctx.policy().enforce(
        &format!("os_load-balancer_api:{resource}:{action}"),
        &ctx.credentials(),
        target_project,
    )
}

/// Which projects a list may show, as `BaseController._auth_get_all`: `None` = all projects
/// (optionally narrowed by `?project_id=`), `Some(p)` = only project `p`.
pub fn list_scope(
    ctx: &impl Subject,
    resource: &str,
    query_project: Option<&str>,
) -> Result<Option<String>, ApiError> {
    if allowed(ctx, resource, "get_all-global", query_project) {
        return Ok(query_project.map(str::to_string));
    }
    let project = query_project
        .map(str::to_string)
        .or_else(|| ctx.credentials().project_id)
        .ok_or(ApiError::PolicyForbidden)?;
    authorize(ctx, resource, "get_all", Some(&project))?;
    Ok(Some(project))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::context::RequestContext;
    use crate::policy::{PolicySource, find_policy_file};

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
        assert!(
            p.rule("os_load-balancer_api:loadbalancer:get_one")
                .is_some()
        );
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
