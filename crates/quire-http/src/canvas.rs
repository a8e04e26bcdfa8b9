//! Canvases (`*.canvas.json`): thin routes over the space's `Canvases`. Generate and patch are
//! REST-only (the spec says so).

use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;
use quire_api::{
    AutoLayoutRequest, CanvasDeleted, CanvasList, CanvasPatch, CanvasPatched, CanvasQueryResult,
    CanvasWritten, GenerateCanvasRequest,
};
use quire_service::{CanvasQuery, Error};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::context::{write_options, SpaceCtx};
use crate::error::RawBody;
use crate::error::{blocking, ApiResult, ErrorBody, JsonBody, QueryParams};

#[derive(Deserialize, IntoParams)]
pub struct CanvasPath {
    /// The canvas, root-relative, ending in `.canvas.json`.
    pub path: String,
}

#[derive(Deserialize, IntoParams)]
pub struct CanvasQueryParams {
    /// The canvas, root-relative, ending in `.canvas.json`.
    pub path: String,
    /// Text in a node's label, text, file, URL or other keys (an edge's label), any case.
    pub q: Option<String>,
    /// Node type: `text`, `file`, `link` or `group` (edges: both ends of that type).
    #[serde(rename = "type")]
    #[param(rename = "type")]
    pub kind: Option<String>,
    /// A node id: only its neighbours and the edges touching it.
    pub connected: Option<String>,
    /// Answer nodes only.
    #[serde(default)]
    pub nodes_only: bool,
    /// Answer edges only.
    #[serde(default)]
    pub edges_only: bool,
}

fn quoted(etag: &str) -> HeaderValue {
    HeaderValue::from_str(&format!("\"{etag}\"")).expect("hex is a valid header value")
}

/// Every canvas of the space, by path.
#[utoipa::path(get, path = "/canvases", tag = "canvas",
    responses((status = 200, body = CanvasList)))]
pub async fn list(SpaceCtx(space): SpaceCtx) -> ApiResult<Json<CanvasList>> {
    Ok(Json(blocking(move || space.canvases().list()).await?))
}

/// A canvas as stored (JSON Canvas 1.0), with its ETag.
#[utoipa::path(get, path = "/canvas", tag = "canvas", params(CanvasPath),
    responses((status = 200, body = quire_api::Canvas, headers(("ETag" = String, description = "git blob id"))),
        (status = 400, body = ErrorBody, description = "invalid path or not `*.canvas.json`"),
        (status = 404, body = ErrorBody, description = "no such canvas")))]
pub async fn read(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<CanvasPath>,
) -> ApiResult<Response> {
    let (bytes, tag) = blocking(move || space.canvases().read_raw(&q.path)).await?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            ),
            (header::ETAG, quoted(&tag)),
        ],
        bytes,
    )
        .into_response())
}

/// Creates or replaces a canvas (one commit); the body must be a valid canvas with `nodes`
/// and `edges` arrays (empty allowed) and is stored as sent.
#[utoipa::path(put, path = "/canvas", tag = "canvas", params(CanvasPath,
        ("X-Actor" = Option<String>, Header, description = "commit author"),
        ("If-Match" = Option<String>, Header, description = "ETag last read; 409 when it no longer matches")),
    request_body = quire_api::Canvas,
    responses((status = 200, body = CanvasWritten),
        (status = 400, body = ErrorBody, description = "invalid JSON, not a valid canvas, wrong suffix or invalid path"),
        (status = 409, body = ErrorBody, description = "If-Match no longer matches")))]
pub async fn write(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<CanvasPath>,
    headers: HeaderMap,
    RawBody(body): RawBody,
) -> ApiResult<Json<CanvasWritten>> {
    let opts = write_options(&headers);
    Ok(Json(
        blocking(move || space.canvases().write(&q.path, &body, &opts)).await?,
    ))
}

