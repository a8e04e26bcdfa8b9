//! Pure restructuring planner of quire: manifest → plan (moves, merges, relinks, link
//! rewrites, comment and personal-state migrations), digest, conflicts and integrity.
//!
//! No file system, clock or environment: everything comes in through a [`Workspace`]
//! (the vault's summaries and a [`Source`] of current file texts), and the result is plain
//! data — a [`Plan`] whose `ops` say what apply must write. The invariant this crate owns:
//! every link that resolved before the plan resolves to the image of its target after it,
//! and a rewritten page differs from before only in the bytes of rewritten link targets.

mod check;
mod content;
mod manifest;
mod model;
mod ops;
mod planner;
mod relink;
mod render;
mod scope;
mod select;
mod sidecar;
mod split;

use std::collections::BTreeMap;

use chrono::{DateTime, FixedOffset};

use quire_vault::{DiskNames, PagePath, Vault};

pub use content::FIELD_MANAGERS;
pub use manifest::{
    parse_manifest, validate_manifest, EditEntry, Manifest, ManifestError, ManifestFormat,
    MergeEntry, MoveEntry, Replace, Select, SplitEntry, TagRename, MAX_MANIFEST_BYTES,
};
pub use model::{
    Approval, Conflict, ConflictCode, ContentEdit, FileDiff, FileOp, Integrity, LinkChange, Orphan,
    PageEdit, PathChange, Plan, Planned, Rejected, SplitResult, StateChange, Stats, TextRange,
    UnresolvedLink,
};
pub use planner::{digest, normalization_notes, plan, MAX_PATTERN_TESTS};
pub use render::{render_text, render_text_limited};
pub use select::glob_regex;

/// Current file contents, implemented by the service over the disk (and by tests over a map).
pub trait Source {
    /// Current text and ETag (git blob id) of any file, including `.quire/comments/…` and
    /// `.quire/personal/…`; `None` when missing or not UTF-8.
    fn read(&self, path: &PagePath) -> Option<SourceFile>;

    /// The ETag of any file, also binary ones (assets move with their ETag checked).
    /// The default reads the file as text, so it knows no ETag for a non-UTF-8 file;
    /// sources that can hash bytes should override it.
    fn etag(&self, path: &PagePath) -> Option<String> {
        self.read(path).map(|file| file.etag)
    }

    /// When a page was first and last committed (else its file time), for the `date` and
    /// `modified` variables of manifest expressions. Asked only when an expression reads
    /// them; the default knows neither.
    fn times(&self, _path: &PagePath) -> PageTimes {
        PageTimes::default()
    }
}

/// When a page came to be and last changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PageTimes {
    pub created: Option<DateTime<FixedOffset>>,
    pub modified: Option<DateTime<FixedOffset>>,
}

/// A file's text and ETag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    pub text: String,
    pub etag: String,
}

/// Everything the planner may look at.
pub struct Workspace<'a> {
    /// Every file of the root except `.git/` and `.quire/`, with page summaries.
    pub vault: &'a Vault,
    pub source: &'a dyn Source,
    /// The `.quire/personal/*.json` files that exist.
    pub personal_files: Vec<PagePath>,
    /// `[refactor] protect` globs.
    pub protect: Vec<String>,
    /// `[refactor] scope` folder.
    pub scope: Option<String>,
    /// Paths claimed by an actor other than the caller → that actor.
    pub claimed: BTreeMap<PagePath, String>,
    /// Git HEAD.
    pub base: Option<String>,
    /// Who asks for the plan: edits of frontmatter keys another actor owns
    /// (`quire-fields`) are refused for anyone else unless the edit says `force`.
    pub actor: Option<String>,
    /// Files whose names on disk are not NFC, and files no path addresses: a destination that
    /// would differ from one of them only by normalization is refused, and every plan notes
    /// the shadowed files in `integrity.normalization`.
    pub names: DiskNames,
}

/// What the caller wants besides the plan itself.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlanOptions {
    /// Adds a unified diff of every written page.
    pub diffs: bool,
    /// The clock expressions see when the manifest pins no `now` (the planner never reads the
    /// system clock): a manifest whose expressions read the clock with neither is an error of
    /// the plan. The plan reports the time it used.
    pub now: Option<DateTime<FixedOffset>>,
}
