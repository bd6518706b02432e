//! The `[healthcheck]` options as the API holds them: the backends, the source ranges
//! (`allowed_source_ranges`, CIDRs without host bits) and the database check's cache.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One `[healthcheck] backends` plugin with its options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backend {
    /// `octavia_db_check`.
    OctaviaDb,
    /// `disable_by_file` with `disable_by_file_path` (`None`: unset, always OK).
    DisableByFile(Option<PathBuf>),
    /// `disable_by_files_ports` with `disable_by_file_paths` (port → path).
    DisableByFilesPorts(BTreeMap<u16, PathBuf>),
    /// `enable_by_files` with `enable_by_file_paths`.
    EnableByFiles(Vec<PathBuf>),
}

/// One `allowed_source_ranges` network (Python's `ipaddress.ip_network`, strict: no host
/// bits set; a bare address is a /32 or /128).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceRange {
    net: IpAddr,
    prefix: u8,
}

/// Why an `allowed_source_ranges` item is not a network.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceRangeError {
    /// Not `address[/prefix]`.
    #[error("does not appear to be an IPv4 or IPv6 network")]
    Syntax,
    /// The prefix is longer than the address.
    #[error("the prefix length is out of range")]
    Prefix,
    /// Bits beyond the prefix are set (`10.0.0.1/8`).
    #[error("has host bits set")]
    HostBits,
}

fn bits(ip: IpAddr) -> (u128, u8) {
    match ip {
        IpAddr::V4(a) => (u128::from(u32::from(a)), 32),
        IpAddr::V6(a) => (u128::from(a), 128),
    }
}

fn mask(prefix: u8, width: u8) -> u128 {
    let all = if width == 32 {
        u128::from(u32::MAX)
    } else {
        u128::MAX
    };
    match u32::from(width - prefix) {
        128 => 0,
        host => all & !((1u128 << host) - 1),
    }
}

impl std::str::FromStr for SourceRange {
    type Err = SourceRangeError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (addr, prefix) = match s.trim().split_once('/') {
            Some((a, p)) => (a, Some(p)),
            None => (s.trim(), None),
        };
        let net: IpAddr = addr.parse().map_err(|_| SourceRangeError::Syntax)?;
        let (value, width) = bits(net);
        let prefix = match prefix {
            None => width,
            Some(p) => p.parse::<u8>().map_err(|_| SourceRangeError::Prefix)?,
        };
        if prefix > width {
            return Err(SourceRangeError::Prefix);
        }
        if value & !mask(prefix, width) != 0 {
            return Err(SourceRangeError::HostBits);
        }
        Ok(SourceRange { net, prefix })
    }
}

impl SourceRange {
    /// Whether `ip` is in this network (an IPv4 address is never in an IPv6 network, as
    /// oslo compares versions first).
    pub fn contains(&self, ip: IpAddr) -> bool {
        let (n, w) = bits(self.net);
        let (a, aw) = bits(ip);
        w == aw && (a & mask(self.prefix, w)) == n
    }
}

/// `[healthcheck]` and the `/healthcheck` parts of `[api_settings]`.
#[derive(Debug, Clone, PartialEq)]
pub struct HealthcheckConfig {
    /// The backends, in `backends` order.
    pub backends: Vec<Backend>,
    /// `healthcheck_refresh_interval` (5 s): how long a database check result is reused.
    pub refresh_interval: Duration,
    /// The API's port (`bind_port`), the key into `disable_by_file_paths`.
    pub server_port: u16,
    /// `detailed` (false).
    pub detailed: bool,
    /// `allowed_source_ranges` (empty: every client).
    pub allowed_source_ranges: Vec<SourceRange>,
    /// `ignore_proxied_requests` (false).
    pub ignore_proxied_requests: bool,
    /// The last database check, shared by clones.
    pub db_cache: DbCheckCache,
}

impl Default for HealthcheckConfig {
    fn default() -> Self {
        Self {
            backends: Vec::new(),
            refresh_interval: Duration::from_secs(5),
            server_port: 9876,
            detailed: false,
            allowed_source_ranges: Vec::new(),
            ignore_proxied_requests: false,
            db_cache: DbCheckCache::default(),
        }
    }
}

/// When the database was last checked, and its outcome (the database's error when it failed,
/// shared so that the cached outcome can be handed out again).
pub(super) type DbCheck = (Instant, Result<(), Arc<octavia_db::DbError>>);

/// The last database check, shared by clones.
#[derive(Debug, Clone, Default)]
pub struct DbCheckCache(pub(super) Arc<Mutex<Option<DbCheck>>>);

impl PartialEq for DbCheckCache {
    /// A cache is not configuration: any two compare equal.
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
