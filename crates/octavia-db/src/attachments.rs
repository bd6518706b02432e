//! The small collections a load balancer or listener response shows beside its row, read in
//! one statement each.
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
    r: String,
    k: String,
    v: Option<String>,
    at: Option<NaiveDateTime>,
}

#[derive(sqlx::FromRow)]
struct LbPart {
    r: String,
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
    r: String,
    k: String,
    v: Option<String>,
    n: Option<i64>,
}

/// `{IN}` stands for the id list of one statement.
const LB_SQL: &str = "\
SELECT `load_balancer_id` AS r, 'v' AS k, `ip_address` AS v1, `port_id` AS v2, `subnet_id` AS v3, \
`network_id` AS v4, `qos_policy_id` AS v5, `vnic_type` AS v6, \
CASE WHEN `octavia_owned` IS NULL THEN NULL WHEN `octavia_owned` THEN '1' ELSE '0' END AS v7, \
NULL AS at FROM `vip` WHERE `load_balancer_id` IN ({IN}) \
UNION ALL SELECT `load_balancer_id`, 'a', `subnet_id`, `ip_address`, `port_id`, NULL, NULL, NULL, \
NULL, NULL FROM `additional_vip` WHERE `load_balancer_id` IN ({IN}) \
UNION ALL SELECT `load_balancer_id`, 's', `sg_id`, NULL, NULL, NULL, NULL, NULL, NULL, NULL \
FROM `vip_security_group` WHERE `load_balancer_id` IN ({IN}) \
UNION ALL SELECT `resource_id`, 't', `tag`, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM `tags` \
WHERE `resource_id` IN ({IN}) \
UNION ALL SELECT `load_balancer_id`, 'l', `id`, NULL, NULL, NULL, NULL, NULL, NULL, `created_at` \
FROM `listener` WHERE `load_balancer_id` IN ({IN}) AND `provisioning_status` <> 'DELETED' \
UNION ALL SELECT `load_balancer_id`, 'p', `id`, NULL, NULL, NULL, NULL, NULL, NULL, `created_at` \
FROM `pool` WHERE `load_balancer_id` IN ({IN}) AND `provisioning_status` <> 'DELETED'";

const LISTENER_SQL: &str = "\
SELECT `listener_id` AS r, 's' AS k, `tls_container_id` AS v, `position` AS n FROM `sni` \
WHERE `listener_id` IN ({IN}) \
UNION ALL SELECT `listener_id`, 'c', `cidr`, NULL FROM `listener_cidr` WHERE `listener_id` IN ({IN}) \
UNION ALL SELECT `resource_id`, 't', `tag`, NULL FROM `tags` WHERE `resource_id` IN ({IN}) \
UNION ALL SELECT `listener_id`, 'p', `id`, `position` FROM `l7policy` WHERE `listener_id` IN ({IN})";

const POOL_SQL: &str = "\
SELECT `default_pool_id` AS r, 'l' AS k, `id` AS v, `created_at` AS at FROM `listener` \
WHERE `default_pool_id` IN ({IN}) AND `provisioning_status` <> 'DELETED' \
UNION ALL SELECT `pool_id`, 'm', `id`, `created_at` FROM `member` \
WHERE `pool_id` IN ({IN}) AND `provisioning_status` <> 'DELETED' \
UNION ALL SELECT `pool_id`, 'h', `id`, `created_at` FROM `health_monitor` \
WHERE `pool_id` IN ({IN}) AND `provisioning_status` <> 'DELETED' \
UNION ALL SELECT `resource_id`, 't', `tag`, NULL FROM `tags` WHERE `resource_id` IN ({IN})";

/// Ids per statement of the many-object reads (each id is bound once per part).
const CHUNK: usize = 500;

/// `sql` with `{IN}` replaced by `n` placeholders, and its arguments: `ids` once per part.
fn in_sql(sql: &str, ids: &[String]) -> (String, Vec<crate::sql::SqlValue>) {
    let parts = sql.matches("{IN}").count();
    let marks = vec!["?"; ids.len()].join(", ");
    let mut args = Vec::with_capacity(parts * ids.len());
    for _ in 0..parts {
        args.extend(ids.iter().map(|i| crate::sql::SqlValue::Text(i.clone())));
    }
    (sql.replace("{IN}", &marks), args)
}

