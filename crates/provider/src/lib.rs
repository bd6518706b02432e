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
    StatusSink, StatusSinkError,
};
