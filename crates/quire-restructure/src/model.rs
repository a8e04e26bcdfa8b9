//! The plan's data: the wire types of `quire-api` (the spec's Plan and its records), plus the
//! file operations apply runs, which never go on the wire.

use quire_vault::PagePath;

pub use quire_api::restructure::{
    Approval, Conflict, ConflictCode, ContentEdit, FileDiff, Integrity, LinkChange, Orphan,
    PageEdit, PathChange, Plan, Rejected, SplitResult, StateChange, Stats, TextRange,
    UnresolvedLink,
};

/// A plan and the file operations that carry it out, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Planned {
    pub plan: Plan,
    /// What apply must do, in this order.
    pub ops: Vec<FileOp>,
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
