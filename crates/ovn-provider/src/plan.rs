//! What a handler produces: the operations of one transaction, the status report to send once
//! it committed, and Neutron clean-up to run afterwards.

use provider::StatusReport;

use crate::nb::Op;

/// Facts about a Neutron subnet a handler needs (read by the driver before planning).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SubnetInfo {
    /// Neutron subnet UUID.
    pub id: String,
    /// Its network id (the switch is `neutron-<network id>`).
    pub network_id: String,
    /// Its CIDR, e.g. `10.0.0.0/24`.
    pub cidr: String,
}

/// The planned outcome of one request.
#[derive(Debug, Default)]
pub struct Plan {
    /// Operations of ONE transaction (may be empty: nothing to write).
    pub ops: Vec<Op>,
    /// Report to send once the transaction committed.
    pub report: StatusReport,
    /// Neutron ports to delete after the commit (VIP ports of a deleted LB).
    pub delete_ports: Vec<String>,
    /// Subnets whose `ovn-lb-hm-<subnet>` port may have lost its last user.
    pub hm_subnets: Vec<String>,
    /// Member ports (Neutron port ids = LSP names) that left a load balancer with a VIP FIP:
    /// their floating IPs get Neutron's "empty update" after the commit so Neutron recomputes
    /// (decentralises) the NAT (`handle_member_dvr`, member deleted).
    pub fip_ports: Vec<String>,
}

/// Why a handler could not plan; the driver reports ERROR for the object and logs this.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// A row or key the request needs is missing from the NB.
    #[error("not found in OVN NB: {0}")]
    NotFound(String),
}
