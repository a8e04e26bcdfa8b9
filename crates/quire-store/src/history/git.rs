//! Git history: one repository per root, one commit per record (or per batch).
//!
//! Opening makes the work tree clean (first import, recovery of changes made outside quire);
//! committing is [`Repo`]'s job; this module answers the history queries: versions, content at
//! a version, diff, blame and the change feed, all along first-parent history.

use std::collections::HashMap;
use std::fs;
use std::path::Path;
use std::sync::Arc;

use git2::{
    BlameOptions, Commit, DiffOptions, ErrorCode, IndexAddOption, Oid, Repository, Sort,
    StatusOptions,
};

use super::batch::{Backlog, Batcher, Bounds};
use super::packs::Packer;
use super::repo::{commit_tree, head_commit, IndexSave, IndexSaver, Repo};
use super::{
    check_id, rfc3339, trailer, unified_diff, BlameLine, Change, ChangeAction, ChangesPage,
    CommitFile, CommitFiles, HistoryOptions, PathChange, Recorded, VersionEntry,
};
use crate::error::StoreError;
use crate::lock::WriterLock;
use crate::root::Root;
use crate::seen::{BlobId, FileStat, SeenFiles};

/// Author of the commits quire makes on its own (first import, recovery at open).
const SYSTEM_ACTOR: &str = "quire";

/// Runtime state that must never be committed; excluded through `.git/info/exclude` so no
/// committed `.gitignore` is needed.
const STATE_EXCLUDE: &str = "/.quire/state/";

/// A repository opened whose work tree has not been scanned yet.
pub(crate) struct OpeningGit {
    repo: Repository,
    /// Taken before the caller read the files it reports as seen: files whose change time is
    /// older (on the same device) have not been written since.
    stamp: Option<FileStat>,
}

impl OpeningGit {
    /// Commits what changed outside quire (see [`commit_outside_changes`]) and starts the
    /// committing threads.
    pub(crate) fn finish(
        self,
        opts: &HistoryOptions,
        seen: &SeenFiles,
    ) -> Result<GitHistory, StoreError> {
        let known = Known {
            seen,
            stamp: self.stamp,
        };
        commit_outside_changes(&self.repo, &known)?;
        let git_dir = self.repo.path().to_path_buf();
        let repo = Arc::new(Repo::new(self.repo));
        let stats = Arc::clone(&repo.stats);
        let packer = Some(Packer::start(git_dir, move || stats.read().count));
        // `.git/index` is saved at most every `INDEX_SAVE_DELAY` during bursts, with or
        // without batching; `flush` and every history query save it at once.
        let saver = IndexSaver::start(Arc::clone(&repo));
        let save = if saver.running() {
            IndexSave::Deferred
        } else {
            IndexSave::Now
        };
        let batcher = opts
            .async_commit
            .then(|| Batcher::start(Arc::clone(&repo), Bounds::of(opts), save));
        let saver = Some(saver);
        Ok(GitHistory {
            repo,
            batcher,
            saver,
            _packer: packer,
        })
    }
}

/// The blob ids of files read since the repository was opened, and when that was.
struct Known<'a> {
    seen: &'a SeenFiles,
    stamp: Option<FileStat>,
}

impl Known<'_> {
    /// The id of the file `rel` (whose stat data is now `meta`) as read earlier, when that
    /// read is provably still the file's content: the stat data is unchanged, and its change
    /// time is older than the stamp (so no write happened after the stamp, and the read came
    /// after it).
    fn id_of(&self, rel: &str, meta: &fs::Metadata) -> Option<Oid> {
        let stamp = self.stamp.as_ref()?;
        let (stat, id) = self.seen.get(rel)?;
        let trusted =
            *stat == FileStat::of(meta) && stat.dev == stamp.dev && stat.ctime < stamp.ctime;
        trusted.then(|| Oid::from_bytes(id.as_bytes()).ok())?
    }
}

pub(crate) struct GitHistory {
    repo: Arc<Repo>,
    /// Async commits. Declared before `saver`: dropping it commits what is still queued.
    batcher: Option<Batcher>,
    /// Deferred `.git/index` saves of synchronous commits; dropping it saves what is left.
    saver: Option<IndexSaver>,
    /// Merges packs and packs loose objects when commits pause (never for a read-only
    /// history). Declared last: it stops after the last commits.
    _packer: Option<Packer>,
}

