//! Backups against real repositories: a local bare repository as the remote, another clone
//! pushing to it, and the root moved onto the remote's commits through `History::adopt`.

use std::fs;
use std::path::Path;

use git2::{Repository, Signature, StatusOptions};
use quire_store::backup::{remote_url, BackupRemote, Integration};
use quire_store::{
    BackupError, ChangeAction, FileChange, History, HistoryOptions, Root, StoreError,
};
use quire_vault::PagePath;

mod common;
use common::{open_history, open_root};

fn p(s: &str) -> PagePath {
    PagePath::new(s).expect("valid test path")
}

struct Fixture {
    _dir: tempfile::TempDir,
    root_dir: std::path::PathBuf,
    remote_dir: std::path::PathBuf,
    root: Root,
    history: History,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let root_dir = dir.path().join("root");
        let remote_dir = dir.path().join("remote.git");
        fs::create_dir_all(&root_dir).unwrap();
        Repository::init_bare(&remote_dir).unwrap();
        let root = open_root(&root_dir);
        let history = open_history(
            &root,
            HistoryOptions {
                async_commit: false,
                ..HistoryOptions::default()
            },
        );
        Fixture {
            root_dir: root.dir().to_path_buf(),
            _dir: dir,
            remote_dir,
            root,
            history,
        }
    }

    fn write(&self, path: &str, text: &str) {
        self.root.write(&p(path), text.as_bytes()).unwrap();
        self.history
            .record(
                &[FileChange::new(p(path), ChangeAction::Write)],
                "alice",
                &format!("write {path}"),
            )
            .unwrap();
    }

    fn head(&self) -> String {
        self.history.head().expect("a commit")
    }

    fn backup(&self) -> BackupRemote {
        let url = remote_url(self.remote_dir.to_str().unwrap(), Path::new("/")).unwrap();
        BackupRemote::open(&self.root, &url, "main").unwrap()
    }

    fn remote_tip(&self) -> Option<String> {
        let remote = Repository::open_bare(&self.remote_dir).unwrap();
        let tip = remote.refname_to_id("refs/heads/main").ok();
        tip.map(|id| id.to_string())
    }

    /// Another machine: clones the remote, commits `path`, pushes.
    fn push_from_another_clone(&self, path: &str, text: &str) {
        let clone_dir = self
            ._dir
            .path()
            .join(format!("clone-{}", path.replace('/', "-")));
        let clone = git2::build::RepoBuilder::new()
            .branch("main")
            .clone(self.remote_dir.to_str().unwrap(), &clone_dir)
            .unwrap();
        fs::write(clone_dir.join(path), text).unwrap();
        let mut index = clone.index().unwrap();
        index.add_path(Path::new(path)).unwrap();
        index.write().unwrap();
        let tree = clone.find_tree(index.write_tree().unwrap()).unwrap();
        let parent = clone.head().unwrap().peel_to_commit().unwrap();
        let bob = Signature::now("bob", "bob@example.com").unwrap();
        clone
            .commit(
                Some("HEAD"),
                &bob,
                &bob,
                &format!("bob writes {path}"),
                &tree,
                &[&parent],
            )
            .unwrap();
        clone
            .find_remote("origin")
            .unwrap()
            .push(&["refs/heads/main:refs/heads/main"], None)
            .unwrap();
    }

    /// What the write pipeline does with a move: the files written, then the history moved.
    fn adopt(&self, from: &str, to: &str, files: &[quire_store::MovedFile]) {
        let mut changes = Vec::new();
        for file in files {
            let path = p(&file.path);
            match &file.after {
                Some(bytes) => self.root.write(&path, bytes).unwrap(),
                None => self.root.remove(&path).unwrap(),
            }
            let action = if file.after.is_some() {
                ChangeAction::Write
            } else {
                ChangeAction::Delete
            };
            changes.push(FileChange::new(path, action));
        }
        self.history.adopt(&changes, from, to).unwrap();
    }

    fn is_clean(&self) -> bool {
        let repo = Repository::open(&self.root_dir).unwrap();
        let mut opts = StatusOptions::new();
        opts.include_untracked(true);
        let statuses = repo.statuses(Some(&mut opts)).unwrap();
        statuses.iter().all(|s| {
            s.path()
                .is_some_and(|p| p.starts_with(".quire/state/") || s.status().is_ignored())
        })
    }
}

