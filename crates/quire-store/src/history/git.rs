//! Git history: one repository per root, one commit per record (or per batch).
//!
//! Opening makes the work tree clean (first import, recovery of changes made outside quire);
//! committing is [`Repo`]'s job; this module answers the history queries: versions, content at
//! a version, diff, blame and the change feed, all along first-parent history.

use std::fs;
use std::path::Path;
use std::sync::Arc;

use git2::{
    BlameOptions, Commit, DiffOptions, ErrorCode, IndexAddOption, Oid, Repository, Sort,
    StatusOptions,
};

use super::batch::{Batch, Batcher};
use super::repo::{commit_tree, head_commit, IndexSave, IndexSaver, Repo};
use super::{
    check_id, rfc3339, unified_diff, BlameLine, Change, ChangeAction, ChangesPage, CommitFile,
    CommitFiles, HistoryOptions, Recorded, VersionEntry,
};
use crate::error::StoreError;
use crate::root::Root;

/// Author of the commits quire makes on its own (first import, recovery at open).
const SYSTEM_ACTOR: &str = "quire";

/// Runtime state that must never be committed; excluded through `.git/info/exclude` so no
/// committed `.gitignore` is needed.
const STATE_EXCLUDE: &str = "/.quire/state/";

pub(crate) struct GitHistory {
    repo: Arc<Repo>,
    /// Async commits. Declared before `saver`: dropping it commits what is still queued.
    batcher: Option<Batcher>,
    /// Deferred `.git/index` saves of synchronous commits; dropping it saves what is left.
    saver: Option<IndexSaver>,
}

impl GitHistory {
    pub(crate) fn open(root: &Root, opts: &HistoryOptions) -> Result<GitHistory, StoreError> {
        let repo = open_or_init(root.dir())?;
        ensure_excluded(&repo)?;
        compact_index(&repo)?;
        commit_outside_changes(&repo)?;
        let repo = Arc::new(Repo::new(repo));
        let (batcher, saver) = if opts.async_commit {
            let batcher = Batcher::start(
                Arc::clone(&repo),
                opts.batch_window,
                opts.batch_max_size.max(1),
            );
            (Some(batcher), None)
        } else {
            (None, Some(IndexSaver::start(Arc::clone(&repo))))
        };
        Ok(GitHistory {
            repo,
            batcher,
            saver,
        })
    }

    pub(crate) fn record(
        &self,
        changes: Vec<(String, ChangeAction)>,
        actor: &str,
        message: &str,
    ) -> Result<Recorded, StoreError> {
        match &self.batcher {
            Some(batcher) => {
                batcher.enqueue(Batch {
                    actor: actor.to_owned(),
                    messages: vec![message.to_owned()],
                    changes,
                });
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
        changes: Vec<(String, ChangeAction)>,
        actor: &str,
        message: &str,
    ) -> Result<Recorded, StoreError> {
        if let Some(batcher) = &self.batcher {
            batcher.flush()?;
        }
        let oid = self.repo.commit(&changes, actor, message, IndexSave::Now)?;
        Ok(Recorded::Committed(oid.to_string()))
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
            Some(batcher) => batcher.flush(),
            None => self.repo.save_index(),
        }
    }

    pub(crate) fn head(&self) -> Option<String> {
        self.repo.with_lock(|state| {
            head_commit(&state.repo)
                .ok()
                .flatten()
                .map(|c| c.id().to_string())
        })
    }

    pub(crate) fn versions(&self, path: &str) -> Result<Vec<VersionEntry>, StoreError> {
        self.flush()?;
        self.repo.with_lock(|state| {
            let repo = &state.repo;
            let Some(head) = head_commit(repo)? else {
                return Ok(Vec::new());
            };
            let mut out = Vec::new();
            for commit in first_parent_walk(repo, &head)? {
                let commit = commit?;
                let now = entry_id(&commit, path);
                let before = commit.parent(0).ok().and_then(|p| entry_id(&p, path));
                if now != before {
                    out.push(version_entry(&commit));
                }
            }
            Ok(out)
        })
    }

    pub(crate) fn version(&self, path: &str, id: &str) -> Result<Vec<u8>, StoreError> {
        self.flush()?;
        self.repo.with_lock(|state| {
            let repo = &state.repo;
            let commit = find_commit(repo, path, id)?;
            blob_at(repo, &commit, path)?.ok_or_else(|| {
                StoreError::version_not_found(path, id, "the file does not exist in that version")
            })
        })
    }

    pub(crate) fn diff(&self, path: &str, from: &str, to: &str) -> Result<String, StoreError> {
        self.flush()?;
        self.repo.with_lock(|state| {
            let repo = &state.repo;
            let old = find_commit(repo, path, from)?;
            let new = find_commit(repo, path, to)?;
            let old = blob_at(repo, &old, path)?.unwrap_or_default();
            let new = blob_at(repo, &new, path)?.unwrap_or_default();
            Ok(unified_diff(path, &old, &new))
        })
    }

    pub(crate) fn blame(&self, path: &str) -> Result<Vec<BlameLine>, StoreError> {
        self.flush()?;
        self.repo.with_lock(|state| {
            let repo = &state.repo;
            let not_found = || StoreError::NotFound { path: path.into() };
            let head = head_commit(repo)?.ok_or_else(not_found)?;
            let content = blob_at(repo, &head, path)?.ok_or_else(not_found)?;
            let mut opts = BlameOptions::new();
            opts.newest_commit(head.id());
            let blame = repo
                .blame_file(Path::new(path), Some(&mut opts))
                .map_err(StoreError::git("blame"))?;
            let text = String::from_utf8_lossy(&content);
            let mut out = Vec::new();
            for (i, line) in text.lines().enumerate() {
                let Some(hunk) = blame.get_line(i + 1) else {
                    continue;
                };
                let sig = hunk.final_signature();
                out.push(BlameLine {
                    line: i + 1,
                    content: line.to_owned(),
                    hash: hunk.final_commit_id().to_string(),
                    author: String::from_utf8_lossy(sig.name_bytes()).into_owned(),
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
    let repo = match Repository::open(dir) {
        Ok(repo) => repo,
        Err(e) if e.code() == ErrorCode::NotFound => {
            tracing::info!(root = %dir.display(), "initialising a git repository");
            Repository::init(dir).map_err(StoreError::git("init"))?
        }
        Err(e) => return Err(StoreError::git("open")(e)),
    };
    let workdir = repo.workdir().and_then(|w| fs::canonicalize(w).ok());
    if workdir.as_deref() != Some(dir) {
        return Err(StoreError::BadRoot {
            dir: dir.to_path_buf(),
            reason: "its git repository has no work tree at the root".into(),
        });
    }
    Ok(repo)
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

/// Commits whatever differs between the work tree and HEAD (files edited while quire was not
/// running, or written but not committed before a crash), and makes the first commit of a
/// fresh repository. Afterwards `git status` is clean.
fn commit_outside_changes(repo: &Repository) -> Result<(), StoreError> {
    let unborn = head_commit(repo)?.is_none();
    let mut opts = StatusOptions::new();
    opts.include_untracked(true)
        .recurse_untracked_dirs(true)
        .include_ignored(false)
        .exclude_submodules(true);
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

fn version_entry(commit: &Commit<'_>) -> VersionEntry {
    let author = commit.author();
    VersionEntry {
        hash: commit.id().to_string(),
        author: String::from_utf8_lossy(author.name_bytes()).into_owned(),
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
        out.push(Change {
            seq: seq.clone(),
            path: String::from_utf8_lossy(path).into_owned(),
            action,
            actor: actor.clone(),
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
