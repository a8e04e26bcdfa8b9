//! The one write pipeline: validate → write under the space's lock → commit → index → events.
//!
//! Every entry point (REST, CLI with `--root`, later MCP, LSP and protocol servers) reaches the
//! disk only through here ([`crate::Space::apply`], and the services built on it). A failure
//! after the first file was written restores the pre-images of every file of the change, so
//! nothing half-written stays on disk.

use quire_store::{etag, fault, DiskName, FileChange, JournalEntry, Recorded, StoreError};
use quire_vault::PagePath;

use quire_api::Event;

use crate::change::{Announce, Applied, AppliedFile, Change, CommitMode, Expect, FileOp};
use crate::core::SpaceCore;
use crate::error::{Error, ErrorCode, Result};
use crate::events::now_rfc3339;
use crate::settings::SERVER_FILES;

/// How the pass records its change in the history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Record<'a> {
    /// A commit, as [`CommitMode`] says.
    Commit(CommitMode),
    /// No commit: the history moves from `from` to `to`, a commit whose tree the change
    /// makes the work tree hold (a backup's replay onto its remote; see `backup.rs`).
    Adopt { from: &'a str, to: &'a str },
}

struct Prepared {
    path: PagePath,
    /// The file's name on disk, fixed before anything is written: every write, removal,
    /// rollback and the commit use it, so the pass never reaches another spelling of the name
    /// (a file shadowed by the one it removes, say).
    disk: DiskName,
    before: Option<Vec<u8>>,
    after: Option<Vec<u8>>,
}

impl SpaceCore {
    /// Runs a change through the pipeline. All files are written and committed together, or
    /// none is.
    pub(crate) fn apply(&self, change: Change) -> Result<Applied> {
        self.apply_checked(change, false)
    }

    /// [`SpaceCore::apply`] for the server's own settings: the change may write
    /// [`SERVER_FILES`] (no other change may).
    pub(crate) fn apply_server_file(&self, change: Change) -> Result<Applied> {
        self.apply_checked(change, true)
    }

    fn apply_checked(&self, change: Change, server_files: bool) -> Result<Applied> {
        validate(&change, server_files)?;
        let files = change.ops.len() as u64;
        self.hooks.before_write(&self.root, &change.ops)?;
        let record = Record::Commit(change.commit);
        let applied = self.apply_counted(change, record)?;
        self.count_write(files);
        Ok(applied)
    }

    /// [`SpaceCore::apply`] for a caller that must not block (an async executor's thread),
    /// when the change cannot make it wait: one small file, written while no other change
    /// holds the write lock, with a history that queues the write for a batch commit without
    /// backpressure, and no fsync. `None` (nothing done) otherwise: the caller then runs
    /// [`SpaceCore::apply`] on a thread that may block. The pass is the same pipeline; only
    /// the thread differs, which saves a small write two thread hand-offs.
    pub(crate) fn try_apply_at_once(&self, change: Change) -> Option<Result<Applied>> {
        let small = match change.ops.as_slice() {
            [op] => op
                .content
                .as_ref()
                .is_some_and(|bytes| bytes.len() <= AT_ONCE_MAX_BYTES),
            _ => false,
        };
        if !small || change.commit != CommitMode::AsConfigured || self.root.fsyncs() {
            return None;
        }
        let guard = match self.write_lock.try_lock() {
            Ok(guard) => guard,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return None,
        };
        // The names on disk first: whether the history records at once is the cheap refusal
        // (a history that commits each write refuses every write here).
        let names = match change
            .ops
            .iter()
            .map(|op| self.root.disk_name(&op.path).map_err(Error::from))
            .collect::<Result<Vec<DiskName>>>()
        {
            Ok(names) => names,
            Err(e) => return Some(Err(e)),
        };
        if !self
            .history
            .records_at_once(&names.iter().collect::<Vec<_>>(), &change.actor)
        {
            return None;
        }
        if let Err(e) =
            validate(&change, false).and_then(|()| self.hooks.before_write(&self.root, &change.ops))
        {
            return Some(Err(e));
        }
        let files = change.ops.len() as u64;
        let record = Record::Commit(change.commit);
        let applied = self.apply_locked(guard, change, record);
        if applied.is_ok() {
            self.count_write(files);
        }
        Some(applied)
    }

    fn count_write(&self, files: u64) {
        self.activity.add(&self.activity.writes, 1);
        self.activity.add(&self.activity.files_written, files);
    }

