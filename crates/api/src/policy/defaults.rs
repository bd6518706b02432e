//! Octavia's registered rules (`octavia/policies/*.py`): the base rules with their
//! deprecated WALLABY forms and every `os_load-balancer_api:<resource>:<action>` rule.

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

pub(super) fn registered_defaults()
-> impl Iterator<Item = (String, &'static str, Option<&'static str>)> {
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