impl GitHistory {
    /// Opens (or creates) the repository; [`OpeningGit::finish`] then makes the work tree
    /// clean.
    pub(crate) fn begin_open(root: &Root, lock: &WriterLock) -> Result<OpeningGit, StoreError> {
        let repo = open_or_init(root.dir())?;
        ensure_excluded(&repo)?;
        compact_index(&repo)?;
        Ok(OpeningGit {
            repo,
            stamp: lock.file_stat(),
        })
    }

    /// Opens an existing repository for history queries only: no initialisation, no status
    /// scan, no write to `.git/` (nothing is ever committed or saved through it). `None` when
    /// the root has no repository yet.
    pub(crate) fn open_read_only(root: &Root) -> Result<Option<GitHistory>, StoreError> {
        let Some(repo) = open_existing(root.dir())? else {
            return Ok(None);
        };
        Ok(Some(GitHistory {
            repo: Arc::new(Repo::new(repo)),
            batcher: None,
            saver: None,
            _packer: None,
        }))
    }

    pub(crate) fn record(
        &self,
        changes: Vec<PathChange>,
        actor: &str,
        message: &str,
    ) -> Result<Recorded, StoreError> {
        match &self.batcher {
            Some(batcher) => {
                batcher.enqueue(actor, message, changes)?;
                Ok(Recorded::Queued)
            }
            None => {
                let save = match &self.saver {
                    Some(saver) if saver.running() => IndexSave::Deferred,
                    _ => IndexSave::Now,
                };
                let oid = self.repo.commit(&changes, actor, message, save)?;
                Ok(Recorded::Committed(oid.to_string()))
            }
        }
    }

    /// One commit now, whatever the batching: what is queued is committed first, so this
    /// commit holds exactly `changes` and its id can be returned.
    pub(crate) fn record_now(
        &self,
        changes: Vec<PathChange>,
        actor: &str,
        message: &str,
    ) -> Result<Recorded, StoreError> {
        if let Some(batcher) = &self.batcher {
            batcher.flush()?;
        }
        let oid = self.repo.commit(&changes, actor, message, IndexSave::Now)?;
        Ok(Recorded::Committed(oid.to_string()))
    }

    /// Moves HEAD from `from` to `to` once what is queued is committed (see
    /// [`crate::History::adopt`]).
    pub(crate) fn adopt(&self, paths: &[&str], from: &str, to: &str) -> Result<(), StoreError> {
        if let Some(batcher) = &self.batcher {
            batcher.flush()?;
        }
        let id = |text: &str| Oid::from_str(text).map_err(StoreError::git("adopt"));
        self.repo.adopt(paths, id(from)?, id(to)?)
    }

    /// Whether `commit_others_before` and `record` of a write of `paths` by `actor` return
    /// at once: the write is queued for a batch commit, with no commit made first.
    pub(crate) fn records_at_once(&self, paths: &[&str], actor: &str) -> bool {
        self.batcher
            .as_ref()
            .is_some_and(|batcher| batcher.queues_at_once(paths, actor))
    }

    /// Before `actor` overwrites paths another actor's queued write still holds, that write
    /// is committed, so every actor's version stays in history.
    pub(crate) fn commit_others_before(
        &self,
        paths: &[&str],
        actor: &str,
    ) -> Result<(), StoreError> {
        match &self.batcher {
            Some(batcher) if batcher.queued_by_other(paths, actor) => batcher.flush(),
            _ => Ok(()),
        }
    }

    /// The files a commit changed against its first parent, with their bytes before and
    /// their blob ids after.
    pub(crate) fn commit_files(&self, id: &str) -> Result<CommitFiles, StoreError> {
        self.flush()?;
        self.repo.with_lock(|state| {
            let repo = &state.repo;
            let commit = find_any_commit(repo, id)?;
            let tree = commit.tree().map_err(StoreError::git("read commit"))?;
            let parent = commit.parent(0).ok();
            let parent_tree = match &parent {
                Some(p) => Some(p.tree().map_err(StoreError::git("read commit"))?),
                None => None,
            };
            let diff = repo
                .diff_tree_to_tree(parent_tree.as_ref(), Some(&tree), None)
                .map_err(StoreError::git("diff"))?;
            let mut files = Vec::new();
            for delta in diff.deltas() {
                let old = delta.old_file();
                let new = delta.new_file();
                let path = new
                    .path()
                    .or_else(|| old.path())
                    .and_then(|p| p.to_str())
                    .unwrap_or_default()
                    .to_string();
                let before = if old.id().is_zero() {
                    None
                } else {
                    let blob = repo
                        .find_blob(old.id())
                        .map_err(StoreError::git("read blob"))?;
                    Some(blob.content().to_vec())
                };
                let after = (!new.id().is_zero()).then(|| new.id().to_string());
                files.push(CommitFile {
                    path,
                    before,
                    after,
                });
            }
            files.sort_by(|a, b| a.path.cmp(&b.path));
            Ok(CommitFiles {
                id: commit.id().to_string(),
                parent: parent.map(|p| p.id().to_string()),
                message: commit.message().unwrap_or_default().to_string(),
                files,
            })
        })
    }

