//! `[database] connection`: oslo.db's SQLAlchemy URL → the form `octavia_db::Database::connect`
//! takes, refusing every part of it Keel's driver would silently drop.

use super::error::{DbUrlError, RefusedParameter};

/// oslo.db's SQLAlchemy URL → the form `octavia_db::Database::connect` takes.
///
/// * `mysql+pymysql://…`, `mysql://…`: unchanged (the driver part is dropped by octavia-db);
///   its query may only hold `charset=utf8` or `charset=utf8mb4` (see [`mysql_parameter`]).
/// * `sqlite://` → in memory; `sqlite:///rel.db` → `rel.db` relative to the working directory,
///   `sqlite:////abs/o.db` → `/abs/o.db` (SQLAlchemy's rule: the path follows the third `/`);
///   the file is created when missing, as SQLAlchemy's pysqlite does. No query parameter
///   (pysqlite's `timeout`, `uri`, … have no counterpart in Keel).
/// * Keel's own form with an explicit `mode=` (`sqlite:///abs/o.db?mode=rwc`) and
///   `sqlite::memory:`: unchanged (sqlx reads, and rejects, its parameters itself).
///
/// Errors: [`DbUrlError::Scheme`] for another scheme (e.g. `postgresql://`) — Keel speaks
/// MariaDB/MySQL and SQLite; [`DbUrlError::SqlitePath`] for an SQLite URL of no known form;
/// [`DbUrlError::Parameters`] naming every query parameter Keel cannot honour.
pub fn octavia_db_url(connection: &str) -> Result<String, DbUrlError> {
    let c = connection.trim();
    if c.starts_with("mysql:") || c.starts_with("mysql+") {
        let refused: Vec<RefusedParameter> = query_pairs(c)
            .filter_map(|(name, value)| {
                mysql_parameter(name, value).map(|why| RefusedParameter {
                    name: name.to_string(),
                    why,
                })
            })
            .collect();
        if !refused.is_empty() {
            return Err(DbUrlError::Parameters(refused));
        }
        return Ok(c.to_string());
    }
    if c == "sqlite::memory:" || (c.starts_with("sqlite:") && c.contains("mode=")) {
        return Ok(c.to_string());
    }
    if let Some(rest) = c.strip_prefix("sqlite://") {
        let (path, _) = rest.split_once('?').unwrap_or((rest, ""));
        let refused: Vec<RefusedParameter> = query_pairs(c)
            .map(|(name, _)| RefusedParameter {
                name: name.to_string(),
                why: "Keel's SQLite connections take no pysqlite/SQLAlchemy parameters",
            })
            .collect();
        if !refused.is_empty() {
            return Err(DbUrlError::Parameters(refused));
        }
        let Some(path) = path.strip_prefix('/') else {
            if path.is_empty() {
                return Ok("sqlite::memory:".into());
            }
            return Err(DbUrlError::SqlitePath);
        };
        if path.is_empty() || path == ":memory:" {
            return Ok("sqlite::memory:".into());
        }
        return Ok(format!("sqlite://{path}?mode=rwc"));
    }
    Err(DbUrlError::Scheme)
}

/// The `name=value` pairs of a URL's query (after `?`, before any `#`), as written: oslo.db
/// passes them to the DB-API driver's `connect()` as keyword arguments.
fn query_pairs(url: &str) -> impl Iterator<Item = (&str, &str)> {
    let query = url.split_once('?').map_or("", |(_, q)| q);
    let query = query.split_once('#').map_or(query, |(q, _)| q);
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| p.split_once('=').unwrap_or((p, "")))
}

/// Why Keel cannot honour one query parameter of a MariaDB URL (None: it can).
///
/// Keel's driver (sqlx, built without TLS) takes the URL's host, credentials and database and
/// of pymysql's keyword arguments only `charset` — the two UTF-8 ones, since Keel reads text
/// as UTF-8 (`utf8` and `utf8mb4` are what deployment tools write). Anything else pymysql or
/// SQLAlchemy would act on (TLS, option files, plugins, an init statement) would be dropped
/// by sqlx without a word, so it is refused.
fn mysql_parameter(name: &str, value: &str) -> Option<&'static str> {
    let key = name.to_ascii_lowercase().replace('-', "_");
    Some(match key.as_str() {
        "charset" => match value {
            "utf8" | "utf8mb4" => return None,
            _ => "Keel's MariaDB connections are UTF-8: charset must be utf8 or utf8mb4",
        },
        "ssl" | "sslmode" | "sslca" | "sslcert" | "sslkey" => {
            "Keel's MariaDB driver is built without TLS: the connection would be plaintext"
        }
        k if k.starts_with("ssl_") => {
            "Keel's MariaDB driver is built without TLS: the connection would be plaintext"
        }
        "read_default_file" | "read_default_group" => {
            "Keel does not read MySQL option files: put host, user and password in the URL"
        }
        "plugin" => "SQLAlchemy plugins cannot be loaded by Keel",
        "init_command" => "Keel does not run an init command on its MariaDB connections",
        _ => "not a parameter Keel's MariaDB driver honours (it takes charset=utf8/utf8mb4 only)",
    })
}
