//! Link health and repair: `GET /links/broken`, `GET /links/orphans`,
//! `POST /refactor/fix-broken` and `GET /refactor/raw-moves`.

use axum::http::HeaderMap;
use axum::Json;
use quire_api::{BrokenLinks, FixBrokenRequest, FixBrokenResult, Orphans, RawMoves};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::context::{write_options, SpaceCtx};
use crate::error::RawBody;
use crate::error::{bad_request, blocking, ApiResult, ErrorBody, QueryParams};

#[derive(Deserialize, IntoParams)]
pub struct FixBrokenParams {
    /// `true`: only list what would be fixed (when the request has no JSON body).
    pub dry_run: Option<bool>,
}

/// Every wiki link that resolves to no file, with the closest existing file (`match`).
#[utoipa::path(get, path = "/links/broken", tag = "restructuring",
    responses((status = 200, body = BrokenLinks)))]
pub async fn broken(SpaceCtx(space): SpaceCtx) -> ApiResult<Json<BrokenLinks>> {
    Ok(Json(blocking(move || Ok(space.repair().broken())).await?))
}

/// Pages no other page links to.
#[utoipa::path(get, path = "/links/orphans", tag = "restructuring",
    responses((status = 200, body = Orphans)))]
pub async fn orphans(SpaceCtx(space): SpaceCtx) -> ApiResult<Json<Orphans>> {
    Ok(Json(blocking(move || Ok(space.repair().orphans())).await?))
}

/// Rewrites broken wiki links to their best match (exact path, then a path suffix ignoring
/// numeric folder prefixes such as `06-`, then the same file name); links with no match stay.
/// Each fixed page is its own commit. `dry_run` (body, or query without a body) writes nothing.
#[utoipa::path(post, path = "/refactor/fix-broken", tag = "restructuring",
    request_body(content = FixBrokenRequest, description = "optional: `{dry_run}`; an empty body is allowed"),
    params(FixBrokenParams, ("X-Actor" = Option<String>, Header, description = "commit author")),
    responses((status = 200, body = FixBrokenResult), (status = 400, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "a page changed while it was fixed")))]
pub async fn fix_broken(
    SpaceCtx(space): SpaceCtx,
    headers: HeaderMap,
    QueryParams(q): QueryParams<FixBrokenParams>,
    RawBody(body): RawBody,
) -> ApiResult<Json<FixBrokenResult>> {
    let dry_run = if body.iter().all(u8::is_ascii_whitespace) {
        q.dry_run.unwrap_or(false)
    } else {
        let req: FixBrokenRequest = serde_json::from_slice(&body)
            .map_err(|e| bad_request(format!("invalid JSON body: {e}")))?;
        req.dry_run
    };
    let opts = write_options(&headers);
    let result = blocking(move || space.repair().fix_broken(dry_run, &opts)).await?;
    Ok(Json(result))
}

/// Moves made without relinking (renames that kept links, moves seen on disk) whose old paths
/// are still referenced, and a `relinks` manifest that repairs them.
#[utoipa::path(get, path = "/refactor/raw-moves", tag = "restructuring",
    responses((status = 200, body = RawMoves)))]
pub async fn raw_moves(SpaceCtx(space): SpaceCtx) -> ApiResult<Json<RawMoves>> {
    Ok(Json(blocking(move || space.repair().raw_moves()).await?))
}
