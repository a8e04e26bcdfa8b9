//! The handlers REST gives operations of drafts, workflows, canvases, collaboration and
//! restructuring that are not JSON in and out, or answer with headers of their own: raw
//! bodies stored as sent (a draft's file, a schema, a canvas, the rules file), raw answers
//! with their `ETag`, a manifest in YAML or JSON, the share link's `no-store`, and the space
//! visibility that applies to the next request. Each still calls its operation (or the
//! operation's byte-level twin), so REST, MCP and the command line answer alike.

use axum::extract::{RawPathParams, RawQuery, Request, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::{on, MethodFilter, MethodRouter};
use axum::Json;
use quire_api::mcp::RefactorPlanInput;
use quire_api::DraftPathInput;
use quire_ops::{canvas, collab, drafts, refactor, workflows, Operation};
use quire_service::{Error, ManifestFormat};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::{decode_json, doc, json_body, path_params, success, typed_query, RestCaller};
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
        "rules" => on(filter, rules),
        "rules_write" => on(filter, rules_write),
        "share_create" => on(filter, share_create),
        "space_visibility" => on(filter, space_visibility),
        "refactor_plan" => on(filter, refactor_plan),
        _ => return super::mount::handler::<O>(filter),
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

async fn rules(
    SpaceCtx(space): SpaceCtx,
    params: RawPathParams,
    RawQuery(raw): RawQuery,
) -> ApiResult<Response> {
    let input = fields::<collab::Rules, _>(&raw, &params)?;
    let caller = quire_ops::Caller::default();
    let answer = blocking(move || collab::Rules::run(&space, input, &caller)).await?;
    Ok((
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/markdown; charset=utf-8"),
        )],
        answer.text,
    )
        .into_response())
}

async fn rules_write(
    SpaceCtx(space): SpaceCtx,
    RestCaller(caller): RestCaller,
    params: RawPathParams,
    RawQuery(raw): RawQuery,
    RawBody(body): RawBody,
) -> ApiResult<Response> {
    let target: Target = fields::<collab::RulesPut, _>(&raw, &params)?;
    let written = blocking(move || {
        collab::RulesPut::bytes(&space, &body, target.message, target.if_match, &caller)
    })
    .await?;
    Ok(Json(written).into_response())
}

/// `POST /share`: the answer holds the token, which no cache may keep.
async fn share_create(
    SpaceCtx(space): SpaceCtx,
    RestCaller(caller): RestCaller,
    params: RawPathParams,
    RawQuery(raw): RawQuery,
    request: Request,
) -> ApiResult<Response> {
    type Op = collab::ShareCreate;
    let body = json_body::<Op>(request).await?;
    let input = decode_json::<Op>(body, &path_params(&params), raw.as_deref().unwrap_or(""))?;
    let link = blocking(move || Op::run(&space, input, &caller)).await?;
    Ok(success::<Op>((
        [(header::CACHE_CONTROL, HeaderValue::from_static("no-store"))],
        Json(link),
    )))
}

/// `PUT /space/visibility`: written to the space's configuration, then applied to the
/// requests that follow.
async fn space_visibility(
    State(state): State<AppState>,
    SpaceCtx(space): SpaceCtx,
    RestCaller(caller): RestCaller,
    params: RawPathParams,
    RawQuery(raw): RawQuery,
    request: Request,
) -> ApiResult<Response> {
    type Op = collab::Visibility;
    let body = json_body::<Op>(request).await?;
    let input = decode_json::<Op>(body, &path_params(&params), raw.as_deref().unwrap_or(""))?;
    let visibility = Op::parse(&input)?;
    let name = space.name().to_string();
    let answer = blocking(move || Op::run(&space, input, &caller)).await?;
    state.visibility.set(&name, visibility);
    Ok(success::<Op>(Json(answer)))
}

/// The query of `POST /refactor/plan`: the body is the manifest.
#[derive(Deserialize)]
struct PlanQuery {
    #[serde(default)]
    diffs: bool,
    format: Option<String>,
}

/// The format of a manifest body, by its `Content-Type`.
fn manifest_format(headers: &HeaderMap) -> ManifestFormat {
    let ct = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    if ct.contains("json") {
        ManifestFormat::Json
    } else if ct.contains("yaml") {
        ManifestFormat::Yaml
    } else {
        ManifestFormat::Auto
    }
}

async fn refactor_plan(
    SpaceCtx(space): SpaceCtx,
    RestCaller(caller): RestCaller,
    params: RawPathParams,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
    RawBody(body): RawBody,
) -> ApiResult<Response> {
    let q: PlanQuery = fields::<refactor::Plan, _>(&raw, &params)?;
    let format = manifest_format(&headers);
    let answer = blocking(move || {
        let manifest = quire_service::parse_manifest(&body, format)?;
        let input = RefactorPlanInput {
            manifest,
            diffs: q.diffs,
            format: q.format,
        };
        refactor::Plan::run(&space, input, &caller)
    })
    .await?;
    Ok(Json(answer).into_response())
}
