//! Liveness and readiness.

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde::Serialize;
use utoipa::ToSchema;

use crate::AppState;

#[derive(Serialize, ToSchema)]
pub struct HealthBody {
    pub status: &'static str,
}

#[derive(Serialize, ToSchema)]
pub struct ReadyBody {
    pub status: &'static str,
    /// Protocol servers (NFS, S3, WebDAV); none is enabled in this build.
    pub protocols: serde_json::Map<String, serde_json::Value>,
    /// Spaces whose storage is unreachable.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unreachable: Vec<String>,
}

/// 200 whenever the process is up.
#[utoipa::path(get, path = "/health", tag = "health", responses((status = 200, body = HealthBody)))]
pub async fn health() -> Json<HealthBody> {
    Json(HealthBody { status: "ok" })
}

/// Same as `/health`.
#[utoipa::path(get, path = "/healthz", tag = "health", responses((status = 200, body = HealthBody)))]
pub async fn healthz() -> Json<HealthBody> {
    Json(HealthBody { status: "ok" })
}

/// 503 when the storage of a space is unreachable.
#[utoipa::path(get, path = "/readyz", tag = "health",
    responses((status = 200, body = ReadyBody), (status = 503, body = ReadyBody)))]
pub async fn readyz(State(state): State<AppState>) -> (StatusCode, Json<ReadyBody>) {
    let unreachable: Vec<String> = state
        .service
        .spaces()
        .iter()
        .filter(|s| !s.is_ready())
        .map(|s| s.name().to_string())
        .collect();
    let ready = unreachable.is_empty();
    (
        if ready {
            StatusCode::OK
        } else {
            StatusCode::SERVICE_UNAVAILABLE
        },
        Json(ReadyBody {
            status: if ready { "ok" } else { "unavailable" },
            protocols: serde_json::Map::new(),
            unreachable,
        }),
    )
}
