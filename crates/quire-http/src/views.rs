//! The `{name}` path parameter of the hand-written routes that name a saved definition
//! (workflows, schemas). The saved views themselves are operations of the table
//! (`quire_ops::views`).

use axum::extract::{FromRequestParts, RawPathParams};
use axum::http::request::Parts;

use crate::error::{bad_request, ApiError};

/// The `{name}` of a route.
pub struct ViewName(pub String);

impl<S: Send + Sync> FromRequestParts<S> for ViewName {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let params = RawPathParams::from_request_parts(parts, state)
            .await
            .map_err(|e| bad_request(format!("invalid path: {e}")))?;
        params
            .iter()
            .find(|(k, _)| *k == "name")
            .map(|(_, v)| ViewName(v.to_string()))
            .ok_or_else(|| bad_request("missing view name"))
    }
}
