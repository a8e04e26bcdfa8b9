//! Drafts (`/drafts…`): changes on a branch of their own until merged or discarded.

use axum::extract::{FromRequestParts, RawPathParams};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use quire_api::{Draft, DraftCreate, DraftDiff, DraftMerged, DraftSummary, DraftWritten, TreeNode};

use crate::context::{write_options, SpaceCtx};
use crate::error::{bad_request, blocking, ApiError, ApiResult, ErrorBody, QueryParams, RawBody};
use crate::files::{OptionalPathQuery, PathQuery};

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

/// The `{id}` of a draft route.
pub struct DraftId(pub String);

impl<S: Send + Sync> FromRequestParts<S> for DraftId {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        path_param(parts, state, "id").await.map(DraftId)
    }
}

fn etag_header(etag: &str) -> HeaderValue {
    HeaderValue::from_str(&format!("\"{etag}\"")).expect("hex is a valid header value")
}

/// Opens a draft on the knowledge base as it is now: a branch `drafts/<id>`.
#[utoipa::path(post, path = "/drafts", tag = "drafts",
    params(("X-Actor" = Option<String>, Header, description = "who opens it when the body names no `actor`; default `api`")),
    request_body(content = DraftCreate, description = "optional: no body is `{}`"),
    responses((status = 201, body = DraftSummary),
        (status = 400, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "`[drafts] max_active` drafts are open"),
        (status = 501, body = ErrorBody, description = "drafts disabled, or versioning is not git")))]
pub async fn create(
    SpaceCtx(space): SpaceCtx,
    headers: HeaderMap,
    RawBody(body): RawBody,
) -> ApiResult<Response> {
    let request: DraftCreate = if body.iter().all(u8::is_ascii_whitespace) {
        DraftCreate::default()
    } else {
        let value: serde_json::Value = serde_json::from_slice(&body)
            .map_err(|e| bad_request(format!("invalid JSON body: {e}")))?;
        if !value.is_object() {
            return Err(bad_request(
                "invalid JSON body: expected an object such as {\"actor\": \"ann\"}",
            ));
        }
        serde_json::from_value(value).map_err(|e| bad_request(format!("invalid JSON body: {e}")))?
    };
    // The body's actor first, then `X-Actor` (the spec's order for this route).
    let actor = request
        .actor
        .filter(|a| !a.trim().is_empty())
        .or(write_options(&headers).actor);
    let draft = blocking(move || space.drafts().create(actor.as_deref())).await?;
    Ok((StatusCode::CREATED, Json(draft)).into_response())
}

/// Every open draft, oldest first.
#[utoipa::path(get, path = "/drafts", tag = "drafts",
    responses((status = 200, body = [DraftSummary]), (status = 501, body = ErrorBody)))]
pub async fn list(SpaceCtx(space): SpaceCtx) -> ApiResult<Json<Vec<DraftSummary>>> {
    Ok(Json(blocking(move || space.drafts().list()).await?))
}

/// One draft with the files it changed since it began.
#[utoipa::path(get, path = "/drafts/{id}", tag = "drafts",
    params(("id" = String, Path, description = "draft id")),
    responses((status = 200, body = Draft), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 501, body = ErrorBody)))]
pub async fn get(SpaceCtx(space): SpaceCtx, DraftId(id): DraftId) -> ApiResult<Json<Draft>> {
    Ok(Json(blocking(move || space.drafts().get(&id)).await?))
}

/// Discards a draft: its branch is deleted, nothing is merged.
#[utoipa::path(delete, path = "/drafts/{id}", tag = "drafts",
    params(("id" = String, Path, description = "draft id")),
    responses((status = 204, description = "discarded"), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 501, body = ErrorBody)))]
pub async fn discard(SpaceCtx(space): SpaceCtx, DraftId(id): DraftId) -> ApiResult<StatusCode> {
    blocking(move || space.drafts().discard(&id)).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// What the draft changed since it began, as one unified diff.
#[utoipa::path(get, path = "/drafts/{id}/diff", tag = "drafts",
    params(("id" = String, Path, description = "draft id")),
    responses((status = 200, body = DraftDiff), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 501, body = ErrorBody)))]
pub async fn diff(SpaceCtx(space): SpaceCtx, DraftId(id): DraftId) -> ApiResult<Json<DraftDiff>> {
    Ok(Json(blocking(move || space.drafts().diff(&id)).await?))
}

