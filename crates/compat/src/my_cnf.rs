//! The MySQL option file a MariaDB URL names with `read_default_file` (RHOSO's operators render
//! `mysql+pymysql://…/octavia?read_default_file=/etc/my.cnf`, the file holding `ssl-ca`,
//! `ssl-cert`, `ssl-key` when the database has TLS), read as PyMySQL 1.2.0 reads it
//! (`pymysql/optionfile.py`, `Connection.__init__`): Python's `RawConfigParser` with
//! `allow_no_value`, option names lower-cased with `_` read as `-`, one pair of surrounding
//! quotes removed, one group (`read_default_group`, default `client`) consulted, and a value
//! from the file used only where the URL gave none.
//!
//! ```
//! let path = std::env::temp_dir().join(format!("compat-doc-{}.cnf", std::process::id()));
//! std::fs::write(&path, "[client]\nssl_ca = \"/etc/pki/ca.pem\"\nssl = 1\n[mysqld]\nport = 3307\n")
//!     .map_err(|e| e.to_string())?;
//! let client = compat::my_cnf::read_group(&path, "client");
//! std::fs::remove_file(&path).map_err(|e| e.to_string())?;
//! let client = client?;
//! // `_` read as `-`, the quotes gone, `ssl` (no effect through PyMySQL) left out
//! assert_eq!(client.get("ssl-ca"), Some(&Some("/etc/pki/ca.pem".to_string())));
//! assert_eq!(client.len(), 1);
//! // a missing file is refused, naming it
//! assert!(compat::my_cnf::read_group(&path, "client").is_err());
//! # Ok::<(), String>(())
//! ```

use std::collections::BTreeMap;
use std::path::Path;

/// The options of one group of an option file: `name` (lower case, `-` for `_`) → value
/// (`None` for a bare `name` line).
pub type Group = BTreeMap<String, Option<String>>;

/// The options PyMySQL takes from the group, and what Keel does with each (`None`: honoured,
/// filled into the URL where it has none).
const PYMYSQL_READS: &[(&str, Option<&str>)] = &[
    ("user", None),
    ("password", None),
    ("host", None),
    ("database", None),
    ("socket", None),
    ("port", None),
    ("default-character-set", None),
    ("ssl-ca", None),
    ("ssl-cert", None),
    ("ssl-key", None),
    (
        "bind-address",
        Some("Keel's driver cannot bind its connections to a local address"),
    ),
    (
        "ssl-capath",
        Some("a CA directory is not supported by Keel's driver: give one PEM file as ssl-ca"),
    ),
    (
        "ssl-cipher",
        Some("Keel's TLS (rustls) chooses among its own modern cipher suites"),
    ),
    (
        "ssl-password",
        Some("Keel's driver reads unencrypted PEM keys only"),
    ),
];

/// Group `group` of the option file at `path`, keeping only the options PyMySQL reads (the
/// others — `ssl=1`, `ssl=0`, `!includedir …` — have no effect through PyMySQL either).
///
/// Errors (`why`, naming the file and, where it applies, the line or option): the file cannot
/// be read (PyMySQL's parser skips a missing file without a word; Keel refuses, since the
/// file is where the TLS settings live), a line Python's parser rejects (text before the
/// first `[group]`, a line without `[`…`]` that it cannot split, an option written twice in
/// one group), or an option PyMySQL reads that Keel cannot honour (`bind-address`,
/// `ssl-capath`, `ssl-cipher`, `ssl-password`).
pub fn read_group(path: &Path, group: &str) -> Result<Group, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let groups = parse(&text).map_err(|why| format!("{}: {why}", path.display()))?;
    let Some(options) = groups.get(group) else {
        return Ok(Group::new());
    };
    let mut out = Group::new();
    for (name, value) in options {
        let Some((_, refusal)) = PYMYSQL_READS.iter().find(|(k, _)| k == name) else {
            continue;
        };
        if let Some(why) = refusal {
            return Err(format!("{} [{group}] {name}: {why}", path.display()));
        }
        out.insert(name.clone(), value.clone());
    }
    Ok(out)
}

