//! Why a job failed — a queued request of the driver or an `ovn-db-sync` run — ([`JobError`]),
//! and how Neutron failures on the
//! driver's synchronous port paths become the API's answer ([`provider_error`]).

use openstack::NeutronError;
use provider::ProviderError;

use crate::ovsdb_nb::NbError;
use crate::plan::PlanError;
use crate::sim::SimError;

/// Why one job (a queued request: snapshot → plan → commit → report) failed. The driver logs
/// it and reports ERROR for the request's object; [`JobError::retryable`] ones are re-planned
/// from a fresh snapshot first.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// Reading the NB or committing the transaction.
    #[error(transparent)]
    Nb(#[from] NbError),
    /// The planner refused the request (a row or key it needs is missing).
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// A Neutron call the job needs failed.
    #[error(transparent)]
    Neutron(#[from] NeutronError),
    /// The model or Neutron lacks a fact the job needs (e.g. the VIP address is on no port).
    #[error("{0}")]
    Facts(&'static str),
    /// `ovn-db-sync`: a planner produced an operation the NB simulation cannot apply (a bug).
    #[error(transparent)]
    Sim(#[from] SimError),
    /// A graph create reached the single-plan path (its steps run one by one; a bug).
    #[error("a graph is not one plan")]
    Graph,
}

impl JobError {
    /// True when re-planning from a fresh snapshot may succeed: a `wait` guard saw a
    /// concurrent change, or the NB connection/leader changed.
    pub fn retryable(&self) -> bool {
        matches!(self, JobError::Nb(e) if e.retry())
    }
}

/// A Neutron failure of a synchronous driver call (`create_vip_port`, `delete_vip_ports`,
/// member subnet lookups) as the API sees it: 409 → [`ProviderError::Conflict`] (the address
/// is in use), Neutron unreachable or 5xx ([`NeutronError::is_unavailable`]) → [`ProviderError::Unavailable`]
/// naming Neutron (503, nothing queued), anything else → [`ProviderError::Driver`] with
/// Neutron's fault message.
pub fn provider_error(e: &NeutronError) -> ProviderError {
    if e.is_conflict() {
        ProviderError::conflict(e.message())
    } else if e.is_unavailable() {
        ProviderError::unavailable(NEUTRON_SERVICE, e.to_string())
    } else {
        ProviderError::driver(e.message())
    }
}

/// An NB failure during a synchronous driver call (reading the rows a validation needs):
/// [`ProviderError::Driver`] with the error's text (`OVN NB: …`), which the API answers 500
/// `Provider 'ovn' reports error: …`.
impl From<NbError> for ProviderError {
    fn from(e: NbError) -> Self {
        ProviderError::driver(e.to_string())
    }
}

/// The name Octavia shows for Neutron in a 503 (`The Neutron service is temporarily
/// unavailable.`).
pub const NEUTRON_SERVICE: &str = "Neutron";
