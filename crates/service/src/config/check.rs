//! What Keel makes of the options an operator set: the ones it does not implement (logged
//! once at start-up), the ones that do not apply to an OVN-only deployment (quiet), unknown
//! ones, and values it cannot honour (start-up refused). `keel config check` prints all of
//! it beside the effective configuration.

use std::fmt::Write as _;

use super::Config;
use super::section::Section;
use compat::catalog::{self, Use};

/// One option found in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// INI section as written, e.g. `DEFAULT`, `haproxy_amphora`.
    pub section: String,
    /// Key as written (with `_`).
    pub key: String,
    /// Why Keel ignores it.
    pub why: String,
}

/// The review of a configuration.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Set, applies to the API or the OVN provider, not implemented: logged as warnings.
    pub unimplemented: Vec<Finding>,
    /// Set, known not to apply (amphora, worker, RPC): not logged.
    pub not_applicable: Vec<Finding>,
    /// Set, registered by neither Octavia nor ovn-octavia-provider (oslo.config ignores
    /// these): logged as warnings.
    pub unknown: Vec<Finding>,
    /// Values Keel cannot honour: `[section] key: why`. Start-up stops when non-empty.
    pub refused: Vec<String>,
}

/// Why an unimplemented option matters, where more can be said than "not implemented".
fn unimplemented_why(section: &str, key: &str) -> &'static str {
    match (section, key) {
        ("keystone_authtoken" | "service_auth", k) if k.starts_with("memcache") => {
            "ignored: Keel caches validated tokens in its own memory (token_cache_time), not in memcached"
        }
        ("oslo_policy", "enforce_scope") => {
            "oslo.policy 6.0.0 removed it and always enforces scope (system-scoped tokens fail every Octavia rule)"
        }
        ("audit", _) => "no CADF audit middleware",
        ("oslo_middleware_tracing", _) => "no OpenTelemetry tracing",
        ("DEFAULT", "use_syslog") => "refused when True: Keel logs to stderr or log_file",
        ("DEFAULT", _) => {
            "Keel's logging reads debug, log_file, log_dir, use_json, use_stderr, log_color, log_config_append, log_date_format, default_log_levels and the logging_*_format_string/suffix/prefix options"
        }
        ("database", _) => {
            "Keel's pool reads connection, connection_parameters, max_pool_size, max_overflow, pool_timeout, connection_recycle_time, max_retries, retry_interval"
        }
        _ => "not implemented by Keel",
    }
}

/// The provider drivers `keel serve` loads (`main.rs` registers each under this name: the
/// OVN driver, and the amphora driver under its three names, `crate::amphora::NAMES`); any
/// other name in `enabled_provider_drivers` answers 501 `Provider '<p>' was not found.`
pub const PROVIDERS: &[&str] = &["ovn", "amphora", "amphorav2", "octavia"];

fn refuse(out: &mut Vec<String>, section: &str, key: &str, why: impl std::fmt::Display) {
    out.push(format!("[{section}] {key}: {why}"));
}

