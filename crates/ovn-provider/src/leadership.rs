//! Who may act as the agent: exactly one process across Keel and the Python provider agent.
//!
//! Keel processes elect among themselves with their own NB lock ([`AGENT_LOCK`]).
//! The Python agent (`ovn_octavia_provider/agent.py`) takes `neutron_ovn_octavia_event_lock`
//! on the NB and, separately, on the SB, and handles NB events while it holds the NB one and
//! SB events while it holds the SB one. So that the two kinds never both act on one NB (during
//! a migration both run by design), Keel's elected process also asks for the Python lock on
//! both databases and is *active* only while it holds all three:
//!
//! * a Python agent that holds its locks keeps them; Keel waits (queued behind it);
//! * when the holder dies, ovsdb-server grants the lock to the next in line: a Keel
//!   that was waiting becomes active, and a Python agent queued behind an active Keel stays
//!   contended (it ignores events);
//! * holding only one of the two Python locks (the Python agent holds the other, e.g. after
//!   one of its connections dropped) would leave events nobody handles: after
//!   [`PARTIAL_GRACE`] Keel gives back what it holds and asks again, so the Python agent ends
//!   up with both and Keel queues behind it.
//!
//! Only the elected Keel asks for the Python lock, so among many Keel replicas one at most
//! waits in that queue.

use std::time::Duration;

use tokio::sync::watch;

/// The OVSDB lock Keel processes elect their agent with, on the NB (an RFC 7047 `<id>`).
pub const AGENT_LOCK: &str = "keel_ovn_provider_agent";

/// The lock name the Python provider agent takes on the NB and on the SB
/// (`OVN_EVENT_LOCK_NAME` in ovn_octavia_provider/agent.py).
pub const REFERENCE_AGENT_LOCK: &str = "neutron_ovn_octavia_event_lock";

/// How long the elected Keel keeps one Python lock without the other before giving both
/// back (see the module doc). Long enough for ovsdb-server to grant two queued locks after
/// their holder's connection dropped, short against a probe interval.
pub const PARTIAL_GRACE: Duration = Duration::from_secs(3);

/// The locks an agent runs under: its own NB lock, and the Python agent's lock name to hold
/// on NB and SB as well (`None`: compete with Keel processes only, as tests sharing an NB
/// with a running Keel do).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentLocks {
    /// Keel's election lock, on the NB.
    pub own: String,
    /// The Python agent's lock, taken on NB and SB while `own` is held.
    pub reference: Option<String>,
}

impl AgentLocks {
    /// Keel's production set: [`AGENT_LOCK`] plus [`REFERENCE_AGENT_LOCK`].
    pub fn production() -> Self {
        AgentLocks {
            own: AGENT_LOCK.to_string(),
            reference: Some(REFERENCE_AGENT_LOCK.to_string()),
        }
    }

    /// Only the election lock `own`, no cross-kind exclusion.
    pub fn own_only(own: &str) -> Self {
        AgentLocks {
            own: own.to_string(),
            reference: None,
        }
    }

    /// Gives every lock of this set back on `nb` and `sb` (a stopping agent: another
    /// process takes over at once instead of after the connection closes).
    pub async fn release(&self, nb: &ovsdb::Client, sb: &ovsdb::Client) {
        if let Some(r) = &self.reference {
            give_back(nb, sb, r).await;
        }
        let _ = nb.unlock(&self.own).await;
    }
}

