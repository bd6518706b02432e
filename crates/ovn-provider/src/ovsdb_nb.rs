//! The driver's NB seam ([`NbDatabase`], [`NbError`]) and its implementation over Keel's own
//! OVSDB client ([`OvsdbNb`]): the process's one NB connection and replica.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::Value;
use tokio::sync::broadcast;

use crate::nb::{LoadBalancerRow, NbSnapshot, NotAUuid, Op, TABLES};
use crate::scope::Scope;

/// Errors talking to the NB. Every variant shows as `OVN NB: <its cause>` (the text logs,
/// fault bodies and `provisioning_status` reasons carry); [`NbError::retry`] and
/// [`NbError::maybe_committed`] say what a caller may do about it.
#[derive(Debug, Clone, thiserror::Error)]
pub enum NbError {
    /// Connecting to the NB failed ([`OvsdbNb::connect`]): permanent.
    #[error("OVN NB: {0}")]
    Connect(#[source] ovsdb::Error),
    /// An operation names a row uuid that is not a uuid: nothing was sent, permanent.
    #[error("OVN NB: {0}")]
    NotAUuid(#[source] NotAUuid),
    /// A `wait` guard failed (`"timed out"`): another writer changed the rows the plan read,
    /// nothing was written; a re-plan from a fresh snapshot may succeed.
    #[error("OVN NB: {0}")]
    Stale(#[source] ovsdb::Error),
    /// The connection dropped or the raft leader changed ([`ovsdb::Error::is_transient`])
    /// where the client knows the transaction did not commit: retryable once the client is
    /// back.
    #[error("OVN NB: {0}")]
    Unavailable(#[source] ovsdb::Error),
    /// The transaction may nevertheless have committed ([`ovsdb::Error::may_have_committed`]:
    /// the connection dropped with it in flight, the request timed out, the raft leader lost
    /// leadership): a re-plan from a fresh snapshot finds out, and its work may already be
    /// done.
    #[error("OVN NB: {0}")]
    OutcomeUnknown(#[source] ovsdb::Error),
    /// The server refused the transaction for good (a constraint or referential integrity
    /// violation, a syntax error, the client closed…): nothing was written, permanent.
    #[error("OVN NB: {0}")]
    Refused(#[source] ovsdb::Error),
}

impl NbError {
    /// Connecting failed with `e` (permanent): [`NbError::Connect`].
    pub fn connect(e: ovsdb::Error) -> Self {
        NbError::Connect(e)
    }

    /// The operations could not be made a transaction (permanent): [`NbError::NotAUuid`].
    pub fn not_a_uuid(e: NotAUuid) -> Self {
        NbError::NotAUuid(e)
    }

    /// Classifies the failure `e` of a transaction: [`NbError::OutcomeUnknown`] when it may
    /// have committed, [`NbError::Stale`] for a failed `wait` guard, [`NbError::Unavailable`]
    /// for another transient failure, [`NbError::Refused`] otherwise.
    pub fn transact(e: ovsdb::Error) -> Self {
        if e.may_have_committed() {
            NbError::OutcomeUnknown(e)
        } else if e
            .txn()
            .is_some_and(|t| t.kind == ovsdb::TxnErrorKind::TimedOut)
        {
            NbError::Stale(e)
        } else if e.is_transient() {
            NbError::Unavailable(e)
        } else {
            NbError::Refused(e)
        }
    }

    /// True when re-planning from a fresh snapshot may succeed: a `wait` guard saw a
    /// concurrent change, the connection or the raft leader changed, or the outcome is
    /// unknown ([`NbError::Stale`], [`NbError::Unavailable`], [`NbError::OutcomeUnknown`]).
    pub fn retry(&self) -> bool {
        matches!(
            self,
            NbError::Stale(_) | NbError::Unavailable(_) | NbError::OutcomeUnknown(_)
        )
    }

    /// True when the transaction may nevertheless have committed
    /// ([`NbError::OutcomeUnknown`]): a re-plan from a fresh snapshot finds out, and its work
    /// may already be done.
    pub fn maybe_committed(&self) -> bool {
        matches!(self, NbError::OutcomeUnknown(_))
    }
}

/// How long a failed transaction waits for the NB connection to be back and its replica
/// caught up before it returns (so the caller's re-plan reads what the server holds, the
/// in-flight transaction's effect included when it committed).
pub const RESYNC_BOUND: std::time::Duration = std::time::Duration::from_secs(30);

/// What the driver needs from the OVN NB: a snapshot of the replica, and transactions.
///
/// Implemented over the process's one long-lived `ovsdb` client ([`OvsdbNb`]); tests use
/// in-memory fakes.
#[async_trait]
pub trait NbDatabase: Send + Sync + 'static {
    /// A typed copy of the replica rows `scope` touches ([`crate::scope`]); an implementation
    /// may return more rows than asked for (a fake returns all it has).
    async fn snapshot(&self, scope: &Scope) -> Result<NbSnapshot, NbError>;
    /// Every row of [`crate::nb::TABLES`] (O(rows): `ovn-db-sync` and tests, never requests).
    async fn full_snapshot(&self) -> Result<NbSnapshot, NbError> {
        self.snapshot(&Scope::default()).await
    }
    /// Run `ops` as one transaction on `OVN_Northbound` (all or nothing); returns once it
    /// committed AND the replica shows it, so the next request reads its effects. A fake may
    /// apply the typed ops itself ([`crate::sim::apply`]).
    async fn transact(&self, ops: &[Op]) -> Result<(), NbError>;
    /// The connected `OVN_Northbound` schema version (`7.0.0`), what [`crate::flavor`]
    /// checks a flavor against; `None` when unknown (a fake NB: no check).
    fn schema_version(&self) -> Option<String> {
        None
    }
    /// Call `f` with every `Load_Balancer` row, decoded one at a time, so that a pass over
    /// every row (the maintenance tasks) does not hold a typed copy of the whole table.
    /// Default: from a full snapshot.
    async fn for_each_load_balancer(
        &self,
        f: &mut (dyn for<'r> FnMut(&'r LoadBalancerRow) + Send),
    ) -> Result<(), NbError> {
        let snap = self.full_snapshot().await?;
        for r in snap.load_balancers.values() {
            f(r);
        }
        Ok(())
    }
    /// Bring `snap`, a [`NbDatabase::full_snapshot`], up to date after a committed
    /// transaction that wrote `written`, so that a run of many transactions (`ovn-db-sync`)
    /// does not decode every row again after each. Default: read the full snapshot again.
    async fn refresh(&self, snap: &mut NbSnapshot, written: &Written) -> Result<(), NbError> {
        let _ = written;
        *snap = self.full_snapshot().await?;
        Ok(())
    }
}

/// The rows a committed transaction may have changed ([`NbDatabase::refresh`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Written {
    /// Existing rows it updated, mutated, deleted (table, uuid).
    pub rows: BTreeSet<(String, String)>,
    /// `Load_Balancer` names whose rows it may have inserted, changed or deleted (their
    /// health checks included).
    pub lb_names: BTreeSet<String>,
}

impl Written {
    /// What `ops` write, the rows named after `lb_names` included (inserted rows have no
    /// uuid until the commit).
    pub fn of(ops: &[Op], lb_names: impl IntoIterator<Item = String>) -> Self {
        let mut rows = BTreeSet::new();
        for op in ops {
            match op {
                Op::Update { table, uuid, .. }
                | Op::Mutate { table, uuid, .. }
                | Op::Delete { table, uuid } => {
                    rows.insert((table.to_string(), uuid.clone()));
                }
                Op::Insert { .. }
                | Op::WaitEq { .. }
                | Op::WaitAbsent { .. }
                | Op::UpdateWhereIncludes { .. }
                | Op::WhereIncludes { .. } => {}
            }
        }
        Self {
            rows,
            lb_names: lb_names.into_iter().collect(),
        }
    }
}

/// Re-read into `snap` from `src` the rows `written` names: each named row again (or removed
/// when gone), every row named after one of `written.lb_names` (old ones removed), and the
/// health checks the old and new rows reference.
pub fn refresh_from(snap: &mut NbSnapshot, src: &dyn crate::nb::RowSource, written: &Written) {
    const LB: &str = "Load_Balancer";
    const HC: &str = "Load_Balancer_Health_Check";
    let mut rows: BTreeSet<(String, String)> = written.rows.clone();
    for name in &written.lb_names {
        let old: Vec<String> = snap
            .lbs_named(name)
            .iter()
            .map(|r| r.uuid.clone())
            .collect();
        rows.extend(old.into_iter().map(|u| (LB.to_string(), u)));
        rows.extend(src.named(LB, name).into_iter().map(|u| (LB.to_string(), u)));
    }
    let mut hcs: BTreeSet<String> = BTreeSet::new();
    for (table, uuid) in &rows {
        if table == LB
            && let Some(r) = snap.load_balancers.get(uuid)
        {
            hcs.extend(r.health_check.iter().cloned());
        }
        snap.remove_row(table, uuid);
        if let Some(row) = src.row(table, uuid) {
            snap.insert_json(table, uuid, &row);
            if table == LB
                && let Some(r) = snap.load_balancers.get(uuid)
            {
                hcs.extend(r.health_check.iter().cloned());
            }
        }
    }
    for u in hcs {
        snap.remove_row(HC, &u);
        if let Some(row) = src.row(HC, &u) {
            snap.insert_json(HC, &u, &row);
        }
    }
}

/// The `OVN_Northbound` transaction [`OvsdbNb`] sends for `ops`: each [`Op::to_operation`],
/// in order (its JSON is made by the client, on the wire). `Err` names a row uuid that is not
/// a uuid (nothing is sent).
pub fn transaction(ops: &[Op]) -> Result<ovsdb::Transaction, NotAUuid> {
    ops.iter()
        .try_fold(ovsdb::Transaction::new("OVN_Northbound"), |t, op| {
            Ok(t.push(op.to_operation()?))
        })
}

/// The OVN NB through an [`ovsdb::Client`] (connected with [`monitor_spec`]).
#[derive(Clone)]
pub struct OvsdbNb {
    client: ovsdb::Client,
    pools: Arc<Mutex<PoolIndex>>,
}

impl std::fmt::Debug for OvsdbNb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OvsdbNb")
            .field("database", &self.client.database())
            .finish()
    }
}

/// The tables the driver reads: [`TABLES`] with all columns, `NB_Global`'s `options` (the
/// health probes' source MAC, given to the HM ports) and the `Port_Group` rows whose
/// `external_ids` carry Keel's `allowed_cidrs` owner key (the agent sees an anchor leave
/// them; Neutron's security-group groups are not followed); with the replica indexes of
/// `nb::indexes` (switch ports by router port and by address).
pub fn monitor_spec() -> ovsdb::MonitorSpec {
    crate::nb::indexes::with_indexes(
        TABLES
            .iter()
            .fold(ovsdb::MonitorSpec::new(), |m, t| m.table(t))
            .columns(crate::scope::NB_GLOBAL, &["options"])
            .condition("Port_Group", &[crate::cidrs::owned_rows()]),
    )
}

impl OvsdbNb {
    /// Wrap a connected client whose monitor includes [`monitor_spec`].
    pub fn new(client: ovsdb::Client) -> Self {
        let pools = PoolIndex {
            rx: client.subscribe(),
            map: HashMap::new(),
            built: false,
        };
        Self {
            client,
            pools: Arc::new(Mutex::new(pools)),
        }
    }

