//! `upgrade()` on both backends, and the MariaDB schema compared with the reference `octavia`
//! database made by `octavia-db-manage upgrade head`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use std::collections::BTreeSet;

use common::*;
use octavia_db::*;
use sqlx::{Connection, MySqlConnection};

/// The reference DB: STACK_OCTAVIA_DB_URL, else the `octavia` DB on STACK_KEEL_DB_URL's server
/// with the `octavia` user that ci/stack/up.sh creates (ci/stack/common.sh `DB_PASS`).
fn reference_url() -> String {
    if let Ok(u) = std::env::var("STACK_OCTAVIA_DB_URL") {
        return u;
    }
    let keel = keel_db_url();
    let host = keel
        .rsplit('@')
        .next()
        .and_then(|h| h.split('/').next())
        .unwrap()
        .to_string();
    format!("mysql://octavia:refstack-db-pass@{host}/octavia")
}

const LOOKUPS: &[&str] = &[
    "provisioning_status",
    "operating_status",
    "protocol",
    "algorithm",
    "session_persistence_type",
    "health_monitor_type",
    "lb_topology",
    "amphora_roles",
    "vrrp_auth_method",
    "l7rule_type",
    "l7rule_compare_type",
    "l7policy_action",
    "client_authentication_mode",
];

async fn rows(conn: &mut MySqlConnection, sql: &str, schema: &str) -> BTreeSet<Vec<String>> {
    use sqlx::Row;
    let rows = sqlx::query(sql)
        .bind(schema)
        .fetch_all(&mut *conn)
        .await
        .unwrap();
    rows.iter()
        .map(|r| {
            (0..r.len())
                .map(|i| {
                    r.try_get::<Option<String>, _>(i)
                        .unwrap()
                        .unwrap_or_else(|| "<NULL>".into())
                })
                .collect()
        })
        .collect()
}

/// Everything that describes a schema, as comparable sets.
async fn describe(url: &str, schema: &str) -> Vec<(&'static str, BTreeSet<Vec<String>>)> {
    let mut conn = MySqlConnection::connect(url).await.unwrap();
    let mut out = vec![
        ("tables", rows(&mut conn, "SELECT CAST(TABLE_NAME AS CHAR) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME NOT LIKE 'keel\\_%'", schema).await),
        ("columns", rows(&mut conn,
            "SELECT CAST(TABLE_NAME AS CHAR), CAST(COLUMN_NAME AS CHAR), CAST(ORDINAL_POSITION AS CHAR), \
             CAST(COLUMN_TYPE AS CHAR), CAST(IS_NULLABLE AS CHAR), CAST(COLUMN_DEFAULT AS CHAR), CAST(EXTRA AS CHAR) \
             FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME NOT LIKE 'keel\\_%'", schema).await),
        ("indexes", rows(&mut conn,
            "SELECT CAST(TABLE_NAME AS CHAR), CAST(INDEX_NAME AS CHAR), CAST(SEQ_IN_INDEX AS CHAR), \
             CAST(COLUMN_NAME AS CHAR), CAST(NON_UNIQUE AS CHAR) \
             FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND INDEX_NAME NOT LIKE 'keel\\_ix\\_%' AND TABLE_NAME NOT LIKE 'keel\\_%'", schema).await),
        ("foreign keys", rows(&mut conn,
            "SELECT CAST(TABLE_NAME AS CHAR), CAST(CONSTRAINT_NAME AS CHAR), CAST(COLUMN_NAME AS CHAR), \
             CAST(REFERENCED_TABLE_NAME AS CHAR), CAST(REFERENCED_COLUMN_NAME AS CHAR) \
             FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = ? AND REFERENCED_TABLE_NAME IS NOT NULL", schema).await),
    ];
    for t in LOOKUPS {
        let sql = format!("SELECT CAST(`name` AS CHAR) FROM `{t}` WHERE ? IS NOT NULL");
        out.push((t, rows(&mut conn, &sql, schema).await));
    }
    let seeds = [
        (
            "alembic_version",
            "SELECT CAST(version_num AS CHAR) FROM alembic_version WHERE ? IS NOT NULL",
        ),
        (
            "amphora_build_slots",
            "SELECT CAST(id AS CHAR), CAST(slots_used AS CHAR) FROM amphora_build_slots WHERE ? IS NOT NULL",
        ),
        (
            "spares_pool",
            "SELECT CAST(COUNT(*) AS CHAR) FROM spares_pool WHERE ? IS NOT NULL",
        ),
        (
            "flavor",
            "SELECT CAST(id AS CHAR), CAST(name AS CHAR), CAST(description AS CHAR), CAST(enabled AS CHAR), CAST(flavor_profile_id AS CHAR) FROM flavor WHERE id = '00000000-0000-0000-0000-000000000000' AND ? IS NOT NULL",
        ),
        (
            "flavor_profile",
            "SELECT CAST(id AS CHAR), CAST(name AS CHAR), CAST(provider_name AS CHAR), CAST(flavor_data AS CHAR) FROM flavor_profile WHERE id = '00000000-0000-0000-0000-000000000000' AND ? IS NOT NULL",
        ),
        (
            "availability_zone",
            "SELECT CAST(name AS CHAR), CAST(description AS CHAR), CAST(enabled AS CHAR), CAST(availability_zone_profile_id AS CHAR) FROM availability_zone WHERE name = '00000000-0000-0000-0000-000000000000' AND ? IS NOT NULL",
        ),
        (
            "availability_zone_profile",
            "SELECT CAST(id AS CHAR), CAST(name AS CHAR), CAST(provider_name AS CHAR), CAST(availability_zone_data AS CHAR) FROM availability_zone_profile WHERE id = '00000000-0000-0000-0000-000000000000' AND ? IS NOT NULL",
        ),
    ];
    for (name, sql) in seeds {
        out.push((name, rows(&mut conn, sql, schema).await));
    }
    conn.close().await.unwrap();
    out
}

