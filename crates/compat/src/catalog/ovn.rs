//! `[ovn]`: ovn-octavia-provider's NB/SB connections and OVSDB timers: their rows of
//! [`OPTS`](super::OPTS), in registration order.

use super::{Opt, Use};

/// The rows of `[ovn]`, in registration order.
#[rustfmt::skip]
pub(super) const ROWS: &[Opt] = &[
    Opt { section: "ovn", name: "ovn_nb_connection", kind: "list", default: "tcp:127.0.0.1:6641", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "ovn", name: "ovn_nb_private_key", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "ovn", name: "ovn_nb_certificate", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "ovn", name: "ovn_nb_ca_cert", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "ovn", name: "ovn_sb_connection", kind: "list", default: "tcp:127.0.0.1:6642", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "ovn", name: "ovn_sb_private_key", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "ovn", name: "ovn_sb_certificate", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "ovn", name: "ovn_sb_ca_cert", kind: "str", default: "", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "ovn", name: "ovsdb_connection_timeout", kind: "int", default: "180", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "ovn", name: "ovsdb_retry_max_interval", kind: "int", default: "180", secret: false, aliases: &[], use_: Use::Honoured },
    Opt { section: "ovn", name: "ovsdb_probe_interval", kind: "int", default: "60000", secret: false, aliases: &[], use_: Use::Honoured },
];
