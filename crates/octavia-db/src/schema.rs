//! The Octavia schema at alembic head `fabf4983846b`, as data, rendered to MariaDB or SQLite DDL.
//!
//! Column types, nullability, defaults, keys and constraint names are those a MySQL
//! `octavia-db-manage upgrade head` produces (`spec/db-schema.md`; checked against the live
//! reference DB by `tests/schema.rs`). SQLite gets the closest equivalents.

use ColType::*;

/// The alembic revision the schema corresponds to (`spec/db-schema.md`, "Alembic head revision").
pub const ALEMBIC_HEAD: &str = "fabf4983846b";

/// A column type, named by its MariaDB rendering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ColType {
    /// `varchar(n)`.
    Varchar(u32),
    /// `int(11)`.
    Int,
    /// `bigint(20)`.
    BigInt,
    /// `tinyint(1)` (SQLAlchemy Boolean).
    Bool,
    /// `datetime` (naive UTC).
    DateTime,
    /// `float`.
    Float,
    /// `blob` (SQLAlchemy PickleType).
    Blob,
}

/// What a column can hold, as the API's validation must respect it (one variant per
/// [`ColType`], named by its MariaDB rendering).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnCapacity {
    /// `varchar(n)`: at most `n` characters (utf8mb4).
    Varchar(u32),
    /// `int(11)`: `i32`.
    Int,
    /// `bigint(20)`: `i64`.
    BigInt,
    /// `tinyint(1)`.
    Bool,
    /// `datetime`.
    DateTime,
    /// `float`: IEEE single precision (|x| ≤ 3.402823466e38).
    Float,
    /// `blob`: at most 65,535 bytes.
    Blob,
}

/// One column of the schema: `(table, column, capacity, nullable)`, every table in creation
/// order; for callers that must prove their values fit (the API's validation tests).
pub fn columns() -> Vec<(&'static str, &'static str, ColumnCapacity, bool)> {
    TABLES
        .iter()
        .flat_map(|t| {
            t.columns.iter().map(move |c| {
                let cap = match c.ty {
                    Varchar(n) => ColumnCapacity::Varchar(n),
                    Int => ColumnCapacity::Int,
                    BigInt => ColumnCapacity::BigInt,
                    Bool => ColumnCapacity::Bool,
                    DateTime => ColumnCapacity::DateTime,
                    Float => ColumnCapacity::Float,
                    Blob => ColumnCapacity::Blob,
                };
                (t.name, c.name, cap, c.nullable)
            })
        })
        .collect()
}

/// A server default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Default {
    Text(&'static str),
    Int(i64),
    Now,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Column {
    pub name: &'static str,
    pub ty: ColType,
    pub nullable: bool,
    pub default: Option<Default>,
    pub auto_increment: bool,
}

const fn col(
    name: &'static str,
    ty: ColType,
    nullable: bool,
    default: Option<Default>,
    auto_increment: bool,
) -> Column {
    Column {
        name,
        ty,
        nullable,
        default,
        auto_increment,
    }
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct ForeignKey {
    pub name: &'static str,
    pub column: &'static str,
    pub ref_table: &'static str,
    pub ref_column: &'static str,
}

const fn fk(
    name: &'static str,
    column: &'static str,
    ref_table: &'static str,
    ref_column: &'static str,
) -> ForeignKey {
    ForeignKey {
        name,
        column,
        ref_table,
        ref_column,
    }
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Table {
    pub name: &'static str,
    pub columns: &'static [Column],
    pub primary_key: &'static [&'static str],
    pub unique: &'static [(&'static str, &'static [&'static str])],
    pub indexes: &'static [(&'static str, &'static [&'static str])],
    pub foreign_keys: &'static [ForeignKey],
}

/// SQL dialect of a backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    MySql,
    Sqlite,
}

