//! The history of the root: recording changes and answering versions, diff, blame and the
//! change feed, under one of three strategies (git, copy-on-write snapshots, none).

mod batch;
mod built;
mod cow;
mod git;
mod pack_file;
mod packs;
mod repo;
mod trailer;
mod unfiltered;

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::StoreError;
use crate::journal::Interrupted;
use crate::lock::WriterLock;
use crate::root::{DiskName, Root};
use crate::seen::SeenFiles;
pub(crate) use repo::signature;
pub use repo::{CommitMetrics, COMMIT_BUCKETS};

pub use batch::Backlog;
/// The history's answers are the wire types themselves: no twin to copy field by field.
pub use quire_api::{BlameLine, Change, ChangeAction, ChangesPage, VersionEntry};

/// How changes are versioned (`[versioning] strategy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    /// Every change is a git commit in the root's repository.
    #[default]
    Git,
    /// Copy-on-write snapshots under `.quire/versions/`, no git.
    Cow,
    /// No history at all.
    None,
}

impl Strategy {
    /// The configuration spelling: `git`, `cow` or `none`.
    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::Git => "git",
            Strategy::Cow => "cow",
            Strategy::None => "none",
        }
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A strategy name that is not `git`, `cow` or `none`.
#[derive(Debug, thiserror::Error)]
#[error("unknown versioning strategy {0:?} (expected git, cow or none)")]
pub struct UnknownStrategy(pub String);

impl FromStr for Strategy {
    type Err = UnknownStrategy;

    fn from_str(s: &str) -> Result<Strategy, UnknownStrategy> {
        match s {
            "git" => Ok(Strategy::Git),
            "cow" => Ok(Strategy::Cow),
            "none" => Ok(Strategy::None),
            other => Err(UnknownStrategy(other.to_owned())),
        }
    }
}

/// Settings of the `[versioning]` section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryOptions {
    pub strategy: Strategy,
    /// Git only: `record` queues and a background thread commits in batches.
    pub async_commit: bool,
    /// A batch is committed this long after its first queued change.
    pub batch_window: Duration,
    /// ... or as soon as this many changes are queued.
    pub batch_max_size: usize,
    /// Async only, backpressure: `record` waits while a recorded write older than this is not
    /// committed yet...
    pub max_commit_lag: Duration,
    /// ... or while more than this many files wait for their commit.
    pub max_pending: usize,
    /// Cow only: snapshots kept per file; 0 keeps all.
    pub max_versions: usize,
}

impl Default for HistoryOptions {
    /// The spec's defaults: git, async commits in 200 ms / 50-change batches, 100 cow versions;
    /// and ours: commits at most 2 s or 2,000 files behind the writes.
    fn default() -> HistoryOptions {
        HistoryOptions {
            strategy: Strategy::Git,
            async_commit: true,
            batch_window: Duration::from_millis(200),
            batch_max_size: 50,
            max_commit_lag: Duration::from_millis(2_000),
            max_pending: 2_000,
            max_versions: 100,
        }
    }
}

/// One path the caller has just written or removed through [`Root`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    pub path: quire_vault::PagePath,
    pub action: ChangeAction,
    /// The file's name on disk ([`Root::disk_name`] before the change; a removed file can no
    /// longer be asked). Git records this name; cow keeps its snapshots under `path`.
    pub disk: DiskName,
    /// The bytes written, when the caller has them: git commits exactly these, even when the
    /// file on disk changed again before the commit (another program saving it within a batch
    /// window), so the version this change made is the one its actor is named for. `None`:
    /// the file as it is on disk when committed.
    pub content: Option<Arc<[u8]>>,
}

impl FileChange {
    /// A write (`exists`) or a removal of the file `path`, named `disk` on disk.
    pub fn of(path: quire_vault::PagePath, disk: DiskName, exists: bool) -> FileChange {
        let action = if exists {
            ChangeAction::Write
        } else {
            ChangeAction::Delete
        };
        FileChange {
            path,
            action,
            disk,
            content: None,
        }
    }

