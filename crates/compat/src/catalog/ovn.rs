//! `[ovn]`: ovn-octavia-provider's NB/SB connections and OVSDB timers: their rows of
//! [`OPTS`](super::OPTS), in registration order.

use crate::catalog::Opt;

typed! { "ovn";
    /// The NB remotes (`tcp:`, `ssl:` or `unix:`), tried in turn.
    OVN_NB_CONNECTION: Vec<String> = "ovn_nb_connection" "list" "tcp:127.0.0.1:6641";
    /// PEM key of an `ssl:` NB remote.
    OVN_NB_PRIVATE_KEY: String = "ovn_nb_private_key" "str" "";
    /// PEM certificate of an `ssl:` NB remote.
    OVN_NB_CERTIFICATE: String = "ovn_nb_certificate" "str" "";
    /// PEM CA of an `ssl:` NB remote.
    OVN_NB_CA_CERT: String = "ovn_nb_ca_cert" "str" "";
    /// The SB remotes (`tcp:`, `ssl:` or `unix:`), tried in turn.
    OVN_SB_CONNECTION: Vec<String> = "ovn_sb_connection" "list" "tcp:127.0.0.1:6642";
    /// PEM key of an `ssl:` SB remote.
    OVN_SB_PRIVATE_KEY: String = "ovn_sb_private_key" "str" "";
    /// PEM certificate of an `ssl:` SB remote.
    OVN_SB_CERTIFICATE: String = "ovn_sb_certificate" "str" "";
    /// PEM CA of an `ssl:` SB remote.
    OVN_SB_CA_CERT: String = "ovn_sb_ca_cert" "str" "";
    /// How long a connection's first sync may take (s).
    OVSDB_CONNECTION_TIMEOUT: u64 = "ovsdb_connection_timeout" "int" "180";
    /// The longest wait between reconnect attempts (s).
    OVSDB_RETRY_MAX_INTERVAL: u64 = "ovsdb_retry_max_interval" "int" "180";
    /// Milliseconds between inactivity probes (0: none; else at least 1000).
    OVSDB_PROBE_INTERVAL: u64 = "ovsdb_probe_interval" "int" "60000";
}

/// The rows of `[ovn]`, in registration order.
#[rustfmt::skip]
pub(super) const ROWS: &[Opt] = &[
    OVN_NB_CONNECTION.opt,
    OVN_NB_PRIVATE_KEY.opt,
    OVN_NB_CERTIFICATE.opt,
    OVN_NB_CA_CERT.opt,
    OVN_SB_CONNECTION.opt,
    OVN_SB_PRIVATE_KEY.opt,
    OVN_SB_CERTIFICATE.opt,
    OVN_SB_CA_CERT.opt,
    OVSDB_CONNECTION_TIMEOUT.opt,
    OVSDB_RETRY_MAX_INTERVAL.opt,
    OVSDB_PROBE_INTERVAL.opt,
];
