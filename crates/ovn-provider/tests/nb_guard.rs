//! The `wait` guard of every row update, against the real NB ovsdb-server: a plan made from a
//! stale snapshot is refused as retryable and changes nothing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;

use ovn_provider::NbDatabase;
use ovn_provider::edit::{Edit, LbRef};
use ovn_provider::nb::{Datum, Op};

mod common;
use common::*;

#[tokio::test]
async fn stale_plan_is_refused_and_retryable() {
    let nb = nb().await.unwrap();
    let name = uuid::Uuid::new_v4().to_string();
    let mut ids = BTreeMap::new();
    ids.insert("neutron:vip".to_string(), "10.9.9.9".to_string());
    let insert = Op::Insert {
        table: "Load_Balancer",
        uuid_name: "row".into(),
        row: vec![
            ("name", Datum::Str(name.clone())),
            ("external_ids", Datum::Map(ids)),
        ],
    };
    nb.transact(&[insert]).await.unwrap();
    let stale = nb.full_snapshot().await.unwrap();
    let uuid = stale.lbs_named(&name)[0].uuid.clone();

    // plan from the stale snapshot: add a listener key
    let mut edit = Edit::new(&stale);
    edit.row_mut(&LbRef::Existing(uuid.clone()))
        .unwrap()
        .external_ids
        .insert("listener_L".into(), "80:".into());
    let plan = edit.into_ops();

    // meanwhile another writer changes the row
    let mut other = stale.lbs_named(&name)[0].external_ids.clone();
    other.insert("pool_P".into(), String::new());
    nb.transact(&[Op::Update {
        table: "Load_Balancer",
        uuid: uuid.clone(),
        row: vec![("external_ids", Datum::Map(other))],
    }])
    .await
    .unwrap();

    let err = nb
        .transact(&plan)
        .await
        .expect_err("stale plan must be refused");
    let now = nb.full_snapshot().await.unwrap();
    let row = now.lbs_named(&name)[0].clone();
    nb.transact(&[Op::Delete {
        table: "Load_Balancer",
        uuid,
    }])
    .await
    .unwrap();
    assert!(err.retry(), "a failed wait is retryable: {err:?}");
    assert!(
        row.external_ids.contains_key("pool_P"),
        "the other writer's key survives"
    );
    assert!(
        !row.external_ids.contains_key("listener_L"),
        "the stale write did not happen"
    );
}
