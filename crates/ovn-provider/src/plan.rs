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
    /// VIP ports of a deleted LB, deleted after the commit when the provider made them.
    pub vip_ports: VipPorts,
    /// Subnets whose `ovn-lb-hm-<subnet>` port may have lost its last user.
    pub hm_subnets: Vec<String>,
    /// Member ports (Neutron port ids = LSP names) that left a load balancer with a VIP FIP:
    /// their floating IPs get Neutron's "empty update" after the commit so Neutron recomputes
    /// (decentralises) the NAT (`handle_member_dvr`, member deleted).
    pub fip_ports: Vec<String>,
}

/// The Neutron VIP ports of a load balancer (port ids).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VipPorts {
    /// The VIP port, deleted only when its name says the provider made it (`ovn-lb-vip-`).
    pub vip: Option<String>,
    /// The additional VIP ports (always the provider's).
    pub additional: Vec<String>,
}

impl Plan {
    /// Take in the post-commit work and report of an earlier attempt of the same request
    /// whose transaction may have committed (its outcome unknown): its clean-up is still
    /// owed, and the objects it reported (a member a batch deleted, the children a cascade
    /// deleted) are no longer in the rows this plan was made from. This plan's statuses win.
    pub fn absorb(&mut self, earlier: Plan) {
        let mut report = earlier.report;
        crate::status::merge(&mut report, std::mem::take(&mut self.report));
        self.report = report;
        if self.vip_ports.vip.is_none() {
            self.vip_ports.vip = earlier.vip_ports.vip;
        }
        for list in [
            (&mut self.vip_ports.additional, earlier.vip_ports.additional),
            (&mut self.hm_subnets, earlier.hm_subnets),
            (&mut self.fip_ports, earlier.fip_ports),
        ] {
            let (into, from) = list;
            for x in from {
                if !into.contains(&x) {
                    into.push(x);
                }
            }
        }
    }
}

/// Why a handler could not plan; the driver reports ERROR for the object and logs this.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// A row or key the request needs is missing from the NB.
    #[error("not found in OVN NB: {0}")]
    NotFound(String),
}