    /// Connect to `remote` (`tcp:IP:PORT`, `unix:PATH`) and monitor the driver's tables.
    pub async fn connect(remote: &str) -> Result<Self, NbError> {
        let client = ovsdb::Client::connect(remote, "OVN_Northbound", monitor_spec())
            .await
            .map_err(NbError::connect)?;
        Ok(Self::new(client))
    }

    /// The underlying client.
    pub fn client(&self) -> &ovsdb::Client {
        &self.client
    }

    /// Row uuids that held `pool_<id>[:D]` as of the last change seen (candidates: the caller
    /// verifies them against its replica snapshot).
    fn pool_candidates(&self, replica: &ovsdb::Snapshot, pool_id: &str) -> Vec<String> {
        let Ok(mut ix) = self.pools.lock() else {
            return Vec::new();
        };
        ix.catch_up(replica);
        ix.map
            .get(pool_id)
            .map(|s| s.iter().cloned().collect())
            .unwrap_or_default()
    }
}

/// pool id → `Load_Balancer` row uuids, kept from the replica's change events so that finding
/// the LB of a pool (every member and health-monitor call) costs O(1), not a scan
/// (`_find_ovn_lb_by_pool_id` scans every row).
struct PoolIndex {
    rx: broadcast::Receiver<ovsdb::Change>,
    map: HashMap<String, BTreeSet<String>>,
    built: bool,
}

fn pool_ids(row: &ovsdb::Row) -> Vec<String> {
    row.get_map("external_ids")
        .into_keys()
        .filter_map(|k| {
            let id = k.strip_prefix(crate::external_ids::POOL_PREFIX)?;
            Some(
                id.strip_suffix(crate::external_ids::DISABLED_SUFFIX)
                    .unwrap_or(id)
                    .to_string(),
            )
        })
        .collect()
}

impl PoolIndex {
    fn remove(&mut self, row: &ovsdb::Row) {
        let u = row.uuid().to_string();
        for p in pool_ids(row) {
            if let Some(set) = self.map.get_mut(&p) {
                set.remove(&u);
                if set.is_empty() {
                    self.map.remove(&p);
                }
            }
        }
    }

