//! No value that passes request validation can overflow its database column.
//!
//! `every_column_holds_every_valid_value` walks every column of the schema
//! (`octavia_db::columns()`): a column written from request fields must hold the largest
//! value each such field's type admits (characters for `varchar`, the range for `int`, a
//! single-precision float, the pickled dict for a `blob`), and every other column is named
//! here as written by Keel alone. Every request field of every named request schema must be
//! mapped, so a new field or column fails the test until it is classified.
//!
//! `largest_valid_values_are_stored_whole` and `values_beyond_a_column_are_refused` send the
//! extremes through the API on SQLite and MariaDB: the largest valid values are stored whole
//! (read back from the rows), one step beyond answers 400 with the type's text, never 500,
//! and writes nothing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use std::collections::BTreeSet;

use api::types::Kind;
use axum::http::StatusCode;
use octavia_db::ColumnCapacity;
use serde_json::{Value, json};

/// Columns no request value is written to: ids, statuses, timestamps, links Keel fills in.
const KEEL_WRITTEN: &[&str] = &[
    "*.id",
    "*.created_at",
    "*.updated_at",
    "*.provisioning_status",
    "*.operating_status",
    "load_balancer.topology",
    "load_balancer.server_group_id",
    "vip.octavia_owned",
    "vip.load_balancer_id",
    "vip_security_group.load_balancer_id",
    "additional_vip.load_balancer_id",
    "additional_vip.network_id",
    "listener.peer_port",
    "listener.load_balancer_id",
    "sni.listener_id",
    "sni.position",
    "listener_cidr.listener_id",
    "session_persistence.pool_id",
    "member.pool_id",
    "member.vnic_type",
    "vip.vnic_type",
    "health_monitor.pool_id",
    "l7policy.listener_id",
    "l7rule.l7policy_id",
    "tags.resource_id",
    "quotas.project_id",
    "quotas.in_use_*",
    "availability_zone.availability_zone_profile_id",
];

/// Tables no request writes (lookup tables, amphora bookkeeping, statistics).
const INTERNAL_TABLES: &[&str] = &[
    "provisioning_status",
    "operating_status",
    "protocol",
    "algorithm",
    "session_persistence_type",
    "health_monitor_type",
    "lb_topology",
    "amphora_roles",
    "vrrp_auth_method",
    "l7rule_type",
    "l7rule_compare_type",
    "l7policy_action",
    "client_authentication_mode",
    "listener_statistics",
    "amphora",
    "amphora_health",
    "amphora_build_slots",
    "amphora_build_request",
    "alembic_version",
    "vrrp_group",
    "spares_pool",
    "quota_usage",
    "amphora_member_port",
];

