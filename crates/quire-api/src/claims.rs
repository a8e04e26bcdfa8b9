//! Claims: an actor's lease on an exact page path.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// An active claim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Claim {
    pub path: String,
    pub actor: String,
    /// RFC 3339; renewing a claim keeps it.
    pub claimed_at: String,
    /// RFC 3339; the claim is gone from this instant on.
    pub expires_at: String,
    /// Go duration of the last lease asked for, e.g. `30m`.
    pub lease_duration: String,
}

/// Body of `POST /claim`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClaimRequest {
    /// The page path to claim (exact, root-relative).
    pub path: String,
    /// Go duration from `1m` to `24h`; default `30m`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_duration: Option<String>,
    /// Who claims when no `X-Actor` header is sent (the header wins).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
}

/// Body of `DELETE /claim`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReleaseRequest {
    pub path: String,
    /// The holder when no `X-Actor` header is sent (the header wins).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
}

/// A released claim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Released {
    pub released: String,
}

/// Every active claim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ClaimList {
    pub claims: Vec<Claim>,
}
