//! Unit tests of the configuration: parsing, types, defaults, merging, the review.

use std::path::Path;

use compat::catalog;

use super::check::review;
use super::*;

fn from(text: &str) -> Result<Config, ConfigError> {
    let mut s = Sources::default();
    s.add_text(text, Path::new("/etc/octavia/octavia.conf"))?;
    Config::from_sources(s)
}

#[test]
fn defaults_are_octavias_with_ovn_provider() {
    let c = Config::defaults().unwrap();
    assert_eq!(c.api_settings.bind_port, 9876);
    let a = &c.api_settings.api;
    assert_eq!(a.pagination_max_limit, Some(1000));
    assert_eq!(a.default_provider_driver, "ovn");
    assert!(a.allow_sorting && a.allow_pagination && a.allow_filtering);
    assert!(!a.healthcheck_enabled);
    assert_eq!(a.max_request_body_size, 114_688);
    assert_eq!(a.reserved_ips, vec!["169.254.169.254".to_string()]);
    assert_eq!(
        (a.timeout_client_data, a.timeout_member_connect),
        (50000, 5000)
    );
    assert_eq!(a.quotas.member, -1);
    assert_eq!(c.ovn.ovn_nb_connection, "tcp:127.0.0.1:6641");
    assert_eq!(c.ovn.ovsdb_probe_interval, 60000);
    assert_eq!(c.database.pool, octavia_db::PoolSettings::default());
    assert!(review(&c).refused.is_empty());
}

/// The catalog's defaults of the typed options agree with the defaults the other crates
/// hold for the same facts (what the readers used before the options were typed).
#[test]
fn typed_defaults_agree_with_the_crates_defaults() {
    use compat::catalog::controller_worker as cw;
    let c = Config::defaults().unwrap();
    assert_eq!(c.api_settings.api.cors, api::cors::CorsConfig::default());
    assert_eq!(
        cw::COMPUTE_DRIVER.default,
        amphora_provider::COMPUTE_NOVA_DRIVER
    );
    assert_eq!(
        cw::IMAGE_DRIVER.default,
        amphora_provider::IMAGE_GLANCE_DRIVER
    );
    assert_eq!(
        cw::VOLUME_DRIVER.default,
        amphora_provider::VOLUME_NOOP_DRIVER
    );
    assert_eq!(
        cw::NETWORK_DRIVER.default,
        amphora_provider::NEUTRON_NETWORK_DRIVER
    );
    // unset: Keel's 5 s in the two Keystone sessions, none (the HTTP client's) for Neutron
    let five = Some(std::time::Duration::from_secs(5));
    assert_eq!(
        (c.keystone_authtoken.auth.timeout, c.service_auth.timeout),
        (five, five)
    );
    assert_eq!(c.neutron.timeout, None);
    // unset domains: none read; the token request sends Keel's `Default`
    assert_eq!(c.service_auth.user_domain_name, None);
    assert_eq!(c.oslo_policy.policy_dirs, vec!["policy.d".to_string()]);
}

#[test]
fn reads_an_octavia_conf() {
    let c = from(
        "[api_settings]\nbind_port = 9877\nenabled_provider_drivers = ovn: OVN driver, amphora:Amp\n\
         allow_sorting = false\npagination_max_limit = infinite\n\
         [oslo_middleware]\nmax_request_body_size = 2048\n\
         [networking]\nreserved_ips = 10.0.0.5, 10.0.0.6\n\
         [haproxy_amphora]\ntimeout_client_data = 1234\n\
         [database]\nconnection = mysql+pymysql://u:p@127.0.0.1/octavia\nmax_pool_size = 3\n\
         [service_auth]\nauth_url = http://k/v3\nusername = octavia\ncafile = /ca.pem\n\
         [neutron]\nendpoint_type = internalURL\ninsecure = true\n\
         [ovn]\novn_nb_connection = ssl:10.0.0.1:6641, ssl:10.0.0.2:6641\novsdb_probe_interval = 10\n",
    )
    .unwrap();
    let a = &c.api_settings.api;
    assert_eq!(c.api_settings.bind_port, 9877);
    assert_eq!(
        a.enabled_provider_drivers.get("ovn").map(String::as_str),
        Some("OVN driver")
    );
    assert_eq!(a.enabled_provider_drivers.len(), 2);
    assert!(!a.allow_sorting);
    assert_eq!(a.pagination_max_limit, None);
    assert_eq!(a.max_request_body_size, 2048);
    assert_eq!(a.reserved_ips, vec!["10.0.0.5", "10.0.0.6"]);
    assert_eq!(a.timeout_client_data, 1234);
    // max_pool_size 3 + oslo.db's default max_overflow 50, as SQLAlchemy's QueuePool.
    assert_eq!(c.database.pool.max_connections, 53);
    assert_eq!(c.service_auth.username, "octavia");
    assert_eq!(c.service_auth.user_domain_name, None);
    // [neutron] falls back to [service_auth] per option; endpoint_type → valid_interfaces.
    assert_eq!(c.neutron.auth.username, "octavia");
    assert_eq!(
        c.neutron.auth.tls.cafile.as_deref(),
        Some(Path::new("/ca.pem"))
    );
    assert!(c.neutron.auth.tls.insecure && !c.service_auth.tls.insecure);
    assert_eq!(c.neutron.valid_interfaces, "internal");
    assert_eq!(
        c.ovn.ovn_nb_connection,
        "ssl:10.0.0.1:6641,ssl:10.0.0.2:6641"
    );
    // "If non-zero the value will be forced to at least 1000 milliseconds."
    assert_eq!(c.ovn.ovsdb_probe_interval, 1000);
    // ssl: without the three files is refused, naming the option.
    let r = review(&c);
    assert!(
        r.refused
            .iter()
            .any(|e| e.contains("[ovn] ovn_nb_connection") && e.contains("ovn_nb_private_key")),
        "{:?}",
        r.refused
    );
}

