//! Backups: the root's history pushed to a branch of a git remote (`[backup]`).
//!
//! Everything here is git objects and refs, never files or HEAD: a [`BackupRemote`] holds a
//! repository handle of its own (like the drafts) and touches only the refs under
//! [`BACKUP_REF_PREFIX`] and new objects. Fetching brings the remote branch into
//! `refs/quire/backup/remote`; when the remote moved ahead, [`BackupRemote::integrate`]
//! replays this root's commits onto it as new commits (three-way merges of trees, the
//! commits' authors, times and messages kept) and answers the commit the root must move to
//! and the files that change on the way. Moving the root there is the history's job
//! ([`crate::History::adopt`]), done by the caller's write pipeline, so the work tree, the
//! index and HEAD change under the root's one writer. A replay that conflicts changes
//! nothing: the caller reports it and pushes nothing.
//!
//! Only local remotes are reachable (a path or a `file://` URL): the git library is built
//! without TLS and SSH, and a backup is not sent in clear over `http://` or `git://`.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use git2::{
    Commit, ErrorCode, FetchOptions, ObjectType, Oid, PushOptions, RemoteCallbacks, Repository,
    Sort,
};

use crate::error::StoreError;
use crate::root::Root;

/// The refs a backup keeps in the root's repository.
pub const BACKUP_REF_PREFIX: &str = "refs/quire/backup/";

/// Where the remote branch is fetched to.
const FETCHED_REF: &str = "refs/quire/backup/remote";

/// What is pushed (the commit the round decided on; HEAD may move meanwhile).
const PUSHED_REF: &str = "refs/quire/backup/head";

/// Why a backup round did not reach its end.
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    /// Fetching from or pushing to the remote failed (unreachable, not a repository, refused).
    #[error("{action} {remote}: {message}")]
    Remote {
        action: &'static str,
        remote: String,
        message: String,
    },
    /// The remote branch holds commits this root lacks and may not rebase onto them
    /// (`rebase_before_push = false`): pushing would overwrite them.
    #[error(
        "the branch {branch} of {remote} has commits this root does not have: nothing was \
         pushed (rebase_before_push is off, and a push never overwrites the remote's commits)"
    )]
    Diverged { remote: String, branch: String },
    /// Replaying this root's commits onto the remote's changed the same files differently.
    #[error(
        "the branch {branch} of {remote} changed {} as this root did: nothing was pushed or \
         changed here; merge the two by hand (the remote's commits are fetched to {FETCHED_REF})",
        paths.join(", ")
    )]
    Conflict {
        remote: String,
        branch: String,
        paths: Vec<String>,
    },
    /// The remote branch shares no commit with the root: it is some other repository's
    /// history, which a backup never merges in (as git refuses unrelated histories).
    #[error(
        "the branch {branch} of {remote} holds a history unrelated to this root's: nothing was \
         pushed or changed here (point the backup at an empty repository or another branch)"
    )]
    Unrelated { remote: String, branch: String },
    /// The remote's commits hold something quire does not write into a root (a symbolic
    /// link, an executable, a submodule, a name that is no page path).
    #[error(
        "the branch {branch} of {remote} holds {path}, {what}: nothing was pushed or changed here"
    )]
    Unsupported {
        remote: String,
        branch: String,
        path: String,
        what: String,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn git(action: &'static str) -> impl Fn(git2::Error) -> BackupError + Copy {
    move |source| BackupError::Store(StoreError::Git { action, source })
}

/// Whether this build can push to `remote`, and the URL libgit2 is given (a relative path
/// resolved against `base`). Only local repositories qualify.
pub fn remote_url(remote: &str, base: &Path) -> Result<String, String> {
    let remote = remote.trim();
    if let Some(path) = remote.strip_prefix("file://") {
        if !path.starts_with('/') {
            return Err(format!(
                "{remote:?} is not an absolute file:// URL (write file:///path/to/repo.git)"
            ));
        }
        return Ok(remote.to_string());
    }
    let scheme = remote.split_once("://").map(|(s, _)| s);
    let scp_like = scheme.is_none()
        && remote
            .split_once(':')
            .is_some_and(|(host, _)| !host.contains('/') && !host.is_empty());
    if scheme.is_some() || scp_like {
        return Err(format!(
            "{remote:?} is not a local repository: this build pushes backups only to a path or a \
             file:// URL (its git library has no TLS or SSH, and a backup is not sent unencrypted \
             over http:// or git://); push from a local bare repository with git, or mount the \
             remote"
        ));
    }
    let path = Path::new(remote);
    let absolute: PathBuf = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    };
    Ok(absolute.display().to_string())
}