    fn add(&mut self, row: &ovsdb::Row) {
        for p in pool_ids(row) {
            self.map
                .entry(p)
                .or_default()
                .insert(row.uuid().to_string());
        }
    }

    fn rebuild(&mut self, replica: &ovsdb::Snapshot) {
        self.map.clear();
        if let Some(t) = replica.table("Load_Balancer") {
            for r in t.rows() {
                self.add(r);
            }
        }
        self.built = true;
    }

    /// Apply the changes seen since the last call (rebuild on first use or after lagging);
    /// changes already contained in a rebuild re-apply to the same end state.
    fn catch_up(&mut self, replica: &ovsdb::Snapshot) {
        if !self.built {
            self.rebuild(replica);
        }
        loop {
            match self.rx.try_recv() {
                Ok(ovsdb::Change::Insert { table, new }) if table == "Load_Balancer" => {
                    self.add(&new)
                }
                Ok(ovsdb::Change::Update { table, old, new }) if table == "Load_Balancer" => {
                    self.remove(&old);
                    self.add(&new);
                }
                Ok(ovsdb::Change::Delete { table, old }) if table == "Load_Balancer" => {
                    self.remove(&old)
                }
                Ok(_) => {}
                Err(broadcast::error::TryRecvError::Lagged(_)) => self.rebuild(replica),
                Err(_) => break,
            }
        }
    }
}

/// Copy the replica's driver tables into an [`NbSnapshot`] (every row: for tools and tests;
/// requests use [`crate::scope`]).
pub fn snapshot_of(replica: &ovsdb::Snapshot) -> NbSnapshot {
    let mut snap = NbSnapshot {
        health_check_supported: replica
            .schema()
            .table("Load_Balancer")
            .is_some_and(|t| t.columns.contains_key("health_check")),
        ..Default::default()
    };
    for table in TABLES {
        let Some(t) = replica.table(table) else {
            continue;
        };
        for row in t.rows() {
            let obj: serde_json::Map<String, Value> = row
                .columns()
                .iter()
                .map(|(k, v)| (k.clone(), v.to_json()))
                .collect();
            snap.insert_json(table, &row.uuid().to_string(), &Value::Object(obj));
        }
    }
    snap
}

#[async_trait]
impl NbDatabase for OvsdbNb {
    async fn snapshot(&self, scope: &Scope) -> Result<NbSnapshot, NbError> {
        let replica = self.client.replica();
        let index = |pool: &str| self.pool_candidates(&replica, pool);
        let src: Arc<dyn crate::scope::RowSource> = Arc::new(replica.clone());
        Ok(crate::scope::build(src, scope, &index))
    }