    /// A change of a file whose name on disk is its path.
    pub fn new(path: quire_vault::PagePath, action: ChangeAction) -> FileChange {
        let disk = DiskName::from(&path);
        FileChange {
            path,
            action,
            disk,
            content: None,
        }
    }

    /// This change with the bytes written (see [`FileChange::content`]); ignored for a
    /// deletion.
    pub fn with_content(mut self, bytes: impl Into<Arc<[u8]>>) -> FileChange {
        if self.action == ChangeAction::Write {
            self.content = Some(bytes.into());
        }
        self
    }
}

/// One path as git commits it: its name on disk, the action, and the bytes to commit when the
/// caller gave them.
#[derive(Debug, Clone)]
pub(crate) struct PathChange {
    pub(crate) path: String,
    pub(crate) action: ChangeAction,
    pub(crate) content: Option<Arc<[u8]>>,
}

impl PathChange {
    #[cfg(test)]
    pub(crate) fn write(path: &str) -> PathChange {
        PathChange {
            path: path.to_owned(),
            action: ChangeAction::Write,
            content: None,
        }
    }
}

/// The outcome of [`History::record`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recorded {
    /// Committed; the commit id. When the changes left the tree as it was, no empty commit is
    /// made and this is the current HEAD.
    Committed(String),
    /// Queued for the next batch commit.
    Queued,
    /// Copy-on-write snapshots taken.
    Snapshot,
    /// Versioning is off.
    Unversioned,
}

/// The files one commit changed, as revert needs them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitFiles {
    pub id: String,
    /// First parent; `None` for the first commit.
    pub parent: Option<String>,
    pub message: String,
    pub files: Vec<CommitFile>,
}

/// One file of a commit: its bytes before (absent when the commit created it) and its blob id
/// after (absent when the commit deleted it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitFile {
    pub path: String,
    pub before: Option<Vec<u8>>,
    pub after: Option<String>,
}

/// The history of one root. `Send + Sync`: every strategy serialises its own writes.
pub struct History {
    backend: Backend,
    /// Maps the paths of history queries to the names git holds.
    root: Root,
    /// Opened with [`History::open_read_only`]: records are refused.
    read_only: bool,
    /// A change a crash interrupted, found (and left alone) by a read-only open.
    interrupted: Option<Interrupted>,
}

enum Backend {
    Git(git::GitHistory),
    Cow(cow::CowHistory),
    None,
}

/// A history being opened for writing: recovered and opened, its work tree not scanned yet
/// (see [`History::begin_open`]).
pub struct OpeningHistory {
    backend: Opening,
    root: Root,
    opts: HistoryOptions,
}

enum Opening {
    Git(git::OpeningGit),
    Cow(cow::CowHistory),
    None,
}

impl OpeningHistory {
    /// Scans the work tree and commits whatever differs from HEAD (git), so the work tree is
    /// clean afterwards. A file `seen` read since [`History::begin_open`] and untouched since
    /// is not read again.
    pub fn finish(self, seen: &SeenFiles) -> Result<History, StoreError> {
        let backend = match self.backend {
            Opening::Git(git) => Backend::Git(git.finish(&self.opts, seen)?),
            Opening::Cow(cow) => Backend::Cow(cow),
            Opening::None => Backend::None,
        };
        Ok(History {
            backend,
            root: self.root,
            read_only: false,
            interrupted: None,
        })
    }
}

impl History {
    /// Opens the history of `root` for writing, under the root's writer lock, and recovers
    /// from a crash. Git: stale git lock files are removed first (the lock's holder knows no
    /// other quire process is committing), then a change a crash interrupted is finished or
    /// undone, a repository is initialised if there is none (committing the existing files),
    /// and whatever changed on disk since the last commit is committed, so the work tree is
    /// clean afterwards.
    pub fn open(
        root: &Root,
        lock: &WriterLock,
        opts: HistoryOptions,
    ) -> Result<History, StoreError> {
        History::begin_open(root, lock, opts)?.finish(&SeenFiles::new())
    }