/// Applies node and edge operations atomically: one failing operation rejects the batch and
/// nothing is written. Removing a node removes its edges.
#[utoipa::path(patch, path = "/canvas", tag = "canvas", params(CanvasPath,
        ("X-Actor" = Option<String>, Header, description = "commit author"),
        ("If-Match" = Option<String>, Header, description = "ETag last read; 409 when it no longer matches")),
    request_body = CanvasPatch,
    responses((status = 200, body = CanvasPatched),
        (status = 400, body = ErrorBody, description = "malformed operations, or a canvas that would be invalid"),
        (status = 404, body = ErrorBody, description = "no such canvas, node or edge")))]
pub async fn patch(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<CanvasPath>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<CanvasPatch>,
) -> ApiResult<Json<CanvasPatched>> {
    let opts = write_options(&headers);
    Ok(Json(
        blocking(move || space.canvases().patch(&q.path, &body.operations, &opts)).await?,
    ))
}

/// Deletes a canvas (one commit).
#[utoipa::path(delete, path = "/canvas", tag = "canvas", params(CanvasPath,
        ("X-Actor" = Option<String>, Header, description = "commit author")),
    responses((status = 200, body = CanvasDeleted),
        (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn delete(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<CanvasPath>,
    headers: HeaderMap,
) -> ApiResult<Json<CanvasDeleted>> {
    let opts = write_options(&headers);
    Ok(Json(
        blocking(move || space.canvases().delete(&q.path, &opts)).await?,
    ))
}

/// The nodes and edges of a canvas matching text, a node type or a node's neighbourhood.
#[utoipa::path(get, path = "/canvas/query", tag = "canvas", params(CanvasQueryParams),
    responses((status = 200, body = CanvasQueryResult),
        (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn query(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<CanvasQueryParams>,
) -> ApiResult<Json<CanvasQueryResult>> {
    let query = CanvasQuery {
        q: q.q,
        kind: q.kind,
        connected: q.connected,
        nodes_only: q.nodes_only,
        edges_only: q.edges_only,
    };
    Ok(Json(
        blocking(move || space.canvases().query(&q.path, &query)).await?,
    ))
}

/// Repositions a canvas's nodes by a layout (`dot` layered, `neato` stress, `fdp`
/// force-directed, `circo` circle); adds no node. The body may be empty (`dot`).
#[utoipa::path(post, path = "/canvas/auto-layout", tag = "canvas", params(CanvasPath,
        ("X-Actor" = Option<String>, Header, description = "commit author")),
    request_body = AutoLayoutRequest,
    responses((status = 200, body = CanvasWritten),
        (status = 400, body = ErrorBody, description = "unknown layout, malformed body, invalid path"),
        (status = 404, body = ErrorBody, description = "no such canvas")))]
pub async fn auto_layout(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<CanvasPath>,
    headers: HeaderMap,
    RawBody(body): RawBody,
) -> ApiResult<Json<CanvasWritten>> {
    let request: AutoLayoutRequest = if body.iter().all(u8::is_ascii_whitespace) {
        AutoLayoutRequest::default()
    } else {
        serde_json::from_slice(&body)
            .map_err(|e| Error::bad_request(format!("invalid JSON body: {e}")))?
    };
    let opts = write_options(&headers);
    Ok(Json(
        blocking(move || {
            space
                .canvases()
                .auto_layout(&q.path, request.layout.as_deref(), &opts)
        })
        .await?,
    ))
}

/// Builds a canvas of the pages and the resolved wiki links between them, laid out and
/// (by default) coloured by top-level folder; replaces a canvas already at the path.
#[utoipa::path(post, path = "/canvas/generate", tag = "canvas", params(
        ("X-Actor" = Option<String>, Header, description = "commit author")),
    request_body = GenerateCanvasRequest,
    responses((status = 200, body = CanvasWritten),
        (status = 400, body = ErrorBody, description = "unknown layout, malformed body, invalid path or folder"),
        (status = 503, body = ErrorBody, description = "the link index is unavailable")))]
pub async fn generate(
    SpaceCtx(space): SpaceCtx,
    headers: HeaderMap,
    JsonBody(request): JsonBody<GenerateCanvasRequest>,
) -> ApiResult<Json<CanvasWritten>> {
    let opts = write_options(&headers);
    Ok(Json(
        blocking(move || {
            let graph = space.find().graph();
            space.canvases().generate(&request, &graph, &opts)
        })
        .await?,
    ))
}
