//! The client side of oslo.messaging 18.2.0's RPC over RabbitMQ — casts only — so that Keel's
//! API can hand work to the operator's Python `octavia-worker` exactly as Octavia's own API
//! does (octavia/api/drivers/amphora_driver/v2/driver.py → `RPCClient.cast`).
//!
//! What goes on the wire is oslo.messaging's rabbit driver's, byte for byte: the envelope
//! ([`envelope::cast_body`]), the AMQP properties ([`envelope::properties`]), the exchange's
//! declaration flags ([`RabbitOptions::durable`], `amqp_auto_delete`) and the routing key
//! ([`Target::routing_key`]). The transport URL and the `[oslo_messaging_rabbit]` options are
//! read as oslo reads them ([`TransportUrl`], [`RabbitOptions`]); the connection is kept up and
//! failed over as kombu does ([`RpcClient`]). AMQP itself is lapin's; TLS is rustls (ring).
//!
//! | module | follows |
//! |---|---|
//! | [`url`] | oslo_messaging/transport.py `TransportURL.parse`, impl_rabbit.py `_transform_transport_url`, kombu's URL defaults |
//! | [`options`] | impl_rabbit.py `rabbit_opts`, amqp.py `amqp_opts`, common.py `ConfigOptsProxy` |
//! | [`envelope`] | rpc/client.py `_make_message`, amqpdriver.py `_send`, common.py `serialize_msg`, kombu `Producer.publish` |
//! | `pyjson` | Python's `json.dumps` defaults (jsonutils, kombu.utils.json) |
//! | `tls` | impl_rabbit.py `_fetch_ssl_params`, py-amqp `SSLTransport._wrap_socket_sni` |
//! | `backoff`, `connection` | kombu connection.py `_ensure_connection`, impl_rabbit.py `ensure_connection`/`ensure` |
//! | `session`, [`client`] | impl_rabbit.py `topic_send`/`_publish` with `confirm_publish` |
//!
//! ```
//! use oslo_messaging::{RabbitOptions, Target, TransportUrl, envelope};
//!
//! let url = TransportUrl::parse("rabbit://octavia:p%40ss@10.0.0.1:5672,octavia:p%40ss@10.0.0.2//")?;
//! assert_eq!(url.to_string(), "rabbit://octavia:****@10.0.0.1:5672,octavia:****@10.0.0.2//");
//! assert_eq!(url.endpoints()[1].password, "p@ss");
//! let options = RabbitOptions::default().with_url_query(&url)?;
//! options.check()?;
//!
//! let target = Target::octavia_amphora_v2();
//! let mut args = serde_json::Map::new();
//! args.insert("loadbalancer_id".into(), "0f4b".into());
//! let body = envelope::cast_body(&target, "create_load_balancer", &args, "00112233445566778899aabbccddeeff");
//! assert_eq!(
//!     String::from_utf8(body)?,
//!     r#"{"oslo.version": "2.0", "oslo.message": "{\"method\": \"create_load_balancer\", \"args\": {\"loadbalancer_id\": \"0f4b\"}, \"namespace\": \"controller\", \"version\": \"2.0\", \"_unique_id\": \"00112233445566778899aabbccddeeff\"}"}"#
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! With a broker, `RpcClient::new(url, options, Duration::from_secs(10))?` then
//! `client.cast(&target, "create_load_balancer", args).await?` (inside a tokio runtime).

mod backoff;
pub mod client;
mod connection;
pub mod envelope;
pub mod error;
pub mod options;
mod pyjson;
mod session;
mod tls;
pub mod url;

pub use client::RpcClient;
pub use envelope::Target;
pub use error::{CastError, ConfigError, DialCause, DialError, TlsFileCause};
pub use options::{FailoverStrategy, LoginMethod, RabbitOptions};
pub use url::{Endpoint, TransportHost, TransportUrl};
