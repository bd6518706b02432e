//! One live connection's publishing side: a confirm-mode channel shared by every cast (opened
//! on first use and again after a channel error), the exchanges declared on it (oslo's
//! `Connection._declared_exchanges`, reset with the channel), and one cast's
//! declare-publish-confirm, as oslo_messaging/_drivers/impl_rabbit.py `Connection.topic_send`
//! → `_publish` with kombu's `confirm_publish=True` transport option.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use lapin::options::{BasicPublishOptions, ConfirmSelectOptions, ExchangeDeclareOptions};
use lapin::types::FieldTable;
use lapin::{Channel, Confirmation, Connection, ExchangeKind};
use tokio::sync::Notify;
use tokio::time::{Instant, timeout_at};
use tracing::{debug, warn};

use crate::envelope::{Target, properties};
use crate::error::CastError;
use crate::options::RabbitOptions;
use crate::url::Endpoint;

/// A confirm-mode channel and the exchanges declared on it.
struct PubChannel {
    channel: Channel,
    declared: Mutex<HashSet<String>>,
}

/// A connected AMQP connection as casts use it.
pub(crate) struct Session {
    /// The lapin connection.
    pub(crate) conn: Connection,
    /// The host it is connected to.
    pub(crate) endpoint: Endpoint,
    /// Its `connection_name` client property (`<process>:<pid>:<uuid>`).
    pub(crate) name: String,
    /// Woken by a cast that saw the connection fail, so the watcher need not wait its poll.
    pub(crate) lost: Notify,
    channel: tokio::sync::Mutex<Option<Arc<PubChannel>>>,
}

fn is_durable_mismatch(e: &lapin::Error) -> bool {
    e.to_string().contains("inequivalent arg 'durable'")
}

/// `exchange.declare` of a topic exchange with oslo's flags (kombu `Exchange.declare`: not
/// passive, not internal, no arguments, waiting for declare-ok).
async fn declare_exchange(
    ch: &Channel,
    exchange: &str,
    durable: bool,
    auto_delete: bool,
) -> Result<(), lapin::Error> {
    ch.exchange_declare(
        exchange.into(),
        ExchangeKind::Topic,
        ExchangeDeclareOptions {
            passive: false,
            durable,
            auto_delete,
            internal: false,
            nowait: false,
        },
        FieldTable::default(),
    )
    .await
}

impl Session {
    pub(crate) fn new(conn: Connection, endpoint: Endpoint, name: String) -> Session {
        Session {
            conn,
            endpoint,
            name,
            lost: Notify::new(),
            channel: tokio::sync::Mutex::new(None),
        }
    }

    /// The publishing channel, opened (with `confirm.select`) when there is none or the last
    /// one was closed.
    async fn channel(&self) -> Result<Arc<PubChannel>, CastError> {
        let mut slot = self.channel.lock().await;
        if let Some(ch) = slot.as_ref()
            && ch.channel.status().connected()
        {
            return Ok(ch.clone());
        }
        let channel = self
            .conn
            .create_channel()
            .await
            .map_err(|source| CastError::Connection { source })?;
        channel
            .confirm_select(ConfirmSelectOptions::default())
            .await
            .map_err(|source| CastError::Connection { source })?;
        debug!(channel = channel.id(), "confirm-mode channel opened");
        let ch = Arc::new(PubChannel {
            channel,
            declared: Mutex::new(HashSet::new()),
        });
        *slot = Some(ch.clone());
        Ok(ch)
    }

    /// Declares `exchange` as oslo's `topic_send` does (topic, durable per
    /// [`RabbitOptions::durable`], auto-delete per `amqp_auto_delete`, no arguments) unless
    /// already declared on this channel; on RabbitMQ's `inequivalent arg 'durable'` refusal,
    /// declares it non-durable on a fresh channel, as oslo's `_publish` does.
    async fn declare(
        &self,
        ch: Arc<PubChannel>,
        exchange: &str,
        o: &RabbitOptions,
    ) -> Result<Arc<PubChannel>, CastError> {
        let known = ch
            .declared
            .lock()
            .map(|d| d.contains(exchange))
            .unwrap_or(false);
        if known {
            return Ok(ch);
        }
        let ch =
            match declare_exchange(&ch.channel, exchange, o.durable(), o.amqp_auto_delete).await {
                Ok(()) => ch,
                Err(e) if o.durable() && is_durable_mismatch(&e) => {
                    warn!(exchange, error = %e, "Force creating a non durable exchange.");
                    let ch = self.channel().await?;
                    declare_exchange(&ch.channel, exchange, false, o.amqp_auto_delete)
                        .await
                        .map_err(|source| CastError::Declare {
                            exchange: exchange.to_owned(),
                            source,
                        })?;
                    ch
                }
                Err(source) => {
                    return Err(CastError::Declare {
                        exchange: exchange.to_owned(),
                        source,
                    });
                }
            };
        if let Ok(mut d) = ch.declared.lock() {
            d.insert(exchange.to_owned());
        }
        Ok(ch)
    }

    /// Declare (once per channel), publish `body` with [`properties`] and wait for the
    /// broker's confirm, all before `deadline` (`bound` is for the error).
    pub(crate) async fn cast(
        &self,
        o: &RabbitOptions,
        target: &Target,
        routing_key: &str,
        body: &[u8],
        deadline: Instant,
        bound: Duration,
    ) -> Result<(), CastError> {
        let exchange = target.exchange.as_str();
        let timeout = |stage| CastError::Timeout {
            exchange: exchange.to_owned(),
            bound,
            stage,
        };
        let ch = timeout_at(deadline, self.channel())
            .await
            .map_err(|_| timeout("channel"))??;
        let ch = timeout_at(deadline, self.declare(ch, exchange, o))
            .await
            .map_err(|_| timeout("declare"))??;
        let publish = async {
            let confirm = ch
                .channel
                .basic_publish(
                    exchange.into(),
                    routing_key.into(),
                    // unlike oslo's topic_send: a cast no queue is bound for (no worker
                    // declared its queue yet, or it went with a broker restart) comes back
                    // (basic.return) and is refused, never acked and dropped
                    BasicPublishOptions {
                        mandatory: true,
                        immediate: false,
                    },
                    body,
                    properties(),
                )
                .await?;
            confirm.await
        };
        let confirmation = timeout_at(deadline, publish)
            .await
            .map_err(|_| timeout("confirm"))?
            .map_err(|source| CastError::Publish {
                exchange: exchange.to_owned(),
                source,
            })?;
        match confirmation {
            Confirmation::Ack(None) => Ok(()),
            Confirmation::Ack(Some(returned)) => Err(CastError::Returned {
                exchange: exchange.to_owned(),
                reply_code: returned.reply_code,
                reply_text: returned.reply_text.to_string(),
            }),
            Confirmation::Nack(_) => Err(CastError::Nacked {
                exchange: exchange.to_owned(),
                routing_key: routing_key.to_owned(),
            }),
            Confirmation::NotRequested => Err(CastError::Publish {
                exchange: exchange.to_owned(),
                source: lapin::Error::from(std::io::Error::other(
                    "publisher confirms are not enabled on the channel",
                )),
            }),
        }
    }

    /// Closes the connection politely (bounded: the peer may be gone).
    pub(crate) async fn close(&self) {
        if self.conn.status().connected() {
            let _ = tokio::time::timeout(
                Duration::from_secs(1),
                self.conn.close(200, "reconnecting".into()),
            )
            .await;
        }
    }
}
