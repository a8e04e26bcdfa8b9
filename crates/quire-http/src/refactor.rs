//! Restructuring routes: plan, script, apply, approve, pending, revert, and the single-file and
//! folder renames.

use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::Json;
use quire_api::{
    Applied, ApplyRequest, ApproveRequest, Approved, Manifest, PendingList, Plan, RenameDirRequest,
    RenameRequest, Renamed, RenamedDir, RevertRequest, ScriptRequest, ScriptResponse,
    WorkspaceEdit, WorkspaceEditPlan, WorkspaceEditRequest,
};
use quire_service::{Error, ErrorCode, ManifestFormat, Relink, DEFAULT_ACTOR};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::context::{write_options, write_options_with, SpaceCtx};
use crate::error::RawBody;
use crate::error::{bad_request, blocking, ApiResult, ErrorBody, JsonBody, QueryParams};

#[derive(Deserialize, IntoParams)]
pub struct PlanQuery {
    /// Adds a unified diff of every written page.
    #[serde(default)]
    pub diffs: bool,
    /// `workspace-edit` returns the plan as an LSP WorkspaceEdit.
    pub format: Option<String>,
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
/// An agent's plan (`X-Quire-Client: mcp…`) says whether it needs a person's approval.
#[utoipa::path(post, path = "/refactor/plan", tag = "restructuring", params(PlanQuery,
        ("X-Actor" = Option<String>, Header, description = "who will apply: pages other actors claim are refused"),
        ("X-Quire-Client" = Option<String>, Header, description = "calling tool; `mcp…` marks an agent")),
    request_body(content((Manifest = "application/json"), (Manifest = "application/yaml")),
        description = "the manifest, YAML or JSON; at most 1 MB"),
    responses((status = 200, description = "the plan (with `format=workspace-edit`: an LSP WorkspaceEdit)", body = Plan),
        (status = 400, body = ErrorBody, description = "manifest cannot be parsed or is empty"),
        (status = 422, body = ErrorBody, description = "`format=workspace-edit` and the plan has errors: `{error, plan}`")))]
pub async fn plan(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<PlanQuery>,
    headers: HeaderMap,
    RawBody(body): RawBody,
) -> ApiResult<Response> {
    let format = manifest_format(&headers);
    let workspace_edit = match q.format.as_deref() {
        None | Some("") | Some("plan") => false,
        Some("workspace-edit") => true,
        Some(other) => {
            return Err(bad_request(format!(
                "unknown format {other:?}; use workspace-edit or leave it out"
            )))
        }
    };
    let diffs = q.diffs;
    let root_uri = quire_api::workspace_edit::file_uri(&space.root_dir().to_string_lossy());
    let actor = write_options(&headers).actor;
    let client = client_of(&headers);
    let plan = blocking(move || {
        let manifest = quire_service::parse_manifest(&body, format)?;
        space
            .restructure()
            .plan_as(&manifest, diffs, actor.as_deref(), &client)
    })
    .await?;
    if !workspace_edit {
        return Ok(Json(plan).into_response());
    }
    if let Some(refusal) = plan.refusal() {
        return Err(Error::refused(ErrorCode::Unprocessable, refusal, &plan).into());
    }
    let edit: WorkspaceEdit = quire_api::workspace_edit(&plan, &root_uri);
    Ok(Json(edit).into_response())
}

#[derive(Deserialize, IntoParams)]
pub struct DiffsQuery {
    /// Adds a unified diff of every written page.
    #[serde(default)]
    pub diffs: bool,
}

#[derive(Deserialize, IntoParams)]
pub struct ScriptQuery {
    /// Adds a unified diff of every written page (as the body's `diffs` does).
    #[serde(default)]
    pub diffs: bool,
}

/// Plans the file renames of an editor's LSP WorkspaceEdit as a manifest of moves. Text edits,
/// creates and deletes are ignored (the plan computes its own link edits) and listed in
/// `ignored`. Nothing is written; 200 even when the plan has errors.
#[utoipa::path(post, path = "/refactor/from-workspace-edit", tag = "restructuring", params(DiffsQuery,
        ("X-Actor" = Option<String>, Header, description = "who will apply: pages other actors claim are refused"),
        ("X-Quire-Client" = Option<String>, Header, description = "calling tool; `mcp…` marks an agent")),
    request_body = WorkspaceEditRequest,
    responses((status = 200, body = WorkspaceEditPlan, description = "`{manifest, plan, ignored}`"),
        (status = 400, body = ErrorBody, description = "a rename's URI is not a `file://` URI under the root, the edit renames no files, or the body is not a WorkspaceEdit")))]
