//! RBAC: Octavia's registered policy rules evaluated as oslo.policy does
//! (`octavia/policies/*.py`, `octavia/common/policy.py`, oslo.policy 6.0.0 as pinned by
//! `ci/stack/upper-constraints.txt`).
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

mod check;
mod defaults;
mod engine;
mod source;

pub use check::{Check, RuleError, parse_rule};
pub use engine::*;
pub use source::{PolicySource, default_policy_source, find_policy_dir, find_policy_file};
