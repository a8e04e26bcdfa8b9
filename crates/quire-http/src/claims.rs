//! Claim routes: `POST /claim`, `DELETE /claim`, `GET /claims` (503 `claims not enabled` when
//! the space has no claim store).

use axum::http::HeaderMap;
use axum::Json;
use quire_api::{Claim, ClaimList, ClaimRequest, ReleaseRequest, Released};

use crate::context::{write_options_with, SpaceCtx};
use crate::error::{blocking, ApiResult, ErrorBody, JsonBody};

/// Claims a page path for a lease; the holder claiming again renews it.
#[utoipa::path(post, path = "/claim", tag = "claims",
    params(("X-Actor" = String, Header, description = "who claims; required")),
    request_body = ClaimRequest,
    responses((status = 200, body = Claim, description = "the caller holds the path"),
        (status = 400, body = ErrorBody, description = "no `X-Actor`, invalid path or lease outside 1m..24h"),
        (status = 409, body = ErrorBody, description = "another actor holds the path"),
        (status = 503, body = ErrorBody, description = "claims not enabled")))]
pub async fn claim(
    SpaceCtx(space): SpaceCtx,
    headers: HeaderMap,
    JsonBody(request): JsonBody<ClaimRequest>,
) -> ApiResult<Json<Claim>> {
    let actor = write_options_with(&headers, request.actor.clone(), None).actor;
    let claim = blocking(move || {
        space.claims().claim(
            &request.path,
            actor.as_deref(),
            request.lease_duration.as_deref(),
        )
    })
    .await?;
    Ok(Json(claim))
}

/// Releases the caller's claim on a page path.
#[utoipa::path(delete, path = "/claim", tag = "claims",
    params(("X-Actor" = String, Header, description = "the holder; required")),
    request_body = ReleaseRequest,
    responses((status = 200, body = Released),
        (status = 400, body = ErrorBody, description = "no `X-Actor` or invalid path"),
        (status = 403, body = ErrorBody, description = "another actor holds the path"),
        (status = 404, body = ErrorBody, description = "the path is not claimed"),
        (status = 503, body = ErrorBody, description = "claims not enabled")))]
pub async fn release(
    SpaceCtx(space): SpaceCtx,
    headers: HeaderMap,
    JsonBody(request): JsonBody<ReleaseRequest>,
) -> ApiResult<Json<Released>> {
    let actor = write_options_with(&headers, request.actor.clone(), None).actor;
    let released =
        blocking(move || space.claims().release(&request.path, actor.as_deref())).await?;
    Ok(Json(Released {
        released: released.to_string(),
    }))
}

/// Every active claim, by path.
#[utoipa::path(get, path = "/claims", tag = "claims",
    responses((status = 200, body = ClaimList),
        (status = 503, body = ErrorBody, description = "claims not enabled")))]
pub async fn list(SpaceCtx(space): SpaceCtx) -> ApiResult<Json<ClaimList>> {
    let claims = blocking(move || space.claims().list()).await?;
    Ok(Json(ClaimList { claims }))
}
