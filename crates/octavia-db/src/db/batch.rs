//! Write batching, mainly of the status path: while a status report is applied, writes
//! whose row count only matters as "zero rows is an error / a log line" are held back and go
//! to MariaDB together, as one multi-statement text query — one round trip — right before the
//! transaction's next read, savepoint or commit. Reads therefore always see every earlier
//! write, and the order of statements is unchanged.
//!
//! A report's records are applied in §2.2 order and stop at the first failure; with batching
//! a failure can surface a few statements late, so batching is used only where a failure
//! rolls the whole report back (the savepoint of a handed-over report, the all-at-once
//! transaction of [`crate::StatusUpdater`]) and the report is then replayed record by record
//! without batching, which gives octavia's per-record outcome.
//!
//! Values are inlined as SQL literals only when that is safe without escaping (numbers,
//! times, hex bytes, and text of id-like characters); a batch holding any other value runs
//! statement by statement, prepared. SQLite (in-process, no round trips) never batches.
//!
//! On the API path two writes are held the same way: the load balancer's test-and-set of
//! [`crate::Tx::lock_lb_for_child`] with its listeners' statuses, and a quota counter set on a
//! row the transaction has just locked (`Tx::write_soon`); both go with the next statement.
//!
//! This module knows connections, not transactions: [`crate::Tx`] holds a [`Batch`] and drives
//! it with its connection.

use sqlx::Either;
use sqlx::mysql::MySqlRow;

use crate::DbError;
use crate::sql::{Conn, SqlValue};

/// What a held-back write of no rows means.
#[derive(Debug, Clone)]
pub(crate) enum OnZero {
    /// Nothing (a delete of rows that may not exist, an update by a set of ids).
    Ignore,
    /// The record's object is missing: [`DbError::NotFound`].
    NotFound {
        /// Display name (`Listener`, `L7Policy`, …).
        resource: &'static str,
        /// The id written to.
        id: String,
    },
    /// A warning for the operator, nothing fails (octavia logs it and goes on).
    Warn(String),
}

struct Held {
    sql: String,
    args: Vec<SqlValue>,
    on_zero: OnZero,
}

/// The writes a [`crate::Tx`] holds back, and whether it is batching now. The `Tx` methods
/// (`start_batching`, `write`, `write_soon`, `flush`, `query_batch`) drive it with the
/// transaction's connection.
#[derive(Default)]
pub(crate) struct Batch {
    on: bool,
    held: Vec<Held>,
    /// How many were held when batching started (`Tx::write_soon`'s, which a dropped
    /// batch keeps).
    before: usize,
}

impl Batch {
    /// From now on writes are held back, when `mysql` (SQLite never batches).
    pub(crate) fn start(&mut self, mysql: bool) {
        self.on = mysql;
        self.before = self.held.len();
    }

    /// Stops batching; without `keep`, drops what was held since [`Batch::start`] (the
    /// caller rolls back past those writes). What is kept goes with the next flush.
    pub(crate) fn stop(&mut self, keep: bool) {
        self.on = false;
        if !keep {
            self.held.truncate(self.before);
        }
    }

    /// True while writes are held back.
    pub(crate) fn is_on(&self) -> bool {
        self.on
    }

    /// Queues a write for the next [`Batch::flush`].
    pub(crate) fn hold(&mut self, sql: impl Into<String>, args: Vec<SqlValue>, on_zero: OnZero) {
        self.held.push(Held {
            sql: sql.into(),
            args,
            on_zero,
        });
    }

    /// Sends the held writes on `conn`: as one multi-statement query when every value can be
    /// inlined, else one by one; then checks each one's row count in order. Called before
    /// every statement the transaction runs, so a read sees the writes held before it.
    /// Errors: the failing statement's, or [`DbError::NotFound`] per a write's [`OnZero`].
    pub(crate) async fn flush(&mut self, mut conn: Conn<'_>) -> Result<(), DbError> {
        if self.held.is_empty() {
            return Ok(());
        }
        let held = std::mem::take(&mut self.held);
        let text = if held.len() > 1 {
            held.iter()
                .map(|h| inline(&h.sql, &h.args))
                .collect::<Option<Vec<String>>>()
                .map(|s| s.join(";\n"))
        } else {
            None
        };
        let counts: Vec<u64> = match (text, &mut conn) {
            (Some(text), Conn::MySql(c)) => run_text(c, &text, held.len())
                .await?
                .into_iter()
                .map(|(n, _)| n)
                .collect(),
            _ => {
                let mut counts = Vec::with_capacity(held.len());
                for h in &held {
                    counts.push(conn.execute(&h.sql, h.args.clone()).await?);
                }
                counts
            }
        };
        for (n, h) in counts.into_iter().zip(held) {
            check(n, h.on_zero)?;
        }
        Ok(())
    }
}

/// `stmts` as one multi-statement text, every value inlined; `None` when a value has no
/// escape-free literal.
pub(crate) fn inline_all(stmts: &[(String, Vec<SqlValue>)]) -> Option<String> {
    stmts
        .iter()
        .map(|(sql, args)| inline(sql, args))
        .collect::<Option<Vec<String>>>()
        .map(|s| s.join(";\n"))
}

