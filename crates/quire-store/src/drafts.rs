//! Drafts: changes kept apart from the knowledge root on a git branch of their own,
//! `refs/heads/drafts/<id>`, until they are merged or discarded.
//!
//! Everything here is git objects and refs, never files: a draft's writes are blobs, trees
//! and commits on its branch, so the root's work tree, its watcher, the index and `/tree`
//! never see them. The store's [`crate::History`] owns HEAD, `.git/index` and the work tree;
//! a [`DraftStore`] holds a repository handle of its own and touches only its own refs
//! (created, moved with compare-and-swap, deleted) and new objects, so it never races the
//! history's commit thread.
//!
//! A draft opens with an empty commit on the main branch's HEAD whose message carries the
//! trailer `Quire-Draft: <id>`: its author is the draft's actor, its time the creation time,
//! its parent the draft's base. Every write is one commit on the branch; the branch tip's
//! commit time is when the draft was last touched. Merging computes a three-way merge of
//! trees (base, main, draft) and hands the caller the files to write; the caller writes them
//! through its own pipeline (one commit on main) and then discards the branch.

use std::path::Path;
use std::sync::Mutex;

use git2::build::TreeUpdateBuilder;
use git2::{Commit, ErrorCode, FileMode, ObjectType, Oid, Repository, Tree};

use crate::error::StoreError;
use crate::history::{rfc3339, signature, unified_diff};
use crate::root::{Root, TreeNode};

/// Where draft branches live.
pub const DRAFT_REF_PREFIX: &str = "refs/heads/drafts/";

/// The trailer of a draft's opening commit.
const OPENED_TRAILER: &str = "Quire-Draft:";

/// How far back a draft's history is searched for its opening commit.
const MAX_DRAFT_COMMITS: usize = 100_000;

/// What a draft operation can refuse or fail at.
#[derive(Debug, thiserror::Error)]
pub enum DraftError {
    #[error("no draft {id}")]
    NoDraft { id: String },
    #[error("{path}: no such file in draft {id}")]
    NotFound { id: String, path: String },
    #[error("{path}: is a folder in draft {id}")]
    IsFolder { id: String, path: String },
    #[error("{path}: is not a folder in draft {id}")]
    NotFolder { id: String, path: String },
    #[error("{path}: a parent of this path is a file in draft {id}")]
    ParentIsFile { id: String, path: String },
    /// The `If-Match` the caller sent no longer names the draft's version of the file.
    #[error("{path} was modified in draft {id} since the last read (If-Match {expected} does not match the current ETag {current})")]
    Stale {
        id: String,
        path: String,
        expected: String,
        current: String,
    },
    /// The draft branch moved while this operation ran (another write to the same draft).
    #[error("draft {id} changed during this operation; try again")]
    Raced { id: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn git(action: &'static str) -> impl Fn(git2::Error) -> DraftError + Copy {
    move |source| DraftError::Store(StoreError::Git { action, source })
}

/// One draft as listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DraftInfo {
    pub id: String,
    /// The branch name (`drafts/<id>`).
    pub branch: String,
    /// Who opened it.
    pub actor: String,
    /// RFC 3339.
    pub created_at: String,
    /// When it was last written (RFC 3339), and the same as Unix seconds.
    pub updated_at: String,
    pub touched: i64,
    /// The main commit the draft started from (`None` when main had no commit yet).
    pub base: Option<String>,
    /// The branch tip.
    pub head: String,
}

/// How a file differs between the draft's base and the draft.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DraftAction {
    Added,
    Modified,
    Deleted,
}

impl DraftAction {
    pub fn as_str(self) -> &'static str {
        match self {
            DraftAction::Added => "added",
            DraftAction::Modified => "modified",
            DraftAction::Deleted => "deleted",
        }
    }
}

/// One file the draft changed since its base.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DraftChange {
    pub path: String,
    pub action: DraftAction,
    pub before: Option<Vec<u8>>,
    pub after: Option<Vec<u8>>,
}

impl DraftChange {
    /// The change as a unified diff headed `a/<path>` and `b/<path>`.
    pub fn unified_diff(&self) -> String {
        unified_diff(
            &self.path,
            self.before.as_deref().unwrap_or_default(),
            self.after.as_deref().unwrap_or_default(),
        )
    }
}

