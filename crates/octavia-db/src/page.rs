//! One page of a collection in SQL: filters, keyset pagination on arbitrary sort expressions
//! and a limit, as `octavia/api/common/pagination.py` builds its query, with only the page's
//! rows read.
//!
//! The caller (the API's list handlers) gives SQL fragments over the table aliased `t` (and the
//! joins it adds): the scope conditions (project, parent, not DELETED — they also bound where the
//! marker may be found), the filter conditions and the sort keys.
//! Keyset semantics are those of the API's in-memory pagination: NULL sorts lowest (first
//! ascending on both backends) and equals NULL; rows strictly after the marker (before it with
//! `page_reverse`, still returned in forward order — the reference flips the comparison only).

use crate::db::Tx;
use crate::error::DbError;
use crate::sql::SqlValue;

use crate::repo::{MarkerRow, col};
use crate::rows::Record;

/// A SQL condition with its `?` arguments, in order.
pub type Cond = (String, Vec<SqlValue>);

/// What [`Tx::page`] runs. Fragments refer to the listed table as `t`.
#[derive(Debug, Clone, Default)]
pub struct PageQuery {
    /// Joins after `FROM <table> t`, e.g. ``LEFT JOIN `vip` `v` ON `v`.`load_balancer_id` = `t`.`id` ``.
    pub joins: String,
    /// Conditions of the caller's scope (the marker must satisfy them too).
    pub scope: Vec<Cond>,
    /// Filter conditions (the marker need not satisfy them).
    pub filters: Vec<Cond>,
    /// Keyset sort keys: `(expression, descending)`.
    pub keys: Vec<(String, bool)>,
    /// Id (table key) of the marker row.
    pub marker: Option<String>,
    /// Rows before the marker instead of after it.
    pub page_reverse: bool,
    /// At most this many rows (`None`: all).
    pub limit: Option<usize>,
}

fn where_clause(conds: &[&Cond], args: &mut Vec<SqlValue>) -> String {
    if conds.is_empty() {
        return String::new();
    }
    let mut parts = Vec::new();
    for (sql, a) in conds {
        parts.push(format!("({sql})"));
        args.extend(a.iter().cloned());
    }
    format!(" WHERE {}", parts.join(" AND "))
}

/// `(k1 > v1) OR (k1 = v1 AND k2 > v2) OR …` with NULL lowest; `None` when no row can follow.
fn keyset(keys: &[(String, bool)], marker: &[SqlValue], reverse: bool) -> Option<Cond> {
    let mut ors = Vec::new();
    let mut args = Vec::new();
    for i in 0..keys.len() {
        let mut ands = Vec::new();
        let mut a = Vec::new();
        for (j, (e, _)) in keys.iter().enumerate().take(i) {
            if marker[j] == SqlValue::Null {
                ands.push(format!("{e} IS NULL"));
            } else {
                ands.push(format!("{e} = ?"));
                a.push(marker[j].clone());
            }
        }
        let (e, desc) = &keys[i];
        let greater = *desc == reverse;
        match (&marker[i], greater) {
            (SqlValue::Null, true) => ands.push(format!("{e} IS NOT NULL")),
            (SqlValue::Null, false) => continue,
            (v, true) => {
                ands.push(format!("{e} > ?"));
                a.push(v.clone());
            }
            (v, false) => {
                ands.push(format!("({e} < ? OR {e} IS NULL)"));
                a.push(v.clone());
            }
        }
        ors.push(format!("({})", ands.join(" AND ")));
        args.extend(a);
    }
    if ors.is_empty() {
        None
    } else {
        Some((ors.join(" OR "), args))
    }
}

