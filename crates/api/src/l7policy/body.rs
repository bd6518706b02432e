//! L7 policy request types, as `octavia/api/v2/types/l7policy.py` (the POST and PUT bodies
//! are in the handler module).

use crate::l7rule::body::L7RULE_SINGLE;
use crate::l7rule::body::L7RulePost;
use crate::pool::body::POOL_SINGLE;
use crate::types::{
    INT_COLUMN_MAX, INT_COLUMN_MIN, Kind, Patch, Schema, Strings, TAGS, f, int, mn, s, wsme_body,
};

/// `SUPPORTED_L7POLICY_ACTIONS`.
pub const ACTIONS: &[&str] = &[
    "REJECT",
    "REDIRECT_TO_URL",
    "REDIRECT_TO_POOL",
    "REDIRECT_PREFIX",
];
/// `L7PolicySingleCreate`.
pub static L7POLICY_SINGLE: Schema = Schema {
    fields: &[
        f("name", s(255)),
        f("description", s(255)),
        f("admin_state_up", Kind::Bool),
        // null: `sanitize_l7policy_api_args`' own 400
        mn("action", Kind::Enum(ACTIONS)),
        f("redirect_pool", Kind::Object(&POOL_SINGLE)),
        f("redirect_url", Kind::Url),
        f("redirect_prefix", Kind::Url),
        f("position", int(Some(1), Some(2147483647))),
        f("redirect_http_code", int(Some(301), Some(308))),
        f("rules", Kind::ObjectList(&L7RULE_SINGLE)),
        f("tags", TAGS),
    ],
    tenant_alias: false,
};

/// `MAX_POLICY_POSITION`.
pub const MAX_POSITION: i64 = 2_147_483_647;
/// `SUPPORTED_L7POLICY_REDIRECT_HTTP_CODES`.
pub const REDIRECT_CODES: &[i64] = &[301, 302, 303, 307, 308];

/// `URLType`: the URL check, then the length of the varchar(255) column (none in WSME).
const URL: Kind = Kind::Url;

wsme_body! {
    /// `L7PolicyPOST` (octavia/api/v2/types/l7policy.py).
    pub static L7POLICY_POST, tenant_alias = true, wsme = ("l7policy_", "l7policy"),
        creates = octavia_db::L7PolicyRow;
    /// A validated `L7PolicyPOST` body (and a graph's `L7PolicySingleCreate`, its subset, with
    /// `redirect_pool` taken out by the graph's plan) as [`L7POLICY_POST`] declares it, with
    /// the `l7policy` columns a create writes of it as sent (the action and redirect ones are
    /// written sanitised); `admin_state_up: null` is false (Octavia's `to_dict`).
    pub struct L7PolicyPost {
        name: Option<String> = f(s(255)) => name,
        description: Option<String> = f(s(255)) => description,
        admin_state_up: Patch<bool> = f(Kind::Bool) => enabled or true null false,
        /// `project_id` (or `tenant_id`); the policy takes its load balancer's project.
        project_id: Option<String> = f(s(36)),
        // a null action or listener gets the reference's own 400 / 404 (see `post`)
        /// `action` (mandatory; `null` reaches [`sanitize`](super::sanitize)).
        action: Patch<String> = mn(Kind::Enum(ACTIONS)),
        redirect_pool_id: Patch<String> = f(Kind::Uuid),
        redirect_url: Patch<String> = f(URL),
        redirect_prefix: Patch<String> = f(URL),
        /// `position` (1-based; left out or `null`: the end).
        position: Option<i64> = f(int(Some(1), Some(MAX_POSITION))),
        /// `listener_id` (mandatory; `null` is looked up as `None`).
        listener_id: Option<String> = mn(Kind::Uuid),
        /// `rules` (`L7RuleSingleCreate` items; `null` items skipped).
        rules: Option<Vec<Option<L7RulePost>>> = f(Kind::ObjectList(&L7RULE_SINGLE)),
        tags: Option<Strings> = f(TAGS),
        /// `redirect_http_code` (one of [`REDIRECT_CODES`]).
        redirect_http_code: Patch<i64> = f(int(Some(INT_COLUMN_MIN), Some(INT_COLUMN_MAX))),
    }
}

wsme_body! {
    /// `L7PolicyPUT`.
    pub static L7POLICY_PUT, tenant_alias = false, wsme = ("l7policy_", "l7policy"),
        updates = octavia_db::L7PolicyRow;
    /// A validated `L7PolicyPUT` body as [`L7POLICY_PUT`] declares it: each attribute left out
    /// (unchanged), `null` or a value, with the `l7policy` columns a PUT changes of it as sent
    /// (the action and redirect ones are written sanitised).
    pub struct L7PolicyPut {
        name: Patch<String> = f(s(255)) => name,
        description: Patch<String> = f(s(255)) => description,
        admin_state_up: Patch<bool> = f(Kind::Bool) => enabled or false,
        /// `action` (`null` refused by [`sanitize`](super::sanitize)).
        action: Patch<String> = f(Kind::Enum(ACTIONS)),
        redirect_pool_id: Patch<String> = f(Kind::Uuid),
        redirect_url: Patch<String> = f(URL),
        redirect_prefix: Patch<String> = f(URL),
        /// `position` (`null`: unchanged).
        position: Patch<i64> = f(int(Some(1), Some(MAX_POSITION))),
        /// `tags` (`null`: none).
        tags: Patch<Strings> = f(TAGS),
        redirect_http_code: Patch<i64> = f(int(Some(INT_COLUMN_MIN), Some(INT_COLUMN_MAX))),
    }
}
