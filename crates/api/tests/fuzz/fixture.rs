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
    /// The database as the last case left it, while nothing has written since (a refusal
    /// changes nothing: the next case's "before" is this "after").
    pub last: Option<Db>,
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
            last: None,
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
        self.last = None;
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

/// A row: column → value as text (`None`: NULL; a BLOB as hex).
pub type Row = BTreeMap<&'static str, Option<String>>;

/// The whole database: table → row key → row (see [`key_columns`]).
pub type Db = BTreeMap<&'static str, BTreeMap<String, Row>>;

/// The primary key of the tables the API writes (octavia-db's schema); the other tables
/// (lookups, amphora bookkeeping) are keyed by the whole row, so any change of theirs shows
/// as a row deleted and one inserted.
pub const KEYS: &[(&str, &[&str])] = &[
    ("load_balancer", &["id"]),
    ("vip", &["load_balancer_id"]),
    ("vip_security_group", &["load_balancer_id", "sg_id"]),
    ("additional_vip", &["load_balancer_id", "subnet_id"]),
    ("listener", &["id"]),
    ("sni", &["listener_id", "tls_container_id"]),
    ("listener_cidr", &["listener_id", "cidr"]),
    ("listener_statistics", &["listener_id", "amphora_id"]),
    ("pool", &["id"]),
    ("session_persistence", &["pool_id"]),
    ("member", &["id"]),
    ("health_monitor", &["id"]),
    ("l7policy", &["id"]),
    ("l7rule", &["id"]),
    ("tags", &["resource_id", "tag"]),
    ("quotas", &["project_id"]),
    ("flavor", &["id"]),
    ("flavor_profile", &["id"]),
    ("availability_zone", &["name"]),
    ("availability_zone_profile", &["id"]),
];

/// The key columns of `table` (empty: the whole row is the key).
pub fn key_columns(table: &str) -> &'static [&'static str] {
    KEYS.iter()
        .find(|(t, _)| *t == table)
        .map_or(&[], |(_, k)| k)
}

/// Hex digits back to text (lossy: a column is text; a BLOB stays hex).
fn unhex(h: &str) -> String {
    let bytes: Vec<u8> = (0..h.len() / 2)
        .filter_map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).ok())
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Every row of every table of the schema, keyed: the whole database's state. Each column is
/// read as the hex of its text (so no value can fake a separator), `~` for NULL.
pub async fn snapshot(env: &common::Env) -> Db {
    let mysql = env.mysql_url().is_some();
    let mut by_table: BTreeMap<&'static str, Vec<(&'static str, bool)>> = BTreeMap::new();
    for (table, column, cap, _) in octavia_db::columns() {
        let blob = matches!(cap, octavia_db::ColumnCapacity::Blob);
        by_table.entry(table).or_default().push((column, blob));
    }
    let mut out = BTreeMap::new();
    let mut tx = env.db.begin_read().await.unwrap();
    for (table, cols) in by_table {
        let parts: Vec<String> = cols
            .iter()
            .map(|(c, blob)| {
                let text = match (blob, mysql) {
                    (true, _) => format!("`{c}`"),
                    (false, true) => format!("CAST(`{c}` AS CHAR)"),
                    (false, false) => format!("CAST(`{c}` AS TEXT)"),
                };
                format!("CASE WHEN `{c}` IS NULL THEN '~' ELSE HEX({text}) END")
            })
            .collect();
        let expr = if mysql {
            format!("CONCAT_WS('|', {})", parts.join(", "))
        } else {
            parts.join(" || '|' || ")
        };
        let lines = tx
            .fetch_scalars::<String>(&format!("SELECT {expr} FROM `{table}`"), vec![])
            .await
            .unwrap();
        let keys = key_columns(table);
        let mut rows = BTreeMap::new();
        for line in lines {
            let row: Row = cols
                .iter()
                .zip(line.split('|'))
                .map(|((c, blob), v)| {
                    let v = match v {
                        "~" => None,
                        h if *blob => Some(h.to_string()),
                        h => Some(unhex(h)),
                    };
                    (*c, v)
                })
                .collect();
            let key = if keys.is_empty() {
                line.clone()
            } else {
                keys.iter()
                    .map(|k| row.get(k).cloned().flatten().unwrap_or_default())
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            rows.insert(key, row);
        }
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
