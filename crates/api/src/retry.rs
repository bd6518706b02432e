//! Running a write again when MariaDB chose its transaction as a deadlock victim (error 1213).
//! InnoDB, or Galera when the commit fails certification against a write of another node
//! (it reports the same 1213), then rolls back the whole transaction, so nothing of the
//! request is stored; the provider work the request queued waits for the commit
//! (`provider::gate`) and is dropped unrun. Running the request again from its start is
//! safe unless the request already changed something outside the database: a VIP port
//! create in Neutron ([`side_effect`], called before `create_vip_port`). It is what
//! oslo.db's `wrap_db_retry(retry_on_deadlock=True)` does for other OpenStack services.
//! After such a side effect a deadlock answers 500 as before.
//!
//! A request is run at most [`ATTEMPTS`] times; the last answer is returned as it is.

use std::cell::Cell;

use axum::body::Body;
use axum::extract::Request;
use axum::http::Method;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::fault::{ApiError, Deadlocked};

/// Runs of one request, the first included.
pub const ATTEMPTS: usize = 3;

tokio::task_local! {
    /// Set once the request's handler changed something outside the database (see
    /// [`side_effect`]).
    static PROVIDER_CALLED: Cell<bool>;
}

/// Records that the request in this task is about to change something outside the database
/// that no rollback undoes (a Neutron port): from here on it is never run again. Outside
/// [`retry_deadlock_victims`] a no-op.
pub fn side_effect() {
    let _ = PROVIDER_CALLED.try_with(|c| c.set(true));
}

/// True when a failure of this task's request may be retried: it runs under
/// [`retry_deadlock_victims`] and made no [`side_effect`] yet.
pub fn may_retry() -> bool {
    PROVIDER_CALLED.try_with(|c| !c.get()).unwrap_or(false)
}

/// Middleware: runs a POST/PUT/DELETE again while its response is marked [`Deadlocked`] and
/// [`may_retry`] held when it was made (up to [`ATTEMPTS`] runs). The body was already read
/// whole by the body-size limit.
pub async fn retry_deadlock_victims(req: Request, next: Next) -> Response {
    if matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS) {
        let resp = next.run(req).await;
        log_final(&resp);
        return resp;
    }
    let (parts, body) = req.into_parts();
    let bytes = match axum::body::to_bytes(body, usize::MAX).await {
        Ok(b) => b,
        Err(e) => return ApiError::BadRequest(format!("unreadable body: {e}")).into_response(),
    };
    let mut attempt = 1;
    loop {
        let req = Request::from_parts(parts.clone(), Body::from(bytes.clone()));
        let (resp, retryable) = PROVIDER_CALLED
            .scope(Cell::new(false), async {
                let resp = next.clone().run(req).await;
                let retryable = resp.extensions().get::<Deadlocked>().is_some() && may_retry();
                (resp, retryable)
            })
            .await;
        if !retryable {
            log_final(&resp);
            return resp;
        }
        if attempt >= ATTEMPTS {
            tracing::error!(
                method = %parts.method, uri = %parts.uri, runs = attempt,
                "request failed: a deadlock victim at every run"
            );
            return resp;
        }
        tracing::info!(
            method = %parts.method, uri = %parts.uri, run = attempt,
            "deadlock victim, nothing outside the database changed: running the request again"
        );
        attempt += 1;
    }
}

/// A deadlock answer that is not run again is logged as every other 500 is
/// (`fault::ApiError`'s `IntoResponse`).
fn log_final(resp: &Response) {
    if let Some(Deadlocked(error)) = resp.extensions().get::<Deadlocked>() {
        tracing::error!(%error, "request failed");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn only_a_request_without_side_effects_may_run_again() {
        assert!(!may_retry(), "outside the middleware nothing is retried");
        PROVIDER_CALLED
            .scope(Cell::new(false), async {
                assert!(may_retry());
                side_effect();
                assert!(!may_retry(), "after a side effect never again");
            })
            .await;
    }
}