    /// Moves the space's history from commit `from` to commit `to` (made from objects only:
    /// a backup's replay of this root's commits onto its remote) in one pass of the pipeline:
    /// `ops` make the work tree hold what `to` holds (each expecting what `from` holds, so a
    /// file changed since is never overwritten), then HEAD moves instead of a commit being
    /// made. Every file is written and HEAD moved, or nothing changes (a history that moved
    /// meanwhile is a conflict, to be prepared again). The remote's history is taken as it
    /// is: server files may change, schemas are not checked.
    pub(crate) fn adopt_history(
        &self,
        ops: Vec<FileOp>,
        from: &str,
        to: &str,
        actor: &str,
    ) -> Result<Applied> {
        let change = Change {
            ops,
            actor: actor.to_string(),
            message: String::new(),
            announce: Announce::PerFile,
            commit: CommitMode::Now,
        };
        validate_ops(&change, true)?;
        self.apply_counted(change, Record::Adopt { from, to })
    }

    fn apply_counted(&self, change: Change, record: Record<'_>) -> Result<Applied> {
        let guard = self.write_lock.lock().unwrap_or_else(|p| p.into_inner());
        self.apply_locked(guard, change, record)
    }

    /// The pass, under the write lock (`guard`), which it releases before announcing.
    fn apply_locked(
        &self,
        guard: std::sync::MutexGuard<'_, ()>,
        change: Change,
        record: Record<'_>,
    ) -> Result<Applied> {
        let adopting = matches!(record, Record::Adopt { .. });

        // Read pre-images and check preconditions before touching anything.
        let mut prepared = Vec::with_capacity(change.ops.len());
        for op in &change.ops {
            let disk = self.root.disk_name(&op.path)?;
            let before = self.read_existing(&disk)?;
            match &op.expect {
                Expect::Anything => {}
                Expect::Absent if before.is_some() => {
                    return Err(Error::conflict(format!(
                        "{} already exists; it is never overwritten",
                        op.path
                    )));
                }
                Expect::Absent => {}
                Expect::Etag(expected) => {
                    let current = before.as_deref().map(etag);
                    if current.as_deref() != Some(expected.as_str()) {
                        return Err(Error::conflict(format!(
                            "{} was modified since the last read (If-Match {} does not match the current ETag {})",
                            op.path,
                            expected,
                            current.as_deref().unwrap_or("none: the file does not exist")
                        )));
                    }
                }
            }
            if op.content.is_none() && before.is_none() {
                return Err(Error::not_found(format!("{} does not exist", op.path)));
            }
            prepared.push(Prepared {
                path: op.path.clone(),
                disk,
                before,
                after: op.content.clone(),
            });
        }

        let mut applied = Applied {
            files: prepared
                .iter()
                .map(|p| AppliedFile {
                    path: p.path.clone(),
                    etag: p.after.as_deref().map(etag),
                    created: p.before.is_none(),
                })
                .collect(),
            commit: None,
        };
        // A write of identical bytes changes nothing: no commit, no event. (A move of the
        // history still moves it.)
        prepared.retain(|p| p.before != p.after);
        if prepared.is_empty() && !adopting {
            return Ok(applied);
        }

        let names: Vec<&DiskName> = prepared.iter().map(|p| &p.disk).collect();
        if let Err(e) = self.history.commit_others_before(&names, &change.actor) {
            return Err(Error::internal(format!(
                "committing queued writes failed: {e}"
            )));
        }

        // Several files, a restructuring or a move of the history: a crash must not leave
        // half of it behind.
        let journaled = prepared.len() > 1 || record != Record::Commit(CommitMode::AsConfigured);
        if journaled {
            let entries: Vec<JournalEntry> = prepared
                .iter()
                .map(|p| JournalEntry {
                    path: p.disk.to_string(),
                    before: p.before.clone(),
                    after: p.after.as_deref().map(etag),
                })
                .collect();
            self.root.write_journal(&entries)?;
            fault::point("after-journal");
        }
        if let (done, Some(e)) = self.write_files(&prepared) {
            self.roll_back(&done, journaled);
            return Err(e.into());
        }
        fault::point("after-write");

        // With the bytes written: a batch commit made later records this version even when
        // another program saves the file before it.
        let changes: Vec<FileChange> = prepared
            .iter()
            .map(|p| {
                let change = FileChange::of(p.path.clone(), p.disk.clone(), p.after.is_some());
                match &p.after {
                    Some(bytes) => change.with_content(bytes.as_slice()),
                    None => change,
                }
            })
            .collect();
        let message = match (change.message.as_str(), prepared.as_slice()) {
            ("", [only]) => {
                let verb = match (&only.before, &only.after) {
                    (None, _) => "Create",
                    (Some(_), Some(_)) => "Update",
                    (Some(_), None) => "Delete",
                };
                format!("{verb} {}", only.path)
            }
            ("", _) => format!("Change {} files", prepared.len()),
            (text, _) => text.to_string(),
        };
        // The index step starts before the commit and runs beside it (the index thread reads
        // the files just written); the answer does not wait for it — readers do (see
        // `indexing`). A failed commit restores the files and tells the index of the
        // restored contents.
        self.index_files(
            prepared
                .iter()
                .map(|p| (&p.path, &p.disk, p.after.as_deref())),
        );
        let recorded = match record {
            Record::Commit(CommitMode::AsConfigured) => {
                self.history.record(&changes, &change.actor, &message)
            }
            Record::Commit(CommitMode::Now) => {
                self.history.record_now(&changes, &change.actor, &message)
            }
            Record::Adopt { from, to } => self
                .history
                .adopt(&changes, from, to)
                .map(|()| Recorded::Committed(to.to_string())),
        };
        match recorded {
            Ok(Recorded::Committed(id)) => applied.commit = Some(id),
            Ok(_) => {}
            Err(e @ StoreError::HeadMoved { .. }) => {
                self.roll_back(&prepared.iter().collect::<Vec<_>>(), journaled);
                self.index_files(
                    prepared
                        .iter()
                        .map(|p| (&p.path, &p.disk, p.before.as_deref())),
                );
                return Err(Error::conflict(e.to_string()));
            }
            Err(e) => {
                self.roll_back(&prepared.iter().collect::<Vec<_>>(), journaled);
                self.index_files(
                    prepared
                        .iter()
                        .map(|p| (&p.path, &p.disk, p.before.as_deref())),
                );
                return Err(Error::internal(format!(
                    "commit failed, change rolled back: {e}"
                )));
            }
        }
        fault::point("after-commit");
        if journaled {
            if let Err(e) = self.root.clear_journal() {
                tracing::error!("removing the journal failed (recovered at next start): {e}");
            }
        }
        // The change is on disk and recorded: the next writer may start while this one
        // announces it. Events still go out in the order of the changes.
        let ticket = self.events.ticket();
        drop(guard);
        ticket.publish(self.events_of(&prepared, &change));
        Ok(applied)
    }

