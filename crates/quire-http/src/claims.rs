//! Claim routes: `POST /claim`, `DELETE /claim`, `GET /claims` (503 `claims not enabled` when
//! the space has no claim store).

use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use quire_service::{Claim, ClaimOutcome};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::context::{write_options, SpaceCtx};
use crate::error::{blocking, ApiResult, ErrorBody, JsonBody};

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ClaimRequest {
    /// The page path to claim (exact, root-relative).
    pub path: String,
    /// Go duration from `1m` to `24h`; default `30m`.
    pub lease_duration: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReleaseRequest {
    pub path: String,
}

/// An active claim (the shape of `quire_index::Claim`, which knows nothing of OpenAPI).
#[derive(ToSchema)]
#[schema(as = Claim)]
#[allow(dead_code)]
pub struct ClaimSchema {
    pub path: String,
    pub actor: String,
    /// RFC 3339; renewing a claim keeps it.
    pub claimed_at: String,
    /// RFC 3339; the claim is gone from this instant on.
    pub expires_at: String,
    /// Go duration of the last lease asked for, e.g. `30m`.
    pub lease_duration: String,
}

/// 409: another actor holds the path.
#[derive(Serialize, ToSchema)]
pub struct HeldBody {
    /// Always `already claimed`.
    pub error: String,
    #[schema(value_type = ClaimSchema)]
    pub active_claim: Claim,
}

#[derive(Serialize, ToSchema)]
pub struct ReleasedResponse {
    pub released: String,
}

#[derive(Serialize, ToSchema)]
pub struct ClaimsResponse {
    #[schema(value_type = Vec<ClaimSchema>)]
    pub claims: Vec<Claim>,
}

/// Claims a page path for a lease; the holder claiming again renews it.
#[utoipa::path(post, path = "/claim", tag = "claims",
    params(("X-Actor" = String, Header, description = "who claims; required")),
    request_body = ClaimRequest,
    responses((status = 200, body = ClaimSchema, description = "the caller holds the path"),
        (status = 400, body = ErrorBody, description = "no `X-Actor`, invalid path or lease outside 1m..24h"),
        (status = 409, body = HeldBody, description = "another actor holds the path"),
        (status = 503, body = ErrorBody, description = "claims not enabled")))]
pub async fn claim(
    SpaceCtx(space): SpaceCtx,
    headers: HeaderMap,
    JsonBody(request): JsonBody<ClaimRequest>,
) -> ApiResult<Response> {
    let actor = write_options(&headers).actor;
    let outcome = blocking(move || {
        space.claim(
            &request.path,
            actor.as_deref(),
            request.lease_duration.as_deref(),
        )
    })
    .await?;
    Ok(match outcome {
        ClaimOutcome::Claimed(claim) => Json(claim).into_response(),
        ClaimOutcome::Held(active_claim) => (
            StatusCode::CONFLICT,
            Json(HeldBody {
                error: "already claimed".into(),
                active_claim,
            }),
        )
            .into_response(),
    })
}

/// Releases the caller's claim on a page path.
#[utoipa::path(delete, path = "/claim", tag = "claims",
    params(("X-Actor" = String, Header, description = "the holder; required")),
    request_body = ReleaseRequest,
    responses((status = 200, body = ReleasedResponse),
        (status = 400, body = ErrorBody, description = "no `X-Actor` or invalid path"),
        (status = 403, body = ErrorBody, description = "another actor holds the path"),
        (status = 404, body = ErrorBody, description = "the path is not claimed"),
        (status = 503, body = ErrorBody, description = "claims not enabled")))]
pub async fn release(
    SpaceCtx(space): SpaceCtx,
    headers: HeaderMap,
    JsonBody(request): JsonBody<ReleaseRequest>,
) -> ApiResult<Json<ReleasedResponse>> {
    let actor = write_options(&headers).actor;
    let released = blocking(move || space.release(&request.path, actor.as_deref())).await?;
    Ok(Json(ReleasedResponse {
        released: released.to_string(),
    }))
}

/// Every active claim, by path.
#[utoipa::path(get, path = "/claims", tag = "claims",
    responses((status = 200, body = ClaimsResponse),
        (status = 503, body = ErrorBody, description = "claims not enabled")))]
pub async fn list(SpaceCtx(space): SpaceCtx) -> ApiResult<Json<ClaimsResponse>> {
    let claims = blocking(move || space.claims()).await?;
    Ok(Json(ClaimsResponse { claims }))
}
