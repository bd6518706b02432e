//! RBAC with Octavia's default rules under Keystone's default roles
//! (`octavia/policies/*.py`, `base.py`, `keystone_default_roles.py`; api-contract.md §14.8).
//!
//! Rules (project scope; system-scoped tokens fail them):
//! `load-balancer:admin` = is_admin or role:admin; `read` = (reader or member) and owner, or admin;
//! `read-global` = admin; `write` = member and owner, or admin; `read-quota` = read or admin;
//! `read-quota-global` / `write-quota` = admin; `service` = role:service.

use crate::context::RequestContext;
use crate::fault::ApiError;

/// The rule an action resolves to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// `load-balancer:read`.
    Read,
    /// `load-balancer:read-global`.
    ReadGlobal,
    /// `load-balancer:write`.
    Write,
    /// `load-balancer:read-quota`.
    ReadQuota,
    /// `load-balancer:read-quota-global`.
    ReadQuotaGlobal,
    /// `load-balancer:write-quota`.
    WriteQuota,
    /// `load-balancer:admin`.
    Admin,
    /// `load-balancer:read or rule:service` (member list).
    ReadOrService,
}

/// The default rule of an `os_load-balancer_api:<resource>:<action>` name.
pub fn default_rule(resource: &str, action: &str) -> Rule {
    match (resource, action) {
        ("quota", "get_all" | "get_one" | "get_defaults") => Rule::ReadQuota,
        ("quota", "get_all-global") => Rule::ReadQuotaGlobal,
        ("quota", _) => Rule::WriteQuota,
        ("member", "get_all") => Rule::ReadOrService,
        ("loadbalancer", "put_failover") => Rule::Admin,
        (
            "amphora"
            | "flavor-profile"
            | "availability-zone-profile"
            | "provider-flavor"
            | "provider-availability-zone",
            _,
        ) => Rule::Admin,
        ("flavor" | "availability-zone", "post" | "put" | "delete") => Rule::Admin,
        (_, "get_all-global") => Rule::ReadGlobal,
        (_, "post" | "put" | "delete" | "post:vip_sg_ids" | "put:vip_sg_ids") => Rule::Write,
        _ => Rule::Read,
    }
}

fn is_admin(ctx: &RequestContext) -> bool {
    ctx.is_admin || (!ctx.system_scope && ctx.has_role("admin"))
}

/// True when `ctx` passes `rule` for an object owned by `target_project`.
pub fn check(ctx: &RequestContext, rule: Rule, target_project: Option<&str>) -> bool {
    if is_admin(ctx) {
        return true;
    }
    if ctx.system_scope {
        return false;
    }
    let owner = matches!((ctx.project_id.as_deref(), target_project), (Some(a), Some(b)) if a == b);
    let reader = owner && (ctx.has_role("reader") || ctx.has_role("member"));
    let member = owner && ctx.has_role("member");
    match rule {
        Rule::Read | Rule::ReadQuota => reader,
        Rule::ReadOrService => reader || ctx.has_role("service"),
        Rule::Write => member,
        Rule::ReadGlobal | Rule::ReadQuotaGlobal | Rule::WriteQuota | Rule::Admin => false,
    }
}

/// Enforce `os_load-balancer_api:<resource>:<action>` against `target_project`;
/// 403 `Policy does not allow this request to be performed.` when denied.
pub fn authorize(
    ctx: &RequestContext,
    resource: &str,
    action: &str,
    target_project: Option<&str>,
) -> Result<(), ApiError> {
    if check(ctx, default_rule(resource, action), target_project) {
        Ok(())
    } else {
        Err(ApiError::PolicyForbidden)
    }
}

/// Which projects a list may show (api-contract.md §14.5): `None` = all projects
/// (optionally narrowed by `?project_id=`), `Some(p)` = only project `p`.
pub fn list_scope(
    ctx: &RequestContext,
    resource: &str,
    query_project: Option<&str>,
) -> Result<Option<String>, ApiError> {
    if check(ctx, default_rule(resource, "get_all-global"), None) {
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

    fn ctx(project: &str, roles: &[&str]) -> RequestContext {
        RequestContext {
            project_id: Some(project.into()),
            roles: roles.iter().map(|r| r.to_string()).collect(),
            ..Default::default()
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