/// `(schemas, request field, column)`: the field of those request schemas is stored in
/// `table.column` (`-` for a field that is only looked up or nests another schema).
const FIELDS: &[(&[&str], &str, &str)] = {
    const LB: &[&str] = &["LoadBalancerPOST", "LoadBalancerPUT"];
    const AV: &[&str] = &["AdditionalVip"];
    const L: &[&str] = &["ListenerPOST", "ListenerSingleCreate", "ListenerPUT"];
    const P: &[&str] = &["PoolPOST", "PoolSingleCreate", "PoolPUT"];
    const SP: &[&str] = &["SessionPersistencePOST", "SessionPersistencePUT"];
    const M: &[&str] = &["MemberPOST", "MemberSingleCreate", "MemberPUT"];
    const HM: &[&str] = &[
        "HealthMonitorPOST",
        "HealthMonitorSingleCreate",
        "HealthMonitorPUT",
    ];
    const L7P: &[&str] = &["L7PolicyPOST", "L7PolicyPUT", "L7PolicySingleCreate"];
    const L7R: &[&str] = &["L7RulePOST", "L7RulePUT", "L7RuleSingleCreate"];
    const Q: &[&str] = &["QuotaPUT"];
    const F: &[&str] = &["FlavorPOST", "FlavorPUT"];
    const AZ: &[&str] = &["AvailabilityZonePOST", "AvailabilityZonePUT"];
    const FP: &[&str] = &["FlavorProfilePOST", "FlavorProfilePUT"];
    const AZP: &[&str] = &["AvailabilityZoneProfilePOST", "AvailabilityZoneProfilePUT"];
    &[
        (LB, "name", "load_balancer.name"),
        (LB, "description", "load_balancer.description"),
        (LB, "admin_state_up", "load_balancer.enabled"),
        (LB, "project_id", "load_balancer.project_id"),
        (LB, "provider", "load_balancer.provider"),
        (LB, "flavor_id", "load_balancer.flavor_id"),
        (LB, "availability_zone", "load_balancer.availability_zone"),
        (LB, "tags", "tags.tag"),
        (LB, "vip_address", "vip.ip_address"),
        (LB, "vip_port_id", "vip.port_id"),
        (LB, "vip_subnet_id", "vip.subnet_id"),
        (LB, "vip_network_id", "vip.network_id"),
        (LB, "vip_qos_policy_id", "vip.qos_policy_id"),
        (LB, "vip_sg_ids", "vip_security_group.sg_id"),
        (LB, "additional_vips", "-"),
        (LB, "listeners", "-"),
        (LB, "pools", "-"),
        (AV, "subnet_id", "additional_vip.subnet_id"),
        (AV, "ip_address", "additional_vip.ip_address"),
        (AV, "port_id", "additional_vip.port_id"),
        (L, "name", "listener.name"),
        (L, "description", "listener.description"),
        (L, "admin_state_up", "listener.enabled"),
        (L, "protocol", "listener.protocol"),
        (L, "protocol_port", "listener.protocol_port"),
        (L, "connection_limit", "listener.connection_limit"),
        (
            L,
            "default_tls_container_ref",
            "listener.tls_certificate_id",
        ),
        (L, "sni_container_refs", "sni.tls_container_id"),
        (L, "project_id", "listener.project_id"),
        (L, "default_pool_id", "listener.default_pool_id"),
        (L, "default_pool", "-"),
        (L, "l7policies", "-"),
        (L, "insert_headers", "listener.insert_headers"),
        (L, "loadbalancer_id", "-"),
        (L, "timeout_client_data", "listener.timeout_client_data"),
        (
            L,
            "timeout_member_connect",
            "listener.timeout_member_connect",
        ),
        (L, "timeout_member_data", "listener.timeout_member_data"),
        (L, "timeout_tcp_inspect", "listener.timeout_tcp_inspect"),
        (L, "tags", "tags.tag"),
        (
            L,
            "client_ca_tls_container_ref",
            "listener.client_ca_tls_certificate_id",
        ),
        (L, "client_authentication", "listener.client_authentication"),
        (
            L,
            "client_crl_container_ref",
            "listener.client_crl_container_id",
        ),
        (L, "allowed_cidrs", "listener_cidr.cidr"),
        (L, "tls_ciphers", "listener.tls_ciphers"),
        (L, "tls_versions", "listener.tls_versions"),
        (L, "alpn_protocols", "listener.alpn_protocols"),
        (L, "hsts_max_age", "listener.hsts_max_age"),
        (
            L,
            "hsts_include_subdomains",
            "listener.hsts_include_subdomains",
        ),
        (L, "hsts_preload", "listener.hsts_preload"),
        (P, "name", "pool.name"),
        (P, "description", "pool.description"),
        (P, "admin_state_up", "pool.enabled"),
        (P, "listener_id", "-"),
        (P, "loadbalancer_id", "pool.load_balancer_id"),
        (P, "protocol", "pool.protocol"),
        (P, "lb_algorithm", "pool.lb_algorithm"),
        (P, "session_persistence", "-"),
        (P, "project_id", "pool.project_id"),
        (P, "healthmonitor", "-"),
        (P, "members", "-"),
        (P, "tags", "tags.tag"),
        (P, "tls_container_ref", "pool.tls_certificate_id"),
        (P, "ca_tls_container_ref", "pool.ca_tls_certificate_id"),
        (P, "crl_container_ref", "pool.crl_container_id"),
        (P, "tls_enabled", "pool.tls_enabled"),
        (P, "tls_ciphers", "pool.tls_ciphers"),
        (P, "tls_versions", "pool.tls_versions"),
        (P, "alpn_protocols", "pool.alpn_protocols"),
        (SP, "type", "session_persistence.type"),
        (SP, "cookie_name", "session_persistence.cookie_name"),
        (
            SP,
            "persistence_timeout",
            "session_persistence.persistence_timeout",
        ),
        (
            SP,
            "persistence_granularity",
            "session_persistence.persistence_granularity",
        ),
        (M, "name", "member.name"),
        (M, "admin_state_up", "member.enabled"),
        (M, "address", "member.ip_address"),
        (M, "protocol_port", "member.protocol_port"),
        (M, "weight", "member.weight"),
        (M, "backup", "member.backup"),
        (M, "subnet_id", "member.subnet_id"),
        (M, "project_id", "member.project_id"),
        (M, "monitor_port", "member.monitor_port"),
        (M, "monitor_address", "member.monitor_address"),
        (M, "tags", "tags.tag"),
        (M, "request_sriov", "-"),
        (HM, "name", "health_monitor.name"),
        (HM, "type", "health_monitor.type"),
        (HM, "delay", "health_monitor.delay"),
        (HM, "timeout", "health_monitor.timeout"),
        (HM, "max_retries_down", "health_monitor.fall_threshold"),
        (HM, "max_retries", "health_monitor.rise_threshold"),
        (HM, "http_method", "health_monitor.http_method"),
        (HM, "url_path", "health_monitor.url_path"),
        (HM, "expected_codes", "health_monitor.expected_codes"),
        (HM, "admin_state_up", "health_monitor.enabled"),
        (HM, "project_id", "health_monitor.project_id"),
        (HM, "pool_id", "-"),
        (HM, "tags", "tags.tag"),
        (HM, "http_version", "health_monitor.http_version"),
        (HM, "domain_name", "health_monitor.domain_name"),
        (L7P, "name", "l7policy.name"),
        (L7P, "description", "l7policy.description"),
        (L7P, "admin_state_up", "l7policy.enabled"),
        (L7P, "project_id", "l7policy.project_id"),
        (L7P, "action", "l7policy.action"),
        (L7P, "redirect_pool_id", "l7policy.redirect_pool_id"),
        (L7P, "redirect_pool", "-"),
        (L7P, "redirect_url", "l7policy.redirect_url"),
        (L7P, "redirect_prefix", "l7policy.redirect_prefix"),
        (L7P, "position", "l7policy.position"),
        (L7P, "listener_id", "-"),
        (L7P, "rules", "-"),
        (L7P, "tags", "tags.tag"),
        (L7P, "redirect_http_code", "l7policy.redirect_http_code"),
        (L7R, "type", "l7rule.type"),
        (L7R, "compare_type", "l7rule.compare_type"),
        (L7R, "key", "l7rule.key"),
        (L7R, "value", "l7rule.value"),
        (L7R, "invert", "l7rule.invert"),
        (L7R, "admin_state_up", "l7rule.enabled"),
        (L7R, "project_id", "l7rule.project_id"),
        (L7R, "tags", "tags.tag"),
        (Q, "loadbalancer", "quotas.load_balancer"),
        (Q, "load_balancer", "quotas.load_balancer"),
        (Q, "listener", "quotas.listener"),
        (Q, "member", "quotas.member"),
        (Q, "pool", "quotas.pool"),
        (Q, "healthmonitor", "quotas.health_monitor"),
        (Q, "health_monitor", "quotas.health_monitor"),
        (Q, "l7policy", "quotas.l7policy"),
        (Q, "l7rule", "quotas.l7rule"),
        (F, "name", "flavor.name"),
        (F, "description", "flavor.description"),
        (F, "enabled", "flavor.enabled"),
        (F, "flavor_profile_id", "flavor.flavor_profile_id"),
        (AZ, "name", "availability_zone.name"),
        (AZ, "description", "availability_zone.description"),
        (AZ, "enabled", "availability_zone.enabled"),
        (AZ, "availability_zone_profile_id", "-"),
        (FP, "name", "flavor_profile.name"),
        (FP, "provider_name", "flavor_profile.provider_name"),
        (FP, "flavor_data", "flavor_profile.flavor_data"),
        (AZP, "name", "availability_zone_profile.name"),
        (
            AZP,
            "provider_name",
            "availability_zone_profile.provider_name",
        ),
        (
            AZP,
            "availability_zone_data",
            "availability_zone_profile.availability_zone_data",
        ),
    ]
};

