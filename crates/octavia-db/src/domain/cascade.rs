//! The ORM's cascading deletes (octavia/db/models.py `cascade="all,delete-orphan"`), written
//! as explicit statements, and L7 policy renumbering.

use crate::db::OnZero;
use crate::db::Tx;
use crate::error::DbError;
use crate::rows::*;
use crate::sql::SqlValue;

impl Tx {
    /// Deletes a health monitor row and its tags (ORM cascade of `HealthMonitor`).
    pub async fn delete_health_monitor_cascade(&mut self, id: &str) -> Result<(), DbError> {
        self.delete_tags(&[id.to_owned()]).await?;
        self.delete_held::<HealthMonitorRow>(id).await
    }

    /// Deletes a member row and its tags.
    pub async fn delete_member_cascade(&mut self, id: &str) -> Result<(), DbError> {
        self.delete_members_cascade(&[id.to_owned()]).await
    }

    /// Deletes member rows and their tags, a few hundred ids per statement (held-back writes
    /// on the status path: `db::batch`).
    pub async fn delete_members_cascade(&mut self, ids: &[String]) -> Result<(), DbError> {
        for chunk in ids.chunks(500) {
            self.delete_tags(chunk).await?;
            let sql = format!(
                "DELETE FROM `member` WHERE `id` IN ({})",
                vec!["?"; chunk.len()].join(", ")
            );
            let args = chunk.iter().map(|s| SqlValue::Text(s.clone())).collect();
            self.write(sql, args, OnZero::Ignore).await?;
        }
        Ok(())
    }

    /// Deletes an l7rule row and its tags.
    pub async fn delete_l7rule_cascade(&mut self, id: &str) -> Result<(), DbError> {
        self.delete_tags(&[id.to_owned()]).await?;
        self.delete_held::<L7RuleRow>(id).await
    }

    /// Deletes an l7policy with its rules and tags, then renumbers the listener's remaining
    /// policies 1..n (ORM ordering_list).
    pub async fn delete_l7policy_cascade(&mut self, id: &str) -> Result<(), DbError> {
        let Some(p) = self.find::<L7PolicyRow>(id).await? else {
            return Ok(());
        };
        let rules = self.l7rule_ids(id).await?;
        self.delete_tags(&rules).await?;
        self.write(
            "DELETE FROM `l7rule` WHERE `l7policy_id` = ?",
            vec![id.into()],
            OnZero::Ignore,
        )
        .await?;
        self.delete_tags(&[id.to_owned()]).await?;
        self.delete_held::<L7PolicyRow>(id).await?;
        self.renumber_l7policies(&p.listener_id).await
    }

    /// Renumbers a listener's l7policies 1..n keeping their order (position, then created_at).
    pub async fn renumber_l7policies(&mut self, listener_id: &str) -> Result<(), DbError> {
        let ids: Vec<String> = self
            .fetch_scalars(
                "SELECT `id` FROM `l7policy` WHERE `listener_id` = ? ORDER BY `position`, `created_at`, `id`",
                vec![listener_id.into()],
            )
            .await?;
        for (i, pid) in ids.iter().enumerate() {
            self.write(
                "UPDATE `l7policy` SET `position` = ? WHERE `id` = ? AND `position` <> ?",
                vec![
                    SqlValue::Int(i as i64 + 1),
                    pid.clone().into(),
                    SqlValue::Int(i as i64 + 1),
                ],
                OnZero::Ignore,
            )
            .await?;
        }
        Ok(())
    }

    /// Deletes a listener with its SNI rows, CIDR rows, l7policies (with rules) and tags.
    pub async fn delete_listener_cascade(&mut self, id: &str) -> Result<(), DbError> {
        // reads first: the writes then go in one batch on the status path
        let mut policies: Vec<(String, Vec<String>)> = Vec::new();
        let ids: Vec<String> = self
            .fetch_scalars(
                "SELECT `id` FROM `l7policy` WHERE `listener_id` = ?",
                vec![id.into()],
            )
            .await?;
        for p in ids {
            let rules = self.l7rule_ids(&p).await?;
            policies.push((p, rules));
        }
        let by_listener = vec![SqlValue::from(id)];
        self.write(
            "DELETE FROM `sni` WHERE `listener_id` = ?",
            by_listener.clone(),
            OnZero::Ignore,
        )
        .await?;
        self.write(
            "DELETE FROM `listener_cidr` WHERE `listener_id` = ?",
            by_listener,
            OnZero::Ignore,
        )
        .await?;
        for (p, rules) in policies {
            self.delete_tags(&rules).await?;
            self.write(
                "DELETE FROM `l7rule` WHERE `l7policy_id` = ?",
                vec![p.as_str().into()],
                OnZero::Ignore,
            )
            .await?;
            self.delete_tags(std::slice::from_ref(&p)).await?;
            self.delete_held::<L7PolicyRow>(&p).await?;
        }
        self.delete_tags(&[id.to_owned()]).await?;
        self.delete_held::<ListenerRow>(id).await
    }

    async fn l7rule_ids(&mut self, policy_id: &str) -> Result<Vec<String>, DbError> {
        self.fetch_scalars(
            "SELECT `id` FROM `l7rule` WHERE `l7policy_id` = ?",
            vec![policy_id.into()],
        )
        .await
    }

    /// Deletes a pool with its members, health monitor, session persistence and tags; nulls
    /// `listener.default_pool_id` and `l7policy.redirect_pool_id` still pointing at it.
    pub async fn delete_pool_cascade(&mut self, id: &str) -> Result<(), DbError> {
        // reads first: the writes then go in one batch on the status path
        let members: Vec<String> = self
            .fetch_scalars(
                "SELECT `id` FROM `member` WHERE `pool_id` = ?",
                vec![id.into()],
            )
            .await?;
        let hms: Vec<String> = self
            .fetch_scalars(
                "SELECT `id` FROM `health_monitor` WHERE `pool_id` = ?",
                vec![id.into()],
            )
            .await?;
        self.delete_tags(&members).await?;
        self.write(
            "DELETE FROM `member` WHERE `pool_id` = ?",
            vec![id.into()],
            OnZero::Ignore,
        )
        .await?;
        self.delete_tags(&hms).await?;
        for sql in [
            "DELETE FROM `health_monitor` WHERE `pool_id` = ?",
            "DELETE FROM `session_persistence` WHERE `pool_id` = ?",
            "UPDATE `listener` SET `default_pool_id` = NULL WHERE `default_pool_id` = ?",
            "UPDATE `l7policy` SET `redirect_pool_id` = NULL WHERE `redirect_pool_id` = ?",
        ] {
            self.write(sql, vec![id.into()], OnZero::Ignore).await?;
        }
        self.delete_tags(&[id.to_owned()]).await?;
        self.delete_held::<PoolRow>(id).await
    }

    async fn delete_tags(&mut self, ids: &[String]) -> Result<(), DbError> {
        if ids.is_empty() {
            return Ok(());
        }
        let sql = format!(
            "DELETE FROM `tags` WHERE `resource_id` IN ({})",
            vec!["?"; ids.len()].join(", ")
        );
        self.write(
            sql,
            ids.iter().map(|s| SqlValue::Text(s.clone())).collect(),
            OnZero::Ignore,
        )
        .await
    }
}
