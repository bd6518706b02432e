//! Quota request type, as `octavia/api/v2/types/quotas.py`.

use super::{Kind, Patch, Schema, f, int};

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

/// A validated `QuotaPUT` body as [`QUOTA_PUT`] declares it: each limit left out (unchanged),
/// `null` (back to the default) or a value (-1: unlimited).
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct QuotaPut {
    /// `loadbalancer`.
    pub loadbalancer: Patch<i64>,
    /// `load_balancer` (deprecated; `loadbalancer` wins).
    pub load_balancer: Patch<i64>,
    /// `listener`.
    pub listener: Patch<i64>,
    /// `member`.
    pub member: Patch<i64>,
    /// `pool`.
    pub pool: Patch<i64>,
    /// `healthmonitor`.
    pub healthmonitor: Patch<i64>,
    /// `health_monitor` (deprecated; `healthmonitor` wins).
    pub health_monitor: Patch<i64>,
    /// `l7policy`.
    pub l7policy: Patch<i64>,
    /// `l7rule`.
    pub l7rule: Patch<i64>,
}

#[cfg(test)]
mod tests {
    #[test]
    fn typed_body_declares_the_schema_attributes() {
        crate::types::assert_typed_as::<super::QuotaPut>(&super::QUOTA_PUT);
    }
}