/// Runs a multi-statement text query of `statements` statements: per statement, its row
/// count and rows. Errors: [`DbError::Batch`] when the server answered another number.
#[tracing::instrument(
    target = "keel::stage",
    name = "db_statement",
    level = "trace",
    skip_all
)]
pub(crate) async fn run_text(
    c: &mut sqlx::MySqlConnection,
    text: &str,
    statements: usize,
) -> Result<Vec<(u64, Vec<MySqlRow>)>, DbError> {
    use futures::TryStreamExt;
    let mut out = Vec::new();
    let mut rows = Vec::new();
    let mut results = sqlx::Executor::fetch_many(c, text);
    while let Some(r) = results.try_next().await? {
        match r {
            Either::Left(done) => out.push((done.rows_affected(), std::mem::take(&mut rows))),
            Either::Right(row) => rows.push(row),
        }
    }
    if out.len() != statements {
        return Err(DbError::Batch(format!(
            "{statements} statements sent, {} results",
            out.len()
        )));
    }
    Ok(out)
}

/// The outcome of a write of `n` rows per its [`OnZero`].
pub(crate) fn check(n: u64, on_zero: OnZero) -> Result<(), DbError> {
    if n > 0 {
        return Ok(());
    }
    match on_zero {
        OnZero::Ignore => Ok(()),
        OnZero::NotFound { resource, id } => Err(DbError::NotFound { resource, id }),
        OnZero::Warn(what) => {
            tracing::warn!("{what}");
            Ok(())
        }
    }
}

/// `sql` with each `?` placeholder (outside quotes) replaced by its argument as a MariaDB
/// literal; `None` when an argument has no escape-free literal or the counts differ.
pub(crate) fn inline(sql: &str, args: &[SqlValue]) -> Option<String> {
    let mut out = String::with_capacity(sql.len() + 40 * args.len());
    let mut args = args.iter();
    let mut quote: Option<char> = None;
    for ch in sql.chars() {
        match (quote, ch) {
            (Some(q), c) if c == q => quote = None,
            (None, '\'' | '`' | '"') => quote = Some(ch),
            (None, '?') => {
                out.push_str(&literal(args.next()?)?);
                continue;
            }
            _ => {}
        }
        out.push(ch);
    }
    (quote.is_none() && args.next().is_none()).then_some(out)
}

/// A value as a literal needing no escapes, if it has one.
fn literal(v: &SqlValue) -> Option<String> {
    Some(match v {
        SqlValue::Null => "NULL".into(),
        SqlValue::Bool(b) => if *b { "1" } else { "0" }.into(),
        SqlValue::Int(i) => i.to_string(),
        SqlValue::Float(f) if f.is_finite() => format!("{f:?}"),
        SqlValue::Float(_) => return None,
        SqlValue::Text(s) if s.chars().all(plain) => format!("'{s}'"),
        SqlValue::Text(_) => return None,
        SqlValue::Bytes(b) => {
            let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
            format!("X'{hex}'")
        }
        SqlValue::Time(t) => format!("'{}'", t.format("%Y-%m-%d %H:%M:%S%.6f")),
    })
}

/// Characters of ids, statuses, names and addresses that mean nothing to the SQL lexer
/// inside a quoted literal (no quote, backslash, `?`, control or non-ASCII character).
fn plain(c: char) -> bool {
    c.is_ascii_alphanumeric() || " _-.:/,=+@".contains(c)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn placeholders_outside_quotes_take_the_literals() {
        let sql = "UPDATE `a?` SET `s` = ?, `n` = ? WHERE `id` IN (?, ?) AND `x` <> '?'";
        let args = vec![
            SqlValue::Text("ACTIVE".into()),
            SqlValue::Int(-3),
            SqlValue::Text("5b1c-0a".into()),
            SqlValue::Null,
        ];
        assert_eq!(
            inline(sql, &args).unwrap(),
            "UPDATE `a?` SET `s` = 'ACTIVE', `n` = -3 WHERE `id` IN ('5b1c-0a', NULL) AND `x` <> '?'"
        );
    }

    #[test]
    fn values_without_a_safe_literal_or_a_count_mismatch_give_none() {
        for bad in ["it's", "a\\b", "new\nline", "why?", "café"] {
            assert!(
                inline("SELECT ?", &[SqlValue::Text(bad.into())]).is_none(),
                "{bad}"
            );
        }
        assert!(inline("SELECT ?", &[SqlValue::Float(f64::NAN)]).is_none());
        assert!(inline("SELECT ?, ?", &[SqlValue::Int(1)]).is_none());
        assert!(inline("SELECT ?", &[SqlValue::Int(1), SqlValue::Int(2)]).is_none());
        assert!(inline("SELECT 'open ?", &[SqlValue::Int(1)]).is_none());
    }

    #[test]
    fn other_literals() {
        let t = chrono::NaiveDate::from_ymd_opt(2026, 11, 30)
            .unwrap()
            .and_hms_opt(4, 5, 6)
            .unwrap();
        let args = vec![
            SqlValue::Bool(true),
            SqlValue::Float(0.5),
            SqlValue::Bytes(vec![0, 255]),
            SqlValue::Time(t),
        ];
        assert_eq!(
            inline("VALUES (?, ?, ?, ?)", &args).unwrap(),
            "VALUES (1, 0.5, X'00ff', '2026-11-30 04:05:06.000000')"
        );
    }
}