/// Whether `branch` can name a branch (`refs/heads/<branch>`).
pub fn check_branch(branch: &str) -> Result<(), String> {
    if git2::Reference::is_valid_name(&format!("refs/heads/{branch}")) {
        Ok(())
    } else {
        Err(format!("{branch:?} is not a valid git branch name"))
    }
}

/// A file that changes when the root moves from one commit to another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MovedFile {
    /// The path in the repository (also the page path: only NFC names are accepted).
    pub path: String,
    /// The blob id before (absent when the move creates the file).
    pub before: Option<String>,
    /// The bytes after (absent when the move deletes the file).
    pub after: Option<Vec<u8>>,
}

/// What the remote branch is, compared with the root's HEAD.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Integration {
    /// The remote holds nothing the root lacks (it is HEAD, behind it, or has no branch yet):
    /// push HEAD.
    Push,
    /// The root must move to `to` before pushing: the remote's tip (it only moved ahead) or
    /// the root's commits replayed onto it. `files` is what changes in the work tree.
    Move {
        to: String,
        /// The remote's tip the root's commits were replayed onto.
        onto: String,
        /// The root's commits replayed, oldest first, each with its new id.
        rewritten: Vec<(String, String)>,
        files: Vec<MovedFile>,
    },
}

/// The remote of one root's backups, through a repository handle of its own.
pub struct BackupRemote {
    repo: Mutex<Repository>,
    url: String,
    branch: String,
}

