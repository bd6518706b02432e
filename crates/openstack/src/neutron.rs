//! Neutron v2.0 client: the calls Octavia's API (seed 003 §3) and the OVN provider (seed 000:
//! VIP ports `ovn-lb-vip-<lb id>`, HM ports `ovn-lb-hm-<subnet id>`, subnets, routers,
//! floating IPs) make.

use std::sync::Arc;

use reqwest::{Method, StatusCode};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::error::NeutronError;
use crate::http::join;
use crate::keystone::{Interface, ServiceAuth};

/// Where Neutron is (octavia.conf `[neutron]`: `endpoint_override`, `valid_interfaces`,
/// `region_name`, `service_type`).
#[derive(Debug, Clone)]
pub struct NeutronConfig {
    /// Fixed URL instead of the catalog's (with or without `/v2.0`).
    pub endpoint_override: Option<String>,
    /// Catalog interface (default `public`).
    pub interface: Interface,
    /// Interfaces tried after `interface` when the catalog has no such endpoint
    /// (the rest of a `valid_interfaces` list; default none).
    pub fallback_interfaces: Vec<Interface>,
    /// Catalog region; default: the service session's `region_name`.
    pub region_name: Option<String>,
    /// Catalog service type (default `network`).
    pub service_type: String,
    /// Bound of each request to Neutron, connect included (octavia.conf `[neutron] timeout`,
    /// a keystoneauth session option); `None` = the HTTP client's own bound. A frozen Neutron
    /// then fails the call with [`NeutronError::Transport`] after this long.
    pub timeout: Option<std::time::Duration>,
}

impl Default for NeutronConfig {
    fn default() -> Self {
        Self {
            endpoint_override: None,
            interface: Interface::Public,
            fallback_interfaces: Vec::new(),
            region_name: None,
            service_type: "network".into(),
            timeout: None,
        }
    }
}

/// The `/v2.0` root of a Neutron endpoint (catalogs list it with or without the version).
pub(crate) fn v2_root(url: &str) -> String {
    let u = url.trim_end_matches('/');
    if u.ends_with("/v2.0") {
        u.to_string()
    } else {
        format!("{u}/v2.0")
    }
}

mod resources;

pub use resources::*;

// --- client ----------------------------------------------------------------------------------

struct Shared {
    service: ServiceAuth,
    cfg: NeutronConfig,
    root: tokio::sync::OnceCell<String>,
    /// [`NeutronClient::get_subnet_recent`]: (credential, subnet id) → when read, what.
    recent_subnets: std::sync::Mutex<RecentSubnets>,
}

/// (credential, subnet id) → when read, what.
type RecentSubnets =
    std::collections::HashMap<(Option<Arc<str>>, String), (std::time::Instant, Subnet)>;

/// Entries of the recent-subnet map before it is cleared.
const RECENT_SUBNETS_MAX: usize = 4096;

/// Neutron client. Acts with Keel's service token (Octavia's `get_neutron_client`) or, after
/// [`NeutronClient::with_user_token`], with a user's token (`get_user_neutron_client`, for
/// the visibility checks of seed 003 §3). Cheap to clone; all clones share one HTTP pool.
///
/// A 401 with the service token makes one retry with a freshly issued token. Errors are
/// [`NeutronError`]: 404 `NotFound`, 409 `Conflict`, 400 `BadRequest`, 401/403
/// `Unauthorized`, others `Other`.
#[derive(Clone)]
pub struct NeutronClient {
    shared: Arc<Shared>,
    user_token: Option<Arc<str>>,
}

impl std::fmt::Debug for NeutronClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NeutronClient")
            .field("cfg", &self.shared.cfg)
            .field("as_user", &self.user_token.is_some())
            .finish()
    }
}

impl NeutronClient {
    /// A client using `service` for its token, catalog and HTTP pool. No request is made
    /// until the first call.
    pub fn new(service: ServiceAuth, cfg: NeutronConfig) -> Self {
        Self {
            shared: Arc::new(Shared {
                service,
                cfg,
                root: tokio::sync::OnceCell::new(),
                recent_subnets: Default::default(),
            }),
            user_token: None,
        }
    }

