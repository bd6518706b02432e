//! What every statement is made of, below [`crate::Tx`]: the values bound to `?`
//! placeholders ([`SqlValue`]), the row and scalar types both backends decode ([`AnyRow`],
//! [`AnyScalar`]), and the connection a statement runs on ([`Conn`]) with the five ways of
//! running one. [`crate::Tx`] and its held-back writes (`db::batch`) both build on this, so
//! neither needs the other's internals.

use chrono::NaiveDateTime;
use sqlx::mysql::{MySql, MySqlRow};
use sqlx::sqlite::{Sqlite, SqliteRow};
use sqlx::{Decode, FromRow, Type};

use crate::error::DbError;

/// A value bound to a `?` placeholder. `From` impls exist for the column types of the row structs
/// (`String`, `&str`, `i32`, `i64`, `bool`, `f32`, `f64`, `NaiveDateTime`, `Vec<u8>` and their `Option`s;
/// `None` binds SQL NULL).
#[derive(Debug, Clone, PartialEq)]
pub enum SqlValue {
    /// SQL NULL.
    Null,
    /// A boolean (TINYINT(1) on MariaDB).
    Bool(bool),
    /// An integer (INT / BIGINT).
    Int(i64),
    /// A float (FLOAT).
    Float(f64),
    /// A string (VARCHAR).
    Text(String),
    /// Bytes (BLOB).
    Bytes(Vec<u8>),
    /// A naive UTC datetime (DATETIME).
    Time(NaiveDateTime),
}

macro_rules! sql_value_from {
    ($($t:ty => $v:ident $(as $cast:ty)?),* $(,)?) => {$(
        impl From<$t> for SqlValue {
            fn from(x: $t) -> Self { SqlValue::$v(x $(as $cast)?) }
        }
        impl From<Option<$t>> for SqlValue {
            fn from(x: Option<$t>) -> Self { x.map_or(SqlValue::Null, |x| SqlValue::$v(x $(as $cast)?)) }
        }
    )*};
}
sql_value_from!(
    bool => Bool, i32 => Int as i64, i64 => Int, f64 => Float, String => Text,
    Vec<u8> => Bytes, NaiveDateTime => Time,
);

impl From<f32> for SqlValue {
    fn from(x: f32) -> Self {
        SqlValue::Float(f64::from(x))
    }
}

impl From<Option<f32>> for SqlValue {
    fn from(x: Option<f32>) -> Self {
        x.map_or(SqlValue::Null, |v| SqlValue::Float(f64::from(v)))
    }
}

impl From<provider::ProvisioningStatus> for SqlValue {
    fn from(s: provider::ProvisioningStatus) -> Self {
        SqlValue::Text(s.as_str().to_owned())
    }
}

impl From<provider::OperatingStatus> for SqlValue {
    fn from(s: provider::OperatingStatus) -> Self {
        SqlValue::Text(s.as_str().to_owned())
    }
}

impl From<&str> for SqlValue {
    fn from(x: &str) -> Self {
        SqlValue::Text(x.to_owned())
    }
}

impl From<Option<&str>> for SqlValue {
    fn from(x: Option<&str>) -> Self {
        x.map_or(SqlValue::Null, |s| SqlValue::Text(s.to_owned()))
    }
}

/// Binds a list of [`SqlValue`]s onto a concrete sqlx query (same code for both backends).
macro_rules! bind_all {
    ($q:expr, $args:expr) => {{
        let mut q = $q;
        for a in $args {
            q = match a {
                $crate::sql::SqlValue::Null => q.bind(None::<String>),
                $crate::sql::SqlValue::Bool(v) => q.bind(v),
                $crate::sql::SqlValue::Int(v) => q.bind(v),
                $crate::sql::SqlValue::Float(v) => q.bind(v),
                $crate::sql::SqlValue::Text(v) => q.bind(v),
                $crate::sql::SqlValue::Bytes(v) => q.bind(v),
                $crate::sql::SqlValue::Time(v) => q.bind(v),
            };
        }
        q
    }};
}

