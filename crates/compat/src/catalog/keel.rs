//! Keel's own options (`[keel]`) and `[DEFAULT] graceful_shutdown_timeout` (oslo.service's),
//! each a [`Typed`](super::Typed) constant: its row of [`OPTS`](super::OPTS) and the type it is
//! read as.

use std::num::NonZeroU64;
use std::time::Duration;

use crate::catalog::{Opt, Use};

typed! { "keel";
    /// How long a write waits for the provider's status report (ms).
    SETTLE_WAIT_MS: u64 = "settle_wait_ms" "int" "1000";
    /// How long the NB may be down before writes answer 503.
    NB_UNAVAILABLE_AFTER: Duration = "nb_unavailable_after" "int" "5";
    /// The lease of a PENDING_* load balancer (s, at least 1).
    RECOVERY_LEASE: NonZeroU64 = "recovery_lease" "int" "30";
    /// How often leases are renewed (s, at least 1).
    RECOVERY_PERIOD: NonZeroU64 = "recovery_period" "int" "10";
    /// The bound of one amphora cast.
    RPC_CAST_TIMEOUT: Duration = "rpc_cast_timeout" "int" "5";
    /// `host:port` of the Prometheus endpoint (none: off).
    METRICS_LISTEN: Option<String> = "metrics_listen" "str" "";
    /// Whether this process competes for the OVN agent's lock.
    RUN_AGENT: bool = "run_agent" "bool" "True";
}

typed! { "DEFAULT";
    /// oslo.service's bound of a graceful stop (s).
    GRACEFUL_SHUTDOWN_TIMEOUT: u64 = "graceful_shutdown_timeout" "int" "60";
}

/// Keel's own options (`[keel]`) and options oslo.policy 6.0.0 removed but Keel still knows
/// (ignored with a warning, not reported as unknown).
pub(super) const ROWS: &[Opt] = &[
    SETTLE_WAIT_MS.opt,
    NB_UNAVAILABLE_AFTER.opt,
    RECOVERY_LEASE.opt,
    RECOVERY_PERIOD.opt,
    GRACEFUL_SHUTDOWN_TIMEOUT.opt,
    RPC_CAST_TIMEOUT.opt,
    METRICS_LISTEN.opt,
    RUN_AGENT.opt,
    // kolla-ansible writes keystonemiddleware's memcache options (these three) into
    // [service_auth] too (ansible/roles/octavia/templates/octavia.conf.j2); no library
    // registers them there.
    Opt {
        section: "service_auth",
        name: "memcached_servers",
        kind: "str",
        default: "",
        secret: false,
        aliases: &[],
        use_: Use::Unimplemented,
    },
    Opt {
        section: "service_auth",
        name: "memcache_security_strategy",
        kind: "str",
        default: "",
        secret: false,
        aliases: &[],
        use_: Use::Unimplemented,
    },
    Opt {
        section: "service_auth",
        name: "memcache_secret_key",
        kind: "str",
        default: "",
        secret: true,
        aliases: &[],
        use_: Use::Unimplemented,
    },
    Opt {
        section: "oslo_policy",
        name: "enforce_scope",
        kind: "bool",
        default: "",
        secret: false,
        aliases: &[],
        use_: Use::Unimplemented,
    },
];