    /// [`History::open`] in two steps, for a caller that reads every file of the root anyway:
    /// this one recovers an interrupted change and opens (or creates) the repository;
    /// [`OpeningHistory::finish`] scans the work tree and commits what changed outside quire,
    /// taking the blob ids of files the caller read in between from its [`SeenFiles`] instead
    /// of reading those files again.
    pub fn begin_open(
        root: &Root,
        lock: &WriterLock,
        opts: HistoryOptions,
    ) -> Result<OpeningHistory, StoreError> {
        if root.is_read_only() {
            return Err(StoreError::ReadOnly {
                path: root.dir().display().to_string(),
            });
        }
        if lock.dir() != root.dir() {
            return Err(StoreError::BadRoot {
                dir: root.dir().to_path_buf(),
                reason: format!(
                    "the writer lock given is the lock of another root ({})",
                    lock.dir().display()
                ),
            });
        }
        if opts.strategy == Strategy::Git {
            git::remove_stale_locks(root.dir())?;
        }
        // A change a crash interrupted is finished or undone before anything looks at the
        // work tree (the recovery commit must not record half a change).
        crate::journal::recover(root, |entries| match opts.strategy {
            Strategy::Git => git::head_holds(root.dir(), entries),
            Strategy::Cow | Strategy::None => false,
        })?;
        let backend = match opts.strategy {
            Strategy::Git => Opening::Git(git::GitHistory::begin_open(root, lock)?),
            Strategy::Cow => Opening::Cow(cow::CowHistory::open(root, &opts)?),
            Strategy::None => Opening::None,
        };
        Ok(OpeningHistory {
            backend,
            root: root.clone(),
            opts,
        })
    }

    /// Opens the history of `root` for reading only, whoever holds the writer lock: history
    /// queries work, records are refused with [`StoreError::ReadOnly`]. Changes nothing on
    /// disk: no recovery, no commit, no scan of the work tree, no write to `.git/`. A journal
    /// left by an interrupted change is reported by [`History::interrupted`], not acted on.
    /// Git: a root without a repository yet has no history to read and answers as with
    /// strategy `none`.
    pub fn open_read_only(root: &Root, opts: HistoryOptions) -> Result<History, StoreError> {
        let interrupted = crate::journal::interrupted(root)?;
        let backend = match opts.strategy {
            Strategy::Git => match git::GitHistory::open_read_only(root)? {
                Some(git) => Backend::Git(git),
                None => Backend::None,
            },
            Strategy::Cow => Backend::Cow(cow::CowHistory::open_read_only(root, &opts)?),
            Strategy::None => Backend::None,
        };
        Ok(History {
            backend,
            root: root.clone(),
            read_only: true,
            interrupted,
        })
    }

    /// Whether the history was opened with [`History::open_read_only`].
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// The change a crash interrupted that a read-only open found: it awaits recovery by the
    /// next writable open. Always `None` after a writable open, which has recovered it.
    pub fn interrupted(&self) -> Option<&Interrupted> {
        self.interrupted.as_ref()
    }

    /// Records changes the caller has already made on disk. Git: one commit authored by
    /// `actor`, or queued when committing asynchronously; cow: one snapshot per written file.
    ///
    /// Queued changes are committed in batches, one commit per batch whatever the actors (a
    /// batch of several actors names each file's actor in a `Quire-Actor` trailer). When the
    /// commits lag behind ([`HistoryOptions::max_commit_lag`], [`HistoryOptions::max_pending`])
    /// this call queues the changes and then waits until the commit thread has caught up; an
    /// error then means a commit failed meanwhile (the changes stay queued).
    pub fn record(
        &self,
        changes: &[FileChange],
        actor: &str,
        message: &str,
    ) -> Result<Recorded, StoreError> {
        self.record_when(changes, actor, message, When::AsConfigured)
    }

