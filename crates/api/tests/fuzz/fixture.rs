//! The in-process run's objects: the fixture tree every case may name, the fresh objects a
//! case asks for (`{new_<kind>}`), the provider's part (PENDING_* settled in SQL, as its
//! status report would), and the database read whole or by row.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::{cases, common};

/// Tables that carry a provisioning_status.
const STATUS_TABLES: &[&str] = &[
    "load_balancer",
    "listener",
    "pool",
    "member",
    "health_monitor",
    "l7policy",
    "l7rule",
];

/// The fixture's ids by placeholder name, and the counters of fresh names.
pub struct Fixture {
    ids: BTreeMap<&'static str, String>,
    counter: usize,
}

/// What the provider's reports would do after an accepted write: PENDING_CREATE/UPDATE rows
/// ACTIVE, PENDING_DELETE rows DELETED.
pub async fn settle(env: &common::Env) {
    let mut tx = env.db.begin().await.unwrap();
    for t in STATUS_TABLES {
        tx.execute(
            &format!("UPDATE `{t}` SET provisioning_status = 'ACTIVE' WHERE provisioning_status IN ('PENDING_CREATE', 'PENDING_UPDATE')"),
            vec![],
        )
        .await
        .unwrap();
        tx.execute(
            &format!("UPDATE `{t}` SET provisioning_status = 'DELETED' WHERE provisioning_status = 'PENDING_DELETE'"),
            vec![],
        )
        .await
        .unwrap();
    }
    tx.commit().await.unwrap();
}

impl Fixture {
    /// LB, HTTP listener, pool, member, monitor (on its own pool), L7 policy and rule, a pool
    /// for member batches, flavor profile + flavor, AZ profile + AZ.
    pub async fn make(env: &common::Env) -> Self {
        let mut fx = Fixture {
            ids: BTreeMap::new(),
            counter: 0,
        };
        fx.ids.insert("subnet", common::SUBNET.into());
        fx.ids.insert("provider", "yes".into());
        fx.ids
            .insert("quota_project", "f0220000000000000000000000000001".into());
        fx.ids.insert("amphora", uuid::Uuid::new_v4().to_string());
        let lb = fx.fresh(env, "new_lb").await.unwrap();
        fx.ids.insert("lb", lb.clone());
        let l = post(
            env,
            "/v2/lbaas/listeners",
            "listener",
            json!({"loadbalancer_id": lb, "protocol": "HTTP", "protocol_port": 80}),
        )
        .await
        .unwrap();
        fx.ids.insert("listener", l.clone());
        let p = post(
            env,
            "/v2/lbaas/pools",
            "pool",
            json!({"listener_id": l, "protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN"}),
        )
        .await
        .unwrap();
        fx.ids.insert("pool", p);
        for k in ["member", "hm", "l7policy", "flavorprofile", "azprofile"] {
            let id = fx.fresh(env, &format!("new_{k}")).await.unwrap();
            fx.ids.insert(k, id);
        }
        for k in ["l7rule", "flavor", "az"] {
            let id = fx.fresh(env, &format!("new_{k}")).await.unwrap();
            fx.ids.insert(k, id);
        }
        let bp = fx.fresh(env, "new_pool").await.unwrap();
        fx.ids.insert("batch_pool", bp);
        fx
    }

    fn id(&self, k: &str) -> String {
        self.ids[k].clone()
    }

    fn next(&mut self) -> usize {
        self.counter += 1;
        self.counter
    }

