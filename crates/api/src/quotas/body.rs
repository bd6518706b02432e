//! Quota request type, as `octavia/api/v2/types/quotas.py`.

use crate::types::wsme_body;
use crate::types::{Kind, Patch, int};

const Q: Kind = int(Some(-1), Some(2_000_000_000));

wsme_body! {
    /// `QuotaPUT`'s inner type: both spellings of each limit.
    pub static QUOTA_PUT, tenant_alias = false, wsme = ("quotas", "quota");
    /// A validated `QuotaPUT` body as [`QUOTA_PUT`] declares it: each limit left out (unchanged),
    /// `null` (back to the default) or a value (-1: unlimited).
    pub struct QuotaPut {
        loadbalancer: Patch<i64> = f(Q),
        /// `load_balancer` (deprecated; `loadbalancer` wins).
        load_balancer: Patch<i64> = f(Q),
        listener: Patch<i64> = f(Q),
        member: Patch<i64> = f(Q),
        pool: Patch<i64> = f(Q),
        healthmonitor: Patch<i64> = f(Q),
        /// `health_monitor` (deprecated; `healthmonitor` wins).
        health_monitor: Patch<i64> = f(Q),
        l7policy: Patch<i64> = f(Q),
        l7rule: Patch<i64> = f(Q),
    }
}
