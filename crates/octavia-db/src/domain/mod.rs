//! The API's transactional building blocks on [`Tx`](crate::Tx), one file per aggregate:
//! the LB row lock + state checks and status flips ([`lock`]), quotas ([`quota`]), the rows an
//! LB or listener owns beside the status tree ([`children`]), cascading deletes ([`cascade`]).

mod cascade;
mod children;
mod lock;
mod quota;

pub use lock::HasProvisioningStatus;
pub use quota::{QuotaLimits, QuotaResource, QuotaUpdate};