    /// Commits what is queued and saves a deferred index, so that git (and a `git status` in
    /// the root) sees every recorded change.
    pub(crate) fn flush(&self) -> Result<(), StoreError> {
        match &self.batcher {
            Some(batcher) => {
                batcher.flush()?;
                self.repo.save_index()
            }
            None => self.repo.save_index(),
        }
    }

    /// The writes recorded but not committed yet (none without async batching).
    pub(crate) fn commit_metrics(&self) -> super::repo::CommitMetrics {
        self.repo.stats.read()
    }

    pub(crate) fn backlog(&self) -> Backlog {
        self.batcher
            .as_ref()
            .map_or_else(Backlog::default, Batcher::backlog)
    }

    pub(crate) fn head(&self) -> Option<String> {
        self.repo.with_lock(|state| {
            head_commit(&state.repo)
                .ok()
                .flatten()
                .map(|c| c.id().to_string())
        })
    }

    // The queries take the name git holds the file under, which differs from its path when
    // the name on disk is not NFC, and the path for messages and diff headers.

    pub(crate) fn versions(&self, name: &str) -> Result<Vec<VersionEntry>, StoreError> {
        self.flush()?;
        self.repo.with_lock(|state| {
            let repo = &state.repo;
            let Some(head) = head_commit(repo)? else {
                return Ok(Vec::new());
            };
            let mut out = Vec::new();
            for commit in first_parent_walk(repo, &head)? {
                let commit = commit?;
                let now = entry_id(&commit, name);
                let before = commit.parent(0).ok().and_then(|p| entry_id(&p, name));
                if now != before {
                    out.push(version_entry(&commit, name));
                }
            }
            Ok(out)
        })
    }

    pub(crate) fn version(&self, path: &str, name: &str, id: &str) -> Result<Vec<u8>, StoreError> {
        self.flush()?;
        self.repo.with_lock(|state| {
            let repo = &state.repo;
            let commit = find_commit(repo, path, id)?;
            blob_at(repo, &commit, name)?.ok_or_else(|| {
                StoreError::version_not_found(path, id, "the file does not exist in that version")
            })
        })
    }

    pub(crate) fn diff(
        &self,
        path: &str,
        name: &str,
        from: &str,
        to: &str,
    ) -> Result<String, StoreError> {
        self.flush()?;
        self.repo.with_lock(|state| {
            let repo = &state.repo;
            let old = find_commit(repo, path, from)?;
            let new = find_commit(repo, path, to)?;
            let old = blob_at(repo, &old, name)?.unwrap_or_default();
            let new = blob_at(repo, &new, name)?.unwrap_or_default();
            Ok(unified_diff(path, &old, &new))
        })
    }

    pub(crate) fn blame(&self, path: &str, name: &str) -> Result<Vec<BlameLine>, StoreError> {
        self.flush()?;
        self.repo.with_lock(|state| {
            let repo = &state.repo;
            let not_found = || StoreError::NotFound { path: path.into() };
            let head = head_commit(repo)?.ok_or_else(not_found)?;
            let content = blob_at(repo, &head, name)?.ok_or_else(not_found)?;
            let mut opts = BlameOptions::new();
            opts.newest_commit(head.id());
            let blame = repo
                .blame_file(Path::new(name), Some(&mut opts))
                .map_err(StoreError::git("blame"))?;
            let text = String::from_utf8_lossy(&content);
            // The actor of the file in each batch commit of several actors, read once.
            let mut batch_actors: HashMap<Oid, Option<String>> = HashMap::new();
            let mut out = Vec::new();
            for (i, line) in text.lines().enumerate() {
                let Some(hunk) = blame.get_line(i + 1) else {
                    continue;
                };
                let sig = hunk.final_signature();
                let id = hunk.final_commit_id();
                let mut author = String::from_utf8_lossy(sig.name_bytes()).into_owned();
                if trailer::is_batch(&sig) {
                    // The hunk's path in its final commit is the blamed file's name.
                    let actor = batch_actors.entry(id).or_insert_with(|| {
                        let commit = repo.find_commit(id).ok()?;
                        Some(trailer::actor_of(&commit, name))
                    });
                    if let Some(actor) = actor {
                        author.clone_from(actor);
                    }
                }
                out.push(BlameLine {
                    line: i + 1,
                    content: line.to_owned(),
                    hash: id.to_string(),
                    author,
                    timestamp: rfc3339(sig.when().seconds(), sig.when().offset_minutes()),
                });
            }
            Ok(out)
        })
    }