/// The longest text (in characters) a scalar kind admits; `None` = unbounded.
fn max_chars(kind: &Kind) -> Option<usize> {
    match kind {
        Kind::Str { max, .. } | Kind::Pattern { max, .. } => *max,
        Kind::Uuid => Some(36),
        Kind::Enum(v) => v.iter().map(|x| x.len()).max(),
        // the longest textual IPv6 address: six groups of 4 digits and a dotted IPv4 tail
        Kind::Ip => Some(45),
        // normalised by Rust's Display: eight groups of 4 and `/128`
        Kind::Cidr => Some(43),
        Kind::UrlPath | Kind::Url => Some(api::types::URL_COLUMN_MAX),
        Kind::Alpn => Some(8),
        Kind::Joined { max, .. } => Some(*max),
        _ => None,
    }
}

/// Whether every value of `kind` fits `cap`; the reason when not.
fn fits(field: &str, kind: &Kind, cap: ColumnCapacity) -> Result<(), String> {
    match (kind, cap) {
        // a list stored one item per row
        (Kind::List(item), c) => fits(field, item, c),
        (Kind::Bool, ColumnCapacity::Bool) => Ok(()),
        (Kind::Int { min, max }, ColumnCapacity::Int) => match (min, max) {
            (Some(lo), Some(hi)) if *lo >= i64::from(i32::MIN) && *hi <= i64::from(i32::MAX) => {
                Ok(())
            }
            _ => Err(format!("{field}: int range {min:?}..{max:?} exceeds INT")),
        },
        (Kind::FloatEnum(v), ColumnCapacity::Float) => {
            if v.iter().all(|x| x.abs() <= f64::from(f32::MAX)) {
                Ok(())
            } else {
                Err(format!("{field}: float beyond FLOAT"))
            }
        }
        (Kind::StrDict(Some(vmax)), ColumnCapacity::Blob) => {
            // keys are the supported headers only (checked before SQL); each value at most
            // `vmax` characters of up to 4 bytes, plus pickle framing per entry and overall
            let keys = api::listener::rules::HTTP_HEADERS
                .iter()
                .chain(api::listener::rules::SSL_HEADERS);
            let bytes: usize = keys.map(|k| k.len() + 4 * vmax + 32).sum::<usize>() + 64;
            if bytes <= 65_535 {
                Ok(())
            } else {
                Err(format!("{field}: pickled dict up to {bytes} bytes > BLOB"))
            }
        }
        (k, ColumnCapacity::Varchar(n)) => match max_chars(k) {
            Some(m) if m <= n as usize => Ok(()),
            Some(m) => Err(format!("{field}: {m} characters > varchar({n})")),
            None => Err(format!("{field}: unbounded text into varchar({n})")),
        },
        (k, c) => Err(format!("{field}: kind {k:?} into {c:?}")),
    }
}

