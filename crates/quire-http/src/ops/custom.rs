//! The handlers of operations with raw bodies: raw bodies in (`PUT /file`, `POST /file/append`), raw
//! bytes out (`GET /file`, `/raw`, `/version`, `/diff`, `/template`, `/readlink`), `ETag` headers.
//! Each handler still calls its operation (or the operation's byte-level twin), so REST,
//! MCP and the command line answer alike.
//! A JSON body that is one field of the input (the view of `PUT /views/{name}`) is read
//! here too, the other fields coming from the URL and the query.

use axum::extract::{RawPathParams, RawQuery};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{on, MethodFilter, MethodRouter};
use axum::Json;
use quire_api::mcp::{PathInput, ViewSaveInput};
use quire_ops::{files, history, views, Operation};
use serde::Deserialize;

use super::{decode_query, RestCaller};
use crate::context::SpaceCtx;
use crate::error::{blocking, path_param, ApiResult, JsonBody, RawBody};
use crate::files::content_type_for;
use crate::AppState;

/// The handler of custom operation `O`.
pub(crate) fn handler<O: Operation>(filter: MethodFilter) -> Option<MethodRouter<AppState>> {
    Some(match O::META.name {
        "read_file" => on(filter, read_file),
        "raw_file" => on(filter, raw_file),
        "write_file" => on(filter, write_file),
        "append" => on(filter, append),
        "version" => on(filter, version),
        "diff" => on(filter, diff),
        "template" => on(filter, template),
        "readlink" => on(filter, readlink),
        "views_save" => on(filter, views_save),
        "export" => on(filter, crate::import::export),
        "export_document" => on(filter, crate::import::export_document),
        _ => return super::areas::handler::<O>(filter),
    })
}

fn etag_header(etag: &str) -> HeaderValue {
    HeaderValue::from_str(&format!("\"{etag}\"")).expect("hex is a valid header value")
}

fn query<O: Operation>(raw: &Option<String>) -> ApiResult<O::Input> {
    decode_query::<O>(raw.as_deref().unwrap_or(""), &[])
}

async fn read_file(
    SpaceCtx(space): SpaceCtx,
    RestCaller(caller): RestCaller,
    RawQuery(raw): RawQuery,
) -> ApiResult<Response> {
    let input: PathInput = query::<files::ReadFile>(&raw)?;
    let path = input.path.clone();
    let content = blocking(move || {
        let content = files::ReadFile::bytes(&space, &input.path)?;
        // A page read through the API is a view of it (`[analytics] track_views`).
        let client = caller.client.as_deref().or(Some("api"));
        space.page_viewed(&input.path, client, caller.actor.as_deref());
        Ok(content)
    })
    .await?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static(content_type_for(&path)),
            ),
            (header::ETAG, etag_header(&content.etag)),
        ],
        content.bytes,
    )
        .into_response())
}

/// `GET /raw`: the bytes, typed by the extension; no ETag, never cached, and sandboxed so
/// that an HTML or SVG file of the knowledge base runs no script in the API's origin.
async fn raw_file(SpaceCtx(space): SpaceCtx, RawQuery(raw): RawQuery) -> ApiResult<Response> {
    let input: PathInput = query::<files::RawFile>(&raw)?;
    let path = input.path.clone();
    let content = blocking(move || files::ReadFile::bytes(&space, &input.path)).await?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static(content_type_for(&path)),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
            (
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static("sandbox"),
            ),
        ],
        content.bytes,
    )
        .into_response())
}

/// The query of `PUT /file`: the body is the content.
#[derive(Deserialize)]
struct WriteQuery {
    path: String,
}

