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
    /// The protocol servers of the spec (`nfs`, `s3`, `webdav`) by name. None is built in this
    /// version: one that the configuration enables is unhealthy (and `/readyz` answers 503)
    /// with an `error` saying so.
    pub protocols: std::collections::BTreeMap<String, ProtocolStatus>,
    /// Spaces whose storage is unreachable.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unreachable: Vec<String>,
    /// Vector search of each space that has it on. A failing embedder does not make the
    /// server unready (writes and full-text search go on): `last_error` says why embeddings
    /// lag, `backlog` how far.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub vectors: std::collections::BTreeMap<String, VectorHealth>,
}

/// Vector search of one space in `/readyz`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct VectorHealth {
    pub model: String,
    pub dimensions: usize,
    /// Where the vectors are kept: `sqlite-vec`, `pgvector at postgres://user@host/db
    /// (prefix_*)`, `qdrant at http://host:6333 (collection c)` (never a password or key).
    pub store: String,
    /// Pages waiting to be embedded.
    pub backlog: usize,
    pub pages: usize,
    pub chunks: usize,
    /// The embedder's or the store's last failure, while it lasts.
    pub last_error: Option<String>,
}

/// One protocol server in `/readyz`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ProtocolStatus {
    /// Whether the configuration turns it on (`[protocols.<name>] enabled`).
    pub enabled: bool,
    /// Whether it serves now (never for one that is off).
    pub healthy: bool,
    /// The port configured for it.
    pub port: u16,
    /// Why an enabled protocol does not serve; `null` when it is healthy or off (the key is
    /// always present, as the spec's body names it).
    #[serde(default)]
    pub error: Option<String>,
}