#[test]
fn sqlalchemy_urls() {
    assert_eq!(
        octavia_db_url("sqlite:////var/lib/o.db", "").unwrap(),
        "sqlite:///var/lib/o.db?mode=rwc"
    );
    assert_eq!(
        octavia_db_url("sqlite:///o.db", "").unwrap(),
        "sqlite://o.db?mode=rwc"
    );
    assert_eq!(octavia_db_url("sqlite://", "").unwrap(), "sqlite::memory:");
    assert_eq!(
        octavia_db_url("sqlite:///tmp/x.db?mode=rwc", "").unwrap(),
        "sqlite:///tmp/x.db?mode=rwc"
    );
    assert!(octavia_db_url("mysql+pymysql://u:p@h/o?charset=utf8", "").is_ok());
    assert!(octavia_db_url("postgresql://u:p@h/o", "").is_err());
    // unix_socket is sqlx's `socket`.
    assert_eq!(
        octavia_db_url(
            "mysql+pymysql://u:p@localhost/o?unix_socket=/run/mysqld/mysqld.sock",
            "charset=utf8"
        )
        .unwrap(),
        "mysql+pymysql://u:p@localhost/o?socket=/run/mysqld/mysqld.sock&charset=utf8"
    );
}

/// Parameters Keel cannot honour are refusals naming them (and the option they were written
/// in); UTF-8 charsets, unix_socket and the PyMySQL TLS parameters pass.
#[test]
fn database_url_parameters_keel_cannot_honour_are_refused() {
    let base = "mysql+pymysql://u:p@127.0.0.1:3306/db";
    for param in [
        "ssl=true",
        "ssl_ca=/nonexistent/ca.pem",
        "ssl_cert=/nonexistent/c.pem",
        "ssl_capath=/etc/ssl/certs",
        "ssl_cipher=AES128-SHA",
        "ssl_verify_cert=maybe",
        "ssl_disabled=false",
        "ssl_mode=REQUIRED",
        "ssl-mode=REQUIRED",
        "read_default_file=/nonexistent/my.cnf",
        "read_default_group=client",
        "plugin=dbcounter",
        "init_command=SET%20x%3D1",
        "charset=latin1",
    ] {
        let name = param.split('=').next().unwrap();
        for (conn, extra, option) in [
            (format!("{base}?charset=utf8&{param}"), "", "connection"),
            (
                format!("{base}?charset=utf8"),
                param,
                "connection_parameters",
            ),
        ] {
            let c = from(&format!(
                "[database]\nconnection = {conn}\nconnection_parameters = {extra}\n"
            ))
            .unwrap();
            let r = review(&c);
            assert!(
                r.refused.iter().any(|e| e
                    .starts_with(&format!("[database] {option}: URL parameter "))
                    && e.contains(&format!(" {name}: "))),
                "{param}: {:?}",
                r.refused
            );
            assert_eq!(r.refused.len(), 1, "only {name}: {:?}", r.refused);
            assert!(c.database.url().is_err(), "{param}: serve would connect");
        }
    }
    // A missing file is named with the OS error.
    let e = octavia_db_url(&format!("{base}?ssl_ca=/nonexistent/ca.pem"), "").unwrap_err();
    assert!(
        e.to_string()
            .contains("URL parameter ssl_ca: /nonexistent/ca.pem: No such file"),
        "{e}"
    );
    for ok in ["", "?charset=utf8", "?charset=utf8mb4"] {
        let c = from(&format!("[database]\nconnection = {base}{ok}\n")).unwrap();
        assert!(review(&c).refused.is_empty(), "{ok}");
        assert_eq!(c.database.url().unwrap(), format!("{base}{ok}"));
    }
    assert_eq!(
        octavia_db_url(&format!("{base}?charset=utf8mb4#frag"), "").unwrap(),
        format!("{base}?charset=utf8mb4")
    );
    // SQLAlchemy's SQLite form: pysqlite's parameters have no counterpart either.
    let err = octavia_db_url("sqlite:////var/lib/o.db?timeout=30", "").unwrap_err();
    assert!(err.to_string().contains("URL parameter timeout"), "{err}");
}

/// PyMySQL 1.2.0's TLS modes (through SQLAlchemy 2.0) → sqlx's `ssl-mode`.
#[test]
fn database_tls_parameters_map_to_sqlx_modes() {
    let dir = tempfile::tempdir().unwrap();
    let f = |n: &str| {
        let p = dir.path().join(n);
        std::fs::write(&p, "pem").unwrap();
        p.display().to_string()
    };
    let (ca, cert, key) = (f("ca.pem"), f("c.pem"), f("k.pem"));
    let base = "mysql+pymysql://u:p@db.example/o";
    for (query, want) in [
        (
            format!("ssl_ca={ca}"),
            format!("ssl-mode=VERIFY_IDENTITY&ssl-ca={ca}"),
        ),
        (
            format!("ssl_ca={ca}&ssl_check_hostname=false"),
            format!("ssl-mode=VERIFY_CA&ssl-ca={ca}"),
        ),
        (
            format!("ssl_ca={ca}&ssl_verify_cert=true"),
            format!("ssl-mode=VERIFY_CA&ssl-ca={ca}"),
        ),
        (
            format!("ssl_ca={ca}&ssl_verify_cert=true&ssl_verify_identity=true"),
            format!("ssl-mode=VERIFY_IDENTITY&ssl-ca={ca}"),
        ),
        (
            format!("ssl_ca={ca}&ssl_verify_cert=false"),
            format!("ssl-mode=REQUIRED&ssl-ca={ca}"),
        ),
        (
            format!("ssl_cert={cert}&ssl_key={key}"),
            format!("ssl-mode=REQUIRED&ssl-cert={cert}&ssl-key={key}"),
        ),
        ("ssl_verify_cert=true".into(), "ssl-mode=VERIFY_CA".into()),
        ("ssl_disabled=true".into(), "ssl-mode=DISABLED".into()),
    ] {
        assert_eq!(
            octavia_db_url(&format!("{base}?{query}"), "").unwrap(),
            format!("{base}?{want}"),
            "{query}"
        );
    }
    let e = octavia_db_url(&format!("{base}?ssl_key={key}"), "").unwrap_err();
    assert!(e.to_string().contains("ssl_key: a client key needs"), "{e}");
}

