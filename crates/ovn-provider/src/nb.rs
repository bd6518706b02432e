//! The OVN Northbound rows the provider reads, and the operations it writes (RFC 7047).
//!
//! [`NbSnapshot`] is a typed copy of the tables the driver needs, taken from the one replica
//! of the process (never a connection per call); handlers plan against it and emit
//! [`Op`]s that [`Op::to_operation`] lowers to the ovsdb client's typed operations. Rows decode from RFC 7047
//! JSON (`{"col": <datum>}`), so any replica that can hand out rows as JSON fits.
//!
//! By job: `rows` (the typed rows and RFC 7047 datum decoding), `snapshot` ([`NbSnapshot`]
//! and its lookups, [`RowSource`]), `ops` ([`Op`], [`Datum`], [`RowRef`], [`NotAUuid`]),
//! `indexes` (the replica indexes of busy networks' ports).

pub mod indexes;
mod ops;
mod rows;
mod snapshot;

pub use ops::{Datum, NotAUuid, Op, RowRef};
pub use rows::{
    HealthCheckRow, LoadBalancerRow, RouterPortRow, RouterRow, StrMap, SwitchPortRow, SwitchRow,
    Uuid, datum_map, datum_set,
};
pub use snapshot::{NbSnapshot, RowSource, Source, TABLES, mapping_source, same_network};
