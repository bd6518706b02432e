//! `keel`: the Octavia v2 API and its OVN provider in one process.
//!
//! * `keel serve`: the API on `[api_settings] bind_host:bind_port`, the OVN provider over
//!   one long-lived NB connection and replica, the status updater over the Octavia DB.
//! * `keel ovn-db-sync [--dry-run] [--lb-id ID]... [--project-id P]`: reconcile the OVN NB
//!   with Octavia's `ovn` load balancers, see [`sync`].
//! * `keel db upgrade`: create the Octavia schema at alembic head `fabf4983846b`
//!   (what `octavia-db-manage upgrade head` leaves), idempotent.
//!
//! Configuration: an `octavia.conf`-compatible INI file (`--config-file`, repeatable as
//! oslo.config's, later files win), see [`config`].

mod config;
mod nb_gate;
mod sync;
mod wiring;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::{Parser, Subcommand};
use provider::{ProviderDriver, StatusSink};

use config::Config;

#[derive(Parser)]
#[command(name = "keel", version, about = "Octavia v2 API with the OVN provider")]
struct Cli {
    /// octavia.conf-compatible INI file.
    #[arg(long = "config-file", global = true)]
    config_file: Option<PathBuf>,
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
}

#[derive(Subcommand)]
enum DbAction {
    /// Create or verify the schema at alembic head `fabf4983846b`.
    Upgrade,
    /// Print the alembic revision of the database.
    Current,
}

fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("KEEL_LOG")
                .unwrap_or_else(|_| "info".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let config = match &cli.config_file {
        Some(path) => Config::load(path)?,
        None => Config::defaults()?,
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async move {
        match cli.command {
            Command::Serve => serve(config).await,
            Command::Db {
                action: DbAction::Upgrade,
            } => {
                let db = octavia_db::Database::connect(&config.database.connection).await?;
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
                let db = octavia_db::Database::connect(&config.database.connection).await?;
                println!("{}", db.current_revision().await?.unwrap_or_default());
                Ok(())
            }
        }
    })
}

fn service_auth(c: &config::KeystoneAuth) -> openstack::ServiceAuthConfig {
    openstack::ServiceAuthConfig {
        auth_url: c.auth_url.clone(),
        username: c.username.clone(),
        password: c.password.clone(),
        project_name: c.project_name.clone(),
        user_domain_name: c.user_domain_name.clone(),
        project_domain_name: c.project_domain_name.clone(),
        region_name: c.region_name.clone(),
        timeout: c.timeout,
        ..Default::default()
    }
}

fn api_config(c: &Config) -> api::ApiConfig {
    let q = &c.quotas;
    api::ApiConfig {
        pagination_max_limit: Some(c.api_settings.pagination_max_limit as usize),
        default_provider_driver: c.api_settings.default_provider_driver.clone(),
        enabled_provider_drivers: c.api_settings.enabled_provider_drivers.clone(),
        api_base_uri: c.api_settings.api_base_uri.clone(),
        quotas: api::QuotaDefaults {
            load_balancer: q.default_load_balancer_quota,
            listener: q.default_listener_quota,
            member: q.default_member_quota,
            pool: q.default_pool_quota,
            health_monitor: q.default_health_monitor_quota,
            l7policy: q.default_l7policy_quota,
            l7rule: q.default_l7rule_quota,
        },
        ..Default::default()
    }
}

