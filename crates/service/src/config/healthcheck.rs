//! `[healthcheck]` (oslo.middleware's healthcheck options) and `[api_settings]
//! healthcheck_refresh_interval` as the API's [`HealthcheckConfig`].

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use api::healthcheck::{Backend, HealthcheckConfig, SourceRangeError};

use super::error::ConfigError;
use super::section::Section;

/// The backends Keel runs: oslo.middleware's `disable_by_file`, `disable_by_files_ports`,
/// `enable_by_files` and Octavia's `octavia_db_check` (their entry-point names). Errors: an
/// unknown backend, `disable_by_file` together with `enable_by_files` (oslo.middleware's
/// `ConfigInvalid`), a `disable_by_file_paths` item that is not `port:path`, a negative
/// refresh interval, an `allowed_source_ranges` item that is not a network (oslo's
/// `ipaddress.ip_network`, strict).
pub(super) fn read(
    h: &Section<'_>,
    a: &Section<'_>,
    server_port: u16,
) -> Result<HealthcheckConfig, ConfigError> {
    let names = h.list("backends", &[]);
    let has = |n: &str| names.iter().any(|x| x == n);
    if has("disable_by_file") && has("enable_by_files") {
        return Err(h.invalid(
            "backends",
            names.join(","),
            "the enable_by_files and disable_by_file plugins cannot be enabled at the same time",
        ));
    }
    let mut backends = Vec::with_capacity(names.len());
    for name in &names {
        backends.push(match name.as_str() {
            "octavia_db_check" => Backend::OctaviaDb,
            "disable_by_file" => Backend::DisableByFile(h.path("disable_by_file_path")),
            "disable_by_files_ports" => {
                let mut paths = BTreeMap::new();
                for item in h.list("disable_by_file_paths", &[]) {
                    let bad =
                        || h.invalid("disable_by_file_paths", item.clone(), "expected port:path");
                    let (port, path) = item.split_once(':').ok_or_else(bad)?;
                    let port: u16 = port.trim().parse().map_err(|_| bad())?;
                    paths.insert(port, PathBuf::from(path.trim()));
                }
                Backend::DisableByFilesPorts(paths)
            }
            "enable_by_files" => Backend::EnableByFiles(
                h.list("enable_by_file_paths", &[])
                    .into_iter()
                    .map(PathBuf::from)
                    .collect(),
            ),
            other => {
                return Err(h.invalid(
                    "backends",
                    other.to_string(),
                    "Keel's healthcheck backends are octavia_db_check, disable_by_file, \
                     disable_by_files_ports and enable_by_files",
                ));
            }
        });
    }
    let refresh = a.uint("healthcheck_refresh_interval", 5)?;
    let mut allowed_source_ranges = Vec::new();
    for item in h.list("allowed_source_ranges", &[]) {
        let range = item.parse().map_err(|e: SourceRangeError| {
            h.invalid("allowed_source_ranges", item.clone(), e.to_string())
        })?;
        allowed_source_ranges.push(range);
    }
    Ok(HealthcheckConfig {
        backends,
        refresh_interval: Duration::from_secs(refresh),
        server_port,
        detailed: h.boolean("detailed", false)?,
        allowed_source_ranges,
        ignore_proxied_requests: h.boolean("ignore_proxied_requests", false)?,
        ..Default::default()
    })
}