    pub(crate) fn changes(
        &self,
        since: Option<&str>,
        limit: usize,
    ) -> Result<ChangesPage, StoreError> {
        self.flush()?;
        self.repo.with_lock(|state| {
            let repo = &state.repo;
            let Some(head) = head_commit(repo)? else {
                return Ok(ChangesPage {
                    changes: Vec::new(),
                    last_seq: None,
                });
            };
            match since {
                None => newest_changes(repo, &head, limit),
                Some(since) => changes_after(repo, &head, since, limit),
            }
        })
    }
}

fn open_or_init(dir: &Path) -> Result<Repository, StoreError> {
    if let Some(repo) = open_existing(dir)? {
        return Ok(repo);
    }
    tracing::info!(root = %dir.display(), "initialising a git repository");
    let repo = Repository::init(dir).map_err(StoreError::git("init"))?;
    check_workdir(&repo, dir)?;
    Ok(repo)
}

/// The root's repository; `None` when it has none.
fn open_existing(dir: &Path) -> Result<Option<Repository>, StoreError> {
    let repo = match Repository::open(dir) {
        Ok(repo) => repo,
        Err(e) if e.code() == ErrorCode::NotFound => return Ok(None),
        Err(e) => return Err(StoreError::git("open")(e)),
    };
    check_workdir(&repo, dir)?;
    Ok(Some(repo))
}

fn check_workdir(repo: &Repository, dir: &Path) -> Result<(), StoreError> {
    let workdir = repo.workdir().and_then(|w| fs::canonicalize(w).ok());
    if workdir.as_deref() != Some(dir) {
        return Err(StoreError::BadRoot {
            dir: dir.to_path_buf(),
            reason: "its git repository has no work tree at the root".into(),
        });
    }
    Ok(())
}

/// Removes the lock files a git process killed mid-write leaves behind (`index.lock`,
/// `HEAD.lock`, `packed-refs.lock`, `config.lock` and every `*.lock` under `refs/`), which would
/// make every later commit fail. Only the holder of the root's writer lock calls this: no other
/// quire process can be writing the repository, so any lock file there is stale. (A git
/// command run by hand at this very moment would lose its lock: the decision record says why
/// that is accepted.)
pub(crate) fn remove_stale_locks(dir: &Path) -> Result<(), StoreError> {
    let repo = match Repository::open(dir) {
        Ok(repo) => repo,
        Err(e) if e.code() == ErrorCode::NotFound => return Ok(()),
        Err(e) => return Err(StoreError::git("open")(e)),
    };
    // A linked work tree keeps its index and HEAD apart from the shared refs and config.
    let (own, common) = (repo.path(), repo.commondir());
    let mut stale = vec![
        own.join("index.lock"),
        own.join("HEAD.lock"),
        common.join("packed-refs.lock"),
        common.join("config.lock"),
    ];
    if own != common {
        stale.push(common.join("HEAD.lock"));
    }
    lock_files_below(&common.join("refs"), &mut stale)?;
    for path in stale {
        match fs::remove_file(&path) {
            Ok(()) => tracing::warn!(
                file = %path.display(),
                "removed a stale git lock file (left by a process killed while writing)"
            ),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(StoreError::io(path.display().to_string(), e)),
        }
    }
    Ok(())
}

/// Every `*.lock` file below `dir`, not following symbolic links.
fn lock_files_below(dir: &Path, out: &mut Vec<std::path::PathBuf>) -> Result<(), StoreError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(StoreError::io(dir.display().to_string(), e)),
    };
    for entry in entries {
        let entry = entry.map_err(|e| StoreError::io(dir.display().to_string(), e))?;
        let Ok(file_type) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if file_type.is_dir() {
            lock_files_below(&path, out)?;
        } else if file_type.is_file() && path.extension().is_some_and(|e| e == "lock") {
            out.push(path);
        }
    }
    Ok(())
}