    async fn full_snapshot(&self) -> Result<NbSnapshot, NbError> {
        Ok(snapshot_of(&self.client.replica()))
    }

    fn schema_version(&self) -> Option<String> {
        Some(self.client.replica().schema().version.clone())
    }

    async fn refresh(&self, snap: &mut NbSnapshot, written: &Written) -> Result<(), NbError> {
        refresh_from(snap, &self.client.replica(), written);
        Ok(())
    }

    async fn for_each_load_balancer(
        &self,
        f: &mut (dyn for<'r> FnMut(&'r LoadBalancerRow) + Send),
    ) -> Result<(), NbError> {
        let replica = self.client.replica();
        let Some(t) = replica.table("Load_Balancer") else {
            return Ok(());
        };
        for row in t.rows() {
            let obj: serde_json::Map<String, Value> = row
                .columns()
                .iter()
                .map(|(k, v)| (k.clone(), v.to_json()))
                .collect();
            let lb = LoadBalancerRow::from_json(&row.uuid().to_string(), &Value::Object(obj));
            f(&lb);
        }
        Ok(())
    }

    async fn transact(&self, ops: &[Op]) -> Result<(), NbError> {
        let txn = transaction(ops).map_err(NbError::not_a_uuid)?;
        let started = std::time::Instant::now();
        let r = self.client.transact(txn).await;
        crate::metrics::NB_TXN_SECONDS.observe(started.elapsed().as_secs_f64());
        if r.is_err() {
            crate::metrics::NB_TXN_ERRORS.inc();
        }
        let Err(e) = r else { return Ok(()) };
        let connection = e.is_transient() || e.may_have_committed();
        if connection && !self.resync(RESYNC_BOUND).await {
            tracing::warn!(error = %e, "OVN NB not back within {RESYNC_BOUND:?}");
        }
        Err(NbError::transact(e))
    }
}

