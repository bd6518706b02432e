//! The API's sections: `[api_settings]`, `[audit]`, `[cors]`, `[healthcheck]`, `[networking]`,
//! `[oslo_middleware]`, `[oslo_middleware_tracing]`, `[quotas]`: their rows of
//! [`OPTS`](super::OPTS), in registration order.

use crate::catalog::{Opt, Use};

/// `[api_settings]`: the options Keel reads, typed (their rows of [`OPTS`](crate::catalog::OPTS)).
pub mod api_settings {
    use crate::catalog::AtLeast;
    typed! { "api_settings";
        /// Whether list calls take `limit` / `marker` and answer with links.
        ALLOW_PAGINATION: bool = "allow_pagination" "bool" "True";
        /// Whether list calls take `sort` / `sort_key` / `sort_dir`.
        ALLOW_SORTING: bool = "allow_sorting" "bool" "True";
        /// Whether list calls take attribute filters.
        ALLOW_FILTERING: bool = "allow_filtering" "bool" "True";
        /// Whether list and show calls take `fields`.
        ALLOW_FIELD_SELECTION: bool = "allow_field_selection" "bool" "True";
        /// Whether `TERMINATED_HTTPS` listeners may be created.
        ALLOW_TLS_TERMINATED_LISTENERS: bool = "allow_tls_terminated_listeners" "bool" "True";
        /// Whether `PING` health monitors may be created.
        ALLOW_PING_HEALTH_MONITORS: bool = "allow_ping_health_monitors" "bool" "True";
        /// Whether `PROMETHEUS` listeners may be created.
        ALLOW_PROMETHEUS_LISTENERS: bool = "allow_prometheus_listeners" "bool" "True";
        /// Whether `GET /healthcheck` is served.
        HEALTHCHECK_ENABLED: bool = "healthcheck_enabled" "bool" "False";
        /// The address the API listens on.
        BIND_HOST: String = "bind_host" "ip" "127.0.0.1";
        /// The port the API listens on (0..=65535).
        BIND_PORT: AtLeast<0> = "bind_port" "port" "9876";
        /// `keystone` or `noauth`.
        AUTH_STRATEGY: String = "auth_strategy" "str" "keystone";
        /// The most items a list answers with: an integer at least 1, or `infinite`.
        PAGINATION_MAX_LIMIT: String = "pagination_max_limit" "str" "1000";
        /// The base URL of the API's links (unset: the request's).
        API_BASE_URI: Option<String> = "api_base_uri" "str" "";
        /// `name:description,…` of the provider drivers loaded (Keel: OVN only).
        ENABLED_PROVIDER_DRIVERS: String = "enabled_provider_drivers" "dict" "amphora:The Octavia Amphora driver.,octavia:Deprecated alias of the Octavia Amphora driver." keel "ovn:OVN provider driver";
        /// The provider of a load balancer that names none (Keel: `amphora` when enabled, else
        /// `ovn`).
        DEFAULT_PROVIDER_DRIVER: String = "default_provider_driver" "str" "amphora";
        /// The least `delay` of a UDP-CONNECT health monitor (s).
        UDP_CONNECT_MIN_INTERVAL_HEALTH_MONITOR: i64 = "udp_connect_min_interval_health_monitor" "int" "3";
        /// How long `GET /healthcheck`'s result is reused (s).
        HEALTHCHECK_REFRESH_INTERVAL: u64 = "healthcheck_refresh_interval" "int" "5";
    }
}

