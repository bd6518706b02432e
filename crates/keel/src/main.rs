//! `keel`: the Octavia v2 API and its OVN provider in one process.
//!
//! * `keel serve`: the API on `[api_settings] bind_host:bind_port`, the OVN provider over
//!   one long-lived NB connection and replica, the status updater over the Octavia DB.
//! * `keel ovn-db-sync [--dry-run] [--lb-id ID]... [--project-id P]`: reconcile the OVN NB
//!   with Octavia's `ovn` load balancers, see [`sync`].
//! * `keel db upgrade`: create the Octavia schema at alembic head `fabf4983846b`
//!   (what `octavia-db-manage upgrade head` leaves), idempotent.
//!
//! * `keel config check`: the effective configuration (secrets masked) and every option set
//!   but ignored; exits 1 when `serve` would refuse the configuration.
//!
//! Configuration: the operator's `octavia.conf` (`--config-file`, `--config-dir`, repeatable
//! and merged as oslo.config's: later wins), see [`config`]; logging from its `[DEFAULT]`,
//! see [`logging`].

mod clients;
mod config;
mod logging;
mod metrics;
mod nb_gate;
mod recovery;
mod shutdown;
mod sync;
mod wiring;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use provider::{ProviderDriver, StatusSink};

use config::Config;

#[derive(Parser)]
#[command(
    name = "keel",
    version = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("KEEL_COMMIT"), ")"),
    about = "Octavia v2 API with the OVN provider"
)]
struct Cli {
    /// octavia.conf-compatible INI file (repeatable; later files win).
    #[arg(long = "config-file", global = true)]
    config_file: Vec<PathBuf>,
    /// Directory whose `*.conf` files are read in alphabetical order at its place among the
    /// `--config-file`s (repeatable).
    #[arg(long = "config-dir", global = true)]
    config_dir: Vec<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the API server, the OVN provider and its agent.
    Serve,
    /// Database schema management.
    Db {
        #[command(subcommand)]
        action: DbAction,
    },
    /// Reconcile the OVN NB with Octavia's `ovn` load balancers (octavia-ovn-db-sync-util).
    OvnDbSync {
        /// Print the differences, change nothing.
        #[arg(long)]
        dry_run: bool,
        /// Only this load balancer (repeatable).
        #[arg(long = "lb-id")]
        lb_id: Vec<String>,
        /// Only this project's load balancers.
        #[arg(long = "project-id")]
        project_id: Option<String>,
    },
    /// Configuration tools.
    Config {
        #[command(subcommand)]
        action: ConfigAction,
    },
}

impl Command {
    /// The reference program this command stands in for, whose name oslo.log would give the
    /// log file under `[DEFAULT] log_dir` alone (`LogSettings::file`): `serve` is the Octavia
    /// API (`octavia-api`; the driver agent it also replaces logs elsewhere), `db` is
    /// `octavia-db-manage`, `ovn-db-sync` ovn-octavia-provider's `octavia-ovn-db-sync-util`.
    fn reference_binary(&self) -> &'static str {
        match self {
            Command::Serve | Command::Config { .. } => "octavia-api",
            Command::Db { .. } => "octavia-db-manage",
            Command::OvnDbSync { .. } => "octavia-ovn-db-sync-util",
        }
    }
}

#[derive(Subcommand)]
enum ConfigAction {
    /// Print the effective configuration (secrets masked) and every ignored option.
    Check,
}

#[derive(Subcommand)]
enum DbAction {
    /// Create or verify the schema at alembic head `fabf4983846b`.
    Upgrade,
    /// Print the alembic revision of the database.
    Current,
}

/// The `--config-file`/`--config-dir` arguments in command-line order (oslo.config reads
/// them so).
fn config_locations(m: &clap::ArgMatches) -> Vec<config::Location> {
    let mut at: Vec<(usize, config::Location)> = Vec::new();
    for (id, dir) in [("config_file", false), ("config_dir", true)] {
        if let (Some(idx), Some(vals)) = (m.indices_of(id), m.get_many::<PathBuf>(id)) {
            for (i, p) in idx.zip(vals) {
                let l = if dir {
                    config::Location::Dir(p.clone())
                } else {
                    config::Location::File(p.clone())
                };
                at.push((i, l));
            }
        }
    }
    at.sort_by_key(|(i, _)| *i);
    at.into_iter().map(|(_, l)| l).collect()
}