fn db_name(url: &str) -> String {
    url.rsplit('/')
        .next()
        .unwrap()
        .split('?')
        .next()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn mariadb_schema_equals_reference() {
    let t = TestDb::mariadb().await;
    t.db.upgrade().await.unwrap();
    let ours = describe(&t.url, &db_name(&t.url)).await;
    let reference_url = reference_url();
    let theirs = describe(&reference_url, "octavia").await;
    for ((what, a), (_, b)) in ours.iter().zip(theirs.iter()) {
        let missing: Vec<_> = b.difference(a).collect();
        let extra: Vec<_> = a.difference(b).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "{what}: missing {missing:?}\nextra {extra:?}"
        );
        assert!(!a.is_empty(), "{what}: empty");
    }
    t.drop_db().await;
}

/// Keel's list indexes (`LIST_INDEXES`) in `schema`: `(table, index, position, column)`.
async fn keel_indexes(url: &str, schema: &str) -> BTreeSet<Vec<String>> {
    let mut conn = MySqlConnection::connect(url).await.unwrap();
    let out = rows(
        &mut conn,
        "SELECT CAST(TABLE_NAME AS CHAR), CAST(INDEX_NAME AS CHAR), CAST(SEQ_IN_INDEX AS CHAR), \
         CAST(COLUMN_NAME AS CHAR) FROM information_schema.STATISTICS \
         WHERE TABLE_SCHEMA = ? AND INDEX_NAME LIKE 'keel\\_ix\\_%'",
        schema,
    )
    .await;
    conn.close().await.unwrap();
    out
}

/// Keel's own tables (`keel_*`) in `schema`, sorted.
async fn keel_tables(url: &str, schema: &str) -> Vec<String> {
    let mut conn = MySqlConnection::connect(url).await.unwrap();
    let out = rows(
        &mut conn,
        "SELECT CAST(TABLE_NAME AS CHAR) FROM information_schema.TABLES \
         WHERE TABLE_SCHEMA = ? AND TABLE_NAME LIKE 'keel\\_%'",
        schema,
    )
    .await;
    conn.close().await.unwrap();
    out.into_iter().flatten().collect()
}

fn expected_keel_indexes() -> BTreeSet<Vec<String>> {
    LIST_INDEXES
        .iter()
        .flat_map(|(name, table, cols)| {
            cols.iter().enumerate().map(move |(i, c)| {
                vec![
                    table.to_string(),
                    name.to_string(),
                    (i + 1).to_string(),
                    c.to_string(),
                ]
            })
        })
        .collect()
}

#[tokio::test]
async fn mariadb_schema_has_the_list_indexes() {
    let t = TestDb::mariadb().await;
    t.db.upgrade().await.unwrap();
    assert_eq!(
        keel_indexes(&t.url, &db_name(&t.url)).await,
        expected_keel_indexes()
    );
    t.drop_db().await;
}

/// On the database `octavia-db-manage upgrade head` made, `upgrade` adds the list indexes and
/// `keel_deployment`, nothing else (the revision stays head, every other table, column, index
/// and key as it was); `remove_keel_objects` then leaves the reference's database exactly as
/// it found it.
#[tokio::test]
async fn upgrade_on_reference_db_at_head_adds_only_the_list_indexes() {
    let url = reference_url();
    let before = describe(&url, "octavia").await;
    let db = Database::connect(&url).await.unwrap();
    assert_eq!(
        db.current_revision().await.unwrap().as_deref(),
        Some(ALEMBIC_HEAD)
    );
    db.upgrade().await.unwrap();
    db.upgrade().await.unwrap();
    assert_eq!(
        db.current_revision().await.unwrap().as_deref(),
        Some(ALEMBIC_HEAD)
    );
    assert_eq!(keel_indexes(&url, "octavia").await, expected_keel_indexes());
    assert_eq!(describe(&url, "octavia").await, before);
    assert_eq!(keel_tables(&url, "octavia").await, [DEPLOYMENT_TABLE]);
    assert!(db.deployment_id().await.unwrap().is_some());
    // the way back (`keel db remove-keel-objects`): exactly the reference's database again
    let removed = db.remove_keel_objects().await.unwrap();
    assert_eq!(removed.len(), LIST_INDEXES.len() + 1, "{removed:?}");
    assert!(keel_indexes(&url, "octavia").await.is_empty());
    assert!(keel_tables(&url, "octavia").await.is_empty());
    assert_eq!(describe(&url, "octavia").await, before);
    assert_eq!(db.deployment_id().await.unwrap(), None);
    db.remove_keel_objects().await.unwrap();
    db.close().await;
}

