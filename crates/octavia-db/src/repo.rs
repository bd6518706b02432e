//! Generic repository functions on [`Tx`]: get, list (filters, tags, sort, marker, limit),
//! insert, partial update, delete; tags.

use crate::db::{Tx, now};
use crate::error::DbError;
use crate::rows::{Record, TagRow};
use crate::sql::SqlValue;

/// Column name as used in SQL (`r#type` → `type`).
pub(crate) fn col(c: &str) -> &str {
    c.trim_start_matches("r#")
}

fn check_column<T: Record>(c: &str) -> Result<&'static str, DbError> {
    T::COLUMNS
        .iter()
        .find(|k| col(k) == c)
        .map(|k| col(k))
        .ok_or_else(|| DbError::InvalidColumn {
            table: T::TABLE,
            column: c.to_owned(),
        })
}

pub(crate) fn select_list<T: Record>() -> String {
    T::COLUMNS
        .iter()
        .map(|c| format!("`{}`", col(c)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Sort direction of one key (`sort=name:desc`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortDir {
    /// `asc` (the default).
    #[default]
    Asc,
    /// `desc`.
    Desc,
}

/// What [`Tx::list`] returns: filters are ANDed.
///
/// Shapes follow Octavia's pagination helper (`octavia/api/common/pagination.py`): sort keys
/// default to `created_at`, `id` ascending (the table key is always appended as tie-breaker),
/// `marker` is the id of the last row of the previous page (keyset pagination on the sort keys),
/// `page_reverse` walks backwards from the marker (rows are still returned in sort order).
#[derive(Debug, Clone, Default)]
pub struct ListQuery {
    /// `column = value` filters (a `SqlValue::Null` value means `IS NULL`).
    pub filters: Vec<(String, SqlValue)>,
    /// `column IN (values)` filters (an empty list matches nothing).
    pub filters_in: Vec<(String, Vec<SqlValue>)>,
    /// Exclude rows whose `provisioning_status` is `DELETED` (lists of load balancers do).
    pub exclude_deleted: bool,
    /// `tags`: rows having all of these tags.
    pub tags_all: Vec<String>,
    /// `tags-any`: rows having at least one.
    pub tags_any: Vec<String>,
    /// `not-tags`: rows not having all of them.
    pub not_tags_all: Vec<String>,
    /// `not-tags-any`: rows having none of them.
    pub not_tags_any: Vec<String>,
    /// Sort keys (column, direction); empty = `created_at` (when the table has it) then key.
    pub sort: Vec<(String, SortDir)>,
    /// Id of the last row of the previous page.
    pub marker: Option<String>,
    /// Page backwards from the marker.
    pub page_reverse: bool,
    /// At most this many rows (`None`: all).
    pub limit: Option<u32>,
}

impl ListQuery {
    /// Adds a `column = value` filter.
    pub fn filter(mut self, column: &str, value: impl Into<SqlValue>) -> Self {
        self.filters.push((column.to_owned(), value.into()));
        self
    }
}

impl Tx {
    /// The row of `T` whose key column equals `key`, or `None`.
    pub async fn find<T: Record>(&mut self, key: &str) -> Result<Option<T>, DbError> {
        let sql = format!(
            "SELECT {} FROM `{}` WHERE `{}` = ?",
            select_list::<T>(),
            T::TABLE,
            col(T::KEY)
        );
        self.fetch_optional(&sql, vec![key.into()]).await
    }

    /// The row of `T` whose key column equals `key`; [`DbError::NotFound`] (`<Resource> <id> not
    /// found.`) when absent. DELETED rows are returned (the API decides whether to hide them).
    pub async fn get<T: Record>(&mut self, key: &str) -> Result<T, DbError> {
        self.find(key).await?.ok_or_else(|| DbError::NotFound {
            resource: T::RESOURCE,
            id: key.to_owned(),
        })
    }

    /// Like [`Tx::get`] but locks the row (`SELECT … FOR UPDATE` on MariaDB).
    pub async fn get_for_update<T: Record>(&mut self, key: &str) -> Result<T, DbError> {
        let sql = format!(
            "SELECT {} FROM `{}` WHERE `{}` = ?{}",
            select_list::<T>(),
            T::TABLE,
            col(T::KEY),
            self.for_update()
        );
        self.fetch_optional(&sql, vec![key.into()])
            .await?
            .ok_or_else(|| DbError::NotFound {
                resource: T::RESOURCE,
                id: key.to_owned(),
            })
    }

    /// Rows of `T` matching `q` (see [`ListQuery`]). Errors: [`DbError::InvalidColumn`] for an
    /// unknown filter/sort column, [`DbError::NotFound`] when the marker row does not exist.
    pub async fn list<T: Record>(&mut self, q: &ListQuery) -> Result<Vec<T>, DbError> {
        let mut args: Vec<SqlValue> = Vec::new();
        let mut wh = filter_conditions::<T>(q, &mut args)?;
        let sort = sort_keys::<T>(q)?;
        let eff = |d: SortDir| effective(d, q.page_reverse);
        if let Some(marker) = &q.marker {
            let cols = sort
                .iter()
                .map(|(c, _)| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ");
            let sql = format!(
                "SELECT {cols} FROM `{}` WHERE `{}` = ?",
                T::TABLE,
                col(T::KEY)
            );
            let Some(mvals) = self.marker_values(&sql, marker, sort.len()).await? else {
                return Err(DbError::NotFound {
                    resource: T::RESOURCE,
                    id: marker.clone(),
                });
            };
            wh.extend(after_marker(&sort, &mvals, q.page_reverse, &mut args));
        }
        let mut sql = format!("SELECT {} FROM `{}`", select_list::<T>(), T::TABLE);
        if !wh.is_empty() {
            sql.push_str(" WHERE ");
            sql.push_str(&wh.join(" AND "));
        }
        let order = sort
            .iter()
            .map(|(c, d)| match eff(*d) {
                SortDir::Asc => format!("`{c}` ASC"),
                SortDir::Desc => format!("`{c}` DESC"),
            })
            .collect::<Vec<_>>()
            .join(", ");
        sql.push_str(&format!(" ORDER BY {order}"));
        if let Some(l) = q.limit {
            sql.push_str(&format!(" LIMIT {l}"));
        }
        let mut rows: Vec<T> = self.fetch_all(&sql, args).await?;
        if q.page_reverse {
            rows.reverse();
        }
        Ok(rows)
    }

    /// Reads the marker row's sort-key values as [`SqlValue`]s (typed by probing).
    async fn marker_values(
        &mut self,
        sql: &str,
        marker: &str,
        n: usize,
    ) -> Result<Option<Vec<SqlValue>>, DbError> {
        // Read every key as text-or-null is not portable for DATETIME/INT, so decode each column
        // with a small row type that tries the column types in turn.
        let row: Option<MarkerRow> = self.fetch_optional(sql, vec![marker.into()]).await?;
        Ok(row.map(|r| r.0.into_iter().take(n).collect()))
    }

    /// Inserts a row (`created_at` is set to [`now`] when the table has timestamps and the field
    /// is `None`). Errors: [`DbError::Duplicate`] on a key/unique violation,
    /// [`DbError::ForeignKey`] on a missing parent or lookup value.
    pub async fn insert<T: Record>(&mut self, row: &T) -> Result<(), DbError> {
        self.insert_many(std::slice::from_ref(row)).await
    }

    /// [`Tx::insert`] of many rows in multi-row `INSERT`s (100 rows per statement): a batch of
    /// 200 members was 200 statements. Errors: as [`Tx::insert`]; on one, nothing of that
    /// statement is written (the caller drops the transaction).
    pub async fn insert_many<T: Record>(&mut self, rows: &[T]) -> Result<(), DbError> {
        for chunk in rows.chunks(100) {
            let mut args = Vec::new();
            let mut tuples = Vec::new();
            for row in chunk {
                let mut vals = row.values();
                if T::ROOT {
                    let at = T::COLUMNS.iter().position(|c| *c == "provisioning_status");
                    if let Some(v) = at.and_then(|i| vals.get(i)) {
                        self.note_lb_status(&row.key(), &v.clone());
                    }
                }
                if T::TIMESTAMPS
                    && let Some(i) = T::COLUMNS.iter().position(|c| *c == "created_at")
                    && vals[i] == SqlValue::Null
                {
                    vals[i] = SqlValue::Time(now());
                }
                tuples.push(format!("({})", vec!["?"; vals.len()].join(", ")));
                args.extend(vals);
            }
            if tuples.is_empty() {
                continue;
            }
            let sql = format!(
                "INSERT INTO `{}` ({}) VALUES {}",
                T::TABLE,
                select_list::<T>(),
                tuples.join(", ")
            );
            self.execute(&sql, args).await?;
        }
        Ok(())
    }

    /// [`Tx::update`] of the rows of `T` whose key is one of `keys`, one statement per 500 keys;
    /// returns rows matched. A `load_balancer` status written this way is not noted for
    /// [`Tx::commit`]'s settle wait (the status path writes final statuses only).
    pub async fn update_many<T: Record>(
        &mut self,
        keys: &[String],
        changes: &[(&str, SqlValue)],
    ) -> Result<u64, DbError> {
        let mut n = 0;
        for (sql, args) in update_statements::<T>(keys, changes)? {
            n += self.execute(&sql, args).await?;
        }
        Ok(n)
    }

    /// [`Tx::update_many`] as held-back writes of the status path (`db::batch`);
    /// `on_zero` says what no matched row means.
    pub(crate) async fn update_many_held<T: Record>(
        &mut self,
        keys: &[String],
        changes: &[(&str, SqlValue)],
        on_zero: crate::db::OnZero,
    ) -> Result<(), DbError> {
        for (sql, args) in update_statements::<T>(keys, changes)? {
            self.write(sql, args, on_zero.clone()).await?;
        }
        Ok(())
    }

    /// Partial update of the row of `T` with key `key`: sets each `(column, value)` and, for
    /// tables with timestamps, `updated_at = now()`. Returns rows matched (0 = no such row; not an
    /// error, as the ORM's `update`). Errors: [`DbError::InvalidColumn`], FK/unique violations.
    pub async fn update<T: Record>(
        &mut self,
        key: &str,
        changes: &[(&str, SqlValue)],
    ) -> Result<u64, DbError> {
        if changes.is_empty() {
            return Ok(0);
        }
        if T::ROOT
            && let Some((_, v)) = changes.iter().find(|(c, _)| *c == "provisioning_status")
        {
            self.note_lb_status(key, v);
        }
        self.update_many::<T>(&[key.to_owned()], changes).await
    }

    /// Deletes the rows of `T` whose key column equals `key` (no cascades: see
    /// [`Tx::delete_listener_cascade`] and friends). Returns rows deleted.
    pub async fn delete<T: Record>(&mut self, key: &str) -> Result<u64, DbError> {
        let sql = format!("DELETE FROM `{}` WHERE `{}` = ?", T::TABLE, col(T::KEY));
        self.execute(&sql, vec![key.into()]).await
    }

    /// [`Tx::delete`] as a held-back write of the status path (`db::batch`).
    pub(crate) async fn delete_held<T: Record>(&mut self, key: &str) -> Result<(), DbError> {
        let sql = format!("DELETE FROM `{}` WHERE `{}` = ?", T::TABLE, col(T::KEY));
        self.write(sql, vec![key.into()], crate::db::OnZero::Ignore)
            .await
    }

    /// Tags of one resource, sorted.
    pub async fn tags(&mut self, resource_id: &str) -> Result<Vec<String>, DbError> {
        self.fetch_scalars(
            "SELECT `tag` FROM `tags` WHERE `resource_id` = ? ORDER BY `tag`",
            vec![resource_id.into()],
        )
        .await
    }

    /// Tags of many resources at once (for list responses), as `(resource_id, tag)` rows.
    pub async fn tags_of(&mut self, resource_ids: &[String]) -> Result<Vec<TagRow>, DbError> {
        if resource_ids.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT `resource_id`, `tag` FROM `tags` WHERE `resource_id` IN ({}) ORDER BY `resource_id`, `tag`",
            vec!["?"; resource_ids.len()].join(", ")
        );
        self.fetch_all(
            &sql,
            resource_ids
                .iter()
                .map(|s| SqlValue::Text(s.clone()))
                .collect(),
        )
        .await
    }

    /// Replaces the tags of a resource (duplicates collapse, as the ORM's set semantics).
    pub async fn set_tags(&mut self, resource_id: &str, tags: &[String]) -> Result<(), DbError> {
        self.execute(
            "DELETE FROM `tags` WHERE `resource_id` = ?",
            vec![resource_id.into()],
        )
        .await?;
        let mut uniq = tags.to_vec();
        uniq.sort();
        uniq.dedup();
        for t in uniq {
            self.execute(
                "INSERT INTO `tags` (`resource_id`, `tag`) VALUES (?, ?)",
                vec![resource_id.into(), t.into()],
            )
            .await?;
        }
        Ok(())
    }
}

/// A row of arbitrary columns decoded into [`SqlValue`]s (used for marker values).
pub(crate) struct MarkerRow(pub(crate) Vec<SqlValue>);

macro_rules! marker_from_row {
    ($row:ty) => {
        impl<'r> sqlx::FromRow<'r, $row> for MarkerRow {
            fn from_row(row: &'r $row) -> Result<Self, sqlx::Error> {
                use sqlx::{Row, ValueRef};
                let mut out = Vec::new();
                for i in 0..row.len() {
                    let raw = row.try_get_raw(i)?;
                    if raw.is_null() {
                        out.push(SqlValue::Null);
                        continue;
                    }
                    let v = if let Ok(v) = row.try_get::<chrono::NaiveDateTime, _>(i) {
                        SqlValue::Time(v)
                    } else if let Ok(v) = row.try_get::<i64, _>(i) {
                        SqlValue::Int(v)
                    } else if let Ok(v) = row.try_get::<f64, _>(i) {
                        SqlValue::Float(v)
                    } else {
                        SqlValue::Text(row.try_get::<String, _>(i)?)
                    };
                    out.push(v);
                }
                Ok(MarkerRow(out))
            }
        }
    };
}
marker_from_row!(sqlx::sqlite::SqliteRow);
marker_from_row!(sqlx::mysql::MySqlRow);

/// The `UPDATE … WHERE key IN (…)` statements of [`Tx::update_many`], 500 keys each, with
/// `updated_at = now()` for tables with timestamps. Errors: [`DbError::InvalidColumn`].
fn update_statements<T: Record>(
    keys: &[String],
    changes: &[(&str, SqlValue)],
) -> Result<Vec<(String, Vec<SqlValue>)>, DbError> {
    if changes.is_empty() {
        return Ok(Vec::new());
    }
    let mut sets = Vec::new();
    let mut head = Vec::new();
    // A deleted load balancer's row stays (soft delete) and keeps its statuses: a report
    // arriving after the delete must not bring it back (the reference's driver updater
    // writes whatever comes).
    let deleted = SqlValue::from("DELETED");
    let guard_deleted = T::ROOT
        && !changes
            .iter()
            .any(|(c, v)| *c == "provisioning_status" && *v == deleted);
    for (c, v) in changes {
        let c = check_column::<T>(c)?;
        if guard_deleted && (c == "provisioning_status" || c == "operating_status") {
            sets.push(format!(
                "`{c}` = CASE WHEN `provisioning_status` = 'DELETED' THEN `{c}` ELSE ? END"
            ));
        } else {
            sets.push(format!("`{c}` = ?"));
        }
        head.push(v.clone());
    }
    if T::TIMESTAMPS && !changes.iter().any(|(c, _)| *c == "updated_at") {
        sets.push("`updated_at` = ?".into());
        head.push(SqlValue::Time(now()));
    }
    Ok(keys
        .chunks(500)
        .map(|chunk| {
            let mut args = head.clone();
            args.extend(chunk.iter().map(|k| SqlValue::from(k.as_str())));
            let sql = format!(
                "UPDATE `{}` SET {} WHERE `{}` IN ({})",
                T::TABLE,
                sets.join(", "),
                col(T::KEY),
                vec!["?"; chunk.len()].join(", ")
            );
            (sql, args)
        })
        .collect())
}

/// The `WHERE` conditions of a [`ListQuery`]'s filters, `IN` lists, DELETED exclusion and tag
/// groups (`tags` all / any, `not-tags` all / any, as octavia/db/repositories.py's tag
/// filters), their values pushed to `args` in order. Errors: [`DbError::InvalidColumn`].
fn filter_conditions<T: Record>(
    q: &ListQuery,
    args: &mut Vec<SqlValue>,
) -> Result<Vec<String>, DbError> {
    let mut wh = Vec::new();
    for (c, v) in &q.filters {
        let c = check_column::<T>(c)?;
        if *v == SqlValue::Null {
            wh.push(format!("`{c}` IS NULL"));
        } else {
            wh.push(format!("`{c}` = ?"));
            args.push(v.clone());
        }
    }
    for (c, vs) in &q.filters_in {
        let c = check_column::<T>(c)?;
        if vs.is_empty() {
            wh.push("1 = 0".into());
        } else {
            wh.push(format!("`{c}` IN ({})", vec!["?"; vs.len()].join(", ")));
            args.extend(vs.iter().cloned());
        }
    }
    if q.exclude_deleted && T::COLUMNS.contains(&"provisioning_status") {
        wh.push("`provisioning_status` <> 'DELETED'".into());
    }
    let key = col(T::KEY);
    let tag_sub = |n: usize| {
        format!(
            "(SELECT COUNT(DISTINCT `tag`) FROM `tags` WHERE `tags`.`resource_id` = `{}`.`{key}` \
             AND `tag` IN ({}))",
            T::TABLE,
            vec!["?"; n].join(", ")
        )
    };
    let tag_groups = [
        (&q.tags_all, true, false),
        (&q.tags_any, false, false),
        (&q.not_tags_all, true, true),
        (&q.not_tags_any, false, true),
    ];
    for (tags, all, negate) in tag_groups {
        if tags.is_empty() {
            continue;
        }
        let mut uniq = tags.clone();
        uniq.sort();
        uniq.dedup();
        let cond = if all {
            format!("{} = {}", tag_sub(uniq.len()), uniq.len())
        } else {
            format!("{} > 0", tag_sub(uniq.len()))
        };
        wh.push(if negate {
            format!("NOT ({cond})")
        } else {
            cond
        });
        args.extend(uniq.into_iter().map(SqlValue::Text));
    }
    Ok(wh)
}

/// The sort keys of a [`ListQuery`] (default `created_at` ascending where the table has
/// timestamps), with the table key appended as a unique tie-breaker in the last key's
/// direction. Errors: [`DbError::InvalidColumn`].
fn sort_keys<T: Record>(q: &ListQuery) -> Result<Vec<(&'static str, SortDir)>, DbError> {
    let mut sort: Vec<(&'static str, SortDir)> = Vec::new();
    if q.sort.is_empty() {
        if T::TIMESTAMPS {
            sort.push(("created_at", SortDir::Asc));
        }
    } else {
        for (c, d) in &q.sort {
            sort.push((check_column::<T>(c)?, *d));
        }
    }
    let key = col(T::KEY);
    if !sort.iter().any(|(c, _)| *c == key) {
        let d = sort.last().map(|s| s.1).unwrap_or_default();
        sort.push((check_column::<T>(key)?, d));
    }
    Ok(sort)
}

/// A sort direction as the statement runs it: reversed for a page read backwards
/// (`page_reverse`), whose rows are turned round afterwards.
fn effective(d: SortDir, reverse: bool) -> SortDir {
    match (d, reverse) {
        (SortDir::Asc, false) | (SortDir::Desc, true) => SortDir::Asc,
        _ => SortDir::Desc,
    }
}

/// The keyset condition of the rows after the marker whose sort-key values are `mvals`:
/// `(k1 > v1) OR (k1 = v1 AND k2 > v2) OR …` (`<` for a descending key), NULLs sorting first
/// ascending on both backends; `None` when no row can follow. Values go to `args` in order.
fn after_marker(
    sort: &[(&'static str, SortDir)],
    mvals: &[SqlValue],
    reverse: bool,
    args: &mut Vec<SqlValue>,
) -> Option<String> {
    let mut ors = Vec::new();
    for (i, &(c, d)) in sort.iter().enumerate() {
        let mut ands = Vec::new();
        for (j, (c, _)) in sort.iter().enumerate().take(i) {
            if mvals[j] == SqlValue::Null {
                ands.push(format!("`{c}` IS NULL"));
            } else {
                ands.push(format!("`{c}` = ?"));
                args.push(mvals[j].clone());
            }
        }
        let ascending = effective(d, reverse) == SortDir::Asc;
        if mvals[i] == SqlValue::Null {
            if !ascending {
                continue;
            }
            ands.push(format!("`{c}` IS NOT NULL"));
        } else {
            if ascending {
                ands.push(format!("`{c}` > ?"));
            } else {
                ands.push(format!("(`{c}` < ? OR `{c}` IS NULL)"));
            }
            args.push(mvals[i].clone());
        }
        ors.push(format!("({})", ands.join(" AND ")));
    }
    (!ors.is_empty()).then(|| format!("({})", ors.join(" OR ")))
}
