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
    let actor = write_options(&headers).actor;
    let plan = blocking(move || {
        let manifest = space.parse_manifest(&body, format)?;
        space.plan(&manifest, diffs, actor.as_deref())
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
    let actor = actor_of(&headers);
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
    let actor = actor_of(&headers);
    let done = blocking(move || space.rename_dir(&req.from, &req.to, &actor)).await?;
    Ok(Json(RenameDirResponse {
        from: done.from,
        to: done.to,
        renamed: done.renamed,
    }))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ApplyBody {
    /// The manifest as planned, as JSON.
    #[schema(value_type = Object)]
    pub manifest: serde_json::Value,
    /// Digest of the reviewed plan; when the workspace no longer produces it, nothing is written.
    pub digest: Option<String>,
    /// Agent clients: the user confirmed this plan.
    #[serde(default)]
    pub approved: bool,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ApproveBody {
    #[schema(value_type = Object)]
    pub manifest: Option<serde_json::Value>,
    pub digest: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RevertBody {
    /// Commit id, full or abbreviated.
    pub commit: Option<String>,
    #[serde(default)]
    pub dry_run: bool,
    pub digest: Option<String>,
}

/// `{error, plan}` for a refused restructuring.
fn refused(r: quire_service::Refused) -> Response {
    let status =
        StatusCode::from_u16(r.code.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut body = serde_json::json!({ "error": r.error });
    if let Some(plan) = r.plan {
        body["plan"] = serde_json::to_value(&plan).unwrap_or_default();
    }
    (status, Json(body)).into_response()
}

fn manifest_from_json(
    space: &quire_service::Space,
    value: &serde_json::Value,
) -> quire_service::Result<quire_service::Manifest> {
    if !value.is_object() {
        return Err(quire_service::Error::bad_request(
            "`manifest` must be a JSON object",
        ));
    }
    let bytes = serde_json::to_vec(value).map_err(quire_service::Error::internal)?;
    space.parse_manifest(&bytes, ManifestFormat::Json)
}

/// `X-Actor`, or the default actor of writes.
fn actor_of(headers: &HeaderMap) -> String {
    write_options(headers)
        .actor
        .unwrap_or_else(|| DEFAULT_ACTOR.to_string())
}

fn client_of(headers: &HeaderMap) -> String {
    headers
        .get("x-quire-client")
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .unwrap_or("rest")
        .to_string()
}

/// Plans the manifest again and applies it as exactly one commit.
#[utoipa::path(post, path = "/refactor/apply", tag = "restructuring", request_body = ApplyBody,
    params(("X-Actor" = Option<String>, Header, description = "who applies (commit author)"),
        ("X-Quire-Client" = Option<String>, Header, description = "calling tool; `mcp…` marks an agent")),
    responses((status = 200, description = "`{applied: {written, deleted, side_files, removed_dirs, commit}, plan}`", body = Object),
        (status = 400, body = ErrorBody), (status = 409, description = "`{error, plan}`: digest no longer matches or a file changed"),
        (status = 422, description = "`{error, plan}`: the plan has errors"),
        (status = 428, description = "`{error, plan}`: an agent's plan needs a person's approval")))]
pub async fn apply(
    SpaceCtx(space): SpaceCtx,
    headers: HeaderMap,
    JsonBody(body): JsonBody<ApplyBody>,
) -> ApiResult<Response> {
    let actor = actor_of(&headers);
    let client = client_of(&headers);
    let outcome = blocking(move || {
        let manifest = manifest_from_json(&space, &body.manifest)?;
        let req = quire_service::ApplyRequest {
            manifest,
            manifest_json: body.manifest,
            digest: body.digest,
            approved: body.approved,
            actor,
            client,
        };
        Ok(space.apply_manifest(&req))
    })
    .await?;
    Ok(match outcome {
        Ok((applied, plan)) => {
            Json(serde_json::json!({"applied": applied, "plan": plan})).into_response()
        }
        Err(r) => refused(r),
    })
}

/// A person approves one apply of this digest within the next hour.
#[utoipa::path(post, path = "/refactor/approve", tag = "restructuring", request_body = ApproveBody,
    responses((status = 200, description = "`{approved: <digest>, expires_in: \"1h0m0s\"}`", body = Object),
        (status = 400, body = ErrorBody), (status = 409, description = "`{error, plan}`")))]
pub async fn approve(
    SpaceCtx(space): SpaceCtx,
    JsonBody(body): JsonBody<ApproveBody>,
) -> ApiResult<Response> {
    let (Some(manifest), Some(digest)) = (body.manifest, body.digest) else {
        return Err(crate::error::bad_request(
            "both `manifest` and `digest` are required",
        ));
    };
    let outcome = blocking(move || {
        let parsed = manifest_from_json(&space, &manifest)?;
        Ok(space.approve(&parsed, &digest))
    })
    .await?;
    Ok(match outcome {
        Ok(digest) => {
            Json(serde_json::json!({"approved": digest, "expires_in": "1h0m0s"})).into_response()
        }
        Err(r) => refused(r),
    })
}

/// Plans agents tried to apply that wait for a person's approval.
#[utoipa::path(get, path = "/refactor/pending", tag = "restructuring",
    responses((status = 200, description = "`{pending: [{digest, manifest, actor, client, reason, at}]}`", body = Object)))]
pub async fn pending(SpaceCtx(space): SpaceCtx) -> ApiResult<Response> {
    let pending = blocking(move || space.pending_approvals()).await?;
    Ok(Json(serde_json::json!({ "pending": pending })).into_response())
}

/// Reverts any commit as a new commit restoring the previous bytes of every file it changed.
#[utoipa::path(post, path = "/refactor/revert", tag = "restructuring", request_body = RevertBody,
    params(("X-Actor" = Option<String>, Header, description = "commit author")),
    responses((status = 200, description = "`{applied, plan}`, or the revert plan with `dry_run`", body = Object),
        (status = 400, body = ErrorBody), (status = 409, description = "`{error, plan}`: digest no longer matches"),
        (status = 422, description = "`{error, plan}`: an affected file changed since the commit"),
        (status = 501, body = ErrorBody, description = "versioning is not git")))]
pub async fn revert(
    SpaceCtx(space): SpaceCtx,
    headers: HeaderMap,
    JsonBody(body): JsonBody<RevertBody>,
) -> ApiResult<Response> {
    let Some(commit) = body.commit.filter(|c| !c.trim().is_empty()) else {
        return Err(crate::error::bad_request("`commit` is required"));
    };
    let actor = actor_of(&headers);
    let dry_run = body.dry_run;
    let digest = body.digest;
    let outcome = blocking(move || {
        Ok(if dry_run {
            space
                .revert_plan(&commit)
                .map(|plan| serde_json::to_value(plan).unwrap_or_default())
        } else {
            space
                .revert(&commit, digest.as_deref(), &actor)
                .map(|(applied, plan)| serde_json::json!({"applied": applied, "plan": plan}))
        })
    })
    .await?;
    Ok(match outcome {
        Ok(value) => Json(value).into_response(),
        Err(r) => refused(r),
    })
}