/// The running election: [`Leadership::active`] is `true` while this process may act as the
/// agent. Dropping it stops following the locks (it does not release them: see
/// [`AgentLocks::release`]).
pub struct Leadership {
    active: watch::Receiver<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl Leadership {
    /// Asks for `locks.own` on `nb` and follows it; once granted, asks for the reference lock
    /// on `nb` and `sb` too. The first answer of each request is in before this returns, so
    /// [`Leadership::active`] starts at what the servers granted. Errors: only the first lock
    /// request (invalid name, NB gone).
    pub async fn start(
        nb: ovsdb::Client,
        sb: ovsdb::Client,
        locks: AgentLocks,
    ) -> Result<Self, ovsdb::Error> {
        let own = nb.lock(&locks.own).await?;
        let elected = *own.borrow();
        let first = match (&locks.reference, elected) {
            (Some(name), true) => ask(&nb, &sb, name).await,
            _ => (None, None),
        };
        let (tx, active) = watch::channel(is_active(&locks, elected, &first));
        let task = tokio::spawn(follow(nb, sb, locks, own, first, tx));
        Ok(Leadership { active, task })
    }

    /// A watch of "this process is the active agent".
    pub fn active(&self) -> watch::Receiver<bool> {
        self.active.clone()
    }
}

impl Drop for Leadership {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The reference lock's watches on NB and SB (`None`: not requested, or the request failed).
type Watches = (Option<watch::Receiver<bool>>, Option<watch::Receiver<bool>>);

async fn follow(
    nb: ovsdb::Client,
    sb: ovsdb::Client,
    locks: AgentLocks,
    mut own: watch::Receiver<bool>,
    first: Watches,
    tx: watch::Sender<bool>,
) {
    // the reference lock's watches on NB and SB, while the election lock is held
    let (mut ref_nb, mut ref_sb) = first;
    let mut since: Option<tokio::time::Instant> = None;
    loop {
        let elected = *own.borrow_and_update();
        if let Some(name) = &locks.reference {
            let asked = ref_nb.is_some() && ref_sb.is_some();
            if elected && !asked && since.is_none() {
                (ref_nb, ref_sb) = ask(&nb, &sb, name).await;
            } else if !elected && asked {
                (ref_nb, ref_sb) = (None, None);
                give_back(&nb, &sb, name).await;
            }
        }
        let watches = (ref_nb.clone(), ref_sb.clone());
        let active = is_active(&locks, elected, &watches);
        tx.send_if_modified(|a| std::mem::replace(a, active) != active);
        let (nb_held, sb_held) = (held(&ref_nb), held(&ref_sb));
        // one Python lock without the other, or a request that failed: retry after the grace
        let stuck = locks.reference.is_some()
            && elected
            && (nb_held != sb_held || ref_nb.is_none() || ref_sb.is_none());
        since = match (stuck, since) {
            (true, None) => Some(tokio::time::Instant::now()),
            (true, s) => s,
            (false, _) => None,
        };
        tokio::select! {
            c = own.changed() => if c.is_err() { break },
            c = changed(&mut ref_nb) => if c.is_err() { ref_nb = None },
            c = changed(&mut ref_sb) => if c.is_err() { ref_sb = None },
            () = sleep_until(since.map(|s| s + PARTIAL_GRACE)) => {
                if let Some(name) = &locks.reference {
                    tracing::info!(lock = %name, "holding one of the Python agent's two locks (or none could be requested): giving both back and queueing again");
                    (ref_nb, ref_sb) = (None, None);
                    give_back(&nb, &sb, name).await;
                }
                since = None;
            }
        }
    }
    tx.send_replace(false);
}

fn held(rx: &Option<watch::Receiver<bool>>) -> bool {
    rx.as_ref().is_some_and(|r| *r.borrow())
}

/// Elected, and (when the set has one) holding the reference lock on both databases.
fn is_active(locks: &AgentLocks, elected: bool, (nb, sb): &Watches) -> bool {
    elected && (locks.reference.is_none() || (held(nb) && held(sb)))
}

/// Requests `name` on both databases; a side whose request failed is `None` (retried after
/// [`PARTIAL_GRACE`]).
async fn ask(nb: &ovsdb::Client, sb: &ovsdb::Client, name: &str) -> Watches {
    let on = |r: Result<watch::Receiver<bool>, ovsdb::Error>, db: &str| {
        r.map_err(
            |e| tracing::warn!(lock = name, db, error = %e, "Python agent lock not requested"),
        )
        .ok()
    };
    (on(nb.lock(name).await, "NB"), on(sb.lock(name).await, "SB"))
}

async fn give_back(nb: &ovsdb::Client, sb: &ovsdb::Client, name: &str) {
    let _ = sb.unlock(name).await;
    let _ = nb.unlock(name).await;
}

async fn changed(rx: &mut Option<watch::Receiver<bool>>) -> Result<(), watch::error::RecvError> {
    match rx {
        Some(r) => r.changed().await,
        None => std::future::pending().await,
    }
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}