/// RHOSO's `?read_default_file=/etc/my.cnf` (mariadb-operator's `GetDatabaseClientConfig`
/// with and without TLS): the file's `ssl-*` become the TLS parameters PyMySQL would use, its
/// `ssl=0`/`ssl=1` have no effect (PyMySQL does not read them), the URL's own values win, and
/// the file fills what the URL lacks.
#[test]
fn database_option_file_is_read_as_pymysql_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let w = |n: &str, text: &str| {
        let p = dir.path().join(n);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    };
    let (ca, cert, key) = (w("ca.pem", "pem"), w("c.pem", "pem"), w("k.pem", "pem"));
    let tls = w(
        "tls.cnf",
        &format!("[client]\nssl-cert={cert}\nssl-key={key}\nssl-ca={ca}\nssl=1"),
    );
    let plain = w("plain.cnf", "[client]\nssl=0");
    let base = "mysql+pymysql://octavia:pw@db.example/octavia";
    assert_eq!(
        octavia_db_url(&format!("{base}?read_default_file={tls}"), "").unwrap(),
        format!("{base}?ssl-mode=VERIFY_IDENTITY&ssl-ca={ca}&ssl-cert={cert}&ssl-key={key}")
    );
    assert_eq!(
        octavia_db_url(&format!("{base}?read_default_file={plain}"), "").unwrap(),
        base
    );
    // The URL's ssl_ca wins over the file's; ssl_disabled in the URL turns TLS off whatever
    // the file says.
    let other = w("other.pem", "pem");
    assert!(
        octavia_db_url(
            &format!("{base}?ssl_ca={other}&read_default_file={tls}"),
            ""
        )
        .unwrap()
        .contains(&format!("ssl-ca={other}&ssl-cert={cert}"))
    );
    assert_eq!(
        octavia_db_url(
            &format!("{base}?read_default_file={tls}&ssl_disabled=1"),
            ""
        )
        .unwrap(),
        format!("{base}?ssl-mode=DISABLED")
    );
    // What the URL lacks comes from the file (a group other than [client] when named).
    let full = w(
        "full.cnf",
        "[client]\nuser=nobody\n[octavia]\nuser=oct\npassword=p@ss word\nhost=db2\nport=3307\ndatabase=octavia\nsocket=/run/my.sock\ndefault-character-set=utf8mb4",
    );
    assert_eq!(
        octavia_db_url(
            &format!("mysql+pymysql://?read_default_file={full}&read_default_group=octavia"),
            ""
        )
        .unwrap(),
        "mysql+pymysql://oct:p%40ss%20word@db2:3307/octavia?socket=/run/my.sock&charset=utf8mb4"
    );
    assert_eq!(
        octavia_db_url(&format!("{base}?read_default_file={full}"), "").unwrap(),
        base,
        "[client] says only user, which the URL has"
    );
    // Refusals name the file, the group and the option.
    for (text, says) in [
        (
            "[client]\nssl-ca=/nonexistent/ca.pem\n",
            "[client] ssl-ca: /nonexistent/ca.pem: No such file",
        ),
        (
            "[client]\ndefault-character-set=latin1\n",
            "[client] default-character-set: Keel's MariaDB connections are UTF-8",
        ),
        (
            "[client]\nport=lots\n",
            "[client] port: \"lots\" is not a port number",
        ),
        (
            "[client]\nssl-capath=/etc/ssl/certs\n",
            "[client] ssl-capath: a CA directory",
        ),
    ] {
        let f = w("bad.cnf", text);
        let e =
            octavia_db_url(&format!("mysql+pymysql://@/o?read_default_file={f}"), "").unwrap_err();
        let e = e.to_string();
        assert!(
            e.contains("URL parameter read_default_file: ")
                && e.contains(&format!("bad.cnf {says}")),
            "{text}: {e}"
        );
    }
}

#[test]
fn bad_values_are_typed_errors_naming_section_and_key() {
    for (text, key) in [
        ("[api_settings]\nbind_port = lots\n", "bind_port"),
        ("[api_settings]\nallow_sorting = maybe\n", "allow_sorting"),
        ("[networking]\nreserved_ips = 10.0.0.300\n", "reserved_ips"),
        ("[ovn]\novn_sb_connection = http://x\n", "ovn_sb_connection"),
        ("[ovn]\novsdb_probe_interval = -1\n", "ovsdb_probe_interval"),
        ("[keel]\nrecovery_lease = 0\n", "recovery_lease"),
        ("[keel]\nrecovery_period = 0\n", "recovery_period"),
        (
            "[keel]\nrecovery_lease = 10\nrecovery_period = 10\n",
            "recovery_lease",
        ),
        (
            "[oslo_policy]\nenforce_new_defaults = maybe\n",
            "enforce_new_defaults",
        ),
    ] {
        let err = from(text).unwrap_err();
        assert!(
            matches!(&err, ConfigError::Invalid { key: k, .. } if k == key),
            "{text}: {err}"
        );
    }
}