fn main() -> anyhow::Result<()> {
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches)?;
    let config = Config::load_all(&config_locations(&matches))?;
    let report = config::check::review(&config);
    if let Command::Config {
        action: ConfigAction::Check,
    } = cli.command
    {
        print!("{}", config::check::render(&config, &report));
        if !report.refused.is_empty() {
            std::process::exit(1);
        }
        return Ok(());
    }
    logging::init(&config.log, cli.command.reference_binary())?;
    if !report.refused.is_empty() {
        return Err(config::ConfigError::Refused(report.refused).into());
    }
    config::check::log_findings(&report);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async move {
        match cli.command {
            Command::Serve => serve(config).await,
            Command::Config { .. } => Ok(()),
            Command::Db {
                action: DbAction::Upgrade,
            } => {
                let db = clients::database(&config).await?;
                db.upgrade().await?;
                tracing::info!(revision = octavia_db::ALEMBIC_HEAD, "database at head");
                Ok(())
            }
            Command::OvnDbSync {
                dry_run,
                lb_id,
                project_id,
            } => {
                sync::command(
                    config,
                    sync::SyncArgs {
                        dry_run,
                        lb_ids: lb_id,
                        project_id,
                    },
                )
                .await
            }
            Command::Db {
                action: DbAction::Current,
            } => {
                let db = clients::database(&config).await?;
                println!("{}", db.current_revision().await?.unwrap_or_default());
                Ok(())
            }
        }
    })
}

