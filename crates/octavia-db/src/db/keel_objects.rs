//! What Keel adds beside the reference schema, and the way back: the list indexes
//! ([`crate::LIST_INDEXES`], `keel_ix_*`) and Keel's one table, `keel_deployment`: one row
//! holding this deployment's identity, a UUID made the first time `keel db upgrade` (or
//! `keel serve`) runs on the database. Every VIP port Keel creates is tagged with it
//! (ovn-provider `ports::deployment_tag`), so that a sweep proves a port is its own before it
//! deletes it. A second Keel on another database has another identity; the Python service
//! tags nothing. A copy of the database (a restored backup) carries the same identity, as it
//! carries the same load balancers.
//!
//! No migration of the reference names these objects: `octavia-db-manage upgrade`/`downgrade`
//! run with them in place (alembic compares only `alembic_version`), and
//! [`Database::remove_keel_objects`] (`keel db remove-keel-objects`) drops them all.

use super::{DEPLOYMENT_TABLE, Database, Pool};
use crate::error::DbError;
use crate::sql::SqlValue;

/// Its DDL: a one-row table (`singleton` = 1), the same on both backends.
const CREATE_DEPLOYMENT: &str = "CREATE TABLE IF NOT EXISTS `keel_deployment` (\
     `singleton` TINYINT NOT NULL PRIMARY KEY, \
     `deployment_id` VARCHAR(36) NOT NULL, \
     `created_at` DATETIME NOT NULL)";

impl Database {
    /// Runs one DDL statement outside any transaction (DDL auto-commits on MariaDB).
    async fn ddl(&self, stmt: &str) -> Result<(), DbError> {
        match &self.pool {
            Pool::MySql(p) => {
                sqlx::query(stmt).execute(p).await?;
            }
            Pool::Sqlite(p) => {
                sqlx::query(stmt).execute(p).await?;
            }
        }
        Ok(())
    }

    /// Creates `keel_deployment` and its row when missing (idempotent; concurrent callers
    /// agree on the first committed row) and returns the deployment identity. Called by
    /// [`Database::upgrade`].
    pub async fn ensure_deployment(&self) -> Result<String, DbError> {
        self.ddl(CREATE_DEPLOYMENT).await?;
        let insert = if self.is_mysql() {
            "INSERT IGNORE INTO keel_deployment (singleton, deployment_id, created_at) \
             VALUES (1, ?, ?)"
        } else {
            "INSERT OR IGNORE INTO keel_deployment (singleton, deployment_id, created_at) \
             VALUES (1, ?, ?)"
        };
        let mut tx = self.begin().await?;
        tx.execute(
            insert,
            vec![
                SqlValue::Text(uuid::Uuid::new_v4().to_string()),
                SqlValue::Time(crate::now()),
            ],
        )
        .await?;
        tx.commit().await?;
        self.deployment_id()
            .await?
            .ok_or_else(|| DbError::Schema("keel_deployment has no row after its insert".into()))
    }

    /// The deployment identity, `None` when the database has none (never upgraded by Keel,
    /// or its Keel objects removed). Reads only.
    pub async fn deployment_id(&self) -> Result<Option<String>, DbError> {
        let mut tx = self.begin_read().await?;
        if !tx.table_exists(DEPLOYMENT_TABLE).await? {
            return Ok(None);
        }
        tx.fetch_optional_scalar(
            "SELECT deployment_id FROM keel_deployment WHERE singleton = 1",
            vec![],
        )
        .await
    }

    /// `keel db remove-keel-objects`: drops every `keel_ix_*` index and `keel_deployment`,
    /// leaving exactly the reference's schema (idempotent). Returns the names of the objects
    /// the statements covered. The VIP ports tagged with the identity keep their tag; a
    /// later `keel db upgrade` makes a new identity, so they are then never swept.
    pub async fn remove_keel_objects(&self) -> Result<Vec<String>, DbError> {
        let mut removed = Vec::new();
        for (name, table, _) in crate::LIST_INDEXES {
            let stmt = if self.is_mysql() {
                format!("DROP INDEX IF EXISTS `{name}` ON `{table}`")
            } else {
                format!("DROP INDEX IF EXISTS `{name}`")
            };
            self.ddl(&stmt).await?;
            removed.push((*name).to_string());
        }
        self.ddl("DROP TABLE IF EXISTS `keel_deployment`").await?;
        removed.push(DEPLOYMENT_TABLE.to_string());
        Ok(removed)
    }
}
