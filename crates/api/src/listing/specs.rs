//! The [`Spec`] of each collection: its API attributes as SQL over the listed table `t`, as
//! the in-memory path sees them rendered (`render::render_*`), and the types that describe them.

use Attr::{Csv, Has, Never, Str, Val};
use Kind::{Bool, Hundredths, Int, Text, Time};

/// How an attribute's value is typed (for filter values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A string.
    Text,
    /// An integer (a filter value is read as a number: `80.0` matches 80).
    Int,
    /// A boolean (a filter value through oslo's `bool_from_string`).
    Bool,
    /// A datetime, rendered `%Y-%m-%dT%H:%M:%S` (a filter value must be exactly that).
    Time,
    /// A float rendered to two decimals, listed as the integer `ROUND(value * 100)` (a filter
    /// value is read as a number: `1.10` matches 1.1).
    Hundredths,
}

/// How one API attribute is listed in SQL. Expressions use the listed table as `t`.
#[derive(Debug, Clone, Copy)]
pub enum Attr {
    /// A scalar: filters by equality, sorts.
    Val(&'static str, Kind),
    /// A nullable string column rendered `""` when NULL: filters by equality (`= ?`, so an
    /// index on the column serves it; `""` matches NULL and empty), sorts as `COALESCE(c, '')`.
    Str(&'static str),
    /// A list (of ids or strings): a filter is this condition with the value as its one `?`.
    /// Not a sort key ([`crate::pagination::sort_keys`]).
    Has(&'static str),
    /// A `ScalarListType` column (comma-joined strings, rendered as a list): a filter matches
    /// one element. Not a sort key.
    Csv(&'static str),
    /// An object or a list of objects (`insert_headers`, `session_persistence`,
    /// `additional_vips`): no filter value equals it, as in the in-memory comparison. Not a
    /// sort key.
    Never,
    /// Not in the spec: the in-memory path answers (no collection has one; a unit test keeps
    /// it so).
    Memory,
}

/// The SQL shape of one collection.
#[derive(Debug)]
pub struct Spec {
    /// `(API attribute, how)` in Octavia's declaration order, `tenant_id` beside
    /// `project_id` (the response's attribute table, as [`names`] reads it); an attribute
    /// missing here is [`Attr::Memory`].
    pub attrs: &'static [(&'static str, Attr)],
    /// `(alias prefix, join)`: the join is added when a used expression contains the prefix.
    pub joins: &'static [(&'static str, &'static str)],
    /// Whether the resource has tags (else tag filters see an empty set).
    pub tags: bool,
}

/// The attribute names of a [`Spec::attrs`], the first `N`: a response's attribute table
/// (`render::LB_ATTRS`, …).
pub const fn names<const N: usize>(attrs: &[(&'static str, Attr)]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < N && i < attrs.len() {
        out[i] = attrs[i].0;
        i += 1;
    }
    out
}

impl Spec {
    /// How `name` is listed (`tenant_id` is `project_id`); [`Attr::Memory`] when absent.
    pub(super) fn attr(&self, name: &str) -> Attr {
        let name = if name == "tenant_id" {
            "project_id"
        } else {
            name
        };
        self.attrs
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(Attr::Memory, |(_, a)| *a)
    }
}

/// `GET /v2/lbaas/loadbalancers` (`vip_*` through the `vip` table).
pub static LB: Spec = Spec {
    attrs: &[
        ("id", Val("`t`.`id`", Text)),
        ("name", Str("`t`.`name`")),
        ("description", Str("`t`.`description`")),
        (
            "provisioning_status",
            Val("`t`.`provisioning_status`", Text),
        ),
        ("operating_status", Val("`t`.`operating_status`", Text)),
        ("admin_state_up", Val("`t`.`enabled`", Bool)),
        ("project_id", Val("`t`.`project_id`", Text)),
        ("tenant_id", Val("`t`.`project_id`", Text)),
        ("created_at", Val("`t`.`created_at`", Time)),
        ("updated_at", Val("`t`.`updated_at`", Time)),
        ("vip_address", Val("`v`.`ip_address`", Text)),
        ("vip_port_id", Val("`v`.`port_id`", Text)),
        ("vip_subnet_id", Val("`v`.`subnet_id`", Text)),
        ("vip_network_id", Val("`v`.`network_id`", Text)),
        ("vip_qos_policy_id", Val("`v`.`qos_policy_id`", Text)),
        (
            "vip_sg_ids",
            Has(
                "EXISTS (SELECT 1 FROM `vip_security_group` `x` WHERE `x`.`load_balancer_id` = `t`.`id` AND `x`.`sg_id` = ?)",
            ),
        ),
        (
            "vip_vnic_type",
            Val(
                "CASE WHEN COALESCE(`v`.`vnic_type`, '') = '' THEN 'normal' ELSE `v`.`vnic_type` END",
                Text,
            ),
        ),
        ("additional_vips", Never),
        (
            "listeners",
            Has(
                "EXISTS (SELECT 1 FROM `listener` `x` WHERE `x`.`load_balancer_id` = `t`.`id` AND `x`.`provisioning_status` <> 'DELETED' AND `x`.`id` = ?)",
            ),
        ),
        (
            "pools",
            Has(
                "EXISTS (SELECT 1 FROM `pool` `x` WHERE `x`.`load_balancer_id` = `t`.`id` AND `x`.`provisioning_status` <> 'DELETED' AND `x`.`id` = ?)",
            ),
        ),
        (
            "provider",
            Val(
                "CASE WHEN COALESCE(`t`.`provider`, '') = '' THEN 'octavia' ELSE `t`.`provider` END",
                Text,
            ),
        ),
        ("flavor_id", Val("`t`.`flavor_id`", Text)),
        ("availability_zone", Val("`t`.`availability_zone`", Text)),
        (
            "tags",
            Has(
                "EXISTS (SELECT 1 FROM `tags` `g` WHERE `g`.`resource_id` = `t`.`id` AND `g`.`tag` = ?)",
            ),
        ),
    ],
    joins: &[(
        "`v`.",
        "LEFT JOIN `vip` `v` ON `v`.`load_balancer_id` = `t`.`id`",
    )],
    tags: true,
};

/// `GET /v2/lbaas/listeners`.
pub static LISTENER: Spec = Spec {
    attrs: &[
        ("id", Val("`t`.`id`", Text)),
        ("name", Str("`t`.`name`")),
        ("description", Str("`t`.`description`")),
        (
            "provisioning_status",
            Val("`t`.`provisioning_status`", Text),
        ),
        ("operating_status", Val("`t`.`operating_status`", Text)),
        ("admin_state_up", Val("`t`.`enabled`", Bool)),
        ("protocol", Val("`t`.`protocol`", Text)),
        ("protocol_port", Val("`t`.`protocol_port`", Int)),
        ("connection_limit", Val("`t`.`connection_limit`", Int)),
        (
            "default_tls_container_ref",
            Val("`t`.`tls_certificate_id`", Text),
        ),
        (
            "sni_container_refs",
            Has(
                "EXISTS (SELECT 1 FROM `sni` `x` WHERE `x`.`listener_id` = `t`.`id` AND `x`.`tls_container_id` = ?)",
            ),
        ),
        ("project_id", Val("`t`.`project_id`", Text)),
        ("tenant_id", Val("`t`.`project_id`", Text)),
        ("default_pool_id", Val("`t`.`default_pool_id`", Text)),
        (
            "l7policies",
            Has(
                "EXISTS (SELECT 1 FROM `l7policy` `x` WHERE `x`.`listener_id` = `t`.`id` AND `x`.`id` = ?)",
            ),
        ),
        ("insert_headers", Never),
        ("created_at", Val("`t`.`created_at`", Time)),
        ("updated_at", Val("`t`.`updated_at`", Time)),
        ("loadbalancers", Has("`t`.`load_balancer_id` = ?")),
        ("timeout_client_data", Val("`t`.`timeout_client_data`", Int)),
        (
            "timeout_member_connect",
            Val("`t`.`timeout_member_connect`", Int),
        ),
        ("timeout_member_data", Val("`t`.`timeout_member_data`", Int)),
        ("timeout_tcp_inspect", Val("`t`.`timeout_tcp_inspect`", Int)),
        (
            "tags",
            Has(
                "EXISTS (SELECT 1 FROM `tags` `g` WHERE `g`.`resource_id` = `t`.`id` AND `g`.`tag` = ?)",
            ),
        ),
        (
            "client_ca_tls_container_ref",
            Val("`t`.`client_ca_tls_certificate_id`", Text),
        ),
        (
            "client_authentication",
            Val("`t`.`client_authentication`", Text),
        ),
        (
            "client_crl_container_ref",
            Val("`t`.`client_crl_container_id`", Text),
        ),
        (
            "allowed_cidrs",
            Has(
                "EXISTS (SELECT 1 FROM `listener_cidr` `x` WHERE `x`.`listener_id` = `t`.`id` AND `x`.`cidr` = ?)",
            ),
        ),
        ("tls_ciphers", Val("`t`.`tls_ciphers`", Text)),
        ("tls_versions", Csv("`t`.`tls_versions`")),
        ("alpn_protocols", Csv("`t`.`alpn_protocols`")),
        ("hsts_max_age", Val("`t`.`hsts_max_age`", Int)),
        (
            "hsts_include_subdomains",
            Val("`t`.`hsts_include_subdomains`", Bool),
        ),
        ("hsts_preload", Val("`t`.`hsts_preload`", Bool)),
        ("loadbalancer_id", Val("`t`.`load_balancer_id`", Text)),
    ],
    joins: &[],
    tags: true,
};

/// `GET /v2/lbaas/pools`.
pub static POOL: Spec = Spec {
    attrs: &[
        ("id", Val("`t`.`id`", Text)),
        ("name", Str("`t`.`name`")),
        ("description", Str("`t`.`description`")),
        (
            "provisioning_status",
            Val("`t`.`provisioning_status`", Text),
        ),
        ("operating_status", Val("`t`.`operating_status`", Text)),
        ("admin_state_up", Val("`t`.`enabled`", Bool)),
        ("protocol", Val("`t`.`protocol`", Text)),
        ("lb_algorithm", Val("`t`.`lb_algorithm`", Text)),
        ("session_persistence", Never),
        ("project_id", Val("`t`.`project_id`", Text)),
        ("tenant_id", Val("`t`.`project_id`", Text)),
        ("loadbalancers", Has("`t`.`load_balancer_id` = ?")),
        (
            "listeners",
            Has(
                "EXISTS (SELECT 1 FROM `listener` `x` WHERE `x`.`default_pool_id` = `t`.`id` AND `x`.`provisioning_status` <> 'DELETED' AND `x`.`id` = ?)",
            ),
        ),
        ("created_at", Val("`t`.`created_at`", Time)),
        ("updated_at", Val("`t`.`updated_at`", Time)),
        // the pool's first monitor by (created_at, id), as the response shows it
        (
            "healthmonitor_id",
            Val(
                "(SELECT `x`.`id` FROM `health_monitor` `x` WHERE `x`.`pool_id` = `t`.`id` AND `x`.`provisioning_status` <> 'DELETED' ORDER BY `x`.`created_at`, `x`.`id` LIMIT 1)",
                Text,
            ),
        ),
        (
            "members",
            Has(
                "EXISTS (SELECT 1 FROM `member` `x` WHERE `x`.`pool_id` = `t`.`id` AND `x`.`provisioning_status` <> 'DELETED' AND `x`.`id` = ?)",
            ),
        ),
        (
            "tags",
            Has(
                "EXISTS (SELECT 1 FROM `tags` `g` WHERE `g`.`resource_id` = `t`.`id` AND `g`.`tag` = ?)",
            ),
        ),
        ("tls_container_ref", Val("`t`.`tls_certificate_id`", Text)),
        (
            "ca_tls_container_ref",
            Val("`t`.`ca_tls_certificate_id`", Text),
        ),
        ("crl_container_ref", Val("`t`.`crl_container_id`", Text)),
        ("tls_enabled", Val("`t`.`tls_enabled`", Bool)),
        ("tls_ciphers", Val("`t`.`tls_ciphers`", Text)),
        ("tls_versions", Csv("`t`.`tls_versions`")),
        ("alpn_protocols", Csv("`t`.`alpn_protocols`")),
        ("loadbalancer_id", Val("`t`.`load_balancer_id`", Text)),
    ],
    joins: &[],
    tags: true,
};

/// `GET /v2/lbaas/pools/{pool_id}/members`.
pub static MEMBER: Spec = Spec {
    attrs: &[
        ("id", Val("`t`.`id`", Text)),
        ("name", Str("`t`.`name`")),
        ("operating_status", Val("`t`.`operating_status`", Text)),
        (
            "provisioning_status",
            Val("`t`.`provisioning_status`", Text),
        ),
        ("admin_state_up", Val("`t`.`enabled`", Bool)),
        ("address", Val("`t`.`ip_address`", Text)),
        ("protocol_port", Val("`t`.`protocol_port`", Int)),
        ("weight", Val("`t`.`weight`", Int)),
        ("backup", Val("`t`.`backup`", Bool)),
        ("subnet_id", Val("`t`.`subnet_id`", Text)),
        ("project_id", Val("`t`.`project_id`", Text)),
        ("tenant_id", Val("`t`.`project_id`", Text)),
        ("created_at", Val("`t`.`created_at`", Time)),
        ("updated_at", Val("`t`.`updated_at`", Time)),
        ("monitor_address", Val("`t`.`monitor_address`", Text)),
        ("monitor_port", Val("`t`.`monitor_port`", Int)),
        (
            "tags",
            Has(
                "EXISTS (SELECT 1 FROM `tags` `g` WHERE `g`.`resource_id` = `t`.`id` AND `g`.`tag` = ?)",
            ),
        ),
        (
            "vnic_type",
            Val(
                "CASE WHEN COALESCE(`t`.`vnic_type`, '') = '' THEN 'normal' ELSE `t`.`vnic_type` END",
                Text,
            ),
        ),
    ],
    joins: &[],
    tags: true,
};

/// `GET /v2/lbaas/healthmonitors` (`http_version`, a float rendered to two decimals, as
/// hundredths).
pub static HM: Spec = Spec {
    attrs: &[
        ("id", Val("`t`.`id`", Text)),
        ("name", Str("`t`.`name`")),
        ("type", Val("`t`.`type`", Text)),
        ("delay", Val("`t`.`delay`", Int)),
        ("timeout", Val("`t`.`timeout`", Int)),
        ("max_retries", Val("`t`.`rise_threshold`", Int)),
        ("max_retries_down", Val("`t`.`fall_threshold`", Int)),
        ("http_method", Val("`t`.`http_method`", Text)),
        ("url_path", Val("`t`.`url_path`", Text)),
        ("expected_codes", Val("`t`.`expected_codes`", Text)),
        ("admin_state_up", Val("`t`.`enabled`", Bool)),
        ("project_id", Val("`t`.`project_id`", Text)),
        ("tenant_id", Val("`t`.`project_id`", Text)),
        ("pools", Has("`t`.`pool_id` = ?")),
        (
            "provisioning_status",
            Val("`t`.`provisioning_status`", Text),
        ),
        ("operating_status", Val("`t`.`operating_status`", Text)),
        ("created_at", Val("`t`.`created_at`", Time)),
        ("updated_at", Val("`t`.`updated_at`", Time)),
        (
            "tags",
            Has(
                "EXISTS (SELECT 1 FROM `tags` `g` WHERE `g`.`resource_id` = `t`.`id` AND `g`.`tag` = ?)",
            ),
        ),
        (
            "http_version",
            Val("ROUND(`t`.`http_version` * 100)", Hundredths),
        ),
        ("domain_name", Val("`t`.`domain_name`", Text)),
        ("pool_id", Val("`t`.`pool_id`", Text)),
    ],
    joins: &[],
    tags: true,
};

/// `GET /v2/lbaas/l7policies`.
pub static L7POLICY: Spec = Spec {
    attrs: &[
        ("id", Val("`t`.`id`", Text)),
        ("name", Str("`t`.`name`")),
        ("description", Str("`t`.`description`")),
        (
            "provisioning_status",
            Val("`t`.`provisioning_status`", Text),
        ),
        ("operating_status", Val("`t`.`operating_status`", Text)),
        ("admin_state_up", Val("`t`.`enabled`", Bool)),
        ("project_id", Val("`t`.`project_id`", Text)),
        ("action", Val("`t`.`action`", Text)),
        ("listener_id", Val("`t`.`listener_id`", Text)),
        ("redirect_pool_id", Val("`t`.`redirect_pool_id`", Text)),
        ("redirect_url", Val("`t`.`redirect_url`", Text)),
        ("redirect_prefix", Val("`t`.`redirect_prefix`", Text)),
        ("position", Val("`t`.`position`", Int)),
        (
            "rules",
            Has(
                "EXISTS (SELECT 1 FROM `l7rule` `x` WHERE `x`.`l7policy_id` = `t`.`id` AND `x`.`provisioning_status` <> 'DELETED' AND `x`.`id` = ?)",
            ),
        ),
        ("created_at", Val("`t`.`created_at`", Time)),
        ("updated_at", Val("`t`.`updated_at`", Time)),
        ("redirect_http_code", Val("`t`.`redirect_http_code`", Int)),
        (
            "tags",
            Has(
                "EXISTS (SELECT 1 FROM `tags` `g` WHERE `g`.`resource_id` = `t`.`id` AND `g`.`tag` = ?)",
            ),
        ),
    ],
    joins: &[],
    tags: true,
};

/// `GET /v2/lbaas/l7policies/{l7policy_id}/rules`.
pub static L7RULE: Spec = Spec {
    attrs: &[
        ("id", Val("`t`.`id`", Text)),
        ("type", Val("`t`.`type`", Text)),
        ("compare_type", Val("`t`.`compare_type`", Text)),
        ("key", Val("`t`.`key`", Text)),
        ("value", Val("`t`.`value`", Text)),
        ("invert", Val("`t`.`invert`", Bool)),
        (
            "provisioning_status",
            Val("`t`.`provisioning_status`", Text),
        ),
        ("operating_status", Val("`t`.`operating_status`", Text)),
        ("created_at", Val("`t`.`created_at`", Time)),
        ("updated_at", Val("`t`.`updated_at`", Time)),
        ("project_id", Val("`t`.`project_id`", Text)),
        ("admin_state_up", Val("`t`.`enabled`", Bool)),
        (
            "tags",
            Has(
                "EXISTS (SELECT 1 FROM `tags` `g` WHERE `g`.`resource_id` = `t`.`id` AND `g`.`tag` = ?)",
            ),
        ),
    ],
    joins: &[],
    tags: true,
};

/// `GET /v2/lbaas/flavors`.
pub static FLAVOR: Spec = Spec {
    attrs: &[
        ("id", Val("`t`.`id`", Text)),
        ("name", Val("`t`.`name`", Text)),
        ("description", Str("`t`.`description`")),
        ("enabled", Val("`t`.`enabled`", Bool)),
        ("flavor_profile_id", Val("`t`.`flavor_profile_id`", Text)),
    ],
    joins: &[],
    tags: false,
};

/// `GET /v2/lbaas/availabilityzones`.
pub static AZ: Spec = Spec {
    attrs: &[
        ("name", Val("`t`.`name`", Text)),
        ("description", Str("`t`.`description`")),
        ("enabled", Val("`t`.`enabled`", Bool)),
        (
            "availability_zone_profile_id",
            Val("`t`.`availability_zone_profile_id`", Text),
        ),
    ],
    joins: &[],
    tags: false,
};

/// `GET /v2/lbaas/flavorprofiles`.
pub static FLAVOR_PROFILE: Spec = Spec {
    attrs: &[
        ("id", Val("`t`.`id`", Text)),
        ("name", Val("`t`.`name`", Text)),
        ("provider_name", Val("`t`.`provider_name`", Text)),
        ("flavor_data", Val("`t`.`flavor_data`", Text)),
    ],
    joins: &[],
    tags: false,
};

/// `GET /v2/lbaas/availabilityzoneprofiles`.
pub static AZ_PROFILE: Spec = Spec {
    attrs: &[
        ("id", Val("`t`.`id`", Text)),
        ("name", Val("`t`.`name`", Text)),
        ("provider_name", Val("`t`.`provider_name`", Text)),
        (
            "availability_zone_data",
            Val("`t`.`availability_zone_data`", Text),
        ),
    ],
    joins: &[],
    tags: false,
};

/// `GET /v2/lbaas/quotas` (the stored limits; NULL renders `null`).
pub static QUOTA: Spec = Spec {
    attrs: &[
        ("project_id", Val("`t`.`project_id`", Text)),
        ("loadbalancer", Val("`t`.`load_balancer`", Int)),
        ("load_balancer", Val("`t`.`load_balancer`", Int)),
        ("listener", Val("`t`.`listener`", Int)),
        ("member", Val("`t`.`member`", Int)),
        ("pool", Val("`t`.`pool`", Int)),
        ("healthmonitor", Val("`t`.`health_monitor`", Int)),
        ("health_monitor", Val("`t`.`health_monitor`", Int)),
        ("l7policy", Val("`t`.`l7policy`", Int)),
        ("l7rule", Val("`t`.`l7rule`", Int)),
    ],
    joins: &[],
    tags: false,
};

/// `GET /v2/octavia/amphorae` (`loadbalancer_id` is the `load_balancer_id` column; no tags).
/// UUID and IP attributes compare as stored: the worker stores them in the form the response
/// shows (`crate::amphora::render`).
pub static AMPHORA: Spec = Spec {
    attrs: &[
        ("id", Val("`t`.`id`", Text)),
        ("loadbalancer_id", Val("`t`.`load_balancer_id`", Text)),
        ("compute_id", Val("`t`.`compute_id`", Text)),
        ("lb_network_ip", Val("`t`.`lb_network_ip`", Text)),
        ("vrrp_ip", Val("`t`.`vrrp_ip`", Text)),
        ("ha_ip", Val("`t`.`ha_ip`", Text)),
        ("vrrp_port_id", Val("`t`.`vrrp_port_id`", Text)),
        ("ha_port_id", Val("`t`.`ha_port_id`", Text)),
        ("cert_expiration", Val("`t`.`cert_expiration`", Time)),
        ("cert_busy", Val("`t`.`cert_busy`", Bool)),
        ("role", Val("`t`.`role`", Text)),
        ("status", Val("`t`.`status`", Text)),
        ("vrrp_interface", Val("`t`.`vrrp_interface`", Text)),
        ("vrrp_id", Val("`t`.`vrrp_id`", Int)),
        ("vrrp_priority", Val("`t`.`vrrp_priority`", Int)),
        ("cached_zone", Val("`t`.`cached_zone`", Text)),
        ("created_at", Val("`t`.`created_at`", Time)),
        ("updated_at", Val("`t`.`updated_at`", Time)),
        ("image_id", Val("`t`.`image_id`", Text)),
        ("compute_flavor", Val("`t`.`compute_flavor`", Text)),
    ],
    joins: &[],
    tags: false,
};
