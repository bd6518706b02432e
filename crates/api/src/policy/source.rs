//! Where the policy comes from: `[oslo_policy] policy_file` / `policy_dirs` looked up as
//! oslo.config does, and re-read when the file changes.

use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

use super::engine::{Policy, PolicyError};

/// The policy in force, re-read when its file changes (oslo.policy's `Enforcer.load_rules`
/// runs on every check and re-reads a policy file whose modification time changed).
///
/// A changed file that no longer parses keeps the last good rules (logged at error): Keel
/// prefers that to oslo's failing every request until the file is fixed.
#[derive(Debug)]
pub struct PolicySource {
    file: Option<PathBuf>,
    enforce_new_defaults: bool,
    cache: std::sync::RwLock<(Option<FileStamp>, Arc<Policy>)>,
}

/// What identifies one version of the file: modification time and length.
type FileStamp = (std::time::SystemTime, u64);

fn stamp(path: &Path) -> Option<FileStamp> {
    let m = std::fs::metadata(path).ok()?;
    Some((m.modified().ok()?, m.len()))
}

impl PolicySource {
    /// Rules that never change (no file to watch).
    pub fn fixed(policy: Policy) -> Self {
        Self {
            file: None,
            enforce_new_defaults: true,
            cache: std::sync::RwLock::new((None, Arc::new(policy))),
        }
    }

    /// Loads `file` (if any) over the defaults, as [`Policy::load`]; the file is watched.
    /// Errors: the file cannot be used now (startup fails).
    pub fn load(file: Option<PathBuf>, enforce_new_defaults: bool) -> Result<Self, PolicyError> {
        let st = file.as_deref().and_then(stamp);
        let policy = Policy::load(file.as_deref(), enforce_new_defaults)?;
        Ok(Self {
            file,
            enforce_new_defaults,
            cache: std::sync::RwLock::new((st, Arc::new(policy))),
        })
    }

    /// The watched file, if any.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// The rules in force now: re-reads the file when its stamp changed since the last read.
    pub fn current(&self) -> Arc<Policy> {
        let cached = match self.cache.read() {
            Ok(c) => c.clone(),
            Err(p) => p.into_inner().clone(),
        };
        let Some(path) = &self.file else {
            return cached.1;
        };
        let now = stamp(path);
        if now == cached.0 {
            return cached.1;
        }
        let policy = match Policy::load(Some(path), self.enforce_new_defaults) {
            Ok(p) => {
                tracing::info!(file = %path.display(), "policy file reloaded");
                Arc::new(p)
            }
            Err(e) => {
                tracing::error!(error = %e, "policy file changed but cannot be used; keeping the previous rules");
                cached.1
            }
        };
        let mut w = match self.cache.write() {
            Ok(w) => w,
            Err(p) => p.into_inner(),
        };
        *w = (now, policy.clone());
        policy
    }
}

impl PartialEq for PolicySource {
    fn eq(&self, other: &Self) -> bool {
        self.file == other.file
            && self.enforce_new_defaults == other.enforce_new_defaults
            && self.current() == other.current()
    }
}

/// A [`PolicySource`] of the defaults (no file).
pub fn default_policy_source() -> Arc<PolicySource> {
    static SOURCE: LazyLock<Arc<PolicySource>> =
        LazyLock::new(|| Arc::new(PolicySource::fixed(Policy::default())));
    SOURCE.clone()
}

/// oslo.config's `find_file` for a relative `policy_file`: the config file's directory,
/// then `~/.octavia`, `~`, `/etc/octavia`, `/etc`; an absolute path is taken as is.
/// `None` when no such file exists (oslo.policy then uses the defaults).
pub fn find_policy_file(policy_file: &str, config_dir: Option<&Path>) -> Option<PathBuf> {
    let p = Path::new(policy_file);
    if p.is_absolute() {
        return p.is_file().then(|| p.to_path_buf());
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut dirs: Vec<PathBuf> = config_dir.map(Path::to_path_buf).into_iter().collect();
    if let Some(h) = &home {
        dirs.push(h.join(".octavia"));
        dirs.push(h.clone());
    }
    dirs.push(PathBuf::from("/etc/octavia"));
    dirs.push(PathBuf::from("/etc"));
    dirs.into_iter().map(|d| d.join(p)).find(|f| f.is_file())
}

/// The directory oslo.policy uses for one `policy_dirs` entry: absolute as is, else looked up
/// as [`find_policy_file`] does. `None` when no such directory exists (oslo.policy skips it).
pub fn find_policy_dir(dir: &str, config_dir: Option<&Path>) -> Option<PathBuf> {
    let p = Path::new(dir);
    if p.is_absolute() {
        return p.is_dir().then(|| p.to_path_buf());
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut dirs: Vec<PathBuf> = config_dir.map(Path::to_path_buf).into_iter().collect();
    if let Some(h) = &home {
        dirs.push(h.join(".octavia"));
        dirs.push(h.clone());
    }
    dirs.push(PathBuf::from("/etc/octavia"));
    dirs.push(PathBuf::from("/etc"));
    dirs.into_iter().map(|d| d.join(p)).find(|f| f.is_dir())
}
