//! The fake provider driver: one [`Recorder`] type standing for every provider a test
//! registers. It implements only the operations it is told to ([`Recorder::new`]'s `ops`;
//! the others keep the `ProviderDriver` trait defaults, i.e. NotImplemented, as
//! ovn-octavia-provider inherits octavia-lib's `NotImplementedError`s), records every call it
//! implements with its model as JSON, and can be told to refuse every call
//! ([`Recorder::refusing`], "fake refuses") or to fail `loadbalancer_create` with a driver
//! error ([`Recorder::fail_lb_create`]). Nothing is started; nothing to clean up.

use std::future::Future;
use std::sync::Mutex;

use async_trait::async_trait;
use provider::{
    AdditionalVip, HealthMonitor, L7Policy, L7Rule, Listener, LoadBalancer, Member, Pool,
    ProviderDriver, ProviderError, Vip,
};
use serde::Serialize;
use serde_json::{Value, json};

type Res = Result<(), ProviderError>;

/// Creates and deletes of LB, listener, pool, member, health monitor, except the listener
/// delete (the L7/flavor tests' `ovn`).
pub const CREATE_DELETE: &[&str] = &[
    "loadbalancer_create",
    "loadbalancer_delete",
    "listener_create",
    "pool_create",
    "pool_delete",
    "member_create",
    "member_delete",
    "health_monitor_create",
    "health_monitor_delete",
];

/// With [`CREATE_DELETE`]: all create/update/delete of those objects and the member batch
/// update (the noauth tests' `fake` / `nope`).
pub const REST_OF_CRUD: &[&str] = &[
    "loadbalancer_update",
    "listener_update",
    "listener_delete",
    "pool_update",
    "member_update",
    "member_batch_update",
    "health_monitor_update",
];

/// Create/update/delete of L7 policies and rules.
pub const L7: &[&str] = &[
    "l7policy_create",
    "l7policy_update",
    "l7policy_delete",
    "l7rule_create",
    "l7rule_update",
    "l7rule_delete",
];

/// The flavor / availability zone metadata calls.
pub const METADATA: &[&str] = &[
    "get_supported_flavor_metadata",
    "validate_flavor",
    "get_supported_availability_zone_metadata",
    "validate_availability_zone",
];

/// What a graph create needs: every create, the LB delete and the member batch update (the
/// policy / outage / graph-create tests' `ovn`).
pub const GRAPH: &[&str] = &[
    "loadbalancer_create",
    "loadbalancer_delete",
    "listener_create",
    "pool_create",
    "member_create",
    "member_batch_update",
    "health_monitor_create",
    "l7policy_create",
    "l7rule_create",
];

/// Every operation (the OpenAPI tests' `yes`).
pub const ALL: &[&[&str]] = &[
    CREATE_DELETE,
    REST_OF_CRUD,
    L7,
    METADATA,
    &["loadbalancer_failover"],
];

/// A driver implementing nothing but its name: its methods are the trait defaults.
struct Defaults;

impl ProviderDriver for Defaults {
    fn name(&self) -> &str {
        "defaults"
    }
}

/// A fake provider driver; see the module doc.
pub struct Recorder {
    name: &'static str,
    /// The operations implemented; the others are the trait defaults.
    ops: Vec<&'static str>,
    /// Record `create_vip_port` too (the noauth tests count it).
    record_vip_port: bool,
    /// Every implemented create/update/delete is recorded, then refused ("fake refuses").
    refuse: bool,
    /// `get_supported_*_metadata` answers; validation accepts exactly these keys.
    flavor_metadata: Value,
    az_metadata: Value,
    calls: Mutex<Vec<(String, Value)>>,
    fail_lb_create: Mutex<Option<String>>,
}

