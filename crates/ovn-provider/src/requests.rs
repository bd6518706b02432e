//! Provider models (octavia-lib's, [`provider`]) → planner requests ([`ListenerReq`],
//! [`PoolReq`], [`MemberReq`], [`HmReq`]), for the driver's calls and for `ovn-db-sync`.
//! Seed 000 §1 "unset means default": an absent or `null` optional field is its documented
//! default (`admin_state_up` true, `max_retries_down` 3 on create, an all-null
//! `session_persistence` none, …).

use std::net::IpAddr;

use provider::{HealthMonitor, Listener, LoadBalancer, Member, Pool};
use serde_json::Value;

use crate::external_ids::MemberEntry;
use crate::hm::{self, HmReq};
use crate::listener::ListenerReq;
use crate::member::MemberReq;
use crate::pool::PoolReq;
use crate::validate;

/// The listener request of `l`; on update (`old` given) protocol, port and LB come from
/// `old` (an update carries only what changed).
pub fn listener_req(l: &Listener, old: Option<&Listener>) -> ListenerReq {
    let src = old.unwrap_or(l);
    ListenerReq {
        id: l.listener_id.clone(),
        lb_id: src.loadbalancer_id.clone().unwrap_or_default(),
        protocol: src.protocol.clone().unwrap_or_default(),
        port: src.protocol_port.unwrap_or(0),
        default_pool_id: l.default_pool_id.clone().flatten(),
        enabled: l.admin_state_up.unwrap_or(true),
        // on create an empty list is no list; on update it clears the list
        allowed_cidrs: l
            .allowed_cidrs
            .clone()
            .filter(|c| old.is_some() || !c.is_empty()),
        previous_cidrs: old
            .and_then(|o| o.allowed_cidrs.clone())
            .unwrap_or_default(),
    }
}

/// The pool request of `p`; on update (`old` given) protocol, algorithm, listener and LB come
/// from `old`; an update's explicit `session_persistence: null` clears it.
pub fn pool_req(p: &Pool, old: Option<&Pool>) -> PoolReq {
    let src = old.unwrap_or(p);
    PoolReq {
        id: p.pool_id.clone(),
        lb_id: src.loadbalancer_id.clone().unwrap_or_default(),
        protocol: src.protocol.clone().unwrap_or_default(),
        algorithm: src.lb_algorithm.clone(),
        listener_id: src.listener_id.clone(),
        enabled: p.admin_state_up.unwrap_or(true),
        session_persistence: validate::session_persistence_set(p.session_persistence.as_ref())
            .map(|o| Value::Object(o.clone())),
        // an update's explicit null (what the API sends for `session_persistence: null`)
        // clears it; absent (None) leaves it unchanged
        clear_persistence: old.is_some() && matches!(p.session_persistence, Some(Value::Null)),
    }
}

/// The HM request; on create (`old` = None) an unset/null `max_retries_down` is Octavia's
/// default 3, on update unset/null means "unchanged".
pub fn hm_req(hm: &HealthMonitor, old: Option<&HealthMonitor>) -> HmReq {
    let failure_count = match old {
        None => Some(hm.max_retries_down.unwrap_or(hm::DEFAULT_FAILURE_COUNT)),
        Some(_) => hm.max_retries_down,
    };
    HmReq {
        id: hm.healthmonitor_id.clone(),
        pool_id: old
            .and_then(|o| o.pool_id.clone())
            .or_else(|| hm.pool_id.clone())
            .unwrap_or_default(),
        interval: hm.delay,
        timeout: hm.timeout,
        success_count: hm.max_retries,
        failure_count,
        // unset on update = unchanged (the reference takes True, which reports a disabled
        // monitor ONLINE after a PUT of its delay and would turn its checks back on)
        enabled: hm
            .admin_state_up
            .or(old.and_then(|o| o.admin_state_up))
            .unwrap_or(true),
    }
}

/// The create request of the monitor an update leaves: `old` with the fields `new` sets, for
/// an update that turns a disabled monitor on again (its health checks are made anew, as by
/// `hm_create`).
pub fn hm_full_req(old: &HealthMonitor, new: &HealthMonitor) -> HmReq {
    let merged = HealthMonitor {
        pool_id: old.pool_id.clone().or_else(|| new.pool_id.clone()),
        admin_state_up: new.admin_state_up.or(old.admin_state_up),
        delay: new.delay.or(old.delay),
        timeout: new.timeout.or(old.timeout),
        max_retries: new.max_retries.or(old.max_retries),
        max_retries_down: new.max_retries_down.or(old.max_retries_down),
        ..new.clone()
    };
    hm_req(&merged, None)
}

