//! The tables of the amphora driver (amphorae, their health and build slots, VRRP groups,
//! spares), which Keel creates for schema compatibility and the amphora provider's Python
//! worker fills (Keel's API reads `amphora` and sets an amphora `PENDING_DELETE`,
//! [`crate::AmphoraRow`]), and `alembic_version`.

use super::model::ColType::*;
use super::model::*;

/// The amphora-driver tables and `alembic_version`, in creation order.
pub(super) const AMPHORA_TABLES: &[Table] = &[
    Table {
        name: "amphora",
        columns: &[
            col("id", Varchar(36), false, None, false),
            col("compute_id", Varchar(36), true, None, false),
            col("status", Varchar(36), false, None, false),
            col("load_balancer_id", Varchar(36), true, None, false),
            col("lb_network_ip", Varchar(64), true, None, false),
            col("vrrp_ip", Varchar(64), true, None, false),
            col("ha_ip", Varchar(64), true, None, false),
            col("vrrp_port_id", Varchar(36), true, None, false),
            col("ha_port_id", Varchar(36), true, None, false),
            col("role", Varchar(36), true, None, false),
            col("cert_expiration", DateTime, true, None, false),
            col("cert_busy", Bool, false, None, false),
            col("vrrp_interface", Varchar(16), true, None, false),
            col("vrrp_id", Int, true, None, false),
            col("vrrp_priority", Int, true, None, false),
            col("cached_zone", Varchar(255), true, None, false),
            col("created_at", DateTime, true, None, false),
            col("updated_at", DateTime, true, None, false),
            col("image_id", Varchar(36), true, None, false),
            col("compute_flavor", Varchar(255), true, None, false),
        ],
        primary_key: &["id"],
        unique: &[],
        indexes: &[
            ("fk_amphora_load_balancer_id", &["load_balancer_id"]),
            ("fk_amphora_provisioning_status_name", &["status"]),
            ("fk_amphora_roles_name", &["role"]),
        ],
        foreign_keys: &[
            fk(
                "fk_amphora_load_balancer_id",
                "load_balancer_id",
                "load_balancer",
                "id",
            ),
            fk(
                "fk_amphora_provisioning_status_name",
                "status",
                "provisioning_status",
                "name",
            ),
            fk("fk_amphora_roles_name", "role", "amphora_roles", "name"),
        ],
    },
    Table {
        name: "amphora_health",
        columns: &[
            col("amphora_id", Varchar(36), false, None, false),
            col("last_update", DateTime, false, None, false),
            col("busy", Bool, false, None, false),
        ],
        primary_key: &["amphora_id"],
        unique: &[],
        indexes: &[],
        foreign_keys: &[],
    },
    Table {
        name: "amphora_build_slots",
        columns: &[
            col("id", Int, false, None, true),
            col("slots_used", Int, true, None, false),
        ],
        primary_key: &["id"],
        unique: &[],
        indexes: &[],
        foreign_keys: &[],
    },
    Table {
        name: "amphora_build_request",
        columns: &[
            col("amphora_id", Varchar(36), false, None, false),
            col("priority", Int, true, None, false),
            col("created_time", DateTime, false, None, false),
            col("status", Varchar(16), false, None, false),
        ],
        primary_key: &["amphora_id"],
        unique: &[],
        indexes: &[],
        foreign_keys: &[],
    },
    Table {
        name: "vrrp_group",
        columns: &[
            col("load_balancer_id", Varchar(36), false, None, false),
            col("vrrp_group_name", Varchar(36), true, None, false),
            col("vrrp_auth_type", Varchar(16), true, None, false),
            col("vrrp_auth_pass", Varchar(36), true, None, false),
            col("advert_int", Int, true, None, false),
        ],
        primary_key: &["load_balancer_id"],
        unique: &[],
        indexes: &[(
            "fk_load_balancer_vrrp_auth_method_name",
            &["vrrp_auth_type"],
        )],
        foreign_keys: &[
            fk(
                "fk_load_balancer_vrrp_auth_method_name",
                "vrrp_auth_type",
                "vrrp_auth_method",
                "name",
            ),
            fk(
                "fk_vrrp_group_load_balancer_id",
                "load_balancer_id",
                "load_balancer",
                "id",
            ),
        ],
    },
    Table {
        name: "amphora_member_port",
        columns: &[
            col("port_id", Varchar(36), false, None, false),
            col("amphora_id", Varchar(36), false, None, false),
            col("network_id", Varchar(36), true, None, false),
            col("created_at", DateTime, true, None, false),
            col("updated_at", DateTime, true, None, false),
        ],
        primary_key: &["port_id"],
        unique: &[],
        indexes: &[("ix_amphora_member_port_amphora_id", &["amphora_id"])],
        foreign_keys: &[fk(
            "fk_member_port_amphora_id",
            "amphora_id",
            "amphora",
            "id",
        )],
    },
    Table {
        name: "spares_pool",
        columns: &[col(
            "updated_at",
            DateTime,
            false,
            Some(Default::Now),
            false,
        )],
        primary_key: &["updated_at"],
        unique: &[],
        indexes: &[],
        foreign_keys: &[],
    },
    Table {
        name: "alembic_version",
        columns: &[col("version_num", Varchar(32), false, None, false)],
        primary_key: &["version_num"],
        unique: &[],
        indexes: &[],
        foreign_keys: &[],
    },
];