/// `[cors]`: the options Keel reads, typed (their rows of [`OPTS`](crate::catalog::OPTS)).
pub mod cors {
    typed! { "cors";
        /// oslo.middleware CORS: the origins allowed (empty: CORS off).
        ALLOWED_ORIGIN: Vec<String> = "allowed_origin" "list" "";
        /// oslo.middleware CORS: `Access-Control-Allow-Credentials`.
        ALLOW_CREDENTIALS: bool = "allow_credentials" "bool" "True";
        /// oslo.middleware CORS: `Access-Control-Expose-Headers` (Octavia's
        /// `set_cors_middleware_defaults`).
        EXPOSE_HEADERS: Vec<String> = "expose_headers" "list" "X-Auth-Token,X-Openstack-Request-Id";
        /// oslo.middleware CORS: `Access-Control-Max-Age` (s; ≤ 0 sends none).
        MAX_AGE: i64 = "max_age" "int" "3600";
        /// oslo.middleware CORS: `Access-Control-Allow-Methods` (Octavia's defaults).
        ALLOW_METHODS: Vec<String> = "allow_methods" "list" "GET,PUT,POST,DELETE";
        /// oslo.middleware CORS: `Access-Control-Allow-Headers` (Octavia's defaults).
        ALLOW_HEADERS: Vec<String> = "allow_headers" "list" "X-Auth-Token,X-Openstack-Request-Id";
    }
}

/// `[healthcheck]`: the options Keel reads, typed (their rows of [`OPTS`](crate::catalog::OPTS)).
pub mod healthcheck {
    use std::path::PathBuf;
    typed! { "healthcheck";
        /// oslo.middleware healthcheck: a detailed body.
        DETAILED: bool = "detailed" "bool" "False";
        /// oslo.middleware healthcheck: the backends run (entry-point names).
        BACKENDS: Vec<String> = "backends" "list" "";
        /// oslo.middleware healthcheck: the networks answered (empty: any).
        ALLOWED_SOURCE_RANGES: Vec<String> = "allowed_source_ranges" "list" "";
        /// oslo.middleware healthcheck: proxied requests are not answered.
        IGNORE_PROXIED_REQUESTS: bool = "ignore_proxied_requests" "bool" "False";
        /// oslo.middleware `disable_by_file`: the file whose presence fails the check.
        DISABLE_BY_FILE_PATH: Option<PathBuf> = "disable_by_file_path" "str" "";
        /// oslo.middleware `disable_by_files_ports`: `port:path` items.
        DISABLE_BY_FILE_PATHS: Vec<String> = "disable_by_file_paths" "list" "";
        /// oslo.middleware `enable_by_files`: the files that must exist.
        ENABLE_BY_FILE_PATHS: Vec<String> = "enable_by_file_paths" "list" "";
    }
}

/// `[networking]`: the options Keel reads, typed (their rows of [`OPTS`](crate::catalog::OPTS)).
pub mod networking {
    typed! { "networking";
        /// Whether a load balancer's VIP may be given as a network.
        ALLOW_VIP_NETWORK_ID: bool = "allow_vip_network_id" "bool" "True";
        /// Whether a load balancer's VIP may be given as a subnet.
        ALLOW_VIP_SUBNET_ID: bool = "allow_vip_subnet_id" "bool" "True";
        /// Whether a load balancer's VIP may be given as an existing port.
        ALLOW_VIP_PORT_ID: bool = "allow_vip_port_id" "bool" "True";
        /// IP addresses a member may not have.
        RESERVED_IPS: Vec<String> = "reserved_ips" "list" "169.254.169.254";
    }
}

/// `[oslo_middleware]`: the options Keel reads, typed (their rows of
/// [`OPTS`](crate::catalog::OPTS)).
pub mod oslo_middleware {
    use crate::catalog::AtLeast;
    typed! { "oslo_middleware";
        /// The largest request body accepted (bytes).
        MAX_REQUEST_BODY_SIZE: AtLeast<0> = "max_request_body_size" "int" "114688";
        /// Whether `X-Forwarded-*` / `Forwarded` set the request's scheme and host.
        ENABLE_PROXY_HEADERS_PARSING: bool = "enable_proxy_headers_parsing" "bool" "False";
    }
}

