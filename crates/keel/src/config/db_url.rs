//! `[database] connection` (+ `connection_parameters`): oslo.db's SQLAlchemy URL → the form
//! `octavia_db::Database::connect` takes (sqlx's MySQL/SQLite URLs), refusing every part of it
//! Keel's driver would silently drop.
//!
//! TLS is read as SQLAlchemy 2.0's pymysql dialect hands the URL to PyMySQL 1.2.0
//! (`create_connect_args`, `Connection.__init__`, `_create_ssl_ctx`); see [`mysql_tls`].

use std::path::Path;

use super::error::{DbUrlError, RefusedParameter};

/// oslo.db's SQLAlchemy URL → the form `octavia_db::Database::connect` takes.
///
/// `parameters` is `[database] connection_parameters` (`a=1&b=2`), appended to the URL's query
/// as oslo.db's `update_query_string(…, append=True)` does, and checked as the URL's own.
///
/// * `mysql+pymysql://…`, `mysql://…`: the driver part is dropped by octavia-db; of the query,
///   `charset` (utf8, utf8mb4), `unix_socket` (→ sqlx `socket`) and the PyMySQL TLS
///   parameters (→ sqlx `ssl-mode`, `ssl-ca`, `ssl-cert`, `ssl-key`, see [`mysql_tls`]) are
///   honoured; every other is refused (see [`mysql_parameter`]).
/// * `sqlite://` → in memory; `sqlite:///rel.db` → `rel.db` relative to the working directory,
///   `sqlite:////abs/o.db` → `/abs/o.db` (SQLAlchemy's rule: the path follows the third `/`);
///   the file is created when missing, as SQLAlchemy's pysqlite does. No query parameter
///   (pysqlite's `timeout`, `uri`, … have no counterpart in Keel).
/// * Keel's own form with an explicit `mode=` (`sqlite:///abs/o.db?mode=rwc`) and
///   `sqlite::memory:`: unchanged (sqlx reads, and rejects, its parameters itself).
///
/// Errors: [`DbUrlError::Scheme`] for another scheme (e.g. `postgresql://`) — Keel speaks
/// MariaDB/MySQL and SQLite; [`DbUrlError::SqlitePath`] for an SQLite URL of no known form;
/// [`DbUrlError::Parameters`] naming every query parameter Keel cannot honour (an `ssl_*` file
/// that cannot be read included: never a silent fallback to plaintext).
pub fn octavia_db_url(connection: &str, parameters: &str) -> Result<String, DbUrlError> {
    let c = connection.trim();
    let c = c.split_once('#').map_or(c, |(u, _)| u);
    let (base, query) = c.split_once('?').unwrap_or((c, ""));
    let mut pairs: Vec<Param<'_>> = query_pairs(query, "connection").collect();
    pairs.extend(query_pairs(parameters.trim(), "connection_parameters"));
    if c.starts_with("mysql:") || c.starts_with("mysql+") {
        let mut refused: Vec<RefusedParameter> = Vec::new();
        let mut out: Vec<String> = Vec::new();
        for p in &pairs {
            if is_tls(p.name) {
                continue;
            }
            match mysql_parameter(p.name, p.value) {
                Some(why) => refused.push(p.refused(why)),
                None if p.name == "unix_socket" => out.push(format!("socket={}", p.value)),
                None => out.push(format!("{}={}", p.name, p.value)),
            }
        }
        match mysql_tls(&pairs) {
            Ok(tls) => out.extend(tls),
            Err(mut r) => refused.append(&mut r),
        }
        if !refused.is_empty() {
            return Err(DbUrlError::Parameters(refused));
        }
        if out.is_empty() {
            return Ok(base.to_string());
        }
        return Ok(format!("{base}?{}", out.join("&")));
    }
    if c == "sqlite::memory:" || (c.starts_with("sqlite:") && c.contains("mode=")) {
        return Ok(c.to_string());
    }
    if let Some(path) = base.strip_prefix("sqlite://") {
        let refused: Vec<RefusedParameter> = pairs
            .iter()
            .map(|p| p.refused("Keel's SQLite connections take no pysqlite/SQLAlchemy parameters"))
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

/// One `name=value` of the query, with the option it was written in.
struct Param<'a> {
    name: &'a str,
    value: &'a str,
    option: &'static str,
}

impl Param<'_> {
    fn refused(&self, why: impl Into<String>) -> RefusedParameter {
        RefusedParameter {
            option: self.option,
            name: self.name.to_string(),
            why: why.into(),
        }
    }
}