impl Tx {
    /// The rows of `T` on the page `q` describes, in order; `Ok(None)` when the marker is not
    /// a row of the scope. Two statements with a marker (its sort values, then the page), one
    /// without. Errors: SQL errors only (the fragments are the caller's).
    pub async fn page<T: Record>(&mut self, q: &PageQuery) -> Result<Option<Vec<T>>, DbError> {
        let from = format!("FROM `{}` `t` {}", T::TABLE, q.joins);
        let key = format!("`t`.`{}`", col(T::KEY));
        let mut conds: Vec<&Cond> = q.scope.iter().chain(q.filters.iter()).collect();
        let keyset_cond;
        if let Some(marker) = &q.marker {
            let mut args = Vec::new();
            let mut scope: Vec<&Cond> = q.scope.iter().collect();
            let by_key = (format!("{key} = ?"), vec![SqlValue::Text(marker.clone())]);
            scope.push(&by_key);
            let exprs = if q.keys.is_empty() {
                // one column so that the row decodes; its value is not used
                key.clone()
            } else {
                q.keys
                    .iter()
                    .map(|(e, _)| e.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let sql = format!("SELECT {exprs} {from}{}", where_clause(&scope, &mut args));
            let Some(KeyRow(values)) = self.fetch_optional::<KeyRow>(&sql, args).await? else {
                return Ok(None);
            };
            if !q.keys.is_empty() {
                match keyset(&q.keys, &values, q.page_reverse) {
                    Some(c) => {
                        keyset_cond = c;
                        conds.push(&keyset_cond);
                    }
                    None => return Ok(Some(Vec::new())),
                }
            }
        }
        let mut args = Vec::new();
        let select = T::COLUMNS
            .iter()
            .map(|c| format!("`t`.`{}`", col(c)))
            .collect::<Vec<_>>()
            .join(", ");
        let mut sql = format!("SELECT {select} {from}{}", where_clause(&conds, &mut args));
        let mut order: Vec<String> = q
            .keys
            .iter()
            .map(|(e, d)| format!("{e} {}", if *d { "DESC" } else { "ASC" }))
            .collect();
        // the table key last, ascending and outside the keyset: rows equal on every key keep
        // the order of a stable sort of rows read by key
        order.push(format!("{key} ASC"));
        sql.push_str(&format!(" ORDER BY {}", order.join(", ")));
        if let Some(l) = q.limit {
            sql.push_str(&format!(" LIMIT {l}"));
        }
        Ok(Some(self.fetch_all(&sql, args).await?))
    }
}

/// The marker's sort values. On SQLite by the stored value's class (a DATETIME is stored as
/// text and compares as the same text; probing would read an integer as a datetime), on
/// MariaDB by the column type.
struct KeyRow(Vec<SqlValue>);

impl<'r> sqlx::FromRow<'r, sqlx::sqlite::SqliteRow> for KeyRow {
    fn from_row(row: &'r sqlx::sqlite::SqliteRow) -> Result<Self, sqlx::Error> {
        use sqlx::{Row, TypeInfo, ValueRef};
        let mut out = Vec::with_capacity(row.len());
        for i in 0..row.len() {
            let raw = row.try_get_raw(i)?;
            if raw.is_null() {
                out.push(SqlValue::Null);
                continue;
            }
            let class = raw.type_info().name().to_ascii_uppercase();
            out.push(match class.as_str() {
                "INTEGER" | "BOOLEAN" => SqlValue::Int(row.try_get_unchecked::<i64, _>(i)?),
                "REAL" => SqlValue::Float(row.try_get_unchecked::<f64, _>(i)?),
                "BLOB" => SqlValue::Bytes(row.try_get_unchecked::<Vec<u8>, _>(i)?),
                _ => SqlValue::Text(row.try_get_unchecked::<String, _>(i)?),
            });
        }
        Ok(KeyRow(out))
    }
}

impl<'r> sqlx::FromRow<'r, sqlx::mysql::MySqlRow> for KeyRow {
    fn from_row(row: &'r sqlx::mysql::MySqlRow) -> Result<Self, sqlx::Error> {
        let MarkerRow(v) = MarkerRow::from_row(row)?;
        Ok(KeyRow(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyset_handles_nulls_and_directions() {
        let keys = vec![("a".to_string(), false), ("b".to_string(), true)];
        let (sql, args) =
            keyset(&keys, &[SqlValue::Null, SqlValue::Int(3)], false).unwrap_or_default();
        assert_eq!(
            sql,
            "(a IS NOT NULL) OR (a IS NULL AND (b < ? OR b IS NULL))"
        );
        assert_eq!(args, vec![SqlValue::Int(3)]);
        let (sql, _) = keyset(&keys, &[SqlValue::Int(1), SqlValue::Null], true).unwrap_or_default();
        assert_eq!(sql, "((a < ? OR a IS NULL)) OR (a = ? AND b IS NOT NULL)");
        assert!(keyset(&keys[..1], &[SqlValue::Null], true).is_none());
    }
}