/// `[quotas]`: the options Keel reads, typed (their rows of [`OPTS`](crate::catalog::OPTS)).
pub mod quotas {
    typed! { "quotas";
        /// Load balancers per project when no quota is set.
        DEFAULT_LOAD_BALANCER_QUOTA: i64 = "default_load_balancer_quota" "int" "-1";
        /// Listeners per project when no quota is set.
        DEFAULT_LISTENER_QUOTA: i64 = "default_listener_quota" "int" "-1";
        /// Members per project when no quota is set.
        DEFAULT_MEMBER_QUOTA: i64 = "default_member_quota" "int" "-1";
        /// Pools per project when no quota is set.
        DEFAULT_POOL_QUOTA: i64 = "default_pool_quota" "int" "-1";
        /// Health monitors per project when no quota is set.
        DEFAULT_HEALTH_MONITOR_QUOTA: i64 = "default_health_monitor_quota" "int" "-1";
        /// L7 policies per project when no quota is set.
        DEFAULT_L7POLICY_QUOTA: i64 = "default_l7policy_quota" "int" "-1";
        /// L7 rules per project when no quota is set.
        DEFAULT_L7RULE_QUOTA: i64 = "default_l7rule_quota" "int" "-1";
    }
}

/// The rows of `[api_settings]`, `[audit]`, `[cors]`, `[healthcheck]`, `[networking]`,
/// `[oslo_middleware]`, `[oslo_middleware_tracing]`, `[quotas]`, in registration order.
#[rustfmt::skip]
pub(super) const ROWS: &[Opt] = &[
    api_settings::BIND_HOST.opt,
    api_settings::BIND_PORT.opt,
    api_settings::AUTH_STRATEGY.opt,
    api_settings::ALLOW_PAGINATION.opt,
    api_settings::ALLOW_SORTING.opt,
    api_settings::ALLOW_FILTERING.opt,
    api_settings::ALLOW_FIELD_SELECTION.opt,
    api_settings::PAGINATION_MAX_LIMIT.opt,
    api_settings::API_BASE_URI.opt,
    api_settings::ALLOW_TLS_TERMINATED_LISTENERS.opt,
    api_settings::ALLOW_PING_HEALTH_MONITORS.opt,
    api_settings::ALLOW_PROMETHEUS_LISTENERS.opt,
    api_settings::ENABLED_PROVIDER_DRIVERS.opt,
    api_settings::DEFAULT_PROVIDER_DRIVER.opt,
    api_settings::UDP_CONNECT_MIN_INTERVAL_HEALTH_MONITOR.opt,
    api_settings::HEALTHCHECK_ENABLED.opt,
    api_settings::HEALTHCHECK_REFRESH_INTERVAL.opt,
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
    cors::ALLOWED_ORIGIN.opt,
    cors::ALLOW_CREDENTIALS.opt,
    cors::EXPOSE_HEADERS.opt,
    cors::MAX_AGE.opt,
    cors::ALLOW_METHODS.opt,
    cors::ALLOW_HEADERS.opt,
    healthcheck::DETAILED.opt,
    healthcheck::BACKENDS.opt,
    healthcheck::ALLOWED_SOURCE_RANGES.opt,
    healthcheck::IGNORE_PROXIED_REQUESTS.opt,
    healthcheck::DISABLE_BY_FILE_PATH.opt,
    healthcheck::DISABLE_BY_FILE_PATHS.opt,
    healthcheck::ENABLE_BY_FILE_PATHS.opt,
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
    networking::RESERVED_IPS.opt,
    Opt { section: "networking", name: "allow_invisible_resource_usage", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::Unimplemented },
    Opt { section: "networking", name: "use_remote_group_for_lb_peer_ports", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::NotApplicable("VIP port plumbing of the amphora network driver") },
    oslo_middleware::MAX_REQUEST_BODY_SIZE.opt,
    oslo_middleware::ENABLE_PROXY_HEADERS_PARSING.opt,
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