pub async fn from_workspace_edit(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<DiffsQuery>,
    headers: HeaderMap,
    JsonBody(edit): JsonBody<WorkspaceEditRequest>,
) -> ApiResult<Json<WorkspaceEditPlan>> {
    let actor = write_options(&headers).actor;
    let client = client_of(&headers);
    let planned = blocking(move || {
        space
            .restructure()
            .plan_workspace_edit(&edit, q.diffs, actor.as_deref(), &client)
    })
    .await?;
    Ok(Json(planned))
}

/// Runs a Starlark script that computes a manifest, and plans that manifest exactly as
/// `/refactor/plan` would. The script runs in a separate read-only process (256 MB, 30 s,
/// no `while`, no recursion, bounded reads). Nothing is written.
#[utoipa::path(post, path = "/refactor/script", tag = "restructuring", params(ScriptQuery,
        ("X-Actor" = Option<String>, Header, description = "who will apply: pages other actors claim are refused"),
        ("X-Quire-Client" = Option<String>, Header, description = "calling tool; `mcp…` marks an agent")),
    request_body = ScriptRequest,
    responses((status = 200, body = ScriptResponse, description = "`{manifest, output, plan}`"),
        (status = 400, body = ErrorBody, description = "empty script or unreadable body"),
        (status = 413, body = ErrorBody, description = "the script is over 1 MB"),
        (status = 422, body = ErrorBody, description = "the script failed (syntax error with line and column, runtime error, time or memory limit) or returned an invalid manifest"),
        (status = 501, body = ErrorBody, description = "this build runs no scripts"),
        (status = 503, body = ErrorBody, description = "too many scripts are running")))]
pub async fn script(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<ScriptQuery>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<ScriptRequest>,
) -> ApiResult<Json<ScriptResponse>> {
    let actor = write_options(&headers).actor;
    let client = client_of(&headers);
    let diffs = q.diffs || body.diffs;
    let answer = blocking(move || {
        space
            .restructure()
            .script(&body.script, diffs, actor.as_deref(), &client)
    })
    .await?;
    Ok(Json(answer))
}

/// Renames one file, rewriting every link to it (unless `relink` is false). Never overwrites.
#[utoipa::path(post, path = "/rename", tag = "restructuring", request_body = RenameRequest,
    params(("X-Actor" = Option<String>, Header, description = "commit author")),
    responses((status = 200, body = Renamed), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody, description = "destination exists"),
        (status = 422, body = ErrorBody, description = "the plan has errors")))]
pub async fn rename(
    SpaceCtx(space): SpaceCtx,
    headers: HeaderMap,
    JsonBody(req): JsonBody<RenameRequest>,
) -> ApiResult<Json<Renamed>> {
    let opts = write_options_with(&headers, req.actor, req.message);
    let relink = if req.relink { Relink::Yes } else { Relink::No };
    let done = blocking(move || {
        space
            .restructure()
            .rename(&req.from, &req.to, relink, &opts)
    })
    .await?;
    Ok(Json(done))
}

/// Renames a folder and everything below it, rewriting links. Never overwrites.
#[utoipa::path(post, path = "/rename-dir", tag = "restructuring", request_body = RenameDirRequest,
    params(("X-Actor" = Option<String>, Header, description = "commit author")),
    responses((status = 200, body = RenamedDir), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody), (status = 422, body = ErrorBody)))]
pub async fn rename_dir(
    SpaceCtx(space): SpaceCtx,
    headers: HeaderMap,
    JsonBody(req): JsonBody<RenameDirRequest>,
) -> ApiResult<Json<RenamedDir>> {
    let opts = write_options_with(&headers, req.actor, req.message);
    let done = blocking(move || space.restructure().rename_dir(&req.from, &req.to, &opts)).await?;
    Ok(Json(done))
}

/// A manifest that arrived as a typed value, checked as a parsed body would be.
fn checked(manifest: Manifest) -> quire_service::Result<Manifest> {
    quire_service::validate_manifest(&manifest)?;
    Ok(manifest)
}

