//! Restructuring on the wire: the manifest a caller sends, the plan it gets back (spec
//! "Manifest", "Plan"), and the records of apply, approval and revert. The planner builds
//! these types directly; paths are `PagePath`s, which travel as strings.

use std::collections::BTreeMap;

use quire_vault::PagePath;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A restructuring request (spec "Manifest"). Unknown keys are refused.
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq, Default, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moves: Vec<MoveEntry>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merges: Vec<MergeEntry>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub edits: Vec<EditEntry>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rename_tags: Vec<TagRename>,
    /// Move-shaped entries for moves made outside the service; they move nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relinks: Vec<MoveEntry>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<SplitEntry>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub delete_empty_dirs: bool,
    /// RFC 3339 timestamp pinning the clock expressions see.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub now: Option<String>,
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// A file, folder (`a/`), glob or regex selection and where it goes.
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MoveEntry {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_regex: Option<String>,
    pub to: String,
}

/// Folds `from` into `into`; `from` is deleted.
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MergeEntry {
    pub from: String,
    pub into: String,
}

/// Frontmatter and text changes on selected pages.
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq, Default, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditEntry {
    pub select: Select,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub set: BTreeMap<String, serde_json::Value>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub compute: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unset: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub add_tags: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remove_tags: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replace: Vec<Replace>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub move_to: Option<String>,
    /// `error` (the default) or `suffix("-%d")`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_conflict: Option<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub force: bool,
}

/// Which pages an edit applies to; every criterion narrows the selection.
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq, Default, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Select {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub glob: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
}

/// One text replacement of an edit.
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Replace {
    pub find: String,
    pub with: String,
    #[serde(default, skip_serializing_if = "is_false")]
    pub regex: bool,
}

/// Renames a tag in frontmatter lists and inline `#tags`.
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TagRename {
    pub from: String,
    pub to: String,
}

/// Breaks a page into one page per heading.
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SplitEntry {
    pub from: String,
    #[serde(default = "default_split_level")]
    pub level: u8,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub into: Option<String>,
    #[serde(default)]
    pub confirm: bool,
}

fn default_split_level() -> u8 {
    2
}

/// Everything a manifest would change, and why it could not (spec "Plan").
///
/// Every list is sorted, so the same workspace and manifest give the same plan and digest.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default, ToSchema, JsonSchema)]
pub struct Plan {
    pub digest: String,
    pub moves: Vec<PathChange>,
    pub merges: Vec<PathChange>,
    pub edits: Vec<PageEdit>,
    pub content_edits: Vec<ContentEdit>,
    pub comments: Vec<PathChange>,
    pub state: Vec<StateChange>,
    pub removed_dirs: Vec<String>,
    pub splits: Vec<SplitResult>,
    pub errors: Vec<String>,
    pub rejected: Vec<Rejected>,
    pub conflicts: Vec<Conflict>,
    pub plan_only: Vec<String>,
    pub warnings: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<Approval>,
    pub integrity: Integrity,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub now: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    pub stats: Stats,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diffs: Option<Vec<FileDiff>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverts: Option<String>,
}

impl Plan {
    /// True when apply must refuse the plan.
    pub fn is_blocked(&self) -> bool {
        !self.errors.is_empty()
    }

    /// Link targets the plan rewrites, over every page.
    pub fn rewritten_links(&self) -> usize {
        self.edits.iter().map(|e| e.links.len()).sum()
    }

    /// Why apply must refuse this plan, in words: its errors, else why it is plan-only.
    pub fn refusal(&self) -> Option<String> {
        if !self.errors.is_empty() {
            return Some(format!("the plan has errors: {}", self.errors.join("; ")));
        }
        if !self.plan_only.is_empty() {
            return Some(format!(
                "the plan cannot be applied yet: {}",
                self.plan_only.join("; ")
            ));
        }
        None
    }
}

/// A path that moves (also: merged page → its canonical page, comment file → new file).
#[derive(
    Serialize, Deserialize, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, ToSchema, JsonSchema,
)]
pub struct PathChange {
    #[schema(value_type = String)]
    #[schemars(with = "String")]
    pub from: PagePath,
    #[schema(value_type = String)]
    #[schemars(with = "String")]
    pub to: PagePath,
}

/// A page whose links are rewritten.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, ToSchema, JsonSchema)]
pub struct PageEdit {
    /// Where the page is after the restructuring.
    #[schema(value_type = String)]
    #[schemars(with = "String")]
    pub path: PagePath,
    /// Its path before, when it also moves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    #[schemars(with = "Option<String>")]
    pub from: Option<PagePath>,
    pub links: Vec<LinkChange>,
}

/// One rewritten link target; `old` and `new` are the target bytes only.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, ToSchema, JsonSchema)]
pub struct LinkChange {
    pub line: u32,
    pub old: String,
    pub new: String,
    /// The whole occurrence before and after, for the human summary.
    #[serde(skip)]
    pub occurrence: Option<(String, String)>,
    /// Where the target stood in the page before, in LSP terms (0-based line, UTF-16
    /// column), for workspace edits.
    #[serde(skip)]
    pub range: Option<TextRange>,
}

