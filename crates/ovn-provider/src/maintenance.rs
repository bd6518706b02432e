//! The periodic maintenance tasks of seed 000 (the reference's `maintenance.py`,
//! `DBInconsistenciesPeriodics`, every 600 s and once at start). Keel runs them in the agent
//! lock holder only (spawned by [`crate::Agent::run`]), so one process does the work instead
//! of every API process:
//!
//! * [`Agent::maintain_hm_port_owners`] (`change_device_owner_lb_hm_ports`): legacy
//!   `ovn-lb-hm-<subnet>` ports owned `network:distributed` become `ovn-lb-hm:distributed`
//!   with `device_id` = their name; rolled back (and retried next period) when Neutron does not
//!   keep the switch port a `localport`.
//! * [`Agent::maintain_vip_port_owners`] (`add_device_owner_lb_vip_ports`): VIP and
//!   additional VIP ports the provider created (`ovn-lb-vip-` names) without a `device_id`
//!   get `device_id` = `lb-<lb id>`. Unlike the reference it never sets `device_owner`
//!   `ovn-lb:vip`: Keel's VIP ports have none on purpose (same-subnet clients, see
//!   `ports::vip_port_create`); user ports and ports claimed by another device are left
//!   alone.
//! * [`Agent::maintain_ipv6_mappings`] (`format_ip_port_mappings_ipv6`): IPv6
//!   `ip_port_mappings` written without brackets become `[member ip]` = `<port>:[source ip]`,
//!   in ONE guarded NB transaction ([`ipv6_mapping_ops`]).
//!
//! Each task reports [`Outcome::Done`] when it has nothing left to do (the reference's
//! `NeverAgain`), and is then not run again by [`Agent::run_maintenance`].

use std::net::IpAddr;
use std::time::Duration;

use openstack::{ListFilter, PortUpdate};

use crate::agent::Agent;
use crate::edit::{Edit, LbRef};
use crate::external_ids as ext;
use crate::hm::HM_PORT_DEVICE_OWNER;
use crate::nb::{NbSnapshot, Op};
use crate::ovsdb_nb::NbError;
use crate::ports::{VIP_PORT_DEVICE_OWNER, VIP_PORT_PREFIX};

/// The reference's period of every task (`spacing=600`).
pub const DEFAULT_PERIOD: Duration = crate::driver::DEFAULT_MAINTENANCE_PERIOD;
/// Neutron's `DEVICE_OWNER_DISTRIBUTED`, the legacy owner of health-monitor ports.
pub const DISTRIBUTED_OWNER: &str = "network:distributed";

/// What a task run found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Run it again next period.
    Again,
    /// Nothing left to do: never again (the reference's `periodics.NeverAgain`).
    Done,
}

