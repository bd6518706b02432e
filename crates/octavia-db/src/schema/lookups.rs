//! The lookup tables (the enumerations Octavia stores as rows: statuses, protocols,
//! algorithms, …) and the rows the migrations put in them.

use super::model::ColType::*;
use super::model::*;

/// Rows the migrations insert into the lookup tables (octavia/db/migration/alembic_migrations), by table: the
/// migrations' data, so the `provisioning_status` rows include the amphora statuses (`READY`,
/// …) that `provider::ProvisioningStatus` has no variant for (a test checks the enums are
/// these rows).
pub(crate) const LOOKUP_ROWS: &[(&str, &[&str])] = &[
    (
        "provisioning_status",
        &[
            "ACTIVE",
            "PENDING_CREATE",
            "PENDING_UPDATE",
            "PENDING_DELETE",
            "DELETED",
            "ERROR",
            "READY",
            "BOOTING",
            "ALLOCATED",
            "FAILOVER_STOPPED",
        ],
    ),
    (
        "operating_status",
        &[
            "ONLINE",
            "OFFLINE",
            "DEGRADED",
            "ERROR",
            "NO_MONITOR",
            "DRAINING",
        ],
    ),
    (
        "protocol",
        &[
            "HTTP",
            "HTTPS",
            "TCP",
            "TERMINATED_HTTPS",
            "PROXY",
            "UDP",
            "PROXYV2",
            "SCTP",
            "PROMETHEUS",
        ],
    ),
    (
        "algorithm",
        &[
            "ROUND_ROBIN",
            "LEAST_CONNECTIONS",
            "SOURCE_IP",
            "SOURCE_IP_PORT",
        ],
    ),
    (
        "session_persistence_type",
        &["SOURCE_IP", "HTTP_COOKIE", "APP_COOKIE"],
    ),
    (
        "health_monitor_type",
        &[
            "HTTP",
            "HTTPS",
            "TCP",
            "PING",
            "TLS-HELLO",
            "UDP-CONNECT",
            "SCTP",
        ],
    ),
    ("lb_topology", &["SINGLE", "ACTIVE_STANDBY"]),
    ("amphora_roles", &["MASTER", "BACKUP", "STANDALONE"]),
    ("vrrp_auth_method", &["PASS", "AH"]),
    (
        "l7rule_type",
        &[
            "HOST_NAME",
            "PATH",
            "FILE_TYPE",
            "HEADER",
            "COOKIE",
            "SSL_CONN_HAS_CERT",
            "SSL_VERIFY_RESULT",
            "SSL_DN_FIELD",
        ],
    ),
    (
        "l7rule_compare_type",
        &["REGEX", "STARTS_WITH", "ENDS_WITH", "CONTAINS", "EQUAL_TO"],
    ),
    (
        "l7policy_action",
        &[
            "REJECT",
            "REDIRECT_TO_URL",
            "REDIRECT_TO_POOL",
            "REDIRECT_PREFIX",
        ],
    ),
    (
        "client_authentication_mode",
        &["NONE", "OPTIONAL", "MANDATORY"],
    ),
];

/// The lookup tables, in creation order.
pub(super) const LOOKUP_TABLES: &[Table] = &[
    Table {
        name: "provisioning_status",
        columns: &[
            col("name", Varchar(30), false, None, false),
            col("description", Varchar(255), true, None, false),
        ],
        primary_key: &["name"],
        unique: &[],
        indexes: &[],
        foreign_keys: &[],
    },
    Table {
        name: "operating_status",
        columns: &[
            col("name", Varchar(30), false, None, false),
            col("description", Varchar(255), true, None, false),
        ],
        primary_key: &["name"],
        unique: &[],
        indexes: &[],
        foreign_keys: &[],
    },
    Table {
        name: "protocol",
        columns: &[
            col("name", Varchar(30), false, None, false),
            col("description", Varchar(255), true, None, false),
        ],
        primary_key: &["name"],
        unique: &[],
        indexes: &[],
        foreign_keys: &[],
    },
    Table {
        name: "algorithm",
        columns: &[
            col("name", Varchar(255), false, None, false),
            col("description", Varchar(255), true, None, false),
        ],
        primary_key: &["name"],
        unique: &[],
        indexes: &[],
        foreign_keys: &[],
    },
    Table {
        name: "session_persistence_type",
        columns: &[
            col("name", Varchar(30), false, None, false),
            col("description", Varchar(255), true, None, false),
        ],
        primary_key: &["name"],
        unique: &[],
        indexes: &[],
        foreign_keys: &[],
    },
    Table {
        name: "health_monitor_type",
        columns: &[
            col("name", Varchar(30), false, None, false),
            col("description", Varchar(255), true, None, false),
        ],
        primary_key: &["name"],
        unique: &[],
        indexes: &[],
        foreign_keys: &[],
    },
    Table {
        name: "lb_topology",
        columns: &[
            col("name", Varchar(36), false, None, false),
            col("description", Varchar(255), true, None, false),
        ],
        primary_key: &["name"],
        unique: &[],
        indexes: &[],
        foreign_keys: &[],
    },
    Table {
        name: "amphora_roles",
        columns: &[
            col("name", Varchar(36), false, None, false),
            col("description", Varchar(255), true, None, false),
        ],
        primary_key: &["name"],
        unique: &[],
        indexes: &[],
        foreign_keys: &[],
    },
    Table {
        name: "vrrp_auth_method",
        columns: &[
            col("name", Varchar(36), false, None, false),
            col("description", Varchar(255), true, None, false),
        ],
        primary_key: &["name"],
        unique: &[],
        indexes: &[],
        foreign_keys: &[],
    },
    Table {
        name: "l7rule_type",
        columns: &[
            col("name", Varchar(36), false, None, false),
            col("description", Varchar(255), true, None, false),
        ],
        primary_key: &["name"],
        unique: &[],
        indexes: &[],
        foreign_keys: &[],
    },
    Table {
        name: "l7rule_compare_type",
        columns: &[
            col("name", Varchar(36), false, None, false),
            col("description", Varchar(255), true, None, false),
        ],
        primary_key: &["name"],
        unique: &[],
        indexes: &[],
        foreign_keys: &[],
    },
    Table {
        name: "l7policy_action",
        columns: &[
            col("name", Varchar(36), false, None, false),
            col("description", Varchar(255), true, None, false),
        ],
        primary_key: &["name"],
        unique: &[],
        indexes: &[],
        foreign_keys: &[],
    },
    Table {
        name: "client_authentication_mode",
        columns: &[col("name", Varchar(10), false, None, false)],
        primary_key: &["name"],
        unique: &[],
        indexes: &[],
        foreign_keys: &[],
    },
];

#[cfg(test)]
mod tests {
    use super::LOOKUP_ROWS;

    #[test]
    fn status_enums_are_the_lookup_rows() {
        let rows = |table: &str| {
            LOOKUP_ROWS
                .iter()
                .find(|(t, _)| *t == table)
                .map(|(_, r)| r.to_vec())
                .unwrap_or_default()
        };
        let prov = rows("provisioning_status");
        assert_eq!(
            prov[..provider::ProvisioningStatus::NAMES.len()],
            *provider::ProvisioningStatus::NAMES
        );
        assert_eq!(rows("operating_status"), provider::OperatingStatus::NAMES);
    }
}
