//! Restructuring: plans (from a manifest, an editor's WorkspaceEdit or a script), renames,
//! apply, approval, pending approvals and revert.
//!
//! Who calls matters here: an agent's plan (client `mcp…`) may need a person's approval. The
//! client is the caller's (`X-Quire-Client`, the MCP session's `mcp-<name>`, `cli`), `rest`
//! when a REST caller names none.

use quire_api::mcp::{NoInput, RefactorPlanInput};
use quire_api::{
    Applied, ApplyRequest, ApproveRequest, Approved, FromWorkspaceEdit, PendingList, PlanAnswer,
    RenameDirRequest, RenameRequest, Renamed, RenamedDir, RevertAnswer, RevertRequest,
    ScriptRequest, ScriptResponse, WorkspaceEditPlan,
};
use quire_service::{Error, ErrorCode, Manifest, Relink, Result, Space, DEFAULT_ACTOR};

use crate::{Caller, Meta, Operation, Rest, Tool, Visit};

const AREA: &str = "restructuring";

pub(crate) fn visit(v: &mut impl Visit) {
    v.op::<Rename>();
    v.op::<Plan>();
    v.op::<Apply>();
    v.op::<Script>();
    v.op::<Revert>();
    v.op::<FromEdit>();
    v.op::<RenameDir>();
    v.op::<Approve>();
    v.op::<Pending>();
}

/// The client a restructuring records: the caller's, else `rest` (a REST caller naming none).
pub fn client_of(caller: &Caller) -> String {
    caller
        .client
        .as_deref()
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .unwrap_or("rest")
        .to_string()
}

/// Who applies or reverts: the protocol's actor, else the input's, else the default actor.
fn applier(caller: &Caller, given: Option<String>) -> String {
    caller
        .write_options_by(given, None, None)
        .actor
        .unwrap_or_else(|| DEFAULT_ACTOR.to_string())
}

/// A manifest that arrived as a typed value, checked as a parsed body would be.
fn checked(manifest: Manifest) -> Result<Manifest> {
    quire_service::validate_manifest(&manifest)?;
    Ok(manifest)
}

/// `POST /rename`, `quire_rename`.
pub struct Rename;

impl Operation for Rename {
    type Input = RenameRequest;
    type Output = Renamed;
    const META: Meta = Meta::write(
        "rename",
        AREA,
        "Renames one file, rewriting every link to it (unless `relink` is false). Never overwrites.",
    )
    .rest(Rest::post("/rename"))
    .tool(Tool::named("quire_rename"))
    .describe(
        "Move or rename one file and rewrite every link to it (default \
`relink: true`), as one commit. Never overwrites an existing file. Cost grows with the number \
of pages linking to it.",
    );

    fn run(space: &Space, input: RenameRequest, caller: &Caller) -> Result<Renamed> {
        let opts = caller.write_options_by(input.actor, input.message, None);
        let relink = if input.relink {
            Relink::Yes
        } else {
            Relink::No
        };
        space
            .restructure()
            .rename(&input.from, &input.to, relink, &opts)
    }
}

/// `POST /refactor/plan` (REST sends the manifest as a YAML or JSON body),
/// `quire_refactor_plan`.
pub struct Plan;

impl Operation for Plan {
    type Input = RefactorPlanInput;
    type Output = PlanAnswer;
    const META: Meta = Meta::read(
        "refactor_plan",
        AREA,
        "Plans a manifest. Nothing is written; 200 even when the plan has errors.",
    )
    .rest(Rest::post("/refactor/plan").raw_body("manifest", "application/yaml"))
    .tool(Tool::named("quire_refactor_plan"))
    .describe(
        "Plan a restructuring from a manifest (moves, merges, edits, tag renames, \
relinks, split) without writing anything: which files move, every link rewritten, conflicts, \
integrity and the `digest` to apply it with. Says whether the user must confirm it \
(`approval`). Reads only the pages it rewrites.",
    );