async fn serve(config: Config) -> anyhow::Result<()> {
    // A bad policy file stops startup before any connection is made.
    let policy = Arc::new(config.oslo_policy.load_policy().context("[oslo_policy]")?);
    let db = clients::database(&config).await?;
    db.upgrade().await.context("database schema")?;
    // this deployment's identity: the tag of every VIP port it makes, the proof of ownership
    // its sweeps require (octavia-db `keel_objects`)
    let deployment = db
        .ensure_deployment()
        .await
        .context("deployment identity")?;
    tracing::info!(deployment = %deployment, "Keel deployment of this database");
    db.set_settle_wait(std::time::Duration::from_millis(config.keel.settle_wait_ms));

    let service = clients::service_session(&config)?;
    let neutron = clients::neutron(&config)?;

    // One long-lived NB connection and replica for the whole process.
    let nb = ovsdb::Client::connect_with(
        &config.ovn.ovn_nb_connection,
        "OVN_Northbound",
        ovn_provider::ovsdb_nb::monitor_spec(),
        clients::ovsdb_options(&config.ovn, false),
    )
    .await
    .with_context(|| format!("OVN NB at {}", config.ovn.ovn_nb_connection))?;
    let gate_nb = nb.clone();
    let status: Arc<dyn StatusSink> = Arc::new(metrics::CountedStatus(Arc::new(
        octavia_db::StatusUpdater::new(db.clone()),
    )));
    if let Some(addr) = &config.keel.metrics_listen {
        metrics::serve(addr, db.clone()).await?;
    }
    let ovn = ovn_provider::OvnProvider::new(
        nb.clone(),
        neutron.clone(),
        status.clone(),
        ovn_provider::OvnConfig {
            deployment_id: Some(deployment.clone()),
            ..Default::default()
        },
    );
    // The agent duties run in the one process holding the NB lock (seed 000 "agent"); a
    // process with `[keel] run_agent = false` serves the API only and never competes for it.
    let mut agent_task = None;
    if config.keel.run_agent {
        let sb = ovsdb::Client::connect_with(
            &config.ovn.ovn_sb_connection,
            "OVN_Southbound",
            ovsdb::MonitorSpec::new().table("Service_Monitor"),
            clients::ovsdb_options(&config.ovn, true),
        )
        .await
        .with_context(|| format!("OVN SB at {}", config.ovn.ovn_sb_connection))?;
        let agent = ovn.clone();
        let agent_nb = nb.clone();
        agent_task = Some(tokio::spawn(async move {
            if let Err(e) = agent.run_agent(agent_nb, sb).await {
                tracing::error!(error = %e, "OVN provider agent stopped");
            }
        }));
    } else {
        tracing::info!("[keel] run_agent = false: this process runs no OVN provider agent");
    }
    // Accepted work no live process is doing (a crash, a kill, a lost node) is completed by
    // whichever Keel claims it first (`recovery`).
    let recovery = recovery::Recovery {
        db: db.clone(),
        ovn: ovn.clone(),
        nb: Arc::new(ovn_provider::OvsdbNb::new(nb.clone())),
        neutron: neutron.clone(),
        status: status.clone(),
        config: recovery::RecoveryConfig {
            lease: std::time::Duration::from_secs(config.keel.recovery_lease),
            period: std::time::Duration::from_secs(config.keel.recovery_period),
        },
        recovering: Default::default(),
        deployment_tag: ovn_provider::driver::deployment_tag(&deployment),
    };
    let recovery_task = tokio::spawn(recovery::run(recovery));
    let mut providers: BTreeMap<String, Arc<dyn ProviderDriver>> = BTreeMap::new();
    let gate = nb_gate::NbGate::new(
        Arc::new(ovn.clone()),
        &gate_nb,
        config.keel.nb_unavailable_after,
    );
    // The names config::check::PROVIDERS lists (the review warns about any other).
    providers.insert("ovn".into(), Arc::new(gate));

    let auth = match config.api_settings.auth_strategy.as_str() {
        "noauth" => api::context::AuthMode::NoAuth,
        _ => {
            let validator = clients::token_validator(&config)?;
            api::context::AuthMode::Keystone(Arc::new(wiring::KeystoneTokenAuth(validator)))
        }
    };
    let networking: Arc<dyn api::network::Networking> =
        Arc::new(wiring::NeutronNetworking(neutron));
    let api_cfg = config.api_config(policy);
    let state = api::AppState::new(db, providers, auth, Some(networking), api_cfg);
    // Octavia's barbican_cert_manager: TLS references read with the caller's token before the
    // provider is asked (seed 003 §5, seed 004 §5).
    let barbican = clients::barbican(&config, &service)?;
    let state = state.with_cert_manager(Arc::new(wiring::BarbicanCertManager(barbican)));
    let app = api::router(state);

    let addr = format!(
        "{}:{}",
        config.api_settings.bind_host, config.api_settings.bind_port
    );
    let listener = tokio::net::TcpListener::bind(&addr)
        .await
        .with_context(|| format!("bind {addr}"))?;
    tracing::info!(%addr, "keel serving the Octavia v2 API");
    let drain = std::time::Duration::from_secs(config.keel.graceful_shutdown_timeout);
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut server = tokio::spawn(async move {
        let mut stop_rx = stop_rx;
        axum::serve(
            listener,
            app.into_make_service_with_connect_info::<std::net::SocketAddr>(),
        )
        .with_graceful_shutdown(async move {
            let _ = stop_rx.wait_for(|v| *v).await;
        })
        .await
    });
    tokio::select! {
        r = &mut server => {
            r??;
            return Ok(());
        }
        signal = shutdown::signal() => {
            tracing::info!(%signal, ?drain, "stopping: no new requests; finishing the requests and provider work in flight");
        }
    }
    let deadline = tokio::time::Instant::now() + drain;
    let _ = stop_tx.send(true);
    match tokio::time::timeout_at(deadline, &mut server).await {
        Ok(r) => r??,
        Err(_) => {
            server.abort();
            tracing::warn!("requests still in flight at the drain timeout: connections closed");
        }
    }
    let left = deadline.saturating_duration_since(tokio::time::Instant::now());
    if !ovn.drain(left).await {
        tracing::warn!(
            load_balancers = ?ovn.busy_loadbalancers(),
            "provider work unfinished at the drain timeout: left to recovery"
        );
    }
    recovery_task.abort();
    if let Some(t) = agent_task {
        t.abort();
        if let Err(e) = nb.unlock(ovn_provider::agent::AGENT_LOCK).await {
            tracing::debug!(error = %e, "agent lock not released explicitly (the connection closes)");
        }
    }
    tracing::info!("keel stopped");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kolla operator setting only `log_dir` finds `keel serve`'s lines in
    /// `<log_dir>/octavia-api.log`, where octavia-api's were.
    #[test]
    fn serve_logs_under_log_dir_as_octavia_api() {
        let cli = Cli::try_parse_from(["keel", "serve"]).expect("parses");
        let log = config::LogSettings {
            log_dir: Some(PathBuf::from("/var/log/kolla/octavia")),
            ..Default::default()
        };
        assert_eq!(
            log.file(cli.command.reference_binary()),
            Some(PathBuf::from("/var/log/kolla/octavia/octavia-api.log"))
        );
        let cli = Cli::try_parse_from(["keel", "db", "upgrade"]).expect("parses");
        assert_eq!(cli.command.reference_binary(), "octavia-db-manage");
    }
}