#[tokio::test]
async fn upgrade_is_idempotent_on_both_backends() {
    for mysql in common::backends() {
        let t = if mysql {
            TestDb::mariadb().await
        } else {
            TestDb::sqlite().await
        };
        assert_eq!(t.db.current_revision().await.unwrap(), None);
        t.db.upgrade().await.unwrap();
        t.db.upgrade().await.unwrap();
        assert_eq!(
            t.db.current_revision().await.unwrap().as_deref(),
            Some(ALEMBIC_HEAD)
        );
        let mut tx = t.db.begin_read().await.unwrap();
        let ps: Vec<String> = tx
            .fetch_scalars(
                "SELECT `name` FROM `provisioning_status` ORDER BY `name`",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(ps.len(), 10, "{ps:?}");
        let slots: Vec<i64> = tx
            .fetch_scalars("SELECT COUNT(*) FROM `spares_pool`", vec![])
            .await
            .unwrap();
        assert_eq!(slots, vec![1]);
        let f = tx.get::<FlavorRow>(PLACEHOLDER_ID).await.unwrap();
        assert_eq!(f.name, "DELETED-PLACEHOLDER");
        assert!(!f.enabled);
        let az = tx.get::<AvailabilityZoneRow>(PLACEHOLDER_ID).await.unwrap();
        assert_eq!(az.availability_zone_profile_id, PLACEHOLDER_ID);
        drop(tx);
        t.drop_db().await;
    }
}

/// The SQLite DB has the reference's tables and, per table, its column names in order (Keel's
/// own `keel_*` tables left out on both sides: a Keel that ran on the reference's database, as
/// in a migration, leaves `keel_deployment` there).
#[tokio::test]
async fn sqlite_tables_and_columns_match_reference() {
    let t = TestDb::sqlite().await;
    t.db.upgrade().await.unwrap();
    let mut conn = MySqlConnection::connect(&reference_url()).await.unwrap();
    use sqlx::Row;
    let ref_cols: Vec<(String, String)> = sqlx::query(
        "SELECT CAST(TABLE_NAME AS CHAR), CAST(COLUMN_NAME AS CHAR) FROM information_schema.COLUMNS \
         WHERE TABLE_SCHEMA = 'octavia' AND TABLE_NAME NOT LIKE 'keel\\_%' \
         ORDER BY TABLE_NAME, ORDINAL_POSITION",
    )
    .fetch_all(&mut conn)
    .await
    .unwrap()
    .iter()
    .map(|r| (r.get::<String, _>(0), r.get::<String, _>(1)))
    .collect();
    let mut tx = t.db.begin_read().await.unwrap();
    let tables: Vec<String> = tx
        .fetch_scalars("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'keel_%' ORDER BY name", vec![])
        .await
        .unwrap();
    let mut ours = Vec::new();
    for tname in &tables {
        let cols: Vec<String> = tx
            .fetch_scalars(
                &format!("SELECT name FROM pragma_table_info('{tname}') ORDER BY cid"),
                vec![],
            )
            .await
            .unwrap();
        ours.extend(cols.into_iter().map(|c| (tname.clone(), c)));
    }
    assert_eq!(ours, ref_cols);
    drop(tx);
    t.drop_db().await;
}

#[tokio::test]
async fn connect_accepts_oslo_urls_and_rejects_others() {
    let keel = keel_db_url();
    let oslo = keel.replacen("mysql://", "mysql+pymysql://", 1);
    let db = Database::connect(&format!("{oslo}?charset=utf8"))
        .await
        .unwrap();
    assert!(db.is_mysql());
    db.close().await;
    let err = Database::connect("postgresql://u:secret@h/db")
        .await
        .unwrap_err();
    assert!(matches!(err, DbError::Url { .. }), "{err}");
    assert!(!err.to_string().contains("secret"), "{err}");
    let mem = Database::connect("sqlite::memory:").await.unwrap();
    mem.upgrade().await.unwrap();
    assert_eq!(
        mem.current_revision().await.unwrap().as_deref(),
        Some(ALEMBIC_HEAD)
    );
}
