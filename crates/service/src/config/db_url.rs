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
///   parameters (→ sqlx `ssl-mode`, `ssl-ca`, `ssl-cert`, `ssl-key`, see `mysql_tls`) are
///   honoured, and `read_default_file` (+ `read_default_group`) fills in from the option file
///   what the URL does not say, as PyMySQL does (RHOSO renders
///   `?read_default_file=/etc/my.cnf`; see `option_file`); every other is refused (see
///   `mysql_parameter`).
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
        let file = option_file(base, &pairs);
        let base = match &file {
            Ok(f) => f.base.as_str(),
            Err(r) => {
                refused.push(r.clone());
                base
            }
        };
        if let Ok(f) = &file {
            pairs.retain(|p| !is_option_file(p.name));
            pairs.extend(f.params.iter().map(|(name, value, source)| Param {
                name,
                value,
                option: f.option,
                source: Some(source),
            }));
        }
        let mut out: Vec<String> = Vec::new();
        for p in &pairs {
            if is_tls(p.name) || is_option_file(p.name) {
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

/// One `name=value` of the query, with the option it was written in (and, for a value taken
/// from the `read_default_file` option file, `FILE [group] name`).
struct Param<'a> {
    name: &'a str,
    value: &'a str,
    option: &'static str,
    source: Option<&'a str>,
}

impl Param<'_> {
    fn refused(&self, why: impl Into<String>) -> RefusedParameter {
        let why = why.into();
        match self.source {
            Some(src) => RefusedParameter {
                option: self.option,
                name: "read_default_file".into(),
                why: format!("{src}: {why}"),
            },
            None => RefusedParameter {
                option: self.option,
                name: self.name.to_string(),
                why,
            },
        }
    }
}

fn is_option_file(name: &str) -> bool {
    matches!(name, "read_default_file" | "read_default_group")
}

/// A MariaDB URL with its `read_default_file` applied: the base with the file's `user`,
/// `password`, `host`, `port`, `database` put where the URL has none, and the file's
/// `socket`, `default-character-set`, `ssl-ca`, `ssl-cert`, `ssl-key` as the query parameters
/// PyMySQL would have had (`unix_socket`, `charset`, `ssl_ca`, …) where the URL has none —
/// `(name, %-encoded value, "FILE [group] option")`.
struct OptionFile {
    base: String,
    params: Vec<(String, String, String)>,
    option: &'static str,
}

/// The URL's option file, read as PyMySQL does (see [`compat::my_cnf`]); no file: the URL as
/// it is. Errors: the file's refusal, or `read_default_group` without `read_default_file`
/// (PyMySQL ignores the group then, and a URL that names one expects it read).
fn option_file(base: &str, pairs: &[Param<'_>]) -> Result<OptionFile, RefusedParameter> {
    let get = |k: &str| pairs.iter().rev().find(|p| p.name == k);
    let Some(file) = get("read_default_file") else {
        if let Some(g) = get("read_default_group") {
            return Err(
                g.refused("PyMySQL reads a group only of a read_default_file, and none is given")
            );
        }
        return Ok(OptionFile {
            base: base.to_string(),
            params: Vec::new(),
            option: "connection",
        });
    };
    let path = percent_decoded(file.value);
    let group = get("read_default_group")
        .map(|g| percent_decoded(g.value))
        .filter(|g| !g.is_empty())
        .unwrap_or_else(|| "client".into());
    let options =
        compat::my_cnf::read_group(Path::new(&path), &group).map_err(|why| file.refused(why))?;
    let has = |k: &str| pairs.iter().any(|p| p.name == k);
    let mut params = Vec::new();
    for (opt, keyword) in [
        ("socket", "unix_socket"),
        ("default-character-set", "charset"),
        ("ssl-ca", "ssl_ca"),
        ("ssl-cert", "ssl_cert"),
        ("ssl-key", "ssl_key"),
    ] {
        if let Some(Some(v)) = options.get(opt)
            && !v.is_empty()
            && !has(keyword)
        {
            params.push((
                keyword.to_string(),
                percent_encoded(v, true),
                format!("{path} [{group}] {opt}"),
            ));
        }
    }
    let base = filled_base(base, &options)
        .map_err(|why| file.refused(format!("{path} [{group}] {why}")))?;
    Ok(OptionFile {
        base,
        params,
        option: file.option,
    })
}

/// `scheme://user:password@host:port/database` with the option file's values where the URL
/// has none (PyMySQL takes an option's value only when the keyword argument is empty).
/// Errors: a `port` that is not a number.
fn filled_base(base: &str, options: &compat::my_cnf::Group) -> Result<String, String> {
    let value = |k: &str| options.get(k).cloned().flatten().filter(|v| !v.is_empty());
    let Some((scheme, rest)) = base.split_once("://") else {
        return Ok(base.to_string());
    };
    let (authority, database) = rest.split_once('/').unwrap_or((rest, ""));
    let (userinfo, hostport) = authority.rsplit_once('@').unwrap_or(("", authority));
    let (user, password) = match userinfo.split_once(':') {
        Some((u, p)) => (u, Some(p)),
        None => (userinfo, None),
    };
    let (host, port) = if let Some(end) = hostport.find(']').filter(|_| hostport.starts_with('[')) {
        (&hostport[..=end], hostport[end + 1..].strip_prefix(':'))
    } else {
        match hostport.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (hostport, None),
        }
    };
    let mut user = user.to_string();
    let mut password = password.map(str::to_string);
    let mut host = host.to_string();
    let mut port = port.map(str::to_string);
    let mut database = database.to_string();
    if user.is_empty()
        && let Some(v) = value("user")
    {
        user = percent_encoded(&v, false);
    }
    if password.as_deref().is_none_or(str::is_empty)
        && let Some(v) = value("password")
    {
        password = Some(percent_encoded(&v, false));
    }
    if host.is_empty()
        && let Some(v) = value("host")
    {
        host = if v.contains(':') { format!("[{v}]") } else { v };
    }
    if port.as_deref().is_none_or(str::is_empty)
        && let Some(v) = value("port")
    {
        if v.parse::<u16>().is_err() {
            return Err(format!("port: {v:?} is not a port number"));
        }
        port = Some(v);
    }
    if database.is_empty()
        && let Some(v) = value("database")
    {
        database = percent_encoded(&v, false);
    }
    let mut out = format!("{scheme}://");
    if !user.is_empty() || password.is_some() {
        out.push_str(&user);
        if let Some(p) = &password {
            out.push(':');
            out.push_str(p);
        }
        out.push('@');
    }
    out.push_str(&host);
    if let Some(p) = &port {
        out.push(':');
        out.push_str(p);
    }
    if rest.contains('/') || !database.is_empty() {
        out.push('/');
        out.push_str(&database);
    }
    Ok(out)
}

/// `v` with every byte outside RFC 3986's unreserved set (and `/` when `keep_slash`)
/// `%XX`-encoded, for a value put into the URL sqlx parses.
fn percent_encoded(v: &str, keep_slash: bool) -> String {
    let mut out = String::with_capacity(v.len());
    for b in v.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) || (keep_slash && b == b'/') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
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
            source: None,
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
/// [`mysql_tls`] (option files are read before, by [`option_file`]). Anything else PyMySQL or
/// SQLAlchemy would act on (plugins, an
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
        "plugin" => "SQLAlchemy plugins cannot be loaded by Keel".into(),
        "init_command" => "Keel does not run an init command on its MariaDB connections".into(),
        _ => "not a parameter Keel's MariaDB driver honours (it takes charset=utf8/utf8mb4, unix_socket and the ssl_* of PyMySQL)".into(),
    })
}
