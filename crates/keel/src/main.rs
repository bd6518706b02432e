//! `keel`: the Octavia v2 API and its OVN provider in one process.
//!
//! * `keel serve`: the API on `[api_settings] bind_host:bind_port`, the OVN provider over
//!   one long-lived NB connection and replica, the status updater over the Octavia DB.
//! * `keel ovn-db-sync [--dry-run] [--lb-id ID]... [--project-id P]`: reconcile the OVN NB
//!   with Octavia's `ovn` load balancers, see [`sync`].
//! * `keel db upgrade`: create the Octavia schema at alembic head `fabf4983846b`
//!   (what `octavia-db-manage upgrade head` leaves) and Keel's objects beside it, idempotent;
//!   `keel db remove-keel-objects` drops Keel's objects again (the way back to the reference).
//! * `keel ovn-remove-keel-objects [--dry-run]`: removes from the NB what only Keel writes (the
//!   `allowed_cidrs` port groups, ACLs, address sets; the OVN flavors' keys, options and empty
//!   VIPs on `Load_Balancer` rows), see [`ovn_rows`].
//!
//! * `keel config check`: the effective configuration (secrets masked) and every option set
//!   but ignored; exits 1 when `serve` would refuse the configuration.
//! * `keel links DIR`: the programs the deployment tools start (`uwsgi`, `octavia-api`,
//!   `octavia-db-manage`, `octavia-driver-agent`, `octavia-ovn-db-sync-util`) as symlinks to
//!   this binary, which answers under those names, see [`entry`].
//!
//! Configuration: the operator's `octavia.conf` (`--config-file`, `--config-dir`, repeatable
//! and merged as oslo.config's: later wins), see [`config`]; logging from its `[DEFAULT]`,
//! see [`logging`].

mod entry;
mod wiring;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use provider::{ProviderDriver, StatusSink};

use service::config::{self, Config};
use service::{amphora, clients, logging, metrics, nb_gate, ovn_rows, recovery, shutdown, sync};

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
    /// Remove from the OVN NB what only Keel writes (`allowed_cidrs` port groups, their ACLs,
    /// address sets; OVN flavor keys, options and empty VIPs) before going back to the Python
    /// provider.
    OvnRemoveKeelObjects {
        /// List them, change nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Configuration tools.
    Config {
        #[command(subcommand)]
        action: ConfigAction,
    },
    /// Write the programs the deployment tools start (uwsgi, octavia-api, octavia-db-manage,
    /// octavia-driver-agent, octavia-ovn-db-sync-util) into DIR as symlinks to this binary.
    Links {
        /// The directory (created if missing), e.g. /usr/local/bin.
        dir: PathBuf,
    },
}

