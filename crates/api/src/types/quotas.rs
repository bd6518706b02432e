//! Quota request type, as `octavia/api/v2/types/quotas.py`.

use super::{Kind, Schema, f, int};

const Q: Kind = int(Some(-1), Some(2_000_000_000));

/// `QuotaPUT`'s inner type: both spellings of each limit.
pub static QUOTA_PUT: Schema = Schema {
    fields: &[
        f("loadbalancer", Q),
        f("load_balancer", Q),
        f("listener", Q),
        f("member", Q),
        f("pool", Q),
        f("healthmonitor", Q),
        f("health_monitor", Q),
        f("l7policy", Q),
        f("l7rule", Q),
    ],
    tenant_alias: false,
};
