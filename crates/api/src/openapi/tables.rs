//! The tables the OpenAPI document is made of: the operations (paths, methods, parameters,
//! replies), the resources (response attributes typed by the request schemas), the graph
//! create's `…Full` objects and the request schemas by name. `render.rs` turns them into JSON.

use crate::health_monitor::body::{HM_POST, HM_PUT, HM_SINGLE};
use crate::l7policy::body::L7POLICY_SINGLE;
use crate::l7rule::body::L7RULE_SINGLE;
use crate::listener::body::{LISTENER_POST, LISTENER_PUT, LISTENER_SINGLE};
use crate::load_balancer::body::{ADDITIONAL_VIP, LB_POST, LB_PUT};
use crate::member::body::{MEMBER_POST, MEMBER_PUT, MEMBER_SINGLE};
use crate::pool::body::{POOL_POST, POOL_PUT, POOL_SINGLE, SP_POST, SP_PUT};
use crate::quotas::body::QUOTA_PUT;
use crate::types::{Field, Kind, Schema, TAGS, f, int, m, s};
use crate::{amphora, flavors, l7policy, l7rule, profiles, quotas};

/// Where the document is served (the `.json` suffix is optional, as for every Keel path).
pub const OPENAPI_PATH: &str = "/v2/openapi.json";

/// `provisioning_status` values (provider `ProvisioningStatus`).
pub const PROVISIONING_STATUSES: &[&str] = provider::ProvisioningStatus::NAMES;
/// `operating_status` values (provider `OperatingStatus`).
pub const OPERATING_STATUSES: &[&str] = provider::OperatingStatus::NAMES;

/// Octavia's datetime rendering ([`crate::view::Dt`]): `YYYY-MM-DDTHH:MM:SS`, no timezone.
const DATETIME: Kind = Kind::Pattern {
    pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$",
    min: None,
    max: None,
};
const STR: Kind = Kind::Str {
    min: None,
    max: None,
};
const PORT: Kind = int(Some(1), Some(65535));
const COUNTER: Kind = int(Some(0), None);

/// `{"id": …}`: how responses list related objects (`listeners`, `pools`, `members`, …).
static ID_ONLY: Schema = Schema {
    fields: &[m("id", Kind::Uuid)],
    tenant_alias: false,
};
const IDS: Kind = Kind::ObjectList(&ID_ONLY);

/// Response attributes with the same type in every resource that has them; `mandatory` here
/// means "never `null`".
static COMMON: &[Field] = &[
    m("id", Kind::Uuid),
    m("name", s(255)),
    m("description", s(255)),
    m("provisioning_status", Kind::Enum(PROVISIONING_STATUSES)),
    m("operating_status", Kind::Enum(OPERATING_STATUSES)),
    m("admin_state_up", Kind::Bool),
    f("project_id", s(255)),
    f("tenant_id", s(255)),
    f("created_at", DATETIME),
    f("updated_at", DATETIME),
    m("tags", TAGS),
    m("listeners", IDS),
    m("pools", IDS),
    m("loadbalancers", IDS),
    m("members", IDS),
    m("l7policies", IDS),
    m("rules", IDS),
];

/// A response object type: which attributes it has and how each is typed.
#[derive(Debug)]
pub struct Resource {
    /// Component name (`LoadBalancer`, …).
    pub name: &'static str,
    /// The handler's attribute table (filters / sort keys), e.g. [`crate::load_balancer::view::LB_ATTRS`].
    pub attrs: fn() -> Vec<&'static str>,
    /// Filter-only helper keys of `attrs` that are stripped from bodies.
    pub hidden: &'static [&'static str],
    /// Attributes that are not always present (`healthmonitor_id` of a pool without monitor).
    pub optional: &'static [&'static str],
    /// Response-only attributes (`mandatory` = never `null`); looked up first.
    pub extra: &'static [Field],
    /// Request schemas whose field types type the remaining attributes (a field that is
    /// mandatory on create is never `null` in a response).
    pub types_from: &'static [&'static Schema],
}

impl Resource {
    /// The attributes a body carries (`attrs` minus `hidden`).
    pub fn body_attrs(&self) -> Vec<&'static str> {
        (self.attrs)()
            .into_iter()
            .filter(|a| !self.hidden.contains(a))
            .collect()
    }

    /// The type of one attribute: `extra`, then [`COMMON`], then `types_from`.
    pub(super) fn field(&self, name: &str) -> Option<Field> {
        self.extra
            .iter()
            .chain(COMMON.iter())
            .chain(self.types_from.iter().flat_map(|s| s.fields.iter()))
            .find(|fl| fl.name == name)
            .copied()
    }
}

