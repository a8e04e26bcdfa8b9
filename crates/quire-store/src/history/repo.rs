//! The shared repository handle: one lock around `git2::Repository`, the commit of staged
//! paths, and the deferred saving of `.git/index` during bursts of commits.
//!
//! A commit never rescans the work tree: it stages exactly the given paths in the repository's
//! in-memory index (kept alive inside `git2::Repository`) and builds the commit's tree from
//! HEAD's tree, rewriting only the trees on the changed paths. (`Index::write_tree` would
//! also re-read every tree of the repository afterwards to refresh the index's tree cache.)
//!
//! Saving the index rewrites and hashes the whole file (about 70 bytes per tracked file), which
//! in a 10,000-file repository costs more than everything else a commit does. So a commit saves
//! the index at once when the previous save is older than [`INDEX_SAVE_DELAY`] (every commit
//! of ordinary interactive use), and otherwise leaves it to the saver thread, which saves it
//! that long after the previous save. During a burst of commits `git status` in the root may
//! thus lag HEAD by up to that delay; `flush`, every history query and dropping the history
//! save it at once, and a crash before the save only leaves an index that the recovery at the
//! next open brings back in line (the files and commits are already on disk).

use std::collections::HashSet;
use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use git2::build::TreeUpdateBuilder;
use git2::{Commit, ErrorCode, FileMode, ObjectType, Oid, Repository, Signature};

use super::built::{Built, TreeCache};
use super::pack_file::PackOut;
use super::{trailer, unfiltered, PathChange};
use crate::error::StoreError;
use crate::fault;

/// How long `.git/index` may lag behind HEAD during a burst of commits.
pub(crate) const INDEX_SAVE_DELAY: Duration = Duration::from_millis(250);

/// Who a commit is authored by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Author<'a> {
    /// One actor: the author's name is [`actor_name`] of it.
    Actor(&'a str),
    /// The writes of several actors, each named by a trailer (see [`trailer`]).
    Batch,
}

/// Whether a commit must save the index before returning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IndexSave {
    Now,
    /// Now, unless the previous save is recent; then within [`INDEX_SAVE_DELAY`].
    Deferred,
}

pub(crate) struct RepoState {
    pub(crate) repo: Repository,
    stats: Arc<CommitStats>,
    index_saved_at: Instant,
    /// The in-memory index holds commits that `.git/index` does not have yet.
    index_unsaved: bool,
    closing: bool,
    /// The trees of the last batch commits, the next one's base.
    trees: TreeCache,
}

impl RepoState {
    /// Writes the in-memory index to `.git/index` if it has unsaved changes.
    pub(crate) fn save_index(&mut self) -> Result<(), StoreError> {
        if self.index_unsaved {
            let mut index = self.repo.index().map_err(StoreError::git("index"))?;
            index.write().map_err(StoreError::git("index write"))?;
            self.index_unsaved = false;
            self.index_saved_at = Instant::now();
        }
        Ok(())
    }
}

/// The repository, shared by the caller's threads, the batch thread and the index saver.
/// Upper bounds (seconds) of the commit-duration histogram buckets.
pub const COMMIT_BUCKETS: [f64; 10] =
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 5.0];

/// Commits made and how long they took (for `/metrics`), counted as they happen.
#[derive(Debug, Default)]
pub struct CommitStats {
    count: AtomicU64,
    micros: AtomicU64,
    /// Commits at or under each bound of [`COMMIT_BUCKETS`] (not cumulative).
    buckets: [AtomicU64; COMMIT_BUCKETS.len()],
}

/// A reading of [`CommitStats`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CommitMetrics {
    pub count: u64,
    pub seconds: f64,
    /// Cumulative counts per bound of [`COMMIT_BUCKETS`].
    pub cumulative: Vec<u64>,
}

impl CommitStats {
    fn observe(&self, took: Duration) {
        self.count.fetch_add(1, Ordering::Relaxed);
        self.micros
            .fetch_add(took.as_micros() as u64, Ordering::Relaxed);
        let secs = took.as_secs_f64();
        if let Some(i) = COMMIT_BUCKETS.iter().position(|b| secs <= *b) {
            self.buckets[i].fetch_add(1, Ordering::Relaxed);
        }
    }

    pub fn read(&self) -> CommitMetrics {
        let mut running = 0;
        let cumulative = self
            .buckets
            .iter()
            .map(|b| {
                running += b.load(Ordering::Relaxed);
                running
            })
            .collect();
        CommitMetrics {
            count: self.count.load(Ordering::Relaxed),
            seconds: self.micros.load(Ordering::Relaxed) as f64 / 1e6,
            cumulative,
        }
    }
}