#[test]
fn review_sorts_options_and_refuses_what_keel_cannot_honour() {
    let c = from(
        "[DEFAULT]\ntransport_url = rabbit://x\nlogfile = /tmp/k.log\nuse_syslog = true\n\
         [api_settings]\nauth_strategy = testing\n\
         [keystone_authtoken]\nmemcached_servers = 127.0.0.1:11211\n\
         [driver_agent]\nenabled_provider_agents = ovn\n\
         [database]\nconnection = postgresql://x/y\n\
         [certificates]\ncert_manager = local_cert_manager\n\
         [service_auth]\nauth_type = v3oidcpassword\n\
         [bogus]\nthing = 1\n",
    )
    .unwrap();
    assert_eq!(
        c.log.log_file.as_deref(),
        Some(Path::new("/tmp/k.log")),
        "deprecated alias logfile"
    );
    let r = review(&c);
    let has =
        |v: &[check::Finding], s: &str, k: &str| v.iter().any(|f| f.section == s && f.key == k);
    assert!(has(
        &r.unimplemented,
        "keystone_authtoken",
        "memcached_servers"
    ));
    // the amphora provider's transport: honoured, so neither warned about nor quiet
    assert!(!has(&r.not_applicable, "DEFAULT", "transport_url"));
    assert!(!has(&r.unimplemented, "DEFAULT", "transport_url"));
    assert!(has(
        &r.not_applicable,
        "driver_agent",
        "enabled_provider_agents"
    ));
    assert!(has(&r.unknown, "bogus", "thing"));
    assert!(
        !has(&r.unimplemented, "DEFAULT", "logfile"),
        "an alias of an honoured option"
    );
    for want in [
        "[api_settings] auth_strategy",
        "[database] connection",
        "[certificates] cert_manager",
        "[service_auth] auth_type",
        "[DEFAULT] use_syslog",
    ] {
        assert!(
            r.refused.iter().any(|e| e.starts_with(want)),
            "{want}: {:?}",
            r.refused
        );
    }
    let text = check::render(&c, &r);
    assert!(text.contains("[bogus] thing"), "{text}");
}

#[test]
fn config_check_masks_secrets() {
    let c = from(
        "[database]\nconnection = mysql+pymysql://octavia:s3cret@db/octavia\n\
         [service_auth]\npassword = hunter2\n[keystone_authtoken]\npassword = hunter3\n",
    )
    .unwrap();
    let text = check::render(&c, &review(&c));
    assert!(
        !text.contains("s3cret") && !text.contains("hunter2") && !text.contains("hunter3"),
        "{text}"
    );
    assert!(
        text.contains("mysql+pymysql://octavia:***@db/octavia"),
        "{text}"
    );
}

#[test]
fn every_catalog_entry_is_unique_and_typed() {
    let mut seen = std::collections::BTreeSet::new();
    for o in catalog::OPTS.iter() {
        assert!(
            seen.insert((o.section, o.name)),
            "duplicate [{}] {}",
            o.section,
            o.name
        );
        assert!(!o.name.contains('-'));
    }
    // The reference's [ovn] options are all there and honoured.
    for n in [
        "ovn_nb_connection",
        "ovn_nb_private_key",
        "ovn_nb_certificate",
        "ovn_nb_ca_cert",
        "ovn_sb_connection",
        "ovn_sb_private_key",
        "ovn_sb_certificate",
        "ovn_sb_ca_cert",
        "ovsdb_connection_timeout",
        "ovsdb_retry_max_interval",
        "ovsdb_probe_interval",
    ] {
        assert_eq!(
            catalog::find("ovn", n).map(|o| o.use_),
            Some(catalog::Use::Honoured),
            "{n}"
        );
    }
}

#[test]
fn oslo_policy_options() {
    let c = Config::defaults().unwrap();
    assert_eq!(c.oslo_policy.policy_file, "policy.yaml");
    assert_eq!(c.oslo_policy.policy_dirs, vec!["policy.d".to_string()]);
    assert!(c.oslo_policy.enforce_new_defaults);
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("octavia.conf");
    std::fs::write(
        &conf,
        "[oslo_policy]\nenforce_new_defaults = False\nenforce_scope = false\n\
         policy_file = keel-policy.yaml\n",
    )
    .unwrap();
    let c = Config::load(&conf).unwrap();
    assert!(!c.oslo_policy.enforce_new_defaults);
    // enforce_scope: ignored, with the one reason serve logs and config check lists.
    let r = review(&c);
    let scope: Vec<&check::Finding> = r
        .unimplemented
        .iter()
        .filter(|f| f.section == "oslo_policy" && f.key == "enforce_scope")
        .collect();
    assert_eq!(scope.len(), 1, "{:?}", r.unimplemented);
    assert!(
        scope[0].why.contains("always enforces scope"),
        "{:?}",
        scope[0]
    );
    let text = check::render(&c, &r);
    assert!(
        text.contains("#   [oslo_policy] enforce_scope — oslo.policy 6.0.0 removed it"),
        "{text}"
    );
    assert!(!text.contains("enforce_scope = "), "not effective: {text}");
    // Absent file: defaults only.
    let p = c.oslo_policy.load_policy().unwrap().current();
    assert!(
        p.rule("os_load-balancer_api:loadbalancer:get_one")
            .is_some()
    );
    // Present, relative to the config file's directory.
    std::fs::write(
        dir.path().join("keel-policy.yaml"),
        "\"os_load-balancer_api:loadbalancer:get_one\": \"!\"\n",
    )
    .unwrap();
    let p = c.oslo_policy.load_policy().unwrap().current();
    assert_eq!(
        p.rule("os_load-balancer_api:loadbalancer:get_one"),
        Some(&api::policy::Check::False)
    );
    std::fs::write(dir.path().join("keel-policy.yaml"), "x: \"role:a and\"\n").unwrap();
    assert!(c.oslo_policy.load_policy().is_err());
    // A policy.d beside the config file with a rule file: Keel cannot honour it.
    assert!(review(&c).refused.is_empty());
    std::fs::create_dir(dir.path().join("policy.d")).unwrap();
    std::fs::write(dir.path().join("policy.d/10.yaml"), "{}\n").unwrap();
    assert!(
        review(&c)
            .refused
            .iter()
            .any(|e| e.starts_with("[oslo_policy] policy_dirs"))
    );
}

