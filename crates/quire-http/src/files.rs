//! Files and structure: tree, file read/write/delete, bulk, assets, toc, append, templates,
//! readlink and link resolution.

use axum::extract::{Multipart, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use quire_api::{
    AppendResult, AssetResult, BulkRequest, BulkResult, DeleteResult, Heading, ResolveLinksRequest,
    ResolvedLinks, Templates, TreeNode, WriteResult,
};
use quire_service::media_type_of;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::context::{write_options, write_options_with, SpaceCtx};
use crate::error::RawBody;
use crate::error::{bad_request, blocking, ApiResult, ErrorBody, JsonBody, QueryParams};
use crate::AppState;

#[derive(Deserialize, IntoParams)]
pub struct PathQuery {
    /// Root-relative path, `/`-separated.
    pub path: String,
}

#[derive(Deserialize, IntoParams)]
pub struct OptionalPathQuery {
    /// Folder to list; omitted = the whole knowledge base.
    pub path: Option<String>,
}

#[derive(Deserialize, IntoParams)]
pub struct AppendQuery {
    pub path: String,
    /// Inserted between the old content and the new text; default two newlines.
    pub separator: Option<String>,
}

#[derive(Deserialize, IntoParams)]
pub struct TemplatesQuery {
    /// Omitted: list template names; given: that template as `{name, content}`.
    pub name: Option<String>,
}

#[derive(Deserialize, IntoParams)]
pub struct TemplateQuery {
    pub name: String,
    /// Fills `{{title}}` in the template body.
    pub title: Option<String>,
}

fn etag_header(etag: &str) -> HeaderValue {
    HeaderValue::from_str(&format!("\"{etag}\"")).expect("hex is a valid header value")
}

pub(crate) fn content_type_for(path: &str) -> &'static str {
    if path.ends_with(".md") {
        "text/markdown; charset=utf-8"
    } else {
        media_type_of(path)
    }
}

/// The directory tree.
#[utoipa::path(get, path = "/tree", tag = "files", params(OptionalPathQuery),
    responses((status = 200, body = [TreeNode]), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn tree(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<OptionalPathQuery>,
) -> ApiResult<Response> {
    let nodes = blocking(move || space.files().tree(q.path.as_deref())).await?;
    Ok(Json(nodes).into_response())
}

/// A file's raw content with its ETag (git blob id).
#[utoipa::path(get, path = "/file", tag = "files", params(PathQuery),
    responses((status = 200, description = "raw content", content_type = "text/markdown", body = String,
        headers(("ETag" = String, description = "git blob id"))),
        (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn read_file(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<PathQuery>,
) -> ApiResult<Response> {
    let path = q.path.clone();
    let content = blocking(move || space.files().read(&q.path)).await?;
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

/// Creates or replaces a file: one commit per write (`X-Actor` is the author).
#[utoipa::path(put, path = "/file", tag = "files", params(PathQuery,
        ("X-Actor" = Option<String>, Header, description = "commit author; default `api`"),
        ("X-Provenance" = Option<String>, Header, description = "recorded as `derived-from` in the frontmatter"),
        ("If-Match" = Option<String>, Header, description = "ETag last read; 409 when it no longer matches")),
    request_body(content = String, content_type = "text/markdown"),
    responses((status = 200, body = WriteResult, description = "written; `created` says whether the file is new"),
        (status = 400, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn write_file(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<PathQuery>,
    headers: HeaderMap,
    RawBody(body): RawBody,
) -> ApiResult<Response> {
    let opts = write_options(&headers);
    let written = blocking(move || space.files().write(&q.path, body.to_vec(), &opts)).await?;
    Ok((
        StatusCode::OK,
        [(header::ETAG, etag_header(&written.etag))],
        Json(written),
    )
        .into_response())
}

/// Deletes a file, recording the deletion as a commit.
#[utoipa::path(delete, path = "/file", tag = "files", params(PathQuery,
        ("X-Actor" = Option<String>, Header, description = "commit author")),
    responses((status = 200, body = DeleteResult), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn delete_file(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<PathQuery>,
    headers: HeaderMap,
) -> ApiResult<Json<DeleteResult>> {
    let opts = write_options(&headers);
    Ok(Json(
        blocking(move || space.files().delete(&q.path, &opts)).await?,
    ))
}

/// Writes many files in one atomic commit.
#[utoipa::path(post, path = "/bulk", tag = "files", request_body = BulkRequest,
    params(("X-Actor" = Option<String>, Header, description = "commit author")),
    responses((status = 200, body = BulkResult), (status = 400, body = ErrorBody)))]
pub async fn bulk(
    SpaceCtx(space): SpaceCtx,
    headers: HeaderMap,
    JsonBody(req): JsonBody<BulkRequest>,
) -> ApiResult<Json<BulkResult>> {
    let opts = write_options_with(&headers, req.actor, req.message);
    let files = req
        .files
        .into_iter()
        .map(|f| (f.path, f.content.into_bytes()))
        .collect();
    Ok(Json(
        blocking(move || space.files().bulk(files, &opts)).await?,
    ))
}

/// Stores an uploaded file under `assets/` (multipart field `file`).
#[utoipa::path(post, path = "/assets", tag = "files",
    request_body(content_type = "multipart/form-data", description = "field `file`"),
    params(("X-Actor" = Option<String>, Header, description = "commit author")),
    responses((status = 200, body = AssetResult), (status = 400, body = ErrorBody),
        (status = 413, body = ErrorBody), (status = 415, body = ErrorBody)))]
pub async fn upload_asset(
    SpaceCtx(space): SpaceCtx,
    headers: HeaderMap,
    mut multipart: Multipart,
) -> ApiResult<Response> {
    let opts = write_options(&headers);
    while let Some(field) = multipart
        .next_field()
        .await
        .map_err(|e| bad_request(format!("invalid multipart body: {}", e.body_text())))?
    {
        if field.name() != Some("file") {
            continue;
        }
        let name = field.file_name().unwrap_or("").to_string();
        let media_type = field.content_type().map(str::to_string);
        let bytes = field
            .bytes()
            .await
            .map_err(|e| bad_request(format!("reading the upload failed: {}", e.body_text())))?;
        let stored = blocking(move || {
            space
                .files()
                .store_asset(&name, media_type.as_deref(), bytes.to_vec(), &opts)
        })
        .await?;
        return Ok(Json(stored).into_response());
    }
    Err(bad_request("the multipart body has no field named `file`"))
}

/// The headings of a page.
#[utoipa::path(get, path = "/toc", tag = "files", params(PathQuery),
    responses((status = 200, body = [Heading]), (status = 404, body = ErrorBody)))]
