//! The peers' clients as the configuration says: the Octavia DB (`[database]`), the OVN NB/SB
//! connections (`[ovn]`, TLS for `ssl:`), and one HTTP session per peer section
//! (`[keystone_authtoken]`, `[service_auth]`, `[neutron]`, `[certificates]`), each with its own
//! `cafile`/`insecure`/client certificate, as keystoneauth gives each section its own session.

use std::time::Duration;

use anyhow::Context;

use crate::config::{Config, HttpTls, KeystoneAuth, OvnSettings};

/// Opens the Octavia DB with `[database]`'s pool. As oslo.db's `_test_connection`: up to
/// `max_retries` attempts (-1: forever; 0 or 1: one), `retry_interval` seconds after each
/// failed one, the last error returned.
pub async fn database(config: &Config) -> anyhow::Result<octavia_db::Database> {
    let d = &config.database;
    let url = d
        .url()
        .map_err(|why| anyhow::anyhow!("[database] connection: {why}"))?;
    let mut attempt: i64 = 0;
    loop {
        attempt += 1;
        match octavia_db::Database::connect_with(&url, &d.pool).await {
            Ok(db) => return Ok(db),
            Err(e) if d.max_retries < 0 || attempt < d.max_retries => {
                let left = if d.max_retries < 0 {
                    "unlimited".to_string()
                } else {
                    (d.max_retries - attempt).to_string()
                };
                tracing::warn!(error = %e, attempt, "SQL connection failed. {left} attempts left; retrying in {} s", d.retry_interval);
                tokio::time::sleep(Duration::from_secs(d.retry_interval)).await;
            }
            Err(e) => return Err(e).context("[database] connection"),
        }
    }
}

/// One HTTP client for a peer section (its CA file, `insecure`, client certificate).
pub fn http(section: &str, tls: &HttpTls) -> anyhow::Result<reqwest::Client> {
    tls.http_config()
        .build_client()
        .with_context(|| format!("[{section}]"))
}

/// `ovsdb` options for the NB (`sb == false`) or SB connection from `[ovn]`.
pub fn ovsdb_options(ovn: &OvnSettings, sb: bool) -> ovsdb::ClientOptions {
    ovsdb::ClientOptions {
        backoff_max: Duration::from_secs(ovn.ovsdb_retry_max_interval.max(1)),
        handshake_timeout: Duration::from_secs(ovn.ovsdb_connection_timeout.max(1)),
        inactivity_probe: (ovn.ovsdb_probe_interval > 0)
            .then(|| Duration::from_millis(ovn.ovsdb_probe_interval)),
        ssl: OvnSettings::ssl_files(if sb { &ovn.sb_ssl } else { &ovn.nb_ssl }),
        ..Default::default()
    }
}

/// The service session of `[service_auth]`.
pub fn service_session(config: &Config) -> anyhow::Result<openstack::ServiceAuth> {
    let sa = &config.service_auth;
    Ok(openstack::ServiceAuth::new(
        http("service_auth", &sa.tls)?,
        sa.service_auth(),
    ))
}

/// The Neutron client: `[neutron]`'s session (each option unset there taken from
/// `[service_auth]`, as ovn-octavia-provider's `NeutronAuth`), its endpoint and interfaces.
pub fn neutron(config: &Config) -> anyhow::Result<openstack::NeutronClient> {
    let n = &config.neutron;
    let session = openstack::ServiceAuth::new(http("neutron", &n.auth.tls)?, n.auth.service_auth());
    // oslo's `valid_interfaces` is a list, tried in order.
    let interfaces = openstack::Interface::parse_list(&n.valid_interfaces)
        .map_err(|e| anyhow::anyhow!("[neutron] valid_interfaces: {e}"))?;
    Ok(openstack::NeutronClient::new(
        session,
        openstack::NeutronConfig {
            endpoint_override: n.endpoint.clone(),
            region_name: n.region_name.clone(),
            interface: interfaces
                .first()
                .copied()
                .unwrap_or(openstack::Interface::Public),
            fallback_interfaces: interfaces.iter().skip(1).copied().collect(),
            timeout: n.timeout,
            ..Default::default()
        },
    ))
}