/// `docs/configuration.md` holds the table [`check::markdown_table`] renders
/// (`KEEL_BLESS=1 cargo test -p service --lib docs_table` rewrites it).
#[test]
fn docs_table_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/configuration.md");
    let doc = std::fs::read_to_string(&path).unwrap_or_default();
    let marker = "<!-- generated: the option table -->\n";
    let head = doc.split(marker).next().unwrap_or_default().to_string();
    let want = format!("{head}{marker}{}", check::markdown_table());
    if std::env::var_os("KEEL_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
        return;
    }
    assert!(
        doc == want,
        "docs/configuration.md is stale: KEEL_BLESS=1 cargo test -p service --lib docs_table"
    );
}

#[test]
fn peer_timeouts() {
    use std::time::Duration;
    let c = Config::defaults().unwrap();
    assert_eq!(c.database.pool, octavia_db::PoolSettings::default());
    assert_eq!(
        c.keystone_authtoken.auth.timeout,
        Some(Duration::from_secs(5))
    );
    assert_eq!(c.neutron.timeout, None);
    let c = from(
        "[database]\npool_timeout = 2\nmax_pool_size = 4\n\
         [keystone_authtoken]\nhttp_connect_timeout = 3\n\
         [service_auth]\ntimeout = 1.5\n[neutron]\ntimeout = 7\n",
    )
    .unwrap();
    assert_eq!(c.database.pool.acquire_timeout, Duration::from_secs(2));
    assert_eq!(c.database.pool.max_connections, 54);
    assert_eq!(
        c.keystone_authtoken.auth.timeout,
        Some(Duration::from_secs(3))
    );
    assert_eq!(c.service_auth.timeout, Some(Duration::from_millis(1500)));
    // [neutron] timeout bounds Neutron calls; its session's token keeps [service_auth]'s.
    assert_eq!(c.neutron.timeout, Some(Duration::from_secs(7)));
    assert_eq!(c.neutron.auth.timeout, Some(Duration::from_millis(1500)));
    assert!(from("[database]\npool_timeout = 0\n").is_err());
}

/// The repository's example `etc/octavia.conf` is accepted as it is: nothing refused,
/// nothing unknown.
#[test]
fn the_example_octavia_conf_is_accepted() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../etc/octavia.conf");
    let c = Config::load(&path).unwrap();
    let r = review(&c);
    assert!(r.refused.is_empty(), "{:?}", r.refused);
    assert!(r.unknown.is_empty(), "{:?}", r.unknown);
    assert_eq!(c.api_settings.api.default_provider_driver, "ovn");
}

/// oslo.log's `_get_log_file_path`: `log_dir` alone is `<log_dir>/<binary>.log`; with
/// `log_file` the file is joined to it (an absolute one stands alone); neither: stderr.
#[test]
fn log_file_path_as_oslo_log() {
    let c = from("[DEFAULT]\nlog_dir = /var/log/kolla/octavia\n").unwrap();
    assert_eq!(
        c.log.file("octavia-api"),
        Some(PathBuf::from("/var/log/kolla/octavia/octavia-api.log"))
    );
    let c = from("[DEFAULT]\nlogdir = /var/log/octavia\nlog_file = api.log\n").unwrap();
    assert_eq!(
        c.log.file("octavia-api"),
        Some(PathBuf::from("/var/log/octavia/api.log"))
    );
    let c = from("[DEFAULT]\nlog_dir = /var/log/octavia\nlog_file = /tmp/k.log\n").unwrap();
    assert_eq!(c.log.file("octavia-api"), Some(PathBuf::from("/tmp/k.log")));
    let c = from("[DEFAULT]\nlog_file = k.log\n").unwrap();
    assert_eq!(c.log.file("octavia-api"), Some(PathBuf::from("k.log")));
    assert_eq!(Config::defaults().unwrap().log.file("octavia-api"), None);
}

/// Keel loads `ovn` and the amphora driver (`amphora`, `amphorav2`, `octavia`): a default
/// provider it cannot serve is refused (every create without `provider` would fail), each other
/// enabled provider is warned about and listed; an unset default is `amphora` when the operator
/// enabled it (Octavia's default), else `ovn`.
#[test]
fn providers_keel_loads_and_cannot() {
    let has_default_refusal = |r: &check::Report| {
        r.refused
            .iter()
            .any(|e| e.starts_with("[api_settings] default_provider_driver: "))
    };
    let amphora = "[DEFAULT]\ntransport_url = rabbit://o:p@127.0.0.1:5672/\n";
    let c = from(&format!(
        "{amphora}[api_settings]\nenabled_provider_drivers = amphora:The Octavia Amphora driver., \
         f5:F5 driver, ovn:OVN provider driver\n"
    ))
    .unwrap();
    assert_eq!(c.api_settings.api.default_provider_driver, "amphora");
    let r = review(&c);
    assert!(r.refused.is_empty(), "{:?}", r.refused);
    let warned: Vec<&check::Finding> = r
        .unimplemented
        .iter()
        .filter(|f| f.section == "api_settings" && f.key == "enabled_provider_drivers")
        .collect();
    assert_eq!(warned.len(), 1, "{:?}", r.unimplemented);
    assert!(warned[0].why.contains("\"f5\""), "{:?}", warned[0]);
    let text = check::render(&c, &r);
    assert!(
        text.contains("[api_settings] enabled_provider_drivers — provider \"f5\""),
        "{text}"
    );
    let ovn_only = from("[api_settings]\nenabled_provider_drivers = ovn:O\n").unwrap();
    assert_eq!(ovn_only.api_settings.api.default_provider_driver, "ovn");
    // A default that is not enabled, or no driver Keel has.
    for conf in [
        "[api_settings]\ndefault_provider_driver = amphora\n",
        "[api_settings]\ndefault_provider_driver = noop_driver\n",
        "[api_settings]\nenabled_provider_drivers = f5:F\n",
    ] {
        let r = review(&from(conf).unwrap());
        assert!(has_default_refusal(&r), "{conf}: {:?}", r.refused);
    }
    for conf in [
        "[api_settings]\nenabled_provider_drivers = amphora:A, ovn:O\ndefault_provider_driver = amphora\n",
        "[api_settings]\nenabled_provider_drivers = octavia:A\ndefault_provider_driver = octavia\n",
    ] {
        let r = review(&from(&format!("{amphora}{conf}")).unwrap());
        assert!(r.refused.is_empty(), "{conf}: {:?}", r.refused);
    }
    assert!(!has_default_refusal(&review(&Config::defaults().unwrap())));
}

