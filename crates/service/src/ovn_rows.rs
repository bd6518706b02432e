//! `keel ovn-remove-keel-objects [--dry-run]`: removes from the OVN NB everything Keel wrote
//! that the Python provider never writes — the way back to the reference for the OVN NB, as
//! `keel db remove-keel-objects` is for the database — in one transaction:
//! * the `allowed_cidrs` port groups with their ACLs, and address sets (`ovn_provider::cidrs`),
//!   found only by Keel's ownership key, deleted;
//! * on `Load_Balancer` rows that carry a flavor (`ovn_provider::flavor`, README "Provider
//!   flavors for OVN"): the `keel:flavor` key, the flavor's option keys and the VIPs `reject`
//!   keeps without backends, removed — the row as the reference writes it. Other keys,
//!   options and VIPs stay.
//!
//! With `--dry-run`, lists them and changes nothing. One line per row on stdout:
//! `removed <table> <name>` (`would remove …` on a dry run).

use ovn_provider::cidrs::owned_rows;
use ovn_provider::flavor::{FLAVOR_KEY, OPTION_KEYS};
use ovsdb::{Condition, Datum, Mutation, Operation, Uuid};
use serde_json::Value;

/// The tables holding Keel's own rows (their ACLs go with the port groups: an unreferenced
/// ACL is garbage-collected by ovsdb-server).
const TABLES: [&str; 2] = ["Port_Group", "Address_Set"];

/// Errors of the command.
#[derive(Debug, thiserror::Error)]
pub enum RemoveError {
    /// An NB transaction failed (nothing was removed).
    #[error("OVN NB transaction: {0}")]
    Nb(#[source] ovsdb::Error),
}

/// Selects Keel's rows and flavored load balancer rows and, unless `dry_run`, removes them in
/// one transaction; returns `(table, what)` of each (`what`: a row's name; for a load
/// balancer row, its name and what is taken off it).
pub async fn remove(
    nb: &ovsdb::Client,
    dry_run: bool,
) -> Result<Vec<(&'static str, String)>, RemoveError> {
    let flavored = flavored_rows(nb).await?;
    let results = nb
        .transact(removal(&flavored, dry_run))
        .await
        .map_err(RemoveError::Nb)?;
    let mut out = Vec::new();
    for (t, r) in TABLES.iter().zip(&results) {
        for row in r.rows.iter().flatten() {
            let name = row.get("name").and_then(Value::as_str).unwrap_or_default();
            out.push((*t, name.to_string()));
        }
    }
    out.extend(flavored.iter().map(|r| ("Load_Balancer", r.describe())));
    Ok(out)
}

/// The one transaction of [`remove`]: a `select` of the names of Keel's rows of each of
/// [`TABLES`] (results in that order), then, unless `dry_run`, their `delete`s and the
/// `mutate` of each of `flavored`.
fn removal(flavored: &[FlavoredRow], dry_run: bool) -> ovsdb::Transaction {
    let cond = [owned_rows()];
    let mut txn = ovsdb::Transaction::new("OVN_Northbound");
    for t in TABLES {
        txn = txn.select(t, &cond, &["name"]);
    }
    if !dry_run {
        for t in TABLES {
            txn = txn.delete(t, &cond);
        }
        for row in flavored {
            txn = txn.push(row.mutate());
        }
    }
    txn
}

/// A `Load_Balancer` row carrying [`FLAVOR_KEY`], and what of the flavor it holds.
struct FlavoredRow {
    uuid: Uuid,
    name: String,
    options: Vec<String>,
    empty_vips: Vec<String>,
}

impl FlavoredRow {
    /// The `mutate` taking the flavor off the row (a key already gone is no error).
    fn mutate(&self) -> Operation {
        Operation::Mutate {
            table: "Load_Balancer".into(),
            conditions: vec![Condition::uuid(self.uuid)],
            mutations: vec![
                Mutation::delete("external_ids", Datum::set([FLAVOR_KEY])),
                Mutation::delete(
                    "options",
                    Datum::set(self.options.iter().map(String::as_str)),
                ),
                Mutation::delete(
                    "vips",
                    Datum::str_map(self.empty_vips.iter().map(|v| (v.as_str(), ""))),
                ),
            ],
        }
    }