/// Reviews `cfg`: every option set in a file, then the values Keel cannot honour.
#[allow(
    clippy::too_many_lines,
    reason = "a known exception of clippy.toml's bound"
)]
pub fn review(cfg: &Config) -> Report {
    let mut r = Report::default();
    for (section, key) in cfg.sources.keys() {
        let f = |why: &str| Finding {
            section: section.to_string(),
            key: key.to_string(),
            why: why.to_string(),
        };
        match catalog::find(section, key).map(|o| o.use_) {
            Some(Use::Honoured) => {}
            Some(Use::Unimplemented) => {
                r.unimplemented.push(f(unimplemented_why(section, key)));
            }
            Some(Use::NotApplicable(why)) => r.not_applicable.push(f(why)),
            None => r.unknown.push(f(
                "not an option of Octavia or ovn-octavia-provider (oslo.config ignores it too)",
            )),
        }
    }
    providers(cfg, &mut r);
    let x = &mut r.refused;
    let src = &cfg.sources;
    let set = |s: &str, k: &str| src.get(s, k).map(|v| v.last().trim().to_string());
    match cfg.api_settings.auth_strategy.as_str() {
        "keystone" | "noauth" => {}
        other => refuse(
            x,
            "api_settings",
            "auth_strategy",
            format!("{other:?}: Keel implements keystone and noauth"),
        ),
    }
    for (section, auth_type) in [
        ("keystone_authtoken", &cfg.keystone_authtoken.auth.auth_type),
        ("service_auth", &cfg.service_auth.auth_type),
        ("neutron", &cfg.neutron.auth.auth_type),
    ] {
        if !matches!(
            auth_type.as_str(),
            "" | "password" | "v3password" | super::APP_CREDENTIAL_AUTH_TYPE
        ) {
            refuse(
                x,
                section,
                "auth_type",
                format!(
                    "{auth_type:?}: Keel authenticates with the password and v3applicationcredential plugins only"
                ),
            );
        }
    }
    for (section, auth) in [
        ("keystone_authtoken", &cfg.keystone_authtoken.auth),
        ("service_auth", &cfg.service_auth),
        ("neutron", &cfg.neutron.auth),
    ] {
        for (key, why) in auth.application_credential_gaps() {
            refuse(x, section, key, why);
        }
        if let Some((key, why)) = auth.scope_conflict() {
            refuse(x, section, key, why);
        }
    }
    for (section, tls) in [
        ("keystone_authtoken", &cfg.keystone_authtoken.auth.tls),
        ("service_auth", &cfg.service_auth.tls),
        ("neutron", &cfg.neutron.auth.tls),
        ("certificates", &cfg.certificates.tls),
    ] {
        if tls.certfile.is_some() != tls.keyfile.is_some() {
            refuse(
                x,
                section,
                "certfile",
                "a client certificate needs both certfile and keyfile",
            );
        }
        for (key, file) in [
            ("cafile", &tls.cafile),
            ("certfile", &tls.certfile),
            ("keyfile", &tls.keyfile),
        ] {
            if let Some(p) = file
                && let Err(e) = std::fs::metadata(p)
            {
                refuse(x, section, key, format!("{}: {e}", p.display()));
            }
        }
    }
    let backend = &compat::catalog::database::BACKEND;
    if let Ok(b) = Section::typed(src, backend)
        && b != "sqlalchemy"
    {
        refuse(
            x,
            backend.opt.section,
            backend.opt.name,
            format!(
                "{b:?}: Keel's database layer is the sqlalchemy one's schema over MariaDB/SQLite"
            ),
        );
    }
    match cfg.database.url() {
        Ok(_) => {}
        // One line per parameter, so each names what the operator has to remove.
        Err(super::DbUrlError::Parameters(params)) => {
            for p in params {
                refuse(x, "database", p.option, &p);
            }
        }
        Err(why) => refuse(x, "database", "connection", why),
    }
    if !matches!(
        cfg.certificates.cert_manager.as_str(),
        "barbican_cert_manager" | "noop_cert_manager"
    ) {
        refuse(
            x,
            "certificates",
            "cert_manager",
            format!(
                "{:?}: Keel reads certificates from Barbican (barbican_cert_manager), or answers every reference with one test certificate (noop_cert_manager, upstream's noop job)",
                cfg.certificates.cert_manager
            ),
        );
    }
    if set("DEFAULT", "use_syslog")
        .is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "true" | "yes" | "on" | "1"))
    {
        refuse(
            x,
            "DEFAULT",
            "use_syslog",
            "Keel logs to stderr or log_file (under systemd, stderr goes to the journal)",
        );
    }
    // The logging file (or the format strings) Keel cannot honour, each line naming it.
    if let Err(lines) = cfg.log.plan("octavia-api", false) {
        x.extend(lines);
    }
    for (key, remotes, files, prefix) in [
        (
            "ovn_nb_connection",
            &cfg.ovn.ovn_nb_connection,
            &cfg.ovn.nb_ssl,
            "ovn_nb",
        ),
        (
            "ovn_sb_connection",
            &cfg.ovn.ovn_sb_connection,
            &cfg.ovn.sb_ssl,
            "ovn_sb",
        ),
    ] {
        if !remotes.split(',').any(|r| r.starts_with("ssl:")) {
            continue;
        }
        for (i, name) in ["private_key", "certificate", "ca_cert"].iter().enumerate() {
            let opt = format!("{prefix}_{name}");
            if files[i].is_empty() {
                refuse(
                    x,
                    "ovn",
                    key,
                    format!(
                        "an ssl: remote needs {opt} (ovn_nb_private_key, ovn_nb_certificate and ovn_nb_ca_cert are mandatory for ssl:)"
                    ),
                );
            } else if let Err(e) = std::fs::metadata(&files[i]) {
                refuse(x, "ovn", &opt, format!("{}: {e}", files[i]));
            }
        }
    }
    for d in cfg.oslo_policy.populated_policy_dirs() {
        refuse(
            x,
            "oslo_policy",
            "policy_dirs",
            format!(
                "{}: rule files in policy_dirs are not read by Keel; merge them into policy_file",
                d.display()
            ),
        );
    }
    name_files(cfg, &mut r.refused);
    r
}