    fn run(space: &Space, input: RefactorPlanInput, caller: &Caller) -> Result<PlanAnswer> {
        let workspace_edit = match input.format.as_deref() {
            None | Some("") | Some("plan") => false,
            Some("workspace-edit") => true,
            Some(other) => {
                return Err(Error::bad_request(format!(
                    "unknown format {other:?}; use workspace-edit or leave it out"
                )))
            }
        };
        let manifest = checked(input.manifest)?;
        let actor = caller.write_options(None, None).actor;
        let plan = space.restructure().plan_as(
            &manifest,
            input.diffs,
            actor.as_deref(),
            &client_of(caller),
        )?;
        if !workspace_edit {
            return Ok(PlanAnswer::Plan(Box::new(plan)));
        }
        if let Some(refusal) = plan.refusal() {
            return Err(Error::refused(ErrorCode::Unprocessable, refusal, &plan));
        }
        let root_uri = quire_api::workspace_edit::file_uri(&space.root_dir().to_string_lossy());
        Ok(PlanAnswer::WorkspaceEdit(quire_api::workspace_edit(
            &plan, &root_uri,
        )))
    }
}

/// `POST /refactor/apply`, `quire_refactor_apply`.
///
/// Over MCP the tool does not run this directly: when an agent's plan needs approval it first
/// asks the user (elicitation, on the MCP adapter's async side) and takes no `approved` of its
/// own (see `quire_api::mcp::RefactorApplyInput`); the MCP adapter keeps that path.
pub struct Apply;

impl Operation for Apply {
    type Input = ApplyRequest;
    type Output = Applied;
    const META: Meta = Meta::write(
        "refactor_apply",
        AREA,
        "Plans the manifest again and applies it as exactly one commit",
    )
    .rest(Rest::post("/refactor/apply"))
    .tool(Tool::named("quire_refactor_apply"))
    .describe(
        "Apply a planned manifest as exactly one revertible commit, keeping every \
link working. Pass the plan's `digest`: nothing is written when the workspace changed since. \
Plans over the approval limits ask the user to confirm (when the client can ask), else wait \
for a person's approval (web UI or POST /refactor/approve) and the answer says so; apply the \
same digest again once approved. `now` pins the clock of date expressions.",
    );

    fn run(space: &Space, input: ApplyRequest, caller: &Caller) -> Result<Applied> {
        let mut manifest = checked(input.manifest)?;
        if input.now.is_some() {
            manifest.now = input.now;
        }
        let req = quire_service::ApplyRequest {
            manifest,
            digest: input.digest,
            approved: input.approved,
            actor: applier(caller, input.actor),
            client: client_of(caller),
            message: input.message,
        };
        let (applied, plan) = space.restructure().apply(&req)?;
        Ok(Applied { applied, plan })
    }
}

/// `POST /refactor/script`, `quire_refactor_script`.
pub struct Script;

impl Operation for Script {
    type Input = ScriptRequest;
    type Output = ScriptResponse;
    const META: Meta = Meta::read(
        "refactor_script",
        AREA,
        "Runs a Starlark script that computes a manifest, and plans that manifest exactly as \
`/refactor/plan` would. Nothing is written.",
    )
    .rest(Rest::post("/refactor/script").query_fields(&["diffs"]))
    .tool(Tool::named("quire_refactor_script"))
    .describe(
        "Compute a manifest with a Starlark script and plan it, when the change \
depends on what the pages hold. The script may call query(dql), files(glob), read(path), \
frontmatter(path), links(path), slug(text), json.encode/decode and print, and returns the \
manifest from main() (or sets `manifest`). It runs in a separate read-only process (256 MB, \
30 s, no while, no recursion). Answers the manifest, what it printed and the plan; apply the \
manifest with quire_refactor_apply. Nothing is written.",
    );

    fn run(space: &Space, input: ScriptRequest, caller: &Caller) -> Result<ScriptResponse> {
        let actor = caller.write_options(None, None).actor;
        space.restructure().script(
            &input.script,
            input.diffs,
            actor.as_deref(),
            &client_of(caller),
        )
    }
}

/// `POST /refactor/revert`, `quire_refactor_revert`.
pub struct Revert;

