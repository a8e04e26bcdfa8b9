//! `GET /metrics`: what an operator watches, in the Prometheus text format.
//!
//! * HTTP: `quire_http_requests_total{method,route,status}` and
//!   `quire_http_request_duration_seconds{method,route}` (a histogram), by the route template
//!   that matched (`/api/quire/file`, never the raw path with its query or page names), refused
//!   requests (401, 403, 429) included; `quire_sse_subscribers` (open `/events` streams).
//! * Per space: `quire_writes_total` (pipeline passes) and `quire_files_written_total`,
//!   `quire_commits_total` and `quire_commit_duration_seconds` (a histogram of git commits),
//!   `quire_plans_total`, `quire_applies_total`, `quire_reverts_total`, and the gauges
//!   `quire_commit_backlog_files`, `quire_commit_lag_seconds` (async batching makes writes wait
//!   when these pass their bounds) and `quire_files`.
//! * Per space, with `[webhooks] enabled`: `quire_webhook_deliveries_total` (accepted by
//!   their receiver), `quire_webhook_failures_total` (failed attempts),
//!   `quire_webhook_dead_total` (given up after the last retry), and the gauges
//!   `quire_webhook_queued` and `quire_webhook_failed` (deliveries waiting, kept as failed).

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use prometheus::{Encoder, HistogramOpts, HistogramVec, IntCounterVec, IntGauge, Opts, Registry};

use crate::AppState;

/// The HTTP layer's own metrics (one registry per router).
pub struct HttpMetrics {
    registry: Registry,
    requests: IntCounterVec,
    latency: HistogramVec,
    pub(crate) sse: IntGauge,
}

impl HttpMetrics {
    pub fn new() -> HttpMetrics {
        let registry = Registry::new();
        let requests = IntCounterVec::new(
            Opts::new(
                "quire_http_requests_total",
                "HTTP requests answered, by route template and status.",
            ),
            &["method", "route", "status"],
        )
        .expect("valid metric");
        let latency = HistogramVec::new(
            HistogramOpts::new(
                "quire_http_request_duration_seconds",
                "Time to answer HTTP requests (to the start of the body), by route template.",
            )
            .buckets(vec![
                0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
            ]),
            &["method", "route"],
        )
        .expect("valid metric");
        let sse =
            IntGauge::new("quire_sse_subscribers", "Open /events streams.").expect("valid metric");
        for metric in [
            Box::new(requests.clone()) as Box<dyn prometheus::core::Collector>,
            Box::new(latency.clone()),
            Box::new(sse.clone()),
        ] {
            registry.register(metric).expect("registered once");
        }
        HttpMetrics {
            registry,
            requests,
            latency,
            sse,
        }
    }

    fn render(&self) -> String {
        let mut out = Vec::new();
        let _ = prometheus::TextEncoder::new().encode(&self.registry.gather(), &mut out);
        String::from_utf8(out).unwrap_or_default()
    }
}

impl Default for HttpMetrics {
    fn default() -> Self {
        HttpMetrics::new()
    }
}

/// Counts every routed request by its route template (a route layer, so the template is
/// known; outside the gate, so refusals count too).
pub async fn track(
    State(metrics): State<Arc<HttpMetrics>>,
    request: Request,
    next: Next,
) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map(|m| m.as_str().to_string())
        .unwrap_or_else(|| "unmatched".to_string());
    let method = request.method().as_str().to_string();
    let started = Instant::now();
    let response = next.run(request).await;
    metrics
        .latency
        .with_label_values(&[&method, &route])
        .observe(started.elapsed().as_secs_f64());
    metrics
        .requests
        .with_label_values(&[&method, &route, response.status().as_str()])
        .inc();
    response
}

/// Decrements the SSE gauge when a stream ends (the client went away).
pub(crate) struct SseGuard(IntGauge);

impl SseGuard {
    /// Counts one more open stream, or `None` when `max` are open already. Counted first and
    /// checked after, so that two streams opening at once can both be refused but never both
    /// pass the limit.
    pub(crate) fn open(gauge: &IntGauge, max: usize) -> Option<SseGuard> {
        gauge.inc();
        let guard = SseGuard(gauge.clone());
        (gauge.get() <= max as i64).then_some(guard)
    }
}

impl Drop for SseGuard {
    fn drop(&mut self) {
        self.0.dec();
    }
}

/// Metrics of the HTTP layer and of every space.
#[utoipa::path(get, path = "/metrics", tag = "health",
    responses((status = 200, content_type = "text/plain", body = String,
        description = "Prometheus text format: HTTP requests and latency per route template, SSE subscribers, and per space writes, commits and commit duration, plans, applies, reverts, the commit backlog and lag, files")))]
