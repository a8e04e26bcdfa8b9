//! Versions: history of a file, content at a version, diff, blame, and the change feed.

use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::context::SpaceCtx;
use crate::error::{blocking, ApiResult, ErrorBody, QueryParams};
use crate::files::PathQuery;
use quire_api::{BlameLine, ChangesPage, VersionEntry};

#[derive(Deserialize, IntoParams)]
pub struct VersionQuery {
    pub path: String,
    /// Commit hash, full or abbreviated.
    pub version: String,
}

#[derive(Deserialize, IntoParams)]
pub struct DiffQuery {
    pub path: String,
    pub from: String,
    pub to: String,
}

#[derive(Deserialize, IntoParams)]
pub struct ChangesQuery {
    /// Continue after this `last_seq`; omitted = the most recent changes.
    pub since: Option<String>,
    /// At most this many changes (default 100, capped at 500).
    pub limit: Option<usize>,
}

/// Versions of a file, newest first.
#[utoipa::path(get, path = "/versions", tag = "versions", params(PathQuery),
    responses((status = 200, body = [VersionEntry]), (status = 400, body = ErrorBody),
        (status = 501, body = ErrorBody, description = "versioning is off")))]
pub async fn versions(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<PathQuery>,
) -> ApiResult<Response> {
    Ok(Json(blocking(move || space.versions().of(&q.path)).await?).into_response())
}

/// A file's content at a version.
#[utoipa::path(get, path = "/version", tag = "versions", params(VersionQuery),
    responses((status = 200, content_type = "text/markdown", body = String),
        (status = 400, body = ErrorBody), (status = 404, body = ErrorBody), (status = 501, body = ErrorBody)))]
pub async fn version(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<VersionQuery>,
) -> ApiResult<Response> {
    let bytes = blocking(move || space.versions().content(&q.path, &q.version)).await?;
    Ok((
        [(header::CONTENT_TYPE, "text/markdown; charset=utf-8")],
        bytes,
    )
        .into_response())
}

/// Unified diff of a file between two versions.
#[utoipa::path(get, path = "/diff", tag = "versions", params(DiffQuery),
    responses((status = 200, content_type = "text/x-diff", body = String),
        (status = 400, body = ErrorBody), (status = 404, body = ErrorBody), (status = 501, body = ErrorBody)))]
pub async fn diff(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<DiffQuery>,
) -> ApiResult<Response> {
    let text = blocking(move || space.versions().diff(&q.path, &q.from, &q.to)).await?;
    Ok(([(header::CONTENT_TYPE, "text/x-diff; charset=utf-8")], text).into_response())
}

/// Who last changed each line of a file.
#[utoipa::path(get, path = "/blame", tag = "versions", params(PathQuery),
    responses((status = 200, body = [BlameLine]), (status = 404, body = ErrorBody), (status = 501, body = ErrorBody)))]
pub async fn blame(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<PathQuery>,
) -> ApiResult<Response> {
    Ok(Json(blocking(move || space.versions().blame(&q.path)).await?).into_response())
}

/// Changes across the knowledge base, oldest first; pass `last_seq` as `since` to continue.
#[utoipa::path(get, path = "/changes", tag = "versions", params(ChangesQuery),
    responses((status = 200, body = ChangesPage), (status = 400, body = ErrorBody), (status = 501, body = ErrorBody)))]
pub async fn changes(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<ChangesQuery>,
) -> ApiResult<Response> {
    let page = blocking(move || space.versions().changes(q.since.as_deref(), q.limit)).await?;
    Ok(Json(page).into_response())
}
