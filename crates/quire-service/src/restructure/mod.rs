//! Restructuring a space: planning manifests against the live link model, applying them as
//! exactly one commit, a person's approval of agents' large plans, renames of files and
//! folders, reverting any commit, and running scripts that compute manifests.
//!
//! The submodules are functions over the space's core and the area's own state
//! ([`Restructuring`], in `state`); [`Restructure`] is the one view that composes them, so no
//! submodule depends on this one.

mod apply;
mod approval;
mod editor;
mod fold;
mod planning;
mod rename;
mod revert;
mod script;
mod state;

use quire_api::{
    AppliedResult, PendingApproval, Renamed, RenamedDir, ScriptResponse, WorkspaceEditPlan,
    WorkspaceEditRequest,
};
use quire_restructure::{Manifest, ManifestFormat, Plan, Planned};
pub(crate) use state::Restructuring;

pub use apply::ApplyRequest;
pub use approval::is_agent;

use crate::change::WriteOptions;
use crate::core::SpaceCore;
use crate::error::{Error, Result};

/// Folder of the comment files (DECISIONS §2).
pub const COMMENTS_DIR: &str = ".quire/comments";
/// Folder of the personal-state files (DECISIONS §2).
pub const PERSONAL_DIR: &str = ".quire/personal";

/// Whether a rename rewrites links (default yes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relink {
    Yes,
    /// Move only; the move is recorded as a raw move for later repair.
    No,
}

/// Parses a manifest body (JSON or YAML); a bad request with the reason when it cannot be
/// used.
pub fn parse_manifest(body: &[u8], format: ManifestFormat) -> Result<Manifest> {
    quire_restructure::parse_manifest(body, format).map_err(|e| Error::bad_request(e.to_string()))
}

/// Checks a manifest that arrived as a typed value (inside a JSON body) as a parsed body is
/// checked: a bad request with the reason when it cannot be used.
pub fn validate_manifest(manifest: &Manifest) -> Result<()> {
    quire_restructure::validate_manifest(manifest).map_err(|e| Error::bad_request(e.to_string()))
}

/// Restructuring of one space: its core, and the state restructuring keeps.
#[derive(Clone, Copy)]
pub struct Restructure<'a> {
    pub(crate) core: &'a SpaceCore,
    pub(crate) area: &'a Restructuring,
}

impl Restructure<'_> {
    /// Plans a manifest for `actor` (pages other actors claim cannot be touched; `None` treats
    /// every claim as another's). Nothing is written.
    pub fn plan(&self, manifest: &Manifest, diffs: bool, actor: Option<&str>) -> Result<Plan> {
        self.core.activity.add(&self.core.activity.plans, 1);
        Ok(planning::planned(self.core, self.area, manifest, diffs, actor)?.plan)
    }

    /// [`Restructure::plan`] for a caller named by its client: an agent's plan (client
    /// `mcp…`) says whether it needs a person's approval before it can be applied.
    pub fn plan_as(
        &self,
        manifest: &Manifest,
        diffs: bool,
        actor: Option<&str>,
        client: &str,
    ) -> Result<Plan> {
        self.core.activity.add(&self.core.activity.plans, 1);
        let Planned { mut plan, ops } =
            planning::planned(self.core, self.area, manifest, diffs, actor)?;
        plan.approval = approval::approval_for(self.area, client, &plan, &ops);
        Ok(plan)
    }

    /// Plans the file renames of an editor's LSP `WorkspaceEdit` as a manifest of moves, like
    /// [`Restructure::plan_as`]; its other parts are listed as ignored. Nothing is written.
    /// A bad request when a rename's URI is not a `file://` URI under the root, or when the
    /// edit renames no files.
    pub fn plan_workspace_edit(
        &self,
        edit: &WorkspaceEditRequest,
        diffs: bool,
        actor: Option<&str>,
        client: &str,
    ) -> Result<WorkspaceEditPlan> {
        let root = &self.core.root;
        let is_dir = |path: &str| {
            quire_vault::PagePath::new(path)
                .is_ok_and(|p| matches!(root.kind(&p), Ok(Some(quire_store::EntryKind::Dir))))
        };
        let editor::Converted { manifest, ignored } =
            editor::manifest_of(edit, root.dir(), is_dir)?;
        let plan = self.plan_as(&manifest, diffs, actor, client)?;
        Ok(WorkspaceEditPlan {
            manifest,
            plan,
            ignored,
        })
    }

    /// Runs a restructuring script (in a child process, reading the space only through the
    /// calls it makes) and plans the manifest it returns as [`Restructure::plan_as`] does.
    /// Nothing is written. Refused: an empty script (bad request), no script runner in this
    /// build (not implemented), a script that fails, outlives its time or memory, or returns
    /// an invalid manifest (unprocessable).
    pub fn script(
        &self,
        source: &str,
        diffs: bool,
        actor: Option<&str>,
        client: &str,
    ) -> Result<ScriptResponse> {
        let ran = script::run(self.core, self.area, source)?;
        let plan = self.plan_as(&ran.manifest, diffs, actor, client)?;
        Ok(ScriptResponse {
            manifest: ran.manifest,
            output: ran.output,
            plan,
        })
    }

    /// Plans the manifest again and applies it as one commit, or says why not (with the
    /// fresh plan): errors (unprocessable), a stale digest or a file changed meanwhile
    /// (conflict), an agent's plan over the limits without approval (approval required).
    pub fn apply(&self, req: &ApplyRequest) -> Result<(AppliedResult, Plan)> {
        let applied = apply::apply_manifest(self.core, self.area, req)?;
        self.core.activity.add(&self.core.activity.applies, 1);
        Ok(applied)
    }

    /// A person approves exactly this digest of this manifest: one apply within the hour.
    pub fn approve(&self, manifest: &Manifest, digest: &str) -> Result<String> {
        apply::approve(self.core, self.area, manifest, digest)
    }

    /// The plans agents tried to apply that wait for a person's approval.
    pub fn pending(&self) -> Result<Vec<PendingApproval>> {
        approval::pending_approvals(self.core)
    }

    /// Moves one file, rewriting every link to it unless `relink` is off; never overwrites.
    pub fn rename(
        &self,
        from: &str,
        to: &str,
        relink: Relink,
        opts: &WriteOptions,
    ) -> Result<Renamed> {
        rename::rename(self.core, self.area, from, to, relink, opts)
    }

    /// Moves a folder and everything below it, rewriting links; never overwrites.
    pub fn rename_dir(&self, from: &str, to: &str, opts: &WriteOptions) -> Result<RenamedDir> {
        rename::rename_dir(self.core, self.area, from, to, opts)
    }

    /// The plan that reverts `commit` (any commit): what would be restored.
    pub fn revert_plan(&self, commit: &str) -> Result<Plan> {
        revert::plan(self.core, commit)
    }

    /// Reverts `commit` as a new commit by `actor` through `client`, recorded in its
    /// trailers; refused when any file it changed has changed since, or when `digest` (of the
    /// reviewed revert plan) no longer matches.
    pub fn revert(
        &self,
        commit: &str,
        digest: Option<&str>,
        actor: &str,
        client: &str,
    ) -> Result<(AppliedResult, Plan)> {
        let reverted = revert::revert(self.core, commit, digest, actor, client)?;
        self.core.activity.add(&self.core.activity.reverts, 1);
        Ok(reverted)
    }
}
