//! Every option Octavia (19.0.0) and ovn-octavia-provider (11.0.0) register, with oslo.log,
//! oslo.middleware, oslo.policy, oslo.db, oslo.messaging, oslo.concurrency and
//! keystonemiddleware's `auth_token` (plus the password plugin's options keystoneauth adds to
//! `[keystone_authtoken]`), and what Keel does with each. The `v3applicationcredential`
//! plugin's three `application_credential_*` options (keystoneauth registers them when
//! `auth_type` names that plugin) are listed after `password` in each auth section.
//!
//! Names, types and defaults are those `oslo-config-generator` reports for the namespaces
//! `octavia`, `octavia.api.drivers.ovn` and the libraries above; option names are given with
//! `_` (oslo's `dest`), deprecated names as `aliases`.
//!
//! ```
//! use compat::catalog::{Use, find};
//!
//! let port = find("api_settings", "bind_port").ok_or("bind_port")?;
//! assert_eq!((port.kind, port.default, port.use_), ("port", "9876", Use::Honoured));
//! // no such option: the review reports it as unknown
//! assert!(find("api_settings", "no_such_option").is_none());
//! # Ok::<(), &str>(())
//! ```

/// What Keel does with an option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    /// Read and acted upon (see the README's configuration table).
    Honoured,
    /// Applies to the API or the OVN provider but Keel does not implement it: a value set in
    /// a file is logged once at start-up.
    Unimplemented,
    /// Known not to apply to an OVN-only deployment (amphora, controller worker, RPC): never
    /// logged, listed by `keel config check`.
    NotApplicable(&'static str),
}

/// One registered option.
#[derive(Debug, Clone, Copy)]
pub struct Opt {
    /// Section (`DEFAULT` or lower case).
    pub section: &'static str,
    /// Name with `_`.
    pub name: &'static str,
    /// oslo type: `str`, `int`, `bool`, `float`, `list`, `dict`, `multi`, `port`, `ip`, `host`,
    /// `uri`.
    pub kind: &'static str,
    /// The registered default as text (empty: none).
    pub default: &'static str,
    /// Registered `secret=True` (masked by `keel config check`).
    pub secret: bool,
    /// Deprecated names of the same option in the same section.
    pub aliases: &'static [&'static str],
    /// What Keel does with it.
    pub use_: Use,
}

/// Looks up `[section] name` by its name or a deprecated alias.
pub fn find(section: &str, name: &str) -> Option<&'static Opt> {
    OPTS.iter()
        .find(|o| o.section == section && (o.name == name || o.aliases.contains(&name)))
}

/// A catalog option with the type its value is read as: [`Typed::opt`] is the option's one
/// spelling of section, name and default, and [`Typed::value`] converts what a file set (or,
/// unset, that default) with `T`'s [`OptValue::parse`].
///
/// ```
/// use compat::catalog::keel::{RUN_AGENT, SETTLE_WAIT_MS};
///
/// assert_eq!(SETTLE_WAIT_MS.value(None), Ok(1000)); // the catalog's default, "1000"
/// assert_eq!(SETTLE_WAIT_MS.value(Some("0")), Ok(0));
/// let why = "should be greater than or equal to 0".to_string();
/// assert_eq!(SETTLE_WAIT_MS.value(Some("-1")), Err(("-1".to_string(), why)));
/// assert_eq!(RUN_AGENT.value(Some("off")), Ok(false));
/// // the same row the catalog lists
/// assert!(compat::catalog::find("keel", "run_agent").is_some_and(|o| o.default == "True"));
/// ```
#[derive(Debug)]
pub struct Typed<T> {
    /// The option's row of [`OPTS`].
    pub opt: Opt,
    /// The text read when the option is not set: the row's default, or Keel's where it
    /// differs (an OVN-only service, an embedded DB: see [`Typed::keel_default`]).
    pub default: &'static str,
    read_as: std::marker::PhantomData<fn() -> T>,
}

impl<T: OptValue> Typed<T> {
    /// The option `opt`, read as `T`, unset its registered default.
    pub const fn new(opt: Opt) -> Self {
        Typed {
            opt,
            default: opt.default,
            read_as: std::marker::PhantomData,
        }
    }