pub async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    let mut out = state.metrics.render();
    let spaces = state.service.spaces();
    let readings: Vec<(String, quire_service::SpaceMetrics)> = spaces
        .iter()
        .map(|s| (escape(s.name()), s.metrics()))
        .collect();
    let mut family =
        |name: &str,
         kind: &str,
         help: &str,
         value: &dyn Fn(&quire_service::Space, &quire_service::SpaceMetrics) -> String| {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
            for (space, (label, reading)) in spaces.iter().zip(&readings) {
                let _ = writeln!(out, "{name}{{space=\"{label}\"}} {}", value(space, reading));
            }
        };
    family(
        "quire_writes_total",
        "counter",
        "Passes of the write pipeline (one per change, whatever its files).",
        &|_, m| m.writes.to_string(),
    );
    family(
        "quire_files_written_total",
        "counter",
        "Files written or deleted by the write pipeline.",
        &|_, m| m.files_written.to_string(),
    );
    family(
        "quire_commits_total",
        "counter",
        "Git commits made.",
        &|_, m| m.commits.count.to_string(),
    );
    family(
        "quire_plans_total",
        "counter",
        "Restructuring plans made.",
        &|_, m| m.plans.to_string(),
    );
    family(
        "quire_applies_total",
        "counter",
        "Restructurings applied.",
        &|_, m| m.applies.to_string(),
    );
    family(
        "quire_reverts_total",
        "counter",
        "Commits reverted.",
        &|_, m| m.reverts.to_string(),
    );
    family(
        "quire_commit_backlog_files",
        "gauge",
        "Files written and acknowledged but not committed yet.",
        &|s, _| s.commit_backlog().files.to_string(),
    );
    family(
        "quire_commit_lag_seconds",
        "gauge",
        "Age of the oldest acknowledged write not committed yet (0 when none).",
        &|s, _| {
            format!(
                "{:.3}",
                s.commit_backlog().oldest.unwrap_or_default().as_secs_f64()
            )
        },
    );
    family(
        "quire_files",
        "gauge",
        "Files in the link model.",
        &|s, _| s.file_count().to_string(),
    );
    if let Some(webhooks) = &state.webhooks {
        webhook_families(&mut out, webhooks.as_ref());
    }
    vector_families(&mut out, &spaces);
    let name = "quire_commit_duration_seconds";
    let _ = writeln!(
        out,
        "# HELP {name} Time to make a git commit.\n# TYPE {name} histogram"
    );
    for (label, m) in &readings {
        for (bound, count) in quire_service::COMMIT_BUCKETS
            .iter()
            .zip(&m.commits.cumulative)
        {
            let _ = writeln!(
                out,
                "{name}_bucket{{space=\"{label}\",le=\"{bound}\"}} {count}"
            );
        }
        let _ = writeln!(
            out,
            "{name}_bucket{{space=\"{label}\",le=\"+Inf\"}} {}",
            m.commits.count
        );
        let _ = writeln!(
            out,
            "{name}_sum{{space=\"{label}\"}} {:.6}",
            m.commits.seconds
        );
        let _ = writeln!(out, "{name}_count{{space=\"{label}\"}} {}", m.commits.count);
    }
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        out,
    )
}

/// Vector search's gauges and counters, for the spaces that have it.
fn vector_families(out: &mut String, spaces: &[Arc<quire_service::Space>]) {
    let readings: Vec<(String, quire_service::VectorStatus)> = spaces
        .iter()
        .filter_map(|s| Some((escape(s.name()), s.vector_status()?)))
        .collect();
    if readings.is_empty() {
        return;
    }
    type Read = fn(&quire_service::VectorStatus) -> String;
    let families: [(&str, &str, &str, Read); 5] = [
        (
            "quire_vector_backlog_pages",
            "gauge",
            "Pages waiting to be embedded.",
            |v| v.backlog.to_string(),
        ),
        (
            "quire_vector_chunks",
            "gauge",
            "Chunks in the vector store.",
            |v| v.chunks.to_string(),
        ),
        (
            "quire_vector_embedded_chunks_total",
            "counter",
            "Chunks sent to the embedder.",
            |v| v.embedded.to_string(),
        ),
        (
            "quire_vector_reused_chunks_total",
            "counter",
            "Chunks that took a stored vector instead of the embedder's.",
            |v| v.reused.to_string(),
        ),
        (
            "quire_vector_failing",
            "gauge",
            "1 while the embedder or the vector store fails (see /readyz for why), else 0.",
            |v| u8::from(v.last_error.is_some()).to_string(),
        ),
    ];
    for (name, kind, help, read) in families {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
        for (label, status) in &readings {
            let _ = writeln!(out, "{name}{{space=\"{label}\"}} {}", read(status));
        }
    }
}

/// The webhook counters and gauges of every space.
fn webhook_families(out: &mut String, webhooks: &dyn quire_service::WebhookRegistry) {
    let readings: Vec<(String, quire_service::WebhookMetrics)> = webhooks
        .all_spaces()
        .iter()
        .map(|s| (escape(s.space_name()), s.metrics()))
        .collect();
    type Reading = fn(&quire_service::WebhookMetrics) -> u64;
    let families: [(&str, &str, &str, Reading); 5] = [
        (
            "quire_webhook_deliveries_total",
            "counter",
            "Webhook deliveries accepted by their receiver (a 2xx answer).",
            |m| m.delivered,
        ),
        (
            "quire_webhook_failures_total",
            "counter",
            "Webhook delivery attempts that failed (an answer other than 2xx, or no answer).",
            |m| m.failed_attempts,
        ),
        (
            "quire_webhook_dead_total",
            "counter",
            "Webhook deliveries given up after their last retry.",
            |m| m.gave_up,
        ),
        (
            "quire_webhook_queued",
            "gauge",
            "Webhook deliveries waiting to be sent or retried.",
            |m| m.queued,
        ),
        (
            "quire_webhook_failed",
            "gauge",
            "Webhook deliveries kept as failed (see GET /webhooks/{id}/deliveries).",
            |m| m.failed,
        ),
    ];
    for (name, kind, help, value) in families {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
        for (label, reading) in &readings {
            let _ = writeln!(out, "{name}{{space=\"{label}\"}} {}", value(reading));
        }
    }
}

/// A label value: `\`, `"` and newlines escaped.
fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}