impl Recorder {
    /// A driver named `name` implementing the operations of `ops` (the constants above);
    /// metadata as a full-featured provider documents it (`loadbalancer_topology`,
    /// `compute_flavor`; `compute_zone`).
    pub fn new(name: &'static str, ops: &[&[&'static str]]) -> Self {
        Self {
            name,
            ops: ops.concat(),
            record_vip_port: false,
            refuse: false,
            flavor_metadata: json!({
                "loadbalancer_topology": "The load balancer topology.",
                "compute_flavor": "The compute driver flavor ID.",
            }),
            az_metadata: json!({"compute_zone": "The compute availability zone."}),
            calls: Mutex::new(vec![]),
            fail_lb_create: Mutex::new(None),
        }
    }

    /// Also record `create_vip_port` calls.
    pub fn recording_vip_ports(mut self) -> Self {
        self.record_vip_port = true;
        self
    }

    /// Refuse every implemented create/update/delete with `unsupported("fake refuses")`.
    pub fn refusing(mut self) -> Self {
        self.refuse = true;
        self
    }

    /// Answer this for `get_supported_flavor_metadata` (and accept only its keys).
    pub fn flavor_metadata(mut self, m: Value) -> Self {
        self.flavor_metadata = m;
        self
    }

    /// From now on `loadbalancer_create` fails with `ProviderError::driver(why)`, unrecorded
    /// (the API must roll back).
    pub fn fail_lb_create(&self, why: &str) {
        *self.fail_lb_create.lock().unwrap() = Some(why.to_string());
    }

    /// Append a call by name (for fakes of other seams that log into this list).
    pub fn note(&self, what: String) {
        self.calls.lock().unwrap().push((what, Value::Null));
    }

    /// Forget the calls so far.
    pub fn clear(&self) {
        self.calls.lock().unwrap().clear();
    }

    /// The names of the calls so far, in order.
    pub fn names(&self) -> Vec<String> {
        self.calls
            .lock()
            .unwrap()
            .iter()
            .map(|c| c.0.clone())
            .collect()
    }

    /// The model of the last call named `what` (for an update: the new model; for
    /// `pool_update`: `{"old", "new"}`).
    pub fn last(&self, what: &str) -> Option<Value> {
        self.calls
            .lock()
            .unwrap()
            .iter()
            .rev()
            .find(|c| c.0 == what)
            .map(|c| c.1.clone())
    }

    fn rec(&self, what: &str, arg: Value) {
        self.calls.lock().unwrap().push((what.to_string(), arg));
    }

    /// `what` implemented: record `arg`, then refuse if told to; otherwise the trait default.
    async fn op(
        &self,
        what: &str,
        arg: &impl Serialize,
        default: impl Future<Output = Res>,
    ) -> Res {
        if !self.ops.contains(&what) {
            return default.await;
        }
        self.rec(what, serde_json::to_value(arg).unwrap());
        if self.refuse {
            return Err(ProviderError::unsupported("fake refuses"));
        }
        Ok(())
    }

    /// `what` implemented: answer `metadata`; otherwise the trait default.
    async fn supported(
        &self,
        what: &str,
        metadata: &Value,
        default: impl Future<Output = Result<Value, ProviderError>>,
    ) -> Result<Value, ProviderError> {
        if !self.ops.contains(&what) {
            return default.await;
        }
        Ok(metadata.clone())
    }

    /// `what` implemented: record `m`, accept it when its keys are all keys of `supported`,
    /// else refuse with `err`; otherwise the trait default.
    async fn validate(
        &self,
        what: &str,
        m: &Value,
        supported: &Value,
        err: &str,
        default: impl Future<Output = Res>,
    ) -> Res {
        if !self.ops.contains(&what) {
            return default.await;
        }
        self.rec(what, m.clone());
        match (m.as_object(), supported.as_object()) {
            (Some(o), Some(s)) if o.keys().all(|k| s.contains_key(k)) => Ok(()),
            _ => Err(ProviderError::unsupported(err)),
        }
    }
}