/// `X-Actor`, else the body's `actor`, else the default actor of writes.
fn actor_of(headers: &HeaderMap, body: Option<String>) -> String {
    write_options_with(headers, body, None)
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
#[utoipa::path(post, path = "/refactor/apply", tag = "restructuring", request_body = ApplyRequest,
    params(("X-Actor" = Option<String>, Header, description = "who applies (commit author)"),
        ("X-Quire-Client" = Option<String>, Header, description = "calling tool; `mcp…` marks an agent")),
    responses((status = 200, body = Applied),
        (status = 400, body = ErrorBody), (status = 409, body = ErrorBody, description = "`{error, plan}`: digest no longer matches or a file changed"),
        (status = 422, body = ErrorBody, description = "`{error, plan}`: the plan has errors"),
        (status = 428, body = ErrorBody, description = "`{error, plan}`: an agent's plan needs a person's approval")))]
pub async fn apply(
    SpaceCtx(space): SpaceCtx,
    headers: HeaderMap,
    JsonBody(body): JsonBody<ApplyRequest>,
) -> ApiResult<Json<Applied>> {
    let actor = actor_of(&headers, body.actor.clone());
    let client = client_of(&headers);
    let (applied, plan) = blocking(move || {
        let mut manifest = checked(body.manifest)?;
        if body.now.is_some() {
            manifest.now = body.now;
        }
        let req = quire_service::ApplyRequest {
            manifest,
            digest: body.digest,
            approved: body.approved,
            actor,
            client,
            message: body.message,
        };
        space.restructure().apply(&req)
    })
    .await?;
    Ok(Json(Applied { applied, plan }))
}

/// A person approves one apply of this digest within the next hour.
#[utoipa::path(post, path = "/refactor/approve", tag = "restructuring", request_body = ApproveRequest,
    responses((status = 200, body = Approved),
        (status = 400, body = ErrorBody), (status = 409, body = ErrorBody, description = "`{error, plan}`")))]
pub async fn approve(
    SpaceCtx(space): SpaceCtx,
    JsonBody(body): JsonBody<ApproveRequest>,
) -> ApiResult<Json<Approved>> {
    let (Some(manifest), Some(digest)) = (body.manifest, body.digest) else {
        return Err(bad_request("both `manifest` and `digest` are required"));
    };
    let digest =
        blocking(move || space.restructure().approve(&checked(manifest)?, &digest)).await?;
    Ok(Json(Approved {
        approved: digest,
        expires_in: "1h0m0s".into(),
    }))
}

/// Plans agents tried to apply that wait for a person's approval.
#[utoipa::path(get, path = "/refactor/pending", tag = "restructuring",
    responses((status = 200, body = PendingList)))]
pub async fn pending(SpaceCtx(space): SpaceCtx) -> ApiResult<Json<PendingList>> {
    let pending = blocking(move || space.restructure().pending()).await?;
    Ok(Json(PendingList { pending }))
}

/// Reverts any commit as a new commit restoring the previous bytes of every file it changed.
#[utoipa::path(post, path = "/refactor/revert", tag = "restructuring", request_body = RevertRequest,
    params(("X-Actor" = Option<String>, Header, description = "commit author"),
        ("X-Quire-Client" = Option<String>, Header, description = "calling tool, recorded in the commit")),
    responses((status = 200, body = Applied, description = "`{applied, plan}`; with `dry_run` the revert plan alone"),
        (status = 400, body = ErrorBody), (status = 409, body = ErrorBody, description = "`{error, plan}`: digest no longer matches"),
        (status = 422, body = ErrorBody, description = "`{error, plan}`: an affected file changed since the commit"),
        (status = 501, body = ErrorBody, description = "versioning is not git")))]
pub async fn revert(
    SpaceCtx(space): SpaceCtx,
    headers: HeaderMap,
    JsonBody(body): JsonBody<RevertRequest>,
) -> ApiResult<Response> {
    let Some(commit) = body.commit.filter(|c| !c.trim().is_empty()) else {
        return Err(bad_request("`commit` is required"));
    };
    let actor = actor_of(&headers, body.actor);
    let client = client_of(&headers);
    let dry_run = body.dry_run;
    let digest = body.digest;
    if dry_run {
        let plan: Plan = blocking(move || space.restructure().revert_plan(&commit)).await?;
        return Ok(Json(plan).into_response());
    }
    let (applied, plan) = blocking(move || {
        space
            .restructure()
            .revert(&commit, digest.as_deref(), &actor, &client)
    })
    .await?;
    Ok(Json(Applied { applied, plan }).into_response())
}
