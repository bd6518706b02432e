//! The OVN provider driver (seed 000): Octavia load balancers as OVN Northbound
//! `Load_Balancer` rows.
//!
//! Map (seed 000 section → module):
//! * §1.2 storage keys → [`external_ids`]; `vips` framing → [`vips`]; NB rows and
//!   operations → [`nb`]; the SB rows the agent reads → [`sb`]; one-transaction edits →
//!   [`edit`].
//! * §2 load balancer → [`lb`]; §3 listener → [`listener`]; §4 pool → [`pool`];
//!   §5 member → [`member`]; §6 health monitor → [`hm`].
//! * synchronous checks of every method → [`validate`]; §8 statuses → [`status`];
//!   provider flavors (Keel's, not the reference's) → [`flavor`]; a listener's
//!   `allowed_cidrs` (the reference refuses it) → [`cidrs`].
//! * §1.1 request queue → [`queue`]; the `ProviderDriver` itself → [`driver`]; the
//!   executor of its queued jobs (`job.rs`, `executor.rs`: one planner call per request).
//! * provider models → planner requests → [`requests`]; Neutron port work → [`ports`];
//!   why a job failed → [`error`]; the NB seam and its OVSDB implementation → [`ovsdb_nb`].
//! * the agent (event streams, lag rescan) → [`agent`]; who may act as it, across Keel
//!   and the Python agent → [`leadership`]; its event planners (router
//!   ports, VIP FIPs) → [`events`]; `maintenance.py` → [`maintenance`]; §7 `ovn-db-sync` →
//!   [`sync`], on the one NB simulator [`sim`].

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub mod agent;
pub mod cidrs;
pub mod driver;
pub mod edit;
pub mod error;
pub mod events;
mod executor;
pub mod external_ids;
pub mod facts;
pub mod flavor;
pub mod hm;
mod job;
pub mod lb;
pub mod leadership;
pub mod listener;
pub mod maintenance;
pub mod member;
pub mod metrics;
pub mod nb;
pub mod ovsdb_nb;
pub mod plan;
pub mod pool;
pub mod ports;
pub mod queue;
pub mod requests;
pub mod row_index;
pub mod sb;
pub mod scope;
pub mod sim;
pub mod status;
pub mod sync;
pub mod validate;
pub mod vips;

pub use agent::Agent;
pub use driver::{OvnConfig, OvnProvider};
pub use nb::NbSnapshot;
pub use ovsdb_nb::{NbDatabase, NbError, OvsdbNb};