/// The amphora driver's transport is refused at start-up (before anything is written) when it
/// cannot be honoured, naming section, key and why; an OVN-only configuration never reads it.
#[test]
fn amphora_transport_refused_before_start() {
    let enabled = "[api_settings]\nenabled_provider_drivers = amphora:A, ovn:O\n";
    for (conf, want) in [
        (
            "[DEFAULT]\ntransport_url = kafka://h:9092/\n",
            "[DEFAULT] transport_url",
        ),
        (
            "[DEFAULT]\ntransport_url = rabbit://u:p@h:5672/?bogus_option=1\n",
            "transport_url query",
        ),
        (
            "[DEFAULT]\ntransport_url = rabbit://u:p@h:5672/\n[oslo_messaging_rabbit]\nssl = true\n\
             ssl_ca_file = /nonexistent/ca.pem\n",
            "ssl_ca_file",
        ),
        (
            "[DEFAULT]\ntransport_url = rabbit://u:p@h:5672/\n[controller_worker]\n\
             network_driver = some_sdn_driver\n",
            "[controller_worker] network_driver",
        ),
        (
            "[DEFAULT]\ntransport_url = rabbit://u:p@h:5672/\n[controller_worker]\n\
             image_driver = image_other_driver\n",
            "[controller_worker] image_driver: invalid value \"image_other_driver\"",
        ),
    ] {
        let r = review(&from(&format!("{enabled}{conf}")).unwrap());
        assert!(
            r.refused.iter().any(|e| e.contains(want)),
            "{conf}: want a refusal naming {want}: {:?}",
            r.refused
        );
    }
    // a value oslo.config itself refuses fails the read, naming the option
    let e = from("[oslo_messaging_rabbit]\nrabbit_retry_interval = soon\n").unwrap_err();
    assert!(e.to_string().contains("rabbit_retry_interval"), "{e}");
    // OVN only: RabbitMQ is never needed, whatever transport_url says
    let r = review(&from("[DEFAULT]\ntransport_url = kafka://h/\n").unwrap());
    assert!(r.refused.is_empty(), "{:?}", r.refused);
}

/// `keel config check` opens each section once, Keel's own options (`[keel]`,
/// `[DEFAULT] graceful_shutdown_timeout`) under the same header as the registered ones.
#[test]
fn config_check_prints_each_section_once() {
    let c = Config::defaults().unwrap();
    let text = check::render(&c, &review(&c));
    let headers: Vec<&str> = text.lines().filter(|l| l.starts_with('[')).collect();
    let unique: std::collections::BTreeSet<&&str> = headers.iter().collect();
    assert_eq!(headers.len(), unique.len(), "{headers:?}");
    for h in ["[DEFAULT]", "[keel]", "[oslo_policy]"] {
        assert!(headers.contains(&h), "{h}: {headers:?}");
    }
    let default = text.split("\n[DEFAULT]\n").nth(1).unwrap();
    let default = default.split("\n\n").next().unwrap();
    assert!(
        default.contains("graceful_shutdown_timeout = 60") && default.contains("debug = "),
        "{default}"
    );
}