/// The messages of the first-parent history of `tip` in `repo`, newest first.
fn messages(repo: &Repository, tip: &str) -> Vec<String> {
    let mut commit = repo.find_commit(git2::Oid::from_str(tip).unwrap()).unwrap();
    let mut out = vec![commit.message().unwrap().trim().to_string()];
    while let Ok(parent) = commit.parent(0) {
        out.push(parent.message().unwrap().trim().to_string());
        commit = parent;
    }
    out
}

#[test]
fn the_history_is_pushed_to_a_local_bare_repository() {
    let f = Fixture::new();
    f.write("a.md", "# A\n");
    let backup = f.backup();
    assert_eq!(
        backup.fetch().unwrap(),
        None,
        "the remote has no branch yet"
    );
    backup.push(&f.head()).unwrap();
    assert_eq!(f.remote_tip(), Some(f.head()));

    // Later writes go on top: a fast-forward.
    f.write("b.md", "# B\n");
    let remote = backup.fetch().unwrap().unwrap();
    assert_eq!(
        backup.integrate(&f.head(), &remote, true).unwrap(),
        Integration::Push
    );
    backup.push(&f.head()).unwrap();
    assert_eq!(f.remote_tip(), Some(f.head()));
}

#[test]
fn a_remote_that_moved_ahead_is_fetched_and_our_commits_are_replayed_onto_it() {
    let f = Fixture::new();
    f.write("a.md", "# A\n");
    let backup = f.backup();
    backup.push(&f.head()).unwrap();
    f.push_from_another_clone("other.md", "# From the other clone\n");
    f.write("ours.md", "# Ours\n");
    let local = f.head();

    let remote = backup.fetch().unwrap().unwrap();
    let Integration::Move {
        to,
        onto,
        rewritten,
        files,
    } = backup.integrate(&local, &remote, true).unwrap()
    else {
        panic!("the root must move onto the remote's commit");
    };
    assert_eq!(onto, remote);
    assert_eq!(rewritten.len(), 1, "our one commit is replayed");
    assert_eq!(rewritten[0].0, local);
    assert_eq!(rewritten[0].1, to);
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        ["other.md"],
        "only the other clone's file changes here"
    );
    // Nothing moved yet: the replay is objects only.
    assert_eq!(f.head(), local);
    assert!(!f.root_dir.join("other.md").exists());

    f.adopt(&local, &to, &files);
    assert_eq!(f.head(), to);
    assert_eq!(
        fs::read_to_string(f.root_dir.join("other.md")).unwrap(),
        "# From the other clone\n"
    );
    assert!(f.is_clean(), "the work tree is what HEAD holds");
    backup.push(&to).unwrap();
    assert_eq!(f.remote_tip(), Some(to.clone()));
    let remote_repo = Repository::open_bare(&f.remote_dir).unwrap();
    let all = messages(&remote_repo, &to);
    assert_eq!(
        &all[..3],
        ["write ours.md", "bob writes other.md", "write a.md"]
    );
    // Our commit keeps its author.
    let replayed = remote_repo
        .find_commit(git2::Oid::from_str(&to).unwrap())
        .unwrap();
    assert_eq!(replayed.author().name(), Some("alice"));
    // Later commits go on top of the moved history.
    f.write("later.md", "# Later\n");
    let repo = Repository::open(&f.root_dir).unwrap();
    assert_eq!(messages(&repo, &f.head())[1], "write ours.md");
}

#[test]
fn without_rebase_a_remote_that_moved_ahead_is_an_error_and_is_never_overwritten() {
    let f = Fixture::new();
    f.write("a.md", "# A\n");
    let backup = f.backup();
    backup.push(&f.head()).unwrap();
    f.push_from_another_clone("other.md", "# Other\n");
    let theirs = f.remote_tip().unwrap();
    f.write("ours.md", "# Ours\n");
    let remote = backup.fetch().unwrap().unwrap();
    let err = backup.integrate(&f.head(), &remote, false).unwrap_err();
    assert!(matches!(err, BackupError::Diverged { .. }), "{err}");
    // A push regardless is refused by the remote side, not forced.
    let err = backup.push(&f.head()).unwrap_err();
    assert!(matches!(err, BackupError::Remote { .. }), "{err}");
    assert_eq!(f.remote_tip(), Some(theirs));
}

#[test]
fn conflicting_changes_change_nothing_and_name_the_files() {
    let f = Fixture::new();
    f.write("a.md", "# A\n");
    let backup = f.backup();
    backup.push(&f.head()).unwrap();
    f.push_from_another_clone("a.md", "# A, their way\n");
    f.write("a.md", "# A, our way\n");
    let local = f.head();
    let remote = backup.fetch().unwrap().unwrap();
    match backup.integrate(&local, &remote, true) {
        Err(BackupError::Conflict { paths, .. }) => assert_eq!(paths, ["a.md"]),
        other => panic!("expected a conflict, got {other:?}"),
    }
    assert_eq!(f.head(), local);
    assert_eq!(
        fs::read_to_string(f.root_dir.join("a.md")).unwrap(),
        "# A, our way\n"
    );
}

