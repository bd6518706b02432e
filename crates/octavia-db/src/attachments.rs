//! The small collections a load balancer or listener response shows beside its row, read in
//! one statement each (issue 6).
//!
//! An API response of a load balancer needs its additional VIPs, VIP security groups, tags and
//! child listener/pool ids; a listener's needs its SNI refs, allowed CIDRs, tags and L7 policy
//! ids; a pool's its listener, member and health monitor ids and tags. One `UNION ALL` per object is one round trip instead of four or five, on every GET,
//! list entry, create and update. The orders are those of the single-table reads they replace
//! ([`Tx::additional_vips`], [`Tx::vip_sg_ids`], [`Tx::tags`], [`Tx::list`]'s default
//! `created_at, id`, [`Tx::sni_refs`], [`Tx::listener_cidrs`], policies by `position, id`).

use chrono::NaiveDateTime;

use crate::db::Tx;
use crate::error::DbError;

/// What a load balancer response shows beside its row.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LbAttachments {
    /// Its `vip` row, if any.
    pub vip: Option<crate::rows::VipRow>,
    /// Additional VIPs as `(subnet_id, ip_address, port_id)`, by `subnet_id`.
    pub additional_vips: Vec<(String, Option<String>, Option<String>)>,
    /// VIP security group ids, sorted.
    pub vip_sg_ids: Vec<String>,
    /// Tags, sorted.
    pub tags: Vec<String>,
    /// Ids of the listeners not DELETED, by `created_at`, `id`.
    pub listener_ids: Vec<String>,
    /// Ids of the pools not DELETED, by `created_at`, `id`.
    pub pool_ids: Vec<String>,
}

/// What a listener response shows beside its row.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListenerAttachments {
    /// SNI container refs, by `position`, then ref.
    pub sni_refs: Vec<String>,
    /// Allowed CIDRs, sorted.
    pub allowed_cidrs: Vec<String>,
    /// Tags, sorted.
    pub tags: Vec<String>,
    /// L7 policy ids, by `position`, `id`.
    pub l7policy_ids: Vec<String>,
}

/// What a pool response shows beside its row and session persistence.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PoolAttachments {
    /// Ids of the listeners (not DELETED) whose default pool it is, by `created_at`, `id`.
    pub listener_ids: Vec<String>,
    /// Ids of its members (not DELETED), by `created_at`, `id`.
    pub member_ids: Vec<String>,
    /// Its health monitor (not DELETED), if any.
    pub healthmonitor_id: Option<String>,
    /// Tags, sorted.
    pub tags: Vec<String>,
}

#[derive(sqlx::FromRow)]
struct PoolPart {
    k: String,
    v: Option<String>,
    at: Option<NaiveDateTime>,
}

#[derive(sqlx::FromRow)]
struct LbPart {
    k: String,
    v1: Option<String>,
    v2: Option<String>,
    v3: Option<String>,
    v4: Option<String>,
    v5: Option<String>,
    v6: Option<String>,
    v7: Option<String>,
    at: Option<NaiveDateTime>,
}

#[derive(sqlx::FromRow)]
struct ListenerPart {
    k: String,
    v: Option<String>,
    n: Option<i64>,
}

const LB_SQL: &str = "\
SELECT 'v' AS k, `ip_address` AS v1, `port_id` AS v2, `subnet_id` AS v3, `network_id` AS v4, \
`qos_policy_id` AS v5, `vnic_type` AS v6, \
CASE WHEN `octavia_owned` IS NULL THEN NULL WHEN `octavia_owned` THEN '1' ELSE '0' END AS v7, \
NULL AS at FROM `vip` WHERE `load_balancer_id` = ? \
UNION ALL SELECT 'a', `subnet_id`, `ip_address`, `port_id`, NULL, NULL, NULL, NULL, NULL \
FROM `additional_vip` WHERE `load_balancer_id` = ? \
UNION ALL SELECT 's', `sg_id`, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM `vip_security_group` \
WHERE `load_balancer_id` = ? \
UNION ALL SELECT 't', `tag`, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM `tags` WHERE `resource_id` = ? \
UNION ALL SELECT 'l', `id`, NULL, NULL, NULL, NULL, NULL, NULL, `created_at` FROM `listener` \
WHERE `load_balancer_id` = ? AND `provisioning_status` <> 'DELETED' \
UNION ALL SELECT 'p', `id`, NULL, NULL, NULL, NULL, NULL, NULL, `created_at` FROM `pool` \
WHERE `load_balancer_id` = ? AND `provisioning_status` <> 'DELETED'";

const LISTENER_SQL: &str = "\
SELECT 's' AS k, `tls_container_id` AS v, `position` AS n FROM `sni` WHERE `listener_id` = ? \
UNION ALL SELECT 'c', `cidr`, NULL FROM `listener_cidr` WHERE `listener_id` = ? \
UNION ALL SELECT 't', `tag`, NULL FROM `tags` WHERE `resource_id` = ? \
UNION ALL SELECT 'p', `id`, `position` FROM `l7policy` WHERE `listener_id` = ?";

