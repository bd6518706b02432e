//! Row structs, one per table the API reads or writes. Field names are the column names (octavia/db/models.py);
//! API names differ in places (`enabled` = `admin_state_up`,
//! `rise_threshold` = `max_retries`, `fall_threshold` = `max_retries_down`, `tls_certificate_id`
//! = `default_tls_container_ref`, …). Datetimes are naive UTC. `Option` = a nullable column.
//! A field without a doc comment is exactly its column (`name`, `description`, `project_id`,
//! the statuses as their lookup names, …); the others say what their name does not (units,
//! the API name, what NULL means).

use chrono::NaiveDateTime;
use serde::{Deserialize, Serialize};

use crate::sql::SqlValue;
use provider::{OperatingStatus, ProvisioningStatus};

/// A table's row type: its table name, key column(s) and column list (in the struct's order).
pub trait Record: crate::sql::AnyRow + Clone {
    /// SQL table name (`__tablename__` in octavia/db/models.py).
    const TABLE: &'static str;
    /// Resource display name used in `<Resource> <id> not found.` texts.
    const RESOURCE: &'static str;
    /// The column that [`crate::Tx::get`] looks up (first primary-key column).
    const KEY: &'static str;
    /// Every column, in struct order.
    const COLUMNS: &'static [&'static str];
    /// True when the table has `created_at`/`updated_at` maintained by the ORM.
    const TIMESTAMPS: bool;
    /// True for the root of a status tree, the `load_balancer` row: soft-deleted (a row whose
    /// `provisioning_status` is `DELETED` keeps its statuses against later writes, see
    /// [`crate::Tx::update`]) and the row whose `PENDING_*` writes a commit waits to see
    /// settle ([`crate::Tx::commit`]).
    const ROOT: bool = false;
    /// The column values, in [`Record::COLUMNS`] order.
    fn values(&self) -> Vec<SqlValue>;
    /// The value of the key column.
    fn key(&self) -> String;
}

