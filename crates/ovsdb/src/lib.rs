//! Keel's RFC 7047 OVSDB client.
//!
//! One long-lived connection per database per process ([`Client`]), holding an in-memory
//! [`Snapshot`]-able replica of the monitored tables that every reader shares, kept current
//! from `update2` notifications (`monitor_cond`, falling back to `monitor`). Writes go through
//! [`Transaction`]s of typed [`Operation`]s, made JSON once on the wire; when
//! [`Client::transact`] returns, the replica already shows the effect. Reconnects (capped
//! exponential backoff) resync the replica fully and report the differences as [`Change`]
//! events.
//!
//! ```no_run
//! # async fn demo() -> ovsdb::Result<()> {
//! use ovsdb::{Client, Condition, MonitorSpec, Mutation, Transaction, Value};
//! let nb = Client::connect("tcp:127.0.0.1:6641", "OVN_Northbound",
//!     MonitorSpec::new().table("Load_Balancer").table("Logical_Switch")).await?;
//! let res = nb.transact(Transaction::new("OVN_Northbound").insert("Load_Balancer",
//!     [("name", Value::from("lb1")), ("protocol", Value::set(["tcp"])),
//!      ("vips", Value::str_map([("10.0.0.10:80", "10.0.0.5:8080")]))], None)).await?;
//! let uuid = res[0].uuid.unwrap_or_default();
//! let snap = nb.replica();
//! let lb = snap.row("Load_Balancer", &uuid);
//! # let _ = (lb, Condition::uuid(uuid), Mutation::add("x", 1)); Ok(()) }
//! ```

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

mod client;
mod conn;
mod error;
pub mod framing;
mod index;
mod monitor;
mod operation;
mod options;
mod remote;
mod replica;
mod row;
pub mod rpc;
pub mod schema;
mod server_db;
mod session;
mod shared;
mod tls;
mod txn;
mod value;

pub use client::Client;
pub use error::{Cause, Error, Result, TxnError, TxnErrorKind};
pub use index::{Index, KeyFn};
pub use operation::{Columns, Condition, Datum, Mutation, Operation, WaitUntil};
pub use options::{ClientOptions, ConnectionState, MonitorSpec};
pub use remote::Remote;
pub use replica::{Change, Snapshot, Table};
pub use row::Row;
pub use schema::DatabaseSchema;
pub use tls::SslFiles;
pub use txn::{OpResult, Transaction, TxnOutcome};
pub use uuid::Uuid;
pub use value::{Atom, Value};