/// Adds `/.quire/state/` to `.git/info/exclude` unless it is there already.
fn ensure_excluded(repo: &Repository) -> Result<(), StoreError> {
    let info = repo.path().join("info");
    let path = info.join("exclude");
    let shown = path.display().to_string();
    let current = match fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(StoreError::io(shown, e)),
    };
    let present = current
        .lines()
        .map(str::trim)
        .any(|l| l == STATE_EXCLUDE || l == ".quire/state/" || l == ".quire/state");
    if present {
        return Ok(());
    }
    let mut text = current;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str("# quire runtime state (derived, never committed)\n");
    text.push_str(STATE_EXCLUDE);
    text.push('\n');
    fs::create_dir_all(&info).map_err(|e| StoreError::io(shown.clone(), e))?;
    fs::write(&path, text).map_err(|e| StoreError::io(shown, e))
}

/// Switches the index to version 4, whose prefix-compressed paths make it about a third
/// smaller. The whole index is rewritten (and hashed) on every commit, so its size is the
/// largest per-commit cost in a big repository. Git reads version 4 since 1.8.
fn compact_index(repo: &Repository) -> Result<(), StoreError> {
    let mut index = repo.index().map_err(StoreError::git("index"))?;
    if index.version() != 4 {
        index.set_version(4).map_err(StoreError::git("index"))?;
        index.write().map_err(StoreError::git("index write"))?;
    }
    Ok(())
}

/// Refreshes the stat data of index entries whose file was touched but not changed (a copied
/// or restored root: every file's times and inode differ). libgit2's status scan would hash
/// each such file too, but it first looks up attribute files for every one (a `realpath` per
/// folder level), which costs several times the hashing. Here each file whose stat data
/// differs is read and hashed as a blob on every core — unless `known` has its id from a read
/// since the repository was opened — and when the id is the entry's, the entry takes the
/// file's stat data. Files that changed are left for the status scan.
///
/// Git's "racy clean" rule counts an entry whose file is not older than the index file as
/// possibly changed (a write in the same instant keeps size and times), and libgit2 hashes
/// those again, with the same look-ups, when it writes the index. So entries not older than
/// the index are checked here too — a changed one is marked (size 0) for the status scan to
/// find — and then the index file's time is moved to now: none is racy any more.
fn refresh_stat_data(repo: &Repository, known: &Known<'_>) -> Result<(), StoreError> {
    use std::os::unix::fs::MetadataExt;

    let workdir = repo
        .workdir()
        .ok_or_else(|| StoreError::git("index")(git2::Error::from_str("bare repository")))?
        .to_path_buf();
    let index_file = repo.path().join("index");
    let stamp = fs::metadata(&index_file)
        .map(|m| (m.mtime(), m.mtime_nsec()))
        .map_err(|e| StoreError::git("index")(git2::Error::from_str(&e.to_string())))?;
    // The index as it is on disk, read after its time moved (so its stamp is now).
    fs::File::options()
        .append(true)
        .open(&index_file)
        .and_then(|f| f.set_modified(std::time::SystemTime::now()))
        .map_err(|e| StoreError::git("index")(git2::Error::from_str(&e.to_string())))?;
    let mut index = repo.index().map_err(StoreError::git("index"))?;
    index.read(true).map_err(StoreError::git("index read"))?;
    let mut refreshed: Vec<git2::IndexEntry> = Vec::new();
    // Touched files whose content is not known: read and hashed below.
    let mut unknown: Vec<(git2::IndexEntry, fs::Metadata)> = Vec::new();
    for e in index.iter().filter(|e| (e.flags >> 12) & 0x3 == 0) {
        let Ok(rel) = std::str::from_utf8(&e.path) else {
            continue;
        };
        let Ok(meta) = fs::symlink_metadata(workdir.join(rel)) else {
            continue;
        };
        if !meta.is_file() {
            continue;
        }
        let same = meta.len() == u64::from(e.file_size)
            && meta.mtime() == i64::from(e.mtime.seconds())
            && meta.mtime_nsec() == i64::from(e.mtime.nanoseconds())
            && meta.ctime() == i64::from(e.ctime.seconds())
            && meta.ctime_nsec() == i64::from(e.ctime.nanoseconds())
            && meta.ino() as u32 == e.ino;
        let racy = (
            i64::from(e.mtime.seconds()),
            i64::from(e.mtime.nanoseconds()),
        ) >= stamp;
        if same && !racy {
            continue;
        }
        match known.id_of(rel, &meta) {
            Some(id) if id == e.id => refreshed.push(with_stat(&e, &meta)),
            Some(_) => refreshed.push(smudged(&e)),
            None => unknown.push((e, meta)),
        }
    }
    let read = unknown.len();
    refreshed.extend(hash_entries(&workdir, &unknown));
    if refreshed.is_empty() {
        return Ok(());
    }
    for entry in &refreshed {
        index.add(entry).map_err(StoreError::git("index"))?;
    }
    index.write().map_err(StoreError::git("index write"))?;
    tracing::debug!(
        files = refreshed.len(),
        read,
        "refreshed the index's stat data"
    );
    Ok(())
}