fn keel_written(table: &str, column: &str) -> bool {
    KEEL_WRITTEN.iter().any(|p| {
        let (t, c) = p.split_once('.').unwrap();
        (t == "*" || t == table)
            && (c == column
                || c.strip_suffix('*')
                    .is_some_and(|pre| column.starts_with(pre)))
    })
}

#[test]
fn every_column_holds_every_valid_value() {
    let columns = octavia_db::columns();
    let mut problems = Vec::new();
    // every field of every request schema is mapped
    let mut used = BTreeSet::new();
    for (name, schema) in api::openapi::REQUEST_SCHEMAS {
        for field in schema.fields {
            let entry = FIELDS
                .iter()
                .find(|(schemas, f, _)| schemas.contains(name) && *f == field.name);
            let Some((_, _, target)) = entry else {
                problems.push(format!("{name}.{}: no column named for it", field.name));
                continue;
            };
            if *target == "-" {
                continue;
            }
            let (t, c) = target.split_once('.').unwrap();
            used.insert((t, c));
            let Some((_, _, cap, _)) = columns.iter().find(|(tt, cc, _, _)| *tt == t && *cc == c)
            else {
                problems.push(format!("{name}.{}: no column {target}", field.name));
                continue;
            };
            if let Err(e) = fits(&format!("{name}.{}", field.name), &field.kind, *cap) {
                problems.push(e);
            }
        }
    }
    // every column of the schema is either written from a request field or by Keel alone
    for (t, c, _, _) in &columns {
        if INTERNAL_TABLES.contains(t) || used.contains(&(*t, *c)) || keel_written(t, c) {
            continue;
        }
        problems.push(format!("{t}.{c}: neither a request field nor Keel-written"));
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

/// 4-byte characters: a `varchar(n)` in utf8mb4 must hold n of them.
fn wide(n: usize) -> String {
    "𝄞".repeat(n)
}

/// Items joined with `,` as close to `max` characters as the items allow (never beyond).
fn joined(items: &[&str], max: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut len = 0usize;
    'fill: loop {
        for i in items {
            let add = i.len() + usize::from(!out.is_empty());
            if len + add > max {
                break 'fill;
            }
            len += add;
            out.push(i.to_string());
        }
    }
    out
}

async fn scalar(env: &common::Env, sql: &str, id: &str) -> Option<String> {
    let mut tx = env.db.begin_read().await.unwrap();
    tx.fetch_optional_scalar::<Option<String>>(sql, vec![id.into()])
        .await
        .unwrap()
        .flatten()
}

async fn chars_of(env: &common::Env, table: &str, column: &str, id: &str) -> usize {
    scalar(
        env,
        &format!("SELECT `{column}` FROM `{table}` WHERE id = ?"),
        id,
    )
    .await
    .unwrap_or_default()
    .chars()
    .count()
}

#[tokio::test]
async fn largest_valid_values_are_stored_whole() {
    let tls = joined(&["TLSv1.2", "TLSv1.3", "TLSv1.1"], 512);
    let alpn = joined(&["http/1.1", "h2", "http/1.0"], 512);
    let tls_len = tls.join(",").chars().count();
    let alpn_len = alpn.join(",").chars().count();
    assert!(tls_len > 505 && alpn_len > 505);
    each_backend!(common::Setup::accept_all(), |env| {
        let lb = env
            .create(
                "/v2/lbaas/loadbalancers",
                "loadbalancer",
                json!({"name": wide(255), "description": wide(255), "vip_subnet_id": common::SUBNET,
                       "tags": [wide(255)]}),
            )
            .await;
        assert_eq!(chars_of(&env, "load_balancer", "name", &lb).await, 255);
        env.set_status("load_balancer", &lb, "ACTIVE").await;
        let headers: serde_json::Map<String, Value> = api::listener::rules::HTTP_HEADERS
            .iter()
            .map(|h| (h.to_string(), json!(wide(255))))
            .collect();
        let l = env
            .create(
                "/v2/lbaas/listeners",
                "listener",
                json!({"loadbalancer_id": lb, "protocol": "HTTP", "protocol_port": 80,
                       "name": wide(255), "description": wide(255),
                       "connection_limit": i32::MAX, "timeout_client_data": api::listener::body::MAX_TIMEOUT,
                       "insert_headers": headers, "tls_ciphers": "A".repeat(2048),
                       "tls_versions": tls, "alpn_protocols": alpn}),
            )
            .await;
        assert_eq!(
            chars_of(&env, "listener", "tls_versions", &l).await,
            tls_len
        );
        assert_eq!(
            chars_of(&env, "listener", "alpn_protocols", &l).await,
            alpn_len
        );
        assert_eq!(chars_of(&env, "listener", "tls_ciphers", &l).await, 2048);
        let (s, got) = env
            .req("GET", &format!("/v2/lbaas/listeners/{l}"), None)
            .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(got["listener"]["insert_headers"], Value::Object(headers));
        env.set_status("load_balancer", &lb, "ACTIVE").await;
        let p = env
            .create(
                "/v2/lbaas/pools",
                "pool",
                json!({"listener_id": l, "protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN",
                       "name": wide(255), "tls_versions": tls, "alpn_protocols": ["h2"],
                       "tls_ciphers": "B".repeat(2048),
                       "session_persistence": {"type": "APP_COOKIE", "cookie_name": "c".repeat(255)}}),
            )
            .await;
        assert_eq!(chars_of(&env, "pool", "tls_versions", &p).await, tls_len);
        env.set_active(&[("load_balancer", &lb), ("listener", &l), ("pool", &p)])
            .await;
        let codes = format!("200{}", ",200".repeat(15));
        let domain = [
            "a".repeat(63),
            "b".repeat(63),
            "c".repeat(63),
            "d".repeat(61),
        ]
        .join(".");
        let hm = env
            .create(
                "/v2/lbaas/healthmonitors",
                "healthmonitor",
                json!({"pool_id": p, "type": "HTTP", "delay": i32::MAX, "timeout": i32::MAX,
                       "max_retries": 10, "max_retries_down": 10, "name": wide(255),
                       "url_path": format!("/{}", "u".repeat(254)), "expected_codes": codes,
                       "http_version": 1.1, "domain_name": domain}),
            )
            .await;
        assert_eq!(chars_of(&env, "health_monitor", "url_path", &hm).await, 255);
        assert_eq!(
            chars_of(&env, "health_monitor", "expected_codes", &hm).await,
            63
        );
        assert_eq!(
            chars_of(&env, "health_monitor", "domain_name", &hm).await,
            253
        );
        env.set_active(&[("load_balancer", &lb), ("pool", &p)])
            .await;
        let address = "0000:0000:0000:0000:0000:ffff:255.255.255.255";
        let m = env
            .create(
                &format!("/v2/lbaas/pools/{p}/members"),
                "member",
                json!({"address": address, "protocol_port": 65535, "weight": 256,
                       "monitor_port": 65535, "name": wide(255)}),
            )
            .await;
        assert_eq!(chars_of(&env, "member", "ip_address", &m).await, 45);
        env.set_active(&[("load_balancer", &lb), ("pool", &p)])
            .await;
        let url = format!("http://a/{}", "r".repeat(246));
        let pol = env
            .create(
                "/v2/lbaas/l7policies",
                "l7policy",
                json!({"listener_id": l, "action": "REDIRECT_TO_URL", "redirect_url": url,
                       "position": i32::MAX, "name": wide(255), "description": wide(255)}),
            )
            .await;
        assert_eq!(chars_of(&env, "l7policy", "redirect_url", &pol).await, 255);
        env.set_active(&[("load_balancer", &lb), ("listener", &l), ("l7policy", &pol)])
            .await;
        let rule = env
            .create(
                &format!("/v2/lbaas/l7policies/{pol}/rules"),
                "rule",
                json!({"type": "HEADER", "compare_type": "EQUAL_TO", "key": "k".repeat(255),
                       "value": "v".repeat(255)}),
            )
            .await;
        assert_eq!(chars_of(&env, "l7rule", "key", &rule).await, 255);
        let (s, b) = env
            .req(
                "PUT",
                &format!("/v2/lbaas/quotas/{}", common::PROJECT),
                Some(
                    json!({"quota": {"load_balancer": 2_000_000_000, "listener": 2_000_000_000,
                    "member": 2_000_000_000, "pool": 2_000_000_000, "health_monitor": 2_000_000_000,
                    "l7policy": 2_000_000_000, "l7rule": 2_000_000_000}}),
                ),
            )
            .await;
        assert_eq!(s, StatusCode::ACCEPTED, "{b}");
    });
}

/// The 400 of a value beyond its column, naming the field with WSME's text.
fn assert_refused(s: StatusCode, b: &Value, field: &str, reason: &str) {
    assert_eq!(s, StatusCode::BAD_REQUEST, "{field}: {b}");
    let fault = b["faultstring"].as_str().unwrap_or_default();
    assert!(
        fault.starts_with(&format!(
            "Invalid input for field/attribute {field}. Value: "
        )) && fault.ends_with(reason),
        "{field}: {fault}"
    );
}

#[tokio::test]
async fn values_beyond_a_column_are_refused() {
    let many = vec!["TLSv1.2"; 10_000];
    let max512 = "Value should have a maximum character requirement of 512";
    each_backend!(common::Setup::accept_all(), |env| {
        let lb = env.active_lb("lb").await;
        let listener = |extra: Value| {
            let mut v = json!({"loadbalancer_id": lb, "protocol": "HTTP", "protocol_port": 81});
            for (k, x) in extra.as_object().unwrap() {
                v[k] = x.clone();
            }
            Some(json!({ "listener": v }))
        };
        let before = (
            env.count("listener").await,
            env.count("load_balancer").await,
        );
        for (field, value, reason) in [
            ("tls_versions", json!(many), max512),
            ("alpn_protocols", json!(vec!["h2"; 200]), max512),
            (
                "sni_container_refs",
                json!(["r".repeat(129)]),
                "Value should have a maximum character requirement of 128",
            ),
        ] {
            let (s, b) = env
                .req(
                    "POST",
                    "/v2/lbaas/listeners",
                    listener(json!({ field: value })),
                )
                .await;
            assert_refused(s, &b, field, reason);
        }
        // the same inside a single-call graph create
        let (s, b) = env
            .req(
                "POST",
                "/v2/lbaas/loadbalancers",
                Some(
                    json!({"loadbalancer": {"vip_subnet_id": common::SUBNET, "listeners": [
                    {"protocol": "HTTP", "protocol_port": 80, "tls_versions": many}]}}),
                ),
            )
            .await;
        assert_refused(s, &b, "tls_versions", max512);
        let (s, b) = env
            .req(
                "POST",
                "/v2/lbaas/loadbalancers",
                Some(
                    json!({"loadbalancer": {"vip_subnet_id": common::SUBNET, "listeners": [
                    {"protocol": "TERMINATED_HTTPS", "protocol_port": 443,
                     "hsts_max_age": -(1i64 << 40)}]}}),
                ),
            )
            .await;
        assert_refused(
            s,
            &b,
            "hsts_max_age",
            "Value should be greater or equal to -2147483648",
        );
        assert_eq!(
            (
                env.count("listener").await,
                env.count("load_balancer").await
            ),
            before
        );
        let (_, l, p) = env.lb_listener_pool("HTTP").await;
        let (s, b) = env
            .req(
                "PUT",
                &format!("/v2/lbaas/listeners/{l}"),
                Some(json!({"listener": {"tls_versions": many}})),
            )
            .await;
        assert_refused(s, &b, "tls_versions", max512);
        for (field, value, reason) in [
            ("tls_versions", json!(many), max512),
            (
                "session_persistence",
                json!({"type": "SOURCE_IP", "persistence_timeout": -(1i64 << 40)}),
                "Value should be greater or equal to -2147483648",
            ),
        ] {
            let (s, b) = env
                .req(
                    "PUT",
                    &format!("/v2/lbaas/pools/{p}"),
                    Some(json!({"pool": { field: value }})),
                )
                .await;
            let shown = if field == "session_persistence" {
                "persistence_timeout"
            } else {
                field
            };
            assert_refused(s, &b, shown, reason);
        }
        let (s, b) = env
            .req(
                "POST",
                "/v2/lbaas/pools",
                Some(
                    json!({"pool": {"loadbalancer_id": env.active_lb("lb2").await,
                    "protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN", "tls_versions": many}}),
                ),
            )
            .await;
        assert_refused(s, &b, "tls_versions", max512);
        let hm = env
            .create(
                "/v2/lbaas/healthmonitors",
                "healthmonitor",
                json!({"pool_id": p, "type": "HTTP", "delay": 5, "timeout": 3, "max_retries": 3}),
            )
            .await;
        for (field, value, reason) in [
            (
                "http_version",
                json!(1e308),
                "Value should be one of: 1.0, 1.1",
            ),
            (
                "http_version",
                json!(2.5),
                "Value should be one of: 1.0, 1.1",
            ),
            (
                "expected_codes",
                json!(format!("200{}", ",200".repeat(16))),
                "Value should have a maximum character requirement of 64",
            ),
            (
                "url_path",
                json!(format!("/{}", "u".repeat(255))),
                "Value should have a maximum character requirement of 255",
            ),
        ] {
            let (s, b) = env
                .req(
                    "PUT",
                    &format!("/v2/lbaas/healthmonitors/{hm}"),
                    Some(json!({"healthmonitor": { field: value }})),
                )
                .await;
            assert_refused(s, &b, field, reason);
        }
        let (s, b) = env
            .req(
                "POST",
                "/v2/lbaas/l7policies",
                Some(
                    json!({"l7policy": {"listener_id": l, "action": "REDIRECT_TO_URL",
                    "redirect_url": format!("http://a/{}", "r".repeat(247))}}),
                ),
            )
            .await;
        assert_refused(
            s,
            &b,
            "redirect_url",
            "Value should have a maximum character requirement of 255",
        );
        let (s, b) = env
            .req(
                "POST",
                "/v2/lbaas/l7policies",
                Some(json!({"l7policy": {"listener_id": l, "action": "REJECT",
                    "redirect_http_code": 1i64 << 40}})),
            )
            .await;
        assert_refused(
            s,
            &b,
            "redirect_http_code",
            "Value should be lower or equal to 2147483647",
        );
    });
}
