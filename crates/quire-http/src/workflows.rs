//! Workflows (`/workflows…`, `/workflow/…`) and frontmatter schemas (`/schemas…`).

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;
use quire_api::{
    SchemaDocument, Workflow, WorkflowAdvance, WorkflowAssign, WorkflowBoard, WorkflowDeleted,
    WorkflowList, WorkflowPage, WorkflowReorder, WorkflowReordered, WriteResult,
};

use crate::context::{write_options, write_options_with, SpaceCtx};
use crate::drafts::path_param;
use crate::error::{blocking, ApiError, ApiResult, ErrorBody, JsonBody, RawBody};
use crate::views::ViewName;

/// The `{workflow}` of the board route.
pub struct BoardName(pub String);

impl<S: Send + Sync> FromRequestParts<S> for BoardName {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        path_param(parts, state, "workflow").await.map(BoardName)
    }
}

/// Every workflow definition.
#[utoipa::path(get, path = "/workflows", tag = "workflows",
    responses((status = 200, body = WorkflowList)))]
pub async fn list(SpaceCtx(space): SpaceCtx) -> ApiResult<Json<WorkflowList>> {
    Ok(Json(blocking(move || space.workflows().list()).await?))
}

/// One workflow definition.
#[utoipa::path(get, path = "/workflows/{name}", tag = "workflows",
    params(("name" = String, Path, description = "`[A-Za-z0-9_-]{1,64}`")),
    responses((status = 200, body = Workflow), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody)))]
pub async fn get(SpaceCtx(space): SpaceCtx, ViewName(name): ViewName) -> ApiResult<Json<Workflow>> {
    Ok(Json(blocking(move || space.workflows().get(&name)).await?))
}

/// Creates or replaces a workflow definition, stored as `.quire/workflows/{name}.json` and
/// committed. The name comes from the URL; states must be unique and non-empty, transitions
/// and `initial` must name states.
#[utoipa::path(put, path = "/workflows/{name}", tag = "workflows",
    params(("name" = String, Path, description = "`[A-Za-z0-9_-]{1,64}`"),
        ("X-Actor" = Option<String>, Header, description = "commit author; default `api`"),
        ("If-Match" = Option<String>, Header, description = "ETag of the definition file last read")),
    request_body = Workflow,
    responses((status = 200, body = Workflow, description = "the definition as stored"),
        (status = 400, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn put(
    SpaceCtx(space): SpaceCtx,
    ViewName(name): ViewName,
    headers: HeaderMap,
    JsonBody(workflow): JsonBody<Workflow>,
) -> ApiResult<Json<Workflow>> {
    let opts = write_options(&headers);
    Ok(Json(
        blocking(move || space.workflows().put(&name, workflow, &opts)).await?,
    ))
}

/// Deletes a workflow definition and its column order (one commit). Pages keep their
/// `workflow` and `state` but can no longer be advanced.
#[utoipa::path(delete, path = "/workflows/{name}", tag = "workflows",
    params(("name" = String, Path, description = "`[A-Za-z0-9_-]{1,64}`"),
        ("X-Actor" = Option<String>, Header, description = "commit author")),
    responses((status = 200, body = WorkflowDeleted), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody)))]
pub async fn delete(
    SpaceCtx(space): SpaceCtx,
    ViewName(name): ViewName,
    headers: HeaderMap,
) -> ApiResult<Json<WorkflowDeleted>> {
    let opts = write_options(&headers);
    Ok(Json(
        blocking(move || space.workflows().delete(&name, &opts)).await?,
    ))
}

/// Puts a page into a workflow: sets its frontmatter `workflow` and `state` (one commit).
#[utoipa::path(post, path = "/workflow/assign", tag = "workflows",
    params(("X-Actor" = Option<String>, Header, description = "commit author (wins over `actor`)")),
    request_body = WorkflowAssign,
    responses((status = 200, body = WorkflowPage), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "no such page or workflow"),
        (status = 409, body = ErrorBody)))]
pub async fn assign(
    SpaceCtx(space): SpaceCtx,
    headers: HeaderMap,
    JsonBody(request): JsonBody<WorkflowAssign>,
) -> ApiResult<Json<WorkflowPage>> {
    let opts = write_options_with(&headers, request.actor.clone(), None);
    Ok(Json(
        blocking(move || space.workflows().assign(&request, &opts)).await?,
    ))
}

