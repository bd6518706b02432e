//! The OVN Southbound rows the provider reads (ovn-sb(5)), typed and decoded once from the
//! replica's rows: `Service_Monitor`, the agent's source of member health (a row per backend
//! that ovn-northd monitors, its `status` written by ovn-controller), and `Port_Binding`
//! (whether a logical port is bound and up; read by the tests that stand in for
//! ovn-controller). The columns read are the ones ovn-sb(5) declares required, so a row
//! lacking one, or holding a malformed address, is an [`SbRowError`].

use std::net::{AddrParseError, IpAddr};
use std::num::TryFromIntError;

use crate::hm::ServiceMonitorEvent;

/// The SB table of the health checks ovn-northd asks ovn-controller to run.
pub const SERVICE_MONITOR: &str = "Service_Monitor";
/// The SB table of logical port bindings.
pub const PORT_BINDING: &str = "Port_Binding";

/// Why a SB row could not be decoded (the table, the row and the column say where).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SbRowError {
    /// A required column is absent or of another type.
    #[error("SB {table} row {uuid}: no {column}")]
    Missing {
        /// The SB table the row is from (`Service_Monitor`, `Port_Binding`).
        table: &'static str,
        /// The row's `_uuid`.
        uuid: ovsdb::Uuid,
        /// The column that is missing or does not decode.
        column: &'static str,
    },
    /// An address column that is not an IPv4 or IPv6 address.
    #[error("SB {table} row {uuid}: {column} {value:?} is not an IP address")]
    Address {
        /// The SB table the row is from (`Service_Monitor`, `Port_Binding`).
        table: &'static str,
        /// The row's `_uuid`.
        uuid: ovsdb::Uuid,
        /// The column that is missing or does not decode.
        column: &'static str,
        /// Its text.
        value: String,
        /// The parse failure.
        #[source]
        source: AddrParseError,
    },
    /// A port column outside 0–65535.
    #[error("SB {table} row {uuid}: {column} {value} is not a port")]
    Port {
        /// The SB table the row is from (`Service_Monitor`, `Port_Binding`).
        table: &'static str,
        /// The row's `_uuid`.
        uuid: ovsdb::Uuid,
        /// The column that is missing or does not decode.
        column: &'static str,
        /// Its value.
        value: i64,
        /// The conversion failure.
        #[source]
        source: TryFromIntError,
    },
}

/// `Service_Monitor.status` (ovn-sb(5): `online`, `offline`, `error`; unset until
/// ovn-controller has probed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MonitorStatus {
    /// `online`: the backend answers.
    Online,
    /// `offline`: the backend does not answer (the member's ERROR, `hm_update_event`).
    Offline,
    /// `error`: ovn-controller could not probe.
    Error,
    /// A value ovn-sb(5) does not list (a later OVN), kept as written.
    Other(String),
}

impl MonitorStatus {
    /// The status `row` holds; `None` when unset or empty.
    pub fn of(row: &ovsdb::Row) -> Option<Self> {
        Some(match row.get_str("status")? {
            "" => return None,
            "online" => MonitorStatus::Online,
            "offline" => MonitorStatus::Offline,
            "error" => MonitorStatus::Error,
            other => MonitorStatus::Other(other.to_string()),
        })
    }
}

/// A `Service_Monitor` row: the probe of one backend (`ip`:`port` over `protocol`) through
/// its logical switch port, from the health-check source address `src_ip`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceMonitorRow {
    /// The row's `_uuid`.
    pub uuid: ovsdb::Uuid,
    /// The member address probed.
    pub ip: IpAddr,
    /// The member port probed.
    pub port: u16,
    /// `tcp` / `udp`; `None` when unset (ovn-sb(5): TCP).
    pub protocol: Option<String>,
    /// The member's logical switch port.
    pub logical_port: String,
    /// The health-check source address (the HM port's IP).
    pub src_ip: IpAddr,
    /// What ovn-controller last reported.
    pub status: Option<MonitorStatus>,
}

fn text<'r>(
    row: &'r ovsdb::Row,
    table: &'static str,
    column: &'static str,
) -> Result<&'r str, SbRowError> {
    row.get_str(column).ok_or(SbRowError::Missing {
        table,
        uuid: row.uuid(),
        column,
    })
}

fn address(row: &ovsdb::Row, column: &'static str) -> Result<IpAddr, SbRowError> {
    let value = text(row, SERVICE_MONITOR, column)?;
    value.parse().map_err(|source| SbRowError::Address {
        table: SERVICE_MONITOR,
        uuid: row.uuid(),
        column,
        value: value.to_string(),
        source,
    })
}

impl ServiceMonitorRow {
    /// Decodes a replica row of [`SERVICE_MONITOR`].
    pub fn from_row(row: &ovsdb::Row) -> Result<Self, SbRowError> {
        let port = row.get_i64("port").ok_or(SbRowError::Missing {
            table: SERVICE_MONITOR,
            uuid: row.uuid(),
            column: "port",
        })?;
        Ok(Self {
            uuid: row.uuid(),
            ip: address(row, "ip")?,
            port: u16::try_from(port).map_err(|source| SbRowError::Port {
                table: SERVICE_MONITOR,
                uuid: row.uuid(),
                column: "port",
                value: port,
                source,
            })?,
            protocol: row.get_str("protocol").map(String::from),
            logical_port: text(row, SERVICE_MONITOR, "logical_port")?.to_string(),
            src_ip: address(row, "src_ip")?,
            status: MonitorStatus::of(row),
        })
    }