    /// A new object of placeholder `kind` (`new_lb`, …) through the API, settled; its id.
    pub async fn fresh(&mut self, env: &common::Env, kind: &str) -> Result<String, String> {
        let n = self.next();
        let (path, key, body) = match kind {
            "new_lb" => (
                "/v2/lbaas/loadbalancers".to_string(),
                "loadbalancer",
                json!({"vip_subnet_id": common::SUBNET, "name": format!("fz{n}")}),
            ),
            "new_lb_tree" => {
                let lb = Box::pin(self.fresh(env, "new_lb")).await?;
                let l = post(
                    env,
                    "/v2/lbaas/listeners",
                    "listener",
                    json!({"loadbalancer_id": lb, "protocol": "TCP", "protocol_port": 80}),
                )
                .await?;
                let p = post(
                    env,
                    "/v2/lbaas/pools",
                    "pool",
                    json!({"listener_id": l, "protocol": "TCP", "lb_algorithm": "SOURCE_IP_PORT"}),
                )
                .await?;
                post(
                    env,
                    &format!("/v2/lbaas/pools/{p}/members"),
                    "member",
                    json!({"address": "10.0.0.7", "protocol_port": 80}),
                )
                .await?;
                return Ok(lb);
            }
            "new_listener" => (
                "/v2/lbaas/listeners".into(),
                "listener",
                json!({"loadbalancer_id": self.id("lb"), "protocol": "TCP", "protocol_port": 20_000 + n % 40_000}),
            ),
            "new_pool" => (
                "/v2/lbaas/pools".into(),
                "pool",
                json!({"loadbalancer_id": self.id("lb"), "protocol": "TCP", "lb_algorithm": "SOURCE_IP_PORT"}),
            ),
            "new_member" => (
                format!("/v2/lbaas/pools/{}/members", self.id("pool")),
                "member",
                json!({"address": self.addr(n), "protocol_port": 80}),
            ),
            "new_hm" => {
                let p = Box::pin(self.fresh(env, "new_pool")).await?;
                (
                    "/v2/lbaas/healthmonitors".into(),
                    "healthmonitor",
                    json!({"pool_id": p, "type": "TCP", "delay": 5, "timeout": 3, "max_retries": 3}),
                )
            }
            "new_l7policy" => (
                "/v2/lbaas/l7policies".into(),
                "l7policy",
                json!({"listener_id": self.id("listener"), "action": "REJECT"}),
            ),
            "new_l7rule" => (
                format!("/v2/lbaas/l7policies/{}/rules", self.id("l7policy")),
                "rule",
                json!({"type": "PATH", "compare_type": "STARTS_WITH", "value": format!("/f{n}")}),
            ),
            "new_flavorprofile" => (
                "/v2/lbaas/flavorprofiles".into(),
                "flavorprofile",
                json!({"name": format!("fp{n}"), "provider_name": "yes", "flavor_data": "{}"}),
            ),
            "new_flavor" => (
                "/v2/lbaas/flavors".into(),
                "flavor",
                json!({"name": format!("f{n}"), "flavor_profile_id": self.id("flavorprofile")}),
            ),
            "new_azprofile" => (
                "/v2/lbaas/availabilityzoneprofiles".into(),
                "availability_zone_profile",
                json!({"name": format!("azp{n}"), "provider_name": "yes", "availability_zone_data": "{}"}),
            ),
            "new_az" => (
                "/v2/lbaas/availabilityzones".into(),
                "availability_zone",
                json!({"name": format!("az{n}"), "availability_zone_profile_id": self.id("azprofile")}),
            ),
            "new_quota_project" => {
                let p = format!("f0220000000000000000{n:012}");
                let (s, b) = env
                    .req(
                        "PUT",
                        &format!("/v2/lbaas/quotas/{p}"),
                        Some(json!({"quota": {"pool": 5}})),
                    )
                    .await;
                return if s.is_success() {
                    Ok(p)
                } else {
                    Err(format!("prelude quota PUT → {s} {b}"))
                };
            }
            other => return Err(format!("no fresh {other}")),
        };
        post(env, &path, key, body).await
    }

    fn addr(&self, n: usize) -> String {
        format!(
            "10.{}.{}.{}",
            1 + (n / 62_500) % 200,
            (n / 250) % 250,
            n % 250 + 1
        )
    }