/// A row type decodable from both backends (every `#[derive(sqlx::FromRow)]` struct of this crate).
pub trait AnyRow:
    for<'r> FromRow<'r, SqliteRow> + for<'r> FromRow<'r, MySqlRow> + Send + Unpin
{
}
impl<T> AnyRow for T where
    T: for<'r> FromRow<'r, SqliteRow> + for<'r> FromRow<'r, MySqlRow> + Send + Unpin
{
}

/// A scalar decodable from both backends (`String`, `i64`, `i32`, `bool`, `Option<_>` of them, …).
pub trait AnyScalar:
    for<'r> Decode<'r, Sqlite> + Type<Sqlite> + for<'r> Decode<'r, MySql> + Type<MySql> + Send + Unpin
{
}
impl<T> AnyScalar for T where
    T: for<'r> Decode<'r, Sqlite>
        + Type<Sqlite>
        + for<'r> Decode<'r, MySql>
        + Type<MySql>
        + Send
        + Unpin
{
}

pub(crate) use bind_all;

/// The connection a statement runs on (a transaction's, or a pooled one in autocommit).
pub(crate) enum Conn<'a> {
    Sqlite(&'a mut sqlx::SqliteConnection),
    MySql(&'a mut sqlx::MySqlConnection),
}

/// Runs `$body` with `$t` bound to whichever backend's connection `$conn` holds: the same
/// tokens compile once per backend, so a statement is written once.
macro_rules! on_conn {
    ($conn:expr, $t:ident => $body:expr) => {
        match $conn {
            Conn::Sqlite($t) => $body,
            Conn::MySql($t) => $body,
        }
    };
}

impl Conn<'_> {
    /// Runs a statement with `?` placeholders; returns rows affected.
    #[tracing::instrument(
        target = "keel::stage",
        name = "db_statement",
        level = "trace",
        skip_all
    )]
    pub(crate) async fn execute(&mut self, sql: &str, args: Vec<SqlValue>) -> Result<u64, DbError> {
        Ok(on_conn!(self, t => bind_all!(sqlx::query(sql), args)
            .execute(&mut **t)
            .await?
            .rows_affected()))
    }

    /// Runs a query and decodes every row as `T`.
    #[tracing::instrument(
        target = "keel::stage",
        name = "db_statement",
        level = "trace",
        skip_all
    )]
    pub(crate) async fn fetch_all<T: AnyRow>(
        &mut self,
        sql: &str,
        args: Vec<SqlValue>,
    ) -> Result<Vec<T>, DbError> {
        Ok(
            on_conn!(self, t => bind_all!(sqlx::query_as::<_, T>(sql), args)
            .fetch_all(&mut **t)
            .await?),
        )
    }

    /// Runs a query and decodes the first row as `T`, if any.
    #[tracing::instrument(
        target = "keel::stage",
        name = "db_statement",
        level = "trace",
        skip_all
    )]
    pub(crate) async fn fetch_optional<T: AnyRow>(
        &mut self,
        sql: &str,
        args: Vec<SqlValue>,
    ) -> Result<Option<T>, DbError> {
        Ok(
            on_conn!(self, t => bind_all!(sqlx::query_as::<_, T>(sql), args)
            .fetch_optional(&mut **t)
            .await?),
        )
    }

    /// Runs a query and decodes the first column of every row.
    #[tracing::instrument(
        target = "keel::stage",
        name = "db_statement",
        level = "trace",
        skip_all
    )]
    pub(crate) async fn fetch_scalars<T: AnyScalar>(
        &mut self,
        sql: &str,
        args: Vec<SqlValue>,
    ) -> Result<Vec<T>, DbError> {
        Ok(
            on_conn!(self, t => bind_all!(sqlx::query_scalar::<_, T>(sql), args)
            .fetch_all(&mut **t)
            .await?),
        )
    }

    /// Runs a query and decodes the first column of the first row, if any.
    #[tracing::instrument(
        target = "keel::stage",
        name = "db_statement",
        level = "trace",
        skip_all
    )]
    pub(crate) async fn fetch_optional_scalar<T: AnyScalar>(
        &mut self,
        sql: &str,
        args: Vec<SqlValue>,
    ) -> Result<Option<T>, DbError> {
        Ok(
            on_conn!(self, t => bind_all!(sqlx::query_scalar::<_, T>(sql), args)
            .fetch_optional(&mut **t)
            .await?),
        )
    }
}
