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
        /// Why.
        why: String,
    },
    /// A value has the wrong type or is out of range.
    #[error("[{section}] {key}: invalid value {value:?}: {why}")]
    Invalid {
        /// INI section.
        section: String,
        /// Option name.
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
