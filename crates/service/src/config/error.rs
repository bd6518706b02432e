//! Why a configuration cannot be used: a file that does not read or parse, a value of the
//! wrong type, or values Keel cannot honour (`keel serve` refuses to start, naming each).

/// A configuration that could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A file or directory could not be read or does not parse.
    #[error("cannot read config {path}: {why}")]
    Read {
        /// The file's path.
        path: String,
        /// The I/O error, or `at line N, <what>: <line>` for a line that does not parse.
        why: String,
    },
    /// A value has the wrong type or is out of range.
    #[error("[{section}] {key}: invalid value {value:?}: {why}")]
    Invalid {
        /// INI section.
        section: String,
        /// Option name as written in the file, e.g. `bind_port`.
        key: String,
        /// The raw value.
        value: String,
        /// What was expected.
        why: String,
    },
    /// Values Keel cannot honour (every one found, each naming section, key and why).
    #[error("configuration refused:\n{}", .0.join("\n"))]
    Refused(Vec<String>),
}

impl From<compat::oslo_config::ReadError> for ConfigError {
    fn from(e: compat::oslo_config::ReadError) -> Self {
        ConfigError::Read {
            path: e.path,
            why: e.why,
        }
    }
}

/// Why `[database] connection` is no URL Keel's database layer takes
/// ([`super::db_url::octavia_db_url`]); `keel serve` refuses to start with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DbUrlError {
    /// `sqlite://<something>` that is neither `sqlite://` nor SQLAlchemy's path forms.
    #[error("an SQLite URL is sqlite:///relative/path or sqlite:////absolute/path")]
    SqlitePath,
    /// Another scheme than MariaDB/MySQL or SQLite (e.g. `postgresql://`).
    #[error("Keel speaks MariaDB/MySQL (mysql+pymysql://, mysql://) and SQLite (sqlite:///path)")]
    Scheme,
    /// Query parameters (`?ssl_capath=…&plugin=…`, an `ssl_ca` file that cannot be read) Keel
    /// cannot honour: every one, in the URL's order, e.g.
    /// `URL parameter ssl_ca: /etc/ca.pem: No such file or directory (os error 2)`.
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Parameters(Vec<RefusedParameter>),
}

/// One query parameter of `[database] connection` Keel cannot honour.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("URL parameter {name}: {why}")]
pub struct RefusedParameter {
    /// The `[database]` option it was written in: `connection` or `connection_parameters`.
    pub option: &'static str,
    /// The parameter's name as written (`ssl_ca`, `ssl-mode`, `plugin`).
    pub name: String,
    /// Why Keel cannot honour it.
    pub why: String,
}
