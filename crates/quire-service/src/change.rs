//! What a write asks of the pipeline and what it gets back: the change (its files, author,
//! message, how it is announced and committed), the caller's write options, and what the
//! pass did. Plain data, below everything that writes.

use quire_vault::PagePath;

/// The author of writes that name no actor.
pub const DEFAULT_ACTOR: &str = "api";

/// Who writes, what the write expects to find, and what it records.
#[derive(Debug, Clone, Default)]
pub struct WriteOptions {
    /// The commit author; `None` is [`DEFAULT_ACTOR`].
    pub actor: Option<String>,
    /// The commit message; `None` lets the operation describe itself (`Update notes/a.md`).
    pub message: Option<String>,
    /// Where the content came from: recorded as `derived-from` in a page's frontmatter.
    pub derived_from: Option<String>,
    /// What the file must hold before the write (the ETag the caller read).
    pub expect: Expect,
}

impl WriteOptions {
    pub fn by(actor: &str) -> WriteOptions {
        WriteOptions {
            actor: Some(actor.to_string()),
            ..WriteOptions::default()
        }
    }

    pub(crate) fn actor(&self) -> String {
        self.actor
            .clone()
            .filter(|a| !a.trim().is_empty())
            .unwrap_or_else(|| DEFAULT_ACTOR.to_string())
    }

    /// The caller's message, or `default` when it gave none.
    pub(crate) fn message_or(&self, default: impl FnOnce() -> String) -> String {
        match self.message.as_deref().map(str::trim) {
            Some(m) if !m.is_empty() => m.to_string(),
            _ => default(),
        }
    }
}

/// One file of a change: its new bytes, or `None` to delete it.
#[derive(Debug, Clone)]
pub struct FileOp {
    pub path: PagePath,
    pub content: Option<Vec<u8>>,
    /// What the file must look like before; a mismatch refuses the whole change.
    pub expect: Expect,
}

/// A precondition on a file's current state, checked under the write lock.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Expect {
    /// No check.
    #[default]
    Anything,
    /// The file must not exist (a move or rename destination).
    Absent,
    /// The file must hold exactly this content: the ETag the caller last read.
    Etag(String),
}

impl Expect {
    /// The precondition of an ETag the caller read (quoted or bare), or none.
    pub fn etag(value: Option<&str>) -> Expect {
        match value {
            Some(v) => Expect::Etag(v.trim().trim_matches('"').to_string()),
            None => Expect::Anything,
        }
    }
}

/// How the finished change is announced on the event stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Announce {
    /// One `write` or `delete` event per file.
    PerFile,
    /// One `bulk` event listing every path.
    Bulk,
    /// One `import` event: `imported` pages from `source`, listing every path written.
    Import { source: String, imported: usize },
}

/// When the change is committed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CommitMode {
    /// As the space's versioning says (possibly batched with other writes).
    #[default]
    AsConfigured,
    /// Exactly one commit for this change, made before `apply` returns (restructurings).
    Now,
}

/// A change as the pipeline receives it.
#[derive(Debug, Clone)]
pub struct Change {
    pub ops: Vec<FileOp>,
    pub actor: String,
    /// Commit message; empty lets the pipeline name a one-file change from what it finds
    /// (`Create`, `Update` or `Delete <path>`).
    pub message: String,
    pub announce: Announce,
    pub commit: CommitMode,
}

impl Change {
    /// One file's change by the caller of `opts`: announced as a write or delete of that
    /// file, committed as the space's versioning says, with the caller's message or
    /// `default_message`.
    pub(crate) fn one(
        op: FileOp,
        opts: &WriteOptions,
        default_message: impl FnOnce() -> String,
    ) -> Change {
        Change {
            ops: vec![op],
            actor: opts.actor(),
            message: opts.message_or(default_message),
            announce: Announce::PerFile,
            commit: CommitMode::AsConfigured,
        }
    }

    /// The same change with a commit of its own, made before `apply` returns.
    pub(crate) fn committed_now(self) -> Change {
        Change {
            commit: CommitMode::Now,
            ..self
        }
    }
}

/// What the pipeline did.
#[derive(Debug, Clone, Default)]
pub struct Applied {
    /// Every file of the change with its ETag afterwards (`None` when deleted) and whether it
    /// existed before.
    pub files: Vec<AppliedFile>,
    /// The commit, when versioning is git and the commit was synchronous.
    pub commit: Option<String>,
}

#[derive(Debug, Clone)]
pub struct AppliedFile {
    pub path: PagePath,
    pub etag: Option<String>,
    pub created: bool,
}