#[test]
fn a_remote_with_an_unrelated_history_is_never_merged_in() {
    let f = Fixture::new();
    f.write("a.md", "# A\n");
    // Someone else's repository on the same branch.
    let other_dir = f._dir.path().join("other");
    let other = Repository::init(&other_dir).unwrap();
    fs::write(other_dir.join("theirs.md"), "# Theirs\n").unwrap();
    let mut index = other.index().unwrap();
    index.add_path(Path::new("theirs.md")).unwrap();
    let tree = other.find_tree(index.write_tree().unwrap()).unwrap();
    let bob = Signature::now("bob", "bob@example.com").unwrap();
    other
        .commit(Some("HEAD"), &bob, &bob, "theirs", &tree, &[])
        .unwrap();
    let branch = other.head().unwrap().name().unwrap().to_string();
    other
        .remote_anonymous(f.remote_dir.to_str().unwrap())
        .unwrap()
        .push(&[format!("{branch}:refs/heads/main").as_str()], None)
        .unwrap();

    let backup = f.backup();
    let local = f.head();
    let remote = backup.fetch().unwrap().unwrap();
    let err = backup.integrate(&local, &remote, true).unwrap_err();
    assert!(matches!(err, BackupError::Unrelated { .. }), "{err}");
    assert_eq!(f.head(), local);
    assert!(!f.root_dir.join("theirs.md").exists());
}

#[test]
fn an_unreachable_remote_is_an_error_naming_it() {
    let f = Fixture::new();
    f.write("a.md", "# A\n");
    let missing = f._dir.path().join("nowhere.git");
    let url = remote_url(missing.to_str().unwrap(), Path::new("/")).unwrap();
    let backup = BackupRemote::open(&f.root, &url, "main").unwrap();
    let err = backup.fetch().unwrap_err();
    assert!(
        matches!(&err, BackupError::Remote { remote, .. } if remote.contains("nowhere.git")),
        "{err}"
    );
    assert!(backup.push(&f.head()).is_err());
}

#[test]
fn adopting_refuses_a_history_that_moved_and_files_that_differ() {
    let f = Fixture::new();
    f.write("a.md", "# A\n");
    let backup = f.backup();
    backup.push(&f.head()).unwrap();
    f.push_from_another_clone("other.md", "# Other\n");
    let local = f.head();
    let remote = backup.fetch().unwrap().unwrap();
    let Integration::Move { to, files, .. } = backup.integrate(&local, &remote, true).unwrap()
    else {
        panic!("a fast-forward is a move");
    };
    assert_eq!(to, remote, "only the remote moved: its tip as it is");

    // The file on disk is not what the target holds: nothing moves.
    f.root.write(&p("other.md"), b"# Something else\n").unwrap();
    let changes = [FileChange::new(p("other.md"), ChangeAction::Write)];
    let err = f.history.adopt(&changes, &local, &to).unwrap_err();
    assert!(matches!(err, StoreError::Git { .. }), "{err}");
    assert_eq!(f.head(), local);

    // HEAD moved since the move was prepared: nothing moves.
    f.write("new.md", "# New\n");
    f.root
        .write(&p("other.md"), &files[0].after.clone().unwrap())
        .unwrap();
    let err = f.history.adopt(&changes, &local, &to).unwrap_err();
    assert!(matches!(err, StoreError::HeadMoved { .. }), "{err}");
    assert_ne!(f.head(), to);
}

#[test]
fn only_local_remotes_are_accepted() {
    let base = Path::new("/srv/kb");
    assert_eq!(
        remote_url("/srv/backup.git", base).unwrap(),
        "/srv/backup.git"
    );
    assert_eq!(
        remote_url("backups/kb.git", base).unwrap(),
        "/srv/kb/backups/kb.git"
    );
    assert_eq!(
        remote_url("file:///srv/backup.git", base).unwrap(),
        "file:///srv/backup.git"
    );
    for refused in [
        "https://example.com/kb.git",
        "http://example.com/kb.git",
        "ssh://git@example.com/kb.git",
        "git@example.com:me/kb.git",
        "git://example.com/kb.git",
        "file://relative/path",
    ] {
        assert!(remote_url(refused, base).is_err(), "{refused}");
    }
}
