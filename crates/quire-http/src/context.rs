//! Per-request context: which space a request addresses and who is writing.

use std::sync::Arc;

use axum::extract::{FromRequestParts, RawPathParams};
use axum::http::request::Parts;
use axum::http::HeaderMap;
use quire_service::{Error, Expect, Space, WriteOptions};

use crate::error::ApiError;
use crate::AppState;

/// Header naming the space (takes priority over the URL prefix).
pub const SPACE_HEADER: &str = "x-quire-space";

/// The space a request addresses: header `X-Quire-Space`, else the URL prefix
/// `/api/quire/{space}/…`, else the default space. An unknown name is a 404 at once.
pub struct SpaceCtx(pub Arc<Space>);

impl FromRequestParts<AppState> for SpaceCtx {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let from_header = parts
            .headers
            .get(SPACE_HEADER)
            .map(|v| v.to_str().unwrap_or("").trim().to_string());
        let name = match from_header {
            Some(name) => Some(name),
            None => RawPathParams::from_request_parts(parts, state)
                .await
                .ok()
                .and_then(|params| {
                    params
                        .iter()
                        .find(|(k, _)| *k == "space")
                        .map(|(_, v)| v.to_string())
                }),
        };
        match name {
            None => Ok(SpaceCtx(state.service.default_space().clone())),
            Some(name) => match state.service.space(&name) {
                Some(space) => Ok(SpaceCtx(space.clone())),
                None => Err(ApiError(Error::not_found(format!(
                    "unknown space {name:?}"
                )))),
            },
        }
    }
}

/// The headers common to writes: `X-Actor`, `X-Provenance`, `If-Match`.
pub fn write_options(headers: &HeaderMap) -> WriteOptions {
    write_options_with(headers, None, None)
}

/// [`write_options`] for a JSON body that may also name the `actor` (the header wins) and the
/// commit `message`, as clients written for KiwiFS send them.
pub fn write_options_with(
    headers: &HeaderMap,
    actor: Option<String>,
    message: Option<String>,
) -> WriteOptions {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    };
    let given = |v: Option<String>| v.map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
    WriteOptions {
        actor: text("x-actor").or_else(|| given(actor)),
        message: given(message),
        derived_from: text("x-provenance"),
        expect: Expect::etag(text("if-match").as_deref()),
    }
}
