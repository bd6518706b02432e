//! [`Section`]: reads of the catalog's typed options (`compat::catalog::Typed`: each option's
//! section, name and default written once there, its text converted as oslo.config's
//! `StrOpt`, `IntOpt`, `BoolOpt`, `ListOpt`, `MultiStrOpt` convert it), deprecated names
//! honoured through the option catalog. Errors name the section, key, value and why.

use super::error::ConfigError;
use compat::catalog;
use compat::oslo_config::Sources;

/// One section of the files: the value set for a key (by its name or a deprecated alias) and
/// the refusals that name it; its associated functions read a typed option.
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
    /// The refusal of a typed option's effective value (empty when unset), for `why`.
    pub(crate) fn typed_invalid<T: catalog::OptValue>(
        src: &Sources,
        o: &catalog::Typed<T>,
        why: impl Into<String>,
    ) -> ConfigError {
        let s = Section {
            src,
            name: o.opt.section,
        };
        s.invalid(o.opt.name, s.get(o.opt.name).unwrap_or_default(), why)
    }
    /// The refusal of `value` (one item of a typed option's value, or the value as read) for
    /// `why`, naming the option's section and name.
    pub(crate) fn typed_refuse<T: catalog::OptValue>(
        o: &catalog::Typed<T>,
        value: String,
        why: impl Into<String>,
    ) -> ConfigError {
        ConfigError::Invalid {
            section: o.opt.section.into(),
            key: o.opt.name.into(),
            value,
            why: why.into(),
        }
    }
    /// Whether a typed option is set in a file (by its name or a deprecated alias).
    pub(crate) fn is_set<T: catalog::OptValue>(src: &Sources, o: &catalog::Typed<T>) -> bool {
        let s = Section {
            src,
            name: o.opt.section,
        };
        s.get(o.opt.name).is_some()
    }
    /// A typed `MultiStrOpt`: every occurrence in every file, in order, else its default read
    /// as a list.
    pub(crate) fn typed_all(
        src: &Sources,
        o: &catalog::Typed<Vec<String>>,
    ) -> Result<Vec<String>, ConfigError> {
        match src.get(o.opt.section, o.opt.name) {
            None => Self::typed(src, o),
            Some(v) => Ok(v
                .occurrences
                .iter()
                .map(|(s, _)| s.trim().to_string())
                .collect()),
        }
    }
}