/// keystonemiddleware's role: validates user tokens with `[keystone_authtoken]`'s credential
/// over its own session (`cafile`, `insecure`; `http_connect_timeout` bounds each request),
/// caching results for
/// `token_cache_time`.
pub fn token_validator(config: &Config) -> anyhow::Result<openstack::TokenValidator> {
    let k = &config.keystone_authtoken;
    let session = openstack::ServiceAuth::new(
        http("keystone_authtoken", &k.auth.tls)?,
        k.auth.service_auth(),
    );
    Ok(openstack::TokenValidator::new(
        session,
        openstack::TokenValidatorConfig {
            cache_ttl: Duration::from_secs(k.token_cache_time),
            ..Default::default()
        },
    ))
}

/// Barbican (`[certificates]`): its own session for `ca_certificates_file`/`insecure`, the
/// service user of `service` for ACLs.
pub fn barbican(
    config: &Config,
    service: &openstack::ServiceAuth,
) -> anyhow::Result<openstack::BarbicanClient> {
    let c = &config.certificates;
    let interface: openstack::Interface = c
        .endpoint_type
        .parse()
        .map_err(|e| anyhow::anyhow!("[certificates] endpoint_type: {e}"))?;
    Ok(openstack::BarbicanClient::new(
        http("certificates", &c.tls)?,
        Some(service.clone()),
        openstack::BarbicanConfig {
            endpoint: c.endpoint.clone(),
            region_name: c.region_name.clone(),
            interface,
        },
    ))
}

/// The sections a process authenticates with: `[service_auth]` and `[neutron]` always,
/// `[keystone_authtoken]` when it validates user tokens.
pub fn auth_sections(
    config: &Config,
    validates_tokens: bool,
) -> Vec<(&'static str, &KeystoneAuth)> {
    let mut v = vec![
        ("service_auth", &config.service_auth),
        ("neutron", &config.neutron.auth),
    ];
    if validates_tokens {
        v.push(("keystone_authtoken", &config.keystone_authtoken.auth));
    }
    v
}

/// Start-up check of each `auth_type = v3applicationcredential` of `sections` (each distinct
/// credential once): Keystone issues it a token, or start-up stops with
/// `[section] application_credential_id: Keystone refused …` — never another identity.
/// Keystone unreachable or failing (transport, 5xx) is warned about and start-up goes on, as
/// the reference authenticates lazily: requests needing Keystone answer 503 until it answers.
/// The password plugin is not checked here (the reference's behaviour: its first use fails).
pub async fn verify_application_credentials(
    sections: &[(&'static str, &KeystoneAuth)],
) -> anyhow::Result<()> {
    let mut seen: Vec<(String, openstack::ApplicationCredential)> = Vec::new();
    for (section, auth) in sections {
        let Some(ac) = auth.application_credential() else {
            continue;
        };
        let id = (auth.auth_url.clone(), ac.clone());
        if seen.contains(&id) {
            continue;
        }
        seen.push(id);
        let key = if ac.id.is_some() {
            "application_credential_id"
        } else {
            "application_credential_name"
        };
        let label = ac.id.clone().or(ac.name.clone()).unwrap_or_default();
        let session = openstack::ServiceAuth::new(http(section, &auth.tls)?, auth.service_auth());
        match session.token().await {
            Ok(t) => tracing::info!(
                section = %section,
                application_credential = %label,
                user_id = %t.user_id,
                project_id = ?t.project_id,
                "application credential accepted by Keystone"
            ),
            Err(openstack::KeystoneError::ServiceCredentialsRejected { status, message }) => {
                anyhow::bail!(
                    "[{section}] {key}: Keystone refused the application credential {label:?} ({status}: {message})"
                )
            }
            Err(e) => tracing::warn!(
                section = %section,
                application_credential = %label,
                error = %e,
                "application credential not verified at start-up: Keystone did not answer; requests needing it answer 503 until it does"
            ),
        }
    }
    Ok(())
}