/// Reads and hashes the files of `stale` on every core: each entry with the file's stat data
/// when its id is the entry's, else marked for the status scan.
fn hash_entries(
    workdir: &Path,
    stale: &[(git2::IndexEntry, fs::Metadata)],
) -> Vec<git2::IndexEntry> {
    if stale.is_empty() {
        return Vec::new();
    }
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    let chunk = stale.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = stale
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .filter_map(|(entry, meta)| {
                            let rel = std::str::from_utf8(&entry.path).ok()?;
                            let same_size = meta.len() == u64::from(entry.file_size);
                            let bytes = if same_size {
                                fs::read(workdir.join(rel)).ok()
                            } else {
                                None
                            };
                            let id = bytes
                                .map(|b| BlobId::of(&b))
                                .and_then(|id| Oid::from_bytes(id.as_bytes()).ok());
                            Some(match id {
                                Some(id) if id == entry.id => with_stat(entry, meta),
                                // Changed (or unreadable): the status scan must hash it.
                                _ => smudged(entry),
                            })
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_default())
            .collect()
    })
}

/// `entry` marked as possibly changed: a size no file has, so the status scan hashes it.
fn smudged(entry: &git2::IndexEntry) -> git2::IndexEntry {
    let mut entry = clone_entry(entry);
    entry.file_size = 0;
    entry
}

fn clone_entry(entry: &git2::IndexEntry) -> git2::IndexEntry {
    git2::IndexEntry {
        ctime: entry.ctime,
        mtime: entry.mtime,
        dev: entry.dev,
        ino: entry.ino,
        mode: entry.mode,
        uid: entry.uid,
        gid: entry.gid,
        file_size: entry.file_size,
        id: entry.id,
        flags: entry.flags,
        flags_extended: entry.flags_extended,
        path: entry.path.clone(),
    }
}

/// `entry` with the stat data of `meta`.
fn with_stat(entry: &git2::IndexEntry, meta: &fs::Metadata) -> git2::IndexEntry {
    use std::os::unix::fs::MetadataExt;

    let time = |secs: i64, nanos: i64| git2::IndexTime::new(secs as i32, nanos as u32);
    git2::IndexEntry {
        ctime: time(meta.ctime(), meta.ctime_nsec()),
        mtime: time(meta.mtime(), meta.mtime_nsec()),
        dev: meta.dev() as u32,
        ino: meta.ino() as u32,
        mode: entry.mode,
        uid: meta.uid(),
        gid: meta.gid(),
        file_size: meta.len() as u32,
        id: entry.id,
        flags: entry.flags,
        flags_extended: entry.flags_extended,
        path: entry.path.clone(),
    }
}

/// Commits whatever differs between the work tree and HEAD (files edited while quire was not
/// running, or written but not committed before a crash), and makes the first commit of a
/// fresh repository. Afterwards `git status` is clean.
///
/// The status scan compares each file's stat data with the index and hashes the files whose
/// stat data differs (touched, copied or restored files; an index written by another tool).
/// It writes the refreshed stat data back to `.git/index` (`update_index`), so those files are
/// hashed once, not at every start.
fn commit_outside_changes(repo: &Repository, known: &Known<'_>) -> Result<(), StoreError> {
    let unborn = head_commit(repo)?.is_none();
    if !unborn {
        if let Err(e) = refresh_stat_data(repo, known) {
            // Only a shortcut: the status scan below hashes what this did not refresh.
            tracing::debug!(error = %e, "refreshing the index's stat data failed");
        }
    }
    let mut opts = StatusOptions::new();
    opts.include_untracked(true)
        .recurse_untracked_dirs(true)
        .include_ignored(false)
        .exclude_submodules(true)
        .update_index(true);
    let dirty = !repo
        .statuses(Some(&mut opts))
        .map_err(StoreError::git("status"))?
        .is_empty();
    if !unborn && !dirty {
        return Ok(());
    }
    let mut index = repo.index().map_err(StoreError::git("index"))?;
    index
        .add_all(["*"], IndexAddOption::DEFAULT, None)
        .map_err(StoreError::git("add"))?;
    index
        .update_all(["*"], None)
        .map_err(StoreError::git("add"))?;
    index.write().map_err(StoreError::git("index write"))?;
    let message = if unborn {
        "Initial commit of existing files"
    } else {
        "Record changes made outside quire\n\nThe work tree differed from HEAD when quire started \
         (files edited while it was not running, or a write interrupted before its commit)."
    };
    let tree = index.write_tree().map_err(StoreError::git("write tree"))?;
    let parent = head_commit(repo)?;
    if parent.as_ref().is_some_and(|p| p.tree_id() == tree) {
        // Only `.git/index` was behind (a crash before a deferred save): now it is not.
        return Ok(());
    }
    let oid = commit_tree(repo, tree, SYSTEM_ACTOR, message, parent.as_ref())?;
    tracing::info!(commit = %oid, "committed changes found at startup");
    Ok(())
}

