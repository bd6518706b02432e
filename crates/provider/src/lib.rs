//! The provider-driver seam between the Octavia API and a load-balancer provider.
//!
//! This crate plays octavia-lib's role (`octavia_lib/api/drivers/`): the data models a
//! driver receives ([`models`]), the [`ProviderDriver`] trait with one method per API
//! action, the errors a driver may raise ([`ProviderError`], mapped to HTTP by the API as
//! `octavia/api/drivers/utils.py::call_provider` does), and the status reports a driver
//! sends back ([`StatusReport`], octavia-lib `driver_lib.py` `update_loadbalancer_status`)
//! through a [`StatusSink`].
//!
//! It depends on nothing of Keel's: the API and the OVN provider both depend on it, and
//! neither reaches around it.
//!
//! ```
//! use provider::{OperatingStatus, ProvisioningStatus, StatusRecord, StatusReport};
//!
//! // a stored status text and the typed value compare both ways
//! let stored = String::from("PENDING_UPDATE");
//! assert_eq!(ProvisioningStatus::parse(&stored), Some(ProvisioningStatus::PendingUpdate));
//! assert!(stored == ProvisioningStatus::PendingUpdate && ProvisioningStatus::PendingUpdate.is_pending());
//!
//! // what a driver reports once a listener is done: octavia-lib's status dictionary
//! let mut report = StatusReport::default();
//! report.listeners.push(StatusRecord {
//!     id: "1d0b1bd4-7b58-4bd4-8f7d-8d3e4a0a3f10".into(),
//!     provisioning_status: Some(ProvisioningStatus::Active),
//!     operating_status: Some(OperatingStatus::Online),
//! });
//! let dict = serde_json::to_value(&report)?;
//! assert_eq!(dict["listeners"][0]["provisioning_status"], "ACTIVE");
//! assert!(dict.get("loadbalancers").is_none()); // empty lists are left out
//! # Ok::<(), serde_json::Error>(())
//! ```

mod driver;
mod error;
pub mod gate;
pub mod metadata;
pub mod models;
mod status;

pub use driver::ProviderDriver;
pub use error::ProviderError;
pub use models::*;
pub use status::{
    ListenerStats, OperatingStatus, ProvisioningStatus, StatsReport, StatusRecord, StatusReport,
    StatusSink, StatusSinkError, UnknownStatus,
};