fn quote_list(cols: &[&str]) -> String {
    cols.iter()
        .map(|c| format!("`{c}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Table {
    /// `CREATE TABLE IF NOT EXISTS` plus, on SQLite, the `CREATE INDEX` statements.
    pub(crate) fn ddl(&self, dialect: Dialect) -> Vec<String> {
        let mut parts = Vec::new();
        let mut inline_pk = false;
        for c in self.columns {
            let ty = match (dialect, c.ty) {
                (Dialect::MySql, Varchar(n)) | (Dialect::Sqlite, Varchar(n)) => {
                    format!("varchar({n})")
                }
                (Dialect::MySql, Int) => "int(11)".into(),
                (Dialect::Sqlite, Int) => "INTEGER".into(),
                (Dialect::MySql, BigInt) => "bigint(20)".into(),
                (Dialect::Sqlite, BigInt) => "BIGINT".into(),
                (Dialect::MySql, Bool) => "tinyint(1)".into(),
                (Dialect::Sqlite, Bool) => "BOOLEAN".into(),
                (_, DateTime) => "datetime".into(),
                (_, Float) => "float".into(),
                (_, Blob) => "blob".into(),
            };
            let mut s = format!("`{}` {ty}", c.name);
            if c.auto_increment && dialect == Dialect::Sqlite {
                // SQLite only auto-increments an INTEGER PRIMARY KEY declared on the column.
                s.push_str(" PRIMARY KEY AUTOINCREMENT");
                inline_pk = true;
            } else {
                s.push_str(if c.nullable { " NULL" } else { " NOT NULL" });
            }
            match (c.default, dialect) {
                (Some(Default::Text(t)), _) => s.push_str(&format!(" DEFAULT '{t}'")),
                (Some(Default::Int(i)), _) => s.push_str(&format!(" DEFAULT {i}")),
                (Some(Default::Now), Dialect::MySql) => s.push_str(" DEFAULT current_timestamp()"),
                (Some(Default::Now), Dialect::Sqlite) => s.push_str(" DEFAULT CURRENT_TIMESTAMP"),
                (None, _) => {}
            }
            if c.auto_increment && dialect == Dialect::MySql {
                s.push_str(" AUTO_INCREMENT");
            }
            parts.push(s);
        }
        if !inline_pk {
            parts.push(format!("PRIMARY KEY ({})", quote_list(self.primary_key)));
        }
        for (name, cols) in self.unique {
            parts.push(match dialect {
                Dialect::MySql => format!("UNIQUE KEY `{name}` ({})", quote_list(cols)),
                Dialect::Sqlite => format!("CONSTRAINT `{name}` UNIQUE ({})", quote_list(cols)),
            });
        }
        if dialect == Dialect::MySql {
            for (name, cols) in self.indexes {
                parts.push(format!("KEY `{name}` ({})", quote_list(cols)));
            }
        }
        for f in self.foreign_keys {
            parts.push(format!(
                "CONSTRAINT `{}` FOREIGN KEY (`{}`) REFERENCES `{}` (`{}`)",
                f.name, f.column, f.ref_table, f.ref_column
            ));
        }
        let tail = match dialect {
            Dialect::MySql => " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4",
            Dialect::Sqlite => "",
        };
        let mut out = vec![format!(
            "CREATE TABLE IF NOT EXISTS `{}` (\n  {}\n){tail}",
            self.name,
            parts.join(",\n  ")
        )];
        if dialect == Dialect::Sqlite {
            for (name, cols) in self.indexes {
                out.push(format!(
                    "CREATE INDEX IF NOT EXISTS `{name}` ON `{}` ({})",
                    self.name,
                    quote_list(cols)
                ));
            }
        }
        out
    }
}

/// Rows the migrations insert into the lookup tables (`spec/db-schema.md` §1), by table.
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

/// The nil uuid used by the DELETED-PLACEHOLDER flavor / AZ rows (e37941b010db, c761c8a71579).
pub const PLACEHOLDER_ID: &str = "00000000-0000-0000-0000-000000000000";

/// Placeholder and singleton rows (`spec/db-schema.md` §1 "Other seeded / placeholder rows"),
/// in FK order. Each is an insert that is skipped when the key already exists.
pub(crate) fn seed_rows() -> Vec<(&'static str, &'static [&'static str], Vec<&'static str>)> {
    vec![
        (
            "flavor_profile",
            &["id", "name", "provider_name", "flavor_data"],
            vec![PLACEHOLDER_ID, "DELETED-PLACEHOLDER", "DELETED", "{}"],
        ),
        (
            "flavor",
            &["id", "name", "description", "enabled", "flavor_profile_id"],
            vec![
                PLACEHOLDER_ID,
                "DELETED-PLACEHOLDER",
                "Placeholder for DELETED LBs with DELETED flavors",
                "0",
                PLACEHOLDER_ID,
            ],
        ),
        (
            "availability_zone_profile",
            &["id", "name", "provider_name", "availability_zone_data"],
            vec![PLACEHOLDER_ID, "DELETED-PLACEHOLDER", "DELETED", "{}"],
        ),
        (
            "availability_zone",
            &[
                "name",
                "description",
                "enabled",
                "availability_zone_profile_id",
            ],
            vec![
                PLACEHOLDER_ID,
                "Placeholder for DELETED LBs with DELETED availability zones",
                "0",
                PLACEHOLDER_ID,
            ],
        ),
        ("amphora_build_slots", &["id", "slots_used"], vec!["1", "0"]),
    ]
}

/// Every table at head, in creation (foreign-key) order.
pub(crate) const TABLES: &[Table] = &[
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
    Table {
        name: "flavor_profile",
        columns: &[
            col("id", Varchar(36), false, None, false),
            col("name", Varchar(255), false, None, false),
            col("provider_name", Varchar(255), false, None, false),
            col("flavor_data", Varchar(4096), false, None, false),
        ],
        primary_key: &["id"],
        unique: &[],
        indexes: &[],
        foreign_keys: &[],
    },
    Table {
        name: "flavor",
        columns: &[
            col("id", Varchar(36), false, None, false),
            col("name", Varchar(255), false, None, false),
            col("description", Varchar(255), true, None, false),
            col("enabled", Bool, false, None, false),
            col("flavor_profile_id", Varchar(36), false, None, false),
        ],
        primary_key: &["id"],
        unique: &[("uq_flavor_name", &["name"])],
        indexes: &[("fk_flavor_flavor_profile_id", &["flavor_profile_id"])],
        foreign_keys: &[fk(
            "fk_flavor_flavor_profile_id",
            "flavor_profile_id",
            "flavor_profile",
            "id",
        )],
    },
    Table {
        name: "availability_zone_profile",
        columns: &[
            col("id", Varchar(36), false, None, false),
            col("name", Varchar(255), false, None, false),
            col("provider_name", Varchar(255), false, None, false),
            col("availability_zone_data", Varchar(4096), false, None, false),
        ],
        primary_key: &["id"],
        unique: &[],
        indexes: &[],
        foreign_keys: &[],
    },
    Table {
        name: "availability_zone",
        columns: &[
            col("name", Varchar(255), false, None, false),
            col("description", Varchar(255), true, None, false),
            col("enabled", Bool, false, None, false),
            col(
                "availability_zone_profile_id",
                Varchar(36),
                false,
                None,
                false,
            ),
        ],
        primary_key: &["name"],
        unique: &[],
        indexes: &[("fk_az_az_profile_id", &["availability_zone_profile_id"])],
        foreign_keys: &[fk(
            "fk_az_az_profile_id",
            "availability_zone_profile_id",
            "availability_zone_profile",
            "id",
        )],
    },
    Table {
        name: "load_balancer",
        columns: &[
            col("project_id", Varchar(36), true, None, false),
            col("id", Varchar(36), false, None, false),
            col("name", Varchar(255), true, None, false),
            col("description", Varchar(255), true, None, false),
            col("provisioning_status", Varchar(16), false, None, false),
            col("operating_status", Varchar(16), false, None, false),
            col("enabled", Bool, false, None, false),
            col("topology", Varchar(36), true, None, false),
            col("server_group_id", Varchar(36), true, None, false),
            col("created_at", DateTime, true, None, false),
            col("updated_at", DateTime, true, None, false),
            col("provider", Varchar(64), true, None, false),
            col("flavor_id", Varchar(36), true, None, false),
            col("availability_zone", Varchar(255), true, None, false),
        ],
        primary_key: &["id"],
        unique: &[],
        indexes: &[
            (
                "fk_load_balancer_provisioning_status_name",
                &["provisioning_status"],
            ),
            (
                "fk_load_balancer_operating_status_name",
                &["operating_status"],
            ),
            ("fk_lb_topology_name", &["topology"]),
            ("fk_loadbalancer_flavor_id", &["flavor_id"]),
            (
                "fk_load_balancer_availability_zone_name",
                &["availability_zone"],
            ),
        ],
        foreign_keys: &[
            fk("fk_lb_topology_name", "topology", "lb_topology", "name"),
            fk(
                "fk_load_balancer_availability_zone_name",
                "availability_zone",
                "availability_zone",
                "name",
            ),
            fk(
                "fk_load_balancer_operating_status_name",
                "operating_status",
                "operating_status",
                "name",
            ),
            fk(
                "fk_load_balancer_provisioning_status_name",
                "provisioning_status",
                "provisioning_status",
                "name",
            ),
            fk("fk_loadbalancer_flavor_id", "flavor_id", "flavor", "id"),
        ],
    },
    Table {
        name: "vip",
        columns: &[
            col("load_balancer_id", Varchar(36), false, None, false),
            col("ip_address", Varchar(64), true, None, false),
            col("port_id", Varchar(36), true, None, false),
            col("subnet_id", Varchar(36), true, None, false),
            col("network_id", Varchar(36), true, None, false),
            col("qos_policy_id", Varchar(36), true, None, false),
            col("octavia_owned", Bool, true, None, false),
            col(
                "vnic_type",
                Varchar(64),
                false,
                Some(Default::Text("normal")),
                false,
            ),
        ],
        primary_key: &["load_balancer_id"],
        unique: &[],
        indexes: &[],
        foreign_keys: &[fk(
            "fk_vip_load_balancer_id",
            "load_balancer_id",
            "load_balancer",
            "id",
        )],
    },
    Table {
        name: "vip_security_group",
        columns: &[
            col("load_balancer_id", Varchar(36), false, None, false),
            col("sg_id", Varchar(36), false, None, false),
        ],
        primary_key: &["load_balancer_id", "sg_id"],
        unique: &[],
        indexes: &[],
        foreign_keys: &[fk(
            "fk_vip_sg_vip_lb_id",
            "load_balancer_id",
            "vip",
            "load_balancer_id",
        )],
    },
    Table {
        name: "additional_vip",
        columns: &[
            col("load_balancer_id", Varchar(36), false, None, false),
            col("ip_address", Varchar(64), true, None, false),
            col("port_id", Varchar(36), true, None, false),
            col("subnet_id", Varchar(36), false, None, false),
            col("network_id", Varchar(36), true, None, false),
        ],
        primary_key: &["load_balancer_id", "subnet_id"],
        unique: &[],
        indexes: &[("ix_additional_vip_load_balancer_id", &["load_balancer_id"])],
        foreign_keys: &[fk(
            "fk_add_vip_load_balancer_id",
            "load_balancer_id",
            "load_balancer",
            "id",
        )],
    },
    Table {
        name: "pool",
        columns: &[
            col("project_id", Varchar(36), true, None, false),
            col("id", Varchar(36), false, None, false),
            col("name", Varchar(255), true, None, false),
            col("description", Varchar(255), true, None, false),
            col("protocol", Varchar(16), false, None, false),
            col("lb_algorithm", Varchar(255), false, None, false),
            col("operating_status", Varchar(16), false, None, false),
            col("enabled", Bool, false, None, false),
            col("load_balancer_id", Varchar(36), true, None, false),
            col("created_at", DateTime, true, None, false),
            col("updated_at", DateTime, true, None, false),
            col("provisioning_status", Varchar(16), false, None, false),
            col("tls_certificate_id", Varchar(255), true, None, false),
            col("ca_tls_certificate_id", Varchar(255), true, None, false),
            col("crl_container_id", Varchar(255), true, None, false),
            col("tls_enabled", Bool, false, Some(Default::Int(0)), false),
            col("tls_ciphers", Varchar(2048), true, None, false),
            col("tls_versions", Varchar(512), true, None, false),
            col("alpn_protocols", Varchar(512), true, None, false),
        ],
        primary_key: &["id"],
        unique: &[],
        indexes: &[
            ("fk_pool_protocol_name", &["protocol"]),
            ("fk_pool_operating_status_name", &["operating_status"]),
            ("fk_pool_algorithm_name", &["lb_algorithm"]),
            ("load_balancer_id", &["load_balancer_id"]),
            ("fk_pool_provisioning_status_name", &["provisioning_status"]),
        ],
        foreign_keys: &[
            fk(
                "fk_pool_algorithm_name",
                "lb_algorithm",
                "algorithm",
                "name",
            ),
            fk(
                "fk_pool_operating_status_name",
                "operating_status",
                "operating_status",
                "name",
            ),
            fk("fk_pool_protocol_name", "protocol", "protocol", "name"),
            fk(
                "fk_pool_provisioning_status_name",
                "provisioning_status",
                "provisioning_status",
                "name",
            ),
            fk("pool_ibfk_1", "load_balancer_id", "load_balancer", "id"),
        ],
    },
    Table {
        name: "listener",
        columns: &[
            col("project_id", Varchar(36), true, None, false),
            col("id", Varchar(36), false, None, false),
            col("name", Varchar(255), true, None, false),
            col("description", Varchar(255), true, None, false),
            col("protocol", Varchar(16), false, None, false),
            col("protocol_port", Int, false, None, false),
            col("connection_limit", Int, true, None, false),
            col("load_balancer_id", Varchar(36), true, None, false),
            col("tls_certificate_id", Varchar(255), true, None, false),
            col("default_pool_id", Varchar(36), true, None, false),
            col("provisioning_status", Varchar(16), false, None, false),
            col("operating_status", Varchar(16), false, None, false),
            col("enabled", Bool, false, None, false),
            col("peer_port", Int, true, None, false),
            col("insert_headers", Blob, true, None, false),
            col("created_at", DateTime, true, None, false),
            col("updated_at", DateTime, true, None, false),
            col("timeout_client_data", Int, true, None, false),
            col("timeout_member_connect", Int, true, None, false),
            col("timeout_member_data", Int, true, None, false),
            col("timeout_tcp_inspect", Int, true, None, false),
            col(
                "client_ca_tls_certificate_id",
                Varchar(255),
                true,
                None,
                false,
            ),
            col(
                "client_authentication",
                Varchar(10),
                false,
                Some(Default::Text("NONE")),
                false,
            ),
            col("client_crl_container_id", Varchar(255), true, None, false),
            col("tls_ciphers", Varchar(2048), true, None, false),
            col("tls_versions", Varchar(512), true, None, false),
            col("alpn_protocols", Varchar(512), true, None, false),
            col("hsts_max_age", Int, true, None, false),
            col("hsts_include_subdomains", Bool, true, None, false),
            col("hsts_preload", Bool, true, None, false),
        ],
        primary_key: &["id"],
        unique: &[(
            "uq_listener_load_balancer_id_protocol_port",
            &["load_balancer_id", "protocol", "protocol_port"],
        )],
        indexes: &[
            ("fk_listener_protocol_name", &["protocol"]),
            (
                "fk_listener_provisioning_status_name",
                &["provisioning_status"],
            ),
            ("fk_listener_operating_status_name", &["operating_status"]),
            ("fk_listener_pool_id", &["default_pool_id"]),
            ("client_authentication", &["client_authentication"]),
        ],
        foreign_keys: &[
            fk(
                "fk_listener_load_balancer_id",
                "load_balancer_id",
                "load_balancer",
                "id",
            ),
            fk(
                "fk_listener_operating_status_name",
                "operating_status",
                "operating_status",
                "name",
            ),
            fk("fk_listener_pool_id", "default_pool_id", "pool", "id"),
            fk("fk_listener_protocol_name", "protocol", "protocol", "name"),
            fk(
                "fk_listener_provisioning_status_name",
                "provisioning_status",
                "provisioning_status",
                "name",
            ),
            fk(
                "listener_ibfk_1",
                "client_authentication",
                "client_authentication_mode",
                "name",
            ),
        ],
    },
    Table {
        name: "sni",
        columns: &[
            col("listener_id", Varchar(36), false, None, false),
            col("tls_container_id", Varchar(128), false, None, false),
            col("position", Int, true, None, false),
        ],
        primary_key: &["listener_id", "tls_container_id"],
        unique: &[],
        indexes: &[],
        foreign_keys: &[fk("fk_sni_listener_id", "listener_id", "listener", "id")],
    },
    Table {
        name: "listener_cidr",
        columns: &[
            col("listener_id", Varchar(36), false, None, false),
            col("cidr", Varchar(64), false, None, false),
        ],
        primary_key: &["listener_id", "cidr"],
        unique: &[],
        indexes: &[],
        foreign_keys: &[fk(
            "fk_listener_cidr_listener_id",
            "listener_id",
            "listener",
            "id",
        )],
    },
    Table {
        name: "listener_statistics",
        columns: &[
            col("listener_id", Varchar(36), false, None, false),
            col("bytes_in", BigInt, false, None, false),
            col("bytes_out", BigInt, false, None, false),
            col("active_connections", Int, false, None, false),
            col("total_connections", BigInt, false, None, false),
            col("amphora_id", Varchar(36), false, None, false),
            col("request_errors", BigInt, false, None, false),
        ],
        primary_key: &["listener_id", "amphora_id"],
        unique: &[],
        indexes: &[("fk_listener_statistic_amphora_id", &["amphora_id"])],
        foreign_keys: &[],
    },
    Table {
        name: "session_persistence",
        columns: &[
            col("pool_id", Varchar(36), false, None, false),
            col("type", Varchar(16), false, None, false),
            col("cookie_name", Varchar(255), true, None, false),
            col("persistence_timeout", Int, true, None, false),
            col("persistence_granularity", Varchar(64), true, None, false),
        ],
        primary_key: &["pool_id"],
        unique: &[],
        indexes: &[(
            "fk_session_persistence_session_persistence_type_name",
            &["type"],
        )],
        foreign_keys: &[
            fk("fk_session_persistence_pool_id", "pool_id", "pool", "id"),
            fk(
                "fk_session_persistence_session_persistence_type_name",
                "type",
                "session_persistence_type",
                "name",
            ),
        ],
    },
    Table {
        name: "health_monitor",
        columns: &[
            col("pool_id", Varchar(36), false, None, false),
            col("type", Varchar(36), false, None, false),
            col("delay", Int, false, None, false),
            col("timeout", Int, false, None, false),
            col("fall_threshold", Int, false, None, false),
            col("rise_threshold", Int, false, None, false),
            col("http_method", Varchar(16), true, None, false),
            col("url_path", Varchar(255), true, None, false),
            col("expected_codes", Varchar(64), true, None, false),
            col("enabled", Bool, false, None, false),
            col("project_id", Varchar(36), true, None, false),
            col("provisioning_status", Varchar(16), false, None, false),
            col("name", Varchar(255), true, None, false),
            col("id", Varchar(36), false, None, false),
            col("created_at", DateTime, true, None, false),
            col("updated_at", DateTime, true, None, false),
            col("operating_status", Varchar(16), false, None, false),
            col("http_version", Float, true, None, false),
            col("domain_name", Varchar(255), true, None, false),
        ],
        primary_key: &["id"],
        unique: &[("uq_health_monitor_pool", &["pool_id"])],
        indexes: &[
            ("fk_health_monitor_health_monitor_type_name", &["type"]),
            (
                "fk_health_monitor_provisioning_status_name",
                &["provisioning_status"],
            ),
            (
                "fk_health_monitor_operating_status_name",
                &["operating_status"],
            ),
        ],
        foreign_keys: &[
            fk(
                "fk_health_monitor_health_monitor_type_name",
                "type",
                "health_monitor_type",
                "name",
            ),
            fk(
                "fk_health_monitor_operating_status_name",
                "operating_status",
                "operating_status",
                "name",
            ),
            fk("fk_health_monitor_pool_id", "pool_id", "pool", "id"),
            fk(
                "fk_health_monitor_provisioning_status_name",
                "provisioning_status",
                "provisioning_status",
                "name",
            ),
        ],
    },
    Table {
        name: "member",
        columns: &[
            col("project_id", Varchar(36), true, None, false),
            col("id", Varchar(36), false, None, false),
            col("pool_id", Varchar(36), false, None, false),
            col("subnet_id", Varchar(36), true, None, false),
            col("ip_address", Varchar(64), true, None, false),
            col("protocol_port", Int, false, None, false),
            col("weight", Int, true, None, false),
            col("operating_status", Varchar(16), false, None, false),
            col("enabled", Bool, false, None, false),
            col("created_at", DateTime, true, None, false),
            col("updated_at", DateTime, true, None, false),
            col("provisioning_status", Varchar(16), false, None, false),
            col("name", Varchar(255), true, None, false),
            col("monitor_address", Varchar(64), true, None, false),
            col("monitor_port", Int, true, None, false),
            col("backup", Bool, false, None, false),
            col(
                "vnic_type",
                Varchar(64),
                false,
                Some(Default::Text("normal")),
                false,
            ),
        ],
        primary_key: &["id"],
        unique: &[(
            "uq_member_pool_id_address_protocol_port",
            &["pool_id", "ip_address", "protocol_port"],
        )],
        indexes: &[
            ("fk_member_operating_status_name", &["operating_status"]),
            (
                "fk_member_provisioning_status_name",
                &["provisioning_status"],
            ),
        ],
        foreign_keys: &[
            fk(
                "fk_member_operating_status_name",
                "operating_status",
                "operating_status",
                "name",
            ),
            fk("fk_member_pool_id", "pool_id", "pool", "id"),
            fk(
                "fk_member_provisioning_status_name",
                "provisioning_status",
                "provisioning_status",
                "name",
            ),
        ],
    },
    Table {
        name: "l7policy",
        columns: &[
            col("id", Varchar(36), false, None, false),
            col("name", Varchar(255), true, None, false),
            col("description", Varchar(255), true, None, false),
            col("listener_id", Varchar(36), false, None, false),
            col("action", Varchar(36), false, None, false),
            col("redirect_pool_id", Varchar(36), true, None, false),
            col("redirect_url", Varchar(255), true, None, false),
            col("position", Int, false, None, false),
            col("enabled", Bool, false, None, false),
            col("provisioning_status", Varchar(16), false, None, false),
            col("created_at", DateTime, true, None, false),
            col("updated_at", DateTime, true, None, false),
            col("project_id", Varchar(36), true, None, false),
            col("operating_status", Varchar(16), false, None, false),
            col("redirect_prefix", Varchar(255), true, None, false),
            col("redirect_http_code", Int, true, None, false),
        ],
        primary_key: &["id"],
        unique: &[],
        indexes: &[
            ("fk_l7policy_listener_id", &["listener_id"]),
            ("fk_l7policy_pool_id", &["redirect_pool_id"]),
            ("fk_l7policy_l7policy_action_name", &["action"]),
            ("fk_l7policy_operating_status_name", &["operating_status"]),
            (
                "fk_l7policy_provisioning_status_name",
                &["provisioning_status"],
            ),
        ],
        foreign_keys: &[
            fk(
                "fk_l7policy_l7policy_action_name",
                "action",
                "l7policy_action",
                "name",
            ),
            fk("fk_l7policy_listener_id", "listener_id", "listener", "id"),
            fk(
                "fk_l7policy_operating_status_name",
                "operating_status",
                "operating_status",
                "name",
            ),
            fk("fk_l7policy_pool_id", "redirect_pool_id", "pool", "id"),
            fk(
                "fk_l7policy_provisioning_status_name",
                "provisioning_status",
                "provisioning_status",
                "name",
            ),
        ],
    },
    Table {
        name: "l7rule",
        columns: &[
            col("id", Varchar(36), false, None, false),
            col("l7policy_id", Varchar(36), false, None, false),
            col("type", Varchar(36), false, None, false),
            col("compare_type", Varchar(36), false, None, false),
            col("key", Varchar(255), true, None, false),
            col("value", Varchar(255), false, None, false),
            col("invert", Bool, false, None, false),
            col("provisioning_status", Varchar(16), false, None, false),
            col("created_at", DateTime, true, None, false),
            col("updated_at", DateTime, true, None, false),
            col("project_id", Varchar(36), true, None, false),
            col("enabled", Bool, false, Some(Default::Int(1)), false),
            col("operating_status", Varchar(16), false, None, false),
        ],
        primary_key: &["id"],
        unique: &[],
        indexes: &[
            ("fk_l7rule_l7policy_id", &["l7policy_id"]),
            ("fk_l7rule_l7rule_type_name", &["type"]),
            ("fk_l7rule_l7rule_compare_type_name", &["compare_type"]),
            (
                "fk_l7rule_provisioning_status_name",
                &["provisioning_status"],
            ),
            ("fk_l7rule_operating_status_name", &["operating_status"]),
        ],
        foreign_keys: &[
            fk("fk_l7rule_l7policy_id", "l7policy_id", "l7policy", "id"),
            fk(
                "fk_l7rule_l7rule_compare_type_name",
                "compare_type",
                "l7rule_compare_type",
                "name",
            ),
            fk("fk_l7rule_l7rule_type_name", "type", "l7rule_type", "name"),
            fk(
                "fk_l7rule_operating_status_name",
                "operating_status",
                "operating_status",
                "name",
            ),
            fk(
                "fk_l7rule_provisioning_status_name",
                "provisioning_status",
                "provisioning_status",
                "name",
            ),
        ],
    },
    Table {
        name: "tags",
        columns: &[
            col("resource_id", Varchar(36), false, None, false),
            col("tag", Varchar(255), false, None, false),
        ],
        primary_key: &["resource_id", "tag"],
        unique: &[],
        indexes: &[("ix_tags_tag", &["tag"])],
        foreign_keys: &[],
    },
    Table {
        name: "quotas",
        columns: &[
            col("project_id", Varchar(36), false, None, false),
            col("health_monitor", Int, true, None, false),
            col("load_balancer", Int, true, None, false),
            col("listener", Int, true, None, false),
            col("member", Int, true, None, false),
            col("pool", Int, true, None, false),
            col("in_use_health_monitor", Int, true, None, false),
            col("in_use_load_balancer", Int, true, None, false),
            col("in_use_listener", Int, true, None, false),
            col("in_use_member", Int, true, None, false),
            col("in_use_pool", Int, true, None, false),
            col("l7policy", Int, true, None, false),
            col("l7rule", Int, true, None, false),
            col("in_use_l7policy", Int, true, None, false),
            col("in_use_l7rule", Int, true, None, false),
        ],
        primary_key: &["project_id"],
        unique: &[],
        indexes: &[],
        foreign_keys: &[],
    },
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
