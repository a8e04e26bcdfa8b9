//! The plan's data: every record the spec's Plan lists, plus the file operations apply runs.

use quire_vault::PagePath;
use serde::{Deserialize, Serialize};

/// Everything a manifest would change, and why it could not (spec "Plan").
///
/// Every list is sorted, so the same workspace and manifest give the same plan and digest.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
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
    /// What apply must do, in this order.
    #[serde(skip)]
    pub ops: Vec<FileOp>,
}

impl Plan {
    /// True when apply must refuse the plan.
    pub fn is_blocked(&self) -> bool {
        !self.errors.is_empty()
    }
}

/// One file operation of apply. Every op carries the ETag the plan read; apply re-checks
/// it under the write lock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileOp {
    /// Writes `content` to `path`; `expect` `None` means the file must not exist.
    Write {
        path: PagePath,
        content: String,
        expect: Option<String>,
    },
    /// Renames a file whose bytes stay unchanged.
    Move {
        from: PagePath,
        to: PagePath,
        expect: String,
    },
    Delete {
        path: PagePath,
        expect: String,
    },
}

/// A path that moves (also: merged page → its canonical page, comment file → new file).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct PathChange {
    pub from: PagePath,
    pub to: PagePath,
}

/// A page whose links are rewritten.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct PageEdit {
    /// Where the page is after the restructuring.
    pub path: PagePath,
    /// Its path before, when it also moves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<PagePath>,
    pub links: Vec<LinkChange>,
}

/// One rewritten link target; `old` and `new` are the target bytes only.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
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
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct ContentEdit {
    pub path: PagePath,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<PagePath>,
    pub changes: Vec<String>,
}

/// A personal-state file that changes.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct StateChange {
    pub file: PagePath,
    /// `pages: a.md -> b.md`, `lists.starred: a.md -> b.md`.
    pub changes: Vec<String>,
    /// Keys whose destination already held a value (the destination's value is kept).
    pub conflicts: Vec<String>,
}

/// A split page and the pages it becomes (not planned yet; always empty).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct SplitResult {
    pub from: PagePath,
    pub pages: Vec<PagePath>,
}

/// An error that concerns one page: dropping that page from the manifest (or unprotecting
/// it) lets the plan proceed.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rejected {
    pub path: String,
    pub error: String,
}

/// Why a destination cannot be used (DECISIONS §4).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
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
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
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
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Approval {
    pub required: bool,
    pub reason: String,
}

/// Link health around the plan.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Integrity {
    /// Links that already pointed nowhere, among the pages the plan read.
    pub unresolved: Vec<UnresolvedLink>,
    /// Pages that had inbound links before and have none after.
    pub orphaned: Vec<Orphan>,
    /// False when a page could not be read (missing or not UTF-8).
    pub complete: bool,
}

impl Default for Integrity {
    fn default() -> Self {
        Integrity {
            unresolved: Vec::new(),
            orphaned: Vec::new(),
            complete: true,
        }
    }
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct UnresolvedLink {
    pub source: PagePath,
    /// The target as written.
    pub target: String,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Orphan {
    pub path: PagePath,
}

/// Counts over the workspace and the plan.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
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
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct FileDiff {
    pub path: PagePath,
    pub diff: String,
}