/// Each refusal `[section] key: why` gets the file the key was set in (` (in FILE)`), so the
/// operator of several `--config-file`/`--config-dir` files knows which one to edit.
fn name_files(cfg: &Config, refused: &mut [String]) {
    for line in refused.iter_mut() {
        let Some((head, _)) = line.split_once(": ") else {
            continue;
        };
        let Some((section, key)) = head.strip_prefix('[').and_then(|h| h.split_once("] ")) else {
            continue;
        };
        if let Some(f) = cfg.sources.get(section, key).and_then(|v| v.file()) {
            line.push_str(&format!(" (in {})", f.display()));
        }
    }
}

/// `[api_settings]` providers: each enabled one Keel cannot load is warned about (a request
/// naming it answers 501, as Octavia's driver_factory when a driver does not load); a default
/// that is not enabled and loadable is refused, since every create without `provider` would
/// fail with it.
fn providers(cfg: &Config, r: &mut Report) {
    let a = &cfg.api_settings.api;
    let loadable: Vec<&str> = a
        .enabled_provider_drivers
        .keys()
        .map(String::as_str)
        .filter(|p| PROVIDERS.contains(p))
        .collect();
    for p in a.enabled_provider_drivers.keys() {
        if !PROVIDERS.contains(&p.as_str()) {
            r.unimplemented.push(Finding {
                section: "api_settings".into(),
                key: "enabled_provider_drivers".into(),
                why: format!(
                    "provider {p:?} cannot be loaded: Keel has only {}; requests naming it answer 501",
                    PROVIDERS.join(", ")
                ),
            });
        }
    }
    // the amphora driver's transport is checked here, so `keel serve` refuses a bad one
    // before it writes anything (and `keel config check` names it)
    if loadable.iter().any(|p| *p != "ovn")
        && let Err(e) = cfg.messaging.transport()
    {
        r.refused.push(e.to_string());
    }
    // and so are its compute, image and volume driver names (their endpoints need Keystone:
    // `serve` resolves them, crate::compute)
    if loadable.iter().any(|p| *p != "ovn") {
        use super::compute::{COMPUTE, IMAGE, VOLUME};
        for kind in [COMPUTE, IMAGE, VOLUME] {
            if let Err(e) = cfg.compute.is_real(kind) {
                r.refused.push(e.to_string());
            }
        }
    }
    let d = &a.default_provider_driver;
    if !loadable.contains(&d.as_str()) {
        refuse(
            &mut r.refused,
            "api_settings",
            "default_provider_driver",
            format!(
                "{d:?} is not an enabled provider Keel can load (enabled and loadable: {}); every create without provider would fail",
                if loadable.is_empty() {
                    "none".to_string()
                } else {
                    loadable.join(", ")
                }
            ),
        );
    }
}

/// Logs the unimplemented and unknown options, once each (at start-up).
pub fn log_findings(r: &Report) {
    for f in &r.unimplemented {
        tracing::warn!(section = %f.section, key = %f.key, "option ignored: {}", f.why);
    }
    for f in &r.unknown {
        tracing::warn!(section = %f.section, key = %f.key, "unknown option ignored: {}", f.why);
    }
}

