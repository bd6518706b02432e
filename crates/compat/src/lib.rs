//! Readers of the formats the programs around an Octavia deployment write, each as its own
//! program reads it, so that Keel takes the operator's files unchanged:
//!
//! | module | format | read as |
//! |---|---|---|
//! | [`oslo_config`] | `octavia.conf` and `--config-dir` | oslo.config's `iniparser.py` and `ConfigOpts` merging |
//! | [`oslo_cli`] | `--config-file`, `--debug`, `--log-file`… | oslo.config's and oslo.log's command-line options, oslo's default files |
//! | [`catalog`] | every option Octavia and its libraries register | `oslo-config-generator`'s names, types, defaults, aliases |
//! | [`log_config`] | `[DEFAULT] log_config_append`: a Python logging fileConfig file | Python 3.11's `logging.config.fileConfig`, as oslo.log loads it |
//! | [`python_logging`] | the logging tree either setup leaves: handlers, loggers, levels | Python's `logging` (`getEffectiveLevel`, `propagate`) |
//! | [`log_format`] | `logging_context_format_string`, `[formatter_*] format` | Python's `logging.PercentStyle` |
//! | [`my_cnf`] | the MySQL option file of `read_default_file` | PyMySQL's `optionfile.py` |
//! | [`uwsgi`] | `uwsgi --ini octavia-api-uwsgi.ini` | uWSGI's ini and command line |
//! | [`httpd`] | `httpd -DFOREGROUND` with `httpd.conf` | Apache 2.4 with mod_wsgi |
//!
//! Nothing here knows Keel's own types: each reader hands back plain values (strings, paths,
//! listeners) or an error naming the file, line or option, and says what it cannot honour.
//!
//! ```
//! use std::path::Path;
//! use compat::oslo_config::Sources;
//!
//! let mut sources = Sources::default();
//! sources.add_text("[api_settings]\nbind_port = 9876\n", Path::new("octavia.conf"))?;
//! sources.add_text("[api_settings]\nbind_port = 9877\n", Path::new("override.conf"))?;
//! // the last file wins, as oslo.config merges them
//! assert_eq!(sources.get("api_settings", "bind_port").map(|v| v.last()), Some("9877"));
//! // an option Octavia registers, by its name or a deprecated alias
//! assert!(compat::catalog::find("api_settings", "bind_port").is_some());
//! # Ok::<(), compat::oslo_config::ReadError>(())
//! ```

/// The program the readers answer `--version` for (`uwsgi --version`, `httpd -v`): its
/// release and the commit it was built from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Build {
    /// The release, e.g. `0.1.0`.
    pub version: &'static str,
    /// The source commit, e.g. `afeb6d9` (`unknown` when not known).
    pub commit: &'static str,
}

pub mod catalog;
pub mod httpd;
pub mod log_config;
pub mod log_format;
pub mod my_cnf;
pub mod oslo_cli;
pub mod oslo_config;
pub mod python_logging;
pub mod uwsgi;