/// `LoadBalancerResponse`.
pub static LOAD_BALANCER: Resource = Resource {
    name: "LoadBalancer",
    attrs: || crate::load_balancer::view::LB_ATTRS.to_vec(),
    hidden: &[],
    optional: &[],
    extra: &[m("vip_vnic_type", STR), m("provider", s(64))],
    types_from: &[&LB_POST],
};
/// `ListenerResponse`.
pub static LISTENER: Resource = Resource {
    name: "Listener",
    attrs: || crate::listener::view::LISTENER_ATTRS.to_vec(),
    hidden: &["loadbalancer_id"],
    optional: &[],
    extra: &[],
    types_from: &[&LISTENER_POST],
};
/// `PoolResponse`.
pub static POOL: Resource = Resource {
    name: "Pool",
    attrs: || crate::pool::view::POOL_ATTRS.to_vec(),
    hidden: &["loadbalancer_id"],
    optional: &["healthmonitor_id"],
    extra: &[m("healthmonitor_id", Kind::Uuid)],
    types_from: &[&POOL_POST],
};
/// `MemberResponse`.
pub static MEMBER: Resource = Resource {
    name: "Member",
    attrs: || crate::member::view::MEMBER_ATTRS.to_vec(),
    hidden: &[],
    optional: &[],
    extra: &[m("vnic_type", STR)],
    types_from: &[&MEMBER_POST],
};
/// `HealthMonitorResponse`.
pub static HEALTH_MONITOR: Resource = Resource {
    name: "HealthMonitor",
    attrs: || crate::health_monitor::view::HM_ATTRS.to_vec(),
    hidden: &["pool_id"],
    optional: &[],
    extra: &[],
    types_from: &[&HM_POST],
};
/// `L7PolicyResponse`.
pub static L7POLICY: Resource = Resource {
    name: "L7Policy",
    attrs: || l7policy::L7POLICY_ATTRS.to_vec(),
    hidden: &[],
    optional: &[],
    extra: &[],
    types_from: &[&l7policy::body::L7POLICY_POST],
};
/// `L7RuleResponse`.
pub static L7RULE: Resource = Resource {
    name: "L7Rule",
    attrs: || l7rule::L7RULE_ATTRS.to_vec(),
    hidden: &[],
    optional: &[],
    extra: &[],
    types_from: &[&l7rule::body::L7RULE_POST],
};
/// `QuotaResponse` (`null` limits only in the raw list).
pub static QUOTA: Resource = Resource {
    name: "Quota",
    attrs: || quotas::QUOTA_ATTRS.to_vec(),
    hidden: &[],
    optional: &[],
    extra: &[],
    types_from: &[&QUOTA_PUT],
};
/// `FlavorResponse`.
pub static FLAVOR: Resource = Resource {
    name: "Flavor",
    attrs: || flavors::FLAVOR_ATTRS.to_vec(),
    hidden: &[],
    optional: &[],
    extra: &[],
    types_from: &[&flavors::FLAVOR_POST],
};
/// `AvailabilityZoneResponse`.
pub static AVAILABILITY_ZONE: Resource = Resource {
    name: "AvailabilityZone",
    attrs: || flavors::AZ_ATTRS.to_vec(),
    hidden: &[],
    optional: &[],
    extra: &[],
    types_from: &[&flavors::AZ_POST],
};
/// `FlavorProfileResponse` (`flavor_data` is a JSON text).
pub static FLAVOR_PROFILE: Resource = Resource {
    name: "FlavorProfile",
    attrs: || profiles::FLAVOR_PROFILE_ATTRS.to_vec(),
    hidden: &[],
    optional: &[],
    extra: &[],
    types_from: &[&profiles::FP_POST],
};
/// `AvailabilityZoneProfileResponse` (`availability_zone_data` is a JSON text).
pub static AVAILABILITY_ZONE_PROFILE: Resource = Resource {
    name: "AvailabilityZoneProfile",
    attrs: || profiles::AZ_PROFILE_ATTRS.to_vec(),
    hidden: &[],
    optional: &[],
    extra: &[],
    types_from: &[&profiles::AZP_POST],
};
/// `ProviderResponse` / capability entries: `{name, description}`.
pub static PROVIDER: Resource = Resource {
    name: "Provider",
    attrs: || crate::provider_api::PROVIDER_ATTRS.to_vec(),
    hidden: &[],
    optional: &[],
    extra: &[],
    types_from: &[],
};
/// `AmphoraResponse` (the `amphora` rows the amphora provider's worker writes, `amphora::render`).
pub static AMPHORA: Resource = Resource {
    name: "Amphora",
    attrs: || amphora::AMPHORA_ATTRS.to_vec(),
    hidden: &[],
    optional: &[],
    extra: &[
        f("loadbalancer_id", Kind::Uuid),
        f("compute_id", s(36)),
        f("lb_network_ip", Kind::Ip),
        f("vrrp_ip", Kind::Ip),
        f("ha_ip", Kind::Ip),
        f("vrrp_port_id", Kind::Uuid),
        f("ha_port_id", Kind::Uuid),
        f("cert_expiration", DATETIME),
        f("cert_busy", Kind::Bool),
        f("role", s(36)),
        f("status", s(36)),
        f("vrrp_interface", s(16)),
        f("vrrp_id", int(None, None)),
        f("vrrp_priority", int(None, None)),
        f("cached_zone", s(255)),
        f("image_id", s(36)),
        f("compute_flavor", s(255)),
    ],
    types_from: &[],
};

/// Every response object type.
pub static RESOURCES: &[&Resource] = &[
    &LOAD_BALANCER,
    &LISTENER,
    &POOL,
    &MEMBER,
    &HEALTH_MONITOR,
    &L7POLICY,
    &L7RULE,
    &QUOTA,
    &FLAVOR,
    &AVAILABILITY_ZONE,
    &FLAVOR_PROFILE,
    &AVAILABILITY_ZONE_PROFILE,
    &PROVIDER,
    &AMPHORA,
];

/// What a nested attribute of a full response holds.
#[derive(Debug, Clone, Copy)]
pub enum Nest {
    /// A list of these objects (always present).
    Many(&'static str),
    /// One such object, or `null` when there is none (`healthmonitor` of a pool: WSME
    /// renders the unset attribute as `null`).
    Maybe(&'static str),
}

/// A `…FullResponse` (octavia/api/v2/types/*.py `_full_response`, what
/// [`crate::load_balancer::graph::render_full`] answers): a [`Resource`]'s object with some
/// attributes removed and the related objects given whole instead of as `[{"id": …}]`.
#[derive(Debug)]
pub struct Full {
    /// Component name (`LoadBalancerFull`, …).
    pub name: &'static str,
    /// The resource whose attribute table it starts from.
    pub of: &'static Resource,
    /// Attributes `render_full` removes (`loadbalancers`, `healthmonitor_id`, `pools`).
    pub drop: &'static [&'static str],
    /// Attributes replaced (or added) with whole objects, by component name.
    pub nested: &'static [(&'static str, Nest)],
    /// At least one of these lists is non-empty (a graph create has a listener or a pool; a
    /// create without both answers the plain object, so the `oneOf` of the two is exclusive).
    pub non_empty_one_of: &'static [&'static str],
}