/// Why a task run failed (it is retried next period).
#[derive(Debug, thiserror::Error)]
pub enum MaintenanceError {
    /// A Neutron call failed.
    #[error("neutron: {0}")]
    Neutron(#[from] openstack::NeutronError),
    /// Reading or writing the NB failed.
    #[error(transparent)]
    Nb(#[from] NbError),
}

/// `ip` with brackets when it is a bare IPv6 address; anything else unchanged.
fn bracket(ip: &str) -> String {
    match ip.parse::<IpAddr>() {
        Ok(IpAddr::V6(a)) => format!("[{a}]"),
        _ => ip.to_string(),
    }
}

/// The operations (ONE transaction, a `wait` on each row's `external_ids`) rewriting every
/// bare-IPv6 `ip_port_mappings` entry `<v6>` = `<port>:<v6 src>` as `[<v6>]` =
/// `<port>:[<v6 src>]`. Entries already in brackets and IPv4 ones are kept; rows without
/// such entries are not touched. Empty: nothing to do.
pub fn ipv6_mapping_ops(snap: &NbSnapshot) -> Vec<Op> {
    let mut edit = Edit::new(snap);
    for row in snap.load_balancers.values() {
        let bare: Vec<(&String, &String)> = row
            .ip_port_mappings
            .iter()
            .filter(|(k, _)| matches!(k.parse::<IpAddr>(), Ok(IpAddr::V6(_))))
            .collect();
        if bare.is_empty() {
            continue;
        }
        let fixed: Vec<(String, String, String)> = bare
            .into_iter()
            .map(|(k, v)| {
                // `<port>:<src>`: the port name has no ':'; the source may be a bare IPv6
                let value = match v.split_once(':') {
                    Some((port, src)) => format!("{port}:{}", bracket(src)),
                    None => v.clone(),
                };
                (k.clone(), bracket(k), value)
            })
            .collect();
        if let Some(r) = edit.row_mut(&LbRef::Existing(row.uuid.clone())) {
            for (old, new, value) in fixed {
                r.ip_port_mappings.remove(&old);
                r.ip_port_mappings.insert(new, value);
            }
        }
    }
    edit.into_ops()
}

impl Agent {
    /// `change_device_owner_lb_hm_ports`: every Neutron port owned `network:distributed`
    /// whose name starts `ovn-lb-hm` gets `device_owner` = `ovn-lb-hm:distributed` and
    /// `device_id` = its name. After the first one, its `Logical_Switch_Port` must still be a
    /// `localport`; if not (Neutron too old, or upgrading) it is rolled back and the task stops
    /// until next period. `Done` when no such port is left.
    pub async fn maintain_hm_port_owners(&self) -> Result<Outcome, MaintenanceError> {
        let neutron = self.neutron();
        let ports = neutron
            .list_ports(&ListFilter::new().eq("device_owner", DISTRIBUTED_OWNER))
            .await?;
        let mut checked = false;
        for port in ports.iter().filter(|p| p.name.starts_with("ovn-lb-hm")) {
            let set = |owner: &str, device: &str| PortUpdate {
                device_owner: Some(owner.to_string()),
                device_id: Some(device.to_string()),
                ..Default::default()
            };
            neutron
                .update_port(&port.id, &set(HM_PORT_DEVICE_OWNER, &port.name))
                .await?;
            if checked {
                continue;
            }
            checked = true;
            let snap = self.nb().full_snapshot().await?;
            let lsp = snap.switch_ports.values().find(|p| p.name == port.id);
            if lsp.is_some_and(|p| p.kind != "localport") {
                tracing::info!(port = %port.id, "HM port is no longer a localport: owner restored");
                neutron
                    .update_port(&port.id, &set(DISTRIBUTED_OWNER, ""))
                    .await?;
                return Ok(Outcome::Again);
            }
        }
        Ok(Outcome::Done)
    }

    /// `add_device_owner_lb_vip_ports`, Keel's variant: for every `Load_Balancer` row, its
    /// VIP port (`neutron:vip_port_id`) and additional VIP ports get `device_id` =
    /// `lb-<row name>` when they have none, unless gone or user-provided (name not
    /// `ovn-lb-vip-…`); a port claimed by another device is logged and left. `device_owner`
    /// is never written (the reference sets `ovn-lb:vip`, which makes Neutron give the
    /// switch port the VIP as address and breaks same-subnet clients), and is cleared on
    /// a port carrying this deployment's tag that another agent gave `ovn-lb:vip`. `Done`
    /// after one full pass (so at every start of the lock holder: after a Python agent held
    /// the NB, Keel's agent undoes its backfill on Keel's ports).
    pub async fn maintain_vip_port_owners(&self) -> Result<Outcome, MaintenanceError> {
        let neutron = self.neutron();
        // port id → the LB whose row names it first (rows of one LB share their ports); the
        // rows are read one at a time, in uuid order as a snapshot would give them
        let mut rows: Vec<(String, String, Vec<String>)> = Vec::new();
        self.nb()
            .for_each_load_balancer(&mut |row| {
                if row.name.is_empty() {
                    return;
                }
                let mut ids: Vec<String> = row
                    .external_ids
                    .get(ext::VIP_PORT_ID)
                    .cloned()
                    .into_iter()
                    .collect();
                ids.extend(ext::parse_list(
                    &row.external_ids,
                    ext::ADDITIONAL_VIP_PORT_IDS,
                ));
                rows.push((row.uuid.clone(), row.name.clone(), ids));
            })
            .await?;
        rows.sort();
        let mut owner: std::collections::HashMap<String, String> = Default::default();
        let mut order: Vec<String> = Vec::new();
        for (_, name, ids) in rows {
            for id in ids.into_iter().filter(|i| !i.is_empty()) {
                if !owner.contains_key(&id) {
                    owner.insert(id.clone(), name.clone());
                    order.push(id);
                }
            }
        }
        // one `ports?id=…` list per 50 ports, not one GET per load balancer (a gone port is
        // simply not listed)
        let ids: Vec<&str> = order.iter().map(String::as_str).collect();
        let tag = self.vip_port_tag();
        for port in neutron.ports_by_ids(&ids).await? {
            let Some(lb) = owner.get(&port.id) else {
                continue;
            };
            if !port.name.starts_with(VIP_PORT_PREFIX) {
                continue;
            }
            let device_id = format!("lb-{lb}");
            let mut update = PortUpdate::default();
            if port.device_id.is_empty() {
                update.device_id = Some(device_id);
            } else if port.device_id != device_id {
                tracing::warn!(port = %port.id, lb = %lb, device = %port.device_id,
                    "VIP port claimed by another device: not backfilled");
                continue;
            }
            // a port made here (this deployment's tag) that another agent's backfill gave
            // `ovn-lb:vip` (the Python agent's, while it held the NB during a migration):
            // the owner goes again, or same-subnet clients lose the VIP
            let ours = tag.as_deref().is_some_and(|t| port.description == t);
            if ours && port.device_owner == VIP_PORT_DEVICE_OWNER {
                update.device_owner = Some(String::new());
            }
            if update.device_id.is_none() && update.device_owner.is_none() {
                continue;
            }
            neutron.update_port(&port.id, &update).await?;
        }
        Ok(Outcome::Done)
    }

    /// `format_ip_port_mappings_ipv6`: [`ipv6_mapping_ops`] committed as one transaction (a
    /// row changed meanwhile makes its `wait` fail: re-planned, up to 3 attempts). `Done` once
    /// committed (or nothing to do).
    pub async fn maintain_ipv6_mappings(&self) -> Result<Outcome, MaintenanceError> {
        let mut attempt = 0;
        loop {
            // only the rows with a bare IPv6 mapping are kept (decoded one at a time)
            let mut snap = NbSnapshot::default();
            self.nb()
                .for_each_load_balancer(&mut |row| {
                    let bare = row
                        .ip_port_mappings
                        .keys()
                        .any(|k| matches!(k.parse::<IpAddr>(), Ok(IpAddr::V6(_))));
                    if bare {
                        snap.load_balancers.insert(row.uuid.clone(), row.clone());
                    }
                })
                .await?;
            let ops = ipv6_mapping_ops(&snap);
            if ops.is_empty() {
                return Ok(Outcome::Done);
            }
            match self.nb().transact(&ops).await {
                Ok(()) => return Ok(Outcome::Done),
                Err(e) if e.retry() && attempt < 2 => attempt += 1,
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Run the three tasks now and then every `period` while `leader` is true (waiting for
    /// it otherwise), each until it reports [`Outcome::Done`]; returns when all are done or
    /// the lock watch closes. A failed run is logged and retried next period.
    pub async fn run_maintenance(
        &self,
        period: Duration,
        mut leader: tokio::sync::watch::Receiver<bool>,
    ) {
        let mut pending = vec!["hm_port_owners", "vip_port_owners", "ipv6_mappings"];
        while !pending.is_empty() {
            if leader.wait_for(|held| *held).await.is_err() {
                return;
            }
            let mut left = Vec::new();
            for task in pending {
                let r = match task {
                    "hm_port_owners" => self.maintain_hm_port_owners().await,
                    "vip_port_owners" => self.maintain_vip_port_owners().await,
                    _ => self.maintain_ipv6_mappings().await,
                };
                match r {
                    Ok(Outcome::Done) => tracing::info!(task, "maintenance task done"),
                    Ok(Outcome::Again) => left.push(task),
                    Err(e) => {
                        tracing::warn!(task, error = %e, "maintenance task failed");
                        left.push(task);
                    }
                }
            }
            pending = left;
            if pending.is_empty() {
                return;
            }
            tokio::time::sleep(period).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nb::Datum;
    use serde_json::json;

    #[test]
    fn bare_ipv6_mappings_get_brackets_in_one_guarded_update() {
        let mut s = NbSnapshot::default();
        s.insert_json(
            "Load_Balancer",
            "v6",
            &json!({"name": "A", "external_ids": ["map", [["enabled", "True"]]],
                "ip_port_mappings": ["map", [["fd00::10", "lsp1:fd00::2"],
                    ["[fd00::11]", "lsp2:[fd00::2]"]]]}),
        );
        s.insert_json(
            "Load_Balancer",
            "v4",
            &json!({"name": "B", "ip_port_mappings": ["map", [["10.0.0.10", "lsp3:10.0.0.2"]]]}),
        );
        let ops = ipv6_mapping_ops(&s);
        assert_eq!(ops.len(), 2, "{ops:?}");
        assert!(matches!(&ops[0], Op::WaitEq { uuid, .. } if uuid == "v6"));
        let Op::Update { uuid, row, .. } = &ops[1] else {
            panic!("{ops:?}")
        };
        assert_eq!(uuid, "v6");
        let want: crate::nb::StrMap = [
            ("[fd00::10]".to_string(), "lsp1:[fd00::2]".to_string()),
            ("[fd00::11]".to_string(), "lsp2:[fd00::2]".to_string()),
        ]
        .into();
        assert_eq!(row, &vec![("ip_port_mappings", Datum::Map(want.clone()))]);
        // applied: nothing left
        s.load_balancers.get_mut("v6").unwrap().ip_port_mappings = want;
        assert!(ipv6_mapping_ops(&s).is_empty());
    }
}
