//! [`NbDatabase`] over Keel's own OVSDB client: the process's one NB connection and replica.

use async_trait::async_trait;
use serde_json::Value;

use crate::driver::{NbDatabase, NbError};
use crate::nb::{NbSnapshot, TABLES};

/// The OVN NB through an [`ovsdb::Client`] (connected with [`monitor_spec`]).
#[derive(Clone)]
pub struct OvsdbNb {
    client: ovsdb::Client,
}

impl std::fmt::Debug for OvsdbNb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OvsdbNb")
            .field("database", &self.client.database())
            .finish()
    }
}

/// The tables the driver reads (all columns).
pub fn monitor_spec() -> ovsdb::MonitorSpec {
    TABLES
        .iter()
        .fold(ovsdb::MonitorSpec::new(), |m, t| m.table(t))
}

impl OvsdbNb {
    /// Wrap a connected client whose monitor includes [`monitor_spec`].
    pub fn new(client: ovsdb::Client) -> Self {
        Self { client }
    }

    /// Connect to `remote` (`tcp:IP:PORT`, `unix:PATH`) and monitor the driver's tables.
    pub async fn connect(remote: &str) -> Result<Self, NbError> {
        let client = ovsdb::Client::connect(remote, "OVN_Northbound", monitor_spec())
            .await
            .map_err(|e| NbError::fatal(e.to_string()))?;
        Ok(Self { client })
    }

    /// The underlying client.
    pub fn client(&self) -> &ovsdb::Client {
        &self.client
    }
}

/// Copy the replica's driver tables into an [`NbSnapshot`].
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
    async fn snapshot(&self) -> Result<NbSnapshot, NbError> {
        Ok(snapshot_of(&self.client.replica()))
    }

    async fn transact(&self, ops: Vec<Value>) -> Result<(), NbError> {
        let txn = ops
            .into_iter()
            .fold(ovsdb::Transaction::new("OVN_Northbound"), |t, op| t.raw(op));
        self.client.transact(txn).await.map(|_| ()).map_err(|e| {
            // a failed `wait` guard ("timed out") means another writer changed the row
            let retry = e.is_transient()
                || e.txn()
                    .is_some_and(|t| t.kind == ovsdb::TxnErrorKind::TimedOut);
            NbError {
                message: e.to_string(),
                retry,
            }
        })
    }
}
