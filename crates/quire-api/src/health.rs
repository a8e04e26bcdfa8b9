//! Liveness and readiness.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `/health`, `/healthz`: the process is up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Health {
    /// Always `ok`.
    pub status: String,
}

/// `/readyz`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Ready {
    /// `ok`, or `unavailable` (with status 503).
    pub status: String,
    /// Protocol servers (NFS, S3, WebDAV) by name: `{enabled, healthy, port, error}`. None is
    /// built yet, so the map is empty.
    #[schema(value_type = Object)]
    pub protocols: serde_json::Map<String, serde_json::Value>,
    /// Spaces whose storage is unreachable.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unreachable: Vec<String>,
}
