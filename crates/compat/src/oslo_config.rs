//! The raw values of one or more oslo.config files, merged as oslo.config does.
//!
//! Parsing follows oslo_config/iniparser.py: `[section]` headers, `key = value` or
//! `key: value` (the first of `=`/`:` splits), `#`/`;` comment lines, indented continuation
//! lines joined with `\n`, one pair of matching quotes around a value stripped. Section names
//! are case-insensitive except `DEFAULT` (oslo's `_normalize_group_name`); keys are taken with
//! `-` read as `_` (oslo's `dest`).
//!
//! Merging (oslo_config/cfg.py `ConfigOpts`): files are read in command-line order,
//! `--config-dir` contributing its `*.conf` files in alphabetical order at its place; for a
//! single-valued option the last occurrence wins, a multi-valued option (`MultiStrOpt`) gets
//! every occurrence in order.
//!
//! ```
//! use std::path::Path;
//! use compat::oslo_config::Sources;
//!
//! let mut s = Sources::default();
//! let text = "[DEFAULT]\ndebug = True\n[Api_Settings]\nbind-host = 0.0.0.0\n\
//!             [ovn]\novn_nb_connection = tcp:10.0.0.1:6641\n  tcp:10.0.0.2:6641\n";
//! s.add_text(text, Path::new("/etc/octavia/octavia.conf"))?;
//! // section names lower-cased (DEFAULT kept), `-` in keys read as `_`
//! assert_eq!(s.get("api_settings", "bind_host").map(|v| v.last()), Some("0.0.0.0"));
//! // an indented line continues the value
//! assert_eq!(
//!     s.get("ovn", "ovn_nb_connection").map(|v| v.last()),
//!     Some("tcp:10.0.0.1:6641\ntcp:10.0.0.2:6641")
//! );
//! // a line that does not parse names the file and the line
//! let e = s.add_text("[DEFAULT]\nno separator\n", Path::new("bad.conf")).unwrap_err();
//! assert!(e.to_string().starts_with("cannot read config bad.conf: at line 2"), "{e}");
//! # Ok::<(), compat::oslo_config::ReadError>(())
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A configuration file or directory that could not be read, or a line that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot read config {path}: {why}")]
pub struct ReadError {
    /// The file's or directory's path.
    pub path: String,
    /// The I/O error, or `at line N, <what>: <line>` for a line that does not parse.
    pub why: String,
}

/// Every occurrence of one `[section] key` across the files, in reading order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawValue {
    /// `(value, file)` per occurrence; the last is the effective single value.
    pub occurrences: Vec<(String, PathBuf)>,
}

impl RawValue {
    /// The effective value of a single-valued option: the last occurrence.
    pub fn last(&self) -> &str {
        self.occurrences
            .last()
            .map(|(v, _)| v.as_str())
            .unwrap_or("")
    }
    /// The file the effective value came from.
    pub fn file(&self) -> Option<&Path> {
        self.occurrences.last().map(|(_, f)| f.as_path())
    }
}

/// Where the configuration came from: a `--config-file` or a `--config-dir`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// One file (must exist).
    File(PathBuf),
    /// A directory: its `*.conf` files, alphabetically (a missing directory is an error).
    Dir(PathBuf),
}

/// The merged view of all files: `(section, key)` → occurrences.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// The files read, in order.
    pub files: Vec<PathBuf>,
    values: BTreeMap<(String, String), RawValue>,
}

fn normalize_section(s: &str) -> String {
    if s == "DEFAULT" {
        s.to_string()
    } else {
        s.to_lowercase()
    }
}

fn normalize_key(k: &str) -> String {
    k.replace('-', "_")
}

impl Sources {
    /// Reads every location in order. Errors: a file that cannot be read or does not parse
    /// (naming the file and line), a `--config-dir` that is not a directory.
    pub fn load(locations: &[Location]) -> Result<Self, ReadError> {
        let mut s = Sources::default();
        for loc in locations {
            match loc {
                Location::File(f) => s.add_file(f)?,
                Location::Dir(d) => {
                    let entries = std::fs::read_dir(d).map_err(|e| ReadError {
                        path: d.display().to_string(),
                        why: e.to_string(),
                    })?;
                    let mut files: Vec<PathBuf> = entries
                        .filter_map(|e| e.ok().map(|e| e.path()))
                        .filter(|p| p.extension().is_some_and(|x| x == "conf") && p.is_file())
                        .collect();
                    files.sort();
                    for f in files {
                        s.add_file(&f)?;
                    }
                }
            }
        }
        Ok(s)
    }

    fn add_file(&mut self, path: &Path) -> Result<(), ReadError> {
        let text = std::fs::read_to_string(path).map_err(|e| ReadError {
            path: path.display().to_string(),
            why: e.to_string(),
        })?;
        self.add_text(&text, path)
    }