    fn describe(&self) -> String {
        format!(
            "{} ({FLAVOR_KEY}; options [{}]; {} VIP(s) without backends)",
            self.name,
            self.options.join(", "),
            self.empty_vips.len()
        )
    }
}

/// The `Load_Balancer` rows with a [`FLAVOR_KEY`] (OVSDB has no "has key" condition: all rows
/// are read, with the three columns the removal touches).
async fn flavored_rows(nb: &ovsdb::Client) -> Result<Vec<FlavoredRow>, RemoveError> {
    let results = nb
        .transact(flavored_select())
        .await
        .map_err(RemoveError::Nb)?;
    let rows = results.first().and_then(|r| r.rows.as_ref());
    Ok(rows
        .into_iter()
        .flatten()
        .filter_map(|row| {
            let ids = pairs(row.get("external_ids"));
            if !ids.iter().any(|(k, _)| k == FLAVOR_KEY) {
                return None;
            }
            let options = pairs(row.get("options"))
                .into_iter()
                .map(|(k, _)| k)
                .filter(|k| OPTION_KEYS.contains(&k.as_str()))
                .collect();
            let empty_vips = pairs(row.get("vips"))
                .into_iter()
                .filter(|(_, v)| v.is_empty())
                .map(|(k, _)| k)
                .collect();
            Some(FlavoredRow {
                uuid: row.get("_uuid")?.get(1)?.as_str()?.parse().ok()?,
                name: row.get("name")?.as_str()?.to_string(),
                options,
                empty_vips,
            })
        })
        .collect())
}

/// The `select` of [`flavored_rows`]: every `Load_Balancer` row, the columns the removal
/// reads.
fn flavored_select() -> ovsdb::Transaction {
    ovsdb::Transaction::new("OVN_Northbound").select(
        "Load_Balancer",
        &[],
        &["_uuid", "name", "external_ids", "options", "vips"],
    )
}

/// The pairs of an OVSDB `["map", [[k, v], …]]` of strings (anything else: none).
fn pairs(map: Option<&Value>) -> Vec<(String, String)> {
    map.and_then(|m| m.get(1))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| Some((p.get(0)?.as_str()?.into(), p.get(1)?.as_str()?.into())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_mutation_takes_only_the_flavor_off() {
        let row = FlavoredRow {
            uuid: Uuid::from_u128(0x4c0e4b0e_7a4e_4d4e_9e0e_0e0e0e0e0e0e),
            name: "lb".into(),
            options: vec!["reject".into()],
            empty_vips: vec!["10.0.0.5:81".into()],
        };
        assert_eq!(
            row.mutate().to_json()["mutations"],
            json!([
                ["external_ids", "delete", ["set", ["keel:flavor"]]],
                ["options", "delete", ["set", ["reject"]]],
                ["vips", "delete", ["map", [["10.0.0.5:81", ""]]]],
            ])
        );
        assert_eq!(
            pairs(Some(&json!(["map", [["a", "1"], ["b", ""]]]))),
            vec![("a".into(), "1".into()), ("b".into(), String::new())]
        );
        assert!(pairs(Some(&json!(["set", []]))).is_empty());
    }

    /// The bytes of the command's transactions, as sent when they were built as JSON
    /// (object keys sorted, arrays in the order built).
    #[test]
    fn wire_json_is_pinned() {
        let rows = [
            FlavoredRow {
                uuid: Uuid::from_u128(0x4c0e4b0e_7a4e_4d4e_9e0e_0e0e0e0e0e0e),
                name: "lb".into(),
                options: vec!["reject".into(), "neighbor_responder".into()],
                empty_vips: vec!["10.0.0.5:81".into(), "[fd00::5]:82".into()],
            },
            FlavoredRow {
                uuid: Uuid::from_u128(0x0b3e9a52_5a6f_4d0e_8c3b_1f2a3b4c5d6e),
                name: "lb2".into(),
                options: vec![],
                empty_vips: vec![],
            },
        ];
        let wire = |t: ovsdb::Transaction| serde_json::to_string(&t.to_params()).unwrap();
        let selects = r#"{"columns":["name"],"op":"select","table":"Port_Group","where":[["external_ids","includes",["map",[["keel:owner","keel-allowed-cidrs"]]]]]},{"columns":["name"],"op":"select","table":"Address_Set","where":[["external_ids","includes",["map",[["keel:owner","keel-allowed-cidrs"]]]]]}"#;
        assert_eq!(
            wire(removal(&rows, true)),
            format!(r#"["OVN_Northbound",{selects}]"#)
        );
        assert_eq!(
            wire(removal(&rows, false)),
            format!(
                r#"["OVN_Northbound",{selects},{{"op":"delete","table":"Port_Group","where":[["external_ids","includes",["map",[["keel:owner","keel-allowed-cidrs"]]]]]}},{{"op":"delete","table":"Address_Set","where":[["external_ids","includes",["map",[["keel:owner","keel-allowed-cidrs"]]]]]}},{{"mutations":[["external_ids","delete",["set",["keel:flavor"]]],["options","delete",["set",["reject","neighbor_responder"]]],["vips","delete",["map",[["10.0.0.5:81",""],["[fd00::5]:82",""]]]]],"op":"mutate","table":"Load_Balancer","where":[["_uuid","==",["uuid","4c0e4b0e-7a4e-4d4e-9e0e-0e0e0e0e0e0e"]]]}},{{"mutations":[["external_ids","delete",["set",["keel:flavor"]]],["options","delete",["set",[]]],["vips","delete",["map",[]]]],"op":"mutate","table":"Load_Balancer","where":[["_uuid","==",["uuid","0b3e9a52-5a6f-4d0e-8c3b-1f2a3b4c5d6e"]]]}}]"#
            )
        );
        assert_eq!(
            wire(flavored_select()),
            r#"["OVN_Northbound",{"columns":["_uuid","name","external_ids","options","vips"],"op":"select","table":"Load_Balancer","where":[]}]"#
        );
    }
}
