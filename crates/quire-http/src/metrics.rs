//! `GET /metrics`: what an operator watches, in the Prometheus text format — per space, how far
//! commits lag behind acknowledged writes (async batching makes writes wait when this passes
//! its bounds) and how many files the link model holds.

use std::fmt::Write as _;

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;

use crate::AppState;

/// Gauges of every space.
#[utoipa::path(get, path = "/metrics", tag = "health",
    responses((status = 200, content_type = "text/plain", body = String,
        description = "Prometheus text format: `quire_commit_backlog_files`, `quire_commit_lag_seconds`, `quire_files`, per space")))]
pub async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    let spaces = state.service.spaces();
    let mut out = String::new();
    let mut gauge = |name: &str, help: &str, value: &dyn Fn(&quire_service::Space) -> String| {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge");
        for space in spaces {
            let _ = writeln!(
                out,
                "{name}{{space=\"{}\"}} {}",
                escape(space.name()),
                value(space)
            );
        }
    };
    gauge(
        "quire_commit_backlog_files",
        "Files written and acknowledged but not committed yet.",
        &|s| s.commit_backlog().files.to_string(),
    );
    gauge(
        "quire_commit_lag_seconds",
        "Age of the oldest acknowledged write not committed yet (0 when none).",
        &|s| {
            let lag = s.commit_backlog().oldest.unwrap_or_default();
            format!("{:.3}", lag.as_secs_f64())
        },
    );
    gauge("quire_files", "Files in the link model.", &|s| {
        s.file_count().to_string()
    });
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        out,
    )
}

/// A label value: `\`, `"` and newlines escaped.
fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}