/// The member request of `m` in pool `pool_id`, its subnet `subnet_id` decided by the caller
/// (its own, the NB entry's or the VIP subnet); `None` without a valid address.
pub fn member_req(m: &Member, pool_id: &str, subnet_id: String) -> Option<MemberReq> {
    Some(MemberReq {
        id: m.member_id.clone(),
        pool_id: pool_id.to_string(),
        address: m.address.as_deref()?.parse::<IpAddr>().ok()?,
        port: m.protocol_port.unwrap_or(0),
        subnet: given_subnet(m, &subnet_id),
        subnet_id,
        enabled: m.admin_state_up.unwrap_or(true),
    })
}

/// The subnet the request carries for `m` ([`provider::Member::subnet`]) when it is the
/// one the member's entry names (`subnet_id`).
pub(crate) fn given_subnet(m: &Member, subnet_id: &str) -> Option<provider::Subnet> {
    m.subnet.clone().filter(|s| s.id == subnet_id)
}

/// The member's own subnet, when set and not empty.
pub fn own_subnet(m: &Member) -> Option<String> {
    m.subnet_id.clone().filter(|s| !s.is_empty())
}

/// The members of a graph create's pool `p`: subnet their own, else the LB's VIP subnet
/// (`vip_subnet`); members without a valid address are left out.
pub fn graph_members(p: &Pool, vip_subnet: Option<&str>) -> Vec<MemberReq> {
    p.members
        .iter()
        .flatten()
        .filter_map(|m| {
            let subnet = own_subnet(m)
                .or_else(|| vip_subnet.map(String::from))
                .unwrap_or_default();
            member_req(m, &p.pool_id, subnet)
        })
        .collect()
}

/// Seed 000: "an optional field that arrives as null means its documented default, exactly
/// as if it were absent". Every optional field of the provider models the driver reads is
/// checked three ways: absent, `null`, and (where one is documented) the default written out;
/// the request the driver builds must be the same, on create and on update.
/// Subnet of a member: its own, else the one already in the NB entry, else the VIP subnet
/// (as the reference's `do_sync`); `ovn-db-sync`'s rule.
pub(crate) fn member_subnet(
    lb: &LoadBalancer,
    m: &provider::Member,
    old: Option<&MemberEntry>,
) -> Option<String> {
    own_subnet(m)
        .or_else(|| old.map(|e| e.subnet_id.clone()).filter(|s| !s.is_empty()))
        .or_else(|| lb.vip_subnet_id.clone().filter(|s| !s.is_empty()))
}

#[cfg(test)]
mod null_means_default {
    use super::*;
    use crate::nb::NbSnapshot;
    use crate::{lb, pool};
    use serde_json::json;

    fn model<T: serde::de::DeserializeOwned>(v: Value) -> T {
        serde_json::from_value(v).unwrap()
    }

    fn with(base: &Value, field: &str, v: Value) -> Value {
        let mut o = base.clone();
        o[field] = v;
        o
    }

