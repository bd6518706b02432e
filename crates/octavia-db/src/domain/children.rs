//! The rows a load balancer or listener owns beside the status tree: VIPs, additional VIPs,
//! VIP security groups, allowed CIDRs, SNI references, the next peer port.

use crate::db::Tx;
use crate::error::DbError;
use crate::rows::*;
use crate::sql::SqlValue;

impl Tx {
    /// The load balancer's VIP row, if any.
    pub async fn vip(&mut self, lb_id: &str) -> Result<Option<VipRow>, DbError> {
        self.find::<VipRow>(lb_id).await
    }

    /// The load balancer's additional VIPs (ordered by subnet_id).
    pub async fn additional_vips(&mut self, lb_id: &str) -> Result<Vec<AdditionalVipRow>, DbError> {
        self.fetch_all(
            "SELECT `load_balancer_id`, `ip_address`, `port_id`, `subnet_id`, `network_id` \
             FROM `additional_vip` WHERE `load_balancer_id` = ? ORDER BY `subnet_id`",
            vec![lb_id.into()],
        )
        .await
    }

    /// The VIP security group ids of a load balancer, sorted.
    pub async fn vip_sg_ids(&mut self, lb_id: &str) -> Result<Vec<String>, DbError> {
        self.fetch_scalars(
            "SELECT `sg_id` FROM `vip_security_group` WHERE `load_balancer_id` = ? ORDER BY `sg_id`",
            vec![lb_id.into()],
        )
        .await
    }

    /// The listener's `allowed_cidrs`, sorted.
    pub async fn listener_cidrs(&mut self, listener_id: &str) -> Result<Vec<String>, DbError> {
        self.fetch_scalars(
            "SELECT `cidr` FROM `listener_cidr` WHERE `listener_id` = ? ORDER BY `cidr`",
            vec![listener_id.into()],
        )
        .await
    }

    /// Replaces the listener's `allowed_cidrs`.
    pub async fn set_listener_cidrs(
        &mut self,
        listener_id: &str,
        cidrs: &[String],
    ) -> Result<(), DbError> {
        self.execute(
            "DELETE FROM `listener_cidr` WHERE `listener_id` = ?",
            vec![listener_id.into()],
        )
        .await?;
        let mut uniq = cidrs.to_vec();
        uniq.sort();
        uniq.dedup();
        for c in uniq {
            self.execute(
                "INSERT INTO `listener_cidr` (`listener_id`, `cidr`) VALUES (?, ?)",
                vec![listener_id.into(), c.into()],
            )
            .await?;
        }
        Ok(())
    }

    /// The listener's SNI container refs in `position` order.
    pub async fn sni_refs(&mut self, listener_id: &str) -> Result<Vec<String>, DbError> {
        self.fetch_scalars(
            "SELECT `tls_container_id` FROM `sni` WHERE `listener_id` = ? ORDER BY `position`, `tls_container_id`",
            vec![listener_id.into()],
        )
        .await
    }

    /// Replaces the listener's SNI refs (positions 0..n in the given order).
    pub async fn set_sni_refs(
        &mut self,
        listener_id: &str,
        refs: &[String],
    ) -> Result<(), DbError> {
        self.execute(
            "DELETE FROM `sni` WHERE `listener_id` = ?",
            vec![listener_id.into()],
        )
        .await?;
        let mut seen = std::collections::HashSet::new();
        for (i, r) in refs.iter().enumerate() {
            if !seen.insert(r.clone()) {
                continue;
            }
            self.execute(
                "INSERT INTO `sni` (`listener_id`, `tls_container_id`, `position`) VALUES (?, ?, ?)",
                vec![listener_id.into(), r.clone().into(), SqlValue::Int(i as i64)],
            )
            .await?;
        }
        Ok(())
    }

    /// Next `peer_port` for a new listener of the LB: the LB's highest + 1, at least 1025
    /// (octavia/db/repositories.py `_find_next_peer_port`, `HAPROXY_BASE_PEER_PORT`).
    pub async fn next_peer_port(&mut self, lb_id: &str) -> Result<i32, DbError> {
        let max: Option<Option<i32>> = self
            .fetch_optional_scalar(
                "SELECT MAX(`peer_port`) FROM `listener` WHERE `load_balancer_id` = ?",
                vec![lb_id.into()],
            )
            .await?;
        Ok(max.flatten().map_or(1025, |m| m + 1))
    }

    /// [`Tx::next_peer_port`] from the LB's listener rows already read (all of them, DELETED
    /// included, as the `MAX` is): one statement less on a listener create.
    pub fn peer_port_after(listeners: &[ListenerRow]) -> i32 {
        listeners
            .iter()
            .filter_map(|l| l.peer_port)
            .max()
            .map_or(1025, |m| m + 1)
    }
}