impl OvsdbNb {
    /// Waits (at most `bound`) until the client is connected again and its replica holds
    /// every transaction the server had committed (one `echo` answered on the new
    /// connection: ovsdb-server flushes monitor updates before a reply). True when it is.
    async fn resync(&self, bound: std::time::Duration) -> bool {
        let end = tokio::time::Instant::now() + bound;
        loop {
            let mut state = self.client.watch_state();
            let connected = async { state.wait_for(|s| s.connected).await.map(|_| ()) };
            if !matches!(tokio::time::timeout_at(end, connected).await, Ok(Ok(()))) {
                return false;
            }
            let echo = self.client.await_replica_caught_up();
            match tokio::time::timeout_at(end, echo).await {
                Ok(Ok(())) => return true,
                Err(_) => return false,
                // answered by the connection that just dropped, or dropped again: wait
                Ok(Err(_)) => {
                    let pause = tokio::time::Instant::now() + std::time::Duration::from_millis(100);
                    tokio::time::sleep_until(pause.min(end)).await;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nb::Datum;
    use crate::scope::tests::MemSource;
    use serde_json::json;

    fn txn_error(error: &str, details: Option<&str>, op_index: Option<usize>) -> ovsdb::Error {
        ovsdb::Error::Transaction(ovsdb::TxnError {
            kind: ovsdb::TxnErrorKind::from_error(error),
            error: error.into(),
            details: details.map(str::to_string),
            op_index,
        })
    }

    /// Per way of failing: the text logs, fault bodies and `provisioning_status` reasons
    /// carry, whether a re-plan may succeed, whether it may have committed.
    #[test]
    fn display_retry_and_maybe_committed_are_pinned() {
        let io = || std::sync::Arc::new(std::io::Error::other("broken pipe"));
        let bad: Result<uuid::Uuid, _> = "x-1".parse();
        let not_a_uuid = NotAUuid {
            uuid: "x-1".into(),
            source: bad.err().unwrap(),
        };
        let cases: Vec<(NbError, &str, bool, bool)> = vec![
            (
                NbError::connect(ovsdb::Error::InvalidRemote("foo".into())),
                r#"OVN NB: invalid OVSDB remote "foo": expected tcp:IP:PORT, ssl:IP:PORT or unix:PATH"#,
                false,
                false,
            ),
            (
                NbError::connect(ovsdb::Error::Connect {
                    remote: "tcp:127.0.0.1:1".into(),
                    source: std::sync::Arc::new(std::io::Error::other("refused")),
                }),
                "OVN NB: connecting to tcp:127.0.0.1:1 failed: refused",
                false,
                false,
            ),
            (
                NbError::not_a_uuid(not_a_uuid),
                r#"OVN NB: not a row uuid: "x-1""#,
                false,
                false,
            ),
            (
                NbError::transact(txn_error("timed out", None, Some(0))),
                "OVN NB: OVSDB transaction failed: timed out (operation 0)",
                true,
                false,
            ),
            (
                NbError::transact(ovsdb::Error::OutcomeUnknown),
                "OVN NB: OVSDB connection lost after sending the transaction; outcome unknown",
                true,
                true,
            ),
            (
                NbError::transact(ovsdb::Error::Timeout),
                "OVN NB: OVSDB request timed out",
                true,
                true,
            ),
            (
                NbError::transact(txn_error("not leader", Some("lost leadership"), None)),
                "OVN NB: OVSDB transaction failed: not leader: lost leadership",
                true,
                true,
            ),
            (
                NbError::transact(txn_error("not leader", None, Some(2))),
                "OVN NB: OVSDB transaction failed: not leader (operation 2)",
                true,
                false,
            ),
            (
                NbError::transact(txn_error("cluster error", Some("timeout"), None)),
                "OVN NB: OVSDB transaction failed: cluster error: timeout",
                true,
                true,
            ),
            (
                NbError::transact(ovsdb::Error::Disconnected),
                "OVN NB: OVSDB connection lost; request not answered",
                true,
                false,
            ),
            (
                NbError::transact(ovsdb::Error::Io(io())),
                "OVN NB: OVSDB i/o error: broken pipe",
                true,
                false,
            ),
            (
                NbError::transact(ovsdb::Error::Eof),
                "OVN NB: OVSDB connection closed by the server",
                true,
                false,
            ),
            (
                NbError::transact(ovsdb::Error::InactivityTimeout),
                "OVN NB: OVSDB inactivity probe timed out",
                true,
                false,
            ),
            (
                NbError::transact(ovsdb::Error::ServerUnsuitable {
                    remote: "tcp:127.0.0.1:6641".into(),
                    reason: "not the cluster leader".into(),
                }),
                "OVN NB: OVSDB server tcp:127.0.0.1:6641 unusable: not the cluster leader",
                true,
                false,
            ),
            (
                NbError::transact(ovsdb::Error::MonitorCanceled),
                "OVN NB: OVSDB monitor canceled by the server",
                true,
                false,
            ),
            (
                NbError::transact(txn_error(
                    "referential integrity violation",
                    Some("cannot delete"),
                    None,
                )),
                "OVN NB: OVSDB transaction failed: referential integrity violation: cannot delete",
                false,
                false,
            ),
            (
                NbError::transact(txn_error("constraint violation", None, Some(1))),
                "OVN NB: OVSDB transaction failed: constraint violation (operation 1)",
                false,
                false,
            ),
            (
                NbError::transact(ovsdb::Error::Closed),
                "OVN NB: OVSDB client closed",
                false,
                false,
            ),
            (
                NbError::transact(ovsdb::Error::Protocol("bad".into())),
                "OVN NB: OVSDB protocol error: bad",
                false,
                false,
            ),
            (
                NbError::transact(ovsdb::Error::Rpc {
                    method: "transact".into(),
                    error: json!("unknown database"),
                }),
                r#"OVN NB: OVSDB server rejected transact: "unknown database""#,
                false,
                false,
            ),
        ];
        for (e, text, retry, maybe_committed) in cases {
            assert_eq!(
                (e.to_string().as_str(), e.retry(), e.maybe_committed()),
                (text, retry, maybe_committed),
                "{e:?}"
            );
            assert_eq!(
                provider::ProviderError::from(e.clone()).to_string(),
                provider::ProviderError::driver(text).to_string()
            );
        }
    }

    fn decode_all(src: &MemSource) -> NbSnapshot {
        let mut s = NbSnapshot::default();
        for (table, rows) in &src.tables {
            for (u, row) in rows {
                s.insert_json(table, u, row);
            }
        }
        s
    }

    fn same(a: &NbSnapshot, b: &NbSnapshot) {
        assert_eq!(a.load_balancers, b.load_balancers);
        assert_eq!(a.health_checks, b.health_checks);
        assert_eq!(a.switches, b.switches);
        assert_eq!(a.switch_ports, b.switch_ports);
        assert_eq!(a.routers, b.routers);
        assert_eq!(a.router_ports, b.router_ports);
    }

    fn lb(name: &str, pools: &[&str], hcs: &[&str]) -> Value {
        let ids: Vec<Value> = pools
            .iter()
            .map(|p| json!([format!("pool_{p}"), ""]))
            .collect();
        let hcs: Vec<Value> = hcs.iter().map(|h| json!(["uuid", h])).collect();
        json!({"name": name, "external_ids": ["map", ids], "health_check": ["set", hcs]})
    }

    /// After a commit that updated, inserted (rows named after a synced LB, a health check)
    /// and deleted rows and mutated a switch, refreshing the written rows gives the snapshot a
    /// full re-read gives (lookups included).
    #[test]
    fn refresh_equals_a_full_read() {
        let mut src = MemSource::default();
        src.put("Load_Balancer", "u1", lb("A", &["P1"], &["h1"]));
        src.put("Load_Balancer", "u2", lb("B", &["P2"], &[]));
        src.put("Load_Balancer", "u9", lb("Z", &["P9"], &[]));
        src.put("Load_Balancer_Health_Check", "h1", json!({"vip": "x"}));
        src.put(
            "Logical_Switch",
            "ls1",
            json!({"name": "neutron-n", "load_balancer": ["set", [["uuid", "u1"], ["uuid", "u2"]]]}),
        );
        let mut snap = decode_all(&src);
        assert!(snap.lb_by_pool("P1").is_some()); // the index exists before the refresh
        // the transaction: A's row gets P3 and a new health check (h1 collected), a second row
        // of A is inserted, B's row is deleted, the switch loses it and gains the new row
        src.put("Load_Balancer", "u1", lb("A", &["P1", "P3"], &["h2"]));
        src.put("Load_Balancer", "u3", lb("A", &["P4"], &[]));
        src.tables.get_mut("Load_Balancer").unwrap().remove("u2");
        src.tables
            .get_mut("Load_Balancer_Health_Check")
            .unwrap()
            .remove("h1");
        src.put("Load_Balancer_Health_Check", "h2", json!({"vip": "y"}));
        src.put(
            "Logical_Switch",
            "ls1",
            json!({"name": "neutron-n", "load_balancer": ["set", [["uuid", "u1"], ["uuid", "u3"]]]}),
        );
        let ops = [
            Op::Update {
                table: "Load_Balancer",
                uuid: "u1".into(),
                row: vec![],
            },
            Op::Delete {
                table: "Load_Balancer",
                uuid: "u2".into(),
            },
            Op::Mutate {
                table: "Logical_Switch",
                uuid: "ls1".into(),
                column: "load_balancer",
                insert: true,
                value: Datum::Refs(vec![]),
            },
        ];
        let written = Written::of(&ops, ["A".to_string(), "B".to_string()]);
        refresh_from(&mut snap, &src, &written);
        same(&snap, &decode_all(&src));
        assert_eq!(snap.lbs_named("A").len(), 2);
        assert_eq!(
            snap.lb_by_pool("P4").map(|(r, _)| r.uuid.as_str()),
            Some("u3")
        );
        assert!(snap.lb_by_pool("P2").is_none());
        assert!(snap.lb_by_pool("P9").is_some());
    }
}
