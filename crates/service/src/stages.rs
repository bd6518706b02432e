//! Where a request's time goes: every span of target `keel::stage` is timed from its
//! creation to its close into `keel_stage_duration_seconds{stage, route}` (seconds; `stage`
//! is the span's name, `route` the API route template of the request it ran under, `-` for
//! work no request queued: the agent's, recovery's).
//!
//! The crates mark these stages (each name is written once, at its span):
//! - API (`api`): `auth` (token validation, cached or not), `provider_call` (the driver's
//!   synchronous part: validation, queuing).
//! - SQL (`octavia-db`): `db_begin` (pool checkout + `BEGIN`), `db_statement` (one round
//!   trip: a statement, or a batch of held writes sent as one), `db_commit`, `settle_wait`
//!   (after the commit, until the provider's outcome for the request's load balancers is
//!   committed).
//! - Provider job (`ovn-provider`): `job_wait` (queued until it starts: the commit gate and
//!   the load balancer's queue), `nb_snapshot`, `neutron_facts`, `nb_plan`,
//!   `nb_transaction`, `after_commit` (post-commit Neutron work), `status_write` (the
//!   status report applied to the Octavia DB).
//! - Neutron (`openstack`): `neutron_request` (one request and its body, the API's checks
//!   with the user's token and the provider's reads and writes alike).
//!
//! Each stage span is entered while its work runs (`#[tracing::instrument]` or `.instrument`
//! on async work, `.entered()` on sync work), so a log line written inside a stage carries it
//! and a trace exporter sees the nesting; entering does not move what is timed (creation to
//! close). Work a stage queues runs under the span that queued it, not under the stage
//! (`provider::gate::GateWaiter::origin`): a child holds its parent open, and the stage would
//! otherwise be timed until that work ended.
//!
//! A request's stages nest and overlap (a `db_statement` inside `db_commit` sends the held
//! writes; the settle wait spans the whole job), so they do not add up to the request.

use std::sync::LazyLock;
use std::time::Instant;

use prometheus::{HistogramOpts, HistogramVec};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing::{Metadata, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::filter::{FilterFn, Filtered};
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;

/// The target every stage span is created with.
pub const TARGET: &str = "keel::stage";

/// 50 µs … 1 s: a stage is a fraction of a request.
const BUCKETS: &[f64] = &[
    0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0,
];

static STAGE_SECONDS: LazyLock<HistogramVec> = LazyLock::new(|| {
    let h = HistogramVec::new(
        HistogramOpts::new(
            "keel_stage_duration_seconds",
            "time spent in one stage of a request or provider job, seconds",
        )
        .buckets(BUCKETS.to_vec()),
        &["stage", "route"],
    );
    match h {
        Ok(h) => {
            let _ = prometheus::register(Box::new(h.clone()));
            h
        }
        // the definition above is a constant: a rejected one is a bug here
        #[allow(clippy::panic)]
        Err(e) => panic!("invalid metric definition: {e}"),
    }
});

/// The `route` field of an API `request` span.
struct Route(String);

/// When a stage span began, and the route it is counted under.
struct Started(Instant, String);

/// The layer; see the module doc. Sees only stage spans and the API's `request` spans.
pub struct StageLayer;

impl StageLayer {
    /// The layer with its own filter, so a `KEEL_LOG` level does not hide the stages.
    pub fn filtered<S>() -> Filtered<Self, FilterFn, S>
    where
        S: Subscriber + for<'a> LookupSpan<'a>,
    {
        LazyLock::force(&STAGE_SECONDS);
        StageLayer.with_filter(FilterFn::new(|m: &Metadata<'_>| {
            m.is_span() && (m.target() == TARGET || m.name() == "request")
        }))
    }
}

struct RouteVisitor(Option<String>);

impl Visit for RouteVisitor {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "route" {
            self.0 = Some(value.to_owned());
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "route" {
            self.0 = Some(format!("{value:?}").trim_matches('"').to_owned());
        }
    }
}