    /// The same client acting with a user's token (the request's `X-Auth-Token`): Neutron
    /// then applies that user's visibility (404 for other projects' resources).
    pub fn with_user_token(&self, token: impl Into<String>) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
            user_token: Some(Arc::from(token.into())),
        }
    }

    /// The `/v2.0` root URL, resolved once (override or catalog).
    pub async fn root(&self) -> Result<&str, NeutronError> {
        let s = &self.shared;
        let root = s
            .root
            .get_or_try_init(|| async {
                match &s.cfg.endpoint_override {
                    Some(u) => Ok(v2_root(u)),
                    None => {
                        let mut interfaces = vec![s.cfg.interface];
                        interfaces.extend(s.cfg.fallback_interfaces.iter().copied());
                        s.service
                            .endpoint_any(
                                &s.cfg.service_type,
                                &interfaces,
                                s.cfg.region_name.as_deref(),
                            )
                            .await
                            .map(|u| v2_root(&u))
                    }
                }
            })
            .await?;
        Ok(root.as_str())
    }

    /// Sends one request to `path` under the `/v2.0` root; returns the 2xx body.
    async fn send(
        &self,
        method: Method,
        path: &str,
        query: &[(String, String)],
        body: Option<&Value>,
    ) -> Result<Vec<u8>, NeutronError> {
        let url = join(self.root().await?, path);
        self.send_url(method, &url, query, body).await
    }

    /// Sends one request to a full URL; returns the 2xx body. Retries once on 401 with the
    /// service token (after dropping the refused token).
    // one stage per request, its 401 retry included: the API's checks with the user's
    // token (a member's subnet, a VIP's network) have no stage of their own
    #[tracing::instrument(
        target = "keel::stage",
        name = "neutron_request",
        level = "trace",
        skip_all
    )]
    async fn send_url(
        &self,
        method: Method,
        url: &str,
        query: &[(String, String)],
        body: Option<&Value>,
    ) -> Result<Vec<u8>, NeutronError> {
        let mut retried = false;
        loop {
            let service = match &self.user_token {
                Some(_) => None,
                None => Some(self.shared.service.token().await?),
            };
            let token: &str = match (&self.user_token, &service) {
                (Some(t), _) => t,
                (None, Some(s)) => s.id(),
                (None, None) => "",
            };
            let mut req = self
                .shared
                .service
                .http()
                .request(method.clone(), url)
                .header("X-Auth-Token", token)
                .header("Accept", "application/json");
            if !query.is_empty() {
                req = req.query(query);
            }
            if let Some(b) = body {
                req = req.json(b);
            }
            if let Some(t) = self.shared.cfg.timeout {
                req = req.timeout(t);
            }
            let started = std::time::Instant::now();
            let resp = req.send().await.map_err(NeutronError::Transport)?;
            let status = resp.status();
            let request_id = resp
                .headers()
                .get("x-openstack-request-id")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_string();
            let bytes = resp.bytes().await.map_err(NeutronError::Transport)?;
            tracing::debug!(
                %method, url, status = status.as_u16(), request_id,
                elapsed_ms = started.elapsed().as_millis() as u64,
                as_user = self.user_token.is_some(),
                "neutron"
            );
            if status.is_success() {
                return Ok(bytes.to_vec());
            }
            if status == StatusCode::UNAUTHORIZED
                && !retried
                && let Some(s) = &service
            {
                self.shared.service.invalidate(s);
                retried = true;
                continue;
            }
            return Err(NeutronError::from_status(status.as_u16(), &bytes));
        }
    }

    async fn get_one<T: DeserializeOwned>(&self, path: &str, key: &str) -> Result<T, NeutronError> {
        let body = self.send(Method::GET, path, &[], None).await?;
        unwrap_key(&body, key)
    }

    async fn list<T: DeserializeOwned>(
        &self,
        path: &str,
        key: &str,
        filter: &ListFilter,
    ) -> Result<Vec<T>, NeutronError> {
        let body = self.send(Method::GET, path, filter.pairs(), None).await?;
        let (mut items, mut next) = unwrap_page::<T>(&body, key)?;
        // Neutron paginates only when `pagination_max_limit` is set; follow `next` links
        // (full URLs carrying the filters and the marker) until the last page.
        let mut pages = 1usize;
        while let Some(url) = next {
            pages += 1;
            if pages > MAX_PAGES {
                return Err(NeutronError::Decode(format!(
                    "{key}: more than {MAX_PAGES} pages; pagination loop?"
                )));
            }
            let body = self.send_url(Method::GET, &url, &[], None).await?;
            let (more, n) = unwrap_page::<T>(&body, key)?;
            if more.is_empty() {
                break;
            }
            items.extend(more);
            next = n;
        }
        Ok(items)
    }

    async fn write<B: Serialize, T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        key: &str,
        body: &B,
    ) -> Result<T, NeutronError> {
        let inner = serde_json::to_value(body).map_err(|source| NeutronError::Json {
            what: format!("encoding {key}"),
            source,
        })?;
        let body = self
            .send(method, path, &[], Some(&json!({ key: inner })))
            .await?;
        unwrap_key(&body, key)
    }

    /// DELETE; `Ok(false)` when Neutron says 404 (already gone, as Octavia ignores it).
    async fn delete(&self, path: &str) -> Result<bool, NeutronError> {
        match self.send(Method::DELETE, path, &[], None).await {
            Ok(_) => Ok(true),
            Err(NeutronError::NotFound(_)) => Ok(false),
            Err(e) => Err(e),
        }
    }

    // networks

    /// `GET /v2.0/networks/{id}`. 404 → `NotFound`.
    pub async fn get_network(&self, id: &str) -> Result<Network, NeutronError> {
        self.get_one(&format!("networks/{id}"), "network").await
    }

    /// `GET /v2.0/networks?filters`.
    pub async fn list_networks(&self, filter: &ListFilter) -> Result<Vec<Network>, NeutronError> {
        self.list("networks", "networks", filter).await
    }

    /// `POST /v2.0/networks`.
    pub async fn create_network(&self, req: &NetworkCreate) -> Result<Network, NeutronError> {
        self.write(Method::POST, "networks", "network", req).await
    }

    /// `DELETE /v2.0/networks/{id}`; `Ok(false)` if already gone. 409 `Conflict` while ports
    /// are in use.
    pub async fn delete_network(&self, id: &str) -> Result<bool, NeutronError> {
        self.delete(&format!("networks/{id}")).await
    }

    /// `GET /v2.0/network-ip-availabilities/{network_id}` (admin/service only).
    pub async fn network_ip_availability(
        &self,
        network_id: &str,
    ) -> Result<NetworkIpAvailability, NeutronError> {
        self.get_one(
            &format!("network-ip-availabilities/{network_id}"),
            "network_ip_availability",
        )
        .await
    }

    // subnets

    /// `GET /v2.0/subnets/{id}`. 404 → `NotFound` (Octavia: `Subnet <id> not found.`).
    pub async fn get_subnet(&self, id: &str) -> Result<Subnet, NeutronError> {
        self.get_one(&format!("subnets/{id}"), "subnet").await
    }

    /// [`NeutronClient::get_subnet`], answered from memory when the same credential (this
    /// user token, or the service's) read the same subnet less than `max_age` ago.
    ///
    /// For validations repeated call after call (every member create checks its subnet as
    /// Octavia does): a subnet's network and CIDR never change, and only a deletion
    /// within `max_age` goes unseen. Failures are not remembered.
    pub async fn get_subnet_recent(
        &self,
        id: &str,
        max_age: std::time::Duration,
    ) -> Result<Subnet, NeutronError> {
        let key = (self.user_token.clone(), id.to_owned());
        if let Ok(m) = self.shared.recent_subnets.lock()
            && let Some((at, s)) = m.get(&key)
            && at.elapsed() < max_age
        {
            return Ok(s.clone());
        }
        let subnet = self.get_subnet(id).await?;
        if let Ok(mut m) = self.shared.recent_subnets.lock() {
            if m.len() >= RECENT_SUBNETS_MAX {
                m.retain(|_, (at, _)| at.elapsed() < max_age);
                if m.len() >= RECENT_SUBNETS_MAX {
                    m.clear();
                }
            }
            m.insert(key, (std::time::Instant::now(), subnet.clone()));
        }
        Ok(subnet)
    }

    /// `GET /v2.0/subnets?filters`.
    pub async fn list_subnets(&self, filter: &ListFilter) -> Result<Vec<Subnet>, NeutronError> {
        self.list("subnets", "subnets", filter).await
    }

    /// The subnets among `ids` that exist, one `GET /v2.0/subnets?id=…` per
    /// [`FIP_PORTS_PER_LIST`] ids (as [`NeutronClient::ports_by_ids`]).
    pub async fn subnets_by_ids(&self, ids: &[&str]) -> Result<Vec<Subnet>, NeutronError> {
        self.lists_by(ids, "id", |f| async move { self.list_subnets(&f).await })
            .await
    }

    /// `POST /v2.0/subnets`.
    pub async fn create_subnet(&self, req: &SubnetCreate) -> Result<Subnet, NeutronError> {
        self.write(Method::POST, "subnets", "subnet", req).await
    }

    /// `DELETE /v2.0/subnets/{id}`; `Ok(false)` if already gone.
    pub async fn delete_subnet(&self, id: &str) -> Result<bool, NeutronError> {
        self.delete(&format!("subnets/{id}")).await
    }

    // ports

    /// `GET /v2.0/ports/{id}`. 404 → `NotFound`.
    pub async fn get_port(&self, id: &str) -> Result<Port, NeutronError> {
        self.get_one(&format!("ports/{id}"), "port").await
    }

    /// `GET /v2.0/ports?filters`, e.g. `ListFilter::new().eq("name", "ovn-lb-hm-<subnet>")`.
    pub async fn list_ports(&self, filter: &ListFilter) -> Result<Vec<Port>, NeutronError> {
        self.list("ports", "ports", filter).await
    }

    /// The ports among `ids` that exist: one `GET /v2.0/ports?id=…&id=…` per
    /// [`FIP_PORTS_PER_LIST`] ids (Neutron ORs a repeated filter; the reference lists ports the
    /// same way), instead of one `GET /v2.0/ports/{id}` each. A missing id is simply absent;
    /// empty `ids`: no request.
    pub async fn ports_by_ids(&self, ids: &[&str]) -> Result<Vec<Port>, NeutronError> {
        self.lists_by(ids, "id", |f| async move { self.list_ports(&f).await })
            .await
    }

    /// `POST /v2.0/ports`. 409 `Conflict` (`IpAddressAlreadyAllocated`, `IpAddressInUse`,
    /// `MacAddressInUse`) → Octavia's VIPInUseException; 400 for an address outside the
    /// subnet.
    pub async fn create_port(&self, req: &PortCreate) -> Result<Port, NeutronError> {
        self.write(Method::POST, "ports", "port", req).await
    }

    /// `PUT /v2.0/ports/{id}` with the set fields. 404 → `NotFound`.
    pub async fn update_port(&self, id: &str, req: &PortUpdate) -> Result<Port, NeutronError> {
        self.write(Method::PUT, &format!("ports/{id}"), "port", req)
            .await
    }

    /// `DELETE /v2.0/ports/{id}`: `Ok(true)` deleted, `Ok(false)` already gone (404 is not
    /// an error, as octavia's `delete_port`).
    pub async fn delete_port(&self, id: &str) -> Result<bool, NeutronError> {
        self.delete(&format!("ports/{id}")).await
    }

    // routers

    /// `GET /v2.0/routers/{id}`.
    pub async fn get_router(&self, id: &str) -> Result<Router, NeutronError> {
        self.get_one(&format!("routers/{id}"), "router").await
    }

    /// `GET /v2.0/routers?filters`.
    pub async fn list_routers(&self, filter: &ListFilter) -> Result<Vec<Router>, NeutronError> {
        self.list("routers", "routers", filter).await
    }

    /// `POST /v2.0/routers`.
    pub async fn create_router(&self, req: &RouterCreate) -> Result<Router, NeutronError> {
        self.write(Method::POST, "routers", "router", req).await
    }

    /// `DELETE /v2.0/routers/{id}`; `Ok(false)` if already gone.
    pub async fn delete_router(&self, id: &str) -> Result<bool, NeutronError> {
        self.delete(&format!("routers/{id}")).await
    }

    /// `PUT /v2.0/routers/{id}/add_router_interface {"subnet_id"}`; returns the interface
    /// port id. 400 when the subnet already has an interface on this router.
    pub async fn add_router_interface(
        &self,
        router_id: &str,
        subnet_id: &str,
    ) -> Result<String, NeutronError> {
        #[derive(Deserialize)]
        struct Iface {
            port_id: String,
        }
        let body = self
            .send(
                Method::PUT,
                &format!("routers/{router_id}/add_router_interface"),
                &[],
                Some(&json!({ "subnet_id": subnet_id })),
            )
            .await?;
        let i: Iface = serde_json::from_slice(&body).map_err(|source| NeutronError::Json {
            what: "router interface".into(),
            source,
        })?;
        Ok(i.port_id)
    }

    /// `PUT /v2.0/routers/{id}/remove_router_interface {"subnet_id"}`; `Ok(false)` when
    /// Neutron answers 404 (no such interface or router).
    pub async fn remove_router_interface(
        &self,
        router_id: &str,
        subnet_id: &str,
    ) -> Result<bool, NeutronError> {
        match self
            .send(
                Method::PUT,
                &format!("routers/{router_id}/remove_router_interface"),
                &[],
                Some(&json!({ "subnet_id": subnet_id })),
            )
            .await
        {
            Ok(_) => Ok(true),
            Err(NeutronError::NotFound(_)) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Router interface ports on `subnet_id`: ports with `device_owner` one of
    /// `network:router_interface`, `network:router_interface_distributed`,
    /// `network:ha_router_replicated_interface` and an address in the subnet; each port's
    /// `device_id` is its router id.
    pub async fn router_interface_ports(&self, subnet_id: &str) -> Result<Vec<Port>, NeutronError> {
        let filter = ListFilter::new()
            .eq("device_owner", "network:router_interface")
            .eq("device_owner", "network:router_interface_distributed")
            .eq("device_owner", "network:ha_router_replicated_interface")
            .fixed_ip_subnet(subnet_id);
        self.list_ports(&filter).await
    }

    // floating IPs

    /// `GET /v2.0/floatingips/{id}`.
    pub async fn get_floating_ip(&self, id: &str) -> Result<FloatingIp, NeutronError> {
        self.get_one(&format!("floatingips/{id}"), "floatingip")
            .await
    }

    /// `GET /v2.0/floatingips?filters`.
    pub async fn list_floating_ips(
        &self,
        filter: &ListFilter,
    ) -> Result<Vec<FloatingIp>, NeutronError> {
        self.list("floatingips", "floatingips", filter).await
    }

    /// Floating IPs associated with `port_id` (the OVN provider's VIP FIP lookup).
    pub async fn floating_ips_by_port(
        &self,
        port_id: &str,
    ) -> Result<Vec<FloatingIp>, NeutronError> {
        self.list_floating_ips(&ListFilter::new().eq("port_id", port_id))
            .await
    }

    /// Floating IPs associated with any of `port_ids`: one `GET /v2.0/floatingips` with the
    /// `port_id` filter repeated (Neutron ORs the values of a repeated filter), per
    /// [`FIP_PORTS_PER_LIST`] ports so that the URL stays short (`ovn-db-sync`'s VIP FIP
    /// lookups of a chunk of load balancers). Empty `port_ids`: no request, no floating IP.
    pub async fn floating_ips_by_ports(
        &self,
        port_ids: &[&str],
    ) -> Result<Vec<FloatingIp>, NeutronError> {
        self.lists_by(port_ids, "port_id", |f| async move {
            self.list_floating_ips(&f).await
        })
        .await
    }

    /// One list per [`FIP_PORTS_PER_LIST`] of `values`, the filter `key` repeated with each,
    /// [`LISTS_IN_FLIGHT`] at a time; the items in the order of the lists. The first error
    /// ends it.
    async fn lists_by<'a, T, F, Fut>(
        &'a self,
        values: &[&str],
        key: &str,
        list: F,
    ) -> Result<Vec<T>, NeutronError>
    where
        F: Fn(ListFilter) -> Fut,
        Fut: std::future::Future<Output = Result<Vec<T>, NeutronError>> + 'a,
    {
        use futures::stream::{self, StreamExt, TryStreamExt};
        let filters: Vec<ListFilter> = values
            .chunks(FIP_PORTS_PER_LIST)
            .map(|chunk| chunk.iter().fold(ListFilter::new(), |f, v| f.eq(key, *v)))
            .collect();
        let lists: Vec<Vec<T>> = stream::iter(filters)
            .map(list)
            .buffered(LISTS_IN_FLIGHT)
            .try_collect()
            .await?;
        Ok(lists.into_iter().flatten().collect())
    }

    /// `PUT /v2.0/floatingips/{id} {"description"}`: the OVN provider's "empty update" that
    /// makes Neutron recompute a member's FIP NAT (helper.py, DVR case).
    pub async fn update_floating_ip_description(
        &self,
        id: &str,
        description: &str,
    ) -> Result<FloatingIp, NeutronError> {
        self.write(
            Method::PUT,
            &format!("floatingips/{id}"),
            "floatingip",
            &json!({ "description": description }),
        )
        .await
    }

    // QoS and security groups (validation)

    /// `GET /v2.0/extensions/{alias}`: whether Neutron has that API extension (404 → false),
    /// as openstacksdk's `find_extension` that Octavia's network driver asks at start-up.
    pub async fn has_extension(&self, alias: &str) -> Result<bool, NeutronError> {
        match self
            .send(Method::GET, &format!("extensions/{alias}"), &[], None)
            .await
        {
            Ok(_) => Ok(true),
            Err(e) if e.is_not_found() => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// `GET /v2.0/qos/policies/{id}`. 404 → `NotFound` (Octavia: InvalidSubresource).
    pub async fn get_qos_policy(&self, id: &str) -> Result<QosPolicy, NeutronError> {
        self.get_one(&format!("qos/policies/{id}"), "policy").await
    }

    /// `GET /v2.0/security-groups/{id}`. 404 → `NotFound`.
    pub async fn get_security_group(&self, id: &str) -> Result<SecurityGroup, NeutronError> {
        self.get_one(&format!("security-groups/{id}"), "security_group")
            .await
    }
}

/// Upper bound on followed `next` links, against a server that loops.
const MAX_PAGES: usize = 10_000;

/// Ids per `GET /v2.0/floatingips?port_id=…&port_id=…` of
/// [`NeutronClient::floating_ips_by_ports`] (and per `ports?id=…` / `subnets?id=…` of
/// [`NeutronClient::ports_by_ids`], [`NeutronClient::subnets_by_ids`]): 50 ids keep the query near 2.3 KB, well within
/// the request-line limits of the servers Neutron runs under (eventlet, uWSGI 4 KB, Apache 8 KB).
pub const FIP_PORTS_PER_LIST: usize = 50;

/// How many of the lists of one call ([`NeutronClient::ports_by_ids`] and its kin) are in
/// flight at once: a restore of 10,000 load balancers spent most of its time waiting for
/// such lists one after the other (Neutron serves them on several API workers).
pub const LISTS_IN_FLIGHT: usize = 4;

#[derive(Deserialize)]
struct Link {
    #[serde(default)]
    rel: String,
    #[serde(default)]
    href: String,
}

/// A body of `key` that is not the expected JSON.
fn json_error(key: &str, source: serde_json::Error) -> NeutronError {
    NeutronError::Json {
        what: key.to_string(),
        source,
    }
}

/// Decodes a list page `{"<key>": [T], "<key>_links": [{"rel": "next", "href"}]}`.
fn unwrap_page<T: DeserializeOwned>(
    body: &[u8],
    key: &str,
) -> Result<(Vec<T>, Option<String>), NeutronError> {
    let mut map: serde_json::Map<String, Value> =
        serde_json::from_slice(body).map_err(|source| json_error(key, source))?;
    let next = map
        .remove(&format!("{key}_links"))
        .and_then(|v| serde_json::from_value::<Vec<Link>>(v).ok())
        .and_then(|links| links.into_iter().find(|l| l.rel == "next"))
        .map(|l| l.href)
        .filter(|h| !h.is_empty());
    let items = map
        .remove(key)
        .ok_or_else(|| NeutronError::Decode(format!("no {key:?} in the response")))?;
    let items = serde_json::from_value(items).map_err(|source| json_error(key, source))?;
    Ok((items, next))
}

/// Decodes `{"<key>": <T>, ...}`.
fn unwrap_key<T: DeserializeOwned>(body: &[u8], key: &str) -> Result<T, NeutronError> {
    let mut map: serde_json::Map<String, Value> =
        serde_json::from_slice(body).map_err(|source| json_error(key, source))?;
    let v = map
        .remove(key)
        .ok_or_else(|| NeutronError::Decode(format!("no {key:?} in the response")))?;
    serde_json::from_value(v).map_err(|source| json_error(key, source))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use std::net::IpAddr;

    #[test]
    fn port_body_parses() {
        let body = br#"{"port": {"id": "p1", "name": "ovn-lb-vip-lb1", "network_id": "n1", "tenant_id": "t1", "project_id": "t1", "mac_address": "fa:16:3e:00:00:01", "admin_state_up": false, "status": "DOWN", "device_id": "lb-lb1", "device_owner": "ovn-lb:vip", "fixed_ips": [{"subnet_id": "s1", "ip_address": "10.0.0.5"}, {"subnet_id": "s6", "ip_address": "fd00::5"}], "allowed_address_pairs": [], "extra_dhcp_opts": [], "security_groups": ["sg1"], "description": "", "binding:vnic_type": "normal", "port_security_enabled": true, "qos_policy_id": null, "tags": [], "created_at": "2026-11-29T20:00:00Z", "revision_number": 1}}"#;
        let p: Port = unwrap_key(body, "port").unwrap();
        assert_eq!(p.name, "ovn-lb-vip-lb1");
        assert_eq!(p.project_id, "t1");
        assert_eq!(p.device_owner, "ovn-lb:vip");
        assert_eq!(p.ip_in_subnet("s1"), Some("10.0.0.5".parse().unwrap()));
        assert_eq!(p.ip_in_subnet("s6"), Some("fd00::5".parse().unwrap()));
        assert_eq!(p.security_groups, vec!["sg1"]);
        assert_eq!(p.port_security_enabled, Some(true));
        assert_eq!(p.qos_policy_id, None);
        assert_eq!(p.binding_host_id, None);
    }

    #[test]
    fn nulls_and_absent_fields_take_defaults() {
        let p: Port = unwrap_key(br#"{"port": {"id": "p", "network_id": "n", "name": null, "description": null, "device_owner": null, "security_groups": null, "tags": null}}"#, "port").unwrap();
        assert_eq!((p.name.as_str(), p.device_owner.as_str()), ("", ""));
        assert!(p.security_groups.is_empty() && p.fixed_ips.is_empty());
        let f: FloatingIp = unwrap_key(br#"{"floatingip": {"id": "f", "floating_ip_address": "203.0.113.5", "description": null, "port_id": null}}"#, "floatingip").unwrap();
        assert_eq!(f.port_id, None);
        assert_eq!(f.description, "");
    }

    #[test]
    fn subnet_and_network_bodies_parse() {
        let s: Subnet = unwrap_key(br#"{"subnet": {"id": "s1", "name": "", "network_id": "n1", "project_id": "p", "cidr": "10.0.0.0/24", "ip_version": 4, "gateway_ip": "10.0.0.1", "enable_dhcp": true, "allocation_pools": [{"start": "10.0.0.2", "end": "10.0.0.254"}], "host_routes": [], "dns_nameservers": [], "ipv6_address_mode": null, "ipv6_ra_mode": null, "subnetpool_id": null}}"#, "subnet").unwrap();
        assert_eq!((s.cidr.as_str(), s.ip_version), ("10.0.0.0/24", 4));
        assert_eq!(s.gateway_ip, Some("10.0.0.1".parse().unwrap()));
        assert_eq!(
            s.allocation_pools[0].end,
            "10.0.0.254".parse::<IpAddr>().unwrap()
        );
        let s: Subnet = unwrap_key(br#"{"subnet": {"id": "s6", "network_id": "n1", "cidr": "fd00::/64", "ip_version": 6, "gateway_ip": null}}"#, "subnet").unwrap();
        assert_eq!(s.gateway_ip, None);
        let n: Network = unwrap_key(br#"{"network": {"id": "n1", "name": "pub", "subnets": ["s1"], "router:external": true, "provider:physical_network": "physnet1", "provider:network_type": "flat", "provider:segmentation_id": null, "mtu": 1442, "shared": false, "status": "ACTIVE", "admin_state_up": true, "project_id": "p"}}"#, "network").unwrap();
        assert!(n.router_external);
        assert_eq!(n.provider_physical_network.as_deref(), Some("physnet1"));
        assert_eq!(n.mtu, Some(1442));
    }

    #[test]
    fn ip_availability_accepts_huge_counts() {
        let a: NetworkIpAvailability = unwrap_key(br#"{"network_ip_availability": {"network_id": "n", "network_name": "x", "project_id": "p", "total_ips": 1.2089258196146292e24, "used_ips": 3, "subnet_ip_availability": [{"subnet_id": "s", "subnet_name": "", "cidr": "fd00::/48", "ip_version": 6, "total_ips": 1.2089258196146292e24, "used_ips": 3}, {"subnet_id": "s4", "cidr": "10.0.0.0/24", "ip_version": 4, "total_ips": 253, "used_ips": 2}]}}"#, "network_ip_availability").unwrap();
        assert!(a.total_ips > u128::from(u64::MAX));
        assert_eq!(a.subnet_ip_availability[1].total_ips, 253);
        assert_eq!(a.used_ips, 3);
    }

    #[test]
    fn list_page_with_next_link() {
        let body = br#"{"ports": [{"id": "a"}], "ports_links": [{"rel": "previous", "href": "http://n/v2.0/ports?marker=z&page_reverse=True"}, {"rel": "next", "href": "http://n/v2.0/ports?limit=1&marker=a"}]}"#;
        let (items, next) = unwrap_page::<Port>(body, "ports").unwrap();
        assert_eq!(items.len(), 1);
        assert_eq!(items[0].id, "a");
        assert_eq!(
            next.as_deref(),
            Some("http://n/v2.0/ports?limit=1&marker=a")
        );
        let (items, next) = unwrap_page::<Port>(br#"{"ports": []}"#, "ports").unwrap();
        assert!(items.is_empty() && next.is_none());
    }

    #[test]
    fn missing_key_is_decode_error() {
        assert!(matches!(
            unwrap_key::<Port>(br#"{"ports": []}"#, "port"),
            Err(NeutronError::Decode(_))
        ));
        // a body that is not JSON keeps serde's error as its cause
        match unwrap_key::<Port>(b"not json", "port") {
            Err(e @ NeutronError::Json { .. }) => {
                assert!(std::error::Error::source(&e).is_some());
                assert!(
                    e.to_string()
                        .starts_with("unexpected neutron response: port: ")
                );
            }
            other => panic!("expected Json, got {other:?}"),
        }
    }

    #[test]
    fn port_create_sends_only_set_fields() {
        let req = PortCreate {
            network_id: "n1".into(),
            name: Some("ovn-lb-hm-s1".into()),
            fixed_ips: Some(vec![FixedIpRequest::subnet("s1")]),
            port_security_enabled: Some(false),
            ..PortCreate::default()
        };
        assert_eq!(
            serde_json::to_value(&req).unwrap(),
            json!({"network_id": "n1", "name": "ovn-lb-hm-s1", "fixed_ips": [{"subnet_id": "s1"}], "port_security_enabled": false})
        );
        let mut extra = serde_json::Map::new();
        extra.insert("binding:host_id".into(), json!("h1"));
        let upd = PortUpdate {
            qos_policy_id: Some(None),
            fixed_ips: Some(vec![FixedIpRequest::address(
                "s1",
                "10.0.0.9".parse().unwrap(),
            )]),
            extra,
            ..PortUpdate::default()
        };
        assert_eq!(
            serde_json::to_value(&upd).unwrap(),
            json!({"qos_policy_id": null, "fixed_ips": [{"subnet_id": "s1", "ip_address": "10.0.0.9"}], "binding:host_id": "h1"})
        );
    }

    #[test]
    fn filters_keep_order_and_repeat_keys() {
        let f = ListFilter::new()
            .eq("device_owner", "network:router_interface")
            .fixed_ip_subnet("s1")
            .fixed_ip_address("10.0.0.1".parse().unwrap());
        assert_eq!(
            f.pairs(),
            &[
                (
                    "device_owner".to_string(),
                    "network:router_interface".to_string()
                ),
                ("fixed_ips".to_string(), "subnet_id=s1".to_string()),
                ("fixed_ips".to_string(), "ip_address=10.0.0.1".to_string()),
            ]
        );
    }

    #[test]
    fn v2_root_normalises() {
        assert_eq!(v2_root("http://h:9696"), "http://h:9696/v2.0");
        assert_eq!(v2_root("http://h:9696/v2.0/"), "http://h:9696/v2.0");
        assert_eq!(v2_root("http://h/networking/"), "http://h/networking/v2.0");
    }
}
