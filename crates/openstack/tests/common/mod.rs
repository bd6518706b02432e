//! Shared set-up of the integration tests: the stack's addresses and personas
//! (ci/stack/README.md), and a guard that deletes what a test created even when it fails.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use openstack::{HttpConfig, NeutronClient, NeutronConfig, ServiceAuth, ServiceAuthConfig};

/// Reads a stack variable or fails with how to get it.
pub fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!("{name} is not set: run the tests via ci/test.sh (it sources ci/stack/env.sh)")
    })
}

/// A fresh pooled client.
pub fn http() -> reqwest::Client {
    HttpConfig::default().build_client().unwrap()
}

/// Password session for a persona of the stack (domain Default).
pub fn session(http: reqwest::Client, user: &str, password: &str, project: &str) -> ServiceAuth {
    ServiceAuth::new(
        http,
        ServiceAuthConfig {
            auth_url: env("STACK_KEYSTONE_URL"),
            username: user.into(),
            password: password.into(),
            project_name: project.into(),
            ..ServiceAuthConfig::default()
        },
    )
}

/// Keel's service session: octavia/octavia-pass in project service.
pub fn service(http: reqwest::Client) -> ServiceAuth {
    session(http, "octavia", "octavia-pass", "service")
}

/// A token of the demo persona (project demo, roles member + load-balancer_member).
pub async fn demo_token(http: reqwest::Client) -> (String, String) {
    let t = session(http, "demo", "demo-pass", "demo")
        .token()
        .await
        .unwrap();
    (t.id().to_string(), t.project_id.clone().unwrap())
}

/// A Neutron client with the service session, resolving Neutron from the catalog.
pub fn neutron(http: reqwest::Client) -> NeutronClient {
    NeutronClient::new(service(http), NeutronConfig::default())
}

/// A name no earlier run used.
pub fn unique(prefix: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!("{prefix}-{}-{nanos}", std::process::id())
}

/// What a test created in Neutron. Dropping it deletes everything (ports, router interfaces,
/// routers, subnets, networks, in that order) with the service token, on a thread of its own
/// with its own runtime and HTTP client, so cleanup runs even when the test panicked.
#[derive(Default)]
pub struct Cleanup {
    pub ports: Vec<String>,
    pub router_interfaces: Vec<(String, String)>,
    pub routers: Vec<String>,
    pub subnets: Vec<String>,
    pub networks: Vec<String>,
}

struct Lists {
    ports: Vec<String>,
    router_interfaces: Vec<(String, String)>,
    routers: Vec<String>,
    subnets: Vec<String>,
    networks: Vec<String>,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        // Plain vectors, not a `Cleanup`: dropping one of those again would recurse.
        let me = Lists {
            ports: std::mem::take(&mut self.ports),
            router_interfaces: std::mem::take(&mut self.router_interfaces),
            routers: std::mem::take(&mut self.routers),
            subnets: std::mem::take(&mut self.subnets),
            networks: std::mem::take(&mut self.networks),
        };
        if me.ports.is_empty()
            && me.router_interfaces.is_empty()
            && me.routers.is_empty()
            && me.subnets.is_empty()
            && me.networks.is_empty()
        {
            return;
        }
        let done = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let n = neutron(http());
                for p in &me.ports {
                    if let Err(e) = n.delete_port(p).await {
                        eprintln!("cleanup: port {p}: {e}");
                    }
                }
                for (r, s) in &me.router_interfaces {
                    if let Err(e) = n.remove_router_interface(r, s).await {
                        eprintln!("cleanup: router interface {r}/{s}: {e}");
                    }
                }
                for r in &me.routers {
                    if let Err(e) = n.delete_router(r).await {
                        eprintln!("cleanup: router {r}: {e}");
                    }
                }
                for s in &me.subnets {
                    if let Err(e) = n.delete_subnet(s).await {
                        eprintln!("cleanup: subnet {s}: {e}");
                    }
                }
                for net in &me.networks {
                    if let Err(e) = n.delete_network(net).await {
                        eprintln!("cleanup: network {net}: {e}");
                    }
                }
            });
        });
        let _ = done.join();
    }
}

/// A local HTTP responder answering its connections in order with `replies` (status line,
/// JSON body), one request per connection (`Connection: close`). The task returns the
/// request heads it saw.
pub async fn scripted_server(
    replies: Vec<(&'static str, &'static str)>,
) -> (String, tokio::task::JoinHandle<Vec<String>>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        let mut heads = Vec::new();
        for (status, body) in replies {
            let (mut sock, _) = listener.accept().await.unwrap();
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                let n = sock.read(&mut chunk).await.unwrap();
                if n == 0 {
                    break;
                }
                buf.extend_from_slice(&chunk[..n]);
            }
            let head = format!(
                "HTTP/1.1 {status}\r\nContent-Length: {}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            sock.write_all(head.as_bytes()).await.unwrap();
            sock.shutdown().await.unwrap();
            heads.push(String::from_utf8_lossy(&buf).to_string());
        }
        heads
    });
    (url, task)
}
