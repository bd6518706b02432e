//! Keel's own options (`[keel]`) and `[DEFAULT] graceful_shutdown_timeout` (oslo.service's),
//! each a [`Typed`] constant: its row of [`OPTS`](super::OPTS) and the type it is read as.

use std::num::NonZeroU64;
use std::time::Duration;

use crate::catalog::{Opt, Typed, Use};

/// `[keel] settle_wait_ms`: how long a write waits for the provider's status report (ms).
pub const SETTLE_WAIT_MS: Typed<u64> = Typed::new(Opt {
    section: "keel",
    name: "settle_wait_ms",
    kind: "int",
    default: "1000",
    secret: false,
    aliases: &[],
    use_: Use::Honoured,
});

/// `[keel] nb_unavailable_after`: how long the NB may be down before writes answer 503.
pub const NB_UNAVAILABLE_AFTER: Typed<Duration> = Typed::new(Opt {
    section: "keel",
    name: "nb_unavailable_after",
    kind: "int",
    default: "5",
    secret: false,
    aliases: &[],
    use_: Use::Honoured,
});

/// `[keel] recovery_lease`: the lease of a PENDING_* load balancer (s, at least 1).
pub const RECOVERY_LEASE: Typed<NonZeroU64> = Typed::new(Opt {
    section: "keel",
    name: "recovery_lease",
    kind: "int",
    default: "30",
    secret: false,
    aliases: &[],
    use_: Use::Honoured,
});

/// `[keel] recovery_period`: how often leases are renewed (s, at least 1).
pub const RECOVERY_PERIOD: Typed<NonZeroU64> = Typed::new(Opt {
    section: "keel",
    name: "recovery_period",
    kind: "int",
    default: "10",
    secret: false,
    aliases: &[],
    use_: Use::Honoured,
});

/// `[DEFAULT] graceful_shutdown_timeout` (oslo.service's): the bound of a graceful stop (s).
pub const GRACEFUL_SHUTDOWN_TIMEOUT: Typed<u64> = Typed::new(Opt {
    section: "DEFAULT",
    name: "graceful_shutdown_timeout",
    kind: "int",
    default: "60",
    secret: false,
    aliases: &[],
    use_: Use::Honoured,
});

/// `[keel] rpc_cast_timeout`: the bound of one amphora cast.
pub const RPC_CAST_TIMEOUT: Typed<Duration> = Typed::new(Opt {
    section: "keel",
    name: "rpc_cast_timeout",
    kind: "int",
    default: "5",
    secret: false,
    aliases: &[],
    use_: Use::Honoured,
});

/// `[keel] metrics_listen`: `host:port` of the Prometheus endpoint (none: off).
pub const METRICS_LISTEN: Typed<Option<String>> = Typed::new(Opt {
    section: "keel",
    name: "metrics_listen",
    kind: "str",
    default: "",
    secret: false,
    aliases: &[],
    use_: Use::Honoured,
});

/// `[keel] run_agent`: whether this process competes for the OVN agent's lock.
pub const RUN_AGENT: Typed<bool> = Typed::new(Opt {
    section: "keel",
    name: "run_agent",
    kind: "bool",
    default: "True",
    secret: false,
    aliases: &[],
    use_: Use::Honoured,
});

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