macro_rules! row {
    (@root) => { true };
    (
        $(#[$m:meta])*
        pub struct $name:ident in $table:literal as $res:literal key $key:ident timestamps $ts:literal $($root:ident)? {
            $( $(#[$fm:meta])* pub $f:ident : $t:ty, )*
        }
    ) => {
        $(#[$m])*
        #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, sqlx::FromRow)]
        #[allow(missing_docs)] // a field without a doc is exactly its column (module doc)
        pub struct $name {
            $( $(#[$fm])* pub $f: $t, )*
        }
        impl Record for $name {
            const TABLE: &'static str = $table;
            const RESOURCE: &'static str = $res;
            const KEY: &'static str = stringify!($key);
            const COLUMNS: &'static [&'static str] = &[$(stringify!($f)),*];
            const TIMESTAMPS: bool = $ts;
            $(const ROOT: bool = row!(@$root);)?
            fn values(&self) -> Vec<SqlValue> {
                vec![$(SqlValue::from(self.$f.clone())),*]
            }
            fn key(&self) -> String {
                self.$key.to_string()
            }
        }
    };
}

row! {
    /// A `load_balancer` row. Soft-deleted: DELETED rows stay until housekeeping purges them.
    pub struct LoadBalancerRow in "load_balancer" as "Load Balancer" key id timestamps true root {
        pub project_id: Option<String>,
        /// uuid (PK).
        pub id: String,
        pub name: Option<String>,
        pub description: Option<String>,
        /// A `provisioning_status` lookup row's name, typed (an unknown name fails the read).
        #[sqlx(try_from = "String")]
        pub provisioning_status: ProvisioningStatus,
        /// An `operating_status` lookup row's name, typed (an unknown name fails the read).
        #[sqlx(try_from = "String")]
        pub operating_status: OperatingStatus,
        /// API `admin_state_up`.
        pub enabled: bool,
        /// `SINGLE` / `ACTIVE_STANDBY` (amphora only).
        pub topology: Option<String>,
        /// Amphora server group.
        pub server_group_id: Option<String>,
        /// Set on insert.
        pub created_at: Option<NaiveDateTime>,
        /// Set on every update.
        pub updated_at: Option<NaiveDateTime>,
        /// Provider name (NULL means `amphora`).
        pub provider: Option<String>,
        pub flavor_id: Option<String>,
        /// Availability zone name.
        pub availability_zone: Option<String>,
    }
}

row! {
    /// A `vip` row (1:1 with its load balancer).
    pub struct VipRow in "vip" as "VIP" key load_balancer_id timestamps false {
        /// The load balancer (PK).
        pub load_balancer_id: String,
        /// VIP address as text (IPv4 or IPv6); NULL until the create's VIP port is made.
        pub ip_address: Option<String>,
        pub port_id: Option<String>,
        pub subnet_id: Option<String>,
        pub network_id: Option<String>,
        /// API `vip_qos_policy_id`: Neutron QoS policy of the VIP port; NULL = none.
        pub qos_policy_id: Option<String>,
        /// True when Octavia created the port (false for the OVN provider).
        pub octavia_owned: Option<bool>,
        /// `normal` / `direct` (server default `normal`).
        pub vnic_type: String,
    }
}

row! {
    /// An `additional_vip` row; PK (load_balancer_id, subnet_id).
    pub struct AdditionalVipRow in "additional_vip" as "Additional VIP" key load_balancer_id timestamps false {
        /// The load balancer.
        pub load_balancer_id: String,
        pub ip_address: Option<String>,
        pub port_id: Option<String>,
        /// Subnet (part of the PK).
        pub subnet_id: String,
        pub network_id: Option<String>,
    }
}

row! {
    /// A `vip_security_group` row; PK (load_balancer_id, sg_id).
    pub struct VipSecurityGroupRow in "vip_security_group" as "VIP Security Group" key load_balancer_id timestamps false {
        /// The load balancer (FK to vip).
        pub load_balancer_id: String,
        /// Security group id.
        pub sg_id: String,
    }
}

row! {
    /// A `listener` row.
    pub struct ListenerRow in "listener" as "Listener" key id timestamps true {
        pub project_id: Option<String>,
        /// uuid (PK).
        pub id: String,
        pub name: Option<String>,
        pub description: Option<String>,
        /// `protocol` lookup name.
        pub protocol: String,
        /// 1..65535.
        pub protocol_port: i32,
        /// -1 = unlimited.
        pub connection_limit: Option<i32>,
        /// Parent load balancer.
        pub load_balancer_id: Option<String>,
        /// API `default_tls_container_ref`.
        pub tls_certificate_id: Option<String>,
        pub default_pool_id: Option<String>,
        #[sqlx(try_from = "String")]
        pub provisioning_status: ProvisioningStatus,
        #[sqlx(try_from = "String")]
        pub operating_status: OperatingStatus,
        /// API `admin_state_up`.
        pub enabled: bool,
        /// Amphora peer port (1025 + n per LB).
        pub peer_port: Option<i32>,
        /// Python pickle of a `dict[str, str]`: use [`crate::unpickle_str_dict`] / [`crate::pickle_str_dict`].
        pub insert_headers: Option<Vec<u8>>,
        /// Set on insert.
        pub created_at: Option<NaiveDateTime>,
        /// Set on every update.
        pub updated_at: Option<NaiveDateTime>,
        /// ms.
        pub timeout_client_data: Option<i32>,
        /// ms.
        pub timeout_member_connect: Option<i32>,
        /// ms.
        pub timeout_member_data: Option<i32>,
        /// ms.
        pub timeout_tcp_inspect: Option<i32>,
        /// API `client_ca_tls_container_ref`.
        pub client_ca_tls_certificate_id: Option<String>,
        /// `NONE` / `OPTIONAL` / `MANDATORY`.
        pub client_authentication: String,
        /// API `client_crl_container_ref`.
        pub client_crl_container_id: Option<String>,
        /// OpenSSL cipher string.
        pub tls_ciphers: Option<String>,
        /// Comma-joined list (`''` = empty list, NULL = unset).
        pub tls_versions: Option<String>,
        /// Comma-joined list.
        pub alpn_protocols: Option<String>,
        /// `Strict-Transport-Security` max-age in seconds; NULL = no HSTS header.
        pub hsts_max_age: Option<i32>,
        /// HSTS `includeSubDomains` directive (only with `hsts_max_age`).
        pub hsts_include_subdomains: Option<bool>,
        /// HSTS `preload` directive (only with `hsts_max_age`).
        pub hsts_preload: Option<bool>,
    }
}

row! {
    /// An `sni` row; PK (listener_id, tls_container_id).
    pub struct SniRow in "sni" as "SNI" key listener_id timestamps false {
        pub listener_id: String,
        pub tls_container_id: String,
        /// Order in the API list.
        pub position: Option<i32>,
    }
}

row! {
    /// A `listener_cidr` row (API `allowed_cidrs`); PK (listener_id, cidr).
    pub struct ListenerCidrRow in "listener_cidr" as "Listener CIDR" key listener_id timestamps false {
        pub listener_id: String,
        /// One allowed source CIDR as text, e.g. `192.0.2.0/24`.
        pub cidr: String,
    }
}

row! {
    /// A `listener_statistics` row; PK (listener_id, amphora_id); amphora_id = listener_id for
    /// provider-reported stats. Counters are absolute; bytes and connections.
    pub struct ListenerStatisticsRow in "listener_statistics" as "Listener Statistics" key listener_id timestamps false {
        /// The listener (no FK).
        pub listener_id: String,
        pub bytes_in: i64,
        pub bytes_out: i64,
        pub active_connections: i32,
        /// Connections since start.
        pub total_connections: i64,
        /// = listener_id for providers.
        pub amphora_id: String,
        pub request_errors: i64,
    }
}

row! {
    /// An `amphora` row (octavia/db/models.py `Amphora`), written by the amphora provider's
    /// Python `octavia-worker`; the API reads it (`/v2/octavia/amphorae`) and sets `status` to
    /// `PENDING_DELETE` on a delete. Soft-deleted: DELETED rows stay until housekeeping purges
    /// them. `status` is a `provisioning_status` lookup name, amphora statuses included
    /// (`BOOTING`, `ALLOCATED`, `READY`, `FAILOVER_STOPPED`, …); `role` one of `amphora_roles`.
    pub struct AmphoraRow in "amphora" as "Amphora" key id timestamps true {
        /// uuid (PK).
        pub id: String,
        /// Nova server id (NULL until the server exists).
        pub compute_id: Option<String>,
        pub status: String,
        /// The load balancer it serves (NULL for an amphora not allocated to one).
        pub load_balancer_id: Option<String>,
        /// Address on the management network (text, IPv4 or IPv6).
        pub lb_network_ip: Option<String>,
        /// Address of its VRRP port on the VIP network.
        pub vrrp_ip: Option<String>,
        /// The VIP address it holds (HA address).
        pub ha_ip: Option<String>,
        pub vrrp_port_id: Option<String>,
        /// The VIP port.
        pub ha_port_id: Option<String>,
        /// `MASTER` / `BACKUP` / `STANDALONE` (NULL before allocation).
        pub role: Option<String>,
        /// Expiry of the amphora agent's certificate.
        pub cert_expiration: Option<NaiveDateTime>,
        /// True while the housekeeping rotates its certificate.
        pub cert_busy: bool,
        /// Interface name of the VRRP port inside the amphora (ACTIVE_STANDBY only).
        pub vrrp_interface: Option<String>,
        /// VRRP router id (ACTIVE_STANDBY only).
        pub vrrp_id: Option<i32>,
        /// VRRP priority (ACTIVE_STANDBY only: 100 MASTER, 90 BACKUP).
        pub vrrp_priority: Option<i32>,
        /// Availability zone of its server.
        pub cached_zone: Option<String>,
        /// Set on insert.
        pub created_at: Option<NaiveDateTime>,
        /// Set on every update.
        pub updated_at: Option<NaiveDateTime>,
        /// Glance image the server was built from.
        pub image_id: Option<String>,
        /// Nova flavor id of the server.
        pub compute_flavor: Option<String>,
    }
}

row! {
    /// A `pool` row.
    pub struct PoolRow in "pool" as "Pool" key id timestamps true {
        pub project_id: Option<String>,
        /// uuid (PK).
        pub id: String,
        pub name: Option<String>,
        pub description: Option<String>,
        /// `protocol` lookup name.
        pub protocol: String,
        /// `algorithm` lookup name.
        pub lb_algorithm: String,
        #[sqlx(try_from = "String")]
        pub operating_status: OperatingStatus,
        /// API `admin_state_up`.
        pub enabled: bool,
        /// Parent load balancer.
        pub load_balancer_id: Option<String>,
        /// Set on insert.
        pub created_at: Option<NaiveDateTime>,
        /// Set on every update.
        pub updated_at: Option<NaiveDateTime>,
        #[sqlx(try_from = "String")]
        pub provisioning_status: ProvisioningStatus,
        /// API `tls_container_ref`.
        pub tls_certificate_id: Option<String>,
        /// API `ca_tls_container_ref`.
        pub ca_tls_certificate_id: Option<String>,
        /// API `crl_container_ref`.
        pub crl_container_id: Option<String>,
        /// Backend re-encryption.
        pub tls_enabled: bool,
        pub tls_ciphers: Option<String>,
        /// Comma-joined list.
        pub tls_versions: Option<String>,
        /// Comma-joined list.
        pub alpn_protocols: Option<String>,
    }
}

row! {
    /// A `session_persistence` row (1:1 with its pool).
    pub struct SessionPersistenceRow in "session_persistence" as "Session Persistence" key pool_id timestamps false {
        /// The pool (PK).
        pub pool_id: String,
        /// `SOURCE_IP` / `HTTP_COOKIE` / `APP_COOKIE`.
        pub r#type: String,
        pub cookie_name: Option<String>,
        /// Seconds (UDP/SCTP).
        pub persistence_timeout: Option<i32>,
        /// Netmask (UDP/SCTP).
        pub persistence_granularity: Option<String>,
    }
}

row! {
    /// A `health_monitor` row (at most one per pool).
    pub struct HealthMonitorRow in "health_monitor" as "Health Monitor" key id timestamps true {
        /// The pool (unique).
        pub pool_id: String,
        /// `health_monitor_type` lookup name.
        pub r#type: String,
        /// Seconds between checks.
        pub delay: i32,
        /// Seconds a probe waits for its answer (API `timeout`).
        pub timeout: i32,
        /// API `max_retries_down`.
        pub fall_threshold: i32,
        /// API `max_retries`.
        pub rise_threshold: i32,
        /// `GET` (the default), `POST`, …: HTTP/HTTPS monitors only, NULL for the other types.
        pub http_method: Option<String>,
        /// Path probed, `/` by default: HTTP/HTTPS monitors only, NULL for the other types.
        pub url_path: Option<String>,
        pub expected_codes: Option<String>,
        /// API `admin_state_up`.
        pub enabled: bool,
        pub project_id: Option<String>,
        #[sqlx(try_from = "String")]
        pub provisioning_status: ProvisioningStatus,
        pub name: Option<String>,
        /// uuid (PK).
        pub id: String,
        /// Set on insert.
        pub created_at: Option<NaiveDateTime>,
        /// Set on every update.
        pub updated_at: Option<NaiveDateTime>,
        #[sqlx(try_from = "String")]
        pub operating_status: OperatingStatus,
        /// 1.0 / 1.1 (FLOAT, single precision: serialise as f32 to print `1.1`).
        pub http_version: Option<f32>,
        pub domain_name: Option<String>,
    }
}

row! {
    /// A `member` row.
    pub struct MemberRow in "member" as "Member" key id timestamps true {
        pub project_id: Option<String>,
        /// uuid (PK).
        pub id: String,
        pub pool_id: String,
        pub subnet_id: Option<String>,
        /// API `address`.
        pub ip_address: Option<String>,
        pub protocol_port: i32,
        /// Weight 0..256.
        pub weight: Option<i32>,
        #[sqlx(try_from = "String")]
        pub operating_status: OperatingStatus,
        /// API `admin_state_up`.
        pub enabled: bool,
        /// Set on insert.
        pub created_at: Option<NaiveDateTime>,
        /// Set on every update.
        pub updated_at: Option<NaiveDateTime>,
        #[sqlx(try_from = "String")]
        pub provisioning_status: ProvisioningStatus,
        pub name: Option<String>,
        pub monitor_address: Option<String>,
        pub monitor_port: Option<i32>,
        pub backup: bool,
        /// `normal` / `direct`.
        pub vnic_type: String,
    }
}

row! {
    /// An `l7policy` row.
    pub struct L7PolicyRow in "l7policy" as "L7Policy" key id timestamps true {
        /// uuid (PK).
        pub id: String,
        pub name: Option<String>,
        pub description: Option<String>,
        pub listener_id: String,
        /// `l7policy_action` lookup name.
        pub action: String,
        /// Target of a `REDIRECT_TO_POOL` action; NULL for the other actions.
        pub redirect_pool_id: Option<String>,
        /// Target of a `REDIRECT_TO_URL` action; NULL for the other actions.
        pub redirect_url: Option<String>,
        /// 1..n per listener, kept dense.
        pub position: i32,
        /// API `admin_state_up`.
        pub enabled: bool,
        #[sqlx(try_from = "String")]
        pub provisioning_status: ProvisioningStatus,
        /// Set on insert.
        pub created_at: Option<NaiveDateTime>,
        /// Set on every update.
        pub updated_at: Option<NaiveDateTime>,
        pub project_id: Option<String>,
        #[sqlx(try_from = "String")]
        pub operating_status: OperatingStatus,
        pub redirect_prefix: Option<String>,
        /// 301/302/303/307/308.
        pub redirect_http_code: Option<i32>,
    }
}

row! {
    /// An `l7rule` row.
    pub struct L7RuleRow in "l7rule" as "L7Rule" key id timestamps true {
        /// uuid (PK).
        pub id: String,
        pub l7policy_id: String,
        /// `l7rule_type` lookup name.
        pub r#type: String,
        /// `l7rule_compare_type` lookup name.
        pub compare_type: String,
        /// Header/cookie name.
        pub key: Option<String>,
        /// Value to compare.
        pub value: String,
        /// Invert the match.
        pub invert: bool,
        #[sqlx(try_from = "String")]
        pub provisioning_status: ProvisioningStatus,
        /// Set on insert.
        pub created_at: Option<NaiveDateTime>,
        /// Set on every update.
        pub updated_at: Option<NaiveDateTime>,
        pub project_id: Option<String>,
        /// API `admin_state_up`.
        pub enabled: bool,
        #[sqlx(try_from = "String")]
        pub operating_status: OperatingStatus,
    }
}

row! {
    /// A `quotas` row: per resource, its limit (`load_balancer`, …: NULL = the `[quotas]`
    /// default, -1 = unlimited) and the API's in-use counter (`in_use_load_balancer`, …:
    /// NULL = 0 in use).
    pub struct QuotaRow in "quotas" as "Quotas" key project_id timestamps false {
        /// Project (PK).
        pub project_id: String,
        pub health_monitor: Option<i32>,
        pub load_balancer: Option<i32>,
        pub listener: Option<i32>,
        pub member: Option<i32>,
        pub pool: Option<i32>,
        pub in_use_health_monitor: Option<i32>,
        pub in_use_load_balancer: Option<i32>,
        pub in_use_listener: Option<i32>,
        pub in_use_member: Option<i32>,
        pub in_use_pool: Option<i32>,
        pub l7policy: Option<i32>,
        pub l7rule: Option<i32>,
        pub in_use_l7policy: Option<i32>,
        pub in_use_l7rule: Option<i32>,
    }
}

row! {
    /// A `flavor_profile` row.
    pub struct FlavorProfileRow in "flavor_profile" as "Flavor profile" key id timestamps false {
        /// uuid (PK).
        pub id: String,
        pub name: String,
        pub provider_name: String,
        /// JSON text.
        pub flavor_data: String,
    }
}

row! {
    /// A `flavor` row.
    pub struct FlavorRow in "flavor" as "Flavor" key id timestamps false {
        /// uuid (PK).
        pub id: String,
        pub name: String,
        pub description: Option<String>,
        /// API `enabled`: false = a new LB naming it gets 400 (`DisabledOption`).
        pub enabled: bool,
        pub flavor_profile_id: String,
    }
}

row! {
    /// An `availability_zone_profile` row.
    pub struct AvailabilityZoneProfileRow in "availability_zone_profile" as "Availability Zone Profile" key id timestamps false {
        /// uuid (PK).
        pub id: String,
        pub name: String,
        pub provider_name: String,
        /// JSON text.
        pub availability_zone_data: String,
    }
}

row! {
    /// An `availability_zone` row (keyed by name).
    pub struct AvailabilityZoneRow in "availability_zone" as "Availability Zone" key name timestamps false {
        /// Name (PK).
        pub name: String,
        pub description: Option<String>,
        /// API `enabled`: false = a new LB naming it gets 400 (`DisabledOption`).
        pub enabled: bool,
        pub availability_zone_profile_id: String,
    }
}

row! {
    /// A `tags` row; PK (resource_id, tag).
    pub struct TagRow in "tags" as "Tag" key resource_id timestamps false {
        /// Owner id (any LBaaS object).
        pub resource_id: String,
        pub tag: String,
    }
}
