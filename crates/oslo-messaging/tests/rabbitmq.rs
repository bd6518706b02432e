//! Against a real RabbitMQ: `STACK_TRANSPORT_URL` (ci/stack/rabbitmq.sh, exported by
//! ci/stack/env.sh) names it; every test fails when it is unset. The fast tier excludes this
//! binary (`binary_id(oslo-messaging::rabbitmq)`).
//!
//! Each test binds a queue of its own (server-named, exclusive) to exchange `octavia` and reads
//! what our casts deliver there with lapin. Casts use routing key
//! `octavia_provisioning_v2.<test server>` (a `Target` with `server`), which no octavia-worker
//! binds, except one cast with the production key `octavia_provisioning_v2` and method
//! `keel_oslo_messaging_probe`: a worker consuming on the same vhost receives that one and logs
//! oslo's NoSuchMethod for it. Connection loss is made with a TCP proxy inside the test (and,
//! when `STACK_RABBITMQCTL` is exported, with `rabbitmqctl close_connection` too). The
//! compatibility check with oslo.messaging itself runs the stack venv's Python
//! (`$STACK_VENV/bin/python`, else `python3` on PATH, which ci/stack/env.sh puts first).
//! TLS (`ssl`, `ssl_ca_file`) is checked through a TLS-terminating proxy in the test (rustls,
//! certificates made with the openssl CLI by test-pki) in front of the plain-AMQP broker.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use lapin::options::{
    BasicAckOptions, BasicConsumeOptions, ExchangeDeclareOptions, QueueBindOptions,
    QueueDeclareOptions,
};
use lapin::types::FieldTable;
use lapin::uri::{AMQPAuthority, AMQPQueryString, AMQPScheme, AMQPUri, AMQPUserInfo};
use lapin::{Connection, ConnectionProperties, Consumer, ExchangeKind};
use oslo_messaging::{CastError, RabbitOptions, RpcClient, Target, TransportUrl, envelope};
use serde_json::{Map, Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

fn stack_url() -> String {
    std::env::var("STACK_TRANSPORT_URL").unwrap_or_else(|_| {
        panic!(
            "STACK_TRANSPORT_URL is not set: these tests need a RabbitMQ (ci/stack/rabbitmq.sh up, \
             then source ci/stack/env.sh); the fast tier excludes binary_id(oslo-messaging::rabbitmq)"
        )
    })
}

fn parsed() -> TransportUrl {
    TransportUrl::parse(&stack_url()).unwrap_or_else(|e| panic!("STACK_TRANSPORT_URL: {e}"))
}

/// The stack URL with its (first) host replaced by `127.0.0.1:port` (credentials and vhost kept).
fn via_port(port: u16) -> TransportUrl {
    let mut url = parsed();
    url.hosts.truncate(1);
    url.hosts[0].hostname = "127.0.0.1".into();
    url.hosts[0].port = Some(port);
    url
}

fn test_server(tag: &str) -> String {
    format!("keel-oslo-test-{}-{tag}", std::process::id())
}

fn target(server: &str) -> Target {
    Target {
        server: Some(server.to_owned()),
        ..Target::octavia_amphora_v2()
    }
}

async fn lapin_conn() -> Connection {
    let ep = parsed().endpoints().remove(0);
    let uri = AMQPUri {
        scheme: AMQPScheme::AMQP,
        authority: AMQPAuthority {
            userinfo: AMQPUserInfo {
                username: ep.username,
                password: ep.password,
            },
            host: if ep.host == "localhost" {
                "127.0.0.1".into()
            } else {
                ep.host
            },
            port: ep.port,
        },
        vhost: ep.vhost,
        query: AMQPQueryString::default(),
    };
    Connection::connect_uri(uri, ConnectionProperties::default())
        .await
        .unwrap_or_else(|e| panic!("test's own lapin connection: {e}"))
}

/// A server-named exclusive queue bound to `octavia` with each routing key; its consumer.
async fn bound_queue(conn: &Connection, keys: &[String]) -> Consumer {
    let ch = conn.create_channel().await.unwrap();
    // oslo's default flags: topic, not durable, not auto-delete.
    ch.exchange_declare(
        "octavia".into(),
        ExchangeKind::Topic,
        ExchangeDeclareOptions::default(),
        FieldTable::default(),
    )
    .await
    .unwrap();
    let q = ch
        .queue_declare(
            "".into(),
            QueueDeclareOptions {
                exclusive: true,
                auto_delete: true,
                ..Default::default()
            },
            FieldTable::default(),
        )
        .await
        .unwrap();
    for k in keys {
        ch.queue_bind(
            q.name().clone(),
            "octavia".into(),
            k.as_str().into(),
            QueueBindOptions::default(),
            FieldTable::default(),
        )
        .await
        .unwrap();
    }
    ch.basic_consume(
        q.name().clone(),
        "".into(),
        BasicConsumeOptions::default(),
        FieldTable::default(),
    )
    .await
    .unwrap()
}

async fn next_delivery(consumer: &mut Consumer) -> lapin::message::Delivery {
    let d = tokio::time::timeout(Duration::from_secs(10), consumer.next())
        .await
        .expect("no delivery within 10 s")
        .expect("consumer ended")
        .expect("delivery error");
    d.ack(BasicAckOptions::default()).await.unwrap();
    d
}

/// The `_unique_id` of a delivered oslo envelope.
fn unique_id_of(body: &[u8]) -> String {
    let outer: Value = serde_json::from_slice(body).unwrap();
    let inner: Value = serde_json::from_str(outer["oslo.message"].as_str().unwrap()).unwrap();
    inner["_unique_id"].as_str().unwrap().to_owned()
}

fn args() -> Map<String, Value> {
    match json!({"loadbalancer_id": "0f4bd1b8-5d5f-4a4e-9a2c-1f1b0e7b3c55", "flavor": {"x": 1.5, "é": null}})
    {
        Value::Object(m) => m,
        _ => unreachable!(),
    }
}

fn client(url: TransportUrl, bound: Duration) -> RpcClient {
    RpcClient::new(url, RabbitOptions::default(), bound).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cast_delivers_oslo_bytes_and_properties() {
    let conn = lapin_conn().await;
    let server = test_server("bytes");
    let prod = Target::octavia_amphora_v2();
    let mut consumer =
        bound_queue(&conn, &[prod.routing_key(), target(&server).routing_key()]).await;
    let c = client(parsed(), Duration::from_secs(10));
    for (t, method) in [
        (target(&server), "create_load_balancer"),
        (prod, "keel_oslo_messaging_probe"),
    ] {
        c.cast(&t, method, args())
            .await
            .unwrap_or_else(|e| panic!("cast: {e:?}"));
        let d = next_delivery(&mut consumer).await;
        assert_eq!(d.exchange.as_str(), "octavia");
        assert_eq!(d.routing_key.as_str(), t.routing_key());
        let expected = envelope::cast_body(&t, method, &args(), &unique_id_of(&d.data));
        assert_eq!(
            String::from_utf8_lossy(&d.data),
            String::from_utf8_lossy(&expected)
        );
        assert_eq!(d.properties, envelope::properties());
    }
    assert!(c.connected().await);
    assert!(
        c.connection_name()
            .await
            .is_some_and(|n| n.contains(&format!(":{}:", std::process::id())))
    );
    // Many tasks at once on one client.
    let tasks: Vec<_> = (0..20)
        .map(|i| {
            let (c, t) = (c.clone(), target(&server));
            tokio::spawn(async move { c.cast(&t, &format!("m{i}"), Map::new()).await })
        })
        .collect();
    for t in tasks {
        t.await.unwrap().unwrap();
    }
    for _ in 0..20 {
        next_delivery(&mut consumer).await;
    }
}

/// A cast no queue is bound for is returned by RabbitMQ (`mandatory`) and refused, where
/// oslo.messaging's would be acked and dropped; once a queue is bound the same client's cast
/// is delivered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cast_nobody_can_receive_is_refused_not_lost() {
    let server = test_server("unrouted");
    let c = client(parsed(), Duration::from_secs(10));
    let e = c
        .cast(&target(&server), "create_load_balancer", args())
        .await
        .expect_err("no queue is bound for this routing key");
    assert!(
        matches!(
            e,
            oslo_messaging::CastError::Returned {
                reply_code: 312,
                ..
            }
        ),
        "{e:?}"
    );
    let conn = lapin_conn().await;
    let mut consumer = bound_queue(&conn, &[target(&server).routing_key()]).await;
    c.cast(&target(&server), "create_load_balancer", args())
        .await
        .unwrap_or_else(|e| panic!("cast: {e:?}"));
    let d = next_delivery(&mut consumer).await;
    assert_eq!(d.routing_key.as_str(), target(&server).routing_key());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreachable_broker_is_unavailable_within_the_bound() {
    stack_url();
    // A port nothing listens on: refused at once, retried, still Unavailable at the bound.
    let dead = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = dead.local_addr().unwrap().port();
    drop(dead);
    // A port that accepts TCP and never speaks AMQP (kombu's 5 s connect timeout > the bound).
    let silent = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let silent_port = silent.local_addr().unwrap().port();
    let held = Arc::new(Mutex::new(Vec::new()));
    let h = held.clone();
    let _silent = tokio::spawn(async move {
        while let Ok((s, _)) = silent.accept().await {
            h.lock().unwrap().push(s);
        }
    });
    for p in [port, silent_port] {
        let bound = Duration::from_secs(2);
        let c = client(via_port(p), bound);
        let t0 = Instant::now();
        let r = c.cast(&target(&test_server("dead")), "m", Map::new()).await;
        let took = t0.elapsed();
        assert!(matches!(r, Err(CastError::Unavailable { .. })), "{r:?}");
        assert!(
            took >= bound && took < bound + Duration::from_millis(500),
            "{took:?}"
        );
        assert!(!c.connected().await);
    }
}

/// A TCP proxy to the broker whose connections can be cut, and which can refuse new ones.
struct Proxy {
    port: u16,
    conns: Arc<Mutex<Vec<JoinHandle<()>>>>,
    refuse: Arc<std::sync::atomic::AtomicBool>,
    _accept: JoinHandle<()>,
}

impl Proxy {
    async fn start() -> Proxy {
        let ep = parsed().endpoints().remove(0);
        let upstream = format!(
            "{}:{}",
            if ep.host == "localhost" {
                "127.0.0.1"
            } else {
                &ep.host
            },
            ep.port
        );
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let conns: Arc<Mutex<Vec<JoinHandle<()>>>> = Arc::default();
        let refuse = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (c, r) = (conns.clone(), refuse.clone());
        let accept = tokio::spawn(async move {
            while let Ok((mut down, _)) = listener.accept().await {
                if r.load(std::sync::atomic::Ordering::SeqCst) {
                    continue; // dropped: closed at once
                }
                let upstream = upstream.clone();
                c.lock().unwrap().push(tokio::spawn(async move {
                    if let Ok(mut up) = TcpStream::connect(upstream).await {
                        let _ = tokio::io::copy_bidirectional(&mut down, &mut up).await;
                    }
                }));
            }
        });
        Proxy {
            port,
            conns,
            refuse,
            _accept: accept,
        }
    }

    fn cut(&self) {
        for h in self.conns.lock().unwrap().drain(..) {
            h.abort();
        }
    }

    fn refuse(&self, on: bool) {
        self.refuse.store(on, std::sync::atomic::Ordering::SeqCst);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failover_from_a_dead_first_host() {
    let conn = lapin_conn().await;
    let server = test_server("failover");
    let mut consumer = bound_queue(&conn, &[target(&server).routing_key()]).await;
    let dead = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let dead_port = dead.local_addr().unwrap().port();
    drop(dead);
    let good = parsed().hosts.remove(0);
    // oslo shuffles the hosts: several clients so that the dead one comes first in some.
    for _ in 0..4 {
        let mut url = via_port(dead_port);
        url.hosts.push(good.clone());
        let c = client(url, Duration::from_secs(10));
        c.cast(&target(&server), "m", Map::new())
            .await
            .unwrap_or_else(|e| panic!("{e:?}"));
        next_delivery(&mut consumer).await;
        assert!(
            c.connected_to()
                .await
                .is_some_and(|h| !h.ends_with(&format!(":{dead_port}")))
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reconnects_after_the_connection_is_cut() {
    let conn = lapin_conn().await;
    let server = test_server("reconnect");
    let mut consumer = bound_queue(&conn, &[target(&server).routing_key()]).await;
    let proxy = Proxy::start().await;
    let c = client(via_port(proxy.port), Duration::from_secs(15));
    c.cast(&target(&server), "before", Map::new())
        .await
        .unwrap();
    next_delivery(&mut consumer).await;
    let first = c.connection_name().await;

    // The TCP connection dies: the same client reconnects by itself.
    proxy.cut();
    c.cast(&target(&server), "after_cut", Map::new())
        .await
        .unwrap_or_else(|e| panic!("{e:?}"));
    next_delivery(&mut consumer).await;
    assert_ne!(c.connection_name().await, first);

    // RabbitMQ unreachable for a while: casts fail within their bound, then work again.
    proxy.refuse(true);
    proxy.cut();
    let short = RpcClient::new(
        via_port(proxy.port),
        RabbitOptions::default(),
        Duration::from_secs(2),
    )
    .unwrap();
    let t0 = Instant::now();
    let r = short.cast(&target(&server), "down", Map::new()).await;
    assert!(matches!(r, Err(CastError::Unavailable { .. })), "{r:?}");
    assert!(t0.elapsed() < Duration::from_millis(2500));
    proxy.refuse(false);
    c.cast(&target(&server), "back", Map::new())
        .await
        .unwrap_or_else(|e| panic!("{e:?}"));
    next_delivery(&mut consumer).await;

    // rabbitmqctl close_connection, when the stack exports how to run it.
    if let Ok(ctl) = std::env::var("STACK_RABBITMQCTL") {
        let name = c.connection_name().await.expect("connected");
        let mut argv = ctl.split_whitespace();
        let prog = argv.next().unwrap().to_owned();
        let base: Vec<String> = argv.map(str::to_owned).collect();
        let out = tokio::process::Command::new(&prog)
            .args(&base)
            .args(["list_connections", "pid", "client_properties"])
            .output()
            .await
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let line = text
            .lines()
            .find(|l| l.contains(&name))
            .unwrap_or_else(|| panic!("{name} not in {text}"));
        let pid = line.split_whitespace().next().unwrap();
        let st = tokio::process::Command::new(&prog)
            .args(&base)
            .args(["close_connection", pid, "keel oslo-messaging test"])
            .status()
            .await
            .unwrap();
        assert!(st.success());
        c.cast(&target(&server), "after_close", Map::new())
            .await
            .unwrap_or_else(|e| panic!("{e:?}"));
        next_delivery(&mut consumer).await;
        assert_ne!(c.connection_name().await, Some(name));
    }
}

fn python() -> String {
    if let Ok(v) = std::env::var("STACK_VENV") {
        return format!("{v}/bin/python");
    }
    "python3".into()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oslo_messaging_itself_accepts_our_exchange_and_sends_the_same_bytes() {
    let conn = lapin_conn().await;
    let server = test_server("oslo");
    let mut consumer = bound_queue(&conn, &[target(&server).routing_key()]).await;
    // Our client declares the exchange first (it already exists: a redeclaration with other
    // flags would be a 406 for us).
    let c = client(parsed(), Duration::from_secs(10));
    c.cast(&target(&server), "create_load_balancer", args())
        .await
        .unwrap();
    let ours = next_delivery(&mut consumer).await;
    // oslo.messaging with its default options declares `octavia` again and casts the same.
    let script = r#"
import json, sys
from oslo_config import cfg
import oslo_messaging as messaging
cfg.CONF([])
messaging.set_transport_defaults(control_exchange='octavia')
t = messaging.get_rpc_transport(cfg.CONF, url=sys.argv[1])
target = messaging.Target(namespace='controller', topic='octavia_provisioning_v2', version='2.0', server=sys.argv[2])
messaging.get_rpc_client(t, target).cast({}, 'create_load_balancer', **json.loads(sys.argv[3]))
t.cleanup()
"#;
    let out = tokio::process::Command::new(python())
        .args([
            "-c",
            script,
            &stack_url(),
            &server,
            &Value::Object(args()).to_string(),
        ])
        .output()
        .await
        .unwrap_or_else(|e| panic!("running {} (set STACK_VENV): {e}", python()));
    assert!(
        out.status.success(),
        "oslo.messaging cast failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs = next_delivery(&mut consumer).await;
    let rebuilt = envelope::cast_body(
        &target(&server),
        "create_load_balancer",
        &args(),
        &unique_id_of(&theirs.data),
    );
    assert_eq!(
        String::from_utf8_lossy(&theirs.data),
        String::from_utf8_lossy(&rebuilt)
    );
    assert_eq!(theirs.properties, ours.properties);
    assert_eq!(theirs.routing_key, ours.routing_key);
}

/// A TLS-terminating proxy in front of the broker, its certificate for `localhost` and
/// `127.0.0.1` signed by `ca.pem` in `dir`.
async fn tls_proxy(dir: &std::path::Path) -> (u16, JoinHandle<()>) {
    use tokio_rustls::rustls;
    use tokio_rustls::rustls::pki_types::pem::PemObject;
    use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
    test_pki::make_ca(dir, "ca");
    test_pki::make_ca(dir, "other");
    std::fs::write(
        dir.join("san.cnf"),
        "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n\
         subjectAltName=DNS:localhost,IP:127.0.0.1\n",
    )
    .unwrap();
    test_pki::openssl(
        dir,
        &[
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            "rmq.key",
            "-out",
            "rmq.csr",
            "-subj",
            "/CN=rabbitmq",
        ],
    );
    test_pki::openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            "rmq.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "rmq.pem",
            "-days",
            "2",
            "-extfile",
            "san.cnf",
        ],
    );
    let certs = CertificateDer::pem_file_iter(dir.join("rmq.pem"))
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let key = PrivateKeyDer::from_pem_file(dir.join("rmq.key")).unwrap();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(certs, key)
    .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let ep = parsed().endpoints().remove(0);
    let upstream = format!(
        "{}:{}",
        if ep.host == "localhost" {
            "127.0.0.1"
        } else {
            &ep.host
        },
        ep.port
    );
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let task = tokio::spawn(async move {
        while let Ok((down, _)) = listener.accept().await {
            let (acceptor, upstream) = (acceptor.clone(), upstream.clone());
            tokio::spawn(async move {
                let Ok(mut down) = acceptor.accept(down).await else {
                    return;
                };
                if let Ok(mut up) = TcpStream::connect(upstream).await {
                    let _ = tokio::io::copy_bidirectional(&mut down, &mut up).await;
                }
            });
        }
    });
    (port, task)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_with_ssl_ca_file() {
    let conn = lapin_conn().await;
    let server = test_server("tls");
    let mut consumer = bound_queue(&conn, &[target(&server).routing_key()]).await;
    let dir = tempfile::tempdir().unwrap();
    let (port, _proxy) = tls_proxy(dir.path()).await;
    let ca = |name: &str| dir.path().join(name).display().to_string();
    for host in ["localhost", "127.0.0.1"] {
        let mut url = via_port(port);
        url.hosts[0].hostname = host.into();
        let options = RabbitOptions {
            ssl: true,
            ssl_ca_file: ca("ca.pem"),
            ..RabbitOptions::default()
        };
        let c = RpcClient::new(url, options, Duration::from_secs(10)).unwrap();
        c.cast(&target(&server), "over_tls", args())
            .await
            .unwrap_or_else(|e| panic!("{host}: {e:?}"));
        let d = next_delivery(&mut consumer).await;
        assert_eq!(
            d.data,
            envelope::cast_body(
                &target(&server),
                "over_tls",
                &args(),
                &unique_id_of(&d.data)
            )
        );
    }
    // A CA that did not sign the broker's certificate: no connection, Unavailable naming why.
    let options = RabbitOptions {
        ssl: true,
        ssl_ca_file: ca("other.pem"),
        ..RabbitOptions::default()
    };
    let c = RpcClient::new(via_port(port), options, Duration::from_secs(2)).unwrap();
    match c.cast(&target(&server), "refused", Map::new()).await {
        Err(CastError::Unavailable {
            last_error: Some(e),
            ..
        }) => {
            assert!(e.to_string().to_lowercase().contains("certificate"), "{e}");
            // the refusal is kept as lapin's error, not its text
            assert!(
                matches!(e.cause, oslo_messaging::DialCause::Amqp(_)),
                "{e:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    // Plain AMQP to a TLS port is refused the same way (no hang past the bound).
    let c = client(via_port(port), Duration::from_secs(2));
    assert!(matches!(
        c.cast(&target(&server), "plain", Map::new()).await,
        Err(CastError::Unavailable { .. })
    ));
}