/// Moves a page to another state of its workflow (one commit of its frontmatter `state`).
#[utoipa::path(post, path = "/workflow/advance", tag = "workflows",
    params(("X-Actor" = Option<String>, Header, description = "commit author (wins over `actor`)")),
    request_body = WorkflowAdvance,
    responses((status = 200, body = WorkflowPage), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "transition not allowed: no such state, a transition `[workflow] enforce_transitions` does not list, a page in no workflow or in a deleted one")))]
pub async fn advance(
    SpaceCtx(space): SpaceCtx,
    headers: HeaderMap,
    JsonBody(request): JsonBody<WorkflowAdvance>,
) -> ApiResult<Json<WorkflowPage>> {
    let opts = write_options_with(&headers, request.actor.clone(), None);
    Ok(Json(
        blocking(move || space.workflows().advance(&request, &opts)).await?,
    ))
}

/// Stores the top-to-bottom order of one board column (`.quire/workflows/{workflow}.order.json`).
#[utoipa::path(post, path = "/workflow/reorder", tag = "workflows",
    params(("X-Actor" = Option<String>, Header, description = "commit author")),
    request_body = WorkflowReorder,
    responses((status = 200, body = WorkflowReordered), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn reorder(
    SpaceCtx(space): SpaceCtx,
    headers: HeaderMap,
    JsonBody(request): JsonBody<WorkflowReorder>,
) -> ApiResult<Json<WorkflowReordered>> {
    let opts = write_options(&headers);
    Ok(Json(
        blocking(move || space.workflows().reorder(&request, &opts)).await?,
    ))
}

/// The pages of a workflow by state, each column in its stored order.
#[utoipa::path(get, path = "/workflow/board/{workflow}", tag = "workflows",
    params(("workflow" = String, Path, description = "workflow name")),
    responses((status = 200, body = WorkflowBoard), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 503, body = ErrorBody, description = "the catalog is being built")))]
pub async fn board(
    SpaceCtx(space): SpaceCtx,
    BoardName(name): BoardName,
) -> ApiResult<Json<WorkflowBoard>> {
    Ok(Json(
        blocking(move || space.workflows().board(&name)).await?,
    ))
}

/// The page types that have a schema (`.quire/schemas/<type>.json`).
#[utoipa::path(get, path = "/schemas", tag = "workflows",
    responses((status = 200, body = [String])))]
pub async fn schemas(SpaceCtx(space): SpaceCtx) -> ApiResult<Json<Vec<String>>> {
    Ok(Json(blocking(move || space.schemas().list()).await?))
}

/// The JSON Schema of a page type, as stored.
#[utoipa::path(get, path = "/schemas/{name}", tag = "workflows",
    params(("name" = String, Path, description = "page type, `[A-Za-z0-9_-]{1,64}`")),
    responses((status = 200, description = "the schema", content_type = "application/json", body = SchemaDocument,
        headers(("ETag" = String, description = "git blob id"))),
        (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn schema(SpaceCtx(space): SpaceCtx, ViewName(name): ViewName) -> ApiResult<Response> {
    let content = blocking(move || space.schemas().get(&name)).await?;
    let etag = HeaderValue::from_str(&format!("\"{}\"", content.etag))
        .expect("hex is a valid header value");
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            ),
            (header::ETAG, etag),
        ],
        content.bytes,
    )
        .into_response())
}

/// Stores the JSON Schema of a page type as `.quire/schemas/{name}.json` (committed). The
/// body must be a valid JSON Schema (checked against its meta-schema; references are never
/// fetched). With `[schema] enforce = true`, pages whose frontmatter `type` is `{name}` must
/// then satisfy it.
#[utoipa::path(put, path = "/schemas/{name}", tag = "workflows",
    params(("name" = String, Path, description = "page type, `[A-Za-z0-9_-]{1,64}`"),
        ("X-Actor" = Option<String>, Header, description = "commit author; default `api`"),
        ("If-Match" = Option<String>, Header, description = "ETag of the schema last read")),
    request_body(content = SchemaDocument, content_type = "application/json"),
    responses((status = 200, body = WriteResult),
        (status = 400, body = ErrorBody, description = "not JSON, or not a valid JSON Schema"),
        (status = 409, body = ErrorBody), (status = 413, body = ErrorBody)))]
pub async fn put_schema(
    SpaceCtx(space): SpaceCtx,
    ViewName(name): ViewName,
    headers: HeaderMap,
    RawBody(body): RawBody,
) -> ApiResult<Json<WriteResult>> {
    let opts = write_options(&headers);
    Ok(Json(
        blocking(move || space.schemas().put(&name, body.to_vec(), &opts)).await?,
    ))
}
