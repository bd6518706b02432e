//! The amphora controller's sections (`[amphora_agent]`, `[compute]`, `[controller_worker]`,
//! `[driver_agent]`, `[haproxy_amphora]`, `[health_manager]`, `[house_keeping]`,
//! `[keepalived_vrrp]`, `[task_flow]`): their rows of [`OPTS`](super::OPTS), in registration order.

use crate::catalog::{Opt, Use};

/// `[controller_worker]`: the options Keel reads, typed (their rows of
/// [`OPTS`](crate::catalog::OPTS)).
pub mod controller_worker {
    typed! { "controller_worker";
        /// The owner of the amphora image (empty: any owner).
        AMP_IMAGE_OWNER_ID: String = "amp_image_owner_id" "str" "";
        /// The amphora provider's compute driver (`compute_nova_driver` or the noop).
        COMPUTE_DRIVER: String = "compute_driver" "str" "compute_nova_driver";
        /// The API side's VIP allocator (`allowed_address_pairs_driver` or `network_noop_driver`).
        NETWORK_DRIVER: String = "network_driver" "str" "allowed_address_pairs_driver";
        /// The amphora provider's volume driver (`volume_cinder_driver` or the noop).
        VOLUME_DRIVER: String = "volume_driver" "str" "volume_noop_driver";
        /// The amphora provider's image driver (`image_glance_driver` or the noop).
        IMAGE_DRIVER: String = "image_driver" "str" "image_glance_driver";
        /// `SINGLE` or `ACTIVE_STANDBY`, the topology of a load balancer whose flavor sets none.
        LOADBALANCER_TOPOLOGY: String = "loadbalancer_topology" "str" "SINGLE";
    }
}

/// `[haproxy_amphora]`: the options Keel reads, typed (their rows of
/// [`OPTS`](crate::catalog::OPTS)).
pub mod haproxy_amphora {
    typed! { "haproxy_amphora";
        /// A listener's client inactivity timeout when the request sets none.
        TIMEOUT_CLIENT_DATA: i64 = "timeout_client_data" "int" "50000";
        /// A listener's member connect timeout when the request sets none.
        TIMEOUT_MEMBER_CONNECT: i64 = "timeout_member_connect" "int" "5000";
        /// A listener's member inactivity timeout when the request sets none.
        TIMEOUT_MEMBER_DATA: i64 = "timeout_member_data" "int" "50000";
        /// How long a listener waits for content inspection when the request sets none.
        TIMEOUT_TCP_INSPECT: i64 = "timeout_tcp_inspect" "int" "0";
    }
}