pub async fn toc(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<PathQuery>,
) -> ApiResult<Response> {
    let entries = blocking(move || space.files().headings(&q.path)).await?;
    Ok(Json(entries).into_response())
}

/// Appends text to a page (created when missing).
#[utoipa::path(post, path = "/file/append", tag = "files", params(AppendQuery,
        ("X-Actor" = Option<String>, Header, description = "commit author")),
    request_body(content = String, content_type = "text/markdown"),
    responses((status = 200, body = AppendResult), (status = 400, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn append(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<AppendQuery>,
    headers: HeaderMap,
    RawBody(body): RawBody,
) -> ApiResult<Json<AppendResult>> {
    let opts = write_options(&headers);
    let separator = q.separator.unwrap_or_else(|| "\n\n".to_string());
    Ok(Json(
        blocking(move || space.files().append(&q.path, &body, &separator, &opts)).await?,
    ))
}

/// Template names, or one template as `{name, content}`.
#[utoipa::path(get, path = "/templates", tag = "files", params(TemplatesQuery),
    responses((status = 200, description = "the names, or one template", body = Templates), (status = 404, body = ErrorBody)))]
pub async fn templates(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<TemplatesQuery>,
) -> ApiResult<Json<Templates>> {
    Ok(Json(
        blocking(move || match q.name {
            Some(name) => space.files().template(&name).map(Templates::One),
            None => space.files().templates().map(Templates::Names),
        })
        .await?,
    ))
}

/// A template body ready for insertion (`{{date}}`, `{{time}}`, `{{title}}` filled in).
#[utoipa::path(get, path = "/template", tag = "files", params(TemplateQuery),
    responses((status = 200, content_type = "text/markdown", body = String), (status = 404, body = ErrorBody)))]
pub async fn template(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<TemplateQuery>,
) -> ApiResult<Response> {
    let body = blocking(move || {
        space
            .files()
            .template_for_insertion(&q.name, q.title.as_deref())
    })
    .await?;
    Ok((
        [(header::CONTENT_TYPE, "text/markdown; charset=utf-8")],
        body,
    )
        .into_response())
}

/// The target of a symbolic link.
#[utoipa::path(get, path = "/readlink", tag = "files", params(PathQuery),
    responses((status = 200, content_type = "text/plain", body = String),
        (status = 400, body = ErrorBody, description = "not a symlink"), (status = 404, body = ErrorBody)))]
pub async fn readlink(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<PathQuery>,
) -> ApiResult<Response> {
    let target = blocking(move || space.files().readlink(&q.path)).await?;
    Ok((
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        target,
    )
        .into_response())
}

/// Resolves wiki-link targets as a page at the root would.
#[utoipa::path(post, path = "/resolve-links", tag = "files", request_body = ResolveLinksRequest,
    responses((status = 200, body = ResolvedLinks), (status = 400, body = ErrorBody)))]
pub async fn resolve_links(
    State(_state): State<AppState>,
    SpaceCtx(space): SpaceCtx,
    JsonBody(req): JsonBody<ResolveLinksRequest>,
) -> ApiResult<Response> {
    let resolved =
        blocking(move || space.files().resolve_links(req.from.as_deref(), &req.links)).await?;
    Ok(Json(resolved).into_response())
}