/// What the table says beside "honoured" where Keel accepts only some values.
#[cfg(test)]
fn honoured_note(section: &str, name: &str) -> Option<&'static str> {
    Some(match (section, name) {
        ("api_settings", "auth_strategy") => "keystone or noauth (others refused)",
        ("api_settings", "default_provider_driver") => {
            "an enabled provider Keel loads: ovn, amphora (amphorav2, octavia) (others refused); unset: amphora when enabled, else ovn"
        }
        ("api_settings", "enabled_provider_drivers") => {
            "ovn, and amphora / amphorav2 / octavia (one driver casting to the operator's octavia-worker over [DEFAULT] transport_url); another provider is warned about at start-up (requests naming it answer 501)"
        }
        (_, "auth_type") => {
            "password / v3password, v3applicationcredential (application_credential_id, or _name with user_id or username; others refused; a credential Keystone refuses stops start-up)"
        }
        (_, "user_id") => {
            "the user by id (wins over username), or the owner of an application credential given by name"
        }
        ("keystone_authtoken" | "service_auth", "project_id" | "project_name") => {
            "the token's scope: one of project (id wins over name), domain, trust, system (more than one refused, as keystoneauth)"
        }
        ("keystone_authtoken" | "service_auth", "domain_id" | "domain_name" | "trust_id") => {
            "the token's scope: one of project, domain (id wins over name), trust, system (more than one refused, as keystoneauth)"
        }
        ("keystone_authtoken" | "service_auth", "system_scope") => {
            "all scopes the token to the system (another value asks for no scope, as keystoneauth); one scope only"
        }
        ("keystone_authtoken" | "service_auth", "default_domain_id" | "default_domain_name") => {
            "the password plugin's user and project domain where user_domain_* / project_domain_* are unset (an id wins over any name; not read with v3password)"
        }
        ("keystone_authtoken" | "service_auth", "tenant_id" | "tenant_name") => {
            "project_id / project_name where those are unset (the password plugin's older names; not read with v3password)"
        }
        ("keystone_authtoken" | "service_auth", "user_domain_name" | "project_domain_name") => {
            "unset: default_domain_name, then Default (keystoneauth sends none); a domain id wins"
        }
        ("DEFAULT", "log_dir") => {
            "without log_file, `keel serve` writes <log_dir>/octavia-api.log (oslo.log's <binary>.log for octavia-api; db: octavia-db-manage.log, ovn-db-sync: octavia-ovn-db-sync-util.log)"
        }
        ("database", "backend") => "sqlalchemy (others refused)",
        ("keystone_authtoken", "www_authenticate_uri") => {
            "401 answers carry WWW-Authenticate: Keystone uri=\"<it>\" (uri=\"\" when unset)"
        }
        ("DEFAULT", "log_config_append") => {
            "a Python logging fileConfig file (StreamHandler on sys.stdout/sys.stderr, FileHandler, handlers.WatchedFileHandler, NullHandler; ContextFormatter, JSONFormatter, logging.Formatter; per-logger levels by qualname: octavia = Keel, ovn_octavia_provider, ovsdbapp, keystoneauth, sqlalchemy, urllib3, root); anything else refused naming file, section and key; debug and default_log_levels then do not apply, as oslo.log"
        }
        ("DEFAULT", "default_log_levels") => {
            "sqlalchemy = Keel's SQL driver (sqlx), keystoneauth/keystonemiddleware = its Keystone client, urllib3.connectionpool = its HTTP stack, ovsdbapp = its OVSDB client"
        }
        ("DEFAULT", k) if k.starts_with("logging_") => {
            "%-format strings over Python's LogRecord attributes, oslo.log's fields and Keel's request fields (an unknown %(key) refused); the exception prefix goes before each continuation line of a multi-line message"
        }
        ("database", "connection") => {
            "MariaDB/MySQL or SQLite URLs (others refused); of the URL's parameters charset=utf8/utf8mb4, unix_socket, PyMySQL's ssl_ca, ssl_cert, ssl_key, ssl_check_hostname, ssl_verify_cert, ssl_verify_identity, ssl_disabled, and read_default_file/read_default_group read as PyMySQL reads the option file (user, password, host, port, database, socket, default-character-set, ssl-ca, ssl-cert, ssl-key where the URL has none; a file that cannot be read refused) (an ssl_* file that cannot be read, ssl_capath, ssl_cipher, plugin, init_command, … refused)"
        }
        ("database", "connection_parameters") => {
            "appended to connection's query as oslo.db does, and checked as it is"
        }
        ("database", "max_retries") => {
            "start-up connection attempts, as oslo.db: -1 forever, 0 or 1 one attempt"
        }
        ("database", "max_pool_size") => {
            "the pool holds at most max_pool_size + max_overflow connections, as SQLAlchemy's QueuePool (0 allowed; both 0 refused)"
        }
        ("database", "max_overflow") => {
            "the pool holds at most max_pool_size + max_overflow connections (-1, SQLAlchemy's no limit: Keel's bound is 4096); a connection idle 600 s is closed"
        }
        ("certificates", "cert_manager") => {
            "barbican_cert_manager, or noop_cert_manager (one built-in test certificate for every reference, as upstream's noop job; others refused)"
        }
        ("oslo_policy", "policy_dirs") => {
            "refused when a directory found holds rule files (merge them into policy_file)"
        }
        ("ovn", "ovn_nb_connection" | "ovn_sb_connection") => {
            "ssl: needs the three key/certificate/CA files (refused otherwise)"
        }
        ("neutron", _) => {
            "when [neutron] cannot load alone (no auth_type, no auth_url, an application credential without its secret), an option it does not set is [service_auth]'s"
        }
        _ => return None,
    })
}