/// The object id of a path in a commit's tree, if present.
fn entry_id(commit: &Commit<'_>, path: &str) -> Option<Oid> {
    let tree = commit.tree().ok()?;
    tree.get_path(Path::new(path)).ok().map(|e| e.id())
}

/// The content of a file in a commit; `None` when the commit has no file there.
fn blob_at(
    repo: &Repository,
    commit: &Commit<'_>,
    path: &str,
) -> Result<Option<Vec<u8>>, StoreError> {
    let tree = commit.tree().map_err(StoreError::git("read tree"))?;
    let entry = match tree.get_path(Path::new(path)) {
        Ok(entry) => entry,
        Err(e) if e.code() == ErrorCode::NotFound => return Ok(None),
        Err(e) => return Err(StoreError::git("read tree")(e)),
    };
    if entry.kind() != Some(git2::ObjectType::Blob) {
        return Ok(None);
    }
    let blob = repo
        .find_blob(entry.id())
        .map_err(StoreError::git("read blob"))?;
    Ok(Some(blob.content().to_vec()))
}

/// Resolves a full or abbreviated commit id typed by a user.
fn find_commit<'r>(repo: &'r Repository, path: &str, id: &str) -> Result<Commit<'r>, StoreError> {
    check_id(path, id)?;
    let found = if id.len() == 40 {
        Oid::from_str(id).and_then(|oid| repo.find_commit(oid))
    } else {
        repo.find_commit_by_prefix(id)
    };
    found.map_err(|e| {
        let reason = match e.code() {
            ErrorCode::NotFound => "no commit has this id".to_owned(),
            ErrorCode::Ambiguous => "the abbreviated id matches several objects".to_owned(),
            _ => format!("not a commit ({})", e.message()),
        };
        StoreError::version_not_found(path, id, reason)
    })
}

/// The version of `name` a commit made: its author is the actor of that file (the trailer of a
/// batch commit of several actors, else the commit's author).
fn version_entry(commit: &Commit<'_>, name: &str) -> VersionEntry {
    let author = commit.author();
    VersionEntry {
        hash: commit.id().to_string(),
        author: trailer::actor_of(commit, name),
        message: String::from_utf8_lossy(commit.message_bytes())
            .trim_end()
            .to_owned(),
        timestamp: rfc3339(author.when().seconds(), author.when().offset_minutes()),
    }
}

/// The files one commit changed against its first parent, in path order.
fn commit_changes(repo: &Repository, commit: &Commit<'_>) -> Result<Vec<Change>, StoreError> {
    let tree = commit.tree().map_err(StoreError::git("diff"))?;
    let parent_tree = match commit.parent(0) {
        Ok(parent) => Some(parent.tree().map_err(StoreError::git("diff"))?),
        Err(_) => None,
    };
    let mut opts = DiffOptions::new();
    opts.ignore_submodules(true);
    let diff = repo
        .diff_tree_to_tree(parent_tree.as_ref(), Some(&tree), Some(&mut opts))
        .map_err(StoreError::git("diff"))?;
    let author = commit.author();
    let actor = String::from_utf8_lossy(author.name_bytes()).into_owned();
    // A batch commit of several actors names each file's actor in a trailer.
    let file_actors = trailer::actors(commit);
    let timestamp = rfc3339(author.when().seconds(), author.when().offset_minutes());
    let seq = commit.id().to_string();
    let mut out = Vec::new();
    for delta in diff.deltas() {
        let (file, action) = match delta.status() {
            git2::Delta::Deleted => (delta.old_file(), ChangeAction::Delete),
            _ => (delta.new_file(), ChangeAction::Write),
        };
        let Some(path) = file.path_bytes() else {
            continue;
        };
        // The feed names paths, which are NFC; git holds names as they are on disk (and the
        // trailers name them so).
        let path = String::from_utf8_lossy(path);
        let path_actor = file_actors
            .as_ref()
            .and_then(|actors| actors.get(path.as_ref()))
            .unwrap_or(&actor)
            .clone();
        let path =
            quire_vault::PagePath::new(&path).map_or_else(|_| path.into_owned(), |p| p.to_string());
        out.push(Change {
            seq: seq.clone(),
            path,
            action,
            actor: path_actor,
            timestamp: timestamp.clone(),
        });
    }
    Ok(out)
}