    /// The same option, unset read as `text` instead of the registered default (the
    /// catalog's row, and so `docs/configuration.md`, keep the registered one).
    pub const fn keel_default(self, text: &'static str) -> Self {
        Typed {
            default: text,
            ..self
        }
    }

    /// `set` (the effective value, trimmed; `None`: not set) as `T`, else the default's
    /// ([`OptValue::unset`]). Errors: `(text, why)` for a text that is no `T`.
    pub fn value(&self, set: Option<&str>) -> Result<T, (String, String)> {
        match set {
            Some(text) => T::parse(text).map_err(|why| (text.to_string(), why)),
            None => T::unset(self.default).map_err(|why| (self.default.to_string(), why)),
        }
    }
}

/// A Rust type an option's text converts to, as oslo.config's types convert it.
pub trait OptValue: Sized {
    /// The text as `Self`. Errors: why it is not one (e.g. `expected an integer`).
    fn parse(text: &str) -> Result<Self, String>;

    /// The value of an option not set, from its default's text (`parse` but where an empty
    /// default means none, e.g. `Option<Duration>`).
    fn unset(default: &str) -> Result<Self, String> {
        Self::parse(default)
    }
}

fn int_at_least(text: &str, min: i64) -> Result<i64, String> {
    let n: i64 = text
        .parse()
        .map_err(|_| "expected an integer".to_string())?;
    if n < min {
        return Err(format!("should be greater than or equal to {min}"));
    }
    Ok(n)
}

/// `IntOpt` without bounds.
impl OptValue for i64 {
    fn parse(text: &str) -> Result<Self, String> {
        int_at_least(text, i64::MIN)
    }
}

/// `IntOpt(min=0)`.
impl OptValue for u64 {
    fn parse(text: &str) -> Result<Self, String> {
        int_at_least(text, 0).map(|n| n.unsigned_abs())
    }
}

/// `IntOpt(min=1)`.
impl OptValue for std::num::NonZeroU64 {
    fn parse(text: &str) -> Result<Self, String> {
        let n = int_at_least(text, 1)?;
        std::num::NonZeroU64::new(n.unsigned_abs())
            .ok_or_else(|| "should be greater than or equal to 1".to_string())
    }
}

/// `BoolOpt`: true/false, yes/no, on/off, 1/0 (case-insensitive).
impl OptValue for bool {
    fn parse(text: &str) -> Result<Self, String> {
        match text.to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" | "1" => Ok(true),
            "false" | "no" | "off" | "0" => Ok(false),
            _ => Err("expected a boolean".into()),
        }
    }
}

/// `StrOpt` without a default: `None` when empty.
impl OptValue for Option<String> {
    fn parse(text: &str) -> Result<Self, String> {
        Ok(Some(text.to_string()).filter(|t| !t.is_empty()))
    }
}

/// A positive number of seconds (`IntOpt` or `FloatOpt`).
impl OptValue for std::time::Duration {
    fn parse(text: &str) -> Result<Self, String> {
        match text.parse::<f64>() {
            Ok(x) if x > 0.0 && x.is_finite() => Ok(std::time::Duration::from_secs_f64(x)),
            _ => Err("expected a positive number of seconds".into()),
        }
    }
}

/// A positive number of seconds with no default: `None` when unset and the default is empty;
/// a value set, even empty, must be a positive number.
impl OptValue for Option<std::time::Duration> {
    fn parse(text: &str) -> Result<Self, String> {
        std::time::Duration::parse(text).map(Some)
    }
    fn unset(default: &str) -> Result<Self, String> {
        match default {
            "" => Ok(None),
            d => Self::parse(d),
        }
    }
}

/// `StrOpt` with a default: the text as written (a value set empty stays `""`, as oslo).
impl OptValue for String {
    fn parse(text: &str) -> Result<Self, String> {
        Ok(text.to_string())
    }
}

/// A `StrOpt` naming a file, without a default: `None` when empty.
impl OptValue for Option<std::path::PathBuf> {
    fn parse(text: &str) -> Result<Self, String> {
        Ok(Some(text).filter(|t| !t.is_empty()).map(Into::into))
    }
}

/// `ListOpt`: comma-separated, items trimmed, empty items dropped.
impl OptValue for Vec<String> {
    fn parse(text: &str) -> Result<Self, String> {
        Ok(text
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect())
    }
}