/// Keel's defaults where they differ from Octavia's (an OVN-only service, an embedded DB), as
/// the table and `config check` show them: the typed options' own (`Typed::keel_default`), and
/// those computed or taken from elsewhere. (`user_domain_name` / `project_domain_name`'s
/// `Default` is not shown, as before the options were typed.)
fn keel_default(section: &str, name: &str) -> Option<&'static str> {
    use compat::catalog::{api_settings as a, database as db, keystone_authtoken, service_auth};
    let typed = [
        (
            a::ENABLED_PROVIDER_DRIVERS.opt,
            a::ENABLED_PROVIDER_DRIVERS.default,
        ),
        (db::CONNECTION.opt, db::CONNECTION.default),
        (
            keystone_authtoken::AUTH.timeout.opt,
            keystone_authtoken::AUTH.timeout.default,
        ),
        (
            service_auth::AUTH.timeout.opt,
            service_auth::AUTH.timeout.default,
        ),
    ];
    if let Some((_, d)) = typed
        .iter()
        .find(|(o, _)| (o.section, o.name) == (section, name))
    {
        return Some(d);
    }
    match (section, name) {
        // computed: `amphora` when that provider is enabled (see `api_options`)
        ("api_settings", "default_provider_driver") => Some("ovn"),
        ("DEFAULT", "host") => Some("(the host name)"),
        // octavia_db::PoolSettings' acquire_timeout
        ("database", "pool_timeout") => Some("5"),
        _ => None,
    }
}

/// `scheme://user:secret@host/…` → `scheme://user:***@host/…`; other values → `***`.
fn mask(value: &str) -> String {
    if let Some((scheme, rest)) = value.split_once("://") {
        if let Some((cred, host)) = rest.split_once('@') {
            let user = cred.split(':').next().unwrap_or("");
            return format!("{scheme}://{user}:***@{host}");
        }
        return value.to_string();
    }
    if value.is_empty() {
        String::new()
    } else {
        "***".into()
    }
}