/// A range of text in LSP coordinates: 0-based lines, UTF-16 code unit columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextRange {
    pub start: (u32, u32),
    pub end: (u32, u32),
}

/// A page changed by `edits` or `rename_tags` (not planned yet; always empty).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, ToSchema, JsonSchema)]
pub struct ContentEdit {
    #[schema(value_type = String)]
    #[schemars(with = "String")]
    pub path: PagePath,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    #[schemars(with = "Option<String>")]
    pub from: Option<PagePath>,
    pub changes: Vec<String>,
}

/// A personal-state file that changes.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, ToSchema, JsonSchema)]
pub struct StateChange {
    #[schema(value_type = String)]
    #[schemars(with = "String")]
    pub file: PagePath,
    /// `pages: a.md -> b.md`, `lists.starred: a.md -> b.md`.
    pub changes: Vec<String>,
    /// Keys whose destination already held a value (the destination's value is kept).
    pub conflicts: Vec<String>,
}

/// A split page and the pages it becomes (not planned yet; always empty).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, ToSchema, JsonSchema)]
pub struct SplitResult {
    #[schema(value_type = String)]
    #[schemars(with = "String")]
    pub from: PagePath,
    #[schema(value_type = Vec<String>)]
    #[schemars(with = "Vec<String>")]
    pub pages: Vec<PagePath>,
}

/// An error that concerns one page: dropping that page from the manifest (or unprotecting
/// it) lets the plan proceed.
#[derive(
    Serialize, Deserialize, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, ToSchema, JsonSchema,
)]
pub struct Rejected {
    pub path: String,
    pub error: String,
}

/// Why a destination cannot be used (DECISIONS §4).
#[derive(
    Serialize,
    Deserialize,
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    ToSchema,
    JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ConflictCode {
    Exists,
    ManyToOne,
    CaseOrNormalization,
    ForbiddenChars,
    TooLong,
    TrailingDotOrSpace,
    EmptyName,
    DirCycle,
    ParentIsFile,
    IsFolder,
}

impl ConflictCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ConflictCode::Exists => "exists",
            ConflictCode::ManyToOne => "many_to_one",
            ConflictCode::CaseOrNormalization => "case_or_normalization",
            ConflictCode::ForbiddenChars => "forbidden_chars",
            ConflictCode::TooLong => "too_long",
            ConflictCode::TrailingDotOrSpace => "trailing_dot_or_space",
            ConflictCode::EmptyName => "empty_name",
            ConflictCode::DirCycle => "dir_cycle",
            ConflictCode::ParentIsFile => "parent_is_file",
            ConflictCode::IsFolder => "is_folder",
        }
    }
}

/// An unusable destination.
#[derive(
    Serialize, Deserialize, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, ToSchema, JsonSchema,
)]
pub struct Conflict {
    /// The destination as the manifest (or its expansion) names it.
    pub path: String,
    pub detail: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// The other path it collides with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub with: Option<String>,
    pub code: ConflictCode,
}

/// Whether an agent's plan needs a person's approval; filled in by the service.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, ToSchema, JsonSchema)]
pub struct Approval {
    pub required: bool,
    pub reason: String,
}

/// Link health around the plan.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, ToSchema, JsonSchema)]
pub struct Integrity {
    /// Links that already pointed nowhere, among the pages the plan read.
    pub unresolved: Vec<UnresolvedLink>,
    /// Pages that had inbound links before and have none after.
    pub orphaned: Vec<Orphan>,
    /// False when a page could not be read (missing or not UTF-8).
    pub complete: bool,
    /// Files no path addresses because their names differ from another's only by Unicode
    /// normalization: one sentence each, sorted. They are kept on disk and never touched.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub normalization: Vec<String>,
}

impl Default for Integrity {
    fn default() -> Self {
        Integrity {
            unresolved: Vec::new(),
            orphaned: Vec::new(),
            complete: true,
            normalization: Vec::new(),
        }
    }
}

#[derive(
    Serialize, Deserialize, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, ToSchema, JsonSchema,
)]
pub struct UnresolvedLink {
    #[schema(value_type = String)]
    #[schemars(with = "String")]
    pub source: PagePath,
    /// The target as written.
    pub target: String,
}

#[derive(
    Serialize, Deserialize, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, ToSchema, JsonSchema,
)]
pub struct Orphan {
    #[schema(value_type = String)]
    #[schemars(with = "String")]
    pub path: PagePath,
}

/// Counts over the workspace and the plan.
#[derive(
    Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default, ToSchema, JsonSchema,
)]
pub struct Stats {
    /// Pages and canvases with a summary in the vault.
    pub pages: usize,
    /// Links in those pages.
    pub links: usize,
    /// Link targets the plan rewrites.
    pub rewritten: usize,
    /// Entries of `integrity.unresolved`.
    pub unresolved: usize,
}

/// The unified diff of one written file.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, ToSchema, JsonSchema)]
pub struct FileDiff {
    #[schema(value_type = String)]
    #[schemars(with = "String")]
    pub path: PagePath,
    pub diff: String,
}

