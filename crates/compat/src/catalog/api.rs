//! The API's sections: `[api_settings]`, `[audit]`, `[cors]`, `[healthcheck]`, `[networking]`,
//! `[oslo_middleware]`, `[oslo_middleware_tracing]`, `[quotas]`: their rows of
//! [`OPTS`](super::OPTS), in registration order.

use super::{Opt, Use};

/// `[api_settings]`'s switches of the API's features, typed (rows of
/// [`OPTS`](crate::catalog::OPTS)).
#[rustfmt::skip]
pub mod api_settings {
    use crate::catalog::{Opt, Typed, Use};

    /// Whether list calls take `limit` / `marker` and answer with links.
    pub const ALLOW_PAGINATION: Typed<bool> = Typed::new(Opt { section: "api_settings", name: "allow_pagination", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Honoured });
    /// Whether list calls take `sort` / `sort_key` / `sort_dir`.
    pub const ALLOW_SORTING: Typed<bool> = Typed::new(Opt { section: "api_settings", name: "allow_sorting", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Honoured });
    /// Whether list calls take attribute filters.
    pub const ALLOW_FILTERING: Typed<bool> = Typed::new(Opt { section: "api_settings", name: "allow_filtering", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Honoured });
    /// Whether list and show calls take `fields`.
    pub const ALLOW_FIELD_SELECTION: Typed<bool> = Typed::new(Opt { section: "api_settings", name: "allow_field_selection", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Honoured });
    /// Whether `TERMINATED_HTTPS` listeners may be created.
    pub const ALLOW_TLS_TERMINATED_LISTENERS: Typed<bool> = Typed::new(Opt { section: "api_settings", name: "allow_tls_terminated_listeners", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Honoured });
    /// Whether `PING` health monitors may be created.
    pub const ALLOW_PING_HEALTH_MONITORS: Typed<bool> = Typed::new(Opt { section: "api_settings", name: "allow_ping_health_monitors", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Honoured });
    /// Whether `PROMETHEUS` listeners may be created.
    pub const ALLOW_PROMETHEUS_LISTENERS: Typed<bool> = Typed::new(Opt { section: "api_settings", name: "allow_prometheus_listeners", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Honoured });
    /// Whether `GET /healthcheck` is served.
    pub const HEALTHCHECK_ENABLED: Typed<bool> = Typed::new(Opt { section: "api_settings", name: "healthcheck_enabled", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Honoured });
}

/// `[networking]`'s switches of the VIP arguments, typed (rows of [`OPTS`](crate::catalog::OPTS)).
#[rustfmt::skip]
pub mod networking {
    use crate::catalog::{Opt, Typed, Use};

    /// Whether a load balancer's VIP may be given as a network.
    pub const ALLOW_VIP_NETWORK_ID: Typed<bool> = Typed::new(Opt { section: "networking", name: "allow_vip_network_id", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Honoured });
    /// Whether a load balancer's VIP may be given as a subnet.
    pub const ALLOW_VIP_SUBNET_ID: Typed<bool> = Typed::new(Opt { section: "networking", name: "allow_vip_subnet_id", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Honoured });
    /// Whether a load balancer's VIP may be given as an existing port.
    pub const ALLOW_VIP_PORT_ID: Typed<bool> = Typed::new(Opt { section: "networking", name: "allow_vip_port_id", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Honoured });
}

/// `[quotas]`'s defaults (-1: unlimited), typed (rows of [`OPTS`](crate::catalog::OPTS)).
#[rustfmt::skip]
pub mod quotas {
    use crate::catalog::{Opt, Typed, Use};

    /// Load balancers per project when no quota is set.
    pub const DEFAULT_LOAD_BALANCER_QUOTA: Typed<i64> = Typed::new(Opt { section: "quotas", name: "default_load_balancer_quota", kind: "int", default: "-1", secret: false, aliases: &[], use_: Use::Honoured });
    /// Listeners per project when no quota is set.
    pub const DEFAULT_LISTENER_QUOTA: Typed<i64> = Typed::new(Opt { section: "quotas", name: "default_listener_quota", kind: "int", default: "-1", secret: false, aliases: &[], use_: Use::Honoured });
    /// Members per project when no quota is set.
    pub const DEFAULT_MEMBER_QUOTA: Typed<i64> = Typed::new(Opt { section: "quotas", name: "default_member_quota", kind: "int", default: "-1", secret: false, aliases: &[], use_: Use::Honoured });
    /// Pools per project when no quota is set.
    pub const DEFAULT_POOL_QUOTA: Typed<i64> = Typed::new(Opt { section: "quotas", name: "default_pool_quota", kind: "int", default: "-1", secret: false, aliases: &[], use_: Use::Honoured });
    /// Health monitors per project when no quota is set.
    pub const DEFAULT_HEALTH_MONITOR_QUOTA: Typed<i64> = Typed::new(Opt { section: "quotas", name: "default_health_monitor_quota", kind: "int", default: "-1", secret: false, aliases: &[], use_: Use::Honoured });
    /// L7 policies per project when no quota is set.
    pub const DEFAULT_L7POLICY_QUOTA: Typed<i64> = Typed::new(Opt { section: "quotas", name: "default_l7policy_quota", kind: "int", default: "-1", secret: false, aliases: &[], use_: Use::Honoured });
    /// L7 rules per project when no quota is set.
    pub const DEFAULT_L7RULE_QUOTA: Typed<i64> = Typed::new(Opt { section: "quotas", name: "default_l7rule_quota", kind: "int", default: "-1", secret: false, aliases: &[], use_: Use::Honoured });
}