async fn write_file(
    SpaceCtx(space): SpaceCtx,
    RestCaller(caller): RestCaller,
    RawQuery(raw): RawQuery,
    RawBody(body): RawBody,
) -> ApiResult<Response> {
    let q: WriteQuery = serde_urlencoded::from_str(raw.as_deref().unwrap_or(""))
        .map_err(|e| crate::error::bad_request(format!("invalid query: {e}")))?;
    // A small write that nothing makes wait runs here: two thread hand-offs fewer (about a
    // quarter of the throughput of small writes, docs/PERFORMANCE.md).
    let written = match files::WriteFile::bytes_at_once(&space, &q.path, &body, &caller) {
        Some(written) => written.map_err(crate::error::ApiError)?,
        None => {
            blocking(move || {
                files::WriteFile::bytes(&space, &q.path, body.to_vec(), None, None, &caller)
            })
            .await?
        }
    };
    Ok((
        StatusCode::OK,
        [(header::ETAG, etag_header(&written.etag))],
        Json(written),
    )
        .into_response())
}

/// The query of `POST /file/append`: the body is the text.
#[derive(Deserialize)]
struct AppendQuery {
    path: String,
    separator: Option<String>,
}

async fn append(
    SpaceCtx(space): SpaceCtx,
    RestCaller(caller): RestCaller,
    RawQuery(raw): RawQuery,
    RawBody(body): RawBody,
) -> ApiResult<Response> {
    let q: AppendQuery = serde_urlencoded::from_str(raw.as_deref().unwrap_or(""))
        .map_err(|e| crate::error::bad_request(format!("invalid query: {e}")))?;
    let appended = blocking(move || {
        files::Append::bytes(
            &space,
            &q.path,
            &body,
            q.separator.as_deref(),
            None,
            &caller,
        )
    })
    .await?;
    Ok(Json(appended).into_response())
}

async fn version(SpaceCtx(space): SpaceCtx, RawQuery(raw): RawQuery) -> ApiResult<Response> {
    let input = query::<history::Version>(&raw)?;
    let bytes = blocking(move || history::Version::bytes(&space, &input)).await?;
    Ok((
        [(header::CONTENT_TYPE, "text/markdown; charset=utf-8")],
        bytes,
    )
        .into_response())
}

async fn text_answer<O>(
    space: SpaceCtx,
    raw: Option<String>,
    media: &'static str,
) -> ApiResult<Response>
where
    O: Operation<Output = quire_api::mcp::TextAnswer>,
{
    let SpaceCtx(space) = space;
    let input = query::<O>(&raw)?;
    let caller = quire_ops::Caller::default();
    let answer = blocking(move || O::run(&space, input, &caller)).await?;
    Ok(([(header::CONTENT_TYPE, media)], answer.text).into_response())
}

async fn diff(space: SpaceCtx, RawQuery(raw): RawQuery) -> ApiResult<Response> {
    text_answer::<history::Diff>(space, raw, "text/x-diff; charset=utf-8").await
}

async fn template(space: SpaceCtx, RawQuery(raw): RawQuery) -> ApiResult<Response> {
    text_answer::<files::TemplateBody>(space, raw, "text/markdown; charset=utf-8").await
}

async fn readlink(space: SpaceCtx, RawQuery(raw): RawQuery) -> ApiResult<Response> {
    text_answer::<files::Readlink>(space, raw, "text/plain; charset=utf-8").await
}

/// The query of `PUT /views/{name}`: the body is the view, the name is in the URL.
#[derive(Deserialize)]
struct ViewSaveQuery {
    if_match: Option<String>,
    message: Option<String>,
}

async fn views_save(
    SpaceCtx(space): SpaceCtx,
    RestCaller(caller): RestCaller,
    params: RawPathParams,
    RawQuery(raw): RawQuery,
    JsonBody(view): JsonBody<quire_api::View>,
) -> ApiResult<Response> {
    let name = path_param(&params, "name")?;
    let q: ViewSaveQuery = serde_urlencoded::from_str(raw.as_deref().unwrap_or(""))
        .map_err(|e| crate::error::bad_request(format!("invalid query: {e}")))?;
    let input = ViewSaveInput {
        name,
        view,
        if_match: q.if_match,
        message: q.message,
    };
    let saved = blocking(move || views::ViewsSave::run(&space, input, &caller)).await?;
    Ok(Json(saved).into_response())
}