/// The `name=value` pairs of a query as written: oslo.db passes them to the DB-API driver's
/// `connect()` as keyword arguments.
fn query_pairs<'a>(query: &'a str, option: &'static str) -> impl Iterator<Item = Param<'a>> {
    query.split('&').filter(|p| !p.is_empty()).map(move |p| {
        let (name, value) = p.split_once('=').unwrap_or((p, ""));
        Param {
            name,
            value,
            option,
        }
    })
}

/// The PyMySQL TLS keywords Keel maps (the rest of `ssl*` is refused by [`mysql_parameter`]).
const TLS_KEYS: &[&str] = &[
    "ssl_ca",
    "ssl_cert",
    "ssl_key",
    "ssl_check_hostname",
    "ssl_verify_cert",
    "ssl_verify_identity",
    "ssl_disabled",
];

fn is_tls(name: &str) -> bool {
    TLS_KEYS.contains(&name)
}

/// `%XX` decoded, as SQLAlchemy's `make_url` unquotes query values (file names).
fn percent_decoded(v: &str) -> String {
    let b = v.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = b
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (b[i], hex) {
            (b'%', Some(x)) => {
                out.push(x);
                i += 3;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// SQLAlchemy's `asbool` (for `ssl_check_hostname`) and PyMySQL's reading of `ssl_verify_cert`.
fn truth(v: &str) -> Option<bool> {
    match v.to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" | "y" | "t" | "1" | "required" => Some(true),
        "false" | "no" | "off" | "n" | "f" | "0" | "none" => Some(false),
        _ => None,
    }
}

/// The TLS parameters of a MariaDB URL → sqlx's (`ssl-mode=…&ssl-ca=…&ssl-cert=…&ssl-key=…`).
///
/// As PyMySQL 1.2.0 behind SQLAlchemy 2.0:
/// * none of them: TLS when the server offers it, unverified (PyMySQL 1.2.0's "preferred"
///   mode; sqlx `PREFERRED`) — no parameter is added;
/// * `ssl_disabled` (any value PyMySQL reads as true): plaintext (`DISABLED`); a false-looking
///   value is refused, since PyMySQL would disable TLS for it too;
/// * `ssl_ca`, `ssl_cert`, `ssl_key`, `ssl_check_hostname`, `ssl_verify_cert` or
///   `ssl_verify_identity`: TLS required. The certificate is verified when `ssl_verify_cert`
///   is true or, without it, when `ssl_ca` is given; the host name too unless
///   `ssl_check_hostname = false` (SQLAlchemy's `ssl` dict path) or, once `ssl_verify_cert` /
///   `ssl_verify_identity` are written, only with `ssl_verify_identity` set (PyMySQL's keyword
///   path). Trusted: `ssl_ca` plus the system store (PyMySQL trusts only `ssl_ca` when
///   given, else the system store). PyMySQL 1.2.0 drops `ssl_ca`/`ssl_cert`/`ssl_key` once
///   `ssl_verify_cert` is in the URL (its keyword path rebuilds the dict SQLAlchemy made);
///   Keel keeps them, which is what such a URL asks for.
///
/// Errors: one [`RefusedParameter`] per file that cannot be read (naming it and the OS error),
/// per value that is not a boolean, and for `ssl_key` without `ssl_cert` (PyMySQL loads the
/// key with the certificate only).
fn mysql_tls(pairs: &[Param<'_>]) -> Result<Vec<String>, Vec<RefusedParameter>> {
    let get = |k: &str| pairs.iter().rev().find(|p| p.name == k);
    let mut refused = Vec::new();
    let mut flag = |k: &str, any_true: bool| -> Option<bool> {
        let p = get(k)?;
        if any_true {
            // PyMySQL tests these with bool(str): any non-empty value is true.
            return Some(!p.value.is_empty());
        }
        match truth(p.value) {
            Some(b) => Some(b),
            None => {
                refused.push(p.refused(format!("{:?} is not a boolean (true/false)", p.value)));
                None
            }
        }
    };
    let check_hostname = flag("ssl_check_hostname", false);
    let verify_cert = flag("ssl_verify_cert", false);
    let verify_identity = flag("ssl_verify_identity", true);
    let disabled = get("ssl_disabled");
    if let Some(p) = disabled {
        if truth(p.value) == Some(false) || p.value.is_empty() {
            refused.push(p.refused(
                "PyMySQL reads any non-empty ssl_disabled as true (plaintext); remove it to keep TLS",
            ));
        }
        return if refused.is_empty() {
            Ok(vec!["ssl-mode=DISABLED".into()])
        } else {
            Err(refused)
        };
    }
    let mut files = Vec::new();
    for (key, sqlx_key) in [
        ("ssl_ca", "ssl-ca"),
        ("ssl_cert", "ssl-cert"),
        ("ssl_key", "ssl-key"),
    ] {
        let Some(p) = get(key) else { continue };
        let path = percent_decoded(p.value);
        if path.is_empty() {
            refused.push(p.refused("empty file name"));
            continue;
        }
        match std::fs::File::open(Path::new(&path)) {
            Ok(_) => files.push(format!("{sqlx_key}={}", p.value)),
            Err(e) => refused.push(p.refused(format!("{path}: {e}"))),
        }
    }
    if let (Some(p), None) = (get("ssl_key"), get("ssl_cert")) {
        refused.push(p.refused("a client key needs its certificate (ssl_cert)"));
    }
    if !refused.is_empty() {
        return Err(refused);
    }
    let any = TLS_KEYS.iter().any(|k| get(k).is_some());
    if !any {
        return Ok(Vec::new());
    }
    let keyword_path = verify_cert.is_some() || verify_identity.is_some();
    let verify = verify_cert.unwrap_or(get("ssl_ca").is_some());
    let hostname = if keyword_path {
        verify_identity.unwrap_or(false)
    } else {
        check_hostname.unwrap_or(true)
    };
    let mode = match (verify, hostname) {
        (true, true) => "VERIFY_IDENTITY",
        (true, false) => "VERIFY_CA",
        (false, _) => "REQUIRED",
    };
    let mut out = vec![format!("ssl-mode={mode}")];
    out.extend(files);
    Ok(out)
}

/// Why Keel cannot honour one (non-TLS) query parameter of a MariaDB URL (None: it can).
///
/// Keel's driver (sqlx) takes the URL's host, credentials and database and of PyMySQL's
/// keyword arguments `charset` (the two UTF-8 ones, since Keel reads text as UTF-8: `utf8` and
/// `utf8mb4` are what deployment tools write), `unix_socket` and the TLS ones of
/// [`mysql_tls`]. Anything else PyMySQL or SQLAlchemy would act on (option files, plugins, an
/// init statement, TLS options sqlx has no counterpart for) would be dropped by sqlx without
/// a word, so it is refused.
fn mysql_parameter(name: &str, value: &str) -> Option<String> {
    let key = name.to_ascii_lowercase().replace('-', "_");
    Some(match key.as_str() {
        "charset" => match value {
            "utf8" | "utf8mb4" => return None,
            _ => "Keel's MariaDB connections are UTF-8: charset must be utf8 or utf8mb4".into(),
        },
        "unix_socket" if name == "unix_socket" && !value.is_empty() => return None,
        "ssl_capath" => "a CA directory is not supported by Keel's driver: give one PEM file as ssl_ca".into(),
        "ssl_cipher" => "Keel's TLS (rustls) chooses among its own modern cipher suites; remove ssl_cipher".into(),
        "ssl_key_password" => "Keel's driver reads unencrypted PEM keys only".into(),
        k if k.starts_with("ssl") => format!(
            "not a TLS parameter of PyMySQL that Keel maps (it takes {})",
            TLS_KEYS.join(", ")
        ),
        "read_default_file" | "read_default_group" => {
            "Keel does not read MySQL option files: put host, user and password in the URL".into()
        }
        "plugin" => "SQLAlchemy plugins cannot be loaded by Keel".into(),
        "init_command" => "Keel does not run an init command on its MariaDB connections".into(),
        _ => "not a parameter Keel's MariaDB driver honours (it takes charset=utf8/utf8mb4, unix_socket and the ssl_* of PyMySQL)".into(),
    })
}