/// The rows of `[api_settings]`, `[audit]`, `[cors]`, `[healthcheck]`, `[networking]`,
/// `[oslo_middleware]`, `[oslo_middleware_tracing]`, `[quotas]`, in registration order.
#[rustfmt::skip]
pub(super) const ROWS: &[Opt] = &[
    Opt { section: "api_settings", name: "bind_host", kind: "ip", default: "127.0.0.1", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "api_settings", name: "bind_port", kind: "port", default: "9876", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "api_settings", name: "auth_strategy", kind: "str", default: "keystone", secret: false, aliases: &[], use_: Use::Honoured },
    api_settings::ALLOW_PAGINATION.opt,
    api_settings::ALLOW_SORTING.opt,
    api_settings::ALLOW_FILTERING.opt,
    api_settings::ALLOW_FIELD_SELECTION.opt,
    Opt { section: "api_settings", name: "pagination_max_limit", kind: "str", default: "1000", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "api_settings", name: "api_base_uri", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    api_settings::ALLOW_TLS_TERMINATED_LISTENERS.opt,
    api_settings::ALLOW_PING_HEALTH_MONITORS.opt,
    api_settings::ALLOW_PROMETHEUS_LISTENERS.opt,
    Opt { section: "api_settings", name: "enabled_provider_drivers", kind: "dict", default: "amphora:The Octavia Amphora driver.,octavia:Deprecated alias of the Octavia Amphora driver.", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "api_settings", name: "default_provider_driver", kind: "str", default: "amphora", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "api_settings", name: "udp_connect_min_interval_health_monitor", kind: "int", default: "3", secret: false, aliases: &[], use_: Use::Honoured },
    api_settings::HEALTHCHECK_ENABLED.opt,
    Opt { section: "api_settings", name: "healthcheck_refresh_interval", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "api_settings", name: "default_listener_ciphers", kind: "str", default: "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384:DHE-RSA-CHACHA20-POLY1305", secret: false, aliases: &[], use_: Use::NotApplicable("used only by TERMINATED_HTTPS listeners and TLS pools, which the OVN provider refuses (501)") },
    Opt { section: "api_settings", name: "default_pool_ciphers", kind: "str", default: "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384:DHE-RSA-CHACHA20-POLY1305", secret: false, aliases: &[], use_: Use::NotApplicable("used only by TERMINATED_HTTPS listeners and TLS pools, which the OVN provider refuses (501)") },
    Opt { section: "api_settings", name: "tls_cipher_prohibit_list", kind: "str", default: "", secret: false, aliases: &["tls_cipher_blacklist"], use_: Use::NotApplicable("used only by TERMINATED_HTTPS listeners and TLS pools, which the OVN provider refuses (501)") },
    Opt { section: "api_settings", name: "default_listener_tls_versions", kind: "list", default: "TLSv1.2,TLSv1.3", secret: false, aliases: &[], use_: Use::NotApplicable("used only by TERMINATED_HTTPS listeners and TLS pools, which the OVN provider refuses (501)") },
    Opt { section: "api_settings", name: "default_pool_tls_versions", kind: "list", default: "TLSv1.2,TLSv1.3", secret: false, aliases: &[], use_: Use::NotApplicable("used only by TERMINATED_HTTPS listeners and TLS pools, which the OVN provider refuses (501)") },
    Opt { section: "api_settings", name: "minimum_tls_version", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("used only by TERMINATED_HTTPS listeners and TLS pools, which the OVN provider refuses (501)") },
    Opt { section: "api_settings", name: "default_listener_alpn_protocols", kind: "list", default: "h2,http/1.1,http/1.0", secret: false, aliases: &[], use_: Use::NotApplicable("used only by TERMINATED_HTTPS listeners and TLS pools, which the OVN provider refuses (501)") },
    Opt { section: "api_settings", name: "default_pool_alpn_protocols", kind: "list", default: "h2,http/1.1,http/1.0", secret: false, aliases: &[], use_: Use::NotApplicable("used only by TERMINATED_HTTPS listeners and TLS pools, which the OVN provider refuses (501)") },
    Opt { section: "api_settings", name: "tls1_3_supported_ciphers", kind: "str", default: "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_CCM_SHA256:TLS_AES_128_CCM_8_SHA256", secret: false, aliases: &[], use_: Use::NotApplicable("used only by TERMINATED_HTTPS listeners and TLS pools, which the OVN provider refuses (501)") },
    Opt { section: "audit", name: "enabled", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "audit", name: "audit_map_file", kind: "str", default: "/etc/octavia/octavia_api_audit_map.conf", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "audit", name: "ignore_req_list", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "cors", name: "allowed_origin", kind: "list", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "cors", name: "allow_credentials", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "cors", name: "expose_headers", kind: "list", default: "X-Auth-Token,X-Openstack-Request-Id", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "cors", name: "max_age", kind: "int", default: "3600", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "cors", name: "allow_methods", kind: "list", default: "GET,PUT,POST,DELETE", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "cors", name: "allow_headers", kind: "list", default: "X-Auth-Token,X-Openstack-Request-Id", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "healthcheck", name: "detailed", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "healthcheck", name: "backends", kind: "list", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "healthcheck", name: "allowed_source_ranges", kind: "list", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "healthcheck", name: "ignore_proxied_requests", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "healthcheck", name: "disable_by_file_path", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "healthcheck", name: "disable_by_file_paths", kind: "list", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "healthcheck", name: "enable_by_file_paths", kind: "list", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "networking", name: "max_retries", kind: "int", default: "15", secret: false, aliases: &[], use_: Use::NotApplicable("VIP port plumbing of the amphora network driver") },
    Opt { section: "networking", name: "retry_interval", kind: "int", default: "1", secret: false, aliases: &[], use_: Use::NotApplicable("VIP port plumbing of the amphora network driver") },
    Opt { section: "networking", name: "retry_backoff", kind: "int", default: "1", secret: false, aliases: &[], use_: Use::NotApplicable("VIP port plumbing of the amphora network driver") },
    Opt { section: "networking", name: "retry_max", kind: "int", default: "10", secret: false, aliases: &[], use_: Use::NotApplicable("VIP port plumbing of the amphora network driver") },
    Opt { section: "networking", name: "port_detach_timeout", kind: "int", default: "300", secret: false, aliases: &[], use_: Use::NotApplicable("VIP port plumbing of the amphora network driver") },
    networking::ALLOW_VIP_NETWORK_ID.opt,
    networking::ALLOW_VIP_SUBNET_ID.opt,
    networking::ALLOW_VIP_PORT_ID.opt,
    Opt { section: "networking", name: "valid_vip_networks", kind: "list", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "networking", name: "denylist_vip_networks", kind: "list", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "networking", name: "reserved_ips", kind: "list", default: "169.254.169.254", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "networking", name: "allow_invisible_resource_usage", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "networking", name: "use_remote_group_for_lb_peer_ports", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::NotApplicable("VIP port plumbing of the amphora network driver") },
    Opt { section: "oslo_middleware", name: "max_request_body_size", kind: "int", default: "114688", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "oslo_middleware", name: "enable_proxy_headers_parsing", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "oslo_middleware", name: "http_basic_auth_user_file", kind: "str", default: "/etc/htpasswd", secret: false, aliases: &[], use_: Use::NotApplicable("Octavia offers no http_basic auth_strategy") },
    Opt { section: "oslo_middleware_tracing", name: "enabled", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "oslo_middleware_tracing", name: "otlp_endpoint", kind: "uri", default: "http://localhost:4318", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "oslo_middleware_tracing", name: "otlp_protocol", kind: "str", default: "http/protobuf", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "oslo_middleware_tracing", name: "service_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "oslo_middleware_tracing", name: "sampling_rate", kind: "float", default: "1.0", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "oslo_middleware_tracing", name: "insecure", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    quotas::DEFAULT_LOAD_BALANCER_QUOTA.opt,
    quotas::DEFAULT_LISTENER_QUOTA.opt,
    quotas::DEFAULT_MEMBER_QUOTA.opt,
    quotas::DEFAULT_POOL_QUOTA.opt,
    quotas::DEFAULT_HEALTH_MONITOR_QUOTA.opt,
    quotas::DEFAULT_L7POLICY_QUOTA.opt,
    quotas::DEFAULT_L7RULE_QUOTA.opt,
];
