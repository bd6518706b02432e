//! One JSON-RPC 1.0 session on the wire (RFC 7047 §4): requests with ids and their pending
//! replies, the server's `echo` requests answered, and the request/response exchange of the
//! handshake (during which `locked`/`stolen` and `_Server` notifications are still honoured).

use std::collections::HashMap;
use std::sync::atomic::Ordering;

use serde_json::{Value as Json, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt, ReadHalf, WriteHalf};
use tokio::sync::oneshot;

use crate::error::{Error, Result};
use crate::framing::JsonSplitter;
use crate::remote::Io;
use crate::rpc::{self, Message};
use crate::server_db::{SERVER_MONITOR_ID, ServerDb};
use crate::shared::Shared;

/// A request sent and not answered yet.
pub(crate) struct Pending {
    pub(crate) method: String,
    /// For `lock`/`steal`: the lock name, so the task records ownership in message order
    /// (a `locked` notification may follow the reply immediately).
    pub(crate) lock: Option<String>,
    pub(crate) reply: Option<oneshot::Sender<Result<Json>>>,
}

/// One open connection: the two halves of the stream, the splitter that cuts the byte stream
/// into JSON values, and the requests awaiting their reply (by JSON-RPC id).
pub(crate) struct Conn {
    pub(crate) reader: ReadHalf<Box<dyn Io>>,
    pub(crate) writer: WriteHalf<Box<dyn Io>>,
    pub(crate) splitter: JsonSplitter,
    pub(crate) next_id: u64,
    pub(crate) pending: HashMap<u64, Pending>,
    pub(crate) buf: Vec<u8>,
    /// `_Server.Database` of our database; `None` when the server has no `_Server`.
    pub(crate) server: Option<ServerDb>,
    pub(crate) remote: String,
}

impl Conn {
    /// Writes `bytes` whole. Errors: [`Error::Io`].
    pub(crate) async fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.writer.write_all(bytes).await.map_err(Error::io)
    }

    /// Sends request `method` (RFC 7047 §4.1) with the next id and records it as pending;
    /// the reply goes to `reply` (`None`: dropped). Errors: [`Error::Io`].
    pub(crate) async fn send_request(
        &mut self,
        method: &str,
        params: &Json,
        reply: Option<oneshot::Sender<Result<Json>>>,
    ) -> Result<u64> {
        let id = self.next_id;
        self.next_id += 1;
        let lock = matches!(method, "lock" | "steal")
            .then(|| params.get(0).and_then(Json::as_str).map(str::to_string))
            .flatten();
        self.pending.insert(
            id,
            Pending {
                method: method.to_string(),
                lock,
                reply,
            },
        );
        self.write(&rpc::request(method, params, id)).await?;
        Ok(id)
    }

    /// Reads until one message is available. Errors: [`Error::Io`], [`Error::Eof`], the
    /// splitter's (oversized or malformed input), [`Error::Protocol`] for a value that is no
    /// JSON-RPC message.
    pub(crate) async fn next_message(&mut self) -> Result<Message> {
        loop {
            if let Some(j) = self.splitter.next_message()? {
                return Message::from_json(j);
            }
            let n = self.reader.read(&mut self.buf).await.map_err(Error::io)?;
            if n == 0 {
                return Err(Error::Eof);
            }
            self.splitter.feed(&self.buf[..n]);
        }
    }

    /// Answers `echo` (ovsdb-server's inactivity probe, RFC 7047 §4.1.11) and other requests
    /// (`unknown method`).
    pub(crate) async fn answer(&mut self, method: &str, params: Json, id: Json) -> Result<()> {
        if method == "echo" {
            self.write(&rpc::reply(&params, &id)).await
        } else {
            self.write(&rpc::error_reply("unknown method", &id)).await
        }
    }

    /// Applies a `_Server` monitor update and checks the server is still usable.
    pub(crate) fn server_update(&mut self, shared: &Shared, updates: &Json) -> Result<()> {
        let db = self.server.get_or_insert_with(ServerDb::default);
        db.apply(updates)?;
        if let Some(i) = db.index {
            shared.min_index.fetch_max(i, Ordering::Relaxed);
        }
        let min = shared.min_index.load(Ordering::Relaxed);
        match db.unsuitable(shared.options.leader_only, min) {
            Some(reason) => Err(Error::ServerUnsuitable {
                remote: self.remote.clone(),
                reason,
            }),
            None => Ok(()),
        }
    }

    /// A request/response during the handshake (no other traffic of ours is in flight).
    pub(crate) async fn call(
        &mut self,
        shared: &Shared,
        method: &str,
        params: Json,
    ) -> Result<Json> {
        let want = self.send_request(method, &params, None).await?;
        loop {
            match self.next_message().await? {
                Message::Response { id, result, error } if id.as_u64() == Some(want) => {
                    self.pending.remove(&want);
                    if error.is_null() {
                        return Ok(result);
                    }
                    return Err(Error::Rpc {
                        method: method.to_string(),
                        error,
                    });
                }
                Message::Request { method, params, id } => self.answer(&method, params, id).await?,
                Message::Notification { method, params }
                    if shared.lock_notification(&method, &params) => {}
                Message::Notification { method, params }
                    if method == "update2" && params.get(0) == Some(&json!(SERVER_MONITOR_ID)) =>
                {
                    self.server_update(shared, params.get(1).unwrap_or(&Json::Null))?;
                }
                other => tracing::debug!(?other, "OVSDB message ignored during handshake"),
            }
        }
    }
}