async fn serve(config: Config) -> anyhow::Result<()> {
    // A bad policy file stops startup before any connection is made.
    let policy = Arc::new(config.oslo_policy.load_policy().context("[oslo_policy]")?);
    let db = octavia_db::Database::connect_with(&config.database.connection, &config.database.pool)
        .await?;
    db.upgrade().await.context("database schema")?;
    db.set_settle_wait(std::time::Duration::from_millis(config.keel.settle_wait_ms));

    let http = openstack::HttpConfig::default().build_client()?;
    let service = openstack::ServiceAuth::new(http, service_auth(&config.service_auth));
    // oslo's `valid_interfaces` is a list, tried in order.
    let interfaces = openstack::Interface::parse_list(&config.neutron.valid_interfaces)
        .map_err(|e| anyhow::anyhow!("[neutron] valid_interfaces: {e}"))?;
    let neutron = openstack::NeutronClient::new(
        service.clone(),
        openstack::NeutronConfig {
            endpoint_override: config.neutron.endpoint.clone(),
            region_name: config.neutron.region_name.clone(),
            interface: interfaces
                .first()
                .copied()
                .unwrap_or(openstack::Interface::Public),
            fallback_interfaces: interfaces.iter().skip(1).copied().collect(),
            timeout: config.neutron.timeout,
            ..Default::default()
        },
    );

    // One long-lived NB connection and replica for the whole process (design.md).
    let ovsdb_options = ovsdb::ClientOptions {
        backoff_max: std::time::Duration::from_secs(config.ovn.ovsdb_retry_max_interval.max(1)),
        handshake_timeout: std::time::Duration::from_secs(
            config.ovn.ovsdb_connection_timeout.max(1),
        ),
        inactivity_probe: (config.ovn.ovsdb_probe_interval > 0)
            .then(|| std::time::Duration::from_millis(config.ovn.ovsdb_probe_interval)),
        ..Default::default()
    };
    let nb = ovsdb::Client::connect_with(
        &config.ovn.ovn_nb_connection,
        "OVN_Northbound",
        ovn_provider::ovsdb_nb::monitor_spec(),
        ovsdb_options.clone(),
    )
    .await
    .with_context(|| format!("OVN NB at {}", config.ovn.ovn_nb_connection))?;
    let gate_nb = nb.clone();
    let status: Arc<dyn StatusSink> = Arc::new(octavia_db::StatusUpdater::new(db.clone()));
    let ovn = ovn_provider::OvnProvider::new(
        nb.clone(),
        neutron.clone(),
        status,
        ovn_provider::OvnConfig::default(),
    );
    // The agent duties run in the one process holding the NB lock (seed 000 "agent"); a
    // process with `[keel] run_agent = false` serves the API only and never competes for it.
    if config.keel.run_agent {
        let sb = ovsdb::Client::connect_with(
            &config.ovn.ovn_sb_connection,
            "OVN_Southbound",
            ovsdb::MonitorSpec::new().table("Service_Monitor"),
            ovsdb_options.clone(),
        )
        .await
        .with_context(|| format!("OVN SB at {}", config.ovn.ovn_sb_connection))?;
        let agent = ovn.clone();
        tokio::spawn(async move {
            if let Err(e) = agent.run_agent(nb, sb).await {
                tracing::error!(error = %e, "OVN provider agent stopped");
            }
        });
    } else {
        tracing::info!("[keel] run_agent = false: this process runs no OVN provider agent");
    }
    let mut providers: BTreeMap<String, Arc<dyn ProviderDriver>> = BTreeMap::new();
    let gate = nb_gate::NbGate::new(Arc::new(ovn), &gate_nb, config.keel.nb_unavailable_after);
    providers.insert("ovn".into(), Arc::new(gate));

    let auth = match config.api_settings.auth_strategy.as_str() {
        "noauth" => api::context::AuthMode::NoAuth,
        _ => {
            let keystone = openstack::ServiceAuth::new(
                service.http().clone(),
                service_auth(&config.keystone_authtoken),
            );
            let validator = openstack::TokenValidator::new(keystone, Default::default());
            api::context::AuthMode::Keystone(Arc::new(wiring::KeystoneTokenAuth(validator)))
        }
    };
    let networking: Arc<dyn api::network::Networking> =
        Arc::new(wiring::NeutronNetworking(neutron));
    let mut api_cfg = api_config(&config);
    api_cfg.policy = policy;
    let state = api::AppState::new(db, providers, auth, Some(networking), api_cfg);
    // Octavia's barbican_cert_manager: TLS references read with the caller's token before the
    // provider is asked (seed 003 §5, seed 004 §5).
    let cert_interface: openstack::Interface = config
        .certificates
        .endpoint_type
        .parse()
        .map_err(|e| anyhow::anyhow!("[certificates] endpoint_type: {e}"))?;
    let barbican = openstack::BarbicanClient::new(
        service.http().clone(),
        Some(service.clone()),
        openstack::BarbicanConfig {
            endpoint: config.certificates.endpoint.clone(),
            region_name: config.certificates.region_name.clone(),
            interface: cert_interface,
        },
    );
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
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}