/// `L7PolicyFullResponse`: `rules` whole.
pub static L7POLICY_FULL: Full = Full {
    name: "L7PolicyFull",
    of: &L7POLICY,
    drop: &[],
    nested: &[("rules", Nest::Many("L7Rule"))],
    non_empty_one_of: &[],
};
/// `ListenerFullResponse`: `l7policies` whole, no `loadbalancers`.
pub static LISTENER_FULL: Full = Full {
    name: "ListenerFull",
    of: &LISTENER,
    drop: &["loadbalancers"],
    nested: &[("l7policies", Nest::Many("L7PolicyFull"))],
    non_empty_one_of: &[],
};
/// `HealthMonitorFullResponse`: no `pools`.
pub static HEALTH_MONITOR_FULL: Full = Full {
    name: "HealthMonitorFull",
    of: &HEALTH_MONITOR,
    drop: &["pools"],
    nested: &[],
    non_empty_one_of: &[],
};
/// `PoolFullResponse`: `members` whole, `healthmonitor` whole (`null` without one); no
/// `loadbalancers` nor `healthmonitor_id`.
pub static POOL_FULL: Full = Full {
    name: "PoolFull",
    of: &POOL,
    drop: &["loadbalancers", "healthmonitor_id"],
    nested: &[
        ("members", Nest::Many("Member")),
        ("healthmonitor", Nest::Maybe("HealthMonitorFull")),
    ],
    non_empty_one_of: &[],
};
/// `LoadBalancerFullResponse`: the 201 of a graph create (`listeners` and `pools` whole).
pub static LOAD_BALANCER_FULL: Full = Full {
    name: "LoadBalancerFull",
    of: &LOAD_BALANCER,
    drop: &[],
    nested: &[
        ("listeners", Nest::Many("ListenerFull")),
        ("pools", Nest::Many("PoolFull")),
    ],
    non_empty_one_of: &["listeners", "pools"],
};

/// Every full response object type.
pub static FULLS: &[&Full] = &[
    &LOAD_BALANCER_FULL,
    &LISTENER_FULL,
    &POOL_FULL,
    &HEALTH_MONITOR_FULL,
    &L7POLICY_FULL,
];

// ---- shapes that are not resources (load_balancer::get_status / stats_of, versions) ----

static ST_MEMBER: Schema = Schema {
    fields: &[
        m("id", Kind::Uuid),
        m("name", s(255)),
        m("operating_status", Kind::Enum(OPERATING_STATUSES)),
        m("provisioning_status", Kind::Enum(PROVISIONING_STATUSES)),
        f("address", Kind::Ip),
        f("protocol_port", PORT),
    ],
    tenant_alias: false,
};
static ST_HM: Schema = Schema {
    fields: &[
        m("id", Kind::Uuid),
        m("name", s(255)),
        m("type", Kind::Enum(crate::health_monitor::body::TYPES)),
        m("provisioning_status", Kind::Enum(PROVISIONING_STATUSES)),
        m("operating_status", Kind::Enum(OPERATING_STATUSES)),
    ],
    tenant_alias: false,
};
static ST_POOL: Schema = Schema {
    fields: &[
        m("id", Kind::Uuid),
        m("name", s(255)),
        m("provisioning_status", Kind::Enum(PROVISIONING_STATUSES)),
        m("operating_status", Kind::Enum(OPERATING_STATUSES)),
        f("health_monitor", Kind::Object(&ST_HM)),
        m("members", Kind::ObjectList(&ST_MEMBER)),
    ],
    tenant_alias: false,
};
static ST_LISTENER: Schema = Schema {
    fields: &[
        m("id", Kind::Uuid),
        m("name", s(255)),
        m("operating_status", Kind::Enum(OPERATING_STATUSES)),
        m("provisioning_status", Kind::Enum(PROVISIONING_STATUSES)),
        m("pools", Kind::ObjectList(&ST_POOL)),
    ],
    tenant_alias: false,
};
static ST_LB: Schema = Schema {
    fields: &[
        m("id", Kind::Uuid),
        m("name", s(255)),
        m("operating_status", Kind::Enum(OPERATING_STATUSES)),
        m("provisioning_status", Kind::Enum(PROVISIONING_STATUSES)),
        m("listeners", Kind::ObjectList(&ST_LISTENER)),
    ],
    tenant_alias: false,
};
static ST_ROOT: Schema = Schema {
    fields: &[m("loadbalancer", Kind::Object(&ST_LB))],
    tenant_alias: false,
};
/// `GET …/loadbalancers/{id}/status`: `{"statuses": {"loadbalancer": {…, "listeners": […]}}}`.
static STATUSES: Schema = Schema {
    fields: &[m("statuses", Kind::Object(&ST_ROOT))],
    tenant_alias: false,
};
static STATS_BODY: Schema = Schema {
    fields: &[
        m("bytes_in", COUNTER),
        m("bytes_out", COUNTER),
        m("active_connections", COUNTER),
        m("total_connections", COUNTER),
        m("request_errors", COUNTER),
    ],
    tenant_alias: false,
};
/// `GET …/stats`: `{"stats": {bytes_in, bytes_out, active_connections, total_connections, request_errors}}`.
static STATS: Schema = Schema {
    fields: &[m("stats", Kind::Object(&STATS_BODY))],
    tenant_alias: false,
};
/// One `AmphoraStatisticsResponse` (`amphora::render_stat`): a `listener_statistics` row of
/// the amphora (`loadbalancer_id` `null` for an amphora without one).
static AMPHORA_STAT: Schema = Schema {
    fields: &[
        m("active_connections", COUNTER),
        m("bytes_in", COUNTER),
        m("bytes_out", COUNTER),
        m("id", Kind::Uuid),
        m("listener_id", Kind::Uuid),
        f("loadbalancer_id", Kind::Uuid),
        m("request_errors", COUNTER),
        m("total_connections", COUNTER),
    ],
    tenant_alias: false,
};
/// `GET /v2/octavia/amphorae/{id}/stats`: `{"amphora_stats": [...]}`, one per listener.
static AMPHORA_STATS: Schema = Schema {
    fields: &[m("amphora_stats", Kind::ObjectList(&AMPHORA_STAT))],
    tenant_alias: false,
};
static LINK: Schema = Schema {
    fields: &[m("href", STR), m("rel", STR)],
    tenant_alias: false,
};
static VERSION: Schema = Schema {
    fields: &[
        m("id", STR),
        m("status", Kind::Enum(&["SUPPORTED", "CURRENT"])),
        m("updated", STR),
        m("links", Kind::ObjectList(&LINK)),
    ],
    tenant_alias: false,
};
/// `GET /`: `{"versions": [{id, status, updated, links}]}` ([`crate::versions::VERSIONS`]).
static VERSIONS: Schema = Schema {
    fields: &[m("versions", Kind::ObjectList(&VERSION))],
    tenant_alias: false,
};
/// WSME's fault body ([`crate::fault::fault_body`]); `debuginfo` is always `null`.
static FAULT: Schema = Schema {
    fields: &[
        m("faultcode", Kind::Enum(&["Client", "Server"])),
        m("faultstring", STR),
        f("debuginfo", STR),
    ],
    tenant_alias: false,
};
/// pecan's error body (unknown path 404, 405, 406, 413; `code` is a number, or the status
/// line for 413).
static PECAN_ERROR: Schema = Schema {
    fields: &[m("code", STR), m("title", STR), m("description", STR)],
    tenant_alias: false,
};
static KEYSTONE_ERROR_BODY: Schema = Schema {
    fields: &[
        m("code", int(Some(401), Some(401))),
        m("title", STR),
        m("message", STR),
    ],
    tenant_alias: false,
};
/// keystonemiddleware's 401 body.
static KEYSTONE_ERROR: Schema = Schema {
    fields: &[m("error", Kind::Object(&KEYSTONE_ERROR_BODY))],
    tenant_alias: false,
};