fn first_parent_walk<'r>(
    repo: &'r Repository,
    head: &Commit<'_>,
) -> Result<impl Iterator<Item = Result<Commit<'r>, StoreError>> + 'r, StoreError> {
    let mut walk = repo.revwalk().map_err(StoreError::git("log"))?;
    walk.set_sorting(Sort::NONE)
        .map_err(StoreError::git("log"))?;
    walk.push(head.id()).map_err(StoreError::git("log"))?;
    walk.simplify_first_parent()
        .map_err(StoreError::git("log"))?;
    Ok(walk.map(move |oid| {
        oid.and_then(|oid| repo.find_commit(oid))
            .map_err(StoreError::git("log"))
    }))
}

/// The newest `limit` changes, oldest first; `last_seq` is HEAD.
fn newest_changes(
    repo: &Repository,
    head: &Commit<'_>,
    limit: usize,
) -> Result<ChangesPage, StoreError> {
    let mut newest_first: Vec<Change> = Vec::new();
    if limit > 0 {
        for commit in first_parent_walk(repo, head)? {
            let mut changes = commit_changes(repo, &commit?)?;
            changes.reverse();
            newest_first.extend(changes);
            if newest_first.len() >= limit {
                break;
            }
        }
    }
    newest_first.truncate(limit);
    newest_first.reverse();
    Ok(ChangesPage {
        changes: newest_first,
        last_seq: Some(head.id().to_string()),
    })
}

/// The changes of whole commits after `since`, oldest first, up to `limit` (at least one
/// commit).
fn changes_after(
    repo: &Repository,
    head: &Commit<'_>,
    since: &str,
    limit: usize,
) -> Result<ChangesPage, StoreError> {
    let since_commit = find_commit(repo, "changes", since)?;
    let mut after = Vec::new();
    let mut found = false;
    for commit in first_parent_walk(repo, head)? {
        let commit = commit?;
        if commit.id() == since_commit.id() {
            found = true;
            break;
        }
        after.push(commit);
    }
    if !found {
        return Err(StoreError::version_not_found(
            "changes",
            since,
            "the commit is not in the history of HEAD",
        ));
    }
    let mut changes = Vec::new();
    let mut last = since_commit.id();
    for commit in after.iter().rev() {
        if limit == 0 {
            break;
        }
        let batch = commit_changes(repo, commit)?;
        if last != since_commit.id() && changes.len() + batch.len() > limit {
            break;
        }
        changes.extend(batch);
        last = commit.id();
    }
    Ok(ChangesPage {
        changes,
        last_seq: Some(last.to_string()),
    })
}

/// A commit by full or abbreviated id, whatever paths it touched.
fn find_any_commit<'r>(repo: &'r Repository, id: &str) -> Result<Commit<'r>, StoreError> {
    let not_found = |reason: &str| StoreError::VersionNotFound {
        path: String::new(),
        version: id.to_string(),
        reason: reason.to_string(),
    };
    let object = repo
        .revparse_single(id)
        .map_err(|_| not_found("no commit has this id"))?;
    object
        .peel_to_commit()
        .map_err(|_| not_found("this id is not a commit"))
}

/// Whether HEAD holds exactly the after-state of a journaled change (its commit landed).
pub(crate) fn head_holds(dir: &Path, entries: &[crate::journal::JournalEntry]) -> bool {
    let Ok(repo) = Repository::open(dir) else {
        return false;
    };
    let Ok(tree) = repo.head().and_then(|h| h.peel_to_tree()) else {
        return false;
    };
    entries.iter().all(|entry| {
        let now = tree
            .get_path(Path::new(&entry.path))
            .ok()
            .map(|e| e.id().to_string());
        now == entry.after
    })
}