pub(crate) struct Repo {
    state: Mutex<RepoState>,
    pub(crate) stats: Arc<CommitStats>,
    /// Signalled when the index becomes unsaved or the history closes.
    index_due: Condvar,
}

impl Repo {
    pub(crate) fn new(repo: Repository) -> Repo {
        let stats = Arc::new(CommitStats::default());
        Repo {
            stats: stats.clone(),
            state: Mutex::new(RepoState {
                repo,
                stats,
                // As if saved long ago, so the first commit saves at once.
                index_saved_at: Instant::now()
                    .checked_sub(INDEX_SAVE_DELAY)
                    .unwrap_or_else(Instant::now),
                index_unsaved: false,
                closing: false,
                trees: TreeCache::default(),
            }),
            index_due: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, RepoState> {
        // A panic while committing leaves the repository object usable; git itself is
        // consistent on disk because refs are updated last.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `f` with the repository locked.
    pub(crate) fn with_lock<T>(&self, f: impl FnOnce(&mut RepoState) -> T) -> T {
        f(&mut self.lock())
    }

    /// Stages exactly `changes` (their bytes when given, else as they are on disk now) and
    /// commits them on HEAD as `actor`.
    /// Returns the new commit, or HEAD when the tree did not change.
    pub(crate) fn commit(
        &self,
        changes: &[PathChange],
        actor: &str,
        message: &str,
        save: IndexSave,
    ) -> Result<Oid, StoreError> {
        let mut state = self.lock();
        let result = commit_locked(&mut state, changes, Author::Actor(actor), message, save);
        if state.index_unsaved {
            self.index_due.notify_one();
        }
        result
    }

    /// Like [`Repo::commit`] for a caller that already holds the lock. A deferred save is
    /// left to the saver thread, which this wakes.
    pub(crate) fn commit_in(
        &self,
        state: &mut RepoState,
        changes: &[PathChange],
        author: Author<'_>,
        message: &str,
        save: IndexSave,
    ) -> Result<Oid, StoreError> {
        let result = commit_locked(state, changes, author, message, save);
        if state.index_unsaved {
            self.index_due.notify_one();
        }
        result
    }

    /// Moves HEAD from `from` to `to` and stages `paths` from disk, which the caller has just
    /// made hold what `to` holds there (see [`crate::History::adopt`]). Checked before
    /// anything moves: HEAD is still `from`, and every staged file is exactly `to`'s; a
    /// mismatch leaves HEAD and the index as they were.
    pub(crate) fn adopt(&self, paths: &[&str], from: Oid, to: Oid) -> Result<(), StoreError> {
        let mut state = self.lock();
        // The index on disk is the one to go back to if a check fails.
        state.save_index()?;
        let result = adopt_locked(&mut state, paths, from, to);
        if result.is_err() {
            let mut index = state.repo.index().map_err(StoreError::git("index"))?;
            index.read(true).map_err(StoreError::git("index read"))?;
        }
        result
    }

    /// Saves an unsaved index now.
    pub(crate) fn save_index(&self) -> Result<(), StoreError> {
        self.lock().save_index()
    }

    /// Saves the index whenever a deferred save falls due, until the history closes.
    fn run_index_saver(&self) {
        let mut state = self.lock();
        while !state.closing {
            if !state.index_unsaved {
                state = self
                    .index_due
                    .wait(state)
                    .unwrap_or_else(|e| e.into_inner());
                continue;
            }
            let due = state.index_saved_at + INDEX_SAVE_DELAY;
            let now = Instant::now();
            if now < due {
                state = self
                    .index_due
                    .wait_timeout(state, due - now)
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
                continue;
            }
            if let Err(e) = state.save_index() {
                tracing::error!(error = %e, "saving .git/index failed; retrying");
                // Do not spin on a persistent failure.
                state.index_saved_at = Instant::now();
            }
        }
    }
}

/// The thread that performs deferred index saves; dropping it saves what is left.
pub(crate) struct IndexSaver {
    repo: Arc<Repo>,
    thread: Option<JoinHandle<()>>,
}

impl IndexSaver {
    pub(crate) fn start(repo: Arc<Repo>) -> IndexSaver {
        let worker = Arc::clone(&repo);
        let thread = std::thread::Builder::new()
            .name("quire-git-index".into())
            .spawn(move || worker.run_index_saver())
            .map_err(|e| tracing::error!(error = %e, "cannot start the index saver thread"))
            .ok();
        IndexSaver { repo, thread }
    }

    /// Whether deferred saves have a thread to perform them.
    pub(crate) fn running(&self) -> bool {
        self.thread.is_some()
    }
}

impl Drop for IndexSaver {
    fn drop(&mut self) {
        self.repo.lock().closing = true;
        self.repo.index_due.notify_all();
        if let Some(thread) = self.thread.take() {
            if thread.join().is_err() {
                tracing::error!("the index saver thread panicked");
            }
        }
        if let Err(e) = self.repo.save_index() {
            tracing::error!(error = %e, "saving .git/index failed; the next open repairs it");
        }
    }
}

fn adopt_locked(
    state: &mut RepoState,
    paths: &[&str],
    from: Oid,
    to: Oid,
) -> Result<(), StoreError> {
    move_head_to(&state.repo, paths, from, to)?;
    state.index_unsaved = true;
    state.save_index()
}

fn move_head_to(repo: &Repository, paths: &[&str], from: Oid, to: Oid) -> Result<(), StoreError> {
    let head = head_commit(repo)?.map(|c| c.id());
    if head != Some(from) {
        return Err(StoreError::HeadMoved {
            expected: from.to_string(),
            found: head.map_or_else(|| "nothing".into(), |h| h.to_string()),
        });
    }
    let target = repo.find_commit(to).map_err(StoreError::git("adopt"))?;
    let tree = target.tree().map_err(StoreError::git("adopt"))?;
    let workdir = repo
        .workdir()
        .ok_or_else(|| StoreError::git("adopt")(git2::Error::from_str("bare repository")))?
        .to_path_buf();
    let mut index = repo.index().map_err(StoreError::git("index"))?;
    index.read(false).map_err(StoreError::git("index read"))?;
    let changes: Vec<PathChange> = paths
        .iter()
        .map(|p| PathChange {
            path: (*p).to_owned(),
            action: crate::ChangeAction::Write,
            content: None,
        })
        .collect();
    let changes: Vec<&PathChange> = changes.iter().collect();
    for (path, staged) in stage(repo, &workdir, &mut index, &changes, None)? {
        let wanted = tree
            .get_path(Path::new(path))
            .ok()
            .map(|e| (e.id(), e.filemode()));
        let got = staged.map(|(id, mode)| (id, i32::from(mode)));
        if wanted != got {
            return Err(StoreError::git("adopt")(git2::Error::from_str(&format!(
                "{path} on disk is not what commit {to} holds"
            ))));
        }
    }
    let reference = repo
        .find_reference("HEAD")
        .map_err(StoreError::git("adopt"))?;
    match reference.symbolic_target() {
        Some(name) => {
            let name = name.to_owned();
            repo.reference_matching(
                &name,
                to,
                true,
                from,
                &format!("quire backup: move to {to}"),
            )
            .map_err(StoreError::git("adopt"))?;
        }
        None => repo
            .set_head_detached(to)
            .map_err(StoreError::git("adopt"))?,
    }
    Ok(())
}

fn commit_locked(
    state: &mut RepoState,
    changes: &[PathChange],
    author: Author<'_>,
    message: &str,
    save: IndexSave,
) -> Result<Oid, StoreError> {
    let started = Instant::now();
    let result = commit_timed(state, changes, author, message, save);
    if result.is_ok() {
        state.stats.observe(started.elapsed());
    }
    result
}

fn commit_timed(
    state: &mut RepoState,
    changes: &[PathChange],
    author: Author<'_>,
    message: &str,
    save: IndexSave,
) -> Result<Oid, StoreError> {
    match commit_once(state, changes, author, message, save) {
        Err(e) if e.to_string().contains("invalid object") => {
            // The index names an object the repository does not have (seen once under load,
            // cause unknown): writing a tree from it can never succeed, so retrying the batch
            // as it is would fail forever. Stage those entries again from the work tree, then
            // try once more.
            let repaired = repair_index(&state.repo).map_err(StoreError::git("index repair"))?;
            tracing::warn!(
                error = %e,
                repaired,
                "the git index named missing objects; staged those paths again from disk"
            );
            commit_once(state, changes, author, message, save)
        }
        other => other,
    }
}

/// Re-stages every index entry whose object is missing from the object database (from the
/// work tree; dropped when the file is gone), and saves the index. Answers how many there were.
fn repair_index(repo: &Repository) -> Result<usize, git2::Error> {
    let odb = repo.odb()?;
    let mut index = repo.index()?;
    let missing: Vec<Vec<u8>> = index
        .iter()
        .filter(|entry| !odb.exists(entry.id))
        .map(|entry| entry.path)
        .collect();
    let workdir = repo
        .workdir()
        .ok_or_else(|| git2::Error::from_str("bare repository"))?
        .to_path_buf();
    for raw in &missing {
        let path = Path::new(
            std::str::from_utf8(raw)
                .map_err(|_| git2::Error::from_str("an index path is not UTF-8"))?,
        );
        if workdir.join(path).is_file() {
            index.add_path(path)?;
        } else {
            index.remove_path(path)?;
        }
    }
    index.write()?;
    Ok(missing.len())
}

fn commit_once(
    state: &mut RepoState,
    changes: &[PathChange],
    author: Author<'_>,
    message: &str,
    save: IndexSave,
) -> Result<Oid, StoreError> {
    let repo = &state.repo;
    let workdir = repo
        .workdir()
        .ok_or_else(|| StoreError::git("commit")(git2::Error::from_str("bare repository")))?;
    let mut index = repo.index().map_err(StoreError::git("index"))?;
    if !state.index_unsaved {
        // Picks up an index changed by someone else (a `git add` in a shell); a no-op
        // otherwise. Skipped while our own changes are unsaved, which a reload would drop.
        index.read(false).map_err(StoreError::git("index read"))?;
    }
    // A path named twice: its last mention wins.
    let mut seen = HashSet::new();
    let mut files: Vec<&PathChange> = changes
        .iter()
        .rev()
        .filter(|c| !c.path.starts_with(".quire/state/") && seen.insert(c.path.as_str()))
        .collect();
    files.reverse();
    let head_id = head_id(repo)?;
    let oid = match head_id {
        Some(id) if files.len() >= PACK_FROM => {
            // The tree of the commit this thread made last is known without reading it back
            // (the first read of a new pack makes libgit2 re-read the pack folder).
            let tree = match state.trees.tree_of(id) {
                Some(tree) => tree,
                None => repo
                    .find_commit(id)
                    .map_err(StoreError::git("head"))?
                    .tree_id(),
            };
            let head = Head { id, tree };
            let trees = &mut state.trees;
            commit_packed(
                repo, trees, workdir, &mut index, &files, head, author, message,
            )?
        }
        _ => {
            let head = head_id
                .map(|id| repo.find_commit(id))
                .transpose()
                .map_err(StoreError::git("head"))?;
            let staged = stage(repo, workdir, &mut index, &files, None)?;
            let tree = build_tree(repo, &mut index, head.as_ref(), &staged)?;
            match head.as_ref().filter(|h| h.tree_id() == tree) {
                Some(head) => head.id(),
                None => {
                    fault::point("store.commit.before_ref");
                    commit_with(
                        repo,
                        tree,
                        &author_signature(author)?,
                        message,
                        head.as_ref(),
                    )?
                }
            }
        }
    };
    drop(index);
    state.index_unsaved = true;
    let due = state.index_saved_at + INDEX_SAVE_DELAY;
    if save == IndexSave::Now || Instant::now() >= due {
        state.save_index()?;
    }
    Ok(oid)
}

/// Commits of at least this many files write their new objects (blobs, trees, the commit)
/// as one pack file instead of one loose file each: creating files is the largest cost of a
/// big commit, all the more on a filesystem that has just deleted many (ext4 with `discard`
/// skips the inodes freed in the last minute, one inode-table read each). Smaller commits
/// stay loose, as git makes them, so packs do not pile up.
const PACK_FROM: usize = 32;

/// A staged path with its new blob and mode, or `None` when it was removed.
type Staged<'p> = (&'p str, Option<(Oid, FileMode)>);

/// Stages exactly `files`. A file whose bytes the change gave is staged as those bytes
/// ([`stage_given`]). For the others what is on disk decides, whatever the action said (a
/// path written and then removed before a batch commit is a deletion, and the other way
/// round). With `unfiltered`, regular files are staged as their bytes
/// ([`unfiltered::stage_file`]) instead of through git's filters.
fn stage<'p>(
    repo: &Repository,
    workdir: &Path,
    index: &mut git2::Index,
    files: &[&'p PathChange],
    unfiltered: Option<Unfiltered>,
) -> Result<Vec<Staged<'p>>, StoreError> {
    let mut staged = Vec::with_capacity(files.len());
    for file in files {
        let path = &file.path.as_str();
        let meta = fs::symlink_metadata(workdir.join(path))
            .ok()
            .filter(|m| !m.is_dir());
        let rel = Path::new(path);
        if let Some(bytes) = &file.content {
            let entry = stage_given(repo, index, workdir, path, bytes, meta, unfiltered)
                .map_err(StoreError::git("add"))?;
            staged.push((*path, Some(entry)));
            continue;
        }
        match (meta, unfiltered) {
            (Some(meta), Some(Unfiltered { filemode })) if meta.is_file() => {
                let entry = unfiltered::stage_file(repo, index, workdir, path, &meta, filemode)
                    .map_err(StoreError::git("add"))?;
                staged.push((*path, Some(entry)));
            }
            (Some(_), _) => {
                add_settled(index, rel)?;
                let entry = index.get_path(rel, 0).ok_or_else(|| {
                    StoreError::git("add")(git2::Error::from_str("staged path missing from index"))
                })?;
                staged.push((*path, Some((entry.id, file_mode(entry.mode)))));
            }
            (None, _) => {
                index.remove_path(rel).map_err(StoreError::git("remove"))?;
                staged.push((*path, None));
            }
        }
    }
    Ok(staged)
}

/// Stages the bytes a change gave for `rel`, whatever the file holds now (`meta`: its stat
/// data before this call). When the file still holds exactly those bytes it is staged as
/// usual, with its stat data. When it holds something else, or is gone (another program
/// saved or removed it after the write), the blob is the given bytes and the entry carries
/// no stat data, so `git status` and the next open hash the file and see that later edit as
/// the change it is (the watcher records it as its own).
fn stage_given(
    repo: &Repository,
    index: &mut git2::Index,
    workdir: &Path,
    rel: &str,
    bytes: &[u8],
    meta: Option<fs::Metadata>,
    unfiltered: Option<Unfiltered>,
) -> Result<(Oid, FileMode), git2::Error> {
    let meta = meta.filter(|m| m.is_file() && m.len() == bytes.len() as u64);
    let unchanged = meta.is_some()
        && fs::read(workdir.join(rel)).is_ok_and(|on_disk| on_disk.as_slice() == bytes);
    match (meta, unfiltered) {
        (Some(meta), Some(Unfiltered { filemode })) if unchanged => {
            unfiltered::stage_bytes(repo, index, rel, bytes, &meta, filemode)
        }
        (Some(_), None) if unchanged => {
            // Git's filters may apply: the file is staged through them, as any other.
            add_settled(index, Path::new(rel))
                .map_err(|e| git2::Error::from_str(&e.to_string()))?;
            let entry = index
                .get_path(Path::new(rel), 0)
                .ok_or_else(|| git2::Error::from_str("staged path missing from index"))?;
            Ok((entry.id, file_mode(entry.mode)))
        }
        _ => {
            let id = repo.blob(bytes)?;
            let mode = match index.get_path(Path::new(rel), 0) {
                Some(entry) if entry.mode == 0o100755 => 0o100755,
                _ => 0o100644,
            };
            let zero = git2::IndexTime::new(0, 0);
            index.add(&git2::IndexEntry {
                ctime: zero,
                mtime: zero,
                dev: 0,
                ino: 0,
                mode,
                uid: 0,
                gid: 0,
                file_size: bytes.len() as u32,
                id,
                flags: (rel.len().min(0xfff)) as u16,
                flags_extended: 0,
                path: rel.as_bytes().to_vec(),
            })?;
            Ok((id, file_mode(mode)))
        }
    }
}

/// Staging files as their bytes: no filter of git can apply to them.
#[derive(Debug, Clone, Copy)]
struct Unfiltered {
    /// `core.filemode`: whether the executable bit is read from the file.
    filemode: bool,
}

impl Unfiltered {
    /// `Some` when no filter can apply to any of `paths` in `repo`.
    fn of(repo: &Repository, index: &git2::Index, paths: &[&str]) -> Option<Unfiltered> {
        if !unfiltered::no_filters(repo, index, paths) {
            return None;
        }
        let filemode = repo
            .config()
            .and_then(|c| c.get_bool("core.filemode"))
            .unwrap_or(true);
        Some(Unfiltered { filemode })
    }
}

/// The tree of the index after staging: HEAD's tree with the staged updates.
fn build_tree(
    repo: &Repository,
    index: &mut git2::Index,
    head: Option<&Commit<'_>>,
    staged: &[Staged<'_>],
) -> Result<Oid, StoreError> {
    match head {
        // The index matches HEAD apart from the paths just staged (open makes it so and every
        // commit keeps it so), so HEAD's tree with these updates is the index's tree. Building
        // it this way rewrites only the trees on the changed paths; `write_tree` would also
        // re-read every tree of the repository to refresh the index's tree cache.
        Some(head) => match updated_tree(repo, head, staged) {
            Ok(tree) => Ok(tree),
            Err(e) => {
                // A file replacing a folder (or the reverse) is beyond in-place tree updates.
                tracing::debug!(error = %e, "tree update refused; writing the tree from the index");
                index.write_tree().map_err(StoreError::git("write tree"))
            }
        },
        None => index.write_tree().map_err(StoreError::git("write tree")),
    }
}

/// [`commit_locked`] for many files: the new objects are kept in memory (reads still find
/// every object on disk), written as one pack file with its index, and only then does HEAD
/// move. The blobs go through libgit2 (staging writes them); the trees and the commit are
/// built as bytes ([`Built`]) when they can be.
#[allow(clippy::too_many_arguments)]
fn commit_packed(
    repo: &Repository,
    trees: &mut TreeCache,
    workdir: &Path,
    index: &mut git2::Index,
    files: &[&PathChange],
    head: Head,
    author: Author<'_>,
    message: &str,
) -> Result<Oid, StoreError> {
    let git = StoreError::git("commit");
    let disk = repo.odb().map_err(git)?;
    let memory = git2::Odb::new().map_err(git)?;
    memory.add_new_mempack_backend(3).map_err(git)?;
    // The blobs of the bytes given, first, while the memory database has nothing else to look
    // in. Writing an object libgit2 does not find makes it re-read every backend it could
    // refresh — with the disk's packs, a `readdir` of the pack folder for each new blob —
    // whereas staging these bytes below then finds them here at once.
    for file in files {
        if let Some(bytes) = &file.content {
            memory.write(git2::ObjectType::Blob, bytes).map_err(git)?;
        }
    }
    let objects_dir = repo.commondir().join("objects");
    let objects_dir_str = objects_dir
        .to_str()
        .ok_or_else(|| git(git2::Error::from_str("the objects folder is not UTF-8")))?;
    memory.add_disk_alternate(objects_dir_str).map_err(git)?;
    repo.set_odb(&memory).map_err(git)?;
    let written = write_commit_objects(
        repo, &disk, trees, workdir, index, files, head, author, message,
    );
    // Back to the repository's own object database, whatever happened.
    repo.set_odb(&disk).map_err(git)?;
    let new = match written {
        Ok(Some(new)) => new,
        Ok(None) => return Ok(head.id),
        Err(e) => {
            // The blobs staged before the failure are named by the index: keep them on disk.
            let staged: Vec<Oid> = files
                .iter()
                .filter_map(|file| index.get_path(Path::new(&file.path), 0))
                .map(|entry| entry.id)
                .collect();
            let none = Built::default();
            if let Err(spill) = store_loose(&memory, &none, &disk, &staged) {
                tracing::error!(error = %spill, "keeping the staged blobs failed");
            }
            return Err(e);
        }
    };
    let stored = store_pack(&objects_dir.join("pack"), &memory, &new.built, &new.objects);
    if let Err(e) = stored {
        // The objects must be on disk before HEAD names them: loose, then.
        tracing::warn!(error = %e, "writing a pack failed; writing the objects loose");
        store_loose(&memory, &new.built, &disk, &new.objects).map_err(git)?;
    }
    fault::point("store.commit.before_ref");
    advance_head(repo, head.id, new.commit, message)?;
    trees.remember(&new.built, new.commit, new.tree);
    Ok(new.commit)
}

/// HEAD's commit and its tree.
#[derive(Debug, Clone, Copy)]
struct Head {
    id: Oid,
    tree: Oid,
}

/// The objects a packed commit adds.
struct NewObjects {
    commit: Oid,
    tree: Oid,
    /// Every object the commit may have added, sorted, each once.
    objects: Vec<Oid>,
    /// Those of them built as bytes; the others are in the memory database.
    built: Built,
}

/// Writes `objects` as one pack in `pack_dir`, each read from `built` or else `memory`.
fn store_pack(
    pack_dir: &Path,
    memory: &git2::Odb<'_>,
    built: &Built,
    objects: &[Oid],
) -> Result<(), git2::Error> {
    let mut pack = PackOut::create(pack_dir, objects.len())?;
    for id in objects {
        match built.get(id) {
            // Trees are stored as they are: they compress little (a third of each entry is
            // an id), a batch rewrites the large ones every time, and the packer compresses
            // them when it merges the pack.
            Some((ObjectType::Tree, data)) => pack.add_uncompressed(*id, ObjectType::Tree, data)?,
            Some((kind, data)) => pack.add(*id, kind, data)?,
            None => {
                let object = memory.read(*id)?;
                pack.add(*id, object.kind(), object.data())?;
            }
        }
    }
    pack.finish().map(|_| ())
}

/// Copies `objects` from `built` or `memory` (where they may only be in memory) to the
/// repository's object database on disk, as loose objects.
fn store_loose(
    memory: &git2::Odb<'_>,
    built: &Built,
    disk: &git2::Odb<'_>,
    objects: &[Oid],
) -> Result<(), git2::Error> {
    for id in objects {
        match built.get(id) {
            Some((kind, data)) => disk.write(kind, data)?,
            None => {
                let object = memory.read(*id)?;
                disk.write(object.kind(), object.data())?
            }
        };
    }
    Ok(())
}

/// Stages `files`, builds the tree and the commit object (not moving HEAD), and returns the
/// commit with every object it may have added: the staged blobs, the trees on the changed
/// paths, the commit. `None` when the tree is HEAD's.
#[allow(clippy::too_many_arguments)]
fn write_commit_objects(
    repo: &Repository,
    disk: &git2::Odb<'_>,
    trees: &mut TreeCache,
    workdir: &Path,
    index: &mut git2::Index,
    files: &[&PathChange],
    head: Head,
    author: Author<'_>,
    message: &str,
) -> Result<Option<NewObjects>, StoreError> {
    let git = StoreError::git("commit");
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    let unfiltered = Unfiltered::of(repo, index, &paths);
    let staged = stage(repo, workdir, index, files, unfiltered)?;
    let mut built = Built::default();
    let (tree, by_libgit2) = match built
        .updated_tree(disk, trees, head.tree, &staged)
        .map_err(git)?
    {
        Some(tree) => (tree, false),
        None => {
            let commit = repo.find_commit(head.id).map_err(git)?;
            (build_tree(repo, index, Some(&commit), &staged)?, true)
        }
    };
    if tree == head.tree {
        return Ok(None);
    }
    let sig = author_signature(author)?;
    let commit = built
        .commit(tree, head.id, &sig, &sig, message)
        .map_err(git)?;
    let mut objects: Vec<Oid> = staged.iter().filter_map(|(_, e)| e.map(|e| e.0)).collect();
    objects.extend(built.ids());
    if by_libgit2 {
        // The trees libgit2 wrote are in the memory database: those on the changed paths.
        let tree = repo.find_tree(tree).map_err(git)?;
        objects.push(tree.id());
        for (path, _) in &staged {
            let mut dir = Path::new(path).parent();
            while let Some(folder) = dir.filter(|d| !d.as_os_str().is_empty()) {
                if let Ok(entry) = tree.get_path(folder) {
                    objects.push(entry.id());
                }
                dir = folder.parent();
            }
        }
    }
    objects.sort();
    objects.dedup();
    Ok(Some(NewObjects {
        commit,
        tree,
        objects,
        built,
    }))
}

/// Moves the branch HEAD names (or a detached HEAD) from `parent` to `commit`, with the
/// reflog line git writes for a commit.
fn advance_head(
    repo: &Repository,
    parent: Oid,
    commit: Oid,
    message: &str,
) -> Result<(), StoreError> {
    let git = StoreError::git("commit");
    let head = repo.find_reference("HEAD").map_err(git)?;
    let name = head.symbolic_target().unwrap_or("HEAD").to_owned();
    let summary = message.lines().next().unwrap_or_default();
    repo.reference_matching(&name, commit, true, parent, &format!("commit: {summary}"))
        .map_err(git)?;
    Ok(())
}

fn author_signature(author: Author<'_>) -> Result<Signature<'static>, StoreError> {
    match author {
        Author::Actor(actor) => signature(actor),
        Author::Batch => Signature::now(trailer::BATCH_NAME, trailer::BATCH_EMAIL)
            .map_err(StoreError::git("signature")),
    }
}

/// HEAD's tree with the staged paths replaced or removed.
fn updated_tree(
    repo: &Repository,
    head: &Commit<'_>,
    staged: &[(&str, Option<(Oid, FileMode)>)],
) -> Result<Oid, git2::Error> {
    let base = head.tree()?;
    let mut update = TreeUpdateBuilder::new();
    for (path, entry) in staged {
        match entry {
            Some((id, mode)) => {
                update.upsert(*path, *id, *mode);
            }
            // libgit2 refuses to remove what is not there.
            None if base.get_path(Path::new(path)).is_ok() => {
                update.remove(*path);
            }
            None => {}
        }
    }
    update.create_updated(repo, &base)
}

fn file_mode(mode: u32) -> FileMode {
    match mode {
        0o100755 => FileMode::BlobExecutable,
        0o120000 => FileMode::Link,
        0o160000 => FileMode::Commit,
        _ => FileMode::Blob,
    }
}

pub(super) fn commit_tree(
    repo: &Repository,
    tree: Oid,
    actor: &str,
    message: &str,
    parent: Option<&Commit<'_>>,
) -> Result<Oid, StoreError> {
    commit_with(repo, tree, &signature(actor)?, message, parent)
}

fn commit_with(
    repo: &Repository,
    tree: Oid,
    sig: &Signature<'_>,
    message: &str,
    parent: Option<&Commit<'_>>,
) -> Result<Oid, StoreError> {
    let tree = repo.find_tree(tree).map_err(StoreError::git("commit"))?;
    let parents: Vec<&Commit<'_>> = parent.into_iter().collect();
    repo.commit(Some("HEAD"), sig, sig, message, &tree, &parents)
        .map_err(StoreError::git("commit"))
}

/// The name an actor has as a commit author: git refuses `<`, `>` and line breaks in names, so
/// those are dropped (and every other control character); blank is `anonymous`.
pub(crate) fn actor_name(actor: &str) -> String {
    let name: String = actor
        .chars()
        .filter(|c| !matches!(c, '<' | '>') && !c.is_control())
        .collect();
    // libgit2 trims these ("crud") from both ends of a name and refuses what is left empty.
    let crud = |c: char| c <= ' ' || matches!(c, '.' | ',' | ':' | ';' | '"' | '\\' | '\'');
    match name.trim() {
        trimmed if trimmed.trim_matches(crud).is_empty() => "anonymous".to_owned(),
        trimmed => trimmed.to_owned(),
    }
}

/// Author and committer for an actor: its [`actor_name`] and a made-up e-mail
/// `<name>@quire.local` (letters, digits, `.`, `-` and `_`; anything else becomes `-`).
pub(crate) fn signature(actor: &str) -> Result<Signature<'static>, StoreError> {
    let name = actor_name(actor);
    let local: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '-'
            }
        })
        .collect();
    Signature::now(&name, &format!("{local}@quire.local")).map_err(StoreError::git("signature"))
}