impl BackupRemote {
    /// The backup of `root` (whose repository must exist) to `branch` of the repository at
    /// `url` (see [`remote_url`]).
    pub fn open(root: &Root, url: &str, branch: &str) -> Result<BackupRemote, BackupError> {
        check_branch(branch).map_err(|message| BackupError::Remote {
            action: "push to",
            remote: url.to_string(),
            message,
        })?;
        let repo = Repository::open(root.dir()).map_err(git("open"))?;
        Ok(BackupRemote {
            repo: Mutex::new(repo),
            url: url.to_string(),
            branch: branch.to_string(),
        })
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn branch(&self) -> &str {
        &self.branch
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Repository> {
        self.repo.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn remote_error(&self, action: &'static str) -> impl Fn(git2::Error) -> BackupError + '_ {
        move |e| BackupError::Remote {
            action,
            remote: self.url.clone(),
            message: e.message().to_string(),
        }
    }

    /// Fetches the remote branch; its tip, or `None` when the remote has no such branch yet.
    pub fn fetch(&self) -> Result<Option<String>, BackupError> {
        let repo = self.lock();
        // A tip fetched earlier must not stand in for a branch the remote no longer has.
        if let Ok(mut stale) = repo.find_reference(FETCHED_REF) {
            stale.delete().map_err(git("backup ref"))?;
        }
        let mut remote = repo
            .remote_anonymous(&self.url)
            .map_err(self.remote_error("fetch from"))?;
        let refspec = format!("+refs/heads/{}:{FETCHED_REF}", self.branch);
        let mut opts = FetchOptions::new();
        opts.download_tags(git2::AutotagOption::None);
        remote
            .fetch(&[refspec.as_str()], Some(&mut opts), None)
            .map_err(self.remote_error("fetch from"))?;
        match repo.refname_to_id(FETCHED_REF) {
            Ok(id) => Ok(Some(id.to_string())),
            Err(e) if e.code() == ErrorCode::NotFound => Ok(None),
            Err(e) => Err(git("backup ref")(e)),
        }
    }

    /// How the root at `head` stands to the fetched `remote` tip. With `rebase`, the root's
    /// commits the remote lacks are replayed onto the remote's tip (in objects only: nothing
    /// in the work tree, the index or HEAD changes); without, a remote that moved ahead is
    /// [`BackupError::Diverged`].
    pub fn integrate(
        &self,
        head: &str,
        remote: &str,
        rebase: bool,
    ) -> Result<Integration, BackupError> {
        let repo = self.lock();
        let head = oid(head)?;
        let remote_id = oid(remote)?;
        if head == remote_id
            || repo
                .graph_descendant_of(head, remote_id)
                .map_err(git("backup ancestry"))?
        {
            return Ok(Integration::Push);
        }
        match repo.merge_base(head, remote_id) {
            Ok(_) => {}
            Err(e) if e.code() == ErrorCode::NotFound => {
                return Err(BackupError::Unrelated {
                    remote: self.url.clone(),
                    branch: self.branch.clone(),
                })
            }
            Err(e) => return Err(git("backup ancestry")(e)),
        }
        if !rebase {
            return Err(BackupError::Diverged {
                remote: self.url.clone(),
                branch: self.branch.clone(),
            });
        }
        let onto = repo.find_commit(remote_id).map_err(git("backup read"))?;
        let mut tip = onto.clone();
        let mut rewritten = Vec::new();
        for local in self.local_commits(&repo, head, remote_id)? {
            let local = repo.find_commit(local).map_err(git("backup read"))?;
            if local.parent_count() > 1 {
                return Err(BackupError::Unsupported {
                    remote: self.url.clone(),
                    branch: self.branch.clone(),
                    path: local.id().to_string(),
                    what: "a merge commit of this root, which a rebase cannot replay".into(),
                });
            }
            let replayed = self.replay(&repo, &local, &tip)?;
            if let Some(commit) = replayed {
                rewritten.push((local.id().to_string(), commit.id().to_string()));
                tip = commit;
            }
        }
        let files = self.moved_files(&repo, head, tip.id())?;
        Ok(Integration::Move {
            to: tip.id().to_string(),
            onto: remote_id.to_string(),
            rewritten,
            files,
        })
    }

    /// The root's commits the remote lacks, oldest first.
    fn local_commits(
        &self,
        repo: &Repository,
        head: Oid,
        remote: Oid,
    ) -> Result<Vec<Oid>, BackupError> {
        let mut walk = repo.revwalk().map_err(git("backup walk"))?;
        walk.set_sorting(Sort::TOPOLOGICAL | Sort::REVERSE)
            .map_err(git("backup walk"))?;
        walk.push(head).map_err(git("backup walk"))?;
        walk.hide(remote).map_err(git("backup walk"))?;
        walk.collect::<Result<Vec<_>, _>>()
            .map_err(git("backup walk"))
    }

    /// `local`'s change (against its parent) made on top of `tip`, as a new commit with
    /// `local`'s author, committer and message; `None` when `tip` already holds the change.
    fn replay<'r>(
        &self,
        repo: &'r Repository,
        local: &Commit<'_>,
        tip: &Commit<'r>,
    ) -> Result<Option<Commit<'r>>, BackupError> {
        let base = match local.parent(0) {
            Ok(parent) => parent.tree().map_err(git("backup read"))?,
            Err(_) => {
                let empty = repo
                    .treebuilder(None)
                    .and_then(|b| b.write())
                    .map_err(git("backup tree"))?;
                repo.find_tree(empty).map_err(git("backup tree"))?
            }
        };
        let ours = tip.tree().map_err(git("backup read"))?;
        let theirs = local.tree().map_err(git("backup read"))?;
        let mut index = repo
            .merge_trees(&base, &ours, &theirs, None)
            .map_err(git("backup merge"))?;
        if index.has_conflicts() {
            let mut paths = Vec::new();
            for conflict in index.conflicts().map_err(git("backup merge"))? {
                let conflict = conflict.map_err(git("backup merge"))?;
                let entry = conflict.our.or(conflict.their).or(conflict.ancestor);
                if let Some(entry) = entry {
                    let path = String::from_utf8_lossy(&entry.path).into_owned();
                    if !paths.contains(&path) {
                        paths.push(path);
                    }
                }
            }
            paths.sort();
            return Err(BackupError::Conflict {
                remote: self.url.clone(),
                branch: self.branch.clone(),
                paths,
            });
        }
        let tree_id = index.write_tree_to(repo).map_err(git("backup tree"))?;
        if tree_id == ours.id() {
            return Ok(None);
        }
        let tree = repo.find_tree(tree_id).map_err(git("backup tree"))?;
        let message = local.message_raw().unwrap_or_default();
        let id = repo
            .commit(
                None,
                &local.author(),
                &local.committer(),
                message,
                &tree,
                &[tip],
            )
            .map_err(git("backup commit"))?;
        Ok(Some(repo.find_commit(id).map_err(git("backup read"))?))
    }

    /// The files that differ between the trees of two commits, with the new bytes. Anything
    /// quire would not write into a root (a symbolic link, an executable, a submodule, a name
    /// that is not NFC) is [`BackupError::Unsupported`].
    fn moved_files(
        &self,
        repo: &Repository,
        from: Oid,
        to: Oid,
    ) -> Result<Vec<MovedFile>, BackupError> {
        let old = repo
            .find_commit(from)
            .and_then(|c| c.tree())
            .map_err(git("backup read"))?;
        let new = repo
            .find_commit(to)
            .and_then(|c| c.tree())
            .map_err(git("backup read"))?;
        let diff = repo
            .diff_tree_to_tree(Some(&old), Some(&new), None)
            .map_err(git("backup diff"))?;
        let mut files = Vec::new();
        for delta in diff.deltas() {
            let (old_file, new_file) = (delta.old_file(), delta.new_file());
            let path = new_file
                .path()
                .or_else(|| old_file.path())
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default();
            let unsupported = |what: &str| BackupError::Unsupported {
                remote: self.url.clone(),
                branch: self.branch.clone(),
                path: path.clone(),
                what: what.to_string(),
            };
            let nfc = quire_vault::PagePath::new(&path)
                .map(|p| p.as_str() == path)
                .unwrap_or(false);
            if !nfc {
                return Err(unsupported("a name that is not a page path in NFC"));
            }
            for side in [&old_file, &new_file] {
                if side.id().is_zero() {
                    continue;
                }
                match side.mode() {
                    git2::FileMode::Blob => {}
                    git2::FileMode::BlobExecutable => return Err(unsupported("an executable")),
                    git2::FileMode::Link => return Err(unsupported("a symbolic link")),
                    _ => return Err(unsupported("a submodule")),
                }
            }
            let after = if new_file.id().is_zero() {
                None
            } else {
                let blob = repo
                    .find_object(new_file.id(), Some(ObjectType::Blob))
                    .and_then(|o| o.peel_to_blob())
                    .map_err(git("backup read"))?;
                Some(blob.content().to_vec())
            };
            files.push(MovedFile {
                path,
                before: (!old_file.id().is_zero()).then(|| old_file.id().to_string()),
                after,
            });
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(files)
    }

    /// Pushes `commit` to the remote branch. Never forced: a remote that moved meanwhile
    /// refuses the push, which is an error.
    pub fn push(&self, commit: &str) -> Result<(), BackupError> {
        let repo = self.lock();
        let id = oid(commit)?;
        repo.reference(PUSHED_REF, id, true, "quire backup: push")
            .map_err(git("backup ref"))?;
        let mut remote = repo
            .remote_anonymous(&self.url)
            .map_err(self.remote_error("push to"))?;
        let refused: std::cell::RefCell<Option<String>> = Default::default();
        let mut callbacks = RemoteCallbacks::new();
        callbacks.push_update_reference(|name, status| {
            if let Some(status) = status {
                *refused.borrow_mut() = Some(format!("{name}: {status}"));
            }
            Ok(())
        });
        let mut opts = PushOptions::new();
        opts.remote_callbacks(callbacks);
        let refspec = format!("{PUSHED_REF}:refs/heads/{}", self.branch);
        remote
            .push(&[refspec.as_str()], Some(&mut opts))
            .map_err(self.remote_error("push to"))?;
        drop(opts);
        match refused.into_inner() {
            Some(message) => Err(BackupError::Remote {
                action: "push to",
                remote: self.url.clone(),
                message,
            }),
            None => Ok(()),
        }
    }
}

fn oid(id: &str) -> Result<Oid, BackupError> {
    Oid::from_str(id).map_err(git("backup commit id"))
}