/// Named request schemas (components) and response shapes; a request schema met while
/// rendering is a `$ref` to its name here.
pub static REQUEST_SCHEMAS: &[(&str, &Schema)] = &[
    ("LoadBalancerPOST", &LB_POST),
    ("LoadBalancerPUT", &LB_PUT),
    ("AdditionalVip", &ADDITIONAL_VIP),
    ("ListenerPOST", &LISTENER_POST),
    ("ListenerSingleCreate", &LISTENER_SINGLE),
    ("ListenerPUT", &LISTENER_PUT),
    ("PoolPOST", &POOL_POST),
    ("PoolSingleCreate", &POOL_SINGLE),
    ("PoolPUT", &POOL_PUT),
    ("SessionPersistencePOST", &SP_POST),
    ("SessionPersistencePUT", &SP_PUT),
    ("MemberPOST", &MEMBER_POST),
    ("MemberSingleCreate", &MEMBER_SINGLE),
    ("MemberPUT", &MEMBER_PUT),
    ("HealthMonitorPOST", &HM_POST),
    ("HealthMonitorSingleCreate", &HM_SINGLE),
    ("HealthMonitorPUT", &HM_PUT),
    ("L7PolicyPOST", &l7policy::body::L7POLICY_POST),
    ("L7PolicyPUT", &l7policy::body::L7POLICY_PUT),
    ("L7PolicySingleCreate", &L7POLICY_SINGLE),
    ("L7RulePOST", &l7rule::body::L7RULE_POST),
    ("L7RulePUT", &l7rule::body::L7RULE_PUT),
    ("L7RuleSingleCreate", &L7RULE_SINGLE),
    ("QuotaPUT", &QUOTA_PUT),
    ("FlavorPOST", &flavors::FLAVOR_POST),
    ("FlavorPUT", &flavors::FLAVOR_PUT),
    ("AvailabilityZonePOST", &flavors::AZ_POST),
    ("AvailabilityZonePUT", &flavors::AZ_PUT),
    ("FlavorProfilePOST", &profiles::FP_POST),
    ("FlavorProfilePUT", &profiles::FP_PUT),
    ("AvailabilityZoneProfilePOST", &profiles::AZP_POST),
    ("AvailabilityZoneProfilePUT", &profiles::AZP_PUT),
];
pub(super) static SHAPES: &[(&str, &Schema)] = &[
    ("LoadBalancerStatuses", &STATUSES),
    ("Stats", &STATS),
    ("AmphoraStats", &AMPHORA_STATS),
    ("Link", &LINK),
    ("Versions", &VERSIONS),
    ("Fault", &FAULT),
    ("PecanError", &PECAN_ERROR),
    ("KeystoneError", &KEYSTONE_ERROR),
];

// ---- operations ----

/// What an operation reads from the request body.
#[derive(Debug, Clone, Copy)]
pub enum Body {
    /// No request body (GETs, DELETEs, and writes such as failover that take none).
    None,
    /// `{"<wrapper>": <schema>}`, parsed by [`crate::types::parse_body`].
    Wrapped(&'static str, &'static Schema),
    /// `{"<key>": [<schema>…]}`, parsed by [`crate::types::parse_list_body`].
    List(&'static str, &'static Schema),
}

