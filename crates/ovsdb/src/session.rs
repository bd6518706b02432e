//! The connection's life: open a remote, handshake, serve requests and notifications, probe
//! for inactivity, and on failure move to the next remote with a capped exponential backoff.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tokio::sync::{mpsc, oneshot};

use crate::conn::Conn;
use crate::error::{Error, Result};
use crate::framing::JsonSplitter;
use crate::monitor::{handle, handshake};
use crate::options::MonitorSpec;
use crate::remote::Remote;
use crate::shared::{Command, Shared};

/// Why a session ended.
enum End {
    /// All handles dropped.
    Closed,
    /// The connection failed; `synced` tells whether it had completed a sync.
    Failed { error: Error, synced: bool },
}

/// The background task of a [`crate::Client`]: sessions one after another over `remotes`
/// (in turn; the backoff grows once per full pass) until every handle is dropped. The first
/// outcome goes to `first`: `Ok` once synced, or the error after every remote failed once
/// (servers that answer but are unusable are retried until `connect_timeout`).
pub(crate) async fn run(
    remotes: Vec<Remote>,
    monitor: MonitorSpec,
    shared: Arc<Shared>,
    mut cmd_rx: mpsc::UnboundedReceiver<Command>,
    first: oneshot::Sender<Result<()>>,
) {
    let opts = shared.options.clone();
    let mut first = Some(first);
    let started = tokio::time::Instant::now();
    let mut backoff = opts.backoff_initial;
    let mut attempt = 0usize;
    // Failures since the last successful sync; the backoff grows once per full pass over the
    // remote list, so moving to the next server of a cluster is immediate.
    let mut failures = 0usize;
    loop {
        let index = attempt % remotes.len();
        let remote = &remotes[index];
        attempt += 1;
        match session(index, remote, &monitor, &shared, &mut cmd_rx, &mut first).await {
            End::Closed => return,
            End::Failed { error, synced } => {
                shared.state.send_modify(|s| s.connected = false);
                shared.drop_locks();
                if synced {
                    backoff = opts.backoff_initial;
                    failures = 0;
                }
                failures += 1;
                if first.is_some() {
                    // First connect: every remote once; then keep cycling only while servers
                    // answer but are unusable (a cluster still electing), up to connect_timeout.
                    let unsuitable = matches!(error, Error::ServerUnsuitable { .. });
                    let in_time = started.elapsed() < opts.connect_timeout;
                    if attempt >= remotes.len() && !(unsuitable && in_time) {
                        if let Some(f) = first.take() {
                            let _ = f.send(Err(error));
                        }
                        return;
                    }
                } else {
                    tracing::warn!(remote = %remote, db = %shared.database, %error,
                        "OVSDB connection lost or unusable; reconnecting");
                }
                if !failures.is_multiple_of(remotes.len()) {
                    continue;
                }
                let sleep = tokio::time::sleep(backoff);
                tokio::pin!(sleep);
                loop {
                    tokio::select! {
                        _ = &mut sleep => break,
                        c = cmd_rx.recv() => match c {
                            None => return,
                            Some(c) => { let _ = c.reply.send(Err(Error::Disconnected)); }
                        },
                    }
                }
                backoff = (backoff * 2).min(opts.backoff_max);
            }
        }
    }
}

/// One connection to `remote`, from open and handshake to its end: serves the handles'
/// requests, applies what the server sends and probes a silent server. On the way out every
/// pending request fails ([`Error::OutcomeUnknown`] for a `transact` on the wire, else
/// [`Error::Disconnected`]).
async fn session(
    index: usize,
    remote: &Remote,
    monitor: &MonitorSpec,
    shared: &Shared,
    cmd_rx: &mut mpsc::UnboundedReceiver<Command>,
    first: &mut Option<oneshot::Sender<Result<()>>>,
) -> End {
    let opts = &shared.options;
    let failed = |error| End::Failed {
        error,
        synced: false,
    };
    let stream = match remote.open(opts.connect_timeout, opts.ssl.as_ref()).await {
        Ok(s) => s,
        Err(e) => return failed(e),
    };
    let (reader, writer) = tokio::io::split(stream);
    let mut conn = Conn {
        reader,
        writer,
        splitter: JsonSplitter::new(opts.max_message_bytes),
        next_id: 1,
        pending: HashMap::new(),
        buf: vec![0; 64 * 1024],
        server: None,
        remote: remote.to_string(),
    };
    let synced = match tokio::time::timeout(
        opts.handshake_timeout,
        handshake(&mut conn, monitor, shared),
    )
    .await
    {
        Ok(Ok(v)) => v,
        Ok(Err(e)) => return failed(e),
        Err(_) => return failed(Error::Timeout),
    };
    let version = synced.version;
    shared.state.send_modify(|s| {
        s.connected = true;
        s.syncs += 1;
        s.resumed = synced.resumed;
        s.sync_rows = synced.rows;
        s.remote = index;
    });
    if let Some(f) = first.take() {
        let _ = f.send(Ok(()));
    }
    tracing::info!(remote = %remote, db = %shared.database, ?version, resumed = synced.resumed,
        rows = synced.rows, "OVSDB replica synced");

    // Inactivity probe: silence for one interval → echo; for another → give up.
    let probe = opts.inactivity_probe;
    let mut last_rx = tokio::time::Instant::now();
    let mut probing = false;
    let error = loop {
        let deadline = last_rx + probe.unwrap_or(Duration::from_secs(3600));
        let step: Result<bool> = tokio::select! {
            biased;
            m = conn.next_message() => match m {
                Ok(m) => {
                    last_rx = tokio::time::Instant::now();
                    probing = false;
                    handle(&mut conn, shared, m, version).await.map(|_| true)
                }
                Err(e) => Err(e),
            },
            _ = tokio::time::sleep_until(deadline), if probe.is_some() => {
                if probing {
                    Err(Error::InactivityTimeout)
                } else {
                    probing = true;
                    last_rx = tokio::time::Instant::now();
                    conn.send_request("echo", &json!(["keel-probe"]), None).await.map(|_| true)
                }
            },
            c = cmd_rx.recv() => match c {
                None => Ok(false),
                Some(c) => conn.send_request(&c.method, &c.params, Some(c.reply)).await.map(|_| true),
            },
        };
        match step {
            Ok(true) => {}
            Ok(false) => return End::Closed,
            Err(e) => break e,
        }
    };
    for (_, p) in conn.pending.drain() {
        if let Some(r) = p.reply {
            // A transaction already on the wire may have committed.
            let e = if p.method == "transact" {
                Error::OutcomeUnknown
            } else {
                Error::Disconnected
            };
            let _ = r.send(Err(e));
        }
    }
    End::Failed {
        error,
        synced: true,
    }
}
