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