/// Every group of an option file as Python's `RawConfigParser(allow_no_value=True)` reads it:
/// `#`/`;` comment lines, `[group]` headers, `name = value` / `name: value` / `name`, an
/// indented line continuing the value before it.
fn parse(text: &str) -> Result<BTreeMap<String, Group>, String> {
    let mut groups: BTreeMap<String, Group> = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut last: Option<String> = None;
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        let at = || format!("line {}: {raw}", n + 1);
        if raw.starts_with([' ', '\t'])
            && let (Some(g), Some(k)) = (&current, &last)
            && let Some(Some(v)) = groups.get_mut(g).and_then(|o| o.get_mut(k))
        {
            v.push('\n');
            v.push_str(line);
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            if groups.contains_key(name) {
                return Err(format!("{}: group [{name}] written twice", at()));
            }
            groups.insert(name.to_string(), Group::new());
            current = Some(name.to_string());
            last = None;
            continue;
        }
        let Some(g) = &current else {
            return Err(format!("{}: an option before the first [group]", at()));
        };
        let (name, value) = match line.find(['=', ':']) {
            Some(i) => (line[..i].trim(), Some(unquoted(line[i + 1..].trim()))),
            None => (line, None),
        };
        let name = name.to_ascii_lowercase().replace('_', "-");
        let options = groups.entry(g.clone()).or_default();
        if options.contains_key(&name) {
            return Err(format!("{}: {name} written twice in [{g}]", at()));
        }
        options.insert(name.clone(), value);
        last = Some(name);
    }
    Ok(groups)
}

/// One pair of surrounding `'` or `"` removed, as PyMySQL's `Parser.get`.
fn unquoted(v: &str) -> String {
    for q in ['\'', '"'] {
        if v.len() >= 2 && v.starts_with(q) && v.ends_with(q) {
            return v[1..v.len() - 1].to_string();
        }
    }
    v.to_string()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn file(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("my.cnf");
        std::fs::write(&p, text).unwrap();
        (d, p)
    }

    /// RHOSO's two renderings (mariadb-operator `GetDatabaseClientConfig`): with TLS and without.
    #[test]
    fn the_operators_files_read_as_pymysql_reads_them() {
        let (_d, p) = file(
            "[client]\nssl-cert=/etc/pki/tls/certs/db.crt\nssl-key=/etc/pki/tls/private/db.key\nssl-ca=/etc/pki/ca.pem\nssl=1",
        );
        let g = read_group(&p, "client").unwrap();
        assert_eq!(g.len(), 3, "{g:?}");
        assert_eq!(g["ssl-ca"].as_deref(), Some("/etc/pki/ca.pem"));
        let (_d, p) = file("[client]\nssl=0");
        assert!(read_group(&p, "client").unwrap().is_empty());
    }

    #[test]
    fn names_quotes_groups_and_comments() {
        let (_d, p) = file(
            "# top\n[mysqld]\nuser=server\n[client]\n; c\nSSL_CA = \"/a b/ca.pem\"\nuser: 'octavia'\nno-auto-rehash\n",
        );
        let g = read_group(&p, "client").unwrap();
        assert_eq!(g["ssl-ca"].as_deref(), Some("/a b/ca.pem"));
        assert_eq!(g["user"].as_deref(), Some("octavia"));
        assert!(!g.contains_key("no-auto-rehash"), "not read by PyMySQL");
        assert_eq!(
            read_group(&p, "mysqld").unwrap()["user"].as_deref(),
            Some("server")
        );
        assert!(read_group(&p, "other").unwrap().is_empty());
    }

    #[test]
    fn what_python_rejects_or_keel_cannot_honour_is_refused() {
        for (text, says) in [
            ("ssl-ca=/x\n", "before the first [group]"),
            ("[client]\nssl-ca=/x\nssl_ca=/y\n", "ssl-ca written twice"),
            ("[client]\n[client]\n", "[client] written twice"),
            (
                "[client]\nssl-capath=/etc/ssl\n",
                "[client] ssl-capath: a CA directory",
            ),
            ("[client]\nbind-address=10.0.0.1\n", "[client] bind-address"),
            ("[client]\nssl-cipher=AES\n", "ssl-cipher"),
        ] {
            let (_d, p) = file(text);
            let e = read_group(&p, "client").unwrap_err();
            assert!(e.contains(says) && e.contains("my.cnf"), "{text:?}: {e}");
        }
        let e = read_group(Path::new("/nonexistent/my.cnf"), "client").unwrap_err();
        assert!(e.contains("/nonexistent/my.cnf: No such file"), "{e}");
    }
}