// ---- requests and results around plans ---------------------------------------------------

/// Body of `POST /refactor/apply`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApplyRequest {
    /// The manifest as planned.
    pub manifest: Manifest,
    /// Digest of the reviewed plan; when the workspace no longer produces it, nothing is
    /// written. Strongly recommended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// Agent clients: the user confirmed this plan.
    #[serde(default)]
    pub approved: bool,
    /// The clock (RFC 3339) expressions see, when the manifest does not pin it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub now: Option<String>,
    /// Who applies when no `X-Actor` header is sent (the header wins).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
    /// Summary line of the commit (the `Quire-*` trailers are always added).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// Counts of what an apply wrote (spec "Applied result").
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct AppliedResult {
    /// Pages and other files of the knowledge base written.
    pub written: usize,
    pub deleted: usize,
    /// Comment and personal-state files updated.
    pub side_files: usize,
    pub removed_dirs: usize,
    /// The commit (git versioning): input to revert.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}

/// What an apply or a revert did, with the plan it carried out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Applied {
    pub applied: AppliedResult,
    pub plan: Plan,
}

/// Body of `POST /refactor/approve`; both fields are required (400 otherwise).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApproveRequest {
    pub manifest: Option<Manifest>,
    pub digest: Option<String>,
}

/// A person's approval: one apply of this digest within `expires_in`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Approved {
    pub approved: String,
    /// Go duration, `1h0m0s`.
    pub expires_in: String,
}

/// A plan an agent tried to apply that needs a person's approval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct PendingApproval {
    pub digest: String,
    /// The manifest the agent sent.
    pub manifest: Manifest,
    pub actor: String,
    pub client: String,
    /// Why approval is needed.
    pub reason: String,
    /// RFC 3339.
    pub at: String,
}

/// `GET /refactor/pending`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct PendingList {
    pub pending: Vec<PendingApproval>,
}

/// Body of `POST /refactor/revert`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RevertRequest {
    /// Commit id, full or abbreviated.
    pub commit: Option<String>,
    /// Return the revert plan without applying it.
    #[serde(default)]
    pub dry_run: bool,
    /// Digest of the revert plan reviewed with `dry_run`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// Commit author when no `X-Actor` header is sent (the header wins).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
}

/// Body of `POST /rename`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RenameRequest {
    pub from: String,
    pub to: String,
    /// Rewrite links so they keep reaching the page (default true).
    #[serde(default = "yes")]
    pub relink: bool,
    /// Commit author when no `X-Actor` header is sent (the header wins).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
    /// Commit message; default `Rename <from> to <to>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

fn yes() -> bool {
    true
}

/// A renamed file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Renamed {
    pub from: String,
    pub to: String,
    pub etag: String,
    /// Links rewritten so they keep their target.
    pub updated_links: usize,
}

/// Body of `POST /rename-dir`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RenameDirRequest {
    pub from: String,
    pub to: String,
    /// Commit author when no `X-Actor` header is sent (the header wins).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
    /// Commit message; default `Rename folder <from> to <to>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// A renamed folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct RenamedDir {
    pub from: String,
    pub to: String,
    /// Files moved.
    pub renamed: usize,
}

// ---- scripted manifests ------------------------------------------------------------------

/// Body of `POST /refactor/script`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScriptRequest {
    /// Starlark source. It returns the manifest from `main()` or sets a global `manifest`;
    /// it may call `query(dql)`, `files(glob)`, `read(path)`, `frontmatter(path)`,
    /// `links(path)`, `slug(text)`, `json.encode`, `json.decode` and `print`. At most 1 MB.
    #[serde(default)]
    pub script: String,
    /// Adds a unified diff of every written page to the plan (as `diffs=true` does).
    #[serde(default)]
    pub diffs: bool,
}

/// What a script produced: its manifest, what it printed, and the plan of that manifest
/// (exactly as `POST /refactor/plan` returns it). Nothing is written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ScriptResponse {
    /// The manifest the script returned.
    pub manifest: Manifest,
    /// Everything the script printed, one line per `print` call.
    pub output: String,
    pub plan: Plan,
}

/// What `POST /refactor/plan` and `quire_refactor_plan` answer: the plan, or with
/// `format: workspace-edit` the plan as an LSP WorkspaceEdit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(extend("type" = "object"))]
pub enum PlanAnswer {
    Plan(Box<Plan>),
    WorkspaceEdit(crate::WorkspaceEdit),
}

/// What `POST /refactor/revert` and `quire_refactor_revert` answer: what was reverted, or
/// with `dry_run` the revert plan alone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(extend("type" = "object"))]
pub enum RevertAnswer {
    Applied(Applied),
    Plan(Plan),
}

/// `POST /refactor/from-workspace-edit`: the editor's WorkspaceEdit (the body) and whether
/// to add diffs (a query parameter on REST).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FromWorkspaceEdit {
    pub edit: crate::WorkspaceEditRequest,
    /// Adds a unified diff of every written page.
    #[serde(default)]
    pub diffs: bool,
}