impl<S> Layer<S> for StageLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        if attrs.metadata().target() != TARGET {
            let mut v = RouteVisitor(None);
            attrs.record(&mut v);
            if let Some(r) = v.0 {
                span.extensions_mut().insert(Route(r));
            }
            return;
        }
        let route = span
            .scope()
            .skip(1)
            .find_map(|s| s.extensions().get::<Route>().map(|r| r.0.clone()))
            .unwrap_or_else(|| "-".into());
        span.extensions_mut().insert(Started(Instant::now(), route));
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(&id) else { return };
        let ext = span.extensions();
        if let Some(Started(at, route)) = ext.get::<Started>() {
            STAGE_SECONDS
                .with_label_values(&[span.name(), route.as_str()])
                .observe(at.elapsed().as_secs_f64());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracing_subscriber::layer::SubscriberExt;

    fn count(stage: &str, route: &str) -> u64 {
        STAGE_SECONDS
            .with_label_values(&[stage, route])
            .get_sample_count()
    }

    #[test]
    fn stage_spans_are_counted_under_their_request_route() {
        let sub = tracing_subscriber::registry().with(StageLayer::filtered());
        let before = count("test_stage", "/v2/lbaas/pools");
        let outside = count("test_stage", "-");
        tracing::subscriber::with_default(sub, || {
            let req = tracing::info_span!("request", route = "/v2/lbaas/pools");
            req.in_scope(|| {
                let _inner = tracing::info_span!("provider_job").entered();
                drop(tracing::trace_span!(target: "keel::stage", "test_stage"));
            });
            drop(tracing::trace_span!(target: "keel::stage", "test_stage"));
            // a span of another target is not a stage
            drop(tracing::trace_span!("test_stage"));
        });
        assert_eq!(count("test_stage", "/v2/lbaas/pools"), before + 1);
        assert_eq!(count("test_stage", "-"), outside + 1);
    }

    /// Per event: its message and the names of the spans it ran in, innermost first.
    type Seen = std::sync::Arc<std::sync::Mutex<Vec<(String, Vec<String>)>>>;

    /// Records every event with its span scope, as a log formatter or trace exporter sees it.
    struct Capture(Seen);

    struct Message(String);

    impl Visit for Message {
        fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
            if field.name() == "message" {
                self.0 = format!("{value:?}");
            }
        }
    }

    impl<S> Layer<S> for Capture
    where
        S: Subscriber + for<'a> LookupSpan<'a>,
    {
        fn on_event(&self, event: &tracing::Event<'_>, ctx: Context<'_, S>) {
            let mut m = Message(String::new());
            event.record(&mut m);
            let scope = ctx
                .event_scope(event)
                .map(|s| s.map(|span| span.name().to_owned()).collect())
                .unwrap_or_default();
            self.0.lock().unwrap().push((m.0, scope));
        }
    }

    fn scope_of(seen: &Seen, message: &str) -> Vec<String> {
        let seen = seen.lock().unwrap();
        let found = seen.iter().find(|(m, _)| m == message);
        found.map(|(_, s)| s.clone()).unwrap_or_default()
    }

    #[tokio::test]
    async fn a_log_line_inside_a_stage_carries_the_stage_and_is_counted_once() {
        use tracing::Instrument;
        let route = "/v2/lbaas/stage-scope-test";
        let seen = Seen::default();
        let sub = tracing_subscriber::registry()
            .with(StageLayer::filtered())
            .with(Capture(seen.clone()));
        let _default = tracing::subscriber::set_default(sub);
        let calls = count("provider_call", route);
        let begins = count("db_begin", route);
        let db = octavia_db::Database::connect("sqlite::memory:")
            .await
            .unwrap();
        let request = tracing::info_span!("request", route);
        let origin = async {
            let mut tx = db.begin().await.unwrap();
            // a driver's synchronous part runs inside the API's `provider_call` stage
            let origin = api::provider_call::call_provider(&mut tx, "test", async {
                tracing::info!("driver at work");
                // the work it queues runs under the request, not under the stage
                let gate = provider::gate::current();
                let origin = gate.and_then(|g| g.origin().metadata().map(|m| m.name()));
                Ok::<_, provider::ProviderError>(origin)
            })
            .await
            .unwrap();
            tx.rollback().await.unwrap();
            origin
        }
        .instrument(request)
        .await;
        tracing::info!("outside any stage");
        assert_eq!(
            scope_of(&seen, "driver at work"),
            ["provider_call", "request"]
        );
        assert!(scope_of(&seen, "outside any stage").is_empty());
        assert_eq!(origin, Some("request"));
        // entered or not, a stage is timed once, from its creation to its close
        assert_eq!(count("provider_call", route), calls + 1);
        assert_eq!(count("db_begin", route), begins + 1);
    }
}
