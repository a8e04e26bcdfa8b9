//! What the routes of workflows still share with the drafts' routes (now operations of the
//! table, `quire_ops::drafts`): reading one route parameter.

use axum::extract::{FromRequestParts, RawPathParams};
use axum::http::request::Parts;

use crate::error::{bad_request, ApiError};

/// The value of the route parameter `key`.
pub(crate) async fn path_param<S: Send + Sync>(
    parts: &mut Parts,
    state: &S,
    key: &str,
) -> Result<String, ApiError> {
    let params = RawPathParams::from_request_parts(parts, state)
        .await
        .map_err(|e| bad_request(format!("invalid path: {e}")))?;
    params
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v.to_string())
        .ok_or_else(|| bad_request(format!("missing {key}")))
}
