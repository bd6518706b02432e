//! The parts of the `keel` process that `crates/keel` wires together: the operator's
//! `octavia.conf` read into one typed struct per section ([`config`]), the peers' clients it
//! names ([`clients`], [`compute`]), logging as oslo.log ([`logging`]), the Prometheus
//! endpoint ([`metrics`]) and the request stage timings ([`stages`]), the stop signals
//! ([`shutdown`]), the amphora provider over RabbitMQ ([`amphora`]), the OVN provider behind
//! its NB connection check ([`nb_gate`]), the recovery of accepted work after a restart
//! ([`recovery`]), `keel ovn-db-sync` ([`sync`], [`sync_cidrs`]) and
//! `keel ovn-remove-keel-objects` ([`ovn_rows`]).
//!
//! Reading a configuration: later files win, as oslo.config merges them; an option left out
//! takes Octavia's default.
//!
//! ```
//! use service::config::{Config, Location};
//!
//! let dir = std::env::temp_dir().join(format!("keel-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let (first, second) = (dir.join("a.conf"), dir.join("b.conf"));
//! std::fs::write(&first, "[api_settings]\nbind_port = 9000\nauth_strategy = noauth\n")?;
//! std::fs::write(&second, "[api_settings]\nbind_port = 9001\n")?;
//! let config = Config::load_all(&[Location::File(first), Location::File(second)])?;
//! assert_eq!(config.api_settings.bind_port, 9001); // the later file wins
//! assert_eq!(config.api_settings.auth_strategy, "noauth");
//! assert_eq!(config.api_settings.bind_host, "127.0.0.1"); // Octavia's default
//! std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod amphora;
pub mod clients;
pub mod compute;
pub mod config;
pub mod logging;
pub mod metrics;
pub mod nb_gate;
pub mod ovn_rows;
pub mod recovery;
pub mod shutdown;
pub mod stages;
pub mod sync;
pub mod sync_cidrs;