/// The commit HEAD names, without reading it (`None` before the first commit).
fn head_id(repo: &Repository) -> Result<Option<Oid>, StoreError> {
    match repo.head() {
        Ok(head) => match head.target() {
            Some(id) => Ok(Some(id)),
            None => head
                .peel_to_commit()
                .map(|c| Some(c.id()))
                .map_err(StoreError::git("head")),
        },
        Err(e) if matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => Ok(None),
        Err(e) => Err(StoreError::git("head")(e)),
    }
}

pub(super) fn head_commit(repo: &Repository) -> Result<Option<Commit<'_>>, StoreError> {
    match repo.head() {
        Ok(head) => head
            .peel_to_commit()
            .map(Some)
            .map_err(StoreError::git("head")),
        Err(e) if matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => Ok(None),
        Err(e) => Err(StoreError::git("head")(e)),
    }
}

/// Stages the file at `rel`. libgit2 takes the file's size from a `stat` and then reads that
/// many bytes: when a writer replaces the file in between (an async batch commits while the
/// next write of the same path lands), the read comes up short and the add fails. The file on
/// disk is always whole (writes are renames), so a fresh attempt stages a consistent version.
fn add_settled(index: &mut git2::Index, rel: &Path) -> Result<(), StoreError> {
    let mut attempt = 0;
    loop {
        match index.add_path(rel) {
            Ok(()) => return Ok(()),
            Err(e) if attempt < 3 && e.class() == git2::ErrorClass::Os => {
                tracing::debug!(path = %rel.display(), error = %e, "file changed while staged; again");
                attempt += 1;
            }
            Err(e) => return Err(StoreError::git("add")(e)),
        }
    }
}

#[cfg(test)]
mod actor_tests {
    #[test]
    fn an_actor_git_would_trim_to_nothing_signs_as_anonymous() {
        for actor in ["\\", "\"", ".", " ;, ", "'"] {
            assert_eq!(super::actor_name(actor), "anonymous", "{actor:?}");
            assert!(super::signature(actor).is_ok(), "{actor:?}");
        }
        assert_eq!(super::actor_name("ann"), "ann");
    }
}
