//! `[healthcheck]` (oslo.middleware's healthcheck options) and `[api_settings]
//! healthcheck_refresh_interval` as the API's [`HealthcheckConfig`].

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use api::healthcheck::{Backend, HealthcheckConfig, SourceRangeError};

use super::error::ConfigError;
use super::section::Section;
use compat::oslo_config::Sources;

/// The backends Keel runs: oslo.middleware's `disable_by_file`, `disable_by_files_ports`,
/// `enable_by_files` and Octavia's `octavia_db_check` (their entry-point names). Errors: an
/// unknown backend, `disable_by_file` together with `enable_by_files` (oslo.middleware's
/// `ConfigInvalid`), a `disable_by_file_paths` item that is not `port:path`, a negative
/// refresh interval, an `allowed_source_ranges` item that is not a network (oslo's
/// `ipaddress.ip_network`, strict).
pub(super) fn read(src: &Sources, server_port: u16) -> Result<HealthcheckConfig, ConfigError> {
    use compat::catalog::{api_settings::HEALTHCHECK_REFRESH_INTERVAL, healthcheck as h};
    let names = Section::typed(src, &h::BACKENDS)?;
    let has = |n: &str| names.iter().any(|x| x == n);
    if has("disable_by_file") && has("enable_by_files") {
        return Err(Section::typed_refuse(
            &h::BACKENDS,
            names.join(","),
            "the enable_by_files and disable_by_file plugins cannot be enabled at the same time",
        ));
    }
    let mut backends = Vec::with_capacity(names.len());
    for name in &names {
        backends.push(match name.as_str() {
            "octavia_db_check" => Backend::OctaviaDb,
            "disable_by_file" => {
                Backend::DisableByFile(Section::typed(src, &h::DISABLE_BY_FILE_PATH)?)
            }
            "disable_by_files_ports" => {
                let mut paths = BTreeMap::new();
                for item in Section::typed(src, &h::DISABLE_BY_FILE_PATHS)? {
                    let bad = || {
                        let why = "expected port:path";
                        Section::typed_refuse(&h::DISABLE_BY_FILE_PATHS, item.clone(), why)
                    };
                    let (port, path) = item.split_once(':').ok_or_else(bad)?;
                    let port: u16 = port.trim().parse().map_err(|_| bad())?;
                    paths.insert(port, PathBuf::from(path.trim()));
                }
                Backend::DisableByFilesPorts(paths)
            }
            "enable_by_files" => Backend::EnableByFiles(
                Section::typed(src, &h::ENABLE_BY_FILE_PATHS)?
                    .into_iter()
                    .map(PathBuf::from)
                    .collect(),
            ),
            other => {
                return Err(Section::typed_refuse(
                    &h::BACKENDS,
                    other.to_string(),
                    "Keel's healthcheck backends are octavia_db_check, disable_by_file, \
                     disable_by_files_ports and enable_by_files",
                ));
            }
        });
    }
    let refresh = Section::typed(src, &HEALTHCHECK_REFRESH_INTERVAL)?;
    let mut allowed_source_ranges = Vec::new();
    for item in Section::typed(src, &h::ALLOWED_SOURCE_RANGES)? {
        let range = item.parse().map_err(|e: SourceRangeError| {
            Section::typed_refuse(&h::ALLOWED_SOURCE_RANGES, item.clone(), e.to_string())
        })?;
        allowed_source_ranges.push(range);
    }
    Ok(HealthcheckConfig {
        backends,
        refresh_interval: Duration::from_secs(refresh),
        server_port,
        detailed: Section::typed(src, &h::DETAILED)?,
        allowed_source_ranges,
        ignore_proxied_requests: Section::typed(src, &h::IGNORE_PROXIED_REQUESTS)?,
        ..Default::default()
    })
}
