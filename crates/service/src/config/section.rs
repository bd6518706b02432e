//! [`Section`]: typed reads of one octavia.conf section with oslo.config's types (`StrOpt`,
//! `IntOpt`, `BoolOpt`, `ListOpt`, `MultiStrOpt`), deprecated names honoured through the
//! option catalog. Errors name the section, key, value and why.

use std::path::PathBuf;

use super::error::ConfigError;
use compat::catalog;
use compat::oslo_config::Sources;

/// Typed reads of one section, oslo.config's types.
pub(crate) struct Section<'a> {
    pub(crate) src: &'a Sources,
    pub(crate) name: &'static str,
}

impl Section<'_> {
    /// The effective value: the option's own name, else a deprecated alias.
    pub(crate) fn get(&self, key: &str) -> Option<String> {
        let mut names = vec![key];
        if let Some(o) = catalog::find(self.name, key) {
            names.extend(o.aliases.iter().copied());
        }
        names
            .iter()
            .find_map(|n| self.src.get(self.name, n))
            .map(|v| v.last().trim().to_string())
    }
    pub(crate) fn invalid(&self, key: &str, value: String, why: impl Into<String>) -> ConfigError {
        ConfigError::Invalid {
            section: self.name.into(),
            key: key.into(),
            value,
            why: why.into(),
        }
    }
    /// `StrOpt`; an empty value counts as set-but-empty (oslo keeps `""`).
    pub(crate) fn string(&self, key: &str, default: &str) -> String {
        self.get(key).unwrap_or_else(|| default.to_string())
    }
    /// `StrOpt` with no default: `None` when absent or empty.
    pub(crate) fn opt(&self, key: &str) -> Option<String> {
        self.get(key).filter(|v| !v.is_empty())
    }
    /// `IntOpt` with optional bounds.
    pub(crate) fn int(
        &self,
        key: &str,
        default: i64,
        min: Option<i64>,
    ) -> Result<i64, ConfigError> {
        let Some(v) = self.get(key) else {
            return Ok(default);
        };
        let n: i64 = v
            .parse()
            .map_err(|_| self.invalid(key, v.clone(), "expected an integer"))?;
        if let Some(m) = min
            && n < m
        {
            return Err(self.invalid(key, v, format!("should be greater than or equal to {m}")));
        }
        Ok(n)
    }
    pub(crate) fn uint(&self, key: &str, default: u64) -> Result<u64, ConfigError> {
        Ok(self.int(key, default as i64, Some(0))? as u64)
    }
    /// `BoolOpt`: true/false, yes/no, on/off, 1/0 (case-insensitive).
    pub(crate) fn boolean(&self, key: &str, default: bool) -> Result<bool, ConfigError> {
        Ok(self.opt_bool(key)?.unwrap_or(default))
    }
    pub(crate) fn opt_bool(&self, key: &str) -> Result<Option<bool>, ConfigError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => match v.to_ascii_lowercase().as_str() {
                "true" | "yes" | "on" | "1" => Ok(Some(true)),
                "false" | "no" | "off" | "0" => Ok(Some(false)),
                _ => Err(self.invalid(key, v, "expected a boolean")),
            },
        }
    }
    /// `ListOpt`: comma-separated, items trimmed, empties dropped.
    pub(crate) fn list(&self, key: &str, default: &[&str]) -> Vec<String> {
        match self.get(key) {
            None => default.iter().map(|s| s.to_string()).collect(),
            Some(v) => v
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect(),
        }
    }
    /// `MultiStrOpt`: every occurrence in every file, in order.
    pub(crate) fn multi(&self, key: &str, default: &[&str]) -> Vec<String> {
        match self.src.get(self.name, key) {
            None => default.iter().map(|s| s.to_string()).collect(),
            Some(v) => v
                .occurrences
                .iter()
                .map(|(s, _)| s.trim().to_string())
                .collect(),
        }
    }
    /// A duration in seconds (oslo `IntOpt`/`FloatOpt`); must be positive.
    pub(crate) fn seconds(&self, key: &str) -> Result<Option<std::time::Duration>, ConfigError> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        match v.parse::<f64>() {
            Ok(x) if x > 0.0 && x.is_finite() => Ok(Some(std::time::Duration::from_secs_f64(x))),
            _ => Err(self.invalid(key, v, "expected a positive number of seconds")),
        }
    }
    /// A typed option of the catalog, in its own section: the value set, else its default,
    /// converted by `T` (errors as the other reads: section, key, value and why).
    pub(crate) fn typed<T: catalog::OptValue>(
        src: &Sources,
        o: &catalog::Typed<T>,
    ) -> Result<T, ConfigError> {
        let s = Section {
            src,
            name: o.opt.section,
        };
        o.value(s.get(o.opt.name).as_deref())
            .map_err(|(value, why)| s.invalid(o.opt.name, value, why))
    }
    pub(crate) fn path(&self, key: &str) -> Option<PathBuf> {
        self.opt(key).map(PathBuf::from)
    }
}