    /// The agent's event for this row: a status seen, or (`deleted`) the row gone.
    pub fn event(&self, deleted: bool) -> ServiceMonitorEvent {
        ServiceMonitorEvent {
            ip: self.ip,
            port: self.port,
            protocol: self.protocol.clone(),
            logical_port: self.logical_port.clone(),
            src_ip: self.src_ip,
            offline: self.status == Some(MonitorStatus::Offline),
            deleted,
        }
    }
}

/// A `Port_Binding` row, the columns the tests read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortBindingRow {
    /// The row's `_uuid`.
    pub uuid: ovsdb::Uuid,
    /// The logical port's name (a Neutron port id for a VM port).
    pub logical_port: String,
    /// `up` as ovn-controller sets it once the port is bound; `None` when unset.
    pub up: Option<bool>,
}

impl PortBindingRow {
    /// Decodes a replica row of [`PORT_BINDING`].
    pub fn from_row(row: &ovsdb::Row) -> Result<Self, SbRowError> {
        Ok(Self {
            uuid: row.uuid(),
            logical_port: text(row, PORT_BINDING, "logical_port")?.to_string(),
            up: row.get_bool("up"),
        })
    }
}

/// The decoded rows of `table` in `snap` (rows that do not decode are left out), by `decode`
/// ([`ServiceMonitorRow::from_row`], [`PortBindingRow::from_row`]).
pub fn rows<T>(
    snap: &ovsdb::Snapshot,
    table: &str,
    decode: impl Fn(&ovsdb::Row) -> Result<T, SbRowError>,
) -> Vec<T> {
    snap.table(table)
        .map(|t| t.rows().filter_map(|r| decode(r).ok()).collect())
        .unwrap_or_default()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn row(cols: &[(&str, ovsdb::Value)]) -> ovsdb::Row {
        let cols: BTreeMap<String, ovsdb::Value> = cols
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        ovsdb::Row::new(ovsdb::Uuid::from_u128(7), cols)
    }

    fn monitor(status: &[&str], ip: &str, port: i64) -> ovsdb::Row {
        row(&[
            ("ip", ovsdb::Value::from(ip)),
            ("port", ovsdb::Value::from(port)),
            ("protocol", ovsdb::Value::set(["tcp"])),
            ("logical_port", ovsdb::Value::from("lsp-m1")),
            ("src_ip", ovsdb::Value::from("10.0.0.2")),
            ("status", ovsdb::Value::set(status.iter().copied())),
        ])
    }

    #[test]
    fn service_monitor_rows_decode_once() {
        let r = ServiceMonitorRow::from_row(&monitor(&["offline"], "fd00::10", 8080)).unwrap();
        assert_eq!(r.ip, "fd00::10".parse::<IpAddr>().unwrap());
        assert_eq!(r.port, 8080);
        assert_eq!(r.protocol.as_deref(), Some("tcp"));
        assert_eq!(r.status, Some(MonitorStatus::Offline));
        let ev = r.event(false);
        assert!(ev.offline && !ev.deleted);
        assert_eq!(ev.logical_port, "lsp-m1");
        // unset or empty: no status; an unknown one is kept, not offline
        assert_eq!(MonitorStatus::of(&monitor(&[], "10.0.0.9", 1)), None);
        assert_eq!(MonitorStatus::of(&monitor(&[""], "10.0.0.9", 1)), None);
        let odd = ServiceMonitorRow::from_row(&monitor(&["later"], "10.0.0.9", 1)).unwrap();
        assert_eq!(odd.status, Some(MonitorStatus::Other("later".into())));
        assert!(!odd.event(false).offline);
    }

    #[test]
    fn malformed_service_monitor_rows_name_the_column() {
        let e = ServiceMonitorRow::from_row(&monitor(&[], "10.0.0.300", 80)).unwrap_err();
        assert!(matches!(e, SbRowError::Address { column: "ip", .. }), "{e}");
        let e = ServiceMonitorRow::from_row(&monitor(&[], "10.0.0.3", 70000)).unwrap_err();
        assert!(matches!(e, SbRowError::Port { value: 70000, .. }), "{e}");
        let e = ServiceMonitorRow::from_row(&row(&[("ip", ovsdb::Value::from("10.0.0.3"))]))
            .unwrap_err();
        assert!(
            matches!(e, SbRowError::Missing { column: "port", .. }),
            "{e}"
        );
    }

    #[test]
    fn port_binding_rows_decode() {
        let r = PortBindingRow::from_row(&row(&[
            ("logical_port", ovsdb::Value::from("p1")),
            ("up", ovsdb::Value::set([true])),
        ]))
        .unwrap();
        assert_eq!((r.logical_port.as_str(), r.up), ("p1", Some(true)));
        let r =
            PortBindingRow::from_row(&row(&[("logical_port", ovsdb::Value::from("p2"))])).unwrap();
        assert_eq!(r.up, None);
        assert!(PortBindingRow::from_row(&row(&[])).is_err());
    }
}