/// What a successful operation answers.
#[derive(Debug, Clone, Copy)]
pub enum Reply {
    /// No body (204, and the bodiless 202s).
    Empty,
    /// `{"<key>": <resource>}`.
    One(&'static str, &'static Resource),
    /// `{"<key>": <resource>}`, or `{"<key>": <full>}` when the request had children (the
    /// graph create: [`crate::load_balancer::graph::render_full`]); a `oneOf`.
    OneOrFull(&'static str, &'static Resource, &'static Full),
    /// `{"<key>": [<resource>…], "<links key>": [<link>…]}`, paginated.
    Page(&'static str, &'static str, &'static Resource),
    /// `{"<key>": [<resource>…]}`, not paginated.
    Bare(&'static str, &'static Resource),
    /// A named shape of `SHAPES`.
    Shape(&'static str),
    /// The JSON string `"v2"`.
    V2,
    /// oslo.middleware's healthcheck answer ([`crate::healthcheck`]): the reasons as text,
    /// HTML or JSON by `Accept`; 204 when empty or HEAD, 503 when a backend fails.
    Health,
    /// The OpenAPI document itself (`GET /v2/openapi.json`).
    Document,
}

/// The query parameters an operation reads.
#[derive(Debug, Clone, Copy)]
pub enum Params {
    /// None: any parameter is 400 `Unknown argument: "<name>"`.
    None,
    /// `fields=` (GET one; the other list parameters are validated but do nothing).
    Fields,
    /// Pagination, sorting, field selection, tag and attribute filters of a list.
    List(&'static Resource),
    /// Named parameters `(name, description)`.
    Only(&'static [(&'static str, &'static str)]),
}

/// One method of one path.
#[derive(Debug)]
pub struct Operation {
    /// `get`, `post`, `put` or `delete`.
    pub method: &'static str,
    /// The path as documented (`{name}` parameters, as the router's).
    pub path: &'static str,
    /// One-line summary.
    pub summary: &'static str,
    /// What the request carries ([`Body`]).
    pub body: Body,
    /// The success status.
    pub status: u16,
    /// The success body.
    pub reply: Reply,
    /// Which query parameters apply ([`Params`]: pagination, filters, `fields`, cascade, …).
    pub params: Params,
    /// Calls a provider driver (so 501 / driver errors, and 503 on quota'd creates).
    pub driver: bool,
}

#[allow(clippy::too_many_arguments)] // a table row constructor
const fn op(
    method: &'static str,
    path: &'static str,
    summary: &'static str,
    body: Body,
    status: u16,
    reply: Reply,
    params: Params,
    driver: bool,
) -> Operation {
    Operation {
        method,
        path,
        summary,
        body,
        status,
        reply,
        params,
        driver,
    }
}

const CASCADE: &[(&str, &str)] = &[(
    "cascade",
    "Delete the load balancer's listeners, pools, members, monitors and L7 objects too (`true`, `1`, `yes`, …).",
)];
const ADDITIVE: &[(&str, &str)] = &[(
    "additive_only",
    "Only add and update the listed members; members left out are kept (`true`, `1`, …).",
)];
const CAPABILITY_FILTERS: &[(&str, &str)] = &[
    ("fields", "Attributes to return (repeatable)."),
    ("name", "Only the capability of this name."),
    (
        "description",
        "Only capabilities with exactly this description.",
    ),
];

use Body as B;
use Params as P;
use Reply as R;

/// Every route and method [`crate::router`] serves, with what it reads and answers.
#[rustfmt::skip]
pub static OPERATIONS: &[Operation] = &[
    op("get", "/", "API versions (no authentication)", B::None, 200, R::Shape("Versions"), P::None, false),
    op("get", "/healthcheck", "Health check (no authentication; 404 unless `healthcheck_enabled`)", B::None, 200, R::Health, P::None, false),
    op("get", "/v2", "The v2 API root", B::None, 200, R::V2, P::None, false),
    op("get", "/v2/lbaas", "The v2 API root (lbaas)", B::None, 200, R::V2, P::None, false),
    op("get", "/v2/octavia", "The v2 API root (octavia)", B::None, 200, R::V2, P::None, false),
    op("get", OPENAPI_PATH, "This document", B::None, 200, R::Document, P::None, false),
    // load balancers
    op("get", "/v2/lbaas/loadbalancers", "List load balancers", B::None, 200, R::Page("loadbalancers", "loadbalancers_links", &LOAD_BALANCER), P::List(&LOAD_BALANCER), false),
    op("post", "/v2/lbaas/loadbalancers", "Create a load balancer, or (with `listeners` / `pools`) the whole tree in one call", B::Wrapped("loadbalancer", &LB_POST), 201, R::OneOrFull("loadbalancer", &LOAD_BALANCER, &LOAD_BALANCER_FULL), P::None, true),
    op("get", "/v2/lbaas/loadbalancers/{id}", "Show a load balancer", B::None, 200, R::One("loadbalancer", &LOAD_BALANCER), P::Fields, false),
    op("put", "/v2/lbaas/loadbalancers/{id}", "Update a load balancer", B::Wrapped("loadbalancer", &LB_PUT), 200, R::One("loadbalancer", &LOAD_BALANCER), P::None, true),
    op("delete", "/v2/lbaas/loadbalancers/{id}", "Delete a load balancer", B::None, 204, R::Empty, P::Only(CASCADE), true),
    op("get", "/v2/lbaas/loadbalancers/{id}/status", "A load balancer's status tree", B::None, 200, R::Shape("LoadBalancerStatuses"), P::None, false),
    op("get", "/v2/lbaas/loadbalancers/{id}/statuses", "A load balancer's status tree (alias)", B::None, 200, R::Shape("LoadBalancerStatuses"), P::None, false),
    op("get", "/v2/lbaas/loadbalancers/{id}/stats", "A load balancer's statistics (sum of its listeners')", B::None, 200, R::Shape("Stats"), P::None, false),
    op("put", "/v2/lbaas/loadbalancers/{id}/failover", "Fail over a load balancer", B::None, 202, R::Empty, P::None, true),
    // listeners
    op("get", "/v2/lbaas/listeners", "List listeners", B::None, 200, R::Page("listeners", "listeners_links", &LISTENER), P::List(&LISTENER), false),
    op("post", "/v2/lbaas/listeners", "Create a listener", B::Wrapped("listener", &LISTENER_POST), 201, R::One("listener", &LISTENER), P::None, true),
    op("get", "/v2/lbaas/listeners/{id}", "Show a listener", B::None, 200, R::One("listener", &LISTENER), P::Fields, false),
    op("put", "/v2/lbaas/listeners/{id}", "Update a listener", B::Wrapped("listener", &LISTENER_PUT), 200, R::One("listener", &LISTENER), P::None, true),
    op("delete", "/v2/lbaas/listeners/{id}", "Delete a listener", B::None, 204, R::Empty, P::None, true),
    op("get", "/v2/lbaas/listeners/{id}/stats", "A listener's statistics", B::None, 200, R::Shape("Stats"), P::None, false),
    // pools and members
    op("get", "/v2/lbaas/pools", "List pools", B::None, 200, R::Page("pools", "pools_links", &POOL), P::List(&POOL), false),
    op("post", "/v2/lbaas/pools", "Create a pool (optionally with its members and monitor)", B::Wrapped("pool", &POOL_POST), 201, R::One("pool", &POOL), P::None, true),
    op("get", "/v2/lbaas/pools/{id}", "Show a pool", B::None, 200, R::One("pool", &POOL), P::Fields, false),
    op("put", "/v2/lbaas/pools/{id}", "Update a pool", B::Wrapped("pool", &POOL_PUT), 200, R::One("pool", &POOL), P::None, true),
    op("delete", "/v2/lbaas/pools/{id}", "Delete a pool", B::None, 204, R::Empty, P::None, true),
    op("get", "/v2/lbaas/pools/{pool_id}/members", "List a pool's members", B::None, 200, R::Page("members", "members_links", &MEMBER), P::List(&MEMBER), false),
    op("post", "/v2/lbaas/pools/{pool_id}/members", "Create a member", B::Wrapped("member", &MEMBER_POST), 201, R::One("member", &MEMBER), P::None, true),
    op("put", "/v2/lbaas/pools/{pool_id}/members", "Batch update: make the pool's members the listed ones", B::List("members", &MEMBER_POST), 202, R::Empty, P::Only(ADDITIVE), true),
    op("get", "/v2/lbaas/pools/{pool_id}/members/{id}", "Show a member", B::None, 200, R::One("member", &MEMBER), P::Fields, false),
    op("put", "/v2/lbaas/pools/{pool_id}/members/{id}", "Update a member", B::Wrapped("member", &MEMBER_PUT), 200, R::One("member", &MEMBER), P::None, true),
    op("delete", "/v2/lbaas/pools/{pool_id}/members/{id}", "Delete a member", B::None, 204, R::Empty, P::None, true),
    // health monitors
    op("get", "/v2/lbaas/healthmonitors", "List health monitors", B::None, 200, R::Page("healthmonitors", "healthmonitors_links", &HEALTH_MONITOR), P::List(&HEALTH_MONITOR), false),
    op("post", "/v2/lbaas/healthmonitors", "Create a health monitor", B::Wrapped("healthmonitor", &HM_POST), 201, R::One("healthmonitor", &HEALTH_MONITOR), P::None, true),
    op("get", "/v2/lbaas/healthmonitors/{id}", "Show a health monitor", B::None, 200, R::One("healthmonitor", &HEALTH_MONITOR), P::Fields, false),
    op("put", "/v2/lbaas/healthmonitors/{id}", "Update a health monitor", B::Wrapped("healthmonitor", &HM_PUT), 200, R::One("healthmonitor", &HEALTH_MONITOR), P::None, true),
    op("delete", "/v2/lbaas/healthmonitors/{id}", "Delete a health monitor", B::None, 204, R::Empty, P::None, true),
    // L7
    op("get", "/v2/lbaas/l7policies", "List L7 policies", B::None, 200, R::Page("l7policies", "l7policies_links", &L7POLICY), P::List(&L7POLICY), false),
    op("post", "/v2/lbaas/l7policies", "Create an L7 policy", B::Wrapped("l7policy", &l7policy::body::L7POLICY_POST), 201, R::One("l7policy", &L7POLICY), P::None, true),
    op("get", "/v2/lbaas/l7policies/{id}", "Show an L7 policy", B::None, 200, R::One("l7policy", &L7POLICY), P::Fields, false),
    op("put", "/v2/lbaas/l7policies/{id}", "Update an L7 policy", B::Wrapped("l7policy", &l7policy::body::L7POLICY_PUT), 200, R::One("l7policy", &L7POLICY), P::None, true),
    op("delete", "/v2/lbaas/l7policies/{id}", "Delete an L7 policy", B::None, 204, R::Empty, P::None, true),
    op("get", "/v2/lbaas/l7policies/{l7policy_id}/rules", "List an L7 policy's rules", B::None, 200, R::Page("rules", "rules_links", &L7RULE), P::List(&L7RULE), false),
    op("post", "/v2/lbaas/l7policies/{l7policy_id}/rules", "Create an L7 rule", B::Wrapped("rule", &l7rule::body::L7RULE_POST), 201, R::One("rule", &L7RULE), P::None, true),
    op("get", "/v2/lbaas/l7policies/{l7policy_id}/rules/{id}", "Show an L7 rule", B::None, 200, R::One("rule", &L7RULE), P::Fields, false),
    op("put", "/v2/lbaas/l7policies/{l7policy_id}/rules/{id}", "Update an L7 rule", B::Wrapped("rule", &l7rule::body::L7RULE_PUT), 200, R::One("rule", &L7RULE), P::None, true),
    op("delete", "/v2/lbaas/l7policies/{l7policy_id}/rules/{id}", "Delete an L7 rule", B::None, 204, R::Empty, P::None, true),
    // quotas
    op("get", "/v2/lbaas/quotas", "List stored quotas", B::None, 200, R::Page("quotas", "quotas_links", &QUOTA), P::List(&QUOTA), false),
    op("get", "/v2/lbaas/quotas/{project_id}", "A project's effective quotas (`defaults`: the configured defaults)", B::None, 200, R::One("quota", &QUOTA), P::None, false),
    op("put", "/v2/lbaas/quotas/{project_id}", "Set a project's quotas (`null` resets one limit)", B::Wrapped("quota", &QUOTA_PUT), 202, R::One("quota", &QUOTA), P::None, false),
    op("delete", "/v2/lbaas/quotas/{project_id}", "Reset a project's quotas to the defaults", B::None, 202, R::Empty, P::None, false),
    op("get", "/v2/lbaas/quotas/{project_id}/default", "The configured default quotas", B::None, 200, R::One("quota", &QUOTA), P::None, false),
    // providers
    op("get", "/v2/lbaas/providers", "List the enabled provider drivers", B::None, 200, R::Bare("providers", &PROVIDER), P::Fields, false),
    op("get", "/v2/lbaas/providers/{provider}/flavor_capabilities", "A provider's flavor metadata keys", B::None, 200, R::Bare("flavor_capabilities", &PROVIDER), P::Only(CAPABILITY_FILTERS), true),
    op("get", "/v2/lbaas/providers/{provider}/availability_zone_capabilities", "A provider's availability zone metadata keys", B::None, 200, R::Bare("availability_zone_capabilities", &PROVIDER), P::Only(CAPABILITY_FILTERS), true),
    // flavors, availability zones and their profiles
    op("get", "/v2/lbaas/flavors", "List flavors", B::None, 200, R::Page("flavors", "flavors_links", &FLAVOR), P::List(&FLAVOR), false),
    op("post", "/v2/lbaas/flavors", "Create a flavor", B::Wrapped("flavor", &flavors::FLAVOR_POST), 201, R::One("flavor", &FLAVOR), P::None, false),
    op("get", "/v2/lbaas/flavors/{id}", "Show a flavor", B::None, 200, R::One("flavor", &FLAVOR), P::Fields, false),
    op("put", "/v2/lbaas/flavors/{id}", "Update a flavor", B::Wrapped("flavor", &flavors::FLAVOR_PUT), 200, R::One("flavor", &FLAVOR), P::None, false),
    op("delete", "/v2/lbaas/flavors/{id}", "Delete a flavor", B::None, 204, R::Empty, P::None, false),
    op("get", "/v2/lbaas/flavorprofiles", "List flavor profiles", B::None, 200, R::Page("flavorprofiles", "flavorprofile_links", &FLAVOR_PROFILE), P::List(&FLAVOR_PROFILE), false),
    op("post", "/v2/lbaas/flavorprofiles", "Create a flavor profile (validated by its provider)", B::Wrapped("flavorprofile", &profiles::FP_POST), 201, R::One("flavorprofile", &FLAVOR_PROFILE), P::None, true),
    op("get", "/v2/lbaas/flavorprofiles/{id}", "Show a flavor profile", B::None, 200, R::One("flavorprofile", &FLAVOR_PROFILE), P::Fields, false),
    op("put", "/v2/lbaas/flavorprofiles/{id}", "Update a flavor profile", B::Wrapped("flavorprofile", &profiles::FP_PUT), 200, R::One("flavorprofile", &FLAVOR_PROFILE), P::None, true),
    op("delete", "/v2/lbaas/flavorprofiles/{id}", "Delete a flavor profile", B::None, 204, R::Empty, P::None, false),
    op("get", "/v2/lbaas/availabilityzones", "List availability zones", B::None, 200, R::Page("availability_zones", "availability_zones_links", &AVAILABILITY_ZONE), P::List(&AVAILABILITY_ZONE), false),
    op("post", "/v2/lbaas/availabilityzones", "Create an availability zone", B::Wrapped("availability_zone", &flavors::AZ_POST), 201, R::One("availability_zone", &AVAILABILITY_ZONE), P::None, false),
    op("get", "/v2/lbaas/availabilityzones/{name}", "Show an availability zone", B::None, 200, R::One("availability_zone", &AVAILABILITY_ZONE), P::Fields, false),
    op("put", "/v2/lbaas/availabilityzones/{name}", "Update an availability zone", B::Wrapped("availability_zone", &flavors::AZ_PUT), 200, R::One("availability_zone", &AVAILABILITY_ZONE), P::None, false),
    op("delete", "/v2/lbaas/availabilityzones/{name}", "Delete an availability zone", B::None, 204, R::Empty, P::None, false),
    op("get", "/v2/lbaas/availabilityzoneprofiles", "List availability zone profiles", B::None, 200, R::Page("availability_zone_profiles", "availability_zone_profile_links", &AVAILABILITY_ZONE_PROFILE), P::List(&AVAILABILITY_ZONE_PROFILE), false),
    op("post", "/v2/lbaas/availabilityzoneprofiles", "Create an availability zone profile (validated by its provider)", B::Wrapped("availability_zone_profile", &profiles::AZP_POST), 201, R::One("availability_zone_profile", &AVAILABILITY_ZONE_PROFILE), P::None, true),
    op("get", "/v2/lbaas/availabilityzoneprofiles/{id}", "Show an availability zone profile", B::None, 200, R::One("availability_zone_profile", &AVAILABILITY_ZONE_PROFILE), P::Fields, false),
    op("put", "/v2/lbaas/availabilityzoneprofiles/{id}", "Update an availability zone profile", B::Wrapped("availability_zone_profile", &profiles::AZP_PUT), 200, R::One("availability_zone_profile", &AVAILABILITY_ZONE_PROFILE), P::None, true),
    op("delete", "/v2/lbaas/availabilityzoneprofiles/{id}", "Delete an availability zone profile", B::None, 204, R::Empty, P::None, false),
    // amphorae (the amphora provider's; admin only)
    op("get", "/v2/octavia/amphorae", "List amphorae (not DELETED)", B::None, 200, R::Page("amphorae", "amphorae_links", &AMPHORA), P::List(&AMPHORA), false),
    op("get", "/v2/octavia/amphorae/{id}", "Show an amphora", B::None, 200, R::One("amphora", &AMPHORA), P::Fields, false),
    op("delete", "/v2/octavia/amphorae/{id}", "Delete an amphora", B::None, 204, R::Empty, P::None, false),
    op("get", "/v2/octavia/amphorae/{id}/stats", "An amphora's statistics, one entry per listener", B::None, 200, R::Shape("AmphoraStats"), P::None, false),
    op("put", "/v2/octavia/amphorae/{id}/failover", "Fail over an amphora", B::None, 202, R::Empty, P::None, false),
    op("put", "/v2/octavia/amphorae/{id}/config", "Push an amphora's agent configuration", B::None, 202, R::Empty, P::None, false),
];

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::context::KEYSTONE_UNAVAILABLE;
    use crate::openapi::document;
    use crate::openapi::render::full_schema;

    #[test]
    fn every_response_attribute_is_typed() {
        for r in RESOURCES {
            for a in r.body_attrs() {
                assert!(r.field(a).is_some(), "{}.{a} has no type", r.name);
            }
            for h in r.hidden.iter().chain(r.optional) {
                assert!((r.attrs)().contains(h), "{}.{h} not an attribute", r.name);
            }
        }
    }

    #[test]
    fn full_objects_are_their_resources_reshaped() {
        for full in FULLS {
            let attrs = full.of.body_attrs();
            for d in full.drop {
                assert!(attrs.contains(d), "{}: {d} is not an attribute", full.name);
            }
            let v = full_schema(full);
            let props = v["properties"].as_object().unwrap();
            for a in &attrs {
                assert_eq!(
                    props.contains_key(*a),
                    !full.drop.contains(a),
                    "{}.{a}",
                    full.name
                );
            }
        }
        let d = document();
        let s = &d["components"]["schemas"];
        assert_eq!(
            s["ListenerFull"]["properties"]["l7policies"]["items"],
            json!({"$ref": "#/components/schemas/L7PolicyFull"})
        );
        assert!(
            s["PoolFull"]["properties"]
                .get("healthmonitor_id")
                .is_none()
        );
        assert!(
            s["PoolFull"]["required"]
                .as_array()
                .unwrap()
                .contains(&json!("healthmonitor"))
        );
        assert!(s["HealthMonitorFull"]["properties"].get("pools").is_none());
        let created = &d["paths"]["/v2/lbaas/loadbalancers"]["post"]["responses"]["201"];
        assert_eq!(
            created["content"]["application/json"]["schema"]["properties"]["loadbalancer"],
            json!({"oneOf": [{"$ref": "#/components/schemas/LoadBalancer"},
                {"$ref": "#/components/schemas/LoadBalancerFull"}]})
        );
    }

    #[test]
    fn every_authenticated_operation_documents_the_keystone_outage() {
        let d = document();
        for o in OPERATIONS {
            let r = &d["paths"][o.path][o.method]["responses"];
            let open = o.path == "/" || o.path == "/healthcheck";
            // the healthcheck's own 503 (a failed backend) is not the shared outage response
            let outage = r["503"].get("$ref").is_some();
            assert_eq!(!outage, open, "{} {}", o.method, o.path);
            assert_eq!(r.get("401").is_none(), open, "{} {}", o.method, o.path);
        }
        assert_eq!(
            d["components"]["schemas"]["KeystoneUnavailable"]["allOf"][1]["properties"]["faultstring"]
                ["const"],
            KEYSTONE_UNAVAILABLE
        );
    }

    #[test]
    fn status_enums_are_the_providers() {
        use provider::{OperatingStatus as O, ProvisioningStatus as P};
        let p: Vec<&str> = [
            P::Active,
            P::PendingCreate,
            P::PendingUpdate,
            P::PendingDelete,
            P::Deleted,
            P::Error,
        ]
        .iter()
        .map(|x| x.as_str())
        .collect();
        assert_eq!(p, PROVISIONING_STATUSES);
        let o: Vec<&str> = [
            O::Online,
            O::Offline,
            O::Degraded,
            O::Error,
            O::NoMonitor,
            O::Draining,
        ]
        .iter()
        .map(|x| x.as_str())
        .collect();
        assert_eq!(o, OPERATING_STATUSES);
    }

    #[test]
    fn request_schemas_render_the_parser_constraints() {
        let d = document();
        let l = &d["components"]["schemas"]["ListenerPOST"];
        assert_eq!(
            l["required"],
            json!(["protocol", "protocol_port", "loadbalancer_id"])
        );
        assert_eq!(
            l["properties"]["protocol_port"],
            json!({"type": "integer", "minimum": 1, "maximum": 65535})
        );
        assert_eq!(l["properties"]["name"]["type"], json!(["string", "null"]));
        assert_eq!(l["properties"]["name"]["maxLength"], json!(255));
        assert_eq!(
            l["properties"]["default_pool"],
            json!({"anyOf": [{"$ref": "#/components/schemas/PoolSingleCreate"}, {"type": "null"}]})
        );
        assert_eq!(l["properties"]["tenant_id"]["deprecated"], json!(true));
        assert_eq!(l["additionalProperties"], json!(false));
        assert_eq!(
            l["properties"]["allowed_cidrs"]["items"]["format"],
            json!("cidr")
        );
        let body = &d["paths"]["/v2/lbaas/pools/{pool_id}/members"]["put"]["requestBody"];
        assert_eq!(
            body["content"]["application/json"]["schema"]["properties"]["members"]["items"],
            json!({"$ref": "#/components/schemas/MemberPOST"})
        );
    }

    #[test]
    fn success_codes() {
        let d = document();
        let code = |p: &str, m: &str| {
            d["paths"][p][m]["responses"]
                .as_object()
                .unwrap()
                .keys()
                .find(|k| k.starts_with('2'))
                .cloned()
                .unwrap()
        };
        assert_eq!(code("/v2/lbaas/loadbalancers", "post"), "201");
        assert_eq!(code("/v2/lbaas/loadbalancers/{id}", "put"), "200");
        assert_eq!(code("/v2/lbaas/loadbalancers/{id}", "delete"), "204");
        assert_eq!(code("/v2/lbaas/loadbalancers/{id}/failover", "put"), "202");
        assert_eq!(code("/v2/lbaas/quotas/{project_id}", "delete"), "202");
        assert_eq!(code("/v2/lbaas/pools/{pool_id}/members", "put"), "202");
    }
}
