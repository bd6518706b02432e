//! The Octavia database: schema at alembic head `fabf4983846b` (MariaDB, or SQLite as the
//! embedded default), row structs and repository functions, the LB lock / quota building blocks
//! the API composes inside one transaction, and the status updater (driver_updater semantics).
//!
//! Entry points: [`Database::connect`], [`Database::upgrade`], [`Database::begin`] → [`Tx`]
//! (repository methods: [`Tx::get`], [`Tx::list`], [`Tx::insert`], [`Tx::update`],
//! [`Tx::lock_lb_for_child`], [`Tx::check_quota`], …), and [`StatusUpdater`]
//! (`impl provider::StatusSink`).
//!
//! Sources: `octavia/db/models.py` and the alembic migrations (schema), `octavia/db/repositories.py`,
//! `octavia/api/drivers/driver_agent/driver_updater.py` (status reports).
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build()?.block_on(async {
//! use octavia_db::{Database, LoadBalancerRow};
//!
//! let db = Database::connect("sqlite::memory:").await?; // or mysql+pymysql://… from octavia.conf
//! db.upgrade().await?; // the schema at alembic head, as `octavia-db-manage upgrade head`
//! let mut tx = db.begin().await?;
//! assert!(tx.find::<LoadBalancerRow>("no-such-id").await?.is_none());
//! tx.commit().await?;
//! # Ok::<(), octavia_db::DbError>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod amphora;
mod attachments;
mod db;
mod domain;
mod error;
pub mod lease;
mod page;
mod pickle;
mod repo;
mod rows;
mod schema;
pub mod settle;
mod sql;
mod status;

pub use amphora::AmphoraStatRow;
pub use attachments::{LbAttachments, ListenerAttachments, PoolAttachments};
pub use db::{DEPLOYMENT_TABLE, Database, PoolSettings, PoolUse, Tx, now};
pub use domain::{HasProvisioningStatus, QuotaLimits, QuotaResource, QuotaUpdate};
pub use error::DbError;
pub use page::{Cond, PageQuery};
pub use pickle::{pickle_str_dict, unpickle_str_dict};
pub use repo::{ListQuery, SortDir};
pub use rows::*;
pub use schema::{ALEMBIC_HEAD, ColumnCapacity, LIST_INDEXES, PLACEHOLDER_ID, columns};
pub use sql::{AnyRow, AnyScalar, SqlValue};
pub use status::StatusUpdater;