    /// Parses `text` as if read from `path` (also for tests).
    pub fn add_text(&mut self, text: &str, path: &Path) -> Result<(), ReadError> {
        let err = |lineno: usize, msg: &str, line: &str| ReadError {
            path: path.display().to_string(),
            why: format!("at line {lineno}, {msg}: {line:?}"),
        };
        let mut section: Option<String> = None;
        let mut pending: Option<(String, Vec<String>)> = None;
        let mut flush = |section: &Option<String>,
                         pending: &mut Option<(String, Vec<String>)>,
                         lineno: usize|
         -> Result<(), ReadError> {
            if let Some((key, parts)) = pending.take() {
                let Some(sec) = section else {
                    return Err(err(lineno, "no section for the assignment", &key));
                };
                self.values
                    .entry((sec.clone(), normalize_key(&key)))
                    .or_insert_with(|| RawValue {
                        occurrences: Vec::new(),
                    })
                    .occurrences
                    .push((parts.join("\n"), path.to_path_buf()));
            }
            Ok(())
        };
        for (i, raw) in text.lines().enumerate() {
            let lineno = i + 1;
            let line = raw.trim_end();
            if line.is_empty() {
                flush(&section, &mut pending, lineno)?;
                continue;
            }
            if line.starts_with([' ', '\t']) {
                match &mut pending {
                    Some((_, parts)) => parts.push(line.trim_start().to_string()),
                    None => return Err(err(lineno, "Unexpected continuation line", line)),
                }
                continue;
            }
            flush(&section, &mut pending, lineno)?;
            if line.starts_with('[') {
                if !line.ends_with(']') {
                    return Err(err(lineno, "Invalid section (must end with ])", line));
                }
                if line.len() <= 2 {
                    return Err(err(lineno, "Empty section name", line));
                }
                section = Some(normalize_section(&line[1..line.len() - 1]));
            } else if line.starts_with(['#', ';']) {
                continue;
            } else {
                let (colon, equal) = (line.find(':'), line.find('='));
                let at = match (colon, equal) {
                    (None, None) => {
                        return Err(err(lineno, "No ':' or '=' found in assignment", line));
                    }
                    (None, Some(e)) => e,
                    (Some(c), None) => c,
                    (Some(c), Some(e)) => c.min(e),
                };
                let key = line[..at].trim();
                if key.is_empty() {
                    return Err(err(lineno, "Key cannot be empty", line));
                }
                let mut value = line[at + 1..].trim();
                if value.len() >= 2
                    && (value.starts_with('"') || value.starts_with('\''))
                    && value.ends_with(&value[..1])
                {
                    value = &value[1..value.len() - 1];
                }
                pending = Some((key.to_string(), vec![value.to_string()]));
            }
        }
        flush(&section, &mut pending, text.lines().count())?;
        self.files.push(path.to_path_buf());
        Ok(())
    }

    /// Every occurrence of `[section] key` (key with `_`), if any.
    pub fn get(&self, section: &str, key: &str) -> Option<&RawValue> {
        self.values.get(&(section.to_string(), key.to_string()))
    }

    /// Every `(section, key)` present in some file.
    pub fn keys(&self) -> impl Iterator<Item = (&str, &str)> {
        self.values.keys().map(|(s, k)| (s.as_str(), k.as_str()))
    }

    /// The directory of the first file (oslo.config looks up relative `policy_file`s there).
    pub fn first_dir(&self) -> Option<PathBuf> {
        self.files.first().and_then(|f| f.parent()).map(|d| {
            if d.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                d.to_path_buf()
            }
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Sources {
        let mut s = Sources::default();
        s.add_text(text, Path::new("/etc/octavia/octavia.conf"))
            .unwrap();
        s
    }

    #[test]
    fn oslo_iniparser_forms() {
        let s = parse(
            "[DEFAULT]\n# comment\n; other\ndebug: True\n[API_Settings]\n\
             bind-host = \"10.0.0.1\"\nurl = http://x:1/a=b\nlist = a,\n  b,\n\tc\n\n\
             [oslo_policy]\npolicy_dirs = one\npolicy_dirs = two\n",
        );
        assert_eq!(s.get("DEFAULT", "debug").unwrap().last(), "True");
        assert_eq!(
            s.get("api_settings", "bind_host").unwrap().last(),
            "10.0.0.1"
        );
        // The first of ':' and '=' splits.
        assert_eq!(
            s.get("api_settings", "url").unwrap().last(),
            "http://x:1/a=b"
        );
        assert_eq!(s.get("api_settings", "list").unwrap().last(), "a,\nb,\nc");
        let dirs = s.get("oslo_policy", "policy_dirs").unwrap();
        assert_eq!(dirs.occurrences.len(), 2);
        assert_eq!(dirs.last(), "two");
    }

    #[test]
    fn errors_name_file_and_line() {
        let mut s = Sources::default();
        let e = s
            .add_text("[a]\nno assignment here\n", Path::new("/x.conf"))
            .unwrap_err();
        assert!(e.to_string().contains("/x.conf") && e.to_string().contains("line 2"));
        assert!(s.add_text("k = v\n", Path::new("/y.conf")).is_err());
        assert!(s.add_text("[a\n", Path::new("/z.conf")).is_err());
    }

    #[test]
    fn later_files_win_and_dirs_are_sorted() {
        let d = tempfile::tempdir().unwrap();
        let a = d.path().join("octavia.conf");
        std::fs::write(&a, "[api_settings]\nbind_port = 1\nallow_sorting = True\n").unwrap();
        let cd = d.path().join("octavia.conf.d");
        std::fs::create_dir(&cd).unwrap();
        std::fs::write(cd.join("20-b.conf"), "[api_settings]\nbind_port = 3\n").unwrap();
        std::fs::write(cd.join("10-a.conf"), "[api_settings]\nbind_port = 2\n").unwrap();
        std::fs::write(cd.join("ignored.txt"), "[api_settings]\nbind_port = 9\n").unwrap();
        let s = Sources::load(&[Location::File(a.clone()), Location::Dir(cd.clone())]).unwrap();
        assert_eq!(s.get("api_settings", "bind_port").unwrap().last(), "3");
        assert_eq!(s.files.len(), 3);
        let s = Sources::load(&[Location::Dir(cd), Location::File(a)]).unwrap();
        assert_eq!(s.get("api_settings", "bind_port").unwrap().last(), "1");
        assert!(Sources::load(&[Location::File(d.path().join("missing.conf"))]).is_err());
    }
}