    /// Records changes as one commit right away, even when commits are otherwise batched, and
    /// returns its id (git). Restructurings use this: one apply is exactly one commit.
    pub fn record_now(
        &self,
        changes: &[FileChange],
        actor: &str,
        message: &str,
    ) -> Result<Recorded, StoreError> {
        self.record_when(changes, actor, message, When::Now)
    }

    fn record_when(
        &self,
        changes: &[FileChange],
        actor: &str,
        message: &str,
        when: When,
    ) -> Result<Recorded, StoreError> {
        if self.read_only {
            return Err(StoreError::ReadOnly {
                path: changes
                    .first()
                    .map_or_else(String::new, |c| c.path.to_string()),
            });
        }
        match (&self.backend, when) {
            (Backend::Git(git), When::AsConfigured) => git.record(owned(changes), actor, message),
            (Backend::Git(git), When::Now) => git.record_now(owned(changes), actor, message),
            (Backend::Cow(cow), _) => cow.record(changes, actor, message),
            (Backend::None, _) => Ok(Recorded::Unversioned),
        }
    }

    /// Moves the root's history from commit `from` to commit `to`, a commit of this repository
    /// made elsewhere (a backup's replay of this root's commits onto its remote: see
    /// [`crate::backup`]), instead of committing: the caller has just written `changes` on disk
    /// so that the work tree holds what `to` holds. Queued writes are committed first; if
    /// HEAD is then no longer `from` ([`StoreError::HeadMoved`]) or a changed file differs from
    /// `to`'s, nothing moves and the caller puts its files back. Git only.
    pub fn adopt(&self, changes: &[FileChange], from: &str, to: &str) -> Result<(), StoreError> {
        if self.read_only {
            return Err(StoreError::ReadOnly {
                path: changes
                    .first()
                    .map_or_else(String::new, |c| c.path.to_string()),
            });
        }
        match &self.backend {
            Backend::Git(git) => {
                let paths: Vec<&str> = changes.iter().map(|c| c.disk.as_str()).collect();
                git.adopt(&paths, from, to)
            }
            Backend::Cow(_) | Backend::None => Err(self.unavailable("backups")),
        }
    }

    /// Whether [`History::commit_others_before`] and [`History::record`] of a write of `paths`
    /// by `actor` would return at once, committing nothing and waiting for no commit: true
    /// with async batching while the commits keep up and no other actor's queued write holds
    /// these paths, and without a history. For a caller that must not block (an async
    /// executor's thread) deciding whether to run a small write where it is; the answer may
    /// be stale a moment later, which costs that write a wait, nothing else.
    pub fn records_at_once(&self, paths: &[&DiskName], actor: &str) -> bool {
        if self.read_only {
            return false;
        }
        match &self.backend {
            Backend::Git(git) => {
                let paths: Vec<&str> = paths.iter().map(|p| p.as_str()).collect();
                git.records_at_once(&paths, actor)
            }
            Backend::Cow(_) => false,
            Backend::None => true,
        }
    }

    /// Call before overwriting the files named `paths` on disk as `actor`: with async batching,
    /// a queued write of one of them by another actor is committed first, so it is not folded
    /// into this actor's commit and lost from history. A no-op otherwise.
    pub fn commit_others_before(&self, paths: &[&DiskName], actor: &str) -> Result<(), StoreError> {
        match &self.backend {
            Backend::Git(git) => {
                let paths: Vec<&str> = paths.iter().map(|p| p.as_str()).collect();
                git.commit_others_before(&paths, actor)
            }
            Backend::Cow(_) | Backend::None => Ok(()),
        }
    }

    /// The files a commit changed (git only): input to revert.
    pub fn commit_files(&self, id: &str) -> Result<CommitFiles, StoreError> {
        match &self.backend {
            Backend::Git(git) => git.commit_files(id),
            _ => Err(self.unavailable("revert")),
        }
    }