/// The outcome of [`DraftStore::merge`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Merge {
    /// The merge has no conflicts: these files of main must change (`content: None` deletes)
    /// for main to hold the merged tree. Empty when main already holds it.
    Clean { files: Vec<MergedFile> },
    /// Main and the draft both changed these paths in ways that do not merge.
    Conflicts { paths: Vec<String> },
}

/// One file of a clean merge, with the blob id main holds now (`None`: main has no such
/// file), which the writer checks against the work tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergedFile {
    pub path: String,
    pub content: Option<Vec<u8>>,
    pub main_etag: Option<String>,
}

/// The drafts of one root: a repository handle of its own, serialised by a lock.
pub struct DraftStore {
    repo: Mutex<Repository>,
}

impl DraftStore {
    /// Opens the drafts of `root`, whose git repository must exist (the history opens or
    /// creates it first).
    pub fn open(root: &Root) -> Result<DraftStore, StoreError> {
        let repo = Repository::open(root.dir()).map_err(StoreError::git("open"))?;
        Ok(DraftStore {
            repo: Mutex::new(repo),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Repository> {
        self.repo.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Opens draft `id` on main's HEAD as `actor`.
    pub fn create(&self, id: &str, actor: &str) -> Result<DraftInfo, DraftError> {
        let repo = self.lock();
        let refname = ref_name(id);
        if repo.find_reference(&refname).is_ok() {
            return Err(DraftError::Raced { id: id.into() });
        }
        let head = main_head(&repo)?;
        let tree = match &head {
            Some(commit) => commit.tree_id(),
            None => empty_tree(&repo)?,
        };
        let tree = repo.find_tree(tree).map_err(git("draft tree"))?;
        let sig = signature(actor)?;
        let message = format!("Open draft {id}\n\n{OPENED_TRAILER} {id}\n");
        let parents: Vec<&Commit<'_>> = head.iter().collect();
        let oid = repo
            .commit(None, &sig, &sig, &message, &tree, &parents)
            .map_err(git("draft commit"))?;
        repo.reference(&refname, oid, false, "quire: open draft")
            .map_err(git("draft branch"))?;
        info(&repo, id)
    }

    /// Every draft, oldest first.
    pub fn list(&self) -> Result<Vec<DraftInfo>, DraftError> {
        let repo = self.lock();
        let mut out = Vec::new();
        for id in draft_ids(&repo)? {
            match info(&repo, &id) {
                Ok(draft) => out.push(draft),
                Err(e) => tracing::warn!("draft {id} is skipped: {e}"),
            }
        }
        out.sort_by(|a, b| (&a.created_at, &a.id).cmp(&(&b.created_at, &b.id)));
        Ok(out)
    }

    /// One draft.
    pub fn info(&self, id: &str) -> Result<DraftInfo, DraftError> {
        info(&self.lock(), id)
    }

    /// A file of the draft: its bytes and blob id (its ETag).
    pub fn read(&self, id: &str, path: &str) -> Result<(Vec<u8>, String), DraftError> {
        let repo = self.lock();
        let tip = tip(&repo, id)?;
        let tree = tip.tree().map_err(git("draft tree"))?;
        match entry(&tree, path)? {
            Some((oid, ObjectType::Blob)) => {
                let blob = repo.find_blob(oid).map_err(git("draft read"))?;
                Ok((blob.content().to_vec(), oid.to_string()))
            }
            Some(_) => Err(DraftError::IsFolder {
                id: id.into(),
                path: path.into(),
            }),
            None => Err(DraftError::NotFound {
                id: id.into(),
                path: path.into(),
            }),
        }
    }

    /// Writes (`Some`) or deletes (`None`) a file of the draft as one commit on its branch,
    /// authored by `actor`. `expect` is the ETag the caller last read (`None`: no check).
    /// Returns the file's new ETag (`None` when deleted). Writing the bytes the draft already
    /// holds makes no commit.
    pub fn write(
        &self,
        id: &str,
        path: &str,
        content: Option<&[u8]>,
        expect: Option<&str>,
        actor: &str,
    ) -> Result<Option<String>, DraftError> {
        let repo = self.lock();
        let tip = tip(&repo, id)?;
        let tree = tip.tree().map_err(git("draft tree"))?;
        check_parents(&tree, id, path)?;
        let current = match entry(&tree, path)? {
            Some((oid, ObjectType::Blob)) => Some(oid),
            Some(_) => {
                return Err(DraftError::IsFolder {
                    id: id.into(),
                    path: path.into(),
                })
            }
            None => None,
        };
        if let Some(expected) = expect {
            if current.map(|c| c.to_string()).as_deref() != Some(expected) {
                return Err(DraftError::Stale {
                    id: id.into(),
                    path: path.into(),
                    expected: expected.into(),
                    current: current
                        .map_or_else(|| "none: the file does not exist".into(), |c| c.to_string()),
                });
            }
        }
        let mut update = TreeUpdateBuilder::new();
        let (verb, new) = match (content, current) {
            (Some(bytes), current) => {
                let blob = repo.blob(bytes).map_err(git("draft blob"))?;
                if current == Some(blob) {
                    return Ok(Some(blob.to_string()));
                }
                update.upsert(path, blob, FileMode::Blob);
                let verb = if current.is_some() {
                    "Update"
                } else {
                    "Create"
                };
                (verb, Some(blob.to_string()))
            }
            (None, Some(_)) => {
                update.remove(path);
                ("Delete", None)
            }
            (None, None) => {
                return Err(DraftError::NotFound {
                    id: id.into(),
                    path: path.into(),
                })
            }
        };
        let new_tree = update
            .create_updated(&repo, &tree)
            .map_err(git("draft tree update"))?;
        let new_tree = repo.find_tree(new_tree).map_err(git("draft tree"))?;
        let sig = signature(actor)?;
        let message = format!("{verb} {path}\n\n{OPENED_TRAILER} {id}\n");
        let oid = repo
            .commit(None, &sig, &sig, &message, &new_tree, &[&tip])
            .map_err(git("draft commit"))?;
        repo.reference_matching(&ref_name(id), oid, true, tip.id(), "quire: draft write")
            .map_err(|e| match e.code() {
                ErrorCode::Modified | ErrorCode::NotFound | ErrorCode::Locked => {
                    DraftError::Raced { id: id.into() }
                }
                _ => git("draft branch")(e),
            })?;
        Ok(new)
    }

    /// The folder tree of the draft below `under` (everything when `None`), leaving out
    /// names starting with `.` as the root's tree does.
    pub fn tree(&self, id: &str, under: Option<&str>) -> Result<Vec<TreeNode>, DraftError> {
        let repo = self.lock();
        let tip = tip(&repo, id)?;
        let tree = tip.tree().map_err(git("draft tree"))?;
        let (tree, prefix) = match under {
            None => (tree, String::new()),
            Some(rel) => match entry(&tree, rel)? {
                Some((oid, ObjectType::Tree)) => (
                    repo.find_tree(oid).map_err(git("draft tree"))?,
                    format!("{rel}/"),
                ),
                Some(_) => {
                    return Err(DraftError::NotFolder {
                        id: id.into(),
                        path: rel.into(),
                    })
                }
                None => {
                    return Err(DraftError::NotFound {
                        id: id.into(),
                        path: rel.into(),
                    })
                }
            },
        };
        list_tree(&repo, &tree, &prefix)
    }

    /// Every file the draft changed since its base, by path.
    pub fn changes(&self, id: &str) -> Result<Vec<DraftChange>, DraftError> {
        let repo = self.lock();
        let tip = tip(&repo, id)?;
        let opened = opening(id, &tip)?;
        let base = base_tree(&repo, &opened)?;
        let tree = tip.tree().map_err(git("draft tree"))?;
        let diff = repo
            .diff_tree_to_tree(Some(&base), Some(&tree), None)
            .map_err(git("draft diff"))?;
        let mut out = Vec::new();
        for delta in diff.deltas() {
            let path = delta_path(&delta);
            let read = |oid: Oid| -> Result<Option<Vec<u8>>, DraftError> {
                if oid.is_zero() {
                    return Ok(None);
                }
                let blob = repo.find_blob(oid).map_err(git("draft read"))?;
                Ok(Some(blob.content().to_vec()))
            };
            let before = read(delta.old_file().id())?;
            let after = read(delta.new_file().id())?;
            let action = match (&before, &after) {
                (None, _) => DraftAction::Added,
                (_, None) => DraftAction::Deleted,
                _ => DraftAction::Modified,
            };
            out.push(DraftChange {
                path,
                action,
                before,
                after,
            });
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    /// Merges the draft into main's HEAD as trees: base (where the draft started), main and
    /// the draft. Nothing is written; a clean merge lists the files main must change.
    pub fn merge(&self, id: &str) -> Result<Merge, DraftError> {
        let repo = self.lock();
        let tip = tip(&repo, id)?;
        let opened = opening(id, &tip)?;
        let base = base_tree(&repo, &opened)?;
        let main = match main_head(&repo)? {
            Some(commit) => commit.tree().map_err(git("main tree"))?,
            None => repo
                .find_tree(empty_tree(&repo)?)
                .map_err(git("main tree"))?,
        };
        let draft = tip.tree().map_err(git("draft tree"))?;
        let merged = if base.id() == main.id() {
            draft
        } else {
            let mut index = repo
                .merge_trees(&base, &main, &draft, None)
                .map_err(git("merge"))?;
            if index.has_conflicts() {
                let mut paths = Vec::new();
                for conflict in index.conflicts().map_err(git("merge"))? {
                    let conflict = conflict.map_err(git("merge"))?;
                    let entry = conflict
                        .our
                        .or(conflict.their)
                        .or(conflict.ancestor)
                        .map(|e| String::from_utf8_lossy(&e.path).into_owned());
                    if let Some(path) = entry {
                        if !paths.contains(&path) {
                            paths.push(path);
                        }
                    }
                }
                paths.sort();
                return Ok(Merge::Conflicts { paths });
            }
            let oid = index.write_tree_to(&repo).map_err(git("merge tree"))?;
            repo.find_tree(oid).map_err(git("merge tree"))?
        };
        let diff = repo
            .diff_tree_to_tree(Some(&main), Some(&merged), None)
            .map_err(git("merge diff"))?;
        let mut files = Vec::new();
        for delta in diff.deltas() {
            let old = delta.old_file().id();
            let new = delta.new_file().id();
            let content = if new.is_zero() {
                None
            } else {
                Some(
                    repo.find_blob(new)
                        .map_err(git("merge read"))?
                        .content()
                        .to_vec(),
                )
            };
            files.push(MergedFile {
                path: delta_path(&delta),
                content,
                main_etag: (!old.is_zero()).then(|| old.to_string()),
            });
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(Merge::Clean { files })
    }

    /// Deletes the draft's branch.
    pub fn discard(&self, id: &str) -> Result<(), DraftError> {
        let repo = self.lock();
        let mut reference = repo
            .find_reference(&ref_name(id))
            .map_err(|_| DraftError::NoDraft { id: id.into() })?;
        reference.delete().map_err(git("draft delete"))
    }

    /// Discards every draft whose branch tip is older than `cutoff` (Unix seconds); returns
    /// their ids.
    pub fn discard_untouched(&self, cutoff: i64) -> Result<Vec<String>, DraftError> {
        let repo = self.lock();
        let mut gone = Vec::new();
        for id in draft_ids(&repo)? {
            let Ok(tip) = tip(&repo, &id) else { continue };
            if tip.time().seconds() < cutoff {
                if let Ok(mut reference) = repo.find_reference(&ref_name(&id)) {
                    reference.delete().map_err(git("draft delete"))?;
                    gone.push(id);
                }
            }
        }
        Ok(gone)
    }
}

fn ref_name(id: &str) -> String {
    format!("{DRAFT_REF_PREFIX}{id}")
}

/// The ids of every draft branch.
fn draft_ids(repo: &Repository) -> Result<Vec<String>, DraftError> {
    let mut ids = Vec::new();
    let refs = repo
        .references_glob(&format!("{DRAFT_REF_PREFIX}*"))
        .map_err(git("draft list"))?;
    for reference in refs {
        let reference = reference.map_err(git("draft list"))?;
        if let Some(id) = reference
            .name()
            .and_then(|n| n.strip_prefix(DRAFT_REF_PREFIX))
        {
            ids.push(id.to_owned());
        }
    }
    Ok(ids)
}

fn main_head(repo: &Repository) -> Result<Option<Commit<'_>>, DraftError> {
    match repo.head() {
        Ok(head) => Ok(Some(head.peel_to_commit().map_err(git("head"))?)),
        Err(e) if matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => Ok(None),
        Err(e) => Err(git("head")(e)),
    }
}

fn empty_tree(repo: &Repository) -> Result<Oid, DraftError> {
    repo.treebuilder(None)
        .and_then(|b| b.write())
        .map_err(git("empty tree"))
}

fn tip<'r>(repo: &'r Repository, id: &str) -> Result<Commit<'r>, DraftError> {
    repo.find_reference(&ref_name(id))
        .and_then(|r| r.peel_to_commit())
        .map_err(|_| DraftError::NoDraft { id: id.into() })
}

/// The draft's opening commit: the first-parent ancestor of `tip` carrying its trailer (the
/// oldest commit of the branch when none does).
fn opening<'r>(id: &str, tip: &Commit<'r>) -> Result<Commit<'r>, DraftError> {
    let trailer = format!("{OPENED_TRAILER} {id}");
    let mut commit = tip.clone();
    for _ in 0..MAX_DRAFT_COMMITS {
        if commit
            .message()
            .is_some_and(|m| m.starts_with("Open draft ") && m.contains(&trailer))
        {
            return Ok(commit);
        }
        match commit.parent(0) {
            Ok(parent) => commit = parent,
            Err(_) => return Ok(commit),
        }
    }
    Ok(commit)
}

/// The tree the draft started from: the opening commit's parent's (empty without one).
fn base_tree<'r>(repo: &'r Repository, opened: &Commit<'r>) -> Result<Tree<'r>, DraftError> {
    match opened.parent(0) {
        Ok(parent) => parent.tree().map_err(git("base tree")),
        Err(_) => repo.find_tree(empty_tree(repo)?).map_err(git("base tree")),
    }
}

fn info(repo: &Repository, id: &str) -> Result<DraftInfo, DraftError> {
    let tip = tip(repo, id)?;
    let opened = opening(id, &tip)?;
    let author = opened.author();
    let created = author.when();
    let actor = author.name().unwrap_or("").to_owned();
    let updated = tip.time();
    Ok(DraftInfo {
        id: id.to_owned(),
        branch: format!("drafts/{id}"),
        actor,
        created_at: rfc3339(created.seconds(), created.offset_minutes()),
        updated_at: rfc3339(updated.seconds(), updated.offset_minutes()),
        touched: updated.seconds(),
        base: opened.parent_id(0).ok().map(|p| p.to_string()),
        head: tip.id().to_string(),
    })
}

/// The object at `path` in `tree`, with its kind.
fn entry(tree: &Tree<'_>, path: &str) -> Result<Option<(Oid, ObjectType)>, DraftError> {
    match tree.get_path(Path::new(path)) {
        Ok(entry) => Ok(Some((entry.id(), entry.kind().unwrap_or(ObjectType::Any)))),
        Err(e) if e.code() == ErrorCode::NotFound => Ok(None),
        Err(e) => Err(git("draft lookup")(e)),
    }
}

/// Refuses a path one of whose parents is a file in the draft.
fn check_parents(tree: &Tree<'_>, id: &str, path: &str) -> Result<(), DraftError> {
    let mut end = 0;
    while let Some(slash) = path[end..].find('/') {
        end += slash;
        match entry(tree, &path[..end])? {
            Some((_, ObjectType::Tree)) => {}
            Some(_) => {
                return Err(DraftError::ParentIsFile {
                    id: id.into(),
                    path: path.into(),
                })
            }
            None => return Ok(()),
        }
        end += 1;
    }
    Ok(())
}

fn delta_path(delta: &git2::DiffDelta<'_>) -> String {
    delta
        .new_file()
        .path()
        .or_else(|| delta.old_file().path())
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .unwrap_or_default()
}

fn list_tree(
    repo: &Repository,
    tree: &Tree<'_>,
    prefix: &str,
) -> Result<Vec<TreeNode>, DraftError> {
    let odb = repo.odb().map_err(git("draft tree"))?;
    let mut nodes = Vec::new();
    for entry in tree.iter() {
        let Some(name) = entry.name() else { continue };
        if name.starts_with('.') {
            continue;
        }
        let path = format!("{prefix}{name}");
        match entry.kind() {
            Some(ObjectType::Tree) => {
                let sub = repo.find_tree(entry.id()).map_err(git("draft tree"))?;
                let children = list_tree(repo, &sub, &format!("{path}/"))?;
                nodes.push(TreeNode {
                    path,
                    name: name.to_owned(),
                    is_dir: true,
                    size: 0,
                    children: Some(children),
                });
            }
            Some(ObjectType::Blob) => {
                let (size, _) = odb.read_header(entry.id()).map_err(git("draft tree"))?;
                nodes.push(TreeNode {
                    path,
                    name: name.to_owned(),
                    is_dir: false,
                    size: size as u64,
                    children: None,
                });
            }
            _ => {}
        }
    }
    nodes.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(nodes)
}