const POOL_SQL: &str = "\
SELECT 'l' AS k, `id` AS v, `created_at` AS at FROM `listener` \
WHERE `default_pool_id` = ? AND `provisioning_status` <> 'DELETED' \
UNION ALL SELECT 'm', `id`, `created_at` FROM `member` \
WHERE `pool_id` = ? AND `provisioning_status` <> 'DELETED' \
UNION ALL SELECT 'h', `id`, `created_at` FROM `health_monitor` \
WHERE `pool_id` = ? AND `provisioning_status` <> 'DELETED' \
UNION ALL SELECT 't', `tag`, NULL FROM `tags` WHERE `resource_id` = ?";

fn sorted_by_key<K: Ord>(mut v: Vec<(K, String)>) -> Vec<String> {
    v.sort();
    v.into_iter().map(|(_, s)| s).collect()
}

impl Tx {
    /// [`LbAttachments`] of load balancer `lb_id`, its VIP row included (empty when it has none
    /// or does not exist).
    pub async fn lb_attachments(&mut self, lb_id: &str) -> Result<LbAttachments, DbError> {
        let parts: Vec<LbPart> = self.fetch_all(LB_SQL, vec![lb_id.into(); 6]).await?;
        let mut out = LbAttachments::default();
        let (mut listeners, mut pools) = (Vec::new(), Vec::new());
        for p in parts {
            if p.k == "v" {
                out.vip = Some(crate::rows::VipRow {
                    load_balancer_id: lb_id.to_owned(),
                    ip_address: p.v1,
                    port_id: p.v2,
                    subnet_id: p.v3,
                    network_id: p.v4,
                    qos_policy_id: p.v5,
                    vnic_type: p.v6.unwrap_or_default(),
                    octavia_owned: p.v7.map(|b| b == "1"),
                });
                continue;
            }
            let Some(v1) = p.v1 else { continue };
            match p.k.as_str() {
                "a" => out.additional_vips.push((v1, p.v2, p.v3)),
                "s" => out.vip_sg_ids.push(v1),
                "t" => out.tags.push(v1),
                "l" => listeners.push(((p.at, v1.clone()), v1)),
                "p" => pools.push(((p.at, v1.clone()), v1)),
                _ => {}
            }
        }
        out.additional_vips.sort_by(|a, b| a.0.cmp(&b.0));
        out.vip_sg_ids.sort();
        out.tags.sort();
        out.listener_ids = sorted_by_key(listeners);
        out.pool_ids = sorted_by_key(pools);
        Ok(out)
    }

    /// [`PoolAttachments`] of pool `pool_id`.
    pub async fn pool_attachments(&mut self, pool_id: &str) -> Result<PoolAttachments, DbError> {
        let parts: Vec<PoolPart> = self.fetch_all(POOL_SQL, vec![pool_id.into(); 4]).await?;
        let mut out = PoolAttachments::default();
        let (mut listeners, mut members, mut hms) = (Vec::new(), Vec::new(), Vec::new());
        for p in parts {
            let Some(v) = p.v else { continue };
            match p.k.as_str() {
                "l" => listeners.push(((p.at, v.clone()), v)),
                "m" => members.push(((p.at, v.clone()), v)),
                "h" => hms.push(((p.at, v.clone()), v)),
                "t" => out.tags.push(v),
                _ => {}
            }
        }
        out.listener_ids = sorted_by_key(listeners);
        out.member_ids = sorted_by_key(members);
        out.healthmonitor_id = sorted_by_key(hms).into_iter().next();
        out.tags.sort();
        Ok(out)
    }

    /// [`ListenerAttachments`] of listener `listener_id`.
    pub async fn listener_attachments(
        &mut self,
        listener_id: &str,
    ) -> Result<ListenerAttachments, DbError> {
        let parts: Vec<ListenerPart> = self
            .fetch_all(LISTENER_SQL, vec![listener_id.into(); 4])
            .await?;
        let mut out = ListenerAttachments::default();
        let (mut sni, mut policies) = (Vec::new(), Vec::new());
        for p in parts {
            let Some(v) = p.v else { continue };
            match p.k.as_str() {
                "s" => sni.push(((p.n, v.clone()), v)),
                "c" => out.allowed_cidrs.push(v),
                "t" => out.tags.push(v),
                "p" => policies.push(((p.n, v.clone()), v)),
                _ => {}
            }
        }
        out.sni_refs = sorted_by_key(sni);
        out.allowed_cidrs.sort();
        out.tags.sort();
        out.l7policy_ids = sorted_by_key(policies);
        Ok(out)
    }
}