/// `IntOpt(min=MIN)`: an integer at least `MIN` (e.g. `AtLeast<-1>`, where -1 means
/// unlimited, as oslo.db's `max_overflow`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AtLeast<const MIN: i64>(pub i64);

impl<const MIN: i64> OptValue for AtLeast<MIN> {
    fn parse(text: &str) -> Result<Self, String> {
        int_at_least(text, MIN).map(AtLeast)
    }
}

/// Declares typed constants of one section, each with its catalog row written once: the
/// option's name, oslo type and registered default, optionally its deprecated names
/// (`aliases ["old"]`), `secret`, Keel's own default (`keel "5"`, see
/// [`Typed::keel_default`]) and, for an option read but not applicable to Keel, why
/// (`na WHY`: the row is `Use::NotApplicable(WHY)`, else `Use::Honoured`). The section's
/// `ROWS` lists `CONST.opt` where the option is registered; with `rows` after the section the
/// macro writes that `ROWS` itself (every option of the section declared, in registration
/// order). The doc written above a constant is followed by a generated line giving section,
/// name, type and default.
macro_rules! typed {
    ($section:literal rows; $(
        $(#[doc = $doc:literal])*
        $c:ident: $t:ty = $name:literal $kind:literal $default:literal
            $(aliases [$($alias:literal),*])? $(secret $secret:literal)? $(keel $keel:literal)?
            $(na $na:expr)?;
    )*) => {
        typed! { $section; $(
            $(#[doc = $doc])*
            $c: $t = $name $kind $default
                $(aliases [$($alias),*])? $(secret $secret)? $(keel $keel)? $(na $na)?;
        )* }
        #[doc = concat!("The rows of `[", $section, "]`, in registration order.")]
        pub(crate) const ROWS: &[$crate::catalog::Opt] = &[$($c.opt),*];
    };
    ($section:literal; $(
        $(#[doc = $doc:literal])*
        $c:ident: $t:ty = $name:literal $kind:literal $default:literal
            $(aliases [$($alias:literal),*])? $(secret $secret:literal)? $(keel $keel:literal)?
            $(na $na:expr)?;
    )*) => {$(
        $(#[doc = $doc])*
        #[doc = concat!("\n\n`[", $section, "] ", $name, "`: oslo type `", $kind,
            "`, registered default `\"", $default, "\"`", $(", Keel's `\"", $keel, "\"`",)? ".")]
        pub const $c: $crate::catalog::Typed<$t> = $crate::catalog::Typed::new($crate::catalog::Opt {
            section: $section,
            name: $name,
            kind: $kind,
            default: $default,
            secret: { let _s = false; $(let _s = $secret;)? _s },
            aliases: &[$($($alias),*)?],
            use_: { let _u = $crate::catalog::Use::Honoured; $(let _u = $crate::catalog::Use::NotApplicable($na);)? _u },
        })$(.keel_default($keel))?;
    )*};
}

mod amphora;
mod api;
mod auth;
pub mod default;
pub mod keel;
mod oslo;
pub mod ovn;
mod rabbit;
mod services;

pub use amphora::{controller_worker, haproxy_amphora};
pub use api::{api_settings, cors, healthcheck, networking, oslo_middleware, quotas};
pub use auth::{AuthOpts, keystone_authtoken, neutron, service_auth};
pub use oslo::{database, oslo_policy};
pub use rabbit::{Boolean, Bounded, Float, Integer, OptionalStr, oslo_messaging_rabbit};
pub use services::{PeerOpts, certificates, cinder, glance, nova};

/// Every option: the registered ones (sections in byte order, each section's options in
/// registration order), then Keel's own (`[keel]`) and the removed ones it knows.
pub static OPTS: std::sync::LazyLock<Vec<Opt>> = std::sync::LazyLock::new(|| {
    let mut opts = [
        default::ROWS,
        amphora::ROWS,
        api::ROWS,
        services::ROWS,
        auth::ROWS,
        oslo::ROWS,
        oslo_messaging_rabbit::ROWS,
        ovn::ROWS,
    ]
    .concat();
    // stable: each section's options keep their registration order
    opts.sort_by_key(|o| o.section);
    opts.extend_from_slice(keel::ROWS);
    opts
});

#[cfg(test)]
mod tests {
    use super::keel::*;

    /// Every typed constant's default converts to its type (an unset option never fails).
    #[test]
    fn typed_defaults_convert() {
        assert!(SETTLE_WAIT_MS.value(None).is_ok());
        assert!(NB_UNAVAILABLE_AFTER.value(None).is_ok());
        assert!(RECOVERY_LEASE.value(None).is_ok());
        assert!(RECOVERY_PERIOD.value(None).is_ok());
        assert!(GRACEFUL_SHUTDOWN_TIMEOUT.value(None).is_ok());
        assert!(RPC_CAST_TIMEOUT.value(None).is_ok());
        assert_eq!(METRICS_LISTEN.value(None), Ok(None));
        assert_eq!(RUN_AGENT.value(None), Ok(true));
        use super::{api_settings as a, haproxy_amphora as h, networking as n, quotas as q};
        for o in [
            a::ALLOW_PAGINATION,
            a::ALLOW_SORTING,
            a::ALLOW_FILTERING,
            a::ALLOW_FIELD_SELECTION,
            a::ALLOW_TLS_TERMINATED_LISTENERS,
            a::ALLOW_PING_HEALTH_MONITORS,
            a::ALLOW_PROMETHEUS_LISTENERS,
            n::ALLOW_VIP_NETWORK_ID,
            n::ALLOW_VIP_SUBNET_ID,
            n::ALLOW_VIP_PORT_ID,
        ] {
            assert_eq!(o.value(None), Ok(true), "{}", o.opt.name);
        }
        assert_eq!(a::HEALTHCHECK_ENABLED.value(None), Ok(false));
        for (o, d) in [
            (h::TIMEOUT_CLIENT_DATA, 50000),
            (h::TIMEOUT_MEMBER_CONNECT, 5000),
            (h::TIMEOUT_MEMBER_DATA, 50000),
            (h::TIMEOUT_TCP_INSPECT, 0),
            (q::DEFAULT_LOAD_BALANCER_QUOTA, -1),
            (q::DEFAULT_LISTENER_QUOTA, -1),
            (q::DEFAULT_MEMBER_QUOTA, -1),
            (q::DEFAULT_POOL_QUOTA, -1),
            (q::DEFAULT_HEALTH_MONITOR_QUOTA, -1),
            (q::DEFAULT_L7POLICY_QUOTA, -1),
            (q::DEFAULT_L7RULE_QUOTA, -1),
        ] {
            assert_eq!(o.value(None), Ok(d), "{}", o.opt.name);
        }
    }

    /// The value types the typed! options use beyond the `[keel]` ones.
    #[test]
    fn value_types_convert_as_oslo() {
        use super::{AtLeast, OptValue, database, keystone_authtoken, neutron};
        use std::time::Duration;
        assert_eq!(AtLeast::<-1>::parse("-1"), Ok(AtLeast(-1)));
        let why = "should be greater than or equal to -1".to_string();
        assert_eq!(AtLeast::<-1>::parse("-2"), Err(why));
        assert_eq!(
            Vec::<String>::parse(" a, b ,,c"),
            Ok(vec!["a".into(), "b".into(), "c".into()])
        );
        assert_eq!(String::parse(""), Ok(String::new()));
        // unset without a default: none; set, even empty, a positive number
        assert_eq!(neutron::TIMEOUT.value(None), Ok(None));
        assert!(neutron::TIMEOUT.value(Some("")).is_err());
        assert_eq!(
            neutron::TIMEOUT.value(Some("2.5")),
            Ok(Some(Duration::from_millis(2500)))
        );
        // Keel's default read, the registered one kept in the row
        let t = &keystone_authtoken::HTTP_CONNECT_TIMEOUT;
        assert_eq!(t.value(None), Ok(Some(Duration::from_secs(5))));
        assert_eq!(t.opt.default, "");
        assert_eq!(database::MAX_OVERFLOW.value(None), Ok(AtLeast(50)));
        assert_eq!(
            database::CONNECTION_RECYCLE_TIME.value(None),
            Ok(Some(Duration::from_secs(3600)))
        );
    }
}