impl Command {
    /// The reference program this command stands in for, whose name oslo.log would give the
    /// log file under `[DEFAULT] log_dir` alone (`LogSettings::file`): `serve` is the Octavia
    /// API (`octavia-api`; the driver agent it also replaces logs elsewhere), `db` is
    /// `octavia-db-manage`, `ovn-db-sync` ovn-octavia-provider's `octavia-ovn-db-sync-util`.
    fn reference_binary(&self) -> &'static str {
        match self {
            Command::Serve | Command::Config { .. } | Command::Links { .. } => "octavia-api",
            Command::Db { .. } => "octavia-db-manage",
            Command::OvnDbSync { .. } | Command::OvnRemoveKeelObjects { .. } => {
                "octavia-ovn-db-sync-util"
            }
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
    /// Drop what Keel adds beside the reference schema (the `keel_ix_*` indexes and the
    /// `keel_deployment` table), leaving the schema `octavia-db-manage` made; idempotent.
    RemoveKeelObjects,
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
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    match entry::dispatch(&argv) {
        entry::Dispatch::Keel => {}
        entry::Dispatch::Exit(code) => std::process::exit(code),
        entry::Dispatch::Run(invocation) => return run_program(invocation),
    }
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches)?;
    if let Command::Links { dir } = &cli.command {
        for link in entry::write_links(dir)? {
            println!("{}", link.display());
        }
        return Ok(());
    }
    let config = Config::load_all(&config_locations(&matches))?;
    if let Command::Config {
        action: ConfigAction::Check,
    } = cli.command
    {
        let report = config::check::review(&config);
        print!("{}", config::check::render(&config, &report));
        if !report.refused.is_empty() {
            std::process::exit(1);
        }
        return Ok(());
    }
    let config = start(config, cli.command.reference_binary())?;
    runtime()?.block_on(async move {
        match cli.command {
            Command::Serve => serve(config, entry::ServeOptions::default()).await,
            Command::Config { .. } | Command::Links { .. } => Ok(()),
            Command::Db {
                action: DbAction::Upgrade,
            } => entry::db_manage::run(entry::db_manage::DbCommand::UpgradeHead, &config).await,
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
            Command::OvnRemoveKeelObjects { dry_run } => {
                let nb = connect_nb(&config).await?;
                let verb = if dry_run { "would remove" } else { "removed" };
                for (table, name) in ovn_rows::remove(&nb, dry_run).await? {
                    println!("{verb} {table} {name}");
                }
                Ok(())
            }
            Command::Db {
                action: DbAction::RemoveKeelObjects,
            } => {
                let db = clients::database(&config).await?;
                for name in db.remove_keel_objects().await? {
                    println!("removed {name}");
                }
                Ok(())
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

/// Starts logging as `binary` (the reference program's name) and refuses what `serve` would
/// refuse, naming each value; the accepted configuration.
fn start(config: Config, binary: &str) -> anyhow::Result<Config> {
    let report = config::check::review(&config);
    logging::init(&config.log, binary)?;
    if !report.refused.is_empty() {
        return Err(config::ConfigError::Refused(report.refused).into());
    }
    config::check::log_findings(&report);
    Ok(config)
}

fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
}

/// A program of [`entry::PROGRAMS`]: its configuration (oslo's default files unless its
/// command line names some; its command-line logging options last), then its job.
fn run_program(invocation: entry::Invocation) -> anyhow::Result<()> {
    let mut sources = config::Sources::load(&invocation.oslo.locations)?;
    if !invocation.oslo.overrides.is_empty() {
        sources.add_text(
            &invocation.oslo.override_text(),
            std::path::Path::new("command line"),
        )?;
    }
    let config = start(Config::from_sources(sources)?, invocation.binary)?;
    runtime()?.block_on(async move {
        match invocation.job {
            entry::Job::Serve(options) => {
                options.log_ignored();
                serve(config, options).await
            }
            entry::Job::DriverAgent => driver_agent(config).await,
            entry::Job::Db(command) => entry::db_manage::run(command, &config).await,
            entry::Job::OvnDbSync => {
                sync::command(
                    config,
                    sync::SyncArgs {
                        dry_run: false,
                        lb_ids: Vec::new(),
                        project_id: None,
                    },
                )
                .await
            }
        }
    })
}

/// The one long-lived NB connection and replica of a process.
async fn connect_nb(config: &Config) -> anyhow::Result<ovsdb::Client> {
    ovsdb::Client::connect_with(
        &config.ovn.ovn_nb_connection,
        "OVN_Northbound",
        ovn_provider::ovsdb_nb::monitor_spec(),
        clients::ovsdb_options(&config.ovn, false),
    )
    .await
    .with_context(|| format!("OVN NB at {}", config.ovn.ovn_nb_connection))
}

/// The OVN provider over `nb`, reporting statuses into the Octavia DB (counted for metrics),
/// tagging the VIP ports it makes with `deployment` (this database's identity, octavia-db
/// `keel_objects`: the proof of ownership every sweep requires).
fn ovn_provider(
    db: &octavia_db::Database,
    nb: &ovsdb::Client,
    neutron: openstack::NeutronClient,
    deployment: &str,
) -> (ovn_provider::OvnProvider, Arc<dyn StatusSink>) {
    let status: Arc<dyn StatusSink> = Arc::new(metrics::CountedStatus(Arc::new(
        octavia_db::StatusUpdater::new(db.clone()),
    )));
    let ovn = ovn_provider::OvnProvider::new(
        nb.clone(),
        neutron,
        status.clone(),
        ovn_provider::OvnConfig {
            deployment_id: Some(deployment.to_owned()),
            ..Default::default()
        },
    );
    (ovn, status)
}

/// The agent duties (seed 000 "agent"): an SB connection, then the agent competing for the
/// NB lock; it works only while holding it. `keel serve` and `octavia-driver-agent` both
/// start it so, hence one active agent among all of them.
async fn start_agent(
    config: &Config,
    ovn: &ovn_provider::OvnProvider,
    nb: &ovsdb::Client,
) -> anyhow::Result<Agent> {
    let sb = ovsdb::Client::connect_with(
        &config.ovn.ovn_sb_connection,
        "OVN_Southbound",
        ovsdb::MonitorSpec::new().table("Service_Monitor"),
        clients::ovsdb_options(&config.ovn, true),
    )
    .await
    .with_context(|| format!("OVN SB at {}", config.ovn.ovn_sb_connection))?;
    let agent = ovn_provider::Agent::new(ovn);
    let agent_nb = nb.clone();
    let agent_sb = sb.clone();
    let task = tokio::spawn(async move {
        if let Err(e) = agent.run(agent_nb, agent_sb).await {
            tracing::error!(error = %e, "OVN provider agent stopped");
        }
    });
    Ok(Agent { task, sb })
}

/// A running agent task and the SB client it holds its SB lock on.
struct Agent {
    task: tokio::task::JoinHandle<()>,
    sb: ovsdb::Client,
}

/// Stops the agent and gives its locks back at once (another process, of either kind,
/// takes over instead of waiting for the connections to close).
async fn stop_agent(agent: Agent, nb: &ovsdb::Client) {
    agent.task.abort();
    ovn_provider::leadership::AgentLocks::production()
        .release(nb, &agent.sb)
        .await;
}

/// `octavia-driver-agent`: the OVN provider agent alone (no API, no recovery), whatever
/// `[keel] run_agent` says; SIGTERM/SIGINT finish the provider work it started (within
/// `[DEFAULT] graceful_shutdown_timeout`) and release the lock.
async fn driver_agent(config: Config) -> anyhow::Result<()> {
    clients::verify_application_credentials(&[("neutron", &config.neutron.auth)]).await?;
    let db = clients::database(&config).await?;
    let neutron = clients::neutron(&config)?;
    let deployment = db
        .ensure_deployment()
        .await
        .context("deployment identity")?;
    let nb = connect_nb(&config).await?;
    let (ovn, _status) = ovn_provider(&db, &nb, neutron, &deployment);
    let agent = start_agent(&config, &ovn, &nb).await?;
    let signal = shutdown::signal().await;
    let drain = std::time::Duration::from_secs(config.keel.graceful_shutdown_timeout);
    tracing::info!(%signal, ?drain, "stopping the OVN provider agent");
    if !ovn.drain(drain).await {
        tracing::warn!(
            load_balancers = ?ovn.busy_loadbalancers(),
            "provider work unfinished at the drain timeout: left to recovery"
        );
    }
    stop_agent(agent, &nb).await;
    tracing::info!("octavia-driver-agent stopped");
    Ok(())
}

/// `keel serve` (also `uwsgi`, `octavia-api`): the API on `options`' listeners, the provider,
/// the agent (per `[keel] run_agent`) and recovery, until SIGTERM/SIGINT drain it.
async fn serve(config: Config, options: entry::ServeOptions) -> anyhow::Result<()> {
    // A bad policy file stops startup before any connection is made.
    let policy = Arc::new(config.oslo_policy.load_policy().context("[oslo_policy]")?);
    // A refused application credential stops start-up before the database is touched.
    let validates = config.api_settings.auth_strategy != "noauth";
    clients::verify_application_credentials(&clients::auth_sections(&config, validates)).await?;
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
    let nb = connect_nb(&config).await?;
    let (ovn, status) = ovn_provider(&db, &nb, neutron.clone(), &deployment);
    if let Some(addr) = &config.keel.metrics_listen {
        metrics::serve(addr, db.clone()).await?;
    }
    // The agent duties run in the one process holding the NB lock (seed 000 "agent"); a
    // process with `[keel] run_agent = false` serves the API only and never competes for it.
    let mut agent_task = None;
    if config.keel.run_agent {
        agent_task = Some(start_agent(&config, &ovn, &nb).await?);
    } else {
        tracing::info!("[keel] run_agent = false: this process runs no OVN provider agent");
    }
    // Accepted work no live process is doing (a crash, a kill, a lost node) is completed by
    // whichever Keel claims it first (`recovery`).
    let recovery_task = tokio::spawn(recovery::run(recovery_of(
        &config,
        &db,
        &ovn,
        &nb,
        &neutron,
        &status,
        &deployment,
    )));
    let mut providers: BTreeMap<String, Arc<dyn ProviderDriver>> = BTreeMap::new();
    let gate = nb_gate::NbGate::new(Arc::new(ovn.clone()), &nb, config.keel.nb_unavailable_after);
    // The names config::check::PROVIDERS lists (the review warns about any other).
    providers.insert("ovn".into(), Arc::new(gate));
    // Octavia's amphora driver, when enabled: casts to the operator's octavia-worker
    let amphora = amphora::load(&config, &db, neutron.clone(), &service).await?;
    let amphora_control = amphora.as_ref().map(|a| a.control.clone());
    if let Some(a) = amphora {
        providers.extend(a.drivers);
    }
    let mut state = api::AppState::new(
        db,
        providers,
        auth_mode(&config)?,
        Some(networking(&config, neutron)),
        config.api_config(policy),
    );
    if let Some(control) = amphora_control {
        state = state.with_amphora_control(control);
    }
    let state = state.with_cert_manager(cert_manager(&config, &service)?);
    let app = options.wrap(api::router(state))?;
    let listeners = options.listeners(
        &config.api_settings.bind_host,
        config.api_settings.bind_port,
    );
    let bound = entry::listen::bind(&listeners).await?;
    for b in &bound {
        tracing::info!(addr = %b.addr, tls = b.is_tls(), "keel serving the Octavia v2 API");
    }
    options.write_pidfiles()?;
    let drain = std::time::Duration::from_secs(config.keel.graceful_shutdown_timeout);
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut server = entry::listen::spawn(bound, app, stop_rx);
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
        stop_agent(t, &nb).await;
    }
    tracing::info!("keel stopped");
    Ok(())
}

/// The recovery of accepted work of this process (`[keel] recovery_lease`,
/// `recovery_period`, seconds): leases, takeover of PENDING_* objects, the orphan sweep.
fn recovery_of(
    config: &Config,
    db: &octavia_db::Database,
    ovn: &ovn_provider::OvnProvider,
    nb: &ovsdb::Client,
    neutron: &openstack::NeutronClient,
    status: &Arc<dyn StatusSink>,
    deployment: &str,
) -> recovery::Recovery {
    recovery::Recovery {
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
        deployment_tag: ovn_provider::driver::deployment_tag(deployment),
    }
}

/// `[api_settings] auth_strategy`: `noauth`, else Keystone tokens validated with
/// `[keystone_authtoken]` (keystonemiddleware's role). Errors: the validator's session.
fn auth_mode(config: &Config) -> anyhow::Result<api::context::AuthMode> {
    Ok(match config.api_settings.auth_strategy.as_str() {
        "noauth" => api::context::AuthMode::NoAuth,
        _ => {
            let validator = clients::token_validator(config)?;
            api::context::AuthMode::Keystone(Arc::new(wiring::KeystoneTokenAuth(validator)))
        }
    })
}

/// What validates VIPs and members: octavia-api goes through `[controller_worker]
/// network_driver`, so the noop driver takes ids Neutron does not have.
fn networking(
    config: &Config,
    neutron: openstack::NeutronClient,
) -> Arc<dyn api::network::Networking> {
    let neutron_lookups = Arc::new(wiring::NeutronNetworking(neutron));
    if amphora_provider::is_noop_network_driver(&config.messaging.network_driver) {
        Arc::new(api::network::NoopNetworking::over(neutron_lookups))
    } else {
        neutron_lookups
    }
}

/// `[certificates] cert_manager`: Octavia's `barbican_cert_manager` (TLS references read with
/// the caller's token before the provider is asked, seed 003 §5, seed 004 §5) or the noop
/// one. Errors: the Barbican session.
fn cert_manager(
    config: &Config,
    service: &openstack::ServiceAuth,
) -> anyhow::Result<Arc<dyn api::CertManager>> {
    Ok(if config.certificates.cert_manager == "noop_cert_manager" {
        Arc::new(wiring::NoopCertManager)
    } else {
        Arc::new(wiring::BarbicanCertManager(clients::barbican(
            config, service,
        )?))
    })
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