/// Position of each id in `ids` (first occurrence).
fn index_of(ids: &[String]) -> std::collections::HashMap<&str, usize> {
    let mut m = std::collections::HashMap::with_capacity(ids.len());
    for (i, id) in ids.iter().enumerate() {
        m.entry(id.as_str()).or_insert(i);
    }
    m
}

fn sorted_by_key<K: Ord>(mut v: Vec<(K, String)>) -> Vec<String> {
    v.sort();
    v.into_iter().map(|(_, s)| s).collect()
}

/// The [`LbAttachments`] of `ids`, in their order, from the rows of [`LB_SQL`].
fn assemble_lbs(ids: &[String], parts: Vec<LbPart>) -> Vec<LbAttachments> {
    let mut out = vec![LbAttachments::default(); ids.len()];
    let mut listeners = vec![Vec::new(); ids.len()];
    let mut pools = vec![Vec::new(); ids.len()];
    let at = index_of(ids);
    for p in parts {
        let Some(&i) = at.get(p.r.as_str()) else {
            continue;
        };
        let o = &mut out[i];
        if p.k == "v" {
            o.vip = Some(crate::rows::VipRow {
                load_balancer_id: p.r,
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
            "a" => o.additional_vips.push((v1, p.v2, p.v3)),
            "s" => o.vip_sg_ids.push(v1),
            "t" => o.tags.push(v1),
            "l" => listeners[i].push(((p.at, v1.clone()), v1)),
            "p" => pools[i].push(((p.at, v1.clone()), v1)),
            _ => {}
        }
    }
    for (i, o) in out.iter_mut().enumerate() {
        o.additional_vips.sort_by(|a, b| a.0.cmp(&b.0));
        o.vip_sg_ids.sort();
        o.tags.sort();
        o.listener_ids = sorted_by_key(std::mem::take(&mut listeners[i]));
        o.pool_ids = sorted_by_key(std::mem::take(&mut pools[i]));
    }
    out
}

impl Tx {
    /// [`LbAttachments`] of load balancer `lb_id`, its VIP row included (empty when it has none
    /// or does not exist).
    pub async fn lb_attachments(&mut self, lb_id: &str) -> Result<LbAttachments, DbError> {
        let mut v = self.lbs_attachments(&[lb_id.to_owned()]).await?;
        Ok(v.pop().unwrap_or_default())
    }

    /// [`Tx::lb_attachments`] of many load balancers, in the order of `ids`: one statement
    /// per 500 ids (list pages).
    pub async fn lbs_attachments(&mut self, ids: &[String]) -> Result<Vec<LbAttachments>, DbError> {
        let mut parts = Vec::new();
        for chunk in ids.chunks(CHUNK) {
            let (sql, args) = in_sql(LB_SQL, chunk);
            parts.extend(self.fetch_all::<LbPart>(&sql, args).await?);
        }
        Ok(assemble_lbs(ids, parts))
    }

    /// The load balancer row `id` (DELETED included, as [`Tx::find`]) with its
    /// [`LbAttachments`]: on MariaDB both statements in one round trip (a GET of a load
    /// balancer, which a client polls), else one after the other. `None`: no such row.
    pub async fn find_lb_with_attachments(
        &mut self,
        id: &str,
    ) -> Result<Option<(crate::rows::LoadBalancerRow, LbAttachments)>, DbError> {
        use sqlx::FromRow;
        let find = format!(
            "SELECT {} FROM `load_balancer` WHERE `id` = ?",
            crate::repo::select_list::<crate::rows::LoadBalancerRow>()
        );
        let ids = [id.to_owned()];
        let stmts = [(find, vec![id.into()]), in_sql(LB_SQL, &ids)];
        let Some(results) = self.query_batch(&stmts).await? else {
            let Some(lb) = self.find(id).await? else {
                return Ok(None);
            };
            return Ok(Some((lb, self.lb_attachments(id).await?)));
        };
        let mut results = results.into_iter().map(|(_, rows)| rows);
        let (Some(lbs), Some(part_rows)) = (results.next(), results.next()) else {
            return Err(DbError::Schema("two statements sent, fewer results".into()));
        };
        let Some(row) = lbs.first() else {
            return Ok(None);
        };
        let lb = crate::rows::LoadBalancerRow::from_row(row)?;
        let parts = part_rows
            .iter()
            .map(LbPart::from_row)
            .collect::<Result<Vec<_>, _>>()?;
        let att = assemble_lbs(&ids, parts).pop().unwrap_or_default();
        Ok(Some((lb, att)))
    }

    /// [`PoolAttachments`] of pool `pool_id`.
    pub async fn pool_attachments(&mut self, pool_id: &str) -> Result<PoolAttachments, DbError> {
        let mut v = self.pools_attachments(&[pool_id.to_owned()]).await?;
        Ok(v.pop().unwrap_or_default())
    }

    /// [`Tx::pool_attachments`] of many pools, in the order of `ids` (one statement per 500).
    pub async fn pools_attachments(
        &mut self,
        ids: &[String],
    ) -> Result<Vec<PoolAttachments>, DbError> {
        let mut out = vec![PoolAttachments::default(); ids.len()];
        let n = ids.len();
        let (mut listeners, mut members, mut hms) = (
            vec![Vec::new(); n],
            vec![Vec::new(); n],
            vec![Vec::new(); n],
        );
        let at = index_of(ids);
        for chunk in ids.chunks(CHUNK) {
            let (sql, args) = in_sql(POOL_SQL, chunk);
            let parts: Vec<PoolPart> = self.fetch_all(&sql, args).await?;
            for p in parts {
                let Some(&i) = at.get(p.r.as_str()) else {
                    continue;
                };
                let Some(v) = p.v else { continue };
                match p.k.as_str() {
                    "l" => listeners[i].push(((p.at, v.clone()), v)),
                    "m" => members[i].push(((p.at, v.clone()), v)),
                    "h" => hms[i].push(((p.at, v.clone()), v)),
                    "t" => out[i].tags.push(v),
                    _ => {}
                }
            }
        }
        for (i, o) in out.iter_mut().enumerate() {
            o.listener_ids = sorted_by_key(std::mem::take(&mut listeners[i]));
            o.member_ids = sorted_by_key(std::mem::take(&mut members[i]));
            o.healthmonitor_id = sorted_by_key(std::mem::take(&mut hms[i]))
                .into_iter()
                .next();
            o.tags.sort();
        }
        Ok(out)
    }

    /// [`ListenerAttachments`] of listener `listener_id`.
    pub async fn listener_attachments(
        &mut self,
        listener_id: &str,
    ) -> Result<ListenerAttachments, DbError> {
        let mut v = self
            .listeners_attachments(&[listener_id.to_owned()])
            .await?;
        Ok(v.pop().unwrap_or_default())
    }

    /// [`Tx::listener_attachments`] of many listeners, in the order of `ids` (one statement
    /// per 500).
    pub async fn listeners_attachments(
        &mut self,
        ids: &[String],
    ) -> Result<Vec<ListenerAttachments>, DbError> {
        let mut out = vec![ListenerAttachments::default(); ids.len()];
        let (mut sni, mut policies) = (vec![Vec::new(); ids.len()], vec![Vec::new(); ids.len()]);
        let at = index_of(ids);
        for chunk in ids.chunks(CHUNK) {
            let (sql, args) = in_sql(LISTENER_SQL, chunk);
            let parts: Vec<ListenerPart> = self.fetch_all(&sql, args).await?;
            for p in parts {
                let Some(&i) = at.get(p.r.as_str()) else {
                    continue;
                };
                let Some(v) = p.v else { continue };
                match p.k.as_str() {
                    "s" => sni[i].push(((p.n, v.clone()), v)),
                    "c" => out[i].allowed_cidrs.push(v),
                    "t" => out[i].tags.push(v),
                    "p" => policies[i].push(((p.n, v.clone()), v)),
                    _ => {}
                }
            }
        }
        for (i, o) in out.iter_mut().enumerate() {
            o.sni_refs = sorted_by_key(std::mem::take(&mut sni[i]));
            o.allowed_cidrs.sort();
            o.tags.sort();
            o.l7policy_ids = sorted_by_key(std::mem::take(&mut policies[i]));
        }
        Ok(out)
    }
}
