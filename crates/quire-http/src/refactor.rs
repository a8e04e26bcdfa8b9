//! Restructuring routes: `POST /refactor/plan`, `POST /rename`, `POST /rename-dir`.

use axum::body::Bytes;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use quire_service::{ManifestFormat, Relink, DEFAULT_ACTOR};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use crate::context::{write_options, SpaceCtx};
use crate::error::{blocking, ApiResult, ErrorBody, JsonBody, QueryParams};

#[derive(Deserialize, IntoParams)]
pub struct PlanQuery {
    /// Adds a unified diff of every written page.
    #[serde(default)]
    pub diffs: bool,
    /// `workspace-edit` returns the plan as an LSP WorkspaceEdit.
    pub format: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RenameRequest {
    pub from: String,
    pub to: String,
    /// Rewrite links so they keep reaching the page (default true).
    #[serde(default = "yes")]
    pub relink: bool,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RenameDirRequest {
    pub from: String,
    pub to: String,
}

#[derive(serde::Serialize, ToSchema)]
pub struct RenameResponse {
    pub from: String,
    pub to: String,
    pub etag: String,
    pub updated_links: usize,
}

#[derive(serde::Serialize, ToSchema)]
pub struct RenameDirResponse {
    pub from: String,
    pub to: String,
    pub renamed: usize,
}

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

/// Plans a manifest (YAML or JSON body). Nothing is written; 200 even when the plan has errors.
#[utoipa::path(post, path = "/refactor/plan", tag = "restructuring", params(PlanQuery),
    request_body(content = String, description = "the manifest, YAML (`application/yaml`) or JSON; at most 1 MB"),
    responses((status = 200, description = "the plan", body = Object),
        (status = 400, body = ErrorBody, description = "manifest cannot be parsed or is empty"),
        (status = 422, description = "`format=workspace-edit` and the plan has errors: `{error, plan}`")))]
pub async fn plan(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<PlanQuery>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Response> {
    let format = manifest_format(&headers);
    let workspace_edit = match q.format.as_deref() {
        None | Some("") | Some("plan") => false,
        Some("workspace-edit") => true,
        Some(other) => {
            return Err(crate::error::bad_request(format!(
                "unknown format {other:?}; use workspace-edit or leave it out"
            )))
        }
    };
    let diffs = q.diffs;
    let root_uri = file_uri(space.root_dir());
    let plan = blocking(move || {
        let manifest = space.parse_manifest(&body, format)?;
        space.plan(&manifest, diffs)
    })
    .await?;
    if !workspace_edit {
        return Ok(Json(plan).into_response());
    }
    if !plan.errors.is_empty() {
        let error = format!("the plan has errors: {}", plan.errors.join("; "));
        return Ok((
            StatusCode::UNPROCESSABLE_ENTITY,
            Json(serde_json::json!({"error": error, "plan": plan})),
        )
            .into_response());
    }
    Ok(Json(quire_service::workspace_edit(&plan, &root_uri)).into_response())
}

fn file_uri(dir: &std::path::Path) -> String {
    let mut uri = String::from("file://");
    for b in dir.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'/' | b'-' | b'_' | b'.' | b'~') {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

/// Renames one file, rewriting every link to it (unless `relink` is false). Never overwrites.
#[utoipa::path(post, path = "/rename", tag = "restructuring", request_body = RenameRequest,
    params(("X-Actor" = Option<String>, Header, description = "commit author")),
    responses((status = 200, body = RenameResponse), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody, description = "destination exists"),
        (status = 422, body = ErrorBody, description = "the plan has errors")))]
pub async fn rename(
    SpaceCtx(space): SpaceCtx,
    headers: HeaderMap,
    JsonBody(req): JsonBody<RenameRequest>,
) -> ApiResult<Json<RenameResponse>> {
    let actor = write_options(&headers)
        .actor
        .unwrap_or_else(|| DEFAULT_ACTOR.to_string());
    let relink = if req.relink { Relink::Yes } else { Relink::No };
    let done = blocking(move || space.rename(&req.from, &req.to, relink, &actor)).await?;
    Ok(Json(RenameResponse {
        from: done.from,
        to: done.to,
        etag: done.etag,
        updated_links: done.updated_links,
    }))
}

/// Renames a folder and everything below it, rewriting links. Never overwrites.
#[utoipa::path(post, path = "/rename-dir", tag = "restructuring", request_body = RenameDirRequest,
    params(("X-Actor" = Option<String>, Header, description = "commit author")),
    responses((status = 200, body = RenameDirResponse), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody), (status = 422, body = ErrorBody)))]
pub async fn rename_dir(
    SpaceCtx(space): SpaceCtx,
    headers: HeaderMap,
    JsonBody(req): JsonBody<RenameDirRequest>,
) -> ApiResult<Json<RenameDirResponse>> {
    let actor = write_options(&headers)
        .actor
        .unwrap_or_else(|| DEFAULT_ACTOR.to_string());
    let done = blocking(move || space.rename_dir(&req.from, &req.to, &actor)).await?;
    Ok(Json(RenameDirResponse {
        from: done.from,
        to: done.to,
        renamed: done.renamed,
    }))
}