/// The `ProviderDriver` impl: the fixed methods, then one recorded method per
/// `name(args) => recorded model;` line (`self.op` with the trait default as fallback).
macro_rules! recorder_impl {
    ($($op:ident($($a:ident: $t:ty),*) => $rec:expr;)*) => {
        #[async_trait]
        impl ProviderDriver for Recorder {
            fn name(&self) -> &str {
                self.name
            }
            async fn create_vip_port(
                &self,
                _lb: &str,
                _p: &str,
                vip: Vip,
                add: Vec<AdditionalVip>,
            ) -> Result<(Vip, Vec<AdditionalVip>), ProviderError> {
                if self.record_vip_port {
                    self.rec("create_vip_port", Value::Null);
                }
                let mut v = vip;
                v.vip_port_id = Some(uuid::Uuid::new_v4().to_string());
                v.vip_address.get_or_insert_with(|| "10.0.0.10".into());
                Ok((v, add))
            }
            async fn delete_vip_ports(&self, _lb: &str, ports: Vec<String>) -> Res {
                if self.record_vip_port {
                    self.rec("delete_vip_ports", serde_json::json!(ports));
                }
                Ok(())
            }
            async fn loadbalancer_create(&self, lb: LoadBalancer) -> Res {
                if let Some(why) = self.fail_lb_create.lock().unwrap().clone() {
                    return Err(ProviderError::driver(why));
                }
                let arg = serde_json::to_value(&lb).unwrap();
                self.op(
                    "loadbalancer_create",
                    &arg,
                    Defaults.loadbalancer_create(lb),
                )
                .await
            }
            async fn get_supported_flavor_metadata(&self) -> Result<Value, ProviderError> {
                let d = Defaults.get_supported_flavor_metadata();
                self.supported("get_supported_flavor_metadata", &self.flavor_metadata, d)
                    .await
            }
            async fn validate_flavor(&self, m: &Value) -> Res {
                let err = "Unknown flavor metadata key.";
                let d = Defaults.validate_flavor(m);
                self.validate("validate_flavor", m, &self.flavor_metadata, err, d)
                    .await
            }
            async fn get_supported_availability_zone_metadata(
                &self,
            ) -> Result<Value, ProviderError> {
                let d = Defaults.get_supported_availability_zone_metadata();
                self.supported("get_supported_availability_zone_metadata", &self.az_metadata, d)
                    .await
            }
            async fn validate_availability_zone(&self, m: &Value) -> Res {
                let err = "Unknown availability zone metadata key.";
                let d = Defaults.validate_availability_zone(m);
                self.validate("validate_availability_zone", m, &self.az_metadata, err, d)
                    .await
            }
            $(
                async fn $op(&self, $($a: $t),*) -> Res {
                    let arg = serde_json::to_value(&$rec).unwrap();
                    self.op(stringify!($op), &arg, Defaults.$op($($a),*)).await
                }
            )*
        }
    };
}

recorder_impl! {
    loadbalancer_update(o: LoadBalancer, n: LoadBalancer) => n;
    loadbalancer_delete(lb: LoadBalancer, c: bool) => lb;
    loadbalancer_failover(id: &str) => id;
    listener_create(l: Listener) => l;
    listener_update(o: Listener, n: Listener) => n;
    listener_delete(l: Listener) => l;
    pool_create(p: Pool) => p;
    pool_update(o: Pool, n: Pool) => serde_json::json!({"old": &o, "new": &n});
    pool_delete(p: Pool) => p;
    member_create(m: Member) => m;
    member_update(o: Member, n: Member) => n;
    member_delete(m: Member) => m;
    member_batch_update(pool_id: &str, members: Vec<Member>) => members;
    health_monitor_create(h: HealthMonitor) => h;
    health_monitor_update(o: HealthMonitor, n: HealthMonitor) => n;
    health_monitor_delete(h: HealthMonitor) => h;
    l7policy_create(p: L7Policy) => p;
    l7policy_update(o: L7Policy, n: L7Policy) => n;
    l7policy_delete(p: L7Policy) => p;
    l7rule_create(r: L7Rule) => r;
    l7rule_update(o: L7Rule, n: L7Rule) => n;
    l7rule_delete(r: L7Rule) => r;
}