    /// The pipeline's index step, for its own changes and for changes seen on disk: the link
    /// model takes the new contents at once, and the index thread hears which paths changed
    /// (searches and queries made after this returns wait for them: `Indexer::catch_up`).
    pub(crate) fn index_files<'a>(
        &self,
        files: impl Iterator<Item = (&'a PagePath, &'a DiskName, Option<&'a [u8]>)> + Clone,
    ) {
        self.links.index_changes(&self.root, files.clone());
        if let Some(indexer) = &self.indexer {
            indexer.changed(
                files
                    .map(|(path, _, bytes)| (path.clone(), bytes.map(<[u8]>::to_vec)))
                    .collect(),
            );
        }
    }

    fn read_existing(&self, disk: &DiskName) -> Result<Option<Vec<u8>>> {
        match self.root.read_on_disk(disk) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(quire_store::StoreError::NotFound { .. }) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Writes and removes the prepared files: removals first (a file may make way for a
    /// folder), then the writes — spread over the cores when there are many. Returns the
    /// files done (to roll back on failure) and the first failure.
    fn write_files<'a>(&self, prepared: &'a [Prepared]) -> (Vec<&'a Prepared>, Option<StoreError>) {
        let one = |p: &Prepared| match &p.after {
            Some(bytes) => self.root.write_on_disk(&p.disk, bytes),
            None => self.root.remove_on_disk(&p.disk),
        };
        let (removals, writes): (Vec<&Prepared>, Vec<&Prepared>) =
            prepared.iter().partition(|p| p.after.is_none());
        let mut done = Vec::with_capacity(prepared.len());
        let split = writes.len().min(1);
        for p in removals.into_iter().chain(writes[..split].iter().copied()) {
            if let Err(e) = one(p) {
                return (done, Some(e));
            }
            done.push(p);
            if done.len() == 1 {
                fault::point("after-first-write");
            }
        }
        let rest = &writes[split..];
        // Asked only for large changes: the answer reads cgroup files (2 % of a small
        // write's CPU when asked every time).
        let threads = if rest.len() < PARALLEL_WRITES_FROM {
            1
        } else {
            std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
        };
        if threads < 2 {
            for p in rest {
                if let Err(e) = one(p) {
                    return (done, Some(e));
                }
                done.push(p);
            }
            return (done, None);
        }
        let chunk = rest.len().div_ceil(threads);
        let outcomes: Vec<(Vec<&Prepared>, Option<StoreError>)> = std::thread::scope(|scope| {
            let workers: Vec<_> = rest
                .chunks(chunk)
                .map(|part| {
                    scope.spawn(move || {
                        let mut written = Vec::with_capacity(part.len());
                        for p in part {
                            if let Err(e) = one(p) {
                                return (written, Some(e));
                            }
                            written.push(*p);
                        }
                        (written, None)
                    })
                })
                .collect();
            workers
                .into_iter()
                .zip(rest.chunks(chunk))
                .map(|(worker, part)| {
                    // A thread that panicked may have written any file of its part.
                    worker.join().unwrap_or_else(|_| {
                        let error = StoreError::Io {
                            path: String::new(),
                            source: std::io::Error::other("a writing thread panicked"),
                        };
                        (part.to_vec(), Some(error))
                    })
                })
                .collect()
        });
        let mut failure = None;
        for (written, error) in outcomes {
            done.extend(written);
            failure = failure.or(error);
        }
        (done, failure)
    }

    fn roll_back(&self, prepared: &[&Prepared], journaled: bool) {
        let mut clean = true;
        for p in prepared.iter().rev() {
            let result = match &p.before {
                Some(bytes) => self.root.write_on_disk(&p.disk, bytes),
                None => self.root.remove_on_disk(&p.disk),
            };
            if let Err(e) = result {
                clean = false;
                tracing::error!("rolling back {} failed: {e}", p.path);
            }
        }
        // A failed rollback keeps the journal: the next start retries it.
        if journaled && clean {
            if let Err(e) = self.root.clear_journal() {
                tracing::error!("removing the journal failed: {e}");
            }
        }
    }

    fn events_of(&self, prepared: &[Prepared], change: &Change) -> Vec<Event> {
        let timestamp = now_rfc3339();
        match &change.announce {
            Announce::Bulk => vec![Event::Bulk {
                paths: prepared.iter().map(|p| p.path.to_string()).collect(),
                actor: change.actor.clone(),
                timestamp,
            }],
            Announce::Import { source, imported } => vec![Event::Import {
                imported: *imported,
                source: source.clone(),
                actor: change.actor.clone(),
                paths: prepared.iter().map(|p| p.path.to_string()).collect(),
                timestamp,
            }],
            Announce::PerFile => prepared
                .iter()
                .map(|p| {
                    let path = p.path.to_string();
                    let actor = change.actor.clone();
                    let timestamp = timestamp.clone();
                    match p.after {
                        Some(_) => Event::Write {
                            path,
                            actor,
                            timestamp,
                        },
                        None => Event::Delete {
                            path,
                            actor,
                            timestamp,
                        },
                    }
                })
                .collect(),
        }
    }
}

/// From this many files, a change's writes are spread over threads.
const PARALLEL_WRITES_FROM: usize = 64;

/// The largest file [`SpaceCore::try_apply_at_once`] writes on the caller's thread.
const AT_ONCE_MAX_BYTES: usize = 64 * 1024;

/// A change names files at most once, and never a reserved path; the actor is a plain name.
fn validate(change: &Change, server_files: bool) -> Result<()> {
    if change.ops.is_empty() {
        return Err(Error::bad_request("the change holds no files"));
    }
    validate_ops(change, server_files)
}

/// [`validate`] apart from the emptiness of the change (a move of the history may change no
/// file).
fn validate_ops(change: &Change, server_files: bool) -> Result<()> {
    if change.actor.trim().is_empty() || change.actor.contains(['<', '>', '\n']) {
        return Err(Error::bad_request(
            "the actor must be a non-empty name without '<', '>' or newlines",
        ));
    }
    let mut seen = std::collections::HashSet::new();
    for op in &change.ops {
        check_writable(&op.path)?;
        if !server_files && SERVER_FILES.contains(&op.path.as_str()) {
            return Err(Error::new(
                ErrorCode::Forbidden,
                format!(
                    "{} holds the server's own settings (authentication, spaces) and cannot be \
                     changed through the API; edit it on the server (`PUT /space/visibility` and \
                     `/api/spaces` change what they own)",
                    op.path
                ),
            ));
        }
        if !seen.insert(op.path.as_str()) {
            return Err(Error::new(
                ErrorCode::BadRequest,
                format!("{} appears twice in one change", op.path),
            ));
        }
    }
    Ok(())
}

/// Paths no change may write: git's own folder and quire's runtime state.
pub(crate) fn check_writable(path: &PagePath) -> Result<()> {
    let s = path.as_str();
    let first = s.split('/').next().unwrap_or("");
    if first == ".git" || s == ".quire/state" || s.starts_with(".quire/state/") {
        return Err(Error::bad_request(format!(
            "{s} is reserved: .git/ and .quire/state/ cannot be written"
        )));
    }
    Ok(())
}