    /// Waits until every queued change is committed (a no-op unless committing asynchronously).
    pub fn flush(&self) -> Result<(), StoreError> {
        match &self.backend {
            Backend::Git(git) => git.flush(),
            Backend::Cow(_) | Backend::None => Ok(()),
        }
    }

    /// Git commits made by this history and the time they took (zero otherwise).
    pub fn commit_metrics(&self) -> CommitMetrics {
        match &self.backend {
            Backend::Git(git) => git.commit_metrics(),
            Backend::Cow(_) | Backend::None => CommitMetrics {
                cumulative: vec![0; COMMIT_BUCKETS.len()],
                ..CommitMetrics::default()
            },
        }
    }

    /// How far the commits lag behind the recorded writes: files not committed yet and the
    /// age of the oldest (always empty unless committing asynchronously).
    pub fn backlog(&self) -> Backlog {
        match &self.backend {
            Backend::Git(git) => git.backlog(),
            Backend::Cow(_) | Backend::None => Backlog::default(),
        }
    }

    /// The newest version id: the HEAD commit (git; changes still queued are not in it) or the
    /// newest change number (cow); `None` when there is none.
    /// [`History::head`] once every write queued for a batch commit is committed: the commit
    /// that holds what is on disk now (the `base` a plan records). A read-only history commits
    /// nothing; a failed commit leaves the queue for the batch thread and answers the head as
    /// it is.
    pub fn settled_head(&self) -> Option<String> {
        if !self.read_only {
            if let Backend::Git(git) = &self.backend {
                if git.backlog().files > 0 {
                    if let Err(e) = git.flush() {
                        tracing::warn!("committing queued writes before planning failed: {e}");
                    }
                }
            }
        }
        self.head()
    }

    pub fn head(&self) -> Option<String> {
        match &self.backend {
            Backend::Git(git) => git.head(),
            Backend::Cow(cow) => cow.head(),
            Backend::None => None,
        }
    }

    /// The versions of a path, newest first. Git: the first-parent commits that changed it
    /// (including the one that deleted it). Queued changes are committed first, so a caller
    /// always sees its own writes.
    pub fn versions(&self, p: &quire_vault::PagePath) -> Result<Vec<VersionEntry>, StoreError> {
        match &self.backend {
            Backend::Git(git) => git.versions(self.git_name(p).as_str()),
            Backend::Cow(cow) => cow.versions(p.as_str()),
            Backend::None => Err(self.unavailable("version history")),
        }
    }

    /// The content of a path at a version (full or abbreviated id).
    pub fn version(&self, p: &quire_vault::PagePath, id: &str) -> Result<Vec<u8>, StoreError> {
        match &self.backend {
            Backend::Git(git) => git.version(p.as_str(), self.git_name(p).as_str(), id),
            Backend::Cow(cow) => cow.version(p.as_str(), id),
            Backend::None => Err(self.unavailable("version history")),
        }
    }

    /// A unified diff of a path between two versions, headed `a/<path>` and `b/<path>`. Git: a
    /// side where the file did not exist counts as empty. Empty when nothing differs.
    pub fn diff(
        &self,
        p: &quire_vault::PagePath,
        from: &str,
        to: &str,
    ) -> Result<String, StoreError> {
        match &self.backend {
            Backend::Git(git) => git.diff(p.as_str(), self.git_name(p).as_str(), from, to),
            Backend::Cow(cow) => cow.diff(p.as_str(), from, to),
            Backend::None => Err(self.unavailable("diff")),
        }
    }

    /// Who last changed each line of the committed version of a path (git only).
    pub fn blame(&self, p: &quire_vault::PagePath) -> Result<Vec<BlameLine>, StoreError> {
        match &self.backend {
            Backend::Git(git) => git.blame(p.as_str(), self.git_name(p).as_str()),
            Backend::Cow(_) | Backend::None => Err(self.unavailable("blame")),
        }
    }