/// Merges a draft: its changes become one commit on main authored by `X-Actor`, and the
/// branch is deleted. Changes on both sides since the draft began merge line by line; the
/// same lines changed on both sides are a conflict.
#[utoipa::path(post, path = "/drafts/{id}/merge", tag = "drafts",
    params(("id" = String, Path, description = "draft id"),
        ("X-Actor" = Option<String>, Header, description = "author of the merge commit; default `api`")),
    responses((status = 200, body = DraftMerged), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "conflict with main; nothing merged"),
        (status = 501, body = ErrorBody)))]
pub async fn merge(
    SpaceCtx(space): SpaceCtx,
    DraftId(id): DraftId,
    headers: HeaderMap,
) -> ApiResult<Json<DraftMerged>> {
    let opts = write_options(&headers);
    Ok(Json(
        blocking(move || space.drafts().merge(&id, &opts)).await?,
    ))
}

/// A file as the draft holds it, with its ETag (git blob id).
#[utoipa::path(get, path = "/drafts/{id}/file", tag = "drafts",
    params(("id" = String, Path, description = "draft id"), PathQuery),
    responses((status = 200, description = "raw content", content_type = "text/markdown", body = String,
        headers(("ETag" = String, description = "git blob id"))),
        (status = 400, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 501, body = ErrorBody)))]
pub async fn read_file(
    SpaceCtx(space): SpaceCtx,
    DraftId(id): DraftId,
    QueryParams(q): QueryParams<PathQuery>,
) -> ApiResult<Response> {
    let path = q.path.clone();
    let content = blocking(move || space.drafts().read(&id, &q.path)).await?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static(crate::files::content_type_for(&path)),
            ),
            (header::ETAG, etag_header(&content.etag)),
        ],
        content.bytes,
    )
        .into_response())
}

/// Writes a file into the draft (a commit on its branch; the knowledge base is untouched).
#[utoipa::path(put, path = "/drafts/{id}/file", tag = "drafts",
    params(("id" = String, Path, description = "draft id"), PathQuery,
        ("X-Actor" = Option<String>, Header, description = "author; default `draft-api`"),
        ("If-Match" = Option<String>, Header, description = "ETag last read from the draft; 409 when it no longer matches")),
    request_body(content = String, content_type = "text/markdown"),
    responses((status = 200, body = DraftWritten), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody),
        (status = 501, body = ErrorBody)))]
pub async fn write_file(
    SpaceCtx(space): SpaceCtx,
    DraftId(id): DraftId,
    QueryParams(q): QueryParams<PathQuery>,
    headers: HeaderMap,
    RawBody(body): RawBody,
) -> ApiResult<Response> {
    let opts = write_options(&headers);
    let written =
        blocking(move || space.drafts().write(&id, &q.path, body.to_vec(), &opts)).await?;
    Ok((
        StatusCode::OK,
        [(header::ETAG, etag_header(&written.etag))],
        Json(written),
    )
        .into_response())
}

/// Deletes a file from the draft (a commit on its branch).
#[utoipa::path(delete, path = "/drafts/{id}/file", tag = "drafts",
    params(("id" = String, Path, description = "draft id"), PathQuery,
        ("X-Actor" = Option<String>, Header, description = "author; default `draft-api`")),
    responses((status = 204, description = "deleted"), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody),
        (status = 501, body = ErrorBody)))]
pub async fn delete_file(
    SpaceCtx(space): SpaceCtx,
    DraftId(id): DraftId,
    QueryParams(q): QueryParams<PathQuery>,
    headers: HeaderMap,
) -> ApiResult<StatusCode> {
    let opts = write_options(&headers);
    blocking(move || space.drafts().delete_file(&id, &q.path, &opts)).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The draft's folder tree.
#[utoipa::path(get, path = "/drafts/{id}/tree", tag = "drafts",
    params(("id" = String, Path, description = "draft id"), OptionalPathQuery),
    responses((status = 200, body = [TreeNode]), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 501, body = ErrorBody)))]
pub async fn tree(
    SpaceCtx(space): SpaceCtx,
    DraftId(id): DraftId,
    QueryParams(q): QueryParams<OptionalPathQuery>,
) -> ApiResult<Json<Vec<TreeNode>>> {
    Ok(Json(
        blocking(move || space.drafts().tree(&id, q.path.as_deref())).await?,
    ))
}