    /// `(field, documented default or None when absent is the default)`.
    type Row = (&'static str, Option<Value>);

    /// Checks `build(absent) == build(null) == build(default)` for each row.
    fn check<T: serde::de::DeserializeOwned>(
        what: &str,
        base: &Value,
        rows: &[Row],
        build: &dyn Fn(&T) -> String,
    ) {
        for (field, default) in rows {
            let mut absent = base.clone();
            absent.as_object_mut().unwrap().remove(*field);
            let want = build(&model(absent));
            let null = build(&model(with(base, field, Value::Null)));
            assert_eq!(null, want, "{what}.{field}: null differs from absent");
            if let Some(d) = default {
                let explicit = build(&model(with(base, field, d.clone())));
                assert_eq!(
                    explicit, want,
                    "{what}.{field}: default {d} differs from absent"
                );
            }
        }
    }

    #[test]
    fn listener_fields() {
        let base = json!({"listener_id": "L", "loadbalancer_id": "LB", "protocol": "TCP",
            "protocol_port": 80, "admin_state_up": false, "default_pool_id": "P",
            "allowed_cidrs": ["10.0.0.0/8"], "connection_limit": 5, "name": "n",
            "description": "d", "timeout_client_data": 1000, "insert_headers": {},
            "l7policies": [], "tls_versions": [], "sni_container_refs": []});
        let rows: Vec<Row> = vec![
            ("admin_state_up", Some(json!(true))),
            ("default_pool_id", None),
            ("allowed_cidrs", Some(json!([]))),
            ("connection_limit", None),
            ("name", None),
            ("description", None),
            ("timeout_client_data", None),
            ("insert_headers", None),
            ("l7policies", None),
            ("tls_versions", None),
            ("sni_container_refs", None),
        ];
        let old: Listener = model(base.clone());
        let create = |l: &Listener| {
            format!(
                "{:?} {:?}",
                listener_req(l, None),
                validate::listener_create(l).map_err(|e| e.to_string())
            )
        };
        let update = |l: &Listener| {
            format!(
                "{:?} {:?} {:?} {:?}",
                listener_req(l, Some(&old)),
                l.admin_state_up,
                l.default_pool_id,
                validate::listener_update(l).map_err(|e| e.to_string())
            )
        };
        check("listener create", &base, &rows, &create);
        // an update carries only the changed fields: null = unset = unchanged…
        let upd = json!({"listener_id": "L", "admin_state_up": false, "default_pool_id": "P2",
            "allowed_cidrs": [], "connection_limit": 7});
        let urows: Vec<Row> = vec![
            ("admin_state_up", None),
            ("allowed_cidrs", None),
            ("connection_limit", None),
        ];
        check("listener update", &upd, &urows, &update);
        // …but an update's empty list clears the list (the API sends it for `[]` and `null`)
        let cleared = listener_req(&model(upd.clone()), Some(&old));
        assert_eq!(cleared.allowed_cidrs, Some(vec![]));
        // …except `default_pool_id`, whose null is the API's "remove the default pool"
        // (octavia-lib None, not Unset): the request carries Some(None).
        let null: Listener = model(json!({"listener_id": "L", "default_pool_id": null}));
        let absent: Listener = model(json!({"listener_id": "L"}));
        assert_eq!(null.default_pool_id, Some(None));
        assert_eq!(absent.default_pool_id, None);
    }

    #[test]
    fn pool_fields() {
        let base = json!({"pool_id": "P", "loadbalancer_id": "LB", "listener_id": "L",
            "protocol": "TCP", "lb_algorithm": "SOURCE_IP", "admin_state_up": false,
            "session_persistence": {"type": "SOURCE_IP", "persistence_timeout": 60},
            "healthmonitor": {"healthmonitor_id": "H", "type": "TCP", "delay": 5,
                "timeout": 3, "max_retries": 2},
            "members": [], "name": "n", "tls_enabled": false});
        let rows: Vec<Row> = vec![
            ("admin_state_up", Some(json!(true))),
            ("listener_id", None),
            ("session_persistence", Some(json!({}))),
            ("healthmonitor", None),
            ("members", None),
            ("name", None),
            ("tls_enabled", None),
        ];
        let old: Pool = model(base.clone());
        let build = |p: &Pool| {
            let req = pool_req(p, None);
            format!(
                "{req:?} {:?} {:?} {:?} {:?}",
                pool::affinity_timeout(req.session_persistence.as_ref()),
                lb::selection_fields(req.algorithm.as_deref()),
                p.healthmonitor.as_ref().map(|h| hm_req(h, None)),
                validate::pool_create(p, true).map_err(|e| e.to_string())
            )
        };
        check("pool create", &base, &rows, &build);
        // inside session_persistence: a null timeout is 360, an all-null object is none
        let sp = |v: Value| -> String {
            let p: Pool = model(with(&base, "session_persistence", v));
            let req = pool_req(&p, None);
            format!(
                "{:?} {:?} {:?}",
                req.session_persistence.is_some(),
                pool::affinity_timeout(req.session_persistence.as_ref()),
                validate::pool_create(&p, true).map_err(|e| e.to_string())
            )
        };
        assert_eq!(
            sp(json!({"type": "SOURCE_IP", "persistence_timeout": null, "cookie_name": null})),
            sp(json!({"type": "SOURCE_IP", "persistence_timeout": 360}))
        );
        assert_eq!(
            sp(json!({"type": "SOURCE_IP", "persistence_timeout": null})),
            sp(json!({"type": "SOURCE_IP"}))
        );
        assert_eq!(
            sp(
                json!({"type": null, "persistence_timeout": null, "cookie_name": null,
                "persistence_granularity": null})
            ),
            sp(Value::Null)
        );
        assert_eq!(sp(json!({})), sp(Value::Null));
        // update: null = unset = unchanged (the old protocol/algorithm are used)
        let upd = json!({"pool_id": "P", "admin_state_up": true, "lb_algorithm": "SOURCE_IP",
            "session_persistence": {"type": "SOURCE_IP"}, "protocol": "TCP"});
        let urows: Vec<Row> = vec![
            ("admin_state_up", None),
            ("lb_algorithm", None),
            ("session_persistence", Some(json!({}))),
            ("protocol", None),
        ];
        let update = |p: &Pool| {
            let req = pool_req(p, Some(&old));
            format!(
                "{req:?} {:?} {:?} {:?}",
                p.admin_state_up,
                pool::affinity_timeout(req.session_persistence.as_ref()),
                validate::pool_update(p).map_err(|e| e.to_string())
            )
        };
        check("pool update", &upd, &urows, &update);
        // an unset algorithm selects the reference's `None` fields
        assert_eq!(
            lb::selection_fields(None),
            ["ip_src", "ip_dst", "tp_src", "tp_dst"]
        );
    }

    #[test]
    fn health_monitor_fields() {
        let base = json!({"healthmonitor_id": "H", "pool_id": "P", "type": "TCP",
            "delay": 5, "timeout": 3, "max_retries": 2, "max_retries_down": 4,
            "admin_state_up": false, "name": "n", "http_method": "GET",
            "url_path": "/", "expected_codes": "200", "http_version": 1.1,
            "domain_name": "x"});
        let rows: Vec<Row> = vec![
            ("admin_state_up", Some(json!(true))),
            ("max_retries_down", Some(json!(3))),
            ("name", None),
            ("http_method", None),
            ("url_path", None),
            ("expected_codes", None),
            ("http_version", None),
            ("domain_name", None),
        ];
        let create = |h: &HealthMonitor| {
            let req = hm_req(h, None);
            format!(
                "{req:?} {:?} {:?}",
                req.options(),
                validate::health_monitor_create(h, true).map_err(|e| e.to_string())
            )
        };
        check("health monitor create", &base, &rows, &create);
        let old: HealthMonitor = model(base.clone());
        let upd = json!({"healthmonitor_id": "H", "delay": 9, "timeout": 8,
            "max_retries": 7, "max_retries_down": 6, "admin_state_up": true});
        // unset admin_state_up on update: the stored one (`old` is disabled)
        let urows: Vec<Row> = vec![
            ("delay", None),
            ("timeout", None),
            ("max_retries", None),
            ("max_retries_down", None),
            ("admin_state_up", Some(json!(false))),
        ];
        let update = |h: &HealthMonitor| {
            let req = hm_req(h, Some(&old));
            format!("{req:?} {:?}", req.update_options())
        };
        check("health monitor update", &upd, &urows, &update);
        // unset on update writes nothing (the row keeps its options)
        let h: HealthMonitor = model(json!({"healthmonitor_id": "H", "max_retries_down": null}));
        assert!(hm_req(&h, Some(&old)).update_options().is_empty());
        // delay 0: a create writes `interval: "0"` (the reference's `str(info['interval'])`),
        // an update leaves `interval` alone (its falsy test)
        let zero: HealthMonitor = model(json!({"healthmonitor_id": "H", "pool_id": "P",
            "delay": 0, "timeout": 3, "max_retries": 2, "max_retries_down": 4}));
        assert_eq!(
            hm_req(&zero, None)
                .options()
                .get("interval")
                .map(String::as_str),
            Some("0")
        );
        assert_eq!(
            hm_req(&zero, Some(&old)).update_options().get("interval"),
            None
        );
        // turning it on again: the whole monitor, old values where the update sets none
        let on: HealthMonitor = model(json!({"healthmonitor_id": "H", "admin_state_up": true,
            "delay": 9}));
        let full = hm_full_req(&old, &on);
        assert!(full.enabled && full.pool_id == "P");
        assert_eq!(
            full.options().into_iter().collect::<Vec<_>>(),
            [
                ("failure_count".to_string(), "4".to_string()),
                ("interval".into(), "9".into()),
                ("success_count".into(), "2".into()),
                ("timeout".into(), "3".into()),
            ]
        );
    }

    #[test]
    fn member_fields() {
        let base = json!({"member_id": "M", "pool_id": "P", "address": "10.0.0.7",
            "protocol_port": 80, "subnet_id": "S", "admin_state_up": false, "weight": 5,
            "backup": true, "monitor_address": "10.0.0.8", "monitor_port": 81,
            "name": "n", "vnic_type": "normal"});
        // the fields the driver reads synchronously (monitor options) and the request fields
        let build = |m: &Member| {
            format!(
                "{:?} {:?} {:?} {:?} {:?}",
                m.admin_state_up.unwrap_or(true),
                m.subnet_id.clone().filter(|s| !s.is_empty()),
                validate::member_monitor_options(m).map_err(|e| e.to_string()),
                validate::batch_member_monitor_options(m).map_err(|e| e.to_string()),
                (m.protocol_port, &m.address, &m.pool_id)
            )
        };
        let rows: Vec<Row> = vec![
            ("admin_state_up", Some(json!(true))),
            ("subnet_id", None),
            ("weight", None),
            ("backup", None),
            ("monitor_address", None),
            ("monitor_port", None),
            ("name", None),
            ("vnic_type", None),
        ];
        // monitor options are refused when set, so the base for them has none
        let mut no_mon = base.clone();
        no_mon["monitor_address"] = Value::Null;
        no_mon["monitor_port"] = Value::Null;
        check("member", &no_mon, &rows, &build);
        // a set monitor option is refused, a null one is not
        let m: Member = model(base.clone());
        assert!(validate::member_monitor_options(&m).is_err());
        assert!(validate::member_monitor_options(&model(no_mon)).is_ok());
    }

    #[test]
    fn load_balancer_fields() {
        let base = json!({"loadbalancer_id": "LB", "vip_address": "10.0.0.5",
            "vip_network_id": "N", "vip_port_id": "VP", "vip_subnet_id": "S",
            "admin_state_up": false, "additional_vips": [], "vip_qos_policy_id": "Q",
            "vip_sg_ids": [], "flavor": {}, "availability_zone": {}, "listeners": [],
            "pools": [], "name": "n", "description": "d", "project_id": "p"});
        let rows: Vec<Row> = vec![
            ("admin_state_up", Some(json!(true))),
            ("additional_vips", Some(json!([]))),
            ("vip_qos_policy_id", None),
            ("vip_sg_ids", None),
            ("flavor", None),
            ("availability_zone", None),
            ("listeners", Some(json!([]))),
            ("pools", Some(json!([]))),
            ("name", None),
            ("description", None),
        ];
        let build = |lb: &LoadBalancer| {
            format!(
                "{:?} {:?} {:?} {:?}",
                lb.admin_state_up.unwrap_or(true),
                lb::additional_port_ids(lb),
                lb.listeners.iter().flatten().count(),
                lb.pools.iter().flatten().count()
            )
        };
        check("load balancer", &base, &rows, &build);
        // update: only admin_state_up is used; null = unset = unchanged
        let snap = NbSnapshot::default();
        let upd = |v: Value| {
            let lb: LoadBalancer = model(v);
            let p = lb::update(&snap, "LB", lb.admin_state_up).unwrap();
            format!("{:?} {:?}", p.ops, p.report)
        };
        assert_eq!(
            upd(json!({"loadbalancer_id": "LB", "admin_state_up": null})),
            upd(json!({"loadbalancer_id": "LB"}))
        );
        // additional VIPs: an entry's null fields are as absent ones
        let av = |v: Value| {
            let lb: LoadBalancer = model(with(&base, "additional_vips", v));
            lb::additional_port_ids(&lb)
        };
        assert_eq!(
            av(
                json!([{"ip_address": "10.0.1.5", "port_id": "AP", "subnet_id": null,
                "network_id": null}])
            ),
            av(json!([{"ip_address": "10.0.1.5", "port_id": "AP"}]))
        );
    }
}