/// The pool's bound is `max_pool_size + max_overflow` (oslo.db defaults 5 + 50): kolla's
/// `max_pool_size = 1` still serves concurrent requests; `-1` is no limit; both 0 refused.
#[test]
fn pool_bound_is_max_pool_size_plus_max_overflow() {
    let bound = |t: &str| from(t).map(|c| c.database.pool.max_connections);
    assert_eq!(
        Config::defaults().unwrap().database.pool.max_connections,
        55
    );
    assert_eq!(bound("[database]\nmax_pool_size = 1\n").unwrap(), 51);
    assert_eq!(
        bound("[database]\nmax_pool_size = 1\nmax_overflow = 0\n").unwrap(),
        1
    );
    assert_eq!(
        bound("[database]\nmax_pool_size = 0\nmax_overflow = 7\n").unwrap(),
        7
    );
    assert_eq!(
        bound("[database]\nmax_overflow = -1\n").unwrap(),
        UNLIMITED_POOL_BOUND
    );
    let e = bound("[database]\nmax_pool_size = 0\nmax_overflow = 0\n")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("[database] max_overflow:"), "{e}");
    let e = bound("[database]\nmax_overflow = -2\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("max_overflow") && e.contains("-1"), "{e}");
    let e = bound("[database]\nmax_pool_size = -1\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("max_pool_size"), "{e}");
    // Honoured: not in the start-up list of ignored options.
    let c = from("[database]\nmax_pool_size = 1\nmax_overflow = 10\n").unwrap();
    assert!(
        review(&c)
            .unimplemented
            .iter()
            .all(|f| f.key != "max_overflow")
    );
}

/// `[neutron]` as ovn-octavia-provider's `KeystoneSession('neutron')` loads it: a `[neutron]`
/// whose own credential loads (kolla-ansible's: `auth_type`, `auth_url` and the user's) takes
/// nothing from `[service_auth]`, neither its scope nor its domain nor its CA; one that lacks
/// `auth_url` (keystoneauth's `MissingRequiredOptions`) takes each option it does not set.
#[test]
fn neutron_borrows_from_service_auth_only_when_it_cannot_load_alone() {
    let sa = |scope: &str| {
        format!(
            "[service_auth]\nauth_type = password\nauth_url = http://k/v3\nusername = octavia\n\
             password = p\n{scope}\nuser_domain_id = default\ncafile = /sa-ca.pem\n\
             region_name = R1\n"
        )
    };
    let complete = "[neutron]\nauth_type = password\nauth_url = http://k/v3\n\
                    username = neutron-user\npassword = q\nproject_name = service\n\
                    user_domain_name = Default\nproject_domain_name = Default\n";
    // a kolla-ansible file: [neutron] loads alone, whatever [service_auth]'s scope
    for scope in ["project_id = admin-project", "domain_id = default"] {
        let c = from(&format!("{}{complete}", sa(scope))).unwrap();
        let n = c.neutron.auth.service_auth();
        assert_eq!(
            (n.project_id.as_deref(), n.domain_id.as_deref()),
            (None, None),
            "{scope}"
        );
        assert_eq!(
            n.scope().unwrap(),
            Some(serde_json::json!({
                "project": {"name": "service", "domain": {"name": "Default"}}
            }))
        );
        assert_eq!(
            (
                c.neutron.auth.tls.cafile.as_deref(),
                c.neutron.region_name.as_deref()
            ),
            (None, None)
        );
        // (the CA file does not exist here: only [service_auth]'s own refusals)
        let r = review(&c);
        assert!(
            r.refused.iter().all(|x| !x.contains("[neutron]")),
            "{scope}: {:?}",
            r.refused
        );
    }
    // auth_type without auth_url cannot load: each option [neutron] does not set is lent
    let c = from(&format!(
        "{}[neutron]\nauth_type = password\nproject_name = service\n",
        sa("project_id = admin-project")
    ))
    .unwrap();
    let n = c.neutron.auth.service_auth();
    assert_eq!(
        (n.project_name.as_str(), n.project_id.as_deref()),
        ("service", Some("admin-project"))
    );
    assert_eq!(
        (
            c.neutron.auth.tls.cafile.as_deref(),
            c.neutron.region_name.as_deref()
        ),
        (Some(Path::new("/sa-ca.pem")), Some("R1"))
    );
}

/// The password plugins' scope and domain options, in the three sections, as keystoneauth's
/// loaders read them: `project_id` / `tenant_*`, `default_domain_*` (the generic `password`
/// plugin's only), `[neutron]`'s fallback to `[service_auth]`, more than one scope refused.
#[test]
fn password_scope_options_read_as_keystoneauth() {
    let c = from(
        "[service_auth]\nauth_url = http://k/v3\nusername = octavia\nproject_id = p-1\n\
         default_domain_id = dd\n\
         [keystone_authtoken]\nauth_type = v3password\nusername = octavia\ntenant_name = t\n\
         default_domain_name = Ignored\nsystem_scope = all\n\
         [neutron]\ndefault_domain_name = Shared\n",
    )
    .unwrap();
    let sa = c.service_auth.service_auth();
    assert_eq!(
        (sa.project_id.as_deref(), sa.default_domain_id.as_deref()),
        (Some("p-1"), Some("dd"))
    );
    assert_eq!(
        sa.scope().unwrap(),
        Some(serde_json::json!({"project": {"id": "p-1"}}))
    );
    // v3password registers neither default_domain_* nor tenant_*: only the system scope
    let kat = c.keystone_authtoken.auth.service_auth();
    assert_eq!(
        (
            kat.project_name.as_str(),
            kat.default_domain_name.as_deref()
        ),
        ("", None)
    );
    assert_eq!(
        kat.scope().unwrap(),
        Some(serde_json::json!({"system": {"all": true}}))
    );
    // [neutron] takes project_id and default_domain_id from [service_auth], keeps its name
    let n = c.neutron.auth.service_auth();
    assert_eq!(n.project_id.as_deref(), Some("p-1"));
    assert_eq!(
        (
            n.default_domain_id.as_deref(),
            n.default_domain_name.as_deref()
        ),
        (Some("dd"), Some("Shared"))
    );
    let r = review(&c);
    assert!(r.refused.is_empty(), "{:?}", r.refused);
    assert!(r.unimplemented.is_empty(), "{:?}", r.unimplemented);

    // the generic plugin: tenant_name is project_name's older name
    let c = from("[service_auth]\ntenant_name = t\ntenant_id = \n").unwrap();
    assert_eq!(
        (
            c.service_auth.project_name.as_str(),
            c.service_auth.project_id.as_deref()
        ),
        ("t", None)
    );
    let c = from("[service_auth]\nproject_name = p\ntenant_name = t\ntenant_id = tid\n").unwrap();
    assert_eq!(
        (
            c.service_auth.project_name.as_str(),
            c.service_auth.project_id.as_deref()
        ),
        ("p", Some("tid"))
    );

    // two scopes: refused in the section where they are set, naming the second one
    let c = from(
        "[service_auth]\nauth_url = http://k/v3\nproject_name = service\nsystem_scope = all\n\
         [keystone_authtoken]\ndomain_name = d\ntrust_id = t\n\
         [neutron]\nauth_type = v3applicationcredential\napplication_credential_id = a\n\
         application_credential_secret = s\n",
    )
    .unwrap();
    let r = review(&c).refused;
    assert_eq!(r.len(), 2, "{r:?}");
    assert!(
        r[0].starts_with("[keystone_authtoken] trust_id: the credential names more than one scope (domain, trust)"),
        "{r:?}"
    );
    assert!(
        r[1].starts_with("[service_auth] system_scope: the credential names more than one scope (project, system)"),
        "{r:?}"
    );
}

/// `v3applicationcredential` as keystoneauth loads it: by id, or by name with the owner
/// (`user_id`, or `username` + domain); what it lacks refused naming section and key; the
/// `[neutron]` credential falls back to `[service_auth]`'s option by option.
#[test]
fn application_credentials_read_as_keystoneauth() {
    let c = from(
        "[service_auth]\nauth_url = http://k:5000/v3\nauth_type = v3applicationcredential\n\
         application_credential_id = abc\napplication_credential_secret = s3cret\n\
         [neutron]\nproject_name = service\n\
         [keystone_authtoken]\nauth_url = http://k:5000\nauth_type = v3applicationcredential\n\
         application_credential_name = keel\nusername = octavia\nuser_domain_id = dom\n\
         application_credential_secret = other\n",
    )
    .unwrap();
    assert!(review(&c).refused.is_empty(), "{:?}", review(&c).refused);
    let sa = c.service_auth.application_credential().unwrap();
    assert_eq!(
        (sa.id.as_deref(), sa.secret.as_str()),
        (Some("abc"), "s3cret")
    );
    // [neutron] sets only project_name: the credential is [service_auth]'s.
    assert_eq!(c.neutron.auth.application_credential(), Some(sa.clone()));
    let kat = c.keystone_authtoken.auth.application_credential().unwrap();
    assert_eq!(kat.name.as_deref(), Some("keel"));
    assert_eq!(
        kat.user,
        Some(openstack::AppCredentialUser::Name {
            name: "octavia".into(),
            domain_id: Some("dom".into()),
            domain_name: "Default".into(),
        })
    );
    assert!(
        c.service_auth
            .service_auth()
            .application_credential
            .is_some()
    );
    let text = check::render(&c, &review(&c));
    assert!(
        !text.contains("s3cret") && !text.contains("other"),
        "{text}"
    );

    let c = from(
        "[service_auth]\nauth_url = http://k/v3\nauth_type = v3applicationcredential\n\
         application_credential_name = keel\n",
    )
    .unwrap();
    let r = review(&c).refused;
    for want in [
        "[service_auth] application_credential_secret:",
        "[service_auth] application_credential_name: a credential given by name needs its user",
    ] {
        assert!(r.iter().any(|e| e.starts_with(want)), "{want}: {r:?}");
    }
    // The password plugin is untouched by the new options.
    let c = from("[service_auth]\nusername = octavia\npassword = p\n").unwrap();
    assert_eq!(c.service_auth.application_credential(), None);
}

/// Upstream's noop job runs the API with `[certificates] cert_manager = noop_cert_manager`:
/// accepted; any other manager but Barbican's is refused.
#[test]
fn noop_cert_manager_accepted_local_refused() {
    let r = review(&from("[certificates]\ncert_manager = noop_cert_manager\n").unwrap());
    assert!(r.refused.is_empty(), "{:?}", r.refused);
    let r = review(&from("[certificates]\ncert_manager = local_cert_manager\n").unwrap());
    assert!(
        r.refused
            .iter()
            .any(|e| e.starts_with("[certificates] cert_manager")),
        "{:?}",
        r.refused
    );
}

#[test]
fn compute_image_volume_drivers_and_their_sections() {
    use super::compute::{COMPUTE, IMAGE, VOLUME};
    let c = from("").unwrap().compute;
    assert_eq!(
        (c.is_real(COMPUTE).unwrap(), c.is_real(IMAGE).unwrap()),
        (true, true),
        "Octavia's defaults: Nova and Glance"
    );
    assert!(!c.is_real(VOLUME).unwrap(), "volume_noop_driver by default");
    assert_eq!(c.nova.endpoint_type, "publicURL");
    assert_eq!(c.amp_image_owner_id, "");
    let c = from(
        "[service_auth]\ncafile = /etc/ssl/sa.pem\n\
         [controller_worker]\ncompute_driver = compute_noop_driver\n\
         volume_driver = volume_cinder_driver\namp_image_owner_id = p1\n\
         [nova]\nendpoint = http://n:8774/v2.1\nservice_name = nova2\nregion_name = R2\n\
         endpoint_type = internalURL\ninsecure = true\n\
         [cinder]\nca_certificates_file = /etc/ssl/cinder.pem\n",
    )
    .unwrap()
    .compute;
    assert!(!c.is_real(COMPUTE).unwrap() && c.is_real(VOLUME).unwrap());
    assert_eq!(c.amp_image_owner_id, "p1");
    assert_eq!(c.nova.endpoint.as_deref(), Some("http://n:8774/v2.1"));
    assert_eq!(
        (
            c.nova.service_name.as_deref(),
            c.nova.region_name.as_deref()
        ),
        (Some("nova2"), Some("R2"))
    );
    assert_eq!(c.nova.endpoint_type, "internalURL");
    assert!(c.nova.insecure && !c.glance.insecure);
    assert_eq!(c.glance.cafile, Some(PathBuf::from("/etc/ssl/sa.pem")));
    assert_eq!(c.cinder.cafile, Some(PathBuf::from("/etc/ssl/cinder.pem")));
    let e = from("[glance]\ninsecure = maybe\n").unwrap_err();
    assert!(e.to_string().contains("[glance] insecure"), "{e}");
}

/// This crate's modules log under the names they had in the binary (`keel::recovery`), so
/// `log_config_append` qualnames and log filters keep matching after the move.
#[test]
fn service_targets_keep_the_names_of_the_binary() {
    assert_eq!(super::event_target("service::recovery"), "keel::recovery");
    assert_eq!(super::event_target("service"), "keel");
    assert_eq!(super::event_target("services::x"), "services::x");
    assert_eq!(
        super::event_target("api::load_balancer"),
        "api::load_balancer"
    );
    assert_eq!(
        super::python_logger("service::recovery"),
        "octavia.keel.recovery"
    );
    assert_eq!(super::python_logger("keel::stage"), "octavia.keel.stage");
}