impl Operation for Revert {
    type Input = RevertRequest;
    type Output = RevertAnswer;
    const META: Meta = Meta::write(
        "refactor_revert",
        AREA,
        "Reverts any commit as a new commit restoring the previous bytes of every file it changed",
    )
    .rest(Rest::post("/refactor/revert"))
    .tool(Tool::named("quire_refactor_revert"))
    .describe(
        "Undo a commit (a restructuring or any write) as a new commit; refused \
when a file it changed has changed since. `dry_run` answers the revert plan and its digest.",
    );

    fn run(space: &Space, input: RevertRequest, caller: &Caller) -> Result<RevertAnswer> {
        let Some(commit) = input.commit.filter(|c| !c.trim().is_empty()) else {
            return Err(Error::bad_request("`commit` is required"));
        };
        if input.dry_run {
            return space
                .restructure()
                .revert_plan(&commit)
                .map(RevertAnswer::Plan);
        }
        let actor = applier(caller, input.actor);
        let (applied, plan) = space.restructure().revert(
            &commit,
            input.digest.as_deref(),
            &actor,
            &client_of(caller),
        )?;
        Ok(RevertAnswer::Applied(Applied { applied, plan }))
    }
}

/// `POST /refactor/from-workspace-edit`.
pub struct FromEdit;

impl Operation for FromEdit {
    type Input = FromWorkspaceEdit;
    type Output = WorkspaceEditPlan;
    const META: Meta = Meta::read(
        "refactor_from_workspace_edit",
        AREA,
        "Plans the file renames of an editor's LSP WorkspaceEdit as a manifest of moves",
    )
    .rest(
        Rest::post("/refactor/from-workspace-edit")
            .body_field("edit")
            .query_fields(&["diffs"]),
    )
    .describe(
        "Plans the file renames of an editor's LSP WorkspaceEdit as a manifest of moves. \
Text edits, creates and deletes are ignored (the plan computes its own link edits) and listed \
in `ignored`. Nothing is written; 200 even when the plan has errors.",
    );

    fn run(space: &Space, input: FromWorkspaceEdit, caller: &Caller) -> Result<WorkspaceEditPlan> {
        let actor = caller.write_options(None, None).actor;
        space.restructure().plan_workspace_edit(
            &input.edit,
            input.diffs,
            actor.as_deref(),
            &client_of(caller),
        )
    }
}

/// `POST /rename-dir`.
pub struct RenameDir;

impl Operation for RenameDir {
    type Input = RenameDirRequest;
    type Output = RenamedDir;
    const META: Meta = Meta::write(
        "rename_dir",
        AREA,
        "Renames a folder and everything below it, rewriting links. Never overwrites.",
    )
    .rest(Rest::post("/rename-dir"));

    fn run(space: &Space, input: RenameDirRequest, caller: &Caller) -> Result<RenamedDir> {
        let opts = caller.write_options_by(input.actor, input.message, None);
        space
            .restructure()
            .rename_dir(&input.from, &input.to, &opts)
    }
}

/// `POST /refactor/approve` (admin): a person approves an agent's plan.
pub struct Approve;

impl Operation for Approve {
    type Input = ApproveRequest;
    type Output = Approved;
    const META: Meta = Meta::admin(
        "refactor_approve",
        AREA,
        "A person approves one apply of this digest within the next hour",
    )
    .rest(Rest::post("/refactor/approve"));

    fn run(space: &Space, input: ApproveRequest, _: &Caller) -> Result<Approved> {
        let (Some(manifest), Some(digest)) = (input.manifest, input.digest) else {
            return Err(Error::bad_request(
                "both `manifest` and `digest` are required",
            ));
        };
        let digest = space.restructure().approve(&checked(manifest)?, &digest)?;
        Ok(Approved {
            approved: digest,
            expires_in: "1h0m0s".into(),
        })
    }
}

/// `GET /refactor/pending`.
pub struct Pending;

impl Operation for Pending {
    type Input = NoInput;
    type Output = PendingList;
    const META: Meta = Meta::read(
        "refactor_pending",
        AREA,
        "Plans agents tried to apply that wait for a person's approval",
    )
    .rest(Rest::get("/refactor/pending"));

    fn run(space: &Space, _: NoInput, _: &Caller) -> Result<PendingList> {
        Ok(PendingList {
            pending: space.restructure().pending()?,
        })
    }
}