    /// `text` with every placeholder filled in (fresh objects made on the way).
    pub async fn fill(&mut self, env: &common::Env, text: &str) -> Result<String, String> {
        let mut out = String::with_capacity(text.len());
        for p in cases::pieces(text) {
            let name = match p {
                cases::Piece::Text(t) => {
                    out.push_str(t);
                    continue;
                }
                cases::Piece::Name(n) => n,
            };
            let n = self.next();
            let v = match name {
                "port" => (20_000 + n % 40_000).to_string(),
                "uniq" => format!("fz{n}"),
                "addr" => self.addr(n),
                k if k.starts_with("new_") => self.fresh(env, k).await?,
                k => self
                    .ids
                    .get(k)
                    .cloned()
                    .unwrap_or_else(|| format!("{{{k}}}")),
            };
            out.push_str(&v);
        }
        Ok(out)
    }
}

/// POST `{key: obj}`, expecting 201, then settle; the new object's id (or an AZ's name).
async fn post(env: &common::Env, path: &str, key: &str, obj: Value) -> Result<String, String> {
    let (s, b) = env.req("POST", path, Some(json!({ key: obj }))).await;
    if !s.is_success() {
        return Err(format!("prelude POST {path} → {s} {b}"));
    }
    settle(env).await;
    let o = &b[key];
    Ok(o.get("id")
        .or_else(|| o.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string())
}

/// Column `c` as text (`~` for NULL; a BLOB as hex: a pickle is no UTF-8).
fn text_expr(mysql: bool, c: &str, blob: bool) -> String {
    if blob {
        format!("IFNULL(HEX(`{c}`), '~')")
    } else if mysql {
        format!("IFNULL(CAST(`{c}` AS CHAR), '~')")
    } else {
        format!("IFNULL(CAST(`{c}` AS TEXT), '~')")
    }
}

/// Every row of every table, as text, sorted: the whole database's state.
pub async fn snapshot(env: &common::Env) -> BTreeMap<&'static str, Vec<String>> {
    let mysql = env.mysql_url().is_some();
    let mut by_table: BTreeMap<&'static str, Vec<(&'static str, bool)>> = BTreeMap::new();
    for (table, column, cap, _) in octavia_db::columns() {
        let blob = matches!(cap, octavia_db::ColumnCapacity::Blob);
        by_table.entry(table).or_default().push((column, blob));
    }
    let mut out = BTreeMap::new();
    let mut tx = env.db.begin_read().await.unwrap();
    for (table, cols) in by_table {
        let parts: Vec<String> = cols.iter().map(|(c, b)| text_expr(mysql, c, *b)).collect();
        let expr = if mysql {
            format!("CONCAT_WS('|', {})", parts.join(", "))
        } else {
            parts.join(" || '|' || ")
        };
        let mut rows = tx
            .fetch_scalars::<String>(&format!("SELECT {expr} FROM `{table}`"), vec![])
            .await
            .unwrap();
        rows.sort();
        out.insert(table, rows);
    }
    out
}

/// Row `key = id` of `table`, column → text (`~` for NULL); empty when there is none.
pub async fn row(env: &common::Env, table: &str, key: &str, id: &str) -> BTreeMap<String, String> {
    let mysql = env.mysql_url().is_some();
    let cols: Vec<(&str, bool)> = octavia_db::columns()
        .into_iter()
        .filter(|c| c.0 == table)
        .map(|c| (c.1, matches!(c.2, octavia_db::ColumnCapacity::Blob)))
        .collect();
    let mut out = BTreeMap::new();
    let mut tx = env.db.begin_read().await.unwrap();
    for (c, blob) in cols {
        let v = tx
            .fetch_optional_scalar::<String>(
                &format!(
                    "SELECT {} FROM `{table}` WHERE `{key}` = ?",
                    text_expr(mysql, c, blob)
                ),
                vec![id.into()],
            )
            .await
            .unwrap();
        if let Some(v) = v {
            out.insert(c.to_string(), v);
        }
    }
    out
}