/// The text `keel config check` prints: the effective value of every option Keel honours
/// (secrets masked, with the file it came from or `default`), then the options set but
/// ignored, and the refusals.
pub fn render(cfg: &Config, r: &Report) -> String {
    let mut out = String::new();
    let files: Vec<String> = cfg
        .sources
        .files
        .iter()
        .map(|f| f.display().to_string())
        .collect();
    let _ = writeln!(
        out,
        "# keel {} — files: {}",
        env!("CARGO_PKG_VERSION"),
        if files.is_empty() {
            "(none: defaults)".into()
        } else {
            files.join(", ")
        }
    );
    let _ = writeln!(out, "# effective configuration (options Keel honours)");
    // Sections in the order they first appear in the catalog, each once: Keel's own options
    // come after the registered ones, some of them in sections those already opened.
    let honoured = || catalog::OPTS.iter().filter(|o| o.use_ == Use::Honoured);
    let mut sections: Vec<&str> = Vec::new();
    for o in honoured() {
        if !sections.contains(&o.section) {
            sections.push(o.section);
        }
    }
    let mut section = "";
    let by_section = sections
        .iter()
        .flat_map(|s| honoured().filter(move |o| o.section == *s));
    for o in by_section {
        if o.section != section {
            section = o.section;
            let _ = writeln!(out, "\n[{section}]");
        }
        let found = std::iter::once(o.name)
            .chain(o.aliases.iter().copied())
            .find_map(|n| cfg.sources.get(o.section, n));
        let (value, from) = match found {
            Some(v) => (
                v.occurrences
                    .iter()
                    .map(|(s, _)| s.as_str())
                    .collect::<Vec<_>>()
                    .join(if o.kind == "multi" { " | " } else { "" }),
                v.file()
                    .map(|f| f.display().to_string())
                    .unwrap_or_default(),
            ),
            None => (
                keel_default(o.section, o.name)
                    .unwrap_or(o.default)
                    .to_string(),
                "default".into(),
            ),
        };
        let last = if o.kind == "multi" {
            value
        } else {
            found.map(|v| v.last().to_string()).unwrap_or(value)
        };
        let shown = if o.secret {
            mask(&last)
        } else {
            last.replace('\n', "\\n")
        };
        let _ = writeln!(out, "{} = {shown}    # {from}", o.name);
    }
    let list = |out: &mut String, title: &str, items: &[Finding]| {
        let _ = writeln!(out, "\n# {title}: {}", items.len());
        for f in items {
            let _ = writeln!(out, "#   [{}] {} — {}", f.section, f.key, f.why);
        }
    };
    list(
        &mut out,
        "set but not implemented by Keel (ignored, logged at start-up)",
        &r.unimplemented,
    );
    list(
        &mut out,
        "unknown options (ignored, logged at start-up)",
        &r.unknown,
    );
    list(
        &mut out,
        "set but not applicable to an OVN-only deployment (ignored)",
        &r.not_applicable,
    );
    let _ = writeln!(
        out,
        "\n# refused (keel serve would not start): {}",
        r.refused.len()
    );
    for e in &r.refused {
        let _ = writeln!(out, "#   {e}");
    }
    out
}

/// The option table of `docs/configuration.md`: every option of [`catalog::OPTS`] with its
/// type, default (Keel's where it differs) and what Keel does with it.
#[cfg(test)]
pub fn markdown_table() -> String {
    let mut out =
        String::from("| section | option | type | default | Keel |\n|---|---|---|---|---|\n");
    for o in catalog::OPTS.iter() {
        let default = keel_default(o.section, o.name).unwrap_or(o.default);
        let keel = match o.use_ {
            Use::Honoured => match honoured_note(o.section, o.name) {
                Some(n) => format!("**honoured**: {n}"),
                None => "**honoured**".to_string(),
            },
            Use::Unimplemented => {
                format!("ignored, warned: {}", unimplemented_why(o.section, o.name))
            }
            Use::NotApplicable(why) => format!("not applicable: {why}"),
        };
        let names = std::iter::once(o.name)
            .chain(o.aliases.iter().copied())
            .collect::<Vec<_>>()
            .join(" / ");
        let _ = writeln!(
            out,
            "| `{}` | `{names}` | {} | {} | {} |",
            o.section,
            o.kind,
            if default.is_empty() {
                String::new()
            } else {
                format!("`{}`", default.replace('|', "\\|"))
            },
            keel.replace('|', "\\|")
        );
    }
    out
}
