//! Liveness and readiness.

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use quire_api::{Health, Ready};

use crate::AppState;

/// 200 whenever the process is up.
#[utoipa::path(get, path = "/health", tag = "health", responses((status = 200, body = Health)))]
pub async fn health() -> Json<Health> {
    Json(Health {
        status: "ok".into(),
    })
}

/// Same as `/health`.
#[utoipa::path(get, path = "/healthz", tag = "health", responses((status = 200, body = Health)))]
pub async fn healthz() -> Json<Health> {
    Json(Health {
        status: "ok".into(),
    })
}

/// 503 when the storage of a space is unreachable or an enabled protocol server does not
/// serve.
#[utoipa::path(get, path = "/readyz", tag = "health",
    responses((status = 200, body = Ready), (status = 503, body = Ready)))]
pub async fn readyz(State(state): State<AppState>) -> (StatusCode, Json<Ready>) {
    let unreachable: Vec<String> = state
        .service
        .spaces()
        .iter()
        .filter(|s| !s.is_ready())
        .map(|s| s.name().to_string())
        .collect();
    let protocols = state.protocols.as_ref().clone();
    let ready = unreachable.is_empty() && protocols.values().all(|p| !p.enabled || p.healthy);
    (
        if ready {
            StatusCode::OK
        } else {
            StatusCode::SERVICE_UNAVAILABLE
        },
        Json(Ready {
            status: if ready { "ok" } else { "unavailable" }.into(),
            protocols,
            unreachable,
            vectors: state
                .service
                .spaces()
                .iter()
                .filter_map(|s| {
                    let v = s.vector_status()?;
                    Some((
                        s.name().to_string(),
                        quire_api::VectorHealth {
                            model: v.model,
                            dimensions: v.dimensions,
                            store: v.store,
                            backlog: v.backlog,
                            pages: v.pages,
                            chunks: v.chunks,
                            last_error: v.last_error,
                        },
                    ))
                })
                .collect(),
        }),
    )
}