    /// The change feed, oldest first.
    ///
    /// Git: `seq` is a commit id, walking first-parent history. With `since`, the changes of the
    /// commits after it, oldest first; a page holds whole commits only (so `last_seq` can be
    /// resumed from without losing anything) and stops before the commit that would exceed
    /// `limit`, except that it always holds at least one commit, however large. Without
    /// `since`, the newest `limit` changes (possibly only part of the oldest commit they
    /// touch), with `last_seq` = HEAD so a client can poll forward from now.
    ///
    /// Cow: `seq` is an increasing integer and `limit` is exact. In both, `last_seq` is the
    /// newest entry included, or the newest overall when the page is empty.
    pub fn changes(&self, since: Option<&str>, limit: usize) -> Result<ChangesPage, StoreError> {
        match &self.backend {
            Backend::Git(git) => git.changes(since, limit),
            Backend::Cow(cow) => cow.changes(since, limit),
            Backend::None => Err(self.unavailable("the change feed")),
        }
    }

    /// The name git holds the file under: its name on disk (paths are NFC, names on disk need
    /// not be). A path that no longer exists keeps its own spelling.
    fn git_name(&self, p: &quire_vault::PagePath) -> DiskName {
        self.root.disk_name(p).unwrap_or_else(|_| DiskName::from(p))
    }

    pub fn strategy(&self) -> Strategy {
        match &self.backend {
            Backend::Git(_) => Strategy::Git,
            Backend::Cow(_) => Strategy::Cow,
            Backend::None => Strategy::None,
        }
    }

    fn unavailable(&self, what: &'static str) -> StoreError {
        StoreError::Unavailable {
            what,
            strategy: self.strategy().as_str(),
        }
    }
}

/// Whether a record may wait for a batch.
#[derive(Clone, Copy)]
enum When {
    AsConfigured,
    Now,
}

/// The changes as git takes them: names on disk with their actions and contents.
fn owned(changes: &[FileChange]) -> Vec<PathChange> {
    changes
        .iter()
        .map(|c| PathChange {
            path: c.disk.as_str().to_owned(),
            action: c.action,
            content: c.content.clone(),
        })
        .collect()
}

/// Formats a git or snapshot time as RFC 3339 with its original UTC offset.
pub(crate) fn rfc3339(seconds: i64, offset_minutes: i32) -> String {
    let offset = chrono::FixedOffset::east_opt(offset_minutes * 60)
        .unwrap_or_else(|| chrono::FixedOffset::east_opt(0).expect("zero offset is valid"));
    chrono::DateTime::from_timestamp(seconds, 0)
        .unwrap_or_default()
        .with_timezone(&offset)
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Checks the shape of a version id the caller typed: 4 to 40 hex digits.
pub(crate) fn check_id(path: &str, id: &str) -> Result<(), StoreError> {
    if (4..=40).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(())
    } else {
        Err(StoreError::version_not_found(
            path,
            id,
            "not a version id (expected 4 to 40 hexadecimal digits)",
        ))
    }
}

/// A unified diff of two contents. Contents that are not UTF-8 text (or hold NUL bytes) get the
/// one-line summary git prints for binary files.
pub(crate) fn unified_diff(path: &str, old: &[u8], new: &[u8]) -> String {
    if old == new {
        return String::new();
    }
    let text = |b: &[u8]| {
        if b.contains(&0) {
            None
        } else {
            std::str::from_utf8(b).ok().map(str::to_owned)
        }
    };
    match (text(old), text(new)) {
        (Some(old), Some(new)) => similar::TextDiff::from_lines(&old, &new)
            .unified_diff()
            .header(&format!("a/{path}"), &format!("b/{path}"))
            .to_string(),
        _ => format!("Binary files a/{path} and b/{path} differ\n"),
    }
}
