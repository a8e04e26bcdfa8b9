//! The handlers REST gives operations of drafts, workflows and canvases that are not JSON in
//! and out: raw bodies stored as sent (a draft's file, a schema, a canvas) and raw answers
//! with their `ETag`. Each still calls its operation (or the
//! operation's byte-level twin), so REST, MCP and the command line answer alike.

use axum::extract::{RawPathParams, RawQuery};
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::{on, MethodFilter, MethodRouter};
use axum::Json;
use quire_api::DraftPathInput;
use quire_ops::{canvas, drafts, workflows, Operation};
use quire_service::Error;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::{doc, path_params, typed_query, RestCaller};
use crate::context::SpaceCtx;
use crate::error::{blocking, ApiError, ApiResult, RawBody};
use crate::files::content_type_for;
use crate::AppState;

/// The handler of operation `O`, when this module has one.
pub(crate) fn handler<O: Operation>(filter: MethodFilter) -> Option<MethodRouter<AppState>> {
    Some(match O::META.name {
        "draft_file" => on(filter, draft_file),
        "draft_write_file" => on(filter, draft_write_file),
        "schema" => on(filter, schema),
        "schema_save" => on(filter, schema_save),
        "canvas" => on(filter, canvas_read),
        "canvas_write" => on(filter, canvas_write),
        _ => return None,
    })
}

fn etag_header(etag: &str) -> HeaderValue {
    HeaderValue::from_str(&format!("\"{etag}\"")).expect("hex is a valid header value")
}

/// The fields of `O`'s input a raw route carries in its query string and path, read as `T`
/// (the raw body's field left out).
fn fields<O: Operation, T: DeserializeOwned>(
    raw: &Option<String>,
    params: &RawPathParams,
) -> ApiResult<T> {
    let names: Vec<&str> = doc::input_fields(O::META.name)
        .iter()
        .map(String::as_str)
        .collect();
    let mut map: Map<String, Value> = typed_query::<O>(raw.as_deref().unwrap_or(""), &names)?;
    for (key, value) in path_params(params) {
        map.insert(key, Value::String(value));
    }
    serde_json::from_value(Value::Object(map))
        .map_err(|e| ApiError(Error::bad_request(format!("invalid query: {e}"))))
}

/// Where a raw write goes, and what the caller expects of it.
#[derive(Deserialize)]
struct Target {
    path: Option<String>,
    name: Option<String>,
    id: Option<String>,
    if_match: Option<String>,
    message: Option<String>,
}

impl Target {
    fn required(value: Option<String>, field: &str) -> ApiResult<String> {
        value.ok_or_else(|| {
            ApiError(Error::bad_request(format!(
                "invalid query: missing field `{field}`"
            )))
        })
    }
}

async fn draft_file(
    SpaceCtx(space): SpaceCtx,
    params: RawPathParams,
    RawQuery(raw): RawQuery,
) -> ApiResult<Response> {
    let input: DraftPathInput = fields::<drafts::ReadFile, _>(&raw, &params)?;
    let path = input.path.clone();
    let content = blocking(move || drafts::ReadFile::bytes(&space, &input)).await?;
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

async fn draft_write_file(
    SpaceCtx(space): SpaceCtx,
    RestCaller(caller): RestCaller,
    params: RawPathParams,
    RawQuery(raw): RawQuery,
    RawBody(body): RawBody,
) -> ApiResult<Response> {
    let target: Target = fields::<drafts::WriteFile, _>(&raw, &params)?;
    let id = Target::required(target.id, "id")?;
    let path = Target::required(target.path, "path")?;
    let written = blocking(move || {
        drafts::WriteFile::bytes(&space, &id, &path, body.to_vec(), target.if_match, &caller)
    })
    .await?;
    Ok(([(header::ETAG, etag_header(&written.etag))], Json(written)).into_response())
}

async fn schema(
    SpaceCtx(space): SpaceCtx,
    params: RawPathParams,
    RawQuery(raw): RawQuery,
) -> ApiResult<Response> {
    let target: Target = fields::<workflows::SchemaGet, _>(&raw, &params)?;
    let name = Target::required(target.name, "name")?;
    let content = blocking(move || workflows::SchemaGet::bytes(&space, &name)).await?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            ),
            (header::ETAG, etag_header(&content.etag)),
        ],
        content.bytes,
    )
        .into_response())
}

async fn schema_save(
    SpaceCtx(space): SpaceCtx,
    RestCaller(caller): RestCaller,
    params: RawPathParams,
    RawQuery(raw): RawQuery,
    RawBody(body): RawBody,
) -> ApiResult<Response> {
    let target: Target = fields::<workflows::SchemaPut, _>(&raw, &params)?;
    let name = Target::required(target.name, "name")?;
    let written = blocking(move || {
        workflows::SchemaPut::bytes(
            &space,
            &name,
            body.to_vec(),
            target.message,
            target.if_match,
            &caller,
        )
    })
    .await?;
    Ok(Json(written).into_response())
}

async fn canvas_read(
    SpaceCtx(space): SpaceCtx,
    params: RawPathParams,
    RawQuery(raw): RawQuery,
) -> ApiResult<Response> {
    let target: Target = fields::<canvas::Read, _>(&raw, &params)?;
    let path = Target::required(target.path, "path")?;
    let (bytes, etag) = blocking(move || canvas::Read::bytes(&space, &path)).await?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            ),
            (header::ETAG, etag_header(&etag)),
        ],
        bytes,
    )
        .into_response())
}

async fn canvas_write(
    SpaceCtx(space): SpaceCtx,
    RestCaller(caller): RestCaller,
    params: RawPathParams,
    RawQuery(raw): RawQuery,
    RawBody(body): RawBody,
) -> ApiResult<Response> {
    let target: Target = fields::<canvas::Write, _>(&raw, &params)?;
    let path = Target::required(target.path, "path")?;
    let written = blocking(move || {
        canvas::Write::bytes(
            &space,
            &path,
            &body,
            target.message,
            target.if_match,
            &caller,
        )
    })
    .await?;
    Ok(Json(written).into_response())
}