/// The rows of `[amphora_agent]`, `[compute]`, `[controller_worker]`, `[driver_agent]`,
/// `[haproxy_amphora]`, `[health_manager]`, `[house_keeping]`, `[keepalived_vrrp]`, `[task_flow]`,
/// in registration order.
#[rustfmt::skip]
pub(super) const ROWS: &[Opt] = &[
    Opt { section: "amphora_agent", name: "agent_server_ca", kind: "str", default: "/etc/octavia/certs/client_ca.pem", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "agent_server_cert", kind: "str", default: "/etc/octavia/certs/server.pem", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "agent_server_network_dir", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "agent_request_read_timeout", kind: "int", default: "180", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "agent_tls_protocol", kind: "str", default: "TLSv1.2", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "admin_log_targets", kind: "list", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "tenant_log_targets", kind: "list", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "user_log_facility", kind: "int", default: "0", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "administrative_log_facility", kind: "int", default: "1", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "log_protocol", kind: "str", default: "UDP", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "log_retry_count", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "log_retry_interval", kind: "int", default: "2", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "log_queue_size", kind: "int", default: "10000", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "logging_template_override", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "forward_all_logs", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "disable_local_log_storage", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "amphora_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "amphora_agent", name: "amphora_udp_driver", kind: "str", default: "keepalived_lvs", secret: false, aliases: &[], use_: Use::NotApplicable("amphora agent") },
    Opt { section: "compute", name: "max_retries", kind: "int", default: "15", secret: false, aliases: &[], use_: Use::NotApplicable("compute driver (amphorae)") },
    Opt { section: "compute", name: "retry_interval", kind: "int", default: "1", secret: false, aliases: &[], use_: Use::NotApplicable("compute driver (amphorae)") },
    Opt { section: "compute", name: "retry_backoff", kind: "int", default: "1", secret: false, aliases: &[], use_: Use::NotApplicable("compute driver (amphorae)") },
    Opt { section: "compute", name: "retry_max", kind: "int", default: "10", secret: false, aliases: &[], use_: Use::NotApplicable("compute driver (amphorae)") },
    Opt { section: "controller_worker", name: "workers", kind: "int", default: "1", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "amp_active_retries", kind: "int", default: "30", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "amp_active_wait_sec", kind: "int", default: "10", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "amp_flavor_id", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "amp_image_tag", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    controller_worker::AMP_IMAGE_OWNER_ID.opt,
    Opt { section: "controller_worker", name: "amp_ssh_key_name", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "amp_timezone", kind: "str", default: "UTC", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "amp_boot_network_list", kind: "list", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "amp_secgroup_list", kind: "list", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "client_ca", kind: "str", default: "/etc/octavia/certs/ca_01.pem", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "amphora_driver", kind: "str", default: "amphora_haproxy_rest_driver", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    controller_worker::COMPUTE_DRIVER.opt,
    controller_worker::NETWORK_DRIVER.opt,
    controller_worker::VOLUME_DRIVER.opt,
    controller_worker::IMAGE_DRIVER.opt,
    Opt { section: "controller_worker", name: "distributor_driver", kind: "str", default: "distributor_noop_driver", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "statistics_drivers", kind: "list", default: "stats_db", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    controller_worker::LOADBALANCER_TOPOLOGY.opt,
    Opt { section: "controller_worker", name: "user_data_config_drive", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "amphora_delete_retries", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "amphora_delete_retry_interval", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "event_notifications", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "db_commit_retry_attempts", kind: "int", default: "2000", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "db_commit_retry_initial_delay", kind: "int", default: "1", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "db_commit_retry_backoff", kind: "int", default: "1", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "controller_worker", name: "db_commit_retry_max", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker (amphorae)") },
    Opt { section: "driver_agent", name: "status_socket_path", kind: "str", default: "/var/run/octavia/status.sock", secret: false, aliases: &[], use_: Use::NotApplicable("provider agent sockets (the OVN provider runs in-process)") },
    Opt { section: "driver_agent", name: "stats_socket_path", kind: "str", default: "/var/run/octavia/stats.sock", secret: false, aliases: &[], use_: Use::NotApplicable("provider agent sockets (the OVN provider runs in-process)") },
    Opt { section: "driver_agent", name: "get_socket_path", kind: "str", default: "/var/run/octavia/get.sock", secret: false, aliases: &[], use_: Use::NotApplicable("provider agent sockets (the OVN provider runs in-process)") },
    Opt { section: "driver_agent", name: "status_request_timeout", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("provider agent sockets (the OVN provider runs in-process)") },
    Opt { section: "driver_agent", name: "status_max_processes", kind: "int", default: "50", secret: false, aliases: &[], use_: Use::NotApplicable("provider agent sockets (the OVN provider runs in-process)") },
    Opt { section: "driver_agent", name: "stats_request_timeout", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("provider agent sockets (the OVN provider runs in-process)") },
    Opt { section: "driver_agent", name: "stats_max_processes", kind: "int", default: "50", secret: false, aliases: &[], use_: Use::NotApplicable("provider agent sockets (the OVN provider runs in-process)") },
    Opt { section: "driver_agent", name: "get_request_timeout", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("provider agent sockets (the OVN provider runs in-process)") },
    Opt { section: "driver_agent", name: "get_max_processes", kind: "int", default: "50", secret: false, aliases: &[], use_: Use::NotApplicable("provider agent sockets (the OVN provider runs in-process)") },
    Opt { section: "driver_agent", name: "max_process_warning_percent", kind: "float", default: "0.75", secret: false, aliases: &[], use_: Use::NotApplicable("provider agent sockets (the OVN provider runs in-process)") },
    Opt { section: "driver_agent", name: "provider_agent_shutdown_timeout", kind: "int", default: "60", secret: false, aliases: &[], use_: Use::NotApplicable("provider agent sockets (the OVN provider runs in-process)") },
    Opt { section: "driver_agent", name: "enabled_provider_agents", kind: "list", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("provider agent sockets (the OVN provider runs in-process)") },
    Opt { section: "haproxy_amphora", name: "base_path", kind: "str", default: "/var/lib/octavia", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "base_cert_dir", kind: "str", default: "/var/lib/octavia/certs", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "haproxy_template", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "connection_logging", kind: "bool", default: "True", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "connection_max_retries", kind: "int", default: "120", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "connection_retry_interval", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "active_connection_max_retries", kind: "int", default: "15", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "active_connection_retry_interval", kind: "int", default: "2", secret: false, aliases: &["active_connection_rety_interval"], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "failover_connection_max_retries", kind: "int", default: "2", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "failover_connection_retry_interval", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "build_rate_limit", kind: "int", default: "-1", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "build_active_retries", kind: "int", default: "120", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "build_retry_interval", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "haproxy_stick_size", kind: "str", default: "10k", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "user_log_format", kind: "str", default: "{{ project_id }} {{ lb_id }} %f %ci %cp %t %{+Q}r %ST %B %U %[ssl_c_verify] %{+Q}[ssl_c_s_dn] %b %s %Tt %tsc", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "bind_host", kind: "ip", default: "::", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "bind_port", kind: "port", default: "9443", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "lb_network_interface", kind: "str", default: "o-hm0", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "haproxy_cmd", kind: "str", default: "/usr/sbin/haproxy", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "respawn_count", kind: "int", default: "2", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "respawn_interval", kind: "int", default: "2", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "rest_request_conn_timeout", kind: "float", default: "10", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "rest_request_read_timeout", kind: "float", default: "60", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    haproxy_amphora::TIMEOUT_CLIENT_DATA.opt,
    haproxy_amphora::TIMEOUT_MEMBER_CONNECT.opt,
    haproxy_amphora::TIMEOUT_MEMBER_DATA.opt,
    haproxy_amphora::TIMEOUT_TCP_INSPECT.opt,
    Opt { section: "haproxy_amphora", name: "client_cert", kind: "str", default: "/etc/octavia/certs/client.pem", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "server_ca", kind: "str", default: "/etc/octavia/certs/server_ca.pem", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "api_db_commit_retry_attempts", kind: "int", default: "15", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "api_db_commit_retry_initial_delay", kind: "int", default: "1", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "api_db_commit_retry_backoff", kind: "int", default: "1", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "api_db_commit_retry_max", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "haproxy_amphora", name: "default_connection_limit", kind: "int", default: "50000", secret: false, aliases: &[], use_: Use::NotApplicable("amphora haproxy") },
    Opt { section: "health_manager", name: "bind_ip", kind: "ip", default: "127.0.0.1", secret: false, aliases: &[], use_: Use::NotApplicable("health manager (amphorae)") },
    Opt { section: "health_manager", name: "bind_port", kind: "port", default: "5555", secret: false, aliases: &[], use_: Use::NotApplicable("health manager (amphorae)") },
    Opt { section: "health_manager", name: "failover_threads", kind: "int", default: "10", secret: false, aliases: &[], use_: Use::NotApplicable("health manager (amphorae)") },
    Opt { section: "health_manager", name: "health_update_threads", kind: "int", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("health manager (amphorae)") },
    Opt { section: "health_manager", name: "stats_update_threads", kind: "int", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("health manager (amphorae)") },
    Opt { section: "health_manager", name: "heartbeat_key", kind: "str", default: "", secret: true, aliases: &[], use_: Use::NotApplicable("health manager (amphorae)") },
    Opt { section: "health_manager", name: "heartbeat_timeout", kind: "int", default: "60", secret: false, aliases: &[], use_: Use::NotApplicable("health manager (amphorae)") },
    Opt { section: "health_manager", name: "health_check_interval", kind: "int", default: "3", secret: false, aliases: &[], use_: Use::NotApplicable("health manager (amphorae)") },
    Opt { section: "health_manager", name: "sock_rlimit", kind: "int", default: "0", secret: false, aliases: &[], use_: Use::NotApplicable("health manager (amphorae)") },
    Opt { section: "health_manager", name: "failover_threshold", kind: "int", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("health manager (amphorae)") },
    Opt { section: "health_manager", name: "controller_ip_port_list", kind: "list", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("health manager (amphorae)") },
    Opt { section: "health_manager", name: "heartbeat_interval", kind: "int", default: "10", secret: false, aliases: &[], use_: Use::NotApplicable("health manager (amphorae)") },
    Opt { section: "house_keeping", name: "cleanup_interval", kind: "int", default: "30", secret: false, aliases: &[], use_: Use::NotApplicable("housekeeping (amphorae)") },
    Opt { section: "house_keeping", name: "amphora_expiry_age", kind: "int", default: "604800", secret: false, aliases: &[], use_: Use::NotApplicable("housekeeping (amphorae)") },
    Opt { section: "house_keeping", name: "load_balancer_expiry_age", kind: "int", default: "604800", secret: false, aliases: &[], use_: Use::NotApplicable("housekeeping (amphorae)") },
    Opt { section: "house_keeping", name: "cert_interval", kind: "int", default: "3600", secret: false, aliases: &[], use_: Use::NotApplicable("housekeeping (amphorae)") },
    Opt { section: "house_keeping", name: "cert_expiry_buffer", kind: "int", default: "1209600", secret: false, aliases: &[], use_: Use::NotApplicable("housekeeping (amphorae)") },
    Opt { section: "house_keeping", name: "cert_rotate_threads", kind: "int", default: "10", secret: false, aliases: &[], use_: Use::NotApplicable("housekeeping (amphorae)") },
    Opt { section: "keepalived_vrrp", name: "vrrp_advert_int", kind: "int", default: "1", secret: false, aliases: &[], use_: Use::NotApplicable("amphora VRRP") },
    Opt { section: "keepalived_vrrp", name: "vrrp_check_interval", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("amphora VRRP") },
    Opt { section: "keepalived_vrrp", name: "vrrp_fail_count", kind: "int", default: "2", secret: false, aliases: &[], use_: Use::NotApplicable("amphora VRRP") },
    Opt { section: "keepalived_vrrp", name: "vrrp_success_count", kind: "int", default: "2", secret: false, aliases: &[], use_: Use::NotApplicable("amphora VRRP") },
    Opt { section: "keepalived_vrrp", name: "vrrp_garp_refresh_interval", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("amphora VRRP") },
    Opt { section: "keepalived_vrrp", name: "vrrp_garp_refresh_count", kind: "int", default: "2", secret: false, aliases: &[], use_: Use::NotApplicable("amphora VRRP") },
    Opt { section: "task_flow", name: "engine", kind: "str", default: "parallel", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "max_workers", kind: "int", default: "5", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "disable_revert", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "persistence_connection", kind: "str", default: "sqlite://", secret: true, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_enabled", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_backend_driver", kind: "str", default: "redis_taskflow_driver", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_backend_hosts", kind: "list", default: "127.0.0.1", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_backend_port", kind: "port", default: "6379", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_backend_username", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_backend_password", kind: "str", default: "", secret: true, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_backend_namespace", kind: "str", default: "octavia_jobboard", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_redis_backend_db", kind: "int", default: "0", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_redis_sentinel", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_redis_sentinel_username", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_redis_sentinel_password", kind: "str", default: "", secret: true, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_redis_backend_ssl_options", kind: "dict", default: "ssl:False,ssl_ca_certs:None,ssl_cert_reqs:required,ssl_certfile:None,ssl_keyfile:None", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_redis_sentinel_ssl_options", kind: "dict", default: "ssl:False,ssl_ca_certs:None,ssl_cert_reqs:required,ssl_certfile:None,ssl_keyfile:None", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_zookeeper_ssl_options", kind: "dict", default: "certfile:None,keyfile:None,keyfile_password:None,use_ssl:False,verify_certs:True", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_etcd_ssl_options", kind: "dict", default: "ca_cert:None,cert_cert:None,cert_key:None,use_ssl:False", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_etcd_timeout", kind: "int", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_etcd_api_path", kind: "str", default: "", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_expiration_time", kind: "int", default: "30", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
    Opt { section: "task_flow", name: "jobboard_save_logbook", kind: "bool", default: "False", secret: false, aliases: &[], use_: Use::NotApplicable("controller worker task flow") },
];
